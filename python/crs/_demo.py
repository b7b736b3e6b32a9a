"""`crs demo`: a scripted agent session run against a real `CRS`.

The script is a small agent that searches, loops between reading and grepping, and runs a
build that fails twice. Before each tool call it asks crs (circuit breaker, learned clauses);
after each call it records the step, checks for a loop and learns from hard failures. The
table shows what crs decided at each step and why.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

from crs._clauses import FailureEvent
from crs._crs import CRS
from crs._cycle import CycleDetector
from crs._cycles_session import check_cycle_on_step
from crs._home import default_home
from crs._types import (
    Actor,
    Decision,
    ErrorCategory,
    FailureType,
    Outcome,
    SignalSource,
    StepRecord,
)

SESSION = "demo"

# (tool, outcome) the agent would like to run, in order.
SCRIPT: tuple[tuple[str, str], ...] = (
    ("search_code", "success"),
    ("read_file", "success"),
    ("grep", "success"),
    ("read_file", "success"),
    ("grep", "success"),
    ("plan", "success"),
    ("run_build", "failure"),
    ("run_build", "failure"),
    ("run_build", "success"),
)


@dataclass
class DemoStep:
    step: int
    tool: str
    outcome: str
    decision: str  # allow | loop | learned | blocked
    reason: str = ""


@dataclass
class DemoReport:
    home: str
    session_id: str
    steps: list[DemoStep] = field(default_factory=list)
    clauses: list[str] = field(default_factory=list)


def _gate(crs: CRS, tool: str) -> list[str]:
    """Every reason crs gives for not running `tool` now."""
    reasons = []
    allowed, why = crs.check_decision_allowed(SESSION, tool)
    if not allowed:
        reasons.append(why)
    breaker = crs.check_circuit_breaker(SESSION, tool)
    if breaker.should_fire:
        reasons.append(f"circuit breaker: {breaker.reason}")
    return reasons


def run_demo(home: Path | None = None) -> DemoReport:
    """Run the scripted session and return what crs decided at each step."""
    home = home if home is not None else default_home()
    report = DemoReport(home=str(home), session_id=SESSION)
    crs = CRS()
    detector = CycleDetector()
    for n, (tool, outcome_name) in enumerate(SCRIPT, start=1):
        blocked = _gate(crs, tool)
        if blocked:
            report.steps.append(DemoStep(n, tool, "-", "blocked", "; ".join(blocked)))
            continue
        outcome = Outcome(outcome_name)
        err = ErrorCategory.INTERNAL if outcome == Outcome.FAILURE else ErrorCategory.NONE
        before = crs.get_step_history(SESSION)
        step = crs.record_step(
            StepRecord(
                session_id=SESSION,
                actor=Actor.MAIN_AGENT,
                decision=Decision.EXECUTE_TOOL,
                tool=tool,
                outcome=outcome,
                error_category=err,
            )
        )
        decision, reasons = "allow", []
        found = check_cycle_on_step(crs, step, detector)
        if found.detected:
            decision = "loop"
            tools = " -> ".join(s.split(":")[1] for s in found.cycle)
            reasons.append(f"repeats [{tools}]; those tools are now disproven")
        if outcome == Outcome.FAILURE:
            clause = crs.learn_from_failure(
                FailureEvent(
                    session_id=SESSION,
                    failure_type=FailureType.TOOL_ERROR,
                    decision_path=tuple(before),
                    failed_step=step,
                    source=SignalSource.HARD,
                )
            )
            if clause is not None:
                decision = "learned" if decision == "allow" else decision
                reasons.append(f"learned {clause}")
        report.steps.append(DemoStep(n, tool, outcome_name, decision, "; ".join(reasons)))
    report.clauses = [str(c) for c in crs.snapshot().constraint_index().all_clauses().values()]
    return report


def print_report(report: DemoReport, out: TextIO) -> None:
    out.write(f"crs demo  session={report.session_id}  home={report.home}\n")
    out.write(f"{'step':>4}  {'tool':<12} {'outcome':<8} {'crs':<8} reason\n")
    for s in report.steps:
        out.write(f"{s.step:>4}  {s.tool:<12} {s.outcome:<8} {s.decision:<8} {s.reason}\n")
    out.write(f"learned clauses: {len(report.clauses)}\n")
    for c in report.clauses:
        out.write(f"  {c}\n")


def main(as_json: bool = False, home: Path | None = None, out: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    report = run_demo(home)
    if as_json:
        json.dump(asdict(report), out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:
        print_report(report, out)
    return 0
