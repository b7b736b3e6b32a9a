"""The eight deltas: typed, validated changes to the reasoning state.

Each delta checks its arguments when built (`InvalidArgumentError`), validates against a
snapshot (`validate`, raising `DeltaValidationError` subclasses), merges, detects
conflicts symmetrically, and has a lossless JSON form (`to_dict` / `delta_from_dict`).

Hard/soft boundary: only hard or safety signals may mark a node DISPROVEN (a ProofDelta
entry with status DISPROVEN needs a hard/safety delta source); soft signals may prove,
re-cost and annotate. The check runs in `validate` and on every apply.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from crs._check import brief, check, items_of, mapping_of
from crs._errors import (
    DeltaValidationError,
    HardSoftBoundaryViolationError,
    InvalidArgumentError,
)
from crs._state._ops import OpKind
from crs._types import (
    PROOF_NUMBER_INFINITE,
    Constraint,
    ConstraintType,
    HistoryEntry,
    ProofNumber,
    ProofStatus,
    SignalSource,
    _NamedIntEnum,
    is_encodable,
    now_ms,
)

if TYPE_CHECKING:
    # Analytics records and snapshots load when used: journal replay and a hook's records
    # need neither (start-up).
    from crs._state._analytics import AnalyticsQueryType, AnalyticsRecord
    from crs._state._snapshot import Snapshot

_U64 = PROOF_NUMBER_INFINITE
_I64_MAX = 2**63 - 1
_I64_MIN = -(2**63)
_STATUS_VALUES = frozenset(int(v) for v in ProofStatus)
_SOURCE_VALUES = frozenset(int(v) for v in SignalSource)


_SNAPSHOT: type[Snapshot] | None = None


def snapshot_type() -> type[Snapshot]:
    """The `Snapshot` class, imported on first use and then kept (a hook's process never
    takes a snapshot, so the views stay unloaded; a hot path pays a global read, not an
    import statement each call)."""
    global _SNAPSHOT
    if _SNAPSHOT is None:
        from crs._state._snapshot import Snapshot  # inside: start-up (the views load on use)

        _SNAPSHOT = Snapshot
    return _SNAPSHOT


class DeltaType(_NamedIntEnum):
    """Kind of delta (values as in the Go package)."""

    UNKNOWN = 0
    PROOF = 1
    CONSTRAINT = 2
    SIMILARITY = 3
    DEPENDENCY = 4
    HISTORY = 5
    STREAMING = 6
    COMPOSITE = 7
    ANALYTICS = 8


_HARD_SOURCES = frozenset((1, 3))  # SignalSource.is_hard(), as a set of values


def _source(value: Any) -> SignalSource:
    if isinstance(value, bool) or not isinstance(value, int) or value not in (0, 1, 2, 3):
        raise InvalidArgumentError(
            f"source: must be a SignalSource (UNKNOWN, HARD, SOFT, SAFETY), got {brief(value)}"
        )
    return SignalSource(value)


def _timestamp(value: int | None) -> int:
    if value is None:
        return now_ms()
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidArgumentError(f"timestamp: must be an int of Unix ms, got {brief(value)}")
    return value


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidArgumentError(f"{name}: must be a non-empty str, got {brief(value)}")
    return value


def _int_in(name: str, value: Any, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise InvalidArgumentError(f"{name}: must be an int in [{lo}, {hi}], got {brief(value)}")
    return int(value)


def _enum_in(name: str, value: Any, tp: type[_NamedIntEnum]) -> int:
    try:
        return int(tp(value)) if not isinstance(value, bool) else int(tp(-1))
    except ValueError:
        allowed = ", ".join(m.name for m in tp)
        raise InvalidArgumentError(
            f"{name}: must be a {tp.__name__} ({allowed}), got {brief(value)}"
        ) from None


class Delta(abc.ABC):
    """An atomic change to the CRS state (the seed's `Delta` interface)."""

    __slots__ = ("_src", "_ts")
    _TYPE: ClassVar[DeltaType] = DeltaType.UNKNOWN
    _INDEXES: ClassVar[tuple[str, ...]] = ()

    def __init__(self, source: SignalSource | int, timestamp: int | None) -> None:
        self._src = _source(source)
        self._ts = _timestamp(timestamp)

    def type(self) -> DeltaType:
        return self._TYPE

    def source(self) -> SignalSource:
        return self._src

    def timestamp(self) -> int:
        """When the delta was created (Unix ms)."""
        return self._ts

    def indexes_affected(self) -> list[str]:
        return list(self._INDEXES)

    def validate(self, snapshot: Snapshot) -> None:
        """Raise `DeltaValidationError` (or a subclass) if this delta cannot apply to `snapshot`.

        State-dependent checks run as a trial apply on the snapshot's state, so a composite's
        children see the state earlier children leave.
        """
        if not isinstance(snapshot, _SNAPSHOT or snapshot_type()):
            raise InvalidArgumentError(f"snapshot: must be a Snapshot, got {brief(snapshot)}")
        self._check()
        if self._stateful():
            snapshot._trial(self._ops())

    def merge(self, other: Delta) -> Delta:
        """Combine with `other`; deltas of another type give a `CompositeDelta`."""
        _need_delta("other", other)
        if type(other) is type(self) and not isinstance(self, CompositeDelta | AnalyticsDelta):
            return self._merge_same(other)
        return CompositeDelta(self, other)

    def conflicts_with(self, other: Delta) -> bool:
        """Whether applying both in either order could differ (symmetric)."""
        _need_delta("other", other)
        if isinstance(other, CompositeDelta) and not isinstance(self, CompositeDelta):
            return other.conflicts_with(self)
        if type(other) is not type(self):
            return False
        return self._conflicts_same(other)

    def to_dict(self) -> dict[str, Any]:
        """Lossless JSON-safe form: {"type", "source", "timestamp", ...data}."""
        return {
            "type": str(self._TYPE),
            "source": int(self._src),
            "timestamp": self._ts,
            **self._data(),
        }

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((self._TYPE, self._ts))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_dict()!r})"

    # -- hooks for subclasses and the CRS
    def _merge_same(self, other: Any) -> Delta:  # pragma: no cover - every leaf overrides
        return CompositeDelta(self, other)

    def _merged_src(self, other: Delta) -> SignalSource:
        """The source of a merge: hard if either side is hard (as `CompositeDelta.merge`
        does), so `soft.merge(hard)` can do what `hard.merge(soft)` can."""
        return SignalSource.HARD if other.source().is_hard() else SignalSource(self._src)

    def _conflicts_same(self, other: Any) -> bool:
        return False

    def _check(self) -> None:  # noqa: B027 - most deltas have state-independent checks
        """State-independent validation."""

    def _stateful(self) -> bool:
        return False

    @abc.abstractmethod
    def _ops(self) -> list[tuple[Any, ...]]:
        """The state operations for the Rust core."""

    def _analytics(self) -> list[AnalyticsRecord]:
        return []

    @abc.abstractmethod
    def _data(self) -> dict[str, Any]: ...

    def _affected(self) -> list[str]:
        return []


