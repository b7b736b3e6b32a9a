"""Claude Code conformance: the real `python -m crs hook claude-code` (and the installed thin
client with its resident server) fed the payloads of the hooks reference
(code.claude.com/docs/en/hooks, read as of 2026-08), every answer checked against the
documented output schema of its event.

What the reference says and these tests hold the hook to:
- exit code 0 with a JSON object on stdout (or nothing); only exit 2 blocks and crs never
  uses it; a hook's strings are capped at 10,000 characters;
- universal fields `continue`, `stopReason` (only with `continue: false`), `systemMessage`,
  `suppressOutput`; `hookSpecificOutput.hookEventName` equal to the event;
- PreToolUse decides through `hookSpecificOutput.permissionDecision` (allow/deny/ask/defer) and
  `permissionDecisionReason` (the top-level `decision` is deprecated there); PostToolUse,
  PostToolUseFailure, Stop and SubagentStop use a top-level `decision: "block"` with a
  `reason`; event-specific fields only where the event documents them;
- Stop and SubagentStop carry `last_assistant_message` and `stop_hook_active`; a Stop hook's
  `decision: "block"` or `additionalContext` makes Claude go on, `continue: false` ends the
  turn whatever the other hooks said;
- subagents' tool events carry `agent_id`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _claude_code_hooks import Agent, Reply, answered, env_for, make_project, run_hook

from crs.integrations import claude_code

MAX_TEXT = 10_000
UNIVERSAL = {"continue", "stopReason", "suppressOutput", "systemMessage", "terminalSequence"}
TOP_DECISION = {"PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "UserPromptSubmit"}
SPECIFIC = {
    "PreToolUse": {"permissionDecision", "permissionDecisionReason", "updatedInput"},
    "PostToolUse": {"updatedToolOutput", "updatedMCPToolOutput"},
    "PostToolUseFailure": set(),
    "UserPromptSubmit": {"sessionTitle"},
    "SessionStart": {"initialUserMessage", "sessionTitle", "watchPaths", "reloadSkills"},
    "Stop": set(),
    "SubagentStop": set(),
}


def conforms(event: str, reply: Reply) -> dict[str, Any]:
    """The reply's JSON document (or {}), asserted to be valid output for `event`."""
    assert reply.code == 0, reply.stderr
    doc = reply.doc or {}
    assert isinstance(doc, dict)
    allowed = UNIVERSAL | ({"decision", "reason"} if event in TOP_DECISION else set())
    allowed |= {"hookSpecificOutput"}
    assert set(doc) <= allowed, (event, doc)
    if "continue" in doc:
        assert isinstance(doc["continue"], bool)
    if "stopReason" in doc:
        assert doc.get("continue") is False, doc  # shown only when the turn is ended
    if "decision" in doc:
        assert doc["decision"] == "block", doc
        assert isinstance(doc.get("reason"), str), doc
    specific = doc.get("hookSpecificOutput")
    if specific is not None:
        assert specific.get("hookEventName") == event, doc
        keys = set(specific) - {"hookEventName"}
        assert keys <= SPECIFIC[event] | {"additionalContext"}, (event, doc)
        if "permissionDecision" in specific:
            assert specific["permissionDecision"] in ("allow", "deny", "ask", "defer")
            assert isinstance(specific.get("permissionDecisionReason"), str)
    for text in _strings(doc):
        assert len(text) <= MAX_TEXT
    return doc


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


