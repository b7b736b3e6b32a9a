"""`crs guard status|learned|forget`: what a project's guard knows, and forgetting it.

All three open the project's durable guard (`Guard.open`, the same data directory as the
agent's: `--home`, else `$CRS_HOME`, else `~/.crs`; or, with `--nats URL [--stream S]`, the
project's NATS JetStream stream). `status` and `learned` change nothing;
`forget ID` journals the forgetting, so the agent's next session sees it.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import json
import os
import sys
import time
from typing import Any, TextIO

from crs._check import brief, shown
from crs._errors import CRSError, JournalCorruptedError, JournalError


def register(sub: Any) -> None:
    """Add `crs guard ...` to the `crs` command's subparsers."""
    guard = sub.add_parser("guard", help="what the tool-call guard knows about a project")
    gsub = guard.add_subparsers(dest="guard_command", metavar="ACTION")
    for name, help_text in (
        ("status", "sessions, their calls and loop state"),
        ("learned", "the failures the guard remembers (refused in an unchanged workspace)"),
        ("forget", "forget a learned failure by its id"),
    ):
        p = gsub.add_parser(name, help=help_text)
        p.add_argument("--project", default=".", help="the project directory (default: .)")
        p.add_argument("--home", help="data directory (default: $CRS_HOME, else ~/.crs)")
        p.add_argument("--json", action="store_true", help="print machine-readable JSON")
        p.add_argument(
            "--nats", metavar="URL", help="the project's guard is on this NATS server instead"
        )
        p.add_argument(
            "--stream", default="CRS_DELTAS", help="JetStream stream with --nats (CRS_DELTAS)"
        )
        p.add_argument(
            "--subject",
            default="",
            help="with --nats: the project's subject name, when the guards named it "
            "(NATSJournalConfig.session_id); default: the project directory's key",
        )
        if name == "status":
            p.add_argument("--session", help="only this session")
        if name == "forget":
            p.add_argument("id", help="the learned failure's id (see `crs guard learned`)")
        p.set_defaults(func=_run, guard_action=name)
    guard.set_defaults(func=lambda args: (guard.print_help(sys.stderr), 2)[1])


def _when(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ms / 1000)) if ms else "-"


def _cli_fp() -> str:
    return "cli"


def _run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    # inside: `crs --help` does not load the guard
    from crs.guard._guard import Guard

    out = sys.stdout if out is None else out
    if not (getattr(args, "nats", None) and args.subject) and not os.path.isdir(args.project):
        # a typo: opening it would create the project's state (status and learned change nothing)
        print(f"crs guard: no such directory: {args.project}", file=sys.stderr)
        return 1
    if not getattr(args, "nats", None) and _home_not_a_directory(args.home):
        print(
            f"crs guard: the data directory is not a directory: {shown(_home_of(args.home))}"
            " (give --home or $CRS_HOME a directory)",
            file=sys.stderr,
        )
        return 1
    if not getattr(args, "nats", None) and not _has_state(args.project, args.home):
        return _unguarded(args, out)  # never create a project's state to report on it
    try:
        if getattr(args, "nats", None):
            # inside: start-up (asyncio) and the optional nats-py, NATS only
            from crs._journal._nats_async import NATSJournalConfig

            # create_stream=False: a stream named wrong (`--stream TYPO`) was created, with
            # the subjects of every guard's stream, so no guard could create its own there
            # ("subjects overlap with an existing stream", red team 8)
            on = NATSJournalConfig(
                servers=args.nats,
                stream_name=args.stream,
                session_id=args.subject,
                create_stream=False,
            )
            g = Guard.open(args.project, "crs-cli", home=args.home, nats=on, fingerprint=_cli_fp)
        else:
            g = Guard.open(args.project, "crs-cli", home=args.home, fingerprint=_cli_fp)
    except CRSError as exc:
        if getattr(args, "nats", None) and _no_stream(exc):
            print(
                f"crs guard: no stream {brief(args.stream)} on {args.nats}: no guard on NATS "
                "has written there (check --stream and --nats; nothing was created)",
                file=sys.stderr,
            )
            return 1
        if not getattr(args, "nats", None) and isinstance(exc, JournalCorruptedError):
            print(_damaged(exc, args), file=sys.stderr)
            return 1
        if args.guard_action == "forget" or getattr(args, "nats", None) or not _read_only(exc):
            hint = " (forget writes the journal)" if _read_only(exc) else ""
            print(f"crs guard: cannot open the project's guard{hint}: {exc}", file=sys.stderr)
            return 1
        # a read-only home (a mounted copy, another user's data): status and learned
        # change nothing, so they read it through a replica, which takes no lock
        try:
            g, replica = _replica_guard(args.project, args.home)
        except CRSError as again:
            print(f"crs guard: cannot read the project's guard: {again}", file=sys.stderr)
            return 1
        try:
            with g:
                return (
                    _status(g, args, out)
                    if args.guard_action == "status"
                    else _learned(g, args, out)
                )
        finally:
            replica.close()
    with g:
        try:
            if args.guard_action == "status":
                return _status(g, args, out)
            if args.guard_action == "learned":
                return _learned(g, args, out)
            return _forget(g, args, out)
        except CRSError as exc:  # e.g. `crs guard forget ''`: one line, not a traceback
            print(f"crs guard {args.guard_action}: {exc}", file=sys.stderr)
            return 2


