"""LangChain v1 / LangGraph: `GuardMiddleware` for `create_agent` (`pip install
'crs-agent[langchain]'`).

```python
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from crs import Guard
from crs.integrations.langchain import GuardMiddleware

guard = Guard.open("/path/to/repo", session="default")
agent = create_agent(model, tools, middleware=[GuardMiddleware(guard, exit_behavior="end")],
                     checkpointer=InMemorySaver())
agent.invoke({"messages": [("user", "fix the build")]},
             {"configurable": {"thread_id": "t-1"}})
```

How it works, per model turn: `after_model` decides every tool call of the new AI message
(`Guard.before_call`), a text-only message goes to `Guard.on_message`, and the model's first
answer to a user message (a `HumanMessage` since the previous AI message: a new `invoke` on
the thread, or the first) starts a guard turn (`Guard.new_turn` with the user's text), so a
chat of many short answers to different questions on one thread is not a monologue (the
same answer to "any update?" after "any update?" is) and escalation starts over per request;
`wrap_tool_call` runs the allowed calls and records their results (`Guard.after_call`),
appending the guard's message to the `ToolMessage` on a NUDGE. The LangGraph thread
(`configurable.thread_id`) is the guard session: one `Guard` per project,
`guard.with_session(thread_id)` per thread.

A refused call (BLOCK, or STOP) is handled like `ToolCallLimitMiddleware` handles a call over
its limit, chosen by `exit_behavior` for verdicts at or above `exit_on` (default: STOP):

- `"continue"`: the call gets an error `ToolMessage` carrying the guard's message for the model;
  the run goes on (the model decides what to do next).
- `"error"`: raise `GuardStoppedError` (or `GuardBlockedError`), with `.verdict`.
- `"end"`: end the run (`jump_to: "end"`) with a `ToolMessage` for every pending call of the
  turn and an `AIMessage` saying why, for the user.

A BLOCK below `exit_on` always continues. A STOP that comes with a result (`after_call`) is
appended to the `ToolMessage`; with `"error"` it raises once recorded; with `"end"` the model
has one turn to report to the user, and if it calls tools again none runs and the run ends.
(The middleware adds one graph node, after_model; ending from a before_model node instead
would cost a second node on every model turn, about 2 ms per tool call here.)
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from langchain.agents.middleware.types import (
    AgentMiddleware,
    AgentState,
    hook_config,
)
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolCall, ToolMessage
from langgraph.config import get_config
from langgraph.errors import GraphBubbleUp
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.runtime import Runtime
from langgraph.types import Command

from crs._check import brief
from crs._errors import InvalidArgumentError
from crs.guard import Guard
from crs.guard._verdict import Action, GuardBlockedError, GuardStoppedError, Verdict
from crs.integrations._common import (
    abefore_call,
    anew_turn,
    aquietly,
    aran,
    arecord_result,
    before_call,
    quietly,
    ran,
    record_result,
)

__all__ = ["ExitBehavior", "GuardMiddleware"]

ExitBehavior = Literal["continue", "error", "end"]
"""What a refused call does to the run (as in `ToolCallLimitMiddleware`)."""

log = logging.getLogger("crs.guard")

_EXIT_BEHAVIORS = ("continue", "error", "end")
_EXIT_ON = {"block": Action.BLOCK, "stop": Action.STOP}
_SEVERITY = {Action.ALLOW: 0, Action.NUDGE: 1, Action.BLOCK: 2, Action.STOP: 3}
_NOT_RUN = "Not run: the guard ended the run."
_MAX_SESSIONS = 1024  # per-thread guards kept (least recently used evicted)
_MAX_PENDING = 4096  # decided calls waiting for the tool node


def _thread_id(config: Any) -> str | None:
    if not isinstance(config, dict):
        return None
    conf = config.get("configurable")
    tid = conf.get("thread_id") if isinstance(conf, dict) else None
    if tid is None or tid == "":
        return None
    return str(tid)


def _last_ai(messages: list[AnyMessage]) -> tuple[AIMessage | None, set[str], str | None]:
    """The last AI message, the ids of the tool calls already answered after it, and the
    text of the user messages between it and the AI message before it, or None when there
    is none (a new user turn: the model's first answer to it)."""
    answered: set[str] = set()
    last: AIMessage | None = None
    asked: list[str] = []
    for m in reversed(messages):
        if last is None:
            if isinstance(m, AIMessage):
                last = m
            elif isinstance(m, ToolMessage):
                answered.add(m.tool_call_id)
        elif isinstance(m, HumanMessage):
            asked.append(_content_text(m.content))
        elif isinstance(m, AIMessage):
            break
    return last, answered, "\n".join(reversed(asked)) if asked else None


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            p if isinstance(p, str) else str(p.get("text", "")) if isinstance(p, dict) else ""
            for p in content
        ]
        return "".join(parts)
    return str(content)


