"""Nothing accepted can be wrong (issue 11): one checker (`crs._check`) for every record.

Each public call that takes a record checks every field against its type hint first, with one
message form (`name: must be …, got …`). The property: a value the API accepts journals,
replays and backs up to an equal value; a value it refuses raises a typed `CRSError` and
leaves nothing behind (journal and state unchanged).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import crs
from crs import (
    Actor,
    Clause,
    ClausePersistence,
    ClauseScope,
    Config,
    ConstraintType,
    ConstraintUpdate,
    Decision,
    DeltaCodec,
    DependencyEdge,
    ErrorCategory,
    FailureEvent,
    FailureType,
    HistoryDelta,
    HistoryEntry,
    KeyValue,
    Literal,
    MemoryJournal,
    Outcome,
    ProofDelta,
    ProofNumber,
    ProofStatus,
    ProofUpdate,
    ProofUpdateType,
    SignalSource,
    StepRecord,
    ToolParams,
)
from crs._check import brief, check

GOOD = {"session_id": "s1", "actor": "router", "decision": "execute_tool", "outcome": "success"}


def _step(**kw: Any) -> StepRecord:
    return StepRecord(**{**GOOD, "tool": "grep", **kw})


# ---------------------------------------------------------------- the cases the issue names


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("tool", None),
        ("tool", 2**64),
        ("timestamp", None),
        ("timestamp", 2**64),
        ("error_category", "zzz"),
        ("step_number", "3"),
        ("confidence", True),
        ("reasoning", b"bytes"),
        ("tool_params", {"target": "x"}),
        ("proof_updates", (ProofUpdate(node_id="n", delta=2**70),)),
        ("session_id", "s\ud800"),
    ],
)
def test_record_step_refuses_a_field_of_the_wrong_type_and_leaves_nothing(
    field: str, value: Any
) -> None:
    journal = MemoryJournal(codec=DeltaCodec())
    c = crs.CRS(journal=journal)
    c.record_step(_step())
    before = (journal.replay(), c._kernel.export_parts())
    with pytest.raises(crs.InvalidArgumentError, match=rf"^step\.{field}\b.*: must be "):
        c.record_step(_step(**{field: value}))
    assert (journal.replay(), c._kernel.export_parts()) == before
    reopened = crs.CRS()
    for rec in journal.replay():
        reopened._kernel.replay(rec)  # the journal still replays: nothing bad was written


def test_clause_persistence_refuses_a_bool_ttl() -> None:
    c = crs.CRS()
    with pytest.raises(crs.InvalidArgumentError, match=r"^ttl: must be a finite number, got True"):
        c.set_clause_config(ClausePersistence(scope=ClauseScope.PROJECT, ttl=True, max_clauses=5))


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"max_generation": "5"}, "max_generation"),
        ({"snapshot_epoch_limit": 1.5}, "snapshot_epoch_limit"),
        ({"enable_metrics": 1}, "enable_metrics"),
        ({"circuit_breaker_thresholds": {"grep": "3"}}, "circuit_breaker_thresholds"),
        ({"circuit_breaker_thresholds": [("grep", 3)]}, "circuit_breaker_thresholds"),
        ({"sanitize_secrets": "no"}, "sanitize_secrets"),
    ],
)
def test_config_of_the_wrong_type_is_a_typed_error(kw: dict[str, Any], field: str) -> None:
    with pytest.raises(crs.InvalidArgumentError, match=rf"^{field}\b.*: must be "):
        crs.CRS(Config(**kw))


def test_config_keeps_a_read_only_copy_of_the_thresholds() -> None:
    thresholds = {"grep": 3}
    cfg = Config(circuit_breaker_thresholds=thresholds)
    thresholds["grep"] = -1
    thresholds["find"] = 0
    assert dict(cfg.circuit_breaker_thresholds) == {"grep": 3}
    with pytest.raises(TypeError):
        cfg.circuit_breaker_thresholds["grep"] = 9  # type: ignore[index]
    assert Config.from_dict(cfg.to_dict()) == cfg
    crs.CRS(cfg)  # and it validates


def test_error_messages_are_bounded_for_deep_or_hostile_values() -> None:
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]

    class Hostile:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    with pytest.raises(crs.InvalidArgumentError) as e:
        crs.CRS().record_step(_step(tool=deep))
    assert len(str(e.value)) < 300
    assert brief(Hostile()).startswith("<Hostile")
    assert len(brief("x" * 10_000)) < 100


def test_every_public_record_has_a_checker() -> None:
    """`check` compiles for every dataclass record the package exports."""
    n = 0
    for name in crs.__all__:
        obj = getattr(crs, name)
        if isinstance(obj, type) and dataclasses.is_dataclass(obj):
            try:
                instance = obj()
            except TypeError:
                continue  # a record without defaults for every field
            check(instance)  # the zero value of every record is of the right types
            n += 1
    assert n >= 30


# ---------------------------------------------------------------- the property

hostile = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "zzz", "\ud800", "x" * 300]),
    st.binary(max_size=4),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
texts = st.text(max_size=20)
ids = st.sampled_from(["a", "b", "node:1", "tool:grep"])
ints = st.integers(min_value=-(2**63), max_value=2**63 - 1)
u64 = st.integers(min_value=0, max_value=2**64 - 1)


def maybe(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly good values, one time in 20 a hostile one."""
    return st.integers(0, 19).flatmap(lambda n: hostile if n == 0 else good)


