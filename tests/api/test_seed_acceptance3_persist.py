"""Seed acceptance, third pass: the Go CRS page (seeds/001) through journals and restore.

Docstrings quote the seed statement or the spec README decision they check.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import crs
from steps import tool_step

HARD, SOFT, SAFETY = crs.SignalSource.HARD, crs.SignalSource.SOFT, crs.SignalSource.SAFETY


def _clause() -> crs.Clause:
    lits = (crs.Literal("tool:rm", True), crs.Literal("prev_tool:ls", True))
    return crs.Clause(id="k", literals=lits, source=SAFETY)


def _use_count(c: crs.CRS) -> int:
    clause = c.snapshot().constraint_index().get_clause("k")
    assert clause is not None
    return clause.use_count


def test_a_blocking_check_counts_a_use_without_a_new_generation(tmp_path: Path) -> None:
    """Clause.UseCount "tracks how often this clause blocks decisions" (decision §5.2 in
    docs/seed-acceptance.md): the count moves, the generation does not, a snapshot taken
    before the check keeps the old count, and the count survives a reopen of the journal."""
    c = crs.CRS.open(tmp_path / "j")
    c.add_clause(_clause())
    c.record_step(tool_step("ls"))
    gen, before = c.generation(), c.snapshot()
    for _ in range(3):
        assert not c.check_decision_allowed("s", "rm").allowed
    assert c.generation() == gen
    old = before.constraint_index().get_clause("k")
    assert old is not None
    assert old.use_count == 0
    assert _use_count(c) == 3
    c.close()
    again = crs.CRS.open(tmp_path / "j")
    try:
        assert again.generation() == gen
        assert _use_count(again) == 3
    finally:
        again.close()


def test_an_allowed_check_counts_no_use() -> None:
    """UseCount counts blocks only: an allowed decision leaves it at 0."""
    c = crs.CRS()
    c.add_clause(_clause())
    c.record_step(tool_step("ls"))
    assert c.check_decision_allowed("s", "cat").allowed
    assert _use_count(c) == 0


def test_a_blocking_check_does_not_make_a_base_snapshot_stale() -> None:
    """Spec §5.3: `apply(delta, base=snapshot)` is stale only after generations move; the
    guard's checks (no new generation) leave a held base usable."""
    c = crs.CRS()
    c.add_clause(_clause())
    c.record_step(tool_step("ls"))
    base = c.snapshot()
    for _ in range(crs.DEFAULT_SNAPSHOT_EPOCH_LIMIT + 5):
        c.check_decision_allowed("s", "rm")
    c.apply(crs.ProofDelta(HARD, {"n": crs.ProofNumber(proof=1)}), base=base)
    assert c.generation() == base.generation() + 1


def test_a_refused_soft_hard_merge_journals_nothing(tmp_path: Path) -> None:
    """ "Soft signals cannot mark nodes as DISPROVEN", also through Merge: the composite is
    refused, nothing reaches the journal, a reopen sees generation 0."""
    c = crs.CRS.open(tmp_path / "j")
    soft = crs.ProofDelta(
        SOFT,
        {"n": crs.ProofNumber(proof=crs.PROOF_NUMBER_INFINITE, status=crs.ProofStatus.DISPROVEN)},
    )
    hard = crs.ProofDelta(HARD, {"m": crs.ProofNumber(proof=2)})
    with pytest.raises(crs.HardSoftBoundaryViolationError):
        c.apply(hard.merge(soft))
    c.close()
    again = crs.CRS.open(tmp_path / "j")
    try:
        assert again.generation() == 0
        assert again.get_proof_status("m") is None
    finally:
        again.close()


def test_an_accepted_soft_hard_merge_replays_from_the_journal(tmp_path: Path) -> None:
    """The composite a soft+hard merge gives is journaled losslessly (spec §5.4) and
    replays to the same state and generation."""
    c = crs.CRS.open(tmp_path / "j")
    soft = crs.ProofDelta(SOFT, {"a": crs.ProofNumber(proof=3, status=crs.ProofStatus.PROVEN)})
    hard = crs.ProofDelta(
        HARD,
        {"b": crs.ProofNumber(proof=crs.PROOF_NUMBER_INFINITE, status=crs.ProofStatus.DISPROVEN)},
    )
    c.apply(soft.merge(hard))
    want = (c.generation(), c.get_proof_status("a"), c.get_proof_status("b"))
    c.close()
    again = crs.CRS.open(tmp_path / "j")
    try:
        assert (again.generation(), again.get_proof_status("a"), again.get_proof_status("b")) == (
            want
        )
    finally:
        again.close()


def test_summary_after_reopen_counts_active_constraints(tmp_path: Path) -> None:
    """ReasoningSummary.ConstraintsApplied "is the number of active constraints", also for
    a state rebuilt from the journal; deactivating one by Update lowers the count."""
    c = crs.CRS.open(tmp_path / "j")
    c.apply(
        crs.ConstraintDelta(
            HARD,
            add=[
                crs.Constraint(id="a", nodes=("x",), active=True),
                crs.Constraint(id="b", nodes=("y",), active=True),
            ],
        )
    )
    c.apply(crs.ConstraintDelta(HARD, update={"b": crs.Constraint(id="b", nodes=("y",))}))
    c.close()
    again = crs.CRS.open(tmp_path / "j")
    try:
        assert crs.Serializer().compute_summary(again.snapshot()).constraints_applied == 1
    finally:
        again.close()


def test_checkpoint_restore_keeps_clause_use_counts() -> None:
    """Restore "restores CRS state from a checkpoint": a clause's UseCount at checkpoint
    time comes back; the generation moves forward (spec §5.2)."""
    c = crs.CRS()
    c.add_clause(_clause())
    c.record_step(tool_step("ls"))
    c.check_decision_allowed("s", "rm")
    cp = c.checkpoint()
    c.check_decision_allowed("s", "rm")
    assert _use_count(c) == 2
    gen = c.generation()
    c.restore(cp)
    assert _use_count(c) == 1
    assert c.generation() == gen + 1
