"""Red team, ninth pass: a forked child of a process with a *local* durable guard.

`os.fork` copies the guard, its engine and its project journal (`LocalJournal`) into the
child, with the parent's descriptors: the segment, the spare and `LOCK`, whose flock
belongs to the open file description the two processes now share (so it never keeps one
of them out of the other's appends). The child's `before_call`/`after_call` appended to
the parent's journal through them, as if it were the parent, and a lock another thread of
the parent held at the fork (the engine's, the journal's, the gc pause's) was never
released in the child: its `status()` or `close()` waited forever.

Now, in the child, the project's engine refuses every change with `CRSClosedError` naming
the fork (open the guard again in the child), reads answer at once on the state as it was
at the fork, and the journal's inherited descriptors are closed without a write, a sync,
a seal or an unlock; a `Guard.open` of the project in the child is a new writer, which
takes turns with the parent on the file lock as a second process does.

Each check forks this process (the child reports on a pipe and ends with `os._exit`; the
parent waits at most `_WAIT_S` and kills a child that hangs) and reads the project back
with a new guard in a new process.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import gc
import hashlib
import json
import os
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import crs
from crs._journal import _base
from crs.guard import Guard

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork"),
]

_WAIT_S = 10.0  # longest wait for a forked child's report


def _fp() -> str:
    return "fp"


def _open(tmp_path: Path, session: str = "s") -> Guard:
    return Guard.open(tmp_path / "p", session, home=tmp_path / "h", fingerprint=_fp)


def _call(g: Guard, path: str) -> int:
    v = g.before_call("read_file", {"path": path})
    return int(g.after_call(v.call, result=f"body of {path}").call.step)


class _Child:
    """A forked child running `work()`; `result()` is what it returned (JSON), or fails
    the test with its traceback, or with "hung" (the child is killed) after `_WAIT_S`."""

    def __init__(self, work: Callable[[], Any]) -> None:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 0
            try:
                os.close(r)
                out: dict[str, Any] = {"ok": work()}
            except BaseException:
                out = {"error": traceback.format_exc()}
                code = 1
            try:
                os.write(w, json.dumps(out, default=repr).encode())
            finally:
                os._exit(code)
        os.close(w)
        self.pid, self._r = pid, r
        self._deadline = time.monotonic() + _WAIT_S
        self._data = b""
        self._status: int | None = None

    def answered(self, within: float) -> bool:
        """Whether the child wrote (or closed) its end of the pipe within `within` s."""
        ready, _, _ = select.select([self._r], [], [], within)
        return bool(ready)

    def result(self) -> Any:
        try:
            while True:
                left = self._deadline - time.monotonic()
                if left <= 0:
                    pytest.fail(f"the forked child hung (no answer within {_WAIT_S:g} s)")
                ready, _, _ = select.select([self._r], [], [], left)
                if ready:
                    chunk = os.read(self._r, 1 << 16)
                    if not chunk:
                        break
                    self._data += chunk
        finally:
            self._end()
        assert self._status == 0, (self._status, self._data[-4000:])
        got = json.loads(self._data)
        assert "error" not in got, got["error"]
        return got["ok"]

    def _end(self) -> None:
        if self._status is not None:
            return
        os.close(self._r)
        deadline = time.monotonic() + _WAIT_S
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self._status = os.waitstatus_to_exitcode(status)
                return
            if time.monotonic() >= deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                self._status = -signal.SIGKILL
                return
            time.sleep(0.01)


def _tree(directory: Path) -> dict[str, str]:
    """Every file under `directory`: its digest (what a child may not change)."""
    return {
        str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def _flock_free(lock: Path) -> bool:
    """Whether another writer could take the journal's file lock now (a new open file
    description: flock keeps it out while any process holds the journal's)."""
    fd = os.open(lock, os.O_RDWR | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # (the only descriptor of its description: the lock goes with it)
    return True


_READER = textwrap.dedent(
    """
    import json, sys
    from crs.guard import Guard
    home, project = sys.argv[1:3]
    out = {}
    for session in sys.argv[3:]:
        with Guard.open(project, session, home=home, fingerprint=lambda: "fp") as g:
            out[session] = {
                "calls": g.status()["calls"],
                "steps": [r["step"] for r in g.explain()["recent"]],
                "last_seq": g.crs._journal.stats().last_seq_num,
            }
    print(json.dumps(out))
    """
)


def _read_back(tmp_path: Path, *sessions: str) -> dict[str, Any]:
    """What a new process's `Guard.open` of the project replays, per session."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        [sys.executable, "-c", _READER, str(tmp_path / "h"), str(tmp_path / "p"), *sessions],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return dict(json.loads(proc.stdout.splitlines()[-1]))


@contextlib.contextmanager
def _held_by_another_thread(g: Guard, *, gc_pause: bool = True) -> Iterator[None]:
    """Another thread holds, until the block ends, every lock a thread of the process may
    hold while it commits: the engine's, the journal's (with its file lock: `exclusive`,
    as a commit does), the journal's condition (group commit), the delta history's and the
    gc pause's (a replay decoding a chunk, inside `pause_gc`)."""
    journal = g.crs._journal
    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        with contextlib.ExitStack() as stack:
            stack.enter_context(g._lock)
            stack.enter_context(journal.exclusive())
            stack.enter_context(journal._cond)
            stack.enter_context(g.crs._kernel.history._lock)
            if gc_pause:
                stack.enter_context(_base.pause_gc())  # (the collector is paused meanwhile)
                stack.enter_context(_base._gc_pause_lock)
            held.set()
            done.wait(60)

    t = threading.Thread(target=hold, name="holder", daemon=True)
    t.start()
    assert held.wait(10)
    try:
        yield
    finally:
        done.set()
        t.join(10)
        assert not t.is_alive()


_CHANGES = ("before", "after", "message", "turn", "forget")


def _entry_points(g: Guard, pending: Any) -> dict[str, list[Any]]:
    """In the child: every entry point of `g` (in this order), each [how it ended, what
    it gave or said]; then "took" (s)."""
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("status", lambda: g.status()["calls"]),
        ("learned", lambda: len(g.learned())),
        ("explain", lambda: len(g.explain()["recent"])),
        ("with_session", lambda: g.with_session("t").status()["calls"]),
        ("repr", lambda: repr(g)[:7]),
        ("snapshot", lambda: g.crs.snapshot().generation()),
        ("before", lambda: g.before_call("read_file", {"path": "child.py"})),
        ("after", lambda: g.after_call(pending, result="child")),
        ("call_for", lambda: g.call_for("read_file", {"path": "child.py"})),
        ("message", lambda: g.on_message("hello")),
        ("turn", lambda: g.new_turn("go on")),
        ("forget", lambda: g.forget("x")),
        ("close", lambda: g.close()),
        ("close_again", lambda: g.close()),
    ]
    out: dict[str, list[Any]] = {}
    t0 = time.monotonic()
    for what, fn in steps:
        try:
            got = fn()
            out[what] = ["ok", got if isinstance(got, int | str) else None]
        except Exception as exc:
            out[what] = [type(exc).__name__, str(exc)[:400]]
    out["took"] = [time.monotonic() - t0]
    return out


