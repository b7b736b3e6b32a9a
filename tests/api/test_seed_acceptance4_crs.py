"""Seed acceptance, fourth pass: the Go CRS page (seeds/001), public API only.

The fourth pass is systematic: every exported type, constant, function and method of the page
was mapped to its Python name (spec README §2) and checked for a test that calls it and asserts
what the page says. These tests cover what no earlier test called directly (docs/seed-acceptance.md,
"Fourth pass"). Each docstring quotes the seed statement it checks.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import crs

HARD, SOFT, SAFETY = crs.SignalSource.HARD, crs.SignalSource.SOFT, crs.SignalSource.SAFETY


# ------------------------------------------------------------------ every enum member

# (type, Go constant suffix, value) for every string constant of the page, verbatim.
STRING_CONSTANTS: list[tuple[type[Any], str, str]] = [
    (crs.Actor, "Router", "router"),
    (crs.Actor, "MainAgent", "main_agent"),
    (crs.Actor, "System", "system"),
    (crs.AnalyticsQueryType, "Hotspots", "hotspots"),
    (crs.AnalyticsQueryType, "DeadCode", "dead_code"),
    (crs.AnalyticsQueryType, "Cycles", "cycles"),
    (crs.AnalyticsQueryType, "Path", "path"),
    (crs.AnalyticsQueryType, "References", "references"),
    (crs.AnalyticsQueryType, "Coupling", "coupling"),
    (crs.ClauseScope, "Session", "session"),
    (crs.ClauseScope, "Project", "project"),
    (crs.ClauseScope, "Global", "global"),
    (crs.Decision, "SelectTool", "select_tool"),
    (crs.Decision, "ExecuteTool", "execute_tool"),
    (crs.Decision, "Synthesize", "synthesize"),
    (crs.Decision, "CircuitBreaker", "circuit_breaker"),
    (crs.Decision, "Retry", "retry"),
    (crs.Decision, "Complete", "complete"),
    (crs.Decision, "Error", "error"),
    (crs.ErrorCategory, "None", ""),
    (crs.ErrorCategory, "ToolNotFound", "tool_not_found"),
    (crs.ErrorCategory, "InvalidParams", "invalid_params"),
    (crs.ErrorCategory, "Timeout", "timeout"),
    (crs.ErrorCategory, "RateLimited", "rate_limited"),
    (crs.ErrorCategory, "Permission", "permission"),
    (crs.ErrorCategory, "Network", "network"),
    (crs.ErrorCategory, "Internal", "internal"),
    (crs.ErrorCategory, "Safety", "safety"),
    (crs.FailureType, "ToolError", "tool_error"),
    (crs.FailureType, "CycleDetected", "cycle_detected"),
    (crs.FailureType, "CircuitBreaker", "circuit_breaker"),
    (crs.FailureType, "Timeout", "timeout"),
    (crs.FailureType, "InvalidOutput", "invalid_output"),
    (crs.FailureType, "Safety", "safety"),
    (crs.FailureType, "SemanticRepetition", "semantic_repetition"),
    (crs.FailureType, "BatchFiltered", "batch_filtered"),
    (crs.FailureType, "ResolutionDemotion", "resolution_demotion"),
    (crs.Outcome, "Success", "success"),
    (crs.Outcome, "Failure", "failure"),
    (crs.Outcome, "Skipped", "skipped"),
    (crs.Outcome, "Forced", "forced"),
]


def _upper_snake(go: str) -> str:
    out = "".join("_" + ch if ch.isupper() and i else ch for i, ch in enumerate(go))
    return out.upper()


@pytest.mark.parametrize(("enum", "suffix", "value"), STRING_CONSTANTS)
def test_every_string_constant_is_a_member_with_its_value(
    enum: type[Any], suffix: str, value: str
) -> None:
    """Every string constant of the page (`ActorRouter Actor = "router"`, ...,
    `FailureTypeResolutionDemotion`, `ErrorCategoryNone ErrorCategory = ""`) is a member of
    its enum (UPPER_SNAKE, spec §2) with the page's value; `String()` is the value (Go's
    `string(x)`), except ErrorCategoryNone which prints "none"; `IsValid()` is true."""
    member = getattr(enum, _upper_snake(suffix))
    assert member.value == value
    assert member == value  # a StrEnum compares with its value
    assert enum(value) is member
    if enum is crs.ErrorCategory and value == "":
        assert str(member) == "none"
    else:
        assert str(member) == value
    if enum not in (crs.ClauseScope, crs.ErrorCategory):  # no IsValid on the page
        assert member.is_valid()
    with pytest.raises(ValueError, match="not a valid"):
        enum(value + "-not-a-member")


def test_string_enums_have_exactly_the_page_members() -> None:
    """No member beyond the page's constants (a consumer can branch exhaustively)."""
    for enum in {e for e, _, _ in STRING_CONSTANTS}:
        page = {v for e, _, v in STRING_CONSTANTS if e is enum}
        assert {m.value for m in enum} == page, enum.__name__


