"""Slow pure-Python reference of the online cycle detector (spec README §5.7)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

T = TypeVar("T", bound=Hashable)


def reference(states: Sequence[T], window: int) -> list[tuple[list[T], int] | None]:
    """Report (cycle, tail) when the current state repeats one seen since the last detection
    within `window` steps; the trail restarts after each detection."""
    trail: list[tuple[int, T]] = []  # (position, state) since the last detection
    out: list[tuple[list[T], int] | None] = []
    for pos, s in enumerate(states):
        found = None
        for i in range(len(trail) - 1, -1, -1):
            p, t = trail[i]
            if t == s:
                if pos - p <= window:
                    found = ([x for _, x in trail[i:]], i)
                break
        if found is not None:
            trail = []
        else:
            trail.append((pos, s))
        out.append(found)
    return out
