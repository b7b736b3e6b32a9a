"""Issue 11, item 10: deleting or truncating any one file of a project (journal segments,
CHECKPOINT, LOCK, backups, metadata, index) is detected or recovered, never silently wrong.

Each case copies a clean project, damages one file (deleted, emptied, cut in half), and opens
it as the next session would. Allowed outcomes: the full state comes back ("recovered"), a
typed `CRSError` ("detected"), or, for a cut inside the active segment only, a state that
existed after an acknowledged change (a prefix, as a crash mid-write leaves: "prefix").
"""

from __future__ import annotations

import dataclasses
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from rel_common import clause, image, project, step

import crs

JCFG = dataclasses.replace(crs.DefaultJournalConfig(), segment_bytes=4096, sync_policy="none")


def _build(tmp: Path) -> tuple[Path, Path, list[tuple[dict[str, Any], int]]]:
    proj, home = project(tmp)
    states = []
    with crs.open_project(proj, home, journal_config=JCFG) as c:
        for i in range(120):
            if i % 10 == 3:
                c.record_step(step("s1", f"t{i}"))
            elif i % 10 == 7:
                c.add_clause(clause(f"t{i}", "x"))
            else:
                c.apply(crs.ProofDelta(1, {f"n{i}": crs.ProofNumber(proof=i)}))
            if i in (40, 80):
                c.save_project_backup(export_json=True)
            states.append(image(c))
    return proj, home, states


def _damage(path: Path, how: str) -> None:
    if how == "delete":
        path.unlink()
        return
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.truncate(0 if how == "empty" else size // 2)


def test_deleting_or_truncating_any_file_is_detected_or_recovered(tmp_path: Path) -> None:
    proj, clean_home, states = _build(tmp_path)
    want = states[-1]
    files = sorted(p.relative_to(clean_home) for p in clean_home.rglob("*") if p.is_file())
    segs = sorted(f for f in files if f.suffix == ".wal")
    assert len(segs) >= 3
    assert any("backup" in str(f) for f in files)
    active = segs[-1]
    counts: Counter[str] = Counter()
    home = tmp_path / "work"
    for rel in files:
        for how in ("delete", "empty", "half"):
            shutil.rmtree(home, ignore_errors=True)
            shutil.copytree(clean_home, home)
            _damage(home / rel, how)
            try:
                with crs.open_project(proj, home, journal_config=JCFG) as c:
                    got = image(c)
            except crs.CRSError:
                counts["detected"] += 1
                continue
            if got == want:
                counts["recovered"] += 1
                continue
            assert rel == active, f"{how} {rel}: a different state, silently"
            assert how != "delete", f"{how} {rel}: a different state, silently"
            assert got in states, f"{how} {rel}: a state that never existed"
            counts["prefix"] += 1
    print(f"file deletion/truncation over {len(files)} files: {dict(counts)}")
    assert counts["detected"]
    assert counts["recovered"]
