"""Second-pass acceptance tests of the `ecc.session.v1` contract (seeds/000, in Chinese), public
API only: the state semantics of each adapter, compliance rules 3 and 5-7 on real adapter
output, the version policy's "needs a new schema version" list, the recording fallback's
exact history rule and the `session inspect` consumer. Docstrings quote the contract in
English translation; docs/seed-acceptance.md ("Second pass") maps them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from test_seed_acceptance_session import example

import crs
from crs.sessions import (
    ClaudeHistoryAdapter,
    DmuxTmuxAdapter,
    SessionContext,
    build_aggregates,
    inspect_session_target,
    parse_session_metadata,
    persist_canonical_snapshot,
    read_session_history,
    validate_canonical_snapshot,
)

NOW = 1_800_000_000.0  # the injected clock (seconds)


def _iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _worker(coord: Path, slug: str, **files: str) -> None:
    d = coord / slug
    d.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (d / f"{name}.md").write_text(text)


def _status(state: str, updated: float | None = None) -> str:
    extra = f"- Updated: {_iso(updated)}\n" if updated is not None else ""
    return f"# Status\n\n- State: {state}\n{extra}"


def _dmux(repo: Path, name: str = "night") -> dict[str, Any]:
    adapter = DmuxTmuxAdapter(tmux=("tmux", "-L", "crs-accept2-no-such-server"), clock=lambda: NOW)
    return adapter.open(name, SessionContext(cwd=repo, persist=False)).get_snapshot()


def _coord(tmp: Path, name: str = "night") -> Path:
    return tmp / "repo" / ".claude" / "orchestration" / name


# ---------------------------------------------------------------- dmux-tmux states


@pytest.mark.parametrize(
    ("states", "session_state"),
    [
        (["completed", "completed"], "completed"),
        (["completed", "running"], "idle"),
        (["completed", "failed"], "failed"),
        (["running", "error"], "failed"),
        (["not started"], "idle"),
    ],
)
def test_dmux_session_state_values(tmp_path: Path, states: list[str], session_state: str) -> None:
    """State semantics, dmux-tmux: "session states: active, completed, failed, idle, missing;
    worker states: derived from the worker status file, e.g. running or completed"."""
    for i, state in enumerate(states):
        _worker(_coord(tmp_path), f"w{i}", status=_status(state, NOW))
    snap = _dmux(tmp_path / "repo")
    assert snap["session"]["state"] == session_state
    assert [w["state"] for w in snap["workers"]] == states
    validate_canonical_snapshot(snap, strict=True)


def test_dmux_worker_health_values(tmp_path: Path) -> None:
    """workers[].health is a documented string ("new health string values" are allowed in
    v1): healthy / degraded / stale / unknown, from the status file (state and update time)."""
    coord = _coord(tmp_path)
    _worker(coord, "a-fresh", status=_status("running", NOW - 10))
    _worker(coord, "b-old", status=_status("running", NOW - 3600))
    _worker(coord, "c-done", status=_status("completed"))
    _worker(coord, "d-failed", status=_status("failed"))
    _worker(coord, "e-odd", status=_status("pondering"))  # an adapter-specific state
    snap = _dmux(tmp_path / "repo")
    health = {w["id"]: (w["state"], w["health"]) for w in snap["workers"]}
    assert health == {
        "a-fresh": ("running", "healthy"),
        "b-old": ("running", "stale"),
        "c-done": ("completed", "healthy"),
        "d-failed": ("failed", "degraded"),
        "e-odd": ("pondering", "unknown"),
    }
    # rules 5-7 on what the adapter emitted
    assert snap["aggregates"] == {
        "workerCount": 5,
        "states": {"running": 2, "completed": 1, "failed": 1, "pondering": 1},
        "healths": {"healthy": 2, "stale": 1, "degraded": 1, "unknown": 1},
    }
    validate_canonical_snapshot(snap, strict=True)


