"""Acceptance tests of the Go CRS reference page (seeds/001), part 2: journals, backups,
session restore, observability, graph adapters and the concurrency promises. Public API only.

The test docstrings quote the seed statement checked; where spec/README.md §5 records a
deliberate difference, the test asserts our behaviour and cites it (docs/seed-acceptance.md).
"""

from __future__ import annotations

import dataclasses
import io
import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import crs

HARD = crs.SignalSource.HARD


def _delta(i: int = 0) -> crs.ProofDelta:
    return crs.ProofDelta(HARD, {f"node{i}": crs.ProofNumber(proof=i)})


def _journal(path: Path, **kw: object) -> crs.LocalJournal:
    return crs.LocalJournal(
        crs.JournalConfig(path=str(path), session_id="s", sync_writes=True, **kw)  # type: ignore[arg-type]
    )


def _pm(tmp_path: Path, **kw: object) -> crs.PersistenceManager:
    fields: dict[str, object] = {
        "base_dir": str(tmp_path / "home"),
        "lock_timeout_sec": 5,
        "max_backup_retries": 0,
        "validate_on_restore": True,
    }
    fields.update(kw)
    return crs.PersistenceManager(crs.PersistenceConfig(**fields))  # type: ignore[arg-type]


def _saved_project(tmp_path: Path) -> tuple[Path, crs.SessionIdentifier, crs.PersistenceManager]:
    """A project directory with one checkpoint (node1) saved for it."""
    project = tmp_path / "proj"
    project.mkdir()
    sid = crs.SessionIdentifier(project)
    pm = _pm(tmp_path)
    c = crs.CRS()
    c.apply(_delta(1))
    c.save_checkpoint_to_disk(pm, sid.checkpoint_key(), None)
    return project, sid, pm


# ---------------------------------------------------------------- journal


def test_seed_journal_allow_degraded(tmp_path: Path) -> None:
    """JournalConfig.AllowDegraded: "allows startup even if [the store is] unavailable ...
    operates in memory-only mode"; without it opening fails. IsAvailable is false and
    IsDegraded true in degraded mode; Stats().Degraded."""
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(crs.JournalError):
        _journal(blocker / "j")
    j = _journal(blocker / "j", allow_degraded=True)
    assert j.is_degraded()
    assert not j.is_available()
    assert j.stats().degraded
    j.append(_delta())
    assert len(j.replay()) == 1
    j.close()


def test_seed_journal_in_memory(tmp_path: Path) -> None:
    """JournalConfig.InMemory (for testing): no files, full behaviour."""
    j = crs.LocalJournal(crs.JournalConfig(session_id="s", in_memory=True))
    j.append(_delta())
    assert len(j.replay()) == 1
    assert not j.is_degraded()
    j.close()
    assert list(tmp_path.iterdir()) == []


def test_seed_journal_full(tmp_path: Path) -> None:
    """ErrJournalFull: "journal exceeds MaxJournalBytes"; nothing partial is left."""
    j = _journal(tmp_path / "j", max_journal_bytes=300)
    appended = 0
    error: crs.CRSError | None = None
    for i in range(100):
        try:
            j.append(_delta(i))
        except crs.CRSError as exc:
            error = exc
            break
        appended += 1
    assert isinstance(error, crs.JournalFullError)
    assert 0 < appended < 100
    assert len(j.replay()) == appended
    j.close()


