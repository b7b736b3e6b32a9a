"""Crash safety of backups: a child saves in a loop and is SIGKILLed at random moments.

After every kill the parent loads the project's backup: it must load and verify (the current
or the previous pair), hold exactly an image the child wrote, and be no older than the last
save the child saw acknowledged. `CRS_CRASH_RUNS` raises the number of runs (default 60;
200 or more for a release).
A second test stops the child exactly before each file-system step of one save.
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import crs
from crash_helpers import ACK, fork_child, read_acks
from crs import PersistenceManager
from persist_state import ProofState

KEY = "c0ffee00c0ffee00"
RUNS = int(os.environ.get("CRS_CRASH_RUNS", "60"))


def image_for(seq: int) -> ProofState:
    """The state the child saves as number `seq` (sizes vary from ~8 KB to ~200 KB)."""
    state = ProofState.generate(100 + (seq * 7919) % 3000, seed=seq)
    state.gen = state.position = seq
    return state


def manager(home: Path) -> PersistenceManager:
    cfg = replace(crs.DefaultPersistenceConfig(), base_dir=str(home), max_backup_retries=0)
    return PersistenceManager(cfg)


def check_loads(pm: PersistenceManager, last_acked: int, started: int) -> int:
    loaded = pm.load_backup(KEY)
    seq = loaded.metadata.generation
    assert last_acked <= seq <= started, (last_acked, seq, started)
    assert loaded.image == image_for(seq).export_image()
    target = ProofState()
    pm.load_backup(KEY, target)
    assert target.digest() == image_for(seq).digest()
    return seq


@pytest.mark.slow
def test_random_sigkill_during_saves(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pm = manager(home)
    # Spread the kills over ~2.5 saves whatever this machine's speed (fsync cost varies a lot).
    t0 = time.perf_counter()
    for seq in (1, 2, 3):
        pm.save_backup(KEY, image_for(seq))
    window = base_window = 2.5 * (time.perf_counter() - t0) / 3
    last_acked = 3
    rng = random.Random(20261130)
    fallbacks = 0
    deadline = time.monotonic() + max(120.0, 0.5 * RUNS)
    for run in range(RUNS):
        assert time.monotonic() < deadline, f"crash test too slow at run {run}"
        first = last_acked + 1

        def loop(ack_fd: int, first: int = first) -> None:
            child_pm = manager(home)
            seq = first
            while True:
                child_pm.save_backup(KEY, image_for(seq))
                os.write(ack_fd, ACK.pack(seq))
                seq += 1

        pid, r = fork_child(loop)
        time.sleep(rng.uniform(0.0, window))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status), "the child stopped before it was killed"
        acks = read_acks(r)
        if acks:
            assert acks == list(range(first, acks[-1] + 1))
            last_acked = acks[-1]
            window = max(base_window, window * 0.9)
        else:
            # Killed before its first ack (a loaded machine starts and saves slowly): widen
            # the window so later runs still land inside saves and rotations.
            window = min(window * 1.5, 2.0)
        started = last_acked + 1
        current_ok = _pair_verifies(pm, pm.backup_path(KEY), pm.metadata_path(KEY))
        fallbacks += not current_ok
        last_acked = max(last_acked, check_loads(pm, last_acked, started))
    # The runs must have exercised saves and rotations, not only process start-up. The bound
    # is loose on purpose: under load a kill often lands before the child's first ack.
    assert last_acked > 3 + RUNS // 20, last_acked
    print(f"{RUNS} kills, {last_acked} saves acked, {fallbacks} loads used the previous pair")


def _pair_verifies(pm: PersistenceManager, backup: Path, meta: Path) -> bool:
    return pm._pair_is_whole(backup, meta)


# Every call that changes files on disk during a save.
_FS_OPS = ("write", "fsync", "rename", "link", "unlink", "open")


def _count_ops(home: Path, seq: int) -> int:
    counts = [0]
    originals: dict[str, Any] = {name: getattr(os, name) for name in _FS_OPS}

    def counting(name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            counts[0] += 1
            return originals[name](*args, **kwargs)

        return call

    try:
        for name in _FS_OPS:
            setattr(os, name, counting(name))
        manager(home).save_backup(KEY, image_for(seq))
    finally:
        for name, fn in originals.items():
            setattr(os, name, fn)
    return counts[0]


def test_crash_before_every_step_of_a_save(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pm = manager(home)
    pm.save_backup(KEY, image_for(1))
    pm.save_backup(KEY, image_for(2))
    probe = tmp_path / "probe"
    manager(probe).save_backup(KEY, image_for(1))
    manager(probe).save_backup(KEY, image_for(2))
    steps = _count_ops(probe, 3)
    assert steps >= 10
    last = 2
    for step in range(1, steps + 1):
        seq = last + 1

        def crash_at(ack_fd: int, step: int = step, seq: int = seq) -> None:
            count = [0]
            for name in _FS_OPS:
                original = getattr(os, name)

                def call(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
                    count[0] += 1
                    if count[0] == step:
                        os.kill(os.getpid(), signal.SIGKILL)
                    return _original(*args, **kwargs)

                setattr(os, name, call)
            manager(home).save_backup(KEY, image_for(seq))

        pid, r = fork_child(crash_at)
        _, status = os.waitpid(pid, 0)
        read_acks(r)
        assert os.WIFSIGNALED(status), f"step {step}: the child finished without crashing"
        loaded_seq = check_loads(pm, last, seq)
        last = loaded_seq
        # The next save from a clean process must succeed whatever the crash left behind.
        pm.save_backup(KEY, image_for(last + 1))
        last = check_loads(pm, last + 1, last + 1)
