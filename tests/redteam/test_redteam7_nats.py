"""Red team, seventh pass: guards whose memory is a NATS JetStream stream.

Two writers of one session on NATS have no writer lock (the journal is on another machine):
the sixth pass's renumbering at commit saw only the records that had already come back on
this process's live feed, so two writers that reserved the same step both stored it. Each
check starts a real nats-server on 127.0.0.1 and reads the stream back with a new guard.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crs import (
    InvalidArgumentError,
    JournalError,
    JournalUnavailableError,
    NATSJournal,
    NATSJournalConfig,
)
from crs.guard import Guard
from nats_server import NatsServer, started_server

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def nats(tmp_path: Path) -> Iterator[NatsServer]:
    yield from started_server(tmp_path / "nats-store")


def _fp() -> str:
    return "fp"


def _stored(project: Path, url: str, session: str) -> tuple[int, list[int]]:
    """The session's call count and recent steps, as a new guard replays the stream."""
    with Guard.open(project, "reader", nats=url, fingerprint=_fp) as g:
        s = g.with_session(session)
        return s.status()["calls"], [r["step"] for r in s.explain()["recent"]]


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "p"
    project.mkdir()
    return project


def _two_writers(tmp_path: Path, url: str) -> tuple[Path, Guard, Guard]:
    """A project and two `Guard.open` of its session "s" on NATS (two agents' processes)."""
    project = _project(tmp_path)
    a = Guard.open(project, "s", nats=url, fingerprint=_fp)
    return project, a, Guard.open(project, "s", nats=url, fingerprint=_fp)


def test_two_writers_of_one_session_on_nats_store_distinct_steps(
    nats: NatsServer, tmp_path: Path
) -> None:
    """Each writer reserves a step from its own view, behind the other's latest record, and
    stores it: before, the stream held two records of several steps (and the calls returned
    named those steps). Now every stored step is distinct, the step each after_call returns
    is the one stored, and a replay of the stream agrees with the writers' own state."""
    project, a, b = _two_writers(tmp_path, nats.url)
    returned: list[int] = []
    try:
        for i in range(6):
            va = a.before_call("read_file", {"path": f"a{i}.py"})
            vb = b.before_call("read_file", {"path": f"b{i}.py"})
            assert va.call is not None
            assert vb.call is not None
            wb = b.after_call(vb.call, result=f"b{i}")
            wa = a.after_call(va.call, result=f"a{i}")
            assert wa.call is not None
            assert wb.call is not None
            returned += [wb.call.step, wa.call.step]
        time.sleep(0.3)  # (each applies the other's last records from its feed)
        mine = {g: [r["step"] for r in g.explain()["recent"]] for g in (a, b)}
    finally:
        a.close()
        b.close()
    calls, steps = _stored(project, nats.url, "s")
    assert calls == 12
    assert len(steps) == len(set(steps)) == 12, steps
    assert sorted(returned) == sorted(steps)
    assert mine[a] == mine[b] == steps  # (every process holds the stream's state)


def test_a_refusal_on_a_step_another_nats_writer_stored_takes_the_next(
    nats: NatsServer, tmp_path: Path
) -> None:
    """Refusals (an error loop) recorded right after the other writer stored a call, before
    its record came back on this writer's feed: each at a step of its own."""
    project, a, b = _two_writers(tmp_path, nats.url)
    refused: list[int] = []
    try:
        for _ in range(2):
            v = a.before_call("run", {"command": "make test"})
            assert v.call is not None
            a.after_call(v.call, error="make: *** [test] Error 2")
        time.sleep(0.3)
        for i in range(5):
            # (a failure of another call: a success would lift the error loop's block once)
            vb = b.before_call("run", {"command": f"make lint{i}"})
            assert vb.call is not None
            b.after_call(vb.call, error="Error 1")
            no = a.before_call("run", {"command": "make test"})  # b's record not yet seen
            assert not no.allowed
            assert no.call is not None
            refused.append(no.call.step)
        time.sleep(0.3)
    finally:
        a.close()
        b.close()
    _, steps = _stored(project, nats.url, "s")
    assert len(steps) == len(set(steps)) == 12, steps
    assert set(refused) <= set(steps)


def _delete_stream(url: str, name: str) -> None:
    import nats as nats_py

    async def run() -> None:
        nc = await nats_py.connect(url)
        try:
            await nc.jetstream().delete_stream(name)
        finally:
            await nc.close()

    asyncio.run(run())


