"""The recorder: SQLite store first, JSON fallback, history semantics, sanitising, atomicity."""

from __future__ import annotations

import copy
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import crs
from crs.sessions import (
    SESSION_RECORDING_SCHEMA_VERSION,
    build_aggregates,
    fallback_recording_path,
    persist_canonical_snapshot,
    read_session_history,
    sanitize_path_segment,
    worker_state_changes,
)


def snap(state: str = "running", sid: str = "nightly", adapter: str = "dmux-tmux") -> Any:
    workers = [
        {
            "id": "w1",
            "label": "w1",
            "state": state,
            "health": "healthy",
            "branch": None,
            "worktree": None,
            "runtime": {
                "kind": "tmux-pane",
                "command": None,
                "pid": None,
                "active": False,
                "dead": False,
            },
            "intent": {"objective": "o", "seedPaths": []},
            "outputs": {"summary": [], "validation": [], "remainingRisks": []},
            "artifacts": {},
        }
    ]
    return {
        "schemaVersion": "ecc.session.v1",
        "adapterId": adapter,
        "session": {
            "id": sid,
            "kind": "orchestrated",
            "state": state,
            "repoRoot": "/r",
            "sourceTarget": {"type": "session", "value": sid},
        },
        "workers": workers,
        "aggregates": build_aggregates(workers),
    }


def states_of(entries: list[Any]) -> list[str]:
    return [e.snapshot["session"]["state"] for e in entries]


# ---------------------------------------------------------------- SQLite store


def test_store_schema_and_first_write(tmp_path: Path) -> None:
    result = persist_canonical_snapshot(snap(), home=tmp_path)
    assert result.backend == "state-store"
    assert result.path == str(tmp_path / "sessions.db")
    assert result.changed is True
    assert result.recorded_at is not None
    assert result.recorded_at.endswith("Z")
    with sqlite3.connect(tmp_path / "sessions.db") as conn:
        assert conn.execute("SELECT version, name FROM schema_migrations").fetchall() == [
            (1, "001_session_store")
        ]
        cols = [r[1] for r in conn.execute("PRAGMA table_info(sessions)")]
        assert cols == [
            "id",
            "adapter_id",
            "harness",
            "state",
            "repo_root",
            "started_at",
            "ended_at",
            "snapshot",
        ]
        row = conn.execute(
            "SELECT id, adapter_id, harness, state, repo_root, started_at,"
            " ended_at, snapshot FROM sessions"
        ).fetchone()
    assert row[:5] == ("nightly", "dmux-tmux", "tmux", "running", "/r")
    assert row[5] == result.recorded_at
    assert row[6] is None
    assert json.loads(row[7]) == snap()


def test_store_history_appends_only_changes(tmp_path: Path) -> None:
    for state in ["running", "running", "completed", "running", "running"]:
        persist_canonical_snapshot(snap(state), home=tmp_path)
    # A, A, B, A, A -> [A, B, A]: "unchanged" means equal to the latest body
    assert states_of(read_session_history("dmux-tmux", "nightly", home=tmp_path)) == [
        "running",
        "completed",
        "running",
    ]
    again = persist_canonical_snapshot(snap("running"), home=tmp_path)
    assert again.changed is False


def test_store_history_is_capped(tmp_path: Path) -> None:
    for i in range(7):
        persist_canonical_snapshot(snap(f"s{i}"), home=tmp_path, history_limit=3)
    assert states_of(read_session_history("dmux-tmux", "nightly", home=tmp_path)) == [
        "s4",
        "s5",
        "s6",
    ]


def test_store_started_and_ended(tmp_path: Path) -> None:
    first = persist_canonical_snapshot(snap("running"), home=tmp_path)
    done = persist_canonical_snapshot(snap("completed"), home=tmp_path)
    persist_canonical_snapshot(snap("failed"), home=tmp_path)
    with sqlite3.connect(tmp_path / "sessions.db") as conn:
        started, ended = conn.execute("SELECT started_at, ended_at FROM sessions").fetchone()
    assert started == first.recorded_at
    assert ended == done.recorded_at
    persist_canonical_snapshot(snap("running"), home=tmp_path)
    with sqlite3.connect(tmp_path / "sessions.db") as conn:
        assert conn.execute("SELECT ended_at FROM sessions").fetchone() == (None,)


