"""Red team, sixth pass: two writers of one session (two `Guard.open` of one project, in one
process or in two) numbered their calls from their own view, and both journaled the same
step; and the Claude Code hook server skipped a step per call (its PreToolUse reserved one,
its PostToolUse reserved the next).

Now a step another writer stored meanwhile is seen at commit time, under the journal's
writer lock, and the call takes the next free step; the Verdict and Call returned name the
step stored. Each check reads the project back in a new process.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

from test_redteam5_guard_calls import _reopened

from crs.guard import Guard
from crs.integrations import claude_code as cc

_WRITER = """
import json, sys
from crs.guard import Guard
g = Guard.open(sys.argv[1], "s", home=sys.argv[2], fingerprint=lambda: "fp")
calls = {}
print(json.dumps("ready"), flush=True)
for line in sys.stdin:
    cmd, name = line.split()
    if cmd == "before":
        v = g.before_call("read_file", {"path": name})
        calls[name] = v.call
    else:
        v = g.after_call(calls.pop(name), result="body of " + name)
    print(json.dumps([str(v.action), v.call.step, list(v.evidence)]), flush=True)
g.close()
"""


class _Writer:
    """A process with its own `Guard.open` of the session, driven a call at a time."""

    def __init__(self, project: Path, home: Path) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(project), str(home)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self._read() == "ready"

    def _read(self) -> Any:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 60)
        assert ready, "the writer process did not answer within 60 s"
        line = self.proc.stdout.readline()
        assert line, self.proc.stderr.read() if self.proc.stderr else "no output"
        return json.loads(line)

    def send(self, cmd: str, name: str) -> Any:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{cmd} {name}\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        _, err = self.proc.communicate(timeout=60)  # (closes stdin: the writer ends)
        assert self.proc.returncode == 0, err


def _project(tmp_path: Path) -> tuple[Path, Path]:
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    return project, home


def test_two_processes_interleaving_their_calls_store_distinct_steps(tmp_path: Path) -> None:
    """Two processes on one session, each a before_call, the other's call recorded in
    between, then its own: before, every round stored two calls under one step (and a
    third before_call in a row of one process ran further behind). Now the steps are
    distinct, each after_call's answer names the step stored, and a new process counts
    every call."""
    project, home = _project(tmp_path)
    a, b = _Writer(project, home), _Writer(project, home)
    stored: list[int] = []
    try:
        for i in range(6):
            a.send("before", f"a{i}.py")
            b.send("before", f"b{i}.py")
            if i % 2:
                b.send("before", f"c{i}.py")  # two of b's calls outstanding at once
                stored.append(b.send("after", f"c{i}.py")[1])
            stored.append(b.send("after", f"b{i}.py")[1])
            stored.append(a.send("after", f"a{i}.py")[1])
    finally:
        a.close()
        b.close()
    assert len(stored) == len(set(stored)) == 15
    status, recent = _reopened(project, home, ["s"])["s"]
    assert status["calls"] == 15
    steps = [r["step"] for r in recent]
    assert sorted(steps) == sorted(stored)
    assert status["last_step"] == max(stored)


def test_two_openers_in_one_process_keep_the_step_they_return(tmp_path: Path) -> None:
    """Two `Guard.open` of one session in one process: the after_call whose step the other
    took returns a Call at the step it was stored under, and the evidence of the loop its
    repeats make names stored steps only."""
    project, home = _project(tmp_path)
    a = Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    b = Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    got: list[int] = []
    evidence: set[int] = set()
    renumbered = 0
    with a, b:
        for i in range(5):
            # each reserves from its own view, behind the other's last record
            va = a.before_call("read_file", {"path": "same.py"})
            vb = b.before_call("read_file", {"path": f"b{i}.py"})
            assert va.call is not None
            assert vb.call is not None
            wb = b.after_call(vb.call, result=f"b{i}")
            wa = a.after_call(va.call, result="the same body")
            assert wa.call is not None
            assert wb.call is not None
            renumbered += (wa.call.step != va.call.step) + (wb.call.step != vb.call.step)
            got += [wb.call.step, wa.call.step]
            evidence.update(wa.evidence)
    assert renumbered >= 5  # (the case is made: the other had stored the step reserved)
    assert got == list(range(1, 11))
    status, recent = _reopened(project, home, ["s"])["s"]
    assert status["calls"] == 10
    assert [r["step"] for r in recent] == got
    assert evidence  # (the repeated read was noticed) ...
    assert evidence <= {r["step"] for r in recent if r["tool"] == "read_file"}
    assert evidence <= set(got[1::2])  # ... at a's own steps


def test_a_refusal_whose_step_was_taken_is_recorded_at_the_next_step(tmp_path: Path) -> None:
    """A before_call refused (an error loop) while another opener stored the step it
    reserved: the refusal's record takes the next free step."""
    project, home = _project(tmp_path)
    a = Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    b = Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    with a, b:
        for _ in range(3):
            v = a.before_call("run", {"command": "make test"})
            if not v.allowed:
                break
            assert v.call is not None
            a.after_call(v.call, error="make: *** [test] Error 2")
        mine = a.status()["last_step"]
        # (a failure of another call: a success would lift the error loop's block once)
        vb = b.before_call("run", {"command": "make lint"})
        assert vb.call is not None
        assert b.after_call(vb.call, error="Error 1").call.step == mine + 1  # type: ignore[union-attr]
        refused = a.before_call("run", {"command": "make test"})
        assert not refused.allowed
        assert refused.call is not None
        assert refused.call.step == mine + 2
    _, recent = _reopened(project, home, ["s"])["s"]
    steps = [r["step"] for r in recent]
    assert len(steps) == len(set(steps))
    assert steps[-1] == mine + 2


