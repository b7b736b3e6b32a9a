"""The guard's observers: the `crs.guard` log, Prometheus metrics (prometheus-client) and
OpenTelemetry GenAI spans (the SDK's in-memory exporter), on real guarded runs."""

from __future__ import annotations

import doctest
import importlib
import logging
from pathlib import Path

import pytest
from _lc_fakes import Workspace, agent, call
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from prometheus_client import CollectorRegistry

from crs import CRSError, Guard
from crs.guard import GuardEvent, GuardEventKind
from crs.integrations.langchain import GuardMiddleware
from crs.integrations.otel import GuardTracer
from crs.integrations.prometheus import GuardMetrics

LOOP = [call("read_file", path="a.py") for _ in range(6)]
THREAD = {"configurable": {"thread_id": "t-1"}}


def loop_through_langchain(guard: Guard) -> None:
    agent(LOOP, Workspace(), GuardMiddleware(guard, exit_behavior="end")).invoke(
        {"messages": [("user", "go")]}, THREAD
    )


def test_observers_see_every_decision_of_every_session() -> None:
    events: list[GuardEvent] = []
    guard = Guard(observers=[events.append])
    loop_through_langchain(guard)  # thread t-1: a with_session guard on the same engine
    kinds = [(e.kind, str(e.verdict.action)) for e in events]
    assert kinds[:2] == [
        (GuardEventKind.BEFORE_CALL, "allow"),
        (GuardEventKind.AFTER_CALL, "allow"),
    ]
    assert (GuardEventKind.AFTER_CALL, "nudge") in kinds
    assert kinds[-1] == (GuardEventKind.BEFORE_CALL, "stop")
    assert {e.session_id for e in events} == {"t-1"}
    assert all(e.seconds >= 0 and e.tool == "read_file" for e in events)
    assert [e.step for e in events if e.kind is GuardEventKind.AFTER_CALL] == [1, 2, 3]


