"""The sanitizer's word gate in the Rust core (`crs._core.Triggers`, one Aho-Corasick pass)
against the membership scans it stands for (the slow reference)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crs import _core
from crs._reasoning import _sanitizer as san


def reference(text: str) -> bool:
    lowered = text.lower()
    return any(t in text for t in san._TRIGGERS) or any(t in lowered for t in san._TRIGGERS_LOWER)


# Pieces of every trigger, cut and in other cases, so texts come near each one.
_PIECES = sorted(
    {w[:i] for w in (*san._TRIGGERS, *san._TRIGGERS_LOWER) for i in range(1, len(w) + 1)}
    | {w.upper() for w in san._TRIGGERS_LOWER}
    | {w.title() for w in san._TRIGGERS_LOWER}
    | {" ", "x", "_", "-", ".", "/", ":"}
)


@settings(max_examples=3000)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_the_gate_agrees_with_the_scans_near_every_trigger(text: str) -> None:
    assert san._GATE.found(text) is reference(text)


@settings(max_examples=500)
@given(st.text(st.characters(min_codepoint=0, max_codepoint=127), max_size=200))
def test_the_gate_agrees_with_the_scans_on_any_ascii(text: str) -> None:
    assert san._GATE.found(text) is reference(text)


def test_other_text_keeps_the_python_check() -> None:
    # U+212A KELVIN SIGN lower-cases to an ASCII "k": only the Python check sees "key".
    assert "\u212aey".lower() == "key"
    assert san._triggered("\u212aey=1")
    with pytest.raises(ValueError, match="text: must be ASCII"):
        san._GATE.found("\u212aey")
    with pytest.raises(ValueError, match="lower: words must be written in lower case"):
        _core.Triggers([], ["Key"])
