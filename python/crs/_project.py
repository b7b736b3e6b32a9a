"""`open_project`: the CRS of a project directory, as an agent opens it at startup.

It sits above the facade (it builds a `CRS`) and below nothing but the command line, so it
may import anything in `crs` except `crs._cli`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import weakref
from collections import deque
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crs._check import brief, require_instance, require_path
from crs._crs import CRS
from crs._errors import (
    AppendRaceError,
    CRSError,
    InvalidArgumentError,
    JournalCorruptedError,
    JournalDegradedError,
    JournalError,
    JournalUnavailableError,
)
from crs._home import default_home
from crs._journal._base import (
    DefaultJournalConfig,
    DeltaOrError,
    JournalConfig,
    JournalStats,
    free_in_child,
    on_fork_child,
)
from crs._persistence._crs_persist import project_journal
from crs._persistence._load import compute_project_hash
from crs._persistence._manager import DefaultPersistenceConfig, PersistenceManager
from crs._reasoning._steps import require_id
from crs._state._codec import DeltaCodec
from crs._types import Config

if TYPE_CHECKING:
    from crs._journal._nats import NATSJournal
    from crs._journal._nats_async import NATSJournalConfig

__all__ = ["open_nats_project", "open_project"]


def _check_open_args(
    path: object, home: object, config: object, session_id: object, journal_config: object
) -> None:
    """`open_project`'s arguments, each named when wrong (before anything is created)."""
    for name, value in (("path", path), ("home", home)):
        if value is None and name == "home":
            continue
        require_instance(value, (str, os.PathLike), name)
        text = os.fspath(value)  # type: ignore[call-overload]
        require_instance(text, str, name)
        require_path(text, name)
    require_instance(config, (Config, type(None)), "config")
    require_id(session_id, "session_id")
    require_instance(journal_config, (JournalConfig, type(None)), "journal_config")


def open_project(
    path: str | os.PathLike[str] = ".",
    home: str | os.PathLike[str] | None = None,
    *,
    config: Config | None = None,
    session_id: str = "crs",
    journal_config: JournalConfig | None = None,
    accept_journal_loss: bool = False,
) -> CRS:
    """The CRS of a project, as an agent opens it at startup.

    Opens (creating them if needed) the project's data under `<home>/<project_key>/`
    (spec §4: `journal/`, `backups/`, `metadata.json`), loads the latest backup and replays
    the journal tail after it. Every change is then journaled (fsync per append);
    `crs.save_project_backup()` saves a backup and checkpoints the journal. Close the CRS
    (or use it as a context manager) to release the journal's lock.

    Args:
        path: The project directory (its key is `compute_project_hash(path)`).
        home: The data directory; None means `$CRS_HOME`, else `~/.crs`.
        config: CRS configuration (None = `DefaultConfig()`).
        session_id: Session id recorded by the journal.
        journal_config: The journal's configuration (path and session id are set here);
            With `auto_checkpoint`, a journal that reaches `max_journal_bytes` saves a
            backup and drops what it covers. None means `DefaultJournalConfig()` with
            `shared=True`: several processes
            (hooks, servers, agents) write the project, each holding the journal's lock for
            one append (docs/concurrency.md).
        accept_journal_loss: Open a project whose journal ends before its backup's position
            (deleted or truncated) with the backup's state; without it that raises
            `JournalCorruptedError` and changes nothing (see `load_checkpoint_from_disk`).

    Returns:
        The restored `CRS`.
    """
    if not isinstance(accept_journal_loss, bool):
        raise InvalidArgumentError(
            f"accept_journal_loss: must be a bool, got {brief(accept_journal_loss)}"
        )
    _check_open_args(path, home, config, session_id, journal_config)
    project = str(Path(path).resolve())
    base = Path(home).expanduser() if home is not None else default_home()
    return open_project_key(
        compute_project_hash(project),
        project,
        base,
        config=config,
        session_id=session_id,
        journal_config=journal_config,
        accept_journal_loss=accept_journal_loss,
    )


_OPEN_ATTEMPTS = 3  # opens of a project that another process checkpointed meanwhile