def test_a_stream_deleted_under_a_running_guard_is_said_not_retried(
    nats: NatsServer, tmp_path: Path
) -> None:
    """The stream deleted (an operator's `nats stream rm`) while a guard runs: its appends
    failed with JournalUnavailableError "server unavailable ... Retry later", which no retry
    can fix. Now a JournalError that names the stream and says what to do; the guard's
    state is unchanged, and a new open creates the stream again."""
    project = _project(tmp_path)
    cfg = NATSJournalConfig(servers=nats.url, request_timeout=1.0)
    with Guard.open(project, "s", nats=cfg, fingerprint=_fp) as g:
        v = g.before_call("read_file", {"path": "a.py"})
        assert v.call is not None
        g.after_call(v.call, result="a")
        _delete_stream(nats.url, cfg.stream_name)
        v = g.before_call("read_file", {"path": "b.py"})
        assert v.call is not None
        t0 = time.monotonic()
        with pytest.raises(JournalError) as caught:
            g.after_call(v.call, result="b")
        assert time.monotonic() - t0 < 3 * cfg.request_timeout
        assert not isinstance(caught.value, JournalUnavailableError)
        assert "stream CRS_DELTAS no longer exists" in str(caught.value)
        assert "Open the journal again" in str(caught.value)
        assert g.status()["calls"] == 1  # (nothing applied that was not stored)
    calls, _ = _stored(project, nats.url, "s")
    assert calls == 0  # the stream is new: what the deleted one held is gone


def test_a_degraded_journal_does_not_keep_entries_for_a_deleted_stream(
    nats: NatsServer,
) -> None:
    """With allow_degraded, entries for a deleted stream were kept in memory to be flushed
    "once the server is back", which never happens: the same JournalError now."""
    cfg = NATSJournalConfig(
        servers=nats.url, session_id="j", request_timeout=1.0, allow_degraded=True
    )
    with NATSJournal(cfg) as j:
        assert j.append({"op": "x", "payload": {}}) > 0
        _delete_stream(nats.url, cfg.stream_name)
        with pytest.raises(JournalError, match="no longer exists"):
            j.append({"op": "x", "payload": {}})
        assert not j.is_degraded()


def test_a_server_restart_between_before_and_after_stores_the_call_once(
    nats: NatsServer, tmp_path: Path
) -> None:
    """The server restarted while the tool ran: the after_call raises (typed), and the same
    Call given again once the server is back is stored once, at its step."""
    project = _project(tmp_path)
    cfg = NATSJournalConfig(servers=nats.url, request_timeout=1.0)
    with Guard.open(project, "s", nats=cfg, fingerprint=_fp) as g:
        v = g.before_call("read_file", {"path": "a.py"})
        assert v.call is not None
        nats.kill()
        with pytest.raises(JournalUnavailableError):
            g.after_call(v.call, result="a")
        nats.start()
        deadline = time.monotonic() + 20
        while True:
            try:
                w = g.after_call(v.call, result="a")
                break
            except JournalUnavailableError:
                assert time.monotonic() < deadline, "no reconnection in 20 s"
                time.sleep(0.2)
        assert w.call is not None
        assert w.call.step == v.call.step == 1
    calls, steps = _stored(project, nats.url, "s")
    assert (calls, steps) == (1, [1])


def _ack_lost_once(g: Guard) -> list[int]:
    """Make the next append of `g`'s NATS journal reach the server and then raise
    unavailable, as when the acknowledgement is lost (or nats-py sends what it buffered
    during a reconnection after the publish timed out). Returns the list the stored
    sequence is put in."""
    inner = g._kernel.journal._journal
    real = inner.append_after  # (a guard's records are conditional: red team 8)
    landed: list[int] = []

    def append_after(record: object, last: int, *, msg_id: str | None = None) -> tuple[int, bool]:
        inner.append_after = real  # (once)
        landed.append(real(record, last, msg_id=msg_id)[0])
        raise JournalUnavailableError("nats journal: the acknowledgement was lost (test)")

    inner.append_after = append_after
    return landed


