"""NATSJournal beside the LocalJournal (same entries, same run): append latency, batch
throughput, replay of 100k entries. A real nats-server (JetStream, file storage) runs on
127.0.0.1 for the module.

Durability differs and the figures must be read with it: a LocalJournal append with sync
`always` returns after fdatasync; a JetStream acknowledgement means the server wrote the
message to its file store (page cache: it survives a crash of the server process, and the
server fsyncs on its own sync interval, 2 minutes by default), after a network round trip.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from crs import JournalConfig, LocalJournal, NATSJournal, NATSJournalConfig, SyncPolicy
from nats_server import NatsServer, nats_server_binary

pytestmark = pytest.mark.skipif(nats_server_binary() is None, reason="nats-server missing")

ENTRY = {
    "op": "record_step",
    "payload": {
        "session_id": "bench",
        "tool": "find_callers",
        "outcome": "success",
        "query": "x" * 120,
        "timestamp": 1_700_000_000_000,
    },
}
BATCH = [ENTRY] * 64
REPLAY_N = 100_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    srv = NatsServer(tmp_path_factory.mktemp("nats") / "store")
    srv.start()
    yield srv
    srv.stop()


def _nats(server: NatsServer, session: str) -> NATSJournal:
    return NATSJournal(NATSJournalConfig(session_id=session, servers=server.url))


def _local(path: Path, policy: SyncPolicy) -> LocalJournal:
    return LocalJournal(JournalConfig(path=str(path), session_id="bench", sync_policy=policy))


def test_bench_append_nats(benchmark: Any, server: NatsServer) -> None:
    with _nats(server, "append") as j:
        assert benchmark(j.append, ENTRY) > 0


def test_bench_append_local_always(benchmark: Any, tmp_path: Path) -> None:
    with _local(tmp_path / "j", SyncPolicy.ALWAYS) as j:
        assert benchmark(j.append, ENTRY) > 0


def test_bench_batch64_nats(benchmark: Any, server: NatsServer) -> None:
    with _nats(server, "batch") as j:
        assert benchmark(j.append_batch, BATCH) > 0


def test_bench_batch64_local_always(benchmark: Any, tmp_path: Path) -> None:
    with _local(tmp_path / "j", SyncPolicy.ALWAYS) as j:
        assert benchmark(j.append_batch, BATCH) > 0


def _replay_n(benchmark: Any) -> int:
    # Smoke runs (benchmarks disabled) keep the data small.
    return 2_000 if benchmark.disabled else REPLAY_N


def test_bench_replay_100k_nats(benchmark: Any, server: NatsServer) -> None:
    n = _replay_n(benchmark)
    with _nats(server, f"replay{n}") as j:
        for _ in range(n // 1000):
            j.append_batch([ENTRY] * 1000)
        got = benchmark.pedantic(j.replay, rounds=3, iterations=1)
        assert len(got) == n


def test_bench_replay_100k_local(benchmark: Any, tmp_path: Path) -> None:
    n = _replay_n(benchmark)
    with _local(tmp_path / "j", SyncPolicy.NONE) as j:
        for _ in range(n // 1000):
            j.append_batch([ENTRY] * 1000)
        got = benchmark.pedantic(j.replay, rounds=3, iterations=1)
        assert len(got) == n
