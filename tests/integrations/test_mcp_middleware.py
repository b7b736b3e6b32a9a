"""`GuardMiddleware` on a user's own fastmcp server, through fastmcp's in-process
`Client(server)`: the tools are real (files read from disk, a build that fails the way a
compiler does) and count their runs, so "refused" means the tool body never ran."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import mcp_types as mt
import pytest
from fastmcp import Client, FastMCP
from fastmcp.client.client import CallToolResult
from mcp_scenarios import BROKEN_BUILD, FIXED_BUILD, LOOP_CALL, BuildError, Workspace

from crs import CRSClosedError, InvalidArgumentError
from crs.guard import Guard, GuardPolicy
from crs.integrations.mcp import SESSION_META_KEY, VERDICT_META_KEY, GuardMiddleware


def user_server(guard: Guard, ws: Workspace, **kw: Any) -> FastMCP:
    server = FastMCP("user-tools", middleware=[GuardMiddleware(guard, **kw)])

    @server.tool
    def read_file(path: str) -> str:
        """Read a file of the project."""
        return str(ws.run("read_file", {"path": path}))

    @server.tool
    def build(command: str) -> str:
        """Run the build."""
        return str(ws.run("build", {"command": command}))

    @server.tool
    def search(query: str) -> str:
        """Search the code."""
        return str(ws.run("search", {"query": query}))

    return server


def texts(result: CallToolResult) -> list[str]:
    return [b.text for b in result.content if isinstance(b, mt.TextContent)]


def verdict(result: CallToolResult) -> dict[str, Any] | None:
    meta = result.meta or {}
    v = meta.get(VERDICT_META_KEY)
    assert v is None or isinstance(v, dict)
    return v


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    return project, home


async def call(client: Client[Any], tool: str, args: dict[str, Any]) -> CallToolResult:
    return await client.call_tool(tool, args, raise_on_error=False)


def test_loop_is_nudged_then_blocked_and_the_tool_stops_running(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    ws = Workspace(project)

    async def main() -> None:
        with Guard.open(project, "s", home=home) as guard:
            async with Client(user_server(guard, ws)) as c:
                results = []
                for _ in range(12):
                    r = await call(c, "search", LOOP_CALL)
                    results.append(r)
                    if r.is_error:
                        break
        blocked = results[-1]
        assert blocked.is_error, [texts(r) for r in results]
        v = verdict(blocked)
        assert v is not None
        assert v["action"] in ("block", "stop")
        assert texts(blocked) == [v["message"]]
        nudged = [i for i, r in enumerate(results) if (verdict(r) or {}).get("action") == "nudge"]
        assert nudged
        assert nudged[0] < len(results) - 1
        first_nudge = results[nudged[0]]
        assert texts(first_nudge)[0] == "no results"  # the tool's own result comes first
        assert len(texts(first_nudge)) == 2  # then the guard's advice
        assert ws.ran.count(("search", LOOP_CALL)) == len(results) - 1

    asyncio.run(main())


def test_failing_build_refused_on_identical_retry_fixed_runs_second_session_sees_it(
    dirs: tuple[Path, Path],
) -> None:
    project, home = dirs
    ws = Workspace(project)
    tries = GuardPolicy().max_failures

    async def main() -> None:
        with Guard.open(project, "first", home=home) as guard:
            async with Client(user_server(guard, ws)) as c:
                for _ in range(tries):  # in its own session a second try is legitimate
                    failed = await call(c, "build", BROKEN_BUILD)
                    assert failed.is_error
                    assert "expected ';'" in texts(failed)[0]  # as it would without crs
                    assert verdict(failed) is None
                refused = await call(c, "build", BROKEN_BUILD)
                assert refused.is_error
                v = verdict(refused)
                assert v is not None
                assert v["code"] == "error_loop", v
                assert texts(refused) == [v["message"]]
                fixed = await call(c, "build", FIXED_BUILD)
                assert not fixed.is_error
                assert texts(fixed) == ["built: 3 targets"]
        assert ws.ran.count(("build", BROKEN_BUILD)) == tries
        # A later process on the same project (a new engine): refused on its first try.
        with Guard.open(project, "second", home=home) as guard:
            async with Client(user_server(guard, ws)) as c:
                again = await call(c, "build", BROKEN_BUILD)
                v = verdict(again)
                assert again.is_error
                assert v is not None
                assert v["code"] == "known_failure", v
                assert "session first" in v["reason"]
        assert ws.ran.count(("build", BROKEN_BUILD)) == tries

    asyncio.run(main())


def test_ten_different_reads_never_blocked(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    ws = Workspace(project)
    paths = ws.make_files(10)

    async def main() -> None:
        with Guard.open(project, "s", home=home) as guard:
            async with Client(user_server(guard, ws)) as c:
                for i, p in enumerate(paths):
                    r = await call(c, "read_file", {"path": p})
                    assert not r.is_error, texts(r)
                    assert texts(r) == [f"def f{i}():\n    return {i}\n"]
                    assert verdict(r) is None  # nothing to say: no advice appended

    asyncio.run(main())


def test_sessions_from_meta_are_separate(dirs: tuple[Path, Path]) -> None:
    """Two agents on one server, each naming its session in `_meta`: one's loop is not the
    other's."""
    project, home = dirs
    ws = Workspace(project)

    async def main() -> None:
        with Guard.open(project, "s", home=home) as guard:
            async with Client(user_server(guard, ws)) as c:
                for _ in range(3):
                    a = await c.call_tool(
                        "search", LOOP_CALL, meta={SESSION_META_KEY: "a"}, raise_on_error=False
                    )
                    b = await c.call_tool(
                        "search", LOOP_CALL, meta={SESSION_META_KEY: "b"}, raise_on_error=False
                    )
                    assert not a.is_error
                    assert not b.is_error
                status = guard.with_session("a").status()
                assert status["calls"] == 3
                assert guard.status()["calls"] == 0

    asyncio.run(main())


