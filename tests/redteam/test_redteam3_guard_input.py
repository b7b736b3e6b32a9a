"""Red team, third pass: the `Guard` API's input handling (docs/redteam.md, "Third pass").

Each test reopens the project in a new process where it matters: what is stored must not
change (or break) because of a call the guard refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from crs import CRSError, InvalidArgumentError, JournalConfig, JournalCorruptedError, LocalJournal
from crs._project import open_project
from crs._state._codec import DeltaCodec
from crs.guard import Call, Guard, GuardPolicy, ToolPolicy, _state
from guard_calls import run

MAX_TOOLS = getattr(_state, "MAX_TOOLS", 2_000)  # (the old code had no bound to import)

_REOPEN = """
import json, sys
from crs.guard import Guard
g = Guard.open(sys.argv[1], "s", home=sys.argv[2], fingerprint=lambda: "fp")
print(json.dumps([g.status(), [f.to_dict() for f in g.learned()], g.explain()["recent"]]))
g.close()
"""


def _reopened(project: Path, home: Path) -> Any:
    """status, learned and the recent steps, as a new process opening the project sees them."""
    done = subprocess.run(
        [sys.executable, "-c", _REOPEN, str(project), str(home)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


def _guarded(project: Path, home: Path) -> Guard:
    g = Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    for i in range(2):
        run(g, "make", {"target": "all"}, error=f"error: main.c:{i}: missing ;")
    run(g, "read_file", {"path": "a.py"}, result="print(1)")
    return g


def test_a_hand_built_call_is_refused_and_the_project_still_opens(tmp_path: Path) -> None:
    """`Call` is a public dataclass: one built by hand (from a stored handle, a test) had its
    fields journaled unchecked. A `step` that is not an int was written, then failed to apply
    with a bare TypeError, and every later open of the project failed the same way."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    g = _guarded(project, home)
    real = g.before_call("read_file", {"path": "b.py"}).call
    assert real is not None
    before = _reopened(project, home)
    bad: dict[str, Any] = {
        "step": ["x", -3, 0, 10**40, float("nan"), None],
        "signature": [{"a": 1}, 5, "", "not hex!", "a" * 10_000],
        "call_id": [object(), 5, None],
        "tool": [{"t": 1}, 5, None],
    }
    for field, values in bad.items():
        for value in values:
            forged = Call(**{**real.__dict__, field: value})
            with pytest.raises(InvalidArgumentError, match=rf"^call\.{field}: ") as err:
                g.after_call(forged, result="r")
            assert isinstance(err.value, CRSError)
    g.close()
    assert _reopened(project, home) == before  # nothing stored, and it opens


def test_a_guard_record_of_the_wrong_types_is_a_typed_journal_error(tmp_path: Path) -> None:
    """A guard record read back with a field of the wrong type (damaged with a valid CRC, or
    written by another program) made `Guard.open` fail with a bare TypeError from inside the
    apply function; it is now a `JournalCorruptedError` naming the record, and
    `skip_corrupted_deltas` skips it as it skips other damage."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    _guarded(project, home).close()
    (key,) = [p for p in home.iterdir() if p.is_dir()]
    good = _reopened(project, home)
    payload = {"s": "s", "n": "7", "t": "make", "g": "ab", "r": "cd", "k": 0, "ts": 1}
    with LocalJournal(JournalConfig(path=str(key / "journal"), session_id="x"), DeltaCodec()) as j:
        j.append({"op": "guard.step", "payload": payload, "bump_generation": False})
    with pytest.raises(JournalCorruptedError, match=r"guard\.step.*'n' must be int"):
        Guard.open(project, "s", home=home, fingerprint=lambda: "fp")
    for damaged in ({**payload, "n": 7, "k": 9}, {**payload, "n": 7, "fx": [1]}):
        with LocalJournal(
            JournalConfig(path=str(key / "journal"), session_id="x"), DeltaCodec()
        ) as j:
            j.append({"op": "guard.step", "payload": damaged, "bump_generation": False})
    skipping = JournalConfig(skip_corrupted_deltas=True, shared=True)
    with open_project(project, home, session_id="s", journal_config=skipping) as crs:
        assert crs._parts["guard"].sessions["s"].calls == good[0]["calls"]  # all 3 skipped
        assert crs._journal.stats().corrupted_count == 3


def test_an_error_whose_str_raises_is_recorded_and_the_tools_own_exception_kept(
    tmp_path: Path,
) -> None:
    """`after_call(error=exc)` of an exception whose `__str__` raises ended with that
    RuntimeError; through `@guard.tool` it replaced the tool's own exception."""

    class Odd(Exception):
        def __str__(self) -> str:
            raise RuntimeError("str() of this error fails")

    g = Guard()
    v = g.before_call("t", {"a": 1})
    assert v.call is not None
    assert g.after_call(v.call, error=Odd()).allowed
    (step,) = [r for r in g.explain()["recent"] if r["kind"] == "failure"]
    assert step["step"] == v.call.step

    @g.tool
    def flaky(a: int) -> int:
        raise Odd()

    with pytest.raises(Odd):
        flaky(a=2)
    seen: list[str | None] = []
    g.add_observer(lambda e: seen.append(e.error))
    with pytest.raises(Odd):
        flaky(a=3)
    assert seen[-1] == "Odd: <its str() failed>"


