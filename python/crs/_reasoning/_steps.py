"""Bounded per-session step records (spec §5.11): FIFO eviction with a counter and a log line.

`StepStore` is plain data: `prepare` decides the step number and timestamp and validates
(so an invalid step changes nothing), `append` stores a prepared step. The CRS journals the
prepared step between the two, so replay reproduces the same numbers and times.
"""

from __future__ import annotations

import dataclasses
import enum
import logging
from collections import Counter, OrderedDict, deque
from collections.abc import Mapping
from typing import Any

from crs._check import brief, check
from crs._errors import InvalidArgumentError
from crs._types import (
    MAX_STEPS_PER_SESSION,
    Actor,
    Decision,
    ErrorCategory,
    Outcome,
    StepRecord,
    ToolParams,
    is_encodable,
    now_ms,
)

log = logging.getLogger("crs.steps")

MAX_SESSIONS: int = 1_000
"""Sessions whose steps are kept; a new session evicts the least recently active one (its
steps, remembered queries and session-scoped clauses, as if the session had ended)."""


def require_id(value: object, name: str) -> str:
    """`value` if it is a non-empty string, else `InvalidArgumentError` naming `name`."""
    if not isinstance(value, str) or not value:
        raise InvalidArgumentError(f"{name}: must be a non-empty string, got {brief(value)}")
    require_encodable(value, name)
    return value


def require_encodable(value: str, name: str) -> str:
    """`value` if UTF-8 can encode it (no lone surrogates such as '\\ud800', which the
    native core and the journal cannot store), else `InvalidArgumentError` naming `name`."""
    if not is_encodable(value):
        at = next(i for i, ch in enumerate(value) if "\ud800" <= ch <= "\udfff")
        raise InvalidArgumentError(
            f"{name}: must be valid Unicode text; it holds a lone surrogate at index "
            f"{at} ({brief(value[at])}); decode bytes with errors='replace'"
        )
    return value


_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(StepRecord))
_ENUM_FIELDS: tuple[tuple[str, Any], ...] = (
    ("actor", Actor),
    ("decision", Decision),
    ("outcome", Outcome),
    ("error_category", ErrorCategory),
)
_NESTED = ("proof_updates", "constraints_added", "dependencies_found")


def check_storable(step: StepRecord) -> None:
    """`InvalidArgumentError` unless `StepStore.append` can store `step` without failing:
    the fields it keys and counts by must be a str (`session_id`, `tool`) and an int
    (`step_number`). Checked before a step is journaled, and again on replay."""
    if not isinstance(step.session_id, str) or not step.session_id:
        raise InvalidArgumentError(
            f"step.session_id: must be a non-empty string, got {step.session_id!r}"
        )
    if not isinstance(step.tool, str):
        raise InvalidArgumentError(f"step.tool: must be a str, got {type(step.tool).__name__}")
    n = step.step_number
    if isinstance(n, bool) or not isinstance(n, int):
        raise InvalidArgumentError(f"step.step_number: must be an int, got {type(n).__name__}")


def _make_replace() -> Any:
    """`dataclasses.replace` for StepRecord without its overhead (this runs on every recorded
    step): straight-line code that fills the slots of a new record through their descriptors."""
    lines = ["def _replace(step, changes):", "    new = _new(_cls)", "    get = changes.get"]
    for i, name in enumerate(_FIELDS):
        lines.append(f"    _s{i}(new, get({name!r}, step.{name}))")
    lines.append("    return new")
    ns: dict[str, Any] = {"_new": object.__new__, "_cls": StepRecord}
    for i, name in enumerate(_FIELDS):
        ns[f"_s{i}"] = getattr(StepRecord, name).__set__
    exec("\n".join(lines), ns)
    return ns["_replace"]


_replace: Any = _make_replace()


def step_payload(step: StepRecord) -> dict[str, Any]:
    """`step.to_dict()`, computed faster for the journal payload of every step."""
    d: dict[str, Any] = {}
    for name in _FIELDS:
        v = getattr(step, name)
        if isinstance(v, enum.Enum):
            v = v.value
        d[name] = v
    if step.tool_params is not None:
        d["tool_params"] = step.tool_params.to_dict()
    for name in _NESTED:
        d[name] = [x.to_dict() for x in d[name]]
    return d


def _step_number(step: StepRecord) -> int:
    return step.step_number


class _Session:
    __slots__ = ("executions", "next_number", "ordered", "steps")

    def __init__(self, cap: int) -> None:
        self.steps: deque[StepRecord] = deque(maxlen=cap)
        self.executions: Counter[str] = Counter()
        self.next_number = 1
        # True while the steps were recorded in step-number order (the usual case, and
        # always so with automatic numbers): `history` then needs no sort.
        self.ordered = True


