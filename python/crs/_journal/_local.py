"""`LocalJournal`: the default journal, a write-ahead log of segment files in one directory.

The on-disk layout (format version 1) is documented in docs/journal-format.md: segment files
`<first seq, 20 digits>.wal` with a 32-byte header, then records framed by `crs._core`
(24-byte header with its own CRC-32C, payload CRC-32C, sequence number and batch flags); a
`CHECKPOINT` file; a `LOCK` file held with `flock` by the one writer, or, with
`JournalConfig.shared`, by each writer for one append (see `LocalJournal.exclusive`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import errno
import fcntl
import json
import os
import stat
import struct
import threading
import time
import weakref
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import IO, Any, ClassVar

from crs import _core
from crs._core import crc32c
from crs._errors import (
    InvalidArgumentError,
    JournalCorruptedError,
    JournalDegradedError,
    JournalError,
    JournalFullError,
    JournalLockedError,
    JournalSequenceGapError,
)
from crs._journal._base import (
    MAX_RECORD_BYTES,
    DeltaOrError,
    JournalBase,
    JournalCodec,
    JournalConfig,
    JournalStats,
    MemoryJournal,
    SyncPolicy,
    _check_seq,
    _State,
    free_in_child,
    on_fork_child,
    read_backup_stream,
    write_backup_stream,
)
from crs._state._codec import _JSON_HEAD, DeltaCodec

__all__ = ["FORMAT_VERSION", "LocalJournal"]

FORMAT_VERSION = 1
"""Version of the on-disk layout written by this crs (docs/journal-format.md)."""

SEGMENT_MAGIC = b"\x89CRSWAL\n"
_wal_append_shared = _core.wal_append_shared
_wal_append_op = _core.wal_append_op
# Space a guard's op record takes, at most as a rule (`_append_op_fast` allocates ahead before
# it is encoded; a longer one grows the segment past what is allocated, as a write may).
_OP_ROOM = 4096
# The sync of a guard's op record handed to a worker thread (`_core.sync_start`, rust/
# syncer.rs) while the state is updated; the writer then waits for it spinning, its core
# busy and its caches warm, for up to this long before it parks (a flush usually takes
# 0.1-0.5 ms). Not on a single CPU: the spin would only delay the worker.
_SYNC_SPIN_US = 1000
# A request the worker has not taken after this long (no CPU for it: a loaded machine) is
# taken back and synced inline by the writer.
_SYNC_PICKUP_US = 50
_CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
_sync_start = _core.sync_start if (_CPUS or 1) > 1 else None
_sync_wait = _core.sync_wait
# The op record's append with its sync handed to the worker in the same call, as soon as it
# is written (`_core.wal_append_op_ahead`; used while `_sync_start` is set: its Python
# reference `_append_op_ahead_py` starts the sync with `_sync_start`)
_wal_append_op_ahead = _core.wal_append_op_ahead
SEGMENT_HEADER = struct.Struct("<8sHHIQII")  # magic, version, header size, flags, first seq, 0, crc
RECORD_HEADER = struct.Struct("<IIQIHH")  # header crc, length, seq, payload crc, flags, 0
CHECKPOINT_MAGIC = b"CRSJCKP\n"
CHECKPOINT_FILE = struct.Struct("<8sIQI")  # magic, version, seq, crc of the first 20 bytes
SEGMENT_SEALED = 1  # header flag: a segment after this one was created (the log goes on there)
# Header flag: the segment is preallocated (`JournalConfig.preallocate`): zero bytes (space
# allocated ahead) may follow its records; its torn tails are told by the rules of
# `_torn_preallocated` (docs/journal-format.md, "Preallocated segments").
SEGMENT_PREALLOCATED = 2
SECTOR = 512  # a torn write loses whole sectors (of the file's offsets)
PREALLOC_START = 4096  # data a segment holds before space is allocated ahead (small stays small)
PREALLOC_MIN = 16 << 10  # the first chunk allocated ahead; then as much as the data, up to:
PREALLOC_MAX = 1 << 20
# `posix_fallocate` (Linux, FreeBSD); where the platform has none, segments only grow.
_FALLOCATE: Callable[[int, int, int], None] | None = getattr(os, "posix_fallocate", None)
SEGMENT_SUFFIX = ".wal"
RESTORE_DIR = "restore.tmp"
SPARE = "next.spare"  # the next segment, created ahead (empty) so a roll syncs nothing more
MANIFEST = "COMPLETE"
# `LOCK`: "<pid> shared|exclusive", padded to 40 bytes with a newline (informative), then the
# directory generation, 20 decimal digits and a newline (`LocalJournal._bump`).
LOCK_STAMP = 40
LOCK_GEN = 20
LOCK_HEAD = LOCK_STAMP + LOCK_GEN + 1

# Why `_core.wal_scan` stopped (rust/wal.rs `Stop`).
_END, _LIMIT, _INCOMPLETE, _ZERO, _BAD_HEADER, _BAD_PAYLOAD, _GAP, _BAD_BATCH = range(8)
_REASONS = {
    _INCOMPLETE: "is cut short",
    _ZERO: "is zeroed",
    _BAD_HEADER: "has a damaged header (CRC-32C mismatch)",
    _BAD_PAYLOAD: "has a damaged payload (CRC-32C mismatch)",
    _BAD_BATCH: "has inconsistent batch flags",
}
_SCAN_RECORDS = 65536  # records handed to Python per scan call (bounds replay memory)
_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC  # a planted symlink is never followed
FILE_MODE = 0o600  # every file of a journal is private to its owner
DIR_MODE = 0o700


@dataclasses.dataclass
class _Segment:
    first_seq: int
    path: Path


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _segment_header(first_seq: int, flags: int = 0) -> bytes:
    head = SEGMENT_HEADER.pack(
        SEGMENT_MAGIC, FORMAT_VERSION, SEGMENT_HEADER.size, flags, first_seq, 0, 0
    )
    return head[:28] + struct.pack("<I", crc32c(head[:28]))


def _parse_segment_header(data: bytes, path: Path) -> int:
    """The segment's first sequence number; raise if the header is not valid."""
    if len(data) < SEGMENT_HEADER.size:
        raise JournalCorruptedError(f"{path}: segment header is cut short")
    magic, version, size, _, first, _, crc = SEGMENT_HEADER.unpack_from(data)
    if magic != SEGMENT_MAGIC or crc != crc32c(data[:28]):
        raise JournalCorruptedError(f"{path}: segment header is damaged (magic or CRC-32C)")
    if version != FORMAT_VERSION or size != SEGMENT_HEADER.size:
        raise JournalError(
            f"{path}: journal format version {version} is not supported (this crs reads "
            f"version {FORMAT_VERSION}); upgrade crs"
        )
    if path.name != f"{first:020d}{SEGMENT_SUFFIX}" and path.name != SPARE:
        raise JournalCorruptedError(f"{path}: header says first seq {first}, the name disagrees")
    result: int = first
    return result


def _header_ok(data: bytes, path: Path) -> bool:
    try:
        _parse_segment_header(data, path)
    except JournalCorruptedError:
        return False
    return True


_ZEROS = bytes(1 << 16)


def _zero_in(data: bytes, start: int, end: int) -> bool:
    """Whether `data[start:end]` is all zero bytes (compared against a zero buffer, 64 KiB
    at a time: memcmp speed, for a preallocated segment's zero tail)."""
    while start < end:
        n = min(end - start, len(_ZEROS))
        if data[start : start + n] != (_ZEROS if n == len(_ZEROS) else _ZEROS[:n]):
            return False
        start += n
    return True


def _zero_from(data: bytes, start: int) -> bool:
    return _zero_in(data, start, len(data))


def _crc_table() -> tuple[list[int], dict[int, int], dict[int, int]]:
    """CRC-32C's byte table (reflected, polynomial 0x82F63B78), the index of each entry by
    its top byte (unique: it inverts one step), and the entries of the bytes 1..255."""
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table, {t >> 24: i for i, t in enumerate(table)}, {table[e]: e for e in range(1, 256)}


_CRC_TABLE: tuple[list[int], dict[int, int], dict[int, int]] | None = None


# The position of the one byte whose change explains a CRC-32C mismatch, or None: in Rust
# (about 4 ns a payload byte, the Python loop about 200; tests/journal check they agree).
_one_byte_error = _core.crc32c_one_byte_error


def _one_byte_error_reference(syndrome: int, n: int) -> int | None:
    """The position of the one byte whose change explains a CRC-32C mismatch of an `n`-byte
    payload (`syndrome` = its CRC xor the stored one), or None: no change confined to one
    byte (every single-bit flip included) explains it (`_core.crc32c_one_byte_error` is the
    same in Rust, the one recovery uses).

    CRC-32C is linear: for equal lengths crc(a) ^ crc(b) depends only on a ^ b. An error
    byte e at position n-1-m gives the syndrome A^m(T[e]), where T is the byte table and
    A(r) = (r >> 8) ^ T[r & 0xff] appends a zero byte; A is inverted one step at a time, so
    this is O(n) (only on the recovery path of a preallocated segment)."""
    global _CRC_TABLE
    if _CRC_TABLE is None:
        _CRC_TABLE = _crc_table()
    table, top, singles = _CRC_TABLE
    s = syndrome
    for m in range(n):
        if s in singles:
            return n - 1 - m
        x = top[s >> 24]
        s = (((s ^ table[x]) << 8) | x) & 0xFFFFFFFF
    return None


def _lost_bytes_explain(payload: bytes, syndrome: int, lost: list[int]) -> bool:
    """Whether some content of the byte positions `lost` (the all-zero sector chunks of a
    record) gives the payload its stored CRC: `syndrome` in the span of the syndromes of
    their bits. With 8 bytes or more (64 unknown bits against 32) taken as yes."""
    if len(lost) >= 8:
        return True
    base = crc32c(payload)
    basis: list[int] = []  # a xor basis, highest bits distinct
    buf = bytearray(payload)
    for i in lost:
        for bit in range(8):
            buf[i] ^= 1 << bit
            v = crc32c(bytes(buf)) ^ base
            buf[i] ^= 1 << bit
            for b in basis:
                v = min(v, v ^ b)
            if v:
                basis.append(v)
    s = syndrome
    for b in basis:
        s = min(s, s ^ b)
    return s == 0


