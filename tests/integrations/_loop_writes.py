"""Which of a durable guard's journaling calls an async integration made on the event loop's
own thread (each may fdatasync: a blocked loop). The guard's async twins run them in a worker
thread, where no loop runs."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

from crs.guard import Guard

WRITERS = ("new_turn", "before_call", "after_call", "on_message")


@contextlib.contextmanager
def writes_on_the_loop() -> Iterator[list[str]]:
    """Collects the names of `WRITERS` a durable guard ran on a thread with a running loop."""
    seen: list[str] = []
    originals = {name: getattr(Guard, name) for name in WRITERS}

    def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def watched(self: Guard, *args: Any, **kwargs: Any) -> Any:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                pass  # a worker thread: blocking there is what it is for
            else:
                if self.durable:
                    seen.append(name)
            return fn(self, *args, **kwargs)

        return watched

    for name, fn in originals.items():
        setattr(Guard, name, wrap(name, fn))
    try:
        yield seen
    finally:
        for name, fn in originals.items():
            setattr(Guard, name, fn)
