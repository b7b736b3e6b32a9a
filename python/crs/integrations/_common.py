"""What the framework integrations share (`crs.guard._record`, also what the guard's own
decorator uses): recording a result the guard cannot digest, deciding a call whose arguments it
cannot take as they are."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from crs._check import brief
from crs._errors import InvalidArgumentError
from crs.guard import Guard
from crs.guard._record import (
    _unwritable,
    abefore_call,
    aran,
    arecord_result,
    before_call,
    call_for,
    ran,
    record_result,
)
from crs.guard._verdict import Verdict

__all__ = [
    "SessionGuards",
    "abefore_call",
    "anew_turn",
    "aquietly",
    "aran",
    "arecord_result",
    "before_call",
    "call_for",
    "quietly",
    "ran",
    "record_result",
]

MAX_SESSIONS = 1024  # per-session guards kept (least recently used evicted)


class SessionGuards:
    """The guard of each session a framework's runs map to: `resolve(ctx)` (the framework's
    run context to a session id, or None for `guard`'s own session) and `guard.with_session(id)`
    per id, least recently used evicted past `MAX_SESSIONS`."""

    def __init__(self, guard: Guard, resolve: Callable[[Any], str | None] | None) -> None:
        self.guard = guard
        self.resolve = resolve
        self._lock = threading.Lock()
        self._by_id: OrderedDict[str, Guard] = OrderedDict()

    def for_context(self, ctx: Any) -> Guard:
        sid = self.resolve(ctx) if self.resolve is not None else None
        if sid is None or sid == self.guard.session_id:
            return self.guard
        if not isinstance(sid, str) or not sid:
            raise InvalidArgumentError(f"session: the resolver must return a str, got {brief(sid)}")
        with self._lock:
            g = self._by_id.get(sid)
            if g is None:
                g = self._by_id[sid] = self.guard.with_session(sid)
                while len(self._by_id) > MAX_SESSIONS:
                    self._by_id.popitem(last=False)
            else:
                self._by_id.move_to_end(sid)
            return g


async def anew_turn(guard: Guard, text: str | None = None) -> None:
    """`guard.new_turn(text)` that never blocks the event loop: a durable guard journals the
    turn (an fdatasync), so it runs in a worker thread, as the guard's own async twins do.
    A journal that cannot take it is logged (`quietly`), not raised into the run."""
    if not guard.durable:
        guard.new_turn(text)
        return
    # inside: a running loop has asyncio already; `import crs` stays asyncio-free
    import asyncio

    await asyncio.to_thread(quietly, "user turn", guard.new_turn, text)


def quietly(what: str, record: Callable[..., Any], *args: Any) -> None:
    """`record(*args)` (a user turn, an agent message: `new_turn`, `on_message`), logged at
    WARNING on `crs.guard` when the journal cannot take it (a full disk, a NATS server away)
    instead of ending the user's run on crs's own error; its verdict is not needed."""
    try:
        record(*args)
    except Exception as exc:
        _unrecorded(what, exc)


async def aquietly(what: str, record: Callable[..., Awaitable[Any]], *args: Any) -> None:
    """`quietly` of an async record (`aon_message`)."""
    try:
        await record(*args)
    except Exception as exc:
        _unrecorded(what, exc)


def _unrecorded(what: str, exc: Exception) -> None:
    """`quietly`'s handling of `exc`: logged when the journal could not take the record,
    raised again otherwise."""
    if not _unwritable(exc):
        raise exc
    logging.getLogger("crs.guard").warning(
        "the %s could not be recorded (%s: %s); the run goes on",
        what,
        type(exc).__name__,
        exc,
        extra={"code": "unrecorded_" + what.replace(" ", "_")},
    )


def log_exit(framework: str, what: str, v: Verdict) -> None:
    """Log (`crs.guard`, WARNING) that `framework`'s run ends on the verdict `v`, `what`
    saying how ("tripwire", "ending the run before the call")."""
    call = v.call
    logging.getLogger("crs.guard").warning(
        "%s: %s on %s (%s) of %s",
        framework,
        what,
        v.action,
        v.code,
        call.tool if call else "message",
        extra={
            "code": str(v.code),
            "tool": call.tool if call else None,
            "session": call.session_id if call else None,
            "step": call.step if call else None,
        },
    )
