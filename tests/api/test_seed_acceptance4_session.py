"""Seed acceptance, fourth pass: the `ecc.session.v1` contract (seeds/000, in Chinese),
field by field, through the public API only.

The contract's required and optional fields (the example's every path) and its "validation
reference" (required object structure, required string fields, boolean runtime flags, string
arrays for outputs and seed paths, aggregate count consistency) are checked here for every
field, with the reference's exact first-error messages (spec README §6.1, ecc-session-v1.md §3).
Docstrings quote the contract in English translation.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import crs
from crs.sessions import build_aggregates, validate_canonical_snapshot

# The contract page's example ("规范快照"), verbatim.
SEED_EXAMPLE: dict[str, Any] = json.loads(
    '{"schemaVersion": "ecc.session.v1", "adapterId": "dmux-tmux", "session": {'
    '"id": "workflow-visual-proof", "kind": "orchestrated", "state": "active", '
    '"repoRoot": "/tmp/repo", "sourceTarget": {"type": "session", '
    '"value": "workflow-visual-proof"}}, "workers": [{"id": "seed-check", '
    '"label": "seed-check", "state": "running", "health": "healthy", '
    '"branch": "feature/seed-check", "worktree": "/tmp/worktree", "runtime": {'
    '"kind": "tmux-pane", "command": "codex", "pid": 1234, "active": false, "dead": false}, '
    '"intent": {"objective": "Inspect seeded files.", '
    '"seedPaths": ["scripts/orchestrate-worktrees.js"]}, '
    '"outputs": {"summary": [], "validation": [], "remainingRisks": []}, '
    '"artifacts": {"statusFile": "/tmp/status.md", "taskFile": "/tmp/task.md", '
    '"handoffFile": "/tmp/handoff.md"}}], "aggregates": {"workerCount": 1, '
    '"states": {"running": 1}, "healths": {"healthy": 1}}}'
)

PREFIX = "Canonical session snapshot requires "


def example() -> dict[str, Any]:
    return copy.deepcopy(SEED_EXAMPLE)


def _set(doc: dict[str, Any], path: str, value: Any) -> None:
    keys = path.replace("[0]", ".0").replace("[1]", ".1").split(".")
    node: Any = doc
    for k in keys[:-1]:
        node = node[int(k)] if k.isdigit() else node[k]
    last = keys[-1]
    node[int(last) if last.isdigit() else last] = value


def _message(doc: Any, strict: bool = False) -> str:
    with pytest.raises(crs.ContractError) as info:
        validate_canonical_snapshot(doc, strict=strict)
    return str(info.value)


# Every required field of the example, by the type the reference enforces.
NON_EMPTY_STRINGS = [
    "adapterId",
    "session.id",
    "session.kind",
    "session.state",
    "session.sourceTarget.type",
    "session.sourceTarget.value",
    "workers[0].id",
    "workers[0].label",
    "workers[0].state",
    "workers[0].health",
    "workers[0].runtime.kind",
    "workers[0].intent.objective",
]
OBJECTS = [
    "session",
    "session.sourceTarget",
    "workers[0]",
    "workers[0].runtime",
    "workers[0].intent",
    "workers[0].outputs",
    "workers[0].artifacts",
    "aggregates",
    "aggregates.states",
    "aggregates.healths",
]
BOOLEANS = ["workers[0].runtime.active", "workers[0].runtime.dead"]
STRING_ARRAYS = [
    "workers[0].intent.seedPaths",
    "workers[0].outputs.summary",
    "workers[0].outputs.validation",
    "workers[0].outputs.remainingRisks",
]
STRING_OR_NULL = [
    "session.repoRoot",
    "workers[0].branch",
    "workers[0].worktree",
    "workers[0].runtime.command",
]


@pytest.mark.parametrize("path", NON_EMPTY_STRINGS)
@pytest.mark.parametrize("bad", ["", 0, 1, True, None, [], {}, ["x"]])
def test_every_required_string_field_must_be_a_non_empty_string(path: str, bad: Any) -> None:
    """Validation reference: "required string fields"; rule 2 "return a snapshot that
    satisfies all required fields and types": every required string of the example refuses
    an empty string and any non-string, naming the field."""
    doc = example()
    _set(doc, path, bad)
    assert _message(doc) == f"{PREFIX}{path} to be a non-empty string"


@pytest.mark.parametrize("path", NON_EMPTY_STRINGS)
@pytest.mark.parametrize("good", [" ", "x", "未知", "a" * 10_000])
def test_every_required_string_field_takes_any_non_empty_string(path: str, good: str) -> None:
    """States and kinds "flexible enough to support several execution frameworks":
    a required string field takes any non-empty string (the reference does not trim)."""
    doc = example()
    _set(doc, path, good)
    if path == "workers[0].state":
        doc["aggregates"]["states"] = {good: 1}
    if path == "workers[0].health":
        doc["aggregates"]["healths"] = {good: 1}
    assert validate_canonical_snapshot(doc) == doc


@pytest.mark.parametrize("path", OBJECTS)
@pytest.mark.parametrize("bad", [None, [], "x", 0, True, [{}]])
def test_every_required_object_must_be_an_object(path: str, bad: Any) -> None:
    """Validation reference: "required object structure": session, sourceTarget, each
    worker, its runtime / intent / outputs / artifacts, aggregates and its states / healths
    are objects (null and arrays are not), named in the message."""
    doc = example()
    _set(doc, path, bad)
    assert _message(doc) == f"{PREFIX}{path} to be an object"


@pytest.mark.parametrize("bad", [None, {}, "x", 1, {"0": {}}])
def test_workers_must_be_an_array(bad: Any) -> None:
    """`workers[]` is required and a list: anything else is refused."""
    doc = example()
    doc["workers"] = bad
    assert _message(doc) == f"{PREFIX}workers to be an array"


@pytest.mark.parametrize("path", BOOLEANS)
@pytest.mark.parametrize("bad", [0, 1, "false", "true", None, [], {}])
def test_runtime_flags_must_be_booleans(path: str, bad: Any) -> None:
    """Validation reference: "boolean runtime flags": runtime.active / runtime.dead are
    true or false, never a truthy stand-in."""
    doc = example()
    _set(doc, path, bad)
    assert _message(doc) == f"{PREFIX}{path} to be a boolean"


@pytest.mark.parametrize("path", BOOLEANS)
def test_runtime_flags_take_both_booleans(path: str) -> None:
    """Both values of a runtime flag are valid."""
    for value in (True, False):
        doc = example()
        _set(doc, path, value)
        validate_canonical_snapshot(doc)


@pytest.mark.parametrize("path", STRING_ARRAYS)
@pytest.mark.parametrize("bad", ["x", None, {}, [1], ["a", None], [["a"]], 0])
def test_outputs_and_seed_paths_must_be_string_arrays(path: str, bad: Any) -> None:
    """Validation reference: "string arrays for outputs and seed paths": intent.seedPaths,
    outputs.summary / validation / remainingRisks are lists of strings."""
    doc = example()
    _set(doc, path, bad)
    assert _message(doc) == f"{PREFIX}{path} to be an array of strings"


@pytest.mark.parametrize("path", STRING_ARRAYS)
@pytest.mark.parametrize("good", [[], [""], ["a", "b"], ["x"] * 100])
def test_string_arrays_may_be_empty(path: str, good: list[str]) -> None:
    """Rule 3: "use empty arrays for unknown list values": an empty list is valid, and so is
    any list of strings."""
    doc = example()
    _set(doc, path, good)
    validate_canonical_snapshot(doc)


@pytest.mark.parametrize("path", STRING_OR_NULL)
@pytest.mark.parametrize("bad", [0, True, [], {}, ["x"]])
def test_optional_scalars_keep_their_type(path: str, bad: Any) -> None:
    """Optional fields "may be omitted, but if emitted they must keep the documented type"
    (string | null): any other type is refused, naming the field."""
    doc = example()
    _set(doc, path, bad)
    assert _message(doc) == f"{PREFIX}{path} to be a string or null"


@pytest.mark.parametrize("path", STRING_OR_NULL)
def test_optional_scalars_take_null_and_any_string(path: str) -> None:
    """Rule 3: "use null for unknown optional scalar values"; an empty string is a string."""
    for value in (None, "", "x"):
        doc = example()
        _set(doc, path, value)
        validate_canonical_snapshot(doc, strict=True)


@pytest.mark.parametrize("pid", [None, 0, -1, "1234", 1.5, True, [], {}])
def test_runtime_pid_is_not_checked(pid: Any) -> None:
    """`runtime.pid` (number | null) is optional and the reference does not check it: a
    snapshot with any pid validates in the reference mode."""
    doc = example()
    doc["workers"][0]["runtime"]["pid"] = pid
    validate_canonical_snapshot(doc)


@pytest.mark.parametrize("bad", [-1, True, False, "1", 1.5, None, [], {}])
def test_worker_count_must_be_a_non_negative_integer(bad: Any) -> None:
    """aggregates.workerCount is a non-negative integer (booleans and numeric strings are
    not, spec §6.1)."""
    doc = example()
    doc["aggregates"]["workerCount"] = bad
    assert _message(doc) == f"{PREFIX}aggregates.workerCount to be a non-negative integer"


@pytest.mark.parametrize("table", ["states", "healths"])
@pytest.mark.parametrize("bad", [-1, True, "1", 1.5, None, [], {}])
def test_aggregate_counts_must_be_non_negative_integers(table: str, bad: Any) -> None:
    """Validation reference: "aggregate count consistency": every value of
    aggregates.states / aggregates.healths is a count, named by its key."""
    doc = example()
    key = next(iter(doc["aggregates"][table]))
    doc["aggregates"][table][key] = bad
    assert _message(doc) == f"{PREFIX}aggregates.{table}.{key} to be a non-negative integer"


@pytest.mark.parametrize("table", ["states", "healths"])
def test_aggregate_keys_must_be_non_empty(table: str) -> None:
    """A state / health key is a non-empty string."""
    doc = example()
    doc["aggregates"][table][""] = 0
    assert _message(doc) == f"{PREFIX}aggregates.{table} key to be a non-empty string"


@pytest.mark.parametrize("count", [0, 2, 10])
def test_worker_count_must_equal_the_number_of_workers(count: int) -> None:
    """Rule 5: "ensure aggregates.workerCount === workers.length"."""
    doc = example()
    doc["aggregates"]["workerCount"] = count
    assert _message(doc) == f"{PREFIX}aggregates.workerCount to match workers.length"


@pytest.mark.parametrize("root", [None, [], "ecc.session.v1", 1, True])
def test_a_snapshot_must_be_an_object(root: Any) -> None:
    """ "Every adapter must return a JSON-serialisable object": anything else is refused."""
    assert _message(root) == "Canonical session snapshot must be an object"


@pytest.mark.parametrize("bad", ["", None, 1, ["ecc.session.v1"]])
def test_schema_version_must_be_a_non_empty_string_before_it_is_compared(bad: Any) -> None:
    """Rule 1 "emit exactly schemaVersion: ecc.session.v1": a missing or non-string version
    is a type error; a string of another version is unsupported."""
    doc = example()
    doc["schemaVersion"] = bad
    assert _message(doc) == f"{PREFIX}schemaVersion to be a non-empty string"
    doc["schemaVersion"] = "ecc.session.v0"
    assert _message(doc) == "Unsupported canonical session schema version: ecc.session.v0"


def test_the_second_worker_is_named_by_its_index() -> None:
    """Each worker is checked, in order, and named `workers[<i>]...`."""
    doc = example()
    second = copy.deepcopy(doc["workers"][0])
    second["id"] = "second"
    doc["workers"].append(second)
    doc["aggregates"] = build_aggregates(doc["workers"])
    validate_canonical_snapshot(doc, strict=True)
    doc["workers"][1]["runtime"]["kind"] = ""
    assert _message(doc) == f"{PREFIX}workers[1].runtime.kind to be a non-empty string"
    doc["workers"][0]["label"] = 7
    assert _message(doc) == f"{PREFIX}workers[0].label to be a non-empty string"


def test_the_first_violation_in_check_order_is_the_message() -> None:
    """The reference stops at its first failing check (spec §6.1, order of ecc-session-v1.md
    §3): top level before session, session before workers, workers before aggregates; the
    states and healths objects before any of their entries; `errors()` lists them all."""
    doc = example()
    doc["aggregates"]["workerCount"] = -1
    doc["workers"][0]["runtime"]["dead"] = "no"
    doc["session"]["sourceTarget"]["value"] = ""
    doc["adapterId"] = ""
    error = None
    try:
        validate_canonical_snapshot(doc)
    except crs.ContractError as exc:
        error = exc
    assert error is not None
    assert str(error) == f"{PREFIX}adapterId to be a non-empty string"
    assert len(error.errors()) >= 4
    doc = example()
    doc["aggregates"]["states"]["running"] = -1
    doc["aggregates"]["healths"] = []
    assert _message(doc) == f"{PREFIX}aggregates.healths to be an object"


def test_integer_like_aggregate_keys_are_visited_first() -> None:
    """Entries are visited in JSON-object (JavaScript) property order: integer-like keys in
    ascending order, then the others as inserted, so the first bad entry named is `7`."""
    doc = example()
    doc["aggregates"]["states"] = {"running": 1, "zeta": -1, "7": -1}
    assert _message(doc) == f"{PREFIX}aggregates.states.7 to be a non-negative integer"


def test_build_aggregates_uses_unknown_for_missing_state_and_health() -> None:
    """Rules 6-7 (aggregates match the emitted workers): `states[w.state || "unknown"]`,
    keys in first-seen order; zero workers give `{workerCount: 0, states: {}, healths: {}}`."""
    assert build_aggregates([]) == {"workerCount": 0, "states": {}, "healths": {}}
    workers = [
        {"state": "running", "health": "healthy"},
        {"state": "", "health": "stale"},
        {"state": "running", "health": ""},
    ]
    agg = build_aggregates(workers)
    assert agg == {
        "workerCount": 3,
        "states": {"running": 2, "unknown": 1},
        "healths": {"healthy": 1, "stale": 1, "unknown": 1},
    }
    assert list(agg["states"]) == ["running", "unknown"]


def test_a_valid_snapshot_is_returned_unchanged_and_json_serialisable() -> None:
    """The validator "returns the same object when valid"; rule 8 "only JSON-serialisable
    plain values": the example survives a JSON round trip unchanged."""
    doc = example()
    assert validate_canonical_snapshot(doc) is doc
    assert json.loads(json.dumps(doc)) == SEED_EXAMPLE
