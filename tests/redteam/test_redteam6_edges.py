"""Red team, sixth pass: the edges of what callers give and what the disk holds.

1. A 2 MB session id or tool name was quoted whole in the integrations' error messages (and
   log lines), and fastmcp logged a guard server tool's InvalidArgumentError with a full
   traceback as an internal error.
2. `JournalDegradedError` told Guard and CLI users to pass `allow_degraded`, which only a
   `JournalConfig` takes.
3. A `LOCK` directory in the journal gave "[Errno 21] Is a directory" with that advice.
4. `crs demo` with an unusable data directory ended in a traceback.
5. A secret after `--password` in a command (a string, or a list of argv strings) reached the
   journal through the near-duplicate features.

Real components only: real files, the real fastmcp server and client, the real Agents SDK and
LangChain classes, real `python -m crs` processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import mcp_types as mt
import pytest
from fastmcp import Client, FastMCP
from pydantic_ai.toolsets import FunctionToolset
from test_redteam5_cli import learned_build_failure

from crs import InvalidArgumentError, JournalDegradedError
from crs.guard import Guard
from crs.integrations import langchain as lc
from crs.integrations import mcp as crs_mcp
from crs.integrations import openai_agents as oa
from crs.integrations import pydantic_ai as pa
from crs.integrations._common import SessionGuards

BIG = "s" * 2_000_000  # a 2 MB value
LIMIT = 1024  # what an error message about it may take


def _crs(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crs", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ) if env is None else env,
    )


def _raised(fn: Callable[[], Any]) -> str:
    with pytest.raises(InvalidArgumentError) as info:
        fn()
    return str(info.value)


# ------------------------------------------------------------------ 1. bounded messages


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def logs() -> Iterator[_Records]:
    """Every record of the fastmcp and crs loggers (fastmcp's do not propagate)."""
    handler = _Records()
    loggers = [logging.getLogger(n) for n in ("fastmcp", "crs", "")]
    levels = [lg.level for lg in loggers]
    # fastmcp's own (rich) handlers stay at INFO: rendering its DEBUG lines, which echo a
    # 2 MB request, took ~20 s of the test (the records still reach `handler`)
    own = [(h, h.level) for lg in loggers for h in lg.handlers]
    for h, level in own:
        h.setLevel(max(level, logging.INFO))
    for lg in loggers:
        lg.addHandler(handler)
        lg.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.removeHandler(handler)
            lg.setLevel(level)
        for h, level in own:
            h.setLevel(level)


def _no_traceback_and_short(logs: _Records) -> None:
    for r in logs.records:
        if isinstance(r.exc_info, tuple):
            assert r.exc_info[0] is None, r.getMessage()[:300]
        if r.levelno >= logging.INFO:  # (fastmcp's own DEBUG lines echo the request)
            assert len(r.getMessage()) < 4 * LIMIT, r.getMessage()[:300]


def test_the_integrations_bound_what_they_quote() -> None:
    guard = Guard()
    cases: list[tuple[str, Callable[[], Any]]] = [
        ("session", lambda: crs_mcp.run("/nonexistent-rt6", session=BIG)),
        ("project", lambda: crs_mcp.run("/nonexistent-rt6/" + "p" * 3000)),
        ("transport", lambda: crs_mcp.run("/nonexistent-rt6", transport=BIG)),  # type: ignore[arg-type]
        ("token", lambda: crs_mcp._check_http_token(None, BIG)),
        ("port", lambda: crs_mcp._can_listen(BIG, 8765)),
        ("guard", lambda: crs_mcp.GuardMiddleware(BIG)),  # type: ignore[arg-type]
        ("guard", lambda: oa.GuardRunHooks(BIG)),  # type: ignore[arg-type]
        ("session", lambda: oa.GuardRunHooks(guard, session=BIG)),  # type: ignore[arg-type]
        ("guard", lambda: oa.GuardToolGuardrails(BIG)),  # type: ignore[arg-type]
        ("session", lambda: oa.GuardToolGuardrails(guard, session=BIG)),  # type: ignore[arg-type]
        ("agent", lambda: oa.guard_agent(BIG, guard)),  # type: ignore[arg-type]
        ("guard", lambda: lc.GuardMiddleware(BIG)),  # type: ignore[arg-type]
        ("exit_behavior", lambda: lc.GuardMiddleware(guard, exit_behavior=BIG)),  # type: ignore[arg-type]
        ("exit_on", lambda: lc.GuardMiddleware(guard, exit_on=BIG)),  # type: ignore[arg-type]
        ("toolset", lambda: pa.guard_toolset(BIG, guard)),  # type: ignore[arg-type]
        ("guard", lambda: pa.guard_toolset(FunctionToolset(), BIG)),  # type: ignore[arg-type]
        ("session", lambda: pa.guard_toolset(FunctionToolset(), guard, session=BIG)),  # type: ignore[arg-type]
        ("guard", lambda: pa.GuardCapability(BIG)),  # type: ignore[arg-type]
        ("session", lambda: pa.GuardCapability(guard, session=BIG)),  # type: ignore[arg-type]
    ]
    for name, fn in cases:
        message = _raised(fn)
        assert len(message) < LIMIT, (name, len(message))
        assert message.startswith(name), (name, message[:200])


def test_the_agents_sdk_session_resolver_is_bounded() -> None:
    from agents import RunContextWrapper

    guard = Guard()
    for returned in ([BIG], BIG, "\x00" + BIG):
        # (the resolver of the Agents SDK's and Pydantic AI's integrations, shared)
        sessions = SessionGuards(guard, lambda ctx, r=returned: r)
        message = _raised(lambda s=sessions: s.for_context(RunContextWrapper(context=None)))
        assert len(message) < LIMIT, len(message)
        assert message.startswith("session"), message[:200]


def _texts(result: Any) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, mt.TextContent))


