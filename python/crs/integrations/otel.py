"""OpenTelemetry spans of guarded tool calls (`pip install 'crs-agent[otel]'`).

One `execute_tool {tool}` span per call, following the GenAI semantic conventions
(`gen_ai.operation.name = "execute_tool"`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
`gen_ai.conversation.id` = the guard's session), from the guard's check to the recorded
result, with the verdicts as `crs.guard.*` attributes. A refused call's span ends at once with
status ERROR and `error.type` = `crs.guard.block` (or `.stop`); a failed call's span has
`error.type` = `tool_error`. A non-ALLOW verdict on an agent message is an event on the current
span.

>>> from opentelemetry.sdk.trace import TracerProvider
>>> from opentelemetry.sdk.trace.export import SimpleSpanProcessor
>>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
>>> from crs import Guard
>>> from crs.integrations.otel import GuardTracer
>>> exporter = InMemorySpanExporter()
>>> provider = TracerProvider()
>>> provider.add_span_processor(SimpleSpanProcessor(exporter))
>>> guard = Guard(observers=[GuardTracer(provider)])
>>> v = guard.before_call("read_file", {"path": "a.py"})
>>> _ = guard.after_call(v.call, result="print(1)")
>>> span, = exporter.get_finished_spans()
>>> span.name, span.attributes["gen_ai.tool.name"], span.attributes["crs.guard.action"]
('execute_tool read_file', 'read_file', 'allow')

The tracer comes from `tracer_provider` (default: the global one, `opentelemetry.trace`).
Spans are not made current (the guard sees the start and the end of a call, not its body); they
are children of whatever span is current at `before_call`.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer, TracerProvider

from crs._errors import InvalidArgumentError
from crs.guard._observe import GuardEvent, GuardEventKind
from crs.guard._verdict import Action, Verdict

__all__ = ["GuardTracer"]

_OPEN_LIMIT = 4096  # spans of calls still running; the oldest are ended past this


def _verdict_attributes(v: Verdict, prefix: str) -> dict[str, Any]:
    attrs: dict[str, Any] = {f"{prefix}.action": str(v.action), f"{prefix}.code": str(v.code)}
    if v.action is not Action.ALLOW:
        attrs[f"{prefix}.reason"] = v.reason
        if v.evidence:
            attrs[f"{prefix}.evidence"] = list(v.evidence)
    return attrs


class GuardTracer:
    """A guard observer that emits one GenAI `execute_tool` span per guarded call.

    Args:
        tracer_provider: Where spans go (default: OpenTelemetry's global provider).
        tracer: A tracer to use instead (overrides `tracer_provider`).
    """

    def __init__(
        self, tracer_provider: TracerProvider | None = None, *, tracer: Tracer | None = None
    ) -> None:
        if tracer is not None and not isinstance(tracer, Tracer):
            raise InvalidArgumentError(f"tracer: must be an opentelemetry Tracer, got {tracer!r}")
        if tracer_provider is not None and not isinstance(tracer_provider, TracerProvider):
            raise InvalidArgumentError(
                f"tracer_provider: must be an opentelemetry TracerProvider, got {tracer_provider!r}"
            )
        self._tracer = tracer or trace.get_tracer("crs.guard", tracer_provider=tracer_provider)
        self._open: OrderedDict[tuple[str, str], Span] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, event: GuardEvent) -> None:
        if event.kind is GuardEventKind.BEFORE_CALL:
            self._before(event)
        elif event.kind is GuardEventKind.AFTER_CALL:
            self._after(event)
        elif event.verdict.action is not Action.ALLOW:
            span = trace.get_current_span()
            if span.is_recording():
                span.add_event("crs.guard.message", _verdict_attributes(event.verdict, "crs.guard"))

    def _start(self, event: GuardEvent) -> Span:
        tool = event.tool or "unknown"
        attrs: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.type": "function",
            "gen_ai.conversation.id": event.session_id,
        }
        if event.call_id is not None:
            attrs["gen_ai.tool.call.id"] = event.call_id
        if event.step is not None:
            attrs["crs.guard.step"] = event.step
        start = time.time_ns() - int(event.seconds * 1e9)
        return self._tracer.start_span(
            f"execute_tool {tool}", kind=SpanKind.INTERNAL, attributes=attrs, start_time=start
        )

    def _before(self, event: GuardEvent) -> None:
        span = self._start(event)
        v = event.verdict
        span.set_attributes(_verdict_attributes(v, "crs.guard"))
        if not v.allowed:
            span.set_attribute("error.type", f"crs.guard.{v.action}")
            span.set_status(Status(StatusCode.ERROR, f"{v.action}: {v.code}"))
            span.end()
            return
        if event.call_id is None:  # pragma: no cover - before_call always has a call
            span.end()
            return
        evicted: list[Span] = []
        with self._lock:
            self._open[(event.session_id, event.call_id)] = span
            while len(self._open) > _OPEN_LIMIT:
                evicted.append(self._open.popitem(last=False)[1])
        for old in evicted:
            old.set_attribute("crs.guard.unfinished", True)
            old.end()

    def _after(self, event: GuardEvent) -> None:
        span: Span | None = None
        if event.call_id is not None:
            with self._lock:
                span = self._open.pop((event.session_id, event.call_id), None)
        if span is None:  # recorded without a before_call here (e.g. a PostToolUse hook)
            span = self._start(event)
        span.set_attributes(_verdict_attributes(event.verdict, "crs.guard.result"))
        if event.error is not None:
            span.set_attribute("error.type", "tool_error")
            span.set_status(Status(StatusCode.ERROR, event.error))
        if event.learned is not None:
            span.set_attribute("crs.guard.learned_failure", event.learned.id)
        span.end()

    def __repr__(self) -> str:
        return f"<GuardTracer open={len(self._open)}>"
