"""Second-pass acceptance tests of the seed's persistence statements (seeds/001: journals,
backups, session restore), public API only, on the real file system.

The centre is a property test: every value the public API accepts, of every kind (all delta
types, analytics with every optional field, steps with every nested list, clauses of each
scope, similarity, checkpoints and restores), survives the journal (reopened from disk) and a
backup (loaded into a fresh CRS) unchanged. docs/seed-acceptance.md ("Second pass") maps the
statements.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import crs

HARD = crs.SignalSource.HARD
SOFT = crs.SignalSource.SOFT
H = "abcdef0123456789"


def _pm(tmp: Path) -> crs.PersistenceManager:
    return crs.PersistenceManager(
        crs.PersistenceConfig(base_dir=str(tmp / "base"), lock_timeout_sec=2)
    )


def _history(c: crs.CRS) -> list[str]:
    return [e.id for e in c.snapshot().history_index().recent(1000)]


def _entry(i: str) -> crs.HistoryDelta:
    return crs.HistoryDelta(HARD, [crs.HistoryEntry(id=i, node_id="n")])


# ---------------------------------------------------------------- the property


ids = st.text(alphabet="abcdef", min_size=1, max_size=3)
words = st.text(max_size=8)  # any code points
sources = st.sampled_from([HARD, SOFT, crs.SignalSource.SAFETY])
u64 = st.integers(0, 2**64 - 1)
stamps = st.integers(0, 2**62)
id_tuples = st.lists(ids, max_size=3).map(tuple)
ctypes = st.sampled_from(list(crs.ConstraintType))
# positional: (proof, disproof, status, source, updated_at); soft disproofs are refused
proof_numbers = st.builds(
    crs.ProofNumber, u64, u64, st.sampled_from(list(crs.ProofStatus)), sources, stamps
)
# (id, type, nodes, expression, active, source, created_at)
constraints = st.builds(
    crs.Constraint, ids, ctypes, id_tuples, words, st.booleans(), sources, stamps
)
# (id, node_id, action, result, source, timestamp, metadata)
metadata = st.dictionaries(ids, words, max_size=2)
history_entries = st.builds(crs.HistoryEntry, ids, ids, words, words, sources, stamps, metadata)
json_leaves = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=4)
json_values = (
    json_leaves
    | st.lists(json_leaves, max_size=2)
    | st.dictionaries(st.text(max_size=3), st.lists(json_leaves, max_size=2), max_size=2)
)
analytics_records = st.builds(
    lambda qt, qtime, n, ms, gen, params, qp, results, cycles, path: (
        crs.AnalyticsRecord(qt, qtime, n, ms)
        .with_graph_generation(gen)
        .with_typed_params(params)
        .with_params(qp)
        .with_results(results)
        .with_cycles(cycles)
        .with_path(path)
    ),
    st.sampled_from(list(crs.AnalyticsQueryType)),
    st.integers(1, 2**50),
    st.integers(0, 3),
    st.integers(0, 10_000),
    st.integers(0, 100),
    st.builds(
        crs.AnalyticsQueryParams,
        limit=st.integers(0, 50),
        from_symbol=words,
        to_symbol=words,
        target_symbol=words,
        package_name=words,
    ),
    st.dictionaries(st.text(min_size=1, max_size=3), json_values, max_size=2),
    st.lists(ids, min_size=1, max_size=3),
    st.lists(st.lists(ids, min_size=1, max_size=3), min_size=1, max_size=2),
    st.lists(ids, min_size=1, max_size=3),
)


def upto2(elements: st.SearchStrategy[Any]) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.lists(elements, max_size=2).map(tuple)


tool_params = st.builds(
    crs.ToolParams, words, words, st.integers(0, 9), st.integers(0, 9),
    upto2(words),
    upto2(st.builds(crs.KeyValue, ids, words)),
)  # fmt: skip
proof_updates = st.builds(
    crs.ProofUpdate, ids,
    st.sampled_from([crs.ProofUpdateType.INCREMENT, crs.ProofUpdateType.PROVEN]),
    st.integers(1, 5), words, sources,
)  # fmt: skip
constraint_updates = st.builds(crs.ConstraintUpdate, ids, ctypes, id_tuples, sources)
edges = st.builds(crs.DependencyEdge, ids, ids, sources)
BASE_STEP = crs.StepRecord(
    actor=crs.Actor.MAIN_AGENT, model="m", duration_ms=7, tokens_used=3, propagate=True
)


def _step(fields: dict[str, Any]) -> crs.StepRecord:
    text = fields.pop("text")
    failed = fields["outcome"] == crs.Outcome.FAILURE
    return dataclasses.replace(
        BASE_STEP, reasoning=text, result_summary=text, next_hint=text,
        error_message=text if failed else "",
        error_category=crs.ErrorCategory.TIMEOUT if failed else crs.ErrorCategory.NONE, **fields,
    )  # fmt: skip


decisions = st.sampled_from(
    [crs.Decision.EXECUTE_TOOL, crs.Decision.SELECT_TOOL, crs.Decision.RETRY]
)
outcomes = st.sampled_from([crs.Outcome.SUCCESS, crs.Outcome.FAILURE, crs.Outcome.SKIPPED])
steps = st.fixed_dictionaries(
    {
        "session_id": st.sampled_from(["s1", "s2"]), "tool": ids, "decision": decisions,
        "outcome": outcomes, "tool_params": st.none() | tool_params, "confidence": st.floats(0, 1),
        "proof_updates": upto2(proof_updates),
        "constraints_added": upto2(constraint_updates),
        "dependencies_found": upto2(edges), "text": words,
    }
).map(_step)  # fmt: skip
clauses = st.builds(
    lambda cid, lits, scope, ft, sid: crs.Clause(
        id=cid, literals=lits, source=HARD, failure_type=ft, session_id=sid, scope=scope
    ),
    ids,
    st.lists(
        st.builds(
            crs.Literal,
            st.sampled_from(["tool:a", "tool:b", "prev_tool:a", "outcome:success"]),
            st.booleans(),
        ),
        min_size=1,
        max_size=3,
    ).map(tuple),
    st.none() | st.sampled_from(list(crs.ClauseScope)),
    st.sampled_from(["", *crs.FailureType]),
    st.sampled_from(["s1", "s2"]),
)
leaf_deltas = st.one_of(
    st.builds(crs.ProofDelta, sources, st.dictionaries(ids, proof_numbers, max_size=3)),
    st.builds(
        lambda s, add: crs.ConstraintDelta(s, add=add),
        sources,
        st.lists(constraints, max_size=2, unique_by=lambda k: k.id),
    ),
    st.builds(
        lambda s, pairs: crs.SimilarityDelta(s, updates=pairs),
        sources,
        st.dictionaries(
            st.tuples(ids, ids).filter(lambda p: p[0] != p[1]), st.floats(0, 5), max_size=2
        ),
    ),
    st.builds(
        lambda s, edges: crs.DependencyDelta(s, add_edges=edges),
        sources,
        st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xyz")), max_size=3),
    ),
    st.builds(crs.HistoryDelta, sources, st.lists(history_entries, max_size=2)),
    st.builds(
        lambda s, inc, items: crs.StreamingDelta(s, increments=inc, cardinality_items=items),
        sources,
        st.dictionaries(ids, st.integers(0, 2**32), max_size=3),
        st.lists(ids, max_size=2),
    ),
    st.builds(crs.AnalyticsDelta, st.just(HARD), analytics_records),
)
deltas = st.one_of(
    leaf_deltas, st.lists(leaf_deltas, max_size=3).map(lambda ds: crs.CompositeDelta(*ds))
)
operations = st.one_of(
    deltas.map(lambda d: ("apply", d)),
    st.tuples(deltas, words, st.dictionaries(ids, words, max_size=2)).map(
        lambda t: ("apply_with_source", t)
    ),
    steps.map(lambda s: ("record_step", s)),
    clauses.map(lambda c: ("add_clause", c)),
    st.tuples(ids, ids, st.floats(0, 10))
    .filter(lambda t: t[0] != t[1])
    .map(lambda t: ("similarity", t)),
    st.tuples(
        ids,
        st.sampled_from(
            [
                crs.ProofUpdateType.INCREMENT,
                crs.ProofUpdateType.DISPROVEN,
                crs.ProofUpdateType.RESET,
            ]
        ),
        st.integers(1, 9),
    ).map(lambda t: ("update_proof", t)),
    st.sampled_from(["s1", "s2"]).map(lambda s: ("clear_steps", s)),
    st.sampled_from(["s1", "s2"]).map(lambda s: ("session_id", s)),
    st.sampled_from("abcxyz").map(lambda n: ("propagate", n)),
    st.just(("checkpoint", None)),
    st.just(("restore", None)),
    st.just(("gc", None)),
    st.sampled_from(["s1", "s2"]).map(lambda s: ("check_decision", s)),
)


def _run(c: crs.CRS, ops: list[tuple[str, Any]]) -> None:
    cp: crs.Checkpoint | None = None
    for name, arg in ops:
        try:
            if name == "apply":
                c.apply(arg)
            elif name == "apply_with_source":
                c.apply_with_source(*arg)
            elif name == "record_step":
                c.record_step(arg)
            elif name == "add_clause":
                c.add_clause(arg)
            elif name == "similarity":
                c.record_similarity(*arg)
            elif name == "update_proof":
                node, kind, delta = arg
                c.update_proof_number(
                    crs.ProofUpdate(node_id=node, type=kind, delta=delta, source=HARD)
                )
            elif name == "clear_steps":
                c.clear_step_history(arg)
            elif name == "session_id":
                c.set_session_id(arg)
            elif name == "propagate":
                c.propagate_disproof(arg)
            elif name == "checkpoint":
                cp = c.checkpoint()
            elif name == "restore" and cp is not None:
                c.restore(cp)
            elif name == "gc":
                c.garbage_collect_clauses()
            elif name == "check_decision":
                c.check_decision_allowed(arg, "a")
        except crs.DeltaValidationError:
            pass  # refused (e.g. a dependency cycle): nothing was committed


def _observable(c: crs.CRS) -> dict[str, Any]:
    """Everything the public API shows of a CRS's state."""
    snap = c.snapshot()
    export = json.loads(c.export_json())
    export.pop("timestamp")
    export.pop("session_id")
    sim = snap.similarity_index()
    return {
        "generation": c.generation(),
        "export": export,
        "proof": snap.proof_index().all(),
        "constraints": snap.constraint_index().all(),
        "clauses": snap.constraint_index().all_clauses(),
        "pairs": sim.all_pairs(),
        "edges": snap.dependency_index().all_edges(),
        "history": [e.to_dict() for e in snap.history_index().recent(10_000)],
        "streaming": (
            snap.streaming_index().cardinality(),
            {i: snap.streaming_index().estimate(i) for i in ("a", "b", "ab", "abc", "f")},
        ),
        "analytics": [r.to_dict() for r in snap.analytics_history()],
        "steps": {s: [x.to_dict() for x in c.get_step_history(s)] for s in ("s1", "s2")},
        "counts": {s: c.count_tool_executions(s, "a") for s in ("s1", "s2")},
    }


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(operations, min_size=1, max_size=10))
def test_every_accepted_value_round_trips_through_journal_and_backup(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, Any]]
) -> None:
    """Journal: "On restart, replays all deltas since last checkpoint to reconstruct state";
    LoadBackup / SaveCheckpointToDisk: backups restore CRS state across sessions (spec §5.4:
    records are lossless for all eight delta types, source and timestamp included; §5.5:
    backups hold the whole state)."""
    tmp = tmp_path_factory.mktemp("rt")
    with crs.CRS.open(tmp / "journal") as c:
        _run(c, ops)
        want = _observable(c)
    pm = _pm(tmp)
    with crs.CRS.open(tmp / "journal") as again:  # replayed from the journal on disk
        assert _observable(again) == want
        again.save_checkpoint_to_disk(pm, H)  # a backup, then the journal is checkpointed
    loaded = crs.CRS()
    pm.load_backup(H, loaded)
    assert _observable(loaded) == want
    cfg = crs.JournalConfig(path=str(tmp / "journal"), session_id="next", sync_writes=True)
    with crs.LocalJournal(cfg, crs.DeltaCodec()) as j:
        resumed = crs.CRS(journal=j)
        resumed.load_checkpoint_from_disk(pm, H)  # backup + (empty) tail
        assert _observable(resumed) == want
    pm.close()


