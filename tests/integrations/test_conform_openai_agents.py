"""OpenAI Agents SDK conformance (openai-agents 0.24 as installed): `guard_agent` and
`GuardRunHooks` in real `Runner.run` / `Runner.run_streamed` runs driven by the SDK's own
test double, `agents.testing.ScriptedModel`, held to what the SDK documents:

- a tool input guardrail's `reject_content` replaces the call's output with its message (the
  model reads it as the function call's output), `raise_exception` raises
  `ToolInputGuardrailTripwireTriggered`, which ends the run (streamed too);
- a function tool's `failure_error_function` turns its exception into the output the model
  reads: a failure, which the guard learns;
- `RunHooks` are awaited on the run's event loop: a durable guard's journal writes (an
  fdatasync each) must happen in a worker thread, not there.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from pathlib import Path
from typing import Any

import pytest
from _loop_writes import writes_on_the_loop
from _workspace import FakeWorkspace
from agents import (
    Agent,
    FunctionTool,
    RunConfig,
    Runner,
    ToolInputGuardrailTripwireTriggered,
    function_tool,
)
from agents.testing import ScriptedModel, assistant_message, function_call

from crs import Guard
from crs.integrations.openai_agents import GuardRunHooks, guard_agent

NO_TRACE = RunConfig(tracing_disabled=True)
_ids = itertools.count(1)


def calling(name: str, **args: Any) -> list[Any]:
    return [function_call(name, args, call_id=f"cf_{next(_ids)}")]


def tools(ws: FakeWorkspace) -> list[FunctionTool]:
    return [function_tool(f) for f in ws.functions()]


def guarded(steps: list[list[Any]], ws: FakeWorkspace, guard: Guard) -> tuple[Agent[Any], Any]:
    model = ScriptedModel([*steps, [assistant_message("done")]])
    return guard_agent(Agent(name="dev", model=model, tools=[*tools(ws)]), guard), model


def outputs_sent(model: ScriptedModel) -> dict[str, str]:
    """call id -> the function call output the model was given (its last input)."""
    last = model.last_call
    assert last is not None
    return {
        item["call_id"]: str(item["output"])
        for item in last.input
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }


def test_the_model_is_given_the_guards_message_as_the_calls_output() -> None:
    ws, guard = FakeWorkspace(), Guard()
    steps = [calling("read_file", path="a.py") for _ in range(4)]
    agent, model = guarded(steps, ws, guard)
    result = asyncio.run(Runner.run(agent, "go", hooks=GuardRunHooks(guard), run_config=NO_TRACE))
    assert result.final_output == "done"
    sent = list(outputs_sent(model).values())
    assert sent[0] == "contents of a.py"
    assert sent[2].startswith("contents of a.py\n\n[crs] ")  # the nudge, after the result
    assert "will not change" in sent[3]  # refused: the message instead of a result
    assert ws.runs["read_file"] == 3


def test_a_stop_ends_a_streamed_run_with_the_sdks_tripwire() -> None:
    ws, guard = FakeWorkspace(), Guard()
    agent, _ = guarded([calling("read_file", path="a.py") for _ in range(8)], ws, guard)

    async def consume() -> None:
        streamed = Runner.run_streamed(
            agent, "go", hooks=GuardRunHooks(guard), run_config=NO_TRACE, max_turns=30
        )
        async for _ in streamed.stream_events():
            pass

    with pytest.raises(ToolInputGuardrailTripwireTriggered) as info:
        asyncio.run(consume())
    assert info.value.output.output_info["action"] == "stop"
    assert ws.runs["read_file"] == 3


def test_a_failure_the_sdk_reports_to_the_model_is_a_failure_the_guard_learns(
    tmp_path: Path,
) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    ws = FakeWorkspace()
    with Guard.open(project, "s1", home=tmp_path / "home") as guard:
        agent, model = guarded([calling("build", target="all")], ws, guard)
        asyncio.run(Runner.run(agent, "build", hooks=GuardRunHooks(guard), run_config=NO_TRACE))
        (sent,) = outputs_sent(model).values()
        assert sent == "An error occurred while running the tool. Please try again."
        (learned,) = guard.learned()
        assert learned.tool == "build"
        assert "expected ';'" in learned.error


def test_many_runs_answered_in_text_are_not_a_monologue(caplog: pytest.LogCaptureFixture) -> None:
    """Each `Runner.run` is a user request (a new guard turn), however many answer in text:
    thirteen different questions answered alike are a chat."""
    guard = Guard()
    hooks = GuardRunHooks(guard)
    answer = "Sure, happy to help with that. Let me know what else you need from me today."
    caplog.set_level(logging.INFO, logger="crs.guard")
    for i in range(13):
        agent = Agent(name="chat", model=ScriptedModel([[assistant_message(answer)]]))
        ask = f"question {i}"
        result = asyncio.run(Runner.run(agent, ask, hooks=hooks, run_config=NO_TRACE))
        assert result.final_output == answer
    assert [r for r in caplog.records if getattr(r, "code", "") == "monologue"] == []


def test_the_same_answer_to_runs_that_ask_nothing_new_is_a_monologue(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The run's input (`turn_input`, a str or input items) is the turn's user text: runs
    that only ask for news, answered alike in text, are a monologue across turns."""
    guard = Guard()
    hooks = GuardRunHooks(guard)
    answer = "I am still working on your refund request right now, please wait a moment."
    caplog.set_level(logging.INFO, logger="crs.guard")
    inputs: list[Any] = [
        "Please refund order 5521",
        [{"role": "user", "content": "any update?"}],
        [{"role": "user", "content": [{"type": "input_text", "text": "hello? still there?"}]}],
    ]
    for text in inputs:
        agent = Agent(name="chat", model=ScriptedModel([[assistant_message(answer)]]))
        result = asyncio.run(Runner.run(agent, text, hooks=hooks, run_config=NO_TRACE))
        assert result.final_output == answer
    flagged = [r for r in caplog.records if getattr(r, "code", "") == "monologue"]
    assert len(flagged) == 1
    assert "user turns" in flagged[0].getMessage()


