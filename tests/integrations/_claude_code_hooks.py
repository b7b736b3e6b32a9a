"""Claude Code hook test helpers: the scripted agent (documented payloads piped into the real
`python -m crs hook claude-code`), and the hook servers of a test's crs home (start one, wait
for it, find it, kill it at teardown)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crs.integrations import _hook_client as client

ROOT = Path(__file__).resolve().parents[2]
HOOK = [sys.executable, "-m", "crs", "hook", "claude-code"]


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    return {**env, "PYTHONPATH": str(ROOT / "python"), "CRS_HOME": str(home), **extra}


@dataclass
class Reply:
    code: int
    doc: dict[str, Any] | None
    stderr: str

    @property
    def specific(self) -> dict[str, Any]:
        specific: dict[str, Any] = (self.doc or {}).get("hookSpecificOutput", {})
        return specific


def run_hook(
    payload: Any, env: dict[str, str], args: tuple[str, ...] = (), hook: list[str] = HOOK
) -> Reply:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    p = subprocess.run(
        [*hook, *args], input=text, capture_output=True, text=True, env=env, timeout=60
    )
    doc = json.loads(p.stdout) if p.stdout.strip() else None
    return Reply(p.returncode, doc, p.stderr)


@dataclass
class Agent:
    """A scripted Claude Code session: every tool call goes through the two hooks."""

    home: Path
    project: Path
    session: str
    args: tuple[str, ...] = ()
    extra: dict[str, str] = field(default_factory=dict)
    hook: list[str] = field(default_factory=lambda: list(HOOK))
    n: int = 0
    log: list[tuple[str, Reply]] = field(default_factory=list)

    def base(self, event: str) -> dict[str, Any]:
        return {
            "session_id": self.session,
            "transcript_path": str(self.home / f"{self.session}.jsonl"),
            "cwd": str(self.project),
            "permission_mode": "default",
            "hook_event_name": event,
        }

    def event(self, event: str, **fields: Any) -> Reply:
        env = env_for(self.home, **self.extra)
        r = run_hook({**self.base(event), **fields}, env, self.args, self.hook)
        assert r.code == 0, r.stderr
        self.log.append((event, r))
        return r

    def call(
        self, tool: str, tool_input: dict[str, Any], response: Any = None, error: str | None = None
    ) -> tuple[Reply, Reply | None]:
        """(the PreToolUse reply, the PostToolUse[Failure] reply or None if denied)."""
        self.n += 1
        ident = {"tool_name": tool, "tool_input": tool_input, "tool_use_id": f"toolu_{self.n:04d}"}
        pre = self.event("PreToolUse", **ident)
        if pre.specific.get("permissionDecision") in ("deny", "ask"):
            return pre, None
        if error is not None:
            post = self.event("PostToolUseFailure", **ident, error=error, is_interrupt=False)
        else:
            post = self.event("PostToolUse", **ident, tool_response=response)
        return pre, post


def sock_path(home: Path, package: str = client.PACKAGE) -> str:
    return client.socket_path(client.home_dir(str(home)), package)


def server_pid(home: Path, package: str = client.PACKAGE) -> int | None:
    """The pid in the server's pid file, if that process is alive."""
    try:
        pid = int(Path(sock_path(home, package) + ".pid").read_text())
    except (OSError, ValueError):
        return None
    return pid if alive(pid) else None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (our own child, not reaped) counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def wait_ready(home: Path, timeout: float = 30.0, package: str = client.PACKAGE) -> int:
    """The pid of the server once it accepts connections."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pid = server_pid(home, package)
        if pid is not None:
            sock = client._connect(sock_path(home, package))
            if sock is not None:
                sock.close()
                return pid
        time.sleep(0.05)
    raise AssertionError(f"no hook server came up for {home}")


def wait_gone(pid: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while alive(pid):
        if time.monotonic() > deadline:
            raise AssertionError(f"hook server {pid} still running")
        time.sleep(0.05)


def servers_of(home: Path) -> list[int]:
    """Every live hook server process whose `--home` is `home` (Linux /proc)."""
    want = client.home_dir(str(home))
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = [a.decode(errors="replace") for a in f.read().split(b"\0")]
        except OSError:
            continue
        if "crs.integrations._hook_server" in argv and "--home" in argv:
            i = argv.index("--home")
            if i + 1 < len(argv) and argv[i + 1] == want and alive(int(entry)):
                found.append(int(entry))
    return found


def kill_servers(home: Path) -> None:
    """SIGKILL every hook server of `home` and wait for them to go."""
    for pid in servers_of(home):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
        wait_gone(pid, 10.0)


def start_server(home: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A hook server for `home` started as the client starts it, ready when this returns;
    the caller kills it (`stop_server`)."""
    proc = client.spawn(client.home_dir(str(home)), sock_path(home), env)
    assert proc is not None
    try:
        wait_ready(home)
    except BaseException:
        stop_server(home, proc)
        raise
    return proc


def reads_finished(agent: Agent, n: int, tag: str) -> list[dict[str, Any]]:
    """PostToolUse payloads of `n` different reads finishing at once."""
    return [
        {
            **agent.base("PostToolUse"),
            "tool_name": "Read",
            "tool_input": {"file_path": str(agent.project / f"f{i}.py")},
            "tool_use_id": f"toolu_{tag}_{i}",
            "tool_response": f"content {i}",
        }
        for i in range(n)
    ]


def run_at_once(tmp_path: Path, payloads: list[dict[str, Any]], env: dict[str, str]) -> None:
    """One hook process per payload, all started at once; each exits 0 with no output."""
    procs = []
    for i, payload in enumerate(payloads):
        stdin = tmp_path / f"payload{i}.json"
        stdin.write_text(json.dumps(payload))
        with open(stdin, "rb") as f:
            procs.append(
                subprocess.Popen(
                    HOOK, stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
                )
            )
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert (p.returncode, out, err) == (0, b"", b"")


def stop_server(home: Path, proc: subprocess.Popen[bytes] | None = None) -> None:
    """Kill every hook server of `home` (and reap `proc`)."""
    kill_servers(home)
    if proc is not None:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


@contextlib.contextmanager
def answered(kind: str, home: Path) -> Iterator[dict[str, str]]:
    """The hook environment for `home`: `kind` "in-process" (`CRS_HOOK_DAEMON=0`) or
    "server" (a hook server started first, killed on exit)."""
    if kind == "in-process":
        yield {"CRS_HOOK_DAEMON": "0"}
        return
    proc = start_server(home, env_for(home, CRS_HOOK_DAEMON_IDLE_S="60"))
    try:
        yield {}
    finally:
        stop_server(home, proc)


def make_project(tmp_path: Path) -> Path:
    p = tmp_path / "repo"
    p.mkdir()
    (p / "main.c").write_text("int main(void) { return foo(); }\n")
    return p


def trace_rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]