# ---------------------------------------------------------------- journal


def test_journal_reopen_continues_after_a_checkpoint(tmp_path: Path) -> None:
    """Journal.Checkpoint "marks current position, enabling journal truncation"; Replay
    "returns all deltas since last checkpoint"; Stats LastSeqNum "the most recent sequence
    number" (spec §5.4: sequence numbers never skip, across reopening too)."""
    cfg = crs.JournalConfig(path=str(tmp_path / "j"), session_id="s", sync_writes=True)
    with crs.LocalJournal(cfg) as j:
        for i in range(3):
            j.append(_entry(f"e{i}"))
        j.checkpoint()
        assert j.replay() == []
        j.append(_entry("e3"))
    with crs.LocalJournal(cfg) as j:
        assert [d.entries[0].id for d in j.replay()] == ["e3"]
        assert [item.seq_num for item in j.replay_stream()] == [4]
        j.append(_entry("e4"))
        assert j.stats().last_seq_num == 5
        assert [item.seq_num for item in j.replay_stream()] == [4, 5]


def test_journal_replay_keeps_source_and_timestamp(tmp_path: Path) -> None:
    """Delta.Source / Timestamp "when this delta was created (Unix milliseconds UTC)": a
    replayed delta is the delta that was appended (spec §5.4, closing the Go loss of both);
    a hard disproof replays without tripping the hard/soft boundary."""
    cfg = crs.JournalConfig(path=str(tmp_path / "j"), session_id="s", sync_writes=True)
    d = crs.ProofDelta(HARD, {"n": crs.ProofNumber(status=crs.ProofStatus.DISPROVEN)})
    with crs.LocalJournal(cfg, crs.DeltaCodec()) as j:
        j.append(d)
    with crs.LocalJournal(cfg, crs.DeltaCodec()) as j:
        (back,) = j.replay()
    assert (back.source(), back.timestamp()) == (HARD, d.timestamp())
    c = crs.CRS()
    c.apply(back)
    got = c.get_proof_status("n")
    assert got is not None
    assert got.status == crs.ProofStatus.DISPROVEN


