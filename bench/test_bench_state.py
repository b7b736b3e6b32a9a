"""Benchmarks of the reasoning state (release build): snapshot, apply, throughput, memory,
export/import. Each sits beside what a user would otherwise write (a Python dict).

Large data is built lazily and only when benchmarks are enabled; under `make test`
(`--benchmark-disable`) every benchmark runs once on small data as a smoke test.
"""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest

import crs
from crs import SignalSource as S

_cache: dict[tuple[str, int], Any] = {}


def _big(benchmark: Any, n: int) -> int:
    return 1_000 if benchmark.disabled else n


def _rows(start: int, n: int) -> list[tuple[str, int, int, int, int, int]]:
    return [(f"node:{i}", i, 10, 3, 1, 1_700_000_000_000) for i in range(start, start + n)]


def _crs_with(n: int) -> crs.CRS:
    key = ("proof", n)
    if key not in _cache:
        c = crs.CRS()
        c._install([(1, _rows(0, n))], ())
        _cache[key] = c
    return _cache[key]  # type: ignore[no-any-return]


def _dict_with(n: int) -> dict[str, crs.ProofNumber]:
    key = ("dict", n)
    if key not in _cache:
        pn = crs.ProofNumber(proof=1, disproof=10, status=crs.ProofStatus.EXPANDED)
        _cache[key] = {f"node:{i}": pn for i in range(n)}
    return _cache[key]  # type: ignore[no-any-return]


@pytest.mark.parametrize("n", [1_000, 1_000_000])
def test_bench_snapshot(benchmark: Any, n: int) -> None:
    c = _crs_with(_big(benchmark, n))
    snap = benchmark(c.snapshot)
    assert snap.proof_index().size() == _big(benchmark, n)


@pytest.mark.parametrize("n", [1_000, 1_000_000])
def test_bench_snapshot_python_dict_copy(benchmark: Any, n: int) -> None:
    d = _dict_with(_big(benchmark, n))
    assert len(benchmark(dict, d)) == len(d)


def test_bench_snapshot_python_deepcopy_1k(benchmark: Any) -> None:
    d = _dict_with(1_000)
    assert len(benchmark(copy.deepcopy, d)) == 1_000


def test_bench_apply_1_entry(benchmark: Any) -> None:
    c = _crs_with(_big(benchmark, 1_000_000))
    d = crs.ProofDelta(S.HARD, {"hot": crs.ProofNumber(proof=1)})
    m = benchmark(c.apply, d)
    assert m.entries_modified == 1


def test_bench_apply_1_entry_metrics_off(benchmark: Any) -> None:
    """The same apply with `Config(enable_metrics=False)`: what the duration timers cost."""
    c = crs.CRS(crs.Config(enable_metrics=False))
    c._install([(1, _rows(0, _big(benchmark, 1_000_000)))], ())
    d = crs.ProofDelta(S.HARD, {"hot": crs.ProofNumber(proof=1)})
    m = benchmark(c.apply, d)
    assert m.entries_modified == 1
    assert c.metrics()[1].count == 0


def test_bench_snapshot_then_apply_1_entry(benchmark: Any) -> None:
    """The agent-loop pattern: take a snapshot, then apply (copy-on-write of shared nodes)."""
    c = _crs_with(_big(benchmark, 1_000_000))
    d = crs.ProofDelta(S.HARD, {"hot": crs.ProofNumber(proof=2)})

    def run() -> crs.ApplyMetrics:
        c.snapshot()
        return c.apply(d)

    assert benchmark(run).entries_modified == 1


def test_bench_apply_1_entry_python_dict_under_lock(benchmark: Any) -> None:
    import threading

    d = dict(_dict_with(_big(benchmark, 1_000_000)))
    lock = threading.RLock()
    pn = crs.ProofNumber(proof=1)

    def put() -> None:
        with lock:
            d["hot"] = pn

    benchmark(put)


