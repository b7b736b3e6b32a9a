"""Journal benchmarks beside what a user would otherwise pick, same record size, same run.

- append with fsync: `LocalJournal.append` (sync "always") vs raw `os.write` + `os.fsync` vs
  SQLite in WAL mode with `synchronous=FULL` (one INSERT + COMMIT per record).
- append_batch of 64: `LocalJournal.append_batch` vs SQLite `executemany` in one transaction.
- replay: `LocalJournal.replay` (framing + CRC-32C, raw bytes and JSON-decoded) vs SQLite SELECT.
Records are 200-byte payloads. Sizes are small when benchmarks are disabled (smoke test).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crs import BytesCodec, JournalConfig, LocalJournal

PAYLOAD = bytes(range(200))
ENTRY = {"type": "proof", "node": "session:s1:tool:grep", "pad": "p" * 140}
assert len(json.dumps(ENTRY, separators=(",", ":"))) + 11 in range(180, 220)


def config(path: Path, policy: str = "always") -> JournalConfig:
    return JournalConfig(
        path=str(path),
        session_id="bench",
        sync_policy=policy,
        preallocate=True,
        segment_bytes=64 << 20,
    )


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(tmp_path / "wal.db", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE journal (seq INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
    yield db
    db.close()


# ---------------------------------------------------------------- append, fsync per record


def test_bench_append_always_local_journal(benchmark: Any, tmp_path: Path) -> None:
    with LocalJournal(config(tmp_path), BytesCodec()) as j:
        benchmark(j.append, PAYLOAD)
        assert j.stats().last_seq_num >= 1


def test_bench_append_always_local_journal_json(benchmark: Any, tmp_path: Path) -> None:
    with LocalJournal(config(tmp_path)) as j:
        benchmark(j.append, ENTRY)


def test_bench_append_raw_write_fsync(benchmark: Any, tmp_path: Path) -> None:
    fd = os.open(tmp_path / "raw.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    record = len(PAYLOAD).to_bytes(4, "little") + PAYLOAD

    def append() -> None:
        os.write(fd, record)
        os.fsync(fd)

    try:
        benchmark(append)
    finally:
        os.close(fd)


def test_bench_append_sqlite_wal_full(benchmark: Any, sqlite_db: sqlite3.Connection) -> None:
    def append() -> None:
        sqlite_db.execute("BEGIN")
        sqlite_db.execute("INSERT INTO journal (payload) VALUES (?)", (PAYLOAD,))
        sqlite_db.execute("COMMIT")

    benchmark(append)


# ---------------------------------------------------------------- append_batch of 64

BATCH = [PAYLOAD] * 64
BATCH_JSON = [ENTRY] * 64


@pytest.mark.parametrize("policy", ["always", "none"])
def test_bench_append_batch64_local_journal(benchmark: Any, tmp_path: Path, policy: str) -> None:
    with LocalJournal(config(tmp_path, policy), BytesCodec()) as j:
        benchmark(j.append_batch, BATCH)


@pytest.mark.parametrize("policy", ["always", "none"])
def test_bench_append_batch64_local_journal_json(
    benchmark: Any, tmp_path: Path, policy: str
) -> None:
    with LocalJournal(config(tmp_path, policy)) as j:
        benchmark(j.append_batch, BATCH_JSON)


def test_bench_append_batch64_sqlite_wal_full(
    benchmark: Any, sqlite_db: sqlite3.Connection
) -> None:
    rows = [(PAYLOAD,)] * 64

    def append() -> None:
        sqlite_db.execute("BEGIN")
        sqlite_db.executemany("INSERT INTO journal (payload) VALUES (?)", rows)
        sqlite_db.execute("COMMIT")

    benchmark(append)


# ---------------------------------------------------------------- replay


def replay_size(benchmark: Any) -> int:
    return 2_000 if benchmark.disabled else 500_000


def test_bench_replay_local_journal_bytes(benchmark: Any, tmp_path: Path) -> None:
    n = replay_size(benchmark)
    with LocalJournal(config(tmp_path, "none"), BytesCodec()) as j:
        for _ in range(n // 1000):
            j.append_batch([PAYLOAD] * 1000)
        out = benchmark(j.replay)
    assert len(out) == n
    assert out[-1] == PAYLOAD


def test_bench_replay_local_journal_json(benchmark: Any, tmp_path: Path) -> None:
    n = replay_size(benchmark)
    with LocalJournal(config(tmp_path, "none")) as j:
        for _ in range(n // 1000):
            j.append_batch([ENTRY] * 1000)
        out = benchmark(j.replay)
    assert len(out) == n


def test_bench_replay_sqlite(benchmark: Any, sqlite_db: sqlite3.Connection) -> None:
    n = replay_size(benchmark)
    sqlite_db.execute("BEGIN")
    sqlite_db.executemany("INSERT INTO journal (payload) VALUES (?)", [(PAYLOAD,)] * n)
    sqlite_db.execute("COMMIT")

    def replay() -> list[bytes]:
        return [r[0] for r in sqlite_db.execute("SELECT payload FROM journal ORDER BY seq")]

    assert len(benchmark(replay)) == n


# ---------------------------------------------------------------- interleaved latency ratio


def test_bench_append_always_interleaved(
    benchmark: Any, tmp_path: Path, sqlite_db: sqlite3.Connection
) -> None:
    """The three fsync-per-record appends taken in turns, so disk hiccups hit all alike."""
    import statistics
    import time

    rounds = 20 if benchmark.disabled else 600
    fd = os.open(tmp_path / "raw.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    record = len(PAYLOAD).to_bytes(4, "little") + PAYLOAD
    times: dict[str, list[float]] = {"journal": [], "raw": [], "sqlite": []}

    def raw() -> None:
        os.write(fd, record)
        os.fsync(fd)

    def sqlite() -> None:
        sqlite_db.execute("BEGIN")
        sqlite_db.execute("INSERT INTO journal (payload) VALUES (?)", (PAYLOAD,))
        sqlite_db.execute("COMMIT")

    def run() -> None:
        with LocalJournal(config(tmp_path / "j"), BytesCodec()) as j:
            ops = [("journal", lambda: j.append(PAYLOAD)), ("raw", raw), ("sqlite", sqlite)]
            for i in range(rounds):
                for name, op in ops[i % 3 :] + ops[: i % 3]:  # rotate: no one always goes first
                    t0 = time.perf_counter()
                    op()
                    times[name].append(time.perf_counter() - t0)

    try:
        benchmark.pedantic(run, rounds=1, iterations=1)
    finally:
        os.close(fd)
    med = {k: statistics.median(v) * 1e6 for k, v in times.items()}
    benchmark.extra_info.update({f"median_us_{k}": round(v, 1) for k, v in med.items()})
    benchmark.extra_info["journal_over_raw"] = round(med["journal"] / med["raw"], 3)
    benchmark.extra_info["journal_over_sqlite"] = round(med["journal"] / med["sqlite"], 3)
    print(f"\ninterleaved append medians (us): {med}, ratios {benchmark.extra_info}")
