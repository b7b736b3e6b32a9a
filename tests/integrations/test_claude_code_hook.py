"""Claude Code: documented hook payloads piped into the real `python -m crs hook claude-code`.

Each call of the scripted agent is what Claude Code does: a PreToolUse hook process, then (if
the call was not denied) a PostToolUse or PostToolUseFailure hook process, each a fresh
process reading one JSON payload on stdin (code.claude.com/docs/en/hooks). Every scenario runs
twice with the same assertions: answered in the hook process (`CRS_HOOK_DAEMON=0`) and
answered by the resident hook server (started before the scenario; the trace shows that every
hook went through it), so both paths give the same results.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from _claude_code_hooks import (
    Agent,
    env_for,
    reads_finished,
    run_at_once,
    run_hook,
    start_server,
    stop_server,
)

from crs.guard import GuardPolicy


@pytest.fixture(params=["in-process", "server"])
def mode(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The hook's environment for `tmp_path / "home"`: in the hook process, or through a
    hook server started first (killed at teardown; every traced hook went through it)."""
    home = tmp_path / "home"
    trace = tmp_path / "mode-trace.jsonl"
    if request.param == "in-process":
        yield {"CRS_HOOK_DAEMON": "0"}
        return
    proc = start_server(home, env_for(home, CRS_HOOK_DAEMON_IDLE_S="60"))
    try:
        yield {"CRS_HOOK_TRACE": str(trace)}
        rows = [json.loads(line) for line in trace.read_text().splitlines()]
        assert rows
        assert {r["via"] for r in rows} == {"server"}, rows
    finally:
        stop_server(home, proc)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "repo"
    p.mkdir()
    (p / "main.c").write_text("int main(void) { return foo(); }\n")
    return p


def test_a_loop_is_nudged_then_blocked(tmp_path: Path, project: Path, mode: dict[str, str]) -> None:
    agent = Agent(tmp_path / "home", project, "sess-loop", extra=mode)
    grep = {"pattern": "def foo", "path": "src", "output_mode": "content"}
    replies = [agent.call("Grep", grep, response={"mode": "content", "content": "a.py:1"})]
    replies += [agent.call("Grep", grep, response={"mode": "content", "content": "a.py:1"})]
    pre, post = agent.call("Grep", grep, response={"mode": "content", "content": "a.py:1"})
    assert all(p.doc is None and q is not None and q.doc is None for p, q in replies)
    assert pre.doc is None  # the third identical call still runs ...
    assert post is not None
    nudge = post.specific
    assert nudge["hookEventName"] == "PostToolUse"
    assert "same result" in nudge["additionalContext"]  # ... and the model is told
    pre, post = agent.call("Grep", grep, response={"mode": "content", "content": "a.py:1"})
    assert post is None  # the fourth is refused, with a reason the model reads
    assert pre.specific["hookEventName"] == "PreToolUse"
    assert pre.specific["permissionDecision"] == "deny"
    assert "same result" in pre.specific["permissionDecisionReason"]
    assert "def foo" not in pre.specific["permissionDecisionReason"]  # no echo of the args
    other, _ = agent.call("Read", {"file_path": str(project / "main.c")}, response="int main")
    assert other.doc is None  # another call runs


def test_a_failing_build_is_refused_on_the_identical_retry_while_the_fixed_call_runs(
    tmp_path: Path, project: Path, mode: dict[str, str]
) -> None:
    agent = Agent(tmp_path / "home", project, "sess-build", extra=mode)
    build = {"command": "make build", "description": "Build the project"}
    error = "Exit code 2\nmain.c:1: error: implicit declaration of function 'foo'"
    for _ in range(GuardPolicy().max_failures):  # the failures the policy lets happen
        pre, post = agent.call("Bash", build, error=error)
        assert pre.doc is None
        assert post is not None
    pre, post = agent.call("Bash", build, error=error)  # the identical retry
    assert post is None
    assert pre.specific["permissionDecision"] == "deny"
    assert "failed" in pre.specific["permissionDecisionReason"]
    assert "make build" not in pre.specific["permissionDecisionReason"]
    fixed = {"command": "make build CFLAGS=-DFOO", "description": "Build with foo defined"}
    pre, post = agent.call("Bash", fixed, response={"stdout": "ok", "stderr": ""})
    assert pre.doc is None
    assert post is not None
    assert post.doc is None


