"""`crs hook install claude-code`: the hooks block merged into settings.json, nothing clobbered."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from _claude_code_hooks import kill_servers, wait_ready

from crs.integrations import claude_code

ROOT = Path(__file__).resolve().parents[2]

USER_SETTINGS: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm run lint)"], "deny": ["Read(./.env)"]},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "/usr/local/bin/audit.sh", "timeout": 5}],
            }
        ],
        "PostToolUse": [
            {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier -w"}]}
        ],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send claude"}]}],
    },
}


def install(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crs", "hook", "install", "claude-code", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python"), **env},
        timeout=60,
    )


def commands(settings: dict[str, Any], event: str) -> list[str]:
    return [h["command"] for g in settings["hooks"].get(event, []) for h in g["hooks"]]


def test_install_merges_beside_the_users_hooks_and_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(USER_SETTINGS, indent=4))
    first = install("--dir", str(tmp_path), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "installed in" in first.stdout
    merged = json.loads(path.read_text())
    assert merged["model"] == "opus"
    assert merged["permissions"] == USER_SETTINGS["permissions"]
    assert merged["hooks"]["Notification"] == USER_SETTINGS["hooks"]["Notification"]
    for event in claude_code.EVENTS:
        ours = [c for c in commands(merged, event) if claude_code.MARKER in c]
        assert len(ours) == 1, event
    assert commands(merged, "PreToolUse")[0] == "/usr/local/bin/audit.sh"  # kept, first
    assert "prettier -w" in commands(merged, "PostToolUse")
    tool_group = merged["hooks"]["PreToolUse"][-1]
    assert tool_group["matcher"] == "*"
    assert tool_group["hooks"][0]["type"] == "command"
    assert "matcher" not in merged["hooks"]["SessionStart"][0]
    backups = list(path.parent.glob("settings.json.*.bak"))
    assert len(backups) == 1
    assert json.loads(backups[0].read_text()) == USER_SETTINGS
    text = path.read_text()
    again = install("--dir", str(tmp_path), cwd=tmp_path)
    assert again.returncode == 0
    assert "already installed" in again.stdout
    assert path.read_text() == text
    assert len(list(path.parent.glob("settings.json.*.bak"))) == 1


def test_install_replaces_an_older_crs_command_in_place(tmp_path: Path) -> None:
    old = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "crs hook claude-code"}]}]}}
    merged = claude_code.merge_settings(old, "/opt/py -m crs hook claude-code")
    assert commands(merged, "Stop") == ["/opt/py -m crs hook claude-code"]
    assert claude_code.merge_settings(merged, "/opt/py -m crs hook claude-code") == merged
    assert old["hooks"]["Stop"][0]["hooks"][0]["command"] == "crs hook claude-code"  # a copy


def test_install_refuses_a_malformed_settings_file(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.local.json"
    path.parent.mkdir()
    path.write_text('{"hooks": {"PreToolUse": [ }')
    bad = install("--local", "--dir", str(tmp_path), cwd=tmp_path)
    assert bad.returncode == 1
    assert "not valid JSON" in bad.stderr
    assert path.read_text() == '{"hooks": {"PreToolUse": [ }'
    path.write_text('{"hooks": {"PreToolUse": {"matcher": "*"}}}')
    shape = install("--local", "--dir", str(tmp_path), cwd=tmp_path)
    assert shape.returncode == 1
    assert "hooks.PreToolUse" in shape.stderr
    assert list(path.parent.iterdir()) == [path]  # no backup, no temp file


def test_print_writes_nothing_and_the_printed_command_runs(tmp_path: Path) -> None:
    config = tmp_path / "claude-config"
    shown = install("--user", "--print", cwd=tmp_path, CLAUDE_CONFIG_DIR=str(config))
    assert shown.returncode == 0, shown.stderr
    assert not config.exists()
    settings = json.loads(shown.stdout)
    command = commands(settings, "PreToolUse")[0]
    argv = shlex.split(command)
    client = ROOT / "python" / "crs" / "integrations" / "_hook_client.py"
    assert argv[1:] == [str(client), "crs", "hook", "claude-code", "||", "exit", "1"]
    argv = ["/bin/sh", "-c", command]  # (run as Claude Code runs it: through a shell)
    payload = {
        "session_id": "install-check",
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": str(tmp_path / "a.txt")},
        "tool_use_id": "toolu_1",
    }
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "CRS_HOME": str(tmp_path / "home")}
    try:
        ran = subprocess.run(
            argv, input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=60
        )
        assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")
        wait_ready(tmp_path / "home")  # the hook started the hook server; the next goes there
        again = subprocess.run(
            argv, input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=60
        )
        assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    finally:
        kill_servers(tmp_path / "home")
    written = install("--user", cwd=tmp_path, CLAUDE_CONFIG_DIR=str(config))
    assert written.returncode == 0
    assert json.loads((config / "settings.json").read_text()) == settings
