"""A user turn that asks for one call a number of times ("call the current_time plugin 10
times", "run the test five times to see if it is flaky"): that many runs of the call within
the turn are the task, not a loop (`crs.guard._turns.repeats_asked`, `Guard.new_turn`). The
run past the count is flagged as before, a complaint ("I told you 3 times") asks for nothing,
the hard bound stays, and the count is journaled and restored like the rest of a turn."""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path

import pytest

from crs import JournalCorruptedError
from crs.guard import Guard
from crs.guard._state import SessionState
from crs.guard._turns import MAX_ASKED_REPEATS, repeats_asked
from guard_calls import flags, run


@pytest.mark.parametrize(
    ("text", "n"),
    [
        ("Call the current_time plugin 10 times, outputting each result immediately", 10),
        ("run the test five times to see if it is flaky", 5),
        ("Run the benchmark 20 times and report the median", 20),
        ("ping it twice", 2),
        ("check the status two more times", 2),
        ("please roll the dice a dozen times", 12),
        ("call it 1000 times", MAX_ASKED_REPEATS),  # (the hard bound: at most 49)
        ("I told you 3 times to stop", 0),
        ("Why did you call it 10 times?", 0),
        ("it failed 3 times", 0),  # (no verb that asks for an action)
        ("Fix the 3 failing tests", 0),
        ("do it in 2 steps", 0),
        ("Please run ls", 0),
        ("run it once", 0),
        ("", 0),
    ],
)
def test_the_count_a_turn_asks_for(text: str, n: int) -> None:
    assert repeats_asked(text) == n


def _clock(g: Guard, n: int) -> list[str]:
    got = []
    for i in range(n):
        # each answer a later time, with a request id a harness adds (masked: the same
        # result but for its volatile parts, as the time is too)
        rid = uuid.UUID(int=random.Random(i).getrandbits(128))
        result = f"2026-06-11 14:07:{10 + i}\n[request {rid}]"
        got += flags([run(g, "current_time", {"timezone": "UTC"}, result)])
    return got


def test_the_runs_a_turn_asked_for_are_the_task_and_the_next_one_a_repeat() -> None:
    g = Guard()
    g.new_turn("Call the current_time plugin 10 times, outputting each result immediately")
    assert _clock(g, 10) == []
    assert _clock(g, 1) == ["nudge:repeated_call"]


def test_without_the_count_the_same_runs_are_a_repeat() -> None:
    g = Guard()
    g.new_turn("What time is it in UTC?")
    assert _clock(g, 10)[:1] == ["nudge:repeated_call"]


def test_the_next_turn_without_a_count_ends_it() -> None:
    g = Guard()
    g.new_turn("call current_time 10 times")
    assert _clock(g, 4) == []
    g.new_turn("thanks, and what time is it now")
    assert g.status()["turns"] == 2
    assert _clock(g, 4) != []


def test_a_failing_test_run_asked_for_five_times_runs_five_times() -> None:
    """The same failure of one call blocks it after `max_failures`; a turn that asked for
    five runs (a flaky test) lets five run, and blocks the sixth."""
    err = "FAILED tests/test_x.py::test_a - AssertionError: 1 != 2 (exit code 1)"
    g = Guard()
    g.new_turn("run the test five times to see if it is flaky")
    ran = [run(g, "bash", {"command": "pytest tests/test_x.py"}, error=err) for _ in range(6)]
    assert [b.allowed for b, _ in ran] == [True] * 5 + [False]
    assert flags(ran[5:]) == ["block:error_loop"]
    g2 = Guard()
    g2.new_turn("fix the flaky test")
    ran = [run(g2, "bash", {"command": "pytest tests/test_x.py"}, error=err) for _ in range(3)]
    assert [b.allowed for b, _ in ran] == [True, True, False]


def test_the_count_is_journaled_restored_and_checked(tmp_path: Path) -> None:
    home = tmp_path / "h"
    with Guard.open(tmp_path, "s", home=home, fingerprint=lambda: "fp") as g:
        g.new_turn("call current_time 10 times")
        assert _clock(g, 3) == []
    with Guard.open(tmp_path, "s", home=home, fingerprint=lambda: "fp") as g:  # replayed
        assert g._part.sessions["s"].asked == 10
        g.crs.save_project_backup()
    with Guard.open(tmp_path, "s", home=home, fingerprint=lambda: "fp") as g:  # from the image
        assert g._part.sessions["s"].asked == 10
        assert _clock(g, 7) == []
        assert _clock(g, 1) == ["nudge:repeated_call"]
    s = SessionState()
    s.asked = 7
    assert SessionState.from_export(json.loads(json.dumps(s.export()))).asked == 7
    old = SessionState().export()
    del old["asked"]  # (an image written before the count existed)
    assert SessionState.from_export(old).asked == 0


@pytest.mark.parametrize("bad", [-1, MAX_ASKED_REPEATS + 1, "5", 2.0, True, None])
def test_a_bad_count_in_a_turn_record_is_refused_and_changes_nothing(bad: object) -> None:
    g = Guard()
    with pytest.raises(JournalCorruptedError, match="'rp' must be an int"):
        g.crs._kernel.replay({"op": "guard.turn", "payload": {"s": "s", "rp": bad}})
    assert g.status()["turns"] == 0