def _need_delta(name: str, value: Any) -> None:
    if not isinstance(value, Delta):
        raise InvalidArgumentError(f"{name}: must be a Delta, got {brief(value)}")


class ProofDelta(Delta):
    """Replaces the proof numbers of the given nodes wholesale."""

    __slots__ = ("_rows", "_soft_disproof", "_updates")
    _TYPE = DeltaType.PROOF
    _INDEXES = ("proof",)

    def __init__(
        self,
        source: SignalSource | int,
        updates: Mapping[str, ProofNumber],
        *,
        timestamp: int | None = None,
    ) -> None:
        super().__init__(source, timestamp)
        if not isinstance(updates, Mapping):
            raise InvalidArgumentError(
                f"updates: must be a dict of node id -> ProofNumber, got {brief(updates)}"
            )
        rows = []
        disproven = None
        for k, v in updates.items():
            if not isinstance(k, str) or not k or not is_encodable(k):
                raise InvalidArgumentError(
                    f"updates: node ids must be non-empty str of valid Unicode (no lone "
                    f"surrogates), got {brief(k)}"
                )
            if not isinstance(v, ProofNumber):
                raise InvalidArgumentError(
                    f"updates[{brief(k)}]: must be a ProofNumber, got {brief(v)}"
                )
            p, dp, st, src, ts = v.proof, v.disproof, v.status, v.source, v.updated_at
            if not (  # fast path; the checks below name the bad field
                type(p) is int
                and type(dp) is int
                and type(ts) is int
                and 0 <= p <= _U64
                and 0 <= dp <= _U64
                and _I64_MIN <= ts <= _I64_MAX
                and isinstance(st, int)  # (an unhashable value must not reach `in`)
                and isinstance(src, int)
                and not isinstance(st, bool)
                and not isinstance(src, bool)
                and st in _STATUS_VALUES
                and src in _SOURCE_VALUES
            ):
                _int_in(f"updates[{brief(k)}].proof", p, 0, _U64)
                _int_in(f"updates[{brief(k)}].disproof", dp, 0, _U64)
                _enum_in(f"updates[{brief(k)}].status", st, ProofStatus)
                _enum_in(f"updates[{brief(k)}].source", src, SignalSource)
                _int_in(f"updates[{brief(k)}].updated_at", ts, _I64_MIN, _I64_MAX)
            if st == 2 and disproven is None:
                disproven = k
            rows.append((k, int(p), int(dp), int(st), int(src), int(ts)))
        self._updates: Mapping[str, ProofNumber] | None = MappingProxyType(dict(updates))
        self._rows = rows
        # The hard/soft boundary depends only on the delta, so it is decided once here.
        self._soft_disproof = None if self._src.is_hard() else disproven

    @classmethod
    def _from_rows(
        cls, source: SignalSource, rows: list[tuple[str, int, int, int, int, int]], timestamp: int
    ) -> ProofDelta:
        """A ProofDelta from already-checked rows (the journal codec's fast path): the
        `updates` mapping is built only when asked for."""
        self = cls.__new__(cls)
        self._src = source
        self._ts = timestamp
        self._rows = rows
        self._updates = None
        self._soft_disproof = (
            None if source in _HARD_SOURCES else next((r[0] for r in rows if r[3] == 2), None)
        )
        return self

    @property
    def updates(self) -> Mapping[str, ProofNumber]:
        """Node id -> new ProofNumber (read-only)."""
        ups = self._updates
        if ups is None:
            ups = MappingProxyType(
                {
                    r[0]: ProofNumber(
                        proof=r[1],
                        disproof=r[2],
                        status=ProofStatus(r[3]),
                        source=SignalSource(r[4]),
                        updated_at=r[5],
                    )
                    for r in self._rows
                }
            )
            self._updates = ups
        return ups

    def _check(self) -> None:
        if self._soft_disproof is not None:
            raise HardSoftBoundaryViolationError(
                f"node {self._soft_disproof} cannot be marked DISPROVEN by soft signal "
                f"(delta source {self._src})"
            )

    def _ops(self) -> list[tuple[Any, ...]]:
        return [(OpKind.PROOF, self._rows)]

    def _merge_same(self, other: ProofDelta) -> Delta:
        if self._src.is_hard() != other._src.is_hard():
            # One union under one source would launder the soft side's DISPROVEN entries
            # through the hard side's source: each keeps its own source in a composite.
            return CompositeDelta(self, other)
        merged = dict(self.updates)
        for k, v in other.updates.items():
            if k not in merged or v.updated_at > merged[k].updated_at:
                merged[k] = v
        return ProofDelta(self._merged_src(other), merged, timestamp=max(self._ts, other._ts))

    def _conflicts_same(self, other: ProofDelta) -> bool:
        return not {r[0] for r in self._rows}.isdisjoint([r[0] for r in other._rows])

    def _data(self) -> dict[str, Any]:
        # ProofNumber.to_dict() of each entry, built from the rows (no ProofNumber objects).
        return {
            "updates": {
                k: {"proof": p, "disproof": dp, "status": st, "source": src, "updated_at": at}
                for k, p, dp, st, src, at in self._rows
            }
        }

    def _affected(self) -> list[str]:
        return list(dict.fromkeys([r[0] for r in self._rows]))


