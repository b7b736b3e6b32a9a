"""What opening a project needs of session restore: the project key and loading a checkpoint.

`compute_project_hash` names a project's directory under the data directory; `load_checkpoint`
loads its backup and replays the journal tail (the body of `CRS.load_checkpoint_from_disk`).
Every process that opens a project (a hook, each of them) runs these, so they live apart from
`_session_restore` (the `SessionRestorer`, lock-file hashes, git's modified files: records,
protocols, subprocess), which re-exports them under their documented names.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crs._check import brief, require_path
from crs._errors import (
    BackupCorruptedError,
    BackupNotFoundError,
    InvalidArgumentError,
    JournalCorruptedError,
    JournalSequenceGapError,
    ProjectPathEmptyError,
)

if TYPE_CHECKING:
    from crs._persistence._backup_format import BackupMetadata
    from crs._persistence._manager import PersistenceManager
    from crs._persistence._session_restore import ReplayJournal, RestoreTarget

PROJECT_HASH_LENGTH = 16
"""Length of a project key in hex characters (64 bits of SHA-256)."""


def _canonical(project_path: str | os.PathLike[str]) -> str:
    if not isinstance(project_path, str | os.PathLike):
        raise InvalidArgumentError(
            f"project_path: must be a str or os.PathLike (the project's directory), "
            f"got {type(project_path).__name__}"
        )
    raw = os.fspath(project_path)
    if not isinstance(raw, str):
        raise InvalidArgumentError(
            f"project_path: must be a text path, got a {type(raw).__name__} path"
        )
    if not raw:
        raise ProjectPathEmptyError("project path must not be empty")
    require_path(raw, "project_path")  # a lone surrogate or NUL cannot name a directory
    return os.path.realpath(os.path.abspath(raw))


def compute_project_hash(project_path: str | os.PathLike[str]) -> str:
    """The project key: 16 hex chars of the SHA-256 of the canonical absolute path.

    The path is made absolute and its symlinks resolved, so `.`/`./x/..`/a symlink to the
    project give the same key.

    Raises:
        ProjectPathEmptyError: `project_path` is empty.
        InvalidArgumentError: `project_path` is not a str or a text `os.PathLike`.

    >>> len(compute_project_hash("/tmp"))
    16
    """
    canonical = _canonical(project_path)
    digest = hashlib.sha256(canonical.encode("utf-8", "surrogateescape")).hexdigest()
    return digest[:PROJECT_HASH_LENGTH]


def load_checkpoint(
    pm: PersistenceManager,
    project_hash: str,
    target: RestoreTarget,
    journal: ReplayJournal | None,
) -> BackupMetadata | None:
    """Load a project's backup into `target`, then replay the journal records after it.

    The body of `CRS.load_checkpoint_from_disk`: None when the project has no backup (first
    run); otherwise the metadata of the backup loaded. Unlike `SessionRestorer.try_restore`
    it raises on failure and does not check age; a backup whose metadata names another
    project (copied in from another project's directory) is refused (the caller undoes the
    load).

    Raises:
        BackupCorruptedError, MetadataCorruptedError, BackupVersionMismatchError: No usable
            backup.
        JournalSequenceGapError, JournalCorruptedError: The journal tail cannot be replayed.
    """
    try:
        loaded = pm.load_backup(project_hash, target)
    except BackupNotFoundError:
        return None
    if loaded.metadata.project_hash != project_hash:
        # its state, and a journal beside it, are another project's (red team 7)
        where = pm.project_dir(project_hash)
        raise BackupCorruptedError(
            f"the backup in {where} is that of project {brief(loaded.metadata.project_hash)}, "
            f"not of this one ({project_hash}): it was copied in from another project's "
            f"data directory. Move {where} away (or only its backups/ and metadata*.json, "
            "if its journal is this project's own)"
        )
    if journal is not None:
        _replay_tail(target, journal, loaded.image.journal_position)
    return loaded.metadata


def undo_point(target: Any) -> Callable[[], None]:
    """A way to put `target` back as it is now, if a load into it fails half-way.

    A CRS holds its state in O(1) (`StateKernel.hold`); another target with
    `export_image` / `load_image` keeps an image; anything else cannot be undone.
    """
    kernel = getattr(target, "_kernel", None)
    hold, reinstall = getattr(kernel, "hold", None), getattr(kernel, "reinstall", None)
    if callable(hold) and callable(reinstall):
        held = hold()
        return lambda: reinstall(held)
    export = getattr(target, "export_image", None)
    if callable(export):
        image = export()
        return lambda: target.load_image(image)
    return lambda: None


def _replay_tail(crs: RestoreTarget, journal: ReplayJournal, position: int) -> tuple[int, int]:
    """Apply the records after `position`, in sequence; return (new position, applied).

    A target with `replay_journal` (the CRS) replays them itself, without journaling them
    again; others get `apply(delta)` per record.
    """
    replay = getattr(crs, "replay_journal", None)
    if callable(replay):
        applied = replay(journal, after_seq=position)
        position_of: Any = crs.journal_position  # type: ignore[attr-defined]
        return position_of(), applied
    applied = 0
    for record in journal.replay_stream(after_seq=position):
        seq = record.seq_num
        if seq <= position:
            continue  # already in the image
        if seq != position + 1:
            raise JournalSequenceGapError(
                f"journal sequence gap: the state covers up to {position} but the next record "
                f"is {seq}; records in between are gone (checkpointed past the backup?)"
            )
        if record.err is not None and not record.skipped:
            raise JournalCorruptedError(f"journal record {seq} is unreadable: {record.err}")
        if not record.skipped and record.delta is not None:
            crs.apply(record.delta)
            applied += 1
        position = seq
    return position, applied
