"""Red team, tenth pass: the session wall-time budget when the wall clock jumps (an NTP
step, a suspended laptop's resync, a restored VM) and when another writer's clock ran ahead.

The wall clock is moved by replacing the guard's wall-clock reader (`_guard._time_ns`) with
an offset one, in the test process and in real `Guard.open` writer processes; time itself
passes for real (`time.sleep`), so the monotonic clock is the machine's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import crs.guard._guard as guard_module
from crs.guard import Guard, GuardPolicy

ROOT = Path(__file__).resolve().parents[2]
HOUR_NS = 3600 * 10**9


def _shift(monkeypatch: pytest.MonkeyPatch, offset_ns: int) -> None:
    real = time.time_ns
    monkeypatch.setattr(guard_module, "_time_ns", lambda: real() + offset_ns)


def _call(g: Guard, i: int) -> str:
    v = g.before_call("read", {"path": f"f{i}.py"})
    if v.allowed:
        g.after_call(v.call, result=f"content {i}")
    return f"{v.action}:{v.code}"


def test_a_clock_set_back_mid_session_does_not_extend_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The clock set back an hour after the first call: the budget's elapsed time was the
    wall clock's difference, negative, so a 1 s budget would have lasted an hour more."""
    g = Guard(GuardPolicy(max_wall_time_s=1.0))
    assert _call(g, 0) == "allow:ok"
    assert _call(g, 1) == "allow:ok"
    _shift(monkeypatch, -HOUR_NS)
    time.sleep(1.1)
    assert _call(g, 2) == "stop:budget"


def test_a_clock_set_forward_mid_session_does_not_end_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The clock jumped an hour forward after the first calls (a resync): the session was
    stopped at once for a budget of an hour, though it had run for a second."""
    g = Guard(GuardPolicy(max_wall_time_s=3600.0))
    assert _call(g, 0) == "allow:ok"
    assert _call(g, 1) == "allow:ok"
    _shift(monkeypatch, HOUR_NS + 10**9)
    assert _call(g, 2) == "allow:ok"


_WRITER = textwrap.dedent(
    """
    import sys, time
    import crs.guard._guard as G
    offset = int(sys.argv[3])
    G._time_ns = lambda: time.time_ns() + offset
    from crs.guard import Guard
    with Guard.open(sys.argv[1], "s", home=sys.argv[2]) as g:
        v = g.before_call("read", {"path": "first.py"})
        g.after_call(v.call, result="first")
    """
)


def test_a_session_begun_by_a_writer_whose_clock_ran_ahead_keeps_its_budget(
    tmp_path: Path,
) -> None:
    """A real process whose clock was a day ahead made the session's first call; this
    process, on the right clock, continues it with a 1 s budget: the session's age was
    negative for a day, so the budget never ran out. It counts from this guard's first look
    now."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    p = subprocess.run(
        [sys.executable, "-c", _WRITER, str(project), str(home), str(24 * HOUR_NS)],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    with Guard.open(project, "s", home=home, policy=GuardPolicy(max_wall_time_s=1.0)) as g:
        assert g.status()["calls"] == 1
        assert _call(g, 1) == "allow:ok"
        time.sleep(1.1)
        assert _call(g, 2) == "stop:budget"


def test_a_session_begun_earlier_by_another_process_still_counts_its_past(
    tmp_path: Path,
) -> None:
    """What held and must hold: a session another process began 2 hours ago (both clocks
    right) is over a 1 hour budget at this guard's first look."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    p = subprocess.run(
        [sys.executable, "-c", _WRITER, str(project), str(home), str(-2 * HOUR_NS)],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    with Guard.open(project, "s", home=home, policy=GuardPolicy(max_wall_time_s=3600.0)) as g:
        assert _call(g, 1) == "stop:budget"


def test_the_first_look_is_the_engines_not_one_guard_objects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A `with_session` guard made per request (the hook server's, a framework's session
    cache that evicted it) looks at the session for the first time each time: the first
    look is kept by the engine, so the clock set back after it changes nothing either."""
    root = Guard(GuardPolicy(max_wall_time_s=1.0))
    assert _call(root.with_session("s"), 0) == "allow:ok"
    assert _call(root.with_session("s"), 1) == "allow:ok"
    _shift(monkeypatch, -HOUR_NS)
    time.sleep(1.1)
    assert _call(root.with_session("s"), 2) == "stop:budget"
