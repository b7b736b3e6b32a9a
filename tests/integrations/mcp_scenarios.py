"""Scripted agents for the MCP tests: the same four scenarios, driven through any fastmcp
`Client` (in-process, a stdio subprocess, streamable HTTP).

`GuardServerAgent` consults the guard server (`check_call` / `record_result`) and runs the tools
itself, as a client of `crs mcp` does. Its tools are real: `read_file` reads the file system,
`build` fails on the broken command the way a compiler does, `search` keeps answering the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastmcp import Client

from crs.guard import GuardPolicy

BROKEN_BUILD = {"command": "make all"}
FIXED_BUILD = {"command": "make all CFLAGS=-DFIXED"}
LOOP_CALL = {"query": "why does test_io fail"}


class BuildError(RuntimeError):
    pass


@dataclass
class Workspace:
    """The tools an agent runs, over a real directory; counts what really ran."""

    root: Path
    ran: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def run(self, tool: str, args: dict[str, Any]) -> Any:
        self.ran.append((tool, dict(args)))
        if tool == "read_file":
            return (self.root / args["path"]).read_text()
        if tool == "build":
            if "FIXED" not in args["command"]:
                raise BuildError("src/io.c:12: error: expected ';' before '}' token")
            return "built: 3 targets"
        if tool == "search":
            return "no results"
        raise AssertionError(f"unknown tool {tool}")

    def make_files(self, n: int = 10) -> list[str]:
        (self.root / "src").mkdir(exist_ok=True)
        paths = []
        for i in range(n):
            p = f"src/mod{i}.py"
            (self.root / p).write_text(f"def f{i}():\n    return {i}\n")
            paths.append(p)
        return paths


@dataclass
class Step:
    before: dict[str, Any]
    after: dict[str, Any] | None
    ran: bool

    @property
    def actions(self) -> list[str]:
        out = [self.before["action"]]
        if self.after is not None:
            out.append(self.after["action"])
        return out


class GuardServerAgent:
    """An agent that asks `crs mcp` before each tool call and reports after it."""

    def __init__(self, client: Client[Any], workspace: Workspace, session_id: str | None = None):
        self.client = client
        self.ws = workspace
        self.session_id = session_id

    async def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if self.session_id is not None and name not in ("learned_failures", "forget_failure"):
            args = {**args, "session_id": self.session_id}
        result = await self.client.call_tool(name, args)
        data = result.structured_content
        assert isinstance(data, dict), result
        return data

    async def step(self, tool: str, args: dict[str, Any]) -> Step:
        before = await self.call("check_call", {"tool": tool, "arguments": args})
        if not before["allowed"]:
            return Step(before, None, ran=False)
        try:
            result, error = self.ws.run(tool, args), None
        except BuildError as exc:
            result, error = None, f"{type(exc).__name__}: {exc}"
        after = await self.call(
            "record_result",
            {"call_id": before["call"]["call_id"], "result": result, "error": error},
        )
        return Step(before, after, ran=True)


async def loop_is_nudged_then_blocked(agent: GuardServerAgent, limit: int = 12) -> list[Step]:
    """The same search with the same answer, again and again: a nudge, then a refusal."""
    steps = []
    for _ in range(limit):
        s = await agent.step("search", LOOP_CALL)
        steps.append(s)
        if not s.ran:
            break
    actions = [s.actions for s in steps]
    assert not steps[-1].ran, f"never blocked: {actions}"
    assert steps[-1].before["action"] in ("block", "stop"), actions
    assert steps[-1].before["message"], actions
    nudged = [i for i, s in enumerate(steps) if "nudge" in s.actions]
    assert nudged, f"blocked without a nudge: {actions}"
    assert nudged[0] < len(steps) - 1, f"blocked without a nudge first: {actions}"
    assert LOOP_CALL["query"] not in steps[-1].before["message"]  # redirects, never echoes
    return steps


async def failing_build_refused_then_fixed_runs(agent: GuardServerAgent) -> None:
    """A build that fails the same way: in its own session the guard lets one identical retry
    through (a second try is legitimate), then refuses it (error loop); the fixed build runs."""
    tries = GuardPolicy().max_failures
    steps = [await agent.step("build", BROKEN_BUILD) for _ in range(tries + 1)]
    assert [s.ran for s in steps] == [True] * tries + [False], [s.before for s in steps]
    refused = steps[-1].before
    assert refused["action"] in ("block", "stop"), refused
    assert refused["code"] == "error_loop", refused
    assert refused["message"]
    fixed = await agent.step("build", FIXED_BUILD)
    assert fixed.ran, fixed.before
    assert fixed.before["allowed"], fixed.before
    assert agent.ws.ran.count(("build", BROKEN_BUILD)) == tries


async def ten_reads_never_blocked(agent: GuardServerAgent, paths: list[str]) -> None:
    """Ten different files read one after the other (made beforehand: writing them changes the
    workspace, which a learned failure is tied to)."""
    assert len(set(paths)) == 10
    for path in paths:
        s = await agent.step("read_file", {"path": path})
        assert s.ran, s.before
        assert s.before["action"] == "allow", s.before
        assert s.after is not None
        assert s.after["allowed"], s.after


async def sees_learned_build_failure(agent: GuardServerAgent) -> None:
    """A later process (or session) on the project: the broken build is refused on its first
    try, since it failed in this same workspace before."""
    learned = await agent.call("learned_failures", {})
    tools = [f["tool"] for f in learned["failures"]]
    assert "build" in tools, learned
    refused = await agent.step("build", BROKEN_BUILD)
    assert not refused.ran, refused.before
    assert refused.before["code"] == "known_failure", refused.before
    fixed = await agent.step("build", FIXED_BUILD)
    assert fixed.ran, fixed.before
