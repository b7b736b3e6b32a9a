"""Red team: MCP tool calls whose arguments the guard cannot take as they are.

A JavaScript MCP client writes a string cut inside an emoji as `"\\ud83d"`, which reaches the
server as a lone surrogate; a model can nest an argument deeper than the guard reads. The
fastmcp middleware answered such a call with the guard's refusal (the tool never ran, where it
runs without the guard) and the guard server's `check_call`/`record_result` with an error,
while LangChain and the Agents SDK guard the call by a stand-in (docs/redteam.md). Now the MCP
paths do the same: the tool runs, the call is recorded, a repeat is still seen as a repeat,
and what the guard refuses outright comes back as a tool result (`isError`), not a protocol
error. Driven through the real fastmcp server and its in-memory `Client`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import mcp_types as mt
from fastmcp import Client, FastMCP

from crs.guard import Guard
from crs.integrations.mcp import VERDICT_META_KEY, GuardMiddleware, create_server

CUT = "build log \ud83d"  # a lone surrogate: what JSON.stringify of a cut emoji decodes to


def _deep(n: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cur = out
    for _ in range(n):
        cur["a"] = {}
        cur = cur["a"]
    return out


def _texts(result: Any) -> list[str]:
    return [b.text for b in result.content if isinstance(b, mt.TextContent)]


def test_the_middleware_runs_a_call_whose_arguments_the_guard_refuses(tmp_path: Path) -> None:
    ran: list[str] = []
    with Guard.open(tmp_path, "mw", home=tmp_path / "home") as guard:
        server = FastMCP("user", middleware=[GuardMiddleware(guard)])

        @server.tool
        def grep(pattern: str) -> str:
            """Search the log."""
            ran.append("grep")
            return "no match"

        @server.tool
        def configure(options: dict[str, Any]) -> str:
            """Apply options."""
            ran.append("configure")
            return "applied"

        async def scenario() -> list[Any]:
            async with Client(server) as c:
                first = await c.call_tool("grep", {"pattern": CUT}, raise_on_error=False)
                deep = await c.call_tool("configure", {"options": _deep(150)}, raise_on_error=False)
                repeats = []
                for _ in range(10):  # the same call again and again: a loop
                    r = await c.call_tool("grep", {"pattern": CUT}, raise_on_error=False)
                    repeats.append(r)
                    if r.is_error:
                        break
                return [first, deep, repeats]

        first, deep, repeats = asyncio.run(scenario())
        assert not first.is_error, _texts(first)
        assert _texts(first)[0] == "no match"
        assert not deep.is_error, _texts(deep)
        assert ran[:2] == ["grep", "configure"]
        assert guard.status()["calls"] >= 2  # guarded (by the stand-in), not skipped
    blocked = repeats[-1]
    assert blocked.is_error, [_texts(r) for r in repeats]  # the repeat was still a repeat
    verdict = (blocked.meta or {})[VERDICT_META_KEY]
    assert verdict["allowed"] is False
    assert _texts(blocked) == [verdict["message"]]  # the guard's message, for the model


def test_the_middleware_answers_a_refused_session_as_a_tool_result(tmp_path: Path) -> None:
    with Guard.open(tmp_path, "mw", home=tmp_path / "home") as guard:
        server = FastMCP("user", middleware=[GuardMiddleware(guard)])

        @server.tool
        def grep(pattern: str) -> str:
            """Search the log."""
            return "no match"

        async def scenario() -> Any:
            async with Client(server) as c:
                meta = {"crs/session_id": {"not": "text"}}
                return await c.call_tool("grep", {"pattern": "x"}, meta=meta, raise_on_error=False)

        r = asyncio.run(scenario())
    assert r.is_error  # a tool execution error the model can read, not a JSON-RPC error
    assert "crs/session_id" in _texts(r)[0]


def test_the_guard_server_decides_and_records_such_arguments(tmp_path: Path) -> None:
    with Guard.open(tmp_path, "srv", home=tmp_path / "home") as guard:
        server = create_server(guard)

        async def scenario() -> list[Any]:
            async with Client(server) as c:
                args = {"tool": "grep", "arguments": {"pattern": CUT}}
                check = await c.call_tool("check_call", args, raise_on_error=False)
                out = [check]
                if not check.is_error:
                    call_id = json.loads(_texts(check)[0])["call"]["call_id"]
                    out.append(
                        await c.call_tool(
                            "record_result",
                            {"call_id": call_id, "result": "no match"},
                            raise_on_error=False,
                        )
                    )
                    out.append(  # by tool and arguments, without check_call first
                        await c.call_tool(
                            "record_result",
                            {**args, "arguments": {"deep": _deep(150)}, "result": "r"},
                            raise_on_error=False,
                        )
                    )
                return out

        results = asyncio.run(scenario())
        for r in results:
            assert not r.is_error, _texts(r)
        verdicts = [json.loads(_texts(r)[0]) for r in results]
        assert verdicts[0]["allowed"] is True
        assert guard.status()["calls"] == 2
