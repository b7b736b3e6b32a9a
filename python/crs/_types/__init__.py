"""Plain data shared by the state and the agent-loop guards: enums, constants, records.

Named by spec README §2: Go structs become frozen dataclasses built with keyword arguments
that default to Go's zero values; int enums are `IntEnum`, string enums `StrEnum`.
Every record has a lossless `to_dict()` / `from_dict()` JSON form (snake_case keys, enums
as their values) used by the journal, exports and backups.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import sys
import time
import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Self

from crs._check import U64, brief, check
from crs._check import is_encodable as is_encodable  # re-exported (one check, in _check)
from crs._errors import InvalidArgumentError

# ---------------------------------------------------------------- constants

DEFAULT_INITIAL_PROOF_NUMBER: int = 10
"""Starting proof number of a new node: a moderate cost to prove."""
PROOF_NUMBER_INFINITE: int = 2**64 - 1
"""Proof number of a disproven path (infinite cost to prove)."""
MAX_PROPAGATION_DEPTH: int = 100
"""Disproof propagation stops this many levels from the start node."""
DEFAULT_CIRCUIT_BREAKER_THRESHOLD: int = 2
"""Executions of a tool without proof data after which the circuit breaker fires."""
MAX_STEPS_PER_SESSION: int = 10_000
"""Step records kept per session; the oldest is evicted first (FIFO)."""
DEFAULT_SNAPSHOT_EPOCH_LIMIT: int = 1000
"""Generations a base snapshot may lag behind before `apply(..., base=)` is refused."""
DEFAULT_DELTA_RECORD_CHANNEL_SIZE: int = 100
"""Go's delta-history record channel size; kept for parity (our history is synchronous)."""
DEFAULT_DELTA_QUERY_CHANNEL_SIZE: int = 10
"""Go's delta-history query channel size; kept for parity (our history is synchronous)."""
DEFAULT_CIRCUIT_BREAKER_THRESHOLDS: dict[str, int] = {
    "find_callers": 4,
    "find_callees": 4,
    "Grep": 5,
}
"""Per-tool thresholds of the default configuration."""


def now_ms() -> int:
    """The current time in Unix milliseconds."""
    return time.time_ns() // 1_000_000


# ---------------------------------------------------------------- int enums


class _NamedIntEnum(enum.IntEnum):
    """Int enum printed as its lower-case name, `Name(n)` for unknown values."""

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def describe(cls, value: int) -> str:
        """The string form of `value`, also for values outside the enum (`ProofStatus(9)`)."""
        try:
            return str(cls(value))
        except ValueError:
            return f"{cls.__name__}({value})"


class ProofStatus(_NamedIntEnum):
    """State of a node in proof-number search."""

    UNKNOWN = 0
    PROVEN = 1
    DISPROVEN = 2
    EXPANDED = 3


class SignalSource(_NamedIntEnum):
    """Where a signal came from. Hard signals (compiler, tests, safety) may disprove."""

    UNKNOWN = 0
    HARD = 1
    SOFT = 2
    SAFETY = 3

    def is_hard(self) -> bool:
        """Hard and safety signals are authoritative."""
        return self in (SignalSource.HARD, SignalSource.SAFETY)

    def is_safety(self) -> bool:
        return self is SignalSource.SAFETY

    def is_valid(self) -> bool:
        return self in (SignalSource.HARD, SignalSource.SOFT, SignalSource.SAFETY)


class ConstraintType(_NamedIntEnum):
    UNKNOWN = 0
    MUTUAL_EXCLUSION = 1
    IMPLICATION = 2
    ORDERING = 3
    RESOURCE = 4


class ProofUpdateType(_NamedIntEnum):
    UNKNOWN = 0
    INCREMENT = 1
    DECREMENT = 2
    DISPROVEN = 3
    PROVEN = 4
    RESET = 5

    def is_valid(self) -> bool:
        """Every member but `UNKNOWN` names a real update."""
        return self is not ProofUpdateType.UNKNOWN