def enum_values(e: type[enum.Enum]) -> st.SearchStrategy[Any]:
    return st.sampled_from(list(e) + [m.value for m in e])


tool_params = st.builds(
    ToolParams,
    target=maybe(texts),
    query=maybe(texts),
    depth=maybe(ints),
    limit=maybe(ints),
    flags=maybe(st.lists(texts, max_size=2).map(tuple)),
    extra=maybe(
        st.lists(st.builds(KeyValue, key=maybe(texts), value=maybe(texts)), max_size=2).map(tuple)
    ),
)
proof_updates = st.builds(
    ProofUpdate,
    node_id=maybe(ids),
    type=maybe(enum_values(ProofUpdateType)),
    delta=maybe(u64),
    reason=maybe(texts),
    source=maybe(enum_values(SignalSource)),
    status=maybe(texts),
)
steps = st.builds(
    StepRecord,
    step_number=maybe(st.integers(min_value=-3, max_value=2**63 - 1)),
    timestamp=maybe(ints),
    session_id=maybe(st.sampled_from(["s1", "s2"])),
    actor=maybe(enum_values(Actor)),
    model=maybe(texts),
    decision=maybe(enum_values(Decision)),
    tool=maybe(ids),
    tool_params=maybe(st.none() | tool_params),
    confidence=maybe(st.floats(min_value=0, max_value=1)),
    reasoning=maybe(texts),
    outcome=maybe(enum_values(Outcome)),
    error_message=maybe(texts),
    error_category=maybe(enum_values(ErrorCategory)),
    duration_ms=maybe(st.integers(min_value=0, max_value=2**63 - 1)),
    result_summary=maybe(texts),
    tokens_used=maybe(ints),
    propagate=maybe(st.booleans()),
    terminal=maybe(st.booleans()),
    next_hint=maybe(texts),
    proof_updates=maybe(st.lists(proof_updates, max_size=2).map(tuple)),
    constraints_added=maybe(
        st.lists(
            st.builds(
                ConstraintUpdate,
                id=maybe(ids),
                type=maybe(enum_values(ConstraintType)),
                nodes=maybe(st.lists(ids, max_size=2).map(tuple)),
                source=maybe(enum_values(SignalSource)),
            ),
            max_size=2,
        ).map(tuple)
    ),
    dependencies_found=maybe(
        st.lists(
            st.builds(
                DependencyEdge,
                from_=maybe(ids),
                to=maybe(ids),
                source=maybe(enum_values(SignalSource)),
            ),
            max_size=2,
        ).map(tuple)
    ),
)
literals = st.builds(Literal, variable=maybe(ids), negated=maybe(st.booleans()))
clauses = st.builds(
    Clause,
    id=maybe(ids),
    literals=maybe(st.lists(literals, min_size=1, max_size=3).map(tuple)),
    source=maybe(st.sampled_from([SignalSource.HARD, SignalSource.SAFETY, 1, 3])),
    learned_at=maybe(ints),
    failure_type=maybe(enum_values(FailureType)),
    session_id=maybe(texts),
    use_count=maybe(ints),
    last_used=maybe(ints),
    scope=maybe(st.none() | enum_values(ClauseScope)),
)
clause_configs = st.builds(
    ClausePersistence,
    scope=maybe(enum_values(ClauseScope)),
    ttl=maybe(st.floats(min_value=1, max_value=1e9)),
    max_clauses=maybe(st.integers(min_value=1, max_value=10_000)),
)
events = st.builds(
    FailureEvent,
    session_id=maybe(st.sampled_from(["s1"])),
    failure_type=maybe(enum_values(FailureType)),
    decision_path=maybe(st.lists(steps, max_size=2).map(tuple)),
    failed_step=maybe(st.none() | steps),
    error_message=maybe(texts),
    error_category=maybe(enum_values(ErrorCategory)),
    tool=maybe(ids),
    source=maybe(enum_values(SignalSource)),
)
proof_numbers = st.builds(
    ProofNumber,
    proof=maybe(u64),
    disproof=maybe(u64),
    status=maybe(enum_values(ProofStatus)),
    source=maybe(enum_values(SignalSource)),
    updated_at=maybe(ints),
)
entries = st.builds(
    HistoryEntry,
    id=maybe(ids),
    node_id=maybe(ids),
    action=maybe(texts),
    result=maybe(texts),
    source=maybe(enum_values(SignalSource)),
    timestamp=maybe(ints),
    metadata=maybe(st.dictionaries(st.sampled_from(["k", "token", "note"]), texts, max_size=2)),
)


