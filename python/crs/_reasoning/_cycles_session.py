"""Cycle detection wired to a session: state keys, `check_cycle_on_step`, decision graphs and
post-session analysis with Tarjan's SCC (reference §2, spec §5.7).
"""

from __future__ import annotations

import array
import dataclasses
import hashlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Self

from crs import _core
from crs._check import brief, check, fail, require_instance
from crs._errors import CRSError, InvalidArgumentError
from crs._reasoning._cycle import CycleDetectionResult, CycleDetector
from crs._reasoning._steps import require_id
from crs._types import (
    Actor,
    Decision,
    Outcome,
    StepRecord,
    ToolParams,
    _Record,
    now_ms,
)

if TYPE_CHECKING:
    from crs._crs import CRS

StateKeyFunction = Callable[[StepRecord], str]
"""Maps a step to the state the cycle detector sees."""


def params_hash(params: ToolParams | None) -> str:
    """A canonical 12-hex hash of tool arguments (flag and extra order ignored); "" for None."""
    if params is None:
        return ""
    require_instance(params, ToolParams, "params")
    check(params, "params.")
    d = params.to_dict()
    d["flags"] = sorted(d["flags"])
    d["extra"] = sorted((kv["key"], kv["value"]) for kv in d["extra"])
    blob = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def get_state_key(step: StepRecord, *, with_params: bool = False) -> str:
    """`<decision>:<tool>:<outcome>:<actor>`, plus `:<params hash>` when `with_params`.

    >>> get_state_key(StepRecord(decision=Decision.EXECUTE_TOOL, tool="list_packages",
    ...     outcome=Outcome.SUCCESS, actor=Actor.ROUTER))
    'execute_tool:list_packages:success:router'
    >>> get_state_key(StepRecord())
    ':::'
    """
    _check_step(step, with_params)
    key = f"{step.decision}:{step.tool}:{step.outcome}:{step.actor}"
    return f"{key}:{params_hash(step.tool_params)}" if with_params else key


def get_tool_state_key(step: StepRecord, *, with_params: bool = False) -> str:
    """`<tool>:<outcome>` (`no_tool:<outcome>` without a tool), plus the params hash if asked.

    >>> get_tool_state_key(StepRecord(tool="list_packages", outcome=Outcome.SUCCESS))
    'list_packages:success'
    """
    _check_step(step, with_params)
    key = f"{step.tool or 'no_tool'}:{step.outcome}"
    return f"{key}:{params_hash(step.tool_params)}" if with_params else key


def _check_step(step: object, with_params: object) -> None:
    require_instance(step, StepRecord, "step")
    check(step, "step.")
    require_instance(with_params, bool, "with_params")


def _state_key(key: StateKeyFunction, step: StepRecord) -> str:
    """`key(step)`, which must be a non-empty str; what it raises is named as `key`'s."""
    try:
        state = key(step)
    except CRSError:
        raise
    except Exception as exc:
        raise InvalidArgumentError(
            f"key: the state key function raised {type(exc).__name__}: {brief(str(exc))}"
        ) from exc
    if not isinstance(state, str) or not state:
        fail("key", "a function returning a non-empty str", state)
    return state


def _check_key(key: object) -> None:
    if not callable(key):
        fail("key", "a function StepRecord -> str", key)


def check_cycle_on_step(
    crs: CRS,
    step: StepRecord,
    detector: CycleDetector,
    *,
    key: StateKeyFunction = get_state_key,
) -> CycleDetectionResult:
    """Feed `step`'s state key to `detector`; on a cycle, disprove it and record a breaker step.

    On a detected cycle, in one hard `ProofDelta` (one generation): every state of the cycle
    (`session:<sid>:state:<key>`) and every tool used in the cycle
    (`session:<sid>:tool:<tool>`, the node `check_circuit_breaker` reads) become DISPROVEN.
    Then a `circuit_breaker` step (actor system, outcome forced) is recorded. Failures of
    these two writes are reported in the result's `errors`, not raised.

    Args:
        crs: the CRS holding the session.
        step: the step just recorded (its session is used).
        detector: the session's `CycleDetector`.
        key: state key function (e.g. `functools.partial(get_state_key, with_params=True)`).

    Returns:
        The detector's `CycleDetectionResult` (with `errors` filled on partial failure).
    """
    # Start-up time: the graph and key helpers here do not load the guards (the sanitizer's
    # patterns, ~50 ms) until a CRS is given.
    from crs._reasoning._guards import guards_of

    guards = guards_of(crs)
    require_instance(step, StepRecord, "step")
    check(step, "step.")
    require_instance(detector, CycleDetector, "detector")
    _check_key(key)
    require_id(step.session_id, "step.session_id")
    state = _state_key(key, step)
    guards.note_state_key(step.session_id, state, step.tool)
    result = detector.add_step(state)
    if not result.detected:
        return result
    errors: list[Exception] = list(result.errors)
    tools = guards.tools_of_states(step.session_id, result.cycle)
    try:
        guards.disprove_cycle(step.session_id, list(result.cycle), tools)
    except Exception as exc:  # reported, not raised (reference §2.3 `Errors`)
        errors.append(exc)
    cycle_text = " -> ".join(result.cycle)
    try:
        guards.record_step(
            StepRecord(
                session_id=step.session_id,
                actor=Actor.SYSTEM,
                decision=Decision.CIRCUIT_BREAKER,
                outcome=Outcome.FORCED,
                reasoning=f"cycle of length {len(result.cycle)} detected: [{cycle_text}]",
                propagate=True,
            )
        )
    except Exception as exc:
        errors.append(exc)
    if errors:
        result = dataclasses.replace(result, errors=tuple(errors))
    return result


