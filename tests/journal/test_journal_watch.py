"""StreamDelta summaries and `crs journal watch` following a local and a NATS journal."""

from __future__ import annotations

import enum
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from crs import (
    InvalidArgumentError,
    JournalConfig,
    LocalJournal,
    NATSJournal,
    NATSJournalConfig,
    NilDeltaError,
    SignalSource,
    StreamDelta,
    delta_to_stream_delta,
)
from nats_server import NatsServer, nats_server_binary

pytestmark = pytest.mark.timeout(120)


class _Kind(enum.IntEnum):
    PROOF = 1


class _ProofLike:
    """The four methods `delta_to_stream_delta` reads, as every crs delta has them."""

    def type(self) -> Any:

        return type("DeltaType", (), {"name": "PROOF"})()

    def source(self) -> SignalSource:
        return SignalSource.HARD

    def indexes_affected(self) -> list[str]:
        return ["proof"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "proof",
            "source": 1,
            "timestamp": 5,
            "updates": {"n1": {}, "n2": {}, "n3": {}, "n4": {}},
        }


def test_stream_delta_json_form() -> None:
    sd = StreamDelta(type="proof", seq_num=3, timestamp=10, summary="s")
    assert json.loads(sd.to_json()) == {"type": "proof", "seq": 3, "timestamp": 10, "summary": "s"}


def test_summaries() -> None:
    sd = delta_to_stream_delta(_ProofLike(), 9, 1234)
    assert (sd.type, sd.seq_num, sd.timestamp) == ("proof", 9, 1234)
    assert sd.summary == "proof delta from hard: updates[4]: n1, n2, n3 +1 -> proof"
    op = delta_to_stream_delta({"op": "add_clause", "payload": {"literals": [1, 2]}}, 1, 2)
    assert op.to_dict() == {
        "type": "add_clause",
        "seq": 1,
        "timestamp": 2,
        "summary": "add_clause: literals[2]",
    }
    comp = delta_to_stream_delta(
        {"type": "composite", "source": 2, "deltas": [{"type": "proof"}, {"type": "history"}]},
        4,
        0,
    )
    assert comp.summary == "composite delta from soft: 2 deltas (proof, history)"
    with pytest.raises(NilDeltaError):
        delta_to_stream_delta(None, 1, 1)
    with pytest.raises(InvalidArgumentError, match="dict journal entry"):
        delta_to_stream_delta(42, 1, 1)


def _watch(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "crs", "journal", "watch", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _entries(n: int) -> list[dict[str, Any]]:
    return [
        {"op": "record_step", "payload": {"tool": f"t{i}", "timestamp": 100 + i}} for i in range(n)
    ]


def test_watch_local_journal(tmp_path: Path) -> None:
    cfg = JournalConfig(path=str(tmp_path / "j"), session_id="s1")
    with LocalJournal(cfg) as j:
        j.append_batch(_entries(2))
        proc = _watch(str(tmp_path / "j"), "--max", "5", "--timeout", "30")
        for e in _entries(5)[2:]:
            j.append(e)  # appended while the watcher runs (another process)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [x["seq"] for x in lines] == [1, 2, 3, 4, 5]
    assert [x["timestamp"] for x in lines] == [100, 101, 102, 103, 104]
    assert lines[0]["summary"] == "record_step: tool=t0; timestamp=100"


def test_watch_needs_one_source() -> None:
    proc = _watch("--session", "s1")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert "not both" in err
    proc = _watch("--nats", "nats://127.0.0.1:1")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert "--session" in err


@pytest.mark.skipif(nats_server_binary() is None, reason="nats-server missing")
def test_watch_nats_journal(tmp_path: Path) -> None:
    srv = NatsServer(tmp_path / "store")
    srv.start()
    try:
        with NATSJournal(NATSJournalConfig(session_id="s1", servers=srv.url)) as j:
            j.append_batch(_entries(2))
            proc = _watch("--nats", srv.url, "--session", "s1", "--max", "4", "--timeout", "30")
            j.append_batch(_entries(4)[2:])
            out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        lines = [json.loads(line) for line in out.splitlines()]
        assert [x["seq"] for x in lines] == [1, 2, 3, 4]
        assert [x["type"] for x in lines] == ["record_step"] * 4
    finally:
        srv.stop()
