"""The cold Claude Code hook (no hook server: `CRS_HOOK_DAEMON=0`, the first hook of a session)
imports only what deciding needs (docs/hook-server.md, "The cold path").

Each event runs the installed hook command (`claude_code.hook_command()`, the thin client's
file) as a real process under `python -X importtime`, which lists every module the process
imported; the modules below load on first use and a hook never uses them. Then, in one fresh
interpreter, the same engine still gives every deferred piece when asked for it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from crs.integrations.claude_code import hook_argv
from fresh_imports import modules_after

ROOT = Path(__file__).resolve().parents[2]

DEFERRED = {
    "crs._state._serializer",  # exports and imports (18 records)
    "crs._state._analytics",
    "crs._state._snapshot",
    "crs._state._graph",
    "crs._crs_eval",  # the Evaluable face
    "crs._types._deferred",  # four records no hook builds (KeyValue, NodeFrequency, ...)
    "crs._evaluable",
    "crs._persistence._session_restore",  # the SessionRestorer (opening needs _load only)
    "uuid",  # checkpoints
    "shutil",  # installing, a journal restore
    "asyncio",
    "importlib.metadata",
}
NO_FINGERPRINT = {"subprocess"}  # git runs only when a failure is learned or matched


def _cold_hook(home: Path, payload: dict[str, Any]) -> tuple[str, set[str]]:
    """(stdout, imported modules) of one cold hook process."""
    python, *rest = hook_argv()  # (the installed command, without its shell ending)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "python")}
    env |= {"CRS_HOME": str(home), "CRS_HOOK_DAEMON": "0"}
    p = subprocess.run(
        [python, "-X", "importtime", *rest],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    modules = {
        line.rpartition("|")[2].strip()
        for line in p.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "crs.guard._guard" in modules, p.stderr[-2000:]  # it did decide in-process
    return p.stdout, modules


def test_a_cold_hook_imports_no_deferred_module(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()

    def event(name: str, session: str = "s1", **fields: Any) -> dict[str, Any]:
        return {"session_id": session, "hook_event_name": name, "cwd": str(project), **fields}

    read: dict[str, Any] = {"tool_name": "Read", "tool_input": {"file_path": str(project / "a")}}
    make: dict[str, Any] = {"tool_name": "Bash", "tool_input": {"command": "make"}}
    failed = "make: *** [all] Error 2"
    script = [
        (event("SessionStart"), False),
        (event("UserPromptSubmit", prompt="build it"), False),
        (event("PreToolUse", tool_use_id="t1", **read), False),
        (event("PostToolUse", tool_use_id="t1", tool_response="x = 1", **read), False),
        (event("PreToolUse", tool_use_id="t2", **make), False),
        (
            event("PostToolUseFailure", tool_use_id="t2", error=failed, **make),
            True,
        ),
        (event("Stop"), False),
    ]
    for payload, learns in script:
        out, modules = _cold_hook(home, payload)
        assert out == "", (payload["hook_event_name"], out)
        deferred = DEFERRED if learns else DEFERRED | NO_FINGERPRINT
        assert modules & deferred == set(), payload["hook_event_name"]
    # A later session's first hook (cold) sees what this one learned.
    out, modules = _cold_hook(home, event("SessionStart", session="s2"))
    assert (
        "remembers 1 failed tool call" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    )
    assert modules & DEFERRED == set()


def test_what_a_hook_defers_loads_when_used(tmp_path: Path) -> None:
    code = f"""
import io, json, crs
from crs.integrations import claude_code as cc
p = {{"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": {str(tmp_path)!r},
     "tool_name": "Read", "tool_input": {{"file_path": "a.py"}}, "tool_use_id": "t1"}}
assert cc.run(io.StringIO(json.dumps(p)), io.StringIO(), io.StringIO(),
              home={str(tmp_path / "home")!r}) == 0
assert "crs._state._serializer" not in sys.modules and "crs._crs_eval" not in sys.modules
c = crs.open_project({str(tmp_path)!r}, home={str(tmp_path / "home")!r})
assert json.loads(c.export_json())["generation"] == c.generation()
assert all(r.passed for r in c.properties())
assert c.health_check().state == crs.HealthState.HEALTHY
assert c.snapshot().generation() == c.generation() and c.checkpoint().id
assert c.get_last_analytics("cycles") is None
c.close()
assert crs.Serializer.__module__ == "crs" and crs.Snapshot.__module__ == "crs"
"""
    modules = modules_after(code)
    assert {"crs._state._serializer", "crs._crs_eval", "crs._state._snapshot", "uuid"} <= modules


def _run(code: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "python")}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )


def test_the_hook_process_exits_with_its_output_flushed(tmp_path: Path) -> None:
    # No other thread: the process skips the interpreter's teardown, after flushing.
    p = _run(
        "import sys\nfrom crs.integrations._hook_client import _exit\n"
        "sys.stdout.write('{\"answer\": 1}')\nsys.stderr.write('a log line')\n_exit(3)"
    )
    assert (p.returncode, p.stdout, p.stderr) == (3, '{"answer": 1}', "a log line")
    # Another thread still running: the usual exit, which waits for it.
    done = tmp_path / "done"
    p = _run(
        "import threading, time\nfrom crs.integrations._hook_client import _exit\n"
        f"def late():\n    time.sleep(0.3)\n    open({str(done)!r}, 'w').close()\n"
        "threading.Thread(target=late).start()\nprint('out')\n_exit(0)"
    )
    assert (p.returncode, p.stdout, done.exists()) == (0, "out\n", True)
