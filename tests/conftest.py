"""Shared test configuration: hypothesis profiles chosen by HYPOTHESIS_PROFILE (fast/slow)."""

from __future__ import annotations

import os
from collections.abc import Iterator

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
def tmux() -> Iterator[TmuxServer]:
    """A real tmux server on a private socket, killed after the test."""
    server = TmuxServer()
    try:
        yield server
    finally:
        server.kill()
