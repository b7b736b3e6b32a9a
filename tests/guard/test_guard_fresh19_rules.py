"""Rules of the guard's semantics refined after the fresh18/fresh19 trajectories of the loop
benchmark (bench/loops) were measured held out: the loop that must now be caught beside the
legitimate work that must still pass."""

from __future__ import annotations

from typing import Any

from crs.guard import Action, Guard, VerdictCode


def _run(g: Guard, tool: str, args: dict[str, Any], result: Any = None, error: Any = None) -> Any:
    v = g.before_call(tool, args)
    assert v.allowed, v
    return g.after_call(v.call, result=result, error=error)


# ------------------------------- one tool that is not there, whatever the arguments (fresh19)


def test_one_missing_tool_called_with_new_arguments_each_time_is_an_error_loop() -> None:
    """OpenClaw's unknown-tool churn: `exec` does not exist; the model calls it with `ls`,
    `pwd`, `{"input": "whoami"}`, ...: every call fails "Tool exec not found". No two calls
    share a signature, yet it is one failure: nudged at the third."""
    g = Guard()
    calls = [{"command": "ls"}, {"command": "pwd"}, {"input": "whoami"}, {"cmd": "env"}]
    got = [_run(g, "exec", a, error="Tool exec not found") for a in calls]
    assert [v.action for v in got[:2]] == [Action.ALLOW, Action.ALLOW]
    assert got[2].action is Action.NUDGE
    assert got[2].code is VerdictCode.ERROR_LOOP
    assert "calls of exec in a row" in got[2].reason
    assert "whoami" not in got[2].message  # (the arguments are not echoed back)
    assert "other arguments will not help" in got[2].message


def test_errors_about_what_each_call_asked_are_no_missing_tool() -> None:
    """A read of three missing files fails three ways that name the file asked for (the
    error echoes the argument): a search, not a tool that is not there. And a tool whose
    errors differ is not one either."""
    g = Guard()
    for name in ("a.yml", "b.yml", "c.yml", "d.yml"):
        v = _run(g, "read_file", {"path": name}, error=f"read_file: {name}: not found")
        assert v.action is Action.ALLOW, v
    g = Guard()
    for k, err in enumerate(("exec: bad flag -x", "exec: timeout 3", "exec: exit 2")):
        assert _run(g, "exec", {"command": f"c{k}"}, error=err).action is Action.ALLOW


def test_a_missing_tool_after_a_call_that_works_starts_over() -> None:
    """Two tool-naming failures, a call that works, two more: no run of three."""
    g = Guard()
    for k in range(2):
        assert _run(g, "exec", {"command": f"a{k}"}, error="Tool exec not found").allowed
    assert _run(g, "read_file", {"path": "README.md"}, "# readme").allowed
    for k in range(2):
        v = _run(g, "exec", {"command": f"b{k}"}, error="Tool exec not found")
        assert v.action is Action.ALLOW, v


# ----------------------------------- the UI's details beside the model's content (fresh19)


def test_a_result_is_its_content_not_the_details_beside_it() -> None:
    """The pi agent's / OpenClaw's `{content, details}`: the model sees the content; the
    details (duration, a new working directory each run) are for the UI. The same command
    with the same content is a repeat, nudged at the third."""
    g = Guard()
    got = []
    for k in range(3):
        result = {
            "content": [{"type": "text", "text": "Loki\nPrometheus"}],
            "details": {"status": "completed", "durationMs": 100 + k, "cwd": f"/tmp/run-{k}"},
        }
        got.append(_run(g, "exec", {"command": "grafana-api.sh datasources"}, result))
    assert [v.action for v in got] == [Action.ALLOW, Action.ALLOW, Action.NUDGE]
    assert got[2].code is VerdictCode.REPEATED_CALL


def test_content_that_changes_is_progress_whatever_the_details() -> None:
    g = Guard()
    for k in range(6):
        result = {
            "content": [{"type": "text", "text": f"{k} of 6 jobs done"}],
            "details": {"status": "running", "cwd": "/tmp/run"},
        }
        assert _run(g, "exec", {"command": "jobs --watch"}, result).action is Action.ALLOW
