"""`crs demo` runs a scripted coding-agent session guarded by a durable `crs.Guard`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def run_crs(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CRS_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "crs", *args], capture_output=True, text=True, env=env, timeout=120
    )


def steps_of(report: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [(s["tool"], s["outcome"], s["action"], s["code"]) for s in report["steps"]]


def test_no_command_prints_help() -> None:
    out = subprocess.run([sys.executable, "-m", "crs"], capture_output=True, text=True)
    assert out.returncode == 2
    assert "demo" in out.stderr


def test_demo_first_run_passes_real_work_and_stops_real_loops(tmp_path: Path) -> None:
    out = run_crs("demo", "--json", home=tmp_path)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["run"] == 1
    assert report["home"] == str(tmp_path)
    steps = steps_of(report)
    # distinct reads, polling and a retry after a timeout all pass
    assert steps[:3] == [("read_file", "ok", "allow", "ok")] * 3
    assert [s[:3] for s in steps[3:6]] == [("ci_status", "ok", "allow")] * 3
    assert steps[5][3] == "polling"
    assert steps[6] == ("web_fetch", "timeout", "allow", "ok")
    assert steps[7] == ("web_fetch", "ok", "allow", "ok")
    # a real loop is nudged, then blocked
    assert steps[8:12] == [
        ("grep", "ok", "allow", "ok"),
        ("grep", "ok", "allow", "ok"),
        ("grep", "ok", "nudge", "repeated_call"),
        ("grep", "refused", "block", "repeated_call"),
    ]
    # a failing build: a second try runs, the third is refused until a file changes
    assert steps[12:] == [
        ("run_build", "failed", "allow", "ok"),
        ("run_build", "failed", "allow", "ok"),
        ("run_build", "refused", "block", "error_loop"),
        ("edit_file", "ok", "allow", "ok"),
        ("run_build", "failed", "allow", "ok"),
    ]
    assert "NameError" in report["steps"][14]["reason"]
    assert any(f["tool"] == "run_build" for f in report["learned"])
    assert report["journal"]["records_appended"] > 0
    assert Path(report["backup"]["path"]).is_file()
    assert Path(report["project"], "src", "app.py").is_file()


def test_second_run_refuses_the_remembered_failure_until_a_file_changes(tmp_path: Path) -> None:
    first = json.loads(run_crs("demo", "--json", home=tmp_path).stdout)
    out = run_crs("demo", "--json", home=tmp_path)
    assert out.returncode == 0, out.stderr
    second = json.loads(out.stdout)
    assert second["run"] == 2
    assert second["session_id"] != first["session_id"]
    assert second["restored"]["from_backup"] is True
    assert second["restored"]["learned_failures"] >= 1
    steps = steps_of(second)
    assert steps[8:12] == steps_of(first)[8:12]  # loop detection works in run 2 too
    assert steps[12:] == [
        ("run_build", "refused", "block", "known_failure"),
        ("edit_file", "ok", "allow", "ok"),
        ("run_build", "ok", "allow", "ok"),
    ]
    refused = second["steps"][12]["reason"]
    assert f"in session {first['session_id']}" in refused
    assert "NameError: name 'cfg' is not defined" in refused
    assert second["learned"] == []  # it ran and passed: nothing left to remember
    table = run_crs("demo", home=tmp_path).stdout  # a third run, as a person sees it
    assert "crs demo  run 3" in table
    assert "error_loop" in table
    assert "remembered failures: 2" in table or "remembered failures: 1" in table
    assert "run `crs demo` again" in table


def scene_steps(report: dict[str, Any], name: str) -> list[tuple[str, str, str, str]]:
    (scene,) = [s for s in report["scenes"] if s["name"] == name]
    return steps_of(scene)


PINGS = [  # a question, then "any update?" three times, each answered the same
    ("user", "asked", "", ""),
    ("agent", "said", "allow", "ok"),
    ("user", "asked", "", ""),
    ("agent", "said", "allow", "ok"),
    ("user", "asked", "", ""),
    ("agent", "said", "nudge", "monologue"),
    ("user", "asked", "", ""),
    ("agent", "refused", "block", "monologue"),
    ("deploy_status", "ok", "allow", "ok"),  # the agent looks, then answers: let through
    ("agent", "said", "allow", "ok"),
]
WALK = [("sql", "ok", "allow", "ok")] * 6 + [("sql", "ok", "nudge", "repeated_call")]
STUCK = [  # a report of distinct findings, then one message stuck on one passage
    ("user", "asked", "", ""),
    ("agent", "said", "allow", "ok"),
    ("agent", "said", "nudge", "monologue"),
    ("run_tests", "ok", "allow", "ok"),
]


RESPELT = [  # one file under four names/spellings: the third read a repeat, the fourth refused
    ("read_file", "ok", "allow", "ok"),
    ("read_file", "ok", "allow", "ok"),
    ("read_file", "ok", "nudge", "repeated_call"),
    ("read_file", "refused", "block", "repeated_call"),
    ("read_file", "ok", "allow", "ok"),  # another file
]
MADE_UP = [  # three made-up tools, each "Unknown tool: <name>", then a real one
    ("jira_search", "failed", "allow", "ok"),
    ("jira_find_issue", "failed", "allow", "ok"),
    ("confluence_search", "failed", "nudge", "error_loop"),
    ("read_file", "ok", "allow", "ok"),
]


def test_demo_scenes_one_file_respelt_is_one_read_made_up_tools_are_an_error_loop(
    tmp_path: Path,
) -> None:
    """The fourth and fifth scenes, the same in every run: one file read as
    path=src/util.py, file=./src/util.py, filepath=src/util.py/ and path=src//util.py is one
    read (nudged at the third, refused at the fourth, before it runs), another file is read;
    three different tools the model made up, each failing with "Unknown tool: <name>", are
    an error loop whose message sends the model back to its real tools."""
    for run in (1, 2):
        out = run_crs("demo", "--json", home=tmp_path)
        assert out.returncode == 0, out.stderr
        report = json.loads(out.stdout)
        names = [s["session_id"] for s in report["scenes"]]
        assert names[3:] == [f"scene-respelt-{run}", f"scene-made-up-{run}"]
        assert scene_steps(report, "respelt") == RESPELT
        respelt = report["scenes"][3]["steps"]
        assert [s["args"] for s in respelt[:4]] == [
            "path='src/util.py'",
            "file='./src/util.py'",
            "filepath='src/util.py/'",
            "path='src//util.py'",
        ]
        assert "steps 1, 2, 3" in respelt[3]["reason"]
        assert scene_steps(report, "made-up") == MADE_UP
        made_up = report["scenes"][4]["steps"]
        assert made_up[0]["reason"] == "Unknown tool: jira_search"
        assert "3 different tools failed the same way" in made_up[2]["reason"]
    table = run_crs("demo", home=tmp_path).stdout
    assert "scene: one file read under other names and spellings" in table
    assert "scene: tools the model made up" in table


def test_demo_scenes_pings_and_a_stuck_message_are_monologues_a_walk_is_not_a_loop(
    tmp_path: Path,
) -> None:
    """Three scenes after the coding session, each in a session of its own and the same in
    every run: the same answer to "any update?" (turn text) is nudged, then blocked; the
    same count query over five tables is allowed, the same query three times in a row is
    nudged; a long report passes and a message stuck on one passage is a monologue."""
    for run in (1, 2):
        out = run_crs("demo", "--json", home=tmp_path)
        assert out.returncode == 0, out.stderr
        report = json.loads(out.stdout)
        assert [s["session_id"] for s in report["scenes"]][:3] == [
            f"scene-pings-{run}",
            f"scene-walk-{run}",
            f"scene-stuck-{run}",
        ]
        assert scene_steps(report, "pings") == PINGS
        pings = report["scenes"][0]["steps"]
        assert "the same answer to 3 user turns" in pings[5]["reason"]
        assert scene_steps(report, "walk") == WALK
        tables = [s["args"].rsplit(" ", 1)[1].strip("'") for s in report["scenes"][1]["steps"]]
        assert tables[:5] == ["orders", "refunds", "invoices", "customers", "payouts"]
        assert scene_steps(report, "stuck") == STUCK
        stuck = report["scenes"][2]["steps"]
        assert "the same 106-character passage 6 times over" in stuck[2]["reason"]
        assert "(616 characters)" in stuck[1]["args"]  # (long: the report's start and length)
    table = run_crs("demo", home=tmp_path).stdout
    assert "scene: a user pings, the agent gives the same answer" in table
    assert "scene: the same query over other tables" in table
    assert "scene: a model repeats itself inside one message" in table
