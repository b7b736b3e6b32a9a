"""The public `CycleDetector` (spec README §5.7) and Brent's recurrence finder, against slow
pure-Python references."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

import crs
from crs import _core
from cycle_reference import reference


def test_spec_examples() -> None:
    d = crs.CycleDetector()
    got = [d.add_step(s) for s in ["A", "B", "C", "B"]]
    assert [r.detected for r in got] == [False, False, False, True]
    assert got[3] == crs.CycleDetectionResult(
        detected=True, cycle=("B", "C"), cycle_length=2, tail_length=1, state_key="B"
    )
    d = crs.CycleDetector(crs.CycleDetectorConfig(max_history=10))
    assert [d.add_step(s).cycle for s in ["X", "A", "A"]] == [(), (), ("A",)]


def test_go_bug_fixed_loop_not_containing_first_state() -> None:
    # The Go detector never fires on A,B,C,B,C,...; this one fires on the first repeat.
    d = crs.CycleDetector()
    hits = [i for i, r in d.add_steps(["A", "B", "C", "B", "C", "B", "C"])]
    assert hits == [3, 6]


def test_stats_and_reset() -> None:
    d = crs.CycleDetector(crs.CycleDetectorConfig(max_history=3))
    assert d.stats() == crs.CycleDetectorStats(max_history=3)
    before = datetime.now(UTC)
    for s in ["a", "b", "a", "c"]:
        d.add_step(s)
    st_ = d.stats()
    assert (st_.steps_processed, st_.cycles_detected, st_.history_size) == (4, 1, 1)
    assert st_.last_cycle_time is not None
    assert st_.last_cycle_time >= before
    d.reset()
    after = d.stats()
    assert (after.steps_processed, after.history_size, after.cycles_detected) == (0, 0, 1)
    assert after.last_cycle_time == st_.last_cycle_time
    assert not d.add_step("c").detected, "reset forgets held states"


def test_window_bounds_lookback() -> None:
    d = crs.CycleDetector(crs.CycleDetectorConfig(max_history=2))
    assert [d.add_step(s).detected for s in "abca"] == [False] * 4
    assert d.stats().history_size == 2


def test_default_config() -> None:
    assert crs.DefaultCycleDetectorConfig() == crs.CycleDetectorConfig(max_history=1000)
    assert crs.CycleDetector(crs.CycleDetectorConfig()).stats().max_history == 1000
    assert "max_history=1000" in repr(crs.CycleDetector())


@pytest.mark.parametrize("bad", ["", None, 3, b"x"])
def test_bad_state_is_rejected_and_nothing_recorded(bad: object) -> None:
    d = crs.CycleDetector()
    d.add_step("a")
    with pytest.raises(crs.InvalidArgumentError, match="state: must be a non-empty str"):
        d.add_step(bad)  # type: ignore[arg-type]
    with pytest.raises(crs.InvalidArgumentError, match="states"):
        d.add_steps(["b", bad])  # type: ignore[list-item]
    assert d.stats().steps_processed == 1


@pytest.mark.parametrize("config", [crs.CycleDetectorConfig(max_history=-1), "x"])
def test_bad_config(config: object) -> None:
    with pytest.raises(crs.InvalidArgumentError, match="config"):
        crs.CycleDetector(config)  # type: ignore[arg-type]


def test_add_steps_rejects_a_single_string() -> None:
    with pytest.raises(crs.InvalidArgumentError, match="single string"):
        crs.CycleDetector().add_steps("abc")


def test_long_run_stays_bounded() -> None:
    d = crs.CycleDetector(crs.CycleDetectorConfig(max_history=16))
    assert d.add_steps(f"s{i}" for i in range(20_000)) == []
    assert d.stats().history_size == 16
    assert d.add_step("s19990").cycle == tuple(f"s{i}" for i in range(19990, 20000))


STATES = st.lists(st.sampled_from(["A", "B", "C", "D", "E", "tool:x:ok"]), max_size=150)


@given(STATES, st.integers(1, 12))
def test_add_step_matches_reference(states: list[str], window: int) -> None:
    d = crs.CycleDetector(crs.CycleDetectorConfig(max_history=window))
    got = []
    for s in states:
        r = d.add_step(s)
        assert r.cycle_length == len(r.cycle)
        got.append((list(r.cycle), r.tail_length) if r.detected else None)
    assert got == reference(states, window)


@given(STATES, st.integers(1, 12), st.integers(0, 150))
def test_add_steps_equals_add_step(states: list[str], window: int, split: int) -> None:
    one = crs.CycleDetector(crs.CycleDetectorConfig(max_history=window))
    many = crs.CycleDetector(crs.CycleDetectorConfig(max_history=window))
    singles = [(i, r) for i, s in enumerate(states) if (r := one.add_step(s)).detected]
    head = many.add_steps(states[:split])
    tail = [(i + len(states[:split]), r) for i, r in many.add_steps(states[split:])]
    assert [(i, r.cycle, r.tail_length, r.state_key) for i, r in head + tail] == [
        (i, r.cycle, r.tail_length, r.state_key) for i, r in singles
    ]
    assert one.stats().steps_processed == many.stats().steps_processed == len(states)


# ---------------------------------------------------------------- Brent


def first_recurrence(seq: list[int]) -> tuple[int, int] | None:
    """Exact (mu, lambda) of a sequence of iterates: the first value seen twice."""
    seen: dict[int, int] = {}
    for j, x in enumerate(seq):
        if x in seen:
            return seen[x], j - seen[x]
        seen[x] = j
    return None


@st.composite
def iterates(draw: st.DrawFn) -> list[int]:
    """x0, f(x0), f(f(x0)), ... for a random function f on a small domain."""
    n = draw(st.integers(1, 40))
    f = draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    x = draw(st.integers(0, n - 1))
    seq = []
    for _ in range(draw(st.integers(0, 200))):
        seq.append(x)
        x = f[x]
    return seq


@given(iterates())
def test_brent_matches_first_recurrence(seq: list[int]) -> None:
    got = _core.brent_recurrence(seq)
    want = first_recurrence(seq)
    if got is not None:
        assert got == want
    elif want is not None:
        mu, lam = want
        assert len(seq) <= 3 * (mu + lam + 1), "Brent must find a cycle the sequence repeats"


@given(st.lists(st.integers(0, 5), max_size=60))
def test_brent_result_is_a_recurrence_for_any_sequence(seq: list[int]) -> None:
    got = _core.brent_recurrence(seq)
    if got is not None:
        mu, lam = got
        assert lam >= 1
        assert seq[mu] == seq[mu + lam]


def test_brent_examples() -> None:
    assert _core.brent_recurrence([5, 1, 2, 3] + [1, 2, 3] * 4) == (1, 3)
    assert _core.brent_recurrence([]) is None
    assert _core.brent_recurrence([1, 2, 3]) is None


def test_threads_share_a_detector() -> None:
    """Batches release the GIL while single steps run on other threads: nothing is lost."""
    import threading

    d = crs.CycleDetector(crs.CycleDetectorConfig(max_history=10))
    batch = [f"b{i}" for i in range(20_000)]  # distinct: no cycles

    def singles() -> None:
        for i in range(5_000):
            d.add_step(f"s{i}")

    def batches() -> None:
        for _ in range(3):
            d.add_steps(batch)

    threads = [threading.Thread(target=f) for f in (singles, singles, batches)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert d.stats().steps_processed == 2 * 5_000 + 3 * 20_000


def test_add_steps_same_objects_equal_strings_and_subclasses_agree() -> None:
    # add_steps maps repeated exact-str objects to their ids by address within one call; equal
    # strings that are distinct objects, and str subclasses (never cached), must give the same
    # detections as one add_step per state.
    class Key(str):
        __slots__ = ()

    base = ["s:a", "s:b", "s:c", "s:b", "s:d", "s:a", "s:e", "s:e", "s:f", "s:c", "s:f"]
    shared = [base[i % len(base)] for i in range(200)]  # the same objects, repeated
    distinct = ["".join(list(s)) for s in shared]  # equal text, new objects each time
    assert distinct[0] is not shared[0]
    subclassed = [Key(s) for s in shared]
    one_by_one = crs.CycleDetector()
    expected = [(i, r) for i, r in enumerate(one_by_one.add_step(s) for s in shared) if r.detected]
    for states in (shared, distinct, subclassed):
        assert crs.CycleDetector().add_steps(states) == expected
