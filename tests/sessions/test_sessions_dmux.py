"""The dmux-tmux adapter: markdown parsing, plan and session resolution, a real tmux server."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import crs
from _sessions_tmux import TmuxServer
from crs.sessions import DmuxTmuxAdapter, SessionContext, inspect_session_target, list_tmux_panes
from crs.sessions._dmux import (
    parse_bullets,
    parse_section,
    parse_worker_handoff,
    parse_worker_status,
    parse_worker_task,
)

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC).timestamp()


def clock() -> float:
    return NOW


ORCHESTRATOR_STATUS = (
    "# Status: seed-check\n\n- State: not started\n- Worktree: `/tmp/wt`\n- Branch: `feat/x`\n"
)
LAUNCHER_STATUS = (
    "# Status\n\n- State: running\n- Updated: 2026-11-30T11:58:00Z\n- Branch: orch-seed\n"
    "- Worktree: `/tmp/wt/seed`\n\n- Task file: `/tmp/task.md`\n"
)
TASK = """# Worker Task: seed-check

- Session: `nightly`
- Worker: seed-check

## Seeded Local Overlays
- `scripts/orchestrate-worktrees.js`
- `docs/a b.md`

## Objective
Inspect seeded files.
Report what changed.

### Detail
keep going

## Completion
- Write handoff.md
"""
HANDOFF = """# Handoff

- Completed: 2026-11-30T11:59:00Z

**Summary**
- Did `the` thing
  - nested item
* star bullet
1. numbered
continuation line

## Files Changed
- a.py

## Validation
- `pytest -q`

## Remaining Risks
- none known