def _constraint(name: str, c: Any) -> Constraint:
    if not isinstance(c, Constraint):
        raise InvalidArgumentError(f"{name}: must be a Constraint, got {brief(c)}")
    return c


def _crow(c: Constraint, where: str) -> tuple[Any, ...]:
    nodes = list(c.nodes)
    if not all(isinstance(n, str) for n in nodes):
        raise InvalidArgumentError(f"{where}.nodes: must be a tuple of str, got {brief(c.nodes)}")
    if not isinstance(c.expression, str) or not isinstance(c.active, bool):
        raise InvalidArgumentError(f"{where}: expression must be str and active bool")
    return (
        c.id,
        _enum_in(f"{where}.type", c.type, ConstraintType),
        nodes,
        c.expression,
        c.active,
        _enum_in(f"{where}.source", c.source, SignalSource),
        _int_in(f"{where}.created_at", c.created_at, _I64_MIN, _I64_MAX),
    )


class ConstraintDelta(Delta):
    """Removes, then updates, then adds constraints (ids must exist / must be new)."""

    __slots__ = ("_addrows", "_updrows", "add", "remove", "update")
    _TYPE = DeltaType.CONSTRAINT
    _INDEXES = ("constraint",)

    def __init__(
        self,
        source: SignalSource | int,
        *,
        add: Iterable[Constraint] = (),
        remove: Iterable[str] = (),
        update: Mapping[str, Constraint] | None = None,
        timestamp: int | None = None,
    ) -> None:
        super().__init__(source, timestamp)
        self.add: tuple[Constraint, ...] = tuple(
            _constraint("add[]", c) for c in items_of(add, "add")
        )
        self.remove: tuple[str, ...] = tuple(
            _text("remove[]", r) for r in items_of(remove, "remove")
        )
        upd = mapping_of(update, "update")
        for k, c in upd.items():
            _text("update key", k)
            _constraint(f"update[{brief(k)}]", c)
            if c.id not in ("", k):
                raise InvalidArgumentError(
                    f"update[{brief(k)}]: the constraint's id must be {brief(k)} or empty"
                    f", got {brief(c.id)}"
                )
        for c in self.add:
            _text("add[].id", c.id)
        self.update: Mapping[str, Constraint] = MappingProxyType(upd)
        self._addrows = [_crow(c, f"add[{brief(c.id)}]") for c in self.add]
        self._updrows = [(k, _crow(c, f"update[{brief(k)}]")) for k, c in upd.items()]

    def _stateful(self) -> bool:
        return True

    def _check(self) -> None:
        ids = [c.id for c in self.add]
        if len(set(ids)) != len(ids):
            raise DeltaValidationError("add: constraint ids must be unique within a delta")

    def _ops(self) -> list[tuple[Any, ...]]:
        return [(OpKind.CONSTRAINT, self._addrows, list(self.remove), self._updrows)]

    def _merge_same(self, other: ConstraintDelta) -> Delta:
        return ConstraintDelta(
            self._merged_src(other),
            add=self.add + other.add,
            remove=tuple(dict.fromkeys(self.remove + other.remove)),
            update={**self.update, **other.update},
            timestamp=max(self._ts, other._ts),
        )

    def _conflicts_same(self, other: ConstraintDelta) -> bool:
        def hit(a: ConstraintDelta, b: ConstraintDelta) -> bool:
            add_a = {c.id for c in a.add}
            if add_a & {c.id for c in b.add}:
                return True
            rem_a = set(a.remove)
            return bool(rem_a & (set(b.remove) | set(b.update))) or bool(
                set(a.update) & set(b.update)
            )

        return hit(self, other) or hit(other, self)

    def _data(self) -> dict[str, Any]:
        return {
            "add": [c.to_dict() for c in self.add],
            "remove": list(self.remove),
            "update": {k: v.to_dict() for k, v in self.update.items()},
        }

    def _affected(self) -> list[str]:
        nodes = [n for c in self.add for n in c.nodes]
        nodes += [n for c in self.update.values() for n in c.nodes]
        return nodes + list(self.remove)


