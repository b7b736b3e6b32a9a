"""Shared by the SIGKILL crash tests: fork a child that acknowledges work on a pipe."""

from __future__ import annotations

import os
import random
import signal
import struct
import time
from collections.abc import Callable

ACK = struct.Struct("<Q")
"""One acknowledgement: a little-endian u64 the child writes after a durable step."""


def fork_child(body: Callable[[int], None]) -> tuple[int, int]:
    """Run `body(ack_fd)` in a forked child; return (pid, read end of its ack pipe)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        os.close(r)
        code = 0
        try:
            body(w)
        except BaseException:
            code = 1
        os._exit(code)
    os.close(w)
    return pid, r


def read_acks(fd: int) -> list[int]:
    """Every whole acknowledgement the (dead) child wrote, in order; closes `fd`."""
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    os.close(fd)
    blob = b"".join(chunks)
    usable = len(blob) - len(blob) % ACK.size
    return [ACK.unpack_from(blob, i)[0] for i in range(0, usable, ACK.size)]


def kill_at_random(body: Callable[[int], None], rng: random.Random, window: float) -> list[int]:
    """Fork `body`, SIGKILL it after a random delay in [0, window) seconds and return the
    acknowledgements it wrote before dying (it must not have ended by itself)."""
    pid, r = fork_child(body)
    time.sleep(rng.uniform(0.0, window))
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status), "the child stopped before it was killed"
    return read_acks(r)
