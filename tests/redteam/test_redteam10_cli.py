"""Red team, tenth pass: `crs guard status --session <typo>` on a project with many
sessions (real `python -m crs` processes on a real project)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from crs.guard import Guard

ROOT = Path(__file__).resolve().parents[2]


def test_a_session_typo_names_a_few_known_sessions_not_all(tmp_path: Path) -> None:
    """The error listed every session the project keeps (up to 500, ids up to 200
    characters: one line of up to 100 KB on the terminal). It names the latest ten and how
    many more there are."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s0", home=home) as g:
        for i in range(40):
            s = g.with_session(f"agent-{i:03d}")
            v = s.before_call("read", {"path": "a.py"})
            assert v.call is not None
            s.after_call(v.call, result="x")
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "crs",
            "guard",
            "status",
            "--project",
            str(project),
            "--home",
            str(home),
            "--session",
            "agent-typo",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python")},
        timeout=30,
        check=False,
    )
    assert p.returncode == 1
    line = p.stderr.strip()
    assert "no session 'agent-typo'" in line
    assert "agent-039" in line  # the latest
    assert "agent-000" not in line
    assert "and 30 more" in line
    assert len(line) < 400
