"""Shared test configuration: hypothesis profiles chosen by HYPOTHESIS_PROFILE (fast/slow)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from _sessions_tmux import TmuxServer

settings.register_profile(
    "fast", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "slow", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


@pytest.fixture
def fast_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory on tmpfs when there is one (thousands of opens, each closing with an
    fsync, are IO-bound on a shared disk), else `tmp_path`."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    d = Path(tempfile.mkdtemp(prefix="crs-test-", dir=shm))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def tmux() -> Iterator[TmuxServer]:
    """A real tmux server on a private socket, killed after the test."""
    server = TmuxServer()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(autouse=True, scope="session")
def _no_lingering_hook_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Claude Code hook servers a test starts (docs/hook-server.md) idle out within seconds,
    and any still running under the session's temporary directory is killed at the end."""
    os.environ.setdefault("CRS_HOOK_DAEMON_IDLE_S", "10")
    yield
    base = str(tmp_path_factory.getbasetemp().resolve())
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"crs.integrations._hook_server" in argv and b"--home" in argv:
            home = argv[argv.index(b"--home") + 1 :][:1]
            if home and os.fsdecode(home[0]).startswith(base + os.sep):
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(entry), signal.SIGKILL)
