"""MinHash shingling, the Jaccard estimate's error bound, and the LSH index (spec §5.9)."""

from __future__ import annotations

import itertools
import math
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crs import _core

SEPARATORS = set(string.whitespace) | (set(string.punctuation) - {"_"})


def ref_shingles(text: str) -> list[str]:
    """Lower-cased tokens split at whitespace and ASCII punctuation except `_`, plus bigrams."""
    tokens: list[str] = []
    cur = ""
    for ch in text.lower():
        if ch in SEPARATORS or ch.isspace():
            if cur:
                tokens.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        tokens.append(cur)
    out: list[str] = []
    for s in tokens + [f"{a} {b}" for a, b in itertools.pairwise(tokens)]:
        if s not in out:
            out.append(s)
    return out


def exact_jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b)


def sig(text: str) -> bytes:
    return _core.minhash_signature(text)


# Words from a small vocabulary so texts overlap; ASCII plus a few letters whose lower case
# is the same in Python and Rust.
word = st.text(alphabet="abcdeéÉçßXYZ_019", min_size=1, max_size=4)
texts = st.lists(word, min_size=1, max_size=30).map(" ".join)


@given(st.text(alphabet=string.printable + "éÉçßΣ", max_size=60))
def test_shingles_match_reference(text: str) -> None:
    assert _core.minhash_shingles(text) == ref_shingles(text)


@given(texts, texts)
def test_estimate_within_minhash_error_bound(a: str, b: str) -> None:
    sa, sb = set(ref_shingles(a)), set(ref_shingles(b))
    j = exact_jaccard(sa, sb)
    est = _core.minhash_jaccard(sig(a), sig(b))
    # Standard error of the estimate is sqrt(J(1-J)/128); allow 5 sigma (+ one position).
    bound = 5 * math.sqrt(max(j * (1 - j), 1 / 128) / 128) + 1 / 128
    assert abs(est - j) <= bound, (est, j)
    if sa == sb:
        assert est == 1.0


def test_examples() -> None:
    assert _core.minhash_shingles("grep:Find TODO items") == [
        "grep",
        "find",
        "todo",
        "items",
        "grep find",
        "find todo",
        "todo items",
    ]
    assert len(sig("x")) == 4 * _core.MINHASH_NUM_PERM == 512
    assert sig("") == b"\xff" * 512
    assert _core.minhash_jaccard(sig("grep:a b c"), sig("GREP a, b; c")) == 1.0
    many = _core.minhash_signatures(["a b", "", "grep:a b c"])
    assert many == sig("a b") + sig("") + sig("grep:a b c")
    assert _core.minhash_signatures([]) == b""
    with pytest.raises(ValueError, match="512 bytes"):
        _core.minhash_jaccard(b"x", sig("a"))


def bands(signature: bytes) -> list[bytes]:
    rows = 4 * _core.LSH_ROWS
    return [signature[i * rows : (i + 1) * rows] for i in range(_core.LSH_BANDS)]


@given(st.lists(texts, min_size=1, max_size=15), texts)
def test_lsh_query_is_exactly_the_band_matches(docs: list[str], query: str) -> None:
    idx = _core.LshIndex()
    sigs = [sig(d) for d in docs]
    for i, s in enumerate(sigs):
        idx.insert(i, s)
    q = bands(sig(query))
    want = [i for i, s in enumerate(sigs) if any(x == y for x, y in zip(bands(s), q, strict=True))]
    assert idx.query(sig(query)) == want
    for i in range(0, len(docs), 2):
        assert idx.remove(i)
    assert idx.query(sig(query)) == [i for i in want if i % 2 == 1]
    assert len(idx) == len(docs) // 2


def test_lsh_near_duplicates() -> None:
    idx = _core.LshIndex()
    base = "search_code:find where the retry budget for http requests is configured in the client"
    idx.insert(1, sig(base))
    idx.insert(2, sig("write_file:append a changelog entry for release two"))
    assert idx.query(sig(base + " module")) == [1]
    assert 1 in idx
    assert 3 not in idx
    idx.insert(1, sig("something else entirely"))  # replaces
    assert idx.query(sig(base)) == []
    assert not idx.remove(9)
    idx.clear()
    assert len(idx) == 0
    with pytest.raises(ValueError, match="512 bytes"):
        idx.insert(5, b"short")
    with pytest.raises(OverflowError):
        idx.insert(-1, sig("a"))
