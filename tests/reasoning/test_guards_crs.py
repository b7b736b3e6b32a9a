# ruff: noqa: RUF001, RUF003  (the NOT and OR signs are the reference's clause notation)
"""The guards as methods of a real `CRS`: steps, proof numbers, circuit breaker, disproof
propagation, clauses, similarity, checkpoint/restore and journal replay; bad input raises a
typed error naming the argument and leaves the state unchanged.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
import types
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import crs
from crs import (
    CRS,
    Actor,
    Clause,
    ClausePersistence,
    ClauseScope,
    Config,
    CRSError,
    Decision,
    DependencyDelta,
    ErrorCategory,
    FailureEvent,
    FailureType,
    HardSoftBoundaryViolationError,
    InvalidArgumentError,
    Literal,
    Outcome,
    ProofStatus,
    ProofUpdate,
    ProofUpdateType,
    SignalSource,
    StepRecord,
)
from crs._state._deltas import Delta, delta_from_dict
from steps import tool_step

MAX = crs.PROOF_NUMBER_INFINITE


def step(
    tool: str = "grep",
    outcome: Outcome = Outcome.SUCCESS,
    err: ErrorCategory = ErrorCategory.NONE,
    sid: str = "s",
    decision: Decision = Decision.EXECUTE_TOOL,
) -> StepRecord:
    return tool_step(tool, outcome, session=sid, error=err, decision=decision)


def neg(v: str) -> Literal:
    return Literal(variable=v, negated=True)


def hard(cid: str, *lits: Literal, **kw: Any) -> Clause:
    return Clause(id=cid, literals=lits, source=SignalSource.HARD, **kw)


def state_of(c: CRS) -> tuple[int, str]:
    """Generation plus the whole guard state, to assert that a failed call changed nothing."""
    return c.generation(), json.dumps(c._kernel.export_parts(), sort_keys=True)


# ---------------------------------------------------------------- steps


def test_record_step_numbers_and_getters() -> None:
    c = CRS()
    a = c.record_step(step("grep"))
    b = c.record_step(step("read", decision=Decision.SELECT_TOOL))
    f = c.record_step(step("build", Outcome.FAILURE, ErrorCategory.INTERNAL))
    assert [a.step_number, b.step_number, f.step_number] == [1, 2, 3]
    assert a.timestamp > 0
    assert c.get_step_history("s") == [a, b, f]
    assert c.get_last_step("s") == f
    assert c.get_last_step("nobody") is None
    assert c.get_step_history("nobody") == []
    assert c.count_tool_executions("s", "grep") == 1
    assert c.count_tool_executions("s", "read") == 0  # a selection is not an execution
    assert c.get_steps_by_outcome("s", Outcome.FAILURE) == [f]
    assert c.get_steps_by_actor("s", Actor.MAIN_AGENT) == [a, b, f]
    assert c.get_steps_by_actor("s", Actor.ROUTER) == []
    assert c.generation() == 0  # steps are a log, not versioned state (spec §5.2 list)
    c.clear_step_history("s")
    assert c.get_step_history("s") == []


def test_steps_are_bounded_per_session() -> None:
    c = CRS()
    for _ in range(crs.MAX_STEPS_PER_SESSION + 3):
        c.record_step(step())
    hist = c.get_step_history("s")
    assert len(hist) == crs.MAX_STEPS_PER_SESSION
    assert hist[0].step_number == 4
    assert c._guards.steps.evicted == 3
    assert c.count_tool_executions("s", "grep") == crs.MAX_STEPS_PER_SESSION


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda c: c.record_step(step(sid="")), "step.session_id"),
        (lambda c: c.record_step(step(outcome=Outcome.FAILURE)), "step.error_category"),
        (lambda c: c.record_step(StepRecord(session_id="s", actor="x")), "step.actor"),
        (lambda c: c.get_step_history(""), "session_id"),
        (lambda c: c.get_steps_by_actor("s", "robot"), "actor"),
        (lambda c: c.get_steps_by_outcome("s", "meh"), "outcome"),
        (lambda c: c.count_tool_executions("s", ""), "tool"),
        (lambda c: c.clear_step_history(""), "session_id"),
        (lambda c: c.check_circuit_breaker("", "grep"), "session_id"),
        (lambda c: c.check_decision_allowed("s", ""), "tool"),
        (lambda c: c.get_proof_status(""), "node_id"),
        (lambda c: c.propagate_disproof(""), "node_id"),
        (lambda c: c.update_proof_number(ProofUpdate(type=1, delta=1, source=1)), "update.node_id"),
        (
            lambda c: c.update_proof_number(ProofUpdate(node_id="n", type=9, delta=1, source=1)),
            "update.type",
        ),
        (
            lambda c: c.update_proof_number(ProofUpdate(node_id="n", type=1, delta=0, source=1)),
            "update.delta",
        ),
        (
            lambda c: c.update_proof_number(ProofUpdate(node_id="n", type=1, delta=1, source=0)),
            "update.source",
        ),
        (lambda c: c.add_clause(Clause(id="c", source=SignalSource.HARD)), "clause.literals"),
        (lambda c: c.add_clause("c"), "clause"),
        (lambda c: c.record_similarity("", "b", 0.1), "key1"),
        (lambda c: c.record_similarity("a", "a", 0.1), "key2"),
        (lambda c: c.record_similarity("a", "b", math.nan), "distance"),
        (lambda c: c.record_similarity("a", "b", -0.1), "distance"),
        (lambda c: c.record_similarity("a", "b", math.inf), "distance"),
        (lambda c: c.check_semantic_repetition("s", "grep", "q", 1.5), "threshold"),
        (lambda c: c.check_semantic_repetition("s", "grep", "q", math.nan), "threshold"),
        (lambda c: c.check_assignment({"tool:a": 1}), "assignment"),
        (lambda c: c.learn_from_failure(FailureEvent(session_id="s")), "event.failure_type"),
        (
            lambda c: c.set_clause_config(ClausePersistence(max_clauses=0, ttl=1.0)),
            "max_clauses",
        ),
    ],
)
def test_bad_input_is_a_typed_error_and_changes_nothing(call: Any, name: str) -> None:
    c = CRS()
    c.record_step(step())
    c.add_clause(hard("c0", neg("tool:x")))
    before = state_of(c)
    with pytest.raises(CRSError) as info:
        call(c)
    assert str(info.value).startswith(name), str(info.value)
    assert state_of(c) == before


# ---------------------------------------------------------------- proof numbers


def test_update_proof_number_commits_one_delta_per_update() -> None:
    c = CRS()
    inc = ProofUpdate(
        node_id="n", type=ProofUpdateType.INCREMENT, delta=5, source=SignalSource.SOFT
    )
    got = c.update_proof_number(inc)
    assert (got.proof, got.disproof, got.status) == (15, 10, ProofStatus.EXPANDED)
    assert c.get_proof_status("n") == got
    assert c.generation() == 1
    c.update_proof_number(ProofUpdate(node_id="n", type=ProofUpdateType.DISPROVEN, source=1))
    pn = c.get_proof_status("n")
    assert pn is not None
    assert (pn.proof, pn.status) == (MAX, ProofStatus.DISPROVEN)
    assert c.generation() == 2
    assert c.get_proof_status("missing") is None


def test_soft_disproof_is_refused_and_creates_no_node() -> None:
    c = CRS()
    soft = ProofUpdate(node_id="n", type=ProofUpdateType.DISPROVEN, source=SignalSource.SOFT)
    with pytest.raises(HardSoftBoundaryViolationError, match=r"^update\.source"):
        c.update_proof_number(soft)
    assert c.get_proof_status("n") is None
    assert c.generation() == 0


def test_circuit_breaker_thresholds_and_proof_path() -> None:
    c = CRS(Config(circuit_breaker_thresholds={"Grep": 3}))
    for _ in range(2):
        c.record_step(step("Grep"))
        c.record_step(step("read"))
    assert not c.check_circuit_breaker("s", "Grep").should_fire  # 2 < 3
    assert c.check_circuit_breaker("s", "read").reason == "tool read called 2 times (threshold: 2)"
    c.record_step(step("Grep"))
    r = c.check_circuit_breaker("s", "Grep")
    assert (r.should_fire, r.reason) == (True, "tool Grep called 3 times (threshold: 3)")
    # With proof data the count is ignored.
    c.update_proof_number(
        ProofUpdate(node_id="session:s:tool:Grep", type=ProofUpdateType.PROVEN, source=2)
    )
    r = c.check_circuit_breaker("s", "Grep")
    assert (r.should_fire, r.reason, r.proof_number) == (False, "proof number viable", 0)
    c.update_proof_number(
        ProofUpdate(node_id="session:s:tool:read", type=ProofUpdateType.DISPROVEN, source=1)
    )
    r = c.check_circuit_breaker("s", "read")
    assert (r.should_fire, r.reason, r.status) == (True, "tool read is disproven", 2)


def test_propagate_disproof_is_one_atomic_delta_over_the_dependency_index() -> None:
    c = CRS()
    # b and c depend on a; d depends on b.
    c.apply(DependencyDelta(SignalSource.HARD, add_edges=[("b", "a"), ("c", "a"), ("d", "b")]))
    c.update_proof_number(
        ProofUpdate(node_id="b", type=ProofUpdateType.INCREMENT, delta=MAX - 11, source=1)
    )
    gen = c.generation()
    assert c.propagate_disproof("a") == 3  # b (exhausted -> propagates), c, and d via b
    assert c.generation() == gen + 1
    b, cc, d = (c.get_proof_status(n) for n in "bcd")
    assert b is not None
    assert cc is not None
    assert d is not None
    assert b.proof == MAX
    assert (cc.proof, cc.status, cc.source) == (11, ProofStatus.EXPANDED, SignalSource.HARD)
    assert d.proof == 11
    assert c.get_proof_status("a") is None  # the start node itself is not modified
    assert c.propagate_disproof("isolated") == 0
    assert c.generation() == gen + 1


# ---------------------------------------------------------------- clauses


def test_add_clause_stores_a_copy_and_bumps_generation() -> None:
    c = CRS()
    mine = hard("c1", neg("tool:x"))
    stored = c.add_clause(mine)
    assert stored is not mine
    assert stored.learned_at > 0
    assert mine.learned_at == 0
    assert c.generation() == 1
    dup = c.add_clause(hard("c2", neg("tool:x")))
    assert (dup.id, dup.use_count) == ("c1", 1)
    view = c.snapshot().constraint_index()
    assert list(view.all_clauses()) == ["c1"]
    assert view.clause_count() == 1
    assert view.get_clause("c2") is None


def test_snapshot_clause_view_is_immutable() -> None:
    c = CRS()
    c.add_clause(hard("c1", neg("tool:x")))
    snap = c.snapshot()
    c.add_clause(hard("c2", neg("tool:y")))
    assert snap.constraint_index().clause_count() == 1
    assert c.snapshot().constraint_index().clause_count() == 2
    r = snap.constraint_index().check_assignment({"tool:y": True})
    assert not r.conflict
    r = c.snapshot().constraint_index().check_assignment({"tool:y": True})
    assert r.conflict
    assert r.reason == "assignment violates learned clause: (¬tool:y)"


def test_lru_eviction_through_the_crs() -> None:
    c = CRS()
    c.set_clause_config(ClausePersistence(scope=ClauseScope.PROJECT, ttl=3600.0, max_clauses=2))
    c.add_clause(hard("a", neg("tool:a")))
    c.add_clause(hard("b", neg("tool:b")))
    c.record_step(step("z"))
    assert not c.check_decision_allowed("s", "a").allowed  # a used: b is least recently used
    c.add_clause(hard("c", neg("tool:c")))
    assert set(c.snapshot().constraint_index().all_clauses()) == {"a", "c"}


def test_garbage_collection_by_ttl() -> None:
    c = CRS()
    c.set_clause_config(ClausePersistence(scope=ClauseScope.PROJECT, ttl=0.001, max_clauses=10))
    c.add_clause(hard("p", neg("tool:p")))
    c.add_clause(hard("g", neg("tool:g"), scope=ClauseScope.GLOBAL))
    time.sleep(0.01)
    gen = c.generation()
    assert c.garbage_collect_clauses() == 1
    assert c.generation() == gen + 1
    assert c.garbage_collect_clauses() == 0  # nothing changed: no new generation
    assert c.generation() == gen + 1
    assert list(c.snapshot().constraint_index().all_clauses()) == ["g"]


def test_positive_literals_block_under_one_hot_semantics() -> None:
    c = CRS()
    # "deploy only right after a successful step": ¬tool:deploy ∨ outcome:success
    c.add_clause(
        hard("only-after-success", neg("tool:deploy"), Literal(variable="outcome:success"))
    )
    assert c.check_decision_allowed("s", "deploy").allowed  # no step yet: outcome unassigned
    c.record_step(step("test", Outcome.FAILURE, ErrorCategory.INTERNAL))
    verdict = c.check_decision_allowed("s", "deploy")
    assert not verdict.allowed
    assert verdict.reason == (
        "violates learned clause only-after-success: (¬tool:deploy ∨ outcome:success)"
    )
    assert c.check_decision_allowed("s", "test").allowed
    c.record_step(step("test"))
    assert c.check_decision_allowed("s", "deploy").allowed


def test_oldest_violated_clause_is_reported_and_its_use_recorded() -> None:
    c = CRS()
    c.add_clause(hard("old", neg("tool:x")))
    c.add_clause(hard("new", neg("tool:x"), neg("prev_tool:y")))
    c.record_step(step("y"))
    allowed, reason = c.check_decision_allowed("s", "x")
    assert not allowed
    assert reason.startswith("violates learned clause old: ")
    old = c.snapshot().constraint_index().get_clause("old")
    assert old is not None
    assert old.use_count == 1


def test_session_clauses_end_with_the_session() -> None:
    c = CRS()
    c.add_clause(hard("mine", neg("tool:x"), scope=ClauseScope.SESSION, session_id="s"))
    c.record_step(step("a"))
    c.record_step(step("a", sid="t"))
    assert not c.check_decision_allowed("s", "x").allowed
    assert c.check_decision_allowed("t", "x").allowed
    c.clear_step_history("s")
    assert c.snapshot().constraint_index().clause_count() == 0


def test_check_assignment_on_the_crs() -> None:
    c = CRS()
    c.add_clause(hard("c", neg("tool:a"), neg("outcome:failure")))
    assert not c.check_assignment({"tool:a": True}).conflict  # outcome unassigned
    r = c.check_assignment({"tool:a": True, "outcome:failure": True})
    assert r.conflict
    assert r.violated_clause is not None
    assert r.violated_clause.id == "c"


@pytest.mark.parametrize("clauses", [0, 1])
@pytest.mark.parametrize(
    "bad",
    [
        {"tool:a": 1},
        {"tool:a": None},
        {3: True},
        {"": True},
        {"tool:\ud800": True},
        {"tool": True, "tool:": False},  # the same variable, both values
    ],
)
def test_check_assignment_refuses_bad_entries_on_both_paths(
    bad: dict[Any, Any], clauses: int
) -> None:
    """A dict takes the path checked in Rust; other mappings and bad entries the Python one:
    the same typed error either way, with and without clauses to check against."""
    c = CRS()
    if clauses:
        c.add_clause(hard("c", neg("tool:a")))
    for target in (c, c.snapshot().constraint_index()):
        for arg in (bad, types.MappingProxyType(bad)):
            with pytest.raises(InvalidArgumentError, match=r"^assignment"):
                target.check_assignment(arg)


@given(
    st.dictionaries(
        st.sampled_from(["tool:a", "tool:b", "outcome:failure", "outcome", "x:y:z", "tool"]),
        st.booleans(),
    )
)
def test_check_assignment_dict_and_mapping_agree(assign: dict[str, bool]) -> None:
    c = CRS()
    c.add_clause(hard("c1", neg("tool:a"), neg("outcome:failure")))
    c.add_clause(hard("c2", Literal(variable="tool:b"), neg("x:y:z")))
    c.add_clause(hard("c3", neg("outcome")))
    want = [  # oldest learned first
        cl.id
        for cl in c.snapshot().constraint_index().all_clauses().values()
        if all(assign.get(lit.variable) is lit.negated for lit in cl.literals)
    ]
    for target in (c, c.snapshot().constraint_index()):
        fast = target.check_assignment(assign)
        slow = target.check_assignment(types.MappingProxyType(assign))
        assert fast == slow
        assert fast.conflict == bool(want)
        assert (fast.violated_clause and fast.violated_clause.id) == (want[0] if want else None)


def test_learn_from_failure_never_learns_from_soft_signals() -> None:
    c = CRS()
    first = c.record_step(step("build", Outcome.FAILURE, ErrorCategory.INTERNAL))
    second = c.record_step(step("build", Outcome.FAILURE, ErrorCategory.INTERNAL))
    event = FailureEvent(
        session_id="s",
        failure_type=FailureType.TOOL_ERROR,
        decision_path=(first,),
        failed_step=second,
        source=SignalSource.SOFT,
    )
    assert c.learn_from_failure(event) is None
    assert c.snapshot().constraint_index().clause_count() == 0
    assert c.generation() == 0
    learned = c.learn_from_failure(
        FailureEvent(
            session_id="s",
            failure_type=FailureType.TOOL_ERROR,
            decision_path=(first,),
            failed_step=second,
            source=SignalSource.HARD,
        )
    )
    assert learned is not None
    assert not c.check_decision_allowed("s", "build").allowed
    assert c.check_decision_allowed("s", "grep").allowed


# ---------------------------------------------------------------- similarity


def test_record_and_get_similarity_canonical_pairs() -> None:
    c = CRS()
    c.record_similarity("grep:b", "grep:a", 0.25)
    assert c.generation() == 1
    assert c.get_similarity("grep:a", "grep:b") == 0.25
    assert c.get_similarity("grep:b", "grep:a") == 0.25
    assert c.get_similarity("grep:a", "grep:c") is None
    c.record_similarity("grep:a", "grep:b", 0.0)  # zero is a real distance, and an update
    assert c.get_similarity("grep:b", "grep:a") == 0.0
    assert c.snapshot().similarity_index().size() == 1


def test_semantic_repetition_reports_earlier_near_duplicates() -> None:
    c = CRS()
    assert c.check_semantic_repetition("s", "Grep", "parseConfig in internal config loader") == []
    c.check_semantic_repetition("s", "read_file", "main.go")
    hits = c.check_semantic_repetition("s", "Grep", "parseConfig in internal config loaders")
    assert [h.node_id for h in hits] == ["Grep:parseConfig in internal config loader"]
    assert 0 < hits[0].distance <= 0.3
    assert (
        c.check_semantic_repetition("other", "Grep", "parseConfig in internal config loader") == []
    )
    assert c.generation() == 0


# ---------------------------------------------------------------- checkpoint, replay


def test_checkpoint_and_restore_bring_back_guard_state() -> None:
    c = CRS()
    c.record_step(step("a"))
    c.add_clause(hard("c", neg("tool:x")))
    c.check_semantic_repetition("s", "grep", "q one two")
    cp = c.checkpoint()
    c.clear_step_history("s")
    c.add_clause(hard("d", neg("tool:y")))
    gen = c.generation()
    c.restore(cp)
    assert c.generation() == gen + 1
    assert [s.tool for s in c.get_step_history("s")] == ["a"]
    assert list(c.snapshot().constraint_index().all_clauses()) == ["c"]
    assert c.check_semantic_repetition("s", "grep", "q one two")[0].distance == 0.0
    json.dumps(cp._guards)  # JSON-safe
    c.restore(cp)  # idempotent
    assert list(c.snapshot().constraint_index().all_clauses()) == ["c"]


class JsonJournal:
    """A journal that keeps each record as JSON text, as a file journal would."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def append(self, record: Delta | dict[str, Any]) -> None:
        body = record.to_dict() if isinstance(record, Delta) else record
        self.lines.append(json.dumps({"delta": isinstance(record, Delta), "body": body}))

    def records(self) -> list[Delta | dict[str, Any]]:
        out: list[Delta | dict[str, Any]] = []
        for line in self.lines:
            d = json.loads(line)
            out.append(delta_from_dict(d["body"]) if d["delta"] else d["body"])
        return out


