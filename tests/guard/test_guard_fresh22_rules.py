"""Rules of the guard's semantics refined after the fresh22 trajectories of the loop benchmark
(bench/loops, split fresh22: infra/DevOps, memory-tool and multi-language coding agents)
were measured held out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crs.guard import Action, Guard, VerdictCode
from crs.guard._canon import is_transient
from crs.guard._results import unwrap
from guard_calls import decided as _run
from guard_calls import next_session_verdict

# ------------------------------------------------------------- a tool that is not there

GONE = "Model tried to call unavailable tool 'search_codebase'. Available tools: read, edit, bash."


def test_an_unavailable_tool_is_no_transient_failure() -> None:
    err = Exception("x")
    assert not is_transient(err, GONE)
    assert not is_transient(err, "function 'get_weather' is unavailable")
    # a service that is down, or a tool that says it will be back, stays transient
    assert is_transient(err, "Service unavailable")
    assert is_transient(err, "The MCP server is unavailable")
    assert is_transient(err, "tool search is temporarily unavailable, try again later")
    assert is_transient(err, "unavailable tool backend: 503 from upstream")


def test_a_made_up_tool_called_with_new_arguments_is_an_error_loop_at_once() -> None:
    """aether #1236: the model keeps calling a tool it made up, each time with a new query;
    read as transient ("unavailable"), the calls had a transient retry budget each."""
    g = Guard()
    got = [
        _run(g, "search_codebase", {"query": q}, error=GONE)
        for q in ("refresh token", "session refresh", "token renewal logic", "refreshSession")
    ]
    flagged = [k for k, v in enumerate(got) if v.action is not Action.ALLOW]
    assert flagged, got
    assert flagged[0] <= 2
    assert got[flagged[0]].code is VerdictCode.ERROR_LOOP


# ------------------------------------------------------------- a toggle flipped back and forth


def _star(g: Guard, rounds: int, tool: str = "click") -> list[Any]:
    out = []
    for k in range(rounds):
        state = "Unstar" if k % 2 == 0 else "Star"
        out.append(
            _run(g, tool, {"elementId": 412}, f"Clicked element 412. Button now reads '{state}'")
        )
    return out


def test_an_input_action_whose_answers_flip_back_and_forth_is_a_cycle() -> None:
    """TaxyAI #10: asked to star a repository, the agent clicks Star, then the same button
    (now Unstar), then Star again: each click undoes the last."""
    g = Guard()
    got = _star(g, 6)
    flagged = [k for k, v in enumerate(got) if v.action is not Action.ALLOW]
    assert flagged[0] == 3, got  # star, unstar, star, unstar: once it has fully repeated
    assert got[3].code is VerdictCode.CYCLE


def test_a_toggle_clicked_twice_or_a_status_that_alternates_is_not_a_cycle() -> None:
    g = Guard()
    assert all(v.action is Action.ALLOW for v in _star(g, 2))  # on, then off again: once
    g = Guard()  # a read that alternates (a flapping health check) is polled, not a cycle
    for k in range(6):
        v = _run(g, "get_health", {"service": "api"}, "healthy" if k % 2 else "degraded")
        assert v.action is Action.ALLOW, (k, v)


# ------------------------------------------------------------- a status "error" of the call


def test_a_call_s_own_error_status_is_its_failure() -> None:
    res = {
        "status": "error",
        "error": "Command rejected: 'grep' is not in the bash toolset allowlist",
        "return_code": 1,
        "data": None,
        "invocation": "kubectl logs -n hcp deploy/clusters-service | grep -i error",
    }
    assert unwrap(res)[1] == res["error"]
    assert unwrap({"status": "error", "message": "not allowed"})[1] == "not allowed"
    # a read of something in an error state, or a partial result, is no failure of the call
    assert unwrap({"id": 3, "status": "error", "error": "OOMKilled"})[1] is None
    assert unwrap({"status": "error", "data": {"rows": 2}, "error": "partial"})[1] is None
    assert unwrap({"status": "failed", "error": "job failed"})[1] is None


def test_a_rejected_command_is_refused_in_the_next_session(tmp_path: Path) -> None:
    """ARO-HCP #5487: the toolset refuses a `| grep` pipeline; the next session, the
    configuration unchanged, runs it again."""
    cmd = {"command": "kubectl logs -n hcp deploy/clusters-service --since=1h | grep -i error"}
    res = {
        "status": "error",
        "error": "Command rejected: 'grep' is not in the bash toolset allowlist (allowed: egrep)",
        "return_code": 1,
        "data": None,
        "invocation": cmd["command"],
    }
    v = next_session_verdict(tmp_path, "run_bash_command", cmd, res)
    assert v.action is Action.BLOCK, v
    assert v.code is VerdictCode.KNOWN_FAILURE
    assert "allowlist" in v.reason
