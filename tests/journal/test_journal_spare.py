"""The next segment is created ahead (`next.spare`), so the append that rolls syncs once.

Issue 11: the append that starts a segment cost three syncs more than a plain append (create
and fsync the new segment, fsync the directory, seal and fsync the old one). Now a background
thread creates the next segment, empty, with its directory entry synced, once the active one
is half full; the roll writes its header and renames it, and seals the old segment after the
rolling append. Every state a crash (or a power loss, which may undo the unsynced rename) can
leave is read back without losing an acknowledged record or calling an empty spare corrupt.
"""

from __future__ import annotations

import os
import signal
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import crs
from crash_helpers import fork_child, read_acks
from crs import JournalConfig, LocalJournal

SPARE = "next.spare"
SEALED = 1


def _config(path: Path, **kw: Any) -> JournalConfig:
    kw.setdefault("sync_policy", "always")
    return JournalConfig(
        path=str(path), session_id="spare", segment_bytes=4096, lock_timeout=5.0, **kw
    )


def _entry(i: int) -> dict[str, object]:
    return {"i": i, "pad": "p" * 200}


def _wait_for(cond: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 10
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


def _segments(path: Path) -> list[Path]:
    return sorted(path.glob("*.wal"))


def _flags(seg: Path) -> int:
    flags: int = struct.unpack_from("<I", seg.read_bytes(), 12)[0]
    return flags


class _SyncCounter:
    """Counts os.fsync/os.fdatasync calls, per thread."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: dict[int, int] = {}
        for name in ("fsync", "fdatasync"):
            real = getattr(os, name)
            monkeypatch.setattr(os, name, self._wrap(real))

    def _wrap(self, real: Callable[[int], None]) -> Callable[[int], None]:
        def counted(fd: int) -> None:
            me = threading.get_ident()
            self.calls[me] = self.calls.get(me, 0) + 1
            real(fd)

        return counted

    def mine(self) -> int:
        return self.calls.get(threading.get_ident(), 0)


def _fill_until_spare(j: LocalJournal, path: Path, start: int = 0) -> int:
    i = start
    while not (path / SPARE).exists():
        assert i < start + 100, "no spare segment was created ahead"
        j.append(_entry(i))
        i += 1
    _wait_for(lambda: j._prep is None or not j._prep.is_alive(), "the spare")
    return i


def test_the_append_that_rolls_syncs_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "j"
    with LocalJournal(_config(path)) as j:
        i = _fill_until_spare(j, path)
        assert (path / SPARE).stat().st_size == 0
        assert (path / SPARE).stat().st_mode & 0o777 == 0o600
        counter = _SyncCounter(monkeypatch)
        rolls = 0
        for _ in range(40):  # several rolls, each into a spare made ahead
            before, synced = j.stats().segments, counter.mine()
            j.append(_entry(i))
            i += 1
            if j.stats().segments != before:
                rolls += 1
                assert counter.mine() - synced == 1, "the rolling append synced more than once"
                _wait_for(lambda: (path / SPARE).exists(), "the next spare")
            else:
                assert counter.mine() - synced == 1
        monkeypatch.undo()
        assert rolls >= 2
    segs = _segments(path)
    assert all(_flags(s) & SEALED for s in segs[:-1])  # sealed in the background
    assert not _flags(segs[-1]) & SEALED
    with LocalJournal(_config(path)) as j:
        assert j.replay() == [_entry(k) for k in range(i)]


def test_sigkill_between_pre_creation_and_use_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "j"

    def body(ack: int) -> None:
        j = LocalJournal(_config(path))
        i = 0
        while not (path / SPARE).exists() and i < 100:
            j.append(_entry(i))
            os.write(ack, struct.pack("<Q", i))
            i += 1
        _wait_for(lambda: j._prep is None or not j._prep.is_alive(), "the spare")
        os.kill(os.getpid(), signal.SIGKILL)

    pid, r = fork_child(body)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status)
    acked = read_acks(r)
    assert acked
    assert (path / SPARE).stat().st_size == 0  # created ahead, never used
    with LocalJournal(_config(path)) as j:  # not corruption, not a segment
        got = j.replay()
        assert got == [_entry(k) for k in range(len(got))]
        assert len(got) >= len(acked)
        assert j.stats().corrupted_count == 0
        n = len(got)
        segments = j.stats().segments
        while j.stats().segments == segments:  # the next roll uses the old spare
            j.append(_entry(n))
            n += 1
    assert [e["i"] for e in LocalJournal(_config(path, read_only=True)).replay()] == list(range(n))


def _interrupted_roll(path: Path) -> tuple[int, Path]:
    """A journal as a power loss right after a roll may leave it: the rolling append was
    synced (acknowledged), its rename was not, so the new segment is `next.spare` again."""
    with LocalJournal(_config(path)) as j:
        n = _fill_until_spare(j, path)
        while j.stats().segments < 2:
            j.append(_entry(n))
            n += 1
    (path / SPARE).unlink()  # the spare made after the roll did not survive either
    last = _segments(path)[-1]
    os.rename(last, path / SPARE)
    prev = _segments(path)[-1]
    with open(prev, "r+b") as f:  # nor did the seal of the previous segment
        head = bytearray(f.read(32))
        head[12:16] = b"\0\0\0\0"
        head[28:32] = struct.pack("<I", crs._core.crc32c(bytes(head[:28])))
        f.seek(0)
        f.write(head)
    return n, last


def test_a_spare_holding_the_rolling_append_is_taken_in(tmp_path: Path) -> None:
    path = tmp_path / "j"
    n, last = _interrupted_roll(path)
    ro = LocalJournal(_config(path, read_only=True))  # a reader reads it in place
    assert ro.replay() == [_entry(k) for k in range(n)]
    ro.close()
    assert (path / SPARE).exists()
    with LocalJournal(_config(path)) as j:
        assert j.replay() == [_entry(k) for k in range(n)]
        j.append(_entry(n))
    assert last.exists()
    assert _flags(_segments(path)[-2]) & SEALED  # sealed again on open
    with LocalJournal(_config(path)) as j:
        assert j.replay() == [_entry(k) for k in range(n + 1)]


def test_a_spare_whose_header_write_was_cut_short_is_emptied(tmp_path: Path) -> None:
    path = tmp_path / "j"
    with LocalJournal(_config(path)) as j:
        n = _fill_until_spare(j, path)
    (path / SPARE).write_bytes(b"\x89CRSWAL\n\x01\x00")  # the roll's header, cut short
    with LocalJournal(_config(path)) as j:
        assert j.replay() == [_entry(k) for k in range(n)]
    assert (path / SPARE).stat().st_size == 0


def test_a_spare_with_records_and_a_damaged_header_is_corruption(tmp_path: Path) -> None:
    path = tmp_path / "j"
    _interrupted_roll(path)
    data = bytearray((path / SPARE).read_bytes())
    data[0:32] = bytes(32)
    (path / SPARE).write_bytes(bytes(data))
    with pytest.raises(crs.JournalCorruptedError, match=r"next\.spare"):
        LocalJournal(_config(path))
    assert (path / SPARE).read_bytes() == bytes(data)  # nothing was removed


def test_deleting_the_last_segment_is_still_detected_beside_a_spare(tmp_path: Path) -> None:
    path = tmp_path / "j"
    with LocalJournal(_config(path)) as j:
        n = _fill_until_spare(j, path)
        while j.stats().segments < 2:
            j.append(_entry(n))
            n += 1
    assert (path / SPARE).exists()
    _segments(path)[-1].unlink()
    with pytest.raises(crs.JournalCorruptedError, match="sealed"):
        LocalJournal(_config(path))


def test_a_planted_spare_symlink_is_never_followed(tmp_path: Path) -> None:
    path = tmp_path / "j"
    path.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_bytes(b"")
    (path / SPARE).symlink_to(victim)
    with LocalJournal(_config(path)) as j:
        n = 0
        while j.stats().segments < 3:
            j.append(_entry(n))
            n += 1
    assert victim.read_bytes() == b""
    assert not (path / SPARE).is_symlink()
    with LocalJournal(_config(path)) as j:
        assert len(j.replay()) == n


def test_a_restore_drops_the_old_journals_spare(tmp_path: Path) -> None:
    import io

    src = crs.MemoryJournal()
    src.append_batch([1, 2, 3])
    buf = io.BytesIO()
    src.backup(buf)
    path = tmp_path / "j"
    with LocalJournal(_config(path)) as j:
        _fill_until_spare(j, path)
        buf.seek(0)
        j.restore(buf)
        assert j.replay() == [1, 2, 3]
        assert not (path / SPARE).exists()
    with LocalJournal(_config(path)) as j:
        assert j.replay() == [1, 2, 3]


def test_shared_writers_roll_without_a_spare(tmp_path: Path) -> None:
    shared_path = tmp_path / "shared"
    with LocalJournal(_config(shared_path, shared=True)) as j:
        for i in range(60):
            j.append(_entry(i))
        assert j.stats().segments > 2
    assert not (shared_path / SPARE).exists()