def test_dmux_unknown_values_are_null_or_empty(tmp_path: Path) -> None:
    """Compliance rule 3: "use null for unknown optional scalar values and an empty array for
    unknown list values"; a worker with only a task file has no state file to derive from."""
    coord = _coord(tmp_path)
    _worker(coord, "bare", task="# Worker Task\n\n## Objective\nDo it.\n")
    (coord / "not-a-worker").mkdir()  # no status/task/handoff file: not a worker
    snap = _dmux(tmp_path / "repo")
    (w,) = snap["workers"]
    assert w["id"] == "bare"
    assert (w["branch"], w["worktree"]) == (None, None)
    assert (w["runtime"]["command"], w["runtime"]["pid"]) == (None, None)
    assert (w["runtime"]["active"], w["runtime"]["dead"]) == (False, False)
    assert w["intent"] == {"objective": "Do it.", "seedPaths": []}
    assert w["outputs"] == {"summary": [], "validation": [], "remainingRisks": []}
    assert w["state"] == "unknown"
    assert set(w["artifacts"]) == {"statusFile", "taskFile", "handoffFile"}  # paths, even absent
    validate_canonical_snapshot(snap, strict=True)


def test_dmux_missing_session_is_a_valid_empty_snapshot(tmp_path: Path) -> None:
    """dmux-tmux session state "missing"; rule 5: "aggregates.workerCount ===
    workers.length" also for zero workers."""
    (tmp_path / "repo").mkdir()
    snap = inspect_session_target(
        "nobody", cwd=tmp_path / "repo", adapter_id="dmux-tmux", persist=False
    )
    assert snap["session"]["state"] == "missing"
    assert snap["aggregates"] == {"workerCount": 0, "states": {}, "healths": {}}
    validate_canonical_snapshot(snap, strict=True)


# ---------------------------------------------------------------- claude-history

MINIMAL_HISTORY = (
    "# Session: 2026-04-05\n**Date:** 2026-04-05\n\n---\n\n### In Progress\n- [ ] Wire it\n"
)


def test_claude_history_unknown_values_are_null_or_empty(tmp_path: Path) -> None:
    """Rule 3 on claude-history: no worktree / branch / context / notes in the file -> null
    and empty arrays; consumers "must not assume that all adapters have tmux panes, git
    worktrees or Markdown coordination files"; artifacts: sessionFile, context."""
    data = tmp_path / "home" / ".claude" / "session-data"
    data.mkdir(parents=True)
    path = data / "2026-04-05-abc123-session.tmp"
    path.write_text(MINIMAL_HISTORY)
    adapter = ClaudeHistoryAdapter(user_home=tmp_path / "home")
    snap = adapter.open("claude:abc", SessionContext(cwd=tmp_path, persist=False)).get_snapshot()
    validate_canonical_snapshot(snap, strict=True)
    assert snap["session"]["id"] == "abc123"
    assert snap["session"]["repoRoot"] is None
    (w,) = snap["workers"]
    assert (w["branch"], w["worktree"]) == (None, None)
    assert w["runtime"]["kind"] == "claude-session"
    assert w["runtime"]["pid"] is None
    assert w["intent"] == {"objective": "Wire it", "seedPaths": []}
    assert w["outputs"] == {"summary": [], "validation": [], "remainingRisks": []}
    assert w["artifacts"] == {"sessionFile": str(path), "context": None}


def test_claude_history_never_emits_an_invalid_snapshot(tmp_path: Path) -> None:
    """Rule 2: "return a snapshot that satisfies all required fields and types" (the
    objective is a required non-empty string even when the file has no title or task;
    spec §6.3: it falls back to the label)."""
    data = tmp_path / "home" / ".claude" / "session-data"
    data.mkdir(parents=True)
    (data / "2026-04-06-blank-session.tmp").write_text("nothing useful\n")
    adapter = ClaudeHistoryAdapter(user_home=tmp_path / "home")
    snap = adapter.open("claude:blank", SessionContext(cwd=tmp_path, persist=False)).get_snapshot()
    validate_canonical_snapshot(snap, strict=True)
    assert snap["workers"][0]["intent"]["objective"]


def test_claude_history_alias_is_a_source_target(tmp_path: Path) -> None:
    """claude-history mapping: "session source target: an explicit history target, an alias or
    a .tmp session file" (the alias file ~/.claude/session-aliases.json); the session id is
    still "the Claude short id when present"."""
    home = tmp_path / "home"
    data = home / ".claude" / "session-data"
    data.mkdir(parents=True)
    path = data / "2026-04-05-abc123-session.tmp"
    path.write_text(MINIMAL_HISTORY)
    aliases = {"version": "1.0", "aliases": {"work": {"sessionPath": str(path)}}, "metadata": {}}
    (home / ".claude" / "session-aliases.json").write_text(json.dumps(aliases))
    adapter = ClaudeHistoryAdapter(user_home=home)
    ctx = SessionContext(cwd=tmp_path, persist=False)
    snap = adapter.open("claude:work", ctx).get_snapshot()
    assert snap["session"]["sourceTarget"] == {"type": "claude-alias", "value": "work"}
    assert snap["session"]["id"] == "abc123"
    by_file = adapter.open(str(path), ctx).get_snapshot()
    assert by_file["session"]["sourceTarget"] == {"type": "session-file", "value": str(path)}
    assert by_file["workers"][0]["artifacts"]["sessionFile"] == str(path)


