"""A structured result's stamp fields (`_canon.RESULT_STAMP_KEYS`: `elapsed_ms`, `request_id`
...) are looked for in its JSON text first (`_core.StampKeys`, one Rust pass), and only a
document that may have one is rebuilt by `_unstamped`:

- the Rust test agrees with its regex reference (`_canon._may_stamp_reference`) on any text
  built of keys, quotes, colons, units, `_` and `-`, case variants and the non-ASCII letters
  that `str.lower()` turns into ASCII ones;
- `result_digest` of random nested JSON, with and without stamp keys, is what the function
  of before (`_unstamped` on every document) gives.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crs import _core
from crs.guard import _canon

STAMPS = ["elapsed_ms", "Request-Id", "durationSeconds", "TS", "took", "too\u212a", "etag"]
PLAIN = ["output", "path", "tookx", "ms", "items", "status", "a", "t\u0130me", "run"]

# (U+0131, dotless i, is its own lower case; U+0130 lowers to "i" and a combining dot)
PIECES = st.sampled_from([*STAMPS, *PLAIN, *'":_-,{}\\ K', '":', "\u0131", "\u0130", "ms", "Sec"])


@settings(max_examples=3000)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_the_rust_key_test_agrees_with_its_regex(text: str) -> None:
    assert _canon._has_stamp_key(text) == _canon._may_stamp_reference(text)


@settings(max_examples=500)
@given(st.text(max_size=60))
def test_the_rust_key_test_agrees_on_any_text(text: str) -> None:
    if any("\ud800" <= c <= "\udfff" for c in text):
        assert _canon._has_stamp_key(text)  # not UTF-8: the slow path decides
    else:
        assert _canon._has_stamp_key(text) == _canon._may_stamp_reference(text)


def test_the_key_test_on_known_documents() -> None:
    found = _canon._has_stamp_key
    assert found('{"elapsed_ms":37,"output":"ok"}')
    assert found('{"meta":{"Request-ID":"r-1"}}')
    assert found('{"output":"x","too\u212a":1}')  # the Kelvin sign: "k" in lower case
    assert not found('{"output":"took","path":"elapsed_ms"}')  # values, not keys
    assert not found('{"tookx":1,"ms":2}')
    assert not found("[1,2,3]")
    with pytest.raises(ValueError, match="words, units"):
        _core.StampKeys(["Took"], [])
    with pytest.raises(ValueError, match="words, units"):
        _core.StampKeys(["took"], ["m s"])


def old_digest(result: Any, echo: list[str]) -> str:
    """`_other_digest` of JSON data as it was: `_unstamped` on every dict and list."""
    doc = _canon._norm(result, "result", 0)
    if type(doc) is dict or type(doc) is list:
        doc = _canon._unstamped(doc, 0)
    text = _canon._dumps(doc)
    if echo:
        text = _canon.without(text, (_canon._dumps(e)[1:-1] for e in echo))
    text = _canon.mask_volatile(text)
    return _canon._blake_hex(b"j" + _canon._encode_text(text, doc, "result"), 8)


keys = st.sampled_from(STAMPS + PLAIN) | st.text(max_size=8)
leaves = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([*STAMPS, "12ms", "2024-01-02T03:04:05Z", "ok"])
    | st.text(max_size=10).filter(lambda t: not any("\ud800" <= c <= "\udfff" for c in t))
)
documents = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=1500)
@given(documents, st.lists(st.sampled_from(["ok", "took", "1", "path"]), max_size=2))
def test_the_digest_is_the_one_of_before(doc: Any, echo: list[str]) -> None:
    if type(doc) is str or doc is None:
        return  # (not the JSON path)
    if any("\ud800" <= c <= "\udfff" for c in _canon._dumps(_canon._norm(doc, "r", 0))):
        return
    assert _canon.result_digest(doc, echo) == old_digest(doc, echo)


def test_stamped_and_unstamped_documents_keep_their_digests() -> None:
    a = {"output": "3 passed", "elapsed_ms": 37, "meta": [{"request_id": "r-1"}]}
    b = {"output": "3 passed", "elapsed_ms": 41, "meta": [{"request_id": "r-2"}]}
    assert _canon.result_digest(a) == _canon.result_digest(b) == old_digest(a, [])
    plain = {"output": "3 passed", "files": ["a.py", "b.py"]}
    assert _canon.result_digest(plain) == old_digest(plain, [])
    assert _canon.result_digest(plain) != _canon.result_digest({**plain, "output": "2 passed"})
