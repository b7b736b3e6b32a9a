"""Live view of a journal: `StreamDelta` summaries and `crs journal watch`.

`delta_to_stream_delta` is the seed's SSE summary of a delta (`DeltaToStreamDelta`); it works on
any delta object (`type()`, `source()`, `indexes_affected()`, `to_dict()`) and on the plain dict
entries a journal also holds (`{"op": ..., "payload": ...}` or a delta's dict form).
`crs journal watch` follows a local or a NATS journal and prints one StreamDelta JSON line per
committed entry, for dashboards and `jq`; it reads journals written by a CRS (`DeltaCodec`
payloads) and plain JSON ones alike (`WatchCodec`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from crs._check import shown_json
from crs._errors import CRSError, InvalidArgumentError, NilDeltaError
from crs._journal._base import DeltaOrError, JournalConfig, JsonCodec
from crs._types import SignalSource

_META_KEYS = frozenset({"type", "source", "timestamp"})


@dataclasses.dataclass(frozen=True, kw_only=True)
class StreamDelta:
    """A JSON-ready summary of one journal entry, for live views (Server-Sent Events, jq).

    Attributes:
        type: Delta type name ("proof", "constraint", ...) or the operation of a plain entry.
        seq_num: Journal sequence number (JSON key ``seq``).
        timestamp: When the delta was created (Unix milliseconds).
        summary: Human-readable description.
    """

    type: str = ""
    seq_num: int = 0
    timestamp: int = 0
    summary: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The seed's JSON form: ``{"type", "seq", "timestamp", "summary"}``."""
        return {
            "type": self.type,
            "seq": self.seq_num,
            "timestamp": self.timestamp,
            "summary": self.summary,
        }

    def to_json(self) -> str:
        """One compact JSON line."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))


def _describe_value(key: str, value: Any) -> str | None:
    if isinstance(value, dict):
        if not value:
            return None
        keys = [str(k) for k in value][:3]
        more = f" +{len(value) - 3}" if len(value) > 3 else ""
        return f"{key}[{len(value)}]: {', '.join(keys)}{more}"
    if isinstance(value, list | tuple):
        return f"{key}[{len(value)}]" if value else None
    if value is None or value == "" or value is False:
        return None
    text = str(value)
    return f"{key}={text[:40]}{'…' if len(text) > 40 else ''}"


def _summary(kind: str, source: str | None, data: dict[str, Any], indexes: list[str]) -> str:
    if kind == "composite" and isinstance(data.get("deltas"), list):
        parts = [str(d.get("type", "?")) for d in data["deltas"] if isinstance(d, dict)]
        body = f"{len(parts)} deltas ({', '.join(parts)})"
    else:
        described = [_describe_value(k, v) for k, v in data.items() if k not in _META_KEYS]
        body = "; ".join(d for d in described if d) or "empty"
    head = f"{kind} delta" if source is None else f"{kind} delta from {source}"
    tail = f" -> {', '.join(indexes)}" if indexes else ""
    return f"{head}: {body}{tail}"


def delta_to_stream_delta(delta: Any, seq_num: int, timestamp_ms: int) -> StreamDelta:
    """Summarise a delta (or a plain journal entry) for a live view.

    Args:
        delta: A delta (`type()`, `source()`, `indexes_affected()`, `to_dict()`), a delta's
            dict form (``{"type", "source", ...}``) or an operation entry (``{"op", "payload"}``).
        seq_num: The journal sequence number.
        timestamp_ms: When the delta was created (Unix ms).

    Raises:
        NilDeltaError: `delta` is None.
        InvalidArgumentError: `delta` is neither a delta nor a dict.

    >>> sd = delta_to_stream_delta({"op": "record_step", "payload": {"tool": "Grep"}}, 7, 1000)
    >>> sd.to_json()
    '{"type":"record_step","seq":7,"timestamp":1000,"summary":"record_step: tool=Grep"}'
    """
    if delta is None:
        raise NilDeltaError("delta must not be None")
    if isinstance(delta, dict):
        if "op" in delta:
            kind = str(delta["op"])
            payload = delta.get("payload")
            data = payload if isinstance(payload, dict) else {"payload": payload}
            described = [_describe_value(k, v) for k, v in data.items()]
            body = "; ".join(d for d in described if d) or "empty"
            return StreamDelta(
                type=kind, seq_num=seq_num, timestamp=timestamp_ms, summary=f"{kind}: {body}"
            )
        kind = str(delta.get("type", "entry"))
        src = delta.get("source")
        source = SignalSource.describe(src) if isinstance(src, int) else None
        indexes: list[str] = []
        data = delta
    elif all(hasattr(delta, m) for m in ("type", "source", "indexes_affected", "to_dict")):
        t = delta.type()
        kind = t.name.lower() if hasattr(t, "name") else str(t)
        source = SignalSource.describe(int(delta.source()))
        indexes = [str(i) for i in delta.indexes_affected()]
        data = delta.to_dict()
    else:
        raise InvalidArgumentError(
            f"delta must be a delta or a dict journal entry, not {type(delta).__name__}"
        )
    return StreamDelta(
        type=kind,
        seq_num=seq_num,
        timestamp=timestamp_ms,
        summary=_summary(kind, source, data, indexes),
    )


def _entry_timestamp(entry: Any, fallback_ms: int) -> int:
    if isinstance(entry, dict):
        ts = entry.get("timestamp")
        if ts is None and isinstance(entry.get("payload"), dict):
            ts = entry["payload"].get("timestamp")
        return ts if isinstance(ts, int) and not isinstance(ts, bool) else fallback_ms
    get = getattr(entry, "timestamp", None)
    return int(get()) if callable(get) else fallback_ms


# ---------------------------------------------------------------- following a journal


class WatchCodec:
    """Decodes both `DeltaCodec` payloads (a CRS's journal) and `JsonCodec` ones.

    Unambiguous: a DeltaCodec payload starts with ``P`` or ``J`` and the version byte, which
    no JSON text does. Encoding uses JSON (the watcher never writes).
    """

    def __init__(self) -> None:
        # inside: start-up (`import crs` loads this module for StreamDelta; the codec is only
        # needed once a journal is followed)
        from crs._state._codec import CODEC_VERSION, KIND_JSON, KIND_PROOF, DeltaCodec

        self._kinds = (KIND_PROOF, KIND_JSON)
        self._version = CODEC_VERSION
        self._delta = DeltaCodec()
        self._json = JsonCodec()

    def encode(self, entry: Any) -> bytes:
        return self._json.encode(entry)

    def decode(self, data: bytes) -> Any:
        if len(data) >= 2 and data[0] in self._kinds and data[1] == self._version:
            return self._delta.decode(data)
        return self._json.decode(data)


def follow_local(
    path: str, session_id: str, after_seq: int = 0, interval: float = 0.2
) -> Iterator[DeltaOrError | None]:
    """Follow a local journal written by another process (opened read-only, polled).

    Yields each new entry in order, and None after every poll that found nothing (so a caller
    can stop on a timeout).
    """
    from crs._journal._local import LocalJournal  # inside: start-up, as for the codec

    config = JournalConfig(path=path, session_id=session_id, read_only=True)
    last = after_seq
    codec = WatchCodec()
    while True:
        found = False
        with LocalJournal(config, codec) as journal:
            for item in journal.replay_stream(after_seq=last):
                if item.err is not None and not item.skipped:
                    raise item.err
                last = max(last, item.seq_num)
                found = True
                yield item
        if not found:
            yield None
            time.sleep(interval)


def follow_nats(
    servers: str, session_id: str, stream_name: str, after_seq: int = 0, interval: float = 0.2
) -> Iterator[DeltaOrError | None]:
    """Follow a NATS journal live (ordered consumer); None after each idle `interval`."""
    # inside: start-up (the NATS journal imports asyncio) and the optional nats-py package
    from crs._journal._nats import NATSJournal
    from crs._journal._nats_async import NATSJournalConfig

    config = NATSJournalConfig(
        session_id=session_id,
        servers=servers,
        stream_name=stream_name,
        create_stream=False,
        codec=WatchCodec(),
    )
    start = after_seq + 1 if after_seq > 0 else 0  # 0: from the checkpoint on
    with NATSJournal(config) as journal, journal.follow(from_seq=start) as follower:
        while True:
            item = follower.get(timeout=interval)
            if item is not None and item.err is not None and not item.skipped:
                raise item.err
            yield item


def watch(
    items: Iterator[DeltaOrError | None],
    emit: Callable[[str], None],
    *,
    max_entries: int = 0,
    idle_timeout: float = 0.0,
) -> int:
    """Print one StreamDelta JSON line per entry; stop after `max_entries` or idle timeout.

    Returns:
        The number of lines emitted.
    """
    n = 0
    idle_since = time.monotonic()
    for item in items:
        if item is None or item.delta is None:
            if idle_timeout and time.monotonic() - idle_since >= idle_timeout:
                break
            continue
        idle_since = time.monotonic()
        now_ms = time.time_ns() // 1_000_000
        sd = delta_to_stream_delta(item.delta, item.seq_num, _entry_timestamp(item.delta, now_ms))
        emit(sd.to_json())
        n += 1
        if max_entries and n >= max_entries:
            break
    return n


def _bad_numbers(args: argparse.Namespace) -> str:
    """What is wrong with `--interval`, `--timeout` or `--max` ("" if nothing): checked
    before anything is opened (a NaN or a negative interval failed inside `time.sleep` with
    a traceback, after the first entries were printed)."""
    if not math.isfinite(args.interval) or args.interval <= 0:
        return f"--interval must be a number of seconds above 0, got {args.interval}"
    if math.isnan(args.timeout) or args.timeout < 0:
        return f"--timeout must be a number of seconds >= 0 (0: never), got {args.timeout}"
    if args.max < 0:
        return f"--max must be >= 0 (0: never), got {args.max}"
    return ""


def _cmd_watch(args: argparse.Namespace) -> int:
    if bool(args.path) == bool(args.nats):
        print(
            "crs journal watch: give a journal directory or --nats URL, not both", file=sys.stderr
        )
        return 2
    if args.nats and not args.session:
        print("crs journal watch: --nats needs --session ID", file=sys.stderr)
        return 2
    bad = _bad_numbers(args)
    if bad:
        print(f"crs journal watch: {bad}", file=sys.stderr)
        return 2
    if args.path:
        items = follow_local(args.path, args.session or "cli", args.after, args.interval)
    else:
        items = follow_nats(args.nats, args.session, args.stream, args.after, args.interval)

    def emit(line: str) -> None:
        print(shown_json(line), flush=True)  # text agents wrote: shown, never run

    try:
        watch(items, emit, max_entries=args.max, idle_timeout=args.timeout)
    except KeyboardInterrupt:
        return 130
    except CRSError as exc:
        print(f"crs journal watch: {exc}", file=sys.stderr)
        return 1
    return 0


def register(subparsers: Any) -> None:
    """Add ``crs journal watch`` (creating ``crs journal`` unless it is registered already)."""
    journal = subparsers.choices.get("journal")
    if journal is None:
        journal = subparsers.add_parser("journal", help="inspect and follow journals")
    sub = next(
        (a for a in journal._actions if isinstance(a, argparse._SubParsersAction)),
        None,
    )
    if sub is None:
        sub = journal.add_subparsers(dest="journal_command", metavar="SUBCOMMAND")
    p = sub.add_parser(
        "watch",
        help="follow a journal and print one StreamDelta JSON line per committed entry",
    )
    p.add_argument("path", nargs="?", help="local journal directory")
    p.add_argument("--nats", help="NATS server URL (e.g. nats://127.0.0.1:4222) instead")
    p.add_argument("--session", help="session id of the NATS journal")
    p.add_argument("--stream", default="CRS_DELTAS", help="JetStream stream (default CRS_DELTAS)")
    p.add_argument("--after", type=int, default=0, help="start after this sequence number")
    p.add_argument("--interval", type=float, default=0.2, help="poll interval in seconds")
    p.add_argument("--max", type=int, default=0, help="stop after this many entries (0: never)")
    p.add_argument(
        "--timeout", type=float, default=0.0, help="stop after this many idle seconds (0: never)"
    )
    p.set_defaults(func=_cmd_watch)