def open_project_key(
    key: str,
    project: str,
    base: Path,
    *,
    config: Config | None = None,
    session_id: str = "crs",
    journal_config: JournalConfig | None = None,
    accept_journal_loss: bool = False,
) -> CRS:
    """`open_project` for a project known by its key under the data directory `base`
    (arguments already checked); `project` is its path, or "" when it is not known (a
    dashboard that found the project's data but not its directory)."""
    ours = journal_config is None
    if journal_config is None:  # several processes (hooks, servers, agents) share a project
        # at its size limit the journal saves the project's backups and drops what they
        # cover (the full handler below), rather than refusing every later record: a
        # long-lived writer (an agent server's Guard.open) saves no backup by itself
        journal_config = replace(DefaultJournalConfig(), shared=True, auto_checkpoint=True)
    args = (key, project, base, config, session_id, journal_config, accept_journal_loss)
    try:
        for _ in range(_OPEN_ATTEMPTS - 1):
            try:
                return _open_once(*args)
            except JournalCorruptedError as exc:
                # Another process saved a backup and checkpointed the journal while this one
                # read it: a segment it listed is gone (and covered by the new backup).
                # Opening again loads that backup and the journal after it; real damage
                # raises at once.
                if not isinstance(exc.__cause__, FileNotFoundError):
                    raise
        return _open_once(*args)
    except JournalDegradedError as exc:
        if not ours:  # the caller's JournalConfig: its advice (allow_degraded) is theirs
            raise
        # Guard.open, the CLIs: no JournalConfig to pass an option to; what to fix on disk
        raise JournalDegradedError(
            f"{exc.problem}; {exc.fix or 'fix it and retry'} (crs's data directory is "
            f"{base}: the home argument, --home or $CRS_HOME)",
            problem=exc.problem,
            fix=exc.fix,
        ) from exc.__cause__


def _open_once(
    key: str,
    project: str,
    base: Path,
    config: Config | None,
    session_id: str,
    journal_config: JournalConfig,
    accept_journal_loss: bool,
) -> CRS:
    pm = PersistenceManager(replace(DefaultPersistenceConfig(), base_dir=str(base)))
    journal = project_journal(pm, key, session_id, journal_config)
    try:
        crs = CRS(config, journal=journal)
        _watch_local_forks(crs)
        persist = crs._persist
        persist.own(journal)
        persist.own(pm)
        persist.attach_project(pm, key, project)
        # The backup and the journal read as one view, under the journal's writer lock
        # (which reads what other writers appended first): another process's appends and
        # backup between this journal's open and the backup's load looked like a journal
        # that ends before its backup, "deleted or truncated" (red team 5).
        with journal.exclusive():
            meta = crs.load_checkpoint_from_disk(pm, key, accept_journal_loss=accept_journal_loss)
        persist.from_backup = meta is not None
        journal.set_full_handler(persist.backup_for_full_journal)
    except BaseException:
        journal.close()
        raise
    return crs


# ---------------------------------------------------------------- a project on NATS JetStream

_NATS_SCHEMES = ("nats", "tls", "ws", "wss")
_ECHO_WAIT_S = 5.0  # longest wait for an append to come back on the live feed
_project_log = logging.getLogger("crs.project")


def nats_journal_config(nats: object, key: str, name: str = "nats") -> NATSJournalConfig:
    """The `NATSJournalConfig` of a project from `nats` (a server URL or a config), each
    fault named `name` (or `name.field`); `key` is the subject token when the config has
    no `session_id` of its own."""
    # inside: start-up (the NATS journal imports asyncio) and the optional nats-py
    from crs._journal._nats_async import NATSJournalConfig

    if isinstance(nats, str):
        cfg = NATSJournalConfig(servers=nats, session_id=key)
    elif isinstance(nats, NATSJournalConfig):
        if nats.codec is not None and not isinstance(nats.codec, DeltaCodec):
            raise InvalidArgumentError(
                f"{name}.codec: a project journal uses crs.DeltaCodec; leave it None, "
                f"got {brief(nats.codec)}"
            )
        if nats.allow_degraded:
            raise InvalidArgumentError(
                f"{name}.allow_degraded: a project on NATS acknowledges a call only once the "
                "server stored it; leave it False (an unreachable server raises "
                "JournalUnavailableError instead)"
            )
        cfg = replace(nats, session_id=nats.session_id or key)
    else:
        raise InvalidArgumentError(
            f"{name}: must be a NATS server URL (nats://host:port) or a NATSJournalConfig, "
            f"got {brief(nats)}"
        )
    from urllib.parse import urlsplit  # inside: 3.6 ms of start-up a local project never needs

    for url in cfg.servers.split(","):
        parts = urlsplit(url.strip())
        try:
            port = parts.port
        except ValueError:
            port = -1
        if parts.scheme not in _NATS_SCHEMES or not parts.hostname or port == -1:
            raise InvalidArgumentError(
                f"{name}: {url.strip()!r:.120} is not a NATS server URL "
                "(nats://host:port, tls://, ws:// or wss://; several separated by commas)"
            )
    try:
        cfg.validate()
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"{name}: {exc}") from None
    return replace(cfg, codec=DeltaCodec())


