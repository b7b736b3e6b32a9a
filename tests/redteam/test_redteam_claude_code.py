"""Red team: the Claude Code hook and its installer against hostile and careless input.

Payloads are piped into the real `python -m crs hook claude-code` (in the hook process, and
through a resident hook server where the path differs); settings files are real files.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integrations"))
from _claude_code_hooks import Agent, env_for, run_hook, start_server, stop_server

from crs.guard import Guard
from crs.integrations import _hook_client as client
from crs.integrations import claude_code as cc

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["0", "1"], ids=["in-process", "server"])
def mode(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """CRS_HOOK_DAEMON for the hooks: 0, or a server started first (killed at teardown)."""
    home = tmp_path / "home"
    server = env_for(home, CRS_HOOK_DAEMON_IDLE_S="60")
    proc = start_server(home, server) if request.param == "1" else None
    yield {"CRS_HOOK_DAEMON": request.param}
    stop_server(home, proc)


def _project(tmp_path: Path) -> Path:
    p = tmp_path / "repo"
    p.mkdir()
    return p


def test_a_result_cut_inside_a_surrogate_pair_is_still_recorded(
    tmp_path: Path, mode: dict[str, str]
) -> None:
    """Claude Code is JavaScript: a tool output truncated between the two halves of an emoji
    is a lone surrogate, which JSON.stringify writes as `\\ud83d`. The hook refused such a
    payload (lone surrogates are not text) and failed open, so the call was never recorded and
    a loop reading that output went unseen. It is recorded, with U+FFFD for the half."""
    project = _project(tmp_path)
    home = tmp_path / "home"
    agent = Agent(home, project, "sess-sur", extra=mode)
    response = '{"stdout": "build log \\ud83d", "stderr": "", "interrupted": false}'
    replies = []
    for i in range(5):
        ident = {"tool_name": "Bash", "tool_input": {"command": "make"}, "tool_use_id": f"t{i}"}
        pre = agent.event("PreToolUse", **ident)
        replies.append(pre)
        if pre.specific.get("permissionDecision") == "deny":
            break
        payload = {**agent.base("PostToolUse"), **ident, "tool_response": "RESPONSE"}
        text = json.dumps(payload).replace('"RESPONSE"', response)
        post = run_hook(text, env_for(home, **mode))
        assert post.code == 0
        assert "failed open" not in post.stderr, post.stderr
    assert replies[-1].specific.get("permissionDecision") == "deny"  # the loop was seen
    with Guard.open(project, "reader", home=home) as g:
        assert g.with_session("sess-sur").status()["calls"] >= 3


def test_non_utf8_bytes_in_a_payload_are_replaced_not_a_reason_to_skip(
    tmp_path: Path, mode: dict[str, str]
) -> None:
    project = _project(tmp_path)
    home = tmp_path / "home"
    base = {"session_id": "s8", "cwd": str(project), "tool_name": "Bash"}
    env = env_for(home, **mode)
    for i in range(4):
        pre = {**base, "hook_event_name": "PreToolUse", "tool_input": {"command": "cat log"}}
        r = run_hook(json.dumps({**pre, "tool_use_id": f"t{i}"}), env)
        if r.specific.get("permissionDecision") == "deny":
            break
        post = json.dumps({**pre, "hook_event_name": "PostToolUse", "tool_use_id": f"t{i}"})
        data = post[:-1].encode() + b', "tool_response": "bytes \xff\xfe here"}'
        p = subprocess.run(
            [sys.executable, "-m", "crs", "hook", "claude-code"],
            input=data,
            capture_output=True,
            env=env,
            timeout=60,
        )
        assert p.returncode == 0
        assert b"failed open" not in p.stderr, p.stderr
    assert r.specific.get("permissionDecision") == "deny"


def test_a_cwd_that_does_not_exist_creates_no_project(tmp_path: Path, mode: dict[str, str]) -> None:
    """A payload naming a directory that does not exist (removed mid-session, or made up)
    opened a project for it: a new directory in the crs home per made-up path. It fails open
    with a log line, and nothing is created."""
    home = tmp_path / "home"
    env = env_for(home, **mode)
    before = sorted(p.name for p in home.iterdir()) if home.exists() else []
    for i in range(3):
        payload = {
            "session_id": "s",
            "cwd": str(tmp_path / f"gone{i}"),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
        }
        r = run_hook(payload, env)
        assert (r.code, r.doc) == (0, None)
        assert "failed open" in r.stderr
        assert "not a directory" in r.stderr
    gone = str(tmp_path / "gone-project")  # and a $CLAUDE_PROJECT_DIR that is gone
    payload["cwd"] = os.path.join(gone, "src")
    r = run_hook(payload, env_for(home, **mode, CLAUDE_PROJECT_DIR=gone))
    assert (r.code, r.doc) == (0, None)
    assert "not a directory" in r.stderr
    after = sorted(p.name for p in home.iterdir() if p.name not in ("logs", "run"))
    assert [n for n in after if n not in before and "index" not in n] == []


def test_the_fail_open_log_line_does_not_echo_a_hostile_value(tmp_path: Path) -> None:
    home = tmp_path / "home"
    secret = "ghp_" + "a1b2c3d4e5" * 4
    payload = {
        "session_id": {"token": secret},
        "cwd": str(_project(tmp_path)),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
    }
    r = run_hook(payload, env_for(home, CRS_HOOK_DAEMON="0"))
    assert r.code == 0
    assert "failed open" in r.stderr
    assert secret not in r.stderr
    assert secret not in (home / "logs" / "claude-code.log").read_text()


# ------------------------------------------------------------------ the installer


def _install(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "crs",
            "hook",
            "install",
            "claude-code",
            "--dir",
            str(project),
            *list(args),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python"), **env},
    )


def _dotfiles(tmp_path: Path) -> Path:
    real = tmp_path / "dotfiles" / "claude-settings.json"
    real.parent.mkdir()
    real.write_text(json.dumps({"permissions": {"allow": ["Bash(ls)"]}}))
    return real


def test_install_through_a_symlinked_settings_file_keeps_the_link(tmp_path: Path) -> None:
    """Dotfile managers link ~/.claude/settings.json into a repository of the user's. The
    installer replaced the link by a plain file: the user's real file never got the hooks,
    and the link was gone. It writes the file the link points to."""
    project = _project(tmp_path)
    real = _dotfiles(tmp_path)
    config = tmp_path / "claude-config"
    config.mkdir()
    link = config / "settings.json"
    link.symlink_to(real)
    p = _install(project, "--user", CLAUDE_CONFIG_DIR=str(config))
    assert p.returncode == 0, p.stderr
    assert link.is_symlink()
    assert link.resolve() == real
    merged = json.loads(real.read_text())
    assert merged["permissions"] == {"allow": ["Bash(ls)"]}
    assert cc.MARKER in json.dumps(merged["hooks"]["PreToolUse"])
    again = _install(project, "--user", CLAUDE_CONFIG_DIR=str(config))
    assert again.stdout.startswith("crs hooks for Claude Code already installed")


def test_install_does_not_follow_a_checkout_s_link_out_of_it(tmp_path: Path) -> None:
    """A project's `.claude/settings.json` comes with the repository: a link from there to a
    JSON file elsewhere (one of the user's) is not followed, nor replaced."""
    project = _project(tmp_path)
    real = _dotfiles(tmp_path)
    before = real.read_text()
    (project / ".claude").mkdir()
    link = project / ".claude" / "settings.json"
    link.symlink_to(real)
    p = _install(project)
    assert p.returncode == 1
    assert "outside the project" in p.stderr
    assert real.read_text() == before
    assert link.is_symlink()


def test_install_refuses_a_settings_file_that_is_not_utf8(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / ".claude").mkdir()
    settings = project / ".claude" / "settings.json"
    settings.write_bytes(b'{"model": "\xff"}')
    p = _install(project)
    assert p.returncode == 1
    assert "Traceback" not in p.stderr
    assert "UTF-8" in p.stderr
    assert str(settings) in p.stderr
    assert settings.read_bytes() == b'{"model": "\xff"}'
    assert sorted(x.name for x in settings.parent.iterdir()) == ["settings.json"]


def test_install_reports_a_settings_path_it_cannot_write(tmp_path: Path) -> None:
    """A `.claude` that is a file (or any path the installer cannot write): a clear message
    and exit 1, not a traceback."""
    project = _project(tmp_path)
    (project / ".claude").write_text("not a directory")
    p = _install(project)
    assert p.returncode == 1
    assert "Traceback" not in p.stderr
    assert "crs:" in p.stderr
    assert (project / ".claude").read_text() == "not a directory"


def test_a_connection_probe_is_not_logged_as_a_failed_request(tmp_path: Path) -> None:
    """Parallel hooks probe the server's socket (is one up already?) by connecting and
    closing. The server logged each probe as "request failed (a malformed request)" in the
    user's claude-code.log: noise that hides real failures. An empty request is ignored; a
    malformed one is still logged."""
    home = tmp_path / "home"
    proc = start_server(home, env_for(home, CRS_HOOK_DAEMON_IDLE_S="60"))
    try:
        for _ in range(3):
            sock = client._connect(client.socket_path(client.home_dir(str(home))))
            assert sock is not None
            sock.close()
        sock = client._connect(client.socket_path(client.home_dir(str(home))))
        assert sock is not None
        try:
            sock.sendall(b"GET / HTTP/1.0\r\n\r\n")
            sock.shutdown(socket.SHUT_WR)
            assert sock.recv(100) == b""
        finally:
            sock.close()
        log_file = home / "logs" / "claude-code.log"
        deadline = time.monotonic() + 10  # the server logs just after closing the connection
        while not log_file.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        stop_server(home, proc)
    log = (home / "logs" / "claude-code.log").read_text()
    assert log.count("malformed request") == 1, log


def test_a_cwd_through_a_symlink_stays_in_the_session_s_project(
    tmp_path: Path, mode: dict[str, str]
) -> None:
    """`$CLAUDE_PROJECT_DIR` is A; the agent works in `A/vendor/lib`, a symlink to a checkout
    B elsewhere. The hook compared only resolved paths, so those calls went to B's guard
    state: the session's history split in two (a loop across the `cd` unseen) and B, another
    project, got A's session. A cwd inside the project as written belongs to the project."""
    home = tmp_path / "home"
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "vendor").mkdir()
    (a / "vendor" / "lib").symlink_to(b)
    env = env_for(home, **mode, CLAUDE_PROJECT_DIR=str(a))
    for i in range(3):
        payload = {
            "session_id": "s-link",
            "cwd": str(a / "vendor" / "lib"),
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": f"x{i}.c"},
            "tool_use_id": f"t{i}",
            "tool_response": f"int x{i};",
        }
        r = run_hook(payload, env)
        assert r.code == 0
        assert "failed open" not in r.stderr, r.stderr
    with Guard.open(a, "reader", home=home) as g:
        assert g.with_session("s-link").status()["calls"] == 3
    with Guard.open(b, "reader", home=home) as g:
        assert g.with_session("s-link").status()["calls"] == 0


