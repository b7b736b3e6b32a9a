"""Preallocated segments (header flag bit 1, `JournalConfig.preallocate`): space allocated
ahead with `posix_fallocate`, and the recovery rules that tell a torn final write (whole
sectors lost, read as zero) from damage to an acknowledged record (docs/journal-format.md,
"Preallocated segments").

- every single-bit flip and every single-byte zeroing of the last record of a flagged
  segment (JSON, and a binary ProofDelta whose payload, and whose last sector chunk, end in
  zero bytes) is corruption, never cut;
- simulated torn writes (the lost sectors of the last, unacknowledged write read as zero: a
  suffix, a middle sector, the first one; a truncation) recover the acknowledged prefix;
- shared writers in several processes, SIGKILL during appends, the size of a new project
  (`_core.wal_append_shared` with a zero tail against its Python reference:
  test_journal_append_shared.py; a full disk: test_journal_diskfull.py).
"""

from __future__ import annotations

import errno
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import crs
from crash_helpers import ACK, kill_at_random
from crs._core import crc32c
from crs._journal import _local
from crs._journal._local import (
    SEGMENT_PREALLOCATED,
    _one_byte_error,
    _one_byte_error_reference,
)

SEG, REC, SECTOR = 32, 24, 512


def cfg(path: Path, **kw: Any) -> crs.JournalConfig:
    """A preallocating journal of 1 MiB segments (as `DefaultJournalConfig()`, unsynced)."""
    fields = {"sync_policy": "none", "segment_bytes": 1 << 20, "preallocate": True, **kw}
    return crs.JournalConfig(path=str(path), session_id="p", lock_timeout=5.0, **fields)


def flags_of(seg: Path) -> int:
    return int.from_bytes(seg.read_bytes()[12:16], "little")


def records(data: bytes) -> list[tuple[int, int]]:
    """(offset, payload length) of each record of a clean segment, up to its zero tail."""
    out, pos = [], SEG
    while pos + REC <= len(data) and data[pos : pos + REC].strip(b"\0"):
        length = int.from_bytes(data[pos + 4 : pos + 8], "little")
        out.append((pos, length))
        pos += REC + length
    return out


def write(path: Path, entries: list[Any], codec: crs.JournalCodec | None = None) -> Path:
    with crs.LocalJournal(cfg(path), codec) as j:
        for e in entries:
            j.append(e)
    (seg,) = path.glob("*.wal")
    return seg


def outcome(path: Path, want: list[Any], codec: crs.JournalCodec | None = None) -> str:
    """ "detected" (a typed error), "prefix:N" (the first N entries, the rest cut as torn),
    or a failed assertion: wrong data."""
    try:
        with crs.LocalJournal(cfg(path), codec) as j:
            got = j.replay()
    except (crs.JournalCorruptedError, crs.JournalSequenceGapError):
        return "detected"
    assert got == want[: len(got)], "wrong data"
    return f"prefix:{len(got)}"


def pad_entries(n: int) -> list[dict[str, Any]]:
    return [{"i": i, "pad": "p" * (60 + i % 7)} for i in range(n)]


# ---------------------------------------------------------------- allocation


