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
from crs._errors import InvalidArgumentError
from crs._reasoning._clauses import (
    DEFAULT_CLAUSE_CONFIG,
    Clause,
    ClauseCheckResult,
    ClausePersistence,
    split_variable,
)
from crs._reasoning._steps import require_encodable
from crs._types import ClauseScope

log = logging.getLogger("crs.clauses")

_SHARED = ""  # matcher group of project and global clauses


@dataclasses.dataclass(slots=True)
class _Entry:
    seq: int  # learning order (the Rust databases' clause id)
    touch: int  # logical LRU clock: bumped when added or used (ms timestamps tie)
    group: str  # matcher group


def _with_use(c: Clause, use_count: int, last_used: int) -> Clause:
    # Faster than dataclasses.replace on the hot path of a blocked decision.
    return Clause(
        id=c.id,
        literals=c.literals,
        source=c.source,
        learned_at=c.learned_at,
        failure_type=c.failure_type,
        session_id=c.session_id,
        use_count=use_count,
        last_used=last_used,
        scope=c.scope,
    )


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

    def first_violated_names(self, assignment: dict[str, bool]) -> int | None:
        # Names are split and checked in Rust; raises TypeError/ValueError on bad input.
        return self._db.check_names(assignment)


class ClauseStore:
    """Learned clauses with semantic de-duplication, TTL per scope and LRU eviction.

    The clauses themselves are immutable `Clause` records in `_frozen` (learning order).
    A snapshot's view shares that dict; the next change copies it first (copy-on-write), so
    taking a view is O(1) and a view never changes.
    """

    def __init__(self, config: ClausePersistence = DEFAULT_CLAUSE_CONFIG) -> None:
        self.config = config
        self._frozen: dict[str, Clause] = {}
        self._shared = False  # `_frozen` is held by a view: copy before changing it
        self._entries: dict[str, _Entry] = {}
        self._by_sig: dict[frozenset[tuple[str, bool]], str] = {}
        self._by_seq: dict[int, str] = {}
        self._matchers: dict[str, _ClauseMatcher] = {}
        self._next_seq = 1
        self._clock = 0
        self.evicted = 0
        self.expired = 0

    # ---------------------------------------------------------------- queries

    def __len__(self) -> int:
        return len(self._frozen)

    def __iter__(self) -> Iterator[Clause]:
        return iter(list(self._frozen.values()))

    def get(self, clause_id: str) -> Clause | None:
        return self._frozen.get(clause_id)

    def view(self) -> ClauseView:
        """An immutable view of the clauses as they are now (O(1))."""
        self._shared = True
        return ClauseView(self._frozen)

    def _oldest(self, seqs: list[int | None]) -> Clause | None:
        found = [s for s in seqs if s is not None]
        return None if not found else self._frozen[self._by_seq[min(found)]]

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

    def first_violated_assignment(self, triples: list[tuple[str, str, bool]]) -> Clause | None:
        """The oldest clause (any scope) violated by an explicit assignment.

        `triples` is the assignment as `assignment_triples` returns it.
        """
        try:
            return self._oldest([m.first_violated(triples) for m in self._matchers.values()])
        except ValueError as exc:  # a contradiction such as {"a": True, "a:": False}
            raise InvalidArgumentError(str(exc)) from None

    def first_violated_names(self, assignment: dict[str, bool]) -> Clause | None:
        """`first_violated_assignment` of an unvalidated `{"family:value": bool}` dict.

        Raises:
            TypeError, ValueError: a key or value `assignment_triples` would refuse, or a
                contradiction; the caller redoes the check on the validated path, which
                raises the typed error.
        """
        if not self._matchers:  # nothing checks the input in Rust: validate it here
            assignment_triples(assignment)
            return None
        return self._oldest([m.first_violated_names(assignment) for m in self._matchers.values()])

    # ---------------------------------------------------------------- changes

    def _writable(self) -> dict[str, Clause]:
        if self._shared:
            self._frozen = dict(self._frozen)
            self._shared = False
        return self._frozen

    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    def add(self, clause: Clause, now: int) -> Clause:
        """Store a copy of `clause` (already validated) learned at `now`; return what is stored.

        A clause with the same literals as a stored one is not added: the stored clause's
        use count and last-used time are bumped instead and it is returned.
        """
        if clause.scope is None:
            clause = dataclasses.replace(clause, scope=self.config.scope)
        sig = clause.signature()
        dup = self._by_sig.get(sig)
        if dup is not None and dup != clause.id:
            self.record_use(dup, now)
            return self._frozen[dup]
        if clause.id in self._entries:
            self._remove(clause.id)
        elif len(self._entries) >= self.config.max_clauses:
            self.garbage_collect(now)
            while len(self._entries) >= self.config.max_clauses:
                victim = min(self._entries, key=lambda cid: self._entries[cid].touch)
                self._remove(victim)
                self.evicted += 1
                log.info(
                    "clause store full (%d): evicted least recently used clause %s",
                    self.config.max_clauses,
                    victim,
                )
        stored = dataclasses.replace(
            clause, literals=tuple(clause.literals), learned_at=now, use_count=0, last_used=now
        )
        group = stored.session_id if stored.scope == ClauseScope.SESSION else _SHARED
        entry = _Entry(self._next_seq, self._tick(), group)
        self._next_seq += 1
        self._writable()[stored.id] = stored
        self._entries[stored.id] = entry
        self._by_sig[sig] = stored.id
        self._by_seq[entry.seq] = stored.id
        self._matchers.setdefault(group, _ClauseMatcher()).add(entry.seq, stored)
        return stored

    def _remove(self, clause_id: str) -> None:
        e = self._entries.pop(clause_id)
        c = self._writable().pop(clause_id)
        self._by_sig.pop(c.signature(), None)
        self._by_seq.pop(e.seq, None)
        m = self._matchers[e.group]
        m.remove(e.seq)
        if not len(m):
            del self._matchers[e.group]

    def record_use(self, clause_id: str, now: int) -> None:
        c = self._frozen.get(clause_id)
        if c is not None:
            self._writable()[clause_id] = _with_use(c, c.use_count + 1, now)
            self._entries[clause_id].touch = self._tick()

    def expired_ids(self, now: int) -> list[str]:
        """Ids of the clauses older than their scope's TTL at `now` (ms)."""
        gone = []
        for cid, c in self._frozen.items():
            ttl = self.config.ttl_of(c.scope or self.config.scope)
            if ttl is not None and now - c.learned_at > ttl * 1000:
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
            for cid, c in self._frozen.items()
            if c.scope == ClauseScope.SESSION and c.session_id == session_id
        ]
        for cid in gone:
            self._remove(cid)
        return gone

    def set_config(self, config: ClausePersistence) -> None:
        self.config = config

    # ---------------------------------------------------------------- export

    def export(self) -> dict[str, Any]:
        return {
            "config": self.config.to_dict(),
            "clauses": [c.to_dict() for c in self._frozen.values()],
            "lru": sorted(self._entries, key=lambda cid: self._entries[cid].touch),
            "evicted": self.evicted,
            "expired": self.expired,
        }

    @classmethod
    def from_export(cls, data: Mapping[str, Any]) -> ClauseStore:
        config = data.get("config")
        store = cls(
            DEFAULT_CLAUSE_CONFIG if config is None else ClausePersistence.from_dict(config)
        )
        # The clauses are restored as they were: a `max_clauses` lowered after they were
        # learned (set_config evicts nothing) must not evict any of them while loading.
        store.config = dataclasses.replace(store.config, max_clauses=1 << 62)
        for d in data.get("clauses", []):
            c = Clause.from_dict(d)
            store.add(c, c.learned_at)
            store._frozen[c.id] = _with_use(store._frozen[c.id], c.use_count, c.last_used)
        store.config = (
            DEFAULT_CLAUSE_CONFIG if config is None else ClausePersistence.from_dict(config)
        )
        for cid in data.get("lru", []):
            entry = store._entries.get(cid)
            if entry is not None:
                entry.touch = store._tick()
        store.evicted = int(data.get("evicted", 0))
        store.expired = int(data.get("expired", 0))
        return store