def _with_note(msg: ToolMessage, note: str) -> ToolMessage:
    """The tool's message with the guard's note for the model appended."""
    content: Any = msg.content
    if isinstance(content, str):
        content = f"{content}\n\n[crs] {note}" if content else f"[crs] {note}"
    elif isinstance(content, list):
        content = [*content, {"type": "text", "text": f"[crs] {note}"}]
    return msg.model_copy(update={"content": content})


def _final_message(v: Verdict) -> AIMessage:
    return AIMessage(content=f"Stopped by crs ({v.code}): {v.reason}")


class GuardMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """Guard every tool call of a LangChain v1 agent (`create_agent(middleware=[...])`).

    Args:
        guard: The project's guard; each LangGraph thread gets `guard.with_session(thread_id)`
            (a run without a thread id uses `guard` itself).
        exit_behavior: `"continue"`, `"error"` or `"end"`: what a refused call at or above
            `exit_on` does (see the module docstring).
        exit_on: `"stop"` (default: only STOP ends or fails the run, a BLOCK answers the call
            and continues) or `"block"` (BLOCK does too).

    Raises:
        InvalidArgumentError: a bad argument (the message names it).
    """

    def __init__(
        self,
        guard: Guard,
        *,
        exit_behavior: ExitBehavior = "continue",
        exit_on: Literal["block", "stop"] = "stop",
    ) -> None:
        super().__init__()
        if not isinstance(guard, Guard):
            raise InvalidArgumentError(f"guard: must be a crs.Guard, got {brief(guard)}")
        if exit_behavior not in _EXIT_BEHAVIORS:
            raise InvalidArgumentError(
                f"exit_behavior: must be one of {_EXIT_BEHAVIORS}, got {brief(exit_behavior)}"
            )
        if exit_on not in _EXIT_ON:
            raise InvalidArgumentError(f"exit_on: must be 'block' or 'stop', got {brief(exit_on)}")
        self.guard = guard
        self.exit_behavior: ExitBehavior = exit_behavior
        self.exit_on = exit_on
        self._exit_level = _SEVERITY[_EXIT_ON[exit_on]]
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, Guard] = OrderedDict()
        self._pending: OrderedDict[tuple[str, str], Verdict] = OrderedDict()
        # session -> STOP that came with a result, until that thread's next model turn (a
        # thread that never comes back leaves its entry: bounded as the sessions are; rt11)
        self._stopped: OrderedDict[str, Verdict] = OrderedDict()

    # ------------------------------------------------------------------ sessions

    def guard_for(self, thread_id: str | None) -> Guard:
        """The guard of a LangGraph thread (created on first use)."""
        if thread_id is None or thread_id == self.guard.session_id:
            return self.guard
        with self._lock:
            g = self._sessions.get(thread_id)
            if g is not None:
                self._sessions.move_to_end(thread_id)
                return g
            g = self._sessions[thread_id] = self.guard.with_session(thread_id)
            while len(self._sessions) > _MAX_SESSIONS:
                self._sessions.popitem(last=False)
            return g

    def _node_guard(self, runtime: Runtime[Any]) -> Guard:
        info = getattr(runtime, "execution_info", None)
        tid = getattr(info, "thread_id", None)
        if tid is None:
            try:
                tid = _thread_id(get_config())
            except RuntimeError:  # called outside a graph run
                tid = None
        return self.guard_for(None if tid is None else str(tid))

    def _tool_guard(self, request: ToolCallRequest) -> Guard:
        runtime = getattr(request, "runtime", None)
        return self.guard_for(_thread_id(getattr(runtime, "config", None)))

    def _exits(self, v: Verdict) -> bool:
        return self.exit_behavior != "continue" and _SEVERITY[v.action] >= self._exit_level

    def _raise(self, v: Verdict) -> None:
        log.warning(
            "langchain: raising on %s (%s) of %s",
            v.action,
            v.code,
            v.call.tool if v.call else "message",
            extra={
                "code": str(v.code),
                "tool": v.call.tool if v.call else None,
                "session": v.call.session_id if v.call else None,
                "step": v.call.step if v.call else None,
            },
        )
        if v.action is Action.STOP:
            raise GuardStoppedError(v)
        raise GuardBlockedError(v)

    # ------------------------------------------------------------------ model turns

    def _decided(
        self, guard: Guard, last: AIMessage, answered: set[str], verdicts: list[Verdict]
    ) -> dict[str, Any] | None:
        """The state update for a decided model turn (after `before_call` on each call)."""
        calls = [tc for tc in last.tool_calls if tc.get("id") not in answered]
        refused: list[tuple[ToolCall, Verdict]] = []
        for tc, v in zip(calls, verdicts, strict=True):
            if v.allowed:
                self._remember(guard.session_id, tc, v)
            else:
                refused.append((tc, v))
        if not refused:
            return None
        worst = max((v for _, v in refused), key=lambda v: _SEVERITY[v.action])
        if self._exits(worst):
            self._forget_turn(guard.session_id, calls)
            if self.exit_behavior == "error":
                self._raise(worst)
            return self._end(guard, calls, refused, worst)
        return {
            "messages": [
                ToolMessage(
                    content=v.message, tool_call_id=tc["id"], name=tc["name"], status="error"
                )
                for tc, v in refused
            ]
        }

    def _end(
        self,
        guard: Guard,
        calls: list[ToolCall],
        refused: list[tuple[ToolCall, Verdict]],
        worst: Verdict,
    ) -> dict[str, Any]:
        """End the run: every pending call of the turn answered, then a message for the user."""
        refused_ids = {tc["id"] for tc, _ in refused}
        messages: list[ToolMessage | AIMessage] = [
            ToolMessage(content=v.message, tool_call_id=tc["id"], name=tc["name"], status="error")
            for tc, v in refused
        ]
        messages.extend(
            ToolMessage(content=_NOT_RUN, tool_call_id=tc["id"], name=tc["name"], status="error")
            for tc in calls
            if tc["id"] not in refused_ids
        )
        messages.append(_final_message(worst))
        log.warning(
            "langchain: ending the run on %s (%s)",
            worst.action,
            worst.code,
            extra={
                "code": str(worst.code),
                "session": guard.session_id,
                "tool": worst.call.tool if worst.call else None,
                "step": worst.call.step if worst.call else None,
            },
        )
        return {"jump_to": "end", "messages": messages}

    def _stopped_turn(
        self, guard: Guard, last: AIMessage, answered: set[str]
    ) -> dict[str, Any] | None:
        """After a result said STOP ("end"): the model had its turn to report; if it calls
        tools again, none runs and the run ends."""
        with self._lock:
            stop = self._stopped.pop(guard.session_id, None)
        if stop is None:
            return None
        calls = [tc for tc in last.tool_calls if tc.get("id") not in answered]
        if not calls:
            return {}  # a text answer: the run ends by itself
        return self._end(guard, calls, [], stop)

    def _remember(self, session: str, tc: ToolCall, v: Verdict) -> None:
        with self._lock:
            self._pending[(session, str(tc["id"]))] = v
            while len(self._pending) > _MAX_PENDING:
                self._pending.popitem(last=False)

    def _forget_turn(self, session: str, calls: list[ToolCall]) -> None:
        with self._lock:
            for tc in calls:
                self._pending.pop((session, str(tc["id"])), None)

    def _take(self, session: str, call_id: str) -> Verdict | None:
        with self._lock:
            return self._pending.pop((session, call_id), None)

    def _user_turn(self, guard: Guard) -> None:
        """A user message came before this model turn: what the run was stopped for is over."""
        with self._lock:
            self._stopped.pop(guard.session_id, None)

    @hook_config(can_jump_to=["end"])
    def after_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Decide the tool calls of the new AI message; a text-only one is a message turn.
        The model's first answer to a user message starts a guard turn (`new_turn`)."""
        last, answered, user_text = _last_ai(state.get("messages", []))
        if last is None:
            return None
        guard = self._node_guard(runtime)
        if user_text is not None:
            self._user_turn(guard)
            quietly("user turn", guard.new_turn, user_text)
        ended = self._stopped_turn(guard, last, answered)
        if ended:
            return ended
        if not last.tool_calls:
            quietly("agent message", guard.on_message, _content_text(last.content))
            return None
        calls = [tc for tc in last.tool_calls if tc.get("id") not in answered]
        verdicts = [before_call(guard, tc["name"], tc["args"], tc["id"]) for tc in calls]
        return self._decided(guard, last, answered, verdicts)

    @hook_config(can_jump_to=["end"])
    async def aafter_model(
        self, state: AgentState[Any], runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        last, answered, user_text = _last_ai(state.get("messages", []))
        if last is None:
            return None
        guard = self._node_guard(runtime)
        if user_text is not None:
            self._user_turn(guard)
            await anew_turn(guard, user_text)
        ended = self._stopped_turn(guard, last, answered)
        if ended:
            return ended
        if not last.tool_calls:
            await aquietly("agent message", guard.aon_message, _content_text(last.content))
            return None
        calls = [tc for tc in last.tool_calls if tc.get("id") not in answered]
        verdicts = [await abefore_call(guard, tc["name"], tc["args"], tc["id"]) for tc in calls]
        return self._decided(guard, last, answered, verdicts)

    # ------------------------------------------------------------------ tool calls

    def _refused_message(self, tc: ToolCall, v: Verdict) -> ToolMessage:
        if self._exits(v) and self.exit_behavior == "error":
            self._raise(v)
        return ToolMessage(
            content=v.message, tool_call_id=tc["id"], name=tc["name"], status="error"
        )

    def _finish(
        self, guard: Guard, before: Verdict, result: ToolMessage | Command[Any], after: Verdict
    ) -> ToolMessage | Command[Any]:
        notes = [v.message for v in (before, after) if v.action is not Action.ALLOW and v.message]
        if after.action is Action.STOP and self._exits(after):
            if self.exit_behavior == "error":
                self._raise(after)
            with self._lock:
                self._stopped[guard.session_id] = after
                self._stopped.move_to_end(guard.session_id)
                while len(self._stopped) > _MAX_SESSIONS:
                    self._stopped.popitem(last=False)
        if notes and isinstance(result, ToolMessage):
            return _with_note(result, " ".join(dict.fromkeys(notes)))
        return result

    @staticmethod
    def _outcome(result: ToolMessage | Command[Any]) -> tuple[Any, str | None]:
        if isinstance(result, ToolMessage):
            if result.status == "error":
                return None, _content_text(result.content) or "tool error"
            return result.content, None
        return None, None  # a Command: the tool changed the graph's state, no result to digest

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Run an allowed call and record its result; refuse a call decided as refused."""
        tc = request.tool_call
        guard = self._tool_guard(request)
        before = self._take(guard.session_id, str(tc["id"]))
        if before is None:  # not decided by after_model (e.g. a tool node used on its own)
            before = before_call(guard, tc["name"], tc["args"], tc["id"])
            if not before.allowed:
                return self._refused_message(tc, before)
        assert before.call is not None
        call = before.call
        try:
            result = handler(request)
        except GraphBubbleUp:
            raise
        except Exception as exc:
            ran(call, functools.partial(guard.after_call, call, error=exc))
            raise
        value, error = self._outcome(result)
        after = ran(call, lambda: record_result(guard, call, value, error))
        return self._finish(guard, before, result, after)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        tc = request.tool_call
        guard = self._tool_guard(request)
        before = self._take(guard.session_id, str(tc["id"]))
        if before is None:
            before = await abefore_call(guard, tc["name"], tc["args"], tc["id"])
            if not before.allowed:
                return self._refused_message(tc, before)
        assert before.call is not None
        call = before.call
        try:
            result = await handler(request)
        except (GraphBubbleUp, asyncio.CancelledError):
            raise
        except Exception as exc:
            await aran(call, functools.partial(guard.aafter_call, call, error=exc))
            raise
        value, error = self._outcome(result)
        after = await aran(call, lambda: arecord_result(guard, call, value, error))
        return self._finish(guard, before, result, after)
