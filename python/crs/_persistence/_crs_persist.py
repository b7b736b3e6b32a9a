"""Durability of the CRS: journal replay, whole-state backup images, checkpoints on disk.

`PersistenceMixin` gives `CRS` the `BackupSource` / `BackupTarget` / `RestoreTarget`
protocols of the persistence layer (`export_image`, `load_image`; `apply`, `generation` and
`export_json` are the CRS's own), the seed's `save_checkpoint_to_disk` /
`load_checkpoint_from_disk`, `replay_journal` and the `CRS.open` constructor.

The backup image (`BackupImage.data`, format `IMAGE_VERSION`), little-endian::

    b"CRSIMAGE" | u32 version | u32 0 | u64 json length | JSON document | proof table

The JSON document is `CRS._state_image()` without its proof rows (every other index, the
streaming sketch, analytics, the guards' state, the generation). The proof table is
columnar so that a million entries encode and decode at C speed::

    u64 count | u32 x count id lengths (code points) | u64 x count proof
              | u64 x count disproof | u8 x count status | u8 x count source
              | i64 x count updated_at | ids concatenated (UTF-8, surrogatepass)
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import struct
import sys
import threading
from array import array
from collections.abc import Generator, Iterator
from dataclasses import replace
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Self

from crs._check import brief
from crs._errors import (
    InvalidArgumentError,
    JournalCorruptedError,
    JournalSequenceGapError,
    PersistenceError,
)
from crs._journal._base import DefaultJournalConfig, JournalConfig, pause_gc
from crs._persistence._backup_format import BackupImage, BackupMetadata
from crs._persistence._durable import link_durable
from crs._persistence._manager import BackupOptions, PersistenceManager
from crs._state._codec import DeltaCodec, ProofPayloads
from crs._state._deltas import Delta, ProofDelta
from crs._state._image import state_image

if TYPE_CHECKING:
    from crs._journal._local import LocalJournal
    from crs._types import Config

__all__ = ["IMAGE_VERSION", "PersistenceMixin", "ProjectInfo", "project_journal"]

IMAGE_VERSION = 1
"""Version of the backup image layout written by `CRS.export_image`."""

_MAGIC = b"CRSIMAGE"
_HEAD = struct.Struct("<8sIIQ")
_log = logging.getLogger("crs.state")


def _column(code: str, data: bytes | memoryview, pos: int, n: int) -> tuple[array[Any], int]:
    col = array(code)
    end = pos + n * col.itemsize
    if end > len(data):
        raise ValueError("proof table is cut short")
    col.frombytes(data[pos:end])
    if sys.byteorder == "big" and col.itemsize > 1:  # pragma: no cover - little-endian hosts
        col.byteswap()
    return col, end


def _le(col: array[Any]) -> bytes:
    if sys.byteorder == "big" and col.itemsize > 1:  # pragma: no cover - little-endian hosts
        col = array(col.typecode, col)
        col.byteswap()
    return col.tobytes()


def encode_proof_table(rows: list[tuple[str, int, int, int, int, int]]) -> bytes:
    """The columnar proof table of an image (see the module docstring)."""
    if not rows:
        return struct.pack("<Q", 0)
    ids, proof, disproof, status, source, at = zip(*rows, strict=True)
    return b"".join(
        (
            struct.pack("<Q", len(rows)),
            _le(array("I", map(len, ids))),
            _le(array("Q", proof)),
            _le(array("Q", disproof)),
            bytes(status),
            bytes(source),
            _le(array("q", at)),
            "".join(ids).encode("utf-8", "surrogatepass"),
        )
    )


def decode_proof_table(data: bytes | memoryview) -> list[tuple[str, int, int, int, int, int]]:
    """Inverse of `encode_proof_table` (raises ValueError on a malformed table)."""
    (n,) = struct.unpack_from("<Q", data)
    if n == 0:
        if len(data) != 8:
            raise ValueError("trailing bytes after an empty proof table")
        return []
    pos = 8
    lens, pos = _column("I", data, pos, n)
    proof, pos = _column("Q", data, pos, n)
    disproof, pos = _column("Q", data, pos, n)
    status, pos = _column("B", data, pos, n)
    source, pos = _column("B", data, pos, n)
    at, pos = _column("q", data, pos, n)
    text = bytes(data[pos:]).decode("utf-8", "surrogatepass")
    ends = list(accumulate(lens))
    if (ends[-1] if ends else 0) != len(text):
        raise ValueError("proof table ids do not match their lengths")
    ids = [text[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]
    return list(zip(ids, proof, disproof, status, source, at, strict=True))


def encode_image(doc: dict[str, Any], rows: list[tuple[str, int, int, int, int, int]]) -> bytes:
    """Image bytes from the JSON document (no proof rows) and the proof rows."""
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    raw = text.encode("utf-8", "surrogatepass")
    return b"".join((_HEAD.pack(_MAGIC, IMAGE_VERSION, 0, len(raw)), raw, encode_proof_table(rows)))


def decode_image(data: bytes) -> dict[str, Any]:
    """The `_state_image()` document of image bytes, proof rows included.

    Raises:
        InvalidArgumentError: Not an image of this version, or malformed.
    """
    if len(data) < _HEAD.size:
        raise InvalidArgumentError("image: too short to be a crs state image")
    magic, version, _, size = _HEAD.unpack_from(data)
    if magic != _MAGIC or version != IMAGE_VERSION:
        raise InvalidArgumentError(
            f"image: not a crs state image of version {IMAGE_VERSION} "
            f"(magic {brief(magic)}, version {version}); written by another or a newer crs?"
        )
    view = memoryview(data)
    try:
        doc = json.loads(
            bytes(view[_HEAD.size : _HEAD.size + size]).decode("utf-8", "surrogatepass")
        )
        if not isinstance(doc, dict):
            raise ValueError("the document is not a JSON object")
        doc["proof"] = decode_proof_table(view[_HEAD.size + size :])
    except (ValueError, struct.error) as exc:
        raise InvalidArgumentError(f"image: malformed state image ({exc})") from None
    return doc


class ProjectInfo(NamedTuple):
    """Where an `open_project` CRS keeps its data, and what opening it restored."""

    project_path: str
    project_hash: str
    home: Path
    journal_path: Path
    backup_path: Path
    restored_from_backup: bool
    replayed_records: int


class _Run:
    """Journal records after a position as (first_seq, entries) runs or skipped/error items."""

    @staticmethod
    def of(journal: Any, after: int) -> Iterator[tuple[int, list[Any]] | Any]:
        runs = getattr(journal, "_decoded_runs", None)
        if runs is not None:
            yield from runs(after, for_replay=True)
            return
        for item in journal.replay_stream(after_seq=after):
            if item.err is not None or item.skipped:
                yield item
            else:
                yield item.seq_num, [item.delta]


class PersistenceMixin:
    """Journal replay, backup images and checkpoints on disk, as methods of `CRS`."""

    if TYPE_CHECKING:
        _lock: threading.RLock
        _journal: Any
        _journal_seq: int
        _gen: int
        _frozen: Any
        _head: Any
        _op_handlers: dict[str, Any]
        _shared_journal: bool
        _wdepth: int

        def __init__(self, config: Config | None = None, *, journal: Any = None) -> None: ...
        def _current(self) -> tuple[Any, int, tuple[Any, ...]]: ...
        def _guards_export(self) -> dict[str, Any]: ...
        def _load_state_image(self, image: dict[str, Any]) -> int: ...
        def _commit(
            self,
            delta: Delta,
            source: str | None = None,
            metadata: Any = None,
            base: Any = None,
            *,
            journal: bool = True,
        ) -> Any: ...
        def _replay(self, record: Any) -> None: ...
        def _check_open(self, what: str) -> None: ...
        def snapshot(self) -> Any: ...
        def close(self) -> None: ...

    _owned: list[Any]
    _from_backup: bool = False  # set by open_project
    _replayed: int = 0  # journal records applied by replay_journal so far
    _project: tuple[PersistenceManager, str, str] | None = None

    # ---------------------------------------------------------------- journal

    @contextlib.contextmanager
    def _writing(self) -> Generator[None, None, None]:
        """Hold the CRS lock and, on a shared journal, its writer lock, having applied what
        other processes appended first: a decision made and committed inside the block
        sees every earlier record of every writer. Re-entrant."""
        with self._lock:
            if not self._shared_journal or self._wdepth:
                yield
                return
            with self._journal.exclusive():
                self._wdepth = 1
                try:
                    self._catch_up()
                    yield
                finally:
                    self._wdepth = 0

    def _catch_up(self) -> int:
        """Apply the records other writers appended (shared journal, under its lock)."""
        if self._journal.last_seq() <= self._journal_seq:
            return 0
        try:
            return self.replay_journal()
        except JournalSequenceGapError:
            # Another writer saved a backup and checkpointed past this state: load it.
            project = self._project
            if project is None:
                raise
            pm, key, _ = project
            self.load_checkpoint_from_disk(pm, key)
            return 0

    def refresh(self) -> int:
        """Apply what other processes appended to a shared project journal since this CRS
        last read it (`open_project` journals are shared); returns the records applied.
        Every commit does this first; call it to read their latest state without writing."""
        self._check_open("refresh")
        if not self._shared_journal:
            return 0
        with self._lock, self._journal.exclusive():
            return self._catch_up()

    def journal_position(self) -> int:
        """Sequence number of the last journal record the state includes (0 = none)."""
        return self._journal_seq

    def replay_journal(self, journal: Any = None, *, after_seq: int | None = None) -> int:
        """Apply the journal's records after the state's position, without journaling them.

        This is how a new CRS catches up with its journal (`CRS.open` calls it); after a
        backup is loaded it applies the tail. Each record has the effect it had when it was
        committed, generation included, so the state and generation end up the same.

        Args:
            journal: The journal to read; None means the CRS's own.
            after_seq: Start after this sequence number; None means `journal_position()`.

        Returns:
            How many records were applied.

        Raises:
            JournalSequenceGapError: The first record is not the one after the position
                (records were checkpointed away: load the backup that covers them first).
            JournalCorruptedError: A record cannot be read.
        """
        self._check_open("replay_journal")
        j = self._journal if journal is None else journal
        if j is None or not callable(getattr(j, "replay_stream", None)):
            raise InvalidArgumentError(f"journal: must be a crs Journal, got {brief(j)}")
        applied = 0
        # Stream sequences (NATSJournal) are shared with other sessions: they grow but skip.
        sparse = bool(getattr(j, "sparse_sequences", False))
        if after_seq is not None and (
            isinstance(after_seq, bool) or not isinstance(after_seq, int) or after_seq < 0
        ):
            raise InvalidArgumentError(f"after_seq: must be an int >= 0 or None, got {after_seq!r}")
        if after_seq is not None and after_seq >= 1 << 63:
            raise InvalidArgumentError(
                f"after_seq: must be below 2**63 (a journal sequence number), got {after_seq}"
            )
        skip = bool(getattr(getattr(j, "_config", None), "skip_corrupted_deltas", False))
        with self._lock:
            if after_seq is not None:  # the caller says the state covers up to there
                self._journal_seq = after_seq
            pos = self._journal_seq
            if sparse and pos < j.stats().checkpoint_seq:
                self._check_next(pos, j.stats().checkpoint_seq + 1)  # raises the gap error
            try:
                for item in _Run.of(j, pos):
                    if not isinstance(item, tuple):
                        if item.err is not None and not item.skipped:
                            raise JournalCorruptedError(f"journal record unreadable: {item.err}")
                        self._check_next(pos, item.seq_num, sparse)
                        pos = self._journal_seq = item.seq_num
                        continue
                    first, entries = item
                    self._check_next(pos, first, sparse)
                    pos = self._journal_seq = first - 1  # (moves only for sparse sequences)
                    rows: list[Any] = []  # consecutive ProofDeltas: one write, same result
                    for entry in entries:
                        if type(entry) is ProofDelta:
                            rows += entry._rows
                            pos += 1
                            continue
                        self._flush_proofs(rows, pos)
                        rows = []
                        if type(entry) is ProofPayloads:  # ProofDeltas, decoded in Rust
                            pos = self._put_payloads(entry.payloads, pos)
                            continue
                        self._apply_replayed(entry, j if skip else None, pos + 1)
                        pos += 1
                        self._journal_seq = pos
                    self._flush_proofs(rows, pos)
                    applied += pos - (first - 1)
            finally:
                self._frozen = None
        self._replayed += applied
        return applied

    @staticmethod
    def _check_next(pos: int, seq: int, sparse: bool = False) -> None:
        if seq != pos + 1 and not (sparse and seq > pos):
            raise JournalSequenceGapError(
                f"journal sequence gap: the state covers up to record {pos} but the journal "
                f"continues at {seq}; load the backup that covers the records in between first"
            )

    def _flush_proofs(self, rows: list[Any], pos: int) -> None:
        """Write the rows of the ProofDeltas replayed up to record `pos` (later rows win,
        as `put_proofs` writes in order); each delta was one generation."""
        pending = pos - self._journal_seq
        if pending:
            self._head.put_proofs(rows)
            self._gen += pending
            self._journal_seq = pos

    def _put_payloads(self, payloads: list[bytes], pos: int) -> int:
        """Write a stretch of binary ProofDelta records (already checked) following record
        `pos`, one generation each; returns the new position."""
        try:
            self._head.put_proof_payloads(payloads)
        except ValueError as exc:  # checked by decode_for_replay: not expected
            raise JournalCorruptedError(f"journal record unreadable: {exc}") from exc
        self._gen += len(payloads)
        self._journal_seq = pos + len(payloads)
        return self._journal_seq

    def _apply_replayed(self, entry: Any, skipper: Any = None, seq: int = 0) -> None:
        """Apply one replayed record. One that cannot be applied raises
        `JournalCorruptedError`; with a `skipper` (a journal with `skip_corrupted_deltas`) it
        is skipped and counted there instead (nothing of it was applied)."""
        try:
            if isinstance(entry, Delta):
                self._commit(entry, journal=False)
            else:
                self._replay(entry)
        except JournalCorruptedError as exc:
            if skipper is None or not callable(getattr(skipper, "_skip", None)):
                raise JournalCorruptedError(f"journal record {seq}: {exc}") from exc
            skipper._skip(1, f"record {seq} cannot be applied: {exc}")

    @classmethod
    def open(
        cls,
        journal: Any,
        config: Config | None = None,
        *,
        session_id: str = "crs",
        **kwargs: Any,
    ) -> Self:
        """A CRS writing to `journal`, after replaying every record it holds.

        Args:
            journal: A crs `Journal` using `DeltaCodec`, or a directory: a `LocalJournal`
                with `DefaultJournalConfig()` (fsync per append) is opened there, and closed
                with the CRS.
            config: CRS configuration (None = `DefaultConfig()`).
            session_id: Session id of a journal opened from a directory.
            **kwargs: Other `CRS` keyword arguments (caps).

        Raises:
            JournalSequenceGapError: The journal was checkpointed past a backup; use
                `open_project` (or `load_checkpoint_from_disk`) to load the backup first.
        """
        owned = None
        if isinstance(journal, str | os.PathLike):
            from crs._journal._local import LocalJournal

            cfg = replace(DefaultJournalConfig(), path=os.fspath(journal), session_id=session_id)
            journal = owned = LocalJournal(cfg, DeltaCodec())
        try:
            crs = cls(config, journal=journal, **kwargs)
            if owned is not None:
                crs._own(owned)
            crs.replay_journal()
        except BaseException:
            if owned is not None:
                owned.close()
            raise
        return crs

    def _own(self, resource: Any) -> None:
        if not hasattr(self, "_owned"):
            self._owned = []
        self._owned.append(resource)

    def _close_owned(self) -> None:
        owned = getattr(self, "_owned", [])
        while owned:
            try:
                owned.pop().close()
            except Exception as exc:  # closing the rest matters more
                _log.warning("could not close %r: %s", owned, exc)

    # ---------------------------------------------------------------- backup protocols

    def export_image(self) -> BackupImage:
        """The whole state (guard state included) and the journal position it covers.

        Taken in one step under the lock (O(1): versions are shared), encoded outside it.
        """
        with self._lock:
            core, gen, analytics = self._current()
            guards = self._guards_export()
            position = self._journal_seq
        with pause_gc():
            doc = state_image(core, gen, analytics, guards, proof=False)
            data = encode_image(doc, core.proof_all())
        return BackupImage(data, position, gen)

    def load_image(self, image: BackupImage) -> None:
        """Replace the whole state by a backup image (never merges); its journal position
        becomes the state's. On a CRS that committed nothing the generation becomes the
        image's; otherwise it moves forward (generations never go back)."""
        self._check_open("load_image")
        if not isinstance(image, BackupImage):
            raise InvalidArgumentError(f"image: must be a BackupImage, got {brief(image)}")
        with pause_gc():
            doc = decode_image(image.data)
        with self._lock:
            self._load_state_image(doc)
            self._journal_seq = image.journal_position

    # ---------------------------------------------------------------- checkpoints on disk

    def save_checkpoint_to_disk(
        self,
        pm: PersistenceManager,
        project_hash: str,
        journal: Any = None,
        options: BackupOptions | None = None,
    ) -> BackupMetadata:
        """Back up the whole state, then checkpoint the journal as far as both backups allow.

        Args:
            pm: The persistence manager.
            project_hash: The project key (`compute_project_hash`).
            journal: The journal to checkpoint; None means the CRS's own (if any).
            options: `BackupOptions` of the save.

        Returns:
            The metadata of the saved backup.
        """
        self._check_open("save_checkpoint_to_disk")
        if not isinstance(pm, PersistenceManager):
            raise InvalidArgumentError(f"pm: must be a PersistenceManager, got {brief(pm)}")
        meta = pm.save_backup(project_hash, self, options)
        j = self._journal if journal is None else journal
        if j is not None and callable(getattr(j, "checkpoint", None)):
            pos = min(pm.journal_checkpoint_position(project_hash), j.stats().last_seq_num)
            if pos > j.stats().checkpoint_seq:
                j.checkpoint(pos)
        return meta

    def load_checkpoint_from_disk(
        self,
        pm: PersistenceManager,
        project_hash: str,
        journal: Any = None,
        *,
        accept_journal_loss: bool = False,
    ) -> BackupMetadata | None:
        """Load the project's backup, then replay the journal records after it.

        Without a backup (a first run) the whole journal is replayed and None is returned.

        Args:
            pm: The persistence manager.
            project_hash: The project key.
            journal: The journal to replay; None means the CRS's own (if any).
            accept_journal_loss: Go on when the journal ends before the backup's position
                (it was deleted or truncated): the state is the backup's, the backups are
                kept beside as `*.journal-loss-<position>` and saved again at the journal's
                position. Without it that case raises.

        Raises:
            JournalCorruptedError: The journal ends before the backup's position (it was
                deleted or truncated; acknowledged records may be lost) and
                `accept_journal_loss` is off. Nothing was changed on disk.
            BackupCorruptedError, MetadataCorruptedError, BackupVersionMismatchError: No
                usable backup.
            JournalSequenceGapError, JournalCorruptedError: The tail cannot be replayed.
        """
        self._check_open("load_checkpoint_from_disk")
        from crs._check import fail, require_instance
        from crs._persistence._session_restore import load_checkpoint

        require_instance(pm, PersistenceManager, "pm")
        require_instance(project_hash, str, "project_hash")
        if journal is not None and not callable(getattr(type(journal), "replay", None)):
            fail("journal", "a crs Journal or None", journal)

        j = self._journal if journal is None else journal
        meta = load_checkpoint(pm, project_hash, self, j)  # type: ignore[arg-type]
        if meta is None and j is not None:
            self.replay_journal(j)
        elif meta is not None and j is not None and callable(getattr(j, "stats", None)):
            last = j.stats().last_seq_num
            if last < self._journal_seq:
                # The journal is younger than the backup (deleted or truncated): records the
                # backup covers, and any acknowledged after it, are gone from the journal.
                if not accept_journal_loss:
                    raise JournalCorruptedError(
                        f"journal ends at record {last}, before the backup's position "
                        f"{self._journal_seq}: the journal was deleted or truncated, and the "
                        f"changes journaled after record {self._journal_seq} (if any) are "
                        "lost. Restore the journal directory from a copy, or accept the "
                        "backup's state with open_project(..., accept_journal_loss=True) "
                        "(the backups are kept beside as *.journal-loss-<position>)"
                    )
                _log.warning(
                    "journal ends at record %d, before the backup's position %d: accepted; "
                    "keeping the backups as *.journal-loss-%d and saving the state as new "
                    "backups at position %d",
                    last,
                    self._journal_seq,
                    self._journal_seq,
                    last,
                )
                _keep_backups(pm, project_hash, self._journal_seq)
                with self._lock:
                    self._journal_seq = last
                    pm.save_backup(project_hash, self)
                    pm.save_backup(project_hash, self)
        return meta

    # ---------------------------------------------------------------- projects

    def _attach_project(self, pm: PersistenceManager, key: str, path: str) -> None:
        self._project = (pm, key, path)

    def _backup_for_full_journal(self) -> int:
        """The journal's full handler (`auto_checkpoint`): save the state as both backups
        (so a fallback to the previous one needs no dropped record) and return the journal
        position they cover. Runs inside an append, before the new record is written."""
        assert self._project is not None
        pm, key, path = self._project
        opts = BackupOptions(project_path=path)
        pm.save_backup(key, self, opts)
        pm.save_backup(key, self, opts)
        return pm.journal_checkpoint_position(key)

    def project_info(self) -> ProjectInfo:
        """Paths and restore figures of a CRS opened by `open_project`."""
        project = self._project
        if project is None:
            raise PersistenceError("project_info: this CRS was not opened by open_project")
        pm, key, path = project
        return ProjectInfo(
            project_path=path,
            project_hash=key,
            home=pm.base_dir,
            journal_path=pm.project_dir(key) / "journal",
            backup_path=pm.backup_path(key),
            restored_from_backup=self._from_backup,
            replayed_records=self._replayed,
        )

    def save_project_backup(self, *, export_json: bool = False) -> BackupMetadata:
        """`save_checkpoint_to_disk` into the project opened by `open_project`."""
        self._check_open("save_project_backup")
        project = self._project
        if project is None:
            raise PersistenceError("save_project_backup: this CRS was not opened by open_project")
        pm, key, path = project
        opts = BackupOptions(create_json_export=export_json, project_path=path)
        return self.save_checkpoint_to_disk(pm, key, options=opts)


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
    from crs._journal._local import LocalJournal

    jcfg = replace(
        DefaultJournalConfig() if config is None else config,
        path=str(pm.project_dir(project_hash) / "journal"),
        session_id=session_id,
    )
    return LocalJournal(jcfg, DeltaCodec())