def test_journal_append_batch_is_all_or_nothing(tmp_path: Path) -> None:
    """AppendBatch "writes multiple deltas atomically in a single transaction": a batch with
    a nil delta writes none of them."""
    cfg = crs.JournalConfig(path=str(tmp_path / "j"), session_id="s", sync_writes=True)
    with crs.LocalJournal(cfg) as j:
        j.append(_entry("first"))
        with pytest.raises(crs.NilDeltaJournalError):
            j.append_batch([_entry("a"), None])
        j.append_batch([_entry("b"), _entry("c")])
        assert [d.entries[0].id for d in j.replay()] == ["first", "b", "c"]
        assert j.stats().last_seq_num == 3


def test_closed_journal_refuses_everything(tmp_path: Path) -> None:
    """ErrJournalClosed "is returned when operations are called on a closed journal";
    IsAvailable "returns false if journal is in degraded mode or closed"; Close "syncs and
    releases resources" (idempotent)."""
    cfg = crs.JournalConfig(path=str(tmp_path / "j"), session_id="s", sync_writes=True)
    j = crs.LocalJournal(cfg)
    j.append(_entry("a"))
    j.close()
    j.close()
    assert not j.is_available()
    for call in (
        lambda: j.append(_entry("b")),
        lambda: j.append_batch([_entry("b")]),
        j.replay,
        j.checkpoint,
        j.sync,
    ):
        with pytest.raises(crs.JournalClosedError):
            call()
    with crs.LocalJournal(cfg) as reopened:
        assert [d.entries[0].id for d in reopened.replay()] == ["a"]


