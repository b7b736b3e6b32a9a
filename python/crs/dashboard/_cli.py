"""`crs dashboard [--home DIR | --nats URL [--stream S]] [--project PATH] [--host H] [--port N]
[--token T | --no-token]`."""

from __future__ import annotations

import argparse
import ipaddress
import secrets
import socket
import sys
from typing import Any
from urllib.parse import quote

__all__ = ["register"]

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _is_loopback(host: str) -> bool:
    if host in _LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _cmd_dashboard(args: argparse.Namespace) -> int:
    # inside: `crs --help` does not load what the dashboard needs
    from crs._home import default_home

    try:
        import uvicorn  # the optional extra crs-agent[dashboard]

        from crs.dashboard._data import Dashboard
        from crs.dashboard._server import create_app
    except ImportError as exc:
        print(
            f"crs dashboard: needs the optional extra: pip install 'crs-agent[dashboard]' ({exc})",
            file=sys.stderr,
        )
        return 2
    host: str = args.host
    token: str | None = args.token
    if not 0 <= args.port <= 65535:
        print(f"crs dashboard: --port must be 0..65535, got {args.port}", file=sys.stderr)
        return 2
    if args.no_token and token is not None:
        print("crs dashboard: give --token or --no-token, not both", file=sys.stderr)
        return 2
    if token is not None and not (
        token and token.isascii() and token.isprintable() and " " not in token
    ):
        # a browser sends it in a header: printable ASCII only (and not empty)
        print("crs dashboard: --token must be printable ASCII without spaces", file=sys.stderr)
        return 2
    if not _is_loopback(host):
        if not args.allow_remote:
            print(
                f"crs dashboard: --host {host} is not a loopback address; pass --allow-remote "
                "(and a --token, or one is generated) to serve beyond this machine",
                file=sys.stderr,
            )
            return 2
        if args.no_token:
            print("crs dashboard: --no-token is for loopback only", file=sys.stderr)
            return 2
    if not args.no_token:  # any local user can reach a loopback port: the token tells them apart
        token = token or secrets.token_urlsafe(24)
    only = [args.project] if args.project else None
    if args.nats:
        if args.home:
            print("crs dashboard: give --home or --nats, not both", file=sys.stderr)
            return 2
        # inside: start-up, as above; the NATS dashboard needs nats-py
        from crs._errors import CRSError
        from crs.dashboard._data import NATSDashboard

        try:
            data: Dashboard = NATSDashboard(args.nats, only, stream=args.stream)
        except CRSError as exc:
            print(f"crs dashboard: {exc}", file=sys.stderr)
            return 2
        source = f"{args.nats} (stream {args.stream})"
    else:
        data = Dashboard(args.home or default_home(), only)
        source = str(data.home)
    allowed: tuple[str, ...] = () if not _is_loopback(host) else ("127.0.0.1", "localhost", "::1")
    try:  # bound here, before "serving" is said: the port is known (also with --port 0)
        sock = socket.create_server((host, args.port), family=_family(host))
    except OSError as exc:
        data.close()
        print(
            f"crs dashboard: cannot listen on {host}:{args.port} ({exc.strerror or exc})",
            file=sys.stderr,
        )
        return 2
    port = sock.getsockname()[1]
    app = create_app(data, token=token, allowed_hosts=allowed)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/" + (f"?token={quote(token, safe='')}" if token else "")
    print(f"crs dashboard: serving {source} on {url}", flush=True)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        data.close()
    return 0


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def register(sub: Any) -> None:
    p = sub.add_parser("dashboard", help="serve a live local web page of the guard's sessions")
    p.add_argument("--home", help="data directory (default: $CRS_HOME, else ~/.crs)")
    p.add_argument("--project", help="show only this project directory")
    p.add_argument(
        "--nats", metavar="URL", help="follow the projects of this NATS server (Guard.open nats=)"
    )
    p.add_argument(
        "--stream", default="CRS_DELTAS", help="JetStream stream with --nats (CRS_DELTAS)"
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 = any free)")
    p.add_argument(
        "--token", help="require this token on every request (default: a random one per run)"
    )
    p.add_argument(
        "--no-token",
        action="store_true",
        help="serve without a token: any local user can read and forget (loopback only)",
    )
    p.add_argument(
        "--allow-remote", action="store_true", help="allow a non-loopback --host (needs a token)"
    )
    p.set_defaults(func=_cmd_dashboard)
