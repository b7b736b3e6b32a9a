"""`crs session inspect|adapters|status`: byte-compatible output, usage, errors, any order."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from _sessions_tmux import TmuxServer
from crs.sessions import list_adapters

SESSION_FILE = "# Session: 2026-04-03\n**Branch:** main\n\n### In Progress\n- [ ] Ship it\n"


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    home = tmp_path / "user"
    (home / ".claude" / "session-data").mkdir(parents=True)
    tmux_dir = tempfile.mkdtemp(prefix="crs-tmux-")  # short: socket paths are limited
    e = {k: v for k, v in os.environ.items() if k != "TMUX"}
    e.update(
        HOME=str(home),
        CRS_HOME=str(tmp_path / "crs"),
        TMUX_TMPDIR=tmux_dir,
        ECC_SESSION_RECORDING_DIR=str(tmp_path / "rec"),
    )
    yield e
    TmuxServer(tmux_dir).kill()
    shutil.rmtree(tmux_dir, ignore_errors=True)


def crs_cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "crs", "session", *args],
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )


def session_file(env: dict[str, str], name: str = "2026-04-03-abcd1234-session.tmp") -> Path:
    p = Path(env["HOME"]) / ".claude" / "session-data" / name
    p.write_text(SESSION_FILE)
    return p


def test_adapters_output_is_byte_compatible(env: dict[str, str], tmp_path: Path) -> None:
    expected = json.dumps({"adapters": list_adapters()}, indent=2) + "\n"
    for args in (("adapters",), ("inspect", "--list-adapters")):
        out = crs_cli(env, tmp_path, *args)
        assert out.returncode == 0
        assert out.stdout.decode() == expected
        assert out.stderr == b""


def test_inspect_without_target_prints_usage_and_exits_1(
    env: dict[str, str], tmp_path: Path
) -> None:
    out = crs_cli(env, tmp_path, "inspect")
    assert out.returncode == 1
    assert out.stdout.decode().startswith("Usage:\n  crs session inspect <target>")
    out = crs_cli(env, tmp_path, "status")
    assert out.returncode == 1
    assert out.stdout.decode().startswith("Usage:\n  crs session status <session-name|plan.json>")


def test_inspect_prints_and_writes_the_same_bytes(env: dict[str, str], tmp_path: Path) -> None:
    session_file(env)
    write = tmp_path / "out" / "deep" / "s.json"
    out = crs_cli(env, tmp_path, "inspect", "claude:latest", "--write", "out/deep/s.json")
    assert out.returncode == 0, out.stderr
    snapshot = json.loads(out.stdout)
    assert out.stdout.decode() == json.dumps(snapshot, indent=2, ensure_ascii=False) + "\n"
    assert write.read_bytes() == out.stdout
    assert list(snapshot) == ["schemaVersion", "adapterId", "session", "workers", "aggregates"]
    assert snapshot["workers"][0]["intent"]["objective"] == "Ship it"
    assert (tmp_path / "crs" / "sessions.db").is_file()  # recorded in the store


def test_options_in_any_order(env: dict[str, str], tmp_path: Path) -> None:
    session_file(env)
    # The reference took a flag's value for the target; we parse properly.
    a = crs_cli(env, tmp_path, "inspect", "--target-type", "claude-history", "latest")
    b = crs_cli(env, tmp_path, "inspect", "latest", "--target-type", "claude-history")
    c = crs_cli(env, tmp_path, "inspect", "--adapter", "claude-history", "claude:abcd")
    assert a.returncode == b.returncode == c.returncode == 0
    assert a.stdout == b.stdout
    assert json.loads(c.stdout)["session"]["sourceTarget"] == {
        "type": "claude-history",
        "value": "abcd",
    }


def test_unicode_is_written_raw(env: dict[str, str], tmp_path: Path) -> None:
    p = Path(env["HOME"]) / ".claude" / "session-data" / "2026-04-03-u-session.tmp"
    p.write_text("# Sessão über ✓\n", encoding="utf-8")
    out = crs_cli(env, tmp_path, "inspect", "claude:u")
    assert out.returncode == 0, out.stderr
    assert "Sessão über ✓".encode() in out.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("inspect", "x", "--adapter", "nope"),
            "[session-inspect] Unknown session adapter: nope\n",
        ),
        (
            ("inspect", "nothing-here"),
            "[session-inspect] No session adapter matched target: nothing-here\n",
        ),
        (("inspect", "claude:zzz"), "[session-inspect] Claude session not found: zzz\n"),
        (
            ("inspect", "x", "--target-type", " "),
            "[session-inspect] Structured session targets require a non-empty type\n",
        ),
    ],
)
def test_errors_are_one_line_on_stderr_with_exit_1(
    env: dict[str, str], tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    out = crs_cli(env, tmp_path, *args, "--write", "never.json")
    assert out.returncode == 1
    assert out.stdout == b""
    assert out.stderr.decode() == message
    assert not (tmp_path / "never.json").exists()
    assert not (tmp_path / "crs").exists()
    assert not (tmp_path / "rec").exists()


def test_bad_arguments_exit_1(env: dict[str, str], tmp_path: Path) -> None:
    out = crs_cli(env, tmp_path, "inspect", "x", "--adapter")
    assert out.returncode == 1
    assert out.stderr.decode().startswith("[session-inspect] argument --adapter: expected one")
    out = crs_cli(env, tmp_path, "status", "x", "--bogus")
    assert out.returncode == 1
    assert out.stderr.decode().startswith("[orchestration-status] unrecognized arguments: --bogus")


def test_status_forces_dmux_and_reports_missing(env: dict[str, str], tmp_path: Path) -> None:
    out = crs_cli(env, tmp_path, "status", "claude:latest")
    assert out.returncode == 0, out.stderr
    snap = json.loads(out.stdout)
    assert snap["adapterId"] == "dmux-tmux"
    assert snap["session"]["state"] == "missing"


def test_status_error_prefix(env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "plan.json").write_text("{}")
    out = crs_cli(env, tmp_path, "status", "plan.json")
    assert out.returncode == 1
    assert out.stderr.decode().startswith("[orchestration-status] Plan file ")
    assert "requires sessionName" in out.stderr.decode()


def test_status_of_a_live_tmux_session(env: dict[str, str], tmp_path: Path) -> None:
    server = TmuxServer(env["TMUX_TMPDIR"])
    pane = server.new_session("nightly")
    server.title(pane, "worker-a")
    d = tmp_path / ".claude" / "orchestration" / "nightly" / "worker-a"
    d.mkdir(parents=True)
    (d / "status.md").write_text("- State: completed\n")
    out = crs_cli(env, tmp_path, "status", "nightly")
    assert out.returncode == 0, out.stderr
    snap = json.loads(out.stdout)
    assert snap["session"]["state"] == "active"
    assert snap["workers"][0]["runtime"]["command"] == "sleep"
    inspected = crs_cli(env, tmp_path, "inspect", "nightly")
    assert inspected.stdout == out.stdout


def test_session_without_subcommand_prints_help(env: dict[str, str], tmp_path: Path) -> None:
    out = crs_cli(env, tmp_path)
    assert out.returncode == 2
    assert b"inspect" in out.stderr