# ---------------------------------------------------------------- versioning


@pytest.mark.parametrize(
    "change",
    [
        "remove-required",
        "rename-field",
        "change-type",
    ],
)
def test_breaking_changes_need_a_new_schema_version(change: str) -> None:
    """Version policy, "requires a new schema version": removing a required field, renaming a
    field, changing a field's type. Under "ecc.session.v1" such a snapshot is a contract
    defect; "if any of the above happens, the producer must emit a new version string, for
    example ecc.session.v2", which a v1 consumer does not accept either ("schemaVersion is
    the only compatibility gate. Consumers must branch on it")."""
    doc = example()
    if change == "remove-required":
        del doc["workers"][0]["health"]
    elif change == "rename-field":
        doc["workers"][0]["intent"]["seedFiles"] = doc["workers"][0]["intent"].pop("seedPaths")
    else:
        doc["workers"][0]["runtime"]["active"] = "no"
    with pytest.raises(crs.ContractError):
        validate_canonical_snapshot(doc)
    doc["schemaVersion"] = "ecc.session.v2"
    with pytest.raises(crs.ContractError, match="Unsupported canonical session schema version"):
        validate_canonical_snapshot(doc)


def test_contract_defects_are_not_input_errors() -> None:
    """ "Adapters should treat validation failures as contract defects, not user input
    errors": a ContractError is its own type (a CRSError, not an InvalidArgumentError)."""
    doc = example()
    doc["aggregates"]["workerCount"] = 7
    with pytest.raises(crs.ContractError) as info:
        validate_canonical_snapshot(doc)
    assert isinstance(info.value, crs.CRSError)
    assert not isinstance(info.value, crs.InvalidArgumentError)


# ---------------------------------------------------------------- recording


def _states(history: list[Any]) -> list[str]:
    return [h["snapshot"]["session"]["state"] for h in history]


def test_json_fallback_history_compares_with_the_latest_body(tmp_path: Path) -> None:
    """Recording fallback: "the latest snapshot is always replaced in place; history keeps
    only distinct snapshot bodies; unchanged repeated reads do not append duplicate history"
    (distinct from the latest: A, B, A is three entries; A, A is one)."""
    home = tmp_path / "home"
    (home / "sessions.db").mkdir(parents=True)  # the store cannot be opened: JSON fallback
    rec = tmp_path / "rec"
    a, b = example(), example()
    b["session"]["state"] = "completed"
    results = [persist_canonical_snapshot(s, home=home, recording_dir=rec) for s in (a, a, b, b, a)]
    assert [r.changed for r in results] == [True, False, True, False, True]
    assert {r.path for r in results} == {results[0].path}  # in place
    doc = json.loads(Path(results[0].path or "").read_text())
    assert _states(doc["history"]) == ["active", "completed", "active"]
    assert doc["latest"] == a
    assert doc["schemaVersion"] == "ecc.session.recording.v1"
    assert (doc["adapterId"], doc["sessionId"]) == ("dmux-tmux", "workflow-visual-proof")


def test_json_fallback_keeps_created_at_and_bumps_updated_at(tmp_path: Path) -> None:
    """ "The latest snapshot is always replaced in place" (an unchanged read still refreshes
    the file's update time; its creation time stays)."""
    home = tmp_path / "home"
    (home / "sessions.db").mkdir(parents=True)
    first = persist_canonical_snapshot(example(), home=home, recording_dir=tmp_path / "rec")
    before = json.loads(Path(first.path or "").read_text())
    time.sleep(0.01)
    persist_canonical_snapshot(example(), home=home, recording_dir=tmp_path / "rec")
    after = json.loads(Path(first.path or "").read_text())
    assert after["createdAt"] == before["createdAt"]
    assert after["updatedAt"] > before["updatedAt"]
    assert len(after["history"]) == 1


