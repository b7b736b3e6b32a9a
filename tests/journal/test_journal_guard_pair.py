"""What a durable guarded call pair costs the journal: one record, one fdatasync, no
directory listing (flock, pread of LOCK, a one-byte pread past the log's end, pwrite,
unlock, fdatasync), and (async twins) no fsync on the event loop thread."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from _wal_files import count_appends

from crs._journal import _local
from crs.guard import Guard


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[int]]:
    """The threads that called each watched `os` function."""
    seen: dict[str, list[int]] = {}
    for name in ("fdatasync", "fsync", "scandir", "pwrite", "pread", "listdir"):
        real = getattr(os, name)

        def watched(*args: Any, _real: Any = real, _name: str = name) -> Any:
            seen.setdefault(_name, []).append(threading.get_ident())
            return _real(*args)

        monkeypatch.setattr(os, name, watched)
    # A sync handed to the journal's worker thread (`_core.sync_start`) counts where the
    # writer waits for it (`_core.sync_wait`): the thread that would block on the disk.
    real_wait = _local._sync_wait

    def wait(ticket: int, spin_us: int, pickup_us: int = 50) -> int:
        seen.setdefault("fdatasync", []).append(threading.get_ident())
        return real_wait(ticket, spin_us, pickup_us)

    monkeypatch.setattr(_local, "_sync_wait", wait)
    return seen


def test_a_durable_pair_is_one_append_call_and_one_fdatasync(
    tmp_path: Path, calls: dict[str, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The append is one `_core.wal_append_op` call: the record's encoding, then flock, pread
    # of LOCK's stamp and generation, a pread past the log's end, pwrite, unlock (its
    # syscalls; test_journal_append_shared.py holds it to its Python reference).
    appends = count_appends(monkeypatch)
    with Guard.open(tmp_path, "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
        for i in range(3):  # warm: the first commits may create files
            v = g.before_call("read_file", {"path": f"w{i}.py"})
            assert v.call is not None
            g.after_call(v.call, result="x")
        for i in range(5):
            calls.clear()
            appends.clear()
            v = g.before_call("read_file", {"path": f"f{i}.py"})
            assert calls == {}  # before_call of an allowed call touches no file
            assert appends == []
            assert v.call is not None
            g.after_call(v.call, result=f"body {i}")
            assert len(calls.pop("fdatasync")) == 1
            assert [got[0] for got in appends] == [0]  # written in the one call
            assert calls == {}  # no other pwrite or pread, no fsync, no directory listing


def test_async_twins_never_sync_on_the_event_loop_thread(
    tmp_path: Path, calls: dict[str, list[int]]
) -> None:
    g = Guard.open(tmp_path, "s", home=tmp_path / "h", fingerprint=lambda: "f")

    async def main() -> int:
        loop_thread = threading.get_ident()
        for i in range(4):  # the same failing call: a refusal (journaled) by before_call
            v = await g.abefore_call("bash", {"command": "make"})
            if v.allowed:
                assert v.call is not None
                await g.aafter_call(v.call, error=f"make: Error {i}")
        assert not v.allowed
        await g.aon_message("thinking")
        v = await g.abefore_call("read_file", {"path": "a.py"})
        assert v.call is not None
        await g.aafter_call(v.call, result="x")
        return loop_thread

    with g:
        calls.clear()
        loop_thread = asyncio.run(main())
        syncs = calls.get("fdatasync", []) + calls.get("fsync", [])  # (closing syncs too)
    assert len(syncs) >= 4  # the failures, the refusal, the message, the read
    assert loop_thread not in syncs
