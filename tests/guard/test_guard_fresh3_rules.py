"""Rules of the guard's semantics (issue 12) refined after the fresh3 trajectories of the loop
benchmark (bench/loops, split fresh3) showed them wrong in general; one test per rule, each
with the case that must still pass beside the case that must now be caught."""

from __future__ import annotations

from crs.guard import Action, Guard, VerdictCode
from guard_calls import run

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
