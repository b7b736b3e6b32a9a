"""`DeltaCodec`: how the CRS's journal entries (deltas and ops) become record payloads.

Every payload starts with two bytes, a *kind* and the codec version (1); the rest depends on
the kind (docs/journal-format.md, "Payload"):

- `P` (0x50), a ProofDelta in a compact binary layout, little-endian::

      u8 source | u8 0 | i64 timestamp | u32 count
      count x ( u32 id length | id (UTF-8) | u64 proof | u64 disproof
                | u8 status | u8 source | i64 updated_at )

  ProofDeltas are the hot path (every proof update, disproof propagation and loop), so
  they skip JSON: encoding is one `struct.pack` per row, decoding one `unpack_from`.
- `J` (0x4A), compact UTF-8 JSON (lone surrogates kept via `surrogatepass`) of either
  `{"delta": <Delta.to_dict()>}` (every other delta type, composites nested, analytics
  included, source and timestamp kept; a ProofDelta that does not fit the binary layout,
  e.g. a timestamp beyond 64 bits, lands here too) or an op record
  `{"op": <kind>, "payload": <dict>, "bump_generation": <bool>}` written by `CRS._commit_op`.

Decoding is exact: `decode(encode(x)) == x` for every delta and op record. A payload of an
unknown kind or version, or one that does not parse, raises `JournalCorruptedError`.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping
from typing import Any

from crs import _core
from crs._errors import CRSError, InvalidArgumentError, JournalCorruptedError
from crs._state._deltas import Delta, ProofDelta, delta_from_dict
from crs._types import SignalSource

__all__ = ["CODEC_VERSION", "DeltaCodec", "ProofPayloads"]

CODEC_VERSION = 1
"""Version byte written after the kind byte of every payload (docs/journal-format.md)."""

KIND_PROOF = 0x50  # "P"
KIND_JSON = 0x4A  # "J"

_HEAD = struct.Struct("<BBBxqI")  # kind, version, source, pad, timestamp, count
_ROW = struct.Struct("<QQBBq")  # proof, disproof, status, source, updated_at
_LEN = struct.Struct("<I")
_JSON_HEAD = bytes((KIND_JSON, CODEC_VERSION))
# One encoder for every record (what `json.dumps` with these options builds on each call).
_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
# The same bytes as `_encode_json` for plain data (exact dict/list/str/int/bool/None), in
# one Rust pass; None sends the rest (floats, subclasses, lone surrogates) to `json`.
_json_compact = _core.json_compact
_SOURCES = tuple(SignalSource)
_I64 = 1 << 63


def _encode_proof(delta: ProofDelta) -> bytes | None:
    ts = delta._ts
    if not -_I64 <= ts < _I64:
        return None
    parts = [_HEAD.pack(KIND_PROOF, CODEC_VERSION, int(delta._src), ts, len(delta._rows))]
    pack_len, pack_row = _LEN.pack, _ROW.pack
    try:
        for node, p, dp, st, src, at in delta._rows:
            raw = node.encode()
            parts.append(pack_len(len(raw)))
            parts.append(raw)
            parts.append(pack_row(p, dp, st, src, at))
    except (UnicodeEncodeError, struct.error):
        return None  # lone surrogates in an id: the JSON form keeps them
    return b"".join(parts)


def _decode_proof(data: bytes) -> ProofDelta:
    _, _, src, ts, count = _HEAD.unpack_from(data)
    pos = _HEAD.size
    rows = []
    unpack_len, unpack_row, row_size = _LEN.unpack_from, _ROW.unpack_from, _ROW.size
    for _ in range(count):
        (n,) = unpack_len(data, pos)
        pos += 4
        node = data[pos : pos + n].decode()
        pos += n
        rows.append((node, *unpack_row(data, pos)))
        pos += row_size
    if pos != len(data):
        raise ValueError(f"{len(data) - pos} trailing bytes")
    for r in rows:
        if r[3] > 3 or r[4] > 3 or not r[0]:
            raise ValueError("row out of range")
    return ProofDelta._from_rows(_SOURCES[src], rows, ts)


class ProofPayloads:
    """Consecutive binary ProofDelta payloads of a run, checked, not decoded into objects.

    `DeltaCodec.decode_for_replay` gives these to the CRS replay, which writes each with one
    `StateHead.put_proof_payloads` (decoded in Rust straight into the state), so replaying a
    journal makes no Python object per ProofDelta record. Each payload is one record.
    """

    __slots__ = ("payloads",)

    def __init__(self, payloads: list[bytes]) -> None:
        self.payloads = payloads


def _encode_json(doc: dict[str, Any]) -> bytes:
    """The `J` payload of `doc` through Python's `json` (the reference of `_json_compact`)."""
    try:
        text = _JSON.encode(doc)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"entry: cannot be journaled as JSON: {exc}") from exc
    return _JSON_HEAD + text.encode("utf-8", "surrogatepass")


