"""A CRS journaling to NATS JetStream (real nats-server): every mutating API is journaled and
replayed to the same state and generation; sessions of several processes share one stream;
read replicas follow a journal live (NATS or local) and converge, across a server restart."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.wiring.test_wiring_crs import MUTATORS, clause, image, mutations, run, seeded, step

import crs
from nats_server import NatsServer, nats_server_binary

pytestmark = [
    pytest.mark.skipif(nats_server_binary() is None, reason="nats-server missing"),
    pytest.mark.timeout(180),
]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    srv = NatsServer(tmp_path_factory.mktemp("nats") / "store")
    srv.start()
    yield srv
    srv.stop()


def nats(server: NatsServer, session: str, **kw: Any) -> crs.NATSJournal:
    cfg = crs.NATSJournalConfig(
        session_id=session, servers=server.url, codec=crs.DeltaCodec(), **kw
    )
    return crs.NATSJournal(cfg)


def fresh_session() -> str:
    return "s" + uuid.uuid4().hex[:12]


def wait_until(pred: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.02)
    raise AssertionError("condition not reached in time")


# ---------------------------------------------------------------- a CRS journaling to NATS


@pytest.mark.parametrize(("name", "mutate"), MUTATORS, ids=[m[0] for m in MUTATORS])
def test_each_mutating_api_is_journaled_to_nats(
    server: NatsServer, name: str, mutate: Callable[[crs.CRS], object]
) -> None:
    session = fresh_session()
    with nats(server, session) as j, nats(server, "other" + session) as other:
        c = seeded(j)  # type: ignore[arg-type]
        other.append({"op": "noise", "payload": {}, "bump_generation": False})  # a gap
        before = j.stats().total_deltas
        gen, pos = c.generation(), c.journal_position()
        mutate(c)
        assert j.stats().total_deltas == before + 1, f"{name} was not journaled"
        assert c.journal_position() > pos
        assert c.generation() >= gen
        want = image(c)
    with nats(server, session) as j:
        again = crs.CRS.open(j)
        assert image(again) == want
        assert again.journal_position() == c.journal_position()


def test_a_nats_journal_with_the_json_codec_is_refused(server: NatsServer) -> None:
    cfg = crs.NATSJournalConfig(session_id=fresh_session(), servers=server.url)
    with crs.NATSJournal(cfg) as j, pytest.raises(crs.InvalidArgumentError, match="DeltaCodec"):
        crs.CRS(journal=j)


@settings(
    max_examples=3,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    deadline=None,
)
@given(ops=st.lists(mutations, min_size=5, max_size=40))
def test_random_mutations_replay_from_nats_to_the_same_state(
    server: NatsServer, ops: list[tuple[str, Any]]
) -> None:
    session = fresh_session()
    cps: list[crs.Checkpoint] = []
    with nats(server, session) as j, nats(server, "x" + session) as noise:
        c = crs.CRS(journal=j)
        for i, (op, arg) in enumerate(ops):
            run(c, op, arg, cps)
            if i % 3 == 0:  # another session interleaves: sequence numbers skip
                noise.append(crs.ProofDelta(1, {"n": crs.ProofNumber(proof=i)}))
        want = image(c)
    with nats(server, session) as j:
        assert image(crs.CRS.open(j)) == want


def test_replay_after_a_nats_checkpoint_needs_the_backup(server: NatsServer) -> None:
    session = fresh_session()
    with nats(server, session) as j:
        c = crs.CRS(journal=j)
        c.apply(crs.ProofDelta(1, {"a": crs.ProofNumber(proof=1)}))
        c.record_step(step("s1", "grep", "success"))
        backup = c.export_image()
        j.checkpoint(c.journal_position())
        c.add_clause(clause("grep", "read"))  # the tail
        want = image(c)
    with nats(server, session) as j:
        with pytest.raises(crs.JournalSequenceGapError, match="backup"):
            crs.CRS.open(j)
        restored = crs.CRS(journal=j)
        restored.load_image(backup)
        assert restored.replay_journal() == 1
        assert image(restored) == want


# ---------------------------------------------------------------- sharing across processes

AGENT = ROOT / "tests" / "helpers" / "replica_agent.py"


def agent(*args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, str(AGENT), *args], stdout=subprocess.PIPE, text=True, env=env
    )


def test_two_agent_processes_share_a_stream_and_a_third_replays_both(
    server: NatsServer,
) -> None:
    sessions = [fresh_session(), fresh_session()]
    writers = [agent("write", server.url, s, str(seed), "60") for seed, s in enumerate(sessions)]
    images = []
    for w in writers:
        out, _ = w.communicate(timeout=120)
        assert w.returncode == 0
        images.append(json.loads(out))
    reader = agent("read", server.url, *sessions)
    out, _ = reader.communicate(timeout=120)
    assert reader.returncode == 0
    replayed = json.loads(out)
    entries = [img.pop("entries") for img in images]
    assert replayed == images
    assert all(img["generation"] > 0 and img["position"] > 0 for img in images)
    # One stream: at least one session's sequence numbers skip the other's entries.
    assert any(img["position"] > n for img, n in zip(images, entries, strict=True))


# ---------------------------------------------------------------- read replicas


def converged(replica: crs.ReadReplica, writer: crs.CRS) -> bool:
    return image(replica.crs) == image(writer)


@settings(
    max_examples=2,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    deadline=None,
)
@given(ops=st.lists(mutations, min_size=10, max_size=40))
def test_nats_replica_converges(server: NatsServer, ops: list[tuple[str, Any]]) -> None:
    session = fresh_session()
    cps: list[crs.Checkpoint] = []
    with nats(server, session) as j, nats(server, session) as rj:
        writer = crs.CRS(journal=j)
        with crs.ReadReplica(rj) as replica:
            for op, arg in ops:
                run(writer, op, arg, cps)
            assert replica.wait_for(writer.journal_position(), timeout=30)
            assert converged(replica, writer)
            assert replica.error is None


def test_replica_serves_reads_and_refuses_mutations(server: NatsServer) -> None:
    session = fresh_session()
    with nats(server, session) as j, nats(server, session) as rj:
        writer = crs.CRS(journal=j)
        writer.record_step(step("s1", "grep", "failure"))
        writer.add_clause(clause("grep", "grep"))
        replica = crs.ReadReplica(rj)
        for _ in range(3):
            writer.update_proof_number(
                crs.ProofUpdate(node_id="n", type=crs.ProofUpdateType.INCREMENT, delta=2, source=1)
            )
        assert replica.wait_for(writer.journal_position(), timeout=30)
        r = replica.crs
        assert r.get_step_history("s1") == writer.get_step_history("s1")
        assert r.get_proof_status("n") == writer.get_proof_status("n")
        assert r.check_circuit_breaker("s1", "grep") == writer.check_circuit_breaker("s1", "grep")
        want = writer.check_decision_allowed("s1", "grep")
        assert not want.allowed
        assert r.check_decision_allowed("s1", "grep") == want  # no use recorded here...
        assert replica.wait_for(writer.journal_position(), timeout=30)
        assert converged(replica, writer)  # ...the writer's own record arrived instead
        assert r.snapshot().generation() == writer.generation()
        before = image(r)
        refused: list[Callable[[], object]] = [
            lambda: r.apply(crs.ProofDelta(1, {"x": crs.ProofNumber(proof=1)})),
            lambda: r.update_proof_number(crs.ProofUpdate(node_id="n", type=1, delta=1, source=1)),
            lambda: r.record_step(step("s1", "read", "success")),
            lambda: r.add_clause(clause("read", "grep")),
            lambda: r.record_similarity("a", "b", 0.5),
            lambda: r.clear_step_history("s1"),
            lambda: r.check_semantic_repetition("s1", "grep", "q"),
            lambda: r.restore(r.checkpoint()),
            lambda: r.load_image(writer.export_image()),
            lambda: r.replay_journal(rj),
        ]
        for mutate in refused:
            with pytest.raises(crs.ReadOnlyReplicaError, match="read replica"):
                mutate()
        assert image(r) == before
        replica.close()


def test_replica_converges_across_a_server_restart(server: NatsServer) -> None:
    session = fresh_session()
    j = nats(server, session, allow_degraded=True, request_timeout=1.0)
    rj = nats(server, session)
    writer = crs.CRS(journal=j)
    replica = crs.ReadReplica(rj)

    def burst(base: int, n: int) -> None:
        for i in range(n):
            writer.update_proof_number(
                crs.ProofUpdate(node_id=f"n{(base + i) % 7}", type=1, delta=1, source=1)
            )
            writer.record_step(step("s1", ["grep", "read"][i % 2], "success"))

    burst(0, 30)
    server.kill()
    burst(100, 10)  # kept in memory by the writer's journal (degraded)
    assert j.is_degraded()
    server.start()
    wait_until(lambda: not j.is_degraded())
    burst(200, 30)
    wait_until(lambda: converged(replica, writer))
    # No gaps, no duplicates: every entry of the stream was applied once, in order.
    assert replica.position() == j.stats().last_seq_num
    assert len(replica.crs.get_step_history("s1")) == 70
    assert replica.error is None
    replica.close()
    rj.close()
    j.close()


def test_replica_from_a_backup_after_a_checkpoint(server: NatsServer) -> None:
    session = fresh_session()
    with nats(server, session) as j, nats(server, session) as rj:
        writer = crs.CRS(journal=j)
        writer.apply(crs.ProofDelta(1, {"a": crs.ProofNumber(proof=1)}))
        base = writer.export_image()
        j.checkpoint(writer.journal_position())
        writer.apply(crs.ProofDelta(1, {"b": crs.ProofNumber(proof=2)}))
        with pytest.raises(crs.JournalSequenceGapError, match="base="):
            crs.ReadReplica(rj)
        with crs.ReadReplica(rj, base=base) as replica:
            assert replica.wait_for(writer.journal_position(), timeout=30)
            assert converged(replica, writer)


def test_replica_of_a_follower_owns_it(server: NatsServer) -> None:
    session = fresh_session()
    with nats(server, session) as j, nats(server, session) as rj:
        writer = crs.CRS(journal=j)
        writer.record_step(step("s1", "grep", "success"))
        follower = rj.follow()
        with crs.ReadReplica(follower) as replica:
            writer.record_similarity("k1", "k2", 0.5)
            assert replica.wait_for(writer.journal_position(), timeout=30)
            assert converged(replica, writer)
        assert follower._ended.is_set()  # stopped with the replica


def local(path: Path) -> crs.LocalJournal:
    cfg = dataclasses.replace(
        crs.DefaultJournalConfig(), path=str(path), session_id="t", sync_policy="none"
    )
    return crs.LocalJournal(cfg, crs.DeltaCodec())


def test_replica_of_a_local_journal_in_this_process(tmp_path: Path) -> None:
    with local(tmp_path / "j") as j:
        writer = crs.CRS(journal=j)
        writer.apply(crs.ProofDelta(1, {"a": crs.ProofNumber(proof=1)}))
        with crs.ReadReplica(j, poll_interval=0.01) as replica:
            for i in range(20):
                writer.record_similarity(f"k{i}", "k", 0.1)
            assert replica.wait_for(writer.journal_position(), timeout=30)
            assert converged(replica, writer)


def test_replica_of_a_local_journal_directory_written_by_another_process(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j"
    with local(path) as j:  # creates the directory
        crs.CRS(journal=j).apply(crs.ProofDelta(1, {"a": crs.ProofNumber(proof=1)}))
    with crs.ReadReplica(path, session_id="t", poll_interval=0.02) as replica:
        assert replica.wait_for(1, timeout=30)
        writer_proc = agent("write-local", str(path), "3", "40")
        out, _ = writer_proc.communicate(timeout=120)
        assert writer_proc.returncode == 0
        want = json.loads(out)
        assert replica.wait_for(want["position"], timeout=30)
        got = replica.crs._state_image()
        assert json.loads(json.dumps(got)) == want["image"]


def test_local_replica_detects_a_checkpoint_it_missed(tmp_path: Path) -> None:
    with local(tmp_path / "j") as j:
        writer = crs.CRS(journal=j)
        for i in range(3):
            writer.apply(crs.ProofDelta(1, {f"n{i}": crs.ProofNumber(proof=i)}))
        base = writer.export_image()
        j.checkpoint(2)
        with pytest.raises(crs.JournalSequenceGapError, match="base="):
            crs.ReadReplica(j)
        with crs.ReadReplica(j, base=base, poll_interval=0.01) as replica:
            writer.apply(crs.ProofDelta(1, {"x": crs.ProofNumber(proof=9)}))
            assert replica.wait_for(writer.journal_position(), timeout=30)
            assert converged(replica, writer)


def test_replica_arguments_are_checked(tmp_path: Path) -> None:
    with pytest.raises(crs.InvalidArgumentError, match="source"):
        crs.ReadReplica(42)
    with pytest.raises(crs.InvalidArgumentError, match="poll_interval"):
        crs.ReadReplica(tmp_path, poll_interval=0)


# ---------------------------------------------------------------- crs journal watch


def test_journal_watch_prints_stream_deltas_of_a_crs_journal(server: NatsServer) -> None:
    session = fresh_session()
    with nats(server, session) as j:
        writer = crs.CRS(journal=j)
        writer.apply(crs.ProofDelta(1, {"a": crs.ProofNumber(proof=1)}))
        writer.record_step(step("s1", "grep", "success"))
        writer.add_clause(clause("grep", "read"))
        writer.record_similarity("k1", "k2", 0.25)
        seqs = [item.seq_num for item in j.replay_stream()]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "crs", "journal", "watch", "--nats", server.url]
    out = subprocess.run(
        [*cmd, "--session", session, "--max", "4", "--timeout", "20"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=True,
    ).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["seq"] for line in lines] == seqs
    assert [line["type"] for line in lines] == ["proof", "record_step", "add_clause", "similarity"]
    assert "a" in lines[0]["summary"]


def test_journal_watch_reads_a_local_crs_journal(tmp_path: Path) -> None:
    with crs.CRS.open(tmp_path / "j") as writer:
        writer.apply(crs.ProofDelta(1, {"a": crs.ProofNumber(proof=1)}))
        writer.record_step(step("s1", "grep", "success"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "crs", "journal", "watch", str(tmp_path / "j")]
    out = subprocess.run(
        [*cmd, "--session", "crs", "--max", "2", "--timeout", "20"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=True,
    ).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(line["seq"], line["type"]) for line in lines] == [(1, "proof"), (2, "record_step")]
