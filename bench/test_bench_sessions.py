"""Benchmarks of crs.sessions, each beside what a user would otherwise pick on the same data.

- Validating 10,000 `ecc.session.v1` snapshots of 8 workers (target: >= 20k snapshots/s), beside
  a JSON Schema of the same contract run by fastjsonschema (compiled) and jsonschema.
- Inspecting a 20-worker dmux session on a real tmux server (target: <= 50 ms), beside the bare
  `tmux list-panes` call it must make anyway.

When benchmarks are disabled (`make test`), each runs once on small data as a smoke test.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fastjsonschema
import jsonschema
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "helpers"))
from _sessions_tmux import TmuxServer
from crs.sessions import (
    DmuxTmuxAdapter,
    SessionContext,
    build_aggregates,
    validate_canonical_snapshot,
)

N_SNAPSHOTS = 10_000
N_WORKERS = 8
N_DMUX_WORKERS = 20

_STR = {"type": "string", "minLength": 1}
_OPT = {"type": ["string", "null"]}
_STRS = {"type": "array", "items": {"type": "string"}}
_COUNTS = {
    "type": "object",
    "propertyNames": {"minLength": 1},
    "additionalProperties": {"type": "integer", "minimum": 0},
}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["schemaVersion", "adapterId", "session", "workers", "aggregates"],
    "properties": {
        "schemaVersion": {"const": "ecc.session.v1"},
        "adapterId": _STR,
        "session": {
            "type": "object",
            "required": ["id", "kind", "state", "sourceTarget"],
            "properties": {
                "id": _STR,
                "kind": _STR,
                "state": _STR,
                "repoRoot": _OPT,
                "sourceTarget": {
                    "type": "object",
                    "required": ["type", "value"],
                    "properties": {"type": _STR, "value": _STR},
                },
            },
        },
        "workers": {
            "type": "array",
            "items": {
                "type": "object",
                "required": [
                    "id",
                    "label",
                    "state",
                    "health",
                    "runtime",
                    "intent",
                    "outputs",
                    "artifacts",
                ],
                "properties": {
                    "id": _STR,
                    "label": _STR,
                    "state": _STR,
                    "health": _STR,
                    "branch": _OPT,
                    "worktree": _OPT,
                    "runtime": {
                        "type": "object",
                        "required": ["kind", "active", "dead"],
                        "properties": {
                            "kind": _STR,
                            "command": _OPT,
                            "active": {"type": "boolean"},
                            "dead": {"type": "boolean"},
                        },
                    },
                    "intent": {
                        "type": "object",
                        "required": ["objective", "seedPaths"],
                        "properties": {"objective": _STR, "seedPaths": _STRS},
                    },
                    "outputs": {
                        "type": "object",
                        "required": ["summary", "validation", "remainingRisks"],
                        "properties": {
                            "summary": _STRS,
                            "validation": _STRS,
                            "remainingRisks": _STRS,
                        },
                    },
                    "artifacts": {"type": "object"},
                },
            },
        },
        "aggregates": {
            "type": "object",
            "required": ["workerCount", "states", "healths"],
            "properties": {
                "workerCount": {"type": "integer", "minimum": 0},
                "states": _COUNTS,
                "healths": _COUNTS,
            },
        },
    },
}


def make_snapshot(i: int) -> Any:
    workers = [
        {
            "id": f"worker-{i}-{w}",
            "label": f"worker-{w}",
            "state": ("running", "completed", "failed")[w % 3],
            "health": ("healthy", "stale")[w % 2],
            "branch": f"orch-{w}",
            "worktree": f"/repo/.worktrees/{w}",
            "runtime": {
                "kind": "tmux-pane",
                "command": "codex",
                "pid": 1000 + w,
                "active": w == 0,
                "dead": False,
            },
            "intent": {"objective": "Inspect seeded files.", "seedPaths": ["a.js", "b.md"]},
            "outputs": {
                "summary": ["did a", "did b"],
                "validation": ["pytest -q"],
                "remainingRisks": [],
            },
            "artifacts": {
                "statusFile": f"/c/{w}/status.md",
                "taskFile": f"/c/{w}/task.md",
                "handoffFile": f"/c/{w}/handoff.md",
            },
        }
        for w in range(N_WORKERS)
    ]
    return {
        "schemaVersion": "ecc.session.v1",
        "adapterId": "dmux-tmux",
        "session": {
            "id": f"s{i}",
            "kind": "orchestrated",
            "state": "active",
            "repoRoot": "/repo",
            "sourceTarget": {"type": "session", "value": f"s{i}"},
        },
        "workers": workers,
        "aggregates": build_aggregates(workers),
    }


@functools.cache
def snapshots(n: int) -> list[Any]:
    return [make_snapshot(i) for i in range(n)]


def data(benchmark: Any) -> list[Any]:
    return snapshots(200 if benchmark.disabled else N_SNAPSHOTS)


def run_validation(benchmark: Any, validate: Any) -> None:
    items = data(benchmark)

    def run() -> int:
        for s in items:
            validate(s)
        return len(items)

    assert benchmark.pedantic(run, rounds=1 if benchmark.disabled else 5, iterations=1) == len(
        items
    )


def test_bench_validate_10k_snapshots_crs(benchmark: Any) -> None:
    run_validation(benchmark, validate_canonical_snapshot)


def test_bench_validate_10k_snapshots_fastjsonschema(benchmark: Any) -> None:
    run_validation(benchmark, fastjsonschema.compile(SCHEMA))


def test_bench_validate_10k_snapshots_jsonschema(benchmark: Any) -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    run_validation(benchmark, validator.validate)


def test_schema_agrees_with_the_validator_on_the_benchmark_data() -> None:
    # The comparison is fair only if the schema accepts what crs accepts here.
    bad = make_snapshot(0)
    bad["workers"][3]["runtime"]["dead"] = "no"
    for validate in (
        fastjsonschema.compile(SCHEMA),
        jsonschema.Draft202012Validator(SCHEMA).validate,
    ):
        validate(make_snapshot(1))
        with pytest.raises(
            (fastjsonschema.JsonSchemaValueException, jsonschema.ValidationError),
            match=r"dead|boolean",
        ):
            validate(bad)


@pytest.fixture(scope="module")
def dmux_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TmuxServer, Path]]:
    server = TmuxServer()
    repo = tmp_path_factory.mktemp("dmux-bench")
    coord = repo / ".claude" / "orchestration" / "bench"
    try:
        first = server.new_session("bench")
        for w in range(N_DMUX_WORKERS):
            slug = f"worker-{w:02d}"
            if w == 0:
                server.title(first, slug)
            else:
                server.add_worker_pane("bench", slug)
            d = coord / slug
            d.mkdir(parents=True)
            (d / "status.md").write_text(
                f"# Status\n\n- State: running\n- Updated: 2026-11-30T12:00:00Z\n"
                f"- Branch: orch-{w}\n- Worktree: `/repo/.worktrees/{w}`\n"
            )
            (d / "task.md").write_text(
                f"# Worker Task: {slug}\n\n## Seeded Local Overlays\n- `a.js`\n\n"
                "## Objective\nInspect seeded files.\n\n## Completion\n- write handoff\n"
            )
            (d / "handoff.md").write_text(
                "# Handoff\n\n## Summary\n- did a\n\n## Validation\n- pytest\n\n"
                "## Remaining Risks\n- none\n"
            )
        yield server, repo
    finally:
        server.kill()


def test_bench_inspect_20_worker_dmux_session_crs(
    benchmark: Any, dmux_session: Any, tmp_path: Path
) -> None:
    server, repo = dmux_session
    opened = DmuxTmuxAdapter(tmux=server.prefix).open(
        "bench", SessionContext(cwd=repo, home=tmp_path / "crs")
    )
    snap = benchmark(opened.get_snapshot)
    assert snap["aggregates"]["workerCount"] == N_DMUX_WORKERS
    assert all(w["runtime"]["pid"] for w in snap["workers"])


def test_bench_inspect_20_worker_dmux_session_tmux_list_panes_only(
    benchmark: Any, dmux_session: Any
) -> None:
    server, _ = dmux_session

    def run() -> int:
        out = subprocess.run(
            [*server.prefix, "list-panes", "-s", "-t", "=bench:", "-F", "#{pane_title}"],
            capture_output=True,
            check=True,
            timeout=10,
            env=server.env,
        )
        return len(out.stdout.splitlines())

    assert benchmark(run) == N_DMUX_WORKERS
