"""A CRS whose journal's file system fills up: a typed error, the state unchanged, nothing
acknowledged lost, and commits work again once space returns (root only, else skipped)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.journal.test_journal_diskfull import small_fs  # noqa: F401 - the fixture

import crs
from steps import tool_step


def change(c: crs.CRS, i: int) -> None:
    if i % 4 == 3:
        c.record_step(tool_step(f"t{i}"))
    elif i % 4 == 2:
        c.apply(crs.HistoryDelta(crs.SignalSource.SOFT, [crs.HistoryEntry(id=f"h{i}")]))
    else:
        pad = "n" * 700  # big records fill the 256 KiB file system quickly
        c.apply(crs.ProofDelta(crs.SignalSource.HARD, {f"{pad}{i}": crs.ProofNumber(proof=i)}))


def journal(path: Path, preallocate: bool) -> crs.LocalJournal:
    cfg = crs.JournalConfig(
        path=str(path),
        session_id="full",
        sync_policy="always",
        segment_bytes=16 * 1024,
        preallocate=preallocate,
    )
    return crs.LocalJournal(cfg, crs.DeltaCodec())


@pytest.mark.parametrize("preallocate", [False, True])
def test_full_disk_leaves_the_crs_unchanged_and_recovers(
    small_fs: Path,  # noqa: F811
    preallocate: bool,
) -> None:
    filler = small_fs / "filler"
    filler.write_bytes(bytes(64 * 1024))
    path = small_fs / "j"
    i = 0
    with journal(path, preallocate) as j:
        c = crs.CRS.open(j)
        with pytest.raises(crs.JournalFullError, match="no space left"):  # noqa: PT012
            while True:
                before = (c._state_image(), c.generation())
                change(c, i)
                i += 1
        assert i > 20, "the file system filled before any change was committed"
        assert (c._state_image(), c.generation()) == before  # the failed change left no trace
        for _ in range(3):
            with pytest.raises(crs.JournalFullError):
                change(c, i)
            assert (c._state_image(), c.generation()) == before
        filler.unlink()  # space returns
        for _ in range(10):
            change(c, i)
            i += 1
        want = (c._state_image(), c.generation())
    with journal(path, preallocate) as j:
        c = crs.CRS.open(j)
        assert (c._state_image(), c.generation()) == want
