"""Corruption of backups and metadata: every damage is detected with a typed error.

Random byte flips, byte overwrites, truncations and appended garbage are applied to the
current backup file or its metadata, 1,000+ cases in all. A load must then either raise a
typed `PersistenceError` subclass, or (where a previous pair exists, or the damage is
semantically void, e.g. JSON whitespace) return exactly an image that was saved. Never
different data.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import crs
from crs import (
    BackupCorruptedError,
    BackupVersionMismatchError,
    MetadataCorruptedError,
    PersistenceManager,
)
from persist_state import ProofState

KEY = "badc0ffee0ddf00d"
TYPED = (BackupCorruptedError, MetadataCorruptedError, BackupVersionMismatchError)


def damage(blob: bytes, rng: random.Random) -> bytes:
    """One random kind of damage; never returns the input unchanged."""
    data = bytearray(blob)
    kind = rng.choice(("flip", "overwrite", "truncate", "append", "multi"))
    if kind == "flip":
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif kind == "overwrite":
        i = rng.randrange(len(data))
        data[i] = (data[i] + rng.randrange(1, 256)) % 256
    elif kind == "truncate":
        del data[rng.randrange(len(data)) :]
    elif kind == "append":
        data += rng.randbytes(rng.randrange(1, 64))
    else:
        for _ in range(rng.randrange(2, 20)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data) if bytes(data) != blob else blob + b"\0"


Setup = tuple[PersistenceManager, ProofState, ProofState]


def setup(tmp_path: Path, name: str, **cfg: Any) -> Setup:
    config = replace(crs.DefaultPersistenceConfig(), base_dir=str(tmp_path / name), **cfg)
    pm = PersistenceManager(config)
    old, new = ProofState.generate(150, seed=1), ProofState.generate(180, seed=2)
    old.gen, new.gen = 1, 2
    pm.save_backup(KEY, old)
    pm.save_backup(KEY, new)
    return pm, old, new


def run_cases(
    pm: PersistenceManager,
    target_file: Path,
    allowed: dict[int, bytes],
    cases: int,
    rng: random.Random,
    tally: dict[str, int],
) -> None:
    original = target_file.read_bytes()
    for _ in range(cases):
        target_file.write_bytes(damage(original, rng))
        try:
            loaded = pm.load_backup(KEY)
        except TYPED as exc:
            tally[type(exc).__name__] = tally.get(type(exc).__name__, 0) + 1
        else:
            gen = loaded.metadata.generation
            assert gen in allowed, f"loaded generation {gen} that was never saved"
            assert loaded.image.data == allowed[gen], "wrong data loaded"
            tally[f"loaded generation {gen}"] = tally.get(f"loaded generation {gen}", 0) + 1
        tally["cases"] = tally.get("cases", 0) + 1
    target_file.write_bytes(original)


@pytest.mark.slow
def test_random_corruption_is_always_detected(tmp_path: Path) -> None:
    rng = random.Random(5)
    tally: dict[str, int] = {}

    # Only the current pair exists: damage must be an error (or void for the data).
    pm, old, new = setup(tmp_path, "single")
    for p in (pm.prev_backup_path(KEY), pm.prev_metadata_path(KEY)):
        p.unlink()
    only_new = {2: new.export_image().data}
    run_cases(pm, pm.backup_path(KEY), {}, 350, rng, tally)
    run_cases(pm, pm.metadata_path(KEY), only_new, 300, rng, tally)
    assert pm.load_backup(KEY).image.data == only_new[2]

    # Both pairs: damage to the current one falls back to exactly the previous image.
    pm, old, new = setup(tmp_path, "pair")
    both = {1: old.export_image().data, 2: new.export_image().data}
    before = tally.get("loaded generation 1", 0)
    run_cases(pm, pm.backup_path(KEY), {1: both[1]}, 150, rng, tally)
    run_cases(pm, pm.metadata_path(KEY), both, 100, rng, tally)
    assert tally["loaded generation 1"] - before >= 200  # the fallback really happened

    # Without the SHA-256 check the lz4 checksums and header checks must still catch it.
    pm, old, new = setup(tmp_path, "nohash", validate_on_restore=False)
    for p in (pm.prev_backup_path(KEY), pm.prev_metadata_path(KEY)):
        p.unlink()
    run_cases(pm, pm.backup_path(KEY), {}, 150, rng, tally)

    assert tally["cases"] >= 1000
    assert tally["BackupCorruptedError"] >= 400
    assert tally["MetadataCorruptedError"] >= 250
    print(sorted(tally.items()))


def test_damaged_previous_pair_does_not_hide_a_good_current_one(tmp_path: Path) -> None:
    pm, _old, new = setup(tmp_path, "prev")
    rng = random.Random(9)
    for path in (pm.prev_backup_path(KEY), pm.prev_metadata_path(KEY)):
        original = path.read_bytes()
        for _ in range(20):
            path.write_bytes(damage(original, rng))
            assert pm.load_backup(KEY).image == new.export_image()
        path.write_bytes(original)


def test_metadata_field_types_are_checked(tmp_path: Path) -> None:
    pm, _old, _new = setup(tmp_path, "types")
    for p in (pm.prev_backup_path(KEY), pm.prev_metadata_path(KEY)):
        p.unlink()
    doc = json.loads(pm.metadata_path(KEY).read_text())
    for field, bad in [("generation", "2"), ("created_at", 1.5), ("session_id", None)]:
        broken = dict(doc, **{field: bad})
        pm.metadata_path(KEY).write_text(json.dumps(broken))
        with pytest.raises(MetadataCorruptedError, match=field):
            pm.get_backup_metadata(KEY)
    missing = {k: v for k, v in doc.items() if k != "generation"}
    pm.metadata_path(KEY).write_text(json.dumps(missing))
    with pytest.raises(MetadataCorruptedError, match="expected fields"):
        pm.get_backup_metadata(KEY)
    pm.metadata_path(KEY).write_bytes(b"\xff\xfe")
    with pytest.raises(MetadataCorruptedError, match="not valid JSON"):
        pm.get_backup_metadata(KEY)
