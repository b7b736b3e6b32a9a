"""Disk full: a save into a full file system fails with a typed error, the previous backup stays
intact and loadable, no temporary file is left behind, and saving works again once space
returns.

Runs on a size-limited tmpfs the test mounts when it runs as root and may mount; otherwise
(and always, as a second case) ENOSPC is injected into the writes of the durable-file layer.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import types
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import crs
from crs import BackupImage, PersistenceError, PersistenceManager
from crs._persistence import _durable as durable
from persist_state import ProofState

KEY = "d15cf011d15cf011"
FS_SIZE = 2 * 1024 * 1024


class RandomImage:
    """An incompressible image of `size` bytes."""

    def __init__(self, size: int, generation: int) -> None:
        self.image = BackupImage(os.urandom(size), generation, generation)

    def export_image(self) -> BackupImage:
        return self.image


class SpaceLimiter:
    """Injected mode: `os` for the durable layer whose writes fail past a byte budget."""

    def __init__(self) -> None:
        self.budget: int | None = None
        self.namespace = types.SimpleNamespace()

    def write(self, fd: int, data: Any) -> int:
        size = len(memoryview(data))
        if self.budget is not None:
            if self.budget <= 0:
                raise OSError(errno.ENOSPC, "No space left on device")
            size = min(size, self.budget)
            self.budget -= size
        return os.write(fd, memoryview(data)[:size])

    def fill(self, free_bytes: int) -> None:
        self.budget = free_bytes

    def free(self) -> None:
        self.budget = None


@contextlib.contextmanager
def small_tmpfs(where: Path) -> Iterator[bool]:
    where.mkdir()
    mounted = False
    if os.geteuid() == 0:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={FS_SIZE}", "tmpfs", str(where)],
            capture_output=True,
            check=False,
        )
        mounted = done.returncode == 0
    try:
        yield mounted
    finally:
        if mounted:
            subprocess.run(["umount", str(where)], check=True)


def manager(home: Path) -> PersistenceManager:
    cfg = replace(crs.DefaultPersistenceConfig(), base_dir=str(home), max_backup_retries=1)
    return PersistenceManager(cfg)


def check_full_then_recover(pm: PersistenceManager, fill: Any, free: Any) -> None:
    first, second = ProofState.generate(2000, seed=1), ProofState.generate(2000, seed=2)
    first.gen, second.gen = 1, 2
    pm.save_backup(KEY, first)
    pm.save_backup(KEY, second)
    before = {p: p.read_bytes() for p in pm.project_dir(KEY).rglob("*") if p.is_file()}

    fill()
    with pytest.raises(PersistenceError, match="failed after 2 attempts") as info:
        pm.save_backup(KEY, RandomImage(600_000, 3))
    cause = info.value.__cause__
    assert isinstance(cause, OSError)
    assert cause.errno == errno.ENOSPC

    after = {p: p.read_bytes() for p in pm.project_dir(KEY).rglob("*") if p.is_file()}
    assert after == before, "a failed save changed or left files"
    target = ProofState()
    assert pm.load_backup(KEY, target).metadata.generation == 2
    assert target.digest() == second.digest()

    free()
    big = RandomImage(600_000, 4)
    assert pm.save_backup(KEY, big).generation == 4
    assert pm.load_backup(KEY).image == big.image


def test_disk_full_on_a_small_tmpfs(tmp_path: Path) -> None:
    mnt = tmp_path / "mnt"
    with small_tmpfs(mnt) as mounted:
        if not mounted:
            pytest.skip("cannot mount a tmpfs here (not root or no CAP_SYS_ADMIN)")
        pm = manager(mnt / "home")
        filler = mnt / "filler"

        def fill() -> None:
            # Leave ~100 KB: the 600 KB save cannot fit, the small files around it can.
            free = os.statvfs(mnt).f_bavail * os.statvfs(mnt).f_frsize
            with open(filler, "wb") as f:
                f.write(b"\0" * max(0, free - 100_000))

        def free() -> None:
            filler.unlink()

        check_full_then_recover(pm, fill, free)


def test_disk_full_injected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    limiter = SpaceLimiter()
    fake_os = types.SimpleNamespace(
        **{k: getattr(os, k) for k in dir(os) if not k.startswith("__")}
    )
    fake_os.write = limiter.write
    monkeypatch.setattr(durable, "os", fake_os)
    pm = manager(tmp_path / "home")
    check_full_then_recover(pm, lambda: limiter.fill(100_000), limiter.free)
