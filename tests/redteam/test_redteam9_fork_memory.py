"""Red team, ninth pass: a forked child of a process with an in-memory guard (`Guard()`).

An in-memory guard in a child is the child's copy: it goes on there. But a child forked
while another thread of the parent was inside the guard (its engine's lock held, the
state maybe half updated) waited forever at its first call: that thread did not come
along and never releases the lock. Now such an engine is closed in the child (reads
answer, every change raises `CRSClosedError` saying to make a new Guard), its locks freed.

Each check forks this process (`_Child` of the local-guard pass: the child reports on a
pipe, the parent waits at most 10 s and kills a child that hangs).
"""

from __future__ import annotations

import os
import threading
from typing import Any

import pytest
from test_redteam9_fork_local import _Child

from crs import CRSClosedError
from crs.guard import Action, Guard

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork"),
]


def _call(g: Guard, path: str) -> str:
    v = g.before_call("read_file", {"path": path})
    assert v.call is not None
    return g.after_call(v.call, result=f"body of {path}").action.value


def test_a_child_forked_while_a_thread_was_inside_the_guard_answers_at_once() -> None:
    g = Guard()
    _call(g, "a.py")
    inside, done = threading.Event(), threading.Event()

    def hold() -> None:
        with g._kernel.lock:  # (a thread in the middle of a call)
            inside.set()
            done.wait(30)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert inside.wait(10)

        def child() -> dict[str, Any]:
            out: dict[str, Any] = {"calls": g.status()["calls"], "explain": bool(g.explain())}
            try:
                g.before_call("read_file", {"path": "b.py"})
                out["change"] = "allowed"
            except CRSClosedError as exc:
                out["change"] = str(exc)
            g.close()
            fresh = Guard()  # a new guard in the child works
            out["fresh"] = _call(fresh, "b.py")
            return out

        got = _Child(child).result()
    finally:
        done.set()
        t.join(10)
    assert got["calls"] == 1
    assert got["explain"]
    assert "new Guard()" in got["change"], got
    assert "forked" in got["change"]
    assert got["fresh"] == "allow"
    assert _call(g, "c.py") == "allow"  # the parent goes on
    assert g.status()["calls"] == 2


def test_a_child_forked_while_nothing_was_held_goes_on_with_its_copy() -> None:
    g = Guard()
    for _ in range(2):
        _call(g, "same.py")

    def child() -> list[str]:
        # the copy continues: the third identical read is a repeat there too
        return [_call(g, "same.py"), _call(g, "other.py")]

    assert _Child(child).result() == [Action.NUDGE.value, Action.ALLOW.value]
    assert g.status()["calls"] == 2  # the child's calls were its own
