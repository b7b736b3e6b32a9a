"""The CRS with its journal and backups (issue 5, wiring half), beside the obvious alternative.

- replay including apply: `CRS.open(journal)` of single-entry ProofDeltas written by a CRS
  (DeltaCodec, binary layout) vs the same deltas journaled as `to_dict()` JSON (JsonCodec)
  and replayed with `delta_from_dict` + `apply`, what a user would write without the codec.
- decoded replay: `LocalJournal.replay()` of the same records, DeltaCodec vs JsonCodec.
- save / load of a CRS with 1,000,000 proof entries through `save_checkpoint_to_disk` /
  `load_checkpoint_from_disk` (image + lz4 + SHA-256 + fsync + rotation), beside
  `json.dumps` of `CRS._state_image()` + gzip level 6 written and fsynced (and the reverse).

With `--benchmark-disable` (the default) each runs once on small data as a smoke test.
"""

from __future__ import annotations

import dataclasses
import functools
import gzip
import json
import os
from pathlib import Path
from typing import Any

import crs

FULL_RECORDS, SMOKE_RECORDS = 300_000, 5_000
FULL_ENTRIES, SMOKE_ENTRIES = 1_000_000, 20_000
KEY = "be0c4be0c4be0c41"


def jconfig(path: Path) -> crs.JournalConfig:
    return dataclasses.replace(
        crs.DefaultJournalConfig(),
        path=str(path),
        session_id="bench",
        sync_policy="none",
        segment_bytes=64 << 20,
    )


def deltas(n: int) -> list[crs.ProofDelta]:
    return [
        crs.ProofDelta(
            crs.SignalSource.HARD,
            {
                f"session:s{i % 7}:tool:t{i % 1000}": crs.ProofNumber(
                    proof=i, disproof=1, status=crs.ProofStatus.EXPANDED, updated_at=i
                )
            },
        )
        for i in range(n)
    ]


@functools.cache
def journals(root: str, n: int) -> tuple[Path, Path]:
    """Two journals of the same n deltas: DeltaCodec (as a CRS writes) and JSON dicts."""
    base = Path(root)
    fast, slow = base / f"codec{n}", base / f"json{n}"
    ds = deltas(n)
    with crs.LocalJournal(jconfig(fast), crs.DeltaCodec()) as j:
        for i in range(0, n, 1024):
            j.append_batch(ds[i : i + 1024])
    with crs.LocalJournal(jconfig(slow)) as j:
        for i in range(0, n, 1024):
            j.append_batch([d.to_dict() for d in ds[i : i + 1024]])
    return fast, slow


def rate(benchmark: Any, n: int) -> None:
    if not benchmark.disabled:
        benchmark.extra_info["deltas_per_s"] = round(n / benchmark.stats.stats.median)


def records(benchmark: Any) -> int:
    return SMOKE_RECORDS if benchmark.disabled else FULL_RECORDS


def test_bench_replay_with_apply_codec(benchmark: Any, tmp_path_factory: Any) -> None:
    n = records(benchmark)
    fast, _ = journals(str(tmp_path_factory.getbasetemp()), n)

    def replay() -> int:
        with crs.LocalJournal(jconfig(fast), crs.DeltaCodec()) as j:
            return crs.CRS.open(j).generation()

    assert benchmark.pedantic(replay, rounds=3, iterations=1) == n
    rate(benchmark, n)


def test_bench_replay_with_apply_json(benchmark: Any, tmp_path_factory: Any) -> None:
    n = records(benchmark)
    _, slow = journals(str(tmp_path_factory.getbasetemp()), n)

    def replay() -> int:
        c = crs.CRS()
        with crs.LocalJournal(jconfig(slow)) as j:
            for d in j.replay():
                c.apply(crs.delta_from_dict(d))
        return c.generation()

    assert benchmark.pedantic(replay, rounds=3, iterations=1) == n
    rate(benchmark, n)