def test_the_guard_server_answers_bad_input_with_a_short_tool_error(logs: _Records) -> None:
    server = crs_mcp.create_server(Guard())

    async def scenario() -> list[tuple[str, Any]]:
        async with Client(server) as c:
            v = await c.call_tool("check_call", {"tool": "search"})
            call_id = v.structured_content["call"]["call_id"]
            return [
                (
                    "session_id",
                    await c.call_tool(
                        "check_call", {"tool": "t", "session_id": BIG}, raise_on_error=False
                    ),
                ),
                ("tool", await c.call_tool("check_call", {"tool": BIG}, raise_on_error=False)),
                (
                    "tool",
                    await c.call_tool(
                        "record_result", {"call_id": call_id, "tool": BIG}, raise_on_error=False
                    ),
                ),
                (
                    "session_id",
                    await c.call_tool("explain", {"session_id": BIG}, raise_on_error=False),
                ),
                (
                    crs_mcp.SESSION_META_KEY,
                    await c.call_tool(
                        "check_call",
                        {"tool": "t"},
                        meta={crs_mcp.SESSION_META_KEY: BIG},
                        raise_on_error=False,
                    ),
                ),
            ]

    for name, result in asyncio.run(scenario()):
        assert result.is_error
        text = _texts(result)
        assert len(text) < LIMIT, (name, len(text))
        assert name in text, text[:200]
    _no_traceback_and_short(logs)
    said = [r.getMessage() for r in logs.records if r.levelno == logging.WARNING]
    assert any("check_call" in m for m in said), said  # a line each, at WARNING


def test_the_middleware_answers_a_bad_session_with_a_short_tool_result(logs: _Records) -> None:
    ran: list[str] = []
    server = FastMCP("user", middleware=[crs_mcp.GuardMiddleware(Guard())])

    @server.tool
    def grep(pattern: str) -> str:
        """Search."""
        ran.append(pattern)
        return "none"

    async def scenario() -> Any:
        async with Client(server) as c:
            return await c.call_tool(
                "grep",
                {"pattern": "x"},
                meta={crs_mcp.SESSION_META_KEY: BIG},
                raise_on_error=False,
            )

    result = asyncio.run(scenario())
    assert result.is_error
    assert ran == []
    text = _texts(result)
    assert len(text) < LIMIT, len(text)
    assert crs_mcp.SESSION_META_KEY in text, text[:200]
    _no_traceback_and_short(logs)


# ------------------------------------------------------------------ 2, 3. the journal's errors


def _project(tmp_path: Path) -> tuple[Path, Path]:
    return learned_build_failure(tmp_path)


