"""A rule of the guard's semantics refined after the fresh13 trajectories of the loop benchmark
(bench/loops, split fresh13: agent frameworks' own loop-guard tests) showed it wrong in
general: the loop that must now be caught beside the legitimate work that must still pass,
and neighbours beyond the split probed for new false alarms."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crs.guard import Action, Guard

LS = {"command": "ls"}
LISTING = "package.json\nREADME.md\nsrc"


def _run(g: Guard, tool: str, args: dict[str, Any], result: Any) -> Action:
    v = g.before_call(tool, args)
    assert v.allowed, v
    return g.after_call(v.call, result=result).action


def _scroll(g: Guard, k: int, tool: str = "browser_action", **args: Any) -> Action:
    return _run(g, tool, args or {"action": "scroll_down"}, f"screenshot: guide, part {k} of 9")


# ------------------------------------------------ a scroll does not break another call's run


def test_a_command_repeated_between_scrolls_is_a_run() -> None:
    """Kilo Code's "scroll actions interspersed": `ls`, two scrolls, `ls`, a scroll, `ls`,
    the same listing each time: the scrolls moved a page, not the workspace."""
    g = Guard()
    assert _run(g, "execute_command", LS, LISTING) is Action.ALLOW
    assert _scroll(g, 1) is Action.ALLOW
    assert _scroll(g, 2) is Action.ALLOW
    assert _run(g, "execute_command", LS, LISTING) is Action.ALLOW
    assert _scroll(g, 3) is Action.ALLOW
    v = g.before_call("execute_command", LS)
    after = g.after_call(v.call, result=LISTING)
    assert after.action is Action.NUDGE
    assert "scrolls of a page aside" in after.reason
    assert list(after.evidence) == [1, 4, 6]


def test_scroll_tools_named_so_or_with_a_scroll_action() -> None:
    """The tool's name (`scroll_page`, `scrollUp`) or its action (`op: "scrollUp"`)."""
    for tool, args in [
        ("scroll_page", {"direction": "down"}),
        ("scrollUp", {}),
        ("computer", {"op": "scrollUp", "amount": 3}),
        ("mcp__playwright__browser_scroll", {"dy": 600}),
    ]:
        g = Guard()
        read = {"path": "docs/install.md"}
        text = "# Install\nRun make."
        assert _run(g, "read_file", read, text) is Action.ALLOW
        assert _run(g, tool, args, "page moved, part 1") is Action.ALLOW
        assert _run(g, "read_file", read, text) is Action.ALLOW
        assert _run(g, tool, args, "page moved, part 2") is Action.ALLOW
        assert _run(g, "read_file", read, text) is Action.NUDGE, tool


def test_twice_between_scrolls_is_a_check() -> None:
    g = Guard()
    assert _run(g, "execute_command", LS, LISTING) is Action.ALLOW
    assert _scroll(g, 1) is Action.ALLOW
    assert _run(g, "execute_command", LS, LISTING) is Action.ALLOW
    assert _scroll(g, 2) is Action.ALLOW
    assert _run(g, "execute_command", {"command": "npm test"}, "4 passed") is Action.ALLOW


def test_a_click_between_is_no_scroll() -> None:
    """A click may do anything (download a file, run a build): it still breaks the run."""
    g = Guard()
    for k in range(3):
        assert _run(g, "execute_command", LS, LISTING) is Action.ALLOW
        coord = {"action": "click", "coordinate": f"{100 + 40 * k},200"}
        assert _run(g, "browser_action", coord, f"screenshot: tab {k} opened") is Action.ALLOW


def test_a_change_between_breaks_the_run() -> None:
    g = Guard()
    assert _run(g, "execute_command", LS, LISTING) is Action.ALLOW
    assert _scroll(g, 1) is Action.ALLOW
    edit = {"path": "src/cli.ts", "content": "export {}"}
    assert _run(g, "write_to_file", edit, "File written") is Action.ALLOW
    assert _run(g, "execute_command", LS, LISTING) is Action.ALLOW
    assert _scroll(g, 2) is Action.ALLOW
    assert _run(g, "execute_command", LS, LISTING) is Action.ALLOW


def test_a_scroll_of_the_same_tool_may_change_what_it_shows() -> None:
    """`browser_action` reading the page between its own scrolls: the scroll moves what that
    tool shows (a lazy list loads more), so it is no run of one look; the other rules judge."""
    g = Guard()
    text = {"action": "get_text"}
    page = "Feed: 20 posts"
    for k in range(3):
        assert _run(g, "browser_action", text, page) is Action.ALLOW
        assert _scroll(g, k) is Action.ALLOW


def test_the_scroll_is_remembered_by_a_reopened_session(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "h"
    project.mkdir()
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "f") as g:
        assert _run(g, "execute_command", LS, LISTING) is Action.ALLOW
        assert _scroll(g, 1) is Action.ALLOW
        assert _run(g, "execute_command", LS, LISTING) is Action.ALLOW
        assert _scroll(g, 2) is Action.ALLOW
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "f") as g:
        assert _run(g, "execute_command", LS, LISTING) is Action.NUDGE
