# ruff: noqa: RUF001, RUF002  (the NOT and OR signs are the seed's clause notation)
"""Acceptance tests of the Go CRS reference page (seeds/001), through the public API only.

Each test names the seed statement it checks (type / function, and the sentence quoted or
paraphrased). The Python names follow spec/README.md §2; where the spec records a deliberate
difference the test asserts our documented behaviour and cites the section. docs/seed-acceptance.md
lists seed statement -> test.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

import crs

HARD = crs.SignalSource.HARD
SOFT = crs.SignalSource.SOFT
SAFETY = crs.SignalSource.SAFETY
PS = crs.ProofStatus
PUT = crs.ProofUpdateType


def _step(tool: str = "t", decision: str = "execute_tool", outcome: str = "success", **kw: object):
    fields: dict[str, object] = {
        "session_id": "s",
        "actor": "router",
        "decision": decision,
        "tool": tool,
        "outcome": outcome,
    }
    fields.update(kw)
    return crs.StepRecord(**fields)  # type: ignore[arg-type]


def _upd(node: str, kind: crs.ProofUpdateType, delta: int = 0, source=HARD) -> crs.ProofUpdate:
    return crs.ProofUpdate(node_id=node, type=kind, delta=delta, source=source)


# ---------------------------------------------------------------- constants and defaults


def test_seed_constants_have_the_documented_values() -> None:
    """Constants section: every numeric/string constant of the page."""
    assert crs.DEFAULT_INITIAL_PROOF_NUMBER == 10
    assert crs.PROOF_NUMBER_INFINITE == 2**64 - 1  # ^uint64(0)
    assert crs.DEFAULT_CIRCUIT_BREAKER_THRESHOLD == 2
    assert crs.DEFAULT_DELTA_QUERY_CHANNEL_SIZE == 10
    assert crs.DEFAULT_DELTA_RECORD_CHANNEL_SIZE == 100
    assert crs.DEFAULT_MAX_DELTA_RECORDS == 1000
    assert crs.DEFAULT_MAX_DEPENDENCY_EDGES == 100_000
    assert crs.DEFAULT_MAX_SIMILARITY_PAIRS == 100_000
    assert crs.MAX_ANALYTICS_HISTORY_RECORDS == 100
    assert crs.MAX_PROPAGATION_DEPTH == 100
    assert crs.MAX_RESULTS_PER_RECORD == 50
    assert crs.PROJECT_HASH_LENGTH == 16
    assert crs.CURRENT_SCHEMA_VERSION == "1.0"
    assert crs.CHECKPOINT_KEY_HASH_BYTES == 16
    assert crs.DEFAULT_SESSION_RESTORE_RETRIES == 3
    assert crs.DEFAULT_MAX_FILES_TO_REFRESH == 1000
    assert crs.DEFAULT_CHECKPOINT_MAX_AGE == 7 * 24 * 3600.0  # time.Duration -> float seconds


def test_seed_analytics_proof_keys() -> None:
    """ProofKeyAnalytics*: typed constants for analytics proof keys."""
    for kind in ("hotspots", "dead_code", "cycles", "path", "coupling", "references"):
        name = kind.upper()
        assert getattr(crs, f"PROOF_KEY_ANALYTICS_{name}_DONE") == f"analytics:{kind}:done"
        assert getattr(crs, f"PROOF_KEY_ANALYTICS_{name}_FOUND") == f"analytics:{kind}:found"


def test_seed_default_config() -> None:
    """Config: SnapshotEpochLimit default 1000, EnableMetrics default true, EnableTracing
    default true, MaxGeneration default 0; thresholds fall back to the default threshold."""
    cfg = crs.DefaultConfig()
    assert cfg.snapshot_epoch_limit == 1000
    assert cfg.enable_metrics is True
    assert cfg.enable_tracing is True
    assert cfg.max_generation == 0
    cfg.validate()
    with pytest.raises(crs.CRSError):
        crs.Config(snapshot_epoch_limit=-1).validate()


def test_seed_default_clause_config() -> None:
    """DefaultClauseConfig = {Scope: project, TTL: 7 days, MaxClauses: 1000}; ClauseScope
    TTLs: session = session duration, project = 7 days, global = 30 days."""
    cfg = crs.DEFAULT_CLAUSE_CONFIG
    assert cfg.scope == crs.ClauseScope.PROJECT
    assert cfg.ttl == 7 * 24 * 3600.0
    assert cfg.max_clauses == 1000
    assert crs.CLAUSE_SCOPE_TTL[crs.ClauseScope.PROJECT] == 7 * 24 * 3600.0
    assert crs.CLAUSE_SCOPE_TTL[crs.ClauseScope.GLOBAL] == 30 * 24 * 3600.0
    assert crs.CLAUSE_SCOPE_TTL[crs.ClauseScope.SESSION] is None


def test_seed_default_component_configs() -> None:
    """DefaultJournalConfig (SyncWrites true, MaxJournalBytes 1GB, AllowDegraded false,
    SkipCorruptedDeltas false), DefaultSessionRestorerConfig (7 d, 1000, git status, 3 retries),
    DefaultCycleDetectorConfig (MaxHistory 1000), DefaultTraceConfig (1000 steps, symbols and
    metadata on, no sanitizer), SecureTraceConfig (a SecretSanitizer), DefaultImportOptions
    (strict), DefaultGraphQueryConfig (5 min cache TTL, 30 s PageRank timeout),
    DefaultPersistenceConfig (30 s lock timeout, 3 retries, validate on restore)."""
    jc = crs.DefaultJournalConfig()
    assert jc.sync_writes is True
    assert jc.max_journal_bytes == 1 << 30
    assert jc.allow_degraded is False
    assert jc.skip_corrupted_deltas is False
    assert jc.in_memory is False
    rc = crs.DefaultSessionRestorerConfig()
    assert rc.checkpoint_max_age == 7 * 24 * 3600.0
    assert rc.max_files_to_refresh == 1000
    assert rc.use_git_status is True
    assert rc.max_retries == 3
    assert crs.DefaultCycleDetectorConfig().max_history == 1000
    assert crs.DefaultTraceConfig() == crs.TraceConfig(1000, True, True, None)
    assert isinstance(crs.SecureTraceConfig().sanitizer, crs.SecretSanitizer)
    assert crs.DefaultImportOptions().strict_validation is True
    gq = crs.DefaultGraphQueryConfig()
    assert (gq.cache_ttl_ms, gq.page_rank_timeout_ms) == (300_000, 30_000)
    pc = crs.DefaultPersistenceConfig()
    assert pc.lock_timeout_sec == 30
    assert pc.max_backup_retries == 3
    assert pc.validate_on_restore is True
    pc.validate()


# ---------------------------------------------------------------- enums


def test_seed_enum_values() -> None:
    """iota enums keep their numbers (ProofStatus, SignalSource, ConstraintType, DeltaType,
    ProofUpdateType) and their String() forms; IndexMask bits are 1 << iota."""
    assert [int(m) for m in PS] == [0, 1, 2, 3]
    assert [str(m) for m in PS] == ["unknown", "proven", "disproven", "expanded"]
    assert [str(m) for m in crs.SignalSource] == ["unknown", "hard", "soft", "safety"]
    assert [str(m) for m in crs.ConstraintType] == [
        "unknown",
        "mutual_exclusion",
        "implication",
        "ordering",
        "resource",
    ]
    assert int(crs.DeltaType.ANALYTICS) == 8
    assert int(crs.DeltaType.COMPOSITE) == 7
    assert str(crs.DeltaType.STREAMING) == "streaming"
    assert [int(m) for m in PUT] == [0, 1, 2, 3, 4, 5]
    assert str(PUT.RESET) == "reset"
    M = crs.IndexMask
    assert [int(M.PROOF), int(M.CONSTRAINT), int(M.SIMILARITY)] == [1, 2, 4]
    assert [int(M.DEPENDENCY), int(M.HISTORY), int(M.STREAMING)] == [8, 16, 32]


def test_seed_string_enums_and_is_valid() -> None:
    """Actor/Decision/Outcome/FailureType/AnalyticsQueryType values and IsValid()."""
    assert crs.Actor.MAIN_AGENT == "main_agent"
    assert crs.Actor.ROUTER.is_valid()
    assert crs.Actor.SYSTEM.is_valid()
    assert {d.value for d in crs.Decision} == {
        "select_tool",
        "execute_tool",
        "synthesize",
        "circuit_breaker",
        "retry",
        "complete",
        "error",
    }
    assert all(d.is_valid() for d in crs.Decision)
    assert {o.value for o in crs.Outcome} == {"success", "failure", "skipped", "forced"}
    assert all(o.is_valid() for o in crs.Outcome)
    assert crs.FailureType.SEMANTIC_REPETITION == "semantic_repetition"
    assert crs.FailureType.RESOLUTION_DEMOTION.is_valid()
    assert crs.AnalyticsQueryType.DEAD_CODE == "dead_code"
    assert all(q.is_valid() for q in crs.AnalyticsQueryType)
    assert {s.value for s in crs.ClauseScope} == {"session", "project", "global"}
    assert PUT.RESET.is_valid()
    assert not PUT.UNKNOWN.is_valid()


def test_seed_signal_source_predicates() -> None:
    """SignalSource.IsHard: hard and safety; IsSafety; IsValid: not unknown."""
    assert HARD.is_hard()
    assert SAFETY.is_hard()
    assert not SOFT.is_hard()
    assert SAFETY.is_safety()
    assert not HARD.is_safety()
    assert not crs.SignalSource.UNKNOWN.is_valid()
    assert HARD.is_valid()
    assert SOFT.is_valid()
    assert SAFETY.is_valid()


def test_seed_error_category() -> None:
    """ErrorCategoryNone is ""; IsRetryable is true for timeout, rate_limited, network."""
    assert crs.ErrorCategory.NONE.value == ""
    retryable = {c for c in crs.ErrorCategory if c.is_retryable()}
    assert retryable == {
        crs.ErrorCategory.TIMEOUT,
        crs.ErrorCategory.RATE_LIMITED,
        crs.ErrorCategory.NETWORK,
    }


def test_seed_index_mask_operations() -> None:
    """IndexMask: Add, Has, Names (bit order), String (comma-separated), MarshalJSON (array of
    names), UnmarshalJSON (array of names or a number), IndexMaskFromStrings/FromDelta."""
    M = crs.IndexMask
    m = M.PROOF.add(M.HISTORY)
    assert m.has(M.PROOF)
    assert m.has(M.HISTORY)
    assert not m.has(M.STREAMING)
    assert m.names() == ["proof", "history"]
    assert str(M.CONSTRAINT | M.PROOF) == "proof,constraint"
    assert json.loads(m.marshal_json()) == ["proof", "history"]
    assert M.unmarshal_json(b'["proof", "constraint"]') == M.PROOF | M.CONSTRAINT
    assert M.unmarshal_json(b"3") == M.PROOF | M.CONSTRAINT
    assert M.unmarshal_json(b'["proof", "analytics"]') == M.PROOF  # unknown names ignored
    with pytest.raises(crs.CRSError):
        M.unmarshal_json(b'{"proof": 1}')
    assert M.from_strings(["streaming", "proof"]) == M.PROOF | M.STREAMING
    assert M.from_delta(crs.ProofDelta(HARD, {})) == M.PROOF
    # the seed's package functions IndexMaskFromStrings / IndexMaskFromDelta (spec §2)
    assert crs.index_mask_from_strings(["history", "proof", "analytics"]) == M.PROOF | M.HISTORY
    comp = crs.CompositeDelta(crs.ProofDelta(HARD, {}), crs.StreamingDelta(HARD))
    assert crs.index_mask_from_delta(comp) == M.PROOF | M.STREAMING
    with pytest.raises(crs.CRSError):
        crs.index_mask_from_strings("proof")


# ---------------------------------------------------------------- CRS: snapshot, apply, generation


def test_seed_new_with_none_config_uses_defaults_and_generation_starts_at_zero() -> None:
    """New(nil) uses DefaultConfig(); Generation() is always >= 0."""
    c = crs.CRS(None)
    assert c.generation() == 0
    assert c.snapshot().generation() == 0
    assert c.snapshot().created_at() > 0


def test_seed_usage_example_apply_increments_generation() -> None:
    """Usage example / Generation: every Apply() increments the generation counter, and
    ApplyMetrics carries old/new generation, the delta type and the updated indexes."""
    c = crs.CRS(crs.DefaultConfig())
    delta = crs.ProofDelta(HARD, {"node1": crs.ProofNumber(proof=10, status=PS.EXPANDED)})
    m = c.apply(delta)
    assert (m.old_generation, m.new_generation) == (0, 1)
    assert c.generation() == 1
    assert m.delta_type == crs.DeltaType.PROOF
    assert m.indexes_updated.has(crs.IndexMask.PROOF)
    assert m.indexes_updated.names() == ["proof"]
    assert m.entries_modified == 1
    assert m.apply_duration >= 0
    assert m.validation_duration >= 0


def test_seed_snapshot_is_immutable_after_apply() -> None:
    """Snapshot(): "The snapshot is immutable and will not change even if Apply() is called"."""
    c = crs.CRS()
    before = c.snapshot()
    c.apply(crs.ProofDelta(HARD, {"n": crs.ProofNumber(proof=3)}))
    assert before.proof_index().get("n") is None
    assert before.proof_index().size() == 0
    assert before.generation() == 0
    assert c.snapshot().proof_index().get("n") == crs.ProofNumber(proof=3)


def test_seed_apply_nil_delta() -> None:
    """Apply: delta must not be nil (ErrNilDelta)."""
    with pytest.raises(crs.NilDeltaError):
        crs.CRS().apply(None)  # type: ignore[arg-type]


def test_seed_soft_signal_cannot_disprove() -> None:
    """Hard/Soft boundary: soft signals cannot mark nodes DISPROVEN; the error is both
    ErrDeltaValidation and ErrHardSoftBoundaryViolation (spec §2); nothing changes."""
    c = crs.CRS()
    bad = crs.ProofDelta(SOFT, {"n": crs.ProofNumber(status=PS.DISPROVEN)})
    with pytest.raises(crs.HardSoftBoundaryViolationError) as info:
        c.apply(bad)
    assert isinstance(info.value, crs.DeltaValidationError)
    assert c.generation() == 0
    # hard and safety may disprove, soft may prove
    c.apply(crs.ProofDelta(HARD, {"a": crs.ProofNumber(status=PS.DISPROVEN)}))
    c.apply(crs.ProofDelta(SAFETY, {"b": crs.ProofNumber(status=PS.DISPROVEN)}))
    c.apply(crs.ProofDelta(SOFT, {"p": crs.ProofNumber(status=PS.PROVEN)}))
    assert c.generation() == 3


def test_seed_composite_is_all_or_nothing() -> None:
    """Delta: "Atomicity: either all changes apply or none do" (CompositeDelta)."""
    c = crs.CRS()
    good = crs.ProofDelta(HARD, {"ok": crs.ProofNumber(proof=1)})
    bad = crs.ProofDelta(SOFT, {"x": crs.ProofNumber(status=PS.DISPROVEN)})
    with pytest.raises(crs.DeltaValidationError):
        c.apply(crs.CompositeDelta(good, bad))
    assert c.get_proof_status("ok") is None
    assert c.generation() == 0
    m = c.apply(crs.CompositeDelta(good, crs.HistoryDelta(HARD, [crs.HistoryEntry(id="h")])))
    assert m.new_generation == 1  # one increment for the whole composite
    assert m.indexes_updated == crs.IndexMask.PROOF | crs.IndexMask.HISTORY


def test_seed_checkpoint_and_restore() -> None:
    """Checkpoint/Restore: restore returns to the checkpoint's state; all changes since are
    discarded. The generation moves forward (spec §5.2), it never goes back."""
    c = crs.CRS()
    c.apply(crs.ProofDelta(HARD, {"a": crs.ProofNumber(proof=1)}))
    cp = c.checkpoint()
    assert cp.id
    assert cp.generation == 1
    assert cp.created_at > 0
    c.apply(crs.ProofDelta(HARD, {"b": crs.ProofNumber(proof=2)}))
    c.restore(cp)
    assert c.get_proof_status("b") is None
    assert c.get_proof_status("a") == crs.ProofNumber(proof=1)
    assert c.generation() == 3  # §5.2: restore is a committed change
    c.apply(crs.ProofDelta(HARD, {"c": crs.ProofNumber(proof=3)}))
    c.restore(cp)  # restoring twice gives the same content (checkpoints never alias)
    assert c.get_proof_status("c") is None


def test_seed_close_is_idempotent() -> None:
    """Close: "Safe for concurrent use. Idempotent." Background workers stop."""
    c = crs.CRS()
    history = c.delta_history()
    c.close()
    c.close()
    with pytest.raises(crs.DeltaHistoryClosedError):
        history.size()


# ---------------------------------------------------------------- steps


def test_seed_record_step_and_history_queries() -> None:
    """RecordStep / GetStepHistory (ordered, empty for unknown session) / GetLastStep (nil when
    not found) / GetStepsByActor / GetStepsByOutcome / ClearStepHistory."""
    c = crs.CRS()
    assert c.get_step_history("nobody") == []
    assert c.get_last_step("nobody") is None
    first = c.record_step(_step("a"))
    assert first.step_number == 1
    assert first.timestamp > 0
    c.record_step(_step("b", actor="main_agent", outcome="skipped"))
    c.record_step(_step("c", actor="system"))
    assert [s.tool for s in c.get_step_history("s")] == ["a", "b", "c"]
    assert [s.step_number for s in c.get_step_history("s")] == [1, 2, 3]
    last = c.get_last_step("s")
    assert last is not None
    assert last.tool == "c"
    assert [s.tool for s in c.get_steps_by_actor("s", crs.Actor.MAIN_AGENT)] == ["b"]
    assert [s.tool for s in c.get_steps_by_outcome("s", crs.Outcome.SUCCESS)] == ["a", "c"]
    assert c.get_steps_by_outcome("s", crs.Outcome.FORCED) == []
    c.clear_step_history("s")
    assert c.get_step_history("s") == []


def test_seed_count_tool_executions_counts_executions_not_selections() -> None:
    """CountToolExecutions: "Counts steps where Decision == DecisionExecuteTool, not
    DecisionSelectTool"; 0 if session not found or tool not used."""
    c = crs.CRS()
    c.record_step(_step("grep", decision="select_tool"))
    c.record_step(_step("grep"))
    c.record_step(_step("grep", decision="select_tool"))
    c.record_step(_step("grep"))
    assert c.count_tool_executions("s", "grep") == 2
    assert c.count_tool_executions("s", "other") == 0
    assert c.count_tool_executions("nobody", "grep") == 0


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ({"session_id": ""}, "session_id"),
        ({"actor": "bogus"}, "actor"),
        ({"decision": ""}, "decision"),
        ({"outcome": ""}, "outcome"),
        ({"outcome": "failure"}, "error_category"),  # a failure needs an ErrorCategory
        ({"confidence": 1.5}, "confidence"),  # 0.0-1.0
        ({"duration_ms": -1}, "duration_ms"),
    ],
)
def test_seed_step_record_validation(override: dict[str, object], field: str) -> None:
    """StepRecord.Validate: required fields present, values in valid ranges; RecordStep
    rejects an invalid step and records nothing."""
    c = crs.CRS()
    with pytest.raises(crs.CRSError, match=field):
        c.record_step(_step(**override))
    assert c.get_step_history("s") == []