def test_a_segment_is_flagged_and_allocated_ahead_and_reopened_as_it_is(tmp_path: Path) -> None:
    want = pad_entries(200)
    seg = write(tmp_path, want)
    assert flags_of(seg) & SEGMENT_PREALLOCATED
    data = seg.read_bytes()
    end = sum(REC + n for _, n in records(data)) + SEG
    assert len(data) > end  # allocated ahead
    assert len(data) % 4096 == 0
    assert len(data) - end <= max(16 << 10, end) + 8192  # as much as the data, not more
    assert not data[end:].strip(b"\0")  # a zero tail
    with crs.LocalJournal(cfg(tmp_path)) as j:
        assert j.replay() == want
        assert j.stats().torn_bytes == 0
        assert j.stats().total_bytes == end  # what the records cost, not the allocation
        j.append({"i": "more"})
    assert seg.stat().st_size == len(data)  # the open kept the space, the append used it
    with crs.LocalJournal(cfg(tmp_path, read_only=True)) as r:
        assert r.replay() == [*want, {"i": "more"}]
    out = subprocess.run(
        [sys.executable, "-m", "crs", "journal", "verify", str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "201" in out.stdout


def test_without_preallocate_segments_grow_as_before(tmp_path: Path) -> None:
    with crs.LocalJournal(cfg(tmp_path, preallocate=False)) as j:
        for e in pad_entries(200):
            j.append(e)
        end = j._end
    (seg,) = tmp_path.glob("*.wal")
    assert not flags_of(seg) & SEGMENT_PREALLOCATED
    assert seg.stat().st_size == end
    # A writer that does not preallocate continues a flagged segment by its rules, and
    # allocates nothing more.
    flagged = write(tmp_path / "f", pad_entries(200))
    size = flagged.stat().st_size
    with crs.LocalJournal(cfg(tmp_path / "f", preallocate=False)) as j:
        for e in pad_entries(1000):
            j.append(e)
        end = j._end
    assert end > size
    assert flagged.stat().st_size == end  # grew past the allocation, by writes only
    with crs.LocalJournal(cfg(tmp_path / "f", read_only=True)) as r:
        assert r.replay() == pad_entries(200) + pad_entries(1000)


def test_chunks_grow_with_the_data_and_stop_at_the_segment_size(tmp_path: Path) -> None:
    sizes = []
    with crs.LocalJournal(cfg(tmp_path, segment_bytes=2 << 20)) as j:
        for i in range(3000):
            j.append({"i": i, "pad": "q" * 900})
            sizes.append(os.fstat(j._fd).st_size - j._end)
    assert max(sizes) <= (1 << 20) + 4096
    segs = sorted(tmp_path.glob("*.wal"))
    assert len(segs) >= 2
    for s in segs[:-1]:  # sealed: cut to their records
        data = s.read_bytes()
        assert flags_of(s) == 1 | SEGMENT_PREALLOCATED
        assert len(data) == SEG + sum(REC + n for _, n in records(data))
        assert len(data) <= 2 << 20
    with crs.LocalJournal(cfg(tmp_path, read_only=True)) as r:
        assert len(r.replay()) == 3000


def test_a_new_project_stays_small_on_disk(tmp_path: Path) -> None:
    from crs.guard import Guard

    with Guard.open(tmp_path / "p", "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
        for i in range(20):
            v = g.before_call("read_file", {"path": f"src/f{i}.py"})
            assert v.call is not None
            g.after_call(v.call, result=f"body {i}")
    used = sum(p.stat().st_blocks * 512 for p in (tmp_path / "h").rglob("*") if p.is_file())
    assert used < 96 << 10, used  # records, backups, metadata and one 16 KiB chunk


def test_a_failed_allocation_falls_back_to_growing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int, offset: int, length: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_local, "_FALLOCATE", full)
    want = pad_entries(300)
    seg = write(tmp_path, want)
    data = seg.read_bytes()
    assert len(data) == SEG + sum(REC + n for _, n in records(data))  # grew, lost nothing
    with crs.LocalJournal(cfg(tmp_path, read_only=True)) as r:
        assert r.replay() == want


def test_without_posix_fallocate_a_preallocating_journal_grows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_local, "_FALLOCATE", None)  # a platform without it (macOS)
    want = pad_entries(300)
    with crs.LocalJournal(cfg(tmp_path, shared=True)) as j:
        for e in want:
            assert j._append_fast(j._codec.encode(e), j.last_seq())
        end = j._end
    (seg,) = tmp_path.glob("*.wal")
    assert flags_of(seg) & SEGMENT_PREALLOCATED
    assert seg.stat().st_size == end
    with crs.LocalJournal(cfg(tmp_path, read_only=True)) as r:
        assert r.replay() == want


# ---------------------------------------------------------------- damage is never cut


def last_proof_ending_in_a_zero_chunk(path: Path, most: int = 7) -> tuple[Path, list[Any]]:
    """A flagged segment whose last record is a ProofDelta (its payload ends in the zero
    high bytes of `updated_at`) that ends 1..`most` bytes into a sector: its last sector
    chunk is all zero, as a lost sector would leave it."""
    codec = crs.DeltaCodec()
    for extra in range(600):
        d = path / f"t{extra}"
        want: list[Any] = [
            crs.DependencyDelta(1, add_edges=[(f"a{i}", "b" * 40)]) for i in range(80)
        ]
        want.append(crs.DependencyDelta(1, add_edges=[("pad", "x" * (1 + extra))]))
        want.append(crs.ProofDelta(2, {"n": crs.ProofNumber(proof=3, updated_at=7)}))
        seg = write(d, want, codec)
        off, n = records(seg.read_bytes())[-1]
        end = off + REC + n
        if 1 <= end % SECTOR <= most:
            return seg, want
        shutil.rmtree(d)
    raise AssertionError("no padding gave the layout")


def damage_cases(data: bytes, off: int, n: int) -> Iterator[tuple[str, bytes]]:
    for bit in range((REC + n) * 8):
        buf = bytearray(data)
        buf[off + bit // 8] ^= 1 << (bit % 8)
        yield f"flip {bit}", bytes(buf)
    for i in range(REC + n):
        if data[off + i]:
            buf = bytearray(data)
            buf[off + i] = 0
            yield f"zero {i}", bytes(buf)


@pytest.mark.parametrize("kind", ["json", "proof"])
def test_every_flip_and_zeroed_byte_of_the_last_record_is_corruption(
    fast_dir: Path, kind: str
) -> None:
    codec: crs.JournalCodec | None
    if kind == "proof":
        seg, want = last_proof_ending_in_a_zero_chunk(fast_dir)
        codec = crs.DeltaCodec()
    else:
        want = pad_entries(80)
        seg, codec = write(fast_dir / "j", want), None
    data = seg.read_bytes()
    assert flags_of(seg) & SEGMENT_PREALLOCATED
    off, n = records(data)[-1]
    assert not data[off + REC + n :].strip(b"\0")
    assert len(data) > off + REC + n
    if kind == "proof":
        assert data[off + REC + n - 7 : off + REC + n] == bytes(7)  # updated_at's high bytes
    counts: dict[str, int] = {}
    for name, damaged in damage_cases(data, off, n):
        seg.write_bytes(damaged)
        got = outcome(seg.parent, want, codec)
        assert got == "detected", f"{name}: {got}"
        # skip mode reports the record (skipped), never drops it silently
        with crs.LocalJournal(cfg(seg.parent, skip_corrupted_deltas=True), codec) as j:
            items = list(j.replay_stream())
        assert [i.seq_num for i in items] == list(range(1, len(want) + 1)), name
        assert items[-1].skipped, name
        counts[name.split()[0]] = counts.get(name.split()[0], 0) + 1
    seg.write_bytes(data)
    assert outcome(seg.parent, want, codec) == f"prefix:{len(want)}"
    assert counts["flip"] == (REC + n) * 8
    # every byte that is not zero already was zeroed once (how many there are depends on
    # the record's content: the proof record carries a time)
    nonzero = sum(1 for b in data[off : off + REC + n] if b)
    assert counts["zero"] == nonzero >= 16
    print(f"last record ({kind}, {n} byte payload): {counts} all detected")


def test_two_changed_bytes_beside_a_small_zero_chunk_are_corruption(fast_dir: Path) -> None:
    # A last sector chunk of 1..3 zero bytes (24 unknown bits at most) cannot explain a
    # random CRC mismatch but once in 2**8: damage elsewhere is corruption, not a lost sector.
    seg, want = last_proof_ending_in_a_zero_chunk(fast_dir, most=3)
    codec = crs.DeltaCodec()
    data = seg.read_bytes()
    off, n = records(data)[-1]
    body, end = off + REC, off + REC + n
    rnd = random.Random(17)
    counts: dict[str, int] = {}
    for _ in range(150):
        buf = bytearray(data)
        for i in rnd.sample(range(body, end - end % SECTOR), 2):
            buf[i] ^= rnd.randrange(1, 256)
        seg.write_bytes(bytes(buf))
        got = outcome(seg.parent, want, codec)
        counts[got] = counts.get(got, 0) + 1
    print(f"two changed bytes beside a {end % SECTOR}-byte zero chunk: {counts}")
    assert counts.get("detected", 0) >= 145


# ---------------------------------------------------------------- torn writes recover


def lose(data: bytes, start: int, end: int, sectors: list[int]) -> bytes:
    """`data` as a crash leaves it when the sectors `sectors` (file offset // 512) of the
    write `start..end` were lost: their part of the write reads as zero (preallocated)."""
    buf = bytearray(data)
    for s in sectors:
        a, b = max(start, s * SECTOR), min(end, (s + 1) * SECTOR)
        if a < b:
            buf[a:b] = bytes(b - a)
    return bytes(buf)


def torn_cases(start: int, end: int) -> Iterator[tuple[str, list[int]]]:
    first, last = start // SECTOR, (end - 1) // SECTOR
    span = list(range(first, last + 1))
    for s in span:
        yield f"sector {s - first}", [s]
    for k in range(1, len(span)):
        yield f"suffix from {k}", span[k:]
    rnd = random.Random(5)
    for i in range(20):
        pick = [s for s in span if rnd.random() < 0.5] or [span[-1]]
        if pick != span:
            yield f"random {i}", pick


@pytest.mark.parametrize("kind", ["json", "json_batch", "proof"])
def test_torn_final_writes_recover_the_acknowledged_prefix(fast_dir: Path, kind: str) -> None:
    codec: crs.JournalCodec | None = None
    acked: list[Any] = list(pad_entries(70))
    if kind == "proof":
        codec = crs.DeltaCodec()
        acked = [crs.DependencyDelta(1, add_edges=[(f"a{i}", "b" * 40)]) for i in range(70)]
        nodes = {f"node{k}": crs.ProofNumber(proof=k + 1, updated_at=k) for k in range(60)}
        last: list[Any] = [crs.ProofDelta(1, nodes)]
    elif kind == "json_batch":
        last = [{"batch": k, "pad": "b" * 700} for k in range(3)]
    else:
        last = [{"last": True, "pad": "".join(chr(65 + i % 26) for i in range(2000))}]
    d = fast_dir / "j"
    with crs.LocalJournal(cfg(d), codec) as j:
        for e in acked:
            j.append(e)
        start = j._end
        if len(last) == 1:
            j.append(last[0])
        else:
            j.append_batch(last)
        end = j._end
    (seg,) = d.glob("*.wal")
    data = seg.read_bytes()
    assert start // SECTOR != (end - 1) // SECTOR  # the write spans several sectors
    want = acked + last
    counts: dict[str, int] = {}
    for name, sectors in torn_cases(start, end):
        seg.write_bytes(lose(data, start, end, sectors))
        got = outcome(d, want, codec)
        counts[got] = counts.get(got, 0) + 1
        if kind == "json" or (kind == "json_batch" and name.startswith("suffix")):
            assert got == f"prefix:{len(acked)}", f"{name}: {got}"
        else:  # binary bytes may be zero; a batch torn before its last record: refused
            assert got in ("detected", f"prefix:{len(acked)}"), f"{name}: {got}"
        if got != "detected":
            seg.write_bytes(lose(data, start, end, sectors))
            with crs.LocalJournal(cfg(d), codec) as j:  # the writer cuts it, and goes on
                assert j.stats().torn_bytes > 0 or name.startswith("suffix from 0")
                j.append(acked[0])
            with crs.LocalJournal(cfg(d, read_only=True), codec) as r:
                assert r.replay() == [*acked, acked[0]]
    for cut in range(start + 1, end, 97):
        seg.write_bytes(data[:cut])
        assert outcome(d, want, codec) == f"prefix:{len(acked)}", cut
    print(f"torn writes ({kind}): {counts}")
    assert counts.get(f"prefix:{len(acked)}", 0) > len(counts) - 1


def test_a_zeroed_header_with_a_later_write_after_it_is_corruption(tmp_path: Path) -> None:
    # The record's first sector chunk zeroed (as a lost sector would) but a later record
    # (a later write) is intact: the zeroed one was acknowledged, never cut.
    want = pad_entries(80)
    seg = write(tmp_path, want)
    data = bytearray(seg.read_bytes())
    recs = records(bytes(data))
    tested = 0
    for idx in range(len(recs) - 12, len(recs) - 1):
        off, _ = recs[idx]
        b = (off // SECTOR + 1) * SECTOR
        if not any(o >= b for o, _ in recs):
            continue  # no whole record after the zeroed chunk: a torn write of several
        tested += 1
        buf = bytearray(data)
        buf[off:b] = bytes(b - off)
        seg.write_bytes(bytes(buf))
        assert outcome(tmp_path, want) == "detected", idx
    assert tested >= 3


# ---------------------------------------------------------------- the CRC arithmetic


def _explains(buf: bytes, i: int, crc: int) -> bool:
    """Whether some change of byte `i` of `buf` gives it the CRC `crc`."""
    out = bytearray(buf)
    for e in range(1, 256):
        out[i] = buf[i] ^ e
        if crc32c(bytes(out)) == crc:
            return True
    return False


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=1, max_size=40), st.data())
def test_the_one_byte_explanation_is_a_brute_force_search(payload: bytes, data: Any) -> None:
    n = len(payload)
    buf = bytearray(payload)
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        buf[data.draw(st.integers(0, n - 1))] ^= data.draw(st.integers(1, 255))
    damaged = bytes(buf)
    syndrome = crc32c(payload) ^ crc32c(damaged)
    if not syndrome:
        return  # the changes cancelled out
    brute = [i for i in range(n) if _explains(damaged, i, crc32c(payload))]
    got = _one_byte_error(syndrome, n)
    assert (got is None) == (not brute)
    assert got is None or got in brute


damage = st.sampled_from(["flip", "zero", "byte", "bytes", "none"])


@settings(max_examples=400, deadline=None)
@given(st.binary(min_size=1, max_size=3000), damage, st.data())
def test_the_rust_one_byte_explanation_agrees_with_the_python_reference(
    payload: bytes, how: str, data: Any
) -> None:
    # `_one_byte_error` (the Rust `_core.crc32c_one_byte_error`, what recovery calls) against
    # `_one_byte_error_reference` (Python): a record's payload with one bit flipped, one byte
    # zeroed or changed, several bytes changed, or unchanged (syndrome 0)
    n = len(payload)
    buf = bytearray(payload)
    for _ in range(data.draw(st.integers(2, 4)) if how == "bytes" else 1):
        i = data.draw(st.integers(0, n - 1))
        if how == "flip":
            buf[i] ^= 1 << data.draw(st.integers(0, 7))
        elif how == "zero":
            buf[i] = 0
        elif how in ("byte", "bytes"):
            buf[i] ^= data.draw(st.integers(1, 255))
    syndrome = crc32c(payload) ^ crc32c(bytes(buf))
    got = _one_byte_error(syndrome, n)
    assert got == _one_byte_error_reference(syndrome, n)
    if how in ("flip", "byte") or (how == "zero" and syndrome):
        assert got == i  # the changed byte, found
    if not syndrome:
        assert got is None


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 5000))
def test_the_rust_one_byte_explanation_agrees_on_any_syndrome(syndrome: int, n: int) -> None:
    assert _one_byte_error(syndrome, n) == _one_byte_error_reference(syndrome, n)