@pytest.fixture(params=["in-process", "server"])
def via(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    with answered(request.param, tmp_path / "home") as env:
        yield env


def test_a_loop_is_nudged_next_to_the_result_then_denied_then_the_turn_is_ended(
    tmp_path: Path, project: Path, via: dict[str, str]
) -> None:
    agent = Agent(tmp_path / "home", project, "sess-loop", extra=via)
    read = {"file_path": str(project / "main.c")}
    seen: list[tuple[str, dict[str, Any]]] = []
    for _ in range(7):
        pre, post = agent.call(
            "Read", read, response={"content": "int main(void) { return foo(); }\n"}
        )
        seen.append(("pre", conforms("PreToolUse", pre)))
        if post is not None:
            seen.append(("post", conforms("PostToolUse", post)))
    nudges = [d for k, d in seen if k == "post" and d]
    denials = [d for k, d in seen if k == "pre" and d]
    # the nudge: context next to the tool result, for Claude; the tool ran
    assert nudges
    assert "additionalContext" in nudges[0]["hookSpecificOutput"]
    # then denied before it runs, the reason for Claude
    first = denials[0]["hookSpecificOutput"]
    assert first["permissionDecision"] == "deny"
    assert "continue" not in denials[0]  # a block: Claude reads the reason and goes on
    # then the loop goes on regardless: the documented end of the turn, a reason for the user
    stops = [d for d in denials if d.get("continue") is False]
    assert stops, denials
    assert stops[0]["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert stops[0]["stopReason"].startswith("crs stopped the agent (repeated_call)")


def test_a_failure_event_is_recorded_as_the_failure_it_is(
    tmp_path: Path, project: Path, via: dict[str, str]
) -> None:
    agent = Agent(tmp_path / "home", project, "sess-fail", extra=via)
    error = "Exit code 1\nError: Cannot find module 'express'"
    tries = [agent.call("Bash", {"command": "npm test"}, error=error) for _ in range(3)]
    for pre, post in tries[:2]:  # each ran and failed: PostToolUseFailure, the tool's error
        conforms("PreToolUse", pre)
        assert post is not None
        conforms("PostToolUseFailure", post)
    third, not_run = tries[2]
    assert not_run is None
    assert conforms("PreToolUse", third)["hookSpecificOutput"]["permissionDecision"] == "deny"
    # an interrupt (is_interrupt: true) is the user's abort, not the tool's failure
    ident = {"tool_name": "Bash", "tool_input": {"command": "npm run e2e"}, "tool_use_id": "t-i"}
    for _ in range(3):
        conforms("PreToolUse", agent.event("PreToolUse", **ident))
        r = agent.event("PostToolUseFailure", **ident, error="Interrupted", is_interrupt=True)
        assert conforms("PostToolUseFailure", r) == {}
    # a new session is told at SessionStart (context only) what the failure was
    second = Agent(tmp_path / "home", project, "sess-next", extra=via)
    doc = conforms("SessionStart", second.event("SessionStart", source="startup", model="m"))
    context = doc["hookSpecificOutput"]["additionalContext"]
    assert "Cannot find module 'express'" in context
    assert "npm run e2e" not in context
    assert set(doc) == {"hookSpecificOutput"}


def test_a_repeating_agent_at_stop_is_told_then_its_turn_is_ended(
    tmp_path: Path, project: Path, via: dict[str, str]
) -> None:
    """A Stop hook of the user's (or /goal) keeps Claude going; it answers the same thing
    again and again without a tool call. crs nudges, then ends the turn with `continue:
    false`, which takes precedence over the other hook's `decision: block`."""
    agent = Agent(tmp_path / "home", project, "sess-mono", extra=via)
    conforms("UserPromptSubmit", agent.event("UserPromptSubmit", prompt="refactor the parser"))
    said = "I have finished refactoring the parser module; every test passes now."
    first = agent.event("Stop", stop_hook_active=False, last_assistant_message=said)
    assert conforms("Stop", first) == {}  # an ordinary end of turn: nothing to say
    docs = [
        conforms("Stop", agent.event("Stop", stop_hook_active=True, last_assistant_message=said))
        for _ in range(3)
    ]
    nudge = next(d for d in docs if d)
    assert nudge["systemMessage"].startswith("crs: ")  # for the user
    # the conversation goes on anyway (stop_hook_active): the guard's message for the model
    assert "repeating yourself" in nudge["hookSpecificOutput"]["additionalContext"]
    assert "decision" not in nudge
    assert "continue" not in nudge
    ended = docs[-1]
    assert ended["continue"] is False
    assert "(monologue)" in ended["stopReason"]
    assert "decision" not in ended
    assert "hookSpecificOutput" not in ended
    # a new prompt from the user is a new request: no carry-over
    agent.event("UserPromptSubmit", prompt="now the lexer")
    again = agent.event("Stop", stop_hook_active=False, last_assistant_message=said)
    assert conforms("Stop", again) == {}


def test_the_same_answer_to_prompts_that_ask_nothing_new_is_a_monologue(
    tmp_path: Path, project: Path, via: dict[str, str]
) -> None:
    """UserPromptSubmit passes the prompt: "any update?" answered with the same text and no
    tool call, turn after turn, is told at Stop; a new question is a new request."""
    agent = Agent(tmp_path / "home", project, "sess-pings", extra=via)
    said = "I am still working on the migration, please wait a few more minutes."
    docs = []
    for prompt in ["migrate the users table", "any update?", "hello? still waiting"]:
        conforms("UserPromptSubmit", agent.event("UserPromptSubmit", prompt=prompt))
        docs.append(
            conforms(
                "Stop", agent.event("Stop", stop_hook_active=False, last_assistant_message=said)
            )
        )
    assert docs[:2] == [{}, {}]
    assert docs[2]["systemMessage"].startswith("crs: the agent gave the same answer to 3 user")
    agent.event("UserPromptSubmit", prompt="now the orders table, with its indexes")
    again = agent.event("Stop", stop_hook_active=False, last_assistant_message=said)
    assert conforms("Stop", again) == {}
    # different questions answered alike are a chat
    other = Agent(tmp_path / "home", project, "sess-chat", extra=via)
    for prompt in ["migrate the users table", "and the orders table", "and the audit log"]:
        other.event("UserPromptSubmit", prompt=prompt)
        stop = other.event("Stop", stop_hook_active=False, last_assistant_message=said)
        assert conforms("Stop", stop) == {}


def test_a_nudge_at_a_stop_nobody_continues_does_not_make_claude_go_on(
    tmp_path: Path, project: Path
) -> None:
    """Without `stop_hook_active`, context or `decision: block` at Stop would itself make
    Claude continue: a nudge is only a message for the user."""
    agent = Agent(tmp_path / "home", project, "sess-quiet", extra={"CRS_HOOK_DAEMON": "0"})
    said = "Waiting for the deployment to finish before I check the logs again."
    docs = [
        conforms("Stop", agent.event("Stop", stop_hook_active=False, last_assistant_message=said))
        for _ in range(3)
    ]
    assert docs[-1] == {"systemMessage": docs[-1]["systemMessage"]}
    # an older Claude Code without last_assistant_message: nothing to check, no output
    assert conforms("Stop", agent.event("Stop", stop_hook_active=False)) == {}


def test_subagents_are_sessions_of_their_own(tmp_path: Path, project: Path) -> None:
    """Three Explore subagents each read the same two files: six identical reads in one
    Claude Code session, but no subagent repeats itself."""
    agent = Agent(tmp_path / "home", project, "sess-sub", extra={"CRS_HOOK_DAEMON": "0"})
    paths = [str(project / "main.c"), str(project / "README.md")]
    for sub in ("a1", "a2", "a3"):
        for path in paths:
            ident = {
                "tool_name": "Read",
                "tool_input": {"file_path": path},
                "tool_use_id": f"t-{sub}-{path[-6:]}",
                "agent_id": sub,
                "agent_type": "Explore",
            }
            for _ in range(2):
                assert conforms("PreToolUse", agent.event("PreToolUse", **ident)) == {}
                post = agent.event("PostToolUse", **ident, tool_response={"content": "x"})
                assert conforms("PostToolUse", post) == {}
        stop = agent.event(
            "SubagentStop",
            stop_hook_active=False,
            agent_id=sub,
            agent_type="Explore",
            agent_transcript_path=str(tmp_path / f"{sub}.jsonl"),
            last_assistant_message="Analysis complete. Found 3 potential issues.",
        )
        assert conforms("SubagentStop", stop) == {}
    # the same six reads by the main agent: a loop
    for _ in range(2):
        for path in paths:
            agent.call("Read", {"file_path": path}, response={"content": "x"})
    assert any(r.doc for _, r in agent.log[-8:])


def test_the_installed_hooks_have_the_documented_settings_shape(tmp_path: Path) -> None:
    merged = claude_code.merge_settings(
        {"model": "opus"}, "/usr/bin/python3 hook crs hook claude-code"
    )
    assert merged["model"] == "opus"
    assert set(merged["hooks"]) == set(claude_code.EVENTS)
    assert {"PostToolUseFailure", "Stop", "SubagentStop"} <= set(claude_code.EVENTS)
    tool_events = {"PreToolUse", "PostToolUse", "PostToolUseFailure"}
    for event, groups in merged["hooks"].items():
        (group,) = groups
        if event in tool_events:
            assert group["matcher"] == "*"  # every tool
        else:
            assert "matcher" not in group  # every source / agent type; ignored where unsupported
        (handler,) = group["hooks"]
        assert handler["type"] == "command"
        assert isinstance(handler["timeout"], int)
        assert 0 < handler["timeout"] <= 600


def test_every_event_answers_valid_output_or_nothing_on_bad_payloads(
    tmp_path: Path, project: Path
) -> None:
    env = env_for(tmp_path / "home", CRS_HOOK_DAEMON="0")
    base = {"session_id": "s", "cwd": str(project), "transcript_path": "/t.jsonl"}
    for event in claude_code.EVENTS:
        for extra in ({}, {"tool_name": 7}, {"last_assistant_message": ["x"]}, {"agent_id": 3}):
            r = run_hook({**base, "hook_event_name": event, **extra}, env)
            conforms(event, r)
    for raw in ("", "[]", "{", json.dumps({"hook_event_name": "PreToolUse"})):
        r = run_hook(raw, env)
        assert (r.code, r.doc) == (0, None)
    r = run_hook({**base, "hook_event_name": "Notification", "message": "hi"}, env)
    assert (r.code, r.doc) == (0, None)  # an event crs does not handle: no opinion