class StepStore:
    """Step records per session, at most `max_steps` each (oldest evicted first)."""

    def __init__(
        self, max_steps: int = MAX_STEPS_PER_SESSION, max_sessions: int = MAX_SESSIONS
    ) -> None:
        if max_steps < 1:
            raise InvalidArgumentError(f"max_steps: must be >= 1, got {max_steps}")
        if max_sessions < 1:
            raise InvalidArgumentError(f"max_sessions: must be >= 1, got {max_sessions}")
        self.max_steps = max_steps
        self.max_sessions = max_sessions
        # Sessions in order of last activity (least recent first), for session eviction.
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self.evicted = 0
        self.evicted_sessions = 0

    def prepare(self, step: StepRecord) -> StepRecord:
        """`step` with its number (< 1 -> next in the session) and time (0 -> now), validated.

        Raises:
            InvalidArgumentError: not a StepRecord, or a field is invalid (named).
        """
        if not isinstance(step, StepRecord):
            raise InvalidArgumentError(f"step: must be a StepRecord, got {type(step).__name__}")
        check(step, "step.")  # every field's type, before any is used
        changes: dict[str, Any] = {}
        if step.step_number < 1:
            s = self._sessions.get(step.session_id)
            changes["step_number"] = 1 if s is None else s.next_number
        if step.timestamp == 0:
            changes["timestamp"] = now_ms()
        for name in _NESTED:  # a caller's list becomes the tuple that replay gives back
            if type(getattr(step, name)) is list:
                changes[name] = tuple(getattr(step, name))
        tp = step.tool_params
        if tp is not None and (isinstance(tp.flags, list) or isinstance(tp.extra, list)):
            changes["tool_params"] = ToolParams(
                target=tp.target,
                query=tp.query,
                depth=tp.depth,
                limit=tp.limit,
                flags=tuple(tp.flags),
                extra=tuple(tp.extra),
            )
        # Normalise enum fields so stored steps compare and print as enums.
        # (`check` accepted each as an enum member or a str, so the lookups cannot raise.)
        for name, enum_t in _ENUM_FIELDS:
            value = getattr(step, name)
            if type(value) is not enum_t:
                member = enum_t._value2member_map_.get(value)
                if member is not None:
                    changes[name] = member
        if changes:
            step = _replace(step, changes)
        try:
            step.validate_rules()
        except InvalidArgumentError as exc:
            raise InvalidArgumentError(f"step.{exc}") from None
        check_storable(step)
        return step

    def append(self, step: StepRecord) -> str | None:
        """Store a prepared step, evicting the session's oldest when it is full.

        Returns the id of a session evicted to make room for a new one (the least recently
        active, when `max_sessions` are held), else None.
        """
        gone = None
        s = self._sessions.get(step.session_id)
        if s is None:
            if len(self._sessions) >= self.max_sessions:
                gone, _ = self._sessions.popitem(last=False)
                self.evicted_sessions += 1
                log.info(
                    "%d sessions hold steps: evicted the least recently active, %s "
                    "(sessions evicted so far: %d)",
                    self.max_sessions,
                    gone,
                    self.evicted_sessions,
                )
            s = self._sessions[step.session_id] = _Session(self.max_steps)
        else:
            self._sessions.move_to_end(step.session_id)
        if len(s.steps) == self.max_steps:
            old = s.steps[0]  # the deque drops it on append
            if old.decision == Decision.EXECUTE_TOOL and old.tool:
                s.executions[old.tool] -= 1
            self.evicted += 1
            log.info(
                "session %s holds %d steps: evicted step %d (evicted so far: %d)",
                step.session_id,
                self.max_steps,
                old.step_number,
                self.evicted,
            )
        if s.steps and step.step_number < s.steps[-1].step_number:
            s.ordered = False
        s.steps.append(step)
        if step.decision == Decision.EXECUTE_TOOL and step.tool:
            s.executions[step.tool] += 1
        s.next_number = max(s.next_number, step.step_number + 1)
        return gone

    def history(self, session_id: str) -> list[StepRecord]:
        """The session's steps ordered by step number (the seed's `GetStepHistory`); steps
        with equal numbers keep the order they were recorded in."""
        s = self._sessions.get(session_id)
        if s is None:
            return []
        if s.ordered:
            return list(s.steps)
        return sorted(s.steps, key=_step_number)

    def last(self, session_id: str, n: int = 1) -> list[StepRecord]:
        """The last `n` steps, oldest first (cheap: no full copy)."""
        s = self._sessions.get(session_id)
        if s is None:
            return []
        k = min(n, len(s.steps))
        return [s.steps[i] for i in range(len(s.steps) - k, len(s.steps))]

    def last_decisions(self, session_id: str, n: int) -> list[StepRecord]:
        """The last `n` steps that are not circuit-breaker interventions, oldest first."""
        s = self._sessions.get(session_id)
        if s is None:
            return []
        out: list[StepRecord] = []
        for st in reversed(s.steps):
            if st.decision != Decision.CIRCUIT_BREAKER:
                out.append(st)
                if len(out) == n:
                    break
        out.reverse()
        return out

    def count_executions(self, session_id: str, tool: str) -> int:
        s = self._sessions.get(session_id)
        return 0 if s is None else s.executions.get(tool, 0)

    def clear(self, session_id: str) -> bool:
        return self._sessions.pop(session_id, None) is not None

    def sessions(self) -> list[str]:
        return list(self._sessions)

    def export(self) -> dict[str, Any]:
        return {
            "max_steps": self.max_steps,
            "max_sessions": self.max_sessions,
            "evicted": self.evicted,
            "evicted_sessions": self.evicted_sessions,
            "sessions": {
                sid: {"next_number": s.next_number, "steps": [st.to_dict() for st in s.steps]}
                for sid, s in self._sessions.items()
            },
        }

    @classmethod
    def from_export(cls, data: Mapping[str, Any]) -> StepStore:
        store = cls(
            int(data.get("max_steps", MAX_STEPS_PER_SESSION)),
            int(data.get("max_sessions", MAX_SESSIONS)),
        )
        for sid, sd in dict(data.get("sessions", {})).items():
            for d in sd.get("steps", []):
                store.append(StepRecord.from_dict(d))
            if sid in store._sessions:
                store._sessions[sid].next_number = int(sd.get("next_number", 1))
        store.evicted = int(data.get("evicted", 0))
        store.evicted_sessions = int(data.get("evicted_sessions", 0))
        return store
