"""Opening a preallocated journal whose last (large) record is a torn write: the recovery's
one-byte CRC check in Rust (`_core.crc32c_one_byte_error`) against its Python reference.

A preallocating `LocalJournal` gets `--records` small records and then one of `--mib` MiB;
a 512-byte sector in the middle of that last record is then zeroed (a torn write: the lost
sectors of an unacknowledged write read as zero). Opening it runs the recovery of
docs/journal-format.md, "Preallocated segments" (c): the payload fails its CRC, a sector
chunk is zero, no change of one byte explains the mismatch (the O(n) check), so the record
is cut as torn. Each round restores the damaged file and times one open (with replay),
alternating the Rust check and the Python one (`_local._one_byte_error` swapped).

Run: `PYTHONPATH=python python bench/prealloc_recovery.py --mib 4 --rounds 10`.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import time
from pathlib import Path

import crs
from crs._journal import _local


def cfg(path: Path) -> crs.JournalConfig:
    return crs.JournalConfig(
        path=str(path), session_id="b", sync_policy="none", segment_bytes=1 << 28, preallocate=True
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=float, default=4.0)
    ap.add_argument("--records", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    logging.disable(logging.WARNING)  # the recovery's warning, once a round
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp)
        with crs.LocalJournal(cfg(path)) as j:
            for i in range(args.records):
                j.append({"i": i, "pad": "p" * 60})
            start = j._end
            j.append({"blob": "x" * int(args.mib * (1 << 20))})
            end = j._end
        (seg,) = path.glob("*.wal")
        data = bytearray(seg.read_bytes())
        mid = (start + end) // 2 // 512 * 512
        data[mid : mid + 512] = bytes(512)
        damaged = bytes(data)
        impls = {"rust": _core_check, "python": _local._one_byte_error_reference}
        times: dict[str, list[float]] = {name: [] for name in impls}
        for r in range(args.rounds):
            for name in impls if r % 2 == 0 else list(impls)[::-1]:
                seg.write_bytes(damaged)
                _local._one_byte_error = impls[name]
                t0 = time.perf_counter()
                with crs.LocalJournal(cfg(path)) as j:
                    n = len(j.replay())
                    torn = j.stats().torn_bytes
                times[name].append(time.perf_counter() - t0)
                if n != args.records or torn != end - start:
                    raise SystemExit(f"recovered {n} records, cut {torn} bytes")
        _local._one_byte_error = _core_check
    print(f"last record {end - start} bytes after {args.records} records; torn bytes cut: {torn}")
    for name, v in times.items():
        low, mid = min(v) * 1e3, statistics.median(v) * 1e3
        print(f"{name}: open with recovery {low:.1f} / {mid:.1f} ms (min / median)")
    ratio = statistics.median(times["python"]) / statistics.median(times["rust"])
    print(f"python / rust (medians): {ratio:.1f}x")


_core_check = _local._one_byte_error

if __name__ == "__main__":
    main()
