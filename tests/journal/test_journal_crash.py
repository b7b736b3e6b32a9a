"""Crash test: a forked child appends to a LocalJournal while the parent SIGKILLs it at random.

Every append the child acknowledged (on a pipe, after `append` returned) must be replayed,
nothing unacknowledged may show up half-written, and batches are all or nothing. Runs:
`CRS_CRASH_RUNS` (default 60; 200 or more for a release).
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from crs import JournalConfig, LocalJournal

RUNS = int(os.environ.get("CRS_CRASH_RUNS", "60"))
POLICIES = ["always", "batch", "none"]


def config(path: Path, policy: str) -> JournalConfig:
    return JournalConfig(
        path=str(path),
        session_id="crash",
        sync_policy=policy,
        segment_bytes=16 * 1024,
        preallocate=True,
        lock_timeout=5.0,
    )


def entry(run: int, k: int, first: int, n: int) -> dict[str, Any]:
    return {"run": run, "k": k, "batch": first, "n": n, "pad": "x" * ((k * 37) % 300)}


def child(path: Path, run: int, w: int) -> None:
    try:
        j = LocalJournal(config(path, POLICIES[run % 3]))
        rnd = random.Random(run)
        k = 0
        while True:
            n = rnd.choice([1, 1, 1, 2, 5, 9])
            batch = [entry(run, k + i, k, n) for i in range(n)]
            last = j.append(batch[0]) if n == 1 else j.append_batch(batch)
            k += n
            os.write(w, f"{last} {k}\n".encode())
    finally:
        os._exit(1)


def verify(path: Path, acked: dict[int, tuple[int, int]]) -> int:
    """Check the journal against the acknowledgements of every run so far."""
    with LocalJournal(config(path, "always")) as j:
        entries = j.replay()
    per_run: dict[int, list[dict[str, Any]]] = {}
    for e in entries:
        per_run.setdefault(e["run"], []).append(e)
    for run, es in per_run.items():
        for k, e in enumerate(es):
            assert e == entry(run, k, e["batch"], e["n"]), f"run {run}: entry {k} is wrong"
        last = es[-1]
        assert last["batch"] + last["n"] == len(es), f"run {run}: a batch was cut"
    for run, (seq, k) in acked.items():
        assert len(per_run.get(run, [])) >= k, f"run {run}: acknowledged entries lost"
        e = entries[seq - 1]
        assert (e["run"], e["k"]) == (run, k - 1), f"run {run}: seq {seq} holds another entry"
    return len(entries)


@pytest.mark.slow
def test_acknowledged_appends_survive_sigkill(tmp_path: Path) -> None:
    rnd = random.Random(1234)
    acked: dict[int, tuple[int, int]] = {}
    path = tmp_path
    kills_during_work = 0
    started = time.monotonic()
    window = 0.025
    for run in range(RUNS):
        if run % 20 == 0:  # a fresh journal now and then keeps verification cheap
            path = tmp_path / f"j{run // 20}"
            acked = {}
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            child(path, run, w)
        os.close(w)
        time.sleep(rnd.uniform(0.0, window))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        with os.fdopen(r, "rb") as f:
            lines = f.read().decode().split("\n")
        done = [tuple(map(int, ln.split())) for ln in lines if ln.count(" ") == 1]
        # A loaded machine starts children late: widen the window after a kill that came
        # before the first append, narrow it back after one that landed among the appends.
        window = max(0.025, window * 0.9) if done else min(1.0, window * 1.5)
        if done:
            kills_during_work += 1
            seq, k = done[-1]
            acked[run] = (seq, k)
        verify(path, acked)
    assert kills_during_work >= RUNS // 4, "the child was rarely killed while appending"
    elapsed = time.monotonic() - started
    print(f"crash runs: {RUNS}, killed while appending: {kills_during_work}, {elapsed:.1f} s")
    assert elapsed < 120 + RUNS * 0.5


RESTORE_RUNS = int(os.environ.get("CRS_RESTORE_CRASH_RUNS", "30"))


@pytest.mark.slow
def test_restore_killed_at_any_moment_leaves_old_or_new(tmp_path: Path) -> None:
    import io
    import shutil

    from crs import MemoryJournal

    old = [{"old": i} for i in range(300)]
    new = [{"new": i, "pad": "n" * 80} for i in range(2000)]
    template = tmp_path / "template"
    with LocalJournal(config(template, "none")) as j:
        j.append_batch(old)
    src = MemoryJournal()
    src.append_batch(new)
    buf = io.BytesIO()
    src.backup(buf)
    backup = tmp_path / "backup.bin"
    backup.write_bytes(buf.getvalue())
    calib = tmp_path / "calibrate"
    shutil.copytree(template, calib)
    t0 = time.monotonic()
    with LocalJournal(config(calib, "always")) as j, open(backup, "rb") as f:
        j.restore(f)
    took = time.monotonic() - t0
    rnd = random.Random(77)
    seen = {"old": 0, "new": 0}
    hi = took * 2  # kill delays adapt so that kills land before, during and after the swap
    for run in range(RESTORE_RUNS):
        path = tmp_path / f"r{run}"
        shutil.copytree(template, path)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                j = LocalJournal(config(path, "always"))
                os.write(w, b"open\n")
                with open(backup, "rb") as f:
                    j.restore(f)
                os.write(w, b"done\n")
                time.sleep(10)
            finally:
                os._exit(1)
        os.close(w)
        assert os.read(r, 5) == b"open\n"
        time.sleep(rnd.uniform(0.0, hi))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        acked = os.read(r, 5) == b"done\n"
        os.close(r)
        with LocalJournal(config(path, "always")) as j:
            got = j.replay()
        assert got in (old, new), "a restore killed midway left a mixture"
        assert got == new or not acked, "an acknowledged restore was lost"
        seen["old" if got == old else "new"] += 1
        hi *= 1.3 if got == old else 0.8
        shutil.rmtree(path)
    print(f"restore crash runs: {RESTORE_RUNS} (a restore takes {took:.3f} s), outcomes {seen}")
    assert seen["old"], f"no kill landed before the swap: {seen}"
    assert seen["new"], f"no kill landed after the swap: {seen}"
