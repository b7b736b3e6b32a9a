"""The `dmux-tmux` adapter: tmux/worktree orchestration sessions from plan files or session names.

A session is a coordination directory with one sub-directory per worker holding `status.md`,
`task.md` and `handoff.md` (written by the orchestrator and the worker launcher), plus a tmux
session whose panes are titled with the worker slugs. See spec ecc-session-v1.md §4.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import NamedTuple

from crs._errors import SessionError, TmuxNotFoundError
from crs.sessions._model import (
    JS_DOT,
    JS_S,
    SESSION_SCHEMA_VERSION,
    CanonicalSnapshot,
    SourceTarget,
    Worker,
    WorkerIntent,
    WorkerOutputs,
    build_aggregates,
    js_trim,
)
from crs.sessions._validate import validate_canonical_snapshot

ADAPTER_ID = "dmux-tmux"
DESCRIPTION = "Tmux/worktree orchestration snapshots from plan files or session names"
TARGET_TYPES: tuple[str, ...] = ("plan", "session")

STALE_AFTER_MS = 5 * 60 * 1000
"""A running worker whose status was last updated longer ago than this is `stale`."""

TMUX_TIMEOUT = 10.0
"""Seconds to wait for `tmux list-panes` before giving up with a `SessionError`."""

_PANE_FORMAT = "\t".join(
    (
        "#{pane_id}",
        "#{window_index}",
        "#{pane_index}",
        "#{pane_title}",
        "#{pane_current_command}",
        "#{pane_current_path}",
        "#{pane_active}",
        "#{pane_dead}",
        "#{pane_pid}",
    )
)
_STATUS_LINE = re.compile(rf"- ([A-Za-z ]+):{JS_S}*({JS_DOT}+)\Z")
_BOLD_LINE = re.compile(rf"\*\*{JS_DOT}+\*\*\Z")
_WORKER_FILES = ("status.md", "task.md", "handoff.md")
_COMPLETED = ("completed", "succeeded", "success", "done")
_FAILED = ("failed", "error")


class Pane(NamedTuple):
    """One tmux pane as `tmux list-panes` reports it."""

    pane_id: str
    window_index: int | None
    pane_index: int | None
    title: str
    current_command: str
    current_path: str
    active: bool
    dead: bool
    pid: int | None


# ---------------------------------------------------------------- markdown


def _strip_code_ticks(value: str) -> str:
    trimmed = js_trim(value)
    if len(trimmed) >= 2 and trimmed[0] == "`" and trimmed[-1] == "`":
        return trimmed[1:-1]
    return trimmed


def _lines(content: str) -> list[str]:
    # Spec README §6.3: CRLF files parse like LF files (the reference parsed them to nothing).
    return content.replace("\r\n", "\n").split("\n")


def parse_worker_status(content: str) -> dict[str, str | None]:
    """Parse `status.md`: the `- Key: value` bullets `state`, `updated`, `branch`, `worktree`,
    `taskFile`, `handoffFile` (later lines win; values lose wrapping backticks; absent is None).
    """
    status: dict[str, str | None] = dict.fromkeys(
        ("state", "updated", "branch", "worktree", "taskFile", "handoffFile")
    )
    names = {"taskfile": "taskFile", "handofffile": "handoffFile"}
    for line in _lines(content):
        match = _STATUS_LINE.match(line)
        if match is None:
            continue
        key = match.group(1).lower().replace(" ", "")
        name = names.get(key, key)
        if name in status:
            status[name] = _strip_code_ticks(match.group(2))
    return status


def parse_section(content: str, heading: str) -> str:
    """The text under `## <heading>` or `**<heading>**` up to the next `## ` or bold line."""
    lines = _lines(content)
    headings = {f"## {heading}", f"**{heading}**"}
    start = next((i for i, line in enumerate(lines) if js_trim(line) in headings), -1)
    if start < 0:
        return ""
    collected: list[str] = []
    for line in lines[start + 1 :]:
        trimmed = js_trim(line)
        if trimmed.startswith("## ") or (
            _BOLD_LINE.match(trimmed) is not None and trimmed not in headings
        ):
            break
        collected.append(line)
    return js_trim("\n".join(collected))


def parse_bullets(section: str) -> list[str]:
    """The `- ` bullets of a section, trimmed and without wrapping backticks."""
    if not section:
        return []
    return [
        _strip_code_ticks(js_trim(line)[2:])
        for line in section.split("\n")
        if js_trim(line).startswith("- ")
    ]


def parse_worker_task(content: str) -> WorkerIntent:
    """Parse `task.md`: the `Objective` section and the `Seeded Local Overlays` bullets."""
    return {
        "objective": parse_section(content, "Objective"),
        "seedPaths": parse_bullets(parse_section(content, "Seeded Local Overlays")),
    }


def parse_worker_handoff(content: str) -> WorkerOutputs:
    """Parse `handoff.md`: the `Summary`, `Validation` and `Remaining Risks` bullets."""
    return {
        "summary": parse_bullets(parse_section(content, "Summary")),
        "validation": parse_bullets(parse_section(content, "Validation")),
        "remainingRisks": parse_bullets(parse_section(content, "Remaining Risks")),
    }


# ---------------------------------------------------------------- files and tmux


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise SessionError(f"Cannot read worker file {path}: {exc.strerror or exc}") from exc


def _js_sort_key(name: str) -> bytes:
    # JavaScript's default sort compares UTF-16 code units; big-endian UTF-16 bytes sort alike.
    return name.encode("utf-16-be", "surrogatepass")


def list_worker_dirs(coordination_dir: Path) -> list[str]:
    """Worker slugs: sub-directories holding a status, task or handoff file, in JS sort order."""
    try:
        entries = list(os.scandir(coordination_dir))
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        msg = f"Cannot list coordination directory {coordination_dir}: {exc.strerror or exc}"
        raise SessionError(msg) from exc
    slugs = [
        entry.name
        for entry in entries
        if entry.is_dir(follow_symlinks=False)
        and any(os.path.exists(os.path.join(entry.path, name)) for name in _WORKER_FILES)
    ]
    return sorted(slugs, key=_js_sort_key)


def list_tmux_panes(session_name: str, tmux: Sequence[str] = ("tmux",)) -> list[Pane]:
    """Every pane of the tmux session named exactly `session_name`, over all its windows.

    `tmux` is the command prefix, e.g. `("tmux", "-L", "mysocket")`. A session or server that
    does not exist gives no panes.

    Raises:
        TmuxNotFoundError: the tmux program is not installed.
        SessionError: tmux could not be run or did not answer in time.
    """
    # Spec README §6.3: exact session match (`=name:`) over all windows (`-s`); the form
    # without the colon still matches name prefixes on tmux 3.3.
    argv = [*tmux, "list-panes", "-s", "-t", f"={session_name}:", "-F", _PANE_FORMAT]
    try:
        result = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=TMUX_TIMEOUT,
            check=False,
        )
    except FileNotFoundError as exc:
        msg = (
            f"tmux is not installed (could not run {argv[0]!r}); install tmux to read dmux sessions"
        )
        raise TmuxNotFoundError(msg) from exc
    except subprocess.TimeoutExpired as exc:
        raise SessionError(f"tmux did not answer within {TMUX_TIMEOUT:g} s") from exc
    except OSError as exc:
        raise SessionError(f"Cannot run tmux ({argv[0]!r}): {exc.strerror or exc}") from exc
    if result.returncode != 0:
        return []
    panes = []
    for raw in result.stdout.decode("utf-8", "replace").split("\n"):
        line = js_trim(raw)
        if not line:
            continue
        fields = line.split("\t") + [""] * 9
        pid = fields[8]
        panes.append(
            Pane(
                pane_id=fields[0],
                window_index=int(fields[1]) if fields[1].isdigit() else None,
                pane_index=int(fields[2]) if fields[2].isdigit() else None,
                title=fields[3],
                current_command=fields[4],
                current_path=fields[5],
                active=fields[6] == "1",
                dead=fields[7] == "1",
                pid=int(pid) if pid.isascii() and pid.isdigit() else None,
            )
        )
    return panes


# ---------------------------------------------------------------- targets


def is_plan_file_target(target: str, cwd: Path) -> bool:
    """True when `target` (against `cwd`) is an existing regular file ending in `.json`."""
    if not target:
        return False
    path = cwd / target
    return path.suffix == ".json" and path.is_file()


def is_session_name_target(target: str, cwd: Path) -> bool:
    """True when `<cwd>/.claude/orchestration/<target>` is a directory."""
    return bool(target) and (cwd / ".claude" / "orchestration" / target).is_dir()


def _abspath(path: Path) -> str:
    return os.path.normpath(os.path.abspath(path))


def _resolve_target(target: str, cwd: Path) -> tuple[str, Path, str]:
    """(session name, coordination dir, repo root) for a plan file or a session name."""
    path = cwd / target
    if target and path.is_file():
        try:
            plan = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise SessionError(f"Cannot read plan file {path}: {exc.strerror or exc}") from exc
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise SessionError(f"Plan file {_abspath(path)} is not valid JSON: {exc}") from exc
        except RecursionError:
            raise SessionError(f"Plan file {_abspath(path)} nests JSON too deeply") from None
        if not isinstance(plan, dict):
            raise SessionError(f"Plan file {_abspath(path)} must hold a JSON object")
        session_name = plan.get("sessionName")
        if not isinstance(session_name, str) or not session_name:
            # Spec README §6.3: a plan without sessionName is a clear error.
            raise SessionError(
                f"Plan file {_abspath(path)} requires sessionName to be a non-empty string "
                "(the tmux session the orchestrator started)"
            )
        for key in ("repoRoot", "coordinationRoot"):
            if plan.get(key) is not None and not isinstance(plan[key], str):
                raise SessionError(
                    f"Plan file {_abspath(path)} requires {key} to be a string (a directory path)"
                )
        repo_root = Path(_abspath(cwd / (plan.get("repoRoot") or cwd)))
        coordination_root = plan.get("coordinationRoot") or repo_root / ".orchestration"
        coordination_dir = Path(_abspath(cwd / coordination_root)) / session_name
        return session_name, coordination_dir, str(repo_root)
    coordination_dir = cwd / ".claude" / "orchestration" / target
    return target, coordination_dir, str(cwd)


# ---------------------------------------------------------------- normalization


def parse_js_date_ms(text: str | None) -> float | None:
    """`Date.parse` for the forms status files use: ISO 8601 (date-only is UTC, a date-time
    without offset is local time) and RFC 2822. None when unparseable."""
    if not text:
        return None
    value = text.strip()
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            parsed = datetime.fromisoformat(value).replace(tzinfo=UTC)
        else:
            parsed = datetime.fromisoformat(value)
    except ValueError:
        try:
            parsed = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
    if parsed.tzinfo is None:
        parsed = parsed.astimezone()
    return parsed.timestamp() * 1000.0


def derive_worker_health(state: str, updated: str | None, pane: Pane | None, now_ms: float) -> str:
    """`degraded`, `healthy`, `stale` or `unknown` from a worker's state, update time and pane."""
    if state in _FAILED:
        return "degraded"
    if state in _COMPLETED:
        return "healthy"
    if state in ("running", "active"):
        if pane is not None and pane.dead:
            return "degraded"
        updated_ms = parse_js_date_ms(updated)
        if updated_ms is None or now_ms - updated_ms > STALE_AFTER_MS:
            return "stale"
        return "healthy"
    return "unknown"


