"""Run a Python snippet in a new interpreter (this environment) and read the JSON it prints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any


def run_json(code: str, *args: str, timeout: float = 120) -> Any:
    """`python -c code *args`'s stdout as JSON; it must exit 0 (its stderr is the message)."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ),
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
