"""Acceptance tests of the `ecc.session.v1` contract page (seeds/000, in Chinese), through the
public API only (`crs.sessions`, `crs.ContractError`, the `crs session` CLI).

Each test quotes (in English) the contract statement it checks; spec/README.md §6 records where
we go beyond the reference (strict mode, SQLite store first, objective fallback, ...).
docs/seed-acceptance.md lists statement -> test.
"""

from __future__ import annotations

import copy
import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import crs
from _sessions_tmux import TmuxServer
from crs.sessions import (
    ClaudeHistoryAdapter,
    DmuxTmuxAdapter,
    SessionContext,
    build_aggregates,
    inspect_session_target,
    list_adapters,
    persist_canonical_snapshot,
    read_session_history,
    validate_canonical_snapshot,
)

# The example of the contract page, verbatim ("规范快照").
SEED_EXAMPLE: dict[str, Any] = json.loads(
    '{"schemaVersion": "ecc.session.v1", "adapterId": "dmux-tmux", "session": {'
    '"id": "workflow-visual-proof", "kind": "orchestrated", "state": "active", '
    '"repoRoot": "/tmp/repo", "sourceTarget": {"type": "session", '
    '"value": "workflow-visual-proof"}}, "workers": [{"id": "seed-check", '
    '"label": "seed-check", "state": "running", "health": "healthy", '
    '"branch": "feature/seed-check", "worktree": "/tmp/worktree", "runtime": {'
    '"kind": "tmux-pane", "command": "codex", "pid": 1234, "active": false, "dead": false}, '
    '"intent": {"objective": "Inspect seeded files.", '
    '"seedPaths": ["scripts/orchestrate-worktrees.js"]}, '
    '"outputs": {"summary": [], "validation": [], "remainingRisks": []}, '
    '"artifacts": {"statusFile": "/tmp/status.md", "taskFile": "/tmp/task.md", '
    '"handoffFile": "/tmp/handoff.md"}}], "aggregates": {"workerCount": 1, '
    '"states": {"running": 1}, "healths": {"healthy": 1}}}'
)

PREFIX = "Canonical session snapshot requires "


def example() -> dict[str, Any]:
    return copy.deepcopy(SEED_EXAMPLE)


def _set(doc: dict[str, Any], path: str, value: Any) -> None:
    keys = path.replace("[0]", ".0").split(".")
    node: Any = doc
    for k in keys[:-1]:
        node = node[int(k)] if k.isdigit() else node[k]
    last = keys[-1]
    if value is _DELETE:
        del node[last]
    else:
        node[last] = value


_DELETE = object()


# ---------------------------------------------------------------- the canonical snapshot


def test_seed_example_is_a_valid_canonical_snapshot() -> None:
    """ "Every adapter must return a JSON-serialisable object with this top-level structure":
    the page's own example validates, also under strict=True (spec §6.2)."""
    doc = example()
    assert validate_canonical_snapshot(doc) == SEED_EXAMPLE
    assert validate_canonical_snapshot(doc, strict=True) == SEED_EXAMPLE
    assert json.loads(json.dumps(doc)) == SEED_EXAMPLE


REQUIRED = [
    "schemaVersion",
    "adapterId",
    "session",
    "workers",
    "aggregates",
    "session.id",
    "session.kind",
    "session.state",
    "session.sourceTarget",
    "session.sourceTarget.type",
    "session.sourceTarget.value",
    "workers[0].id",
    "workers[0].label",
    "workers[0].state",
    "workers[0].health",
    "workers[0].runtime",
    "workers[0].runtime.kind",
    "workers[0].runtime.active",
    "workers[0].runtime.dead",
    "workers[0].intent",
    "workers[0].intent.objective",
    "workers[0].intent.seedPaths",
    "workers[0].outputs",
    "workers[0].outputs.summary",
    "workers[0].outputs.validation",
    "workers[0].outputs.remainingRisks",
    "workers[0].artifacts",
    "aggregates.workerCount",
    "aggregates.states",
    "aggregates.healths",
]


@pytest.mark.parametrize("path", REQUIRED)
def test_seed_required_fields(path: str) -> None:
    """ "Required fields" (top level, session, sourceTarget, workers[], runtime, intent,
    outputs, aggregates): removing any one is a contract violation naming it."""
    doc = example()
    _set(doc, path, _DELETE)
    with pytest.raises(crs.ContractError) as info:
        validate_canonical_snapshot(doc)
    assert path.split(".")[-1] in str(info.value) or "schema version" in str(info.value)


