"""Delta history: which deltas were applied, at which generation, by whom (seed GR-35).

Unlike the Go worker (a goroutine fed by a lossy channel), recording here is synchronous
under a lock, so a query sees every delta committed before it (spec README §5 item 12).
Recording is O(1) (the delta object is kept; its JSON form is built when queried) and the
history is bounded (`max_records`, oldest evicted first, counted in `evicted()`).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import threading
from array import array
from collections import deque
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from crs._check import brief, mapping_of
from crs._errors import DeltaHistoryClosedError, InvalidArgumentError, NilDeltaError
from crs._state._deltas import Delta, DeltaType, ProofDelta, delta_from_dict
from crs._types import _Record, now_ms

DEFAULT_MAX_DELTA_RECORDS: int = 1000
"""Delta records kept by default; the oldest is evicted first."""

_log = logging.getLogger("crs.delta_history")


@dataclasses.dataclass(frozen=True, slots=True)
class DeltaRecord(_Record):
    """One applied delta with its context. `delta_bytes` is the delta's JSON form
    (`{"type": ..., "data": Delta.to_dict()}`), for every delta type, composites included."""

    id: str = ""
    generation: int = 0
    timestamp: int = 0
    delta_type: DeltaType = DeltaType.UNKNOWN
    delta_bytes: bytes = b""
    source: str = ""
    session_id: str = ""
    metadata: dict[str, str] = dataclasses.field(default_factory=dict)
    affected_nodes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = _Record.to_dict(self)
        d["delta_bytes"] = self.delta_bytes.decode()
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DeltaRecord:
        d = dict(data)
        raw = d.get("delta_bytes", b"")
        d["delta_bytes"] = raw.encode() if isinstance(raw, str) else bytes(raw)
        d["affected_nodes"] = list(d.get("affected_nodes") or [])
        return _Record.from_dict.__func__(cls, d)  # type: ignore[attr-defined,no-any-return]

    def delta(self) -> Delta:
        """The recorded delta, rebuilt from `delta_bytes`."""
        return delta_from_dict(json.loads(self.delta_bytes)["data"])


@runtime_checkable
class DeltaHistoryView(Protocol):
    """Read-only access to delta history."""

    def get_range(self, from_gen: int, to_gen: int) -> list[DeltaRecord]: ...
    def get_by_node(self, node_id: str) -> list[DeltaRecord]: ...
    def get_by_generation(self, gen: int) -> DeltaRecord | None: ...
    def explain(self, node_id: str) -> list[DeltaRecord]: ...
    def size(self) -> int: ...


_PACK_ROWS = 64
"""A ProofDelta with more entries than this is kept packed (`_PackedProof`)."""


class _PackedProof:
    """What the history keeps of a large ProofDelta: its rows as columns, about 40 B per entry
    (the node ids joined by NUL in one str, the numbers in arrays) instead of a tuple, an id
    str and five ints per entry (~260 B) or, with the caller's `updates` mapping, a
    ProofNumber per entry on top (~400 B). Immutable; the delta is rebuilt when queried."""

    __slots__ = ("at", "disproof", "ids", "proof", "source", "sources", "status", "ts")

    def __init__(self, delta: ProofDelta, ids: str) -> None:
        rows = delta._rows
        self.source = delta._src
        self.ts = delta._ts
        self.ids = ids  # "\0id1\0id2...\0": every id between two NULs
        self.proof = array("Q", [r[1] for r in rows])
        self.disproof = array("Q", [r[2] for r in rows])
        self.status = bytes([r[3] for r in rows])
        self.sources = bytes([r[4] for r in rows])
        self.at = array("q", [r[5] for r in rows])

    def nodes(self) -> list[str]:
        return self.ids[1:-1].split("\0")

    def touches(self, node_id: str) -> bool:
        return "\0" not in node_id and f"\0{node_id}\0" in self.ids

    def delta(self) -> ProofDelta:
        rows = list(
            zip(
                self.nodes(),
                self.proof,
                self.disproof,
                self.status,
                self.sources,
                self.at,
                strict=True,
            )
        )
        return ProofDelta._from_rows(self.source, rows, self.ts)


def _kept(delta: Delta) -> Delta | _PackedProof:
    """What the history keeps of `delta`: a large ProofDelta packed (`_PackedProof`), any
    other delta as is (small and shared)."""
    if type(delta) is ProofDelta and len(delta._rows) > _PACK_ROWS:
        rows = delta._rows
        ids = "\0".join(["", *[r[0] for r in rows], ""])
        if ids.count("\0") == len(rows) + 1:  # no id holds a NUL (else kept as is)
            return _PackedProof(delta, ids)
    return delta


def _delta_of(kept: Delta | _PackedProof) -> Delta:
    return kept.delta() if isinstance(kept, _PackedProof) else kept


def _touches(kept: Delta | _PackedProof, node_id: str) -> bool:
    if isinstance(kept, _PackedProof):
        return kept.touches(node_id)
    return node_id in kept._affected()


_Entry = tuple[int, int, int, Delta | _PackedProof, str | None, str, dict[str, str] | None]


def _int(name: str, v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise InvalidArgumentError(f"{name}: must be an int, got {brief(v)}")
    return v


def _str(name: str, v: Any) -> str:
    if not isinstance(v, str):
        raise InvalidArgumentError(f"{name}: must be a str, got {brief(v)}")
    return v


class DeltaHistoryWorker:
    """Bounded, consistent history of applied deltas (thread-safe).

    Args:
        max_records: Records kept (oldest evicted first); <= 0 means `DEFAULT_MAX_DELTA_RECORDS`.
        logger: Where eviction notices go; None means the ``crs.delta_history`` logger (the
            seed's `NewDeltaHistoryWorker(maxRecords, logger)`).
    """

    def __init__(
        self, max_records: int = DEFAULT_MAX_DELTA_RECORDS, logger: logging.Logger | None = None
    ) -> None:
        n = _int("max_records", max_records)
        if logger is not None and not isinstance(logger, logging.Logger):
            raise InvalidArgumentError(
                f"logger: must be a logging.Logger or None, got {brief(logger)}"
            )
        self._logger = _log if logger is None else logger
        self._max = n if n > 0 else DEFAULT_MAX_DELTA_RECORDS
        self._items: deque[_Entry] = deque()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._closed = False
        self._evicted = 0
        self._evicted_gen = -1

    def record(
        self,
        delta: Delta,
        gen: int,
        source: str = "",
        session_id: str = "",
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        """Add `delta`, applied to reach generation `gen`. O(1); evicts the oldest when full.

        Raises:
            NilDeltaError: `delta` is None (the seed: "Must not be nil").
            InvalidArgumentError: another argument has the wrong type (named).
        """
        if delta is None:
            raise NilDeltaError("delta must not be None")
        if not isinstance(delta, Delta):
            raise InvalidArgumentError(f"delta: must be a Delta, got {brief(delta)}")
        if isinstance(gen, bool) or not isinstance(gen, int) or gen < 0:
            raise InvalidArgumentError(f"gen: must be an int >= 0, got {brief(gen)}")
        for name, value in (("source", source), ("session_id", session_id)):
            if not isinstance(value, str):
                raise InvalidArgumentError(f"{name}: must be a str, got {brief(value)}")
        meta = mapping_of(metadata, "metadata") or None
        if meta is not None:
            for k, v in meta.items():
                if not isinstance(k, str) or not isinstance(v, str):
                    raise InvalidArgumentError(
                        f"metadata: must map str to str, got {brief(k)}: {brief(v)}"
                    )
        kept = _kept(delta)
        with self._lock:
            if self._closed:
                return
            if len(self._items) >= self._max:
                old = self._items.popleft()
                self._evicted += 1
                self._evicted_gen = old[1]
                self._log_eviction()
            self._items.append((next(self._ids), gen, now_ms(), kept, source, session_id, meta))

    def _items_append(
        self,
        delta: Delta,
        gen: int,
        source: str | None,
        session_id: str,
        metadata: Mapping[str, str] | None,
    ) -> None:
        """`record` for the CRS's commit path: arguments already checked; source None means
        the delta's own source."""
        kept = _kept(delta)
        with self._lock:
            if self._closed:
                return
            items = self._items
            if len(items) >= self._max:
                self._evicted_gen = items.popleft()[1]
                self._evicted += 1
                if self._evicted == 1 or self._evicted % 10_000 == 0:  # inline: the commit path
                    self._log_eviction()
            items.append(
                (
                    next(self._ids),
                    gen,
                    now_ms(),
                    kept,
                    source,
                    session_id,
                    dict(metadata) if metadata else None,
                )
            )

    def _log_eviction(self) -> None:
        if self._evicted == 1 or self._evicted % 10_000 == 0:
            self._logger.info(
                "delta history cap of %d reached: %d oldest records evicted so far",
                self._max,
                self._evicted,
            )

    def _snapshot(self) -> list[_Entry]:
        with self._lock:
            if self._closed:
                raise DeltaHistoryClosedError("delta history is closed")
            return list(self._items)

    @staticmethod
    def _build(e: _Entry) -> DeltaRecord:
        n, gen, ts, kept, source, session, meta = e
        delta = _delta_of(kept)
        if source is None:
            source = str(delta.source())
        data = {"type": str(delta.type()), "data": delta.to_dict()}
        return DeltaRecord(
            id=f"delta_{n}",
            generation=gen,
            timestamp=ts,
            delta_type=delta.type(),
            delta_bytes=json.dumps(data, separators=(",", ":")).encode(),
            source=source,
            session_id=session,
            metadata=dict(meta or {}),
            affected_nodes=tuple(delta._affected()),
        )

    def get_range(self, from_gen: int, to_gen: int) -> list[DeltaRecord]:
        """Records with from_gen < generation <= to_gen, by generation."""
        lo, hi = _int("from_gen", from_gen), _int("to_gen", to_gen)
        rows = [e for e in self._snapshot() if lo < e[1] <= hi]
        return [self._build(e) for e in sorted(rows, key=lambda e: (e[1], e[0]))]

    def get_by_node(self, node_id: str) -> list[DeltaRecord]:
        """Records whose delta touched `node_id`, by generation."""
        n = _str("node_id", node_id)
        rows = [e for e in self._snapshot() if _touches(e[3], n)]
        return [self._build(e) for e in sorted(rows, key=lambda e: (e[1], e[0]))]

    def explain(self, node_id: str) -> list[DeltaRecord]:
        """How `node_id` reached its state: every delta that touched it, oldest first."""
        return self.get_by_node(node_id)

    def get_by_generation(self, gen: int) -> DeltaRecord | None:
        g = _int("gen", gen)
        for e in reversed(self._snapshot()):
            if e[1] == g:
                return self._build(e)
        return None

    def size(self) -> int:
        return len(self._snapshot())

    def all(self) -> list[DeltaRecord]:
        """Every record in insertion order."""
        return [self._build(e) for e in self._snapshot()]

    def evicted(self) -> int:
        """How many records were evicted to keep the history bounded."""
        with self._lock:
            return self._evicted

    def _since(self, gen: int) -> list[Delta] | None:
        """Deltas recorded after generation `gen`, or None if some were evicted."""
        with self._lock:
            if self._evicted_gen > gen:
                return None
            kept = [e[3] for e in self._items if e[1] > gen]
        return [_delta_of(k) for k in kept]

    def close(self) -> None:
        """Stop accepting records and queries (idempotent)."""
        with self._lock:
            self._closed = True
            self._items.clear()
