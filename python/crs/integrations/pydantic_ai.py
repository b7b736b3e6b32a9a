"""Pydantic AI: guard every tool call of an `Agent` (`pip install 'crs-agent[pydantic-ai]'`).

```python
from pydantic_ai import Agent
from crs import Guard
from crs.integrations.pydantic_ai import GuardCapability, guard_toolset

guard = Guard.open("/path/to/repo", session="default")
agent = Agent("openai:gpt-5", toolsets=[tools], capabilities=[GuardCapability(guard)])
result = await agent.run("fix the build")
# or one toolset only: Agent(..., toolsets=[guard_toolset(tools, guard)])
```

`GuardCapability` is a capability, Pydantic AI's own extension point: per run it
wraps the agent's assembled toolset (every function tool, MCP server and toolset of the agent
and of the run; output tools aside) in a `GuardedToolset` (`get_wrapper_toolset`), starts a
guard turn with the run's user prompt (`before_run`: `Guard.new_turn`) and gives a model
response with text and no tool call to `Guard.on_message` (`after_model_request`). Give it at
construction, `Agent(..., capabilities=[GuardCapability(guard)])`, or per run to an agent
built elsewhere, `agent.run(prompt, capabilities=[GuardCapability(guard)])`: an agent takes
no capability after it is built except through its private state, so there is no
`guard_agent`. `guard_toolset(toolset, guard)` guards one toolset only (no turns, no
messages).

Per tool call (`GuardedToolset.call_tool`, with the validated arguments):

- ALLOW, NUDGE: the tool runs and its result is recorded (`Guard.after_call`); a NUDGE's
  message is appended to a text result (`"...\\n\\n[crs] <message>"`), and reaches the model
  beside any other result as the `content` of a `ToolReturn` (a user part after the result).
- BLOCK: the tool does not run; `ToolFailed(verdict.message)` answers the call. The model
  gets the guard's message as a failed tool result (the provider's error channel:
  Anthropic's `is_error`, Bedrock's `status="error"`): what Pydantic AI has `ToolFailed`
  for, a failure the model is to see and adapt to rather than make the same call again,
  with no retry budget spent. `ModelRetry` would say
  the opposite (make the call again, corrected) and spends the tool's retry budget (1 by
  default): a second refusal would end the run with `UnexpectedModelBehavior` instead of
  letting the guard's ladder (block, then stop) decide; a plain result would read as
  success.
- STOP, before or after the call: `GuardStoppedError` (`crs.GuardStoppedError`, with
  `.verdict`) is raised out of the run, which ends it (`agent.run` raises it).
- The tool's exception is recorded as a failure (one the guard may learn) and re-raised,
  so the run fails as Pydantic AI makes it fail. `ModelRetry` and `ToolFailed` raised by
  the tool are failures too, recorded, then passed on for Pydantic AI to answer the model
  with (the guard's note appended on a NUDGE); `CallDeferred` / `ApprovalRequired` are not
  a result (the call did not run) and pass through unrecorded.

A STOP on a text-only response (`on_message`) is logged and observed like any verdict but
does not raise: the text is the run's answer and ends it.

Sessions: by default every run is `guard`'s session; pass `session=lambda ctx: ...` (a
`RunContext` to a session id, e.g. `ctx.deps.thread_id`, or None for `guard`'s own) to map
runs to sessions (`guard.with_session(id)` each). With a durable guard every journal write
happens in a worker thread, never on the run's event loop.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pydantic_core
from pydantic import BaseModel
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import ApprovalRequired, CallDeferred, ModelRetry, ToolFailed
from pydantic_ai.messages import ModelResponse, TextContent, ToolReturn
from pydantic_ai.tools import AgentDepsT, RunContext
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool, WrapperToolset

from crs._check import brief
from crs._errors import InvalidArgumentError
from crs.guard import Guard
from crs.guard._verdict import Action, GuardStoppedError, Verdict
from crs.integrations._common import (
    SessionGuards,
    abefore_call,
    anew_turn,
    aquietly,
    aran,
    arecord_result,
    log_exit,
)

if TYPE_CHECKING:
    from pydantic_ai.models import ModelRequestContext

__all__ = ["GuardCapability", "GuardedToolset", "SessionResolver", "guard_toolset"]

SessionResolver = Callable[[RunContext[Any]], "str | None"]
"""A run's context to its guard session id (None: the guard's own session)."""


def _check(guard: Any, session: Any) -> None:
    if not isinstance(guard, Guard):
        raise InvalidArgumentError(f"guard: must be a crs.Guard, got {brief(guard)}")
    if session is not None and not callable(session):
        raise InvalidArgumentError(f"session: must be a callable or None, got {brief(session)}")


def _stopped(v: Verdict, when: str) -> GuardStoppedError:
    log_exit("pydantic-ai", f"ending the run {when} the call", v)
    return GuardStoppedError(v)


def _plain_args(tool_args: dict[str, Any]) -> Any:
    """The validated arguments as JSON data again (a model, a date, bytes as Pydantic dumps
    them), so a call is decided on what the model sent; as they are when that fails (the
    guard then decides it by a stand-in)."""
    try:
        return pydantic_core.to_jsonable_python(_sets_sorted(tool_args, 0))
    except (pydantic_core.PydanticSerializationError, ValueError, TypeError, RecursionError):
        return tool_args


def _sets_sorted(value: Any, depth: int) -> Any:
    """`value` with each set (a `set[str]` parameter, a model's set field) as a sorted list:
    JSON of a set lists it in iteration order, which changes with the process's hash seed,
    so one call had another signature in each process (a failure learned in one session
    was not refused in the next). `value` itself when it holds no set."""
    if isinstance(value, set | frozenset):
        items = [_sets_sorted(v, depth + 1) for v in value]
        try:
            return sorted(items)
        except TypeError:  # (items of several types: by their JSON form)
            return sorted(items, key=lambda v: repr(pydantic_core.to_jsonable_python(v)))
    if depth >= 64:
        return value
    if isinstance(value, dict):
        out = {k: _sets_sorted(v, depth + 1) for k, v in value.items()}
        return value if all(out[k] is v for k, v in value.items()) else out
    if isinstance(value, list | tuple):
        items = [_sets_sorted(v, depth + 1) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, BaseModel) or (
        dataclasses.is_dataclass(value) and not isinstance(value, type)
    ):
        fields = (
            value.model_dump(mode="python", by_alias=True)
            if isinstance(value, BaseModel)
            else {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        )
        out = _sets_sorted(fields, depth + 1)
        return value if out is fields else out  # (a model without a set: as it dumps)
    return value


def _recorded(result: Any) -> Any:
    """What of a tool's result the guard digests: a `ToolReturn`'s `return_value`."""
    return result.return_value if isinstance(result, ToolReturn) else result


def _with_note(result: Any, note: str) -> Any:
    """The result with the guard's note for the model: appended to text, else beside it."""
    tag = f"[crs] {note}"
    if isinstance(result, str):
        return f"{result}\n\n{tag}" if result else tag
    if isinstance(result, ToolReturn):
        if isinstance(result.return_value, str):
            return dataclasses.replace(result, return_value=_with_note(result.return_value, note))
        content = result.content
        if content is None:
            extra: str | Sequence[Any] = tag
        elif isinstance(content, str):
            extra = f"{content}\n\n{tag}"
        else:
            extra = [*content, tag]
        return dataclasses.replace(result, content=extra)
    return ToolReturn(return_value=result, content=tag)


def _notes(*verdicts: Verdict | None) -> str | None:
    notes = [
        v.message for v in verdicts if v is not None and v.action is not Action.ALLOW and v.message
    ]
    return " ".join(dict.fromkeys(notes)) if notes else None


def _prompt_text(prompt: Any) -> str | None:
    """The text of a run's user prompt (a str, or user content: its text parts), or None."""
    if prompt is None:
        return None
    if isinstance(prompt, str):
        return prompt
    texts = [
        p if isinstance(p, str) else p.content
        for p in prompt
        if isinstance(p, str) or (isinstance(p, TextContent) and isinstance(p.content, str))
    ]
    return "\n".join(texts)


@dataclass
class GuardedToolset(WrapperToolset[AgentDepsT]):
    """A toolset whose every call the guard decides and records (`guard_toolset` builds it;
    the module docstring says what each verdict does)."""

    sessions: SessionGuards = field(repr=False)

    @property
    def guard(self) -> Guard:
        return self.sessions.guard

    async def call_tool(
        self,
        name: str,
        tool_args: dict[str, Any],
        ctx: RunContext[AgentDepsT],
        tool: ToolsetTool[AgentDepsT],
    ) -> Any:
        guard = self.sessions.for_context(ctx)
        before = await abefore_call(guard, name, _plain_args(tool_args), ctx.tool_call_id)
        if not before.allowed:
            if before.action is Action.STOP:
                raise _stopped(before, "before")
            raise ToolFailed(before.message)
        call = before.call
        assert call is not None
        try:
            result = await self.wrapped.call_tool(name, tool_args, ctx, tool)
        except (CallDeferred, ApprovalRequired):
            raise  # not run (yet): no result to record
        except (ModelRetry, ToolFailed) as exc:
            after = await aran(call, functools.partial(guard.aafter_call, call, error=exc))
            if after.action is Action.STOP:
                raise _stopped(after, "after") from exc
            note = _notes(before, after)
            if note is None:
                raise
            again = ModelRetry if isinstance(exc, ModelRetry) else ToolFailed
            raise again(f"{exc.message}\n\n[crs] {note}") from exc
        except Exception as exc:
            await aran(call, functools.partial(guard.aafter_call, call, error=exc))
            raise
        after = await aran(call, lambda: arecord_result(guard, call, _recorded(result), None))
        if after.action is Action.STOP:
            raise _stopped(after, "after")
        note = _notes(before, after)
        return result if note is None else _with_note(result, note)


def guard_toolset(
    toolset: AbstractToolset[AgentDepsT],
    guard: Guard,
    *,
    session: SessionResolver | None = None,
) -> GuardedToolset[AgentDepsT]:
    """`toolset` with every call decided and recorded by `guard` (`Agent(toolsets=[...])`).

    Raises:
        InvalidArgumentError: a bad argument (the message names it).
    """
    if not isinstance(toolset, AbstractToolset):
        raise InvalidArgumentError(
            f"toolset: must be a pydantic_ai AbstractToolset, got {brief(toolset)}"
        )
    _check(guard, session)
    return GuardedToolset(toolset, SessionGuards(guard, session))


@dataclass
class GuardCapability(AbstractCapability[AgentDepsT]):
    """The guard on every tool call of an agent's runs, a guard turn per run and
    `on_message` for text-only responses (`Agent(capabilities=[GuardCapability(guard)])`).

    Args:
        guard: The project's guard.
        session: A `RunContext` to a session id (None: `guard`'s own session).

    Raises:
        InvalidArgumentError: a bad argument (the message names it).
    """

    guard: Guard
    session: SessionResolver | None = None
    sessions: SessionGuards = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check(self.guard, self.session)
        self.sessions = SessionGuards(self.guard, self.session)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # not spec-serializable: it holds a guard

    def get_wrapper_toolset(
        self, toolset: AbstractToolset[AgentDepsT]
    ) -> AbstractToolset[AgentDepsT] | None:
        return GuardedToolset(toolset, self.sessions)

    async def before_run(self, ctx: RunContext[AgentDepsT]) -> None:
        # a durable guard journals the turn: in a worker thread, never on the loop
        await anew_turn(self.sessions.for_context(ctx), _prompt_text(ctx.prompt))

    async def after_model_request(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        request_context: ModelRequestContext,
        response: ModelResponse,
    ) -> ModelResponse:
        if not response.tool_calls:  # a tool turn: the toolset decides its calls
            text = response.text
            if text:
                guard = self.sessions.for_context(ctx)
                await aquietly("agent message", guard.aon_message, text)
        return response
