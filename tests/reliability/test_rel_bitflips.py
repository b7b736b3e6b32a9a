"""Issue 11, item 10: every single-bit flip and every zeroing of the header and the payload of
the first, a middle and the last record of each record kind, and of the first, a middle and
the last segment header, is detected or recovered, never silently dropped.

Strict open (the default): a damaged journal raises `JournalCorruptedError` or
`JournalSequenceGapError`, or replays every entry unchanged. With `skip_corrupted_deltas`
(every `SKIP_EVERY`-th case, all zeroings): every sequence number comes back either as its
original entry or as a skipped item; none is silently missing, none is wrong.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from rel_common import jconfig

import crs
from crs._journal import _local

SEG_HEADER, REC_HEADER = 32, 24
SKIP_EVERY = int(os.environ.get("CRS_REL_SKIP_EVERY", "5"))
COUNTS: Counter[str] = Counter()


def _entries(kind: str) -> list[list[Any]]:
    """Append units (a list of entries each: one record, or one batch) of one record kind."""
    if kind == "proof":  # binary ProofDelta payloads ('P')
        return [
            [crs.ProofDelta(1, {f"n{i}": crs.ProofNumber(proof=i, updated_at=7)})] for i in range(9)
        ]
    if kind == "json_delta":  # JSON delta payloads ('J')
        return [[crs.DependencyDelta(1, add_edges=[(f"a{i}", f"b{i}")])] for i in range(9)]
    if kind == "op":  # op records of the CRS ('J')
        return [
            [
                {
                    "op": "record_query",
                    "payload": {"session_id": "s", "key": f"k{i}"},
                    "bump_generation": False,
                }
            ]
            for i in range(9)
        ]
    assert kind == "batch"  # records of atomic batches (batch flags)
    return [
        [crs.ProofDelta(1, {f"b{i}.{k}": crs.ProofNumber(proof=k)}) for k in range(3)]
        for i in range(3)
    ]


def _build(path: Path, units: list[list[Any]], **kw: Any) -> list[Any]:
    flat: list[Any] = []
    with crs.LocalJournal(jconfig(path, **kw), crs.DeltaCodec()) as j:
        for unit in units:
            if len(unit) == 1:
                j.append(unit[0])
            else:
                j.append_batch(unit)
            flat += unit
    return flat


def _records(data: bytes) -> list[tuple[int, int]]:
    """(offset, payload length) of each record of a clean segment (up to a zero tail)."""
    out, pos = [], SEG_HEADER
    while pos < len(data) and data[pos : pos + REC_HEADER].strip(b"\0"):
        length = int.from_bytes(data[pos + 4 : pos + 8], "little")
        out.append((pos, length))
        pos += REC_HEADER + length
    return out


def _outcome(path: Path, want: list[Any], skip: bool, **kw: Any) -> str:
    cfg = jconfig(path, skip_corrupted_deltas=skip, **kw)
    try:
        with crs.LocalJournal(cfg, crs.DeltaCodec()) as j:
            if not skip:
                got = j.replay()
                assert got == want, "damage went unnoticed: the replay differs"
                return "recovered"
            items = list(j.replay_stream())
    except (crs.JournalCorruptedError, crs.JournalSequenceGapError):
        return "detected"
    seen: dict[int, str] = {}
    for it in items:
        if it.err is not None and not it.skipped:
            return "detected"  # an unskipped error ends the stream: reported, not dropped
        if it.skipped:
            seen[it.seq_num] = "skipped"
        else:
            assert it.delta == want[it.seq_num - 1], "skip mode returned a wrong entry"
            seen[it.seq_num] = "ok"
    missing = [s for s in range(1, len(want) + 1) if s not in seen]
    assert not missing, f"records {missing} silently dropped"
    return "skipped" if "skipped" in seen.values() else "recovered"


def _cases(data: bytes, regions: list[tuple[str, int, int]]) -> list[tuple[str, bytes]]:
    """Every single-bit flip and the zeroing of each region (name, start, length)."""
    out = []
    for name, start, length in regions:
        for bit in range(length * 8):
            buf = bytearray(data)
            buf[start + bit // 8] ^= 1 << (bit % 8)
            out.append((f"{name}:flip", bytes(buf)))
        buf = bytearray(data)
        buf[start : start + length] = bytes(length)
        out.append((f"{name}:zero", bytes(buf)))
    return out


def _run(path: Path, seg: Path, clean: bytes, want: list[Any], cases: Any, **kw: Any) -> None:
    for n, (name, damaged) in enumerate(cases):
        for skip in (False, True):
            if skip and not (n % SKIP_EVERY == 0 or name.endswith("zero")):
                continue
            seg.write_bytes(damaged)
            out = _outcome(path, want, skip, **kw)
            COUNTS[f"{'skip' if skip else 'strict'}:{out}"] += 1
            COUNTS["cases"] += 1
        seg.write_bytes(clean)


@pytest.mark.parametrize("preallocate", [False, True])
@pytest.mark.parametrize("kind", ["proof", "json_delta", "op", "batch"])
def test_every_bit_of_first_middle_last_record_is_detected_or_recovered(
    fast_dir: Path, kind: str, preallocate: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # preallocate: a preallocated segment (header flag bit 1) with a zero tail after its
    # records (allocated from the first record on: `PREALLOC_START` 0).
    monkeypatch.setattr(_local, "PREALLOC_START", 0)
    tmp_path = fast_dir
    want = _build(tmp_path, _entries(kind), preallocate=preallocate)
    (seg,) = tmp_path.glob("*.wal")
    clean = seg.read_bytes()
    off, length = _records(clean)[-1]
    assert (len(clean) > off + REC_HEADER + length) == preallocate
    recs = _records(clean)
    assert len(recs) == len(want)
    regions = []
    for label, idx in (("first", 0), ("middle", len(recs) // 2), ("last", len(recs) - 1)):
        off, length = recs[idx]
        regions += [(f"{label}.header", off, REC_HEADER), (f"{label}.payload", off + 24, length)]
    before = sum(COUNTS.values())
    _run(tmp_path, seg, clean, want, _cases(clean, regions), preallocate=preallocate)
    assert sum(COUNTS.values()) > before
    print(f"bit flips ({kind}): {dict(COUNTS)}")


def test_every_bit_of_first_middle_last_segment_header(fast_dir: Path) -> None:
    tmp_path = fast_dir
    units = [[crs.DependencyDelta(1, add_edges=[(f"s{i}", "t" * 30)])] for i in range(200)]
    want = _build(tmp_path, units, segment_bytes=4096)
    segs = sorted(tmp_path.glob("*.wal"))
    assert len(segs) >= 3
    for seg in (segs[0], segs[len(segs) // 2], segs[-1]):
        clean = seg.read_bytes()
        cases = _cases(clean, [("segment.header", 0, SEG_HEADER)])
        _run(tmp_path, seg, clean, want, cases, segment_bytes=4096)
        assert seg.read_bytes() == clean
    print(f"bit flips (segment headers): {dict(COUNTS)}")
