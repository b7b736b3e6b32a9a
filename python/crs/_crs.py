"""The CRS facade: the current version of the state, apply, snapshots, checkpoints.

The state itself is a persistent structure in Rust (`crs._core.StateCore`). The facade
keeps `(state, generation, analytics)` as ONE tuple that is replaced atomically on every
committed change, so `snapshot()` needs no lock and is O(1), and a failed apply (which
never reaches the swap) leaves no trace.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from crs import _core
from crs._check import brief
from crs._crs_eval import EvaluableMixin
from crs._errors import (
    CRSClosedError,
    DeltaConflictError,
    InvalidArgumentError,
    JournalCorruptedError,
    NilDeltaError,
    SnapshotStaleError,
)
from crs._journal._base import BytesCodec, JsonCodec
from crs._persistence._crs_persist import PersistenceMixin
from crs._reasoning._guards import GuardsMixin
from crs._reasoning._sanitizer import default_sanitizer, redact_delta, redact_metadata
from crs._state._analytics import (
    MAX_ANALYTICS_HISTORY_RECORDS,
    AnalyticsQueryType,
    AnalyticsRecord,
    _last_of,
)
from crs._state._delta_history import DEFAULT_MAX_DELTA_RECORDS, DeltaHistoryWorker
from crs._state._deltas import Delta, DeltaType, ProofDelta
from crs._state._graph import GraphBackedDependencyIndex, GraphQuery
from crs._state._image import STATE_IMAGE_VERSION, state_image
from crs._state._index_mask import IndexMask
from crs._state._serializer import Serializer
from crs._state._snapshot import Snapshot, _raise_apply
from crs._types import Config, DefaultConfig, now_ms

MAX_SIMILARITY_PAIRS: int = 10_000
"""Similarity pairs a CRS keeps by default; the oldest pair is evicted first."""
MAX_HISTORY_ENTRIES: int = 10_000
"""History index entries a CRS keeps by default; the oldest entry is evicted first."""


# State parts of other subsystems (the guard's, issue 12), "name": "module:class". A part is
# made with each CRS (`cls(crs)`, registering its ops with `_register_op`) and travels with
# the guards' state in checkpoints, backups, restores and replicas: `export() -> dict`,
# `parse(data | None) -> parsed` (raises InvalidArgumentError), `install(parsed)`.
_PARTS: dict[str, str] = {"guard": "crs.guard._state:GuardPart"}


def _make_parts(crs: CRS) -> dict[str, Any]:
    import importlib

    parts = {}
    for name, where in _PARTS.items():
        module, _, attr = where.partition(":")
        parts[name] = getattr(importlib.import_module(module), attr)(crs)
    return parts


_PROOF = IndexMask.PROOF
_CAPPED = IndexMask.SIMILARITY | IndexMask.HISTORY
_log = logging.getLogger("crs.state")
_new_metrics = tuple.__new__  # builds ApplyMetrics without the NamedTuple keyword machinery


class _Lifecycle(enum.Enum):
    """Where a CRS is in its life (style practice 16)."""

    OPEN = "open"  # reads and changes allowed
    CLOSED = "closed"  # close() ran: changes are refused, reads see the last state


_CLOSED = _Lifecycle.CLOSED
_clock = time.perf_counter


class ApplyMetrics(NamedTuple):
    """What one apply did. Durations are float seconds."""

    delta_type: DeltaType = DeltaType.UNKNOWN
    apply_duration: float = 0.0
    validation_duration: float = 0.0
    indexes_updated: IndexMask = IndexMask(0)
    entries_modified: int = 0
    old_generation: int = 0
    new_generation: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class Checkpoint:
    """A restorable copy of the state. Holding it costs O(1): versions are shared."""

    id: str = ""
    generation: int = 0
    created_at: int = 0
    _state: Any = dataclasses.field(default=None, repr=False, compare=False)
    _analytics: tuple[AnalyticsRecord, ...] = dataclasses.field(
        default=(), repr=False, compare=False
    )
    _guards: dict[str, Any] = dataclasses.field(default_factory=dict, repr=False, compare=False)


def _cap(name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidArgumentError(
            f"{name}: must be an int >= 0 (0 = unlimited), got {brief(value)}"
        )
    return value


class CRS(PersistenceMixin, GuardsMixin, EvaluableMixin):
    """The reasoning state of an agent session (the seed's `New(config)`).

    A CRS is an `Evaluable` (`properties()`, `metrics()`, `health_check()`). Its lifecycle
    is OPEN until `close()` (idempotent; `with CRS() as c:` closes on exit). After close,
    every method that changes the state, the journal or backups (apply, restore, guards'
    record/update/learn methods, replay, loads, saves, set_session_id, set_graph_provider)
    raises `CRSClosedError` and changes nothing; reads (`snapshot`, `generation`, getters,
    `export_json`, `checkpoint`, the Evaluable methods) keep working on the last state. The
    delta history is closed with the CRS, so its queries raise `DeltaHistoryClosedError`.

    Args:
        config: Configuration; None means `DefaultConfig()`. It is validated.
        journal: Optional journal using `crs.DeltaCodec`; every committed change is appended
            before it is visible, and a failed append leaves the state unchanged. To start
            from what a journal holds use `CRS.open(journal)`; for a project's journal and
            backups, `crs.open_project(path)`.
        max_similarity_pairs: Similarity pairs kept (oldest evicted first); 0 = unlimited.
        max_history_entries: History index entries kept (oldest evicted first); 0 = unlimited.
        max_delta_records: Delta history records kept (oldest evicted first).
    """

    def __init__(
        self,
        config: Config | None = None,
        *,
        journal: Any = None,
        max_similarity_pairs: int = MAX_SIMILARITY_PAIRS,
        max_history_entries: int = MAX_HISTORY_ENTRIES,
        max_delta_records: int = DEFAULT_MAX_DELTA_RECORDS,
    ) -> None:
        if config is None:
            config = DefaultConfig()
        if not isinstance(config, Config):
            raise InvalidArgumentError(f"config: must be a crs.Config or None, got {brief(config)}")
        config.validate()
        if journal is not None and not callable(getattr(journal, "append", None)):
            raise InvalidArgumentError(
                f"journal: must have an append() method (a crs Journal), got {brief(journal)}"
            )
        if isinstance(getattr(journal, "_codec", None), JsonCodec | BytesCodec):
            raise InvalidArgumentError(
                "journal: its codec cannot encode deltas; create it with codec=crs.DeltaCodec() "
                "(or open it with CRS.open(path) / crs.open_project())"
            )
        self._config: Config = config
        self._caps = (
            _cap("max_similarity_pairs", max_similarity_pairs),
            _cap("max_history_entries", max_history_entries),
        )
        self._lock = threading.RLock()
        # The head is written in place; `_frozen` caches an immutable version of it for
        # snapshots and is dropped on every commit (so writes without snapshots in between
        # never copy shared nodes).
        self._head = _core.StateHead(*self._caps)
        self._gen = 0
        self._analytics: tuple[AnalyticsRecord, ...] = ()
        self._frozen: tuple[_core.StateCore, int, tuple[AnalyticsRecord, ...]] | None = None
        self._journal = journal
        # A journal other processes write too (LocalJournal with `shared`): each commit
        # takes its lock and first applies what the others appended (`_writing`).
        self._shared_journal = bool(getattr(journal, "shared", False))
        self._wdepth = 0
        self._journal_seq = 0  # sequence number of the last journal record in the state
        self._history = DeltaHistoryWorker(max_delta_records)
        self._session_id = ""
        self._graph: GraphQuery | None = None
        self._graph_index: GraphBackedDependencyIndex | None = None
        self._op_handlers: dict[str, Callable[[dict[str, Any]], Callable[[], None] | None]] = {
            "restore": self._op_restore
        }
        self._life = _Lifecycle.OPEN
        # Running [count, total s, max s] of apply and snapshot durations (enable_metrics).
        self._apply_stats: list[float] | None = [0, 0.0, 0.0] if config.enable_metrics else None
        self._snap_stats: list[float] | None = [0, 0.0, 0.0] if config.enable_metrics else None
        self._guards_init()
        self._parts = _make_parts(self)
        self._clause_view: Callable[[], Any] | None = getattr(self, "_guards_clause_view", None)

    # ------------------------------------------------------------ reading

    def snapshot(self) -> Snapshot:
        """An immutable view of the current state (O(1)); works after `close()` too."""
        st = self._snap_stats
        t0 = _clock() if st is not None else 0.0
        cur = self._frozen
        if cur is None:
            cur = self._current()
        clauses = self._clause_view() if self._clause_view is not None else None
        snap = Snapshot(*cur, self._graph, self._graph_index, clauses)
        if st is not None:
            # Not under the lock: concurrent readers may rarely lose one sample.
            d = _clock() - t0
            st[0] += 1
            st[1] += d
            if d > st[2]:
                st[2] = d
        return snap

    @property
    def closed(self) -> bool:
        """True once `close()` ran (changes are then refused with `CRSClosedError`)."""
        return self._life is _CLOSED

    def _check_open(self, what: str) -> None:
        if self._life is _CLOSED:
            raise CRSClosedError(
                f"{what}: the CRS is closed (at generation {self._gen}); it refuses changes "
                "and reads see the last state; open a new CRS (crs.CRS.open, crs.open_project)"
            )

    def _current(self) -> tuple[_core.StateCore, int, tuple[AnalyticsRecord, ...]]:
        cur = self._frozen
        if cur is None:
            with self._lock:
                cur = self._frozen
                if cur is None:
                    cur = (self._head.freeze(), self._gen, self._analytics)
                    self._frozen = cur
        return cur

    def generation(self) -> int:
        """The current state version; +1 on every committed change, never backwards."""
        return self._gen

    def _generation_value(self) -> int:
        return self._gen

    def get_analytics_history(self) -> list[AnalyticsRecord]:
        """Analytics records, oldest first."""
        return list(self._analytics)

    def get_last_analytics(self, query_type: AnalyticsQueryType | str) -> AnalyticsRecord | None:
        return _last_of(self._analytics, query_type)

    def has_run_analytics(self, query_type: AnalyticsQueryType | str) -> bool:
        return self.get_last_analytics(query_type) is not None

    def delta_history(self) -> DeltaHistoryWorker:
        """The history of applied deltas (consistent, bounded)."""
        return self._history

    # ------------------------------------------------------------ applying

    def apply(self, delta: Delta, base: Snapshot | None = None) -> ApplyMetrics:
        """Validate and apply `delta` atomically; the generation grows by one.

        Args:
            delta: The change.
            base: The snapshot the caller computed `delta` from. When given, a base older
                than `config.snapshot_epoch_limit` generations raises `SnapshotStaleError`
                and a conflicting delta committed after it raises `DeltaConflictError`.

        Raises:
            NilDeltaError: `delta` is None.
            DeltaValidationError: the delta is invalid (nothing changed).
        """
        if self._config.sanitize_secrets:
            delta = redact_delta(delta, default_sanitizer())
        return self._commit(delta, None, None, base)

    def apply_with_source(
        self,
        delta: Delta,
        source: str,
        metadata: Mapping[str, str] | None = None,
        base: Snapshot | None = None,
    ) -> ApplyMetrics:
        """`apply`, recording `source` and `metadata` in the delta history."""
        if not isinstance(source, str):
            raise InvalidArgumentError(f"source: must be a str, got {brief(source)}")
        if metadata is not None and (
            not isinstance(metadata, Mapping)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
        ):
            raise InvalidArgumentError(
                f"metadata: must be a dict[str, str] or None, got {brief(metadata)}"
            )
        if self._config.sanitize_secrets:
            delta = redact_delta(delta, default_sanitizer())
            metadata = redact_metadata(metadata, default_sanitizer())
        return self._commit(delta, source, metadata, base)

    def _commit(
        self,
        delta: Delta,
        source: str | None = None,
        metadata: Mapping[str, str] | None = None,
        base: Snapshot | None = None,
        *,
        journal: bool = True,
    ) -> ApplyMetrics:
        if self._shared_journal and journal:
            with self._writing():
                return self._commit_now(delta, source, metadata, base, journal)
        return self._commit_now(delta, source, metadata, base, journal)

    def _commit_now(
        self,
        delta: Delta,
        source: str | None,
        metadata: Mapping[str, str] | None,
        base: Snapshot | None,
        journal: bool,
    ) -> ApplyMetrics:
        if not isinstance(delta, Delta):
            if delta is None:
                raise NilDeltaError("delta: must be a Delta, got None")
            raise InvalidArgumentError(f"delta: must be a crs Delta, got {brief(delta)}")
        t0 = time.perf_counter()
        delta._check()
        t1 = time.perf_counter()
        with self._lock:
            if self._life is _CLOSED:
                self._check_open(f"apply of a {delta._TYPE.name} delta")
            gen = self._gen
            if base is not None:
                self._check_base(base, delta, gen)
            head = self._head
            if type(delta) is ProofDelta:
                rows = delta._rows
                if journal and self._journal is not None:
                    self._journal_seq = self._journal.append(delta)
                n = head.put_proofs(rows)
                mask = _PROOF
            else:
                prev = head.freeze() if journal and self._journal is not None else None
                before = head.evicted()
                try:
                    n, m = head.apply_ops(delta._ops())
                except ValueError as err:
                    _raise_apply(err)
                mask = IndexMask(m)
                if m & _CAPPED:
                    self._log_evictions(before, head.evicted())
                if prev is not None:
                    # While the record is written (a full journal may save a backup from
                    # here), readers see the state before this delta.
                    self._frozen = (prev, gen, self._analytics)
                    try:
                        self._journal_seq = self._journal.append(delta)
                    except BaseException:
                        head.reset(prev)
                        raise
                recs = delta._analytics()
                if recs:
                    n += len(recs)
                    self._analytics = (*self._analytics, *recs)[-MAX_ANALYTICS_HISTORY_RECORDS:]
            self._gen = gen + 1
            self._frozen = None
            self._history._items_append(delta, gen + 1, source, self._session_id, metadata)
            t2 = time.perf_counter()
            st = self._apply_stats
            if st is not None:
                d = t2 - t0
                st[0] += 1
                st[1] += d
                if d > st[2]:
                    st[2] = d
        return _new_metrics(ApplyMetrics, (delta._TYPE, t2 - t1, t1 - t0, mask, n, gen, gen + 1))

    def _log_evictions(self, before: tuple[int, int], after: tuple[int, int]) -> None:
        for what, cap, old, new in (
            ("similarity pairs", self._caps[0], before[0], after[0]),
            ("history entries", self._caps[1], before[1], after[1]),
        ):
            if new > old:
                _log.info(
                    "cap of %d %s reached: evicted %d oldest (%d in total)",
                    cap,
                    what,
                    new - old,
                    new,
                )

    def _check_base(self, base: Snapshot, delta: Delta, gen: int) -> None:
        if not isinstance(base, Snapshot):
            raise InvalidArgumentError(f"base: must be a Snapshot or None, got {brief(base)}")
        lag = gen - base.generation()
        limit = self._config.snapshot_epoch_limit
        if limit > 0 and lag > limit:
            raise SnapshotStaleError(
                f"base: snapshot is {lag} generations old, more than snapshot_epoch_limit "
                f"({limit}); take a fresh snapshot"
            )
        if lag <= 0:
            return
        since = self._history._since(base.generation())
        if since is None:
            raise SnapshotStaleError(
                "base: the delta history no longer covers this snapshot; take a fresh snapshot"
            )
        for other in since:
            if delta.conflicts_with(other):
                raise DeltaConflictError(
                    f"delta conflicts with a {other.type()} delta committed after generation "
                    f"{base.generation()}; re-read and retry"
                )

    # ------------------------------------------------------------ parts

    def _guards_export(self) -> dict[str, Any]:
        data = super()._guards_export()
        with self._lock:
            data["parts"] = {name: part.export() for name, part in self._parts.items()}
        return data

    def _guards_import(self, data: dict[str, Any]) -> None:
        # Every part is parsed before anything is installed: a bad image changes nothing.
        got = (data or {}).get("parts") or {}
        parsed = {name: part.parse(got.get(name)) for name, part in self._parts.items()}
        with self._lock:
            super()._guards_import(data)
            for name, part in self._parts.items():
                part.install(parsed[name])

    # ------------------------------------------------------------ ops for guards

    def _register_op(
        self, kind: str, handler: Callable[[dict[str, Any]], Callable[[], None] | None]
    ) -> None:
        """Register the handler of a journaled op: `handler(payload)` checks the payload and
        computes the op's effect without changing anything (raising if it cannot be applied)
        and returns the function that applies it, which must not fail. (A handler returning
        None applied its effect itself, before the record is written: only for effects that
        cannot fail, as a failure then leaves the state ahead of its journal.)"""
        if not isinstance(kind, str) or not kind or not callable(handler):
            raise InvalidArgumentError("kind: must be a non-empty str and handler a callable")
        self._op_handlers[kind] = handler

    def _commit_op(self, kind: str, payload: dict[str, Any], *, bump_generation: bool) -> int:
        handler = self._op_handlers.get(kind)
        if handler is None:
            raise InvalidArgumentError(
                f"kind: no handler registered for {brief(kind)}; known: {sorted(self._op_handlers)}"
            )
        with self._writing() if self._shared_journal else self._lock:
            self._check_open(kind)
            apply = handler(payload)  # validated, effect computed: nothing changed yet
            if self._journal is not None:
                self._journal_seq = self._journal.append(
                    {"op": kind, "payload": payload, "bump_generation": bump_generation}
                )
            if apply is not None:
                apply()
            if bump_generation:
                self._gen += 1
                self._frozen = None
            return self._gen

    def _replay(self, record: Delta | dict[str, Any]) -> None:
        """Re-apply one journal record (a delta or an op) without journaling it again."""
        if isinstance(record, Delta):
            self._commit(record, journal=False)
            return
        if not isinstance(record, dict) or record.get("op") not in self._op_handlers:
            raise InvalidArgumentError(
                f"record: must be a Delta or a registered op, got {brief(record)}"
            )
        with self._lock:
            self._check_open("replay")
            try:
                apply = self._op_handlers[record["op"]](record["payload"])
            except Exception as exc:  # a record that cannot be applied is a damaged record
                raise JournalCorruptedError(
                    f"journal op record {record['op']!r} cannot be applied: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            if apply is not None:
                apply()
            if record.get("bump_generation", False):
                self._gen += 1
                self._frozen = None

    def _bfs_depended_by(self, start: str, max_depth: int) -> list[tuple[str, str, int]]:
        """(parent, child, depth) for the reverse-dependency BFS from `start` (spec §1.9)."""
        if not isinstance(start, str) or not isinstance(max_depth, int) or max_depth < 0:
            raise InvalidArgumentError("start: must be a str and max_depth an int >= 0")
        index = self._graph_index
        if index is None:
            return self._current()[0].bfs_depended_by(start, max_depth)
        out: list[tuple[str, str, int]] = []
        visited: set[str] = set()
        queue = [(start, 0)]
        while queue:
            node, depth = queue.pop(0)
            if depth >= max_depth or node in visited:
                continue
            visited.add(node)
            for p in index.depended_by(node):
                if p not in visited:
                    out.append((p, node, depth + 1))
                    queue.append((p, depth + 1))
        return out

    # ------------------------------------------------------------ checkpoints

    def checkpoint(self) -> Checkpoint:
        """A restorable checkpoint (O(1); it never aliases live state)."""
        with self._lock:
            core, gen, analytics = self._current()
            return Checkpoint(
                id=str(uuid.uuid4()),
                generation=gen,
                created_at=now_ms(),
                _state=core,
                _analytics=analytics,
                _guards=self._guards_export(),
            )

    def _scratch(self) -> CRS:
        """An empty plain CRS with this one's config and similarity cap, no journal and no
        history cap (the Evaluable checks restore a checkpoint into it)."""
        return CRS(self._config, max_similarity_pairs=self._caps[0], max_history_entries=0)

    def restore(self, cp: Checkpoint) -> None:
        """Bring back `cp`'s content under a NEW generation (generations never go back)."""
        if not isinstance(cp, Checkpoint) or not isinstance(cp._state, _core.StateCore):
            raise InvalidArgumentError(
                f"cp: must be a Checkpoint from CRS.checkpoint(), got {brief(cp)}"
            )
        self._check_open("restore")
        if self._journal is not None:  # journaled as a whole-state image, so replay restores
            image = state_image(cp._state, cp.generation, cp._analytics, cp._guards)
            self._commit_op("restore", {"image": image}, bump_generation=True)
            return
        with self._lock:
            self._check_open("restore")
            self._guards_import(cp._guards)
            self._head.reset(cp._state)
            self._gen += 1
            self._analytics = cp._analytics
            self._frozen = None

    def _install(self, ops: list[tuple[Any, ...]], analytics: tuple[AnalyticsRecord, ...]) -> int:
        """Replace the whole state by a fresh one built from `ops`; returns the generation."""
        try:
            new, _, _ = _core.StateCore(*self._caps).apply_ops(ops)
        except ValueError as err:
            _raise_apply(err)
        with self._lock:
            self._check_open("install")
            self._head.reset(new)
            self._gen += 1
            self._analytics = analytics
            self._frozen = None
            return self._gen

    def _state_image(self) -> dict[str, Any]:
        """The whole state as a JSON-safe dict (for backups): every index (the streaming
        sketch as base64), analytics, the guards' state and the generation."""
        with self._lock:
            core, gen, analytics = self._current()
            guards = self._guards_export()
        return state_image(core, gen, analytics, guards)

    def export_json(self) -> bytes:
        """The portable JSON export (`Serializer.export_full` of the current state, default
        limits) as UTF-8 bytes: the `export.json` of a backup."""
        result = Serializer().export_full(self.snapshot(), self._session_id)
        assert result.export is not None
        return json.dumps(result.export.to_dict(), separators=(",", ":")).encode()

    def _parse_image(
        self, image: Any
    ) -> tuple[_core.StateHead, tuple[AnalyticsRecord, ...], int, dict[str, Any]]:
        if not isinstance(image, dict) or image.get("version") != STATE_IMAGE_VERSION:
            raise InvalidArgumentError(
                f"image: must be a dict from CRS._state_image() with version {STATE_IMAGE_VERSION}"
            )
        try:
            ops: list[tuple[Any, ...]] = [
                (1, [tuple(r) for r in image["proof"]]),
                (2, [tuple(r) for r in image["constraints"]], [], []),
                (3, [tuple(p) for p in image["similarity"]]),
                (4, [tuple(e) for e in image["dependency"]], []),
                (5, [(*r[:6], [tuple(kv) for kv in r[6]]) for r in image["history"]]),
            ]
            sketch = base64.b64decode(image["streaming"])
            sim_ev, hist_ev = image["evicted"]
            analytics = tuple(AnalyticsRecord.from_dict(r) for r in image["analytics"])
            gen_img = int(image["generation"])
        except (KeyError, TypeError, ValueError) as err:
            raise InvalidArgumentError(f"image: malformed state image ({err})") from None
        try:
            new, _, _ = _core.StateCore(*self._caps).apply_ops(ops)
            head = _core.StateHead(*self._caps)
            head.reset(new)
            head.set_sketch(sketch, sim_ev, hist_ev)
        except ValueError as err:
            _raise_apply(err)
        return head, analytics, gen_img, image.get("guards") or {}

    def _op_restore(self, payload: dict[str, Any]) -> Callable[[], None]:
        # Handler of the journaled "restore" op: content only (the caller bumps the generation).
        head, analytics, _, guards = self._parse_image(payload["image"])
        install_guards = self._guards_parse(guards)

        def apply() -> None:
            with self._lock:
                install_guards()
                self._head = head
                self._analytics = analytics
                self._frozen = None

        return apply

    def _load_state_image(self, image: dict[str, Any]) -> int:
        """Install a `_state_image()`: the content comes back and the generation becomes the
        image's (never lower than now + 1 once something was committed). Returns it."""
        head, analytics, gen_img, guards = self._parse_image(image)
        with self._lock:
            self._check_open("load of a state image")
            self._guards_import(guards)
            self._head = head
            self._analytics = analytics
            self._gen = gen_img if self._gen == 0 else max(self._gen + 1, gen_img)
            self._frozen = None
            return self._gen

    # ------------------------------------------------------------ session, graph

    def set_session_id(self, session_id: str) -> None:
        """Session recorded with later deltas in the delta history ("" clears it)."""
        if not isinstance(session_id, str):
            raise InvalidArgumentError(f"session_id: must be a str, got {brief(session_id)}")
        self._check_open("set_session_id")
        self._session_id = session_id

    def set_graph_provider(self, provider: GraphQuery | None) -> None:
        """Use `provider` (a GraphQuery) for dependency queries; None goes back to the
        stored edges. A different previous provider is closed."""
        if provider is not None and not all(
            callable(getattr(provider, m, None)) for m in ("find_callers", "find_callees", "close")
        ):
            raise InvalidArgumentError(
                f"provider: must implement GraphQuery (find_callers, find_callees, close, ...), "
                f"got {brief(provider)}"
            )
        with self._lock:
            self._check_open("set_graph_provider")
            old = self._graph
            self._graph = provider
            self._graph_index = (
                GraphBackedDependencyIndex(provider) if provider is not None else None
            )
        if old is not None and old is not provider:
            old.close()

    def invalidate_graph_cache(self) -> None:
        """Forget cached graph figures after the graph was refreshed (no-op without one)."""
        index = self._graph_index
        if index is not None:
            index.invalidate_cache()

    def close(self) -> None:
        """Release resources (the delta history, an owned journal or project); idempotent.

        Later changes raise `CRSClosedError`; reads keep working on the last state.
        """
        with self._lock:
            if self._life is _CLOSED:
                return
            self._life = _CLOSED
            self._history.close()
            self._close_owned()

    def __enter__(self) -> CRS:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<CRS generation={self.generation()}>"
