"""The adapter registry: auto-detection, structured targets, forced adapters, recording."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import crs
from crs.sessions import (
    AdapterRegistry,
    ClaudeHistoryAdapter,
    DmuxTmuxAdapter,
    SessionContext,
    inspect_session_target,
    list_adapters,
    normalize_structured_target,
    read_session_history,
)


def test_list_adapters() -> None:
    assert list_adapters() == [
        {
            "id": "claude-history",
            "description": "Claude local session history and session-file snapshots",
            "targetTypes": ["claude-history", "claude-alias", "session-file"],
        },
        {
            "id": "dmux-tmux",
            "description": "Tmux/worktree orchestration snapshots from plan files or session names",
            "targetTypes": ["plan", "session"],
        },
    ]


@pytest.mark.parametrize(
    ("target", "text", "adapter"),
    [
        ({"type": "plan", "value": " p.json "}, "p.json", "dmux-tmux"),
        ({"type": "session", "value": "nightly"}, "nightly", "dmux-tmux"),
        ({"type": "claude-history", "value": "latest"}, "claude:latest", "claude-history"),
        ({"type": " claude-alias ", "value": "work"}, "claude:work", "claude-history"),
        ({"type": "session-file", "value": "a.tmp"}, "a.tmp", "claude-history"),
        ({"type": "plan", "value": "x", "adapterId": "claude-history"}, "x", "claude-history"),
        ({"type": "mystery", "value": "x"}, "x", None),
    ],
)
def test_structured_targets(target: Any, text: str, adapter: str | None) -> None:
    got, ctx = normalize_structured_target(target, SessionContext())
    assert got == text
    assert ctx.adapter_id == adapter


def test_structured_type_beats_the_context_adapter() -> None:
    _, ctx = normalize_structured_target(
        {"type": "plan", "value": "x"}, SessionContext(adapter_id="claude-history")
    )
    assert ctx.adapter_id == "dmux-tmux"
    _, ctx = normalize_structured_target(
        {"type": "odd", "value": "x"}, SessionContext(adapter_id="claude-history")
    )
    assert ctx.adapter_id == "claude-history"


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (
            {"type": "plan", "value": "  "},
            "Structured session targets require a non-empty string value",
        ),
        ({"type": "plan"}, "Structured session targets require a non-empty string value"),
        ({"type": " ", "value": "x"}, "Structured session targets require a non-empty type"),
        ({"type": 3, "value": "x"}, "Structured session targets require a non-empty type"),
    ],
)
def test_bad_structured_targets(target: Any, message: str) -> None:
    with pytest.raises(crs.InvalidArgumentError, match=f"^{re.escape(message)}$"):
        inspect_session_target(target, persist=False)


def test_target_of_a_wrong_type() -> None:
    with pytest.raises(crs.InvalidArgumentError, match=r"target: must be a string"):
        inspect_session_target(42, persist=False)  # type: ignore[arg-type]


def test_unknown_adapter(tmp_path: Path) -> None:
    with pytest.raises(crs.UnknownAdapterError, match=r"^Unknown session adapter: nope$") as info:
        inspect_session_target("x", adapter_id="nope", cwd=tmp_path, home=tmp_path / "h")
    assert isinstance(info.value, crs.SessionError)
    assert isinstance(info.value, ValueError)
    assert not (tmp_path / "h").exists()


def test_auto_detection_order(tmp_path: Path) -> None:
    registry = AdapterRegistry()
    (tmp_path / ".claude" / "orchestration" / "claude:x").mkdir(parents=True)
    # both could open it; claude-history is tried first
    adapter, _, _ = registry.select("claude:x", SessionContext(cwd=tmp_path))
    assert adapter.id == "claude-history"
    adapter, _, _ = registry.select(
        "claude:x", SessionContext(cwd=tmp_path, adapter_id="dmux-tmux")
    )
    assert adapter.id == "dmux-tmux"
    with pytest.raises(crs.SessionError, match=r"^No session adapter matched target: zzz$"):
        registry.select("zzz", SessionContext(cwd=tmp_path))


def test_inspect_records_once_per_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "user"
    d = home / ".claude" / "session-data"
    d.mkdir(parents=True)
    f = d / "2026-04-03-abcd1234-session.tmp"
    f.write_text("# One\n")
    adapters = [ClaudeHistoryAdapter(user_home=home), DmuxTmuxAdapter()]
    for _ in range(3):
        inspect_session_target("claude:abcd", home=tmp_path / "crs", adapters=adapters)
    f.write_text("# Two\n")
    inspect_session_target("claude:abcd", home=tmp_path / "crs", adapters=adapters)
    history = read_session_history("claude-history", "abcd1234", home=tmp_path / "crs")
    assert [h.snapshot["workers"][0]["label"] for h in history] == ["One", "Two"]


def test_open_session_reports_where_it_recorded(tmp_path: Path) -> None:
    home = tmp_path / "user"
    d = home / ".claude" / "sessions"
    d.mkdir(parents=True)
    (d / "2026-04-03-session.tmp").write_text("# x\n")
    registry = AdapterRegistry([ClaudeHistoryAdapter(user_home=home)])
    opened = registry.open("claude:latest", SessionContext(home=tmp_path / "crs"))
    assert opened.adapter_id == "claude-history"
    assert opened.last_record is None
    opened.get_snapshot()
    assert opened.last_record is not None
    assert opened.last_record.backend == "state-store"
    quiet = AdapterRegistry([ClaudeHistoryAdapter(user_home=home, persist=False)])
    q = quiet.open("claude:latest", SessionContext(home=tmp_path / "crs2"))
    q.get_snapshot()
    assert q.last_record is not None
    assert q.last_record.backend == "skipped"
    assert not (tmp_path / "crs2").exists()
