"""Red team, third pass: files planted in a project's data directory (docs/redteam.md,
"Third pass"). A victim file of the user's, linked into the journal or the backups, must
stay as it was; the project answers with a typed error or opens without the planted name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from crs import BackupLockFailedError, CRSError, JournalDegradedError
from crs.guard import Guard
from guard_calls import run


def _backup_save(project: Path, home: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "crs", "backup", "save", str(project), "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def _project(tmp_path: Path) -> tuple[Path, Path, Path]:
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s", home=home, fingerprint=lambda: "fp") as g:
        run(g, "make", {"target": "all"}, error="error: main.c:3")
    _backup_save(project, home)
    (key,) = [p for p in home.iterdir() if p.is_dir()]
    return project, home, key


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    return victim


def test_a_hard_link_planted_as_the_journal_lock_leaves_its_file_alone(tmp_path: Path) -> None:
    """`journal/LOCK` is opened with O_NOFOLLOW (a symlink is refused), but a hard link to a
    file of the user's was opened and overwritten with the writer's pid stamp on every
    open. It is now refused with `JournalDegradedError` naming the file."""
    project, home, key = _project(tmp_path)
    victim = _victim(tmp_path)
    lock = key / "journal" / "LOCK"
    lock.unlink()
    os.link(victim, lock)
    with pytest.raises(JournalDegradedError, match="hard links") as err:
        Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    assert isinstance(err.value, CRSError)
    assert victim.read_text() == "precious\n"


def test_a_hard_link_planted_as_the_spare_segment_is_dropped_not_emptied(
    tmp_path: Path,
) -> None:
    """`journal/next.spare` (the next segment, made ahead): a hard link to a file of the
    user's was read as a spare whose header write was cut short and emptied (the user's
    file truncated to 0 bytes), or written as the next segment. The planted name is now
    removed with a warning (the other names keep their file), and the project opens."""
    project, home, key = _project(tmp_path)
    victim = _victim(tmp_path)
    spare = key / "journal" / "next.spare"
    spare.unlink(missing_ok=True)
    os.link(victim, spare)
    with Guard.open(project, "s2", home=home, fingerprint=lambda: "fp") as g:
        assert len(g.learned()) == 1
        for i in range(50):
            run(g, "read", {"path": f"{i}.py"}, result="x" * 1000)
    assert victim.read_text() == "precious\n"
    assert os.stat(victim).st_nlink == 1


def test_a_symlink_planted_as_the_backup_lock_is_a_typed_error(tmp_path: Path) -> None:
    """`backups/latest.backup.lock` planted as a symlink: it was never followed, but the
    ELOOP came out of `crs backup save` and `Guard.open` as a bare OSError (a traceback)."""
    project, home, key = _project(tmp_path)
    victim = _victim(tmp_path)
    lock = key / "backups" / "latest.backup.lock"
    lock.unlink()
    lock.symlink_to(victim)
    with pytest.raises(BackupLockFailedError, match="cannot open"):
        Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    done = subprocess.run(
        [sys.executable, "-m", "crs", "backup", "save", str(project), "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("crs backup: failed to acquire backup lock: cannot open")
    assert victim.read_text() == "precious\n"


def test_two_damaged_backups_say_how_to_go_on(tmp_path: Path) -> None:
    """Both backups damaged (truncated): every open of the project, every hook, failed with
    the two errors and nothing on what to do; the journal before the backups' position is
    gone, so the state cannot be rebuilt. The error now names the directory to restore or
    move away; moving it away opens the project afresh."""
    project, home, key = _project(tmp_path)
    _backup_save(project, home)
    for backup in (key / "backups").glob("*.backup.lz4"):
        backup.write_bytes(backup.read_bytes()[:40])
    with pytest.raises(CRSError, match="no backup of the project is usable") as err:
        Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    assert f"restore {key} from a copy, or move it away" in str(err.value)
    key.rename(tmp_path / "moved-away")
    with Guard.open(project, "s", home=home, fingerprint=lambda: "fp") as g:
        assert g.learned() == []
