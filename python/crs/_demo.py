"""`crs demo`: a scripted agent session run against the default data directory.

The script is a small agent that searches, loops between two tools, and fails a tool
twice. crs records each step and says what it decided. The demo grows as capabilities
land (issue 2): loop detection, circuit breaker, learned clauses, journal, backup, restore.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

from crs import _core
from crs._home import default_home

# (tool, outcome) per step: search, then a read/grep loop, then a failing build twice.
SCRIPT: tuple[tuple[str, str], ...] = (
    ("search_code", "success"),
    ("read_file", "success"),
    ("grep", "success"),
    ("read_file", "success"),
    ("grep", "success"),
    ("run_build", "failure"),
    ("run_build", "failure"),
)


@dataclass
class DemoStep:
    step: int
    tool: str
    outcome: str
    decision: str
    reason: str = ""


@dataclass
class DemoReport:
    home: str
    session_id: str
    steps: list[DemoStep] = field(default_factory=list)


def run_demo(home: Path | None = None) -> DemoReport:
    """Run the scripted session and return what crs decided at each step."""
    home = home if home is not None else default_home()
    report = DemoReport(home=str(home), session_id="demo")
    detector = _core.CycleDetector(32)
    ids: dict[str, int] = {}
    names: list[str] = []
    for n, (tool, outcome) in enumerate(SCRIPT, start=1):
        key = f"{tool}:{outcome}"
        sid = ids.setdefault(key, len(ids))
        if sid == len(names):
            names.append(key)
        cycle = detector.add(sid)
        if cycle is not None:
            loop = " -> ".join(names[i].split(":")[0] for i in cycle)
            report.steps.append(DemoStep(n, tool, outcome, "loop", f"repeats [{loop}]"))
        else:
            report.steps.append(DemoStep(n, tool, outcome, "allow"))
    return report


def print_report(report: DemoReport, out: TextIO) -> None:
    out.write(f"crs demo  session={report.session_id}  home={report.home}\n")
    out.write(f"{'step':>4}  {'tool':<12} {'outcome':<8} {'crs':<6} reason\n")
    for s in report.steps:
        out.write(f"{s.step:>4}  {s.tool:<12} {s.outcome:<8} {s.decision:<6} {s.reason}\n")


def main(as_json: bool = False, home: Path | None = None, out: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    report = run_demo(home)
    if as_json:
        json.dump(asdict(report), out, indent=2)
        out.write("\n")
    else:
        print_report(report, out)
    return 0
