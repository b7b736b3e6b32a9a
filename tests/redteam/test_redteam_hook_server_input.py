"""Red team (second pass): the hook server's request handling. A payload the guard refuses
(a `tool_name` over 256 characters; then also a `tool_input` nested deeper than the guard
reads, which is now decided by a stand-in) failed open, as it should, but the server also
closed the project it had open for every request:
the guards of requests in flight on it were closed under them (their calls went unrecorded)
and the next request paid a reopen. The server's own request handler (`HookServer._handle`,
real files) keeps the project now; only a failure of the project itself drops it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from crs.integrations import _hook_client as client
from crs.integrations import _hook_server as hs


def _request(
    home: Path, project: Path, tool_input: dict[str, Any], n: int, tool: str = "Bash"
) -> bytes:
    payload = {
        "session_id": "sess-a",
        "transcript_path": str(home / "t.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": f"toolu_{n}",
    }
    fields = [client.MAGIC, client.token().encode(), str(home).encode(), str(project).encode()]
    fields += [b"", b"deny", b"", json.dumps(payload).encode()]
    return b"\0".join(fields)


def test_a_payload_the_guard_refuses_does_not_close_the_project(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "repo"
    project.mkdir()
    server = hs.HookServer(str(home), client.socket_path(str(home)), idle_s=60)
    try:
        reply, _ = server._handle(_request(home, project, {"command": "ls"}, 1))
        assert client.parse_reply(reply)[:2] == ("ok", 0)
        (held,) = server._projects.values()
        in_flight = held.guard.with_session("sess-b")  # another request's guard meanwhile
        reply, _ = server._handle(_request(home, project, {"command": "ls"}, 2, "T" * 300))
        status, code, out, err, _ = client.parse_reply(reply)
        assert (status, code, out) == ("ok", 0, b"")  # a stand-in tool name: allowed
        assert b"failed open" not in err  # (red team 4: no longer left unguarded)
        assert list(server._projects.values()) == [held]  # still open, not reopened
        deep: dict[str, Any] = {}
        cur = deep
        for _ in range(150):
            cur["a"] = {}
            cur = cur["a"]
        reply, _ = server._handle(_request(home, project, {"command": "ls", "x": deep}, 4))
        status, code, out, err, _ = client.parse_reply(reply)
        assert (status, code, out) == ("ok", 0, b"")  # decided by a stand-in: allowed
        assert b"failed open" not in err
        assert list(server._projects.values()) == [held]
        assert in_flight.before_call("Read", {"file_path": "a.py"}).allowed  # not closed
        in_flight.close()
        reply, _ = server._handle(_request(home, project, {"command": "pwd"}, 3))
        assert client.parse_reply(reply)[:2] == ("ok", 0)
        assert list(server._projects.values()) == [held]
    finally:
        server._shutdown()
