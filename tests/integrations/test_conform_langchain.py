"""LangChain v1 conformance (langchain 1.5, langgraph 1.2 as installed): `GuardMiddleware` in
real `create_agent` graphs driven by langchain-core's `GenericFakeChatModel`, held to what the
framework documents for an `AgentMiddleware`:

- `wrap_tool_call` / `awrap_tool_call` answer a call with a `ToolMessage` whose `status` is
  `"error"` when it did not succeed; the model reads it on its next turn;
- an `after_model` hook declared `can_jump_to=["end"]` ends the run with `jump_to: "end"`
  (what `ToolCallLimitMiddleware(exit_behavior="end")` does);
- a tool's exception either propagates or becomes an error `ToolMessage` through
  `ToolErrorMiddleware`, outside or inside this middleware: a failure either way;
- a thread (checkpointer, `thread_id`) holds many user requests, each an `invoke`;
- the async path runs on the event loop: it must never wait there for the disk.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from _lc_fakes import ToolCallingFakeModel, Workspace, call, tool_messages
from _loop_writes import writes_on_the_loop
from langchain.agents import create_agent
from langchain.agents.middleware import ToolErrorMiddleware
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from crs import Guard
from crs.integrations.langchain import GuardMiddleware


class RecordingModel(ToolCallingFakeModel):
    """The fake chat model, keeping every message list it was called with."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def graph(turns: list[Any], ws: Workspace, *middleware: Any) -> tuple[Any, RecordingModel]:
    model = RecordingModel(messages=iter([*turns, "done"]))
    return create_agent(
        model, ws.tools, middleware=list(middleware), checkpointer=InMemorySaver()
    ), model


def config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def ask(turns: list[Any], ws: Workspace, mw: GuardMiddleware, saver: Any, text: str) -> Any:
    """One user request on thread "t" (its history kept in `saver`): the messages."""
    model = ToolCallingFakeModel(messages=iter(turns))
    agent: Any = create_agent(model, ws.tools, middleware=[mw], checkpointer=saver)
    return agent.invoke({"messages": [HumanMessage(text)]}, config("t"))["messages"]


def test_the_model_reads_the_refusal_as_an_error_tool_message_then_the_run_ends() -> None:
    ws = Workspace()
    mw = GuardMiddleware(Guard(), exit_behavior="end")
    agent, model = graph([call("read_file", path="a.py") for _ in range(8)], ws, mw)
    out = agent.invoke({"messages": [HumanMessage("go")]}, config("t"))["messages"]
    refused = [m for m in tool_messages(out) if m.status == "error"]
    assert refused
    first = refused[0]
    # what the model was given on the turn after the refusal: the error ToolMessage
    after = next(seen for seen in model.seen if any(m is first or m == first for m in seen))
    answer = next(
        m for m in after if isinstance(m, ToolMessage) and m.tool_call_id == first.tool_call_id
    )
    assert answer.status == "error"
    assert "will not change" in str(answer.content)
    # the run ended the framework's way: no more model turns, a final AI message for the user
    assert isinstance(out[-1], AIMessage)
    assert not out[-1].tool_calls
    assert str(out[-1].content).startswith("Stopped by crs (repeated_call)")
    assert ws.runs["read_file"] == 3


@pytest.mark.parametrize("outer", [True, False])
def test_a_failure_through_tool_error_middleware_is_a_failure(outer: bool) -> None:
    """LangChain's own ToolErrorMiddleware turns the exception into an error ToolMessage;
    outside crs's middleware crs sees the exception, inside it sees the message."""
    ws = Workspace()
    ws.tools[2].handle_tool_error = False  # the exception propagates out of the tool
    errors = ToolErrorMiddleware(on_error=lambda exc, request: f"build failed: {exc}")
    mw = GuardMiddleware(Guard(), exit_behavior="continue")
    order = (errors, mw) if outer else (mw, errors)
    turns = [call("build", target="all") for _ in range(3)]
    agent, _ = graph(turns, ws, *order)
    out = agent.invoke({"messages": [HumanMessage("build it")]}, config("t"))["messages"]
    tms = tool_messages(out)
    assert ws.runs["build"] == 2  # the identical third try was refused before it ran
    assert [m.status for m in tms] == ["error", "error", "error"]
    assert "build failed" in str(tms[0].content)
    assert "failed 2 times in a row" in str(tms[2].content)