def test_same_session_id_of_two_adapters_is_kept_apart(tmp_path: Path) -> None:
    persist_canonical_snapshot(snap(adapter="dmux-tmux"), home=tmp_path)
    persist_canonical_snapshot(snap(adapter="claude-history"), home=tmp_path)
    with sqlite3.connect(tmp_path / "sessions.db") as conn:
        assert conn.execute("SELECT adapter_id, harness FROM sessions ORDER BY 1").fetchall() == [
            ("claude-history", "claude"),
            ("dmux-tmux", "tmux"),
        ]


def test_default_home_is_crs_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRS_HOME", str(tmp_path / "h"))
    assert persist_canonical_snapshot(snap()).path == str(tmp_path / "h" / "sessions.db")


def test_store_in_a_directory_with_uri_characters(tmp_path: Path) -> None:
    home = tmp_path / "odd ?#% dir"
    persist_canonical_snapshot(snap(), home=home)
    assert states_of(read_session_history("dmux-tmux", "nightly", home=home)) == ["running"]


def test_read_history_without_store(tmp_path: Path) -> None:
    with pytest.raises(crs.SessionError, match=r"No session store"):
        read_session_history("dmux-tmux", "x", home=tmp_path)


# ---------------------------------------------------------------- fallback


@pytest.fixture
def blocked_home(tmp_path: Path) -> Path:
    """A home where the store cannot be opened: `sessions.db` is a directory."""
    home = tmp_path / "home"
    (home / "sessions.db").mkdir(parents=True)
    return home


@pytest.mark.parametrize("how", ["directory", "not-a-database", "home-is-a-file"])
def test_falls_back_only_when_the_store_cannot_be_opened(tmp_path: Path, how: str) -> None:
    home = tmp_path / "home"
    if how == "directory":
        (home / "sessions.db").mkdir(parents=True)
    elif how == "not-a-database":
        home.mkdir()
        (home / "sessions.db").write_bytes(b"this is not sqlite" * 100)
    else:
        home.write_text("a file")
    result = persist_canonical_snapshot(snap(), home=home, recording_dir=tmp_path / "rec")
    assert result.backend == "json-file"
    assert result.path == str(tmp_path / "rec" / "dmux-tmux" / "nightly.json")


def test_json_layout_is_byte_compatible(tmp_path: Path, blocked_home: Path) -> None:
    s = snap()
    result = persist_canonical_snapshot(s, home=blocked_home, recording_dir=tmp_path / "rec")
    assert result.path is not None
    text = Path(result.path).read_text(encoding="utf-8")
    data = json.loads(text)
    assert list(data) == [
        "schemaVersion",
        "adapterId",
        "sessionId",
        "createdAt",
        "updatedAt",
        "latest",
        "history",
    ]
    assert data["schemaVersion"] == SESSION_RECORDING_SCHEMA_VERSION
    assert data["createdAt"] == data["updatedAt"] == result.recorded_at
    assert data["history"] == [{"recordedAt": result.recorded_at, "snapshot": s}]
    assert text == json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def test_json_history_semantics(tmp_path: Path, blocked_home: Path) -> None:
    rec = tmp_path / "rec"
    results = [
        persist_canonical_snapshot(snap(state), home=blocked_home, recording_dir=rec)
        for state in ["A", "A", "B", "A"]
    ]
    assert [r.changed for r in results] == [True, False, True, True]
    data = json.loads((rec / "dmux-tmux" / "nightly.json").read_text())
    assert [h["snapshot"]["session"]["state"] for h in data["history"]] == ["A", "B", "A"]
    assert data["createdAt"] == results[0].recorded_at
    assert data["updatedAt"] == results[-1].recorded_at  # bumped on every write
    assert data["latest"]["session"]["state"] == "A"


def test_json_history_cap_and_missing_history(tmp_path: Path, blocked_home: Path) -> None:
    rec = tmp_path / "rec"
    for i in range(5):
        persist_canonical_snapshot(
            snap(f"s{i}"), home=blocked_home, recording_dir=rec, history_limit=2
        )
    path = rec / "dmux-tmux" / "nightly.json"
    data = json.loads(path.read_text())
    assert [h["snapshot"]["session"]["state"] for h in data["history"]] == ["s3", "s4"]
    del data["history"]
    data["createdAt"] = "2020-01-01T00:00:00.000Z"
    path.write_text(json.dumps(data))
    persist_canonical_snapshot(snap("s4"), home=blocked_home, recording_dir=rec)
    data = json.loads(path.read_text())
    assert len(data["history"]) == 1  # no history array: a one-entry array
    assert data["createdAt"] == "2020-01-01T00:00:00.000Z"  # kept
    path.write_text("{garbage")
    assert persist_canonical_snapshot(snap("s4"), home=blocked_home, recording_dir=rec).changed


