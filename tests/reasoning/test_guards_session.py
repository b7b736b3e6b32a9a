"""One scripted agent session, end to end, asserting the reasons a user would read.

The agent searches, then loops read -> grep -> read (the cycle is caught and both tools are
disproven), is stopped by the circuit breaker when it proposes grep again, runs a build that
fails twice (learning a clause from each hard failure), and is then stopped from running the
build a third time both by the learned clause and by the circuit breaker.
"""

from __future__ import annotations

# ruff: noqa: RUF001  (the NOT and OR signs are the reference's clause notation)
import dataclasses

from crs import (
    CRS,
    CycleDetector,
    ErrorCategory,
    FailureEvent,
    FailureType,
    Outcome,
    SignalSource,
    analyze_session_cycles,
    check_cycle_on_step,
)
from steps import tool_step

SID = "agent-1"


@dataclasses.dataclass
class Agent:
    """A tiny agent loop that asks crs before each tool call and reports every failure."""

    crs: CRS
    detector: CycleDetector
    log: list[tuple[str, str]] = dataclasses.field(default_factory=list)

    def gate(self, tool: str) -> str | None:
        """Why `tool` must not run now, or None."""
        breaker = self.crs.check_circuit_breaker(SID, tool)
        if breaker.should_fire:
            return f"circuit breaker: {breaker.reason}"
        allowed, reason = self.crs.check_decision_allowed(SID, tool)
        return None if allowed else reason

    def act(self, tool: str, outcome: Outcome = Outcome.SUCCESS) -> str:
        blocked = self.gate(tool)
        if blocked is not None:
            self.log.append((tool, blocked))
            return f"blocked: {blocked}"
        before = self.crs.get_step_history(SID)
        step = self.crs.record_step(tool_step(tool, outcome, session=SID))
        found = check_cycle_on_step(self.crs, step, self.detector)
        said = "ok"
        if found.detected:
            said = f"loop: {' -> '.join(found.cycle)}"
        if outcome == Outcome.FAILURE:
            clause = self.crs.learn_from_failure(
                FailureEvent(
                    session_id=SID,
                    failure_type=FailureType.TOOL_ERROR,
                    decision_path=tuple(before),
                    failed_step=step,
                    error_category=step.error_category,
                    tool=tool,
                    source=SignalSource.HARD,  # the build's exit code is a hard signal
                )
            )
            said = f"{said}; learned {clause}"
        self.log.append((tool, said))
        return said


def test_scripted_session_is_stopped_by_loop_breaker_and_learned_clause() -> None:
    crs = CRS()
    agent = Agent(crs, CycleDetector())
    read, grep = "execute_tool:read:success:main_agent", "execute_tool:grep:success:main_agent"

    assert [agent.act(t) for t in ("search", "read", "grep")] == ["ok"] * 3
    # read -> grep -> read: the loop is caught on the repeated state.
    assert agent.act("read") == f"loop: {read} -> {grep}"
    last = crs.get_last_step(SID)
    assert last is not None
    assert last.is_circuit_breaker_intervention()
    assert last.reasoning == f"cycle of length 2 detected: [{read} -> {grep}]"
    # The loop disproved the tools themselves, so the breaker stops grep at once.
    assert agent.act("grep") == "blocked: circuit breaker: tool grep is disproven"

    # A build fails twice; each hard failure teaches a clause about its context. The second
    # failure repeats the first one's state, which is also a loop (of length 1).
    assert agent.act("plan") == "ok"
    assert agent.act("build", Outcome.FAILURE) == (
        "ok; learned (¬tool:build ∨ ¬prev_tool:plan ∨ ¬outcome:success)"
    )
    repeat = "(¬tool:build ∨ ¬prev_tool:build ∨ ¬outcome:failure ∨ ¬error:internal)"
    assert agent.act("build", Outcome.FAILURE) == (
        f"loop: execute_tool:build:failure:main_agent; learned {repeat}"
    )

    # A third build is stopped by the learned clause...
    allowed, reason = crs.check_decision_allowed(SID, "build")
    assert not allowed
    assert reason.startswith("violates learned clause learned:tool_error:")
    assert reason.endswith(f": {repeat}")
    # ...and by the circuit breaker (the repeated failure disproved the tool).
    breaker = crs.check_circuit_breaker(SID, "build")
    assert breaker.should_fire
    assert breaker.reason == "tool build is disproven"
    assert agent.act("build") == "blocked: circuit breaker: tool build is disproven"
    # Other tools remain allowed.
    assert agent.gate("test") is None

    # In a new session the breaker starts afresh, but the project-scoped clause still
    # forbids retrying the build right after it failed with an internal error.
    build = tool_step("build", Outcome.FAILURE, session="agent-2")
    crs.record_step(build)
    assert not crs.check_circuit_breaker("agent-2", "build").should_fire
    assert crs.check_decision_allowed("agent-2", "build").reason.endswith(repeat)
    # Without its own proof data, the breaker counts executions (default threshold 2).
    crs.record_step(
        dataclasses.replace(build, outcome=Outcome.SUCCESS, error_category=ErrorCategory.NONE)
    )
    assert crs.check_circuit_breaker("agent-2", "build").reason == (
        "tool build called 2 times (threshold: 2)"
    )

    # After the session, Tarjan finds the read/grep loop in the decision graph.
    analysis = analyze_session_cycles(crs, SID)
    loop = {s for scc in analysis.cyclic_sccs for s in scc}
    assert {read, grep} <= loop
