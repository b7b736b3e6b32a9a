"""The `crs` command line: one module per command group.

`_main` builds the parser and dispatches; `main` here (`crs._cli:main` is the console script)
sends `crs hook claude-code` to the hook's thin client first, before the parser or any other
subsystem is imported (docs/hook-server.md). `_backup`
(`crs backup ...`), `_journal` (`crs journal ...`), `_state` (`crs state export|import`) and
`_demo` (`crs demo`) each register their subcommands; `crs journal watch` lives with the journal
(`crs._journal._watch`) and `crs session ...` with the sessions (`crs.sessions._cli`). This is the
top layer: it may import anything in `crs`, and nothing in `crs` imports it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """The `crs` command: parse `argv` (default `sys.argv[1:]`), run the command, its exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:2] == ["hook", "claude-code"]:  # the hot path
        from crs.integrations._hook_client import main as hook

        return hook(args[2:])
    from crs._cli._main import main as parse_and_run

    return parse_and_run(argv)
