"""Issue 11, item 1: a call that raises leaves no record behind, and a record that cannot be
applied is a typed, skippable journal error instead of a brick."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from rel_common import image, jconfig, project, step

import crs


def test_a_refused_step_leaves_no_record_and_the_project_opens(tmp_path: Path) -> None:
    proj, home = project(tmp_path)
    with crs.open_project(proj, home) as c:
        c.record_step(step("s1", "grep"))
        with pytest.raises(crs.InvalidArgumentError, match="tool"):
            c.record_step(step("s1", ["not", "a", "str"]))  # unhashable: used to brick
        assert [s.tool for s in c.get_step_history("s1")] == ["grep"]
        c.record_step(step("s1", "read"))
        want = image(c)
        pos = c.journal_position()
    with crs.open_project(proj, home) as c:
        assert image(c) == want
        assert c.journal_position() == pos == 2  # the refused call burnt no record


def _plant(journal_dir: Path, records: list[object]) -> None:
    cfg = dataclasses.replace(crs.DefaultJournalConfig(), path=str(journal_dir), session_id="p")
    with crs.LocalJournal(cfg, crs.DeltaCodec()) as j:
        for r in records:
            j.append(r)


def test_replaying_an_unappliable_op_is_a_typed_error_that_can_be_skipped(
    tmp_path: Path,
) -> None:
    good = crs.CRS()
    good.record_step(step("s1", "grep"))
    payload = crs.StepRecord.to_dict(good.get_step_history("s1")[0])
    bad = {**payload, "tool": ["x"], "step_number": 2}
    later = {**payload, "tool": "read", "step_number": 3}
    records = [
        {"op": "record_step", "payload": {"step": payload}, "bump_generation": False},
        {"op": "record_step", "payload": {"step": bad}, "bump_generation": False},
        crs.ProofDelta(1, {"n": crs.ProofNumber(proof=4)}),
        {"op": "record_step", "payload": {"step": later}, "bump_generation": False},
    ]
    jdir = tmp_path / "j"
    _plant(jdir, records)
    with pytest.raises(crs.JournalCorruptedError, match=r"record 2.*cannot be applied"):
        crs.CRS.open(jdir)
    cfg = jconfig(jdir, skip_corrupted_deltas=True)
    with crs.LocalJournal(cfg, crs.DeltaCodec()) as j:
        c = crs.CRS.open(j)
        assert [s.tool for s in c.get_step_history("s1")] == ["grep", "read"]
        node = c.get_proof_status("n")
        assert node is not None
        assert node.proof == 4
        assert c.journal_position() == 4
        assert j.stats().corrupted_count == 1