def test_seed_step_record_predicates() -> None:
    """StepRecord.IsCircuitBreakerIntervention / IsTerminal / IsToolExecution; Validate
    requires the 1-indexed step number."""
    assert crs.StepRecord(decision="circuit_breaker").is_circuit_breaker_intervention()
    assert crs.StepRecord(terminal=True).is_terminal()
    assert crs.StepRecord(decision="execute_tool").is_tool_execution()
    assert not crs.StepRecord(decision="select_tool").is_tool_execution()
    _step(step_number=1).validate()
    with pytest.raises(crs.CRSError, match="step_number"):
        _step(step_number=0).validate()


# ---------------------------------------------------------------- proof numbers


def test_seed_update_proof_number_semantics() -> None:
    """UpdateProofNumber: Increment increases (failure), Decrement decreases (success),
    Disproven = infinite cost, Proven = solution; Reset = initial value; new nodes start at
    DefaultInitialProofNumber. "Lower = better"."""
    c = crs.CRS()
    pn = c.update_proof_number(_upd("n", PUT.INCREMENT, 3))
    assert pn.proof == 13
    assert pn.status == PS.EXPANDED
    assert pn.source == HARD
    assert c.update_proof_number(_upd("n", PUT.DECREMENT, 20)).proof == 0  # floored at 0
    reset = c.update_proof_number(_upd("n", PUT.RESET))
    assert (reset.proof, reset.status) == (10, PS.UNKNOWN)
    proven = c.update_proof_number(_upd("n", PUT.PROVEN, source=SOFT))
    assert (proven.proof, proven.status) == (0, PS.PROVEN)
    dis = c.update_proof_number(_upd("m", PUT.DISPROVEN))
    assert (dis.proof, dis.status) == (crs.PROOF_NUMBER_INFINITE, PS.DISPROVEN)
    big = c.update_proof_number(_upd("k", PUT.INCREMENT, crs.PROOF_NUMBER_INFINITE))
    assert big.proof == crs.PROOF_NUMBER_INFINITE  # saturates, never wraps


def test_seed_update_proof_number_validation() -> None:
    """ProofUpdate.Validate: node id, known type, known source; soft cannot disprove."""
    c = crs.CRS()
    with pytest.raises(crs.HardSoftBoundaryViolationError):
        c.update_proof_number(_upd("x", PUT.DISPROVEN, source=SOFT))
    assert c.get_proof_status("x") is None  # nothing created
    for bad in (
        _upd("", PUT.INCREMENT, 1),
        _upd("x", PUT.UNKNOWN, 1),
        _upd("x", PUT.INCREMENT, 1, source=crs.SignalSource.UNKNOWN),
    ):
        with pytest.raises(crs.CRSError):
            bad.validate()
        with pytest.raises(crs.CRSError):
            c.update_proof_number(bad)


def test_seed_get_proof_status_found_and_missing() -> None:
    """GetProofStatus: (ProofNumber, bool) -> ProofNumber | None (spec §2)."""
    c = crs.CRS()
    assert c.get_proof_status("nope") is None
    c.update_proof_number(_upd("n", PUT.INCREMENT, 1))
    got = c.get_proof_status("n")
    assert got is not None
    assert got.proof == 11
    assert got.updated_at > 0


# ---------------------------------------------------------------- circuit breaker


def test_seed_circuit_breaker_count_fallback() -> None:
    """DefaultCircuitBreakerThreshold = 2: "If a tool has been executed this many times, the
    circuit breaker fires" (when no proof data exists)."""
    c = crs.CRS()
    assert not c.check_circuit_breaker("s", "t").should_fire
    c.record_step(_step("t"))
    assert not c.check_circuit_breaker("s", "t").should_fire
    c.record_step(_step("t", decision="select_tool"))  # selections do not count
    assert not c.check_circuit_breaker("s", "t").should_fire
    c.record_step(_step("t"))
    res = c.check_circuit_breaker("s", "t")
    assert res.should_fire
    assert "2" in res.reason


def test_seed_circuit_breaker_per_tool_thresholds() -> None:
    """Config.CircuitBreakerThresholds: per-tool overrides; others use the default (CRS-16)."""
    c = crs.CRS(crs.Config(circuit_breaker_thresholds={"search": 3}))
    for _ in range(2):
        c.record_step(_step("search"))
    assert not c.check_circuit_breaker("s", "search").should_fire
    c.record_step(_step("search"))
    assert c.check_circuit_breaker("s", "search").should_fire
    for _ in range(2):
        c.record_step(_step("other"))
    assert c.check_circuit_breaker("s", "other").should_fire


