"""Whole-process cost of one Claude Code hook invocation (the installed `crs hook` command).

For an empty project and for one holding `--steps` recorded tool calls (one session, the
hook's own, saved in the project's backup as the hook saves it), runs the real hook process
`--runs` times for a PreToolUse (a new call: decided, nothing written) and a PostToolUse (one
record written), and beside it, in the same rounds, a stdlib `sqlite3` one-shot process that
reads the same state (the session's last 64 steps and its count, out of `--steps` rows) and
inserts one row. The hook process is the installed command (`crs hook install claude-code`:
this Python running the thin client's file); one row repeats a warm PreToolUse as
`python -m crs hook claude-code` (the same client after `import crs`). Each process is timed
from spawn to exit; its peak RSS comes from `/usr/bin/time` (else `os.wait4`). Runs are
interleaved so machine noise hits every variant alike.

Each hook variant runs twice: warm (the resident hook server of the crs home is running,
docs/hook-server.md; the hook process is the thin client) and cold (`CRS_HOOK_DAEMON=0`: the
event is handled in the hook process, as when no server is up). The server's own peak RSS is
reported too. Then eight PostToolUse hooks are started at once on the big project, warm and
cold (`--parallel-rounds` times each): the wall time until the last one exits, the longest
wait for the decision lock any of them saw (from `$CRS_HOOK_TRACE`), and whether all eight
records are in the project's state.

    python bench/hook_bench.py [--runs 30] [--steps 10000] [--parallel-rounds 5] [--json]
                               [--cold-only] [--baseline DIR] [--open-cost] [--server-start]

`--cold-only` runs only the no-server variants (no hook server is started). `--baseline DIR`
(a directory holding another `crs` package, e.g. `git worktree add /tmp/base main` then
`/tmp/base/python`, with its `_core` extension) adds its cold variants to the same rounds,
prefixed "baseline", for a before/after comparison in one run. `--open-cost` measures only
`Guard.open` (and one `before_call`, `close`) once the engine is imported, `--server-start`
only the hook server's start (spawn to first accept) and its CPU and memory while idle.

Targets (issue 13): median <= 80 ms at 10k steps, <= 1.2x the empty project, <= 2x sqlite3;
eight at once: all answer, no lock wait > 100 ms, no record lost.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import os
import shlex
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HOOK_M = [sys.executable, "-m", "crs", "hook", "claude-code"]
HOOK: list[str] = []  # the installed command (`claude_code.hook_command()`), set in main
SESSION = "bench-session"
PAR_SESSION = "bench-parallel"

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


def child_env(home: Path, **extra: str) -> dict[str, str]:
    drop = ("CRS_HOOK_TRACE", "PYTHONPATH", "CRS_HOOK_DAEMON", "CLAUDE_PROJECT_DIR")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    return {**env, "PYTHONPATH": str(ROOT / "python"), "CRS_HOME": str(home), **extra}


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


def payload(event: str, project: Path, n: int, session: str = SESSION) -> bytes:
    doc: dict[str, Any] = {
        "session_id": session,
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


def start_server(home: Path, env: dict[str, str]) -> int:
    """The hook server of `home`, started as a hook starts it; its pid once it answers."""
    from crs.integrations import _hook_client as client

    path = client.socket_path(client.home_dir(str(home)))
    proc = client.spawn(client.home_dir(str(home)), path, env)
    if proc is None:
        raise RuntimeError("could not start the hook server")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        sock = client._connect(path)
        if sock is not None:
            sock.close()
            return proc.pid
        if proc.poll() is not None:
            raise RuntimeError(f"the hook server exited {proc.returncode}")
        time.sleep(0.05)
    raise RuntimeError("the hook server did not come up")


def peak_rss_mib(pid: int) -> float:
    """VmHWM of a live process, MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def parallel(
    project: Path, env: dict[str, str], trace: Path, base: Path, start: int
) -> dict[str, Any]:
    """Eight PostToolUse hooks started at once: last exit (ms), max lock wait (ms), vias."""
    procs = []
    trace.unlink(missing_ok=True)
    env = {**env, "CRS_HOOK_TRACE": str(trace)}
    files = []
    for i in range(8):
        f = base / f"par{start + i}.json"
        f.write_bytes(payload("PostToolUse", project, start + i, PAR_SESSION))
        files.append(f)
    t0 = time.perf_counter()
    for f in files:
        with open(f, "rb") as fh:
            procs.append(subprocess.Popen(HOOK, stdin=fh, stdout=subprocess.DEVNULL, env=env))
    codes = [p.wait(60) for p in procs]
    wall = time.perf_counter() - t0
    rows = [json.loads(line) for line in trace.read_text().splitlines()]
    return {
        "last_exit_ms": round(wall * 1000, 1),
        "answered": sum(c == 0 for c in codes),
        "traced": len(rows),
        "lock_wait_max_ms": max((r["lock_wait_max_ms"] for r in rows), default=float("nan")),
        "errors": sum(bool(r["error"]) for r in rows),
        "via": sorted({r["via"] for r in rows}),
    }


