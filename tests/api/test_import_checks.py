"""`crs import` refuses what it cannot load, naming the field; no input hangs (issue 11)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import crs
import crs.sessions
from crs import ImportOptions, Serializer
from crs.sessions import validate_canonical_snapshot

BASE: dict[str, Any] = {
    "session_id": "s",
    "generation": 1,
    "indexes": {
        "proof": {
            "entries": [
                {"node_id": "n", "proof": 1, "disproof": 1, "status": "expanded", "source": "hard"}
            ]
        }
    },
}


def _with(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    d = copy.deepcopy(BASE)
    at: Any = d
    for k in path[:-1]:
        at = at[k]
    at[path[-1]] = value
    return d


ENTRY = ("indexes", "proof", "entries", 0)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        (_with((*ENTRY, "proof"), 2**70), r"entries\[0\]\.proof: must be an int between 0"),
        (_with((*ENTRY, "proof"), -1), r"entries\[0\]\.proof: must be an int between 0"),
        (_with((*ENTRY, "disproof"), 1.5), r"entries\[0\]\.disproof: must be an int"),
        (_with((*ENTRY, "node_id"), 5), r"entries\[0\]\.node_id: must be a str"),
        (_with((*ENTRY, "status"), "zzz"), r"entries\[0\]\.status: must be a ProofStatus name"),
        (
            _with((*ENTRY, "updated_at"), 2**64),
            r"entries\[0\]\.updated_at: must be a str .* or an int between",
        ),
        (_with(("generation",), "1"), r"^export\.generation: must be an int"),
        (_with(("indexes", "proof", "entries"), 5), r"^export: not an export\.json layout"),
        (
            _with(
                ("indexes", "similarity"),
                {"pair_count": 5, "pairs": [{"from_id": "a", "to_id": "b", "similarity": 0.5}]},
            ),
            r"similarity\.pair_count: claims 5 pairs, the export holds 1",
        ),
        (
            _with(
                ("indexes", "dependency"),
                {"edge_count": 0, "edges": [{"from_id": "a", "to_id": "b"}]},
            ),
            r"dependency\.edge_count: claims 0 edges, the export holds 1",
        ),
        (
            _with(("summary",), {"nodes_explored": 7, "nodes_proven": 0}),
            r"summary\.nodes_explored: claims 7 nodes, the export holds 1",
        ),
        (
            _with(("indexes", "proof", "entries"), [BASE["indexes"]["proof"]["entries"][0]] * 2),
            r"entries\[1\]\.node_id: 'n' appears twice",
        ),
    ],
)
def test_import_refuses_values_it_cannot_load_naming_the_field(
    data: dict[str, Any], field: str
) -> None:
    with pytest.raises(crs.InvalidArgumentError, match=field):
        Serializer().import_(data, ImportOptions(strict_validation=True))


def test_an_export_of_ours_still_imports_strictly() -> None:
    c = crs.CRS()
    c.apply(crs.ProofDelta(crs.SignalSource.HARD, {"a": crs.ProofNumber(proof=3, disproof=4)}))
    c.record_similarity("a", "b", 0.25)
    ser = Serializer()
    result = ser.export_full(c.snapshot(), "s")
    assert result.export is not None
    state = ser.import_(json.loads(json.dumps(result.export.to_dict())))
    assert state.proof_data["a"].proof == 3


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crs", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("verb", ["import", "export", "session inspect"])
def test_cli_on_a_100k_deep_json_file_is_a_typed_error_without_traceback(
    tmp_path: Path, verb: str
) -> None:
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    res = _cli(tmp_path, *verb.split(), "deep.json")
    assert res.returncode != 0
    assert "Traceback" not in res.stderr
    assert "too deeply" in res.stderr


def test_cli_import_names_the_bad_field(tmp_path: Path) -> None:
    (tmp_path / "e.json").write_text(json.dumps(_with((*ENTRY, "proof"), 2**70)))
    res = _cli(tmp_path, "import", "e.json")
    assert res.returncode == 1
    assert "export.indexes.proof.entries[0].proof: must be an int between 0 and 2**64-1" in (
        res.stderr
    )
    assert "Traceback" not in res.stderr


# ---------------------------------------------------------------- hangs


def _snapshot() -> Any:
    w: Any = {
        "id": "w1",
        "label": "w1",
        "state": "running",
        "health": "healthy",
        "branch": "b",
        "worktree": "/tmp/w",
        "runtime": {"kind": "tmux-pane", "command": "x", "pid": 1, "active": True, "dead": False},
        "intent": {"objective": "o", "seedPaths": []},
        "outputs": {"summary": [], "validation": [], "remainingRisks": []},
        "artifacts": {},
    }
    return {
        "schemaVersion": "ecc.session.v1",
        "adapterId": "dmux-tmux",
        "session": {
            "id": "s",
            "kind": "orchestrated",
            "state": "active",
            "repoRoot": "/tmp/repo",
            "sourceTarget": {"type": "session", "value": "s"},
        },
        "workers": [w],
        "aggregates": crs.sessions.build_aggregates([w]),
    }


@pytest.mark.timeout(30)
def test_strict_validation_of_a_cyclic_snapshot_ends() -> None:
    s = _snapshot()
    s["workers"][0]["artifacts"]["self"] = s  # a cycle
    with pytest.raises(crs.ContractError, match="plain JSON"):
        validate_canonical_snapshot(s, strict=True)
    shared: list[Any] = [1, 2]
    t = _snapshot()
    t["workers"][0]["artifacts"]["a"] = shared  # shared, not cyclic: plain JSON
    t["workers"][0]["artifacts"]["b"] = shared
    assert validate_canonical_snapshot(t, strict=True) is t


@pytest.mark.timeout(30)
def test_sanitizer_refuses_a_single_string_as_extra_patterns() -> None:
    with pytest.raises(crs.InvalidArgumentError, match=r"^extra_patterns: must be a list"):
        crs.SecretSanitizer(extra_patterns="sk")
    s = crs.SecretSanitizer(extra_patterns=["zz[0-9]+"])
    assert s.sanitize("a zz123 b") == "a [REDACTED] b"
