"""The `crs` command line. Each subsystem registers its own subcommands here."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from crs import _core
from crs._cli import _backup as _backup_cli
from crs._cli import _journal as _journal_cli
from crs._cli import _state as _cli_state
from crs._journal import _watch as _journal_watch
from crs.integrations import _mcp_cli, claude_code
from crs.sessions import _cli as sessions_cli


def _cmd_demo(args: argparse.Namespace) -> int:
    from crs._cli import _demo  # inside: the demo pulls in the whole CRS, other commands need not

    home = Path(args.home) if args.home else None
    return _demo.main(as_json=args.json, home=home)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crs",
        description="Persistent reasoning state for AI agent loops.",
    )
    parser.add_argument("--version", action="version", version=f"crs {_core.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser("demo", help="run a scripted agent session and show what crs decided")
    demo.add_argument("--json", action="store_true", help="print machine-readable JSON")
    demo.add_argument("--home", help="data directory (default: $CRS_HOME, else ~/.crs)")
    demo.set_defaults(func=_cmd_demo)
    sessions_cli.register(sub)
    _backup_cli.register(sub)
    _journal_cli.register(sub)
    _cli_state.register(sub)
    _journal_watch.register(sub)  # adds `watch` to `crs journal`
    # inside: start-up (the guard and dashboard packages load only when the parser is built)
    from crs.dashboard import _cli as dashboard_cli

    dashboard_cli.register(sub)
    claude_code.register(sub)  # `crs hook claude-code`, `crs hook install claude-code`
    # inside: start-up, as the dashboard's above
    from crs.guard import _cli as guard_cli

    guard_cli.register(sub)
    _mcp_cli.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    if "--json" in words:
        try:
            args = _parse_for_json(parser, words)
        except SystemExit as exc:  # a usage error, answered as JSON too
            return exc.code if isinstance(exc.code, int) else 2
    else:
        args = parser.parse_args(words)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        result: int = (
            _json_on_error(func, args) if getattr(args, "json", False) is True else func(args)
        )
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader went away (`crs guard learned | head`): stop quietly, as `ls | head`
        # does, without a traceback now or at exit's flush (red team 5)
        _drop_stdout()
        return 141  # 128 + SIGPIPE, what a shell reports for a writer the pipe stopped
    return result


class _Seen:
    """A text stream passed through, noting whether anything was written to it and keeping
    the first `keep` characters of it (`_json_on_error`)."""

    def __init__(self, stream: Any, keep: int = 0) -> None:
        self._stream = stream
        self._keep = keep
        self.text: list[str] = []
        self.used = False

    def write(self, text: str) -> int:
        if text:
            self.used = True
            if self._keep > 0:
                self.text.append(text[: self._keep])
                self._keep -= len(self.text[-1])
        return int(self._stream.write(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _json_on_error(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run a command given `--json`. A failure that printed nothing on stdout (its line is on
    stderr) also prints `{"error": "failed", "exit": N, "message": <that line>}` on stdout:
    a script parsing the output gets JSON on every path (red team 7)."""
    out, err = sys.stdout, sys.stderr
    seen_out, seen_err = _Seen(out), _Seen(err, keep=4096)
    sys.stdout, sys.stderr = seen_out, seen_err
    try:
        result = func(args)
    finally:
        sys.stdout, sys.stderr = out, err
    if result and not seen_out.used:
        # inside: only a failed `--json` command needs it
        import json

        message = "".join(seen_err.text).strip()
        json.dump({"error": "failed", "exit": result, "message": message}, out)
        out.write("\n")
    return result


def _parse_for_json(parser: argparse.ArgumentParser, words: list[str]) -> argparse.Namespace:
    """`parser.parse_args(words)` for a command given `--json`: a usage error (an unknown
    option, a missing argument) keeps its usage text on stderr and also prints
    `{"error": "usage", "exit": 2, "message": <argparse's line>}` on stdout."""
    err = sys.stderr
    seen = _Seen(err, keep=4096)
    sys.stderr = seen
    try:
        return parser.parse_args(words)
    except SystemExit as exc:
        if exc.code not in (0, None):
            import json  # inside: only a usage error needs it

            lines = "".join(seen.text).strip().splitlines()
            message = lines[-1] if lines else "usage error"
            json.dump({"error": "usage", "exit": exc.code, "message": message}, sys.stdout)
            sys.stdout.write("\n")
        raise
    finally:
        sys.stderr = err


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush writes nowhere."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # (not a file: nothing is flushed to a fd)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
