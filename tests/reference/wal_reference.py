"""A slow pure-Python model of the journal record framing (rust/wal.rs), for property tests."""

from __future__ import annotations

import struct

import crc32c

HEADER = struct.Struct("<IIQIHH")
CONTINUES, NOT_FIRST = 1, 2
END, LIMIT, INCOMPLETE, ZERO, BAD_HEADER, BAD_PAYLOAD, GAP, BAD_BATCH = range(8)


def encode_unit(first_seq: int, payloads: list[bytes]) -> bytes:
    out = bytearray()
    for i, p in enumerate(payloads):
        flags = (CONTINUES if i < len(payloads) - 1 else 0) | (NOT_FIRST if i else 0)
        rest = HEADER.pack(0, len(p), first_seq + i, crc32c.crc32c(p), flags, 0)[4:]
        out += struct.pack("<I", crc32c.crc32c(rest)) + rest + p
    return bytes(out)


def _header(buf: bytes, pos: int) -> tuple[int, int, int, int] | None:
    if len(buf) - pos < HEADER.size:
        return None
    hcrc, length, seq, pcrc, flags, zero = HEADER.unpack_from(buf, pos)
    if hcrc != crc32c.crc32c(buf[pos + 4 : pos + HEADER.size]) or flags & ~3 or zero:
        return None
    return length, seq, pcrc, flags


def scan(
    buf: bytes, start: int, expected: int, max_records: int
) -> tuple[list[bytes], int, int, int, int]:
    """Same contract as `crs._core.wal_scan`."""
    records: list[bytes] = []
    committed, commit_pos, pos, in_batch = 0, start, start, False
    while True:
        if committed >= max_records and not in_batch:
            stop, found = LIMIT, 0
            break
        if pos == len(buf):
            stop, found = END, 0
            break
        if len(buf) - pos < HEADER.size:
            stop, found = INCOMPLETE, 0
            break
        h = _header(buf, pos)
        if h is None:
            zero = buf[pos : pos + HEADER.size] == bytes(HEADER.size)
            stop, found = (ZERO if zero else BAD_HEADER), 0
            break
        length, seq, pcrc, flags = h
        body = pos + HEADER.size
        if len(buf) - body < length:
            stop, found = INCOMPLETE, 0
            break
        if seq != expected:
            stop, found = GAP, seq
            break
        if bool(flags & NOT_FIRST) != in_batch:
            stop, found = BAD_BATCH, 0
            break
        payload = buf[body : body + length]
        if crc32c.crc32c(payload) != pcrc:
            stop, found = BAD_PAYLOAD, 0
            break
        records.append(payload)
        pos, expected = body + length, expected + 1
        in_batch = bool(flags & CONTINUES)
        if not in_batch:
            committed, commit_pos = len(records), pos
    return records[:committed], commit_pos, pos, stop, found


def resync(buf: bytes, start: int, unit_start: bool) -> tuple[int, int] | None:
    """Same contract as `crs._core.wal_resync`."""
    for pos in range(start, len(buf) - HEADER.size + 1):
        h = _header(buf, pos)
        if h is None:
            continue
        length, seq, pcrc, flags = h
        body = pos + HEADER.size
        whole = body + length <= len(buf) and not (unit_start and flags & NOT_FIRST)
        if whole and crc32c.crc32c(buf[body : body + length]) == pcrc:
            return pos, seq
    return None
