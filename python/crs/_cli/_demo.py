"""`crs demo`: a scripted coding-agent session guarded by a durable `crs.Guard`.

The agent works in a small demo project (`<home>/demo-project`): it reads three files,
polls CI (the result changes: allowed), fetches a page that times out once (the retry is
allowed), greps for a symbol that is not there until the guard nudges and then blocks it,
and runs a build that fails. Two failures of the same build in a row are refused (error
loop); after an edit the build runs again, fails, and the guard remembers the failure with
a fingerprint of the workspace. The next `crs demo` run is a new session: the build is
refused before it runs, with the earlier error as the reason, until the agent edits the
file; then it runs and passes. (A run after that starts over from the broken file.)

Five short scenes follow, each in a session of its own: a user who pings ("any update?")
and gets the same answer every time, a monologue (`Guard.new_turn(text)`); a walk over
tables (the same count query on five tables, each answering 0, is work, not a loop; the
same query on one table three times in a row still is one); a model stuck inside one
message (a long report of distinct findings passes; a message that ends in the same
passage said over and over is a monologue on its own); one file read again under other
argument names and path spellings (`path=src/util.py`, `file=./src/util.py`, ...: one
read, so the third is a repeat and the fourth is refused, while another file is read);
and tools the model made up (each call fails with "Unknown tool: <name>": after three
different tools failing that way the model is told to use the tools it has; the scene
forgets what it taught, `Guard.forget`, so that every run shows the same).

Everything the guard knows is in the demo project's CRS (`crs.open_project`: journal and
backups under the data directory, `$CRS_HOME`, else `~/.crs`).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from crs._check import shown
from crs._errors import CRSError
from crs._home import default_home
from crs.guard import Guard, Verdict, VerdictCode

PROJECT_DIR = "demo-project"
"""The demo's project directory, inside the data directory."""

BROKEN = "def main():\n    return cfg.load()\n"
FIXED = "def main(cfg):\n    return cfg.load()  # fixed\n"
FILES = {
    "README.md": "# demo\nA tiny project the crs demo agent works on.\n",
    "src/util.py": "def helper():\n    return 42\n",
}


@dataclass
class DemoStep:
    step: int
    tool: str
    args: str
    outcome: str  # ok | failed | timeout | refused
    action: str  # the guard's verdict: allow | nudge | block | stop
    code: str
    reason: str = ""


@dataclass
class DemoScene:
    name: str  # pings | walk | stuck | respelt | made-up
    title: str
    session_id: str
    steps: list[DemoStep] = field(default_factory=list)


@dataclass
class DemoReport:
    home: str
    project: str
    session_id: str
    run: int = 1
    restored: dict[str, Any] = field(default_factory=dict)
    steps: list[DemoStep] = field(default_factory=list)
    learned: list[dict[str, Any]] = field(default_factory=list)
    journal: dict[str, Any] = field(default_factory=dict)
    backup: dict[str, Any] = field(default_factory=dict)
    scenes: list[DemoScene] = field(default_factory=list)


class UnknownTool(LookupError):
    """A tool the demo agent does not have (the model made it up)."""


