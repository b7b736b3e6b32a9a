"""The CRS facade: the documented methods of the reasoning state of an agent session.

`CRS` holds a `crs._kernel.StateKernel` (the state and the one place it changes: commit,
journaled ops, replay, install, images, the shared journal) and the parts that hold the
kernel too: `Guards` (steps, proofs, the breaker, clauses, similarity), `Persistence`
(backup images, checkpoints on disk, the project), `Evaluation` (the `Evaluable` face) and
the parts of other subsystems registered in `_PARTS` (the guard's). Every public method
checks its arguments or documents them and calls into one of these.

The state itself is a persistent structure in Rust (`crs._core.StateCore`): the kernel keeps
`(state, generation, analytics)` as ONE tuple that is replaced atomically on every
committed change, so `snapshot()` needs no lock and is O(1), and a failed apply (which
never reaches the swap) leaves no trace.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Self

from crs import _core
from crs._check import brief
from crs._errors import InvalidArgumentError
from crs._journal._base import BytesCodec, DefaultJournalConfig, JsonCodec
from crs._kernel import ApplyMetrics, OpHandler, StateKernel
from crs._persistence._backup_format import BackupImage, BackupMetadata
from crs._persistence._crs_persist import Persistence, ProjectInfo
from crs._persistence._manager import BackupOptions, PersistenceManager
from crs._reasoning._clause_store import ClauseView
from crs._reasoning._guards import Guards
from crs._reasoning._sanitizer import default_sanitizer, redact_delta, redact_metadata
from crs._state._codec import DeltaCodec
from crs._state._delta_history import DEFAULT_MAX_DELTA_RECORDS, DeltaHistoryWorker
from crs._state._deltas import snapshot_type
from crs._types import (
    Actor,
    CircuitBreakerResult,
    ClauseScope,
    Config,
    DefaultConfig,
    Outcome,
    ProofNumber,
    ProofUpdate,
    SimilarityMatch,
    StepRecord,
    now_ms,
)

if TYPE_CHECKING:
    import threading

    # Annotations only. These modules load when they are used (a snapshot, an export, the
    # Evaluable checks, a graph provider): a hook opening a project needs none of them.
    from crs._crs_eval import Evaluation
    from crs._evaluable import HealthStatus, Metric, PropertyResult
    from crs._reasoning._clauses import (
        Clause,
        ClauseCheckResult,
        ClausePersistence,
        DecisionCheck,
        FailureEvent,
    )
    from crs._state._analytics import AnalyticsQueryType, AnalyticsRecord
    from crs._state._deltas import Delta
    from crs._state._graph import GraphQuery
    from crs._state._snapshot import Snapshot

__all__ = ["CRS", "MAX_HISTORY_ENTRIES", "MAX_SIMILARITY_PAIRS", "ApplyMetrics", "Checkpoint"]

MAX_SIMILARITY_PAIRS: int = 10_000
"""Similarity pairs a CRS keeps by default; the oldest pair is evicted first."""
MAX_HISTORY_ENTRIES: int = 10_000
"""History index entries a CRS keeps by default; the oldest entry is evicted first."""


# State parts of other subsystems (the guard's, issue 12), "name": "module:class". A part is
# made with each CRS (`cls(crs)`, registering its ops with `crs._register_op`) and travels
# with the guards' state in checkpoints, backups, restores and replicas (the kernel's image
# parts): `export() -> dict`, `parse(data | None) -> parsed` (raises InvalidArgumentError),
# `install(parsed)`.
_PARTS: dict[str, str] = {"guard": "crs.guard._state:GuardPart"}


def _make_parts(crs: CRS) -> dict[str, Any]:
    parts = {}
    for name, where in _PARTS.items():
        module, _, attr = where.partition(":")
        # Layering: a part's subsystem sits above the facade (crs.guard imports crs._crs),
        # so it is found by name when a CRS is made, never imported by this module.
        parts[name] = getattr(importlib.import_module(module), attr)(crs)
    return parts


_clock = time.perf_counter


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


class CRS:
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
        max_similarity_pairs: Similarity pairs kept (the pair recorded longest ago is evicted
            first; recording a pair again makes it the newest); 0 = unlimited.
        max_history_entries: History index entries kept (oldest evicted first); 0 = unlimited.
        max_delta_records: Delta history records kept (oldest evicted first).
    """

    # The kernel class (a read replica's refuses changes not made by its applier thread).
    _KERNEL: type[StateKernel] = StateKernel

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
        caps = (
            _cap("max_similarity_pairs", max_similarity_pairs),
            _cap("max_history_entries", max_history_entries),
        )
        k = self._kernel = self._KERNEL(config, journal, caps, max_delta_records)
        self._config = config
        self._guards = Guards(k)
        self._clause_view: Callable[[], ClauseView] = self._guards.clause_view
        self._persist = Persistence(k, self)
        self._eval_part: Evaluation | None = None  # made on first use (`_eval`)
        k.guards = self._guards
        # What other subsystems reach (crs.guard, the dashboard, tests): the kernel's lock,
        # its journal and the parts, under the names they have always had.
        self._lock: threading.RLock = k.lock
        self._journal: Any = journal
        self._parts: dict[str, Any] = _make_parts(self)
        k.parts = self._parts

    # ------------------------------------------------------------ reading

    def snapshot(self) -> Snapshot:
        """An immutable view of the current state (O(1)); works after `close()` too."""
        k = self._kernel
        st = k.snap_stats
        t0 = _clock() if st is not None else 0.0
        cur = k.frozen
        if cur is None:
            cur = k.current()
        snap = snapshot_type()(*cur, k.graph, k.graph_index, self._clause_view())
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
        return self._kernel.closed

    def generation(self) -> int:
        """The current state version; +1 on every committed change, never backwards."""
        return self._kernel.gen

    def get_analytics_history(self) -> list[AnalyticsRecord]:
        """Analytics records, oldest first."""
        return list(self._kernel.analytics)

    def get_last_analytics(self, query_type: AnalyticsQueryType | str) -> AnalyticsRecord | None:
        # inside: start-up (analytics are read by few processes)
        from crs._state._analytics import _last_of

        return _last_of(self._kernel.analytics, query_type)

    def has_run_analytics(self, query_type: AnalyticsQueryType | str) -> bool:
        return self.get_last_analytics(query_type) is not None

    def delta_history(self) -> DeltaHistoryWorker:
        """The history of applied deltas (consistent, bounded)."""
        return self._kernel.history

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
        return self._kernel.commit(delta, None, None, base)

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
        return self._kernel.commit(delta, source, metadata, base)

    # ------------------------------------------------------------ the seam, by its old names

    # Other subsystems and tools reach the kernel through these few (crs.guard journals its
    # ops with `_commit_op` and registers them with `_register_op`; the Claude Code hook
    # holds `_writing` across a decision; the serializer's import and the benchmarks build a
    # state with `_install`; `_state_image` is the image document tests compare). Everything
    # else goes to `self._kernel` directly.

    def _register_op(self, kind: str, handler: OpHandler) -> None:
        """`StateKernel.register_op`: the handler of a journaled op kind."""
        self._kernel.register_op(kind, handler)

    def _commit_op(self, kind: str, payload: dict[str, Any], *, bump_generation: bool) -> Any:
        """`StateKernel.commit_op`: check, journal, apply; returns the apply's result."""
        return self._kernel.commit_op(kind, payload, bump_generation=bump_generation)

    def _writing(self) -> contextlib.AbstractContextManager[Any]:
        """`StateKernel.writing`: the lock and, on a shared journal, its writer lock after
        catching up, so a decision made inside sees every other writer's records."""
        return self._kernel.writing()

    def _install(self, ops: list[tuple[Any, ...]], analytics: tuple[AnalyticsRecord, ...]) -> int:
        """`StateKernel.install`: the whole state replaced by one built from `ops`."""
        return self._kernel.install(ops, analytics)

    def _state_image(self) -> dict[str, Any]:
        """The whole state as a JSON-safe `crs._image.state_image` document (every index,
        the streaming sketch as base64, analytics, the image parts, the generation)."""
        return self._kernel.image()

    def _own(self, resource: Any) -> None:
        """Close `resource` (a journal, a PersistenceManager) with this CRS."""
        self._persist.own(resource)

    # ------------------------------------------------------------ checkpoints

    def checkpoint(self) -> Checkpoint:
        """A restorable checkpoint (O(1); it never aliases live state)."""
        # inside: start-up (uuid imports platform: 3 ms a hook that takes no checkpoint)
        import uuid

        core, gen, analytics, parts = self._kernel.capture()
        return Checkpoint(
            id=str(uuid.uuid4()),
            generation=gen,
            created_at=now_ms(),
            _state=core,
            _analytics=analytics,
            _guards=parts,
        )

    def _scratch(self) -> CRS:
        """An empty plain CRS with this one's config and similarity cap, no journal and no
        history cap (the Evaluable checks restore a checkpoint into it)."""
        caps = self._kernel.caps
        return CRS(self._config, max_similarity_pairs=caps[0], max_history_entries=0)

    def restore(self, cp: Checkpoint) -> None:
        """Bring back `cp`'s content under a NEW generation (generations never go back)."""
        if not isinstance(cp, Checkpoint) or not isinstance(cp._state, _core.StateCore):
            raise InvalidArgumentError(
                f"cp: must be a Checkpoint from CRS.checkpoint(), got {brief(cp)}"
            )
        self._kernel.restore(cp._state, cp.generation, cp._analytics, cp._guards)

    def export_json(self) -> bytes:
        """The portable JSON export (`Serializer.export_full` of the current state, default
        limits) as UTF-8 bytes: the `export.json` of a backup."""
        # inside: start-up (the serializer's 18 records cost 16 ms to define; only exports
        # and imports use them)
        from crs._state._serializer import Serializer

        result = Serializer().export_full(self.snapshot(), self._kernel.session_id)
        assert result.export is not None
        return json.dumps(result.export.to_dict(), separators=(",", ":")).encode()

    # ------------------------------------------------------------ guards (Guards)

    def record_step(self, step: StepRecord) -> StepRecord:
        """Record a step of a session; returns the stored step.

        A `step_number` below 1 becomes the session's next number and a `timestamp` of 0
        becomes now, both decided before the step is journaled. Each session keeps at most
        `MAX_STEPS_PER_SESSION` steps (the oldest is evicted, counted and logged).

        Raises:
            InvalidArgumentError: a field is invalid (named); nothing is recorded.
        """
        return self._guards.record_step(step)

    def get_step_history(self, session_id: str) -> list[StepRecord]:
        """Every kept step of the session, oldest first ([] for an unknown session)."""
        return self._guards.get_step_history(session_id)

    def get_last_step(self, session_id: str) -> StepRecord | None:
        return self._guards.get_last_step(session_id)

    def count_tool_executions(self, session_id: str, tool: str) -> int:
        """How many `execute_tool` steps of `tool` the session holds."""
        return self._guards.count_tool_executions(session_id, tool)

    def get_steps_by_actor(self, session_id: str, actor: Actor | str) -> list[StepRecord]:
        """The session's steps taken by `actor`, oldest first."""
        return self._guards.get_steps_by_actor(session_id, actor)

    def get_steps_by_outcome(self, session_id: str, outcome: Outcome | str) -> list[StepRecord]:
        """The session's steps that ended with `outcome`, oldest first."""
        return self._guards.get_steps_by_outcome(session_id, outcome)

    def clear_step_history(self, session_id: str) -> None:
        """End a session: drop its steps, remembered queries and session-scoped clauses."""
        self._guards.clear_step_history(session_id)

    def update_proof_number(self, update: ProofUpdate) -> ProofNumber:
        """Apply one proof-number update (saturating) as one ProofDelta; returns the new value.

        Raises:
            InvalidArgumentError: the update is invalid (field named).
            HardSoftBoundaryViolationError: a soft signal tries to disprove (no node is created).
        """
        return self._guards.update_proof_number(update)

    def get_proof_status(self, node_id: str) -> ProofNumber | None:
        return self._guards.get_proof_status(node_id)

    def check_circuit_breaker(self, session_id: str, tool: str) -> CircuitBreakerResult:
        """Should the agent stop using `tool` in this session? (reference §1.8)

        With proof data for `session:<sid>:tool:<tool>`, the breaker fires when the node is
        disproven or its proof number is exhausted. Without, it fires once the tool was
        executed as often as its threshold (`Config.circuit_breaker_thresholds`, else 2).
        """
        return self._guards.check_circuit_breaker(session_id, tool)

    def propagate_disproof(self, node_id: str) -> int:
        """Raise the proof numbers of the nodes that depend on a disproven node.

        BFS (in Rust) over the dependency index up to `MAX_PROPAGATION_DEPTH` levels; each
        dependant gets +1 per disproven dependency, and a dependant that becomes disproven or
        exhausted propagates further. All increments are one hard ProofDelta (one generation).
        Returns the number of increments.
        """
        return self._guards.propagate_disproof(node_id)

    def set_clause_config(self, config: ClausePersistence) -> None:
        """Set the default scope, its TTL and the clause limit (journaled)."""
        self._guards.set_clause_config(config)

    @property
    def clause_config(self) -> ClausePersistence:
        return self._guards.clause_config

    def add_clause(self, clause: Clause) -> Clause:
        """Store a copy of a learned clause; returns the stored clause.

        A clause with the same literals as a stored one is not added again: the stored one's
        use count is bumped and it is returned. At `max_clauses`, expired clauses are
        collected first, then the least recently used clause is evicted.

        Raises:
            InvalidArgumentError: the clause is invalid (field named).
            HardSoftBoundaryViolationError: the clause's source is soft.
        """
        return self._guards.add_clause(clause)

    def check_decision_allowed(self, session_id: str, tool: str) -> DecisionCheck:
        """May the session use `tool` next, given the learned clauses? -> (allowed, reason).

        The assignment is one-hot over `tool` (the proposal) and, from the last two steps
        (circuit-breaker interventions skipped), `prev_tool`, `outcome`, `error` and
        `prev_prev_tool`; other families are unassigned.
        The oldest violated clause blocks, and its use is recorded (journaled): on a closed
        CRS a blocking check therefore raises `CRSClosedError` ("clause_used"), while a
        check that blocks nothing is a plain read and still answers.

        The answer never depends on the bookkeeping: when the use cannot be journaled (a
        full disk, `JournalFullError`, or another `JournalError`) it is not recorded (the
        state stays equal to its journal), a warning is logged, and the check still answers
        "blocked".
        """
        return self._guards.check_decision_allowed(session_id, tool)

    def check_assignment(self, assignment: Mapping[str, bool]) -> ClauseCheckResult:
        """Check an explicit assignment (`{"tool:grep": True, ...}`) against every clause.

        Variables missing from `assignment` are unassigned (a clause naming one is not
        violated). Returns the oldest violated clause, if any; its use is not recorded.

        Raises:
            InvalidArgumentError: not a mapping of non-empty names to bools, or two names of
                one variable (`a`, `a:`) with different values.
        """
        return self._guards.check_assignment(assignment)

    def garbage_collect_clauses(self) -> int:
        """Remove clauses older than their scope's TTL; returns how many were removed."""
        return self._guards.garbage_collect_clauses()

    def learn_from_failure(
        self, event: FailureEvent, *, context: int = 1, scope: ClauseScope | None = None
    ) -> Clause | None:
        """Learn a clause from a hard failure's decision path; returns the stored clause.

        The clause forbids the failing decision (its tool) in the same context (the previous
        step's tool, outcome and error; with `context=2` also the tool before). Returns None
        when nothing can be learned: a soft signal, a transient error, or no context.

        Raises:
            InvalidArgumentError: the event is invalid (field named).
        """
        return self._guards.learn_from_failure(event, context=context, scope=scope)

    def record_similarity(self, key1: str, key2: str, distance: float) -> None:
        """Record the distance (0 = identical) between two query keys as a SimilarityDelta."""
        self._guards.record_similarity(key1, key2, distance)

    def get_similarity(self, key1: str, key2: str) -> float | None:
        """The recorded distance between two keys (either order), or None."""
        return self._guards.get_similarity(key1, key2)

    def check_semantic_repetition(
        self, session_id: str, tool: str, query: str, threshold: float = 0.3
    ) -> list[SimilarityMatch]:
        """Record `<tool>:<query>` and return earlier near-duplicates in the session.

        Distances are 1 - estimated Jaccard similarity (MinHash, 128 permutations) of the
        keys' shingles; matches within `threshold` are returned nearest first. A non-empty
        result means the caller may report `FailureType.SEMANTIC_REPETITION`.

        When the query cannot be journaled (a full disk, or another `JournalError`) it is
        not remembered (logged), and the matches are still returned.
        """
        return self._guards.check_semantic_repetition(session_id, tool, query, threshold)

    # ------------------------------------------------------------ persistence (Persistence)

    def refresh(self) -> int:
        """Apply what other processes appended to a shared project journal since this CRS
        last read it (`open_project` journals are shared); returns the records applied.
        Every commit does this first; call it to read their latest state without writing."""
        return self._kernel.refresh()

    def journal_position(self) -> int:
        """Sequence number of the last journal record the state includes (0 = none)."""
        return self._kernel.seq

    def replay_journal(self, journal: Any = None, *, after_seq: int | None = None) -> int:
        """Apply the journal's records after the state's position, without journaling them.

        This is how a new CRS catches up with its journal (`CRS.open` calls it); after a
        backup is loaded it applies the tail. Each record has the effect it had when it was
        committed, generation included, so the state and generation end up the same.

        Args:
            journal: The journal to read; None means the CRS's own.
            after_seq: Start after this sequence number; None means `journal_position()`.

        Returns:
            How many records were applied.

        Raises:
            JournalSequenceGapError: The first record is not the one after the position
                (records were checkpointed away: load the backup that covers them first).
            JournalCorruptedError: A record cannot be read.
        """
        return self._kernel.replay_journal(journal, after_seq=after_seq)

    @classmethod
    def open(
        cls,
        journal: Any,
        config: Config | None = None,
        *,
        session_id: str = "crs",
        **kwargs: Any,
    ) -> Self:
        """A CRS writing to `journal`, after replaying every record it holds.

        Args:
            journal: A crs `Journal` using `DeltaCodec`, or a directory: a `LocalJournal`
                with `DefaultJournalConfig()` (fsync per append) is opened there, and closed
                with the CRS.
            config: CRS configuration (None = `DefaultConfig()`).
            session_id: Session id of a journal opened from a directory.
            **kwargs: Other `CRS` keyword arguments (caps).

        Raises:
            JournalSequenceGapError: The journal was checkpointed past a backup; use
                `open_project` (or `load_checkpoint_from_disk`) to load the backup first.
        """
        owned = None
        if isinstance(journal, str | os.PathLike):
            # Start-up time: the local journal (11 ms) is loaded when a CRS opens one.
            from crs._journal._local import LocalJournal

            cfg = replace(DefaultJournalConfig(), path=os.fspath(journal), session_id=session_id)
            journal = owned = LocalJournal(cfg, DeltaCodec())
        try:
            crs = cls(config, journal=journal, **kwargs)
            if owned is not None:
                crs._own(owned)
            crs.replay_journal()
        except BaseException:
            if owned is not None:
                owned.close()
            raise
        return crs

    def export_image(self) -> BackupImage:
        """The whole state (guard state included) and the journal position it covers.

        Taken in one step under the lock (O(1): versions are shared), encoded outside it.
        """
        return self._persist.export_image()

    def load_image(self, image: BackupImage) -> None:
        """Replace the whole state by a backup image (never merges); its journal position
        becomes the state's. On a CRS that committed nothing the generation becomes the
        image's; otherwise it moves forward (generations never go back)."""
        self._persist.load_image(image)

    def save_checkpoint_to_disk(
        self,
        pm: PersistenceManager,
        project_hash: str,
        journal: Any = None,
        options: BackupOptions | None = None,
    ) -> BackupMetadata:
        """Back up the whole state, then checkpoint the journal as far as both backups allow.

        Args:
            pm: The persistence manager.
            project_hash: The project key (`compute_project_hash`).
            journal: The journal to checkpoint; None means the CRS's own (if any).
            options: `BackupOptions` of the save.

        Returns:
            The metadata of the saved backup.
        """
        return self._persist.save_checkpoint(pm, project_hash, journal, options)

    def load_checkpoint_from_disk(
        self,
        pm: PersistenceManager,
        project_hash: str,
        journal: Any = None,
        *,
        accept_journal_loss: bool = False,
    ) -> BackupMetadata | None:
        """Load the project's backup, then replay the journal records after it.

        Without a backup (a first run) the whole journal is replayed and None is returned.

        Args:
            pm: The persistence manager.
            project_hash: The project key.
            journal: The journal to replay; None means the CRS's own (if any).
            accept_journal_loss: Go on when the journal ends before the backup's position
                (it was deleted or truncated): the state is the backup's, the backups are
                kept beside as `*.journal-loss-<position>` and saved again at the journal's
                position. Without it that case raises.

        Raises:
            JournalCorruptedError: The journal ends before the backup's position (it was
                deleted or truncated; acknowledged records may be lost) and
                `accept_journal_loss` is off. Nothing was changed on disk.
            BackupCorruptedError, MetadataCorruptedError, BackupVersionMismatchError: No
                usable backup.
            JournalSequenceGapError, JournalCorruptedError: The tail cannot be replayed.
        """
        return self._persist.load_checkpoint(pm, project_hash, journal, accept_journal_loss)

    def project_info(self) -> ProjectInfo:
        """Paths and restore figures of a CRS opened by `open_project`."""
        return self._persist.project_info()

    def save_project_backup(self, *, export_json: bool = False) -> BackupMetadata:
        """`save_checkpoint_to_disk` into the project opened by `open_project`."""
        return self._persist.save_project_backup(export_json=export_json)

    # ------------------------------------------------------------ Evaluable (Evaluation)

    @property
    def _eval(self) -> Evaluation:
        part = self._eval_part
        if part is None:
            # inside: start-up (the Evaluable face is for tests and health endpoints)
            from crs._crs_eval import Evaluation

            with self._kernel.lock:  # one Evaluation per CRS, whichever thread asks first
                part = self._eval_part
                if part is None:
                    part = Evaluation(self._kernel, self._guards, self, self._scratch)
                    self._eval_part = part
        return part

    def name(self) -> str:
        """ "crs"."""
        return "crs"

    def properties(self) -> list[PropertyResult]:
        """Check snapshot_immutability, delta_idempotence and generation_monotonic now.

        The changes they need are made on a scratch copy of the current state (O(1) to
        make), never on this CRS; works after `close()` too. Costs O(proof entries + guard
        state): the proof index is compared whole, so call it from tests and health
        endpoints, not from the hot loop.
        """
        return self._eval.properties()

    def metrics(self) -> list[Metric]:
        """crs_generation, and (with `Config.enable_metrics`; otherwise zeros)
        crs_apply_duration and crs_snapshot_duration: count, total, max and mean seconds
        of every apply (validation to commit) and snapshot since the CRS was made."""
        return self._eval.metrics()

    def health_check(self) -> HealthStatus:
        """Bounded indexes against their caps (DEGRADED at a cap: the oldest are evicted),
        the journal (UNHEALTHY when unavailable, DEGRADED when in memory) and the
        lifecycle (DEGRADED once closed: changes are refused)."""
        return self._eval.health_check()

    # ------------------------------------------------------------ session, graph

    def set_session_id(self, session_id: str) -> None:
        """Session recorded with later deltas in the delta history ("" clears it)."""
        if not isinstance(session_id, str):
            raise InvalidArgumentError(f"session_id: must be a str, got {brief(session_id)}")
        self._kernel.check_open("set_session_id")
        self._kernel.session_id = session_id

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
        k = self._kernel
        with k.lock:
            k.check_open("set_graph_provider")
            old = k.graph
            k.graph = provider
            if provider is None:
                k.graph_index = None
            else:
                # inside: start-up (only a CRS given a graph provider loads the graph module)
                from crs._state._graph import GraphBackedDependencyIndex

                k.graph_index = GraphBackedDependencyIndex(provider)
        if old is not None and old is not provider:
            old.close()

    def invalidate_graph_cache(self) -> None:
        """Forget cached graph figures after the graph was refreshed (no-op without one)."""
        index = self._kernel.graph_index
        if index is not None:
            index.invalidate_cache()

    def close(self) -> None:
        """Release resources (the delta history, an owned journal or project); idempotent.

        Later changes raise `CRSClosedError`; reads keep working on the last state.
        """
        with self._kernel.lock:
            if self._kernel.close():
                self._persist.close_owned()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<CRS generation={self.generation()}>"
