"""Red team, twelfth pass: what the three views of learned failures list.

`Guard.learned()` and `crs guard learned` list only the failures in force (the TTL not
passed, the stamp not far ahead of this clock: eleventh pass); the dashboard listed every
failure the project's guard part holds: one learned eight days ago (the TTL is seven) or
stamped thirty days ahead showed beside the one that refuses calls, with nothing to tell
them apart. Now the dashboard lists what the other two do.

Each failure is learned by a writer in a real process whose wall clock is moved
(`_guard._time_ns` offset); the journal, the CLI and the dashboard are real.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from crs._cli import main as crs_main
from crs.dashboard import Dashboard
from crs.guard import Guard

ROOT = Path(__file__).resolve().parents[2]
DAY_NS = 86_400 * 10**9

_WRITER = textwrap.dedent(
    """
    import sys, time
    import crs.guard._guard as gm
    from crs.guard import Guard
    offset = int(sys.argv[3])
    real = time.time_ns
    gm._time_ns = lambda: real() + offset
    g = Guard.open(sys.argv[1], "writer", home=sys.argv[2])
    v = g.before_call("build", {"target": sys.argv[4]})
    g.after_call(v.call, error="make: *** [all] Error 2")
    g.close()
    """
)


def _learn(project: Path, home: Path, offset_ns: int, target: str) -> None:
    subprocess.run(
        [sys.executable, "-c", _WRITER, str(project), str(home), str(offset_ns), target],
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )


def test_the_three_views_list_only_the_failures_in_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    _learn(project, home, -8 * DAY_NS, "expired")
    _learn(project, home, 30 * DAY_NS, "ahead")
    _learn(project, home, 0, "now")
    with Guard.open(project, "reader", home=home) as g:
        api = {f.preview for f in g.learned()}
    assert len(api) == 1
    assert "now" in next(iter(api))

    capsys.readouterr()
    assert (
        crs_main(["guard", "learned", "--json", "--project", str(project), "--home", str(home)])
        == 0
    )
    cli = {f["preview"] for f in json.loads(capsys.readouterr().out)}
    assert cli == api

    d = Dashboard(home)
    try:
        (p,) = d.projects()
        shown = {f["preview"] for f in d.session(p["key"], "writer")["learned"]}
    finally:
        d.close()
    assert shown == api  # before: all three