# open ones (`_watch_forks`) -> the pid of the process that opened each
_FORKED: weakref.WeakKeyDictionary[NATSProjectJournal, int] = weakref.WeakKeyDictionary()
# Open projects on a local journal (`_watch_local_forks`): each CRS -> the pid that opened it
_FORKED_LOCAL: weakref.WeakKeyDictionary[CRS, int] = weakref.WeakKeyDictionary()


def _hook_forks() -> None:
    """Register `_close_in_child` once (when the first project is opened: a process that
    opens none pays nothing at a fork)."""
    on_fork_child(_close_in_child)


def _watch_forks(journal: NATSProjectJournal) -> None:
    """A child forked from this process cannot use `journal` (its connection, loop and apply
    threads stayed in the parent: a call waited forever, or on a lock held at the fork):
    in the child its CRS refuses every call at once with `CRSClosedError` (red team 7)."""
    _hook_forks()
    _FORKED[journal] = os.getpid()


def _watch_local_forks(crs: CRS) -> None:
    """A child forked from this process must not write `crs`'s project journal: it has the
    parent's descriptors (and the flock of `LOCK` with them, shared: it kept neither
    process out of the other's appends), so its changes were appended as the parent's,
    and a lock another thread held at the fork hung its calls. In the child the CRS
    refuses every change with `CRSClosedError` naming the fork, reads answer on the state
    as it was at the fork, and the journal is closed there without touching the parent's
    files or lock (`LocalJournal._forget_in_child`); `Guard.open` in the child opens the
    project as a new writer (red team 9)."""
    _hook_forks()
    _FORKED_LOCAL[crs] = os.getpid()


_free_in_child = free_in_child  # (the name the NATS project journal's code knows)


def _close_in_child() -> None:
    for journal, opener in list(_FORKED.items()):
        # A lock another thread of the parent held at the fork (the apply thread holds the
        # CRS lock while it applies a record, the follower the inbox's) is never released
        # in the child, where that thread does not exist: every call that takes it (close,
        # status) hung: each is freed in the child (`_free_in_child`, as the logging
        # module does with its own); the child refuses changes, and reads see the last state.
        crs = journal._crs
        if crs is not None:
            # the state as it was at the fork can be read (a record another thread was
            # applying then may be half applied); every change refuses
            kernel = crs._kernel
            for lock in (kernel.lock, journal._cond, getattr(kernel.history, "_lock", None)):
                if lock is not None:
                    _free_in_child(lock)
            crs._kernel.close_in_child(
                f"the project's NATS journal was opened in process {opener}, and this "
                f"is a child forked from it ({os.getpid()}): open the guard again in the child "
                "(Guard.open)"
            )
    for crs, opener in list(_FORKED_LOCAL.items()):
        kernel = crs._kernel
        for lock in (kernel.lock, getattr(kernel.history, "_lock", None)):
            if lock is not None:
                _free_in_child(lock)
        crs._journal._forget_in_child()
        if not kernel.closed or kernel.closed_why:  # (not one the parent closed itself)
            kernel.close_in_child(
                f"the project's journal was opened in process {opener}, and this is a child "
                f"forked from it ({os.getpid()}): it writes nothing there; open the guard "
                "(the project) again in the child: Guard.open (crs.open_project), a new "
                "writer of the project"
            )