@pytest.mark.parametrize(
    "path",
    ["session.repoRoot", "workers[0].branch", "workers[0].worktree", "workers[0].runtime.command"],
)
def test_seed_optional_fields_may_be_omitted_or_null_but_keep_their_type(path: str) -> None:
    """ "Optional fields may be omitted, but if emitted they must keep the documented type";
    rule 3: unknown optional scalars are null."""
    for value in (_DELETE, None):
        doc = example()
        _set(doc, path, value)
        validate_canonical_snapshot(doc)
    doc = example()
    _set(doc, path, 42)
    with pytest.raises(crs.ContractError, match="string or null"):
        validate_canonical_snapshot(doc)


def test_seed_schema_version_is_the_only_gate() -> None:
    """Rule 1: emit exactly schemaVersion "ecc.session.v1"; "schemaVersion is the only
    compatibility gate", so "ecc.session.v2" (a new version) is not a v1 snapshot."""
    for bad in ("ecc.session.v2", "ECC.SESSION.V1", "ecc.session.v1 "):
        doc = example()
        doc["schemaVersion"] = bad
        with pytest.raises(crs.ContractError) as info:
            validate_canonical_snapshot(doc)
        assert str(info.value) == f"Unsupported canonical session schema version: {bad}"
    assert crs.sessions.SESSION_SCHEMA_VERSION == "ecc.session.v1"


def test_seed_validation_reference_types() -> None:
    """ "Validation reference": required object structure, required string fields, boolean
    runtime flags, string-array outputs and seed paths, aggregate count consistency."""
    cases: list[tuple[str, Any, str]] = [
        ("session", [], "session to be an object"),
        ("session.id", "", "session.id to be a non-empty string"),
        ("workers[0].runtime.active", "false", "workers[0].runtime.active to be a boolean"),
        ("workers[0].runtime.dead", 0, "workers[0].runtime.dead to be a boolean"),
        (
            "workers[0].intent.seedPaths",
            "a.js",
            "workers[0].intent.seedPaths to be an array of strings",
        ),
        ("workers[0].outputs.summary", [1], "workers[0].outputs.summary to be an array of strings"),
        ("aggregates.workerCount", -1, "aggregates.workerCount to be a non-negative integer"),
        ("aggregates.workerCount", True, "aggregates.workerCount to be a non-negative integer"),
        ("aggregates.workerCount", 2, "aggregates.workerCount to match workers.length"),
    ]
    for path, value, message in cases:
        doc = example()
        _set(doc, path, value)
        with pytest.raises(crs.ContractError) as info:
            validate_canonical_snapshot(doc)
        assert str(info.value) == PREFIX + message, path
    with pytest.raises(crs.ContractError, match="must be an object"):
        validate_canonical_snapshot([])


def test_seed_worker_count_matches_and_json_integer_rule() -> None:
    """Rule 5: aggregates.workerCount === workers.length (JSON 1.0 counts as 1, spec §6.1)."""
    doc = example()
    doc["aggregates"]["workerCount"] = 1.0
    validate_canonical_snapshot(doc)
    doc = example()
    doc["workers"] = []
    doc["aggregates"] = {"workerCount": 0, "states": {}, "healths": {}}
    validate_canonical_snapshot(doc, strict=True)  # zero workers is a valid session


def test_seed_unknown_state_strings_are_valid() -> None:
    """ "Consumers must treat unknown state strings as valid adapter-specific values"; new
    health values and adapter ids are allowed in v1; "must not reject a snapshot only because a
    state string is unfamiliar"."""
    doc = example()
    doc["adapterId"] = "future-harness"
    doc["session"]["state"] = "hibernating"
    doc["session"]["kind"] = "cloud"
    doc["workers"][0]["state"] = "thinking-hard"
    doc["workers"][0]["health"] = "wobbly"
    doc["workers"][0]["runtime"]["kind"] = "k8s-pod"
    doc["aggregates"]["states"] = {"thinking-hard": 1}
    doc["aggregates"]["healths"] = {"wobbly": 1}
    assert validate_canonical_snapshot(doc, strict=True) == doc


