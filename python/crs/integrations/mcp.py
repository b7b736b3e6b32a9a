"""MCP: `crs mcp`, a guard server any MCP client can consult, and `GuardMiddleware`, which guards
every tool of your own fastmcp server.

Two halves, one guard (`crs.guard.Guard`, durable through the project's journal):

- `create_server(guard)` builds the server `crs mcp` runs. Its tools: `check_call` (before a tool
  runs: may it?), `record_result` (after: what came of it), `explain`, `learned_failures` and
  `forget_failure`; its resource `crs://status`. Transports: stdio and streamable HTTP; over
  HTTP every request needs `Authorization: Bearer <token>` (`serve(token=...)`; `crs mcp`
  makes one per run), since any local user can reach a loopback port.
- `GuardMiddleware(guard)` sits in a user's own `FastMCP(..., middleware=[...])`: every
  `tools/call` goes through `before_call`; a blocked call is answered with a tool error carrying
  the guard's message for the model, an allowed one runs and its result (or exception) goes to
  `after_call`; a nudge is appended to the result as one more text block.

Why fastmcp (4.x) rather than the official `mcp` SDK's own server classes (both were read, as
installed: `mcp` 2.3.0 `mcp.server.mcpserver` / `lowlevel`, `fastmcp` 4.1.6):

- The middleware has to be fastmcp's (`fastmcp.server.middleware.Middleware`, what a fastmcp
  server takes in `FastMCP(middleware=[...])`, with `on_call_tool` seeing the tool's name,
  arguments and `ToolResult`; the SDK's `ServerMiddleware` wraps raw JSON-RPC requests below
  fastmcp's dispatch, before validation, and fastmcp offers no public way to add one), so
  `crs-agent[mcp]` needs fastmcp anyway. fastmcp depends on `mcp` itself: building the server on
  fastmcp adds no second framework, and one session-resolution path serves both halves.
- fastmcp brings what the server needs without glue: `run_stdio_async` / `run_http_async`
  (streamable HTTP through uvicorn), tools typed from signatures, resources, and the in-process
  `Client(server)` the tests drive.
- The price, measured here: `from fastmcp import FastMCP` takes ~1.5 s and 87 MB of RSS against
  ~0.7 s and 66 MB for `mcp.server.mcpserver`. A server pays it once at start, never per call.

Sessions. A session id comes, first found wins, from: the tool's `session_id` argument (the
guard server's tools take one); the request's `_meta["crs/session_id"]`; the transport's own
session, on connections that have one (handshake-era protocol versions: the streamable-HTTP
`Mcp-Session-Id`, or on stdio and in-memory transports an id fastmcp assigns once per connection);
the authenticated principal. Otherwise it is the guard's own session, assigned once per server
process (`crs mcp --session`, default a fresh `mcp-<hex>`), so it is stable across every call a
client makes. fastmcp's `Context.session_id` is *not* used on 2026-07-28 connections (the default
of fastmcp's `Client`): there every request is a connection of its own and the id changes on
every call, which would make every call a session of one and hide every loop.

Several processes. Several `crs mcp` servers (and hooks, and agents) may have one project open
at once: its journal is shared. A guard sees what the others appended whenever it writes; the
server and the middleware also read it before each decision (`CRS.refresh`, in the same worker
thread as `before_call`), so a failure another process learned a moment ago is refused here on
the very next try.

The framework is imported here only; `import crs` never imports this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import ipaddress
import json
import logging
import os
import signal
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

import mcp_types as mt
from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.server.sessions import current_principal
from fastmcp.tools import ToolResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from crs import CRSError, InvalidArgumentError
from crs._check import brief
from crs.guard import Action, Call, Guard, GuardPolicy, Verdict, _record
from crs.guard._record import arecord_result
from crs.guard._text import call_key

__all__ = [
    "GuardMiddleware",
    "SESSION_META_KEY",
    "STATUS_URI",
    "VERDICT_META_KEY",
    "client_session",
    "create_server",
    "run",
    "serve",
]

logger = logging.getLogger(__name__)

SESSION_META_KEY = "crs/session_id"
"""Request `_meta` key a client may set to name its session."""

STATUS_URI = "crs://status"
"""The guard server's status resource."""