def test_in_memory_journal_for_within_session_learning() -> None:
    """README "Journal modes: enableSessionRestore=false -> in-memory (within-session learning
    only)"; JournalConfig.InMemory "uses in-memory [storage]"."""
    j = crs.MemoryJournal(codec=crs.DeltaCodec())
    c = crs.CRS(journal=j)
    c.apply(_entry("a"))
    c.record_similarity("x", "y", 0.5)
    c.add_clause(crs.Clause(id="k", literals=(crs.Literal("tool:a", True),), source=HARD))
    twin = crs.CRS.open(j)
    assert _history(twin) == ["a"]
    assert twin.get_similarity("y", "x") == 0.5
    assert twin.snapshot().constraint_index().get_clause("k") is not None


# ---------------------------------------------------------------- backups


def test_backup_metadata_describes_the_file(tmp_path: Path) -> None:
    """BackupMetadata: ContentHash "the SHA256 hash of the compressed backup file",
    CompressedSize "the size of the compressed backup file", Generation "the CRS generation
    at backup time", SessionID "the session that created this backup", SchemaVersion,
    CreatedAt (ms); CompressionRatio; GetBackupMetadata returns the same."""
    pm = _pm(tmp_path)
    c = crs.CRS()
    for i in range(3):
        c.apply(_entry(f"e{i}"))
    m = pm.save_backup(H, c, crs.BackupOptions(session_id="sess-9"))
    blob = Path(pm.backup_path(H)).read_bytes()
    assert m.content_hash == hashlib.sha256(blob).hexdigest()
    assert m.compressed_size == len(blob)
    assert m.uncompressed_size > 0
    assert m.compression_ratio() == m.compressed_size / m.uncompressed_size
    assert (m.generation, m.session_id, m.project_hash) == (3, "sess-9", H)
    assert m.schema_version == crs.CURRENT_SCHEMA_VERSION
    assert m.age() >= 0
    assert pm.get_backup_metadata(H) == m
    assert pm.has_backup(H)
    pm.close()


