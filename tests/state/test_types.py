"""Shared records: validation messages name the field; dict forms round-trip losslessly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import crs


def test_enum_strings() -> None:
    assert str(crs.ProofStatus.DISPROVEN) == "disproven"
    assert crs.ProofStatus.describe(9) == "ProofStatus(9)"
    assert str(crs.ErrorCategory.NONE) == "none"
    assert crs.ErrorCategory.TIMEOUT.is_retryable()
    assert not crs.ErrorCategory.PERMISSION.is_retryable()
    assert crs.SignalSource.SAFETY.is_hard()
    assert crs.SignalSource.SAFETY.is_safety()
    assert not crs.SignalSource.SOFT.is_hard()
    assert not crs.SignalSource.UNKNOWN.is_valid()


def valid_step(**kw: object) -> crs.StepRecord:
    base: dict[str, object] = {
        "step_number": 1,
        "session_id": "s1",
        "actor": crs.Actor.MAIN_AGENT,
        "decision": crs.Decision.EXECUTE_TOOL,
        "tool": "grep",
        "outcome": crs.Outcome.SUCCESS,
    }
    base.update(kw)
    return crs.StepRecord(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"session_id": ""}, "session_id"),
        ({"step_number": 0}, "step_number"),
        ({"actor": "robot"}, "actor"),
        ({"decision": "dance"}, "decision"),
        ({"outcome": "meh"}, "outcome"),
        ({"outcome": crs.Outcome.FAILURE}, "error_category"),
        ({"confidence": 1.5}, "confidence"),
        ({"confidence": float("nan")}, "confidence"),
        ({"duration_ms": -1}, "duration_ms"),
    ],
)
def test_step_validate_names_field(change: dict[str, object], field: str) -> None:
    with pytest.raises(crs.InvalidArgumentError, match=rf"^{field}:"):
        valid_step(**change).validate()


def test_step_predicates() -> None:
    s = valid_step()
    s.validate()
    assert s.is_tool_execution()
    assert not s.is_terminal()
    assert valid_step(decision=crs.Decision.COMPLETE).is_terminal()
    assert valid_step(decision=crs.Decision.CIRCUIT_BREAKER).is_circuit_breaker_intervention()


def test_proof_update_validate() -> None:
    ok = crs.ProofUpdate(
        node_id="n", type=crs.ProofUpdateType.INCREMENT, delta=1, source=crs.SignalSource.HARD
    )
    ok.validate()
    with pytest.raises(crs.InvalidArgumentError, match=r"^delta:"):
        crs.ProofUpdate(
            node_id="n", type=crs.ProofUpdateType.INCREMENT, source=crs.SignalSource.HARD
        ).validate()
    with pytest.raises(crs.InvalidArgumentError, match=r"^source:"):
        crs.ProofUpdate(node_id="n", type=crs.ProofUpdateType.PROVEN).validate()
    with pytest.raises(crs.InvalidArgumentError, match=r"^node_id:"):
        crs.ProofUpdate(type=crs.ProofUpdateType.PROVEN).validate()


def test_config() -> None:
    cfg = crs.DefaultConfig()
    cfg.validate()
    assert cfg.circuit_breaker_thresholds["Grep"] == 5
    with pytest.raises(crs.InvalidArgumentError, match="circuit_breaker_thresholds"):
        crs.Config(circuit_breaker_thresholds={"x": 0}).validate()


texts = st.text(max_size=8)


@given(
    step=st.builds(
        crs.StepRecord,
        step_number=st.integers(0, 10**6),
        session_id=texts,
        actor=st.sampled_from(list(crs.Actor)) | texts,
        decision=st.sampled_from(list(crs.Decision)),
        tool=texts,
        tool_params=st.none()
        | st.builds(
            crs.ToolParams,
            query=texts,
            flags=st.lists(texts, max_size=3).map(tuple),
            extra=st.lists(st.builds(crs.KeyValue, key=texts, value=texts), max_size=2).map(tuple),
        ),
        outcome=st.sampled_from(list(crs.Outcome)),
        error_category=st.sampled_from(list(crs.ErrorCategory)),
        proof_updates=st.lists(
            st.builds(
                crs.ProofUpdate,
                node_id=texts,
                type=st.sampled_from(list(crs.ProofUpdateType)),
                delta=st.integers(0, crs.PROOF_NUMBER_INFINITE),
                source=st.sampled_from(list(crs.SignalSource)),
            ),
            max_size=2,
        ).map(tuple),
        dependencies_found=st.lists(
            st.builds(crs.DependencyEdge, from_=texts, to=texts), max_size=2
        ).map(tuple),
    )
)
def test_step_dict_round_trip(step: crs.StepRecord) -> None:
    import json

    again = crs.StepRecord.from_dict(json.loads(json.dumps(step.to_dict())))
    assert again == step


def test_enum_is_valid() -> None:
    assert not crs.ProofUpdateType.UNKNOWN.is_valid()
    assert crs.ProofUpdateType.RESET.is_valid()
    for enum_cls in (crs.Actor, crs.Decision, crs.Outcome, crs.FailureType):
        assert all(member.is_valid() for member in enum_cls)
        assert not enum_cls.is_valid_value("no-such-value")
    assert crs.Outcome.is_valid_value("success")
    assert crs.DEFAULT_DELTA_RECORD_CHANNEL_SIZE == 100
    assert crs.DEFAULT_DELTA_QUERY_CHANNEL_SIZE == 10
