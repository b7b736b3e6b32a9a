"""OpenAI Agents SDK: guard every function tool of an `Agent` (`pip install
'crs-agent[openai-agents]'`).

```python
from agents import Agent, Runner
from crs import Guard
from crs.integrations.openai_agents import GuardRunHooks, guard_agent

guard = Guard.open("/path/to/repo", session="default")
agent = guard_agent(Agent(name="dev", tools=[run_tests, read_file]), guard)
result = await Runner.run(agent, "fix the build", hooks=GuardRunHooks(guard))
```

`guard_agent` adds to every `FunctionTool` of the agent and to its MCP servers (in place; the
SDK builds an MCP server's tools at run time, with the server's guardrails) a tool input
guardrail (`Guard.before_call`), a tool output guardrail (`Guard.after_call`) and a
`failure_error_function` that records the tool's exception as a failure before the model gets
the error message. A BLOCK rejects the call: the model gets the guard's message instead of a
result (`reject_content`); a STOP, before or after a call, raises the SDK's own tripwire
(`ToolInputGuardrailTripwireTriggered` / `ToolOutputGuardrailTripwireTriggered`), which ends the
run; the verdict is its `output.output_info`. A NUDGE is appended to the tool's output when
it is text (an MCP tool's text items become one text). An MCP tool's `isError` result reaches
the guardrail as content, not as an exception: it is recorded as a result (the same error
again and again is still a loop), not as a failure the guard learns.
`GuardRunHooks` starts a new turn per run (`new_turn` with the text of the run's last user input
item) and checks text-only model turns (`on_message`).

Sessions: by default every run is `guard`'s session; pass `session=lambda ctx: ...` (a
`RunContextWrapper` to a session id, e.g. `ctx.context.thread_id`) to map runs to sessions
(`guard.with_session(id)` each).
"""

from __future__ import annotations

import json
import logging
import threading
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from agents import (
    Agent,
    FunctionTool,
    ModelResponse,
    RunContextWrapper,
    RunHooks,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
    ToolOutputGuardrail,
    ToolOutputGuardrailData,
)
from agents.tool import (
    resolve_function_tool_failure_error_function,
    set_function_tool_failure_error_function,
)
from agents.tool_context import ToolContext

from crs._check import brief
from crs._errors import InvalidArgumentError
from crs.guard import Guard
from crs.guard._verdict import Action, Verdict
from crs.integrations._common import (
    SessionGuards,
    abefore_call,
    anew_turn,
    aquietly,
    aran,
    arecord_result,
    call_for,
    log_exit,
)

__all__ = ["GuardRunHooks", "GuardToolGuardrails", "guard_agent"]

log = logging.getLogger("crs.guard")

SessionResolver = Callable[[RunContextWrapper[Any]], "str | None"]
_MAX_PENDING = 4096
_MARK = "crs_guard"


def _args(raw: str) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {"input": raw}
    return value if isinstance(value, dict) else {"input": value}


def _info(v: Verdict) -> dict[str, Any]:
    return v.to_dict()


def _log_exit(v: Verdict, what: str) -> None:
    log_exit("openai-agents", what, v)


def _plain_text(output: Any) -> str | None:
    """A tool output that is only text, as one str (an MCP tool's is a list of text items);
    None for anything else (images, files, structured data), which is left as it is."""
    if isinstance(output, str):
        return output
    if isinstance(output, dict):  # one item alone
        output = [output]
    if isinstance(output, list) and output:
        texts = []
        for item in output:
            kind = item.get("type") if isinstance(item, dict) else getattr(item, "type", None)
            text = item.get("text") if isinstance(item, dict) else getattr(item, "text", None)
            if kind != "text" or not isinstance(text, str):
                return None
            texts.append(text)
        return "\n".join(texts)
    return None


