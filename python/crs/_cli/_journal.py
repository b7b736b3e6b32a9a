"""`crs journal verify PATH` and `crs journal replay PATH`: inspect a local journal offline.

Both open the journal read-only (no lock, no repair), so they are safe beside a running writer.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from crs._check import shown_json
from crs._errors import CRSError, JournalCorruptedError, JournalError
from crs._journal._base import BytesCodec, DeltaOrError, JournalConfig
from crs._journal._local import LocalJournal
from crs._state._codec import DeltaCodec
from crs._state._deltas import Delta

PROGRESS_MIN_RECORDS = 10_000


class _Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self._total = total
        self._stream = stream
        self._on = total >= PROGRESS_MIN_RECORDS and stream.isatty()
        self._next = 0.0

    def update(self, done: int) -> None:
        now = time.monotonic()
        if not self._on or now < self._next:
            return
        self._next = now + 0.1
        frac = min(1.0, done / self._total)
        bar = "#" * int(frac * 30)
        self._stream.write(f"\r[{bar:<30}] {frac:4.0%} {done}/{self._total} records")
        self._stream.flush()

    def finish(self) -> None:
        if self._on:
            self._stream.write("\r" + " " * 60 + "\r")
            self._stream.flush()


_CODEC = DeltaCodec()


def _decode(payload: bytes) -> tuple[str, Any]:
    """("delta" | "op", JSON form) for the CRS's records; ("json", value) for plain JSON
    entries of another codec; ("bytes", base64) for anything else."""
    try:
        entry = _CODEC.decode(payload)
    except JournalCorruptedError:
        pass
    else:
        if isinstance(entry, Delta):
            return "delta", entry.to_dict()
        return "op", entry
    try:
        return "json", json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return "bytes", base64.b64encode(payload).decode()


def _open(args: argparse.Namespace) -> LocalJournal:
    path = Path(args.path)
    if not path.is_dir() or not (any(path.glob("*.wal")) or (path / "CHECKPOINT").exists()):
        raise JournalError(
            f"no journal at {args.path}: no segment file (*.wal) or CHECKPOINT there; "
            "pass the journal directory (<home>/<project key>/journal)"
        )
    cfg = JournalConfig(
        path=args.path,
        session_id="cli",
        read_only=True,
        skip_corrupted_deltas=args.skip_corrupted,
    )
    return LocalJournal(cfg, BytesCodec())


def _items(journal: LocalJournal, after: int) -> Iterator[DeltaOrError]:
    progress = _Progress(journal.stats().total_deltas, sys.stderr)
    try:
        for n, item in enumerate(journal.replay_stream(after), 1):
            progress.update(n)
            yield item
    finally:
        progress.finish()


def _cmd_verify(args: argparse.Namespace) -> int:
    try:
        with _open(args) as journal:
            records = skipped = 0
            kinds = {"delta": 0, "op": 0, "json": 0, "bytes": 0}
            error: str | None = None
            for item in _items(journal, 0):
                if item.skipped:
                    skipped += 1
                elif item.err is not None:
                    error = f"{type(item.err).__name__}: {item.err}"
                else:
                    records += 1
                    kinds[_decode(item.delta)[0]] += 1
            st = journal.stats()
    except CRSError as exc:
        print(f"crs journal verify: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    report: dict[str, Any] = {
        "path": args.path,
        "ok": error is None and skipped == 0,
        "records": records,
        "skipped": skipped,
        "kinds": kinds,
        "checkpoint_seq": st.checkpoint_seq,
        "last_seq": st.last_seq_num,
        "segments": st.segments,
        "torn_bytes": st.torn_bytes,
        "error": error,
    }
    if args.json:
        print(json.dumps(report))
    else:
        state = "OK" if report["ok"] else "DAMAGED"
        print(
            f"{state}: {records} records (seq {st.checkpoint_seq + 1}..{st.last_seq_num}) "
            f"in {st.segments} segment(s); {skipped} skipped; torn tail {st.torn_bytes} bytes"
        )
        print(
            f"entries: {kinds['delta']} deltas, {kinds['op']} ops (crs delta codec); "
            f"{kinds['json']} JSON; {kinds['bytes']} other"
        )
        if error:
            print(error)
    return 0 if report["ok"] else 1


def _cmd_replay(args: argparse.Namespace) -> int:
    out = sys.stdout
    try:
        with _open(args) as journal:
            for item in _items(journal, args.after):
                if item.err is not None and not item.skipped:
                    print(f"crs journal replay: {item.err}", file=sys.stderr)
                    return 1
                if item.skipped:
                    continue
                line: dict[str, Any] = {"seq": item.seq_num}
                kind, value = _decode(item.delta)
                if kind in ("delta", "op"):
                    line[kind] = value
                elif kind == "json":
                    line["entry"] = value
                else:
                    line["payload_b64"] = value
                out.write(shown_json(json.dumps(line, ensure_ascii=False)) + "\n")
    except CRSError as exc:
        print(f"crs journal replay: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    return 0


def register(sub: Any) -> None:
    """Add `crs journal verify|replay` to the `crs` command line."""
    journal = sub.add_parser("journal", help="inspect a local journal (write-ahead log)")
    jsub = journal.add_subparsers(dest="journal_command", metavar="ACTION", required=True)
    verify = jsub.add_parser("verify", help="check every record's CRC-32C and sequence number")
    verify.add_argument("path", help="journal directory")
    verify.add_argument("--json", action="store_true", help="print a JSON report")
    verify.add_argument(
        "--skip-corrupted", action="store_true", help="count damaged records and go on"
    )
    verify.set_defaults(func=_cmd_verify)
    replay = jsub.add_parser("replay", help="print every entry as a JSON line")
    replay.add_argument("path", help="journal directory")
    replay.add_argument("--after", type=int, default=0, help="start after this sequence number")
    replay.add_argument(
        "--skip-corrupted", action="store_true", help="leave damaged records out and go on"
    )
    replay.set_defaults(func=_cmd_replay)