def _canon(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


class SimilarityDelta(Delta):
    """Sets distances (0 = identical) between node pairs; pairs are stored canonically."""

    __slots__ = ("_rows", "updates")
    _TYPE = DeltaType.SIMILARITY
    _INDEXES = ("similarity",)

    def __init__(
        self,
        source: SignalSource | int,
        updates: Mapping[tuple[str, str], float] | None = None,
        *,
        timestamp: int | None = None,
    ) -> None:
        super().__init__(source, timestamp)
        upd: dict[tuple[str, str], float] = {}
        for key, d in mapping_of(updates, "updates").items():
            if (
                not isinstance(key, tuple)
                or len(key) != 2
                or not all(isinstance(x, str) for x in key)
            ):
                raise InvalidArgumentError(
                    f"updates: keys must be (str, str) pairs, got {brief(key)}"
                )
            if not isinstance(d, int | float) or isinstance(d, bool):
                raise InvalidArgumentError(
                    f"updates[{brief(key)}]: must be a float distance, got {brief(d)}"
                )
            upd[key] = float(d)
        self.updates: Mapping[tuple[str, str], float] = MappingProxyType(upd)
        self._rows = [(a, b, d) for (a, b), d in upd.items()]

    def _check(self) -> None:
        for a, b, d in self._rows:
            if not a or not b:
                raise DeltaValidationError("similarity keys must not be empty")
            if a == b:
                raise DeltaValidationError(f"self-similarity not allowed ({brief(a)})")
            if not math.isfinite(d) or d < 0:
                raise DeltaValidationError(
                    f"similarity distance must be a finite number >= 0, "
                    f"got {brief(d)} for ({brief(a)}, {brief(b)})"
                )

    def _ops(self) -> list[tuple[Any, ...]]:
        return [(OpKind.SIMILARITY, self._rows)]

    def _merge_same(self, other: SimilarityDelta) -> Delta:
        merged: dict[tuple[str, str], float] = {}
        for (a, b), d in list(self.updates.items()) + list(other.updates.items()):
            merged.pop(_canon(a, b), None)
            merged.pop(_canon(a, b)[::-1], None)
            merged[(a, b)] = d
        return SimilarityDelta(self._merged_src(other), merged, timestamp=max(self._ts, other._ts))

    def _conflicts_same(self, other: SimilarityDelta) -> bool:
        mine = {_canon(a, b) for a, b in self.updates}
        return any(_canon(a, b) in mine for a, b in other.updates)

    def _data(self) -> dict[str, Any]:
        return {"updates": [[a, b, d] for a, b, d in self._rows]}

    def _affected(self) -> list[str]:
        return list(dict.fromkeys(x for a, b, _ in self._rows for x in (a, b)))


def _edges(name: str, edges: Iterable[Any]) -> tuple[tuple[str, str], ...]:
    out = []
    for e in items_of(edges, name):
        if not isinstance(e, tuple | list) or len(e) != 2 or not all(isinstance(x, str) for x in e):
            raise InvalidArgumentError(
                f"{name}: edges must be (from, to) str pairs, got {brief(e)}"
            )
        out.append((e[0], e[1]))
    return tuple(out)


class DependencyDelta(Delta):
    """Adds and removes dependency edges `from -> to` ("from depends on to"); no cycles."""

    __slots__ = ("add_edges", "remove_edges")
    _TYPE = DeltaType.DEPENDENCY
    _INDEXES = ("dependency",)

    def __init__(
        self,
        source: SignalSource | int,
        *,
        add_edges: Iterable[tuple[str, str]] = (),
        remove_edges: Iterable[tuple[str, str]] = (),
        timestamp: int | None = None,
    ) -> None:
        super().__init__(source, timestamp)
        self.add_edges = _edges("add_edges", add_edges)
        self.remove_edges = _edges("remove_edges", remove_edges)

    def _stateful(self) -> bool:
        return True

    def _check(self) -> None:
        for f, t in self.add_edges:
            if not f or not t:
                raise DeltaValidationError("dependency edge ends must not be empty")
            if f == t:
                raise DeltaValidationError(f"self-dependency not allowed ({brief(f)})")

    def _ops(self) -> list[tuple[Any, ...]]:
        return [(OpKind.DEPENDENCY, list(self.add_edges), list(self.remove_edges))]

    def _merge_same(self, other: DependencyDelta) -> Delta:
        return DependencyDelta(
            self._merged_src(other),
            add_edges=self.add_edges + other.add_edges,
            remove_edges=self.remove_edges + other.remove_edges,
            timestamp=max(self._ts, other._ts),
        )

    def _conflicts_same(self, other: DependencyDelta) -> bool:
        return bool(
            set(self.add_edges) & set(other.remove_edges)
            or set(self.remove_edges) & set(other.add_edges)
        )

    def _data(self) -> dict[str, Any]:
        return {
            "add_edges": [list(e) for e in self.add_edges],
            "remove_edges": [list(e) for e in self.remove_edges],
        }

    def _affected(self) -> list[str]:
        return list(dict.fromkeys(x for e in self.add_edges + self.remove_edges for x in e))


class HistoryDelta(Delta):
    """Appends decision history entries (the index keeps the newest, FIFO-bounded)."""

    __slots__ = ("entries",)
    _TYPE = DeltaType.HISTORY
    _INDEXES = ("history",)

    def __init__(
        self,
        source: SignalSource | int,
        entries: Iterable[HistoryEntry] = (),
        *,
        timestamp: int | None = None,
    ) -> None:
        super().__init__(source, timestamp)
        self.entries: tuple[HistoryEntry, ...] = items_of(entries, "entries")
        for i, e in enumerate(self.entries):
            if not isinstance(e, HistoryEntry):
                raise InvalidArgumentError(f"entries: must be HistoryEntry values, got {brief(e)}")
            check(e, f"entries[{i}].")  # every field's type (crs._check)

    def _check(self) -> None:
        for e in self.entries:
            if not isinstance(e.id, str) or not e.id:
                raise DeltaValidationError("history entry id must be a non-empty str")
            for k, v in e.metadata.items():
                if not isinstance(k, str) or not k or len(k.encode()) > 256:
                    raise DeltaValidationError(
                        f"history entry {brief(e.id)}: metadata keys must be non-empty str "
                        "<= 256 bytes"
                    )
                if not isinstance(v, str) or len(v.encode()) > 4096:
                    raise DeltaValidationError(
                        f"history entry {brief(e.id)}: metadata values must be str <= 4096 bytes"
                    )

    def _ops(self) -> list[tuple[Any, ...]]:
        rows = [
            (
                e.id,
                e.node_id,
                e.action,
                e.result,
                _enum_in("entries[].source", e.source, SignalSource),
                _int_in("entries[].timestamp", e.timestamp, _I64_MIN, _I64_MAX),
                list(e.metadata.items()),
            )
            for e in self.entries
        ]
        return [(OpKind.HISTORY, rows)]

    def _merge_same(self, other: HistoryDelta) -> Delta:
        return HistoryDelta(
            self._merged_src(other),
            self.entries + other.entries,
            timestamp=max(self._ts, other._ts),
        )

    def _data(self) -> dict[str, Any]:
        return {"entries": [e.to_dict() for e in self.entries]}

    def _affected(self) -> list[str]:
        return list(dict.fromkeys(e.node_id for e in self.entries if e.node_id))


class StreamingDelta(Delta):
    """Adds item frequencies (Count-Min) and items seen (HyperLogLog cardinality)."""

    __slots__ = ("cardinality_items", "increments")
    _TYPE = DeltaType.STREAMING
    _INDEXES = ("streaming",)

    def __init__(
        self,
        source: SignalSource | int,
        *,
        increments: Mapping[str, int] | None = None,
        cardinality_items: Iterable[str] = (),
        timestamp: int | None = None,
    ) -> None:
        super().__init__(source, timestamp)
        inc = mapping_of(increments, "increments")
        for k, n in inc.items():
            _text("increments key", k)
            _int_in(f"increments[{brief(k)}]", n, 0, _U64)
        self.increments: Mapping[str, int] = MappingProxyType(inc)
        self.cardinality_items: tuple[str, ...] = tuple(
            _text("cardinality_items[]", i)
            for i in items_of(cardinality_items, "cardinality_items")
        )

    def _ops(self) -> list[tuple[Any, ...]]:
        return [(OpKind.STREAMING, list(self.increments.items()), list(self.cardinality_items))]

    def _merge_same(self, other: StreamingDelta) -> Delta:
        inc = dict(self.increments)
        for k, n in other.increments.items():
            inc[k] = min(_U64, inc.get(k, 0) + n)
        return StreamingDelta(
            self._merged_src(other),
            increments=inc,
            cardinality_items=self.cardinality_items + other.cardinality_items,
            timestamp=max(self._ts, other._ts),
        )

    def _data(self) -> dict[str, Any]:
        return {
            "increments": dict(self.increments),
            "cardinality_items": list(self.cardinality_items),
        }

    def _affected(self) -> list[str]:
        return list(dict.fromkeys([*self.increments, *self.cardinality_items]))


class CompositeDelta(Delta):
    """Several deltas applied atomically, in order, as one generation."""

    __slots__ = ("deltas",)
    _TYPE = DeltaType.COMPOSITE

    def __init__(
        self,
        *deltas: Delta,
        source: SignalSource | int | None = None,
        timestamp: int | None = None,
    ) -> None:
        for d in deltas:
            _need_delta("deltas[]", d)
        if source is None:
            hard = any(d.source().is_hard() for d in deltas)
            source = SignalSource.HARD if hard else SignalSource.SOFT
        super().__init__(source, timestamp)
        self.deltas: tuple[Delta, ...] = tuple(deltas)

    def indexes_affected(self) -> list[str]:
        return list(dict.fromkeys(i for d in self.deltas for i in d.indexes_affected()))

    def _stateful(self) -> bool:
        return True

    def _check(self) -> None:
        for d in self.deltas:
            d._check()

    def _ops(self) -> list[tuple[Any, ...]]:
        return [op for d in self.deltas for op in d._ops()]

    def _analytics(self) -> list[AnalyticsRecord]:
        return [r for d in self.deltas for r in d._analytics()]

    def merge(self, other: Delta) -> Delta:
        _need_delta("other", other)
        children = other.deltas if isinstance(other, CompositeDelta) else (other,)
        src = SignalSource.HARD if other.source().is_hard() else self._src
        return CompositeDelta(*self.deltas, *children, source=src)

    def conflicts_with(self, other: Delta) -> bool:
        _need_delta("other", other)
        return any(d.conflicts_with(other) for d in self.deltas)

    def _data(self) -> dict[str, Any]:
        return {"deltas": [d.to_dict() for d in self.deltas]}

    def _affected(self) -> list[str]:
        return list(dict.fromkeys(n for d in self.deltas for n in d._affected()))


class AnalyticsDelta(Delta):
    """Stores an analytics record and its `analytics:<type>:done/found` proof markers."""

    __slots__ = ("record",)
    _TYPE = DeltaType.ANALYTICS
    _INDEXES = ("analytics", "proof")

    def __init__(
        self,
        source: SignalSource | int,
        record: AnalyticsRecord,
        *,
        timestamp: int | None = None,
    ) -> None:
        super().__init__(source, timestamp)
        # inside: start-up (analytics records load with the first analytics delta)
        from crs._state._analytics import AnalyticsRecord

        if not isinstance(record, AnalyticsRecord):
            raise InvalidArgumentError(f"record: must be an AnalyticsRecord, got {brief(record)}")
        self.record = record

    def _check(self) -> None:
        r = self.record
        if not r.query_type:
            raise DeltaValidationError("analytics record: query_type must not be empty")
        if r.query_time == 0:
            raise DeltaValidationError("analytics record: query_time must not be 0")
        if r.result_count < 0 or r.execution_ms < 0:
            raise DeltaValidationError(
                "analytics record: result_count and execution_ms must be >= 0"
            )
        # inside: start-up (analytics records load with the first analytics delta)
        from crs._state._analytics import AnalyticsQueryType

        if r.query_type == AnalyticsQueryType.CYCLES and r.result_count > 0 and not r.cycles:
            raise DeltaValidationError("analytics record: cycles query with results needs cycles")
        if r.query_type == AnalyticsQueryType.PATH and r.result_count > 0 and not r.path:
            raise DeltaValidationError("analytics record: path query with results needs a path")

    def _ops(self) -> list[tuple[Any, ...]]:
        r = self.record
        row = (1, 0, int(ProofStatus.PROVEN), 0, self._ts)
        rows = [(r.get_proof_done_key(), *row)]
        if r.has_results():
            rows.append((r.get_proof_found_key(), *row))
        return [(OpKind.PROOF, rows)]

    def _analytics(self) -> list[AnalyticsRecord]:
        # inside: start-up (analytics records load with the first analytics delta)
        from crs._state._analytics import MAX_RESULTS_PER_RECORD

        rec = self.record
        if len(rec.results) > MAX_RESULTS_PER_RECORD:
            rec = rec.truncate_results()
        return [rec]

    def _data(self) -> dict[str, Any]:
        return {"record": self.record.to_dict()}


def create_analytics_delta(
    query_type: AnalyticsQueryType | str, result_count: int, execution_ms: int
) -> AnalyticsDelta:
    """A hard-source AnalyticsDelta for a query that ran now."""
    # inside: start-up (analytics records load with the first analytics delta)
    from crs._state._analytics import AnalyticsRecord

    t = now_ms()
    return AnalyticsDelta(
        SignalSource.HARD, AnalyticsRecord(query_type, t, result_count, execution_ms)
    )


def delta_from_dict(d: Mapping[str, Any]) -> Delta:
    """Inverse of `Delta.to_dict` (exact: type, source, timestamp and content)."""
    if not isinstance(d, Mapping) or "type" not in d:
        raise InvalidArgumentError(f"d: must be a dict from Delta.to_dict(), got {brief(d)}")
    kind, src, ts = d["type"], d.get("source", 0), d.get("timestamp", 0)
    if kind == "proof":
        ups = {k: ProofNumber.from_dict(v) for k, v in d.get("updates", {}).items()}
        return ProofDelta(src, ups, timestamp=ts)
    if kind == "constraint":
        return ConstraintDelta(
            src,
            add=[Constraint.from_dict(c) for c in d.get("add", [])],
            remove=d.get("remove", []),
            update={k: Constraint.from_dict(v) for k, v in d.get("update", {}).items()},
            timestamp=ts,
        )
    if kind == "similarity":
        return SimilarityDelta(
            src, {(a, b): dist for a, b, dist in d.get("updates", [])}, timestamp=ts
        )
    if kind == "dependency":
        return DependencyDelta(
            src,
            add_edges=[tuple(e) for e in d.get("add_edges", [])],
            remove_edges=[tuple(e) for e in d.get("remove_edges", [])],
            timestamp=ts,
        )
    if kind == "history":
        return HistoryDelta(
            src, [HistoryEntry.from_dict(e) for e in d.get("entries", [])], timestamp=ts
        )
    if kind == "streaming":
        return StreamingDelta(
            src,
            increments=d.get("increments", {}),
            cardinality_items=d.get("cardinality_items", []),
            timestamp=ts,
        )
    if kind == "composite":
        children = [delta_from_dict(c) for c in d.get("deltas", [])]
        return CompositeDelta(*children, source=src, timestamp=ts)
    if kind == "analytics":
        # inside: start-up (analytics records load with the first analytics delta)
        from crs._state._analytics import AnalyticsRecord

        return AnalyticsDelta(src, AnalyticsRecord.from_dict(d["record"]), timestamp=ts)
    raise InvalidArgumentError(
        f"d['type']: must be one of proof, constraint, similarity, dependency, history, "
        f"streaming, composite, analytics; got {brief(kind)}"
    )
