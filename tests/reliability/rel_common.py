"""Helpers shared by the reliability suite (issue 11): projects, steps, clauses, images."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import crs


def image(c: crs.CRS) -> tuple[dict[str, Any], int]:
    """The whole state and its generation (what must survive a reopen)."""
    return c._state_image(), c.generation()


def step(sid: str, tool: Any, outcome: str = "success") -> crs.StepRecord:
    return crs.StepRecord(
        session_id=sid,
        actor=crs.Actor.MAIN_AGENT,
        decision=crs.Decision.EXECUTE_TOOL,
        tool=tool,
        outcome=crs.Outcome(outcome),
    )


def clause(tool: str, prev: str) -> crs.Clause:
    return crs.Clause(
        id=f"c-{tool}-{prev}",
        literals=(
            crs.Literal(variable=f"tool:{tool}", negated=True),
            crs.Literal(variable=f"prev_tool:{prev}", negated=True),
        ),
        source=crs.SignalSource.HARD,
        session_id="s1",
    )


def project(tmp: Path) -> tuple[Path, Path]:
    """A project directory and a home directory under `tmp`."""
    proj, home = tmp / "proj", tmp / "home"
    proj.mkdir(exist_ok=True)
    return proj, home


def jconfig(path: Path, **kw: Any) -> crs.JournalConfig:
    """A small-segment, fsync-free journal config at `path` (tests only)."""
    base = crs.JournalConfig(path=str(path), session_id="rel", sync_policy="none")
    return dataclasses.replace(base, **kw)
