"""Red team, tenth pass: the frameworks' runs when the guard's journal cannot take a record
after the tool ran (a full disk: RLIMIT_FSIZE, what a full disk looks like to one process,
`EFBIG`), through the real LangChain, Agents SDK and Pydantic AI packages and their own test
doubles, each in a real process with a durable guard.

The tool had run; the guard's `JournalFullError` ended the run and its value never reached
the model (the MCP middleware and the Claude Code hook fail open there). Now the call goes
on unrecorded with a warning (`unrecorded_call`), as do a user turn and an agent message
the journal cannot take; the tool's own exception stays the run's. What was recorded before
is kept: the project reopens with it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_SCRIPT = textwrap.dedent(
    """
    import asyncio, glob, json, logging, os, resource, signal, sys
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # (EFBIG, not death by signal)
    from crs.guard import Guard

    framework, project, home = sys.argv[1], sys.argv[2], sys.argv[3]
    codes = []

    class Codes(logging.Handler):
        def emit(self, record):
            codes.append(getattr(record, "code", ""))

    logging.getLogger("crs.guard").addHandler(Codes())
    g = Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    v = g.before_call("setup", {})
    g.after_call(v.call, result="ready")  # recorded before the limit
    size = max(os.path.getsize(p) for p in glob.glob(os.path.join(home, "*", "journal", "*.wal")))
    resource.setrlimit(resource.RLIMIT_FSIZE, (size + 2000, size + 2000))
    ran = []
    N = 12

    def read(path: str) -> str:
        "Read a file."
        ran.append(path)
        if path == "boom.py":
            raise RuntimeError("the tool's own error")
        return "content of " + path + " " + "z" * 300

    paths = [f"f{i}.py" for i in range(N)] + (["boom.py"] if len(sys.argv) > 4 else [])
    outcome = "ok"
    try:
        if framework == "langchain":
            from langchain.agents import create_agent
            from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
            from langchain_core.messages import AIMessage
            from langchain_core.tools import tool
            from langgraph.checkpoint.memory import InMemorySaver
            from crs.integrations.langchain import GuardMiddleware

            class Fake(GenericFakeChatModel):
                def bind_tools(self, tools, **kw):
                    return self

            turns = [AIMessage(content="", tool_calls=[{"name": "read", "args": {"path": p},
                                                        "id": f"c{i}"}])
                     for i, p in enumerate(paths)]
            agent = create_agent(Fake(messages=iter([*turns, "done"])), [tool(read)],
                                 middleware=[GuardMiddleware(g)], checkpointer=InMemorySaver())
            agent.invoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": "s"}})
        elif framework == "openai_agents":
            from agents import Agent, RunConfig, Runner, function_tool
            from agents.testing import ScriptedModel, assistant_message, function_call
            from crs.integrations.openai_agents import GuardRunHooks, guard_agent

            steps = [[function_call("read", {"path": p}, call_id=f"call_{i}")]
                     for i, p in enumerate(paths)]
            agent = guard_agent(Agent(name="dev", model=ScriptedModel(
                [*steps, [assistant_message("done")]]), tools=[function_tool(read)]), g)
            asyncio.run(Runner.run(agent, "go", hooks=GuardRunHooks(g), max_turns=40,
                                   run_config=RunConfig(tracing_disabled=True)))
        else:
            from pydantic_ai import Agent
            from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
            from pydantic_ai.models.function import FunctionModel
            from pydantic_ai.toolsets import FunctionToolset
            from crs.integrations.pydantic_ai import GuardCapability

            todo = list(paths)

            def respond(messages, info):
                if not todo:
                    return ModelResponse(parts=[TextPart("done")])
                return ModelResponse(parts=[ToolCallPart("read", {"path": todo.pop(0)})])

            agent = Agent(FunctionModel(respond), toolsets=[FunctionToolset([read])],
                          capabilities=[GuardCapability(g)])
            asyncio.run(agent.run("go"))
    except Exception as exc:
        outcome = type(exc).__name__ + ": " + str(exc)[:200]
    print(json.dumps({"ran": len(ran), "outcome": outcome, "codes": codes}))
    """
)


def _run(tmp_path: Path, framework: str, *extra: str) -> dict:
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir(exist_ok=True)
    script = tmp_path / "run.py"
    script.write_text(_SCRIPT)
    p = subprocess.run(
        [sys.executable, str(script), framework, str(project), str(home), *extra],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python")},
        timeout=60,
        check=False,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    out: dict = json.loads(p.stdout.strip().splitlines()[-1])
    return out


FRAMEWORKS = ["langchain", "openai_agents", "pydantic_ai"]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_run_goes_on_when_the_journal_cannot_take_a_call_the_tool_made(
    tmp_path: Path, framework: str
) -> None:
    got = _run(tmp_path, framework)
    assert got["outcome"] == "ok", got
    assert got["ran"] == 12  # every call ran, and its value reached the model
    assert "unrecorded_call" in got["codes"]  # (not vacuous: the journal was full)
    from crs.guard import Guard

    with Guard.open(tmp_path / "repo", "s", home=tmp_path / "home") as g:
        assert g.status()["tool_calls"].get("setup") == 1  # what was recorded is kept


@pytest.mark.parametrize("framework", ["openai_agents", "pydantic_ai"])
def test_the_tools_own_exception_stays_the_runs_on_a_full_journal(
    tmp_path: Path, framework: str
) -> None:
    """A tool that raises on a full journal: the run sees the tool's exception (Pydantic AI
    re-raises it), or the model its message (the Agents SDK's failure function), never the
    guard's `JournalFullError` in its place."""
    got = _run(tmp_path, framework, "boom")
    assert "JournalFullError" not in got["outcome"], got
    assert got["ran"] == 13
    if framework == "pydantic_ai":
        assert got["outcome"].startswith("RuntimeError: the tool's own error"), got
    else:
        assert got["outcome"] == "ok", got


_DECORATED = textwrap.dedent(
    """
    import asyncio, glob, json, os, resource, signal, sys
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    from crs.guard import Guard

    project, home = sys.argv[1], sys.argv[2]
    g = Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    with g.guarded("setup", {}) as out:
        out.result = "ready"
    size = max(os.path.getsize(p) for p in glob.glob(os.path.join(home, "*", "journal", "*.wal")))
    resource.setrlimit(resource.RLIMIT_FSIZE, (size + 2000, size + 2000))

    @g.tool
    def read(path: str) -> str:
        if path == "boom.py":
            raise RuntimeError("the tool's own error")
        return "content of " + path + " " + "z" * 300

    @g.tool
    async def aread(path: str) -> str:
        return "async content of " + path + " " + "z" * 300

    got = {"values": 0, "errors": []}
    for i in range(12):
        got["values"] += read(f"f{i}.py").startswith("content of")
        got["values"] += asyncio.run(aread(f"a{i}.py")).startswith("async content")
        with g.guarded("write", {"path": f"w{i}.py"}) as out:
            out.result = "written " + "z" * 300
        got["values"] += 1
    for f in (lambda: read("boom.py"),):
        try:
            f()
        except Exception as exc:
            got["errors"].append(type(exc).__name__ + ": " + str(exc)[:80])
    print(json.dumps(got))
    """
)


def test_the_guards_own_decorator_and_context_manager_fail_open_too(tmp_path: Path) -> None:
    """`@guard.tool` (sync and async) and `guard.guarded`: the same, for a program that
    guards its own Python tools: the function's value (or its own exception) is the
    caller's whatever the journal could take."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    p = subprocess.run(
        [sys.executable, "-c", _DECORATED, str(project), str(home)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python")},
        timeout=60,
        check=False,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got == {"values": 36, "errors": ["RuntimeError: the tool's own error"]}
