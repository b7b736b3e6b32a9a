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


# ------------------ a check of an unchanged workspace re-run between other calls (fresh19)

FAIL = {"passed": 11, "failed": 1, "output": "FAIL src/date.test.ts > formats ISO dates"}


def test_a_failing_test_rerun_between_reads_with_no_edit_is_a_repeat() -> None:
    """worker-ide's no-progress iterations: an edit, then the same test run with the same
    failure after a search, a read, a listing, none of which changes anything: the third
    run is nudged (a check of the same workspace answers the same)."""
    g = Guard()
    _run(g, "file_edit", {"path": "src/date.ts", "old": "getYear()", "new": "getFullYear()"}, "ok")
    between = [
        ("file_grep", {"pattern": "padStart", "path": "src"}, []),
        ("file_read", {"path": "src/date.ts"}, "export const fmt = ..."),
    ]
    got = [_run(g, "test_run", {"pattern": "src/date.test.ts"}, FAIL)]
    for tool, args, res in between:
        _run(g, tool, args, res)
        got.append(_run(g, "test_run", {"pattern": "src/date.test.ts"}, FAIL))
    assert [v.action for v in got] == [Action.ALLOW, Action.ALLOW, Action.NUDGE]
    assert got[2].code is VerdictCode.REPEATED_CALL
    assert "nothing changed in between" in got[2].reason


def test_a_shell_build_rerun_between_reads_is_a_repeat_a_read_is_not() -> None:
    """The same for `npm run build` through a shell tool; the same file read three times
    between other reads is not (a central file re-opened while exploring)."""
    g = Guard()
    got = []
    for k in range(3):
        _run(g, "bash", {"command": f"cat src/m{k}.ts"}, f"module {k}")
        got.append(_run(g, "bash", {"command": "npm run build"}, "error TS2304: x"))
    assert got[2].action is Action.NUDGE
    g = Guard()
    for k in range(4):
        assert _run(g, "read_file", {"path": f"src/m{k}.ts"}, f"module {k}").allowed
        assert _run(g, "read_file", {"path": "src/index.ts"}, "export * from './m'").allowed


def test_a_check_rerun_after_an_edit_runs() -> None:
    """An edit between runs changes the workspace: the same failure after each edit is
    the edit/test cycle, not a repeat."""
    g = Guard()
    for k in range(4):
        v = _run(g, "run_tests", {"target": "tests/test_export.py"}, "1 failed, 41 passed")
        assert v.action is Action.ALLOW, (k, v)
        _run(g, "write_file", {"path": "export.py", "content": f"v{k}"}, "Wrote export.py")


# ------------------------- one finding restated in another tense or number (fresh18)

FOUND = [
    "I found the issue! The retry middleware swallows the 503 before the handler sees it.",
    "I found the issue! The retry middleware is swallowing the 503 before the handler can see it.",
    "Found the issue! The 503 gets swallowed by the retry middleware before it reaches the "
    "handler.",
    "I found the issue! The retry middleware swallows the 503 response before the handler sees it.",
    "I found the issue! The 503 is swallowed in the retry middleware, so the handler never "
    "sees it.",
]


def test_one_finding_restated_in_other_tenses_is_a_monologue() -> None:
    """goose #3529: "I found the issue!" five times, the same finding in other words and
    tenses (`swallows`, `is swallowing`, `gets swallowed`), no tool call between: the
    restatements are caught before the fifth message."""
    g = Guard()
    g.new_turn("Why does /api/orders return 500 when the payment service is down?")
    _run(g, "shell", {"command": "rg -n retry src/middleware"}, "retry.rs:18: if status == 503")
    got = [g.on_message(m) for m in FOUND]
    flagged = [k for k, v in enumerate(got) if v.action is not Action.ALLOW]
    assert flagged
    assert flagged[0] <= 3
    assert got[flagged[0]].code is VerdictCode.MONOLOGUE


def test_messages_that_move_on_stay_allowed_whatever_their_inflections() -> None:
    """A run of agent messages that each bring something new (a plan, its steps, the
    result), sharing words in other forms (`reads`, `reading`, `read`), is not one."""
    g = Guard()
    g.new_turn("Summarise how the config loader works")
    for text in (
        "The loader reads settings.toml first and falls back to environment variables.",
        "Reading order matters: CLI flags override environment variables, which override files.",
        "Validation happens after merging; unknown keys raise ConfigError with the key's path.",
        "Defaults live in defaults.py and are applied before any file is read.",
        "So the effective value is flags, then environment, then settings.toml, then defaults.",
    ):
        assert g.on_message(text).action is Action.ALLOW, text