# ---------------------------------------------------------------- string enums


class _ValidatedStrEnum(enum.StrEnum):
    """String enum with Go's `IsValid` (true for members) and a check for arbitrary input."""

    def is_valid(self) -> bool:
        """Always true for a member; use `is_valid_value(x)` to check arbitrary input."""
        return self in type(self).__members__.values()

    @classmethod
    def is_valid_value(cls, value: object) -> bool:
        """Whether `value` is one of this enum's values."""
        return value in cls._value2member_map_


class Actor(_ValidatedStrEnum):
    """Who made a decision."""

    ROUTER = "router"
    MAIN_AGENT = "main_agent"
    SYSTEM = "system"


class Decision(_ValidatedStrEnum):
    SELECT_TOOL = "select_tool"
    EXECUTE_TOOL = "execute_tool"
    SYNTHESIZE = "synthesize"
    CIRCUIT_BREAKER = "circuit_breaker"
    RETRY = "retry"
    COMPLETE = "complete"
    ERROR = "error"


class Outcome(_ValidatedStrEnum):
    SUCCESS = "success"
    FAILURE = "failure"
    SKIPPED = "skipped"
    FORCED = "forced"


class ErrorCategory(enum.StrEnum):
    """Why a step failed. `NONE` (the empty string) prints as `none`."""

    NONE = ""
    TOOL_NOT_FOUND = "tool_not_found"
    INVALID_PARAMS = "invalid_params"
    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    PERMISSION = "permission"
    NETWORK = "network"
    INTERNAL = "internal"
    SAFETY = "safety"

    def __str__(self) -> str:
        return self.value or "none"

    def is_retryable(self) -> bool:
        """Transient failures that a retry may fix."""
        return self in (ErrorCategory.TIMEOUT, ErrorCategory.RATE_LIMITED, ErrorCategory.NETWORK)


class FailureType(_ValidatedStrEnum):
    TOOL_ERROR = "tool_error"
    CYCLE_DETECTED = "cycle_detected"
    CIRCUIT_BREAKER = "circuit_breaker"
    TIMEOUT = "timeout"
    INVALID_OUTPUT = "invalid_output"
    SAFETY = "safety"
    SEMANTIC_REPETITION = "semantic_repetition"
    BATCH_FILTERED = "batch_filtered"
    RESOLUTION_DEMOTION = "resolution_demotion"


class ClauseScope(enum.StrEnum):
    """How long a learned clause lives: the session, 7 days (project) or 30 days (global)."""

    SESSION = "session"
    PROJECT = "project"
    GLOBAL = "global"


_ACTORS = frozenset(a.value for a in Actor)
_DECISIONS = frozenset(d.value for d in Decision)
_OUTCOMES = frozenset(o.value for o in Outcome)

# ---------------------------------------------------------------- dict forms


