"""Hypothesis properties of the guard's rules: identity, productive work, loops."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from crs.guard import Action, Guard, VerdictCode

NAMES = st.text("abcdefghij_", min_size=1, max_size=8)
VALUES = st.one_of(st.integers(-5, 5), st.text("ab c", max_size=6), st.booleans(), st.none())


@given(args=st.dictionaries(NAMES, VALUES, max_size=5), note=st.text(max_size=10))
def test_signature_ignores_key_order_number_form_and_commentary(
    args: dict[str, Any], note: str
) -> None:
    g = Guard()
    shuffled = dict(reversed(list(args.items())))
    floats = {k: float(v) if type(v) is int else v for k, v in shuffled.items()}
    floats["thought"] = note
    a = g.call_for("tool", args)
    b = g.call_for("tool", floats)
    assert a.signature == b.signature


@given(
    words=st.lists(st.text("abc-xyz/._", min_size=1, max_size=6), min_size=1, max_size=5),
    pads=st.lists(st.sampled_from([" ", "  ", "\t"]), min_size=6, max_size=6),
)
def test_shell_commands_agree_across_whitespace_and_quoting(
    words: list[str], pads: list[str]
) -> None:
    g = Guard()
    plain = " ".join(words)
    spaced = pads[0] + "".join(w + pads[i % 5 + 1] for i, w in enumerate(words))
    quoted = " ".join(f"'{w}'" for w in words)
    sigs = {g.call_for("bash", {"command": c}).signature for c in (plain, spaced, quoted)}
    assert len(sigs) == 1


@given(n=st.integers(1, 60), tool=st.sampled_from(["read_file", "grep", "bash", "search"]))
def test_distinct_calls_are_never_flagged(n: int, tool: str) -> None:
    g = Guard()
    for i in range(n):
        v = g.before_call(tool, {"path": f"src/m{i}.py", "q": f"item {i}"})
        assert v.action is Action.ALLOW
        assert v.call is not None
        after = g.after_call(v.call, result=f"line {i}" if i % 3 else "")
        assert after.action is Action.ALLOW, (i, after)


@given(plan=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=80))
def test_a_call_whose_result_always_changes_is_never_flagged(plan: list[tuple[int, int]]) -> None:
    # Any order of a few calls, each returning something new every time: progress.
    g = Guard()
    for i, (tool, arg) in enumerate(plan):
        v = g.before_call(f"t{tool}", {"arg": arg})
        assert v.allowed, v
        assert v.call is not None
        after = g.after_call(v.call, result=f"fresh output {i}")
        assert after.action is Action.ALLOW, after


@given(period=st.integers(1, 8), extra=st.integers(0, 3))
def test_a_repeated_block_is_reported_once_it_fully_repeated(period: int, extra: int) -> None:
    g = Guard()
    block = [(f"tool{i}", {"k": i}, f"result {i}") for i in range(period)]
    flagged_at = None
    step = 0
    for _ in range(2 + extra + (2 if period == 1 else 0)):
        for tool, args, res in block:
            step += 1
            v = g.before_call(tool, args)
            if not v.allowed:
                flagged_at = flagged_at or step
                continue
            assert v.call is not None
            a = g.after_call(v.call, result=res)
            if a.action is not Action.ALLOW:
                flagged_at = flagged_at or step
                assert a.code in (VerdictCode.REPEATED_CALL, VerdictCode.CYCLE)
    confirm = 3 if period == 1 else 2 * period
    assert flagged_at == confirm


@given(n=st.integers(3, 12))
def test_nudge_then_block_then_stop(n: int) -> None:
    g = Guard()
    actions = []
    for _ in range(n):
        v = g.before_call("read_file", {"path": "a.py"})
        if v.allowed:
            assert v.call is not None
            actions.append(str(g.after_call(v.call, result="same").action))
        else:
            actions.append(str(v.action))
    ladder = ["allow", "allow", "nudge", "block", "block", "stop"]
    assert actions[: len(ladder)] == ladder[: len(actions)]
    assert set(actions[len(ladder) :]) <= {"stop"}


BAD = st.one_of(
    st.just(float("nan")),
    st.just(float("inf")),
    st.builds(object),
    st.sets(st.integers(), min_size=1, max_size=2),
    st.just(b"bytes"),
    st.text(alphabet="\ud800\udfff", min_size=1, max_size=2),
)


@given(good=st.dictionaries(NAMES, VALUES, max_size=3), key=NAMES, bad=BAD)
def test_bad_arguments_are_typed_errors_that_change_nothing(
    good: dict[str, Any], key: str, bad: Any
) -> None:
    import json

    import pytest

    import crs

    g = Guard()
    v = g.before_call("t", good)
    assert v.call is not None
    g.after_call(v.call, result="ok")
    before = json.dumps(g.explain(), sort_keys=True)
    args = {**good, key: {"nested": [bad]}}
    with pytest.raises(crs.InvalidArgumentError, match="args"):
        g.before_call("t", args)
    w = g.before_call("t", {**good, "other": 1})  # (a call is recorded once: a new one)
    assert w.call is not None
    before = json.dumps(g.explain(), sort_keys=True)
    if isinstance(bad, str):  # text that is not UTF-8 is refused in results too
        with pytest.raises(crs.InvalidArgumentError, match="result"):
            g.after_call(w.call, result={"out": [bad]})
    assert json.dumps(g.explain(), sort_keys=True) == before
    if not isinstance(bad, str):  # other non-JSON results are digested by their text
        assert g.after_call(w.call, result={"out": [bad]}).allowed
