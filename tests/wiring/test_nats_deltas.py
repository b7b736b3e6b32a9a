"""Every delta type round-trips through a NATSJournal (runs once the deltas module exists)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crs._journal._nats import NATSJournal, NATSJournalConfig
from crs._journal._watch import delta_to_stream_delta
from nats_server import NatsServer, nats_server_binary

deltas_mod = pytest.importorskip("crs._state._deltas")

pytestmark = [
    pytest.mark.skipif(nats_server_binary() is None, reason="nats-server missing"),
    pytest.mark.timeout(120),
]


class DeltaJsonCodec:
    """Deltas by their lossless dict form; plain dict entries as they are."""

    def encode(self, entry: Any) -> bytes:
        if isinstance(entry, dict):
            doc = {"k": "o", "e": entry}
        else:
            doc = {"k": "d", "e": entry.to_dict()}
        return json.dumps(doc, separators=(",", ":")).encode()

    def decode(self, data: bytes) -> Any:
        doc = json.loads(data)
        return deltas_mod.delta_from_dict(doc["e"]) if doc["k"] == "d" else doc["e"]


def every_delta() -> list[Any]:
    """One delta of each of the eight types, with sources and timestamps set."""
    from crs._state._analytics import AnalyticsRecord
    from crs._types import (
        Constraint,
        ConstraintType,
        HistoryEntry,
        ProofNumber,
        ProofStatus,
        SignalSource,
    )

    d = deltas_mod
    hard, soft = SignalSource.HARD, SignalSource.SOFT
    proof = d.ProofDelta(
        hard,
        {"n1": ProofNumber(proof=3, disproof=4, status=ProofStatus.EXPANDED)},
        timestamp=1_700_000_000_001,
    )
    constraint = d.ConstraintDelta(
        soft,
        add=[Constraint(id="c1", type=ConstraintType.ORDERING, nodes=("a", "b"), active=True)],
        remove=["c0"],
        timestamp=1_700_000_000_002,
    )
    similarity = d.SimilarityDelta(soft, {("a", "b"): 0.25}, timestamp=1_700_000_000_003)
    dependency = d.DependencyDelta(
        hard, add_edges=[("a", "b")], remove_edges=[("b", "c")], timestamp=1_700_000_000_004
    )
    history = d.HistoryDelta(
        hard,
        [HistoryEntry(id="h1", node_id="a", action="Grep", result="ok", metadata={"k": "v"})],
        timestamp=1_700_000_000_005,
    )
    streaming = d.StreamingDelta(
        soft, increments={"Grep": 3}, cardinality_items=["x", "y"], timestamp=1_700_000_000_006
    )
    analytics = d.AnalyticsDelta(
        hard,
        AnalyticsRecord(query_type="hotspots", query_time=5, result_count=2, execution_ms=1),
        timestamp=1_700_000_000_007,
    )
    composite = d.CompositeDelta(proof, history, timestamp=1_700_000_000_008)
    return [proof, constraint, similarity, dependency, history, streaming, analytics, composite]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[NatsServer]:
    srv = NatsServer(tmp_path / "store")
    srv.start()
    yield srv
    srv.stop()


def test_every_delta_type_round_trips(server: NatsServer) -> None:
    deltas = every_delta()
    cfg = NATSJournalConfig(session_id="d", servers=server.url, codec=DeltaJsonCodec())
    with NATSJournal(cfg) as j:
        for delta in deltas:
            j.append(delta)
        j.append_batch(deltas)
        got = j.replay()
    assert got == deltas + deltas
    for i, delta in enumerate(got):
        assert delta.source() == deltas[i % len(deltas)].source()
        assert delta.timestamp() == deltas[i % len(deltas)].timestamp()
        sd = delta_to_stream_delta(delta, i + 1, delta.timestamp())
        assert sd.type == str(delta.type())
        assert sd.summary.startswith(f"{delta.type()} delta from {delta.source()}")