def _assert_refused_and_answered(answers: dict[str, list[Any]], calls: int) -> None:
    assert answers["status"] == ["ok", calls]
    assert answers["learned"] == ["ok", 0]
    assert answers["explain"] == ["ok", calls]
    assert answers["with_session"] == ["ok", 0]
    assert answers["repr"] == ["ok", "<Guard "]
    assert answers["snapshot"][0] == "ok"
    assert answers["call_for"][0] == "ok"  # (a handle: nothing written, nothing waited on)
    for what in _CHANGES:
        kind, text = answers[what]
        assert kind == "CRSClosedError", (what, answers[what])
        assert "forked" in text, (what, text)
        assert "Guard.open" in text, (what, text)
        assert f"process {os.getpid()}" in text, text  # (the parent, by its pid)
    assert answers["close"] == ["ok", None]
    assert answers["close_again"] == ["ok", None]
    assert answers["took"][0] < 5


def _free(lock: Any) -> bool:
    """Whether this thread could take `lock` now (it is left as it was)."""
    if not lock.acquire(blocking=False):
        return False
    lock.release()
    return True


def _inherited(journal: Any) -> tuple[int, int, int]:
    return (journal._fd, journal._spare_fd, journal._lock_fd)


def _closed_here(fds: tuple[int, ...]) -> list[bool]:
    """Per descriptor: it is closed in this process."""
    out = []
    for fd in fds:
        try:
            os.fstat(fd)
        except OSError as exc:
            out.append(exc.errno == errno.EBADF)
        else:
            out.append(False)
    return out


# ---------------------------------------------------------------- (a) locks held at the fork


