"""The `StateKernel`: the one place the reasoning state changes.

Everything of a CRS that changes lives here, under one re-entrant `lock`: the head (a
`crs._core.StateHead`, written in place), the generation, the analytics records, `frozen`
(an immutable version of the head for snapshots, cached and dropped on every change), the
journal and `seq` (the sequence number of its last record in the state), the delta history,
the registry of journaled ops and the image parts. Every change is one of these methods:

- `commit(delta)`: validate and apply a delta, journaled before it is visible (a failed
  append leaves no trace); the generation grows by one.
- `commit_op(kind, payload)`: an op of a part (the guards, `crs.guard`). The handler
  registered for `kind` (`register_op`) checks the payload and computes the effect without
  changing anything; the record is journaled; then the function the handler returned
  applies the effect (it cannot fail) and its result is `commit_op`'s. So a record that
  cannot be applied is never written (issue 11).
- `replay(record)` and `replay_journal(journal)`: records applied again without journaling
  them; an op record whose handler refuses it is a damaged record (`JournalCorruptedError`).
- `install(ops)`, `restore(...)`, `load_image(doc)`: the whole state replaced.
- `writing()`: the lock, and on a shared journal (several processes write it) the journal's
  writer lock too, after applying what the others appended (`catch_up`): a decision made
  and committed inside sees every earlier record of every writer.

Reads need no lock: `current()` is one immutable tuple, replaced on every commit.

The facade (`crs._crs.CRS`) and its parts (`Guards`, `Persistence`, `Evaluation`, the parts
of `crs._crs._PARTS`) hold the kernel and change the state only through it. It imports the
layers below (`_image`, `_state`, `_errors`, `_types`, `_core`), never the facade.
"""

from __future__ import annotations

import contextlib
import enum
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from crs import _core
from crs._check import brief
from crs._errors import (
    AppendRaceError,
    CRSClosedError,
    DeltaConflictError,
    InvalidArgumentError,
    JournalCorruptedError,
    JournalSequenceGapError,
    JournalUnavailableError,
    NilDeltaError,
    SnapshotStaleError,
    StaleOpError,
)
from crs._image import parse_image, state_image
from crs._state._codec import ProofPayloads
from crs._state._delta_history import DeltaHistoryWorker
from crs._state._deltas import Delta, DeltaType, ProofDelta, snapshot_type
from crs._state._index_mask import IndexMask
from crs._types import Config

if TYPE_CHECKING:  # loaded when used (start-up: a hook's process needs none of them)
    from crs._state._analytics import AnalyticsRecord
    from crs._state._graph import GraphBackedDependencyIndex, GraphQuery
    from crs._state._snapshot import Snapshot

__all__ = ["ApplyMetrics", "ImagePart", "OpHandler", "StateKernel"]

_PROOF = IndexMask.PROOF
_CAPPED = IndexMask.SIMILARITY | IndexMask.HISTORY
_log = logging.getLogger("crs.state")
_new_metrics = tuple.__new__  # builds ApplyMetrics without the NamedTuple keyword machinery
_clock = time.perf_counter

OpHandler = Callable[[dict[str, Any]], Callable[[], Any] | None]
"""`handler(payload)` checks the payload and computes an op's effect without changing
anything (raising if it cannot be applied) and returns the function that applies it, which
must not fail; what that function returns is `commit_op`'s result. (A handler returning
None applied its effect itself, before the record is written: only for effects that cannot
fail, as a failure then leaves the state ahead of its journal.)"""


class ApplyMetrics(NamedTuple):
    """What one apply did. Durations are float seconds."""

    delta_type: DeltaType = DeltaType.UNKNOWN
    apply_duration: float = 0.0
    validation_duration: float = 0.0
    indexes_updated: IndexMask = IndexMask(0)
    entries_modified: int = 0
    old_generation: int = 0
    new_generation: int = 0


