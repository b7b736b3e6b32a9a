"""Red team: `crs mcp` (the guard server) and its HTTP transport.

Over HTTP, against a web page in the user's browser: a page on any site can make the browser
send requests to 127.0.0.1 (DNS rebinding: its own name resolves to 127.0.0.1, so the requests
are same-origin for the browser and carry `Host: <its name>`). The MCP spec requires servers to
validate Origin for that reason. fastmcp leaves the check off unless asked; the guard server
answered such a page's `initialize`, so it could list what the project learned, forget it, or
record failures to make the agent's next calls refused. The server bound to loopback now
refuses other Host names and other origins.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client

from crs import InvalidArgumentError
from crs.guard import Guard
from crs.integrations.mcp import create_server
from mcp_http_server import serve_crs_mcp

ROOT = Path(__file__).resolve().parents[2]
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "redteam", "version": "1"},
    },
}
TOKEN = "redteam-token"
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "Authorization": f"Bearer {TOKEN}",
}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """`crs mcp --transport http --token TOKEN` on a free loopback port; its base URL."""
    with serve_crs_mcp(tmp_path, "--token", TOKEN) as s:
        assert s.token == TOKEN, s.stderr
        yield s.url.removesuffix("/mcp")


def _post(url: str, **headers: str) -> int:
    r = httpx.post(f"{url}/mcp", json=INIT, headers={**HEADERS, **headers}, timeout=20)
    return r.status_code


def test_a_rebound_host_name_is_refused(server: str) -> None:
    port = server.rsplit(":", 1)[1]
    assert _post(server, Host=f"attacker.example:{port}") >= 400
    assert _post(server, Host="attacker.example") >= 400


def test_a_foreign_origin_is_refused(server: str) -> None:
    assert _post(server, Origin="http://attacker.example") >= 400


def test_local_clients_still_connect(server: str) -> None:
    port = server.rsplit(":", 1)[1]
    assert _post(server) == 200
    assert _post(server, Host=f"localhost:{port}") == 200
    assert _post(server, Origin=server) == 200


def test_crs_mcp_on_a_directory_that_does_not_exist_creates_nothing(tmp_path: Path) -> None:
    """`crs mcp --project <typo>` served, and created the typo's project state."""
    home = tmp_path / "home"
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "crs",
            "mcp",
            "--project",
            str(tmp_path / "typo"),
            "--home",
            str(home),
        ],
        input="",
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python")},
    )
    assert p.returncode == 2
    assert "no such directory" in p.stderr
    assert not home.exists() or not [x for x in home.iterdir() if x.is_dir()]


def test_mcp_record_result_takes_output_with_a_lone_surrogate(tmp_path: Path) -> None:
    """A JavaScript client reports an output cut inside an emoji (`\\ud83d` in its JSON):
    `record_result` answered with the guard's error and the call was never recorded."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()

    async def main() -> list[dict[str, Any]]:
        out = []
        with Guard.open(project, "m", home=home) as guard:
            async with Client(create_server(guard), timeout=60) as client:
                for i in range(3):
                    args = {"tool": "tail", "arguments": {"path": "log"}, "call_id": f"c{i}"}
                    await client.call_tool("check_call", args)
                    r = await client.call_tool(
                        "record_result",
                        {"call_id": f"c{i}", "result": {"text": "done \ud83d"}},
                        raise_on_error=False,
                    )
                    out.append(json.loads(r.content[0].text) if not r.is_error else {})  # type: ignore[union-attr]
        return out

    verdicts = asyncio.run(main())
    assert [v.get("allowed") for v in verdicts] == [True, True, True]
    assert verdicts[-1]["code"] == "repeated_call"  # the same output three times: a loop


def test_create_server_names_a_wrong_guard() -> None:
    """`create_server(None)` was accepted and failed at the first tool call (AttributeError
    inside a request); the other integrations refuse it at once."""
    with pytest.raises(InvalidArgumentError, match="guard"):
        create_server(None)  # type: ignore[arg-type]
