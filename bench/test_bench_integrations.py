"""What the guard costs inside a LangChain v1 agent: a `create_agent` run of N distinct tool
calls (a fake model, a trivial tool) without middleware, with `GuardMiddleware` on an in-memory
`Guard`, and on a durable `Guard.open` (one journal append with fsync per finished call).

The overhead per guarded call is (guarded run - bare run) / N: everything the middleware adds
(its after_model graph node, wrap_tool_call, the guard's before_call and
after_call), measured through the real framework.

Run the medians: `.venv/bin/python bench/test_bench_integrations.py` (prints the table in
bench/RESULTS.md), or `make bench` for the pytest-benchmark rows.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware.types import AgentMiddleware, AgentState
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.runtime import Runtime

from crs import Guard
from crs.integrations.langchain import GuardMiddleware


class CallingModel(GenericFakeChatModel):
    """Calls `read_file` on a new path per turn until `calls` tool results came back."""

    calls: int = 20

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> CallingModel:
        return self

    def _generate(self, messages: list[BaseMessage], *a: Any, **kw: Any) -> ChatResult:
        done = sum(isinstance(m, ToolMessage) for m in messages)
        if done >= self.calls:
            msg = AIMessage(content="done")
        else:
            msg = AIMessage(
                content="",
                tool_calls=[
                    {"name": "read_file", "args": {"path": f"src/m{done}.py"}, "id": f"c{done}"}
                ],
            )
        return ChatResult(generations=[ChatGeneration(message=msg)])


class NoopNode(AgentMiddleware[AgentState[Any], Any, Any]):
    """The price of one middleware graph node, for comparison."""

    def after_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        return None


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


def build(calls: int, middleware: list[Any]) -> Callable[[], None]:
    graph = create_agent(
        CallingModel(messages=iter(()), calls=calls), [read_file], middleware=middleware
    )

    def run_once() -> None:
        out = graph.invoke(
            {"messages": [("user", "go")]},
            {"configurable": {"thread_id": uuid.uuid4().hex}, "recursion_limit": 4 * calls + 10},
        )
        assert sum(isinstance(m, ToolMessage) for m in out["messages"]) == calls

    return run_once


def _calls(config: pytest.Config) -> int:
    return 20 if not config.getoption("benchmark_disable") else 3


def test_bench_langchain_bare_run(benchmark: Any, pytestconfig: pytest.Config) -> None:
    benchmark(build(_calls(pytestconfig), []))


def test_bench_langchain_guarded_run(benchmark: Any, pytestconfig: pytest.Config) -> None:
    benchmark(build(_calls(pytestconfig), [GuardMiddleware(Guard())]))


def test_bench_langchain_guarded_durable_run(
    benchmark: Any, pytestconfig: pytest.Config, tmp_path: Path
) -> None:
    with Guard.open(tmp_path / "repo", "bench", home=tmp_path / "home") as guard:
        benchmark(build(_calls(pytestconfig), [GuardMiddleware(guard)]))


def main(calls: int = 20, rounds: int = 60) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        durable = Guard.open(Path(tmp) / "repo", "bench", home=Path(tmp) / "home")
        runs = {
            "bare": build(calls, []),
            "a no-op after_model middleware (the graph node alone)": build(calls, [NoopNode()]),
            "guarded, in memory": build(calls, [GuardMiddleware(Guard())]),
            'guarded, in memory, exit_behavior="end"': build(
                calls, [GuardMiddleware(Guard(), exit_behavior="end")]
            ),
            "guarded, durable (fsync per call)": build(calls, [GuardMiddleware(durable)]),
        }
        wall: dict[str, list[float]] = {k: [] for k in runs}
        cpu: dict[str, list[float]] = {k: [] for k in runs}
        for fn in runs.values():
            fn()  # warm up
        for _ in range(rounds):  # interleaved, so load changes hit every variant alike
            for name, fn in runs.items():
                t0, c0 = time.perf_counter(), time.process_time()
                fn()
                wall[name].append(time.perf_counter() - t0)
                cpu[name].append(time.process_time() - c0)
        durable.close()
    print(f"{calls} tool calls per run, {rounds} rounds, interleaved; per tool call, µs:")
    print("| variant | wall, median | overhead, wall | CPU, median | overhead, CPU |")
    print("| --- | --- | --- | --- | --- |")

    def over(xs: dict[str, list[float]], name: str) -> str:
        # The median of round-by-round differences: load drifts hit both sides of a pair.
        d = statistics.median((t - b) / calls for t, b in zip(xs[name], xs["bare"], strict=True))
        base = statistics.median(xs["bare"]) / calls
        return f"{d * 1e6:+,.0f} ({(base + d) / base:.2f}x)"

    for name in runs:
        w, c = statistics.median(wall[name]) / calls, statistics.median(cpu[name]) / calls
        print(
            f"| {name} | {w * 1e6:,.0f} | {over(wall, name)} | {c * 1e6:,.0f} | {over(cpu, name)} |"
        )
    g = Guard()
    t: list[float] = []
    for i in range(2000):
        t0 = time.perf_counter()
        v = g.before_call("read_file", {"path": f"src/m{i}.py"})
        g.after_call(v.call, result=f"contents of src/m{i}.py")
        t.append(time.perf_counter() - t0)
    print(f"guard alone (before_call + after_call, in memory): {statistics.median(t) * 1e6:.1f} µs")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
