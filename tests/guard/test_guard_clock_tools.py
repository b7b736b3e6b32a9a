"""Tools that read the clock (`CLOCK_PATTERN`: `get_current_time`, the MCP time server's
tool, `now`): read between other work, each answer is a new time, so the rule of a pair
repeated within the session leaves them out (the MCP time server's JSON answer, its time
masked, was "the same result" at the fifth read of a session that read a new file between
any two); read again and again in a row with nothing between, the clock is still a loop."""

from __future__ import annotations

import re

from crs.guard import Guard
from crs.guard._policy import CLOCK_PATTERN
from guard_calls import flags, run


def _time(m: int) -> dict[str, object]:
    return {"timezone": "UTC", "datetime": f"2026-12-03T10:{m:02d}:05+00:00", "is_dst": False}


def test_the_clock_read_between_other_work_is_never_flagged() -> None:
    for tool in ["get_current_time", "mcp__time__get_current_time", "now"]:
        g = Guard()
        pairs = []
        for m in range(12):
            pairs.append(run(g, tool, {"timezone": "UTC"}, _time(m)))
            pairs.append(run(g, "read_file", {"path": f"src/m{m}.py"}, f"code {m}"))
        assert flags(pairs) == [], tool


def test_the_clock_read_in_a_row_is_still_a_loop() -> None:
    g = Guard()
    got = flags(
        [run(g, "get_current_time", {}, {"time": f"2026-02-10T14:03:0{i}Z"}) for i in range(6)]
    )
    assert got[:1] == ["nudge:repeated_call"], got


def test_another_tool_read_between_other_work_is_still_a_repeat() -> None:
    """The exception is the clock's: the same status read five times between new reads,
    its answer the same but for a timestamp, is still the same pair again."""
    g = Guard()
    pairs = []
    for m in range(8):
        pairs.append(
            run(g, "get_status", {"job": "7"}, {"state": "failed", "at": f"10:{m:02d}:05"})
        )
        pairs.append(run(g, "read_file", {"path": f"src/m{m}.py"}, f"code {m}"))
    assert "nudge:repeated_call" in flags(pairs)


def test_the_pattern_takes_whole_clock_names_only() -> None:
    r = re.compile(CLOCK_PATTERN)
    clocks = [
        "get_current_time",
        "current_time",
        "now",
        "time",
        "getCurrentTime",
        "today",
        "mcp__time__get_current_time",
        "functions.get_local_time",
        "datetime",
        "get_date",
    ]
    others = [
        "time_series_query",
        "update_timestamp",
        "runtime",
        "uptime",
        "set_time",
        "timeout",
        "wait_time",
        "convert_time",
        "date_diff",
        "sleep_until",
    ]
    assert [n for n in clocks if not r.search(n)] == []
    assert [n for n in others if r.search(n)] == []
