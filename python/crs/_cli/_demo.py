"""`crs demo`: a scripted agent session run against a real, durable `CRS`.

The script is a small agent that searches, loops between reading and grepping, and runs a
build that fails twice. Before each tool call it asks crs (circuit breaker, learned clauses);
after each call it records the step, checks for a loop and learns from hard failures. The
table shows what crs decided at each step and why.

The CRS is the demo project's (`open_project` under the data directory, `$CRS_HOME`, else
`~/.crs`): every change goes to its journal, and a backup is saved at the end. A second run
restores what the first learned, so the failing build is blocked at once, by the clause the
first run learned.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from crs._crs import CRS
from crs._home import default_home
from crs._project import open_project
from crs._reasoning._clauses import FailureEvent
from crs._reasoning._cycle import CycleDetector
from crs._reasoning._cycles_session import check_cycle_on_step
from crs._types import (
    Actor,
    Decision,
    ErrorCategory,
    FailureType,
    Outcome,
    SignalSource,
    StepRecord,
)

PROJECT_DIR = "demo-project"
"""The demo's project directory, inside the data directory."""


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
    run: int = 1
    restored: dict[str, Any] = field(default_factory=dict)
    steps: list[DemoStep] = field(default_factory=list)
    clauses: list[str] = field(default_factory=list)
    journal: dict[str, Any] = field(default_factory=dict)
    backup: dict[str, Any] = field(default_factory=dict)


def _gate(crs: CRS, session: str, tool: str, learned_before: set[str]) -> list[str]:
    """Every reason crs gives for not running `tool` now."""
    reasons = []
    allowed, why = crs.check_decision_allowed(session, tool)
    if not allowed:
        earlier = any(why.startswith(f"violates learned clause {c}:") for c in learned_before)
        reasons.append(f"{why} (learned in an earlier run)" if earlier else why)
    breaker = crs.check_circuit_breaker(session, tool)
    if breaker.should_fire:
        reasons.append(f"circuit breaker: {breaker.reason}")
    return reasons


def _clause_ids(crs: CRS) -> list[str]:
    return list(crs.snapshot().constraint_index().all_clauses())


def run_demo(home: Path | None = None) -> DemoReport:
    """Run the scripted session on the demo project's durable CRS; return what crs decided."""
    home = home if home is not None else default_home()
    project = home / PROJECT_DIR
    project.mkdir(parents=True, exist_ok=True)
    with open_project(project, home, session_id="demo") as crs:
        return _session(crs, home)


def _session(crs: CRS, home: Path) -> DemoReport:
    info = crs.project_info()
    journal = crs._journal
    first_seq = journal.stats().last_seq_num
    sessions = crs._steps.sessions()
    run = 1 + sum(1 for s in sessions if s.startswith("demo-"))
    session = f"demo-{run}"
    learned_before = set(_clause_ids(crs))
    report = DemoReport(home=str(home), session_id=session, run=run)
    report.restored = {
        "from_backup": info.restored_from_backup,
        "generation": crs.generation(),
        "journal_records_replayed": info.replayed_records,
        "clauses": len(learned_before),
        "sessions": len(sessions),
    }
    detector = CycleDetector()
    for n, (tool, outcome_name) in enumerate(SCRIPT, start=1):
        blocked = _gate(crs, session, tool, learned_before)
        if blocked:
            report.steps.append(DemoStep(n, tool, "-", "blocked", "; ".join(blocked)))
            continue
        outcome = Outcome(outcome_name)
        err = ErrorCategory.INTERNAL if outcome == Outcome.FAILURE else ErrorCategory.NONE
        before = crs.get_step_history(session)
        step = crs.record_step(
            StepRecord(
                session_id=session,
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
                    session_id=session,
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
    meta = crs.save_project_backup()
    stats = journal.stats()
    report.journal = {
        "path": str(info.journal_path),
        "records_appended": stats.last_seq_num - first_seq,
        "last_seq": stats.last_seq_num,
        "checkpoint_seq": stats.checkpoint_seq,
    }
    report.backup = {
        "path": str(info.backup_path),
        "size_bytes": meta.compressed_size,
        "generation": meta.generation,
        "journal_position": meta.journal_position,
    }
    return report


def print_report(report: DemoReport, out: TextIO) -> None:
    out.write(f"crs demo  run {report.run}  session={report.session_id}  home={report.home}\n")
    r = report.restored
    if r.get("generation"):
        out.write(
            f"restored: generation {r['generation']} (backup: "
            f"{'yes' if r['from_backup'] else 'no'}, {r['journal_records_replayed']} journal "
            f"records replayed), {r['clauses']} learned clauses, {r['sessions']} earlier "
            "sessions\n"
        )
    else:
        out.write("restored: nothing (first run on this data directory)\n")
    out.write(f"{'step':>4}  {'tool':<12} {'outcome':<8} {'crs':<8} reason\n")
    for s in report.steps:
        out.write(f"{s.step:>4}  {s.tool:<12} {s.outcome:<8} {s.decision:<8} {s.reason}\n")
    out.write(f"learned clauses: {len(report.clauses)}\n")
    for c in report.clauses:
        out.write(f"  {c}\n")
    j, b = report.journal, report.backup
    out.write(
        f"journal: {j['records_appended']} records appended (last seq {j['last_seq']}, "
        f"checkpointed up to {j['checkpoint_seq']}) in {j['path']}\n"
    )
    out.write(
        f"backup:  {b['size_bytes']} bytes, generation {b['generation']}, journal position "
        f"{b['journal_position']}: {b['path']}\n"
    )
    if report.run == 1:
        out.write("run `crs demo` again: the next run restores what this one learned\n")


def main(as_json: bool = False, home: Path | None = None, out: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    report = run_demo(home)
    if as_json:
        json.dump(asdict(report), out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:
        print_report(report, out)
    return 0