def test_the_rust_one_byte_explanation_of_a_large_record_and_bad_arguments() -> None:
    payload = random.Random(5).randbytes(3 << 20)  # past 64 KiB: computed without the GIL
    for i in (0, 12345, len(payload) - 1):
        bad = bytearray(payload)
        bad[i] ^= 0x10
        assert _one_byte_error(crc32c(payload) ^ crc32c(bytes(bad)), len(payload)) == i
    assert _one_byte_error(0x1234_5678, len(payload)) is None
    for syndrome, n in ((-1, 5), (2**32, 5), (5, -1)):
        with pytest.raises(OverflowError):
            _one_byte_error(syndrome, n)
    with pytest.raises(TypeError):
        _one_byte_error("5", 5)  # type: ignore[arg-type]


# ---------------------------------------------------------------- shared writers


def _writer(path: str, name: str, n: int) -> None:  # pragma: no cover - child process
    j = crs.LocalJournal(cfg(Path(path), shared=True, sync_policy="always"))
    with j:
        for i in range(n):
            entry = {"w": name, "i": i, "pad": "w" * (i % 50)}
            if i % 2:
                j.append(entry)
            else:  # the one-call fast path (a CRS's fused commit)
                if not j._append_fast(j._codec.encode(entry), j.last_seq()):
                    j.append(entry)


