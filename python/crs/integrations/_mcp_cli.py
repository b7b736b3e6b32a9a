"""`crs mcp`: the arguments, and a lazy import of the server (fastmcp loads only when it runs).

HTTP needs a bearer token: `--token`, else $CRS_MCP_TOKEN, else a random one per run; printed
on stderr with the `claude mcp add` line that passes it. `--no-token` serves without (loopback
only)."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from typing import Any

TOKEN_ENV = "CRS_MCP_TOKEN"


def _cmd_mcp(args: argparse.Namespace) -> int:
    try:
        # inside: the optional extra crs-agent[mcp], imported when the command runs
        from crs.integrations import mcp
    except ImportError as exc:  # the optional framework is missing
        print(
            f"crs mcp: needs the MCP extra ({exc}); install it with: pip install 'crs-agent[mcp]'",
            file=sys.stderr,
        )
        return 1
    # inside: start-up, as above
    from crs import CRSError

    token: str | None = args.token
    if token is None:
        token = os.environ.get(TOKEN_ENV) or None
    if args.transport != "http":
        if args.token is not None or args.no_token:
            print("crs mcp: --token and --no-token are for --transport http", file=sys.stderr)
            return 2
        token = None
    elif args.no_token:
        if token is not None:
            given = "--token" if args.token is not None else f"${TOKEN_ENV}"
            print(f"crs mcp: give {given} or --no-token, not both", file=sys.stderr)
            return 2
        if not mcp._loopback(args.host):
            print("crs mcp: --no-token is for a loopback --host only", file=sys.stderr)
            return 2
    else:  # any local user can reach a loopback port: the token tells them apart
        token = token or secrets.token_urlsafe(24)
    announce = None
    if args.transport == "http":
        host, port = args.host, args.port

        def announce() -> None:  # once the project is open (a failed open announces nothing)
            _announce(host, port, token)

    try:
        mcp.run(
            args.project,
            home=args.home,
            session=args.session,
            transport=args.transport,
            host=args.host,
            port=args.port,
            token=token,
            on_ready=announce,
        )
    except CRSError as exc:  # bad arguments, a project another process holds, ...
        print(f"crs mcp: {exc}", file=sys.stderr)
        return 2
    return 0


def _announce(host: str, port: int, token: str | None) -> None:
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/mcp"
    if token is None:
        print(f"crs mcp: serving {url} without a token (--no-token)", file=sys.stderr)
        return
    print(f"crs mcp: serving {url}; every request needs the bearer token", file=sys.stderr)
    header = f"Authorization: Bearer {token}"
    print(
        f'crs mcp: claude mcp add --transport http crs {url} --header "{header}"', file=sys.stderr
    )


def register(sub: Any) -> None:
    """Add `crs mcp` to the top-level parser's subcommands."""
    p = sub.add_parser(
        "mcp",
        help="run the guard as an MCP server (tools: check_call, record_result, explain, ...)",
        description=(
            "Serve the project's guard over MCP: stdio for a client that starts the server "
            "(Claude Desktop, Claude Code), or streamable HTTP at http://HOST:PORT/mcp, where "
            "every request needs `Authorization: Bearer TOKEN` (the token and the `claude mcp "
            "add` line that passes it are printed on stderr at start-up)."
        ),
    )
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP: address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="HTTP: port (default 8765)")
    p.add_argument(
        "--token",
        help=(
            f"HTTP: the bearer token to require (default: ${TOKEN_ENV}, else a random one per "
            f"run); prefer ${TOKEN_ENV} for a fixed token: a --token shows in the process list"
        ),
    )
    p.add_argument(
        "--no-token",
        action="store_true",
        help="HTTP: serve without a token: any local user can read and forget (loopback only)",
    )
    p.add_argument(
        "--project", default=os.curdir, help="the project directory (default: the current one)"
    )
    p.add_argument("--home", help="data directory (default: $CRS_HOME, else ~/.crs)")
    p.add_argument(
        "--session",
        help="session id for clients that name none (default: a fresh id per server process)",
    )
    p.set_defaults(func=_cmd_mcp)