def test_seed_new_optional_nested_fields_and_artifact_keys_are_allowed() -> None:
    """v1 allows "adding new optional nested fields" and "new artifact keys inside
    workers[].artifacts"; adapter details nest under runtime / artifacts (rule 4)."""
    doc = example()
    doc["workers"][0]["artifacts"]["screenshot"] = "/tmp/shot.png"
    doc["workers"][0]["runtime"]["tty"] = "/dev/pts/3"
    doc["session"]["labels"] = {"team": "infra"}
    assert validate_canonical_snapshot(doc, strict=True) == doc


def test_seed_strict_mode_enforces_the_compliance_rules() -> None:
    """Rules 6-8 and "adapters must not invent new top-level fields": the reference does not
    check them; strict=True does (spec §6.2), and errors() lists every violation (§6.1)."""
    doc = example()
    doc["aggregates"]["states"] = {"completed": 1}  # rule 6
    validate_canonical_snapshot(doc)  # the reference accepts it
    with pytest.raises(crs.ContractError):
        validate_canonical_snapshot(doc, strict=True)
    doc = example()
    doc["aggregates"]["healths"] = {"healthy": 2}  # rule 7
    with pytest.raises(crs.ContractError):
        validate_canonical_snapshot(doc, strict=True)
    doc = example()
    doc["inventedTopLevel"] = True
    validate_canonical_snapshot(doc)
    with pytest.raises(crs.ContractError, match="inventedTopLevel"):
        validate_canonical_snapshot(doc, strict=True)
    doc = example()
    doc["workers"][0]["artifacts"]["when"] = object()  # rule 8: plain JSON values only
    with pytest.raises(crs.ContractError):
        validate_canonical_snapshot(doc, strict=True)
    doc = example()
    doc["session"]["id"] = ""
    doc["workers"][0]["label"] = ""
    with pytest.raises(crs.ContractError) as info:
        validate_canonical_snapshot(doc)
    assert len(info.value.errors()) >= 2
    assert str(info.value) == PREFIX + "session.id to be a non-empty string"  # the first one


def test_seed_build_aggregates_matches_emitted_workers() -> None:
    """Rules 5-7: aggregates derived from the emitted workers."""
    workers = copy.deepcopy(SEED_EXAMPLE["workers"]) * 2
    workers[1] = {**workers[1], "id": "second", "state": "completed", "health": "healthy"}
    agg = build_aggregates(workers)
    assert agg == {
        "workerCount": 2,
        "states": {"running": 1, "completed": 1},
        "healths": {"healthy": 2},
    }
    assert build_aggregates([]) == {"workerCount": 0, "states": {}, "healths": {}}


# ---------------------------------------------------------------- adapters


def test_seed_current_adapter_mapping_is_listed() -> None:
    """ "Current adapter mapping": dmux-tmux and claude-history (adapterId is a routing hint)."""
    ids = [a["id"] for a in list_adapters()]
    assert set(ids) == {"dmux-tmux", "claude-history"}


def _write_worker(coord: Path, slug: str, state: str) -> None:
    d = coord / slug
    d.mkdir(parents=True)
    (d / "status.md").write_text(f"# Status\n\n- State: {state}\n- Branch: feature/{slug}\n")
    (d / "task.md").write_text(
        "# Worker Task\n\n## Seeded Local Overlays\n- `scripts/orchestrate-worktrees.js`\n\n"
        "## Objective\nInspect seeded files.\n"
    )
    (d / "handoff.md").write_text("# Handoff\n\n## Summary\n- done it\n")


