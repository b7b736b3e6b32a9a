"""Per-step cost of crs's guard beside the peer loop detectors, same events, same run.

    PYTHONPATH=python bench/loops/.peers-venv/bin/python bench/loops/speed.py \
        [--steps 10000] [--n 2000] [--reps 5] [--mode lockstep|solo|both] [--json]

One synthetic coding-agent history (reads of distinct files, greps, edits, test runs whose
results change, `git status` and commits, a rare hard error) is fed, step by step, to three
detectors in ONE process: crs `Guard()` in memory (`before_call` + `after_call`), OpenHands'
`StuckDetector` (the step's action and observation events appended to its
`ConversationState`, then `get_action_error_nudge()` and `is_stuck()`, as peers.py drives
it) and agent-watchdog (`record_tool_call` inside a `watch()`). `lockstep`: the detectors
advance together, their order rotating every step, so each sees the machine in the same
state; `solo`: one detector per pass, to show what a neighbour costs; `both` (default) runs
the two in every repetition. Only the detector call is timed (`perf_counter_ns` around it;
building the step's arguments and events is not; OpenHands' appends are timed apart, as a
reference row). Timed windows: the `--n` steps after `--steps // 10` and after `--steps`
steps of history; the cyclic GC is collected before and disabled during each window, for
every detector alike. Each repetition starts fresh detectors; the table gives the median
over repetitions of each repetition's median and p90. No detector may flag on this history
(it is legitimate work); a flag stops the run, since the refusal path would be timed.

Needs the bench-only venv (`bash bench/loops/setup-peers.sh`) plus crs's one runtime
dependency there (`bench/loops/.peers-venv/bin/pip install lz4`); crs's extension is abi3,
so the tree's `python/crs/_core.abi3.so` loads on its Python 3.12. Not run in CI.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import gc
import importlib
import importlib.metadata
import json
import logging
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

os.environ.setdefault("OPENHANDS_SUPPRESS_BANNER", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import

Step = dict[str, Any]  # {"tool", "args", "result" | "error"}
Timings = dict[str, int]  # row label -> ns spent in this step

AREAS = ("storage", "api", "cli", "core", "net")
ROWS = {
    "crs": "crs `Guard()`: `before_call` + `after_call`",
    "openhands": "OpenHands: `get_action_error_nudge()` + `is_stuck()`",
    "openhands is_stuck": "  of which `is_stuck()`",
    "agent-watchdog": "agent-watchdog: `record_tool_call`",
    "openhands append": "(not a detector) OpenHands: append the step's 2 events",
}


# ---------------------------------------------------------------------------- the history


def file_text(path: str, k: int) -> str:
    """A source file's text, about 1.4 KB, distinct per file."""
    lines = [f"# {path}", "from __future__ import annotations", ""]
    for j in range(24):
        lines += [f"def f_{k}_{j}(x: int) -> int:", f"    return x + {j * k % 97}", ""]
    return "\n".join(lines)


