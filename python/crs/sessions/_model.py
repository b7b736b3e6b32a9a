"""The `ecc.session.v1` snapshot as typed data, and the helpers every adapter shares.

The TypedDicts describe what the reference adapters emit (every key present, in this order);
`build_aggregates` derives the `aggregates` block exactly as the reference does; the JS string
helpers (`js_trim`, JS whitespace) exist because the reference's parsing rules are written in
terms of JavaScript's `String.prototype.trim` and `\\s`, which differ from Python's.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple, TypedDict

from crs._errors import InvalidArgumentError

SESSION_SCHEMA_VERSION = "ecc.session.v1"
"""The only `schemaVersion` a v1 snapshot may carry."""

SESSION_RECORDING_SCHEMA_VERSION = "ecc.session.recording.v1"
"""The `schemaVersion` of a JSON recording file (the recorder's fallback)."""

DEFAULT_HISTORY_LIMIT = 100
"""History entries kept per session unless `history_limit` says otherwise."""


class SourceTarget(TypedDict):
    """What the snapshot was read from: `{type, value}` (`plan`, `session`, ...)."""

    type: str
    value: str


class SessionInfo(TypedDict):
    """The `session` block: id, kind (`orchestrated`, `history`), state, repo root, source."""

    id: str
    kind: str
    state: str
    repoRoot: str | None
    sourceTarget: SourceTarget


class WorkerRuntime(TypedDict):
    """Where a worker runs: `tmux-pane` or `claude-session`, with its command, pid and flags."""

    kind: str
    command: str | None
    pid: int | None
    active: bool
    dead: bool


class WorkerIntent(TypedDict):
    """What a worker was asked to do: objective text and seeded paths."""

    objective: str
    seedPaths: list[str]


class WorkerOutputs(TypedDict):
    """What a worker reported back: summary, validation and remaining-risk bullets."""

    summary: list[str]
    validation: list[str]
    remainingRisks: list[str]


class Worker(TypedDict):
    """One worker of a session (a tmux pane, or the single worker of a Claude history entry)."""

    id: str
    label: str
    state: str
    health: str
    branch: str | None
    worktree: str | None
    runtime: WorkerRuntime
    intent: WorkerIntent
    outputs: WorkerOutputs
    artifacts: dict[str, Any]


class Aggregates(TypedDict):
    """Counts over the workers: total, per state and per health (keys in first-seen order)."""

    workerCount: int
    states: dict[str, int]
    healths: dict[str, int]


class CanonicalSnapshot(TypedDict):
    """An `ecc.session.v1` snapshot, the shape every adapter returns."""

    schemaVersion: str
    adapterId: str
    session: SessionInfo
    workers: list[Worker]
    aggregates: Aggregates


class StructuredTarget(TypedDict, total=False):
    """A target given as data: `{"type": "plan", "value": "plan.json"}` (adapterId optional)."""

    type: str
    value: str
    adapterId: str


class AdapterInfo(TypedDict):
    """One entry of `list_adapters()`: id, description and the target types it reads."""

    id: str
    description: str
    targetTypes: list[str]


class RecordResult(NamedTuple):
    """Where `persist_canonical_snapshot` put a snapshot.

    `backend` is `state-store` (the SQLite database), `json-file` (the fallback recording) or
    `skipped` (`persist=False`); `path` is the file written (None when skipped); `recorded_at`
    is the ISO-8601 time of the write (None when skipped); `changed` says whether the snapshot
    differed from the latest recorded one (so a history entry was appended).
    """

    backend: Literal["state-store", "json-file", "skipped"]
    path: str | None
    recorded_at: str | None
    changed: bool


def build_aggregates(workers: list[Worker]) -> Aggregates:
    """Count the workers per state and per health, as the reference's `buildAggregates`.

    Empty or missing states and healths count as `unknown`; keys keep first-seen order.

    >>> build_aggregates([])
    {'workerCount': 0, 'states': {}, 'healths': {}}
    """
    if not isinstance(workers, list | tuple):
        raise InvalidArgumentError(
            f"workers: must be a list of worker mappings, got {type(workers).__name__}"
        )
    states: dict[str, int] = {}
    healths: dict[str, int] = {}
    for i, worker in enumerate(workers):
        if not isinstance(worker, Mapping):
            raise InvalidArgumentError(
                f"workers[{i}]: must be a worker mapping, got {type(worker).__name__}"
            )
        for field, counts in (("state", states), ("health", healths)):
            value = worker.get(field)
            if value is not None and not isinstance(value, str):
                raise InvalidArgumentError(
                    f"workers[{i}].{field}: must be a str or absent, got {type(value).__name__}"
                )
            key = value or "unknown"
            counts[key] = counts.get(key, 0) + 1
    return {"workerCount": len(workers), "states": states, "healths": healths}


# JavaScript's WhiteSpace + LineTerminator set: what `trim()` removes and `\s` matches.
JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
JS_S = "[" + re.escape(JS_SPACE) + "]"
# JavaScript's `.` (anything but a line terminator) and the multiline `$`.
JS_DOT = "[^\n\r\u2028\u2029]"
JS_EOL = "(?=[\n\r\u2028\u2029]|\\Z)"


def js_trim(text: str) -> str:
    """`String.prototype.trim`: strip JavaScript whitespace (not Python's `isspace` set)."""
    return text.strip(JS_SPACE)


def sanitize_path_segment(value: object) -> str:
    """Make one path segment of a JSON recording file name, as the reference does.

    Runs of characters outside `[A-Za-z0-9._-]` become `_`, leading and trailing `_` go, and
    an empty result is `unknown`.

    >>> sanitize_path_segment("session id/with:chars")
    'session_id_with_chars'
    >>> sanitize_path_segment("../../etc/passwd")
    '.._.._etc_passwd'

    A result made only of dots (`.`, `..`: a path segment that names a directory) is
    `unknown` too.

    >>> sanitize_path_segment("..")
    'unknown'
    """
    text = js_trim(value if isinstance(value, str) and value else str(value or "unknown"))
    out = re.sub(r"[^A-Za-z0-9._-]+", "_", text, flags=re.ASCII).strip("_")
    return "unknown" if not out.strip(".") else out


def dumps_json(value: object) -> str:
    """`JSON.stringify(value, null, 2)`: 2-space indent, raw Unicode, no trailing newline."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def dumps_compact(value: object) -> str:
    """`JSON.stringify(value)`: the text the recorder compares to detect a changed snapshot."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class SessionContext:
    """How a target is opened and its snapshot recorded.

    Attributes:
        cwd: directory relative targets resolve against (default: the process's).
        adapter_id: use this adapter instead of auto-detecting one.
        persist: record each snapshot read (False: validate only).
        home: directory of the SQLite store `sessions.db` (default `$CRS_HOME`, else `~/.crs`).
        recording_dir: directory of the JSON fallback recordings.
        history_limit: history entries kept per session.
    """

    cwd: str | os.PathLike[str] | None = None
    adapter_id: str | None = None
    persist: bool = True
    home: str | os.PathLike[str] | None = None
    recording_dir: str | os.PathLike[str] | None = None
    history_limit: int = DEFAULT_HISTORY_LIMIT

    def resolved_cwd(self) -> Path:
        """The absolute working directory."""
        return Path(os.path.abspath(self.cwd if self.cwd is not None else os.getcwd()))
