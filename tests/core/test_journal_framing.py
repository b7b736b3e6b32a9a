"""The Rust record framing (`crs._core.wal_*`) against the pure-Python model in wal_reference."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import wal_reference as ref
from crs import _core

units = st.lists(st.lists(st.binary(max_size=40), min_size=1, max_size=4), max_size=6)


def build(first: int, groups: list[list[bytes]]) -> bytes:
    out, seq = b"", first
    for g in groups:
        out += _core.wal_encode(seq, g)
        seq += len(g)
    return out


@given(st.integers(0, 2**40), units)
def test_encode_matches_reference(first: int, groups: list[list[bytes]]) -> None:
    seq = first
    for g in groups:
        assert _core.wal_encode(seq, g) == ref.encode_unit(seq, g)
        seq += len(g)


@given(
    st.integers(1, 1000),
    units,
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), max_size=3),
    st.integers(0, 10**6),
    st.integers(1, 8),
    st.integers(-1, 1),
)
def test_scan_and_resync_match_reference_on_damaged_buffers(
    first: int,
    groups: list[list[bytes]],
    flips: list[tuple[int, int]],
    cut: int,
    max_records: int,
    seq_shift: int,
) -> None:
    buf = bytearray(build(first, groups))
    for pos, mask in flips:
        if buf:
            buf[pos % len(buf)] ^= mask
    data = bytes(buf[: len(buf) - cut % (len(buf) + 1)]) + bytes(cut % 30)
    expected = first + seq_shift
    assert _core.wal_scan(data, 0, expected, max_records) == ref.scan(
        data, 0, expected, max_records
    )
    start = cut % (len(data) + 1)
    for unit_start in (True, False):
        assert _core.wal_resync(data, start, unit_start) == ref.resync(data, start, unit_start)


@given(st.integers(1, 1000), units)
def test_intact_buffers_give_back_every_payload(first: int, groups: list[list[bytes]]) -> None:
    data = build(first, groups)
    payloads, commit, stop_pos, stop, _ = _core.wal_scan(data, 0, first, 1 << 40)
    assert payloads == [p for g in groups for p in g]
    assert (commit, stop_pos, stop) == (len(data), len(data), ref.END)
