"""Second-pass acceptance tests of the Go CRS reference page (seeds/001), public API only.

The first pass (test_seed_acceptance_{crs,persist,session}.py) covers every type and
function; this file covers what it left shallow: the behaviour a default or option controls,
the second and third documented case of a rule, ordering, isolation and empty inputs. Each
docstring quotes the seed statement; docs/seed-acceptance.md ("Second pass") maps them.
"""

from __future__ import annotations

import datetime
import json
import time

import pytest

import crs

HARD = crs.SignalSource.HARD
SOFT = crs.SignalSource.SOFT
SAFETY = crs.SignalSource.SAFETY
PS = crs.ProofStatus
PUT = crs.ProofUpdateType


def _step(tool: str = "t", session: str = "s", **kw: object) -> crs.StepRecord:
    fields: dict[str, object] = {
        "session_id": session,
        "actor": "router",
        "decision": "execute_tool",
        "tool": tool,
        "outcome": "success",
    }
    fields.update(kw)
    return crs.StepRecord(**fields)  # type: ignore[arg-type]


def _neg(*variables: str) -> tuple[crs.Literal, ...]:
    return tuple(crs.Literal(v, True) for v in variables)


def _upd(node: str, kind: crs.ProofUpdateType, delta: int = 0) -> crs.ProofUpdate:
    return crs.ProofUpdate(node_id=node, type=kind, delta=delta, source=HARD)


# ---------------------------------------------------------------- step records


def test_step_history_is_ordered_by_step_number() -> None:
    """GetStepHistory: "returns all steps for a session, ordered by step number";
    GetStepsByActor / GetStepsByOutcome: "Matching steps in order"; GetLastStep: "the most
    recent step" (the one recorded last)."""
    c = crs.CRS()
    c.record_step(_step("c", step_number=3))
    c.record_step(_step("a", step_number=1, actor="system"))
    c.record_step(_step("b", step_number=2))
    assert [(s.step_number, s.tool) for s in c.get_step_history("s")] == [
        (1, "a"),
        (2, "b"),
        (3, "c"),
    ]
    assert [s.tool for s in c.get_steps_by_actor("s", crs.Actor.ROUTER)] == ["b", "c"]
    assert [s.tool for s in c.get_steps_by_outcome("s", crs.Outcome.SUCCESS)] == ["a", "b", "c"]
    last = c.get_last_step("s")
    assert last is not None
    assert last.tool == "b"
    # automatic numbers continue after the highest number seen
    assert c.record_step(_step("d")).step_number == 4


def test_step_history_is_per_session() -> None:
    """StepRecord.SessionID "links this step to its session"; CountToolExecutions counts
    executions "in a session"; GetStepHistory returns the steps "for a session"."""
    c = crs.CRS()
    for _ in range(2):
        c.record_step(_step("grep", session="one"))
    c.record_step(_step("grep", session="two"))
    assert c.count_tool_executions("one", "grep") == 2
    assert c.count_tool_executions("two", "grep") == 1
    assert [s.step_number for s in c.get_step_history("two")] == [1]
    assert c.check_circuit_breaker("one", "grep").should_fire
    assert not c.check_circuit_breaker("two", "grep").should_fire


def test_clear_step_history_resets_what_the_history_feeds() -> None:
    """ClearStepHistory "removes all steps for a session. Use when starting a new query or
    when session is complete": the execution count (circuit-breaker fallback) and the
    decision context of CheckDecisionAllowed start over, other sessions are untouched."""
    c = crs.CRS()
    c.add_clause(
        crs.Clause(id="no-repeat", literals=_neg("tool:grep", "prev_tool:grep"), source=HARD)
    )
    for sid in ("s", "other"):
        c.record_step(_step("grep", session=sid))
        c.record_step(_step("grep", session=sid))
    assert c.check_circuit_breaker("s", "grep").should_fire
    assert not c.check_decision_allowed("s", "grep").allowed
    c.clear_step_history("s")
    assert c.get_step_history("s") == []
    assert c.get_last_step("s") is None
    assert c.count_tool_executions("s", "grep") == 0
    assert not c.check_circuit_breaker("s", "grep").should_fire
    assert c.check_decision_allowed("s", "grep").allowed
    assert c.count_tool_executions("other", "grep") == 2  # untouched
    assert c.record_step(_step("x")).step_number == 1  # a new query starts at step 1


def test_record_step_fills_number_and_timestamp_and_copies() -> None:
    """RecordStep "validates the step, then atomically appends"; StepNumber "is the 1-indexed
    step number"; Timestamp "is when this step started (Unix milliseconds UTC)";
    StepRecord "is immutable after creation" (the stored step is a copy)."""
    c = crs.CRS()
    before = int(time.time() * 1000)
    flags = ["-n"]
    params = crs.ToolParams(
        target="main.go",
        flags=flags,  # type: ignore[arg-type]  # a caller's list
        extra=[crs.KeyValue("k", "v")],  # type: ignore[arg-type]
    )
    stored = c.record_step(_step("grep", tool_params=params))
    assert stored.step_number == 1
    assert before <= stored.timestamp <= int(time.time() * 1000)
    assert stored.tool_params is not None
    assert tuple(stored.tool_params.flags) == ("-n",)
    flags.append("--changed")
    got = c.get_step_history("s")[0].tool_params
    assert got is not None
    assert tuple(got.flags) == ("-n",)
    kept = c.record_step(_step("grep", step_number=7, timestamp=1234))
    assert (kept.step_number, kept.timestamp) == (7, 1234)


@pytest.mark.parametrize("confidence", [0.0, 1.0, 0.5])
def test_step_confidence_bounds_are_inclusive(confidence: float) -> None:
    """StepRecord.Confidence: "the router confidence if applicable (0.0-1.0)"."""
    c = crs.CRS()
    assert c.record_step(_step(confidence=confidence)).confidence == confidence


@pytest.mark.parametrize("confidence", [-0.01, 1.01, float("nan")])
def test_step_confidence_out_of_range_is_refused(confidence: float) -> None:
    """StepRecord.Validate: "values must be in valid ranges" (confidence 0.0-1.0)."""
    with pytest.raises(crs.CRSError, match="confidence"):
        crs.CRS().record_step(_step(confidence=confidence))


# ---------------------------------------------------------------- circuit breaker, proofs


