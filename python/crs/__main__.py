"""`python -m crs` runs the command-line interface."""

from crs._cli import main

raise SystemExit(main())