class ImagePart(Protocol):
    """A part of the state besides the indexes (the guards' steps and clauses, the state of
    `crs.guard`): it travels in checkpoints, backup images, journaled restores and replicas."""

    def export(self) -> dict[str, Any]:
        """Its state as JSON-able data (called under the kernel's lock)."""
        ...

    def parse(self, data: Any) -> Any:
        """Check an export (None: none, the empty state) and build what `install` takes,
        changing nothing; raises `InvalidArgumentError`."""
        ...

    def install(self, parsed: Any) -> None:
        """Replace the part's state by a parsed export (cannot fail)."""
        ...


def _held(part: ImagePart) -> Any:
    """What `part.install` takes to put the part back as it is now: its own `held()` when it
    has one (O(1): the objects a load replaces), else its export, parsed."""
    held = getattr(part, "held", None)
    return held() if callable(held) else part.parse(part.export())


class _Lifecycle(enum.Enum):
    """Where a CRS is in its life (style practice 16)."""

    OPEN = "open"  # reads and changes allowed
    CLOSED = "closed"  # close() ran: changes are refused, reads see the last state


_CLOSED = _Lifecycle.CLOSED
_MAX_RACES = 64  # conditional appends (NATS) another writer's record came first to, in a row


class _Run:
    """Journal records after a position as (first_seq, entries) runs or skipped/error items."""

    @staticmethod
    def of(journal: Any, after: int) -> Iterator[tuple[int, list[Any]] | Any]:
        runs = getattr(journal, "_decoded_runs", None)
        if runs is not None:
            yield from runs(after, for_replay=True)
            return
        for item in journal.replay_stream(after_seq=after):
            if item.err is not None or item.skipped:
                yield item
            else:
                yield item.seq_num, [item.delta]


def _check_next(pos: int, seq: int, sparse: bool = False) -> None:
    if seq != pos + 1 and not (sparse and seq > pos):
        raise JournalSequenceGapError(
            f"journal sequence gap: the state covers up to record {pos} but the journal "
            f"continues at {seq}; load the backup that covers the records in between first"
        )


class _SharedWriting:
    """`StateKernel.writing()` on a shared journal: the kernel's lock, then (outermost only)
    the journal's writer lock and `catch_up`. A class, not a generator: every commit of a
    project's CRS enters it once."""

    __slots__ = ("_cm", "_k")

    def __init__(self, kernel: StateKernel) -> None:
        self._k = kernel
        self._cm: contextlib.AbstractContextManager[Any] | None = None

    def __enter__(self) -> None:
        k = self._k
        k.lock.acquire()
        if k._wdepth:
            return
        try:
            if k.life is _CLOSED:  # closed by another thread since its caller looked: say so,
                k.check_open("a change")  # not "journal is closed" (red team 5)
            cm = k.journal.exclusive()
            cm.__enter__()
        except BaseException:
            k.lock.release()
            raise
        self._cm = cm
        k._wdepth = 1
        try:
            k.catch_up()
        except BaseException as exc:
            self.__exit__(type(exc), exc, exc.__traceback__)
            raise

    def __exit__(self, *exc: Any) -> None:
        k, cm = self._k, self._cm
        try:
            if cm is not None:
                self._cm = None
                k._wdepth = 0
                cm.__exit__(*exc)
        finally:
            k.lock.release()