@pytest.mark.parametrize(
    ("category", "retryable"),
    [
        ("", False),
        ("tool_not_found", False),
        ("invalid_params", False),
        ("timeout", True),
        ("rate_limited", True),
        ("permission", False),
        ("network", True),
        ("internal", False),
        ("safety", False),
    ],
)
def test_error_category_is_retryable_for_every_member(category: str, retryable: bool) -> None:
    """`IsRetryable` "returns true if this error category is potentially retryable": a
    timeout, a rate limit and a network error may pass on retry; a missing tool, bad
    parameters, a permission denial, an internal error and a safety block will not."""
    assert crs.ErrorCategory(category).is_retryable() is retryable


@pytest.mark.parametrize(
    ("source", "hard", "safety", "valid", "text"),
    [
        (crs.SignalSource.UNKNOWN, False, False, False, "unknown"),
        (HARD, True, False, True, "hard"),
        (SOFT, False, False, True, "soft"),
        (SAFETY, True, True, True, "safety"),
    ],
)
def test_signal_source_predicates_for_every_member(
    source: crs.SignalSource, hard: bool, safety: bool, valid: bool, text: str
) -> None:
    """SignalSource: "Safety violations are treated as HARD signals"; `IsSafety` "if this
    signal came from the safety gate"; `IsValid` "SignalSourceUnknown is not considered
    valid"; iota values 0-3 and their String()."""
    assert (source.is_hard(), source.is_safety(), source.is_valid()) == (hard, safety, valid)
    assert str(source) == text
    assert int(source) == list(crs.SignalSource).index(source)


@pytest.mark.parametrize(
    ("enum", "names"),
    [
        (crs.ProofStatus, ["unknown", "proven", "disproven", "expanded"]),
        (crs.SignalSource, ["unknown", "hard", "soft", "safety"]),
        (
            crs.ConstraintType,
            ["unknown", "mutual_exclusion", "implication", "ordering", "resource"],
        ),
        (
            crs.DeltaType,
            [
                "unknown",
                "proof",
                "constraint",
                "similarity",
                "dependency",
                "history",
                "streaming",
                "composite",
                "analytics",
            ],
        ),
        (
            crs.ProofUpdateType,
            ["unknown", "increment", "decrement", "disproven", "proven", "reset"],
        ),
    ],
)
def test_every_iota_enum_member_has_its_number_and_string(enum: Any, names: list[str]) -> None:
    """`ProofStatus`, `SignalSource`, `ConstraintType`, `DeltaType`, `ProofUpdateType` are
    `iota` enums: member i has the value i and `String()` gives its name; `ProofUpdateType`
    `IsValid` is false only for Unknown."""
    assert [int(m) for m in enum] == list(range(len(names)))
    assert [str(m) for m in enum] == names
    if enum is crs.ProofUpdateType:
        assert [m.is_valid() for m in enum] == [False, True, True, True, True, True]


# ------------------------------------------------------------------ Delta.Validate, per type


