"""`crs session inspect|adapters|status`: the reference's `session-inspect` and
`orchestration-status` scripts, with proper argument parsing (options in any order).

Output is byte-compatible with the reference: the snapshot as 2-space JSON plus a newline on
stdout (and in the `--write` file); errors are one line `[session-inspect] <message>` on stderr
with exit status 1; no target prints the usage on stdout with exit status 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from crs._errors import CRSError
from crs._persistence._durable import makedirs_durable
from crs.sessions._model import StructuredTarget, dumps_json
from crs.sessions._recorder import write_private
from crs.sessions._registry import inspect_session_target, list_adapters

INSPECT_USAGE = """\
Usage:
  crs session inspect <target> [--adapter <id>] [--target-type <type>] [--write <output.json>]
  crs session adapters

Targets:
  <plan.json>          Dmux/orchestration plan file
  <session-name>       Dmux session name when the coordination directory exists
  claude:latest        Most recent Claude session history entry
  claude:<id|alias>    Specific Claude session or alias
  <session.tmp>        Direct path to a Claude session file

Examples:
  crs session inspect .claude/plan/workflow.json
  crs session inspect workflow-visual-proof
  crs session inspect claude:latest
  crs session inspect latest --target-type claude-history
  crs session inspect claude:a1b2c3d4 --write /tmp/session.json"""

STATUS_USAGE = """\
Usage:
  crs session status <session-name|plan.json> [--write <output.json>]

Examples:
  crs session status workflow-visual-proof
  crs session status .claude/plan/workflow-visual-proof.json
  crs session status .claude/plan/workflow-visual-proof.json --write /tmp/snapshot.json"""


class _SessionParser(argparse.ArgumentParser):
    """Reports bad arguments the way the commands report every error: one line, exit 1."""

    tag = "session-inspect"

    def parse_known_args(  # type: ignore[override]
        self, args: Any = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # The top-level parser would report leftovers with its own usage and exit 2; every
        # `crs session` error is ours instead (one line, exit 1).
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        tag = self.get_default("tag") or self.tag
        sys.stderr.write(f"[{tag}] {message} (see `{self.prog} --help`)\n")
        raise SystemExit(1)


def _emit(payload: Any, write: str | None) -> None:
    text = dumps_json(payload)
    if write:
        path = Path(os.path.abspath(write))
        makedirs_durable(path.parent)  # 0700; the file 0600, never through a symlink
        write_private(path, text + "\n")
    sys.stdout.flush()
    sys.stdout.buffer.write((text + "\n").encode("utf-8"))
    sys.stdout.buffer.flush()


def _run(tag: str, args: argparse.Namespace, target: str | StructuredTarget, **kw: Any) -> int:
    try:
        snapshot = inspect_session_target(target, cwd=os.getcwd(), **kw)
        _emit(snapshot, args.write)
    except (CRSError, OSError) as exc:
        sys.stderr.write(f"[{tag}] {exc}\n")
        return 1
    return 0


def _cmd_inspect(args: argparse.Namespace) -> int:
    if args.list_adapters:
        _emit({"adapters": list_adapters()}, None)
        return 0
    if not args.target:
        print(INSPECT_USAGE)
        return 1
    target: str | StructuredTarget = args.target
    if args.target_type:
        target = {"type": args.target_type, "value": args.target}
    return _run("session-inspect", args, target, adapter_id=args.adapter)


def _cmd_adapters(args: argparse.Namespace) -> int:
    _emit({"adapters": list_adapters()}, None)
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    if not args.target:
        print(STATUS_USAGE)
        return 1
    # Like the reference's orchestration-status: always the dmux-tmux adapter, so an unknown
    # session name gives a `missing` snapshot rather than an error.
    return _run("orchestration-status", args, args.target, adapter_id="dmux-tmux")


def _cmd_feed(args: argparse.Namespace) -> int:
    # Imported here: `crs session inspect` need not load the CRS.
    from crs._crs import CRS
    from crs.sessions._bridge import SessionBridge

    target: str | StructuredTarget = args.target
    if args.target_type:
        target = {"type": args.target_type, "value": args.target}
    try:
        with CRS() as state:
            fed = SessionBridge(state).sync(target, cwd=os.getcwd(), adapter_id=args.adapter)
    except (CRSError, OSError) as exc:
        sys.stderr.write(f"[session-feed] {exc}\n")
        return 1
    payload = {
        "fed": [
            {
                "sessionId": c.change.session_id,
                "workerId": c.change.worker_id,
                "previousState": c.change.previous_state,
                "state": c.change.state,
                "health": c.change.health,
                "recordedAt": c.change.recorded_at,
                "step": c.step.to_dict(),
                "historyEntry": c.entry.to_dict(),
            }
            for c in fed
        ]
    }
    _emit(payload, args.write)
    return 0


def register(subparsers: Any) -> None:
    """Add `crs session ...` to the top-level parser's subcommands."""
    session = subparsers.add_parser(
        "session",
        help="inspect ecc.session.v1 sessions (dmux/tmux orchestration, Claude history)",
        description="Read a session into an ecc.session.v1 snapshot and record it.",
    )
    session.set_defaults(func=lambda _args: _help(session))
    sub = session.add_subparsers(
        dest="session_command", metavar="SUBCOMMAND", parser_class=_SessionParser
    )

    inspect = sub.add_parser(
        "inspect",
        help="print a session target's canonical snapshot as JSON",
        description=INSPECT_USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    inspect.add_argument("target", nargs="?", help="plan file, session name, claude:<id>, .tmp")
    inspect.add_argument("--adapter", metavar="ID", help="use this adapter (no auto-detection)")
    inspect.add_argument("--target-type", metavar="TYPE", help="plan, session, claude-history, ...")
    inspect.add_argument("--write", metavar="FILE", help="also write the JSON to FILE")
    inspect.add_argument("--list-adapters", action="store_true", help="same as `adapters`")
    inspect.set_defaults(func=_cmd_inspect, tag="session-inspect")

    adapters = sub.add_parser("adapters", help="list the session adapters as JSON")
    adapters.set_defaults(func=_cmd_adapters, tag="session-inspect")

    status = sub.add_parser(
        "status",
        help="print a dmux orchestration session's snapshot as JSON",
        description=STATUS_USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    status.add_argument("target", nargs="?", help="session name or plan file")
    status.add_argument("--write", metavar="FILE", help="also write the JSON to FILE")
    status.set_defaults(func=_cmd_status, tag="orchestration-status")

    feed = sub.add_parser(
        "feed",
        help="read a session and print the CRS steps and history entries its workers become",
        description=(
            "Read a session target (recording it), feed its recorded history into an in-memory "
            "CRS with crs.sessions.SessionBridge and print every step and history entry recorded "
            "as JSON."
        ),
    )
    feed.add_argument("target", help="plan file, session name, claude:<id>, .tmp")
    feed.add_argument("--adapter", metavar="ID", help="use this adapter (no auto-detection)")
    feed.add_argument("--target-type", metavar="TYPE", help="plan, session, claude-history, ...")
    feed.add_argument("--write", metavar="FILE", help="also write the JSON to FILE")
    feed.set_defaults(func=_cmd_feed, tag="session-feed")


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2
