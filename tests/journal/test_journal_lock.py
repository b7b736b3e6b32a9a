"""Two processes on one journal: one waits for (or is refused) the writer lock; writes never mix."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from crs import JournalConfig, JournalLockedError, LocalJournal


def config(path: Path, timeout: float) -> JournalConfig:
    return JournalConfig(
        path=str(path), session_id="two", sync_policy="always", lock_timeout=timeout
    )


def writer(path: Path, name: str, rounds: int) -> None:
    code = 1
    try:
        for r in range(rounds):
            with LocalJournal(config(path, 30.0)) as j:
                j.append_batch([{"w": name, "r": r, "i": i} for i in range(10)])
                j.append({"w": name, "r": r, "i": 10})
        code = 0
    finally:
        os._exit(code)


def test_two_writers_take_turns_and_never_interleave(tmp_path: Path) -> None:
    pids = []
    for name in ("a", "b"):
        pid = os.fork()
        if pid == 0:
            writer(tmp_path, name, 15)
        pids.append(pid)
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    with LocalJournal(config(tmp_path, 0.0)) as j:
        entries = j.replay()
    assert len(entries) == 2 * 15 * 11
    for start in range(0, len(entries), 11):  # every batch and its follow-up stay together
        unit = entries[start : start + 11]
        assert [e["i"] for e in unit] == list(range(11))
        assert len({(e["w"], e["r"]) for e in unit}) == 1
    for name in ("a", "b"):
        assert [e["r"] for e in entries if e["w"] == name and e["i"] == 0] == list(range(15))


def test_second_writer_is_refused_then_waits(tmp_path: Path) -> None:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            with LocalJournal(config(tmp_path, 0.0)) as j:
                j.append("held")
                os.write(w, b"locked\n")
                time.sleep(1.0)
        finally:
            os._exit(0)
    os.close(w)
    assert os.read(r, 7) == b"locked\n"
    with pytest.raises(JournalLockedError, match=f"pid {pid}"):
        LocalJournal(config(tmp_path, 0.0))
    started = time.monotonic()
    with LocalJournal(config(tmp_path, 10.0)) as j:  # waits until the child closes
        assert time.monotonic() - started > 0.05
        assert j.replay() == ["held"]
    os.waitpid(pid, 0)
    os.close(r)


def test_a_killed_writer_releases_the_lock(tmp_path: Path) -> None:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            LocalJournal(config(tmp_path, 0.0)).append("x")
            os.write(w, b"1")
            time.sleep(30)
        finally:
            os._exit(0)
    os.close(w)
    assert os.read(r, 1) == b"1"
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(r)
    with LocalJournal(config(tmp_path, 1.0)) as j:
        assert j.replay() == ["x"]