def test_seed_journal_crc_corruption_and_skip(tmp_path: Path) -> None:
    """ErrJournalCorrupted ("CRC mismatch") on replay; SkipCorruptedDeltas "continues replay
    past corrupted entries", counted in Stats().CorruptedCount; DeltaOrError.Skipped."""
    j = _journal(tmp_path / "j")
    for i in range(3):
        j.append(_delta(i))
    j.close()
    (wal,) = [p for p in (tmp_path / "j").iterdir() if p.suffix == ".wal"]
    data = bytearray(wal.read_bytes())
    data[len(data) // 2] ^= 0xFF
    wal.write_bytes(bytes(data))
    with pytest.raises(crs.JournalCorruptedError):
        _journal(tmp_path / "j").replay()
    skipping = _journal(tmp_path / "j", skip_corrupted_deltas=True)
    assert len(skipping.replay()) == 2
    assert skipping.stats().corrupted_count >= 1
    stream = list(skipping.replay_stream())
    assert [(x.seq_num, x.skipped) for x in stream] == [(1, False), (2, True), (3, False)]
    assert isinstance(stream[1].err, crs.JournalCorruptedError)
    assert stream[1].delta is None
    assert stream[0].delta is not None
    assert stream[0].err is None
    skipping.close()


def test_seed_journal_backup_and_restore(tmp_path: Path) -> None:
    """Journal.Backup(w) "creates a portable backup"; Restore(r) "loads state from a backup"
    and re-initialises sequence numbers."""
    src = _journal(tmp_path / "a")
    for i in range(3):
        src.append(_delta(i))
    buf = io.BytesIO()
    src.backup(buf)
    assert buf.getvalue()
    dst = _journal(tmp_path / "b")
    buf.seek(0)
    dst.restore(buf)
    assert [d.to_dict()["updates"] for d in dst.replay()] == [
        d.to_dict()["updates"] for d in src.replay()
    ]
    assert dst.stats().last_seq_num == 3
    dst.append(_delta(9))
    assert dst.stats().last_seq_num == 4
    src.close()
    dst.close()


def test_seed_journal_checkpoint_stats(tmp_path: Path) -> None:
    """Checkpoint "marks current position and truncates old entries"; Stats LastCheckpoint,
    TotalBytes; Replay returns "all deltas since last checkpoint"."""
    j = _journal(tmp_path / "j")
    assert j.stats().last_checkpoint is None
    j.append(_delta(1))
    j.checkpoint()
    j.append(_delta(2))
    stats = j.stats()
    assert stats.last_checkpoint is not None
    assert stats.total_bytes > 0
    assert [d.to_dict()["updates"] for d in j.replay()] == [_delta(2).to_dict()["updates"]]
    j.close()


def test_seed_journal_concurrent_appends(tmp_path: Path) -> None:
    """Journal: "Safe for concurrent use from multiple goroutines"; sequence numbers never
    skip (spec §5.4)."""
    j = _journal(tmp_path / "j")

    def work(t: int) -> None:
        for i in range(25):
            j.append(_delta(t * 100 + i))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [x.seq_num for x in j.replay_stream()] == list(range(1, 101))
    j.close()


# ---------------------------------------------------------------- backups


def test_seed_backup_options_and_metadata(tmp_path: Path) -> None:
    """BackupOptions.CreateJSONExport "also creates a portable JSON export" (export.json, its
    path in ExportPath); BackupOptions.SessionID recorded in metadata; metadata fields."""
    pm = _pm(tmp_path)
    h = "abcdef0123456789"
    c = crs.CRS()
    c.apply(_delta(1))
    meta = pm.save_backup(h, c, crs.BackupOptions(create_json_export=True, session_id="sess-9"))
    assert meta.session_id == "sess-9"
    assert Path(meta.export_path) == Path(pm.export_path(h))
    doc = json.loads(Path(pm.export_path(h)).read_text())
    assert doc["generation"] == c.generation()
    assert "indexes" in doc
    assert meta.project_hash == h
    assert meta.created_at > 0
    assert meta.schema_version == crs.CURRENT_SCHEMA_VERSION
    assert meta.uncompressed_size > 0
    assert meta.compressed_size > 0
    assert meta.compression_ratio() == pytest.approx(meta.compressed_size / meta.uncompressed_size)
    assert crs.BackupMetadata().compression_ratio() == 0
    pm.close()


def test_seed_two_generation_rotation_falls_back(tmp_path: Path) -> None:
    """PrevBackupPath / PrevMetadataPath: "two-generation checkpoint rotation for crash
    safety": a damaged current backup falls back to the previous one."""
    pm = _pm(tmp_path)
    h = "abcdef0123456789"
    c = crs.CRS()
    c.apply(_delta(1))
    first = pm.save_backup(h, c)
    c.apply(_delta(2))
    pm.save_backup(h, c)
    assert Path(pm.prev_backup_path(h)).exists()
    assert Path(pm.prev_metadata_path(h)).exists()
    blob = bytearray(Path(pm.backup_path(h)).read_bytes())
    blob[-3] ^= 1
    Path(pm.backup_path(h)).write_bytes(bytes(blob))
    loaded = pm.load_backup(h)
    assert loaded.metadata.generation == first.generation
    target = crs.CRS()
    pm.load_backup(h, target)
    assert target.get_proof_status("node1") is not None
    assert target.get_proof_status("node2") is None
    pm.close()


def test_seed_metadata_corruption(tmp_path: Path) -> None:
    """ErrMetadataCorrupted: "the metadata file failed integrity check" (MetadataHash)."""
    pm = _pm(tmp_path)
    h = "abcdef0123456789"
    pm.save_backup(h, crs.CRS())
    doc = json.loads(Path(pm.metadata_path(h)).read_text())
    doc["generation"] = 99
    Path(pm.metadata_path(h)).write_text(json.dumps(doc))
    with pytest.raises(crs.MetadataCorruptedError):
        pm.load_backup(h)
    with pytest.raises(crs.MetadataCorruptedError):
        pm.get_backup_metadata(h)
    pm.close()


def test_seed_backup_version_mismatch(tmp_path: Path) -> None:
    """ErrBackupVersionMismatch: a backup written in another (format) version is refused
    (spec §5.14: a format version replaces BadgerDB's version string)."""
    pm = _pm(tmp_path)
    h = "abcdef0123456789"
    meta = pm.save_backup(h, crs.CRS())
    future = dataclasses.replace(meta, format_version=meta.format_version + 98, metadata_hash="")
    future = dataclasses.replace(future, metadata_hash=future.compute_metadata_hash())
    Path(pm.metadata_path(h)).write_text(json.dumps(future.to_dict()))
    with pytest.raises(crs.BackupVersionMismatchError):
        pm.load_backup(h)
    pm.close()


def test_seed_backup_lock_failed(tmp_path: Path) -> None:
    """ErrBackupLockFailed: "another process holds the lock" (flock), after LockTimeoutSec."""
    pm = _pm(tmp_path, lock_timeout_sec=0.5)
    h = "abcdef0123456789"
    pm.save_backup(h, crs.CRS())
    lock = pm.lock_path(h)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time\n"
            f"f = open({str(lock)!r}, 'a'); fcntl.flock(f, fcntl.LOCK_EX)\n"
            "print('held', flush=True); time.sleep(20)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        start = time.monotonic()
        with pytest.raises(crs.BackupLockFailedError):
            pm.save_backup(h, crs.CRS())
        assert time.monotonic() - start < 10
    finally:
        holder.kill()
        holder.wait(timeout=10)
        if holder.stdout is not None:
            holder.stdout.close()
    pm.save_backup(h, crs.CRS())  # the lock is free again
    pm.close()


def test_seed_refresh_coordinator_paused_during_restore(tmp_path: Path) -> None:
    """SetRefreshCoordinator: "the coordinator will be paused during restore operations"."""

    class Coordinator:
        def __init__(self) -> None:
            self.calls: list[str] = []
            self.paused = False

        def pause(self) -> None:
            self.calls.append("pause")
            self.paused = True

        def resume(self) -> None:
            self.calls.append("resume")
            self.paused = False

        def is_paused(self) -> bool:
            return self.paused

    pm = _pm(tmp_path)
    h = "abcdef0123456789"
    c = crs.CRS()
    c.apply(_delta(1))
    pm.save_backup(h, c)
    co = Coordinator()
    pm.set_refresh_coordinator(co)
    target = crs.CRS()
    pm.load_backup(h, target)
    assert co.calls == ["pause", "resume"]
    assert not co.is_paused()
    assert target.get_proof_status("node1") is not None
    pm.close()


def test_seed_persistence_config_validate(tmp_path: Path) -> None:
    """PersistenceConfig.Validate; NewPersistenceManager(nil) uses the defaults and creates the
    directory structure."""
    for bad in (
        crs.PersistenceConfig(base_dir="", lock_timeout_sec=1),
        crs.PersistenceConfig(base_dir=str(tmp_path), lock_timeout_sec=0),
    ):
        with pytest.raises(crs.CRSError):
            bad.validate()
    pm = _pm(tmp_path / "deep" / "er")
    assert (tmp_path / "deep" / "er" / "home").is_dir()
    pm.close()


# ---------------------------------------------------------------- session restore


def _git(path: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(path), "-c", "user.email=a@b", "-c", "user.name=a", *args],
        check=True,
        capture_output=True,
        timeout=30,
    )


