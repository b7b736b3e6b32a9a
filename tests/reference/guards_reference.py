"""Slow, obviously-correct pure-Python references for the guards' decision logic.

The library computes these in Rust (watched literals, Tarjan); the tests compare.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def one_hot_value(observed: Mapping[str, str], variable: str) -> bool | None:
    """Three-valued one-hot truth of `family:value`: None when the family is unobserved."""
    family, sep, value = variable.partition(":")
    if not sep:
        family, value = variable, ""
    if family not in observed:
        return None
    return observed[family] == value


def literal_false(value: bool | None, negated: bool) -> bool:
    """A literal is false when its variable is assigned and the literal evaluates to False."""
    return value is not None and value == negated


def first_violated_one_hot(
    clauses: Sequence[tuple[str, Sequence[tuple[str, bool]]]], observed: Mapping[str, str]
) -> str | None:
    """Id of the first (oldest) clause whose literals are all false under one-hot `observed`."""
    for cid, lits in clauses:
        if all(literal_false(one_hot_value(observed, v), n) for v, n in lits):
            return cid
    return None


def first_violated_explicit(
    clauses: Sequence[tuple[str, Sequence[tuple[str, bool]]]], assignment: Mapping[str, bool]
) -> str | None:
    """Id of the oldest clause violated by an explicit assignment (missing = unassigned)."""
    for cid, lits in clauses:
        if all(literal_false(assignment.get(v), n) for v, n in lits):
            return cid
    return None


def sccs(nodes: Sequence[str], edges: Mapping[str, Sequence[str]]) -> set[frozenset[str]]:
    """Strongly connected components by mutual reachability (quadratic, obviously right)."""
    reach: dict[str, set[str]] = {}
    for n in nodes:
        seen = {n}
        stack = [n]
        while stack:
            for m in edges.get(stack.pop(), ()):
                if m not in seen:
                    seen.add(m)
                    stack.append(m)
        reach[n] = seen
    return {frozenset(m for m in nodes if m in reach[n] and n in reach[m]) for n in nodes}


def observed_families(history: Sequence[tuple[str, str, str]], proposal: str) -> dict[str, str]:
    """The families `check_decision_allowed` observes, from (tool, outcome, error) steps."""
    obs = {"tool": proposal}
    if history:
        tool, outcome, error = history[-1]
        if tool:
            obs["prev_tool"] = tool
        obs["outcome"] = outcome
        if error:
            obs["error"] = error
    if len(history) >= 2 and history[-2][0]:
        obs["prev_prev_tool"] = history[-2][0]
    return obs
