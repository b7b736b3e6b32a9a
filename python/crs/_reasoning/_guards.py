"""`Guards`: the decision half of the CRS (issue 4), a part holding the state kernel.

Steps, proof numbers, the circuit breaker, disproof propagation, learned clauses and
similarity; the `CRS` facade documents them and calls in here. The kernel
(`crs._kernel.StateKernel`) provides the lock, `commit` for deltas and `commit_op` for
journaled operations that are not deltas; every op handler here is a deterministic function
of its payload, and every time a handler needs is decided before journaling and put into
the payload, so replay is exact.

Each handler has two phases: called with the payload, it checks it and computes the effect,
changing nothing (and raising if the op cannot be applied); it returns the function that
applies the effect, which cannot fail and whose result `commit_op` returns. The kernel
journals the record between the two, so a record that cannot be applied is never written
(it would brick every later replay).

`Guards` is also the image part whose export is the image's "guards" section (steps,
clauses, semantic memory; `GUARDS_EXPORT_VERSION`).
"""

from __future__ import annotations

import logging
import math
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from crs._check import brief, fail
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
from crs._state._deltas import ProofDelta, SimilarityDelta
from crs._types import (
    MAX_PROPAGATION_DEPTH,
    Actor,
    CircuitBreakerResult,
    ClauseScope,
    Outcome,
    ProofNumber,
    ProofUpdate,
    ProofUpdateType,
    SignalSource,
    SimilarityMatch,
    StepRecord,
    now_ms,
)

if TYPE_CHECKING:
    from crs._kernel import StateKernel

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


def guards_of(crs: object, name: str = "crs") -> Guards:
    """The `Guards` part of a `CRS` (what `check_cycle_on_step` and the session analysis
    work on), else `InvalidArgumentError` naming the argument."""
    guards = getattr(crs, "_guards", None)
    if not isinstance(guards, Guards):
        fail(name, "a crs.CRS", crs)
    return guards


