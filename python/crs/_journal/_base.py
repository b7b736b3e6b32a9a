"""The write-ahead journal: the `Journal` protocol, its configuration, codecs and `MemoryJournal`.

A journal stores *entries* (deltas, or any other operation the CRS records) as opaque payloads
produced by a `JournalCodec`; it assigns each a sequence number that never skips, and gives them
back in order on replay. `LocalJournal` (in `_local_journal`) is the durable default;
`MemoryJournal` keeps everything in memory for tests and throw-away sessions.

The portable backup stream shared by every journal (`write_backup_stream`,
`read_backup_stream`) is a sequence of frames, each a 4-byte big-endian length and a body:
a header frame, one frame per record, and a trailer frame (docs/journal-format.md).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import enum
import gc
import json
import logging
import os
import struct
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import IO, Any, Protocol, Self, runtime_checkable

from crs._check import check, fail
from crs._core import crc32c
from crs._errors import (
    InvalidArgumentError,
    JournalClosedError,
    JournalCorruptedError,
    JournalError,
    JournalFullError,
    JournalSequenceGapError,
    NilDeltaJournalError,
)
from crs._state._codec import DeltaCodec
from crs._state._deltas import Delta

__all__ = [
    "DEFAULT_MAX_JOURNAL_BYTES",
    "DEFAULT_SEGMENT_BYTES",
    "MAX_RECORD_BYTES",
    "BytesCodec",
    "DefaultJournalConfig",
    "DeltaOrError",
    "Journal",
    "JournalCodec",
    "JournalConfig",
    "JournalStats",
    "JsonCodec",
    "MemoryJournal",
    "SyncPolicy",
    "read_backup_stream",
    "write_backup_stream",
]

DEFAULT_MAX_JOURNAL_BYTES = 1 << 30
"""Default size limit of a journal (1 GiB), as in the Go package."""
DEFAULT_SEGMENT_BYTES = 16 << 20
"""Default size of a local journal segment file (16 MiB)."""
MAX_RECORD_BYTES = 64 << 20
"""Largest encoded entry a journal accepts (64 MiB)."""

_log = logging.getLogger("crs.journal")


class SyncPolicy(enum.StrEnum):
    """When the local journal forces appended records to stable storage."""

    ALWAYS = "always"
    """fsync (fdatasync) before every `append`/`append_batch` returns."""
    BATCH = "batch"
    """Group commit: an append returns after an fsync covering it; concurrent appends share one."""
    NONE = "none"
    """No fsync on append; only `sync()`, segment rolls and `close()` force data out."""


@dataclass(frozen=True, kw_only=True)
class JournalConfig:
    """How a journal behaves. `DefaultJournalConfig()` gives the production defaults.

    Attributes:
        path: Directory of a local journal. Required unless `in_memory`.
        session_id: The session this journal belongs to. Required.
        sync_writes: Go's switch for durable writes; used when `sync_policy` is None
            (True means `SyncPolicy.ALWAYS`, False `SyncPolicy.NONE`).
        max_journal_bytes: Size limit of the live journal; 0 disables it.
        allow_degraded: Run in memory (not durable) when the journal cannot be opened.
        skip_corrupted_deltas: Skip and count corrupt records on replay instead of raising.
        in_memory: Keep the journal in memory (no path needed).
        logger: Logger for journal events (default: the `crs.journal` logger).
        sync_policy: `SyncPolicy` (or its string value); None derives it from `sync_writes`.
        batch_interval: Seconds a group-commit leader waits for more appends before its fsync.
        segment_bytes: Size of a segment file; 0 means `DEFAULT_SEGMENT_BYTES`.
        preallocate: New segments are *preallocated* (`LocalJournal`; header flag bit 1,
            docs/journal-format.md): once a segment holds 4 KiB, its space is allocated ahead
            with `posix_fallocate` in chunks (16 KiB, growing with the data to 1 MiB, never
            past `segment_bytes`), so most appends' fdatasync carries no file size change;
            a torn final write is then told from damage by the rules of that page. Off: the
            segments grow with every append. Nothing is zero-filled (a zero-filled segment
            cost its whole size on disk and at every open, and stalled the append that
            started it), and a failed allocation (a full disk) falls back to growing.
        auto_checkpoint: When the size limit is reached, checkpoint (via the handler given to
            `set_full_handler`, else at the last sequence number) instead of raising
            `JournalFullError`.
        lock_timeout: Seconds to wait for another writer's lock; 0 fails at once.
        read_only: Open for reading only (no lock, no repair of a torn tail, no appends).
        shared: Several processes write the directory (`LocalJournal`): the writer lock is
            held for one append (or checkpoint, restore), not for the journal's life, and
            each writer reads what the others appended before it writes. Off: one writer
            holds the lock until it closes. `crs.open_project` turns it on.
    """

    _defining_module = __name__  # its hints resolve here (`crs` re-exports it)

    path: str | os.PathLike[str] = ""
    session_id: str = ""
    sync_writes: bool = False
    max_journal_bytes: int = 0
    allow_degraded: bool = False
    skip_corrupted_deltas: bool = False
    in_memory: bool = False
    logger: logging.Logger | None = None
    sync_policy: SyncPolicy | str | None = None
    batch_interval: float = 0.0
    segment_bytes: int = 0
    preallocate: bool = False
    auto_checkpoint: bool = False
    lock_timeout: float = 0.0
    read_only: bool = False
    shared: bool = False

    def validate(self) -> None:
        """Raise `InvalidArgumentError` naming the first field that is not acceptable
        (`name: must be …, got …`): its type through `crs._check`, then its value."""
        check(self)
        if not self.session_id:
            fail("session_id", "a non-empty str", self.session_id)
        path = os.fspath(self.path)
        if not isinstance(path, str) or "\0" in path:
            fail("path", "a directory path (a str without NUL)", self.path)
        if not self.in_memory and not path:
            fail("path", "a directory (required unless in_memory)", self.path)
        if self.max_journal_bytes < 0:
            fail(
                "max_journal_bytes",
                "0 (no limit) or a positive number of bytes",
                self.max_journal_bytes,
            )
        if self.sync_policy is not None and self.sync_policy not in set(SyncPolicy):
            fail("sync_policy", "'always', 'batch', 'none' or None", self.sync_policy)
        if self.batch_interval < 0:
            fail("batch_interval", "a finite number of seconds >= 0", self.batch_interval)
        if self.segment_bytes != 0 and not 4096 <= self.segment_bytes <= 1 << 31:
            fail("segment_bytes", "0 (the default) or 4096..2147483648", self.segment_bytes)
        if self.lock_timeout < 0:
            fail("lock_timeout", "a finite number of seconds >= 0", self.lock_timeout)

    @property
    def effective_sync_policy(self) -> SyncPolicy:
        """The sync policy in force (`sync_policy`, else derived from `sync_writes`)."""
        if self.sync_policy is None:
            return SyncPolicy.ALWAYS if self.sync_writes else SyncPolicy.NONE
        return SyncPolicy(self.sync_policy)

    @property
    def effective_segment_bytes(self) -> int:
        """The segment size in force."""
        return self.segment_bytes or DEFAULT_SEGMENT_BYTES


def DefaultJournalConfig() -> JournalConfig:
    """Production defaults: fsync on every append, 1 GiB limit, 16 MiB segments.

    `path` and `session_id` are left empty: set them with `dataclasses.replace`.
    """
    return JournalConfig(
        sync_writes=True,
        max_journal_bytes=DEFAULT_MAX_JOURNAL_BYTES,
        sync_policy=SyncPolicy.ALWAYS,
        segment_bytes=DEFAULT_SEGMENT_BYTES,
        preallocate=True,
        lock_timeout=5.0,
    )


@dataclass(frozen=True, kw_only=True)
class JournalStats:
    """Journal metrics.

    Attributes:
        total_deltas: Entries a replay returns now (after the checkpoint).
        total_bytes: Bytes of live journal data (what `max_journal_bytes` limits).
        last_seq_num: The most recent sequence number (0 if none was ever assigned).
        last_checkpoint: When the last checkpoint occurred (for a local journal opened on
            an existing one, its CHECKPOINT file's time; None if never).
        corrupted_count: Corrupt records skipped so far (`skip_corrupted_deltas`).
        degraded: Whether the journal runs in degraded (in-memory) mode.
        checkpoint_seq: Sequence number of the last checkpoint (replay starts after it).
        segments: Number of segment files (0 for memory journals).
        torn_bytes: Bytes of a torn final write removed when the journal was opened.
    """

    total_deltas: int = 0
    total_bytes: int = 0
    last_seq_num: int = 0
    last_checkpoint: _dt.datetime | None = None
    corrupted_count: int = 0
    degraded: bool = False
    checkpoint_seq: int = 0
    segments: int = 0
    torn_bytes: int = 0


@dataclass(frozen=True, kw_only=True)
class DeltaOrError:
    """One item of `replay_stream`: a decoded entry, or an error.

    Attributes:
        delta: The decoded entry (None if `err` is set).
        seq_num: Sequence number of the entry.
        err: Set when the entry could not be read; the stream ends after an unskipped error.
        skipped: True when the entry was corrupt and skipped (`skip_corrupted_deltas`).
    """

    delta: Any = None
    seq_num: int = 0
    err: Exception | None = None
    skipped: bool = False


class JournalCodec(Protocol):
    """Turns journal entries into payload bytes and back. Decoding returns a fresh object.

    A codec may also define `decode_many(payloads: list[bytes]) -> list[Any]`, decoding a run
    of payloads at once (raising `JournalCorruptedError` if any is bad); `replay` uses it.
    """

    def encode(self, entry: Any) -> bytes:
        """Encode one entry; raise `InvalidArgumentError` if it cannot be journaled."""
        ...

    def decode(self, data: bytes) -> Any:
        """Decode one payload; raise `JournalCorruptedError` if it is not a valid encoding."""
        ...


_DELTAS = DeltaCodec()


class JsonCodec:
    """Plain JSON entries (dicts, lists, strings, numbers) as compact UTF-8 JSON, version 1,
    and CRS deltas in the `DeltaCodec` format, so a journal built with defaults stores every
    delta type.

    The payload of a JSON entry is `{"v":1,"e":<entry>}` (it starts with `{`); a delta's
    starts with `DeltaCodec`'s kind byte (`P` or `J`). Decoding checks the version.
    """

    VERSION = 1

    def encode(self, entry: Any) -> bytes:
        """Encode a JSON-safe entry (no NaN or infinity) or a `crs` delta."""
        if isinstance(entry, Delta):
            return _DELTAS.encode(entry)
        try:
            text = json.dumps(
                {"v": self.VERSION, "e": entry},
                separators=(",", ":"),
                ensure_ascii=False,
                allow_nan=False,
            )
            return text.encode()
        except (TypeError, ValueError, RecursionError) as exc:  # (UnicodeEncodeError too)
            raise InvalidArgumentError(
                f"entry must be JSON-safe: {type(exc).__name__}: {str(exc)[:200]}"
            ) from None

    def decode(self, data: bytes) -> Any:
        """Decode a payload written by `encode`."""
        if data[:1] in (b"P", b"J"):
            return _DELTAS.decode(data)
        try:
            obj = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise JournalCorruptedError(f"journal entry is not valid JSON: {exc}") from exc
        if not isinstance(obj, dict) or obj.get("v") != self.VERSION or "e" not in obj:
            raise JournalCorruptedError(
                f"journal entry is not a version {self.VERSION} JSON entry; "
                "it was written by another codec or a newer crs"
            )
        return obj["e"]


class BytesCodec:
    """Entries that already are bytes, stored as they are."""

    def encode(self, entry: Any) -> bytes:
        """Return `entry` itself; it must be `bytes`."""
        if not isinstance(entry, bytes):
            raise InvalidArgumentError(f"entry must be bytes, not {type(entry).__name__}")
        return entry

    def decode(self, data: bytes) -> Any:
        """Return the payload itself."""
        return data

    def decode_many(self, payloads: list[bytes]) -> list[Any]:
        """Return the payloads themselves."""
        return payloads


@runtime_checkable
class Journal(Protocol):
    """Crash recovery for the CRS: a write-ahead log of entries with sequence numbers.

    Every implementation is safe to share between threads, is a context manager and has an
    idempotent `close()`.
    """

    def append(self, delta: Any) -> int:
        """Persist one entry (per the sync policy) and return its sequence number."""
        ...

    def append_batch(self, deltas: Sequence[Any]) -> int:
        """Persist entries atomically (all replayed or none); return the last sequence number."""
        ...

    def replay(self, after_seq: int = 0) -> list[Any]:
        """Every entry after the checkpoint (and after `after_seq`), in order."""
        ...

    def replay_stream(self, after_seq: int = 0) -> Iterator[DeltaOrError]:
        """Like `replay`, one `DeltaOrError` at a time, in bounded memory."""
        ...

    def checkpoint(self, seq: int | None = None) -> None:
        """Mark entries up to `seq` (default: the last) as covered, so they can be dropped."""
        ...

    def is_available(self) -> bool:
        """False when the journal is closed or degraded."""
        ...

    def is_degraded(self) -> bool:
        """True when the journal runs with reduced durability (in memory)."""
        ...

    def sync(self) -> None:
        """Force every appended entry to stable storage."""
        ...

    def close(self) -> None:
        """Sync and release resources; calling it again does nothing."""
        ...

    def stats(self) -> JournalStats:
        """Current metrics."""
        ...

    def backup(self, stream: IO[bytes]) -> None:
        """Write every live entry to `stream` in the portable backup format."""
        ...

    def restore(self, stream: IO[bytes]) -> None:
        """Replace the journal's content with a backup stream, all or nothing."""
        ...

    def __enter__(self) -> Journal: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


# ---------------------------------------------------------------- portable backup stream

_BACKUP_MAGIC = b"CRSJBAK\n"
_BACKUP_END = b"CRSJEND\n"
_BACKUP_VERSION = 1
_BACKUP_HEAD = struct.Struct(">8sIQ")  # magic, version, checkpoint seq
_BACKUP_TAIL = struct.Struct(">8sQQ")  # magic, record count, last seq
_BACKUP_REC = struct.Struct(">IQ")  # CRC-32C of (seq, payload), seq
_FRAME_LEN = struct.Struct(">I")


def _write_frame(stream: IO[bytes], body: bytes) -> None:
    stream.write(_FRAME_LEN.pack(len(body)))
    stream.write(body)


def _need_stream(stream: Any, method: str) -> None:
    if not callable(getattr(stream, method, None)):
        raise InvalidArgumentError(
            f"stream: must be a binary file object with a {method}() method (e.g. "
            f"open(path, {'wb' if method == 'write' else 'rb'!r}) or io.BytesIO()), "
            f"got {type(stream).__name__}"
        )


def write_backup_stream(
    stream: IO[bytes], checkpoint_seq: int, records: Iterable[tuple[int, bytes]]
) -> int:
    """Write the portable backup stream of `(seq, payload)` records; return the record count."""
    _need_stream(stream, "write")
    _write_frame(stream, _BACKUP_HEAD.pack(_BACKUP_MAGIC, _BACKUP_VERSION, checkpoint_seq))
    count, last = 0, checkpoint_seq
    for seq, payload in records:
        seq_payload = struct.pack(">Q", seq) + payload
        _write_frame(stream, struct.pack(">I", crc32c(seq_payload)) + seq_payload)
        count, last = count + 1, seq
    _write_frame(stream, _BACKUP_TAIL.pack(_BACKUP_END, count, last))
    return count


def _read_exact(stream: IO[bytes], n: int, what: str) -> bytes:
    data = stream.read(n)
    if data is not None and not isinstance(data, bytes | bytearray | memoryview):
        raise InvalidArgumentError(
            f"stream: must be opened in binary mode (read() gave {type(data).__name__})"
        )
    if data is None or len(data) != n:
        raise JournalCorruptedError(f"backup stream ends inside {what}; it is truncated")
    return data


def read_backup_stream(stream: IO[bytes]) -> tuple[int, Iterator[tuple[int, bytes]]]:
    """Read a backup stream: `(checkpoint_seq, iterator of (seq, payload))`.

    The iterator checks every record's CRC-32C and that sequence numbers follow
    `checkpoint_seq` without gaps, and raises at the end unless the trailer confirms the
    record count (so a truncated stream is never taken for a complete one).
    """
    _need_stream(stream, "read")
    head = _read_exact(stream, _FRAME_LEN.size, "the header frame")
    (size,) = _FRAME_LEN.unpack(head)
    body = _read_exact(stream, size, "the header frame") if size == _BACKUP_HEAD.size else b""
    if len(body) != _BACKUP_HEAD.size or body[:8] != _BACKUP_MAGIC:
        raise JournalCorruptedError("not a crs journal backup stream (bad header frame)")
    _, version, checkpoint_seq = _BACKUP_HEAD.unpack(body)
    if version != _BACKUP_VERSION:
        raise JournalError(
            f"journal backup stream version {version} is not supported (this crs reads "
            f"version {_BACKUP_VERSION}); upgrade crs"
        )

    def records() -> Iterator[tuple[int, bytes]]:
        expected, count = checkpoint_seq + 1, 0
        while True:
            (n,) = _FRAME_LEN.unpack(_read_exact(stream, _FRAME_LEN.size, "a frame length"))
            if n > MAX_RECORD_BYTES + _BACKUP_REC.size:
                raise JournalCorruptedError(f"backup frame too large: {n} bytes")
            frame = _read_exact(stream, n, "a frame")
            if n == _BACKUP_TAIL.size and frame[:8] == _BACKUP_END:
                _, total, last = _BACKUP_TAIL.unpack(frame)
                if total != count or last != expected - 1:
                    raise JournalCorruptedError(
                        f"backup trailer says {total} records up to seq {last}, "
                        f"the stream held {count} up to seq {expected - 1}"
                    )
                return
            if n < _BACKUP_REC.size:
                raise JournalCorruptedError(f"backup frame of {n} bytes is too short")
            crc, seq = _BACKUP_REC.unpack_from(frame)
            if crc32c(frame[4:]) != crc:
                raise JournalCorruptedError(f"backup record {count + 1} fails its CRC-32C")
            if seq != expected:
                raise JournalSequenceGapError(f"backup stream: expected seq {expected}, got {seq}")
            yield seq, frame[_BACKUP_REC.size :]
            expected, count = expected + 1, count + 1

    return checkpoint_seq, records()


# ---------------------------------------------------------------- shared behaviour


_gc_pause_lock = threading.Lock()
_gc_pauses = 0  # pause_gc blocks running now (any thread) that found the collector enabled


@contextlib.contextmanager
def pause_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a bulk decode creates many objects.

    Why: decoding a run of records allocates a few container objects per record (rows,
    ProofDeltas). With the collector on, a growing result of several hundred thousand live
    containers triggers repeated full collections over everything alive (CPython 3.11's
    generational heuristics), which cost more than the decoding: a 65,536-record chunk of
    ProofDeltas decoded 2.6x slower per record without the pause (2.4 vs 0.93 µs, with 300k
    decoded records alive).

    Why it is safe: the collector only decides *when* cyclic garbage is freed, never what a
    program computes; reference counting still frees everything else at once. The work run
    under it is bounded (one stored chunk of a journal, one backup image; never across a
    `yield`, so a slow consumer cannot stretch it), and what it allocates forms no cycles,
    so the first collection after the pause frees what the pause deferred. The pause is
    process-wide: overlapping pauses from several threads are counted, and the collector
    is enabled again only when the last one ends (and only if it was enabled when the first
    began; a collector the application disabled stays disabled). One thing it cannot see:
    an application thread calling `gc.disable()` while a pause runs has that undone when
    the pause ends, as if it had called it just before the pause.
    """
    global _gc_pauses
    with _gc_pause_lock:
        if not _gc_pauses and not gc.isenabled():
            owns = False  # the application disabled the collector: leave it alone
        else:
            owns = True
            _gc_pauses += 1
            gc.disable()
    try:
        yield
    finally:
        if owns:
            with _gc_pause_lock:
                _gc_pauses -= 1
                if _gc_pauses <= 0:  # (< 0: a pause a forked child counted as over)
                    _gc_pauses = 0
                    gc.enable()


def free_in_child(lock: Any) -> bool:
    """`lock` (a Lock, an RLock or a Condition) usable in a forked child: one that another
    thread held at the fork (a journal's apply or sync thread, a caller's) is never released
    here (that thread did not come along), so every call taking it waited on it forever
    (red team 8); the forking thread's own RLock stays held (its blocks release it). True
    when another thread held it (what it guarded may be half updated)."""
    inner = getattr(lock, "_lock", lock) if isinstance(lock, threading.Condition) else lock
    owned = getattr(inner, "_is_owned", None)  # (an RLock's; a Condition's own would guess)
    if owned is not None and owned():
        return False
    if inner.acquire(blocking=False):
        inner.release()
        return False
    lock._at_fork_reinit()  # (what logging and concurrent.futures do with theirs at fork)
    return True


_child_hooks: set[Callable[[], None]] = set()


def on_fork_child(hook: Callable[[], None]) -> None:
    """Run `hook` in every child forked from this process from now on (registered once)."""
    if hook not in _child_hooks and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=hook)
        _child_hooks.add(hook)


def _gc_after_fork() -> None:
    """In a forked child: the pauses of the threads that did not come along are over (they
    never end here: the collector stayed off for the child's life, and the next `pause_gc`
    waited forever on the lock one of them held at the fork, red team 9). (The forking
    thread's own pause is counted as over too: only a codec whose decode forks would be
    inside one; the collector then runs again in the child before that pause ends.)"""
    global _gc_pauses
    free_in_child(_gc_pause_lock)
    if _gc_pauses:
        _gc_pauses = 0
        gc.enable()


on_fork_child(_gc_after_fork)


class _State(enum.Enum):
    OPEN = "open"  # accepting appends and replays
    CLOSED = "closed"  # close() ran; every call but close() raises JournalClosedError


class JournalBase:
    """What every journal shares: argument checks, encoding, lifecycle and replay assembly.

    A backend (local files, memory, NATS JetStream) subclasses it and implements:

    - `_write_unit(payloads: list[bytes]) -> int`: store the encoded entries as one atomic
      unit with the next sequence numbers, durably per its policy, under `self._lock`; return
      the last sequence number. Raise `JournalFullError` past `max_journal_bytes` (after
      `auto_checkpoint` via `self._full_checkpoint_seq(last)`), burn no number on failure.
    - `_iter_chunks(after_seq) -> Iterator[(first_seq, payloads) | DeltaOrError]`: the
      stored payloads after `max(after_seq, checkpoint)` in runs of consecutive numbers,
      raising `JournalCorruptedError` / `JournalSequenceGapError`, or (with
      `skip_corrupted_deltas`) yielding skipped items after `self._skip(n, why)`.
    - `checkpoint`, `sync`, `stats`, `backup`, `restore` (with `write_backup_stream` /
      `read_backup_stream`), and `_close` (called once by `close`).

    `append`, `append_batch`, `replay`, `replay_stream`, `close`, `is_available` and the
    context manager come from here.
    """

    def __init__(self, config: JournalConfig, codec: JournalCodec | None) -> None:
        if not isinstance(config, JournalConfig):
            raise InvalidArgumentError(
                f"config: must be a crs.JournalConfig, got {type(config).__name__}"
            )
        config.validate()
        self._config = config
        self._codec: JournalCodec = codec if codec is not None else JsonCodec()
        self._codec_op: Callable[[str, dict[str, Any], bool], bytes] | None = getattr(
            self._codec, "encode_op", None
        )
        self._log = config.logger or _log
        self._lock = threading.RLock()
        self._state = _State.OPEN
        self._corrupted = 0
        self._last_checkpoint: _dt.datetime | None = None
        self._full_handler: Callable[[], int | None] | None = None

    def set_full_handler(self, handler: Callable[[], int | None] | None) -> None:
        """Set what `auto_checkpoint` calls when the size limit is reached.

        The handler persists the state elsewhere (e.g. a backup) and returns the sequence
        number that state covers; the journal then checkpoints there. Without a handler (or
        when it returns None) the journal checkpoints at its last sequence number.

        Raises:
            InvalidArgumentError: `handler` is neither callable nor None.
        """
        if handler is not None and not callable(handler):
            raise InvalidArgumentError(
                "handler: must be a callable returning int | None, or None; got a "
                f"{type(handler).__name__}"
            )
        self._full_handler = handler

    def _full_checkpoint_seq(self, last: int) -> int:
        seq = self._full_handler() if self._full_handler is not None else None
        return last if seq is None else _check_seq(seq, last)

    # -- lifecycle

    def _check_open(self) -> None:
        if self._state is _State.CLOSED:
            opener = getattr(self, "_forked_from", 0)
            if opener:
                raise JournalClosedError(
                    f"journal: opened in process {opener}, and this is a child forked from it "
                    f"({os.getpid()}): it writes nothing there; open the journal again in the "
                    "child (a writer of its own: LocalJournal(config), CRS.open(path), "
                    "Guard.open)"
                )
            raise JournalClosedError("journal is closed; open a new one")

    def __enter__(self) -> Self:
        self._check_open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Sync and release resources; calling it again does nothing."""
        with self._lock:
            if self._state is _State.CLOSED:
                return
            try:
                self._close()
            finally:
                self._state = _State.CLOSED

    def _close(self) -> None:
        """Release storage (called once, under the lock)."""

    def is_available(self) -> bool:
        """False when the journal is closed or degraded."""
        return self._state is _State.OPEN and not self.is_degraded()

    def is_degraded(self) -> bool:
        """True when the journal runs with reduced durability (in memory)."""
        return False

    # -- appends

    def _encode(self, delta: Any, what: str) -> bytes:
        if delta is None:
            raise NilDeltaJournalError(f"{what} must not be None")
        payload = self._codec.encode(delta)
        if len(payload) > MAX_RECORD_BYTES:
            raise InvalidArgumentError(
                f"{what} encodes to {len(payload)} bytes; the limit is {MAX_RECORD_BYTES}"
            )
        return payload

    def _encode_op(self, kind: str, payload: dict[str, Any], bump_generation: bool) -> bytes:
        """The payload of the op record `{"op": kind, "payload": payload, "bump_generation":
        bump_generation}` its caller built (a CRS's commit), as `_encode` makes it."""
        enc = self._codec_op
        if enc is None:
            record = {"op": kind, "payload": payload, "bump_generation": bump_generation}
            return self._encode(record, "delta")
        data = enc(kind, payload, bump_generation)
        if len(data) > MAX_RECORD_BYTES:
            raise InvalidArgumentError(
                f"delta encodes to {len(data)} bytes; the limit is {MAX_RECORD_BYTES}"
            )
        return data

    def append(self, delta: Any) -> int:
        """Persist one entry (per the sync policy) and return its sequence number.

        Raises:
            NilDeltaJournalError: `delta` is None.
            JournalClosedError: The journal is closed.
            JournalFullError: The size limit (or the disk) is full; nothing was written.
        """
        payload = self._encode(delta, "delta")
        self._check_open()
        return self._write_unit([payload])

    def append_batch(self, deltas: Sequence[Any]) -> int:
        """Persist entries atomically and return the last sequence number.

        Raises:
            InvalidArgumentError: `deltas` is empty.
            NilDeltaJournalError: An element is None (nothing is written).
        """
        if isinstance(deltas, str | bytes) or not isinstance(deltas, Sequence):
            raise InvalidArgumentError("deltas must be a sequence of entries")
        if len(deltas) == 0:
            raise InvalidArgumentError("deltas must not be empty")
        payloads = [self._encode(d, f"delta at index {i}") for i, d in enumerate(deltas)]
        self._check_open()
        return self._write_unit(payloads)

    def _write_unit(self, payloads: list[bytes]) -> int:
        raise NotImplementedError

    # -- replay

    def _iter_chunks(self, after_seq: int) -> Iterator[tuple[int, list[bytes]] | DeltaOrError]:
        """Yield `(first_seq, payloads)` runs and skipped-record items; raise on errors."""
        raise NotImplementedError

    def _check_after(self, after_seq: int) -> None:
        if isinstance(after_seq, bool) or not isinstance(after_seq, int) or after_seq < 0:
            raise InvalidArgumentError("after_seq must be an int >= 0")

    def _decode_error(self, seq: int, exc: JournalError) -> DeltaOrError:
        if not self._config.skip_corrupted_deltas:
            raise type(exc)(f"entry {seq}: {exc}") from exc
        self._skip(1, f"entry {seq} cannot be decoded: {exc}")
        return DeltaOrError(seq_num=seq, err=exc, skipped=True)

    def _skip(self, n: int, why: str) -> None:
        self._corrupted += n
        self._log.warning("journal: skipped %d corrupt record(s): %s", n, why)

    def replay(self, after_seq: int = 0) -> list[Any]:
        """Every entry after the checkpoint (and after `after_seq`), in order.

        Raises:
            JournalCorruptedError: A record fails its CRC or cannot be decoded (unless
                `skip_corrupted_deltas`, which skips and counts it).
            JournalSequenceGapError: Sequence numbers skip.
        """
        self._check_after(after_seq)
        self._check_open()
        out: list[Any] = []
        for item in self._decoded_runs(after_seq):
            if not isinstance(item, DeltaOrError):
                out.extend(item[1])
        return out

    def _decoded_runs(
        self, after_seq: int, *, for_replay: bool = False
    ) -> Iterator[tuple[int, list[Any]] | DeltaOrError]:
        """Decoded entries in `(first_seq, entries)` runs of consecutive numbers, and skipped
        items; bounded memory (one stored chunk at a time). Raises on unskipped errors.

        With `for_replay` (the CRS replay) a codec's `decode_for_replay` is used if it has
        one: an entry may then stand for several records (`crs._state._codec.ProofPayloads`)."""
        self._check_after(after_seq)
        self._check_open()
        decode = self._codec.decode
        decode_many = getattr(self._codec, "decode_many", None)
        if for_replay:
            decode_many = getattr(self._codec, "decode_for_replay", decode_many)
        for item in self._iter_chunks(after_seq):
            if isinstance(item, DeltaOrError):
                yield item
                continue
            first, payloads = item
            try:
                with pause_gc():
                    entries = (
                        list(map(decode, payloads))
                        if decode_many is None
                        else decode_many(payloads)
                    )
            except JournalError:
                entries = None
            if entries is not None:
                yield first, entries
                continue
            run: list[Any] = []  # redo this run one by one, skipping (or raising on) bad ones
            start = first
            for i, payload in enumerate(payloads):
                try:
                    run.append(decode(payload))
                except JournalError as exc:
                    bad = self._decode_error(first + i, exc)
                    if run:
                        yield start, run
                    yield bad
                    run, start = [], first + i + 1
            if run:
                yield start, run

    def replay_stream(self, after_seq: int = 0) -> Iterator[DeltaOrError]:
        """Like `replay`, one `DeltaOrError` at a time, reading in bounded memory.

        An unskipped error is yielded as the last item (`err` set, `skipped` False).
        """
        self._check_after(after_seq)
        self._check_open()
        return self._stream(after_seq)

    def _stream(self, after_seq: int) -> Iterator[DeltaOrError]:
        decode = self._codec.decode
        try:
            for item in self._iter_chunks(after_seq):
                if isinstance(item, DeltaOrError):
                    yield item
                    continue
                first, payloads = item
                for i, payload in enumerate(payloads):
                    try:
                        yield DeltaOrError(delta=decode(payload), seq_num=first + i)
                    except JournalError as exc:
                        yield self._decode_error(first + i, exc)
        except JournalError as exc:
            yield DeltaOrError(err=exc)


# ---------------------------------------------------------------- MemoryJournal


class MemoryJournal(JournalBase):
    """A journal kept in memory: same semantics as `LocalJournal`, nothing durable.

    Args:
        config: Only `max_journal_bytes`, `auto_checkpoint` and `skip_corrupted_deltas` matter;
            default: an in-memory config with session id "memory".
        codec: How entries become bytes (default: `JsonCodec`).
    """

    def __init__(self, config: JournalConfig | None = None, codec: JournalCodec | None = None):
        super().__init__(config or JournalConfig(session_id="memory", in_memory=True), codec)
        self._records: list[tuple[int, bytes]] = []
        self._seq = 0
        self._checkpoint_seq = 0
        self._bytes = 0

    def _write_unit(self, payloads: list[bytes]) -> int:
        size = sum(len(p) for p in payloads)
        with self._lock:
            self._check_open()
            limit = self._config.max_journal_bytes
            if limit and self._bytes + size > limit:
                if self._config.auto_checkpoint:
                    self._checkpoint_locked(self._full_checkpoint_seq(self._seq))
                if self._bytes + size > limit:
                    raise JournalFullError(
                        f"journal size limit exceeded ({self._bytes} + {size} bytes > "
                        f"max_journal_bytes={limit}); checkpoint it or raise the limit"
                    )
            for p in payloads:
                self._seq += 1
                self._records.append((self._seq, p))
            self._bytes += size
            return self._seq

    def _iter_chunks(self, after_seq: int) -> Iterator[tuple[int, list[bytes]] | DeltaOrError]:
        with self._lock:
            start = max(after_seq, self._checkpoint_seq)
            records = [r for r in self._records if r[0] > start]
        for i in range(0, len(records), 4096):
            part = records[i : i + 4096]
            yield part[0][0], [p for _, p in part]

    def checkpoint(self, seq: int | None = None) -> None:
        """Drop entries up to `seq` (default: the last)."""
        with self._lock:
            self._check_open()
            self._checkpoint_locked(self._seq if seq is None else _check_seq(seq, self._seq))

    def _checkpoint_locked(self, seq: int) -> None:
        if seq > self._checkpoint_seq:
            self._checkpoint_seq = seq
            self._records = [r for r in self._records if r[0] > seq]
            self._bytes = sum(len(p) for _, p in self._records)
        self._last_checkpoint = _dt.datetime.now(_dt.UTC)

    def sync(self) -> None:
        """Nothing to do in memory (raises if closed)."""
        self._check_open()

    def stats(self) -> JournalStats:
        """Current metrics."""
        with self._lock:
            return JournalStats(
                total_deltas=len(self._records),
                total_bytes=self._bytes,
                last_seq_num=self._seq,
                last_checkpoint=self._last_checkpoint,
                corrupted_count=self._corrupted,
                checkpoint_seq=self._checkpoint_seq,
            )

    def backup(self, stream: IO[bytes]) -> None:
        """Write every live entry to `stream` in the portable backup format."""
        with self._lock:
            self._check_open()
            write_backup_stream(stream, self._checkpoint_seq, list(self._records))

    def restore(self, stream: IO[bytes]) -> None:
        """Replace the content with a backup stream (all or nothing)."""
        self._check_open()
        checkpoint_seq, records = read_backup_stream(stream)
        loaded = list(records)
        with self._lock:
            self._records = loaded
            self._checkpoint_seq = checkpoint_seq
            self._seq = loaded[-1][0] if loaded else checkpoint_seq
            self._bytes = sum(len(p) for _, p in loaded)
            self._corrupted = 0


def _check_seq(seq: int, last: int) -> int:
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= last:
        raise InvalidArgumentError(f"seq must be an int in 0..{last} (the last sequence number)")
    return seq
