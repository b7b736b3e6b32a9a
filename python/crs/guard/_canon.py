"""A call's identity and a result's digest (issue 12, semantics 1).

The signature is a digest of the tool and its canonical arguments: keys sorted, numbers in
one form (1.0 == 1), strings stripped, shell commands split and joined by shlex (so
whitespace and quoting variants agree), commentary fields left out. Only digests leave this
module; the raw values never reach the engine.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import shlex
from collections.abc import Mapping
from typing import Any

from crs._errors import InvalidArgumentError

MAX_TOOL_CHARS = 256
MAX_VALUE_CHARS = 64 * 1024 * 1024
"""Arguments and results larger than this (as canonical text) are refused."""
MAX_DEPTH = 64

_dumps = json.JSONEncoder(
    sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
).encode
_sha = hashlib.sha256
_WS = re.compile(r"\s+")

_TRANSIENT = re.compile(
    r"(?i)(time[d ]?\s?out|timeout|deadline exceeded|rate.?limit|too many requests|\b429\b|"
    r"\b50[0-4]\b|service unavailable|bad gateway|gateway time|temporar(y|ily)|try again|"
    r"connection (reset|refused|aborted|error|closed)|econnreset|econnrefused|etimedout|"
    r"eai_again|enetunreach|ehostunreach|network (error|is unreachable)|broken pipe|"
    r"overloaded|unavailable|throttl)"
)


def check_tool(tool: Any) -> str:
    if type(tool) is not str:
        if not isinstance(tool, str):
            raise InvalidArgumentError(f"tool: must be a non-empty str, got {type(tool).__name__}")
        tool = str(tool)
    if not tool or len(tool) > MAX_TOOL_CHARS or tool != tool.strip():
        raise InvalidArgumentError(
            f"tool: must be a non-empty str of at most {MAX_TOOL_CHARS} characters without "
            f"surrounding whitespace, got {tool[:80]!r}"
        )
    try:
        tool.encode()
    except UnicodeEncodeError:
        raise InvalidArgumentError("tool: contains a lone surrogate (not valid UTF-8)") from None
    return str(tool)


def _norm_command(text: str) -> str:
    try:
        return shlex.join(shlex.split(text))
    except ValueError:  # unbalanced quotes: whitespace still should not matter
        return " ".join(text.split())


def _norm(value: Any, path: str, depth: int) -> Any:
    t = type(value)
    if t is str:
        return value.strip()
    if t is int or value is None or t is bool:
        return value
    if t is float:
        if not math.isfinite(value):
            raise InvalidArgumentError(f"{path}: must be a finite number, got {value!r}")
        return int(value) if value.is_integer() and abs(value) < 2**63 else value
    if depth > MAX_DEPTH:
        raise InvalidArgumentError(f"{path}: nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise InvalidArgumentError(f"{path}: keys must be str, got {type(k).__name__}")
            out[k] = _norm(v, f"{path}[{k!r}]", depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [_norm(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, str):
        return str(value).strip()
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return _norm(float(value), path, depth)
    raise InvalidArgumentError(
        f"{path}: must be JSON data (str, int, float, bool, None, list, dict), "
        f"got {type(value).__name__}"
    )


def _find_surrogate(value: Any, path: str) -> str:
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            return path
        return ""
    if isinstance(value, Mapping):
        for k, v in value.items():
            p = _find_surrogate(k, f"{path} key") or _find_surrogate(v, f"{path}[{k!r}]")
            if p:
                return p
    elif isinstance(value, list):
        for i, v in enumerate(value):
            p = _find_surrogate(v, f"{path}[{i}]")
            if p:
                return p
    return ""


def _encode(doc: Any, name: str) -> bytes:
    text = _dumps(doc)
    if len(text) > MAX_VALUE_CHARS:
        raise InvalidArgumentError(
            f"{name}: {len(text)} characters as JSON, more than the guard takes ({MAX_VALUE_CHARS})"
        )
    try:
        return text.encode()
    except UnicodeEncodeError:
        where = _find_surrogate(doc, name) or name
        raise InvalidArgumentError(
            f"{where}: contains a lone surrogate (not valid UTF-8); decode tool output with "
            "errors='replace'"
        ) from None


def canonical_args(
    args: Mapping[str, Any] | None,
    drop: frozenset[str],
    commands: frozenset[str],
) -> dict[str, Any]:
    """The canonical form of a call's arguments (see the module docstring)."""
    if args is None:
        return {}
    if not isinstance(args, Mapping):
        raise InvalidArgumentError(
            f"args: must be a mapping of argument names to JSON data, got {type(args).__name__}"
        )
    out: dict[str, Any] = {}
    for k, v in args.items():
        if type(k) is not str:
            raise InvalidArgumentError(f"args: keys must be str, got {type(k).__name__}")
        if k in drop:
            continue
        if type(v) is str:
            out[k] = _norm_command(v) if k in commands else v.strip()
        else:
            out[k] = _norm(v, f"args[{k!r}]", 1)
    return out


