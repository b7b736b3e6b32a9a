"""`crs dashboard`: a live local web page of what the guard saw (issue 14).

Lives here: the data layer (`_data`: projects, sessions, read replicas), the HTTP app
(`_server`: Starlette, server-sent events), the command (`_cli`) and the page (`static/`,
shipped with the package, no CDN). May import the rest of crs; Starlette and uvicorn (the
optional extra ``crs-agent[dashboard]``) are imported only by `_server` and `_cli` when a
dashboard is actually served, never by ``import crs``.
"""

from __future__ import annotations

from crs.dashboard._data import Dashboard

__all__ = ["Dashboard", "create_app"]


def __getattr__(name: str) -> object:
    # Starlette is an optional extra: imported when the app is asked for, not with the package.
    if name == "create_app":
        from crs.dashboard._server import create_app

        return create_app
    raise AttributeError(f"module 'crs.dashboard' has no attribute {name!r}")
