"""Each delta type: validation, apply, merge, conflicts, JSON form; IndexMask; bad input."""

from __future__ import annotations

import json

import pytest

import crs
from crs import SignalSource as S

HARD, SOFT, SAFETY = S.HARD, S.SOFT, S.SAFETY


def pn(**kw: object) -> crs.ProofNumber:
    return crs.ProofNumber(**kw)  # type: ignore[arg-type]


def all_kinds() -> list[crs.Delta]:
    rec = crs.AnalyticsRecord("cycles", 5, 1, 2).with_cycles([["a", "b"]])
    return [
        crs.ProofDelta(HARD, {"a": pn(proof=1, status=crs.ProofStatus.DISPROVEN)}),
        crs.ConstraintDelta(
            SOFT,
            add=[crs.Constraint(id="c1", nodes=("a",))],
            remove=["c0"],
            update={"c2": crs.Constraint(expression="x")},
        ),
        crs.SimilarityDelta(SOFT, {("a", "b"): 0.25}),
        crs.DependencyDelta(HARD, add_edges=[("a", "b")], remove_edges=[("c", "d")]),
        crs.HistoryDelta(SOFT, [crs.HistoryEntry(id="h", node_id="a", metadata={"k": "v"})]),
        crs.StreamingDelta(SOFT, increments={"a": 2}, cardinality_items=["b"]),
        crs.AnalyticsDelta(HARD, rec),
        crs.CompositeDelta(
            crs.ProofDelta(SOFT, {"x": pn(proof=2)}), crs.SimilarityDelta(SOFT, {("x", "y"): 1})
        ),
    ]


@pytest.mark.parametrize("delta", all_kinds(), ids=lambda d: str(d.type()))
def test_json_form_is_lossless(delta: crs.Delta) -> None:
    d = json.loads(json.dumps(delta.to_dict()))
    back = crs.delta_from_dict(d)
    assert type(back) is type(delta)
    assert back.to_dict() == delta.to_dict()
    assert back.source() == delta.source()
    assert back.timestamp() == delta.timestamp()


def test_types_and_indexes() -> None:
    kinds = all_kinds()
    assert [int(d.type()) for d in kinds] == [1, 2, 3, 4, 5, 6, 8, 7]
    assert kinds[6].indexes_affected() == ["analytics", "proof"]
    assert crs.IndexMask.from_delta(kinds[6]) == crs.IndexMask.PROOF
    assert kinds[7].indexes_affected() == ["proof", "similarity"]
    assert crs.DeltaType.describe(42) == "DeltaType(42)"
    assert str(crs.DeltaType.COMPOSITE) == "composite"


def test_index_mask() -> None:
    m = crs.IndexMask.from_strings(["history", "proof", "analytics", "bogus"])
    assert m.names() == ["proof", "history"]
    assert str(m) == "proof,history"
    assert m.has(crs.IndexMask.PROOF)
    assert not m.has(crs.IndexMask.STREAMING)
    assert m.add(crs.IndexMask.STREAMING).names() == ["proof", "history", "streaming"]
    assert crs.IndexMask.from_json(m.to_json()) == m
    assert crs.IndexMask.from_json(17) == m
    with pytest.raises(crs.InvalidArgumentError, match="value"):
        crs.IndexMask.from_json("proof")


def test_hard_soft_boundary() -> None:
    c = crs.CRS()
    dis = {"n": pn(proof=crs.PROOF_NUMBER_INFINITE, status=crs.ProofStatus.DISPROVEN)}
    for src in (SOFT, S.UNKNOWN):
        with pytest.raises(crs.HardSoftBoundaryViolationError, match="DISPROVEN"):
            c.apply(crs.ProofDelta(src, dis))
    with pytest.raises(crs.DeltaValidationError):
        c.snapshot() and crs.ProofDelta(SOFT, dis).validate(c.snapshot())
    assert c.generation() == 0
    assert c.delta_history().size() == 0
    c.apply(crs.ProofDelta(SAFETY, dis))
    c.apply(crs.ProofDelta(SOFT, {"m": pn(status=crs.ProofStatus.PROVEN)}))  # soft may prove
    # a soft child inside a hard composite keeps its own (soft) source
    comp = crs.CompositeDelta(crs.ProofDelta(HARD, {}), crs.ProofDelta(SOFT, dis))
    assert comp.source() == HARD
    with pytest.raises(crs.HardSoftBoundaryViolationError):
        c.apply(comp)
    assert c.generation() == 2