def test_default_persistence_config_values() -> None:
    """PersistenceConfig: LockTimeoutSec "Default: 30 seconds", MaxBackupRetries "Default: 3",
    ValidateOnRestore "Default: true"; NewPersistenceManager "Creates the directory structure
    if it doesn't exist"."""
    cfg = crs.DefaultPersistenceConfig()
    assert (cfg.lock_timeout_sec, cfg.max_backup_retries, cfg.validate_on_restore) == (30, 3, True)


def test_persistence_manager_creates_nested_base_dir(tmp_path: Path) -> None:
    """NewPersistenceManager: "Creates the directory structure if it doesn't exist"."""
    base = tmp_path / "a" / "b" / "c"
    cfg = dataclasses.replace(crs.DefaultPersistenceConfig(), base_dir=str(base))
    pm = crs.PersistenceManager(cfg)
    assert base.is_dir()
    pm.save_backup(H, crs.CRS())
    assert Path(pm.project_dir(H)).is_dir()
    assert Path(pm.metadata_path(H)).is_file()
    pm.close()


def test_a_corrupted_backup_leaves_the_target_untouched(tmp_path: Path) -> None:
    """LoadBackup "Performs integrity verification (SHA256 hash check) and version
    compatibility check before restoring" (spec §5.5: before anything is loaded): the CRS
    being restored into keeps its own state."""
    pm = _pm(tmp_path)
    src = crs.CRS()
    src.apply(_entry("theirs"))
    pm.save_backup(H, src)
    blob = bytearray(Path(pm.backup_path(H)).read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    Path(pm.backup_path(H)).write_bytes(bytes(blob))
    target = crs.CRS()
    target.apply(_entry("mine"))
    with pytest.raises(crs.BackupCorruptedError):
        pm.load_backup(H, target)
    assert _history(target) == ["mine"]
    assert target.generation() == 1
    pm.close()


def test_loading_a_backup_replaces_the_state(tmp_path: Path) -> None:
    """LoadBackup "restores ... state from a backup" (spec §5.5: a whole-state image; never
    merged with what the target held); Generation never goes back (spec §5.2)."""
    pm = _pm(tmp_path)
    src = crs.CRS()
    src.apply(_entry("theirs"))
    pm.save_backup(H, src)
    target = crs.CRS()
    for i in range(3):
        target.apply(_entry(f"mine{i}"))
    loaded = pm.load_backup(H, target)
    assert loaded.metadata.generation == 1
    assert _history(target) == ["theirs"]
    assert target.generation() > 3
    pm.close()


def test_a_second_concurrent_restore_is_refused(tmp_path: Path) -> None:
    """ErrRestoreInProgress "indicates a restore is already in progress"; LoadBackup is "Safe
    for concurrent use"; the refresh coordinator is paused during the restore."""
    pm = _pm(tmp_path)
    src = crs.CRS()
    src.apply(_entry("a"))
    pm.save_backup(H, src)
    entered, release = threading.Event(), threading.Event()

    class SlowCoordinator:
        paused = False

        def pause(self) -> None:
            self.paused = True
            entered.set()
            release.wait(10)

        def resume(self) -> None:
            self.paused = False

        def is_paused(self) -> bool:
            return self.paused

    pm.set_refresh_coordinator(SlowCoordinator())
    results: list[object] = []
    first = threading.Thread(target=lambda: results.append(pm.load_backup(H, crs.CRS())))
    first.start()
    assert entered.wait(10)
    try:
        with pytest.raises(crs.RestoreInProgressError):
            pm.load_backup(H, crs.CRS())
    finally:
        release.set()
        first.join(10)
    assert len(results) == 1
    pm.set_refresh_coordinator(None)
    assert pm.load_backup(H, crs.CRS()).metadata.generation == 1  # free again
    pm.close()


def test_save_backup_rejects_bad_project_hashes(tmp_path: Path) -> None:
    """SaveBackup: "projectHash: Project identifier (8-64 hex chars). Must not be empty";
    ValidateProjectHash: "a hex string of 8-64 characters"."""
    pm = _pm(tmp_path)
    for bad in ("", "abc", "g" * 16, "a" * 65):
        with pytest.raises(crs.CRSError):
            pm.save_backup(bad, crs.CRS())
    for good in ("a" * 8, "0123456789abcdef" * 4):
        crs.validate_project_hash(good)
        pm.save_backup(good, crs.CRS())
    assert not any(p.name == "" for p in (tmp_path / "base").iterdir())
    pm.close()


def test_closed_manager_refuses_backups(tmp_path: Path) -> None:
    """ErrPersistenceManagerClosed "indicates the manager has been closed"; Close is
    idempotent."""
    pm = _pm(tmp_path)
    pm.close()
    pm.close()
    with pytest.raises(crs.PersistenceManagerClosedError):
        pm.save_backup(H, crs.CRS())
    with pytest.raises(crs.PersistenceManagerClosedError):
        pm.load_backup(H, crs.CRS())


# ---------------------------------------------------------------- checkpoints, restore


def test_load_checkpoint_from_disk_on_a_first_run(tmp_path: Path) -> None:
    """README InitializeSession: LoadCheckpointFromDisk returns no metadata when "no previous
    backup found, starting fresh"; Error Handling: "ErrBackupNotFound ... normal for first
    run"."""
    pm = _pm(tmp_path)
    c = crs.CRS()
    assert c.load_checkpoint_from_disk(pm, H, None) is None
    assert c.generation() == 0
    with pytest.raises(crs.BackupNotFoundError):
        pm.load_backup(H, crs.CRS())
    pm.close()


def test_try_restore_is_idempotent_and_replays_the_journal_tail(tmp_path: Path) -> None:
    """TryRestore "Loads a checkpoint from disk and restores it into the CRS"; Inputs
    "journal: The Journal for replay"; DefaultSessionRestoreRetries "retry attempts on
    transient failures" (spec §5.13: retries never re-apply a delta)."""
    project = tmp_path / "proj"
    project.mkdir()
    sid = crs.SessionIdentifier(project)
    pm = _pm(tmp_path)
    journal_dir = tmp_path / "journal"
    with crs.CRS.open(journal_dir) as c:
        c.apply(_entry("in-backup"))
        c.save_checkpoint_to_disk(pm, sid.checkpoint_key())
        c.apply(_entry("in-tail"))
    cfg = crs.JournalConfig(path=str(journal_dir), session_id="next", sync_writes=True)
    with crs.LocalJournal(cfg, crs.DeltaCodec()) as j:
        target = crs.CRS()
        restorer = crs.SessionRestorer(pm, None)
        for _ in range(2):
            res = restorer.try_restore(target, j, sid)
            assert res.restored
            assert _history(target) == ["in-backup", "in-tail"]
    pm.close()


def test_checkpoint_restore_covers_steps_clauses_and_analytics() -> None:
    """Restore: "Restores CRS to the state at the checkpoint. All changes since the checkpoint
    are discarded" (spec §5.2: content, not only the six indexes)."""
    c = crs.CRS()
    c.record_step(
        crs.StepRecord(
            session_id="s", actor="router", decision="execute_tool", tool="a", outcome="success"
        )
    )
    cp = c.checkpoint()
    c.record_step(
        crs.StepRecord(
            session_id="s", actor="router", decision="execute_tool", tool="b", outcome="success"
        )
    )
    c.add_clause(crs.Clause(id="k", literals=(crs.Literal("tool:x", True),), source=HARD))
    c.apply(crs.create_analytics_delta(crs.AnalyticsQueryType.PATH, 0, 1))
    c.restore(cp)
    assert [s.tool for s in c.get_step_history("s")] == ["a"]
    assert c.snapshot().constraint_index().clause_count() == 0
    assert c.get_analytics_history() == []
    assert not c.has_run_analytics(crs.AnalyticsQueryType.PATH)


def _git(repo: Path, *args: str) -> None:
    who = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env = {**who, "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


@pytest.mark.parametrize("use_git", [True, False])
def test_find_files_modified_since_either_way(tmp_path: Path, use_git: bool) -> None:
    """FindFilesModifiedSince "finds files changed since a timestamp"; UseGitStatus "uses
    `git status` to find modified files instead of mtime scan" (either way the answer is the
    files changed after `since`, relative to the root, the repository's own files excluded)."""
    _git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "old.txt").write_text("o")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "init")
    (tmp_path / "early.txt").write_text("untracked, but from before")
    long_ago = time.time() - 100
    os.utime(tmp_path / "early.txt", (long_ago, long_ago))
    # git commit times have 1 s resolution: a commit in the second of `since` counts as after
    # it (conservative), so `since` is taken a second later
    time.sleep(1.1)
    since = time.time()
    time.sleep(0.02)
    (tmp_path / "a.txt").write_text("changed")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "new.txt").write_text("n")
    cfg = crs.SessionRestorerConfig(
        checkpoint_max_age=60, max_files_to_refresh=100, use_git_status=use_git, max_retries=0
    )
    assert sorted(crs.find_files_modified_since(tmp_path, since, cfg)) == ["a.txt", "sub/new.txt"]


