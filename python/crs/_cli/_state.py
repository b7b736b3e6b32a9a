"""`crs export` / `crs import`: check and normalise `export.json` files (ours or the Go CRS's).

`crs import FILE` validates an export and prints what it holds; `crs export FILE` loads it
into a fresh CRS and writes a full export with the given limits (to stdout or `--out`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from crs._errors import CRSError


def _read(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise CRSError(f"FILE: cannot read an export from {path}: {err}") from None
    except RecursionError:
        raise CRSError(f"FILE: {path} nests JSON too deeply to be an export") from None
    if not isinstance(data, dict):
        raise CRSError(f"FILE: {path} does not hold a JSON object")
    return data


def _cmd_import(args: argparse.Namespace) -> int:
    # inside: start-up (every `crs` command builds this parser; only these two need the state)
    from crs._state._serializer import ImportOptions, Serializer

    try:
        state = Serializer().import_(
            _read(args.file), ImportOptions(strict_validation=not args.lenient)
        )
    except CRSError as err:
        print(f"crs import: {err}", file=sys.stderr)
        return 1
    counts = {
        "session_id": state.session_id,
        "generation": state.generation,
        "proof_entries": len(state.proof_data),
        "constraints": len(state.constraint_data),
        "similarity_pairs": sum(len(v) for v in state.similarity_data.values()),
        "dependency_edges": sum(len(v) for v in state.dependency_forward.values()),
        "history_entries": len(state.history_data),
    }
    print(json.dumps(counts, indent=2))
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    # inside: start-up, as in _cmd_import
    from crs._crs import CRS
    from crs._state._serializer import ExportOptions, ImportOptions, Serializer

    ser = Serializer()
    try:
        state = ser.import_(_read(args.file), ImportOptions(strict_validation=False))
        crs = CRS(max_similarity_pairs=0, max_history_entries=0)
        state.load_into(crs)
        result = ser.export_full(
            crs.snapshot(),
            args.session_id or state.session_id,
            ExportOptions(args.max_similarity_pairs, args.max_dependency_edges),
        )
    except CRSError as err:
        print(f"crs export: {err}", file=sys.stderr)
        return 1
    for w in result.warnings:
        print(f"crs export: warning: {w}", file=sys.stderr)
    assert result.export is not None
    text = json.dumps(result.export.to_dict(), indent=2)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


def register(sub: Any) -> None:
    """Add `export` and `import` to the `crs` subcommands."""
    imp = sub.add_parser("import", help="validate an export.json and show what it holds")
    imp.add_argument("file", metavar="FILE", help="export.json written by crs or the Go CRS")
    imp.add_argument("--lenient", action="store_true", help="accept count mismatches")
    imp.set_defaults(func=_cmd_import)
    exp = sub.add_parser("export", help="load an export.json and write a full, normalised export")
    exp.add_argument("file", metavar="FILE", help="export.json to load")
    exp.add_argument("--out", help="write here instead of stdout")
    exp.add_argument("--session-id", default="", help="session id of the new export")
    exp.add_argument("--max-similarity-pairs", type=int, default=0, help="0 = 100000, <0 = all")
    exp.add_argument("--max-dependency-edges", type=int, default=0, help="0 = 100000, <0 = all")
    exp.set_defaults(func=_cmd_export)
