"""Red team: `crs mcp --transport http` had no authentication (docs/redteam.md): on loopback it
refused foreign Host and Origin headers (DNS rebinding), but any local user (another account
on a shared machine, a container sharing the host's network) could connect to the port, list
what the project learned, forget it, or record failures that make the agent's next calls
refused. It now requires `Authorization: Bearer <token>` on every request: a random token per
run (or `--token`, or $CRS_MCP_TOKEN), printed on stderr with the `claude mcp add` line that
passes it; anything else is a 401 that changes nothing. `--no-token` opts out, on loopback
only. Real `python -m crs mcp` processes, real HTTP, the real fastmcp client."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from mcp.shared.exceptions import MCPError

from mcp_http_server import (
    TIMEOUT,
    Served,
    crs_mcp_argv,
    crs_mcp_env,
    free_port,
    serve_crs_mcp,
)

BROKEN = {"command": "make all"}
ERROR = "error: undefined reference to `main'"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _client(s: Served, token: str | None = None) -> Client[Any]:
    header = {"Authorization": f"Bearer {token or s.token}"}
    return Client(StreamableHttpTransport(s.url, headers=header), timeout=TIMEOUT)


async def _learned(s: Served) -> list[dict[str, Any]]:
    async with _client(s) as client:
        result = await client.call_tool("learned_failures", {})
    assert result.structured_content is not None
    failures: list[dict[str, Any]] = result.structured_content["failures"]
    return failures


async def _learn_a_failure(s: Served) -> str:
    async with _client(s) as client:
        names = {t.name for t in await client.list_tools()}
        assert {"check_call", "record_result", "learned_failures", "forget_failure"} <= names
        for _ in range(3):
            v = (await client.call_tool("check_call", {"tool": "build", "arguments": BROKEN})).data
            if not v["allowed"]:
                break
            await client.call_tool(
                "record_result", {"call_id": v["call"]["call_id"], "error": ERROR}
            )
    failures = await _learned(s)
    assert [f["tool"] for f in failures] == ["build"], failures
    fid: str = failures[0]["id"]
    return fid


def _rpc(method: str, params: dict[str, Any], rid: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


INIT = _rpc(
    "initialize",
    {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "redteam", "version": "1"},
    },
)


def _session(s: Served) -> dict[str, str]:
    """A handshake-era MCP session opened with the token: the headers that continue it (so a
    request refused below is refused for its token, not for a missing handshake)."""
    auth = {"Authorization": f"Bearer {s.token}"}
    r = httpx.post(s.url, json=INIT, headers={**ACCEPT, **auth}, timeout=20)
    assert r.status_code == 200, r.text
    headers = {
        **ACCEPT,
        "Mcp-Session-Id": r.headers["mcp-session-id"],
        "Mcp-Protocol-Version": "2025-06-18",
    }
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert httpx.post(s.url, json=note, headers={**headers, **auth}, timeout=20).status_code < 300
    return headers


def _one_off(token: str) -> str:
    """`token` with its last character changed."""
    return token[:-1] + ("A" if token[-1] != "A" else "B")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serve_crs_mcp(tmp_path) as s:
        yield s


def test_the_token_is_generated_and_printed_with_the_claude_line(served: Served) -> None:
    assert len(served.token) >= 24, served.stderr
    assert served.url.startswith("http://127.0.0.1:"), served.stderr
    assert f"Bearer {served.token}" in served.stderr
    # the client the printed line sets up: lists the tools and calls one
    asyncio.run(_learn_a_failure(served))


def test_requests_without_the_right_token_get_401_and_change_nothing(served: Served) -> None:
    fid = asyncio.run(_learn_a_failure(served))
    session = _session(served)
    forget = _rpc("tools/call", {"name": "forget_failure", "arguments": {"failure_id": fid}}, 7)
    record = _rpc(
        "tools/call",
        {"name": "record_result", "arguments": {"tool": "test", "error": ERROR}},
        8,
    )
    bad_auth: list[list[tuple[str, str]]] = [
        [],
        [("Authorization", "Bearer not-the-token")],
        [("Authorization", f"Bearer {_one_off(served.token)}")],
        [("Authorization", f"Bearer {served.token[:-1]}")],  # a prefix
        [("Authorization", f"Bearer {served.token}x")],  # an extension
        [("Authorization", served.token)],  # no scheme
        [("Authorization", f"Basic {served.token}")],
        # two headers, the right one among them: which one would a proxy have checked?
        [("Authorization", "Bearer wrong"), ("Authorization", f"Bearer {served.token}")],
    ]
    for auth in bad_auth:
        for body in (forget, record, INIT):
            r = httpx.post(served.url, json=body, headers=[*session.items(), *auth], timeout=20)
            assert r.status_code == 401, (auth, body, r.status_code, r.text)
            assert r.headers["www-authenticate"].startswith("Bearer"), r.headers
            assert fid not in r.text
        for method in ("GET", "DELETE"):  # the event stream; ending the session
            r = httpx.request(method, served.url, headers=[*session.items(), *auth], timeout=20)
            assert r.status_code == 401, (method, auth, r.status_code)
    # nothing changed: the failure is still learned, no other was recorded
    assert [f["id"] for f in asyncio.run(_learned(served))] == [fid]
    # and the same session still works with the token (the DELETEs above did not end it)
    right = {"Authorization": f"Bearer {served.token}"}
    r = httpx.post(served.url, json=forget, headers={**session, **right}, timeout=20)
    assert r.status_code == 200, r.text
    assert asyncio.run(_learned(served)) == []


def test_a_token_one_character_off_is_refused_by_the_mcp_client(served: Served) -> None:
    async def main() -> None:
        async with _client(served, _one_off(served.token)) as client:
            await client.list_tools()

    with pytest.raises(MCPError, match="Unauthorized: missing or wrong bearer token"):
        asyncio.run(main())


def test_a_fixed_token_from_the_environment(tmp_path: Path) -> None:
    token = "fixed-token-from-env_0123456789"
    with serve_crs_mcp(tmp_path, env=crs_mcp_env(CRS_MCP_TOKEN=token)) as s:
        assert s.token == token, s.stderr
        asyncio.run(_learn_a_failure(s))
        r = httpx.post(s.url, json=INIT, headers=ACCEPT, timeout=20)
        assert r.status_code == 401


def test_no_token_serves_loopback_without_one(tmp_path: Path) -> None:
    with serve_crs_mcp(tmp_path, "--no-token") as s:
        assert s.token == "", s.stderr
        assert "without a token" in s.stderr
        r = httpx.post(s.url, json=INIT, headers=ACCEPT, timeout=20)
        assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    ("extra", "env", "message"),
    [
        (["--no-token", "--host", "0.0.0.0"], {}, "--no-token is for a loopback --host only"),
        (["--no-token", "--host", "192.0.2.1"], {}, "--no-token is for a loopback --host only"),
        (["--no-token", "--token", "abc"], {}, "give --token or --no-token, not both"),
        (["--no-token"], {"CRS_MCP_TOKEN": "abc"}, "give $CRS_MCP_TOKEN or --no-token"),
        (["--token", "has space"], {}, "token: must be a non-empty printable ASCII str"),
    ],
)
def test_cli_refuses_an_unsafe_or_contradictory_token(
    tmp_path: Path, extra: list[str], env: dict[str, str], message: str
) -> None:
    port = str(free_port())
    out = subprocess.run(
        crs_mcp_argv(tmp_path, "--transport", "http", "--port", port, *extra),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
        env=crs_mcp_env(**env),
    )
    assert out.returncode == 2, out.stderr
    assert message in out.stderr, out.stderr
    assert "has space" not in out.stderr  # a token is not echoed
    assert "Bearer" not in out.stderr  # nothing was announced
    assert not (tmp_path / "home").exists()  # nothing was opened


def test_library_refuses_to_serve_beyond_loopback_without_a_token(tmp_path: Path) -> None:
    from crs import InvalidArgumentError
    from crs.integrations.mcp import run

    with pytest.raises(InvalidArgumentError, match="token"):
        run(tmp_path, home=tmp_path / "home", transport="http", host="0.0.0.0")
    with pytest.raises(InvalidArgumentError, match="token"):
        run(tmp_path, home=tmp_path / "home", transport="http", token="")
    assert not (tmp_path / "home").exists()
