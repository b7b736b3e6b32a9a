"""Where crs keeps its data when the user configures nothing (spec README §4)."""

from __future__ import annotations

import os
from pathlib import Path


def default_home() -> Path:
    """`$CRS_HOME`, else `~/.crs`."""
    env = os.environ.get("CRS_HOME")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".crs"
