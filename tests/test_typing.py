"""Uses the public API as a user would; `mypy --strict` checks this file (make lint)."""

from __future__ import annotations

import crs


def test_errors_are_typed() -> None:
    err: crs.CRSError = crs.InvalidArgumentError("tool: must be a non-empty string")
    assert isinstance(err, ValueError)
    contract = crs.ContractError("bad", [{"loc": ("workers", 0), "msg": "bad", "type": "x"}])
    details: list[crs.ContractErrorDetails] = contract.errors()
    assert details[0]["loc"] == ("workers", 0)
    version: str = crs.__version__
    assert version


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
