"""Red team, tenth pass: `crs guard forget` (a real `python -m crs` process) while a
long-lived program holds the project's guard open (an agent server with `Guard.open`), and
another writer's records arriving while a refusal is decided."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from crs.guard import Guard

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "python")}


def _learn(g: Guard) -> str:
    v = g.before_call("bash", {"command": "make"})
    assert v.call is not None
    g.after_call(v.call, error="make: *** [all] Error 2")
    (failure,) = g.learned()
    return failure.id


def test_a_failure_forgotten_by_the_cli_is_not_refused_by_a_running_guard(
    tmp_path: Path,
) -> None:
    """The running guard refused the call from its own view, which still had the failure:
    `before_call` reads no journal, and its refusal's record, written under the journal's
    lock after the forget's, was stored as decided. `crs guard forget` said "forgot", and
    the agent was still refused, until it restarted. A refusal is now judged again when
    other writers' records came in under the lock (`_stale`, as for messages and turns)."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s", home=home, fingerprint=lambda: "fp") as g:
        fid = _learn(g)
        assert g.with_session("s2").before_call("bash", {"command": "make"}).code == (
            "known_failure"
        )
        p = subprocess.run(
            [
                sys.executable,
                "-m",
                "crs",
                "guard",
                "forget",
                fid,
                "--project",
                str(project),
                "--home",
                str(home),
            ],
            capture_output=True,
            text=True,
            env=ENV,
            timeout=30,
            check=False,
        )
        assert p.returncode == 0, p.stderr
        v = g.with_session("s3").before_call("bash", {"command": "make"}, call_id="toolu_1")
        assert (v.action, v.code) == ("allow", "ok")
        assert v.call is not None
        assert v.call.call_id == "toolu_1"  # (judged again under the caller's own id)
        assert g.learned() == []


def test_a_refusal_judged_again_on_other_records_still_refuses(tmp_path: Path) -> None:
    """What must hold: another process's records that do not lift the refusal (a call of
    another session) come in; the call is judged again and still refused, and its refusal
    stored once."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    other = textwrap.dedent(
        """
        import sys
        from crs.guard import Guard
        with Guard.open(sys.argv[1], "other", home=sys.argv[2], fingerprint=lambda: "fp") as o:
            v = o.before_call("read", {"path": "a.py"})
            o.after_call(v.call, result="text")
        """
    )
    with Guard.open(project, "s", home=home, fingerprint=lambda: "fp") as g:
        _learn(g)
        subprocess.run(
            [sys.executable, "-c", other, str(project), str(home)],
            env=ENV,
            timeout=30,
            check=True,
        )
        s2 = g.with_session("s2")
        v = s2.before_call("bash", {"command": "make"}, call_id="toolu_2")
        assert (v.action, v.code) == ("block", "known_failure")
        assert v.call is not None
        assert v.call.call_id == "toolu_2"
        assert s2.status()["refusals_in_a_row"] == 1
    with Guard.open(project, "reader", home=home) as r:
        assert r.with_session("s2").status()["refusals_in_a_row"] == 1
        assert r.with_session("other").status()["calls"] == 1
