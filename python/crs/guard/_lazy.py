"""Per-key lazy maps for the guard's large per-session state (reopen cost, issue 13).

A session that made 10,000 calls holds about as many signatures and (call, result) pairs.
A hook process opens the project, decides one call and exits: decoding every entry of those
maps (a Python object per entry) cost it ~13 µs per recorded call. In a backup image the
maps are therefore stored as two texts each (the keys, the base64 of the JSON rows);
loading one splits both (in C) into a dict whose values stay raw text until first read.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, ItemsView, Iterable, Mapping, ValuesView
from typing import Any, TypeVar

V = TypeVar("V")
_MISSING: Any = object()


class LazyMap(dict[str, Any]):
    """A dict whose values may still be the raw text of their row: decoded on first read
    (`get`, `[]`, `items`, `values`, `pop`); keys, `in`, `len`, iteration and deletion need
    no decoding. Writing stores the value as given."""

    __slots__ = ("_decode",)

    def __init__(self, decode: Callable[[str], Any], raw: Iterable[tuple[str, Any]] = ()) -> None:
        super().__init__(raw)
        self._decode = decode

    def _real(self, key: str, value: Any) -> Any:
        if type(value) is str:
            value = self._decode(value)
            dict.__setitem__(self, key, value)
        return value

    def __getitem__(self, key: str) -> Any:
        return self._real(key, dict.__getitem__(self, key))

    def get(self, key: str, default: Any = None) -> Any:
        value = dict.get(self, key, _MISSING)
        return default if value is _MISSING else self._real(key, value)

    def pop(self, key: str, default: Any = _MISSING) -> Any:
        value = dict.pop(self, key, _MISSING)
        if value is _MISSING:
            if default is _MISSING:
                raise KeyError(key)
            return default
        return self._decode(value) if type(value) is str else value

    def _all(self) -> None:
        for key, value in list(dict.items(self)):
            if type(value) is str:
                dict.__setitem__(self, key, self._decode(value))

    def items(self) -> ItemsView[str, Any]:  # type: ignore[override]
        self._all()
        return dict.items(self)

    def values(self) -> ValuesView[Any]:  # type: ignore[override]
        self._all()
        return dict.values(self)

    def encode(self, row: Callable[[Any], Any]) -> list[str]:
        """[keys, rows]: the keys joined by spaces, and the base64 of the rows (JSON, one a
        line) in the same order; raw values are written back as read."""
        rows: list[str] = [
            v if type(v) is str else json.dumps(row(v), separators=(",", ":"))
            for v in dict.values(self)
        ]
        text = "\n".join(rows).encode("utf-8", "surrogatepass")
        return [" ".join(dict.keys(self)), base64.b64encode(text).decode()]

    @classmethod
    def decode(cls, data: Any, decode: Callable[[str], Any]) -> LazyMap:
        """Inverse of `encode` (values decoded on first read). Raises ValueError."""
        if not (isinstance(data, list) and len(data) == 2 and all(type(x) is str for x in data)):
            raise ValueError("a lazy map must be [keys, rows] text")
        if not data[0]:
            return cls(decode)
        keys = data[0].split(" ")
        rows = base64.b64decode(data[1], validate=True).decode("utf-8", "surrogatepass")
        values = rows.split("\n")
        if len(keys) != len(values):
            raise ValueError(f"a lazy map has {len(keys)} keys and {len(values)} rows")
        return cls(decode, zip(keys, values, strict=True))


def encodable(keys: Iterable[str]) -> bool:
    """Whether keys can be stored by `LazyMap.encode` (non-empty, no whitespace)."""
    return all(k and not any(c.isspace() for c in k) for k in keys)


def plain(m: Mapping[str, V]) -> dict[str, V]:
    """A plain dict copy, every value decoded."""
    return dict(m.items())