class Guards:
    """Agent-loop guards of a CRS: steps, proof numbers, circuit breaker, clauses,
    similarity (the `CRS` methods of the same names document them)."""

    def __init__(self, kernel: StateKernel) -> None:
        self._k = kernel
        self._lock = kernel.lock
        self._config = kernel.config
        # The stores (replaced whole by `install`; read them under the kernel's lock).
        self.steps = StepStore()
        self.clauses = ClauseStore(DEFAULT_CLAUSE_CONFIG)
        self.semantic = SemanticMemory()
        self._state_tools: dict[str, OrderedDict[str, str]] = {}
        self._pending_step: StepRecord | None = None
        for kind, handler in (
            ("record_step", self._op_record_step),
            ("clear_step_history", self._op_clear_step_history),
            ("add_clause", self._op_add_clause),
            ("clause_used", self._op_clause_used),
            ("gc_clauses", self._op_gc_clauses),
            ("set_clause_config", self._op_set_clause_config),
            ("record_query", self._op_record_query),
        ):
            kernel.register_op(kind, handler)

    # ---------------------------------------------------------------- image part

    def export(self) -> dict[str, Any]:
        with self._lock:
            return {
                "version": GUARDS_EXPORT_VERSION,
                "steps": self.steps.export(),
                "clauses": self.clauses.export(),
                "semantic": self.semantic.export(),
            }

    def parse(
        self, data: dict[str, Any] | None
    ) -> tuple[StepStore, ClauseStore, SemanticMemory] | None:
        """Check and build an export's guard state (None: the empty state)."""
        if not data:
            return None
        if data.get("version") != GUARDS_EXPORT_VERSION:
            raise InvalidArgumentError(
                f"guards: unsupported export version {data.get('version')!r}, "
                f"expected {GUARDS_EXPORT_VERSION}"
            )
        return (
            StepStore.from_export(data["steps"]),
            ClauseStore.from_export(data["clauses"]),
            SemanticMemory.from_export(data["semantic"]),
        )

    def held(self) -> tuple[StepStore, ClauseStore, SemanticMemory]:
        """The stores as they are, for `install` to put back (O(1): `install` replaces the
        stores, nothing changes one in place once it is replaced)."""
        with self._lock:
            return self.steps, self.clauses, self.semantic

    def install(self, parsed: tuple[StepStore, ClauseStore, SemanticMemory] | None) -> None:
        with self._lock:
            if parsed is None:
                parsed = StepStore(), ClauseStore(DEFAULT_CLAUSE_CONFIG), SemanticMemory()
            self.steps, self.clauses, self.semantic = parsed
            self._state_tools = {}

    # ---------------------------------------------------------------- steps

    def record_step(self, step: StepRecord) -> StepRecord:
        k = self._k
        k.check_open("record_step")
        # On a shared journal, first take in other processes' steps (numbers continue them).
        with k.writing():
            prepared = self.steps.prepare(step)
            if self._config.sanitize_secrets:  # no secret reaches the journal (issue 11)
                prepared = redact_step(prepared, default_sanitizer())
            self._pending_step = prepared
            try:
                k.commit_op("record_step", {"step": step_payload(prepared)}, bump_generation=False)
            finally:
                self._pending_step = None
            return prepared

    def _op_record_step(self, payload: dict[str, Any]) -> Callable[[], None]:
        step = self._pending_step
        if step is None:  # replay: rebuild from the journaled form
            step = StepRecord.from_dict(payload["step"])
        check_storable(step)

        def apply() -> None:
            gone = self.steps.append(step)
            if gone is not None:
                self._end_session(gone)

        return apply

    def get_step_history(self, session_id: str) -> list[StepRecord]:
        require_id(session_id, "session_id")
        with self._lock:
            return self.steps.history(session_id)

    def get_last_step(self, session_id: str) -> StepRecord | None:
        require_id(session_id, "session_id")
        with self._lock:
            last = self.steps.last(session_id)
            return last[0] if last else None

    def count_tool_executions(self, session_id: str, tool: str) -> int:
        require_id(session_id, "session_id")
        require_id(tool, "tool")
        with self._lock:
            return self.steps.count_executions(session_id, tool)

    def get_steps_by_actor(self, session_id: str, actor: Actor | str) -> list[StepRecord]:
        require_id(session_id, "session_id")
        want = _member(Actor, actor, "actor")
        with self._lock:
            return [s for s in self.steps.history(session_id) if s.actor == want]

    def get_steps_by_outcome(self, session_id: str, outcome: Outcome | str) -> list[StepRecord]:
        require_id(session_id, "session_id")
        want = _member(Outcome, outcome, "outcome")
        with self._lock:
            return [s for s in self.steps.history(session_id) if s.outcome == want]

    def clear_step_history(self, session_id: str) -> None:
        self._k.check_open("clear_step_history")
        require_id(session_id, "session_id")
        self._k.commit_op("clear_step_history", {"session_id": session_id}, bump_generation=False)

    def _op_clear_step_history(self, payload: dict[str, Any]) -> Callable[[], None]:
        sid = require_id(payload["session_id"], "session_id")

        def apply() -> None:
            self.steps.clear(sid)
            self._end_session(sid)

        return apply

    def _end_session(self, sid: str) -> None:
        self.clauses.end_session(sid)
        self.semantic.clear(sid)
        self._state_tools.pop(sid, None)

    # ---------------------------------------------------------------- proof numbers

    def _proof(self, node_id: str) -> ProofNumber | None:
        node: ProofNumber | None = self._k.snapshot().proof_index().get(node_id)
        return node

    def update_proof_number(self, update: ProofUpdate) -> ProofNumber:
        self._k.check_open("update_proof_number")
        validate_update(update)
        with self._lock:
            node = apply_update(self._proof(update.node_id), update, now_ms())
            self._k.commit(ProofDelta(SignalSource(update.source), {update.node_id: node}))
            return node

    def get_proof_status(self, node_id: str) -> ProofNumber | None:
        require_id(node_id, "node_id")
        with self._lock:
            return self._proof(node_id)

    def check_circuit_breaker(self, session_id: str, tool: str) -> CircuitBreakerResult:
        require_id(session_id, "session_id")
        require_id(tool, "tool")
        with self._lock:
            node = self._proof(tool_node_id(session_id, tool))
            count = self.steps.count_executions(session_id, tool) if node is None else 0
            threshold = threshold_for(self._config.circuit_breaker_thresholds, tool)
            return circuit_breaker(tool, node, count, threshold)

    def propagate_disproof(self, node_id: str) -> int:
        self._k.check_open("propagate_disproof")
        require_id(node_id, "node_id")
        with self._lock:
            edges = self._k.bfs_depended_by(node_id, MAX_PROPAGATION_DEPTH)
            if not edges:
                return 0
            index = self._k.snapshot().proof_index()
            updates, count = propagation_updates(node_id, edges, index.get, now_ms())
            if updates:
                self._k.commit(ProofDelta(SignalSource.HARD, updates))
            return count

    def disprove_cycle(self, session_id: str, states: list[str], tools: list[str]) -> None:
        """Disprove every state and tool of a detected cycle, in one hard ProofDelta."""
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
            self._k.commit(ProofDelta(SignalSource.HARD, updates))

    def note_state_key(self, session_id: str, key: str, tool: str) -> None:
        """Remember which tool a state key of the session came from (for `disprove_cycle`)."""
        with self._lock:
            keys = self._state_tools.setdefault(session_id, OrderedDict())
            keys[key] = tool
            keys.move_to_end(key)
            if len(keys) > MAX_STATE_KEYS_PER_SESSION:
                keys.popitem(last=False)

    def tools_of_states(self, session_id: str, states: Any) -> list[str]:
        """The tools `note_state_key` saw for these states, first-seen order."""
        with self._lock:
            keys: Mapping[str, str] = self._state_tools.get(session_id, {})
            tools = (keys.get(s, "") for s in states)
            return [t for t in dict.fromkeys(tools) if t]

    # ---------------------------------------------------------------- clauses

    def set_clause_config(self, config: ClausePersistence) -> None:
        self._k.check_open("set_clause_config")
        if not isinstance(config, ClausePersistence):
            raise InvalidArgumentError(
                f"config: must be a ClausePersistence, got {type(config).__name__}"
            )
        config.validate()
        self._k.commit_op("set_clause_config", {"config": config.to_dict()}, bump_generation=True)

    def _op_set_clause_config(self, payload: dict[str, Any]) -> Callable[[], None]:
        config = ClausePersistence.from_dict(payload["config"])
        config.validate()
        return lambda: self.clauses.set_config(config)

    @property
    def clause_config(self) -> ClausePersistence:
        return self.clauses.config

    def add_clause(self, clause: Clause) -> Clause:
        self._k.check_open("add_clause")
        if not isinstance(clause, Clause):
            raise InvalidArgumentError(f"clause: must be a Clause, got {type(clause).__name__}")
        clause.validate()
        with self._lock:  # `now` taken under the lock: journal order is time order
            payload = {"clause": clause.to_dict(), "now": now_ms()}
            stored: Clause = self._k.commit_op("add_clause", payload, bump_generation=True)
            return stored

    def _op_add_clause(self, payload: dict[str, Any]) -> Callable[[], Clause]:
        clause = Clause.from_dict(payload["clause"])
        clause.validate()
        now = _check_ms(payload["now"])
        return lambda: self.clauses.add(clause, now)

    def clause_view(self) -> ClauseView:
        """The learned clauses for `snapshot().constraint_index()` (immutable, cached)."""
        with self._lock:
            return self.clauses.view()

    def check_decision_allowed(self, session_id: str, tool: str) -> DecisionCheck:
        require_id(session_id, "session_id")
        require_id(tool, "tool")
        with self._lock:
            observed = decision_context(self.steps.last_decisions(session_id, 2))
            observed["tool"] = tool
            clause = self.clauses.first_violated(session_id, observed)
            if clause is None:
                return DecisionCheck(True, "")
            self._bookkeep("clause_used", {"id": clause.id, "now": now_ms()})
            return DecisionCheck(False, f"violates learned clause {clause.id}: {clause}")

    def _bookkeep(self, kind: str, payload: dict[str, Any]) -> None:
        """Journal a guard query's bookkeeping op; a journal failure skips it (logged)."""
        try:
            self._k.commit_op(kind, payload, bump_generation=False)
        except JournalError as exc:
            _log.warning("%s not recorded (the answer stands): %s", kind, exc)

    def _op_clause_used(self, payload: dict[str, Any]) -> Callable[[], None]:
        cid = require_id(payload["id"], "id")
        now = _check_ms(payload["now"])
        return lambda: self.clauses.record_use(cid, now)

    def check_assignment(self, assignment: Mapping[str, bool]) -> ClauseCheckResult:
        if type(assignment) is dict:
            try:  # fast path: keys and values checked, names split, all in Rust
                with self._lock:
                    return assignment_result(self.clauses.first_violated_names(assignment))
            except (TypeError, ValueError):
                pass  # bad input or a contradiction: the path below raises the typed error
        triples = assignment_triples(assignment)
        with self._lock:
            return assignment_result(self.clauses.first_violated_assignment(triples))

    def garbage_collect_clauses(self) -> int:
        self._k.check_open("garbage_collect_clauses")
        with self._lock:
            now = now_ms()
            if not self.clauses.expired_ids(now):
                return 0
            gone: list[str] = self._k.commit_op("gc_clauses", {"now": now}, bump_generation=True)
            return len(gone)

    def _op_gc_clauses(self, payload: dict[str, Any]) -> Callable[[], list[str]]:
        now = _check_ms(payload["now"])
        return lambda: self.clauses.garbage_collect(now)

    def learn_from_failure(
        self, event: FailureEvent, *, context: int = 1, scope: ClauseScope | None = None
    ) -> Clause | None:
        self._k.check_open("learn_from_failure")
        if not isinstance(event, FailureEvent):
            raise InvalidArgumentError(f"event: must be a FailureEvent, got {type(event).__name__}")
        event.validate()
        clause = derive_clause(event, context=context, scope=scope)
        return None if clause is None else self.add_clause(clause)

    # ---------------------------------------------------------------- similarity

    def record_similarity(self, key1: str, key2: str, distance: float) -> None:
        self._k.check_open("record_similarity")
        require_id(key1, "key1")
        require_id(key2, "key2")
        if key1 == key2:
            raise InvalidArgumentError("key2: must differ from key1 (no self-similarity)")
        d = _check_distance(distance, "distance")
        self._k.commit(SimilarityDelta(SignalSource.SOFT, {(key1, key2): d}))

    def get_similarity(self, key1: str, key2: str) -> float | None:
        require_id(key1, "key1")
        require_id(key2, "key2")
        d: float | None = self._k.snapshot().similarity_index().distance(key1, key2)
        return d

    def check_semantic_repetition(
        self, session_id: str, tool: str, query: str, threshold: float = 0.3
    ) -> list[SimilarityMatch]:
        self._k.check_open("check_semantic_repetition")
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
            found = self.semantic.matches(session_id, key, t)
            self._bookkeep("record_query", {"session_id": session_id, "key": key})
            return found

    def _op_record_query(self, payload: dict[str, Any]) -> Callable[[], None]:
        sid = require_id(payload["session_id"], "session_id")
        key = require_id(payload["key"], "key")
        return lambda: self.semantic.add(sid, key)
