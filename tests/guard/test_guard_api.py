"""The guard's surface: decorator, context manager, budgets, messages, policies, CLI."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import crs
from crs.guard import (
    HARD_MAX_REPEATS,
    Action,
    Guard,
    GuardBlockedError,
    GuardPolicy,
    GuardStoppedError,
    ProjectFingerprint,
    ToolPolicy,
    VerdictCode,
)


def ran(g: Guard, tool: str, args: dict[str, Any], result: Any = None, error: Any = None) -> Any:
    v = g.before_call(tool, args)
    if not v.allowed:
        return v
    assert v.call is not None
    return g.after_call(v.call, result=result, error=error)


def test_decorator_guards_a_plain_function() -> None:
    g = Guard()
    runs: list[str] = []

    @g.tool
    def read_file(path: str) -> str:
        runs.append(path)
        return "same text"

    for _ in range(3):
        assert read_file("a.py") == "same text"
    with pytest.raises(GuardBlockedError) as info:
        read_file(path="a.py")
    assert info.value.verdict.code is VerdictCode.REPEATED_CALL
    assert runs == ["a.py"] * 3
    assert read_file("b.py") == "same text"  # a different call runs


def test_decorator_records_exceptions_and_supports_async() -> None:
    g = Guard()

    @g.tool(name="build")
    async def build(target: str) -> str:
        raise RuntimeError("error: undefined symbol foo")

    async def main() -> None:
        for _ in range(2):
            with pytest.raises(RuntimeError):
                await build("all")
        with pytest.raises(GuardBlockedError) as info:
            await build("all")
        assert info.value.verdict.code is VerdictCode.ERROR_LOOP

    asyncio.run(main())


def test_guarded_context_manager() -> None:
    g = Guard()
    for _ in range(3):
        with g.guarded("ls", {"path": "."}) as out:
            out.result = "a.py"
    assert out.verdict.action is Action.NUDGE
    with pytest.raises(GuardBlockedError), g.guarded("ls", {"path": "."}):
        pytest.fail("a refused call must not run")
    with pytest.raises(ValueError, match="boom"), g.guarded("cat", {"path": "x"}):
        raise ValueError("boom")
    assert g.explain()["recent"][-1]["kind"] == "failure"


def test_stop_is_a_blocked_error_too() -> None:
    g = Guard(GuardPolicy(max_calls=2))
    ran(g, "a", {}, "1")
    ran(g, "b", {}, "2")
    v = g.before_call("c", {})
    assert v.action is Action.STOP
    assert v.code is VerdictCode.BUDGET
    with pytest.raises(GuardStoppedError), g.guarded("c", {}):
        pass


def test_budgets_per_tool_and_wall_time() -> None:
    g = Guard(GuardPolicy(tools={"search": ToolPolicy(max_calls=2)}))
    ran(g, "search", {"q": "a"}, "1")
    ran(g, "search", {"q": "b"}, "2")
    assert g.before_call("search", {"q": "c"}).code is VerdictCode.BUDGET
    assert g.before_call("read", {"p": "c"}).action is Action.ALLOW
    t = Guard(GuardPolicy(max_wall_time_s=0))
    ran(t, "a", {}, "1")
    assert t.before_call("b", {}).action is Action.STOP


def test_transient_errors_get_a_retry_budget_and_half_open() -> None:
    g = Guard()
    for _ in range(3):
        after = ran(g, "fetch", {"url": "https://x"}, error=TimeoutError("timed out"))
        assert after.action is Action.ALLOW
    v = g.before_call("fetch", {"url": "https://x"})
    assert v.action is Action.BLOCK
    assert v.code is VerdictCode.RETRY_BUDGET
    ran(g, "read_file", {"path": "notes.md"}, "notes")  # something else succeeds
    assert g.before_call("fetch", {"url": "https://x"}).action is Action.ALLOW  # half-open


def test_error_loop_recovers_after_a_cooldown() -> None:
    g = Guard(GuardPolicy(cooldown_s=0))
    for _ in range(2):
        ran(g, "deploy", {"env": "prod"}, error="permission denied")
    assert g.before_call("deploy", {"env": "prod"}).action is Action.ALLOW


def test_changed_arguments_run_after_an_error_loop() -> None:
    g = Guard()
    for _ in range(2):
        ran(g, "weather", {"units": "kelvinn"}, error="invalid enum value 'kelvinn'")
    assert g.before_call("weather", {"units": "kelvinn"}).action is Action.BLOCK
    assert g.before_call("weather", {"units": "metric"}).action is Action.ALLOW


def test_edit_then_test_is_progress() -> None:
    g = Guard()
    for i in range(6):
        assert ran(g, "edit", {"path": "a.py", "new": f"v{i}"}, "ok").action is Action.ALLOW
        v = g.before_call("bash", {"command": "pytest -q"})
        assert v.action is Action.ALLOW
        assert v.call is not None
        after = g.after_call(v.call, error="1 failed: assert f() == 2")
        assert after.action is Action.ALLOW


def test_reworded_search_with_the_same_result_is_no_progress() -> None:
    g = Guard()
    queries = ["dentist appointment", "appointment with the dentist", "the dentist appointment"]
    actions = [ran(g, "memory_search", {"query": q}, "(empty)").action for q in queries]
    assert actions == [Action.ALLOW, Action.ALLOW, Action.NUDGE]
    # a reworded call alone is never blocked; one with a new result is progress
    v = g.before_call("memory_search", {"query": "dentist booking on friday"})
    assert v.allowed
    assert v.call is not None
    assert g.after_call(v.call, result="Friday 10:00 dentist").action is Action.ALLOW


def test_reworded_calls_with_new_results_are_research() -> None:
    g = Guard()
    for i, q in enumerate(["asyncio timeout", "asyncio timeout cancel", "asyncio timeout shield"]):
        assert ran(g, "web_search", {"query": q}, f"page {i}").action is Action.ALLOW


def test_monologue_is_nudged_then_blocked_then_stopped() -> None:
    g = Guard()
    got = [g.on_message(f"I'm thinking... {i}").action for i in range(6)]
    assert got == ["allow", "allow", "nudge", "block", "stop", "stop"]
    g.new_turn()
    assert g.on_message("Here is the answer.").action is Action.ALLOW
    alt = Guard()
    got = [alt.on_message(t).action for t in ["Thinking...", "Done.", "Thinking...", "Done."]]
    assert got[-1] is Action.NUDGE


def test_a_tool_call_ends_a_monologue() -> None:
    g = Guard()
    for _ in range(2):
        g.on_message("let me check")
    ran(g, "read_file", {"path": "a"}, "x")
    assert g.on_message("let me check").action is Action.ALLOW


def test_loops_are_seen_across_user_turns() -> None:
    g = Guard()
    ran(g, "a", {"k": 1}, "A")
    ran(g, "b", {"k": 2}, "B")
    g.new_turn()
    ran(g, "a", {"k": 1}, "A")
    after = ran(g, "b", {"k": 2}, "B")
    assert after.action is Action.NUDGE
    assert after.code is VerdictCode.CYCLE
    assert after.evidence == (1, 2, 3, 4)


def test_messages_redirect_and_never_echo_arguments() -> None:
    g = Guard()
    secret_path = "/srv/very/specific/path_9f3a.txt"
    verdicts = [ran(g, "read_file", {"path": secret_path}, "same") for _ in range(3)]
    verdicts.append(g.before_call("read_file", {"path": secret_path}))
    for v in verdicts[2:]:
        assert v.message
        assert secret_path not in v.message
        assert "path_9f3a" not in v.message
        assert v.reason


def test_tool_policy_overrides_and_the_hard_cap() -> None:
    lenient = GuardPolicy(tools={"ping": ToolPolicy(repeat_nudge=1000)})
    g = Guard(lenient)
    got = [ran(g, "ping", {}, "pong").action for _ in range(HARD_MAX_REPEATS + 1)]
    assert Action.NUDGE in got  # the hard cap holds
    assert got.index(Action.NUDGE) == HARD_MAX_REPEATS - 1
    strict = Guard(GuardPolicy(tools={"ping": ToolPolicy(repeat_nudge=2)}))
    assert [ran(strict, "ping", {}, "pong").action for _ in range(2)][-1] is Action.NUDGE


def test_commentary_fields_are_configurable() -> None:
    g = Guard(GuardPolicy(commentary_fields=frozenset({"why"})))
    a = g.call_for("t", {"x": 1, "why": "one"})
    b = g.call_for("t", {"x": 1, "why": "two"})
    c = g.call_for("t", {"x": 1, "description": "two"})
    assert a.signature == b.signature != c.signature


def test_explain_status_and_learned_are_plain_data(tmp_path: Path) -> None:
    with Guard.open(tmp_path, "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
        ran(g, "build", {"t": "all"}, error="exit 2")
        info = g.explain()
        assert json.loads(json.dumps(info)) == info
        assert info["status"]["calls"] == 1
        assert info["recent"][0]["kind"] == "failure"
        assert info["learned"][0]["error"] == "exit 2"
        assert g.status()["durable"] is True
        assert g.forget("nope") is False


def test_bad_input_is_refused_with_the_argument_named() -> None:
    g = Guard()
    cases: list[tuple[Any, Any, str]] = [
        (None, {}, "tool"),
        ("", {}, "tool"),
        (" x", {}, "tool"),
        ("t", {"n": float("nan")}, r"args\['n'\]"),
        ("t", {"n": {"deep": [object()]}}, r"args\['n'\]\['deep'\]\[0\]"),
        ("t", {1: "x"}, "args"),
        ("t", "ls -la", "args"),
    ]
    for tool, args, match in cases:
        with pytest.raises(crs.InvalidArgumentError, match=match):
            g.before_call(tool, args)
    call = g.call_for("t", {})
    with pytest.raises(crs.InvalidArgumentError, match="result"):
        g.after_call(call, result="x" * (64 * 1024 * 1024 + 1))
    with pytest.raises(crs.InvalidArgumentError, match="error"):
        g.after_call(call, error=42)  # type: ignore[arg-type]
    with pytest.raises(crs.InvalidArgumentError, match="call"):
        g.after_call("not a call")  # type: ignore[arg-type]
    with pytest.raises(crs.InvalidArgumentError, match="session"):
        g.with_session("other").after_call(call, result="x")
    with pytest.raises(crs.InvalidArgumentError, match="text"):
        g.on_message("\ud800")
    with pytest.raises(crs.InvalidArgumentError, match="policy"):
        Guard(policy="strict")  # type: ignore[arg-type]
    assert g.status()["calls"] == 0


def test_closed_guard_refuses_changes() -> None:
    g = Guard()
    g.close()
    g.close()
    with pytest.raises(crs.CRSClosedError):
        g.before_call("t", {})


def test_git_fingerprint_follows_tracked_and_untracked_files(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    (repo / "a.py").write_text("a = 1\n")
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "init"], check=True, env=env)
    fp = ProjectFingerprint(repo, exclude=(repo / ".crs",))
    first = fp()
    assert fp() == first
    (repo / ".crs").mkdir()
    (repo / ".crs" / "journal").write_text("crs's own data")
    assert fp() == first
    (repo / "a.py").write_text("a = 2\n")
    second = fp()
    assert second != first
    (repo / "new.txt").write_text("x")
    assert fp() != second
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "f.txt").write_text("1")
    walk = ProjectFingerprint(plain)
    before = walk()
    (plain / "f.txt").write_text("22")
    assert walk() != before


def run_cli(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CRS_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "crs", "guard", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def test_cli_status_learned_forget(tmp_path: Path) -> None:
    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "agent-1", home=home) as g:
        ran(g, "bash", {"command": "make build"}, error="make: *** [all] Error 2")
        ran(g, "read_file", {"path": "a.py"}, "x")
    status = run_cli("status", "--json", home=home, cwd=project)
    assert status.returncode == 0, status.stderr
    data = json.loads(status.stdout)
    assert [s["session_id"] for s in data["sessions"]] == ["agent-1"]
    assert data["sessions"][0]["calls"] == 2
    assert data["learned_failures"] == 1
    text = run_cli("status", home=home, cwd=project).stdout
    assert "session agent-1: 2 calls" in text
    learned = json.loads(run_cli("learned", "--json", home=home, cwd=project).stdout)
    assert learned[0]["error"] == "make: *** [all] Error 2"
    assert learned[0]["preview"] == "make build"
    assert "make build" in run_cli("learned", home=home, cwd=project).stdout
    fid = learned[0]["id"]
    assert run_cli("forget", "nope", home=home, cwd=project).returncode == 1
    gone = run_cli("forget", fid, home=home, cwd=project)
    assert gone.returncode == 0, gone.stderr
    assert json.loads(run_cli("learned", "--json", home=home, cwd=project).stdout) == []
    with Guard.open(project, "agent-2", home=home) as g:
        assert g.before_call("bash", {"command": "make build"}).action is Action.ALLOW
    assert run_cli("status", "--session", "nope", home=home, cwd=project).returncode == 1


def test_a_broken_fingerprint_never_breaks_calls_nor_refuses_them() -> None:
    def broken() -> str:
        raise OSError("git is gone")

    g = Guard(fingerprint=broken)
    ran(g, "build", {"t": "all"}, error="exit 2")
    assert g.with_session("later").before_call("build", {"t": "all"}).action is Action.ALLOW
    odd = Guard(fingerprint=lambda: "")
    ran(odd, "build", {"t": "all"}, error="exit 2")
    assert odd.with_session("later").before_call("build", {"t": "all"}).action is Action.ALLOW


def test_a_nudged_reworded_loop_blocks_its_exact_repeats() -> None:
    g = Guard()
    queries = ["dentist appointment", "appointment with the dentist", "the dentist appointment"]
    for q in queries:
        ran(g, "memory_search", {"query": q}, "(empty)")
    v = g.before_call("memory_search", {"query": "appointment with the dentist"})
    assert v.action is Action.BLOCK
