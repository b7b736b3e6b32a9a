"""Rules of the guard's semantics refined after the fresh21 trajectories of the loop benchmark
(bench/loops, split fresh21: browser and computer-use, data, research, voice and workflow
agents) were measured held out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crs.guard import Action, Guard, VerdictCode


def _run(g: Guard, tool: str, args: dict[str, Any], result: Any = None) -> Any:
    v = g.before_call(tool, args)
    if not v.allowed:
        return v
    return g.after_call(v.call, result=result)


SCREEN = {"type": "computer_screenshot", "image": "[PNG: Billing tab highlighted, content General]"}


def _click_wait(g: Guard, rounds: int, screens: list[Any] | None = None) -> list[Any]:
    got = []
    for k in range(rounds):
        screen = SCREEN if screens is None else screens[k]
        got.append(_run(g, "computer", {"action": "left_click", "x": 516, "y": 148}, screen))
        got.append(_run(g, "computer", {"action": "wait", "duration_ms": 1000}, screen))
    return got


def test_a_click_and_a_wait_with_the_same_screen_each_time_is_a_cycle() -> None:
    """xagent #1208's stuck computer-use loop: click, wait, click, wait on a control that
    does nothing, the same screenshot after each. A wait excuses looking again at
    something that moves by itself, not an action that changed nothing: the cycle is
    reported once it has fully repeated, not after a poll's patience."""
    g = Guard()
    got = _click_wait(g, 4)
    flagged = [k for k, v in enumerate(got) if v.action is not Action.ALLOW]
    assert flagged
    assert flagged[0] <= 4  # (the third click at the latest)
    assert got[flagged[0]].code is VerdictCode.CYCLE


def test_a_click_whose_screen_changes_between_waits_is_progress() -> None:
    """ "Load more", wait, "Load more", wait, each screenshot new: work."""
    g = Guard()
    screens = [
        {"type": "computer_screenshot", "image": f"[PNG: {10 * (k + 1)} rows]"} for k in range(6)
    ]
    assert all(v.action is Action.ALLOW for v in _click_wait(g, 6, screens))


def test_a_status_look_between_sleeps_keeps_a_polls_patience() -> None:
    """A look (not an input action) between waits is a poll, as before: six identical
    "deploying" answers between sleeps pass."""
    g = Guard()
    for _ in range(6):
        assert _run(g, "sleep", {"seconds": 30}, "").action is Action.ALLOW
        v = _run(g, "deploy_status", {"id": "d-1"}, {"status": "deploying"})
        assert v.action is Action.ALLOW, v


def test_the_input_flag_survives_a_reopen(tmp_path: Path) -> None:
    """Kept in the session's durable state: a new process continues the count."""
    home, project = tmp_path / "h", tmp_path / "p"
    with Guard.open(project, "s", home=home, fingerprint=lambda: "f") as g:
        _click_wait(g, 1)
    with Guard.open(project, "s", home=home, fingerprint=lambda: "f") as g:
        got = _click_wait(g, 3)
        assert any(v.action is not Action.ALLOW for v in got)
        assert any(st.inputs for st in g._session().sigs.values())
