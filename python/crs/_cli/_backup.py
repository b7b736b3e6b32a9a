"""`crs backup status|list|save|restore`: the command line of the persistence layer.

`status` reads (and with `--verify` fully checks) the backup of the project at PATH.
`save` loads the project's state (backup + journal tail) and saves a new backup
(`CRS.save_checkpoint_to_disk`, which also checkpoints the journal); `restore` runs
`SessionRestorer.try_restore` into a CRS on the project's journal and reports what it restored.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from crs._check import shown
from crs._crs import CRS
from crs._errors import CRSError, InvalidArgumentError
from crs._persistence._backup_format import BackupMetadata
from crs._persistence._crs_persist import project_journal
from crs._persistence._manager import (
    BackupOptions,
    DefaultPersistenceConfig,
    PersistenceManager,
    read_index,
)
from crs._persistence._session_restore import (
    RestoreResult,
    SessionIdentifier,
    SessionRestorer,
    compute_project_hash,
)

EXIT_OK = 0
EXIT_NO_BACKUP = 1
EXIT_ERROR = 2


def register(subparsers: Any) -> None:
    """Add `backup status|list|save|restore` to the `crs` parser."""
    backup = subparsers.add_parser("backup", help="inspect, save and restore project backups")
    sub = backup.add_subparsers(dest="backup_command", metavar="ACTION", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("path", nargs="?", default=".", help="project directory (default: .)")
        p.add_argument("--home", help="data directory (default: $CRS_HOME, else ~/.crs)")
        p.add_argument("--json", action="store_true", help="print machine-readable JSON")

    status = sub.add_parser(
        "status",
        help="show the project's backup (exit 0: found, 1: none, 2: unusable)",
    )
    common(status)
    status.add_argument(
        "--verify", action="store_true", help="also read the backup and check its SHA-256"
    )
    status.set_defaults(func=_cmd_status)

    listing = sub.add_parser("list", help="list every project with a backup (from index.json)")
    listing.add_argument("--home", help="data directory (default: $CRS_HOME, else ~/.crs)")
    listing.add_argument("--json", action="store_true", help="print machine-readable JSON")
    listing.set_defaults(func=_cmd_list)

    save = sub.add_parser("save", help="back up the project's state now")
    common(save)
    save.add_argument("--session-id", default="", help="session recorded in the metadata")
    save.add_argument("--export", action="store_true", help="also write export.json")
    save.set_defaults(func=_cmd_save)

    restore = sub.add_parser("restore", help="restore the project's state from its backup")
    common(restore)
    restore.set_defaults(func=_cmd_restore)


def _manager(args: argparse.Namespace) -> PersistenceManager:
    cfg = DefaultPersistenceConfig()
    if args.home:
        cfg = replace(cfg, base_dir=str(Path(args.home).expanduser()))
    return PersistenceManager(cfg)


def _home(args: argparse.Namespace) -> Path:
    """The data directory the command reads (it may not exist: nothing is created to read)."""
    if args.home:
        return Path(args.home).expanduser()
    return Path(DefaultPersistenceConfig().base_dir).expanduser()


def _not_a_home(args: argparse.Namespace) -> InvalidArgumentError | None:
    """The error to answer with when the data directory is not one (a file, or under a file):
    reading it as an empty home would say "none" about a home that cannot hold anything."""
    home = _home(args)
    there = home
    while not there.exists() and there != there.parent:
        there = there.parent  # the nearest part of the path that exists
    if there.is_dir():
        return None
    what = "is not a directory" if there == home else f"is under {shown(str(there))}, a file"
    return InvalidArgumentError(
        f"home: the data directory {shown(str(home))} {what}; give --home or $CRS_HOME a directory"
    )


def _has_state(args: argparse.Namespace, key: str) -> bool:
    """Whether the project has a data directory in the home (anything ran there)."""
    return (_home(args) / key).is_dir()


def _fail(args: argparse.Namespace, exc: BaseException) -> int:
    if args.json:
        print(json.dumps({"error": type(exc).__name__, "message": str(exc)}))
    else:
        print(f"crs backup: {exc}", file=sys.stderr)
    return EXIT_ERROR


def _human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover - loop always returns


def _human_age(seconds: float) -> str:
    s = int(seconds)
    days, s = divmod(s, 86400)
    hours, s = divmod(s, 3600)
    minutes, s = divmod(s, 60)
    parts = [f"{days}d"] if days else []
    if days or hours:
        parts.append(f"{hours}h")
    if days or hours or minutes:
        parts.append(f"{minutes}m")
    parts.append(f"{s}s")
    return " ".join(parts)


def status_document(
    pm: PersistenceManager, project_path: str, verify: bool = False
) -> tuple[int, dict[str, Any]]:
    """The exit code and JSON document of `crs backup status` for a project."""
    key = compute_project_hash(project_path)
    doc: dict[str, Any] = {
        "project_path": str(Path(project_path).resolve()),
        "project_hash": key,
        "project_dir": str(pm.project_dir(key)),
        "has_backup": pm.has_backup(key),
    }
    if not doc["has_backup"]:
        return EXIT_NO_BACKUP, doc
    meta: BackupMetadata | None
    if verify:
        meta = pm.load_backup(key).metadata
        doc["verified"] = True
    else:
        meta = pm.get_backup_metadata(key)
    if meta is None:
        # a backup file whose size is not its metadata's (truncated, emptied): unusable, not
        # "none"; loading it raises the error that says which file and what to do (red team 5)
        meta = pm.load_backup(key).metadata
    doc["backup_path"] = str(pm.backup_path(key))
    doc["previous_backup"] = pm.prev_backup_path(key).exists()
    doc["metadata"] = meta.to_dict()
    doc["age_seconds"] = round(meta.age(), 3)
    doc["compression_ratio"] = round(meta.compression_ratio(), 4)
    return EXIT_OK, doc


def _print_status(doc: dict[str, Any]) -> None:
    rows: list[tuple[str, str]] = [
        ("Project path", doc["project_path"]),
        ("Project hash", doc["project_hash"]),
    ]
    if not doc["has_backup"]:
        rows.append(("Backup", f"none (looked in {doc['project_dir']})"))
    else:
        meta = doc["metadata"]
        created = _dt.datetime.fromtimestamp(meta["created_at"] / 1000, tz=_dt.UTC)
        rows += [
            ("Backup", doc["backup_path"]),
            ("Previous backup", "yes" if doc["previous_backup"] else "no"),
            ("Created at", created.isoformat(timespec="seconds")),
            ("Age", _human_age(doc["age_seconds"])),
            ("Generation", str(meta["generation"])),
            ("Journal position", str(meta["journal_position"])),
            ("Delta count", str(meta["delta_count"])),
            ("Session", shown(meta["session_id"]) or "-"),
            ("Compressed", _human_size(meta["compressed_size"])),
            ("Uncompressed", _human_size(meta["uncompressed_size"])),
            ("Ratio", f"{doc['compression_ratio'] * 100:.1f}%"),
            ("Content SHA-256", meta["content_hash"]),
            ("Format / schema", f"{meta['format_version']} / {meta['schema_version']}"),
        ]
        if meta["export_path"]:
            rows.append(("JSON export", meta["export_path"]))
        if doc.get("verified"):
            rows.append(("Verified", "content hash and checksums OK"))
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")


def _cmd_status(args: argparse.Namespace) -> int:
    bad = _not_a_home(args)
    if bad is not None:
        return _fail(args, bad)
    try:
        if not _home(args).is_dir():  # answered from nothing: a typo creates no home
            key = compute_project_hash(args.path)
            doc = {
                "project_path": str(Path(args.path).resolve()),
                "project_hash": key,
                "project_dir": str(_home(args) / key),
                "has_backup": False,
            }
            if args.json:
                print(json.dumps(doc, indent=2))
            else:
                _print_status(doc)
            return EXIT_NO_BACKUP
        with _manager(args) as pm:
            code, doc = status_document(pm, args.path, verify=args.verify)
    except CRSError as exc:
        return _fail(args, exc)
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        _print_status(doc)
    return code


def _cmd_list(args: argparse.Namespace) -> int:
    bad = _not_a_home(args)
    if bad is not None:
        return _fail(args, bad)
    if not _home(args).is_dir():  # answered from nothing: a typo creates no home
        print("[]" if args.json else f"no projects in {_home(args) / 'index.json'}")
        return EXIT_OK
    try:
        with _manager(args) as pm:
            projects = read_index(pm.index_path())["projects"]
    except CRSError as exc:
        return _fail(args, exc)
    rows = sorted(projects.values(), key=lambda p: -int(p.get("updated_at", 0)))
    if args.json:
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    if not rows:
        print(f"no projects in {pm.index_path()}")
        return EXIT_OK
    print(f"{'PROJECT HASH':<18}{'UPDATED (UTC)':<22}{'GENERATION':>12}{'SIZE':>12}  PATH")
    for p in rows:
        updated = _dt.datetime.fromtimestamp(int(p.get("updated_at", 0)) / 1000, tz=_dt.UTC)
        print(
            f"{p.get('project_hash', '?'):<18}{updated:%Y-%m-%d %H:%M:%S}   "
            f"{p.get('generation', 0):>11}{_human_size(int(p.get('compressed_size', 0))):>12}"
            f"  {shown(str(p.get('project_path') or '-'))}"
        )
    return EXIT_OK


def _open_project_state(pm: PersistenceManager, project_hash: str) -> CRS:
    """A CRS on the project's journal (`<home>/<project_hash>/journal`), nothing loaded yet.

    The CRS owns the journal (closing the CRS closes it and releases its lock).
    """
    journal = project_journal(pm, project_hash, "cli")
    try:
        state = CRS(journal=journal)
    except BaseException:
        journal.close()
        raise
    state._own(journal)
    return state


def _cmd_save(args: argparse.Namespace) -> int:
    bad = _not_a_home(args)
    if bad is not None:
        return _fail(args, bad)
    try:
        sid = SessionIdentifier(args.path)  # (checked before anything is created)
        key = sid.checkpoint_key()
        if not _has_state(args, key):
            print(
                f"crs backup: nothing to back up: no state of {sid.project_path} in "
                f"{_home(args)} (nothing ran there yet)",
                file=sys.stderr,
            )
            return EXIT_NO_BACKUP
        with _manager(args) as pm, _open_project_state(pm, key) as state:
            state.load_checkpoint_from_disk(pm, key)  # backup + journal tail
            meta = state.save_checkpoint_to_disk(
                pm,
                key,
                options=BackupOptions(
                    create_json_export=args.export,
                    session_id=args.session_id,
                    project_path=sid.project_path,
                    lock_file_hash=sid.project_hash,
                ),
            )
    except CRSError as exc:
        return _fail(args, exc)
    if args.json:
        print(json.dumps(meta.to_dict(), indent=2))
    else:
        print(
            f"saved backup of {sid.project_path} (generation {meta.generation}, journal "
            f"position {meta.journal_position}, {_human_size(meta.compressed_size)})"
        )
    return EXIT_OK


def _cmd_restore(args: argparse.Namespace) -> int:
    bad = _not_a_home(args)
    if bad is not None:
        return _fail(args, bad)
    try:
        sid = SessionIdentifier(args.path)  # (checked before anything is created)
        if not _has_state(args, sid.checkpoint_key()):  # no backup; a journal is not made
            result = RestoreResult(reason="no checkpoint found")
        else:
            with _manager(args) as pm, _open_project_state(pm, sid.checkpoint_key()) as state:
                result = SessionRestorer(pm).try_restore(state, state._journal, sid)
    except CRSError as exc:
        return _fail(args, exc)
    if args.json:
        print(json.dumps(asdict(result), indent=2))
    else:
        print(f"restored: {result.restored} ({result.reason})")
        if result.restored:
            print(
                f"generation {result.generation}, journal position {result.journal_position}, "
                f"{result.replayed_deltas} deltas replayed, "
                f"{result.modified_file_count} files modified since the checkpoint"
            )
    return EXIT_OK if result.restored else EXIT_NO_BACKUP
