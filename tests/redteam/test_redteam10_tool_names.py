"""Red team, tenth pass: a tool name the guard refuses, through the frameworks' real packages
and their own test doubles (LangChain's `GenericFakeChatModel` in `create_agent`, the Agents
SDK's `ScriptedModel`, Pydantic AI's `FunctionModel`).

The guard refuses a tool name it would store with a credential in it (a run of mixed-case
letters and digits the secret sanitizer redacts, as generated names have) or over 256
characters: a developer's own name gets the typed error. A framework's tool name is the
model's and the tool servers' (an MCP server names its tools): the run ended with the
guard's `InvalidArgumentError`, where it works without the guard. The Claude Code hook
decides such a call under a stand-in name (fourth pass); the frameworks now do too.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integrations"))

from crs.guard import Guard

NAME = "read_AbCdEfGhIjKlMnOpQrStUvWxYz012345"  # (a generated name; not a credential)
_ids = itertools.count(1)


def test_the_guard_itself_refuses_the_name() -> None:
    """(Not vacuous: the guard's API refuses it, naming `tool`.)"""
    from crs import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match=r"^tool:"):
        Guard().before_call(NAME, {"path": "a.py"})


def test_langchain_runs_a_tool_whose_name_the_guard_refuses(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from _lc_fakes import model, tool_messages
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver

    from crs.integrations.langchain import GuardMiddleware

    runs = []

    @tool(NAME)
    def read(path: str) -> str:
        """Read a file."""
        runs.append(path)
        return "the same content"

    turns = [
        AIMessage(content="", tool_calls=[{"name": NAME, "args": {"path": "a.py"}, "id": f"c{i}"}])
        for i in range(5)
    ]
    guard = Guard()
    agent = create_agent(
        model(turns), [read], middleware=[GuardMiddleware(guard)], checkpointer=InMemorySaver()
    )
    out = agent.invoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": "t1"}})
    msgs = tool_messages(out["messages"])
    assert len(runs) == 3  # the same read, answered alike: nudged at the 3rd, then refused
    assert msgs[-1].status == "error"
    assert "unguardable_tool_name" in {getattr(r, "code", "") for r in caplog.records}


def test_the_agents_sdk_runs_a_tool_whose_name_the_guard_refuses() -> None:
    from agents import Agent, RunConfig, Runner, function_tool
    from agents.testing import ScriptedModel, assistant_message, function_call

    from crs.integrations.openai_agents import GuardRunHooks, guard_agent

    runs = []

    @function_tool(name_override=NAME)
    def read(path: str) -> str:
        """Read a file."""
        runs.append(path)
        return "the same content"

    steps = [[function_call(NAME, {"path": "a.py"}, call_id=f"call_{i}")] for i in range(5)]
    guard = Guard()
    agent = guard_agent(
        Agent(
            name="dev",
            model=ScriptedModel([*steps, [assistant_message("done")]]),
            tools=[read],
        ),
        guard,
    )
    result = asyncio.run(
        Runner.run(
            agent,
            "go",
            hooks=GuardRunHooks(guard),
            max_turns=30,
            run_config=RunConfig(tracing_disabled=True),
        )
    )
    assert result.final_output == "done"
    assert len(runs) == 3


def test_pydantic_ai_runs_a_tool_whose_name_the_guard_refuses() -> None:
    from pydantic_ai import Agent, Tool
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.toolsets import FunctionToolset

    from crs.integrations.pydantic_ai import GuardCapability

    runs = []
    failed = []

    def read(path: str) -> str:
        """Read a file."""
        runs.append(path)
        return "the same content"

    def respond(messages: list[Any], info: Any) -> ModelResponse:
        last = messages[-1].parts[-1]
        if getattr(last, "outcome", "") == "failed" or type(last).__name__ == "RetryPromptPart":
            failed.append(last)
        if len(runs) + len(failed) >= 5:
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(
            parts=[ToolCallPart(NAME, {"path": "a.py"}, tool_call_id=f"p{next(_ids)}")]
        )

    guard = Guard()
    agent = Agent(
        FunctionModel(respond),
        toolsets=[FunctionToolset([Tool(read, name=NAME)])],
        capabilities=[GuardCapability(guard)],
    )
    result = asyncio.run(agent.run("go"))
    assert result.output == "done"
    assert len(runs) == 3
    assert failed  # the 4th was refused: a failed tool result the model read


def test_the_mcp_middleware_runs_a_tool_whose_name_the_guard_refuses() -> None:
    from fastmcp import Client, FastMCP

    from crs.integrations.mcp import GuardMiddleware

    runs = []
    server = FastMCP("t", middleware=[GuardMiddleware(Guard())])

    @server.tool(name=NAME)
    def read(path: str) -> str:
        """Read a file."""
        runs.append(path)
        return "the same content"

    async def main() -> list[bool]:
        errors = []
        async with Client(server) as client:
            for _ in range(5):
                r = await client.call_tool(NAME, {"path": "a.py"}, raise_on_error=False)
                errors.append(r.is_error)
        return errors

    errors = asyncio.run(main())
    assert len(runs) == 3
    assert errors == [False, False, False, True, True]
