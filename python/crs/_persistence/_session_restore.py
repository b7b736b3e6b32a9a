"""Session restore: find a project's backup, load it, replay the journal tail (spec §5 item 13).

The project key (`compute_project_hash`) is 16 hex characters of the SHA-256 of the project's
canonical absolute path; it names the project's directory under the data directory. The
lock-file hash (`SessionIdentifier.project_hash`) covers the dependency files with their names
and lengths, so a restore can say that dependencies changed since the backup.

Restore is idempotent: every attempt replaces the whole state by the backup image
(`BackupTarget.load_image`) and then applies only journal records after the image's position,
in sequence, so a retry after a failure part-way never applies a record twice.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import logging
import math
import os
import stat
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from crs._check import brief, require_instance
from crs._errors import (
    BackupCorruptedError,
    BackupNotFoundError,
    BackupVersionMismatchError,
    CheckpointTooOldError,
    DeltaValidationError,
    InvalidArgumentError,
    JournalCorruptedError,
    JournalSequenceGapError,
    MetadataCorruptedError,
    PersistenceManagerClosedError,
    ProjectHashMismatchError,
    SchemaVersionMismatchError,
    SessionIdentifierNilError,
    TooManyModifiedFilesError,
)
from crs._persistence._backup_format import CURRENT_SCHEMA_VERSION, BackupMetadata
from crs._persistence._load import (  # re-exported: opening a project needs only these
    PROJECT_HASH_LENGTH as PROJECT_HASH_LENGTH,
)
from crs._persistence._load import _canonical, _replay_tail, undo_point
from crs._persistence._load import compute_project_hash as compute_project_hash
from crs._persistence._load import load_checkpoint as load_checkpoint
from crs._persistence._manager import BackupTarget, PersistenceManager

__all__ = [
    "CHECKPOINT_KEY_HASH_BYTES",
    "DEFAULT_CHECKPOINT_MAX_AGE",
    "DEFAULT_MAX_FILES_TO_REFRESH",
    "DEFAULT_SESSION_RESTORE_RETRIES",
    "LOCK_FILE_NAMES",
    "PROJECT_HASH_LENGTH",
    "DefaultSessionRestorerConfig",
    "ReplayJournal",
    "ReplayRecord",
    "RestoreResult",
    "RestoreTarget",
    "SessionIdentifier",
    "SessionRestoreFailedEvent",
    "SessionRestoredEvent",
    "SessionRestorer",
    "SessionRestorerConfig",
    "compute_lock_file_hash",
    "compute_project_hash",
    "find_files_modified_since",
]

_log = logging.getLogger("crs.session_restore")

DEFAULT_CHECKPOINT_MAX_AGE = 7 * 24 * 3600.0
"""Seconds after which a checkpoint is too old to restore (7 days)."""

DEFAULT_MAX_FILES_TO_REFRESH = 1000
"""Most modified files reported after a restore; beyond it a full rebuild is recommended."""

CHECKPOINT_KEY_HASH_BYTES = 16
"""Kept from the seed. The key itself follows spec §5.13: `PROJECT_HASH_LENGTH` hex chars."""

DEFAULT_SESSION_RESTORE_RETRIES = 3
"""Retries of a restore after a transient failure."""

LOCK_FILE_NAMES: tuple[str, ...] = (
    "pyproject.toml",
    "uv.lock",
    "poetry.lock",
    "Pipfile.lock",
    "requirements*.txt",
    "setup.cfg",
    "Cargo.toml",
    "Cargo.lock",
    "go.mod",
    "go.sum",
    "package.json",
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "Gemfile.lock",
    "composer.lock",
)
"""Dependency files hashed into `SessionIdentifier.project_hash` (glob patterns allowed)."""

_GIT_TIMEOUT = 30.0
_GIT_ENV = {"LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}

# Errors a retry cannot fix: the data or its compatibility is wrong, not the moment.
_PERMANENT: tuple[type[BaseException], ...] = (
    BackupNotFoundError,
    BackupCorruptedError,
    MetadataCorruptedError,
    BackupVersionMismatchError,
    CheckpointTooOldError,
    ProjectHashMismatchError,
    SchemaVersionMismatchError,
    JournalSequenceGapError,
    JournalCorruptedError,
    DeltaValidationError,
    InvalidArgumentError,
    PersistenceManagerClosedError,
)


def compute_lock_file_hash(project_path: str | os.PathLike[str]) -> str:
    """SHA-256 hex over the project's dependency files (`LOCK_FILE_NAMES`), name-separated.

    Each present file contributes its name, its length and its bytes, so moving content
    between files or renaming one changes the hash. A project without any gives the hash of
    the empty set (still 64 hex characters).
    """
    root = Path(_canonical(project_path))
    hasher = hashlib.sha256(b"crs-lock-files-v1\0")
    for pattern in LOCK_FILE_NAMES:
        for path in sorted(root.glob(pattern)):
            try:
                data = path.read_bytes()
            except OSError:  # a directory or unreadable file is not a lock file
                continue
            hasher.update(path.name.encode("utf-8", "surrogateescape") + b"\0")
            hasher.update(b"%d\0" % len(data))
            hasher.update(data)
    return hasher.hexdigest()


def _git(cwd: str, *args: str) -> str | None:
    """Output of a git command in `cwd`, or None when git is missing or fails."""
    try:
        done = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", *args],  # no program the repository names
            cwd=cwd,
            capture_output=True,
            timeout=_GIT_TIMEOUT,
            env={**os.environ, **_GIT_ENV},
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", "surrogateescape")


@dataclass(frozen=True, init=False)
class SessionIdentifier:
    """Identifies a project for checkpoint lookup (the seed's `NewSessionIdentifier(path)`).

    `SessionIdentifier(path)` resolves the path and computes the lock-file hash and the git
    commit. Passing `project_hash` (and optionally the other fields) rebuilds a stored
    identifier without touching the file system.

    Attributes:
        project_path: Canonical absolute path of the project root.
        project_hash: Lock-file hash (`compute_lock_file_hash`), to detect dependency changes.
        git_commit_hash: `git rev-parse HEAD`, or "" outside a git repository.
        computed_at: When this identifier was computed, Unix milliseconds UTC.

    Raises:
        ProjectPathEmptyError: The path is empty.
        InvalidArgumentError: The path is not an existing directory.
    """

    project_path: str
    project_hash: str
    git_commit_hash: str
    computed_at: int

    def __init__(
        self,
        project_path: str | os.PathLike[str],
        *,
        project_hash: str | None = None,
        git_commit_hash: str | None = None,
        computed_at: int | None = None,
    ) -> None:
        path = _canonical(project_path)
        if project_hash is None:
            if not os.path.isdir(path):
                raise InvalidArgumentError(
                    f"project_path must be an existing directory, got {os.fspath(project_path)!r}"
                )
            project_hash = compute_lock_file_hash(path)
            if git_commit_hash is None:
                git_commit_hash = (_git(path, "rev-parse", "HEAD") or "").strip()
        object.__setattr__(self, "project_path", path)
        object.__setattr__(self, "project_hash", project_hash)
        object.__setattr__(self, "git_commit_hash", git_commit_hash or "")
        object.__setattr__(
            self, "computed_at", time.time_ns() // 1_000_000 if computed_at is None else computed_at
        )

    def checkpoint_key(self) -> str:
        """The project key used as the backup directory name (`compute_project_hash`)."""
        return compute_project_hash(self.project_path)

    def age(self) -> float:
        """Seconds since this identifier was computed."""
        return max(0.0, time.time() - self.computed_at / 1000.0)

    def to_dict(self) -> dict[str, Any]:
        """The seed's JSON form: project_path, project_hash, git_commit_hash, computed_at."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SessionIdentifier:
        """Rebuild a stored identifier (no file system access); inverse of `to_dict`."""
        return cls(
            _dict_field(data, "project_path", str),
            project_hash=_dict_field(data, "project_hash", str),
            git_commit_hash=_dict_field(data, "git_commit_hash", str, ""),
            computed_at=_dict_field(data, "computed_at", int, 0),
        )


def _dict_field(data: Any, name: str, kind: type, default: Any = None) -> Any:
    if not isinstance(data, dict):
        raise InvalidArgumentError(f"data: must be a dict, got {brief(data)}")
    value = data.get(name, default)
    if value is None or isinstance(value, bool) or not isinstance(value, kind):
        raise InvalidArgumentError(f"data[{name!r}]: must be a {kind.__name__}, got {brief(value)}")
    return value


@dataclass(frozen=True)
class SessionRestorerConfig:
    """Configuration of a `SessionRestorer`; `DefaultSessionRestorerConfig()` gives defaults.

    Attributes:
        checkpoint_max_age: Seconds after which a checkpoint is not restored.
        max_files_to_refresh: Most files changed since the checkpoint for a restore: with
            more, `try_restore` does not restore (a full rebuild is recommended) and its
            `RestoreResult` lists the first ones and the count.
        use_git_status: Ask git for modified files before walking the tree.
        max_retries: Retries after a transient failure.
        logger: Logger (default `logging.getLogger("crs.session_restore")`).
    """

    checkpoint_max_age: float = 0.0
    max_files_to_refresh: int = 0
    use_git_status: bool = False
    max_retries: int = 0
    logger: logging.Logger | None = None

    def validate(self) -> None:
        """Raise `InvalidArgumentError` naming the first invalid field."""
        if isinstance(self.checkpoint_max_age, bool) or not isinstance(
            self.checkpoint_max_age, int | float
        ):
            raise InvalidArgumentError(
                f"checkpoint_max_age must be a number of seconds"
                f", got {brief(self.checkpoint_max_age)}"
            )
        if not self.checkpoint_max_age > 0:
            raise InvalidArgumentError(
                f"checkpoint_max_age must be positive, got {brief(self.checkpoint_max_age)}"
            )
        if not _is_int(self.max_files_to_refresh) or self.max_files_to_refresh <= 0:
            raise InvalidArgumentError(
                f"max_files_to_refresh must be a positive int"
                f", got {brief(self.max_files_to_refresh)}"
            )
        if not _is_int(self.max_retries) or self.max_retries < 0:
            raise InvalidArgumentError(
                f"max_retries must be a non-negative int, got {brief(self.max_retries)}"
            )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def DefaultSessionRestorerConfig() -> SessionRestorerConfig:
    """Production defaults: 7 days, 1000 files, git status on, 3 retries."""
    return SessionRestorerConfig(
        checkpoint_max_age=DEFAULT_CHECKPOINT_MAX_AGE,
        max_files_to_refresh=DEFAULT_MAX_FILES_TO_REFRESH,
        use_git_status=True,
        max_retries=DEFAULT_SESSION_RESTORE_RETRIES,
    )


# ---------------------------------------------------------------- modified files


def _since_ns(since: _dt.datetime | float) -> int:
    if isinstance(since, _dt.datetime):
        if since.tzinfo is None:
            since = since.astimezone()  # naive means local time, as datetime.now() gives
        return int(since.timestamp() * 1_000_000_000)
    if isinstance(since, bool) or not isinstance(since, int | float):
        raise InvalidArgumentError(
            f"since must be a datetime or Unix seconds, got {type(since).__name__}"
        )
    if not math.isfinite(since):
        raise InvalidArgumentError(f"since must be finite Unix seconds, got {brief(since)}")
    return int(since * 1_000_000_000)


def _changed_after(path: str, since_ns: int) -> bool:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True  # deleted: a change the caller must know about
    except OSError:
        return False
    return st.st_mtime_ns > since_ns


def _git_modified(root: str, since_ns: int) -> list[str] | None:
    """Files under `root` changed after `since_ns`, from git; None if `root` is not in git."""
    prefix = _git(root, "rev-parse", "--show-prefix")
    if prefix is None:
        return None
    prefix = prefix.strip()
    # Porcelain paths are relative to the repository root; `-- .` limits them to `root`.
    status = _git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
    if status is None:
        return None
    found: set[str] = set()
    tokens = status.split("\0")
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if len(token) < 4:
            continue
        code, rel = token[:2], token[3:]
        names = [rel]
        # A rename/copy is followed by its source path. A rename keeps the mtime, so both
        # sides count as changed whatever their times say.
        moved = "R" in code or "C" in code
        if moved:
            names.append(tokens[i])
            i += 1
        for name in names:
            if not name.startswith(prefix):
                continue
            local = name[len(prefix) :]
            if moved or _changed_after(os.path.join(root, local), since_ns):
                found.add(local)
    # Committed since `since` but clean now (git status cannot see those).
    committed = _git(
        root,
        "log",
        f"--since=@{since_ns // 1_000_000_000}",
        "--name-only",
        "--relative",
        "--format=",
        "-z",
        "--",
        ".",
    )
    for name in (committed or "").replace("\n", "\0").split("\0"):
        if name:
            found.add(name)
    return sorted(found)


def _walk_modified(root: str, since_ns: int) -> list[str]:
    """Regular files under `root` with mtime after `since_ns`; hidden directories skipped."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in filenames:
            full = os.path.join(dirpath, name)
            try:
                st = os.lstat(full)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_mtime_ns > since_ns:
                found.append(os.path.relpath(full, root))
    return sorted(found)


def _modified_files(project_path: str, since_ns: int, use_git: bool) -> list[str]:
    if use_git:
        files = _git_modified(project_path, since_ns)
        if files is not None:
            return files
    return _walk_modified(project_path, since_ns)


def find_files_modified_since(
    project_path: str | os.PathLike[str],
    since: _dt.datetime | float,
    config: SessionRestorerConfig | None = None,
) -> list[str]:
    """Files of a project changed after `since`, relative to the project root, sorted.

    In a git work tree (when `config.use_git_status`): the entries of
    `git status --porcelain` (untracked files included) whose mtime is after `since`, that
    were deleted, or that were renamed or copied (both paths; a rename keeps the mtime), plus
    the files of commits made after `since` (git status cannot see committed changes).
    Elsewhere: a walk of the tree (hidden directories skipped) comparing nanosecond mtimes.

    Args:
        project_path: Project root.
        since: A datetime (naive = local time) or Unix seconds.
        config: Supplies `use_git_status` and `max_files_to_refresh`; None for defaults.

    Raises:
        ProjectPathEmptyError: The path is empty.
        InvalidArgumentError: The path is not a directory, or `since` is not a time.
        TooManyModifiedFilesError: More than `max_files_to_refresh` files changed.
    """
    cfg = DefaultSessionRestorerConfig() if config is None else config
    require_instance(cfg, SessionRestorerConfig, "config")
    cfg.validate()
    root = _canonical(project_path)
    if not os.path.isdir(root):
        raise InvalidArgumentError(
            f"project_path must be an existing directory, got {os.fspath(project_path)!r}"
        )
    files = _modified_files(root, _since_ns(since), cfg.use_git_status)
    if len(files) > cfg.max_files_to_refresh:
        raise TooManyModifiedFilesError(
            f"too many modified files, full rebuild recommended: found {len(files)}, more "
            f"than max_files_to_refresh={cfg.max_files_to_refresh}"
        )
    return files


# ---------------------------------------------------------------- results and events


@dataclass(frozen=True)
class RestoreResult:
    """What `SessionRestorer.try_restore` did.

    Attributes:
        restored: True if a checkpoint was loaded and the journal tail replayed.
        checkpoint_id: Session id recorded with the checkpoint ("" if not restored).
        generation: Generation of the target after the restore.
        checkpoint_time: When the checkpoint was written, Unix milliseconds UTC.
        checkpoint_age: Age of the checkpoint at restore time, seconds.
        reason: Why the restore succeeded or not.
        modified_files: Files changed since the checkpoint (at most `max_files_to_refresh`;
            with more, nothing was restored).
        modified_file_count: How many files changed (may exceed `len(modified_files)`).
        duration_ms: How long the restore took.
        journal_position: Position of the state after replay (last applied sequence number).
        replayed_deltas: Journal records applied after the image.
        dependencies_changed: The lock-file hash differs from the one saved with the backup.
    """

    restored: bool = False
    checkpoint_id: str = ""
    generation: int = 0
    checkpoint_time: int = 0
    checkpoint_age: float = 0.0
    reason: str = ""
    modified_files: tuple[str, ...] = ()
    modified_file_count: int = 0
    duration_ms: int = 0
    journal_position: int = 0
    replayed_deltas: int = 0
    dependencies_changed: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of every field (the seed's names; `checkpoint_age` in seconds)."""
        return {f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v
                for f in fields(self)}  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RestoreResult:
        """Inverse of `to_dict`; missing keys take the zero value."""
        if not isinstance(data, dict):
            raise InvalidArgumentError(f"data: must be a dict, got {brief(data)}")
        kwargs: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in data:
                continue
            value, kind = data[f.name], _RESULT_TYPES[f.name]
            if f.name == "modified_files":
                if not isinstance(value, list | tuple) or not all(
                    isinstance(x, str) for x in value
                ):
                    raise InvalidArgumentError(
                        f"data['modified_files']: must be a list of str, got {brief(value)}"
                    )
                value = tuple(value)
            elif (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
                raise InvalidArgumentError(
                    f"data[{f.name!r}]: must be {kind.__name__}, got {brief(value)}"
                )
            kwargs[f.name] = value
        return cls(**kwargs)


_RESULT_TYPES: dict[str, Any] = {
    "restored": bool,
    "checkpoint_id": str,
    "generation": int,
    "checkpoint_time": int,
    "checkpoint_age": int | float,
    "reason": str,
    "modified_files": tuple,
    "modified_file_count": int,
    "duration_ms": int,
    "journal_position": int,
    "replayed_deltas": int,
    "dependencies_changed": bool,
}


@dataclass(frozen=True)
class SessionRestoredEvent:
    """Delivered to the `on_event` callback after a successful restore."""

    project_path: str = ""
    project_hash: str = ""
    generation: int = 0
    checkpoint_age: float = 0.0
    modified_file_count: int = 0
    restore_duration: float = 0.0


@dataclass(frozen=True)
class SessionRestoreFailedEvent:
    """Delivered to the `on_event` callback when a restore did not happen (reason says why)."""

    project_path: str = ""
    reason: str = ""
    error: BaseException | None = None


# ---------------------------------------------------------------- protocols


@runtime_checkable
class ReplayRecord(Protocol):
    """One item of `Journal.replay_stream()` (the journal's `DeltaOrError`)."""

    @property
    def delta(self) -> Any:
        """The decoded delta (None if `err` or `skipped`)."""
        ...

    @property
    def seq_num(self) -> int:
        """Sequence number of the record."""
        ...

    @property
    def err(self) -> BaseException | None:
        """Why the record could not be decoded, if it could not."""
        ...

    @property
    def skipped(self) -> bool:
        """True if a corrupt record was skipped (journal configured to skip)."""
        ...


@runtime_checkable
class ReplayJournal(Protocol):
    """The part of `Journal` a restore needs: stream the records after a position."""

    def replay_stream(self, after_seq: int = 0) -> Iterable[ReplayRecord]:
        """Records with a sequence number above `after_seq` (and the checkpoint), in order."""
        ...


@runtime_checkable
class RestoreTarget(BackupTarget, Protocol):
    """What a restore loads into (the CRS): a backup target that applies deltas."""

    def apply(self, delta: Any) -> object:
        """Commit one delta (all or nothing)."""
        ...

    def generation(self) -> int:
        """The current generation."""
        ...


EventCallback = Callable[[SessionRestoredEvent | SessionRestoreFailedEvent], None]


# ---------------------------------------------------------------- the restorer


class SessionRestorer:
    """Loads a project's checkpoint at session start (the seed's `NewSessionRestorer`).

    Args:
        pm: The persistence manager holding the backups.
        config: `SessionRestorerConfig`; None uses `DefaultSessionRestorerConfig()`.
        on_event: Called with a `SessionRestoredEvent` or `SessionRestoreFailedEvent` after
            each `try_restore` (exceptions it raises are logged and ignored).

    Raises:
        InvalidArgumentError: `pm` is not a PersistenceManager or the config is invalid.
    """

    def __init__(
        self,
        pm: PersistenceManager,
        config: SessionRestorerConfig | None = None,
        *,
        on_event: EventCallback | None = None,
    ) -> None:
        if not isinstance(pm, PersistenceManager):
            raise InvalidArgumentError(f"pm must be a PersistenceManager, got {type(pm).__name__}")
        cfg = DefaultSessionRestorerConfig() if config is None else config
        if not isinstance(cfg, SessionRestorerConfig):
            raise InvalidArgumentError(
                f"config must be a SessionRestorerConfig or None, got {type(cfg).__name__}"
            )
        cfg.validate()
        self._pm = pm
        self._config = cfg
        self._on_event = on_event
        self._log = cfg.logger or _log

    @property
    def config(self) -> SessionRestorerConfig:
        """The configuration in use."""
        return self._config

    def try_restore(
        self,
        crs: RestoreTarget,
        journal: ReplayJournal | None,
        session_id: SessionIdentifier | None,
    ) -> RestoreResult:
        """Restore the last checkpoint of `session_id`'s project into `crs`.

        Loads and verifies the backup, checks it (schema, age, project key), replaces the
        state of `crs` by its image, then applies the journal records after the image's
        position. Transient failures are retried `max_retries` times (100 ms, 200 ms, ...);
        each attempt starts again from the image, so no record is ever applied twice.

        Args:
            crs: The state to restore into.
            journal: The journal whose tail is replayed; None restores the image only.
            session_id: Identifies the project.

        Returns:
            A `RestoreResult`; failures are reported in it, not raised.

        Raises:
            SessionIdentifierNilError: `session_id` is None.
            InvalidArgumentError: `crs` or `journal` lack the methods a restore needs.
        """
        if session_id is None:
            raise SessionIdentifierNilError("session identifier must not be None")
        if not isinstance(session_id, SessionIdentifier):
            raise InvalidArgumentError(
                f"session_id must be a SessionIdentifier, got {type(session_id).__name__}"
            )
        if not isinstance(crs, RestoreTarget):
            raise InvalidArgumentError(
                "crs must implement load_image(image), apply(delta) and generation(), "
                f"got {type(crs).__name__}"
            )
        if journal is not None and not isinstance(journal, ReplayJournal):
            raise InvalidArgumentError(
                f"journal must implement replay_stream() or be None, got {type(journal).__name__}"
            )
        started = time.perf_counter()
        attempts = self._config.max_retries + 1
        last: BaseException | None = None
        # All or nothing: a failed restore leaves `crs` as it was, not with the image loaded
        # and part of the tail replayed.
        generation = crs.generation()
        undo = undo_point(crs)

        def give_up(reason: str, exc: BaseException | None) -> RestoreResult:
            if crs.generation() != generation:
                undo()
            return self._failed(session_id, reason, exc, started)

        for attempt in range(attempts):
            if attempt:
                time.sleep(0.1 * (1 << (attempt - 1)))
            try:
                result = self._attempt(crs, journal, session_id, started)
            except _PERMANENT as exc:
                return give_up(_reason(exc), exc)
            except BaseException as exc:
                if not isinstance(exc, Exception):
                    if crs.generation() != generation:
                        undo()
                    raise
                last = exc
                self._log.warning(
                    "restore of %s failed (attempt %d/%d): %s",
                    session_id.project_path,
                    attempt + 1,
                    attempts,
                    exc,
                )
                continue
            if result.restored:
                self._emit(
                    SessionRestoredEvent(
                        project_path=session_id.project_path,
                        project_hash=session_id.checkpoint_key(),
                        generation=result.generation,
                        checkpoint_age=result.checkpoint_age,
                        modified_file_count=result.modified_file_count,
                        restore_duration=time.perf_counter() - started,
                    )
                )
            else:
                self._emit(SessionRestoreFailedEvent(session_id.project_path, result.reason))
            return result
        return give_up(f"restore failed after retries: {last}", last)

    def _failed(
        self,
        session_id: SessionIdentifier,
        reason: str,
        error: BaseException | None,
        started: float,
    ) -> RestoreResult:
        self._emit(SessionRestoreFailedEvent(session_id.project_path, reason, error))
        return RestoreResult(restored=False, reason=reason, duration_ms=_ms_since(started))

    def _emit(self, event: SessionRestoredEvent | SessionRestoreFailedEvent) -> None:
        if self._on_event is None:
            return
        try:
            self._on_event(event)
        except Exception as exc:
            self._log.warning("session restore event callback failed: %s", exc)

    def _validate(self, meta: BackupMetadata, session_id: SessionIdentifier) -> None:
        if meta.schema_version != CURRENT_SCHEMA_VERSION:
            raise SchemaVersionMismatchError(
                f"schema version mismatch: checkpoint has {brief(meta.schema_version)}, "
                f"this crs reads {brief(CURRENT_SCHEMA_VERSION)}"
            )
        if meta.age() > self._config.checkpoint_max_age:
            raise CheckpointTooOldError(
                f"checkpoint too old: {meta.age():.0f}s, more than checkpoint_max_age="
                f"{self._config.checkpoint_max_age:g}s"
            )
        key = session_id.checkpoint_key()
        if meta.project_hash != key:
            raise ProjectHashMismatchError(
                f"project hash mismatch: checkpoint belongs to {meta.project_hash}, "
                f"this project is {key}"
            )

    def _attempt(
        self,
        crs: RestoreTarget,
        journal: ReplayJournal | None,
        session_id: SessionIdentifier,
        started: float,
    ) -> RestoreResult:
        key = session_id.checkpoint_key()
        try:
            loaded = self._pm.load_backup(key)  # verified, not yet loaded anywhere
        except BackupNotFoundError:
            return RestoreResult(reason="no checkpoint found", duration_ms=_ms_since(started))
        except SchemaVersionMismatchError as e:  # written by another schema: not retried
            return RestoreResult(reason=f"incompatible: {e}", duration_ms=_ms_since(started))
        meta = loaded.metadata
        try:
            self._validate(meta, session_id)
        except (SchemaVersionMismatchError, CheckpointTooOldError, ProjectHashMismatchError) as e:
            return RestoreResult(
                checkpoint_time=meta.created_at,
                checkpoint_age=meta.age(),
                reason=f"incompatible: {e}",
                duration_ms=_ms_since(started),
            )
        try:
            all_files = _modified_files(
                session_id.project_path,
                meta.created_at * 1_000_000,
                self._config.use_git_status,
            )
        except OSError as exc:  # a missing file list does not stop the restore
            self._log.warning("could not list files modified since the checkpoint: %s", exc)
            all_files = []
        limit = self._config.max_files_to_refresh
        if len(all_files) > limit:
            # The seed: "If more files changed, skip restore and trigger full rebuild."
            return RestoreResult(
                checkpoint_time=meta.created_at,
                checkpoint_age=meta.age(),
                reason=(
                    f"incompatible: too many modified files, full rebuild recommended: found "
                    f"{len(all_files)}, more than max_files_to_refresh={limit}"
                ),
                modified_files=tuple(all_files[:limit]),
                modified_file_count=len(all_files),
                duration_ms=_ms_since(started),
            )
        # Replaces the whole state, undoing anything a failed earlier attempt applied.
        self._pm._load_into(crs, loaded.image)
        position = loaded.image.journal_position
        replayed = 0
        if journal is not None:
            position, replayed = _replay_tail(crs, journal, position)
        if crs.generation() < meta.generation:
            self._log.warning(
                "restored generation %d is below the checkpoint's %d",
                crs.generation(),
                meta.generation,
            )
        return RestoreResult(
            restored=True,
            checkpoint_id=meta.session_id,
            generation=crs.generation(),
            checkpoint_time=meta.created_at,
            checkpoint_age=meta.age(),
            reason="success",
            modified_files=tuple(all_files[:limit]),
            modified_file_count=len(all_files),
            duration_ms=_ms_since(started),
            journal_position=position,
            replayed_deltas=replayed,
            dependencies_changed=bool(meta.lock_file_hash)
            and meta.lock_file_hash != session_id.project_hash,
        )


def _reason(exc: BaseException) -> str:
    if isinstance(exc, BackupNotFoundError):
        return "no checkpoint found"
    return f"restore failed: {exc}"


def _ms_since(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)
