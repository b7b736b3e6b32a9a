"""The guard's memory lives in the CRS engine: journaled, backed up, restored, continued by a
new process, with at most one fsync per call pair and no fsync on the event loop."""

from __future__ import annotations

import asyncio
import errno
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import crs
from crs._journal import _local
from crs.guard import Action, Guard, Verdict

# An event: ("call", tool, arg, result-or-error) | ("msg", text) | ("turn",)
CALL = st.tuples(
    st.just("call"),
    st.sampled_from(["read", "grep", "bash"]),
    st.integers(0, 2),
    st.sampled_from(["x", "y", "!boom", "!timed out"]),
)
EVENT = st.one_of(
    CALL, CALL, CALL, st.tuples(st.just("msg"), st.sampled_from(["hm", "ok"])), st.just(("turn",))
)


def play(g: Guard, ev: tuple[Any, ...]) -> list[tuple[str, str, tuple[int, ...], int]]:
    """Feed one event; the verdicts it produced as comparable tuples."""

    def key(v: Verdict) -> tuple[str, str, tuple[int, ...], int]:
        return (str(v.action), str(v.code), v.evidence, v.call.step if v.call else 0)

    if ev[0] == "turn":
        g.new_turn()
        return [("turn", "", (), 0)]
    if ev[0] == "msg":
        return [key(g.on_message(ev[1]))]
    _, tool, arg, res = ev
    v = g.before_call(tool, {"arg": arg})
    out = [key(v)]
    if v.allowed:
        assert v.call is not None
        if res.startswith("!"):
            out.append(key(g.after_call(v.call, error=res[1:])))
        else:
            out.append(key(g.after_call(v.call, result=res)))
    return out


@settings(max_examples=15, deadline=None)
@given(events=st.lists(EVENT, min_size=1, max_size=30), cuts=st.sets(st.integers(1, 29)))
def test_a_reopened_guard_continues_exactly(
    tmp_path_factory: pytest.TempPathFactory, events: list[Any], cuts: set[int]
) -> None:
    base = tmp_path_factory.mktemp("cont")
    with Guard.open(base, "s", home=base / "h1", fingerprint=lambda: "fp") as g:
        straight = [play(g, ev) for ev in events]
    pieces: list[Any] = []
    g = Guard.open(base, "s", home=base / "h2", fingerprint=lambda: "fp")
    try:
        for i, ev in enumerate(events):
            if i in cuts:  # a new process: everything comes back from the journal
                g.close()
                g = Guard.open(base, "s", home=base / "h2", fingerprint=lambda: "fp")
            pieces.append(play(g, ev))
    finally:
        g.close()
    assert pieces == straight


def loop(g: Guard, n: int) -> list[Verdict]:
    out = []
    for _ in range(n):
        v = g.before_call("read_file", {"path": "a.py"})
        out.append(v)
        if v.allowed:
            assert v.call is not None
            out.append(g.after_call(v.call, result="same"))
    return out