def signature(tool: str, canon: dict[str, Any]) -> str:
    """32 hex digits of SHA-256 over the tool and the canonical arguments."""
    data = _encode(canon, "args") if canon else b"{}"
    return _sha(tool.encode() + b"\x00" + data).hexdigest()[:32]


def free_text(canon: dict[str, Any]) -> str:
    """The free-text argument values (three words or more), for near-duplicate checks."""
    parts = [v for _, v in sorted(canon.items()) if type(v) is str and v.count(" ") >= 2]
    return " ".join(parts)[:2000] if parts else ""


def result_digest(result: Any) -> str:
    """A digest of a tool's result (16 hex digits)."""
    t = type(result)
    if t is str:
        if len(result) > MAX_VALUE_CHARS:
            raise InvalidArgumentError(
                f"result: {len(result)} characters, more than the {MAX_VALUE_CHARS} the guard takes"
            )
        try:
            data = result.strip().encode()
        except UnicodeEncodeError:
            raise InvalidArgumentError(
                "result: contains a lone surrogate (not valid UTF-8); decode tool output with "
                "errors='replace'"
            ) from None
        return _sha(b"s" + data).hexdigest()[:16]
    if result is None:
        return "0" * 16
    if isinstance(result, bytes | bytearray | memoryview):
        data = bytes(result)
        if len(data) > MAX_VALUE_CHARS:
            raise InvalidArgumentError(f"result: {len(data)} bytes, more than {MAX_VALUE_CHARS}")
        return _sha(b"b" + data).hexdigest()[:16]
    try:
        doc = _norm(result, "result", 0)
    except InvalidArgumentError:
        cls: Any = type(result)
        if cls.__repr__ is object.__repr__ and cls.__str__ is object.__str__:
            raise InvalidArgumentError(
                f"result: must be JSON data, str or bytes (or an object with its own str()), "
                f"got {type(result).__name__}"
            ) from None
        return result_digest(str(result))
    return _sha(b"j" + _encode(doc, "result")).hexdigest()[:16]


def error_text(error: BaseException | str) -> str:
    if isinstance(error, BaseException):
        text = f"{type(error).__name__}: {error}"
    elif isinstance(error, str):
        text = error
    else:
        raise InvalidArgumentError(
            f"error: must be an exception, a str or None, got {type(error).__name__}"
        )
    text = text.strip() or "error"
    if len(text) > MAX_VALUE_CHARS:
        raise InvalidArgumentError(f"error: {len(text)} characters, more than {MAX_VALUE_CHARS}")
    try:
        text.encode()
    except UnicodeEncodeError:
        raise InvalidArgumentError("error: contains a lone surrogate (not valid UTF-8)") from None
    return text


def is_transient(error: BaseException | str, text: str) -> bool:
    """Timeouts, rate limits, 5xx and network errors: worth a retry."""
    if isinstance(error, TimeoutError | ConnectionError):
        return True
    return _TRANSIENT.search(text[:4000]) is not None


def error_digest(text: str) -> str:
    # Volatile parts (numbers such as durations, addresses, pids) do not make a new error.
    norm = _WS.sub(" ", re.sub(r"0x[0-9a-fA-F]+|\d+(\.\d+)?", "#", text[:20000])).strip()
    return _sha(b"e" + norm.encode()).hexdigest()[:16]


def preview(canon: dict[str, Any], limit: int = 160) -> str:
    """A short view of the arguments (for people; sanitized before it is stored)."""
    if not canon:
        return ""
    if len(canon) == 1:
        (v,) = canon.values()
        text = v if isinstance(v, str) else _dumps(v)
    else:
        text = _dumps(canon)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
