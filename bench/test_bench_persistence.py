"""save_backup / load_backup of a state with 1,000,000 proof entries (target <= 3 s each).

Beside them, on the same image: what the Go package did (gzip level 6 of the stream, written
and fsynced; read and gunzipped), the obvious choice without crs. The state is the tests'
`ProofState`: ~21-character node ids and five 64-bit numbers per node (62 MB image).
With `--benchmark-disable` (the default) each runs once on 20,000 entries as a smoke test.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "helpers"))

import crs
from crs import PersistenceManager
from persist_state import ProofState

KEY = "be0c4be0c4be0c40"
FULL = 1_000_000
SMOKE = 20_000


@functools.cache
def state(n: int) -> ProofState:
    return ProofState.generate(n, seed=7)


def entries(benchmark: Any) -> int:
    return SMOKE if benchmark.disabled else FULL


def manager(tmp_path: Path) -> PersistenceManager:
    cfg = replace(crs.DefaultPersistenceConfig(), base_dir=str(tmp_path / "home"))
    return PersistenceManager(cfg)


def test_bench_save_backup(benchmark: Any, tmp_path: Path) -> None:
    s = state(entries(benchmark))
    pm = manager(tmp_path)
    pm.save_backup(KEY, s)  # so every measured save also rotates a previous pair
    meta = benchmark.pedantic(pm.save_backup, args=(KEY, s), rounds=5, iterations=1)
    assert meta.uncompressed_size == len(s.export_image().data)
    benchmark.extra_info["image_mb"] = round(meta.uncompressed_size / 1e6, 1)
    benchmark.extra_info["backup_mb"] = round(meta.compressed_size / 1e6, 1)


def test_bench_load_backup(benchmark: Any, tmp_path: Path) -> None:
    s = state(entries(benchmark))
    pm = manager(tmp_path)
    pm.save_backup(KEY, s)

    def load() -> ProofState:
        target = ProofState()
        pm.load_backup(KEY, target)
        return target

    target = benchmark.pedantic(load, rounds=5, iterations=1)
    assert target.digest() == s.digest()


def test_bench_gzip6_write_fsync(benchmark: Any, tmp_path: Path) -> None:
    s = state(entries(benchmark))
    path = tmp_path / "state.gz"

    def save() -> int:
        blob = gzip.compress(s.export_image().data, compresslevel=6)
        hashlib.sha256(blob).hexdigest()
        with open(path, "wb") as f:
            f.write(blob)
            f.flush()
            os.fsync(f.fileno())
        return len(blob)

    assert benchmark.pedantic(save, rounds=3, iterations=1) > 0


def test_bench_gzip6_read(benchmark: Any, tmp_path: Path) -> None:
    s = state(entries(benchmark))
    path = tmp_path / "state.gz"
    path.write_bytes(gzip.compress(s.export_image().data, compresslevel=6))

    def load() -> ProofState:
        target = ProofState()
        blob = path.read_bytes()
        hashlib.sha256(blob).hexdigest()
        target.load_image(crs.BackupImage(gzip.decompress(blob), s.position, s.gen))
        return target

    assert benchmark.pedantic(load, rounds=3, iterations=1).digest() == s.digest()