def test_circuit_breaker_result_fields_on_the_count_fallback() -> None:
    """CircuitBreakerResult: ShouldFire, Reason "explains why the circuit breaker fired (or
    didn't)", ProofNumber, Status; the count fallback is used "when no proof data exists"
    and the documented per-tool defaults apply to tools not configured."""
    c = crs.CRS()
    quiet = c.check_circuit_breaker("s", "grep")
    assert not quiet.should_fire
    assert quiet.reason
    assert quiet.status == PS.UNKNOWN
    for _ in range(crs.DEFAULT_CIRCUIT_BREAKER_THRESHOLD):
        c.record_step(_step("grep"))
    fired = c.check_circuit_breaker("s", "grep")
    assert fired.should_fire
    assert "grep" in fired.reason
    assert str(crs.DEFAULT_CIRCUIT_BREAKER_THRESHOLD) in fired.reason
    # DefaultConfig carries per-tool thresholds (find_callers 4, Grep 5): those tools go on
    for _ in range(3):
        c.record_step(_step("find_callers"))
    assert not c.check_circuit_breaker("s", "find_callers").should_fire
    c.record_step(_step("find_callers"))
    assert c.check_circuit_breaker("s", "find_callers").should_fire


def test_proof_data_overrides_the_execution_count() -> None:
    """CheckCircuitBreaker: "Checks if a tool path is disproven or has exhausted proof
    number. This replaces ad-hoc counting"; the count is the fallback "when no proof data
    exists"."""
    c = crs.CRS()
    for _ in range(5):
        c.record_step(_step("grep"))
    assert c.check_circuit_breaker("s", "grep").should_fire  # no proof data: the count
    c.update_proof_number(_upd("session:s:tool:grep", PUT.DECREMENT, 1))
    viable = c.check_circuit_breaker("s", "grep")
    assert not viable.should_fire
    assert viable.proof_number == crs.DEFAULT_INITIAL_PROOF_NUMBER - 1
    c.update_proof_number(_upd("session:s:tool:grep", PUT.DISPROVEN))
    assert c.check_circuit_breaker("s", "grep").should_fire


def test_proof_number_arithmetic_edges() -> None:
    """ProofUpdate: Increment "Add Delta to proof number", Decrement "Subtract Delta",
    Disproven / Proven "regardless of current number", Reset "to initial value";
    Increment/Decrement need a Delta (ignored for Disproven/Proven)."""
    c = crs.CRS()
    assert c.update_proof_number(_upd("n", PUT.PROVEN)).proof == 0
    # a disproven node stays disproven: its cost is infinite whatever a later success says
    c.update_proof_number(_upd("d", PUT.DISPROVEN))
    after = c.update_proof_number(_upd("d", PUT.INCREMENT, 5))
    assert (after.proof, after.status) == (crs.PROOF_NUMBER_INFINITE, PS.DISPROVEN)
    reset = c.update_proof_number(_upd("d", PUT.RESET))
    assert (reset.proof, reset.disproof, reset.status) == (10, 10, PS.UNKNOWN)
    for kind in (PUT.INCREMENT, PUT.DECREMENT):
        with pytest.raises(crs.CRSError, match="delta"):
            c.update_proof_number(_upd("n", kind, 0))


def test_propagate_disproof_walks_up_several_levels() -> None:
    """PropagateDisproof: "When a node is disproven, parent decisions that depended on it
    have their proof numbers increased ... Uses BFS"; returns the "Number of nodes affected
    by propagation". A parent that is itself disproven propagates further."""
    c = crs.CRS()
    c.apply(crs.DependencyDelta(HARD, add_edges=[("a", "b"), ("b", "c"), ("x", "c")]))
    c.update_proof_number(_upd("c", PUT.DISPROVEN))
    c.update_proof_number(_upd("b", PUT.DISPROVEN))
    assert c.propagate_disproof("c") == 3  # b and x (parents of c), then a (parent of b)
    for node in ("a", "x"):
        got = c.get_proof_status(node)
        assert got is not None
        assert got.proof == crs.DEFAULT_INITIAL_PROOF_NUMBER + 1
    assert c.propagate_disproof("a") == 0  # nothing depends on a


def test_propagate_disproof_terminates_on_a_graph_provider_cycle() -> None:
    """MaxPropagationDepth "prevents runaway propagation in cyclic graphs"; with a graph
    provider the dependency index is the code graph ("Registers a GraphQuery ... Activities
    can then call snapshot.GraphQuery()")."""
    sym = crs.GraphSymbol
    graph = crs.InMemoryGraph(
        [sym(id=i, name=i) for i in "abc"], [("a", "b"), ("b", "c"), ("c", "a")]
    )
    c = crs.CRS()
    c.set_graph_provider(graph)
    for node in "abc":
        c.update_proof_number(_upd(node, PUT.DISPROVEN))
    affected = c.propagate_disproof("c")
    assert 1 <= affected <= crs.MAX_PROPAGATION_DEPTH * 3


# ---------------------------------------------------------------- graph provider


def test_set_graph_provider_reaches_future_snapshots_only() -> None:
    """SetGraphProvider: "Registers a GraphQuery implementation that will be included in all
    future snapshots ... May be nil to clear"; Snapshot.GraphQuery: "nil if unavailable";
    with it the dependency index "delegates to the graph" (IsGraphBacked, AllEdges nil) and
    the export carries only EdgeCount with source "graph_backed"."""
    sym = crs.GraphSymbol
    graph = crs.InMemoryGraph([sym(id=i, name=i) for i in "abc"], [("a", "b"), ("b", "c")])
    c = crs.CRS()
    before = c.snapshot()
    c.set_graph_provider(graph)
    snap = c.snapshot()
    assert before.graph_query() is None
    assert snap.graph_query() is graph
    dep = snap.dependency_index()
    assert dep.is_graph_backed()
    assert dep.all_edges() is None
    assert (dep.depends_on("a"), dep.depended_by("c"), dep.size()) == (["b"], ["b"], 2)
    assert snap.query().find_dependency_chain("a", "c") == ["a", "b", "c"]
    exported = crs.Serializer(None).export_full(snap, "s", None).export
    assert exported is not None
    assert exported.indexes.dependency.source == "graph_backed"
    assert exported.indexes.dependency.edge_count == 2
    assert exported.indexes.dependency.edges == ()
    c.invalidate_graph_cache()
    c.set_graph_provider(None)
    assert c.snapshot().graph_query() is None
    assert not c.snapshot().dependency_index().is_graph_backed()
    assert snap.graph_query() is graph  # an existing snapshot keeps what it had


