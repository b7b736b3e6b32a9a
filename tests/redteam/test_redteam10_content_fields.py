"""Red team, tenth pass: tools whose content arrives in a field the guard reads as the
model's commentary (`description`, `summary`, `comment`, `note`): Jira's `summary`, a
calendar event's, Linear's `description`, a comment added. Through a real fastmcp server
guarded by the MCP middleware and its in-memory `Client`, and durable guards reopened."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from crs.guard import Guard
from crs.integrations.mcp import GuardMiddleware

ISSUES = [
    ("Login fails on Safari", "Steps: open the login page on Safari 17"),
    ("Crash on save", "The editor crashes when saving a file over 2 MB"),
    ("Dark mode contrast", "Buttons are unreadable in dark mode"),
    ("Typo in footer", "The copyright year is wrong"),
]


def _server(guard: Guard, made: list[dict[str, Any]]) -> Any:
    from fastmcp import FastMCP

    server = FastMCP("jira", middleware=[GuardMiddleware(guard)])

    @server.tool
    def jira_create_issue(project_key: str, issue_type: str, summary: str, description: str) -> str:
        """Create a Jira issue."""
        made.append({"summary": summary, "description": description})
        return f'{{"key": "{project_key}-{100 + len(made)}", "id": "{10000 + len(made)}"}}'

    @server.tool
    def jira_add_comment(issue_key: str, comment: str) -> str:
        """Comment on an issue."""
        made.append({"comment": comment})
        return f'{{"id": "{20000 + len(made)}", "issue": "{issue_key}"}}'

    return server


def _calls(server: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[bool]:
    from fastmcp import Client

    async def main() -> list[bool]:
        async with Client(server) as client:
            return [
                (await client.call_tool(name, args, raise_on_error=False)).is_error
                for name, args in calls
            ]

    return asyncio.run(main())


def test_issues_filed_with_other_summaries_are_not_one_duplicate_call() -> None:
    """`summary` and `description` were left out of the signature (commentary fields): four
    different issues in one project were one call made four times, so the second was
    nudged as a duplicate ("this call already succeeded ... and returned PROJ-101") and
    the third and fourth were refused, never filed. For a tool that creates or changes
    records they are its content now; the same issue filed again is still a duplicate."""
    made: list[dict[str, Any]] = []
    server = _server(Guard(), made)
    errors = _calls(
        server,
        [
            (
                "jira_create_issue",
                {"project_key": "PROJ", "issue_type": "Bug", "summary": s, "description": d},
            )
            for s, d in ISSUES
        ],
    )
    assert errors == [False] * 4
    assert [m["summary"] for m in made] == [s for s, _ in ISSUES]
    again = {
        "project_key": "PROJ",
        "issue_type": "Bug",
        "summary": "Login fails on Safari",
        "description": "Steps: open the login page on Safari 17",
    }
    assert _calls(server, [("jira_create_issue", again)] * 2) == [False, True]  # a duplicate


def test_distinct_comments_on_one_issue_are_all_added() -> None:
    made: list[dict[str, Any]] = []
    server = _server(Guard(), made)
    comments = ["Reproduced on 17.1", "Also on iOS", "Fixed by #42", "Verified on staging"]
    calls = [("jira_add_comment", {"issue_key": "PROJ-7", "comment": c}) for c in comments]
    assert _calls(server, calls) == [False] * 4
    assert [m["comment"] for m in made] == comments


def test_a_fixed_description_is_not_the_call_that_failed(tmp_path: Path) -> None:
    """A change refused for its description ("too long"), fixed, in the next session of the
    unchanged workspace: it was "this exact call already failed" (the description was not
    part of the call), so the model's fix was refused."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    long = "x" * 40000
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "fp") as g:
        v = g.before_call("jira_update_issue", {"issue_key": "PROJ-7", "description": long})
        g.after_call(v.call, error="400 Bad Request: description: too long (max 32767)")
        assert len(g.learned()) == 1
    with Guard.open(project, "s2", home=home, fingerprint=lambda: "fp") as g:
        fixed = {"issue_key": "PROJ-7", "description": "A short description"}
        assert g.before_call("jira_update_issue", fixed).allowed
        same = {"issue_key": "PROJ-7", "description": long}
        assert g.before_call("jira_update_issue", same).code == "known_failure"  # (held)


def test_commentary_is_still_left_out_where_it_is_commentary() -> None:
    """What held and must hold: Claude Code's `Bash` `description` says what the command
    does (the same command reworded is one call), and a read's `reason` is the model's."""
    g = Guard()
    a = g.call_for("Bash", {"command": "npm test", "description": "Run the tests"})
    b = g.call_for("Bash", {"command": "npm test", "description": "Run the test suite"})
    assert a.signature == b.signature
    c = g.call_for("read_file", {"path": "a.py", "description": "see the config"})
    d = g.call_for("read_file", {"path": "a.py", "description": "look again"})
    assert c.signature == d.signature
    e = g.call_for("create_issue", {"title": "Bug", "reason": "the user asked"})
    f = g.call_for("create_issue", {"title": "Bug", "reason": "as requested"})
    assert e.signature == f.signature  # the model's reason, not the issue's content
