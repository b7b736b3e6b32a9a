"""`crs.integrations.pydantic_ai` on real Pydantic AI runs driven by the framework's own test
double, `FunctionModel` (a scripted model: each step is the tool calls of one response, then
a text answer), no network. What the model was given is read from the messages it was sent."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from _loop_writes import writes_on_the_loop
from _workspace import BUILD_ERROR, FakeWorkspace
from pydantic import BaseModel
from pydantic_ai import (
    Agent,
    ApprovalRequired,
    DeferredToolRequests,
    DeferredToolResults,
    ModelRetry,
    RunContext,
    ToolFailed,
)
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.toolsets import FunctionToolset

from crs import Action, Call, CRSError, Guard, GuardStoppedError, Verdict, VerdictCode
from crs.integrations.pydantic_ai import GuardCapability, GuardedToolset, guard_toolset
from fresh_imports import modules_after

_ids = itertools.count(1)
Step = list[tuple[str, dict[str, Any]]]


def step(name: str, **args: Any) -> Step:
    return [(name, args)]


class Script:
    """A `FunctionModel` that answers with the tool calls of each step in turn, then with
    `answer`; `sent` is every request it was given (what the model saw)."""

    def __init__(self, steps: Sequence[Step], answer: str = "done") -> None:
        self.steps = list(steps)
        self.answer = answer
        self.sent: list[ModelRequest] = []

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        self.sent.append(last)
        if not self.steps:
            return ModelResponse(parts=[TextPart(self.answer)])
        calls = self.steps.pop(0)
        return ModelResponse(
            parts=[ToolCallPart(n, a, tool_call_id=f"call_{next(_ids)}") for n, a in calls]
        )

    async def stream(
        self, messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls]:
        response = self.respond(messages, info)
        for i, part in enumerate(response.parts):
            if isinstance(part, TextPart):
                yield part.content
            else:
                assert isinstance(part, ToolCallPart)
                yield {
                    i: DeltaToolCall(
                        name=part.tool_name,
                        json_args=part.args_as_json_str(),
                        tool_call_id=part.tool_call_id,
                    )
                }

    def model(self) -> FunctionModel:
        return FunctionModel(self.respond, stream_function=self.stream)

    def returns(self) -> list[ToolReturnPart]:
        """The tool results the model was given, in order."""
        return [p for r in self.sent for p in r.parts if isinstance(p, ToolReturnPart)]

    def outputs(self) -> list[str]:
        return [p.model_response_str(wrap_if_error=False) for p in self.returns()]


class Workspace(FakeWorkspace):
    """The shared fake workspace (`_workspace`) as a `FunctionToolset`, plus `deploy`, whose
    exception fails the run, and `lookup`, which answers structured data."""

    def toolset(self, **kw: Any) -> FunctionToolset[Any]:
        ws = self

        def deploy(env: str) -> str:
            """Deploy."""
            ws.runs["deploy"] += 1
            raise RuntimeError("deploy refused")

        def lookup(key: str) -> dict[str, Any]:
            """Look a key up."""
            ws.runs["lookup"] += 1
            return {"key": key, "value": 42}

        return FunctionToolset([*self.functions(), deploy, lookup], **kw)


def make_agent(
    ws: Workspace, script: Script, guard: Guard, *, toolset_kw: Any = None, **kw: Any
) -> Agent[Any, str]:
    return Agent(
        script.model(),
        toolsets=[ws.toolset(**(toolset_kw or {}))],
        capabilities=[GuardCapability(guard, **kw)],
    )


def run(agent: Agent[Any, Any], prompt: Any, **kw: Any) -> Any:
    """`agent.run(...)` in a loop of its own (`run_sync` leaves the loop it made open)."""
    return asyncio.run(agent.run(prompt, **kw))


LOOP = [step("read_file", path="a.py") for _ in range(8)]


def test_a_repeated_call_is_nudged_then_blocked_then_the_run_stops() -> None:
    ws, guard, script = Workspace(), Guard(), Script(LOOP)
    with pytest.raises(GuardStoppedError) as info:
        run(make_agent(ws, script, guard), "go")
    assert ws.runs["read_file"] == 3
    verdict = info.value.verdict
    assert (verdict.action, verdict.code) == (Action.STOP, VerdictCode.REPEATED_CALL)
    assert verdict.call is not None
    assert (verdict.call.tool, verdict.call.session_id) == ("read_file", "default")
    returns = script.returns()
    assert [p.outcome for p in returns] == ["success", "success", "success", "failed", "failed"]
    outs = script.outputs()
    assert outs[1] == "contents of a.py"
    assert outs[2].startswith("contents of a.py\n\n[crs] This call returned the same result")
    assert "will not change" in outs[3]  # refused: the guard's message, as a failed result
    assert "a.py" not in outs[3]  # it redirects, never echoes the arguments


def test_a_blocked_call_redirects_the_model_without_spending_its_retries() -> None:
    """A BLOCK is a `ToolFailed`: the model reads the guard's message as a failed result and
    the run goes on, with no retry budget spent (the tool's `max_retries` is 1 by default:
    a `ModelRetry` per refusal would have ended the run at the second)."""
    ws, guard = Workspace(), Guard()
    script = Script(
        [*[step("read_file", path="a.py") for _ in range(5)], step("read_file", path="b.py")]
    )
    result = run(make_agent(ws, script, guard), "go")
    assert result.output == "done"
    assert ws.runs["read_file"] == 4
    returns = script.returns()
    assert [p.outcome for p in returns[3:5]] == ["failed", "failed"]
    assert all(p.retry is None for p in returns)
    assert script.outputs()[5] == "contents of b.py"


def test_distinct_calls_pass_untouched() -> None:
    ws, guard = Workspace(), Guard()
    script = Script([step("read_file", path=f"src/m{i}.py") for i in range(10)])
    result = run(make_agent(ws, script, guard), "go")
    assert result.output == "done"
    assert ws.runs["read_file"] == 10
    assert script.outputs() == [f"contents of src/m{i}.py" for i in range(10)]
    assert {p.outcome for p in script.returns()} == {"success"}
    assert guard.status()["calls"] == 10


def test_parallel_calls_of_one_response_are_each_decided() -> None:
    ws, guard = Workspace(), Guard()
    twice = [("read_file", {"path": "a.py"}), ("read_file", {"path": "a.py"})]
    with pytest.raises(GuardStoppedError):
        run(make_agent(ws, Script([twice for _ in range(6)]), guard), "go")
    assert 3 <= ws.runs["read_file"] <= 4
    assert guard.status()["refusals_in_a_row"] >= 1


def test_the_tools_exception_is_recorded_as_a_failure_and_fails_the_run() -> None:
    ws, guard = Workspace(), Guard()
    with pytest.raises(RuntimeError, match="deploy refused"):
        run(make_agent(ws, Script([step("deploy", env="prod")]), guard), "go")
    assert ws.runs["deploy"] == 1
    (learned,) = guard.learned()
    assert (learned.tool, learned.session_id) == ("deploy", "default")
    assert "deploy refused" in learned.error


@pytest.mark.parametrize("error", [ModelRetry, ToolFailed])
def test_model_retry_and_tool_failed_from_the_tool_are_failures(error: type[Exception]) -> None:
    """Pydantic AI answers the model with them (a retry prompt, a failed result); the guard
    counts them as the call's error: the third identical build is refused before it runs,
    the fixed build passes and what failed is forgotten."""
    ws, guard = Workspace(build_error=error), Guard()
    script = Script(
        [
            step("build", target="all"),
            step("build", target="all"),
            step("build", target="all"),  # the identical retry after two failures: refused
            step("edit_file", path="src/main.c", text="int main(void) { return 0; }"),
            step("build", target="all"),
        ]
    )
    result = run(make_agent(ws, script, guard, toolset_kw={"max_retries": 3}), "go")
    assert result.output == "done"
    assert ws.runs["build"] == 3
    returns, outs = script.returns(), script.outputs()
    expected = "retried" if error is ModelRetry else "failed"
    assert [p.outcome for p in returns[:2]] == [expected, expected]
    assert outs[0].startswith(BUILD_ERROR)
    assert returns[2].outcome == "failed"  # the guard's refusal
    assert returns[2].retry is None
    assert "failed 2 times in a row" in outs[2]
    assert outs[4] == "build ok"
    assert guard.learned() == []  # the fixed build passed: what failed no longer holds


def test_a_nudge_reaches_the_model_beside_a_structured_result() -> None:
    ws, guard = Workspace(), Guard()
    script = Script([step("lookup", key="k") for _ in range(3)])
    result = run(make_agent(ws, script, guard), "go")
    assert result.output == "done"
    assert [p.content for p in script.returns()] == [{"key": "k", "value": 42}] * 3
    notes = [
        p.content
        for r in script.sent
        for p in r.parts
        if isinstance(p, UserPromptPart) and "[crs]" in str(p.content)
    ]
    assert len(notes) == 1
    assert "returned the same result" in str(notes[0])


class Query(BaseModel):
    table: str
    since: date


def test_validated_arguments_are_decided_as_the_json_the_model_sent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A tool taking a model and a date gets them validated; the guard decides the call on
    their JSON form (no stand-in), so the same query again is the same call."""
    runs: list[str] = []

    def count_rows(query: Query) -> str:
        """Count rows."""
        runs.append(query.table)
        return "0 rows"

    guard = Guard()
    args = {"query": {"table": "orders", "since": "2026-01-01"}}
    script = Script([[("count_rows", args)] for _ in range(8)])
    agent = Agent(
        script.model(),
        toolsets=[FunctionToolset([count_rows])],
        capabilities=[GuardCapability(guard)],
    )
    caplog.set_level(logging.INFO, logger="crs.guard")
    with pytest.raises(GuardStoppedError):
        run(agent, "go")
    assert runs == ["orders"] * 3
    assert not [r for r in caplog.records if getattr(r, "code", "") == "unguardable_arguments"]


