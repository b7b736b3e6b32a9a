"""A shared journal's two files for the one-call append tests (test_journal_append_shared.py,
test_journal_append_op.py): `LOCK` with a writer's head and a segment, on a real file system."""

from __future__ import annotations

import os
from pathlib import Path

HEAD = b"1234 shared".ljust(40) + b"%020d\n" % 7


def wal_files(d: Path, lock: bytes, seg: bytes) -> tuple[int, int]:
    """`d/LOCK` holding `lock` and `d/seg` holding `seg`, opened read-write: (lock fd, seg fd)."""
    d.mkdir(parents=True, exist_ok=True)
    (d / "LOCK").write_bytes(lock)
    (d / "seg").write_bytes(seg)
    return os.open(d / "LOCK", os.O_RDWR), os.open(d / "seg", os.O_RDWR)
