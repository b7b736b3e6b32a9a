"""Issue 11, items 7, 8 and 10: a project on a full disk (a small tmpfs, root only).

Changes fail with `JournalFullError` (not degraded), guard queries still answer "blocked",
a backup fails with a typed error and leaves the previous one usable, and once space returns
the project reopens with every acknowledged change.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from rel_common import clause, image, step

import crs
from test_journal_diskfull import small_fs  # noqa: F401 - the size-limited tmpfs fixture


def test_a_project_on_a_full_disk(small_fs: Path) -> None:  # noqa: F811
    proj, home = small_fs / "proj", small_fs / "home"
    proj.mkdir()
    with crs.open_project(proj, home) as c:
        c.record_step(step("s1", "grep"))
        c.add_clause(clause("grep", "grep"))
        c.save_project_backup()
        filler = small_fs / "filler"
        free = os.statvfs(small_fs).f_bavail * os.statvfs(small_fs).f_frsize
        filler.write_bytes(bytes(max(0, free - 24 * 1024)))
        acked = 0
        with pytest.raises(crs.JournalFullError):  # noqa: PT012
            for i in range(100_000):
                c.apply(crs.ProofDelta(1, {f"n{i}": crs.ProofNumber(proof=i)}))
                acked = i + 1
        assert acked > 0
        assert not c._journal.is_degraded()  # type: ignore[attr-defined]
        check = c.check_decision_allowed("s1", "grep")  # still answers on a full disk
        assert not check.allowed
        with pytest.raises(crs.CRSError):
            c.save_project_backup()
        want = image(c)
    with crs.open_project(proj, home) as c:  # full, but opening needs no space
        assert image(c) == want
    filler.unlink()
    with crs.open_project(proj, home) as c:
        assert image(c) == want
        for i in range(acked):
            node = c.get_proof_status(f"n{i}")
            assert node is not None
            assert node.proof == i
        c.apply(crs.ProofDelta(1, {"after": crs.ProofNumber(proof=1)}))
        c.save_project_backup()
