"""`CRS` as an `Evaluable`: real invariant checks, measured durations, bounded-index health.

`Evaluation` is a part of the `CRS` facade holding the state kernel; the facade's
`properties`, `metrics` and `health_check` call in here. The properties run on a scratch CRS
restored from an O(1) checkpoint of the live one (the versions are shared), so checking them
never changes the live state, its generation or its journal, and also checks that a change
to a copy never shows through a live snapshot.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crs._errors import DeltaHistoryClosedError
from crs._evaluable import (
    HealthCheck,
    HealthState,
    HealthStatus,
    Metric,
    MetricKind,
    PropertyResult,
    bound_check,
)
from crs._state._deltas import ProofDelta
from crs._types import ProofNumber, SignalSource

if TYPE_CHECKING:
    from crs._crs import CRS
    from crs._kernel import StateKernel
    from crs._reasoning._guards import Guards

_PROBE = "crs.eval/probe"  # node id the scratch checks write


def _timer(name: str, description: str, stats: list[float] | None) -> Metric:
    count, total, maximum = stats if stats is not None else (0, 0.0, 0.0)
    mean = total / count if count else 0.0
    return Metric(name, MetricKind.TIMER, description, "s", mean, int(count), total, maximum)


class Evaluation:
    """`name`, `properties`, `metrics` and `health_check` of a `CRS` (the seed's
    `eval.Evaluable`).

    Args:
        kernel: The CRS's state kernel.
        guards: Its guards (their stores are health-checked).
        host: The CRS (its `snapshot` and `checkpoint` are what the properties check).
        scratch: Makes the empty CRS the properties change instead of the live one.
    """

    def __init__(
        self, kernel: StateKernel, guards: Guards, host: CRS, scratch: Callable[[], CRS]
    ) -> None:
        self._k = kernel
        self._guards = guards
        self._host = host
        self._scratch = scratch
        self._seen_gen = 0  # highest generation an earlier properties() call saw

    # ---------------------------------------------------------------- properties

    def properties(self) -> list[PropertyResult]:
        """Check snapshot_immutability, delta_idempotence and generation_monotonic now.

        The changes they need are made on a scratch copy of the current state (O(1) to
        make), never on this CRS; works after `close()` too. Costs O(proof entries + guard
        state): the proof index is compared whole, so call it from tests and health
        endpoints, not from the hot loop.
        """
        live = self._host.snapshot()
        live_proof = live.proof_index().all()
        cp = self._host.checkpoint()
        scratch = self._scratch()
        try:
            scratch.restore(cp)
            base = scratch.snapshot()
            before = base.proof_index().all()
            old = next(iter(before.items()), None)
            probe = ProofNumber(proof=1, disproof=1, source=SignalSource.HARD, updated_at=1)
            updates = {_PROBE: probe}
            if old is not None:  # also rewrite a node the live state shares
                updates[old[0]] = ProofNumber(
                    old[1].proof,
                    old[1].disproof,
                    old[1].status,
                    old[1].source,
                    old[1].updated_at + 1,
                )
            delta = ProofDelta(SignalSource.HARD, updates)
            gens = [scratch.generation()]
            scratch.apply(delta)
            gens.append(scratch.generation())
            once = scratch.snapshot().proof_index().all()
            scratch.apply(delta)
            gens.append(scratch.generation())
            twice = scratch.snapshot().proof_index().all()
            after_base = base.proof_index().all()
            after_live = live.proof_index().all()
        finally:
            scratch.close()
        return [
            self._immutability(base, before, after_base, live_proof, after_live, once),
            PropertyResult(
                "delta_idempotence",
                "applying the same ProofDelta twice leaves the same content as once",
                once == twice and all(once.get(k) == v for k, v in updates.items()),
                f"{len(updates)} node(s) written twice; content equal: {once == twice}",
            ),
            self._monotonic(gens),
        ]

    @staticmethod
    def _immutability(
        base: Any,
        before: dict[str, Any],
        after_base: dict[str, Any],
        live_proof: dict[str, Any],
        after_live: dict[str, Any],
        changed: dict[str, Any],
    ) -> PropertyResult:
        ok = after_base == before and after_live == live_proof and changed != before
        return PropertyResult(
            "snapshot_immutability",
            "a snapshot taken before a change is unchanged after it",
            ok,
            f"snapshot of {len(before)} proof entries unchanged: {after_base == before}; "
            f"live snapshot unchanged by a copy's change: {after_live == live_proof}",
        )

    def _monotonic(self, scratch_gens: list[int]) -> PropertyResult:
        problems = []
        if not (scratch_gens[0] >= 1 and scratch_gens[1:] == [g + 1 for g in scratch_gens[:-1]]):
            problems.append(f"a restore and two applies gave generations {scratch_gens}")
        gen = self._k.gen
        if gen < self._seen_gen:
            problems.append(f"generation {gen} is below {self._seen_gen}, seen earlier")
        self._seen_gen = max(self._seen_gen, gen)
        try:
            recorded = [e[1] for e in self._k.history._snapshot()]
        except DeltaHistoryClosedError:
            recorded = []
        if any(b <= a for a, b in itertools.pairwise(recorded)):
            problems.append("the delta history's generations are not increasing")
        if recorded and recorded[-1] > gen:
            problems.append(f"the delta history holds generation {recorded[-1]} > {gen}")
        return PropertyResult(
            "generation_monotonic",
            "every committed change adds one to the generation; it never goes back",
            not problems,
            "; ".join(problems) or f"generation {gen}; {len(recorded)} recorded deltas in order",
        )

    # ---------------------------------------------------------------- metrics

    def metrics(self) -> list[Metric]:
        """crs_generation, and (with `Config.enable_metrics`; otherwise zeros)
        crs_apply_duration and crs_snapshot_duration: count, total, max and mean seconds
        of every apply (validation to commit) and snapshot since the CRS was made."""
        k = self._k
        with k.lock:
            apply_stats = list(k.apply_stats) if k.apply_stats is not None else None
            snap_stats = list(k.snap_stats) if k.snap_stats is not None else None
            gen = k.gen
        return [
            _timer("crs_snapshot_duration", "time to take a snapshot", snap_stats),
            _timer("crs_apply_duration", "time to validate and commit a delta", apply_stats),
            Metric("crs_generation", MetricKind.COUNTER, "the state's version", "", float(gen)),
        ]

    # ---------------------------------------------------------------- health

    def health_check(self) -> HealthStatus:
        """Bounded indexes against their caps (DEGRADED at a cap: the oldest are evicted),
        index connectivity (the dependency edges agree both ways, no cycle), the journal
        (UNHEALTHY when unavailable, DEGRADED when in memory) and the lifecycle (DEGRADED
        once closed: changes are refused)."""
        k = self._k
        with k.lock:
            core = k.current()[0]
            steps = self._guards.steps
            clauses = self._guards.clauses
            per_session = max((len(steps.history(s)) for s in steps.sessions()), default=0)
            checks = (
                bound_check("similarity_pairs", core.sim_len(), k.caps[0], "similarity pairs"),
                bound_check("history", core.history_len(), k.caps[1], "history entries"),
                bound_check(
                    "steps_per_session",
                    per_session,
                    steps.max_steps,
                    "steps in the largest session",
                ),
                bound_check("sessions", len(steps.sessions()), steps.max_sessions, "sessions"),
                bound_check(
                    "clauses",
                    len(clauses),
                    clauses.config.max_clauses,
                    "learned clauses",
                ),
                bound_check(
                    "delta_history",
                    k.history.size() if not k.closed else 0,
                    k.history._max,
                    "delta records",
                ),
                _connectivity_check(core, k.graph_index is not None),
                self._journal_check(),
                HealthCheck("lifecycle", HealthState.DEGRADED, "closed: changes are refused")
                if k.closed
                else HealthCheck("lifecycle", HealthState.HEALTHY, "open"),
            )
        return HealthStatus.of(checks)

    def _journal_check(self) -> HealthCheck:
        j = self._k.journal
        if j is None:
            return HealthCheck(
                "journal", HealthState.HEALTHY, "no journal (changes are not durable)"
            )
        available = getattr(j, "is_available", None)
        if callable(available) and not available():
            degraded = getattr(j, "is_degraded", None)
            if not (callable(degraded) and degraded()):
                return HealthCheck("journal", HealthState.UNHEALTHY, "journal unavailable (closed)")
        degraded = getattr(j, "is_degraded", None)
        if callable(degraded) and degraded():
            return HealthCheck(
                "journal", HealthState.DEGRADED, "journal degraded: in memory, not durable"
            )
        return HealthCheck("journal", HealthState.HEALTHY, "journal available")


def _connectivity_check(core: Any, graph_backed: bool) -> HealthCheck:
    """The seed's "index connectivity" health check: every dependency edge is seen from both
    ends (DependsOn and DependedBy agree) and the graph has no cycle (dependency deltas that
    would close one are refused, so a cycle means a damaged index). O(edges)."""
    if graph_backed:
        return HealthCheck(
            "index_connectivity", HealthState.HEALTHY, "dependencies come from the code graph"
        )
    edges = core.dep_edges()
    succ: dict[str, list[str]] = {}
    indegree: dict[str, int] = {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
        indegree[b] = indegree.get(b, 0) + 1
        indegree.setdefault(a, 0)
        if a not in core.depended_by(b):
            return HealthCheck(
                "index_connectivity",
                HealthState.UNHEALTHY,
                f"edge {a} -> {b} is missing from {b}'s dependents",
            )
    ready = [n for n, d in indegree.items() if d == 0]
    seen = 0
    while ready:
        n = ready.pop()
        seen += 1
        for m in succ.get(n, ()):
            indegree[m] -= 1
            if indegree[m] == 0:
                ready.append(m)
    if seen != len(indegree):
        return HealthCheck(
            "index_connectivity",
            HealthState.UNHEALTHY,
            f"the dependency graph has a cycle among {len(indegree) - seen} nodes",
        )
    return HealthCheck(
        "index_connectivity",
        HealthState.HEALTHY,
        f"{len(edges)} dependency edges, both directions agree, no cycle",
    )
