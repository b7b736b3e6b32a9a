"""A message that repeats itself: the same passage over and over at the end of one agent text.

A model can get stuck inside a single answer, emitting one sentence, or one block of
sentences, again and again until its output limit ("I will end the turn. I will end the
turn. ..."). Across messages the guard's monologue rules see that; within one message this
module does, by the text's period at its end:

- the text is lower-cased and its whitespace collapsed (line breaks, indentation and spaces
  alike); fenced code blocks and table rows are left out (code and tables repeat their shape
  by design: a column of `ok`s, a list of similar statements);
- its last 32 characters are looked up further back; the nearest place they recur gives a
  candidate period `p`, and the longest end of the text that repeats with that period is
  found by bisection (a suffix that repeats with period `p` stays periodic when cut
  shorter, so the test is monotone); a few candidates are tried;
- the run is degenerate when it says its passage at least three times and spans at least
  500 characters (Gemini CLI's content loop is ten 50-character chunks): a sentence said
  twenty times, a five-line block four times, a paragraph three times; and it must hold at
  least ten words of letters between spaces (a string of `<br>`s, a hex dump or `nynyny` is
  left to the rules across messages). A last passage cut short counts when half of it is
  there (a model stops mid-sentence at its output limit). Twelve identical log lines quoted
  outside a code block (~300 characters) are not a loop; twenty are.

A passage that comes back with a counter in it ("Step 1: back up the database. Step 2:
back up the database. ...", llm7shi's quasi-repetition; fresh12) is the same passage: when
no exact run is found, the text is tried again with each run of digits read as one `0`,
and then the passage must be said at least `NUMBERED_TIMES` times and hold at least
`NUMBERED_WORDS` words (a numbered list of a few equal items is a list; dozens of the same
sentence is the model stuck on one line; a number and a word or two, "Test 7 passed.", is
a record, a row of a report, however many there are); and the number must be the only one
in the passage: "Step 3: update the configuration of service 3" names another service in
each copy, "page 3 of 60" another page. That second look reads the last `NUMBERED_TAIL`
characters only (ten copies of a sentence fit in them).

Only the end counts: a repetition the model then breaks out of (a summary after a list of
similar lines) is not one it is stuck in. Cost: one `rfind` per candidate and a bisection
of slice comparisons, all in C, on at most the last 16,000 characters.
"""

from __future__ import annotations

import re

TAIL = 16_000
KEY = 32
MIN_SPAN = 500
MIN_TIMES = 3
MIN_WORDS = 10
CANDIDATES = 8
NUMBERED_TIMES = 10
NUMBERED_WORDS = 4
NUMBERED_TAIL = 4_000

_FENCE = re.compile(r"(?ms)^[ \t]*(```|~~~).*?(?:^[ \t]*\1[ \t]*$|\Z)")
_TABLE = re.compile(r"(?m)^[ \t]*\|.*$")
_WS = re.compile(r"\s+")
_WORD = re.compile(r"[^\W\d_]{2}")
_DIGITS = re.compile(r"\d+")


def _words(text: str) -> int:
    """The space-separated tokens of `text` that hold two letters in a row."""
    return sum(1 for w in text.split(" ") if _WORD.search(w))


def _periodic_end(t: str, p: int) -> int:
    """The length of the longest end of `t` whose characters repeat with period `p`
    (each equal to the one `p` before it), counting the first period: 0 if not even two."""
    n = len(t)
    lo, hi = 0, n - p  # lo: a length known to hold; hi: the longest possible
    if hi <= 0 or t[n - 1] != t[n - 1 - p]:
        return 0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if t[n - mid :] == t[n - mid - p : n - p]:
            lo = mid
        else:
            hi = mid - 1
    return lo + p


def _unit(u: str) -> str:
    """The shortest passage whose copies make up `u` (`u` itself if none)."""
    p = len(u)
    for d in range(1, p // 2 + 1):
        if p % d == 0 and u[:d] * (p // d) == u:
            return u[:d]
    return u


def _counted(unit: str, words: int) -> bool:
    """A passage of the digit-folded text that only a counter tells apart from the others:
    one number in it (more, "Step 3: update service 3", "page 3 of 60", name what each copy
    is about) and at least `words` words."""
    return unit.count("0") == 1 and _words(unit) >= words


def repetition(text: str) -> tuple[int, int] | None:
    """(period, times) when `text` ends in a passage repeated back to back often enough to
    be stuck (see the module's notes), else None."""
    t = text[-TAIL:]
    if "```" in t or "~~~" in t:
        t = _FENCE.sub(" ", t)
    if "|" in t:
        t = _TABLE.sub(" ", t)
    t = _WS.sub(" ", t.lower()).strip()
    if len(t) < MIN_SPAN:
        return None
    found = _periodic(t, MIN_TIMES)
    if found is None and _DIGITS.search(t, len(t) - MIN_SPAN) is not None:
        found = _periodic(_DIGITS.sub("0", t[-NUMBERED_TAIL:]), NUMBERED_TIMES, NUMBERED_WORDS)
    return found


def _periodic(t: str, need: int, unit_words: int = 0) -> tuple[int, int] | None:
    """(period, times) of the longest periodic end of `t` (lower-cased, whitespace
    collapsed) that says its passage at least `need` times, spans `MIN_SPAN`, holds
    `MIN_WORDS` words and `unit_words` in one passage, trying a few candidate periods; else
    None."""
    n = len(t)
    if n < MIN_SPAN:
        return None
    key = t[-KEY:]
    end = n - 1
    for _ in range(CANDIDATES):
        at = t.rfind(key, 0, end)
        if at < 0:
            return None
        p = n - KEY - at
        end = at + KEY - 1
        span = _periodic_end(t, p)
        if span < MIN_SPAN:
            continue
        times = (span + p // 2) // p
        if (
            times >= need
            and _words(t[n - span :]) >= MIN_WORDS
            and (not unit_words or _counted(_unit(t[n - p :]), unit_words))
        ):
            return p, times
    return None
