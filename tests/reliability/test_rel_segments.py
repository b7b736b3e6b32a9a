"""Issue 11, items 2, 3, 5 and 7: damaged segment headers and last records are corruption,
never a reason to delete or cut records; the size limit and a damaged CHECKPOINT; segments
grow as records are appended."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

import pytest
from rel_common import image, jconfig, project

import crs
from crs._journal import _local

HEADER = 32  # segment header bytes (docs/journal-format.md)


def _fill(path: Path, n: int = 50, **kw: object) -> list[dict[str, int]]:
    items = [{"i": i} for i in range(n)]
    with crs.LocalJournal(jconfig(path, **kw)) as j:
        for it in items:
            j.append(it)
    return items


@pytest.mark.parametrize("preallocate", [False, True])
@pytest.mark.parametrize("zeroed", [HEADER, 4096])
def test_a_zeroed_segment_header_never_deletes_its_records(
    tmp_path: Path, zeroed: int, preallocate: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_local, "PREALLOC_START", 0)  # preallocate: a zero tail follows
    items = _fill(tmp_path, preallocate=preallocate)
    (seg,) = tmp_path.glob("*.wal")
    assert (seg.read_bytes()[-1] == 0) == preallocate
    data = bytearray(seg.read_bytes())
    n = min(zeroed, len(data))
    data[:n] = bytes(n)
    seg.write_bytes(bytes(data))
    with pytest.raises(crs.JournalCorruptedError, match="header"):
        crs.LocalJournal(jconfig(tmp_path))
    assert seg.exists()
    assert seg.read_bytes() == bytes(data)
    if zeroed == HEADER:  # the records are intact: skip mode reads them by their checksums
        with crs.LocalJournal(jconfig(tmp_path, skip_corrupted_deltas=True)) as j:
            assert j.replay() == items
            j.append({"i": 50})
            assert j.replay() == [*items, {"i": 50}]


def test_an_interrupted_segment_creation_is_still_removed(tmp_path: Path) -> None:
    items = _fill(tmp_path, segment_bytes=4096, n=200)
    segs = sorted(tmp_path.glob("*.wal"))
    nxt = int(segs[-1].name[:20]) + 1000
    torn = tmp_path / f"{nxt:020d}.wal"
    torn.write_bytes(b"\x89CRS")  # a header cut short, no record: provably empty
    with crs.LocalJournal(jconfig(tmp_path, segment_bytes=4096)) as j:
        assert j.replay() == items
    assert not torn.exists()


def test_a_bit_flip_in_the_last_proof_delta_is_corruption_not_a_torn_write(
    tmp_path: Path,
) -> None:
    cfg = dataclasses.replace(jconfig(tmp_path), sync_policy="always")
    with crs.LocalJournal(cfg, crs.DeltaCodec()) as j:
        for i in range(3):
            j.append(crs.ProofDelta(1, {f"n{i}": crs.ProofNumber(proof=i, updated_at=5)}))
    (seg,) = tmp_path.glob("*.wal")
    clean = seg.read_bytes()
    assert clean[-1] == 0  # a binary ProofDelta ends in the high byte of updated_at
    last_len = int.from_bytes(clean[-(len(clean) - HEADER) :][4:8], "little")  # first record
    payload_start = len(clean) - last_len
    cut = 0
    for bit in range((len(clean) - payload_start) * 8):
        buf = bytearray(clean)
        buf[payload_start + bit // 8] ^= 1 << (bit % 8)
        seg.write_bytes(bytes(buf))
        try:
            with crs.LocalJournal(jconfig(tmp_path), crs.DeltaCodec()) as j:
                if len(j.replay()) < 3:
                    cut += 1
        except crs.JournalCorruptedError:
            pass
        assert seg.read_bytes() == bytes(buf)  # never cut off
    assert cut == 0


def test_a_record_cut_short_is_a_torn_write(tmp_path: Path) -> None:
    items = _fill(tmp_path, n=5)
    (seg,) = tmp_path.glob("*.wal")
    data = seg.read_bytes()
    seg.write_bytes(data[:-3])
    with crs.LocalJournal(jconfig(tmp_path)) as j:
        assert j.replay() == items[:4]
        assert j.stats().torn_bytes > 0


def test_checkpoint_frees_a_journal_below_one_segment(tmp_path: Path) -> None:
    cfg = jconfig(tmp_path, max_journal_bytes=2000)  # far below the 16 MiB segment
    with crs.LocalJournal(cfg) as j:
        with pytest.raises(crs.JournalFullError, match="checkpoint"):  # noqa: PT012
            for i in range(1000):
                j.append({"i": i, "pad": "x" * 50})
        j.checkpoint()  # what the error advises
        assert j.stats().total_bytes < 2000
        for i in range(5):
            j.append({"again": i})
        assert j.replay() == [{"again": i} for i in range(5)]
    with crs.LocalJournal(cfg) as j:
        assert j.replay() == [{"again": i} for i in range(5)]


def test_a_damaged_checkpoint_file_does_not_refuse_a_covered_project(tmp_path: Path) -> None:
    proj, home = project(tmp_path)
    jcfg = dataclasses.replace(crs.DefaultJournalConfig(), segment_bytes=4096)
    with crs.open_project(proj, home, journal_config=jcfg) as c:
        for i in range(80):
            c.apply(crs.ProofDelta(1, {f"n{i}": crs.ProofNumber(proof=i)}))
        c.save_project_backup()
        c.save_project_backup()  # both backups cover the dropped records
        for i in range(5):
            c.apply(crs.ProofDelta(1, {f"t{i}": crs.ProofNumber(proof=i)}))
        want = image(c)
        jdir = c.project_info().journal_path
    ck = jdir / "CHECKPOINT"
    assert ck.exists()
    ck.write_bytes(b"\xff" * ck.stat().st_size)
    with crs.open_project(proj, home, journal_config=jcfg) as c:
        assert image(c) == want
    ck.write_bytes(b"x")  # wrong size
    with crs.open_project(proj, home, journal_config=jcfg) as c:
        assert image(c) == want


def test_a_damaged_checkpoint_without_backup_is_a_gap_not_wrong_data(tmp_path: Path) -> None:
    cfg = jconfig(tmp_path, segment_bytes=4096)
    with crs.LocalJournal(cfg) as j:
        for i in range(300):
            j.append({"i": i, "pad": "p" * 20})
        j.checkpoint(250)
        kept = j.replay()
    (tmp_path / "CHECKPOINT").write_bytes(bytes(24))
    with crs.LocalJournal(cfg) as j:
        got = j.replay()
        assert got[-len(kept) :] == kept  # every stored record is still returned
        first = j.stats().checkpoint_seq + 1
        assert got == [{"i": i, "pad": "p" * 20} for i in range(first - 1, 300)]


def test_a_new_project_costs_what_its_records_cost(tmp_path: Path) -> None:
    proj, home = project(tmp_path)
    with crs.open_project(proj, home) as c:
        for i in range(5):
            c.apply(crs.ProofDelta(1, {f"n{i}": crs.ProofNumber(proof=i)}))
        jdir = c.project_info().journal_path
    used = sum(p.stat().st_blocks * 512 for p in jdir.iterdir())
    size = sum(p.stat().st_size for p in jdir.glob("*.wal"))
    assert size < 4096, size  # no 16 MiB preallocation
    assert used < 64 * 1024, used
    t0 = time.perf_counter()
    with crs.open_project(proj, home):
        pass
    assert time.perf_counter() - t0 < 1.0


def test_the_append_that_starts_a_segment_does_not_zero_fill(tmp_path: Path) -> None:
    cfg = dataclasses.replace(
        crs.DefaultJournalConfig(), path=str(tmp_path), session_id="r", segment_bytes=1 << 20
    )
    with crs.LocalJournal(cfg) as j:
        for i in range(40):
            j.append({"i": i, "pad": "z" * 40_000})
        assert j.stats().segments >= 2
    sizes = [p.stat().st_size for p in sorted(tmp_path.glob("*.wal"))]
    assert all(s <= 1 << 20 for s in sizes)
    assert sizes[-1] < 1 << 20  # the active segment holds only what was written


def test_open_on_a_full_disk_is_journal_full_not_degraded(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a size-limited tmpfs needs root")
    import subprocess

    mnt = tmp_path / "mnt"
    mnt.mkdir()
    res = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)],
        capture_output=True,
        check=False,
    )
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {res.stderr.decode().strip()}")
    try:
        (mnt / "filler").write_bytes(bytes(600 * 1024))  # less free than one segment
        cfg = dataclasses.replace(crs.DefaultJournalConfig(), path=str(mnt / "j"), session_id="f")
        with crs.LocalJournal(cfg) as j:  # opens: nothing is preallocated
            j.append({"ok": 1})
            with pytest.raises(crs.JournalFullError):  # noqa: PT012
                for i in range(10_000):
                    j.append({"i": i, "pad": "f" * 1000})
            assert not j.is_degraded()
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)
