"""The `claude-history` adapter: Claude Code's local session files (`~/.claude`).

Session files are markdown written by the session-end hook, named
`YYYY-MM-DD[-<short id>]-session.tmp`, in `~/.claude/session-data/` (canonical) and
`~/.claude/sessions/` (legacy); aliases live in `~/.claude/session-aliases.json`.
See spec ecc-session-v1.md §5.
"""

from __future__ import annotations

import errno
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crs._errors import InvalidArgumentError, SessionError
from crs.sessions._model import (
    JS_DOT,
    JS_EOL,
    JS_S,
    SESSION_SCHEMA_VERSION,
    CanonicalSnapshot,
    SourceTarget,
    Worker,
    build_aggregates,
    js_trim,
)
from crs.sessions._validate import validate_canonical_snapshot

ADAPTER_ID = "claude-history"
DESCRIPTION = "Claude local session history and session-file snapshots"
TARGET_TYPES: tuple[str, ...] = ("claude-history", "claude-alias", "session-file")
PREFIXES = ("claude-history:", "claude:", "history:")

_FILENAME = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})(?:-([a-zA-Z0-9_][a-zA-Z0-9_-]*))?-session\.tmp"
)
_ALIAS = re.compile(r"[a-zA-Z0-9_-]+")
# JavaScript's multiline `^`: at the start or right after any line terminator.
_BOL = "(?<![^\n\r\u2028\u2029])"
_TITLE = re.compile(rf"{_BOL}#{JS_S}+({JS_DOT}+){JS_EOL}")
_DATE = re.compile(rf"\*\*Date:\*\*{JS_S}*([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})")
_STARTED = re.compile(rf"\*\*Started:\*\*{JS_S}*([0-9:]+)")
_UPDATED = re.compile(rf"\*\*Last Updated:\*\*{JS_S}*([0-9:]+)")


def _field(name: str) -> re.Pattern[str]:
    return re.compile(rf"\*\*{name}:\*\*{JS_S}*({JS_DOT}+){JS_EOL}")


def _section(heading: str) -> re.Pattern[str]:
    return re.compile(rf"### {heading}{JS_S}*\n((?s:.)*?)(?=###|\n\n|\Z)")


_PROJECT, _BRANCH, _WORKTREE = _field("Project"), _field("Branch"), _field("Worktree")
_COMPLETED, _IN_PROGRESS = _section("Completed"), _section("In Progress")
_NOTES = _section("Notes for Next Session")
_CONTEXT = re.compile(rf"### Context to Load{JS_S}*\n```\n((?s:.)*?)```")
_DONE_ITEM = re.compile(rf"- \[x\]{JS_S}*({JS_DOT}+)")
_OPEN_ITEM = re.compile(rf"- \[ \]{JS_S}*({JS_DOT}+)")


@dataclass
class SessionMetadata:
    """What `parse_session_metadata` reads from a session file (spec §5.3)."""

    title: str | None = None
    date: str | None = None
    started: str | None = None
    last_updated: str | None = None
    project: str | None = None
    branch: str | None = None
    worktree: str | None = None
    completed: list[str] = field(default_factory=list)
    in_progress: list[str] = field(default_factory=list)
    notes: str = ""
    context: str = ""


@dataclass(frozen=True)
class SessionRecord:
    """One session file: its name parts, path and modification time (ms)."""

    filename: str
    short_id: str
    date: str
    path: str
    mtime_ms: int


def parse_session_metadata(content: str | None) -> SessionMetadata:
    """Parse a session file's markdown as the reference's `parseSessionMetadata` does.

    CRLF line ends are read as LF (spec README §6.3), so sections end at blank lines as meant.
    """
    meta = SessionMetadata()
    if content is not None and not isinstance(content, str):
        raise InvalidArgumentError(
            f"content: must be the session file's text (a str) or None, "
            f"got {type(content).__name__}"
        )
    if not content:
        return meta
    text = content.replace("\r\n", "\n")
    if m := _TITLE.search(text):
        meta.title = js_trim(m.group(1))
    if m := _DATE.search(text):
        meta.date = m.group(1)
    if m := _STARTED.search(text):
        meta.started = m.group(1)
    if m := _UPDATED.search(text):
        meta.last_updated = m.group(1)
    if m := _PROJECT.search(text):
        meta.project = js_trim(m.group(1))
    if m := _BRANCH.search(text):
        meta.branch = js_trim(m.group(1))
    if m := _WORKTREE.search(text):
        meta.worktree = js_trim(m.group(1))
    if m := _COMPLETED.search(text):
        meta.completed = [js_trim(item) for item in _DONE_ITEM.findall(m.group(1))]
    if m := _IN_PROGRESS.search(text):
        meta.in_progress = [js_trim(item) for item in _OPEN_ITEM.findall(m.group(1))]
    if m := _NOTES.search(text):
        meta.notes = js_trim(m.group(1))
    if m := _CONTEXT.search(text):
        meta.context = js_trim(m.group(1))
    return meta


