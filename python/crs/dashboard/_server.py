"""The dashboard's HTTP side: a small Starlette app served by uvicorn (issue 14).

Routes (JSON unless said otherwise):
- ``GET /``: the page (``static/index.html``); ``GET /static/...``: its script and style.
- ``GET /api/projects``: projects under the data directory with their sessions.
- ``GET /api/projects/{key}/sessions/{session}``: one session (timeline, spans, learned
  failures, decision graph with its cycles).
- ``POST /api/projects/{key}/forget/{failure_id}``: forget a remembered failure, through the
  same API as ``crs guard forget``.
- ``GET /api/events?project=KEY``: server-sent events; a ``change`` event each time the
  project's journal moved (read through the read replica, polled every 50 ms).

Security: bound to 127.0.0.1 by default. `crs dashboard` makes a random token per run and
prints it in the URL (as Jupyter does; `--token` gives one, `--no-token` serves without, on
loopback only): any local user can connect to a loopback port, the token is what tells the
person who started it from them. With a token every request, the page and its assets too,
must carry it: the ``X-CRS-Token`` header, the ``token`` query parameter or the cookie a GET
with the token in its query sets (HttpOnly, SameSite=Strict, a value derived from the token,
named for it so several dashboards on one host keep theirs), compared in constant time; without
it the answer is 403 and nothing is read or changed. The Host header must name the bound
address (DNS rebinding), a POST must carry ``X-CRS-Request: 1`` (a cross-site form cannot set
it), and the page is served with a Content-Security-Policy that allows only its own script.
The page renders every value as text (tool arguments are attacker-controlled).

Starlette and uvicorn are the optional extra ``crs-agent[dashboard]``, imported only here.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
from importlib import resources
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from crs._errors import CRSError, InvalidArgumentError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from crs.dashboard._data import Dashboard

__all__ = ["create_app"]

_STATIC = {
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
}
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_HEADERS = {
    "Content-Security-Policy": _CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _asset(name: str) -> bytes:
    return resources.files("crs.dashboard").joinpath("static", name).read_bytes()


def create_app(
    data: Dashboard,
    *,
    token: str | None = None,
    allowed_hosts: tuple[str, ...] = ("127.0.0.1", "localhost"),
    poll_interval: float = 0.05,
) -> Starlette:
    """The ASGI app of a dashboard over `data` (see the module docstring)."""

    if token is not None and (not isinstance(token, str) or not token):
        raise InvalidArgumentError(f"token: must be a non-empty str or None, got {token!r}")
    secret = token.encode() if token is not None else b""
    cookie = "crs-dashboard-" + hashlib.sha256(secret).hexdigest()[:12]
    cookie_value = hmac.new(secret, b"crs dashboard cookie", hashlib.sha256).hexdigest()

    def _error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status, headers=_HEADERS)

    def _has_token(request: Request) -> bool:
        ok = False
        for given, expected in (
            (request.headers.get("x-crs-token"), secret),
            (request.query_params.get("token"), secret),
            (request.cookies.get(cookie), cookie_value.encode()),
        ):
            if given is not None:  # every one compared: no early exit on the first match
                ok |= hmac.compare_digest(given.encode("utf-8", "replace"), expected)
        return ok

    def _guard_request(request: Request) -> JSONResponse | None:
        host = (request.headers.get("host") or "").rsplit(":", 1)[0].strip("[]")
        if allowed_hosts and host not in allowed_hosts:
            return _error(421, f"host {host!r} is not served here")
        if token is not None and not _has_token(request):
            return _error(403, "token: missing or wrong; open the URL the dashboard printed")
        if request.method == "POST" and request.headers.get("x-crs-request") != "1":
            return _error(403, "POST needs the header X-CRS-Request: 1")
        return None

    async def page(request: Request) -> Response:
        if (refused := _guard_request(request)) is not None:
            return refused
        response = Response(
            _asset("index.html"), media_type="text/html; charset=utf-8", headers=_HEADERS
        )
        if token is not None and request.query_params.get("token") is not None:
            # the URL's token becomes a cookie: a reload or a link without it keeps working
            response.set_cookie(cookie, cookie_value, httponly=True, samesite="strict", path="/")
        return response

    async def static(request: Request) -> Response:
        if (refused := _guard_request(request)) is not None:
            return refused
        name = request.path_params["name"]
        if name not in _STATIC:
            return _error(404, "no such file")
        return Response(_asset(name), media_type=_STATIC[name], headers=_HEADERS)

    def _json(payload: Any) -> JSONResponse:
        return JSONResponse(payload, headers=_HEADERS)

    async def projects(request: Request) -> Response:
        if (refused := _guard_request(request)) is not None:
            return refused
        return _json({"projects": await asyncio.to_thread(data.projects)})

    async def session(request: Request) -> Response:
        if (refused := _guard_request(request)) is not None:
            return refused
        key, sid = request.path_params["key"], request.path_params["session"]
        try:
            view = await asyncio.to_thread(data.session, key, sid)
        except InvalidArgumentError as exc:
            return _error(404, str(exc))
        return _json(view)

    async def forget(request: Request) -> Response:
        if (refused := _guard_request(request)) is not None:
            return refused
        key, fid = request.path_params["key"], request.path_params["failure_id"]
        try:
            removed = await asyncio.to_thread(data.forget, key, fid)
        except InvalidArgumentError as exc:
            return _error(404, str(exc))
        except CRSError as exc:
            return _error(409, str(exc))
        return _json({"forgotten": removed, "id": fid})

    async def events(request: Request) -> Response:
        if (refused := _guard_request(request)) is not None:
            return refused
        key = request.query_params.get("project", "")
        try:
            await asyncio.to_thread(data.position, key)
        except InvalidArgumentError as exc:
            return _error(404, str(exc))

        async def stream() -> AsyncIterator[bytes]:
            last = -1
            idle = 0.0
            yield b"retry: 1000\n\n"
            while not await request.is_disconnected():
                pos = await asyncio.to_thread(data.position, key)
                if pos != last:
                    last = pos
                    idle = 0.0
                    body = json.dumps({"project": key, "position": pos})
                    yield f"event: change\ndata: {body}\n\n".encode()
                elif idle >= 15.0:
                    idle = 0.0
                    yield b": keep-alive\n\n"
                await asyncio.sleep(poll_interval)
                idle += poll_interval

        headers = dict(_HEADERS, **{"X-Accel-Buffering": "no"})
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    routes = [
        Route("/", page),
        Route("/static/{name}", static),
        Route("/api/projects", projects),
        # (`:path`: a session id or failure id may hold a "/", e.g. "agent-7/sub-2"; the
        # page sends it percent-encoded, and the server decodes it before routing)
        Route("/api/projects/{key}/sessions/{session:path}", session),
        Route("/api/projects/{key}/forget/{failure_id:path}", forget, methods=["POST"]),
        Route("/api/events", events),
    ]
    return Starlette(routes=routes)
