# ruff: noqa: RUF001  (the NOT and OR signs are the reference's clause notation)
"""The guards' parts that need no CRS: step store, proof arithmetic, circuit-breaker decision,
disproof propagation over BFS edges, clause derivation from failures, state keys, decision
graphs with Tarjan (against a reference), and the per-session MinHash memory.
"""

from __future__ import annotations

import dataclasses
import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crs import HardSoftBoundaryViolationError, InvalidArgumentError
from crs._reasoning._clauses import FailureEvent
from crs._reasoning._cycles_session import (
    build_decision_graph,
    get_state_key,
    get_tool_state_key,
    params_hash,
    strongly_connected_components,
)
from crs._reasoning._failure import derive_clause
from crs._reasoning._proof import (
    MAX,
    apply_update,
    circuit_breaker,
    propagation_updates,
    threshold_for,
)
from crs._reasoning._semantic import SemanticMemory
from crs._reasoning._steps import StepStore
from crs._types import (
    DEFAULT_CIRCUIT_BREAKER_THRESHOLDS,
    Actor,
    Decision,
    ErrorCategory,
    FailureType,
    KeyValue,
    Outcome,
    ProofNumber,
    ProofStatus,
    ProofUpdate,
    ProofUpdateType,
    SignalSource,
    StepRecord,
    ToolParams,
)
from guards_reference import sccs
from steps import tool_step


def step(
    tool: str = "grep",
    outcome: Outcome = Outcome.SUCCESS,
    err: ErrorCategory = ErrorCategory.NONE,
    decision: Decision = Decision.EXECUTE_TOOL,
    n: int = 0,
) -> StepRecord:
    return tool_step(tool, outcome, error=err, decision=decision, step_number=n)


# ---------------------------------------------------------------- steps


def test_prepare_numbers_and_times_steps_then_validates() -> None:
    store = StepStore()
    a = store.prepare(step())
    assert a.step_number == 1
    assert a.timestamp > 0
    store.append(a)
    b = store.prepare(step(n=0))
    assert b.step_number == 2
    explicit = store.prepare(dataclasses.replace(step(n=7), timestamp=5))
    assert (explicit.step_number, explicit.timestamp) == (7, 5)
    with pytest.raises(InvalidArgumentError, match=r"^step.session_id"):
        store.prepare(StepRecord())
    with pytest.raises(InvalidArgumentError, match=r"^step.error_category"):
        store.prepare(step(outcome=Outcome.FAILURE))
    with pytest.raises(InvalidArgumentError, match=r"^step.actor"):
        store.prepare(dataclasses.replace(step(), actor="robot"))
    with pytest.raises(InvalidArgumentError, match=r"^step:"):
        store.prepare("not a step")  # type: ignore[arg-type]
    assert store.history("s") == [a]  # failed prepares changed nothing
    assert store.sessions() == ["s"]


def test_store_evicts_fifo_with_counter_and_log(caplog: pytest.LogCaptureFixture) -> None:
    store = StepStore(max_steps=3)
    with caplog.at_level(logging.INFO, logger="crs.steps"):
        for _ in range(5):
            store.append(store.prepare(step()))
    assert [s.step_number for s in store.history("s")] == [3, 4, 5]
    assert store.evicted == 2
    assert store.count_executions("s", "grep") == 3  # evicted executions no longer count
    assert sum("evicted step" in r.message for r in caplog.records) == 2
    # Numbers continue after eviction (no duplicates, unlike the Go package).
    assert store.prepare(step()).step_number == 6


def test_executions_count_only_execute_tool_steps() -> None:
    store = StepStore()
    for d in (Decision.SELECT_TOOL, Decision.EXECUTE_TOOL, Decision.EXECUTE_TOOL):
        store.append(store.prepare(step(decision=d)))
    assert store.count_executions("s", "grep") == 2
    assert store.count_executions("s", "other") == 0
    assert store.count_executions("nobody", "grep") == 0


def test_step_store_export_round_trip() -> None:
    store = StepStore(max_steps=2)
    for _ in range(3):
        store.append(store.prepare(step()))
    back = StepStore.from_export(store.export())
    assert back.export() == store.export()
    assert back.prepare(step()).step_number == 4


# ---------------------------------------------------------------- proof arithmetic


def upd(t: ProofUpdateType, delta: int = 0, src: SignalSource = SignalSource.HARD) -> ProofUpdate:
    return ProofUpdate(node_id="n", type=t, delta=delta, source=src)


def test_new_node_starts_at_ten_and_increment_expands() -> None:
    n = apply_update(None, upd(ProofUpdateType.INCREMENT, 5, SignalSource.SOFT), now=42)
    assert (n.proof, n.disproof, n.status, n.source, n.updated_at) == (
        15,
        10,
        ProofStatus.EXPANDED,
        SignalSource.SOFT,
        42,
    )


