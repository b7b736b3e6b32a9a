"""Disk-full test: a LocalJournal on a small tmpfs the test mounts (root only, else skipped).

Appends fail with `JournalFullError` when the file system is full, nothing acknowledged is lost,
nothing half-written remains, and the journal takes appends again once space returns.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from crs import JournalConfig, JournalFullError, LocalJournal


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a size-limited tmpfs needs root")
    res = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)],
        capture_output=True,
        check=False,
    )
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {res.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


@pytest.mark.parametrize("preallocate", [False, True])
def test_disk_full_is_a_typed_error_and_recoverable(small_fs: Path, preallocate: bool) -> None:
    filler = small_fs / "filler"
    filler.write_bytes(bytes(64 * 1024))
    cfg = JournalConfig(
        path=str(small_fs / "j"),
        session_id="full",
        sync_policy="always",
        segment_bytes=16 * 1024,
        preallocate=preallocate,
    )
    acked: list[dict[str, object]] = []
    with LocalJournal(cfg) as j:
        with pytest.raises(JournalFullError, match="no space left"):  # noqa: PT012
            for i in range(10_000):
                e = {"i": i, "pad": "z" * 900}
                if i % 3:
                    j.append(e)
                    acked.append(e)
                else:
                    batch = [e, {"i": -i}]
                    j.append_batch(batch)
                    acked += batch
        for _ in range(3):  # still full: still a typed error, still nothing half-written
            with pytest.raises(JournalFullError):
                j.append_batch([{"more": "w" * 5000}] * 4)
        assert j.replay() == acked
        filler.unlink()  # space returns
        for i in range(20):
            e = {"after": i, "pad": "q" * 900}
            j.append(e)
            acked.append(e)
    with LocalJournal(cfg) as j:
        assert j.replay() == acked
        assert j.stats().last_seq_num == len(acked)
    with contextlib.suppress(FileNotFoundError):
        filler.unlink()
