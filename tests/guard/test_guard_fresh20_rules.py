"""Rules of the guard's semantics refined after the fresh20 trajectories of the loop benchmark
(bench/loops, split fresh20: results as harnesses hand them over) were measured held out:
the loop that must now be caught beside the legitimate work that must still pass."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from crs.guard import Action, Guard, VerdictCode
from crs.guard._results import unwrap

_ids = itertools.count(1)


def _run(g: Guard, tool: str, args: dict[str, Any], result: Any = None, error: Any = None) -> Any:
    v = g.before_call(tool, args)
    assert v.allowed, v
    return g.after_call(v.call, result=result, error=error)


def _tool_message(content: Any, status: str = "success") -> dict[str, Any]:
    """LangChain's ToolMessage as a dict: a new `tool_call_id` for every call."""
    return {
        "type": "tool",
        "name": "execute",
        "tool_call_id": f"call_{next(_ids):04x}Qm0",
        "status": status,
        "content": content,
    }


def _strands(text: str, status: str = "success") -> dict[str, Any]:
    return {"toolUseId": f"tooluse_{next(_ids):04x}", "status": status, "content": [{"text": text}]}


# ------------------------------------------------ a tool message names the call it answers


@pytest.mark.parametrize("shape", [_tool_message, _strands], ids=["langchain", "strands"])
def test_the_same_answer_in_tool_messages_with_new_call_ids_is_a_repeat(shape: Any) -> None:
    """deepagents #2947 / strands #383: the same answer each time, inside a tool message
    whose call id is new every call: the same result (nudged at the third)."""
    g = Guard()
    got = [
        _run(g, "create_workflow", {"name": "test"}, shape("Created workflow 'test'"))
        for _ in range(3)
    ]
    assert [v.action for v in got] == [Action.ALLOW, Action.ALLOW, Action.NUDGE]


@pytest.mark.parametrize("shape", [_tool_message, _strands], ids=["langchain", "strands"])
def test_a_tool_message_with_status_error_is_a_failure(shape: Any) -> None:
    """The message's `status: "error"` is the call's: a failure, with its content as the
    error (the streak refuses the third call before it runs)."""
    g = Guard()
    for _ in range(2):
        _run(
            g,
            "execute",
            {"command": "rm -rf build"},
            shape("The user rejected the tool call.", "error"),
        )
    refused = g.before_call("execute", {"command": "rm -rf build"})
    assert refused.action is Action.BLOCK
    assert refused.code is VerdictCode.ERROR_LOOP
    assert "rejected" in refused.reason


def test_a_record_with_content_and_a_status_of_its_own_is_not_a_tool_message() -> None:
    """A CMS article (`id`, `name`, `content`, `status`) names no call: it is a record,
    and its status "error" is the article's."""
    article = {"id": 7, "name": "Launch", "content": "Draft text", "status": "error"}
    assert unwrap(article) == (article, None)


def test_the_ai_sdk_tool_outputs_are_read_by_their_type() -> None:
    assert unwrap({"type": "json", "value": [{"id": "INC-1"}]}) == ([{"id": "INC-1"}], None)
    assert unwrap({"type": "text", "value": "ok"}) == ("ok", None)
    assert unwrap({"type": "error-text", "value": "boom"})[1] == "boom"
    assert unwrap({"type": "error-json", "value": {"code": 3}})[1] == '{"code": 3}'
    assert unwrap({"type": "weird", "value": 1}) == ({"type": "weird", "value": 1}, None)


def test_text_blocks_under_a_content_field_are_its_text() -> None:
    """n8n's `{"response": [{"type": "text", "text": ...}]}`."""
    got = unwrap({"response": [{"type": "text", "text": '{"id": 1}'}]})
    assert got == ('{"id": 1}', None)


# ------------------------------------------ a call that waits server-side is a poll (fresh20)

RUNNING = {
    "content": [
        {
            "type": "text",
            "text": '{"runId": "r-7Hq2Lm", "status": "RUNNING"}\n'
            "The run is not finished; call get-actor-run again with waitSecs=30.",
        }
    ],
    "isError": False,
}


def test_a_look_that_waits_on_the_server_is_a_poll_of_a_run_still_running() -> None:
    """Apify's get-actor-run with `waitSecs=30` on a long run: each call waits up to 30 s
    itself (a poll: a run id is an identifier, not free text), and each answer says the
    run is not finished and to call again (work under way: a poll's patience doubles), so
    six identical RUNNING answers pass, then the run succeeds. (A bare "running" answer
    keeps `poll_repeat`: a job stuck running is reported, tests/guard fresh7/fresh8.)"""
    g = Guard()
    for _ in range(6):
        v = _run(g, "get-actor-run", {"runId": "r-7Hq2Lm", "waitSecs": 30}, RUNNING)
        assert v.action is Action.ALLOW, v
    done = {"content": [{"type": "text", "text": '{"status": "SUCCEEDED"}'}], "isError": False}
    assert _run(g, "get-actor-run", {"runId": "r-7Hq2Lm", "waitSecs": 30}, done).allowed


def test_the_same_look_without_a_wait_is_still_a_repeat() -> None:
    g = Guard()
    got = [_run(g, "get-actor-run", {"runId": "r-7Hq2Lm"}, RUNNING) for _ in range(3)]
    assert got[2].action is Action.NUDGE


def test_a_connect_error_is_transient() -> None:
    """httpx's `ConnectError` is a network failure: retried, not a hard failure."""
    g = Guard()
    for _ in range(2):
        v = _run(
            g, "fetch", {"url": "http://svc:8080/health"}, error="httpx.ConnectError: [Errno 111]"
        )
        assert v.action is Action.ALLOW
    assert g.before_call("fetch", {"url": "http://svc:8080/health"}).allowed


def test_a_json_failure_as_text_with_a_harness_note_after_it_is_one_failure() -> None:
    """hermes #67829: `{"error": "tool_call requires a 'name' argument"}` as the result
    text, the runtime's loop warning with its running count appended from the second call
    on: one failure, the same each time (refused at the third call, before it runs)."""
    g = Guard()
    error = '{"error": "tool_call requires a \'name\' argument"}'
    args = {"args": "--help", "name": "mcp__gateway__backend"}
    _run(g, "tool_call", args, error)
    _run(g, "tool_call", args, error + "\n[Tool loop warning: repeated_exact_failure; count=2]")
    refused = g.before_call("tool_call", args)
    assert refused.action is Action.BLOCK
    assert "requires a 'name' argument" in refused.reason
    assert "count=2" not in refused.reason
    assert unwrap('{"results": [], "error": null}') == ('{"results": [], "error": null}', None)
