"""Immutable snapshots of the reasoning state, their six index views and the query API.

A `Snapshot` holds one version of the Rust state (a persistent structure), so taking one
is O(1) and it never changes afterwards, whatever is applied later.
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from crs import _core
from crs._check import brief
from crs._errors import (
    DeltaTargetNotFoundError,
    DeltaValidationError,
    InvalidArgumentError,
)
from crs._state._analytics import AnalyticsQueryType, AnalyticsRecord, _last_of
from crs._types import (
    Constraint,
    ConstraintType,
    HistoryEntry,
    NodeFrequency,
    ProofNumber,
    ProofStatus,
    SignalSource,
    SimilarityMatch,
    _Record,
    is_encodable,
)

if TYPE_CHECKING:
    from crs._state._graph import GraphBackedDependencyIndex, GraphQuery


def _pn(t: tuple[int, int, int, int, int]) -> ProofNumber:
    return ProofNumber(
        proof=t[0],
        disproof=t[1],
        status=ProofStatus(t[2]),
        source=SignalSource(t[3]),
        updated_at=t[4],
    )


def _constraint(r: tuple[Any, ...]) -> Constraint:
    return Constraint(
        id=r[0],
        type=ConstraintType(r[1]),
        nodes=tuple(r[2]),
        expression=r[3],
        active=r[4],
        source=SignalSource(r[5]),
        created_at=r[6],
    )


def _history(r: tuple[Any, ...]) -> HistoryEntry:
    return HistoryEntry(
        id=r[0],
        node_id=r[1],
        action=r[2],
        result=r[3],
        source=SignalSource(r[4]),
        timestamp=r[5],
        metadata=dict(r[6]),
    )


def _str(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidArgumentError(f"{name}: must be a str, got {brief(value)}")
    if not is_encodable(value):
        raise InvalidArgumentError(
            f"{name}: must be valid Unicode text (no lone surrogates), got {brief(value)}"
        )
    return value


# Limits past this are "no limit" in practice; clamping keeps them within the core's usize.
_MAX_COUNT = 2**63 - 1


def _int(name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidArgumentError(f"{name}: must be an int, got {brief(value)}")
    return value


def _raise_apply(err: ValueError) -> None:
    msg = str(err)
    if msg.startswith("not_found: "):
        raise DeltaTargetNotFoundError(msg[len("not_found: ") :]) from None
    if msg.startswith("invalid: "):
        raise DeltaValidationError(msg[len("invalid: ") :]) from None
    raise InvalidArgumentError(f"delta: content the state cannot take ({msg})") from None


@dataclasses.dataclass(frozen=True, slots=True)
class SimilarityPairData(_Record):
    """One similarity pair (from_id < to_id) and its distance."""

    from_id: str = ""
    to_id: str = ""
    similarity: float = 0.0


class PairsResult(NamedTuple):
    """Result of `SimilarityIndexView.all_pairs_filtered`."""

    pairs: list[SimilarityPairData]
    truncated: bool


class ProofIndexView:
    """Read-only proof numbers of a snapshot."""

    __slots__ = ("_c",)

    def __init__(self, core: _core.StateCore) -> None:
        self._c = core

    def get(self, node_id: str) -> ProofNumber | None:
        t = self._c.proof_get(_str("node_id", node_id))
        return None if t is None else _pn(t)

    def all(self) -> dict[str, ProofNumber]:
        return {r[0]: _pn(r[1:]) for r in self._c.proof_all()}

    def size(self) -> int:
        return self._c.proof_len()


class _NoClauses:
    def get_clause(self, clause_id: str) -> Any:
        return None

    def all_clauses(self) -> dict[str, Any]:
        return {}

    def clause_count(self) -> int:
        return 0

    def check_assignment(self, assignment: Mapping[str, bool]) -> Any:
        return None


class ConstraintIndexView:
    """Read-only constraints and learned clauses of a snapshot."""

    __slots__ = ("_c", "_clauses")

    def __init__(self, core: _core.StateCore, clauses: Any = None) -> None:
        self._c = core
        self._clauses = clauses if clauses is not None else _NoClauses()

    def get(self, constraint_id: str) -> Constraint | None:
        r = self._c.constraint_get(_str("constraint_id", constraint_id))
        return None if r is None else _constraint(r)

    def find_by_type(self, constraint_type: ConstraintType) -> list[Constraint]:
        t = _int("constraint_type", constraint_type)
        return [_constraint(r) for r in self._c.constraint_all() if r[1] == t]

    def find_by_node(self, node_id: str) -> list[Constraint]:
        n = _str("node_id", node_id)
        return [_constraint(r) for r in self._c.constraint_all() if n in r[2]]

    def all(self) -> dict[str, Constraint]:
        return {r[0]: _constraint(r) for r in self._c.constraint_all()}

    def size(self) -> int:
        return self._c.constraint_len()

    def get_clause(self, clause_id: str) -> Any:
        return self._clauses.get_clause(_str("clause_id", clause_id))

    def all_clauses(self) -> dict[str, Any]:
        return dict(self._clauses.all_clauses())

    def clause_count(self) -> int:
        return int(self._clauses.clause_count())

    def check_assignment(self, assignment: Mapping[str, bool]) -> Any:
        """The first learned clause `assignment` violates (see the guards' ClauseCheckResult)."""
        if not isinstance(assignment, Mapping):
            raise InvalidArgumentError(
                f"assignment: must be a dict[str, bool], got {brief(assignment)}"
            )
        return self._clauses.check_assignment(assignment)


class SimilarityIndexView:
    """Read-only similarity distances (0 = identical) of a snapshot."""

    __slots__ = ("_c",)

    def __init__(self, core: _core.StateCore) -> None:
        self._c = core

    def distance(self, node1: str, node2: str) -> float | None:
        return self._c.sim_distance(_str("node1", node1), _str("node2", node2))

    def nearest_neighbors(self, node_id: str, k: int) -> list[SimilarityMatch]:
        """Up to `k` nearest nodes, nearest first (ties by id); k <= 0 gives []."""
        if _int("k", k) <= 0:
            return []
        rows = self._c.sim_neighbors(_str("node_id", node_id))[:k]
        return [SimilarityMatch(node_id=n, distance=d) for n, d in rows]

    def size(self) -> int:
        return self._c.sim_len()

    def evicted(self) -> int:
        """Pairs evicted (oldest first) to keep the index within its cap."""
        return self._c.sim_evicted()

    def all_pairs(self) -> dict[str, dict[str, float]]:
        """Every pair once, canonically: {min_id: {max_id: distance}}."""
        out: dict[str, dict[str, float]] = {}
        for a, b, d in self._c.sim_pairs(None)[0]:
            out.setdefault(a, {})[b] = d
        return out

    def all_pairs_filtered(self, max_pairs: int) -> PairsResult:
        """Pairs with from_id < to_id, oldest first; `max_pairs` <= 0 means no limit."""
        limit = _int("max_pairs", max_pairs)
        rows, truncated = self._c.sim_pairs(min(limit, _MAX_COUNT) if limit > 0 else None)
        return PairsResult([SimilarityPairData(a, b, d) for a, b, d in rows], truncated)


class DependencyIndexView:
    """Read-only dependency edges of a snapshot (`from` depends on `to`)."""

    __slots__ = ("_c",)

    def __init__(self, core: _core.StateCore) -> None:
        self._c = core

    def depends_on(self, node_id: str) -> list[str]:
        return self._c.depends_on(_str("node_id", node_id))

    def depended_by(self, node_id: str) -> list[str]:
        return self._c.depended_by(_str("node_id", node_id))

    def has_cycle(self, node_id: str) -> bool:
        return self._c.has_cycle(_str("node_id", node_id))

    def size(self) -> int:
        return self._c.dep_len()

    def all_edges(self) -> dict[str, list[str]] | None:
        out: dict[str, list[str]] = {}
        for f, t in self._c.dep_edges():
            out.setdefault(f, []).append(t)
        return out

    def is_graph_backed(self) -> bool:
        return False


class HistoryIndexView:
    """Read-only decision history of a snapshot (oldest first)."""

    __slots__ = ("_c",)

    def __init__(self, core: _core.StateCore) -> None:
        self._c = core

    def trace(self, node_id: str) -> list[HistoryEntry]:
        return [_history(r) for r in self._c.history_trace(_str("node_id", node_id))]

    def recent(self, n: int) -> list[HistoryEntry]:
        if _int("n", n) <= 0:
            return []
        return [_history(r) for r in self._c.history_recent(min(n, _MAX_COUNT))]

    def size(self) -> int:
        return self._c.history_len()

    def evicted(self) -> int:
        """Entries evicted (oldest first) to keep the index within its cap."""
        return self._c.history_evicted()


class StreamingIndexView:
    """Read-only streaming sketch: Count-Min frequencies and HyperLogLog cardinality."""

    __slots__ = ("_c",)

    def __init__(self, core: _core.StateCore) -> None:
        self._c = core

    def estimate(self, item: str) -> int:
        """Frequency estimate of `item`; never below the true count."""
        return self._c.estimate(_str("item", item))

    def cardinality(self) -> int:
        return self._c.cardinality()

    def size(self) -> int:
        """Memory held by the sketch, in bytes (bounded)."""
        return self._c.streaming_bytes()


@dataclasses.dataclass(frozen=True, slots=True)
class NodeStats(_Record):
    """Everything the indexes know about one node."""

    node_id: str = ""
    has_proof: bool = False
    proof_number: ProofNumber = dataclasses.field(default_factory=ProofNumber)
    constraint_count: int = 0
    constraints: tuple[str, ...] = ()
    similar_node_count: int = 0
    nearest_neighbor: str = ""
    nearest_distance: float = 0.0
    depends_on_count: int = 0
    depended_by_count: int = 0
    has_cycle: bool = False
    history_entry_count: int = 0
    last_action: str = ""
    last_action_time: str = ""
    access_frequency: int = 0


class Snapshot:
    """An immutable view of the CRS at one generation."""

    __slots__ = ("_analytics", "_c", "_clauses", "_created", "_dep", "_gen", "_graph")

    def __init__(
        self,
        core: _core.StateCore,
        generation: int,
        analytics: tuple[AnalyticsRecord, ...] = (),
        graph: GraphQuery | None = None,
        dep_index: GraphBackedDependencyIndex | None = None,
        clauses: Any = None,
    ) -> None:
        self._c = core
        self._gen = generation
        self._created = time.time_ns() // 1_000_000
        self._analytics = analytics
        self._graph = graph
        self._dep = dep_index
        self._clauses = clauses

    def generation(self) -> int:
        return self._gen

    def created_at(self) -> int:
        """When the snapshot was taken (Unix ms)."""
        return self._created

    def proof_index(self) -> ProofIndexView:
        return ProofIndexView(self._c)

    def constraint_index(self) -> ConstraintIndexView:
        return ConstraintIndexView(self._c, self._clauses)

    def similarity_index(self) -> SimilarityIndexView:
        return SimilarityIndexView(self._c)

    def dependency_index(self) -> DependencyIndexView | GraphBackedDependencyIndex:
        return self._dep if self._dep is not None else DependencyIndexView(self._c)

    def history_index(self) -> HistoryIndexView:
        return HistoryIndexView(self._c)

    def streaming_index(self) -> StreamingIndexView:
        return StreamingIndexView(self._c)

    def query(self) -> QueryAPI:
        return QueryAPI(self)

    def graph_query(self) -> GraphQuery | None:
        return self._graph

    def analytics_history(self) -> list[AnalyticsRecord]:
        return list(self._analytics)

    def last_analytics(self, query_type: AnalyticsQueryType | str) -> AnalyticsRecord | None:
        return _last_of(self._analytics, query_type)

    def has_run_analytics(self, query_type: AnalyticsQueryType | str) -> bool:
        return self.last_analytics(query_type) is not None

    def _trial(self, ops: list[tuple[Any, ...]]) -> None:
        try:
            self._c.apply_ops(ops)
        except ValueError as err:
            _raise_apply(err)

    def __repr__(self) -> str:
        return f"<Snapshot generation={self._gen} proof={self._c.proof_len()}>"


class QueryAPI:
    """Queries across the indexes of one snapshot."""

    __slots__ = ("_s",)

    def __init__(self, snapshot: Snapshot) -> None:
        self._s = snapshot

    def _by_status(self, *statuses: int) -> list[str]:
        return sorted(r[0] for r in self._s._c.proof_all() if r[3] in statuses)

    def find_proven_nodes(self) -> list[str]:
        return self._by_status(ProofStatus.PROVEN)

    def find_disproven_nodes(self) -> list[str]:
        return self._by_status(ProofStatus.DISPROVEN)

    def find_unexplored_nodes(self) -> list[str]:
        return self._by_status(ProofStatus.UNKNOWN, ProofStatus.EXPANDED)

    def find_by_proof_range(self, min_proof: int, max_proof: int) -> list[str]:
        """Nodes with min_proof <= proof <= max_proof, by proof then id."""
        lo, hi = _int("min_proof", min_proof), _int("max_proof", max_proof)
        rows = [(r[1], r[0]) for r in self._s._c.proof_all() if lo <= r[1] <= hi]
        return [n for _, n in sorted(rows)]

    def find_constrained_nodes(self, constraint_type: ConstraintType) -> list[str]:
        """Distinct nodes under constraints of this type (UNKNOWN = any type), sorted."""
        t = _int("constraint_type", constraint_type)
        return sorted({n for r in self._s._c.constraint_all() if t == 0 or r[1] == t for n in r[2]})

    def find_violated_constraints(self) -> list[Constraint]:
        """Constraints with a DISPROVEN node, by id."""
        core = self._s._c
        out = []
        for r in core.constraint_all():
            for n in r[2]:
                p = core.proof_get(n)
                if p is not None and p[2] == ProofStatus.DISPROVEN:
                    out.append(_constraint(r))
                    break
        return out

    def find_similar_with_proof_status(
        self, node_id: str, status: ProofStatus, k: int
    ) -> list[SimilarityMatch]:
        """Up to `k` nearest neighbours whose proof status is `status`."""
        st = _int("status", status)
        if _int("k", k) <= 0:
            return []
        core = self._s._c
        out = []
        for n, d in core.sim_neighbors(_str("node_id", node_id)):
            p = core.proof_get(n)
            if p is not None and p[2] == st:
                out.append(SimilarityMatch(node_id=n, distance=d))
                if len(out) == k:
                    break
        return out

    def find_dependency_chain(self, start_node_id: str, end_node_id: str) -> list[str]:
        a, b = _str("start_node_id", start_node_id), _str("end_node_id", end_node_id)
        if self._s._dep is None:
            return self._s._c.dependency_chain(a, b)
        return _bfs_path(self._s._dep.depends_on, a, b)

    def find_affected_by_node(self, node_id: str) -> list[str]:
        n = _str("node_id", node_id)
        if self._s._dep is None:
            return self._s._c.affected_by(n)
        seen: set[str] = set()
        stack = [n]
        while stack:
            for p in self._s._dep.depended_by(stack.pop()):
                if p not in seen:
                    seen.add(p)
                    stack.append(p)
        seen.discard(n)
        return sorted(seen)

    def find_hot_nodes(self, n: int) -> list[NodeFrequency]:
        if _int("n", n) <= 0:
            return []
        return [NodeFrequency(node_id=k, frequency=f) for k, f in self._s._c.hot_nodes(n)]

    def find_recent_decisions(self, n: int, source: SignalSource) -> list[HistoryEntry]:
        """The last `n` entries (oldest first) from `source` (UNKNOWN = any source)."""
        src = _int("source", source)
        if _int("n", n) <= 0:
            return []
        core = self._s._c
        if src == 0:
            return [_history(r) for r in core.history_recent(n)]
        rows = [r for r in core.history_recent(core.history_len()) if r[4] == src]
        return [_history(r) for r in rows[-n:]]

    def node_stats(self, node_id: str) -> NodeStats | None:
        """Every index's facts about `node_id`, or None when no index knows it."""
        n = _str("node_id", node_id)
        s = self._s
        core = s._c
        p = core.proof_get(n)
        cons = [r[0] for r in core.constraint_all() if n in r[2]]
        nbrs = core.sim_neighbors(n)
        dep = s.dependency_index()
        don, dby = dep.depends_on(n), dep.depended_by(n)
        trace = core.history_trace(n)
        freq = core.estimate(n)
        if p is None and not cons and not nbrs and not don and not dby and not trace and not freq:
            return None
        last = trace[-1] if trace else None
        return NodeStats(
            node_id=n,
            has_proof=p is not None,
            proof_number=_pn(p) if p is not None else ProofNumber(),
            constraint_count=len(cons),
            constraints=tuple(cons),
            similar_node_count=len(nbrs),
            nearest_neighbor=nbrs[0][0] if nbrs else "",
            nearest_distance=nbrs[0][1] if nbrs else 0.0,
            depends_on_count=len(don),
            depended_by_count=len(dby),
            has_cycle=dep.has_cycle(n),
            history_entry_count=len(trace),
            last_action=last[2] if last else "",
            last_action_time=(
                time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(last[5] / 1000)) if last else ""
            ),
            access_frequency=freq,
        )


def _bfs_path(step: Any, start: str, end: str) -> list[str]:
    if start == end:
        return [start]
    prev: dict[str, str] = {}
    queue = deque([start])
    seen = {start}
    while queue:
        cur = queue.popleft()
        for nxt in step(cur):
            if nxt in seen:
                continue
            seen.add(nxt)
            prev[nxt] = cur
            if nxt == end:
                path = [end]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return path[::-1]
            queue.append(nxt)
    return []
