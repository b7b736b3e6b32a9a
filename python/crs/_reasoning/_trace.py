"""Reasoning traces: `TraceStep`, its builder, the bounded `TraceRecorder` and the bridge to steps.

A `TraceRecorder` keeps the last `max_steps` steps (FIFO: the oldest goes first, counted in
`evicted_count` and logged on the ``crs.trace`` logger) and numbers them 1, 2, 3… (numbers are
never reused after an eviction; `clear` starts again at 1).

Fail-closed: when the configured sanitizer raises (or returns something other than a `str`) on
any field of a step, the step is **not** recorded, the step counter does not advance,
`sanitize_failures` is incremented, a warning is logged (naming the field, never its text) and
`record_step` raises `SanitizationError`. A trace therefore never holds an unsanitised field.

Differences from the Go package (reference study §5.2, §8 item 22): durations are float seconds
and the JSON form keeps them losslessly (``duration``) beside whole milliseconds
(``duration_ms``, which in Go held nanoseconds); metadata keys are sanitised too;
`trace_step_to_step_record` carries the dependencies found over.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import math
import re
import threading
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Final, Self

from crs._check import brief, items_of
from crs._errors import InvalidArgumentError, SanitizationError
from crs._reasoning._sanitizer import Sanitizer, SecretSanitizer
from crs._types import (
    Actor,
    ConstraintType,
    ConstraintUpdate,
    Decision,
    DependencyEdge,
    ErrorCategory,
    Outcome,
    ProofUpdate,
    ProofUpdateType,
    SignalSource,
    StepRecord,
    _Record,
    now_ms,
)

DEFAULT_TRACE_MAX_STEPS: Final = 1000
"""Steps a `TraceRecorder` keeps when `TraceConfig.max_steps` is 0."""

_log = logging.getLogger("crs.trace")


def _require_str(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise InvalidArgumentError(f"{name}: must be a str, got {type(value).__name__}")
    return value


def _require_seconds(name: str, value: object) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or math.isnan(value)
        or math.isinf(value)
        or value < 0
    ):
        raise InvalidArgumentError(f"{name}: must be a finite number of seconds >= 0")
    return float(value)


# ---------------------------------------------------------------- Go duration strings


def format_go_duration(seconds: float) -> str:
    """Format seconds as Go's `time.Duration.String()` does (``1.5s``, ``1m0.25s``, ``250ms``).

    >>> [format_go_duration(s) for s in (1.5, 0.25, 3723, 0)]
    ['1.5s', '250ms', '1h2m3s', '0s']
    """
    ns = round(seconds * 1e9)
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    if ns == 0:
        return "0s"
    if ns < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if ns >= size:
                return sign + _trim(ns, size) + unit
    hours, rem = divmod(ns, 3600 * 10**9)
    minutes, rem = divmod(rem, 60 * 10**9)
    secs = _trim(rem, 10**9) + "s"
    if hours:
        return f"{sign}{hours}h{minutes}m{secs}"
    if minutes:
        return f"{sign}{minutes}m{secs}"
    return sign + secs


def _trim(value: int, unit: int) -> str:
    whole, frac = divmod(value, unit)
    if not frac:
        return str(whole)
    digits = len(str(unit)) - 1
    return f"{whole}.{frac:0{digits}d}".rstrip("0")


_GO_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?)(h|ms|m|s|µs|us|ns)")
_GO_UNIT_SECONDS = {
    "h": 3600.0,
    "m": 60.0,
    "s": 1.0,
    "ms": 1e-3,
    "µs": 1e-6,
    "us": 1e-6,
    "ns": 1e-9,
}


def parse_go_duration(text: str) -> float:
    """Inverse of `format_go_duration` (to the nanosecond): ``"1m30s"`` -> 90.0.

    Raises:
        InvalidArgumentError: `text` is not a Go duration string.
    """
    body = text[1:] if text.startswith("-") else text
    parts = _GO_DURATION_PART.findall(body)
    if (body != "0" and "".join(a + b for a, b in parts) != body) or not body:
        raise InvalidArgumentError(f"total_duration: not a Go duration string: {brief(text)}")
    total = sum(float(a) * _GO_UNIT_SECONDS[b] for a, b in parts)
    return -total if text.startswith("-") else total


# ---------------------------------------------------------------- records


@dataclasses.dataclass(frozen=True, slots=True)
class TraceStep(_Record):
    """One step of the reasoning process: what was done, what was found, how the state changed.

    `step` and `timestamp` (Unix ms) are assigned by `TraceRecorder.record_step`; `duration`
    is in seconds. Build one with `TraceStepBuilder` or with keyword arguments.
    """

    step: int = 0
    timestamp: int = 0
    action: str = ""
    target: str = ""
    tool: str = ""
    duration: float = 0.0
    symbols_found: tuple[str, ...] = ()
    proof_updates: tuple[ProofUpdate, ...] = ()
    constraints_added: tuple[ConstraintUpdate, ...] = ()
    dependencies_found: tuple[DependencyEdge, ...] = ()
    error: str = ""
    metadata: dict[str, str] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict; ``duration`` in seconds plus ``duration_ms`` rounded to ms."""
        d = _Record.to_dict(self)
        d["duration_ms"] = round(self.duration * 1000)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Inverse of `to_dict`; reads ``duration_ms`` (milliseconds) when ``duration`` is absent.

        A trace written by the Go package holds nanoseconds under ``duration_ms``; divide its
        values by 10**6 before loading them here.
        """
        data = dict(data)
        ms = data.pop("duration_ms", None)
        if "duration" not in data and ms is not None:
            data["duration"] = ms / 1000
        return _Record.from_dict.__func__(cls, data)  # type: ignore[attr-defined,no-any-return]


@dataclasses.dataclass(frozen=True, slots=True)
class ReasoningTrace(_Record):
    """The exportable trace of a session (`TraceRecorder.export`).

    `duration` is the seconds from the first to the last step; the JSON form also gives it as a
    Go duration string under ``total_duration``.
    """

    session_id: str = ""
    total_steps: int = 0
    duration: float = 0.0
    start_time: int = 0
    end_time: int = 0
    trace: tuple[TraceStep, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict with the Go keys (``total_duration`` a Go string) plus ``duration``."""
        d = _Record.to_dict(self)
        d["total_duration"] = format_go_duration(self.duration)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Inverse of `to_dict`; reads ``total_duration`` when ``duration`` is absent."""
        data = dict(data)
        go = data.pop("total_duration", None)
        if "duration" not in data and isinstance(go, str):
            data["duration"] = parse_go_duration(go)
        return _Record.from_dict.__func__(cls, data)  # type: ignore[attr-defined,no-any-return]


# `_Record.from_dict` resolves annotations in the defining module's globals only, which misses
# the `ClassVar` of `_Record` itself; resolve them here, each in its own module, once.
for _cls in (TraceStep, ReasoningTrace):
    _cls._hints = typing.get_type_hints(_cls)

# ---------------------------------------------------------------- builder

_STATUS_TO_TYPE: Final = {
    "proven": ProofUpdateType.PROVEN,
    "disproven": ProofUpdateType.DISPROVEN,
    "expanded": ProofUpdateType.INCREMENT,
    "unknown": ProofUpdateType.INCREMENT,
    "increment": ProofUpdateType.INCREMENT,
    "decrement": ProofUpdateType.DECREMENT,
    "reset": ProofUpdateType.RESET,
}
_SOURCES: Final = {
    "hard": SignalSource.HARD,
    "soft": SignalSource.SOFT,
    "safety": SignalSource.SAFETY,
}
_CONSTRAINT_TYPES: Final = {
    "mutual_exclusion": ConstraintType.MUTUAL_EXCLUSION,
    "implication": ConstraintType.IMPLICATION,
    "ordering": ConstraintType.ORDERING,
    "resource": ConstraintType.RESOURCE,
}


class TraceStepBuilder:
    """Fluent builder of a `TraceStep`; every `with_*` returns the builder.

    >>> step = (TraceStepBuilder().with_action("explore").with_target("main.go")
    ...         .with_tool("Grep").with_duration(0.25).with_metadata("query", "TODO").build())
    >>> step.action, step.tool, step.duration, step.metadata
    ('explore', 'Grep', 0.25, {'query': 'TODO'})
    """

    __slots__ = ("_fields", "_metadata")

    def __init__(self) -> None:
        self._fields: dict[str, Any] = {}
        self._metadata: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"<TraceStepBuilder fields={sorted(self._fields)}>"

    def with_action(self, action: str) -> Self:
        """Set what was done (``explore``, ``analyze``, ``trace_flow``…)."""
        self._fields["action"] = _require_str("action", action)
        return self

    def with_target(self, target: str) -> Self:
        """Set the file or symbol operated on."""
        self._fields["target"] = _require_str("target", target)
        return self

    def with_tool(self, tool: str) -> Self:
        """Set the tool that triggered the action."""
        self._fields["tool"] = _require_str("tool", tool)
        return self

    def with_duration(self, seconds: float) -> Self:
        """Set how long the step took, in seconds (>= 0)."""
        self._fields["duration"] = _require_seconds("seconds", seconds)
        return self

    def with_symbols_found(self, symbols: Iterable[str]) -> Self:
        """Set the symbols discovered (replaces earlier ones)."""
        if isinstance(symbols, str):
            raise InvalidArgumentError("symbols: must be an iterable of str, not one str")
        self._fields["symbols_found"] = tuple(
            _require_str(f"symbols[{i}]", s) for i, s in enumerate(items_of(symbols, "symbols"))
        )
        return self

    def with_proof_update(self, node_id: str, status: str, reason: str, source: str) -> Self:
        """Add a proof update described by strings (kept for the Go API's compatibility).

        `status` ``proven``/``disproven``/``reset``/``decrement`` map to that update type;
        ``expanded``, ``unknown`` and ``increment`` to an increment; anything else to unknown.
        `source` ``hard``/``soft``/``safety``, anything else unknown. The delta is 1 and the
        original `status` string is kept in `ProofUpdate.status`.
        """
        for name, value in (("node_id", node_id), ("status", status), ("reason", reason)):
            _require_str(name, value)
        _require_str("source", source)
        return self.with_proof_update_typed(
            node_id,
            _STATUS_TO_TYPE.get(status, ProofUpdateType.UNKNOWN),
            1,
            reason,
            _SOURCES.get(source, SignalSource.UNKNOWN),
            status=status,
        )

    def with_proof_update_typed(
        self,
        node_id: str,
        update_type: ProofUpdateType,
        delta: int,
        reason: str,
        source: SignalSource,
        *,
        status: str = "",
    ) -> Self:
        """Add a proof update with typed parameters (prefer this one in new code)."""
        _require_str("node_id", node_id)
        _require_str("reason", reason)
        if isinstance(delta, bool) or not isinstance(delta, int) or not 0 <= delta < 2**64:
            raise InvalidArgumentError("delta: must be an int between 0 and 2**64-1")
        try:
            kind = ProofUpdateType(update_type)
            src = SignalSource(source)
        except ValueError:
            raise InvalidArgumentError(
                "update_type/source: must be a ProofUpdateType and a SignalSource"
            ) from None
        update = ProofUpdate(
            node_id=node_id, type=kind, delta=delta, reason=reason, source=src, status=status
        )
        self._fields["proof_updates"] = (*self._fields.get("proof_updates", ()), update)
        return self

    def with_constraint(
        self, id: str, constraint_type: str | ConstraintType, nodes: Iterable[str]
    ) -> Self:
        """Add a constraint (`constraint_type` a name such as ``ordering`` or a ConstraintType)."""
        _require_str("id", id)
        if isinstance(constraint_type, ConstraintType):
            ctype = constraint_type
        else:
            ctype = _CONSTRAINT_TYPES.get(
                _require_str("constraint_type", constraint_type), ConstraintType.UNKNOWN
            )
        if isinstance(nodes, str):
            raise InvalidArgumentError("nodes: must be an iterable of str, not one str")
        node_ids = tuple(
            _require_str(f"nodes[{i}]", n) for i, n in enumerate(items_of(nodes, "nodes"))
        )
        update = ConstraintUpdate(id=id, type=ctype, nodes=node_ids)
        self._fields["constraints_added"] = (*self._fields.get("constraints_added", ()), update)
        return self

    def with_dependency(self, from_: str, to: str) -> Self:
        """Add a dependency edge `from_` -> `to`."""
        edge = DependencyEdge(from_=_require_str("from_", from_), to=_require_str("to", to))
        self._fields["dependencies_found"] = (*self._fields.get("dependencies_found", ()), edge)
        return self

    def with_error(self, err: str) -> Self:
        """Set the error that occurred."""
        self._fields["error"] = _require_str("err", err)
        return self

    def with_metadata(self, key: str, value: str) -> Self:
        """Add a metadata pair (a later value for the same key wins)."""
        self._metadata[_require_str("key", key)] = _require_str("value", value)
        return self

    def build(self) -> TraceStep:
        """Return the step built so far (the builder can go on)."""
        return TraceStep(**self._fields, metadata=dict(self._metadata))


# ---------------------------------------------------------------- config and recorder


@dataclasses.dataclass(frozen=True, slots=True)
class TraceConfig:
    """How a `TraceRecorder` records. A zero-valued `TraceConfig()` means the defaults
    (`DefaultTraceConfig()`), as the seed's `NewTraceRecorder` says.

    Attributes:
        max_steps: steps kept; the oldest is evicted first. 0 means 1000.
        record_symbols: keep `TraceStep.symbols_found`.
        record_metadata: keep `TraceStep.metadata`.
        sanitizer: redacts secrets from every string of a step before it is stored; `None`
            records as given. `SecureTraceConfig()` installs a `SecretSanitizer`.
    """

    max_steps: int = 0
    record_symbols: bool = False
    record_metadata: bool = False
    sanitizer: Sanitizer | None = None

    def validate(self) -> None:
        """Raise `InvalidArgumentError` naming the first invalid field."""
        if isinstance(self.max_steps, bool) or not isinstance(self.max_steps, int):
            raise InvalidArgumentError("max_steps: must be an int >= 0 (0 = 1000)")
        if self.max_steps < 0:
            raise InvalidArgumentError("max_steps: must be >= 0 (0 = 1000)")
        if self.sanitizer is not None and not callable(getattr(self.sanitizer, "sanitize", None)):
            raise InvalidArgumentError(
                "sanitizer: must have a sanitize(text) -> str method, or be None"
            )


def DefaultTraceConfig() -> TraceConfig:  # the seed's name (spec README §2)
    """1000 steps, symbols and metadata recorded, no sanitizer."""
    return TraceConfig(max_steps=DEFAULT_TRACE_MAX_STEPS, record_symbols=True, record_metadata=True)


_ZERO_CONFIG = TraceConfig()


def SecureTraceConfig() -> TraceConfig:  # the seed's name (spec README §2)
    """`DefaultTraceConfig()` with a `SecretSanitizer`: use it so secrets never reach a trace."""
    return dataclasses.replace(DefaultTraceConfig(), sanitizer=SecretSanitizer())


class TraceRecorder:
    """Records reasoning steps for audit and debugging; bounded, thread-safe, fail-closed.

    Args:
        config: how to record; `None` gives `DefaultTraceConfig()`.

    >>> rec = TraceRecorder(SecureTraceConfig())
    >>> rec.record_step(TraceStep(action="run", target="deploy --token=abc123")).target
    'deploy --token=[REDACTED]'
    >>> rec.export("session-1").total_steps
    1
    """

    __slots__ = (
        "_config",
        "_evicted",
        "_lock",
        "_max_steps",
        "_next_step",
        "_sanitize_failures",
        "_steps",
    )

    def __init__(self, config: TraceConfig | None = None) -> None:
        if not isinstance(config, TraceConfig | None):
            raise InvalidArgumentError(
                f"config: must be a TraceConfig or None, got {type(config).__name__}"
            )
        if config is None or config == _ZERO_CONFIG:
            # The seed: "Uses defaults if zero-valued" (a `TraceConfig()` records symbols
            # and metadata, as `DefaultTraceConfig()` does).
            config = DefaultTraceConfig()
        config.validate()
        self._config = config
        self._max_steps = config.max_steps or DEFAULT_TRACE_MAX_STEPS
        self._lock = threading.Lock()
        self._steps: collections.deque[TraceStep] = collections.deque()
        self._next_step = 1
        self._evicted = 0
        self._sanitize_failures = 0

    def __repr__(self) -> str:
        return f"<TraceRecorder steps={len(self._steps)} max_steps={self._max_steps}>"

    @property
    def config(self) -> TraceConfig:
        return self._config

    @property
    def evicted_count(self) -> int:
        """Steps evicted because the trace was full, since creation (`clear` keeps it)."""
        return self._evicted

    @property
    def sanitize_failures(self) -> int:
        """Steps refused because sanitising raised (fail-closed), since creation."""
        return self._sanitize_failures

    def record_step(self, step: TraceStep) -> TraceStep:
        """Sanitise, number, timestamp and store a step; return the stored step.

        `step.step` and `step.timestamp` are overwritten (the next number, and now in Unix
        ms: "Step number and timestamp will be overwritten by the recorder"). Symbols and
        metadata are dropped when the config says so.

        Raises:
            InvalidArgumentError: `step` is not a `TraceStep`.
            SanitizationError: the sanitizer failed; nothing was recorded.
        """
        _check_step(step)
        cfg = self._config
        step = dataclasses.replace(
            step,
            timestamp=now_ms(),
            symbols_found=tuple(step.symbols_found) if cfg.record_symbols else (),
            metadata=dict(step.metadata) if cfg.record_metadata else {},
        )
        if cfg.sanitizer is not None:
            try:
                step = _sanitize_step(step, cfg.sanitizer)
            except _FieldError as exc:
                with self._lock:
                    self._sanitize_failures += 1
                _log.warning("trace step not recorded: %s", exc)
                raise SanitizationError(f"trace step not recorded: {exc}") from None
        with self._lock:
            step = dataclasses.replace(step, step=self._next_step)
            self._next_step += 1
            if len(self._steps) >= self._max_steps:
                self._steps.popleft()
                self._evicted += 1
                evicted = self._evicted
            else:
                evicted = 0
            self._steps.append(step)
        if evicted:
            # One warning when eviction starts, then one per max_steps evictions, so a long
            # session says it is losing history without flooding the log.
            level = logging.WARNING if evicted % self._max_steps == 1 else logging.DEBUG
            if self._max_steps == 1:
                level = logging.WARNING if evicted == 1 else logging.DEBUG
            _log.log(
                level,
                "trace full (max_steps=%d): evicted the oldest step; %d evicted so far",
                self._max_steps,
                evicted,
            )
        return _copy_step(step)

    def get_steps(self) -> list[TraceStep]:
        """A copy of the recorded steps, oldest first."""
        with self._lock:
            steps = list(self._steps)
        return [_copy_step(s) for s in steps]

    def step_count(self) -> int:
        """The number of steps held."""
        with self._lock:
            return len(self._steps)

    def last_step(self) -> TraceStep | None:
        """A copy of the newest step, or `None` when the trace is empty."""
        with self._lock:
            last = self._steps[-1] if self._steps else None
        return None if last is None else _copy_step(last)

    def clear(self) -> None:
        """Drop every step and restart numbering at 1 (the counters are kept)."""
        with self._lock:
            self._steps.clear()
            self._next_step = 1

    def export(self, session_id: str) -> ReasoningTrace:
        """The trace as a `ReasoningTrace` for `session_id` (JSON via `to_dict`).

        Raises:
            InvalidArgumentError: `session_id` is empty or not a str.
        """
        if not isinstance(session_id, str) or not session_id:
            raise InvalidArgumentError("session_id: must be a non-empty string")
        steps = tuple(self.get_steps())
        if not steps:
            return ReasoningTrace(session_id=session_id)
        start, end = steps[0].timestamp, steps[-1].timestamp
        return ReasoningTrace(
            session_id=session_id,
            total_steps=len(steps),
            duration=(end - start) / 1000,
            start_time=start,
            end_time=end,
            trace=steps,
        )


def _check_step(step: object) -> None:
    """Raise `InvalidArgumentError` naming the first field of the wrong type."""
    if not isinstance(step, TraceStep):
        raise InvalidArgumentError(f"step: must be a TraceStep, got {type(step).__name__}")
    for name in ("action", "target", "tool", "error"):
        _require_str(f"step.{name}", getattr(step, name))
    _require_seconds("step.duration", step.duration)
    if (
        isinstance(step.timestamp, bool)
        or not isinstance(step.timestamp, int)
        or step.timestamp < 0
    ):
        raise InvalidArgumentError("step.timestamp: must be Unix milliseconds (int >= 0)")
    for i, sym in enumerate(step.symbols_found):
        _require_str(f"step.symbols_found[{i}]", sym)
    if not isinstance(step.metadata, Mapping):
        raise InvalidArgumentError("step.metadata: must be a dict of str to str")
    for key, value in step.metadata.items():
        _require_str("step.metadata key", key)
        _require_str(f"step.metadata[{brief(key)}]", value)
    for name, kind in (
        ("proof_updates", ProofUpdate),
        ("constraints_added", ConstraintUpdate),
        ("dependencies_found", DependencyEdge),
    ):
        for i, item in enumerate(getattr(step, name)):
            if not isinstance(item, kind):
                raise InvalidArgumentError(f"step.{name}[{i}]: must be a {kind.__name__}")


def _copy_step(step: TraceStep) -> TraceStep:
    # Every field but metadata is immutable; give each caller its own dict.
    return dataclasses.replace(step, metadata=dict(step.metadata))


class _FieldError(Exception):
    """Internal: sanitising one field failed; carries the field name and error type only."""


def _sanitize_step(step: TraceStep, sanitizer: Sanitizer) -> TraceStep:
    def clean(field: str, text: str) -> str:
        if not text:
            return text
        try:
            out = sanitizer.sanitize(text)
        except Exception as exc:
            raise _FieldError(f"sanitizing {field} raised {type(exc).__name__}") from None
        if not isinstance(out, str):
            raise _FieldError(f"sanitizing {field} returned {type(out).__name__}, not str")
        return out

    metadata: dict[str, str] = {}
    if step.metadata:
        sanitize_map = getattr(sanitizer, "sanitize_map", None)
        if callable(sanitize_map):
            try:
                cleaned = sanitize_map(step.metadata)
            except Exception as exc:
                raise _FieldError(f"sanitizing metadata raised {type(exc).__name__}") from None
            if not isinstance(cleaned, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in cleaned.items()
            ):
                raise _FieldError("sanitizing metadata did not return a str -> str mapping")
            # `sanitize_map` keeps keys; a trace is an audit record, so a key that holds a
            # secret is redacted too (a duplicate gets a #2, #3... suffix).
            for i, (k, v) in enumerate(cleaned.items()):
                key = base = clean(f"metadata key #{i}", k)
                n = 2
                while key in metadata:
                    key, n = f"{base}#{n}", n + 1
                metadata[key] = v
        else:
            for i, (k, v) in enumerate(step.metadata.items()):
                metadata[clean(f"metadata key #{i}", k)] = clean(f"metadata[#{i}]", v)
    return dataclasses.replace(
        step,
        action=clean("action", step.action),
        target=clean("target", step.target),
        tool=clean("tool", step.tool),
        error=clean("error", step.error),
        symbols_found=tuple(
            clean(f"symbols_found[{i}]", s) for i, s in enumerate(step.symbols_found)
        ),
        proof_updates=tuple(
            dataclasses.replace(
                u,
                node_id=clean(f"proof_updates[{i}].node_id", u.node_id),
                reason=clean(f"proof_updates[{i}].reason", u.reason),
                status=clean(f"proof_updates[{i}].status", u.status),
            )
            for i, u in enumerate(step.proof_updates)
        ),
        constraints_added=tuple(
            dataclasses.replace(
                c,
                id=clean(f"constraints_added[{i}].id", c.id),
                nodes=tuple(
                    clean(f"constraints_added[{i}].nodes[{j}]", n) for j, n in enumerate(c.nodes)
                ),
            )
            for i, c in enumerate(step.constraints_added)
        ),
        dependencies_found=tuple(
            dataclasses.replace(
                d,
                from_=clean(f"dependencies_found[{i}].from", d.from_),
                to=clean(f"dependencies_found[{i}].to", d.to),
            )
            for i, d in enumerate(step.dependencies_found)
        ),
        metadata=metadata,
    )


# ---------------------------------------------------------------- bridge to StepRecord


def trace_step_to_step_record(step: TraceStep, session_id: str) -> StepRecord:
    """Convert a recorded `TraceStep` into a valid `StepRecord` for `CRS.record_step`.

    Actor system, decision execute_tool, outcome success (failure with category internal and
    the error message when `step.error` is set), ``result_summary`` ``"<action>: <target>"``,
    propagate on; proof updates, constraints and (unlike Go) dependencies are carried over.
    A zero timestamp becomes now. The step number is ``step.step``; a step that no
    `TraceRecorder` numbered (``step.step`` 0) gives step number 0, which
    `CRS.record_step` numbers on arrival (as the seed's "ready for CRS.RecordStep()").

    Raises:
        InvalidArgumentError: `step` is not a TraceStep, `session_id` is empty, or
            `step.step` is negative.
    """
    if not isinstance(step, TraceStep):
        raise InvalidArgumentError(f"step: must be a TraceStep, got {type(step).__name__}")
    if not isinstance(session_id, str) or not session_id:
        raise InvalidArgumentError("session_id: must be a non-empty string")
    if not isinstance(step.step, int) or isinstance(step.step, bool) or step.step < 0:
        raise InvalidArgumentError(
            f"step.step: must be an int >= 0 (0 = numbered by CRS.record_step), got {step.step!r}"
        )
    failed = bool(step.error)
    record = StepRecord(
        step_number=step.step,
        timestamp=step.timestamp or now_ms(),
        session_id=session_id,
        actor=Actor.SYSTEM,
        decision=Decision.EXECUTE_TOOL,
        tool=step.tool,
        outcome=Outcome.FAILURE if failed else Outcome.SUCCESS,
        error_message=step.error,
        error_category=ErrorCategory.INTERNAL if failed else ErrorCategory.NONE,
        duration_ms=max(0, round(step.duration * 1000)),
        result_summary=f"{step.action}: {step.target}",
        propagate=True,
        proof_updates=tuple(step.proof_updates),
        constraints_added=tuple(step.constraints_added),
        dependencies_found=tuple(step.dependencies_found),
    )
    # every other rule is checked now; an unnumbered step is numbered by record_step
    (record if record.step_number else dataclasses.replace(record, step_number=1)).validate()
    return record
