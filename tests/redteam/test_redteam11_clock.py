"""Red team, eleventh pass: a learned failure stamped by a clock that ran ahead (or on a
machine whose clock was later set back) must not live its TTL from that future stamp.

The writer's clock is moved by replacing the guard's wall-clock reader (`_guard._time_ns`)
with an offset one while it learns the failure, in a real writer process; the journal and
the later sessions are real."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

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
    v = g.before_call("build", {"target": "all"})
    g.after_call(v.call, error="make: *** [all] Error 2")
    assert g.learned(), "learned nothing"
    g.close()
    """
)


def _learn(project: Path, home: Path, offset_ns: int) -> None:
    subprocess.run(
        [sys.executable, "-c", _WRITER, str(project), str(home), str(offset_ns)],
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )


def _later(project: Path, home: Path) -> tuple[str, int]:
    g = Guard.open(project, "later", home=home)
    try:
        v = g.before_call("build", {"target": "all"})
        return str(v.code), len(g.learned())
    finally:
        g.close()


def test_a_failure_stamped_thirty_days_ahead_does_not_hold_for_thirty_seven(
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    _learn(project, home, 30 * DAY_NS)
    assert _later(project, home) == ("ok", 0)


def test_a_failure_stamped_a_little_ahead_still_holds(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    _learn(project, home, 60 * 10**9)  # (a minute of skew between machines)
    assert _later(project, home) == ("known_failure", 1)


def test_a_failure_stamped_now_holds(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    _learn(project, home, 0)
    assert _later(project, home) == ("known_failure", 1)
