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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "helpers"))
from crs import (
    CRS,
    DeltaCodec,
    JournalConfig,
    LocalJournal,
    NATSJournal,
    NATSJournalConfig,
    ProofUpdate,
    ProofUpdateType,
    ReadReplica,
    SignalSource,
    SyncPolicy,
)
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


# ---------------------------------------------------------------- CRS level, read replica

UPDATE = ProofUpdate(
    node_id="bench", type=ProofUpdateType.INCREMENT, delta=1, source=SignalSource.HARD
)


def _crs_nats(server: NatsServer, session: str) -> NATSJournal:
    cfg = NATSJournalConfig(session_id=session, servers=server.url, codec=DeltaCodec())
    return NATSJournal(cfg)


def _crs_local(path: Path, policy: SyncPolicy) -> LocalJournal:
    cfg = JournalConfig(path=str(path), session_id="bench", sync_policy=policy)
    return LocalJournal(cfg, DeltaCodec())


def test_bench_crs_update_proof_nats(benchmark: Any, server: NatsServer) -> None:
    with _crs_nats(server, "crsupd") as j:
        c = CRS(journal=j)
        benchmark(c.update_proof_number, UPDATE)
        assert c.journal_position() > 0


def test_bench_crs_update_proof_local_always(benchmark: Any, tmp_path: Path) -> None:
    with _crs_local(tmp_path / "j", SyncPolicy.ALWAYS) as j:
        c = CRS(journal=j)
        benchmark(c.update_proof_number, UPDATE)
        assert c.journal_position() > 0


def _lag(benchmark: Any, writer: CRS, replica: ReadReplica) -> None:
    # Timed: from the writer's commit (update_proof_number returned) until the replica
    # applied that entry.
    def commit() -> tuple[tuple[int], dict[str, Any]]:
        writer.update_proof_number(UPDATE)
        return (writer.journal_position(),), {}

    def visible(seq: int) -> None:
        assert replica.wait_for(seq, timeout=30)

    benchmark.pedantic(visible, setup=commit, rounds=5 if benchmark.disabled else 300)
    assert replica.crs.get_proof_status("bench") == writer.get_proof_status("bench")


def test_bench_replica_lag_nats(benchmark: Any, server: NatsServer) -> None:
    with _crs_nats(server, "lag") as j, _crs_nats(server, "lag") as rj:
        writer = CRS(journal=j)
        with ReadReplica(rj) as replica:
            _lag(benchmark, writer, replica)


def test_bench_replica_lag_local_poll10ms(benchmark: Any, tmp_path: Path) -> None:
    with _crs_local(tmp_path / "j", SyncPolicy.NONE) as j:
        writer = CRS(journal=j)
        with ReadReplica(j, poll_interval=0.01) as replica:
            _lag(benchmark, writer, replica)
