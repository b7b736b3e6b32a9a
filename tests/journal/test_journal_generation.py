"""The directory generation in `LOCK` (shared journals): an append lists nothing.

A shared writer used to list the journal directory at every append to notice another
writer's roll, checkpoint or restore. Now each of those counts itself in `LOCK` (before it
changes anything) and an appender lists the directory only when the count moved; it reads
the active segment's tail only when the file grew. These tests show the others' changes are
still seen, across real processes, and that a plain append really lists nothing.
"""

from __future__ import annotations

import dataclasses
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import crs
from crs import JournalConfig, LocalJournal, _core
from crs.guard import Guard
from steps import tool_step

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "python")}


def shared(path: Path, **kw: Any) -> JournalConfig:
    base = dataclasses.replace(
        crs.DefaultJournalConfig(), path=str(path), session_id="gen", shared=True
    )
    return dataclasses.replace(base, **kw)


def lock_generation(path: Path) -> int:
    head = (path / "LOCK").read_bytes()
    assert head[39:40] == b"\n"
    assert head[60:61] == b"\n"
    return int(head[40:60])


def run(code: str, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.fixture
def no_listing(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Count every listing of a directory by the journal module."""
    listed: list[str] = []
    real_scandir, real_glob, real_iterdir = os.scandir, Path.glob, Path.iterdir

    def scandir(p: Any = ".") -> Any:
        listed.append(f"scandir {p}")
        return real_scandir(p)

    def glob(self: Path, pattern: str, **kw: Any) -> Any:
        listed.append(f"glob {self}/{pattern}")
        return real_glob(self, pattern, **kw)

    def iterdir(self: Path) -> Any:
        listed.append(f"iterdir {self}")
        return real_iterdir(self)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(Path, "glob", glob)
    monkeypatch.setattr(Path, "iterdir", iterdir)
    return listed


CHECKPOINT_AND_ROLL = """
import dataclasses, sys
import crs
cfg = dataclasses.replace(crs.DefaultJournalConfig(), path=sys.argv[1], session_id="o",
                          shared=True, segment_bytes=4096)
with crs.LocalJournal(cfg) as j:
    for i in range(int(sys.argv[2])):
        j.append({"i": "other", "pad": "y" * 40})
    j.checkpoint()
    print(j.stats().checkpoint_seq, j.stats().last_seq_num)
"""


def test_a_checkpoint_by_another_process_between_two_appends_is_seen(
    tmp_path: Path, no_listing: list[str]
) -> None:
    cfg = shared(tmp_path, segment_bytes=4096)
    with LocalJournal(cfg) as a:
        for i in range(5):
            a.append({"i": i})
        before = lock_generation(tmp_path)
        no_listing.clear()
        assert a.append({"i": 5}) == 6
        assert no_listing == []  # an append lists nothing
        # Another process appends enough to roll, then checkpoints everything (its active
        # segment is sealed and a new one started; the old segments are deleted).
        ckpt, last = map(int, run(CHECKPOINT_AND_ROLL, str(tmp_path), "200").split())
        assert last == 206
        assert ckpt == 206
        assert lock_generation(tmp_path) > before
        assert a.append({"i": "after"}) == 207  # continues after the other's records
        assert no_listing  # the moved generation made it list the directory once
        assert a.stats().checkpoint_seq == 206
        no_listing.clear()
        assert a.append({"i": "again"}) == 208
        assert no_listing == []
        assert [e["i"] for e in a.replay()] == ["after", "again"]
    with LocalJournal(shared(tmp_path)) as c:
        assert [e["i"] for e in c.replay()] == ["after", "again"]


APPEND = """
import dataclasses, sys
import crs
cfg = dataclasses.replace(crs.DefaultJournalConfig(), path=sys.argv[1], session_id="o",
                          shared=True)
with crs.LocalJournal(cfg) as j:
    print(j.append({"i": sys.argv[2]}))
"""


def test_a_foreign_append_is_read_before_the_next_append(
    tmp_path: Path, no_listing: list[str]
) -> None:
    with LocalJournal(shared(tmp_path)) as a:
        assert a.append({"i": "a1"}) == 1
        gen = lock_generation(tmp_path)
        assert run(APPEND, str(tmp_path), "b1").strip() == "2"
        assert lock_generation(tmp_path) == gen  # an append changes no generation
        no_listing.clear()
        assert a.append({"i": "a2"}) == 3  # the tail was read: b's record is seq 2
        assert no_listing == []
        assert [e["i"] for e in a.replay()] == ["a1", "b1", "a2"]


RECORD = """
import sys
import crs
c = crs.open_project(sys.argv[2], sys.argv[1], session_id="other")
s = c.record_step(crs.StepRecord(session_id="s", actor=crs.Actor.MAIN_AGENT,
    decision=crs.Decision.EXECUTE_TOOL, tool=sys.argv[3], outcome=crs.Outcome.SUCCESS))
print(s.step_number)
c.close()
"""


def test_a_foreign_commit_is_applied_before_the_next_commit(tmp_path: Path) -> None:
    home, proj = tmp_path / "home", tmp_path / "proj"
    proj.mkdir()
    with crs.open_project(proj, home, session_id="here") as c:
        assert c.record_step(tool_step("read")).step_number == 1
        assert run(RECORD, str(home), str(proj), "build").strip() == "2"
        assert c.record_step(tool_step("edit")).step_number == 3
        assert [s.tool for s in c.get_step_history("s")] == ["read", "build", "edit"]


def test_a_guard_sees_a_failure_another_process_learned(tmp_path: Path) -> None:
    home, proj = tmp_path / "home", tmp_path / "proj"
    proj.mkdir()
    learn = """
import sys
from crs.guard import Guard
with Guard.open(sys.argv[2], "first", home=sys.argv[1], fingerprint=lambda: "fp") as g:
    v = g.before_call("bash", {"command": "make build"})
    g.after_call(v.call, error="make: *** [build] Error 2")
"""
    with Guard.open(proj, "second", home=home, fingerprint=lambda: "fp") as g:
        v = g.before_call("read_file", {"path": "a.py"})
        assert v.call is not None
        g.after_call(v.call, result="x")
        run(learn, str(home), str(proj))
        # The guard's next commit applies the other process's record first.
        v = g.before_call("read_file", {"path": "b.py"})
        assert v.call is not None
        g.after_call(v.call, result="y")
        refused = g.before_call("bash", {"command": "make build"})
        assert refused.code == "known_failure"


def test_a_restore_by_another_writer_is_seen(tmp_path: Path, no_listing: list[str]) -> None:
    a, b = LocalJournal(shared(tmp_path)), LocalJournal(shared(tmp_path))
    try:
        for i in range(3):
            a.append({"i": i})
        saved = io.BytesIO()
        b.backup(saved)
        a.append({"i": "dropped"})
        saved.seek(0)
        b.restore(saved)  # back to the three records
        no_listing.clear()
        assert a.append({"i": "new"}) == 4
        assert no_listing
        assert [e["i"] for e in a.replay()] == [0, 1, 2, "new"]
    finally:
        a.close()
        b.close()


def test_a_count_without_its_change_costs_one_listing(
    tmp_path: Path, no_listing: list[str]
) -> None:
    # A writer that counted a change and crashed before making it: the others list the
    # directory once and go on.
    a, b = LocalJournal(shared(tmp_path)), LocalJournal(shared(tmp_path))
    try:
        a.append({"i": 0})
        with a.exclusive():
            a._bump()
        no_listing.clear()
        assert b.append({"i": 1}) == 2
        assert no_listing
        no_listing.clear()
        assert b.append({"i": 2}) == 3
        assert a.append({"i": 3}) == 4
        assert no_listing == []
        assert [e["i"] for e in b.replay()] == [0, 1, 2, 3]
    finally:
        a.close()
        b.close()


def test_the_lock_names_its_last_holder_and_is_written_only_when_that_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with LocalJournal(shared(tmp_path / "x", shared=False)):  # a new journal, held for life
        assert (
            (tmp_path / "x" / "LOCK").read_bytes().startswith(f"{os.getpid()} exclusive ".encode())
        )
    with LocalJournal(shared(tmp_path)) as a:
        assert (tmp_path / "LOCK").read_bytes().startswith(f"{os.getpid()} shared ".encode())
        a.append({"i": 0})
        head = (tmp_path / "LOCK").read_bytes()
        assert head.startswith(f"{os.getpid()} shared ".encode())
        run(APPEND, str(tmp_path), "other")
        assert not (tmp_path / "LOCK").read_bytes().startswith(f"{os.getpid()} ".encode())
        writes: list[int] = []
        real = os.pwrite

        def pwrite(fd: int, data: Any, offset: int) -> int:
            writes.append(fd)
            return real(fd, data, offset)

        monkeypatch.setattr(os, "pwrite", pwrite)
        a.append({"i": 1})  # restamps the lock (another pid held it), writes the record
        assert writes.count(a._lock_fd) == 1
        writes.clear()
        a.append({"i": 2})  # its own stamp is there: the record only
        assert writes.count(a._lock_fd) == 0
        assert len(writes) == 1
        assert (tmp_path / "LOCK").read_bytes().startswith(f"{os.getpid()} shared ".encode())


def test_a_lock_file_of_an_older_crs_is_read_as_generation_zero(tmp_path: Path) -> None:
    with LocalJournal(shared(tmp_path)) as a:
        a.append({"i": 0})
    (tmp_path / "LOCK").write_bytes(b"4242 shared                        \n")  # 37 bytes
    with LocalJournal(shared(tmp_path)) as a, LocalJournal(shared(tmp_path)) as b:
        assert a.append({"i": 1}) == 2
        assert b.append({"i": 2}) == 3
        a.checkpoint()
        assert lock_generation(tmp_path) >= 1
        assert b.append({"i": 3}) == 4
        assert b.stats().checkpoint_seq == 3
        assert [e["i"] for e in b.replay()] == [3]


def test_a_torn_record_left_under_a_live_writer_is_cut_before_its_next_append(
    tmp_path: Path,
) -> None:
    with LocalJournal(shared(tmp_path)) as a:
        a.append({"i": 0})
        seg = sorted(tmp_path.glob("*.wal"))[-1]
        frame = _core.wal_encode(2, [b'{"v":1,"e":{"i":"lost"}}'])
        with open(seg, "r+b") as f:  # another writer's record, cut short by its death
            f.seek(a._end)
            f.write(frame[: len(frame) - 5])
        assert a.append({"i": 1}) == 2
        assert [e["i"] for e in a.replay()] == [0, 1]
    with LocalJournal(shared(tmp_path)) as b:
        assert [e["i"] for e in b.replay()] == [0, 1]
