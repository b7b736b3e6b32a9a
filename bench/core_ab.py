"""Two builds of `crs._core` in one process, a function of each timed in alternation.

For a change to a Rust function whose Python caller is unchanged: both libraries are loaded
(under the module's own name, from their files), and each round times the old and the new
one on the same inputs, the order swapped every round, so load on the machine hits both
alike. Workloads (`--only` picks some):

- `mask`: `mask_volatile` over the loop benchmark's results (bench/loops/trajectories.jsonl:
  each ASCII text result, stripped, and the JSON of each structured one);
- `mask_code`, `mask_prose`, `mask_log`: one longer text (880 bytes of code; prose; a log
  with GUIDs, nonces and times: the hex-id scan).

Run: `python bench/core_ab.py --rounds 200 <before.so> <after.so>`; prints µs a pass,
min / median, and the after / before ratio of the medians.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import os
import statistics
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))

CODE = (
    "def handler(event, context):\n"
    "    records = event.get('Records', [])\n"
    "    for r in records:\n"
    "        body = json.loads(r['body'])\n"
    "        if body.get('type') == 'order':\n"
    "            process_order(body['order_id'], body['items'])\n"
    "        elif body.get('type') == 'refund':\n"
    "            process_refund(body['refund_id'], amount=body['amount'])\n"
    "    return {'statusCode': 200, 'body': json.dumps({'ok': True, 'n': len(records)})}\n"
) * 2
PROSE = (
    "The build finished with 3 warnings. The linker reported that the symbol table was "
    "larger than expected, and the test runner skipped 12 cases marked as flaky on this "
    "platform. Please review the summary below before merging the branch into main. "
) * 3
LOG = (
    "2026-12-01T10:11:12.345Z INFO request 123e4567-e89b-12d3-a456-426614174000 done in 12ms\n"
    "worker batch-9f3a2c1d0e picked job 42 (nonce=6941afa76632fc57) at 10:11:13\n"
) * 4


def load(path: str) -> ModuleType:
    loader = importlib.machinery.ExtensionFileLoader("_core", path)
    spec = importlib.util.spec_from_file_location("_core", path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def result_texts() -> list[str]:
    out: list[str] = []
    with open(os.path.join(HERE, "loops", "trajectories.jsonl"), encoding="utf-8") as f:
        for line in f:
            for e in json.loads(line).get("events", []):
                r = e.get("result") if e.get("type") == "call" else None
                if r is None:
                    continue
                text = r.strip() if type(r) is str else json.dumps(r, sort_keys=True)
                if text.isascii():
                    out.append(text)
    return out


def workloads(core: ModuleType) -> dict[str, tuple[Callable[[], Any], int]]:
    mask = core.mask_volatile
    texts = result_texts()

    def each(items: list[str]) -> Callable[[], None]:
        def run() -> None:
            for x in items:
                mask(x)

        return run

    return {
        "mask": (each(texts), 5),
        "mask_code": (each([CODE]), 2_000),
        "mask_prose": (each([PROSE]), 2_000),
        "mask_log": (each([LOG]), 2_000),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--only", action="append")
    ap.add_argument("before")
    ap.add_argument("after")
    args = ap.parse_args()
    cores = [load(args.before), load(args.after)]
    work = [workloads(c) for c in cores]
    names = args.only or list(work[0])
    for x in [*result_texts(), CODE, PROSE, LOG]:
        if cores[0].mask_volatile(x) != cores[1].mask_volatile(x):
            raise SystemExit(f"the builds disagree on {x!r}")
    times: dict[str, list[list[float]]] = {n: [[], []] for n in names}
    for r in range(args.rounds):
        for name in names:
            for side in (0, 1) if r % 2 == 0 else (1, 0):
                fn, n = work[side][name]
                t0 = time.perf_counter()
                for _ in range(n):
                    fn()
                times[name][side].append((time.perf_counter() - t0) / n * 1e6)
    for name in names:
        a, b = times[name]
        ma, mb = statistics.median(a), statistics.median(b)
        print(
            f"{name}: before {min(a):.2f} / {ma:.2f}, after {min(b):.2f} / {mb:.2f} µs "
            f"(min / median); after / before {mb / ma:.3f}"
        )


if __name__ == "__main__":
    main()