def test_journal_replay_reproduces_guard_state_exactly() -> None:
    journal = JsonJournal()
    c = CRS(journal=journal)
    c.set_clause_config(ClausePersistence(scope=ClauseScope.PROJECT, ttl=3600.0, max_clauses=2))
    for t in ("a", "b", "build"):
        c.record_step(step(t))
    rich = dataclasses.replace(
        step("deploy"),
        model="m",
        confidence=0.5,
        tool_params=crs.ToolParams(query="q", flags=("-x",), extra=(crs.KeyValue("k", "v"),)),
        proof_updates=(
            ProofUpdate(node_id="n", type=ProofUpdateType.INCREMENT, delta=1, source=1),
        ),
        constraints_added=(crs.ConstraintUpdate(id="k", nodes=("a", "b")),),
        dependencies_found=(crs.DependencyEdge(from_="a", to="b"),),
    )
    c.record_step(rich)
    c.add_clause(hard("c1", neg("tool:a")))
    c.add_clause(hard("c2", neg("tool:b")))
    c.check_decision_allowed("s", "a")  # use of c1 is journaled: LRU must replay the same
    c.add_clause(hard("c3", neg("tool:c")))  # evicts c2
    c.update_proof_number(
        ProofUpdate(node_id="n", type=ProofUpdateType.INCREMENT, delta=2, source=2)
    )
    c.record_similarity("x", "y", 0.5)
    c.check_semantic_repetition("s", "grep", "find things")
    c.clear_step_history("other")

    replayed = CRS()
    for rec in journal.records():
        replayed._kernel.replay(rec)
    assert replayed._kernel.export_parts() == c._kernel.export_parts()
    assert replayed.get_step_history("s") == c.get_step_history("s")  # nested records too
    assert replayed.get_proof_status("n") == c.get_proof_status("n")
    assert replayed.get_similarity("x", "y") == 0.5


