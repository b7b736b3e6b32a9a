"""Red team, eighth pass: guards on NATS that race, and after os.fork.

A NATS stream has no writer lock: two writers of one project each judged a call on the
records that had come back on their own live feed, so a call raced by another writer's was
judged without it (both allowed the 3rd identical call). A guard's records are now a
compare-and-set (JetStream's ``Nats-Expected-Last-Subject-Sequence``): one that raced is
refused by the server, the writer applies what came first and judges the call again.

Each check starts a real nats-server on 127.0.0.1 and reads the stream back with a new guard.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crs import JournalError, JournalUnavailableError, NATSJournal, NATSJournalConfig
from crs._errors import AppendRaceError
from crs.guard import Guard
from nats_server import NatsServer, started_server

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def nats(tmp_path: Path) -> Iterator[NatsServer]:
    yield from started_server(tmp_path / "nats-store")


def _fp() -> str:
    return "fp"


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "p"
    project.mkdir()
    return project


def _recent(project: Path, url: str, session: str) -> list[dict[str, Any]]:
    """The session's recent records as a new guard replays the stream."""
    with Guard.open(project, "reader", nats=url, fingerprint=_fp) as g:
        return list(g.with_session(session).explain()["recent"])


def _wait(what: str, cond: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


class _LateQueue(queue.Queue[Any]):
    """A follower's queue whose entries come out `delay` seconds after they came in: this
    process's link to the server is slow (another writer's records reach it late)."""

    def __init__(self, delay: float) -> None:
        super().__init__(maxsize=4096)
        self.delay = delay

    def _put(self, item: Any) -> None:
        super()._put((time.monotonic(), item))

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        at, item = super().get(block, timeout)
        left = at + self.delay - time.monotonic()
        if left > 0:
            time.sleep(left)
        return item


def _slow_feed(g: Guard, delay: float) -> None:
    follower = g._kernel.journal._follower
    follower._queue = _LateQueue(delay)


def _call(g: Guard, path: str, result: str) -> Any:
    v = g.before_call("read_file", {"path": path})
    assert v.call is not None
    return g.after_call(v.call, result=result)


def test_the_third_identical_call_of_two_racing_writers_is_judged_with_the_other(
    nats: NatsServer, tmp_path: Path
) -> None:
    """Two writers of one session; one read stored and seen by both. Each then makes the
    same read: the first's is the 2nd (allowed). The second's feed is slow, so the first's
    record had not reached it: it was judged as the 2nd too and allowed, and stored at step
    3 with no verdict (three identical reads, no nudge anywhere). Now its record, sent
    expecting the subject's last record it applied, is refused by the server; it applies
    the other's record and judges the call again: the 3rd identical read, NUDGE."""
    project = _project(tmp_path)
    a = Guard.open(project, "s", nats=nats.url, fingerprint=_fp)
    b = Guard.open(project, "s", nats=nats.url, fingerprint=_fp)
    try:
        assert _call(a, "a.py", "same").action.value == "allow"
        _wait("b never saw a's call", lambda: b.status()["calls"] == 1)
        _slow_feed(b, 0.4)
        va = a.before_call("read_file", {"path": "a.py"})
        vb = b.before_call("read_file", {"path": "a.py"})
        assert va.allowed  # (a before_call writes nothing: both run)
        assert vb.allowed
        assert va.call is not None
        assert vb.call is not None
        wa = a.after_call(va.call, result="same")
        wb = b.after_call(vb.call, result="same")
        assert wa.action.value == "allow", wa
        assert wb.action.value == "nudge", wb  # before: allow (judged as the 2nd)
        assert wb.code.value == "repeated_call"
        assert wb.call is not None
        assert wa.call is not None
        assert (wa.call.step, wb.call.step) == (2, 3)
        assert b.status()["calls"] == 3
        nxt = b.before_call("read_file", {"path": "a.py"})
        assert not nxt.allowed  # (the 4th, after a nudge)
    finally:
        a.close()
        b.close()
    recent = _recent(project, nats.url, "s")
    assert [r["step"] for r in recent][:3] == [1, 2, 3]
    assert recent[2]["verdict"] == "repeated_call", recent[2]  # stored as judged


def test_a_record_of_another_session_first_keeps_the_step_and_the_verdict(
    nats: NatsServer, tmp_path: Path
) -> None:
    """Writers of different sessions of one project share the subject: a record of the
    other session that came first refuses this one's; sent again after it, the call keeps
    its step (no gap) and its verdict, and both sessions replay as stored."""
    project = _project(tmp_path)
    a = Guard.open(project, "s", nats=nats.url, fingerprint=_fp)
    b = Guard.open(project, "t", nats=nats.url, fingerprint=_fp)
    try:
        _slow_feed(b, 0.3)
        got = []
        for i in range(5):
            va = a.before_call("read_file", {"path": f"a{i}.py"})
            vb = b.before_call("read_file", {"path": f"b{i}.py"})
            assert va.call is not None
            assert vb.call is not None
            a.after_call(va.call, result="x")
            w = b.after_call(vb.call, result="y")  # a's record came first each time
            assert w.call is not None
            got.append(w.call.step)
        assert got == [1, 2, 3, 4, 5]
    finally:
        a.close()
        b.close()
    assert [r["step"] for r in _recent(project, nats.url, "s")] == [1, 2, 3, 4, 5]
    assert [r["step"] for r in _recent(project, nats.url, "t")] == [1, 2, 3, 4, 5]


def test_three_threads_on_three_guards_of_one_session_store_consecutive_steps(
    nats: NatsServer, tmp_path: Path
) -> None:
    """Three writers of one session racing in threads (30 calls): every record stored after
    all before it, so the steps are 1..30 with none twice, each writer's state is the
    stream's, and a call's returned step is the one stored."""
    import threading

    project = _project(tmp_path)
    guards = [Guard.open(project, "s", nats=nats.url, fingerprint=_fp) for _ in range(3)]
    returned: list[int] = []
    errors: list[BaseException] = []
    start = threading.Barrier(3)

    def run(k: int, g: Guard) -> None:
        try:
            start.wait()
            for i in range(10):
                w = _call(g, f"{k}-{i}.py", f"r{k}{i}")
                assert w.call is not None
                returned.append(w.call.step)
        except BaseException as exc:  # (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k, g)) for k, g in enumerate(guards)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    try:
        assert not errors, errors
        for g in guards:
            _wait("a writer never caught up", lambda g=g: g.status()["calls"] == 30)
        views = [[r["step"] for r in g.explain()["recent"]] for g in guards]
    finally:
        for g in guards:
            g.close()
    steps = [r["step"] for r in _recent(project, nats.url, "s")]
    assert steps == list(range(1, 31))
    assert sorted(returned) == steps
    assert views == [steps] * 3


def _journal(url: str, **kw: Any) -> NATSJournal:
    return NATSJournal(NATSJournalConfig(servers=url, session_id="cas", **kw))


def test_a_duplicate_is_answered_before_the_expected_sequence_is_checked(
    nats: NatsServer,
) -> None:
    """nats-server 2.9 checks Nats-Msg-Id duplicates before the expected last subject
    sequence: a record sent again under its id is answered with its first sequence even when
    the expectation is stale (stored once), and a refused record's id is not remembered (it
    is stored when sent again with the right expectation). The guard's resend relies on the
    first; if a server ordered them the other way, the resend would be refused, apply its own
    first send from the feed and stop there (`Guard._resend`)."""
    with _journal(nats.url) as j:
        s1, dup = j.append_after({"op": "x", "payload": {"i": 1}}, 0, msg_id="m1")
        assert s1 > 0
        assert not dup
        with pytest.raises(AppendRaceError) as raced:
            j.append_after({"op": "x", "payload": {"i": 2}}, 0, msg_id="m2")
        assert raced.value.last == s1
        assert j.append_after({"op": "x", "payload": {"i": 1}}, 0, msg_id="m1") == (s1, True)
        s2, dup = j.append_after({"op": "x", "payload": {"i": 2}}, s1, msg_id="m2")
        assert s2 > s1
        assert not dup
        assert [e["payload"]["i"] for e in j.replay()] == [1, 2]


def test_a_degraded_plain_journal_keeps_working_and_holds_no_conditional_entry(
    nats: NatsServer,
) -> None:
    """allow_degraded (a plain NATSJournal; a project refuses it): appends are held while
    the server is away and flushed once it is back, as before; a conditional entry holds
    only now, so it raises JournalUnavailableError instead of being held."""
    with _journal(nats.url, allow_degraded=True, request_timeout=1.0) as j:
        first = j.append({"op": "x", "payload": {"i": 1}})
        nats.kill()
        assert j.append({"op": "x", "payload": {"i": 2}}) == 0
        assert j.is_degraded()
        with pytest.raises(JournalUnavailableError, match="conditional"):
            j.append_after({"op": "x", "payload": {"i": 3}}, first)
        nats.start()
        _wait("never flushed", lambda: not j.is_degraded(), 20)
        last, _ = j.append_after({"op": "x", "payload": {"i": 4}}, j.stats().last_seq_num)
        assert last > first
        assert [e["payload"]["i"] for e in j.replay()] == [1, 2, 4]


def _purge(url: str, stream: str, subject: str | None = None) -> None:
    import nats as nats_py

    async def run() -> None:
        nc = await nats_py.connect(url)
        try:
            await nc.jetstream().purge_stream(stream, subject=subject)
        finally:
            await nc.close()

    asyncio.run(run())


def test_a_stream_purged_under_a_running_guard_is_said(nats: NatsServer, tmp_path: Path) -> None:
    """The project's records purged while a guard runs (an operator's `nats stream purge`):
    the guard's state held what the stream no longer has and it went on appending after a
    hole, so each new process saw another history. Now its next record is refused (the
    subject's last record is before the one it applied): a JournalError saying so and to
    open the guard again, which starts from what the stream holds."""
    project = _project(tmp_path)
    with Guard.open(project, "s", nats=nats.url, fingerprint=_fp) as g:
        for i in range(3):
            _call(g, f"{i}.py", "r")
        _purge(nats.url, "CRS_DELTAS")
        v = g.before_call("read_file", {"path": "x.py"})
        assert v.call is not None
        with pytest.raises(JournalError) as caught:
            g.after_call(v.call, result="r")
        assert not isinstance(caught.value, JournalUnavailableError)
        assert "purged or deleted" in str(caught.value)
        assert "Open the guard" in str(caught.value)
        assert g.status()["calls"] == 3
    with Guard.open(project, "s", nats=nats.url, fingerprint=_fp) as g:
        assert g.status()["calls"] == 0
        assert _call(g, "y.py", "r").call.step == 1


_FORKER = r"""
import json, os, signal, sys, threading, time
from crs.guard import Guard
url, project = sys.argv[1:3]
g = Guard.open(project, "s", nats=url, fingerprint=lambda: "fp")
for i in range(5):
    v = g.before_call("read_file", {"path": f"{i}.py"})
    g.after_call(v.call, result=str(i))
held, go = threading.Event(), threading.Event()
def hold():  # another thread holds the guard's lock at the fork (as the apply thread may)
    with g._lock:
        held.set()
        go.wait(30)
t = threading.Thread(target=hold)
t.start()
held.wait(10)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    signal.alarm(20)  # (a hang ends the child with SIGALRM)
    out = []
    t0 = time.monotonic()
    steps = [
        ("status", lambda: g.status()["calls"]),
        ("learned", lambda: len(g.learned())),
        ("explain", lambda: len(g.explain()["recent"])),
        ("with_session", lambda: g.with_session("t").status()["calls"]),
        ("repr", lambda: repr(g)[:7]),
        ("snapshot", lambda: g.crs.snapshot().generation()),
        ("before", lambda: g.before_call("read_file", {"path": "c.py"})),
        ("after", lambda: g.after_call(v.call, result="again")),
        ("call_for", lambda: g.call_for("read_file", {"path": "c.py"})),
        ("message", lambda: g.on_message("hello")),
        ("turn", lambda: g.new_turn("go on")),
        ("forget", lambda: g.forget("x")),
        ("close", lambda: g.close()),
    ]
    for what, fn in steps:
        try:
            got = fn()
            out.append([what, "ok", got if isinstance(got, (int, str)) else None])
        except Exception as exc:
            out.append([what, type(exc).__name__, str(exc)[:300]])
    out.append(time.monotonic() - t0)
    os.write(w, json.dumps(out).encode())
    os._exit(0)
os.close(w)
_, status = os.waitpid(pid, 0)
go.set()
t.join()
child = json.loads(os.read(r, 1 << 20) or b"null")
v = g.before_call("read_file", {"path": "parent.py"})
step = g.after_call(v.call, result="p").call.step
g.close()
print(json.dumps({"status": status, "child": child, "parent_step": step}))
"""


def test_every_entry_point_of_a_forked_child_answers_at_once(
    nats: NatsServer, tmp_path: Path
) -> None:
    """os.fork while another thread holds the guard's lock (the NATS apply thread, or a
    caller's): the child's status(), learned(), explain() (and close()) waited forever on
    it. Now the child answers every entry point at once: reads see the state as it was at
    the fork, each change raises CRSClosedError saying to open the guard again."""
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
    answers = {c[0]: c[1:] for c in calls}
    assert answers["status"] == ["ok", 5]
    assert answers["learned"] == ["ok", 0]
    assert answers["explain"] == ["ok", 5]
    assert answers["with_session"] == ["ok", 0]
    assert answers["repr"] == ["ok", "<Guard "]
    assert answers["snapshot"][0] == "ok"
    assert answers["call_for"][0] == "ok"  # (a handle: nothing written, nothing waited on)
    for what in ("before", "after", "message", "turn", "forget"):
        kind, text = answers[what]
        assert kind == "CRSClosedError", (what, answers[what])
        assert "forked" in text
    assert answers["close"][0] == "ok"
    assert took < 5
    assert got["parent_step"] == 6


def _streams(url: str) -> list[str]:
    import nats as nats_py

    async def run() -> list[str]:
        nc = await nats_py.connect(url)
        try:
            return [i.config.name for i in await nc.jetstream().streams_info()]
        finally:
            await nc.close()

    return asyncio.run(run())


def test_the_cli_with_a_stream_named_wrong_creates_nothing(
    nats: NatsServer, tmp_path: Path
) -> None:
    """`crs guard status --nats URL --stream TYPO` on a server no guard had used yet said
    "no guarded sessions" and created stream TYPO with the subjects of every guard's stream:
    from then on each Guard.open (stream CRS_DELTAS) failed, "subjects overlap with an
    existing stream". Now one line saying there is no such stream (JSON with --json), exit
    1, and nothing is created."""
    project = _project(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for extra in ((), ("--json",)):
        proc = subprocess.run(
            [
                *(sys.executable, "-m", "crs", "guard", "status", "--nats", nats.url),
                *("--stream", "TYPO", "--project", str(project), *extra),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        assert proc.returncode == 1, proc
        assert "no stream 'TYPO'" in proc.stderr
        assert "nothing was created" in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
        if extra:
            assert json.loads(proc.stdout)["exit"] == 1
    assert _streams(nats.url) == []
    with Guard.open(project, "s", nats=nats.url, fingerprint=_fp) as g:
        assert _call(g, "a.py", "r").call.step == 1
