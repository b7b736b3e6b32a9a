"""Whole-process cost of one Claude Code hook invocation (`python -m crs hook claude-code`).

For an empty project and for one holding `--steps` recorded tool calls (one session, the
hook's own, saved in the project's backup as the hook saves it), runs the real hook process
`--runs` times for a PreToolUse (a new call: decided, nothing written) and a PostToolUse (one
record written), and beside it, in the same rounds, a stdlib `sqlite3` one-shot process that
reads the same state (the session's last 64 steps and its count, out of `--steps` rows) and
inserts one row. Each process is timed from spawn to exit; its peak RSS comes from
`os.wait4`. Runs are interleaved so machine noise hits every variant alike.

    python bench/hook_bench.py [--runs 30] [--steps 10000] [--json]

Targets (issue 13): median <= 80 ms at 10k steps, <= 1.2x the empty project, <= 2x sqlite3.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HOOK = [sys.executable, "-m", "crs", "hook", "claude-code"]
SESSION = "bench-session"

SQLITE_ONE_SHOT = r"""
import json, sqlite3, sys, time
p = json.loads(sys.stdin.read())
con = sqlite3.connect(sys.argv[1])
rows = con.execute(
    "SELECT step, tool, signature, result, kind FROM steps WHERE session = ? "
    "ORDER BY step DESC LIMIT 64", (p["session_id"],)).fetchall()
(n,) = con.execute("SELECT count(*) FROM steps WHERE session = ?", (p["session_id"],)).fetchone()
sig = json.dumps([p["tool_name"], p["tool_input"]], sort_keys=True)
con.execute("INSERT INTO steps VALUES (?, ?, ?, ?, ?, ?, ?)",
            (p["session_id"], n + 1, p["tool_name"], sig, "ok", 0, int(time.time() * 1000)))
