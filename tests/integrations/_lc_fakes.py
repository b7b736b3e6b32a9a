"""A scripted LangChain agent: `GenericFakeChatModel` (langchain-core's own fake) that can bind
tools, a few tools that count their runs, and `create_agent` with the guard's middleware."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool, ToolException, tool
from langgraph.checkpoint.memory import InMemorySaver

_ids = itertools.count(1)


class ToolCallingFakeModel(GenericFakeChatModel):
    """`GenericFakeChatModel` plus `bind_tools` (which `create_agent` needs); the script
    is fixed, as a model's answers would be."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ToolCallingFakeModel:
        return self


def call(name: str, **args: Any) -> AIMessage:
    """An AI turn with one tool call."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"c{next(_ids)}"}])


def calls(*pairs: tuple[str, dict[str, Any]]) -> AIMessage:
    """An AI turn with parallel tool calls."""
    return AIMessage(
        content="",
        tool_calls=[{"name": n, "args": a, "id": f"c{next(_ids)}"} for n, a in pairs],
    )


def model(turns: Iterable[AIMessage | str]) -> ToolCallingFakeModel:
    return ToolCallingFakeModel(messages=iter([*turns, "done"]))


class Workspace:
    """Tools over a fake workspace: `build` fails until `edit_file` fixed the code."""

    def __init__(self) -> None:
        self.runs: Counter[str] = Counter()
        self.fixed = False
        ws = self

        @tool
        def read_file(path: str) -> str:
            """Read a file."""
            ws.runs["read_file"] += 1
            return f"contents of {path}"

        @tool
        def check_status(job: str) -> str:
            """Status of a job."""
            ws.runs["check_status"] += 1
            return "pending"

        @tool
        def build(target: str) -> str:
            """Build a target."""
            ws.runs["build"] += 1
            if not ws.fixed:
                raise ToolException("error: src/main.c:3: expected ';' before '}'")
            return "build ok"

        @tool
        def edit_file(path: str, text: str) -> str:
            """Write a file."""
            ws.runs["edit_file"] += 1
            ws.fixed = True
            return f"wrote {path}"

        build.handle_tool_error = True  # a ToolException becomes an error ToolMessage
        self.tools: list[BaseTool] = [read_file, check_status, build, edit_file]


def agent(turns: Iterable[AIMessage | str], ws: Workspace, middleware: Any) -> Any:
    return create_agent(
        model(turns), ws.tools, middleware=[middleware], checkpointer=InMemorySaver()
    )


def tool_messages(messages: Iterable[BaseMessage]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]