def _snapshot_with_a_constraint_and_an_edge() -> crs.Snapshot:
    c = crs.CRS()
    c.apply(crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k1", nodes=("a", "b"))]))
    c.apply(crs.DependencyDelta(HARD, add_edges=[("a", "b")]))
    return c.snapshot()


def _record(kind: crs.AnalyticsQueryType = crs.AnalyticsQueryType.HOTSPOTS) -> Any:
    return crs.AnalyticsRecord(kind, 1_700_000_000_000, 1, 5)


VALID_DELTAS: dict[str, Any] = {
    "proof": lambda: crs.ProofDelta(HARD, {"a": crs.ProofNumber(proof=1)}),
    "constraint": lambda: crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k2", nodes=("c",))]),
    "similarity": lambda: crs.SimilarityDelta(HARD, updates={("a", "c"): 0.3}),
    "dependency": lambda: crs.DependencyDelta(HARD, add_edges=[("b", "c")]),
    "history": lambda: crs.HistoryDelta(HARD, [crs.HistoryEntry(id="h1", node_id="a")]),
    "streaming": lambda: crs.StreamingDelta(HARD, increments={"x": 2}, cardinality_items=["y"]),
    "analytics": lambda: crs.AnalyticsDelta(HARD, _record()),
    "composite": lambda: crs.CompositeDelta(
        crs.ProofDelta(HARD, {"z": crs.ProofNumber()}), crs.StreamingDelta(SOFT)
    ),
}

INVALID_DELTAS: dict[str, tuple[Any, type[Exception]]] = {
    "proof: soft disproof": (
        lambda: crs.ProofDelta(
            SOFT,
            {
                "a": crs.ProofNumber(
                    proof=crs.PROOF_NUMBER_INFINITE, status=crs.ProofStatus.DISPROVEN
                )
            },
        ),
        crs.HardSoftBoundaryViolationError,
    ),
    "constraint: add an id that exists": (
        lambda: crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k1", nodes=("a",))]),
        crs.DeltaValidationError,
    ),
    "constraint: remove an id that does not exist": (
        lambda: crs.ConstraintDelta(HARD, remove=["nope"]),
        crs.DeltaValidationError,
    ),
    "similarity: a node with itself": (
        lambda: crs.SimilarityDelta(HARD, updates={("a", "a"): 0.1}),
        crs.DeltaValidationError,
    ),
    "dependency: a self edge": (
        lambda: crs.DependencyDelta(HARD, add_edges=[("c", "c")]),
        crs.DeltaValidationError,
    ),
    "dependency: an edge closing a cycle": (
        lambda: crs.DependencyDelta(HARD, add_edges=[("b", "a")]),
        crs.DeltaValidationError,
    ),
    "history: an entry without id": (
        lambda: crs.HistoryDelta(HARD, [crs.HistoryEntry(node_id="a")]),
        crs.DeltaValidationError,
    ),
    "analytics: negative execution time": (
        lambda: crs.AnalyticsDelta(
            HARD, crs.AnalyticsRecord(crs.AnalyticsQueryType.PATH, 1, 0, -1)
        ),
        crs.DeltaValidationError,
    ),
    "composite: one bad child": (
        lambda: crs.CompositeDelta(
            crs.ProofDelta(HARD, {"z": crs.ProofNumber()}),
            crs.DependencyDelta(HARD, add_edges=[("c", "c")]),
        ),
        crs.DeltaValidationError,
    ),
}


@pytest.mark.parametrize("kind", sorted(VALID_DELTAS))
def test_validate_accepts_a_valid_delta_of_every_type_without_applying_it(kind: str) -> None:
    """Delta: "Validate checks if this delta can be applied to the snapshot ... error:
    Non-nil if validation fails", for every delta type: a valid delta validates (None), and
    validating changes nothing (the snapshot, the CRS and its generation stay as they were)."""
    c = crs.CRS()
    c.apply(crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k1", nodes=("a", "b"))]))
    c.apply(crs.DependencyDelta(HARD, add_edges=[("a", "b")]))
    snap = c.snapshot()
    delta = VALID_DELTAS[kind]()
    assert delta.validate(snap) is None
    assert c.generation() == snap.generation() == 2
    assert c.snapshot().proof_index().size() == 0
    c.apply(delta)  # and it really can be applied
    assert c.generation() == 3


@pytest.mark.parametrize("case", sorted(INVALID_DELTAS))
def test_validate_refuses_an_invalid_delta_of_every_type(case: str) -> None:
    """ProofDelta.Validate "Validates the hard/soft signal boundary. Soft signals cannot mark
    nodes as DISPROVEN"; the other types' Validate "checks if this delta can be applied"
    (constraint ids, self pairs / self edges, cycles, entry ids, "ExecutionMs ... Must be
    non-negative"); CompositeDelta.Validate "checks if all contained deltas can be applied".
    The typed error (DeltaValidationError family) is raised by validate() itself, and apply()
    refuses the same delta with the same type."""
    snap = _snapshot_with_a_constraint_and_an_edge()
    factory, error = INVALID_DELTAS[case]
    with pytest.raises(error):
        factory().validate(snap)
    c = crs.CRS()
    c.apply(crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k1", nodes=("a", "b"))]))
    c.apply(crs.DependencyDelta(HARD, add_edges=[("a", "b")]))
    with pytest.raises(error):
        c.apply(factory())
    assert c.generation() == 2


@pytest.mark.parametrize("kind", sorted(VALID_DELTAS))
def test_validate_needs_a_snapshot(kind: str) -> None:
    """`Validate(snapshot Snapshot)`: "snapshot: The snapshot to validate against"; None is
    bad input, refused with a typed error naming the argument (never an AttributeError)."""
    with pytest.raises(crs.InvalidArgumentError, match="snapshot"):
        VALID_DELTAS[kind]().validate(None)


@pytest.mark.parametrize(
    ("kind", "dtype", "indexes"),
    [
        ("proof", crs.DeltaType.PROOF, ["proof"]),
        ("constraint", crs.DeltaType.CONSTRAINT, ["constraint"]),
        ("similarity", crs.DeltaType.SIMILARITY, ["similarity"]),
        ("dependency", crs.DeltaType.DEPENDENCY, ["dependency"]),
        ("history", crs.DeltaType.HISTORY, ["history"]),
        ("streaming", crs.DeltaType.STREAMING, ["streaming"]),
        ("analytics", crs.DeltaType.ANALYTICS, ["analytics", "proof"]),
        ("composite", crs.DeltaType.COMPOSITE, ["proof", "streaming"]),
    ],
)
def test_every_delta_type_reports_type_source_timestamp_and_indexes(
    kind: str, dtype: crs.DeltaType, indexes: list[str]
) -> None:
    """Delta: `Type()`, `Source()`, "Timestamp returns when this delta was created (Unix
    milliseconds UTC)", `IndexesAffected()`; AnalyticsDelta "affect[s] both the analytics
    history and proof index (for completion markers)"; a composite "returns all indexes
    affected by contained deltas"."""
    import time

    before = int(time.time() * 1000)
    delta = VALID_DELTAS[kind]()
    after = int(time.time() * 1000)
    assert delta.type() == dtype
    assert delta.source() == HARD
    assert before <= delta.timestamp() <= after
    assert delta.indexes_affected() == indexes


# ------------------------------------------------------------------ analytics records


def test_analytics_record_fields_and_json_tags() -> None:
    """AnalyticsRecord: `QueryTime` "when the query was executed (Unix milliseconds UTC)";
    `QueryParams` "DEPRECATED. Use Params instead. Retained for backwards compatibility"
    (`WithParams` sets it, `WithTypedParams` sets `Params`); JSON tags `id`, `query_type`,
    `query_time`, `result_count`, `execution_ms`, `query_params`, `params`."""
    rec = crs.AnalyticsRecord(crs.AnalyticsQueryType.PATH, 1_700_000_000_123, 2, 7)
    assert rec.query_time == 1_700_000_000_123
    assert rec.query_params == {}
    with_params = rec.with_params({"from": "a", "depth": 3})
    assert with_params.query_params == {"from": "a", "depth": 3}
    typed = with_params.with_typed_params(crs.AnalyticsQueryParams(from_symbol="a", limit=3))
    assert typed.params.from_symbol == "a"
    assert typed.query_params == {"from": "a", "depth": 3}  # the deprecated map is kept
    doc = json.loads(json.dumps(typed.to_dict()))
    assert doc["query_type"] == "path"
    assert doc["query_time"] == 1_700_000_000_123
    assert (doc["result_count"], doc["execution_ms"]) == (2, 7)
    assert doc["query_params"] == {"from": "a", "depth": 3}
    assert doc["params"]["from_symbol"] == "a"
    assert doc["id"] == rec.id


def test_analytics_record_ids_are_unique_within_one_millisecond() -> None:
    """NewAnalyticsRecord "Creates a new AnalyticsRecord with a unique ID. The ID includes a
    monotonic counter to ensure uniqueness even at millisecond precision"."""
    ids = {crs.AnalyticsRecord(crs.AnalyticsQueryType.CYCLES, 5, 0, 0).id for _ in range(200)}
    assert len(ids) == 200


@pytest.mark.parametrize("kind", list(crs.AnalyticsQueryType))
def test_applying_analytics_sets_the_done_and_found_markers(
    kind: crs.AnalyticsQueryType,
) -> None:
    """AnalyticsDelta: "When applied, records the analytics query in CRS history, sets
    relevant proof numbers": the `ProofKeyAnalytics<Type>Done` marker after every run, the
    `...Found` marker only when the record `HasResults()`, for all six query types."""
    done = getattr(crs, f"PROOF_KEY_ANALYTICS_{kind.name}_DONE")
    found = getattr(crs, f"PROOF_KEY_ANALYTICS_{kind.name}_FOUND")
    c = crs.CRS()
    empty = crs.AnalyticsRecord(kind, 1, 0, 1)
    c.apply(crs.AnalyticsDelta(HARD, empty))
    proofs = c.snapshot().proof_index()
    assert proofs.get(done) is not None
    assert proofs.get(found) is None
    assert c.has_run_analytics(kind)
    full = crs.AnalyticsRecord(kind, 2, 1, 1)
    if kind is crs.AnalyticsQueryType.CYCLES:
        full = full.with_cycles([["a", "b"]])
    elif kind is crs.AnalyticsQueryType.PATH:
        full = full.with_path(["a", "b"])
    else:
        full = full.with_results(["a"])
    assert full.has_results()
    c.apply(crs.AnalyticsDelta(HARD, full))
    assert c.snapshot().proof_index().get(found) is not None
    assert c.get_last_analytics(kind).id == full.id


# ------------------------------------------------------------------ plain records: fields


def test_failure_event_decision_path_and_tool_params_depth() -> None:
    """FailureEvent `DecisionPath []StepRecord` "is the sequence of decisions leading to
    failure" (StepRecords, anything else refused with a typed error naming the field);
    ToolParams `Depth` is one of the canonical parameter fields (zero value 0)."""
    assert crs.ToolParams().depth == 0
    assert crs.ToolParams(depth=3).depth == 3
    step = crs.StepRecord(
        session_id="s1",
        actor=crs.Actor.SYSTEM,
        decision=crs.Decision.EXECUTE_TOOL,
        tool="grep",
        outcome=crs.Outcome.FAILURE,
    )
    event = crs.FailureEvent(
        session_id="s1",
        failure_type=crs.FailureType.TOOL_ERROR,
        decision_path=(step,),
        failed_step=step,
        tool="grep",
        source=HARD,
    )
    assert event.decision_path == (step,)
    event.validate()
    with pytest.raises(crs.InvalidArgumentError, match="decision_path"):
        crs.FailureEvent(
            session_id="s1",
            failure_type=crs.FailureType.TOOL_ERROR,
            decision_path=("tool:grep",),  # type: ignore[arg-type]
            tool="grep",
            source=HARD,
        ).validate()


# ------------------------------------------------------------------ export shapes


def _populated() -> crs.CRS:
    c = crs.CRS()
    c.apply(crs.ProofDelta(HARD, {"a": crs.ProofNumber(proof=3)}))
    c.apply(crs.SimilarityDelta(HARD, updates={("b", "a"): 0.25, ("c", "a"): 0.5}))
    c.apply(crs.DependencyDelta(HARD, add_edges=[("a", "b"), ("a", "c")]))
    c.apply(
        crs.HistoryDelta(HARD, [crs.HistoryEntry(id="h1", node_id="a", result="ok", source=HARD)])
    )
    c.apply(crs.StreamingDelta(HARD, increments={"t": 3}, cardinality_items=["x"]))
    c.apply(
        crs.ConstraintDelta(
            HARD,
            add=[
                crs.Constraint(
                    id="on", type=crs.ConstraintType.ORDERING, nodes=("a",), active=True
                ),
                crs.Constraint(id="off", type=crs.ConstraintType.RESOURCE, nodes=("b",)),
            ],
        )
    )
    return c


def test_export_full_uses_the_seed_export_types() -> None:
    """CRSExport.Indexes "contains all six CRS indexes in exportable form":
    ProofIndexExport{Entries []ProofEntry}, ConstraintIndexExport{Constraints},
    SimilarityIndexExport{PairCount, Pairs []SimilarityPairExport, Truncated},
    DependencyIndexExport{EdgeCount, Edges []DependencyEdgeExport, Source, Truncated},
    HistoryIndexExport{EntryCount, RecentEntries []HistoryEntryExport},
    StreamingIndexExport{Cardinality, ApproximateBytes}; ExportResult{Export, Truncated,
    Warnings}."""
    result = crs.Serializer().export_full(_populated().snapshot(), "sess")
    assert isinstance(result, crs.ExportResult)
    assert result.truncated is False
    assert list(result.warnings) == []
    ix = result.export.indexes
    assert isinstance(ix, crs.IndexesExport)
    assert isinstance(ix.proof, crs.ProofIndexExport)
    assert [type(e) for e in ix.proof.entries] == [crs.ProofEntry]
    assert isinstance(ix.constraint, crs.ConstraintIndexExport)
    assert all(isinstance(e, crs.ConstraintEntry) for e in ix.constraint.constraints)
    assert isinstance(ix.similarity, crs.SimilarityIndexExport)
    assert ix.similarity.pair_count == 2
    assert all(isinstance(p, crs.SimilarityPairExport) for p in ix.similarity.pairs)
    # "Only one direction is exported (FromID < ToID)"
    assert sorted((p.from_id, p.to_id, p.similarity) for p in ix.similarity.pairs) == [
        ("a", "b", 0.25),
        ("a", "c", 0.5),
    ]
    assert isinstance(ix.dependency, crs.DependencyIndexExport)
    assert ix.dependency.source == "legacy"
    assert sorted((e.from_id, e.to_id) for e in ix.dependency.edges) == [("a", "b"), ("a", "c")]
    assert all(isinstance(e, crs.DependencyEdgeExport) for e in ix.dependency.edges)
    assert isinstance(ix.history, crs.HistoryIndexExport)
    assert ix.history.entry_count == 1
    [entry] = ix.history.recent_entries
    assert isinstance(entry, crs.HistoryEntryExport)
    assert (entry.id, entry.node_id, entry.result, entry.source) == ("h1", "a", "ok", "hard")
    assert isinstance(ix.streaming, crs.StreamingIndexExport)
    assert ix.streaming.cardinality >= 1
    assert isinstance(ix.streaming.approximate_bytes, int)
    assert ix.streaming.approximate_bytes > 0  # "the approximate memory usage"


def test_export_options_max_dependency_edges() -> None:
    """ExportOptions.MaxDependencyEdges "limits how many dependency edges to export. 0 = use
    default (100K), -1 = unlimited"; truncation sets DependencyIndexExport.Truncated,
    ExportResult.Truncated and a warning; EdgeCount stays the index's size."""
    snap = _populated().snapshot()
    ser = crs.Serializer()
    one = ser.export_full(snap, "s", crs.ExportOptions(max_dependency_edges=1))
    dep = one.export.indexes.dependency
    assert (dep.edge_count, len(dep.edges), dep.truncated) == (2, 1, True)
    assert one.truncated
    assert any("dependency" in w for w in one.warnings)
    for limit in (0, -1):
        full = ser.export_full(snap, "s", crs.ExportOptions(max_dependency_edges=limit))
        dep = full.export.indexes.dependency
        assert (len(dep.edges), dep.truncated) == (2, False)
        assert not full.truncated


def test_export_json_omits_the_omitempty_fields() -> None:
    """The export's JSON tags: `expression,omitempty`, `pairs,omitempty`,
    `truncated,omitempty`, `edges,omitempty`, `recent_entries,omitempty`, `metadata,omitempty`:
    an empty CRS exports none of them; required tags (`entries`, `constraints`, `pair_count`,
    `edge_count`, `entry_count`, `cardinality`, `approximate_bytes`) are always there."""
    doc = json.loads(
        json.dumps(crs.Serializer().export_full(crs.CRS().snapshot(), "s").export.to_dict())
    )
    ix = doc["indexes"]
    assert ix["proof"] == {"entries": []}
    assert ix["constraint"] == {"constraints": []}
    assert ix["similarity"] == {"pair_count": 0}
    assert ix["dependency"]["edge_count"] == 0
    assert "edges" not in ix["dependency"]
    assert "truncated" not in ix["dependency"]
    assert ix["history"] == {"entry_count": 0}
    assert set(ix["streaming"]) == {"cardinality", "approximate_bytes"}
    assert set(doc) == {"session_id", "generation", "timestamp", "indexes", "summary"}


def test_export_lists_inactive_constraints_with_their_active_flag() -> None:
    """ConstraintIndexExport.Constraints "contains all active constraints" and each
    ConstraintEntry has `Active` "if the constraint is currently enforced". Decision (see
    docs): every constraint is exported with its flag, so an import gives back the same
    index; the summary's ConstraintsApplied counts the active ones."""
    export = crs.Serializer().export_full(_populated().snapshot(), "s").export
    flags = {e.id: e.active for e in export.indexes.constraint.constraints}
    assert flags == {"on": True, "off": False}
    assert export.summary.constraints_applied == 1
    imported = crs.Serializer().import_(export)
    assert {k: v.active for k, v in imported.constraint_data.items()} == flags


# ------------------------------------------------------------------ returned types


def test_documented_result_types() -> None:
    """Outputs as typed on the page: CheckAssignment -> ClauseCheckResult, BuildDecisionGraph
    -> *DecisionGraph, FindHotNodes -> []NodeFrequency, TraceRecorder.Export -> ReasoningTrace,
    DeltaToStreamDelta -> StreamDelta, NearestNeighbors -> []SimilarityMatch,
    AllPairsFiltered -> []SimilarityPairData, Import -> *ImportedState, Checkpoint ->
    Checkpoint, Journal.Stats -> JournalStats."""
    c = _populated()
    assert isinstance(c.check_assignment({}), crs.ClauseCheckResult)
    assert isinstance(crs.build_decision_graph([]), crs.DecisionGraph)
    snap = c.snapshot()
    c.apply(crs.StreamingDelta(HARD, increments={"a": 4}))
    nodes = c.snapshot().query().find_hot_nodes(5)  # nodes with a proof entry and a count
    assert [(type(n), n.node_id, n.frequency) for n in nodes] == [(crs.NodeFrequency, "a", 4)]
    rec = crs.TraceRecorder(crs.DefaultTraceConfig())
    assert isinstance(rec.export("s"), crs.ReasoningTrace)
    stream = crs.delta_to_stream_delta(crs.ProofDelta(HARD, {"a": crs.ProofNumber()}), 1, 5)
    assert isinstance(stream, crs.StreamDelta)
    matches = snap.similarity_index().nearest_neighbors("a", 2)
    assert [type(m) for m in matches] == [crs.SimilarityMatch, crs.SimilarityMatch]
    assert [m.node_id for m in matches] == ["b", "c"]  # "lower = more similar" first
    pairs, truncated = snap.similarity_index().all_pairs_filtered(-1)
    assert all(isinstance(p, crs.SimilarityPairData) for p in pairs)
    assert not truncated
    export = crs.Serializer().export_full(snap, "s").export
    assert isinstance(crs.Serializer().import_(export), crs.ImportedState)
    assert isinstance(c.checkpoint(), crs.Checkpoint)
    j = crs.MemoryJournal()
    assert isinstance(j.stats(), crs.JournalStats)
    j.close()


# ------------------------------------------------------------------ numbers


def test_proof_number_infinite_is_the_disproven_cost() -> None:
    """ "ProofNumberInfinite represents a disproven path (infinite cost to prove). Using max
    uint64 value"; a disproof through UpdateProofNumber sets it."""
    c = crs.CRS()
    c.update_proof_number(
        crs.ProofUpdate(node_id="n", type=crs.ProofUpdateType.DISPROVEN, source=HARD)
    )
    pn = c.snapshot().proof_index().get("n")
    assert pn.proof == crs.PROOF_NUMBER_INFINITE == 2**64 - 1
    assert pn.status == crs.ProofStatus.DISPROVEN


# ------------------------------------------------------------------ copies


def test_documented_copies_can_be_modified_without_affecting_the_source() -> None:
    """SimilarityIndexView.AllPairs "Returns deep copy; caller can modify without affecting
    source"; AnalyticsHistory.All / CRS.GetAnalyticsHistory / Snapshot.AnalyticsHistory
    "Returns a copy of all records in chronological order"; TraceRecorder.GetSteps "returns a
    copy of all recorded steps"."""
    c = crs.CRS()
    c.apply(crs.SimilarityDelta(HARD, updates={("a", "b"): 0.2}))
    c.apply(crs.create_analytics_delta(crs.AnalyticsQueryType.PATH, 0, 1))
    c.apply(crs.create_analytics_delta(crs.AnalyticsQueryType.CYCLES, 0, 1))
    snap = c.snapshot()
    pairs = snap.similarity_index().all_pairs()
    assert pairs == {"a": {"b": 0.2}}  # stored once, canonically (spec §5.9)
    pairs["a"]["b"] = 0.9
    pairs["z"] = {"y": 0.1}
    assert snap.similarity_index().all_pairs()["a"] == {"b": 0.2}
    assert "z" not in snap.similarity_index().all_pairs()
    for history in (c.get_analytics_history(), snap.analytics_history()):
        assert [r.query_type for r in history] == ["path", "cycles"]  # chronological
        history.clear()
    assert len(c.get_analytics_history()) == len(snap.analytics_history()) == 2
    ring = crs.AnalyticsHistory(5)
    ring.add(crs.AnalyticsRecord(crs.AnalyticsQueryType.PATH, 1, 0, 0))
    ring.all().clear()
    assert (ring.size(), len(ring.all())) == (1, 1)
    rec = crs.TraceRecorder(crs.DefaultTraceConfig())
    rec.record_step(crs.TraceStep(action="look"))
    rec.get_steps().clear()
    assert (rec.step_count(), len(rec.get_steps())) == (1, 1)


# ------------------------------------------------------------------ thread safety


def _run_threads(n: int, work: Any) -> None:
    import threading

    start = threading.Barrier(n)

    def body(t: int) -> None:
        start.wait()
        work(t)

    threads = [threading.Thread(target=body, args=(t,)) for t in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()


def test_standalone_components_are_safe_for_concurrent_use() -> None:
    """ "Thread Safety: Safe for concurrent use" on AnalyticsHistory, NewAnalyticsRecord
    (unique ids), CycleDetector, DeltaHistoryWorker, TraceRecorder and SecretSanitizer:
    8 threads at once lose nothing and break no invariant."""
    history = crs.AnalyticsHistory(10_000)
    ids: list[str] = []
    detector = crs.CycleDetector(crs.CycleDetectorConfig(max_history=10_000))
    worker = crs.DeltaHistoryWorker(10_000, None)
    recorder = crs.TraceRecorder(crs.TraceConfig(max_steps=10_000, record_symbols=True))
    sanitizer = crs.SecretSanitizer()
    secret = "token=ghp_" + "a" * 36
    cleaned: list[str] = []

    def work(t: int) -> None:
        for i in range(200):
            rec = crs.AnalyticsRecord(crs.AnalyticsQueryType.HOTSPOTS, 1, 0, 0)
            ids.append(rec.id)
            history.add(rec)
            detector.add_step(f"s{t}-{i}")
            worker.record(crs.ProofDelta(HARD, {f"n{t}": crs.ProofNumber()}), t * 1000 + i, "x", "")
            recorder.record_step(crs.TraceStep(action=f"a{t}"))
            if i % 50 == 0:
                cleaned.append(sanitizer.sanitize(secret))

    _run_threads(8, work)
    assert len(set(ids)) == 1600
    assert history.size() == 1600
    assert detector.stats().steps_processed == 1600
    assert worker.size() == 1600
    steps = recorder.get_steps()
    assert recorder.step_count() == 1600
    assert sorted(s.step for s in steps) == list(range(1, 1601))
    assert len(set(cleaned)) == 1
    assert "a" * 36 not in cleaned[0]
    worker.close()


def test_max_generation_is_accepted_but_the_generation_never_wraps() -> None:
    """Config.MaxGeneration "is the maximum generation before wrapping. Default: 0". Decision
    (spec §5.2, "It never goes backwards"): the field is validated (>= 0) and kept, but the
    generation does not wrap: past MaxGeneration it keeps counting up by one per change."""
    assert crs.DefaultConfig().max_generation == 0
    with pytest.raises(crs.InvalidArgumentError, match="max_generation"):
        crs.Config(max_generation=-1).validate()
    c = crs.CRS(crs.Config(max_generation=2, snapshot_epoch_limit=1000))
    for i in range(4):
        c.apply(crs.ProofDelta(HARD, {f"n{i}": crs.ProofNumber()}))
    assert c.generation() == 4


def test_similarity_distances_above_one_survive_export_and_import() -> None:
    """RecordSimilarity: "distance: Similarity distance (0 = identical, higher = less
    similar). Must be non-negative"; SimilarityPairExport says "(0.0 to 1.0)". Decision
    (spec §5.9, values are distances everywhere): any finite distance >= 0 is accepted, and
    what export writes, import reads back (a distance of 2.0 included); negative, NaN and
    infinite distances are refused."""
    c = crs.CRS()
    c.record_similarity("grep:a", "grep:b", 2.0)
    c.apply(crs.SimilarityDelta(HARD, updates={("x", "y"): 0.5}))
    export = crs.Serializer().export_full(c.snapshot(), "s").export
    assert sorted(p.similarity for p in export.indexes.similarity.pairs) == [0.5, 2.0]
    imported = crs.Serializer().import_(json.loads(json.dumps(export.to_dict())))
    assert imported.similarity_data["grep:a"]["grep:b"] == 2.0
    assert imported.similarity_data["x"]["y"] == 0.5
    for bad in (-0.1, float("nan"), float("inf")):
        with pytest.raises(crs.CRSError):
            c.record_similarity("grep:a", "grep:c", bad)
        with pytest.raises(crs.DeltaValidationError):
            c.apply(crs.SimilarityDelta(HARD, updates={("x", "z"): bad}))


# ------------------------------------------------------------------ clause truth table

_UNSET = object()


@pytest.mark.parametrize("x", [True, False, _UNSET], ids=["x=T", "x=F", "x=?"])
@pytest.mark.parametrize("y", [True, False, _UNSET], ids=["y=T", "y=F", "y=?"])
def test_clause_is_satisfied_and_is_violated_over_every_assignment(x: Any, y: Any) -> None:
    """Clause.IsSatisfied: "satisfied if ANY literal is true ... If positive: the variable must
    be true; If negated: the variable must be false"; IsViolated: "violated when ALL literals
    are false ... if a variable is unassigned, the clause is not yet violated". The clause
    (x OR NOT y) over all nine three-valued assignments."""
    clause = crs.Clause(
        id="c",
        literals=(crs.Literal(variable="x"), crs.Literal(variable="y", negated=True)),
        source=HARD,
        failure_type=crs.FailureType.TOOL_ERROR,
    )
    assignment = {k: v for k, v in (("x", x), ("y", y)) if v is not _UNSET}
    lit_x = None if x is _UNSET else x
    lit_y = None if y is _UNSET else (not y)
    satisfied = lit_x is True or lit_y is True
    violated = lit_x is False and lit_y is False
    assert clause.is_satisfied(assignment) is satisfied
    assert clause.is_violated(assignment) is violated
    assert not (satisfied and violated)