def test_proof_replace_merge_conflict() -> None:
    a = crs.ProofDelta(SOFT, {"x": pn(proof=1, updated_at=5), "y": pn(proof=2, updated_at=5)})
    b = crs.ProofDelta(SOFT, {"x": pn(proof=9, updated_at=6), "y": pn(proof=8, updated_at=5)})
    m = a.merge(b)
    assert isinstance(m, crs.ProofDelta)
    assert m.updates["x"].proof == 9
    assert m.updates["y"].proof == 2
    assert a.conflicts_with(b)
    assert b.conflicts_with(a)
    assert not a.conflicts_with(crs.ProofDelta(SOFT, {"z": pn()}))
    mixed = a.merge(crs.HistoryDelta(SOFT, []))
    assert isinstance(mixed, crs.CompositeDelta)
    assert len(mixed.deltas) == 2
    c = crs.CRS()
    c.apply(a)
    c.apply(crs.ProofDelta(SOFT, {"x": pn(disproof=3)}))
    assert c.snapshot().proof_index().get("x") == pn(disproof=3)  # replaced wholesale


def test_constraint_rules() -> None:
    c = crs.CRS()
    c1 = crs.Constraint(id="c1", type=crs.ConstraintType.ORDERING, nodes=("a", "b"))
    c.apply(crs.ConstraintDelta(SOFT, add=[c1]))
    with pytest.raises(crs.DeltaValidationError, match="already exists"):
        c.apply(crs.ConstraintDelta(SOFT, add=[c1]))
    with pytest.raises(crs.DeltaTargetNotFoundError) as err:
        c.apply(crs.ConstraintDelta(SOFT, remove=["nope"]))
    assert isinstance(err.value, crs.IndexNotFoundError)
    with pytest.raises(crs.DeltaValidationError, match="unique"):
        c.apply(crs.ConstraintDelta(SOFT, add=[crs.Constraint(id="z"), crs.Constraint(id="z")]))
    # remove + update of the same id leaves the update
    c.apply(crs.ConstraintDelta(SOFT, remove=["c1"], update={"c1": crs.Constraint(nodes=("q",))}))
    got = c.snapshot().constraint_index().get("c1")
    assert got is not None
    assert got.nodes == ("q",)
    assert got.id == "c1"
    with pytest.raises(crs.InvalidArgumentError, match="update"):
        crs.ConstraintDelta(SOFT, update={"c1": crs.Constraint(id="other")})
    with pytest.raises(crs.InvalidArgumentError, match="add"):
        crs.ConstraintDelta(SOFT, add=[crs.Constraint(id="")])
    x = crs.ConstraintDelta(SOFT, update={"c1": crs.Constraint()})
    y = crs.ConstraintDelta(SOFT, remove=["c1"])
    assert x.conflicts_with(y)
    assert y.conflicts_with(x)
    merged = y.merge(crs.ConstraintDelta(SOFT, remove=["c1", "c2"]))
    assert isinstance(merged, crs.ConstraintDelta)
    assert merged.remove == ("c1", "c2")


def test_composite_children_see_earlier_children() -> None:
    c = crs.CRS()
    add = crs.ConstraintDelta(SOFT, add=[crs.Constraint(id="k")])
    upd = crs.ConstraintDelta(SOFT, update={"k": crs.Constraint(active=True)})
    comp = crs.CompositeDelta(add, upd)
    comp.validate(c.snapshot())
    m = c.apply(comp)
    assert m.entries_modified == 2
    assert m.new_generation == 1
    # all or nothing: the failing second child leaves no trace of the first
    bad = crs.CompositeDelta(
        crs.ProofDelta(HARD, {"p": pn(proof=1)}), crs.ConstraintDelta(SOFT, remove=["missing"])
    )
    with pytest.raises(crs.DeltaValidationError):
        c.apply(bad)
    assert c.snapshot().proof_index().get("p") is None
    assert c.generation() == 1


