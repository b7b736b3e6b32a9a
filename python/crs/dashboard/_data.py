"""What the dashboard shows, read from each project's journal through a read replica.

`Dashboard` finds the projects under a data directory (`<home>/<key>/journal`), and for each
keeps one `ReadReplica` that starts from the project's latest backup and follows the journal
directory as hooks and agents append to it: it never takes a writer's lock, so it works while
they write. If a writer checkpoints the journal past the replica (a new backup dropped the
records the replica had not read yet), the replica is rebuilt from that backup.

`NATSDashboard` does the same for projects whose guard memory is a NATS JetStream stream
(`Guard.open(..., nats=...)`): the projects are the stream's ``crs.<key>.delta`` subjects,
each followed live by a `ReadReplica` fed by the server (an ordered consumer: a reader, no
lock anywhere).

Views are plain JSON data built from the guard's part of the replica's state (`crs.guard`):
the timeline of a session's calls with their verdicts, the spans a loop or polling covers, the
remembered failures and the session's decision graph with its cycles (Tarjan, in Rust).
Forgetting a failure is a write: it goes through `Guard.open(...).forget(id)` (with `nats=` for
a NATS project), as `crs guard forget` does.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crs._errors import (
    BackupNotFoundError,
    CRSError,
    InvalidArgumentError,
    JournalUnavailableError,
)
from crs._journal._base import JournalConfig
from crs._journal._local import LocalJournal
from crs._persistence._manager import (
    DefaultPersistenceConfig,
    PersistenceManager,
    read_index,
)
from crs._persistence._session_restore import compute_project_hash
from crs._project import nats_journal_config, open_project_key
from crs._reasoning._cycles_session import DecisionGraph, strongly_connected_components
from crs._replica import ReadReplica
from crs._state._codec import DeltaCodec
from crs.guard import Guard, GuardPolicy
from crs.guard._guard import _in_force, _now_ms

if TYPE_CHECKING:
    from crs._journal._nats_async import NATSJournalConfig

__all__ = ["Dashboard", "NATSDashboard"]

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
        self._projects: dict[str, _Project | _NATSProject] = {}
        self._lock = threading.Lock()

    _key_re = _KEY

    @property
    def home(self) -> Path:
        return self._home

    @property
    def where(self) -> str:
        """Where the projects are read from (for messages)."""
        return str(self._home)

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

    def _exists(self, key: str) -> bool:
        return (self._home / key / "journal").is_dir()

    def _new_project(self, key: str, path: str) -> _Project | _NATSProject:
        return _Project(self._home, key, path)

    def _project(self, key: str) -> _Project | _NATSProject:
        if not isinstance(key, str) or not self._key_re.match(key):
            raise InvalidArgumentError(f"project: must be a project key, got {key!r:.40}")
        with self._lock:
            p = self._projects.get(key)
            if p is None:
                paths = self._paths()
                if key not in paths or not self._exists(key):
                    raise InvalidArgumentError(f"project: no project {key} in {self.where}")
                p = self._projects[key] = self._new_project(key, paths[key])
            return p

    def _part(self, key: str) -> Any:
        return self._project(key).current().crs._parts["guard"]

    # ----------------------------------------------------------------- views

    def projects(self) -> list[dict[str, Any]]:
        out = []
        for key, path in self._paths().items():
            if not self._exists(key):
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
        # only the failures in force, as `Guard.learned()` and `crs guard learned` list them:
        # one whose TTL passed (or stamped far ahead of this clock) refuses nothing (rt12)
        now, ttl = _now_ms(), GuardPolicy().known_failure_ttl_s * 1000
        failures = [
            dict(f) for f in part.failures.values() if _in_force(f.get("created_at", 0), now, ttl)
        ]
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
            # the project's state is in the home; its checkout may be gone (not must_exist)
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


_NATS_KEY = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
_LIST_EVERY_S = 1.0


class _NATSProject:
    """One project on NATS: the replica following its subject (pushed by the server)."""

    def __init__(self, config: NATSJournalConfig, key: str, path: str) -> None:
        self.key, self.path = key, path
        self._config = replace(config, session_id=key, create_stream=False, codec=DeltaCodec())
        self._journal: Any = None
        self._replica: ReadReplica | None = None
        self._lock = threading.Lock()

    def replica(self) -> ReadReplica:
        with self._lock:
            r = self._replica
            if r is not None and r.error is None:
                return r
            self._close()
            from crs._journal._nats import NATSJournal  # inside: nats-py is optional

            self._journal = NATSJournal(self._config)
            try:
                end = self._journal.stats().last_seq_num
                r = ReadReplica(self._journal, session_id="dashboard")
            except BaseException:
                self._close()
                raise
            r.wait_for(end, timeout=5.0)
            self._replica = r
            return r

    def current(self) -> ReadReplica:
        return self.replica()  # live: the server pushes each record as it is stored

    def _close(self) -> None:
        if self._replica is not None:
            self._replica.close()
            self._replica = None
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    def close(self) -> None:
        with self._lock:
            self._close()


class NATSDashboard(Dashboard):
    """The projects of a NATS JetStream stream (`Guard.open(..., nats=...)`), read live.

    Args:
        nats: The server URL, or a `NATSJournalConfig` (its `stream_name` and timeouts).
        projects: Only these project directories (their keys), else every project subject
            of the stream.
        stream: The stream, when `nats` is a URL.

    Raises:
        InvalidArgumentError: A bad URL or config, named ``nats``.
        JournalUnavailableError: The server cannot be reached (checked here, once).
    """

    _key_re = _NATS_KEY

    def __init__(
        self,
        nats: str | NATSJournalConfig,
        projects: list[str | Path] | None = None,
        *,
        stream: str = "CRS_DELTAS",
    ) -> None:
        # inside: start-up (asyncio) and the optional nats-py, NATS only
        from crs._journal._nats_async import NATSJournalConfig

        if isinstance(nats, str):
            nats = NATSJournalConfig(servers=nats, stream_name=stream)
        self._config = nats_journal_config(nats, "dashboard")
        super().__init__(Path("."), projects)
        self._listed: tuple[float, dict[str, str]] = (0.0, {})
        self._list_lock = threading.Lock()
        self._subjects()  # reachable now, or a typed error naming the server

    @property
    def where(self) -> str:
        return f"{self._config.servers} stream {self._config.stream_name}"

    def _subjects(self) -> list[str]:
        # inside: start-up; only the NATS dashboard runs an event loop here
        import asyncio

        try:
            return asyncio.run(_stream_subjects(self._config))
        except CRSError:
            raise
        except Exception as exc:  # nats-py's own errors: the server is not there
            raise JournalUnavailableError(
                f"nats: cannot list the projects of stream {self._config.stream_name} at "
                f"{self._config.servers}: {exc!r}"
            ) from exc

    def _paths(self) -> dict[str, str]:
        with self._list_lock:
            at, found = self._listed
            if time.monotonic() - at >= _LIST_EVERY_S:
                subjects = self._subjects()
                tokens = [t.split(".")[1] for t in subjects if t.count(".") == 2]
                only = self._only or {}
                found = {t: only.get(t, "") for t in sorted(tokens)}
                if self._only is not None:
                    found = {k: v for k, v in found.items() if k in self._only}
                self._listed = (time.monotonic(), found)
            return dict(found)

    def _exists(self, key: str) -> bool:
        return True  # listed from the stream's subjects

    def _new_project(self, key: str, path: str) -> _NATSProject:
        return _NATSProject(self._config, key, path)

    def forget(self, key: str, failure_id: str) -> bool:
        self._project(key)  # a known project
        config = replace(self._config, session_id=key, codec=None)
        with Guard.open(".", "dashboard", nats=config, fingerprint=_no_fingerprint) as guard:
            return guard.forget(failure_id)


def _no_fingerprint() -> str:
    return "dashboard"


async def _stream_subjects(config: NATSJournalConfig) -> list[str]:
    """The project subjects (``crs.<key>.delta``) the stream holds records for."""
    import nats  # inside: the optional nats-py package
    import nats.js.errors

    servers = [s.strip() for s in config.servers.split(",") if s.strip()]
    nc = await nats.connect(
        servers,
        connect_timeout=config.connect_timeout,
        allow_reconnect=False,
        max_reconnect_attempts=1,
        name="crs-dashboard",
    )
    try:
        js = nc.jetstream(timeout=config.request_timeout)
        try:
            info = await js.stream_info(config.stream_name, subjects_filter="crs.*.delta")
        except nats.js.errors.NotFoundError:
            return []  # no guard wrote there yet
        return sorted((info.state.subjects or {}).keys())
    finally:
        await nc.close()


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