def recorded(home: Path, project: Path) -> int:
    from crs.guard import Guard

    with Guard.open(project, PAR_SESSION, home, fingerprint=lambda: "bench") as g:
        calls: int = g.status()["calls"]
        return calls


OPEN_COST = r"""
import json, sys, time
from crs.guard import Guard
project, home, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
Guard().close()  # the engine imported: what follows is opening, not importing
rows = []
for i in range(n):
    t0 = time.perf_counter()
    g = Guard.open(project, "bench-session", home, fingerprint=lambda: "bench")
    t1 = time.perf_counter()
    g.before_call("Read", {"file_path": f"{project}/open{i}.py"}, call_id=f"toolu_open_{i}")
    t2 = time.perf_counter()
    g.close()
    rows.append((t1 - t0, t2 - t1, time.perf_counter() - t2))
print(json.dumps(rows))
"""


def open_cost(home: Path, projects: dict[str, Path], rounds: int) -> None:
    """`Guard.open`, `before_call` and `close` once the engine is imported: the first open of
    a fresh process, then 5 more in it; medians over `rounds` processes per project."""
    env = child_env(home)
    rows: dict[str, dict[str, list[list[float]]]] = {
        k: {"first": [], "again": []} for k in projects
    }
    for _ in range(rounds):
        for name, project in projects.items():
            argv = [sys.executable, "-c", OPEN_COST, str(project), str(home), "6"]
            out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
            got = json.loads(out.stdout)
            rows[name]["first"].append(got[0])
            rows[name]["again"].extend(got[1:])
    print(f"{'project':16} {'open':>12} {'ms':>8} {'before_call ms':>15} {'close ms':>9}")
    for name, kinds in rows.items():
        for kind, got in kinds.items():
            med = [statistics.median(r[i] for r in got) * 1000 for i in range(3)]
            print(f"{name:16} {kind:>12} {med[0]:8.2f} {med[1]:15.2f} {med[2]:9.2f}")


