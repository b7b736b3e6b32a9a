"""`LocalJournal`: the default journal, a write-ahead log of segment files in one directory.

The on-disk layout (format version 1) is documented in docs/journal-format.md: segment files
`<first seq, 20 digits>.wal` with a 32-byte header, then records framed by `crs._core`
(24-byte header with its own CRC-32C, payload CRC-32C, sequence number and batch flags); a
`CHECKPOINT` file; a `LOCK` file held with `flock` by the one writer.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import errno
import fcntl
import json
import os
import shutil
import struct
import threading
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import IO

from crs import _core
from crs._core import crc32c
from crs._errors import (
    JournalCorruptedError,
    JournalDegradedError,
    JournalError,
    JournalFullError,
    JournalLockedError,
    JournalSequenceGapError,
)
from crs._journal._base import (
    DeltaOrError,
    JournalBase,
    JournalCodec,
    JournalConfig,
    JournalStats,
    MemoryJournal,
    SyncPolicy,
    _check_seq,
    read_backup_stream,
    write_backup_stream,
)

__all__ = ["FORMAT_VERSION", "LocalJournal"]

FORMAT_VERSION = 1
"""Version of the on-disk layout written by this crs (docs/journal-format.md)."""

SEGMENT_MAGIC = b"\x89CRSWAL\n"
SEGMENT_HEADER = struct.Struct("<8sHHIQII")  # magic, version, header size, flags, first seq, 0, crc
RECORD_HEADER = struct.Struct("<IIQIHH")  # header crc, length, seq, payload crc, flags, 0
CHECKPOINT_MAGIC = b"CRSJCKP\n"
CHECKPOINT_FILE = struct.Struct("<8sIQI")  # magic, version, seq, crc of the first 20 bytes
SEGMENT_SUFFIX = ".wal"
RESTORE_DIR = "restore.tmp"
MANIFEST = "COMPLETE"

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
_ZEROS = bytes(1 << 20)


@dataclasses.dataclass
class _Segment:
    first_seq: int
    path: Path


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _segment_header(first_seq: int) -> bytes:
    head = SEGMENT_HEADER.pack(
        SEGMENT_MAGIC, FORMAT_VERSION, SEGMENT_HEADER.size, 0, first_seq, 0, 0
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
    if path.name != f"{first:020d}{SEGMENT_SUFFIX}":
        raise JournalCorruptedError(f"{path}: header says first seq {first}, the name disagrees")
    result: int = first
    return result


def _zero_from(data: bytes, start: int) -> bool:
    return start >= len(data) or data.count(0, start) == len(data) - start


def _is_torn(data: bytes, stop: int, stop_pos: int) -> bool:
    """Whether the damage at `stop_pos` looks like an interrupted final write.

    A write cut short leaves a record running past the end of the file, or followed only by
    zero bytes (preallocated space). A bit flip leaves the bytes after it in place, so it is
    reported as corruption instead.
    """
    if stop == _INCOMPLETE:
        return True
    if stop == _ZERO:
        return _zero_from(data, stop_pos)
    if stop == _BAD_HEADER:
        return _zero_from(data, stop_pos + RECORD_HEADER.size)
    if stop == _BAD_PAYLOAD:
        length = RECORD_HEADER.unpack_from(data, stop_pos)[1]
        end = stop_pos + RECORD_HEADER.size + length
        return length > 0 and end <= len(data) and data[end - 1] == 0 and _zero_from(data, end)
    return False


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
    """

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
            if not config.allow_degraded:
                raise JournalDegradedError(
                    f"cannot open journal at {self._dir}: {exc}; fix the directory or pass "
                    "allow_degraded=True to run in memory (not durable)"
                ) from exc
            self._log.warning("journal: %s unusable (%s); running in memory", self._dir, exc)
            self._memory = MemoryJournal(
                dataclasses.replace(config, in_memory=True, path=""), self._codec
            )

    # ---------------------------------------------------------------- opening

    def _open(self) -> None:
        if self._read_only:
            if not self._dir.is_dir():
                raise JournalError(f"no journal at {self._dir} (not a directory)")
        else:
            self._dir.mkdir(parents=True, exist_ok=True)
            self._acquire_lock()
            self._finish_restore()
        self._load_state()

    def _acquire_lock(self) -> None:
        fd = os.open(self._dir / "LOCK", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        deadline = time.monotonic() + self._config.lock_timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
                    os.close(fd)
                    raise JournalLockedError(
                        f"journal {self._dir} is locked by another writer (pid {holder}); "
                        f"waited {self._config.lock_timeout:g} s: close the other journal, "
                        "raise lock_timeout, or open with read_only=True"
                    ) from None
                time.sleep(0.01)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock_fd = fd

    def _load_state(self) -> None:
        """Read the checkpoint and the segment list; find (and repair) the end of the log."""
        self._checkpoint_seq = self._read_checkpoint()
        self._segments = sorted(
            (
                _Segment(int(p.name[: -len(SEGMENT_SUFFIX)]), p)
                for p in self._dir.glob("*" + SEGMENT_SUFFIX)
                if p.name[: -len(SEGMENT_SUFFIX)].isdigit()
            ),
            key=lambda s: s.first_seq,
        )
        self._drop_torn_creation()
        self._torn = 0
        if not self._segments:
            self._next_seq = self._checkpoint_seq + 1
            if not self._read_only:
                self._fd = self._create_segment(self._next_seq)
                self._segments.append(_Segment(self._next_seq, self._seg_path(self._next_seq)))
            self._end = SEGMENT_HEADER.size
        else:
            self._recover_tail()
        self._total = sum(s.path.stat().st_size for s in self._segments[:-1]) + self._end
        self._written = self._synced = 0

    def _drop_torn_creation(self) -> None:
        """Remove a last segment whose creation was interrupted (no valid header, no data)."""
        while self._segments:
            path = self._segments[-1].path
            with open(path, "rb") as f:
                data = f.read(SEGMENT_HEADER.size)
            try:
                _parse_segment_header(data, path)
                return
            except JournalCorruptedError:
                if not _zero_from(data, 0) and len(data) == SEGMENT_HEADER.size:
                    raise
            if self._read_only:
                self._segments.pop()
                continue
            self._log.warning("journal: removing %s (its creation was interrupted)", path)
            path.unlink()
            _fsync_dir(self._dir)
            self._segments.pop()

    def _recover_tail(self) -> None:
        last = self._segments[-1]
        data = last.path.read_bytes()
        first = _parse_segment_header(data, last.path)
        payloads, commit, stop_pos, stop, found = _core.wal_scan(
            data, SEGMENT_HEADER.size, first, 1 << 62
        )
        next_seq = first + len(payloads)
        end = commit
        if stop != _END and not _is_torn(data, stop, stop_pos):
            if not (self._config.skip_corrupted_deltas or self._read_only):
                raise self._damage(last.path, stop, commit, next_seq, found)
            # Readers report the damage on replay. The damaged record held seq `next_seq`
            # at least, so appends go after it.
            next_seq = self._last_valid_seq(data, stop_pos, next_seq + 1)
            end = len(data)  # the damaged segment is left as it is; appends go to a new one
        written = len(data.rstrip(b"\0"))
        if written > end:
            self._torn = written - end
            self._log.warning(
                "journal: %s ends in a torn write; removing its last %d bytes",
                last.path,
                self._torn,
            )
        self._next_seq = max(next_seq, self._checkpoint_seq + 1)
        self._end = end
        if self._read_only:
            return
        fd = os.open(last.path, os.O_RDWR | os.O_CLOEXEC)
        self._fd = fd
        if end == len(data) and stop != _END:  # damaged, skipped: start a fresh segment
            self._roll()
        elif written > end:
            os.ftruncate(fd, end)
            if self._config.preallocate:
                self._preallocate(fd, end)
            os.fsync(fd)

    def _last_valid_seq(self, data: bytes, pos: int, next_seq: int) -> int:
        """The sequence number after the last valid record after `pos` (damaged segment)."""
        while (hit := _core.wal_resync(data, pos + 1, False)) is not None:
            pos, seq = hit
            next_seq = max(next_seq, seq + 1)
        return next_seq

    def _read_checkpoint(self) -> int:
        path = self._dir / "CHECKPOINT"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return 0
        if len(data) != CHECKPOINT_FILE.size:
            raise JournalCorruptedError(f"{path} is damaged (wrong size)")
        magic, version, seq, crc = CHECKPOINT_FILE.unpack(data)
        if magic != CHECKPOINT_MAGIC or crc != crc32c(data[:20]) or version != 1:
            raise JournalCorruptedError(f"{path} is damaged (magic, version or CRC-32C)")
        result: int = seq
        return result

    # ---------------------------------------------------------------- segments

    def _seg_path(self, first_seq: int, directory: Path | None = None) -> Path:
        return (directory or self._dir) / f"{first_seq:020d}{SEGMENT_SUFFIX}"

    def _preallocate(self, fd: int, start: int) -> None:
        """Zero-fill `fd` from `start` to the segment size, so appends overwrite in place."""
        pos = start
        while pos < self._seg_bytes:
            pos += os.pwrite(fd, _ZEROS[: min(len(_ZEROS), self._seg_bytes - pos)], pos)

    def _create_segment(self, first_seq: int, directory: Path | None = None) -> int:
        path = self._seg_path(first_seq, directory)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        try:
            os.write(fd, _segment_header(first_seq))
            if self._config.preallocate and directory is None:
                self._preallocate(fd, SEGMENT_HEADER.size)
            os.fsync(fd)
            _fsync_dir(path.parent)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                path.unlink()
            raise
        return fd

    def _roll(self) -> None:
        """Seal the active segment and start a new one at the next sequence number."""
        fd = self._create_segment(self._next_seq)
        old = self._fd
        try:
            os.fdatasync(old)
            if os.fstat(old).st_size > self._end:
                os.ftruncate(old, self._end)
            os.fsync(old)
        except BaseException:
            os.close(fd)  # keep the old segment active; a later roll creates the new one again
            with contextlib.suppress(OSError):
                self._seg_path(self._next_seq).unlink()
            raise
        os.close(old)
        self._fd = fd
        self._segments.append(_Segment(self._next_seq, self._seg_path(self._next_seq)))
        self._end = SEGMENT_HEADER.size
        self._total += SEGMENT_HEADER.size
        with self._cond:
            self._synced = self._written

    # ---------------------------------------------------------------- appends

    def _write_unit(self, payloads: list[bytes]) -> int:
        if self._memory is not None:
            return self._memory._write_unit(payloads)
        with self._lock:
            self._check_open()
            if self._read_only:
                raise JournalError(f"journal {self._dir} was opened read_only; it takes no appends")
            if self._failed:
                raise JournalError(f"{self._failed}; close the journal and open it again")
            frame = _core.wal_encode(self._next_seq, payloads)
            size = len(frame)
            if (
                self._config.max_journal_bytes
                and self._total + size > self._config.max_journal_bytes
            ):
                self._ensure_room(size)
            if self._end + size > self._seg_bytes and self._end > SEGMENT_HEADER.size:
                self._guard_os("start a new segment in", self._roll)
            pos = self._end
            try:
                done = os.pwrite(self._fd, frame, pos)
                while done < size:  # short write (rare): go on until done or an error
                    n = os.pwrite(self._fd, memoryview(frame)[done:], pos + done)
                    if n <= 0:
                        raise OSError(errno.ENOSPC, "short write")
                    done += n
                if self._policy is SyncPolicy.ALWAYS:
                    os.fdatasync(self._fd)
            except OSError as exc:
                self._repair(pos)
                raise self._os_error(exc, "append to") from exc
            self._end += size
            self._total += size
            self._next_seq += len(payloads)
            self._written += size  # guarded by self._lock; `_synced` by self._cond
            target, last = self._written, self._next_seq - 1
        if self._policy is SyncPolicy.BATCH:
            self._group_commit(target)
        return last

    def _ensure_room(self, size: int) -> None:
        limit = self._config.max_journal_bytes
        if not limit or self._total + size <= limit:
            return
        if self._config.auto_checkpoint:
            seq = self._full_checkpoint_seq(self._next_seq - 1)
            self._log.warning("journal: size limit reached; automatic checkpoint at seq %d", seq)
            if self._end > SEGMENT_HEADER.size and seq >= self._next_seq - 1:
                self._guard_os("start a new segment in", self._roll)
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
            if self._config.preallocate:
                with contextlib.suppress(OSError):
                    self._preallocate(self._fd, pos)
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
                try:
                    os.fdatasync(self._fd)
                except OSError as exc:
                    self._failed = f"fsync of journal {self._dir} failed ({exc})"
                    raise self._os_error(exc, "sync") from exc
        finally:
            with self._cond:
                self._syncing = False
                self._synced = max(self._synced, goal)
                self._cond.notify_all()

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
        with self._lock:
            segments = list(self._segments)
            last_end, next_seq = self._end, self._next_seq
            start = max(after_seq, self._checkpoint_seq)
        while len(segments) > 1 and segments[1].first_seq <= start + 1:
            segments.pop(0)
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
                seg, expected, start, upto, last_end if is_last else None
            )

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
        self, seg: _Segment, expected: int, start: int, upto: int, end: int | None
    ) -> Generator[tuple[int, list[bytes]] | DeltaOrError, None, int]:
        """Yield the records of one segment; return the next expected sequence number."""
        try:
            with open(seg.path, "rb") as f:
                data = f.read() if end is None else f.read(end)
            _parse_segment_header(data, seg.path)
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
        with self._lock:
            self._check_open()
            if self._read_only:
                raise JournalError(f"journal {self._dir} was opened read_only; cannot checkpoint")
            last = self._next_seq - 1
            self._checkpoint_locked(last if seq is None else _check_seq(seq, last))

    def _checkpoint_locked(self, seq: int) -> None:
        self._last_checkpoint = _dt.datetime.now(_dt.UTC)
        if seq <= self._checkpoint_seq:
            return
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
        with open(tmp, "wb") as f:
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
        with self._lock:
            self._check_open()
            if self._read_only:
                raise JournalError(f"journal {self._dir} was opened read_only; cannot restore")
            tmp = self._dir / RESTORE_DIR
            try:
                shutil.rmtree(tmp, ignore_errors=True)
                tmp.mkdir()
                names = self._write_restored(tmp, stream)
                manifest = tmp / (MANIFEST + ".tmp")
                manifest.write_text(json.dumps(names))
                with open(manifest, "rb+") as f:
                    os.fsync(f.fileno())
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
        try:
            names = set(json.loads((tmp / MANIFEST).read_text()))
        except FileNotFoundError:
            shutil.rmtree(tmp)
            return
        for p in self._dir.iterdir():
            if (p.suffix == SEGMENT_SUFFIX or p.name == "CHECKPOINT") and p.name not in names:
                p.unlink()
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

    def _close(self) -> None:
        try:
            if self._fd >= 0 and not self._failed:
                os.fdatasync(self._fd)
        finally:
            self._release()

    def _release(self) -> None:
        for name in ("_fd", "_lock_fd"):
            fd = getattr(self, name)
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)  # closing the lock file releases the flock
                setattr(self, name, -1)
