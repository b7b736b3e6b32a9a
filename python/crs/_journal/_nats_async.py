"""AsyncNATSJournal: the Journal protocol on NATS JetStream, for agents on several machines.

Spec: crs-go-reference.md §3.2 with the fixes of spec README §5 item 4.

Layout in the stream (default name ``CRS_DELTAS``, file storage):

- ``crs.<session>.delta``: one message per journal entry. The message body is one record:
  4-byte big-endian CRC-32C of the payload, then the payload (the journal codec's bytes). The
  stream sequence number is the entry's sequence number; it is shared by every session of the
  stream, so sequence numbers of one session grow but are not contiguous.
- ``crs.<session>.checkpoint``: one message per checkpoint, a record whose payload is the 8-byte
  big-endian stream sequence up to which the deltas are covered (and purged).

Every publish carries a ``Nats-Msg-Id`` header, unique per entry and stable across retries, so a
publish retried after a lost acknowledgement (or flushed again after an outage) is stored once:
the server drops duplicates inside the stream's ``duplicate_window``.

`replay` reads with an ordered consumer up to the subject's last sequence, taken when the replay
starts (no idle timeout). An entry appended after the subject's last one (`append_after`: every
op record of a project) carries that sequence in its ``Nats-Expected-Last-Subject-Sequence``
header, kept by the server with the message: a reader that meets one whose predecessor it never
read reports the gap (`JournalSequenceGapError`; skipped and counted with
`skip_corrupted_deltas`), as a local journal does, instead of going on without the entry that
was deleted from the stream (`nats stream rmm`).

When the server goes away and `allow_degraded` is set, appends are kept in memory, in order
(`is_degraded()` is true) and published, with the same message ids, as soon as the connection
is back; without `allow_degraded` they raise `JournalUnavailableError`.

The public API is synchronous (`NATSJournal`: a private asyncio loop runs in a daemon thread);
`AsyncNATSJournal` offers the same operations as coroutines for asyncio agents.
Reference: docs/nats-journal.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as _dt
import itertools
import json
import logging
import re
import struct
import uuid
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Coroutine, Sequence
from typing import IO, Any, TypeVar

from crs._check import check, fail
from crs._core import crc32c
from crs._errors import (
    AppendRaceError,
    InvalidArgumentError,
    JournalClosedError,
    JournalCorruptedError,
    JournalDegradedError,
    JournalError,
    JournalFullError,
    JournalSequenceGapError,
    JournalUnavailableError,
    NilDeltaJournalError,
)
from crs._journal._base import (
    MAX_RECORD_BYTES,
    DeltaOrError,
    JournalCodec,
    JournalStats,
    JsonCodec,
    read_backup_stream,
    write_backup_stream,
)

_T = TypeVar("_T")
_log = logging.getLogger("crs.nats")

_INSTALL_HINT = "NATSJournal needs the nats-py package: pip install 'crs-agent[nats]'"
_SESSION_RE = re.compile(r"^[A-Za-z0-9_-]+$")
_WRONG_LAST_SEQ = 10071  # JetStream's err_code: an expected last (subject) sequence differs
_WRONG_LAST_RE = re.compile(r"wrong last sequence: (\d+)")
_STREAM_RE = re.compile(r"^[A-Za-z0-9_-]+$")


def _nats() -> Any:
    """Import nats-py on first use, with an install hint when it is missing."""
    try:  # inside: nats-py is an optional dependency
        import nats
        import nats.errors
        import nats.js.api
        import nats.js.errors
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    return nats


# ---------------------------------------------------------------- configuration


@dataclasses.dataclass(frozen=True, kw_only=True)
class NATSStreamConfig:
    """Limits of the JetStream stream that `ensure_stream` creates or updates.

    The defaults differ from the Go production stream (MaxMsgsPerSubject 100000, MaxAge 7 days)
    on purpose: a journal must never lose entries silently, so there is no age or count limit by
    default and the discard policy is "new": a full stream refuses the publish and `append`
    raises `JournalFullError`.

    Attributes:
        subjects: Subjects the stream captures (one project stream holds many sessions).
        max_bytes: Stream size limit in bytes; -1 is unlimited.
        max_msgs_per_subject: Entries kept per session subject; -1 is unlimited.
        max_age: Seconds an entry is kept; 0 is forever.
        duplicate_window: Seconds during which a repeated ``Nats-Msg-Id`` is dropped.
        replicas: Stream replicas (1 on a single server).
    """

    _defining_module = __name__  # its hints resolve here (`crs` re-exports it)

    subjects: tuple[str, ...] = ("crs.*.delta", "crs.*.checkpoint")
    max_bytes: int = -1
    max_msgs_per_subject: int = -1
    max_age: float = 0.0
    duplicate_window: float = 120.0
    replicas: int = 1

    def validate(self, prefix: str = "") -> None:
        """Raise `InvalidArgumentError` naming the first bad field (`name: must be …`): its
        type through `crs._check`, then its value. `prefix` leads each name."""
        check(self, prefix)
        if not self.subjects:
            fail(prefix + "subjects", "a non-empty tuple of subjects", self.subjects)
        for name in ("max_bytes", "max_msgs_per_subject"):
            if getattr(self, name) < -1 or getattr(self, name) == 0:
                fail(prefix + name, "-1 (unlimited) or positive", getattr(self, name))
        if self.max_age < 0:
            fail(prefix + "max_age", "0 (forever) or positive seconds", self.max_age)
        if self.duplicate_window <= 0:
            fail(prefix + "duplicate_window", "positive seconds", self.duplicate_window)
        if self.replicas < 1:
            fail(prefix + "replicas", "at least 1", self.replicas)


@dataclasses.dataclass(frozen=True, kw_only=True)
class NATSJournalConfig:
    """Configuration of a `NATSJournal` (the seed's NATSJournalConfig).

    The Go `JS` field (a JetStream context) becomes `servers`: the journal owns its connection.

    Attributes:
        session_id: Required; scopes the subjects (letters, digits, ``_`` and ``-``).
        stream_name: Required; the JetStream stream (created when `create_stream` is set).
        servers: NATS server URL, or several separated by commas.
        max_journal_bytes: Bytes this journal may append between checkpoints; 0 is no limit.
        allow_degraded: Keep accepting appends in memory while the server is unreachable.
        skip_corrupted_deltas: Skip (and count) records failing their CRC instead of raising.
        logger: Logger for warnings; default ``logging.getLogger("crs.nats")``.
        create_stream: Create (or update) the stream with `stream` limits when opening.
        stream: Stream limits used by `ensure_stream`.
        codec: How entries become payload bytes (default `JsonCodec`, as the local journal).
        connect_timeout: Seconds to wait for the first connection.
        request_timeout: Seconds to wait for a publish acknowledgement or an API reply.
        reconnect_wait: Seconds between reconnection attempts.
    """

    _defining_module = __name__  # its hints resolve here (`crs` re-exports it)

    session_id: str = ""
    stream_name: str = "CRS_DELTAS"
    servers: str = "nats://127.0.0.1:4222"
    max_journal_bytes: int = 0
    allow_degraded: bool = False
    skip_corrupted_deltas: bool = False
    logger: logging.Logger | None = None
    create_stream: bool = True
    stream: NATSStreamConfig = dataclasses.field(default_factory=NATSStreamConfig)
    codec: JournalCodec | None = None
    connect_timeout: float = 2.0
    request_timeout: float = 5.0
    reconnect_wait: float = 0.25

    def validate(self) -> None:
        """Raise `InvalidArgumentError` naming the first bad field."""
        check(self)
        if not self.session_id:
            fail("session_id", "a non-empty str (required)", self.session_id)
        if not _SESSION_RE.match(self.session_id):
            fail(
                "session_id",
                "letters, digits, '_' and '-' only (it is a NATS subject token)",
                self.session_id,
            )
        if not self.stream_name or not _STREAM_RE.match(self.stream_name):
            fail(
                "stream_name", "a non-empty name of letters, digits, '_' and '-'", self.stream_name
            )
        if not self.servers.strip():
            fail("servers", "at least one NATS server URL", self.servers)
        if self.max_journal_bytes < 0:
            fail(
                "max_journal_bytes",
                "0 (no limit) or a positive number of bytes",
                self.max_journal_bytes,
            )
        for name in ("connect_timeout", "request_timeout", "reconnect_wait"):
            if getattr(self, name) <= 0:
                fail(name, "positive seconds", getattr(self, name))
        if self.codec is not None and not (
            callable(getattr(self.codec, "encode", None))
            and callable(getattr(self.codec, "decode", None))
        ):
            fail("codec", "a JournalCodec (encode and decode methods) or None", self.codec)
        self.stream.validate("stream.")


# ---------------------------------------------------------------- the async journal


def seal(payload: bytes) -> bytes:
    """A NATS journal record: 4-byte big-endian CRC-32C of `payload`, then `payload`."""
    return crc32c(payload).to_bytes(4, "big") + payload


def unseal(record: bytes, *, what: str) -> bytes:
    """The payload of a record; `JournalCorruptedError` naming `what` if the CRC fails."""
    if len(record) < 4:
        raise JournalCorruptedError(f"{what}: record too short ({len(record)} bytes)")
    stored = int.from_bytes(record[:4], "big")
    payload = record[4:]
    computed = crc32c(payload)
    if stored != computed:
        raise JournalCorruptedError(
            f"{what}: CRC-32C mismatch stored={stored:08x} computed={computed:08x}"
        )
    return payload


def _gap(subject: str, missing: int, seq: int) -> JournalSequenceGapError:
    """`subject`'s entry `missing` is gone: the entry at `seq` was stored right after it."""
    return JournalSequenceGapError(
        f"nats journal: {subject} seq {missing} is missing: the entry at seq {seq} was stored "
        "right after it, but the stream no longer holds it (deleted after it was written: "
        "nats stream rmm, a delete-message request). Entries are lost; restore a backup, or "
        "open with skip_corrupted_deltas to go on without them"
    )


def _server_away(what: str) -> JournalDegradedError:
    """`JournalDegradedError` for what needs the server while it cannot be reached."""
    problem = f"nats journal: {what} while the server is unreachable"
    fix = "retry once the NATS server is reachable again"
    return JournalDegradedError(f"{problem}; {fix}", problem=problem, fix=fix)


def _checkpoint_record(seq: int) -> bytes:
    return seal(struct.pack(">Q", seq))


class AsyncNATSJournal:
    """The NATS journal for asyncio agents; every operation is a coroutine.

    Open it with ``journal = await AsyncNATSJournal.open(config)``; `NATSJournal` wraps it
    for synchronous code.
    """

    def __init__(self, config: NATSJournalConfig) -> None:
        config.validate()
        self._config = config
        self._codec: JournalCodec = config.codec if config.codec is not None else JsonCodec()
        self._log = config.logger or _log
        self._delta_subject = f"crs.{config.session_id}.delta"
        self._checkpoint_subject = f"crs.{config.session_id}.checkpoint"
        self._nc: Any = None
        self._js: Any = None
        self._acks: _AckInbox
        self._lock = asyncio.Lock()
        self._closed = False
        self._connected = False
        self._degraded = False
        self._pending: deque[tuple[str, bytes, int]] = deque()  # (msg id, record, size)
        self._pending_bytes = 0
        self._writer_id = uuid.uuid4().hex[:12]
        self._counter = itertools.count(1)
        self._last_seq = 0
        self._total_bytes = 0
        self._corrupted = 0
        self._last_checkpoint: _dt.datetime | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # ---- lifecycle

    @classmethod
    async def open(cls, config: NATSJournalConfig) -> AsyncNATSJournal:
        """Connect, ensure the stream if configured, and read the last sequence number.

        Raises:
            JournalUnavailableError: The server cannot be reached and `allow_degraded` is off.
        """
        journal = cls(config)
        await journal._start()
        return journal

    async def _start(self) -> None:
        try:
            await self._connect()
        except BaseException as exc:
            self._connected = False
            if self._nc is not None:
                with contextlib.suppress(Exception):
                    await self._nc.close()
                self._nc = None
            if not isinstance(exc, JournalUnavailableError):
                raise
            if not self._config.allow_degraded:
                raise
            self._log.warning(
                "nats journal %s: server unreachable, starting degraded", self._delta_subject
            )
            self._degraded = True
            self._spawn(self._connect_later())

    async def _connect(self) -> None:
        nats = _nats()
        cfg = self._config
        servers = [s.strip() for s in cfg.servers.split(",") if s.strip()]
        try:
            self._nc = await nats.connect(
                servers,
                connect_timeout=cfg.connect_timeout,
                reconnect_time_wait=cfg.reconnect_wait,
                # nats-py retries a failed *first* connection forever when this is -1, so
                # connect with a bounded count and switch to "forever" once connected.
                max_reconnect_attempts=1,
                allow_reconnect=True,
                disconnected_cb=self._on_disconnected,
                reconnected_cb=self._on_reconnected,
                error_cb=self._on_error,
                name=f"crs-journal-{cfg.session_id}",
            )
        except (OSError, TimeoutError, nats.errors.Error) as exc:
            raise JournalUnavailableError(
                f"nats journal: cannot connect to {cfg.servers}: {exc!r}; start the server "
                "or set allow_degraded=True"
            ) from exc
        self._nc.options["max_reconnect_attempts"] = -1
        self._js = self._nc.jetstream(timeout=cfg.request_timeout)
        self._acks = _AckInbox(self._nc)
        async with self._guard("open"):
            if cfg.create_stream:
                await self.ensure_stream()
            else:
                await self._js.stream_info(cfg.stream_name)
            self._last_seq = await self._last_subject_seq(self._delta_subject)
        self._connected = True

    async def _connect_later(self) -> None:
        while not self._closed and self._nc is None:
            await asyncio.sleep(self._config.reconnect_wait)
            try:
                await self._connect()
            except JournalError:
                self._connected = False
                if self._nc is not None:
                    await self._nc.close()
                    self._nc = None
                continue
            await self._recover()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _on_disconnected(self) -> None:
        self._connected = False
        if self._config.allow_degraded and not self._closed and not self._degraded:
            self._log.warning(
                "nats journal %s: server unavailable, degraded (entries kept in memory)",
                self._delta_subject,
            )
            self._degraded = True

    async def _on_reconnected(self) -> None:
        self._connected = True
        self._spawn(self._recover())

    async def _on_error(self, exc: Exception) -> None:
        self._log.debug("nats journal %s: %r", self._delta_subject, exc)

    async def close(self) -> None:
        """Mark the journal closed and close its connection. Idempotent.

        Entries still held in memory in degraded mode are lost (a warning says how many).
        """
        if self._closed:
            return
        self._closed = True
        if self._pending:
            self._log.warning(
                "nats journal %s closed with %d undelivered degraded entries",
                self._delta_subject,
                len(self._pending),
            )
        for task in list(self._tasks):
            task.cancel()
        if self._nc is not None:
            with contextlib.suppress(OSError, TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(self._nc.close(), self._config.request_timeout)

    # ---- helpers

    def _guard(self, what: str) -> _NatsErrors:
        return _NatsErrors(self, what)

    def _check_open(self) -> None:
        if self._closed:
            raise JournalClosedError("nats journal is closed; open a new one")

    async def _last_subject_seq(self, subject: str) -> int:
        nats = _nats()
        try:
            msg = await self._js.get_last_msg(self._config.stream_name, subject)
        except nats.js.errors.NotFoundError:
            pass
        else:
            return int(msg.seq)
        # No last message: the subject is empty, or (nats-server 2.9) its last message was
        # deleted (`nats stream rmm`) and the server lost track of the ones before it, which
        # the stream still holds: a replay would then read none of them (red team 12)
        try:
            info = await self._js.stream_info(self._config.stream_name, subjects_filter=subject)
        except nats.js.errors.NotFoundError:
            return 0
        held = int(((info.state.subjects if info.state else None) or {}).get(subject, 0))
        if held:
            raise JournalSequenceGapError(
                f"stream {self._config.stream_name} holds {held} records of {subject} but "
                "no last one: its last record was deleted (nats stream rmm); restore the "
                "session from a backup (crs backup restore), or purge the subject to start "
                "it afresh"
            )
        return 0

    async def _checkpoint_seq(self) -> int:
        nats = _nats()
        try:
            msg = await self._js.get_last_msg(self._config.stream_name, self._checkpoint_subject)
        except nats.js.errors.NotFoundError:
            return 0
        payload = unseal(msg.data or b"", what=f"checkpoint record at seq {msg.seq}")
        if len(payload) != 8:
            raise JournalCorruptedError(
                f"checkpoint record at seq {msg.seq} holds {len(payload)} bytes, expected 8"
            )
        return int(struct.unpack(">Q", payload)[0])

    def _next_msg_id(self) -> str:
        return f"{self._config.session_id}.{self._writer_id}.{next(self._counter)}"

    async def _publish(self, subject: str, record: bytes, msg_id: str) -> Any:
        return await self._js.publish(
            subject, record, timeout=self._config.request_timeout, headers={"Nats-Msg-Id": msg_id}
        )

    # ---- stream

    async def ensure_stream(self, stream: NATSStreamConfig | None = None) -> dict[str, Any]:
        """Create the stream with file storage, or update its limits; return its state.

        Args:
            stream: Limits to apply; default the configuration's `stream`.
        """
        self._check_open()
        nats = _nats()
        api = nats.js.api
        limits = stream or self._config.stream
        limits.validate()
        sc = api.StreamConfig(
            name=self._config.stream_name,
            subjects=list(limits.subjects),
            storage=api.StorageType.FILE,
            discard=api.DiscardPolicy.NEW,
            max_bytes=limits.max_bytes,
            max_msgs_per_subject=limits.max_msgs_per_subject,
            max_age=limits.max_age or None,
            duplicate_window=limits.duplicate_window,
            num_replicas=limits.replicas,
        )
        async with self._guard("ensure_stream"):
            for attempt in range(3):
                try:
                    info = await self._js.stream_info(self._config.stream_name)
                except nats.js.errors.NotFoundError:
                    try:
                        info = await self._js.add_stream(sc)
                    except (nats.js.errors.APIError, TimeoutError):
                        # Two agents opening one project stream at once: the other created
                        # it between our lookup and our create ("name already in use" or
                        # "subjects overlap"), or our create's reply never came: a known
                        # nats-server behaviour with parallel creates of one stream
                        # (nats-io/nats-server#3677 on 2.9.8, our Debian server is 2.9.10;
                        # reported again on 2.14.3): the racing requests time out although
                        # the stream was created, and a retry succeeds. So look it up again
                        # and update it instead.
                        if attempt == 2:
                            raise
                        continue
                except TimeoutError:  # the lookup's reply was lost the same way: ask again
                    if attempt == 2:
                        raise
                    continue
                else:
                    merged = set(info.config.subjects or []) | set(limits.subjects)
                    sc.subjects = sorted(merged)
                    info = await self._js.update_stream(sc)
                break
        return {"name": self._config.stream_name, "messages": info.state.messages}

    # ---- writing

    async def append(self, delta: Any, *, msg_id: str | None = None) -> int:
        """Publish one entry and wait for the server's acknowledgement.

        Args:
            delta: A delta (anything the codec encodes) or a plain dict entry.
            msg_id: Idempotency key; a second append with the same key inside the stream's
                duplicate window is dropped by the server. Default: a fresh unique id.

        Returns:
            The entry's stream sequence number (0 when it was kept in memory, degraded).

        Raises:
            NilDeltaJournalError: `delta` is None.
            JournalClosedError, JournalFullError, JournalUnavailableError.
        """
        if delta is None:
            raise NilDeltaJournalError("delta must not be None")
        return (await self._append_records([(self._encode(delta), msg_id)]))[0]

    async def append_after(
        self, delta: Any, last_seq: int, *, msg_id: str | None = None
    ) -> tuple[int, bool]:
        """Publish one entry only if the last entry of the subject is `last_seq` (0: none),
        with JetStream's ``Nats-Expected-Last-Subject-Sequence``: a compare-and-set across
        the writers of the subject, in the publish's one round trip.

        Returns:
            (the entry's sequence, whether the server had it already: a retry under the same
            `msg_id`, which the server answers with the first one's sequence, whatever
            `last_seq` says: duplicates are detected before the expected sequence).

        Raises:
            AppendRaceError: Another writer's entry came first (nothing stored); its `last`
                is the subject's last sequence.
            JournalUnavailableError: The server is away (a conditional entry is never kept
                in memory, even with `allow_degraded`).
        """
        if delta is None:
            raise NilDeltaJournalError("delta must not be None")
        if isinstance(last_seq, bool) or not isinstance(last_seq, int) or last_seq < 0:
            raise InvalidArgumentError(f"last_seq: must be an int >= 0, got {last_seq!r}")
        return await self._append_records([(self._encode(delta), msg_id)], expect=last_seq)

    async def append_batch(self, deltas: Sequence[Any], *, msg_id: str | None = None) -> int:
        """Publish entries in order (pipelined, acknowledged before returning).

        Not atomic: JetStream has no multi-message transaction, so after a failure a prefix
        of the batch may be stored. Give `msg_id` (entry i gets ``<msg_id>.<i>``) to make a
        retried batch store each entry once.

        Returns:
            The last entry's sequence number (0 when kept in memory, degraded).
        """
        if isinstance(deltas, str | bytes) or not isinstance(deltas, Sequence):
            raise InvalidArgumentError("deltas must be a sequence of entries")
        if not deltas:
            raise InvalidArgumentError("deltas must not be empty")
        records: list[tuple[bytes, str | None]] = []
        for i, delta in enumerate(deltas):
            if delta is None:
                raise NilDeltaJournalError(f"delta at index {i} must not be None")
            records.append((self._encode(delta), None if msg_id is None else f"{msg_id}.{i}"))
        return (await self._append_records(records))[0]

    def _encode(self, delta: Any) -> bytes:
        payload = self._codec.encode(delta)
        if len(payload) > MAX_RECORD_BYTES:
            raise InvalidArgumentError(
                f"delta encodes to {len(payload)} bytes; the limit is {MAX_RECORD_BYTES}"
            )
        return seal(payload)

    async def _append_records(
        self, records: list[tuple[bytes, str | None]], expect: int | None = None
    ) -> tuple[int, bool]:
        """Publish `records`; (the last sequence, whether the server had it already). With
        `expect` (one record): only after the subject's last sequence `expect`."""
        self._check_open()
        size = sum(len(r) for r, _ in records)
        cfg = self._config
        # Entries held in memory (degraded) count too, so an outage cannot grow memory past it.
        held = self._total_bytes + self._pending_bytes
        if cfg.max_journal_bytes > 0 and held + size > cfg.max_journal_bytes:
            raise JournalFullError(
                f"journal holds {held} bytes, the batch needs {size} more and "
                f"max_journal_bytes is {cfg.max_journal_bytes}; checkpoint it or raise the limit"
            )
        items = [(mid or self._next_msg_id(), rec, len(rec)) for rec, mid in records]
        async with self._lock:
            if self._pending:
                await self._flush_pending()
            if self._pending or not self._connected:
                self._degrade(items, None, expect)
                return 0, False
            done = 0
            last, dup = 0, False
            futs: list[asyncio.Future[tuple[int, bool]]] = []
            try:
                # Pipelined: every publish is sent before the first acknowledgement is awaited,
                # under one timer for the whole unit (a timer per message costs more than the
                # publish). One connection keeps them in order; sequences increase.
                for mid, rec, _ in items:
                    futs.append(await self._acks.publish(self._delta_subject, rec, mid, expect))
                async with asyncio.timeout(self._config.request_timeout):
                    for fut in futs:
                        last, dup = await fut
                        self._last_seq = max(self._last_seq, last)
                        self._total_bytes += items[done][2]
                        done += 1
            except Exception as exc:
                for fut in futs:
                    fut.cancel()
                errs = _nats().js.errors
                if isinstance(exc, errs.NoStreamResponseError):
                    await self._stream_gone(exc, len(items) - done)
                if isinstance(exc, errs.APIError) and exc.err_code == _WRONG_LAST_SEQ:
                    await self._raced(exc, expect)
                self._on_publish_error(exc, items[done:], expect)
                return 0, False
            return last, dup

    async def _raced(self, exc: Exception, expect: int | None) -> None:
        """A conditional publish refused: another writer's entry came first (red team 8)."""
        got = _WRONG_LAST_RE.search(str(getattr(exc, "description", "") or ""))
        if got is not None:
            last = int(got.group(1))
        else:  # (a server that words it otherwise: ask)
            async with self._guard("append"):
                last = await self._last_subject_seq(self._delta_subject)
        raise AppendRaceError(
            f"nats journal: {self._delta_subject} moved on (its last entry is {last}, the "
            f"entry expected {expect}): another writer appended first; nothing was stored",
            last=last,
        ) from exc

    async def _stream_gone(self, exc: Exception, n: int) -> None:
        """No stream answered a publish: a server still starting (unavailable: retry), or the
        stream deleted under the journal, which no retry or degraded buffer can store into.
        The latter raises a `JournalError` that says so (red team 7)."""
        nats = _nats()
        name = self._config.stream_name
        try:
            async with asyncio.timeout(self._config.request_timeout):
                await self._js.stream_info(name)
        except nats.js.errors.NotFoundError:
            raise JournalError(
                f"nats journal: stream {name} no longer exists on {self._config.servers} "
                f"(deleted); {n} entries not stored, and what it held is gone. Open the "
                "journal again (create_stream=True creates the stream; Guard.open does), or "
                "restore it from a backup"
            ) from exc
        except Exception:  # (unanswered too: the server's own state tells nothing yet)
            return

    def _on_publish_error(
        self, exc: Exception, rest: list[tuple[str, bytes, int]], expect: int | None = None
    ) -> None:
        nats = _nats()
        errs = nats.js.errors
        if isinstance(exc, errs.APIError):
            # JetStream reports a full stream as 503 "maximum bytes/messages exceeded".
            if "maximum" in str(exc.description or "").lower():
                raise JournalFullError(
                    f"stream {self._config.stream_name} refused the entry: {exc.description}; "
                    "checkpoint the journal or raise the stream limits"
                ) from exc
            if not isinstance(exc, errs.ServiceUnavailableError):
                raise JournalError(f"nats journal: publish failed: {exc}") from exc
        if isinstance(exc, OSError | TimeoutError | nats.errors.Error | asyncio.CancelledError):
            self._degrade(rest, exc, expect)
            return
        raise exc

    def _degrade(
        self,
        items: list[tuple[str, bytes, int]],
        exc: BaseException | None,
        expect: int | None = None,
    ) -> None:
        if expect is not None:
            # a conditional entry holds only now: never kept to be sent later
            raise JournalUnavailableError(
                f"nats journal: server at {self._config.servers} unavailable "
                f"({repr(exc) if exc else 'disconnected'}); the entry (conditional on the "
                f"subject's last sequence {expect}) was not acknowledged. Retry later (a "
                "retried append with the same msg_id is stored once)"
            ) from exc
        if not self._config.allow_degraded:
            reason = repr(exc) if exc else "disconnected"
            raise JournalUnavailableError(
                f"nats journal: server at {self._config.servers} unavailable ({reason}); "
                f"{len(items)} entries not acknowledged. Retry later (a retried append with the "
                "same msg_id is stored once) or set allow_degraded=True"
            ) from exc
        if not self._degraded:
            self._log.warning(
                "nats journal %s: server unavailable, degraded (entries kept in memory)",
                self._delta_subject,
            )
        self._degraded = True
        self._pending.extend(items)
        self._pending_bytes += sum(size for _, _, size in items)

    async def _flush_pending(self) -> None:
        """Publish entries kept in degraded mode, in order, with their original ids."""
        while self._pending and self._connected and self._js is not None:
            mid, rec, size = self._pending[0]
            try:
                ack = await self._publish(self._delta_subject, rec, mid)
            except Exception as exc:
                # Stay degraded (the entries stay in memory, in order); retried on the next
                # append or reconnection.
                self._log.warning("nats journal %s: flush failed: %r", self._delta_subject, exc)
                return
            self._pending.popleft()
            self._pending_bytes -= size
            self._last_seq = max(self._last_seq, int(ack.seq))
            self._total_bytes += size
        if not self._pending and self._degraded and self._connected:
            self._degraded = False
            self._log.warning("nats journal %s recovered", self._delta_subject)

    async def _recover(self) -> None:
        while not self._closed and self._connected:
            async with self._lock:
                await self._flush_pending()
                if not self._degraded:
                    return
            await asyncio.sleep(self._config.reconnect_wait)

    async def sync(self) -> None:
        """No-op: a JetStream file-storage acknowledgement is already durable."""
        self._check_open()

    # ---- reading

    async def replay(self, after_seq: int = 0) -> list[Any]:
        """All entries after the last checkpoint (and after `after_seq`), in order, CRC-checked.

        Raises:
            JournalCorruptedError: A record failed its CRC (unless `skip_corrupted_deltas`).
            JournalSequenceGapError: An entry was deleted from the stream (unless
                `skip_corrupted_deltas`): an entry written right after it says it came first.
            JournalDegradedError: The server is unreachable.
        """
        out: list[Any] = []
        async for chunk in self.replay_chunks(after_seq):
            for item in chunk:
                if item.err is not None and not item.skipped:
                    raise item.err
                if item.delta is not None:
                    out.append(item.delta)
        return out

    async def replay_stream(self, after_seq: int = 0) -> AsyncIterator[DeltaOrError]:
        """Yield a `DeltaOrError` per entry since the checkpoint; stops after the first error."""
        async for chunk in self.replay_chunks(after_seq):
            for item in chunk:
                yield item

    async def replay_chunks(
        self, after_seq: int = 0, chunk: int = 512
    ) -> AsyncGenerator[list[DeltaOrError]]:
        """`replay_stream` in lists of up to `chunk` items (fewer loop hand-offs)."""
        if isinstance(after_seq, bool) or not isinstance(after_seq, int) or after_seq < 0:
            raise InvalidArgumentError("after_seq must be an int >= 0")
        self._check_open()
        if not self._connected:
            raise _server_away(f"cannot replay {self._delta_subject}")
        async with self._guard("replay"):
            start = max(await self._checkpoint_seq(), after_seq) + 1
            end = await self._last_subject_seq(self._delta_subject)
        if end < start:
            return
        buf: list[DeltaOrError] = []
        async for seq, data in self._read(start, end):
            item = self._decode(seq, data)
            buf.append(item)
            stop = item.err is not None and not item.skipped
            if len(buf) >= chunk or stop:
                yield buf
                buf = []
            if stop:
                return
        if buf:
            yield buf

    def _decode(self, seq: int, data: bytes | JournalSequenceGapError) -> DeltaOrError:
        if isinstance(data, JournalSequenceGapError):
            if self._config.skip_corrupted_deltas:
                self._corrupted += 1
                self._log.warning("skipping lost entries: %s", data)
                return DeltaOrError(seq_num=seq, err=data, skipped=True)
            return DeltaOrError(seq_num=seq, err=data)
        try:
            entry = self._codec.decode(unseal(data, what=f"{self._delta_subject} seq {seq}"))
        except JournalCorruptedError as exc:
            if self._config.skip_corrupted_deltas:
                self._corrupted += 1
                self._log.warning("skipping corrupted entry: %s", exc)
                return DeltaOrError(seq_num=seq, err=exc, skipped=True)
            return DeltaOrError(seq_num=seq, err=exc)
        return DeltaOrError(delta=entry, seq_num=seq)

    async def _read(
        self, start: int, end: int | None
    ) -> AsyncIterator[tuple[int, bytes | JournalSequenceGapError]]:
        """Ordered-consumer read of the delta subject from `start` (to `end`, or forever);
        an entry found deleted comes as (its seq, the gap error) before the one after it."""
        nats = _nats()
        api = nats.js.api
        cc = api.ConsumerConfig(
            deliver_policy=api.DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=max(start, 1)
        )
        # A callback subscription feeding a bounded queue: 5x faster than `next_msg` (which
        # starts a timer task per message). A full queue blocks the callback, so nats-py stops
        # answering flow control and the server pauses: memory stays bounded.
        queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=8192)

        async def on_msg(msg: Any) -> None:
            await queue.put(msg)

        last = max(start, 1) - 1  # the last entry of the subject delivered (or before start)
        async with self._guard("subscribe"):
            sub = await self._js.subscribe(
                self._delta_subject,
                stream=self._config.stream_name,
                ordered_consumer=True,
                config=cc,
                idle_heartbeat=1.0,
                cb=on_msg,
            )
        try:
            while True:
                try:
                    msg = queue.get_nowait()
                except asyncio.QueueEmpty:
                    if end is None:
                        msg = await queue.get()
                    else:
                        try:
                            msg = await asyncio.wait_for(queue.get(), self._config.request_timeout)
                        except TimeoutError as exc:
                            raise JournalError(
                                f"nats journal: replay of {self._delta_subject} stalled before "
                                f"sequence {end}; the server may be overloaded or unreachable"
                            ) from exc
                seq = int(msg.metadata.sequence.stream)
                hdrs = msg.headers
                if hdrs:
                    prior = hdrs.get("Nats-Expected-Last-Subject-Sequence")
                    # A conditional entry was stored right after the subject's entry `prior`
                    # (the server checked it): one not delivered before it is gone, deleted
                    # from the stream since (`nats stream rmm`, JetStream's delete-message
                    # API); reported, never passed over in silence (rt12).
                    if prior and prior.isdigit() and int(prior) > last:
                        yield int(prior), _gap(self._delta_subject, int(prior), seq)
                if seq > last:  # (an entry delivered again, after a reconnect, moves nothing)
                    last = seq
                yield seq, msg.data
                if end is not None and seq >= end:
                    return
        finally:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()

    async def follow(self, from_seq: int = 0) -> AsyncIterator[DeltaOrError]:
        """Yield every entry from the checkpoint (or `from_seq`) on, then live ones, forever.

        A read replica: ordered and gap-free per subject (the ordered consumer restarts
        itself after a reconnect). Stop by breaking out of the loop.
        """
        self._check_open()
        if from_seq <= 0:
            async with self._guard("follow"):
                from_seq = await self._checkpoint_seq() + 1
        async for seq, data in self._read(from_seq, None):
            yield self._decode(seq, data)

    # ---- checkpoint, backup, restore, stats

    async def checkpoint(self, seq: int | None = None) -> None:
        """Publish `seq` (default: the last) to the checkpoint subject, then purge up to it.

        Raises:
            InvalidArgumentError: `seq` is negative or above the last sequence number.
            JournalDegradedError: Entries are still held in memory (server unreachable).
        """
        self._check_open()
        if self._degraded or not self._connected:
            raise _server_away("cannot checkpoint (entries are held in memory)")
        async with self._lock, self._guard("checkpoint"):
            last = await self._last_subject_seq(self._delta_subject)
            if seq is None:
                seq = last
            elif isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= last:
                raise InvalidArgumentError(
                    f"seq must be an int in 0..{last} (the last sequence number)"
                )
            if seq == 0 or seq <= await self._checkpoint_seq():
                return
            await self._publish(
                self._checkpoint_subject,
                _checkpoint_record(seq),
                f"{self._config.session_id}.checkpoint.{seq}",
            )
            try:
                await self._js.purge_stream(
                    self._config.stream_name, seq=seq + 1, subject=self._delta_subject
                )
            except Exception as exc:
                self._log.warning("checkpoint purge of %s failed: %r", self._delta_subject, exc)
            if seq == last:
                self._total_bytes = 0
            self._last_checkpoint = _dt.datetime.now(_dt.UTC)

    async def backup(self, stream: IO[bytes]) -> None:
        """Write every live entry to `stream` in the portable backup format of every journal.

        Frames of a 4-byte big-endian length and a body (header, one per record, trailer; see
        `crs._journal._base.write_backup_stream`). Entries are numbered 1..n in the backup (stream
        sequences are shared by sessions), so a backup restores into any journal.
        """
        self._check_open()
        if not self._connected:
            raise _server_away("cannot back up")
        records: list[tuple[int, bytes]] = []
        async with self._guard("backup"):
            start = await self._checkpoint_seq() + 1
            end = await self._last_subject_seq(self._delta_subject)
        if end >= start:
            async for seq, data in self._read(start, end):
                try:
                    if isinstance(data, JournalSequenceGapError):
                        raise data
                    payload = unseal(data, what=f"{self._delta_subject} seq {seq}")
                except (JournalCorruptedError, JournalSequenceGapError):
                    if not self._config.skip_corrupted_deltas:
                        raise
                    self._corrupted += 1
                    continue
                records.append((len(records) + 1, payload))
        write_backup_stream(stream, 0, records)

    async def restore(self, stream: IO[bytes]) -> None:
        """Replace this session's entries with a backup stream (from any journal).

        The whole stream is read and checked (CRC-32C, sequence, trailer) before anything
        changes; then the session's subjects are purged and the entries published in order.

        Raises:
            JournalCorruptedError: The backup is truncated or fails a check; nothing changed.
        """
        self._check_open()
        _, records = read_backup_stream(stream)
        payloads = [payload for _, payload in records]
        restore_id = uuid.uuid4().hex[:12]
        async with self._guard("restore"):
            async with self._lock:
                for subject in (self._delta_subject, self._checkpoint_subject):
                    await self._js.purge_stream(self._config.stream_name, subject=subject)
                self._total_bytes = 0
            for start in range(0, len(payloads), 256):
                part = payloads[start : start + 256]
                await self._append_records(
                    [
                        (seal(p), f"{self._config.session_id}.restore.{restore_id}.{start + k}")
                        for k, p in enumerate(part)
                    ]
                )
        self._corrupted = 0

    def is_available(self) -> bool:
        """True when the journal is open, connected and not degraded."""
        return not self._closed and self._connected and not self._degraded

    def is_degraded(self) -> bool:
        """True while entries are held in memory because the server is unreachable."""
        return self._degraded

    async def stats(self) -> JournalStats:
        """Counters; `total_deltas` comes from the stream's per-subject count when reachable."""
        total, cp = -1, 0
        if self._connected and not self._closed and self._js is not None:
            try:
                cp = await self._checkpoint_seq()
                info = await self._js.stream_info(
                    self._config.stream_name, subjects_filter=self._delta_subject
                )
                total = int((info.state.subjects or {}).get(self._delta_subject, 0))
            except Exception as exc:
                self._log.debug("stream info failed: %r", exc)
        if total < 0:
            total = 0
        return JournalStats(
            total_deltas=total + len(self._pending),
            total_bytes=self._total_bytes + self._pending_bytes,
            last_seq_num=self._last_seq,
            last_checkpoint=self._last_checkpoint,
            corrupted_count=self._corrupted,
            degraded=self._degraded,
            checkpoint_seq=cp,
        )


class _AckInbox:
    """Pipelined JetStream publishes: one reply subscription, a future per message.

    nats-py's `publish_async` loses server errors (its reply handler raises instead of
    failing the future, so a refused publish waits for the timeout); this resolves each
    future with the stream sequence, or with the server's error.
    """

    def __init__(self, nc: Any) -> None:
        self._nc = nc
        self._prefix = f"{nc.new_inbox()}."
        self._futs: dict[str, asyncio.Future[tuple[int, bool]]] = {}
        self._ids = itertools.count(1)
        self._sub: Any = None

    async def publish(
        self, subject: str, record: bytes, msg_id: str, expect: int | None = None
    ) -> asyncio.Future[tuple[int, bool]]:
        """Send one publish; its future is (sequence, duplicate) or the server's error.
        `expect`: the subject's last sequence the server must have (else err_code 10071)."""
        if self._sub is None:
            self._sub = await self._nc.subscribe(f"{self._prefix}*", cb=self._on_reply)
        token = str(next(self._ids))
        fut: asyncio.Future[tuple[int, bool]] = asyncio.get_running_loop().create_future()
        self._futs[token] = fut
        fut.add_done_callback(lambda _: self._futs.pop(token, None))
        # Only the id (and the condition): headers are stored with every message and parsed
        # again on each replay (the subject already maps to exactly one stream).
        if expect is None:
            headers = {"Nats-Msg-Id": msg_id}
        else:
            headers = {"Nats-Msg-Id": msg_id, "Nats-Expected-Last-Subject-Sequence": str(expect)}
        await self._nc.publish(subject, record, reply=self._prefix + token, headers=headers)
        return fut

    async def _on_reply(self, msg: Any) -> None:
        fut = self._futs.get(msg.subject[len(self._prefix) :])
        if fut is None or fut.done():
            return
        errs = _nats().js.errors
        if msg.headers and msg.headers.get("Status") == "503":
            fut.set_exception(errs.NoStreamResponseError())
            return
        try:
            resp = json.loads(msg.data)
        except ValueError as exc:
            fut.set_exception(exc)
            return
        err = resp.get("error")
        if err:
            cls = errs.ServiceUnavailableError if err.get("code") == 503 else errs.APIError
            fut.set_exception(
                cls(
                    code=err.get("code"),
                    description=err.get("description"),
                    err_code=err.get("err_code"),
                )
            )
            return
        fut.set_result((int(resp["seq"]), bool(resp.get("duplicate"))))


class _NatsErrors:
    """Async context translating nats-py errors into journal errors (style practice 14)."""

    def __init__(self, journal: AsyncNATSJournal, what: str) -> None:
        self._j = journal
        self._what = what

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, et: Any, exc: BaseException | None, tb: Any) -> bool:
        if exc is None or isinstance(exc, JournalError | InvalidArgumentError):
            return False
        nats = _nats()
        if isinstance(exc, nats.js.errors.NotFoundError):
            raise JournalError(
                f"nats journal {self._what}: stream {self._j._config.stream_name} not found; "
                "call ensure_stream() or set create_stream=True"
            ) from exc
        errs = nats.js.errors
        if isinstance(exc, errs.APIError) and not isinstance(exc, errs.ServiceUnavailableError):
            raise JournalError(
                f"nats journal {self._what}: the server refused: {exc.description or exc!r}"
            ) from exc
        if isinstance(exc, OSError | TimeoutError | nats.errors.Error):
            raise JournalUnavailableError(
                f"nats journal {self._what}: server {self._j._config.servers} unavailable: {exc!r}"
            ) from exc
        return False
