"""The guard server (`crs.integrations.mcp.create_server`) through fastmcp's in-process
`Client(server)`, on a durable guard (real journal under a temporary home)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, Context, FastMCP
from fastmcp.exceptions import ToolError
from mcp_scenarios import (
    BROKEN_BUILD,
    GuardServerAgent,
    Workspace,
    failing_build_refused_then_fixed_runs,
    loop_is_nudged_then_blocked,
    sees_learned_build_failure,
    ten_reads_never_blocked,
)

from crs.guard import Guard
from crs.integrations.mcp import SESSION_META_KEY, STATUS_URI, create_server

Scenario = Callable[[Client[Any], Workspace], Awaitable[None]]


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    return project, home


def run_on_server(project: Path, home: Path, session: str, scenario: Scenario) -> None:
    async def main() -> None:
        with Guard.open(project, session, home=home) as guard:
            async with Client(create_server(guard), timeout=60) as client:
                await scenario(client, Workspace(project))

    asyncio.run(main())


def test_tools_and_status_resource(dirs: tuple[Path, Path]) -> None:
    async def scenario(client: Client[Any], ws: Workspace) -> None:
        names = {t.name for t in await client.list_tools()}
        assert names == {
            "check_call",
            "record_result",
            "explain",
            "learned_failures",
            "forget_failure",
        }
        [status] = await client.read_resource(STATUS_URI)
        data = json.loads(status.text)  # type: ignore[union-attr]
        assert data["server"]["default_session"] == "s1"
        assert data["guard"]["durable"] is True

    run_on_server(*dirs, "s1", scenario)


def test_scripted_agent_loop_build_reads_then_second_server_sees_learned(
    dirs: tuple[Path, Path],
) -> None:
    project, home = dirs
    paths = Workspace(project).make_files(10)

    async def first(client: Client[Any], ws: Workspace) -> None:
        agent = GuardServerAgent(client, ws)
        await ten_reads_never_blocked(agent, paths)
        await loop_is_nudged_then_blocked(agent)
        await failing_build_refused_then_fixed_runs(agent)
        explained = await agent.call("explain", {})
        assert explained["session_id"] == "first"
        assert explained["status"]["calls"] >= 14

    async def second(client: Client[Any], ws: Workspace) -> None:
        await sees_learned_build_failure(GuardServerAgent(client, ws))

    run_on_server(project, home, "first", first)
    run_on_server(project, home, "second", second)  # a new engine on the same project


def test_forget_failure_lets_the_call_run_again(dirs: tuple[Path, Path]) -> None:
    """Agent a's build failure is remembered: agent b (another session) is refused at once,
    until the failure is forgotten."""

    async def scenario(client: Client[Any], ws: Workspace) -> None:
        a = GuardServerAgent(client, ws, session_id="a")
        b = GuardServerAgent(client, ws, session_id="b")
        assert (await a.step("build", BROKEN_BUILD)).ran
        refused = await b.step("build", BROKEN_BUILD)
        assert not refused.ran
        assert refused.before["code"] == "known_failure"
        [failure] = (await b.call("learned_failures", {}))["failures"]
        assert failure["tool"] == "build"
        assert "expected ';'" in failure["error"]
        assert failure["session_id"] == "a"
        assert (await b.call("forget_failure", {"failure_id": failure["id"]}))["forgotten"]
        again = await b.call("forget_failure", {"failure_id": failure["id"]})
        assert not again["forgotten"]
        assert (await b.call("learned_failures", {}))["failures"] == []
        retry = await b.step("build", BROKEN_BUILD)
        assert retry.ran, retry.before

    run_on_server(*dirs, "s1", scenario)


def test_session_stays_stable_although_fastmcp_context_session_changes(
    dirs: tuple[Path, Path],
) -> None:
    """On the default (2026-07-28) connection every request is its own connection: fastmcp's
    `Context.session_id` differs on every call. The guard keeps one session for the client."""
    probe = FastMCP("probe")

    @probe.tool
    def whoami(ctx: Context) -> str:
        return ctx.session_id

    async def scenario(client: Client[Any], ws: Workspace) -> None:
        async with Client(probe) as pc:
            ids = {(await pc.call_tool("whoami", {})).data for _ in range(3)}
        assert len(ids) == 3  # fastmcp: a new id per call
        agent = GuardServerAgent(client, ws)
        steps = [await agent.step("read_file", {"path": p}) for p in ws.make_files(3)]
        assert [s.before["session_id"] for s in steps] == ["s1"] * 3
        assert [s.before["call"]["step"] for s in steps] == [1, 2, 3]

    run_on_server(*dirs, "s1", scenario)


def test_session_from_handshake_connection_argument_and_meta(dirs: tuple[Path, Path]) -> None:
    project, home = dirs

    async def main() -> None:
        with Guard.open(project, "default", home=home) as guard:
            server = create_server(guard)
            args = {"tool": "search", "arguments": {"query": "x"}}
            # Handshake-era connections: the transport's session, stable per connection,
            # distinct between connections.
            seen = []
            for _ in range(2):
                async with Client(server, mode="legacy") as c:
                    a = (await c.call_tool("check_call", args)).structured_content
                    b = (await c.call_tool("check_call", args)).structured_content
                    assert a is not None
                    assert b is not None
                    assert a["session_id"] == b["session_id"] != "default"
                    seen.append(a["session_id"])
            assert seen[0] != seen[1]
            async with Client(server) as c:
                by_arg = await c.call_tool("check_call", {**args, "session_id": "mine"})
                by_meta = await c.call_tool("check_call", args, meta={SESSION_META_KEY: "m2"})
                plain = await c.call_tool("check_call", args)
            assert by_arg.structured_content is not None
            assert by_meta.structured_content is not None
            assert plain.structured_content is not None
            assert by_arg.structured_content["session_id"] == "mine"
            assert by_meta.structured_content["session_id"] == "m2"
            assert plain.structured_content["session_id"] == "default"

    asyncio.run(main())


def test_bad_input_is_a_tool_error_naming_the_argument(dirs: tuple[Path, Path]) -> None:
    async def scenario(client: Client[Any], ws: Workspace) -> None:
        with pytest.raises(ToolError, match="session_id"):
            await client.call_tool("check_call", {"tool": "x", "session_id": ""})
        with pytest.raises(ToolError, match=SESSION_META_KEY):
            await client.call_tool("check_call", {"tool": "x"}, meta={SESSION_META_KEY: 5})
        with pytest.raises(ToolError, match="tool"):
            await client.call_tool("record_result", {"call_id": "never-checked"})
        v = (await client.call_tool("check_call", {"tool": "search"})).structured_content
        assert v is not None
        with pytest.raises(ToolError, match="tool"):
            await client.call_tool(
                "record_result", {"call_id": v["call"]["call_id"], "tool": "other"}
            )

    run_on_server(*dirs, "s1", scenario)


def test_concurrent_agents_on_one_server_keep_their_sessions_apart(
    dirs: tuple[Path, Path],
) -> None:
    """Four agents at once on one durable server (requests interleave; the guard's writes run
    in worker threads): each one's steps are its own, none is refused."""
    project, home = dirs
    paths = Workspace(project).make_files(10)

    async def scenario(client: Client[Any], ws: Workspace) -> None:
        agents = [GuardServerAgent(client, ws, session_id=f"agent-{i}") for i in range(4)]

        async def read_all(agent: GuardServerAgent) -> list[int]:
            steps = [await agent.step("read_file", {"path": p}) for p in paths]
            assert all(s.ran for s in steps)
            return [s.before["call"]["step"] for s in steps]

        numbers = await asyncio.gather(*(read_all(a) for a in agents))
        assert numbers == [list(range(1, 11))] * 4
        [status] = await client.read_resource(STATUS_URI)
        data = json.loads(status.text)  # type: ignore[union-attr]
        assert set(data["server"]["sessions"]) == {"s1", *(f"agent-{i}" for i in range(4))}
        for i in range(4):
            explained = await agents[i].call("explain", {})
            assert explained["status"]["calls"] == 10

    run_on_server(project, home, "s1", scenario)
