"""CRS as an `Evaluable` (real property checks, measured durations, bounded-index health) and
the CRS lifecycle (after `close()` every change is refused and nothing changes)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.reasoning.test_guards_crs import hard, neg, step
from tests.wiring.test_wiring_crs import journal

import crs
from crs import (
    CRS,
    ErrorCategory,
    FailureEvent,
    FailureType,
    HealthState,
    MetricKind,
    Outcome,
    ProofNumber,
    ProofUpdate,
    SignalSource,
)


def proof(n: int, *, node: str = "n") -> crs.ProofDelta:
    return crs.ProofDelta(SignalSource.HARD, {node: ProofNumber(proof=n, disproof=1)})


def filled() -> CRS:
    c = CRS()
    for i in range(5):
        c.apply(proof(i + 1, node=f"n{i}"))
    c.record_step(step())
    return c


# ---------------------------------------------------------------- Evaluable


def test_crs_is_an_evaluable_and_every_property_passes() -> None:
    c = filled()
    assert isinstance(c, crs.Evaluable)
    assert c.name() == "crs"
    gen, image = c.generation(), c._state_image()
    results = c.properties()
    assert [r.name for r in results] == [
        "snapshot_immutability",
        "delta_idempotence",
        "generation_monotonic",
    ]
    assert all(r.passed for r in results), results
    # The checks ran on a scratch copy: the live CRS did not change.
    assert c.generation() == gen
    assert c._state_image() == image
    assert c.properties() == results  # repeatable on an unchanged state


def test_properties_on_an_empty_crs_and_after_close() -> None:
    c = CRS()
    assert all(r.passed for r in c.properties())
    c.apply(proof(3))
    c.close()
    assert all(r.passed for r in c.properties())


def test_generation_monotonic_fails_when_the_generation_went_back() -> None:
    c = filled()
    assert all(r.passed for r in c.properties())
    c._kernel.gen -= 3  # simulate the bug the property guards against
    by_name = {r.name: r for r in c.properties()}
    assert not by_name["generation_monotonic"].passed
    assert "below" in by_name["generation_monotonic"].detail


def test_metrics_measure_real_applies_and_snapshots() -> None:
    c = CRS()  # DefaultConfig(): enable_metrics=True
    for i in range(20):
        c.apply(proof(i + 1))
    for _ in range(7):
        c.snapshot()
    m = {x.name: x for x in c.metrics()}
    assert set(m) == {"crs_snapshot_duration", "crs_apply_duration", "crs_generation"}
    apply_m = m["crs_apply_duration"]
    assert apply_m.kind is MetricKind.TIMER
    assert apply_m.unit == "s"
    assert apply_m.count == 20
    assert 0 < apply_m.maximum <= apply_m.total < 1.0
    assert apply_m.value == pytest.approx(apply_m.total / 20)
    assert m["crs_snapshot_duration"].count == 7
    assert m["crs_generation"].value == 20.0
    assert m["crs_generation"].kind is MetricKind.COUNTER
    # A failed apply is not a committed one and is not counted.
    with pytest.raises(crs.NilDeltaError):
        c.apply(None)  # type: ignore[arg-type]
    assert {x.name: x for x in c.metrics()}["crs_apply_duration"].count == 20


def test_metrics_off_record_nothing() -> None:
    c = CRS(crs.Config(enable_metrics=False))
    c.apply(proof(1))
    c.snapshot()
    m = {x.name: x for x in c.metrics()}
    assert m["crs_apply_duration"].count == 0
    assert m["crs_snapshot_duration"].count == 0
    assert m["crs_generation"].value == 1.0


def test_health_reports_index_sizes_against_their_caps() -> None:
    c = CRS(max_similarity_pairs=2, max_history_entries=0)
    status = c.health_check()
    assert status.healthy
    assert status.state is HealthState.HEALTHY
    names = [h.name for h in status.checks]
    assert names == [
        "similarity_pairs",
        "history",
        "steps_per_session",
        "sessions",
        "clauses",
        "delta_history",
        "index_connectivity",
        "journal",
        "lifecycle",
    ]
    c.record_similarity("a", "b", 0.1)
    sim = c.health_check().checks[0]
    assert (sim.used, sim.limit, sim.state) == (1, 2, HealthState.HEALTHY)
    c.record_similarity("a", "c", 0.2)
    c.record_similarity("b", "c", 0.3)
    status = c.health_check()
    sim = status.checks[0]
    assert (sim.used, sim.limit, sim.state) == (2, 2, HealthState.DEGRADED)
    assert "evicted" in sim.message
    assert status.state is HealthState.DEGRADED
    assert not status.healthy
    hist = status.checks[1]
    assert hist.limit == 0
    assert hist.state is HealthState.HEALTHY
    for _ in range(3):
        c.record_step(step())
    steps = {h.name: h for h in c.health_check().checks}["steps_per_session"]
    assert steps.used == 3
    assert steps.limit == crs.MAX_STEPS_PER_SESSION
    delta_hist = {h.name: h for h in c.health_check().checks}["delta_history"]
    assert delta_hist.used == c.delta_history().size() == 3  # the three similarity deltas


def test_health_reports_the_journal_and_the_lifecycle(tmp_path: Path) -> None:
    j = journal(tmp_path / "j")
    c = CRS(journal=j)
    assert {h.name: h for h in c.health_check().checks}["journal"].state is HealthState.HEALTHY
    j.close()  # the journal went away under the CRS
    status = c.health_check()
    assert {h.name: h for h in status.checks}["journal"].state is HealthState.UNHEALTHY
    assert status.state is HealthState.UNHEALTHY
    c.close()
    life = {h.name: h for h in c.health_check().checks}["lifecycle"]
    assert life.state is HealthState.DEGRADED
    assert "closed" in life.message


def test_health_reports_a_degraded_journal(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    j = journal(blocker / "j", allow_degraded=True)
    assert j.is_degraded()
    with CRS(journal=j) as c:
        check = {h.name: h for h in c.health_check().checks}["journal"]
        assert check.state is HealthState.DEGRADED
        assert "not durable" in check.message
    j.close()


def test_a_user_component_can_implement_evaluable() -> None:
    class Counter:
        def name(self) -> str:
            return "counter"

        def properties(self) -> list[crs.PropertyResult]:
            return [crs.PropertyResult("non_negative", "count >= 0", True)]

        def metrics(self) -> list[crs.Metric]:
            return [crs.Metric("count", MetricKind.COUNTER, value=1.0)]

        def health_check(self) -> crs.HealthStatus:
            return crs.HealthStatus.of((crs.HealthCheck("ok"),))

    ev: crs.Evaluable = Counter()
    assert isinstance(ev, crs.Evaluable)
    assert ev.health_check().healthy
    assert not isinstance(object(), crs.Evaluable)
    assert crs.HealthStatus.of(()).healthy


def test_enable_metrics_keeps_a_one_entry_apply_cheap() -> None:
    c = CRS()
    delta = proof(1)
    c.apply(delta)
    n = 2000
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            c.apply(delta)
        best = min(best, (time.perf_counter() - t0) / n)
    # Generous bound for a debug build on a shared machine; bench/ measures release figures.
    assert best < 50e-6
    assert {x.name: x for x in c.metrics()}["crs_apply_duration"].count == 1 + 5 * n


# ---------------------------------------------------------------- lifecycle

MUTATIONS: list[tuple[str, Callable[[CRS], Any]]] = [
    ("apply", lambda c: c.apply(proof(9))),
    ("apply", lambda c: c.apply_with_source(proof(9), "src")),
    ("restore", lambda c: c.restore(c.checkpoint())),
    ("set_session_id", lambda c: c.set_session_id("s2")),
    ("set_graph_provider", lambda c: c.set_graph_provider(None)),
    ("record_step", lambda c: c.record_step(step())),
    ("clear_step_history", lambda c: c.clear_step_history("s")),
    (
        "update_proof_number",
        lambda c: c.update_proof_number(
            ProofUpdate(node_id="n0", type=1, delta=1, source=SignalSource.HARD)
        ),
    ),
    ("propagate_disproof", lambda c: c.propagate_disproof("n0")),
    ("set_clause_config", lambda c: c.set_clause_config(c.clause_config)),
    ("add_clause", lambda c: c.add_clause(hard("c2", neg("tool:grep")))),
    ("clause_used", lambda c: c.check_decision_allowed("s", "build")),  # blocked: use recorded
    ("garbage_collect_clauses", lambda c: c.garbage_collect_clauses()),
    (
        "learn_from_failure",
        lambda c: c.learn_from_failure(
            FailureEvent(
                session_id="s",
                failure_type=FailureType.TOOL_ERROR,
                decision_path=(c.get_step_history("s")[0],),
                failed_step=c.get_step_history("s")[0],
                source=SignalSource.HARD,
            )
        ),
    ),
    ("record_similarity", lambda c: c.record_similarity("a", "b", 0.5)),
    ("check_semantic_repetition", lambda c: c.check_semantic_repetition("s", "grep", "q")),
    ("load_image", lambda c: c.load_image(c.export_image())),
    ("replay_journal", lambda c: c.replay_journal()),
]


@pytest.mark.parametrize(
    ("what", "call"), MUTATIONS, ids=[f"{i}-{m[0]}" for i, m in enumerate(MUTATIONS)]
)
def test_every_change_after_close_is_refused_and_changes_nothing(
    tmp_path: Path, what: str, call: Callable[[CRS], Any]
) -> None:
    c = CRS.open(journal(tmp_path / "j"))
    c.apply(proof(1, node="n0"))
    c.record_step(step("grep", Outcome.FAILURE, ErrorCategory.INTERNAL))
    c.add_clause(hard("c1", neg("tool:build")))
    c.close()
    before = observed(c)
    with pytest.raises(crs.CRSClosedError, match=f"^{what}.*closed.*generation {before[0]}"):
        call(c)
    assert observed(c) == before


def test_reads_keep_working_after_close_and_close_is_idempotent(tmp_path: Path) -> None:
    c = filled()
    snap = c.snapshot()
    assert not c.closed
    c.close()
    c.close()
    assert c.closed
    assert c.snapshot().generation() == snap.generation() == c.generation() == 5
    assert c.snapshot().proof_index().all() == snap.proof_index().all()
    assert c.get_step_history("s")
    assert c.check_decision_allowed("s", "grep").allowed  # blocks nothing: a plain read
    assert c.checkpoint().generation == 5
    assert json_ok(c.export_json())
    with pytest.raises(crs.DeltaHistoryClosedError):
        c.delta_history().size()
    assert issubclass(crs.CRSClosedError, crs.CRSError)


def json_ok(data: bytes) -> bool:
    return isinstance(json.loads(data), dict)


def observed(c: CRS) -> tuple[int, dict[str, Any], dict[str, Any], int]:
    """Generation, the JSON export (minus its export time), the whole state, journal position."""
    export = json.loads(c.export_json())
    del export["timestamp"]
    return c.generation(), export, c._state_image(), c.journal_position()


def test_with_closes_and_owned_journals_close_once(tmp_path: Path) -> None:
    with CRS() as c:
        c.apply(proof(1))
    assert c.closed
    with pytest.raises(crs.CRSClosedError):
        c.apply(proof(2))

    c = CRS.open(tmp_path / "owned")
    owned = c._persist._owned[0]
    closes = []
    real_close = owned.close

    def counting_close() -> None:
        closes.append(1)
        real_close()

    owned.close = counting_close
    with c:
        c.apply(proof(1))
    c.close()
    assert closes == [1]
    assert not owned.is_available()
    # The journal is free again: a new CRS replays what the closed one wrote.
    with CRS.open(tmp_path / "owned") as again:
        assert again.generation() == 1


def test_open_project_closes_its_resources_once(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    c = crs.open_project(project, home)
    c.apply(proof(1))
    c.close()
    c.close()
    with pytest.raises(crs.CRSClosedError, match="save_project_backup"):
        c.save_project_backup()
    with crs.open_project(project, home) as again:
        assert again.generation() == 1
        again.apply(proof(2))