def test_reading_ten_different_files_is_never_blocked(
    tmp_path: Path, project: Path, mode: dict[str, str]
) -> None:
    agent = Agent(tmp_path / "home", project, "sess-read", extra=mode)
    for i in range(10):
        path = project / f"mod{i}.py"
        path.write_text(f"x = {i}\n")
        pre, post = agent.call("Read", {"file_path": str(path)}, response=f"1\tx = {i}")
        assert pre.doc is None
        assert post is not None
        assert post.doc is None


def test_a_second_session_sees_what_the_first_learned(
    tmp_path: Path, project: Path, mode: dict[str, str]
) -> None:
    home = tmp_path / "home"
    first = Agent(home, project, "sess-one", extra=mode)
    first.event("SessionStart", source="startup")
    first.event("UserPromptSubmit", prompt="build it")
    test = {"command": "pytest -x tests/test_api.py"}
    for _ in range(GuardPolicy().max_failures):
        first.call(
            "Bash", test, error="Exit code 1\nE   ModuleNotFoundError: No module named 'foo'"
        )
    stop = first.event("Stop", stop_hook_active=False)
    assert stop.doc is None

    second = Agent(
        home, project, "sess-two", extra=mode
    )  # a later Claude Code session, other processes
    start = second.event("SessionStart", source="startup")
    context = start.specific["additionalContext"]
    assert start.specific["hookEventName"] == "SessionStart"
    assert "ModuleNotFoundError" in context
    assert "Bash" in context
    pre, post = second.call("Bash", test, error="unused")
    assert post is None
    assert pre.specific["permissionDecision"] == "deny"
    assert "No module named" in pre.specific["permissionDecisionReason"]


def test_on_block_ask_lets_the_user_decide(
    tmp_path: Path, project: Path, mode: dict[str, str]
) -> None:
    agent = Agent(tmp_path / "home", project, "sess-ask", args=("--on-block", "ask"), extra=mode)
    lint = {"command": "ruff check ."}
    for _ in range(GuardPolicy().max_failures):
        agent.call("Bash", lint, error="Exit code 1\nE501 line too long")
    pre, post = agent.call("Bash", lint, error="Exit code 1\nE501 line too long")
    assert post is None
    assert pre.specific["permissionDecision"] == "ask"
    assert pre.specific["permissionDecisionReason"]


def test_internal_errors_fail_open_with_a_log_line(
    tmp_path: Path, project: Path, mode: dict[str, str]
) -> None:
    home = tmp_path / "home"
    env = env_for(home, **mode)
    bad = run_hook("{not json", env)
    assert (bad.code, bad.doc) == (0, None)
    assert "failed open" in bad.stderr
    assert "failed open" in (home / "logs" / "claude-code.log").read_text()
    no_session = run_hook({"hook_event_name": "PreToolUse", "tool_name": "Bash"}, env)
    assert (no_session.code, no_session.doc) == (0, None)
    assert "session_id" in no_session.stderr
    # A data directory that cannot be used (a file where the directory should be).
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_1",
    }
    broken = run_hook(payload, env_for(blocker, CRS_HOOK_DAEMON=mode.get("CRS_HOOK_DAEMON", "")))
    assert (broken.code, broken.doc) == (0, None)
    assert "failed open" in broken.stderr
    unknown = run_hook({**payload, "hook_event_name": "Notification", "message": "hi"}, env)
    assert (unknown.code, unknown.doc, unknown.stderr) == (0, None, "")


def test_eight_hooks_started_at_once_on_one_project(
    tmp_path: Path, project: Path, mode: dict[str, str]
) -> None:
    home = tmp_path / "home"
    trace = tmp_path / "trace.jsonl"
    agent = Agent(home, project, "sess-par", extra=mode)
    agent.event("SessionStart", source="startup")  # the project exists
    env = env_for(home, **{**mode, "CRS_HOOK_TRACE": str(trace)})
    run_at_once(tmp_path, reads_finished(agent, 8, "par"), env)
    rows = [json.loads(line) for line in trace.read_text().splitlines()]
    assert len(rows) == 8
    assert all(r["error"] == "" for r in rows)
    assert {r["via"] for r in rows} == {"in-process" if mode.get("CRS_HOOK_DAEMON") else "server"}
    assert max(r["lock_wait_max_ms"] for r in rows) < 100, rows
    from crs.guard import Guard

    with Guard.open(project, "sess-par", home) as g:
        assert g.status()["calls"] == 8  # every record is there
        assert g.status()["last_step"] == 8