def test_seed_dmux_tmux_mapping(tmp_path: Path, tmux: TmuxServer) -> None:
    """dmux-tmux: session id = orchestration session name, kind "orchestrated", source target =
    plan path or session name, runtime kind "tmux-pane", artifacts statusFile / taskFile /
    handoffFile; session states among active / completed / failed / idle / missing; the
    snapshot validates (rules 1-2, 9) and is plain JSON (rule 8)."""
    repo = tmp_path / "repo"
    coord = repo / ".claude" / "orchestration" / "nightly"
    _write_worker(coord, "seed-check", "completed")
    _write_worker(coord, "docs", "completed")
    adapter = DmuxTmuxAdapter(tmux=tmux.prefix)
    snap = adapter.open("nightly", SessionContext(cwd=repo, persist=False)).get_snapshot()
    validate_canonical_snapshot(snap, strict=True)
    assert snap["schemaVersion"] == "ecc.session.v1"
    assert snap["adapterId"] == "dmux-tmux"
    assert snap["session"]["id"] == "nightly"
    assert snap["session"]["kind"] == "orchestrated"
    assert snap["session"]["sourceTarget"] == {"type": "session", "value": "nightly"}
    assert snap["session"]["state"] == "completed"
    w = {x["id"]: x for x in snap["workers"]}["seed-check"]
    assert w["state"] == "completed"  # "derived from the worker status file"
    assert w["runtime"]["kind"] == "tmux-pane"
    assert w["runtime"]["pid"] is None
    assert w["runtime"]["command"] is None
    assert set(w["artifacts"]) == {"statusFile", "taskFile", "handoffFile"}
    assert w["intent"] == {
        "objective": "Inspect seeded files.",
        "seedPaths": ["scripts/orchestrate-worktrees.js"],
    }
    assert w["outputs"] == {"summary": ["done it"], "validation": [], "remainingRisks": []}
    assert json.loads(json.dumps(snap)) == snap

    plan = repo / "plan.json"
    plan.write_text(json.dumps({"sessionName": "nightly", "repoRoot": str(repo)}))
    by_plan = adapter.open(str(plan), SessionContext(cwd=repo, persist=False)).get_snapshot()
    assert by_plan["session"]["sourceTarget"] == {"type": "plan", "value": str(plan)}
    assert by_plan["session"]["id"] == "nightly"

    missing = inspect_session_target(
        "nobody", cwd=repo, adapter_id="dmux-tmux", persist=False, home=tmp_path / "h"
    )
    assert missing["session"]["state"] == "missing"
    assert missing["workers"] == []

    tmux.new_session("nightly")
    tmux.add_worker_pane("nightly", "seed-check")
    live = adapter.open("nightly", SessionContext(cwd=repo, persist=False)).get_snapshot()
    assert live["session"]["state"] == "active"
    pane = {x["id"]: x for x in live["workers"]}["seed-check"]["runtime"]
    assert isinstance(pane["pid"], int)
    assert pane["dead"] is False


HISTORY_FILE = """# Session: 2026-04-03
**Date:** 2026-04-03
**Project:** crs
**Branch:** feat/sessions
**Worktree:** /work/wt/sessions

---

### Completed
- [x] Port the validator

### In Progress
- [ ] Wire the recorder

### Notes for Next Session
Check the lock timeout.

### Context to Load
```
python/crs/sessions/_recorder.py
tests/test_sessions_recorder.py
```
"""


