"""Durability of the CRS: backup images, checkpoints on disk, the project it belongs to.

`Persistence` is a part of the `CRS` facade holding the state kernel: the facade's
`export_image` / `load_image` (the `BackupSource` / `BackupTarget` protocols of this layer),
`save_checkpoint_to_disk` / `load_checkpoint_from_disk` (the seed's), `project_info`,
`save_project_backup` and the resources a CRS owns (an opened journal, the project's
`PersistenceManager`) call in here. Journal replay is the kernel's (`StateKernel.replay_journal`);
the image format is `crs._image`. `project_journal` opens a project's `LocalJournal`.
"""

from __future__ import annotations

import contextlib
import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from crs._check import brief, fail, require_instance
from crs._errors import InvalidArgumentError, JournalCorruptedError, PersistenceError
from crs._image import decode_image, encode_image, state_image
from crs._journal._base import DefaultJournalConfig, JournalConfig, pause_gc
from crs._persistence._backup_format import BackupImage, BackupMetadata
from crs._persistence._durable import link_durable
from crs._persistence._manager import BackupOptions, PersistenceManager
from crs._state._codec import DeltaCodec

if TYPE_CHECKING:
    from crs._journal._local import LocalJournal
    from crs._kernel import StateKernel
    from crs._persistence._session_restore import RestoreTarget

__all__ = ["Persistence", "ProjectInfo", "project_journal"]

_log = logging.getLogger("crs.state")


class ProjectInfo(NamedTuple):
    """Where an `open_project` CRS keeps its data, and what opening it restored."""

    project_path: str
    project_hash: str
    home: Path
    journal_path: Path
    backup_path: Path
    restored_from_backup: bool
    replayed_records: int