def test_invalidate_graph_cache_is_a_no_op_without_a_graph() -> None:
    """InvalidateGraphCache: "This is a no-op if graph-backed index is not in use"."""
    c = crs.CRS()
    c.apply(crs.DependencyDelta(HARD, add_edges=[("a", "b")]))
    gen = c.generation()
    c.invalidate_graph_cache()
    assert c.generation() == gen
    assert c.snapshot().dependency_index().all_edges() == {"a": ["b"]}


# ---------------------------------------------------------------- clauses


def test_lru_eviction_keeps_the_recently_used_clause() -> None:
    """ClausePersistence.MaxClauses: "maximum clauses per scope (LRU eviction)"; AddClause
    "handles LRU eviction when MaxClauses is reached": a clause that just blocked a decision
    is used, so the least recently used one goes."""
    c = crs.CRS()
    c.set_clause_config(crs.ClausePersistence(crs.ClauseScope.PROJECT, 3600.0, 2))
    c.add_clause(crs.Clause(id="old", literals=_neg("tool:a", "prev_tool:x"), source=HARD))
    c.add_clause(crs.Clause(id="newer", literals=_neg("tool:b", "prev_tool:x"), source=HARD))
    c.record_step(_step("x"))
    assert not c.check_decision_allowed("s", "a").allowed  # "old" blocks: used now
    c.add_clause(crs.Clause(id="third", literals=_neg("tool:c", "prev_tool:x"), source=HARD))
    assert set(c.snapshot().constraint_index().all_clauses()) == {"old", "third"}


def test_blocking_a_decision_counts_as_a_use() -> None:
    """Clause.UseCount "tracks how often this clause blocks decisions"; LastUsed "is when
    this clause last blocked a decision"; CheckDecisionAllowed returns "Reason if the
    decision is blocked" and allows everything else."""
    c = crs.CRS()
    c.add_clause(crs.Clause(id="k", literals=_neg("tool:rm", "prev_tool:ls"), source=SAFETY))
    fresh = c.snapshot().constraint_index().get_clause("k")
    assert fresh is not None
    assert (fresh.use_count, fresh.learned_at > 0) == (0, True)
    c.record_step(_step("ls"))
    before = int(time.time() * 1000)
    for _ in range(2):
        verdict = c.check_decision_allowed("s", "rm")
        assert not verdict.allowed
        assert "k" in verdict.reason
    used = c.snapshot().constraint_index().get_clause("k")
    assert used is not None
    assert used.use_count == 2
    assert used.last_used >= before
    assert c.check_decision_allowed("s", "cat") == (True, "")


def test_session_scoped_clauses_end_with_their_session() -> None:
    """ClauseScopeSession: "Clauses only valid for current session. TTL: session duration.
    GC: session end" (ClearStepHistory: "when session is complete"); project clauses stay."""
    c = crs.CRS()
    c.add_clause(
        crs.Clause(
            id="mine",
            literals=_neg("tool:a"),
            source=HARD,
            session_id="s",
            scope=crs.ClauseScope.SESSION,
        )
    )
    c.add_clause(crs.Clause(id="shared", literals=_neg("tool:b"), source=HARD))
    c.record_step(_step("x"))
    assert not c.check_decision_allowed("s", "a").allowed
    c.clear_step_history("s")
    assert set(c.snapshot().constraint_index().all_clauses()) == {"shared"}
    assert c.check_decision_allowed("s", "a").allowed


def test_garbage_collection_follows_each_clause_scope_ttl() -> None:
    """GarbageCollectClauses: "Removes clauses older than their TTL"; ClauseScopeProject
    "TTL: 7 days", ClauseScopeGlobal "TTL: 30 days", ClausePersistence.TTL "how long clauses
    remain valid": with a (tiny) project TTL the project clause goes, the global one stays."""
    c = crs.CRS()
    c.set_clause_config(crs.ClausePersistence(crs.ClauseScope.PROJECT, 0.001, 10))
    c.add_clause(crs.Clause(id="p", literals=_neg("tool:p"), source=HARD))
    c.add_clause(
        crs.Clause(id="g", literals=_neg("tool:g"), source=HARD, scope=crs.ClauseScope.GLOBAL)
    )
    time.sleep(0.01)
    assert c.garbage_collect_clauses() == 1
    assert list(c.snapshot().constraint_index().all_clauses()) == ["g"]
    assert c.garbage_collect_clauses() == 0
    assert crs.CLAUSE_SCOPE_TTL[crs.ClauseScope.GLOBAL] == 30 * 24 * 3600


def test_stored_clauses_are_copies() -> None:
    """ConstraintIndexView.GetClause / AllClauses return the learned clauses; "Clause is safe
    for concurrent read access": what a caller holds cannot change what is stored."""
    c = crs.CRS()
    clause = crs.Clause(id="k", literals=_neg("tool:a"), source=HARD)
    stored = c.add_clause(clause)
    assert stored == c.snapshot().constraint_index().get_clause("k")
    everything = c.snapshot().constraint_index().all_clauses()
    everything.clear()
    assert c.snapshot().constraint_index().clause_count() == 1


# ---------------------------------------------------------------- deltas


def test_composite_conflicts_indexes_and_source() -> None:
    """CompositeDelta: ConflictsWith "returns true if any contained delta conflicts";
    IndexesAffected "returns all indexes affected by contained deltas"; overlapping changes
    are detected whichever side holds the composite."""
    p1 = crs.ProofDelta(HARD, {"n": crs.ProofNumber(proof=1)})
    p2 = crs.ProofDelta(SOFT, {"n": crs.ProofNumber(proof=2)})
    comp = crs.CompositeDelta(crs.HistoryDelta(HARD, [crs.HistoryEntry(id="h")]), p1)
    assert comp.conflicts_with(p2)
    assert p2.conflicts_with(comp)
    assert not comp.conflicts_with(crs.ProofDelta(HARD, {"other": crs.ProofNumber()}))
    assert comp.indexes_affected() == ["history", "proof"]
    assert comp.type() == crs.DeltaType.COMPOSITE
    assert crs.CompositeDelta(p2).source() == SOFT
    assert crs.CompositeDelta(p2, crs.StreamingDelta(SAFETY)).source().is_hard()


def test_composite_children_see_the_earlier_children() -> None:
    """CompositeDelta "contains multiple deltas for atomic application" (spec §5.1: children
    are validated in order against the state the earlier ones leave): add then update the
    same constraint in one composite; adding the same id twice fails as a whole."""
    c = crs.CRS()
    add = crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k", nodes=("a",))])
    upd = crs.ConstraintDelta(HARD, update={"k": crs.Constraint(id="k", active=True)})
    m = c.apply(crs.CompositeDelta(add, upd))
    assert m.new_generation == 1
    got = c.snapshot().constraint_index().get("k")
    assert got is not None
    assert got.active
    again = crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k2")])
    with pytest.raises(crs.DeltaValidationError):
        c.apply(crs.CompositeDelta(again, again))
    assert c.snapshot().constraint_index().get("k2") is None
    assert c.generation() == 1