class GuardToolGuardrails:
    """The tool guardrails and failure function of one guard (what `guard_agent` installs).

    Use them on single tools: `function_tool(fn, tool_input_guardrails=[g.input],
    tool_output_guardrails=[g.output], failure_error_function=g.failure_error_function())`.
    """

    def __init__(self, guard: Guard, *, session: SessionResolver | None = None) -> None:
        if not isinstance(guard, Guard):
            raise InvalidArgumentError(f"guard: must be a crs.Guard, got {brief(guard)}")
        if session is not None and not callable(session):
            raise InvalidArgumentError(f"session: must be a callable or None, got {brief(session)}")
        self.sessions = SessionGuards(guard, session)
        self._lock = threading.Lock()
        # (session, call id) -> the before_call verdict, or ("failed", after verdict)
        self._pending: OrderedDict[tuple[str, str], tuple[str, Verdict]] = OrderedDict()
        self.input: ToolInputGuardrail[Any] = ToolInputGuardrail(
            guardrail_function=self._check_input, name="crs_guard_input"
        )
        self.output: ToolOutputGuardrail[Any] = ToolOutputGuardrail(
            guardrail_function=self._check_output, name="crs_guard_output"
        )

    @property
    def guard(self) -> Guard:
        return self.sessions.guard

    def _put(self, key: tuple[str, str], value: tuple[str, Verdict]) -> None:
        with self._lock:
            self._pending[key] = value
            while len(self._pending) > _MAX_PENDING:
                self._pending.popitem(last=False)

    def _take(self, key: tuple[str, str]) -> tuple[str, Verdict] | None:
        with self._lock:
            return self._pending.pop(key, None)

    @staticmethod
    def _tool_name(ctx: ToolContext[Any]) -> str:
        return ctx.qualified_tool_name or ctx.tool_name

    async def _check_input(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        guard = self.sessions.for_context(ctx)
        v = await abefore_call(
            guard, self._tool_name(ctx), _args(ctx.tool_arguments), ctx.tool_call_id
        )
        if v.allowed:
            self._put((guard.session_id, ctx.tool_call_id), ("ran", v))
            return ToolGuardrailFunctionOutput.allow(output_info=_info(v))
        if v.action is Action.STOP:
            _log_exit(v, "tripwire")
            return ToolGuardrailFunctionOutput.raise_exception(output_info=_info(v))
        return ToolGuardrailFunctionOutput.reject_content(v.message, output_info=_info(v))

    async def _check_output(self, data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        guard = self.sessions.for_context(ctx)
        entry = self._take((guard.session_id, ctx.tool_call_id))
        if entry is not None and entry[0] == "failed":
            after = entry[1]  # recorded by the failure function; the model has its message
            if after.action is Action.STOP:
                _log_exit(after, "tripwire")
                return ToolGuardrailFunctionOutput.raise_exception(output_info=_info(after))
            return ToolGuardrailFunctionOutput.allow(output_info=_info(after))
        if entry is None:  # the input guardrail did not run (e.g. resumed after approval)
            before = None
            call = call_for(
                guard, self._tool_name(ctx), _args(ctx.tool_arguments), ctx.tool_call_id
            )
        else:
            before = entry[1]
            assert before.call is not None
            call = before.call
        after = await aran(call, lambda: arecord_result(guard, call, data.output, None))
        if after.action is Action.STOP:
            _log_exit(after, "tripwire")
            return ToolGuardrailFunctionOutput.raise_exception(output_info=_info(after))
        notes = [
            v.message
            for v in (before, after)
            if v is not None and v.action is not Action.ALLOW and v.message
        ]
        text = _plain_text(data.output)
        if notes and text is not None:
            # The SDK can replace an output only through a "rejection": the model gets the
            # tool's output followed by the guard's note.
            note = " ".join(dict.fromkeys(notes))
            return ToolGuardrailFunctionOutput.reject_content(
                f"{text}\n\n[crs] {note}", output_info=_info(after)
            )
        return ToolGuardrailFunctionOutput.allow(output_info=_info(after))

    def failure_error_function(
        self, fallback: Callable[[RunContextWrapper[Any], Exception], Any] | None = None
    ) -> Callable[[RunContextWrapper[Any], Exception], Any]:
        """A `failure_error_function` that records the tool's exception with the guard (a
        failure it may learn), then answers the model as `fallback` does (the SDK's default
        message if None), with the guard's note appended on a NUDGE or STOP."""
        # inside: the Agents SDK is imported where it is used (the optional extra)
        from agents import default_tool_error_function

        message_for = fallback or default_tool_error_function

        async def crs_failure_error_function(ctx: RunContextWrapper[Any], error: Exception) -> str:
            after = await self._record_failure(ctx, error)
            text = message_for(ctx, error)
            if hasattr(text, "__await__"):
                text = await text
            if after is not None and after.action is not Action.ALLOW and after.message:
                return f"{text}\n\n[crs] {after.message}"
            return str(text)

        return crs_failure_error_function

    def _raising_failure_function(self) -> Callable[[RunContextWrapper[Any], Exception], Any]:
        """For a tool whose errors fail the run: record, then re-raise."""

        async def crs_failure_reraise(ctx: RunContextWrapper[Any], error: Exception) -> str:
            await self._record_failure(ctx, error)
            raise error

        return crs_failure_reraise

    async def _record_failure(
        self, ctx: RunContextWrapper[Any], error: Exception
    ) -> Verdict | None:
        if not isinstance(ctx, ToolContext):
            return None
        guard = self.sessions.for_context(ctx)
        key = (guard.session_id, ctx.tool_call_id)
        entry = self._take(key)
        if entry is not None and entry[0] == "ran":
            call = entry[1].call
            assert call is not None
        else:
            call = call_for(
                guard, self._tool_name(ctx), _args(ctx.tool_arguments), ctx.tool_call_id
            )
        after = await aran(call, lambda: guard.aafter_call(call, error=error))
        self._put(key, ("failed", after))
        return after


class GuardRunHooks(RunHooks[Any]):
    """Run hooks: a new guard turn when a run starts, and `on_message` for a model turn
    without tool calls. Pass to `Runner.run(..., hooks=GuardRunHooks(guard))`."""

    def __init__(self, guard: Guard, *, session: SessionResolver | None = None) -> None:
        if not isinstance(guard, Guard):
            raise InvalidArgumentError(f"guard: must be a crs.Guard, got {brief(guard)}")
        if session is not None and not callable(session):
            raise InvalidArgumentError(f"session: must be a callable or None, got {brief(session)}")
        self.sessions = SessionGuards(guard, session)
        # The runs already started, by their `Usage` object (one per run, shared by the run's
        # contexts); weakly held so finished runs are forgotten.
        self._runs: deque[weakref.ref[Any]] = deque(maxlen=256)
        self._lock = threading.Lock()

    def _first_start(self, usage: Any) -> bool:
        with self._lock:
            if any(r() is usage for r in self._runs):
                return False
            self._runs.append(weakref.ref(usage))
            return True

    async def on_agent_start(self, context: Any, agent: Any) -> None:
        if self._first_start(context.usage):
            # a durable guard journals the turn: in a worker thread, never on the loop
            text = _user_text(getattr(context, "turn_input", None))
            await anew_turn(self.sessions.for_context(context), text)

    async def on_llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        texts: list[str] = []
        for item in response.output:
            kind = getattr(item, "type", None)
            if kind in ("function_call", "custom_tool_call", "computer_call", "shell_call"):
                return  # a tool turn: the tool guardrails decide it
            if kind == "message":
                for part in getattr(item, "content", ()):
                    text = getattr(part, "text", None)
                    if isinstance(text, str):
                        texts.append(text)
        if texts:
            guard = self.sessions.for_context(context)
            await aquietly("agent message", guard.aon_message, "".join(texts))


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _user_text(items: Any) -> str | None:
    """The text of the last user message among a run's input items (`turn_input`, set by the
    SDK before `on_agent_start`), or None when there is none."""
    if not isinstance(items, list):
        return None
    for item in reversed(items):
        if _field(item, "role") != "user":
            continue
        content = _field(item, "content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            texts = [_field(part, "text") for part in content]
            return "".join(t for t in texts if isinstance(t, str))
        return None
    return None


def guard_agent(
    agent: Agent[Any], guard: Guard, *, session: SessionResolver | None = None
) -> Agent[Any]:
    """Guard every function tool of `agent` (in place; returns the agent).

    Adds the guard's tool input and output guardrails to each `FunctionTool` and wraps its
    failure function so a tool's exception is recorded as a failure (the model still gets the
    tool's usual error message; a tool configured to raise still raises). The agent's MCP
    servers (`Agent(mcp_servers=[...])`, whose tools the SDK builds at run time) get the same
    guardrails through their `tool_input_guardrails` / `tool_output_guardrails`, and their
    failure function is wrapped the same way. Calling it again with the same guard is a
    no-op; with another guard, that guard replaces the first. Hosted tools are left alone.
    """
    if not isinstance(agent, Agent):
        raise InvalidArgumentError(f"agent: must be an agents.Agent, got {brief(agent)}")
    rails = GuardToolGuardrails(guard, session=session)
    for server in agent.mcp_servers:
        _guard_mcp_server(server, rails, agent)
    for tool in agent.tools:
        if not isinstance(tool, FunctionTool):
            continue
        mark: tuple[GuardToolGuardrails, Any] | None = getattr(tool, _MARK, None)
        if mark is not None:
            old, previous = mark
            if old.guard is guard and old.sessions.resolve is session:
                continue  # already guarded so
            # Guarded by another guard (e.g. an earlier, closed one): replace it.
            tool.tool_input_guardrails = [
                g for g in tool.tool_input_guardrails or [] if g is not old.input
            ]
            tool.tool_output_guardrails = [
                g for g in tool.tool_output_guardrails or [] if g is not old.output
            ]
        else:
            previous = resolve_function_tool_failure_error_function(tool)
        tool.tool_input_guardrails = [*(tool.tool_input_guardrails or []), rails.input]
        tool.tool_output_guardrails = [*(tool.tool_output_guardrails or []), rails.output]
        set_function_tool_failure_error_function(
            tool,
            rails.failure_error_function(previous)
            if previous is not None
            else rails._raising_failure_function(),
        )
        setattr(tool, _MARK, (rails, previous))
    return agent


def _guard_mcp_server(server: Any, rails: GuardToolGuardrails, agent: Agent[Any]) -> None:
    """The guardrails on every tool of an MCP server of `agent` (the SDK copies the server's
    guardrail lists into each tool it builds from the server, at every run)."""
    mark: tuple[GuardToolGuardrails, Any] | None = getattr(server, _MARK, None)
    if mark is not None:
        old, previous = mark
        if old.guard is rails.guard and old.sessions.resolve is rails.sessions.resolve:
            return
        server.tool_input_guardrails = [
            g for g in server.tool_input_guardrails or [] if g is not old.input
        ]
        server.tool_output_guardrails = [
            g for g in server.tool_output_guardrails or [] if g is not old.output
        ]
    else:
        # What the SDK would use for this server's failures: its own, else the agent's
        # `mcp_config` one, else the SDK's default message (`MCPServer` 0.24: a server-level
        # setting only through the constructor, hence the attribute).
        # inside: the Agents SDK is imported where it is used (the optional extra)
        from agents import default_tool_error_function

        agent_level = agent.mcp_config.get("failure_error_function", default_tool_error_function)
        previous = server._get_failure_error_function(agent_level)
    server.tool_input_guardrails = [*(server.tool_input_guardrails or []), rails.input]
    server.tool_output_guardrails = [*(server.tool_output_guardrails or []), rails.output]
    server._failure_error_function = (
        rails.failure_error_function(previous)
        if previous is not None
        else rails._raising_failure_function()
    )
    setattr(server, _MARK, (rails, previous))
