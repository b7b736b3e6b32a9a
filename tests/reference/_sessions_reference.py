"""A slow, literal port of the reference's `validateCanonicalSnapshot` (JavaScript) for tests.

It throws at the first failing check, as the reference does, so property tests can compare
`crs.sessions.validate_canonical_snapshot` against it message for message.
"""

from __future__ import annotations

import math
from typing import Any


class RefError(Exception):
    pass


def _is_object(v: Any) -> bool:
    return isinstance(v, dict)


def _ensure_string(v: Any, p: str) -> None:
    if not isinstance(v, str) or len(v) == 0:
        raise RefError(f"Canonical session snapshot requires {p} to be a non-empty string")


def _ensure_optional_string(v: Any, p: str) -> None:
    if v is not None and not isinstance(v, str):
        raise RefError(f"Canonical session snapshot requires {p} to be a string or null")


def _ensure_boolean(v: Any, p: str) -> None:
    if not isinstance(v, bool):
        raise RefError(f"Canonical session snapshot requires {p} to be a boolean")


def _ensure_array_of_strings(v: Any, p: str) -> None:
    if not isinstance(v, list) or any(not isinstance(i, str) for i in v):
        raise RefError(f"Canonical session snapshot requires {p} to be an array of strings")


def _number_is_integer(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    return isinstance(v, float) and math.isfinite(v) and v == math.floor(v)


def _ensure_integer(v: Any, p: str) -> None:
    if not _number_is_integer(v) or v < 0:
        raise RefError(f"Canonical session snapshot requires {p} to be a non-negative integer")


def _entries(obj: dict[Any, Any]) -> list[tuple[Any, Any]]:
    def idx(k: Any) -> bool:
        return isinstance(k, str) and k.isascii() and k.isdigit() and str(int(k)) == k

    ints = sorted((k for k in obj if idx(k) and int(k) < 2**32 - 1), key=int)
    return [(k, obj[k]) for k in ints] + [(k, v) for k, v in obj.items() if k not in ints]


def ref_validate(s: Any) -> Any:
    if not _is_object(s):
        raise RefError("Canonical session snapshot must be an object")
    _ensure_string(s.get("schemaVersion"), "schemaVersion")
    if s["schemaVersion"] != "ecc.session.v1":
        raise RefError(f"Unsupported canonical session schema version: {s['schemaVersion']}")
    _ensure_string(s.get("adapterId"), "adapterId")
    if not _is_object(s.get("session")):
        raise RefError("Canonical session snapshot requires session to be an object")
    se = s["session"]
    _ensure_string(se.get("id"), "session.id")
    _ensure_string(se.get("kind"), "session.kind")
    _ensure_string(se.get("state"), "session.state")
    _ensure_optional_string(se.get("repoRoot"), "session.repoRoot")
    if not _is_object(se.get("sourceTarget")):
        raise RefError("Canonical session snapshot requires session.sourceTarget to be an object")
    _ensure_string(se["sourceTarget"].get("type"), "session.sourceTarget.type")
    _ensure_string(se["sourceTarget"].get("value"), "session.sourceTarget.value")
    if not isinstance(s.get("workers"), list):
        raise RefError("Canonical session snapshot requires workers to be an array")
    for i, w in enumerate(s["workers"]):
        if not _is_object(w):
            raise RefError(f"Canonical session snapshot requires workers[{i}] to be an object")
        for f in ("id", "label", "state", "health"):
            _ensure_string(w.get(f), f"workers[{i}].{f}")
        _ensure_optional_string(w.get("branch"), f"workers[{i}].branch")
        _ensure_optional_string(w.get("worktree"), f"workers[{i}].worktree")
        if not _is_object(w.get("runtime")):
            raise RefError(
                f"Canonical session snapshot requires workers[{i}].runtime to be an object"
            )
        r = w["runtime"]
        _ensure_string(r.get("kind"), f"workers[{i}].runtime.kind")
        _ensure_optional_string(r.get("command"), f"workers[{i}].runtime.command")
        _ensure_boolean(r.get("active"), f"workers[{i}].runtime.active")
        _ensure_boolean(r.get("dead"), f"workers[{i}].runtime.dead")
        if not _is_object(w.get("intent")):
            raise RefError(
                f"Canonical session snapshot requires workers[{i}].intent to be an object"
            )
        _ensure_string(w["intent"].get("objective"), f"workers[{i}].intent.objective")
        _ensure_array_of_strings(w["intent"].get("seedPaths"), f"workers[{i}].intent.seedPaths")
        if not _is_object(w.get("outputs")):
            raise RefError(
                f"Canonical session snapshot requires workers[{i}].outputs to be an object"
            )
        for f in ("summary", "validation", "remainingRisks"):
            _ensure_array_of_strings(w["outputs"].get(f), f"workers[{i}].outputs.{f}")
        if not _is_object(w.get("artifacts")):
            raise RefError(
                f"Canonical session snapshot requires workers[{i}].artifacts to be an object"
            )
    if not _is_object(s.get("aggregates")):
        raise RefError("Canonical session snapshot requires aggregates to be an object")
    a = s["aggregates"]
    _ensure_integer(a.get("workerCount"), "aggregates.workerCount")
    if a["workerCount"] != len(s["workers"]):
        raise RefError(
            "Canonical session snapshot requires aggregates.workerCount to match workers.length"
        )
    if not _is_object(a.get("states")):
        raise RefError("Canonical session snapshot requires aggregates.states to be an object")
    if not _is_object(a.get("healths")):
        raise RefError("Canonical session snapshot requires aggregates.healths to be an object")
    for name in ("states", "healths"):
        for k, v in _entries(a[name]):
            _ensure_string(k, f"aggregates.{name} key")
            _ensure_integer(v, f"aggregates.{name}.{k}")
    return s