class Persistence:
    """Backup images, checkpoints on disk and the project of one CRS.

    Args:
        kernel: The CRS's state kernel.
        host: The CRS itself: what a backup saves and a restore loads into (its
            `export_image`, `load_image`, `apply`, `generation`, `replay_journal`).
    """

    def __init__(self, kernel: StateKernel, host: RestoreTarget) -> None:
        self._k = kernel
        self._host = host
        self._owned: list[Any] = []
        self.project: tuple[PersistenceManager, str, str] | None = None
        self.from_backup = False  # set by open_project

    # ---------------------------------------------------------------- owned resources

    def own(self, resource: Any) -> None:
        """Close `resource` (a journal, a PersistenceManager) when the CRS closes."""
        self._owned.append(resource)

    def close_owned(self) -> None:
        owned = self._owned
        while owned:
            try:
                owned.pop().close()
            except Exception as exc:  # closing the rest matters more
                _log.warning("could not close %r: %s", owned, exc)

    # ---------------------------------------------------------------- backup protocols

    def export_image(self) -> BackupImage:
        k = self._k
        with k.lock:  # one moment: O(1), versions are shared
            core, gen, analytics, parts = k.capture()
            position = k.seq
        with pause_gc():  # encoded outside the lock
            doc = state_image(core, gen, analytics, parts, proof=False)
            data = encode_image(doc, core.proof_all())
        return BackupImage(data, position, gen)

    def load_image(self, image: BackupImage) -> None:
        self._k.check_open("load_image")
        if not isinstance(image, BackupImage):
            raise InvalidArgumentError(f"image: must be a BackupImage, got {brief(image)}")
        with pause_gc():
            doc = decode_image(image.data)
        self._k.load_image(doc, image.journal_position)

    # ---------------------------------------------------------------- checkpoints on disk

    def save_checkpoint(
        self, pm: PersistenceManager, project_hash: str, journal: Any, options: Any
    ) -> BackupMetadata:
        """`CRS.save_checkpoint_to_disk`."""
        self._k.check_open("save_checkpoint_to_disk")
        if not isinstance(pm, PersistenceManager):
            raise InvalidArgumentError(f"pm: must be a PersistenceManager, got {brief(pm)}")
        if options is None or (isinstance(options, BackupOptions) and not options.session_id):
            # The seed's SaveCheckpointToDisk records a fresh checkpoint id as the backup's
            # session id, which TryRestore reports as RestoreResult.checkpoint_id: the CRS's
            # session id (set_session_id) if it has one, else a new checkpoint id.
            options = replace(
                BackupOptions() if options is None else options,
                session_id=self._k.session_id or _new_checkpoint_id(),
            )
        source: Any = self._host
        k = self._k
        if k.journal is None and journal is not None:
            # No journal of its own (the seed's "Option A: Direct Apply + manual journal
            # append"): when the records `journal` holds after the state's position are
            # deltas this CRS applied (it was caught up with it by load_checkpoint_from_disk,
            # or it applied each before appending it), the backup covers them all and the
            # next load replays only what comes after: no delta applied twice.
            last = journal.stats().last_seq_num
            if last > k.seq:
                if journal is k.synced_journal or _tail_was_applied(k, journal):
                    source = _ImageAt(self._host, last)
                else:
                    _log.warning(
                        "save_checkpoint_to_disk: the journal holds records %d-%d that this "
                        "CRS did not apply (catch up with load_checkpoint_from_disk first); "
                        "the backup covers record %d, so the next load replays them over it",
                        k.seq + 1,
                        last,
                        k.seq,
                    )
        j = self._k.journal if journal is None else journal
        # On a journal other processes write (a project's), the backup, the position it lets
        # the journal drop and the checkpoint are one step under the journal's writer lock,
        # after catching up: another process's backup of an older state rotated in between
        # made this checkpoint drop records that backup needs, and the next process to
        # catch up (or open the project) failed with a sequence gap (red team 5).
        hold: Any = k.writing() if journal is None and k.shared else contextlib.nullcontext()
        with hold:
            meta = pm.save_backup(project_hash, source, options)
            if j is not None and callable(getattr(j, "checkpoint", None)):
                pos = min(pm.journal_checkpoint_position(project_hash), j.stats().last_seq_num)
                if pos > j.stats().checkpoint_seq:
                    j.checkpoint(pos)
        return meta

    def load_checkpoint(
        self, pm: PersistenceManager, project_hash: str, journal: Any, accept_loss: bool
    ) -> BackupMetadata | None:
        """`CRS.load_checkpoint_from_disk`."""
        k = self._k
        k.check_open("load_checkpoint_from_disk")
        require_instance(pm, PersistenceManager, "pm")
        require_instance(project_hash, str, "project_hash")
        if journal is not None and not callable(getattr(type(journal), "replay", None)):
            fail("journal", "a crs Journal or None", journal)

        # inside: start-up (a CRS that never loads a backup does not import even this much)
        from crs._persistence._load import undo_point

        j = k.journal if journal is None else journal
        undo = undo_point(self._host)
        try:
            return self._load_checkpoint(pm, project_hash, j, accept_loss)
        except BaseException:
            # All or nothing: a backup loaded and a tail replayed half-way (or refused after
            # the load) must not be left behind as the state.
            undo()
            raise

    def _load_checkpoint(
        self, pm: PersistenceManager, project_hash: str, j: Any, accept_loss: bool
    ) -> BackupMetadata | None:
        from crs._persistence._load import load_checkpoint

        k = self._k
        meta = load_checkpoint(pm, project_hash, self._host, j)
        if meta is None and j is not None:
            k.replay_journal(j)
        elif meta is not None and j is not None and callable(getattr(j, "stats", None)):
            last = j.stats().last_seq_num
            if last < k.seq:
                # The journal is younger than the backup (deleted or truncated): records the
                # backup covers, and any acknowledged after it, are gone from the journal.
                if not accept_loss:
                    raise JournalCorruptedError(
                        f"journal ends at record {last}, before the backup's position "
                        f"{k.seq}: the journal was deleted or truncated, and the "
                        f"changes journaled after record {k.seq} (if any) are "
                        "lost. Restore the journal directory from a copy, or accept the "
                        "backup's state with open_project(..., accept_journal_loss=True) "
                        "(the backups are kept beside as *.journal-loss-<position>)"
                    )
                _log.warning(
                    "journal ends at record %d, before the backup's position %d: accepted; "
                    "keeping the backups as *.journal-loss-%d and saving the state as new "
                    "backups at position %d",
                    last,
                    k.seq,
                    k.seq,
                    last,
                )
                _keep_backups(pm, project_hash, k.seq)
                with k.lock:
                    k.seq = last
                    pm.save_backup(project_hash, self._host)  # type: ignore[arg-type]
                    pm.save_backup(project_hash, self._host)  # type: ignore[arg-type]
        return meta

    # ---------------------------------------------------------------- projects

    def attach_project(self, pm: PersistenceManager, key: str, path: str) -> None:
        """This CRS is the project `key`'s (`open_project`): a shared journal checkpointed
        past its state by another writer is caught up from the project's backup."""
        self.project = (pm, key, path)
        self._k.on_gap = self._load_project_backup

    def _load_project_backup(self) -> None:
        assert self.project is not None
        pm, key, _ = self.project
        self.load_checkpoint(pm, key, None, False)

    def backup_for_full_journal(self) -> int:
        """The journal's full handler (`auto_checkpoint`): save the state as both backups
        (so a fallback to the previous one needs no dropped record) and return the journal
        position they cover. Runs inside an append, before the new record is written."""
        assert self.project is not None
        pm, key, path = self.project
        opts = BackupOptions(project_path=path)
        pm.save_backup(key, self._host, opts)  # type: ignore[arg-type]
        pm.save_backup(key, self._host, opts)  # type: ignore[arg-type]
        return pm.journal_checkpoint_position(key)

    def project_info(self) -> ProjectInfo:
        project = self.project
        if project is None:
            raise PersistenceError("project_info: this CRS was not opened by open_project")
        pm, key, path = project
        return ProjectInfo(
            project_path=path,
            project_hash=key,
            home=pm.base_dir,
            journal_path=pm.project_dir(key) / "journal",
            backup_path=pm.backup_path(key),
            restored_from_backup=self.from_backup,
            replayed_records=self._k.replayed,
        )

    def save_project_backup(self, *, export_json: bool = False) -> BackupMetadata:
        self._k.check_open("save_project_backup")
        project = self.project
        if project is None:
            raise PersistenceError("save_project_backup: this CRS was not opened by open_project")
        pm, key, path = project
        opts = BackupOptions(create_json_export=export_json, project_path=path)
        return self.save_checkpoint(pm, key, None, opts)