def test_a_failing_observer_is_logged_and_never_changes_the_verdict(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(event: GuardEvent) -> None:
        raise RuntimeError("observer bug")

    guard = Guard()
    guard.add_observer(broken)
    guard.add_observer(broken)  # once only
    with caplog.at_level(logging.ERROR, logger="crs.guard"):
        v = guard.before_call("read_file", {"path": "a.py"})
    assert v.allowed
    assert [r.getMessage() for r in caplog.records].count(
        f"guard observer {broken!r} failed; skipped"
    ) == 1
    assert guard.remove_observer(broken)
    assert not guard.remove_observer(broken)
    with pytest.raises(CRSError, match="observer"):
        guard.add_observer("not callable")  # type: ignore[arg-type]
    with pytest.raises(CRSError, match="observers"):
        Guard(observers=print)  # type: ignore[arg-type]


def test_a_learned_failure_is_logged_and_observed(caplog: pytest.LogCaptureFixture) -> None:
    events: list[GuardEvent] = []
    guard = Guard(observers=[events.append])
    with caplog.at_level(logging.INFO, logger="crs.guard"):
        v = guard.before_call("build", {"target": "all"})
        guard.after_call(v.call, error=RuntimeError("error: main.c:3: expected ';'"))
    learned = events[-1].learned
    assert learned is not None
    assert learned.tool == "build"
    assert events[-1].error == "RuntimeError: error: main.c:3: expected ';'"
    (record,) = [r for r in caplog.records if getattr(r, "code", "") == "learned_failure"]
    assert (record.tool, record.session, record.step) == ("build", "default", 1)


def test_nothing_reaches_stderr_without_a_handler(capfd: pytest.CaptureFixture[str]) -> None:
    guard = Guard()
    for _ in range(6):
        v = guard.before_call("read_file", {"path": "a.py"})
        if v.allowed:
            guard.after_call(v.call, result="same")
    assert capfd.readouterr().err == ""


def sample(registry: CollectorRegistry, name: str, **labels: str) -> float | None:
    return registry.get_sample_value(name, labels)


def test_prometheus_counts_verdicts_latency_and_learned_failures() -> None:
    registry = CollectorRegistry()
    metrics = GuardMetrics(registry)
    guard = metrics.track(Guard())
    loop_through_langchain(guard)
    v = guard.before_call("build", {"target": "all"})
    guard.after_call(v.call, error="error: main.c:3: expected ';'")

    def verdicts(kind: str, action: str, code: str) -> float | None:
        return sample(registry, "crs_guard_verdicts_total", kind=kind, action=action, code=code)

    assert verdicts("before_call", "allow", "ok") == 4  # 3 reads and the build
    assert verdicts("after_call", "nudge", "repeated_call") == 1
    assert verdicts("before_call", "block", "repeated_call") == 2
    assert verdicts("before_call", "stop", "repeated_call") == 1
    assert sample(registry, "crs_guard_check_seconds_count", kind="before_call") == 7
    assert sample(registry, "crs_guard_check_seconds_count", kind="after_call") == 4
    assert sample(registry, "crs_guard_failures_learned_total") == 1
    assert sample(registry, "crs_guard_learned_failures", session="default") == 1
    assert sample(registry, "crs_guard_journal_bytes", session="default") is None  # in memory
    assert "tracked=1" in repr(metrics)


def test_prometheus_reports_the_journal_bytes_of_a_durable_guard(tmp_path: Path) -> None:
    registry = CollectorRegistry()
    metrics = GuardMetrics(registry, namespace="agent")
    with Guard.open(tmp_path, "s-1", home=tmp_path / "home") as guard:
        metrics.track(guard)
        before = sample(registry, "agent_guard_journal_bytes", session="s-1")
        v = guard.before_call("read_file", {"path": "a.py"})
        guard.after_call(v.call, result="text")
        after = sample(registry, "agent_guard_journal_bytes", session="s-1")
    assert before is not None
    assert after is not None
    assert after > before
    with pytest.raises(CRSError, match="registry"):
        GuardMetrics(registry={})  # type: ignore[arg-type]
    with pytest.raises(CRSError, match="namespace"):
        GuardMetrics(CollectorRegistry(), namespace="a-b")
    with pytest.raises(CRSError, match="guard"):
        metrics.track("guard")  # type: ignore[arg-type]


def test_otel_spans_follow_the_genai_conventions() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    guard = Guard(observers=[GuardTracer(provider)])
    loop_through_langchain(guard)
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["execute_tool read_file"] * 6
    first, nudged, blocked, stopped = spans[0], spans[2], spans[3], spans[5]
    attrs = dict(first.attributes or {})
    assert attrs["gen_ai.operation.name"] == "execute_tool"
    assert attrs["gen_ai.tool.name"] == "read_file"
    assert attrs["gen_ai.conversation.id"] == "t-1"
    assert str(attrs["gen_ai.tool.call.id"]).startswith("c")  # LangChain's tool call id
    assert (attrs["crs.guard.action"], attrs["crs.guard.result.action"]) == ("allow", "allow")
    assert first.status.status_code is StatusCode.UNSET
    assert first.end_time is not None
    assert first.start_time is not None
    assert first.end_time >= first.start_time
    assert (nudged.attributes or {})["crs.guard.result.action"] == "nudge"
    assert (blocked.attributes or {})["crs.guard.action"] == "block"
    assert (blocked.attributes or {})["error.type"] == "crs.guard.block"
    assert blocked.status.status_code is StatusCode.ERROR
    assert (stopped.attributes or {})["crs.guard.code"] == "repeated_call"
    assert list((stopped.attributes or {})["crs.guard.evidence"]) == [1, 2, 3]


def test_otel_marks_a_failed_call() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    guard = Guard(observers=[GuardTracer(provider)])
    v = guard.before_call("build", {"target": "all"})
    guard.after_call(v.call, error="error: main.c:3")
    (span,) = exporter.get_finished_spans()
    assert span.status.status_code is StatusCode.ERROR
    assert (span.attributes or {})["error.type"] == "tool_error"
    assert str((span.attributes or {})["crs.guard.learned_failure"]).startswith(
        v.call.signature[:12]
    )
    with pytest.raises(CRSError, match="tracer_provider"):
        GuardTracer("provider")  # type: ignore[arg-type]


@pytest.mark.parametrize("module", ["crs.integrations.prometheus", "crs.integrations.otel"])
def test_the_module_examples_run(module: str) -> None:
    mod = importlib.import_module(module)
    assert doctest.testmod(mod).failed == 0
