"""Files the session recorder writes at user-given paths are private and never followed
through a planted symlink (issue 11): files 0600, directories 0700, `O_NOFOLLOW`, temporary
files of the atomic renames included (the journal's primitives, `crs._persistence._durable`)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from test_sessions_recorder import snap

from crs.sessions import persist_canonical_snapshot
from crs.sessions._cli import _emit


def _mode(p: Path) -> int:
    return stat.S_IMODE(os.lstat(p).st_mode)


def _tree(root: Path) -> list[Path]:
    return sorted(root.rglob("*"))


@pytest.fixture(autouse=True)
def _open_umask() -> object:
    old = os.umask(0o022)  # the usual umask: what it lets through must not matter
    yield None
    os.umask(old)


def test_the_store_and_its_directories_are_private(tmp_path: Path) -> None:
    home = tmp_path / "a" / "b" / "home"
    result = persist_canonical_snapshot(snap(), home=home)
    assert result.backend == "state-store"
    persist_canonical_snapshot(snap("completed"), home=home)
    for d in (tmp_path / "a", tmp_path / "a" / "b", home):
        assert _mode(d) == 0o700, d
    files = [p for p in _tree(home) if p.is_file()]
    assert files
    assert all(_mode(p) == 0o600 for p in files), [(p.name, oct(_mode(p))) for p in files]


def test_a_planted_store_symlink_is_never_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"")  # SQLite would make an empty file its database
    home = tmp_path / "home"
    home.mkdir()
    (home / "sessions.db").symlink_to(victim)
    result = persist_canonical_snapshot(snap(), home=home, recording_dir=tmp_path / "rec")
    assert result.backend == "json-file"  # the store was refused, not opened through the link
    assert victim.read_bytes() == b""


@pytest.fixture
def blocked(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / "sessions.db").mkdir(parents=True)  # the store cannot be opened: JSON fallback
    return home


def test_the_json_recording_and_its_lock_are_private(tmp_path: Path, blocked: Path) -> None:
    rec = tmp_path / "x" / "rec"
    for state in ("running", "completed"):
        result = persist_canonical_snapshot(snap(state), home=blocked, recording_dir=rec)
        assert result.backend == "json-file"
    assert result.path is not None
    path = Path(result.path)
    for d in (tmp_path / "x", rec, path.parent):
        assert _mode(d) == 0o700, d
    names = sorted(p.name for p in path.parent.iterdir())
    assert names == ["nightly.json", "nightly.json.lock"]  # no temporary file left
    assert all(_mode(p) == 0o600 for p in path.parent.iterdir())
    assert json.loads(path.read_text())["latest"]["session"]["state"] == "completed"


def test_a_planted_recording_symlink_is_replaced_not_followed(
    tmp_path: Path, blocked: Path
) -> None:
    rec = tmp_path / "rec"
    (rec / "dmux-tmux").mkdir(parents=True)
    victim = tmp_path / "victim.json"
    victim.write_text(json.dumps({"history": [{"secret": 1}], "createdAt": "then"}))
    before = victim.read_bytes()
    path = rec / "dmux-tmux" / "nightly.json"
    path.symlink_to(victim)
    result = persist_canonical_snapshot(snap(), home=blocked, recording_dir=rec)
    assert result.path == str(path)
    assert victim.read_bytes() == before  # neither read into the history nor written
    assert not path.is_symlink()
    assert _mode(path) == 0o600
    data = json.loads(path.read_text())
    assert len(data["history"]) == 1
    assert data["createdAt"] != "then"


def test_a_planted_lock_symlink_is_refused(tmp_path: Path, blocked: Path) -> None:
    rec = tmp_path / "rec"
    (rec / "dmux-tmux").mkdir(parents=True)
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    (rec / "dmux-tmux" / "nightly.json.lock").symlink_to(victim)
    from crs import SessionError

    with pytest.raises(SessionError, match="Cannot write the session recording"):
        persist_canonical_snapshot(snap(), home=blocked, recording_dir=rec)
    assert victim.read_bytes() == b"precious"
    assert not (rec / "dmux-tmux" / "nightly.json").exists()


def test_the_cli_write_file_is_private_and_replaces_a_planted_symlink(tmp_path: Path) -> None:
    out = tmp_path / "out" / "deep" / "s.json"
    _emit({"a": 1}, str(out))
    assert json.loads(out.read_text()) == {"a": 1}
    assert _mode(out) == 0o600
    assert _mode(out.parent) == 0o700
    assert _mode(out.parent.parent) == 0o700
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    link = tmp_path / "out" / "link.json"
    link.symlink_to(victim)
    _emit({"b": 2}, str(link))
    assert victim.read_bytes() == b"precious"
    assert not link.is_symlink()
    assert json.loads(link.read_text()) == {"b": 2}
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["deep", "link.json"]
