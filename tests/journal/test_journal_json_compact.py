"""`_core.json_compact` (the journal's op records as JSON in Rust) against its reference,
Python's `json` with the codec's options: the same bytes for plain data, None for the rest
(which the codec then sends to `json`, so its errors and output stay Python's)."""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crs import _core
from crs._state._codec import _JSON_HEAD, DeltaCodec, _check_op, _encode_json


def reference(obj: Any, prefix: bytes) -> bytes:
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return prefix + text.encode("utf-8", "surrogatepass")


class Color(enum.StrEnum):
    RED = "red"


# every code point class the escaping treats apart: controls, quotes, backslash, DEL,
# non-ASCII, astral, lone surrogates
texts = st.text(
    alphabet=st.one_of(
        st.characters(max_codepoint=0x7F),
        st.sampled_from('"\\\b\f\n\r\t\x00\x1f\x7fé€😀\ud800\udfff'),
        st.characters(),
    ),
    max_size=40,
)
plain = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**63), max_value=2**63 - 1),
        texts,
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=5).map(tuple),
        st.dictionaries(texts, inner, max_size=5),
    ),
    max_leaves=30,
)
# what Rust declines: floats, huge ints, subclasses, non-str keys
odd = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(min_value=2**63, max_value=2**80),
    st.just(Color.RED),
    st.dictionaries(st.integers(), st.integers(), min_size=1, max_size=2),
)
mixed = st.recursive(
    st.one_of(plain, odd),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)),
    max_leaves=20,
)


def _has_surrogate(obj: Any) -> bool:
    if isinstance(obj, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in obj)
    if isinstance(obj, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in obj.items())
    if isinstance(obj, list | tuple):
        return any(_has_surrogate(v) for v in obj)
    return False


@settings(max_examples=400, deadline=None)
@given(plain, st.binary(max_size=3))
def test_plain_data_is_encoded_byte_for_byte_as_json_does(obj: Any, prefix: bytes) -> None:
    got = _core.json_compact(obj, prefix)
    if _has_surrogate(obj):
        assert got is None  # (json keeps them via surrogatepass: the codec's fallback)
    else:
        assert got == reference(obj, prefix)


@settings(max_examples=300, deadline=None)
@given(mixed)
def test_anything_else_is_declined_or_identical(obj: Any) -> None:
    got = _core.json_compact(obj, b"")
    if got is not None:
        assert got == reference(obj, b"")


def test_what_is_declined() -> None:
    assert _core.json_compact({"x": 1.5}, b"") is None
    assert _core.json_compact({1: 2}, b"") is None
    assert _core.json_compact([2**64], b"") is None
    assert _core.json_compact(Color.RED, b"") is None
    assert _core.json_compact(float("nan"), b"") is None
    deep: Any = "x"
    for _ in range(70):
        deep = [deep]
    assert _core.json_compact(deep, b"") is None
    loop: list[Any] = []
    loop.append(loop)
    assert _core.json_compact(loop, b"") is None  # json raises ValueError on it


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=10), st.dictionaries(texts, mixed, max_size=6), st.booleans())
def test_the_codec_writes_what_json_wrote_and_reads_it_back(
    kind: str, payload: dict[str, Any], bump: bool
) -> None:
    codec = DeltaCodec()
    record = {"op": kind, "payload": payload, "bump_generation": bump}
    try:
        want = _encode_json(_check_op(record))
    except Exception as exc:  # the codec raises the same error
        with pytest.raises(type(exc)):
            codec.encode(record)
        return
    assert codec.encode(record) == want
    assert codec.encode_op(kind, payload, bump) == want
    assert want.startswith(_JSON_HEAD)
    back = codec.decode(want)
    assert back == json.loads(want[2:].decode("utf-8", "surrogatepass"))