def test_install_does_not_write_through_a_planted_temporary_file(tmp_path: Path) -> None:
    """The installer wrote its new file to the fixed name `.claude/.settings.json.crs-tmp`
    with O_CREAT|O_TRUNC, which follows a symlink. A cloned repository can ship that name as
    a link to any file of the user's (`~/.bashrc`): installing the hooks in that checkout
    overwrote it with settings JSON. The temporary file is a fresh one of its own now."""
    project = _project(tmp_path)
    victim = tmp_path / "bashrc"
    victim.write_text("export PATH=$HOME/bin:$PATH\n")
    (project / ".claude").mkdir()
    (project / ".claude" / ".settings.json.crs-tmp").symlink_to(victim)
    p = _install(project)
    assert p.returncode == 0, p.stderr
    assert victim.read_text() == "export PATH=$HOME/bin:$PATH\n"
    settings = project / ".claude" / "settings.json"
    assert not settings.is_symlink()
    assert cc.MARKER in settings.read_text()


def test_a_tool_use_id_that_is_not_text_is_ignored_not_echoed(tmp_path: Path) -> None:
    """A `tool_use_id` of another type made the guard refuse the call id, quoting it in the
    fail-open line of the user's log, and the call went unguarded. The call is decided
    without the id."""
    home = tmp_path / "home"
    secret = "ghp_" + "z9y8x7w6v5" * 4
    env = env_for(home, CRS_HOOK_DAEMON="0")
    payload = {
        "session_id": "s-id",
        "cwd": str(_project(tmp_path)),
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": "a.c"},
        "tool_use_id": {"token": secret},
        "tool_response": "int a;",
    }
    for _ in range(4):
        r = run_hook(payload, env)
        assert r.code == 0
        assert "failed open" not in r.stderr, r.stderr
    pre = run_hook({**payload, "hook_event_name": "PreToolUse"}, env)
    assert pre.specific.get("permissionDecision") == "deny"  # the repeats were recorded
    log = home / "logs" / "claude-code.log"
    assert not log.exists() or secret not in log.read_text()