class _Tools:
    """The demo agent's tools, on the real project directory."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.polls = 0
        self.fetches = 0

    def run(self, tool: str, args: dict[str, Any]) -> str:
        if tool == "read_file":
            # the path under any of the names models give it, in any spelling
            (path,) = (str(v) for k, v in args.items() if k in ("path", "file", "filepath"))
            return (self.project / path.strip("/").replace("//", "/")).read_text()
        if tool == "ci_status":
            self.polls += 1
            return ["pending 2/5 checks", "pending 4/5 checks", "passed 5/5 checks"][
                min(self.polls, 3) - 1
            ]
        if tool == "web_fetch":
            self.fetches += 1
            if self.fetches == 1:
                raise TimeoutError("read timed out after 30 s")
            return "<html>API reference: load_config was renamed to read_settings</html>"
        if tool == "grep":
            hits = [
                f"{p.relative_to(self.project)}"
                for p in sorted(self.project.rglob("*.py"))
                if args["pattern"] in p.read_text()
            ]
            return "\n".join(hits)
        if tool == "edit_file":
            path = self.project / args["path"]
            path.write_text(args["content"])
            return f"wrote {len(args['content'])} bytes"
        if tool == "sql":  # every table of the demo's empty database
            return "0"
        if tool == "run_tests":
            return "12 passed in 0.41 s"
        if tool == "deploy_status":
            return "deploy v2.3: done, 3/3 hosts healthy"
        if tool == "run_build":
            source = (self.project / "src/app.py").read_text()
            if "fixed" not in source:
                raise RuntimeError("src/app.py:2: NameError: name 'cfg' is not defined")
            return "build ok: 2 modules"
        raise UnknownTool(f"Unknown tool: {tool}")  # a tool the model made up


def _prepare(project: Path, guard: Guard) -> None:
    for name, text in FILES.items():
        path = project / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    app = project / "src/app.py"
    remembered = any(f.tool == "run_build" for f in guard.learned())
    if not app.exists() or (not remembered and "fixed" in app.read_text()):
        app.write_text(BROKEN)  # a fresh start: the bug is back


def run_demo(home: Path | None = None) -> DemoReport:
    """Run the scripted session on the demo project's durable guard; return what it decided."""
    home = home if home is not None else default_home()
    project = home / PROJECT_DIR
    project.mkdir(parents=True, exist_ok=True)
    probe = Guard.open(project, "demo-probe", home=home)
    with probe:
        info = probe.crs.project_info()
        sessions = [s for s in probe._part.sessions if s.startswith("demo-")]
        run = 1 + len({s for s in sessions if s != "demo-probe"})
        restored = {
            "from_backup": info.restored_from_backup,
            "journal_records_replayed": info.replayed_records,
            "learned_failures": len(probe.learned()),
            "sessions": len(sessions),
        }
        _prepare(project, probe)
        guard = probe.with_session(f"demo-{run}")
        report = DemoReport(str(home), str(project), guard.session_id, run, restored)
        first_seq = probe.crs._journal.stats().last_seq_num
        _script(guard, _Tools(project), report)
        report.learned = [f.to_dict() for f in guard.learned()]
        tools = _Tools(project)
        report.scenes = [
            _pings(probe.with_session(f"scene-pings-{run}"), tools),
            _walk(probe.with_session(f"scene-walk-{run}"), tools),
            _stuck(probe.with_session(f"scene-stuck-{run}"), tools),
            _respelt(probe.with_session(f"scene-respelt-{run}"), tools),
            _made_up(probe.with_session(f"scene-made-up-{run}"), tools),
        ]
        meta = probe.crs.save_project_backup()
        stats = probe.crs._journal.stats()
        report.journal = {
            "path": str(info.journal_path),
            "records_appended": stats.last_seq_num - first_seq,
            "last_seq": stats.last_seq_num,
            "checkpoint_seq": stats.checkpoint_seq,
        }
        report.backup = {
            "path": str(info.backup_path),
            "size_bytes": meta.compressed_size,
            "journal_position": meta.journal_position,
        }
    return report


def _call(
    guard: Guard, tools: _Tools, report: DemoReport, tool: str, args: dict[str, Any]
) -> Verdict:
    """One guarded tool call, recorded in the report; returns the decisive verdict."""
    shown = ", ".join(f"{k}={v!r}" for k, v in args.items() if k != "content")
    v = guard.before_call(tool, args)
    if not v.allowed:
        report.steps.append(
            DemoStep(
                len(report.steps) + 1, tool, shown, "refused", str(v.action), str(v.code), v.reason
            )
        )
        return v
    assert v.call is not None
    try:
        result = tools.run(tool, args)
    except Exception as exc:
        after = guard.after_call(v.call, error=exc)
        outcome = "timeout" if isinstance(exc, TimeoutError) else "failed"
        reason = f"{type(exc).__name__}: {exc}"
    else:
        after = guard.after_call(v.call, result=result)
        outcome, reason = "ok", ""
    shown_v = after if after.action != "allow" else v
    if shown_v.reason:
        reason = f"{reason}; {shown_v.reason}" if reason else shown_v.reason
    report.steps.append(
        DemoStep(
            len(report.steps) + 1,
            tool,
            shown,
            outcome,
            str(shown_v.action),
            str(shown_v.code),
            reason,
        )
    )
    return after


def _script(guard: Guard, tools: _Tools, report: DemoReport) -> None:
    for path in ("README.md", "src/app.py", "src/util.py"):  # distinct reads
        _call(guard, tools, report, "read_file", {"path": path})
    for _ in range(3):  # polling: the result changes
        _call(guard, tools, report, "ci_status", {"pr": 7})
    for _ in range(2):  # a timeout, then the retry works
        _call(guard, tools, report, "web_fetch", {"url": "https://docs.example/api"})
    for _ in range(4):  # a real loop: the same grep, the same empty result
        v = _call(guard, tools, report, "grep", {"pattern": "load_config", "path": "src"})
        if not v.allowed:
            break
    build = {"target": "all"}
    edited = False
    for _ in range(6):
        v = _call(guard, tools, report, "run_build", build)
        if v.allowed and report.steps[-1].outcome == "ok":
            break
        if not v.allowed and v.code == VerdictCode.KNOWN_FAILURE:
            # remembered from an earlier session: fix the cause instead of re-running
            _call(guard, tools, report, "edit_file", {"path": "src/app.py", "content": FIXED})
        elif not v.allowed:
            if edited:
                break
            edited = True  # an edit that does not fix the bug: the build may run again
            _call(
                guard,
                tools,
                report,
                "edit_file",
                {"path": "src/app.py", "content": BROKEN + "# TODO\n"},
            )
        elif edited:
            break  # it failed again after the edit: the guard remembers it


