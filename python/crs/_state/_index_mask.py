"""`IndexMask`: which of the six indexes a change touched (`DeltaType` is in `_deltas`)."""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable
from typing import Any

from crs._check import brief
from crs._errors import InvalidArgumentError
from crs._state._deltas import Delta

_INDEX_NAMES = ("proof", "constraint", "similarity", "dependency", "history", "streaming")


class IndexMask(enum.IntFlag):
    """Which of the six indexes a change touched. JSON form: a list of index names."""

    PROOF = 1
    CONSTRAINT = 2
    SIMILARITY = 4
    DEPENDENCY = 8
    HISTORY = 16
    STREAMING = 32

    @classmethod
    def from_strings(cls, names: Iterable[str]) -> IndexMask:
        """Mask of the known names (unknown names such as "analytics" are ignored)."""
        mask = cls(0)
        for name in names:
            if name in _INDEX_NAMES:
                mask |= cls(1 << _INDEX_NAMES.index(name))
        return mask

    @classmethod
    def from_delta(cls, delta: Delta) -> IndexMask:
        """Mask of `delta.indexes_affected()`."""
        if not isinstance(delta, Delta):
            raise InvalidArgumentError(f"delta: must be a Delta, got {brief(delta)}")
        return cls.from_strings(delta.indexes_affected())

    @classmethod
    def from_json(cls, value: Any) -> IndexMask:
        """Inverse of `to_json`; also accepts the numeric bitmask (a uint8, 0-255, as in Go;
        bits above the six indexes are dropped)."""
        if isinstance(value, int) and not isinstance(value, bool):
            if not 0 <= value <= 255:
                raise InvalidArgumentError(
                    f"value: an IndexMask bitmask is a uint8 (0-255), got {value}"
                )
            return cls(value & 63)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return cls.from_strings(value)
        raise InvalidArgumentError(
            f"value: an IndexMask is a list of index names or an int, got {brief(value)}"
        )

    def names(self) -> list[str]:
        """Index names in bit order."""
        return [n for i, n in enumerate(_INDEX_NAMES) if self & (1 << i)]

    def has(self, idx: IndexMask) -> bool:
        return (self & idx) == idx

    def add(self, idx: IndexMask) -> IndexMask:
        return self | idx

    def to_json(self) -> list[str]:
        return self.names()

    def marshal_json(self) -> bytes:
        """The seed's `MarshalJSON`: a JSON array of index names, ``["proof","history"]``."""
        return json.dumps(self.names(), separators=(",", ":")).encode()

    @classmethod
    def unmarshal_json(cls, data: bytes | str) -> IndexMask:
        """The seed's `UnmarshalJSON`: a JSON array of index names or a JSON number (bitmask).

        Unknown names are ignored, as in `from_strings`. A number must fit the Go type, uint8
        (0-255); bits above the six indexes are dropped.

        Raises:
            InvalidArgumentError: `data` is not JSON, neither an array of strings nor an int,
                or a number outside 0-255.
        """
        if not isinstance(data, bytes | bytearray | str):
            raise InvalidArgumentError(f"data: must be JSON bytes or str, got {brief(data)}")
        try:
            value = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            raise InvalidArgumentError(f"data: not valid JSON ({exc})") from None
        return cls.from_json(value)

    def __str__(self) -> str:
        return ",".join(self.names())


def index_mask_from_delta(delta: Delta) -> IndexMask:
    """The seed's `IndexMaskFromDelta`: the mask of `delta.indexes_affected()`."""
    return IndexMask.from_delta(delta)


def index_mask_from_strings(names: Iterable[str]) -> IndexMask:
    """The seed's `IndexMaskFromStrings`: the mask of the known index names (unknown names,
    such as "analytics", are ignored)."""
    if isinstance(names, str) or not isinstance(names, Iterable):
        raise InvalidArgumentError(f"names: must be an iterable of index names, got {brief(names)}")
    return IndexMask.from_strings(names)
