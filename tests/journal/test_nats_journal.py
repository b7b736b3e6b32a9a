"""NATSJournal against a real nats-server with JetStream (started per test on a free port)."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import crc32c
import pytest

from crs._errors import (
    InvalidArgumentError,
    JournalClosedError,
    JournalCorruptedError,
    JournalError,
    JournalFullError,
    JournalUnavailableError,
    NilDeltaJournalError,
)
from crs._journal._base import DeltaOrError, JsonCodec, MemoryJournal, read_backup_stream
from crs._journal._nats import NATSJournal, NATSJournalConfig
from crs._journal._nats_async import AsyncNATSJournal, NATSStreamConfig
from nats_server import NatsServer, nats_server_binary

pytestmark = [
    pytest.mark.skipif(nats_server_binary() is None, reason="nats-server missing"),
    pytest.mark.timeout(120),
]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[NatsServer]:
    srv = NatsServer(tmp_path / "store")
    srv.start()
    yield srv
    srv.stop()


def cfg(server: NatsServer, session: str = "s1", **kw: Any) -> NATSJournalConfig:
    return NATSJournalConfig(session_id=session, servers=server.url, **kw)


def entry(i: int, tag: str = "e") -> dict[str, Any]:
    return {"op": tag, "payload": {"i": i, "text": f"π-{i}", "nested": [i, {"x": None}]}}


async def _raw(server: NatsServer, fn: Any) -> Any:
    import nats

    nc = await nats.connect(server.url)
    try:
        return await fn(nc.jetstream())
    finally:
        await nc.close()


def raw(server: NatsServer, fn: Any) -> Any:
    """Run `fn(js)` on a separate plain nats-py connection (what another client would see)."""
    return asyncio.run(_raw(server, fn))


def subject_count(server: NatsServer, subject: str) -> int:
    async def go(js: Any) -> int:
        info = await js.stream_info("CRS_DELTAS", subjects_filter=subject)
        return int((info.state.subjects or {}).get(subject, 0))

    return int(raw(server, go))


def append_many(j: NATSJournal, ids: range, acked: list[dict[str, Any]] | None = None) -> None:
    for i in ids:
        j.append(entry(i), msg_id=f"k{i}")
        if acked is not None:
            acked.append(entry(i))


def wait_until(pred: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError("condition not reached in time")


# ---------------------------------------------------------------- basics


def test_round_trip_and_reopen(server: NatsServer) -> None:
    entries = [entry(i) for i in range(50)] + [{"op": "empty", "payload": {}}]
    with NATSJournal(cfg(server)) as j:
        for e in entries:
            j.append(e)
        assert j.replay() == entries
        assert j.is_available()
        assert not j.is_degraded()
        st = j.stats()
        assert st.total_deltas == len(entries)
        assert st.last_seq_num == len(entries)
        assert j.append(entry(99)) == len(entries) + 1
        entries.append(entry(99))
    # A new journal (another process would do the same) sees everything, in order.
    with NATSJournal(cfg(server)) as j2:
        t0 = time.monotonic()
        assert j2.replay() == entries
        # Replay stops at the subject's last sequence: no idle wait (the Go journal waits 1 s).
        assert time.monotonic() - t0 < 0.5
        with NATSJournal(cfg(server, "empty")) as empty:
            t0 = time.monotonic()
            assert empty.replay() == []
            assert time.monotonic() - t0 < 0.5
        assert [x.seq_num for x in j2.replay_stream()] == list(range(1, len(entries) + 1))


def test_records_carry_crc32c_framing(server: NatsServer) -> None:
    with NATSJournal(cfg(server)) as j:
        j.append(entry(7))

    async def get(js: Any) -> bytes:
        msg = await js.get_last_msg("CRS_DELTAS", "crs.s1.delta")
        assert msg.headers
        assert "Nats-Msg-Id" in msg.headers
        return bytes(msg.data)

    data = raw(server, get)
    assert int.from_bytes(data[:4], "big") == crc32c.crc32c(data[4:])


def test_batch_ordering(server: NatsServer) -> None:
    expected: list[dict[str, Any]] = []
    with NATSJournal(cfg(server)) as j:
        for b in range(5):
            batch = [entry(b * 1000 + i, "batch") for i in range(200)]
            j.append_batch(batch)
            expected += batch
            j.append(entry(b, "single"))
            expected.append(entry(b, "single"))
        items = list(j.replay_stream())
    assert [x.delta for x in items] == expected
    seqs = [x.seq_num for x in items]
    assert seqs == sorted(seqs)
    assert len(set(seqs)) == len(seqs)


def test_sessions_are_isolated_and_sequences_shared(server: NatsServer) -> None:
    with NATSJournal(cfg(server, "a")) as a, NATSJournal(cfg(server, "b")) as b:
        for i in range(10):
            a.append(entry(i, "a"))
            b.append(entry(i, "b"))
        assert a.replay() == [entry(i, "a") for i in range(10)]
        assert b.replay() == [entry(i, "b") for i in range(10)]
        assert [x.seq_num for x in a.replay_stream()] == list(range(1, 21, 2))


def test_argument_and_state_errors(server: NatsServer) -> None:
    with pytest.raises(InvalidArgumentError, match=r"^session_id: must be a non-empty str"):
        NATSJournal(NATSJournalConfig(servers=server.url))
    with pytest.raises(InvalidArgumentError, match="subject token"):
        NATSJournal(cfg(server, "a.b"))
    with pytest.raises(InvalidArgumentError, match=r"^max_bytes: must be -1"):
        NATSStreamConfig(max_bytes=0).validate()
    with pytest.raises(InvalidArgumentError, match=r"^stream\.replicas: must be an int"):
        NATSJournal(dataclasses.replace(cfg(server), stream=NATSStreamConfig(replicas="1")))  # type: ignore[arg-type]
    with pytest.raises(JournalError, match="ensure_stream"):
        NATSJournal(cfg(server, stream_name="MISSING", create_stream=False))
    j = NATSJournal(cfg(server))
    with pytest.raises(NilDeltaJournalError):
        j.append(None)
    with pytest.raises(InvalidArgumentError, match="must not be empty"):
        j.append_batch([])
    with pytest.raises(NilDeltaJournalError, match="index 1"):
        j.append_batch([entry(0), None])
    j.close()
    j.close()  # idempotent
    with pytest.raises(JournalClosedError):
        j.append(entry(1))


def test_max_journal_bytes(server: NatsServer) -> None:
    with NATSJournal(cfg(server, max_journal_bytes=2000)) as j:
        with pytest.raises(JournalFullError, match="max_journal_bytes"):
            append_many(j, range(100))
        n = len(j.replay())
        assert 0 < n < 100
        j.checkpoint()  # a checkpoint makes room again
        j.append(entry(1000))
        assert j.replay() == [entry(1000)]


def test_stream_limit_refuses_instead_of_dropping(server: NatsServer) -> None:
    limited = NATSStreamConfig(max_bytes=4096)
    with NATSJournal(cfg(server, "lim", stream_name="SMALL", stream=limited)) as j:
        with pytest.raises(JournalFullError, match="SMALL"):
            append_many(j, range(200))
        assert len(j.replay()) < 200


# ---------------------------------------------------------------- checkpoint, backup, restore


def test_checkpoint_purges_and_replay_starts_after_it(server: NatsServer) -> None:
    with NATSJournal(cfg(server)) as j:
        j.checkpoint()  # empty: a no-op
        j.append_batch([entry(i) for i in range(10)])
        j.checkpoint()
        assert j.replay() == []
        assert subject_count(server, "crs.s1.delta") == 0
        assert subject_count(server, "crs.s1.checkpoint") == 1
        j.append_batch([entry(i) for i in range(10, 15)])
        assert j.stats().last_checkpoint is not None
        assert j.stats().checkpoint_seq == 10
    with NATSJournal(cfg(server)) as j2:
        assert j2.replay() == [entry(i) for i in range(10, 15)]
        assert j2.stats().total_deltas == 5


def test_checkpoint_at_a_sequence_and_replay_after(server: NatsServer) -> None:
    with NATSJournal(cfg(server)) as j:
        seqs = [j.append(entry(i)) for i in range(6)]
        assert seqs == sorted(seqs)
        assert j.replay(after_seq=seqs[3]) == [entry(4), entry(5)]
        j.checkpoint(seqs[2])
        assert j.replay() == [entry(3), entry(4), entry(5)]
        j.checkpoint(seqs[1])  # an older checkpoint changes nothing
        assert j.replay() == [entry(3), entry(4), entry(5)]
        with pytest.raises(InvalidArgumentError, match="seq must be"):
            j.checkpoint(seqs[-1] + 1)
        with pytest.raises(InvalidArgumentError, match="after_seq"):
            j.replay(after_seq=-1)


def test_backup_frames_and_restore(server: NatsServer) -> None:
    entries = [entry(i) for i in range(300)]
    buf = io.BytesIO()
    with NATSJournal(cfg(server, "src")) as j:
        j.append_batch(entries[:100])
        j.checkpoint()
        j.append_batch(entries[100:])
        j.backup(buf)
    data = buf.getvalue()
    # Frames: 4-byte big-endian length, then the body (header, 200 records, trailer).
    off, frames = 0, 0
    while off < len(data):
        (n,) = struct.unpack(">I", data[off : off + 4])
        off += 4 + n
        frames += 1
    assert frames == 202
    assert off == len(data)
    cp, records = read_backup_stream(io.BytesIO(data))
    got = list(records)
    assert cp == 0
    assert [seq for seq, _ in got] == list(range(1, 201))
    assert [JsonCodec().decode(p) for _, p in got] == entries[100:]

    with NATSJournal(cfg(server, "dst")) as d:
        d.append(entry(-1))  # replaced by the restore
        d.restore(io.BytesIO(data))
        assert d.replay() == entries[100:]
        d.restore(io.BytesIO(data))  # a retried restore replaces again: nothing twice
        assert d.replay() == entries[100:]
        with pytest.raises(JournalCorruptedError, match="truncated"):
            d.restore(io.BytesIO(data[:-3]))
        bad = bytearray(data)
        first_record = 4 + struct.unpack(">I", data[:4])[0]
        bad[first_record + 4 + 12 + 2] ^= 0xFF  # a payload byte of the first record
        with pytest.raises(JournalCorruptedError, match="CRC"):
            d.restore(io.BytesIO(bytes(bad)))
        assert d.replay() == entries[100:]  # nothing changed by the failed restores
        assert d.stats().total_deltas == 200


def test_backups_are_portable_between_journals(server: NatsServer) -> None:
    mem = MemoryJournal()
    mem.append_batch([entry(i) for i in range(10)])
    buf = io.BytesIO()
    mem.backup(buf)
    with NATSJournal(cfg(server)) as j:
        j.restore(io.BytesIO(buf.getvalue()))
        assert j.replay() == [entry(i) for i in range(10)]
        j.append(entry(10))
        out = io.BytesIO()
        j.backup(out)
    back = MemoryJournal()
    back.restore(io.BytesIO(out.getvalue()))
    assert back.replay() == [entry(i) for i in range(11)]


# ---------------------------------------------------------------- corruption


def _inject(server: NatsServer, record: bytes) -> None:
    async def pub(js: Any) -> None:
        await js.publish("crs.s1.delta", record)

    raw(server, pub)


@pytest.mark.parametrize(
    "record",
    [
        pytest.param(b"\x00\x00", id="short"),
        pytest.param(b"\xde\xad\xbe\xef" + b'{"v":1}', id="bad-crc"),
    ],
)
def test_crc_corruption_detected_or_skipped(server: NatsServer, record: bytes) -> None:
    with NATSJournal(cfg(server)) as j:
        j.append(entry(0))
    _inject(server, record)
    with NATSJournal(cfg(server)) as j:
        j.append(entry(2))
        with pytest.raises(JournalCorruptedError, match="seq 2"):
            j.replay()
        items = list(j.replay_stream())
        assert [x.delta for x in items] == [entry(0), None]
        assert isinstance(items[-1].err, JournalCorruptedError)
        assert not items[-1].skipped
    with NATSJournal(cfg(server, skip_corrupted_deltas=True)) as j:
        assert j.replay() == [entry(0), entry(2)]
        assert j.stats().corrupted_count == 1
        skipped = [x for x in j.replay_stream() if x.skipped]
        assert [x.seq_num for x in skipped] == [2]


def test_duplicate_publishes_are_stored_once(server: NatsServer) -> None:
    with NATSJournal(cfg(server)) as j:
        j.append(entry(1), msg_id="agent-7-step-1")
        j.append(entry(1), msg_id="agent-7-step-1")  # a retry after a lost ack
        j.append(entry(2), msg_id="agent-7-step-2")
        assert j.replay() == [entry(1), entry(2)]

    with NATSJournal(cfg(server, "b")) as j:
        batch = [entry(i) for i in range(5)]
        j.append(batch[0], msg_id="batch-1.0")  # as if a first try stored only entry 0
        j.append_batch(batch, msg_id="batch-1")  # the retry
        j.append_batch(batch, msg_id="batch-1")  # and once more
        assert j.replay() == batch

    async def dup(js: Any) -> tuple[bool, bool]:
        h = {"Nats-Msg-Id": "raw-1"}
        first = await js.publish("crs.s1.delta", b"x", headers=h)
        second = await js.publish("crs.s1.delta", b"x", headers=h)
        return bool(first.duplicate), bool(second.duplicate)

    assert raw(server, dup) == (False, True)


# ---------------------------------------------------------------- outages


def test_server_killed_mid_append_degraded_then_recovers(server: NatsServer) -> None:
    j = NATSJournal(cfg(server, allow_degraded=True, request_timeout=1.0))
    acked: list[dict[str, Any]] = []
    stop = threading.Event()

    def writer() -> None:
        i = 0
        while not stop.is_set():
            e = entry(i)
            j.append(e)  # never raises: degraded mode keeps it in memory
            acked.append(e)
            i += 1

    t = threading.Thread(target=writer)
    t.start()
    wait_until(lambda: len(acked) > 100)
    server.kill()
    wait_until(j.is_degraded)
    n_at_kill = len(acked)
    wait_until(lambda: len(acked) > n_at_kill + 50)
    assert not j.is_available()
    server.start()
    wait_until(lambda: not j.is_degraded())
    stop.set()
    t.join(30)
    replayed = j.replay()
    j.close()
    # Everything acknowledged is there exactly once, in order (flushed with the same ids).
    assert replayed == acked


def test_server_killed_strict_mode_raises_cleanly_and_loses_nothing(server: NatsServer) -> None:
    j = NATSJournal(cfg(server, request_timeout=1.0))
    acked: list[dict[str, Any]] = []
    for i in range(50):
        j.append(entry(i))
        acked.append(entry(i))
    server.kill()
    wait_until(lambda: not j.is_available())
    assert not j.is_degraded()  # degraded mode is off: appends are refused, not kept
    with pytest.raises(JournalUnavailableError, match="allow_degraded"):
        append_many(j, range(50, 100), acked)
    server.start()
    # The caller retries the refused entry with its key; it is stored once.
    i = len(acked)
    deadline = time.monotonic() + 20
    while True:
        try:
            j.append(entry(i), msg_id=f"k{i}")
            break
        except JournalUnavailableError:
            assert time.monotonic() < deadline
            time.sleep(0.1)
    acked.append(entry(i))
    assert j.replay() == acked
    j.close()


def test_unreachable_at_open(tmp_path: Path) -> None:
    srv = NatsServer(tmp_path / "store")  # not started yet
    url_cfg = NATSJournalConfig(session_id="s1", servers=srv.url, connect_timeout=0.5)
    with pytest.raises(JournalUnavailableError, match="cannot connect"):
        NATSJournal(url_cfg)
    degraded_cfg = NATSJournalConfig(
        session_id="s1", servers=srv.url, connect_timeout=0.5, allow_degraded=True
    )
    j = NATSJournal(degraded_cfg)
    try:
        assert j.is_degraded()
        j.append(entry(0))
        srv.start()
        wait_until(lambda: not j.is_degraded())
        assert j.replay() == [entry(0)]
    finally:
        j.close()
        srv.stop()


# ---------------------------------------------------------------- sharing


def test_concurrent_appenders_keep_each_writers_order(server: NatsServer) -> None:
    with NATSJournal(cfg(server)) as j:

        def write(w: int) -> None:
            for i in range(100):
                if i % 10 == 0:
                    j.append_batch([entry(i + k, f"w{w}") for k in range(3)])
                j.append(entry(i, f"w{w}"))

        threads = [threading.Thread(target=write, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        got = j.replay()
    assert len(got) == 4 * 130
    for w in range(4):
        mine = [e for e in got if e["op"] == f"w{w}"]
        expected: list[dict[str, Any]] = []
        for i in range(100):
            if i % 10 == 0:
                expected += [entry(i + k, f"w{w}") for k in range(3)]
            expected.append(entry(i, f"w{w}"))
        assert mine == expected


_AGENT = """
import sys
from crs._journal._nats import NATSJournal, NATSJournalConfig
url, session, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with NATSJournal(NATSJournalConfig(session_id=session, servers=url)) as j:
    for i in range(n):
        j.append({"op": session, "payload": {"i": i}})
