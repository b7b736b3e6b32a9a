"""`crs.integrations.langchain.GuardMiddleware` driving real `create_agent` graphs with
langchain-core's `GenericFakeChatModel` (scripted tool calls), no network."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from _lc_fakes import Workspace, agent, call, calls, tool_messages
from langchain_core.messages import AIMessage

from crs import Action, Call, CRSError, Guard, GuardStoppedError, Verdict, VerdictCode
from crs.integrations.langchain import GuardMiddleware

THREAD = {"configurable": {"thread_id": "t-1"}}
LOOP = [call("read_file", path="a.py") for _ in range(8)]


def thread(tid: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": tid}}


def run(turns: list[Any], ws: Workspace, mw: GuardMiddleware, config: Any = THREAD) -> Any:
    return agent(turns, ws, mw).invoke({"messages": [("user", "go")]}, config)["messages"]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_loop_is_nudged_then_blocked_then_the_run_ends(mode: str) -> None:
    ws = Workspace()
    mw = GuardMiddleware(Guard(), exit_behavior="end")
    graph = agent(LOOP, ws, mw)
    inp = {"messages": [("user", "go")]}
    if mode == "sync":
        messages = graph.invoke(inp, THREAD)["messages"]
    else:
        messages = asyncio.run(graph.ainvoke(inp, THREAD))["messages"]
    tms = tool_messages(messages)
    assert ws.runs["read_file"] == 3  # the loop ran three times, then never again
    assert [m.status for m in tms] == ["success", "success", "success", "error", "error", "error"]
    assert "[crs]" not in str(tms[1].content)
    assert "[crs] This call returned the same result" in str(tms[2].content)  # the nudge
    assert "will not change" in str(tms[3].content)  # the block: a message for the model
    assert "a.py" not in str(tms[3].content)  # it redirects, never echoes the arguments
    final = messages[-1]
    assert isinstance(final, AIMessage)
    assert not final.tool_calls
    assert str(final.content).startswith("Stopped by crs (repeated_call)")
    assert mw.guard_for("t-1").status()["calls"] == 3  # the thread is the session


def test_continue_answers_the_refused_calls_and_the_model_goes_on() -> None:
    ws = Workspace()
    mw = GuardMiddleware(Guard(), exit_behavior="continue")
    messages = run([*LOOP, call("read_file", path="b.py")], ws, mw)
    tms = tool_messages(messages)
    assert ws.runs["read_file"] == 4  # 3 of the loop, then b.py
    assert [m.status for m in tms].count("error") == 5  # every refused call got its answer
    assert tms[-1].content == "contents of b.py"
    assert messages[-1].content == "done"  # the model ended the run itself


def test_error_raises_the_stop_with_its_verdict() -> None:
    ws = Workspace()
    mw = GuardMiddleware(Guard(), exit_behavior="error")
    with pytest.raises(GuardStoppedError) as info:
        run(LOOP, ws, mw)
    assert info.value.verdict.code == "repeated_call"
    assert info.value.verdict.call is not None
    assert info.value.verdict.call.session_id == "t-1"
    assert ws.runs["read_file"] == 3


def test_exit_on_block_ends_at_the_first_block() -> None:
    ws = Workspace()
    mw = GuardMiddleware(Guard(), exit_behavior="end", exit_on="block")
    messages = run(LOOP, ws, mw)
    assert [m.status for m in tool_messages(messages)].count("error") == 1
    assert str(messages[-1].content).startswith("Stopped by crs")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_failing_build_refused_on_identical_retry_fixed_call_runs(mode: str) -> None:
    ws = Workspace()
    mw = GuardMiddleware(Guard(), exit_behavior="end")
    turns = [
        call("build", target="all"),  # fails
        call("build", target="all"),  # a second try in its own session is legitimate: fails
        call("build", target="all"),  # the identical retry: refused, not run
        call("edit_file", path="src/main.c", text="int main(void) { return 0; }"),
        call("build", target="all"),  # the workspace changed: runs, passes
    ]
    graph = agent(turns, ws, mw)
    inp = {"messages": [("user", "build it")]}
    out = graph.invoke(inp, THREAD) if mode == "sync" else asyncio.run(graph.ainvoke(inp, THREAD))
    tms = tool_messages(out["messages"])
    assert ws.runs["build"] == 3
    assert [m.status for m in tms[:3]] == ["error"] * 3
    assert "expected ';'" in str(tms[1].content)
    assert "failed 2 times in a row" in str(tms[2].content)  # the guard's message, not the tool's
    assert tms[4].content == "build ok"
    assert out["messages"][-1].content == "done"


def test_reading_ten_different_files_is_never_blocked() -> None:
    ws = Workspace()
    mw = GuardMiddleware(Guard(), exit_behavior="end", exit_on="block")
    messages = run([call("read_file", path=f"src/m{i}.py") for i in range(10)], ws, mw)
    tms = tool_messages(messages)
    assert ws.runs["read_file"] == 10
    assert all(m.status == "success" and "[crs]" not in str(m.content) for m in tms)
    assert messages[-1].content == "done"


def test_parallel_calls_are_decided_one_by_one() -> None:
    ws = Workspace()
    mw = GuardMiddleware(Guard(), exit_behavior="continue")
    turns = [
        call("build", target="all"),
        call("build", target="all"),
        calls(("build", {"target": "all"}), ("read_file", {"path": "src/main.c"})),
    ]
    tms = tool_messages(run(turns, ws, mw))
    assert ws.runs == {"build": 2, "read_file": 1}
    by_name = {m.name: m for m in tms[2:]}
    assert by_name["build"].status == "error"
    assert by_name["read_file"].content == "contents of src/main.c"


def test_end_answers_every_pending_call_of_the_turn() -> None:
    ws = Workspace()
    mw = GuardMiddleware(Guard(), exit_behavior="end", exit_on="block")
    turns = [
        call("build", target="all"),
        call("build", target="all"),
        calls(("read_file", {"path": "x.py"}), ("build", {"target": "all"})),
    ]
    messages = run(turns, ws, mw)
    tms = tool_messages(messages)
    assert ws.runs == {"build": 2}  # nothing of the ended turn ran
    assert {m.tool_call_id for m in tms[2:]} == {tc["id"] for tc in turns[2].tool_calls}
    assert str(messages[-1].content).startswith("Stopped by crs (error_loop)")


def test_threads_are_sessions_and_share_what_was_learned() -> None:
    ws = Workspace()
    guard = Guard()
    mw = GuardMiddleware(guard, exit_behavior="continue")
    run([call("build", target="all")], ws, mw, thread("t-1"))
    messages = run([call("build", target="all")], ws, mw, thread("t-2"))
    assert ws.runs["build"] == 1  # the second thread was refused what the first learned
    assert tool_messages(messages)[0].status == "error"
    assert mw.guard_for("t-1").session_id == "t-1"
    assert mw.guard_for("t-2").status()["calls"] == 0
    assert len(guard.learned()) == 1


def test_second_session_on_the_durable_project_sees_what_the_first_learned(
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    (project / "main.c").write_text("int main(void) { return 0 }\n")
    ws = Workspace()
    with Guard.open(project, "first", home=home) as guard:
        run([call("build", target="all")], ws, GuardMiddleware(guard), thread("first"))
        assert len(guard.learned()) == 1
    with Guard.open(project, "second", home=home) as guard:
        messages = run([call("build", target="all")], ws, GuardMiddleware(guard), thread("t-9"))
        assert [f.session_id for f in guard.learned()] == ["first"]
    assert ws.runs["build"] == 1
    refused = tool_messages(messages)[0]
    assert refused.status == "error"
    assert "failed" in str(refused.content).lower()


def test_refusals_are_logged_with_structured_fields(caplog: pytest.LogCaptureFixture) -> None:
    ws = Workspace()
    with caplog.at_level(logging.INFO, logger="crs.guard"):
        run(LOOP, ws, GuardMiddleware(Guard(), exit_behavior="end"))
    records = [r for r in caplog.records if r.name == "crs.guard" and hasattr(r, "action")]
    assert [r.action for r in records] == ["nudge", "block", "block", "stop"]
    assert {(r.code, r.tool, r.session) for r in records} == {("repeated_call", "read_file", "t-1")}
    assert [r.step for r in records][:2] == [3, 4]
    assert any("ending the run" in r.getMessage() for r in caplog.records)


def test_a_tool_node_call_not_decided_by_after_model_is_still_guarded() -> None:
    ws = Workspace()
    guard = Guard()
    mw = GuardMiddleware(guard)
    read = ws.tools[0]
    for _ in range(3):
        v = guard.before_call("read_file", {"path": "a.py"})
        guard.after_call(v.call, result=read.invoke({"path": "a.py"}))

    request = SimpleNamespace(
        tool_call={"name": "read_file", "args": {"path": "a.py"}, "id": "x-1"}, runtime=None
    )
    msg = mw.wrap_tool_call(request, lambda req: pytest.fail("a refused call ran"))  # type: ignore[arg-type]
    assert msg.status == "error"


def test_bad_arguments_raise_typed_errors() -> None:
    with pytest.raises(CRSError, match="guard"):
        GuardMiddleware("not a guard")  # type: ignore[arg-type]
    with pytest.raises(CRSError, match="exit_behavior"):
        GuardMiddleware(Guard(), exit_behavior="stop")  # type: ignore[arg-type]
    with pytest.raises(CRSError, match="exit_on"):
        GuardMiddleware(Guard(), exit_on="nudge")  # type: ignore[arg-type]


def test_the_middleware_adds_one_graph_node() -> None:
    for behavior in ("continue", "error", "end"):
        mw = GuardMiddleware(Guard(), exit_behavior=behavior)  # type: ignore[arg-type]
        nodes = set(agent([], Workspace(), mw).get_graph().nodes)
        assert {n for n in nodes if n.startswith("GuardMiddleware")} == {
            "GuardMiddleware.after_model"
        }


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


READS = [call("read_file", path=f"f{i}.py") for i in range(4)]


def test_a_stop_after_a_result_ends_the_run_at_the_next_model_turn() -> None:
    ws = Workspace()
    messages = run(
        READS, ws, GuardMiddleware(StopOnResult(), exit_behavior="end"), thread("default")
    )
    assert ws.runs["read_file"] == 2  # the third turn's call did not run
    tms = tool_messages(messages)
    assert "[crs] Stop here and report to the user." in str(tms[1].content)
    assert (tms[2].status, tms[2].content) == ("error", "Not run: the guard ended the run.")
    assert messages[-1].content == "Stopped by crs (no_progress): no progress: stop"
    assert len([m for m in messages if isinstance(m, AIMessage)]) == 4  # 3 model turns + stop


def test_after_a_stop_a_text_answer_ends_the_run_by_itself() -> None:
    ws = Workspace()
    turns = [*READS[:2], "I was stopped; here is what I found."]
    messages = run(
        turns, ws, GuardMiddleware(StopOnResult(), exit_behavior="end"), thread("default")
    )
    assert ws.runs["read_file"] == 2
    assert messages[-1].content == "I was stopped; here is what I found."


def test_a_stop_after_a_result_raises_or_continues() -> None:
    ws = Workspace()
    with pytest.raises(GuardStoppedError):
        run(READS, ws, GuardMiddleware(StopOnResult(), exit_behavior="error"), thread("default"))
    assert ws.runs["read_file"] == 2
    messages = run(READS, ws, GuardMiddleware(StopOnResult()), thread("default"))
    assert ws.runs["read_file"] == 6  # continue: the notes reach the model, the run goes on
    assert messages[-1].content == "done"