VERDICT_META_KEY = "crs/verdict"
"""Result `_meta` key under which the middleware reports the guard's verdict."""

_MAX_SESSION_LEN = 200
_MAX_SESSIONS = 1024  # guards kept per server, least recently used dropped
_MAX_PENDING = 4096  # check_call handles awaiting their record_result

Transport = Literal["stdio", "http"]
_T = TypeVar("_T")


def _check_session(value: Any, name: str) -> str:
    if (
        not isinstance(value, str)
        or not value
        or len(value) > _MAX_SESSION_LEN
        or not value.isprintable()
    ):
        raise InvalidArgumentError(
            f"{name}: must be a non-empty printable str of at most {_MAX_SESSION_LEN} "
            f"characters, got {brief(value)}"
        )
    return value


@contextlib.contextmanager
def _input_errors() -> Iterator[None]:
    """A guard server tool's bad input (InvalidArgumentError) as fastmcp's ToolError: the
    client gets the message as a tool error, and the server logs one line at WARNING, not a
    traceback of an internal error."""
    try:
        yield
    except InvalidArgumentError as exc:
        raise ToolError(str(exc), log_level=logging.WARNING) from None


def client_session(ctx: Context | None) -> str | None:
    """The session the client or its transport names for this request, or None.

    `_meta["crs/session_id"]`, else the transport's session on handshake-era connections, else
    the authenticated principal. None on a 2026-07-28 connection of an anonymous client (each
    request is a connection of its own there: see the module docstring).
    """
    if ctx is None:
        return None
    rc = ctx.request_context
    if rc is None:
        return None
    meta = rc.meta
    if isinstance(meta, Mapping) and meta.get(SESSION_META_KEY) is not None:
        return _check_session(meta[SESSION_META_KEY], f"_meta[{SESSION_META_KEY!r}]")
    if rc.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return ctx.session_id  # stable for the whole connection on these versions
    principal = current_principal()
    if principal is not None:
        digest = hashlib.sha256(principal.encode("utf-8", "surrogatepass")).hexdigest()
        return f"user-{digest[:16]}"
    return None


class _Sessions:
    """One guard per session, all on the engine of the guard given (`Guard.with_session`)."""

    def __init__(self, guard: Guard) -> None:
        self.root = guard
        self._guards: OrderedDict[str, Guard] = OrderedDict()

    def get(self, session: str | None) -> Guard:
        if session is None or session == self.root.session_id:
            return self.root
        guard = self._guards.get(session)
        if guard is None:
            guard = self.root.with_session(session)
            self._guards[session] = guard
            if len(self._guards) > _MAX_SESSIONS:
                self._guards.popitem(last=False)
        else:
            self._guards.move_to_end(session)
        return guard

    def resolve(self, ctx: Context | None, explicit: str | None = None) -> Guard:
        if explicit is not None:
            return self.get(_check_session(explicit, "session_id"))
        return self.get(client_session(ctx))

    def names(self) -> list[str]:
        return [self.root.session_id, *self._guards]


async def _before(
    g: Guard, tool: str, args: Mapping[str, Any], call_id: str | None, named: bool = False
) -> Verdict:
    """`before_call`, having first read what other processes appended to the project's
    journal (a durable guard's journal is shared): a failure another server or agent learned a
    moment ago is refused here too. In one worker thread, so the event loop never waits.
    Arguments the guard cannot take as they are (a lone surrogate from a JavaScript client, a
    nesting too deep) are the model's: the call is guarded by a stand-in, as the LangChain and
    Agents SDK integrations do (`crs.guard._record.before_call`), not refused."""
    if not g.durable:
        return _record.before_call(g, tool, args, call_id, named=named)

    def decide() -> Verdict:
        _refresh(g)
        return _record.before_call(g, tool, args, call_id, named=named)

    return await asyncio.to_thread(decide)


def _refresh(g: Guard) -> None:
    try:
        g.crs.refresh()
    except CRSError:  # decide on what this process knows rather than not at all
        logger.warning("crs guard: could not read the project's latest records", exc_info=True)


