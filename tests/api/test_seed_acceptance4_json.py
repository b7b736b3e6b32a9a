"""Seed acceptance, fourth pass: the JSON forms of the Go CRS page's records (seeds/001).

Every struct of the page with `json:"..."` tags, checked systematically: its dict form
(`to_dict()`) carries every tag that is not `omitempty` under the page's name, and a document
in Go's form, where the `omitempty` fields of an empty value are absent, reads back
(`from_dict`) as the same value. (Our dict forms also write the `omitempty` fields when empty;
readers accept both, docs/seed-acceptance.md "Fourth pass".)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import crs

# (type, tags that are always present, omitempty tags), read off the page.
TAGGED: list[tuple[str, list[str], list[str]]] = [
    (
        "AnalyticsQueryParams",
        [],
        ["limit", "from_symbol", "to_symbol", "target_symbol", "package_name"],
    ),
    (
        "AnalyticsRecord",
        ["id", "query_type", "query_time", "result_count", "execution_ms"],
        ["graph_generation", "params", "query_params", "results", "cycles", "path"],
    ),
    (
        "BackupMetadata",
        [
            "project_hash",
            "created_at",
            "badger_version",
            "content_hash",
            "uncompressed_size",
            "compressed_size",
            "generation",
            "delta_count",
            "schema_version",
        ],
        ["session_id", "export_path", "metadata_hash"],
    ),
    ("CRSExport", ["session_id", "generation", "timestamp", "indexes", "summary"], []),
    ("CircuitBreakerResult", ["should_fire"], ["reason", "proof_number", "status"]),
    (
        "Clause",
        ["id", "literals", "source", "learned_at", "failure_type", "use_count"],
        ["session_id", "last_used"],
    ),
    ("ClauseCheckResult", ["conflict"], ["violated_clause", "reason"]),
    ("ConstraintEntry", ["id", "type", "nodes", "active", "source", "created_at"], ["expression"]),
    ("ConstraintIndexExport", ["constraints"], []),
    ("ConstraintUpdate", ["id", "type", "nodes", "source"], []),
    (
        "CycleAnalysis",
        [
            "session_id",
            "total_sccs",
            "cyclic_sccs",
            "largest_scc_size",
            "analysis_time",
            "analysis_duration_ns",
        ],
        [],
    ),
    (
        "DeltaRecord",
        [
            "id",
            "generation",
            "timestamp",
            "delta_type",
            "delta_bytes",
            "source",
            "session_id",
            "affected_nodes",
        ],
        ["metadata"],
    ),
    ("DependencyEdge", ["from", "to", "source"], []),
    ("DependencyEdgeExport", ["from_id", "to_id"], []),
    ("DependencyIndexExport", ["edge_count"], ["edges", "source", "truncated"]),
    (
        "FailureEvent",
        ["session_id", "failure_type", "decision_path", "failed_step", "source"],
        ["error_message", "error_category", "tool"],
    ),
    ("GraphCommunity", ["id", "symbol_ids", "modularity"], []),
    ("GraphHotSpot", ["symbol_id", "name", "score", "in_degree", "out_degree"], []),
    (
        "HistoryEntryExport",
        ["id", "node_id", "action", "result", "source", "timestamp"],
        ["metadata"],
    ),
    ("HistoryIndexExport", ["entry_count"], ["recent_entries"]),
    (
        "IndexesExport",
        ["proof", "constraint", "similarity", "dependency", "history", "streaming"],
        [],
    ),
    ("KeyValue", ["key", "value"], []),
    ("Literal", ["variable", "negated"], []),
    ("ProofEntry", ["node_id", "proof", "disproof", "status", "source", "updated_at"], []),
    ("ProofIndexExport", ["entries"], []),
    ("ProofUpdate", ["node_id", "type", "source"], ["delta", "reason", "status"]),
    (
        "ReasoningSummary",
        [
            "nodes_explored",
            "nodes_proven",
            "nodes_disproven",
            "nodes_unknown",
            "constraints_applied",
            "exploration_depth",
            "confidence_score",
        ],
        [],
    ),
    (
        "ReasoningTrace",
        ["session_id", "total_steps", "total_duration", "trace"],
        ["start_time", "end_time"],
    ),
    (
        "RestoreResult",
        ["restored", "reason", "modified_file_count", "duration_ms"],
        ["checkpoint_id", "generation", "checkpoint_time", "checkpoint_age", "modified_files"],
    ),
    ("SessionIdentifier", ["project_path", "project_hash", "computed_at"], ["git_commit_hash"]),
    ("SimilarityIndexExport", ["pair_count"], ["pairs", "truncated"]),
    ("SimilarityPairExport", ["from_id", "to_id", "similarity"], []),
    (
        "StepRecord",
        [
            "step_number",
            "timestamp",
            "session_id",
            "actor",
            "decision",
            "outcome",
            "duration_ms",
            "propagate",
            "terminal",
        ],
        [
            "model",
            "tool",
            "tool_params",
            "confidence",
            "reasoning",
            "error_message",
            "error_category",
            "result_summary",
            "tokens_used",
            "next_hint",
            "proof_updates",
            "constraints_added",
            "dependencies_found",
        ],
    ),
    ("StreamDelta", ["type", "seq", "timestamp", "summary"], []),
    ("StreamingIndexExport", ["cardinality", "approximate_bytes"], []),
    ("ToolParams", [], ["target", "query", "depth", "limit", "flags", "extra"]),
    (
        "TraceStep",
        ["step", "timestamp", "action", "target", "duration_ms"],
        [
            "tool",
            "symbols_found",
            "proof_updates",
            "constraints_added",
            "dependencies_found",
            "error",
            "metadata",
        ],
    ),
]

# Records only written, never read from JSON by a user: a backup's metadata.json is read by
# the PersistenceManager (which verifies its hash), a StreamDelta goes out to SSE clients.
OUTPUT_ONLY = {"BackupMetadata", "StreamDelta"}
READABLE = [t for t in TAGGED if t[0] not in OUTPUT_ONLY]

# BackupMetadata's `badger_version` is replaced by `format_version` (spec README §5.14).
DROPPED = {("BackupMetadata", "badger_version")}


def _zero(name: str, tmp_path: Path) -> Any:
    cls = getattr(crs, name)
    if name == "SessionIdentifier":
        return cls(tmp_path)
    return cls()


@pytest.mark.parametrize(("name", "required", "optional"), TAGGED, ids=[t[0] for t in TAGGED])
def test_dict_form_has_every_required_json_tag(
    name: str, required: list[str], optional: list[str], tmp_path: Path
) -> None:
    """The page's JSON tags are the dict form's keys (spec README §2: fields are snake_case of
    the Go field, mostly equal to its JSON tag): a value's `to_dict()` has every tag that is
    not `omitempty`, and is plain JSON."""
    doc = _zero(name, tmp_path).to_dict()
    json.dumps(doc)
    for tag in required:
        if (name, tag) not in DROPPED:
            assert tag in doc, f"{name}.{tag}"


@pytest.mark.parametrize(("name", "required", "optional"), READABLE, ids=[t[0] for t in READABLE])
def test_go_json_without_empty_omitempty_fields_reads_back(
    name: str, required: list[str], optional: list[str], tmp_path: Path
) -> None:
    """`omitempty`: Go leaves an empty field out of the JSON; such a document reads back
    (`from_dict`) as the same value as the full dict form."""
    cls = getattr(crs, name)
    value = _zero(name, tmp_path)
    doc = value.to_dict()
    for tag in optional:
        doc.pop(tag, None)
    assert cls.from_dict(json.loads(json.dumps(doc))) == value
