"""The `crs` command line: one module per command group.

`_main` builds the parser and dispatches (`crs._cli:main` is the console script); `_backup`
(`crs backup ...`), `_journal` (`crs journal ...`), `_state` (`crs state export|import`) and
`_demo` (`crs demo`) each register their subcommands; `crs journal watch` lives with the journal
(`crs._journal._watch`) and `crs session ...` with the sessions (`crs.sessions._cli`). This is the
top layer: it may import anything in `crs`, and nothing in `crs` imports it.
"""

from crs._cli._main import main

__all__ = ["main"]