def _days_in_month(year: int, month: int) -> int:
    # `new Date(y, m, d)` maps years 0-99 to 1900-1999 and uses the proleptic Gregorian rule.
    if year < 100:
        year += 1900
    if month == 2:
        return 29 if (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 else 28
    return 30 if month in (4, 6, 9, 11) else 31


def parse_session_filename(filename: str) -> tuple[str, str] | None:
    """`(date, short id)` of a valid session file name (short id `no-id` if absent), else None.

    >>> parse_session_filename("2026-02-01-a1b2c3d4-session.tmp")
    ('2026-02-01', 'a1b2c3d4')
    >>> parse_session_filename("2026-02-30-session.tmp") is None
    True
    """
    match = _FILENAME.fullmatch(filename)
    if match is None:
        return None
    date = match.group(1)
    year, month, day = (int(part) for part in date.split("-"))
    if not 1 <= month <= 12 or not 1 <= day <= _days_in_month(year, month):
        return None
    return date, match.group(2) or "no-id"


def claude_dir(home: str | os.PathLike[str] | None = None) -> Path:
    """`<home>/.claude`, where home is the argument, else `$HOME`, `$USERPROFILE`, the user's."""
    if home is None:
        home = os.environ.get("HOME") or os.environ.get("USERPROFILE") or Path.home()
    return Path(home) / ".claude"


def _session_dirs(home: str | os.PathLike[str] | None) -> list[Path]:
    base = claude_dir(home)
    return [base / "session-data", base / "sessions"]


def list_sessions(home: str | os.PathLike[str] | None = None) -> list[SessionRecord]:
    """Every valid session file, canonical directory first for duplicates, newest first."""
    seen: set[str] = set()
    records: list[SessionRecord] = []
    for directory in _session_dirs(home):
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if not entry.name.endswith(".tmp") or not entry.is_file(follow_symlinks=False):
                continue
            parsed = parse_session_filename(entry.name)
            if parsed is None or entry.name in seen:
                continue
            try:
                mtime_ns = os.stat(entry.path).st_mtime_ns
            except OSError:
                continue
            seen.add(entry.name)
            records.append(
                SessionRecord(entry.name, parsed[1], parsed[0], entry.path, mtime_ns // 1_000_000)
            )
    # JS Dates have millisecond precision; the sort is stable, like V8's.
    records.sort(key=lambda r: -r.mtime_ms)
    return records


def _matches_id(record: SessionRecord, wanted: str) -> bool:
    if record.short_id != "no-id" and record.short_id.startswith(wanted):
        return True
    if record.filename in (wanted, f"{wanted}.tmp"):
        return True
    return record.short_id == "no-id" and record.filename == f"{wanted}-session.tmp"


def find_session(
    session_id: str, home: str | os.PathLike[str] | None = None
) -> SessionRecord | None:
    """The newest session whose short id starts with `session_id` (or whose file name is it)."""
    wanted = js_trim(session_id)
    if not wanted:
        return None
    return next((r for r in list_sessions(home) if _matches_id(r, wanted)), None)


def load_aliases(home: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """The `aliases` map of `session-aliases.json`; empty when missing, unreadable or malformed."""
    try:
        data = json.loads((claude_dir(home) / "session-aliases.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return {}
    aliases = data.get("aliases") if isinstance(data, dict) else None
    return aliases if isinstance(aliases, dict) else {}


def _node_error(exc: OSError, syscall: str, path: str) -> str:
    # Node's wording (`ENOENT: no such file or directory, stat '<path>'`), kept for
    # compatibility with scripts that match the reference's messages.
    code = errno.errorcode.get(exc.errno or 0, "EIO")
    reason = (exc.strerror or str(exc)).lower()
    return f"{code}: {reason}, {syscall} '{path}'"


def _load_session_file(session_path: str) -> tuple[str, str | None, str, int]:
    """(file name, short id, content, mtime ms) of a session file loaded by path."""
    filename = os.path.basename(session_path)
    parsed = parse_session_filename(filename)
    if parsed is None:
        raise SessionError(f"Unsupported session file: {session_path}")
    try:
        mtime_ns = os.stat(session_path).st_mtime_ns
    except OSError as exc:
        raise SessionError(_node_error(exc, "stat", session_path)) from exc
    return filename, parsed[1], _read_session_text(session_path), mtime_ns // 1_000_000


def parse_claude_target(target: str) -> str | None:
    """The rest after a `claude-history:`, `claude:` or `history:` prefix (trimmed), else None."""
    for prefix in PREFIXES:
        if target.startswith(prefix):
            return js_trim(target[len(prefix) :])
    return None


def is_session_file_target(target: str, cwd: Path) -> bool:
    """True when `target` (against `cwd`) is an existing regular file ending in `.tmp`."""
    return bool(target) and target.endswith(".tmp") and (cwd / target).is_file()


def normalize_claude_session(
    filename: str | None,
    short_id: str | None,
    session_path: str,
    content: str | None,
    source: SourceTarget,
) -> CanonicalSnapshot:
    """Build the canonical snapshot of one session file (spec §5.4)."""
    meta = parse_session_metadata(content)
    if short_id and short_id != "no-id":
        worker_id = short_id
    else:
        base = os.path.basename(filename or session_path or "session")
        worker_id = base[:-4] if base.endswith(".tmp") and base != ".tmp" else base
    label = meta.title or filename or worker_id
    worker: Worker = {
        "id": worker_id,
        "label": label,
        "state": "recorded",
        "health": "healthy",
        "branch": meta.branch or None,
        "worktree": meta.worktree or None,
        "runtime": {
            "kind": "claude-session",
            "command": "claude",
            "pid": None,
            "active": False,
            "dead": True,
        },
        "intent": {
            # Spec README §6.3: never emit an empty objective; fall back to the label.
            "objective": (meta.in_progress[0] if meta.in_progress else "") or meta.title or label,
            "seedPaths": [s for s in (js_trim(line) for line in meta.context.split("\n")) if s],
        },
        "outputs": {
            "summary": meta.completed,
            "validation": [],
            "remainingRisks": [meta.notes] if meta.notes else [],
        },
        "artifacts": {"sessionFile": session_path, "context": meta.context or None},
    }
    snapshot: CanonicalSnapshot = {
        "schemaVersion": SESSION_SCHEMA_VERSION,
        "adapterId": ADAPTER_ID,
        "session": {
            "id": worker_id,
            "kind": "history",
            "state": "recorded",
            "repoRoot": meta.worktree or None,
            "sourceTarget": source,
        },
        "workers": [worker],
        "aggregates": build_aggregates([worker]),
    }
    return validate_canonical_snapshot(snapshot)


def collect_claude_snapshot(
    target: str, cwd: Path, home: str | os.PathLike[str] | None = None
) -> CanonicalSnapshot:
    """Resolve a claude-history target and read it into a validated canonical snapshot."""
    rest = parse_claude_target(target)
    if rest:
        if rest == "latest":
            sessions = list_sessions(home)
            if not sessions:
                raise SessionError("No Claude session history found")
            record = sessions[0]
            content = _read_session_text(record.path)
            source: SourceTarget = {"type": "claude-history", "value": "latest"}
            return normalize_claude_session(
                record.filename, record.short_id, record.path, content, source
            )
        if _ALIAS.fullmatch(rest):
            entry = load_aliases(home).get(rest)
            if entry:
                session_path = entry.get("sessionPath") if isinstance(entry, dict) else None
                if not isinstance(session_path, str) or not session_path:
                    raise SessionError(
                        f"Claude session alias {rest} has no sessionPath in "
                        f"{claude_dir(home) / 'session-aliases.json'}"
                    )
                filename, short_id, content, _ = _load_session_file(session_path)
                source = {"type": "claude-alias", "value": rest}
                return normalize_claude_session(filename, short_id, session_path, content, source)
        found = find_session(rest, home)
        if found is None:
            raise SessionError(f"Claude session not found: {rest}")
        source = {"type": "claude-history", "value": rest}
        content = _read_session_text(found.path)
        return normalize_claude_session(found.filename, found.short_id, found.path, content, source)
    if is_session_file_target(target, cwd):
        path = os.path.normpath(os.path.abspath(cwd / target))
        filename, short_id, content, _ = _load_session_file(path)
        source = {"type": "session-file", "value": path}
        return normalize_claude_session(filename, short_id, path, content, source)
    raise SessionError(f"Unsupported Claude session target: {target}")


def _read_session_text(path: str) -> str:
    # Invalid UTF-8 is replaced, as Node's `readFileSync(path, 'utf8')` does; a file that
    # cannot be read at all is an error (the reference silently read it as empty).
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise SessionError(_node_error(exc, "open", path)) from exc