ANSWER = "The deploy is still running; I will tell you when it is done."


def _said(scene: DemoScene, who: str, text: str, v: Verdict | None = None) -> None:
    """A user's turn (`v` None) or an agent's message and the guard's verdict on it."""
    outcome = "asked" if v is None else ("said" if v.allowed else "refused")
    action, code = ("", "") if v is None else (str(v.action), str(v.code))
    reason = "" if v is None or v.action == "allow" else v.reason
    scene.steps.append(
        DemoStep(len(scene.steps) + 1, who, repr(text), outcome, action, code, reason)
    )


def _scene_call(
    scene: DemoScene, guard: Guard, tools: _Tools, tool: str, args: dict[str, Any]
) -> None:
    v = guard.before_call(tool, args)
    after, outcome, error = v, "refused", ""
    if v.allowed:
        assert v.call is not None
        try:
            result = tools.run(tool, args)
        except UnknownTool as exc:
            after, outcome, error = guard.after_call(v.call, error=exc), "failed", str(exc)
        else:
            after, outcome = guard.after_call(v.call, result=result), "ok"
    shown_v = after if after.action != "allow" else v
    reason = shown_v.reason if shown_v.action != "allow" else ""
    scene.steps.append(
        DemoStep(
            len(scene.steps) + 1,
            tool,
            ", ".join(f"{k}={a!r}" for k, a in args.items()),
            outcome,
            str(shown_v.action),
            str(shown_v.code),
            f"{error}; {reason}" if error and reason else error or reason,
        )
    )


def _pings(guard: Guard, tools: _Tools) -> DemoScene:
    """The same answer to every "any update?" is a monologue: nudged, then blocked; the
    agent that looks (a tool call) and answers is let through."""
    scene = DemoScene("pings", "a user pings, the agent gives the same answer", guard.session_id)
    question = "Is the deploy of v2.3 finished?"
    guard.new_turn(question)
    _said(scene, "user", question)
    _said(scene, "agent", ANSWER, guard.on_message(ANSWER))
    for _ in range(3):
        guard.new_turn("any update?")
        _said(scene, "user", "any update?")
        _said(scene, "agent", ANSWER, guard.on_message(ANSWER))
    _scene_call(scene, guard, tools, "deploy_status", {"release": "v2.3"})
    done = "The deploy of v2.3 is done: all 3 hosts are healthy."
    _said(scene, "agent", done, guard.on_message(done))
    return scene


def _walk(guard: Guard, tools: _Tools) -> DemoScene:
    """The same query over five tables, each answering 0: a walk, every call allowed. The
    same query on one table three times in a row is a repeat."""
    scene = DemoScene("walk", "the same query over other tables", guard.session_id)
    for table in ("orders", "refunds", "invoices", "customers", "payouts", "payouts", "payouts"):
        _scene_call(scene, guard, tools, "sql", {"query": f"SELECT count(*) FROM {table}"})
    return scene


REPORT = "I checked the modules one by one. " + " ".join(
    f"Module m{i} imports cleanly and its {3 + i} tests pass." for i in range(12)
)
STUCK = (
    "The test still fails, so let me look at it again. "
    + (
        "I will now re-run the test suite to confirm the fix works and then check the output "
        "carefully for errors. "
    )
    * 6
)


def _stuck(guard: Guard, tools: _Tools) -> DemoScene:
    """A long message of distinct findings is allowed; one that ends in the same passage
    said six times (a model stuck generating) is a monologue on its own, with no earlier
    message; a tool call after it runs."""
    scene = DemoScene("stuck", "a model repeats itself inside one message", guard.session_id)
    guard.new_turn("Check every module and tell me which ones fail.")
    _said(scene, "user", "Check every module and tell me which ones fail.")
    _said(scene, "agent", _brief(REPORT), guard.on_message(REPORT))
    _said(scene, "agent", _brief(STUCK), guard.on_message(STUCK))
    _scene_call(scene, guard, tools, "run_tests", {"path": "tests/"})
    return scene


RESPELT = (  # one file under other argument names and path spellings, then another file
    {"path": "src/util.py"},
    {"file": "./src/util.py"},
    {"filepath": "src/util.py/"},
    {"path": "src//util.py"},
    {"path": "README.md"},
)


