"""Red team, third pass: secrets that reached the disk or an observer past the sanitizer
(docs/redteam.md, "Third pass"). Each test reads every byte under the crs home."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from crs import InvalidArgumentError
from crs.guard import Guard
from crs.integrations.otel import GuardTracer
from guard_calls import run

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
KEY = "sk-proj-" + "abcdEFGHijklMNOPqrstUVWXyz0123456789abcd"


def _on_disk(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file())


def _shown(g: Guard) -> str:
    return json.dumps([g.explain(), [f.to_dict() for f in g.learned()], g.status()])


def test_a_secret_used_as_an_argument_name_is_not_journaled(tmp_path: Path) -> None:
    """A map keyed by credentials (`{"<token>": "..."}`, e.g. a tool taking per-account
    settings): the near-duplicate text quotes each key with its words, and the key itself
    was journaled with every step."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s", home=home, fingerprint=lambda: "fp") as g:
        for args in ({TOKEN: "enable the feature", "note": "x y"}, {KEY: "some words here"}):
            for _ in range(2):
                run(g, "configure", args, error="rejected")
        shown = _shown(g)
    disk = _on_disk(home)
    for secret in (TOKEN, KEY, TOKEN[4:24], KEY[8:30]):
        assert secret.encode() not in disk
        assert secret not in shown


@pytest.mark.parametrize("where", ["tool", "session"])
def test_a_credential_as_tool_name_or_session_is_refused_and_nothing_stored(
    tmp_path: Path, where: str
) -> None:
    """Tool names and session ids are stored and shown as they are (the journal, learned(),
    `crs guard status`, the dashboard); one holding a token reached all of them. They are now
    refused with a typed error naming the argument; names that are not credentials (every
    Claude Code tool, MCP tool names, UUID sessions) are untouched."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s", home=home, fingerprint=lambda: "fp") as g:
        run(g, "Bash", {"command": "ls"}, result="a")
        for secret in (TOKEN, f"deploy-{KEY}", f"token={TOKEN}"):
            name = g.before_call if where == "tool" else g.with_session
            with pytest.raises(InvalidArgumentError, match=rf"^{where}: .*credential"):
                name(secret)
            if where == "tool":
                with pytest.raises(InvalidArgumentError, match=r"^tool: "):
                    g.call_for(secret, {"a": 1})
            else:
                with pytest.raises(InvalidArgumentError, match=r"^session: "):
                    Guard(session=secret)
                with pytest.raises(InvalidArgumentError, match=r"^session: "):
                    Guard.open(project, secret, home=home)
        for fine in ("mcp__github__create_pull_request", "TodoWrite", "get_api_key", "password"):
            assert g.before_call(fine, {}).allowed
        assert g.with_session("3f2a9c1e-1b2c-4d5e-8f90-123456789abc").status()["calls"] == 0
    assert TOKEN.encode() not in _on_disk(home)
    assert KEY.encode() not in _on_disk(home)


def test_observers_and_traces_get_the_error_sanitized() -> None:
    """`GuardEvent.error` was the raw error text: `GuardTracer` exported the credential a
    failed call's error quoted as its span's status description (to the tracing backend),
    while the journal and the log had it redacted."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    events: list[str | None] = []
    g = Guard(observers=[GuardTracer(provider), lambda e: events.append(e.error)])
    run(
        g,
        "http_get",
        {"url": "https://api.example.com/user"},
        error=f"401 for Authorization: token {TOKEN}",
    )
    run(g, "openai", {"prompt": "hi"}, error=PermissionError(f"invalid api_key={KEY}"))
    spans = exporter.get_finished_spans()
    assert len(spans) == 2
    described = [s.status.description or "" for s in spans]
    for text in [*described, *(e or "" for e in events)]:
        assert TOKEN not in text
        assert KEY not in text
    assert "[REDACTED]" in described[0]
    assert described[1].startswith("PermissionError: ")
