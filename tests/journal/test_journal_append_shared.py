"""`_core.wal_append_shared` (a shared journal's one-call append) against its Python
reference `_append_shared_py`, on real files: the same status and the same bytes on disk
for every state the writer can find (its own `LOCK` head or another's, another writer's
record after its end, no room left, the lock busy; a preallocated segment's zero tail and
the space allocated ahead), and a journal that uses it reads back
what it wrote, with other writers in between."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest
from _wal_files import HEAD, wal_files
from hypothesis import given, settings
from hypothesis import strategies as st

from crs import _core
from crs._journal import _local
from crs._journal._base import JournalConfig
from crs._journal._local import LocalJournal, _append_shared_py


@settings(max_examples=150, deadline=None)
@given(
    st.binary(max_size=300),
    st.sampled_from(["ours", "other stamp", "other generation", "short"]),
    st.binary(max_size=40),
    st.binary(max_size=8),
    st.integers(min_value=1, max_value=2**40),
    st.sampled_from([0, 10, 30, 1 << 20]),
    st.booleans(),
)
def test_the_rust_append_is_its_python_reference(
    tmp_path_factory: object,
    payload: bytes,
    lock_state: str,
    log: bytes,
    after: bytes,
    seq: int,
    room: int,
    busy: bool,
) -> None:
    lock = {
        "ours": HEAD,
        "other stamp": b"99 shared".ljust(40) + HEAD[40:],
        "other generation": HEAD[:40] + b"%020d\n" % 8,
        "short": HEAD[:30],
    }[lock_state]
    base = Path(tmp_path_factory.mktemp("a"))  # type: ignore[attr-defined]
    results = []
    for name, fn in (("rust", _core.wal_append_shared), ("python", _append_shared_py)):
        lock_fd, fd = wal_files(base / name, lock, log + after)
        blocker = -1
        try:
            if busy:  # another writer holds the lock (another open file description)
                blocker = os.open(base / name / "LOCK", os.O_RDWR)
                fcntl.flock(blocker, fcntl.LOCK_EX)
            got = fn(lock_fd, fd, HEAD, len(log), seq, payload, room)
            # the lock is released whatever happened
            if blocker >= 0:
                fcntl.flock(blocker, fcntl.LOCK_UN)
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(lock_fd, fcntl.LOCK_UN)
        finally:
            for f in (lock_fd, fd, blocker):
                if f >= 0:
                    os.close(f)
        results.append(
            (got, (base / name / "seg").read_bytes(), (base / name / "LOCK").read_bytes())
        )
    assert results[0] == results[1]
    (status, size), seg, _ = results[0]
    if status == 0:
        assert seg == log + _core.wal_encode(seq, [payload])
        assert size == len(seg) - len(log)
    else:
        assert seg == log + after  # nothing written
    expect_written = not busy and lock_state == "ours" and not after
    expect_written = expect_written and len(_core.wal_encode(seq, [payload])) <= room
    assert (status == 0) == expect_written


@settings(max_examples=150, deadline=None)
@given(
    st.binary(max_size=200),
    st.binary(max_size=60),
    st.sampled_from(["", "zeros", "zeros+byte", "short zeros", "random"]),
    st.booleans(),
    st.sampled_from([0, 1, 100, 8192]),
    st.booleans(),
)
def test_the_rust_append_with_a_zero_tail_is_its_python_reference(
    tmp_path_factory: pytest.TempPathFactory,
    payload: bytes,
    log: bytes,
    tail: str,
    zero_tail: bool,
    grow: int,
    ours: bool,
) -> None:
    after = {
        "": b"",
        "zeros": bytes(4096),
        "zeros+byte": bytes(30) + b"\x01" + bytes(100),
        "short zeros": bytes(10),
        "random": b"\x07" + bytes(50),
    }[tail]
    lock = HEAD if ours else HEAD[:40] + b"%020d\n" % 8
    grow_to = len(log) + grow if grow > 1 else grow
    base = Path(tmp_path_factory.mktemp("z"))
    results = []
    for name, fn in (("rust", _core.wal_append_shared), ("python", _append_shared_py)):
        lock_fd, fd = wal_files(base / name, lock, log + after)
        try:
            got = fn(lock_fd, fd, HEAD, len(log), 5, payload, 1 << 20, zero_tail, grow_to)
        finally:
            os.close(lock_fd)
            os.close(fd)
        results.append((got, (base / name / "seg").read_bytes()))
    assert results[0] == results[1]
    (status, size), seg = results[0]
    frame = _core.wal_encode(5, [payload])
    free = not after or (zero_tail and not after[:24].strip(b"\0"))
    assert (status == 0) == (ours and free)
    if status == 0:
        assert seg[: len(log) + size] == log + frame
        assert len(seg) >= max(len(log) + len(frame), grow_to)
        assert not seg[len(log) + size :].strip(b"\0") or tail == "zeros+byte"
    else:
        assert seg == log + after


def test_a_write_error_is_reported_and_cut_back(tmp_path: Path) -> None:
    for fn in (_core.wal_append_shared, _append_shared_py):
        lock_fd, fd = wal_files(tmp_path / fn.__name__, HEAD, b"log")
        ro = os.open(tmp_path / fn.__name__ / "seg", os.O_RDONLY)  # a write fails: EBADF
        try:
            status, err = fn(lock_fd, ro, HEAD, 3, 1, b"payload", 1 << 20)
        finally:
            for f in (lock_fd, fd, ro):
                os.close(f)
        assert status in (3, 4)
        assert err == 9  # EBADF
        assert (tmp_path / fn.__name__ / "seg").read_bytes() == b"log"


def test_a_journal_reads_back_what_the_fast_path_wrote_between_other_writers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = _local._wal_append_shared

    def counted(*args: object) -> tuple[int, int]:
        got = real(*args)  # type: ignore[arg-type]
        calls.append(got[0])
        return got

    monkeypatch.setattr(_local, "_wal_append_shared", counted)
    cfg = JournalConfig(path=str(tmp_path / "j"), session_id="s", shared=True)
    a, b = LocalJournal(cfg), LocalJournal(cfg)
    with a, b:
        want = []
        for i in range(30):
            j = a if i % 5 else b  # b writes every fifth record
            if j is a:
                payload = a._codec.encode(f"record {i}")
                seq = a._append_fast(payload, a.last_seq())
                if not seq:  # another writer's record first: the general path
                    seq = a.append(f"record {i}")
            else:
                seq = b.append(f"record {i}")
            want.append(f"record {i}")
            assert seq == i + 1
        assert list(a.replay()) == want
        assert list(b.replay()) == want
    assert 0 in calls  # the fast path ran,
    assert 2 in calls  # and stepped aside after another writer's record
