"""Runs every loop detector on the same labelled trajectories, in one run, and prints the
markdown table (README.md says what the columns mean).

    PYTHONPATH=python .venv/bin/python bench/loops/run.py [--only crs] [--append] [--details]

`--append` adds the table and the command to bench/RESULTS.md. The peers (OpenHands'
StuckDetector, agent-watchdog) run in the bench-only venv that `setup-peers.sh` creates;
without it they are skipped with a note (or `--setup` creates it first).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import loopbench as lb

PEERS_VENV = Path(os.environ.get("LOOPBENCH_VENV", lb.HERE / ".peers-venv"))
RESULTS = lb.HERE.parent / "RESULTS.md"


def run_peers(data: Path, setup: bool) -> dict[str, lb.Flags]:
    py = PEERS_VENV / "bin" / "python"
    if not py.exists() and setup:
        subprocess.run(["bash", str(lb.HERE / "setup-peers.sh")], check=True)
    if not py.exists():
        print(
            f"note: no peers venv at {PEERS_VENV}; run bench/loops/setup-peers.sh", file=sys.stderr
        )
        return {}
    proc = subprocess.run(
        [str(py), str(lb.HERE / "peers.py"), str(data)],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    peers: dict[str, lb.Flags] = json.loads(proc.stdout)
    return peers


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=lb.DATA)
    ap.add_argument("--only", choices=["crs", "peers"], help="run one half only")
    ap.add_argument("--append", action="store_true", help="append the table to bench/RESULTS.md")
    ap.add_argument("--details", action="store_true", help="per-class table and crs failures")
    ap.add_argument("--setup", action="store_true", help="create the peers venv if missing")
    args = ap.parse_args(argv)

    trajs = lb.load(args.data)
    results: dict[str, lb.Flags] = {}
    timing: dict[str, float] = {}
    if args.only != "peers":
        t0 = time.perf_counter()
        try:
            results["crs"] = lb.run_crs(trajs)
        except ImportError as exc:  # the guard is not on this branch yet
            print(f"note: crs skipped: {exc}", file=sys.stderr)
        timing["crs"] = time.perf_counter() - t0
        results["vercel (reimpl.)"] = lb.run_vercel(trajs)
    if args.only != "crs":
        t0 = time.perf_counter()
        results.update(run_peers(args.data, args.setup))
        timing["peers"] = time.perf_counter() - t0

    n_loop = sum(t["loop"] for t in trajs)
    per_split = ", ".join(
        f"{sp} {sum(t['split'] == sp for t in trajs)}"
        for sp in lb.SPLIT_ORDER
        if any(t["split"] == sp for t in trajs)
    )
    summary = (
        f"{len(trajs)} trajectories: {n_loop} loops, {len(trajs) - n_loop} legitimate "
        f"(splits: {per_split})."
    )
    out = [summary, "", lb.table(trajs, results)]
    if args.details:
        out += ["", lb.per_class(trajs, results)]
        if "crs" in results:
            for kind, ids in lb.failures(trajs, results["crs"]).items():
                out.append(f"- crs {kind}: {', '.join(ids) if ids else 'none'}")
    text = "\n".join(out)
    print(text)
    print(
        "time: " + ", ".join(f"{k} {v:.1f} s" for k, v in timing.items()),
        file=sys.stderr,
    )

    if args.append:
        cmd = "PYTHONPATH=python .venv/bin/python bench/loops/run.py " + " ".join(
            shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
        )
        stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        with RESULTS.open("a", encoding="utf-8") as fh:
            fh.write(
                f'\n## Loop benchmark (bench/loops, helper "loopbench"), {stamp}\n\n'
                f"Command: `{cmd.strip()}`\n\n{text}\n"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