@given(
    st.builds(
        crs.RestoreResult,
        restored=st.booleans(),
        checkpoint_id=words,
        generation=st.integers(0, 2**62),
        checkpoint_time=stamps,
        checkpoint_age=st.floats(0, 1e9),
        reason=words,
        modified_files=st.lists(words, max_size=3).map(tuple),
        modified_file_count=st.integers(0, 10_000),
        duration_ms=st.integers(0, 10**9),
    )
)
def test_restore_result_json_uses_the_seed_tags(result: crs.RestoreResult) -> None:
    """RestoreResult JSON tags: restored, checkpoint_id, generation, checkpoint_time,
    checkpoint_age, reason, modified_files, modified_file_count, duration_ms ("Immutable
    after creation; safe for concurrent use"): the dict form is plain JSON and reads back."""
    doc = json.loads(json.dumps(result.to_dict()))
    assert set(doc) >= {
        "restored",
        "checkpoint_id",
        "generation",
        "checkpoint_time",
        "checkpoint_age",
        "reason",
        "modified_files",
        "modified_file_count",
        "duration_ms",
    }
    assert crs.RestoreResult.from_dict(doc) == result


def test_session_identifier_json_uses_the_seed_tags(tmp_path: Path) -> None:
    """SessionIdentifier JSON tags: project_path, project_hash, git_commit_hash, computed_at;
    a stored identifier reads back without touching the file system."""
    (tmp_path / "go.mod").write_text("module x\n")
    sid = crs.SessionIdentifier(tmp_path)
    doc = json.loads(json.dumps(sid.to_dict()))
    assert set(doc) == {"project_path", "project_hash", "git_commit_hash", "computed_at"}
    (tmp_path / "go.mod").write_text("module changed\n")  # not read again
    back = crs.SessionIdentifier.from_dict(doc)
    assert back == sid
    assert back.checkpoint_key() == sid.checkpoint_key()
    with pytest.raises(crs.InvalidArgumentError, match="project_hash"):
        crs.SessionIdentifier.from_dict({"project_path": str(tmp_path)})