def test_shared_writers_in_several_processes_interleave_in_a_preallocated_segment(
    tmp_path: Path,
) -> None:
    crs.LocalJournal(cfg(tmp_path, shared=True)).close()
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), f"w{k}", 150)) for k in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    (seg,) = tmp_path.glob("*.wal")
    assert flags_of(seg) & SEGMENT_PREALLOCATED
    data = seg.read_bytes()
    assert len(data) > SEG + sum(REC + n for _, n in records(data))  # still a zero tail
    with crs.LocalJournal(cfg(tmp_path, shared=True)) as j:
        got = j.replay()
        assert j.stats().torn_bytes == 0
    assert len(got) == 600
    for k in range(4):
        assert [e["i"] for e in got if e["w"] == f"w{k}"] == list(range(150))


# ---------------------------------------------------------------- SIGKILL


def _kill_child(path: Path, shared: bool, ack_fd: int) -> None:  # pragma: no cover - child
    config = cfg(path, sync_policy="always", segment_bytes=96 << 10, shared=shared)
    with crs.LocalJournal(config) as j:
        i = j.last_seq()
        while True:
            entry = {"i": i, "pad": "k" * (i * 31 % 700)}
            # shared: the one-call Rust append (allocating under the lock) as a guarded call's
            fast = j._append_fast(j._codec.encode(entry), i) if shared else 0
            i = fast or j.append(entry)
            os.write(ack_fd, ACK.pack(i))


