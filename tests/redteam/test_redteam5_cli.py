"""Red team, fifth pass: the command line as a careless user runs it (real `python -m crs`
processes): a data directory that is a file, a 100 KB argument, output piped into `head`,
a backup cut short."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.journal.test_journal_diskfull import small_fs  # noqa: F401 - a small tmpfs

from crs.guard import Guard


def _crs(*args: str, stdout: int | None = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crs", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )


def learned_build_failure(tmp_path: Path, loop: bool = False) -> tuple[Path, Path]:
    """A project whose guard learned one failure (`make build` failing twice), and with
    `loop` also saw a loop (the same empty grep four times)."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "fp") as g:
        for _ in range(2):
            v = g.before_call("bash", {"command": "make build"})
            assert v.call is not None
            g.after_call(v.call, error="src/app.py:2: NameError: name 'cfg' is not defined")
        for _ in range(4 if loop else 0):
            v = g.before_call("grep", {"pattern": "load_config"})
            if v.allowed and v.call is not None:
                g.after_call(v.call, result="")
    return project, home


def _guarded(tmp_path: Path) -> tuple[Path, Path]:
    """A project whose guard learned one failure and saw a loop."""
    return learned_build_failure(tmp_path, loop=True)


def test_guard_cli_on_a_home_that_is_a_file_says_so(tmp_path: Path) -> None:
    """`crs guard status --home <a file>` answered "no guarded sessions in this project yet"
    (exit 0), and `learned` "no learned failures": a mistyped --home looked like a project
    the guard never ran in. Now one line naming the data directory, exit 1; and a project's
    data that is a file where its directory should be is reported, not taken for none."""
    project, home = _guarded(tmp_path)
    stray = tmp_path / "a-file"
    stray.write_text("x\n")
    for verb in (["status"], ["learned"], ["forget", "abc"]):
        done = _crs("guard", *verb, "--project", str(project), "--home", str(stray))
        assert done.returncode == 1, done
        assert done.stdout == ""
        assert done.stderr.startswith("crs guard: the data directory is not a directory: ")
        assert "Traceback" not in done.stderr
    assert stray.read_text() == "x\n"
    (key,) = [p for p in home.iterdir() if p.is_dir()]
    moved = tmp_path / "moved-away"
    key.rename(moved)
    key.write_text("not the project's data\n")
    done = _crs("guard", "status", "--project", str(project), "--home", str(home))
    assert done.returncode == 1
    assert done.stderr.startswith("crs guard: cannot open the project's guard: ")
    assert "Traceback" not in done.stderr


def test_guard_cli_does_not_echo_a_huge_argument_back(tmp_path: Path) -> None:
    """`crs guard forget $(a 100 KB word)` and `status --session` of one printed it back
    whole (100,064 bytes of stderr); the message now shows a bounded view of it."""
    project, home = _guarded(tmp_path)
    huge = "x" * 100_000
    for verb in (["forget", huge], ["status", "--session", huge]):
        done = _crs("guard", *verb, "--project", str(project), "--home", str(home))
        assert done.returncode == 1
        assert len(done.stderr) < 400, len(done.stderr)
        assert "no learned failure" in done.stderr or "no session" in done.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["guard", "learned"],
        ["guard", "status"],
        ["guard", "learned", "--json"],
        ["backup", "status"],
    ],
)
def test_output_into_a_closed_pipe_ends_quietly(tmp_path: Path, argv: list[str]) -> None:
    """`crs guard learned | head -1` ended in a BrokenPipeError traceback when `head` left
    first. Now the command stops quietly with 141 (128 + SIGPIPE), as `ls | head` does."""
    project, home = _guarded(tmp_path)
    if argv[0] == "backup":
        assert _crs("backup", "save", str(project), "--home", str(home)).returncode == 0
        args = [*argv, str(project), "--home", str(home)]
    else:
        args = [*argv, "--project", str(project), "--home", str(home)]
    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first line
    try:
        done = _crs(*args, stdout=w)
    finally:
        os.close(w)
    assert done.returncode == 141, done.stderr
    assert done.stderr == ""


def test_backup_status_of_a_backup_cut_short_says_unusable(tmp_path: Path) -> None:
    """A truncated or emptied backup file (a full disk during a copy, a sync tool) made
    `crs backup status` print "Backup  none" and exit 1 ("none"), while the project would
    not open because of it. Now exit 2 ("unusable", as its help says) with the reason and
    what to do; the damaged file is left as it is."""
    project, home = _guarded(tmp_path)
    assert _crs("backup", "save", str(project), "--home", str(home)).returncode == 0
    (backup,) = home.glob("*/backups/latest.backup.lz4")
    whole = backup.read_bytes()
    for cut in (whole[: len(whole) // 2], b""):
        backup.write_bytes(cut)
        done = _crs("backup", "status", str(project), "--home", str(home))
        assert done.returncode == 2, done
        assert "none" not in done.stdout
        assert "backup corrupted" in done.stderr
        assert "restore" in done.stderr
        js = _crs("backup", "status", str(project), "--home", str(home), "--json")
        assert js.returncode == 2
        assert '"BackupCorruptedError"' in js.stdout
        assert backup.read_bytes() == cut
    backup.write_bytes(whole)
    assert _crs("backup", "status", str(project), "--home", str(home)).returncode == 0


def test_status_and_learned_read_a_read_only_home(tmp_path: Path, small_fs: Path) -> None:  # noqa: F811
    """`crs guard status|learned` on a read-only data directory (a mounted copy of a CI
    runner's home, a snapshot) failed: "[Errno 30] Read-only file system: .../LOCK; ... pass
    allow_degraded=True", although they change nothing. They now read the backup and the
    journal through a read replica and print what they print on the writable home;
    `forget`, which must write, says so in one line."""
    project = tmp_path / "repo"
    project.mkdir()
    home = small_fs / "home"  # (a tmpfs the test remounts read-only)
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "fp") as g:
        for _ in range(2):
            v = g.before_call("bash", {"command": "make build"})
            assert v.call is not None
            g.after_call(v.call, error="src/app.py:2: NameError: name 'cfg' is not defined")
        g.crs.save_project_backup()
        v = g.with_session("s2").before_call("ls", {})  # a record after the backup
        assert v.call is not None
        g.with_session("s2").after_call(v.call, result="a.py")
    verbs = (["status"], ["learned"], ["learned", "--json"], ["status", "--session", "s2"])
    where = ["--project", str(project), "--home", str(home)]
    before = [_crs("guard", *verb, *where) for verb in verbs]
    assert all(b.returncode == 0 for b in before)
    remount = ["mount", "-o", "remount,ro", str(small_fs)]
    assert subprocess.run(remount, capture_output=True).returncode == 0
    for verb, was in zip(verbs, before, strict=True):
        done = _crs("guard", *verb, *where)
        assert (done.returncode, done.stdout) == (0, was.stdout), done.stderr
    done = _crs("guard", "forget", "abc", *where)
    assert done.returncode == 1
    assert done.stderr.startswith("crs guard: cannot open the project's guard (forget writes")
    assert done.stderr.count("\n") == 1