class _ImageAt:
    """The host's image, covering the journal up to `position` (a `BackupSource`, and a
    `JSONExportSource` as the host is)."""

    def __init__(self, host: Any, position: int) -> None:
        self._host = host
        self._position = position

    def export_image(self) -> BackupImage:
        image: BackupImage = self._host.export_image()
        return BackupImage(
            image.data, max(image.journal_position, self._position), image.generation
        )

    def export_json(self) -> bytes:
        data: bytes = self._host.export_json()
        return data


def _tail_was_applied(k: StateKernel, journal: Any) -> bool:
    """Whether every record `journal` holds after the state's position is a delta this CRS
    applied, in the same order (the delta history still holds it: same type, source,
    timestamp and content). Anything else (an op, an unreadable record, a delta the history
    does not show) keeps the backup at the state's own position."""
    try:
        tail = list(journal.replay_stream(after_seq=k.seq))
    except (TypeError, AttributeError):
        return False
    if not tail or len(tail) > k.history.size():
        return False
    want = []
    for rec in tail:
        delta = rec.delta
        if rec.err is not None or rec.skipped or not callable(getattr(delta, "to_dict", None)):
            return False
        want.append(delta.to_dict())
    i = 0
    for done in k.history.all():
        if json.loads(done.delta_bytes)["data"] == want[i]:
            i += 1
            if i == len(want):
                return True
    return False


def _new_checkpoint_id() -> str:
    # inside: a save (uuid imports platform, a few ms a hook that never saves would pay)
    import uuid

    return f"checkpoint-{uuid.uuid4()}"


def _keep_backups(pm: PersistenceManager, project_hash: str, position: int) -> None:
    """Keep the project's backup files (both pairs) as `<name>.journal-loss-<position>`
    before they are saved again over a lost journal (never overwritten: the first copy of a
    position stays)."""
    for path in (
        pm.backup_path(project_hash),
        pm.prev_backup_path(project_hash),
        pm.metadata_path(project_hash),
        pm.prev_metadata_path(project_hash),
    ):
        keep = path.with_name(f"{path.name}.journal-loss-{position}")
        if path.exists() and not keep.exists():
            link_durable(path, keep)


def project_journal(
    pm: PersistenceManager,
    project_hash: str,
    session_id: str,
    config: JournalConfig | None = None,
) -> LocalJournal:
    """The project's `LocalJournal` (`<home>/<project_hash>/journal`, `DeltaCodec`,
    `config` or `DefaultJournalConfig()`: fsync per append), created if missing."""
    # Start-up time: `import crs._crs` does not load the local journal (11 ms) until used.
    from crs._journal._local import LocalJournal

    jcfg = replace(
        DefaultJournalConfig() if config is None else config,
        path=str(pm.project_dir(project_hash) / "journal"),
        session_id=session_id,
    )
    return LocalJournal(jcfg, DeltaCodec())