def test_a_durable_guard_never_writes_its_journal_on_the_runs_event_loop(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    ws = FakeWorkspace()
    with Guard.open(project, "main", home=tmp_path / "home") as guard:
        steps = [
            calling("build", target="all"),  # fails: the failure function records it
            calling("read_file", path="a.py"),
            *[calling("read_file", path="b.py") for _ in range(4)],  # nudged, then refused
        ]
        with writes_on_the_loop() as on_loop:
            for _ in range(2):  # two runs: two turns
                agent, _ = guarded(steps, ws, guard)
                asyncio.run(
                    Runner.run(
                        agent, "go", hooks=GuardRunHooks(guard), run_config=NO_TRACE, max_turns=30
                    )
                )
            text_only = Agent(name="chat", model=ScriptedModel([[assistant_message("ok")]]))
            asyncio.run(
                Runner.run(text_only, "hi", hooks=GuardRunHooks(guard), run_config=NO_TRACE)
            )
        assert on_loop == []
        assert guard.status()["calls"] >= 6


MCP_SERVER = """
from fastmcp import FastMCP

server = FastMCP("jobs")


@server.tool
def job_status(job: str) -> str:
    \"\"\"A CI job's status.\"\"\"
    return "queued"


server.run(show_banner=False)
"""


def test_the_tools_of_the_agents_mcp_servers_are_guarded_too(tmp_path: Path) -> None:
    """`Agent(mcp_servers=[...])`: the SDK builds those tools at run time; `guard_agent` puts
    the guardrails on the server, so its tools are refused, nudged and stopped alike."""
    # inside: the SDK's MCP client, only this test starts a server
    import sys

    from agents.mcp import MCPServerStdio

    script = tmp_path / "jobs_server.py"
    script.write_text(MCP_SERVER)
    guard = Guard()

    async def go() -> tuple[Any, ScriptedModel]:
        params = {"command": sys.executable, "args": [str(script)]}
        async with MCPServerStdio(params=params, cache_tools_list=True) as server:  # type: ignore[arg-type]
            steps = [calling("job_status", job="build-7") for _ in range(8)]
            model = ScriptedModel([*steps, [assistant_message("done")]])
            agent = guard_agent(Agent(name="ops", model=model, mcp_servers=[server]), guard)
            assert guard_agent(agent, guard) is agent  # idempotent
            assert server.tool_input_guardrails is not None
            assert len(server.tool_input_guardrails) == 1
            hooks = GuardRunHooks(guard)
            with pytest.raises(ToolInputGuardrailTripwireTriggered) as info:
                await Runner.run(agent, "watch ci", hooks=hooks, run_config=NO_TRACE, max_turns=30)
            return info.value, model

    tripped, model = asyncio.run(go())
    assert tripped.output.output_info["action"] == "stop"
    assert tripped.output.output_info["call"]["tool"] == "job_status"
    sent = list(outputs_sent(model).values())
    assert "[crs]" in sent[2]  # nudged after the third identical answer
    assert "will not change" in sent[-1]  # then refused before it ran
