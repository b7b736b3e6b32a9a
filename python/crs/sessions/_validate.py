"""`validate_canonical_snapshot`: the reference's checks, in its order, collecting every violation.

The reference throws at its first failing check. We walk the snapshot in the same order but keep
going, so `ContractError.errors()` lists every violation while `str(err)` (the first one) is the
reference's message byte for byte. A part that is not an object hides its children (the
reference could never reach them either), so the first error is always the reference's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, cast

from crs._errors import ContractError, ContractErrorDetails
from crs.sessions._model import SESSION_SCHEMA_VERSION, CanonicalSnapshot, build_aggregates

_PREFIX = "Canonical session snapshot requires "
_TOP_LEVEL = ("schemaVersion", "adapterId", "session", "workers", "aggregates")
_WORKER_OBJECTS = ("runtime", "intent", "outputs", "artifacts")

Loc = tuple[str | int, ...]


class _Collector:
    __slots__ = ("errors",)

    def __init__(self) -> None:
        self.errors: list[ContractErrorDetails] = []

    def add(self, loc: Loc, msg: str, kind: str) -> None:
        self.errors.append({"loc": loc, "msg": msg, "type": kind})

    def string(self, value: object, loc: Loc, path: str) -> bool:
        if type(value) is str and value:
            return True
        if isinstance(value, str) and value:
            return True
        self.add(loc, f"{_PREFIX}{path} to be a non-empty string", "non_empty_string")
        return False

    def optional_string(self, value: object, loc: Loc, path: str) -> None:
        if value is not None and not isinstance(value, str):
            self.add(loc, f"{_PREFIX}{path} to be a string or null", "string_or_null")

    def boolean(self, value: object, loc: Loc, path: str) -> None:
        if value is not True and value is not False:
            self.add(loc, f"{_PREFIX}{path} to be a boolean", "boolean")

    def strings(self, value: object, loc: Loc, path: str) -> None:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            self.add(loc, f"{_PREFIX}{path} to be an array of strings", "array_of_strings")

    def integer(self, value: object, loc: Loc, path: str) -> bool:
        if _is_js_integer(value) and cast(float, value) >= 0:
            return True
        self.add(loc, f"{_PREFIX}{path} to be a non-negative integer", "non_negative_integer")
        return False

    def obj(self, value: object, loc: Loc, path: str) -> bool:
        if isinstance(value, dict):
            return True
        self.add(loc, f"{_PREFIX}{path} to be an object", "object")
        return False


def _is_js_integer(value: object) -> bool:
    # `Number.isInteger`: JSON `1.0` is the JS number 1, so integral floats count; booleans
    # are never numbers in JS, although `bool` subclasses `int` in Python.
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


def _js_key_order(mapping: Mapping[Any, Any]) -> list[Any]:
    # `Object.entries` visits integer-like keys ("7", canonical array indices) first, in
    # ascending order, then the other keys in insertion order.
    def is_index(key: object) -> bool:
        return (
            isinstance(key, str)
            and key.isdigit()
            and key.isascii()
            and (key == "0" or key[0] != "0")
            and int(key) < 2**32 - 1
        )

    keys = list(mapping)
    indices = sorted((k for k in keys if is_index(k)), key=int)
    if not indices:
        return keys
    return indices + [k for k in keys if not is_index(k)]


def _check_worker(c: _Collector, worker: object, i: int) -> None:
    base = f"workers[{i}]"
    if not c.obj(worker, ("workers", i), base):
        return
    w = cast(dict[str, Any], worker)
    for field in ("id", "label", "state", "health"):
        c.string(w.get(field), ("workers", i, field), f"{base}.{field}")
    for field in ("branch", "worktree"):
        c.optional_string(w.get(field), ("workers", i, field), f"{base}.{field}")
    runtime = w.get("runtime")
    if c.obj(runtime, ("workers", i, "runtime"), f"{base}.runtime"):
        r = cast(dict[str, Any], runtime)
        c.string(r.get("kind"), ("workers", i, "runtime", "kind"), f"{base}.runtime.kind")
        loc: Loc = ("workers", i, "runtime", "command")
        c.optional_string(r.get("command"), loc, f"{base}.runtime.command")
        c.boolean(r.get("active"), ("workers", i, "runtime", "active"), f"{base}.runtime.active")
        c.boolean(r.get("dead"), ("workers", i, "runtime", "dead"), f"{base}.runtime.dead")
    intent = w.get("intent")
    if c.obj(intent, ("workers", i, "intent"), f"{base}.intent"):
        it = cast(dict[str, Any], intent)
        loc = ("workers", i, "intent", "objective")
        c.string(it.get("objective"), loc, f"{base}.intent.objective")
        loc = ("workers", i, "intent", "seedPaths")
        c.strings(it.get("seedPaths"), loc, f"{base}.intent.seedPaths")
    outputs = w.get("outputs")
    if c.obj(outputs, ("workers", i, "outputs"), f"{base}.outputs"):
        o = cast(dict[str, Any], outputs)
        for field in ("summary", "validation", "remainingRisks"):
            c.strings(o.get(field), ("workers", i, "outputs", field), f"{base}.outputs.{field}")
    c.obj(w.get("artifacts"), ("workers", i, "artifacts"), f"{base}.artifacts")


def _check_counts(c: _Collector, counts: dict[Any, Any], name: str) -> None:
    for key in _js_key_order(counts):
        if isinstance(key, str) and key:
            c.integer(counts[key], ("aggregates", name, key), f"aggregates.{name}.{key}")
        else:
            c.add(
                ("aggregates", name, str(key)),
                f"{_PREFIX}aggregates.{name} key to be a non-empty string",
                "non_empty_string",
            )
            c.integer(counts[key], ("aggregates", name, str(key)), f"aggregates.{name}.{key}")


def _collect(snapshot: object) -> list[ContractErrorDetails]:
    c = _Collector()
    if not isinstance(snapshot, dict):
        c.add((), "Canonical session snapshot must be an object", "object")
        return c.errors
    version = snapshot.get("schemaVersion")
    if c.string(version, ("schemaVersion",), "schemaVersion") and version != SESSION_SCHEMA_VERSION:
        c.add(
            ("schemaVersion",),
            f"Unsupported canonical session schema version: {version}",
            "schema_version",
        )
    c.string(snapshot.get("adapterId"), ("adapterId",), "adapterId")

    session = snapshot.get("session")
    if c.obj(session, ("session",), "session"):
        s = cast(dict[str, Any], session)
        for field in ("id", "kind", "state"):
            c.string(s.get(field), ("session", field), f"session.{field}")
        c.optional_string(s.get("repoRoot"), ("session", "repoRoot"), "session.repoRoot")
        target = s.get("sourceTarget")
        if c.obj(target, ("session", "sourceTarget"), "session.sourceTarget"):
            t = cast(dict[str, Any], target)
            for field in ("type", "value"):
                loc = ("session", "sourceTarget", field)
                c.string(t.get(field), loc, f"session.sourceTarget.{field}")

    workers = snapshot.get("workers")
    if isinstance(workers, list):
        for i, worker in enumerate(workers):
            _check_worker(c, worker, i)
    else:
        c.add(("workers",), f"{_PREFIX}workers to be an array", "array")

    aggregates = snapshot.get("aggregates")
    if c.obj(aggregates, ("aggregates",), "aggregates"):
        a = cast(dict[str, Any], aggregates)
        count = a.get("workerCount")
        if (
            c.integer(count, ("aggregates", "workerCount"), "aggregates.workerCount")
            and isinstance(workers, list)
            and count != len(workers)
        ):
            c.add(
                ("aggregates", "workerCount"),
                f"{_PREFIX}aggregates.workerCount to match workers.length",
                "worker_count_mismatch",
            )
        states_ok = c.obj(a.get("states"), ("aggregates", "states"), "aggregates.states")
        healths_ok = c.obj(a.get("healths"), ("aggregates", "healths"), "aggregates.healths")
        if states_ok:
            _check_counts(c, a["states"], "states")
        if healths_ok:
            _check_counts(c, a["healths"], "healths")
    return c.errors


def _nonempty(value: object) -> bool:
    return type(value) is str and value != ""


def _strs(value: object) -> bool:
    if type(value) is not list:
        return False
    for item in value:  # noqa: SIM110  (a loop beats all() with a generator here)
        if type(item) is not str:
            return False
    return True


def _counts(value: dict[Any, Any]) -> bool:
    for key, count in value.items():
        if type(key) is not str or not key or type(count) is not int or count < 0:
            return False
    return True


def _fast_ok(s: object) -> bool:
    # The common case (a valid snapshot from an adapter) in one pass with exact type checks and
    # no allocation. It is stricter than the rules (str/int subclasses, JSON 1.0 fail here), so
    # False only means "run the full, authoritative walk" (`_collect`).
    if type(s) is not dict or s.get("schemaVersion") != SESSION_SCHEMA_VERSION:
        return False
    if type(s["schemaVersion"]) is not str or not _nonempty(s.get("adapterId")):
        return False
    se = s.get("session")
    if type(se) is not dict:
        return False
    if not (_nonempty(se.get("id")) and _nonempty(se.get("kind")) and _nonempty(se.get("state"))):
        return False
    root = se.get("repoRoot")
    if root is not None and type(root) is not str:
        return False
    st = se.get("sourceTarget")
    if type(st) is not dict or not (_nonempty(st.get("type")) and _nonempty(st.get("value"))):
        return False
    workers = s.get("workers")
    if type(workers) is not list:
        return False
    for w in workers:
        if type(w) is not dict:
            return False
        get = w.get
        if not (
            _nonempty(get("id"))
            and _nonempty(get("label"))
            and _nonempty(get("state"))
            and _nonempty(get("health"))
        ):
            return False
        branch, worktree = get("branch"), get("worktree")
        if (branch is not None and type(branch) is not str) or (
            worktree is not None and type(worktree) is not str
        ):
            return False
        r = get("runtime")
        if type(r) is not dict or not _nonempty(r.get("kind")):
            return False
        command, active, dead = r.get("command"), r.get("active"), r.get("dead")
        if command is not None and type(command) is not str:
            return False
        if (active is not True and active is not False) or (dead is not True and dead is not False):
            return False
        it = get("intent")
        if (
            type(it) is not dict
            or not _nonempty(it.get("objective"))
            or not _strs(it.get("seedPaths"))
        ):
            return False
        o = get("outputs")
        if type(o) is not dict or not (
            _strs(o.get("summary"))
            and _strs(o.get("validation"))
            and _strs(o.get("remainingRisks"))
        ):
            return False
        if type(get("artifacts")) is not dict:
            return False
    a = s.get("aggregates")
    if type(a) is not dict:
        return False
    count, states, healths = a.get("workerCount"), a.get("states"), a.get("healths")
    if type(count) is not int or count != len(workers):
        return False
    if type(states) is not dict or type(healths) is not dict:
        return False
    return _counts(states) and _counts(healths)


_EXIT = object()


def _is_plain_json(value: object) -> bool:
    """Whether `value` is a tree of plain JSON values. A cycle is not (it cannot be written);
    a container shared by two parents is looked at once. Iterative: no recursion limit."""
    stack: list[object] = [value]
    open_ids: set[int] = set()  # containers on the current path (a cycle returns to one)
    done: set[int] = set()
    while stack:
        item = stack.pop()
        if item is _EXIT:
            closed = stack.pop()
            open_ids.discard(id(closed))
            done.add(id(closed))
            continue
        if item is None or isinstance(item, str | bool | int):
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                return False
            continue
        if not isinstance(item, list | dict):
            return False
        key = id(item)
        if key in open_ids:
            return False  # a cycle
        if key in done:
            continue
        if isinstance(item, dict) and not all(isinstance(k, str) for k in item):
            return False
        open_ids.add(key)
        stack += (item, _EXIT)
        stack.extend(item.values() if isinstance(item, dict) else item)
    return True


def _collect_strict(snapshot: dict[str, Any]) -> list[ContractErrorDetails]:
    # Rules of the contract text the reference does not enforce (spec README §6.2). Only run
    # on a snapshot that passed the reference checks, so the shapes below are known.
    errors: list[ContractErrorDetails] = [
        {
            "loc": (str(key),),
            "msg": f"Canonical session snapshot must not have the top-level field {key}",
            "type": "unknown_field",
        }
        for key in snapshot
        if key not in _TOP_LEVEL
    ]
    seen: dict[str, int] = {}
    for i, worker in enumerate(snapshot["workers"]):
        first = seen.setdefault(worker["id"], i)
        if first != i:
            errors.append(
                {
                    "loc": ("workers", i, "id"),
                    "msg": f"{_PREFIX}workers[{i}].id to be unique "
                    f"(workers[{first}] has the id {worker['id']})",
                    "type": "duplicate_worker_id",
                }
            )
        pid = worker["runtime"].get("pid")
        if pid is not None and (isinstance(pid, bool) or not isinstance(pid, int | float)):
            errors.append(
                {
                    "loc": ("workers", i, "runtime", "pid"),
                    "msg": f"{_PREFIX}workers[{i}].runtime.pid to be a number or null",
                    "type": "number_or_null",
                }
            )
    expected = build_aggregates(snapshot["workers"])
    for name in ("states", "healths"):
        given = {k: int(v) for k, v in snapshot["aggregates"][name].items()}
        if given != expected[name]:
            errors.append(
                {
                    "loc": ("aggregates", name),
                    "msg": f"{_PREFIX}aggregates.{name} to match the workers' {name} "
                    f"{expected[name]}",
                    "type": "aggregate_mismatch",
                }
            )
    if not _is_plain_json(snapshot):
        errors.append(
            {
                "loc": (),
                "msg": "Canonical session snapshot must hold plain JSON values only "
                "(dict with str keys, list, str, finite number, bool, None)",
                "type": "json_value",
            }
        )
    return errors


def validate_canonical_snapshot(snapshot: object, strict: bool = False) -> CanonicalSnapshot:
    """Check a snapshot against the `ecc.session.v1` contract and return it unchanged.

    Accepts and rejects exactly what the reference validator does; `strict=True` also
    requires what the contract text asks but the reference skips: aggregates that match the
    workers, unique worker ids, no unknown top-level fields, a numeric or null `runtime.pid`,
    and plain JSON values only.

    Args:
        snapshot: the decoded snapshot (dicts and lists, as `json.loads` gives).
        strict: also enforce the contract rules the reference does not check.

    Returns:
        The same object, typed as a `CanonicalSnapshot`.

    Raises:
        ContractError: the snapshot violates the contract. Its message is the reference's
            first-error message; `.errors()` lists every violation in validation order.

    >>> validate_canonical_snapshot({"schemaVersion": "ecc.session.v2"})
    Traceback (most recent call last):
    ...
    crs.ContractError: Unsupported canonical session schema version: ecc.session.v2
    """
    errors = [] if _fast_ok(snapshot) else _collect(snapshot)
    if not errors and strict:
        errors = _collect_strict(cast(dict[str, Any], snapshot))
    if errors:
        raise ContractError(errors[0]["msg"], errors)
    return cast(CanonicalSnapshot, snapshot)
