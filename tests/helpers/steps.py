"""The one `StepRecord` factory of the tests: a main-agent tool execution, with what varies.

    tool_step("grep")                                   # success in session "s"
    tool_step("build", Outcome.FAILURE)                 # failure: error_category INTERNAL
    tool_step("build", "failure", error=ErrorCategory.TIMEOUT, session="agent-2")

Anything else a test needs (`step_number`, `tool_params`, `decision`, `actor`...) is a keyword
passed through to `StepRecord`.
"""

from __future__ import annotations

from typing import Any

from crs import Actor, Decision, ErrorCategory, Outcome, StepRecord


def tool_step(
    tool: str,
    outcome: Outcome | str = Outcome.SUCCESS,
    *,
    session: str = "s",
    error: ErrorCategory | None = None,
    **fields: Any,
) -> StepRecord:
    """A `StepRecord` of the main agent executing `tool`; a failure without `error` is an
    internal error (what `record_step` needs a failure to name)."""
    outcome = Outcome(outcome)
    if error is None:
        error = ErrorCategory.INTERNAL if outcome == Outcome.FAILURE else ErrorCategory.NONE
    fields.setdefault("actor", Actor.MAIN_AGENT)
    fields.setdefault("decision", Decision.EXECUTE_TOOL)
    return StepRecord(
        session_id=session, tool=tool, outcome=outcome, error_category=error, **fields
    )
