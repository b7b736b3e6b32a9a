"""`open_project` opens again when another process checkpointed the journal while it read it
(a segment it listed vanished: the new backup covers it), and only then."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import crs
from crs._crs import CRS


def test_a_vanished_segment_opens_again_and_real_damage_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proj, home = tmp_path / "p", tmp_path / "home"
    proj.mkdir()
    with crs.open_project(proj, home) as c:
        c.apply(crs.ProofDelta(1, {"n1": crs.ProofNumber(proof=1)}))
        c.save_project_backup()
        c.apply(crs.ProofDelta(1, {"n2": crs.ProofNumber(proof=2)}))
    real = CRS.load_checkpoint_from_disk
    calls: list[int] = []

    def vanishing(self: CRS, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:  # what the journal raises when a listed segment is gone
            try:
                raise FileNotFoundError(2, "No such file or directory", "00001.wal")
            except FileNotFoundError as exc:
                raise crs.JournalCorruptedError("cannot read segment 00001.wal") from exc
        return real(self, *args, **kwargs)

    monkeypatch.setattr(CRS, "load_checkpoint_from_disk", vanishing)
    with crs.open_project(proj, home) as c:
        assert len(calls) == 2
        got = c.snapshot().proof_index().get("n2")
        assert got is not None  # nothing lost
        assert got.proof == 2

    def damaged(self: CRS, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        raise crs.JournalCorruptedError("the record at offset 32 has a damaged payload")

    calls.clear()
    monkeypatch.setattr(CRS, "load_checkpoint_from_disk", damaged)
    with pytest.raises(crs.JournalCorruptedError, match="damaged payload"):
        crs.open_project(proj, home)
    assert len(calls) == 1  # real damage is not retried
