"""Every delta type round-trips through a NATSJournal (runs once the deltas module exists)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crs import NATSJournal, NATSJournalConfig, delta_to_stream_delta
from nats_server import NatsServer, nats_server_binary

deltas_mod = pytest.importorskip("crs._deltas")

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
    d = deltas_mod
    from crs import ProofNumber, ProofStatus, SignalSource

    proof = d.ProofDelta(
        SignalSource.HARD, {"n1": ProofNumber(proof=3, disproof=4, status=ProofStatus.EXPANDED)}
    )
    samples = [proof]
    for name in (
        "ConstraintDelta",
        "SimilarityDelta",
        "DependencyDelta",
        "HistoryDelta",
        "StreamingDelta",
        "AnalyticsDelta",
    ):
        cls = getattr(d, name)
        example = getattr(cls, "example", None)
        samples.append(example() if callable(example) else None)
    samples.append(d.CompositeDelta(proof, proof))
    return [s for s in samples if s is not None]


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
        assert delta_to_stream_delta(delta, i + 1, delta.timestamp()).type == str(delta.type())