class NATSProjectJournal:
    """A project's journal on NATS JetStream, written by processes on several machines.

    One subject (``crs.<key>.delta`` in the stream) holds the project's records. Every
    process follows it live (an ordered push consumer) and applies what the others append,
    in stream order, under the CRS lock: on a background thread as records arrive, and at
    the start of every commit (`exclusive`).

    There is no lock across machines; an op record (every guard record) is a compare-and-set
    instead: it is published with the sequence of the subject's last record this process
    applied (JetStream's ``Nats-Expected-Last-Subject-Sequence``), so the server stores it
    only if no other writer's record came in between. One that did is refused (nothing
    stored): `append` applies the other writers' records up to the subject's last one (from
    the live feed) and raises `AppendRaceError`, on which `StateKernel.commit_op` checks the
    record again on the caught-up state (a guard judges its call again) and sends it again.
    So a decision, once stored, was made on every record stored before it (red team 8).
    """

    sparse_sequences = True  # stream sequences: shared with other subjects, they skip
    shared = True  # CRS wraps each commit in `exclusive()`
    idempotent = True  # `append` takes a msg_id (a record sent twice is stored once)

    def __init__(self, journal: NATSJournal) -> None:
        self._journal = journal
        self._config = journal._config  # CRS reads skip_corrupted_deltas from here
        self._crs: Any = None
        self._follower: Any = None
        self._inbox: deque[DeltaOrError] = deque()
        self._cond = threading.Condition()
        self._mine: set[int] = set()
        # the last sequence of the subject this process applied (or skipped: unreadable, or
        # its own), what its next op record expects the subject's last one to be
        self._pos = 0
        self._error: BaseException | None = None
        self._closed = False
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        return f"<NATSProjectJournal {self._journal!r}>"

    # ---- what CRS uses

    def replay_stream(self, after_seq: int = 0) -> Iterator[DeltaOrError]:
        return self._journal.replay_stream(after_seq)

    def stats(self) -> JournalStats:
        return self._journal.stats()

    def last_seq(self) -> int:
        # CRS catches up when this is past its position; `exclusive` did it already.
        return int(self._crs._kernel.seq) if self._crs is not None else 0

    def set_full_handler(self, handler: object) -> None:
        """No-op: the stream is the project's memory (no local backup to checkpoint into)."""

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Apply what other writers appended (the caller holds the CRS lock)."""
        self._drain()
        yield

    def append(self, record: Any, *, msg_id: str | None = None) -> int:
        """Publish `record` (the CRS lock is held). An op record (a dict) only right after
        the subject's last record this process applied: another writer's first raises
        `AppendRaceError`, once its records (up to the subject's last) are applied.

        `msg_id`: the record's idempotency key (`NATSJournal.append`): a record whose first
        append raised but reached the server anyway is stored once when sent again with it
        (the server answers a duplicate before it looks at the expected sequence).

        (An op record's effect is applied by the CRS after this returns. A delta is applied
        before its append, so it is not conditional: other writers' records that raced it
        are applied after it, by the next commit or the background thread.)"""
        self._raise_error()
        if not isinstance(record, dict):
            seq = self._journal.append(record, msg_id=msg_id)
            with self._cond:
                self._mine.add(seq)
            self._pos = max(self._pos, seq)
            return seq
        expect = self._pos
        kernel_seq = self._crs._kernel.seq if self._crs is not None else 0
        if kernel_seq > expect:
            expect = kernel_seq
        try:
            seq, again = self._journal.append_after(record, expect, msg_id=msg_id)
        except AppendRaceError as exc:
            self._catch_up(exc.last, expect)
            raise
        with self._cond:
            self._mine.add(seq)
        if again and seq > expect:
            # a record sent again that the server had already (`msg_id`), stored after records
            # of other writers this process has not applied yet: they come first
            self._drain(until=seq)
        if seq > self._pos:
            self._pos = seq
        return seq

    def _catch_up(self, last: int, expect: int) -> None:
        """Apply the records other writers stored after `expect`, up to `last` (the subject's
        last), from the live feed, after a conditional append they raced."""
        if last < expect:
            raise JournalError(
                f"nats project journal: the stream's last record of this project is {last}, "
                f"before record {expect}, which this process applied: the project's records "
                f"were purged or deleted from stream {self._config.stream_name} while it ran "
                "(nats stream purge / rmm); nothing was stored. Open the guard (the project) "
                "again: it starts from what the stream holds"
            )
        self._drain(until=last)
        if self._pos < last:
            raise JournalUnavailableError(
                f"nats project journal: records up to {last} (another writer's, stored first) "
                f"did not come back on the live feed within {_ECHO_WAIT_S:.0f} s; nothing was "
                "stored. Retry later (the same record is stored once)"
            )

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with self._cond:
            self._cond.notify_all()
        try:
            if self._follower is not None:
                self._follower.stop()
            # The apply thread is not joined: the caller may hold the CRS lock it waits for;
            # it ends by itself once it sees the journal closed.
        finally:
            self._journal.close()

    # ---- following

    def start(self, crs: Any) -> None:
        """Follow the subject after `crs`'s position (it replayed the journal)."""
        self._crs = crs
        _watch_forks(self)
        pos = self._pos = int(crs._kernel.seq)
        self._follower = self._journal.follow(self._receive, from_seq=pos + 1 if pos else 0)
        self._thread = threading.Thread(target=self._apply_loop, name="crs-nats-apply", daemon=True)
        self._thread.start()

    def _receive(self, item: DeltaOrError) -> None:
        with self._cond:
            self._inbox.append(item)
            self._cond.notify_all()

    def _apply_loop(self) -> None:
        while not self._closed:
            with self._cond:
                while not self._inbox and not self._closed:
                    self._cond.wait(0.5)
            if self._closed or self._crs.closed:
                return
            with self._crs._lock:
                try:
                    self._drain()
                except CRSError:
                    return  # recorded in `_error`; the next append raises it

    def _drain(self, until: int = 0) -> None:
        """Apply received records of other writers in order (the CRS lock is held); with
        `until`, first wait (bounded) for that record to come back on the feed."""
        crs = self._crs
        if crs is None:
            return
        deadline = time.monotonic() + _ECHO_WAIT_S
        while True:
            with self._cond:
                while until and not self._inbox:
                    left = deadline - time.monotonic()
                    if left <= 0 or self._closed:
                        _project_log.warning(
                            "nats project journal: record %d did not come back on the live "
                            "feed within %.0f s; records before it apply late",
                            until,
                            _ECHO_WAIT_S,
                        )
                        return
                    self._cond.wait(min(left, 0.5))
                if not self._inbox:
                    return
                item = self._inbox.popleft()
                seq = item.seq_num
                mine = seq in self._mine
                self._mine.discard(seq)
                if seq > self._pos:
                    self._pos = seq
            if item.err is not None and not item.skipped:
                self._error = item.err
                if seq == 0:  # the feed itself failed, not one record
                    _project_log.error("nats project journal: live feed stopped: %s", item.err)
                    raise JournalUnavailableError(
                        f"nats project journal: the live feed stopped ({item.err}); reopen "
                        "the project"
                    )
                _project_log.error("nats project journal: record %d unreadable: %s", seq, item.err)
                raise JournalCorruptedError(f"nats project journal: record {seq}: {item.err}")
            if not mine and seq > crs._kernel.seq and item.delta is not None:
                try:
                    crs._kernel.apply_replayed(item.delta, None, seq)
                except CRSError as exc:
                    self._error = exc
                    raise
                crs._kernel.seq = seq
            if until and seq >= until:
                return

    def _raise_error(self) -> None:
        if self._error is not None:
            raise JournalError(
                f"nats project journal: stopped following the project ({self._error}); "
                "reopen the project"
            )


def open_nats_project(
    path: str | os.PathLike[str] = ".",
    nats: str | NATSJournalConfig = "nats://127.0.0.1:4222",
    *,
    config: Config | None = None,
    session_id: str = "crs",
) -> CRS:
    """The CRS of a project whose journal is a NATS JetStream stream (several machines).

    Every process that opens the project with the same server and stream shares its state:
    it replays the subject, then applies what the others append as it arrives (see
    `NATSProjectJournal`). An append returns once the server stored it (file storage), so
    nothing acknowledged is lost when a process dies. Nothing is written under a data
    directory: the stream is the project's memory.

    Args:
        path: The project directory; its key (`compute_project_hash`) names the subject
            ``crs.<key>.delta`` unless `nats` is a config with its own `session_id`.
        nats: The server URL (``nats://host:port``, several separated by commas), or a
            `NATSJournalConfig` (stream name, timeouts, limits; `session_id` names the
            project's subject, so machines that check it out at different paths share it).
        config: CRS configuration (None = `DefaultConfig()`).
        session_id: Checked as `open_project`'s (the subject is the project's, not this).

    Raises:
        InvalidArgumentError: A bad argument, named (``nats``, ``nats.<field>``).
        JournalUnavailableError: The server cannot be reached within the config's
            `connect_timeout` (2 s by default).
    """
    _check_open_args(path, None, config, session_id, None)
    # inside: start-up (asyncio) and the optional nats-py, for a NATS project only
    from crs._journal._nats import NATSJournal

    key = compute_project_hash(str(Path(path).resolve()))
    cfg = nats_journal_config(nats, key)
    try:
        inner = NATSJournal(cfg)
    except JournalUnavailableError as exc:
        raise JournalUnavailableError(
            f"nats: cannot reach the NATS server at {cfg.servers} within "
            f"{cfg.connect_timeout:g} s ({exc.__cause__ or exc!r}); start it, or check the URL"
        ) from exc
    journal = NATSProjectJournal(inner)
    try:
        crs = CRS(config, journal=journal)
        crs._own(journal)
        crs.replay_journal()
        journal.start(crs)
    except BaseException:
        journal.close()
        raise
    return crs