"""

_REPLAYER = """
import json, sys
from crs._journal._nats import NATSJournal, NATSJournalConfig
url = sys.argv[1]
out = {}
for session in sys.argv[2:]:
    with NATSJournal(NATSJournalConfig(session_id=session, servers=url)) as j:
        out[session] = [e["payload"]["i"] for e in j.replay()]
print(json.dumps(out))
"""


def test_two_agent_processes_one_stream_third_replays(server: NatsServer) -> None:
    agents = [
        subprocess.Popen([sys.executable, "-c", _AGENT, server.url, s, "200"])
        for s in ("agent-a", "agent-b")
    ]
    for p in agents:
        assert p.wait(60) == 0
    out = subprocess.run(
        [sys.executable, "-c", _REPLAYER, server.url, "agent-a", "agent-b"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    import json

    assert json.loads(out.stdout) == {"agent-a": list(range(200)), "agent-b": list(range(200))}


def test_live_follower_converges(server: NatsServer) -> None:
    writer = NATSJournal(cfg(server, "live"))
    writer.append_batch([entry(i) for i in range(20)])
    reader = NATSJournal(cfg(server, "live"))
    seen: list[Any] = []
    follower = reader.follow(lambda item: seen.append(item.delta))
    for b in range(10):
        writer.append_batch([entry(100 + b * 10 + i) for i in range(10)])
        writer.append(entry(1000 + b))
    expected = writer.replay()
    wait_until(lambda: len(seen) >= len(expected))
    follower.stop()
    assert seen == expected
    # The iterator form, from a given sequence on.
    with reader.follow(from_seq=10) as it:
        first = it.get(timeout=10)
        assert first is not None
        assert first.seq_num == 10
        assert first.delta == entry(9)
    reader.close()
    writer.close()


def test_async_journal(server: NatsServer) -> None:
    async def go() -> list[Any]:
        j = await AsyncNATSJournal.open(cfg(server, "aio"))
        try:
            await j.append_batch([entry(i) for i in range(5)])
            await j.append(entry(5))
            got = [x.delta async for x in j.replay_stream()]
            assert got == await j.replay()
            assert (await j.stats()).total_deltas == 6
            return got
        finally:
            await j.close()

    assert asyncio.run(go()) == [entry(i) for i in range(6)]


def test_follower_resumes_after_server_restart(server: NatsServer) -> None:
    writer = NATSJournal(cfg(server, "ha", allow_degraded=True, request_timeout=1.0))
    reader = NATSJournal(cfg(server, "ha"))
    seen: list[int] = []
    follower = reader.follow(lambda item: seen.append(item.seq_num))
    writer.append_batch([entry(i) for i in range(50)])
    wait_until(lambda: len(seen) == 50)
    server.kill()
    writer.append_batch([entry(i) for i in range(50, 60)])  # kept in memory, degraded
    server.start()
    wait_until(lambda: not writer.is_degraded())
    writer.append_batch([entry(i) for i in range(60, 80)])
    expected = [x.seq_num for x in writer.replay_stream()]
    wait_until(lambda: len(seen) >= len(expected), timeout=30)
    follower.stop()
    assert seen == expected
    assert len(expected) == 80
    reader.close()
    writer.close()


def test_a_follower_started_while_the_server_is_away_follows_once_it_is_back(
    server: NatsServer,
) -> None:
    """A follower whose subscription could not be made (the server went away just before:
    a project opened as the server restarts) reported the failure and stopped for good, so
    the project's live feed was lost ("stopped following the project; reopen it"). It now
    subscribes again, with a backoff, while the journal is open, from the next entry."""
    writer = NATSJournal(cfg(server, "late", allow_degraded=True, request_timeout=1.0))
    writer.append_batch([entry(i) for i in range(5)])
    reader = NATSJournal(cfg(server, "late", request_timeout=1.0))
    server.kill()
    seen: list[DeltaOrError] = []
    follower = reader.follow(seen.append)
    time.sleep(1.5)  # (its first subscriptions fail: the server is away)
    server.start()
    writer.append_batch([entry(i) for i in range(5, 8)])
    wait_until(lambda: len(seen) >= 8, timeout=30)
    follower.stop()
    assert [x.err for x in seen] == [None] * len(seen)
    assert [x.seq_num for x in seen] == [x.seq_num for x in writer.replay_stream()]
    reader.close()
    writer.close()


def test_degraded_memory_is_bounded_by_max_journal_bytes(server: NatsServer) -> None:
    j = NATSJournal(cfg(server, allow_degraded=True, max_journal_bytes=3000, request_timeout=1.0))
    j.append(entry(0))
    server.kill()
    seqs: list[int] = []

    def fill() -> None:
        while True:
            seqs.append(j.append(entry(len(seqs) + 1)))

    with pytest.raises(JournalFullError, match="max_journal_bytes"):
        fill()
    kept = len(seqs)
    assert set(seqs) == {0}  # held in memory: no sequence number yet
    assert j.is_degraded()
    assert 0 < kept < 100
    assert j.stats().total_bytes <= 3000
    server.start()
    wait_until(lambda: not j.is_degraded())
    assert j.replay() == [entry(i) for i in range(kept + 1)]
    j.close()


def test_nats_py_is_imported_lazily_with_an_install_hint() -> None:
    code = (
        "import sys\n"
        "import crs\n"
        "assert 'nats' not in sys.modules, 'import crs must not import nats-py'\n"
        "sys.modules['nats'] = None  # as if the extra were not installed\n"
        "try:\n"
        "    crs.NATSJournal(crs.NATSJournalConfig(session_id='s'))\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert "pip install 'crs-agent[nats]'" in out.stdout


def test_async_follow(server: NatsServer) -> None:
    async def go() -> list[Any]:
        writer = await AsyncNATSJournal.open(cfg(server, "af"))
        reader = await AsyncNATSJournal.open(cfg(server, "af"))
        try:
            await writer.append_batch([entry(i) for i in range(3)])
            got: list[Any] = []
            async for item in reader.follow():
                got.append(item.delta)
                if len(got) == 3:
                    await writer.append(entry(3))
                if len(got) == 4:
                    break
            return got
        finally:
            await reader.close()
            await writer.close()

    assert asyncio.run(asyncio.wait_for(go(), 30)) == [entry(i) for i in range(4)]


def test_server_killed_during_batches_retry_stores_each_entry_once(server: NatsServer) -> None:
    j = NATSJournal(cfg(server, request_timeout=1.0))
    acked: list[list[dict[str, Any]]] = []
    refused: list[int] = []
    stop = threading.Event()

    def writer() -> None:
        b = 0
        while not stop.is_set():
            batch = [entry(b * 100 + i) for i in range(64)]
            deadline = time.monotonic() + 30
            while True:  # an agent's retry loop: the same key until acknowledged
                try:
                    j.append_batch(batch, msg_id=f"batch-{b}")
                    break
                except JournalUnavailableError:
                    refused.append(b)
                    assert time.monotonic() < deadline
                    time.sleep(0.05)
            acked.append(batch)
            b += 1

    t = threading.Thread(target=writer)
    t.start()
    wait_until(lambda: len(acked) >= 5)
    server.kill()  # while batches are in flight
    wait_until(lambda: len(refused) >= 2)
    server.start()
    n = len(acked)
    wait_until(lambda: len(acked) >= n + 5)
    stop.set()
    t.join(60)
    assert refused  # the outage was hit
    assert j.replay() == [e for batch in acked for e in batch]
    j.close()


def _open_together(server: NatsServer, name: str) -> tuple[list[NATSJournal], list[BaseException]]:
    import threading

    opened: list[NATSJournal] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def open_one(session: str) -> None:
        barrier.wait()
        try:
            # What is tested is the lookup/create race, not speed: on a loaded CI machine both
            # racing creates once went unanswered (ensure_stream now asks again).
            c = cfg(server, session, stream_name=name, connect_timeout=10.0, request_timeout=10.0)
            opened.append(NATSJournal(c))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_one, args=(s,)) for s in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return opened, errors


@pytest.mark.parametrize("round_", range(3))
def test_agents_opening_one_new_stream_at_once_both_succeed(
    server: NatsServer, round_: int
) -> None:
    # Two agents creating the same project stream race between lookup and create; the loser
    # must find and update the stream, not fail with "subjects overlap" (seen once in a full
    # run). The window is narrow, so this exercises concurrent opening rather than forcing
    # the race; a fresh server per round, so the stream really is new each time.
    opened, errors = _open_together(server, f"RACE_{round_}")
    try:
        # A loaded machine can leave a racing request unanswered for the whole timeout (seen
        # twice in CI, both opens at once); ensure_stream then asks again. What must never
        # happen is any other error ("subjects overlap", "name already in use"): an open
        # that only timed out is retried once, alone, and must then succeed.
        assert [e for e in errors if "TimeoutError" not in str(e)] == []
        for e in errors:
            assert isinstance(e, JournalUnavailableError)
            opened.append(
                NATSJournal(cfg(server, f"retry-{len(opened)}", stream_name=f"RACE_{round_}"))
            )
        assert len(opened) == 2
        assert [j.append(entry(i)) > 0 for i, j in enumerate(opened)] == [True, True]
    finally:
        for j in opened:
            j.close()
