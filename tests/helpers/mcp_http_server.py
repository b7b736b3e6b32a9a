"""`crs mcp --transport http` as a real process on a free loopback port, for the tests that
need one: up, its start-up announcement parsed (the URL and the bearer token it prints)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60.0
ANNOUNCE = re.compile(
    r'claude mcp add --transport http crs (http://\S+/mcp) --header "Authorization: Bearer (\S+)"'
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def crs_mcp_argv(tmp_path: Path, *extra: str) -> list[str]:
    project = tmp_path / "repo"
    project.mkdir(exist_ok=True)
    home = str(tmp_path / "home")
    return [sys.executable, "-m", "crs", "mcp", "--project", str(project), "--home", home, *extra]


def crs_mcp_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CRS_MCP_TOKEN"}
    return {**env, "PYTHONPATH": str(ROOT / "python"), **extra}


@dataclass
class Served:
    url: str
    token: str
    stderr: str


@contextlib.contextmanager
def serve_crs_mcp(
    tmp_path: Path, *extra: str, env: dict[str, str] | None = None
) -> Iterator[Served]:
    """`crs mcp --transport http` on a free loopback port, up and announced; terminated on exit
    (and if this process dies)."""
    port = free_port()
    log_path = tmp_path / f"server-{port}.log"
    argv = crs_mcp_argv(tmp_path, "--transport", "http", "--port", str(port), *extra)
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            env=env or crs_mcp_env(),
            preexec_fn=_die_with_parent,
        )
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None, f"crs mcp exited: {log_path.read_text()}"
                assert time.monotonic() < deadline, "crs mcp did not listen"
                time.sleep(0.1)
        stderr = log_path.read_text()
        found = ANNOUNCE.search(stderr)
        url, token = (found.group(1), found.group(2)) if found else ("", "")
        yield Served(url or f"http://127.0.0.1:{port}/mcp", token, stderr)
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(15)
