"""`Guard.open(..., nats=URL)`: one project's guard memory on a real nats-server (JetStream),
shared by real processes as it would be by several machines.

Each test starts its own nats-server on 127.0.0.1 (a free port, a temporary store). Without
the binary the tests are skipped with a reason on a developer's machine and fail in CI
(`CI` set), where scripts/system-deps.sh installs it.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crs import JournalUnavailableError, NATSJournalConfig
from crs._errors import InvalidArgumentError
from crs.guard import Action, Guard, VerdictCode
from nats_server import NatsServer, free_port, started_server

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).parents[2]


@pytest.fixture
def nats(tmp_path: Path) -> Iterator[NatsServer]:
    """A real nats-server with JetStream, stopped after the test."""
    yield from started_server(tmp_path / "nats-store")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


def _fp() -> str:
    return "workspace-1"


# A process driving a guard on NATS, as an agent on another machine would: one JSON line
# per decision on stdout, flushed once the call is acknowledged (journaled on the server).
AGENT = r"""
import json, sys
from crs.guard import Guard
url, project, session, script = sys.argv[1:5]
with Guard.open(project, session, nats=url, fingerprint=lambda: "workspace-1") as g:
    for step in json.loads(script):
        v = g.before_call(step["tool"], step["args"])
        out = {"before": v.action.value, "code": v.code.value}
        if v.allowed:
            a = g.after_call(v.call, result=step.get("result"), error=step.get("error"))
            out.update(after=a.action.value, after_code=a.code.value, step=v.call.step)
        print(json.dumps(out), flush=True)
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), env.get("PYTHONPATH", "")])
    return env


def run_agent(url: str, project: Path, session: str, steps: list[dict[str, Any]]) -> list[Any]:
    proc = subprocess.run(
        [sys.executable, "-c", AGENT, url, str(project), session, json.dumps(steps)],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def _until(cond: Any, seconds: float) -> float:
    """Seconds until `cond()` held (polled every 5 ms); fails after `seconds`."""
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > seconds:
            raise AssertionError(f"not seen within {seconds} s")
        time.sleep(0.005)
    return time.monotonic() - t0


def test_a_loop_is_nudged_then_blocked_and_the_other_process_sees_it(
    nats: NatsServer, project: Path
) -> None:
    with Guard.open(project, "watcher", nats=nats.url, fingerprint=_fp) as watcher:
        steps = [{"tool": "Grep", "args": {"pattern": "TODO"}, "result": "no matches"}] * 6
        out = run_agent(nats.url, project, "agent-1", steps)
        afters = [o.get("after") for o in out]
        befores = [o["before"] for o in out]
        assert "nudge" in afters, out
        first_nudge = afters.index("nudge")
        assert "block" in befores[first_nudge + 1 :], out  # nudged, then refused
        # The watcher (opened before, another process) sees the loop and the refusal.
        seen = watcher.with_session("agent-1")
        _until(lambda: seen.status()["calls"] == sum(1 for o in out if "after" in o), 2.0)
        status = seen.status()
        assert status["loop_code"] == VerdictCode.REPEATED_CALL.value
        assert status["refusals_in_a_row"] >= 1
        # ...and refuses the loop's next call the same way (its own decision, same memory).
        assert seen.before_call("Grep", {"pattern": "TODO"}).action in (Action.BLOCK, Action.STOP)


def test_a_failure_learned_in_one_process_refuses_the_call_in_another(
    nats: NatsServer, project: Path
) -> None:
    make = {"tool": "Bash", "args": {"command": "make build"}, "error": "undefined reference"}
    with Guard.open(project, "b", nats=nats.url, fingerprint=_fp) as b:
        assert b.learned() == []
        t0 = time.monotonic()
        out = run_agent(nats.url, project, "a", [make, make])
        assert [o["before"] for o in out] == ["allow", "allow"]
        # B was open all along: A's record reaches it live, without B writing anything.
        _until(lambda: len(b.learned()) == 1, 2.0)
        assert time.monotonic() - t0 < 30
        (failure,) = b.learned()
        assert failure.session_id == "a"
        assert "undefined reference" in failure.error
        v = b.before_call("Bash", {"command": "make build"})
        assert v.action is Action.BLOCK
        assert v.code is VerdictCode.KNOWN_FAILURE
        # The fixed call (another signature) runs.
        assert b.before_call("Bash", {"command": "make build-fixed"}).allowed
    # A fresh process refuses it too, before it runs.
    (v2,) = run_agent(nats.url, project, "c", [make])
    assert v2 == {"before": "block", "code": "known_failure"}
    # B's refusal and C's are in the shared memory: a third reader sees both.
    with Guard.open(project, "d", nats=nats.url, fingerprint=_fp) as d:
        assert d.with_session("b").status()["refusals_in_a_row"] == 1
        assert d.with_session("c").status()["refusals_in_a_row"] == 1


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crs", "guard", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(),
        check=False,
    )