@pytest.mark.parametrize("validate", [True, False])
def test_validate_on_restore_controls_the_content_hash_check(
    tmp_path: Path, validate: bool
) -> None:
    """PersistenceConfig.ValidateOnRestore "enables integrity checks during restore"; with it,
    a backup whose SHA-256 differs from the metadata's ContentHash is ErrBackupCorrupted
    (metadata kept self-consistent here: MetadataHash recomputed)."""
    cfg = dataclasses.replace(
        crs.DefaultPersistenceConfig(), base_dir=str(tmp_path / "b"), validate_on_restore=validate
    )
    pm = crs.PersistenceManager(cfg)
    src = crs.CRS()
    src.apply(_entry("a"))
    meta = pm.save_backup(H, src)
    forged = dataclasses.replace(meta, content_hash="0" * 64)
    forged = dataclasses.replace(forged, metadata_hash=forged.compute_metadata_hash())
    Path(pm.metadata_path(H)).write_text(json.dumps(forged.to_dict(), indent=2) + "\n")
    target = crs.CRS()
    if validate:
        with pytest.raises(crs.BackupCorruptedError):
            pm.load_backup(H, target)
        assert _history(target) == []
    else:
        pm.load_backup(H, target)
        assert _history(target) == ["a"]
    pm.close()