def test_least_recently_active_session_is_evicted_as_if_it_ended() -> None:
    from crs._reasoning._steps import MAX_SESSIONS

    c = CRS()
    c.add_clause(hard("first", neg("tool:x"), scope=ClauseScope.SESSION, session_id="s0"))
    c.record_step(step(sid="s0"))
    c.record_step(step(sid="s1"))
    c.record_step(step(sid="s0"))  # s0 active again: s1 is now the least recent
    for i in range(2, MAX_SESSIONS):
        c.record_step(step(sid=f"s{i}"))
    assert c.get_step_history("s1") != []
    c.record_step(step(sid="new"))
    assert c.get_step_history("s1") == []
    assert len(c.get_step_history("s0")) == 2
    assert c._guards.steps.evicted_sessions == 1
    c.record_step(step(sid="newer"))  # now s0 is the least recent: its clause ends with it
    assert c.get_step_history("s0") == []
    assert c.snapshot().constraint_index().clause_count() == 0


def test_concurrent_agents_share_one_crs_safely() -> None:
    import threading

    c = CRS()
    errors: list[BaseException] = []

    def agent(n: int) -> None:
        try:
            sid = f"agent-{n}"
            for i in range(200):
                c.record_step(step(f"tool{i % 7}", sid=sid))
                c.check_circuit_breaker(sid, "tool1")
                c.check_decision_allowed(sid, f"tool{i % 5}")
                if i % 50 == 0:
                    c.add_clause(hard(f"c{n}-{i}", neg(f"tool:t{n}-{i}")))
                c.snapshot().constraint_index().all_clauses()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=agent, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for n in range(4):
        hist = c.get_step_history(f"agent-{n}")
        assert [s.step_number for s in hist] == list(range(1, 201))
    assert c.snapshot().constraint_index().clause_count() == 16
    assert c.generation() == 16


