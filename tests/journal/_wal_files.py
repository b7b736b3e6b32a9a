"""A shared journal's two files for the one-call append tests (test_journal_append_shared.py,
test_journal_append_op.py): `LOCK` with a writer's head and a segment, on a real file system."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

HEAD = b"1234 shared".ljust(40) + b"%020d\n" % 7


def wal_files(d: Path, lock: bytes, seg: bytes) -> tuple[int, int]:
    """`d/LOCK` holding `lock` and `d/seg` holding `seg`, opened read-write: (lock fd, seg fd)."""
    d.mkdir(parents=True, exist_ok=True)
    (d / "LOCK").write_bytes(lock)
    (d / "seg").write_bytes(seg)
    return os.open(d / "LOCK", os.O_RDWR), os.open(d / "seg", os.O_RDWR)


def count_appends(monkeypatch: Any) -> list[tuple[int, ...]]:
    """What every one-call op append returns, from now on (`_wal_append_op`, and
    `_wal_append_op_ahead`, the one taken with the sync worker): the list it fills."""
    from crs._journal import _local

    seen: list[tuple[int, ...]] = []
    for name in ("_wal_append_op", "_wal_append_op_ahead"):
        real = getattr(_local, name)

        def counted(*args: Any, _real: Any = real) -> tuple[int, ...]:
            got: tuple[int, ...] = _real(*args)
            seen.append(got)
            return got

        monkeypatch.setattr(_local, name, counted)
    return seen
