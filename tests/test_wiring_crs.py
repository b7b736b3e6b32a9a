"""A CRS with a journal: every committed change is journaled before it is acknowledged, a
journal failure changes nothing, and a new CRS replaying the journal (or loading a backup and
replaying the tail) reaches the same state and the same generation."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.test_state_model import deltas

import crs

SESSIONS = ["s1", "s2"]
TOOLS = ["grep", "read", "build"]
KEY = "0123456789abcdef"


def journal(path: Path, **kw: Any) -> crs.LocalJournal:
    cfg = dataclasses.replace(
        crs.DefaultJournalConfig(),
        path=str(path),
        session_id="t",
        sync_policy="none",
        segment_bytes=64 * 1024,
        preallocate=False,
        lock_timeout=0.0,
        **kw,
    )
    return crs.LocalJournal(cfg, crs.DeltaCodec())


def image(c: crs.CRS) -> tuple[dict[str, Any], int]:
    return c._state_image(), c.generation()


def step(sid: str, tool: str, outcome: str) -> crs.StepRecord:
    return crs.StepRecord(
        session_id=sid,
        actor=crs.Actor.MAIN_AGENT,
        decision=crs.Decision.EXECUTE_TOOL,
        tool=tool,
        outcome=crs.Outcome(outcome),
        error_category=crs.ErrorCategory.INTERNAL
        if outcome == "failure"
        else crs.ErrorCategory.NONE,
    )


def clause(tool: str, prev: str) -> crs.Clause:
    return crs.Clause(
        id=f"c-{tool}-{prev}",
        literals=(
            crs.Literal(variable=f"tool:{tool}", negated=True),
            crs.Literal(variable=f"prev_tool:{prev}", negated=True),
        ),
        source=crs.SignalSource.HARD,
        session_id="s1",
    )


sid, tool = st.sampled_from(SESSIONS), st.sampled_from(TOOLS)
node = st.sampled_from(["a", "b", "c", "session:s1:tool:grep"])
mutations = st.one_of(
    deltas.map(lambda d: ("apply", d)),
    deltas.map(lambda d: ("apply_with_source", d)),
    st.tuples(node, st.sampled_from(list(crs.ProofUpdateType)), st.integers(1, 3)).map(
        lambda t: ("update_proof_number", t)
    ),
    node.map(lambda n: ("propagate_disproof", n)),
    st.tuples(sid, tool, st.sampled_from(["success", "failure"])).map(lambda t: ("record_step", t)),
    sid.map(lambda s: ("clear_step_history", s)),
    st.tuples(tool, tool).map(lambda t: ("add_clause", t)),
    st.just(("garbage_collect_clauses", None)),
    st.tuples(tool, tool, st.floats(0, 2)).map(lambda t: ("record_similarity", t)),
    st.tuples(sid, tool).map(lambda t: ("check_decision_allowed", t)),
    st.tuples(sid, tool, st.sampled_from(["x", "x y", "y"])).map(
        lambda t: ("check_semantic_repetition", t)
    ),
    st.just(("checkpoint", None)),
    st.integers(0, 3).map(lambda i: ("restore", i)),
    st.just(("set_clause_config", None)),
)


def run(c: crs.CRS, op: str, arg: Any, cps: list[crs.Checkpoint]) -> None:
    """Apply one mutation; a rejected one must leave the state and generation unchanged."""
    before = image(c)
    try:
        if op == "apply":
            c.apply(arg)
        elif op == "apply_with_source":
            c.apply_with_source(arg, "test", {"k": "v"})
        elif op == "update_proof_number":
            n, kind, d = arg
            c.update_proof_number(
                crs.ProofUpdate(node_id=n, type=kind, delta=d, source=crs.SignalSource.HARD)
            )
        elif op == "propagate_disproof":
            c.propagate_disproof(arg)
        elif op == "record_step":
            c.record_step(step(*arg))
        elif op == "clear_step_history":
            c.clear_step_history(arg)
        elif op == "add_clause":
            c.add_clause(clause(*arg))
        elif op == "garbage_collect_clauses":
            c.garbage_collect_clauses()
        elif op == "record_similarity":
            c.record_similarity(*arg)
        elif op == "check_decision_allowed":
            c.check_decision_allowed(*arg)
        elif op == "check_semantic_repetition":
            c.check_semantic_repetition(*arg)
        elif op == "checkpoint":
            cps.append(c.checkpoint())
        elif op == "restore":
            if cps:
                c.restore(cps[arg % len(cps)])
        elif op == "set_clause_config":
            c.set_clause_config(
                crs.ClausePersistence(scope=crs.ClauseScope.SESSION, ttl=60.0, max_clauses=3)
            )
    except crs.CRSError:
        assert image(c) == before, f"{op} failed but changed the state"


@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    deadline=None,
)
@given(ops=st.lists(mutations, max_size=30), cut=st.integers(0, 30))
def test_replaying_the_journal_reaches_the_same_state_and_generation(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, Any]], cut: int
) -> None:
    path = tmp_path_factory.mktemp("j")
    home = tmp_path_factory.mktemp("home")
    pm = crs.PersistenceManager(
        dataclasses.replace(crs.DefaultPersistenceConfig(), base_dir=str(home))
    )
    cps: list[crs.Checkpoint] = []
    with journal(path) as j:
        c = crs.CRS(journal=j)
        for i, (op, arg) in enumerate(ops):
            if i == cut:  # a backup in the middle; the journal is checkpointed behind it
                c.save_checkpoint_to_disk(pm, KEY)
            run(c, op, arg, cps)
        want = image(c)
        assert c.journal_position() == j.stats().last_seq_num
    with journal(path) as j:  # a fresh process would do exactly this
        if j.stats().checkpoint_seq == 0:
            assert image(crs.CRS.open(j)) == want
        fresh = crs.CRS(journal=j)
        fresh.load_checkpoint_from_disk(pm, KEY)
        assert image(fresh) == want
        restored = crs.CRS()  # a backup image alone (no journal) holds everything too
        restored.load_image(c.export_image())
        assert image(restored) == want


def test_generation_of_ops_without_bump_is_replayed_exactly(tmp_path: Path) -> None:
    with journal(tmp_path) as j:
        c = crs.CRS(journal=j)
        c.record_step(step("s1", "grep", "success"))  # no generation bump
        c.add_clause(clause("grep", "read"))  # bump
        c.check_decision_allowed("s1", "grep")  # clause_used: no bump
        c.check_semantic_repetition("s1", "grep", "foo")  # no bump
        gen = c.generation()
        assert gen == 1
        assert image(crs.CRS.open(j)) == image(c)


# ---------------------------------------------------------------- journal failures

MUTATORS: list[tuple[str, Callable[[crs.CRS], object]]] = [
    ("apply", lambda c: c.apply(crs.ProofDelta(1, {"x": crs.ProofNumber(proof=9)}))),
    (
        "apply non-proof",
        lambda c: c.apply(crs.DependencyDelta(1, add_edges=[("x", "y")])),
    ),
    (
        "apply_with_source",
        lambda c: c.apply_with_source(crs.HistoryDelta(1, [crs.HistoryEntry(id="h")]), "t"),
    ),
    (
        "update_proof_number",
        lambda c: c.update_proof_number(
            crs.ProofUpdate(node_id="a", type=crs.ProofUpdateType.DISPROVEN, source=1)
        ),
    ),
    ("propagate_disproof", lambda c: c.propagate_disproof("a")),
    ("add_clause", lambda c: c.add_clause(clause("build", "grep"))),
    ("record_step", lambda c: c.record_step(step("s1", "read", "success"))),
    ("record_similarity", lambda c: c.record_similarity("k1", "k2", 0.5)),
    ("clear_step_history", lambda c: c.clear_step_history("s1")),
    ("check_decision_allowed", lambda c: c.check_decision_allowed("s1", "grep")),
    ("check_semantic_repetition", lambda c: c.check_semantic_repetition("s1", "grep", "q")),
    ("restore", lambda c: c.restore(c._cp)),  # type: ignore[attr-defined]
]


GUARD_QUERIES = ("check_decision_allowed", "check_semantic_repetition")


def assert_blocked(name: str, answer: object) -> None:
    """The seeded state blocks `grep` after `grep` and holds the query `q`."""
    if name == "check_decision_allowed":
        assert isinstance(answer, crs.DecisionCheck)
        assert not answer.allowed
    else:
        assert isinstance(answer, list)
        assert answer


def seeded(j: crs.LocalJournal) -> crs.CRS:
    c = crs.CRS(journal=j)
    c.apply(crs.DependencyDelta(1, add_edges=[("b", "a")]))
    c.apply(crs.ProofDelta(1, {"a": crs.ProofNumber(proof=1)}))
    c.record_step(step("s1", "grep", "success"))
    c.add_clause(clause("grep", "grep"))
    c.check_semantic_repetition("s1", "grep", "q")
    c._cp = c.checkpoint()  # type: ignore[attr-defined]
    c.apply(crs.ProofDelta(1, {"z": crs.ProofNumber(proof=1)}))
    return c


@pytest.mark.parametrize(("name", "mutate"), MUTATORS, ids=[m[0] for m in MUTATORS])
def test_a_closed_journal_leaves_the_state_unchanged(
    tmp_path: Path, name: str, mutate: Callable[[crs.CRS], object]
) -> None:
    j = journal(tmp_path)
    c = seeded(j)
    before = image(c)
    j.close()
    if name in GUARD_QUERIES:  # the answer stands; the bookkeeping is not recorded
        assert_blocked(name, mutate(c))
    else:
        with pytest.raises(crs.JournalClosedError):
            mutate(c)
    assert image(c) == before
    with journal(tmp_path) as j2:  # nothing half-journaled either
        assert image(crs.CRS.open(j2)) == before


@pytest.mark.parametrize(("name", "mutate"), MUTATORS, ids=[m[0] for m in MUTATORS])
def test_a_full_journal_leaves_the_state_unchanged(
    tmp_path: Path, name: str, mutate: Callable[[crs.CRS], object]
) -> None:
    with journal(tmp_path) as j:
        c = seeded(j)
        limit = j.stats().total_bytes
    with journal(tmp_path, max_journal_bytes=limit) as j:  # exactly full
        c = crs.CRS.open(j)
        c._cp = c.checkpoint()  # type: ignore[attr-defined]
        before = image(c)
        if name in GUARD_QUERIES:  # a full disk must not hide a "blocked" answer (issue 11)
            assert_blocked(name, mutate(c))
        else:
            with pytest.raises(crs.JournalFullError):
                mutate(c)
        assert image(c) == before
        assert image(crs.CRS.open(j)) == before


def test_journal_with_a_json_codec_is_refused(tmp_path: Path) -> None:
    cfg = dataclasses.replace(crs.DefaultJournalConfig(), path=str(tmp_path), session_id="t")
    with crs.LocalJournal(cfg) as j, pytest.raises(crs.InvalidArgumentError, match="DeltaCodec"):
        crs.CRS(journal=j)


def test_open_from_a_directory_owns_the_journal(tmp_path: Path) -> None:
    with crs.CRS.open(tmp_path / "j") as c:
        c.apply(crs.ProofDelta(1, {"a": crs.ProofNumber(proof=2)}))
        want = image(c)
    with crs.CRS.open(tmp_path / "j") as c:  # the lock was released by close()
        assert image(c) == want


def test_checkpointed_journal_without_backup_is_a_gap(tmp_path: Path) -> None:
    with journal(tmp_path) as j:
        c = crs.CRS(journal=j)
        for i in range(3):
            c.apply(crs.ProofDelta(1, {f"n{i}": crs.ProofNumber(proof=i)}))
        j.checkpoint(2)
        with pytest.raises(crs.JournalSequenceGapError, match="backup"):
            crs.CRS.open(j)


def test_open_project_restores_backup_and_tail(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    home = tmp_path / "home"
    with crs.open_project(project, home) as c:
        c.apply(crs.ProofDelta(1, {"a": crs.ProofNumber(proof=1)}))
        c.add_clause(clause("grep", "read"))
        meta = c.save_project_backup()
        assert meta.journal_position == 2
        c.apply(crs.ProofDelta(1, {"b": crs.ProofNumber(proof=2)}))  # the tail
        want = image(c)
    key = crs.compute_project_hash(str(project))
    assert (home / key / "journal").is_dir()
    assert (home / key / "backups" / "latest.backup.lz4").is_file()
    with crs.open_project(project, home) as c:
        assert image(c) == want
        assert c.journal_position() == 3
        assert "c-grep-read" in c.snapshot().constraint_index().all_clauses()


def test_a_replaced_journal_rebases_the_backups(tmp_path: Path) -> None:
    import shutil

    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir()
    with crs.open_project(project, home) as c:
        for i in range(3):
            c.apply(crs.ProofDelta(1, {f"n{i}": crs.ProofNumber(proof=i)}))
        c.save_project_backup()
        journal_dir = c.project_info().journal_path
    shutil.rmtree(journal_dir)  # the journal is lost; the backup survives
    with pytest.raises(crs.JournalCorruptedError, match="accept_journal_loss"):
        crs.open_project(project, home)  # refused until the loss is accepted (issue 11)
    with crs.open_project(project, home, accept_journal_loss=True) as c:
        assert c.generation() == 3
        assert c.journal_position() == 0
        c.apply(crs.ProofDelta(1, {"after": crs.ProofNumber(proof=9)}))  # journal record 1
        want = image(c)
    with crs.open_project(project, home) as c:
        assert image(c) == want  # record 1 was replayed, not taken as covered by the backup


def test_garbage_collection_is_journaled_and_a_failing_journal_changes_nothing(
    tmp_path: Path,
) -> None:
    import time

    j = journal(tmp_path)
    c = crs.CRS(journal=j)
    c.set_clause_config(
        crs.ClausePersistence(scope=crs.ClauseScope.PROJECT, ttl=0.001, max_clauses=10)
    )
    c.add_clause(clause("grep", "read"))
    time.sleep(0.01)
    before = image(c)
    j.close()
    with pytest.raises(crs.JournalClosedError):
        c.garbage_collect_clauses()
    assert image(c) == before
    with journal(tmp_path) as j2:
        c = crs.CRS.open(j2)
        assert image(c) == before
        assert c.garbage_collect_clauses() == 1
        want = image(c)
        assert want[1] == before[1] + 1
        assert image(crs.CRS.open(j2)) == want


def test_a_full_project_journal_saves_a_backup_and_checkpoints(tmp_path: Path) -> None:
    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir()
    jcfg = dataclasses.replace(
        crs.DefaultJournalConfig(),
        max_journal_bytes=8 * 1024,
        auto_checkpoint=True,
        segment_bytes=4096,
        preallocate=False,
        sync_policy="none",
    )
    with crs.open_project(project, home, journal_config=jcfg) as c:
        for i in range(200):  # ~100 bytes a record: the limit is reached several times
            c.apply(crs.ProofDelta(1, {f"node-{i:04d}": crs.ProofNumber(proof=i)}))
            c.record_step(step("s1", f"t{i % 3}", "success"))
        stats = c._journal.stats()
        assert stats.checkpoint_seq > 0  # an automatic checkpoint happened
        assert stats.total_bytes <= 8 * 1024
        meta = c.project_info()
        want = image(c)
    assert meta.backup_path.is_file()
    with crs.open_project(project, home, journal_config=jcfg) as c:
        assert image(c) == want  # backup + the tail after it


def test_crs_implements_the_backup_protocols(tmp_path: Path) -> None:
    c = crs.CRS()
    for proto in (crs.BackupSource, crs.BackupTarget, crs.RestoreTarget, crs.JSONExportSource):
        assert isinstance(c, proto), proto
    with pytest.raises(crs.InvalidArgumentError, match="image"):
        c.load_image(crs.BackupImage(b"not an image", 0, 0))


def test_export_image_is_one_consistent_step_under_concurrent_commits(tmp_path: Path) -> None:
    import threading

    with journal(tmp_path) as j:
        c = crs.CRS(journal=j)
        stop = threading.Event()

        def writer() -> None:
            i = 0
            while not stop.is_set():
                c.apply(crs.ProofDelta(1, {f"n{i}": crs.ProofNumber(proof=i)}))
                i += 1

        t = threading.Thread(target=writer)
        t.start()
        try:
            while c.generation() < 10:
                stop.wait(0.001)
            images = [c.export_image() for _ in range(50)]
        finally:
            stop.set()
            t.join()
        assert images[-1].generation > 0
        for img in images:  # each delta: one new node, one generation, one journal record
            fresh = crs.CRS()
            fresh.load_image(img)
            assert fresh.generation() == img.generation == img.journal_position
            assert fresh.snapshot().proof_index().size() == img.generation