con.commit()
con.close()
"""


def child_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CRS_HOOK_TRACE", "PYTHONPATH")}
    return {**env, "PYTHONPATH": str(ROOT / "python"), "CRS_HOME": str(home)}


TIME = "/usr/bin/time"


def spawn(argv: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float, int, bytes]:
    """(wall s from spawn to exit, CPU s, peak RSS KiB, stdout) of one process.

    The RSS comes from `/usr/bin/time -f %M` when it exists: a child forked from this
    (large) process would report this process's RSS as its own peak (Linux counts the
    pre-exec image); `time` is small. Otherwise `os.wait4`.
    """
    with tempfile.TemporaryFile() as f_in, tempfile.TemporaryFile() as f_out:
        f_in.write(stdin)
        f_in.seek(0)
        report = None
        if os.path.exists(TIME):
            fd, report = tempfile.mkstemp()
            os.close(fd)
            argv = [TIME, "-f", "%M %U %S", "-o", report, *argv]
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdin=f_in, stdout=f_out, stderr=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        peak, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
        if report is not None:
            fields = Path(report).read_text().split()
            os.unlink(report)
            peak, cpu = int(fields[-3]), float(fields[-2]) + float(fields[-1])
        if code != 0:
            raise RuntimeError(f"{argv} exited {code}")
        f_out.seek(0)
        return wall, cpu, peak, f_out.read()


def build_project(home: Path, project: Path, steps: int) -> None:
    """`steps` finished calls in SESSION (reads, searches, builds, edits), then a backup."""
    from crs.guard import Guard

    project.mkdir(parents=True)
    with Guard.open(project, SESSION, home, fingerprint=lambda: "bench") as g:
        for i in range(steps):
            kind = i % 4
            if kind == 0:
                tool, args, result = "Read", {"file_path": f"{project}/src/m{i}.py"}, f"x = {i}"
            elif kind == 1:
                tool, args, result = "Grep", {"pattern": f"def f{i}", "path": "src"}, f"m{i}.py"
            elif kind == 2:
                tool, args, result = "Bash", {"command": f"pytest -k t{i}"}, f"{i} passed"
            else:
                tool, args = "Edit", {"file_path": f"{project}/src/m{i}.py", "old_string": "a"}
                result = "ok"
            v = g.before_call(tool, {**args}, call_id=f"toolu_build_{i}")
            assert v.call is not None
            g.after_call(v.call, result=result)
        g.crs.save_project_backup()


def build_sqlite(path: Path, steps: int) -> None:
    con = sqlite3.connect(path)
    con.execute(
        "CREATE TABLE steps (session TEXT, step INTEGER, tool TEXT, signature TEXT, "
        "result TEXT, kind INTEGER, ts INTEGER)"
    )
    con.execute("CREATE INDEX steps_session ON steps (session, step)")
    con.executemany(
        "INSERT INTO steps VALUES (?, ?, ?, ?, ?, ?, ?)",
        ((SESSION, i + 1, "Read", f"sig{i}", "ok", 0, i) for i in range(steps)),
    )
    con.commit()
    con.close()


def payload(event: str, project: Path, n: int) -> bytes:
    doc: dict[str, Any] = {
        "session_id": SESSION,
        "transcript_path": "/dev/null",
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": "Read",
        "tool_input": {"file_path": f"{project}/bench/new{n}.py"},
        "tool_use_id": f"toolu_bench_{event}_{n}",
    }
    if event == "PostToolUse":
        doc["tool_response"] = f"content {n}"
    return json.dumps(doc).encode()


def summary(walls: list[float], cpus: list[float], rss: list[int]) -> dict[str, float]:
    ws = sorted(walls)
    return {
        "median_ms": round(statistics.median(ws) * 1000, 1),
        "p90_ms": round(ws[min(len(ws) - 1, int(len(ws) * 0.9))] * 1000, 1),
        "cpu_median_ms": round(statistics.median(cpus) * 1000, 1),
        "peak_rss_mib": round(max(rss) / 1024, 1),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--steps", type=int, default=10_000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    compileall.compile_dir(ROOT / "python" / "crs", quiet=1)  # as an installed package has
    sys.path.insert(0, str(ROOT / "python"))
    with tempfile.TemporaryDirectory(prefix="crs-hook-bench-") as tmp:
        base = Path(tmp)
        home = base / "home"
        empty, big = base / "empty", base / "big"
        t0 = time.perf_counter()
        build_project(home, empty, 0)
        build_project(home, big, args.steps)
        build_sqlite(base / "state.db", args.steps)
        built = time.perf_counter() - t0
        env = child_env(home)
        variants: dict[str, tuple[list[str], Path]] = {
            "crs PreToolUse, empty project": (HOOK, empty),
            f"crs PreToolUse, {args.steps} steps": (HOOK, big),
            "crs PostToolUse, empty project": (HOOK, empty),
            f"crs PostToolUse, {args.steps} steps": (HOOK, big),
            f"sqlite3 one-shot, {args.steps} rows": (
                [sys.executable, "-c", SQLITE_ONE_SHOT, str(base / "state.db")],
                big,
            ),
        }
        walls: dict[str, list[float]] = {k: [] for k in variants}
        rss: dict[str, list[int]] = {k: [] for k in variants}
        cpus: dict[str, list[float]] = {k: [] for k in variants}
        for name, (argv, project) in variants.items():  # warm-up (page cache)
            event = "PostToolUse" if "PostToolUse" in name else "PreToolUse"
            spawn(argv, payload(event, project, 10**6), env)
        for n in range(args.runs):
            for name, (argv, project) in variants.items():
                event = "PostToolUse" if "PostToolUse" in name else "PreToolUse"
                wall, cpu, peak, out = spawn(argv, payload(event, project, n), env)
                if argv is HOOK and out.strip():
                    raise RuntimeError(f"{name}: the hook refused a new call: {out!r}")
                walls[name].append(wall)
                cpus[name].append(cpu)
                rss[name].append(peak)
    result = {name: summary(walls[name], cpus[name], rss[name]) for name in variants}
    med = {name: r["median_ms"] for name, r in result.items()}
    names = list(variants)
    checks = {
        "pre: 10k median <= 80 ms": med[names[1]] <= 80,
        "pre: 10k <= 1.2x empty": med[names[1]] <= 1.2 * med[names[0]],
        "pre: 10k <= 2x sqlite3": med[names[1]] <= 2 * med[names[4]],
        "post: 10k median <= 80 ms": med[names[3]] <= 80,
        "post: 10k <= 1.2x empty": med[names[3]] <= 1.2 * med[names[2]],
        "post: 10k <= 2x sqlite3": med[names[3]] <= 2 * med[names[4]],
    }
    if args.json:
        print(json.dumps({"runs": args.runs, "results": result, "checks": checks}, indent=2))
        return 0
    print(
        f"runs={args.runs} steps={args.steps} python={sys.version.split()[0]} "
        f"(projects built in {built:.1f} s)"
    )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'process':36} {'median ms':>10} {'p90 ms':>8} {'CPU ms':>7} {'peak RSS MiB':>13}")
    for name, r in result.items():
        print(
            f"{name:36} {r['median_ms']:>10} {r['p90_ms']:>8} {r['cpu_median_ms']:>7} "
            f"{r['peak_rss_mib']:>13}"
        )
    for name, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
