"""The clause store behind `CRS.add_clause` / `check_decision_allowed`.

Every mutating method is a deterministic function of its arguments (the caller passes the
time), so replaying a journal reproduces the store exactly. Clauses are kept in learning
order; the first violated clause reported is the oldest learned (spec §5.8).

Session-scoped clauses are visible only to their own session and live until that session's
history is cleared; project and global clauses are visible to every session and expire after
their TTL. Checking is delegated to `_ClauseMatcher` (one per visibility group).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator, Mapping
from typing import Any

from crs import _core
from crs._clauses import (
    DEFAULT_CLAUSE_CONFIG,
    Clause,
    ClauseCheckResult,
    ClausePersistence,
    split_variable,
)
from crs._errors import InvalidArgumentError
from crs._types import ClauseScope

log = logging.getLogger("crs.clauses")

_SHARED = ""  # matcher group of project and global clauses


@dataclasses.dataclass(slots=True)
class _Entry:
    clause: Clause  # frozen; scope resolved, learned_at set
    seq: int
    use_count: int
    last_used: int
    touch: int  # logical LRU clock: bumped when added or used (ms timestamps tie)

    def view(self) -> Clause:
        return dataclasses.replace(self.clause, use_count=self.use_count, last_used=self.last_used)


class _ClauseMatcher:
    """Finds the oldest violated clause of one visibility group (Rust, watched literals).

    Clauses are keyed by their learning sequence number, which only grows, so the Rust
    database's "oldest added" is also the smallest sequence number.
    """

    def __init__(self) -> None:
        self._db = _core.ClauseDb()

    def __len__(self) -> int:
        return len(self._db)

    def add(self, seq: int, clause: Clause) -> None:
        self._db.add(seq, [(*split_variable(lit.variable), lit.negated) for lit in clause.literals])

    def remove(self, seq: int) -> None:
        self._db.remove(seq)

    def first_violated_one_hot(self, observed: list[tuple[str, str]]) -> int | None:
        return self._db.check(observed)

    def first_violated(self, assignment: list[tuple[str, str, bool]]) -> int | None:
        return self._db.check_assignment(assignment)


class ClauseStore:
    """Learned clauses with semantic de-duplication, TTL per scope and LRU eviction."""

    def __init__(self, config: ClausePersistence = DEFAULT_CLAUSE_CONFIG) -> None:
        self.config = config
        self._entries: dict[str, _Entry] = {}
        self._by_sig: dict[frozenset[tuple[str, bool]], str] = {}
        self._by_seq: dict[int, str] = {}
        self._matchers: dict[str, _ClauseMatcher] = {}
        self._next_seq = 1
        self._clock = 0
        self.evicted = 0
        self.expired = 0
        self._version = 0  # bumped by every change; snapshots reuse the view of a version
        self._view: ClauseView | None = None

    # ---------------------------------------------------------------- queries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Clause]:
        return (e.view() for e in self._entries.values())

    def get(self, clause_id: str) -> Clause | None:
        e = self._entries.get(clause_id)
        return None if e is None else e.view()

    def _group(self, clause: Clause) -> str:
        return clause.session_id if clause.scope == ClauseScope.SESSION else _SHARED

    def _oldest(self, seqs: list[int | None]) -> Clause | None:
        found = [s for s in seqs if s is not None]
        return None if not found else self._entries[self._by_seq[min(found)]].view()

    def first_violated(self, session_id: str, observed: Mapping[str, str]) -> Clause | None:
        """The oldest clause visible to `session_id` violated by the one-hot assignment.

        `observed` maps each observed family to its value (`{"tool": "grep"}`).
        """
        pairs = list(observed.items())
        seqs: list[int | None] = []
        for group in (_SHARED, session_id):
            m = self._matchers.get(group)
            if m is not None and len(m):
                seqs.append(m.first_violated_one_hot(pairs))
        return self._oldest(seqs)

    def first_violated_assignment(self, assignment: Mapping[str, bool]) -> Clause | None:
        """The oldest clause (any scope) violated by an explicit true/false assignment."""
        triples = [(*split_variable(v), bool(b)) for v, b in assignment.items()]
        return self._oldest([m.first_violated(triples) for m in self._matchers.values()])

    # ---------------------------------------------------------------- changes

    def add(self, clause: Clause, now: int) -> Clause:
        """Store a copy of `clause` (already validated) learned at `now`; return what is stored.

        A clause with the same literals as a stored one is not added: the stored clause's
        use count and last-used time are bumped instead and it is returned.
        """
        self._version += 1
        if clause.scope is None:
            clause = dataclasses.replace(clause, scope=self.config.scope)
        sig = clause.signature()
        dup = self._by_sig.get(sig)
        if dup is not None and dup != clause.id:
            e = self._entries[dup]
            e.use_count += 1
            e.last_used = now
            e.touch = self._tick()
            return e.view()
        if clause.id in self._entries:
            self._remove(clause.id)
        elif len(self._entries) >= self.config.max_clauses:
            self.garbage_collect(now)
            while len(self._entries) >= self.config.max_clauses:
                victim = min(self._entries.values(), key=lambda e: e.touch)
                self._remove(victim.clause.id)
                self.evicted += 1
                log.info(
                    "clause store full (%d): evicted least recently used clause %s",
                    self.config.max_clauses,
                    victim.clause.id,
                )
        stored = dataclasses.replace(clause, learned_at=now, use_count=0, last_used=now)
        entry = _Entry(stored, self._next_seq, 0, now, self._tick())
        self._next_seq += 1
        self._entries[stored.id] = entry
        self._by_sig[sig] = stored.id
        self._by_seq[entry.seq] = stored.id
        self._matchers.setdefault(self._group(stored), _ClauseMatcher()).add(entry.seq, stored)
        return entry.view()

    def _remove(self, clause_id: str) -> None:
        self._version += 1
        e = self._entries.pop(clause_id)
        self._by_sig.pop(e.clause.signature(), None)
        self._by_seq.pop(e.seq, None)
        group = self._group(e.clause)
        m = self._matchers[group]
        m.remove(e.seq)
        if not len(m):
            del self._matchers[group]

    def record_use(self, clause_id: str, now: int) -> None:
        e = self._entries.get(clause_id)
        if e is not None:
            self._version += 1
            e.use_count += 1
            e.last_used = now
            e.touch = self._tick()

    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    def expired_ids(self, now: int) -> list[str]:
        """Ids of the clauses older than their scope's TTL at `now` (ms)."""
        gone = []
        for cid, e in self._entries.items():
            ttl = self.config.ttl_of(e.clause.scope or self.config.scope)
            if ttl is not None and now - e.clause.learned_at > ttl * 1000:
                gone.append(cid)
        return gone

    def garbage_collect(self, now: int) -> list[str]:
        """Remove clauses older than their scope's TTL at `now`; return their ids."""
        gone = self.expired_ids(now)
        for cid in gone:
            self._remove(cid)
        if gone:
            self.expired += len(gone)
            log.info("clause GC removed %d expired clauses", len(gone))
        return gone

    def end_session(self, session_id: str) -> list[str]:
        """Drop the session-scoped clauses of `session_id` (the session ended)."""
        gone = [
            cid
            for cid, e in self._entries.items()
            if e.clause.scope == ClauseScope.SESSION and e.clause.session_id == session_id
        ]
        for cid in gone:
            self._remove(cid)
        return gone

    def set_config(self, config: ClausePersistence) -> None:
        self._version += 1
        self.config = config

    def view(self) -> ClauseView:
        """An immutable view of the clauses as they are now (reused until the next change)."""
        if self._view is None or self._view.version != self._version:
            self._view = ClauseView(self._version, tuple(e.view() for e in self._entries.values()))
        return self._view

    # ---------------------------------------------------------------- export

    def export(self) -> dict[str, Any]:
        return {
            "config": self.config.to_dict(),
            "clauses": [e.view().to_dict() for e in self._entries.values()],
            "lru": [e.clause.id for e in sorted(self._entries.values(), key=lambda e: e.touch)],
            "evicted": self.evicted,
            "expired": self.expired,
        }

    @classmethod
    def from_export(cls, data: Mapping[str, Any]) -> ClauseStore:
        config = data.get("config")
        store = cls(
            DEFAULT_CLAUSE_CONFIG if config is None else ClausePersistence.from_dict(config)
        )
        for d in data.get("clauses", []):
            c = Clause.from_dict(d)
            store.add(c, c.learned_at)
            e = store._entries[c.id]
            e.use_count, e.last_used = c.use_count, c.last_used
        for cid in data.get("lru", []):
            store._entries[cid].touch = store._tick()
        store.evicted = int(data.get("evicted", 0))
        store.expired = int(data.get("expired", 0))
        return store