class ClauseView:
    """Read-only learned clauses of a snapshot (`snapshot().constraint_index()` uses it)."""

    __slots__ = ("_clauses", "_matcher", "_order")

    def __init__(self, clauses: Mapping[str, Clause]) -> None:
        self._clauses = clauses  # never changed: the store copies before writing
        self._matcher: _ClauseMatcher | None = None
        self._order: list[Clause] = []

    def get_clause(self, clause_id: str) -> Clause | None:
        return self._clauses.get(clause_id)

    def all_clauses(self) -> dict[str, Clause]:
        """Every clause by id, oldest learned first."""
        return dict(self._clauses)

    def clause_count(self) -> int:
        return len(self._clauses)

    def check_assignment(self, assignment: Mapping[str, bool]) -> ClauseCheckResult:
        """The oldest clause violated by an explicit true/false assignment, if any."""
        if self._matcher is None:
            self._matcher = _ClauseMatcher()
            self._order = list(self._clauses.values())
            for n, c in enumerate(self._order):
                self._matcher.add(n, c)
        if type(assignment) is dict:
            try:  # fast path: validated and split in Rust
                hit = self._matcher.first_violated_names(assignment)
                return assignment_result(None if hit is None else self._order[hit])
            except (TypeError, ValueError):
                pass  # the path below raises the typed error
        triples = assignment_triples(assignment)
        try:
            hit = self._matcher.first_violated(triples)
        except ValueError as exc:  # a contradiction such as {"a": True, "a:": False}
            raise InvalidArgumentError(str(exc)) from None
        return assignment_result(None if hit is None else self._order[hit])


def assignment_triples(assignment: object) -> list[tuple[str, str, bool]]:
    """`{"family:value": b}` -> `[(family, value, b)]` (a name without `:` is its own family).

    Raises:
        InvalidArgumentError: not a mapping of non-empty variable names to bools, or two
            names of one variable (`a`, `a:`) with different values.
    """
    if not isinstance(assignment, Mapping):
        raise InvalidArgumentError("assignment: must be a mapping of variable -> bool")
    out = []
    seen: dict[tuple[str, str], bool] = {}
    for var, b in assignment.items():
        if (b is not True and b is not False) or not isinstance(var, str) or not var:
            raise InvalidArgumentError(
                f"assignment: keys must be non-empty variable names and values bools, "
                f"got {var!r}: {b!r}"
            )
        require_encodable(var, "assignment")
        head, sep, tail = var.partition(":")
        if not sep:
            head, tail = var, ""
        if seen.setdefault((head, tail), b) is not b:  # "a" and "a:" name one variable
            raise InvalidArgumentError(
                f"assignment: variable {head}={tail} is assigned both true and false"
            )
        out.append((head, tail, b))
    return out


def assignment_result(clause: Clause | None) -> ClauseCheckResult:
    if clause is None:
        return ClauseCheckResult()
    return ClauseCheckResult(
        conflict=True,
        violated_clause=clause,
        reason=f"assignment violates learned clause: {clause}",
    )