def test_saturating_increment_and_decrement() -> None:
    near = ProofNumber(proof=MAX - 3, disproof=10, status=ProofStatus.EXPANDED)
    assert apply_update(near, upd(ProofUpdateType.INCREMENT, 5), 0).proof == MAX
    assert apply_update(near, upd(ProofUpdateType.INCREMENT, 3), 0).proof == MAX
    assert apply_update(near, upd(ProofUpdateType.INCREMENT, 2), 0).proof == MAX - 1
    low = ProofNumber(proof=3, disproof=10)
    d = apply_update(low, upd(ProofUpdateType.DECREMENT, 5), 0)
    assert (d.proof, d.status) == (0, ProofStatus.EXPANDED)


def test_proven_stays_proven_on_increment_and_disproof_is_kept() -> None:
    proven = ProofNumber(proof=0, disproof=7, status=ProofStatus.PROVEN)
    n = apply_update(proven, upd(ProofUpdateType.INCREMENT, 1), 0)
    assert (n.proof, n.disproof, n.status) == (1, 7, ProofStatus.PROVEN)


def test_disproven_proven_reset() -> None:
    cur = ProofNumber(proof=12, disproof=7, status=ProofStatus.EXPANDED)
    d = apply_update(cur, upd(ProofUpdateType.DISPROVEN), 0)
    assert (d.proof, d.disproof, d.status) == (MAX, 7, ProofStatus.DISPROVEN)
    p = apply_update(cur, upd(ProofUpdateType.PROVEN, src=SignalSource.SOFT), 0)
    assert (p.proof, p.disproof, p.status) == (0, 7, ProofStatus.PROVEN)
    r = apply_update(d, upd(ProofUpdateType.RESET), 0)
    assert (r.proof, r.disproof, r.status) == (10, 10, ProofStatus.UNKNOWN)


def test_soft_cannot_touch_a_disproven_node() -> None:
    d = ProofNumber(proof=MAX, disproof=10, status=ProofStatus.DISPROVEN)
    with pytest.raises(HardSoftBoundaryViolationError, match=r"update\.source"):
        apply_update(d, upd(ProofUpdateType.DECREMENT, 1, SignalSource.SOFT), 0)


def test_circuit_breaker_reasons_are_the_references() -> None:
    r = circuit_breaker("grep", None, 2, 2)
    assert (r.should_fire, r.reason, r.proof_number) == (
        True,
        "tool grep called 2 times (threshold: 2)",
        0,
    )
    r = circuit_breaker("grep", None, 1, 2)
    assert (r.should_fire, r.reason, r.proof_number) == (
        False,
        "no proof data, execution count below threshold",
        10,
    )
    dis = ProofNumber(proof=MAX, status=ProofStatus.DISPROVEN)
    assert circuit_breaker("grep", dis, 0, 2).reason == "tool grep is disproven"
    ex = ProofNumber(proof=MAX, status=ProofStatus.EXPANDED)
    r = circuit_breaker("grep", ex, 0, 2)
    assert (r.should_fire, r.reason) == (True, f"tool grep proof exhausted: pn={MAX}")
    ok = ProofNumber(proof=11, status=ProofStatus.EXPANDED)
    r = circuit_breaker("grep", ok, 99, 2)
    assert (r.should_fire, r.reason, r.proof_number, r.status) == (
        False,
        "proof number viable",
        11,
        ProofStatus.EXPANDED,
    )


def test_thresholds_per_tool_with_fallback() -> None:
    t = dict(DEFAULT_CIRCUIT_BREAKER_THRESHOLDS)
    assert threshold_for(t, "Grep") == 5
    assert threshold_for(t, "find_callers") == 4
    assert threshold_for(t, "other") == 2
    assert threshold_for({"x": 0}, "x") == 2


def test_propagation_increments_parents_once_per_child() -> None:
    # b and c depend on a; d depends on b and c. Only a is disproven: b, c get +1 each;
    # they stay viable, so d is untouched.
    edges = [("b", "a", 0), ("c", "a", 0), ("d", "b", 1), ("d", "c", 1)]
    out, n = propagation_updates("a", edges, {}.get, now=1)
    assert n == 2
    assert {k: v.proof for k, v in out.items()} == {"b": 11, "c": 11}
    assert all(v.status == ProofStatus.EXPANDED for v in out.values())