def _no_stream(exc: BaseException) -> bool:
    """Whether opening a guard on NATS failed because its stream does not exist."""
    import nats.js.errors  # inside: only after a NATS open failed (it is loaded by then)

    return isinstance(exc.__cause__, nats.js.errors.NotFoundError)


def _damaged(exc: BaseException, args: argparse.Namespace) -> str:
    """What to do about a project whose guard journal holds a damaged record: no guard opens
    it (a hook fails open: nothing is guarded in the project), and the error's own advice
    (`skip_corrupted_deltas=True`) is an option no `Guard.open` or command takes (rt12)."""
    from pathlib import Path

    from crs._persistence._load import compute_project_hash

    where = os.path.join(
        _home_of(args.home), compute_project_hash(str(Path(args.project).resolve())), "journal"
    )
    return (
        f"crs guard: cannot open the project's guard: its journal is damaged: {exc}\n"
        f"  No guard opens this project until it is repaired (hooks fail open: nothing is "
        f"guarded here). `crs journal verify --skip-corrupted {shown(where)}` shows what it "
        f"holds; `crs backup status {shown(args.project)}` whether a backup can restore it. "
        f"To start the project's guard memory afresh, move {shown(where)} aside (what the "
        "guard learned there is lost)."
    )


def _read_only(exc: BaseException) -> bool:
    """Whether opening failed because the data directory cannot be written."""
    cause = exc.__cause__
    return isinstance(cause, OSError) and cause.errno in (errno.EROFS, errno.EACCES, errno.EPERM)


def _replica_guard(project: str, home: str | None) -> tuple[Any, Any]:
    """A guard reading the project's state without writing anything (its backup, then its
    journal through a `ReadReplica`: read-only opens, no lock), and the replica to close."""
    from pathlib import Path

    from crs._journal._base import JournalConfig
    from crs._journal._local import LocalJournal
    from crs._persistence._load import compute_project_hash
    from crs._persistence._manager import DefaultPersistenceConfig, PersistenceManager
    from crs._replica import ReadReplica
    from crs._state._codec import DeltaCodec
    from crs.guard._guard import Guard

    key = compute_project_hash(str(Path(project).resolve()))
    base_dir = _home_of(home)
    journal = os.path.join(base_dir, key, "journal")
    with PersistenceManager(
        dataclasses.replace(DefaultPersistenceConfig(), base_dir=base_dir)
    ) as pm:
        image = pm.load_backup(key).image if pm.has_backup(key) else None
    config = JournalConfig(path=journal, session_id="cli", read_only=True)
    with LocalJournal(config, DeltaCodec()) as j:
        end = j.stats().last_seq_num
    replica = ReadReplica(journal, base=image, session_id="cli")
    try:
        if not replica.wait_for(end, timeout=10.0):
            raise JournalError(
                f"cannot read {journal} up to record {end}: {replica.error or 'timed out'}"
            )
        return Guard(fingerprint=_cli_fp, _crs=replica.crs, _owns=False), replica
    except BaseException:
        replica.close()
        raise


def _home_of(home: str | None) -> str:
    """The data directory the command reads: `--home`, else `$CRS_HOME`, else ~/.crs."""
    from pathlib import Path

    from crs._home import default_home

    return str(Path(home).expanduser() if home is not None else default_home())