def test_a_chat_of_many_short_answers_on_one_thread_is_not_a_monologue(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Thirteen user requests on one thread, each answered in text: every answer follows a
    user message, so none is an agent talking to itself."""
    ws = Workspace()
    mw = GuardMiddleware(Guard(), exit_behavior="end")
    saver = InMemorySaver()
    answer = "Sure, happy to help with that. Let me know what else you need from me today."
    caplog.set_level(logging.INFO, logger="crs.guard")
    for i in range(13):
        assert ask([answer], ws, mw, saver, f"question {i}")[-1].content == answer
    assert [r for r in caplog.records if getattr(r, "code", "") == "monologue"] == []
    # while the same answer three times with no user message between is one
    g = mw.guard_for("alone")
    verdicts = [g.on_message(answer) for _ in range(3)]
    assert verdicts[-1].code == "monologue"


@pytest.mark.parametrize("run", ["invoke", "ainvoke"])
def test_the_same_answer_to_follow_ups_on_a_thread_is_a_monologue(
    run: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The middleware passes the user's message to `new_turn`: "any update?" answered alike
    with no tool call, invoke after invoke, is a monologue across turns (logged at the
    third), where thirteen different questions answered alike were not."""
    ws = Workspace()
    mw = GuardMiddleware(Guard(), exit_behavior="end")
    saver = InMemorySaver()
    answer = "I am still working on your refund request right now, please wait a moment."
    caplog.set_level(logging.INFO, logger="crs.guard")
    for text in ["Please refund order 5521", "any update?", "hello?"]:
        model = ToolCallingFakeModel(messages=iter([answer]))
        agent: Any = create_agent(model, ws.tools, middleware=[mw], checkpointer=saver)
        payload = {"messages": [HumanMessage(text)]}
        if run == "invoke":
            out = agent.invoke(payload, config("t"))
        else:
            out = asyncio.run(agent.ainvoke(payload, config("t")))
        assert out["messages"][-1].content == answer
    flagged = [r for r in caplog.records if getattr(r, "code", "") == "monologue"]
    assert len(flagged) == 1
    assert "user turns" in flagged[0].getMessage()
    assert mw.guard_for("t").status()["turns"] == 3


def test_a_new_request_on_the_thread_starts_the_escalation_over() -> None:
    """The run ended on a loop (STOP); the user asks again on the same thread: the model's
    call for the new request runs, rather than being refused for the last request's loop."""
    ws = Workspace()
    mw = GuardMiddleware(Guard(), exit_behavior="end")
    saver = InMemorySaver()
    loop = [call("read_file", path="a.py") for _ in range(8)]
    out = ask([*loop, "done"], ws, mw, saver, "read a.py")
    assert str(out[-1].content).startswith("Stopped by crs")
    assert ws.runs["read_file"] == 3
    again = [call("read_file", path="a.py"), "done"]
    out = ask(again, ws, mw, saver, "I changed it, read it again")
    assert ws.runs["read_file"] == 4  # the user's new request: the read runs
    assert str(tool_messages(out)[-1].content).startswith("contents of a.py")
    assert out[-1].content == "done"


def test_the_async_path_never_writes_the_journal_on_the_event_loop(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    ws = Workspace()
    with Guard.open(project, "main", home=tmp_path / "home") as guard:
        mw = GuardMiddleware(guard, exit_behavior="end")
        turns = [call("read_file", path="a.py") for _ in range(8)]
        agent, _ = graph(turns, ws, mw)
        with writes_on_the_loop() as on_loop:
            out = asyncio.run(agent.ainvoke({"messages": [HumanMessage("go")]}, config("t")))
            out2 = asyncio.run(
                agent.ainvoke({"messages": [HumanMessage("and again")]}, config("t"))
            )
        assert on_loop == []
        assert str(out["messages"][-1].content).startswith("Stopped by crs")
        assert out2["messages"][-1].content == "done"
        # the second request let the call run once more (escalation starts over per request)
        assert guard.with_session("t").status()["calls"] == 4
