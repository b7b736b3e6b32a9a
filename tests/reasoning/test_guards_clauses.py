# ruff: noqa: RUF001  (the NOT and OR signs are the reference's clause notation)
"""Clauses: literals, clause semantics, validation, the clause store (dedupe, LRU, TTL, scope).

The store's Rust watched-literal checking is compared with a slow pure-Python reference
under the three-valued one-hot semantics of spec §5.8, positive literals included.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crs import CRSError, HardSoftBoundaryViolationError, InvalidArgumentError
from crs._reasoning._clause_store import ClauseStore, assignment_triples
from crs._reasoning._clauses import (
    DEFAULT_CLAUSE_CONFIG,
    Clause,
    ClausePersistence,
    FailureEvent,
    Literal,
    decision_context,
)
from crs._types import (
    Actor,
    ClauseScope,
    Decision,
    ErrorCategory,
    FailureType,
    Outcome,
    SignalSource,
    StepRecord,
)
from guards_reference import first_violated_explicit, first_violated_one_hot, observed_families
from steps import tool_step

DAY_MS = 86_400_000


def neg(v: str) -> Literal:
    return Literal(variable=v, negated=True)


def pos(v: str) -> Literal:
    return Literal(variable=v)


def clause(cid: str, *lits: Literal, **kw: object) -> Clause:
    return Clause(id=cid, literals=lits, source=SignalSource.HARD, **kw)  # type: ignore[arg-type]


# ---------------------------------------------------------------- literal and clause


def test_literal_and_clause_strings_use_not_and_or_signs() -> None:
    assert str(neg("tool:list_packages")) == "\u00actool:list_packages"
    assert str(pos("outcome:success")) == "outcome:success"
    c = clause("c", neg("tool:list_packages"), neg("outcome:success"), pos("tool:grep"))
    assert str(c) == "(¬tool:list_packages ∨ ¬outcome:success ∨ tool:grep)"
    assert str(Clause(id="e")) == "(empty)"


def test_satisfied_and_violated_follow_the_reference_examples() -> None:
    c = clause("c", neg("tool:a"), neg("outcome:failure"))
    assert c.is_violated({"tool:a": True, "outcome:failure": True})
    assert not c.is_satisfied({"tool:a": True, "outcome:failure": True})
    # One literal true -> satisfied, not violated.
    assert c.is_satisfied({"tool:a": False, "outcome:failure": True})
    assert not c.is_violated({"tool:a": False, "outcome:failure": True})
    # An unassigned variable: neither satisfied nor violated yet.
    assert not c.is_violated({"tool:a": True})
    assert not c.is_satisfied({"tool:a": True})
    # Positive literals are violated by an explicit False.
    p = clause("p", pos("tool:a"))
    assert p.is_violated({"tool:a": False})
    assert p.is_satisfied({"tool:a": True})
    assert Clause(id="e").is_violated({})


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        (Clause(literals=(neg("tool:a"),), source=SignalSource.HARD), "clause.id"),
        (Clause(id="c", source=SignalSource.HARD), "clause.literals"),
        (Clause(id="c", literals=(pos(""),), source=SignalSource.HARD), "clause.literals[0]"),
        (Clause(id="c", literals=(neg("tool:a"),)), "clause.source"),
        (
            Clause(id="c", literals=(neg("tool:a"),), source=SignalSource.HARD, failure_type="x"),
            "clause.failure_type",
        ),
        (
            Clause(
                id="c",
                literals=(neg("tool:a"),),
                source=SignalSource.HARD,
                scope="forever",  # type: ignore[arg-type]
            ),
            "clause.scope",
        ),
    ],
)
def test_clause_validate_names_the_field(bad: Clause, field: str) -> None:
    with pytest.raises(CRSError, match=rf"^{field.replace('[', '.').replace(']', '.')}"):
        bad.validate()


def test_soft_clause_is_a_hard_soft_boundary_violation() -> None:
    c = Clause(id="c", literals=(neg("tool:a"),), source=SignalSource.SOFT)
    with pytest.raises(HardSoftBoundaryViolationError, match=r"clause\.source"):
        c.validate()
    Clause(id="c", literals=(neg("tool:a"),), source=SignalSource.SAFETY).validate()


def test_clause_dict_round_trip() -> None:
    c = clause("c", neg("tool:a"), pos("error:timeout"), scope=ClauseScope.GLOBAL)
    assert Clause.from_dict(c.to_dict()) == c


def test_failure_event_validate() -> None:
    ok = FailureEvent(session_id="s", failure_type=FailureType.TOOL_ERROR, source=SignalSource.HARD)
    ok.validate()
    for bad, field in [
        (FailureEvent(failure_type=FailureType.TOOL_ERROR, source=1), "event.session_id"),  # type: ignore[arg-type]
        (FailureEvent(session_id="s", failure_type="oops", source=1), "event.failure_type"),  # type: ignore[arg-type]
        (FailureEvent(session_id="s", failure_type="timeout"), "event.source"),
    ]:
        with pytest.raises(InvalidArgumentError, match=rf"^{field}"):
            bad.validate()


def test_clause_persistence_defaults_and_validation() -> None:
    assert DEFAULT_CLAUSE_CONFIG.scope == ClauseScope.PROJECT
    assert DEFAULT_CLAUSE_CONFIG.ttl == 7 * 86_400
    assert DEFAULT_CLAUSE_CONFIG.max_clauses == 1000
    assert DEFAULT_CLAUSE_CONFIG.ttl_of(ClauseScope.GLOBAL) == 30 * 86_400
    assert DEFAULT_CLAUSE_CONFIG.ttl_of(ClauseScope.SESSION) is None
    with pytest.raises(InvalidArgumentError, match=r"^max_clauses"):
        ClausePersistence(scope=ClauseScope.PROJECT, ttl=1.0, max_clauses=0).validate()
    with pytest.raises(InvalidArgumentError, match=r"^ttl"):
        ClausePersistence(scope=ClauseScope.PROJECT, ttl=float("nan"), max_clauses=1).validate()


def step(tool: str, outcome: Outcome, err: ErrorCategory = ErrorCategory.NONE) -> StepRecord:
    return tool_step(tool, outcome, error=err, step_number=1)


def test_decision_context_reads_the_last_two_steps() -> None:
    assert decision_context([]) == {}
    hist = [
        step("grep", Outcome.SUCCESS),
        step("read", Outcome.SUCCESS),
        step("build", Outcome.FAILURE, ErrorCategory.INTERNAL),
    ]
    assert decision_context(hist) == {
        "prev_tool": "build",
        "outcome": "failure",
        "error": "internal",
        "prev_prev_tool": "read",
    }
    assert decision_context(hist[:1]) == {"prev_tool": "grep", "outcome": "success"}


# ---------------------------------------------------------------- store


def test_store_keeps_copies_and_dedupes_semantically() -> None:
    s = ClauseStore()
    first = s.add(clause("a", neg("tool:x"), neg("prev_tool:y")), now=1_000)
    assert first.learned_at == 1_000
    assert first.last_used == 1_000
    assert first.use_count == 0
    assert first.scope == ClauseScope.PROJECT  # the configured default scope
    # Same literals in another order, repeated, under another id: a duplicate.
    dup = s.add(clause("b", neg("prev_tool:y"), neg("tool:x"), neg("tool:x")), now=2_000)
    assert dup.id == "a"
    assert dup.use_count == 1
    assert dup.last_used == 2_000
    assert len(s) == 1
    assert s.get("b") is None
    # Negation matters: not a duplicate.
    s.add(clause("c", pos("tool:x"), neg("prev_tool:y")), now=3_000)
    assert len(s) == 2


def test_store_overwrite_by_id_does_not_evict() -> None:
    s = ClauseStore(ClausePersistence(scope=ClauseScope.PROJECT, ttl=3600.0, max_clauses=2))
    s.add(clause("a", neg("tool:a")), now=1)
    s.add(clause("b", neg("tool:b")), now=2)
    s.add(clause("a", neg("tool:c")), now=3)
    assert [c.id for c in s] == ["b", "a"]
    assert s.evicted == 0
    assert s.first_violated("s", {"tool": "a"}) is None
    got = s.first_violated("s", {"tool": "c"})
    assert got is not None
    assert got.id == "a"


def test_store_evicts_least_recently_used_at_the_limit() -> None:
    s = ClauseStore(ClausePersistence(scope=ClauseScope.PROJECT, ttl=3600.0, max_clauses=3))
    for i, name in enumerate("abc"):
        s.add(clause(name, neg(f"tool:{name}")), now=10 + i)
    s.record_use("a", now=100)  # a is now the most recently used; b the least
    s.add(clause("d", neg("tool:d")), now=200)
    assert sorted(c.id for c in s) == ["a", "c", "d"]
    assert s.evicted == 1
    assert s.first_violated("s", {"tool": "b"}) is None


def test_store_collects_expired_before_evicting() -> None:
    s = ClauseStore(ClausePersistence(scope=ClauseScope.PROJECT, ttl=60.0, max_clauses=2))
    s.add(clause("old", neg("tool:old")), now=0)
    s.add(clause("new", neg("tool:new")), now=59_000)
    s.add(clause("x", neg("tool:x")), now=61_000)  # old expired (61 s > 60 s): GC, no eviction
    assert sorted(c.id for c in s) == ["new", "x"]
    assert (s.evicted, s.expired) == (0, 1)


def test_ttl_per_scope() -> None:
    s = ClauseStore()
    s.add(clause("p", neg("tool:p"), scope=ClauseScope.PROJECT), now=0)
    s.add(clause("g", neg("tool:g"), scope=ClauseScope.GLOBAL), now=0)
    s.add(clause("s", neg("tool:s"), scope=ClauseScope.SESSION, session_id="s1"), now=0)
    assert s.garbage_collect(7 * DAY_MS) == []  # strictly older than the TTL
    assert s.garbage_collect(7 * DAY_MS + 1) == ["p"]
    assert s.garbage_collect(30 * DAY_MS + 1) == ["g"]
    assert [c.id for c in s] == ["s"]  # session clauses live until the session ends
    assert s.end_session("other") == []
    assert s.end_session("s1") == ["s"]
    assert len(s) == 0


def test_session_clauses_are_visible_only_to_their_session() -> None:
    s = ClauseStore()
    s.add(clause("s1", neg("tool:x"), scope=ClauseScope.SESSION, session_id="one"), now=0)
    hit = s.first_violated("one", {"tool": "x"})
    assert hit is not None
    assert hit.id == "s1"
    assert s.first_violated("two", {"tool": "x"}) is None


def test_first_violated_is_the_oldest_learned_across_groups() -> None:
    s = ClauseStore()
    s.add(clause("sess", neg("tool:x"), scope=ClauseScope.SESSION, session_id="one"), now=0)
    s.add(clause("proj", neg("tool:x"), neg("outcome:failure")), now=1)
    hit = s.first_violated("one", {"tool": "x", "outcome": "failure"})
    assert hit is not None
    assert hit.id == "sess"


def test_store_export_round_trip_keeps_order_and_counters() -> None:
    s = ClauseStore(ClausePersistence(scope=ClauseScope.GLOBAL, ttl=99.0, max_clauses=5))
    s.add(clause("a", neg("tool:a")), now=5)
    s.add(clause("b", pos("tool:b"), scope=ClauseScope.SESSION, session_id="q"), now=6)
    s.record_use("a", now=9)
    back = ClauseStore.from_export(s.export())
    assert list(back) == list(s)
    assert back.config == s.config
    assert back.export() == s.export()


def test_store_export_round_trip_after_max_clauses_was_lowered() -> None:
    """`set_config` evicts nothing, so a store may hold more clauses than its limit; loading
    its export evicted the oldest while adding them and then failed on the LRU order with a
    KeyError (found by tests/api/test_record_checker.py's hypothesis run)."""
    s = ClauseStore(ClausePersistence(scope=ClauseScope.PROJECT, ttl=99.0, max_clauses=5))
    s.add(clause("a", neg("tool:a")), now=5)
    s.add(clause("b", pos("tool:a")), now=6)
    s.set_config(ClausePersistence(scope=ClauseScope.SESSION, ttl=1.0, max_clauses=1))
    back = ClauseStore.from_export(s.export())
    assert [c.id for c in back] == [c.id for c in s] == ["a", "b"]
    assert back.config == s.config
    assert back.export() == s.export()


# ---------------------------------------------------------------- property: Rust vs reference

FAMILIES = ["tool", "prev_tool", "outcome", "error", "extra"]
VALUES = ["a", "b", "c"]
variables = st.builds(lambda f, v: f"{f}:{v}", st.sampled_from(FAMILIES), st.sampled_from(VALUES))
literals = st.tuples(variables, st.booleans())
clause_lists = st.lists(st.lists(literals, min_size=1, max_size=4), min_size=0, max_size=25)
observations = st.dictionaries(st.sampled_from(FAMILIES), st.sampled_from([*VALUES, "zz"]))


def build(
    lits_list: list[list[tuple[str, bool]]],
) -> tuple[ClauseStore, list[tuple[str, list[tuple[str, bool]]]]]:
    store = ClauseStore(ClausePersistence(scope=ClauseScope.PROJECT, ttl=1e9, max_clauses=10_000))
    ref: list[tuple[str, list[tuple[str, bool]]]] = []
    seen: set[frozenset[tuple[str, bool]]] = set()
    for i, lits in enumerate(lits_list):
        c = Clause(
            id=f"c{i}",
            literals=tuple(Literal(variable=v, negated=n) for v, n in lits),
            source=SignalSource.HARD,
        )
        store.add(c, now=i)
        if c.signature() not in seen:  # duplicates are merged into the older clause
            seen.add(c.signature())
            ref.append((c.id, lits))
    return store, ref


@given(clause_lists, observations)
def test_one_hot_checking_matches_reference(
    lits_list: list[list[tuple[str, bool]]], observed: dict[str, str]
) -> None:
    store, ref = build(lits_list)
    got = store.first_violated("s", observed)
    assert (None if got is None else got.id) == first_violated_one_hot(ref, observed)


@given(clause_lists, st.dictionaries(variables, st.booleans()))
def test_explicit_assignment_checking_matches_reference(
    lits_list: list[list[tuple[str, bool]]], assignment: dict[str, bool]
) -> None:
    store, ref = build(lits_list)
    got = store.first_violated_assignment(assignment_triples(assignment))
    assert (None if got is None else got.id) == first_violated_explicit(ref, assignment)
    # The Clause methods agree with the reference too.
    for cid, lits in ref:
        c = store.get(cid)
        assert c is not None
        assert c.is_violated(assignment) == (
            first_violated_explicit([(cid, lits)], assignment) == cid
        )


def test_decision_context_skips_circuit_breaker_interventions() -> None:
    cb = StepRecord(
        session_id="s",
        step_number=3,
        actor=Actor.SYSTEM,
        decision=Decision.CIRCUIT_BREAKER,
        outcome=Outcome.FORCED,
    )
    hist = [step("grep", Outcome.SUCCESS), step("build", Outcome.FAILURE, ErrorCategory.INTERNAL)]
    assert decision_context([*hist, cb]) == decision_context(hist)


CRS_FAMILIES = ["tool", "prev_tool", "prev_prev_tool", "outcome", "error", "other"]
crs_variables = st.one_of(
    st.builds(lambda f, v: f"{f}:{v}", st.sampled_from(CRS_FAMILIES[:3]), st.sampled_from("ab")),
    st.sampled_from(["outcome:success", "outcome:failure", "error:internal", "error:timeout"]),
    st.just("other:z"),
)
crs_clauses = st.lists(
    st.lists(st.tuples(crs_variables, st.booleans()), min_size=1, max_size=4),
    max_size=12,
)
histories = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", ""]), st.booleans(), st.sampled_from(["internal", "timeout"])
    ),
    max_size=4,
)


@given(crs_clauses, histories, st.sampled_from("ab"))
def test_check_decision_allowed_matches_reference(
    lits_list: list[list[tuple[str, bool]]],
    history: list[tuple[str, bool, str]],
    proposal: str,
) -> None:
    from crs import CRS

    c = CRS()
    ref: list[tuple[str, list[tuple[str, bool]]]] = []
    for i, lits in enumerate(lits_list):
        stored = c.add_clause(
            Clause(
                id=f"c{i}",
                literals=tuple(Literal(variable=v, negated=n) for v, n in lits),
                source=SignalSource.HARD,
            )
        )
        if stored.id == f"c{i}":
            ref.append((stored.id, lits))
    rows = []
    for tool, ok, err in history:
        outcome = Outcome.SUCCESS if ok else Outcome.FAILURE
        cat = ErrorCategory.NONE if ok else ErrorCategory(err)
        c.record_step(tool_step(tool, outcome, error=cat))
        rows.append((tool, outcome.value, cat.value))
    want = first_violated_one_hot(ref, observed_families(rows, proposal))
    allowed, reason = c.check_decision_allowed("s", proposal)
    assert allowed == (want is None)
    if want is not None:
        assert reason.startswith(f"violates learned clause {want}: ")