def _journal_dir(home: Path) -> Path:
    (journal,) = home.glob("*/journal")
    return journal


def _tree(root: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every entry under `root`: its mode and, for a file, its bytes."""
    out: dict[str, tuple[int, bytes | None]] = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        out[str(p.relative_to(root))] = (st.st_mode, p.read_bytes() if p.is_file() else None)
    return out


@contextlib.contextmanager
def _unreadable_segment(home: Path) -> Iterator[None]:
    journal = _journal_dir(home)
    seg = next(journal.glob("*.wal"))
    # a segment that is a directory: the journal cannot be read, whoever runs it (root too)
    data = seg.read_bytes()
    seg.unlink()
    seg.mkdir()
    try:
        yield
    finally:
        seg.rmdir()
        seg.write_bytes(data)


def test_a_degraded_journal_says_what_to_fix_not_allow_degraded(tmp_path: Path) -> None:
    project, home = _project(tmp_path)
    with _unreadable_segment(home):
        with pytest.raises(JournalDegradedError) as info:
            Guard.open(project, "s2", home=home)
        err = info.value
        assert "allow_degraded" not in str(err), str(err)
        assert err.problem
        assert "allow_degraded" not in err.problem
        assert err.problem in str(err)
        assert str(err) != err.problem
        assert str(_journal_dir(home)) in str(err)
        assert str(home) in str(err)
        done = _crs("guard", "status", "--project", str(project), "--home", str(home))
        assert done.returncode == 1, done
        assert "allow_degraded" not in done.stderr
        assert "Traceback" not in done.stderr
        assert err.problem in done.stderr
        # a program that builds its own JournalConfig is still told it may run in memory
        from crs import JournalConfig
        from crs._journal._local import LocalJournal

        with pytest.raises(JournalDegradedError) as direct:
            LocalJournal(JournalConfig(path=str(_journal_dir(home)), session_id="s"))
        assert "allow_degraded" in str(direct.value)
        assert "allow_degraded" not in direct.value.problem
    with Guard.open(project, "s2", home=home, fingerprint=lambda: "fp") as g:
        assert [f.tool for f in g.learned()] == ["bash"]  # nothing was lost


def test_a_lock_that_is_a_directory_is_named_and_nothing_changes(tmp_path: Path) -> None:
    project, home = _project(tmp_path)
    lock = _journal_dir(home) / "LOCK"
    lock.unlink()
    lock.mkdir()
    (lock / "inside").write_text("x")  # a directory someone made, not empty
    before = _tree(home)
    with pytest.raises(JournalDegradedError) as info:
        Guard.open(project, "s2", home=home)
    message = str(info.value)
    assert f"rmdir {lock}" in message, message
    assert "Errno" not in message, message
    assert "allow_degraded" not in message, message
    assert _tree(home) == before  # nothing created, removed or written
    done = _crs("guard", "status", "--project", str(project), "--home", str(home))
    assert done.returncode == 1, done
    assert f"rmdir {lock}" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert _tree(home) == before
    (lock / "inside").unlink()
    lock.rmdir()
    with Guard.open(project, "s2", home=home, fingerprint=lambda: "fp") as g:
        assert [f.tool for f in g.learned()] == ["bash"]
        assert g.status()["learned_failures"] == 1


def test_a_lock_that_is_a_symlink_or_fifo_is_refused_too(tmp_path: Path) -> None:
    project, home = _project(tmp_path)
    lock = _journal_dir(home) / "LOCK"
    target = tmp_path / "elsewhere"
    target.write_text("keep\n")
    lock.unlink()
    lock.symlink_to(target)
    with pytest.raises(JournalDegradedError, match="LOCK"):
        Guard.open(project, "s2", home=home)
    assert target.read_text() == "keep\n"
    assert lock.is_symlink()
    lock.unlink()
    os.mkfifo(lock)
    with pytest.raises(JournalDegradedError, match="not a regular file"):
        Guard.open(project, "s2", home=home)
    assert stat.S_ISFIFO(lock.lstat().st_mode)


# ------------------------------------------------------------------ 4. crs demo's home


def _demo(home: str | None, tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("CRS_HOME", None)
    env["HOME"] = str(tmp_path / "user")
    if home is not None:
        env["CRS_HOME"] = home
    return _crs("demo", *flags, env=env)


def _one_line_failure(done: subprocess.CompletedProcess[str], names: str) -> None:
    assert done.returncode not in (0, None), done
    assert done.stdout == "", done.stdout[:500]
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith(f"crs demo: {names} "), lines[0]  # which setting, first


def test_crs_demo_refuses_an_unusable_home_in_one_line(tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x\n")
    for home in (a_file, a_file / "under"):
        _one_line_failure(_demo(str(home), tmp_path), "$CRS_HOME")
        _one_line_failure(_demo(None, tmp_path, "--home", str(home)), "--home")
    assert a_file.read_text() == "x\n"


def test_crs_demo_refuses_a_read_only_home(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes into a read-only directory: the mode does not stop it")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        _one_line_failure(_demo(str(ro), tmp_path), "$CRS_HOME")
        _one_line_failure(_demo(str(ro / "new"), tmp_path), "$CRS_HOME")
        assert list(ro.iterdir()) == []
    finally:
        ro.chmod(0o755)


def test_crs_demo_still_runs_on_a_fresh_home(tmp_path: Path) -> None:
    done = _demo(str(tmp_path / "fresh" / "home"), tmp_path, "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"session_id"' in done.stdout


# ------------------------------------------------------------------ 5. secrets in commands

SECRETS = {
    "mysql": (["mysql", "-pS3cretPw1x", "-e", "select 1"], "S3cretPw1x"),
    "curl": (
        ["curl", "-H", "Authorization: Bearer abcdef0123456789tokenXYZ", "https://x"],
        "abcdef0123456789tokenXYZ",
    ),
    "psql": (["psql", "--password", "Hunter2Secret", "db"], "Hunter2Secret"),
    "psql=": (["psql", "--password=Hunter3Secret", "db"], "Hunter3Secret"),
    "psql-str": ("psql --password Hunter4Secret db", "Hunter4Secret"),
    "sh-c": (["sh", "-c", "mysql --password Hunter5Secret db"], "Hunter5Secret"),
    "env": (["env", "PGPASSWORD=Hunter6Secret", "psql", "db"], "Hunter6Secret"),
    "env-str": ("PGPASSWORD=Hunter7Secret psql db", "Hunter7Secret"),
}


def _absent(secret: str, where: dict[str, bytes]) -> None:
    for variant in {secret, secret.lower(), secret.upper()}:
        for name, data in where.items():
            assert variant.encode() not in data, (variant, name)


def test_secrets_in_a_command_list_reach_no_file_and_no_output(tmp_path: Path) -> None:
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    sigs: dict[str, str] = {}
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "fp") as g:
        for name, (command, _) in SECRETS.items():
            for i in range(3):
                v = g.before_call("bash", {"command": command})
                if not v.allowed:
                    break
                assert v.call is not None
                sigs.setdefault(name, v.call.signature)
                assert v.call.signature == sigs[name]  # the same command is the same call
                g.after_call(v.call, error=f"access denied ({i})")
        other = g.before_call("bash", {"command": ["mysql", "-pS3cretPw1x", "-e", "select 2"]})
        assert other.call is not None
        assert other.call.signature != sigs["mysql"]
        explained = repr(g.explain()) + repr(g.status()) + repr([f.to_dict() for f in g.learned()])
        g.crs.save_project_backup()
    assert len(set(sigs.values())) == len(SECRETS)  # different commands, different calls
    seen = {str(p): p.read_bytes() for p in home.rglob("*") if p.is_file()}
    assert any(p.endswith(".wal") for p in seen)
    from crs._persistence._backup_format import decode_backup

    backups = [p for p in seen if p.endswith(".backup.lz4")]
    assert backups
    for p in backups:  # and what the backups hold, decompressed
        seen[p + " (image)"] = decode_backup(seen[p], Path(p)).data
    seen["explain"] = explained.encode()
    for verb in (["status"], ["status", "--json"], ["learned"], ["learned", "--json"]):
        done = _crs("guard", *verb, "--project", str(project), "--home", str(home))
        assert done.returncode == 0, done
        seen[" ".join(verb)] = (done.stdout + done.stderr).encode()
    for _, secret in SECRETS.values():
        _absent(secret, seen)