def test_open_checks_every_argument_before_it_creates_the_projects_state(
    tmp_path: Path,
) -> None:
    """`Guard.open` checked `policy`, `fingerprint`, `observers` and the session's length only
    in the constructor, after the project's journal was created; a NUL in `project` or `home`
    and a `home` that is not a path raised ValueError/TypeError."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    before = _tree(tmp_path)
    cases: list[tuple[str, dict[str, Any]]] = [
        ("policy", {"policy": 5}),
        ("fingerprint", {"fingerprint": 5}),
        ("observers", {"observers": 5}),
        ("observer", {"observers": [5]}),
        ("session", {"session": "x" * 300}),
        ("session", {"session": "\ud800"}),
        ("project", {"project": str(tmp_path / "a\x00b")}),
        ("project", {"project": os.fsencode(project)}),
        ("home", {"home": str(home) + "/a\x00b"}),
        ("home", {"home": 5}),
    ]
    for name, kwargs in cases:
        args = {"project": project, "session": "s", "home": home, **kwargs}
        with pytest.raises(InvalidArgumentError, match=rf"^{name}: "):
            Guard.open(args.pop("project"), args.pop("session"), **args)
    assert _tree(tmp_path) == before  # nothing created, not even the home


def test_made_up_tool_names_keep_the_guard_bounded_and_budgets_counted(tmp_path: Path) -> None:
    """A session calling ever new tool names (a model making them up) grew the guard's
    per-tool limits cache and the session's per-tool counts without bound (40,000 names:
    70 MB retained, and every name in each checkpoint). Both are bounded now; the most used
    tools keep their counts, so a per-tool budget still holds."""
    pol = GuardPolicy(tools={"Bash": ToolPolicy(max_calls=4)})
    g = Guard(pol)
    for i in range(3):
        run(g, "Bash", {"command": f"echo {i}"}, result=str(i))
    for i in range(MAX_TOOLS + 2_500):
        run(g, f"made_up_{i}", {"q": "x"}, result="nothing")
    assert len(g._limits) <= 4096
    counts = g.status()["tool_calls"]
    assert len(counts) <= MAX_TOOLS
    assert counts["Bash"] == 3
    run(g, "Bash", {"command": "echo 3"}, result="3")
    assert g.before_call("Bash", {"command": "echo 4"}).action == "stop"  # budget of 4 held
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s", home=home, fingerprint=lambda: "fp") as d:
        for i in range(MAX_TOOLS + 10):
            run(d, f"t{i}", {}, result="")
        live = d.status()
    assert len(live["tool_calls"]) <= MAX_TOOLS
    assert _reopened(project, home)[0] == live  # replay trims the same way


def _deep(levels: int) -> list[Any]:
    top: list[Any] = []
    cur = top
    for _ in range(levels):
        cur.append([])
        cur = cur[0]
    return top


class _NoStr:
    def __str__(self) -> str:
        raise RuntimeError("str() of this result fails")


def test_a_result_nested_too_deep_or_without_a_str_is_a_typed_error_and_the_tool_keeps_it(
    tmp_path: Path,
) -> None:
    """A result nested 100,000 deep (a parser's output) ended `after_call` with a bare
    RecursionError, and one whose `__str__` raises with that error: neither a `CRSError`,
    so `@guard.tool`, `guarded()` and every integration lost the value the tool returned.
    Now `InvalidArgumentError` naming `result`, nothing stored; the decorator and the
    context manager record such a result by its type and return it."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    g = _guarded(project, home)
    before = _reopened(project, home)
    deep = _deep(100_000)
    for result, words in ((deep, "nested too deep"), (_NoStr(), "its str\\(\\) failed")):
        v = g.before_call("parse", {"path": "big.json"})
        assert v.call is not None
        with pytest.raises(InvalidArgumentError, match=rf"^result: {words}"):
            g.after_call(v.call, result=result)
    g.close()
    assert _reopened(project, home) == before
    m = Guard()

    @m.tool
    def parse(path: str) -> Any:
        return deep if path == "deep" else _NoStr()

    assert parse(path="deep") is deep
    assert isinstance(parse(path="odd"), _NoStr)
    with m.guarded("parse", {"path": "ctx"}) as out:
        out.result = deep
    assert out.verdict.allowed
    assert m.status()["calls"] == 3
