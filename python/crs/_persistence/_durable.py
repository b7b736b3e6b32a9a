"""Durable file primitives shared by the persistence code: fsynced writes, atomic renames
followed by a directory fsync, hard-link copies and flock with a timeout."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

from crs._errors import BackupLockFailedError

FILE_MODE = 0o600
"""Mode of every file crs creates: private to its owner."""
DIR_MODE = 0o700
"""Mode of every directory crs creates."""
NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
"""Open flags of every crs file: a planted symlink is refused, never followed."""

_LOCK_BACKOFF_START = 0.01
_LOCK_BACKOFF_CAP = 0.2


def fsync_dir(path: Path) -> None:
    """Make the entries of directory `path` (creations, renames) durable.

    File systems that cannot fsync a directory (EINVAL/ENOTSUP, e.g. some network file
    systems) commit directory changes on their own terms; there is nothing more to do there.
    """
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def makedirs_durable(path: Path, mode: int = DIR_MODE) -> None:
    """Create `path` and missing parents; fsync the parent of each directory created."""
    if path.is_dir():
        return
    makedirs_durable(path.parent, mode)
    try:
        path.mkdir(mode=mode)
    except FileExistsError:
        return
    fsync_dir(path.parent)


def read_file(path: Path) -> bytes:
    """The bytes of `path`, never through a symlink (`OSError` ELOOP for one)."""
    fd = os.open(path, os.O_RDONLY | NOFOLLOW)
    with os.fdopen(fd, "rb") as f:
        return f.read()


def write_file_durable(path: Path, chunks: tuple[bytes | memoryview, ...]) -> None:
    """Write `chunks` to a new file `path` (0600; whatever was there, a planted symlink
    included, is removed first, never followed) and fsync it; remove it on failure."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, FILE_MODE)
    try:
        try:
            for chunk in chunks:
                view = memoryview(chunk)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise


def replace_durable(src: Path, dst: Path) -> None:
    """Atomically rename `src` over `dst` and fsync the directory."""
    os.rename(src, dst)
    fsync_dir(dst.parent)


def link_durable(src: Path, dst: Path) -> None:
    """Make `dst` a durable copy of `src` (a hard link if possible), replaced atomically."""
    tmp = dst.with_name(dst.name + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    try:
        os.link(src, tmp)
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        write_file_durable(tmp, (src.read_bytes(),))
    replace_durable(tmp, dst)


def write_json_atomic(path: Path, doc: object) -> None:
    """Write `doc` as indented JSON to `path` atomically and durably (tmp, fsync, rename)."""
    tmp = path.with_name(path.name + ".tmp")
    blob = (json.dumps(doc, indent=2) + "\n").encode("utf-8")
    write_file_durable(tmp, (blob,))
    replace_durable(tmp, path)


@contextlib.contextmanager
def file_lock(path: Path, exclusive: bool, timeout: float) -> Iterator[None]:
    """Hold an flock on `path` (created 0600, never deleted, never through a symlink) for
    the `with` block.

    Tries without blocking first, then retries with doubling backoff (10 ms up to 200 ms) until
    `timeout` seconds have passed.

    Raises:
        BackupLockFailedError: The lock was not acquired within `timeout`.
    """
    fd = _open_lock(path, exclusive)
    if fd < 0:  # a read of a read-only file system that has no lock file: no writer
        yield
        return
    with _locked(fd, path, exclusive, timeout):
        yield


def _open_lock(path: Path, exclusive: bool) -> int:
    """The lock file `path` opened for `file_lock` (created 0600), or -1 when a shared lock
    needs none: on a read-only file system (a mounted copy, a read-only home) a shared lock
    is taken on the file opened for reading, and where there is no lock file no writer can
    hold one (red team 5)."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | NOFOLLOW, FILE_MODE)
    except OSError as exc:  # a planted symlink (never followed), a directory, no access
        failed = exc
        if not exclusive and exc.errno == errno.EROFS:
            try:
                return os.open(path, os.O_RDONLY | NOFOLLOW)
            except FileNotFoundError:
                return -1
            except OSError as again:
                failed = again
    raise BackupLockFailedError(
        f"failed to acquire backup lock: cannot open {path}: {failed.strerror or failed}; "
        "remove it if it is not a regular file of yours"
    ) from failed


@contextlib.contextmanager
def _locked(fd: int, path: Path, exclusive: bool, timeout: float) -> Iterator[None]:
    """Hold an flock on the open `fd` (of `path`) for the block, then close it."""
    try:
        op = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB
        deadline = time.monotonic() + timeout
        delay = _LOCK_BACKOFF_START
        while True:
            try:
                fcntl.flock(fd, op)
                break
            except BlockingIOError:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    kind = "exclusive" if exclusive else "shared"
                    raise BackupLockFailedError(
                        f"failed to acquire backup lock: {kind} lock on {path} not acquired "
                        f"after {timeout:g}s; another process is using this project's backups"
                    ) from None
                time.sleep(min(delay, remaining))
                delay = min(delay * 2, _LOCK_BACKOFF_CAP)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
