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