def _torn_preallocated(data: bytes, stop: int, stop_pos: int) -> bool:
    """Whether the damage at `stop_pos` of a preallocated segment (zero bytes after its
    records) is an interrupted final write, not corruption (docs/journal-format.md,
    "Preallocated segments"). A torn write loses whole 512-byte sectors of the file, which
    then read as zero; a bit flip or a zeroed byte of an acknowledged record never passes:

    - a record that runs past the file's end: torn;
    - a valid header whose payload fails its CRC, nothing but zero bytes after the record:
      torn only if some sector chunk of the record (its part in one sector) is all zero, no
      change of one byte explains the mismatch, and some content of the zero chunks does;
    - a zero record header followed by bytes that are not zero: torn only if the first of
      them starts a sector (the record's first chunk is all zero) and no valid record
      follows (it would be a later write: the zeroed one was acknowledged);
    - otherwise the rules of a growing segment (`_is_torn`)."""
    if stop == _ZERO:
        if _zero_from(data, stop_pos):
            return True  # the clean end (compared with a zero buffer, not byte by byte)
        first = len(data) - len(data[stop_pos:].lstrip(b"\0"))
        return first % SECTOR == 0 and _core.wal_resync(data, stop_pos + 1, False) is None
    if stop != _BAD_PAYLOAD:
        return _is_torn(data, stop, stop_pos)
    _, length, _, stored, _, _ = RECORD_HEADER.unpack_from(data, stop_pos)
    body = stop_pos + RECORD_HEADER.size
    end = body + length
    if not _zero_from(data, end):
        return False
    lost: list[int] = []  # payload positions of all-zero sector chunks (8 are enough)
    a = stop_pos
    while a < end and len(lost) < 8:
        b = min(end, (a // SECTOR + 1) * SECTOR)
        if _zero_in(data, a, b):
            lost.extend(range(a - body, min(b, a + 8) - body))
        a = b
    if not lost:
        return False
    payload = data[body:end]
    syndrome = crc32c(payload) ^ stored
    if _one_byte_error(syndrome, length) is not None:
        return False
    return _lost_bytes_explain(payload, syndrome, lost)


def _makedirs_private(path: Path) -> None:
    """Create `path` and its missing parents 0700, fsyncing the parent of each one."""
    if path.is_dir():
        return
    _makedirs_private(path.parent)
    try:
        path.mkdir(mode=DIR_MODE)
    except FileExistsError:
        return
    _fsync_dir(path.parent)


def _open_own(path: Path, flags: int, mode: int = FILE_MODE) -> int:
    """`os.open(path, flags | O_NOFOLLOW)` of a file the journal writes to in place (LOCK,
    the spare, a segment): `OSError(EMLINK)` when the file has another hard link, since
    writing or truncating it would change that other file too (a link planted in the
    journal's directory to a file of the user's)."""
    fd = os.open(path, flags | _NOFOLLOW, mode)
    try:
        st = os.fstat(fd)
        if st.st_nlink > 1 and stat.S_ISREG(st.st_mode):
            raise OSError(
                errno.EMLINK,
                f"it has {st.st_nlink} hard links (another name of the same file outside the "
                "journal would be written too); remove it",
                str(path),
            )
    except BaseException:
        os.close(fd)
        raise
    return fd


class _LockNotAFile(OSError):
    """`LOCK` is there but is not a regular file: the journal touches nothing, says what to
    remove (an `OSError`, so `allow_degraded` still runs in memory)."""

    def __init__(self, path: Path, mode: int) -> None:
        kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"))
        kind = next((name for test, name in kinds if test(mode)), "not a regular file")
        self.what = f"its lock file {path} is {kind}" + (
            ", not a regular file" if kind != "not a regular file" else ""
        )
        # inside: only this rare error quotes a path for a shell
        import shlex

        remove = "rmdir" if stat.S_ISDIR(mode) else "rm"
        self.fix = (
            f"remove it ({remove} {shlex.quote(str(path))}; the journal makes a new one) and "
            "retry: nothing else needs to change"
        )
        super().__init__(errno.EEXIST, self.what, str(path))


# What to do about an error that is not the directory's (its owner, permissions, contents)
_FIXES = {
    errno.EMFILE: "this process has too many files open (its limit is `ulimit -n`): close "
    "some, or raise the limit, and retry",
    errno.ENFILE: "the system has too many files open: close some and retry",
    errno.ENOSPC: "its file system is full: free some space and retry",
    errno.EDQUOT: "the disk quota of this user is used up: free some space and retry",
    errno.EROFS: "its file system is mounted read-only: use a writable data directory",
}


def _unusable(path: Path, exc: OSError, read_only: bool) -> JournalDegradedError:
    """`JournalDegradedError` for a journal directory that cannot be opened: `problem` the
    cause, `fix` what to change on disk, and (for a writer) the `JournalConfig` option that
    runs in memory instead, which only the program building the config can pass."""
    if isinstance(exc, _LockNotAFile):
        problem, fix = f"cannot open journal at {path}: {exc.what}", exc.fix
    else:
        # the cause without "[Errno n]" (and without a descriptor number for a file name)
        detail = exc.strerror or str(exc)
        if isinstance(exc.filename, str):
            detail += f": {exc.filename}"
        problem = f"cannot open journal at {path}: {detail}"
        fix = _FIXES.get(exc.errno or 0) or (
            "fix the directory (its owner and permissions, or a file of another kind in the "
            "place of the journal or one of its files) and retry"
        )
    config = (
        ""
        if read_only
        else ("; or pass allow_degraded=True in the JournalConfig to run in memory (not durable)")
    )
    return JournalDegradedError(f"{problem}; {fix}{config}", problem=problem, fix=fix)


def _read_file(path: Path, limit: int = -1) -> bytes:
    """The bytes of `path` (at most `limit`), never through a symlink."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    with os.fdopen(fd, "rb") as f:
        return f.read(limit)


def _open_reading(path: Path) -> int | OSError:
    """A descriptor of `path` opened for reading (never through a symlink), or the error."""
    try:
        return os.open(path, os.O_RDONLY | _NOFOLLOW)
    except OSError as exc:
        return exc


def _read_fd(fd: int, limit: int | None) -> bytes:
    """The bytes of the file `fd` from its start: all of them, or at most `limit`."""
    size = os.fstat(fd).st_size
    want = size if limit is None else min(limit, size)
    parts, pos = [], 0
    while pos < want:
        chunk = os.pread(fd, want - pos, pos)
        if not chunk:
            break
        parts.append(chunk)
        pos += len(chunk)
    return b"".join(parts)


def _is_torn(data: bytes, stop: int, stop_pos: int) -> bool:
    """Whether the damage at `stop_pos` is an interrupted final write, not corruption.

    A torn write is a record that runs past the end of what was written: past the end of
    the file, or into the zero bytes after the written data (a segment zero-filled by an
    older crs). A complete record with a bad checksum, or a damaged header followed by data,
    is corruption: a bit flip leaves the bytes around it in place.
    """
    if stop == _INCOMPLETE:
        return True
    if stop == _ZERO:
        return _zero_from(data, stop_pos)
    if stop == _BAD_HEADER:
        # A header whose record holds nothing after it: its payload was never written.
        return _zero_from(data, stop_pos + RECORD_HEADER.size)
    return False  # _BAD_PAYLOAD: the record is complete, its checksum is wrong


def _append_shared_py(
    lock_fd: int,
    fd: int,
    head: bytes,
    pos: int,
    seq: int,
    payload: bytes,
    room: int,
    zero_tail: bool = False,
    grow_to: int = 0,
) -> tuple[int, int]:
    """The reference of `_core.wal_append_shared` (what `_hold`, `_append_locked` and
    `_unhold` do for one record when no other writer changed anything): `(0, bytes
    written)`; `(1, 0)` the lock is busy; `(2, 0)` `LOCK` does not start with `head`, a byte
    follows `pos` (`zero_tail`, a preallocated segment: a byte other than zero in the 24
    bytes at `pos`), or the record needs more than `room` bytes: nothing written; `(3,
    errno)` the write failed and was cut back; `(4, errno)` it could not be cut back; `(5,
    errno)` another OS error. Before the write, `grow_to` past `pos`: the space up to it is
    allocated (`posix_fallocate`, a failure ignored). The lock is released in every case."""
    frame = _core.wal_encode(seq, [payload])
    if len(frame) > room:
        return 2, 0
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 1, 0
    except OSError as exc:
        return 5, exc.errno or 0
    try:
        if os.pread(lock_fd, len(head), 0) != head:
            return 2, 0
        after = os.pread(fd, RECORD_HEADER.size if zero_tail else 1, pos)
        if after and not (zero_tail and after.count(0) == len(after)):
            return 2, 0
        if grow_to > pos and _FALLOCATE is not None:
            with contextlib.suppress(OSError):
                _FALLOCATE(fd, pos, grow_to - pos)
        done = 0
        try:
            while done < len(frame):
                n = os.pwrite(fd, memoryview(frame)[done:], pos + done)
                if n <= 0:
                    raise OSError(errno.ENOSPC, "short write")
                done += n
        except OSError as exc:
            try:
                os.ftruncate(fd, pos)
            except OSError:
                return 4, exc.errno or 0
            return 3, exc.errno or 0
        return 0, len(frame)
    except OSError as exc:
        return 5, exc.errno or 0
    finally:
        fcntl.flock(lock_fd, fcntl.LOCK_UN)


def _append_op_py(
    lock_fd: int,
    fd: int,
    head: bytes,
    pos: int,
    seq: int,
    prefix: bytes,
    kind: str,
    payload: Any,
    bump: bool,
    max_bytes: int,
    room: int,
    zero_tail: bool = False,
    grow_to: int = 0,
) -> tuple[int, int]:
    """The reference of `_core.wal_append_op`: the op record encoded as
    `_core.json_compact` encodes `{"op": kind, "payload": payload, "bump_generation": bump}`
    after `prefix` (`(7, 0)` when it gives None; `(8, len)` longer than `max_bytes`), then
    `_append_shared_py`."""
    data = _core.json_compact({"op": kind, "payload": payload, "bump_generation": bump}, prefix)
    if data is None:
        return 7, 0
    if len(data) > max_bytes:
        return 8, len(data)
    return _append_shared_py(lock_fd, fd, head, pos, seq, data, room, zero_tail, grow_to)


def _append_op_ahead_py(lock_fd: int, fd: int, *args: Any) -> tuple[int, int, int]:
    """The reference of `_core.wal_append_op_ahead` (the arguments of `_append_op_py`):
    `_append_op_py`, then, when the record was written, `_sync_start(fd)` (the worker's
    ticket, 0 when it could not take it; 0 when nothing was written)."""
    status, value = _append_op_py(lock_fd, fd, *args)
    start = _sync_start
    return status, value, (start(fd) if status == 0 and start is not None else 0)


_py_sync_results: dict[int, int] = {}
_py_sync_tickets = [0]


def _sync_start_py(fd: int) -> int:
    """The reference of `_core.sync_start`, synced inline: the ticket whose `_sync_wait_py`
    gives `fdatasync(fd)`'s errno (0 when it succeeded)."""
    try:
        if fd < 0:  # (`os.fdatasync` refuses it before the system call)
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        os.fdatasync(fd)
        err = 0
    except OSError as exc:
        err = exc.errno or errno.EIO
    _py_sync_tickets[0] += 1
    ticket = _py_sync_tickets[0]
    if err:
        _py_sync_results[ticket] = err
    return ticket


def _sync_wait_py(ticket: int, spin_us: int, pickup_us: int = 50) -> int:
    """The reference of `_core.sync_wait`: the errno of `ticket`'s sync, once (0 after);
    EINVAL for a ticket never handed out."""
    if ticket <= 0 or ticket > _py_sync_tickets[0]:
        return errno.EINVAL
    return _py_sync_results.pop(ticket, 0)


class _Exclusive:
    """The block of `LocalJournal.exclusive()` (a class, not a generator: every commit of a
    shared journal enters it): `_hold` and `_release` of the outermost block, the journal's
    lock (re-entered) inside it."""

    __slots__ = ("_j", "_outer")

    def __init__(self, journal: LocalJournal) -> None:
        self._j = journal
        self._outer = False

    def __enter__(self) -> None:
        j = self._j
        j._lock.acquire()
        try:
            j._check_open()
            if not j._shared or j._memory is not None or j._xdepth:
                j._xdepth += 1
                return
        except BaseException:
            j._lock.release()
            raise
        j._hold()
        self._outer = True

    def __exit__(self, *exc: object) -> None:
        if not self._outer:
            self._j._xdepth -= 1
            self._j._lock.release()
            return
        self._j._unhold(exc[0] is None)


# The writers open in this process (`_watch_forks`) -> the pid that opened each. A child
# forked from it has their descriptors, and `LOCK`'s flock with them, shared: it kept
# neither process out of the other's appends, so a child's appends through an inherited
# journal interleaved with the parent's (a damaged record once, red team 9). In the child
# each is closed (`_forget_in_child`: nothing written, synced or unlocked there); opening
# the journal again in the child makes a writer of its own.
_OPEN_WRITERS: weakref.WeakKeyDictionary[LocalJournal, int] = weakref.WeakKeyDictionary()


def _watch_forks(journal: LocalJournal) -> None:
    on_fork_child(_forget_writers_in_child)
    _OPEN_WRITERS[journal] = os.getpid()


def _forget_writers_in_child() -> None:
    for journal, opener in list(_OPEN_WRITERS.items()):
        if journal._state is _State.OPEN:
            journal._forked_from = opener
            journal._forget_in_child()
    _OPEN_WRITERS.clear()


class LocalJournal(JournalBase):
    """The default journal: a crash-safe write-ahead log in a directory.

    One directory holds one journal (the CRS uses `<home>/<project_key>/journal`);
    `session_id` is required, as in the Go package, but is not stored on disk.

    Args:
        config: `path` (the directory, created if missing) and `session_id` are required;
            see `JournalConfig` for the rest. `DefaultJournalConfig()` gives the defaults.
        codec: How entries become bytes (default: `JsonCodec`).

    Raises:
        JournalLockedError: Another process holds the writer lock past `lock_timeout`.
        JournalCorruptedError: The last segment is damaged (not merely torn) and
            `skip_corrupted_deltas` is off.
        JournalDegradedError: The directory cannot be used and `allow_degraded` is off.
        JournalFullError: The disk is full (opening needs only a segment header's space).
    """

    # Lock waits of every journal of this process (count, total, longest) and longest hold.
    _process_waits: ClassVar[list[float]] = [0, 0.0, 0.0, 0.0]

    def __init__(self, config: JournalConfig, codec: JournalCodec | None = None) -> None:
        super().__init__(config, codec)
        self._dir = Path(config.path)
        self._policy = config.effective_sync_policy
        self._seg_bytes = config.effective_segment_bytes
        self._read_only = config.read_only
        self._segments: list[_Segment] = []
        self._fd = -1
        self._lock_fd = -1
        self._end = 0  # end of the data in the last segment (the write position)
        # Preallocation (`JournalConfig.preallocate`): new segments carry the flag; the
        # active one's flag (`_zero_tail`: zero bytes may follow its records), its size as
        # allocated (`_alloc`), and where allocating is tried again after a failure.
        self._prealloc = config.preallocate and not config.read_only
        self._zero_tail = False
        self._alloc = 0
        self._alloc_retry = 0
        self._next_seq = 1
        self._checkpoint_seq = 0
        self._total = 0
        self._torn = 0
        self._failed: str | None = None
        self._memory: MemoryJournal | None = None
        self._cond = threading.Condition(threading.Lock())
        self._written = 0  # bytes written this session; `_synced` trails it (group commit)
        self._synced = 0
        self._syncing = False
        # Shared mode: the flock is taken per append (`exclusive`); `_sig` is the directory
        # as this writer left it (segment and checkpoint files by name and inode).
        self._shared = config.shared and not config.read_only
        self._xdepth = 0
        self._unsynced = False
        self._inflight = 0  # the ticket of the sync `_append_op_fast` handed on (`_settle`)
        self._just_opened = False
        self._held = 0.0  # when the outermost hold (`_hold`) took the flock
        self._fresh = False  # that hold's `_refresh` completed
        # The directory generation (`LOCK`, `_bump`): `_lock_gen` as read when the flock was
        # taken (and bumped since by this writer), `_gen` the one this writer's view of the
        # segments and checkpoint is of (-1: unknown, list the directory again).
        self._lock_gen = 0
        self._gen = -1
        self._lock_head: bytes | None = None  # `LOCK` as this writer left it (`_flock`)
        self._bumped = False
        self._stamp = (
            f"{os.getpid()} {'shared' if self._shared else 'exclusive'}".ljust(LOCK_STAMP - 1)[
                : LOCK_STAMP - 1
            ].encode()
            + b"\n"
        )
        self._lock_waits: list[float] = [0, 0.0, 0.0]  # flocks taken, total, longest wait (s)
        # The next segment, created ahead by `_prepare` (a background thread) as an empty
        # file `next.spare` whose directory entry is durable: a roll then writes its header and
        # renames it, and the rolling append syncs only its record (`_roll_ahead`).
        self._spare_fd = -1
        self._forked_from = 0  # (in a forked child: the pid that opened it, `_watch_forks`)
        self._prep: threading.Thread | None = None
        # (old fd, its first seq, new fd, its sealed header's flags)
        self._sealing: tuple[int, int, int, int] | None = None
        if config.in_memory:
            self._memory = MemoryJournal(config, self._codec)
            return
        try:
            self._open()
        except JournalError:
            self._release()
            raise
        except OSError as exc:
            self._release()
            if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                raise JournalFullError(
                    f"no space left to open journal {self._dir}: free disk space (or raise "
                    "the file size limit, ulimit -f) and retry"
                ) from exc
            if not config.allow_degraded:
                raise _unusable(self._dir, exc, config.read_only) from exc
            self._log.warning("journal: %s unusable (%s); running in memory", self._dir, exc)
            self._memory = MemoryJournal(
                dataclasses.replace(config, in_memory=True, path=""), self._codec
            )
        if not self._read_only and self._memory is None:
            _watch_forks(self)

    # ---------------------------------------------------------------- opening

    def _open(self) -> None:
        if self._read_only:
            if not self._dir.is_dir():
                raise JournalError(f"no journal at {self._dir} (not a directory)")
        else:
            _makedirs_private(self._dir)
            self._acquire_lock()
            held = time.monotonic()
            self._finish_restore()
        self._load_state()
        if self._shared:
            self._gen = self._lock_gen
            self._just_opened = True  # the first replay needs no second lock (`_iter_chunks`)
            self._unflock()
            held = time.monotonic() - held
            LocalJournal._process_waits[3] = max(LocalJournal._process_waits[3], held)

    def _acquire_lock(self) -> None:
        lock = self._dir / "LOCK"
        try:
            mode = os.lstat(lock).st_mode
        except FileNotFoundError:
            pass  # the first open: created below
        else:
            if not stat.S_ISREG(mode):  # a directory, a symlink, a FIFO: never opened
                raise _LockNotAFile(lock, mode)
        self._lock_fd = _open_own(lock, os.O_RDWR | os.O_CREAT)
        self._flock()

    def _flock(self) -> None:
        """Take the writer lock (`_wait_flock` when another writer holds it), then read `LOCK`:
        who held it last (rewritten only when that was not this writer) and the directory
        generation (`_bump`), in one read."""
        fd = self._lock_fd
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._wait_flock()
        else:
            self._lock_waits[0] += 1  # no wait: the count only (total and longest stay)
            LocalJournal._process_waits[0] += 1
        head = os.pread(fd, LOCK_HEAD, 0)
        if head == self._lock_head:
            return  # as this writer left it: its stamp, the same generation
        digits = head[LOCK_STAMP : LOCK_HEAD - 1]
        self._lock_gen = int(digits) if len(digits) == LOCK_GEN and digits.isdigit() else 0
        if head[:LOCK_STAMP] != self._stamp:
            os.pwrite(fd, self._stamp, 0)
        self._lock_head = self._stamp + b"%020d\n" % self._lock_gen

    def _wait_flock(self) -> None:
        """Wait for the writer lock, polling (0.5 ms, doubling to 2 ms) until `lock_timeout`."""
        fd = self._lock_fd
        t0 = time.monotonic()
        deadline = t0 + self._config.lock_timeout
        pause = 0.0005
        while True:
            now = time.monotonic()
            if now >= deadline:
                pid, _, mode = os.pread(fd, 40, 0).decode(errors="replace").partition(" ")
                what = "an append" if mode.strip() == "shared" else "its life"
                raise JournalLockedError(
                    f"journal {self._dir} is locked by another writer (pid "
                    f"{pid.strip() or '?'}, which holds it for {what}); waited "
                    f"{self._config.lock_timeout:g} s: close the other journal, raise "
                    "lock_timeout, or open with read_only=True"
                ) from None
            time.sleep(min(pause, deadline - now))
            pause = min(pause * 2, 0.002)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                continue
        waited = time.monotonic() - t0
        for stats in (self._lock_waits, LocalJournal._process_waits):
            stats[0] += 1
            stats[1] += waited
            stats[2] = max(stats[2], waited)

    def _bump(self) -> None:
        """Count a change of the directory's segments or checkpoint in `LOCK` (under the
        flock, before the change), so each other writer lists the directory again the next
        time it takes the lock; an append (the usual case) lists nothing. A crash between
        the count and the change costs the others one listing."""
        if self._lock_fd < 0:
            return
        self._lock_gen += 1
        self._bumped = True
        os.pwrite(self._lock_fd, b"%020d\n" % self._lock_gen, LOCK_STAMP)
        self._lock_head = self._stamp + b"%020d\n" % self._lock_gen

    def _unflock(self) -> None:
        if self._lock_fd < 0:  # closed (in a forked child: `_forget_in_child`): none held
            return
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
        except OSError:  # its descriptor is closed: nothing is held
            return

    def _hold(self) -> None:
        """Enter the outermost hold of the writer lock, `self._lock` held (shared mode): take
        the flock and read what other writers did since this one last held it (`_refresh`).
        On an error nothing is held (the flock and `self._lock` are released)."""
        try:
            self._flock()
        except BaseException:
            self._lock.release()
            raise
        self._held = time.monotonic()
        self._just_opened = False
        self._xdepth = 1
        self._bumped = False
        self._fresh = False
        try:
            self._refresh()
        except BaseException:
            self._unhold(False)
            raise
        self._fresh = True

    def _unhold(self, done: bool) -> None:
        """Leave the outermost hold (`_hold`): unlock, then fdatasync what it appended
        (after the unlock: no writer waits for another's disk flush; the append returns
        after it), then release `self._lock`. `done`: the block ended without an error."""
        try:
            self._xdepth = 0
            try:
                # This writer's view is of the directory as it leaves it: it made its changes
                # itself (each counted, `_bump`). After a failure, or a change that raised
                # half-way, it lists the directory next time.
                ok = self._fresh and self._failed is None and (done or not self._bumped)
                self._gen = self._lock_gen if ok else -1
            finally:
                self._unflock()
                waits = LocalJournal._process_waits
                held = time.monotonic() - self._held
                if held > waits[3]:
                    waits[3] = held
        finally:
            try:
                if self._unsynced:
                    self._unsynced = False
                    self._sync_or_fail()
            finally:
                self._lock.release()

    def _hold_outer(self) -> bool:
        """`_hold` when no block of this thread holds the lock already (a CRS's fused commit
        of one op, `StateKernel.commit_op`); False, holding nothing, when the journal is
        not shared, runs in memory or is held already (`exclusive` is then the way)."""
        self._lock.acquire()
        if self._xdepth or not self._shared or self._memory is not None:
            self._lock.release()
            return False
        try:
            self._check_open()
        except BaseException:
            self._lock.release()
            raise
        self._hold()
        return True

    def _append_fast(self, data: bytes, known: int) -> int:
        """Append one encoded record in one Rust call (`_core.wal_append_shared`: the flock,
        the check that no other writer changed anything, the write, the unlock), then
        fdatasync (sync policy ALWAYS); its sequence number. 0 when it does not apply (the
        caller's state is not at `known` = this journal's last record, another writer's work
        to read, a roll, the lock busy, a limit to check): nothing was written, the caller
        takes `_hold_outer` / `_append_locked` / `_unhold`.

        Raises:
            JournalFullError, JournalError: the write or the sync failed (as an append).
        """
        size = RECORD_HEADER.size + len(data)
        return self._fast(known, size, _wal_append_shared, (data,), False)

    def _append_op_fast(self, kind: str, payload: dict[str, Any], bump: bool, known: int) -> int:
        """`_append_fast` of the op record `{"op": kind, "payload": payload,
        "bump_generation": bump}` with its encoding in the same Rust call
        (`_core.wal_append_op`: the bytes `DeltaCodec.encode_op` gives), for a journal of the
        default codec; 0 as `_append_fast` (nothing written: the caller encodes the record
        and takes the general path), also when the payload is not plain JSON data.

        The sync may still run when it returns (handed to the worker thread, `_core.
        sync_start`): the caller applies the record, then calls `_settle` (always, in a
        `finally`), which waits for it and releases this journal's lock, held until then so
        that nothing closes or replaces the segment under the sync.

        Raises:
            InvalidArgumentError: the record encodes to more than `MAX_RECORD_BYTES`.
            JournalFullError, JournalError: the write or the sync failed (as an append).
        """
        if type(self._codec) is not DeltaCodec:
            return 0
        mid = (_JSON_HEAD, kind, payload, bump, MAX_RECORD_BYTES)
        if _sync_start is not None and self._policy is SyncPolicy.ALWAYS:
            return self._fast(known, _OP_ROOM, _wal_append_op_ahead, mid, True)
        return self._fast(known, _OP_ROOM, _wal_append_op, mid, False)

    def _fast(
        self,
        known: int,
        size: int,
        append: Callable[..., tuple[int, ...]],
        mid: tuple[Any, ...],
        ahead: bool,
    ) -> int:
        """The one-call append: `append(lock_fd, fd, head, end, seq, *mid, room, zero_tail,
        grow_to)` (`wal_append_shared` or `wal_append_op`) of a record of at most `size`
        bytes (the space allocated ahead first) when nothing else needs doing, then the
        sync; its sequence number, or 0 (nothing written). `ahead`: `append` is
        `wal_append_op_ahead`, which hands the sync to the worker as soon as the record is
        written and returns its ticket too (`_settle` waits for it; 0: the worker was busy,
        the sync runs inline here)."""
        self._lock.acquire()
        kept = False
        try:
            if (
                self._xdepth
                or self._gen != self._lock_gen
                or self._next_seq - 1 != known
                or self._failed
                or self._sealing is not None
                or self._lock_head is None
                or self._fd < 0
                or self._state is not _State.OPEN
            ):
                return 0
            end = self._end
            room = self._seg_bytes - end if end > SEGMENT_HEADER.size else 1 << 62
            limit = self._config.max_journal_bytes
            if limit:  # (past it: `_ensure_room` checkpoints or refuses, on the general path)
                room = min(room, limit - self._total)
            # (`_grow_to` is 0 while the record fits in what is allocated: the usual case)
            grow = self._grow_to(end, size) if self._zero_tail and end + size > self._alloc else 0
            t0 = time.monotonic()
            got = append(
                self._lock_fd,
                self._fd,
                self._lock_head,
                end,
                self._next_seq,
                *mid,
                room,
                self._zero_tail,
                grow,
            )
            if ahead:
                status, value, ticket = got
                if ticket:  # (its sync runs: `_settle` waits for it and releases the lock)
                    self._inflight = ticket
                    kept = True
            else:
                (status, value), ticket = got, 0
            if grow and (status == 0 or 2 < status < 7):  # (it allocated)
                self._allocated(end, grow)
            if status:
                if status <= 2 or status == 7:
                    return 0
                if status == 8:
                    raise InvalidArgumentError(
                        f"delta encodes to {value} bytes; the limit is {MAX_RECORD_BYTES}"
                    )
                exc = OSError(value, os.strerror(value))
                if status == 4:
                    self._failed = f"a failed append could not be undone ({exc})"
                raise self._os_error(exc, "append to") from None
            held = time.monotonic() - t0
            waits = LocalJournal._process_waits
            waits[0] += 1
            if held > waits[3]:
                waits[3] = held
            self._lock_waits[0] += 1
            self._just_opened = False
            self._end = end + value
            self._total += value
            self._written += value
            seq = self._next_seq
            self._next_seq = seq + 1
            if self._policy is SyncPolicy.ALWAYS and not ticket:
                try:  # (`_sync_or_fail`, inline)
                    os.fdatasync(self._fd)
                except OSError as exc:
                    self._failed = f"fsync of journal {self._dir} failed ({exc})"
                    raise self._os_error(exc, "sync") from exc
            return seq
        except BaseException:
            if kept:  # (a sync in flight: `_settle` waits for it, then releases the lock)
                with contextlib.suppress(JournalError):  # (a failed sync fails the journal)
                    self._settle()
            raise
        finally:
            if not kept:
                self._lock.release()

    def _settle(self) -> None:
        """Wait for the sync `_append_op_fast` handed to the worker thread, if it did, then
        release the lock it kept; nothing when it synced inline. A failed sync fails the
        journal, as an inline one does (the record may or may not be on disk: nothing is
        acknowledged after it; the caller's state holds the record it applied meanwhile).

        Raises:
            JournalError: the sync failed.
        """
        ticket = self._inflight
        if not ticket:
            return
        self._inflight = 0
        try:
            err = _sync_wait(ticket, _SYNC_SPIN_US, _SYNC_PICKUP_US)
            if err:
                exc = OSError(err, os.strerror(err))
                self._failed = f"fsync of journal {self._dir} failed ({exc})"
                raise self._os_error(exc, "sync") from None
        finally:
            self._lock.release()

    def _grow_to(self, end: int, size: int) -> int:
        """Where to allocate the active (preallocated) segment up to before `size` bytes are
        written at `end`: 0 when this journal does not preallocate (it still continues a
        preallocated segment by its rules), when they fit in what is allocated, when it holds less
        than `PREALLOC_START` (a quarter of a smaller segment), when the chunk would not
        reach past them (the segment's size is its limit), or until a failed allocation is
        tried again. The chunk is as large as the data (at least `PREALLOC_MIN`, at most
        `PREALLOC_MAX`), its end a multiple of 4 KiB: a small journal stays small."""
        need = end + size
        start = min(PREALLOC_START, self._seg_bytes // 4)
        if not self._prealloc or need <= self._alloc or end < start or end < self._alloc_retry:
            return 0
        if _FALLOCATE is None:
            return 0
        chunk = min(PREALLOC_MAX, max(PREALLOC_MIN, end))
        target = min(self._seg_bytes, (need + chunk + 4095) & ~4095)
        return target if target > need else 0

    def _allocated(self, end: int, target: int) -> None:
        """Note the active segment's size after an allocation up to `target` was tried (a
        failure, e.g. a full disk, leaves the appends to grow the file; tried again 16 KiB
        later)."""
        try:
            self._alloc = os.fstat(self._fd).st_size
        except OSError:
            self._alloc = 0
        if self._alloc < target:
            self._alloc_retry = end + PREALLOC_MIN

    def _allocate(self, end: int, size: int) -> None:
        """Allocate ahead before `size` bytes are written at `end` (`_grow_to`), under the
        writer lock; no sync of its own: the append's fdatasync covers the size change."""
        target = self._grow_to(end, size)
        if target and _FALLOCATE is not None:
            with contextlib.suppress(OSError):
                _FALLOCATE(self._fd, end, target - end)
            self._allocated(end, target)

    def _fused(
        self,
    ) -> (
        tuple[
            Callable[[str, dict[str, Any], bool, int], int],
            Callable[[], bool],
            Callable[[list[bytes]], tuple[int, int]],
            Callable[[bool], None],
            Callable[[], None],
        ]
        | None
    ):
        """(`_append_op_fast`, `_hold_outer`, `_append_locked`, `_unhold`, `_settle`) for a
        CRS's fused commit of one op, or None when appends need more (not shared, in memory,
        group commit)."""
        if not self.shared or self._policy is SyncPolicy.BATCH:
            return None
        return (
            self._append_op_fast,
            self._hold_outer,
            self._append_locked,
            self._unhold,
            self._settle,
        )

    @property
    def shared(self) -> bool:
        """True when several processes may write this journal (`JournalConfig.shared`)."""
        return self._shared and self._memory is None

    @staticmethod
    def process_lock_waits() -> tuple[int, float, float]:
        """`lock_wait_stats` summed over every LocalJournal of this process."""
        n, total, longest, _ = LocalJournal._process_waits
        return int(n), total, longest

    @staticmethod
    def process_lock_hold_max() -> float:
        """The longest time (s) a LocalJournal of this process held a shared writer lock."""
        return LocalJournal._process_waits[3]

    def lock_wait_stats(self) -> tuple[int, float, float]:
        """(locks taken, total seconds waited, longest wait) of this journal's writer lock."""
        n, total, longest = self._lock_waits
        return int(n), total, longest

    def last_seq(self) -> int:
        """The last sequence number this journal knows (shared: as of its last lock)."""
        if self._memory is not None:
            return self._memory.stats().last_seq_num
        return self._next_seq - 1

    def exclusive(self) -> contextlib.AbstractContextManager[None]:
        """Hold the writer lock for the block; re-entrant, also across this process's threads.

        In shared mode, entering takes the `LOCK` flock and reads what other writers
        appended (or checkpointed, rolled, restored) since this journal last held it, so the
        block sees the whole log and its appends continue it. A CRS wraps each commit in it
        and first applies the records it has not seen. Otherwise the lock is held already.
        """
        return _Exclusive(self)

    def _refresh(self) -> None:
        """Take in other writers' work (shared mode, under the flock).

        The directory is listed only when its generation in `LOCK` moved (another writer
        rolled, checkpointed, restored or repaired: `_bump`); the active segment's tail is
        read only when there is a byte after this writer's end of the log (a one-byte
        `pread`, cheaper than an `fstat`)."""
        if (
            self._fd >= 0
            and self._gen == self._lock_gen
            and (self._nothing_after() or self._read_tail())
        ):
            return
        # Another writer rolled, checkpointed or restored (or left a torn tail): reopen.
        with self._cond:
            written = self._written
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.fdatasync(self._fd)
            os.close(self._fd)
            self._fd = -1
        self._guard_os("reopen", self._finish_restore)
        self._guard_os("reopen", self._load_state)
        self._gen = self._lock_gen
        with self._cond:  # group commit: what this writer wrote is synced
            self._written = self._synced = written

    def _nothing_after(self) -> bool:
        """No other writer appended: no byte after this writer's end of the log (a growing
        segment: a one-byte `pread`, cheaper than an `fstat`), or (a preallocated one) only
        zero bytes in the 24 bytes of a record header there (a real header is never zero)."""
        if not self._zero_tail:
            return not os.pread(self._fd, 1, self._end)
        after = os.pread(self._fd, RECORD_HEADER.size, self._end)
        return after.count(0) == len(after)

    def _read_tail(self) -> bool:
        """Read the records other writers added to the active segment; False when the tail
        is not a clean end (a crashed writer's torn record, damage): reopen instead."""
        pos, expected, size = self._end, self._next_seq, 1 << 16
        while True:
            data = os.pread(self._fd, size, pos)
            payloads, commit, stop_pos, stop, _ = _core.wal_scan(data, 0, expected, 1 << 62)
            pos += commit
            expected += len(payloads)
            if len(data) == size and stop in (_END, _INCOMPLETE):
                if not commit:
                    size *= 2  # a record (or batch) larger than the chunk
                continue
            # The end of the data: the file's, or zero bytes (a preallocated segment's zero
            # tail: also fewer than a header's 24 before its allocated end).
            ends = (_ZERO, _INCOMPLETE) if self._zero_tail else (_ZERO,)
            clean = (stop == _END and commit == len(data)) or (
                stop in ends and commit == stop_pos and _zero_from(data, commit)
            )
            if not clean:
                return False
            self._total += pos - self._end
            self._end, self._next_seq = pos, expected
            return True

    def _load_state(self) -> None:
        """Read the checkpoint and the segment list; find (and repair) the end of the log."""
        self._segments = sorted(
            (
                _Segment(int(p.name[: -len(SEGMENT_SUFFIX)]), p)
                for p in self._dir.glob("*" + SEGMENT_SUFFIX)
                if p.name[: -len(SEGMENT_SUFFIX)].isdigit()
            ),
            key=lambda s: s.first_seq,
        )
        self._adopt_spare()
        self._checkpoint_seq = self._read_checkpoint()
        self._drop_torn_creation()
        self._torn = 0
        if not self._segments:
            if (self._dir / "CHECKPOINT").exists():
                # A checkpoint never drops the active segment: the log's end is gone.
                self._lost(
                    f"journal {self._dir} has a CHECKPOINT (seq {self._checkpoint_seq}) but "
                    "no segment: its active segment was deleted, with every record after "
                    "the checkpoint"
                )
            self._next_seq = self._checkpoint_seq + 1
            if not self._read_only:
                self._fd = self._create_segment(self._next_seq)
                self._segments.append(_Segment(self._next_seq, self._seg_path(self._next_seq)))
            self._end = SEGMENT_HEADER.size
            self._new_active()
        else:
            self._recover_tail()
        self._total = sum(s.path.stat().st_size for s in self._segments[:-1]) + self._end
        self._written = self._synced = 0
        if not self._read_only:
            self._seal_previous()
            if not self._shared and self._spare_fd < 0:
                self._spare_fd = self._open_spare()

    def _adopt_spare(self) -> None:
        """Take in a spare segment that a roll had started to use.

        A roll writes the spare's header and renames it to its segment name; its append is
        acknowledged once the record is synced, before the rename is (the next directory
        sync makes it durable). So after a crash the spare may hold acknowledged records:
        its header names its first sequence number, and it is renamed to that segment (a
        reader reads it in place). An empty spare stays the spare; one no longer than a
        header whose header is not valid had its header write cut short (its append never
        returned) and is emptied again. A longer one with a damaged header is corruption."""
        path = self._dir / SPARE
        try:
            data = _read_file(path)
        except FileNotFoundError:
            return
        except OSError as exc:  # a planted symlink (never followed), a directory
            self._log.warning("journal: ignoring %s (%s)", path, exc)
            if not self._read_only and path.is_symlink():
                path.unlink()
            return
        if os.lstat(path).st_nlink > 1:  # a planted hard link: never written, never adopted
            self._log.warning("journal: ignoring %s (it has other hard links)", path)
            if not self._read_only:
                path.unlink()  # (the other names keep their file)
            return
        if not data:
            return
        if not _header_ok(data, path):
            if len(data) > SEGMENT_HEADER.size:
                raise JournalCorruptedError(
                    f"{path}: the segment a roll had started ({len(data)} bytes) has a damaged "
                    "header; restore a backup, or move it away to open without its records"
                )
            if not self._read_only:
                self._log.warning("journal: emptying %s (its first write was cut short)", path)
                fd = _open_own(path, os.O_RDWR)
                try:
                    os.ftruncate(fd, 0)
                    os.fsync(fd)
                finally:
                    os.close(fd)
            return
        first = _parse_segment_header(data, path)
        final = self._seg_path(first)
        if final.exists():
            raise JournalCorruptedError(
                f"{path} starts at seq {first} and so does {final}: restore a backup, or "
                "move one of them away"
            )
        if not self._read_only:
            self._log.warning("journal: %s becomes %s (a roll was interrupted)", path, final)
            self._bump()
            os.rename(path, final)
            _fsync_dir(self._dir)
            path = final
        self._segments.append(_Segment(first, path))
        self._segments.sort(key=lambda s: s.first_seq)

    def _open_spare(self) -> int:
        """The descriptor of the empty spare segment, or -1 (none, or not a regular file)."""
        try:
            fd = _open_own(self._dir / SPARE, os.O_RDWR | os.O_NONBLOCK)
        except OSError:
            return -1
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) and st.st_size == 0:
            return fd
        os.close(fd)
        return -1

    def _seal_previous(self) -> None:
        """Seal the segment before the last if a crash came before its seal (`_prepare`)."""
        if len(self._segments) < 2:
            return
        prev = self._segments[-2]
        fd = _open_own(prev.path, os.O_RDWR)
        try:
            head = os.pread(fd, SEGMENT_HEADER.size, 0)
            flags = SEGMENT_HEADER.unpack(head)[3] if len(head) == SEGMENT_HEADER.size else 0
            if _header_ok(head, prev.path) and not flags & SEGMENT_SEALED:
                if flags & SEGMENT_PREALLOCATED:
                    # Its space allocated ahead was not cut off yet either (`_roll_ahead`).
                    data = _read_fd(fd, None)
                    _, commit, stop_pos, stop, _ = _core.wal_scan(
                        data, SEGMENT_HEADER.size, prev.first_seq, 1 << 62
                    )
                    if stop == _ZERO and commit == stop_pos and _zero_from(data, commit):
                        os.ftruncate(fd, commit)
                os.pwrite(fd, _segment_header(prev.first_seq, SEGMENT_SEALED | flags), 0)
                os.fsync(fd)
        finally:
            os.close(fd)

    def _drop_torn_creation(self) -> None:
        """Remove a last segment whose creation was interrupted: no valid header, and
        provably no record (the file is no longer than a header). A damaged header on a
        longer file is corruption (`_segment_first`), never a reason to delete it."""
        while self._segments:
            path = self._segments[-1].path
            data = _read_file(path, SEGMENT_HEADER.size + 1)
            try:
                _parse_segment_header(data, path)
                return
            except JournalCorruptedError:
                if len(data) > SEGMENT_HEADER.size:
                    return  # it may hold records: `_recover_tail` reports (or skips) it
            if self._read_only:
                self._segments.pop()
                continue
            self._log.warning("journal: removing %s (its creation was interrupted)", path)
            self._bump()
            path.unlink()
            _fsync_dir(self._dir)
            self._segments.pop()

    def _segment_first(self, data: bytes, path: Path) -> tuple[int, bool]:
        """The segment's first sequence number, and whether its header is valid.

        A damaged header raises `JournalCorruptedError`, unless `skip_corrupted_deltas`: then
        the first number comes from the file name and the records (each with its own
        checksums and sequence number) are read as usual."""
        try:
            return _parse_segment_header(data, path), True
        except JournalCorruptedError as exc:
            if len(data) < SEGMENT_HEADER.size:
                raise
            if not self._config.skip_corrupted_deltas:
                raise JournalCorruptedError(
                    f"{exc}; it holds records: restore a backup, or open with "
                    "skip_corrupted_deltas=True to read its records by their own checksums"
                ) from None
            self._log.warning("journal: %s; reading its records by their checksums", exc)
            return int(path.name[: -len(SEGMENT_SUFFIX)]), False

    def _lost(self, why: str) -> None:
        """Missing records: `JournalCorruptedError`, or (skipping) a logged warning."""
        if not (self._config.skip_corrupted_deltas or self._read_only):
            raise JournalCorruptedError(
                f"{why}; restore the journal directory or a backup, or open with "
                "skip_corrupted_deltas=True to go on without them"
            )
        self._log.warning("journal: %s; going on without them", why)

    def _recover_tail(self) -> None:
        last = self._segments[-1]
        data = _read_file(last.path)
        first, header_ok = self._segment_first(data, last.path)
        flags = SEGMENT_HEADER.unpack_from(data)[3] if header_ok else 0
        zero_tail = bool(flags & SEGMENT_PREALLOCATED)
        if flags & SEGMENT_SEALED:
            self._lost(
                f"{last.path} was sealed when the next segment was created, and that segment "
                "is missing (deleted): the records after it are lost"
            )
        payloads, commit, stop_pos, stop, found = _core.wal_scan(
            data, SEGMENT_HEADER.size, first, 1 << 62
        )
        next_seq = first + len(payloads)
        end = commit
        torn = _torn_preallocated if zero_tail else _is_torn
        if stop != _END and not torn(data, stop, stop_pos):
            if not (self._config.skip_corrupted_deltas or self._read_only):
                raise self._damage(last.path, stop, commit, next_seq, found)
            # Readers report the damage on replay. The damaged record held seq `next_seq`
            # at least, so appends go after it.
            next_seq = self._last_valid_seq(data, stop_pos, next_seq + 1)
            end = len(data)  # the damaged segment is left as it is; appends go to a new one
        elif not header_ok:
            end = len(data)  # its records are read; appends go to a new segment
        written = end if _zero_from(data, end) else len(data.rstrip(b"\0"))
        if written > end:
            self._torn = written - end
            self._log.warning(
                "journal: %s ends in a torn write; removing its last %d bytes",
                last.path,
                self._torn,
            )
        self._next_seq = max(next_seq, self._checkpoint_seq + 1)
        self._end = end
        self._zero_tail, self._alloc, self._alloc_retry = zero_tail, len(data), 0
        if self._read_only:
            return
        fd = _open_own(last.path, os.O_RDWR)
        self._fd = fd
        if end == len(data) and (stop != _END or not header_ok):  # damaged: a fresh segment
            self._roll()
        elif written > end or (len(data) > end and not zero_tail):
            # The torn write, and zero fill left by an older crs (a preallocated segment
            # keeps the space allocated after its records).
            os.ftruncate(fd, end)
            os.fsync(fd)
            self._alloc = end

    def _last_valid_seq(self, data: bytes, pos: int, next_seq: int) -> int:
        """The sequence number after the last valid record after `pos` (damaged segment)."""
        while (hit := _core.wal_resync(data, pos + 1, False)) is not None:
            pos, seq = hit
            next_seq = max(next_seq, seq + 1)
        return next_seq

    def _read_checkpoint(self) -> int:
        """The checkpoint's sequence number (0 without one).

        A damaged CHECKPOINT file is replaced by the lowest position consistent with the
        segments on disk (the one before the first segment's first record): replay then
        returns every record still stored, and a reader whose state (a backup) covers the
        dropped ones loses nothing; one that needs a dropped record gets a sequence gap."""
        path = self._dir / "CHECKPOINT"
        try:
            data = _read_file(path)
        except FileNotFoundError:
            return 0
        seq = -1
        if len(data) == CHECKPOINT_FILE.size:
            magic, version, seq, crc = CHECKPOINT_FILE.unpack(data)
            if magic != CHECKPOINT_MAGIC or crc != crc32c(data[:20]) or version != 1:
                seq = -1
        if seq >= 0:
            if self._last_checkpoint is None:  # when it happened, also for a reopened journal
                with contextlib.suppress(OSError):
                    mtime = path.stat().st_mtime
                    self._last_checkpoint = _dt.datetime.fromtimestamp(mtime, _dt.UTC)
            result: int = seq
            return result
        seq = self._segments[0].first_seq - 1 if self._segments else 0
        self._log.warning(
            "journal: %s is damaged; using position %d (before the first stored record)",
            path,
            seq,
        )
        if not self._read_only:
            self._bump()
            self._write_checkpoint(self._dir, seq)
        return seq

    # ---------------------------------------------------------------- segments

    def _seg_path(self, first_seq: int, directory: Path | None = None) -> Path:
        return (directory or self._dir) / f"{first_seq:020d}{SEGMENT_SUFFIX}"

    def _create_segment(self, first_seq: int, directory: Path | None = None) -> int:
        """Create a segment holding only its header (it grows as records are appended: no
        zero fill, so a new journal costs 32 bytes and opening reads only written data)."""
        path = self._seg_path(first_seq, directory)
        if directory is None:
            self._bump()
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW, FILE_MODE)
        try:
            os.write(fd, _segment_header(first_seq, self._new_flags()))
            os.fsync(fd)
            _fsync_dir(path.parent)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                path.unlink()
            raise
        return fd

    def _new_flags(self) -> int:
        """The header flags of a new segment."""
        return SEGMENT_PREALLOCATED if self._prealloc else 0

    def _new_active(self) -> None:
        """The active segment is a new one (header only), created by this journal."""
        self._zero_tail = self._prealloc
        self._alloc = SEGMENT_HEADER.size
        self._alloc_retry = 0

    def _old_flags(self) -> int:
        """The header flags of the active segment (before it is sealed)."""
        return SEGMENT_PREALLOCATED if self._zero_tail else 0

    def _roll(self) -> None:
        """Seal the active segment and start a new one at the next sequence number."""
        fd = self._create_segment(self._next_seq)
        old, old_first, old_flags = self._fd, self._segments[-1].first_seq, self._old_flags()
        sealed = False
        try:
            if os.fstat(old).st_size > self._end:
                os.ftruncate(old, self._end)
            # Seal it: the log goes on in the new segment (already durable), so a journal
            # that ends here later has lost its last segment (detected on open). One fsync
            # makes its records, its length and the seal durable.
            seal = _segment_header(old_first, SEGMENT_SEALED | old_flags)
            sealed = os.pwrite(old, seal, 0) > 0
            os.fsync(old)
        except BaseException:
            os.close(fd)  # keep the old segment active; a later roll creates the new one again
            try:
                if sealed:
                    os.pwrite(old, _segment_header(old_first, old_flags), 0)
                    os.fsync(old)
                self._seg_path(self._next_seq).unlink()
            except OSError as exc:
                self._failed = f"a failed segment roll could not be undone ({exc})"
            raise
        os.close(old)
        self._fd = fd
        self._segments.append(_Segment(self._next_seq, self._seg_path(self._next_seq)))
        self._end = SEGMENT_HEADER.size
        self._total += SEGMENT_HEADER.size
        self._new_active()
        with self._cond:
            self._synced = self._written

    def _roll_ahead(self) -> None:
        """Roll into the spare segment created ahead: write its header and rename it; the
        rolling append then syncs its record and the header with one `fdatasync`. The old
        segment is sealed, once the new header is durable, and the next spare is created, in
        the background (`_prepare`). Without a spare (shared mode, or it could not be
        created): `_roll`."""
        self._join_prep()
        fd = self._spare_fd
        if fd < 0 or self._shared:
            self._roll()
            return
        old, old_first, seq = self._fd, self._segments[-1].first_seq, self._next_seq
        seal_flags = SEGMENT_SEALED | self._old_flags()
        path = self._seg_path(seq)
        dup = -1
        try:
            if os.fstat(old).st_size > self._end:
                os.ftruncate(old, self._end)  # space allocated ahead, zero fill of an older crs
            if self._policy is SyncPolicy.BATCH and self._synced < self._written:
                os.fdatasync(old)  # group commit waiters sync the new segment only
            dup = os.dup(fd)
            os.pwrite(fd, _segment_header(seq, self._new_flags()), 0)
            self._bump()
            os.rename(self._dir / SPARE, path)
        except BaseException:
            if dup >= 0:
                os.close(dup)
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)  # still the (empty) spare; the old segment stays active
            raise
        self._spare_fd = -1
        self._fd = fd
        self._segments.append(_Segment(seq, path))
        self._end = SEGMENT_HEADER.size
        self._total += SEGMENT_HEADER.size
        self._new_active()
        with self._cond:
            self._synced = self._written
        # Started once the rolling append is written.
        self._sealing = (old, old_first, dup, seal_flags)

    def _start_prep(self, seal: tuple[int, int, int, int] | None) -> None:
        self._prep = threading.Thread(
            target=self._prepare, args=(seal,), name="crs-journal-prepare", daemon=True
        )
        self._prep.start()

    def _join_prep(self) -> None:
        if self._prep is not None:
            self._prep.join()
            self._prep = None

    def _prepare(self, seal: tuple[int, int, int, int] | None) -> None:
        """Background work of a roll (off the append path): make the new segment's header
        durable, then seal the old segment (`seal`: its descriptor, first seq, and a
        descriptor of the new one) and sync the directory (the rename); then create the next
        spare, empty, with its directory entry synced. A failure is logged: the next roll
        then creates its segment itself, and an unsealed segment is sealed on open."""
        try:
            path = self._dir / SPARE
            if seal is not None:
                old, first, new, flags = seal
                try:
                    if self._policy is not SyncPolicy.ALWAYS:
                        os.fdatasync(new)  # the seal is never durable before the new header
                    os.pwrite(old, _segment_header(first, flags), 0)
                    os.fdatasync(old)
                finally:
                    os.close(old)
                    os.close(new)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW, FILE_MODE)
            try:
                _fsync_dir(self._dir)  # the roll's rename and the new spare
            except BaseException:
                os.close(fd)
                with contextlib.suppress(OSError):
                    path.unlink()
                raise
            self._spare_fd = fd
        except OSError as exc:
            self._log.warning(
                "journal: cannot prepare the next segment of %s (%s); a roll creates it",
                self._dir,
                exc,
            )

    # ---------------------------------------------------------------- appends

    def _write_unit(self, payloads: list[bytes]) -> int:
        if self._memory is not None:
            return self._memory._write_unit(payloads)
        with self._lock:
            if self._xdepth or not self._shared:
                # Inside `exclusive` already (a CRS commit), or the lock is held for life.
                self._check_open()
                target, last = self._append_locked(payloads)
            else:
                with self.exclusive():
                    target, last = self._append_locked(payloads)
        if self._policy is SyncPolicy.BATCH:
            self._group_commit(target)
        return last

    def _append_locked(self, payloads: list[bytes]) -> tuple[int, int]:
        """Write one unit under the writer lock; (bytes written so far, its last seq)."""
        if self._read_only:
            raise JournalError(f"journal {self._dir} was opened read_only; it takes no appends")
        if self._failed:
            raise JournalError(f"{self._failed}; close the journal and open it again")
        frame = _core.wal_encode(self._next_seq, payloads)
        size = len(frame)
        if self._config.max_journal_bytes and self._total + size > self._config.max_journal_bytes:
            self._ensure_room(size)
        if self._end + size > self._seg_bytes and self._end > SEGMENT_HEADER.size:
            self._guard_os("start a new segment in", self._roll_ahead)
        pos = self._end
        if self._zero_tail:
            self._allocate(pos, size)
        try:
            done = os.pwrite(self._fd, frame, pos)
            while done < size:  # short write (rare): go on until done or an error
                n = os.pwrite(self._fd, memoryview(frame)[done:], pos + done)
                if n <= 0:
                    raise OSError(errno.ENOSPC, "short write")
                done += n
            if self._policy is SyncPolicy.ALWAYS:
                if self._xdepth and self._shared:
                    self._unsynced = True  # synced as the lock is released (`exclusive`)
                else:
                    os.fdatasync(self._fd)
        except OSError as exc:
            self._repair(pos)
            raise self._os_error(exc, "append to") from exc
        self._end += size
        self._total += size
        self._next_seq += len(payloads)
        self._written += size  # guarded by self._lock; `_synced` by self._cond
        target, last = self._written, self._next_seq - 1
        if self._sealing is not None:
            seal, self._sealing = self._sealing, None
            self._start_prep(seal)
        elif (
            not self._shared
            and self._spare_fd < 0
            and self._prep is None
            and (self._end * 2 > self._seg_bytes)
        ):
            self._start_prep(None)  # half full: create the next segment ahead
        return target, last

    def _ensure_room(self, size: int) -> None:
        limit = self._config.max_journal_bytes
        if not limit or self._total + size <= limit:
            return
        if self._config.auto_checkpoint:
            seq = self._full_checkpoint_seq(self._next_seq - 1)
            self._log.warning("journal: size limit reached; automatic checkpoint at seq %d", seq)
            self._checkpoint_locked(seq)
            if self._total + size <= limit:
                return
        raise JournalFullError(
            f"journal size limit exceeded ({self._total} + {size} bytes > "
            f"max_journal_bytes={limit}); checkpoint it or raise the limit"
        )

    def _repair(self, pos: int) -> None:
        """Cut a failed write back off the active segment so the log ends at `pos`."""
        try:
            os.ftruncate(self._fd, pos)
            self._alloc = pos
        except OSError as exc:
            self._failed = f"a failed append could not be undone ({exc})"

    def _guard_os(self, what: str, fn: Callable[[], None]) -> None:
        try:
            fn()
        except OSError as exc:
            raise self._os_error(exc, what) from exc

    def _os_error(self, exc: OSError, what: str) -> JournalError:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return JournalFullError(
                f"no space left to {what} journal {self._dir}; nothing was written: free disk "
                "space and retry (the journal stays usable)"
            )
        if exc.errno == errno.EFBIG:  # the process's file size limit (ulimit -f, RLIMIT_FSIZE)
            return JournalFullError(
                f"cannot {what} journal {self._dir}: the file size limit of this process "
                "(ulimit -f) is reached; nothing was written: raise the limit, or make "
                "segments smaller (JournalConfig.segment_bytes), and retry (the journal stays "
                "usable)"
            )
        return JournalError(f"cannot {what} journal {self._dir}: {exc}")

    def _group_commit(self, target: int) -> None:
        """Return once an fsync covering `target` bytes is done; one caller syncs for all."""
        with self._cond:
            while self._synced < target:
                if not self._syncing:
                    self._syncing = True
                    break
                self._cond.wait()
            else:
                return
        goal = 0
        try:
            if self._config.batch_interval:
                time.sleep(self._config.batch_interval)
            with self._lock:
                if self._failed:
                    raise JournalError(f"{self._failed}; close the journal and open it again")
                with self._cond:
                    goal = self._written
                self._sync_or_fail()
        finally:
            with self._cond:
                self._syncing = False
                self._synced = max(self._synced, goal)
                self._cond.notify_all()

    def _sync_or_fail(self) -> None:
        """fdatasync the active segment; a failed sync fails the journal (its writes may be
        lost: nothing is acknowledged after it) and raises the typed error."""
        try:
            os.fdatasync(self._fd)
        except OSError as exc:
            self._failed = f"fsync of journal {self._dir} failed ({exc})"
            raise self._os_error(exc, "sync") from exc

    def sync(self) -> None:
        """Force every appended record to stable storage."""
        self._check_open()
        if self._memory is not None or self._read_only:
            return
        with self._lock:
            self._guard_os("sync", lambda: os.fdatasync(self._fd))
            with self._cond:
                self._synced = self._written

    # ---------------------------------------------------------------- replay

    def _iter_chunks(self, after_seq: int) -> Iterator[tuple[int, list[bytes]] | DeltaOrError]:
        if self._memory is not None:
            yield from self._memory._iter_chunks(after_seq)
            return
        # Shared: a brief lock reads what other writers appended, so replay sees it too
        # (not for the replay right after opening, which read the log under the lock).
        fresh, self._just_opened = self._just_opened, False
        with self.exclusive() if self._shared and not fresh else self._lock:
            segments = list(self._segments)
            last_end, next_seq = self._end, self._next_seq
            start = max(after_seq, self._checkpoint_seq)
            while len(segments) > 1 and segments[1].first_seq <= start + 1:
                segments.pop(0)
            # Opened now, so a checkpoint that drops a segment while the replay reads the
            # ones before it cannot cut a hole in what the replay returns.
            files = [_open_reading(seg.path) for seg in segments]
        try:
            expected = segments[0].first_seq if segments else next_seq
            if expected > start + 1:
                raise JournalSequenceGapError(
                    f"journal {self._dir} starts at seq {expected}, replay needs seq {start + 1}"
                )
            for i, seg in enumerate(segments):
                is_last = i == len(segments) - 1
                upto = next_seq if is_last else segments[i + 1].first_seq
                if seg.first_seq != expected:
                    yield from self._gap(expected, seg.first_seq, start, seg.path)
                    expected = seg.first_seq
                expected = yield from self._scan_segment(
                    seg, files[i], expected, start, upto, last_end if is_last else None
                )
        finally:
            for f in files:
                if isinstance(f, int):
                    os.close(f)

    def _gap(self, expected: int, found: int, start: int, path: Path) -> Iterator[DeltaOrError]:
        if found < expected or not self._config.skip_corrupted_deltas:
            raise JournalSequenceGapError(f"{path}: expected seq {expected}, got {found}")
        yield from self._skipped(expected, found, start, f"{path}: sequence gap")

    def _skipped(self, lo: int, hi: int, start: int, why: str) -> Iterator[DeltaOrError]:
        """Skip items for seqs `lo..hi-1` (those after `start` are reported)."""
        self._skip(hi - lo, why)
        err = JournalCorruptedError(why)
        for seq in range(max(lo, start + 1), hi):
            yield DeltaOrError(seq_num=seq, err=err, skipped=True)

    def _damage(self, path: Path, stop: int, offset: int, seq: int, found: int) -> JournalError:
        if stop == _GAP:
            return JournalSequenceGapError(f"{path}: expected seq {seq}, got {found}")
        return JournalCorruptedError(
            f"{path}: the record at offset {offset} (seq {seq}) {_REASONS.get(stop, 'is bad')}; "
            "restore a backup, or open with skip_corrupted_deltas=True to skip damaged records"
        )

    def _scan_segment(
        self,
        seg: _Segment,
        fd: int | OSError,
        expected: int,
        start: int,
        upto: int,
        end: int | None,
    ) -> Generator[tuple[int, list[bytes]] | DeltaOrError, None, int]:
        """Yield the records of one segment (`fd`, opened for reading, or why it could not
        be opened); return the next expected sequence number."""
        try:
            if isinstance(fd, OSError):
                raise fd
            data = _read_fd(fd, end)
            if not _header_ok(data, seg.path):
                # A writer may be sealing it (rewriting its 32-byte header) as we read: once
                # more, then the header decides.
                data = _read_fd(fd, end)
            self._segment_first(data, seg.path)
        except (OSError, JournalCorruptedError) as exc:
            if isinstance(exc, FileNotFoundError) and self._checkpoint_seq >= upto - 1:
                return upto  # a checkpoint dropped it while we read; nothing in it is replayed
            if not self._config.skip_corrupted_deltas:
                raise JournalCorruptedError(f"cannot read segment {seg.path}: {exc}") from exc
            yield from self._skipped(expected, upto, start, f"{seg.path}: {exc}")
            return upto
        pos = SEGMENT_HEADER.size
        while True:
            payloads, commit, stop_pos, stop, found = _core.wal_scan(
                data, pos, expected, _SCAN_RECORDS
            )
            if payloads:
                drop = max(0, start + 1 - expected)
                if drop < len(payloads):
                    yield expected + drop, payloads[drop:] if drop else payloads
                expected += len(payloads)
            pos = commit
            if stop == _LIMIT:
                continue
            if stop == _END and commit == len(data):
                return expected
            if stop in (_ZERO, _INCOMPLETE) and commit == stop_pos and _zero_from(data, commit):
                return expected  # preallocated space left by a crash while sealing
            if not self._config.skip_corrupted_deltas:
                raise self._damage(seg.path, stop, commit, expected, found)
            hit = _core.wal_resync(data, stop_pos + 1, True)
            while hit is not None and hit[1] < expected:
                hit = _core.wal_resync(data, hit[0] + 1, True)
            if hit is None:
                yield from self._skipped(expected, upto, start, f"{seg.path}: damaged records")
                return upto
            pos, seq = hit
            yield from self._skipped(expected, seq, start, f"{seg.path}: damaged records")
            expected = seq

    # ---------------------------------------------------------------- checkpoint

    def checkpoint(self, seq: int | None = None) -> None:
        """Mark entries up to `seq` (default: the last) as covered and drop whole segments.

        Replay then starts after `seq`. Segments whose records are all covered are deleted;
        the active segment is kept.
        """
        if self._memory is not None:
            self._memory.checkpoint(seq)
            return
        with self.exclusive():
            if self._read_only:
                raise JournalError(f"journal {self._dir} was opened read_only; cannot checkpoint")
            last = self._next_seq - 1
            self._checkpoint_locked(last if seq is None else _check_seq(seq, last))

    def _checkpoint_locked(self, seq: int) -> None:
        self._last_checkpoint = _dt.datetime.now(_dt.UTC)
        if seq <= self._checkpoint_seq:
            return
        self._guard_os("checkpoint", self._bump)
        if seq >= self._next_seq - 1 and self._end > SEGMENT_HEADER.size:
            # Every record is covered: seal the active segment too, so it can be dropped
            # (a size limit below one segment is then freed by checkpointing, as advised).
            self._guard_os("start a new segment in", self._roll)
        self._guard_os("checkpoint", lambda: self._write_checkpoint(self._dir, seq))
        self._checkpoint_seq = seq
        dropped = False
        while len(self._segments) > 1 and self._segments[1].first_seq <= seq + 1:
            seg = self._segments.pop(0)
            with contextlib.suppress(FileNotFoundError):
                self._total -= seg.path.stat().st_size
                seg.path.unlink()
            dropped = True
        if dropped:
            self._guard_os("checkpoint", lambda: _fsync_dir(self._dir))

    @staticmethod
    def _write_checkpoint(directory: Path, seq: int) -> None:
        head = CHECKPOINT_FILE.pack(CHECKPOINT_MAGIC, 1, seq, 0)[:20]
        tmp = directory / "CHECKPOINT.tmp"
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()  # a symlink planted there is removed, never followed
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, FILE_MODE)
        with os.fdopen(fd, "wb") as f:
            f.write(head + struct.pack("<I", crc32c(head)))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, directory / "CHECKPOINT")
        _fsync_dir(directory)

    # ---------------------------------------------------------------- backup / restore

    def backup(self, stream: IO[bytes]) -> None:
        """Write every live entry to `stream` in the portable backup format.

        Damaged records raise (or, with `skip_corrupted_deltas`, are left out, and the
        resulting stream has a sequence gap that `restore` refuses).
        """
        if self._memory is not None:
            self._memory.backup(stream)
            return
        self._check_open()
        self._just_opened = False  # shared: read what others appended since the open too

        def records() -> Iterator[tuple[int, bytes]]:
            for item in self._iter_chunks(0):
                if isinstance(item, DeltaOrError):
                    continue
                first, payloads = item
                yield from enumerate(payloads, first)

        write_backup_stream(stream, self._checkpoint_seq, records())

    def restore(self, stream: IO[bytes]) -> None:
        """Replace the journal's content with a backup stream, all or nothing.

        The new segments are written and fsynced beside the old ones, then swapped in under a
        manifest, so a crash at any point leaves either the old or the new journal.
        """
        if self._memory is not None:
            self._memory.restore(stream)
            return
        import shutil  # inside: start-up (only a restore removes directories)

        with self.exclusive():
            if self._read_only:
                raise JournalError(f"journal {self._dir} was opened read_only; cannot restore")
            tmp = self._dir / RESTORE_DIR
            try:
                shutil.rmtree(tmp, ignore_errors=True)
                tmp.mkdir(mode=DIR_MODE)
                names = self._write_restored(tmp, stream)
                manifest = tmp / (MANIFEST + ".tmp")
                fd = os.open(manifest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, FILE_MODE)
                with os.fdopen(fd, "wb") as f:
                    f.write(json.dumps(names).encode())
                    f.flush()
                    os.fsync(f.fileno())
                self._bump()  # from the complete manifest on, the restore is the journal
                os.replace(manifest, tmp / MANIFEST)
                _fsync_dir(tmp)
            except BaseException as exc:
                shutil.rmtree(tmp, ignore_errors=True)
                if isinstance(exc, OSError):
                    raise self._os_error(exc, "restore") from exc
                raise
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1
            self._join_prep()
            if self._spare_fd >= 0:
                os.close(self._spare_fd)  # the restored journal gets a spare of its own
                self._spare_fd = -1
            if self._sealing is not None:
                for fd in (self._sealing[0], self._sealing[2]):
                    os.close(fd)
                self._sealing = None
            self._guard_os("restore", self._finish_restore)
            self._guard_os("reopen", self._load_state)
            self._corrupted = 0
            self._failed = None

    def _write_restored(self, tmp: Path, stream: IO[bytes]) -> list[str]:
        checkpoint_seq, records = read_backup_stream(stream)
        names: list[str] = []
        fd, pos = -1, 0
        try:
            for seq, payload in records:
                frame = _core.wal_encode(seq, [payload])
                if fd < 0 or (pos + len(frame) > self._seg_bytes and pos > SEGMENT_HEADER.size):
                    if fd >= 0:
                        os.fsync(fd)
                        os.close(fd)
                    fd, pos = self._create_segment(seq, tmp), SEGMENT_HEADER.size
                    names.append(self._seg_path(seq).name)
                os.pwrite(fd, frame, pos)
                pos += len(frame)
            if fd < 0:
                os.close(self._create_segment(checkpoint_seq + 1, tmp))
                names.append(self._seg_path(checkpoint_seq + 1).name)
            else:
                os.fsync(fd)
        finally:
            if fd >= 0:
                os.close(fd)
        self._write_checkpoint(tmp, checkpoint_seq)
        return [*names, "CHECKPOINT"]

    def _finish_restore(self) -> None:
        """Swap a completely written restore in (idempotent), or drop an incomplete one."""
        tmp = self._dir / RESTORE_DIR
        if not tmp.exists():
            return
        import shutil  # inside: start-up (as in restore)

        self._bump()
        try:
            names = set(json.loads(_read_file(tmp / MANIFEST)))
        except FileNotFoundError:
            shutil.rmtree(tmp)
            return
        for p in self._dir.iterdir():
            ours = p.suffix == SEGMENT_SUFFIX or p.name in ("CHECKPOINT", SPARE)
            if ours and p.name not in names:
                p.unlink()  # the spare too: it may hold the old journal's last records
        for name in names:
            if (tmp / name).exists():
                os.replace(tmp / name, self._dir / name)
        _fsync_dir(self._dir)
        shutil.rmtree(tmp)
        _fsync_dir(self._dir)

    # ---------------------------------------------------------------- state

    def is_degraded(self) -> bool:
        """True when the journal could not be opened and runs in memory."""
        return self._memory is not None and not self._config.in_memory

    @property
    def path(self) -> Path:
        """The journal directory."""
        return self._dir

    def stats(self) -> JournalStats:
        """Current metrics."""
        if self._memory is not None:
            inner = self._memory.stats()
            return dataclasses.replace(inner, degraded=True)
        with self._lock:
            last = self._next_seq - 1
            return JournalStats(
                total_deltas=max(0, last - self._checkpoint_seq),
                total_bytes=self._total,
                last_seq_num=last,
                last_checkpoint=self._last_checkpoint,
                corrupted_count=self._corrupted,
                checkpoint_seq=self._checkpoint_seq,
                segments=len(self._segments),
                torn_bytes=self._torn,
            )

    def _forget_in_child(self) -> None:
        """Close this journal in a child forked from the process that opened it (the
        at-fork hook of `crs._project`), leaving everything of the parent's as it is.

        The child has the parent's descriptors: the segment's, the spare's and `LOCK`'s,
        whose flock belongs to the open file description the two now share (so it never
        kept the child out of the parent's appends, nor the parent out of the child's).
        Here the journal's locks are freed (another thread of the parent may have held them
        at the fork: `free_in_child`), every later call raises `JournalClosedError`, and the
        descriptors are closed with nothing written, synced, sealed or truncated and no
        `flock(LOCK_UN)`: an unlock here would release the parent's lock; closing the
        child's descriptor does not (the parent's stays open). The background preparer
        stayed in the parent. A sync handed to the worker thread (`_inflight`) is left: its
        wait in the child (`_settle`) answers at once with an error (a ticket of another
        process), and releases the lock its append kept."""
        free_in_child(self._lock)
        free_in_child(self._cond)
        self._state = _State.CLOSED
        self._prep = None
        self._unsynced = False  # (the parent syncs what it appended)
        sealing, self._sealing = self._sealing, None
        fds = [self._fd, self._spare_fd, self._lock_fd]
        if sealing is not None:
            fds += [sealing[0], sealing[2]]
        self._fd = self._spare_fd = self._lock_fd = -1
        for fd in fds:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        memory = self._memory
        if memory is not None:  # (degraded: it ran in memory)
            free_in_child(memory._lock)
            memory._state = _State.CLOSED

    def _close(self) -> None:
        try:
            self._join_prep()
            if self._fd >= 0 and not self._failed:
                os.fdatasync(self._fd)
                if self._sealing is not None:  # a roll whose append failed: seal it now
                    seal, self._sealing = self._sealing, None
                    self._prepare(seal)
        finally:
            self._release()

    def _release(self) -> None:
        self._join_prep()
        if self._sealing is not None:  # unsealed: sealed when the journal is opened again
            for fd in (self._sealing[0], self._sealing[2]):
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._sealing = None
        for name in ("_fd", "_spare_fd", "_lock_fd"):
            fd = getattr(self, name)
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)  # closing the lock file releases the flock
                setattr(self, name, -1)
