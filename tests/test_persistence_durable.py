"""The durable-file primitives: fsynced writes, atomic JSON, durable mkdir, flock timeouts."""

from __future__ import annotations

import errno
import json
import os
import time
from pathlib import Path

import pytest

from crs import BackupLockFailedError
from crs._persistence import _durable as durable


def test_write_file_durable_and_cleanup_on_failure(tmp_path: Path) -> None:
    path = tmp_path / "f"
    durable.write_file_durable(path, (b"ab", memoryview(b"cd")))
    assert path.read_bytes() == b"abcd"

    with pytest.raises(TypeError):
        durable.write_file_durable(path, (b"x", object()))  # type: ignore[arg-type]
    assert not path.exists(), "a failed write must not leave a partial file"


def test_write_json_atomic(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    durable.write_json_atomic(path, {"a": [1, 2]})
    durable.write_json_atomic(path, {"b": 3})
    assert json.loads(path.read_text()) == {"b": 3}
    assert path.read_text().endswith("\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.json"]


def test_makedirs_durable(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b" / "c"
    durable.makedirs_durable(deep)
    assert deep.is_dir()
    assert os.stat(deep).st_mode & 0o777 == 0o700 & ~_umask()  # private (issue 11)
    durable.makedirs_durable(deep)  # idempotent


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


def test_link_durable_replaces_target(tmp_path: Path) -> None:
    src, dst = tmp_path / "src", tmp_path / "dst"
    src.write_bytes(b"new")
    dst.write_bytes(b"old")
    durable.link_durable(src, dst)
    assert dst.read_bytes() == b"new"
    assert os.stat(src).st_ino == os.stat(dst).st_ino


def test_fsync_dir_tolerates_unsupported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.fsync

    def unsupported(fd: int) -> None:
        raise OSError(errno.EINVAL, "Invalid argument")

    monkeypatch.setattr(durable.os, "fsync", unsupported)
    durable.fsync_dir(tmp_path)

    def failing(fd: int) -> None:
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(durable.os, "fsync", failing)
    with pytest.raises(OSError, match="I/O error"):
        durable.fsync_dir(tmp_path)
    monkeypatch.setattr(durable.os, "fsync", real)


def test_file_lock_shared_and_exclusive(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    with durable.file_lock(lock, False, 1.0), durable.file_lock(lock, False, 0.05):
        pass  # two shared holders are fine
    with durable.file_lock(lock, True, 1.0):
        t0 = time.monotonic()
        with (
            pytest.raises(BackupLockFailedError, match=r"shared lock .* after 0\.1s"),
            durable.file_lock(lock, False, 0.1),
        ):
            pass
        assert 0.09 <= time.monotonic() - t0 < 1.0
        with (
            pytest.raises(BackupLockFailedError, match="exclusive lock"),
            durable.file_lock(lock, True, 0.05),
        ):
            pass
    with durable.file_lock(lock, True, 0.05):
        pass  # released on exit
    assert lock.exists()


def test_file_lock_released_when_body_raises(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    with pytest.raises(RuntimeError), durable.file_lock(lock, True, 1.0):
        raise RuntimeError("body failed")
    with durable.file_lock(lock, True, 0.05):
        pass