@dataclasses.dataclass(frozen=True, slots=True)
class DecisionGraph(_Record):
    """States (first-appearance order) and, per state, its successors (duplicates kept)."""

    nodes: tuple[str, ...] = ()
    edges: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)


def build_decision_graph(
    steps: Sequence[StepRecord], *, key: StateKeyFunction = get_state_key
) -> DecisionGraph:
    """Nodes are state keys; an edge joins consecutive steps with different keys.

    >>> g = build_decision_graph([StepRecord(tool=t) for t in "ABAB"])
    >>> g.nodes, g.edges[":A::"]
    ((':A::', ':B::'), (':B::', ':B::'))
    """
    if not isinstance(steps, list | tuple):
        fail("steps", "a list or tuple of StepRecord", steps)
    _check_key(key)
    nodes: dict[str, None] = {}
    edges: dict[str, list[str]] = {}
    prev: str | None = None
    for i, s in enumerate(steps):
        require_instance(s, StepRecord, f"steps[{i}]")
        k = _state_key(key, s)
        nodes.setdefault(k)
        if prev is not None and prev != k:
            edges.setdefault(prev, []).append(k)
        prev = k
    return DecisionGraph(nodes=tuple(nodes), edges={k: tuple(v) for k, v in edges.items()})


@dataclasses.dataclass(frozen=True, slots=True)
class CycleAnalysis(_Record):
    """Post-session cycle analysis (Tarjan SCC over the decision graph).

    `analysis_time` is Unix ms; `analysis_duration` is seconds (`analysis_duration_ns`: the
    seed's JSON tag, integer nanoseconds, also the key of the dict form).
    """

    session_id: str = ""
    total_sccs: int = 0
    cyclic_sccs: tuple[tuple[str, ...], ...] = ()
    largest_scc_size: int = 0
    analysis_time: int = 0
    analysis_duration: float = 0.0

    @property
    def analysis_duration_ns(self) -> int:
        """`analysis_duration` in integer nanoseconds (the seed's `analysis_duration_ns`)."""
        return round(self.analysis_duration * 1e9)

    def to_dict(self) -> dict[str, Any]:
        """The seed's JSON tags; `analysis_duration_ns` in integer nanoseconds."""
        d = _Record.to_dict(self)
        del d["analysis_duration"]
        d["analysis_duration_ns"] = self.analysis_duration_ns
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Inverse of `to_dict` (`analysis_duration` also accepted, in seconds)."""
        d = dict(data)
        if "analysis_duration_ns" in d:
            ns = d.pop("analysis_duration_ns")
            if isinstance(ns, bool) or not isinstance(ns, int) or ns < 0:
                raise InvalidArgumentError(
                    f"analysis_duration_ns: must be an int >= 0, got {brief(ns)}"
                )
            d["analysis_duration"] = ns / 1e9
        return super(CycleAnalysis, cls).from_dict(d)


def strongly_connected_components(graph: DecisionGraph) -> list[list[str]]:
    """Every SCC of `graph` in Tarjan's pop order (iterative Tarjan in Rust)."""
    if not graph.nodes:
        return []
    index = {n: i for i, n in enumerate(graph.nodes)}
    pairs = array.array("I")
    for src, succs in graph.edges.items():
        for dst in succs:
            pairs.append(index[src])
            pairs.append(index[dst])
    if sys.byteorder == "big":
        pairs.byteswap()
    g = _core.Digraph(len(graph.nodes), pairs.tobytes())
    return [[graph.nodes[i] for i in scc] for scc in g.tarjan_scc()]


def _elapsed(started: float) -> float:
    """Seconds since `started`, whole nanoseconds (so the dict form reads back equal)."""
    return round((time.perf_counter() - started) * 1e9) / 1e9


def analyze_session_cycles(
    crs: CRS, session_id: str, *, key: StateKeyFunction = get_state_key
) -> CycleAnalysis:
    """Find every cycle of decisions in a session's step history (all SCCs > 1 node)."""
    # Start-up time: the graph and key helpers here do not load the guards (the sanitizer's
    # patterns, ~50 ms) until a CRS is given.
    from crs._reasoning._guards import guards_of

    guards = guards_of(crs)
    _check_key(key)
    require_id(session_id, "session_id")
    started = time.perf_counter()
    at = now_ms()
    steps = guards.get_step_history(session_id)
    if not steps:
        return CycleAnalysis(
            session_id=session_id,
            analysis_time=at,
            analysis_duration=_elapsed(started),
        )
    sccs = strongly_connected_components(build_decision_graph(steps, key=key))
    cyclic = tuple(tuple(c) for c in sccs if len(c) > 1)
    return CycleAnalysis(
        session_id=session_id,
        total_sccs=len(sccs),
        cyclic_sccs=cyclic,
        largest_scc_size=max((len(c) for c in cyclic), default=0),
        analysis_time=at,
        analysis_duration=_elapsed(started),
    )
