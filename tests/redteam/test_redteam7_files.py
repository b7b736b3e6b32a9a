"""Red team, seventh pass: another project's backup copied into a project's data directory.

A backup (with its metadata.json) copied from another project's directory in the home (a
restore by hand from the wrong folder, a sync tool, `cp -r ~/.crs/<a> ~/.crs/<b>`) was
taken as this project's: with the journal too, the project opened with the other
project's sessions and learned failures, silently; with the backup only, the error said
the journal was "deleted or truncated" and advised `accept_journal_loss=True`, which would
adopt the other project's state. The metadata names its project: it is compared with the
directory's key, and a backup of another project is refused with a typed error that says
what to move; no file is changed.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from test_redteam3_cli import crs

from crs import PersistenceError
from crs._persistence._load import compute_project_hash
from crs.guard import Guard

pytestmark = pytest.mark.timeout(120)


def _fp() -> str:
    return "fp"


def _digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in ("LOCK", "latest.backup.lock")
    }


def _saved(tmp_path: Path, name: str, calls: int) -> tuple[Path, Path]:
    """A project with `calls` calls of session `name` and a backup; its data directory."""
    project, home = tmp_path / name, tmp_path / "home"
    project.mkdir()
    with Guard.open(project, name, home=home, fingerprint=_fp) as g:
        for i in range(calls):
            v = g.before_call("read_file", {"path": f"{i}.py"})
            assert v.call is not None
            g.after_call(v.call, result=str(i))
    r = crs("backup", "save", str(project), "--home", str(home))
    assert r.returncode == 0, r.stderr
    return project, home / compute_project_hash(str(project.resolve()))


@pytest.mark.parametrize("what", ["backup", "directory"])
def test_another_projects_backup_is_refused_and_nothing_changes(tmp_path: Path, what: str) -> None:
    a, a_dir = _saved(tmp_path, "a", 30)
    b, b_dir = _saved(tmp_path, "b", 5)
    if what == "backup":  # its backups and metadata only
        shutil.rmtree(b_dir / "backups")
        shutil.copytree(a_dir / "backups", b_dir / "backups")
        shutil.copy(a_dir / "metadata.json", b_dir / "metadata.json")
    else:  # the whole directory, journal too
        shutil.rmtree(b_dir)
        shutil.copytree(a_dir, b_dir)
    before = _digests(tmp_path / "home")
    with pytest.raises(PersistenceError) as caught:
        Guard.open(b, "b", home=tmp_path / "home", fingerprint=_fp)
    text = str(caught.value)
    assert f"project '{a_dir.name}'" in text
    assert "accept_journal_loss" not in text
    assert str(b_dir) in text  # (what to move away)
    r = crs("guard", "status", "--project", str(b), "--home", str(tmp_path / "home"))
    assert r.returncode != 0
    assert "another project" in r.stderr.replace("\n", " ")
    assert _digests(tmp_path / "home") == before
    with Guard.open(a, "a", home=tmp_path / "home", fingerprint=_fp) as g:
        assert g.status()["calls"] == 30  # (the project it came from is untouched)
