"""MCP conformance (mcp 2.3, fastmcp 4.1 as installed): `GuardMiddleware` on a fastmcp server
and the `crs mcp` guard server, through fastmcp's in-memory `Client(server)`, held to the MCP
spec and fastmcp's middleware contract:

- a tool execution error is a result with `isError: true` whose content the model reads (not
  a JSON-RPC error); a refused call is one, and the tool's body never runs;
- a tool that raises `ToolError`, or returns a `ToolResult(is_error=True)`, failed: the guard
  records a failure, never a success;
- `on_call_tool` runs on the server's event loop: a durable guard's journal writes happen in
  a worker thread;
- custom `_meta` keys carry a prefix (`crs/verdict`);
- `crs mcp --transport http` tells the user how to connect only once it can serve.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
from pathlib import Path
from typing import Any

import mcp_types as mt
from _loop_writes import writes_on_the_loop
from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.tools import ToolResult

from crs.guard import Guard
from crs.integrations.mcp import VERDICT_META_KEY, GuardMiddleware, create_server
from mcp_http_server import crs_mcp_argv, crs_mcp_env


def server_for(guard: Guard, ran: list[str]) -> FastMCP:
    server = FastMCP("tools", middleware=[GuardMiddleware(guard)])

    @server.tool
    def compile_code(target: str) -> str:
        """Compile a target."""
        ran.append("compile_code")
        raise ToolError("main.c:3: error: expected ';' before '}'")

    @server.tool
    def lint(path: str) -> ToolResult:
        """Lint a file."""
        ran.append("lint")
        text = mt.TextContent(type="text", text=f"{path}:1: E999 syntax error")
        return ToolResult(content=[text], is_error=True)

    @server.tool
    def status(job: str) -> str:
        """A job's status."""
        ran.append("status")
        return "pending"

    return server


def text_of(result: Any) -> str:
    return " ".join(b.text for b in result.content if isinstance(b, mt.TextContent))


def calls(guard: Guard, script: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], list[str]]:
    ran: list[str] = []

    async def go() -> list[Any]:
        async with Client(server_for(guard, ran)) as client:
            return [await client.call_tool(t, a, raise_on_error=False) for t, a in script]

    return asyncio.run(go()), ran


def test_a_refusal_is_a_tool_error_result_and_the_body_never_runs() -> None:
    results, ran = calls(Guard(), [("status", {"job": "ci"})] * 6)
    refused = [r for r in results if r.is_error]
    assert refused
    assert ran.count("status") == 6 - len(refused)
    meta = refused[0].meta or {}
    assert meta[VERDICT_META_KEY]["action"] in ("block", "stop")
    assert all("/" in key for key in meta)  # every _meta key has its prefix
    assert "ci" not in text_of(refused[0])  # redirects; never echoes the arguments


def test_a_tool_error_and_an_error_result_are_failures() -> None:
    guard = Guard()
    script = [("compile_code", {"target": "all"})] * 3 + [("lint", {"path": "a.py"})] * 3
    results, ran = calls(guard, script)
    assert all(r.is_error for r in results)
    assert ran == ["compile_code", "compile_code", "lint", "lint"]  # each third try refused
    assert "expected ';'" in text_of(results[0])  # the tool's own error reaches the client
    assert "failed 2 times in a row" in text_of(results[2])
    assert "failed 2 times in a row" in text_of(results[5])
    assert {f.tool for f in guard.learned()} == {"compile_code", "lint"}


def test_a_durable_guard_never_writes_on_the_servers_event_loop(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    with Guard.open(project, "main", home=tmp_path / "home") as guard:
        with writes_on_the_loop() as on_loop:
            results, _ = calls(guard, [("compile_code", {"target": "x"})] * 3)

            async def consult() -> Any:
                async with Client(create_server(guard)) as client:
                    args = {"tool": "t", "arguments": {"x": 1}, "call_id": "c1"}
                    await client.call_tool("check_call", args)
                    record = {"tool": "t", "arguments": {"x": 1}, "call_id": "c1", "error": "boom"}
                    return await client.call_tool("record_result", record)

            asyncio.run(consult())
        assert on_loop == []
        assert results[-1].is_error


def test_crs_mcp_announces_the_connect_line_only_once_it_can_serve(tmp_path: Path) -> None:
    """The project's state cannot be opened (the home is a file): the user is told why, and
    never told to connect to a server that is not there."""
    (tmp_path / "home").write_text("not a directory")
    argv = crs_mcp_argv(tmp_path, "--transport", "http", "--port", "18766")
    p = subprocess.run(argv, capture_output=True, text=True, env=crs_mcp_env(), timeout=120)
    assert p.returncode == 2
    assert "claude mcp add" not in p.stderr
    assert "serving" not in p.stderr
    assert "home: not a directory" in p.stderr  # (named by Guard.open, red team 5)
    with socket.socket() as taken:  # the port is in use: said, and nothing announced
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = crs_mcp_argv(tmp_path / "repo", "--transport", "http", "--port", str(port))
        p = subprocess.run(argv, capture_output=True, text=True, env=crs_mcp_env(), timeout=120)
    assert p.returncode == 2
    assert "claude mcp add" not in p.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in p.stderr