def test_recording_dir_from_environment(
    tmp_path: Path, blocked_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ECC_SESSION_RECORDING_DIR", str(tmp_path / "env-rec"))
    result = persist_canonical_snapshot(snap(), home=blocked_home)
    assert result.path == str(tmp_path / "env-rec" / "dmux-tmux" / "nightly.json")


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("session id/with:chars", "session_id_with_chars"),
        ("__x__", "x"),
        ("sessão-ü", "sess_o-"),
        ("a/b", "a_b"),
        ("a:b", "a_b"),
        ("../../etc/passwd", ".._.._etc_passwd"),
        ("  padded  ", "padded"),
        ("///", "unknown"),
        ("", "unknown"),
        (None, "unknown"),
    ],
)
def test_sanitising_examples(raw: Any, clean: str) -> None:
    assert sanitize_path_segment(raw) == clean


def test_fallback_path_uses_sanitised_segments(tmp_path: Path) -> None:
    s = snap(sid="../../etc/passwd", adapter="my adapter")
    assert fallback_recording_path(s, tmp_path) == tmp_path / "my_adapter" / ".._.._etc_passwd.json"


def test_concurrent_writers_lose_nothing(tmp_path: Path, blocked_home: Path) -> None:
    rec = tmp_path / "rec"

    def writer(n: int) -> None:
        for i in range(10):
            persist_canonical_snapshot(snap(f"t{n}-{i}"), home=blocked_home, recording_dir=rec)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    data = json.loads((rec / "dmux-tmux" / "nightly.json").read_text())
    assert len(data["history"]) == 40
    assert not [p for p in (rec / "dmux-tmux").iterdir() if p.name.endswith(".tmp")]


def test_concurrent_store_writers_lose_nothing(tmp_path: Path) -> None:
    def writer(n: int) -> None:
        for i in range(10):
            persist_canonical_snapshot(snap(f"t{n}-{i}"), home=tmp_path)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(read_session_history("dmux-tmux", "nightly", home=tmp_path)) == 40


# ---------------------------------------------------------------- skipping and bad input


def test_persist_false_writes_nothing(tmp_path: Path) -> None:
    result = persist_canonical_snapshot(
        snap(), persist=False, home=tmp_path / "h", recording_dir=tmp_path / "r"
    )
    assert tuple(result) == ("skipped", None, None, False)
    assert not (tmp_path / "h").exists()
    assert not (tmp_path / "r").exists()


def test_invalid_snapshot_writes_nothing(tmp_path: Path) -> None:
    bad = copy.deepcopy(snap())
    bad["workers"][0]["runtime"]["active"] = "yes"
    with pytest.raises(crs.ContractError, match=r"workers\[0\].runtime.active to be a boolean"):
        persist_canonical_snapshot(bad, home=tmp_path / "h", recording_dir=tmp_path / "r")
    with pytest.raises(crs.ContractError):
        persist_canonical_snapshot(bad, persist=False)
    assert not (tmp_path / "h").exists()
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("limit", [0, -1, True, 1.5, "3"])
def test_bad_history_limit(tmp_path: Path, limit: Any) -> None:
    with pytest.raises(crs.InvalidArgumentError, match=r"history_limit"):
        persist_canonical_snapshot(snap(), home=tmp_path, history_limit=limit)
    assert not (tmp_path / "sessions.db").exists()


# ---------------------------------------------------------------- the feed for a CRS bridge


def test_worker_state_changes_from_the_store(tmp_path: Path) -> None:
    two = snap("running")
    second = copy.deepcopy(two["workers"][0])
    second["id"] = second["label"] = "w2"
    second["state"] = "queued"
    two["workers"].append(second)
    two["aggregates"] = build_aggregates(two["workers"])
    persist_canonical_snapshot(snap("running"), home=tmp_path)
    persist_canonical_snapshot(two, home=tmp_path)
    persist_canonical_snapshot(snap("completed"), home=tmp_path)
    history = read_session_history("dmux-tmux", "nightly", home=tmp_path)
    changes = worker_state_changes(history)
    assert [(c.worker_id, c.previous_state, c.state) for c in changes] == [
        ("w1", None, "running"),
        ("w2", None, "queued"),
        ("w1", "running", "completed"),
    ]
    assert {c.session_id for c in changes} == {"nightly"}
    assert changes[-1].recorded_at == history[-1].recorded_at
    assert changes[0].recorded_at_ms <= changes[-1].recorded_at_ms
    assert abs(changes[0].recorded_at_ms / 1000 - time.time()) < 60
