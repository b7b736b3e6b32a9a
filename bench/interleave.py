"""Two source trees' hot paths, measured interleaved on one machine (a before/after check).

One worker process per tree (its `python/` on PYTHONPATH, its bench modules for the
fixtures) is fed the same benchmark in alternating batches, the order swapped every round,
so drifting load hits both trees alike. Prints per-call µs, min and median over the rounds:
`apply()` of a 1-entry ProofDelta on 1k entries, `snapshot()` at 1k entries, one full agent
step (bench/test_bench_guards.py) and a guard call pair at 10k history (bench/test_bench_guard.py),
with a text result and (`guard_pair_json`) a structured one.

Run: `python bench/interleave.py --rounds 40 <tree before> <tree after>` (each tree a checkout
holding `python/crs` with the built extension, e.g. from `git archive`).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

BATCH = {"apply": 5_000, "snapshot": 10_000, "agent_step": 300, "guard_pair": 300}
BATCH["guard_pair_json"] = 300  # the pair with a structured result (a dict, not text)


def _worker(tree: str) -> None:
    sys.path[:0] = [f"{tree}/bench", f"{tree}/tests/helpers", f"{tree}/tests/reference"]
    import crs

    if not (crs.__file__ or "").startswith(tree):
        raise SystemExit(f"imported {crs.__file__}, not the crs of {tree}")
    from test_bench_guard import warmed
    from test_bench_guards import loaded_crs, step

    c = crs.CRS()
    c._install([(1, [(f"node:{i}", i, 10, 3, 1, 1_700_000_000_000) for i in range(1000)])], ())
    d = crs.ProofDelta(crs.SignalSource.HARD, {"hot": crs.ProofNumber(proof=1)})
    agent = loaded_crs(1_000)
    detector = crs.CycleDetector()
    names = (f"bench_tool_{i}" for i in itertools.count())

    def agent_step() -> bool:
        tool = next(names)
        s = agent.record_step(step(tool, "bench"))
        crs.check_cycle_on_step(agent, s, detector)
        agent.check_circuit_breaker("bench", tool)
        return agent.check_decision_allowed("bench", tool).allowed

    g = warmed(10_000)
    counter = itertools.count()

    def pair() -> None:
        i = next(counter)
        v = g.before_call("read_file", {"path": f"src/other/file_{i}.py"})
        assert v.call is not None
        g.after_call(v.call, result=f"contents of file {i}")

    def pair_json() -> None:
        i = next(counter)
        v = g.before_call("run_tests", {"path": f"tests/test_{i}.py"})
        assert v.call is not None
        g.after_call(v.call, result={"output": f"{i % 9} passed", "exit_code": 0, "files": [i]})

    fns: dict[str, Callable[[], Any]] = {
        "apply": lambda: c.apply(d),
        "snapshot": c.snapshot,
        "agent_step": agent_step,
        "guard_pair": pair,
        "guard_pair_json": pair_json,
    }
    print("ready", flush=True)
    for line in sys.stdin:
        name = line.strip()
        fn, n = fns[name], BATCH[name]
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        print((time.perf_counter() - t0) / n * 1e6, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("trees", nargs="*")
    args = ap.parse_args()
    if args.worker:
        _worker(args.worker)
        return
    trees = [os.path.abspath(t) for t in args.trees]
    workers = {}
    for t in trees:
        env = {**os.environ, "PYTHONPATH": f"{t}/python"}
        p = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", t],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=t,
        )
        if p.stdin is None or p.stdout is None or p.stdout.readline().strip() != "ready":
            raise SystemExit(f"the worker of {t} did not start")
        workers[t] = (p, p.stdin, p.stdout)
    times: dict[str, dict[str, list[float]]] = {t: {n: [] for n in BATCH} for t in trees}
    for r in range(args.rounds):
        for name in BATCH:
            for t in trees if r % 2 == 0 else trees[::-1]:
                _, send, got = workers[t]
                send.write(name + "\n")
                send.flush()
                times[t][name].append(float(got.readline()))
    for t in trees:
        cols = (f"{n} {min(v):.2f} / {statistics.median(v):.2f}" for n, v in times[t].items())
        print(t, "(µs, min / median):", "; ".join(cols))
        p, send, _ = workers[t]
        send.close()
        p.wait(30)


if __name__ == "__main__":
    main()