def test_guard_failure_fails_open_with_a_log_line(
    dirs: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    project, home = dirs
    ws = Workspace(project)
    ws.make_files(1)

    async def main() -> None:
        guard = Guard.open(project, "s", home=home)
        guard.close()  # every guard call now raises CRSClosedError
        async with Client(user_server(guard, ws)) as c:
            r = await call(c, "read_file", {"path": "src/mod0.py"})
            assert not r.is_error
            assert texts(r) == ["def f0():\n    return 0\n"]
        async with Client(user_server(guard, ws, fail_open=False)) as c:
            r = await call(c, "read_file", {"path": "src/mod0.py"})
            assert r.is_error
        assert ws.ran.count(("read_file", {"path": "src/mod0.py"})) == 1

    with caplog.at_level(logging.ERROR, logger="crs.integrations.mcp"):
        asyncio.run(main())
    records = [
        r
        for r in caplog.records
        if r.name == "crs.integrations.mcp" and "unguarded" in r.getMessage()
    ]
    assert len(records) == 1
    assert records[0].exc_info is not None
    assert isinstance(records[0].exc_info[1], CRSClosedError)


def test_the_tool_exception_reaches_after_call_as_itself() -> None:
    """fastmcp wraps a tool's exception in a ToolError; the guard records the original."""
    seen: list[Any] = []

    class Spy(Guard):
        async def aafter_call(self, call: Any, result: Any = None, error: Any = None) -> Any:
            seen.append(error)
            return await super().aafter_call(call, result=result, error=error)

    guard = Spy()
    ws = Workspace(Path("."))

    async def main() -> None:
        async with Client(user_server(guard, ws)) as c:
            r = await call(c, "build", BROKEN_BUILD)
            assert r.is_error

    asyncio.run(main())
    assert len(seen) == 1
    assert isinstance(seen[0], BuildError)


def test_middleware_takes_only_a_guard() -> None:
    with pytest.raises(InvalidArgumentError, match="guard"):
        GuardMiddleware(object())  # type: ignore[arg-type]


def test_two_servers_at_once_on_one_project_share_what_they_learn(
    dirs: tuple[Path, Path],
) -> None:
    """Two engines open on one project at the same time (the journal is shared): a failure
    one server learns is refused by the other on its very next try, without a write between."""
    project, home = dirs
    ws = Workspace(project)
    ws.make_files(1)

    async def main() -> None:
        with (
            Guard.open(project, "one", home=home) as g1,
            Guard.open(project, "two", home=home) as g2,
        ):
            async with Client(user_server(g1, ws)) as c1, Client(user_server(g2, ws)) as c2:
                assert not (await call(c2, "read_file", {"path": "src/mod0.py"})).is_error
                assert (await call(c1, "build", BROKEN_BUILD)).is_error  # learned by one
                refused = await call(c2, "build", BROKEN_BUILD)
                v = verdict(refused)
                assert refused.is_error
                assert v is not None
                assert v["code"] == "known_failure", v
        assert ws.ran.count(("build", BROKEN_BUILD)) == 1

    asyncio.run(main())
