"""SessionIdentifier, project hashes, find_files_modified_since (real git repos) and try_restore."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import hashlib
import json
import os
import subprocess
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import crs
from crs import (
    BackupMetadata,
    BackupOptions,
    InvalidArgumentError,
    PersistenceManager,
    ProjectPathEmptyError,
    RestoreResult,
    SessionIdentifier,
    SessionIdentifierNilError,
    SessionRestoredEvent,
    SessionRestoreFailedEvent,
    SessionRestorer,
    SessionRestorerConfig,
    TooManyModifiedFilesError,
)
from persist_state import ListJournal, ProofState, Record

OLD = time.time() - 100_000


def git(cwd: Path, *args: str, when: float | None = None) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@x", GIT_COMMITTER_NAME="t")
    env["GIT_COMMITTER_EMAIL"] = "t@x"
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{int(when)} +0000"
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True)
    return done.stdout.decode()


def write(path: Path, text: str, mtime: float | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


# ---------------------------------------------------------------- constants and hashes


def test_constants() -> None:
    assert crs.DEFAULT_CHECKPOINT_MAX_AGE == 7 * 24 * 3600.0
    assert crs.DEFAULT_MAX_FILES_TO_REFRESH == 1000
    assert crs.CHECKPOINT_KEY_HASH_BYTES == 16
    assert crs.DEFAULT_SESSION_RESTORE_RETRIES == 3
    assert crs.PROJECT_HASH_LENGTH == 16
    assert crs.CURRENT_SCHEMA_VERSION == "1.0"


def test_compute_project_hash_is_canonical(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (tmp_path / "link").symlink_to(proj)
    expected = hashlib.sha256(str(proj.resolve()).encode()).hexdigest()[:16]
    assert crs.compute_project_hash(proj) == expected
    assert crs.compute_project_hash(str(tmp_path / "link")) == expected
    assert crs.compute_project_hash(f"{proj}/sub/..") == expected
    crs.validate_project_hash(expected)
    with pytest.raises(ProjectPathEmptyError):
        crs.compute_project_hash("")


def test_lock_file_hash_separates_names_and_contents(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    write(a / "requirements.txt", "xy")
    write(a / "uv.lock", "")
    write(b / "requirements.txt", "x")
    write(b / "uv.lock", "y")
    assert crs.compute_lock_file_hash(a) != crs.compute_lock_file_hash(b)
    empty = tmp_path / "empty"
    (empty / "uv.lock").mkdir(parents=True)  # a directory is not a lock file
    base = crs.compute_lock_file_hash(empty)
    assert len(base) == 64
    assert base == crs.compute_lock_file_hash(tmp_path / "empty")
    write(empty / "requirements-dev.txt", "pytest")
    with_dev = crs.compute_lock_file_hash(empty)
    assert with_dev != base
    write(empty / "README.md", "not a lock file")
    assert crs.compute_lock_file_hash(empty) == with_dev
    write(empty / "pyproject.toml", "[project]")
    assert crs.compute_lock_file_hash(empty) != with_dev


def test_session_identifier(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    write(proj / "go.sum", "x")
    sid = SessionIdentifier(proj)
    assert sid.project_path == str(proj.resolve())
    assert sid.project_hash == crs.compute_lock_file_hash(proj)
    assert sid.git_commit_hash == ""
    assert abs(sid.computed_at - time.time() * 1000) < 60_000
    assert sid.checkpoint_key() == crs.compute_project_hash(proj)
    assert 0 <= sid.age() < 60
    with pytest.raises(dataclasses.FrozenInstanceError):
        sid.project_hash = "x"  # type: ignore[misc]
    again = SessionIdentifier(sid.project_path, project_hash=sid.project_hash, computed_at=5)
    assert (again.project_hash, again.computed_at, again.git_commit_hash) == (
        sid.project_hash,
        5,
        "",
    )
    assert again.age() > 1e6
    with pytest.raises(ProjectPathEmptyError, match="must not be empty"):
        SessionIdentifier("")
    with pytest.raises(InvalidArgumentError, match="existing directory"):
        SessionIdentifier(proj / "go.sum")


def test_session_identifier_reads_git_head(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    write(tmp_path / "a.txt", "a")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "one")
    head = git(tmp_path, "rev-parse", "HEAD").strip()
    assert SessionIdentifier(tmp_path).git_commit_hash == head


def test_restorer_config() -> None:
    cfg = crs.DefaultSessionRestorerConfig()
    assert (cfg.checkpoint_max_age, cfg.max_files_to_refresh) == (7 * 86400.0, 1000)
    assert (cfg.use_git_status, cfg.max_retries) == (True, 3)
    cfg.validate()
    for change, message in [
        ({"checkpoint_max_age": 0}, "checkpoint_max_age must be positive"),
        ({"max_files_to_refresh": 0}, "max_files_to_refresh must be a positive int"),
        ({"max_retries": -1}, "max_retries must be a non-negative int"),
    ]:
        with pytest.raises(InvalidArgumentError, match=message):
            replace(cfg, **change).validate()
    with pytest.raises(InvalidArgumentError):
        SessionRestorerConfig().validate()


# ---------------------------------------------------------------- modified files


def no_git(**kw: Any) -> SessionRestorerConfig:
    return replace(crs.DefaultSessionRestorerConfig(), use_git_status=False, **kw)


def test_mtime_walk(tmp_path: Path) -> None:
    root = tmp_path / ".hidden-root"  # a root whose name starts with "." is still walked
    write(root / "old.py", "", OLD)
    write(root / "new.py", "")
    write(root / ".env", "")  # hidden files count
    write(root / "pkg" / "mod.py", "")
    write(root / ".git" / "objects" / "x", "")  # hidden directories do not
    since = time.time() - 50
    found = crs.find_files_modified_since(root, since, no_git())
    assert found == [".env", "new.py", os.path.join("pkg", "mod.py")]
    assert crs.find_files_modified_since(root, dt.datetime.fromtimestamp(since), no_git()) == found
    aware = dt.datetime.fromtimestamp(since, tz=dt.UTC)
    assert crs.find_files_modified_since(root, aware, no_git()) == found
    assert crs.find_files_modified_since(root, time.time() + 10, no_git()) == []
    with pytest.raises(
        TooManyModifiedFilesError, match="found 3, more than max_files_to_refresh=2"
    ):
        crs.find_files_modified_since(root, since, no_git(max_files_to_refresh=2))
    # Nanosecond mtimes: a file written just after `since` counts, within the same second.
    mark = time.time()
    time.sleep(0.05)  # file times come from the kernel's coarse clock (up to a jiffy behind)
    write(root / "fresh.py", "")
    assert "fresh.py" in crs.find_files_modified_since(root, mark, no_git())
    with pytest.raises(InvalidArgumentError, match="since must be"):
        crs.find_files_modified_since(root, "yesterday", no_git())  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="existing directory"):
        crs.find_files_modified_since(root / "old.py", since)


def make_repo(root: Path) -> float:
    """A repo with old committed files; returns `since` (after the initial commit)."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    write(root / ".gitignore", "build/\n", OLD)
    for name in ("keep.py", "edit.py", "gone.py", "moved.py", "sub/deep.py", "later.py"):
        write(root / name, f"# {name}\n", OLD)
    git(root, "add", ".")
    git(root, "commit", "-qm", "initial", when=OLD)
    return time.time() - 50


