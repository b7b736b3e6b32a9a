"""JSON export and import of CRS state (seed `serializer.go`).

Field names are the seed's JSON tags, so an `export.json` written by the Go CRS loads
here, and ours loads there. Similarity values are distances (0 = identical) and are
exported and imported once per pair, canonically (spec README §5 item 9).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import logging
import time
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Self

from crs._check import INT64_MAX, INT64_MIN, U64, brief, check
from crs._errors import InvalidArgumentError
from crs._state._ops import OpKind
from crs._state._snapshot import Snapshot
from crs._types import (
    Constraint,
    ConstraintType,
    HistoryEntry,
    ProofNumber,
    ProofStatus,
    SignalSource,
    _Record,
    now_ms,
)

if TYPE_CHECKING:
    from crs._crs import CRS

DEFAULT_MAX_SIMILARITY_PAIRS: int = 100_000
"""Similarity pairs `export_full` writes by default."""
DEFAULT_MAX_DEPENDENCY_EDGES: int = 100_000
"""Dependency edges `export_full` writes by default."""
_RECENT_HISTORY = 100
_log = logging.getLogger("crs.serializer")


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_MS = _dt.timedelta(milliseconds=1)
_MIN_MS = (_dt.datetime(1, 1, 1, tzinfo=_dt.UTC) - _EPOCH) // _MS
_MAX_MS = (_dt.datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=_dt.UTC) - _EPOCH) // _MS


def _rfc3339(ms: int) -> str:
    """Unix ms as RFC 3339 UTC with millisecond precision (exact; clamped to years 1-9999,
    which Go's JSON encoding cannot exceed either)."""
    t = _EPOCH + _dt.timedelta(milliseconds=min(max(ms, _MIN_MS), _MAX_MS))
    frac = f".{t.microsecond // 1000:03d}".rstrip("0").rstrip(".")
    return t.strftime("%Y-%m-%dT%H:%M:%S").rjust(19, "0") + frac + "Z"


def _from_rfc3339(s: Any, name: str = "export: time") -> int:
    if isinstance(s, int) and not isinstance(s, bool):
        if not INT64_MIN <= s <= INT64_MAX:
            raise InvalidArgumentError(f"{name}: must be Unix ms between -2**63 and 2**63-1")
        return s
    if not isinstance(s, str) or not s or s.startswith("0001-01-01"):
        return 0
    text = s.replace("Z", "+00:00")
    if "." in text:  # Go writes up to 9 fraction digits; Python reads 6
        head, rest = text.split(".", 1)
        digits = rest[: len(rest) - len(rest.lstrip("0123456789"))]
        text = head + "." + digits[:6].ljust(6, "0") + rest[len(digits) :]
    try:
        return (_dt.datetime.fromisoformat(text) - _EPOCH) // _MS
    except ValueError:
        raise InvalidArgumentError(f"export: {brief(s)} is not an RFC 3339 time") from None


def _enum_from_name(tp: type[Any], name: Any, field: str = "export: value") -> Any:
    for m in tp:
        if str(m) == name:
            return m
    if name in ("", None):
        return tp(0)
    names = ", ".join(str(m) for m in tp)
    raise InvalidArgumentError(
        f"{field}: must be a {tp.__name__} name ({names}), got {brief(name)}"
    )


class _Export(_Record):
    """JSON records with Go's `omitempty` fields and tolerance of `null`."""

    _omit: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        d = _Record.to_dict(self)
        for k in self._omit:
            if not d.get(k):
                d.pop(k, None)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        if not isinstance(data, dict):
            raise InvalidArgumentError(f"export: expected a JSON object for {cls.__name__}")
        return super().from_dict({k: v for k, v in data.items() if v is not None})


@dataclasses.dataclass(frozen=True, slots=True)
class ProofEntry(_Export):
    node_id: str = ""
    proof: Annotated[int, U64] = 0
    disproof: Annotated[int, U64] = 0
    status: str = ""
    source: str = ""
    updated_at: str | int = ""


@dataclasses.dataclass(frozen=True, slots=True)
class ProofIndexExport(_Export):
    entries: tuple[ProofEntry, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class ConstraintEntry(_Export):
    _omit = ("expression",)
    id: str = ""
    type: str = ""
    nodes: tuple[str, ...] = ()
    expression: str = ""
    active: bool = False
    source: str = ""
    created_at: str | int = ""


@dataclasses.dataclass(frozen=True, slots=True)
class ConstraintIndexExport(_Export):
    constraints: tuple[ConstraintEntry, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class SimilarityPairExport(_Export):
    from_id: str = ""
    to_id: str = ""
    similarity: float = 0.0


@dataclasses.dataclass(frozen=True, slots=True)
class SimilarityIndexExport(_Export):
    _omit = ("pairs", "truncated")
    pair_count: int = 0
    pairs: tuple[SimilarityPairExport, ...] = ()
    truncated: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class DependencyEdgeExport(_Export):
    from_id: str = ""
    to_id: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class DependencyIndexExport(_Export):
    _omit = ("edges", "source", "truncated")
    edge_count: int = 0
    edges: tuple[DependencyEdgeExport, ...] = ()
    source: str = ""
    truncated: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class HistoryEntryExport(_Export):
    _omit = ("metadata",)
    id: str = ""
    node_id: str = ""
    action: str = ""
    result: str = ""
    source: str = ""
    timestamp: int = 0
    metadata: dict[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class HistoryIndexExport(_Export):
    _omit = ("recent_entries",)
    entry_count: int = 0
    recent_entries: tuple[HistoryEntryExport, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class StreamingIndexExport(_Export):
    cardinality: int = 0
    approximate_bytes: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class IndexesExport(_Export):
    proof: ProofIndexExport = dataclasses.field(default_factory=ProofIndexExport)
    constraint: ConstraintIndexExport = dataclasses.field(default_factory=ConstraintIndexExport)
    similarity: SimilarityIndexExport = dataclasses.field(default_factory=SimilarityIndexExport)
    dependency: DependencyIndexExport = dataclasses.field(default_factory=DependencyIndexExport)
    history: HistoryIndexExport = dataclasses.field(default_factory=HistoryIndexExport)
    streaming: StreamingIndexExport = dataclasses.field(default_factory=StreamingIndexExport)


@dataclasses.dataclass(frozen=True, slots=True)
class ReasoningSummary(_Export):
    """Progress figures: explored/proven/disproven/unknown nodes, constraints, depth, coverage."""

    nodes_explored: int = 0
    nodes_proven: int = 0
    nodes_disproven: int = 0
    nodes_unknown: int = 0
    constraints_applied: int = 0
    exploration_depth: int = 0
    confidence_score: float = 0.0


@dataclasses.dataclass(frozen=True, slots=True)
class CRSExport(_Export):
    """The JSON form of a CRS state (`export.json`)."""

    session_id: str = ""
    generation: int = 0
    timestamp: int = 0
    indexes: IndexesExport = dataclasses.field(default_factory=IndexesExport)
    summary: ReasoningSummary = dataclasses.field(default_factory=ReasoningSummary)


@dataclasses.dataclass(frozen=True, slots=True)
class ExportOptions(_Record):
    """Export limits: 0 = the default (100,000), negative = unlimited."""

    max_similarity_pairs: int = 0
    max_dependency_edges: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class ExportResult:
    """An export and whether (and why) it was truncated."""

    export: CRSExport | None = None
    truncated: bool = False
    warnings: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class ImportOptions(_Record):
    """`strict_validation`: refuse exports whose counts do not match their content."""

    strict_validation: bool = False


def DefaultImportOptions() -> ImportOptions:  # the seed's name (spec README §2)
    return ImportOptions(strict_validation=True)


@dataclasses.dataclass(frozen=True, slots=True)
class ImportedState:
    """State rebuilt from an export; `load_into(crs)` installs it as the CRS's new state."""

    generation: int = 0
    session_id: str = ""
    proof_data: dict[str, ProofNumber] = dataclasses.field(default_factory=dict)
    constraint_data: dict[str, Constraint] = dataclasses.field(default_factory=dict)
    similarity_data: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict)
    dependency_forward: dict[str, set[str]] = dataclasses.field(default_factory=dict)
    dependency_reverse: dict[str, set[str]] = dataclasses.field(default_factory=dict)
    history_data: list[HistoryEntry] = dataclasses.field(default_factory=list)

    def load_into(self, crs: CRS) -> int:
        """Replace `crs`'s indexes with this state (one new generation); returns it."""
        # Checked by what it needs rather than by class: `crs._crs` imports this module.
        if not callable(getattr(crs, "_install", None)):
            raise InvalidArgumentError(f"crs: must be a crs.CRS, got {brief(crs)}")
        proof = [
            (k, v.proof, v.disproof, int(v.status), int(v.source), v.updated_at)
            for k, v in self.proof_data.items()
        ]
        cons = [
            (
                k,
                int(c.type),
                list(c.nodes),
                c.expression,
                c.active,
                int(c.source),
                c.created_at,
            )
            for k, c in self.constraint_data.items()
        ]
        sims = [(a, b, d) for a, inner in self.similarity_data.items() for b, d in inner.items()]
        edges = [(f, t) for f, tos in self.dependency_forward.items() for t in sorted(tos)]
        hist = [
            (
                e.id,
                e.node_id,
                e.action,
                e.result,
                int(e.source),
                e.timestamp,
                list(e.metadata.items()),
            )
            for e in self.history_data
        ]
        ops: list[tuple[Any, ...]] = [
            (OpKind.PROOF, proof),
            (OpKind.CONSTRAINT, cons, [], []),
            (OpKind.SIMILARITY, sims),
            (OpKind.DEPENDENCY, edges, []),
            (OpKind.HISTORY, hist),
        ]
        return crs._install(ops, ())


def _check_claims(
    export: CRSExport,
    proof: dict[str, ProofNumber],
    cons: dict[str, Constraint],
    npairs: int,
    nedges: int,
) -> None:
    """Refuse an export whose claimed counts differ from what it holds (strict import)."""
    ix = export.indexes

    def claim(name: str, claimed: int, held: int, what: str) -> None:
        if claimed != held:
            raise InvalidArgumentError(
                f"export.{name}: claims {claimed} {what}, the export holds {held}"
            )

    sim, dep = ix.similarity, ix.dependency
    if sim.pairs and not sim.truncated:
        claim("indexes.similarity.pair_count", sim.pair_count, npairs, "pairs")
    if dep.edges and not dep.truncated and dep.source != "graph_backed":
        claim("indexes.dependency.edge_count", dep.edge_count, nedges, "edges")
    hist = ix.history
    if hist.entry_count < len(hist.recent_entries):
        raise InvalidArgumentError(
            f"export.indexes.history.entry_count: claims {hist.entry_count} entries, fewer than "
            f"the {len(hist.recent_entries)} recent entries the export holds"
        )
    summary = export.summary
    if summary != ReasoningSummary():  # a summary was written: its counts must hold
        statuses = [int(p.status) for p in proof.values()]
        claim("summary.nodes_explored", summary.nodes_explored, len(proof), "nodes")
        claim("summary.nodes_proven", summary.nodes_proven, statuses.count(1), "proven nodes")
        claim(
            "summary.nodes_disproven",
            summary.nodes_disproven,
            statuses.count(2),
            "disproven nodes",
        )
        claim(
            "summary.constraints_applied",
            summary.constraints_applied,
            sum(1 for c in cons.values() if c.active),
            "active constraints",
        )


def _snap(snapshot: Any) -> Snapshot:
    if not isinstance(snapshot, Snapshot):
        raise InvalidArgumentError(f"snapshot: must be a crs Snapshot, got {brief(snapshot)}")
    return snapshot


def _limit(name: str, value: Any, default: int) -> int | None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidArgumentError(f"opts.{name}: must be an int (0 = default, < 0 = unlimited)")
    if value == 0:
        return default
    return None if value < 0 else value


class Serializer:
    """Converts snapshots to `CRSExport` and exports back to state."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self._log = logger or _log

    def compute_summary(self, snapshot: Snapshot) -> ReasoningSummary:
        s = _snap(snapshot)
        core = s._c
        counts = {0: 0, 1: 0, 2: 0, 3: 0}
        for r in core.proof_all():
            counts[r[3]] = counts.get(r[3], 0) + 1
        explored = core.proof_len()
        proven, disproven = counts[1], counts[2]
        return ReasoningSummary(
            nodes_explored=explored,
            nodes_proven=proven,
            nodes_disproven=disproven,
            nodes_unknown=explored - proven - disproven,
            # The seed: "ConstraintsApplied is the number of active constraints".
            constraints_applied=sum(1 for r in core.constraint_all() if r[4]),
            exploration_depth=core.history_len(),
            confidence_score=proven / explored if explored else 0.0,
        )

    def export_summary_only(self, snapshot: Snapshot | None) -> ReasoningSummary:
        return ReasoningSummary() if snapshot is None else self.compute_summary(snapshot)

    def _base(self, s: Snapshot) -> tuple[ProofIndexExport, ConstraintIndexExport]:
        core = s._c
        proof = ProofIndexExport(
            tuple(
                ProofEntry(
                    node_id=r[0],
                    proof=r[1],
                    disproof=r[2],
                    status=ProofStatus.describe(r[3]),
                    source=SignalSource.describe(r[4]),
                    updated_at=_rfc3339(r[5]),
                )
                for r in sorted(core.proof_all())
            )
        )
        cons = ConstraintIndexExport(
            tuple(
                ConstraintEntry(
                    id=r[0],
                    type=ConstraintType.describe(r[1]),
                    nodes=tuple(r[2]),
                    expression=r[3],
                    active=r[4],
                    source=SignalSource.describe(r[5]),
                    created_at=_rfc3339(r[6]),
                )
                for r in core.constraint_all()
            )
        )
        return proof, cons

    def _history(self, s: Snapshot) -> HistoryIndexExport:
        core = s._c
        return HistoryIndexExport(
            entry_count=core.history_len(),
            recent_entries=tuple(
                HistoryEntryExport(
                    id=r[0],
                    node_id=r[1],
                    action=r[2],
                    result=r[3],
                    source=SignalSource.describe(r[4]),
                    timestamp=r[5],
                    metadata=dict(r[6]),
                )
                for r in core.history_recent(_RECENT_HISTORY)
            ),
        )

    def _streaming(self, s: Snapshot) -> StreamingIndexExport:
        return StreamingIndexExport(s._c.cardinality(), s._c.streaming_bytes())

    def export(self, snapshot: Snapshot | None, session_id: str) -> CRSExport:
        """Summary-level export: similarity and dependency as counts only."""
        if not isinstance(session_id, str):
            raise InvalidArgumentError(f"session_id: must be a str, got {brief(session_id)}")
        if snapshot is None:
            return CRSExport(session_id=session_id, timestamp=now_ms())
        s = _snap(snapshot)
        proof, cons = self._base(s)
        dep = s.dependency_index()
        indexes = IndexesExport(
            proof=proof,
            constraint=cons,
            similarity=SimilarityIndexExport(pair_count=s._c.sim_len()),
            dependency=DependencyIndexExport(edge_count=dep.size()),
            history=self._history(s),
            streaming=self._streaming(s),
        )
        return CRSExport(
            session_id=session_id,
            generation=s.generation(),
            timestamp=now_ms(),
            indexes=indexes,
            summary=self.compute_summary(s),
        )

    def export_full(
        self,
        snapshot: Snapshot,
        session_id: str,
        opts: ExportOptions | None = None,
        *,
        timeout: float | None = 300.0,
    ) -> ExportResult:
        """Full export: similarity pairs and dependency edges too, within `opts` limits.

        Raises:
            InvalidArgumentError: `snapshot` is None (the seed: "error: Non-nil if ... snapshot
                is nil"; use `export` for the empty export of no snapshot), or bad `opts`.
        """
        s = _snap(snapshot)
        if opts is None:
            opts = ExportOptions()
        if not isinstance(opts, ExportOptions):
            raise InvalidArgumentError(f"opts: must be ExportOptions or None, got {brief(opts)}")
        max_pairs = _limit("max_similarity_pairs", opts.max_similarity_pairs, 100_000)
        max_edges = _limit("max_dependency_edges", opts.max_dependency_edges, 100_000)
        if timeout is not None and (not isinstance(timeout, int | float) or timeout <= 0):
            raise InvalidArgumentError(
                f"timeout: must be seconds > 0 or None, got {brief(timeout)}"
            )
        base = self.export(s, session_id)
        deadline = None if timeout is None else time.monotonic() + timeout
        warnings: list[str] = []
        rows, sim_trunc = s._c.sim_pairs(max_pairs)
        if sim_trunc:
            warnings.append(f"similarity pairs truncated to {max_pairs}")
        sim = SimilarityIndexExport(
            pair_count=s._c.sim_len(),
            pairs=tuple(SimilarityPairExport(a, b, d) for a, b, d in rows),
            truncated=sim_trunc,
        )
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError(f"export_full exceeded timeout ({timeout} s)")
        view = s.dependency_index()
        if view.is_graph_backed():
            dep = DependencyIndexExport(edge_count=view.size(), source="graph_backed")
        else:
            edges = s._c.dep_edges()
            dep_trunc = max_edges is not None and len(edges) > max_edges
            if dep_trunc:
                edges = edges[:max_edges]
                warnings.append(f"dependency edges truncated to {max_edges}")
            dep = DependencyIndexExport(
                edge_count=s._c.dep_len(),
                edges=tuple(DependencyEdgeExport(f, t) for f, t in edges),
                source="legacy",
                truncated=dep_trunc,
            )
        export = dataclasses.replace(
            base, indexes=dataclasses.replace(base.indexes, similarity=sim, dependency=dep)
        )
        for w in warnings:
            self._log.warning("export_full: %s", w)
        return ExportResult(export=export, truncated=bool(warnings), warnings=tuple(warnings))

    def import_(
        self, export: CRSExport | dict[str, Any], opts: ImportOptions | None = None
    ) -> ImportedState:
        """Rebuild state from an export (a `CRSExport` or its JSON dict); nothing is applied."""
        if isinstance(export, dict):
            try:
                export = CRSExport.from_dict(export)
            except (TypeError, ValueError, AttributeError, KeyError) as err:
                raise InvalidArgumentError(
                    f"export: not an export.json layout ({type(err).__name__}: {brief(str(err))})"
                ) from None
        if not isinstance(export, CRSExport):
            raise InvalidArgumentError(f"export: must be a CRSExport or dict, got {brief(export)}")
        if opts is None:
            opts = DefaultImportOptions()
        if not isinstance(opts, ImportOptions):
            raise InvalidArgumentError(f"opts: must be ImportOptions or None, got {brief(opts)}")
        check(export, "export.")  # every field's type and range, named (crs._check)
        ix = export.indexes
        proof: dict[str, ProofNumber] = {}
        for i, e in enumerate(ix.proof.entries):
            at = f"export.indexes.proof.entries[{i}]"
            if not e.node_id:
                raise InvalidArgumentError(f"{at}.node_id: must be a non-empty str")
            if opts.strict_validation and e.node_id in proof:
                raise InvalidArgumentError(f"{at}.node_id: {brief(e.node_id)} appears twice")
            proof[e.node_id] = ProofNumber(
                proof=e.proof,
                disproof=e.disproof,
                status=_enum_from_name(ProofStatus, e.status, f"{at}.status"),
                source=_enum_from_name(SignalSource, e.source, f"{at}.source"),
                updated_at=_from_rfc3339(e.updated_at, f"{at}.updated_at"),
            )
        cons: dict[str, Constraint] = {}
        for i, c in enumerate(ix.constraint.constraints):
            at = f"export.indexes.constraint.constraints[{i}]"
            if not c.id:
                raise InvalidArgumentError(f"{at}.id: must be a non-empty str")
            if opts.strict_validation and c.id in cons:
                raise InvalidArgumentError(f"{at}.id: {brief(c.id)} appears twice")
            cons[c.id] = Constraint(
                id=c.id,
                type=_enum_from_name(ConstraintType, c.type, f"{at}.type"),
                nodes=tuple(c.nodes),
                expression=c.expression,
                active=c.active,
                source=_enum_from_name(SignalSource, c.source, f"{at}.source"),
                created_at=_from_rfc3339(c.created_at, f"{at}.created_at"),
            )
        sim: dict[str, dict[str, float]] = {}
        npairs = 0
        for p in ix.similarity.pairs:
            if not p.from_id or not p.to_id or p.from_id == p.to_id:
                raise InvalidArgumentError(
                    f"export: similarity pair needs two different ids, got {brief(p)}"
                )
            d = float(p.similarity)
            if not d >= 0 or d == float("inf"):
                raise InvalidArgumentError(
                    f"export: similarity distance must be >= 0, got {brief(p)}"
                )
            a, b = sorted((p.from_id, p.to_id))
            inner = sim.setdefault(a, {})
            npairs += b not in inner
            inner[b] = d
        if (
            opts.strict_validation
            and not ix.similarity.truncated
            and npairs != len(ix.similarity.pairs)
        ):
            raise InvalidArgumentError(
                f"export: similarity count mismatch: expected {len(ix.similarity.pairs)} pairs, "
                f"got {npairs}"
            )
        fwd: dict[str, set[str]] = {}
        rev: dict[str, set[str]] = {}
        nedges = 0
        if ix.dependency.source != "graph_backed":
            for edge in ix.dependency.edges:
                if not edge.from_id or not edge.to_id:
                    raise InvalidArgumentError(
                        f"export: dependency edge needs both ids, got {brief(edge)}"
                    )
                if edge.to_id in fwd.get(edge.from_id, set()):
                    continue
                fwd.setdefault(edge.from_id, set()).add(edge.to_id)
                rev.setdefault(edge.to_id, set()).add(edge.from_id)
                nedges += 1
            if (
                opts.strict_validation
                and not ix.dependency.truncated
                and nedges != len(ix.dependency.edges)
            ):
                raise InvalidArgumentError(
                    f"export: dependency count mismatch: expected {len(ix.dependency.edges)} "
                    f"edges, got {nedges}"
                )
        hist = []
        for i, h in enumerate(ix.history.recent_entries):
            at = f"export.indexes.history.recent_entries[{i}]"
            if not h.id:
                raise InvalidArgumentError(f"{at}.id: must be a non-empty str")
            hist.append(
                HistoryEntry(
                    id=h.id,
                    node_id=h.node_id,
                    action=h.action,
                    result=h.result,
                    source=_enum_from_name(SignalSource, h.source, f"{at}.source"),
                    timestamp=h.timestamp,
                    metadata=dict(h.metadata),
                )
            )
        if opts.strict_validation:
            _check_claims(export, proof, cons, npairs, nedges)
        return ImportedState(
            generation=export.generation,
            session_id=export.session_id,
            proof_data=proof,
            constraint_data=cons,
            similarity_data=sim,
            dependency_forward=fwd,
            dependency_reverse=rev,
            history_data=hist,
        )
