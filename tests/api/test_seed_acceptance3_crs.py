"""Seed acceptance, third pass: the Go CRS page (seeds/001), public API only.

Each docstring quotes the seed statement it checks (docs/seed-acceptance.md, "Third pass").
"""

from __future__ import annotations

import json

import pytest

import crs
from steps import tool_step

HARD, SOFT = crs.SignalSource.HARD, crs.SignalSource.SOFT


def _disproven() -> crs.ProofNumber:
    return crs.ProofNumber(
        proof=crs.PROOF_NUMBER_INFINITE, disproof=0, status=crs.ProofStatus.DISPROVEN
    )


# ------------------------------------------------------------------ IndexMask


@pytest.mark.parametrize("value", [0, 1, 3, 63, 64, 255])
def test_index_mask_unmarshal_json_accepts_a_uint8(value: int) -> None:
    """`type IndexMask uint8`; UnmarshalJSON "Accepts either a JSON array of strings or a
    number (bitmask)": every uint8 is accepted (bits above the six indexes dropped)."""
    mask = crs.IndexMask.unmarshal_json(str(value))
    assert int(mask) == value & 63


@pytest.mark.parametrize("text", ["256", "-1", "1000", "1.5", "true", '"proof"', "{}", "[1]"])
def test_index_mask_unmarshal_json_refuses_what_is_no_uint8(text: str) -> None:
    """IndexMask is a uint8: a number outside 0-255 (or not an integer) is refused with a
    typed error, as Go's decoder refuses it."""
    with pytest.raises(crs.InvalidArgumentError):
        crs.IndexMask.unmarshal_json(text)


def test_index_mask_json_round_trip() -> None:
    """MarshalJSON "Outputs a JSON array of index names: ["proof", "constraint"]"; the array
    reads back; String is comma-separated."""
    mask = crs.IndexMask.PROOF.add(crs.IndexMask.CONSTRAINT)
    assert json.loads(mask.marshal_json()) == ["proof", "constraint"]
    assert crs.IndexMask.unmarshal_json(mask.marshal_json()) == mask
    assert str(mask) == "proof,constraint"
    assert crs.IndexMask.unmarshal_json("[]") == crs.IndexMask(0)
    assert crs.IndexMask(0).names() == []


# ------------------------------------------------------------ semantic repetition


@pytest.mark.parametrize("spelling", ["read-file", "READ_FILE", "read__file", "read--file"])
def test_semantic_repetition_spellings_of_one_identifier_count_the_same(spelling: str) -> None:
    """FailureTypeSemanticRepetition "a semantically similar tool call was detected":
    `read_file` and `read-file` are one identifier, so the second call repeats the first."""
    c = crs.CRS()
    assert c.check_semantic_repetition("s", "grep", "read_file in src") == []
    found = c.check_semantic_repetition("s", "grep", f"{spelling} in src")
    assert [m.node_id for m in found] == ["grep:read_file in src"]
    assert found[0].distance == pytest.approx(0.0, abs=1e-9)


def test_semantic_repetition_distinct_identifiers_stay_distinct() -> None:
    """Distinct identifiers are not near-duplicates: `read_file` vs `write_file` share no
    token (the joiner keeps each identifier whole)."""
    c = crs.CRS()
    c.check_semantic_repetition("s", "grep", "read_file")
    assert c.check_semantic_repetition("s", "grep", "write_file") == []
    assert c.check_semantic_repetition("s", "grep", "read_files") == []


def test_semantic_repetition_is_per_session() -> None:
    """The check looks at earlier calls of the same session only."""
    c = crs.CRS()
    c.check_semantic_repetition("a", "grep", "find todo items")
    assert c.check_semantic_repetition("b", "grep", "find todo items") == []
    assert len(c.check_semantic_repetition("a", "grep", "find todo items")) == 1


# ------------------------------------------------------------------ ReasoningSummary


def test_summary_counts_active_constraints_only() -> None:
    """ReasoningSummary: "ConstraintsApplied is the number of active constraints";
    Constraint.Active is a plain bool (zero value false)."""
    assert crs.Constraint(id="x").active is False
    c = crs.CRS()
    c.apply(
        crs.ConstraintDelta(
            HARD,
            add=[
                crs.Constraint(id="on1", nodes=("a",), active=True),
                crs.Constraint(id="on2", nodes=("b",), active=True),
                crs.Constraint(id="off", nodes=("c",)),
            ],
        )
    )
    s = crs.Serializer()
    summary = s.compute_summary(c.snapshot())
    assert summary.constraints_applied == 2
    assert s.export_summary_only(c.snapshot()).constraints_applied == 2
    export = s.export(c.snapshot(), "sess")
    assert export.summary.constraints_applied == 2
    assert len(export.indexes.constraint.constraints) == 3


