"""The claude-history adapter against a temporary HOME: files, short ids, aliases, parsing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import crs
from crs.sessions import (
    ClaudeHistoryAdapter,
    SessionContext,
    inspect_session_target,
    parse_session_metadata,
)
from crs.sessions._claude import find_session, list_sessions, parse_session_filename

HOOK_FILE = """# Session: 2026-04-03
**Date:** 2026-04-03
**Started:** 09:15
**Last Updated:** 10:42
**Project:** crs
**Branch:** feat/sessions
**Worktree:** /work/wt/sessions

---

## Current State

### Completed
- [x] Port the validator
- [X] upper-case X is not done
- [x] Write `tests`

### In Progress
- [ ] Wire the recorder
- [ ] Benchmarks

### Notes for Next Session
Check the lock timeout.
Then ship.

### Context to Load
```
python/crs/sessions/_recorder.py
  tests/test_sessions_recorder.py

```
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    (h / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("CRS_HOME", str(tmp_path / "crs-home"))
    return h


def put(
    home: Path,
    name: str,
    content: str = "# T\n",
    *,
    legacy: bool = False,
    mtime: float | None = None,
) -> Path:
    d = home / ".claude" / ("sessions" if legacy else "session-data")
    d.mkdir(parents=True, exist_ok=True)
    p = d / name
    p.write_text(content, encoding="utf-8")
    if mtime is not None:
        os.utime(p, (mtime, mtime))
    return p


def inspect(target: str, cwd: Path) -> crs.sessions.CanonicalSnapshot:
    return inspect_session_target(target, cwd=cwd, persist=False)


# ---------------------------------------------------------------- file names


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("2026-02-01-session.tmp", ("2026-02-01", "no-id")),
        ("2026-02-01-a1b2c3d4-session.tmp", ("2026-02-01", "a1b2c3d4")),
        ("2026-02-01-frontend-worktree-1-session.tmp", ("2026-02-01", "frontend-worktree-1")),
        ("2026-02-01-ChezMoi_2-session.tmp", ("2026-02-01", "ChezMoi_2")),
        ("2024-02-29-x-session.tmp", ("2024-02-29", "x")),  # leap year
        ("2026-02-01--x-session.tmp", None),  # id must not start with a hyphen
        ("2026-02-29-session.tmp", None),
        ("2100-02-29-session.tmp", None),  # not a leap year
        ("2026-04-31-session.tmp", None),
        ("2026-13-01-session.tmp", None),
        ("2026-00-10-session.tmp", None),
        ("0000-02-29-session.tmp", None),  # new Date(0, 1, 29) is 1900-03-01: rejected
        ("0004-02-29-session.tmp", ("0004-02-29", "no-id")),  # JS reads year 4 as 1904: leap
        ("2026-02-01-session.tmp.bak", None),
        ("2026-02-01-a.b-session.tmp", None),
    ],
)
def test_file_names(name: str, expected: tuple[str, str] | None) -> None:
    assert parse_session_filename(name) == expected


def test_listing_prefers_canonical_dir_and_sorts_newest_first(home: Path) -> None:
    put(home, "2026-01-01-aaaa-session.tmp", "# canonical\n", mtime=1000)
    put(home, "2026-01-01-aaaa-session.tmp", "# legacy\n", legacy=True, mtime=5000)
    put(home, "2026-01-02-bbbb-session.tmp", legacy=True, mtime=3000)
    put(home, "not-a-session.tmp", mtime=9000)
    put(home, "2026-01-03-cccc-session.md", mtime=9000)
    (home / ".claude" / "session-data" / "2026-01-04-dddd-session.tmp").mkdir()
    names = [(r.filename, Path(r.path).parent.name) for r in list_sessions()]
    assert names == [
        ("2026-01-02-bbbb-session.tmp", "sessions"),
        ("2026-01-01-aaaa-session.tmp", "session-data"),
    ]


def test_short_id_prefix_and_newest_match(home: Path) -> None:
    put(home, "2026-03-01-f00dcafe-session.tmp", mtime=1000)
    put(home, "2026-03-02-f00dbeef-session.tmp", mtime=2000)
    put(home, "2026-04-03-session.tmp", mtime=500)
    found = find_session("f00d")
    assert found is not None
    assert found.short_id == "f00dbeef"
    assert find_session("f00dc").short_id == "f00dcafe"  # type: ignore[union-attr]
    assert find_session("2026-04-03").filename == "2026-04-03-session.tmp"  # type: ignore[union-attr]
    assert find_session("  2026-03-01-f00dcafe-session.tmp ").short_id == "f00dcafe"  # type: ignore[union-attr]
    assert find_session("2026-03-01-f00dcafe-session").short_id == "f00dcafe"  # type: ignore[union-attr]
    assert find_session("no-id") is None  # `no-id` is not a prefix to match
    assert find_session("   ") is None


