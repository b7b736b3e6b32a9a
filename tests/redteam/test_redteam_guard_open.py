"""Red team: `Guard.open` of a directory that does not exist created its state (the CLIs
refuse it; the API keeps it by default and refuses it with `must_exist=True`), and a
`with_session` guard kept answering ALLOW after the guard it came from closed the engine; only
its write raised (docs/redteam.md)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from crs import CRSClosedError, CRSError, InvalidArgumentError
from crs.guard import Guard


def _tree(root: Path) -> list[str]:
    if not root.exists():
        return []
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_must_exist_refuses_a_directory_that_does_not_exist_and_creates_nothing(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    before = _tree(tmp_path)
    for missing in (tmp_path / "typo", str(tmp_path / "a" / "b"), tmp_path / "home" / "nope"):
        with pytest.raises(InvalidArgumentError, match=r"^project: no such directory") as err:
            Guard.open(missing, "s", home=home, must_exist=True)
        assert isinstance(err.value, CRSError)
        assert os.fspath(missing) in str(err.value)
    f = tmp_path / "a-file"
    f.write_text("x")
    with pytest.raises(InvalidArgumentError, match=r"^project: no such directory"):
        Guard.open(f, "s", home=home, must_exist=True)
    assert _tree(tmp_path) == sorted([*before, "a-file"])  # nothing created, not even home's
    with pytest.raises(InvalidArgumentError, match="must_exist"):
        Guard.open(tmp_path / "typo", "s", home=home, must_exist="yes")  # type: ignore[arg-type]


def test_by_default_a_project_that_is_not_on_this_machine_opens(tmp_path: Path) -> None:
    home = tmp_path / "home"
    gone = tmp_path / "moved-away"
    with Guard.open(gone, "s", home=home) as g:
        v = g.before_call("Bash", {"command": "make"})
        g.after_call(v.call, error="error: no rule to make target")
    with Guard.open(gone, "s2", home=home) as g:
        assert len(g.learned()) == 1  # the same project's state, by its path
    assert not gone.exists()
    project = tmp_path / "repo"
    project.mkdir()
    with Guard.open(project, "s", home=home, must_exist=True) as g:  # exists: opens
        assert g.before_call("Read", {"file_path": "a"}).allowed


def test_a_child_session_refuses_to_decide_after_its_parent_closed(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    for parent in (Guard.open(project, "parent", home=tmp_path / "home"), Guard()):
        child = parent.with_session("child")
        v = child.before_call("Read", {"file_path": "a"})
        assert v.allowed
        parent.close()
        with pytest.raises(CRSClosedError, match="closed"):
            child.before_call("Read", {"file_path": "b"})  # was ALLOW
        with pytest.raises(CRSClosedError, match="closed"):
            asyncio.run(child.abefore_call("Read", {"file_path": "c"}))
        with pytest.raises(CRSClosedError):  # the write: the same typed error
            child.after_call(v.call, result="text")
        child.call_for("Read", {"file_path": "d"})  # a handle, no decision: as a closed guard
        child.close()  # still idempotent and quiet