@pytest.mark.parametrize("wait_for_feed", [True, False])
def test_a_record_stored_although_its_append_raised_is_stored_once_when_given_again(
    nats: NatsServer, tmp_path: Path, wait_for_feed: bool
) -> None:
    """The server stored the record but the after_call raised unavailable: given again, the
    Call was stored a second time, at the next step (the first came back on the feed as
    another writer's). Now the record as first judged is sent again under the same
    idempotency key (the server keeps one), or not at all once it came back on the feed:
    one record, at its step, in the writer and in a new reader."""
    project = _project(tmp_path)
    with Guard.open(project, "s", nats=nats.url, fingerprint=_fp) as g:
        v = g.before_call("read_file", {"path": "a.py"})
        assert v.call is not None
        landed = _ack_lost_once(g)
        with pytest.raises(JournalUnavailableError):
            g.after_call(v.call, result="a")
        assert len(landed) == 1
        assert landed[0] > 0
        if wait_for_feed:  # (it comes back on the live feed: applied as the stream has it)
            deadline = time.monotonic() + 10
            while g.status()["calls"] == 0:
                assert time.monotonic() < deadline, "the record never came back on the feed"
                time.sleep(0.05)
        w = g.after_call(v.call, result="a")
        assert w.call is not None
        assert w.call.step == 1
        with pytest.raises(InvalidArgumentError, match="recorded already"):
            g.after_call(v.call, result="a")
        nxt = g.before_call("read_file", {"path": "b.py"})
        assert nxt.call is not None
        assert g.after_call(nxt.call, result="b").call.step == 2  # type: ignore[union-attr]
        time.sleep(0.3)  # (the last records come back on the feed)
        assert g.status()["calls"] == 2
    assert _stored(project, nats.url, "s") == (2, [1, 2])


def test_a_loop_verdict_survives_a_lost_acknowledgement(nats: NatsServer, tmp_path: Path) -> None:
    """The after_call that completes a loop raised unavailable (the record stored): given
    again, it answers the verdict the call was judged with, not a fresh ALLOW."""
    project = _project(tmp_path)
    with Guard.open(project, "s", nats=nats.url, fingerprint=_fp) as g:
        first = None
        for _ in range(2):
            v = g.before_call("read_file", {"path": "a.py"})
            assert v.call is not None
            first = g.after_call(v.call, result="same")
        assert first is not None
        v = g.before_call("read_file", {"path": "a.py"})
        assert v.call is not None
        _ack_lost_once(g)
        with pytest.raises(JournalUnavailableError):
            g.after_call(v.call, result="same")
        w = g.after_call(v.call, result="same")
        assert w.action.value != "allow", w
        assert w.call is not None
        assert w.call.step == 3
    calls, steps = _stored(project, nats.url, "s")
    assert (calls, steps) == (3, [1, 2, 3])


_FORKER = r"""
import json, os, signal, sys, time
from crs.guard import Guard
url, project = sys.argv[1:3]
g = Guard.open(project, "s", nats=url, fingerprint=lambda: "fp")
for i in range(20):  # (the apply thread is busy with the feed while the process forks)
    v = g.before_call("read_file", {"path": f"{i}.py"})
    g.after_call(v.call, result=str(i))
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    signal.alarm(30)  # (a hang ends the child with SIGALRM)
    out = []
    t0 = time.monotonic()
    for what in ("before", "after", "close"):
        try:
            if what == "before":
                g.before_call("read_file", {"path": "child.py"})
            elif what == "after":
                g.after_call(v.call, result="again")
            else:
                g.close()
            out.append([what, "ok"])
        except Exception as exc:
            out.append([what, type(exc).__name__, str(exc)])
    out.append(time.monotonic() - t0)
    os.write(w, json.dumps(out).encode())
    os._exit(0)
os.close(w)
_, status = os.waitpid(pid, 0)
child = json.loads(os.read(r, 1 << 20) or b"null")
v = g.before_call("read_file", {"path": "parent.py"})
step = g.after_call(v.call, result="p").call.step
g.close()
print(json.dumps({"status": status, "child": child, "parent_step": step}))
"""


def test_a_child_forked_from_a_process_with_a_nats_guard_is_refused_not_hung(
    nats: NatsServer, tmp_path: Path
) -> None:
    """os.fork of a process holding a guard on NATS: the child's after_call waited forever
    (the journal's loop thread stayed in the parent), and its before_call could hang on a
    lock the parent's apply thread held at the fork. Now each call in the child raises
    CRSClosedError at once, saying to open the guard again; the child's close() is quick
    and sends nothing; the parent goes on and its journal holds every call once."""
    project = _project(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        [sys.executable, "-c", _FORKER, nats.url, str(project)],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got["status"] == 0, got  # (not killed by its alarm: nothing hung)
    *calls, took = got["child"]
    assert [c[0] for c in calls] == ["before", "after", "close"]
    for what, kind, *text in calls[:2]:
        assert kind == "CRSClosedError", (what, kind, text)
        assert "forked" in text[0]
        assert "Guard.open" in text[0]
    assert calls[2] == ["close", "ok"]
    assert took < 5
    assert got["parent_step"] == 21
    calls_stored, steps = _stored(project, nats.url, "s")
    assert calls_stored == 21
    assert steps == list(range(1, 22))
