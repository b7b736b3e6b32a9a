"""Read replicas: a CRS that follows another CRS's journal live and serves reads.

A writer `CRS` journals every committed change (`CRS(config, journal=...)` with a
`DeltaCodec` journal). `ReadReplica(source)` builds a `ReadOnlyCRS` and applies each entry
of the source journal as it is committed, on a background thread, so the replica serves
`snapshot()`, `get_step_history()`, `check_circuit_breaker()`, `check_decision_allowed()`...
with the writer's state a short lag behind. Sources:

- a `NATSJournal` (or a `JournalFollower` of one): pushed by the server, live;
- a directory holding a `LocalJournal` written by another process (opened read-only and
  polled every `poll_interval` seconds);
- any journal object with `replay_stream(after_seq)` (a `LocalJournal` or `MemoryJournal`
  of this process), polled likewise.

Entries are applied in sequence order; an entry at or below the replica's position (a
redelivery after a reconnection) is skipped, so nothing is applied twice. Mutating the
replica raises `ReadOnlyReplicaError`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any, NoReturn

from crs._crs import CRS, ApplyMetrics, Checkpoint
from crs._errors import (
    InvalidArgumentError,
    JournalClosedError,
    JournalCorruptedError,
    JournalSequenceGapError,
    ReadOnlyReplicaError,
)
from crs._journal._base import DeltaOrError, JournalConfig
from crs._journal._local import LocalJournal
from crs._kernel import StateKernel
from crs._persistence._backup_format import BackupImage
from crs._state._codec import DeltaCodec

if TYPE_CHECKING:
    from crs._journal._nats import JournalFollower
    from crs._types import Config

__all__ = ["ReadOnlyCRS", "ReadReplica"]

_log = logging.getLogger("crs.replica")


class _ReplicaKernel(StateKernel):
    """The kernel of a `ReadOnlyCRS`: only the replica's applier thread changes the state
    (with deltas and records of the source journal, never journaled again)."""

    __slots__ = ("applier",)

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.applier: int | None = None  # the thread applying the source's entries now

    def refuse(self, what: str) -> NoReturn:
        raise ReadOnlyReplicaError(
            f"{what}: this CRS is a read replica and only applies its source journal; "
            "make the change on the writer"
        )

    def applying(self) -> bool:
        return self.applier == threading.get_ident()

    def commit(
        self,
        delta: Any,
        source: str | None = None,
        metadata: Any = None,
        base: Any = None,
        *,
        journal: bool = True,
    ) -> ApplyMetrics:
        if self.applier != threading.get_ident():
            self.refuse("apply")
        return super().commit(delta, source, metadata, base, journal=False)

    def commit_op(
        self,
        kind: str,
        payload: dict[str, Any],
        *,
        bump_generation: bool,
        checked: Callable[[dict[str, Any]], Any] | None = None,
        fresh: Callable[[dict[str, Any]], bool] | None = None,
        msg_id: str | None = None,
    ) -> Any:
        if kind == "clause_used":  # a read on the replica records nothing
            return None
        self.refuse(kind)

    def install(self, ops: list[tuple[Any, ...]], analytics: Any) -> int:
        if self.applier != threading.get_ident():
            self.refuse("import")
        return super().install(ops, analytics)


class ReadOnlyCRS(CRS):
    """The CRS of a `ReadReplica`: every read works, every mutation raises.

    Only the replica's own thread applies entries. `check_decision_allowed` answers without
    recording the clause's use (the writer records its own; that record arrives through the
    journal). Backups of a replica (`export_image`, `save_checkpoint_to_disk`) work.
    """

    _KERNEL = _ReplicaKernel
    _kernel: _ReplicaKernel

    def _refuse(self, what: str) -> NoReturn:
        self._kernel.refuse(what)

    @contextlib.contextmanager
    def _as_applier(self) -> Generator[None, None, None]:
        """Hold the lock as the replica's applier: the changes made inside are allowed."""
        k = self._kernel
        with k.lock:
            k.applier = threading.get_ident()
            try:
                yield
            finally:
                k.applier = None

    def restore(self, cp: Checkpoint) -> None:
        self._refuse("restore")

    def load_image(self, image: BackupImage) -> None:
        if not self._kernel.applying():
            self._refuse("load_image")
        super().load_image(image)

    def replay_journal(self, journal: Any = None, *, after_seq: int | None = None) -> int:
        self._refuse("replay_journal")

    def load_checkpoint_from_disk(
        self, pm: Any, project_hash: str, journal: Any = None, **kwargs: Any
    ) -> Any:
        self._refuse("load_checkpoint_from_disk")

    def _apply_entry(self, item: DeltaOrError, contiguous: bool = False) -> bool:
        """Apply one journal item on the applier thread; False for a redelivered one.

        With `contiguous` (local journals number entries 1, 2, 3...), a skipped number means
        entries were checkpointed away before the replica read them.
        """
        if item.err is not None and not item.skipped:
            if item.seq_num == 0:  # the feed itself failed (not one entry)
                raise item.err
            raise JournalCorruptedError(
                f"read replica: journal entry {item.seq_num} unreadable: {item.err}"
            ) from item.err
        k = self._kernel
        with k.lock:
            if item.seq_num <= k.seq:
                return False
            if contiguous and item.seq_num != k.seq + 1:
                raise JournalSequenceGapError(
                    f"read replica: the journal continues at {item.seq_num} but the replica "
                    f"covers up to {k.seq} (checkpointed while it lagged); start "
                    "a new replica with base= a backup"
                )
            try:
                if not item.skipped:
                    k.apply_replayed(item.delta)
                k.seq = item.seq_num
            finally:
                k.frozen = None
        return True

    def __repr__(self) -> str:
        return f"<ReadOnlyCRS generation={self.generation()} position={self._kernel.seq}>"