def test_seed_try_restore_reports_modified_files_and_checkpoint(tmp_path: Path) -> None:
    """TryRestore: RestoreResult Restored, CheckpointID (the restored checkpoint's id),
    Generation, CheckpointTime, CheckpointAge, Reason, ModifiedFiles / ModifiedFileCount (spec
    §5.13: from git status, untracked files included), DurationMs."""
    project = tmp_path / "proj"
    project.mkdir()
    _git(project, "init", "-q")
    (project / "a.txt").write_text("a")
    _git(project, "add", ".")
    _git(project, "commit", "-qm", "init")
    sid = crs.SessionIdentifier(project)
    assert sid.git_commit_hash
    assert len(sid.git_commit_hash) == 40
    pm = _pm(tmp_path)
    key = sid.checkpoint_key()
    c = crs.CRS()
    c.apply(_delta(1))
    c.save_checkpoint_to_disk(pm, key, None)
    (project / "a.txt").write_text("changed")
    (project / "new.txt").write_text("untracked")
    target = crs.CRS()
    res = crs.SessionRestorer(pm, None).try_restore(target, None, sid)
    assert res.restored
    assert res.reason == "success"
    assert res.checkpoint_id  # "empty if not restored", so set when restored
    assert res.generation == target.generation()
    assert res.checkpoint_time > 0
    assert res.checkpoint_age >= 0
    assert res.duration_ms >= 0
    assert sorted(res.modified_files) == ["a.txt", "new.txt"]
    assert res.modified_file_count == 2
    assert target.get_proof_status("node1") is not None
    pm.close()


