"""Red team, fifth pass: the `Guard` call protocol misused as a careless integration would
(an `after_call` sent twice, a `Call` built or edited by hand, two processes on one
session), threads racing on one durable guard while it closes, and `Guard.open` on a home
that is not a directory.

Each durable check reopens the project in a new process: what a refused or misused call
leaves behind must not change what is stored, nor stop the project from opening.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from crs import CRSClosedError, CRSError, InvalidArgumentError
from crs.guard import Guard
from subprocess_json import run_json

_REOPEN = """
import json, sys
from crs.guard import Guard
g = Guard.open(sys.argv[1], "s", home=sys.argv[2], fingerprint=lambda: "fp")
names = json.loads(sys.argv[3])
print(json.dumps({n: [g.with_session(n).status(), g.with_session(n).explain()["recent"]]
                  for n in names}))
g.close()
"""


def _reopened(project: Path, home: Path, sessions: list[str]) -> dict[str, Any]:
    """Each session's status and recent steps, as a new process opening the project sees them."""
    got: dict[str, Any] = run_json(_REOPEN, str(project), str(home), json.dumps(sessions))
    return got


def _open(tmp_path: Path) -> tuple[Guard, Path, Path]:
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir(exist_ok=True)
    return Guard.open(project, "s", home=home, fingerprint=lambda: "fp"), project, home


def test_an_after_call_sent_twice_records_one_call(tmp_path: Path) -> None:
    """An integration that reports a result again (a retry of its own bookkeeping after a
    timeout, a callback fired twice) recorded the call once per report: four reports of one
    read gave ['allow', 'allow', 'nudge', 'nudge'] and `calls == 4`."""
    g, project, home = _open(tmp_path)
    with g:
        v = g.before_call("read_file", {"path": "a.py"})
        assert v.call is not None
        assert g.after_call(v.call, result="x").action == "allow"
        for _ in range(3):
            with pytest.raises(InvalidArgumentError, match=r"^call: "):
                g.after_call(v.call, result="x")
        assert g.status()["calls"] == 1
    assert _reopened(project, home, ["s"])["s"][0]["calls"] == 1


def test_a_forged_step_cannot_brick_the_session(tmp_path: Path) -> None:
    """`Call` is a public frozen dataclass; `dataclasses.replace(call, step=2**63 - 1)` passed
    the type checks, was journaled, and from then on no call of that session could be
    recorded, not even after reopening the project: the session was lost for good."""
    g, project, home = _open(tmp_path)
    with g:
        v = g.before_call("read_file", {"path": "a.py"})
        assert v.call is not None
        forged = dataclasses.replace(v.call, step=2**63 - 1)
        with pytest.raises(InvalidArgumentError, match=r"^call\.step: "):
            g.after_call(forged, result="x")
        assert g.after_call(v.call, result="x").allowed  # the real one still records
    with Guard.open(project, "s", home=home, fingerprint=lambda: "fp") as again:
        w = again.before_call("read_file", {"path": "b.py"})
        assert w.call is not None
        assert again.after_call(w.call, result="y").allowed
        assert again.status()["calls"] == 2


def test_two_openers_of_one_session_number_their_calls_apart(tmp_path: Path) -> None:
    """Two agents (two `crs mcp` servers, an agent and a script) sharing one session id on
    one project: a before_call in each, then both after_calls, stored two different calls
    under step 1. Evidence, `LearnedFailure.step` and the explain view then name a step
    that is two calls."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    a = Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    b = Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    with a, b:
        va = a.before_call("read_file", {"path": "a.py"})
        vb = b.before_call("read_file", {"path": "b.py"})
        assert va.call is not None
        assert vb.call is not None
        b.after_call(vb.call, result="b")
        a.after_call(va.call, result="a")
    status, recent = _reopened(project, home, ["s"])["s"]
    assert status["calls"] == 2
    steps = [r["step"] for r in recent]
    assert len(steps) == len(set(steps)) == 2


def test_threads_racing_on_one_durable_guard_while_it_closes(tmp_path: Path) -> None:
    """Six threads (three on the guard's own session, three on `with_session` children)
    make calls, failures, user turns, agent messages, `learned`/`forget`, while the main
    thread closes the guard under them. A change that passed the closed check just before
    the close raised `JournalClosedError` ("journal is closed; open a new one", 3 runs in
    10), not the `CRSClosedError` the contract promises after close(). Now every thread
    ends with `CRSClosedError` or its work done, and a new process sees exactly the state
    the closed guard shows."""
    g, project, home = _open(tmp_path)
    errors: list[str] = []
    closed = [0]
    names = ["s", "w0", "w2", "w4"]

    def worker(k: int) -> None:
        sub = g if k % 2 else g.with_session(f"w{k}")
        try:
            for i in range(3_000):
                v = sub.before_call("read_file", {"path": f"{k}/f{i % 7}.py"})
                if v.allowed and v.call is not None:
                    sub.after_call(v.call, result=f"{i % 3}", error="boom" if i % 11 == 0 else None)
                if i % 17 == 0:
                    sub.new_turn("any update?")
                if i % 13 == 0:
                    sub.on_message("working on it")
                if i % 29 == 0:
                    for f in sub.learned()[:1]:
                        sub.forget(f.id)
        except CRSClosedError:
            closed[0] += 1
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    g.close()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    assert closed[0] >= 1  # (the close came while they worked)
    live = {n: [g.with_session(n).status(), g.with_session(n).explain()["recent"]] for n in names}
    assert sum(s["calls"] for s, _ in live.values()) > 0
    again = _reopened(project, home, names)
    for n in names:
        for view in (live[n][0], again[n][0]):
            view.pop("durable")
        assert again[n] == live[n]


def test_open_refuses_a_home_that_is_a_file(tmp_path: Path) -> None:
    """`Guard.open(project, s, home=<a file>)` raised `JournalDegradedError` ("Not a
    directory ... pass allow_degraded=True", an argument `Guard.open` does not have),
    naming no argument. Now `InvalidArgumentError` naming `home`; the file is untouched."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    home.write_text("not a directory\n")
    with pytest.raises(InvalidArgumentError, match=r"^home: not a directory: ") as err:
        Guard.open(project, "s", home=home)
    assert isinstance(err.value, CRSError)
    assert home.read_text() == "not a directory\n"
    link = tmp_path / "home-link"
    link.symlink_to(home)
    with pytest.raises(InvalidArgumentError, match=r"^home: "):
        Guard.open(project, "s", home=link)
