"""Red team, third pass: the command line (docs/redteam.md, "Third pass"). Real `python -m
crs` processes: one line on stderr and a non-zero exit for bad arguments, nothing created
where nothing ran, and text agents wrote shown on the terminal, never run by it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from crs.guard import Guard
from guard_calls import run

# What a terminal runs instead of showing: a window title (OSC 0), the clipboard (OSC 52),
# a forged link (OSC 8), colours (CSI), the 8-bit CSI (U+009B) and a bidi override.
HOSTILE = (
    "\x1b]0;pwned\x07|\x1b]52;c;ZWNobyBoaQ==\x07|\x1b]8;;http://evil\x1b\\|\x1b[31m|\x9b2J|\u202e"
)


def crs(*args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if home is not None:
        env["CRS_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "crs", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        errors="surrogateescape",
    )


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


def _no_controls(text: str) -> None:
    for ch in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert ch not in text, f"{ch!r} reached the terminal"


def test_text_agents_wrote_reaches_the_terminal_escaped(tmp_path: Path) -> None:
    """A tool name, session id, arguments and an error text (a web page's words, a model's
    output) holding escape sequences were printed raw by `crs guard status|learned`: the
    terminal set its title, wrote the clipboard, drew a forged link. `crs journal replay`
    and `watch` wrote the 8-bit CSI and bidi overrides raw (JSON escapes only C0)."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, f"s{HOSTILE}", home=home, fingerprint=lambda: "fp") as g:
        for _ in range(2):
            run(g, f"tool{HOSTILE}", {"q": f"x{HOSTILE}"}, error=f"bad {HOSTILE} end")
    for action in ("status", "learned"):
        done = crs("guard", action, "--project", str(project), "--home", str(home))
        assert done.returncode == 0, done.stderr
        _no_controls(done.stdout)
        assert "\\x1b]52;c;" in done.stdout  # shown, escaped
    (key,) = [p for p in home.iterdir() if p.is_dir()]
    done = crs("journal", "replay", str(key / "journal"))
    assert done.returncode == 0, done.stderr
    _no_controls(done.stdout)
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert HOSTILE in rows[0]["op"]["payload"]["e"]  # the same JSON values
    done = crs("journal", "watch", str(key / "journal"), "--max", "1", "--timeout", "5")
    assert done.returncode == 0, done.stderr
    _no_controls(done.stdout)


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--interval", "-1"),
        ("--interval", "nan"),
        ("--interval", "0"),
        ("--timeout", "-2"),
        ("--timeout", "nan"),
        ("--max", "-1"),
    ],
)
def test_journal_watch_refuses_bad_numbers_in_one_line(
    tmp_path: Path, flag: str, value: str
) -> None:
    """`crs journal watch --interval -1` (or NaN) printed the first entries, then a traceback
    from `time.sleep`; `--interval 0` spun a core."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s", home=home) as g:
        run(g, "t", {}, result="r")
    (key,) = [p for p in home.iterdir() if p.is_dir()]
    done = crs("journal", "watch", str(key / "journal"), "--timeout", "1", flag, value)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith(f"crs journal watch: {flag} must be")


def test_backup_commands_create_nothing_where_nothing_ran(tmp_path: Path) -> None:
    """`crs backup list|status --home <typo>` created the home; `crs backup restore` of a
    directory nothing ran in created its journal to say "no checkpoint found"; `save` made
    an empty project's state and backup."""
    nowhere = tmp_path / "typo-home"
    empty = tmp_path / "never-guarded"
    empty.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    before = _tree(tmp_path)
    for args in (["list", "--home", str(nowhere)], ["list", "--home", str(nowhere), "--json"]):
        done = crs("backup", *args)
        assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
    done = crs("backup", "status", str(empty), "--home", str(nowhere), "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["has_backup"] is False
    done = crs("backup", "restore", str(empty), "--home", str(home))
    assert (done.returncode, done.stdout) == (1, "restored: False (no checkpoint found)\n")
    done = crs("backup", "restore", str(empty), "--home", str(home), "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["reason"] == "no checkpoint found"
    done = crs("backup", "save", str(empty), "--home", str(home))
    assert done.returncode == 1
    assert done.stderr.startswith("crs backup: nothing to back up")
    assert done.stderr.count("\n") == 1
    assert _tree(tmp_path) == before


def test_backup_save_refuses_a_session_id_that_is_not_utf8(tmp_path: Path) -> None:
    """`crs backup save --session-id $'\\xff'` wrote `"\\udcff"` into metadata.json: JSON that
    strict readers (the Go CRS, browsers) refuse. Now one line, exit 2, nothing written."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s", home=home) as g:
        run(g, "t", {}, result="r")
    assert crs("backup", "save", str(project), "--home", str(home)).returncode == 0

    def stored() -> dict[Path, bytes]:  # (LOCK names the last writer's pid: not stored data)
        return {p: p.read_bytes() for p in home.rglob("*") if p.is_file() and p.name != "LOCK"}

    before = stored()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "crs",
            "backup",
            "save",
            str(project),
            "--home",
            str(home),
            "--session-id",
            b"\xff\xfe".decode("utf-8", "surrogateescape"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        errors="surrogateescape",
    )
    assert done.returncode == 2
    assert done.stderr.startswith("crs backup: options.session_id must be valid Unicode")
    assert done.stderr.count("\n") == 1
    assert stored() == before


def test_backup_commands_refuse_a_home_that_is_a_file(tmp_path: Path) -> None:
    """`crs backup list --home <a file>` answered `[]` (exit 0) and `status` "none": a home
    that cannot hold anything read as an empty one (the seventh red-team pass). Every
    backup command now says, in one line (JSON with --json), that the data directory is not
    a directory, exit 2, and changes nothing; a home that does not exist yet is still none."""
    home = tmp_path / "home-file"
    home.write_text("not a directory")
    project = tmp_path / "repo"
    project.mkdir()
    before = _tree(tmp_path)
    for where in (home, home / "below"):
        for args in (
            ["list"],
            ["status", str(project)],
            ["save", str(project)],
            ["restore", str(project)],
        ):
            done = crs("backup", *args, "--home", str(where))
            assert done.returncode == 2, (args, done.stdout, done.stderr)
            assert done.stderr.count("\n") == 1
            assert "Traceback" not in done.stderr
            assert "give --home or $CRS_HOME a directory" in done.stderr
            done = crs("backup", *args, "--home", str(where), "--json")
            assert done.returncode == 2
            assert json.loads(done.stdout)["error"] == "InvalidArgumentError"
    assert _tree(tmp_path) == before
    done = crs("backup", "list", "--home", str(tmp_path / "not-yet"), "--json")
    assert (done.returncode, json.loads(done.stdout)) == (0, [])
