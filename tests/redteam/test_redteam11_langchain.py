"""Red team, eleventh pass: LangChain's middleware keeps a thread's STOP (one that came with
a result) until that thread's next model turn; threads that never come back (the model call
failed, the run was dropped) must not grow that map without bound."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain")

from _lc_fakes import ToolCallingFakeModel, call
from langchain.agents import create_agent
from langchain_core.tools import ToolException, tool
from langgraph.checkpoint.memory import InMemorySaver

import crs.integrations.langchain as lc
from crs import Action
from crs.guard import Guard


def test_stops_of_threads_that_never_come_back_are_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lc, "_MAX_SESSIONS", 3)
    mw = lc.GuardMiddleware(Guard(), exit_behavior="end")
    stops: list[Any] = []

    def build(t: str) -> str:
        """Build a target."""
        raise ToolException("Error: the compiler crashed")

    tools = [tool(build)]
    tools[0].handle_tool_error = True

    for t in range(6):
        # six builds of other targets failing alike: the sixth's result says STOP; then
        # the model fails (its script ends): the thread never has its next turn
        turns = [call("build", t=f"{t}-{i}") for i in range(6)]
        model = ToolCallingFakeModel(messages=iter(turns))
        graph = create_agent(model, tools, middleware=[mw], checkpointer=InMemorySaver())
        with pytest.raises(RuntimeError, match="StopIteration"):  # (the script ran out)
            graph.invoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": f"t{t}"}})
        stops.append(mw._stopped.get(f"t{t}"))
        assert stops[-1] is not None  # (not vacuous)
        assert stops[-1].action is Action.STOP
    assert len(mw._stopped) <= 3
    assert list(mw._stopped) == ["t3", "t4", "t5"]  # the latest threads' are kept
