"""Corruption test: random byte flips and truncations in LocalJournal segments.

Every damaged journal either raises a typed error (`JournalCorruptedError`,
`JournalSequenceGapError`) or, with `skip_corrupted_deltas`, skips and counts the damaged
records; what is returned is never wrong. A truncation of the last segment cannot be told from
a crash in the middle of a write, so it may also come back as a shorter, correct journal.
Cases: `CRS_CORRUPTION_CASES` (default 1000).
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from crs import (
    DeltaOrError,
    JournalConfig,
    JournalCorruptedError,
    JournalSequenceGapError,
    LocalJournal,
)

CASES = int(os.environ.get("CRS_CORRUPTION_CASES", "1000"))


def config(path: Path, *, skip: bool, preallocate: bool) -> JournalConfig:
    return JournalConfig(
        path=str(path),
        session_id="c",
        sync_policy="none",
        segment_bytes=8192,
        preallocate=preallocate,
        skip_corrupted_deltas=skip,
    )


def build(path: Path, preallocate: bool) -> list[dict[str, Any]]:
    rnd = random.Random(7)
    written: list[dict[str, Any]] = []
    with LocalJournal(config(path, skip=False, preallocate=preallocate)) as j:
        while len(written) < 300:
            n = rnd.choice([1, 1, 3])
            batch = [{"i": len(written) + i, "pad": "y" * rnd.randrange(60)} for i in range(n)]
            if n == 1:
                j.append(batch[0])
            else:
                j.append_batch(batch)
            written += batch
    return written


def damage(rnd: random.Random, seg: Path, data: bytes) -> str:
    buf = bytearray(data)
    if rnd.random() < 0.75:
        for _ in range(rnd.choice([1, 1, 1, 2, 5])):
            buf[rnd.randrange(len(buf))] ^= rnd.randrange(1, 256)
        kind = "flip"
    else:
        del buf[rnd.randrange(len(buf)) :]
        kind = "truncate"
    seg.write_bytes(bytes(buf))
    return kind


def check_case(
    path: Path, written: list[dict[str, Any]], kind: str, last: bool, preallocate: bool
) -> str:
    try:
        with LocalJournal(config(path, skip=False, preallocate=preallocate)) as j:
            got = j.replay()
    except (JournalCorruptedError, JournalSequenceGapError):
        outcome = "detected"
    else:
        # Only a cut in the last segment may pass, as a crash mid-write would: a prefix.
        assert kind == "truncate", "a byte flip went unnoticed"
        assert last, "a cut in a sealed segment went unnoticed"
        assert got == written[: len(got)], "wrong data after a truncation"
        assert len(got) <= len(written)  # a cut in preallocated zeros loses nothing
        outcome = "torn"
    return outcome


def check_skipping(path: Path, written: list[dict[str, Any]]) -> int:
    try:
        j = LocalJournal(config(path, skip=True, preallocate=False))
    except JournalCorruptedError:
        return -1  # the header of the checkpoint file itself is damaged: nothing to skip to
    with j:
        items: list[DeltaOrError] = list(j.replay_stream())
        errors = [i for i in items if i.err is not None and not i.skipped]
        assert not errors or isinstance(
            errors[0].err, JournalCorruptedError | JournalSequenceGapError
        )
        good = [i for i in items if i.err is None]
        for i in good:
            assert i.delta == written[i.seq_num - 1], "skip mode returned wrong data"
        skipped = [i for i in items if i.skipped]
        assert j.stats().corrupted_count >= len(skipped)
        return len(skipped)


@pytest.mark.slow
@pytest.mark.parametrize("preallocate", [False, True])
def test_damage_is_detected_or_skipped(tmp_path: Path, preallocate: bool) -> None:
    clean = tmp_path / "clean"
    written = build(clean, preallocate)
    segments = sorted(clean.glob("*.wal"))
    assert len(segments) >= 3
    rnd = random.Random(99 + preallocate)
    outcomes: dict[str, int] = {}
    skipped_total = 0
    work = tmp_path / "work"
    for _ in range(CASES // 2):
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(clean, work)
        idx = rnd.randrange(len(segments))
        seg = work / segments[idx].name
        kind = damage(rnd, seg, seg.read_bytes())
        outcome = check_case(work, written, kind, idx == len(segments) - 1, preallocate)
        outcomes[f"{kind}:{outcome}"] = outcomes.get(f"{kind}:{outcome}", 0) + 1
        shutil.rmtree(work)
        shutil.copytree(clean, work)
        seg = work / segments[idx].name
        damage(random.Random(rnd.random()), seg, seg.read_bytes())
        skipped_total += max(0, check_skipping(work, written))
    print(f"corruption outcomes (preallocate={preallocate}): {outcomes}, skipped {skipped_total}")
    assert outcomes.get("flip:detected", 0) > CASES // 4
    assert skipped_total > 0