def _fresh(g: Guard, read: Callable[[], _T]) -> _T:
    if g.durable:
        _refresh(g)
    return read()


def _verdict_data(verdict: Verdict) -> dict[str, Any]:
    data = verdict.to_dict()
    if verdict.call is not None:
        data["session_id"] = verdict.call.session_id
    return data


_INSTRUCTIONS = """\
crs guards your tool calls against loops and known failures. Before you run a tool, call
check_call with its name and arguments. If the answer's "allowed" is false, do not run the tool:
do what its "message" says instead. If it is true, run the tool, then call record_result with the
answer's call.call_id and the tool's result (or its error). A "message" on an allowed answer is
advice: read it before going on. Agents sharing this server pass each its own session_id."""


def create_server(guard: Guard, *, name: str = "crs") -> FastMCP:
    """The guard server over `guard` (its session is the default, see the module docstring).

    The caller owns `guard` and closes it after the server has stopped.
    """
    if not isinstance(guard, Guard):
        raise InvalidArgumentError(f"guard: must be a crs.guard.Guard, got {type(guard).__name__}")
    sessions = _Sessions(guard)
    pending: OrderedDict[tuple[str, str], Call] = OrderedDict()
    server = FastMCP(name, instructions=_INSTRUCTIONS)

    @server.tool(annotations=mt.ToolAnnotations(read_only_hint=False, idempotent_hint=False))
    async def check_call(
        tool: str,
        ctx: Context,
        arguments: dict[str, Any] | None = None,
        call_id: str | None = None,
        session_id: str | None = None,
    ) -> dict[str, Any]:
        """Ask before running a tool: may this call run? Returns the verdict: "allowed",
        "action" (allow, nudge, block, stop), "code", "message" (what to do instead, for you),
        "reason" (for a person) and "call" (pass call.call_id to record_result)."""
        with _input_errors():
            g = sessions.resolve(ctx, session_id)
            verdict = await _before(g, tool, arguments or {}, call_id, named=True)
        if verdict.call is not None and verdict.allowed:
            key = (verdict.call.session_id, verdict.call.call_id)
            pending[key] = verdict.call
            if len(pending) > _MAX_PENDING:
                pending.popitem(last=False)
        return _verdict_data(verdict)

    @server.tool(annotations=mt.ToolAnnotations(read_only_hint=False, idempotent_hint=False))
    async def record_result(
        ctx: Context,
        tool: str | None = None,
        arguments: dict[str, Any] | None = None,
        call_id: str | None = None,
        result: Any = None,
        error: str | None = None,
        session_id: str | None = None,
    ) -> dict[str, Any]:
        """Report what a tool call gave after running it: its result, or its error message.
        Name the call by the call_id check_call returned (or by tool and arguments). Returns a
        verdict; its "message", when there is one, is advice about what to do next."""
        with _input_errors():
            g = sessions.resolve(ctx, session_id)
            call_id = call_key(call_id)  # (as check_call's `_record.before_call` keyed it)
            key = (g.session_id, call_id or "")
            call = pending.get(key)
            if call is None:
                if tool is None:
                    raise InvalidArgumentError(
                        "tool: required unless call_id names a call check_call allowed"
                    )
                call = _record.call_for(g, tool, arguments or {}, call_id, named=True)
            elif tool is not None and tool != call.tool:
                raise InvalidArgumentError(
                    f"tool: {brief(tool)} is not the tool of call_id {brief(call_id)} "
                    f"({brief(call.tool)})"
                )
            else:
                del pending[key]
            # the output as the tool gave it
            verdict = await arecord_result(g, call, result, error)
        return _verdict_data(verdict)

    @server.tool(annotations=mt.ToolAnnotations(read_only_hint=True))
    async def explain(ctx: Context, session_id: str | None = None) -> dict[str, Any]:
        """What the guard knows about this session: recent calls, loops, learned failures."""
        with _input_errors():
            g = sessions.resolve(ctx, session_id)
        data = await asyncio.to_thread(_fresh, g, g.explain)
        return {"session_id": g.session_id, **data}

    @server.tool(annotations=mt.ToolAnnotations(read_only_hint=True))
    async def learned_failures() -> dict[str, Any]:
        """The failures the guard has learned for this project: calls it refuses to repeat
        while the workspace is unchanged. Each has an "id" forget_failure takes."""
        failures = await asyncio.to_thread(_fresh, guard, guard.learned)
        return {"failures": [f.to_dict() for f in failures]}

    @server.tool(annotations=mt.ToolAnnotations(read_only_hint=False, destructive_hint=True))
    async def forget_failure(failure_id: str) -> dict[str, Any]:
        """Forget one learned failure (by its id from learned_failures), so the call may run."""
        with _input_errors():
            forgotten = await asyncio.to_thread(guard.forget, failure_id)
        return {"id": failure_id, "forgotten": forgotten}

    @server.resource(STATUS_URI, mime_type="application/json")
    async def status() -> dict[str, Any]:
        """The server's sessions, and the default session's figures (calls, loop state,
        refusals, learned failures)."""
        data = await asyncio.to_thread(_fresh, guard, guard.status)
        return {
            "server": {
                "pid": os.getpid(),
                "default_session": guard.session_id,
                "sessions": sessions.names(),
                "pending_calls": len(pending),
            },
            "guard": data,
        }

    return server


