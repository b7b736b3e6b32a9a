"""The state image: the whole reasoning state as one document, and as backup bytes.

The document (format `STATE_IMAGE_VERSION`) is a JSON-able dict: every index (the streaming
sketch as base64), the analytics records, the image parts (the guards' state, with the
parts of `crs._crs._PARTS` under `"parts"`) and the generation. `state_image` writes it
(it lives in `crs._state._image`, re-exported here) and `parse_image` reads it back into a
fresh head. It is what a journaled `restore` op carries and what `CRS._state_image()` gives.

The backup image (`BackupImage.data`, format `IMAGE_VERSION`) is the document without its
proof rows followed by a columnar proof table, so that a million entries encode and decode
at C speed. Little-endian::

    b"CRSIMAGE" | u32 version | u32 0 | u64 json length | JSON document | proof table

    proof table: u64 count | u32 x count id lengths (code points) | u64 x count proof
                 | u64 x count disproof | u8 x count status | u8 x count source
                 | i64 x count updated_at | ids concatenated (UTF-8, surrogatepass)

Bump a version when its layout changes. This module sits below the kernel: it imports
`_state`, `_core` and `_errors` only.
"""

from __future__ import annotations

import base64
import json
import struct
import sys
from array import array
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from crs import _core
from crs._check import brief
from crs._errors import InvalidArgumentError
from crs._state._image import STATE_IMAGE_VERSION, state_image
from crs._state._ops import OpKind

if TYPE_CHECKING:
    from crs._state._analytics import AnalyticsRecord

__all__ = [
    "IMAGE_VERSION",
    "STATE_IMAGE_VERSION",
    "decode_image",
    "decode_proof_table",
    "encode_image",
    "encode_proof_table",
    "parse_image",
    "state_image",
]

IMAGE_VERSION = 1
"""Version of the backup image layout written by `CRS.export_image`."""

_MAGIC = b"CRSIMAGE"
_HEAD = struct.Struct("<8sIIQ")

ProofRow = tuple[str, int, int, int, int, int]


# ---------------------------------------------------------------- the document


def parse_image(
    image: Any, caps: tuple[int, int]
) -> tuple[_core.StateHead, tuple[AnalyticsRecord, ...], int, dict[str, Any]]:
    """A `state_image` document read back: (a new head with every index, the analytics,
    the image's generation, its parts section). Changes nothing.

    Raises:
        InvalidArgumentError: not a document of this version, or malformed.
        DeltaValidationError: the content breaks an index's rules.
    """
    if not isinstance(image, dict) or image.get("version") != STATE_IMAGE_VERSION:
        raise InvalidArgumentError(
            f"image: must be a dict from CRS._state_image() with version {STATE_IMAGE_VERSION}"
        )
    try:
        ops: list[tuple[Any, ...]] = [
            (OpKind.PROOF, [tuple(r) for r in image["proof"]]),
            (OpKind.CONSTRAINT, [tuple(r) for r in image["constraints"]], [], []),
            (OpKind.SIMILARITY, [tuple(p) for p in image["similarity"]]),
            (OpKind.DEPENDENCY, [tuple(e) for e in image["dependency"]], []),
            (OpKind.HISTORY, [(*r[:6], [tuple(kv) for kv in r[6]]) for r in image["history"]]),
        ]
        sketch = base64.b64decode(image["streaming"])
        sim_ev, hist_ev = image["evicted"]
        analytics: tuple[AnalyticsRecord, ...] = ()
        if image["analytics"] != []:
            # inside: start-up (most images hold no analytics record)
            from crs._state._analytics import AnalyticsRecord

            analytics = tuple(AnalyticsRecord.from_dict(r) for r in image["analytics"])
        gen = int(image["generation"])
    except (KeyError, TypeError, ValueError) as err:
        raise InvalidArgumentError(f"image: malformed state image ({err})") from None
    try:
        new, _, _ = _core.StateCore(*caps).apply_ops(ops)
        head = _core.StateHead(*caps)
        head.reset(new)
        head.set_sketch(sketch, sim_ev, hist_ev)
    except ValueError as err:
        from crs._state._snapshot import _raise_apply  # inside: start-up (an error path)

        _raise_apply(err)
    return head, analytics, gen, image.get("guards") or {}


