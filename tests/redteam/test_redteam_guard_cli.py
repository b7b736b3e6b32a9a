"""Red team: `crs.Guard` and `crs guard status|learned|forget` against bad input.

Bad input raises a typed `crs.CRSError` naming the argument, and changes nothing stored.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from crs import CRSError, InvalidArgumentError
from crs.guard import Guard, workspace_fingerprint

ROOT = Path(__file__).resolve().parents[2]
HUGE = 10**5000  # more digits than int->str converts (sys.get_int_max_str_digits)


@pytest.mark.parametrize(
    "args",
    [{"n": HUGE}, {"n": -HUGE}, {"opts": {"depth": HUGE}}, {"list": [1, HUGE]}],
    ids=["top", "negative", "nested", "in-a-list"],
)
def test_an_integer_too_long_to_print_is_a_typed_error(tmp_path: Path, args: dict) -> None:
    """It raised a bare ValueError from `repr` deep inside the signature (and out of every
    integration, which catch only the guard's errors)."""
    project = tmp_path / "repo"
    project.mkdir()
    with Guard.open(project, "s", home=tmp_path / "home") as g:
        position = g.crs.journal_position()
        with pytest.raises(InvalidArgumentError, match=r"args\["):
            g.before_call("tool", args)
        v = g.before_call("tool", {"n": 1})
        with pytest.raises(InvalidArgumentError, match="result"):
            g.after_call(v.call, result=args)
        assert g.crs.journal_position() == position  # nothing was recorded
        assert g.status()["calls"] == 0
        assert g.after_call(v.call, result="ok").allowed


def test_guard_cli_on_a_project_that_does_not_exist_creates_nothing(tmp_path: Path) -> None:
    """`crs guard status --project <typo>` said "no guarded sessions" and created a project
    directory (journal and index entry) for the typo; status and learned change nothing."""
    home = tmp_path / "home"
    typo = tmp_path / "no-such-repo"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    where = ["--project", str(typo), "--home", str(home), "--json"]
    for action in (["status"], ["learned"], ["forget", "abc-123"]):
        p = subprocess.run(
            [sys.executable, "-m", "crs", "guard", *action, *where],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert p.returncode == 1, (action, p.stdout, p.stderr)
        assert "no such directory" in p.stderr
        assert str(typo) in p.stderr
        assert not typo.exists()
    assert not home.exists() or not [x for x in home.iterdir() if x.is_dir()]


def test_guard_cli_learned_and_forget_round_trip(tmp_path: Path) -> None:
    """What held: the CLI lists what an agent learned and forgets it durably."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "agent", home=home) as g:
        for _ in range(2):
            v = g.before_call("Bash", {"command": "make test"})
            g.after_call(v.call, error="exit 2")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    base = ["--project", str(project), "--home", str(home), "--json"]

    def crs(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "crs", "guard", *argv, *base],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )

    [learned] = json.loads(crs("learned").stdout)
    assert crs("forget", learned["id"]).returncode == 0
    assert json.loads(crs("learned").stdout) == []
    assert crs("forget", learned["id"]).returncode == 1
    with Guard.open(project, "later", home=home) as g:
        assert g.before_call("Bash", {"command": "make test"}).allowed


def test_a_guard_used_after_close_says_so(tmp_path: Path) -> None:
    g = Guard()
    g.close()
    g.close()  # idempotent
    with pytest.raises(CRSError, match="closed"):
        g.before_call("tool", {})
    with pytest.raises(CRSError, match="closed"):
        g.on_message("hello")


class _Opaque:
    """A result with neither a str() nor a repr() of its own."""


OUTPUT = b"build ok: wrote out-\xff.bin".decode("utf-8", "surrogateescape")


def test_the_decorator_returns_what_the_tool_returned_even_if_undigestible() -> None:
    """`@guard.tool` ran the function (its side effects done), then raised the guard's
    InvalidArgumentError for a result it could not digest, and the caller lost the value:
    output decoded with surrogateescape, an object without a str()."""
    g = Guard()
    opaque = _Opaque()

    @g.tool
    def build(target: str) -> str:
        return OUTPUT

    @g.tool
    def handle(name: str) -> _Opaque:
        return opaque

    @g.tool
    async def abuild(target: str) -> str:
        return OUTPUT

    assert build("all") == OUTPUT
    assert handle("x") is opaque
    assert asyncio.run(abuild("all")) == OUTPUT
    with g.guarded("tail", {"path": "log"}) as out:
        out.result = OUTPUT
    assert out.verdict.allowed
    assert g.status()["calls"] == 4


def _repo(path: Path) -> Path:
    path.mkdir()
    git = ["git", "-C", str(path), "-c", "user.email=r@t", "-c", "user.name=rt"]
    subprocess.run([*git, "init", "-q"], check=True, timeout=60)
    (path / "a.c").write_text("int a;\n")
    subprocess.run([*git, "add", "a.c"], check=True, timeout=60)
    subprocess.run([*git, "commit", "-qm", "init"], check=True, timeout=60)
    return path


def _repo_with_fsmonitor(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose .git/config names a `core.fsmonitor` program, and the file that
    program creates when it runs."""
    repo = _repo(tmp_path / "repo")
    marker = tmp_path / "ran"
    hook = tmp_path / "fsmonitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    subprocess.run(["git", "-C", str(repo), "config", "core.fsmonitor", str(hook)], check=True)
    return repo, marker


def test_the_workspace_fingerprint_runs_no_command_of_the_repository(tmp_path: Path) -> None:
    """The fingerprint runs `git status` in whatever directory the agent works in (a hook's
    payload cwd). A repository whose .git/config names a `core.fsmonitor` program (an
    unpacked archive, a shared checkout) had it run by crs on every failure."""
    repo, marker = _repo_with_fsmonitor(tmp_path)
    assert workspace_fingerprint(repo)
    assert not marker.exists()


def test_the_workspace_fingerprint_does_not_write_the_git_index(tmp_path: Path) -> None:
    """`git status` refreshes the index when stat data is stale, taking index.lock: the
    agent's own `git commit` at that moment failed with "index.lock: File exists"."""
    repo = _repo(tmp_path / "repo")
    index = repo / ".git" / "index"
    a = repo / "a.c"
    os.utime(a, ns=(a.stat().st_atime_ns, a.stat().st_mtime_ns + 5_000_000_000))
    before = index.stat().st_mtime_ns, index.read_bytes()
    assert workspace_fingerprint(repo)
    assert (index.stat().st_mtime_ns, index.read_bytes()) == before


def test_session_restore_runs_no_command_of_the_repository(tmp_path: Path) -> None:
    """`crs.sessions`' identifier and modified-files scan run git in the project too (HEAD,
    status, log): a `core.fsmonitor` program in the repository's config must not run."""
    from crs._persistence._session_restore import SessionIdentifier, find_files_modified_since

    repo, marker = _repo_with_fsmonitor(tmp_path)
    (repo / "b.c").write_text("int b;\n")
    assert SessionIdentifier(str(repo)).git_commit_hash
    assert "b.c" in " ".join(find_files_modified_since(str(repo), 0.0))
    assert not marker.exists()


def _guard_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    return subprocess.run(
        [sys.executable, "-m", "crs", "guard", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_guard_cli_on_a_directory_never_guarded_creates_no_state(tmp_path: Path) -> None:
    """`crs guard status|learned|forget` in a real directory no guard ran in created that
    project's state in the home just to report that there was none (second red-team pass)."""
    home, project = tmp_path / "home", tmp_path / "repo"
    project.mkdir()
    where = ["--project", str(project), "--home", str(home)]
    status = _guard_cli("status", *where, "--json")
    assert (status.returncode, json.loads(status.stdout)) == (
        0,
        {"sessions": [], "learned_failures": 0},
    )
    learned = _guard_cli("learned", *where)
    assert (learned.returncode, learned.stdout) == (0, "no learned failures\n")
    forget = _guard_cli("forget", "abc", *where)
    assert forget.returncode == 1
    assert "no learned failure 'abc'" in forget.stderr
    assert not home.exists()  # nothing created, not even the home


def test_guard_cli_forget_of_an_empty_id_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """`crs guard forget ''` ended in a traceback (the guard's InvalidArgumentError)."""
    home, project = tmp_path / "home", tmp_path / "repo"
    project.mkdir()
    with Guard.open(project, "s", home=home) as g:
        v = g.before_call("Bash", {"command": "make"})
        g.after_call(v.call, error="make: *** [all] Error 2")
        learned = [f.id for f in g.learned()]
    p = _guard_cli("forget", "", "--project", str(project), "--home", str(home))
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    assert p.stderr.strip().splitlines() == [
        "crs guard forget: failure_id: must be a non-empty str, got ''"
    ]
    with Guard.open(project, "s2", home=home) as g:
        assert [f.id for f in g.learned()] == learned  # nothing forgotten