actions = st.lists(
    st.one_of(
        st.tuples(st.just("step"), st.sampled_from("st"), st.sampled_from("abc"), st.booleans()),
        st.tuples(st.just("clause"), st.sampled_from("abc"), st.sampled_from("abc")),
        st.tuples(st.just("check"), st.sampled_from("st"), st.sampled_from("abc")),
        st.tuples(st.just("query"), st.sampled_from("st"), st.sampled_from(["x y z", "x y w"])),
        st.tuples(st.just("clear"), st.sampled_from("st")),
        st.tuples(st.just("gc")),
        st.tuples(st.just("learn"), st.sampled_from("st")),
    ),
    max_size=30,
)


@given(actions)
def test_replay_of_any_guard_history_reproduces_the_state(script: list[tuple[Any, ...]]) -> None:
    journal = JsonJournal()
    c = CRS(journal=journal)
    c.set_clause_config(ClausePersistence(scope=ClauseScope.PROJECT, ttl=3600.0, max_clauses=3))
    for act in script:
        kind = act[0]
        if kind == "step":
            ok = act[3]
            c.record_step(
                step(
                    act[2],
                    Outcome.SUCCESS if ok else Outcome.FAILURE,
                    ErrorCategory.NONE if ok else ErrorCategory.INTERNAL,
                    sid=act[1],
                )
            )
        elif kind == "clause":
            c.add_clause(
                hard(f"{act[1]}{act[2]}", neg(f"tool:{act[1]}"), neg(f"prev_tool:{act[2]}"))
            )
        elif kind == "check":
            c.check_decision_allowed(act[1], act[2])
        elif kind == "query":
            c.check_semantic_repetition(act[1], "grep", act[2])
        elif kind == "clear":
            c.clear_step_history(act[1])
        elif kind == "gc":
            c.garbage_collect_clauses()
        else:
            hist = c.get_step_history(act[1])
            if hist:
                c.learn_from_failure(
                    FailureEvent(
                        session_id=act[1],
                        failure_type=FailureType.TOOL_ERROR,
                        decision_path=tuple(hist[:-1]),
                        failed_step=hist[-1],
                        source=SignalSource.HARD,
                    )
                )
    replayed = CRS()
    for rec in journal.records():
        replayed._kernel.replay(rec)
    assert replayed._kernel.export_parts() == c._kernel.export_parts()


def test_stored_clause_is_not_the_callers_list() -> None:
    c = CRS()
    lits = [neg("tool:x")]
    c.add_clause(Clause(id="c", literals=lits, source=SignalSource.HARD))  # type: ignore[arg-type]
    lits.append(neg("tool:y"))
    got = c.snapshot().constraint_index().get_clause("c")
    assert got is not None
    assert got.literals == (neg("tool:x"),)
