"""`crs.integrations.openai_agents` on real Agents SDK runs driven by the SDK's own scripted
`Model` (`agents.testing.ScriptedModel`), no network."""

from __future__ import annotations

import asyncio
import itertools
import logging
from pathlib import Path
from typing import Any

import pytest
from _workspace import FakeWorkspace
from agents import (
    Agent,
    FunctionTool,
    RunConfig,
    Runner,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailTripwireTriggered,
    function_tool,
)
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call

from crs import Action, Call, CRSError, Guard, Verdict, VerdictCode
from crs.integrations.openai_agents import GuardRunHooks, GuardToolGuardrails, guard_agent

_ids = itertools.count(1)
NO_TRACE = RunConfig(tracing_disabled=True)  # no trace export (it would try the network)


def step(name: str, **args: Any) -> list[Any]:
    return [function_call(name, args, call_id=f"call_{next(_ids)}")]


class Workspace(FakeWorkspace):
    """The shared fake workspace (`_workspace`) as function tools, plus `deploy`, whose
    errors fail the run."""

    def __init__(self) -> None:
        super().__init__()
        ws = self

        @function_tool(failure_error_function=None)
        def deploy(env: str) -> str:
            """Deploy (its errors fail the run)."""
            ws.runs["deploy"] += 1
            raise RuntimeError("deploy refused")

        plain = [function_tool(f) for f in self.functions() if f.__name__ != "check_status"]
        self.tools: list[FunctionTool] = [*plain, deploy]


def make_agent(ws: Workspace, steps: list[list[Any]], guard: Guard, **kw: Any) -> Agent[Any]:
    model = ScriptedModel([*steps, [assistant_message("done")]])
    return guard_agent(Agent(name="dev", model=model, tools=list(ws.tools)), guard, **kw)


def run(agent: Agent[Any], guard: Guard, **kw: Any) -> Any:
    return asyncio.run(
        Runner.run(agent, "go", hooks=GuardRunHooks(guard, **kw), max_turns=30, run_config=NO_TRACE)
    )


def outputs(result: Any) -> list[str]:
    return [str(i.output) for i in result.new_items if isinstance(i, ToolCallOutputItem)]


def test_loop_is_nudged_then_blocked_then_stopped_by_the_tripwire() -> None:
    ws, guard = Workspace(), Guard()
    agent = make_agent(ws, [step("read_file", path="a.py") for _ in range(8)], guard)
    with pytest.raises(ToolInputGuardrailTripwireTriggered) as info:
        run(agent, guard)
    assert ws.runs["read_file"] == 3
    verdict = info.value.output.output_info
    assert (verdict["action"], verdict["code"]) == ("stop", "repeated_call")
    assert verdict["call"]["session_id"] == "default"


def test_nudge_and_block_reach_the_model() -> None:
    ws, guard = Workspace(), Guard()
    steps = [step("read_file", path="a.py") for _ in range(4)]
    result = run(make_agent(ws, [*steps, step("read_file", path="b.py")], guard), guard)
    outs = outputs(result)
    assert ws.runs["read_file"] == 4
    assert outs[1] == "contents of a.py"
    assert outs[2].startswith("contents of a.py\n\n[crs] This call returned the same result")
    assert "will not change" in outs[3]  # refused: the guard's message instead of a result
    assert "a.py" not in outs[3]
    assert outs[4] == "contents of b.py"
    assert result.final_output == "done"


def test_failing_build_refused_on_identical_retry_fixed_call_runs() -> None:
    ws, guard = Workspace(), Guard()
    steps = [
        step("build", target="all"),
        step("build", target="all"),  # a second try in its own session is legitimate
        step("build", target="all"),  # the identical retry: refused
        step("edit_file", path="src/main.c", text="int main(void) { return 0; }"),
        step("build", target="all"),
    ]
    result = run(make_agent(ws, steps, guard), guard)
    outs = outputs(result)
    assert ws.runs["build"] == 3
    assert outs[1] == "An error occurred while running the tool. Please try again."
    assert "failed 2 times in a row" in outs[2]  # refused before running: the model is told why
    assert outs[4] == "build ok"
    assert guard.learned() == []  # the fixed build passed: what failed no longer holds


def test_reading_ten_different_files_is_never_blocked() -> None:
    ws, guard = Workspace(), Guard()
    steps = [step("read_file", path=f"src/m{i}.py") for i in range(10)]
    result = run(make_agent(ws, steps, guard), guard)
    assert ws.runs["read_file"] == 10
    assert outputs(result) == [f"contents of src/m{i}.py" for i in range(10)]
    assert result.final_output == "done"


