"""The session bridge: an `ecc.session.v1` session's workers, fed into a `crs.CRS`.

Each change of a worker's state becomes, in the CRS session with the same id as the
`ecc.session.v1` session,

* a `StepRecord` (tool = the worker id, time = when the state was recorded), so the circuit
  breaker, loop detection and clause learning act on the workers as on any agent's steps, and
* a `HistoryEntry` on node `session:<sid>:worker:<worker id>` (id `<node>@<ms>#<step number>`,
  action `<previous> -> <state>`, result = the new state, metadata = health, times, step
  number...), applied as a hard `HistoryDelta`. It is written after the step and is the
  bridge's record of what it fed.

Steps are chosen from the worker's new state (exact strings, as the contract's health rules):

====================================  ==========  ============  =======  ========  ========
worker state                          actor       decision      outcome  error     terminal
====================================  ==========  ============  =======  ========  ========
running, active                       main_agent  execute_tool  success            no
completed, succeeded, success, done   main_agent  complete      success            yes
recorded (claude-history)             main_agent  complete      success            yes
failed, error                         main_agent  error         failure  internal  no
not started, pending, queued, idle    system      select_tool   success            no
anything else (e.g. unknown)          system      select_tool   skipped            no
====================================  ==========  ============  =======  ========  ========

Each (re)start of a worker is an `execute_tool` step of the tool `<worker id>`, so a worker
launched again after it failed counts towards the circuit breaker's threshold, and a worker
flapping running -> failed -> running -> failed repeats its state keys (a cycle).

Feeding is idempotent. The bridge feeds a worker's observed state only when it is later (in
Unix ms) than the last state it fed for that worker and differs from it; observations with the
same millisecond count as later only within one `feed` call. The last fed state is read back
from the CRS's history index (the worker node's newest entry), so a new bridge on the same
CRS, or on a CRS restored from a backup of it, feeds nothing twice. (If the history index
evicted all of a worker's entries, the worker is taken as new.) The step is written first and
the history entry last: if the entry cannot be written (a journal error), the change is fed
again next time. A bridge caches what it read from the CRS: after `CRS.restore(...)`, make a
new bridge.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from crs._crs import CRS
from crs._errors import ContractError, InvalidArgumentError
from crs._state._deltas import HistoryDelta
from crs._types import (
    Actor,
    Decision,
    ErrorCategory,
    Outcome,
    SignalSource,
    StepRecord,
    now_ms,
)
from crs._types import HistoryEntry as CRSHistoryEntry
from crs.sessions._model import DEFAULT_HISTORY_LIMIT, CanonicalSnapshot, StructuredTarget
from crs.sessions._recorder import (
    HistoryEntry,
    WorkerStateChange,
    read_session_history,
    store_path,
)
from crs.sessions._registry import SessionAdapter, inspect_session_target
from crs.sessions._validate import validate_canonical_snapshot

_METADATA_VALUE_BYTES = 4096  # the HistoryDelta limit per metadata value


class StepMapping(NamedTuple):
    """How a worker state becomes a step: actor, decision, outcome, error category, terminal."""

    actor: Actor
    decision: Decision
    outcome: Outcome
    error_category: ErrorCategory
    terminal: bool


_RUN = StepMapping(
    Actor.MAIN_AGENT, Decision.EXECUTE_TOOL, Outcome.SUCCESS, ErrorCategory.NONE, False
)
_DONE = StepMapping(Actor.MAIN_AGENT, Decision.COMPLETE, Outcome.SUCCESS, ErrorCategory.NONE, True)
_FAIL = StepMapping(
    Actor.MAIN_AGENT, Decision.ERROR, Outcome.FAILURE, ErrorCategory.INTERNAL, False
)
_WAIT = StepMapping(Actor.SYSTEM, Decision.SELECT_TOOL, Outcome.SUCCESS, ErrorCategory.NONE, False)
_OTHER = StepMapping(Actor.SYSTEM, Decision.SELECT_TOOL, Outcome.SKIPPED, ErrorCategory.NONE, False)
_STATE_STEPS: dict[str, StepMapping] = {
    **dict.fromkeys(("running", "active"), _RUN),
    **dict.fromkeys(("completed", "succeeded", "success", "done", "recorded"), _DONE),
    **dict.fromkeys(("failed", "error"), _FAIL),
    **dict.fromkeys(("not started", "pending", "queued", "idle"), _WAIT),
}


def map_worker_state(state: str) -> StepMapping:
    """The step a worker's new `state` becomes (the table in `crs.sessions._bridge`).

    >>> map_worker_state("failed").decision, map_worker_state("failed").error_category
    (<Decision.ERROR: 'error'>, <ErrorCategory.INTERNAL: 'internal'>)
    >>> map_worker_state("Running").outcome  # exact strings only: unknown states are skipped
    <Outcome.SKIPPED: 'skipped'>
    """
    if not isinstance(state, str):
        raise InvalidArgumentError(f"state: must be a str, got {type(state).__name__}")
    return _STATE_STEPS.get(state, _OTHER)


def worker_node_id(session_id: str, worker_id: str) -> str:
    """The CRS node of a worker's history entries.

    >>> worker_node_id("nightly", "seed-check")
    'session:nightly:worker:seed-check'
    """
    return f"session:{session_id}:worker:{worker_id}"


class BridgedChange(NamedTuple):
    """One worker state change the bridge fed: the change, its step and its history entry."""

    change: WorkerStateChange
    step: StepRecord
    entry: CRSHistoryEntry


class _Observation(NamedTuple):
    session_id: str
    worker_id: str
    state: str
    health: str
    recorded_at: str
    recorded_at_ms: int
    previous_state: str | None
    label: str
    objective: str
    adapter_id: str


class _Cursor(NamedTuple):
    ms: int
    state: str


def _ms_to_iso(ms: int) -> str:
    text = datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def _iso_to_ms(text: str, name: str) -> int:
    try:
        moment = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{name}: must be an ISO-8601 time such as '2026-11-30T12:00:00.000Z', got {text!r}"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)  # as `worker_state_changes` computes it


def _clip(text: str) -> str:
    data = text.encode()
    if len(data) <= _METADATA_VALUE_BYTES:
        return text
    return data[:_METADATA_VALUE_BYTES].decode(errors="ignore")


def _text(value: object, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidArgumentError(f"{name}: must be a non-empty string, got {value!r}")
    return value


def _snapshot_observations(
    snapshot: Any, recorded_at: str, ms: int, name: str
) -> list[_Observation]:
    if not isinstance(snapshot, Mapping):
        raise InvalidArgumentError(
            f"{name}: must be an ecc.session.v1 snapshot (a dict), got {type(snapshot).__name__}"
        )
    try:
        validate_canonical_snapshot(snapshot)
    except ContractError as exc:
        raise ContractError(f"{name}: {exc}", exc.errors()) from exc
    sid = snapshot["session"]["id"]
    return [
        _Observation(
            sid,
            w["id"],
            w["state"],
            w["health"],
            recorded_at,
            ms,
            None,
            w["label"],
            w["intent"]["objective"],
            snapshot["adapterId"],
        )
        for w in snapshot["workers"]
    ]


def _change_observation(change: WorkerStateChange, name: str) -> _Observation:
    sid = _text(change.session_id, f"{name}.session_id")
    wid = _text(change.worker_id, f"{name}.worker_id")
    state = _text(change.state, f"{name}.state")
    health = _text(change.health, f"{name}.health")
    if change.previous_state is not None and not isinstance(change.previous_state, str):
        raise InvalidArgumentError(
            f"{name}.previous_state: must be a str or None, got {change.previous_state!r}"
        )
    ms = change.recorded_at_ms
    if isinstance(ms, bool) or not isinstance(ms, int) or ms < 0:
        raise InvalidArgumentError(f"{name}.recorded_at_ms: must be an int >= 0, got {ms!r}")
    recorded_at = change.recorded_at if isinstance(change.recorded_at, str) else ""
    return _Observation(
        sid, wid, state, health, recorded_at or _ms_to_iso(ms), ms, change.previous_state, "",
        "", "",
    )  # fmt: skip


def _observations(source: object, recorded_at_ms: int | None) -> list[_Observation]:
    """Every worker observation in `source`, validated, ordered by time (stable)."""
    if isinstance(source, Mapping):
        if recorded_at_ms is None:
            ms = now_ms()
        elif isinstance(recorded_at_ms, bool) or not isinstance(recorded_at_ms, int):
            raise InvalidArgumentError(
                f"recorded_at_ms: must be Unix milliseconds (int) or None, got {recorded_at_ms!r}"
            )
        else:
            ms = recorded_at_ms
        return _snapshot_observations(source, _ms_to_iso(ms), ms, "source")
    if recorded_at_ms is not None:
        raise InvalidArgumentError(
            "recorded_at_ms: only applies to a single snapshot; recorded history and state "
            "changes carry their own times"
        )
    if isinstance(source, str | bytes) or not isinstance(source, Sequence):
        raise InvalidArgumentError(
            "source: must be an ecc.session.v1 snapshot, a list of recorded history entries "
            "(read_session_history) or a list of WorkerStateChange values, "
            f"got {type(source).__name__}"
        )
    out: list[_Observation] = []
    for i, item in enumerate(source):
        name = f"source[{i}]"
        if isinstance(item, WorkerStateChange):
            out.append(_change_observation(item, name))
        elif isinstance(item, HistoryEntry):
            at = _text(item.recorded_at, f"{name}.recorded_at")
            ms = _iso_to_ms(at, f"{name}.recorded_at")
            out.extend(_snapshot_observations(item.snapshot, at, ms, f"{name}.snapshot"))
        else:
            raise InvalidArgumentError(
                f"{name}: must be a crs.sessions.HistoryEntry or WorkerStateChange, "
                f"got {type(item).__name__}"
            )
    out.sort(key=lambda o: o.recorded_at_ms)
    return out


class SessionBridge:
    """Feeds the workers of `ecc.session.v1` sessions into a `crs.CRS` (see the module doc).

    Args:
        crs: the CRS that receives the steps and history entries.
        model: written into each step's `model` field (e.g. the workers' model), default "".

    Raises:
        InvalidArgumentError: `crs` is not a `crs.CRS` or `model` not a str.

    Thread-safe: one `feed` runs at a time per bridge. Use one bridge per CRS.
    """

    def __init__(self, crs: CRS, *, model: str = "") -> None:
        if not isinstance(crs, CRS):
            raise InvalidArgumentError(f"crs: must be a crs.CRS, got {type(crs).__name__}")
        if not isinstance(model, str):
            raise InvalidArgumentError(f"model: must be a str, got {type(model).__name__}")
        self.crs = crs
        self.model = model
        self._lock = threading.Lock()
        self._cursors: dict[tuple[str, str], _Cursor | None] = {}

    def last_fed(self, session_id: str, worker_id: str) -> tuple[int, str] | None:
        """`(recorded_at_ms, state)` of the last state fed for a worker, or None."""
        key = (_text(session_id, "session_id"), _text(worker_id, "worker_id"))
        with self._lock:
            cursor = self._cursor(key)
        return None if cursor is None else (cursor.ms, cursor.state)

    def _cursor(self, key: tuple[str, str]) -> _Cursor | None:
        if key in self._cursors:
            return self._cursors[key]
        trace = self.crs.snapshot().history_index().trace(worker_node_id(*key))
        cursor = _Cursor(trace[-1].timestamp, trace[-1].result) if trace else None
        self._cursors[key] = cursor
        return cursor

    def feed(
        self,
        source: CanonicalSnapshot | Sequence[HistoryEntry] | Sequence[WorkerStateChange],
        *,
        recorded_at_ms: int | None = None,
    ) -> list[BridgedChange]:
        """Record every worker state change in `source` not fed before; returns what was fed.

        Args:
            source: one snapshot (observed at `recorded_at_ms`, default now), a session's
                recorded history (`read_session_history`, oldest first) or a list of
                `WorkerStateChange` (`worker_state_changes`).
            recorded_at_ms: when a single snapshot was observed (Unix ms); only for snapshots.

        Returns:
            One `BridgedChange` per recorded change, in time order ([] when nothing is new).

        Raises:
            InvalidArgumentError: `source` or `recorded_at_ms` is malformed (named); nothing
                is recorded.
            ContractError: a snapshot in `source` is not a valid `ecc.session.v1` snapshot
                (the message starts with the argument, e.g. `source[2].snapshot: `).
        """
        observations = _observations(source, recorded_at_ms)
        fed: list[BridgedChange] = []
        with self._lock:
            touched: set[tuple[str, str]] = set()
            for obs in observations:
                key = (obs.session_id, obs.worker_id)
                cursor = self._cursor(key)
                if cursor is not None and (
                    obs.state == cursor.state
                    or obs.recorded_at_ms < cursor.ms
                    or (obs.recorded_at_ms == cursor.ms and key not in touched)
                ):
                    continue
                previous = cursor.state if cursor is not None else obs.previous_state
                fed.append(self._record(obs, previous))
                self._cursors[key] = _Cursor(obs.recorded_at_ms, obs.state)
                touched.add(key)
        return fed

    def _record(self, obs: _Observation, previous: str | None) -> BridgedChange:
        mapping = map_worker_state(obs.state)
        before = previous if previous is not None else "first seen"
        what = f"worker {obs.worker_id}: {before} -> {obs.state} (health {obs.health})"
        step = self.crs.record_step(
            StepRecord(
                session_id=obs.session_id,
                timestamp=obs.recorded_at_ms,
                actor=mapping.actor,
                model=self.model,
                decision=mapping.decision,
                tool=obs.worker_id,
                confidence=1.0,
                reasoning=what,
                outcome=mapping.outcome,
                error_message=what if mapping.outcome == Outcome.FAILURE else "",
                error_category=mapping.error_category,
                result_summary=obs.objective or obs.label,
                terminal=mapping.terminal,
            )
        )
        node = worker_node_id(obs.session_id, obs.worker_id)
        metadata = {
            "session_id": obs.session_id,
            "worker_id": obs.worker_id,
            "previous_state": previous or "",
            "state": obs.state,
            "health": obs.health,
            "recorded_at": obs.recorded_at,
            "step_number": str(step.step_number),
            "decision": str(mapping.decision),
        }
        if obs.adapter_id:
            metadata["adapter_id"] = obs.adapter_id
        if obs.label:
            metadata["label"] = obs.label
        entry = CRSHistoryEntry(
            id=f"{node}@{obs.recorded_at_ms}#{step.step_number}",
            node_id=node,
            action=f"{previous or ''} -> {obs.state}".lstrip(),
            result=obs.state,
            source=SignalSource.HARD,
            timestamp=obs.recorded_at_ms,
            metadata={k: _clip(v) for k, v in metadata.items()},
        )
        self.crs.apply(HistoryDelta(SignalSource.HARD, [entry], timestamp=obs.recorded_at_ms))
        change = WorkerStateChange(
            obs.session_id,
            obs.worker_id,
            previous,
            obs.state,
            obs.health,
            obs.recorded_at,
            obs.recorded_at_ms,
        )
        return BridgedChange(change, step, entry)

    def sync(
        self,
        target: str | StructuredTarget,
        *,
        cwd: str | os.PathLike[str] | None = None,
        adapter_id: str | None = None,
        home: str | os.PathLike[str] | None = None,
        history_limit: int = DEFAULT_HISTORY_LIMIT,
        adapters: Sequence[SessionAdapter] | None = None,
    ) -> list[BridgedChange]:
        """Inspect `target` (recording it), then feed the session's recorded history.

        Arguments are those of `inspect_session_target`. Without a SQLite store (the recorder
        fell back to a JSON file, or the adapter does not persist) the snapshot just read is
        fed, observed now.

        Raises:
            SessionError: the target cannot be read, or the store exists but cannot be read.
            InvalidArgumentError: a malformed argument (named).
        """
        snapshot = inspect_session_target(
            target,
            cwd=cwd,
            adapter_id=adapter_id,
            home=home,
            history_limit=history_limit,
            adapters=adapters,
        )
        history: list[HistoryEntry] = []
        if store_path(home).is_file():
            history = read_session_history(
                snapshot["adapterId"], snapshot["session"]["id"], home=home
            )
        if not history:
            return self.feed(snapshot)
        return self.feed(history)

    def __repr__(self) -> str:
        return f"<SessionBridge {self.crs!r}>"