def _to_json(value: Any) -> Any:
    if isinstance(value, _Record):
        return value.to_dict()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [_to_json(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _to_json(v) for k, v in value.items()}
    return value


def _from_json(tp: Any, value: Any) -> Any:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return None
        # Try each member in order: `Actor | str` keeps unknown strings for validate().
        for arg in typing.get_args(tp):
            if arg is type(None):
                continue
            try:
                return _from_json(arg, value)
            except (ValueError, TypeError):
                continue
        return value
    if origin in (list, tuple):
        (item,) = typing.get_args(tp)[:1]
        seq = [_from_json(item, v) for v in value]
        return tuple(seq) if origin is tuple else seq
    if origin is dict or origin is Mapping:
        _, vt = typing.get_args(tp)
        return {k: _from_json(vt, v) for k, v in value.items()}
    if isinstance(tp, type) and issubclass(tp, _Record):
        return tp.from_dict(value)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp(value)
    return value


class _Record:
    """Mixin: lossless JSON-safe dict form of a dataclass record."""

    _hints: ClassVar[dict[str, Any]]
    _defining_module: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Remember where the class was defined: `crs/__init__.py` later sets `__module__`
        # to "crs", but string annotations must resolve in the defining module.
        cls._defining_module = cls.__module__

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with every field (enums as their values)."""
        return {
            f.name: _to_json(getattr(self, f.name))
            for f in dataclasses.fields(self)  # type: ignore[arg-type]
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Inverse of `to_dict`; missing keys take the zero value."""
        hints = cls.__dict__.get("_hints")
        if hints is None:
            module = sys.modules[cls._defining_module]
            # Base-class annotations (`_hints: ClassVar[...]`) resolve in this module, the
            # record's own in its defining module (records are also defined elsewhere).
            try:
                hints = typing.get_type_hints(cls, globalns={**globals(), **vars(module)})
            except NameError:
                if not _define_deferred():  # annotations may name a deferred record
                    raise
                hints = typing.get_type_hints(cls, globalns={**globals(), **vars(module)})
            cls._hints = hints
        kwargs = {
            f.name: _from_json(hints[f.name], data[f.name])
            for f in dataclasses.fields(cls)  # type: ignore[arg-type]
            if f.name in data
        }
        return cls(**kwargs)


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise InvalidArgumentError(message)


# ---------------------------------------------------------------- records


@dataclasses.dataclass(frozen=True, slots=True)
class ProofNumber(_Record):
    """Proof-number-search costs of a node. `proof` = cost to prove (MAX = disproven)."""

    proof: Annotated[int, U64] = 0
    disproof: Annotated[int, U64] = 0
    status: ProofStatus = ProofStatus.UNKNOWN
    source: SignalSource = SignalSource.UNKNOWN
    updated_at: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class ProofUpdate(_Record):
    """A request to change one node's proof number (`CRS.update_proof_number`)."""

    node_id: str = ""
    type: ProofUpdateType = ProofUpdateType.UNKNOWN
    delta: Annotated[int, U64] = 0
    reason: str = ""
    source: SignalSource = SignalSource.UNKNOWN
    status: str = ""

    def validate(self, prefix: str = "") -> None:
        """Raise `InvalidArgumentError` naming the first invalid field."""
        check(self, prefix)
        _require(bool(self.node_id), "node_id: must be a non-empty string")
        _require(
            self.type in (1, 2, 3, 4, 5),
            f"type: must be a ProofUpdateType (increment, decrement, disproven, proven, reset), "
            f"got {ProofUpdateType.describe(int(self.type))}",
        )
        _require(
            SignalSource.is_valid(SignalSource(self.source))
            if self.source in (0, 1, 2, 3)
            else False,
            "source: must be SignalSource.HARD, SOFT or SAFETY",
        )
        if self.type in (ProofUpdateType.INCREMENT, ProofUpdateType.DECREMENT):
            _require(
                isinstance(self.delta, int) and 0 < self.delta <= PROOF_NUMBER_INFINITE,
                "delta: increment and decrement need a delta between 1 and 2**64-1",
            )


@dataclasses.dataclass(frozen=True, slots=True)
class ToolParams(_Record):
    """Parameters of a tool call, kept small and typed."""

    target: str = ""
    query: str = ""
    depth: int = 0
    limit: int = 0
    flags: tuple[str, ...] = ()
    extra: tuple[KeyValue, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class StepRecord(_Record):
    """One step of an agent session: who decided what, with which tool, and how it ended."""

    step_number: int = 0
    timestamp: int = 0
    session_id: str = ""
    actor: Actor | str = ""
    model: str = ""
    decision: Decision | str = ""
    tool: str = ""
    tool_params: ToolParams | None = None
    confidence: float = 0.0
    reasoning: str = ""
    outcome: Outcome | str = ""
    error_message: str = ""
    error_category: ErrorCategory = ErrorCategory.NONE
    duration_ms: int = 0
    result_summary: str = ""
    tokens_used: int = 0
    propagate: bool = False
    terminal: bool = False
    next_hint: str = ""
    proof_updates: tuple[ProofUpdate, ...] = ()
    constraints_added: tuple[ConstraintUpdate, ...] = ()
    dependencies_found: tuple[DependencyEdge, ...] = ()

    def validate(self) -> None:
        """Raise `InvalidArgumentError` naming the first invalid field: every field's type
        (`crs._check`), then Go's rules in Go's order."""
        check(self)
        self.validate_rules()

    def validate_rules(self) -> None:
        """Go's rules, in Go's order, for a step whose field types `check` accepted."""
        # Messages are built only on failure: this runs on every recorded step.
        _require(bool(self.session_id), "session_id: must be a non-empty string")
        _require(self.step_number >= 1, "step_number: must be >= 1")
        if not isinstance(self.actor, str) or self.actor not in _ACTORS:
            raise InvalidArgumentError(
                f"actor: must be one of {', '.join(a.value for a in Actor)}"
                f", got {brief(self.actor)}"
            )
        if not isinstance(self.decision, str) or self.decision not in _DECISIONS:
            raise InvalidArgumentError(
                f"decision: must be one of {', '.join(d.value for d in Decision)}, "
                f"got {brief(self.decision)}"
            )
        if not isinstance(self.outcome, str) or self.outcome not in _OUTCOMES:
            raise InvalidArgumentError(
                f"outcome: must be one of {', '.join(o.value for o in Outcome)}, "
                f"got {brief(self.outcome)}"
            )
        if self.outcome == Outcome.FAILURE:
            _require(
                self.error_category != ErrorCategory.NONE,
                "error_category: a failed step needs an ErrorCategory (e.g. INTERNAL)",
            )
        _require(
            isinstance(self.confidence, int | float)
            and not math.isnan(self.confidence)
            and 0.0 <= self.confidence <= 1.0,
            "confidence: must be between 0.0 and 1.0",
        )
        _require(self.duration_ms >= 0, "duration_ms: must be >= 0")

    def is_tool_execution(self) -> bool:
        return self.decision == Decision.EXECUTE_TOOL

    def is_terminal(self) -> bool:
        return self.terminal or self.decision in (Decision.COMPLETE, Decision.SYNTHESIZE)

    def is_circuit_breaker_intervention(self) -> bool:
        return self.decision == Decision.CIRCUIT_BREAKER


@dataclasses.dataclass(frozen=True, slots=True)
class Constraint(_Record):
    id: str = ""
    type: ConstraintType = ConstraintType.UNKNOWN
    nodes: tuple[str, ...] = ()
    expression: str = ""
    active: bool = False
    source: SignalSource = SignalSource.UNKNOWN
    created_at: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class HistoryEntry(_Record):
    id: str = ""
    node_id: str = ""
    action: str = ""
    result: str = ""
    source: SignalSource = SignalSource.UNKNOWN
    timestamp: int = 0
    metadata: dict[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class SimilarityMatch(_Record):
    node_id: str = ""
    distance: float = 0.0


@dataclasses.dataclass(frozen=True, slots=True)
class CircuitBreakerResult(_Record):
    """Whether the circuit breaker fires for a tool in a session, and why."""

    should_fire: bool = False
    reason: str = ""
    proof_number: int = 0
    status: ProofStatus = ProofStatus.UNKNOWN


@dataclasses.dataclass(frozen=True, slots=True)
class Config(_Record):
    """CRS configuration. `DefaultConfig()` gives the defaults.

    Attributes:
        max_generation: Accepted for compatibility with the Go package only (validated >= 0,
            otherwise ignored): the generation never wraps and never goes back (spec §5.2).
        snapshot_epoch_limit: How many generations old a `base` snapshot passed to `apply`
            may be (0 = no limit).
        enable_metrics: Record apply and snapshot durations for `CRS.metrics()` (a running
            count, total and maximum; a few tens of nanoseconds per call).
        enable_tracing: Accepted for compatibility (the seed's default, true, is kept by
            `DefaultConfig()`); the CRS itself does not read it: tracing is
            `crs.integrations.otel`'s job.
        circuit_breaker_thresholds: Failures per tool before the circuit breaker fires
            (kept as a read-only copy).
        sanitize_secrets: Redact secrets (`SecretSanitizer`) from what the state records, on
            the way in: step text (reasoning, results, errors, tool parameters) and history
            entries (action, result, metadata), so the journal, backups, exports and replicas
            never hold them. On by default; False records everything verbatim.
    """

    max_generation: int = 0
    snapshot_epoch_limit: int = 0
    enable_metrics: bool = False
    enable_tracing: bool = False
    circuit_breaker_thresholds: Mapping[str, int] = dataclasses.field(default_factory=dict)
    sanitize_secrets: bool = True

    def __post_init__(self) -> None:
        # A read-only copy: the caller mutating its dict later must not change the breaker.
        thresholds = self.circuit_breaker_thresholds
        if isinstance(thresholds, Mapping) and not isinstance(thresholds, types.MappingProxyType):
            object.__setattr__(
                self, "circuit_breaker_thresholds", types.MappingProxyType(dict(thresholds))
            )

    def validate(self) -> None:
        """Raise `InvalidArgumentError` naming the first invalid field."""
        check(self)
        _require(self.max_generation >= 0, "max_generation: must be >= 0 (0 = unlimited)")
        _require(self.snapshot_epoch_limit >= 0, "snapshot_epoch_limit: must be >= 0")
        for tool, n in self.circuit_breaker_thresholds.items():
            _require(
                bool(tool) and isinstance(n, int) and n > 0,
                f"circuit_breaker_thresholds[{brief(tool)}]: must be a positive int, "
                f"got {brief(n)}",
            )


def DefaultConfig() -> Config:  # the seed's name (spec README §2)
    """The default configuration: epoch limit 1000, metrics and tracing on, default per-tool
    thresholds (the seed's `Config` defaults)."""
    return Config(
        max_generation=0,
        snapshot_epoch_limit=DEFAULT_SNAPSHOT_EPOCH_LIMIT,
        enable_metrics=True,
        enable_tracing=True,
        circuit_breaker_thresholds=dict(DEFAULT_CIRCUIT_BREAKER_THRESHOLDS),
    )


# ---------------------------------------------------------------- deferred records

# Four records no Claude Code hook, guard or engine start-up builds or imports by name are
# defined in `crs._types._deferred`, on first use: a dataclass costs ~1 ms to define, and a
# cold hook pays for every one it defines (docs/hook-server.md, "The cold path"). Type
# checkers see them here; at run time `crs._types.KeyValue` (and `from crs._types import
# KeyValue`) defines them on first access, as does resolving any annotation naming them.
_DEFERRED = ("ConstraintUpdate", "DependencyEdge", "KeyValue", "NodeFrequency")

if typing.TYPE_CHECKING:
    from crs._types._deferred import ConstraintUpdate as ConstraintUpdate
    from crs._types._deferred import DependencyEdge as DependencyEdge
    from crs._types._deferred import KeyValue as KeyValue
    from crs._types._deferred import NodeFrequency as NodeFrequency


def _define_deferred() -> bool:
    """Define the deferred records into this module's globals, which resolving a string
    annotation here reads; False when they already were (idempotent)."""
    if "KeyValue" in globals():
        return False
    # inside: the point of the module (its records are defined on first use)
    from crs._types import _deferred

    for name in _DEFERRED:
        globals()[name] = getattr(_deferred, name)
    return True


if not typing.TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        if name in _DEFERRED:
            _define_deferred()
            return globals()[name]
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
