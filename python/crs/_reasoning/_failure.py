# ruff: noqa: RUF002  (the NOT and OR signs are the reference's clause notation)
"""`learn_from_failure`: derive a clause from the decisions that led to a failure.

The failing decision was "use tool T" in a context: the step before it (its tool, outcome
and error) and, with `context=2`, the tool of the step before that. These are exactly the
families `check_decision_allowed` observes, so the learned clause

    ¬tool:T ∨ ¬prev_tool:P ∨ ¬outcome:O [∨ ¬error:E] [∨ ¬prev_prev_tool:Q]

blocks the same decision in the same context, and nothing else. Example: `run_build` fails,
the agent retries it and it fails again: the second failure's context is
(prev_tool=run_build, outcome=failure, error=internal), so the learned clause forbids
running `run_build` right after `run_build` failed with an internal error.

For a loop (`cycle_detected`, the failed step being crs's circuit-breaker step), the failing
decision is the step that closed the loop: with the loop read -> grep -> read, the clause
forbids going back to `read` right after a successful `grep`.

Nothing is learned from soft signals (an LLM's opinion is not evidence), from transient
errors (timeout, rate limit, network: a retry may well succeed) or when the decision has no
context (a first step's failure says nothing about when to avoid the tool).
"""

from __future__ import annotations

import hashlib
import logging

from crs._check import brief
from crs._errors import InvalidArgumentError
from crs._reasoning._clauses import Clause, FailureEvent, Literal
from crs._types import ClauseScope, Decision, ErrorCategory, SignalSource, StepRecord

log = logging.getLogger("crs.clauses")


def _path(event: FailureEvent) -> tuple[list[StepRecord], StepRecord | None]:
    """(steps before the failing decision, the failed step)."""
    # crs's own circuit-breaker steps are not decisions (see `decision_context`).
    path = [s for s in event.decision_path if s.decision != Decision.CIRCUIT_BREAKER]
    failed = event.failed_step
    if (failed is None or failed.decision == Decision.CIRCUIT_BREAKER) and path:
        # No failed decision given, or crs's own intervention (a detected loop): the failing
        # decision is the agent's last one, the step that closed the loop.
        failed = path[-1]
    if failed is not None and path and path[-1] == failed:
        path.pop()
    tool = failed.tool if failed is not None and failed.tool else event.tool
    # The router's `select_tool` of the same tool is part of the failing decision, not its
    # context: skip it so the context is what `check_decision_allowed` saw when asked.
    while path and path[-1].decision == Decision.SELECT_TOOL and path[-1].tool == tool:
        path.pop()
    return path, failed


def derive_clause(
    event: FailureEvent, *, context: int = 1, scope: ClauseScope | None = None
) -> Clause | None:
    """The clause `learn_from_failure` stores for `event` (validated), or None (see module doc).

    >>> from crs._types import Actor, Outcome, FailureType
    >>> fail = StepRecord(session_id="s", step_number=2, actor=Actor.MAIN_AGENT,
    ...     decision=Decision.EXECUTE_TOOL, tool="build", outcome=Outcome.FAILURE,
    ...     error_category=ErrorCategory.INTERNAL)
    >>> first = StepRecord(session_id="s", step_number=1, actor=Actor.MAIN_AGENT,
    ...     decision=Decision.EXECUTE_TOOL, tool="build", outcome=Outcome.FAILURE,
    ...     error_category=ErrorCategory.INTERNAL)
    >>> ev = FailureEvent(session_id="s", failure_type=FailureType.TOOL_ERROR,
    ...     decision_path=(first,), failed_step=fail, source=SignalSource.HARD)
    >>> str(derive_clause(ev))
    '(¬tool:build ∨ ¬prev_tool:build ∨ ¬outcome:failure ∨ ¬error:internal)'
    """
    if context not in (1, 2):
        raise InvalidArgumentError(f"context: must be 1 or 2 previous steps, got {brief(context)}")
    if not SignalSource(event.source).is_hard():
        log.info("not learning from a soft failure signal in session %s", event.session_id)
        return None
    path, failed = _path(event)
    category = event.error_category or (failed.error_category if failed else ErrorCategory.NONE)
    if ErrorCategory(category).is_retryable():
        log.info("not learning from a transient %s failure", ErrorCategory(category))
        return None
    tool = failed.tool if failed is not None and failed.tool else event.tool
    if not tool or not path:
        return None
    prev = path[-1]
    literals = [Literal(variable=f"tool:{tool}", negated=True)]
    if prev.tool:
        literals.append(Literal(variable=f"prev_tool:{prev.tool}", negated=True))
    if prev.outcome:
        literals.append(Literal(variable=f"outcome:{prev.outcome}", negated=True))
    if prev.error_category:
        prev_error = ErrorCategory(prev.error_category).value  # a str is accepted too
        literals.append(Literal(variable=f"error:{prev_error}", negated=True))
    if context == 2 and len(path) >= 2 and path[-2].tool:
        literals.append(Literal(variable=f"prev_prev_tool:{path[-2].tool}", negated=True))
    key = "\n".join(sorted(str(lit) for lit in literals)).encode()
    digest = hashlib.sha256(key).hexdigest()[:12]
    return Clause(
        id=f"learned:{event.failure_type}:{digest}",
        literals=tuple(literals),
        source=SignalSource(event.source),
        failure_type=event.failure_type,
        session_id=event.session_id,
        scope=scope,
    )
