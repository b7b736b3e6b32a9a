"""Red team, twelfth pass: an entry deleted from the middle of a NATS stream.

JetStream can delete one message from a stream (`nats stream rmm`, the delete-message API,
nats-py's `js.delete_msg`). A reader catching up read the entries around it and went on:
a guard opened on the project had lost a record (a call, a learned failure) and said
nothing. An op record is stored only right after the subject's last one, and the server
keeps the sequence it expected (`Nats-Expected-Last-Subject-Sequence`) with the message: a
reader that meets one whose predecessor it never read now reports the gap
(`JournalSequenceGapError`, skipped and counted with `skip_corrupted_deltas`).

Each check starts a real nats-server on 127.0.0.1 and deletes with a plain nats-py client.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crs._errors import JournalCorruptedError, JournalSequenceGapError
from crs._journal._nats import NATSJournal, NATSJournalConfig
from crs.guard import Guard
from nats_server import NatsServer, started_server

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def nats(tmp_path: Path) -> Iterator[NatsServer]:
    yield from started_server(tmp_path / "nats-store")


def _fp() -> str:
    return "fp"


async def _js(url: str, fn: Any) -> Any:
    import nats as nats_py

    nc = await nats_py.connect(url)
    try:
        return await fn(nc.jetstream())
    finally:
        await nc.close()


def _delete(url: str, stream: str, seq: int) -> None:
    """`nats stream rmm STREAM SEQ`, as another client does it."""

    async def rm(js: Any) -> None:
        assert await js.delete_msg(stream, seq)

    asyncio.run(_js(url, rm))


def _journal(url: str, session: str = "s1", **kw: Any) -> NATSJournal:
    return NATSJournal(NATSJournalConfig(session_id=session, servers=url, **kw))


def _chain(j: NATSJournal, n: int, tag: str = "e") -> list[int]:
    """`n` entries, each appended right after the subject's last (as a project writes)."""
    seqs: list[int] = []
    last = 0
    for i in range(n):
        last, _ = j.append_after({"op": tag, "i": i}, last)
        seqs.append(last)
    return seqs


def test_a_guard_opened_after_a_record_was_deleted_says_so(
    nats: NatsServer, tmp_path: Path
) -> None:
    """Five calls of a guard on NATS; the fourth record is deleted from the stream. Before
    this pass a guard opened on the project saw four calls and nothing wrong. Now opening it
    fails with the journal error that names the missing record, of its own type (the
    kernel's replay passes the reader's gap error on, not as a damaged record)."""
    project = tmp_path / "p"
    project.mkdir()
    with Guard.open(project, "s", nats=nats.url, fingerprint=_fp) as g:
        for i in range(5):
            v = g.before_call("bash", {"command": f"ls dir{i}"})
            assert v.call is not None
            g.after_call(v.call, result=f"file{i}")
        assert g.status()["calls"] == 5
    _delete(nats.url, "CRS_DELTAS", 4)
    with pytest.raises(JournalSequenceGapError, match=r"seq 4 is missing.*seq 5") as got:
        Guard.open(project, "s", nats=nats.url, fingerprint=_fp)
    assert not isinstance(got.value, JournalCorruptedError)


def test_replay_and_follow_report_the_deleted_entry(nats: NatsServer) -> None:
    """The journal's own readers: `replay` raises the gap error, `follow` yields it as an
    error item for the missing sequence, `backup` raises it."""
    with _journal(nats.url) as j:
        seqs = _chain(j, 6)
        _delete(nats.url, "CRS_DELTAS", seqs[2])
        with pytest.raises(JournalSequenceGapError, match=f"seq {seqs[2]} is missing"):
            j.replay()
        with j.follow() as follower:
            got = [follower.get(timeout=5) for _ in range(3)]
        assert [(i.seq_num, i.delta) for i in got[:2]] == [
            (seqs[0], {"op": "e", "i": 0}),
            (seqs[1], {"op": "e", "i": 1}),
        ]
        assert got[2] is not None
        assert got[2].seq_num == seqs[2]
        assert not got[2].skipped
        assert isinstance(got[2].err, JournalSequenceGapError)
        with pytest.raises(JournalSequenceGapError):
            j.backup(io.BytesIO())


def test_skip_corrupted_deltas_goes_on_and_counts_the_gap(nats: NatsServer) -> None:
    with _journal(nats.url) as j:
        seqs = _chain(j, 5)
    _delete(nats.url, "CRS_DELTAS", seqs[1])
    with _journal(nats.url, skip_corrupted_deltas=True) as j:
        assert [e["i"] for e in j.replay()] == [0, 2, 3, 4]
        assert j.stats().corrupted_count == 1


def test_gaps_that_are_not_this_subjects_are_not_reported(nats: NatsServer) -> None:
    """Negatives: another session's entries between this one's (the stream's sequences skip
    for every reader) and one of them deleted; a checkpoint that purged this subject's early
    entries."""
    with _journal(nats.url, "a") as a, _journal(nats.url, "b") as b:
        la = lb = 0
        mine: list[int] = []
        for i in range(4):
            la, _ = a.append_after({"i": i}, la)
            mine.append(la)
            lb, _ = b.append_after({"other": i}, lb)
        _delete(nats.url, "CRS_DELTAS", lb)  # b's last: between nothing of a's
        _delete(nats.url, "CRS_DELTAS", mine[1] + 1)  # b's second, between a's entries
        assert [e["i"] for e in a.replay()] == [0, 1, 2, 3]
        a.checkpoint(mine[1])  # purges a's entries up to there
        la, _ = a.append_after({"i": 4}, la)
        assert [e["i"] for e in a.replay()] == [2, 3, 4]
        with a.follow() as follower:
            assert [follower.get(timeout=5).delta["i"] for _ in range(3)] == [2, 3, 4]
        assert a.stats().corrupted_count == 0


def test_a_deleted_last_entry_never_leaves_a_silently_empty_session(nats: NatsServer) -> None:
    """The subject's last entry deleted: no later entry names it, so the gap itself cannot
    be seen; but on a server that then answers "no last message" for the subject (Debian's
    nats-server 2.9) a replay read none of the entries the stream still holds, and said
    nothing. Now either the entries before it are replayed (a server that keeps track) or
    opening says what happened, with its type; never an empty session."""
    with _journal(nats.url) as j:
        seqs = _chain(j, 4)
    _delete(nats.url, "CRS_DELTAS", seqs[-1])
    said: str | None = None
    got: list[int] = []
    try:
        with _journal(nats.url) as j:
            got = [e["i"] for e in j.replay()]
    except JournalSequenceGapError as exc:
        said = str(exc)
    if said is None:
        assert got == [0, 1, 2]
    else:
        assert "last record was deleted" in said
        assert "crs backup restore" in said
