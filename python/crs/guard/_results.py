"""What a tool's result says when the harness hands the guard the model-facing form.

Many harnesses never raise: a failure reaches `after_call(call, result=...)` as the text the
model is shown, or inside the envelope of a protocol. `unwrap(result)` reads the forms the
frameworks document, so a failure counts as one (error loops, the breaker, the memory across
sessions) and an envelope is judged by what it carries:

- MCP's `CallToolResult` (`{"content": [{"type": "text", "text": ...}], "isError": ...}`,
  with `structuredContent` / `_meta` / `resultType`), Anthropic's `tool_result` block
  (`content` a str or blocks, `is_error`) and the pi agent's / OpenClaw's `{content,
  details}` (details for the UI): `isError` / `is_error` true is a failure whose text is
  the content; otherwise the result is its `structuredContent`, else its text (a JSON
  object or array when the text is one: MCP servers send their data so; blocks other than
  text leave the envelope as it is).
- A record of a command the tool ran (`exit_code` / `exitCode` / `returncode` /
  `exit_status` beside `stdout` / `stderr`): a non-zero exit is a failure whose text is what
  the command printed (stderr first); a zero exit is a field that says nothing (below).
- `{"success": false}` / `{"ok": false}` with an `error` / `message` / `detail` / `reason`
  text (Slack's and many REST APIs' failure), and `{"error": <text>}` alone (other fields
  empty or stamps): a failure with that text. A `status` of "failed" is not one: it is
  what a job, a run or a check the tool looked at says of itself (polling a CI run that
  failed is a call that worked).
- JSON-RPC's error object (`{"error": {"code": ..., "message": ...}}`, no `result`) and
  GraphQL's `{"data": null, "errors": [{"message": ...}]}`: a failure with that message (a
  GraphQL answer with data and errors is an answer).
- A chat API's tool message with no mark of its own (OpenAI's `{"role": "tool",
  "tool_call_id": ..., "content": ...}`): its text, read as a text result is.
- A wrapper of one text (`{"output": ..., "elapsed_ms": 12}`, `{"stdout": ..., "stderr": "",
  "interrupted": false}`, OpenAI Responses' `function_call_output` item): the text under
  `output` / `result` / `text` / `content` / `stdout` / `response` / `body`, every other
  field empty, false, zero or a stamp (`_canon.RESULT_STAMP_KEYS`; an answer item's `type`
  and call id): the result is that text (`{"time": ...}` is a record).
- A text (of at most 1 MiB) that starts with a JSON object that reports a failure by the
  rules above (`{"error": "..."}`, an MCP result's or a `tool_result`'s JSON, `{"success":
  false, ...}`; its first 80 characters name `"error`, `rror"`, `"success"` or `"ok"`),
  whatever note follows it (a harness's loop warning with its count): a `GuessedJSON`
  failure (the text may be a JSON file a read returned).
- A text that starts as an error report does: `Error: ...`, `error[E0425]: ...`, `fatal:
  ...`, `Exception: ...`, `Error executing tool x: ...` (MCP's Python SDK), `An error
  occurred while running the tool. Please try again. Error: ...` (the OpenAI Agents SDK's
  default; the failure is what follows its boilerplate, whose "try again" is not the
  error's), `<tool_use_error>...` (Claude Code), `Traceback (most recent call last):`, a
  Python exception line (`ValueError: ...`, `json.decoder.JSONDecodeError: ...`), `Command
  failed with exit code 2`, `Exit code 1`; or a short output whose first line is an errno
  message (`cat: x: No such file or directory`, `bash: y: command not found`). A summary
  such as `Errors: 0`, `Failed: 0, passed: 12` or `error count: 0` is not one.

A pydantic model (the MCP SDK's `CallToolResult`, LangChain's `ToolMessage`) is read as the
dict it dumps to. Only a result the caller did not mark already is read (`error=` given: the
error is the error). Cost on the hot path: `type(result) is dict` or one anchored regex
match of a str.
"""

