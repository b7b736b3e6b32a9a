"""One agent message stuck on a passage it says over and over (`crs.guard._repeat`): the
same sentence twenty times, a five-line block four times, a paragraph three times, at the
end of the text, is a monologue at that message; code blocks, tables, lists of different
items, dividers, quoted logs of a dozen lines and a repetition the model broke out of are
not. The fast search (nearest recurrences of the last 32 characters, bisection) agrees with
a character-by-character reference."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from crs.guard import Action, Guard, VerdictCode, _repeat

CHANT = (
    "I will not output any text.\n  I will just end the turn.\n  I am done.\n"
    "  I will not do anything else.\n  I will wait for the user's next command.\n"
)
PARAGRAPH = (
    "The configuration loader reads settings.yaml from the project root, merges the "
    "environment overrides, validates the schema and caches the result in a module-level "
    "variable so that later calls are cheap. "
)


def test_a_message_stuck_on_one_passage_is_found() -> None:
    assert _repeat.repetition("Let me summarise. " + CHANT * 10) == (135, 10)
    assert _repeat.repetition(CHANT * 4) == (135, 4)
    assert _repeat.repetition("I will fix the bug now. " * 30) == (24, 30)
    assert _repeat.repetition(PARAGRAPH * 3) is not None
    assert _repeat.repetition("the " * 200) == (4, 200)
    # cut off mid-sentence at the output limit: the passage still counts
    assert _repeat.repetition("I will fix the bug now. " * 30 + "I will fi") is not None
    # line breaks, indentation and case do not make the passage another one
    mixed = "".join(
        ("I will fix the bug now.\n" if i % 2 else "  i will FIX the bug now. ") for i in range(30)
    )
    assert _repeat.repetition(mixed) is not None


def test_structured_and_sane_text_is_not_a_repetition() -> None:
    rows = "".join(f"| {i} | item | ok |\n" for i in range(60))
    steps = "".join(f"- Step {i}: update the configuration of service {i}\n" for i in range(40))
    for text in [
        "| id | name | status |\n|---|---|---|\n" + rows,
        "| n/a | n/a | n/a |\n" * 60,  # a table's rows repeat by design
        steps,  # items that differ (their numbers)
        "Section A\n" + "-" * 600 + "\nSection B\n" + "=" * 600,
        "Here:\n```python\n" + "print('hello world')\n" * 60 + "```\nDone.",
        "Here:\n~~~\n" + "assert x\n" * 100,  # an open code block at the end
        "The server printed:\n" + "Error: connection refused\n" * 12,  # a quoted log
        CHANT * 3,  # under 500 characters of repetition
        "I will fix the bug now. " * 30 + "Sorry, I was repeating myself. The fix is to "
        "read the file once and cache it; here is the patch and the test that covers it.",
        "<br>" * 400,  # no words between spaces
        "ny" * 600,
        "ABCD1234" * 200,
        Path("README.md").read_text()[:20_000],
    ]:
        assert _repeat.repetition(text) is None, text[:60]


def test_the_guard_nudges_the_message_then_escalates() -> None:
    g = Guard()
    v = g.on_message("Let me summarise. " + CHANT * 10)
    assert (v.action, v.code) == (Action.NUDGE, VerdictCode.MONOLOGUE)
    assert "135-character passage 10 times" in v.reason
    assert "repeating yourself" in v.message
    w = g.on_message("I will fix the bug now. " * 40)
    assert w.action == Action.BLOCK
    # a tool call ends the run of messages: the next sane answer is allowed
    c = g.before_call("read_file", {"path": "a.py"})
    assert c.call is not None
    g.after_call(c.call, result="x = 1")
    assert g.on_message("The file sets x to 1; nothing else to change.").allowed


def test_a_long_sane_answer_is_allowed() -> None:
    g = Guard()
    text = " ".join(
        f"Section {i}: the module {name} handles {what}."
        for i, (name, what) in enumerate(
            [("loader", "reading"), ("cache", "keeping"), ("cli", "parsing")] * 40
        )
    )
    assert g.on_message(text).allowed


# ------------------------------------------------------------------ the reference


def _normal(text: str) -> str:
    t = text[-_repeat.TAIL :]
    t = re.sub(r"(?ms)^[ \t]*(```|~~~).*?(?:^[ \t]*\1[ \t]*$|\Z)", " ", t)
    t = re.sub(r"(?m)^[ \t]*\|.*$", " ", t)
    return " ".join(t.lower().split())


def _reference(text: str) -> tuple[tuple[int, int] | None, int]:
    """(the smallest period that qualifies and its count, or None; how many places the last
    32 characters recur at a distance below that period), character by character."""
    t = _normal(text)
    n = len(t)
    if n < _repeat.MIN_SPAN:
        return None, 0
    for p in range(1, n):
        run = 0
        while run < n - p and t[n - 1 - run] == t[n - 1 - run - p]:
            run += 1
        span = run + p if run else 0
        times = (span + p // 2) // p if span else 0
        tokens = t[n - span :].split(" ") if span else []
        words = sum(1 for w in tokens if re.search(r"[^\W\d_]{2}", w))
        if span >= _repeat.MIN_SPAN and times >= _repeat.MIN_TIMES and words >= 10:
            key = t[-_repeat.KEY :]
            closer = sum(
                1
                for d in range(1, p)
                if n - _repeat.KEY - d >= 0 and t[n - _repeat.KEY - d :][: _repeat.KEY] == key
            )
            return (p, times), closer
    return None, 0


_unit = st.lists(
    st.sampled_from(["ab", "abc", "the", "cat", "a", "b", " ", ".", "\n"]), max_size=12
)


@settings(max_examples=150, deadline=None)
@given(st.text("ab \n", max_size=60), _unit, st.integers(0, 80), st.text("abc. ", max_size=8))
@example("x ", ["the", " ", "cat", " ", "sat", "."], 40, "")
@example("", ["ab", " ", "ab", "c", " "], 60, "ab a")
def test_the_search_agrees_with_the_reference(
    head: str, unit: list[str], times: int, tail: str
) -> None:
    text = head + "".join(unit) * times + tail
    want, closer = _reference(text)
    got = _repeat.repetition(text)
    if want is None:
        assert got is None
    elif closer < _repeat.CANDIDATES:
        assert got == want
    else:  # the key recurs inside the passage more often than the search looks back
        assert got in (None, want)