def test_propagation_continues_through_exhausted_parents() -> None:
    edges = [("b", "a", 0), ("c", "b", 1), ("d", "c", 2)]
    read = {"b": ProofNumber(proof=MAX - 1, disproof=10, status=ProofStatus.EXPANDED)}
    out, n = propagation_updates("a", edges, read.get, now=1)
    assert n == 2
    assert out["b"].proof == MAX
    assert out["c"].proof == 11
    assert "d" not in out


# ---------------------------------------------------------------- learning from failures


def failure_event(path: list[StepRecord], failed: StepRecord, **kw: object) -> FailureEvent:
    base: dict[str, object] = {
        "session_id": "s",
        "failure_type": FailureType.TOOL_ERROR,
        "decision_path": tuple(path),
        "failed_step": failed,
        "source": SignalSource.HARD,
    }
    base.update(kw)
    return FailureEvent(**base)  # type: ignore[arg-type]


def test_repeat_failure_learns_do_not_retry_after_failure() -> None:
    f1 = step("build", Outcome.FAILURE, ErrorCategory.INTERNAL, n=2)
    f2 = step("build", Outcome.FAILURE, ErrorCategory.INTERNAL, n=3)
    c = derive_clause(failure_event([step("grep", n=1), f1], f2))
    assert c is not None
    assert str(c) == "(¬tool:build ∨ ¬prev_tool:build ∨ ¬outcome:failure ∨ ¬error:internal)"
    assert c.source == SignalSource.HARD
    assert c.failure_type == FailureType.TOOL_ERROR
    assert c.session_id == "s"
    assert c.id.startswith("learned:tool_error:")
    c.validate()


def test_an_error_category_given_as_text_is_learned_like_the_enum() -> None:
    # StepRecord accepts the category's value as a str (found by tests/api' record checker).
    f1 = step("build", Outcome.FAILURE, ErrorCategory.INTERNAL, n=2)
    f2 = step("build", Outcome.FAILURE, ErrorCategory.INTERNAL, n=3)
    as_text = dataclasses.replace(f1, error_category="internal")
    c = derive_clause(failure_event([step("grep", n=1), as_text], f2))
    assert c == derive_clause(failure_event([step("grep", n=1), f1], f2))


def test_context_two_adds_prev_prev_tool_and_skips_the_select_step() -> None:
    fail = step("build", Outcome.FAILURE, ErrorCategory.INTERNAL)
    path = [step("grep"), step("read"), step("build", decision=Decision.SELECT_TOOL), fail]
    c = derive_clause(failure_event(path, fail), context=2)
    assert c is not None
    assert str(c) == "(¬tool:build ∨ ¬prev_tool:read ∨ ¬outcome:success ∨ ¬prev_prev_tool:grep)"


def test_nothing_learned_from_soft_transient_or_contextless_failures() -> None:
    fail = step("build", Outcome.FAILURE, ErrorCategory.INTERNAL)
    assert derive_clause(failure_event([step()], fail, source=SignalSource.SOFT)) is None
    timeout = step("build", Outcome.FAILURE, ErrorCategory.TIMEOUT)
    assert derive_clause(failure_event([step()], timeout)) is None
    assert derive_clause(failure_event([], fail)) is None
    with pytest.raises(InvalidArgumentError, match=r"^context"):
        derive_clause(failure_event([step()], fail), context=3)


def test_same_failure_derives_the_same_id() -> None:
    fail = step("build", Outcome.FAILURE, ErrorCategory.INTERNAL)
    a = derive_clause(failure_event([step()], fail))
    b = derive_clause(failure_event([step(), step()], fail))
    assert a is not None
    assert b is not None
    assert a.id == b.id


# ---------------------------------------------------------------- keys and graphs


def test_state_keys_follow_the_reference() -> None:
    s = StepRecord(
        decision=Decision.EXECUTE_TOOL,
        tool="list_packages",
        outcome=Outcome.SUCCESS,
        actor=Actor.ROUTER,
    )
    assert get_state_key(s) == "execute_tool:list_packages:success:router"
    cb = StepRecord(decision=Decision.CIRCUIT_BREAKER, outcome=Outcome.FORCED, actor=Actor.SYSTEM)
    assert get_state_key(cb) == "circuit_breaker::forced:system"
    assert get_state_key(StepRecord()) == ":::"
    assert get_tool_state_key(s) == "list_packages:success"
    assert get_tool_state_key(cb) == "no_tool:forced"


