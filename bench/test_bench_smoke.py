"""Benchmark of the online cycle detector beside a plain Python dict scan (same stream)."""

from __future__ import annotations

from typing import Any

from crs import _core

STREAM = [i % 7 for i in range(10_000)]


def python_detector(states: list[int]) -> int:
    last: dict[int, int] = {}
    found = 0
    for pos, s in enumerate(states):
        if s in last:
            found += 1
            last.clear()
        else:
            last[s] = pos
    return found


def test_bench_cycle_detector_rust(benchmark: Any) -> None:
    def run() -> int:
        d = _core.CycleDetector(64)
        for s in STREAM:
            d.add(s)
        return d.cycles_found

    assert benchmark(run) > 0


def test_bench_cycle_detector_python_dict(benchmark: Any) -> None:
    assert benchmark(python_detector, STREAM) > 0