def test_seed_circuit_breaker_proof_based() -> None:
    """CheckCircuitBreaker fires when the node is ProofStatusDisproven or its proof number is
    >= ProofNumberInfinite; otherwise the proof path decides (the count is not consulted)."""
    c = crs.CRS()
    c.update_proof_number(_upd("session:s:tool:dead", PUT.DISPROVEN))
    res = c.check_circuit_breaker("s", "dead")
    assert res.should_fire
    assert res.status == PS.DISPROVEN
    assert res.proof_number == crs.PROOF_NUMBER_INFINITE
    c.update_proof_number(_upd("session:s:tool:tired", PUT.INCREMENT, crs.PROOF_NUMBER_INFINITE))
    assert c.check_circuit_breaker("s", "tired").should_fire
    for _ in range(5):
        c.record_step(_step("fine"))
    c.update_proof_number(_upd("session:s:tool:fine", PUT.DECREMENT, 1))
    res = c.check_circuit_breaker("s", "fine")
    assert not res.should_fire
    assert res.proof_number == 9


# ---------------------------------------------------------------- dependencies, queries


def _graph_crs() -> crs.CRS:
    c = crs.CRS()
    c.apply(crs.DependencyDelta(HARD, add_edges=[("a", "b"), ("b", "c")]))
    return c


def test_seed_dependency_index_view() -> None:
    """DependencyIndexView: DependsOn, DependedBy, HasCycle, Size (edges), AllEdges (a copy),
    IsGraphBacked false for the built-in index (spec §5.6: edges are stored)."""
    c = _graph_crs()
    view = c.snapshot().dependency_index()
    assert view.depends_on("a") == ["b"]
    assert view.depended_by("c") == ["b"]
    assert view.size() == 2
    edges = view.all_edges()
    assert edges == {"a": ["b"], "b": ["c"]}
    edges["a"].append("zzz")
    assert view.all_edges() == {"a": ["b"], "b": ["c"]}
    assert not view.is_graph_backed()
    assert not view.has_cycle("a")


def test_seed_dependency_delta_rejects_self_edges_and_cycles() -> None:
    """DependencyDelta.Validate: a delta that would create a cycle is rejected."""
    c = _graph_crs()
    with pytest.raises(crs.DeltaValidationError):
        c.apply(crs.DependencyDelta(HARD, add_edges=[("x", "x")]))
    with pytest.raises(crs.DeltaValidationError):
        c.apply(crs.DependencyDelta(HARD, add_edges=[("c", "a")]))  # through existing edges
    assert c.generation() == 1


def test_seed_query_dependency_chain_and_affected() -> None:
    """FindDependencyChain: BFS shortest path start..end inclusive, empty if none;
    FindAffectedByNode: transitive closure of dependents."""
    q = _graph_crs().snapshot().query()
    assert q.find_dependency_chain("a", "c") == ["a", "b", "c"]
    assert q.find_dependency_chain("c", "a") == []
    assert q.find_affected_by_node("c") == ["a", "b"]
    assert q.find_affected_by_node("a") == []


def test_seed_propagate_disproof_raises_parents() -> None:
    """PropagateDisproof: "parent decisions that depended on it have their proof numbers
    increased (harder to prove)"; returns the number of nodes affected."""
    c = _graph_crs()
    c.update_proof_number(_upd("c", PUT.DISPROVEN))
    assert c.propagate_disproof("c") == 1
    parent = c.get_proof_status("b")
    assert parent is not None
    assert parent.proof == crs.DEFAULT_INITIAL_PROOF_NUMBER + 1
    assert c.get_proof_status("a") is None  # b is not disproven, so propagation stops
    assert c.propagate_disproof("unrelated") == 0


def test_seed_query_api_proof_filters() -> None:
    """QueryAPI: FindProvenNodes, FindDisprovenNodes, FindUnexploredNodes (UNKNOWN or
    EXPANDED), FindByProofRange (inclusive, sorted by proof ascending)."""
    c = crs.CRS()
    c.apply(
        crs.ProofDelta(
            HARD,
            {
                "p": crs.ProofNumber(proof=0, status=PS.PROVEN),
                "d": crs.ProofNumber(proof=crs.PROOF_NUMBER_INFINITE, status=PS.DISPROVEN),
                "e": crs.ProofNumber(proof=7, status=PS.EXPANDED),
                "u": crs.ProofNumber(proof=5, status=PS.UNKNOWN),
            },
        )
    )
    q = c.snapshot().query()
    assert q.find_proven_nodes() == ["p"]
    assert q.find_disproven_nodes() == ["d"]
    assert sorted(q.find_unexplored_nodes()) == ["e", "u"]
    assert q.find_by_proof_range(5, 7) == ["u", "e"]
    assert q.find_by_proof_range(8, 9) == []


def test_seed_query_api_constraints() -> None:
    """FindConstrainedNodes (ConstraintTypeUnknown = all types) and FindViolatedConstraints
    (constraints where at least one node is DISPROVEN)."""
    c = crs.CRS()
    c.apply(
        crs.ConstraintDelta(
            HARD,
            add=[
                crs.Constraint(id="k1", type=crs.ConstraintType.ORDERING, nodes=("a", "b")),
                crs.Constraint(id="k2", type=crs.ConstraintType.RESOURCE, nodes=("c",)),
            ],
        )
    )
    c.apply(crs.ProofDelta(HARD, {"c": crs.ProofNumber(status=PS.DISPROVEN)}))
    q = c.snapshot().query()
    assert q.find_constrained_nodes(crs.ConstraintType.UNKNOWN) == ["a", "b", "c"]
    assert q.find_constrained_nodes(crs.ConstraintType.ORDERING) == ["a", "b"]
    assert [k.id for k in q.find_violated_constraints()] == ["k2"]


def test_seed_query_api_history_hot_nodes_and_node_stats() -> None:
    """FindRecentDecisions (SignalSourceUnknown = all), FindHotNodes (top N by frequency),
    NodeStats (nil if the node is found nowhere)."""
    c = crs.CRS()
    c.apply(
        crs.HistoryDelta(
            HARD,
            [
                crs.HistoryEntry(id="h1", node_id="a", action="explore", source=HARD),
                crs.HistoryEntry(id="h2", node_id="b", action="analyze", source=SOFT),
            ],
        )
    )
    c.apply(crs.ProofDelta(HARD, {"a": crs.ProofNumber(proof=1), "b": crs.ProofNumber(proof=2)}))
    c.apply(crs.StreamingDelta(HARD, increments={"a": 3, "b": 7}))
    q = c.snapshot().query()
    assert [e.id for e in q.find_recent_decisions(5, crs.SignalSource.UNKNOWN)] == ["h1", "h2"]
    assert [e.id for e in q.find_recent_decisions(5, SOFT)] == ["h2"]
    hot = q.find_hot_nodes(1)
    assert [(h.node_id, h.frequency) for h in hot] == [("b", 7)]
    stats = q.node_stats("a")
    assert stats is not None
    assert stats.has_proof
    assert stats.proof_number.proof == 1
    assert stats.history_entry_count == 1
    assert stats.last_action == "explore"
    assert stats.access_frequency >= 3
    assert q.node_stats("nowhere") is None


def test_seed_index_views() -> None:
    """ProofIndexView Get/All/Size, ConstraintIndexView Get/FindByType/FindByNode/All/Size,
    HistoryIndexView Trace/Recent/Size, StreamingIndexView Estimate/Cardinality/Size."""
    c = crs.CRS()
    k = crs.Constraint(id="k", type=crs.ConstraintType.IMPLICATION, nodes=("a", "b"), active=True)
    c.apply(crs.ConstraintDelta(HARD, add=[k]))
    c.apply(crs.ProofDelta(HARD, {"a": crs.ProofNumber(proof=4)}))
    c.apply(
        crs.HistoryDelta(
            HARD,
            [crs.HistoryEntry(id=f"h{i}", node_id="a" if i % 2 else "b") for i in range(4)],
        )
    )
    c.apply(crs.StreamingDelta(HARD, increments={"x": 5}, cardinality_items=["y"]))
    s = c.snapshot()
    assert s.proof_index().get("a") == crs.ProofNumber(proof=4)
    assert s.proof_index().get("zz") is None
    assert s.proof_index().all() == {"a": crs.ProofNumber(proof=4)}
    assert s.proof_index().size() == 1
    ci = s.constraint_index()
    assert ci.get("k") == k
    assert ci.get("none") is None
    assert ci.find_by_type(crs.ConstraintType.IMPLICATION) == [k]
    assert ci.find_by_node("b") == [k]
    assert ci.find_by_node("zz") == []
    assert list(ci.all()) == ["k"]
    assert ci.size() == 1
    hi = s.history_index()
    assert [e.id for e in hi.trace("a")] == ["h1", "h3"]
    assert [e.id for e in hi.recent(2)] == ["h2", "h3"]
    assert hi.recent(0) == []
    assert hi.size() == 4
    si = s.streaming_index()
    assert si.estimate("x") >= 5  # Count-Min never under-counts (spec §5.10)
    assert si.estimate("y") >= 1
    assert si.cardinality() == 2
    assert si.size() > 0


