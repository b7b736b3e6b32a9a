"""Red team, twelfth pass: results handed over as the objects (and the wire form) the SDKs
give.

`after_call(call, result=...)` read a failure from the dict forms of MCP's `CallToolResult`
and of a tool message; the objects the SDKs return were judged as opaque objects by their
`repr()`: `await session.call_tool(...)`'s `CallToolResult(isError=True)` was a success
(three identical failing reads: "repeated call", never an error loop, nothing learned), and
a LangChain `ToolMessage` was digested with its `tool_call_id`, new on every call (the same
answer never a repeat). A pydantic model is now read as the dict it dumps to. MCP's wire
form since the 2026-07-28 revision carries `resultType: "complete"`: such a dict marked
`isError` was no envelope either.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from mcp.types import CallToolResult, TextContent

from crs.guard import Guard


def _mcp_error() -> Any:
    return CallToolResult(content=[TextContent(type="text", text="ENOENT: x.txt")], isError=True)


FAILURES = {
    "mcp-object": _mcp_error,
    "mcp-wire-2026": lambda: {
        "content": [{"type": "text", "text": "ENOENT: x.txt"}],
        "isError": True,
        "resultType": "complete",
    },
    "langchain-toolmessage": lambda: ToolMessage(
        content="ENOENT: x.txt", tool_call_id=f"call_{id(object())}", status="error"
    ),
}


@pytest.mark.parametrize("make", FAILURES.values(), ids=FAILURES.keys())
def test_a_failure_handed_over_as_the_sdks_object_is_a_failure(make: Any, tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s1", home=home) as g:
        codes = []
        for _ in range(3):
            v = g.before_call("read_text_file", {"path": "x.txt"})
            codes.append(str(v.code))
            if v.allowed:
                assert v.call is not None
                g.after_call(v.call, result=make())
        assert codes[-1] == "error_loop"  # before: "repeated_call" (a success, thrice)
        assert [f.error for f in g.learned()] == ["ENOENT: x.txt"]
    with Guard.open(project, "s2", home=home) as g:
        assert str(g.before_call("read_text_file", {"path": "x.txt"}).code) == "known_failure"


def test_a_success_handed_over_as_an_object_is_judged_by_what_it_carries() -> None:
    """The same answer under a new tool_call_id each time is a repeat (before: never)."""
    g = Guard()
    seen = []
    for i in range(4):
        v = g.before_call("search", {"q": "flaky test"})
        seen.append(str(v.action))
        if v.allowed:
            assert v.call is not None
            g.after_call(v.call, result=ToolMessage(content="3 hits", tool_call_id=f"c{i}"))
    assert seen[-1] == "block"
    ok = CallToolResult(content=[TextContent(type="text", text="hello")])
    v = g.before_call("greet", {})
    assert v.call is not None
    assert str(g.after_call(v.call, result=ok).action) == "allow"
    assert g.status()["calls"] == 4


def test_a_model_that_does_not_dump_is_judged_as_the_object() -> None:
    from pydantic import BaseModel, field_serializer

    class Odd(BaseModel):
        x: int = 1

        @field_serializer("x")
        def _boom(self, v: int) -> int:
            raise RuntimeError("no dump")

    g = Guard()
    v = g.before_call("t", {})
    assert v.call is not None
    assert str(g.after_call(v.call, result=Odd()).action) == "allow"


WIRE = {
    # OpenAI Chat Completions: the message a raw loop appends for the call
    "openai-chat-tool-message": lambda i: {
        "role": "tool",
        "tool_call_id": f"call_{i}",
        "content": "Error: deploy refused: quota",
    },
    # OpenAI Responses: the input item that answers a function call
    "openai-responses-output": lambda i: {
        "type": "function_call_output",
        "call_id": f"call_{i}",
        "output": "Error: deploy refused: quota",
    },
    # Anthropic: a tool_result block with a prompt-caching mark
    "anthropic-cached-tool-result": lambda i: {
        "type": "tool_result",
        "tool_use_id": f"toolu_{i}",
        "content": "deploy refused: quota",
        "is_error": True,
        "cache_control": {"type": "ephemeral"},
    },
}


@pytest.mark.parametrize("make", WIRE.values(), ids=WIRE.keys())
def test_a_failure_in_the_apis_own_answer_forms_is_a_failure(make: Any, tmp_path: Path) -> None:
    """Before: each was a success (no key of the form was an envelope's or a wrapper's);
    the third identical failing deploy was not refused and nothing was learned."""
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s1", home=home) as g:
        codes = []
        for i in range(3):
            v = g.before_call("deploy", {"env": "prod"})
            codes.append(str(v.code))
            if v.allowed:
                assert v.call is not None
                g.after_call(v.call, result=make(i))
        assert codes[-1] == "error_loop"
        assert len(g.learned()) == 1
    with Guard.open(project, "s2", home=home) as g:
        assert str(g.before_call("deploy", {"env": "prod"}).code) == "known_failure"


def test_the_apis_answer_forms_that_report_no_failure_are_successes() -> None:
    """Negatives: an Anthropic tool_result without `is_error` whose text starts `Error:`
    (its mark is `is_error`), a chat tool message and a Responses item that answer."""
    g = Guard()
    for i, result in enumerate(
        [
            {"type": "tool_result", "tool_use_id": "t", "content": "Error: a quote", "x": None},
            {"type": "tool_result", "tool_use_id": "t", "content": "Error: handling guide"},
            {"role": "tool", "tool_call_id": "c", "content": "3 files changed"},
            {"type": "function_call_output", "call_id": "c", "output": "deployed"},
        ]
    ):
        v = g.before_call("t", {"i": i})
        assert v.call is not None
        g.after_call(v.call, result=result)
    sigs = g._session().sigs.values()
    assert [(st.hard, st.last_err) for st in sigs] == [(0, "")] * 4


SERIALIZED = {
    "mcp-result-as-text": '{"content": [{"type": "text", "text": "quota"}], "isError": true}',
    "tool-result-as-text": '{"type": "tool_result", "tool_use_id": "t", "content": "quota", '
    '"is_error": true}',
    "success-false-as-text": '{"success": false, "message": "quota"}',
}


@pytest.mark.parametrize("text", SERIALIZED.values(), ids=SERIALIZED.keys())
def test_a_failure_serialized_as_json_text_is_a_failure(text: str, tmp_path: Path) -> None:
    """A harness that shows the model the JSON of the result (`json.dumps(result)`): the
    JSON text rule looked for `"error` in the first 80 characters only, so `"isError":
    true`, `"is_error": true` and `"success": false` texts were successes. Now they are
    failures as their dicts are (guessed from a text: not learned by a call that reads)."""
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s1", home=home) as g:
        codes = []
        for _ in range(3):
            v = g.before_call("deploy", {"env": "prod"})
            codes.append(str(v.code))
            if v.allowed:
                assert v.call is not None
                g.after_call(v.call, result=text)
        assert codes[-1] == "error_loop"
        assert [f.error for f in g.learned()] == ["quota"]
        v = g.before_call("Bash", {"command": "cat saved/result.json"})
        assert v.call is not None
        g.after_call(v.call, result=text)
        assert len(g.learned()) == 1  # (the read's is not learned)


def test_json_texts_that_report_no_failure_are_successes() -> None:
    g = Guard()
    for i, text in enumerate(
        [
            '{"success": true, "message": "done"}',
            '{"ok": true, "data": {"mirror": "eu"}}',
            '{"content": [{"type": "text", "text": "fine"}], "isError": false}',
            '{"draft": false, "title": "Error: a guide"}',
        ]
    ):
        v = g.before_call("t", {"i": i})
        assert v.call is not None
        g.after_call(v.call, result=text)
    assert [(st.hard, st.last_err) for st in g._session().sigs.values()] == [(0, "")] * 4
