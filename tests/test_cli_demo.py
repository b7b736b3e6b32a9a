"""`crs demo` runs a scripted agent session against a data directory and exits 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def run_crs(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CRS_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "crs", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_demo_prints_table_and_detects_loop(tmp_path: Path) -> None:
    out = run_crs("demo", home=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "loop" in out.stdout
    assert str(tmp_path) in out.stdout


def test_demo_json(tmp_path: Path) -> None:
    out = run_crs("demo", "--json", home=tmp_path)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["home"] == str(tmp_path)
    decisions = [s["decision"] for s in report["steps"]]
    assert "loop" in decisions


def test_no_command_prints_help() -> None:
    out = subprocess.run([sys.executable, "-m", "crs"], capture_output=True, text=True)
    assert out.returncode == 2
    assert "demo" in out.stderr


def test_demo_shows_loop_breaker_and_learned_clause_with_reasons(tmp_path: Path) -> None:
    out = run_crs("demo", "--json", home=tmp_path)
    assert out.returncode == 0, out.stderr
    steps = {s["step"]: s for s in json.loads(out.stdout)["steps"]}
    assert steps[4]["decision"] == "loop"
    assert steps[4]["reason"].startswith("repeats [read_file -> grep]")
    assert steps[5]["decision"] == "blocked"
    assert steps[5]["reason"] == "circuit breaker: tool grep is disproven"
    assert steps[7]["decision"] == "learned"
    last = steps[max(steps)]
    assert last["tool"] == "run_build"
    assert last["decision"] == "blocked"
    assert "violates learned clause learned:tool_error:" in last["reason"]
    assert "\u00actool:run_build \u2228 \u00acprev_tool:run_build" in last["reason"]
    assert last["reason"].endswith("circuit breaker: tool run_build is disproven")
    table = run_crs("demo", home=tmp_path).stdout
    assert "blocked" in table
    assert "learned clauses: 2" in table


def test_second_run_restores_what_the_first_learned(tmp_path: Path) -> None:
    first = run_crs("demo", "--json", home=tmp_path)
    assert first.returncode == 0, first.stderr
    one = json.loads(first.stdout)
    assert one["run"] == 1
    assert one["restored"]["generation"] == 0
    assert one["journal"]["records_appended"] > 0
    assert Path(one["journal"]["path"]).is_dir()
    assert Path(one["journal"]["path"]).parent.parent == tmp_path
    backup = Path(one["backup"]["path"])
    assert backup.is_file()
    assert backup.stat().st_size == one["backup"]["size_bytes"] > 0
    learned = {s["step"]: s for s in one["steps"]}[7]
    assert learned["decision"] == "learned"
    assert learned["outcome"] == "failure"  # run 1 had to fail once to learn

    second = run_crs("demo", "--json", home=tmp_path)
    assert second.returncode == 0, second.stderr
    two = json.loads(second.stdout)
    assert two["run"] == 2
    assert two["session_id"] != one["session_id"]
    assert two["restored"]["from_backup"] is True
    assert two["restored"]["generation"] == one["backup"]["generation"]
    assert two["restored"]["clauses"] == len(one["clauses"]) == 2
    steps = {s["step"]: s for s in two["steps"]}
    assert steps[4]["decision"] == "loop"  # loop detection and breaker work in run 2 too
    assert steps[5]["reason"] == "circuit breaker: tool grep is disproven"
    build = steps[7]
    assert build["tool"] == "run_build"
    assert build["decision"] == "blocked"  # blocked at once: the restored clause
    assert build["outcome"] == "-"
    assert "violates learned clause learned:tool_error:" in build["reason"]
    assert "\u00actool:run_build \u2228 \u00acprev_tool:plan" in build["reason"]
    assert build["reason"].endswith("(learned in an earlier run)")
    assert two["journal"]["last_seq"] > one["journal"]["last_seq"]
    assert two["backup"]["journal_position"] == two["journal"]["last_seq"]

    table = run_crs("demo", home=tmp_path).stdout  # a third run, as a person sees it
    assert "crs demo  run 3" in table
    assert "restored: generation" in table
    assert "(learned in an earlier run)" in table
    assert "journal:" in table
    assert "backup:" in table
