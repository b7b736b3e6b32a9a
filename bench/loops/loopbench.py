"""The loop benchmark's shared half: the data, the scoring, the crs runner and the
reimplemented Vercel check. No third-party imports (the peers run in their own venv,
`peers.py`); crs is imported only by `run_crs`.

Flag positions follow README.md: a detector "flags at step k" when k is the last event whose
outcome it had seen; a refusal in `before_call` of step i is k = i - 1.
"""

from __future__ import annotations

import json
import statistics
import tempfile
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "trajectories.jsonl"

Trajectory = dict[str, Any]
Flags = dict[str, int | None]  # trajectory id -> flag step (None: never flagged)

TRANSIENT_KINDS = {"timeout", "rate_limit", "server_error", "network"}


def load(path: Path = DATA) -> list[Trajectory]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def result_text(value: Any) -> str:
    """A tool result as the text an agent framework would show the model."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def error_exception(event: dict[str, Any]) -> BaseException:
    """The exception a tool would raise for this event's error."""
    kind, text = event.get("error_kind"), str(event["error"])
    if kind == "timeout":
        return TimeoutError(text)
    if kind == "network":
        return ConnectionError(text)
    return RuntimeError(text)


# ---------------------------------------------------------------------------- scoring


@dataclass
class Outcome:
    id: str
    loop: bool
    cls: str
    split: str
    flag: int | None
    verdict: str  # caught | early | late | missed | false_alarm | quiet
    latency: int | None


def judge(traj: Trajectory, flag: int | None) -> Outcome:
    if not traj["loop"]:
        verdict = "quiet" if flag is None else "false_alarm"
        return Outcome(traj["id"], False, traj["class"], traj["split"], flag, verdict, None)
    earliest, latest = traj["earliest"], traj["latest"]
    latency = None
    if flag is None:
        verdict = "missed"
    elif flag < earliest:
        verdict = "early"
    elif flag <= latest:
        verdict, latency = "caught", flag - earliest
    else:
        verdict, latency = "late", flag - earliest
    return Outcome(traj["id"], True, traj["class"], traj["split"], flag, verdict, latency)


@dataclass
class Score:
    loops: int
    caught: int
    early: int
    late: int
    missed: int
    legit: int
    false_alarms: int
    median_latency: float | None

    @property
    def recall(self) -> float:
        return self.caught / self.loops if self.loops else 1.0


def score(outcomes: Iterable[Outcome]) -> Score:
    outs = list(outcomes)
    loops = [o for o in outs if o.loop]
    legit = [o for o in outs if not o.loop]
    lat = [o.latency for o in loops if o.latency is not None]
    return Score(
        loops=len(loops),
        caught=sum(o.verdict == "caught" for o in loops),
        early=sum(o.verdict == "early" for o in loops),
        late=sum(o.verdict == "late" for o in loops),
        missed=sum(o.verdict == "missed" for o in loops),
        legit=len(legit),
        false_alarms=sum(o.verdict == "false_alarm" for o in legit),
        median_latency=statistics.median(lat) if lat else None,
    )


def outcomes_for(trajs: list[Trajectory], flags: Flags) -> list[Outcome]:
    return [judge(t, flags.get(t["id"])) for t in trajs]


SPLIT_ORDER = (
    "dev",
    "holdout",
    "fresh",
    "fresh2",
    "fresh3",
    "fresh4",
    "fresh5",
    "fresh6",
    "fresh7",
    "fresh8",
    "fresh9",
    "fresh10",
    "fresh11",
    "fresh12",
    "fresh13",
    "fresh14",
    "fresh15",
    "fresh16",
    "fresh17",
    "fresh18",
    "fresh19",
    "fresh20",
    "fresh21",
    "fresh22",
    "fresh23",
    "fresh24",
    "fresh25",
    "fresh26",
    "fresh27",
)