def test_seed_try_restore_incompatible_checkpoints(tmp_path: Path) -> None:
    """Validation "includes project hash matching and age checks": a checkpoint older than
    CheckpointMaxAge or of another project is not restored (Restored false, with a reason;
    "restore failures return in result")."""
    _project, sid, pm = _saved_project(tmp_path)
    time.sleep(0.3)
    strict = crs.SessionRestorer(
        pm,
        crs.SessionRestorerConfig(
            checkpoint_max_age=0.1, max_files_to_refresh=1000, use_git_status=True, max_retries=0
        ),
    )
    target = crs.CRS()
    res = strict.try_restore(target, None, sid)
    assert not res.restored
    assert "old" in res.reason
    assert target.generation() == 0
    other = tmp_path / "other"
    other.mkdir()
    other_sid = crs.SessionIdentifier(other)
    shutil.copytree(
        pm.project_dir(sid.checkpoint_key()), pm.project_dir(other_sid.checkpoint_key())
    )
    res = crs.SessionRestorer(pm, None).try_restore(crs.CRS(), None, other_sid)
    assert not res.restored
    assert "mismatch" in res.reason
    assert (
        crs.SessionRestorer(pm, None)
        .try_restore(crs.CRS(), None, crs.SessionIdentifier(tmp_path))
        .reason
    )
    pm.close()