from __future__ import annotations

import json
import re
from typing import Any

from crs.guard._canon import _stamp_key

# An error report's first words (case-insensitive, after leading whitespace); tried only on
# a text whose first three letters may start one (`_STARTS`: most results are rejected by a
# slice and a set lookup; an anchored alternation costs ~250 ns even when it fails at once).
_HEAD = re.compile(
    r"(?i)\s*(?:"
    r"(?:error(?:\[\w{1,16}\])?|fatal|exception|panic)\s*:"
    r"|error (?:executing|running|calling|invoking|while|during|when)\b"
    r"|tool (?:error|execution (?:error|failed))\b"
    r"|<tool_use_error>|<error>"
    r"|traceback \(most recent call last\)"
    r"|(?:command )?failed with exit (?:code|status) -?[1-9]"
    r"|exit (?:code|status):? -?[1-9]"
    r"|exited with (?:code|status) -?[1-9]"
    r"|an error occurred\b"
    r")"
)
_STARTS = frozenset(
    f(w)
    for w in ("err", "fat", "exc", "pan", "too", "<to", "<er", "tra", "com", "fai", "exi", "an ")
    for f in (str.lower, str.title, str.upper)
)
# A Python (or Java) exception line (`ValueError: ...`, `requests.exceptions.HTTPError: ...`;
# case matters).
_EXCEPTION = re.compile(r"\s*[A-Za-z_][\w.]{0,120}(?:Error|Exception|Exit)(?:\([^\n]{0,200}\))?: ")
# The OpenAI Agents SDK's default failure text: the failure is what follows.
_AGENTS_SDK = re.compile(
    r"\s*An error occurred while running the tool\. Please try again\. Error: ", re.IGNORECASE
)
# An errno message as a command prints it on its first line (`prog: path: <strerror>`).
_ERRNO = re.compile(
    r"[^\n]{1,300}?: (?:No such file or directory|command not found|Permission denied|"
    r"Not a directory|Is a directory|Operation not permitted)\s*(?:\n|$)",
    re.IGNORECASE,
)
_ERRNO_LINES = 3  # (an output this short: a listing of many lines is data)
_ERRNO_CHARS = 1200
_COLON_BY = 340  # (an exception line's ": " comes within 330 characters, an errno's 300)
_SPACE = " \t\n\r\x0b\x0c"
_JSON_CHARS = 1 << 20
_DECODER = json.JSONDecoder()
# A harness's own words for a failed call (its boilerplate, never a file's or a command's
# output): a failure read from a text that starts so is marked; one read from a text that
# merely starts as an error report does (`Error: ...`, a traceback, an exception line, an
# errno message) may be what the tool read (a crash log, a grep for errors; rt11).
_MARKED = re.compile(
    r"(?i)\s*(?:"
    r"error (?:executing|running|calling|invoking) tool\b"
    r"|error:\s*(?:exit (?:code|status) -?[1-9]|command failed)"
    r"|tool (?:error|execution (?:error|failed))\b"
    r"|<tool_use_error>"
    r"|(?:command )?failed with exit (?:code|status) -?[1-9]"
    r"|exit (?:code|status):? -?[1-9]"
    r"|exited with (?:code|status) -?[1-9]"
    r"|an error occurred while running the tool\b"
    r")"
)


class Guessed(str):
    """A failure read from a text that only starts as an error report does (`Error: ...`,
    `Traceback ...`, `ValueError: ...`, `cat: x: No such file or directory`), not from a
    harness's mark (an envelope's `isError`, a non-zero exit, an error object, a harness's
    boilerplate): a crash log read, a grep for `Error:`, a `tail` of a log start so too.
    It counts in its session (error loops, the breaker) but is not learned: a later
    session does not refuse the call for it (rt11)."""

    __slots__ = ()


