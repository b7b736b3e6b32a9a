"""Speed of `crs.Guard` (issue 12): a call pair (`before_call` + `after_call`) in memory at
10,000 steps of history, and durable (one journal record, one fsync) beside a raw
pwrite + fdatasync of the same record bytes to a preallocated file (the floor).

Targets: in memory <= 15 us median; durable <= 1.3x the floor.

Run: `.venv/bin/python -m pytest bench/test_bench_guard.py --benchmark-enable
--benchmark-columns=median,iqr,rounds --benchmark-sort=name`. These run one after the other,
so on a shared disk the floors and the pair meet different loads: bench/durable_pair.py
measures the durable pair and the floors interleaved (and before/after, two trees).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crs._state._codec import DeltaCodec
from crs.guard import Guard

HISTORY = 10_000


def history(benchmark: Any) -> int:
    return HISTORY if not benchmark.disabled else 200


def warmed(n: int, guard: Guard | None = None) -> Guard:
    """A guard with `n` steps of a coding session behind it: reads, greps, edits, tests."""
    g = Guard() if guard is None else guard
    for i in range(n):
        kind = i % 4
        if kind == 0:
            v = g.before_call("read_file", {"path": f"src/pkg/mod_{i}.py"})
            res: Any = f"def f_{i}():\n    return {i}\n"
        elif kind == 1:
            v = g.before_call("grep", {"pattern": f"f_{i}", "path": "src"})
            res = f"src/pkg/mod_{i}.py:1:def f_{i}():"
        elif kind == 2:
            v = g.before_call("edit", {"path": f"src/pkg/mod_{i}.py", "old": "x", "new": f"y{i}"})
            res = "ok"
        else:
            v = g.before_call("bash", {"command": f"pytest -q tests/test_{i}.py"})
            res = f"{i % 7} passed"
        assert v.call is not None
        g.after_call(v.call, result=res)
    return g


def test_guard_pair_in_memory_10k_history(benchmark: Any) -> None:
    g = warmed(history(benchmark))
    counter = itertools.count()

    def pair() -> None:
        i = next(counter)
        v = g.before_call("read_file", {"path": f"src/other/file_{i}.py"})
        g.after_call(v.call, result=f"contents of file {i}")  # type: ignore[arg-type]

    benchmark(pair)
    assert g.status()["calls"] >= history(benchmark)


def test_guard_pair_in_memory_repeated_read(benchmark: Any) -> None:
    # The same read again and again, nudged then refused (the refusal path is the cost).
    g = warmed(history(benchmark))

    def pair() -> None:
        v = g.before_call("read_file", {"path": "src/pkg/mod_0.py"})
        if v.allowed:
            g.after_call(v.call, result="def f_0():\n    return 0\n")  # type: ignore[arg-type]

    benchmark(pair)


def durable_pair(g: Guard) -> Callable[[], None]:
    """One guarded call (a read of a new file each time): `before_call` + `after_call`."""
    counter = itertools.count()

    def pair() -> None:
        i = next(counter)
        v = g.before_call("read_file", {"path": f"src/file_{i}.py"})
        g.after_call(v.call, result=f"contents of file {i}")  # type: ignore[arg-type]

    return pair


def test_guard_pair_durable(benchmark: Any, tmp_path: Path) -> None:
    g = Guard.open(tmp_path / "project", "bench", home=tmp_path / "home", fingerprint=lambda: "f")
    with g:
        benchmark.pedantic(
            durable_pair(g), rounds=300 if not benchmark.disabled else 3, warmup_rounds=5
        )


def step_record() -> bytes:
    """The bytes of the journal record a guarded call writes (a typical `guard.step`)."""
    return DeltaCodec().encode(
        {
            "op": "guard.step",
            "payload": {
                "s": "bench",
                "n": 12345,
                "t": "read_file",
                "g": "0" * 32,
                "r": "0" * 16,
                "k": 0,
                "ts": 1_800_000_000_000,
            },
            "bump_generation": False,
        }
    )


def floor_writer(
    path: Path, *, preallocate: bool, sync: Callable[[int], None] | None = None
) -> tuple[Callable[[], None], int]:
    """(write, fd): `write()` does a pwrite + fdatasync (or `sync(fd)`) of `step_record()`
    (plus the journal's ~24-byte framing) after the previous one, into a preallocated file
    or one that grows; the caller closes `fd`."""
    data = step_record() + b"\0" * 24
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if preallocate:
            os.posix_fallocate(fd, 0, 64 << 20)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        raise
    offset = itertools.count(0, len(data))
    flush = sync if sync is not None else os.fdatasync

    def write() -> None:
        os.pwrite(fd, data, next(offset))
        flush(fd)

    return write, fd


def sync_floor(benchmark: Any, path: Path, *, preallocate: bool) -> None:
    """The floor: `floor_writer`'s record, written and synced one after the other."""
    write, fd = floor_writer(path, preallocate=preallocate)
    try:
        benchmark.pedantic(write, rounds=300 if not benchmark.disabled else 3, warmup_rounds=5)
    finally:
        os.close(fd)


def test_raw_pwrite_fdatasync_floor(benchmark: Any, tmp_path: Path) -> None:
    # The same record bytes a guarded call journals, written and synced with nothing else,
    # into preallocated space (the floor).
    sync_floor(benchmark, tmp_path / "floor", preallocate=True)


def test_raw_append_fdatasync_floor(benchmark: Any, tmp_path: Path) -> None:
    # Appended to a file that grows, as the journal's segments do (they are not
    # preallocated: a log whose tail is zero fill cannot tell a torn final write from a bit
    # flip in an acknowledged record, issue 11), then synced: the floor of a durable append
    # on this file system, whose fdatasync also carries the file's new size.
    sync_floor(benchmark, tmp_path / "floor", preallocate=False)


def test_reference_record_step_in_memory(benchmark: Any) -> None:
    # The engine's own step record (about 20 us on a quiet machine, issue 12): run beside
    # the guard so a loaded machine's figures can be compared.
    import crs

    state = crs.CRS()
    step = crs.StepRecord(
        session_id="s",
        actor=crs.Actor.MAIN_AGENT,
        decision=crs.Decision.EXECUTE_TOOL,
        tool="read_file",
        outcome=crs.Outcome.SUCCESS,
    )
    for _ in range(history(benchmark)):
        state.record_step(step)
    benchmark(state.record_step, step)