def test_params_hash_is_canonical_and_optional_in_keys() -> None:
    p1 = ToolParams(query="x", flags=("-i", "-n"), extra=(KeyValue("a", "1"), KeyValue("b", "2")))
    p2 = ToolParams(query="x", flags=("-n", "-i"), extra=(KeyValue("b", "2"), KeyValue("a", "1")))
    p3 = ToolParams(query="y")
    assert params_hash(p1) == params_hash(p2) != params_hash(p3)
    assert params_hash(None) == ""
    s1 = StepRecord(tool="grep", tool_params=p1)
    s3 = StepRecord(tool="grep", tool_params=p3)
    assert get_state_key(s1) == get_state_key(s3)
    assert get_state_key(s1, with_params=True) != get_state_key(s3, with_params=True)
    assert get_tool_state_key(s1, with_params=True).startswith("grep::")


def test_decision_graph_drops_self_loops_and_keeps_duplicate_edges() -> None:
    steps = [StepRecord(tool=t) for t in "AABAB"]
    g = build_decision_graph(steps, key=get_tool_state_key)
    assert g.nodes == ("A:", "B:")
    assert g.edges == {"A:": ("B:", "B:"), "B:": ("A:",)}
    assert build_decision_graph([]).nodes == ()


@given(st.lists(st.sampled_from("ABCDEFG"), max_size=40))
def test_tarjan_matches_mutual_reachability(tools: list[str]) -> None:
    g = build_decision_graph([StepRecord(tool=t) for t in tools], key=get_tool_state_key)
    got = strongly_connected_components(g)
    assert {frozenset(c) for c in got} == sccs(g.nodes, g.edges)
    assert sorted(n for c in got for n in c) == sorted(g.nodes)


# ---------------------------------------------------------------- semantic memory


def test_semantic_memory_finds_near_duplicates_per_session() -> None:
    m = SemanticMemory()
    m.add("s", "grep:find the parse config function")
    m.add("s", "read_file:README.md")
    hits = m.matches("s", "grep:find the parse config function now", 0.5)
    assert [h.node_id for h in hits] == ["grep:find the parse config function"]
    assert 0.0 < hits[0].distance <= 0.5
    exact = m.matches("s", "grep:find the parse config function", 0.0)
    assert [(h.node_id, h.distance) for h in exact] == [
        ("grep:find the parse config function", 0.0)
    ]
    assert m.matches("other", "grep:find the parse config function", 1.0) == []


def test_semantic_memory_is_bounded_and_exports() -> None:
    m = SemanticMemory(max_per_session=2)
    for q in ("a b c", "d e f", "g h i"):
        m.add("s", f"grep:{q}")
    assert m.evicted == 1
    assert m.matches("s", "grep:a b c", 0.0) == []
    back = SemanticMemory.from_export(m.export())
    assert back.export()["sessions"] == m.export()["sessions"]


def test_docstring_examples_run() -> None:
    import doctest

    import crs
    from crs._reasoning import _clauses, _cycles_session, _failure, _proof

    globs = {**vars(_clauses), **vars(_cycles_session), **vars(_proof), **vars(_failure)}
    objs = [crs.Literal, crs.Clause, crs.get_state_key, crs.get_tool_state_key]
    objs += [crs.build_decision_graph, apply_update, derive_clause]
    attempted = 0
    for obj in objs:
        for test in doctest.DocTestFinder().find(obj, obj.__name__, globs=globs):
            result = doctest.DocTestRunner().run(test)
            assert result.failed == 0, obj
            attempted += result.attempted
    assert attempted >= 10


def test_step_store_bounds_sessions() -> None:
    store = StepStore(max_sessions=2)
    assert store.append(store.prepare(step())) is None
    assert store.append(store.prepare(dataclasses.replace(step(), session_id="t"))) is None
    gone = store.append(store.prepare(dataclasses.replace(step(), session_id="u")))
    assert gone == "s"
    assert store.sessions() == ["t", "u"]
    assert store.evicted_sessions == 1
    assert StepStore.from_export(store.export()).export() == store.export()
    with pytest.raises(InvalidArgumentError, match=r"^max_sessions"):
        StepStore(max_sessions=0)


def test_cycle_event_blames_the_step_that_closed_the_loop() -> None:
    read, grep = step("read", n=2), step("grep", n=3)
    closing = step("read", n=4)
    cb = StepRecord(
        session_id="s",
        step_number=5,
        actor=Actor.SYSTEM,
        decision=Decision.CIRCUIT_BREAKER,
        outcome=Outcome.FORCED,
    )
    event = failure_event(
        [step("search", n=1), read, grep, closing, cb],
        cb,
        failure_type=FailureType.CYCLE_DETECTED,
        tool="read",
    )
    c = derive_clause(event, context=2)
    assert c is not None
    assert str(c) == "(¬tool:read ∨ ¬prev_tool:grep ∨ ¬outcome:success ∨ ¬prev_prev_tool:read)"
    assert c.failure_type == FailureType.CYCLE_DETECTED