def test_similarity_rules() -> None:
    c = crs.CRS()
    for bad, msg in [
        ({("a", "a"): 0.1}, "self"),
        ({("", "a"): 0.1}, "empty"),
        ({("a", "b"): -1.0}, ">= 0"),
        ({("a", "b"): float("nan")}, ">= 0"),
    ]:
        with pytest.raises(crs.DeltaValidationError, match=msg):
            c.apply(crs.SimilarityDelta(SOFT, bad))
    c.apply(crs.SimilarityDelta(SOFT, {("b", "a"): 0.0, ("a", "b"): 0.5}))  # last wins
    s = c.snapshot().similarity_index()
    assert s.size() == 1
    assert s.distance("a", "b") == 0.5 == s.distance("b", "a")
    assert s.all_pairs() == {"a": {"b": 0.5}}
    a = crs.SimilarityDelta(SOFT, {("a", "b"): 1})
    assert a.conflicts_with(crs.SimilarityDelta(SOFT, {("b", "a"): 2}))
    with pytest.raises(crs.InvalidArgumentError, match="updates"):
        crs.SimilarityDelta(SOFT, {"ab": 1.0})  # type: ignore[dict-item]


def test_dependency_rules() -> None:
    c = crs.CRS()
    c.apply(crs.DependencyDelta(HARD, add_edges=[("a", "b"), ("b", "c")]))
    with pytest.raises(crs.DeltaValidationError, match="cycle"):
        c.apply(crs.DependencyDelta(HARD, add_edges=[("c", "a")]))
    with pytest.raises(crs.DeltaValidationError, match="cycle"):
        crs.DependencyDelta(HARD, add_edges=[("c", "a")]).validate(c.snapshot())
    with pytest.raises(crs.DeltaValidationError, match="self"):
        c.apply(crs.DependencyDelta(HARD, add_edges=[("a", "a")]))
    d = c.snapshot().dependency_index()
    assert d.depends_on("a") == ["b"]
    assert d.depended_by("c") == ["b"]
    assert d.size() == 2
    assert d.all_edges() == {"a": ["b"], "b": ["c"]}
    assert not d.is_graph_backed()
    c.apply(crs.DependencyDelta(HARD, remove_edges=[("b", "c")], add_edges=[("c", "a")]))
    assert c.snapshot().dependency_index().size() == 2
    x = crs.DependencyDelta(HARD, add_edges=[("a", "b")])
    y = crs.DependencyDelta(HARD, remove_edges=[("a", "b")])
    assert x.conflicts_with(y)
    assert y.conflicts_with(x)


def test_history_and_streaming() -> None:
    c = crs.CRS(max_history_entries=3)
    with pytest.raises(crs.DeltaValidationError, match="id"):
        c.apply(crs.HistoryDelta(SOFT, [crs.HistoryEntry(id="")]))
    with pytest.raises(crs.DeltaValidationError, match="metadata"):
        c.apply(crs.HistoryDelta(SOFT, [crs.HistoryEntry(id="h", metadata={"k": "v" * 5000})]))
    entries = [crs.HistoryEntry(id=f"h{i}", node_id="n", action=str(i)) for i in range(5)]
    c.apply(crs.HistoryDelta(SOFT, entries))
    h = c.snapshot().history_index()
    assert h.evicted() == 2
    assert h.size() == 3
    assert [e.id for e in h.recent(2)] == ["h3", "h4"]
    assert h.recent(0) == []
    assert len(h.trace("n")) == 3
    c.apply(crs.StreamingDelta(SOFT, increments={"x": 3, "y": 0}, cardinality_items=["z", "z"]))
    c.apply(crs.StreamingDelta(SOFT, increments={"x": 2}))
    st = c.snapshot().streaming_index()
    assert st.estimate("x") >= 5
    assert st.estimate("z") >= 1
    assert st.cardinality() == 2  # y had a zero increment: not counted
    assert st.size() == 1024 * 5 * 8 + (1 << 14)
    merged = crs.StreamingDelta(SOFT, increments={"x": 1}).merge(
        crs.StreamingDelta(SOFT, increments={"x": 2})
    )
    assert isinstance(merged, crs.StreamingDelta)
    assert merged.increments["x"] == 3
    with pytest.raises(crs.InvalidArgumentError, match="increments"):
        crs.StreamingDelta(SOFT, increments={"x": -1})


