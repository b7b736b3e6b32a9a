"""Benchmarks of the guards through the public `CRS` API (issue 4), each beside what a user
would otherwise write, on the same data in the same run.

- `check_decision_allowed` with 10,000 and 1,000 learned clauses of 3-6 literals over 500
  variables, beside a plain Python scan of the same clauses with the same semantics.
- One full agent step (record_step + check_cycle_on_step + check_circuit_breaker +
  check_decision_allowed with 1,000 clauses), no journal.

Large inputs are built only when benchmarks are enabled; the smoke run of `make test`
(`--benchmark-disable`) uses 200 clauses.

Run: `.venv/bin/maturin develop --release && .venv/bin/python -m pytest
bench/test_bench_guards.py --benchmark-enable --benchmark-columns=median,iqr,rounds
--benchmark-sort=name`.
"""

from __future__ import annotations

import functools
import itertools
import random
from typing import Any

import pytest

import crs
from crs import (
    CRS,
    Actor,
    Clause,
    ClausePersistence,
    ClauseScope,
    CycleDetector,
    Decision,
    Literal,
    Outcome,
    SignalSource,
    StepRecord,
)

TOOLS = [f"t{i}" for i in range(100)]
OUTCOMES = ["success", "failure", "skipped", "forced"]
ERRORS = ["tool_not_found", "invalid_params", "timeout", "rate_limited", "permission"]
ERRORS += ["network", "internal", "safety"]
# 500 variables: tool, prev_tool, prev_prev_tool x 100, outcome x 4, error x 8, and a family
# the steps never observe (ctx x 188), so clauses naming it stay unassigned.
VARIABLES: dict[str, list[str]] = {
    "tool": TOOLS,
    "prev_tool": TOOLS,
    "prev_prev_tool": TOOLS,
    "outcome": OUTCOMES,
    "error": ERRORS,
    "ctx": [f"c{i}" for i in range(188)],
}
assert sum(len(v) for v in VARIABLES.values()) == 500


def clause_count(benchmark: Any, n: int) -> int:
    return n if not benchmark.disabled else 200


@functools.cache
def clauses(count: int) -> list[Clause]:
    """`count` distinct clauses of 3-6 literals in distinct families, 95 % negated (learned
    clauses are blocking conditions)."""
    rng = random.Random(11)
    out: list[Clause] = []
    seen: set[frozenset[tuple[str, bool]]] = set()
    families = list(VARIABLES)
    while len(out) < count:
        fams = rng.sample(families, rng.randint(3, 6))
        lits = tuple(
            Literal(variable=f"{f}:{rng.choice(VARIABLES[f])}", negated=rng.random() < 0.95)
            for f in fams
        )
        c = Clause(id=f"c{len(out)}", literals=lits, source=SignalSource.HARD)
        if c.signature() not in seen:
            seen.add(c.signature())
            out.append(c)
    return out


def step(tool: str, sid: str = "s") -> StepRecord:
    return StepRecord(
        session_id=sid,
        actor=Actor.MAIN_AGENT,
        decision=Decision.EXECUTE_TOOL,
        tool=tool,
        outcome=Outcome.SUCCESS,
    )


@functools.cache
def loaded_crs(count: int) -> CRS:
    c = CRS()
    c.set_clause_config(ClausePersistence(scope=ClauseScope.PROJECT, ttl=3600.0, max_clauses=count))
    for cl in clauses(count):
        c.add_clause(cl)
    c.record_step(step("t1"))
    c.record_step(step("t2"))
    return c


def naive_allowed(cls: list[Clause], observed: dict[str, str]) -> bool:
    """What a user would write: scan every clause under the one-hot semantics."""
    for c in cls:
        for lit in c.literals:
            fam, _, val = lit.variable.partition(":")
            seen = observed.get(fam)
            if seen is None or (seen == val) != lit.negated:
                break
        else:
            return False
    return True


def allowed_tool(c: CRS, count: int) -> str:
    """A proposal the clauses allow (the common case of an agent step)."""
    for t in TOOLS:
        if c.check_decision_allowed("s", t).allowed:
            return t
    raise AssertionError("no allowed tool in the benchmark data")


def observed_for(tool: str) -> dict[str, str]:
    return {"tool": tool, "prev_tool": "t2", "outcome": "success", "prev_prev_tool": "t1"}


SIZES = pytest.mark.parametrize("size", [10_000, 1_000], ids=["10k", "1k"])


@SIZES
def test_check_decision_allowed_crs(benchmark: Any, size: int) -> None:
    benchmark.group = f"guards: check_decision_allowed, {size} clauses / 500 variables"
    count = clause_count(benchmark, size)
    c = loaded_crs(count)
    tool = allowed_tool(c, count)
    assert benchmark(c.check_decision_allowed, "s", tool).allowed
    assert naive_allowed(clauses(count), observed_for(tool))


@SIZES
def test_check_decision_allowed_naive_python(benchmark: Any, size: int) -> None:
    benchmark.group = f"guards: check_decision_allowed, {size} clauses / 500 variables"
    count = clause_count(benchmark, size)
    tool = allowed_tool(loaded_crs(count), count)
    assert benchmark(naive_allowed, clauses(count), observed_for(tool))


def explicit_assignment(tool: str) -> dict[str, bool]:
    """The one-hot observation spelled out: observed values true, 9-10 others per family false."""
    obs = observed_for(tool)
    out = {f"{f}:{v}": True for f, v in obs.items()}
    for f in obs:
        for value in VARIABLES[f][:10]:
            out.setdefault(f"{f}:{value}", False)
    return out


def naive_conflict(cls: list[Clause], assignment: dict[str, bool]) -> bool:
    return any(all(assignment.get(lit.variable) is lit.negated for lit in c.literals) for c in cls)


@pytest.mark.benchmark(group="guards: check_assignment, 10k clauses / 500 variables")
def test_check_assignment_crs(benchmark: Any) -> None:
    count = clause_count(benchmark, 10_000)
    c = loaded_crs(count)
    assignment = explicit_assignment(allowed_tool(c, count))
    result = benchmark(c.check_assignment, assignment)
    assert result.conflict == naive_conflict(clauses(count), assignment)


@pytest.mark.benchmark(group="guards: check_assignment, 10k clauses / 500 variables")
def test_check_assignment_naive_python(benchmark: Any) -> None:
    count = clause_count(benchmark, 10_000)
    assignment = explicit_assignment(allowed_tool(loaded_crs(count), count))
    benchmark(naive_conflict, clauses(count), assignment)


@pytest.mark.benchmark(group="guards: one agent step, 1k clauses, no journal")
def test_full_agent_step(benchmark: Any) -> None:
    count = clause_count(benchmark, 1_000)
    c = loaded_crs(count)
    detector = CycleDetector()
    # A new tool each step: no loop and no breaker, the common step of a healthy agent.
    names = (f"bench_tool_{i}" for i in itertools.count())
    sid = "bench"
    fired: list[bool] = []

    def agent_step() -> bool:
        tool = next(names)
        s = c.record_step(step(tool, sid))
        found = crs.check_cycle_on_step(c, s, detector)
        breaker = c.check_circuit_breaker(sid, tool)
        allowed = c.check_decision_allowed(sid, tool)
        fired.append(found.detected or breaker.should_fire)
        return allowed.allowed

    benchmark(agent_step)
    assert not any(fired)
