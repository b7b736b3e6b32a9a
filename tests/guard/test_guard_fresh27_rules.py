"""Rules of the guard's semantics refined after the fresh27 trajectories of the loop benchmark
(bench/loops, split fresh27: JVM agent SDKs, data-pipeline agents, office and booking
assistants) were measured held out."""

from __future__ import annotations

from pathlib import Path

from crs.guard import Action, Guard, VerdictCode
from crs.guard._canon import unfinished_run
from crs.guard._results import unwrap
from guard_calls import decided, next_session_verdict

RUN = {"dag_id": "etl", "dag_run_id": "manual__1", "start_date": "2026-01-07T15:04:13+00:00"}


def test_a_run_that_has_not_ended_by_its_empty_end_time() -> None:
    assert unfinished_run({**RUN, "state": "running", "end_date": None})
    assert unfinished_run({"status": "Pending", "finishedAt": ""})
    # "running" alone is how a service says it is up; an end time says the run ended
    assert not unfinished_run({"state": "running"})
    assert not unfinished_run({"state": "running", "end_date": "2026-01-07T15:05:02+00:00"})
    assert not unfinished_run({"state": "success", "end_date": None})
    assert not unfinished_run("running")
    # a wrapper's run (a harness that adds its timing beside the tool's answer)
    assert unfinished_run({"output": {"state": "running", "end_date": None}, "elapsed_ms": 9})
    assert not unfinished_run({"output": {"state": "running"}, "elapsed_ms": 9})


def test_a_dag_run_looked_at_until_it_finishes_is_a_wait() -> None:
    """astronomer's Airflow MCP (#10): `get_dag_run` answered "running", its end date empty,
    five times, then "success": a run waited for, not a repeat."""
    g = Guard()
    args = {"dag_id": "etl", "dag_run_id": "manual__1"}
    queued = {**RUN, "state": "queued", "start_date": None, "end_date": None}
    assert decided(g, "get_dag_run", args, queued).action is Action.ALLOW
    for _ in range(5):
        v = decided(g, "get_dag_run", args, {**RUN, "state": "running", "end_date": None})
        assert v.action is Action.ALLOW, v
    done = {**RUN, "state": "success", "end_date": "2026-01-07T15:05:02+00:00"}
    assert decided(g, "get_dag_run", args, done).action is Action.ALLOW


def test_a_run_stuck_running_is_still_reported_within_a_poll_s_patience() -> None:
    g = Guard()
    args = {"dag_id": "etl", "dag_run_id": "manual__1"}
    got = [
        decided(g, "get_dag_run", args, {**RUN, "state": "running", "end_date": None})
        for _ in range(20)
    ]
    flagged = [k for k, v in enumerate(got) if v.action is not Action.ALLOW]
    assert flagged, got
    assert 5 <= flagged[0] <= 12


def test_a_command_record_with_one_output_and_a_non_zero_exit_is_a_failure() -> None:
    res = {"output": "Compilation Error in model orders (models/orders.sql)", "exit_code": 2}
    assert unwrap(res)[1] == res["output"]
    assert unwrap({"output": "", "exit_code": 1})[1] == "exit code 1"
    assert unwrap({"output": "1 of 1 OK", "exit_code": 0})[1] is None


def test_a_failing_compile_is_refused_in_the_next_session(tmp_path: Path) -> None:
    """slideflow #72: the compile fails as `{"output": ..., "exit_code": 2}`; the next
    request, the workspace unchanged, runs the same compile again."""
    args = {"command": "dbt compile --select orders"}
    res = {"output": "Compilation Error in model orders: 'ref' is undefined", "exit_code": 2}
    v = next_session_verdict(tmp_path, "run_dbt", args, res)
    assert v.action is Action.BLOCK, v
    assert v.code is VerdictCode.KNOWN_FAILURE
    assert "ref' is undefined" in v.reason