def test_forget_through_the_cli_on_nats(nats: NatsServer, project: Path) -> None:
    make = {"tool": "Bash", "args": {"command": "make test"}, "error": "1 failed"}
    run_agent(nats.url, project, "a", [make, make])
    on = ("--project", str(project), "--nats", nats.url)
    listed = _cli("learned", *on, "--json")
    assert listed.returncode == 0, listed.stderr
    (item,) = json.loads(listed.stdout)
    with Guard.open(project, "live", nats=nats.url, fingerprint=_fp) as live:
        assert live.before_call("Bash", {"command": "make test"}).action is Action.BLOCK
        forgot = _cli("forget", item["id"], *on)
        assert forgot.returncode == 0, forgot.stderr
        assert f"forgot {item['id']}" in forgot.stdout
        _until(lambda: live.learned() == [], 2.0)  # the open guard sees it go
    passed = dict(make, error=None, result="all passed")
    assert run_agent(nats.url, project, "b", [passed])[0]["before"] == "allow"
    again = _cli("forget", item["id"], *on)
    assert again.returncode == 1
    assert "no learned failure" in again.stderr
    status = _cli("status", *on, "--json")
    assert status.returncode == 0, status.stderr
    assert {r["session_id"] for r in json.loads(status.stdout)["sessions"]} == {"a", "b", "live"}
    both = _cli("status", *on, "--home", str(project / "home"))
    assert both.returncode == 1
    assert "home" in both.stderr


WRITER = r"""
import sys
from crs.guard import Guard
url, project, session = sys.argv[1:4]
with Guard.open(project, session, nats=url, fingerprint=lambda: "w") as g:
    for i in range(1, 100000):
        v = g.before_call("Read", {"file_path": f"f{i}.py"})
        g.after_call(v.call, result=f"body {i}")
        print(v.call.step, flush=True)   # acknowledged: the server stored the record
"""


def test_sigkill_of_a_writer_loses_nothing_acknowledged(
    nats: NatsServer, project: Path, tmp_path: Path
) -> None:
    rng = random.Random(14)
    acked: dict[str, list[int]] = {}
    for round_ in range(3):
        procs = {}
        for name in (f"killed-{round_}", f"kept-{round_}"):
            with (tmp_path / f"{name}.err").open("w") as err:
                procs[name] = subprocess.Popen(
                    [sys.executable, "-c", WRITER, nats.url, str(project), name],
                    stdout=subprocess.PIPE,
                    stderr=err,
                    text=True,
                    env=_env(),
                )
        victim, kept = procs[f"killed-{round_}"], procs[f"kept-{round_}"]
        firsts = {}
        for p in procs.values():
            assert p.stdout is not None
            firsts[p] = p.stdout.readline()  # started and acknowledging
            assert firsts[p].strip() == "1", (tmp_path / "killed-0.err").read_text()
        time.sleep(rng.uniform(0.1, 0.6))
        victim.send_signal(signal.SIGKILL)  # mid-append, most likely
        victim.wait(30)
        time.sleep(0.2)  # the other writer goes on alone
        kept.send_signal(signal.SIGKILL)
        for name, p in procs.items():
            p.wait(30)
            assert p.stdout is not None
            lines = [firsts[p], *p.stdout.read().splitlines()]
            p.stdout.close()
            acked[name] = [int(x) for x in lines if x.strip()]
        assert victim.returncode == -signal.SIGKILL
        assert kept.returncode == -signal.SIGKILL
    with Guard.open(project, "check", nats=nats.url, fingerprint=_fp) as g:
        for name, steps in acked.items():
            s = g.with_session(name).status()
            # every acknowledged call is there; at most the one in flight beyond it
            assert steps == list(range(1, len(steps) + 1))
            assert len(steps) <= s["calls"] <= len(steps) + 1, (name, len(steps), s["calls"])


def test_bad_url_unreachable_server_and_bad_config_are_typed_and_bounded(
    nats: NatsServer, project: Path
) -> None:
    for bad in ("http://127.0.0.1:4222", "127.0.0.1:4222", "nats://", "nats://h:99999"):
        with pytest.raises(InvalidArgumentError, match=r"^nats: "):
            Guard.open(project, "s", nats=bad)
    with pytest.raises(InvalidArgumentError, match=r"^nats: must be"):
        Guard.open(project, "s", nats=42)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match=r"^nats\.allow_degraded"):
        Guard.open(project, "s", nats=NATSJournalConfig(servers=nats.url, allow_degraded=True))
    with pytest.raises(InvalidArgumentError, match=r"^nats: .*stream_name"):
        Guard.open(project, "s", nats=NATSJournalConfig(servers=nats.url, stream_name="a.b"))
    with pytest.raises(InvalidArgumentError, match=r"^home: "):
        Guard.open(project, "s", home=project / "home", nats=nats.url)
    t0 = time.monotonic()
    with pytest.raises(JournalUnavailableError, match=r"^nats: cannot reach"):
        Guard.open(project, "s", nats=f"nats://127.0.0.1:{free_port()}")
    assert time.monotonic() - t0 < 5.0
    slow = NATSJournalConfig(servers="nats://10.255.255.1:4222", connect_timeout=0.5)
    t0 = time.monotonic()
    with pytest.raises(JournalUnavailableError):
        Guard.open(project, "s", nats=slow)  # an address that never answers
    assert time.monotonic() - t0 < 5.0