def _backup_then_lost_tail(tmp: Path, pm: crs.PersistenceManager, key: str) -> crs.JournalConfig:
    """A backup, then records after it that are checkpointed away (the tail is gone)."""
    cfg = crs.JournalConfig(path=str(tmp / "journal"), session_id="s", sync_writes=True)
    with crs.LocalJournal(cfg, crs.DeltaCodec()) as j:
        c = crs.CRS(journal=j)
        c.apply(_entry("in-backup"))
        c.save_checkpoint_to_disk(pm, key)
        for i in range(3):
            c.apply(_entry(f"lost{i}"))
        j.checkpoint()  # drops records the backup does not cover
        c.apply(_entry("after"))
    return cfg


def test_a_failed_restore_leaves_the_target_as_it_was(tmp_path: Path) -> None:
    """TryRestore: RestoreResult.Restored "true if a checkpoint was successfully restored",
    "restore failures return in result"; Journal.Restore "is all-or-nothing": when the
    journal tail cannot be replayed (records between the backup and the journal's first
    record are gone), neither TryRestore nor LoadCheckpointFromDisk leaves the backup's image
    behind as the state; the generation still never goes back (spec §5.2)."""
    project = tmp_path / "proj"
    project.mkdir()
    sid = crs.SessionIdentifier(project)
    pm = _pm(tmp_path)
    cfg = _backup_then_lost_tail(tmp_path, pm, sid.checkpoint_key())
    target = crs.CRS()
    target.apply(_entry("mine"))
    target.record_step(
        crs.StepRecord(
            session_id="s", actor="router", decision="execute_tool", tool="t", outcome="success"
        )
    )
    target.add_clause(crs.Clause(id="k", literals=(crs.Literal("tool:x", True),), source=HARD))
    with crs.LocalJournal(cfg, crs.DeltaCodec()) as j:
        res = crs.SessionRestorer(pm, None).try_restore(target, j, sid)
        assert not res.restored
        assert "gap" in res.reason
        assert _history(target) == ["mine"]
        assert [s.tool for s in target.get_step_history("s")] == ["t"]  # the guards' state too
        assert target.snapshot().constraint_index().get_clause("k") is not None
        assert target.generation() >= 1
        with pytest.raises(crs.JournalSequenceGapError):
            target.load_checkpoint_from_disk(pm, sid.checkpoint_key(), j)
        assert _history(target) == ["mine"]
        target.apply(_entry("still-works"))
        assert _history(target) == ["mine", "still-works"]
    pm.close()


def test_option_a_without_loading_first_restores_each_delta_once(tmp_path: Path) -> None:
    """README "Complete Session Lifecycle", Option A ("Direct Apply + manual journal append"),
    then ShutdownSession's SaveCheckpointToDisk(pm, hash, journal), on a CRS that did not load
    from that journal first (a first run): the next LoadCheckpointFromDisk restores each delta
    once (a constraint added twice would even make the backup unloadable), also when the CRS
    applied deltas it did not journal."""
    pm = _pm(tmp_path)
    cfg = crs.JournalConfig(path=str(tmp_path / "badger"), session_id="s1", sync_writes=True)
    with crs.LocalJournal(cfg) as journal:
        state = crs.CRS(None)
        for d in (
            _entry("h0"),
            crs.ConstraintDelta(HARD, add=[crs.Constraint(id="k")]),
            _entry("h1"),
        ):
            state.apply(d)
            journal.append(d)
        state.apply(_entry("state-only"))  # applied, never journaled: in the backup
        last = _entry("h2")
        state.apply(last)
        journal.append(last)
        state.save_checkpoint_to_disk(pm, H, journal)
    with crs.LocalJournal(dataclasses.replace(cfg, session_id="s2")) as journal:
        again = crs.CRS(None)
        assert again.load_checkpoint_from_disk(pm, H, journal) is not None
        assert _history(again) == ["h0", "h1", "state-only", "h2"]
        assert set(again.snapshot().constraint_index().all()) == {"k"}
    pm.close()