@pytest.mark.slow
@pytest.mark.parametrize("shared", [False, True])
def test_sigkill_during_appends_to_preallocated_segments_loses_nothing_acknowledged(
    tmp_path: Path, shared: bool
) -> None:
    runs = int(os.environ.get("CRS_PREALLOC_KILLS", "30"))
    rng = random.Random(3)
    held = 0
    for _ in range(runs):
        acks = kill_at_random(lambda w: _kill_child(tmp_path, shared, w), rng, 0.4)
        with crs.LocalJournal(cfg(tmp_path)) as j:
            got = j.replay()
        last = acks[-1] if acks else held
        assert len(got) >= last, f"acknowledged record {last} lost ({len(got)} held)"
        assert [e["i"] for e in got] == list(range(len(got)))
        held = len(got)
    assert held > runs
    assert any(flags_of(s) & SEGMENT_PREALLOCATED for s in tmp_path.glob("*.wal"))


# ---------------------------------------------------------------- readers and maintenance


def test_rolls_spares_checkpoints_backups_and_restores_work_on_preallocated_segments(
    tmp_path: Path,
) -> None:
    import io

    want = [{"i": i, "pad": "r" * 200} for i in range(1500)]
    path = tmp_path / "j"
    with crs.LocalJournal(cfg(path, segment_bytes=64 << 10)) as j:  # exclusive: spares
        for e in want[:1000]:
            j.append(e)
        assert j.stats().segments >= 4
        j.checkpoint(400)
        for e in want[1000:]:
            j.append(e)
        stream = io.BytesIO()
        j.backup(stream)
    segs = sorted(path.glob("*.wal"))
    assert all(flags_of(s) & SEGMENT_PREALLOCATED for s in segs)
    assert all(flags_of(s) & 1 for s in segs[:-1])  # sealed
    assert segs[-1].stat().st_size > SEG + sum(REC + n for _, n in records(segs[-1].read_bytes()))
    with crs.LocalJournal(cfg(path, read_only=True)) as r:
        assert r.replay() == want[400:]
    out = subprocess.run(
        [sys.executable, "-m", "crs", "journal", "replay", "--after", "1400", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert len(out.stdout.splitlines()) == 100
    other = tmp_path / "restored"
    with crs.LocalJournal(cfg(other)) as j:
        j.append({"old": True})
        stream.seek(0)
        j.restore(stream)
        assert j.replay() == want[400:]
        j.append({"i": "after"})
    with crs.LocalJournal(cfg(other)) as j:
        assert j.replay() == [*want[400:], {"i": "after"}]
        assert j.stats().torn_bytes == 0


def test_a_project_backed_up_and_reopened_on_preallocated_segments(tmp_path: Path) -> None:
    proj, home = tmp_path / "p", tmp_path / "h"
    proj.mkdir()
    with crs.open_project(proj, home) as c:
        for i in range(300):
            c.apply(crs.ProofDelta(1, {f"n{i}": crs.ProofNumber(proof=i, updated_at=9)}))
            if i % 100 == 99:
                c.save_project_backup()
        gen = c.generation()
        jdir = c.project_info().journal_path
    (seg,) = sorted(jdir.glob("*.wal"))[-1:]
    assert flags_of(seg) & SEGMENT_PREALLOCATED
    with crs.open_project(proj, home) as c:
        assert c.generation() == gen
        got = c.get_proof_status("n299")
        assert got is not None
        assert got.proof == 299