def _home_not_a_directory(home: str | None) -> bool:
    """A data directory that exists as something else (a file): reading it finds nothing,
    and saying "nothing was guarded" would hide the mistake (red team 5)."""
    path = _home_of(home)
    return os.path.lexists(path) and not os.path.isdir(path)


def _has_state(project: str, home: str | None) -> bool:
    """Whether the project has something in the home (a guard ran there). Anything at the
    project's key counts, a file too: opening it then says what is wrong with it."""
    from pathlib import Path

    from crs._persistence._load import compute_project_hash

    key = compute_project_hash(str(Path(project).resolve()))
    return os.path.lexists(os.path.join(_home_of(home), key))


def _unguarded(args: argparse.Namespace, out: TextIO) -> int:
    """The answers for a project no guard has run in, without creating its state."""
    action = args.guard_action
    if action == "forget":
        print(
            f"crs guard forget: no learned failure {brief(args.id)} (nothing was guarded in "
            f"{args.project} yet)",
            file=sys.stderr,
        )
        return 1
    if action == "status" and args.session is not None:
        print(f"crs guard status: no session {brief(args.session)}; known: []", file=sys.stderr)
        return 1
    if args.json:
        empty: Any = {"sessions": [], "learned_failures": 0} if action == "status" else []
        json.dump(empty, out, indent=2)
        out.write("\n")
    elif action == "status":
        out.write("no guarded sessions in this project yet\nlearned failures: 0\n")
    else:
        out.write("no learned failures\n")
    return 0


_KNOWN_SHOWN = 10  # session names a `--session` typo's error shows (the latest)


def _status(g: Any, args: argparse.Namespace, out: TextIO) -> int:
    with g._lock:
        names = [n for n in g._part.sessions if n != "crs-cli"]
    if args.session is not None:
        if args.session not in names:
            # the latest few (a project keeps up to 500 sessions: one line, not all of them)
            more = len(names) - _KNOWN_SHOWN
            known = f"{names[-_KNOWN_SHOWN:]}" + (
                f" and {more} more (crs guard status lists them)" if more > 0 else ""
            )
            print(
                f"crs guard status: no session {brief(args.session)}; known: {known}",
                file=sys.stderr,
            )
            return 1
        names = [args.session]
    rows = [g.with_session(n).status() for n in names]
    learned = len(g.learned())
    if args.json:
        json.dump({"sessions": rows, "learned_failures": learned}, out, indent=2)
        out.write("\n")
        return 0
    if not rows:
        out.write("no guarded sessions in this project yet\n")
    for r in rows:
        loop = (
            f"{r['level']} ({r['loop_code']} at steps {r['loop_steps']})"
            if r["loop_code"]
            else r["level"]
        )
        tools = ", ".join(f"{shown(t)} {n}" for t, n in sorted(r["tool_calls"].items()))
        out.write(
            f"session {shown(r['session_id'])}: {r['calls']} calls since "
            f"{_when(r['started_at'])}, "
            f"{loop}, {r['refusals_in_a_row']} refusals in a row\n"
        )
        if tools:
            out.write(f"  tools: {tools}\n")
    out.write(f"learned failures: {learned} (crs guard learned)\n")
    return 0


def _learned(g: Any, args: argparse.Namespace, out: TextIO) -> int:
    items = g.learned()
    if args.json:
        json.dump([f.to_dict() for f in items], out, indent=2)
        out.write("\n")
        return 0
    if not items:
        out.write("no learned failures\n")
        return 0
    for f in items:
        out.write(
            f"{shown(f.id)}  {shown(f.tool)} {shown(f.preview)}\n"
            f"    failed in session {shown(f.session_id)} at {_when(f.created_at)}: "
            f"{shown(f.error)}\n"
        )
    out.write("forget one with: crs guard forget ID\n")
    return 0


def _forget(g: Any, args: argparse.Namespace, out: TextIO) -> int:
    if g.forget(args.id):
        if args.json:
            json.dump({"forgotten": args.id}, out)
            out.write("\n")
        else:
            out.write(f"forgot {shown(args.id)}\n")
        return 0
    print(
        f"crs guard forget: no learned failure {brief(args.id)} (see crs guard learned)",
        file=sys.stderr,
    )
    return 1
