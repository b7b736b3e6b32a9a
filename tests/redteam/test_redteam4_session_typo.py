"""Red team 4: `crs session inspect <typo>` (or `status <typo>`, or a dmux adapter asked
for a session that does not exist) created `$CRS_HOME/sessions.db` and recorded a `missing`
snapshot of a session that never existed: a typo left state behind, in a home that did not
exist before. The output stays the reference's (a `missing` snapshot for dmux names, an error
with exit 1 otherwise); nothing is recorded for a session the store never saw. A session it
did record that goes missing is still recorded (the history shows it ended)."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import pytest

from crs.sessions import inspect_session_target, read_session_history
from crs.sessions._recorder import persist_canonical_snapshot

ROOT = Path(__file__).resolve().parents[2]


def session_cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}
    env.update(
        HOME=str(tmp_path / "user"),
        CRS_HOME=str(tmp_path / "crs-home"),
        TMUX_TMPDIR=str(tmp_path / "tmux"),  # no tmux server: every dmux name is missing
        ECC_SESSION_RECORDING_DIR=str(tmp_path / "rec"),
        PYTHONPATH=str(ROOT / "python"),
    )
    (tmp_path / "user").mkdir(exist_ok=True)
    (tmp_path / "tmux").mkdir(exist_ok=True)
    cwd = tmp_path / "proj"
    cwd.mkdir(exist_ok=True)
    cmd = [sys.executable, "-m", "crs", "session", *args]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (("inspect", "typo-sess"), 1, "[session-inspect] No session adapter matched target"),
        (("inspect", "claude:typo"), 1, "[session-inspect] Claude session not found: typo"),
        (("inspect", "typo", "--target-type", "session"), 0, '"state": "missing"'),
        (("inspect", "typo", "--adapter", "dmux-tmux"), 0, '"state": "missing"'),
        (("status", "typo"), 0, '"state": "missing"'),
    ],
)
def test_a_typo_leaves_no_state_behind(
    tmp_path: Path, args: tuple[str, ...], code: int, says: str
) -> None:
    out = session_cli(tmp_path, *args)
    assert out.returncode == code, out.stderr
    assert says in (out.stdout if code == 0 else out.stderr)
    assert not (tmp_path / "crs-home").exists()
    assert not (tmp_path / "rec").exists()


def test_a_recorded_session_that_goes_missing_is_still_recorded(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    home = tmp_path / "h"
    missing = inspect_session_target(
        "nightly", cwd=tmp_path / "repo", adapter_id="dmux-tmux", persist=False
    )
    assert missing["session"]["state"] == "missing"
    assert not persist_canonical_snapshot(missing, home=home).changed
    assert not home.exists()
    idle = copy.deepcopy(missing)
    idle["session"]["state"] = "idle"  # as it was while it ran
    assert persist_canonical_snapshot(idle, home=home).changed
    assert persist_canonical_snapshot(missing, home=home).changed  # then it went away
    states = [
        e.snapshot["session"]["state"]
        for e in read_session_history("dmux-tmux", "nightly", home=home)
    ]
    assert states == ["idle", "missing"]
