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


def test_hooks_left_installed_after_crs_is_removed_never_block_a_tool(tmp_path: Path) -> None:
    """`pip uninstall crs-agent` (or a moved editable checkout) with crs's hooks still in
    `.claude/settings.json`: the command is `<python> <crs>/integrations/_hook_client.py
    ...`, and Python exits 2 when its script file is missing, which for Claude Code's
    PreToolUse means "block the tool call" (stderr shown to the model): every tool call of
    every session was refused. The installed command now turns any exit of the hook into
    1 at most (`|| exit 1`: Claude Code's non-blocking error, shown to the user, the tool
    runs); crs itself always exits 0. Run through a shell, as Claude Code runs it."""
    import json
    import os
    import shutil
    import subprocess

    root = Path(__file__).resolve().parents[2]
    copy = tmp_path / "site" / "crs"
    shutil.copytree(root / "python" / "crs", copy, ignore=shutil.ignore_patterns("__pycache__"))
    project = tmp_path / "repo"
    project.mkdir()
    env = {**os.environ, "PYTHONPATH": str(copy.parent), "CRS_HOME": str(tmp_path / "home")}
    env["CRS_HOOK_DAEMON"] = "0"
    installed = subprocess.run(
        [sys.executable, "-m", "crs", "hook", "install", "claude-code", "--dir", str(project)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    commands = {
        h["command"]
        for group in settings["hooks"]["PreToolUse"]
        for h in group["hooks"]
        if "crs hook claude-code" in h["command"]
    }
    (command,) = commands
    assert str(copy) in command  # (the copy's client: the one removed below)
    payload = json.dumps(
        {
            "session_id": "s",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "t1",
        }
    )
    ran = subprocess.run(
        ["/bin/sh", "-c", command],
        input=payload,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert (ran.returncode, ran.stdout) == (0, "")  # installed: it answers (allow)
    shutil.rmtree(copy)  # uninstalled, the settings left as they were
    gone = subprocess.run(
        ["/bin/sh", "-c", command],
        input=payload,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert gone.returncode != 2, gone.stderr  # 2 would block every tool call
    assert gone.returncode == 1
    assert gone.stdout == ""
