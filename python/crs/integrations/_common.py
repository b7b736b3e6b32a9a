"""What the framework integrations share: recording a result the guard cannot digest."""

from __future__ import annotations

import logging
from typing import Any

from crs._errors import InvalidArgumentError
from crs.guard import Call, Guard, Verdict

log = logging.getLogger("crs.guard")


def _stand_in(result: Any, exc: InvalidArgumentError) -> str:
    log.warning(
        "a %s result could not be digested (%s); recorded by its type",
        type(result).__name__,
        exc,
        extra={"code": "undigestible_result"},
    )
    return f"<{type(result).__name__} result>"


def record_result(guard: Guard, call: Call, result: Any, error: str | None) -> Verdict:
    """`guard.after_call`, never failing the user's run on a result the guard cannot digest
    (an object without a str(), a result over the size cap): it is recorded by its type."""
    try:
        return guard.after_call(call, result=result, error=error)
    except InvalidArgumentError as exc:
        if error is not None or result is None:
            raise
        return guard.after_call(call, result=_stand_in(result, exc))


async def arecord_result(guard: Guard, call: Call, result: Any, error: str | None) -> Verdict:
    """`record_result` off the event loop (`guard.aafter_call`)."""
    try:
        return await guard.aafter_call(call, result=result, error=error)
    except InvalidArgumentError as exc:
        if error is not None or result is None:
            raise
        return await guard.aafter_call(call, result=_stand_in(result, exc))