# ---------------------------------------------------------------- parsing


def test_parse_session_metadata_hook_file() -> None:
    m = parse_session_metadata(HOOK_FILE)
    assert m.title == "Session: 2026-04-03"
    assert (m.date, m.started, m.last_updated) == ("2026-04-03", "09:15", "10:42")
    assert (m.project, m.branch, m.worktree) == ("crs", "feat/sessions", "/work/wt/sessions")
    assert m.completed == ["Port the validator", "Write `tests`"]
    assert m.in_progress == ["Wire the recorder", "Benchmarks"]
    assert m.notes == "Check the lock timeout.\nThen ship."
    assert m.context == "python/crs/sessions/_recorder.py\n  tests/test_sessions_recorder.py"


def test_crlf_session_files_parse_like_lf() -> None:
    assert parse_session_metadata(HOOK_FILE.replace("\n", "\r\n")) == parse_session_metadata(
        HOOK_FILE
    )


def test_parsing_edge_cases() -> None:
    text = (
        "## Not a title\n#\tReal *title*  \n"
        "### Completed\n- [x] one\n\n- [x] lost after blank line\n"
        "### In Progress\n- [ ] a ### b\n"
        "### Context to Load\n```text\nignored\n```\n"
    )
    m = parse_session_metadata(text)
    assert m.title == "Real *title*"
    assert m.completed == ["one"]
    assert m.in_progress == ["a"]  # `###` inside an item cuts it
    assert m.context == ""  # a fence with a language tag is not recognised
    assert parse_session_metadata(None).title is None
    assert parse_session_metadata("").completed == []


# ---------------------------------------------------------------- targets


def test_latest(home: Path, tmp_path: Path) -> None:
    put(home, "2026-04-02-older-session.tmp", "# Older\n", mtime=1000)
    p = put(home, "2026-04-03-abcd1234-session.tmp", HOOK_FILE, mtime=2000)
    snap = inspect("claude:latest", tmp_path)
    assert snap["adapterId"] == "claude-history"
    assert snap["session"] == {
        "id": "abcd1234",
        "kind": "history",
        "state": "recorded",
        "repoRoot": "/work/wt/sessions",
        "sourceTarget": {"type": "claude-history", "value": "latest"},
    }
    (w,) = snap["workers"]
    assert w["id"] == "abcd1234"
    assert w["label"] == "Session: 2026-04-03"
    assert (w["state"], w["health"]) == ("recorded", "healthy")
    assert w["branch"] == "feat/sessions"
    assert w["runtime"] == {
        "kind": "claude-session",
        "command": "claude",
        "pid": None,
        "active": False,
        "dead": True,
    }
    assert w["intent"] == {
        "objective": "Wire the recorder",
        "seedPaths": ["python/crs/sessions/_recorder.py", "tests/test_sessions_recorder.py"],
    }
    assert w["outputs"] == {
        "summary": ["Port the validator", "Write `tests`"],
        "validation": [],
        "remainingRisks": ["Check the lock timeout.\nThen ship."],
    }
    assert w["artifacts"] == {
        "sessionFile": str(p),
        "context": parse_session_metadata(HOOK_FILE).context,
    }
    assert snap["aggregates"] == {
        "workerCount": 1,
        "states": {"recorded": 1},
        "healths": {"healthy": 1},
    }


def test_latest_without_history(home: Path, tmp_path: Path) -> None:
    with pytest.raises(crs.SessionError, match=r"^No Claude session history found$"):
        inspect("claude:latest", tmp_path)


@pytest.mark.parametrize("prefix", ["claude:", "claude-history:", "history:"])
def test_prefixes_and_short_ids(home: Path, tmp_path: Path, prefix: str) -> None:
    put(home, "2026-03-01-f00dcafe-session.tmp", "# Cafe\n")
    snap = inspect(f"{prefix} f00d ", tmp_path)
    assert snap["session"]["id"] == "f00dcafe"
    assert snap["session"]["sourceTarget"] == {"type": "claude-history", "value": "f00d"}


def test_no_id_file_uses_the_file_name(home: Path, tmp_path: Path) -> None:
    put(home, "2026-04-03-session.tmp", "no title here\n")
    snap = inspect("claude:2026-04-03", tmp_path)
    assert snap["session"]["id"] == "2026-04-03-session"
    w = snap["workers"][0]
    assert w["label"] == "2026-04-03-session.tmp"
    assert w["intent"]["objective"] == "2026-04-03-session.tmp"  # never empty (README §6.3)
    assert snap["session"]["repoRoot"] is None


