# ruff: noqa: RUF002  (the NOT and OR signs are the reference's clause notation)
"""Learned clauses (CDCL): literals, clauses, failure events and the clause store.

A clause is a disjunction of literals over decision variables named `<family>:<value>`
(`tool:run_build`, `prev_tool:grep`, `outcome:failure`, `error:internal`). A decision is
allowed when no stored clause is violated by the assignment built from the session's steps.

The assignment is three-valued and one-hot per family (spec §5.8): the observed value of a
family is true, every other value of that family is false, and families that were not
observed are unassigned. So clauses with positive literals work as well as negated ones.
Checking runs in Rust over watched literals; this module validates and keeps the metadata
(scope, TTL, use counts) that decides garbage collection and LRU eviction.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from crs._check import brief, check
from crs._errors import HardSoftBoundaryViolationError, InvalidArgumentError
from crs._reasoning._steps import require_encodable
from crs._types import (
    ClauseScope,
    Decision,
    ErrorCategory,
    FailureType,
    SignalSource,
    StepRecord,
    _Record,
)

log = logging.getLogger("crs.clauses")

DAY: float = 86_400.0
CLAUSE_SCOPE_TTL: dict[ClauseScope, float | None] = {
    ClauseScope.SESSION: None,  # lives until the session ends (clear_step_history)
    ClauseScope.PROJECT: 7 * DAY,
    ClauseScope.GLOBAL: 30 * DAY,
}
"""Time to live per scope in seconds; `None` = until the session's history is cleared."""

NOT = "\u00ac"
OR = " \u2228 "

# The variable families `check_decision_allowed` observes, from the proposed tool and the
# last two steps of the session.
FAMILIES: tuple[str, ...] = ("tool", "prev_tool", "prev_prev_tool", "outcome", "error")


def split_variable(variable: str) -> tuple[str, str]:
    """`family:value` -> (family, value); a name without `:` is its own family."""
    family, sep, value = variable.partition(":")
    return (family, value) if sep else (variable, "")


@dataclasses.dataclass(frozen=True, slots=True)
class Literal(_Record):
    """A decision variable (`tool:list_packages`) or its negation.

    >>> str(Literal(variable="tool:grep", negated=True))
    '¬tool:grep'
    """

    variable: str = ""
    negated: bool = False

    def __str__(self) -> str:
        return f"{NOT}{self.variable}" if self.negated else self.variable

    def value(self, assignment: Mapping[str, bool]) -> bool | None:
        """True/False under `assignment`, or None when the variable is unassigned."""
        v = assignment.get(self.variable)
        return None if v is None else v != self.negated


@dataclasses.dataclass(frozen=True, slots=True)
class Clause(_Record):
    """A learned disjunction of literals; a decision that makes every literal false is blocked.

    `scope` (not in the Go type) decides the clause's lifetime: session, 7 days (project) or
    30 days (global); `None` takes the store's configured scope.

    >>> c = Clause(id="c1", literals=(Literal(variable="tool:grep", negated=True),
    ...            Literal(variable="prev_tool:grep", negated=True)), source=SignalSource.HARD)
    >>> str(c)
    '(¬tool:grep ∨ ¬prev_tool:grep)'
    >>> c.is_violated({"tool:grep": True, "prev_tool:grep": True})
    True
    """

    id: str = ""
    literals: tuple[Literal, ...] = ()
    source: SignalSource = SignalSource.UNKNOWN
    learned_at: int = 0
    failure_type: FailureType | str = ""
    session_id: str = ""
    use_count: int = 0
    last_used: int = 0
    scope: ClauseScope | None = None

    def __str__(self) -> str:
        if not self.literals:
            return "(empty)"
        return "(" + OR.join(str(lit) for lit in self.literals) + ")"

    def is_satisfied(self, assignment: Mapping[str, bool]) -> bool:
        """True when any literal is true (unassigned variables never satisfy)."""
        return any(lit.value(assignment) is True for lit in self.literals)

    def is_violated(self, assignment: Mapping[str, bool]) -> bool:
        """True when every literal is false; an unassigned variable means not (yet) violated.

        An empty clause is always violated.
        """
        return all(lit.value(assignment) is False for lit in self.literals)

    def signature(self) -> frozenset[tuple[str, bool]]:
        """The clause's meaning: its set of literals (order, repetition and id ignored)."""
        return frozenset((lit.variable, lit.negated) for lit in self.literals)

    def validate(self) -> None:
        """Raise a `CRSError` naming the first invalid field.

        Raises:
            InvalidArgumentError: empty id, no literals, an empty variable, unknown enums.
            HardSoftBoundaryViolationError: the source is not HARD or SAFETY (CDCL rule).
        """
        check(self, "clause.")
        if not isinstance(self.id, str) or not self.id:
            raise InvalidArgumentError("clause.id: must be a non-empty string")
        require_encodable(self.id, "clause.id")
        if not self.literals:
            raise InvalidArgumentError("clause.literals: a clause needs at least one Literal")
        for i, lit in enumerate(self.literals):
            if not isinstance(lit, Literal):
                raise InvalidArgumentError(
                    f"clause.literals[{i}]: must be a Literal, got {brief(lit)}"
                )
            if not isinstance(lit.variable, str) or not lit.variable:
                raise InvalidArgumentError(
                    f"clause.literals[{i}].variable: must be a non-empty '<family>:<value>' name"
                )
            require_encodable(lit.variable, f"clause.literals[{i}].variable")
        if self.source not in (0, 1, 2, 3):
            raise InvalidArgumentError(
                f"clause.source: must be SignalSource.HARD or SAFETY, got {brief(self.source)}"
            )
        if not SignalSource(self.source).is_hard():
            raise HardSoftBoundaryViolationError(
                f"clause.source: learned clauses need a HARD or SAFETY source, "
                f"got {SignalSource(self.source)} (soft signals never create clauses)"
            )
        if self.failure_type and self.failure_type not in FailureType.__members__.values():
            raise InvalidArgumentError(
                "clause.failure_type: must be a FailureType or empty"
                f", got {brief(self.failure_type)}"
            )
        if self.scope is not None and self.scope not in ClauseScope.__members__.values():
            raise InvalidArgumentError(
                f"clause.scope: must be a ClauseScope (session, project, global) or None, "
                f"got {brief(self.scope)}"
            )


