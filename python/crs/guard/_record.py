"""Recording what a tool gave when the guard cannot digest it as it is (shared by the guard's
decorator and context manager and by every framework integration): the tool has run, so the
user's run must not fail on its output. And deciding a call whose arguments, the model's, the
guard cannot take as they are."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from crs._check import brief
from crs._errors import InvalidArgumentError
from crs.guard._text import call_key, valid_text

if TYPE_CHECKING:
    from crs.guard._guard import Guard
    from crs.guard._verdict import Call, Verdict

log = logging.getLogger("crs.guard")
_T = TypeVar("_T")


def _stand_in(result: Any, exc: InvalidArgumentError) -> str:
    log.warning(
        "a %s result could not be digested (%s); recorded by its type",
        type(result).__name__,
        exc,
        extra={"code": "undigestible_result"},
    )
    return f"<{type(result).__name__} result>"


def _repaired(result: Any, error: str | None) -> tuple[Any, str | None] | None:
    """(result, error) with lone surrogates replaced, or None when they held none (or
    `result` is nested too deep to walk: it is then recorded by its type)."""
    try:
        fixed = valid_text(result), valid_text(error)
    except RecursionError:
        return None
    return None if fixed[0] is result and fixed[1] is error else fixed


def record_with(record: Callable[[Any, str | None], _T], result: Any, error: str | None) -> _T:
    """`record(result, error)`, never failing the user's run on what a tool gave: text with
    lone surrogates (a file name that is not UTF-8) is recorded with U+FFFD in their place,
    and a result the guard cannot digest (an object without a str(), over the size cap) by
    its type."""
    try:
        return record(result, error)
    except InvalidArgumentError as exc:
        fixed = _repaired(result, error)
        if fixed is not None:
            return record_with(record, *fixed)
        if error is not None or result is None:
            raise
        return record(_stand_in(result, exc), None)


def record_result(guard: Guard, call: Call, result: Any, error: str | None) -> Verdict:
    """`guard.after_call` through `record_with`."""
    return record_with(lambda r, e: guard.after_call(call, result=r, error=e), result, error)


async def arecord_result(guard: Guard, call: Call, result: Any, error: str | None) -> Verdict:
    """`record_result` off the event loop (`guard.aafter_call`)."""
    try:
        return await guard.aafter_call(call, result=result, error=error)
    except InvalidArgumentError as exc:
        fixed = _repaired(result, error)
        if fixed is not None:
            return await arecord_result(guard, call, *fixed)
        if error is not None or result is None:
            raise
        return await guard.aafter_call(call, result=_stand_in(result, exc))


def _unwritable(exc: BaseException) -> bool:
    """A journal that cannot take the record (full, its server away, damaged), not a guard
    closed by its owner (`JournalClosedError`: a mistake of the program, raised)."""
    # inside: the error classes are only needed once a record failed
    from crs._errors import JournalClosedError, JournalError

    return isinstance(exc, JournalError) and not isinstance(exc, JournalClosedError)


def _unrecorded(call: Call, exc: BaseException) -> Verdict:
    from crs.guard._verdict import allow_verdict  # inside: only a failed record needs it

    log.warning(
        "the outcome of a %s call could not be recorded (%s: %s); the tool has run, and what "
        "it gave goes on to the model unrecorded",
        brief(call.tool),
        type(exc).__name__,
        exc,
        extra={
            "code": "unrecorded_call",
            "tool": call.tool,
            "session": call.session_id,
            "step": call.step,
        },
    )
    return allow_verdict(call)


def ran(call: Call, record: Callable[[], Verdict]) -> Verdict:
    """`record()` (the after_call of a tool that has run, in a framework's run) or, when the
    journal cannot take the record (a full disk, a NATS server away), ALLOW with a warning
    on `crs.guard`: the tool's value (or its own exception) reaches the run, as it does
    without the guard, rather than the guard's error ending the run after the tool ran (as
    the Claude Code hook and the MCP middleware fail open)."""
    try:
        return record()
    except Exception as exc:
        if not _unwritable(exc):
            raise
        return _unrecorded(call, exc)


async def aran(call: Call, record: Callable[[], Awaitable[Verdict]]) -> Verdict:
    """`ran` of an async record (`aafter_call`, `arecord_result`)."""
    try:
        return await record()
    except Exception as exc:
        if not _unwritable(exc):
            raise
        return _unrecorded(call, exc)


_MAX_ARGS_TEXT = 64 * 1024


def _stand_ins(args: Any) -> list[dict[str, Any]]:
    """Arguments the guard may take for `args` it refused: surrogates repaired, then the
    arguments' text (the same call gives the same text, so a repeat is still a repeat)."""
    out = []
    fixed = valid_text(args)
    if fixed is not args and isinstance(fixed, dict):
        out.append(fixed)
    try:
        text = repr(args)
    except Exception:  # an integer too long to print, a repr that raises
        text = f"<{type(args).__name__} arguments>"
    out.append({"arguments": valid_text(text[:_MAX_ARGS_TEXT])})
    return out


