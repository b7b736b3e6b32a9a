"""Issue 11, items 6 and 9: private file modes, no symlink is followed, safe path segments,
`crs journal verify` on a directory without a journal, and the default codec stores every
delta type."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from rel_common import jconfig, project

import crs
from crs.sessions._model import sanitize_path_segment


def _modes(root: Path) -> dict[str, int]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            p = Path(dirpath) / name
            out[str(p.relative_to(root))] = stat.S_IMODE(p.lstat().st_mode)
    return out


def test_every_file_is_0600_and_every_directory_0700(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        proj, home = project(tmp_path)
        with crs.open_project(proj, home) as c:
            c.apply(crs.ProofDelta(1, {"a": crs.ProofNumber(proof=1)}))
            c.save_project_backup(export_json=True)
            c.apply(crs.ProofDelta(1, {"b": crs.ProofNumber(proof=1)}))
            c.save_project_backup()
    finally:
        os.umask(old)
    modes = _modes(home)
    assert any(k.endswith(".wal") for k in modes)
    assert any("CHECKPOINT" in k for k in modes)
    assert any(k.endswith("LOCK") for k in modes)
    assert any("backup" in k for k in modes)
    wrong = {k: oct(m) for k, m in modes.items() if m != (0o700 if (home / k).is_dir() else 0o600)}
    assert not wrong
    assert stat.S_IMODE(home.stat().st_mode) == 0o700


def test_a_planted_lock_symlink_does_not_touch_its_victim(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious data\n")
    jdir = tmp_path / "j"
    jdir.mkdir()
    (jdir / "LOCK").symlink_to(victim)
    with pytest.raises(crs.JournalError):
        crs.LocalJournal(jconfig(jdir))
    assert victim.read_bytes() == b"precious data\n"


@pytest.mark.parametrize("name", ["CHECKPOINT", "CHECKPOINT.tmp", "00000000000000000001.wal"])
def test_planted_journal_symlinks_are_not_followed(tmp_path: Path, name: str) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious data\n")
    jdir = tmp_path / "j"
    jdir.mkdir()
    (jdir / name).symlink_to(victim)
    try:
        with crs.LocalJournal(jconfig(jdir)) as j:
            j.append({"a": 1})
            j.checkpoint()
            j.append({"b": 2})
    except crs.JournalError:
        pass  # refusing is fine; following is not
    assert victim.read_bytes() == b"precious data\n"


def test_planted_backup_symlinks_are_not_followed(tmp_path: Path) -> None:
    proj, home = project(tmp_path)
    with crs.open_project(proj, home) as c:
        c.apply(crs.ProofDelta(1, {"a": crs.ProofNumber(proof=1)}))
        backup = c.project_info().backup_path
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious data\n")
    backup.parent.mkdir(parents=True, exist_ok=True)
    for name in ("latest.backup.lz4.tmp", "latest.backup.lz4"):
        (backup.parent / name).unlink(missing_ok=True)
        (backup.parent / name).symlink_to(victim)
    try:  # the planted "backup" is not read through: refused as unreadable
        with crs.open_project(proj, home) as c:
            c.save_project_backup()
    except crs.CRSError as exc:
        assert "symbolic link" in str(exc)  # noqa: PT017
    assert victim.read_bytes() == b"precious data\n"


@pytest.mark.parametrize("bad", ["..", ".", "...", "/..", "../", " .. "])
def test_sanitize_path_segment_never_returns_a_directory_name(bad: str) -> None:
    out = sanitize_path_segment(bad)
    assert out.strip(".")
    assert "/" not in out


def test_journal_verify_on_a_directory_without_a_journal_fails(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for target in (tmp_path, tmp_path / "missing"):
        res = subprocess.run(
            [sys.executable, "-m", "crs", "journal", "verify", str(target)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert res.returncode != 0
        assert "no journal" in res.stderr
        assert not (tmp_path / "LOCK").exists()


DELTAS: list[crs.Delta] = [
    crs.ProofDelta(1, {"a": crs.ProofNumber(proof=1)}),
    crs.ConstraintDelta(1),
    crs.SimilarityDelta(2, {("x", "y"): 0.5}),
    crs.DependencyDelta(1, add_edges=[("p", "q")]),
    crs.HistoryDelta(1, [crs.HistoryEntry(id="h")]),
    crs.StreamingDelta(1, increments={"k": 2}),
    crs.AnalyticsDelta(1, crs.AnalyticsRecord(crs.AnalyticsQueryType.HOTSPOTS, 5, 0, 1)),
    crs.CompositeDelta(crs.ProofDelta(1, {"b": crs.ProofNumber(proof=2)}), crs.ConstraintDelta(1)),
]


def test_a_journal_with_defaults_stores_every_delta_type(tmp_path: Path) -> None:
    assert len({type(d) for d in DELTAS}) == 8
    with crs.LocalJournal(jconfig(tmp_path)) as j:  # no codec given
        for d in DELTAS:
            j.append(d)
        j.append({"plain": "json"})
        assert j.replay() == [*DELTAS, {"plain": "json"}]
    with crs.LocalJournal(jconfig(tmp_path)) as j:
        assert j.replay() == [*DELTAS, {"plain": "json"}]
    m = crs.MemoryJournal()
    m.append_batch(DELTAS)
    assert m.replay() == DELTAS