_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def _loopback(host: str) -> bool:
    try:
        return host in _LOOPBACK_NAMES or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


_UNAUTHORIZED = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32001,
            "message": "Unauthorized: missing or wrong bearer token (Authorization: Bearer "
            "<token>; crs mcp printed it on stderr at start-up)",
        },
    }
).encode()


class _BearerToken:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`, else 401.

    Any local user can reach a loopback port; the token is what tells the person who started
    the server from them (reading what the project learned, forgetting it, recording failures
    that make the agent's next calls refused). Not fastmcp's `auth=`: an authenticated
    principal becomes the session of a client that names none (`client_session`), which would
    override `crs mcp --session`. The comparison is `hmac.compare_digest`."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = b"bearer " + token.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan" or (scope["type"] == "http" and self._authorized(scope)):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":  # none is served; refused before the app sees it
            await send({"type": "websocket.close", "code": 1008})
            return
        # a JSON-RPC error: an MCP client shows its message rather than a bare status
        body = _UNAUTHORIZED
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="crs"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _authorized(self, scope: Any) -> bool:
        given = [v for k, v in scope.get("headers", ()) if k.lower() == b"authorization"]
        if len(given) != 1:  # none, or several (which one would a proxy have checked?)
            return False
        value = given[0]
        # the scheme is case-insensitive (RFC 7235); the token is compared as it is
        return hmac.compare_digest(value[:7].lower() + value[7:], self.expected)


def _check_http_token(token: Any, host: str) -> None:
    """Raise InvalidArgumentError unless `token` can travel in an `Authorization` header
    (non-empty printable ASCII, no spaces), or is None with a loopback `host`."""
    if token is None:
        if not _loopback(host):
            raise InvalidArgumentError(
                f"token: required to serve on {brief(host)}, which is not a loopback address"
            )
        return
    if not (
        isinstance(token, str)
        and token
        and token.isascii()
        and token.isprintable()
        and " " not in token
    ):
        # a secret: a str is not echoed, only described
        got = f"a str of {len(token)} characters" if isinstance(token, str) else brief(token)
        raise InvalidArgumentError(
            f"token: must be a non-empty printable ASCII str without spaces, got {got}"
        )


async def serve(
    guard: Guard,
    *,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    log_level: str = "warning",
    token: str | None = None,
) -> None:
    """Run the guard server over `guard` until the client goes away (stdio) or it is
    interrupted (HTTP: streamable HTTP at `http://host:port/mcp`).

    HTTP: with `token`, every request must carry `Authorization: Bearer <token>` (else 401);
    `token=None` serves without one, on a loopback `host` only (`crs mcp` makes a random token
    per run unless told `--no-token`). stdio ignores `token`."""
    server = create_server(guard)
    if transport == "stdio":
        await server.run_stdio_async(show_banner=False, log_level=log_level)
    elif transport == "http":
        _check_http_token(token, host)
        # inside: starlette comes with fastmcp's HTTP transport
        from starlette.middleware import Middleware as AsgiMiddleware

        await server.run_http_async(
            show_banner=False,
            transport="http",
            host=host,
            port=port,
            log_level=log_level,
            middleware=[AsgiMiddleware(_BearerToken, token=token)] if token is not None else None,
            # A page in the user's browser reaches 127.0.0.1 too (DNS rebinding): on loopback
            # only loopback Host names and origins are served (the MCP spec's Origin check).
            host_origin_protection="auto",
            allowed_hosts=[host, *_LOOPBACK_NAMES] if _loopback(host) else None,
        )
    else:
        raise InvalidArgumentError(f"transport: must be 'stdio' or 'http', got {brief(transport)}")


def run(
    project: str | os.PathLike[str],
    *,
    home: str | os.PathLike[str] | None = None,
    session: str | None = None,
    policy: GuardPolicy | None = None,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    token: str | None = None,
    on_ready: Callable[[], None] | None = None,
) -> None:
    """Open the project's guard and serve it (what `crs mcp` does; `token`: see `serve`).

    `on_ready` is called once the project is open, just before the server starts serving
    (`crs mcp` prints its `claude mcp add` line there: never for a server that failed to
    open its project)."""
    if transport not in ("stdio", "http"):
        raise InvalidArgumentError(f"transport: must be 'stdio' or 'http', got {brief(transport)}")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
        raise InvalidArgumentError(f"port: must be an int in 1..65535, got {brief(port)}")
    if transport == "http":
        _check_http_token(token, host)
    sid = _check_session(session, "session") if session is not None else _fresh_session()
    if isinstance(project, str | os.PathLike) and not os.path.isdir(project):
        # a typo: serving it would create the state of a project that is not there
        raise InvalidArgumentError(f"project: no such directory: {brief(os.fspath(project))}")
    with _stop_on_sigterm(), Guard.open(Path(project), sid, home=home, policy=policy) as guard:
        if transport == "http":
            _can_listen(host, port)  # a port in use: said before the server is announced
        if on_ready is not None:
            on_ready()
        try:
            asyncio.run(serve(guard, transport=transport, host=host, port=port, token=token))
        except (_Stopped, KeyboardInterrupt):
            pass
        except BaseExceptionGroup as group:  # anyio's task groups wrap what they propagate
            _, rest = group.split((_Stopped, KeyboardInterrupt))
            if rest is not None:
                raise


def _can_listen(host: str, port: int) -> None:
    """Raise InvalidArgumentError when `host:port` cannot be bound now (in use, or not an
    address of this machine); uvicorn binds it again a moment later."""
    # inside: only the HTTP transport binds a port
    import socket

    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        socket.create_server((host, port), family=family).close()
    except (OSError, UnicodeError) as exc:  # (UnicodeError: a host label over 63 characters)
        name = host if len(host) <= 253 else brief(host)  # (no host name is longer)
        why = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
        why = why if len(why) <= 300 else why[:300] + "…"  # (it may quote the host)
        raise InvalidArgumentError(f"port: cannot listen on {name}:{port} ({why})") from None


class _Stopped(Exception):
    """SIGTERM arrived: unwind, so the guard closes its journal before the process ends."""


@contextlib.contextmanager
def _stop_on_sigterm() -> Iterator[None]:
    # uvicorn shuts down gracefully on SIGTERM and then raises the signal again for the
    # previous handler: with the default one the process would die before the guard closes.
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise _Stopped

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _fresh_session() -> str:
    return f"mcp-{uuid.uuid4().hex[:12]}"


def _result_data(result: ToolResult) -> Any:
    """A tool result as plain data for the guard: structured content, else the text blocks."""
    if result.structured_content is not None:
        return result.structured_content
    parts: list[Any] = []
    for block in result.content:
        if isinstance(block, mt.TextContent):
            parts.append(block.text)
        else:
            parts.append(block.model_dump(mode="json", exclude_none=True))
    return parts[0] if len(parts) == 1 else parts


def _error_text(result: ToolResult) -> str:
    data = _result_data(result)
    return data if isinstance(data, str) else repr(data)


def _with_advice(result: ToolResult, verdicts: list[Verdict]) -> ToolResult:
    messages: list[str] = []
    for v in verdicts:
        if v.action is not Action.ALLOW and v.message and v.message not in messages:
            messages.append(v.message)
    if not messages:
        return result
    content = [*result.content, *(mt.TextContent(type="text", text=m) for m in messages)]
    meta = {**(result.meta or {}), VERDICT_META_KEY: _verdict_data(verdicts[-1])}
    return ToolResult(
        content=content,
        structured_content=result.structured_content,
        meta=meta,
        is_error=result.is_error,
    )


class GuardMiddleware(Middleware):
    """Guards every tool of a fastmcp server: `FastMCP(..., middleware=[GuardMiddleware(g)])`.

    On each `tools/call`: `before_call`; a BLOCK or STOP answers with a tool error whose text is
    the guard's message for the model (the tool does not run); arguments the guard cannot take
    as they are are guarded by a stand-in (see `_before`) and a session id it refuses is
    answered the same way, as an error result (`isError`); otherwise the tool runs and its
    result, or its exception, goes to `after_call` (the exception is re-raised, so the client
    sees the error as it would without the guard). A nudge (before or after) is appended to the
    result as a text block; the last verdict is in the result's `_meta["crs/verdict"]`.

    Sessions: see the module docstring; without a client-named session every call is on
    `guard`'s own session. `fail_open` (default): an internal error of the guard is logged and
    the tool runs unguarded, so the guard never takes a user's tool down with it.
    """

    def __init__(self, guard: Guard, *, fail_open: bool = True) -> None:
        if not isinstance(guard, Guard):
            raise InvalidArgumentError(f"guard: must be a crs.guard.Guard, got {brief(guard)}")
        self._sessions = _Sessions(guard)
        self._fail_open = fail_open

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        name = context.message.name
        args = dict(context.message.arguments or {})
        try:
            g = self._sessions.resolve(context.fastmcp_context)
            before = await _before(g, name, args, None)
        except InvalidArgumentError as exc:
            # The client's input the guard cannot take even by a stand-in (a bad session id
            # in `_meta`): a tool result the model reads (MCP: a tool execution error,
            # `isError`), not a protocol error; the tool does not run.
            return ToolResult(content=[mt.TextContent(type="text", text=str(exc))], is_error=True)
        except Exception as exc:
            if not self._fail_open:
                raise ToolError(f"crs guard failed: {exc}") from exc
            logger.exception("crs guard failed before %s; running it unguarded", brief(name))
            return await call_next(context)
        if not before.allowed:
            return ToolResult(
                content=[mt.TextContent(type="text", text=before.message)],
                meta={VERDICT_META_KEY: _verdict_data(before)},
                is_error=True,
            )
        assert before.call is not None
        try:
            result = await call_next(context)
        except Exception as exc:
            # fastmcp wraps a tool's own exception in a ToolError; the guard wants the
            # original (its type tells a timeout from a hard failure).
            cause = exc.__cause__ if isinstance(exc.__cause__, Exception) else exc
            await self._after(g, before.call, error=cause)
            raise
        if result.is_error:
            after = await self._after(g, before.call, error=_error_text(result))
        else:
            after = await self._after(g, before.call, result=_result_data(result))
        return _with_advice(result, [before] if after is None else [before, after])

    async def _after(
        self, g: Guard, call: Call, *, result: Any = None, error: BaseException | str | None = None
    ) -> Verdict | None:
        try:
            if isinstance(error, BaseException):
                return await g.aafter_call(call, error=error)
            return await arecord_result(g, call, result, error)
        except Exception as exc:
            if not self._fail_open:
                raise ToolError(f"crs guard failed: {exc}") from exc
            logger.exception("crs guard failed after %r; result not recorded", call.tool)
            return None
