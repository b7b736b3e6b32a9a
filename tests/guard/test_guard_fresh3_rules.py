"""Rules of the guard's semantics (issue 12) refined after the fresh3 trajectories of the loop
benchmark (bench/loops, split fresh3) showed them wrong in general; one test per rule, each
with the case that must still pass beside the case that must now be caught."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crs.guard import Action, Guard, VerdictCode
from guard_calls import flags, run

# ---------------------------------------------------------------- half-open is one trial

TEST = {"command": "cargo test -p parser"}
FAILED = RuntimeError("test parse_nested ... FAILED: unexpected token `}`")


def test_a_failing_call_interleaved_with_reads_is_refused_after_its_half_open_trial() -> None:
    """Re-running a failing test between reads of different files (nothing edited): the
    reads lift the block once; the trial fails the same way, and the next run is refused
    although more reads succeeded in between."""
    g = Guard()
    run(g, "bash", TEST, error=FAILED)
    run(g, "read_file", {"path": "src/lexer.rs"}, "pub fn lex() {}")
    run(g, "bash", TEST, error=FAILED)  # the second failure: an error loop
    run(g, "read_file", {"path": "src/ast.rs"}, "pub enum Node {}")
    trial, _ = run(g, "bash", TEST, error=FAILED)  # half-open: one trial runs
    assert trial.allowed
    run(g, "read_file", {"path": "src/parser.rs"}, "pub fn parse() {}")
    again = g.before_call("bash", TEST)
    assert again.action is Action.BLOCK
    assert again.code is VerdictCode.ERROR_LOOP


def test_a_trial_that_fails_differently_keeps_its_half_open() -> None:
    """A different error on the trial is news (something outside changed): another success
    lifts the block again."""
    g = Guard()
    run(g, "bash", TEST, error=FAILED)
    run(g, "bash", TEST, error=FAILED)
    run(g, "read_file", {"path": "src/ast.rs"}, "pub enum Node {}")
    run(g, "bash", TEST, error=RuntimeError("test parse_nested ... FAILED: stack overflow"))
    run(g, "read_file", {"path": "src/parser.rs"}, "pub fn parse() {}")
    assert g.before_call("bash", TEST).allowed


def test_an_edit_after_the_failed_trial_lets_the_call_run() -> None:
    g = Guard()
    for _ in range(2):
        run(g, "bash", TEST, error=FAILED)
    run(g, "read_file", {"path": "src/ast.rs"}, "pub enum Node {}")
    run(g, "bash", TEST, error=FAILED)
    run(g, "edit_file", {"path": "src/parser.rs", "old": "}", "new": "}}"}, "edited")
    assert g.before_call("bash", TEST).allowed


# ---------------------------------------------------------------- re-parameterised retries

REFUSED = ConnectionError("connect ECONNREFUSED 127.0.0.1:5432")


def suite(timeout_ms: float) -> dict[str, Any]:
    return {"command": "pnpm test:integration", "timeout_ms": timeout_ms}


def test_variants_of_a_call_share_its_transient_retry_budget() -> None:
    """Escalating the timeout of a call that fails on a refused connection does not buy a
    new retry budget each time: the fourth variant in a row is over the budget."""
    g = Guard()
    got = [run(g, "run_command", suite(ms), error=REFUSED) for ms in (120000, 2e10, 2.4e37)]
    assert flags(got) == []  # three tries are the budget (transient_retries=3)
    _, after = run(g, "run_command", suite(3.6e76), error=REFUSED)
    assert after is not None
    assert after.action is Action.NUDGE
    assert after.code is VerdictCode.RETRY_BUDGET


def test_a_longer_timeout_that_then_succeeds_passes() -> None:
    g = Guard()
    got = [
        run(g, "bash", {"command": "npm ci", "timeout": t}, error=TimeoutError("timed out"))
        for t in (60, 120)
    ]
    got.append(run(g, "bash", {"command": "npm ci", "timeout": 600}, "added 812 packages"))
    assert flags(got) == []


def test_other_calls_failing_transiently_keep_their_own_budgets() -> None:
    g = Guard()
    got = [
        run(g, "fetch", {"url": f"https://mirror{k}.test/pkg.tgz"}, error=REFUSED)
        for k in range(1, 6)
    ]
    assert flags(got) == []


def test_a_user_turn_gives_the_variants_a_fresh_budget() -> None:
    g = Guard()
    for ms in (1000, 2000, 4000):
        run(g, "run_command", suite(ms), error=REFUSED)
    g.new_turn()  # "the database is up now, try again"
    got = [run(g, "run_command", suite(ms), error=REFUSED) for ms in (8000, 16000)]
    assert flags(got) == []


# ---------------------------------------------------------------- near-duplicates corroborate


def click(x: int, y: int) -> dict[str, Any]:
    return {"x": x, "y": y, "button": "left"}


def test_clicks_at_other_places_each_followed_by_a_new_screen_pass() -> None:
    """Clicks differ only in their coordinates (parameters), so they are near-duplicates,
    each answered "clicked"; the screen after each is new: that is progress, not a loop."""
    g = Guard()
    got = []
    for k in range(6):
        got.append(run(g, "click", click(300, 200 + 40 * k), "clicked"))
        got.append(run(g, "type_text", {"text": f"field {k}"}, "typed"))
        got.append(run(g, "screenshot", {}, {"digest": f"d{k}", "title": f"{k + 1}/6 filled"}))
    assert flags(got) == []


def test_clicks_that_change_nothing_are_still_a_loop() -> None:
    g = Guard()
    got = []
    for x in (600, 604, 610, 598):
        got.append(run(g, "click", click(x, 420), "clicked"))
        got.append(run(g, "screenshot", {}, {"digest": "51d7", "title": "Unsaved changes"}))
    assert any(f.startswith("nudge:") for f in flags(got))


def test_the_exact_same_call_between_new_results_is_still_counted() -> None:
    g = Guard()
    got = []
    for k in range(5):
        got.append(run(g, "bash", {"command": "cat INPUT.DAT"}, "00012ACME"))
        got.append(run(g, "bash", {"command": f"head -c {k + 10} reader.cbl"}, f"line {k}"))
    assert "nudge:repeated_call" in flags(got)


# ---------------------------------------------------------------- the user asks again

WEATHER = {"city": "Beijing"}
SUNNY = {"city": "Beijing", "temp_c": 3, "sky": "clear"}


def test_the_same_lookup_asked_for_again_by_the_user_passes() -> None:
    """Each time the agent answered and the user asked again ("check once more"): the
    repetition is the user's request, not the agent's loop."""
    g = Guard()
    got = []
    for _ in range(3):
        g.new_turn()
        got.append(run(g, "get_weather", WEATHER, SUNNY))
        assert g.on_message("It is 3 degrees and clear in Beijing right now.").allowed
    assert flags(got) == []


def test_the_same_call_on_every_continue_without_an_answer_is_a_loop() -> None:
    """ "continue" with no answer from the agent in between is no new request."""
    g = Guard()
    got = []
    for _ in range(4):
        g.new_turn()
        got.append(run(g, "shell", {"command": "pip install requests"}, "already satisfied"))
    assert "nudge:repeated_call" in flags(got)


def test_answered_turns_still_count_towards_the_session_repeat_rule() -> None:
    g = Guard()
    got = []
    for k in range(5):
        g.new_turn()
        got.append(run(g, "get_weather", WEATHER, SUNNY))
        g.on_message(f"Answer number {k}: still 3 degrees and clear.")
    assert "nudge:repeated_call" in flags(got)


def test_the_fence_survives_a_reopen(tmp_path: Path) -> None:
    """What a user turn after an answer means is part of the journaled state."""
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "fp") as g:
        g.new_turn()
        run(g, "get_weather", WEATHER, SUNNY)
        g.on_message("It is 3 degrees and clear.")
        g.new_turn()
        answered = g._session().answered
        assert answered > 0
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "fp") as g:
        assert g._session().answered == answered
        got = [run(g, "get_weather", WEATHER, SUNNY) for _ in range(2)]
        assert flags(got) == []  # two after the fence; the one before it does not count


# ---------------------------------------------------------------- calls that wait


def stdin(chars: str = "", **wait: int) -> dict[str, Any]:
    return {"session_id": 7, "chars": chars, **wait}


def test_empty_writes_to_a_running_build_that_wait_are_polls() -> None:
    """A long build launched once, then polled by sending nothing and waiting 30 s: five
    identical empty answers while it compiles are polling, not a loop."""
    g = Guard()
    got = [run(g, "exec_command", {"cmd": "cargo build --release"}, {"session_id": 7})]
    got += [run(g, "write_stdin", stdin(yield_time_ms=30000), {"output": ""}) for _ in range(5)]
    got.append(run(g, "write_stdin", stdin(yield_time_ms=30000), {"output": "Finished"}))
    assert flags(got) == []
    assert _waits_by_name("poll_interval_s", 2)
    assert _waits_by_name("wait", 1.5)


def _waits_by_name(key: str, value: float) -> bool:
    g = Guard()
    verdicts = [run(g, "status", {"job": "j-1", key: value}, "running") for _ in range(5)]
    return flags(verdicts) == []


def test_a_wait_argument_on_a_call_that_sends_text_is_not_a_poll() -> None:
    """A call carrying content (a command, keystrokes) is judged as itself, whatever it
    waits for: the same keystrokes with the same answer are a loop."""
    g = Guard()
    got = [
        run(g, "write_stdin", stdin("y\n", yield_time_ms=1000), "Continue? [y/n]") for _ in range(4)
    ]
    assert "nudge:repeated_call" in flags(got)


def test_no_wait_or_zero_wait_is_not_a_poll() -> None:
    for extra in ({}, {"yield_time_ms": 0}, {"timeout_ms": 30000}):
        g = Guard()
        got = [run(g, "write_stdin", stdin(**extra), {"output": ""}) for _ in range(4)]
        assert "nudge:repeated_call" in flags(got), extra


def test_a_shell_command_with_a_yield_time_is_judged_as_its_command() -> None:
    """Codex runs every command with a yield time: the same command with the same output in
    a row stays a loop."""
    g = Guard()
    cmd = {"cmd": "git status -sb", "yield_time_ms": 10000}
    got = [run(g, "exec_command", cmd, "## main...origin/main") for _ in range(4)]
    assert "nudge:repeated_call" in flags(got)
