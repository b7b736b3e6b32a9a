"""The hostile-input sweep (tests/api/hostile_sweep.py) ends in zero untyped errors (issue 11).

Before: 908 of 16,200 calls ended in AttributeError, TypeError, RecursionError, ValueError,
UnicodeEncodeError or OSError. Every bad argument must now raise a typed `crs.CRSError` that
names it.
"""

from __future__ import annotations

import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from hostile_sweep import sweep


def test_the_sweep_has_no_untyped_error() -> None:
    # The whole sweep (a few seconds), `crs.guard` included; `python tests/api/hostile_sweep.py`
    # prints it.
    counts, untyped = sweep()
    assert counts["calls"] > 17_000
    assert counts["typed CRSError"] > 5_000
    assert untyped == [], "\n".join(untyped[:40])
