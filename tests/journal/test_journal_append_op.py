"""`_core.wal_append_op` (a shared journal's append of one op record with its encoding in the
same call: the durable guard's record per finished call) against its Python reference
`_append_op_py` on real files: the same status and the same bytes on disk for every payload
(plain JSON data, data only Python's `json` encodes, a record over the size limit) and every
state `wal_append_shared` is tested in; and a journal that takes it (`_append_op_fast`) writes
the bytes `DeltaCodec.encode_op` gives, refuses a record over the limit with nothing written,
and takes the general path for what the one call does not encode."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pytest
from _wal_files import HEAD, count_appends, wal_files
from hypothesis import given, settings
from hypothesis import strategies as st

from crs import InvalidArgumentError, _core
from crs._journal import _local
from crs._journal._base import MAX_RECORD_BYTES, JournalConfig
from crs._journal._local import LocalJournal, _append_op_ahead_py, _append_op_py
from crs._state._codec import _JSON_HEAD, DeltaCodec

_plain = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)  # (past 64 bits: Python's json)
    | st.text(max_size=30)  # (lone surrogates included: Python's json)
    | st.floats(allow_nan=True),  # (floats: Python's json)
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.tuples(kids, kids)
        | st.dictionaries(st.text(max_size=8), kids, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.text(max_size=6), _plain, max_size=5),
    st.sampled_from(["guard.step", "guard.msg", 'a "kind"\n']),
    st.booleans(),
    st.sampled_from([0, 40, MAX_RECORD_BYTES]),
    st.sampled_from([0, 60, 1 << 20]),
    st.booleans(),
    st.booleans(),
)
def test_the_rust_op_append_is_its_python_reference(
    tmp_path_factory: pytest.TempPathFactory,
    payload: dict[str, Any],
    kind: str,
    bump: bool,
    max_bytes: int,
    room: int,
    ours: bool,
    zero_tail: bool,
) -> None:
    lock = HEAD if ours else HEAD[:40] + b"%020d\n" % 8
    base = Path(tmp_path_factory.mktemp("op"))
    log, after = b"log", bytes(64) if zero_tail else b""
    results = []
    for name, fn in (
        ("rust", _core.wal_append_op),
        ("python", _append_op_py),
        # the same, the record's sync handed to the worker once it is written (a ticket)
        ("rust_ahead", _core.wal_append_op_ahead),
        ("python_ahead", _append_op_ahead_py),
    ):
        lock_fd, fd = wal_files(base / name, lock, log + after)
        try:
            got = fn(
                lock_fd, fd, HEAD, len(log), 9, _JSON_HEAD, kind, payload, bump, max_bytes,
                room, zero_tail, 0,
            )  # fmt: skip
            if len(got) == 3:
                ticket = got[2]
                assert ticket == 0 or got[0] == 0  # (a sync only of a record written)
                if ticket:
                    assert _core.sync_wait(ticket, 1000) == 0  # (before the file closes)
                got = got[:2]
        finally:
            os.close(lock_fd)
            os.close(fd)
        results.append((got, (base / name / "seg").read_bytes()))
    assert results[0] == results[1] == results[2] == results[3]
    (status, value), seg = results[0]
    data = _core.json_compact({"op": kind, "payload": payload, "bump_generation": bump}, b"")
    if data is None:
        assert status == 7
    elif len(_JSON_HEAD + data) > max_bytes:
        assert (status, value) == (8, len(_JSON_HEAD + data))
    if status == 0:
        # the bytes the journal's codec gives for the record, framed
        frame = _core.wal_encode(9, [DeltaCodec().encode_op(kind, payload, bump)])
        assert seg[: len(log) + value] == log + frame
    else:
        assert seg == log + after  # nothing written
    assert (status == 0) == (
        ours and data is not None and len(_JSON_HEAD + data) <= max_bytes
        and len(_JSON_HEAD + data) + 24 <= room
    )  # fmt: skip


def _journal(path: Path) -> LocalJournal:
    return LocalJournal(JournalConfig(path=str(path), session_id="s", shared=True), DeltaCodec())


def test_a_journal_writes_the_codec_s_bytes_in_one_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = count_appends(monkeypatch)
    j = _journal(tmp_path / "j")
    payload = {"s": "sess", "n": 1, "t": "read_file", "pv": 'src/"a"\n.py', "ev": [1, 2]}
    seq = j._append_op_fast("guard.step", payload, False, j.last_seq())
    j._settle()  # (the sync, if the worker took it)
    assert seq == 1
    assert [got[0] for got in calls] == [0]
    j.close()
    again = _journal(tmp_path / "j")
    assert list(again.replay()) == [
        {"op": "guard.step", "payload": payload, "bump_generation": False}
    ]
    again.close()


def test_what_the_one_call_cannot_encode_takes_the_general_path(tmp_path: Path) -> None:
    j = _journal(tmp_path / "j")
    payload = {"x": 0.5, "big": 2**70}  # (floats, ints past 64 bits: Python's json)
    assert j._append_op_fast("guard.step", payload, False, j.last_seq()) == 0
    assert j.last_seq() == 0  # nothing written
    with pytest.raises(InvalidArgumentError):  # (NaN: no JSON; the general path says so)
        j._encode_op("guard.step", {"x": math.nan}, False)
    assert j._append_op_fast("guard.step", {"x": math.nan}, False, j.last_seq()) == 0
    assert j.last_seq() == 0
    j.close()


def test_a_record_over_the_size_limit_is_refused_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_local, "MAX_RECORD_BYTES", 200)
    j = _journal(tmp_path / "j")
    assert j._append_op_fast("guard.step", {"a": "x" * 10}, False, j.last_seq()) == 1
    size = os.path.getsize(j._segments[-1].path)
    with pytest.raises(InvalidArgumentError, match=r"delta encodes to \d+ bytes; the limit is 200"):
        j._append_op_fast("guard.step", {"a": "x" * 300}, False, j.last_seq())
    assert j.last_seq() == 1
    assert os.path.getsize(j._segments[-1].path) == size
    j.close()
    again = _journal(tmp_path / "j")
    assert [e["payload"] for e in again.replay()] == [{"a": "x" * 10}]
    again.close()


def test_another_codec_keeps_its_own_encoding(tmp_path: Path) -> None:
    class Codec(DeltaCodec):  # a subclass may encode otherwise: not the one-call path
        pass

    j = LocalJournal(JournalConfig(path=str(tmp_path / "j"), session_id="s", shared=True), Codec())
    assert j._append_op_fast("guard.step", {"a": 1}, False, j.last_seq()) == 0
    assert j.last_seq() == 0
    j.close()