def test_a_durable_guard_remembers_a_failure_for_the_next_run_in_a_new_guard(
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    ws = Workspace(build_error=ToolFailed)
    with Guard.open(project, "first", home=home) as guard:
        run(make_agent(ws, Script([step("build", target="all")]), guard), "build it")
        assert [f.tool for f in guard.learned()] == ["build"]
    with Guard.open(project, "second", home=home) as guard:
        script = Script([step("build", target="all")])
        result = run(make_agent(ws, script, guard), "build it")
        assert result.output == "done"
        assert [f.session_id for f in guard.learned()] == ["first"]
    assert ws.runs["build"] == 1  # the second run never re-ran the failed build
    (refused,) = script.returns()
    assert refused.outcome == "failed"
    assert "already failed" in script.outputs()[0]


def test_sessions_from_the_run_context_share_what_was_learned() -> None:
    ws, guard = Workspace(build_error=ToolFailed), Guard()

    def session(ctx: Any) -> str:
        return str(ctx.deps["thread"])

    for thread in ("t-1", "t-2"):
        agent = make_agent(ws, Script([step("build", target="all")]), guard, session=session)
        assert run(agent, "build", deps={"thread": thread}).output == "done"
    assert ws.runs["build"] == 1
    assert guard.with_session("t-1").status()["calls"] == 1
    assert guard.with_session("t-1").status()["turns"] == 1  # a run, a turn
    assert guard.with_session("t-2").status()["calls"] == 0  # refused, not recorded as run
    assert guard.status()["calls"] == 0  # the guard's own session saw nothing


def test_a_resolver_that_answers_no_str_is_named() -> None:
    ws, guard = Workspace(), Guard()
    agent = make_agent(ws, Script([]), guard, session=lambda ctx: 7)
    with pytest.raises(CRSError, match="session"):
        run(agent, "hi")


def test_a_capability_given_per_run_guards_an_agent_built_elsewhere() -> None:
    ws, guard, script = Workspace(), Guard(), Script(LOOP)
    agent = Agent(script.model(), toolsets=[ws.toolset()])
    with pytest.raises(GuardStoppedError):
        run(agent, "go", capabilities=[GuardCapability(guard)])
    assert ws.runs["read_file"] == 3


def test_guard_toolset_guards_that_toolset_only() -> None:
    ws, guard = Workspace(), Guard()
    other_runs: list[str] = []

    def note(text: str) -> str:
        """Take a note."""
        other_runs.append(text)
        return "noted"

    guarded = guard_toolset(ws.toolset(), guard)
    assert isinstance(guarded, GuardedToolset)
    assert guarded.guard is guard
    steps = [step("note", text="same") for _ in range(6)]
    script = Script([*steps, *LOOP])
    agent = Agent(script.model(), toolsets=[guarded, FunctionToolset([note])])
    with pytest.raises(GuardStoppedError):
        run(agent, "go")
    assert len(other_runs) == 6  # not guarded
    assert ws.runs["read_file"] == 3
    assert guard.status()["turns"] == 0  # turns and messages are the capability's


class StopOnResult(Guard):
    """A guard whose second recorded result says STOP (as after an ignored nudge)."""

    async def aafter_call(self, call: Call, result: Any = None, error: Any = None) -> Verdict:
        v = await super().aafter_call(call, result=result, error=error)
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


def test_a_stop_after_a_result_ends_the_run() -> None:
    ws, guard = Workspace(), StopOnResult()
    script = Script([step("read_file", path=f"f{i}.py") for i in range(4)])
    with pytest.raises(GuardStoppedError) as info:
        run(make_agent(ws, script, guard), "go")
    assert ws.runs["read_file"] == 2
    assert info.value.verdict.code is VerdictCode.NO_PROGRESS
    assert guard.status()["calls"] == 2


def test_a_streamed_run_is_guarded_and_its_answer_is_a_message() -> None:
    ws, guard = Workspace(), Guard()
    said: list[str] = []

    class Listening(Guard):
        async def aon_message(self, text: str) -> Verdict:
            said.append(text)
            return await super().aon_message(text)

    async def stream(agent: Agent[Any, str]) -> str:
        async with agent.run_stream("go") as run:
            return await run.get_output()

    with pytest.raises(GuardStoppedError):
        asyncio.run(stream(make_agent(ws, Script(LOOP), guard)))
    assert ws.runs["read_file"] == 3

    listening = Listening()
    script = Script([step("read_file", path="a.py")], answer="the file is fine")
    assert asyncio.run(stream(make_agent(ws, script, listening))) == "the file is fine"
    assert said == ["the file is fine"]  # the text answer, not the tool turn
    assert listening.status()["calls"] == 1


def test_many_runs_answered_in_text_are_not_a_monologue(caplog: pytest.LogCaptureFixture) -> None:
    """Each run is a user request (a guard turn with its prompt), however many answer in
    text: thirteen different questions answered alike, on one message history, are a chat."""
    guard = Guard()
    answer = "Sure, happy to help with that. Let me know what else you need from me today."
    agent = Agent(Script([], answer).model(), capabilities=[GuardCapability(guard)])
    caplog.set_level(logging.INFO, logger="crs.guard")
    history: list[ModelMessage] = []
    for i in range(13):
        result = run(agent, f"question {i}", message_history=history)
        assert result.output == answer
        history = result.all_messages()
    assert [r for r in caplog.records if getattr(r, "code", "") == "monologue"] == []
    assert guard.status()["turns"] == 13


def test_the_same_answer_to_runs_that_ask_nothing_new_is_a_monologue(
    caplog: pytest.LogCaptureFixture,
) -> None:
    guard = Guard()
    answer = "I am still working on your refund request right now, please wait a moment."
    agent = Agent(Script([], answer).model(), capabilities=[GuardCapability(guard)])
    caplog.set_level(logging.INFO, logger="crs.guard")
    history: list[ModelMessage] = []
    for text in ("Please refund order 5521", "any update?", ["hello? still there?"]):
        result = run(agent, text, message_history=history)
        assert result.output == answer
        history = result.all_messages()
    flagged = [r for r in caplog.records if getattr(r, "code", "") == "monologue"]
    assert len(flagged) == 1
    assert "user turns" in flagged[0].getMessage()


def test_a_durable_guard_never_writes_its_journal_on_the_runs_event_loop(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    ws = Workspace(build_error=ToolFailed)
    steps = [
        step("build", target="all"),  # fails: recorded as the call's error
        step("read_file", path="a.py"),
        *[step("read_file", path="b.py") for _ in range(4)],  # nudged, then refused
    ]
    with Guard.open(project, "main", home=tmp_path / "home") as guard:
        with writes_on_the_loop() as on_loop:
            for _ in range(2):  # two runs: two turns
                run(make_agent(ws, Script(steps), guard), "go")
            text_only = Agent(Script([], "ok").model(), capabilities=[GuardCapability(guard)])
            assert run(text_only, "hi").output == "ok"
        assert on_loop == []
        assert guard.status()["calls"] >= 6
        assert guard.status()["turns"] == 3


def test_verdicts_and_the_stop_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    ws, guard = Workspace(), Guard()
    with caplog.at_level(logging.INFO, logger="crs.guard"), pytest.raises(GuardStoppedError):
        run(make_agent(ws, Script(LOOP), guard), "go")
    records = [r for r in caplog.records if hasattr(r, "action")]
    assert [r.action for r in records] == ["nudge", "block", "block", "stop"]
    assert all(r.tool == "read_file" and r.session == "default" for r in records)
    assert any("pydantic-ai: ending the run" in r.getMessage() for r in caplog.records)


@dataclass
class Row:
    """Structured data Pydantic AI sends as JSON, whose text form fails."""

    n: int

    def __str__(self) -> str:
        raise ValueError("no text")

    __repr__ = __str__


def test_a_result_the_guard_cannot_digest_is_recorded_by_its_type(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The tool ran, so the run goes on and the model gets the result; the guard records
    it by its type."""

    def fetch(url: str) -> Row:
        """Fetch a URL."""
        return Row(1)

    guard = Guard()
    script = Script([step("fetch", url="http://x")])
    agent = Agent(
        script.model(), toolsets=[FunctionToolset([fetch])], capabilities=[GuardCapability(guard)]
    )
    caplog.set_level(logging.INFO, logger="crs.guard")
    assert run(agent, "go").output == "done"
    assert script.outputs() == ['{"n":1}']
    assert guard.status()["calls"] == 1
    assert [r for r in caplog.records if getattr(r, "code", "") == "undigestible_result"]


def test_bad_arguments_raise_typed_errors_naming_them() -> None:
    ws = Workspace()
    with pytest.raises(CRSError, match=r"^toolset"):
        guard_toolset("tools", Guard())  # type: ignore[arg-type]
    with pytest.raises(CRSError, match=r"^guard"):
        guard_toolset(ws.toolset(), None)  # type: ignore[arg-type]
    with pytest.raises(CRSError, match=r"^session"):
        guard_toolset(ws.toolset(), Guard(), session="t-1")  # type: ignore[arg-type]
    with pytest.raises(CRSError, match=r"^guard"):
        GuardCapability("guard")  # type: ignore[arg-type]
    with pytest.raises(CRSError, match=r"^session"):
        GuardCapability(Guard(), session=3)  # type: ignore[arg-type]


def test_import_crs_does_not_import_pydantic_ai() -> None:
    assert not {
        m
        for m in modules_after("import crs, crs.guard, crs.integrations")
        if m.startswith("pydantic_ai")
    }
    assert "pydantic_ai" in modules_after("import crs.integrations.pydantic_ai")


def test_the_tools_of_an_mcp_server_toolset_are_guarded_too() -> None:
    """An MCP server is a toolset of the agent (`MCPToolset`, here over an in-process
    fastmcp server): its calls are decided as any, and a server tool's error (a `ModelRetry`
    by default) is a failure the guard learns."""
    # inside: only this test starts an MCP server
    from fastmcp import FastMCP
    from fastmcp.exceptions import ToolError
    from pydantic_ai.mcp import MCPToolset

    server = FastMCP("jobs")
    polled: list[str] = []

    @server.tool
    def job_status(job: str) -> str:
        """A CI job's status."""
        polled.append(job)
        return "queued"

    @server.tool
    def cancel(job: str) -> str:
        """Cancel a job."""
        raise ToolError(f"job {job} is not running")

    guard = Guard()
    script = Script([step("cancel", job="build-7"), *[step("job_status", job="build-7")] * 8])
    agent = Agent(
        script.model(), toolsets=[MCPToolset(server)], capabilities=[GuardCapability(guard)]
    )
    with pytest.raises(GuardStoppedError) as info:
        run(agent, "watch ci")
    assert info.value.verdict.call is not None
    assert info.value.verdict.call.tool == "job_status"
    assert len(polled) == 3
    returns, outs = script.returns(), script.outputs()
    assert returns[0].outcome == "retried"
    assert "is not running" in outs[0]
    assert "[crs]" in outs[3]  # nudged after the third identical answer
    assert returns[4].outcome == "failed"  # then refused before it ran
    assert [f.tool for f in guard.learned()] == ["cancel"]


NAME = b"report-\xff.txt".decode("utf-8", "surrogateescape")  # 'report-\udcff.txt'


def test_a_tool_error_with_a_lone_surrogate_is_recorded_and_the_tools_own_is_raised() -> None:
    """A file name that is not UTF-8 in the tool's exception: recorded (as valid text), and the
    tool's exception is what the run fails with, never the guard's. (Such text in a result
    or a `ToolFailed` the model should read fails in Pydantic AI itself, guard or none:
    it cannot serialize it for the model.)"""
    runs: list[str] = []

    def publish(path: str) -> str:
        """Publish a file."""
        runs.append(path)
        raise RuntimeError(f"cannot open {NAME}")

    guard = Guard()
    script = Script([step("publish", path="out")])
    agent = Agent(
        script.model(), toolsets=[FunctionToolset([publish])], capabilities=[GuardCapability(guard)]
    )
    with pytest.raises(RuntimeError, match="cannot open"):
        run(agent, "go")
    assert len(runs) == 1
    (learned,) = guard.learned()
    assert learned.tool == "publish"
    assert "cannot open report-" in learned.error
    learned.error.encode()  # stored as valid text


def test_arguments_the_guard_cannot_take_do_not_end_the_run() -> None:
    """The model's arguments are the model's: a NaN runs as without the guard, and the same
    call again is still a repeat."""
    runs: list[float] = []

    def scale(factor: float) -> str:
        """Scale the image."""
        runs.append(factor)
        return "scaled"

    guard = Guard()
    script = Script([step("scale", factor=float("nan")) for _ in range(3)])
    agent = Agent(
        script.model(), toolsets=[FunctionToolset([scale])], capabilities=[GuardCapability(guard)]
    )
    assert run(agent, "go").output == "done"
    assert len(runs) == 3
    assert guard.status()["loop_code"] == "repeated_call"
    assert script.outputs()[2].startswith("scaled\n\n[crs] ")


@pytest.mark.parametrize("how", ["toolset", "raised"])
def test_a_call_waiting_for_approval_is_decided_when_it_runs(how: str) -> None:
    """A call that needs approval (the toolset's `requires_approval`, or the tool raising
    `ApprovalRequired` until approved) does not run in the first run, which ends with
    `DeferredToolRequests`: nothing is recorded. The run resumed with the approval runs it
    once, and the guard records it then."""
    runs: list[str] = []

    def deploy(ctx: RunContext[None], env: str) -> str:
        """Deploy."""
        if how == "raised" and not ctx.tool_call_approved:
            raise ApprovalRequired()
        runs.append(env)
        return "deployed"

    guard = Guard()
    script = Script([step("deploy", env="prod")])
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        script.model(),
        toolsets=[FunctionToolset([deploy], requires_approval=how == "toolset")],
        capabilities=[GuardCapability(guard)],
        output_type=[str, DeferredToolRequests],
    )
    first = run(agent, "deploy")
    assert isinstance(first.output, DeferredToolRequests)
    (pending,) = first.output.approvals
    assert runs == []
    assert guard.status()["calls"] == 0
    assert guard.learned() == []
    approved = DeferredToolResults(approvals={pending.tool_call_id: True})
    second = run(agent, None, message_history=first.all_messages(), deferred_tool_results=approved)
    assert second.output == "done"
    assert runs == ["prod"]
    assert guard.status()["calls"] == 1
    assert guard.status()["turns"] == 2  # the resumed run is a turn, without a text
