"""Records of `crs._types` defined on first use (`crs._types._define_deferred`): none of them
is built or imported by name on a Claude Code hook's path, and defining a dataclass costs ~1 ms
of a cold hook's start-up. Import them from `crs._types` (or `crs`), never from here."""

from __future__ import annotations

import dataclasses
from typing import Any, Self

from crs._types import ConstraintType, SignalSource, _Record

__all__ = ["ConstraintUpdate", "DependencyEdge", "KeyValue", "NodeFrequency"]


@dataclasses.dataclass(frozen=True, slots=True)
class KeyValue(_Record):
    key: str = ""
    value: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class ConstraintUpdate(_Record):
    id: str = ""
    type: ConstraintType = ConstraintType.UNKNOWN
    nodes: tuple[str, ...] = ()
    source: SignalSource = SignalSource.UNKNOWN


@dataclasses.dataclass(frozen=True, slots=True)
class DependencyEdge(_Record):
    """`from_` depends on (calls) `to`. The JSON form uses the keys `from` and `to`."""

    from_: str = ""
    to: str = ""
    source: SignalSource = SignalSource.UNKNOWN

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.from_, "to": self.to, "source": int(self.source)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        return cls(
            from_=data.get("from", data.get("from_", "")),
            to=data.get("to", ""),
            source=SignalSource(data.get("source", 0)),
        )


@dataclasses.dataclass(frozen=True, slots=True)
class NodeFrequency(_Record):
    node_id: str = ""
    frequency: int = 0


for _cls in (KeyValue, ConstraintUpdate, DependencyEdge, NodeFrequency):
    # what they were (and what `crs._check.hints` and `_Record.from_dict` resolve in)
    _cls.__module__ = _cls._defining_module = "crs._types"
