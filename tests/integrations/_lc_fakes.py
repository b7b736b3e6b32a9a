"""A scripted LangChain agent: `GenericFakeChatModel` (langchain-core's own fake) that can bind
tools, a few tools that count their runs, and `create_agent` with the guard's middleware."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

from _workspace import FakeWorkspace
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


class Workspace(FakeWorkspace):
    """The shared fake workspace (`_workspace`) as LangChain tools; a `ToolException` from
    `build` becomes an error ToolMessage."""

    def __init__(self) -> None:
        super().__init__(build_error=ToolException)
        self.tools: list[BaseTool] = [tool(f) for f in self.functions()]
        self.tools[2].handle_tool_error = True


def agent(turns: Iterable[AIMessage | str], ws: Workspace, middleware: Any) -> Any:
    return create_agent(
        model(turns), ws.tools, middleware=[middleware], checkpointer=InMemorySaver()
    )


def tool_messages(messages: Iterable[BaseMessage]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]