def _check_op(entry: Mapping[str, Any]) -> dict[str, Any]:
    kind, payload = entry.get("op"), entry.get("payload")
    if not isinstance(kind, str) or not kind or not isinstance(payload, dict):
        raise InvalidArgumentError(
            "entry: an op record must be {'op': str, 'payload': dict, 'bump_generation': bool}, "
            f"got {entry!r}"
        )
    return {"op": kind, "payload": payload, "bump_generation": bool(entry.get("bump_generation"))}


class DeltaCodec:
    """The journal codec of the CRS: deltas (all eight types) and op records, versioned.

    Pass it to the journal a `CRS` writes to: `LocalJournal(config, codec=DeltaCodec())`.
    `CRS.open` and `open_project` do this for you.
    """

    VERSION = CODEC_VERSION

    def encode(self, entry: Any) -> bytes:
        """Encode a `Delta` or an op record dict.

        Raises:
            InvalidArgumentError: `entry` is neither, or is not JSON-safe (NaN, infinity).
        """
        if type(entry) is ProofDelta:
            fast = _encode_proof(entry)
            if fast is not None:
                return fast
        if type(entry) is dict:  # an op record (the usual JSON payload): JSON in Rust
            doc: dict[str, Any] = _check_op(entry)
            fast = _json_compact(doc, _JSON_HEAD)
            if fast is not None:
                return fast
        elif isinstance(entry, Delta):
            doc = {"delta": entry.to_dict()}
        elif isinstance(entry, Mapping):
            doc = _check_op(entry)
        else:
            raise InvalidArgumentError(
                f"entry: must be a crs Delta or an op record dict, got {type(entry).__name__}"
            )
        return _encode_json(doc)

    def encode_op(self, kind: str, payload: dict[str, Any], bump_generation: bool) -> bytes:
        """`encode({"op": kind, "payload": payload, "bump_generation": bump_generation})`
        for a record its caller built (a non-empty str kind, a dict payload, a bool)."""
        doc = {"op": kind, "payload": payload, "bump_generation": bump_generation}
        fast = _json_compact(doc, _JSON_HEAD)
        return fast if fast is not None else _encode_json(doc)

    def decode(self, data: bytes) -> Any:
        """Decode one payload into a fresh `Delta` or op record dict.

        Raises:
            JournalCorruptedError: Unknown kind or version, or a malformed payload.
        """
        if len(data) < 2 or data[1] != CODEC_VERSION or data[0] not in (KIND_PROOF, KIND_JSON):
            head = bytes(data[:2]).hex()
            raise JournalCorruptedError(
                f"payload is not a crs delta codec v{CODEC_VERSION} record (starts {head!r}); "
                "it was written by another codec or a newer crs"
            )
        try:
            if data[0] == KIND_PROOF:
                return _decode_proof(data)
            doc = json.loads(bytes(data[2:]).decode("utf-8", "surrogatepass"))
            if not isinstance(doc, dict):
                raise ValueError("not a JSON object")
            if "delta" in doc:
                return delta_from_dict(doc["delta"])
            return _check_op(doc)
        except (ValueError, KeyError, TypeError, IndexError, struct.error, CRSError) as exc:
            raise JournalCorruptedError(f"malformed delta codec payload: {exc}") from exc

    def decode_many(self, payloads: list[bytes]) -> list[Any]:
        """Decode a run of payloads (raising `JournalCorruptedError` on the first bad one).

        The binary ProofDeltas of the run are decoded at once in Rust, the rest one by one.
        """
        try:
            fast = _core.codec_decode_proofs(payloads)
        except (ValueError, TypeError) as exc:
            raise JournalCorruptedError(f"malformed delta codec payload: {exc}") from exc
        decode, from_rows, sources = self.decode, ProofDelta._from_rows, _SOURCES
        if None not in fast:  # only binary ProofDeltas (the common run)
            return [from_rows(sources[s], rows, ts) for s, ts, rows in fast]  # type: ignore[misc]
        return [
            decode(p) if f is None else from_rows(sources[f[0]], f[2], f[1])
            for p, f in zip(payloads, fast, strict=True)
        ]

    def decode_for_replay(self, payloads: list[bytes]) -> list[Any]:
        """Like `decode_many`, but each stretch of binary ProofDelta payloads comes back as
        one `ProofPayloads` (checked in Rust, no object per record) for the CRS replay.

        Raises:
            JournalCorruptedError: A payload is malformed (the run is then decoded one by one).
        """
        try:
            mask = _core.codec_proof_mask(payloads)
        except (ValueError, TypeError) as exc:
            raise JournalCorruptedError(f"malformed delta codec payload: {exc}") from exc
        if all(mask):
            return [ProofPayloads(payloads)] if payloads else []
        out: list[Any] = []
        start = -1  # first payload of the current stretch of binary ProofDeltas
        for i, is_proof in enumerate(mask):
            if is_proof:
                if start < 0:
                    start = i
                continue
            if start >= 0:
                out.append(ProofPayloads(payloads[start:i]))
                start = -1
            out.append(self.decode(payloads[i]))
        if start >= 0:
            out.append(ProofPayloads(payloads[start:]))
        return out
