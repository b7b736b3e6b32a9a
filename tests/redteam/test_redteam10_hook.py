"""Red team, tenth pass: the Claude Code hook with payloads Claude Code does not send but a
hostile or another harness might (a `tool_input` that is not an object).

Payloads are piped into the real `python -m crs hook claude-code`, in the hook process and
through a resident hook server; the project's state is read back by `Guard.open`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integrations"))
from _claude_code_hooks import Agent, env_for, start_server, stop_server

from crs.guard import Guard


@pytest.fixture(params=["0", "1"], ids=["in-process", "server"])
def mode(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """CRS_HOOK_DAEMON for the hooks: 0, or a server started first (killed at teardown)."""
    home = tmp_path / "home"
    server = env_for(home, CRS_HOOK_DAEMON_IDLE_S="60")
    proc = start_server(home, server) if request.param == "1" else None
    yield {"CRS_HOOK_DAEMON": request.param}
    stop_server(home, proc)


def _agent(tmp_path: Path, mode: dict[str, str], session: str) -> Agent:
    project = tmp_path / "repo"
    project.mkdir(exist_ok=True)
    return Agent(tmp_path / "home", project, session, extra=mode)


def _call(agent: Agent, tool: str, tool_input: Any, i: int, error: str | None) -> str:
    """One call through PreToolUse and PostToolUse(Failure); the PreToolUse decision."""
    ident = {"tool_name": tool, "tool_input": tool_input, "tool_use_id": f"{tool}-{i}"}
    pre = agent.event("PreToolUse", **ident)
    assert "failed open" not in pre.stderr, pre.stderr
    decision = str(pre.specific.get("permissionDecision", "allow"))
    if decision == "deny":
        return decision
    if error is None:
        post = agent.event("PostToolUse", **ident, tool_response="ok")
    else:
        post = agent.event("PostToolUseFailure", **ident, error=error)
    assert "failed open" not in post.stderr, post.stderr
    return decision


def test_a_tool_input_that_is_not_an_object_keeps_distinct_calls_distinct(
    tmp_path: Path, mode: dict[str, str]
) -> None:
    """A `tool_input` that is a string or a list was decided as a call with no arguments:
    every such call of a tool had one signature, so two different commands failing made
    the third, another command, refused as an error loop (real work blocked by the
    payload's shape), and different edits answered alike were nudged as one repeated call.
    Such an input is now the call's one argument: distinct inputs are distinct calls, and
    the same input is still a repeat."""
    agent = _agent(tmp_path, mode, "sess-shape")
    decisions = [
        _call(agent, "Bash", cmd, i, f"{cmd}: exit {i + 1}")
        for i, cmd in enumerate(["make a", "make b", "make c"])
    ]
    assert decisions == ["allow", "allow", "allow"]  # three different commands
    edits = [_call(agent, "Edit", [f"file{i}.py"], 10 + i, None) for i in range(4)]
    assert edits == ["allow"] * 4
    last = agent.log[-1][1]
    assert not last.specific.get("additionalContext"), last.doc  # no nudge: four edits
    # the same string input failing again and again is still an error loop
    same = [_call(agent, "Bash", "make d", 20 + i, "make d: exit 2") for i in range(3)]
    assert same == ["allow", "allow", "deny"]
    with Guard.open(agent.project, "reader", home=agent.home) as g:
        status = g.with_session("sess-shape").status()
    assert status["tool_calls"] == {"Bash": 5, "Edit": 4}, status