def test_git_status_untracked_deleted_renamed_committed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    since = make_repo(root)
    write(root / "edit.py", "changed\n")
    write(root / "untracked" / "new.py", "new\n")
    (root / "gone.py").unlink()
    git(root, "mv", "moved.py", "renamed.py")
    write(root / "build" / "out.o", "ignored build output")
    write(root / "later.py", "committed after since\n")
    git(root, "commit", "-qm", "later", "--", "later.py")
    os.utime(root / "later.py", (OLD, OLD))  # only git log can see this one now
    write(root / "keep.py", "# keep.py\n", OLD)  # touched but old: not modified
    found = crs.find_files_modified_since(root, since)
    assert found == sorted(
        ["edit.py", "gone.py", "later.py", "moved.py", "renamed.py", "untracked/new.py"]
    )
    walked = crs.find_files_modified_since(root, since, no_git())
    assert "build/out.o" in walked
    assert "gone.py" not in walked


def test_git_in_a_subdirectory_project(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    since = make_repo(root)
    write(root / "sub" / "deep.py", "changed\n")
    write(root / "sub" / "extra.py", "new\n")
    write(root / "edit.py", "outside the project\n")
    assert crs.find_files_modified_since(root / "sub", since) == ["deep.py", "extra.py"]


def test_git_too_many(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    since = make_repo(root)
    for i in range(5):
        write(root / f"n{i}.py", "")
    cfg = replace(crs.DefaultSessionRestorerConfig(), max_files_to_refresh=4)
    with pytest.raises(TooManyModifiedFilesError):
        crs.find_files_modified_since(root, since, cfg)


# ---------------------------------------------------------------- try_restore


def setup_restore(
    tmp_path: Path, n: int = 100, tail: int = 10, **cfg: Any
) -> tuple[PersistenceManager, SessionIdentifier, ProofState, ListJournal, ProofState]:
    """A project whose backup covers records 1..n and whose journal also holds n+1..n+tail."""
    proj = tmp_path / "proj"
    write(proj / "pyproject.toml", "[project]\nname='p'\n", OLD)
    write(proj / "main.py", "", OLD)
    pm = PersistenceManager(replace(crs.DefaultPersistenceConfig(), base_dir=str(tmp_path / "h")))
    sid = SessionIdentifier(proj)
    saved = ProofState.generate(n, seed=3)
    records = [Record(("set", saved.ids[i], tuple(saved.table[i])), i + 1) for i in range(n)]
    pm.save_backup(
        sid.checkpoint_key(),
        saved,
        BackupOptions(session_id="sess-1", lock_file_hash=sid.project_hash),
    )
    expected = copy.deepcopy(saved)
    for j in range(tail):
        seq = n + 1 + j
        delta = ("add", saved.ids[j % n], 5) if j % 2 else ("set", f"new:{j}", (j, 1, 2, 0, 9))
        records.append(Record(delta, seq))
        expected.apply(delta)
    expected.position = n + tail
    return pm, sid, saved, ListJournal(records), expected


def restorer(
    pm: PersistenceManager, events: list[Any] | None = None, **cfg: Any
) -> SessionRestorer:
    config = replace(crs.DefaultSessionRestorerConfig(), max_retries=2, **cfg)
    return SessionRestorer(pm, config, on_event=None if events is None else events.append)


def test_restore_loads_image_then_replays_tail(tmp_path: Path) -> None:
    pm, sid, _saved, journal, expected = setup_restore(tmp_path)
    events: list[Any] = []
    target = ProofState()
    result = restorer(pm, events).try_restore(target, journal, sid)
    assert result.restored, result.reason
    assert result.reason == "success"
    assert (result.journal_position, result.replayed_deltas) == (110, 10)
    assert journal.after == [100]  # the journal is asked only for the tail
    assert result.generation == target.gen == 110
    assert result.checkpoint_id == "sess-1"
    assert result.checkpoint_age < 60
    assert result.dependencies_changed is False
    assert result.modified_files == ()
    target.position = 110
    assert target.digest() == expected.digest()
    assert len(events) == 1
    event = events[0]
    assert isinstance(event, SessionRestoredEvent)
    assert (event.project_path, event.project_hash) == (sid.project_path, sid.checkpoint_key())
    assert event.generation == 110


def test_retry_never_applies_a_record_twice(tmp_path: Path) -> None:
    pm, sid, _saved, journal, expected = setup_restore(tmp_path)
    journal.fail_at = 105  # part-way through the tail, after some "add" deltas
    target = ProofState()
    result = restorer(pm).try_restore(target, journal, sid)
    assert result.restored
    assert journal.replays == 2
    assert target.loads == 2
    target.position = result.journal_position
    assert target.digest() == expected.digest()


def test_restore_without_journal_and_first_run(tmp_path: Path) -> None:
    pm, sid, saved, _journal, _expected = setup_restore(tmp_path)
    target = ProofState()
    result = restorer(pm).try_restore(target, None, sid)
    assert result.restored
    assert target.digest() == saved.digest()
    other = tmp_path / "other"
    other.mkdir()
    events: list[Any] = []
    result = restorer(pm, events).try_restore(ProofState(), None, SessionIdentifier(other))
    assert (result.restored, result.reason) == (False, "no checkpoint found")
    assert isinstance(events[0], SessionRestoreFailedEvent)


def test_sequence_gap_is_not_retried(tmp_path: Path) -> None:
    pm, sid, _saved, journal, _expected = setup_restore(tmp_path)
    journal.records = [r for r in journal.records if r.seq_num != 101]
    result = restorer(pm).try_restore(ProofState(), journal, sid)
    assert not result.restored
    assert "sequence gap" in result.reason
    assert journal.replays == 1


def test_corrupt_record_fails_and_skipped_record_passes(tmp_path: Path) -> None:
    pm, sid, _saved, journal, _expected = setup_restore(tmp_path)
    journal.records[103] = Record(None, 104, ValueError("crc mismatch"), False)
    result = restorer(pm).try_restore(ProofState(), journal, sid)
    assert not result.restored
    assert "unreadable" in result.reason
    journal.records[103] = Record(None, 104, ValueError("crc mismatch"), True)
    result = restorer(pm).try_restore(ProofState(), journal, sid)
    assert result.restored
    assert (result.replayed_deltas, result.journal_position) == (9, 110)


def test_incompatible_checkpoints(tmp_path: Path) -> None:
    pm, sid, _saved, journal, _expected = setup_restore(tmp_path)
    time.sleep(0.02)
    result = restorer(pm, checkpoint_max_age=0.01).try_restore(ProofState(), journal, sid)
    assert not result.restored
    assert result.reason.startswith("incompatible: checkpoint too old")
    assert result.checkpoint_time > 0

    key = sid.checkpoint_key()
    meta = BackupMetadata(**json.loads(pm.metadata_path(key).read_text()))
    meta = replace(meta, project_hash="0" * 16, metadata_hash="")
    meta = replace(meta, metadata_hash=meta.compute_metadata_hash())
    pm.metadata_path(key).write_text(json.dumps(meta.to_dict()))
    result = restorer(pm).try_restore(ProofState(), journal, sid)
    assert result.reason.startswith("incompatible: project hash mismatch")


def test_dependencies_changed_and_modified_files(tmp_path: Path) -> None:
    pm, sid, _saved, journal, _expected = setup_restore(tmp_path, n=10, tail=0)
    proj = Path(sid.project_path)
    time.sleep(0.05)  # file times come from the kernel's coarse clock (up to a jiffy behind)
    write(proj / "pyproject.toml", "[project]\nname='p'\ndependencies=['x']\n")
    write(proj / "a.py", "")
    write(proj / "b.py", "")
    sid2 = SessionIdentifier(proj)
    result = restorer(pm, use_git_status=False, max_files_to_refresh=3).try_restore(
        ProofState(), journal, sid2
    )
    assert result.restored
    assert result.dependencies_changed
    assert result.modified_file_count == 3
    assert result.modified_files == ("a.py", "b.py", "pyproject.toml")
    # more changed files than max_files_to_refresh: "skip restore and trigger full rebuild"
    target = ProofState()
    result = restorer(pm, use_git_status=False, max_files_to_refresh=2).try_restore(
        target, journal, sid2
    )
    assert not result.restored
    assert result.reason.startswith("incompatible: too many modified files")
    assert result.modified_file_count == 3
    assert result.modified_files == ("a.py", "b.py")
    assert target.generation() == 0


def test_persistent_failure_is_reported_not_raised(tmp_path: Path) -> None:
    pm, sid, _saved, journal, _expected = setup_restore(tmp_path)

    class Broken(ProofState):
        def apply(self, delta: Any) -> object:
            raise RuntimeError("apply exploded")

    def bad_callback(event: object) -> None:
        raise ValueError("callback bug")

    r = SessionRestorer(
        pm, replace(crs.DefaultSessionRestorerConfig(), max_retries=1), on_event=bad_callback
    )
    result = r.try_restore(Broken(), journal, sid)
    assert isinstance(result, RestoreResult)
    assert not result.restored
    assert result.reason == "restore failed after retries: apply exploded"
    assert journal.replays == 2


def test_try_restore_argument_checks(tmp_path: Path) -> None:
    pm, sid, _saved, journal, _expected = setup_restore(tmp_path, n=5, tail=0)
    r = restorer(pm)
    with pytest.raises(SessionIdentifierNilError):
        r.try_restore(ProofState(), journal, None)
    with pytest.raises(InvalidArgumentError, match="session_id must be"):
        r.try_restore(ProofState(), journal, "x")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="crs must implement"):
        r.try_restore(object(), journal, sid)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="journal must implement"):
        r.try_restore(ProofState(), object(), sid)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="pm must be"):
        SessionRestorer(object())  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="config must be"):
        SessionRestorer(pm, {})  # type: ignore[arg-type]
    assert SessionRestorer(pm).config == crs.DefaultSessionRestorerConfig()


def test_load_checkpoint_helper(tmp_path: Path) -> None:
    from crs._persistence._session_restore import load_checkpoint

    pm, sid, _saved, journal, expected = setup_restore(tmp_path)
    target = ProofState()
    meta = load_checkpoint(pm, sid.checkpoint_key(), target, journal)
    assert meta is not None
    assert meta.generation == 100
    target.position = 110
    assert target.digest() == expected.digest()
    assert load_checkpoint(pm, "00000000", ProofState(), journal) is None


def test_a_delta_the_state_rejects_is_not_retried(tmp_path: Path) -> None:
    pm, sid, _saved, journal, _expected = setup_restore(tmp_path)

    class Strict(ProofState):
        def apply(self, delta: Any) -> object:
            raise crs.DeltaValidationError("proof: must be >= 0")

    result = restorer(pm).try_restore(Strict(), journal, sid)
    assert not result.restored
    assert result.reason == "restore failed: proof: must be >= 0"
    assert journal.replays == 1
    pm.close()
    result = restorer(pm).try_restore(ProofState(), journal, sid)
    assert result.reason == "restore failed: persistence manager is closed"
