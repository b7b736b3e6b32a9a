"""Uses the public API as a user would; `mypy --strict` checks this file (make lint)."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import crs


def test_errors_are_typed() -> None:
    err: crs.CRSError = crs.InvalidArgumentError("tool: must be a non-empty string")
    assert isinstance(err, ValueError)
    contract = crs.ContractError("bad", [{"loc": ("workers", 0), "msg": "bad", "type": "x"}])
    details: list[crs.ContractErrorDetails] = contract.errors()
    assert details[0]["loc"] == ("workers", 0)
    version: str = crs.__version__
    assert version


# ---- persistence: a user's state implementing the backup protocols
class _UserState:
    def __init__(self) -> None:
        self.data = b"v1:state"
        self.position = 0

    def export_image(self) -> crs.BackupImage:
        return crs.BackupImage(data=self.data, journal_position=self.position, generation=1)

    def load_image(self, image: crs.BackupImage) -> None:
        self.data, self.position = image.data, image.journal_position


def test_persistence_api_types(tmp_path: object) -> None:
    import dataclasses

    cfg = dataclasses.replace(crs.DefaultPersistenceConfig(), base_dir=str(tmp_path))
    with crs.PersistenceManager(cfg) as pm:
        key: str = crs.compute_project_hash(str(tmp_path))
        meta: crs.BackupMetadata = pm.save_backup(key, _UserState(), crs.BackupOptions())
        ratio: float = meta.compression_ratio()
        loaded: crs.LoadedBackup = pm.load_backup(key, _UserState())
        found: crs.BackupMetadata | None = pm.get_backup_metadata(key)
        assert loaded.image.data == b"v1:state"
        assert found == meta
        assert ratio > 0


def test_journal_api_is_typed(tmp_path: Path) -> None:
    cfg = dataclasses.replace(crs.DefaultJournalConfig(), path=str(tmp_path), session_id="t")
    cfg.validate()
    with crs.LocalJournal(cfg) as journal:
        seq: int = journal.append({"kind": "step"})
        last: int = journal.append_batch([{"a": 1}, {"b": 2}])
        assert (seq, last) == (1, 3)
        entries: list[object] = journal.replay(after_seq=1)
        items: list[crs.DeltaOrError] = list(journal.replay_stream())
        stats: crs.JournalStats = journal.stats()
        assert len(entries) == 2
        assert len(items) == stats.total_deltas
        buf = io.BytesIO()
        journal.backup(buf)
    memory: crs.Journal = crs.MemoryJournal(codec=crs.JsonCodec())
    buf.seek(0)
    memory.restore(buf)
    memory.checkpoint()
    assert memory.stats().checkpoint_seq == 3
    policy: crs.SyncPolicy = cfg.effective_sync_policy
    assert policy is crs.SyncPolicy.ALWAYS


def test_guards_are_typed() -> None:
    state = crs.CRS()
    step: crs.StepRecord = state.record_step(
        crs.StepRecord(
            session_id="s",
            actor=crs.Actor.MAIN_AGENT,
            decision=crs.Decision.EXECUTE_TOOL,
            tool="grep",
            outcome=crs.Outcome.SUCCESS,
        )
    )
    found: crs.CycleDetectionResult = crs.check_cycle_on_step(state, step, crs.CycleDetector())
    breaker: crs.CircuitBreakerResult = state.check_circuit_breaker("s", "grep")
    allowed, reason = state.check_decision_allowed("s", "grep")
    learned: crs.Clause | None = state.learn_from_failure(
        crs.FailureEvent(
            session_id="s",
            failure_type=crs.FailureType.TOOL_ERROR,
            failed_step=step,
            source=crs.SignalSource.HARD,
        )
    )
    analysis: crs.CycleAnalysis = crs.analyze_session_cycles(state, "s")
    assert not found.detected
    assert not breaker.should_fire
    assert allowed
    assert reason == ""
    assert learned is None
    assert analysis.total_sccs == 1


def test_state_api_is_typed() -> None:
    c = crs.CRS(crs.DefaultConfig())
    base: crs.Snapshot = c.snapshot()
    d: crs.Delta = crs.ProofDelta(
        crs.SignalSource.HARD, {"n": crs.ProofNumber(proof=1, status=crs.ProofStatus.EXPANDED)}
    )
    m: crs.ApplyMetrics = c.apply(d, base=base)
    mask: crs.IndexMask = m.indexes_updated
    names: list[str] = mask.names()
    pn: crs.ProofNumber | None = c.snapshot().proof_index().get("n")
    near: list[crs.SimilarityMatch] = c.snapshot().similarity_index().nearest_neighbors("n", 3)
    stats: crs.NodeStats | None = c.snapshot().query().node_stats("n")
    rec: crs.DeltaRecord | None = c.delta_history().get_by_generation(1)
    cp: crs.Checkpoint = c.checkpoint()
    c.restore(cp)
    export: crs.ExportResult = crs.Serializer().export_full(c.snapshot(), "s")
    assert export.export is not None
    state: crs.ImportedState = crs.Serializer().import_(export.export)
    assert state.load_into(c) == c.generation()
    back: crs.Delta = crs.delta_from_dict(d.to_dict())
    assert names == ["proof"]
    assert pn is not None
    assert stats is not None
    assert rec is not None
    assert not near
    assert back == d


def test_wiring_api_is_typed(tmp_path: Path) -> None:
    with crs.open_project(tmp_path, tmp_path / "home") as c:
        m: crs.ApplyMetrics = c.apply(crs.ProofDelta(crs.SignalSource.HARD, {}))
        meta: crs.BackupMetadata = c.save_project_backup()
        info: crs.ProjectInfo = c.project_info()
        image: crs.BackupImage = c.export_image()
        pos: int = c.journal_position()
        assert m.new_generation == meta.generation == image.generation == 1
        assert info.journal_path.is_dir()
        assert pos == 1
    with crs.CRS.open(tmp_path / "j") as c2:
        n: int = c2.replay_journal()
        assert n == 0
    codec: crs.JournalCodec = crs.DeltaCodec()
    assert codec.decode(codec.encode(crs.ProofDelta(crs.SignalSource.HARD, {}))).type()


def test_trace_api_is_typed() -> None:
    sanitizer: crs.Sanitizer = crs.SecretSanitizer()
    clean: str = sanitizer.sanitize("password=hunter2")
    assert clean == f"password={crs.REDACTED}"
    cleaned: dict[str, object] = crs.SecretSanitizer().sanitize_map({"api_key": "k"})
    assert cleaned == {"api_key": crs.REDACTED}
    recorder = crs.TraceRecorder(crs.SecureTraceConfig())
    step: crs.TraceStep = recorder.record_step(
        crs.TraceStepBuilder().with_action("run").with_tool("bash").with_duration(0.5).build()
    )
    record: crs.StepRecord = crs.trace_step_to_step_record(step, "session-1")
    trace: crs.ReasoningTrace = recorder.export("session-1")
    last: crs.TraceStep | None = recorder.last_step()
    assert record.step_number == 1
    assert trace.total_steps == 1
    assert last == step


def test_session_bridge_is_typed() -> None:
    from crs.sessions import BridgedChange, SessionBridge, StepMapping, WorkerStateChange

    c = crs.CRS()
    bridge = SessionBridge(c, model="m")
    change = WorkerStateChange("s", "w", None, "failed", "degraded", "", 1)
    fed: list[BridgedChange] = bridge.feed([change])
    step: crs.StepRecord = fed[0].step
    entry: crs.HistoryEntry = fed[0].entry
    mapping: StepMapping = crs.sessions.map_worker_state(fed[0].change.state)
    last: tuple[int, str] | None = bridge.last_fed("s", "w")
    assert step.outcome == mapping.outcome == crs.Outcome.FAILURE
    assert entry.node_id == crs.sessions.worker_node_id("s", "w")
    assert last == (1, "failed")


def test_evaluable_api_is_typed() -> None:
    with crs.CRS() as c:
        ev: crs.Evaluable = c  # CRS satisfies the protocol statically
        results: list[crs.PropertyResult] = ev.properties()
        metrics: list[crs.Metric] = ev.metrics()
        status: crs.HealthStatus = ev.health_check()
        assert all(r.passed for r in results)
        assert metrics[0].kind is crs.MetricKind.TIMER
        assert status.state is crs.HealthState.HEALTHY
    closed: type[crs.CRSError] = crs.CRSClosedError
    assert c.closed
    assert issubclass(closed, crs.CRSError)
