"""Recording what a tool gave when the guard cannot digest it as it is (shared by the guard's
decorator and context manager and by every framework integration): the tool has run, so the
user's run must not fail on its output."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from crs._errors import InvalidArgumentError
from crs.guard._text import valid_text

if TYPE_CHECKING:
    from crs.guard._guard import Guard
    from crs.guard._verdict import Call, Verdict

log = logging.getLogger("crs.guard")


def _stand_in(result: Any, exc: InvalidArgumentError) -> str:
    log.warning(
        "a %s result could not be digested (%s); recorded by its type",
        type(result).__name__,
        exc,
        extra={"code": "undigestible_result"},
    )
    return f"<{type(result).__name__} result>"


def _repaired(result: Any, error: str | None) -> tuple[Any, str | None] | None:
    """(result, error) with lone surrogates replaced, or None when they held none."""
    fixed = valid_text(result), valid_text(error)
    return None if fixed[0] is result and fixed[1] is error else fixed


def record_result(guard: Guard, call: Call, result: Any, error: str | None) -> Verdict:
    """`guard.after_call`, never failing the user's run on what a tool gave: text with lone
    surrogates (a file name that is not UTF-8) is recorded with U+FFFD in their place, and a
    result the guard cannot digest (an object without a str(), over the size cap) by its type."""
    try:
        return guard.after_call(call, result=result, error=error)
    except InvalidArgumentError as exc:
        fixed = _repaired(result, error)
        if fixed is not None:
            return record_result(guard, call, *fixed)
        if error is not None or result is None:
            raise
        return guard.after_call(call, result=_stand_in(result, exc))


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