def test_failed_apply_changes_nothing_observable() -> None:
    """Apply: "Validates the delta, then applies all changes atomically. If any index update
    fails, all changes are rolled back"; Generation "increments with each successful
    Apply()": a refused delta leaves generation and delta history as they were."""
    c = crs.CRS()
    c.apply(crs.ProofDelta(HARD, {"a": crs.ProofNumber(proof=1)}))
    before = c.snapshot()
    with pytest.raises(crs.DeltaValidationError):
        c.apply(crs.ConstraintDelta(HARD, remove=["missing"]))
    with pytest.raises(crs.DeltaValidationError):
        c.apply(crs.DependencyDelta(HARD, add_edges=[("q", "q")]))
    assert c.generation() == before.generation() == 1
    assert c.delta_history().size() == 1
    assert c.snapshot().proof_index().all() == before.proof_index().all()


def test_constraint_remove_update_and_lookup_by_node() -> None:
    """ConstraintDelta: Add "constraints to add", Remove "constraint IDs to remove", Update
    "constraints to update (by ID)"; ConstraintIndexView FindByType / FindByNode."""
    c = crs.CRS()
    ordering, resource = crs.ConstraintType.ORDERING, crs.ConstraintType.RESOURCE
    first = [
        crs.Constraint(id="x", type=ordering, nodes=("a", "b")),
        crs.Constraint(id="y", type=resource, nodes=("b",)),
    ]
    c.apply(crs.ConstraintDelta(HARD, add=first))
    c.apply(
        crs.ConstraintDelta(
            HARD,
            remove=["y"],
            update={"x": crs.Constraint(id="x", type=crs.ConstraintType.ORDERING, nodes=("c",))},
        )
    )
    ci = c.snapshot().constraint_index()
    assert set(ci.all()) == {"x"}
    assert [k.id for k in ci.find_by_node("c")] == ["x"]
    assert ci.find_by_node("a") == []
    assert [k.id for k in ci.find_by_type(crs.ConstraintType.ORDERING)] == ["x"]
    assert ci.find_by_type(crs.ConstraintType.RESOURCE) == []


def test_delta_history_records_every_delta_type_as_json() -> None:
    """DeltaRecord.DeltaBytes "contains the JSON-serialized delta"; AffectedNodes "lists node
    IDs affected by this delta"; GetByNode "Returns all deltas where the node appears in
    AffectedNodes" (similarity and composite deltas included)."""
    c = crs.CRS()
    deltas: list[crs.Delta] = [
        crs.SimilarityDelta(HARD, updates={("a", "b"): 0.5}),
        crs.CompositeDelta(
            crs.SimilarityDelta(HARD, updates={("x", "y"): 0.1}),
            crs.HistoryDelta(HARD, [crs.HistoryEntry(id="h", node_id="n")]),
        ),
        crs.create_analytics_delta(crs.AnalyticsQueryType.HOTSPOTS, 1, 1),
        crs.DependencyDelta(HARD, add_edges=[("p", "q")]),
        crs.StreamingDelta(HARD, increments={"i": 1}),
        crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k", nodes=("n1",))]),
    ]
    for d in deltas:
        m = c.apply(d)
        rec = c.delta_history().get_by_generation(m.new_generation)
        assert rec is not None
        assert rec.delta_type == d.type()
        assert isinstance(json.loads(rec.delta_bytes), dict)
    assert [r.generation for r in c.delta_history().get_by_node("x")] == [2]
    assert [r.generation for r in c.delta_history().get_by_node("b")] == [1]
    assert [r.generation for r in c.delta_history().get_by_node("q")] == [4]


def test_apply_with_source_metadata_is_optional_and_copied() -> None:
    """ApplyWithSource: "metadata: Optional additional context for the delta"; DeltaRecord
    "Immutable after creation"."""
    c = crs.CRS()
    meta = {"k": "v"}
    c.apply_with_source(crs.StreamingDelta(HARD, increments={"a": 1}), "Act", meta)
    m = c.apply_with_source(crs.StreamingDelta(HARD, increments={"a": 1}), "Act", None)
    meta["k"] = "changed"
    first = c.delta_history().get_by_generation(1)
    second = c.delta_history().get_by_generation(m.new_generation)
    assert first is not None
    assert second is not None
    assert first.metadata == {"k": "v"}
    assert not second.metadata
    assert (first.source, second.source) == ("Act", "Act")


# ---------------------------------------------------------------- index views, queries


def _history_crs() -> crs.CRS:
    c = crs.CRS()
    c.apply(
        crs.HistoryDelta(
            HARD,
            [
                crs.HistoryEntry(
                    id=f"h{i}",
                    node_id="odd" if i % 2 else "even",
                    action=f"a{i}",
                    source=HARD if i < 3 else SOFT,
                    timestamp=1_000 + i,
                )
                for i in range(6)
            ],
        )
    )
    return c


def test_history_recent_and_trace() -> None:
    """HistoryIndexView: Trace "returns the decision trace for a node", Recent "returns the
    N most recent history entries", Size; QueryAPI.FindRecentDecisions "recent history
    entries with optional filtering" (SignalSourceUnknown for all)."""
    snap = _history_crs().snapshot()
    h = snap.history_index()
    assert h.size() == 6
    assert [e.id for e in h.recent(2)] == ["h4", "h5"]
    assert len(h.recent(100)) == 6
    assert h.recent(0) == []
    assert [e.id for e in h.trace("odd")] == ["h1", "h3", "h5"]
    assert h.trace("nobody") == []
    q = snap.query()
    assert [e.id for e in q.find_recent_decisions(2, crs.SignalSource.UNKNOWN)] == ["h4", "h5"]
    assert [e.id for e in q.find_recent_decisions(2, HARD)] == ["h1", "h2"]
    assert [e.id for e in q.find_recent_decisions(10, SOFT)] == ["h3", "h4", "h5"]
    assert q.find_recent_decisions(0, HARD) == []