def test_import_checks_the_active_constraint_count() -> None:
    """An export whose summary claims a different count of active constraints is refused;
    the honest one (1 of 2 active) imports."""
    c = crs.CRS()
    c.apply(
        crs.ConstraintDelta(
            HARD,
            add=[
                crs.Constraint(id="on", nodes=("a",), active=True),
                crs.Constraint(id="off", nodes=("b",)),
            ],
        )
    )
    s = crs.Serializer()
    full = s.export_full(c.snapshot(), "sess").export
    assert full is not None
    doc = json.loads(json.dumps(full.to_dict()))
    assert doc["summary"]["constraints_applied"] == 1
    assert set(s.import_(doc).constraint_data) == {"on", "off"}
    doc["summary"]["constraints_applied"] = 2
    with pytest.raises(crs.InvalidArgumentError, match="constraints_applied"):
        s.import_(doc)


def test_summary_of_an_empty_snapshot_is_all_zero() -> None:
    """ConfidenceScore "between 0.0 and 1.0": zero explored nodes give 0.0, not a division
    error."""
    assert crs.Serializer().compute_summary(crs.CRS().snapshot()) == crs.ReasoningSummary()


# ------------------------------------------------------------------ CycleAnalysis


def test_cycle_analysis_duration_is_filled_for_an_empty_session() -> None:
    """CycleAnalysis.AnalysisDuration "is how long the analysis took"
    (json:"analysis_duration_ns"): filled even when the session has no steps."""
    a = crs.analyze_session_cycles(crs.CRS(), "nobody")
    assert a.analysis_duration > 0
    assert a.analysis_duration_ns > 0
    assert a.analysis_time > 0


def test_cycle_analysis_json_uses_the_seed_tags() -> None:
    """CycleAnalysis JSON tags: session_id, total_sccs, cyclic_sccs, largest_scc_size,
    analysis_time, analysis_duration_ns (integer nanoseconds); the dict reads back."""
    c = crs.CRS()
    for tool in ["a", "b", "a", "b", "a"]:
        c.record_step(tool_step(tool))
    a = crs.analyze_session_cycles(c, "s")
    doc = json.loads(json.dumps(a.to_dict()))
    assert set(doc) == {
        "session_id",
        "total_sccs",
        "cyclic_sccs",
        "largest_scc_size",
        "analysis_time",
        "analysis_duration_ns",
    }
    assert isinstance(doc["analysis_duration_ns"], int)
    assert doc["analysis_duration_ns"] > 0
    assert doc["analysis_duration_ns"] == a.analysis_duration_ns
    assert doc["largest_scc_size"] == 2
    assert doc["total_sccs"] >= 1
    assert crs.CycleAnalysis.from_dict(doc) == a
    with pytest.raises(crs.InvalidArgumentError, match="analysis_duration_ns"):
        crs.CycleAnalysis.from_dict({**doc, "analysis_duration_ns": -1})


# ------------------------------------------------------------------ ProofDelta.Merge


def test_merge_of_soft_and_hard_proof_deltas_keeps_the_soft_disproof_refused() -> None:
    """ProofDelta.Validate: "Soft signals cannot mark nodes as DISPROVEN"; Merge "combines
    this delta with another delta". Merging a soft disproof with a hard delta (either order)
    must not launder it: the merge is a composite whose soft child is still refused."""
    soft = crs.ProofDelta(SOFT, {"n": _disproven()})
    hard = crs.ProofDelta(HARD, {"m": crs.ProofNumber(proof=1, disproof=1)})
    for merged in (soft.merge(hard), hard.merge(soft)):
        assert merged.type() == crs.DeltaType.COMPOSITE
        c = crs.CRS()
        with pytest.raises(crs.HardSoftBoundaryViolationError):
            c.apply(merged)
        assert c.generation() == 0
        assert c.get_proof_status("m") is None


def test_merge_of_same_hardness_proof_deltas_is_a_union() -> None:
    """ProofDelta merge of two hard (or two soft) deltas: one ProofDelta, union, the later
    UpdatedAt wins a clash, a tie keeps the receiver's."""
    a = crs.ProofDelta(
        HARD, {"x": crs.ProofNumber(proof=1, updated_at=5), "y": crs.ProofNumber(proof=2)}
    )
    b = crs.ProofDelta(
        crs.SignalSource.SAFETY,
        {"x": crs.ProofNumber(proof=9, updated_at=6), "y": crs.ProofNumber(proof=7)},
    )
    m = a.merge(b)
    assert isinstance(m, crs.ProofDelta)
    assert m.updates["x"].proof == 9
    assert m.updates["y"].proof == 2
    s1 = crs.ProofDelta(SOFT, {"x": crs.ProofNumber(proof=1)})
    s2 = crs.ProofDelta(SOFT, {"z": crs.ProofNumber(proof=3)})
    assert isinstance(s1.merge(s2), crs.ProofDelta)
    assert set(s1.merge(s2).updates) == {"x", "z"}


