"""Smoke run of `bench/mcp_overhead.py` (the MCP guard overhead; the figures in RESULTS.md come
from running the script itself with its default 2,000 rounds)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mcp_overhead import measure, report


def test_mcp_overhead_smoke(tmp_path: Path) -> None:
    medians = asyncio.run(measure(20, tmp_path))
    assert set(medians) == {
        "bare",
        "guarded (memory)",
        "guarded (durable)",
        "crs mcp pair (durable)",
        "guard only (durable)",
        "guard only, async (durable)",
    }
    assert all(m > 0 for m in medians.values())
    assert "| bare |" in report(medians)
