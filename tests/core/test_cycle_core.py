"""The Rust online cycle detector against a slow pure-Python reference (spec README §5.7)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crs import _core
from cycle_reference import reference as cycle_reference


def reference(states: list[int], window: int) -> list[list[int] | None]:
    """The shared reference, cycles only (the id-level detector reports no tail)."""
    return [None if r is None else r[0] for r in cycle_reference(states, window)]


def test_examples_from_spec() -> None:
    d = _core.CycleDetector(100)
    assert [d.add(s) for s in [0, 1, 2, 1]] == [None, None, None, [1, 2]]
    d = _core.CycleDetector(100)
    assert [d.add(s) for s in [9, 1, 1]] == [None, None, [1]]
    assert d.steps == 3
    assert d.cycles_found == 1


@given(st.lists(st.integers(0, 6), max_size=200), st.integers(1, 20))
def test_matches_reference(states: list[int], window: int) -> None:
    d = _core.CycleDetector(window)
    assert [d.add(s) for s in states] == reference(states, window)


@given(st.lists(st.integers(0, 6), max_size=200), st.integers(1, 20))
def test_add_many_matches_reference(states: list[int], window: int) -> None:
    d = _core.CycleDetector(window)
    want = [(i, c) for i, c in enumerate(reference(states, window)) if c is not None]
    assert [(i, c) for i, c, _ in d.add_many(states)] == want
    assert d.steps == len(states)
    assert d.history_size <= window


def test_key_detector_examples() -> None:
    d = _core.KeyCycleDetector(100)
    assert [d.add(s) for s in ["A", "B", "C", "B"]] == [None, None, None, (["B", "C"], 1)]
    assert d.add_many(["X", "A", "A"]) == [(2, ["A"], 1)]
    assert (d.steps, d.cycles_found, d.window) == (7, 2, 100)
    with pytest.raises(ValueError, match=r"states\[1\] is empty"):
        d.add_many(["q", ""])
    assert d.steps == 7, "a rejected batch records nothing"
