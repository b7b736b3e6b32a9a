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
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool

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


def main(calls: int = 20, rounds: int = 40) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        durable = Guard.open(Path(tmp) / "repo", "bench", home=Path(tmp) / "home")
        runs = {
            "bare": build(calls, []),
            "guarded, in memory": build(calls, [GuardMiddleware(Guard())]),
            'guarded, in memory, exit_behavior="end"': build(
                calls, [GuardMiddleware(Guard(), exit_behavior="end")]
            ),
            "guarded, durable (fsync per call)": build(calls, [GuardMiddleware(durable)]),
        }
        times: dict[str, list[float]] = {k: [] for k in runs}
        for fn in runs.values():
            fn()  # warm up
        for _ in range(rounds):  # interleaved, so load changes hit every variant alike
            for name, fn in runs.items():
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
        durable.close()
    bare = statistics.median(times["bare"]) / calls
    print(f"{calls} tool calls per run, {rounds} rounds; median per call (µs):")
    print("| variant | per call | overhead over bare |")
    print("| --- | --- | --- |")
    for name, ts in times.items():
        per = statistics.median(ts) / calls
        print(f"| {name} | {per * 1e6:,.0f} | {(per - bare) * 1e6:+,.0f} ({per / bare:.2f}x) |")
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