class GuessedJSON(Guessed):
    """A failure read from a text that spells a JSON failure object (`{"error": "..."}`):
    the text may be a document the tool read (`cat config.json`, a cached response), so
    a call that reads content does not learn it, whatever its length (rt12). A dict the
    tool returned is its own answer, not a text: its failure is not guessed."""

    __slots__ = ()


# (`details`: the pi agent's and OpenClaw's tool result, `{content, details}`, whose details
# are for the UI and never shown to the model)
_ENVELOPE_KEYS = frozenset(
    {
        "content",
        "isError",
        "is_error",
        "structuredContent",
        "_meta",
        "meta",
        "type",
        "tool_use_id",
        "details",
        # (MCP's `Result.resultType`, required on the wire since the 2026-07-28 revision:
        # `"complete"` beside the content; without it here such a result marked `isError`
        # was no envelope, a success; rt12)
        "resultType",
        # (the Anthropic API's prompt-caching mark on a `tool_result` block: with it the
        # block's `is_error` was not read; rt12)
        "cache_control",
    }
)
# The keys of a tool message that answers one call: the call's id (one of `_CALL_ID_KEYS`),
# its status, the tool's name, and metadata the model is not shown.
_CALL_ID_KEYS = frozenset({"tool_call_id", "toolCallId", "toolUseId", "tool_use_id", "call_id"})
_MESSAGE_KEYS = (
    _ENVELOPE_KEYS
    | _CALL_ID_KEYS
    | {
        "status",
        "name",
        "id",
        "artifact",
        "additional_kwargs",
        "response_metadata",
        "role",  # (a chat API's tool message, `{"role": "tool", "tool_call_id", "content"}`)
    }
)
_EXIT_KEYS = frozenset({"exitcode", "returncode", "exitstatus"})
# Beside `"status": "error"`, the fields of a call's own result that only echo the call or
# frame the failure (`_dict`).
_STATUS_ECHO_KEYS = frozenset(
    {"status", "error", "message", "invocation", "params", "return_code", "url"}
    | {"schema_version", "tool_name", "tool"}
)
_FAILURE_TEXT_KEYS = ("error", "message", "detail", "reason", "stderr")
_OUTPUT_KEYS = ("stderr", "stdout", "output")
# The fields a wrapper of one text keeps it in (`{"time": ...}` is a record, not a wrapper).
_CONTENT_KEYS = frozenset({"output", "result", "text", "content", "stdout", "response", "body"})


def failure_text(text: str) -> str | None:
    """The failure a tool's text reports (see the module), or None; a `Guessed` one when
    only the text's start says so."""
    if not text:
        return None
    if text[0] in _SPACE:
        text = text.lstrip()
        if not text:
            return None  # (whitespace only)
    if text[:3] in _STARTS and _HEAD.match(text) is not None:
        sdk = _AGENTS_SDK.match(text)
        if sdk is not None:
            return text[sdk.end() :].strip() or "error"
        return text if _MARKED.match(text) is not None else Guessed(text)
    if text[0] == "{" and len(text) <= _JSON_CHARS and _may_report(text[1:80]):
        # (at most 1 MiB parsed: a longer text is data, and parsing it cost ~4x its size;
        # rt11)
        # a JSON failure as text, maybe with a note the harness added after it
        # (`{"error": "..."}\n[Tool loop warning: ...; count=3]`, hermes; fresh20)
        try:
            doc = _DECODER.raw_decode(text)[0]
        except (ValueError, RecursionError):
            doc = None
        if type(doc) is dict:
            said = _dict(doc)[1]
            return None if said is None else GuessedJSON(said)
    # an exception line or an errno message has its ": " early (most texts have none there)
    if text.find(": ", 0, _COLON_BY) < 0:
        return None
    if _EXCEPTION.match(text) is not None:
        return Guessed(text)
    if (
        len(text) < _ERRNO_CHARS
        and text.count("\n") < _ERRNO_LINES
        and _ERRNO.match(text) is not None
    ):
        return Guessed(text)
    return None