def test_node_stats_gathers_every_index_and_is_nil_for_unknown_nodes() -> None:
    """QueryAPI.NodeStats "returns comprehensive statistics about a node across all
    indexes ... Nil if node not found anywhere"."""
    c = _history_crs()
    c.apply(crs.ProofDelta(HARD, {"odd": crs.ProofNumber(proof=4, status=PS.EXPANDED)}))
    c.apply(crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k", nodes=("odd",))]))
    c.record_similarity("odd", "even", 0.25)
    c.apply(crs.DependencyDelta(HARD, add_edges=[("odd", "z")]))
    c.apply(crs.StreamingDelta(HARD, increments={"odd": 3}))
    q = c.snapshot().query()
    assert q.node_stats("nowhere") is None
    st = q.node_stats("odd")
    assert st is not None
    assert st.has_proof
    assert st.proof_number.proof == 4
    assert (st.constraint_count, tuple(st.constraints)) == (1, ("k",))
    assert (st.similar_node_count, st.nearest_neighbor, st.nearest_distance) == (1, "even", 0.25)
    assert (st.depends_on_count, st.depended_by_count, st.has_cycle) == (1, 0, False)
    assert (st.history_entry_count, st.last_action) == (3, "a5")
    assert st.last_action_time
    assert st.access_frequency >= 3


def test_similar_with_proof_status_and_hot_nodes() -> None:
    """FindSimilarWithProofStatus: "Similar nodes with matching status, sorted by distance"
    (at most k); FindHotNodes: "Top N nodes by frequency"."""
    c = crs.CRS()
    c.apply(
        crs.ProofDelta(
            HARD,
            {
                "a": crs.ProofNumber(status=PS.PROVEN),
                "b": crs.ProofNumber(status=PS.DISPROVEN),
                "d": crs.ProofNumber(status=PS.PROVEN),
            },
        )
    )
    for other, dist in (("a", 0.3), ("b", 0.1), ("d", 0.2)):
        c.record_similarity("q", other, dist)
    c.apply(crs.StreamingDelta(HARD, increments={"a": 3, "d": 7, "b": 5}))
    q = c.snapshot().query()
    found = q.find_similar_with_proof_status("q", PS.PROVEN, 5)
    assert [(m.node_id, m.distance) for m in found] == [("d", 0.2), ("a", 0.3)]
    assert [m.node_id for m in q.find_similar_with_proof_status("q", PS.PROVEN, 1)] == ["d"]
    assert q.find_similar_with_proof_status("q", PS.PROVEN, 0) == []
    assert q.find_similar_with_proof_status("q", PS.EXPANDED, 5) == []
    hot = q.find_hot_nodes(2)
    assert [(h.node_id, h.frequency) for h in hot] == [("d", 7), ("b", 5)]


def test_streaming_index_estimates_and_cardinality() -> None:
    """StreamingDelta: Increments "maps item to frequency increment", CardinalityItems "are
    items to count for cardinality"; StreamingIndexView: Estimate (spec §5.10: never
    under-counts), Cardinality "estimated unique item count", Size "approximate memory"."""
    c = crs.CRS()
    c.apply(crs.StreamingDelta(HARD, increments={"x": 5, "y": 1}, cardinality_items=["z"]))
    c.apply(crs.StreamingDelta(HARD, increments={"x": 2}, cardinality_items=["x", "w"]))
    s = c.snapshot().streaming_index()
    assert s.estimate("x") >= 7
    assert s.estimate("y") >= 1
    assert s.estimate("z") >= 1
    assert s.cardinality() == 4  # x, y, z, w
    assert s.size() > 0
    assert crs.CRS().snapshot().streaming_index().cardinality() == 0


def test_similarity_nearest_neighbors_and_filtered_pairs_limits() -> None:
    """SimilarityIndexView.NearestNeighbors "returns the k nearest neighbors"; AllPairs
    "Never nil"; AllPairsFiltered: "Respects maxPairs limit and returns truncated flag",
    "-1 for unlimited"."""
    c = crs.CRS()
    assert c.snapshot().similarity_index().all_pairs() == {}
    for i in range(5):
        c.record_similarity("q", f"n{i}", 0.1 * (5 - i))
    v = c.snapshot().similarity_index()
    near = v.nearest_neighbors("q", 2)
    assert [m.node_id for m in near] == ["n4", "n3"]
    assert v.nearest_neighbors("unknown", 3) == []
    pairs, truncated = v.all_pairs_filtered(5)
    assert (len(pairs), truncated) == (5, False)
    pairs, truncated = v.all_pairs_filtered(4)
    assert (len(pairs), truncated) == (4, True)
    # the recorded value is a distance and may be updated; lookups are symmetric
    c.record_similarity("n0", "q", 0.05)
    assert c.get_similarity("q", "n0") == 0.05
    assert c.snapshot().similarity_index().size() == 5


# ---------------------------------------------------------------- serializer


def test_export_options_limits_truncation_and_warnings() -> None:
    """ExportOptions: MaxSimilarityPairs / MaxDependencyEdges "0 = use default (100K),
    -1 = unlimited"; ExportResult.Truncated "indicates if any index was truncated",
    Warnings "messages about truncation"; Similarity/DependencyIndexExport.Truncated."""
    c = crs.CRS()
    for i in range(5):
        c.record_similarity(f"a{i}", f"b{i}", 0.1)
    c.apply(crs.DependencyDelta(HARD, add_edges=[(f"x{i}", f"y{i}") for i in range(5)]))
    s = crs.Serializer(None)
    cut = s.export_full(c.snapshot(), "sid", crs.ExportOptions(2, 3))
    assert cut.truncated
    assert len(cut.warnings) == 2
    assert cut.export is not None
    sim, dep = cut.export.indexes.similarity, cut.export.indexes.dependency
    assert (len(sim.pairs), sim.pair_count, sim.truncated) == (2, 5, True)
    assert (len(dep.edges), dep.edge_count, dep.truncated, dep.source) == (3, 5, True, "legacy")
    for opts in (crs.ExportOptions(-1, -1), crs.ExportOptions(0, 0), None):
        full = s.export_full(c.snapshot(), "sid", opts)
        assert not full.truncated
        assert full.warnings == ()
        assert full.export is not None
        assert len(full.export.indexes.similarity.pairs) == 5
        assert len(full.export.indexes.dependency.edges) == 5


def test_export_json_uses_the_documented_names_and_formats() -> None:
    """ProofEntry.Status "unknown, proven, disproven, expanded", Source "unknown, hard,
    soft", UpdatedAt "RFC3339 format"; ConstraintEntry.Type "mutual_exclusion,
    implication, ordering, resource"; CRSExport JSON keys; ReasoningSummary.ConfidenceScore
    "the ratio of proven nodes to explored nodes ... between 0.0 and 1.0", NodesUnknown
    "UNKNOWN or EXPANDED"."""
    c = crs.CRS()
    c.apply(
        crs.ProofDelta(
            SOFT,
            {
                "p": crs.ProofNumber(status=PS.PROVEN, source=SOFT, updated_at=1_700_000_000_000),
                "e": crs.ProofNumber(status=PS.EXPANDED),
                "u": crs.ProofNumber(status=PS.UNKNOWN),
                "x": crs.ProofNumber(status=PS.EXPANDED),
            },
        )
    )
    c.apply(
        crs.ConstraintDelta(
            HARD,
            add=[crs.Constraint(id="k", type=crs.ConstraintType.MUTUAL_EXCLUSION, source=HARD)],
        )
    )
    result = crs.Serializer(None).export_full(c.snapshot(), "sid", None)
    assert result.export is not None
    doc = json.loads(json.dumps(result.export.to_dict()))
    assert list(doc) == ["session_id", "generation", "timestamp", "indexes", "summary"]
    assert list(doc["indexes"]) == list(crs.IndexesExport().to_dict())  # the six indexes
    assert len(doc["indexes"]) == 6
    entries = {e["node_id"]: e for e in doc["indexes"]["proof"]["entries"]}
    assert {e["status"] for e in entries.values()} == {"proven", "expanded", "unknown"}
    assert entries["p"]["source"] == "soft"
    stamp = datetime.datetime.fromisoformat(entries["p"]["updated_at"].replace("Z", "+00:00"))
    assert stamp == datetime.datetime.fromtimestamp(1_700_000_000, tz=datetime.UTC)
    (k,) = doc["indexes"]["constraint"]["constraints"]
    assert (k["type"], k["source"]) == ("mutual_exclusion", "hard")
    summary = doc["summary"]
    assert (summary["nodes_explored"], summary["nodes_proven"]) == (4, 1)
    assert summary["nodes_unknown"] == 3
    assert summary["confidence_score"] == 0.25


def test_import_strict_validation_and_edge_dedup() -> None:
    """ImportOptions.StrictValidation "returns error on count mismatches. Default: true";
    Import: "For dependency edges, duplicates are deduplicated"."""
    c = crs.CRS()
    c.apply(crs.DependencyDelta(HARD, add_edges=[("a", "b"), ("c", "d")]))
    s = crs.Serializer(None)
    exported = s.export_full(c.snapshot(), "sid", None).export
    assert exported is not None
    doc = exported.to_dict()
    doc["indexes"]["dependency"]["edges"].append({"from_id": "a", "to_id": "b"})
    dup = crs.CRSExport.from_dict(doc)
    assert crs.DefaultImportOptions().strict_validation
    with pytest.raises(crs.CRSError, match="dependency"):
        s.import_(dup, None)
    lax = s.import_(dup, crs.ImportOptions(strict_validation=False))
    assert {k: set(v) for k, v in lax.dependency_forward.items()} == {"a": {"b"}, "c": {"d"}}
    assert {k: set(v) for k, v in lax.dependency_reverse.items()} == {"b": {"a"}, "d": {"c"}}


# ---------------------------------------------------------------- trace recorder


def test_zero_valued_trace_config_means_the_defaults() -> None:
    """NewTraceRecorder(config): "Uses defaults if zero-valued" (DefaultTraceConfig:
    MaxSteps 1000, RecordSymbols true, RecordMetadata true)."""
    rec = crs.TraceRecorder(crs.TraceConfig())
    stored = rec.record_step(
        crs.TraceStepBuilder().with_symbols_found(["Foo"]).with_metadata("k", "v").build()
    )
    assert stored.symbols_found == ("Foo",)
    assert stored.metadata == {"k": "v"}
    assert rec.config == crs.DefaultTraceConfig()


def test_trace_config_switches_control_what_is_recorded() -> None:
    """TraceConfig: MaxSteps "When exceeded, oldest steps are evicted"; RecordSymbols
    "enables recording of discovered symbols"; RecordMetadata "enables recording of step
    metadata"."""
    rec = crs.TraceRecorder(crs.TraceConfig(max_steps=2))
    for i in range(3):
        rec.record_step(
            crs.TraceStepBuilder()
            .with_action(f"a{i}")
            .with_symbols_found(["S"])
            .with_metadata("k", "v")
            .build()
        )
    steps = rec.get_steps()
    assert [s.action for s in steps] == ["a1", "a2"]
    assert all(s.symbols_found == () and s.metadata == {} for s in steps)
    assert rec.step_count() == 2
    keep = crs.TraceRecorder(crs.TraceConfig(max_steps=5, record_symbols=True))
    got = keep.record_step(crs.TraceStep(symbols_found=("S",), metadata={"k": "v"}))
    assert (got.symbols_found, got.metadata) == (("S",), {})


def test_trace_recorder_numbers_and_timestamps_every_step() -> None:
    """TraceRecorder.RecordStep: "Automatically assigns step numbers and timestamps ... Step
    number and timestamp will be overwritten by the recorder"; TraceStep.Step "is the
    1-indexed step number"; Clear "removes all recorded steps"; LastStep "or nil if empty"."""
    rec = crs.TraceRecorder()
    assert rec.last_step() is None
    before = int(time.time() * 1000)
    a = rec.record_step(crs.TraceStep(step=42, timestamp=5, action="a"))
    b = rec.record_step(crs.TraceStep(step=1, timestamp=10**12, action="b"))
    now = int(time.time() * 1000)
    assert (a.step, b.step) == (1, 2)
    assert before <= a.timestamp <= b.timestamp <= now
    assert rec.last_step() == b
    trace = rec.export("sid")
    assert (trace.session_id, trace.total_steps) == ("sid", 2)
    assert (trace.start_time, trace.end_time) == (a.timestamp, b.timestamp)
    rec.clear()
    assert (rec.step_count(), rec.last_step(), rec.get_steps()) == (0, None, [])
    assert rec.export("sid").total_steps == 0
    assert rec.record_step(crs.TraceStep(action="c")).step == 1


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        ("proven", PUT.PROVEN),
        ("disproven", PUT.DISPROVEN),
        ("increment", PUT.INCREMENT),
        ("decrement", PUT.DECREMENT),
    ],
)
def test_builder_proof_update_strings(status: str, kind: crs.ProofUpdateType) -> None:
    """TraceStepBuilder.WithProofUpdate: "status: proven, disproven, expanded, unknown,
    increment, decrement"; "source: hard, soft, safety"."""
    for source, want in (("hard", HARD), ("soft", SOFT), ("safety", SAFETY)):
        step = crs.TraceStepBuilder().with_proof_update("n", status, "why", source).build()
        (upd,) = step.proof_updates
        assert (upd.node_id, upd.type, upd.source, upd.reason) == ("n", kind, want, "why")


