"""`crs mcp`: the arguments, and a lazy import of the server (fastmcp loads only when it runs)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


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

    try:
        mcp.run(
            args.project,
            home=args.home,
            session=args.session,
            transport=args.transport,
            host=args.host,
            port=args.port,
        )
    except CRSError as exc:  # bad arguments, a project another process holds, ...
        print(f"crs mcp: {exc}", file=sys.stderr)
        return 2
    return 0


def register(sub: Any) -> None:
    """Add `crs mcp` to the top-level parser's subcommands."""
    p = sub.add_parser(
        "mcp",
        help="run the guard as an MCP server (tools: check_call, record_result, explain, ...)",
        description=(
            "Serve the project's guard over MCP: stdio for a client that starts the server "
            "(Claude Desktop, Claude Code), or streamable HTTP at http://HOST:PORT/mcp."
        ),
    )
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP: address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="HTTP: port (default 8765)")
    p.add_argument(
        "--project", default=os.curdir, help="the project directory (default: the current one)"
    )
    p.add_argument("--home", help="data directory (default: $CRS_HOME, else ~/.crs)")
    p.add_argument(
        "--session",
        help="session id for clients that name none (default: a fresh id per server process)",
    )
    p.set_defaults(func=_cmd_mcp)
