"""Backups of the whole reasoning state: `PersistenceManager` (spec README §3, §4, §5 item 5).

A backup is a full state image plus the journal position it covers, so restore is "load the
image, replay the journal tail". Layout under the data directory (`$CRS_HOME`, else `~/.crs`)::

    <home>/index.json                      all projects (atomically rewritten under a lock)
    <home>/<project_key>/metadata.json     metadata of the current backup
    <home>/<project_key>/metadata.prev.json
    <home>/<project_key>/export.json       JSON export, written when `BackupOptions` asks
    <home>/<project_key>/backups/latest.backup.lz4        current backup
    <home>/<project_key>/backups/latest.prev.backup.lz4   previous generation
    <home>/<project_key>/backups/latest.backup.lock       flock file (never deleted)

The backup file and metadata formats are in `crs._persistence._backup_format`. The
metadata's own hash and the backup file's SHA-256 are both checked before anything is handed
to a `BackupTarget`.

Rotation keeps backup and metadata paired by name through every step (a crash at any point
leaves the current or the previous pair usable). New files are written to temporaries and
fsynced first; then, if the current pair verifies, it is hard-linked into the previous slot
(backup, then metadata; a copy where links are unsupported), and the new pair is renamed over
the current slot (backup, then metadata). Each rename is followed by an fsync of its
directory. Until the new backup lands the current pair is intact; from the moment the previous
slot holds the old current pair, any later crash leaves that pair usable. A current pair that
does not verify (left by a crash) is never rotated over a good previous pair.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from crs._check import is_encodable
from crs._errors import (
    BackupCorruptedError,
    BackupLockFailedError,
    BackupNotFoundError,
    InvalidArgumentError,
    MetadataCorruptedError,
    PersistenceError,
    PersistenceManagerClosedError,
    RestoreInProgressError,
)
from crs._home import default_home
from crs._persistence._backup_format import (
    BACKUP_FORMAT_VERSION,
    CURRENT_SCHEMA_VERSION,
    BackupImage,
    BackupMetadata,
    LoadedBackup,
    check_image,
    decode_backup,
    encode_backup,
    parse_metadata,
)
from crs._persistence._durable import (
    file_lock,
    link_durable,
    makedirs_durable,
    read_file,
    replace_durable,
    write_file_durable,
    write_json_atomic,
)

__all__ = [
    "BackupOptions",
    "BackupSource",
    "BackupTarget",
    "DefaultPersistenceConfig",
    "JSONExportSource",
    "PersistenceConfig",
    "PersistenceManager",
    "validate_project_hash",
]

_log = logging.getLogger("crs.persistence")

_MAX_LZ4_LEVEL = 16
_HEX = frozenset("0123456789abcdef")


def validate_project_hash(project_hash: str) -> None:
    """Check that a project hash is 8 to 64 lower-case hex characters.

    Args:
        project_hash: The key of a project (see `compute_project_hash`).

    Raises:
        InvalidArgumentError: The hash is empty, too short, too long or not lower-case hex.

    >>> validate_project_hash("0123abcd")
    """
    if not isinstance(project_hash, str):
        raise InvalidArgumentError(f"project_hash must be a str, got {type(project_hash).__name__}")
    if not project_hash:
        raise InvalidArgumentError("project_hash must not be empty")
    if not 8 <= len(project_hash) <= 64 or not set(project_hash) <= _HEX:
        raise InvalidArgumentError(
            f"project_hash must be 8-64 lower-case hex characters, got {project_hash!r}"
        )


# ---------------------------------------------------------------- protocols


@runtime_checkable
class BackupSource(Protocol):
    """What `PersistenceManager.save_backup` backs up (the CRS implements it).

    One call returns the image and its position together, so they are always consistent.
    """

    def export_image(self) -> BackupImage:
        """Return the whole state and the journal position it covers."""
        ...


@runtime_checkable
class BackupTarget(Protocol):
    """What `PersistenceManager.load_backup` loads into (the CRS implements it).

    `load_image` replaces the whole state by the image (it never merges), so loading twice
    is the same as loading once.
    """

    def load_image(self, image: BackupImage) -> None:
        """Replace the whole state by `image`."""
        ...


@runtime_checkable
class JSONExportSource(Protocol):
    """A source that can also write a portable JSON export (`BackupOptions.create_json_export`)."""

    def export_json(self) -> bytes:
        """Return the JSON export of the state (UTF-8)."""
        ...


# The public `GraphRefreshCoordinator` protocol lives with the graph protocols (crs._state._graph on
# the `state` branch, same three methods); this private twin keeps this module independent.
@runtime_checkable
class _RefreshCoordinator(Protocol):
    """A component that must pause while a backup is loaded (e.g. a code-graph refresher)."""

    def pause(self) -> None:
        """Stop refreshing until `resume`."""
        ...

    def resume(self) -> None:
        """Continue refreshing."""
        ...

    def is_paused(self) -> bool:
        """True while paused."""
        ...


# ---------------------------------------------------------------- config and metadata


@dataclass(frozen=True)
class PersistenceConfig:
    """Configuration of a `PersistenceManager`; `DefaultPersistenceConfig()` gives the defaults.

    Attributes:
        base_dir: Data directory (default `$CRS_HOME`, else `~/.crs`).
        compression_level: lz4 frame level, 0 (fast, default) to 16 (high compression).
        lock_timeout_sec: How long to wait for the project's backup lock, in seconds.
        max_backup_retries: Extra attempts after a failed save (transient I/O errors).
        validate_on_restore: Check the backup's SHA-256 before loading it (default True).
        logger: Logger for persistence events (default `logging.getLogger("crs.persistence")`).
    """

    base_dir: str = ""
    compression_level: int = 0
    lock_timeout_sec: float = 0.0
    max_backup_retries: int = 0
    validate_on_restore: bool = False
    logger: logging.Logger | None = None

    def validate(self) -> None:
        """Raise `InvalidArgumentError` naming the first invalid field."""
        if not isinstance(self.base_dir, str | os.PathLike):
            raise InvalidArgumentError(
                f"base_dir must be a str (a directory), got {type(self.base_dir).__name__}"
            )
        if not self.base_dir:
            raise InvalidArgumentError("base_dir must not be empty")
        if (
            isinstance(self.compression_level, bool)
            or not isinstance(self.compression_level, int)
            or not 0 <= self.compression_level <= _MAX_LZ4_LEVEL
        ):
            raise InvalidArgumentError(
                f"compression_level must be 0-{_MAX_LZ4_LEVEL} (lz4 frame), "
                f"got {self.compression_level!r}"
            )
        if isinstance(self.lock_timeout_sec, bool) or not isinstance(
            self.lock_timeout_sec, int | float
        ):
            raise InvalidArgumentError(
                f"lock_timeout_sec must be a number of seconds, got {self.lock_timeout_sec!r}"
            )
        if not self.lock_timeout_sec > 0:
            raise InvalidArgumentError(
                f"lock_timeout_sec must be positive, got {self.lock_timeout_sec!r}"
            )
        if (
            isinstance(self.max_backup_retries, bool)
            or not isinstance(self.max_backup_retries, int)
            or self.max_backup_retries < 0
        ):
            raise InvalidArgumentError(
                f"max_backup_retries must be a non-negative int, got {self.max_backup_retries!r}"
            )


def DefaultPersistenceConfig() -> PersistenceConfig:
    """Production defaults: the default data directory, lz4 level 0, 30 s lock, 3 retries."""
    return PersistenceConfig(
        base_dir=str(default_home()),
        compression_level=0,
        lock_timeout_sec=30.0,
        max_backup_retries=3,
        validate_on_restore=True,
    )


@dataclass(frozen=True)
class BackupOptions:
    """Options of one `save_backup` call.

    Attributes:
        create_json_export: Also write `export.json` (the source must implement
            `JSONExportSource`).
        session_id: Session recorded in the metadata.
        project_path: Project directory recorded in `index.json` (optional).
        lock_file_hash: Dependency lock-file hash recorded in the metadata, so a restore can
            tell that dependencies changed (`SessionIdentifier.project_hash`).
    """

    create_json_export: bool = False
    session_id: str = ""
    project_path: str = ""
    lock_file_hash: str = ""


# ---------------------------------------------------------------- the manager


class PersistenceManager:
    """Saves and loads whole-state backups of projects, crash-safely.

    Args:
        config: Configuration; `None` uses `DefaultPersistenceConfig()`. The base directory
            is created (0750) if missing.

    Raises:
        InvalidArgumentError: The configuration is invalid.

    Thread safety: methods may be called from several threads; file locks make processes
    sharing a project wait for each other (or fail with `BackupLockFailedError`).
    """

    def __init__(self, config: PersistenceConfig | None = None) -> None:
        cfg = DefaultPersistenceConfig() if config is None else config
        if not isinstance(cfg, PersistenceConfig):
            raise InvalidArgumentError(
                f"config must be a PersistenceConfig or None, got {type(cfg).__name__}"
            )
        cfg.validate()
        self._config = cfg
        self._log = cfg.logger or _log
        self._base = Path(cfg.base_dir).expanduser()
        makedirs_durable(self._base)
        self._mutex = threading.Lock()
        self._closed = False
        self._restoring: set[str] = set()
        self._coordinator: _RefreshCoordinator | None = None

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<PersistenceManager {str(self._base)!r} {state}>"

    def __enter__(self) -> PersistenceManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def config(self) -> PersistenceConfig:
        """The configuration in use."""
        return self._config

    @property
    def base_dir(self) -> Path:
        """The data directory."""
        return self._base

    # ---- paths (the seed's path helpers)

    def project_dir(self, project_hash: str) -> Path:
        """`<base>/<project_hash>` (`InvalidArgumentError` unless 8-64 lower-case hex, so a
        caller's string can never name a directory outside the base)."""
        validate_project_hash(project_hash)
        return self._base / project_hash

    def backup_path(self, project_hash: str) -> Path:
        """The current backup file."""
        return self.project_dir(project_hash) / "backups" / "latest.backup.lz4"

    def prev_backup_path(self, project_hash: str) -> Path:
        """The previous generation's backup file."""
        return self.project_dir(project_hash) / "backups" / "latest.prev.backup.lz4"

    def lock_path(self, project_hash: str) -> Path:
        """The flock file guarding the project's backups."""
        return self.project_dir(project_hash) / "backups" / "latest.backup.lock"

    def metadata_path(self, project_hash: str) -> Path:
        """The current backup's metadata file."""
        return self.project_dir(project_hash) / "metadata.json"

    def prev_metadata_path(self, project_hash: str) -> Path:
        """The previous generation's metadata file."""
        return self.project_dir(project_hash) / "metadata.prev.json"

    def export_path(self, project_hash: str) -> Path:
        """The JSON export (written when `BackupOptions.create_json_export`)."""
        return self.project_dir(project_hash) / "export.json"

    def index_path(self) -> Path:
        """`<base>/index.json`, the index of all projects."""
        return self._base / "index.json"

    # ---- lifecycle

    def set_refresh_coordinator(self, coordinator: _RefreshCoordinator | None) -> None:
        """Register a component paused while a backup is loaded (`None` removes it)."""
        self._check_open()
        self._coordinator = coordinator

    def close(self) -> None:
        """Close the manager; later calls raise `PersistenceManagerClosedError`. Idempotent."""
        with self._mutex:
            self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise PersistenceManagerClosedError("persistence manager is closed")

    def _check(self, project_hash: str) -> None:
        self._check_open()
        validate_project_hash(project_hash)

    # ---- queries

    def has_backup(self, project_hash: str) -> bool:
        """True if the project has a current or previous backup file."""
        self._check(project_hash)
        return (
            self.backup_path(project_hash).exists() or self.prev_backup_path(project_hash).exists()
        )

    def get_backup_metadata(self, project_hash: str) -> BackupMetadata | None:
        """Verified metadata of the backup `load_backup` would load, or None if none exists.

        The current pair's metadata is returned when its hash verifies and its backup file has
        the recorded size; otherwise the previous pair's (as `load_backup` falls back).

        Raises:
            MetadataCorruptedError, BackupVersionMismatchError: No pair has usable metadata.
        """
        self._check(project_hash)
        if not self.lock_path(project_hash).parent.is_dir():
            return None  # never saved; reading must not create the project's directories
        with file_lock(self._lock_file(project_hash), False, self._config.lock_timeout_sec):
            first: PersistenceError | None = None
            for backup, meta_path in self._pairs(project_hash):
                if not backup.exists():
                    continue
                try:
                    meta = parse_metadata(_read(meta_path, MetadataCorruptedError), meta_path)
                except PersistenceError as exc:
                    first = first or exc
                    continue
                if backup.stat().st_size == meta.compressed_size:
                    return meta
            if first is not None:
                raise first
            return None

    def journal_checkpoint_position(self, project_hash: str) -> int:
        """How far the project's journal may be checkpointed with both backups restorable.

        The smallest `journal_position` of the current and previous pairs whose metadata
        verifies: dropping journal records up to it keeps the tail each backup needs, so a
        fallback to the previous backup can still replay to the latest state. 0 when the
        project has no backup (keep the whole journal).
        """
        self._check(project_hash)
        if not self.lock_path(project_hash).parent.is_dir():
            return 0
        positions: list[int] = []
        with file_lock(self._lock_file(project_hash), False, self._config.lock_timeout_sec):
            for backup, meta_path in self._pairs(project_hash):
                try:
                    meta = parse_metadata(read_file(meta_path), meta_path)
                    size = backup.stat().st_size
                except (OSError, PersistenceError):
                    continue
                if size == meta.compressed_size:
                    positions.append(meta.journal_position)
        return min(positions, default=0)

    # ---- save

    def save_backup(
        self,
        project_hash: str,
        source: BackupSource,
        options: BackupOptions | None = None,
    ) -> BackupMetadata:
        """Back up the whole state of `source` for a project.

        The image is taken once (`source.export_image()`), compressed, hashed and written
        under the project's exclusive lock, then rotated in as described in the module
        docstring. Transient I/O errors are retried `max_backup_retries` times (100 ms,
        200 ms, 400 ms ... apart); a lock timeout is not retried.

        Args:
            project_hash: Project key (8-64 lower-case hex, see `compute_project_hash`).
            source: The state to back up.
            options: `BackupOptions`; None for defaults.

        Returns:
            The metadata written with the backup.

        Raises:
            PersistenceManagerClosedError: The manager is closed.
            InvalidArgumentError: Bad hash, source or options.
            BackupLockFailedError: Another process held the lock past `lock_timeout_sec`.
            PersistenceError: Writing failed after every retry (e.g. disk full; the cause is
                chained). The previous backup is left intact.
        """
        self._check(project_hash)
        opts = BackupOptions() if options is None else options
        if not isinstance(opts, BackupOptions):
            raise InvalidArgumentError(
                f"options must be BackupOptions or None, got {type(opts).__name__}"
            )
        for name in ("session_id", "project_path", "lock_file_hash"):
            if not isinstance(getattr(opts, name), str):
                raise InvalidArgumentError(
                    f"options.{name} must be a str, got {getattr(opts, name)!r}"
                )
            if not is_encodable(getattr(opts, name)):  # JSON's readers elsewhere refuse it
                raise InvalidArgumentError(
                    f"options.{name} must be valid Unicode text, got {getattr(opts, name)!r} "
                    "(a lone surrogate: bytes that are not UTF-8)"
                )
        if not isinstance(source, BackupSource):
            raise InvalidArgumentError(
                "source must implement BackupSource (export_image() -> BackupImage), "
                f"got {type(source).__name__}"
            )
        if opts.create_json_export and not isinstance(source, JSONExportSource):
            raise InvalidArgumentError(
                "options.create_json_export needs a source with export_json() -> bytes, "
                f"got {type(source).__name__}"
            )
        image = source.export_image()
        check_image(image)
        export = None
        if opts.create_json_export and isinstance(source, JSONExportSource):
            export = source.export_json()
        header, frame = encode_backup(image, self._config.compression_level)

        attempts = self._config.max_backup_retries + 1
        last: OSError | None = None
        for attempt in range(attempts):
            if attempt:
                time.sleep(0.1 * (1 << (attempt - 1)))
            self._check_open()
            try:
                meta = self._save_once(project_hash, image, header, frame, export, opts)
            except BackupLockFailedError:
                raise  # a TimeoutError (so an OSError) that retrying cannot fix
            except OSError as exc:
                last = exc
                self._log.warning(
                    "backup of %s failed (attempt %d/%d): %s",
                    project_hash,
                    attempt + 1,
                    attempts,
                    exc,
                )
                continue
            self._update_index(project_hash, meta, opts)
            return meta
        raise PersistenceError(
            f"backup of project {project_hash} failed after {attempts} attempts: {last}; "
            "the previous backup is intact"
        ) from last

    def _lock_file(self, project_hash: str) -> Path:
        lock = self.lock_path(project_hash)
        makedirs_durable(lock.parent)
        return lock

    def _save_once(
        self,
        project_hash: str,
        image: BackupImage,
        header: bytes,
        frame: bytes,
        export: bytes | None,
        opts: BackupOptions,
    ) -> BackupMetadata:
        backup = self.backup_path(project_hash)
        meta_path = self.metadata_path(project_hash)
        with file_lock(self._lock_file(project_hash), True, self._config.lock_timeout_sec):
            content = hashlib.sha256(header)
            content.update(frame)
            export_target = self.export_path(project_hash)
            tmp_export = export_target.with_name(export_target.name + ".tmp")
            export_path = "" if export is None else str(export_target)
            meta = BackupMetadata(
                project_hash=project_hash,
                created_at=time.time_ns() // 1_000_000,
                format_version=BACKUP_FORMAT_VERSION,
                content_hash=content.hexdigest(),
                uncompressed_size=len(image.data),
                compressed_size=len(header) + len(frame),
                generation=image.generation,
                session_id=opts.session_id,
                delta_count=image.journal_position,
                journal_position=image.journal_position,
                schema_version=CURRENT_SCHEMA_VERSION,
                lock_file_hash=opts.lock_file_hash,
                export_path=export_path,
            )
            meta = replace(meta, metadata_hash=meta.compute_metadata_hash())
            meta_blob = (json.dumps(meta.to_dict(), indent=2) + "\n").encode("utf-8")

            tmp_backup = backup.with_name(backup.name + ".tmp")
            tmp_meta = meta_path.with_name(meta_path.name + ".tmp")
            try:
                write_file_durable(tmp_backup, (header, frame))
                write_file_durable(tmp_meta, (meta_blob,))
                if export is not None:
                    write_file_durable(tmp_export, (export,))
                # Both new files are durable; rotate so that one named pair is always whole.
                # Rotate only a whole pair: after a crash mid-rotation the current slot may
                # hold a new backup with old metadata, and moving that over the good
                # previous pair would leave nothing usable.
                if self._pair_is_whole(backup, meta_path):
                    link_durable(backup, self.prev_backup_path(project_hash))
                    link_durable(meta_path, self.prev_metadata_path(project_hash))
                replace_durable(tmp_backup, backup)
                replace_durable(tmp_meta, meta_path)
                if export is not None:
                    # After the pair: a crash in between leaves an export one save older.
                    replace_durable(tmp_export, export_target)
            except BaseException:
                for tmp in (tmp_backup, tmp_meta, tmp_export):
                    with contextlib.suppress(OSError):
                        os.unlink(tmp)
                raise
            return meta

    def _pair_is_whole(self, backup: Path, meta_path: Path) -> bool:
        try:
            meta = parse_metadata(read_file(meta_path), meta_path)
            blob = read_file(backup)
        except (OSError, PersistenceError):
            return False
        return (
            len(blob) == meta.compressed_size
            and hashlib.sha256(blob).hexdigest() == meta.content_hash
        )

    def _update_index(self, project_hash: str, meta: BackupMetadata, opts: BackupOptions) -> None:
        """Record the project in `<base>/index.json` (read-modify-write under its own lock)."""
        index = self.index_path()
        lock = self._base / "index.json.lock"
        try:
            with file_lock(lock, True, self._config.lock_timeout_sec):
                doc = read_index(index, self._log)
                projects = doc["projects"]
                previous = projects.get(project_hash, {})
                projects[project_hash] = {
                    "project_hash": project_hash,
                    "project_path": opts.project_path or previous.get("project_path", ""),
                    "project_dir": str(self.project_dir(project_hash)),
                    "updated_at": meta.created_at,
                    "generation": meta.generation,
                    "journal_position": meta.journal_position,
                    "compressed_size": meta.compressed_size,
                }
                write_json_atomic(index, doc)
        except (OSError, PersistenceError) as exc:
            # The backup itself is complete and durable; the index is a convenience listing.
            self._log.warning("could not update %s: %s", index, exc)

    # ---- load

    def load_backup(self, project_hash: str, target: BackupTarget | None = None) -> LoadedBackup:
        """Load and verify a project's backup; hand it to `target` if given.

        The current pair (backup + metadata) is tried first and the previous pair if the
        current one is missing or damaged. The metadata hash, the file's SHA-256 (when
        `validate_on_restore`), the format version and the lz4 checksums are all checked
        before `target.load_image` sees anything. A registered refresh coordinator is paused
        while the target loads.

        Args:
            project_hash: Project key.
            target: Receives the verified image (`BackupTarget.load_image`), or None.

        Returns:
            `LoadedBackup(image, metadata)`.

        Raises:
            BackupNotFoundError: The project has no backup.
            BackupCorruptedError, MetadataCorruptedError, BackupVersionMismatchError: No pair
                verified (the error of the current pair; the message names both).
            BackupLockFailedError: A writer held the lock past `lock_timeout_sec`.
            RestoreInProgressError: Another thread is loading this project's backup.
        """
        self._check(project_hash)
        if target is not None and not isinstance(target, BackupTarget):
            raise InvalidArgumentError(
                "target must implement BackupTarget (load_image(image)) or be None, "
                f"got {type(target).__name__}"
            )
        with self._mutex:
            if project_hash in self._restoring:
                raise RestoreInProgressError(
                    f"restore already in progress for project {project_hash}"
                )
            self._restoring.add(project_hash)
        try:
            loaded = self._load_verified(project_hash)
            if target is not None:
                self._load_into(target, loaded.image)
            return loaded
        finally:
            with self._mutex:
                self._restoring.discard(project_hash)

    def _pairs(self, project_hash: str) -> tuple[tuple[Path, Path], tuple[Path, Path]]:
        return (
            (self.backup_path(project_hash), self.metadata_path(project_hash)),
            (self.prev_backup_path(project_hash), self.prev_metadata_path(project_hash)),
        )

    def _load_verified(self, project_hash: str) -> LoadedBackup:
        if not self.lock_path(project_hash).parent.is_dir():
            raise BackupNotFoundError(f"backup not found for project {project_hash}")
        with file_lock(self._lock_file(project_hash), False, self._config.lock_timeout_sec):
            errors: list[PersistenceError] = []
            for which, (backup, meta_path) in zip(
                ("current", "previous"), self._pairs(project_hash), strict=True
            ):
                try:
                    loaded = self._load_pair(backup, meta_path)
                except PersistenceError as exc:
                    errors.append(exc)
                    continue
                if which == "previous":
                    self._log.warning(
                        "current backup of %s unusable (%s); loaded the previous one",
                        project_hash,
                        errors[0],
                    )
                return loaded
        if all(isinstance(e, BackupNotFoundError) for e in errors):
            raise BackupNotFoundError(f"backup not found for project {project_hash}")
        first = next(e for e in errors if not isinstance(e, BackupNotFoundError))
        raise type(first)(
            f"current checkpoint: {errors[0]}; previous checkpoint: {errors[1]}; no backup "
            f"of the project is usable: restore {self.project_dir(project_hash)} from a copy, "
            "or move it away to start the project's state afresh (what was learned is lost)"
        ) from first

    def _load_pair(self, backup: Path, meta_path: Path) -> LoadedBackup:
        blob = _read(backup, BackupNotFoundError)
        meta = parse_metadata(_read(meta_path, MetadataCorruptedError), meta_path)
        if len(blob) != meta.compressed_size:
            raise BackupCorruptedError(
                f"backup corrupted: {backup} has {len(blob)} bytes, its metadata says "
                f"{meta.compressed_size}"
            )
        if self._config.validate_on_restore:
            digest = hashlib.sha256(blob).hexdigest()
            if digest != meta.content_hash:
                raise BackupCorruptedError(
                    f"backup corrupted: content hash mismatch in {backup} "
                    f"(expected {meta.content_hash}, computed {digest})"
                )
        image = decode_backup(blob, backup)
        if (
            image.journal_position != meta.journal_position
            or image.generation != meta.generation
            or len(image.data) != meta.uncompressed_size
        ):
            raise BackupCorruptedError(
                f"backup corrupted: {backup} does not match its metadata {meta_path}"
            )
        return LoadedBackup(image=image, metadata=meta)

    def _load_into(self, target: BackupTarget, image: BackupImage) -> None:
        coordinator = self._coordinator
        paused = False
        if coordinator is not None:
            try:
                coordinator.pause()
                paused = True
            except Exception as exc:  # a refresher failing to pause must not block restore
                self._log.warning("refresh coordinator pause failed: %s", exc)
        try:
            target.load_image(image)
        finally:
            if paused and coordinator is not None:
                try:
                    coordinator.resume()
                except Exception as exc:
                    self._log.warning("refresh coordinator resume failed: %s", exc)


def _read(path: Path, missing: type[PersistenceError]) -> bytes:
    try:
        return read_file(path)
    except FileNotFoundError:
        raise missing(f"{path} not found") from None
    except OSError as exc:
        raise PersistenceError(f"could not read {path}: {exc}") from exc


def read_index(path: Path, log: logging.Logger | None = None) -> dict[str, Any]:
    """Read `index.json`; a missing or unreadable index reads as empty (with a warning on
    `log`, default the `crs.persistence` logger)."""
    try:
        doc = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        doc = None
    except (OSError, ValueError) as exc:
        (log or _log).warning("ignoring unreadable %s: %s", path, exc)
        doc = None
    if not isinstance(doc, dict) or not isinstance(doc.get("projects"), dict):
        doc = {"version": 1, "projects": {}}
    return doc
