"""Red team, sixth pass: what a caller hands the guard grew what it keeps without bound (a
multi-megabyte `call_id`, before_calls never reported), and a plain Python tool's arguments
that are not JSON (a `Path`, a date, a `Decimal`...) could not be guarded at all.

Each durable check reads the project back in a new process: a refused argument leaves what
is stored as it was.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import pathlib
import uuid
from pathlib import Path
from typing import Any

import pytest
from test_redteam5_guard_calls import _open, _reopened

from crs import CRSError, InvalidArgumentError
from crs.guard import Guard, GuardBlockedError
from crs.guard._record import before_call as framework_before_call
from crs.guard._text import call_key
from crs.integrations import claude_code as cc


def _journal_bytes(home: Path) -> int:
    return sum(f.stat().st_size for f in home.rglob("*") if f.is_file() and "journal" in str(f))


# ------------------------------------------------------------------ call_id


def test_a_call_id_longer_than_256_characters_is_refused(tmp_path: Path) -> None:
    """A 4 MB call_id was taken as it was: kept in the pending map and in the set of recorded
    ids (and in an MCP client's pending calls). Now `InvalidArgumentError` naming call_id and
    saying what to do; nothing is stored, and 256 characters still pass."""
    g, project, home = _open(tmp_path)
    with g:
        ok = g.before_call("read_file", {"path": "a.py"}, call_id="k" * 256)
        assert ok.call is not None
        g.after_call(ok.call, result="x")
        size = _journal_bytes(home)
        for long_id in ("k" * 257, "x" * 4_000_000):
            with pytest.raises(InvalidArgumentError, match=r"^call_id: at most 256 characters"):
                g.before_call("read_file", {"path": "b.py"}, call_id=long_id)
            with pytest.raises(InvalidArgumentError, match=r"pass a shorter id"):
                g.call_for("read_file", {"path": "b.py"}, long_id)
        forged = dataclasses.replace(ok.call, call_id="y" * 300)
        with pytest.raises(InvalidArgumentError, match=r"^call\.call_id: "):
            g.after_call(forged, result="x")
        assert g._pending == {}
        assert _journal_bytes(home) == size
        assert g.status()["calls"] == 1
    assert _reopened(project, home, ["s"])["s"][0]["calls"] == 1


def test_call_key_shortens_a_long_id_deterministically() -> None:
    short = "toolu_01ABC"
    assert call_key(short) is short
    assert call_key(None) is None
    assert call_key("z" * 256) == "z" * 256
    long_a, long_b = "a" * 300 + "1", "a" * 300 + "2"
    ka = call_key(long_a)
    assert len(ka) <= 256
    assert ka == call_key("a" * 300 + "1")  # the same id, the same key
    assert ka != call_key(long_b)  # a shared beginning does not merge two ids
    assert ka.startswith("a" * 180 + "~")
    assert len(call_key("\ud800" * 1000)) <= 256  # (a lone surrogate does not break it)


def test_the_hook_pairs_a_long_tool_use_id(tmp_path: Path) -> None:
    """A hook payload's `tool_use_id` of 300,000 characters: its PreToolUse and PostToolUse
    are guarded (not failed open on the long id) and pair as one call."""
    g, project, home = _open(tmp_path)
    long_id = "toolu_" + "9" * 300_000

    def event(name: str, **extra: Any) -> dict[str, Any]:
        return {
            "session_id": "s",
            "cwd": str(project),
            "hook_event_name": name,
            "tool_name": "Read",
            "tool_input": {"file_path": "/repo/a.py"},
            "tool_use_id": long_id,
            **extra,
        }

    with g:
        for _ in range(2):
            for name, extra in (("PreToolUse", {}), ("PostToolUse", {"tool_response": "body"})):
                child = g.with_session("s")
                cc.answer(child, event(name, **extra), name, "deny")
                child.close()
        status = g.status()
    assert status["calls"] == 2
    assert status["last_step"] == 2
    assert _reopened(project, home, ["s"])["s"][0]["calls"] == 2


def test_a_framework_call_id_is_shortened_not_refused(tmp_path: Path) -> None:
    """The frameworks' and MCP's ids (a LangChain tool call id, an Agents SDK call id, an
    MCP client's call_id) go through `crs.guard._record`: a long one is shortened by
    `call_key`, and the same id names the same call."""
    g = Guard()
    long_id = "run-" + "f" * 10_000
    v = framework_before_call(g, "read_file", {"path": "a.py"}, long_id)
    assert v.call is not None
    assert v.call.call_id == call_key(long_id)
    assert len(v.call.call_id) <= 256
    call = g.call_for("read_file", {"path": "a.py"}, call_key(long_id))
    assert call is v.call  # (its step, not a second one)
    assert g.after_call(call, result="x").allowed
    assert g.status()["calls"] == 1


def test_an_mcp_client_pairs_a_long_call_id(tmp_path: Path) -> None:
    """An MCP client names its calls by ids of 50,000 characters: `check_call` and
    `record_result` with the same id pair as one call (the id shortened by `call_key`),
    and the same output three times is the loop it is."""
    import asyncio
    import json

    from fastmcp import Client

    from crs.integrations.mcp import create_server

    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()

    async def main() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        out = []
        with Guard.open(project, "m", home=home, fingerprint=lambda: "fp") as guard:
            async with Client(create_server(guard), timeout=60) as client:
                for i in range(3):
                    cid = f"{i}-" + "c" * 50_000
                    args = {"tool": "tail", "arguments": {"path": "log"}, "call_id": cid}
                    before = await client.call_tool("check_call", args)
                    assert json.loads(before.content[0].text)["allowed"]  # type: ignore[union-attr]
                    r = await client.call_tool(
                        "record_result", {"call_id": cid, "result": "same"}, raise_on_error=False
                    )
                    assert not r.is_error, r
                    out.append(json.loads(r.content[0].text))  # type: ignore[union-attr]
            return out, guard.with_session("m").status()

    verdicts, status = asyncio.run(main())
    assert [v["call"]["step"] for v in verdicts] == [1, 2, 3]
    assert all(len(v["call"]["call_id"]) <= 256 for v in verdicts)
    assert verdicts[-1]["code"] == "repeated_call"
    assert status["calls"] == 3


# ------------------------------------------------------------------ pending calls


def test_before_calls_never_reported_stay_bounded(tmp_path: Path) -> None:
    """10,000 before_calls with no after_call grew the pending map to 10,000 entries (and a
    clear() at 4097 dropped the newest calls too). Now at most 4096, the oldest half dropped:
    the newest calls still complete, and a dropped one's after_call is recorded as a Call
    this guard did not hand out (a second report of it is refused)."""
    g, project, home = _open(tmp_path)
    with g:
        calls = []
        for i in range(10_000):
            v = g.before_call("read_file", {"path": f"f{i}.py"})
            assert v.call is not None
            calls.append(v.call)
            assert len(g._pending) <= 4096
        assert len(g._pending) > 2048
        for call in calls[-20:]:
            assert call.call_id in g._pending
            assert g.after_call(call, result=call.call_id).allowed
        oldest = calls[0]
        assert oldest.call_id not in g._pending
        assert g.after_call(oldest, result="old").allowed
        with pytest.raises(InvalidArgumentError, match=r"^call: .* was recorded already"):
            g.after_call(oldest, result="old")
        assert g.status()["calls"] == 21
    assert _reopened(project, home, ["s"])["s"][0]["calls"] == 21


def test_an_after_call_reported_from_two_threads_at_once_is_recorded_once() -> None:
    """The pending entry is taken under the guard's lock: two threads reporting one call
    record it once, the other gets the typed error."""
    import threading

    g = Guard()
    outcomes: list[str] = []
    for i in range(200):
        v = g.before_call("read_file", {"path": f"{i}.py"})
        assert v.call is not None
        gate = threading.Barrier(2)

        def report(call: Any = v.call, gate: threading.Barrier = gate) -> None:
            gate.wait()
            try:
                g.after_call(call, result="x")
                outcomes.append("ok")
            except InvalidArgumentError:
                outcomes.append("refused")

        threads = [threading.Thread(target=report) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    assert outcomes.count("ok") == 200
    assert outcomes.count("refused") == 200
    assert g.status()["calls"] == 200


# ------------------------------------------------------------------ plain Python tools


class _Color(enum.Enum):
    RED = "red"


_VALUES: list[tuple[str, Any, Any]] = [
    ("path", pathlib.Path("/repo/a.py"), pathlib.Path("/repo/b.py")),
    ("pure path", pathlib.PurePosixPath("/x/y"), pathlib.PurePosixPath("/x/z")),
    ("datetime", datetime.datetime(2026, 1, 2, 3, 4, 5), datetime.datetime(2026, 1, 2, 3, 4, 6)),
    ("date", datetime.date(2026, 1, 2), datetime.date(2026, 1, 3)),
    ("decimal", decimal.Decimal("1.10"), decimal.Decimal("1.1")),
    ("uuid", uuid.UUID(int=5), uuid.UUID(int=6)),
    ("nan", float("nan"), float("inf")),
    ("-inf", float("-inf"), float("inf")),
    ("bytes", b"\x00\xffdata", b"\x00\xffdatb"),
    ("big bytes", b"\x01" * 100_000, b"\x02" * 100_000),
    ("set", {3, 1, 2}, {1, 2}),
    ("frozenset", frozenset({"b", "a"}), frozenset({"a"})),
    ("tuple", (1, "a"), (1, "b")),
    ("enum", _Color.RED, "blue"),
    ("nested", {"when": datetime.date(2026, 1, 2), "paths": [pathlib.Path("a")]}, {"x": 1}),
]


def _blocked_after(fn: Any, value: Any) -> int:
    """The call (1-based) of `fn(value)` the guard refuses, repeated with the same result."""
    for n in range(1, 15):
        try:
            fn(value)
        except GuardBlockedError:
            return n
    return 0


@pytest.mark.parametrize(("kind", "value", "other"), _VALUES, ids=[v[0] for v in _VALUES])
def test_a_plain_tool_with_python_values_is_guarded_like_json(
    kind: str, value: Any, other: Any
) -> None:
    """`@guard.tool` on a function given a `Path` (a date, a `Decimal`, a set...) raised
    InvalidArgumentError ("must be JSON data") on every call: such a tool could not be
    guarded. Now each value has one deterministic JSON form: the same call made again is a
    repeat, refused as soon as the same loop with a JSON argument is, and another value is
    another call."""
    baseline, g = Guard(), Guard()
    ran: list[Any] = []

    @baseline.tool
    def lookup_json(target: Any) -> str:
        return "the same answer"

    @g.tool
    def lookup(target: Any) -> str:
        ran.append(target)
        return "the same answer"

    want = _blocked_after(lookup_json, "/repo/a.py")
    assert want > 0  # (a loop of one JSON call is refused)
    assert _blocked_after(lookup, value) == want
    assert ran[0] is value  # the function gets its own value, not the guard's form of it
    sigs = {r["signature"] for r in g.explain()["recent"]}
    assert len(sigs) == 1  # the same signature every time (no repr with an address)
    with Guard() as h:

        @h.tool
        def look(target: Any) -> str:
            return "x"

        look(value)
        look(other)
        assert len({r["signature"] for r in h.explain()["recent"]}) == 2


def test_guarded_takes_a_path_and_an_object_without_form_is_refused() -> None:
    g = Guard()
    with g.guarded("read", {"path": pathlib.Path("/repo/a.py")}) as out:
        out.result = "body"
    assert out.verdict.allowed
    ran: list[Any] = []

    class Handle:
        pass

    @g.tool
    def use(handle: Any, n: int = 1) -> str:
        ran.append(handle)
        return "x"

    with pytest.raises(InvalidArgumentError, match=r"^args\['handle'\]: a Handle has no ") as e:
        use(Handle())
    assert isinstance(e.value, CRSError)
    assert "0x" not in str(e.value)
    assert ran == []  # refused before the tool ran, and nothing recorded
    with pytest.raises(InvalidArgumentError, match=r"^args\['handle'\]\[0\]: a Handle "):
        use([Handle()])
    assert g.status()["calls"] == 1
