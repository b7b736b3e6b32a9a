"""A failure the harness hands over as the result the model is shown, and the envelopes tools
answer in (crs.guard._results): an `Error: ...` text, the OpenAI Agents SDK's default
failure text, MCP's `isError`, Claude Code's `<tool_use_error>`, a command record with a
non-zero exit is the call's error (error loops, memory across sessions); an MCP envelope or
a wrapper of one text is judged by what it carries; a summary that only mentions errors is
a result. bench/loops/variants.py measures the same on every trajectory of the benchmark."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crs import InvalidArgumentError
from crs.guard import Action, Guard, VerdictCode
from crs.guard._results import unwrap

SDK = "An error occurred while running the tool. Please try again. Error: "
BUILD = "src/app.py:2: NameError: name 'cfg' is not defined"


def _run(g: Guard, tool: str, args: dict[str, Any], result: Any = None, error: Any = None) -> Any:
    v = g.before_call(tool, args)
    assert v.allowed, v
    return g.after_call(v.call, result=result, error=error)


def _mcp(text: str, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


FAILURES = [  # (result, the failure text the guard reads in it)
    ("Error: build failed", "Error: build failed"),
    ("error[E0425]: cannot find value `x`", "error[E0425]: cannot find value `x`"),
    ("fatal: not a git repository", "fatal: not a git repository"),
    (
        "Traceback (most recent call last):\n  File ...",
        "Traceback (most recent call last):\n  File ...",
    ),
    ("ValueError: invalid literal", "ValueError: invalid literal"),
    (
        "json.decoder.JSONDecodeError: Expecting value",
        "json.decoder.JSONDecodeError: Expecting value",
    ),
    ("Error executing tool read: boom", "Error executing tool read: boom"),
    (SDK + "disk full", "disk full"),
    ("<tool_use_error>File does not exist.</tool_use_error>", None),
    ("Command failed with exit code 2\nmake: *** [all] Error 2", None),
    ("Exit code 1", "Exit code 1"),
    ("cat: notes.txt: No such file or directory", "cat: notes.txt: No such file or directory"),
    ("bash: pytset: command not found\n", "bash: pytset: command not found\n"),
    (_mcp("Error executing tool x: nope", True), "Error executing tool x: nope"),
    ({"type": "tool_result", "content": "denied", "is_error": True}, "denied"),
    ({"stdout": "", "stderr": "fatal: bad object", "exit_code": 128}, "fatal: bad object"),
    ({"stdout": "partial", "returncode": 1}, "partial"),
    ({"stdout": "", "exitCode": 2}, "exit code 2"),
    ({"success": False, "error": "quota exceeded"}, "quota exceeded"),
    ({"ok": False, "message": "no such channel"}, "no such channel"),
    ({"error": "permission denied", "data": None}, "permission denied"),
    ({"output": "Error: missing key", "elapsed_ms": 40}, "Error: missing key"),
    ({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "bad params"}}, "bad params"),
    ({"data": None, "errors": [{"message": "Field 'x' not found"}]}, "Field 'x' not found"),
]

RESULTS = [  # (result, what the guard judges: not a failure)
    ("Errors: 0", "Errors: 0"),
    ("\r", "\r"),  # (whitespace only: hypothesis found the empty text after the strip)
    ("  \n ", "  \n "),
    ("error count: 0", "error count: 0"),
    ("Failed: 0, passed: 12", "Failed: 0, passed: 12"),
    ("12 passed, 0 errors", "12 passed, 0 errors"),
    ("Exit code 0", "Exit code 0"),
    ("the log says: Error: disk full", "the log says: Error: disk full"),
    ("a.txt: No such file or directory\n" * 5, "a.txt: No such file or directory\n" * 5),
    (_mcp("hello"), "hello"),
    (_mcp('{"rows": 3}'), {"rows": 3}),
    (
        {**_mcp('{"rows": 3}'), "structuredContent": {"rows": 3, "more": False}},
        {"rows": 3, "more": False},
    ),
    ({"output": "done", "elapsed_ms": 12}, "done"),
    ({"stdout": "ok", "stderr": "", "interrupted": False}, "ok"),
    ({"stdout": "ok", "exit_code": 0}, "ok"),
    (
        {"stdout": "ok", "stderr": "warn", "exit_code": 0},
        {"stdout": "ok", "stderr": "warn", "exit_code": 0},
    ),
    ({"time": "2025-02-10T14:03:01Z"}, {"time": "2025-02-10T14:03:01Z"}),
    ({"id": "1", "status": "FAILED"}, {"id": "1", "status": "FAILED"}),  # a job's own status
    ({"run": 7, "status": "error", "error": "OOM"}, {"run": 7, "status": "error", "error": "OOM"}),
    ({"job": "j-1", "exit_code": 1}, {"job": "j-1", "exit_code": 1}),  # a remote job's exit
    ({"success": False}, {"success": False}),  # (no failure text: a value like any other)
    (
        {"data": {"a": 1}, "errors": [{"message": "partial"}]},
        {"data": {"a": 1}, "errors": [{"message": "partial"}]},
    ),
    (
        {"jsonrpc": "2.0", "result": {"ok": 1}, "error": None},
        {"jsonrpc": "2.0", "result": {"ok": 1}, "error": None},
    ),
    ({"error": None, "rows": [1, 2]}, {"error": None, "rows": [1, 2]}),
    ({"error": "none", "rows": [1, 2]}, {"error": "none", "rows": [1, 2]}),
    (
        {"content": [{"type": "image", "data": "AAAA"}]},
        {"content": [{"type": "image", "data": "AAAA"}]},
    ),
]


@pytest.mark.parametrize(("result", "failure"), FAILURES)
def test_a_result_that_reports_a_failure_is_read_as_one(result: Any, failure: str | None) -> None:
    _got, failed = unwrap(result)
    assert failed is not None
    if failure is not None:
        assert failed == failure


@pytest.mark.parametrize(("result", "judged"), RESULTS)
def test_a_result_that_only_mentions_errors_or_wraps_a_text_is_a_result(
    result: Any, judged: Any
) -> None:
    assert unwrap(result) == (judged, None)


@pytest.mark.parametrize(
    "shape",
    [
        lambda e: f"Error: {e}",
        lambda e: SDK + e,
        lambda e: _mcp(e, True),
        lambda e: f"<tool_use_error>{e}</tool_use_error>",
        lambda e: {"stdout": "", "stderr": e, "exit_code": 1},
    ],
    ids=["error-text", "agents-sdk", "mcp-is-error", "tool-use-error", "exit-code"],
)
def test_the_same_failure_handed_over_as_a_result_is_an_error_loop(shape: Any) -> None:
    """As with `error=`: the same build failing the same way twice is refused at the third
    call, before it runs, with the error as the reason; a fixed call runs."""
    g = Guard()
    for _ in range(2):
        assert _run(g, "run_build", {"target": "all"}, shape(BUILD)).action is Action.ALLOW
    refused = g.before_call("run_build", {"target": "all"})
    assert refused.action is Action.BLOCK
    assert refused.code is VerdictCode.ERROR_LOOP
    assert BUILD in refused.reason
    assert _run(g, "run_build", {"target": "app"}, "build ok").action is Action.ALLOW


def test_the_agents_sdk_retry_words_do_not_make_a_hard_failure_transient() -> None:
    """The SDK's boilerplate says "Please try again" whatever the error: the error is what
    follows it. A hard failure is blocked as one; a timeout in it keeps its retry budget."""
    g = Guard()
    for _ in range(2):
        _run(g, "deploy", {"env": "prod"}, SDK + "manifest.yml: unknown key 'replica'")
    refused = g.before_call("deploy", {"env": "prod"})
    assert refused.action is Action.BLOCK
    assert refused.code is VerdictCode.ERROR_LOOP
    assert "Please try again" not in refused.reason
    g = Guard()
    slow = SDK + "read timed out after 30 s"
    assert [_run(g, "fetch", {"url": "https://a.example"}, slow).action for _ in range(2)] == [
        Action.ALLOW,
        Action.ALLOW,
    ]
    assert _run(g, "fetch", {"url": "https://a.example"}, "<html>ok</html>").action is Action.ALLOW


@pytest.mark.parametrize(
    "said",
    [
        "command did not report completion within 120s",
        "no response within 30 seconds",
        "The command 'make' was cancelled because it took more than 300 seconds.",
        "request took longer than 5s",
    ],
)
def test_a_wait_that_ran_out_is_transient_without_the_word_timeout(said: str) -> None:
    """Two failures of a wait that ran out are retries (its budget), the third call runs
    and succeeds: said as text, without the word "timeout"."""
    g = Guard()
    for _ in range(2):
        assert _run(g, "bash", {"command": "make"}, error=said).action is Action.ALLOW
    assert g.before_call("bash", {"command": "make"}).allowed


def test_a_failure_handed_over_as_a_result_is_remembered_across_sessions(tmp_path: Path) -> None:
    """Memory across sessions as with `error=`: refused in the next session on an unchanged
    workspace with the earlier error as the reason; a different call runs."""
    home, project = tmp_path / "h", tmp_path / "p"
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "f") as g:
        _run(g, "run_build", {"target": "all"}, _mcp(BUILD, True))
        (failure,) = g.learned()
        assert failure.tool == "run_build"
        assert "NameError" in failure.error
    with Guard.open(project, "s2", home=home, fingerprint=lambda: "f") as g:
        v = g.before_call("run_build", {"target": "all"})
        assert v.action is Action.BLOCK
        assert v.code is VerdictCode.KNOWN_FAILURE
        assert "NameError" in v.reason
        assert g.before_call("run_build", {"target": "docs"}).allowed
    with Guard.open(project, "s3", home=home, fingerprint=lambda: "g") as g:
        assert g.before_call("run_build", {"target": "all"}).allowed  # the workspace changed


def test_an_envelope_is_the_same_result_as_the_text_it_carries() -> None:
    """A read answered once as text and then twice in an MCP envelope, with the same text:
    three reads with one result (the third is a repeat), as if all were text."""
    g = Guard()
    body = "def helper():\n    return 42\n"
    got = [_run(g, "read_file", {"path": "src/util.py"}, r) for r in (body, _mcp(body), _mcp(body))]
    assert [v.action for v in got] == [Action.ALLOW, Action.ALLOW, Action.NUDGE]
    assert got[2].code is VerdictCode.REPEATED_CALL


def test_results_that_mention_errors_do_not_block_work() -> None:
    """Test runs whose summaries say "0 errors" and a log search that finds error lines
    are results: distinct, allowed, nothing remembered."""
    g = Guard()
    for i in range(6):
        assert _run(g, "run_tests", {"k": f"t{i}"}, f"Errors: 0\n{i + 3} passed").allowed
        assert _run(g, "grep", {"pattern": f"E{i}", "path": "app.log"}, "app.log:3: Error: x")
    assert g.learned() == []


def test_a_failure_result_the_guard_cannot_take_is_refused_naming_the_result(
    tmp_path: Path,
) -> None:
    """A lone surrogate in a failure text: the typed error names `result` (what the caller
    gave), and nothing is recorded."""
    with Guard.open(tmp_path / "p", "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
        v = g.before_call("read", {"path": "a"})
        with pytest.raises(InvalidArgumentError, match="result"):
            g.after_call(v.call, result="Error: \ud800 bad")
        assert g.learned() == []
        assert g.after_call(v.call, result="fine").allowed  # the call can still be reported


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "content",
                    "isError",
                    "is_error",
                    "error",
                    "ok",
                    "success",
                    "status",
                    "stdout",
                    "stderr",
                    "exit_code",
                    "output",
                    "text",
                    "type",
                    "message",
                    "elapsed_ms",
                    "x",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(_json)
def test_unwrap_takes_any_json_and_after_call_records_it(result: Any) -> None:
    """Any JSON value: unwrap answers (a failure text is a non-empty str), and the guard
    records the call or refuses it with a typed error only."""
    got, failed = unwrap(result)
    assert failed is None or (type(failed) is str and failed)
    json.dumps(got)
    g = Guard()
    v = g.before_call("tool", {"a": 1})
    g.after_call(v.call, result=result)
