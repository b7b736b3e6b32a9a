"""The recorder: every snapshot read is kept, in a SQLite state store or a JSON recording file.

The store is `<home>/sessions.db` (home = `$CRS_HOME`, else `~/.crs`) with a migrations table, a
`sessions` table holding the reference's columns (the latest snapshot as JSON text) and a capped
`session_history` table. Only when the store cannot be opened does the recorder fall back to the
reference's JSON recording file. Either way a write is atomic and locked, a snapshot equal to the
latest one appends no history, and history keeps the newest `history_limit` entries
(spec README §6.4; ecc-session-v1.md §7-8).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import sqlite3
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from crs._errors import InvalidArgumentError, SessionError
from crs._home import default_home
from crs._persistence._durable import (
    FILE_MODE,
    NOFOLLOW,
    makedirs_durable,
    read_file,
    replace_durable,
    write_file_durable,
)
from crs.sessions._model import (
    DEFAULT_HISTORY_LIMIT,
    SESSION_RECORDING_SCHEMA_VERSION,
    CanonicalSnapshot,
    RecordResult,
    dumps_compact,
    dumps_json,
    sanitize_path_segment,
)
from crs.sessions._validate import validate_canonical_snapshot

STORE_FILENAME = "sessions.db"
LOCK_TIMEOUT = 10.0
"""Seconds a writer waits for the SQLite write lock before giving up."""

# States after which a session has ended; `ended_at` is stamped when one is first seen.
_ENDED_STATES = frozenset({"completed", "failed", "recorded"})
_HARNESS = {"dmux-tmux": "tmux", "claude-history": "claude"}

_MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (
        1,
        "001_session_store",
        """
        CREATE TABLE sessions (
            id TEXT NOT NULL,
            adapter_id TEXT NOT NULL,
            harness TEXT NOT NULL,
            state TEXT NOT NULL,
            repo_root TEXT,
            started_at TEXT,
            ended_at TEXT,
            snapshot TEXT NOT NULL CHECK (json_valid(snapshot)),
            PRIMARY KEY (adapter_id, id)
        );
        CREATE INDEX idx_sessions_state_started_at ON sessions (state, started_at DESC);
        CREATE INDEX idx_sessions_started_at ON sessions (started_at DESC);
        CREATE TABLE session_history (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            adapter_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            recorded_at TEXT NOT NULL,
            snapshot TEXT NOT NULL CHECK (json_valid(snapshot)),
            FOREIGN KEY (adapter_id, session_id) REFERENCES sessions (adapter_id, id)
                ON DELETE CASCADE
        );
        CREATE INDEX idx_session_history_session ON session_history (adapter_id, session_id, seq);
        """,
    ),
)


class HistoryEntry(NamedTuple):
    """One recorded snapshot of a session: when it was recorded (ISO-8601) and what it was."""

    recorded_at: str
    snapshot: CanonicalSnapshot


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def store_path(home: str | os.PathLike[str] | None = None) -> Path:
    """`<home>/sessions.db`, home defaulting to `$CRS_HOME`, else `~/.crs`."""
    return (Path(home) if home is not None else default_home()) / STORE_FILENAME


# ---------------------------------------------------------------- SQLite store


def _migrate(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    applied = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
    pending = [m for m in _MIGRATIONS if m[0] not in applied]
    if not pending:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        applied = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
        for version, name, sql in pending:
            if version in applied:
                continue
            for statement in sql.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (version, name, _now_iso()),
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def open_store(path: str | os.PathLike[str]) -> sqlite3.Connection | None:
    """Open (creating and migrating) the SQLite store; None when it cannot be opened."""
    conn = None
    try:
        makedirs_durable(Path(path).parent)  # 0700
        # The store is created 0600 here, never through a planted symlink (ELOOP), before
        # SQLite opens it (its journal files take the store's mode).
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | NOFOLLOW, FILE_MODE))
        conn = sqlite3.connect(path, timeout=LOCK_TIMEOUT, isolation_level=None)
        conn.execute("PRAGMA foreign_keys = ON")
        _migrate(conn)
        return conn
    except (sqlite3.Error, OSError):
        if conn is not None:
            conn.close()
        return None


def _write_store(
    conn: sqlite3.Connection, snapshot: CanonicalSnapshot, recorded_at: str, limit: int
) -> bool:
    adapter_id = snapshot["adapterId"]
    session = snapshot["session"]
    text = dumps_compact(snapshot)
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute(
            "SELECT snapshot, started_at, ended_at FROM sessions WHERE adapter_id = ? AND id = ?",
            (adapter_id, session["id"]),
        ).fetchone()
        changed = row is None or row[0] != text
        if changed:
            started_at = row[1] if row is not None and row[1] else recorded_at
            ended_at = None
            if session["state"] in _ENDED_STATES:
                ended_at = row[2] if row is not None and row[2] else recorded_at
            conn.execute(
                "INSERT INTO sessions (id, adapter_id, harness, state, repo_root, started_at,"
                " ended_at, snapshot) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (adapter_id, id) DO UPDATE SET harness = excluded.harness,"
                " state = excluded.state, repo_root = excluded.repo_root,"
                " started_at = excluded.started_at, ended_at = excluded.ended_at,"
                " snapshot = excluded.snapshot",
                (
                    session["id"],
                    adapter_id,
                    _HARNESS.get(adapter_id, adapter_id),
                    session["state"],
                    session.get("repoRoot"),
                    started_at,
                    ended_at,
                    text,
                ),
            )
            conn.execute(
                "INSERT INTO session_history (adapter_id, session_id, recorded_at, snapshot)"
                " VALUES (?, ?, ?, ?)",
                (adapter_id, session["id"], recorded_at, text),
            )
            conn.execute(
                "DELETE FROM session_history WHERE adapter_id = ? AND session_id = ? AND seq <="
                " (SELECT seq FROM session_history WHERE adapter_id = ? AND session_id = ?"
                " ORDER BY seq DESC LIMIT 1 OFFSET ?)",
                (adapter_id, session["id"], adapter_id, session["id"], limit),
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return changed


def read_session_history(
    adapter_id: str, session_id: str, *, home: str | os.PathLike[str] | None = None
) -> list[HistoryEntry]:
    """The recorded snapshots of one session in the SQLite store, oldest first.

    This is what a consumer such as a CRS bridge replays: each entry is a time-stamped
    snapshot, and consecutive entries differ (unchanged reads append nothing).

    Raises:
        InvalidArgumentError: `adapter_id` or `session_id` is not a non-empty string.
        SessionError: the store does not exist or cannot be read.
    """
    for name, value in (("adapter_id", adapter_id), ("session_id", session_id)):
        if not isinstance(value, str) or not value:
            raise InvalidArgumentError(f"{name}: must be a non-empty string, got {value!r}")
    path = store_path(home)
    if not path.is_file():
        raise SessionError(f"No session store at {path}; inspect a session first")
    try:
        uri = f"{path.absolute().as_uri()}?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
            rows = conn.execute(
                "SELECT recorded_at, snapshot FROM session_history"
                " WHERE adapter_id = ? AND session_id = ? ORDER BY seq",
                (adapter_id, session_id),
            ).fetchall()
    except sqlite3.Error as exc:
        raise SessionError(f"Cannot read the session store {path}: {exc}") from exc
    return [HistoryEntry(recorded_at, json.loads(text)) for recorded_at, text in rows]


# ---------------------------------------------------------------- JSON fallback


def resolve_recording_dir(recording_dir: str | os.PathLike[str] | None = None) -> Path:
    """The JSON recording directory: the argument, `$ECC_SESSION_RECORDING_DIR`, or
    `<temp dir>/ecc-session-recordings`."""
    if recording_dir:
        return Path(os.path.abspath(recording_dir))
    env = os.environ.get("ECC_SESSION_RECORDING_DIR")
    if env:
        return Path(os.path.abspath(env))
    return Path(tempfile.gettempdir()) / "ecc-session-recordings"


def fallback_recording_path(
    snapshot: CanonicalSnapshot, recording_dir: str | os.PathLike[str] | None = None
) -> Path:
    """`<dir>/<sanitized adapterId>/<sanitized session.id>.json` for a valid snapshot."""
    validate_canonical_snapshot(snapshot)
    return (
        resolve_recording_dir(recording_dir)
        / sanitize_path_segment(snapshot["adapterId"])
        / f"{sanitize_path_segment(snapshot['session']['id'])}.json"
    )


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT | NOFOLLOW, FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def write_private(path: Path, text: str) -> None:
    """Replace `path` with `text` atomically and durably: a 0600 temporary file (whatever was
    at its name, a planted symlink included, removed first, never followed), fsynced, renamed
    over `path` (a symlink there is replaced, not followed), directory fsynced."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    write_file_durable(tmp, (text.encode("utf-8"),))
    try:
        replace_durable(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _read_recording(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(read_file(path).decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _write_json(
    snapshot: CanonicalSnapshot, path: Path, recorded_at: str, limit: int
) -> tuple[bool, str]:
    makedirs_durable(path.parent)  # 0700
    with _locked(path):
        existing = _read_recording(path)
        changed = existing is None or dumps_compact(existing.get("latest")) != dumps_compact(
            snapshot
        )
        entry = {"recordedAt": recorded_at, "snapshot": snapshot}
        old = existing.get("history") if existing is not None else None
        history = ([*old, entry] if changed else old) if isinstance(old, list) else [entry]
        created = existing.get("createdAt") if existing is not None else None
        payload = {
            "schemaVersion": SESSION_RECORDING_SCHEMA_VERSION,
            "adapterId": snapshot["adapterId"],
            "sessionId": snapshot["session"]["id"],
            "createdAt": created if isinstance(created, str) else recorded_at,
            "updatedAt": recorded_at,
            "latest": snapshot,
            "history": history[-limit:],
        }
        write_private(path, dumps_json(payload) + "\n")
    return changed, str(path)


# ---------------------------------------------------------------- entry point


def _recorded_before(
    db: Path, snapshot: CanonicalSnapshot, recording_dir: str | os.PathLike[str] | None
) -> bool:
    """Whether the store (read only: nothing is created) or the JSON fallback holds the
    snapshot's session."""
    if fallback_recording_path(snapshot, recording_dir).exists():
        return True
    if not db.exists():
        return False
    try:
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=LOCK_TIMEOUT)
        try:
            row = conn.execute(
                "SELECT 1 FROM sessions WHERE adapter_id = ? AND id = ?",
                (snapshot["adapterId"], snapshot["session"]["id"]),
            ).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return True  # a store it cannot read: record as before (its errors are reported)
    return row is not None


def persist_canonical_snapshot(
    snapshot: CanonicalSnapshot,
    *,
    persist: bool = True,
    home: str | os.PathLike[str] | None = None,
    recording_dir: str | os.PathLike[str] | None = None,
    history_limit: int = DEFAULT_HISTORY_LIMIT,
) -> RecordResult:
    """Validate a snapshot and record it: SQLite store first, JSON recording file as fallback.

    Args:
        snapshot: a canonical `ecc.session.v1` snapshot.
        persist: False skips recording (the snapshot is still validated).
        home: directory of the store `sessions.db` (default `$CRS_HOME`, else `~/.crs`).
        recording_dir: directory of the JSON fallback (default `$ECC_SESSION_RECORDING_DIR`,
            else `<temp dir>/ecc-session-recordings`).
        history_limit: how many history entries to keep per session (at least 1).

    Returns:
        A `RecordResult` naming the backend, the file written and the time.

    Raises:
        ContractError: the snapshot is invalid; nothing is written.
        InvalidArgumentError: `history_limit` is not a positive integer.
        SessionError: the store or the recording file could not be written.
    """
    validate_canonical_snapshot(snapshot)
    if isinstance(history_limit, bool) or not isinstance(history_limit, int) or history_limit < 1:
        raise InvalidArgumentError(
            f"history_limit: must be a positive integer, got {history_limit!r}"
        )
    if not persist:
        return RecordResult("skipped", None, None, False)
    recorded_at = _now_iso()
    db = store_path(home)
    if snapshot["session"]["state"] == "missing" and not _recorded_before(
        db, snapshot, recording_dir
    ):
        # A session that does not exist (a typo, a name never started) and was never
        # recorded: nothing to record, and no store or home made for it.
        return RecordResult("skipped", None, None, False)
    conn = open_store(db)
    if conn is not None:
        try:
            changed = _write_store(conn, snapshot, recorded_at, history_limit)
        except sqlite3.Error as exc:
            raise SessionError(f"Cannot record the session snapshot in {db}: {exc}") from exc
        finally:
            conn.close()
        return RecordResult("state-store", str(db), recorded_at, changed)
    path = fallback_recording_path(snapshot, recording_dir)
    try:
        changed, written = _write_json(snapshot, path, recorded_at, history_limit)
    except OSError as exc:
        raise SessionError(f"Cannot write the session recording {path}: {exc}") from exc
    return RecordResult("json-file", written, recorded_at, changed)


class WorkerStateChange(NamedTuple):
    """A worker's state as first seen or as changed between two recorded snapshots.

    This is the feed a CRS bridge turns into step records: `session_id` names the CRS session,
    `worker_id` the actor, `previous_state` -> `state` the step, `recorded_at_ms` its time.
    """

    session_id: str
    worker_id: str
    previous_state: str | None
    state: str
    health: str
    recorded_at: str
    recorded_at_ms: int


def _iso_to_ms(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp() * 1000)


def worker_state_changes(history: list[HistoryEntry]) -> list[WorkerStateChange]:
    """Every worker's first state and each later change of state, in recording order.

    Args:
        history: recorded snapshots of one session, oldest first (`read_session_history`).

    Returns:
        One `WorkerStateChange` per worker per change; a worker that disappears and comes back
        with the same state produces no change.

    >>> worker_state_changes([])
    []
    """
    if not isinstance(history, list | tuple):
        raise InvalidArgumentError(
            f"history: must be a list of HistoryEntry (read_session_history), "
            f"got {type(history).__name__}"
        )
    last: dict[str, str] = {}
    changes: list[WorkerStateChange] = []
    for entry in history:
        session_id = entry.snapshot["session"]["id"]
        for worker in entry.snapshot["workers"]:
            previous = last.get(worker["id"])
            if previous == worker["state"]:
                continue
            last[worker["id"]] = worker["state"]
            changes.append(
                WorkerStateChange(
                    session_id,
                    worker["id"],
                    previous,
                    worker["state"],
                    worker["health"],
                    entry.recorded_at,
                    _iso_to_ms(entry.recorded_at),
                )
            )
    return changes
