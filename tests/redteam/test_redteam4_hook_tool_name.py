"""Red team 4: the Claude Code hook failed open on a tool name the guard refuses (over 256
characters, surrounding whitespace, a lone surrogate, a credential in it: an MCP server names
its tools): the call ran unguarded and was never counted, so a loop of it went unseen. It is
decided under a stand-in name (a digest of the name, the same for every event of the call),
as refused arguments are decided by stand-in arguments."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integrations"))
from _claude_code_hooks import Agent, answered

from crs.guard import Guard

NAMES = {
    "long": "mcp__server__" + "x" * 300,
    "spaces": " Bash ",
    "secret": "mcp__ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" + "__read",
}


@pytest.fixture(params=["in-process", "server"])
def mode(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    with answered(request.param, tmp_path / "home") as env:
        yield env


@pytest.mark.parametrize("kind", sorted(NAMES))
def test_a_refused_tool_name_is_still_guarded(
    tmp_path: Path, mode: dict[str, str], kind: str
) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    home = tmp_path / "home"
    agent = Agent(home, project, f"sess-{kind}", extra=mode)
    denied = None
    for _ in range(6):
        pre, post = agent.call(NAMES[kind], {"path": "a.txt"}, response="same text")
        assert "failed open" not in pre.stderr, pre.stderr
        if post is None:
            denied = pre
            break
        assert "failed open" not in post.stderr, post.stderr
    assert denied is not None  # the loop was seen and refused
    assert denied.specific["permissionDecision"] == "deny"
    with Guard.open(project, "reader", home=home) as g:
        status = g.with_session(f"sess-{kind}").status()
    assert status["calls"] >= 3
    (name,) = status["tool_calls"]
    assert name.startswith("unnamed-tool-")
    assert "ghp_" not in name
