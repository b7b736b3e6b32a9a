"""The journal's durable append of one record, alone, beside the raw write+fdatasync floors.

What a durable guarded call's journal record costs without the guard's CPU: a shared
`LocalJournal`'s one-call append (`_append_fast`, as a CRS's fused commit takes it, then
fdatasync) of the record a guarded call writes, on a preallocated segment
(`preallocate=True`, as `DefaultJournalConfig()`) and on a growing one, beside pwrite +
fdatasync of the same bytes into a `posix_fallocate`'d file and onto a growing one
(bench/test_bench_guard.py's floors). The four are run in one process, in batches of 50,
their order rotated every round, so a shared machine's load hits them alike.

Run: `PYTHONPATH=python python bench/journal_append.py [--rounds 20] [--dir DIR]`.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import crs
from test_bench_guard import floor_writer, step_record


def journal_append(path: Path, preallocate: bool) -> Callable[[], None]:
    cfg = dataclasses.replace(
        crs.DefaultJournalConfig(),
        path=str(path),
        session_id="bench",
        shared=True,
        preallocate=preallocate,
    )
    j = crs.LocalJournal(cfg)
    record = step_record()

    def append() -> None:
        if not j._append_fast(record, j.last_seq()):
            raise SystemExit("the one-call append stepped aside")

    return append


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    d = Path(tempfile.mkdtemp(dir=args.dir))
    fns = {
        "journal, preallocated": journal_append(d / "pre", True),
        "journal, growing": journal_append(d / "grow", False),
        "raw, preallocated": floor_writer(d / "raw_pre", preallocate=True)[0],
        "raw, growing": floor_writer(d / "raw_grow", preallocate=False)[0],
    }
    names = list(fns)
    times: dict[str, list[float]] = {k: [] for k in names}
    for fn in fns.values():
        for _ in range(20):
            fn()
    clock = time.perf_counter
    for r in range(args.rounds):
        for name in names[r % 4 :] + names[: r % 4]:
            fn = fns[name]
            for _ in range(50):
                t0 = clock()
                fn()
                times[name].append(clock() - t0)
    med = {k: statistics.median(v) * 1e6 for k, v in times.items()}
    for k in names:
        print(f"{k:24s} median {med[k]:7.1f} us")
    floor = med["raw, preallocated"]
    print(
        f"journal preallocated / raw preallocated {med['journal, preallocated'] / floor:.2f}x, "
        f"journal growing / raw preallocated {med['journal, growing'] / floor:.2f}x, "
        f"journal growing / raw growing {med['journal, growing'] / med['raw, growing']:.2f}x"
    )


if __name__ == "__main__":
    main()