def test_every_entry_point_of_a_forked_child_answers_at_once_with_the_locks_held(
    tmp_path: Path,
) -> None:
    """Another thread of the parent holds the engine's lock, the journal's lock and file
    lock (inside a commit), the journal's condition, the delta history's lock and the gc
    pause's at the fork. The child's reads answer at once on the state as it was at the
    fork; each change raises CRSClosedError naming the fork and saying to Guard.open again
    in the child; close() returns; the collector runs again in the child."""
    (tmp_path / "p").mkdir()
    g = _open(tmp_path)
    for i in range(3):
        _call(g, f"{i}.py")
    pending = g.before_call("read_file", {"path": "3.py"}).call  # (finished by the parent)
    journal = g.crs._journal
    assert gc.isenabled()
    with _held_by_another_thread(g):
        assert not gc.isenabled()  # (the holder's pause)
        fds = tuple(fd for fd in _inherited(journal) if fd >= 0)
        assert len(fds) >= 2  # the segment and LOCK at least

        locks = {
            "engine": g._lock,
            "journal": journal._lock,
            "condition": journal._cond,
            "history": g.crs._kernel.history._lock,
            "gc pause": _base._gc_pause_lock,
        }

        def work() -> Any:
            return {
                "answers": _entry_points(g, pending),
                "free": {name: _free(lock) for name, lock in locks.items()},
                "gc": gc.isenabled(),
                "fds": _inherited(journal),
                "closed": _closed_here(fds),
                "journal_closed": not journal.is_available(),
            }

        got = _Child(work).result()
    _assert_refused_and_answered(got["answers"], 3)
    assert got["free"] == dict.fromkeys(locks, True)
    assert got["gc"] is True  # the pause of a thread that did not come along is over
    assert got["fds"] == [-1, -1, -1]
    assert got["closed"] == [True] * len(fds)
    assert got["journal_closed"] is True
    # the parent goes on
    assert journal.is_available()
    assert g.after_call(pending, result="body of 3.py").call.step == 4
    assert _call(g, "4.py") == 5
    last = journal.stats().last_seq_num
    g.close()
    back = _read_back(tmp_path, "s")["s"]
    assert back == {"calls": 5, "steps": [1, 2, 3, 4, 5], "last_seq": last}


# ---------------------------------------------------------------- (b) the parent's journal


def test_the_childs_close_and_exit_leave_the_parents_journal_and_file_lock_alone(
    tmp_path: Path,
) -> None:
    """While another thread of the parent holds the journal's file lock, the child's
    changes, close() and exit write, truncate or seal nothing and leave the lock held
    (no other writer may take it); the parent then goes on, and a new process replays
    exactly the parent's steps."""
    (tmp_path / "p").mkdir()
    g = _open(tmp_path)
    for i in range(4):
        _call(g, f"{i}.py")
    journal = g.crs._journal
    lock = journal.path / "LOCK"
    data = tmp_path / "h"
    with _held_by_another_thread(g, gc_pause=False):
        before = _tree(data)
        assert not _flock_free(lock)

        def work() -> Any:
            return _entry_points(g, None)

        answers = _Child(work).result()
        assert not _flock_free(lock)  # still the parent's
        assert _tree(data) == before  # nothing written, truncated or sealed
    assert _flock_free(lock)  # (released by the parent's thread: the check is not vacuous)
    _assert_refused_and_answered(answers, 4)
    assert [_call(g, f"{i}.py") for i in range(4, 8)] == [5, 6, 7, 8]
    last = journal.stats().last_seq_num
    g.close()
    assert _read_back(tmp_path, "s")["s"] == {
        "calls": 8,
        "steps": [1, 2, 3, 4, 5, 6, 7, 8],
        "last_seq": last,
    }


def test_a_child_forked_inside_a_commit_never_unlocks_the_parents_file_lock(
    tmp_path: Path,
) -> None:
    """The forking thread itself holds the journal (inside `exclusive`, as a commit whose
    observer forks): the child leaving that block unlocked the file lock the two share
    (flock LOCK_UN on the inherited descriptor), so another writer could append while the
    parent was still inside its commit. Now the child leaves the block without releasing
    anything of the parent's: the lock stays held until the parent leaves it."""
    (tmp_path / "p").mkdir()
    g = _open(tmp_path)
    _call(g, "0.py")
    journal = g.crs._journal
    lock = journal.path / "LOCK"
    data = tmp_path / "h"
    block = journal.exclusive()

    def work() -> Any:
        # the child leaves the blocks it inherited entered, as their own code would
        block.__exit__(None, None, None)  # (the outermost hold: `_unhold`)
        g._lock.release()
        try:
            g.before_call("read_file", {"path": "child.py"})
        except crs.CRSClosedError as exc:
            return {"before": str(exc), "fd": journal._lock_fd}
        return {"before": "allowed", "fd": journal._lock_fd}

    with g._lock, block:
        before = _tree(data)
        assert not _flock_free(lock)
        got = _Child(work).result()
        assert not _flock_free(lock)  # still held: the parent is inside its block
        assert _tree(data) == before
    assert "forked" in got["before"], got
    assert got["fd"] == -1
    assert _flock_free(lock)  # (released by the parent: the check is not vacuous)
    assert _call(g, "1.py") == 2
    last = journal.stats().last_seq_num
    g.close()
    assert _read_back(tmp_path, "s")["s"] == {"calls": 2, "steps": [1, 2], "last_seq": last}