def test_bench_apply_1000_entries(benchmark: Any) -> None:
    c = _crs_with(_big(benchmark, 1_000_000))
    d = crs.ProofDelta(S.HARD, {f"new:{i}": crs.ProofNumber(proof=i) for i in range(1_000)})
    assert benchmark(c.apply, d).entries_modified == 1_000


def test_bench_apply_1m_single_entry_deltas(benchmark: Any) -> None:
    """1,000,000 single-entry ProofDeltas applied in a loop (deltas built between timed
    batches); records deltas/s in extra_info."""
    total = 20_000 if benchmark.disabled else 1_000_000
    batch = 10_000
    pn = crs.ProofNumber(proof=1, status=crs.ProofStatus.EXPANDED)

    def run() -> float:
        c = crs.CRS()
        elapsed = 0.0
        for start in range(0, total, batch):
            deltas = [crs.ProofDelta(S.HARD, {f"n{i}": pn}) for i in range(start, start + batch)]
            apply = c.apply
            t0 = time.perf_counter()
            for d in deltas:
                apply(d)
            elapsed += time.perf_counter() - t0
        assert c.generation() == total
        return total / elapsed

    rate = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info["deltas_per_second"] = round(rate)
    assert rate > 10_000


_MEMORY_CHILD = """
import gc, os, sys
import crs

def rss():
    with open(f"/proc/{os.getpid()}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

n = int(sys.argv[1])
c = crs.CRS()
c.apply(crs.ProofDelta(crs.SignalSource.HARD, {"warm": crs.ProofNumber()}))
gc.collect()
before = rss()
step = min(n, 50_000)
for start in range(0, n, step):
    rows = [(f"node:{i}", i, 10, 3, 1, 1_700_000_000_000) for i in range(start, start + step)]
    c._kernel.head.put_proofs(rows)
    del rows
gc.collect()
assert c.snapshot().proof_index().size() == n + 1
print((rss() - before) / n)
"""


def test_bench_memory_per_proof_entry(benchmark: Any) -> None:
    """RSS growth per proof entry while growing a CRS to 1,000,000 entries, measured in a
    fresh process (memory freed by earlier benchmarks would hide growth)."""
    import subprocess
    import sys

    n = _big(benchmark, 1_000_000)

    def run() -> float:
        out = subprocess.run(
            [sys.executable, "-c", _MEMORY_CHILD, str(n)],
            capture_output=True,
            text=True,
            check=True,
        )
        return float(out.stdout.strip())

    per_entry = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info["rss_bytes_per_entry"] = round(per_entry, 1)
    if not benchmark.disabled:
        assert per_entry <= 250


def _sim_crs(n: int) -> crs.CRS:
    key = ("sim", n)
    if key not in _cache:
        c = crs.CRS(max_similarity_pairs=0)
        c.apply(
            crs.SimilarityDelta(S.SOFT, {(f"q:{i}", f"q:{i + 1}"): i % 97 / 97 for i in range(n)})
        )
        _cache[key] = c
    return _cache[key]  # type: ignore[no-any-return]


def test_bench_export_import_100k_similarity(benchmark: Any) -> None:
    n = _big(benchmark, 100_000)
    snap = _sim_crs(n).snapshot()
    ser = crs.Serializer()

    def run() -> crs.ImportedState:
        res = ser.export_full(snap, "bench", crs.ExportOptions(max_similarity_pairs=-1))
        assert res.export is not None
        return ser.import_(res.export)

    state = benchmark.pedantic(run, rounds=3, iterations=1)
    assert sum(len(v) for v in state.similarity_data.values()) == n


def test_bench_export_import_100k_similarity_python_json(benchmark: Any) -> None:
    """What a user would write by hand: a dict of pairs through json.dumps/json.loads."""
    import json

    n = _big(benchmark, 100_000)
    pairs = {f"q:{i}|q:{i + 1}": i % 97 / 97 for i in range(n)}

    def run() -> int:
        return len(json.loads(json.dumps(pairs)))

    assert benchmark.pedantic(run, rounds=3, iterations=1) == n
