"""The guard's record synced on the journal's worker thread (`_core.sync_start` /
`sync_wait`, rust/syncer.rs): the same errno as the inline reference on real descriptors,
every acknowledged record waited for, the journal held while its sync runs, a failed sync
failing the journal, and a forked child that still syncs."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import crs
from crs import _core
from crs._journal import _local
from crs.guard import Guard

pytestmark = pytest.mark.skipif(
    _local._sync_start is None, reason="the sync worker runs only with more than one CPU"
)


@pytest.fixture(autouse=True)
def _worker_running(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The first `sync_start` of a process spawns the worker and returns 0 (that sync runs
    inline): every test here starts with the worker running."""
    path = tmp_path_factory.mktemp("prime") / "f"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        for _ in range(2):
            ticket = _core.sync_start(fd)
            if ticket:
                assert _core.sync_wait(ticket, 100) == 0
                return
        raise AssertionError("the sync worker did not start")
    finally:
        os.close(fd)


def _descriptors(tmp: Path) -> dict[str, int]:
    """Real descriptors of every kind `fdatasync` treats differently (the caller closes
    them): a written file, a read-only file, a directory, a pipe, and two that are not
    open."""
    path = tmp / "f"
    path.write_bytes(b"data")
    out = {
        "file": os.open(path, os.O_RDWR),
        "read-only": os.open(path, os.O_RDONLY),
        "directory": os.open(tmp, os.O_RDONLY),
    }
    r, w = os.pipe()
    out["pipe"] = w
    out["pipe-read"] = r
    closed = os.open(path, os.O_RDONLY)
    os.close(closed)
    out["closed"] = closed
    out["negative"] = -1
    return out


@settings(max_examples=40, deadline=None)
@given(
    ops=st.lists(
        st.tuples(
            st.sampled_from(["file", "read-only", "directory", "pipe", "closed", "negative"]),
            st.booleans(),  # wait twice
            st.integers(0, 300),  # spin (µs)
            st.integers(0, 100),  # pickup (µs)
        ),
        min_size=1,
        max_size=8,
    ),
    stray=st.integers(-3, 3),
)
def test_the_worker_agrees_with_the_inline_reference(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, bool, int, int]], stray: int
) -> None:
    fds = _descriptors(tmp_path_factory.mktemp("fds"))
    try:
        for name, twice, spin, pickup in ops:
            fd = fds[name]
            got = _core.sync_start(fd)
            want = _local._sync_start_py(fd)
            assert got > 0  # (one at a time: the worker is free)
            assert want > 0
            # (a pickup time of 0 makes the waiter take the request back more often than not)
            assert _core.sync_wait(got, spin, pickup) == _local._sync_wait_py(want, spin, pickup)
            if twice:  # a ticket's errno is given once
                assert _core.sync_wait(got, spin, pickup) == 0
                assert _local._sync_wait_py(want, spin, pickup) == 0
        # tickets never handed out
        last_rust, last_py = got, want
        for ticket_rust, ticket_py in ((0, 0), (last_rust + 1 + abs(stray), last_py + 1)):
            assert _core.sync_wait(ticket_rust, 0) == errno.EINVAL
            assert _local._sync_wait_py(ticket_py, 0) == errno.EINVAL
    finally:
        for name, fd in fds.items():
            if fd >= 0 and name not in ("closed",):
                os.close(fd)


def test_known_errnos_of_real_descriptors(tmp_path: Path) -> None:
    fds = _descriptors(tmp_path)
    try:
        got = {name: _core.sync_wait(_core.sync_start(fd), 100) for name, fd in fds.items()}
    finally:
        for name, fd in fds.items():
            if fd >= 0 and name != "closed":
                os.close(fd)
    assert got["file"] == got["read-only"] == 0
    assert got["closed"] == got["negative"] == errno.EBADF
    assert got["pipe"] == errno.EINVAL


def _open(tmp: Path) -> Guard:
    return Guard.open(tmp / "p", "s", home=tmp / "h", fingerprint=lambda: "f")