class ClauseView:
    """Read-only learned clauses of a snapshot (`snapshot().constraint_index()` uses it)."""

    __slots__ = ("_clauses", "_matcher", "version")

    def __init__(self, version: int, clauses: tuple[Clause, ...]) -> None:
        self.version = version
        self._clauses = clauses
        self._matcher: _ClauseMatcher | None = None

    def get_clause(self, clause_id: str) -> Clause | None:
        return next((c for c in self._clauses if c.id == clause_id), None)

    def all_clauses(self) -> dict[str, Clause]:
        """Every clause by id, oldest learned first."""
        return {c.id: c for c in self._clauses}

    def clause_count(self) -> int:
        return len(self._clauses)

    def check_assignment(self, assignment: Mapping[str, bool]) -> ClauseCheckResult:
        """The oldest clause violated by an explicit true/false assignment, if any."""
        check_assignment_arg(assignment)
        if self._matcher is None:
            self._matcher = _ClauseMatcher()
            for n, c in enumerate(self._clauses):
                self._matcher.add(n, c)
        triples = [(*split_variable(v), b) for v, b in assignment.items()]
        hit = self._matcher.first_violated(triples)
        return assignment_result(None if hit is None else self._clauses[hit])


def check_assignment_arg(assignment: object) -> None:
    """Raise `InvalidArgumentError` unless `assignment` maps variable names to bools."""
    if not isinstance(assignment, Mapping):
        raise InvalidArgumentError("assignment: must be a mapping of variable -> bool")
    for var, value in assignment.items():
        if not isinstance(var, str) or not var or not isinstance(value, bool):
            raise InvalidArgumentError(
                f"assignment: keys must be non-empty variable names and values bools, "
                f"got {var!r}: {value!r}"
            )


def assignment_result(clause: Clause | None) -> ClauseCheckResult:
    if clause is None:
        return ClauseCheckResult()
    return ClauseCheckResult(
        conflict=True,
        violated_clause=clause,
        reason=f"assignment violates learned clause: {clause}",
    )
