"""A real nats-server with JetStream for the NATS journal tests and benchmarks.

The server listens on 127.0.0.1 on a free port with its store in a temporary directory; it can
be killed (SIGKILL) and started again on the same port and store to test outages.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path


def nats_server_binary() -> str | None:
    """The nats-server executable (Debian installs it in /usr/sbin, often not on PATH)."""
    found = shutil.which("nats-server")
    if found:
        return found
    for candidate in ("/usr/sbin/nats-server", "/usr/local/bin/nats-server"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class NatsServer:
    """One nats-server process (`start`, `kill`, `stop`), reusable across restarts."""

    def __init__(self, store: Path, port: int | None = None) -> None:
        binary = nats_server_binary()
        if binary is None:
            raise RuntimeError("nats-server not found; run scripts/system-deps.sh")
        self.binary = binary
        self.store = store
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = store.parent / f"nats-{self.port}.log"

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        self.store.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [
                    self.binary,
                    "-js",
                    "-a",
                    "127.0.0.1",
                    "-p",
                    str(self.port),
                    "-sd",
                    str(self.store),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nats-server exited: {self.log.read_text()[-2000:]}")
            if self._ready():
                return
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"nats-server not ready in {timeout}s: {self.log.read_text()[-2000:]}")

    def _ready(self) -> bool:
        # Ready = accepting connections and JetStream started (its log line comes last).
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                if not s.recv(4096).startswith(b"INFO"):
                    return False
        except OSError:
            return False
        return b"Server is ready" in self.log.read_bytes()

    def kill(self) -> None:
        """SIGKILL, like a crash or a machine going away."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None
        # A restart must wait for a fresh "ready" line, so forget the old log.
        self.log.unlink(missing_ok=True)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None
        self.log.unlink(missing_ok=True)


def started_server(store: Path) -> Iterator[NatsServer]:
    """The body of a test's `nats` fixture: a started server, stopped afterwards. Missing
    nats-server skips the test, except in CI, where it fails (scripts/system-deps.sh installs
    it)."""
    import pytest  # inside: this module also serves benchmarks run without pytest

    if nats_server_binary() is None:
        if os.environ.get("CI"):
            pytest.fail("nats-server missing in CI: scripts/system-deps.sh installs it")
        pytest.skip("nats-server missing (scripts/system-deps.sh installs it)")
    server = NatsServer(store)
    server.start()
    try:
        yield server
    finally:
        server.stop()
