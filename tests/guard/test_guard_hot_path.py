"""The guard's hot path shortcuts keep their meaning: a log record is skipped only when
nothing would receive it, a payload the live guard built is applied without the handler's
check while a record read back is still checked, and the state a live guard builds is the
state a replay of its journal builds."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from crs import Guard
from crs._errors import JournalCorruptedError
from crs.guard import _observe


def loop(g: Guard, n: int = 8) -> list[str]:
    """The same read `n` times: nudged, then refused; returns the actions."""
    actions = []
    for _ in range(n):
        v = g.before_call("read_file", {"path": "a.py"})
        actions.append(str(v.action))
        if v.allowed:
            assert v.call is not None
            actions.append(str(g.after_call(v.call, result="same").action))
    return actions


def test_a_logger_with_only_a_null_handler_reaches_nothing() -> None:
    log = logging.getLogger("crs.guard.test_hot_path.quiet")
    log.addHandler(logging.NullHandler())
    log.propagate = False
    assert not _observe._handled(log)
    bare = logging.getLogger("crs.guard.test_hot_path.bare")
    bare.propagate = False
    assert _observe._handled(bare)  # no handler at all: logging's last resort prints it
    log.propagate = True  # root: pytest's capture handlers are there during a test
    assert _observe._handled(log) == any(
        type(h) is not logging.NullHandler for h in logging.getLogger().handlers
    )


def test_a_filter_on_the_guard_logger_still_sees_every_refusal() -> None:
    seen: list[logging.LogRecord] = []

    def keep(record: logging.LogRecord) -> bool:
        seen.append(record)
        return False  # dropped: only the filter sees it

    logger = logging.getLogger("crs.guard")
    logger.addFilter(keep)
    logger.setLevel(logging.INFO)  # nudges are logged at INFO
    try:
        actions = loop(Guard())
    finally:
        logger.removeFilter(keep)
        logger.setLevel(logging.NOTSET)
    refusals = [a for a in actions if a in ("block", "stop")]
    nudges = [a for a in actions if a == "nudge"]
    assert refusals
    assert nudges
    assert len(seen) == len(refusals) + len(nudges)
    r = seen[-1]
    assert r.levelno == logging.WARNING
    assert r.funcName == "_emit"
    assert r.pathname == _observe.__file__
    assert tuple(r.__dict__[k] for k in ("action", "code", "tool", "kind")) == (
        "stop",
        "repeated_call",
        "read_file",
        "before_call",
    )
    assert r.getMessage().startswith("before_call stop (repeated_call) on read_file: ")


def test_a_handler_gets_every_record(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="crs.guard"):
        actions = loop(Guard())
    got = [r for r in caplog.records if r.name == "crs.guard"]
    assert [r.__dict__["action"] for r in got] == [a for a in actions if a != "allow"]


def test_a_live_guard_and_a_replay_of_its_journal_agree(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "h"
    project.mkdir()
    with Guard.open(project, "s", home=home, fingerprint=lambda: "f") as g:
        loop(g)
        v = g.before_call("bash", {"command": "pytest -q 'tests/a b'"})
        assert v.call is not None
        g.after_call(v.call, error="AssertionError: 1 failed")
        live = g.explain()
    with Guard.open(project, "s", home=home, fingerprint=lambda: "f") as again:
        replayed = again.explain()
    for d in (live, replayed):
        d["status"].pop("durable")
    assert replayed["recent"] == live["recent"]
    assert replayed["status"] == live["status"]
    assert replayed["learned"] == live["learned"]


def test_a_damaged_step_record_read_back_is_refused() -> None:
    g = Guard()
    kernel = g.crs._kernel
    with pytest.raises(JournalCorruptedError, match="lacks 'r'"):
        kernel.replay(
            {"op": "guard.step", "payload": {"s": "x", "n": 1, "t": "t", "g": "g", "k": 0, "ts": 1}}
        )
    assert "x" not in g._part.sessions  # nothing of it was applied
