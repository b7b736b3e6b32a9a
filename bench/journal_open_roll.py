"""Open cost and segment-rollover append latency of the local journal (issue 11, item 7).

Usage: `PYTHONPATH=python python bench/journal_open_roll.py [DIR]` (DIR defaults to a fresh
temporary directory; use a real disk, not tmpfs, for fsync figures). Prints, for the project
defaults (`DefaultJournalConfig()`: fsync per append, 16 MiB segments):

- bytes on disk of a new project after 5 changes, and the median time of `open_project` on it;
- the median append, and the appends that start a new segment (1 MiB segments, 1 KiB records).
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

import crs


def _disk(path: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file())


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
    with crs.LocalJournal(cfg) as j:
        entry = {"pad": "r" * 1000}
        for _ in range(30000):
            before = j.stats().segments
            t0 = time.perf_counter()
            j.append(entry)
            d = time.perf_counter() - t0
            (rolls if j.stats().segments != before else plain).append(d)
    print(
        f"append median {statistics.median(plain) * 1e3:.3f} ms; appends starting a segment: "
        f"median {statistics.median(rolls) * 1e3:.2f} ms, max {max(rolls) * 1e3:.2f} ms "
        f"({len(rolls)} rolls)"
    )


if __name__ == "__main__":
    main()
