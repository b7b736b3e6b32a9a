"""`python -m crs mcp` as a real process: over stdio (the client starts it) and over streamable
HTTP on 127.0.0.1, then a second server process on the same project sees what the first
learned (durable, temporary home). Every process is bounded: a stdio server ends with its
stdin; an HTTP server is terminated at the end of the test, and gets SIGTERM from the kernel
should the test process die first (`PR_SET_PDEATHSIG`)."""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp_scenarios import (
    BROKEN_BUILD,
    GuardServerAgent,
    Workspace,
    failing_build_refused_then_fixed_runs,
    loop_is_nudged_then_blocked,
    sees_learned_build_failure,
    ten_reads_never_blocked,
)

from crs.integrations.mcp import STATUS_URI

TIMEOUT = 60.0  # per request and for a server to come up


def crs_mcp_args(project: Path, home: Path, *extra: str) -> list[str]:
    return ["-m", "crs", "mcp", "--project", str(project), "--home", str(home), *extra]


def stdio_client(project: Path, home: Path, log: Path) -> Client[Any]:
    transport = StdioTransport(
        sys.executable,
        crs_mcp_args(project, home, "--transport", "stdio"),
        env=dict(os.environ),
        cwd=str(project),
        keep_alive=False,
        log_file=log,
    )
    return Client(transport, timeout=TIMEOUT, init_timeout=TIMEOUT)


async def server_pid(client: Client[Any]) -> int:
    [status] = await client.read_resource(STATUS_URI)
    pid = json.loads(status.text)["server"]["pid"]  # type: ignore[union-attr]
    assert isinstance(pid, int)
    return pid


def wait_gone(pid: int, timeout: float = TIMEOUT) -> None:
    """Wait until a server process has exited (and so released the project's journal)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except FileNotFoundError:
            return  # exited and reaped
        if stat.rsplit(") ", 1)[-1].startswith("Z"):
            return  # exited, not yet reaped
        assert time.monotonic() < deadline, f"server {pid} still running"
        time.sleep(0.05)


def setup(tmp_path: Path) -> tuple[Path, Path, Workspace, list[str]]:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    ws = Workspace(project)
    return project, home, ws, ws.make_files(10)


def test_stdio_server_process(tmp_path: Path) -> None:
    project, home, ws, paths = setup(tmp_path)
    log = tmp_path / "server.log"

    async def main() -> None:
        async with stdio_client(project, home, log) as client:
            pid = await server_pid(client)
            agent = GuardServerAgent(client, ws)
            await ten_reads_never_blocked(agent, paths)
            await loop_is_nudged_then_blocked(agent)
            await failing_build_refused_then_fixed_runs(agent)
        wait_gone(pid)
        async with stdio_client(project, home, log) as client:
            assert await server_pid(client) != pid
            await sees_learned_build_failure(GuardServerAgent(client, ws))

    asyncio.run(main())


def test_two_stdio_servers_at_once_share_what_they_learn(tmp_path: Path) -> None:
    """Two `crs mcp` processes on one project at the same time (two agents, one repository):
    neither waits for the other, and a failure one learns the other refuses at once."""
    project, home, ws, paths = setup(tmp_path)
    log = tmp_path / "server.log"

    async def main() -> None:
        async with stdio_client(project, home, log) as a, stdio_client(project, home, log) as b:
            assert await server_pid(a) != await server_pid(b)
            one, two = GuardServerAgent(a, ws), GuardServerAgent(b, ws)
            await ten_reads_never_blocked(two, paths)
            assert (await one.step("build", BROKEN_BUILD)).ran
            refused = await two.step("build", BROKEN_BUILD)
            assert not refused.ran
            assert refused.before["code"] == "known_failure", refused.before
        assert ws.ran.count(("build", BROKEN_BUILD)) == 1

    asyncio.run(main())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _die_with_parent() -> None:
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class HttpServer:
    """`crs mcp --transport http`, terminated on exit (and if this process dies)."""

    def __init__(self, project: Path, home: Path, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.token = secrets.token_urlsafe(16)  # through the environment, as the help advises
        args = crs_mcp_args(project, home, "--transport", "http", "--port", str(self.port))
        self.log = log.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, *args],
            stdin=subprocess.DEVNULL,
            env={**os.environ, "CRS_MCP_TOKEN": self.token},
            preexec_fn=_die_with_parent,
            stdout=self.log,
            stderr=self.log,
        )

    def __enter__(self) -> HttpServer:
        deadline = time.monotonic() + TIMEOUT
        while True:
            assert self.proc.poll() is None, f"server exited {self.proc.returncode}"
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                assert time.monotonic() < deadline, "server did not come up"
                time.sleep(0.1)

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()  # uvicorn shuts down cleanly on SIGTERM; the guard closes
        try:
            self.proc.wait(TIMEOUT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)
            self.log.close()


def test_streamable_http_server_process(tmp_path: Path) -> None:
    project, home, ws, paths = setup(tmp_path)
    log = tmp_path / "server.log"

    async def first(url: str, token: str) -> None:
        async with Client(url, timeout=TIMEOUT, auth=token) as client:
            agent = GuardServerAgent(client, ws)
            await ten_reads_never_blocked(agent, paths)
            await loop_is_nudged_then_blocked(agent)
            await failing_build_refused_then_fixed_runs(agent)
        # A handshake-era client over HTTP: its Mcp-Session-Id is its session, stable
        # across its calls, not the server's default session.
        async with Client(url, timeout=TIMEOUT, mode="legacy", auth=token) as client:
            agent = GuardServerAgent(client, ws)
            a = await agent.step("read_file", {"path": paths[0]})
            b = await agent.step("read_file", {"path": paths[1]})
            assert a.before["session_id"] == b.before["session_id"]
            assert (a.before["call"]["step"], b.before["call"]["step"]) == (1, 2)

    async def second(url: str, token: str) -> None:
        async with Client(url, timeout=TIMEOUT, auth=token) as client:
            await sees_learned_build_failure(GuardServerAgent(client, ws))

    with HttpServer(project, home, log) as server:
        asyncio.run(first(server.url, server.token))
    assert server.proc.returncode == 0, log.read_text()
    with HttpServer(project, home, log) as server:
        asyncio.run(second(server.url, server.token))
    assert server.proc.returncode == 0, log.read_text()


def test_cli_bad_argument_is_a_message_naming_it(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, *crs_mcp_args(tmp_path, tmp_path / "home", "--port", "0")],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 2
    assert out.stderr.startswith("crs mcp: port:"), out.stderr
    assert out.stdout == ""


def test_import_crs_and_its_cli_load_no_mcp_framework() -> None:
    code = (
        "import contextlib, io, sys, crs, crs._cli\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    crs._cli.main(['mcp', '--help'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'fastmcp', 'mcp', 'mcp_types', 'uvicorn', 'starlette'} or m == 'crs.integrations.mcp'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT, check=True
    )
    assert out.stdout.strip() == "[]"
