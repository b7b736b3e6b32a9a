"""Open cost and segment-rollover append latency of the local journal (issue 11, item 7).

Usage: `PYTHONPATH=python python bench/journal_open_roll.py [DIR]` (DIR defaults to a fresh
temporary directory; use a real disk, not tmpfs, for fsync figures). Prints, for the project
defaults (`DefaultJournalConfig()`: fsync per append, 16 MiB segments):

- bytes on disk of a new project after 5 changes, and the median time of `open_project` on it;
- the median append, and the appends that start a new segment (1 MiB segments, 1 KiB records),
  with the syncs (`os.fsync`/`os.fdatasync` calls) each made on the appending thread; syncs
  made by the journal's background thread (which creates the next segment ahead and seals
  the old one) are counted apart.
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import crs


def _disk(path: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file())


def _count_syncs() -> Counter[int]:
    """Count os.fsync/os.fdatasync calls per thread (by thread id) from now on."""
    calls: Counter[int] = Counter()

    def wrap(real: Callable[[int], None]) -> Callable[[int], None]:
        def counted(fd: int) -> None:
            calls[threading.get_ident()] += 1
            real(fd)

        return counted

    os.fsync = wrap(os.fsync)  # type: ignore[assignment]
    os.fdatasync = wrap(os.fdatasync)  # type: ignore[assignment]
    return calls


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="jbench"))
    proj, home = root / "proj", root / "home"
    proj.mkdir(parents=True, exist_ok=True)
    with crs.open_project(proj, home) as c:
        for i in range(5):
            c.apply(crs.ProofDelta(1, {f"n{i}": crs.ProofNumber(proof=i)}))
    opens = []
    for _ in range(30):
        t0 = time.perf_counter()
        with crs.open_project(proj, home):
            pass
        opens.append(time.perf_counter() - t0)
    print(f"project on disk after 5 changes: {_disk(home) / 1024:.0f} KiB")
    print(f"open_project median: {statistics.median(opens) * 1e3:.2f} ms (30 opens)")
    cfg = dataclasses.replace(
        crs.DefaultJournalConfig(), path=str(root / "j"), session_id="b", segment_bytes=1 << 20
    )
    plain, rolls = [], []
    calls, me = _count_syncs(), threading.get_ident()
    roll_syncs: Counter[int] = Counter()
    with crs.LocalJournal(cfg) as j:
        entry = {"pad": "r" * 1000}
        for _ in range(30000):
            before, synced = j.stats().segments, calls[me]
            t0 = time.perf_counter()
            j.append(entry)
            d = time.perf_counter() - t0
            if j.stats().segments != before:
                rolls.append(d)
                roll_syncs[calls[me] - synced] += 1
            else:
                plain.append(d)
    background = sum(n for t, n in calls.items() if t != me)
    print(
        f"append median {statistics.median(plain) * 1e3:.3f} ms; appends starting a segment: "
        f"median {statistics.median(rolls) * 1e3:.2f} ms, max {max(rolls) * 1e3:.2f} ms "
        f"({len(rolls)} rolls)"
    )
    print(
        "syncs on the appending thread per rolling append: "
        + ", ".join(f"{k} ({n}x)" for k, n in sorted(roll_syncs.items()))
        + f"; syncs on background threads: {background}"
    )


if __name__ == "__main__":
    main()
