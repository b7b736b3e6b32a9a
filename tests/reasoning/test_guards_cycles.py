"""`check_cycle_on_step` on random agent sessions against a pure-Python reference of the
detection rule (spec §5.7), for both key functions: every detected cycle disproves its state
nodes and the tools it used (the nodes the circuit breaker reads), in one generation, and
records one circuit-breaker step.
"""

from __future__ import annotations

import functools

from hypothesis import given
from hypothesis import strategies as st

from crs import (
    CRS,
    Actor,
    CycleDetector,
    Decision,
    Outcome,
    ProofStatus,
    StepRecord,
    ToolParams,
    check_cycle_on_step,
    get_state_key,
    get_tool_state_key,
)
from crs._reasoning._cycles_session import StateKeyFunction
from steps import tool_step


def reference_detections(keys: list[str]) -> list[list[str] | None]:
    """The cycle (or None) at each position: a repeat of a key seen since the last detection."""
    trail: list[str] = []
    out: list[list[str] | None] = []
    for k in keys:
        if k in trail:
            i = len(trail) - 1 - trail[::-1].index(k)
            out.append(trail[i:])
            trail = []
        else:
            trail.append(k)
            out.append(None)
    return out


moves = st.lists(
    st.tuples(st.sampled_from("ABCD"), st.booleans(), st.sampled_from(["x", "y"])),
    max_size=25,
)
key_functions: list[StateKeyFunction] = [
    get_state_key,
    get_tool_state_key,
    functools.partial(get_state_key, with_params=True),
]


@given(moves, st.sampled_from(key_functions))
def test_detections_and_disproofs_match_the_reference(
    script: list[tuple[str, bool, str]], key: StateKeyFunction
) -> None:
    c = CRS()
    detector = CycleDetector()
    steps = [
        tool_step(tool, Outcome.SUCCESS if ok else Outcome.FAILURE, tool_params=ToolParams(query=q))
        for tool, ok, q in script
    ]
    expected = reference_detections([key(s) for s in steps])
    key_tool = {key(s): s.tool for s in steps}
    disproven_tools: set[str] = set()
    for s, want in zip(steps, expected, strict=True):
        gen = c.generation()
        got = check_cycle_on_step(c, c.record_step(s), detector, key=key)
        assert got.detected == (want is not None)
        assert got.errors == ()
        if want is None:
            assert c.generation() == gen
            continue
        assert list(got.cycle) == want
        assert c.generation() == gen + 1  # one ProofDelta for all the nodes
        for state in want:
            node = c.get_proof_status(f"session:s:state:{state}")
            assert node is not None
            assert node.status == ProofStatus.DISPROVEN
        disproven_tools |= {key_tool[k] for k in want}
        last = c.get_last_step("s")
        assert last is not None
        assert last.is_circuit_breaker_intervention()
    for tool in "ABCD":
        breaker = c.check_circuit_breaker("s", tool)
        if tool in disproven_tools:
            assert breaker.reason == f"tool {tool} is disproven"
        else:
            assert breaker.proof_number in (0, 10)  # no proof data: execution count decides
    interventions = [s for s in c.get_step_history("s") if s.is_circuit_breaker_intervention()]
    assert len(interventions) == sum(w is not None for w in expected)


@given(
    st.sampled_from(list(Decision)),
    st.text(max_size=8),
    st.sampled_from(list(Outcome)),
    st.sampled_from(list(Actor)),
)
def test_state_key_is_the_reference_format(
    decision: Decision, tool: str, outcome: Outcome, actor: Actor
) -> None:
    s = StepRecord(decision=decision, tool=tool, outcome=outcome, actor=actor)
    assert get_state_key(s) == f"{decision.value}:{tool}:{outcome.value}:{actor.value}"
    assert get_tool_state_key(s) == f"{tool or 'no_tool'}:{outcome.value}"
    with_params = get_state_key(s, with_params=True)
    assert with_params.startswith(get_state_key(s) + ":")
