"""NATSJournal: the synchronous face of `AsyncNATSJournal`, plus the live follower.

A private asyncio loop runs in a daemon thread; every call hands a coroutine to it and waits.
See `crs._journal._nats_async` for the layout in the stream and the failure behaviour.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import threading
import time
import weakref
from collections.abc import AsyncGenerator, Callable, Coroutine, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any, TypeVar

from crs._errors import (
    InvalidArgumentError,
    JournalClosedError,
    JournalError,
    JournalUnavailableError,
)
from crs._journal._base import DeltaOrError, Journal, JournalStats
from crs._journal._nats_async import AsyncNATSJournal, NATSJournalConfig, NATSStreamConfig

_T = TypeVar("_T")

# ---------------------------------------------------------------- the synchronous journal


class _Loop:
    """A private asyncio event loop running in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="crs-nats", daemon=True)
        self._thread.start()
        self._pid = os.getpid()

    def run(self, coro: Coroutine[Any, Any, _T], timeout: float | None = None) -> _T:
        if self.loop.is_closed():
            coro.close()
            raise JournalClosedError("nats journal is closed; open a new one")
        if self.forked():
            # a forked child: the loop's thread (and the connection it serves) stayed in the
            # parent, so the call would wait forever; nothing is sent on the shared socket
            coro.close()
            raise JournalClosedError(
                f"nats journal was opened in process {self._pid}, and this is a child forked "
                f"from it ({os.getpid()}): its connection stays with the parent. Open a new "
                "journal (Guard.open, open_nats_project) in the child"
            )
        if threading.current_thread() is self._thread:
            coro.close()
            raise JournalError("NATSJournal called from its own loop; use AsyncNATSJournal")
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def forked(self) -> bool:
        """Whether this is a child forked from the process that made the loop (red team 7)."""
        return os.getpid() != self._pid

    def stop(self) -> None:
        if self.forked():
            return  # the loop is the parent's (`run`)
        # Cancel what nats-py leaves behind (ordered-consumer watchdogs) before the loop stops.
        if self._thread.is_alive():
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(_cancel_all(), self.loop).result(5.0)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5.0)
        if not self._thread.is_alive():
            self.loop.close()


async def _cancel_all() -> None:
    me = asyncio.current_task()
    tasks = [t for t in asyncio.all_tasks() if t is not me]
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _anext(agen: AsyncGenerator[_T]) -> _T:
    return await agen.__anext__()