def server_start(home: Path, project: Path, rounds: int, idle_s: float) -> None:
    """The hook server: spawn to first accepted connection (it imports the engine and opens
    `project` first), then its CPU and RSS while idle for `idle_s`."""
    from crs.integrations import _hook_client as client

    ups, cpu, rss = [], [], []
    for _ in range(rounds):
        path = client.socket_path(client.home_dir(str(home)))
        env = child_env(home, CLAUDE_PROJECT_DIR=str(project), CRS_HOOK_DAEMON_IDLE_S="600")
        t0 = time.perf_counter()
        proc = client.spawn(client.home_dir(str(home)), path, env)
        if proc is None:
            raise RuntimeError("a hook server is already running for this home")
        while (sock := client._connect(path)) is None:
            if proc.poll() is not None:
                raise RuntimeError(f"the hook server exited {proc.returncode}")
            time.sleep(0.002)
        sock.close()
        ups.append(time.perf_counter() - t0)
        stat = Path(f"/proc/{proc.pid}/stat")
        ticks = os.sysconf("SC_CLK_TCK")

        def used(stat: Path = stat, ticks: int = ticks) -> float:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / ticks

        c0, w0 = used(), time.monotonic()
        time.sleep(idle_s)
        cpu.append((used() - c0) / (time.monotonic() - w0))
        rss.append(peak_rss_mib(proc.pid))
        proc.terminate()
        proc.wait(30)
    print(
        f"hook server: spawn to first accept median {statistics.median(ups) * 1000:.0f} ms "
        f"(of {sorted(round(u * 1000) for u in ups)}); idle CPU "
        f"{statistics.median(cpu) * 1000:.2f} ms a second, peak RSS {max(rss)} MiB"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--steps", type=int, default=10_000)
    ap.add_argument("--parallel-rounds", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--cold-only", action="store_true", help="no hook server variants")
    ap.add_argument("--baseline", type=Path, help="another crs tree: its cold variants too")
    ap.add_argument(
        "--open-cost", action="store_true", help="only Guard.open once imported (7 rounds)"
    )
    ap.add_argument(
        "--server-start", action="store_true", help="only the server's start-up and idle cost"
    )
    args = ap.parse_args()
    compileall.compile_dir(ROOT / "python" / "crs", quiet=1)  # as an installed package has
    if args.baseline is not None:
        compileall.compile_dir(args.baseline / "crs", quiet=1)
    sys.path.insert(0, str(ROOT / "python"))
    from crs.integrations.claude_code import hook_command

    HOOK[:] = shlex.split(hook_command())
    server = 0
    with tempfile.TemporaryDirectory(prefix="crs-hook-bench-") as tmp:
        base = Path(tmp)
        home = base / "home"
        empty, big = base / "empty", base / "big"
        t0 = time.perf_counter()
        build_project(home, empty, 0)
        build_project(home, big, args.steps)
        build_sqlite(base / "state.db", args.steps)
        built = time.perf_counter() - t0
        if args.open_cost or args.server_start:
            if args.open_cost:
                open_cost(home, {"empty project": empty, f"{args.steps} steps": big}, 7)
            if args.server_start:
                server_start(home, big, 3, 20.0)
            return 0
        warm_env = child_env(home, CRS_HOOK_DAEMON_IDLE_S="600")
        cold_env = child_env(home, CRS_HOOK_DAEMON="0")
        sqlite = [sys.executable, "-c", SQLITE_ONE_SHOT, str(base / "state.db")]
        variants: dict[str, tuple[list[str], Path, dict[str, str], str]] = {}
        temps = (
            (("cold", cold_env),) if args.cold_only else (("warm", warm_env), ("cold", cold_env))
        )
        hooks = [("", HOOK, cold_env)]
        if args.baseline is not None:
            client = args.baseline / "crs" / "integrations" / "_hook_client.py"
            base_env = {**cold_env, "PYTHONPATH": str(args.baseline)}
            hooks.append(("baseline ", [sys.executable, str(client), *HOOK[2:]], base_env))
        for temp, env in temps:
            for event in ("PreToolUse", "PostToolUse"):
                for label, project in (("empty project", empty), (f"{args.steps} steps", big)):
                    for prefix, hook, hook_env in hooks if temp == "cold" else hooks[:1]:
                        variants[f"{prefix}{temp} {event}, {label}"] = (
                            hook,
                            project,
                            hook_env if temp == "cold" else env,
                            event,
                        )
        if not args.cold_only:
            variants[f"warm PreToolUse, {args.steps} steps, -m crs"] = (
                HOOK_M,
                big,
                warm_env,
                "PreToolUse",
            )
        variants[f"sqlite3 one-shot, {args.steps} rows"] = (sqlite, big, cold_env, "PreToolUse")
        walls: dict[str, list[float]] = {k: [] for k in variants}
        rss: dict[str, list[int]] = {k: [] for k in variants}
        cpus: dict[str, list[float]] = {k: [] for k in variants}
        try:
            if not args.cold_only:
                server = start_server(home, warm_env)
            # Each variant calls its own files (a baseline shares the projects): no call repeats.
            for k, (argv, project, env, event) in enumerate(variants.values()):  # warm-up
                spawn(argv, payload(event, project, 10**6 + k), env)
            for n in range(args.runs):
                for k, (name, (argv, project, env, event)) in enumerate(variants.items()):
                    wall, cpu, peak, out = spawn(argv, payload(event, project, n * 100 + k), env)
                    if argv is not sqlite and out.strip():
                        raise RuntimeError(f"{name}: the hook refused a new call: {out!r}")
                    walls[name].append(wall)
                    cpus[name].append(cpu)
                    rss[name].append(peak)
            par: dict[str, list[dict[str, Any]]] = {"warm": [], "cold": []}
            for r in range(args.parallel_rounds):
                for temp, env in temps:
                    before = recorded(home, big)
                    row = parallel(big, env, base / "par-trace.jsonl", base, 1000 * r + 100)
                    row["records_added"] = recorded(home, big) - before
                    par[temp].append(row)
            server_rss = peak_rss_mib(server) if server else float("nan")
        finally:
            if server:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(server, signal.SIGTERM)
    result = {name: summary(walls[name], cpus[name], rss[name]) for name in variants}
    med = {name: r["median_ms"] for name, r in result.items()}
    sq = med[f"sqlite3 one-shot, {args.steps} rows"]
    checks: dict[str, bool] = {}
    for temp, _ in temps:
        for event in ("PreToolUse", "PostToolUse"):
            big_ms = med[f"{temp} {event}, {args.steps} steps"]
            empty_ms = med[f"{temp} {event}, empty project"]
            steps = f"{args.steps} steps"
            checks[f"{temp} {event}: {steps} median <= 80 ms"] = big_ms <= 80
            checks[f"{temp} {event}: {steps} <= 1.2x empty"] = big_ms <= 1.2 * empty_ms
            checks[f"{temp} {event}: {steps} <= 2x sqlite3"] = big_ms <= 2 * sq
        rows = par[temp]
        if not rows:
            continue
        checks[f"{temp} 8 at once: all answer, none waits > 100 ms, none lost"] = all(
            r["answered"] == 8 and r["lock_wait_max_ms"] <= 100 and r["records_added"] == 8
            for r in rows
        )
    if args.json:
        doc = {
            "runs": args.runs,
            "results": result,
            "server_peak_rss_mib": server_rss,
            "parallel": par,
            "checks": checks,
        }
        print(json.dumps(doc, indent=2))
        return 0
    print(
        f"runs={args.runs} steps={args.steps} python={sys.version.split()[0]} "
        f"(projects built in {built:.1f} s)"
    )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(
        f"{'process':49} {'median ms':>10} {'p90 ms':>8} {'CPU ms':>7} {'peak RSS MiB':>13} "
        f"{'/sqlite3':>9}"
    )
    for name, r in result.items():
        print(
            f"{name:49} {r['median_ms']:>10} {r['p90_ms']:>8} {r['cpu_median_ms']:>7} "
            f"{r['peak_rss_mib']:>13} {r['median_ms'] / sq:>8.2f}x"
        )
    if server:
        print(f"hook server peak RSS: {server_rss} MiB (serving both projects)")
    for temp, _ in temps:
        rows = par[temp]
        if not rows:
            continue
        print(
            f"8 at once, {temp}: last exit median "
            f"{statistics.median(r['last_exit_ms'] for r in rows):.1f} ms, max lock wait "
            f"{max(r['lock_wait_max_ms'] for r in rows):.2f} ms, answered "
            f"{min(r['answered'] for r in rows)}/8, records added "
            f"{sorted({r['records_added'] for r in rows})}, via {rows[0]['via']}"
        )
    for name, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