def test_call_for_after_before_call_pairs_with_its_step(tmp_path: Path) -> None:
    """`call_for` with the call_id of this guard's own before_call (an integration that
    records by id) gave the call a second step: the session's steps skipped one per call."""
    g = Guard()
    with g:
        for i in range(4):
            v = g.before_call("read_file", {"path": f"{i}.py"}, call_id=f"c{i}")
            assert v.call is not None
            call = g.call_for("read_file", {"path": f"{i}.py"}, f"c{i}")
            assert call.step == v.call.step
            g.after_call(call, result=str(i))
        assert [r["step"] for r in g.explain()["recent"]] == [1, 2, 3, 4]


def _hook(project: Path, event: str, i: int, **extra: Any) -> dict[str, Any]:
    return {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": extra.pop("command", f"cat f{i}.txt")},
        "tool_use_id": f"toolu_{i}",
        **extra,
    }


def test_the_hook_servers_pairs_keep_consecutive_steps(tmp_path: Path) -> None:
    """The hook server answers each event with a new `with_session` guard of one engine (a
    hook holds the writer lock across its decision): a PreToolUse reserved a step that
    nothing recorded and its PostToolUse took the next, so the steps went 2, 4, 6. Now a
    pre-call allowed gives its step back, a refused one keeps the step its record took."""
    project, home = _project(tmp_path)
    g = Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    refused = 0
    with g:
        for i in range(8):
            failing = i in (3, 4, 5)
            command = "make test" if failing else None
            pre = _hook(project, "PreToolUse", i, **({"command": command} if command else {}))
            child = g.with_session("s")
            reply = cc.answer(child, pre, "PreToolUse", "deny")
            child.close()
            if reply.stdout and "deny" in reply.stdout:
                refused += 1
                continue
            event = "PostToolUseFailure" if failing else "PostToolUse"
            post = _hook(
                project,
                event,
                i,
                **({"command": command, "error": "Error 2"} if failing else {}),
                tool_response="ok",
            )
            child = g.with_session("s")
            cc.answer(child, post, event, "deny")
            child.close()
        steps = [r["step"] for r in g.explain()["recent"]]
    assert refused == 1  # (the third run of the failing command)
    assert steps == list(range(1, 9))
    status, recent = _reopened(project, home, ["s"])["s"]
    assert [r["step"] for r in recent] == steps
    assert status["last_step"] == 8
