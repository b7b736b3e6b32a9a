"""Bounded growth (issue 11, spec §5.11): the cycle detector and the delta history."""

from __future__ import annotations

import gc
import os
import tracemalloc

import crs
from crs import ProofDelta, ProofNumber, SignalSource


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_cycle_detector_memory_is_bounded_by_max_history() -> None:
    d = crs.CycleDetector(crs.CycleDetectorConfig(max_history=1000))
    for i in range(20_000):  # warm up: the interner reaches its steady size
        d.add_step(f"warm:{i}")
    before = _rss()
    for i in range(300_000):
        d.add_step(f"execute_tool:tool_{i}:success:router")
    grown = _rss() - before
    assert d.stats().history_size <= 1000
    # 96 MB per 1M distinct states when unbounded; bounded it does not grow with them.
    assert grown < 8_000_000, f"RSS grew {grown / 1e6:.1f} MB over 300k distinct states"


def _large_delta(n: int) -> ProofDelta:
    return ProofDelta(
        SignalSource.HARD,
        {
            f"node:{i:08d}": ProofNumber(
                proof=i + 1000,
                disproof=i + 7,
                status=crs.ProofStatus.EXPANDED,
                source=SignalSource.HARD,
                updated_at=1_700_000_000 + i,
            )
            for i in range(n)
        },
    )


def test_the_delta_history_does_not_keep_a_large_deltas_updates_alive() -> None:
    n = 20_000
    gc.collect()
    tracemalloc.start()
    c = crs.CRS()
    c.apply(_large_delta(n))
    gc.collect()
    per_entry = tracemalloc.get_traced_memory()[0] / n
    tracemalloc.stop()
    # The whole state after one large delta: the proof index's own entries plus the delta
    # history (283 B per entry on 2026-12-01; 409 B when the history kept the delta's
    # ProofNumber mapping alive). The history alone (40 B per entry, packed) is bounded in
    # tests/state/test_delta_history_packed.py.
    assert per_entry < 320, f"{per_entry:.0f} B per entry"
    record = c.delta_history().get_by_generation(1)
    assert record is not None
    delta = record.delta()
    assert isinstance(delta, ProofDelta)
    assert len(delta.updates) == n  # what the history answers is unchanged
    assert c.delta_history().get_by_node("node:00000007")[0].generation == 1