class NATSJournal:
    """The Journal protocol on NATS JetStream, for synchronous agent loops.

    Example (needs a running ``nats-server -js``)::

        journal = NATSJournal(NATSJournalConfig(session_id="s1", servers="nats://127.0.0.1:4222"))
        journal.append(delta)
        deltas = journal.replay()
        journal.close()
    """

    sparse_sequences = True
    """Sequence numbers are the stream's: they grow but skip (other sessions, checkpoints),
    so `CRS.replay_journal` accepts any larger one instead of exactly the next."""

    def __init__(self, config: NATSJournalConfig) -> None:
        config.validate()
        self._loop = _Loop()
        try:
            self._aj: AsyncNATSJournal = self._loop.run(AsyncNATSJournal.open(config))
        except BaseException:
            self._loop.stop()
            raise
        self._config = config
        self._codec = self._aj._codec  # what CRS checks (a JSON codec cannot hold deltas)
        self._followers: weakref.WeakSet[JournalFollower] = weakref.WeakSet()
        self._wait = config.request_timeout * 4 + config.connect_timeout

    def __repr__(self) -> str:
        return f"<NATSJournal {self._aj._delta_subject} seq={self._aj._last_seq}>"

    def __enter__(self) -> NATSJournal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def async_journal(self) -> AsyncNATSJournal:
        """The underlying `AsyncNATSJournal` (its coroutines run on the private loop)."""
        return self._aj

    def ensure_stream(self, stream: NATSStreamConfig | None = None) -> dict[str, Any]:
        """Create the stream (file storage) or update its limits; see `NATSStreamConfig`."""
        return self._loop.run(self._aj.ensure_stream(stream), self._wait)

    def append(self, delta: Any, *, msg_id: str | None = None) -> int:
        """Publish one entry once the server acknowledged it; return its sequence number.

        Args:
            delta: The entry (anything the codec encodes).
            msg_id: Idempotency key: a retried append with the same key is stored once
                (inside the stream's duplicate window). Default: a fresh unique id.

        Returns:
            The stream sequence number, or 0 when the entry was kept in memory (degraded).
        """
        return self._loop.run(self._aj.append(delta, msg_id=msg_id), None)

    def append_after(
        self, delta: Any, last_seq: int, *, msg_id: str | None = None
    ) -> tuple[int, bool]:
        """Publish one entry only if the subject's last entry is `last_seq` (0: none):
        (its sequence, whether the server had it already under `msg_id`). Another writer's
        entry first raises `AppendRaceError` (nothing stored); see
        `AsyncNATSJournal.append_after`."""
        return self._loop.run(self._aj.append_after(delta, last_seq, msg_id=msg_id), None)

    def append_batch(self, deltas: Sequence[Any], *, msg_id: str | None = None) -> int:
        """Publish entries in order (pipelined; not atomic); return the last sequence number.

        Args:
            deltas: The entries.
            msg_id: Idempotency key of the batch (entry i gets ``<msg_id>.<i>``): retrying a
                batch that failed part-way stores every entry once.
        """
        return self._loop.run(self._aj.append_batch(deltas, msg_id=msg_id), None)

    def replay(self, after_seq: int = 0) -> list[Any]:
        """All entries after the checkpoint (and after `after_seq`), in order."""
        return self._loop.run(self._aj.replay(after_seq), None)

    def replay_stream(self, after_seq: int = 0) -> Iterator[DeltaOrError]:
        """Iterate entries after the checkpoint in bounded memory (chunks of 512)."""
        agen = self._aj.replay_chunks(after_seq)
        try:
            while True:
                try:
                    chunk = self._loop.run(_anext(agen), self._wait)
                except StopAsyncIteration:
                    return
                yield from chunk
        finally:
            self._loop.run(agen.aclose(), self._wait)

    def checkpoint(self, seq: int | None = None) -> None:
        """Publish the checkpoint sequence (default: the last) and purge what it covers."""
        self._loop.run(self._aj.checkpoint(seq), self._wait)

    def backup(self, stream: IO[bytes]) -> None:
        """Write the live entries in the portable backup format (frames: 4-byte length, body)."""
        self._loop.run(self._aj.backup(stream), None)

    def restore(self, stream: IO[bytes]) -> None:
        """Replace this session's entries with a backup stream (checked before any change)."""
        self._loop.run(self._aj.restore(stream), None)

    def is_available(self) -> bool:
        """True when open and not degraded."""
        return self._aj.is_available()

    def is_degraded(self) -> bool:
        """True while entries wait in memory for the server to come back."""
        return self._aj.is_degraded()

    def sync(self) -> None:
        """No-op: acknowledged entries are already durable on the server."""
        self._loop.run(self._aj.sync(), self._wait)

    def stats(self) -> JournalStats:
        """Counters, with `total_deltas` from the stream info when the server is reachable."""
        return self._loop.run(self._aj.stats(), self._wait)

    def follow(
        self, callback: Callable[[DeltaOrError], None] | None = None, *, from_seq: int = 0
    ) -> JournalFollower:
        """Follow this session's entries live: from the checkpoint (or `from_seq`) on.

        With `callback`, a thread calls it for each entry in order; without, iterate the
        returned `JournalFollower`. Stop it with `stop()` (or a ``with`` block).
        """
        follower = JournalFollower(self, callback, from_seq)
        self._followers.add(follower)
        return follower

    def close(self) -> None:
        """Close the connection and stop the private loop. Idempotent."""
        if self._aj._closed or self._loop.forked():
            return  # (a forked child: the connection, its loop and followers are the parent's)
        for follower in list(self._followers):
            follower.stop()
        try:
            self._loop.run(self._aj.close(), self._wait)
        finally:
            self._loop.stop()


