"""Issue 11, items 4, 5 and 8: a lost journal is refused (never rebased silently), replay
positions are checked first, merges agree in both orders, guard queries answer on a full
journal."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from rel_common import clause, image, project, step

import crs


def _project_with_backup(
    tmp: Path, *, checkpoint: bool = True
) -> tuple[Path, Path, Path, tuple[object, int]]:
    proj, home = project(tmp)
    with crs.open_project(proj, home) as c:
        for i in range(4):
            c.apply(crs.ProofDelta(1, {f"n{i}": crs.ProofNumber(proof=i)}))
        if checkpoint:
            c.save_project_backup()
        else:  # a backup whose records the journal still holds
            info = c.project_info()
            pm = crs.PersistenceManager(
                dataclasses.replace(crs.DefaultPersistenceConfig(), base_dir=str(info.home))
            )
            pm.save_backup(info.project_hash, c)
            pm.close()
        for i in range(3):  # acknowledged after the backup: only the journal holds them
            c.apply(crs.ProofDelta(1, {f"t{i}": crs.ProofNumber(proof=i)}))
        want = image(c)
        jdir = c.project_info().journal_path
    return proj, home, jdir, want


def _backups(home: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(home)): p.read_bytes()
        for p in home.rglob("*")
        if p.is_file()
        and p.stat().st_size
        and ("backup" in p.name or p.name.startswith("metadata"))
    }


@pytest.mark.parametrize("how", ["deleted", "emptied", "truncated"])
def test_a_lost_journal_is_refused_and_the_backups_are_kept(tmp_path: Path, how: str) -> None:
    proj, home, jdir, _ = _project_with_backup(tmp_path, checkpoint=how != "truncated")
    if how == "deleted":
        shutil.rmtree(jdir)
    else:
        for seg in jdir.glob("*.wal"):
            if how == "emptied":
                seg.unlink()
            else:
                with open(seg, "r+b") as f:
                    f.truncate(32 + 40)  # the header and (part of) the first record
        (jdir / "CHECKPOINT").unlink(missing_ok=True)
    before = _backups(home)
    for _ in range(2):
        with pytest.raises(crs.JournalCorruptedError, match="accept_journal_loss") as err:
            crs.open_project(proj, home)
        assert "backup's position 4" in str(err.value)
        assert _backups(home) == before  # never overwritten by a refused open
    with crs.open_project(proj, home, accept_journal_loss=True) as c:
        assert c.get_proof_status("n3") is not None  # the backup's state
        c.apply(crs.ProofDelta(1, {"after": crs.ProofNumber(proof=1)}))
        want = image(c)
    kept = {k: v for k, v in _backups(home).items() if ".journal-loss-4" in k}
    assert sorted(v for v in kept.values()) == sorted(before.values())  # kept as they were
    with crs.open_project(proj, home) as c:  # accepted once: opens normally again
        assert image(c) == want


def test_a_whole_journal_opens_as_before(tmp_path: Path) -> None:
    proj, home, _, want = _project_with_backup(tmp_path)
    with crs.open_project(proj, home) as c:
        assert image(c) == want


def test_replay_journal_checks_after_seq_before_moving(tmp_path: Path) -> None:
    with crs.CRS.open(tmp_path / "j") as c:
        c.apply(crs.ProofDelta(1, {"a": crs.ProofNumber(proof=1)}))
        for bad in (2**63, 2**64 + 5, -1, True, "3", 1.0):
            with pytest.raises(crs.InvalidArgumentError, match="after_seq"):
                c.replay_journal(after_seq=bad)  # type: ignore[arg-type]
            assert c.journal_position() == 1
        pm = crs.PersistenceManager(
            dataclasses.replace(crs.DefaultPersistenceConfig(), base_dir=str(tmp_path / "h"))
        )
        key = crs.compute_project_hash(str(tmp_path))
        c.save_checkpoint_to_disk(pm, key)  # a later backup still works
        assert pm.get_backup_metadata(key) is not None
        pm.close()


def test_leaf_merges_upgrade_the_source_like_composites() -> None:
    soft = crs.ProofDelta(crs.SignalSource.SOFT, {"a": crs.ProofNumber(proof=1, updated_at=1)})
    hard = crs.ProofDelta(
        crs.SignalSource.HARD,
        {"b": crs.ProofNumber(status=crs.ProofStatus.DISPROVEN, source=crs.SignalSource.HARD)},
    )
    for merged in (soft.merge(hard), hard.merge(soft)):
        assert merged.source() == crs.SignalSource.HARD
        c = crs.CRS()
        c.apply(merged)  # a soft delta may not disprove: both orders apply
        node = c.get_proof_status("b")
        assert node is not None
        assert node.status == crs.ProofStatus.DISPROVEN
    soft_, hard_ = crs.SignalSource.SOFT, crs.SignalSource.HARD
    pairs = [
        (
            crs.SimilarityDelta(soft_, {("x", "y"): 0.1}),
            crs.SimilarityDelta(hard_, {("x", "z"): 0.2}),
        ),
        (crs.HistoryDelta(soft_, [crs.HistoryEntry(id="h1")]), crs.HistoryDelta(hard_, [])),
        (crs.DependencyDelta(soft_, add_edges=[("p", "q")]), crs.DependencyDelta(hard_)),
        (crs.StreamingDelta(soft_, increments={"k": 1}), crs.StreamingDelta(hard_)),
        (crs.ConstraintDelta(soft_), crs.ConstraintDelta(hard_)),
    ]
    for a, b in pairs:
        assert a.merge(b).source() == b.merge(a).source() == crs.SignalSource.HARD
        assert a.merge(a).source() == crs.SignalSource.SOFT


def _blocking_crs(tmp: Path) -> tuple[crs.CRS, crs.LocalJournal]:
    cfg = dataclasses.replace(
        crs.DefaultJournalConfig(), path=str(tmp / "j"), session_id="g", sync_policy="none"
    )
    with crs.LocalJournal(cfg, crs.DeltaCodec()) as j:
        c = crs.CRS(journal=j)
        c.record_step(step("s1", "grep"))
        c.add_clause(clause("grep", "grep"))
        c.check_semantic_repetition("s1", "grep", "find the bug")
        limit = j.stats().total_bytes
    j = crs.LocalJournal(dataclasses.replace(cfg, max_journal_bytes=limit), crs.DeltaCodec())
    return crs.CRS.open(j), j


def test_guard_queries_answer_blocked_on_a_full_journal(tmp_path: Path) -> None:
    c, j = _blocking_crs(tmp_path)
    with j:
        before = image(c)
        with pytest.raises(crs.JournalFullError):
            c.record_step(step("s1", "read"))  # a change still fails loudly
        check = c.check_decision_allowed("s1", "grep")
        assert not check.allowed
        assert "c-grep-grep" in check.reason
        matches = c.check_semantic_repetition("s1", "grep", "find the bug")
        assert matches
        assert matches[0].distance == 0
        assert image(c) == before  # the bookkeeping was not recorded, nothing half-done
        assert image(crs.CRS.open(j)) == before