def _may_report(head: str) -> bool:
    """Whether a JSON text's first 80 characters may hold a failure's mark: an `"error"`
    key, `"isError"` / `"is_error"` (an MCP result or a tool_result block serialized as
    text: before, only `"error` was looked for; rt12), `"success"` / `"ok"` (false)."""
    return '"error' in head or 'rror"' in head or '"success"' in head or '"ok"' in head


def _empty(v: Any) -> bool:
    """None, False, 0, "", [] or {}: a field that says nothing."""
    t = type(v)
    if t is str or t is list or t is dict:
        return not v
    return v is None or v is False or ((t is int or t is float) and v == 0)


def _key(k: Any) -> str:
    return k.lower().replace("_", "").replace("-", "") if type(k) is str else ""


def _blocks_text(content: Any) -> str | None:
    """The text of an envelope's content (a str, or a list of text blocks), else None."""
    if type(content) is str:
        return content
    if type(content) is not list:
        return None
    parts = []
    for block in content:
        if type(block) is not dict:
            return None
        kind = block.get("type")
        if kind != "text" and not (kind is None and len(block) == 1):  # (Strands: {"text"})
            return None
        text = block.get("text")
        if type(text) is not str:
            return None
        parts.append(text)
    return "\n".join(parts)


def _json_text(text: str) -> Any:
    """An envelope's text as the JSON object or array it spells (MCP servers return their
    data so), else the text."""
    head = text.lstrip()[:1]
    if (head == "{" or head == "[") and len(text) <= _JSON_CHARS:
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError):
            return text
        if type(doc) is dict or type(doc) is list:
            return doc
    return text


def _envelope(result: dict[Any, Any], message: bool) -> tuple[Any, str | None]:
    """An envelope's substance and failure (`_dict`)."""
    text = _blocks_text(result["content"])
    status = result.get("status")
    if (
        result.get("isError") is True
        or result.get("is_error") is True
        or (message and type(status) is str and status.lower() == "error")
    ):
        return result, (text or "").strip() or "error"
    structured = result.get("structuredContent")
    if type(structured) is dict or type(structured) is list:
        return structured, None  # (the text content is its serialization)
    if text is None:
        return result, None
    if message and "role" in result and "status" not in result and "is_error" not in result:
        # a tool message with no mark of its own (OpenAI's chat `{"role": "tool", ...}`):
        # its text is what the model is shown, read as a text result is (rt12)
        return _json_text(text), failure_text(text)
    return _json_text(text), None


def _typed_output(result: dict[Any, Any]) -> tuple[Any, str | None] | None:
    """`{"type": "text"|"json"|"error-text"|"error-json"|"content", "value": ...}` (the
    Vercel AI SDK's tool output), else None."""
    kind, value = result["type"], result["value"]
    if kind == "text" or kind == "json":
        return value, None
    if kind == "error-text" and type(value) is str:
        return result, value.strip() or "error"
    if kind == "error-json":
        text = value if type(value) is str else _json_dumps(value)
        return result, (text or "").strip() or "error"
    if kind == "content":
        text = _blocks_text(value)
        return (result, None) if text is None else (_json_text(text), None)
    return None


def _json_dumps(value: Any) -> str | None:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):
        return None