def _refused_args(tool: str, exc: InvalidArgumentError) -> None:
    if not _about_args(exc):
        return  # (a bad tool name or session: raised, said by the error itself)
    name = brief(tool)  # the model's tool name: bounded, as every quoted value
    log.warning(
        "the arguments of a %s call could not be taken as they are (%s); guarded by their text",
        name,
        exc,
        extra={"code": "unguardable_arguments", "tool": name},
    )


def _about_args(exc: InvalidArgumentError) -> bool:
    return str(exc).startswith("args")


def _with_stand_in(exc: InvalidArgumentError, args: Any, attempt: Callable[[Any], _T]) -> _T:
    """`attempt(stand_in)` with the first stand-in the guard takes; `exc` when none."""
    if not _about_args(exc):
        raise exc
    for stand_in in _stand_ins(args):
        with contextlib.suppress(InvalidArgumentError):
            return attempt(stand_in)
    raise exc


def stand_in_tool(tool: str) -> str:
    """The name a call whose tool name the guard refuses (too long, surrounding whitespace,
    a lone surrogate, a credential in it) is decided under: a digest of the name, so every
    event of the call, and a repeat of it, gets the same one; the name itself is never
    stored or logged."""
    import hashlib  # inside: only a refused name pays for it

    raw = tool.encode("utf-8", "surrogatepass")
    name = f"unnamed-tool-{hashlib.blake2b(raw, digest_size=6).hexdigest()}"
    log.warning(
        "a tool name the guard refuses (%d characters) is guarded as %s",
        len(tool),
        name,
        extra={"code": "unguardable_tool_name", "tool": name},
    )
    return name


def guarded(tool: str, args: Any, decide: Callable[[Any], _T]) -> _T:
    """`decide(args)` for a call the model made: arguments the guard refuses (a NaN, a lone
    surrogate, a too long integer, nesting too deep, ...) are the model's, not the
    developer's, and the tool may well take them; the call is decided by a stand-in instead
    of ending the run."""
    try:
        return decide(args)
    except InvalidArgumentError as exc:
        _refused_args(tool, exc)
        return _with_stand_in(exc, args, decide)


def _tool_refused(tool: Any, exc: InvalidArgumentError) -> bool:
    """The guard refused `tool` (a str) as a name: decided under `stand_in_tool(tool)`."""
    return isinstance(tool, str) and str(exc).startswith("tool:")


def before_call(
    guard: Guard, tool: str, args: Any, call_id: str | None, *, named: bool = False
) -> Verdict:
    """`guard.before_call` through `guarded` (`call_id`, the framework's or client's, as
    `call_key` makes it: a long one shortened). A tool name the guard refuses (the model's or
    a tool server's, not the developer's: over 256 characters, a credential in it) is
    decided under its stand-in name, as the Claude Code hook does, rather than ending the
    run where it works without the guard. `named`: the caller named the tool to the guard
    itself (the `crs mcp` server's `check_call`): a refused name is its error, raised."""
    call_id = call_key(call_id)
    try:
        return guarded(tool, args, lambda a: guard.before_call(tool, a, call_id=call_id))
    except InvalidArgumentError as exc:
        if named or not _tool_refused(tool, exc):
            raise
    name = stand_in_tool(tool)
    return guarded(name, args, lambda a: guard.before_call(name, a, call_id=call_id))


async def abefore_call(guard: Guard, tool: str, args: Any, call_id: str | None) -> Verdict:
    """`before_call` off the event loop (`guard.abefore_call`)."""
    call_id = call_key(call_id)
    try:
        return await guard.abefore_call(tool, args, call_id=call_id)
    except InvalidArgumentError as exc:
        if _tool_refused(tool, exc):
            return await asyncio.to_thread(before_call, guard, tool, args, call_id)  # rare
        _refused_args(tool, exc)
        decide = functools.partial(guard.before_call, tool, call_id=call_id)
        return await asyncio.to_thread(_with_stand_in, exc, args, decide)  # rare: a thread


def call_for(
    guard: Guard, tool: str, args: Any, call_id: str | None, *, named: bool = False
) -> Call:
    """`guard.call_for` with the stand-ins `before_call` uses (the same signature)."""
    call_id = call_key(call_id)
    try:
        return _call_for(guard, tool, args, call_id)
    except InvalidArgumentError as exc:
        if named or not _tool_refused(tool, exc):
            raise
    return _call_for(guard, stand_in_tool(tool), args, call_id)


def _call_for(guard: Guard, tool: str, args: Any, call_id: str | None) -> Call:
    try:
        return guard.call_for(tool, args, call_id)
    except InvalidArgumentError as exc:
        return _with_stand_in(exc, args, lambda a: guard.call_for(tool, a, call_id))
