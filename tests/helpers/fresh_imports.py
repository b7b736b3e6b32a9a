"""What a fresh interpreter has imported after running some code: the import-cost tests run
their checks in a new process, so what the test process already imported hides nothing."""

from __future__ import annotations

import json
import subprocess
import sys


def modules_after(code: str, timeout: float = 120) -> set[str]:
    """The names in `sys.modules` of a fresh interpreter after it ran `code`."""
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=timeout
    )
    return set(json.loads(out.stdout.splitlines()[-1]))