def table(trajs: list[Trajectory], results: dict[str, Flags]) -> str:
    """The markdown table: one row per detector, all trajectories and each split."""
    present = {t["split"] for t in trajs}
    splits = [s for s in SPLIT_ORDER if s in present] + sorted(present - set(SPLIT_ORDER))
    tail = ["early", "late", "missed", "median latency (steps)"]
    cols = ["detector", "loops caught (all)", *splits, "false alarms / legit (all)", *splits, *tail]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for name, flags in results.items():
        outs = outcomes_for(trajs, flags)
        s = score(outs)
        by = {sp: score(o for o in outs if o.split == sp) for sp in splits}
        lat = "-" if s.median_latency is None else f"{s.median_latency:g}"
        cells = [name, f"{s.caught}/{s.loops} ({100 * s.recall:.0f}%)"]
        cells += [f"{by[sp].caught}/{by[sp].loops}" for sp in splits]
        cells += [f"{s.false_alarms}/{s.legit}"]
        cells += [f"{by[sp].false_alarms}/{by[sp].legit}" for sp in splits]
        cells += [str(s.early), str(s.late), str(s.missed), lat]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def per_class(trajs: list[Trajectory], results: dict[str, Flags]) -> str:
    """Caught (loops) or quiet (legitimate) per class and detector."""
    classes = sorted({(t["loop"], t["class"]) for t in trajs}, key=lambda c: (not c[0], c[1]))
    names = list(results)
    out = ["| class | n | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for loop, cls in classes:
        members = [t for t in trajs if t["class"] == cls]
        cells = []
        for name in names:
            outs = outcomes_for(members, results[name])
            good = sum(o.verdict == ("caught" if loop else "quiet") for o in outs)
            cells.append(str(good))
        kind = "loop" if loop else "legit"
        out.append(f"| {cls} ({kind}) | {len(members)} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def failures(trajs: list[Trajectory], flags: Flags) -> dict[str, list[str]]:
    """Ids of the trajectories a detector got wrong, by kind of failure."""
    out: dict[str, list[str]] = {"missed": [], "early": [], "late": [], "false_alarm": []}
    for o in outcomes_for(trajs, flags):
        if o.verdict in out:
            out[o.verdict].append(f"{o.id} ({o.split})")
    return out


# ---------------------------------------------------------------------------- crs


class Workspace:
    """A fingerprint that changes when the workspace does (workspace events, mutating calls)."""

    def __init__(self) -> None:
        self.generation = 0

    def bump(self) -> None:
        self.generation += 1

    def fingerprint(self) -> str:
        return f"workspace-generation-{self.generation}"


def _not_allow(verdict: Any) -> bool:
    return str(getattr(verdict.action, "value", verdict.action)) != "allow"


def _sessions(traj: Trajectory) -> bool:
    return any(e["type"] == "session" for e in traj["events"])


def crs_flag(
    traj: Trajectory, tmp: Path, verdicts: list[dict[str, Any]] | None = None
) -> int | None:
    """Drives `crs.Guard` over one trajectory; the flag step, or None.

    `verdicts`, if given, receives every non-ALLOW verdict (step, phase, to_dict()).
    """
    from crs.guard import Guard

    ws = Workspace()
    durable = _sessions(traj)
    project = tmp / "project"
    home = tmp / "home"
    first: int | None = None

    def note(step: int, phase: str, verdict: Any) -> bool:
        nonlocal first
        if not _not_allow(verdict):
            return False
        if first is None:
            first = step
        if verdicts is not None:
            verdicts.append({"step": step, "phase": phase, "verdict": verdict.to_dict()})
        return True

    with ExitStack() as stack:

        def open_guard(session: str) -> Any:
            if durable:
                project.mkdir(parents=True, exist_ok=True)
                g = Guard.open(project, session, home=home, fingerprint=ws.fingerprint)
            else:
                g = Guard(session=session, fingerprint=ws.fingerprint)
            return stack.enter_context(g)

        guard = open_guard("s1")
        for i, ev in enumerate(traj["events"]):
            kind = ev["type"]
            if kind == "user":
                guard.new_turn(ev.get("text"))  # the user's text, when the trajectory has it
            elif kind == "message":
                if note(i, "on_message", guard.on_message(ev["text"])) and verdicts is None:
                    break
            elif kind == "workspace":
                ws.bump()
            elif kind == "session":
                stack.close()
                guard = open_guard(ev["session"])
            elif kind == "call":
                v = guard.before_call(ev["tool"], ev["args"])
                if note(i - 1, "before_call", v) and verdicts is None:
                    break
                if not v.allowed:
                    continue
                if "error" in ev:
                    after = guard.after_call(v.call, error=error_exception(ev))
                else:
                    after = guard.after_call(v.call, result=ev["result"])
                if ev.get("mutates"):
                    ws.bump()
                if note(i, "after_call", after) and verdicts is None:
                    break
            else:
                raise ValueError(f"{traj['id']}: unknown event type {kind!r} at {i}")
    return first


def run_crs(trajs: list[Trajectory]) -> Flags:
    out: Flags = {}
    for traj in trajs:
        with tempfile.TemporaryDirectory(prefix="loopbench-") as tmp:
            out[traj["id"]] = crs_flag(traj, Path(tmp))
    return out


# ---------------------------------------------------------------------------- vercel (reimpl.)


def vercel_flag(traj: Trajectory, count: int = 3) -> int | None:
    """`hasRepeatedToolCalls(count, {compareResults: true})`, reimplemented from the
    description in vercel/ai#17606 and #17610 (not Vercel's code): one tool call per step;
    the condition holds when the last `count` steps have the same tool name, the same
    `JSON.stringify` input (key order matters) and the same output. A step without a tool
    call, a tool error (not in `toolResults`) or a new user turn breaks the streak. It is
    evaluated after each step, so a hit at step i is k = i."""
    streak: list[str] = []
    for i, ev in enumerate(traj["events"]):
        if ev["type"] != "call":
            streak = []
            continue
        if "error" in ev:
            streak = []
            continue
        sig = json.dumps([ev["tool"], ev["args"], ev["result"]], ensure_ascii=False)
        streak = [*streak, sig][-count:]
        if len(streak) == count and len(set(streak)) == 1:
            return i
    return None


def run_vercel(trajs: list[Trajectory]) -> Flags:
    return {t["id"]: vercel_flag(t) for t in trajs}


RUNNERS: dict[str, Callable[[list[Trajectory]], Flags]] = {
    "crs": run_crs,
    "vercel (reimpl.)": run_vercel,
}
