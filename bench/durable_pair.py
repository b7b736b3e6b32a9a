"""The durable guarded call pair beside raw write+fdatasync floors, interleaved (issue 12).

One worker process per source tree (its `python/` first on sys.path) is fed batches in
turn, the order rotated every round, so the load of a shared machine hits every variant
alike. Each worker measures, per call (perf_counter around it):

- `pair`: `Guard.open(...)` then `before_call` + `after_call` (one journal record, one
  fdatasync), as bench/test_bench_guard.py::test_guard_pair_durable does;
- `grow`: pwrite + fdatasync of the same record bytes appended to a file that grows (the
  journal's segments grow: they are not zero-filled, issue 11);
- `keep`: the same appended to a file whose blocks are allocated ahead (1 MiB at a time)
  with `fallocate(FALLOC_FL_KEEP_SIZE)`: it still grows (its size is the end of the data),
  but no append allocates a block (Linux; through ctypes, in this benchmark only);
- `prealloc`: the same into `posix_fallocate`'d space (the issue's floor; the file's size
  does not change, so most fdatasyncs carry no metadata);
- `spun`: `prealloc` with the sync the journal does for a guard's record: handed to the
  worker thread (`_core.sync_start`) and waited for spinning (`_core.sync_wait`, up to
  1 ms), so the writer's core stays warm (the best a writer of this record can do here).

Prints the median and the quartiles of every (tree, variant) over all calls, and the
pair's ratio to each floor measured by the same worker.

Run: `python bench/durable_pair.py --rounds 20 --batch 100 <tree> [<tree> ...]` (a tree is a
checkout holding `python/crs` with the built extension, e.g. /work/main); `--nosync` makes
every fdatasync a no-op, leaving the CPU cost (Python and the other system calls); `--gap
0.0002` sleeps that long before each call (untimed), as a sync would, so the CPU cost is
measured with the caches as cold as after a real fdatasync on a busy machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VARIANTS = ("pair", "grow", "keep", "prealloc", "spun")


def _worker(tree: str, workdir: str, nosync: bool, gap: float) -> None:
    if nosync:  # the CPU side only: every fdatasync (the pair's and the floors') is a no-op
        os.fdatasync = lambda fd: None
    sys.path[:0] = [f"{tree}/python", os.path.dirname(os.path.abspath(__file__))]
    import crs
    from crs import _core
    from crs._journal import _local
    from crs.guard import Guard
    from test_bench_guard import durable_pair, floor_writer

    if not (crs.__file__ or "").startswith(tree):
        raise SystemExit(f"imported {crs.__file__}, not the crs of {tree}")
    tmp = Path(tempfile.mkdtemp(dir=workdir))
    guard = Guard.open(tmp / "project", "bench", home=tmp / "home", fingerprint=lambda: "f")
    pair = durable_pair(guard)
    grow, grow_fd = floor_writer(tmp / "grow", preallocate=False)
    prealloc, prealloc_fd = floor_writer(tmp / "prealloc", preallocate=True)
    if nosync:  # (and no sync on the journal's worker thread: the CPU of the inline path)
        _local._sync_start = None

    def spun_sync(fd: int) -> None:
        ticket = _core.sync_start(fd) if not nosync else 0
        if not ticket:
            os.fdatasync(fd)
        elif _core.sync_wait(ticket, 1000):
            raise OSError("sync failed")

    spun, spun_fd = floor_writer(tmp / "spun", preallocate=True, sync=spun_sync)
    keep_path = tmp / "keep"
    keep_path.touch()
    keep_fd = os.open(keep_path, os.O_RDWR)
    keep_ahead(keep_fd, 0)
    keep_raw, keep_raw_fd = floor_writer(keep_path, preallocate=False)
    os.close(keep_fd)
    keep_end = [1 << 20]

    def keep() -> None:
        keep_raw()
        if os.fstat(keep_raw_fd).st_size + 4096 > keep_end[0]:
            keep_ahead(keep_raw_fd, keep_end[0])
            keep_end[0] += 1 << 20

    fns = {"pair": pair, "grow": grow, "keep": keep, "prealloc": prealloc, "spun": spun}
    for fn in fns.values():
        for _ in range(10):
            fn()
    clock = time.perf_counter
    for line in sys.stdin:
        name, n = line.split()
        fn = fns[name]
        out = []
        for _ in range(int(n)):
            if gap:
                time.sleep(gap)  # as long as a sync would sleep: the caches go cold
            t0 = clock()
            fn()
            out.append(clock() - t0)
        print(json.dumps(out), flush=True)
    guard.close()
    stats = getattr(_core, "sync_stats", None)
    if stats is not None:  # (how the pair's syncs went: on the worker, taken back, parked)
        handed, retracted, parked = stats()
        print(
            f"{tree}: {handed} syncs handed to the worker, {retracted} taken back, "
            f"{parked} waits parked",
            file=sys.stderr,
        )
    os.close(grow_fd)
    os.close(prealloc_fd)
    os.close(spun_fd)
    os.close(keep_raw_fd)


def keep_ahead(fd: int, offset: int) -> None:
    """Allocate 1 MiB of `fd` from `offset` without changing its size (Linux)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
    if libc.fallocate(fd, 1, offset, 1 << 20) != 0:  # 1 = FALLOC_FL_KEEP_SIZE
        raise OSError(ctypes.get_errno(), "fallocate(FALLOC_FL_KEEP_SIZE)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--dir", default=None, help="where the journals go (default: a temp dir)")
    ap.add_argument("--nosync", action="store_true", help="fdatasync does nothing (CPU cost)")
    ap.add_argument("--gap", type=float, default=0.0, help="sleep (s) before each call, untimed")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        _worker(args.trees[0], args.dir, args.nosync, args.gap)
        return
    workdir = tempfile.mkdtemp(dir=args.dir)
    procs = {
        tree: subprocess.Popen(
            [sys.executable, __file__, "--worker", "--dir", workdir, tree]
            + (["--nosync"] if args.nosync else [])
            + ["--gap", str(args.gap)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        )
        for tree in args.trees
    }
    jobs = [(tree, v) for tree in args.trees for v in VARIANTS]
    times: dict[tuple[str, str], list[float]] = {job: [] for job in jobs}
    for r in range(args.rounds):
        shift = r % len(jobs)
        for tree, variant in jobs[shift:] + jobs[:shift]:
            p = procs[tree]
            assert p.stdin is not None
            assert p.stdout is not None
            p.stdin.write(f"{variant} {args.batch}\n")
            p.stdin.flush()
            times[tree, variant] += json.loads(p.stdout.readline())
    for p in procs.values():
        assert p.stdin is not None
        p.stdin.close()
        p.wait(timeout=60)
    print(f"{args.rounds} rounds x {args.batch} calls per variant, interleaved; us per call")
    for tree in args.trees:
        med = {}
        for v in VARIANTS:
            xs = sorted(times[tree, v])
            q1, m, q3 = statistics.quantiles(xs, n=4)
            med[v] = m
            print(f"{tree:40s} {v:9s} median {m * 1e6:7.1f}  iqr {(q3 - q1) * 1e6:6.1f}")
        print(
            f"{tree:40s} pair/grow {med['pair'] / med['grow']:.2f}x  "
            f"pair/keep {med['pair'] / med['keep']:.2f}x  "
            f"pair/prealloc {med['pair'] / med['prealloc']:.2f}x  "
            f"pair/spun {med['pair'] / med['spun']:.2f}x"
        )


if __name__ == "__main__":
    main()
