"""`python -m crs` runs the command-line interface."""

import sys

if sys.argv[1:3] == ["hook", "claude-code"]:  # the hot path: the thin client, nothing else
    from crs.integrations._hook_client import _exit
    from crs.integrations._hook_client import main as _hook

    _exit(_hook(sys.argv[3:]))

from crs._cli import main

raise SystemExit(main())
