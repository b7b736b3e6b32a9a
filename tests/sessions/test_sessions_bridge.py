"""The session bridge: worker state changes of real sessions become CRS steps and history."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import crs
from _sessions_tmux import TmuxServer
from crs.sessions import (
    ClaudeHistoryAdapter,
    DmuxTmuxAdapter,
    SessionBridge,
    WorkerStateChange,
    build_aggregates,
    map_worker_state,
    persist_canonical_snapshot,
    read_session_history,
    worker_node_id,
    worker_state_changes,
)

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC).timestamp()
UPDATED = "2026-11-30T11:59:00Z"  # a minute before NOW: running workers are healthy


def clock() -> float:
    return NOW


def write_status(coord: Path, slug: str, state: str) -> None:
    d = coord / slug
    d.mkdir(parents=True, exist_ok=True)
    (d / "status.md").write_text(f"# Status\n\n- State: {state}\n- Updated: {UPDATED}\n")
    (d / "task.md").write_text(f"# Worker Task: {slug}\n\n## Objective\nBuild {slug}.\n")


def worker(wid: str, state: str, health: str = "healthy") -> dict[str, Any]:
    return {
        "id": wid,
        "label": wid,
        "state": state,
        "health": health,
        "branch": None,
        "worktree": None,
        "runtime": {"kind": "tmux-pane", "command": None, "pid": None, "active": False,
                    "dead": False},
        "intent": {"objective": f"do {wid}", "seedPaths": []},
        "outputs": {"summary": [], "validation": [], "remainingRisks": []},
        "artifacts": {},
    }  # fmt: skip


def snapshot(sid: str, *workers: dict[str, Any]) -> Any:
    return {
        "schemaVersion": "ecc.session.v1",
        "adapterId": "dmux-tmux",
        "session": {"id": sid, "kind": "orchestrated", "state": "active", "repoRoot": None,
                    "sourceTarget": {"type": "session", "value": sid}},
        "workers": list(workers),
        "aggregates": build_aggregates(list(workers)),  # type: ignore[arg-type]
    }  # fmt: skip


def summary(state: crs.CRS, sid: str) -> list[tuple[str, str, str, str]]:
    return [
        (s.tool, str(s.decision), str(s.outcome), str(s.error_category))
        for s in state.get_step_history(sid)
    ]


# ---------------------------------------------------------------- real sessions


def test_dmux_session_changes_across_recordings(tmp_path: Path, tmux: TmuxServer) -> None:
    repo, home = tmp_path / "repo", tmp_path / "crs-home"
    coord = repo / ".claude" / "orchestration" / "nightly"
    tmux.new_session("nightly")
    alpha = tmux.add_worker_pane("nightly", "alpha")
    tmux.add_worker_pane("nightly", "beta")
    write_status(coord, "alpha", "not started")
    write_status(coord, "beta", "running")
    adapters = [DmuxTmuxAdapter(tmux=tmux.prefix, clock=clock)]
    state = crs.CRS()
    bridge = SessionBridge(state)

    first = bridge.sync("nightly", cwd=repo, home=home, adapters=adapters)
    assert [(c.change.worker_id, c.change.previous_state, c.change.state) for c in first] == [
        ("alpha", None, "not started"),
        ("beta", None, "running"),
    ]
    assert summary(state, "nightly") == [
        ("alpha", "select_tool", "success", "none"),
        ("beta", "execute_tool", "success", "none"),
    ]

    write_status(coord, "alpha", "running")
    write_status(coord, "beta", "completed")
    second = bridge.sync("nightly", cwd=repo, home=home, adapters=adapters)
    assert [(c.change.worker_id, c.change.previous_state, c.change.state) for c in second] == [
        ("alpha", "not started", "running"),
        ("beta", "running", "completed"),
    ]
    steps = state.get_step_history("nightly")
    assert [s.step_number for s in steps] == [1, 2, 3, 4]
    assert summary(state, "nightly")[2:] == [
        ("alpha", "execute_tool", "success", "none"),
        ("beta", "complete", "success", "none"),
    ]
    assert steps[3].terminal
    assert steps[3].is_terminal()
    assert steps[2].result_summary == "Build alpha."
    # Steps carry the recorder's times: the second recording's time, for both workers.
    recorded = read_session_history("dmux-tmux", "nightly", home=home)
    assert len(recorded) == 2
    assert (
        [s.timestamp for s in steps]
        == [c.change.recorded_at_ms for c in first + second]
        == [c.recorded_at_ms for c in worker_state_changes(recorded)]
    )

    history = state.snapshot().history_index()
    trace = history.trace(worker_node_id("nightly", "alpha"))
    assert [(e.action, e.result) for e in trace] == [
        ("-> not started", "not started"),
        ("not started -> running", "running"),
    ]
    last = trace[-1]
    assert last.source == crs.SignalSource.HARD
    assert last.timestamp == steps[2].timestamp
    assert last.metadata["health"] == "healthy"
    assert last.metadata["previous_state"] == "not started"
    assert last.metadata["step_number"] == "3"
    assert last.id == f"session:nightly:worker:alpha@{steps[2].timestamp}#3"
    assert last.metadata["adapter_id"] == "dmux-tmux"
    assert last.metadata["recorded_at"] == recorded[1].recorded_at
    assert history.size() == 4

    # A pane that goes away changes the snapshot (a new recording), not a state: nothing is fed.
    tmux.run("kill-pane", "-t", alpha)
    generation = state.generation()
    assert bridge.sync("nightly", cwd=repo, home=home, adapters=adapters) == []
    assert len(read_session_history("dmux-tmux", "nightly", home=home)) == 3
    assert state.generation() == generation
    assert len(state.get_step_history("nightly")) == 4
    # A new bridge (a restarted process) reads what was fed from the CRS's history index.
    again = SessionBridge(state)
    assert again.last_fed("nightly", "beta") == (steps[3].timestamp, "completed")
    assert again.feed(read_session_history("dmux-tmux", "nightly", home=home)) == []
    assert state.generation() == generation


def test_claude_history_session_in_a_temporary_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    crs_home = tmp_path / "crs-home"
    sessions = home / ".claude" / "session-data"
    sessions.mkdir(parents=True)
    session_file = sessions / "2026-04-03-a1b2c3d4-session.tmp"
    session_file.write_text("# Port the validator\n\n### In Progress\n- [ ] Write the tests\n")
    state = crs.CRS()
    bridge = SessionBridge(state, model="claude")

    fed = bridge.sync("claude:a1b2", home=crs_home, adapters=[ClaudeHistoryAdapter()])
    assert len(fed) == 1
    step = fed[0].step
    assert (step.session_id, step.tool, step.model) == ("a1b2c3d4", "a1b2c3d4", "claude")
    assert (step.decision, step.outcome, step.terminal) == (
        crs.Decision.COMPLETE,
        crs.Outcome.SUCCESS,
        True,
    )
    assert step.result_summary == "Write the tests"
    assert fed[0].entry.metadata["label"] == "Port the validator"
    assert state.get_step_history("a1b2c3d4") == [step]

    # New content is a new recording, but the worker stays `recorded`: no new step.
    session_file.write_text(
        "# Port the validator\n\n### Completed\n- [x] Write the tests\n\n"
        "### In Progress\n- [ ] Ship it\n"
    )
    assert bridge.sync("claude:a1b2", home=crs_home, adapters=[ClaudeHistoryAdapter()]) == []
    assert len(read_session_history("claude-history", "a1b2c3d4", home=crs_home)) == 2
    assert len(state.get_step_history("a1b2c3d4")) == 1

    # A second session is a second CRS session.
    (sessions / "2026-04-04-feedbeef-session.tmp").write_text("# Other\n")
    other = bridge.sync("claude:feed", home=crs_home, adapters=[ClaudeHistoryAdapter()])
    assert [c.step.session_id for c in other] == ["feedbeef"]
    assert len(state.get_step_history("a1b2c3d4")) == 1


def test_sync_without_a_store_feeds_the_snapshot_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    (home / ".claude" / "sessions").mkdir(parents=True)
    (home / ".claude" / "sessions" / "2026-04-03-c0ffee00-session.tmp").write_text("# T\n")
    blocked = tmp_path / "blocked"
    (blocked / "sessions.db").mkdir(parents=True)  # the store cannot be opened
    monkeypatch.setenv("ECC_SESSION_RECORDING_DIR", str(tmp_path / "rec"))
    state = crs.CRS()
    fed = SessionBridge(state).sync(
        "claude:c0ffee00", home=blocked, adapters=[ClaudeHistoryAdapter()]
    )
    assert [(c.change.worker_id, c.change.state) for c in fed] == [("c0ffee00", "recorded")]
    assert (tmp_path / "rec" / "claude-history" / "c0ffee00.json").is_file()


# ---------------------------------------------------------------- idempotence


def test_history_and_changes_of_it_are_fed_once(tmp_path: Path) -> None:
    for states in (["not started"], ["running"], ["failed"], ["running"]):
        persist_canonical_snapshot(snapshot("s", worker("w", states[0])), home=tmp_path)
    history = read_session_history("dmux-tmux", "s", home=tmp_path)
    state = crs.CRS()
    bridge = SessionBridge(state)
    fed = bridge.feed(history)
    assert [c.entry.action for c in fed] == [
        "-> not started",
        "not started -> running",
        "running -> failed",
        "failed -> running",
    ]
    generation = state.generation()
    assert bridge.feed(history) == []
    assert bridge.feed(worker_state_changes(history)) == []
    assert SessionBridge(state).feed(worker_state_changes(history)) == []
    assert SessionBridge(state).feed(history[-1].snapshot) == []  # same state, later time
    assert state.generation() == generation
    assert len(state.get_step_history("s")) == 4


def test_a_crs_restored_from_a_backup_image_is_not_fed_twice(tmp_path: Path) -> None:
    for st in ("running", "failed"):
        persist_canonical_snapshot(snapshot("s", worker("w", st)), home=tmp_path)
    history = read_session_history("dmux-tmux", "s", home=tmp_path)
    before = crs.CRS()
    assert len(SessionBridge(before).feed(history)) == 2
    after = crs.CRS()  # a new process, loading the backup image (what backups write)
    after._kernel.load_image(before._state_image())
    assert after.get_step_history("s") == before.get_step_history("s")
    assert SessionBridge(after).feed(history) == []
    persist_canonical_snapshot(snapshot("s", worker("w", "running")), home=tmp_path)
    fed = SessionBridge(after).feed(read_session_history("dmux-tmux", "s", home=tmp_path))
    assert [(c.step.step_number, c.entry.action) for c in fed] == [(3, "failed -> running")]


def test_changes_fed_piecemeal_and_out_of_order() -> None:
    def change(state: str, ms: int, wid: str = "w") -> WorkerStateChange:
        return WorkerStateChange("s", wid, None, state, "healthy", "", ms)

    state = crs.CRS()
    bridge = SessionBridge(state)
    # Two changes in the same millisecond, in one call: both are fed, in order.
    assert [c.change.state for c in bridge.feed([change("running", 10), change("failed", 10)])] == [
        "running",
        "failed",
    ]
    assert bridge.feed([change("running", 10), change("failed", 10)]) == []
    assert bridge.feed([change("running", 5)]) == []  # older than what was fed
    # Unsorted input is taken in time order; the previous state is the one the CRS holds.
    fed = bridge.feed([change("completed", 30), change("running", 20), change("x", 1, "v")])
    assert [(c.change.worker_id, c.change.previous_state, c.change.state) for c in fed] == [
        ("v", None, "x"),
        ("w", "failed", "running"),
        ("w", "running", "completed"),
    ]
    assert [c.change.recorded_at for c in fed][1] == "1970-01-01T00:00:00.020Z"
    assert bridge.last_fed("s", "w") == (30, "completed")
    assert bridge.last_fed("s", "nobody") is None
    # A snapshot is observed now unless told otherwise.
    fed = bridge.feed(snapshot("s", worker("w", "failed")), recorded_at_ms=40)
    assert [(c.step.timestamp, c.step.decision) for c in fed] == [(40, crs.Decision.ERROR)]
    assert bridge.feed(snapshot("s", worker("w", "done")))[0].step.timestamp > 40


# ---------------------------------------------------------------- the guards act on it


def test_a_flapping_worker_is_a_loop_and_teaches_a_clause() -> None:
    state = crs.CRS()
    bridge = SessionBridge(state)
    loops = crs.CycleDetector()
    found = []
    for i, st in enumerate(["running", "failed", "running", "failed"]):
        fed = bridge.feed(snapshot("flappy", worker("w", st)), recorded_at_ms=1000 * (i + 1))
        found.extend(crs.check_cycle_on_step(state, c.step, loops) for c in fed)
    assert [r.detected for r in found] == [False, False, True, False]
    assert found[2].cycle == (
        "execute_tool:w:success:main_agent",
        "error:w:failure:main_agent",
    )
    breaker = state.check_circuit_breaker("flappy", "w")
    assert breaker.should_fire
    assert breaker.status == crs.ProofStatus.DISPROVEN
    steps = state.get_step_history("flappy")
    assert [s.decision for s in steps] == [
        crs.Decision.EXECUTE_TOOL,
        crs.Decision.ERROR,
        crs.Decision.EXECUTE_TOOL,
        crs.Decision.CIRCUIT_BREAKER,
        crs.Decision.ERROR,
    ]
    # The relaunch after an internal failure closed the loop: learn not to do that again.
    clause = state.learn_from_failure(
        crs.FailureEvent(
            session_id="flappy",
            failure_type=crs.FailureType.CYCLE_DETECTED,
            decision_path=tuple(steps[:3]),
            failed_step=steps[3],
            source=crs.SignalSource.HARD,
        )
    )
    assert clause is not None
    assert str(clause) == "(¬tool:w ∨ ¬prev_tool:w ∨ ¬outcome:failure ∨ ¬error:internal)"  # noqa: RUF001
    allowed = state.check_decision_allowed("flappy", "w")  # the last fed step: w failed
    assert not allowed.allowed
    assert clause.id in allowed.reason


def test_relaunches_count_towards_the_circuit_breaker() -> None:
    state = crs.CRS()
    bridge = SessionBridge(state)
    bridge.feed(snapshot("s", worker("w", "running")), recorded_at_ms=1)
    assert not state.check_circuit_breaker("s", "w").should_fire
    bridge.feed(snapshot("s", worker("w", "failed")), recorded_at_ms=2)
    bridge.feed(snapshot("s", worker("w", "running")), recorded_at_ms=3)
    assert state.count_tool_executions("s", "w") == 2
    assert state.check_circuit_breaker("s", "w").should_fire


# ---------------------------------------------------------------- mapping and bad input


@pytest.mark.parametrize(
    ("worker_state", "decision", "outcome", "actor"),
    [
        ("running", "execute_tool", "success", "main_agent"),
        ("active", "execute_tool", "success", "main_agent"),
        ("completed", "complete", "success", "main_agent"),
        ("done", "complete", "success", "main_agent"),
        ("recorded", "complete", "success", "main_agent"),
        ("failed", "error", "failure", "main_agent"),
        ("error", "error", "failure", "main_agent"),
        ("not started", "select_tool", "success", "system"),
        ("unknown", "select_tool", "skipped", "system"),
        ("Running", "select_tool", "skipped", "system"),
    ],
)
def test_state_mapping(worker_state: str, decision: str, outcome: str, actor: str) -> None:
    m = map_worker_state(worker_state)
    assert (m.decision, m.outcome, m.actor) == (decision, outcome, actor)
    assert (m.error_category == crs.ErrorCategory.INTERNAL) == (outcome == "failure")
    fed = SessionBridge(crs.CRS()).feed(snapshot("s", worker("w", worker_state)))
    assert fed[0].step.decision == decision  # every mapped step is a valid step


def test_long_labels_are_clipped_in_metadata() -> None:
    w = worker("w", "running")
    w["label"] = "é" * 5000
    fed = SessionBridge(crs.CRS()).feed(snapshot("s", w))
    assert len(fed[0].entry.metadata["label"].encode()) <= 4096


def good_change() -> WorkerStateChange:
    return WorkerStateChange("s", "w", None, "running", "healthy", "", 1)


@pytest.mark.parametrize(
    ("source", "kw", "error", "message"),
    [
        ("nightly", {}, crs.InvalidArgumentError, r"^source: must be an ecc.session.v1"),
        (42, {}, crs.InvalidArgumentError, r"^source: must be"),
        ([good_change(), 1], {}, crs.InvalidArgumentError, r"^source\[1\]: must be"),
        ({"schemaVersion": "x"}, {}, crs.ContractError,
         r"^source: Unsupported canonical session schema version: x$"),
        ([good_change()._replace(worker_id="")], {}, crs.InvalidArgumentError,
         r"^source\[0\]\.worker_id: must be a non-empty string"),
        ([good_change()._replace(recorded_at_ms=-1)], {}, crs.InvalidArgumentError,
         r"^source\[0\]\.recorded_at_ms"),
        ([good_change()._replace(previous_state=3)], {}, crs.InvalidArgumentError,
         r"^source\[0\]\.previous_state"),
        ([good_change()], {"recorded_at_ms": 5}, crs.InvalidArgumentError,
         r"^recorded_at_ms: only applies to a single snapshot"),
        (snapshot("s", worker("w", "running")), {"recorded_at_ms": "now"},
         crs.InvalidArgumentError, r"^recorded_at_ms: must be Unix milliseconds"),
    ],
)  # fmt: skip
def test_bad_input_is_a_named_error_and_records_nothing(
    source: Any, kw: dict[str, Any], error: type[Exception], message: str
) -> None:
    state = crs.CRS()
    with pytest.raises(error, match=message):
        SessionBridge(state).feed(source, **kw)
    assert state.generation() == 0
    assert state.get_step_history("s") == []


def test_bad_history_entry_and_constructor_arguments() -> None:
    from crs.sessions import HistoryEntry

    state = crs.CRS()
    bad = HistoryEntry("yesterday", snapshot("s", worker("w", "running")))
    with pytest.raises(crs.InvalidArgumentError, match=r"^source\[0\]\.recorded_at: must be"):
        SessionBridge(state).feed([bad])
    broken = HistoryEntry("2026-11-30T12:00:00.000Z", snapshot("s", worker("", "running")))
    with pytest.raises(
        crs.ContractError, match=r"^source\[1\]\.snapshot: .*workers\[0\]\.id"
    ) as err:
        SessionBridge(state).feed([good_change(), broken])
    assert err.value.errors()[0]["loc"][:2] == ("workers", 0)
    with pytest.raises(crs.InvalidArgumentError, match=r"^crs: must be a crs.CRS"):
        SessionBridge(None)  # type: ignore[arg-type]
    with pytest.raises(crs.InvalidArgumentError, match=r"^model: must be a str"):
        SessionBridge(state, model=1)  # type: ignore[arg-type]
    with pytest.raises(crs.InvalidArgumentError, match=r"^worker_id: must be"):
        SessionBridge(state).last_fed("s", "")
    assert state.generation() == 0


# ---------------------------------------------------------------- crs session feed


def crs_feed(tmp_path: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    tmux_dir = tmp_path / "tmux"  # an empty tmux directory: no server, no panes
    tmux_dir.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}
    env.update(HOME=str(tmp_path / "user"), CRS_HOME=str(tmp_path / "crs"))
    env.update(TMUX_TMPDIR=str(tmux_dir))
    return subprocess.run(
        [sys.executable, "-m", "crs", "session", "feed", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )


def test_cli_feed_prints_the_steps_of_the_recorded_history(tmp_path: Path) -> None:
    coord = tmp_path / ".claude" / "orchestration" / "nightly"
    write_status(coord, "w", "running")
    first = crs_feed(tmp_path, tmp_path, "nightly")
    assert first.returncode == 0, first.stderr
    assert [f["state"] for f in json.loads(first.stdout)["fed"]] == ["running"]
    write_status(coord, "w", "failed")
    out = crs_feed(tmp_path, tmp_path, "--adapter", "dmux-tmux", "nightly")
    assert out.returncode == 0, out.stderr
    assert out.stdout.endswith("}\n")
    fed = json.loads(out.stdout)["fed"]
    assert [(f["previousState"], f["state"]) for f in fed] == [
        (None, "running"),
        ("running", "failed"),
    ]
    step, entry = fed[1]["step"], fed[1]["historyEntry"]
    assert (step["session_id"], step["tool"], step["decision"], step["outcome"]) == (
        "nightly",
        "w",
        "error",
        "failure",
    )
    assert entry["node_id"] == "session:nightly:worker:w"
    assert entry["action"] == "running -> failed"


def test_cli_feed_errors(tmp_path: Path) -> None:
    out = crs_feed(tmp_path, tmp_path, "claude:nothing-here")
    assert out.returncode == 1
    assert out.stdout == ""
    assert out.stderr.startswith("[session-feed] ")
    out = crs_feed(tmp_path, tmp_path, "x", "--adapter", "nope")
    assert (out.returncode, out.stderr) == (1, "[session-feed] Unknown session adapter: nope\n")
