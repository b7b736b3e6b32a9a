"""Red team: framework integrations fed what real tools produce on a Linux box, where text is
not always valid Unicode. A file name that is not UTF-8 comes back from `os.fsdecode` (or
`errors="surrogateescape"`) with lone surrogates, and ends up in a tool's error message or
output. The guard must neither replace the user's own exception with its own, nor crash the
run, nor skip the call: it records the call with the surrogate replaced.

LangChain runs are real `create_agent` graphs on langchain-core's fake chat model; the Agents
SDK runs use its own `ScriptedModel`.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integrations"))
from _lc_fakes import ToolCallingFakeModel, call, tool_messages
from agents import Agent, RunConfig, Runner, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call
from langchain.agents import create_agent
from langchain_core.tools import ToolException, tool
from langgraph.checkpoint.memory import InMemorySaver

from crs import CRSError, Guard
from crs.integrations.langchain import GuardMiddleware
from crs.integrations.openai_agents import GuardRunHooks, guard_agent

NAME = b"report-\xff.txt".decode("utf-8", "surrogateescape")  # 'report-\udcff.txt'
THREAD = {"configurable": {"thread_id": "t-sur"}}


def _run_agent(agent: Agent[Any], guard: Guard) -> Any:
    hooks = GuardRunHooks(guard)
    config = RunConfig(tracing_disabled=True)  # no trace export (it would try the network)
    return asyncio.run(Runner.run(agent, "go", hooks=hooks, max_turns=10, run_config=config))


def _invoke(graph: Any, mode: str) -> Any:
    inp = {"messages": [("user", "go")]}
    return graph.invoke(inp, THREAD) if mode == "sync" else asyncio.run(graph.ainvoke(inp, THREAD))


def _scale_tool() -> tuple[Callable[[float], str], list[float]]:
    """A plain tool function (each framework wraps it) and the list of its runs."""
    runs: list[float] = []

    def scale(factor: float) -> str:
        """Scale the image."""
        runs.append(factor)
        return "scaled"

    return scale, runs


def _graph(tools: list[Any], turns: list[Any], mw: GuardMiddleware) -> Any:
    model = ToolCallingFakeModel(messages=iter([*turns, "done"]))
    return create_agent(model, tools, middleware=[mw], checkpointer=InMemorySaver())


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_langchain_a_handled_tool_error_with_a_surrogate_is_recorded(mode: str) -> None:
    """An error ToolMessage whose text holds a lone surrogate: the middleware raised the
    guard's InvalidArgumentError out of the run. It is recorded: the third identical call,
    after two identical failures, is refused."""
    runs = []

    @tool
    def publish(path: str) -> str:
        """Publish a file."""
        runs.append(path)
        raise ToolException(f"cannot open {NAME}: permission denied")

    publish.handle_tool_error = True
    guard = Guard()
    mw = GuardMiddleware(guard, exit_behavior="continue")
    graph = _graph([publish], [call("publish", path="out") for _ in range(3)], mw)
    messages = _invoke(graph, mode)["messages"]
    assert len(runs) == 2  # the identical third call was refused
    tms = tool_messages(messages)
    assert [m.status for m in tms] == ["error", "error", "error"]
    assert "failed 2 times" in str(tms[2].content)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_langchain_a_raising_tool_keeps_its_own_exception(mode: str) -> None:
    """A tool that raises (not handled): the user must see their RuntimeError, not the
    guard's complaint about its text, and the failure is recorded."""

    @tool
    def publish(path: str) -> str:
        """Publish a file."""
        raise RuntimeError(f"cannot open {NAME}")

    guard = Guard()
    mw = GuardMiddleware(guard, exit_behavior="continue")
    graph = _graph([publish], [call("publish", path="out")], mw)
    with pytest.raises(RuntimeError, match="cannot open") as info:
        _invoke(graph, mode)
    assert not isinstance(info.value, CRSError)
    assert mw.guard_for("t-sur").status()["calls"] == 1


def test_langchain_outputs_with_surrogates_are_digested_by_content() -> None:
    """Outputs holding a lone surrogate were all recorded as "<str result>": every such
    output looked the same, and different outputs read as a loop. Each is digested by its
    text (surrogate replaced): ten reads of different outputs are never a loop."""
    n = iter(range(100))

    @tool
    def tail_log(path: str) -> str:
        """The end of a log."""
        return f"line {next(n)}: wrote {NAME}"

    guard = Guard()
    mw = GuardMiddleware(guard, exit_behavior="end", exit_on="block")
    graph = _graph([tail_log], [call("tail_log", path="build.log") for _ in range(10)], mw)
    messages = graph.invoke({"messages": [("user", "go")]}, THREAD)["messages"]
    tms = tool_messages(messages)
    assert len(tms) == 10
    assert all(m.status == "success" for m in tms)
    assert all("[crs]" not in str(m.content) for m in tms)


def test_agents_sdk_a_tool_error_with_a_surrogate_reaches_the_model_and_is_recorded() -> None:
    runs = []

    @function_tool
    def publish(path: str) -> str:
        """Publish a file."""
        runs.append(path)
        raise RuntimeError(f"cannot open {NAME}")

    guard = Guard()
    steps = [[function_call("publish", {"path": "out"}, call_id=f"call_s{i}")] for i in range(3)]
    model = ScriptedModel([*steps, [assistant_message("done")]])
    agent = guard_agent(Agent(name="dev", model=model, tools=[publish]), guard)
    result = _run_agent(agent, guard)
    assert result.final_output == "done"
    assert len(runs) == 2  # recorded twice, the third identical call refused
    assert [f.tool for f in guard.learned()] == ["publish"]


def test_agents_sdk_arguments_the_guard_cannot_take_do_not_end_the_run() -> None:
    """The model's arguments are the model's: a NaN (JSON `NaN`, which Python parses) ran
    fine without the guard (the tool got nan) and, with it, ended the run with the guard's
    InvalidArgumentError. The call is guarded by the arguments' text instead, so repeating
    it is still a repeat (the third identical call and result is nudged)."""
    fn, runs = _scale_tool()
    scale = function_tool(fn)
    guard = Guard()
    nan = float("nan")
    steps = [[function_call("scale", {"factor": nan}, call_id=f"call_n{i}")] for i in range(3)]
    model = ScriptedModel([*steps, [assistant_message("done")]])
    agent = guard_agent(Agent(name="dev", model=model, tools=[scale]), guard)
    result = _run_agent(agent, guard)
    assert result.final_output == "done"
    assert len(runs) == 3
    assert guard.status()["loop_code"] == "repeated_call"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_langchain_arguments_the_guard_cannot_take_do_not_end_the_run(mode: str) -> None:
    fn, runs = _scale_tool()
    guard = Guard()
    mw = GuardMiddleware(guard, exit_behavior="continue")
    turns = [call("scale", factor=float("nan")) for _ in range(6)]
    graph = _graph([tool(fn)], turns, mw)
    messages = _invoke(graph, mode)["messages"]
    assert 1 <= len(runs) < 6
    assert messages[-1].content == "done"
