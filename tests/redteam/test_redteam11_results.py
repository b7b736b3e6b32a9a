"""Red team, eleventh pass: the guard reading results (`crs.guard._results`).

A result that only starts as an error report does (`Error: ...`, a traceback, an exception
line, an errno message) may be what the tool read: a crash log, a grep for errors, a `tail`
of a log. Counted in its session, it must not be learned: a later session of the unchanged
workspace refusing the read (`known_failure`) is a false block of real work. Hostile
envelopes get a judgement or a typed error naming `result`, in bounded time.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from crs import InvalidArgumentError
from crs.guard import Guard

LOGS = [
    ("Bash", {"command": "grep -rn 'Error:' logs/"}, "Error: disk full\nError: disk full\n"),
    (
        "Read",
        {"file_path": "crash.log"},
        'Traceback (most recent call last):\n  File "a.py", line 1\nValueError: bad\n',
    ),
    ("Bash", {"command": "cat build.log"}, "error: linker failed\nld returned 1\n"),
    ("Bash", {"command": "tail -3 app.log"}, "ValueError: x is not y\nretrying\nok"),
    ("Read", {"file_path": "notes.md"}, "Error: handling, a guide\nWhen you see this..."),
    ("Bash", {"command": "docker logs web"}, "fatal: config missing\nfatal: exiting\n"),
    ("search_logs", {"query": "panic"}, "panic: runtime error: index out of range"),
    # Claude Code's Bash `tool_response`: a wrapper of one text
    (
        "Bash",
        {"command": "grep -m1 Traceback logs/app.log"},
        {"stdout": "Traceback (most recent call last):", "stderr": "", "interrupted": False},
    ),
]


def _run(project: Path, home: Path, session: str, calls: list) -> list[tuple[str, str]]:
    g = Guard.open(project, session, home=home)
    try:
        out = []
        for tool, args, result in calls:
            v = g.before_call(tool, args)
            if not v.allowed:
                out.append((str(v.action), str(v.code)))
                continue
            g.after_call(v.call, result=result)
            out.append(("ran", ""))
        return out
    finally:
        g.close()


def test_a_log_that_reads_like_an_error_is_not_refused_in_the_next_session(
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    assert _run(project, home, "s1", LOGS) == [("ran", "")] * len(LOGS)
    assert _run(project, home, "s2", LOGS) == [("ran", "")] * len(LOGS)
    g = Guard.open(project, "s3", home=home)
    try:
        assert g.learned() == []
    finally:
        g.close()


def test_a_read_that_failed_in_a_line_is_still_learned(tmp_path: Path) -> None:
    """(What a harness reports as `Error: ...` text: a read of a path outside the allowed
    directories refused in the next session, as the loop benchmark's trajectories have.)"""
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    reads = [
        ("read_file", {"path": "/etc/nginx/nginx.conf"}, "Error: Access denied - outside"),
        ("Bash", {"command": "cat missing.txt"}, "cat: missing.txt: No such file or directory"),
    ]
    _run(project, home, "s1", reads)
    assert {code for _, code in _run(project, home, "s2", reads)} == {"known_failure"}


def test_a_marked_failure_is_still_learned(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    marked = [
        ("build", {"t": "a"}, {"content": [{"type": "text", "text": "boom"}], "isError": True}),
        ("build", {"t": "b"}, {"exit_code": 2, "stdout": "", "stderr": "cc: failed"}),
        ("build", {"t": "c"}, "Error executing tool build: no such target"),
        ("build", {"t": "d"}, "<tool_use_error>File does not exist.</tool_use_error>"),
        ("build", {"t": "e"}, '{"error": "no such target"}'),
        ("build", {"t": "f"}, "Command failed with exit code 2: make"),
        (
            "build",
            {"t": "g"},
            "An error occurred while running the tool. Please try again. Error: nope",
        ),
    ]
    _run(project, home, "s1", marked)
    assert {code for _, code in _run(project, home, "s2", marked)} == {"known_failure"}


def test_a_guessed_failure_still_counts_in_its_session() -> None:
    g = Guard()
    seen = []
    for _ in range(3):
        v = g.before_call("Read", {"file_path": "crash.log"})
        seen.append(str(v.code))
        if v.allowed:
            g.after_call(v.call, result="Traceback (most recent call last):\nValueError: x")
    assert seen[-1] == "error_loop"


def _after(result: object) -> tuple[str, float]:
    g = Guard()
    v = g.before_call("fetch", {"u": "x"})
    t = time.perf_counter()
    try:
        got = str(g.after_call(v.call, result=result).action)
    except InvalidArgumentError as exc:
        got = "invalid" if str(exc).startswith("result") else f"names another: {exc}"
    took = time.perf_counter() - t
    if got == "invalid":  # nothing stored: the next call is the first step
        assert g.status()["calls"] == 0
    return got, took


def _deep(n: int) -> list:
    top: list = []
    cur = top
    for _ in range(n):
        nxt: list = []
        cur.append(nxt)
        cur = nxt
    return top


HOSTILE = {
    "deep content": lambda: {"content": _deep(100_000), "isError": True},
    "a million blocks": lambda: {"content": [{"type": "text", "text": "a"}] * 1_000_000},
    "a million blocks, an error": lambda: {
        "content": [{"type": "text", "text": "a"}] * 1_000_000,
        "isError": True,
    },
    "50 MB block, an error": lambda: {
        "content": [{"type": "text", "text": "a" * 50_000_000}],
        "isError": True,
    },
    "70 MB block, an error": lambda: {
        "content": [{"type": "text", "text": "a" * 70_000_000}],
        "isError": True,
    },
    "non-str keys": lambda: {1: "x", "content": "Error: y"},
    "content a dict": lambda: {"content": {"a": 1}, "isError": True},
    "content None": lambda: {"content": None, "isError": True},
    "content an int": lambda: {"content": 5},
    "isError a str": lambda: {"content": "boom", "isError": "true"},
    "100 MB JSON error text": lambda: '{"error": "' + "x" * 100_000_000 + '"}',
    "JSON recursion bomb": lambda: '{"error": ' + "[" * 200_000 + "]" * 200_000 + "}",
    "JSON recursion bomb in a block": lambda: {
        "content": [{"type": "text", "text": "[" * 200_000 + "]" * 200_000}]
    },
    "structuredContent a set": lambda: {"content": "ok", "structuredContent": {"a": {1, 2}}},
    "structuredContent NaN": lambda: {"content": "ok", "structuredContent": [float("nan")]},
    "NaN in JSON text": lambda: {"content": [{"type": "text", "text": '{"a": NaN}'}]},
    "lone surrogate in a failure": lambda: {"content": "boom \ud800", "isError": True},
    "lone surrogate in an error text": lambda: "Error: \ud800",
    "error-json too deep": lambda: {"type": "error-json", "value": _deep(100_000)},
    "exit code huge": lambda: {"exit_code": 10**100, "stdout": "x"},
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_results_are_judged_or_refused_in_bounded_time(name: str) -> None:
    got, took = _after(HOSTILE[name]())
    assert got in ("allow", "nudge", "block", "stop", "invalid")
    assert took < 5.0, (name, took)


def test_a_long_json_text_starting_with_an_error_key_is_not_parsed_whole() -> None:
    """(20 MB of `{"error": "x", "a": [1,1,...]}`: parsed whole, 84 MB and 5 s under
    tracemalloc; a failure object is short.)"""
    import tracemalloc

    text = '{"error": "x", "a": [' + "1," * 10_000_000 + "1]}"
    g = Guard()
    v = g.before_call("fetch", {"u": "x"})
    tracemalloc.start()
    try:
        t = time.perf_counter()
        g.after_call(v.call, result=text)
        took = time.perf_counter() - t
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, peak
    assert took < 2.0, took


def test_a_short_json_failure_text_is_still_read() -> None:
    g = Guard()
    v = g.before_call("fetch", {"u": "x"})
    assert g.after_call(v.call, result='{"error": "no such page"}\n[note]').allowed
    v2 = g.before_call("fetch", {"u": "x"})
    a = g.after_call(v2.call, result='{"error": "no such page"}\n[note]')
    v3 = g.before_call("fetch", {"u": "x"})
    assert (str(a.action), str(v3.code)) == ("allow", "error_loop")