def derive_session_state(active: bool, states: dict[str, int], total: int) -> str:
    """`active`, `missing`, `failed`, `completed` or `idle` (spec §4.5)."""
    if active:
        return "active"
    if total == 0:
        return "missing"
    if states.get("failed", 0) + states.get("error", 0) > 0:
        return "failed"
    if sum(states.get(s, 0) for s in _COMPLETED) == total:
        return "completed"
    return "idle"


def collect_dmux_snapshot(
    target: str,
    cwd: Path,
    *,
    tmux: Sequence[str] = ("tmux",),
    clock: Callable[[], float] = time.time,
) -> CanonicalSnapshot:
    """Read a dmux session (plan file or session name) into a validated canonical snapshot."""
    session_name, coordination_dir, repo_root = _resolve_target(target, cwd)
    slugs = list_worker_dirs(coordination_dir)
    panes = list_tmux_panes(session_name, tmux)
    by_title = {pane.title: pane for pane in panes}
    now_ms = clock() * 1000.0
    workers: list[Worker] = []
    states: dict[str, int] = {}
    for slug in slugs:
        worker_dir = coordination_dir / slug
        files = [str(Path(_abspath(worker_dir / name))) for name in _WORKER_FILES]
        status = parse_worker_status(_read_text(worker_dir / "status.md"))
        task = parse_worker_task(_read_text(worker_dir / "task.md"))
        handoff = parse_worker_handoff(_read_text(worker_dir / "handoff.md"))
        pane = by_title.get(slug)
        state = status["state"] or "unknown"
        states[state] = states.get(state, 0) + 1
        workers.append(
            {
                "id": slug,
                "label": slug,
                "state": state,
                "health": derive_worker_health(state, status["updated"], pane, now_ms),
                "branch": status["branch"] or None,
                "worktree": status["worktree"] or None,
                "runtime": {
                    "kind": "tmux-pane",
                    "command": (pane.current_command or None) if pane else None,
                    "pid": (pane.pid or None) if pane else None,
                    "active": pane.active if pane else False,
                    "dead": pane.dead if pane else False,
                },
                # Spec README §6.3: an empty objective falls back to the label, so our own
                # snapshots always pass validation.
                "intent": {"objective": task["objective"] or slug, "seedPaths": task["seedPaths"]},
                "outputs": handoff,
                "artifacts": {
                    "statusFile": files[0],
                    "taskFile": files[1],
                    "handoffFile": files[2],
                },
            }
        )
    source: SourceTarget = (
        {"type": "plan", "value": _abspath(cwd / target)}
        if is_plan_file_target(target, cwd)
        else {"type": "session", "value": target}
    )
    snapshot: CanonicalSnapshot = {
        "schemaVersion": SESSION_SCHEMA_VERSION,
        "adapterId": ADAPTER_ID,
        "session": {
            "id": session_name,
            "kind": "orchestrated",
            "state": derive_session_state(bool(panes), states, len(workers)),
            "repoRoot": repo_root or None,
            "sourceTarget": source,
        },
        "workers": workers,
        "aggregates": build_aggregates(workers),
    }
    return validate_canonical_snapshot(snapshot)
