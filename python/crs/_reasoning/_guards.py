"""`GuardsMixin`: the decision half of the CRS (issue 4).

Steps, proof numbers, the circuit breaker, disproof propagation, learned clauses and
similarity, as methods of `CRS`. The state ("state" helper) provides the lock, `_commit`
for deltas and `_commit_op` for journaled operations that are not deltas (see CONTRACT.md);
every op handler here is a deterministic function of its payload, and every time a handler
needs is decided before journaling and put into the payload, so replay is exact.

Each handler has two phases: called with the payload, it checks it and computes the effect,
changing nothing (and raising if the op cannot be applied); it returns the function that
applies the effect, which cannot fail. `_commit_op` journals the record between the two, so
a record that cannot be applied is never written (it would brick every later replay).
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from crs._check import brief
from crs._errors import InvalidArgumentError, JournalError
from crs._reasoning._clause_store import (
    ClauseStore,
    ClauseView,
    assignment_result,
    assignment_triples,
)
from crs._reasoning._clauses import (
    DEFAULT_CLAUSE_CONFIG,
    Clause,
    ClauseCheckResult,
    ClausePersistence,
    DecisionCheck,
    FailureEvent,
    decision_context,
)
from crs._reasoning._failure import derive_clause
from crs._reasoning._proof import (
    apply_update,
    circuit_breaker,
    propagation_updates,
    state_node_id,
    threshold_for,
    tool_node_id,
    validate_update,
)
from crs._reasoning._sanitizer import default_sanitizer, redact_step
from crs._reasoning._semantic import SemanticMemory, query_key
from crs._reasoning._steps import (
    StepStore,
    check_storable,
    require_encodable,
    require_id,
    step_payload,
)
from crs._types import (
    MAX_PROPAGATION_DEPTH,
    Actor,
    CircuitBreakerResult,
    ClauseScope,
    Config,
    Outcome,
    ProofNumber,
    ProofUpdate,
    ProofUpdateType,
    SignalSource,
    SimilarityMatch,
    StepRecord,
    now_ms,
)

_log = logging.getLogger("crs.guards")

GUARDS_EXPORT_VERSION = 1
MAX_STATE_KEYS_PER_SESSION = 10_000


def _check_distance(value: object, name: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
    ):
        raise InvalidArgumentError(f"{name}: must be a finite number >= 0, got {brief(value)}")
    return float(value)


def _check_ms(value: object) -> int:
    """A journaled time in ms (an int within 64 bits), else `InvalidArgumentError`."""
    if isinstance(value, bool) or not isinstance(value, int) or not -(1 << 63) <= value < 1 << 63:
        raise InvalidArgumentError(f"now: must be an int time in ms, got {value!r}")
    return value


_E = TypeVar("_E", Actor, Outcome)


def _member(enum_type: type[_E], value: object, name: str) -> _E:
    if isinstance(value, str) and value in enum_type.__members__.values():
        return enum_type(value)
    allowed = ", ".join(m.value for m in enum_type)
    raise InvalidArgumentError(f"{name}: must be one of {allowed}, got {brief(value)}")


class GuardsMixin:
    """Agent-loop guards of `CRS`: steps, proof numbers, circuit breaker, clauses, similarity."""

    if TYPE_CHECKING:
        _lock: threading.RLock
        _config: Config
        _shared_journal: bool

        def _writing(self) -> contextlib.AbstractContextManager[None]: ...

        def _commit(self, delta: Any) -> Any: ...
        def _commit_op(
            self, kind: str, payload: dict[str, Any], *, bump_generation: bool
        ) -> int: ...
        def _register_op(
            self, kind: str, handler: Callable[[dict[str, Any]], Callable[[], None] | None]
        ) -> None: ...
        def snapshot(self) -> Any: ...
        def _check_open(self, what: str) -> None: ...
        def _bfs_depended_by(self, start: str, max_depth: int) -> list[tuple[str, str, int]]: ...

    # ---------------------------------------------------------------- lifecycle

    def _guards_init(self) -> None:
        self._steps = StepStore()
        self._clauses = ClauseStore(DEFAULT_CLAUSE_CONFIG)
        self._semantic = SemanticMemory()
        self._state_tools: dict[str, OrderedDict[str, str]] = {}
        self._pending_step: StepRecord | None = None
        self._last_clause: Clause | None = None
        self._last_gc: list[str] = []
        for kind, handler in (
            ("record_step", self._op_record_step),
            ("clear_step_history", self._op_clear_step_history),
            ("add_clause", self._op_add_clause),
            ("clause_used", self._op_clause_used),
            ("gc_clauses", self._op_gc_clauses),
            ("set_clause_config", self._op_set_clause_config),
            ("record_query", self._op_record_query),
        ):
            self._register_op(kind, handler)

    def _guards_export(self) -> dict[str, Any]:
        with self._lock:
            return {
                "version": GUARDS_EXPORT_VERSION,
                "steps": self._steps.export(),
                "clauses": self._clauses.export(),
                "semantic": self._semantic.export(),
            }

    def _guards_import(self, data: dict[str, Any]) -> None:
        self._guards_parse(data)()

    def _guards_parse(self, data: dict[str, Any]) -> Callable[[], None]:
        """Check and build an export's guard state; returns what installs it (cannot fail)."""
        if not data:
            return self._guards_reset
        if data.get("version") != GUARDS_EXPORT_VERSION:
            raise InvalidArgumentError(
                f"guards: unsupported export version {data.get('version')!r}, "
                f"expected {GUARDS_EXPORT_VERSION}"
            )
        steps = StepStore.from_export(data["steps"])
        clauses = ClauseStore.from_export(data["clauses"])
        semantic = SemanticMemory.from_export(data["semantic"])

        def install() -> None:
            with self._lock:
                self._steps, self._clauses, self._semantic = steps, clauses, semantic
                self._state_tools = {}

        return install

    def _guards_reset(self) -> None:
        self._steps = StepStore()
        self._clauses = ClauseStore(DEFAULT_CLAUSE_CONFIG)
        self._semantic = SemanticMemory()
        self._state_tools = {}

    # ---------------------------------------------------------------- steps

    def record_step(self, step: StepRecord) -> StepRecord:
        """Record a step of a session; returns the stored step.

        A `step_number` below 1 becomes the session's next number and a `timestamp` of 0
        becomes now, both decided before the step is journaled. Each session keeps at most
        `MAX_STEPS_PER_SESSION` steps (the oldest is evicted, counted and logged).

        Raises:
            InvalidArgumentError: a field is invalid (named); nothing is recorded.
        """
        self._check_open("record_step")
        # On a shared journal, first take in other processes' steps (numbers continue them).
        with self._writing() if self._shared_journal else self._lock:
            prepared = self._steps.prepare(step)
            if self._config.sanitize_secrets:  # no secret reaches the journal (issue 11)
                prepared = redact_step(prepared, default_sanitizer())
            self._pending_step = prepared
            try:
                self._commit_op(
                    "record_step", {"step": step_payload(prepared)}, bump_generation=False
                )
            finally:
                self._pending_step = None
            return prepared

    def _op_record_step(self, payload: dict[str, Any]) -> Callable[[], None]:
        step = self._pending_step
        if step is None:  # replay: rebuild from the journaled form
            step = StepRecord.from_dict(payload["step"])
        check_storable(step)

        def apply() -> None:
            gone = self._steps.append(step)
            if gone is not None:
                self._end_session(gone)

        return apply

    def get_step_history(self, session_id: str) -> list[StepRecord]:
        """Every kept step of the session, oldest first ([] for an unknown session)."""
        require_id(session_id, "session_id")
        with self._lock:
            return self._steps.history(session_id)

    def get_last_step(self, session_id: str) -> StepRecord | None:
        require_id(session_id, "session_id")
        with self._lock:
            last = self._steps.last(session_id)
            return last[0] if last else None

    def count_tool_executions(self, session_id: str, tool: str) -> int:
        """How many `execute_tool` steps of `tool` the session holds."""
        require_id(session_id, "session_id")
        require_id(tool, "tool")
        with self._lock:
            return self._steps.count_executions(session_id, tool)

    def get_steps_by_actor(self, session_id: str, actor: Actor | str) -> list[StepRecord]:
        """The session's steps taken by `actor`, oldest first."""
        require_id(session_id, "session_id")
        want = _member(Actor, actor, "actor")
        with self._lock:
            return [s for s in self._steps.history(session_id) if s.actor == want]

    def get_steps_by_outcome(self, session_id: str, outcome: Outcome | str) -> list[StepRecord]:
        """The session's steps that ended with `outcome`, oldest first."""
        require_id(session_id, "session_id")
        want = _member(Outcome, outcome, "outcome")
        with self._lock:
            return [s for s in self._steps.history(session_id) if s.outcome == want]

    def clear_step_history(self, session_id: str) -> None:
        """End a session: drop its steps, remembered queries and session-scoped clauses."""
        self._check_open("clear_step_history")
        require_id(session_id, "session_id")
        with self._lock:
            self._commit_op("clear_step_history", {"session_id": session_id}, bump_generation=False)

    def _op_clear_step_history(self, payload: dict[str, Any]) -> Callable[[], None]:
        sid = require_id(payload["session_id"], "session_id")

        def apply() -> None:
            self._steps.clear(sid)
            self._end_session(sid)

        return apply

    def _end_session(self, sid: str) -> None:
        self._clauses.end_session(sid)
        self._semantic.clear(sid)
        self._state_tools.pop(sid, None)

    # ---------------------------------------------------------------- proof numbers

    def _proof(self, node_id: str) -> ProofNumber | None:
        node: ProofNumber | None = self.snapshot().proof_index().get(node_id)
        return node

    def update_proof_number(self, update: ProofUpdate) -> ProofNumber:
        """Apply one proof-number update (saturating) as one ProofDelta; returns the new value.

        Raises:
            InvalidArgumentError: the update is invalid (field named).
            HardSoftBoundaryViolationError: a soft signal tries to disprove (no node is created).
        """
        self._check_open("update_proof_number")
        validate_update(update)
        from crs._state._deltas import ProofDelta

        with self._lock:
            node = apply_update(self._proof(update.node_id), update, now_ms())
            self._commit(ProofDelta(SignalSource(update.source), {update.node_id: node}))
            return node

    def get_proof_status(self, node_id: str) -> ProofNumber | None:
        require_id(node_id, "node_id")
        with self._lock:
            return self._proof(node_id)

    def check_circuit_breaker(self, session_id: str, tool: str) -> CircuitBreakerResult:
        """Should the agent stop using `tool` in this session? (reference §1.8)

        With proof data for `session:<sid>:tool:<tool>`, the breaker fires when the node is
        disproven or its proof number is exhausted. Without, it fires once the tool was
        executed as often as its threshold (`Config.circuit_breaker_thresholds`, else 2).
        """
        require_id(session_id, "session_id")
        require_id(tool, "tool")
        with self._lock:
            node = self._proof(tool_node_id(session_id, tool))
            count = self._steps.count_executions(session_id, tool) if node is None else 0
            threshold = threshold_for(self._config.circuit_breaker_thresholds, tool)
            return circuit_breaker(tool, node, count, threshold)

    def propagate_disproof(self, node_id: str) -> int:
        """Raise the proof numbers of the nodes that depend on a disproven node.

        BFS (in Rust) over the dependency index up to `MAX_PROPAGATION_DEPTH` levels; each
        dependant gets +1 per disproven dependency, and a dependant that becomes disproven or
        exhausted propagates further. All increments are one hard ProofDelta (one generation).
        Returns the number of increments.
        """
        self._check_open("propagate_disproof")
        require_id(node_id, "node_id")
        from crs._state._deltas import ProofDelta

        with self._lock:
            edges = self._bfs_depended_by(node_id, MAX_PROPAGATION_DEPTH)
            if not edges:
                return 0
            index = self.snapshot().proof_index()
            updates, count = propagation_updates(node_id, edges, index.get, now_ms())
            if updates:
                self._commit(ProofDelta(SignalSource.HARD, updates))
            return count

    def _disprove_cycle(self, session_id: str, states: list[str], tools: list[str]) -> None:
        from crs._state._deltas import ProofDelta

        nodes = [state_node_id(session_id, s) for s in dict.fromkeys(states)]
        nodes += [tool_node_id(session_id, t) for t in tools]
        reason = f"cycle_detected:[{' '.join(states)}]"
        with self._lock:
            now = now_ms()
            updates = {
                n: apply_update(
                    self._proof(n),
                    ProofUpdate(
                        node_id=n,
                        type=ProofUpdateType.DISPROVEN,
                        reason=reason,
                        source=SignalSource.HARD,
                    ),
                    now,
                )
                for n in nodes
            }
            self._commit(ProofDelta(SignalSource.HARD, updates))

    def _note_state_key(self, session_id: str, key: str, tool: str) -> None:
        with self._lock:
            keys = self._state_tools.setdefault(session_id, OrderedDict())
            keys[key] = tool
            keys.move_to_end(key)
            if len(keys) > MAX_STATE_KEYS_PER_SESSION:
                keys.popitem(last=False)

    def _tools_of_states(self, session_id: str, states: Any) -> list[str]:
        with self._lock:
            keys: Mapping[str, str] = self._state_tools.get(session_id, {})
            tools = (keys.get(s, "") for s in states)
            return [t for t in dict.fromkeys(tools) if t]

    # ---------------------------------------------------------------- clauses

    def set_clause_config(self, config: ClausePersistence) -> None:
        """Set the default scope, its TTL and the clause limit (journaled)."""
        self._check_open("set_clause_config")
        if not isinstance(config, ClausePersistence):
            raise InvalidArgumentError(
                f"config: must be a ClausePersistence, got {type(config).__name__}"
            )
        config.validate()
        with self._lock:
            self._commit_op("set_clause_config", {"config": config.to_dict()}, bump_generation=True)

    def _op_set_clause_config(self, payload: dict[str, Any]) -> Callable[[], None]:
        config = ClausePersistence.from_dict(payload["config"])
        config.validate()
        return lambda: self._clauses.set_config(config)

    @property
    def clause_config(self) -> ClausePersistence:
        return self._clauses.config

    def add_clause(self, clause: Clause) -> Clause:
        """Store a copy of a learned clause; returns the stored clause.

        A clause with the same literals as a stored one is not added again: the stored one's
        use count is bumped and it is returned. At `max_clauses`, expired clauses are
        collected first, then the least recently used clause is evicted.

        Raises:
            InvalidArgumentError: the clause is invalid (field named).
            HardSoftBoundaryViolationError: the clause's source is soft.
        """
        self._check_open("add_clause")
        if not isinstance(clause, Clause):
            raise InvalidArgumentError(f"clause: must be a Clause, got {type(clause).__name__}")
        clause.validate()
        with self._lock:
            payload = {"clause": clause.to_dict(), "now": now_ms()}
            self._commit_op("add_clause", payload, bump_generation=True)
            stored = self._last_clause
            assert stored is not None
            return stored

    def _op_add_clause(self, payload: dict[str, Any]) -> Callable[[], None]:
        clause = Clause.from_dict(payload["clause"])
        clause.validate()
        now = _check_ms(payload["now"])

        def apply() -> None:
            self._last_clause = self._clauses.add(clause, now)

        return apply

    def _guards_clause_view(self) -> ClauseView:
        """The learned clauses for `snapshot().constraint_index()` (immutable, cached)."""
        with self._lock:
            return self._clauses.view()

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
        require_id(session_id, "session_id")
        require_id(tool, "tool")
        with self._lock:
            observed = decision_context(self._steps.last_decisions(session_id, 2))
            observed["tool"] = tool
            clause = self._clauses.first_violated(session_id, observed)
            if clause is None:
                return DecisionCheck(True, "")
            self._bookkeep("clause_used", {"id": clause.id, "now": now_ms()})
            return DecisionCheck(False, f"violates learned clause {clause.id}: {clause}")

    def _bookkeep(self, kind: str, payload: dict[str, Any]) -> None:
        """Journal a guard query's bookkeeping op; a journal failure skips it (logged)."""
        try:
            self._commit_op(kind, payload, bump_generation=False)
        except JournalError as exc:
            _log.warning("%s not recorded (the answer stands): %s", kind, exc)

    def _op_clause_used(self, payload: dict[str, Any]) -> Callable[[], None]:
        cid = require_id(payload["id"], "id")
        now = _check_ms(payload["now"])
        return lambda: self._clauses.record_use(cid, now)

    def check_assignment(self, assignment: Mapping[str, bool]) -> ClauseCheckResult:
        """Check an explicit assignment (`{"tool:grep": True, ...}`) against every clause.

        Variables missing from `assignment` are unassigned (a clause naming one is not
        violated). Returns the oldest violated clause, if any; its use is not recorded.

        Raises:
            InvalidArgumentError: not a mapping of non-empty names to bools, or two names of
                one variable (`a`, `a:`) with different values.
        """
        if type(assignment) is dict:
            try:  # fast path: keys and values checked, names split, all in Rust
                with self._lock:
                    return assignment_result(self._clauses.first_violated_names(assignment))
            except (TypeError, ValueError):
                pass  # bad input or a contradiction: the path below raises the typed error
        triples = assignment_triples(assignment)
        with self._lock:
            return assignment_result(self._clauses.first_violated_assignment(triples))

    def garbage_collect_clauses(self) -> int:
        """Remove clauses older than their scope's TTL; returns how many were removed."""
        self._check_open("garbage_collect_clauses")
        with self._lock:
            now = now_ms()
            if not self._clauses.expired_ids(now):
                return 0
            self._commit_op("gc_clauses", {"now": now}, bump_generation=True)
            return len(self._last_gc)

    def _op_gc_clauses(self, payload: dict[str, Any]) -> Callable[[], None]:
        now = _check_ms(payload["now"])

        def apply() -> None:
            self._last_gc = self._clauses.garbage_collect(now)

        return apply

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
        self._check_open("learn_from_failure")
        if not isinstance(event, FailureEvent):
            raise InvalidArgumentError(f"event: must be a FailureEvent, got {type(event).__name__}")
        event.validate()
        clause = derive_clause(event, context=context, scope=scope)
        return None if clause is None else self.add_clause(clause)

    # ---------------------------------------------------------------- similarity

    def record_similarity(self, key1: str, key2: str, distance: float) -> None:
        """Record the distance (0 = identical) between two query keys as a SimilarityDelta."""
        self._check_open("record_similarity")
        require_id(key1, "key1")
        require_id(key2, "key2")
        if key1 == key2:
            raise InvalidArgumentError("key2: must differ from key1 (no self-similarity)")
        d = _check_distance(distance, "distance")
        from crs._state._deltas import SimilarityDelta

        with self._lock:
            self._commit(SimilarityDelta(SignalSource.SOFT, {(key1, key2): d}))

    def get_similarity(self, key1: str, key2: str) -> float | None:
        """The recorded distance between two keys (either order), or None."""
        require_id(key1, "key1")
        require_id(key2, "key2")
        with self._lock:
            d: float | None = self.snapshot().similarity_index().distance(key1, key2)
            return d

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
        self._check_open("check_semantic_repetition")
        require_id(session_id, "session_id")
        require_id(tool, "tool")
        if not isinstance(query, str):
            raise InvalidArgumentError(f"query: must be a string, got {type(query).__name__}")
        require_encodable(query, "query")
        t = _check_distance(threshold, "threshold")
        if t > 1:
            raise InvalidArgumentError(f"threshold: must be a distance in [0, 1], got {t}")
        key = query_key(tool, query)
        with self._lock:
            found = self._semantic.matches(session_id, key, t)
            self._bookkeep("record_query", {"session_id": session_id, "key": key})
            return found

    def _op_record_query(self, payload: dict[str, Any]) -> Callable[[], None]:
        sid = require_id(payload["session_id"], "session_id")
        key = require_id(payload["key"], "key")
        return lambda: self._semantic.add(sid, key)
