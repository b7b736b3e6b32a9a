"""Journal pieces the NATS journal needs until the local journal's module lands.

Provisional: `DeltaOrError`, `JournalStats`, `JournalCodec` and the default codec are owned by
``crs._journal`` (branch ``wal``); this module is replaced by imports from it after the merge.
The record framing (CRC-32C seal, backup frames) is shared by both journals.
"""

from __future__ import annotations

import dataclasses
import json
import struct
from collections.abc import Iterator
from typing import IO, Any, Protocol

import crc32c

from crs._errors import JournalCorruptedError

MAX_FRAME_BYTES = 10 * 1024 * 1024
"""Largest record a backup frame may hold (10 MiB, as the Go journal)."""


class JournalCodec(Protocol):
    """Turns a journal entry (a delta or a plain dict) into bytes and back, losslessly."""

    def encode(self, entry: Any) -> bytes: ...

    def decode(self, data: bytes) -> Any: ...


class _JsonCodec:
    """Versioned JSON: ``{"v": 1, "k": "d"|"o", "e": <delta.to_dict() or the dict>}``."""

    def encode(self, entry: Any) -> bytes:
        if isinstance(entry, dict):
            doc = {"v": 1, "k": "o", "e": entry}
        else:
            doc = {"v": 1, "k": "d", "e": entry.to_dict()}
        return json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()

    def decode(self, data: bytes) -> Any:
        try:
            doc = json.loads(data)
        except ValueError as exc:
            raise JournalCorruptedError(f"entry is not valid JSON: {exc}") from exc
        if doc.get("k") == "d":
            from crs import _deltas  # type: ignore[attr-defined]

            return _deltas.delta_from_dict(doc["e"])
        return doc["e"]


def default_codec() -> JournalCodec:
    """The codec every journal uses unless configured otherwise."""
    return _JsonCodec()


@dataclasses.dataclass(frozen=True, kw_only=True)
class DeltaOrError:
    """One item of a streaming replay: a decoded entry, or the error met at `seq_num`."""

    delta: Any = None
    seq_num: int = 0
    err: Exception | None = None
    skipped: bool = False


@dataclasses.dataclass(frozen=True, kw_only=True)
class JournalStats:
    """Journal counters."""

    total_deltas: int = 0
    total_bytes: int = 0
    last_seq_num: int = 0
    last_checkpoint: int = 0
    corrupted_count: int = 0
    degraded: bool = False


def seal(payload: bytes) -> bytes:
    """A record: 4-byte big-endian CRC-32C of `payload`, then `payload`."""
    return crc32c.crc32c(payload).to_bytes(4, "big") + payload


def unseal(record: bytes, *, what: str) -> bytes:
    """The payload of a record; `JournalCorruptedError` naming `what` if the CRC fails."""
    if len(record) < 4:
        raise JournalCorruptedError(f"{what}: record too short ({len(record)} bytes)")
    stored = int.from_bytes(record[:4], "big")
    payload = record[4:]
    computed = crc32c.crc32c(payload)
    if stored != computed:
        raise JournalCorruptedError(
            f"{what}: CRC-32C mismatch stored={stored:08x} computed={computed:08x}"
        )
    return payload


def write_frame(w: IO[bytes], record: bytes) -> None:
    """One backup frame: 4-byte big-endian length, then the record."""
    w.write(struct.pack(">I", len(record)))
    w.write(record)


def read_frames(r: IO[bytes]) -> Iterator[bytes]:
    """The records of a backup stream; a clean end of stream ends it.

    Raises:
        JournalCorruptedError: A truncated frame or a length above `MAX_FRAME_BYTES`.
    """
    while True:
        head = r.read(4)
        if not head:
            return
        if len(head) < 4:
            raise JournalCorruptedError(f"backup: truncated frame header ({len(head)} bytes)")
        (n,) = struct.unpack(">I", head)
        if n > MAX_FRAME_BYTES:
            raise JournalCorruptedError(f"backup: frame too large: {n} bytes")
        body = r.read(n)
        if len(body) != n:
            raise JournalCorruptedError(f"backup: truncated frame ({len(body)} of {n} bytes)")
        yield body
