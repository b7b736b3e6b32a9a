"""How much the guard's inference of creating tools rests on names: every tool of every
trajectory renamed with a prefix, crs run on the result. A neutral prefix (`ns__`) changes
nothing; a creating one (`post_message__`) makes every call of a tool that may create
records, so the legitimate trajectories it flags are the price of a misleading name.

    PYTHONPATH=python .venv/bin/python bench/loops/creates_stress.py [--prefix P ...]
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import loopbench as lb


def renamed(traj: lb.Trajectory, prefix: str) -> lb.Trajectory:
    out = copy.deepcopy(traj)
    for e in out["events"]:
        if e["type"] == "call":
            e["tool"] = prefix + e["tool"]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prefix", action="append", default=None)
    args = ap.parse_args(argv)
    trajs = lb.load()
    print("| tool names | loops caught | false alarms |\n|---|---:|---:|")
    for prefix in args.prefix or ["ns__", "post_message__"]:
        vt = [renamed(t, prefix) for t in trajs]
        s = lb.score(lb.outcomes_for(vt, lb.run_crs(vt)))
        print(f"| `{prefix}<tool>` | {s.caught}/{s.loops} | {s.false_alarms}/{s.legit} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