def test_a_named_subject_is_shared_by_checkouts_at_different_paths(
    nats: NatsServer, tmp_path: Path
) -> None:
    here, there = tmp_path / "alice" / "repo", tmp_path / "ci" / "repo"
    here.mkdir(parents=True)
    there.mkdir(parents=True)
    cfg = NATSJournalConfig(servers=nats.url, session_id="repo")
    with Guard.open(here, "a", nats=cfg, fingerprint=_fp) as a:
        for _ in range(2):
            v = a.before_call("Bash", {"command": "pytest"})
            a.after_call(v.call, error="2 failed")
    with Guard.open(there, "b", nats=cfg, fingerprint=_fp) as b:
        assert b.before_call("Bash", {"command": "pytest"}).code is VerdictCode.KNOWN_FAILURE
    with Guard.open(there, "c", nats=nats.url, fingerprint=_fp) as c:  # by path: its own
        assert c.learned() == []
    named = _cli("learned", "--nats", nats.url, "--subject", "repo", "--json")
    assert named.returncode == 0, named.stderr
    assert [f["error"] for f in json.loads(named.stdout)] == ["2 failed"]


def test_a_server_outage_is_typed_and_bounded_and_the_guard_goes_on_after_it(
    nats: NatsServer, project: Path
) -> None:
    cfg = NATSJournalConfig(servers=nats.url, request_timeout=1.0)
    with Guard.open(project, "a", nats=cfg, fingerprint=_fp) as g:
        v = g.before_call("Read", {"file_path": "a.py"})
        g.after_call(v.call, result="a")
        nats.kill()  # SIGKILL: the machine holding the stream goes away
        t0 = time.monotonic()
        v = g.before_call("Read", {"file_path": "b.py"})  # decided from memory
        assert v.allowed
        with pytest.raises(JournalUnavailableError):
            g.after_call(v.call, result="b")  # not acknowledged: raised, not kept
        # bounded by the journal's documented wait (4 request timeouts + the connect
        # timeout, 6 s here; typically ~1 s), not by the machine's load
        assert time.monotonic() - t0 < 4 * cfg.request_timeout + cfg.connect_timeout
        assert g.status()["calls"] == 1  # a failed append changes nothing
        nats.start()
        deadline = time.monotonic() + 20
        unanswered = 0  # appends to the restarted server that raised
        while True:  # the client reconnects by itself
            v = g.before_call("Read", {"file_path": "b.py"})
            try:
                g.after_call(v.call, result="b")
                break
            except JournalUnavailableError:
                unanswered += 1
                assert time.monotonic() < deadline, "no reconnection in 20 s"
                time.sleep(0.2)
        with Guard.open(project, "b", nats=cfg, fingerprint=_fp) as other:
            stored = other.with_session("a").status()["calls"]
            # "a" and the acknowledged "b"; an append to the restarted server whose
            # acknowledgement timed out (a loaded machine) may still have been stored
            # (at-least-once): the stream is then the truth, and g applies it from its feed.
            assert 2 <= stored <= 2 + unanswered
            v = other.before_call("Read", {"file_path": "c.py"})
            other.after_call(v.call, result="c")
        _until(lambda: g.with_session("b").status()["calls"] == 1, 10.0)  # the feed is back
        assert g.with_session("a").status()["calls"] == stored  # g holds the stream's state


SAME_SESSION = r"""
import json, sys, time
from crs.guard import Guard
url, project, me = sys.argv[1:4]
done = 0
with Guard.open(project, "shared", nats=url, fingerprint=lambda: "w") as g:
    for i in range(120):
        v = g.before_call("Read", {"file_path": f"f{i}.py"})  # the other reads them too
        if v.allowed:
            g.after_call(v.call, result=f"{me} {i}", error="boom" if i % 11 == 0 else None)
            done += 1
    g.with_session(f"done-{me}").new_turn()  # journaled: the other process sees it
    other = "done-" + ("y" if me == "x" else "x")
    deadline = time.monotonic() + 60
    while other not in g._part.sessions:  # applied live, without writing
        assert time.monotonic() < deadline, "the other writer's records never arrived"
        time.sleep(0.01)
    print(done, flush=True)
    with g._lock:
        print(json.dumps(g._part.export(), sort_keys=True, default=str), flush=True)
"""


def test_concurrent_writers_of_one_session_hold_the_streams_state(
    nats: NatsServer, project: Path
) -> None:
    """Two processes writing the same session at once: each ends with exactly the state a
    fresh replay of the stream builds (records applied in the stream's order everywhere)."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SAME_SESSION, nats.url, str(project), me],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for me in ("x", "y")
    ]
    outs, calls = [], 0
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        done, state = out.splitlines()
        assert int(done) > 0
        calls += int(done)
        outs.append(state)
    time.sleep(0.2)
    with Guard.open(project, "check", nats=nats.url, fingerprint=_fp) as g:
        fresh = json.dumps(g._part.export(), sort_keys=True, default=str)
    assert outs == [fresh, fresh]
    assert json.loads(fresh)["sessions"]["shared"]["calls"] == calls  # both, nothing lost