def _respelt(guard: Guard, tools: _Tools) -> DemoScene:
    """A call of one argument is its value, the path in one spelling: the same file read
    four ways is one read (the third a repeat, nudged; the fourth refused); another file
    is read."""
    scene = DemoScene("respelt", "one file read under other names and spellings", guard.session_id)
    for args in RESPELT:
        _scene_call(scene, guard, tools, "read_file", dict(args))
    return scene


MADE_UP = ("jira_search", "jira_find_issue", "confluence_search", "read_file")


def _made_up(guard: Guard, tools: _Tools) -> DemoScene:
    """Tools the model made up: each fails with "Unknown tool: <name>". Three different
    tools failing that way are an error loop (nudged: use the tools you have); a real
    tool runs."""
    scene = DemoScene("made-up", "tools the model made up", guard.session_id)
    for tool in MADE_UP:
        args = {"path": "README.md"} if tool == "read_file" else {"query": "login bug"}
        _scene_call(scene, guard, tools, tool, args)
    for failure in guard.learned():  # remembered (a later session would be refused them):
        if failure.tool in MADE_UP:  # forgotten, so that every run shows the same scene
            guard.forget(failure.id)
    return scene


def _brief(text: str) -> str:
    """A long message as the table shows it: its start and its length."""
    return f"{text[:48]}... ({len(text)} characters)"


def _print_steps(steps: list[DemoStep], out: TextIO) -> None:
    out.write(f"{'step':>4}  {'tool':<17} {'outcome':<8} {'guard':<6} {'code':<14} why\n")
    for s in steps:
        out.write(
            f"{s.step:>4}  {s.tool:<17} {s.outcome:<8} {s.action:<6} {s.code:<14} "
            f"{s.args}{'  ' + s.reason if s.reason else ''}\n"
        )


def print_report(report: DemoReport, out: TextIO) -> None:
    out.write(f"crs demo  run {report.run}  session={report.session_id}  home={report.home}\n")
    r = report.restored
    if r.get("sessions"):
        out.write(
            f"restored: {r['sessions']} earlier sessions, {r['learned_failures']} remembered "
            f"failures (backup: {'yes' if r['from_backup'] else 'no'}, "
            f"{r['journal_records_replayed']} journal records replayed)\n"
        )
    else:
        out.write("restored: nothing (first run on this data directory)\n")
    _print_steps(report.steps, out)
    out.write(f"remembered failures: {len(report.learned)}\n")
    for f in report.learned:
        out.write(f"  {f['id']}  {f['tool']} {f['preview']}: {f['error']}\n")
    j, b = report.journal, report.backup
    out.write(
        f"journal: {j['records_appended']} records appended (last seq {j['last_seq']}, "
        f"checkpointed up to {j['checkpoint_seq']}) in {j['path']}\n"
    )
    out.write(
        f"backup:  {b['size_bytes']} bytes, journal position {b['journal_position']}: {b['path']}\n"
    )
    for scene in report.scenes:
        out.write(f"\nscene: {scene.title}  session={scene.session_id}\n")
        _print_steps(scene.steps, out)
    if report.learned and report.run % 2 == 1:
        out.write("run `crs demo` again: the next session remembers the failing build\n")


def _unusable(home: Path) -> str | None:
    """Why the demo cannot keep its data in `home` (it creates what is missing), or None."""
    if os.path.lexists(home) and not home.is_dir():
        return "is not a directory"
    there = home
    while not os.path.lexists(there) and there != there.parent:
        there = there.parent  # the nearest part of the path that exists: it is created in
    if not there.is_dir():
        return f"is under {shown(str(there))}, which is not a directory"
    if not os.access(there, os.W_OK | os.X_OK):
        return (
            "cannot be written by this user"
            if there == home
            else f"cannot be created: {shown(str(there))} cannot be written by this user"
        )
    return None


def main(as_json: bool = False, home: Path | None = None, out: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    if home is not None:
        given = "--home"
    elif os.environ.get("CRS_HOME"):
        given = "$CRS_HOME"
    else:
        given = "the default data directory"
    where = home if home is not None else default_home()
    why = _unusable(where)
    if why is not None:  # said before anything runs: a traceback half-way helps nobody
        print(
            f"crs demo: {given} {shown(str(where))} {why}; give --home (or set $CRS_HOME "
            "to) a directory this user can write, or one crs may create",
            file=sys.stderr,
        )
        return 1
    try:
        report = run_demo(where)
    except (CRSError, OSError) as exc:  # what the home's content holds (a LOCK dir, ...)
        print(f"crs demo: {shown(str(exc))}", file=sys.stderr)
        return 1
    if as_json:
        json.dump(asdict(report), out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:
        print_report(report, out)
    return 0
