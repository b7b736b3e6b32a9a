"""Text a tool produced that is not valid Unicode: lone surrogates, replaced (stdlib only, so
the Claude Code hook can import it on its hot path)."""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(value: Any) -> Any:
    """`value` with every lone surrogate in its strings (keys included, through dicts, lists
    and tuples) replaced by U+FFFD; `value` itself when it holds none.

    Lone surrogates come from a string cut between the halves of a pair (JavaScript's
    JSON.stringify writes one as `\\ud83d`) and from bytes that are not UTF-8 decoded with
    `errors="surrogateescape"` (`os.fsdecode` of a file name). The guard refuses them as
    arguments; a tool's output or error is what the tool gave, so it is repaired, not refused.
    """
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value
    if isinstance(value, dict):
        items = [(valid_text(k), valid_text(v)) for k, v in value.items()]
        if all(a is k and b is v for (a, b), (k, v) in zip(items, value.items(), strict=True)):
            return value
        return dict(items)
    if isinstance(value, list | tuple):
        out = [valid_text(v) for v in value]
        if all(a is b for a, b in zip(out, value, strict=True)):
            return value
        return out if isinstance(value, list) else tuple(out)
    return value


MAX_CALL_ID = 256
"""The longest `call_id` the guard takes (`Guard.before_call`, `call_for`)."""


def call_key(call_id: Any) -> Any:
    """A call id from outside (an MCP client's, a hook payload's `tool_use_id`, a framework's
    run id) as the guard takes it: itself when it is at most `MAX_CALL_ID` characters (or not
    a str: the guard says what is wrong with it), else its first 180 characters, "~" and the
    sha256 hex digest of the whole id, so the same long id names the same call before and
    after it runs, and two long ids that share their first characters stay apart."""
    if type(call_id) is not str or len(call_id) <= MAX_CALL_ID:
        return call_id
    import hashlib  # inside: only a long id needs it (the hook's start-up stays stdlib-light)

    digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{call_id[:180]}~{digest}"