def test_install_into_a_directory_that_does_not_exist_creates_nothing(tmp_path: Path) -> None:
    """`--dir <typo>` created the typo's directory (and a settings file in it)."""
    typo = tmp_path / "no-such-repo"
    p = _install(typo)
    assert p.returncode == 1
    assert "no such directory" in p.stderr
    assert not typo.exists()


def test_a_tool_input_the_guard_refuses_is_guarded_by_a_stand_in(
    tmp_path: Path, mode: dict[str, str]
) -> None:
    """A `tool_input` nested deeper than the guard reads made the hook fail open: the call
    was never recorded, so a loop of it went unseen, where the frameworks and MCP guard such
    a call by a stand-in. It is decided by the stand-in: a repeat is still a repeat."""
    project = _project(tmp_path)
    home = tmp_path / "home"
    agent = Agent(home, project, "sess-deep", extra=mode)
    deep: dict = {"leaf": "x"}
    for _ in range(150):
        deep = {"k": deep}
    replies = []
    for i in range(6):
        ident = {"tool_name": "mcp__db__query", "tool_input": deep, "tool_use_id": f"t{i}"}
        pre = agent.event("PreToolUse", **ident)
        replies.append(pre)
        if pre.specific.get("permissionDecision") == "deny":
            break
        post = run_hook(
            {**agent.base("PostToolUse"), **ident, "tool_response": "0 rows"},
            env_for(home, **mode),
        )
        assert post.code == 0
        assert "failed open" not in post.stderr, post.stderr
    assert replies[-1].specific.get("permissionDecision") == "deny"  # the loop was seen
    with Guard.open(project, "reader", home=home) as g:
        assert g.with_session("sess-deep").status()["calls"] >= 3
