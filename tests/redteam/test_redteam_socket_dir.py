"""The hook server's socket directory must be a real private directory, not a symlink to one
(docs/redteam.md: a `/tmp/crs-<uid>` fallback planted as a link was accepted)."""

from __future__ import annotations

import os
from pathlib import Path

from crs.integrations import _hook_client as client


def test_a_private_directory_is_accepted(tmp_path: Path) -> None:
    d = tmp_path / "run"
    d.mkdir(mode=0o700)
    os.chmod(d, 0o700)
    assert client.private_dir(str(d))


def test_a_symlink_to_a_private_directory_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    os.chmod(target, 0o700)
    link = tmp_path / "crs-link"
    link.symlink_to(target, target_is_directory=True)
    assert client.private_dir(str(target))
    assert not client.private_dir(str(link))
    # and nothing is started there: spawn refuses the directory before any file is made
    assert client.spawn(str(tmp_path / "home"), str(link / "hook-x.sock")) is None
    assert list(target.iterdir()) == []


def test_a_directory_others_can_enter_or_a_plain_file_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o755)
    assert not client.private_dir(str(shared))
    f = tmp_path / "file"
    f.write_text("x")
    os.chmod(f, 0o600)
    assert not client.private_dir(str(f))
    assert not client.private_dir(str(tmp_path / "missing"))