def test_seed_find_files_modified_since_git(tmp_path: Path) -> None:
    """FindFilesModifiedSince "uses git status for git repositories"; untracked files are
    modified files too (spec §5.13)."""
    _git(tmp_path, "init", "-q")
    (tmp_path / "kept.txt").write_text("k")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "init")
    since = time.time() - 1
    (tmp_path / "kept.txt").write_text("edited")
    (tmp_path / "brand_new.txt").write_text("n")
    assert sorted(crs.find_files_modified_since(tmp_path, since, None)) == [
        "brand_new.txt",
        "kept.txt",
    ]


# ---------------------------------------------------------------- observability, graph


def test_seed_evaluable_properties_metrics_health() -> None:
    """ "CRS implements the eval.Evaluable interface, exposing: Properties:
    snapshot_immutability, delta_idempotence, generation_monotonic; Metrics: crs_snapshot_
    duration, crs_apply_duration, crs_generation; Health checks: ... memory bounds"."""
    c = crs.CRS()
    c.apply(_delta(1))
    assert isinstance(c, crs.Evaluable)
    props = {p.name: p for p in c.properties()}
    assert set(props) == {"snapshot_immutability", "delta_idempotence", "generation_monotonic"}
    assert all(p.passed for p in props.values())
    assert {"crs_snapshot_duration", "crs_apply_duration", "crs_generation"} <= {
        m.name for m in c.metrics()
    }
    health = c.health_check()
    assert health.state == crs.HealthState.HEALTHY
    assert health.checks
    assert c.name()


def test_seed_graph_query_adapter_and_analytics() -> None:
    """GraphQuery: FindCallers / FindCallees / ShortestPath / NodeCount / EdgeCount; Analytics():
    HotSpots (top k, score descending), DeadCode, CyclicDependencies; after Close every method
    returns ErrGraphQueryClosed; Close is idempotent."""
    g = crs.InMemoryGraph(calls=[("a", "b"), ("c", "b"), ("b", "a")])
    assert {s.id for s in g.find_callers("b")} == {"a", "c"}
    assert [s.id for s in g.find_callees("b")] == ["a"]
    assert g.shortest_path("c", "a") == ["c", "b", "a"]
    assert (g.node_count(), g.edge_count()) == (3, 3)
    hot = g.analytics().hot_spots(2)
    assert [h.symbol_id for h in hot] == ["b", "a"]
    assert hot[0].score >= hot[1].score
    assert g.analytics().dead_code() == ["c"]
    assert [sorted(x) for x in g.analytics().cyclic_dependencies()] == [["a", "b"]]
    g.close()
    g.close()
    with pytest.raises(crs.GraphQueryClosedError):
        g.find_callers("b")


# ---------------------------------------------------------------- concurrency promises


