"""validate_canonical_snapshot: every reference rule, in order, with its exact message."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import crs
from _sessions_reference import RefError, ref_validate
from crs.sessions import build_aggregates, validate_canonical_snapshot

P = "Canonical session snapshot requires "


def worker(wid: str = "seed-check", state: str = "running", health: str = "healthy") -> Any:
    return {
        "id": wid,
        "label": wid,
        "state": state,
        "health": health,
        "branch": "feature/seed-check",
        "worktree": "/tmp/worktree",
        "runtime": {
            "kind": "tmux-pane",
            "command": "codex",
            "pid": 1234,
            "active": False,
            "dead": False,
        },
        "intent": {"objective": "Inspect seeded files.", "seedPaths": ["scripts/a.js"]},
        "outputs": {"summary": [], "validation": [], "remainingRisks": []},
        "artifacts": {"statusFile": "/tmp/status.md"},
    }


def snapshot(workers: list[Any] | None = None) -> Any:
    ws = [worker()] if workers is None else workers
    return {
        "schemaVersion": "ecc.session.v1",
        "adapterId": "dmux-tmux",
        "session": {
            "id": "workflow-visual-proof",
            "kind": "orchestrated",
            "state": "active",
            "repoRoot": "/tmp/repo",
            "sourceTarget": {"type": "session", "value": "workflow-visual-proof"},
        },
        "workers": ws,
        "aggregates": build_aggregates(ws),
    }


def message(obj: Any, strict: bool = False) -> str:
    with pytest.raises(crs.ContractError) as info:
        validate_canonical_snapshot(obj, strict=strict)
    return str(info.value)


def test_valid_snapshot_is_returned_unchanged() -> None:
    snap = snapshot()
    assert validate_canonical_snapshot(snap) is snap
    assert validate_canonical_snapshot(snap, strict=True) is snap


def test_the_contract_example_from_the_seed_page_is_valid() -> None:
    assert validate_canonical_snapshot(json.loads(json.dumps(snapshot())))


@pytest.mark.parametrize("root", [None, [], "x", 1, True])
def test_root_must_be_an_object(root: Any) -> None:
    assert message(root) == "Canonical session snapshot must be an object"


def test_schema_version_string_then_equality() -> None:
    s = snapshot()
    s["schemaVersion"] = ""
    assert message(s) == P + "schemaVersion to be a non-empty string"
    s["schemaVersion"] = "ECC.session.v1"
    assert message(s) == "Unsupported canonical session schema version: ECC.session.v1"
    del s["schemaVersion"]
    assert message(s) == P + "schemaVersion to be a non-empty string"


# (path to set, bad value, expected message), in the reference's check order
CASES: list[tuple[tuple[Any, ...], Any, str]] = [
    (("adapterId",), 5, P + "adapterId to be a non-empty string"),
    (("session",), [], P + "session to be an object"),
    (("session", "id"), "", P + "session.id to be a non-empty string"),
    (("session", "kind"), None, P + "session.kind to be a non-empty string"),
    (("session", "state"), False, P + "session.state to be a non-empty string"),
    (("session", "repoRoot"), 3, P + "session.repoRoot to be a string or null"),
    (("session", "sourceTarget"), None, P + "session.sourceTarget to be an object"),
    (
        ("session", "sourceTarget", "type"),
        "",
        P + "session.sourceTarget.type to be a non-empty string",
    ),
    (
        ("session", "sourceTarget", "value"),
        1,
        P + "session.sourceTarget.value to be a non-empty string",
    ),
    (("workers",), {}, P + "workers to be an array"),
    (("workers", 0), "w", P + "workers[0] to be an object"),
    (("workers", 0, "id"), "", P + "workers[0].id to be a non-empty string"),
    (("workers", 0, "label"), None, P + "workers[0].label to be a non-empty string"),
    (("workers", 0, "state"), 0, P + "workers[0].state to be a non-empty string"),
    (("workers", 0, "health"), [], P + "workers[0].health to be a non-empty string"),
    (("workers", 0, "branch"), 1, P + "workers[0].branch to be a string or null"),
    (("workers", 0, "worktree"), {}, P + "workers[0].worktree to be a string or null"),
    (("workers", 0, "runtime"), [], P + "workers[0].runtime to be an object"),
    (("workers", 0, "runtime", "kind"), "", P + "workers[0].runtime.kind to be a non-empty string"),
    (
        ("workers", 0, "runtime", "command"),
        7,
        P + "workers[0].runtime.command to be a string or null",
    ),
    (("workers", 0, "runtime", "active"), 1, P + "workers[0].runtime.active to be a boolean"),
    (("workers", 0, "runtime", "dead"), "false", P + "workers[0].runtime.dead to be a boolean"),
    (("workers", 0, "intent"), None, P + "workers[0].intent to be an object"),
    (
        ("workers", 0, "intent", "objective"),
        "",
        P + "workers[0].intent.objective to be a non-empty string",
    ),
    (
        ("workers", 0, "intent", "seedPaths"),
        ["a", 1],
        P + "workers[0].intent.seedPaths to be an array of strings",
    ),
    (("workers", 0, "outputs"), "x", P + "workers[0].outputs to be an object"),
    (
        ("workers", 0, "outputs", "summary"),
        "a",
        P + "workers[0].outputs.summary to be an array of strings",
    ),
    (
        ("workers", 0, "outputs", "validation"),
        None,
        P + "workers[0].outputs.validation to be an array of strings",
    ),
    (
        ("workers", 0, "outputs", "remainingRisks"),
        [None],
        P + "workers[0].outputs.remainingRisks to be an array of strings",
    ),
    (("workers", 0, "artifacts"), [], P + "workers[0].artifacts to be an object"),
    (("aggregates",), None, P + "aggregates to be an object"),
    (("aggregates", "workerCount"), -1, P + "aggregates.workerCount to be a non-negative integer"),
    (
        ("aggregates", "workerCount"),
        True,
        P + "aggregates.workerCount to be a non-negative integer",
    ),
    (("aggregates", "workerCount"), "1", P + "aggregates.workerCount to be a non-negative integer"),
    (("aggregates", "workerCount"), 1.5, P + "aggregates.workerCount to be a non-negative integer"),
    (("aggregates", "workerCount"), 2, P + "aggregates.workerCount to match workers.length"),
    (("aggregates", "states"), [], P + "aggregates.states to be an object"),
    (("aggregates", "healths"), None, P + "aggregates.healths to be an object"),
    (("aggregates", "states"), {"": 1}, P + "aggregates.states key to be a non-empty string"),
    (
        ("aggregates", "states"),
        {"running": -2},
        P + "aggregates.states.running to be a non-negative integer",
    ),
    (
        ("aggregates", "healths"),
        {"ok": "1"},
        P + "aggregates.healths.ok to be a non-negative integer",
    ),
]


def put(obj: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value


@pytest.mark.parametrize(("path", "value", "expected"), CASES)
def test_each_rule_has_the_reference_message(
    path: tuple[Any, ...], value: Any, expected: str
) -> None:
    s = snapshot()
    put(s, path, value)
    assert message(s) == expected
    with pytest.raises(RefError, match="^" + __import__("re").escape(expected) + "$"):
        ref_validate(s)


REQUIRED = [
    (path, expected)
    for path, _, expected in CASES
    if isinstance(path[-1], str)
    and path[-1] not in ("repoRoot", "branch", "worktree", "command")
    and "to match" not in expected
    and path[-1] not in ("states", "healths")
]


@pytest.mark.parametrize(("path", "expected"), REQUIRED)
def test_a_missing_required_field_fails(path: tuple[Any, ...], expected: str) -> None:
    s = snapshot()
    parent = s
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]
    with pytest.raises(RefError) as ref:
        ref_validate(s)
    assert message(s) == str(ref.value) == expected


@pytest.mark.parametrize("field", ["repoRoot"])
def test_optional_strings_may_be_absent_or_null(field: str) -> None:
    s = snapshot()
    del s["session"][field]
    del s["workers"][0]["branch"]
    s["workers"][0]["worktree"] = None
    del s["workers"][0]["runtime"]["command"]
    del s["workers"][0]["runtime"]["pid"]
    assert validate_canonical_snapshot(s) is s


def test_errors_lists_every_violation_in_order() -> None:
    s = snapshot([worker("a"), worker("b")])
    s["adapterId"] = ""
    s["workers"][1]["runtime"]["dead"] = None
    s["workers"][1]["intent"] = 3
    s["aggregates"]["workerCount"] = 5
    with pytest.raises(crs.ContractError) as info:
        validate_canonical_snapshot(s)
    errors = info.value.errors()
    assert str(info.value) == P + "adapterId to be a non-empty string"
    assert [e["loc"] for e in errors] == [
        ("adapterId",),
        ("workers", 1, "runtime", "dead"),
        ("workers", 1, "intent"),
        ("aggregates", "workerCount"),
    ]
    assert errors[3]["msg"] == P + "aggregates.workerCount to match workers.length"
    assert {e["type"] for e in errors} == {
        "non_empty_string",
        "boolean",
        "object",
        "worker_count_mismatch",
    }
    assert isinstance(info.value, ValueError)


def test_json_one_point_zero_is_an_integer_but_booleans_are_not() -> None:
    s = json.loads(json.dumps(snapshot()).replace('"workerCount": 1', '"workerCount": 1.0'))
    assert s["aggregates"]["workerCount"] == 1.0
    validate_canonical_snapshot(s)
    s["aggregates"]["states"]["running"] = True
    assert message(s) == P + "aggregates.states.running to be a non-negative integer"


def test_aggregate_entries_visit_integer_keys_first() -> None:
    s = snapshot()
    s["aggregates"]["states"] = {"zeta": -1, "7": "x", "3": -1}
    # JS Object.entries order: "3", "7", then "zeta"
    assert message(s) == P + "aggregates.states.3 to be a non-negative integer"
    with pytest.raises(crs.ContractError) as info:
        validate_canonical_snapshot(s)
    locs = [e["loc"] for e in info.value.errors()]
    assert locs == [("aggregates", "states", k) for k in ("3", "7", "zeta")]


def test_states_are_checked_as_objects_before_entries() -> None:
    s = snapshot()
    s["aggregates"]["states"] = {"": 1}
    s["aggregates"]["healths"] = []
    assert message(s) == P + "aggregates.healths to be an object"


def test_what_the_reference_does_not_check_passes() -> None:
    s = snapshot([worker("a"), worker("a", state="done")])
    s["aggregates"] = {"workerCount": 2, "states": {"bogus": 9}, "healths": {}}
    s["workers"][0]["runtime"]["pid"] = "not a number"
    s["workers"][0]["artifacts"] = {"anything": [1, {"x": None}]}
    s["extra"] = True
    s["session"]["state"] = "   "
    validate_canonical_snapshot(s)
    with pytest.raises(crs.ContractError) as info:
        validate_canonical_snapshot(s, strict=True)
    kinds = [e["type"] for e in info.value.errors()]
    assert kinds == [
        "unknown_field",
        "number_or_null",
        "duplicate_worker_id",
        "aggregate_mismatch",
        "aggregate_mismatch",
    ]
    assert str(info.value) == "Canonical session snapshot must not have the top-level field extra"


def test_strict_rejects_values_that_are_not_plain_json() -> None:
    s = snapshot()
    s["workers"][0]["artifacts"]["when"] = object()
    validate_canonical_snapshot(s)
    assert message(s, strict=True).startswith("Canonical session snapshot must hold plain JSON")
    s["workers"][0]["artifacts"]["when"] = float("nan")
    assert message(s, strict=True).startswith("Canonical session snapshot must hold plain JSON")


def test_build_aggregates_counts_in_first_seen_order() -> None:
    ws = [
        worker("a", "running", "stale"),
        worker("b", "done", "healthy"),
        worker("c", "running", "healthy"),
        worker("d", "", ""),
    ]
    agg = build_aggregates(ws)
    assert agg == {
        "workerCount": 4,
        "states": {"running": 2, "done": 1, "unknown": 1},
        "healths": {"stale": 1, "healthy": 2, "unknown": 1},
    }
    assert list(agg["states"]) == ["running", "done", "unknown"]
    assert build_aggregates([]) == {"workerCount": 0, "states": {}, "healths": {}}


def test_contract_error_round_trips_through_copy() -> None:
    s = snapshot()
    s["adapterId"] = None
    with pytest.raises(crs.ContractError) as info:
        validate_canonical_snapshot(s)
    err = info.value
    clone = copy.deepcopy(err)
    assert str(clone) == str(err)
    assert clone.errors() == err.errors()


JUNK = st.sampled_from(
    [None, True, False, 0, -1, 1, 2.0, 1.5, "", " ", "x", [], ["a"], [1], {}, {"": 1}, {"k": -1}]
)


def paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += paths(v, (*prefix, i))
    return out


@given(
    n=st.integers(0, 3),
    edits=st.lists(st.tuples(st.integers(0, 10_000), JUNK, st.booleans()), max_size=4),
)
def test_matches_the_reference_port_on_mutated_snapshots(n: int, edits: list[Any]) -> None:
    s = snapshot([worker(f"w{i}", state=["running", "done"][i % 2]) for i in range(n)])
    for index, junk, delete in edits:
        candidates = paths(s)
        if not candidates:
            break
        path = candidates[index % len(candidates)]
        parent = s
        for key in path[:-1]:
            parent = parent[key]
        if delete and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(junk)
    expected = reference_message(s)
    if expected is None:
        assert validate_canonical_snapshot(s) is s
        return
    with pytest.raises(crs.ContractError) as ours:
        validate_canonical_snapshot(s)
    assert str(ours.value) == expected
    assert ours.value.errors()[0]["msg"] == expected


def reference_message(s: Any) -> str | None:
    try:
        ref_validate(s)
    except RefError as ref:
        return str(ref)
    return None