def test_every_acknowledged_record_was_waited_for_while_the_journal_was_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[int] = []
    waited: list[int] = []
    held: list[bool] = []
    real_append, real_wait = _local._wal_append_op_ahead, _local._sync_wait
    journal: list[Any] = []

    def append(*args: Any) -> tuple[int, int, int]:  # (the write, then the sync handed on)
        got = real_append(*args)
        if got[0] == 0:
            started.append(got[2])
        return got

    def wait(ticket: int, spin_us: int, pickup_us: int = 50) -> int:
        # while the sync runs, no other thread gets the journal (nothing closes the segment)
        got: list[bool] = []
        t = threading.Thread(target=lambda: got.append(journal[0]._lock.acquire(timeout=0.05)))
        t.start()
        t.join()
        held.append(not got[0])
        if got[0]:
            journal[0]._lock.release()
        waited.append(ticket)
        return real_wait(ticket, spin_us, pickup_us)

    monkeypatch.setattr(_local, "_wal_append_op_ahead", append)
    monkeypatch.setattr(_local, "_sync_wait", wait)
    with _open(tmp_path) as g:
        journal.append(g._kernel.journal)
        for i in range(6):
            v = g.before_call("read_file", {"path": f"f{i}.py"})
            assert v.call is not None
            n = len(started)
            g.after_call(v.call, result=f"body {i}")
            # this record's sync was handed on, and waited for before after_call returned
            assert started[n:]
            assert started[n:] == waited[n:]
        assert all(t > 0 for t in started)
        assert held == [True] * len(waited)
    with _open(tmp_path) as g:  # every step is on disk
        assert g.explain()["status"]["calls"] >= 6


def test_a_failed_worker_sync_fails_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = _open(tmp_path)
    v = g.before_call("read_file", {"path": "a.py"})
    assert v.call is not None
    g.after_call(v.call, result="a")
    # the worker syncs a descriptor that is not open: EBADF, as a failing disk would report EIO
    real_append = _local._wal_append_op

    def append(*args: Any) -> tuple[int, int, int]:  # (the record written; a bad sync)
        status, value = real_append(*args)
        return status, value, (_core.sync_start(-1) if status == 0 else 0)

    monkeypatch.setattr(_local, "_wal_append_op_ahead", append)
    v = g.before_call("read_file", {"path": "b.py"})
    assert v.call is not None
    with pytest.raises(crs.JournalError, match="cannot sync journal"):
        g.after_call(v.call, result="b")
    monkeypatch.undo()
    # nothing is acknowledged after a failed sync: every later record is refused
    v = g.before_call("read_file", {"path": "c.py"})
    assert v.call is not None
    with pytest.raises(crs.JournalError):
        g.after_call(v.call, result="c")
    g.close()
    with _open(tmp_path) as g2:  # the journal reopens; what was synced is there
        assert g2.explain()["status"]["calls"] >= 1


def test_a_forked_child_syncs_on_a_worker_of_its_own(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import os, sys
        from pathlib import Path
        from crs.guard import Guard

        tmp = Path(sys.argv[1])

        def pairs(name):
            with Guard.open(tmp / name, "s", home=tmp / "h", fingerprint=lambda: "f") as g:
                for i in range(5):
                    v = g.before_call("read_file", {"path": f"f{i}.py"})
                    g.after_call(v.call, result=f"body {i}")

        pairs("parent")  # the parent's worker thread is running now
        pid = os.fork()
        if pid == 0:
            try:
                pairs("child")  # a thread does not survive fork: the child needs its own
            except BaseException:
                os._exit(1)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        pairs("parent-after")
        sys.exit(os.waitstatus_to_exitcode(status))
        """
    )
    env = dict(os.environ, PYTHONPATH=str(Path(crs.__file__).parents[1]))
    done = subprocess.run(
        [sys.executable, "-W", "ignore::DeprecationWarning", "-c", script, str(tmp_path)],
        env=env,
        timeout=60,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    for name in ("parent", "child", "parent-after"):
        with Guard.open(tmp_path / name, "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
            assert g.explain()["status"]["calls"] == 5


def test_two_journals_at_once_share_one_worker(tmp_path: Path) -> None:
    # one sync in flight per process: the other writer syncs inline meanwhile
    errors: list[BaseException] = []

    def run(name: str) -> None:
        try:
            with Guard.open(
                tmp_path / name, "s", home=tmp_path / "h", fingerprint=lambda: "f"
            ) as g:
                for i in range(40):
                    v = g.before_call("read_file", {"path": f"{name}-{i}.py"})
                    assert v.call is not None
                    g.after_call(v.call, result=f"body {i}")
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(f"p{k}",)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    for k in range(3):
        with Guard.open(tmp_path / f"p{k}", "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
            assert g.explain()["status"]["calls"] == 40