def test_trace_step_to_step_record_feeds_the_execution_count() -> None:
    """TraceStepToStepRecord: "defaults to ActorSystem / DecisionExecuteTool", "ToolParams
    ... left nil", "Confidence ... defaults to 0"; "This enables CRS.CountToolExecutions()
    to return accurate counts, which the circuit breaker uses as a fallback" (README,
    PATH 1: recordTraceStep -> TraceStepToStepRecord -> CRS.RecordStep)."""
    rec = crs.TraceRecorder()
    c = crs.CRS()
    for _ in range(crs.DEFAULT_CIRCUIT_BREAKER_THRESHOLD):
        step = rec.record_step(
            crs.TraceStepBuilder().with_action("search").with_tool("grep").build()
        )
        sr = crs.trace_step_to_step_record(step, "sess")
        assert (sr.actor, sr.decision, sr.tool_params, sr.confidence) == (
            crs.Actor.SYSTEM,
            crs.Decision.EXECUTE_TOOL,
            None,
            0.0,
        )
        c.record_step(sr)
    assert c.count_tool_executions("sess", "grep") == crs.DEFAULT_CIRCUIT_BREAKER_THRESHOLD
    assert c.check_circuit_breaker("sess", "grep").should_fire
    failed = crs.trace_step_to_step_record(crs.TraceStep(tool="grep", error="boom"), "sess")
    assert failed.outcome == crs.Outcome.FAILURE
    c.record_step(failed)  # a failure carries an error category, so it validates


