"""The uncontended append of a guard on NATS: median time of `after_call` (one guard.step
record: one publish round trip, then the record's echo on the live feed) and of the project
journal's raw op append, on a real nats-server on 127.0.0.1 (red team 8: the records carry
Nats-Expected-Last-Subject-Sequence; this measures what that costs when nobody races).

    PYTHONPATH=python python bench/nats_guard_append.py [n]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "helpers"))

from crs.guard import Guard
from nats_server import NatsServer


def _median_us(samples: list[float]) -> str:
    q = statistics.quantiles(samples, n=10)
    mid = statistics.median(samples)
    return f"median {mid * 1e6:.0f} µs (p10 {q[0] * 1e6:.0f}, p90 {q[-1] * 1e6:.0f})"


def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = NatsServer(Path(tmp) / "store")
        server.start()
        try:
            project = Path(tmp) / "p"
            project.mkdir()
            with Guard.open(project, "bench", nats=server.url, fingerprint=lambda: "fp") as g:
                after: list[float] = []
                for i in range(n):
                    v = g.before_call("read_file", {"path": f"f{i}.py"})
                    assert v.call is not None
                    t0 = time.perf_counter()
                    g.after_call(v.call, result=f"r{i}")
                    after.append(time.perf_counter() - t0)
                kernel = g._kernel
                raw: list[float] = []
                for i in range(n):
                    payload = {"id": f"nothing-{i}"}
                    t0 = time.perf_counter()
                    kernel.commit_op("guard.forget", payload, bump_generation=False)
                    raw.append(time.perf_counter() - t0)
            print(f"after_call on NATS, {n} calls: {_median_us(after[n // 10 :])}")
            print(f"commit_op guard.forget on NATS, {n} records: {_median_us(raw[n // 10 :])}")
        finally:
            server.stop()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
