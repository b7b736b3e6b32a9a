"""Red team, tenth pass: a hook server kept busy by Claude Code sessions in many project
directories (a real server process, real hook processes, its file-descriptor limit lowered
with `prlimit`, as macOS's default soft limit of 256 is)."""

from __future__ import annotations

import os
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integrations"))
from _claude_code_hooks import env_for, run_hook, start_server, stop_server

from crs.guard import Guard
from crs.integrations import _hook_server


def _fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_a_server_serving_many_projects_keeps_its_open_files_bounded(tmp_path: Path) -> None:
    """The server held every project it had answered open (two descriptors each: the
    journal's segment and its lock) until it idled out, which a busy server never does: at
    its descriptor limit each new project's hooks failed open ("Too many open files"),
    unguarded. It now holds at most `MAX_OPEN_PROJECTS`, closing the least recently used
    one no request is using; a project closed so is opened again with what it knew."""
    home = tmp_path / "home"
    proc = start_server(home, env_for(home, CRS_HOOK_DAEMON_IDLE_S="60"))
    try:
        base = _fds(proc.pid)
        limit = base + 2 * _hook_server.MAX_OPEN_PROJECTS + 20
        resource.prlimit(proc.pid, resource.RLIMIT_NOFILE, (limit, limit))
        env = env_for(home)
        dirs = []
        for n in range(_hook_server.MAX_OPEN_PROJECTS + 30):
            d = tmp_path / f"p{n}"
            d.mkdir()
            dirs.append(d)
            payload = {
                "session_id": "s",
                "cwd": str(d),
                "hook_event_name": "PostToolUse",
                "tool_name": "Read",
                "tool_input": {"file_path": str(d / "a.py")},
                "tool_use_id": f"t{n}",
                "tool_response": "content",
            }
            r = run_hook(payload, env)
            assert r.code == 0
            assert "failed open" not in r.stderr, (n, r.stderr)
        assert _fds(proc.pid) < limit
        # the first project was closed on the way and opened again: its call is there
        r = run_hook(
            {
                "session_id": "s",
                "cwd": str(dirs[0]),
                "hook_event_name": "PreToolUse",
                "tool_name": "Read",
                "tool_input": {"file_path": str(dirs[0] / "b.py")},
                "tool_use_id": "again",
            },
            env,
        )
        assert "failed open" not in r.stderr, r.stderr
        assert proc.poll() is None
    finally:
        stop_server(home, proc)
    with Guard.open(dirs[0], "reader", home=home) as g:
        assert g.with_session("s").status()["tool_calls"] == {"Read": 1}


def test_too_many_open_files_says_so_not_to_fix_the_directory(tmp_path: Path) -> None:
    """A journal that cannot be opened because the process ran out of file descriptors was
    answered with the advice for a broken directory ("fix its owner and permissions, or a
    file of another kind in its place"), which sent the user to a directory that is fine.
    The advice now names the limit (and a full or read-only file system likewise)."""
    import subprocess

    code = (
        "import resource, sys\n"
        "from crs import JournalDegradedError\n"
        "from crs.guard import Guard\n"
        "Guard.open(sys.argv[1], 's', home=sys.argv[2]).close()\n"  # (made once)
        "resource.setrlimit(resource.RLIMIT_NOFILE, (0, 0))\n"
        "try:\n"
        "    Guard.open(sys.argv[1], 's', home=sys.argv[2])\n"
        "except JournalDegradedError as exc:\n"
        "    print(exc.fix)\n"
    )
    project = tmp_path / "repo"
    project.mkdir()
    p = subprocess.run(
        [sys.executable, "-c", code, str(project), str(tmp_path / "home")],
        capture_output=True,
        text=True,
        env=env_for(tmp_path / "home"),
        timeout=30,
        check=False,
    )
    assert "ulimit -n" in p.stdout, (p.stdout, p.stderr[-1500:])
    assert "owner and permissions" not in p.stdout
