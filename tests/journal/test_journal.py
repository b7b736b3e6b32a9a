"""Journal semantics shared by MemoryJournal and LocalJournal, and LocalJournal's own behaviour."""

from __future__ import annotations

import dataclasses
import io
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import crs
from crs import (
    DefaultJournalConfig,
    Journal,
    JournalConfig,
    LocalJournal,
    MemoryJournal,
)

Factory = Callable[..., Journal]


def local_config(path: Path, **kw: object) -> JournalConfig:
    base = dataclasses.replace(
        DefaultJournalConfig(), path=str(path), session_id="s1", segment_bytes=4096
    )
    return dataclasses.replace(base, **kw)  # type: ignore[arg-type]


@pytest.fixture(params=["memory", "local"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Factory]:
    opened: list[Journal] = []

    def factory(**kw: object) -> Journal:
        if request.param == "memory":
            cfg = JournalConfig(session_id="m", in_memory=True, **kw)  # type: ignore[arg-type]
            j: Journal = MemoryJournal(cfg)
        else:
            j = LocalJournal(local_config(tmp_path / f"j{len(opened)}", **kw))
        opened.append(j)
        return j

    yield factory
    for j in opened:
        j.close()


def test_config_validation_names_the_field() -> None:
    with pytest.raises(crs.InvalidArgumentError, match="session_id"):
        JournalConfig(path="x").validate()
    with pytest.raises(crs.InvalidArgumentError, match=r"^path: must be a directory"):
        JournalConfig(session_id="s").validate()
    with pytest.raises(crs.InvalidArgumentError, match="max_journal_bytes"):
        JournalConfig(session_id="s", in_memory=True, max_journal_bytes=-1).validate()
    with pytest.raises(crs.InvalidArgumentError, match="sync_policy"):
        JournalConfig(session_id="s", in_memory=True, sync_policy="sometimes").validate()
    with pytest.raises(crs.InvalidArgumentError, match="segment_bytes"):
        JournalConfig(session_id="s", in_memory=True, segment_bytes=10).validate()
    with pytest.raises(crs.InvalidArgumentError, match="batch_interval"):
        JournalConfig(session_id="s", in_memory=True, batch_interval=float("nan")).validate()
    d = DefaultJournalConfig()
    assert (d.sync_writes, d.max_journal_bytes, d.effective_sync_policy) == (
        True,
        1 << 30,
        crs.SyncPolicy.ALWAYS,
    )
    assert JournalConfig().effective_sync_policy is crs.SyncPolicy.NONE


def test_append_replay_and_sequence_numbers(make: Factory) -> None:
    j = make()
    assert isinstance(j, Journal)
    assert j.append({"a": 1}) == 1
    assert j.append_batch([{"b": 2}, [3], "four"]) == 4
    assert j.replay() == [{"a": 1}, {"b": 2}, [3], "four"]
    assert j.replay(after_seq=2) == [[3], "four"]
    items = list(j.replay_stream())
    first = items[0]
    assert (first.seq_num, first.delta, first.err, first.skipped) == (1, {"a": 1}, None, False)
    assert [i.seq_num for i in items] == [1, 2, 3, 4]
    st = j.stats()
    assert (st.total_deltas, st.last_seq_num, st.degraded) == (4, 4, False)
    assert j.is_available()
    assert not j.is_degraded()


def test_bad_arguments_write_nothing(make: Factory) -> None:
    j = make()
    with pytest.raises(crs.NilDeltaJournalError):
        j.append(None)
    with pytest.raises(crs.InvalidArgumentError, match="must not be empty"):
        j.append_batch([])
    with pytest.raises(crs.NilDeltaJournalError, match="index 1"):
        j.append_batch([{"x": 1}, None])
    with pytest.raises(crs.InvalidArgumentError, match="JSON-safe"):
        j.append({"x": float("nan")})
    with pytest.raises(crs.InvalidArgumentError, match="after_seq"):
        j.replay(after_seq=-1)
    assert j.replay() == []
    assert j.append("ok") == 1  # nothing burned a sequence number


def test_checkpoint_and_closed_journal(make: Factory) -> None:
    j = make()
    for i in range(10):
        j.append(i)
    j.checkpoint(6)
    assert j.replay() == [6, 7, 8, 9]
    with pytest.raises(crs.InvalidArgumentError, match="seq"):
        j.checkpoint(11)
    j.checkpoint()
    assert j.replay() == []
    st = j.stats()
    assert (st.checkpoint_seq, st.total_deltas, st.last_seq_num) == (10, 0, 10)
    assert st.last_checkpoint is not None
    assert j.append("after") == 11
    j.close()
    j.close()  # idempotent
    assert not j.is_available()
    with pytest.raises(crs.JournalClosedError):
        j.append(1)
    with pytest.raises(crs.JournalClosedError):
        j.replay()
    with pytest.raises(crs.JournalClosedError), j:
        pass


def test_size_limit_and_automatic_checkpoint(make: Factory) -> None:
    j = make(max_journal_bytes=2000)
    n = 0
    while j.stats().total_bytes < 1900:
        n = j.append({"i": n, "pad": "x" * 20})
    with pytest.raises(crs.JournalFullError, match="max_journal_bytes"):
        j.append({"i": n, "pad": "x" * 20 * 10})
    assert j.stats().last_seq_num == n
    assert len(j.replay()) == n  # the refused append left nothing behind
    k = make(max_journal_bytes=2000, auto_checkpoint=True)
    for i in range(1000):
        k.append({"i": i, "pad": "x" * 20})
    assert k.stats().last_seq_num == 1000
    assert k.replay()[-1] == {"i": 999, "pad": "x" * 20}


def test_backup_restore_is_portable_between_journals(make: Factory, tmp_path: Path) -> None:
    j = make()
    for i in range(50):
        j.append({"i": i})
    j.checkpoint(20)
    buf = io.BytesIO()
    j.backup(buf)
    for target in (MemoryJournal(), LocalJournal(local_config(tmp_path / "other"))):
        with target:
            target.append("old content")
            buf.seek(0)
            target.restore(buf)
            assert target.replay() == [{"i": i} for i in range(20, 50)]
            assert target.append("next") == 51
            assert target.stats().checkpoint_seq == 20


def test_truncated_backup_restores_nothing(make: Factory) -> None:
    j = make()
    for i in range(30):
        j.append(i)
    buf = io.BytesIO()
    j.backup(buf)
    data = buf.getvalue()
    k = MemoryJournal()
    k.append("keep")
    for cut in (1, 10, len(data) // 2, len(data) - 1):
        with pytest.raises(crs.JournalCorruptedError):
            k.restore(io.BytesIO(data[:cut]))
    assert k.replay() == ["keep"]


def test_json_codec_checks_its_version() -> None:
    codec = crs.JsonCodec()
    assert codec.decode(codec.encode({"a": [1, "é"]})) == {"a": [1, "é"]}
    with pytest.raises(crs.JournalCorruptedError, match="version"):
        codec.decode(b'{"v":2,"e":1}')
    with pytest.raises(crs.JournalCorruptedError):
        codec.decode(b"\xff")
    assert crs.BytesCodec().decode(crs.BytesCodec().encode(b"\x00raw")) == b"\x00raw"


# ---------------------------------------------------------------- LocalJournal only


def test_reopen_keeps_everything_across_segments(tmp_path: Path) -> None:
    cfg = local_config(tmp_path)
    with LocalJournal(cfg) as j:
        for i in range(500):
            j.append({"i": i, "pad": "p" * 30})
        assert j.stats().segments > 3
    with LocalJournal(cfg) as j:
        assert j.replay() == [{"i": i, "pad": "p" * 30} for i in range(500)]
        assert j.append("more") == 501
        segments = j.stats().segments
        j.checkpoint(400)
        assert j.stats().segments < segments  # whole segments below 400 are gone
        assert [e["i"] for e in j.replay()[:-1]] == list(range(400, 500))
    with LocalJournal(cfg) as j:
        assert len(j.replay()) == 101
        assert j.stats().checkpoint_seq == 400


@pytest.mark.parametrize(
    ("policy", "interval"), [("always", 0.0), ("batch", 0.0), ("batch", 0.002), ("none", 0.0)]
)
def test_sync_policies_with_concurrent_writers(
    tmp_path: Path, policy: str, interval: float
) -> None:
    cfg = local_config(tmp_path, sync_policy=policy, segment_bytes=1 << 20, batch_interval=interval)
    with LocalJournal(cfg) as j:
        seqs: list[int] = []
        lock = threading.Lock()

        def writer(t: int) -> None:
            for i in range(25):
                s = j.append({"t": t, "i": i})
                with lock:
                    seqs.append(s)

        threads = [threading.Thread(target=writer, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(seqs) == list(range(1, 101))
        j.sync()
    with LocalJournal(cfg) as j:
        entries = j.replay()
        assert len(entries) == 100
        for t in range(4):
            assert [e["i"] for e in entries if e["t"] == t] == list(range(25))


def test_one_writer_per_directory_and_read_only_readers(tmp_path: Path) -> None:
    cfg = local_config(tmp_path, lock_timeout=0.0)
    with LocalJournal(cfg) as j:
        j.append("a")
        with pytest.raises(crs.JournalLockedError, match="locked by another writer"):
            LocalJournal(cfg)
        with LocalJournal(dataclasses.replace(cfg, read_only=True)) as r:
            assert r.replay() == ["a"]
            with pytest.raises(crs.JournalError, match="read_only"):
                r.append("b")
    with LocalJournal(cfg) as j:  # the lock went with the first writer
        assert j.replay() == ["a"]


def test_torn_final_write_is_truncated_on_open(tmp_path: Path) -> None:
    cfg = local_config(tmp_path, preallocate=False)
    with LocalJournal(cfg) as j:
        j.append({"n": 1})
        j.append_batch([{"n": 2}, {"n": 3}])
    seg = next(tmp_path.glob("*.wal"))
    whole = seg.read_bytes()
    one = len(whole) - 2 * (24 + len(b'{"v":1,"e":{"n":2}}'))
    for cut in range(one + 1, len(whole)):  # any cut inside the batch drops the whole batch
        seg.write_bytes(whole[:cut])
        with LocalJournal(cfg) as j:
            assert j.replay() == [{"n": 1}]
            assert 0 < j.stats().torn_bytes <= cut - one
            assert j.append({"n": "next"}) == 2
        seg.write_bytes(whole)


def test_degraded_mode_when_allowed(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(crs.JournalDegradedError, match="allow_degraded"):
        LocalJournal(local_config(blocker))
    with LocalJournal(local_config(blocker, allow_degraded=True)) as j:
        assert j.is_degraded()
        assert not j.is_available()
        assert j.append("kept in memory") == 1
        assert j.replay() == ["kept in memory"]
        assert j.stats().degraded


def test_interrupted_restore_rolls_forward_or_back(tmp_path: Path) -> None:
    cfg = local_config(tmp_path / "j")
    src = MemoryJournal()
    src.append_batch(list(range(5)))
    buf = io.BytesIO()
    src.backup(buf)
    with LocalJournal(cfg) as j:
        j.append("old")
    # A restore that died before its manifest was written is dropped on open.
    (tmp_path / "j" / "restore.tmp").mkdir()
    (tmp_path / "j" / "restore.tmp" / "00000000000000000001.wal").write_bytes(b"junk")
    with LocalJournal(cfg) as j:
        assert j.replay() == ["old"]
        buf.seek(0)
        j.restore(buf)
        assert j.replay() == list(range(5))
    assert not (tmp_path / "j" / "restore.tmp").exists()
    assert sorted(os.listdir(tmp_path / "j")) == [
        "00000000000000000001.wal",
        "CHECKPOINT",
        "LOCK",
    ]


def test_json_decode_never_merges_foreign_payloads(tmp_path: Path) -> None:
    cfg = local_config(tmp_path)
    with LocalJournal(cfg, crs.BytesCodec()) as j:
        j.append(b'{"v":1,"e":[1')
        j.append(b'2]},{"v":1,"e":3}')
    with LocalJournal(cfg) as j, pytest.raises(crs.JournalCorruptedError, match="entry 1"):
        j.replay()
    # (One JSON parse over the joined payloads would read them as two valid entries.)


def test_full_handler_decides_the_checkpoint(make: Factory) -> None:
    j = make(max_journal_bytes=3000, auto_checkpoint=True)
    covered: list[int] = []

    def save_state() -> int:
        covered.append(j.stats().last_seq_num)  # a real handler saves a backup here
        return covered[-1]

    j.set_full_handler(save_state)  # type: ignore[attr-defined]
    for i in range(300):
        j.append({"i": i, "pad": "x" * 20})
    assert covered
    assert j.stats().checkpoint_seq == covered[-1]
    assert j.replay() == [{"i": i, "pad": "x" * 20} for i in range(covered[-1], 300)]


def test_in_memory_local_journal_touches_no_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with LocalJournal(JournalConfig(session_id="m", in_memory=True)) as j:
        j.append("x")
        assert j.replay() == ["x"]
        assert not j.is_degraded()
    assert list(tmp_path.iterdir()) == []


def test_missing_segment_is_a_sequence_gap(tmp_path: Path) -> None:
    cfg = local_config(tmp_path)
    with LocalJournal(cfg) as j:
        for i in range(300):
            j.append({"i": i, "pad": "g" * 30})
    segments = sorted(tmp_path.glob("*.wal"))
    assert len(segments) >= 3
    segments[1].unlink()
    with LocalJournal(cfg) as j:
        with pytest.raises(crs.JournalSequenceGapError, match="expected seq"):
            j.replay()
        items = list(j.replay_stream())
        assert isinstance(items[-1].err, crs.JournalSequenceGapError)
    with LocalJournal(dataclasses.replace(cfg, skip_corrupted_deltas=True)) as j:
        got = j.replay()
        lost = j.stats().corrupted_count
        assert lost > 0
        assert len(got) + lost == 300
    segments[0].unlink()  # now the journal starts after where the checkpoint (0) says
    with LocalJournal(cfg) as j, pytest.raises(crs.JournalSequenceGapError, match="starts at"):
        j.replay()


def test_replay_while_another_thread_appends_and_checkpoints(tmp_path: Path) -> None:
    cfg = local_config(tmp_path, sync_policy="none")
    with LocalJournal(cfg) as j:
        stop = threading.Event()

        def writer() -> None:
            i = 0
            while not stop.is_set():
                j.append_batch([{"i": i + k, "pad": "c" * 40} for k in range(5)])
                i += 5
                if i % 100 == 0:
                    j.checkpoint(i - 50)

        t = threading.Thread(target=writer)
        t.start()
        deadline = time.monotonic() + 30
        replays = 0
        try:
            while replays < 20 or j.stats().checkpoint_seq < 500:
                assert time.monotonic() < deadline, "the writer made no progress"
                got = [e["i"] for e in j.replay()]
                replays += 1
                if got:
                    assert got == list(range(got[0], got[0] + len(got)))
        finally:
            stop.set()
            t.join()


def test_entries_larger_than_a_segment(tmp_path: Path) -> None:
    cfg = local_config(tmp_path)  # 4 KiB segments
    big = {"blob": "b" * 20_000}
    with LocalJournal(cfg) as j:
        j.append("small")
        j.append(big)
        j.append_batch([big, "tail"])
    with LocalJournal(cfg) as j:
        assert j.replay() == ["small", big, big, "tail"]
        assert j.append("next") == 5


def _four_segments_streamed(tmp_path: Path) -> tuple[LocalJournal, Iterator[crs.DeltaOrError]]:
    j = LocalJournal(local_config(tmp_path))
    for i in range(400):
        j.append({"i": i, "pad": "s" * 30})
    return j, j.replay_stream()


def test_a_checkpoint_during_a_replay_stream_cuts_no_hole(tmp_path: Path) -> None:
    j, stream = _four_segments_streamed(tmp_path)
    with j:
        got = [next(stream).delta["i"]]
        j.checkpoint(300)  # drops the segments the stream has not read yet
        assert j.stats().segments < 4
        got += [item.delta["i"] for item in stream]
        assert got == list(range(400))  # was: the dropped segments' records left out


def test_replay_stream_reads_one_segment_at_a_time(tmp_path: Path) -> None:
    j, stream = _four_segments_streamed(tmp_path)
    with j:
        first = next(stream)
        assert (first.seq_num, first.delta["i"]) == (1, 0)
        # Not read yet: the stream finds it damaged. (A segment deleted meanwhile is still
        # read: the stream opened every segment when it started, so a checkpoint that drops
        # segments while it reads cannot cut a hole in what it returns.)
        with open(sorted(tmp_path.glob("*.wal"))[-2], "r+b") as f:
            f.seek(40)
            f.write(b"\xff" * 8)
        items = list(stream)
        assert items[-1].err is not None
        assert isinstance(items[-1].err, crs.JournalCorruptedError)
        assert all(i.err is None for i in items[:-1])


def test_last_checkpoint_is_known_after_a_reopen(tmp_path: Path) -> None:
    """The seed's `LastCheckpoint` "is when the last checkpoint occurred": a journal opened
    on a directory that holds a checkpoint reports it, not None; one that never had a
    checkpoint reports None."""
    fresh = LocalJournal(local_config(tmp_path / "fresh"))
    fresh.append({"n": 1})
    assert fresh.stats().last_checkpoint is None
    fresh.close()
    assert LocalJournal(local_config(tmp_path / "fresh")).stats().last_checkpoint is None
    j = LocalJournal(local_config(tmp_path / "j"))
    j.append({"n": 2})
    j.checkpoint()
    taken = j.stats().last_checkpoint
    assert taken is not None
    j.close()
    again = LocalJournal(local_config(tmp_path / "j"))
    try:
        seen = again.stats().last_checkpoint
        assert seen is not None
        assert abs((seen - taken).total_seconds()) < 5
    finally:
        again.close()
