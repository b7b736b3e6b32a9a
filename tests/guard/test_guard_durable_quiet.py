"""`_core.QuietGate` (the sanitizer's and the guard preview's fast path) against the full
sanitizer: text it calls quiet is text no pass changes, and its preview view is the one the
guard's Python code makes."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from crs._reasoning._sanitizer import (
    _TRIGGERS,
    _TRIGGERS_LOWER,
    QUIET,
    SecretSanitizer,
)
from crs.guard import Guard, _canon
from crs.guard._guard import _BOUNDED, _short

# With an extra pattern (that never matches) the sanitizer takes no short cut: every pass.
FULL = SecretSanitizer(extra_patterns=[re.compile(r"(?!x)x")])
DEFAULT = SecretSanitizer()
GUARD = Guard(_durable=True)  # (`_previews` only: an in-memory engine)

pieces = st.sampled_from(
    [
        *_TRIGGERS,
        *_TRIGGERS_LOWER,
        *(t.upper() for t in _TRIGGERS_LOWER),
        "password=hunter2",
        "Bearer abcdefgh123",
        "AKIAIOSFODNN7EXAMPLE",
        "Zt8qL2vX9mKp4RwQ7nYb",
        "aB3" * 9,
        "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
        "x" * 25,
        "user:pw@host",
        "https://u:p@example.com/x",
        "-----BEGIN RSA PRIVATE KEY-----",
        "src/file_1.py",
        "contents of file",
        " ",
        "\t",
        "\n",
        "\x1c",
        ".",
        "=",
        ":",
        "-",
        "@",
        "/",
        "é",
    ]
)
texts = st.one_of(
    st.lists(pieces, max_size=12).map("".join),
    st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=80),
    st.text(max_size=30),
)


@settings(max_examples=1500, deadline=None)
@given(texts)
@example("contents of file 12")
@example("path: src/file_1.py")
def test_quiet_text_is_text_no_pass_changes(text: str) -> None:
    if QUIET.quiet(text):
        assert FULL.sanitize(text) == text
    assert DEFAULT.sanitize(text) == FULL.sanitize(text)


@settings(max_examples=1000, deadline=None)
@given(texts, st.integers(min_value=1, max_value=200))
def test_the_preview_view_is_the_guards(text: str, limit: int) -> None:
    got = QUIET.view(text, limit)
    view = " ".join(text.split())
    if got is None:
        assert not (text.isascii() and QUIET.quiet(view))
        return
    clean = FULL.sanitize(view)
    assert clean == view
    assert got == (view if len(view) <= limit else _short(view, limit))


def test_what_is_not_quiet() -> None:
    assert QUIET.quiet("contents of file 12")
    assert QUIET.quiet("my api key")  # short, no = : - . @ /
    assert not QUIET.quiet("my api key is here")
    assert not QUIET.quiet("a.b.c and some more words")
    assert not QUIET.quiet("token Zt8qL2vX9mKp4RwQ7nYb")
    assert not QUIET.quiet("é")
    assert QUIET.view("  a\n\tb  ", 10) == "a b"
    assert QUIET.view("x" * 30, 10) is None  # a run of 20 token characters
    assert QUIET.view("word " * 40, 10) == "word word…"


def _reference_previews(canon: dict[str, Any], outcome: Any) -> dict[str, str]:
    """`Guard._previews` without its fast paths (what it was before them)."""
    view = _canon.preview(canon)
    clean = FULL.sanitize(view)
    out = {"pv": clean if clean == view else _short(clean, 160)}
    if outcome is not None:
        if isinstance(outcome, str):
            text = outcome
        elif isinstance(outcome, BaseException):
            text = f"{type(outcome).__name__}: {_BOUNDED.repr(outcome.args)}"
        else:
            text = _BOUNDED.repr(outcome)
        view = " ".join(text[:400].split())
        clean = FULL.sanitize(view)
        out["rv"] = clean if clean == view and len(clean) <= 120 else _short(clean, 120)
    return out


keys = st.sampled_from(["path", "query", "command", "password", "api_key", "token", "x"])
values = st.one_of(texts, st.integers(), st.none(), st.lists(texts, max_size=3))


@settings(max_examples=600, deadline=None)
@given(
    st.dictionaries(keys, values, max_size=3),
    st.one_of(st.none(), texts, st.lists(texts, max_size=3), st.builds(ValueError, texts)),
)
def test_the_guards_previews_are_those_of_the_full_sanitizer(
    canon: dict[str, Any], outcome: Any
) -> None:
    assert GUARD._previews("", canon, outcome) == _reference_previews(canon, outcome)