def test_seed_constraint_delta_validation() -> None:
    """ConstraintDelta: removing or updating an unknown id fails (ErrIndexNotFound); adding an
    existing id fails validation."""
    c = crs.CRS()
    c.apply(crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k1")]))
    with pytest.raises(crs.IndexNotFoundError):
        c.apply(crs.ConstraintDelta(HARD, remove=["nope"]))
    with pytest.raises(crs.DeltaValidationError):
        c.apply(crs.ConstraintDelta(HARD, update={"nope": crs.Constraint(id="nope")}))
    with pytest.raises(crs.DeltaValidationError):
        c.apply(crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k1")]))
    c.apply(crs.ConstraintDelta(HARD, remove=["k1"]))
    assert c.snapshot().constraint_index().size() == 0


def test_seed_delta_interface_methods() -> None:
    """Delta: Type, Source, Timestamp (ms), IndexesAffected, ConflictsWith, Merge."""
    before = int(time.time() * 1000)
    d1 = crs.ProofDelta(HARD, {"a": crs.ProofNumber(proof=1)})
    d2 = crs.ProofDelta(SOFT, {"a": crs.ProofNumber(proof=2), "b": crs.ProofNumber()})
    d3 = crs.ProofDelta(HARD, {"c": crs.ProofNumber()})
    assert d1.type() == crs.DeltaType.PROOF
    assert d1.source() == HARD
    assert d1.timestamp() >= before
    assert d1.indexes_affected() == ["proof"]
    assert d1.conflicts_with(d2)
    assert not d1.conflicts_with(d3)
    merged = d1.merge(d3)
    assert isinstance(merged, crs.ProofDelta)
    assert set(merged.updates) == {"a", "c"}
    mixed = d1.merge(crs.HistoryDelta(HARD, [crs.HistoryEntry(id="h")]))
    assert mixed.type() == crs.DeltaType.COMPOSITE
    assert crs.ConstraintDelta(HARD).indexes_affected() == ["constraint"]
    assert crs.SimilarityDelta(HARD).type() == crs.DeltaType.SIMILARITY
    assert crs.DependencyDelta(HARD).indexes_affected() == ["dependency"]
    assert crs.HistoryDelta(HARD, []).type() == crs.DeltaType.HISTORY
    assert crs.StreamingDelta(HARD).indexes_affected() == ["streaming"]
    comp = crs.CompositeDelta(d1, crs.StreamingDelta(SOFT))
    assert comp.type() == crs.DeltaType.COMPOSITE
    assert comp.indexes_affected() == ["proof", "streaming"]
    assert comp.conflicts_with(d2)
    assert comp.source() == HARD  # hard if any child is hard


def test_seed_history_delta_and_streaming_never_conflict() -> None:
    """HistoryDelta / StreamingDelta / AnalyticsDelta: ConflictsWith(_) is always false."""
    h = crs.HistoryDelta(HARD, [crs.HistoryEntry(id="h", node_id="a")])
    s = crs.StreamingDelta(HARD, increments={"a": 1})
    assert not h.conflicts_with(h)
    assert not s.conflicts_with(s)
    a = crs.create_analytics_delta(crs.AnalyticsQueryType.HOTSPOTS, 1, 2)
    assert not a.conflicts_with(a)


# ---------------------------------------------------------------- clauses


def _clause(cid: str = "c1", source=HARD) -> crs.Clause:
    return crs.Clause(
        id=cid,
        literals=(crs.Literal("tool:list_packages", True), crs.Literal("outcome:success", True)),
        source=source,
    )


def test_seed_clause_satisfied_and_violated() -> None:
    """Clause.IsSatisfied: ANY literal true; Clause.IsViolated: ALL literals false, and an
    unassigned variable means "not yet violated"."""
    c = _clause()
    both = {"tool:list_packages": True, "outcome:success": True}
    assert c.is_violated(both)
    assert not c.is_satisfied(both)
    assert not c.is_violated({"tool:list_packages": True})  # outcome unassigned
    assert c.is_satisfied({"tool:list_packages": False})
    positive = crs.Clause(id="p", literals=(crs.Literal("tool:a"),), source=HARD)
    assert positive.is_satisfied({"tool:a": True})
    assert positive.is_violated({"tool:a": False})


def test_seed_clause_and_literal_strings() -> None:
    """Clause example: (¬tool:list_packages ∨ ¬outcome:success ...); Literal.String."""
    assert str(crs.Literal("tool:a", True)) == "¬tool:a"
    assert str(crs.Literal("tool:a")) == "tool:a"
    assert str(_clause()) == "(¬tool:list_packages ∨ ¬outcome:success)"


def test_seed_clause_validate() -> None:
    """Clause.Validate: id, at least one literal, non-empty variables, source HARD for
    CDCL-learned clauses (safety counts as hard)."""
    _clause().validate()
    _clause(source=SAFETY).validate()
    for bad in (
        _clause(""),
        crs.Clause(id="x", source=HARD),
        crs.Clause(id="x", literals=(crs.Literal(""),), source=HARD),
    ):
        with pytest.raises(crs.CRSError):
            bad.validate()
    with pytest.raises(crs.HardSoftBoundaryViolationError):
        crs.CRS().add_clause(_clause(source=SOFT))


def test_seed_check_decision_allowed_blocks_learned_pattern() -> None:
    """CheckDecisionAllowed: builds the assignment from the step history and the proposed tool
    and checks it against learned clauses; returns (allowed, reason) (spec §2 NamedTuple)."""
    c = crs.CRS()
    c.add_clause(_clause())
    assert c.check_decision_allowed("s", "list_packages") == (True, "")  # no history yet
    c.record_step(_step("list_packages"))
    allowed, reason = c.check_decision_allowed("s", "list_packages")
    assert not allowed
    assert "c1" in reason
    res = c.check_decision_allowed("s", "other_tool")
    assert res.allowed
    assert res.reason == ""


def test_seed_add_clause_semantic_duplicates() -> None:
    """AddClause: "Checks for semantic duplicates" (same literals in any order are one clause)."""
    c = crs.CRS()
    c.add_clause(_clause("c1"))
    same = crs.Clause(
        id="c2",
        literals=(crs.Literal("outcome:success", True), crs.Literal("tool:list_packages", True)),
        source=HARD,
    )
    c.add_clause(same)
    ci = c.snapshot().constraint_index()
    assert ci.clause_count() == 1
    got = ci.get_clause("c1")
    assert got is not None
    assert got.use_count >= 1
    assert ci.get_clause("c2") is None
    assert set(ci.all_clauses()) == {"c1"}


def test_seed_add_clause_lru_eviction_at_max_clauses() -> None:
    """ClausePersistence.MaxClauses: "maximum clauses per scope (LRU eviction)"."""
    c = crs.CRS()
    c.set_clause_config(crs.ClausePersistence(crs.ClauseScope.PROJECT, 3600.0, 3))
    for i in range(4):
        c.add_clause(
            crs.Clause(id=f"c{i}", literals=(crs.Literal(f"tool:t{i}", True),), source=HARD)
        )
    ci = c.snapshot().constraint_index()
    assert ci.clause_count() == 3
    assert ci.get_clause("c0") is None
    assert ci.get_clause("c3") is not None


def test_seed_check_assignment_reports_first_violation() -> None:
    """ConstraintIndexView.CheckAssignment: returns the violated clause and a reason."""
    c = crs.CRS()
    c.add_clause(_clause())
    ci = c.snapshot().constraint_index()
    res = ci.check_assignment({"tool:list_packages": True, "outcome:success": True})
    assert res.conflict
    assert res.violated_clause is not None
    assert res.violated_clause.id == "c1"
    assert res.reason
    ok = ci.check_assignment({"tool:list_packages": False})
    assert not ok.conflict
    assert ok.violated_clause is None


def test_seed_garbage_collect_clauses_returns_count() -> None:
    """GarbageCollectClauses: removes clauses older than their TTL; returns the count."""
    c = crs.CRS()
    old = int(time.time() * 1000) - 10 * 24 * 3600 * 1000
    c.add_clause(
        crs.Clause(id="old", literals=(crs.Literal("tool:x", True),), source=HARD, learned_at=old)
    )
    c.add_clause(_clause("fresh"))
    removed = c.garbage_collect_clauses()
    ci = c.snapshot().constraint_index()
    # a learned_at the caller supplies may be replaced by the add time (LearnedAt = now);
    # either way nothing fresh is removed and the count matches what disappeared
    assert removed == 2 - ci.clause_count()
    assert ci.get_clause("fresh") is not None


def test_seed_failure_event_validate() -> None:
    """FailureEvent.Validate: checks required fields."""
    ok = crs.FailureEvent(
        session_id="s",
        failure_type=crs.FailureType.TOOL_ERROR,
        failed_step=_step("t", step_number=1, outcome="failure", error_category="internal"),
        tool="t",
        source=HARD,
    )
    ok.validate()
    with pytest.raises(crs.CRSError):
        crs.FailureEvent().validate()


# ---------------------------------------------------------------- similarity


def test_seed_record_and_get_similarity() -> None:
    """RecordSimilarity validation (keys non-empty, key2 != key1, distance >= 0) and
    GetSimilarity ((-1, false) when missing -> None, spec §2); symmetric lookup."""
    c = crs.CRS()
    for args in (("", "b", 0.1), ("a", "", 0.1), ("a", "a", 0.1), ("a", "b", -0.5)):
        with pytest.raises(crs.CRSError):
            c.record_similarity(*args)
    assert c.get_similarity("a", "b") is None
    c.record_similarity("grep:parseConfig", "grep:parse_config", 0.2)
    assert c.get_similarity("grep:parse_config", "grep:parseConfig") == 0.2
    assert c.generation() == 1  # spec §5.2


def test_seed_similarity_index_view() -> None:
    """SimilarityIndexView: Distance, NearestNeighbors (sorted by distance, lower = more
    similar), Size, AllPairs, AllPairsFiltered (fromID < toID, -1 unlimited, truncated flag)."""
    c = crs.CRS()
    c.record_similarity("q", "a", 0.5)
    c.record_similarity("q", "b", 0.1)
    c.record_similarity("x", "y", 0.3)
    v = c.snapshot().similarity_index()
    assert v.distance("a", "q") == 0.5
    assert v.distance("a", "zz") is None
    assert [(m.node_id, m.distance) for m in v.nearest_neighbors("q", 5)] == [
        ("b", 0.1),
        ("a", 0.5),
    ]
    assert v.nearest_neighbors("q", 0) == []
    assert v.size() == 3
    pairs, truncated = v.all_pairs_filtered(-1)
    assert not truncated
    assert all(p.from_id < p.to_id for p in pairs)
    assert len(pairs) == 3
    _, truncated = v.all_pairs_filtered(1)
    assert truncated
    assert sum(len(inner) for inner in v.all_pairs().values()) == 3


def test_seed_similarity_delta_validation() -> None:
    """SimilarityDelta: (node1, node2) -> distance; invalid pairs are rejected."""
    c = crs.CRS()
    c.apply(crs.SimilarityDelta(HARD, updates={("a", "b"): 0.4}))
    assert c.get_similarity("b", "a") == 0.4
    with pytest.raises(crs.DeltaValidationError):
        c.apply(crs.SimilarityDelta(HARD, updates={("a", "a"): 0.1}))
    with pytest.raises(crs.DeltaValidationError):
        c.apply(crs.SimilarityDelta(HARD, updates={("a", "c"): -1.0}))


# ---------------------------------------------------------------- delta history


def test_seed_apply_with_source_and_delta_history() -> None:
    """SetSessionID / ApplyWithSource / DeltaHistory: records source, session, metadata and the
    affected nodes; GetRange is (from, to]; GetByGeneration (record, found); GetByNode; Explain;
    Size. Apply() records the delta's signal source."""
    c = crs.CRS()
    c.set_session_id("sess-1")
    m1 = c.apply_with_source(
        crs.ProofDelta(HARD, {"n1": crs.ProofNumber(proof=3)}), "AwarenessActivity", {"k": "v"}
    )
    m2 = c.apply(crs.ProofDelta(HARD, {"n1": crs.ProofNumber(proof=4), "n2": crs.ProofNumber()}))
    h = c.delta_history()
    rec = h.get_by_generation(m1.new_generation)
    assert rec is not None
    assert (rec.source, rec.session_id, rec.metadata) == ("AwarenessActivity", "sess-1", {"k": "v"})
    assert rec.delta_type == crs.DeltaType.PROOF
    assert rec.affected_nodes == ("n1",)
    assert rec.id
    assert rec.timestamp > 0
    assert rec.delta_bytes
    assert h.get_by_generation(999) is None
    assert [r.generation for r in h.get_range(0, m2.new_generation)] == [1, 2]
    assert [r.generation for r in h.get_range(1, 2)] == [2]  # exclusive start
    assert h.get_range(5, 9) == []
    assert [r.generation for r in h.get_by_node("n1")] == [1, 2]
    assert [r.generation for r in h.explain("n2")] == [2]
    assert h.size() == 2
    last = h.get_by_generation(m2.new_generation)
    assert last is not None
    assert last.source == "hard"


def test_seed_delta_history_worker_bounds_and_close() -> None:
    """NewDeltaHistoryWorker(maxRecords <= 0 -> DefaultMaxDeltaRecords); oldest evicted at the
    cap; All in chronological order; Close (idempotent) -> ErrDeltaHistoryClosed."""
    w = crs.DeltaHistoryWorker(2, None)
    for gen in (1, 2, 3):
        w.record(crs.ProofDelta(HARD, {f"n{gen}": crs.ProofNumber()}), gen, "src", "s", None)
    assert w.size() == 2
    assert [r.generation for r in w.all()] == [2, 3]
    w.close()
    w.close()
    with pytest.raises(crs.DeltaHistoryClosedError):
        w.get_range(0, 10)
    default = crs.DeltaHistoryWorker(0, None)
    for gen in range(1, crs.DEFAULT_MAX_DELTA_RECORDS + 3):
        default.record(crs.StreamingDelta(HARD, increments={"x": 1}), gen, "s", "s", None)
    assert default.size() == crs.DEFAULT_MAX_DELTA_RECORDS
    default.close()


# ---------------------------------------------------------------- analytics


def test_seed_analytics_record_builders() -> None:
    """NewAnalyticsRecord: unique ID even within one millisecond; With* builders;
    TruncateResults limits Results to MaxResultsPerRecord; HasResults; proof keys."""
    now = int(time.time() * 1000)
    a = crs.AnalyticsRecord(crs.AnalyticsQueryType.HOTSPOTS, now, 60, 5)
    b = crs.AnalyticsRecord(crs.AnalyticsQueryType.HOTSPOTS, now, 60, 5)
    assert a.id
    assert b.id
    assert a.id != b.id
    assert a.has_results()
    rec = a.with_results([f"s{i}" for i in range(60)]).truncate_results()
    assert len(rec.results) == crs.MAX_RESULTS_PER_RECORD
    assert a.get_proof_done_key() == crs.PROOF_KEY_ANALYTICS_HOTSPOTS_DONE
    assert a.get_proof_found_key() == crs.PROOF_KEY_ANALYTICS_HOTSPOTS_FOUND
    cyc = crs.AnalyticsRecord(crs.AnalyticsQueryType.CYCLES, now, 1, 1).with_cycles([["a", "b"]])
    assert cyc.cycles == (("a", "b"),)
    assert cyc.has_results()
    path = crs.AnalyticsRecord(crs.AnalyticsQueryType.PATH, now, 0, 1).with_path(["a", "b"])
    assert path.path == ("a", "b")
    gen = a.with_graph_generation(7).with_typed_params(crs.AnalyticsQueryParams(limit=5))
    assert gen.graph_generation == 7
    assert gen.params.limit == 5
    assert not crs.AnalyticsRecord(crs.AnalyticsQueryType.DEAD_CODE, now, 0, 1).has_results()


def test_seed_analytics_delta_applies_history_and_proof_markers() -> None:
    """AnalyticsDelta: records the query in CRS history and sets proof markers (done, and found
    when results exist); GetAnalyticsHistory / GetLastAnalytics / HasRunAnalytics, also on the
    snapshot."""
    c = crs.CRS()
    d = crs.create_analytics_delta(crs.AnalyticsQueryType.HOTSPOTS, 3, 12)
    assert d.source() == HARD
    assert d.type() == crs.DeltaType.ANALYTICS
    assert "proof" in d.indexes_affected()
    c.apply(d)
    assert c.has_run_analytics(crs.AnalyticsQueryType.HOTSPOTS)
    assert not c.has_run_analytics(crs.AnalyticsQueryType.PATH)
    last = c.get_last_analytics(crs.AnalyticsQueryType.HOTSPOTS)
    assert last is not None
    assert last.result_count == 3
    assert last.execution_ms == 12
    assert c.get_last_analytics(crs.AnalyticsQueryType.PATH) is None
    assert len(c.get_analytics_history()) == 1
    done = c.get_proof_status(crs.PROOF_KEY_ANALYTICS_HOTSPOTS_DONE)
    assert done is not None
    assert done.status == PS.PROVEN
    assert c.get_proof_status(crs.PROOF_KEY_ANALYTICS_HOTSPOTS_FOUND) is not None
    empty = crs.AnalyticsDelta(
        HARD, crs.AnalyticsRecord(crs.AnalyticsQueryType.DEAD_CODE, int(time.time() * 1000), 0, 1)
    )
    c.apply(empty)
    assert c.get_proof_status(crs.PROOF_KEY_ANALYTICS_DEAD_CODE_DONE) is not None
    assert c.get_proof_status(crs.PROOF_KEY_ANALYTICS_DEAD_CODE_FOUND) is None
    snap = c.snapshot()
    assert snap.has_run_analytics(crs.AnalyticsQueryType.DEAD_CODE)
    assert [r.query_type for r in snap.analytics_history()] == ["hotspots", "dead_code"]
    assert snap.last_analytics(crs.AnalyticsQueryType.HOTSPOTS) is not None


def test_seed_analytics_delta_validation() -> None:
    """AnalyticsDelta.Validate: required fields present; ExecutionMs must be non-negative."""
    c = crs.CRS()
    with pytest.raises(crs.CRSError):
        c.apply(crs.AnalyticsDelta(HARD, crs.AnalyticsRecord("hotspots", 1, 0, -1)))
    with pytest.raises(crs.CRSError):
        c.apply(crs.AnalyticsDelta(HARD, crs.AnalyticsRecord("", 1, 0, 1)))
    with pytest.raises(crs.CRSError):
        c.apply(crs.AnalyticsDelta(HARD, crs.AnalyticsRecord("hotspots", 1, -1, 1)))
    assert c.generation() == 0


def test_seed_analytics_history_ring() -> None:
    """AnalyticsHistory(maxSize): Add, All (chronological copy), GetLast, HasRun, Size; the
    oldest record is overwritten when full."""
    h = crs.AnalyticsHistory(2)
    recs = [crs.AnalyticsRecord(q, 1, 1, 1) for q in ("hotspots", "path", "cycles")]
    for r in recs:
        h.add(r)
    assert h.size() == 2
    assert [r.query_type for r in h.all()] == ["path", "cycles"]
    assert h.get_last(crs.AnalyticsQueryType.HOTSPOTS) is None
    assert h.has_run(crs.AnalyticsQueryType.CYCLES)


# ---------------------------------------------------------------- cycles


def test_seed_cycle_detector_reports_cycles_spec_5_7() -> None:
    """CycleDetector.AddStep: cycle detection with the cycle's states, length and tail. The
    exact window rule is spec §5.7: A,B,C,B reports [B,C] at step 4; X,A,A reports [A]."""
    d = crs.CycleDetector(None)
    results = [d.add_step(s) for s in ("A", "B", "C", "B")]
    assert [r.detected for r in results] == [False, False, False, True]
    last = results[-1]
    assert last.cycle == ("B", "C")
    assert last.cycle_length == 2
    assert last.tail_length == 1
    assert last.state_key == "B"
    stats = d.stats()
    assert stats.steps_processed == 4
    assert stats.cycles_detected == 1
    assert stats.max_history == 1000
    assert stats.last_cycle_time is not None
    d.reset()
    assert d.stats().steps_processed == 0
    r = [d.add_step(s) for s in ("X", "A", "A")][-1]
    assert r.detected
    assert r.cycle == ("A",)


def test_seed_cycle_detector_max_history_default() -> None:
    """NewCycleDetector(config): "Uses defaults if nil"; MaxHistory default 1000."""
    assert crs.CycleDetector(None).stats().max_history == 1000
    assert crs.CycleDetector(crs.CycleDetectorConfig(max_history=8)).stats().max_history == 8


def test_seed_state_keys() -> None:
    """GetStateKey captures tool, outcome and actor (ignoring step numbers and timestamps);
    GetToolStateKey is "<tool>:<outcome>" (e.g. "list_packages:success")."""
    a = _step("list_packages", step_number=1, timestamp=5)
    b = _step("list_packages", step_number=9, timestamp=99)
    assert crs.get_state_key(a) == crs.get_state_key(b)
    key = crs.get_state_key(a)
    assert "list_packages" in key
    assert "success" in key
    assert "router" in key
    assert crs.get_state_key(a) != crs.get_state_key(_step("list_packages", actor="system"))
    assert crs.get_tool_state_key(a) == "list_packages:success"


def test_seed_build_decision_graph_and_analyze_session_cycles() -> None:
    """BuildDecisionGraph: nodes = state keys, edges connect consecutive states (never nil);
    AnalyzeSessionCycles: Tarjan SCC over the session's steps, CyclicSCCs have > 1 node."""
    steps = [_step(t) for t in "ABAB"]
    g = crs.build_decision_graph(steps)
    ka, kb = crs.get_state_key(steps[0]), crs.get_state_key(steps[1])
    assert g.nodes == (ka, kb)
    assert kb in g.edges[ka]
    assert ka in g.edges[kb]
    empty = crs.build_decision_graph([])
    assert empty.nodes == ()
    assert dict(empty.edges) == {}
    c = crs.CRS()
    for s in [*steps, _step("C")]:
        c.record_step(s)
    a = crs.analyze_session_cycles(c, "s")
    assert a.session_id == "s"
    assert a.total_sccs == 2
    assert [sorted(scc) for scc in a.cyclic_sccs] == [sorted([ka, kb])]
    assert a.largest_scc_size == 2
    none = crs.analyze_session_cycles(c, "nobody")
    assert (none.total_sccs, none.cyclic_sccs, none.largest_scc_size) == (0, (), 0)


def test_seed_check_cycle_on_step_disproves_and_records_breaker() -> None:
    """CheckCycleOnStep: on a detected cycle, marks the cycle states disproven and records a
    circuit breaker step; spec §5.7: the circuit breaker's tool nodes are disproven too."""
    c = crs.CRS()
    det = crs.CycleDetector(None)
    result = crs.CycleDetectionResult()
    for t in ("A", "B", "A"):
        step = c.record_step(_step(t))
        result = crs.check_cycle_on_step(c, step, det)
    assert result.detected
    assert result.cycle_length == 2
    last = c.get_last_step("s")
    assert last is not None
    assert last.decision == crs.Decision.CIRCUIT_BREAKER
    assert last.actor == crs.Actor.SYSTEM
    assert last.outcome == crs.Outcome.FORCED
    assert c.check_circuit_breaker("s", "A").should_fire
    assert c.check_circuit_breaker("s", "B").should_fire


# ---------------------------------------------------------------- serializer


def _rich_crs() -> crs.CRS:
    c = crs.CRS()
    c.apply(
        crs.ProofDelta(
            HARD,
            {
                "p": crs.ProofNumber(proof=0, status=PS.PROVEN),
                "d": crs.ProofNumber(status=PS.DISPROVEN),
                "e": crs.ProofNumber(proof=4, status=PS.EXPANDED),
            },
        )
    )
    c.apply(crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k", nodes=("p",), active=True)]))
    c.record_similarity("zz", "aa", 0.5)
    c.apply(crs.DependencyDelta(HARD, add_edges=[("a", "b")]))
    c.apply(crs.HistoryDelta(HARD, [crs.HistoryEntry(id="h", node_id="p", action="explore")]))
    return c


def test_seed_serializer_export_and_summary() -> None:
    """Serializer.Export: all six indexes and summary metrics; ComputeSummary: explored =
    proof entries, unknown = UNKNOWN or EXPANDED, confidence = proven / explored; nil snapshot
    -> empty export / empty summary."""
    c = _rich_crs()
    ser = crs.Serializer(None)
    e = ser.export(c.snapshot(), "sess")
    assert (e.session_id, e.generation) == ("sess", c.generation())
    assert e.timestamp > 0
    s = e.summary
    assert (s.nodes_explored, s.nodes_proven, s.nodes_disproven, s.nodes_unknown) == (3, 1, 1, 1)
    assert s.constraints_applied == 1
    assert s.exploration_depth == 1
    assert s.confidence_score == pytest.approx(1 / 3)
    assert ser.compute_summary(c.snapshot()) == s
    assert ser.export_summary_only(c.snapshot()) == s
    assert ser.export_summary_only(None) == crs.ReasoningSummary()
    assert ser.export(None, "x").summary == crs.ReasoningSummary()
    statuses = {p.node_id: p.status for p in e.indexes.proof.entries}
    assert statuses == {"p": "proven", "d": "disproven", "e": "expanded"}
    assert e.indexes.similarity.pair_count == 1
    assert e.indexes.dependency.edge_count == 1
    assert e.indexes.history.entry_count == 1
    doc = json.loads(json.dumps(e.to_dict()))
    assert set(doc["indexes"]) == {
        "proof",
        "constraint",
        "similarity",
        "dependency",
        "history",
        "streaming",
    }
    assert set(doc["summary"]) >= {"nodes_explored", "confidence_score"}


def test_seed_serializer_export_full() -> None:
    """ExportFull: similarity pairs (one direction, FromID < ToID) and dependency edges
    ("legacy" source); limits (0 = default 100K, -1 = unlimited) with Truncated + Warnings;
    a nil snapshot is an error."""
    c = _rich_crs()
    c.record_similarity("m", "n", 0.1)
    ser = crs.Serializer(None)
    full = ser.export_full(c.snapshot(), "sess", None)
    assert full.export is not None
    assert not full.truncated
    assert full.warnings == ()
    sim = full.export.indexes.similarity
    assert [(p.from_id, p.to_id) for p in sorted(sim.pairs, key=lambda p: p.from_id)] == [
        ("aa", "zz"),
        ("m", "n"),
    ]
    dep = full.export.indexes.dependency
    assert [(x.from_id, x.to_id) for x in dep.edges] == [("a", "b")]
    assert dep.source == "legacy"
    cut = ser.export_full(c.snapshot(), "sess", crs.ExportOptions(max_similarity_pairs=1))
    assert cut.truncated
    assert cut.warnings
    assert cut.export is not None
    assert cut.export.indexes.similarity.truncated
    unlimited = ser.export_full(c.snapshot(), "s", crs.ExportOptions(-1, -1))
    assert not unlimited.truncated
    with pytest.raises(crs.CRSError, match="snapshot"):
        ser.export_full(None, "sess", None)  # type: ignore[arg-type]


def test_seed_serializer_import_round_trip() -> None:
    """Serializer.Import: reconstructs proof, constraint, similarity, dependency (forward and
    reverse, duplicates removed) and history; strict validation rejects count mismatches.
    Similarity is kept once, canonically, as a distance (spec §5.9), not in both directions."""
    c = _rich_crs()
    ser = crs.Serializer(None)
    full = ser.export_full(c.snapshot(), "sess", None).export
    assert full is not None
    st = ser.import_(full, None)
    assert st.generation == c.generation()
    assert st.session_id == "sess"
    assert set(st.proof_data) == {"p", "d", "e"}
    assert st.proof_data["d"].status == PS.DISPROVEN
    assert set(st.constraint_data) == {"k"}
    assert st.similarity_data == {"aa": {"zz": 0.5}}  # §5.9: once, canonically
    assert st.dependency_forward == {"a": {"b"}}
    assert st.dependency_reverse == {"b": {"a"}}
    assert [h.id for h in st.history_data] == ["h"]
    doc = full.to_dict()
    doc["indexes"]["dependency"]["edges"].append({"from_id": "a", "to_id": "b"})
    assert ser.import_(doc, crs.ImportOptions(strict_validation=False)).dependency_forward == {
        "a": {"b"}
    }
    with pytest.raises(crs.CRSError):
        ser.import_(doc, None)  # strict: 2 edges listed, 1 unique
    with pytest.raises(crs.CRSError):
        ser.import_(None, None)  # type: ignore[arg-type]


# ---------------------------------------------------------------- sanitizer and trace


@pytest.mark.parametrize(
    "secret",
    [
        "AKIAIOSFODNN7EXAMPLE",
        "AIza" + "B" * 35,
        "ghp_" + "a" * 36,
        "xoxb-" + "1234567890-abcdef",
        "-----BEGIN RSA PRIVATE KEY-----",
        'api_key = "' + "k" * 24 + '"',
        "postgres://user:hunter2@db.example.com/app",
        'password = "correct horse battery"',
    ],
)
def test_seed_secret_sanitizer_redacts_documented_formats(secret: str) -> None:
    """NewSecretSanitizer: AWS keys, Google API keys, GitHub tokens, Slack tokens, private keys,
    generic API keys and passwords, DB connection strings -> [REDACTED]."""
    out = crs.SecretSanitizer().sanitize(f"before {secret} after")
    assert "[REDACTED]" in out
    assert secret not in out
    assert out.startswith("before ")
    if "PRIVATE KEY" not in secret:  # a PEM header redacts the key body after it too
        assert out.endswith(" after")


def test_seed_secret_sanitizer_map_and_plain_text() -> None:
    """Sanitize leaves clean text alone and replaces every secret; SanitizeMap returns a new
    map with values sanitized and keys preserved."""
    s = crs.SecretSanitizer()
    assert s.sanitize("nothing to see") == "nothing to see"
    two = s.sanitize("AKIAIOSFODNN7EXAMPLE and ghp_" + "b" * 36)
    assert two.count("[REDACTED]") == 2
    src = {"note": "key AKIAIOSFODNN7EXAMPLE", "ok": "fine"}
    out = s.sanitize_map(src)
    assert out is not src
    assert set(out) == {"note", "ok"}
    assert out["note"] == "key [REDACTED]"
    assert out["ok"] == "fine"
    assert src["note"] == "key AKIAIOSFODNN7EXAMPLE"


def test_seed_trace_recorder() -> None:
    """TraceRecorder.RecordStep assigns step numbers (1-indexed) and timestamps; MaxSteps evicts
    the oldest; GetSteps copy; LastStep nil when empty; StepCount; Clear; Export."""
    r = crs.TraceRecorder(crs.TraceConfig(max_steps=2, record_symbols=True, record_metadata=True))
    assert r.last_step() is None
    assert r.step_count() == 0
    for action in ("explore", "analyze", "trace_flow"):
        r.record_step(crs.TraceStep(step=99, action=action, target="f.go"))
    steps = r.get_steps()
    assert [s.action for s in steps] == ["analyze", "trace_flow"]
    assert [s.step for s in steps] == [2, 3]
    assert all(s.timestamp > 0 for s in steps)
    last = r.last_step()
    assert last is not None
    assert last.action == "trace_flow"
    ex = r.export("sess")
    assert ex.session_id == "sess"
    assert ex.total_steps == 2
    assert len(ex.trace) == 2
    assert ex.start_time <= ex.end_time
    r.clear()
    assert r.step_count() == 0
    assert r.export("s").total_steps == 0


def test_seed_trace_recorder_sanitizes_with_secure_config() -> None:
    """RecordStep SECURITY: with a Sanitizer configured all string fields are sanitized."""
    r = crs.TraceRecorder(crs.SecureTraceConfig())
    r.record_step(
        crs.TraceStep(
            action="call",
            target="AKIAIOSFODNN7EXAMPLE",
            error="token ghp_" + "c" * 36,
            metadata={"k": "AKIAIOSFODNN7EXAMPLE"},
        )
    )
    step = r.get_steps()[0]
    assert "AKIA" not in step.target
    assert "ghp_" not in step.error
    assert step.metadata == {"k": "[REDACTED]"}


def test_seed_trace_config_zero_uses_defaults() -> None:
    """NewTraceRecorder(config): "Uses defaults if zero-valued" (MaxSteps 1000)."""
    r = crs.TraceRecorder(crs.TraceConfig())
    for i in range(1005):
        r.record_step(crs.TraceStep(action=f"a{i}"))
    assert r.step_count() == 1000


def test_seed_trace_step_builder() -> None:
    """TraceStepBuilder: With* setters and Build."""
    b = crs.TraceStepBuilder()
    step = (
        b.with_action("explore")
        .with_target("main.go")
        .with_tool("grep")
        .with_duration(1.5)
        .with_symbols_found(["Foo"])
        .with_proof_update("n1", "disproven", "failed", "hard")
        .with_proof_update_typed("n2", PUT.INCREMENT, 2, "slow", SOFT)
        .with_constraint("k1", "ordering", ["a", "b"])
        .with_dependency("a", "b")
        .with_error("boom")
        .with_metadata("key", "value")
        .build()
    )
    assert (step.action, step.target, step.tool, step.duration) == (
        "explore",
        "main.go",
        "grep",
        1.5,
    )
    assert step.symbols_found == ("Foo",)
    assert step.proof_updates[0].node_id == "n1"
    assert step.proof_updates[0].type == PUT.DISPROVEN
    assert step.proof_updates[0].source == HARD
    assert step.proof_updates[1].delta == 2
    assert step.proof_updates[1].source == SOFT
    assert step.constraints_added[0].id == "k1"
    assert step.constraints_added[0].type == crs.ConstraintType.ORDERING
    assert (step.dependencies_found[0].from_, step.dependencies_found[0].to) == ("a", "b")
    assert step.error == "boom"
    assert step.metadata == {"key": "value"}


def test_seed_trace_step_to_step_record() -> None:
    """TraceStepToStepRecord: Actor defaults to ActorSystem, Decision to DecisionExecuteTool,
    ToolParams nil, Confidence 0; the record feeds CountToolExecutions."""
    ts = crs.TraceStep(step=3, timestamp=1000, action="explore", target="x", tool="grep")
    rec = crs.trace_step_to_step_record(ts, "sess")
    assert rec.actor == crs.Actor.SYSTEM
    assert rec.decision == crs.Decision.EXECUTE_TOOL
    assert rec.tool == "grep"
    assert rec.session_id == "sess"
    assert rec.tool_params is None
    assert rec.confidence == 0
    c = crs.CRS()
    c.record_step(rec)
    assert c.count_tool_executions("sess", "grep") == 1
    failed = crs.trace_step_to_step_record(crs.TraceStep(tool="t", error="boom"), "sess")
    assert failed.outcome == crs.Outcome.FAILURE
    c.record_step(failed)  # a failed step gets an error category, so it validates


def test_seed_delta_to_stream_delta() -> None:
    """DeltaToStreamDelta: type name, sequence number, timestamp and a readable summary."""
    sd = crs.delta_to_stream_delta(crs.ProofDelta(HARD, {"n": crs.ProofNumber()}), 7, 1234)
    assert (sd.type, sd.seq_num, sd.timestamp) == ("proof", 7, 1234)
    assert sd.summary


# ---------------------------------------------------------------- project identity, persistence


def test_seed_compute_project_hash() -> None:
    """ComputeProjectHash: first 16 hex chars of SHA-256 of the project path."""
    h = crs.compute_project_hash("/path/to/my/project")
    assert len(h) == crs.PROJECT_HASH_LENGTH
    assert h == hashlib.sha256(b"/path/to/my/project").hexdigest()[:16]
    assert crs.compute_project_hash("/path/to/my/project") == h
    assert crs.compute_project_hash("/path/to/other") != h


@pytest.mark.parametrize(
    ("value", "ok"),
    [("abcdef12", True), ("a" * 64, True), ("abc", False), ("a" * 65, False), ("", False)],
)
def test_seed_validate_project_hash(value: str, ok: bool) -> None:
    """ValidateProjectHash: a hex string of 8-64 characters."""
    if ok:
        crs.validate_project_hash(value)
    else:
        with pytest.raises(crs.CRSError):
            crs.validate_project_hash(value)
    with pytest.raises(crs.CRSError):
        crs.validate_project_hash("zzzzzzzz")


def test_seed_session_identifier(tmp_path: Path) -> None:
    """NewSessionIdentifier: path must not be empty (ErrProjectPathEmpty); ProjectHash is the
    SHA-256 of the lock files; ComputedAt ms; Age. CheckpointKey is the project key, 16 hex of
    SHA-256 of the path (spec §5.13 replaces the page's 32-hex key)."""
    (tmp_path / "go.sum").write_text("x v1.0.0 h1:abc\n")
    sid = crs.SessionIdentifier(tmp_path)
    assert Path(sid.project_path) == tmp_path.resolve()
    assert len(sid.project_hash) == 64
    assert sid.computed_at > 0
    assert sid.age() >= 0
    assert sid.checkpoint_key() == crs.compute_project_hash(str(tmp_path.resolve()))
    (tmp_path / "go.sum").write_text("y v2.0.0 h1:def\n")
    assert crs.SessionIdentifier(tmp_path).project_hash != sid.project_hash
    with pytest.raises(crs.ProjectPathEmptyError):
        crs.SessionIdentifier("")


def _pm(tmp_path: Path) -> crs.PersistenceManager:
    return crs.PersistenceManager(
        crs.PersistenceConfig(
            base_dir=str(tmp_path / "home"),
            lock_timeout_sec=5,
            max_backup_retries=1,
            validate_on_restore=True,
        )
    )


def test_seed_persistence_manager_layout(tmp_path: Path) -> None:
    """PersistenceManager path helpers (per-project isolation, backups/, metadata.json,
    export.json, lock file, previous generation) and HasBackup / GetBackupMetadata (nil when no
    backup) / LoadBackup -> ErrBackupNotFound on the first run."""
    pm = _pm(tmp_path)
    h = crs.compute_project_hash(str(tmp_path))
    proj = Path(pm.project_dir(h))
    assert proj == tmp_path / "home" / h
    assert Path(pm.metadata_path(h)) == proj / "metadata.json"
    assert Path(pm.export_path(h)) == proj / "export.json"
    assert Path(pm.backup_path(h)).parent == proj / "backups"
    assert Path(pm.lock_path(h)).parent == proj / "backups"
    assert Path(pm.prev_backup_path(h)) != Path(pm.backup_path(h))
    assert Path(pm.prev_metadata_path(h)) != Path(pm.metadata_path(h))
    assert not pm.has_backup(h)
    assert pm.get_backup_metadata(h) is None
    with pytest.raises(crs.BackupNotFoundError):
        pm.load_backup(h)
    with pytest.raises(crs.CRSError):
        pm.has_backup("not-hex!")
    pm.close()
    pm.close()
    with pytest.raises(crs.PersistenceManagerClosedError):
        pm.load_backup(h)


def test_seed_session_lifecycle_save_and_load_checkpoint(tmp_path: Path) -> None:
    """README "Complete Session Lifecycle": apply + journal append, SaveCheckpointToDisk, then a
    new session's LoadCheckpointFromDisk restores the state (nil metadata on the first run);
    BackupMetadata Age / CompressionRatio; the backup, metadata and index.json exist."""
    pm = _pm(tmp_path)
    h = crs.compute_project_hash(str(tmp_path / "project"))
    jpath = str(Path(pm.project_dir(h)) / "journal")
    journal = crs.LocalJournal(crs.JournalConfig(path=jpath, session_id="s1", sync_writes=True))
    first = crs.CRS(None)
    assert first.load_checkpoint_from_disk(pm, h, journal) is None  # "starting fresh"
    delta = crs.ProofDelta(HARD, {"node1": crs.ProofNumber(proof=10, status=PS.EXPANDED)})
    first.apply(delta)
    journal.append(delta)
    meta = first.save_checkpoint_to_disk(pm, h, journal)
    assert meta.project_hash == h
    assert meta.schema_version == "1.0"
    assert meta.generation == first.generation()
    assert meta.compressed_size > 0
    assert meta.uncompressed_size > 0
    assert 0 < meta.compression_ratio() <= 1.5
    assert meta.age() >= 0
    assert meta.content_hash
    assert meta.metadata_hash
    assert pm.has_backup(h)
    assert pm.get_backup_metadata(h) == meta
    assert os.path.exists(pm.backup_path(h))
    assert os.path.exists(pm.metadata_path(h))
    assert (tmp_path / "home" / "index.json").exists()
    journal.close()
    first.close()

    journal2 = crs.LocalJournal(crs.JournalConfig(path=jpath, session_id="s1", sync_writes=True))
    second = crs.CRS()
    restored = second.load_checkpoint_from_disk(pm, h, journal2)
    assert restored is not None
    assert restored.content_hash == meta.content_hash
    got = second.get_proof_status("node1")
    assert got is not None
    assert got.proof == 10
    assert got.status == PS.EXPANDED
    journal2.close()
    pm.close()


def test_seed_backup_corruption_is_detected(tmp_path: Path) -> None:
    """ErrBackupCorrupted: "Backup failed integrity check" (content hash)."""
    pm = _pm(tmp_path)
    h = "abcdef0123456789"
    c = crs.CRS()
    c.apply(crs.ProofDelta(HARD, {"n": crs.ProofNumber(proof=1)}))
    pm.save_backup(h, c)
    blob = bytearray(Path(pm.backup_path(h)).read_bytes())
    blob[-5] ^= 0xFF
    Path(pm.backup_path(h)).write_bytes(bytes(blob))
    with pytest.raises((crs.BackupCorruptedError, crs.MetadataCorruptedError)):
        pm.load_backup(h)
    pm.close()


def test_seed_journal_append_replay_checkpoint_close(tmp_path: Path) -> None:
    """Journal: Append (nil -> ErrNilDeltaJournal), AppendBatch (must not be empty), Replay
    (in order, empty if nothing), Checkpoint, Stats, Sync, IsAvailable/IsDegraded, Close
    (then ErrJournalClosed)."""
    cfg = crs.JournalConfig(path=str(tmp_path / "j"), session_id="s", sync_writes=True)
    j = crs.LocalJournal(cfg)
    assert j.replay() == []
    assert j.is_available()
    assert not j.is_degraded()
    with pytest.raises(crs.NilDeltaJournalError):
        j.append(None)  # type: ignore[arg-type]
    with pytest.raises(crs.CRSError):
        j.append_batch([])
    d1 = crs.ProofDelta(HARD, {"a": crs.ProofNumber(proof=1)})
    d2 = crs.HistoryDelta(SOFT, [crs.HistoryEntry(id="h", node_id="a")])
    j.append(d1)
    j.append_batch([d2, crs.create_analytics_delta(crs.AnalyticsQueryType.PATH, 0, 1)])
    j.sync()
    replayed = j.replay()
    assert [d.type() for d in replayed] == [
        crs.DeltaType.PROOF,
        crs.DeltaType.HISTORY,
        crs.DeltaType.ANALYTICS,
    ]
    assert replayed[0].source() == HARD
    assert replayed[0].timestamp() == d1.timestamp()
    stats = j.stats()
    assert stats.total_deltas == 3
    assert stats.last_seq_num == 3
    assert not stats.degraded
    assert [x.seq_num for x in j.replay_stream()] == [1, 2, 3]
    j.checkpoint()
    assert j.replay() == []
    j.close()
    j.close()
    assert not j.is_available()
    with pytest.raises(crs.JournalClosedError):
        j.append(d1)
    again = crs.LocalJournal(cfg)
    again.append(d1)
    assert again.stats().last_seq_num == 4  # sequence numbers never skip or restart
    again.close()


def test_seed_memory_journal_and_validate(tmp_path: Path) -> None:
    """JournalConfig.Validate (SessionID required); in-memory journal for within-session
    learning (enableSessionRestore=false)."""
    with pytest.raises(crs.CRSError):
        crs.JournalConfig(path=str(tmp_path / "j"), session_id="").validate()
    m = crs.MemoryJournal()
    m.append(crs.ProofDelta(HARD, {"a": crs.ProofNumber()}))
    assert len(m.replay()) == 1
    m.close()
    with pytest.raises(crs.JournalClosedError):
        m.append(crs.ProofDelta(HARD, {"a": crs.ProofNumber()}))


def test_seed_session_restorer(tmp_path: Path) -> None:
    """NewSessionRestorer (pm must not be nil), TryRestore (nil session identifier ->
    ErrSessionIdentifierNil; no checkpoint -> Restored false; a checkpoint -> Restored true with
    its generation and checkpoint time)."""
    project = tmp_path / "project"
    project.mkdir()
    pm = _pm(tmp_path)
    with pytest.raises(crs.CRSError):
        crs.SessionRestorer(None, None)  # type: ignore[arg-type]
    restorer = crs.SessionRestorer(pm, None)
    sid = crs.SessionIdentifier(project)
    h = sid.checkpoint_key()
    jpath = str(Path(pm.project_dir(h)) / "journal")
    j = crs.LocalJournal(crs.JournalConfig(path=jpath, session_id="s", sync_writes=True))
    c = crs.CRS()
    with pytest.raises(crs.SessionIdentifierNilError):
        restorer.try_restore(c, j, None)  # type: ignore[arg-type]
    res = restorer.try_restore(c, j, sid)
    assert not res.restored
    assert res.reason
    d = crs.ProofDelta(HARD, {"n": crs.ProofNumber(proof=2)})
    c.apply(d)
    j.append(d)
    c.save_checkpoint_to_disk(pm, h, j)
    j.close()
    j2 = crs.LocalJournal(crs.JournalConfig(path=jpath, session_id="s", sync_writes=True))
    fresh = crs.CRS()
    res = restorer.try_restore(fresh, j2, sid)
    assert res.restored
    assert res.reason == "success"
    assert res.generation == fresh.generation()
    assert res.checkpoint_time > 0
    assert fresh.get_proof_status("n") == c.get_proof_status("n")
    j2.close()
    pm.close()


def test_seed_session_restorer_config_validate() -> None:
    """SessionRestorerConfig.Validate: CheckpointMaxAge and MaxFilesToRefresh positive,
    MaxRetries non-negative."""
    crs.DefaultSessionRestorerConfig().validate()
    for bad in (
        crs.SessionRestorerConfig(checkpoint_max_age=0, max_files_to_refresh=1),
        crs.SessionRestorerConfig(checkpoint_max_age=1, max_files_to_refresh=0),
        crs.SessionRestorerConfig(checkpoint_max_age=1, max_files_to_refresh=1, max_retries=-1),
    ):
        with pytest.raises(crs.CRSError):
            bad.validate()


def test_seed_find_files_modified_since(tmp_path: Path) -> None:
    """FindFilesModifiedSince: mtime scan for non-git directories, paths relative to the root;
    more files than MaxFilesToRefresh -> ErrTooManyModifiedFiles."""
    since = time.time() - 60
    assert crs.find_files_modified_since(tmp_path, since, None) == []
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "new.txt").write_text("x")
    (tmp_path / "top.txt").write_text("y")
    found = crs.find_files_modified_since(tmp_path, since, None)
    assert sorted(found) == ["sub/new.txt", "top.txt"]
    assert crs.find_files_modified_since(tmp_path, time.time() + 60, None) == []
    cfg = crs.SessionRestorerConfig(
        checkpoint_max_age=60, max_files_to_refresh=1, use_git_status=True, max_retries=0
    )
    with pytest.raises(crs.TooManyModifiedFilesError):
        crs.find_files_modified_since(tmp_path, since, cfg)


# ---------------------------------------------------------------- errors


def test_seed_error_sentinels_are_typed_crs_errors() -> None:
    """Variables section: every ErrFoo is a FooError deriving from CRSError (spec §2)."""
    names = [
        "GraphQueryClosed",
        "GraphNotAvailable",
        "JournalClosed",
        "JournalCorrupted",
        "JournalFull",
        "JournalDegraded",
        "JournalSequenceGap",
        "NilDeltaJournal",
        "BackupCorrupted",
        "BackupVersionMismatch",
        "BackupNotFound",
        "BackupLockFailed",
        "PersistenceManagerClosed",
        "RestoreInProgress",
        "SessionIdentifierNil",
        "ProjectPathEmpty",
        "CheckpointTooOld",
        "ProjectHashMismatch",
        "SchemaVersionMismatch",
        "TooManyModifiedFiles",
        "NilContext",
        "NilDelta",
        "DeltaValidation",
        "DeltaConflict",
        "SnapshotStale",
        "IndexNotFound",
        "HardSoftBoundaryViolation",
        "ApplyRollback",
        "DeltaHistoryClosed",
        "MetadataCorrupted",
        "UnknownQueryType",
    ]
    for name in names:
        cls = getattr(crs, f"{name}Error")
        assert issubclass(cls, crs.CRSError), name
    assert issubclass(crs.HardSoftBoundaryViolationError, crs.DeltaValidationError)


def test_seed_optimistic_concurrency_errors_spec_5_3() -> None:
    """ErrSnapshotStale ("snapshot is too old", SnapshotEpochLimit) and ErrDeltaConflict
    ("deltas conflict"): spec §5.3 makes apply(delta, base=snapshot) raise them."""
    c = crs.CRS(crs.Config(snapshot_epoch_limit=2))
    base = c.snapshot()
    c.apply(crs.ProofDelta(HARD, {"a": crs.ProofNumber(proof=1)}))
    with pytest.raises(crs.DeltaConflictError):
        c.apply(crs.ProofDelta(HARD, {"a": crs.ProofNumber(proof=2)}), base=base)
    c.apply(crs.ProofDelta(HARD, {"b": crs.ProofNumber()}), base=base)  # no conflict
    for _ in range(2):
        c.apply(crs.ProofDelta(HARD, {"c": crs.ProofNumber()}))
    with pytest.raises(crs.SnapshotStaleError):
        c.apply(crs.ProofDelta(HARD, {"z": crs.ProofNumber()}), base=base)


# ---------------------------------------------------------------- graph provider


def test_seed_graph_backed_dependency_index() -> None:
    """NewGraphBackedDependencyIndex(adapter): error if adapter is nil; DependsOn = callees,
    DependedBy = callers, AllEdges nil, IsGraphBacked true; SetGraphProvider exposes the graph
    in snapshots (GraphQuery, nil when unset)."""
    with pytest.raises(crs.CRSError):
        crs.GraphBackedDependencyIndex(None)  # type: ignore[arg-type]
    g = crs.InMemoryGraph(calls=[("main", "helper")])
    idx = crs.GraphBackedDependencyIndex(g)
    assert idx.depends_on("main") == ["helper"]
    assert idx.depended_by("helper") == ["main"]
    assert idx.all_edges() is None
    assert idx.is_graph_backed()
    assert idx.size() == 1
    c = crs.CRS()
    assert c.snapshot().graph_query() is None
    c.set_graph_provider(g)
    snap = c.snapshot()
    assert snap.graph_query() is g
    assert snap.dependency_index().is_graph_backed()
    assert snap.dependency_index().depended_by("helper") == ["main"]
    c.invalidate_graph_cache()
    c.set_graph_provider(None)
    assert c.snapshot().graph_query() is None


# ---------------------------------------------------------------- limits and edge cases


def test_seed_max_propagation_depth() -> None:
    """MaxPropagationDepth = 100 "prevents runaway propagation": a chain of 150 parents that
    each become exhausted stops after 100 levels."""
    c = crs.CRS()
    c.apply(crs.DependencyDelta(HARD, add_edges=[(f"n{i + 1}", f"n{i}") for i in range(150)]))
    almost = crs.ProofNumber(proof=crs.PROOF_NUMBER_INFINITE - 1, status=PS.EXPANDED)
    c.apply(crs.ProofDelta(HARD, {f"n{i}": almost for i in range(1, 151)}))
    c.update_proof_number(_upd("n0", PUT.DISPROVEN))
    assert c.propagate_disproof("n0") == crs.MAX_PROPAGATION_DEPTH
    deepest = c.get_proof_status("n100")
    assert deepest is not None
    assert deepest.proof == crs.PROOF_NUMBER_INFINITE
    untouched = c.get_proof_status("n101")
    assert untouched is not None
    assert untouched.proof == crs.PROOF_NUMBER_INFINITE - 1


@pytest.mark.parametrize("metadata", [{"k" * 257: "v"}, {"k": "v" * 4097}, {"": "v"}])
def test_seed_history_entry_metadata_bounds(metadata: dict[str, str]) -> None:
    """HistoryDelta.Validate: entries need an id; metadata keys non-empty and bounded."""
    c = crs.CRS()
    with pytest.raises(crs.DeltaValidationError):
        c.apply(crs.HistoryDelta(HARD, [crs.HistoryEntry(id="h", metadata=metadata)]))
    with pytest.raises(crs.DeltaValidationError):
        c.apply(crs.HistoryDelta(HARD, [crs.HistoryEntry(id="")]))
    c.apply(crs.HistoryDelta(HARD, [crs.HistoryEntry(id="h", metadata={"k" * 256: "v" * 4096})]))


@pytest.mark.parametrize(
    "record",
    [
        crs.AnalyticsRecord("hotspots", 0, 1, 1),  # QueryTime is required
        crs.AnalyticsRecord("cycles", 1, 2, 1),  # "results match the query type": cycles
        crs.AnalyticsRecord("path", 1, 2, 1),  # ... and path
    ],
)
def test_seed_analytics_results_match_query_type(record: crs.AnalyticsRecord) -> None:
    """AnalyticsDelta.Validate: "Ensures required fields are present and results match the
    query type"."""
    with pytest.raises(crs.DeltaValidationError):
        crs.CRS().apply(crs.AnalyticsDelta(HARD, record))


def test_seed_mtime_scan_skips_hidden_directories(tmp_path: Path) -> None:
    """FindFilesModifiedSince mtime scan (non-git): hidden directories are not walked."""
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "blob").write_text("x")
    (tmp_path / "visible.txt").write_text("x")
    found = crs.find_files_modified_since(tmp_path, time.time() - 60, None)
    assert "visible.txt" in found
    assert not any(f.startswith(".cache") for f in found)


@pytest.mark.parametrize(
    "secret",
    [
        "sk_live_" + "a" * 24,
        "SG." + "a" * 22 + "." + "b" * 43,
        "npm_" + "a" * 36,
        'jwt_secret = "' + "a" * 24 + '"',
        "https://hooks.slack.com/services/T0000/B0000/abcdef",
    ],
)
def test_seed_secret_sanitizer_more_formats(secret: str) -> None:
    """SecretSanitizer: "Generic API keys and passwords ... JWT secrets" and the other common
    formats are replaced with [REDACTED]."""
    assert crs.SecretSanitizer().sanitize(secret) == "[REDACTED]"


def test_seed_journal_config_validate() -> None:
    """JournalConfig: SessionID "Required"; Path "Required for persistent mode"."""
    with pytest.raises(crs.CRSError, match="session_id"):
        crs.JournalConfig(path="/tmp/j", session_id="").validate()
    with pytest.raises(crs.CRSError, match="path"):
        crs.JournalConfig(path="", session_id="s").validate()
    crs.JournalConfig(session_id="s", in_memory=True).validate()


def test_seed_cycle_detector_window_is_bounded() -> None:
    """CycleDetectorConfig.MaxHistory: the states tracked for cycle extraction are bounded."""
    d = crs.CycleDetector(crs.CycleDetectorConfig(max_history=3))
    results = [d.add_step(s) for s in "ABCDEA"]
    assert not results[-1].detected  # the first A left the 3-state window
    assert d.stats().history_size == 3


def test_seed_interfaces_are_checkable_types() -> None:
    """Interfaces (Journal, Delta, Snapshot, GraphQuery, Sanitizer, the index views, QueryAPI,
    DeltaHistoryView, Evaluable) are protocols or base classes of these names (spec §2): what
    the CRS hands out is an instance of each; GraphBackedDependencyIndex "implements
    DependencyIndexView"."""
    c = crs.CRS()
    s = c.snapshot()
    pairs = [
        (s, crs.Snapshot),
        (s.proof_index(), crs.ProofIndexView),
        (s.constraint_index(), crs.ConstraintIndexView),
        (s.similarity_index(), crs.SimilarityIndexView),
        (s.dependency_index(), crs.DependencyIndexView),
        (s.history_index(), crs.HistoryIndexView),
        (s.streaming_index(), crs.StreamingIndexView),
        (s.query(), crs.QueryAPI),
        (c.delta_history(), crs.DeltaHistoryView),
        (c, crs.Evaluable),
        (crs.ProofDelta(HARD, {}), crs.Delta),
        (crs.MemoryJournal(), crs.Journal),
        (crs.SecretSanitizer(), crs.Sanitizer),
        (crs.InMemoryGraph(), crs.GraphQuery),
        (crs.InMemoryGraph().analytics(), crs.GraphAnalyticsQuery),
    ]
    for obj, kind in pairs:
        assert isinstance(obj, kind), kind.__name__
    c.set_graph_provider(crs.InMemoryGraph(calls=[("a", "b")]))
    assert isinstance(c.snapshot().dependency_index(), crs.DependencyIndexView)
    assert isinstance(crs.GraphBackedDependencyIndex(crs.InMemoryGraph()), crs.DependencyIndexView)


def test_seed_delta_merge_rules() -> None:
    """Delta.Merge per type: "multiple deltas can be combined" (constraints concatenated /
    unioned, similarity and proof unions, dependency and history concatenated, streaming
    increments summed, composites flattened, other types -> a composite)."""
    pn = crs.ProofNumber
    a = crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k1")], remove=["r1"])
    b = crs.ConstraintDelta(
        SOFT,
        add=[crs.Constraint(id="k2")],
        remove=["r1", "r2"],
        update={"u": crs.Constraint(id="u")},
    )
    m = a.merge(b)
    assert isinstance(m, crs.ConstraintDelta)
    assert [k.id for k in m.add] == ["k1", "k2"]
    assert sorted(m.remove) == ["r1", "r2"]
    assert list(m.update) == ["u"]
    sim = crs.SimilarityDelta(HARD, updates={("a", "b"): 0.1})
    merged_sim = sim.merge(crs.SimilarityDelta(HARD, updates={("c", "d"): 0.3}))
    assert isinstance(merged_sim, crs.SimilarityDelta)
    assert dict(merged_sim.updates) == {("a", "b"): 0.1, ("c", "d"): 0.3}
    dep = crs.DependencyDelta(HARD, add_edges=[("a", "b")])
    merged_dep = dep.merge(crs.DependencyDelta(HARD, add_edges=[("c", "d")]))
    assert isinstance(merged_dep, crs.DependencyDelta)
    assert list(merged_dep.add_edges) == [("a", "b"), ("c", "d")]
    hist = crs.HistoryDelta(HARD, [crs.HistoryEntry(id="1")])
    merged_hist = hist.merge(crs.HistoryDelta(HARD, [crs.HistoryEntry(id="2")]))
    assert isinstance(merged_hist, crs.HistoryDelta)
    assert [e.id for e in merged_hist.entries] == ["1", "2"]
    st = crs.StreamingDelta(HARD, increments={"a": 1}, cardinality_items=["x"])
    merged_st = st.merge(crs.StreamingDelta(HARD, increments={"a": 2, "b": 1}))
    assert isinstance(merged_st, crs.StreamingDelta)
    assert dict(merged_st.increments) == {"a": 3, "b": 1}
    c1 = crs.CompositeDelta(crs.ProofDelta(HARD, {"a": pn()}))
    c2 = crs.CompositeDelta(crs.ProofDelta(HARD, {"b": pn()}), crs.HistoryDelta(HARD, []))
    flat = c1.merge(c2)
    assert isinstance(flat, crs.CompositeDelta)
    assert len(flat.deltas) == 3
    an = crs.create_analytics_delta(crs.AnalyticsQueryType.HOTSPOTS, 1, 1)
    assert an.merge(an).type() == crs.DeltaType.COMPOSITE
    newer = crs.ProofDelta(HARD, {"a": pn(proof=1, updated_at=5)})
    older = crs.ProofDelta(HARD, {"a": pn(proof=2, updated_at=3)})
    merged_pd = newer.merge(older)
    assert isinstance(merged_pd, crs.ProofDelta)
    assert merged_pd.updates["a"].proof == 1


def test_seed_delta_conflict_rules() -> None:
    """ConflictsWith: "overlapping changes are detected" (same constraint id, the same
    similarity pair in either order, an edge added by one and removed by the other)."""
    k = crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k1")], remove=["r1"])
    assert k.conflicts_with(crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k1")]))
    assert k.conflicts_with(crs.ConstraintDelta(HARD, remove=["r1"]))
    assert not k.conflicts_with(crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k9")]))
    s1 = crs.SimilarityDelta(HARD, updates={("a", "b"): 0.1})
    assert s1.conflicts_with(crs.SimilarityDelta(HARD, updates={("b", "a"): 0.2}))
    assert not s1.conflicts_with(crs.SimilarityDelta(HARD, updates={("a", "c"): 0.2}))
    add = crs.DependencyDelta(HARD, add_edges=[("a", "b")])
    remove = crs.DependencyDelta(HARD, remove_edges=[("a", "b")])
    assert add.conflicts_with(remove)
    assert remove.conflicts_with(add)


def test_seed_analytics_delta_indexes() -> None:
    """AnalyticsDelta.IndexesAffected: "affect both the analytics history and proof index";
    the applied mask names the proof index (IndexMask has six bits)."""
    d = crs.create_analytics_delta(crs.AnalyticsQueryType.HOTSPOTS, 1, 1)
    assert d.indexes_affected() == ["analytics", "proof"]
    m = crs.CRS().apply(d)
    assert m.indexes_updated == crs.IndexMask.PROOF
    assert m.delta_type == crs.DeltaType.ANALYTICS