def test_merge_of_soft_and_hard_without_disproof_applies_both() -> None:
    """A soft+hard merge without disproofs applies whole: both sides' entries land."""
    soft = crs.ProofDelta(SOFT, {"a": crs.ProofNumber(proof=3, status=crs.ProofStatus.PROVEN)})
    hard = crs.ProofDelta(HARD, {"b": _disproven()})
    c = crs.CRS()
    c.apply(soft.merge(hard))
    assert c.generation() == 1
    a, b = c.get_proof_status("a"), c.get_proof_status("b")
    assert a is not None
    assert b is not None
    assert a.status == crs.ProofStatus.PROVEN
    assert b.status == crs.ProofStatus.DISPROVEN


def test_soft_disproof_is_refused_directly() -> None:
    """ "Soft signals cannot mark nodes as DISPROVEN" (ErrHardSoftBoundaryViolation, also an
    ErrDeltaValidation); nothing changes."""
    c = crs.CRS()
    with pytest.raises(crs.DeltaValidationError):
        c.apply(crs.ProofDelta(SOFT, {"n": _disproven()}))
    assert c.generation() == 0


# ------------------------------------------------------------------ zero values, merges


def test_zero_values_of_plain_structs() -> None:
    """Spec README §2: plain Go structs default to Go's zero value."""
    assert crs.ProofNumber() == crs.ProofNumber(
        proof=0, disproof=0, status=crs.ProofStatus.UNKNOWN, source=crs.SignalSource.UNKNOWN
    )
    c = crs.Constraint()
    assert (c.id, c.nodes, c.expression, c.active, c.created_at) == ("", (), "", False, 0)
    assert crs.ReasoningSummary().confidence_score == 0.0
    assert crs.CycleAnalysis().analysis_duration_ns == 0


def test_index_mask_from_strings_ignores_unknown_names() -> None:
    """IndexMaskFromStrings "converts string names to IndexMask": an analytics delta affects
    ["analytics", "proof"], its mask is the proof index only."""
    assert crs.index_mask_from_strings(["analytics", "proof"]) == crs.IndexMask.PROOF
    delta = crs.ProofDelta(HARD, {"n": crs.ProofNumber(proof=1)})
    assert crs.index_mask_from_delta(delta) == crs.IndexMask.PROOF


def test_merge_with_another_type_is_a_composite() -> None:
    """Merge of different delta types: a CompositeDelta of both, in order."""
    p = crs.ProofDelta(HARD, {"n": crs.ProofNumber(proof=1)})
    k = crs.ConstraintDelta(HARD, add=[crs.Constraint(id="c", nodes=("n",), active=True)])
    m = p.merge(k)
    assert m.type() == crs.DeltaType.COMPOSITE
    assert set(m.indexes_affected()) >= {"proof", "constraint"}
    c = crs.CRS()
    c.apply(m)
    assert c.generation() == 1
    assert crs.Serializer().compute_summary(c.snapshot()).constraints_applied == 1


def test_proof_delta_conflicts_when_nodes_overlap() -> None:
    """ProofDelta.ConflictsWith: true when the other ProofDelta touches a shared node (either
    side); other types never conflict with it."""
    a = crs.ProofDelta(HARD, {"n": crs.ProofNumber(proof=1)})
    b = crs.ProofDelta(SOFT, {"n": crs.ProofNumber(proof=2), "m": crs.ProofNumber()})
    d = crs.ProofDelta(HARD, {"z": crs.ProofNumber()})
    assert a.conflicts_with(b)
    assert b.conflicts_with(a)
    assert not a.conflicts_with(d)
    k = crs.ConstraintDelta(HARD, add=[crs.Constraint(id="c", nodes=("n",))])
    assert not a.conflicts_with(k)


@pytest.mark.parametrize(
    ("member", "value"),
    [
        (crs.DeltaType.UNKNOWN, 0),
        (crs.DeltaType.PROOF, 1),
        (crs.DeltaType.CONSTRAINT, 2),
        (crs.DeltaType.SIMILARITY, 3),
        (crs.DeltaType.DEPENDENCY, 4),
        (crs.DeltaType.HISTORY, 5),
        (crs.DeltaType.STREAMING, 6),
        (crs.DeltaType.COMPOSITE, 7),
        (crs.DeltaType.ANALYTICS, 8),
    ],
)
def test_delta_type_values(member: crs.DeltaType, value: int) -> None:
    """DeltaType constants keep the Go values (iota order)."""
    assert int(member) == value