def test_seed_concurrent_apply_and_snapshots() -> None:
    """ "CRS uses a single RWMutex ... Multiple readers can hold snapshots concurrently"; Apply
    "Safe for concurrent use": every apply commits exactly once."""
    c = crs.CRS()
    seen: list[int] = []

    def writer(t: int) -> None:
        for i in range(100):
            c.apply(crs.ProofDelta(HARD, {f"n{t}-{i}": crs.ProofNumber()}))

    def reader() -> None:
        for _ in range(100):
            s = c.snapshot()
            assert s.proof_index().size() <= s.generation()
            seen.append(s.generation())

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(4)]
    threads += [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert c.generation() == 400
    assert c.snapshot().proof_index().size() == 400


def test_seed_concurrent_record_step() -> None:
    """RecordStep: "Safe for concurrent use"; steps atomically appended, 1-indexed numbers."""
    c = crs.CRS()

    def work() -> None:
        for _ in range(100):
            c.record_step(
                crs.StepRecord(
                    session_id="s",
                    actor="router",
                    decision="execute_tool",
                    tool="t",
                    outcome="success",
                )
            )

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    history = c.get_step_history("s")
    assert sorted(s.step_number for s in history) == list(range(1, 401))
    assert c.count_tool_executions("s", "t") == 400


def test_seed_session_restore_events(tmp_path: Path) -> None:
    """SessionRestoredEvent "is emitted when a session is successfully restored" and
    SessionRestoreFailedEvent when it fails (here: no checkpoint)."""
    project = tmp_path / "proj"
    project.mkdir()
    sid = crs.SessionIdentifier(project)
    pm = _pm(tmp_path)
    events: list[object] = []
    restorer = crs.SessionRestorer(pm, None, on_event=events.append)
    restorer.try_restore(crs.CRS(), None, sid)
    c = crs.CRS()
    c.apply(_delta(1))
    c.save_checkpoint_to_disk(pm, sid.checkpoint_key(), None)
    restorer.try_restore(crs.CRS(), None, sid)
    failed, restored = events
    assert isinstance(failed, crs.SessionRestoreFailedEvent)
    assert failed.reason
    assert isinstance(restored, crs.SessionRestoredEvent)
    assert restored.project_hash == sid.checkpoint_key()
    assert restored.generation >= 1
    assert Path(restored.project_path) == project.resolve()
    pm.close()


def test_seed_too_many_modified_files_skips_restore(tmp_path: Path) -> None:
    """SessionRestorerConfig.MaxFilesToRefresh: "If more files changed, skip restore and
    trigger full rebuild"; ModifiedFileCount "may exceed len(ModifiedFiles) if truncated"."""
    project, sid, pm = _saved_project(tmp_path)
    time.sleep(0.05)
    for i in range(3):
        (project / f"f{i}.txt").write_text("x")
    cfg = crs.SessionRestorerConfig(
        checkpoint_max_age=3600, max_files_to_refresh=2, use_git_status=True, max_retries=0
    )
    target = crs.CRS()
    res = crs.SessionRestorer(pm, cfg).try_restore(target, None, sid)
    assert not res.restored
    assert "full rebuild" in res.reason
    assert res.modified_file_count == 3
    assert len(res.modified_files) == 2
    assert target.generation() == 0
    assert target.get_proof_status("node1") is None
    roomy = dataclasses.replace(cfg, max_files_to_refresh=3)
    res = crs.SessionRestorer(pm, roomy).try_restore(target, None, sid)
    assert res.restored
    assert res.modified_file_count == 3
    pm.close()


def test_seed_option_a_manual_journal_append_restores_each_delta_once(tmp_path: Path) -> None:
    """README "Complete Session Lifecycle", Option A: Apply, then journal.Append by hand;
    SaveCheckpointToDisk at shutdown, LoadCheckpointFromDisk at the next start. Every delta is
    in the restored state exactly once, over several sessions (history entries are appended,
    so a delta applied twice would show)."""
    pm = _pm(tmp_path)
    h = crs.compute_project_hash("/path/to/my/project")
    path = Path(pm.project_dir(h)) / "badger"
    expected: list[str] = []
    for session in range(4):
        journal = crs.LocalJournal(
            crs.JournalConfig(session_id=f"session-{session}", path=str(path), sync_writes=True)
        )
        state = crs.CRS(None)
        state.load_checkpoint_from_disk(pm, h, journal)
        assert [e.id for e in state.snapshot().history_index().recent(100)] == expected
        for n in range(2):
            entry = f"s{session}-{n}"
            delta = crs.HistoryDelta(HARD, [crs.HistoryEntry(id=entry, node_id="n")])
            state.apply(delta)
            journal.append(delta)
            expected.append(entry)
            if n == 0:  # one delta saved in the checkpoint, one only in the journal tail
                state.save_checkpoint_to_disk(pm, h, journal)
        journal.close()
        state.close()
    pm.close()