# ---------------------------------------------------------------- the backup bytes


def _column(code: str, data: bytes | memoryview, pos: int, n: int) -> tuple[array[Any], int]:
    col = array(code)
    end = pos + n * col.itemsize
    if end > len(data):
        raise ValueError("proof table is cut short")
    col.frombytes(data[pos:end])
    if sys.byteorder == "big" and col.itemsize > 1:  # pragma: no cover - little-endian hosts
        col.byteswap()
    return col, end


def _le(col: array[Any]) -> bytes:
    if sys.byteorder == "big" and col.itemsize > 1:  # pragma: no cover - little-endian hosts
        col = array(col.typecode, col)
        col.byteswap()
    return col.tobytes()


def encode_proof_table(rows: list[ProofRow]) -> bytes:
    """The columnar proof table of an image (see the module docstring)."""
    if not rows:
        return struct.pack("<Q", 0)
    ids, proof, disproof, status, source, at = zip(*rows, strict=True)
    return b"".join(
        (
            struct.pack("<Q", len(rows)),
            _le(array("I", map(len, ids))),
            _le(array("Q", proof)),
            _le(array("Q", disproof)),
            bytes(status),
            bytes(source),
            _le(array("q", at)),
            "".join(ids).encode("utf-8", "surrogatepass"),
        )
    )


def decode_proof_table(data: bytes | memoryview) -> list[ProofRow]:
    """Inverse of `encode_proof_table` (raises ValueError on a malformed table)."""
    (n,) = struct.unpack_from("<Q", data)
    if n == 0:
        if len(data) != 8:
            raise ValueError("trailing bytes after an empty proof table")
        return []
    pos = 8
    lens, pos = _column("I", data, pos, n)
    proof, pos = _column("Q", data, pos, n)
    disproof, pos = _column("Q", data, pos, n)
    status, pos = _column("B", data, pos, n)
    source, pos = _column("B", data, pos, n)
    at, pos = _column("q", data, pos, n)
    text = bytes(data[pos:]).decode("utf-8", "surrogatepass")
    ends = list(accumulate(lens))
    if (ends[-1] if ends else 0) != len(text):
        raise ValueError("proof table ids do not match their lengths")
    ids = [text[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]
    return list(zip(ids, proof, disproof, status, source, at, strict=True))


def encode_image(doc: dict[str, Any], rows: list[ProofRow]) -> bytes:
    """Image bytes from the document (without proof rows) and the proof rows."""
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    raw = text.encode("utf-8", "surrogatepass")
    return b"".join((_HEAD.pack(_MAGIC, IMAGE_VERSION, 0, len(raw)), raw, encode_proof_table(rows)))


def decode_image(data: bytes) -> dict[str, Any]:
    """The `state_image` document of image bytes, proof rows included.

    Raises:
        InvalidArgumentError: Not an image of this version, or malformed.
    """
    if len(data) < _HEAD.size:
        raise InvalidArgumentError("image: too short to be a crs state image")
    magic, version, _, size = _HEAD.unpack_from(data)
    if magic != _MAGIC or version != IMAGE_VERSION:
        raise InvalidArgumentError(
            f"image: not a crs state image of version {IMAGE_VERSION} "
            f"(magic {brief(magic)}, version {version}); written by another or a newer crs?"
        )
    view = memoryview(data)
    try:
        doc = json.loads(
            bytes(view[_HEAD.size : _HEAD.size + size]).decode("utf-8", "surrogatepass")
        )
        if not isinstance(doc, dict):
            raise ValueError("the document is not a JSON object")
        doc["proof"] = decode_proof_table(view[_HEAD.size + size :])
    except (ValueError, struct.error) as exc:
        raise InvalidArgumentError(f"image: malformed state image ({exc})") from None
    return doc