def test_sanitize_map_returns_a_new_map_with_keys_kept() -> None:
    """SecretSanitizer.SanitizeMap: "Creates a new map with all values sanitized. Keys are
    preserved"; Sanitize: "Multiple secrets in the same string are all replaced"."""
    ss = crs.SecretSanitizer()
    original = {"aws": "AKIAIOSFODNN7EXAMPLE", "note": "hello", "AKIAIOSFODNN7EXAMPLE": "x"}
    out = ss.sanitize_map(original)
    assert out is not original
    assert original["aws"] == "AKIAIOSFODNN7EXAMPLE"
    assert out == {"aws": crs.REDACTED, "note": "hello", "AKIAIOSFODNN7EXAMPLE": "x"}
    two = ss.sanitize("a AKIAIOSFODNN7EXAMPLE b AKIAI44QH8DHBEXAMPLE c")
    assert "AKIA" not in two
    assert two.count(crs.REDACTED) == 2
    assert ss.sanitize("") == ""


# ---------------------------------------------------------------- cycles


def test_cycle_detector_reset_and_stats() -> None:
    """CycleDetector.Reset "clears all detector state ... Use when starting a new session";
    CycleDetectorStats StepsProcessed, CyclesDetected, LastCycleTime, HistorySize,
    MaxHistory."""
    d = crs.CycleDetector(crs.CycleDetectorConfig(max_history=4))
    for s in "ABCDEF":
        d.add_step(s)
    st = d.stats()
    assert (st.steps_processed, st.cycles_detected, st.history_size, st.max_history) == (
        6,
        0,
        4,
        4,
    )
    assert st.last_cycle_time is None
    d.reset()
    assert d.stats().history_size == 0
    assert not d.add_step("A").detected  # "A" seen before the reset does not count


def test_analyze_session_cycles_is_never_nil() -> None:
    """AnalyzeSessionCycles: "*CycleAnalysis - Analysis results. Never nil"; TotalSCCs "the
    total number of strongly connected components"; a straight run has no cyclic SCC."""
    c = crs.CRS()
    for t in "ABC":
        c.record_step(_step(t))
    a = crs.analyze_session_cycles(c, "s")
    assert (a.total_sccs, a.cyclic_sccs, a.largest_scc_size) == (3, (), 0)
    assert a.analysis_duration >= 0


def test_the_similarity_cap_evicts_the_pair_recorded_longest_ago() -> None:
    """RecordSimilarity "records that two queries ... are semantically similar with the given
    distance score ... used for cross-session semantic dedup"; spec §5.11: similarity pairs
    are capped, oldest evicted first. Re-recording a pair makes it the newest, so a fresh
    measurement is never the one evicted (nor its new distance lost)."""
    c = crs.CRS(max_similarity_pairs=2)
    c.record_similarity("grep:a", "grep:b", 0.1)
    c.record_similarity("grep:c", "grep:d", 0.2)
    c.record_similarity("grep:b", "grep:a", 0.3)  # the same pair, measured again
    c.record_similarity("grep:e", "grep:f", 0.4)  # over the cap: one pair goes
    assert c.get_similarity("grep:a", "grep:b") == 0.3
    assert c.get_similarity("grep:c", "grep:d") is None
    assert c.snapshot().similarity_index().size() == 2


@pytest.mark.parametrize(
    ("delta", "entries", "indexes"),
    [
        (crs.ProofDelta(HARD, {"a": crs.ProofNumber(), "b": crs.ProofNumber()}), 2, ["proof"]),
        (crs.HistoryDelta(HARD, [crs.HistoryEntry(id="h"), crs.HistoryEntry(id="i")]), 2,
         ["history"]),
        (crs.SimilarityDelta(HARD, updates={("a", "b"): 0.1, ("c", "d"): 0.2}), 2, ["similarity"]),
        (crs.DependencyDelta(HARD, add_edges=[("a", "b"), ("b", "c")]), 2, ["dependency"]),
        (crs.StreamingDelta(HARD, increments={"x": 1, "y": 2}, cardinality_items=["z"]), 3,
         ["streaming"]),
        (crs.create_analytics_delta(crs.AnalyticsQueryType.HOTSPOTS, 3, 1), 3, ["proof"]),
        (crs.create_analytics_delta(crs.AnalyticsQueryType.DEAD_CODE, 0, 1), 2, ["proof"]),
    ],
)  # fmt: skip
def test_apply_metrics_per_delta_type(delta: crs.Delta, entries: int, indexes: list[str]) -> None:
    """ApplyMetrics: DeltaType "the type of delta applied", IndexesUpdated "which indexes were
    updated (bitmask) ... .Names() for string slice", EntriesModified "the number of entries
    modified"; analytics: the record plus its done marker, plus the found marker when there
    are results."""
    m = crs.CRS().apply(delta)
    assert m.delta_type == delta.type()
    assert m.entries_modified == entries
    assert m.indexes_updated.names() == indexes
    assert (m.old_generation, m.new_generation) == (0, 1)


