"""Crash safety of a whole CRS: a child commits changes and saves backups, SIGKILLed at random.

The child opens the project (`open_project`: LocalJournal with fsync per append, backups
under a temporary data directory) and commits change after change, writing each change's
number to a pipe once `apply` / `add_clause` returned (acknowledged), and saving a backup
every few changes. After each kill the parent opens the project as the next session would
(latest backup + journal tail) and checks that every acknowledged change is there, that what
is there is exactly a prefix of the changes (the one in flight at most in addition, never a
part of one), and that the generation counts exactly those changes. The next child carries on
from there. `CRS_CRASH_RUNS` raises the number of runs (default 60; 200 or more for a release).
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

import crs
from crash_helpers import ACK, kill_at_random

RUNS = int(os.environ.get("CRS_CRASH_RUNS", "60"))
BACKUP_EVERY = 7


def change(c: crs.CRS, i: int) -> None:
    """Change number i: a proof entry, or (every 5th) a learned clause, each one generation."""
    if i % 5 == 4:
        c.add_clause(
            crs.Clause(
                id=f"c{i}",
                literals=(crs.Literal(variable=f"tool:t{i}", negated=True),),
                source=crs.SignalSource.HARD,
            )
        )
    else:
        c.apply(crs.ProofDelta(crs.SignalSource.HARD, {f"n{i}": crs.ProofNumber(proof=i)}))


def present(c: crs.CRS, i: int) -> bool:
    if i % 5 == 4:
        return f"c{i}" in c.snapshot().constraint_index().all_clauses()
    node = c.get_proof_status(f"n{i}")
    if node is not None:
        assert node.proof == i, "a change came back with other content"
    return node is not None


def child(project: Path, home: Path, ack_fd: int) -> None:  # pragma: no cover - child process
    with crs.open_project(project, home) as c:
        i = c.generation()
        while True:
            change(c, i)
            os.write(ack_fd, ACK.pack(i))
            i += 1
            if i % BACKUP_EVERY == 0:
                c.save_project_backup()


def check(project: Path, home: Path, acked: int) -> int:
    """Open the project as the next session would; return how many changes it holds."""
    with crs.open_project(project, home) as c:
        n = c.generation()
        assert n >= acked, f"acknowledged change {acked - 1} lost (state holds {n})"
        assert n <= acked + 1, f"state holds {n} changes, only {acked} were acknowledged"
        for i in range(max(0, n - 40), n + 3):  # the recent ones, and none after them
            assert present(c, i) == (i < n), (i, n)
        return n


@pytest.mark.slow
def test_random_sigkill_of_a_crs_keeps_every_acknowledged_change(tmp_path: Path) -> None:
    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir()
    t0 = time.perf_counter()
    with crs.open_project(project, home) as c:  # calibrate: the cost of a change here
        for i in range(BACKUP_EVERY):
            change(c, i)
        c.save_project_backup()
    window = base = 3.0 * (time.perf_counter() - t0)
    startup = 0.0  # how long opening the project takes (measured by `check`), grows a little
    held = BACKUP_EVERY
    rng = random.Random(20261130)
    deadline = time.monotonic() + max(240.0, 1.2 * RUNS)  # a bound, not a speed test
    killed_mid_run = 0
    for run in range(RUNS):
        assert time.monotonic() < deadline, f"crash test too slow at run {run}"
        acks = kill_at_random(lambda w: child(project, home, w), rng, 1.2 * startup + window)
        if acks:
            assert acks == list(range(held, acks[-1] + 1))
            killed_mid_run += 1
            window = max(base, 0.97 * window)
        else:  # killed during start-up: on a loaded machine the child starts slower
            window *= 1.3
        acked = acks[-1] + 1 if acks else held
        t1 = time.perf_counter()
        held = check(project, home, acked)
        startup = 0.8 * startup + 0.2 * (time.perf_counter() - t1)
    with crs.open_project(project, home) as c:
        clauses = [i for i in range(held) if i % 5 == 4]
        kept = set(clauses[-crs.DEFAULT_CLAUSE_CONFIG.max_clauses :])  # LRU keeps the newest
        assert all(present(c, i) for i in range(held) if i % 5 != 4 or i in kept)
    # The kills must have landed while changes were committed, not only during start-up.
    assert held > RUNS, held
    print(f"{RUNS} kills, {held} changes held, {killed_mid_run} runs acknowledged changes")
