"""What the dashboard shows, read from each project's journal through a read replica.

`Dashboard` finds the projects under a data directory (`<home>/<key>/journal`), and for each
keeps one `ReadReplica` that starts from the project's latest backup and follows the journal
directory as hooks and agents append to it: it never takes a writer's lock, so it works while
they write. If a writer checkpoints the journal past the replica (a new backup dropped the
records the replica had not read yet), the replica is rebuilt from that backup.

Views are plain JSON data built from the guard's part of the replica's state (`crs.guard`):
the timeline of a session's calls with their verdicts, the spans a loop or polling covers, the
remembered failures and the session's decision graph with its cycles (Tarjan, in Rust).
Forgetting a failure is a write: it goes through `Guard.open(...).forget(id)`, as
`crs guard forget` does.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from crs._errors import BackupNotFoundError, CRSError, InvalidArgumentError
from crs._journal._base import JournalConfig
from crs._journal._local import LocalJournal
from crs._persistence._manager import (
    DefaultPersistenceConfig,
    PersistenceManager,
    read_index,
)
from crs._persistence._session_restore import compute_project_hash
from crs._project import open_project_key
from crs._reasoning._cycles_session import DecisionGraph, strongly_connected_components
from crs._replica import ReadReplica
from crs._state._codec import DeltaCodec
from crs.guard import Guard

__all__ = ["Dashboard"]

_KEY = re.compile(r"^[0-9a-f]{16}$")
_KINDS = {0: "ok", 1: "failure", 2: "transient", -1: "refused"}
_LOOP_CODES = {"repeated_call", "cycle", "no_progress", "error_loop", "known_failure", "monologue"}


class _Project:
    """One project: its key, path, and the replica following its journal."""

    def __init__(self, home: Path, key: str, path: str) -> None:
        self.home, self.key, self.path = home, key, path
        self._replica: ReadReplica | None = None
        self._lock = threading.Lock()

    @property
    def journal_dir(self) -> Path:
        return self.home / self.key / "journal"

    def replica(self) -> ReadReplica:
        with self._lock:
            r = self._replica
            if r is not None and r.error is None:
                return r
            if r is not None:
                r.close()
            self._replica = r = self._open()
            return r

    def _open(self) -> ReadReplica:
        pm = PersistenceManager(replace(DefaultPersistenceConfig(), base_dir=str(self.home)))
        try:
            try:
                base = pm.load_backup(self.key).image
            except BackupNotFoundError:
                base = None
        finally:
            pm.close()
        replica = ReadReplica(str(self.journal_dir), base=base, session_id="dashboard")
        replica.wait_for(self.journal_end(), timeout=5.0)
        return replica

    def journal_end(self) -> int:
        """The last record the journal holds now (read-only open; takes no writer's lock)."""
        config = JournalConfig(path=str(self.journal_dir), session_id="dashboard", read_only=True)
        with LocalJournal(config, DeltaCodec()) as journal:
            return journal.stats().last_seq_num

    def current(self) -> ReadReplica:
        """The replica, caught up with what the journal held when this was called."""
        replica = self.replica()
        end = self.journal_end()
        if replica.position() < end:
            replica.wait_for(end, timeout=2.0)
        return replica

    def close(self) -> None:
        with self._lock:
            if self._replica is not None:
                self._replica.close()
                self._replica = None


class Dashboard:
    """The projects under `home` (or only `projects`), read through read replicas."""

    def __init__(self, home: str | Path, projects: list[str | Path] | None = None) -> None:
        self._home = Path(home).expanduser()
        self._only = (
            None
            if projects is None
            else {
                compute_project_hash(str(Path(p).resolve())): str(Path(p).resolve())
                for p in projects
            }
        )
        self._projects: dict[str, _Project] = {}
        self._lock = threading.Lock()

    @property
    def home(self) -> Path:
        return self._home

    # ----------------------------------------------------------------- discovery

    def _paths(self) -> dict[str, str]:
        if self._only is not None:
            return dict(self._only)
        found: dict[str, str] = {}
        index = read_index(self._home / "index.json")
        listed = index.get("projects", {}) if isinstance(index, dict) else {}
        try:
            entries = sorted(self._home.iterdir())
        except OSError:
            return found
        for entry in entries:
            if not _KEY.match(entry.name) or not (entry / "journal").is_dir():
                continue
            info = listed.get(entry.name) if isinstance(listed, dict) else None
            path = info.get("project_path", "") if isinstance(info, dict) else ""
            if not path:
                path = _metadata_path(entry / "metadata.json")
            found[entry.name] = path
        return found

    def _project(self, key: str) -> _Project:
        if not isinstance(key, str) or not _KEY.match(key):
            raise InvalidArgumentError(f"project: must be a 16-hex project key, got {key!r:.40}")
        with self._lock:
            p = self._projects.get(key)
            if p is None:
                paths = self._paths()
                if key not in paths or not (self._home / key / "journal").is_dir():
                    raise InvalidArgumentError(f"project: no project {key} under {self._home}")
                p = self._projects[key] = _Project(self._home, key, paths[key])
            return p

    def _part(self, key: str) -> Any:
        return self._project(key).current().crs._parts["guard"]

    # ----------------------------------------------------------------- views

    def projects(self) -> list[dict[str, Any]]:
        out = []
        for key, path in self._paths().items():
            if not (self._home / key / "journal").is_dir():
                continue
            try:
                part = self._part(key)
                sessions = [
                    {"session_id": sid, "calls": s.calls, "last_step": s.last_step}
                    for sid, s in list(part.sessions.items())
                ]
            except CRSError as exc:
                sessions = []
                path = f"{path} (unreadable: {exc})"[:300]
            out.append({"key": key, "path": path, "sessions": sessions})
        return out

    def position(self, key: str) -> int:
        return self._project(key).replica().position()

    def session(self, key: str, sid: str) -> dict[str, Any]:
        replica = self._project(key).replica()  # the live feed says when it moved
        part = replica.crs._parts["guard"]
        s = part.sessions.get(sid)
        if s is None:
            raise InvalidArgumentError(f"session: no session {sid!r:.80} in project {key}")
        rows = [list(r) for r in s.recent]
        failures = [dict(f) for f in part.failures.values()]
        calls = [_call(r) for r in rows]
        return {
            "project": key,
            "session_id": sid,
            "position": replica.position(),
            "counts": _counts(calls),
            "calls": calls,
            "spans": _spans(calls),
            "learned": [
                {
                    "id": f["id"],
                    "tool": f["tool"],
                    "error": f.get("error", ""),
                    "fingerprint": f.get("fingerprint", ""),
                    "created_at": f.get("created_at", 0),
                    "session_id": f.get("session_id", ""),
                    "preview": f.get("preview", ""),
                }
                for f in sorted(failures, key=lambda f: f.get("created_at", 0), reverse=True)
            ],
            "graph": _graph(calls),
        }

    def forget(self, key: str, failure_id: str) -> bool:
        project = self._project(key)
        if project.path:
            with Guard.open(project.path, "dashboard", home=self._home) as guard:
                return guard.forget(failure_id)
        # A project whose path is not recorded (no backup yet): open its state by key, as
        # `open_project` does by path.
        state = open_project_key(key, "", self._home, session_id="dashboard")
        with state, Guard(session="dashboard", _crs=state, _owns=False, _durable=True) as guard:
            return guard.forget(failure_id)

    def close(self) -> None:
        with self._lock:
            for p in self._projects.values():
                p.close()
            self._projects.clear()


def _metadata_path(path: Path) -> str:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    value = doc.get("project_path", "") if isinstance(doc, dict) else ""
    return value if isinstance(value, str) else ""


def _call(r: list[Any]) -> dict[str, Any]:
    """One timeline row from a guard step row [n, tool, sig, res, kind, verdict, ts, ...]."""
    n, tool, sig, res, kind, code, ts = r[:7]
    args = r[7] if len(r) > 7 else ""
    result = r[8] if len(r) > 8 else ""
    if kind == -1:
        action = r[9] if len(r) > 9 and r[9] in ("block", "stop") else "block"
    elif code and code != "polling":
        action = "nudge"
    else:
        action = "allow"
    reason = {
        "repeated_call": "the same call with the same result again",
        "cycle": "a loop of calls repeating with the same results",
        "no_progress": "calls that produce nothing new",
        "error_loop": "the same failing call again",
        "known_failure": "this call failed before in the same workspace",
        "budget": "a budget is spent",
        "monologue": "messages with no tool call",
        "retry_budget": "retries of a transient error are spent",
        "polling": "polling: the result changes",
    }.get(code, "")
    return {
        "step": n,
        "tool": tool,
        "signature": sig,
        "result_digest": res,
        "kind": _KINDS.get(kind, "ok"),
        "action": action,
        "code": code or "ok",
        "reason": reason,
        "args": args,
        "result": result or ("" if kind == -1 else f"#{res[:8]}"),
        "at": ts,
    }


def _counts(calls: list[dict[str, Any]]) -> dict[str, int]:
    counts = {"calls": len(calls), "allow": 0, "nudge": 0, "block": 0, "stop": 0}
    for c in calls:
        counts[c["action"]] += 1
    return counts


def _spans(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Steps a loop covers (from the first repeated signature to the flagged call) and polls."""
    spans: list[dict[str, Any]] = []
    first: dict[str, int] = {}
    for c in calls:
        first.setdefault(c["signature"], c["step"])
        if c["code"] in _LOOP_CODES or c["action"] in ("block", "stop"):
            start = first.get(c["signature"], c["step"])
            steps = [x["step"] for x in calls if start <= x["step"] <= c["step"]]
            spans.append({"kind": "loop", "code": c["code"], "steps": steps})
        elif c["code"] == "polling":
            spans.append({"kind": "poll", "code": "polling", "steps": [c["step"]]})
    return spans


def _graph(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """Nodes are distinct (call, result) states; edges join consecutive calls; cycles by Tarjan."""
    nodes: dict[str, str] = {}
    edges: dict[str, list[str]] = {}
    pairs: list[list[str]] = []
    prev: str | None = None
    for c in calls:
        if c["kind"] == "refused":
            continue
        k = f"{c['signature'][:10]}:{c['result_digest'][:10]}"
        nodes.setdefault(k, f"{c['tool']} {c['args'][:24]}".strip())
        if prev is not None and k not in edges.setdefault(prev, []):
            edges[prev].append(k)
            pairs.append([prev, k])
        prev = k
    graph = DecisionGraph(nodes=tuple(nodes), edges={k: tuple(v) for k, v in edges.items()})
    cycles = [
        scc
        for scc in strongly_connected_components(graph)
        if len(scc) > 1 or (scc and scc[0] in edges.get(scc[0], []))
    ]
    return {
        "nodes": [{"id": k, "label": label} for k, label in nodes.items()],
        "edges": pairs,
        "cycles": cycles,
    }
