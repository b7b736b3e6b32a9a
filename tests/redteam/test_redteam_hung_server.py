"""Red team: a hook server that is hung (deadlocked, not dead: it accepts the connection and
never answers) cost every hook the client's full reply timeout (docs/redteam.md). After one
timeout the client skips that server and answers in-process, deciding and recording as
without a server; a new server (or the hung one's death) ends the skip."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integrations"))
from _claude_code_hooks import Agent, sock_path

from crs.guard import Guard
from crs.integrations import _hook_client as client

# A real process at the client's socket path: it accepts every connection, reads the
# request and never answers (it ends by itself after a minute).
HUNG = r"""
import os, socket, sys, time
path = sys.argv[1]
os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.listen(16)
s.settimeout(60)
print("ready", flush=True)
held = []
end = time.monotonic() + 60
while time.monotonic() < end:
    try:
        c, _ = s.accept()
    except OSError:
        break
    held.append(c)
"""


def _start_hung(home: Path) -> subprocess.Popen[str]:
    path = sock_path(home)
    proc = subprocess.Popen([sys.executable, "-c", HUNG, path], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    return proc


def test_a_hung_server_is_skipped_after_one_timeout(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = tmp_path / "repo"
    project.mkdir()
    hung = _start_hung(home)
    try:
        agent = Agent(home, project, "sess-hung")
        t = time.monotonic()
        first = agent.event(  # PreToolUse: fails open after the timeout
            "PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t1"
        )
        waited = time.monotonic() - t
        assert waited >= client.REPLY_TIMEOUT_S - 0.5  # the first one cannot know
        assert first.specific.get("permissionDecision") in (None, "allow")  # fail open
        marker = Path(sock_path(home) + ".hung")
        assert marker.read_text().split()[1] == str(hung.pid)
        for i in range(2, 5):  # every later hook answers promptly, in-process, and records
            t = time.monotonic()
            pre, post = agent.call("Bash", {"command": f"ls {i}"}, {"stdout": f"{i}"})
            assert time.monotonic() - t < 8.0, "the hooks waited for the hung server"
            assert pre.specific.get("permissionDecision") in (None, "allow")
            assert post is not None
        log = (home / "logs" / "claude-code.log").read_text()
        assert f"hook server (pid {hung.pid}) did not answer" in log
        with Guard.open(project, "reader", home=home) as g:
            assert g.with_session("sess-hung").status()["calls"] == 3  # the skipped hooks'
        assert hung.poll() is None  # nobody replaced it: it still holds the socket
    finally:
        hung.kill()
        hung.wait()
        assert hung.stdout is not None
        hung.stdout.close()
    # the hung server died: its marker is void, the next hook starts a real server again
    agent.event("PreToolUse", tool_name="Bash", tool_input={"command": "pwd"}, tool_use_id="t9")
    assert not Path(sock_path(home) + ".hung").exists()


def test_a_marker_for_another_socket_is_ignored(tmp_path: Path) -> None:
    """A new server at the path (another socket file) is asked, whatever an old marker says."""
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    os.chmod(run, 0o700)
    path = str(run / "hook-x.sock")
    Path(path).write_text("")  # stands for the hung server's socket file
    client.mark_hung(path, os.getpid())
    assert client.hung(path)
    os.unlink(path)
    Path(path).write_text("")  # the new server's socket file
    os.utime(path, ns=(1, 1))
    assert not client.hung(path)
    assert not Path(path + ".hung").exists()
    client.mark_hung(path, os.getpid())
    past = time.time() - client.HUNG_SKIP_S - 1
    os.utime(path + ".hung", (past, past))
    assert not client.hung(path)  # skipped for a while, then asked again