def test_second_session_on_the_durable_project_sees_what_the_first_learned(
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    ws = Workspace()
    with Guard.open(project, "first", home=home) as guard:
        run(make_agent(ws, [step("build", target="all")], guard), guard)
    with Guard.open(project, "second", home=home) as guard:
        result = run(make_agent(ws, [step("build", target="all")], guard), guard)
        assert [f.session_id for f in guard.learned()] == ["first"]
    assert ws.runs["build"] == 1
    assert "failed" in outputs(result)[0].lower()


def test_sessions_from_the_run_context_share_what_was_learned() -> None:
    ws, guard = Workspace(), Guard()

    def session(ctx: Any) -> str:
        return str(ctx.context["thread"])

    for thread in ("t-1", "t-2"):
        agent = make_agent(ws, [step("build", target="all")], guard, session=session)
        asyncio.run(
            Runner.run(
                agent,
                "go",
                context={"thread": thread},
                run_config=NO_TRACE,
                hooks=GuardRunHooks(guard, session=session),
            )
        )
    assert ws.runs["build"] == 1
    assert guard.with_session("t-1").status()["calls"] == 1
    assert guard.with_session("t-1").status()["turns"] == 1  # GuardRunHooks: a run, a turn
    assert guard.with_session("t-2").status()["calls"] == 0  # refused, not recorded as run


def test_a_tool_that_raises_still_raises_and_its_failure_is_recorded() -> None:
    ws, guard = Workspace(), Guard()
    agent = make_agent(ws, [step("deploy", env="prod")], guard)
    with pytest.raises(Exception, match="deploy refused"):
        run(agent, guard)
    assert [f.tool for f in guard.learned()] == ["deploy"]


class StopOnResult(Guard):
    """A guard whose second recorded result says STOP (as after an ignored nudge)."""

    def after_call(self, call: Call, result: Any = None, error: Any = None) -> Verdict:
        v = super().after_call(call, result=result, error=error)
        if call.step < 2:
            return v
        return Verdict(
            Action.STOP,
            VerdictCode.NO_PROGRESS,
            "no progress: stop",
            "Stop here and report to the user.",
            (call.step,),
            call,
        )


def test_a_stop_after_a_result_trips_the_output_guardrail() -> None:
    ws, guard = Workspace(), StopOnResult()
    steps = [step("read_file", path=f"f{i}.py") for i in range(4)]
    with pytest.raises(ToolOutputGuardrailTripwireTriggered) as info:
        run(make_agent(ws, steps, guard), guard)
    assert ws.runs["read_file"] == 2
    assert info.value.output.output_info["action"] == "stop"
    assert guard.status()["calls"] == 2


def test_guard_agent_is_idempotent_and_leaves_other_guardrails() -> None:
    ws, guard = Workspace(), Guard()
    agent = make_agent(ws, [], guard)
    guard_agent(agent, guard)
    for t in agent.tools:
        assert isinstance(t, FunctionTool)
        assert [g.get_name() for g in t.tool_input_guardrails or []] == ["crs_guard_input"]
        assert [g.get_name() for g in t.tool_output_guardrails or []] == ["crs_guard_output"]


def test_verdicts_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    ws, guard = Workspace(), Guard()
    agent = make_agent(ws, [step("read_file", path="a.py") for _ in range(8)], guard)
    with (
        caplog.at_level(logging.INFO, logger="crs.guard"),
        pytest.raises(ToolInputGuardrailTripwireTriggered),
    ):
        run(agent, guard)
    records = [r for r in caplog.records if hasattr(r, "action")]
    assert [r.action for r in records] == ["nudge", "block", "block", "stop"]
    assert all(r.tool == "read_file" and r.session == "default" for r in records)
    assert any("tripwire" in r.getMessage() for r in caplog.records)


def test_bad_arguments_raise_typed_errors() -> None:
    with pytest.raises(CRSError, match="agent"):
        guard_agent("agent", Guard())  # type: ignore[arg-type]
    with pytest.raises(CRSError, match="guard"):
        GuardToolGuardrails(None)  # type: ignore[arg-type]
    with pytest.raises(CRSError, match="session"):
        GuardRunHooks(Guard(), session="t-1")  # type: ignore[arg-type]


def test_a_result_the_guard_cannot_digest_is_recorded_by_its_type() -> None:
    class Opaque:
        __slots__ = ()

    @function_tool
    def fetch(url: str) -> Any:
        """Fetch a URL."""
        return Opaque()

    guard = Guard()
    model = ScriptedModel([step("fetch", url="http://x"), [assistant_message("done")]])
    agent = guard_agent(Agent(name="dev", model=model, tools=[fetch]), guard)
    result = run(agent, guard)
    assert result.final_output == "done"
    assert guard.status()["calls"] == 1