def test_analytics_delta() -> None:
    c = crs.CRS()
    with pytest.raises(crs.DeltaValidationError, match="query_time"):
        c.apply(crs.AnalyticsDelta(HARD, crs.AnalyticsRecord("hotspots", 0, 1, 1)))
    with pytest.raises(crs.DeltaValidationError, match="cycles"):
        c.apply(crs.AnalyticsDelta(HARD, crs.AnalyticsRecord("cycles", 1, 2, 1)))
    rec = crs.AnalyticsRecord("hotspots", 7, 60, 3).with_results([f"s{i}" for i in range(60)])
    m = c.apply(crs.AnalyticsDelta(HARD, rec))
    assert m.entries_modified == 3
    assert m.indexes_updated == crs.IndexMask.PROOF
    assert len(rec.results) == 60  # the caller's record is not mutated
    stored = c.get_last_analytics(crs.AnalyticsQueryType.HOTSPOTS)
    assert stored is not None
    assert len(stored.results) == crs.MAX_RESULTS_PER_RECORD
    snap = c.snapshot()
    assert snap.has_run_analytics("hotspots")
    assert not snap.has_run_analytics("path")
    marker = snap.proof_index().get(crs.PROOF_KEY_ANALYTICS_HOTSPOTS_FOUND)
    assert marker is not None
    assert marker.status == crs.ProofStatus.PROVEN
    c.apply(crs.create_analytics_delta(crs.AnalyticsQueryType.DEAD_CODE, 0, 1))
    assert snap.proof_index().get(crs.PROOF_KEY_ANALYTICS_DEAD_CODE_DONE) is None
    assert c.snapshot().proof_index().get(crs.PROOF_KEY_ANALYTICS_DEAD_CODE_FOUND) is None
    assert [r.query_type for r in c.get_analytics_history()] == ["hotspots", "dead_code"]
    hist = crs.AnalyticsHistory(2)
    for i in range(3):
        hist.add(crs.AnalyticsRecord("path", i + 1, 0, 0))
    assert hist.size() == 2
    assert hist.has_run("path")
    assert not hist.has_run("cycles")
    r = crs.AnalyticsRecord("x", 1, 0, 0)
    assert r.get_proof_done_key() == "analytics:x:done"
    assert r.id.startswith("analytics-x-1-")


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: crs.ProofDelta(9, {}), "source"),  # type: ignore[arg-type]
        (lambda: crs.ProofDelta(HARD, {"a": 1}), "ProofNumber"),  # type: ignore[dict-item]
        (lambda: crs.ProofDelta(HARD, {"a": pn(proof=-1)}), "proof"),
        (lambda: crs.ProofDelta(HARD, {"a": pn(status=7)}), "status"),  # type: ignore[arg-type]
        (lambda: crs.ProofDelta(HARD, {"": pn()}), "node ids"),
        (lambda: crs.ProofDelta(HARD, {}, timestamp="x"), "timestamp"),  # type: ignore[arg-type]
        (lambda: crs.DependencyDelta(HARD, add_edges=[("a",)]), "add_edges"),  # type: ignore[list-item]
        (lambda: crs.HistoryDelta(HARD, ["x"]), "entries"),  # type: ignore[list-item]
        (lambda: crs.CompositeDelta("x"), "deltas"),  # type: ignore[arg-type]
        (lambda: crs.AnalyticsDelta(HARD, None), "record"),  # type: ignore[arg-type]
        (lambda: crs.delta_from_dict({"type": "nope"}), "type"),
        (lambda: crs.ProofDelta(HARD, {}).merge("x"), "other"),  # type: ignore[arg-type]
    ],
)
def test_bad_arguments_name_the_argument(call: object, match: str) -> None:
    with pytest.raises(crs.InvalidArgumentError, match=match):
        call()  # type: ignore[operator]


def test_caps_evict_oldest_with_counter_and_log(caplog: pytest.LogCaptureFixture) -> None:
    c = crs.CRS(max_similarity_pairs=2)
    with caplog.at_level("INFO", logger="crs.state"):
        c.apply(crs.SimilarityDelta(SOFT, {("a", "b"): 1, ("c", "d"): 2, ("e", "f"): 3}))
    s = c.snapshot().similarity_index()
    assert s.size() == 2
    assert s.evicted() == 1
    assert s.distance("a", "b") is None
    assert "cap of 2 similarity pairs reached" in caplog.text