def _dict(result: dict[Any, Any]) -> tuple[Any, str | None]:
    if "content" in result:
        # a tool message (LangChain's ToolMessage, Strands' ToolResult) names the call it
        # answers: its `status` is the call's, and its name and metadata are no content
        message = not _CALL_ID_KEYS.isdisjoint(result)
        if (_MESSAGE_KEYS if message else _ENVELOPE_KEYS).issuperset(result):
            return _envelope(result, message)
    if len(result) == 2 and "value" in result and type(result.get("type")) is str:
        got = _typed_output(result)
        if got is not None:
            return got
    keys = {_key(k): k for k in result}
    for ek in _EXIT_KEYS & keys.keys():
        code = result[keys[ek]]
        if (
            type(code) is int
            and code != 0
            and ("stdout" in result or "stderr" in result or "output" in result)
        ):
            # (a command record with one `output` text: `{"output": ..., "exit_code": 2}`,
            # a compile that failed; fresh27)
            for name in _OUTPUT_KEYS:
                said = result.get(name)
                if type(said) is str and said.strip():
                    return result, said.strip()
            return result, f"exit code {code}"
    failed = result.get("success") is False or result.get("ok") is False
    if not failed and result.get("status") == "error":
        # a tool's own status of the call (HolmesGPT's StructuredToolResult: `{"status":
        # "error", "error": ..., "return_code": 1, "data": null, "invocation": ...}`), with
        # nothing else than what echoes the call beside it: a read of something that is in
        # an error state names it (`{"id": ..., "status": "error", ...}`; fresh22)
        failed = all(
            k in _STATUS_ECHO_KEYS or _empty(v) or _stamp_key(k)
            for k, v in result.items()
            if type(k) is str
        )
    if failed or "error" in result:
        for name in _FAILURE_TEXT_KEYS:
            said = result.get(name)
            if type(said) is str and said.strip():
                if failed:
                    return result, said.strip()
                if name == "error" and all(
                    k == "error" or _empty(v) or _stamp_key(k)
                    for k, v in result.items()
                    if type(k) is str
                ):
                    return result, said.strip()
                break
    # JSON-RPC's error object (`{"jsonrpc": "2.0", "error": {"code": -32602, "message":
    # ...}}`, no `result`) and GraphQL's `errors` with no data
    err = result.get("error")
    if type(err) is dict and "result" not in result:
        said = err.get("message")
        if type(said) is str and said.strip() and ("code" in err or "jsonrpc" in result):
            return result, said.strip()
    errs = result.get("errors")
    if type(errs) is list and errs and result.get("data") is None and "data" in result:
        first = errs[0]
        said = first.get("message") if type(first) is dict else None
        if type(said) is str and said.strip():
            return result, said.strip()
    # a wrapper of one text: every other field empty or a stamp (or, for an item that
    # answers a call, its id and kind: OpenAI Responses' `{"type": "function_call_output",
    # "call_id": ..., "output": ...}`; rt12)
    only: str | None = None
    answer = result.get("type") == "function_call_output"
    for k, v in result.items():
        if type(k) is not str:
            return result, None
        if _empty(v) or _stamp_key(k) or (answer and (k == "type" or k in _CALL_ID_KEYS)):
            continue  # (a stamp that is text, `{"time": ...}`, is no wrapper's content)
        if _key(k) in _CONTENT_KEYS and (type(v) is str or type(v) is list):
            text = v if type(v) is str else _blocks_text(v)  # (text blocks: n8n's response)
            if text is None or not text.strip():
                return result, None
            if only is not None:
                return result, None
            only = text
        else:
            return result, None
    if only is None:
        return result, None
    return only, failure_text(only)


def unwrap(result: Any) -> tuple[Any, str | None]:
    """(what `result` says, the failure it reports or None); see the module."""
    t = type(result)
    if t is str:
        return result, failure_text(result) if result else None
    if t is dict:
        return _dict(result)
    if getattr(t, "model_fields", None) is not None:
        doc = _model_dict(result)
        if doc is not None:
            return _dict(doc)
    return result, None


def _model_dict(result: Any) -> dict[Any, Any] | None:
    """A pydantic model (v2) as the dict it dumps to (`exclude_none`, by alias): the MCP
    SDK's `CallToolResult` and LangChain's `ToolMessage` handed over as the objects the
    SDKs return read as their dict forms do (an `isError` one was a success; rt12). None
    when it does not dump."""
    dump = getattr(result, "model_dump", None)
    if not callable(dump):
        return None
    try:
        doc = dump(exclude_none=True, by_alias=True)
    except Exception:  # (a model whose fields do not dump: judged as the object)
        return None
    return doc if type(doc) is dict else None
