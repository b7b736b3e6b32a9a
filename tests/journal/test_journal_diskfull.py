"""Disk-full test: a LocalJournal on a small tmpfs the test mounts (root only, else skipped).

Appends fail with `JournalFullError` when the file system is full, nothing acknowledged is lost,
nothing half-written remains, and the journal takes appends again once space returns. A
preallocating journal whose allocation fails falls back to growing: it refuses no append a
growing one takes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
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


def prealloc_config(path: Path, preallocate: bool) -> JournalConfig:
    return JournalConfig(
        path=str(path),
        session_id="full",
        sync_policy="always",
        segment_bytes=1 << 20,
        preallocate=preallocate,
    )


def _fill_until_full(path: Path, preallocate: bool) -> int:
    n = 0
    with LocalJournal(prealloc_config(path, preallocate)) as j:
        while True:
            try:
                j.append({"i": n, "pad": "f" * 300})
            except JournalFullError:
                break
            n += 1
        for _ in range(3):  # full stays full, typed, and the journal stays usable
            with pytest.raises(JournalFullError):
                j.append({"i": n, "pad": "f" * 300})
    with LocalJournal(dataclasses.replace(prealloc_config(path, False), read_only=True)) as r:
        assert [e["i"] for e in r.replay()] == list(range(n))
    return n


def test_a_full_disk_refuses_no_append_that_fits(small_fs: Path) -> None:
    filler = small_fs / "filler"
    st = os.statvfs(small_fs)
    filler.write_bytes(b"\1" * (st.f_bavail * st.f_frsize - (150 << 10)))  # 150 KiB free
    grown = _fill_until_full(small_fs / "grow", preallocate=False)
    shutil.rmtree(small_fs / "grow")
    pre = _fill_until_full(small_fs / "pre", preallocate=True)
    assert grown > 100
    assert pre >= grown, (pre, grown)  # a failed allocation falls back to growing
    # Space freed again: the journal opens, keeps its records and takes appends.
    filler.unlink()
    with LocalJournal(prealloc_config(small_fs / "pre", True)) as j:
        assert len(j.replay()) == pre
        j.append({"i": pre, "pad": ""})