## Git Status
"""


# ---------------------------------------------------------------- markdown


def test_status_as_the_orchestrator_writes_it() -> None:
    st = parse_worker_status(ORCHESTRATOR_STATUS)
    assert st == {
        "state": "not started",
        "updated": None,
        "branch": "feat/x",
        "worktree": "/tmp/wt",
        "taskFile": None,
        "handoffFile": None,
    }


def test_status_as_the_launcher_rewrites_it() -> None:
    st = parse_worker_status(LAUNCHER_STATUS)
    assert st["state"] == "running"
    assert st["updated"] == "2026-11-30T11:58:00Z"
    assert st["branch"] == "orch-seed"
    assert st["worktree"] == "/tmp/wt/seed"
    assert st["taskFile"] == "/tmp/task.md"


def test_status_line_rules() -> None:
    text = "\n".join(
        [
            "- State: first",
            "- State: second",  # later lines win
            " - Branch: indented",  # must start at column 0
            "- Handoff File:   `/h.md`  ",  # spaces in key removed, value trimmed, ticks stripped
            "- Weird-Key: x",  # key of letters and spaces only
            "- Updated:",  # needs a value
            "* State: star",
            "- Worktree: `a` b `c`",  # only the outer ticks go
        ]
    )
    st = parse_worker_status(text)
    assert st["state"] == "second"
    assert st["branch"] is None
    assert st["handoffFile"] == "/h.md"
    assert st["updated"] is None
    assert st["worktree"] == "a` b `c"


def test_crlf_status_parses_like_lf() -> None:
    # The reference parsed CRLF files to nothing (spec README §6.3 fixes it).
    assert parse_worker_status(LAUNCHER_STATUS.replace("\n", "\r\n")) == parse_worker_status(
        LAUNCHER_STATUS
    )
    assert parse_worker_task(TASK.replace("\n", "\r\n")) == parse_worker_task(TASK)
    assert parse_worker_handoff(HANDOFF.replace("\n", "\r\n")) == parse_worker_handoff(HANDOFF)


def test_task_objective_and_seed_paths() -> None:
    task = parse_worker_task(TASK)
    # `###` neither starts nor ends a section; newlines are kept
    assert (
        task["objective"] == "Inspect seeded files.\nReport what changed.\n\n### Detail\nkeep going"
    )
    assert task["seedPaths"] == ["scripts/orchestrate-worktrees.js", "docs/a b.md"]


def test_handoff_sections_bold_and_hash_headings() -> None:
    handoff = parse_worker_handoff(HANDOFF)
    assert handoff["summary"] == ["Did `the` thing", "nested item"]
    assert handoff["validation"] == ["pytest -q"]
    assert handoff["remainingRisks"] == ["none known"]


def test_section_heading_must_match_exactly() -> None:
    assert parse_section("## objective\ntext", "Objective") == ""
    assert parse_section("  ## Objective  \n text \n**Other**\nafter", "Objective") == "text"
    assert parse_section("**Objective**\none\n**Objective**\ntwo\n## Next", "Objective") == (
        "one\n**Objective**\ntwo"
    )
    assert parse_section("", "Objective") == ""


def test_bullets() -> None:
    assert parse_bullets("- `a`\n  - b \n-c\n- \n* d\n2. e") == ["a", "b"]  # "- " trims to "-"
    assert parse_bullets("") == []


# ---------------------------------------------------------------- sessions on disk


def write_worker(
    coord: Path,
    slug: str,
    status: str | None = None,
    task: str | None = None,
    handoff: str | None = None,
) -> None:
    d = coord / slug
    d.mkdir(parents=True, exist_ok=True)
    for name, text in (("status.md", status), ("task.md", task), ("handoff.md", handoff)):
        if text is not None:
            (d / name).write_text(text, encoding="utf-8")


def status(state: str, updated: str | None = None) -> str:
    lines = ["# Status", "", f"- State: {state}"]
    if updated:
        lines.append(f"- Updated: {updated}")
    return "\n".join(lines) + "\n"


def ctx(cwd: Path, tmp: Path, **kw: Any) -> SessionContext:
    return SessionContext(cwd=cwd, home=tmp / "home", **kw)


def test_session_name_reads_the_coordination_dir(tmp_path: Path, tmux: TmuxServer) -> None:
    repo = tmp_path / "repo"
    coord = repo / ".claude" / "orchestration" / "nightly"
    write_worker(coord, "b-worker", status=status("completed"), task=TASK, handoff=HANDOFF)
    write_worker(coord, "a-worker", status=ORCHESTRATOR_STATUS)
    (coord / "not-a-worker").mkdir()
    (coord / "notes.md").write_text("x")
    adapter = DmuxTmuxAdapter(tmux=tmux.prefix, clock=clock)
    snap = adapter.open("nightly", ctx(repo, tmp_path)).get_snapshot()
    assert snap["session"] == {
        "id": "nightly",
        "kind": "orchestrated",
        "state": "idle",
        "repoRoot": str(repo),
        "sourceTarget": {"type": "session", "value": "nightly"},
    }
    assert [w["id"] for w in snap["workers"]] == ["a-worker", "b-worker"]
    a, b = snap["workers"]
    assert a["state"] == "not started"
    assert a["health"] == "unknown"
    assert a["branch"] == "feat/x"
    assert a["worktree"] == "/tmp/wt"
    assert a["intent"] == {"objective": "a-worker", "seedPaths": []}  # empty objective -> label
    assert a["runtime"] == {
        "kind": "tmux-pane",
        "command": None,
        "pid": None,
        "active": False,
        "dead": False,
    }
    assert a["artifacts"] == {
        "statusFile": str(coord / "a-worker" / "status.md"),
        "taskFile": str(coord / "a-worker" / "task.md"),
        "handoffFile": str(coord / "a-worker" / "handoff.md"),
    }
    assert b["health"] == "healthy"
    assert b["outputs"]["validation"] == ["pytest -q"]
    assert snap["aggregates"] == {
        "workerCount": 2,
        "states": {"not started": 1, "completed": 1},
        "healths": {"unknown": 1, "healthy": 1},
    }
    assert list(snap) == ["schemaVersion", "adapterId", "session", "workers", "aggregates"]
    assert list(a) == [
        "id",
        "label",
        "state",
        "health",
        "branch",
        "worktree",
        "runtime",
        "intent",
        "outputs",
        "artifacts",
    ]


def test_workers_sort_in_javascript_order(tmp_path: Path, tmux: TmuxServer) -> None:
    coord = tmp_path / ".claude" / "orchestration" / "s"
    for slug in ["b", "B", "a-2", "a-10", "\U0001f600", "\uff41"]:
        write_worker(coord, slug, status=status("idle"))
    snap = DmuxTmuxAdapter(tmux=tmux.prefix).open("s", ctx(tmp_path, tmp_path)).get_snapshot()
    # UTF-16 code unit order: the astral emoji (surrogates D83D...) sorts before U+FF41
    assert [w["id"] for w in snap["workers"]] == ["B", "a-10", "a-2", "b", "\U0001f600", "\uff41"]


@pytest.mark.parametrize(
    ("states", "expected"),
    [
        ([], "missing"),
        (["failed", "completed"], "failed"),
        (["error"], "failed"),
        (["completed", "done", "success", "succeeded"], "completed"),
        (["completed", "running"], "idle"),
    ],
)
def test_session_state_without_panes(
    tmp_path: Path, tmux: TmuxServer, states: list[str], expected: str
) -> None:
    coord = tmp_path / ".claude" / "orchestration" / "s"
    coord.mkdir(parents=True)
    for i, state in enumerate(states):
        write_worker(coord, f"w{i}", status=status(state))
    snap = DmuxTmuxAdapter(tmux=tmux.prefix).open("s", ctx(tmp_path, tmp_path)).get_snapshot()
    assert snap["session"]["state"] == expected


@pytest.mark.parametrize(
    ("state", "updated", "expected"),
    [
        ("running", "2026-11-30T11:58:00Z", "healthy"),
        ("running", "2026-11-30T11:54:59Z", "stale"),  # older than 5 minutes
        ("active", "2026-11-30T11:55:00Z", "healthy"),  # exactly 5 minutes is not stale
        ("running", "2026-11-30T13:00:00Z", "healthy"),  # the future counts as healthy
        ("running", None, "stale"),
        ("running", "yesterday-ish", "stale"),
        ("running", "Mon, 30 Nov 2026 11:59:00 GMT", "healthy"),
        ("failed", None, "degraded"),
        ("done", None, "healthy"),
        ("queued", "2026-11-30T11:59:00Z", "unknown"),
    ],
)
def test_worker_health_uses_the_injected_clock(
    tmp_path: Path, tmux: TmuxServer, state: str, updated: str | None, expected: str
) -> None:
    coord = tmp_path / ".claude" / "orchestration" / "s"
    write_worker(coord, "w", status=status(state, updated))
    snap = (
        DmuxTmuxAdapter(tmux=tmux.prefix, clock=clock)
        .open("s", ctx(tmp_path, tmp_path))
        .get_snapshot()
    )
    assert snap["workers"][0]["health"] == expected


def test_plan_file(tmp_path: Path, tmux: TmuxServer) -> None:
    repo = tmp_path / "repo"
    coord = tmp_path / "coord" / "Nightly Run"  # sessionName is used raw, not slugified
    write_worker(coord, "w", status=status("completed"))
    plan = tmp_path / "plans" / "plan.json"
    plan.parent.mkdir()
    plan.write_text(
        json.dumps(
            {
                "sessionName": "Nightly Run",
                "repoRoot": str(repo),
                "coordinationRoot": str(tmp_path / "coord"),
                "workers": [],
            }
        )
    )
    snap = inspect_session_target(
        "plans/plan.json",
        cwd=tmp_path,
        home=tmp_path / "h",
        adapters=[DmuxTmuxAdapter(tmux=tmux.prefix)],
    )
    assert snap["session"]["id"] == "Nightly Run"
    assert snap["session"]["repoRoot"] == str(repo)
    assert snap["session"]["sourceTarget"] == {"type": "plan", "value": str(plan)}
    assert snap["session"]["state"] == "completed"


def test_plan_defaults_coordination_root_to_repo_orchestration(
    tmp_path: Path, tmux: TmuxServer
) -> None:
    write_worker(tmp_path / ".orchestration" / "s1", "w", status=status("idle"))
    (tmp_path / "plan.json").write_text('{"sessionName": "s1"}')
    snap = (
        DmuxTmuxAdapter(tmux=tmux.prefix).open("plan.json", ctx(tmp_path, tmp_path)).get_snapshot()
    )
    assert snap["session"]["repoRoot"] == str(tmp_path)
    assert [w["id"] for w in snap["workers"]] == ["w"]


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{not json", "is not valid JSON"),
        ("[1, 2]", "must hold a JSON object"),
        ('{"repoRoot": "/x"}', "requires sessionName to be a non-empty string"),
        ('{"sessionName": ""}', "requires sessionName to be a non-empty string"),
        ('{"sessionName": "s", "repoRoot": 5}', "requires repoRoot to be a string"),
        (
            '{"sessionName": "s", "coordinationRoot": []}',
            "requires coordinationRoot to be a string",
        ),
    ],
)
def test_bad_plans_are_clear_errors_and_write_nothing(
    tmp_path: Path, tmux: TmuxServer, content: str, fragment: str
) -> None:
    (tmp_path / "plan.json").write_text(content)
    with pytest.raises(crs.SessionError, match=fragment):
        inspect_session_target(
            "plan.json",
            cwd=tmp_path,
            home=tmp_path / "home",
            recording_dir=tmp_path / "rec",
            adapters=[DmuxTmuxAdapter(tmux=tmux.prefix)],
        )
    assert not (tmp_path / "home").exists()
    assert not (tmp_path / "rec").exists()


def test_unreadable_worker_file_is_a_session_error(tmp_path: Path, tmux: TmuxServer) -> None:
    coord = tmp_path / ".claude" / "orchestration" / "s"
    (coord / "w" / "status.md").mkdir(parents=True)  # a directory where a file belongs
    with pytest.raises(crs.SessionError, match="Cannot read worker file"):
        DmuxTmuxAdapter(tmux=tmux.prefix).open("s", ctx(tmp_path, tmp_path)).get_snapshot()


def test_can_open(tmp_path: Path) -> None:
    adapter = DmuxTmuxAdapter()
    (tmp_path / "plan.json").write_text("{}")
    (tmp_path / "plan.txt").write_text("{}")
    (tmp_path / ".claude" / "orchestration" / "s").mkdir(parents=True)
    c = SessionContext(cwd=tmp_path)
    assert adapter.can_open("plan.json", c)
    assert not adapter.can_open("plan.txt", c)
    assert adapter.can_open("s", c)
    assert not adapter.can_open("nope", c)
    assert not adapter.can_open("", c)
    assert adapter.can_open("nope", SessionContext(cwd=tmp_path, adapter_id="dmux-tmux"))
    assert not adapter.can_open("s", SessionContext(cwd=tmp_path, adapter_id="claude-history"))


# ---------------------------------------------------------------- tmux


def test_panes_are_matched_by_title_over_all_windows(tmp_path: Path, tmux: TmuxServer) -> None:
    first = tmux.new_session("nightly")
    tmux.title(first, "alpha")
    tmux.add_worker_pane("nightly", "beta")  # second window
    tmux.new_session("nightly-other")  # a prefix-sharing session must not be read
    tmux.add_worker_pane("nightly-other", "gamma")
    coord = tmp_path / ".claude" / "orchestration" / "nightly"
    for slug in ("alpha", "beta", "gamma"):
        write_worker(coord, slug, status=status("running", "2026-11-30T11:59:00Z"))
    snap = (
        DmuxTmuxAdapter(tmux=tmux.prefix, clock=clock)
        .open("nightly", ctx(tmp_path, tmp_path))
        .get_snapshot()
    )
    by_id = {w["id"]: w for w in snap["workers"]}
    assert snap["session"]["state"] == "active"
    for slug in ("alpha", "beta"):
        rt = by_id[slug]["runtime"]
        assert rt["kind"] == "tmux-pane"
        assert rt["command"] == "sleep"
        assert isinstance(rt["pid"], int)
        assert rt["pid"] > 0
        assert rt["dead"] is False
        assert by_id[slug]["health"] == "healthy"
    assert by_id["gamma"]["runtime"]["pid"] is None  # its pane lives in another session
    panes = list_tmux_panes("nightly", tmux.prefix)
    assert sorted(p.title for p in panes) == ["alpha", "beta"]
    assert {p.window_index for p in panes} == {0, 1}
    assert list_tmux_panes("nightl", tmux.prefix) == []  # no prefix matching


def test_dead_pane_degrades_a_running_worker(tmp_path: Path, tmux: TmuxServer) -> None:
    tmux.new_session("s")
    tmux.run("set-option", "-t", "=s:", "remain-on-exit", "on")
    pane = tmux.split_worker_pane("s", "w", command="true")
    tmux.wait_dead(pane)
    write_worker(
        tmp_path / ".claude" / "orchestration" / "s",
        "w",
        status=status("running", "2026-11-30T11:59:00Z"),
    )
    snap = (
        DmuxTmuxAdapter(tmux=tmux.prefix, clock=clock)
        .open("s", ctx(tmp_path, tmp_path))
        .get_snapshot()
    )
    assert snap["workers"][0]["runtime"]["dead"] is True
    assert snap["workers"][0]["health"] == "degraded"


def test_session_with_panes_but_no_workers_is_active(tmp_path: Path, tmux: TmuxServer) -> None:
    tmux.new_session("lonely")
    snap = (
        DmuxTmuxAdapter(tmux=tmux.prefix)
        .open("lonely", ctx(tmp_path, tmp_path, adapter_id="dmux-tmux"))
        .get_snapshot()
    )
    assert snap["session"]["state"] == "active"
    assert snap["workers"] == []


def test_missing_tmux_is_a_typed_error(tmp_path: Path) -> None:
    adapter = DmuxTmuxAdapter(tmux=(str(tmp_path / "no-such-tmux"),))
    with pytest.raises(crs.TmuxNotFoundError, match="tmux is not installed"):
        adapter.open("s", ctx(tmp_path, tmp_path)).get_snapshot()
    assert not (tmp_path / "home").exists()


def test_no_server_means_no_panes(tmp_path: Path) -> None:
    server = TmuxServer()  # never started
    assert list_tmux_panes("anything", server.prefix) == []


def test_bad_tmux_argument() -> None:
    with pytest.raises(crs.InvalidArgumentError, match="tmux"):
        DmuxTmuxAdapter(tmux="tmux")