def history(n: int) -> list[Step]:
    """`n` steps of a productive coding session, in blocks of four per file: read it, grep
    for its functions, edit it, then a shell command (the area's tests, whose counts and
    timings change; `git status`; a commit). Every 97th read is of a missing file."""
    steps: list[Step] = []
    modified: list[str] = []
    for i in range(n):
        k, kind = divmod(i, 4)
        area = AREAS[(k // 50) % len(AREAS)]
        path = f"src/{area}/mod_{k:05d}.py"
        if kind == 0:
            if k % 97 == 96:
                missing = f"src/{area}/mod_{k:05d}_old.py"
                steps.append(
                    {
                        "tool": "read_file",
                        "args": {"path": missing},
                        "error": f"FileNotFoundError: [Errno 2] No such file: '{missing}'",
                    }
                )
            else:
                steps.append(
                    {"tool": "read_file", "args": {"path": path}, "result": file_text(path, k)}
                )
        elif kind == 1:
            hits = "\n".join(f"{path}:{4 + 3 * j}:def f_{k}_{j}(x: int) -> int:" for j in range(3))
            hits += f"\nsrc/{area}/__init__.py:{k % 40 + 1}:from .mod_{k:05d} import f_{k}_0"
            steps.append(
                {"tool": "grep", "args": {"pattern": f"f_{k}_", "path": "src"}, "result": hits}
            )
        elif kind == 2:
            steps.append(
                {
                    "tool": "edit",
                    "args": {"path": path, "old": "return x + 3", "new": f"return x + {k % 11}"},
                    "result": f"Edited {path}: 1 replacement",
                }
            )
            modified.append(path)
        elif k % 3 == 0:
            failed = (k * 7) % 13
            secs = 1.5 + (k * 37 % 200) / 100
            steps.append(
                {
                    "tool": "bash",
                    "args": {"command": f"pytest -q tests/{area}"},
                    "result": f"{60 - failed} passed, {failed} failed in {secs:.2f}s",
                }
            )
        elif k % 3 == 1:
            status = "\n".join(f" M {p}" for p in modified)
            steps.append(
                {"tool": "bash", "args": {"command": "git status --short"}, "result": status}
            )
        else:
            msg = f"port mod_{k:05d} and its neighbours"
            steps.append(
                {
                    "tool": "bash",
                    "args": {"command": f'git commit -am "{msg}"'},
                    "result": f"[main {k * 2654435761 % 16**7:07x}] {msg}\n"
                    f" {len(modified)} files changed, {2 * len(modified)} insertions(+)",
                }
            )
            modified = []
    return steps


class Driver(Protocol):
    def prepare(self, i: int, s: Step) -> None: ...

    def check(self, i: int, s: Step) -> Timings: ...


class Flagged(RuntimeError):
    """A detector flagged the legitimate history: the timing would be of another path."""


# ---------------------------------------------------------------------------- the detectors


class CrsDriver:
    def __init__(self) -> None:
        from crs.guard import Guard

        self.guard = Guard()
        self.error: BaseException | None = None

    def prepare(self, i: int, s: Step) -> None:
        self.error = RuntimeError(s["error"]) if "error" in s else None

    def check(self, i: int, s: Step) -> Timings:
        g, error = self.guard, self.error
        tool, args = s["tool"], s["args"]
        t0 = time.perf_counter_ns()
        v = g.before_call(tool, args)
        if v.call is None:
            raise Flagged(f"crs refused step {i}: {v}")
        if error is None:
            after = g.after_call(v.call, result=s["result"])
        else:
            after = g.after_call(v.call, error=error)
        t1 = time.perf_counter_ns()
        for verdict in (v, after):
            if str(getattr(verdict.action, "value", verdict.action)) != "allow":
                raise Flagged(f"crs flagged step {i}: {verdict}")
        return {"crs": t1 - t0}


class OpenHandsDriver:
    """As peers.py: SDK event classes on a `ConversationState`, default thresholds."""

    _classes: tuple[Any, ...] | None = None

    @classmethod
    def classes(cls) -> tuple[Any, ...]:
        if cls._classes is None:
            tool_mod = importlib.import_module("openhands.sdk.tool")
            action_cls = type(
                "BenchToolAction",
                (tool_mod.Action,),
                {
                    "__module__": __name__,
                    "__doc__": "A tool call: its tool and its arguments as the model sent them.",
                    "__annotations__": {"tool": str, "arguments": str},
                },
            )
            obs_cls = type(
                "BenchToolObservation",
                (tool_mod.Observation,),
                {"__module__": __name__, "__doc__": "A tool's result text."},
            )
            agent_cls = importlib.import_module("openhands.sdk.agent").Agent
            llm_cls = importlib.import_module("openhands.sdk.llm").LLM
            agent = agent_cls(llm=llm_cls(model="gpt-4o-mini", usage_id="loopbench"))
            cls._classes = (action_cls, obs_cls, agent)
        return cls._classes

    def __init__(self) -> None:
        import uuid

        state_mod = importlib.import_module("openhands.sdk.conversation.state")
        stuck_mod = importlib.import_module("openhands.sdk.conversation.stuck_detector")
        self.ev = importlib.import_module("openhands.sdk.event")
        self.llm = importlib.import_module("openhands.sdk.llm")
        workspace = importlib.import_module("openhands.sdk.workspace").LocalWorkspace
        self.action_cls, self.obs_cls, agent = self.classes()
        workdir = os.environ.get("TMPDIR", "/tmp")
        self.state = state_mod.ConversationState.create(
            id=uuid.uuid4(), agent=agent, workspace=workspace(working_dir=workdir)
        )
        self.detector = stuck_mod.StuckDetector(self.state)
        self.append_ns = 0
        first = self.ev.MessageEvent(
            source="user",
            llm_message=self.llm.Message(
                role="user", content=[self.llm.TextContent(text="Port the storage layer")]
            ),
        )
        self.state.events.append(first)

    def prepare(self, i: int, s: Step) -> None:
        """The framework's bookkeeping: the step's two events appended to the state (timed
        for reference only: it is no detector's cost)."""
        ev, llm = self.ev, self.llm
        call_id = f"call_{i}"
        arguments = json.dumps(s["args"], ensure_ascii=False)
        action = ev.ActionEvent(
            source="agent",
            thought=[],
            action=self.action_cls(tool=s["tool"], arguments=arguments),
            tool_name=s["tool"],
            tool_call_id=call_id,
            tool_call=llm.MessageToolCall(
                id=call_id, name=s["tool"], arguments=arguments, origin="completion"
            ),
            llm_response_id=f"response_{i}",
        )
        if "error" in s:
            outcome = ev.AgentErrorEvent(
                error=str(s["error"]), tool_name=s["tool"], tool_call_id=call_id
            )
        else:
            outcome = ev.ObservationEvent(
                observation=self.obs_cls.from_text(s["result"]),
                action_id=action.id,
                tool_name=s["tool"],
                tool_call_id=call_id,
            )
        events = self.state.events
        t0 = time.perf_counter_ns()
        events.append(action)
        events.append(outcome)
        self.append_ns = time.perf_counter_ns() - t0

    def check(self, i: int, s: Step) -> Timings:
        detector = self.detector
        t1 = time.perf_counter_ns()
        nudge = detector.get_action_error_nudge()
        t2 = time.perf_counter_ns()
        stuck = detector.is_stuck()
        t3 = time.perf_counter_ns()
        if nudge is not None or stuck:
            raise Flagged(f"OpenHands flagged step {i}")
        return {
            "openhands": t3 - t1,
            "openhands is_stuck": t3 - t2,
            "openhands append": self.append_ns,
        }


class WatchdogDriver:
    """As peers.py: defaults, no wall-clock timeout, one `watch()` around the run."""

    def __init__(self, stack: contextlib.ExitStack) -> None:
        mod = importlib.import_module("agent_watchdog")
        self.halt: type[BaseException] = mod.WatchdogHalt
        self.wd = mod.AgentWatchdog(timeout_seconds=None)
        stack.enter_context(self.wd.watch("speed"))
        self.output: str = ""

    def prepare(self, i: int, s: Step) -> None:
        self.output = s["error"] if "error" in s else s["result"]

    def check(self, i: int, s: Step) -> Timings:
        output = self.output
        record = self.wd.record_tool_call
        try:
            t0 = time.perf_counter_ns()
            record(s["tool"], args=s["args"], output=output)
            t1 = time.perf_counter_ns()
        except self.halt as exc:
            raise Flagged(f"agent-watchdog halted at step {i}: {exc}") from exc
        return {"agent-watchdog": t1 - t0}


# ---------------------------------------------------------------------------- the run


def p90(xs: list[int]) -> float:
    return statistics.quantiles(xs, n=10)[8]


Factory = Callable[[contextlib.ExitStack], Driver]
FACTORIES: list[Factory] = [
    lambda _stack: CrsDriver(),
    lambda _stack: OpenHandsDriver(),
    WatchdogDriver,
]
MODES = ("lockstep", "solo")


def drive(
    factories: list[Factory],
    steps: list[Step],
    windows: list[int],
    n: int,
    rep: int,
    out: dict[int, dict[str, list[int]]],
) -> None:
    """Fresh detectors over the whole history, in lockstep (their order rotating every
    step); per window and row, the per-step ns go to `out`."""
    with contextlib.ExitStack() as stack:
        drivers = [make(stack) for make in factories]
        window: int | None = None
        for i, s in enumerate(steps):
            if i in windows:
                window = i
                gc.collect()
                gc.disable()
            elif window is not None and i == window + n:
                window = None
                gc.enable()
            shift = (i + rep) % len(drivers)
            order = drivers[shift:] + drivers[:shift]
            # Each step: every framework's bookkeeping first, then the detector calls, so no
            # detector's timed call follows another's bookkeeping more often than the rest.
            for d in order:
                d.prepare(i, s)
            for d in order:
                t = d.check(i, s)
                if window is not None:
                    for label, ns in t.items():
                        out[window].setdefault(label, []).append(ns)
        gc.enable()


def one_rep(
    mode: str, steps: list[Step], windows: list[int], n: int, rep: int
) -> dict[int, dict[str, list[int]]]:
    """`lockstep`: the three detectors side by side in one pass; `solo`: one pass per
    detector with no neighbour (their order rotating every repetition)."""
    out: dict[int, dict[str, list[int]]] = {w: {} for w in windows}
    if mode == "lockstep":
        drive(FACTORIES, steps, windows, n, rep, out)
    else:
        shift = rep % len(FACTORIES)
        for make in FACTORIES[shift:] + FACTORIES[:shift]:
            drive([make], steps, windows, n, rep, out)
    return out


def crs_commit() -> str:
    """The commit of the tree crs was imported from (and whether its python/ is modified)."""
    import crs

    root = Path(crs.__file__).resolve().parents[2]

    def git(*args: str) -> str:
        cmd = ["git", "-C", str(root), *args]
        return subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=10).stdout

    try:
        head = git("log", "-1", "--format=%h %cd", "--date=format:%H:%M").strip()
        dirty = git("status", "--porcelain", "--untracked-files=no", "python").strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + (" (python/ modified)" if dirty else "")


def fmt(ns: float) -> str:
    us = ns / 1000
    return f"{us:.1f} µs" if us < 100 else f"{us:.0f} µs"


def table(summary: dict[str, Any], windows: list[int]) -> str:
    small, big = windows[0], windows[-1]
    cols = ["detector (timed per step)"]
    for w in windows:
        cols += [f"median at {w:,}", f"p90 at {w:,}"]
    if len(windows) > 1:
        cols.append(f"{big:,} / {small:,}")
    cols.append(f"median / crs at {big:,}")
    lines = ["| " + " | ".join(cols) + " |", "|---|" + "---:|" * (len(cols) - 1)]
    crs_big = summary[str(big)]["crs"]["median"]
    for label, name in ROWS.items():
        cells = [name]
        for w in windows:
            row = summary[str(w)][label]
            cells += [fmt(row["median"]), fmt(row["p90"])]
        if len(windows) > 1:
            ratio = summary[str(big)][label]["median"] / summary[str(small)][label]["median"]
            cells.append(f"{ratio:.2f}x")
        cells.append(f"{summary[str(big)][label]['median'] / crs_big:.2f}x")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=10_000, help="history before the main window")
    ap.add_argument("--n", type=int, default=2_000, help="timed steps per window")
    ap.add_argument("--reps", type=int, default=5, help="repetitions (fresh detectors each)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of the table")
    ap.add_argument(
        "--mode",
        choices=[*MODES, "both"],
        default="both",
        help="lockstep: the three side by side; solo: each alone; both (default): each "
        "repetition runs the two, alternating which goes first",
    )
    args = ap.parse_args(argv)
    if args.steps < 1 or args.n < 10 or args.reps < 1:
        ap.error("--steps >= 1, --n >= 10, --reps >= 1")
    logging.disable(logging.WARNING)
    faulthandler.enable()  # a crash in an extension leaves a traceback
    windows = [args.steps] if args.steps // 10 + args.n > args.steps else [args.steps // 10]
    if windows[0] != args.steps:
        windows.append(args.steps)
    modes = list(MODES) if args.mode == "both" else [args.mode]
    steps = history(args.steps + args.n)
    load_before = os.getloadavg()
    t_start = time.perf_counter()
    reps: dict[str, list[dict[int, dict[str, list[int]]]]] = {m: [] for m in modes}
    with contextlib.redirect_stdout(sys.stderr):  # agent-watchdog prints its halts
        for rep in range(args.reps):
            for mode in modes[rep % len(modes) :] + modes[: rep % len(modes)]:
                reps[mode].append(one_rep(mode, steps, windows, args.n, rep))
            print(f"rep {rep + 1}/{args.reps} done", file=sys.stderr)
    elapsed = time.perf_counter() - t_start
    load_after = os.getloadavg()

    summary: dict[str, Any] = {}
    for mode in modes:
        summary[mode] = {}
        for w in windows:
            summary[mode][str(w)] = {}
            for label in ROWS:
                meds = [statistics.median(r[w][label]) for r in reps[mode]]
                p90s = [p90(r[w][label]) for r in reps[mode]]
                summary[mode][str(w)][label] = {
                    "median": statistics.median(meds),
                    "p90": statistics.median(p90s),
                    "rep_medians": meds,
                }
    versions = {
        pkg: importlib.metadata.version(pkg) for pkg in ("openhands-sdk", "agent-watchdog", "lz4")
    }
    meta = {
        "python": platform.python_version(),
        "crs_commit": crs_commit(),
        "versions": versions,
        "steps": args.steps,
        "n": args.n,
        "reps": args.reps,
        "windows": windows,
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after],
        "elapsed_s": round(elapsed, 1),
    }
    if args.json:
        json.dump({"meta": meta, "results": summary}, sys.stdout, indent=1)
        print()
        return 0
    ver = ", ".join(f"{k} {v}" for k, v in versions.items())
    print(
        f"Python {meta['python']}, crs at {meta['crs_commit']}, {ver}; {args.reps} reps x "
        f"{args.n} timed steps per window, history {', '.join(f'{w:,}' for w in windows)} "
        f"steps; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after; "
        f"{elapsed:.0f} s."
    )
    for mode in modes:
        print(f"\n{mode}:\n")
        print(table(summary[mode], windows), end="")
        spread = ", ".join(
            f"{label} {min(r['rep_medians']) / 1000:.1f}-{max(r['rep_medians']) / 1000:.1f}"
            for label, r in summary[mode][str(windows[-1])].items()
        )
        print(f"\nSpread of the repetitions' medians at {windows[-1]:,} (µs): {spread}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
