"""Serializer: summary/full export, limits and warnings, import of our and Go's JSON, loading
into a CRS, the `crs export` / `crs import` commands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import crs
from crs import SignalSource as S

# An export in the shape the Go CRS writes (json tags, RFC 3339 times with nanoseconds and
# offsets, null slices, omitted empty fields).
GO_EXPORT = {
    "session_id": "go-session",
    "generation": 12,
    "timestamp": 1760000000000,
    "indexes": {
        "proof": {
            "entries": [
                {
                    "node_id": "session:s:tool:Grep",
                    "proof": 18446744073709551615,
                    "disproof": 10,
                    "status": "disproven",
                    "source": "hard",
                    "updated_at": "2026-02-13T10:20:30.123456789-08:00",
                },
                {
                    "node_id": "n2",
                    "proof": 0,
                    "disproof": 0,
                    "status": "proven",
                    "source": "soft",
                    "updated_at": "0001-01-01T00:00:00Z",
                },
            ]
        },
        "constraint": {
            "constraints": [
                {
                    "id": "c1",
                    "type": "mutual_exclusion",
                    "nodes": None,
                    "active": True,
                    "source": "hard",
                    "created_at": "2026-02-13T18:20:30Z",
                }
            ]
        },
        "similarity": {
            "pair_count": 2,
            "pairs": [
                {"from_id": "Grep:foo", "to_id": "Grep:foo bar", "similarity": 0.25},
                {"from_id": "a", "to_id": "b", "similarity": 1.0},
            ],
        },
        "dependency": {
            "edge_count": 1,
            "edges": [{"from_id": "x", "to_id": "y"}],
            "source": "legacy",
        },
        "history": {
            "entry_count": 1,
            "recent_entries": [
                {
                    "id": "h1",
                    "node_id": "n2",
                    "action": "prove",
                    "result": "ok",
                    "source": "soft",
                    "timestamp": 1760000000001,
                }
            ],
        },
        "streaming": {"cardinality": 3, "approximate_bytes": 96},
    },
    "summary": {
        "nodes_explored": 2,
        "nodes_proven": 1,
        "nodes_disproven": 1,
        "nodes_unknown": 0,
        "constraints_applied": 1,
        "exploration_depth": 1,
        "confidence_score": 0.5,
    },
}


def _filled() -> crs.CRS:
    c = crs.CRS()
    c.apply(
        crs.CompositeDelta(
            crs.ProofDelta(
                S.HARD,
                {
                    "a": crs.ProofNumber(proof=1, status=crs.ProofStatus.PROVEN, updated_at=1234),
                    "b": crs.ProofNumber(proof=2, disproof=3, source=S.SOFT, updated_at=5),
                },
            ),
            crs.ConstraintDelta(S.HARD, add=[crs.Constraint(id="k", nodes=("a",), created_at=9)]),
            crs.SimilarityDelta(S.SOFT, {("b", "a"): 2.5, ("a", "c"): 0.0}),
            crs.DependencyDelta(S.HARD, add_edges=[("a", "b"), ("c", "b")]),
            crs.HistoryDelta(S.SOFT, [crs.HistoryEntry(id="h", node_id="a", metadata={"m": "1"})]),
        )
    )
    return c


def test_full_round_trip_through_json() -> None:
    c = _filled()
    ser = crs.Serializer()
    res = ser.export_full(c.snapshot(), "sid")
    assert not res.truncated
    assert res.export is not None
    text = json.dumps(res.export.to_dict())
    imported = ser.import_(json.loads(text))
    assert imported.similarity_data == {"a": {"b": 2.5, "c": 0.0}}  # distances > 1 kept
    c2 = crs.CRS()
    gen = imported.load_into(c2)
    assert gen == c2.generation() == 1
    s1, s2 = c.snapshot(), c2.snapshot()
    assert s2.proof_index().all() == s1.proof_index().all()
    assert s2.constraint_index().all() == s1.constraint_index().all()
    assert s2.similarity_index().all_pairs() == s1.similarity_index().all_pairs()
    assert s2.dependency_index().all_edges() == s1.dependency_index().all_edges()
    assert s2.history_index().recent(10) == s1.history_index().recent(10)


def test_summary_and_limits() -> None:
    c = _filled()
    ser = crs.Serializer()
    summary = ser.compute_summary(c.snapshot())
    assert summary == crs.ReasoningSummary(
        nodes_explored=2,
        nodes_proven=1,
        nodes_unknown=1,
        constraints_applied=0,  # the seed: "the number of active constraints"; "k" is inactive
        exploration_depth=1,
        confidence_score=0.5,
    )
    assert ser.export_summary_only(None) == crs.ReasoningSummary()
    light = ser.export(c.snapshot(), "s").to_dict()
    assert light["indexes"]["similarity"] == {"pair_count": 2}
    assert light["indexes"]["dependency"] == {"edge_count": 2}
    res = ser.export_full(
        c.snapshot(), "s", crs.ExportOptions(max_similarity_pairs=1, max_dependency_edges=1)
    )
    assert res.truncated
    assert res.warnings == (
        "similarity pairs truncated to 1",
        "dependency edges truncated to 1",
    )
    assert res.export is not None
    assert res.export.indexes.similarity.truncated
    # a truncated export still imports (count checks are skipped for truncated indexes)
    assert len(ser.import_(res.export).similarity_data) == 1
    # the seed: ExportFull's error is "Non-nil if ... snapshot is nil" (export(None) is empty)
    with pytest.raises(crs.InvalidArgumentError, match="snapshot"):
        ser.export_full(None, "s")  # type: ignore[arg-type]
    assert ser.export(None, "s").session_id == "s"


def test_go_export_loads() -> None:
    ser = crs.Serializer()
    st = ser.import_(GO_EXPORT)
    grep = st.proof_data["session:s:tool:Grep"]
    assert grep.status == crs.ProofStatus.DISPROVEN
    assert grep.proof == crs.PROOF_NUMBER_INFINITE
    assert grep.updated_at == 1771006830123  # 18:20:30.123 UTC
    assert st.proof_data["n2"].updated_at == 0
    assert st.constraint_data["c1"].type == crs.ConstraintType.MUTUAL_EXCLUSION
    assert st.constraint_data["c1"].nodes == ()
    assert st.dependency_forward == {"x": {"y"}}
    assert st.dependency_reverse == {"y": {"x"}}
    assert st.history_data[0].source == S.SOFT
    c = crs.CRS()
    st.load_into(c)
    q = c.snapshot().query()
    assert q.find_disproven_nodes() == ["session:s:tool:Grep"]
    assert c.snapshot().similarity_index().distance("Grep:foo bar", "Grep:foo") == 0.25


def test_import_rejects_bad_exports() -> None:
    ser = crs.Serializer()
    dup = json.loads(json.dumps(GO_EXPORT))
    dup["indexes"]["dependency"]["edges"].append({"from_id": "x", "to_id": "y"})
    with pytest.raises(crs.InvalidArgumentError, match="dependency count mismatch"):
        ser.import_(dup)
    assert ser.import_(dup, crs.ImportOptions(strict_validation=False)).dependency_forward
    bad = json.loads(json.dumps(GO_EXPORT))
    bad["indexes"]["similarity"]["pairs"][0]["similarity"] = -0.5
    with pytest.raises(crs.InvalidArgumentError, match=">= 0"):
        ser.import_(bad)
    with pytest.raises(crs.InvalidArgumentError, match="export"):
        ser.import_("nope")  # type: ignore[arg-type]
    with pytest.raises(crs.InvalidArgumentError, match="opts"):
        ser.export_full(crs.CRS().snapshot(), "s", {"max": 1})  # type: ignore[arg-type]


def test_cli_import_and_export(tmp_path: Path) -> None:
    src = tmp_path / "export.json"
    src.write_text(json.dumps(GO_EXPORT))
    out = subprocess.run(
        [sys.executable, "-m", "crs", "import", str(src)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["similarity_pairs"] == 2
    dest = tmp_path / "normalised.json"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "crs",
            "export",
            str(src),
            "--out",
            str(dest),
            "--max-similarity-pairs",
            "1",
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert "similarity pairs truncated to 1" in out.stderr
    data = json.loads(dest.read_text())
    assert data["session_id"] == "go-session"
    assert data["indexes"]["similarity"]["truncated"] is True
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    out = subprocess.run(
        [sys.executable, "-m", "crs", "import", str(broken)], capture_output=True, text=True
    )
    assert out.returncode == 1
    assert "FILE" in out.stderr


def test_crs_export_json() -> None:
    c = _filled()
    c.set_session_id("s9")
    data = json.loads(c.export_json())
    assert data["session_id"] == "s9"
    assert data["generation"] == 1
    loaded = crs.CRS()
    crs.Serializer().import_(data).load_into(loaded)
    assert loaded.snapshot().proof_index().all() == c.snapshot().proof_index().all()