def test_not_found_and_unsupported(home: Path, tmp_path: Path) -> None:
    with pytest.raises(crs.SessionError, match=r"^Claude session not found: zzz$"):
        inspect("claude:zzz", tmp_path)
    with pytest.raises(crs.SessionError, match=r"^Unsupported Claude session target: claude:$"):
        inspect_session_target("claude:", cwd=tmp_path, persist=False, adapter_id="claude-history")
    # auto-detection picks claude-history for a bare prefix, which then cannot resolve it
    with pytest.raises(crs.SessionError, match=r"^Unsupported Claude session target: claude:  $"):
        inspect("claude:  ", tmp_path)
    with pytest.raises(crs.SessionError, match=r"^No session adapter matched target: nope$"):
        inspect("nope", tmp_path)


def write_aliases(home: Path, aliases: object) -> None:
    (home / ".claude" / "session-aliases.json").write_text(
        json.dumps(
            {
                "version": "1.0",
                "aliases": aliases,
                "metadata": {"totalCount": 1, "lastUpdated": "2026-04-03T00:00:00Z"},
            }
        )
    )


def test_alias_shadows_short_id(home: Path, tmp_path: Path) -> None:
    target = put(home, "2026-04-03-abcd1234-session.tmp", "# Aliased\n")
    put(home, "2026-04-04-work-session.tmp", "# Short id work\n")
    write_aliases(
        home,
        {
            "work": {"sessionPath": str(target), "createdAt": "x", "updatedAt": "x", "title": None},
            "latest": {"sessionPath": "/nope", "createdAt": "x"},
        },
    )
    snap = inspect("claude:work", tmp_path)
    assert snap["session"]["sourceTarget"] == {"type": "claude-alias", "value": "work"}
    assert snap["session"]["id"] == "abcd1234"
    assert snap["workers"][0]["artifacts"]["sessionFile"] == str(target)
    # an alias named `latest` is unreachable
    assert inspect("claude:latest", tmp_path)["session"]["sourceTarget"]["value"] == "latest"


def test_alias_to_missing_or_misnamed_file(home: Path, tmp_path: Path) -> None:
    missing = str(home / "gone" / "2026-04-03-x-session.tmp")
    write_aliases(
        home,
        {
            "gone": {"sessionPath": missing},
            "bad": {"sessionPath": "/tmp/x.md"},
            "empty": {"title": "no path"},
        },
    )
    with pytest.raises(crs.SessionError) as info:
        inspect("claude:gone", tmp_path)
    assert str(info.value) == f"ENOENT: no such file or directory, stat '{missing}'"
    with pytest.raises(crs.SessionError, match=r"^Unsupported session file: /tmp/x.md$"):
        inspect("claude:bad", tmp_path)
    with pytest.raises(crs.SessionError, match=r"has no sessionPath"):
        inspect("claude:empty", tmp_path)


def test_unreadable_session_file_is_a_session_error(home: Path, tmp_path: Path) -> None:
    folder = home / "2026-04-03-dir1-session.tmp"
    folder.mkdir()
    write_aliases(home, {"odd": {"sessionPath": str(folder)}})
    with pytest.raises(crs.SessionError, match=r"^EISDIR: is a directory, open '"):
        inspect("claude:odd", tmp_path)


def test_malformed_alias_file_is_empty(home: Path, tmp_path: Path) -> None:
    put(home, "2026-04-03-work1234-session.tmp", "# T\n")
    (home / ".claude" / "session-aliases.json").write_text("{broken")
    assert inspect("claude:work", tmp_path)["session"]["id"] == "work1234"


def test_session_file_target(home: Path, tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    f = tmp_path / "notes" / "2026-04-03-deadbeef-session.tmp"
    f.write_text(HOOK_FILE)
    snap = inspect("notes/2026-04-03-deadbeef-session.tmp", tmp_path)
    assert snap["session"]["sourceTarget"] == {"type": "session-file", "value": str(f)}
    assert snap["session"]["id"] == "deadbeef"
    other = tmp_path / "random.tmp"
    other.write_text("# x\n")
    with pytest.raises(crs.SessionError, match=r"^Unsupported session file: "):
        inspect("random.tmp", tmp_path)


def test_can_open(home: Path, tmp_path: Path) -> None:
    a = ClaudeHistoryAdapter()
    c = SessionContext(cwd=tmp_path)
    (tmp_path / "x.tmp").write_text("")
    assert a.can_open("claude:", c)
    assert a.can_open("history:abc", c)
    assert a.can_open("x.tmp", c)
    assert not a.can_open("y.tmp", c)
    assert not a.can_open("plan.json", c)
    assert a.can_open("anything", SessionContext(adapter_id="claude-history"))


def test_user_home_option(tmp_path: Path) -> None:
    other = tmp_path / "other"
    put(other, "2026-04-03-0123abcd-session.tmp", "# Other home\n")
    snap = inspect_session_target(
        "claude:latest",
        cwd=tmp_path,
        persist=False,
        adapters=[ClaudeHistoryAdapter(user_home=other)],
    )
    assert snap["session"]["id"] == "0123abcd"