def test_state_store_history_compares_with_the_latest_body(tmp_path: Path) -> None:
    """The same history rule through the state store (rule 10: "first tries the state
    store"): A, A, B, A keeps A, B, A."""
    home = tmp_path / "home"
    a, b = example(), example()
    b["session"]["state"] = "completed"
    for s in (a, a, b, a):
        assert persist_canonical_snapshot(s, home=home).backend == "state-store"
    history = read_session_history("dmux-tmux", "workflow-visual-proof", home=home)
    assert [h.snapshot["session"]["state"] for h in history] == ["active", "completed", "active"]


def test_reading_a_session_records_it_unless_told_not_to(tmp_path: Path) -> None:
    """Rule 10: "persist the normalised canonical snapshot through the session recording
    shim" (every read records); unchanged repeated reads add nothing."""
    coord = _coord(tmp_path)
    _worker(coord, "w", status=_status("completed"))
    home = tmp_path / "crs-home"
    repo = tmp_path / "repo"
    for _ in range(3):
        inspect_session_target("night", cwd=repo, adapter_id="dmux-tmux", home=home)
    assert len(read_session_history("dmux-tmux", "night", home=home)) == 1
    inspect_session_target("other", cwd=repo, adapter_id="dmux-tmux", home=home, persist=False)
    assert read_session_history("dmux-tmux", "other", home=home) == []


# ---------------------------------------------------------------- the session-inspect consumer


def _cli(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "CRS_HOME": str(tmp / "crs"),
        "HOME": str(tmp / "home"),
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": ":".join(sys.path),
    }
    return subprocess.run(
        [sys.executable, "-m", "crs", "session", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp / "repo",
        env=env,
        check=False,
    )


def test_session_inspect_cli_options_and_errors(tmp_path: Path) -> None:
    """session-inspect (spec §6.5): `--adapter`, `--target-type` (structured target),
    `--write` (same JSON, parent directories created), errors on stderr with exit 1, no
    target -> usage and exit 1; a flag before the target is parsed as a flag."""
    _worker(_coord(tmp_path), "w", status=_status("completed"))
    data = tmp_path / "home" / ".claude" / "session-data"
    data.mkdir(parents=True)
    (data / "2026-04-05-abc123-session.tmp").write_text(MINIMAL_HISTORY)
    out = _cli(tmp_path, "inspect", "--adapter", "dmux-tmux", "night")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["session"]["id"] == "night"
    typed = _cli(tmp_path, "inspect", "latest", "--target-type", "claude-history")
    assert typed.returncode == 0, typed.stderr
    assert json.loads(typed.stdout)["session"]["sourceTarget"] == {
        "type": "claude-history",
        "value": "latest",
    }
    target = tmp_path / "out" / "deep" / "snap.json"
    written = _cli(tmp_path, "inspect", "night", "--write", str(target))
    assert written.returncode == 0, written.stderr
    assert json.loads(target.read_text()) == json.loads(written.stdout)
    unknown = _cli(tmp_path, "inspect", "night", "--adapter", "nope")
    assert unknown.returncode == 1
    assert unknown.stderr.startswith("[session-inspect] ")
    assert "nope" in unknown.stderr
    nothing = _cli(tmp_path, "inspect", "no-such-target")
    assert nothing.returncode == 1
    assert "No session adapter matched target: no-such-target" in nothing.stderr
    usage = _cli(tmp_path, "inspect")
    assert usage.returncode == 1
    assert "Usage" in usage.stdout + usage.stderr


@pytest.mark.parametrize(
    ("workers", "named"),
    [
        ([1], r"workers\[0\]"),
        ([{"state": "running"}, "w"], r"workers\[1\]"),
        ([{"state": ["running"]}], r"workers\[0\]\.state"),
        ([{"health": {"ok": 1}}], r"workers\[0\]\.health"),
    ],
)
def test_build_aggregates_refuses_what_is_not_a_worker(workers: list[Any], named: str) -> None:
    """Rules 5-7 (aggregates from the emitted workers) on bad input: a typed error naming
    the worker, never a crash (the validator's defects are contract errors; a caller's wrong
    argument is an InvalidArgumentError)."""
    with pytest.raises(crs.InvalidArgumentError, match=named):
        build_aggregates(workers)


@pytest.mark.parametrize("content", [1, b"# Session", ["x"], {"title": "t"}])
def test_parse_session_metadata_refuses_what_is_not_text(content: Any) -> None:
    """claude-history parses the session file's markdown ("### Context to Load" ...); what is
    not text is a typed error naming the argument."""
    with pytest.raises(crs.InvalidArgumentError, match="content"):
        parse_session_metadata(content)