class StateKernel:
    """The state of one CRS and the only code that changes it (see the module docstring).

    Args:
        config: The CRS's validated configuration.
        journal: The journal every change is appended to before it is visible, or None.
        caps: (similarity pairs, history entries) kept; 0 = unlimited.
        max_delta_records: Delta history records kept.
    """

    __slots__ = (
        "_fused",
        "_ops",
        "_wdepth",
        "analytics",
        "apply_stats",
        "caps",
        "closed",
        "closed_why",
        "config",
        "frozen",
        "gen",
        "graph",
        "graph_index",
        "guards",
        "head",
        "history",
        "journal",
        "life",
        "lock",
        "on_gap",
        "parts",
        "replayed",
        "seq",
        "session_id",
        "shared",
        "snap_stats",
        "synced_journal",
    )

    def __init__(
        self, config: Config, journal: Any, caps: tuple[int, int], max_delta_records: int
    ) -> None:
        self.config = config
        self.caps = caps
        self.lock = threading.RLock()
        # The head is written in place; `frozen` caches an immutable version of it for
        # snapshots and is dropped on every commit (so writes without snapshots in between
        # never copy shared nodes).
        self.head = _core.StateHead(*caps)
        self.gen = 0
        self.analytics: tuple[AnalyticsRecord, ...] = ()
        self.frozen: tuple[_core.StateCore, int, tuple[AnalyticsRecord, ...]] | None = None
        self.journal = journal
        # A journal other processes write too (LocalJournal with `shared`): each commit
        # takes its lock and first applies what the others appended (`writing`).
        self.shared = bool(getattr(journal, "shared", False))
        # (fast append, hold, append, unhold) of a shared LocalJournal: `commit_op`'s fused path.
        fused = getattr(journal, "_fused", None) if self.shared else None
        self._fused: tuple[Any, Any, Any, Any, Any] | None = fused() if fused is not None else None
        self._wdepth = 0
        self.seq = 0  # sequence number of the last journal record in the state
        self.replayed = 0  # journal records applied by replay_journal so far
        # A journal other than its own that the state was caught up with (replay_journal):
        # with no own journal, a backup saved against it covers its records (seed Option A:
        # apply, then append to the journal by hand).
        self.synced_journal: Any = None
        self.history = DeltaHistoryWorker(max_delta_records)
        self.session_id = ""
        self.graph: GraphQuery | None = None
        self.graph_index: GraphBackedDependencyIndex | None = None
        self.life = _Lifecycle.OPEN
        self.closed = False  # `life is _CLOSED`, as a plain attribute (the guard reads it per call)
        self.closed_why = ""  # why, when not by close() (`close_in_child`)
        # Running [count, total s, max s] of apply and snapshot durations (enable_metrics).
        self.apply_stats: list[float] | None = [0, 0.0, 0.0] if config.enable_metrics else None
        self.snap_stats: list[float] | None = [0, 0.0, 0.0] if config.enable_metrics else None
        self._ops: dict[str, OpHandler] = {"restore": self._op_restore}
        # The image parts: `guards` is the image's "guards" section itself, `parts` go in
        # it under "parts" by name (the facade sets both right after making the kernel).
        self.guards: ImagePart | None = None
        self.parts: dict[str, ImagePart] = {}
        # What `catch_up` does when another writer checkpointed the shared journal past this
        # state (the project's persistence loads its backup), or None: raise the gap.
        self.on_gap: Callable[[], None] | None = None

    # ------------------------------------------------------------ reading

    def current(self) -> tuple[_core.StateCore, int, tuple[AnalyticsRecord, ...]]:
        """(immutable state, generation, analytics) of now; no lock needed to read it."""
        cur = self.frozen
        if cur is None:
            with self.lock:
                cur = self.frozen
                if cur is None:
                    cur = (self.head.freeze(), self.gen, self.analytics)
                    self.frozen = cur
        return cur

    def snapshot(self, clauses: Any = None) -> Snapshot:
        """A `Snapshot` of now (not timed: the facade's `snapshot()` is the timed one)."""
        cur = self.frozen
        if cur is None:
            cur = self.current()
        return snapshot_type()(*cur, self.graph, self.graph_index, clauses)

    def check_open(self, what: str) -> None:
        """`CRSClosedError` naming `what` once the CRS is closed."""
        if self.life is _CLOSED:
            if self.closed_why:
                raise CRSClosedError(f"{what}: {self.closed_why}")
            raise CRSClosedError(
                f"{what}: the CRS is closed (at generation {self.gen}); it refuses changes "
                "and reads see the last state; open a new CRS (crs.CRS.open, crs.open_project)"
            )

    def close(self) -> bool:
        """Refuse changes from now on and close the delta history; False if already closed."""
        with self.lock:
            if self.life is _CLOSED:
                return False
            self.life = _CLOSED
            self.closed = True
            self.history.close()
            return True

    def close_in_child(self, why: str) -> None:
        """In a child forked from the process that opened this state on a journal only the
        parent can write (NATS: its connection and thread stayed there): refuse changes
        with `why`, taking no lock (one held at the fork is never released here)."""
        self.closed_why = why
        self.life = _CLOSED
        self.closed = True

    def bfs_depended_by(self, start: str, max_depth: int) -> list[tuple[str, str, int]]:
        """(parent, child, depth) for the reverse-dependency BFS from `start` (spec §1.9),
        over the graph provider when one is set, else the stored edges (in Rust)."""
        if not isinstance(start, str) or not isinstance(max_depth, int) or max_depth < 0:
            raise InvalidArgumentError("start: must be a str and max_depth an int >= 0")
        index = self.graph_index
        if index is None:
            return self.current()[0].bfs_depended_by(start, max_depth)
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

    # ------------------------------------------------------------ deltas

    def commit(
        self,
        delta: Delta,
        source: str | None = None,
        metadata: Mapping[str, str] | None = None,
        base: Snapshot | None = None,
        *,
        journal: bool = True,
    ) -> ApplyMetrics:
        """Validate and apply `delta` atomically (journaled unless `journal` is False)."""
        if self.shared and journal:
            with self._shared_writing():
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
        t0 = _clock()
        delta._check()
        t1 = _clock()
        with self.lock:
            if self.life is _CLOSED:
                self.check_open(f"apply of a {delta._TYPE.name} delta")
            gen = self.gen
            if base is not None:
                self._check_base(base, delta, gen)
            head = self.head
            if type(delta) is ProofDelta:
                rows = delta._rows
                if journal and self.journal is not None:
                    self.seq = self.journal.append(delta)
                n = head.put_proofs(rows)
                mask = _PROOF
            else:
                prev = head.freeze() if journal and self.journal is not None else None
                before = head.evicted()
                try:
                    n, m = head.apply_ops(delta._ops())
                except ValueError as err:
                    from crs._state._snapshot import _raise_apply  # inside: start-up (errors)

                    _raise_apply(err)
                mask = IndexMask(m)
                if m & _CAPPED:
                    self._log_evictions(before, head.evicted())
                if prev is not None:
                    # While the record is written (a full journal may save a backup from
                    # here), readers see the state before this delta.
                    self.frozen = (prev, gen, self.analytics)
                    try:
                        self.seq = self.journal.append(delta)
                    except BaseException:
                        head.reset(prev)
                        raise
                recs = delta._analytics()
                if recs:
                    n += len(recs)
                    from crs._state._analytics import MAX_ANALYTICS_HISTORY_RECORDS  # start-up

                    self.analytics = (*self.analytics, *recs)[-MAX_ANALYTICS_HISTORY_RECORDS:]
            self.gen = gen + 1
            self.frozen = None
            self.history._items_append(delta, gen + 1, source, self.session_id, metadata)
            t2 = _clock()
            st = self.apply_stats
            if st is not None:
                d = t2 - t0
                st[0] += 1
                st[1] += d
                if d > st[2]:
                    st[2] = d
        return _new_metrics(ApplyMetrics, (delta._TYPE, t2 - t1, t1 - t0, mask, n, gen, gen + 1))

    def _log_evictions(self, before: tuple[int, int], after: tuple[int, int]) -> None:
        for what, cap, old, new in (
            ("similarity pairs", self.caps[0], before[0], after[0]),
            ("history entries", self.caps[1], before[1], after[1]),
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
        if not isinstance(base, snapshot_type()):
            raise InvalidArgumentError(f"base: must be a Snapshot or None, got {brief(base)}")
        lag = gen - base.generation()
        limit = self.config.snapshot_epoch_limit
        if limit > 0 and lag > limit:
            raise SnapshotStaleError(
                f"base: snapshot is {lag} generations old, more than snapshot_epoch_limit "
                f"({limit}); take a fresh snapshot"
            )
        if lag <= 0:
            return
        since = self.history._since(base.generation())
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

    # ------------------------------------------------------------ ops

    def register_op(self, kind: str, handler: OpHandler) -> None:
        """Register the handler of a journaled op kind (see `OpHandler`)."""
        if not isinstance(kind, str) or not kind or not callable(handler):
            raise InvalidArgumentError("kind: must be a non-empty str and handler a callable")
        self._ops[kind] = handler

    def commit_op(
        self,
        kind: str,
        payload: dict[str, Any],
        *,
        bump_generation: bool,
        checked: Callable[[dict[str, Any]], Any] | None = None,
        fresh: Callable[[dict[str, Any]], bool] | None = None,
        msg_id: str | None = None,
    ) -> Any:
        """Check, journal, then apply one op; returns what its apply function returned.

        `checked`: for a payload its caller built and checked itself (the live guard's own
        records): `checked(payload)` applies it, in place of the registered handler's check
        and apply function (it must not fail). Replay still runs the handler on the record.

        `fresh`: for a payload built on the state as it was (a guard's step, reserved before
        other writers' records came in): when the catch-up under the journal's writer lock
        applied records of other writers, `fresh(payload)` says whether it still holds;
        False raises `StaleOpError` with nothing written (the caller builds it again). Not
        called when no other writer appended (the usual case). A conditional append another
        writer's record came first to (a NATS project journal: `AppendRaceError`, nothing
        stored, the records up to it applied) raises `StaleOpError` when `fresh` is given,
        and sends the record again after them otherwise.

        `msg_id`: an idempotency key for a journal that takes one (a NATS project journal:
        the server stores a record sent twice under one key once); ignored by the others,
        whose failed append stores nothing.
        """
        handler = self._ops.get(kind)
        if handler is None:
            raise InvalidArgumentError(
                f"kind: no handler registered for {brief(kind)}; known: {sorted(self._ops)}"
            )
        fused = self._fused
        if checked is not None and fused is not None:
            # A checked payload on a shared LocalJournal: what `_SharedWriting` and `append`
            # do, in this frame (the hot path of a durable guard: a record per finished call).
            with self.lock:
                if self.life is _CLOSED:
                    self.check_open(kind)
                fast, hold, append, unhold, settle = fused
                # One Rust call (the encoding, the write) when no other writer appended since
                # (the usual case): a failed write changes nothing (nor does an encoding
                # error). The record's sync runs on the journal's worker thread while it is
                # applied; `settle` waits for it before anything is returned (a failed sync
                # raises, and fails the journal: every later record is refused, and the
                # state holds this record, as the disk may).
                seq = fast(kind, payload, bump_generation, self.seq) if not self._wdepth else 0
                if seq:
                    try:
                        self.seq = seq
                        result = checked(payload)
                        if bump_generation:
                            self._new_generation()
                    finally:
                        settle()
                    return result
                # (`hold` is False inside a block that holds the journal already: the general
                # path below)
                data = self.journal._encode_op(kind, payload, bump_generation)
                if not self._wdepth and hold():
                    self._wdepth = 1
                    try:
                        before = self.seq
                        self.catch_up()
                        if fresh is not None and self.seq != before and not fresh(payload):
                            raise StaleOpError(f"{kind}: built on a state other writers moved")
                        self.seq = append([data])[1]
                        result = checked(payload)
                        if bump_generation:
                            self._new_generation()
                    except BaseException:
                        self._wdepth = 0
                        unhold(False)
                        raise
                    self._wdepth = 0
                    unhold(True)  # unlock, then fdatasync (a failed sync raises)
                    return result
        before = self.seq  # (the catch-up of `_shared_writing` moves it)
        with self._shared_writing() if self.shared else self.lock:
            if self.life is _CLOSED:
                self.check_open(kind)
            if fresh is not None and self.seq != before and not fresh(payload):
                raise StaleOpError(f"{kind}: built on a state other writers moved")
            # validated, effect computed: nothing changed yet
            apply = handler(payload) if checked is None else None
            if self.journal is not None:
                record = {"op": kind, "payload": payload, "bump_generation": bump_generation}
                idem = msg_id is not None and getattr(self.journal, "idempotent", False)
                races = 0
                while True:
                    try:
                        if idem:
                            self.seq = self.journal.append(record, msg_id=msg_id)
                        else:
                            self.seq = self.journal.append(record)
                        break
                    except AppendRaceError:
                        # NATS: another writer's record came first (nothing stored); the
                        # journal applied the records up to it. A payload built on the state
                        # (a guard's decision) is built again on the caught-up one; another is
                        # checked again and sent after them.
                        if fresh is not None:
                            raise StaleOpError(
                                f"{kind}: built on a state other writers moved"
                            ) from None
                        races += 1
                        if races >= _MAX_RACES:
                            raise JournalUnavailableError(
                                f"{kind}: other writers' records came first {races} times in "
                                "a row; nothing was stored. Retry later"
                            ) from None
                        apply = handler(payload) if checked is None else None
            if checked is not None:
                result = checked(payload)
            else:
                result = apply() if apply is not None else None
            if bump_generation:
                self._new_generation()
            return result

    def _new_generation(self) -> None:
        """The state moved under the lock: a new generation; the cached snapshot is stale."""
        self.gen += 1
        self.frozen = None

    # ------------------------------------------------------------ replay

    def replay(self, record: Delta | dict[str, Any]) -> None:
        """Re-apply one journal record (a delta or an op) without journaling it again.

        Raises:
            JournalCorruptedError: an op record its handler refuses (a damaged record).
        """
        if isinstance(record, Delta):
            self.commit(record, journal=False)
            return
        if not isinstance(record, dict) or record.get("op") not in self._ops:
            op = record.get("op") if isinstance(record, dict) else None
            if isinstance(op, str) and "payload" in record:
                # an op record of a kind this crs does not know: a newer crs journaled it
                # (red team 7); the record is left in the journal as it is
                raise JournalCorruptedError(
                    f"journal op record {brief(op)} is not known to this crs (it knows "
                    f"{len(self._ops)} ops); a newer crs wrote it: upgrade crs on every "
                    "machine that opens this project"
                )
            raise InvalidArgumentError(
                f"record: must be a Delta or a registered op, got {brief(record)}"
            )
        with self.lock:
            self.check_open("replay")
            try:
                apply = self._ops[record["op"]](record["payload"])
            except Exception as exc:  # a record that cannot be applied is a damaged record
                raise JournalCorruptedError(
                    f"journal op record {record['op']!r} cannot be applied: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            if apply is not None:
                apply()
            if record.get("bump_generation", False):
                self._new_generation()

    def apply_replayed(self, entry: Any, skipper: Any = None, seq: int = 0) -> None:
        """Apply one replayed record. One that cannot be applied raises
        `JournalCorruptedError`; with a `skipper` (a journal with `skip_corrupted_deltas`) it
        is skipped and counted there instead (nothing of it was applied)."""
        try:
            self.replay(entry)
        except JournalCorruptedError as exc:
            if skipper is None or not callable(getattr(skipper, "_skip", None)):
                raise JournalCorruptedError(f"journal record {seq}: {exc}") from exc
            skipper._skip(1, f"record {seq} cannot be applied: {exc}")

    def replay_journal(self, journal: Any = None, *, after_seq: int | None = None) -> int:
        """Apply the journal's records after the state's position, without journaling them
        (`CRS.replay_journal` documents it); returns how many were applied."""
        self.check_open("replay_journal")
        j = self.journal if journal is None else journal
        if j is None or not callable(getattr(j, "replay_stream", None)):
            raise InvalidArgumentError(f"journal: must be a crs Journal, got {brief(j)}")
        applied = 0
        # Stream sequences (NATSJournal) are shared with other sessions: they grow but skip.
        sparse = bool(getattr(j, "sparse_sequences", False))
        if after_seq is not None and (
            isinstance(after_seq, bool) or not isinstance(after_seq, int) or after_seq < 0
        ):
            raise InvalidArgumentError(f"after_seq: must be an int >= 0 or None, got {after_seq!r}")
        if after_seq is not None and after_seq >= 1 << 63:
            raise InvalidArgumentError(
                f"after_seq: must be below 2**63 (a journal sequence number), got {after_seq}"
            )
        skip = bool(getattr(getattr(j, "_config", None), "skip_corrupted_deltas", False))
        with self.lock:
            if after_seq is not None:  # the caller says the state covers up to there
                self.seq = after_seq
            pos = self.seq
            if sparse and pos < j.stats().checkpoint_seq:
                _check_next(pos, j.stats().checkpoint_seq + 1)  # raises the gap error
            try:
                for item in _Run.of(j, pos):
                    if not isinstance(item, tuple):
                        if item.err is not None and not item.skipped:
                            if isinstance(item.err, JournalSequenceGapError):
                                # a record missing from the stream (a NATS entry deleted):
                                # the reader's own error, with its type (rt12)
                                raise item.err
                            raise JournalCorruptedError(f"journal record unreadable: {item.err}")
                        _check_next(pos, item.seq_num, sparse)
                        pos = self.seq = item.seq_num
                        continue
                    first, entries = item
                    _check_next(pos, first, sparse)
                    pos = self.seq = first - 1  # (moves only for sparse sequences)
                    rows: list[Any] = []  # consecutive ProofDeltas: one write, same result
                    for entry in entries:
                        if type(entry) is ProofDelta:
                            rows += entry._rows
                            pos += 1
                            continue
                        self._flush_proofs(rows, pos)
                        rows = []
                        if type(entry) is ProofPayloads:  # ProofDeltas, decoded in Rust
                            pos = self._put_payloads(entry.payloads, pos)
                            continue
                        self.apply_replayed(entry, j if skip else None, pos + 1)
                        pos += 1
                        self.seq = pos
                    self._flush_proofs(rows, pos)
                    applied += pos - (first - 1)
            finally:
                self.frozen = None
            if journal is not None and journal is not self.journal:
                self.synced_journal = journal
        self.replayed += applied
        return applied

    def _flush_proofs(self, rows: list[Any], pos: int) -> None:
        """Write the rows of the ProofDeltas replayed up to record `pos` (later rows win,
        as `put_proofs` writes in order); each delta was one generation."""
        pending = pos - self.seq
        if pending:
            self.head.put_proofs(rows)
            self.gen += pending
            self.seq = pos

    def _put_payloads(self, payloads: list[bytes], pos: int) -> int:
        """Write a stretch of binary ProofDelta records (already checked) following record
        `pos`, one generation each; returns the new position."""
        try:
            self.head.put_proof_payloads(payloads)
        except ValueError as exc:  # checked by decode_for_replay: not expected
            raise JournalCorruptedError(f"journal record unreadable: {exc}") from exc
        self.gen += len(payloads)
        self.seq = pos + len(payloads)
        return self.seq

    # ------------------------------------------------------------ shared journal

    def writing(self) -> contextlib.AbstractContextManager[Any]:
        """Hold the lock and, on a shared journal, its writer lock, having applied what other
        processes appended first: a decision made and committed inside the block sees every
        earlier record of every writer. Re-entrant."""
        return self._shared_writing() if self.shared else self.lock

    def _shared_writing(self) -> _SharedWriting:
        return _SharedWriting(self)

    def catch_up(self) -> int:
        """Apply the records other writers appended (shared journal, under its lock)."""
        if self.journal.last_seq() <= self.seq:
            return 0
        try:
            return self.replay_journal()
        except JournalSequenceGapError:
            # Another writer saved a backup and checkpointed past this state: load it.
            if self.on_gap is None:
                raise
            self.on_gap()
            return 0

    def refresh(self) -> int:
        """Apply what other processes appended to a shared journal since this state last
        read it; returns the records applied (0 without a shared journal)."""
        self.check_open("refresh")
        if not self.shared:
            return 0
        with self.lock, self.journal.exclusive():
            return self.catch_up()

    # ------------------------------------------------------------ whole state

    def install(self, ops: list[tuple[Any, ...]], analytics: tuple[AnalyticsRecord, ...]) -> int:
        """Replace the whole state by a fresh one built from `ops`; returns the generation."""
        try:
            new, _, _ = _core.StateCore(*self.caps).apply_ops(ops)
        except ValueError as err:
            from crs._state._snapshot import _raise_apply  # inside: start-up (errors)

            _raise_apply(err)
        with self.lock:
            self.check_open("install")
            self.head.reset(new)
            self.gen += 1
            self.analytics = analytics
            self.frozen = None
            return self.gen

    def export_parts(self) -> dict[str, Any]:
        """The image's "guards" section: the guards' export, the other parts under "parts"."""
        with self.lock:
            data = self.guards.export() if self.guards is not None else {}
            data["parts"] = {name: part.export() for name, part in self.parts.items()}
            return data

    def parse_parts(self, data: dict[str, Any] | None) -> Callable[[], None]:
        """Check and build an image's "guards" section for every part (changing nothing);
        returns what installs them all (cannot fail). A bad section raises before any
        part is installed."""
        guards = self.guards.parse(data) if self.guards is not None else None
        got = (data or {}).get("parts") or {}
        parsed = {name: part.parse(got.get(name)) for name, part in self.parts.items()}

        def install() -> None:
            with self.lock:
                if self.guards is not None:
                    self.guards.install(guards)
                for name, part in self.parts.items():
                    part.install(parsed[name])

        return install

    def capture(self) -> tuple[_core.StateCore, int, tuple[AnalyticsRecord, ...], dict[str, Any]]:
        """(state, generation, analytics, parts section) of one moment, O(1) + the parts."""
        with self.lock:
            core, gen, analytics = self.current()
            return core, gen, analytics, self.export_parts()

    def image(self) -> dict[str, Any]:
        """The whole state as a `state_image` document (JSON-safe)."""
        return state_image(*self.capture())

    def restore(
        self,
        core: _core.StateCore,
        gen: int,
        analytics: tuple[AnalyticsRecord, ...],
        parts: dict[str, Any],
    ) -> None:
        """Bring back a checkpoint's content under a NEW generation; with a journal, as one
        journaled "restore" op carrying the whole image, so a replay restores it too."""
        self.check_open("restore")
        if self.journal is not None:
            image = state_image(core, gen, analytics, parts)
            self.commit_op("restore", {"image": image}, bump_generation=True)
            return
        with self.lock:
            self.check_open("restore")
            self.parse_parts(parts)()
            self.head.reset(core)
            self.gen += 1
            self.analytics = analytics
            self.frozen = None

    def hold(self) -> tuple[Any, ...]:
        """What `reinstall` puts back after a load (backup image + journal tail) failed
        half-way. O(1) for the indexes (versions are shared) and for the guards' stores (a
        load installs new ones, it never changes them in place); the other parts are kept
        as parsed exports."""
        with self.lock:
            core, gen, analytics = self.current()
            guards = _held(self.guards) if self.guards is not None else None
            parts = {name: _held(part) for name, part in self.parts.items()}
            return core, gen, analytics, guards, parts, self.seq, self.synced_journal

    def reinstall(self, held: tuple[Any, ...]) -> None:
        """Put back what `hold()` kept: all or nothing for loads. Not journaled, as the load
        was not; the generation moves forward (never back) if the failed load moved it."""
        core, gen, analytics, guards, parts, seq, synced = held
        with self.lock:
            if self.gen == gen and self.seq == seq:
                return  # the load changed nothing
            if self.guards is not None:
                self.guards.install(guards)
            for name, part in self.parts.items():
                part.install(parts[name])
            self.head.reset(core)
            self.analytics = analytics
            self.frozen = None
            self.seq = seq
            self.synced_journal = synced
            self.gen += 1

    def _op_restore(self, payload: dict[str, Any]) -> Callable[[], None]:
        # Handler of the journaled "restore" op: content only (commit_op bumps the generation).
        head, analytics, _, parts = parse_image(payload["image"], self.caps)
        install_parts = self.parse_parts(parts)

        def apply() -> None:
            install_parts()
            self.head = head
            self.analytics = analytics
            self.frozen = None

        return apply

    def load_image(self, image: dict[str, Any], seq: int | None = None) -> int:
        """Install a `state_image` document: the content comes back and the generation
        becomes the image's (never lower than now + 1 once something was committed); `seq`,
        when given, becomes the journal position. Returns the generation."""
        head, analytics, gen_img, parts = parse_image(image, self.caps)
        with self.lock:
            self.check_open("load of a state image")
            self.parse_parts(parts)()
            self.head = head
            self.analytics = analytics
            self.gen = gen_img if self.gen == 0 else max(self.gen + 1, gen_img)
            self.frozen = None
            if seq is not None:
                self.seq = seq
            return self.gen
