"""The hot path's shortcuts (hot7) say what the general code says: `_trim` of a plain dict
(the oldest keys deleted in place) keeps what the copy-and-refill of a `LazyMap` keeps, and
`after_call` of a Call `before_call` handed out (its fields not checked again, its limits
taken from the pending entry) records what a Call rebuilt from the same fields records."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from crs.guard import Guard
from crs.guard._lazy import LazyMap
from crs.guard._state import MAX_KEYS, _trim


@settings(max_examples=25, deadline=None)
@given(extra=st.integers(1, 300), seed=st.integers(0, 1_000))
def test_trim_in_place_keeps_the_newer_half_in_order(extra: int, seed: int) -> None:
    items = [(f"k{(i * 7919 + seed) % 100_003}-{i}", [i, seed]) for i in range(MAX_KEYS + extra)]
    plain = dict(items)
    lazy = LazyMap(lambda raw: raw, items)
    _trim(plain)
    _trim(lazy)
    assert type(plain) is dict
    assert list(plain.items()) == list(lazy.items()) == items[len(items) - MAX_KEYS // 2 :]
    assert all(plain[k] is v for k, v in items[len(items) - MAX_KEYS // 2 :])
    plain["new"] = [0]  # still a working dict, the new key last
    assert next(reversed(plain)) == "new"
    assert len(plain) == MAX_KEYS // 2 + 1


def _run(rebuild: bool) -> list[object]:
    """Verdicts and the state's recent records of a short session with repeats and a cycle;
    `rebuild`: every Call handed to after_call is a copy (not the one before_call gave)."""
    g = Guard()
    out: list[object] = []
    script = [("read_file", {"path": "a.py"}, "A")] * 4 + [
        ("grep", {"pattern": "x", "Description": "why"}, "hit"),
        ("read_file", {"path": "b.py"}, "B"),
    ] * 3
    for tool, args, res in script:
        v = g.before_call(tool, args)
        out.append((v.action, v.code))
        if v.call is None or not v.allowed:
            continue
        call = dataclasses.replace(v.call) if rebuild else v.call
        a = g.after_call(call, result=res)
        out.append((a.action, a.code, a.evidence))
    s = g._part.sessions[g.session_id]
    out.append([r[:6] for r in s.recent])
    out.append(sorted(s.pairs.items()))
    return out


def test_after_call_of_the_handed_out_call_is_that_of_a_rebuilt_one() -> None:
    assert _run(False) == _run(True)