_RESUBSCRIBE_S = 0.1  # a follower's first wait before subscribing again (doubling)
_RESUBSCRIBE_MAX_S = 2.0


class JournalFollower:
    """A live subscription to a journal's entries (a read replica's feed).

    Iterate it (``for item in follower``) or give `NATSJournal.follow` a callback. Items are
    `DeltaOrError`s, in sequence order. Closing the journal stops its followers.
    """

    def __init__(
        self,
        journal: NATSJournal,
        callback: Callable[[DeltaOrError], None] | None,
        from_seq: int,
    ) -> None:
        if not isinstance(journal, NATSJournal):
            raise InvalidArgumentError(
                f"journal: must be a NATSJournal (use NATSJournal.follow), "
                f"got {type(journal).__name__}"
            )
        if callback is not None and not callable(callback):
            raise InvalidArgumentError(f"callback: must be callable or None, got {callback!r}")
        if isinstance(from_seq, bool) or not isinstance(from_seq, int) or from_seq < 0:
            raise InvalidArgumentError(f"from_seq: must be an int >= 0, got {from_seq!r}")
        self._journal = journal
        # Bounded: a slow consumer slows the reader (and the server) instead of growing memory.
        self._queue: queue.Queue[DeltaOrError] = queue.Queue(maxsize=4096)
        self._ended = threading.Event()
        self.last_seq = 0
        self._future = asyncio.run_coroutine_threadsafe(self._pump(from_seq), journal._loop.loop)
        self._thread: threading.Thread | None = None
        if callback is not None:
            self._thread = threading.Thread(
                target=self._dispatch, args=(callback,), name="crs-follow", daemon=True
            )
            self._thread.start()

    async def _put(self, item: DeltaOrError) -> None:
        while True:
            try:
                self._queue.put_nowait(item)
                return
            except queue.Full:
                await asyncio.sleep(0.01)  # never block the journal's loop

    async def _pump(self, from_seq: int) -> None:
        nxt, delay = from_seq, _RESUBSCRIBE_S
        try:
            while True:
                try:
                    async for item in self._journal._aj.follow(nxt):
                        await self._put(item)
                        if item.seq_num:
                            nxt, delay = item.seq_num + 1, _RESUBSCRIBE_S
                    return
                except JournalUnavailableError:
                    # The server went away before the subscription was made (it survives a
                    # reconnect once made: the ordered consumer restarts itself): subscribe
                    # again from the next entry once it is back, while the journal is open.
                    if self._journal._aj._closed:
                        raise
                    await asyncio.sleep(delay)
                    delay = min(2 * delay, _RESUBSCRIBE_MAX_S)
        except Exception as exc:
            await self._put(DeltaOrError(err=exc))
        finally:
            self._ended.set()

    def _dispatch(self, callback: Callable[[DeltaOrError], None]) -> None:
        for item in self:
            callback(item)

    def get(self, timeout: float | None = None) -> DeltaOrError | None:
        """The next entry; None when `timeout` passes, or once stopped and drained."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = 0.1 if deadline is None else max(0.0, min(0.1, deadline - time.monotonic()))
            try:
                item = self._queue.get(timeout=wait)
            except queue.Empty:
                if self._ended.is_set() and self._queue.empty():
                    return None
                if deadline is not None and time.monotonic() >= deadline:
                    return None
                continue
            self.last_seq = max(self.last_seq, item.seq_num)
            return item

    def __iter__(self) -> Iterator[DeltaOrError]:
        while True:
            item = self.get()
            if item is None:
                return
            yield item

    def stop(self) -> None:
        """Stop following (idempotent); iteration ends after the queued entries."""
        if self._journal._loop.forked():
            return  # its pump runs on the parent's loop (`_Loop.run`)
        self._future.cancel()
        self._ended.wait(5.0)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5.0)

    def __enter__(self) -> JournalFollower:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


if TYPE_CHECKING:

    def _is_a_journal(j: NATSJournal) -> Journal:
        # mypy proves here that NATSJournal satisfies the Journal protocol.
        return j