# ---------------------------------------------------------------- (c) opening again in the child


def test_a_child_opens_the_project_again_as_a_second_writer(tmp_path: Path) -> None:
    """`Guard.open` of the project in the child is a new writer of the project (as a second
    process is: several processes share a project, each holding the file lock for one
    append): while the parent's thread holds the lock (and the other locks of a commit,
    the gc pause's among them) at the fork, the child's open waits for it; once the parent
    lets go, the child replays the parent's steps and records the next; the parent then
    goes on after it."""
    (tmp_path / "p").mkdir()
    g = _open(tmp_path)
    for i in range(3):
        _call(g, f"{i}.py")

    def work() -> Any:
        with _open(tmp_path) as again:
            calls = again.status()["calls"]
            step = _call(again, "child.py")
        return {"calls": calls, "step": step}

    with _held_by_another_thread(g):
        child = _Child(work)
        # (waits for the file lock: a new writer, not the parent's descriptors)
        assert not child.answered(0.5)
    got = child.result()
    assert got == {"calls": 3, "step": 4}
    assert _call(g, "4.py") == 5  # the parent reads the child's record first
    last = g.crs._journal.stats().last_seq_num
    g.close()
    assert _read_back(tmp_path, "s")["s"] == {
        "calls": 5,
        "steps": [1, 2, 3, 4, 5],
        "last_seq": last,
    }


# ---------------------------------------------------------------- (d) nothing held at the fork


def test_a_child_forked_while_nothing_is_held_writes_nothing_through_the_parents_files(
    tmp_path: Path,
) -> None:
    """No thread holds anything at the fork: the child's before_call/after_call appended
    to the parent's journal through the inherited descriptors (a step 4 the parent never
    made, then the parent's step 5). Now every change raises CRSClosedError naming the
    fork; the descriptors are closed in the child; the parent's files are as they were."""
    (tmp_path / "p").mkdir()
    g = _open(tmp_path)
    for i in range(3):
        _call(g, f"{i}.py")
    pending = g.before_call("read_file", {"path": "3.py"}).call
    journal = g.crs._journal
    fds = tuple(fd for fd in _inherited(journal) if fd >= 0)
    before = _tree(tmp_path / "h")

    def work() -> Any:
        return {
            "fds": _inherited(journal),
            "closed": _closed_here(fds),
            "answers": _entry_points(g, pending),
        }

    got = _Child(work).result()
    assert _tree(tmp_path / "h") == before
    assert got["fds"] == [-1, -1, -1]
    assert got["closed"] == [True] * len(fds)
    _assert_refused_and_answered(got["answers"], 3)
    assert g.after_call(pending, result="body of 3.py").call.step == 4
    last = journal.stats().last_seq_num
    g.close()
    assert _read_back(tmp_path, "s")["s"] == {"calls": 4, "steps": [1, 2, 3, 4], "last_seq": last}


_EXITING = textwrap.dedent(
    """
    import json, os, sys
    from crs import CRSClosedError
    from crs.guard import Guard
    home, project, how = sys.argv[1:4]
    g = Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    for i in range(3):
        v = g.before_call("read_file", {"path": f"{i}.py"})
        g.after_call(v.call, result=str(i))
    pid = os.fork()
    if pid == 0:
        try:
            g.new_turn("in the child")
        except CRSClosedError:
            pass
        else:
            os._exit(3)
        if how == "close":
            g.close()
        sys.exit(0)  # (the interpreter's exit: atexit, finalizers, no os._exit)
    _, status = os.waitpid(pid, 0)
    v = g.before_call("read_file", {"path": "p.py"})
    step = g.after_call(v.call, result="p").call.step
    last = g.crs._journal.stats().last_seq_num
    g.close()
    print(json.dumps({"child": os.waitstatus_to_exitcode(status), "step": step, "last": last}))
    """
)


@pytest.mark.parametrize("how", ["close", "exit"])
def test_a_child_that_exits_normally_leaves_the_parents_journal_alone(
    tmp_path: Path, how: str
) -> None:
    """A child that ends with the interpreter's own exit (its guard closed, or not): the
    parent's next step is its 4th and a new process replays exactly the parent's steps."""
    (tmp_path / "p").mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        [sys.executable, "-c", _EXITING, str(tmp_path / "h"), str(tmp_path / "p"), how],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got["child"] == 0, got
    assert got["step"] == 4
    assert _read_back(tmp_path, "s")["s"] == {
        "calls": 4,
        "steps": [1, 2, 3, 4],
        "last_seq": got["last"],
    }