def _local_items(path: str, session_id: str, after: Callable[[], int]) -> Iterator[DeltaOrError]:
    """One poll of a LocalJournal directory written by another process (read-only open)."""
    config = JournalConfig(path=path, session_id=session_id, read_only=True)
    with LocalJournal(config, DeltaCodec()) as journal:
        yield from journal.replay_stream(after_seq=after())


def _local_checkpoint(path: str, session_id: str) -> int:
    config = JournalConfig(path=path, session_id=session_id, read_only=True)
    with LocalJournal(config, DeltaCodec()) as journal:
        return journal.stats().checkpoint_seq


def _check_start(pos: int, checkpoint: int) -> None:
    if pos < checkpoint:
        raise JournalSequenceGapError(
            f"read replica: the journal was checkpointed at {checkpoint} but the replica "
            f"starts at {pos}; give base= the backup that covers it"
        )


class ReadReplica:
    """A `ReadOnlyCRS` kept up to date from a journal, live (see the module docstring).

    Args:
        source: A `NATSJournal`, a `JournalFollower` (the replica owns and stops it), a
            `LocalJournal` directory written by another process, or a journal object with
            `replay_stream`. The journal must use `DeltaCodec` (as a journaling CRS does).
        config: CRS configuration of the replica (None = `DefaultConfig()`).
        base: A `BackupImage` (`writer.export_image()`) to start from, for a journal
            checkpointed past its beginning; entries after its position are applied.
        session_id: Session id of a journal directory (ignored for other sources).
        poll_interval: Seconds between polls of a directory or `replay_stream` source.
        **kwargs: Other `CRS` keyword arguments (caps); use the writer's.

    Raises:
        JournalSequenceGapError: The source journal was checkpointed past the replica's
            start (give the `base` backup that covers it).
        InvalidArgumentError: `source` is none of the above.

    Example (needs a running ``nats-server -js``)::

        writer = CRS(journal=NATSJournal(NATSJournalConfig(session_id="s1", codec=DeltaCodec())))
        with ReadReplica(NATSJournal(NATSJournalConfig(session_id="s1", codec=DeltaCodec()))) as r:
            writer.update_proof_number(ProofUpdate(node_id="a", type=1, delta=1))
            r.wait_for(writer.journal_position(), timeout=5)
            r.crs.get_proof_status("a")
    """

    def __init__(
        self,
        source: Any,
        config: Config | None = None,
        *,
        base: BackupImage | None = None,
        session_id: str = "crs",
        poll_interval: float = 0.05,
        **kwargs: Any,
    ) -> None:
        if isinstance(poll_interval, bool) or not isinstance(poll_interval, int | float):
            raise InvalidArgumentError(f"poll_interval: must be seconds > 0, got {poll_interval!r}")
        if not poll_interval > 0:
            raise InvalidArgumentError(f"poll_interval: must be seconds > 0, got {poll_interval!r}")
        self._crs = ReadOnlyCRS(config, **kwargs)
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._interval = float(poll_interval)
        self._error: BaseException | None = None
        self._follower: JournalFollower | None = None
        self._poll: Callable[[], Iterator[DeltaOrError]] | None = None
        self._source = source
        if base is not None:
            with self._crs._as_applier():
                self._crs.load_image(base)
        pos = self._crs.journal_position()
        if hasattr(source, "_pump") and callable(getattr(source, "get", None)):
            self._follower = source
        elif getattr(source, "sparse_sequences", False) and callable(
            getattr(source, "follow", None)
        ):
            _check_start(pos, source.stats().checkpoint_seq)
            self._follower = source.follow(from_seq=pos + 1 if pos else 0)
        elif isinstance(source, str | os.PathLike):
            path = os.fspath(source)
            _check_start(pos, _local_checkpoint(path, session_id))
            self._poll = lambda: _local_items(path, session_id, self._crs.journal_position)
        elif callable(getattr(source, "replay_stream", None)):
            _check_start(pos, source.stats().checkpoint_seq)
            self._poll = lambda: source.replay_stream(after_seq=self._crs.journal_position())
        else:
            raise InvalidArgumentError(
                "source: must be a NATSJournal, a JournalFollower, a journal directory or a "
                f"journal with replay_stream(), got {source!r}"
            )
        self._thread = threading.Thread(target=self._run, name="crs-replica", daemon=True)
        self._thread.start()

    # ---------------------------------------------------------------- reading

    @property
    def crs(self) -> ReadOnlyCRS:
        """The replica's CRS: serve reads from it (mutations raise `ReadOnlyReplicaError`)."""
        return self._crs

    def position(self) -> int:
        """Sequence number of the last source entry applied (0 = none)."""
        return self._crs.journal_position()

    @property
    def error(self) -> BaseException | None:
        """Why the replica stopped following (an unreadable entry, a lost source), or None."""
        return self._error

    def wait_for(self, seq: int, timeout: float | None = None) -> bool:
        """Wait until the entry `seq` (e.g. `writer.journal_position()`) is applied.

        Returns:
            True once applied; False when `timeout` seconds passed or the replica stopped.
        """
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise InvalidArgumentError(f"seq: must be an int, got {seq!r}")
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self.position() < seq:
                if self._error is not None or self._stop.is_set():
                    return False
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(0.1 if left is None else min(left, 0.1))
        return True

    # ---------------------------------------------------------------- following

    def _apply(self, item: DeltaOrError, contiguous: bool = False) -> None:
        crs = self._crs
        with crs._as_applier():
            applied = crs._apply_entry(item, contiguous)
        if applied:
            with self._cond:
                self._cond.notify_all()

    def _run(self) -> None:
        try:
            if self._follower is not None:
                while not self._stop.is_set():
                    item = self._follower.get(timeout=0.1)
                    if item is None:
                        if self._follower._ended.is_set():
                            raise JournalClosedError("read replica: the source's follower ended")
                        continue
                    self._apply(item)
            else:
                assert self._poll is not None
                while not self._stop.is_set():
                    found = False
                    for item in self._poll():
                        self._apply(item, contiguous=True)
                        found = True
                        if self._stop.is_set():
                            break
                    if not found:
                        self._stop.wait(self._interval)
        except BaseException as exc:  # the replica stops; readers see `error`
            if not self._stop.is_set():
                _log.warning("read replica stopped following: %s", exc)
                self._error = exc
        finally:
            with self._cond:
                self._cond.notify_all()

    def close(self) -> None:
        """Stop following (the state stays readable); idempotent. Stops an owned follower."""
        self._stop.set()
        if self._follower is not None:
            self._follower.stop()
        if self._thread is not threading.current_thread():
            self._thread.join(10.0)
        self._crs.close()

    def __enter__(self) -> ReadReplica:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<ReadReplica position={self.position()} of {self._source!r}>"