def _proof_delta(pn: ProofNumber) -> ProofDelta:
    return ProofDelta(SignalSource.HARD, {"n1": pn})


def _history_delta(e: HistoryEntry) -> HistoryDelta:
    return HistoryDelta(SignalSource.HARD, [e])


calls: st.SearchStrategy[tuple[str, Any]] = st.one_of(
    st.tuples(st.just("record_step"), steps),
    st.tuples(st.just("update_proof_number"), proof_updates),
    st.tuples(st.just("add_clause"), clauses),
    st.tuples(st.just("set_clause_config"), clause_configs),
    st.tuples(st.just("learn_from_failure"), events),
    st.tuples(st.just("apply_proof"), proof_numbers),
    st.tuples(st.just("apply_history"), entries),
)


def _run(c: crs.CRS, name: str, value: Any) -> Any:
    fns: dict[str, Callable[[Any], Any]] = {
        "record_step": c.record_step,
        "update_proof_number": c.update_proof_number,
        "add_clause": c.add_clause,
        "set_clause_config": c.set_clause_config,
        "learn_from_failure": c.learn_from_failure,
        "apply_proof": lambda pn: c.apply(_proof_delta(pn)),
        "apply_history": lambda e: c.apply(_history_delta(e)),
    }
    return fns[name](value)


def _state(c: crs.CRS) -> Any:
    snap = c.snapshot()
    return (
        c._kernel.export_parts(),
        snap.proof_index().all(),
        [e.to_dict() for e in snap.history_index().recent(1000)],
        c.generation(),
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(calls, min_size=1, max_size=6))
def test_accepted_values_round_trip_and_refused_values_leave_nothing(
    script: list[tuple[str, Any]],
) -> None:
    journal = MemoryJournal(codec=DeltaCodec())
    c = crs.CRS(journal=journal)
    for name, value in script:
        before = (journal.replay(), _state(c))
        try:
            _run(c, name, value)
        except crs.CRSError:
            event(f"{name} refused")
            assert (journal.replay(), _state(c)) == before, f"{name} refused but changed things"
            continue
        event(f"{name} accepted")
    # Everything accepted replays from the journal and loads from a backup to an equal state.
    replayed = crs.CRS()
    for rec in journal.replay():
        replayed._kernel.replay(rec)
    assert _state(replayed)[:3] == _state(c)[:3]
    restored = crs.CRS()
    restored.load_image(c.export_image())
    assert _state(restored)[:3] == _state(c)[:3]
