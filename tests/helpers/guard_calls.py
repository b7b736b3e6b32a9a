"""Driving a `crs.guard.Guard` call by call in the rule tests (tests/guard/)."""

from __future__ import annotations

from typing import Any

from crs.guard import Action, Guard, Verdict


def run(
    g: Guard, tool: str, args: dict[str, Any], result: Any = None, error: Any = None
) -> tuple[Verdict, Verdict | None]:
    """One call through the guard: its before verdict, and its after verdict if it ran."""
    before = g.before_call(tool, args)
    after = None
    if before.allowed and before.call is not None:
        after = g.after_call(before.call, result=result, error=error)
    return before, after


def flags(pairs: list[tuple[Verdict, Verdict | None]]) -> list[str]:
    """`action:code` of every verdict that is not ALLOW."""
    every = [v for pair in pairs for v in pair if v is not None]
    return [f"{v.action}:{v.code}" for v in every if v.action is not Action.ALLOW]


def decided(
    g: Guard, tool: str, args: dict[str, Any], result: Any = None, error: Any = None
) -> Verdict:
    """One call through the guard: the verdict that decided it (the before verdict of a
    refused call, the after verdict of one that ran)."""
    before, after = run(g, tool, args, result, error)
    return before if after is None else after
