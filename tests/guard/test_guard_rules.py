"""The guard's rules (issue 12): what passes, what is nudged, blocked and stopped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import crs
from crs.guard import Action, Guard, GuardPolicy, Verdict, VerdictCode


def run(
    g: Guard, tool: str, args: dict[str, Any], result: Any = None, error: Any = None
) -> tuple[Verdict, Verdict | None]:
    v = g.before_call(tool, args)
    if not v.allowed:
        return v, None
    assert v.call is not None
    return v, g.after_call(v.call, result=result, error=error)


def actions(g: Guard, calls: list[tuple[str, dict[str, Any], Any]]) -> list[str]:
    out = []
    for tool, args, res in calls:
        before, after = run(g, tool, args, res)
        out.append(str(before.action) if after is None else f"{before.action}/{after.action}")
    return out


def test_distinct_reads_pass() -> None:
    g = Guard()
    got = actions(g, [("read_file", {"path": f"src/mod_{i:02}.py"}, "") for i in range(12)])
    assert got == ["allow/allow"] * 12


def test_polling_with_changing_result_passes() -> None:
    g = Guard()
    got = actions(
        g, [("bash", {"command": "gh run view 12"}, f"in progress {i}/10") for i in range(10)]
    )
    assert got == ["allow/allow"] * 10
    v = g.before_call("bash", {"command": "gh run view 12"})
    assert v.code is VerdictCode.POLLING
    assert v.action is Action.ALLOW


def test_retry_after_timeout_passes() -> None:
    g = Guard()
    v1, a1 = run(g, "fetch", {"url": "https://x"}, error=TimeoutError("read timed out"))
    v2, a2 = run(g, "fetch", {"url": "https://x"}, result="<html>")
    assert [v1.action, a1 and a1.action, v2.action, a2 and a2.action] == ["allow"] * 4


def test_repeated_call_nudged_then_blocked_then_stopped() -> None:
    g = Guard()
    seq = [run(g, "read_file", {"path": "a.py"}, "same") for _ in range(3)]
    assert [b.action for b, _ in seq] == ["allow"] * 3
    assert [a.action for _, a in seq if a] == ["allow", "allow", "nudge"]
    nudge = seq[-1][1]
    assert nudge is not None
    assert nudge.code is VerdictCode.REPEATED_CALL
    assert nudge.evidence == (1, 2, 3)
    assert "a.py" not in nudge.message
    b1 = g.before_call("read_file", {"path": "a.py"})
    assert b1.action is Action.BLOCK
    assert b1.code is VerdictCode.REPEATED_CALL
    b2 = g.before_call("read_file", {"path": "a.py"})
    b3 = g.before_call("read_file", {"path": "a.py"})
    assert (b2.action, b3.action) == (Action.BLOCK, Action.STOP)
    # a different call runs
    assert g.before_call("read_file", {"path": "b.py"}).action is Action.ALLOW


def test_cycle_of_three_successful_calls() -> None:
    g = Guard()
    calls = [
        ("search", {"q": "x"}, "r1"),
        ("read_file", {"path": "a"}, "A"),
        ("grep", {"pattern": "x"}, "g"),
    ]
    got = actions(g, calls * 2)
    assert got[:5] == ["allow/allow"] * 5
    assert got[5] == "allow/nudge"
    v = g.before_call("search", {"q": "x"})
    assert v.action is Action.BLOCK
    assert v.code is VerdictCode.CYCLE


def test_signature_ignores_order_whitespace_numbers_and_commentary() -> None:
    g = Guard()
    a = g.call_for("bash", {"command": "ls   -la 'src'", "n": 1.0, "description": "look"})
    b = g.call_for("bash", {"n": 1, "command": "ls -la src"})
    c = g.call_for("bash", {"n": 1, "command": "ls -la tests"})
    assert a.signature == b.signature != c.signature


def test_error_loop_in_session_then_known_failure_in_the_next() -> None:
    state = {"fp": "v1"}
    g = Guard(fingerprint=lambda: state["fp"])
    for _ in range(2):  # a second try is legitimate
        v, a = run(g, "run_build", {"target": "all"}, error="error: undefined symbol foo")
        assert a is not None
        assert v.action is Action.ALLOW
    v = g.before_call("run_build", {"target": "all"})
    assert v.action is Action.BLOCK
    assert v.code is VerdictCode.ERROR_LOOP
    assert "undefined symbol foo" in v.reason
    assert g.before_call("run_build", {"target": "lib"}).action is Action.ALLOW
    later = g.with_session("s2")
    v = later.before_call("run_build", {"target": "all"})
    assert v.action is Action.BLOCK
    assert v.code is VerdictCode.KNOWN_FAILURE
    assert later.before_call("run_build", {"target": "lib"}).action is Action.ALLOW
    state["fp"] = "v2"
    assert later.before_call("run_build", {"target": "all"}).action is Action.ALLOW


def test_durable_guard_remembers_failure_across_sessions(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "main.c").write_text("int main(){}")
    home = tmp_path / "home"
    with Guard.open(project, "s1", home=home) as g:
        run(g, "bash", {"command": "make build"}, error="make: *** [all] Error 2")
        ids = [f.id for f in g.learned()]
    with Guard.open(project, "s2", home=home) as g:
        v = g.before_call("bash", {"command": "make  build"})
        assert v.code is VerdictCode.KNOWN_FAILURE
        assert v.action is Action.BLOCK
        assert [f.id for f in g.learned()] == ids
        (project / "main.c").write_text("int main(){return 0;}")
        assert g.before_call("bash", {"command": "make build"}).action is Action.ALLOW
    with Guard.open(project, "s3", home=home) as g:
        assert g.forget(ids[0])
        assert not g.learned()


def test_durable_guard_continues_loop_detection_after_restart(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Guard.open(tmp_path, "s1", home=home, fingerprint=lambda: "fp") as g:
        run(g, "read_file", {"path": "a.py"}, "x")
        run(g, "read_file", {"path": "a.py"}, "x")
    with Guard.open(tmp_path, "s1", home=home, fingerprint=lambda: "fp") as g:
        _, a = run(g, "read_file", {"path": "a.py"}, "x")
        assert a is not None
        assert a.action is Action.NUDGE


def test_bad_input_is_typed_and_changes_nothing() -> None:
    g = Guard()
    before = json.dumps(g.explain(), sort_keys=True)
    with pytest.raises(crs.InvalidArgumentError, match="tool"):
        g.before_call(3, {})  # type: ignore[arg-type]
    with pytest.raises(crs.InvalidArgumentError, match=r"args\['x'\]"):
        g.before_call("t", {"x": object()})
    with pytest.raises(crs.InvalidArgumentError, match=r"args\['p'\]"):
        g.before_call("t", {"p": "a\ud800"})
    with pytest.raises(crs.InvalidArgumentError, match="args"):
        g.before_call("t", ["not", "a", "mapping"])  # type: ignore[arg-type]
    call = g.call_for("t", {"a": 1})
    with pytest.raises(crs.InvalidArgumentError, match="result"):
        g.after_call(call, result="bad \udcff")
    with pytest.raises(crs.InvalidArgumentError, match="result"):
        g.after_call(call, result=object())
    assert json.dumps(g.explain(), sort_keys=True) == before


def test_verdict_to_dict_is_plain_data() -> None:
    g = Guard()
    v = g.before_call("ls", {"path": "."})
    d = v.to_dict()
    assert d["action"] == "allow"
    assert type(d["action"]) is str
    assert json.loads(json.dumps(d)) == d


def test_policy_is_validated() -> None:
    with pytest.raises(crs.InvalidArgumentError, match="repeat_nudge"):
        GuardPolicy(repeat_nudge=0)
