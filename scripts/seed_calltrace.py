"""pytest plugin: record every crs function / method a test calls directly.

    CALLTRACE_OUT=/tmp/seen.json PYTHONPATH=python:scripts \
        python -m pytest -q -p no:cacheprovider -p seed_calltrace tests/api/test_seed_acceptance*.py

Writes the sorted qualified names (``CRS.apply``, ``ProofDelta.__init__``, ...) of the calls
whose caller is a frame in ``tests/``, for `scripts/seed_coverage.py --seen`.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

TESTS = str(Path(__file__).resolve().parent.parent / "tests") + os.sep
_seen: set[str] = set()


def _profile(frame: FrameType, event: str, arg: Any) -> None:
    if event == "call":
        back = frame.f_back
        if back is not None and back.f_code.co_filename.startswith(TESTS):
            fn = frame.f_code.co_filename
            if f"{os.sep}crs{os.sep}" in fn or fn.startswith("<"):
                _seen.add(frame.f_code.co_qualname)
    elif event == "c_call" and frame.f_code.co_filename.startswith(TESTS):
        owner = getattr(arg, "__self__", None)
        module = type(owner).__module__ if owner is not None else getattr(arg, "__module__", "")
        name = getattr(arg, "__qualname__", None)
        if name and (module or "").startswith("crs"):
            _seen.add(name)


def pytest_configure(config: Any) -> None:
    sys.setprofile(_profile)
    threading.setprofile(_profile)


def pytest_unconfigure(config: Any) -> None:
    sys.setprofile(None)
    out = Path(os.environ.get("CALLTRACE_OUT", "seen.json"))
    out.write_text(json.dumps(sorted(_seen), indent=0))