def test_backup_checkpoints_the_journal_and_the_guard_comes_back(tmp_path: Path) -> None:
    with Guard.open(tmp_path, "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
        loop(g, 2)
        g.crs.save_project_backup()
        assert g.crs._journal.stats().checkpoint_seq > 0
        before = g.explain()
    with Guard.open(tmp_path, "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
        assert g.crs.project_info().restored_from_backup
        assert g.explain()["recent"] == before["recent"]
        third = loop(g, 1)
        assert third[-1].action is Action.NUDGE  # the loop detection continued


def test_image_and_checkpoint_carry_the_guard_state(tmp_path: Path) -> None:
    g = Guard()
    loop(g, 2)
    cp = g.crs.checkpoint()
    image = g.crs.export_image()
    loop(g, 3)
    assert g.status()["level"] == "nudged"
    g.crs.restore(cp)
    assert g.status()["calls"] == 2
    assert g.status()["level"] == "calm"
    other = crs.CRS()
    other.load_image(image)
    assert other._parts["guard"].sessions["default"].calls == 2


def test_bad_image_part_changes_nothing() -> None:
    g = Guard()
    loop(g, 2)
    doc = g.crs._state_image()
    doc["guards"]["parts"]["guard"] = {"version": 99}
    with pytest.raises(crs.InvalidArgumentError, match="guard part"):
        g.crs._kernel.load_image(doc)
    assert g.status()["calls"] == 2


def test_one_journal_record_and_one_fsync_per_call_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = Guard.open(tmp_path, "s", home=tmp_path / "h", fingerprint=lambda: "f")
    journal = g.crs._journal
    first = journal.last_seq()

    def appends() -> list[Any]:  # the records written since (read back from the journal)
        return journal.replay(after_seq=first)

    syncs = [0]
    real_sync = os.fdatasync
    real_fsync = os.fsync

    def count(fd: int, real: Any = real_sync) -> None:
        syncs[0] += 1
        real(fd)

    monkeypatch.setattr(os, "fdatasync", count)
    monkeypatch.setattr(os, "fsync", lambda fd: count(fd, real_fsync))
    with g:
        for i in range(5):
            v = g.before_call("read_file", {"path": f"f{i}.py"})
            assert len(appends()) == i  # before_call writes nothing
            assert v.call is not None
            g.after_call(v.call, result=f"body {i}")
        assert syncs[0] <= 5
        assert len(appends()) == 5
        assert {a["op"] for a in appends()} == {"guard.step"}


@pytest.mark.parametrize("worker", [True, False], ids=["sync-worker", "inline-sync"])
def test_async_twins_write_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, worker: bool
) -> None:
    g = Guard.open(tmp_path, "s", home=tmp_path / "h", fingerprint=lambda: "f")
    threads: list[int] = []
    real_sync = os.fdatasync
    real_wait = _local._sync_wait

    def slow_sync(fd: int) -> None:
        threads.append(threading.get_ident())
        time.sleep(0.2)  # a slow disk
        real_sync(fd)

    def slow_wait(ticket: int, spin_us: int, pickup_us: int = 50) -> int:  # the worker sync
        threads.append(threading.get_ident())
        time.sleep(0.2)
        return real_wait(ticket, spin_us, pickup_us)

    monkeypatch.setattr(os, "fdatasync", slow_sync)
    if worker:
        assert _local._sync_start is not None  # (the machine has more than one CPU)
        monkeypatch.setattr(_local, "_sync_wait", slow_wait)
    else:
        monkeypatch.setattr(_local, "_sync_start", None)

    async def main() -> float:
        gaps: list[float] = []
        stop = False

        async def ticker() -> None:
            last = time.perf_counter()
            while not stop:
                await asyncio.sleep(0.01)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now

        task = asyncio.create_task(ticker())
        v = await g.abefore_call("read_file", {"path": "a.py"})
        assert v.call is not None
        await g.aafter_call(v.call, result="x")
        stop = True
        await task
        return max(gaps)

    with g:
        worst = asyncio.run(main())
        synced = list(threads)  # (closing syncs on this thread)
    assert synced
    assert threading.get_ident() not in synced
    assert worst < 0.15


def test_sanitized_text_only_reaches_the_journal(tmp_path: Path) -> None:
    secret = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 3
    with Guard.open(tmp_path, "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
        v = g.before_call("bash", {"command": f"curl -H 'x-api-key: {secret}' https://api"})
        assert v.call is not None
        g.after_call(v.call, error=f"401 unauthorized for key {secret}")
        v = g.before_call("search", {"query": f"why does {secret} fail with 401"})
        assert v.call is not None
        g.after_call(v.call, result=f"no results for {secret}")
        g.crs.save_project_backup(export_json=True)
        assert secret not in str(g.learned())
    data = b"".join(p.read_bytes() for p in (tmp_path / "h").rglob("*") if p.is_file())
    assert secret.encode() not in data
    assert b"[REDACTED]" in data or b"REDACTED" in data


def test_thread_safe() -> None:
    g = Guard()
    errors: list[BaseException] = []

    def worker(k: int) -> None:
        try:
            for i in range(200):
                v = g.before_call("read_file", {"path": f"t{k}/f{i}.py"})
                assert v.action is Action.ALLOW
                assert v.call is not None
                g.after_call(v.call, result=f"{k}-{i}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert g.status()["calls"] == 1600
    steps = [r["step"] for r in g.explain()["recent"]]
    assert len(steps) == len(set(steps))


def test_a_read_replica_follows_what_the_guard_knows(tmp_path: Path) -> None:
    writer = Guard.open(tmp_path, "s", home=tmp_path / "h", fingerprint=lambda: "f")
    with writer:
        loop(writer, 3)
        v = writer.before_call("build", {"t": "all"})
        assert v.call is not None
        writer.after_call(v.call, error="exit 2")
        journal = writer.crs._journal
        with crs.ReadReplica(journal) as replica:
            assert replica.wait_for(journal.stats().last_seq_num, timeout=10)
            reader = Guard(fingerprint=lambda: "f", _crs=replica.crs, _owns=False)
            assert reader.with_session("s").status() == {**writer.status(), "durable": False}
            assert [f.id for f in reader.learned()] == [f.id for f in writer.learned()]
            later = reader.with_session("s2")  # a later session reads the remembered failure
            assert (
                later._decide(
                    later._session(),
                    later.call_for("build", {"t": "all"}),
                    later._limits_for("build"),
                )
                is not None
            )


def test_a_failed_journal_append_changes_nothing(tmp_path: Path) -> None:
    g = Guard.open(tmp_path, "s", home=tmp_path / "h", fingerprint=lambda: "f")
    with g:
        loop(g, 1)
        before = g.explain()

        def full(fd: int, data: Any, pos: int) -> int:  # the disk is full
            raise OSError(errno.ENOSPC, "No space left on device (test)")

        with pytest.MonkeyPatch.context() as m:
            m.setattr(os, "pwrite", full)
            # (the shared append's one-call write: it cuts a failed write back, as this says)
            m.setattr(_local, "_wal_append_op", lambda *a: (3, errno.ENOSPC))
            m.setattr(_local, "_wal_append_op_ahead", lambda *a: (3, errno.ENOSPC, 0))
            v = g.before_call("read_file", {"path": "b.py"})
            assert v.call is not None
            with pytest.raises(crs.JournalFullError):
                g.after_call(v.call, result="x")
            with pytest.raises(crs.JournalFullError):
                g.new_turn()
            assert g.explain() == before
        assert g.after_call(v.call, result="x").allowed