def test_health_checks_cover_index_connectivity_and_memory_bounds() -> None:
    """ "CRS implements the eval.Evaluable interface, exposing ... Health checks: index
    connectivity, memory bounds": the dependency index is checked (both directions agree, no
    cycle) and a bounded index at its cap reports it (spec §5.11: the oldest are evicted)."""
    c = crs.CRS(max_history_entries=2)
    c.apply(crs.DependencyDelta(HARD, add_edges=[("a", "b"), ("b", "c")]))
    checks = {h.name: h for h in c.health_check().checks}
    assert checks["index_connectivity"].state == crs.HealthState.HEALTHY
    assert "2" in checks["index_connectivity"].message
    assert checks["history"].state == crs.HealthState.HEALTHY
    for i in range(3):
        c.apply(crs.HistoryDelta(HARD, [crs.HistoryEntry(id=f"h{i}")]))
    status = c.health_check()
    history = {h.name: h for h in status.checks}["history"]
    assert history.state == crs.HealthState.DEGRADED
    assert status.state == crs.HealthState.DEGRADED


def test_delta_history_worker_record_checks_its_arguments() -> None:
    """DeltaHistoryWorker.Record: "delta: The delta that was applied. Must not be nil"; gen
    "the CRS generation after applying the delta" (bad input is a typed error, nothing is
    recorded)."""
    w = crs.DeltaHistoryWorker(10, None)
    with pytest.raises(crs.NilDeltaError):
        w.record(None, 1, "s", "sid", None)  # type: ignore[arg-type]
    good = crs.StreamingDelta(HARD, increments={"x": 1})
    for gen in (-1, "2", True):
        with pytest.raises(crs.InvalidArgumentError, match="gen"):
            w.record(good, gen, "s", "sid", None)  # type: ignore[arg-type]
    with pytest.raises(crs.InvalidArgumentError, match="metadata"):
        w.record(good, 1, "s", "sid", {"k": 1})  # type: ignore[dict-item]
    assert w.size() == 0
    w.record(good, 1, "s", "sid", {"k": "v"})
    (rec,) = w.all()
    assert (rec.generation, rec.source, rec.session_id, rec.metadata) == (1, "s", "sid", {"k": "v"})
    w.close()


def test_step_records_per_session_are_capped_oldest_first() -> None:
    """RecordStep: "Validates the step, then atomically appends"; spec §5.11: step records per
    session are capped (MAX_STEPS_PER_SESSION), oldest evicted first, and the execution count
    the circuit breaker reads follows the eviction; a refused step evicts nothing."""
    c = crs.CRS()
    for i in range(crs.MAX_STEPS_PER_SESSION + 2):
        c.record_step(_step("early" if i < 2 else "late"))
    history = c.get_step_history("s")
    assert len(history) == crs.MAX_STEPS_PER_SESSION
    assert (history[0].step_number, history[-1].step_number) == (3, crs.MAX_STEPS_PER_SESSION + 2)
    assert c.count_tool_executions("s", "early") == 0
    assert c.count_tool_executions("s", "late") == crs.MAX_STEPS_PER_SESSION
    with pytest.raises(crs.CRSError):
        c.record_step(_step(actor="bogus"))
    assert c.get_step_history("s")[0].step_number == 3


def test_concurrent_updates_lose_nothing() -> None:
    """UpdateProofNumber / AddClause / RecordSimilarity / CheckDecisionAllowed: "Thread Safety:
    Safe for concurrent use"; spec §5.2: the generation increases by exactly one on every
    committed change, whatever the call. Eight threads, no update lost."""
    import threading

    c = crs.CRS()
    c.record_step(_step("x"))
    per_thread, threads = 50, 8
    barrier = threading.Barrier(threads)
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            barrier.wait(10)
            for i in range(per_thread):
                c.update_proof_number(_upd("shared", PUT.INCREMENT, 1))
                c.record_similarity(f"q{t}", f"r{i}", 0.5)
                c.add_clause(
                    crs.Clause(id=f"k{t}-{i}", literals=_neg(f"tool:t{t}-{i}"), source=HARD)
                )
                c.check_decision_allowed("s", f"t{t}-{i}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join(60)
    assert not errors
    total = per_thread * threads
    shared = c.get_proof_status("shared")
    assert shared is not None
    assert shared.proof == crs.DEFAULT_INITIAL_PROOF_NUMBER + total
    assert c.snapshot().similarity_index().size() == total
    assert c.snapshot().constraint_index().clause_count() == min(total, 1000)
    # exactly one generation per committed change of state: proof, similarity, clause (a
    # check changes no state the generation counts, spec §5.2's list)
    assert c.generation() == 3 * total


def test_check_decision_allowed_reads_every_variable_family() -> None:
    """Literal.Variable: "<type>:<value> e.g. tool:list_packages, outcome:success,
    error:file_not_found"; CheckDecisionAllowed "builds an assignment from the step history
    and the proposed decision" (spec §5.8: tool, prev_tool, prev_prev_tool, outcome, error,
    one-hot, so positive literals work). A step given its error category as a plain string
    ("timeout") is read like ErrorCategory.TIMEOUT."""
    c = crs.CRS()
    c.add_clause(
        crs.Clause(
            id="seq", literals=_neg("tool:x", "prev_tool:b", "prev_prev_tool:a"), source=HARD
        )
    )
    c.add_clause(crs.Clause(id="err", literals=_neg("tool:y", "error:timeout"), source=HARD))
    only_after_success = (crs.Literal("tool:deploy", True), crs.Literal("outcome:success"))
    c.add_clause(crs.Clause(id="pos", literals=only_after_success, source=HARD))
    # no step yet: the outcome family is unassigned, so the clause is "not yet violated"
    assert c.check_decision_allowed("s", "deploy").allowed
    c.record_step(_step("a"))
    c.record_step(_step("b"))
    assert "seq" in c.check_decision_allowed("s", "x").reason
    assert c.check_decision_allowed("s", "deploy").allowed
    failed = c.record_step(_step("z", outcome="failure", error_category="timeout"))
    assert failed.error_category == crs.ErrorCategory.TIMEOUT
    assert "err" in c.check_decision_allowed("s", "y").reason
    assert "pos" in c.check_decision_allowed("s", "deploy").reason
    assert c.check_decision_allowed("s", "x").allowed  # prev_prev_tool is b now