def test_bench_replay_decoded_codec(benchmark: Any, tmp_path_factory: Any) -> None:
    n = records(benchmark)
    fast, _ = journals(str(tmp_path_factory.getbasetemp()), n)
    with crs.LocalJournal(jconfig(fast), crs.DeltaCodec()) as j:
        got = benchmark.pedantic(j.replay, rounds=3, iterations=1)
    assert len(got) == n
    assert got[-1].updates == deltas(n)[-1].updates
    rate(benchmark, n)


def test_bench_replay_decoded_json(benchmark: Any, tmp_path_factory: Any) -> None:
    n = records(benchmark)
    _, slow = journals(str(tmp_path_factory.getbasetemp()), n)
    with crs.LocalJournal(jconfig(slow)) as j:
        got = benchmark.pedantic(
            lambda: [crs.delta_from_dict(d) for d in j.replay()], rounds=3, iterations=1
        )
    assert len(got) == n
    rate(benchmark, n)


# ---------------------------------------------------------------- backups of 1M proof entries


@functools.cache
def big_crs(n: int) -> crs.CRS:
    c = crs.CRS()
    for i in range(0, n, 10_000):
        c.apply(
            crs.ProofDelta(
                crs.SignalSource.HARD,
                {
                    f"node:{j:08d}:call": crs.ProofNumber(
                        proof=j, disproof=j % 7, status=crs.ProofStatus(j % 4), updated_at=j
                    )
                    for j in range(i, min(n, i + 10_000))
                },
            )
        )
    return c


def entries(benchmark: Any) -> int:
    return SMOKE_ENTRIES if benchmark.disabled else FULL_ENTRIES


def manager(tmp_path: Path) -> crs.PersistenceManager:
    cfg = dataclasses.replace(crs.DefaultPersistenceConfig(), base_dir=str(tmp_path / "home"))
    return crs.PersistenceManager(cfg)


def test_bench_save_checkpoint_to_disk(benchmark: Any, tmp_path: Path) -> None:
    c = big_crs(entries(benchmark))
    pm = manager(tmp_path)
    c.save_checkpoint_to_disk(pm, KEY)  # so every measured save also rotates a previous pair
    meta = benchmark.pedantic(c.save_checkpoint_to_disk, args=(pm, KEY), rounds=3, iterations=1)
    assert meta.generation == c.generation()
    benchmark.extra_info["image_mb"] = round(meta.uncompressed_size / 1e6, 1)
    benchmark.extra_info["backup_mb"] = round(meta.compressed_size / 1e6, 1)


def test_bench_load_checkpoint_from_disk(benchmark: Any, tmp_path: Path) -> None:
    n = entries(benchmark)
    c = big_crs(n)
    pm = manager(tmp_path)
    c.save_checkpoint_to_disk(pm, KEY)

    def load() -> crs.CRS:
        fresh = crs.CRS()
        fresh.load_checkpoint_from_disk(pm, KEY)
        return fresh

    fresh = benchmark.pedantic(load, rounds=3, iterations=1)
    assert fresh.snapshot().proof_index().size() == n
    assert fresh.generation() == c.generation()


def test_bench_json_gzip_save(benchmark: Any, tmp_path: Path) -> None:
    c = big_crs(entries(benchmark))
    path = tmp_path / "state.json.gz"

    def save() -> int:
        data = gzip.compress(json.dumps(c._state_image()).encode(), 6)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        return len(data)

    assert benchmark.pedantic(save, rounds=3, iterations=1) > 0


def test_bench_json_gzip_load(benchmark: Any, tmp_path: Path) -> None:
    n = entries(benchmark)
    c = big_crs(n)
    path = tmp_path / "state.json.gz"
    path.write_bytes(gzip.compress(json.dumps(c._state_image()).encode(), 6))

    def load() -> crs.CRS:
        fresh = crs.CRS()
        fresh._kernel.load_image(json.loads(gzip.decompress(path.read_bytes())))
        return fresh

    assert benchmark.pedantic(load, rounds=3, iterations=1).snapshot().proof_index().size() == n
