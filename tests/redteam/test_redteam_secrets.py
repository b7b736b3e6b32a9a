"""Red team: secrets in a tool call's arguments never reach what the guard stores or shows.

Each test drives a durable guard on a real home, then reads every byte under that home
(journal segments, checkpoints, the lz4 backup decompressed) and every surface a person or a
model sees (`learned()`, `explain()`, `status()`, the MCP server's replies, the `crs guard
learned` CLI): the secret's text appears in none of them.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import lz4.frame
from fastmcp import Client

from crs.guard import Guard
from crs.integrations.mcp import create_server

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correcthorsebatterystaple"  # matches no secret pattern: only its key says it is one


def stored_bytes(home: Path) -> bytes:
    """Every file under `home`, backups decompressed (lz4 keeps literals, but not all)."""
    blob = b""
    for p in sorted(home.rglob("*")):
        if not p.is_file():
            continue
        data = p.read_bytes()
        blob += data
        at = data.find(b"\x04\x22\x4d\x18")  # an lz4 frame's magic
        if p.name.endswith(".lz4") and at >= 0:
            blob += lz4.frame.decompress(data[at:])
    return blob


def fail_three_times(guard: Guard, tool: str, args: dict[str, Any]) -> None:
    for _ in range(3):
        v = guard.before_call(tool, args)
        if v.allowed:
            guard.after_call(v.call, error="permission denied")


def seen_by_people(guard: Guard) -> str:
    return json.dumps(
        [guard.explain(), guard.status(), [f.to_dict() for f in guard.learned()]], default=str
    )


def test_a_lone_secret_argument_is_not_the_preview(tmp_path: Path) -> None:
    """`{"password": ...}` alone: the preview was the bare value, so nothing said it was a
    secret; it reached the journal, `learned()`, SessionStart's context and MCP replies."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s", home=home) as guard:
        for key in ("password", "api_key", "Authorization", "client_secret"):
            fail_three_times(guard, "login", {key: PASSWORD + key})
        assert len(guard.learned()) == 4
        previews = [f.preview for f in guard.learned()]
        seen = seen_by_people(guard)
        guard.crs.save_project_backup()
    assert all(PASSWORD not in p for p in previews), previews
    assert PASSWORD not in seen
    assert PASSWORD.encode() not in stored_bytes(home)
    argv = ["guard", "learned", "--project", str(project), "--home", str(home), "--json"]
    cli = subprocess.run(
        [sys.executable, "-m", "crs", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"},
    )
    assert cli.returncode == 0, cli.stderr
    assert len(json.loads(cli.stdout)) == 4
    assert PASSWORD not in cli.stdout


def test_a_secret_argument_beside_others_is_not_in_the_near_duplicate_text(
    tmp_path: Path,
) -> None:
    """The near-duplicate features (free-text tokens of the arguments) were sanitized value
    by value, without the key that names the secret: `password:<the password>` was journaled
    with every step."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s", home=home) as guard:
        for args in (
            {"user": "bob", "password": PASSWORD},
            {"query": "who am i", "token": PASSWORD + "t"},
            {"headers": "x", "x-api-key": PASSWORD + "k"},
        ):
            v = guard.before_call("http", args)
            guard.after_call(v.call, result="ok")
        seen = seen_by_people(guard)
        guard.crs.save_project_backup()
    assert PASSWORD not in seen
    assert PASSWORD.encode() not in stored_bytes(home)
    # and near-duplicates still work on the other words: a reworded query is compared
    with Guard() as g:
        for q in ("find the parser module", "find the parser module please"):
            v = g.before_call("search", {"query": q, "password": PASSWORD})
            g.after_call(v.call, result="no match")


def test_mcp_replies_carry_no_lone_secret_argument(tmp_path: Path) -> None:
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()

    async def main() -> str:
        texts = []
        with Guard.open(project, "m", home=home) as guard:
            async with Client(create_server(guard), timeout=60) as client:
                for i in range(3):
                    r = await client.call_tool(
                        "check_call",
                        {"tool": "login", "arguments": {"password": PASSWORD}, "call_id": f"c{i}"},
                    )
                    if json.loads(r.content[0].text)["allowed"]:  # type: ignore[union-attr]
                        await client.call_tool(
                            "record_result", {"call_id": f"c{i}", "error": "denied"}
                        )
                for name in ("learned_failures", "explain"):
                    r = await client.call_tool(name, {})
                    texts.append(r.content[0].text)  # type: ignore[union-attr]
        return "\n".join(texts)

    text = asyncio.run(main())
    assert '"failures":[{' in text
    assert PASSWORD not in text


def test_a_list_under_a_secret_key_is_redacted_whole(tmp_path: Path) -> None:
    """`{"token": ["..."]}`: the sanitizer replaced the `[` and kept the items
    (`{"token": [REDACTED]"..."]}`), in nested arguments, results and errors alike."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    one, two, three = (PASSWORD + n for n in ("one", "two", "three"))
    with Guard.open(project, "s", home=home) as guard:
        for _ in range(3):
            v = guard.before_call("deploy", {"config": {"token": [one]}, "env": "prod"})
            if v.allowed:
                guard.after_call(v.call, result={"api_key": [two]})
            v = guard.before_call("login", {"config": {"token": [one]}})
            if v.allowed:
                guard.after_call(v.call, error=json.dumps({"password": [three], "code": 401}))
        seen = seen_by_people(guard)
        guard.crs.save_project_backup()
    stored = stored_bytes(home)
    for secret in (one, two, three):
        assert secret not in seen
        assert secret.encode() not in stored


def test_a_private_key_written_to_a_file_is_not_in_the_previews(tmp_path: Path) -> None:
    """Claude Code's Write of a key file: `{"file_path": ..., "content": "-----BEGIN ...`.
    The previews are JSON (or a repr), where the key's line breaks are `\\n`: the sanitizer
    stopped the block at the first one, and the key's body was journaled in the preview of
    the arguments, of the result and in the error text."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
    pem = f"-----BEGIN PRIVATE KEY-----\n{body}\nAbCdEf0123456789\n-----END PRIVATE KEY-----\n"
    with Guard.open(project, "s", home=home) as guard:
        v = guard.before_call("Write", {"file_path": "key.pem", "content": pem})
        guard.after_call(v.call, result={"type": "create", "filePath": "key.pem", "content": pem})
        for _ in range(2):
            v = guard.before_call("Bash", {"command": "ssh-add key.pem"})
            guard.after_call(v.call, error=f"invalid format: {pem!r}")
        seen = seen_by_people(guard)
        guard.crs.save_project_backup()
    assert body not in seen
    assert body.encode() not in stored_bytes(home)