def test_seed_claude_history_mapping(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """claude-history: session id = the Claude short id when present, else derived from the
    session file name; kind "history"; session and worker state "recorded"; runtime kind
    "claude-session"; seed paths parsed from "### Context to Load"; artifacts sessionFile and
    context; source target = explicit history target, alias or .tmp session file."""
    home = tmp_path / "home"
    data = home / ".claude" / "session-data"
    data.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CRS_HOME", str(tmp_path / "crs-home"))
    with_id = data / "2026-04-03-f00dcafe-session.tmp"
    with_id.write_text(HISTORY_FILE)
    no_id = data / "2026-04-02-session.tmp"
    no_id.write_text(HISTORY_FILE)
    adapter = ClaudeHistoryAdapter(user_home=home)
    ctx = SessionContext(cwd=tmp_path, persist=False)
    snap = adapter.open("claude:f00d", ctx).get_snapshot()
    validate_canonical_snapshot(snap, strict=True)
    assert snap["adapterId"] == "claude-history"
    assert snap["session"]["id"] == "f00dcafe"
    assert (snap["session"]["kind"], snap["session"]["state"]) == ("history", "recorded")
    assert snap["session"]["sourceTarget"] == {"type": "claude-history", "value": "f00d"}
    (w,) = snap["workers"]
    assert (w["state"], w["runtime"]["kind"]) == ("recorded", "claude-session")
    assert w["intent"]["seedPaths"] == [
        "python/crs/sessions/_recorder.py",
        "tests/test_sessions_recorder.py",
    ]
    assert set(w["artifacts"]) == {"sessionFile", "context"}
    assert snap["aggregates"] == {
        "workerCount": 1,
        "states": {"recorded": 1},
        "healths": {"healthy": 1},
    }
    by_file = adapter.open(str(no_id), ctx).get_snapshot()
    assert by_file["session"]["id"] == "2026-04-02-session"  # derived from the file name
    assert by_file["session"]["sourceTarget"] == {"type": "session-file", "value": str(no_id)}


# ---------------------------------------------------------------- recording


def test_seed_recording_state_store_first(tmp_path: Path) -> None:
    """Rule 10: persist through the recording shim, "which first tries the state store"; the
    JSON file is only a fallback (spec §6.4: a SQLite store, table sessions)."""
    home = tmp_path / "home"
    result = persist_canonical_snapshot(example(), home=home, recording_dir=tmp_path / "rec")
    assert result.backend == "state-store"
    assert not (tmp_path / "rec").exists()
    with sqlite3.connect(home / "sessions.db") as db:
        rows = db.execute("SELECT id, adapter_id, state FROM sessions").fetchall()
    assert ("workflow-visual-proof", "dmux-tmux", "active") in rows


def test_seed_json_fallback_recording_semantics(tmp_path: Path) -> None:
    """ "Recording fallback behaviour": the latest snapshot is always replaced in place; history
    keeps only distinct snapshot bodies; unchanged repeated reads append no history."""
    home = tmp_path / "home"
    (home / "sessions.db").mkdir(parents=True)  # the store cannot be opened: JSON fallback
    rec = tmp_path / "rec"
    a = example()
    b = example()
    b["session"]["state"] = "completed"
    results = [persist_canonical_snapshot(s, home=home, recording_dir=rec) for s in (a, a, a, b)]
    assert {r.backend for r in results} == {"json-file"}
    assert [r.changed for r in results] == [True, False, False, True]
    path = Path(results[0].path or "")
    doc = json.loads(path.read_text())
    assert doc["latest"] == b
    assert [h["snapshot"]["session"]["state"] for h in doc["history"]] == ["active", "completed"]
    assert len({p.name for p in path.parent.iterdir() if p.suffix == ".json"}) == 1  # in place


def test_seed_store_history_only_distinct_bodies(tmp_path: Path) -> None:
    """The same rule through the state store: polling an unchanged session adds nothing."""
    home = tmp_path / "home"
    for _ in range(5):
        persist_canonical_snapshot(example(), home=home)
    changed = example()
    changed["workers"][0]["state"] = "completed"
    changed["aggregates"]["states"] = {"completed": 1}
    persist_canonical_snapshot(changed, home=home)
    history = read_session_history("dmux-tmux", "workflow-visual-proof", home=home)
    assert [h.snapshot["workers"][0]["state"] for h in history] == ["running", "completed"]


def test_seed_invalid_snapshot_is_never_persisted(tmp_path: Path) -> None:
    """Rule 9: "validate the canonical shape before persisting or downstream use"; validation
    failures are contract defects."""
    doc = example()
    doc["aggregates"]["workerCount"] = 3
    with pytest.raises(crs.ContractError):
        persist_canonical_snapshot(doc, home=tmp_path / "home", recording_dir=tmp_path / "rec")
    assert not (tmp_path / "home" / "sessions.db").exists() or not read_session_history(
        "dmux-tmux", "workflow-visual-proof", home=tmp_path / "home"
    )
    assert not (tmp_path / "rec").exists()


def test_seed_session_inspect_cli(tmp_path: Path) -> None:
    """`session-inspect` consumer: `crs session inspect <target>` prints the canonical JSON;
    `crs session adapters` lists the adapters (spec §6.5)."""
    env = {"CRS_HOME": str(tmp_path / "crs"), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    listed = subprocess.run(
        [sys.executable, "-m", "crs", "session", "adapters"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "PYTHONPATH": ":".join(sys.path)},
        check=False,
    )
    assert listed.returncode == 0, listed.stderr
    assert {a["id"] for a in json.loads(listed.stdout)["adapters"]} == {
        "dmux-tmux",
        "claude-history",
    }
    out = subprocess.run(
        [sys.executable, "-m", "crs", "session", "inspect", "nobody", "--adapter", "dmux-tmux"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={**env, "PYTHONPATH": ":".join(sys.path)},
        check=False,
    )
    assert out.returncode == 0, out.stderr
    snap = json.loads(out.stdout)
    validate_canonical_snapshot(snap, strict=True)
    assert snap["session"]["state"] == "missing"