@dataclasses.dataclass(frozen=True, slots=True)
class ClauseCheckResult(_Record):
    """The result of checking an assignment against the learned clauses."""

    conflict: bool = False
    violated_clause: Clause | None = None
    reason: str = ""


class DecisionCheck(NamedTuple):
    """`check_decision_allowed` result: whether the tool may be used, and why not."""

    allowed: bool
    reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class ClausePersistence(_Record):
    """How clauses are kept: default scope, its TTL (seconds) and the LRU limit."""

    scope: ClauseScope = ClauseScope.PROJECT
    ttl: float = 0.0
    max_clauses: int = 0

    def validate(self) -> None:
        """Raise `InvalidArgumentError` naming the first invalid field."""
        check(self)
        if self.scope not in ClauseScope.__members__.values():
            raise InvalidArgumentError(
                f"scope: must be a ClauseScope (session, project, global), got {brief(self.scope)}"
            )
        if not isinstance(self.ttl, int | float) or not self.ttl > 0:
            raise InvalidArgumentError(f"ttl: must be a positive number of seconds, got {self.ttl}")
        if not isinstance(self.max_clauses, int) or self.max_clauses < 1:
            raise InvalidArgumentError(f"max_clauses: must be >= 1, got {brief(self.max_clauses)}")

    def ttl_of(self, scope: ClauseScope) -> float | None:
        """TTL in seconds of a clause of `scope` (`None` = until its session ends)."""
        if scope == ClauseScope.SESSION:
            return None
        return self.ttl if scope == self.scope else CLAUSE_SCOPE_TTL[scope]


DEFAULT_CLAUSE_CONFIG = ClausePersistence(scope=ClauseScope.PROJECT, ttl=7 * DAY, max_clauses=1000)
"""Project scope, 7 days, at most 1000 clauses (LRU eviction)."""


@dataclasses.dataclass(frozen=True, slots=True)
class FailureEvent(_Record):
    """Something the agent should learn from: a failure and the decisions that led to it."""

    session_id: str = ""
    failure_type: FailureType | str = ""
    decision_path: tuple[StepRecord, ...] = ()
    failed_step: StepRecord | None = None
    error_message: str = ""
    error_category: ErrorCategory = ErrorCategory.NONE
    tool: str = ""
    source: SignalSource = SignalSource.UNKNOWN

    def validate(self) -> None:
        """Raise `InvalidArgumentError` naming the first invalid field."""
        check(self, "event.")
        if not isinstance(self.session_id, str) or not self.session_id:
            raise InvalidArgumentError("event.session_id: must be a non-empty string")
        if self.failure_type not in FailureType.__members__.values():
            raise InvalidArgumentError(
                f"event.failure_type: must be one of {', '.join(f.value for f in FailureType)}, "
                f"got {brief(self.failure_type)}"
            )
        if self.source not in (1, 2, 3):
            raise InvalidArgumentError(
                f"event.source: must be SignalSource.HARD, SOFT or SAFETY, got {brief(self.source)}"
            )
        if self.error_category not in ErrorCategory.__members__.values():
            raise InvalidArgumentError(
                f"event.error_category: must be an ErrorCategory, got {brief(self.error_category)}"
            )
        for i, step in enumerate(self.decision_path):
            if not isinstance(step, StepRecord):
                raise InvalidArgumentError(
                    f"event.decision_path[{i}]: must be a StepRecord, got {brief(step)}"
                )


# ---------------------------------------------------------------- assignments


def decision_context(history: Iterable[StepRecord]) -> dict[str, str]:
    """Observed families from the last two decisions: prev_tool, outcome, error, prev_prev_tool.

    Steps the circuit breaker recorded itself (decision `circuit_breaker`) are crs's own
    interventions, not the agent's decisions, and are skipped: a loop detection must not hide
    the context a learned clause is about.
    """
    steps = [s for s in history if s.decision != Decision.CIRCUIT_BREAKER][-2:]
    ctx: dict[str, str] = {}
    if steps:
        last = steps[-1]
        if last.tool:
            ctx["prev_tool"] = last.tool
        if last.outcome:
            ctx["outcome"] = str(last.outcome)
        if last.error_category:
            ctx["error"] = str(last.error_category)  # an ErrorCategory (a StrEnum) or its str
        if len(steps) == 2 and steps[0].tool:
            ctx["prev_prev_tool"] = steps[0].tool
    return ctx
