"""What the framework integrations share (`crs.guard._record`, also what the guard's own
decorator uses): recording a result the guard cannot digest, deciding a call whose arguments it
cannot take as they are."""

from __future__ import annotations

from crs.guard import Guard
from crs.guard._record import abefore_call, arecord_result, before_call, call_for, record_result

__all__ = [
    "abefore_call",
    "anew_turn",
    "arecord_result",
    "before_call",
    "call_for",
    "record_result",
]


async def anew_turn(guard: Guard, text: str | None = None) -> None:
    """`guard.new_turn(text)` that never blocks the event loop: a durable guard journals the
    turn (an fdatasync), so it runs in a worker thread, as the guard's own async twins do."""
    if not guard.durable:
        guard.new_turn(text)
        return
    # inside: a running loop has asyncio already; `import crs` stays asyncio-free
    import asyncio

    await asyncio.to_thread(guard.new_turn, text)
