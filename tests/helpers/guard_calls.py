"""Driving a `crs.guard.Guard` call by call in the rule tests (tests/guard/)."""

from __future__ import annotations

from pathlib import Path
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


def next_session_verdict(tmp_path: Path, tool: str, args: dict[str, Any], result: Any) -> Verdict:
    """A durable guard's session runs the call (allowed, answered `result`); the verdict a
    second session of the same project (the workspace unchanged) gives the same call."""
    home, project = tmp_path / "h", tmp_path / "p"
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "f") as g:
        first = decided(g, tool, args, result)
        assert first.action is Action.ALLOW, first
    with Guard.open(project, "s2", home=home, fingerprint=lambda: "f") as g:
        return g.before_call(tool, args)
