"""Duplicate creates: a call that creates a record (`ToolPolicy.creates`, or a name such as
`create_issue`, `send_email`, `wordpress_publish`) succeeding again with the same arguments
made a second record, however new its result looks (a new id). The second success is nudged
(the message says what the first returned, not the arguments), a third run is refused, and
the ladder goes on to STOP; a journaled guard continues in a new process. Legitimate
repeats (polling `send_keys`, a calculator's `add_numbers`, another file created, other
arguments) are never taken for duplicates."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crs import InvalidArgumentError
from crs.guard import Action, Guard, GuardPolicy, ToolPolicy, Verdict, VerdictCode
from crs.guard._state import SigState

TITLE = "Event roundup: Nov 30"
POST = {"title": TITLE, "content": "Open mic at 8pm. Jazz trio at 9pm.", "status": "publish"}


def run(g: Guard, tool: str, args: dict[str, Any], result: Any) -> tuple[Verdict, Verdict | None]:
    v = g.before_call(tool, args)
    if not v.allowed:
        return v, None
    assert v.call is not None
    return v, g.after_call(v.call, result=result)


def done(g: Guard, tool: str, args: dict[str, Any], result: Any) -> Verdict:
    """`after_call`'s verdict of a call `before_call` let run."""
    v, after = run(g, tool, args, result)
    assert after is not None, v.reason
    return after


def publish(
    g: Guard, n: int, tool: str = "wordpress_publish", first: int = 4812
) -> list[tuple[Verdict, Any]]:
    ids = itertools.count(first)
    return [run(g, tool, POST, json.dumps({"post_id": next(ids)})) for _ in range(n)]


def test_the_second_success_of_a_publish_is_nudged_then_blocked_then_stopped() -> None:
    g = Guard()
    run(g, "fetch_events", {"date": "2026-11-30"}, '[{"title": "Open mic"}]')
    out = publish(g, 5)
    first, second = out[0][1], out[1][1]
    assert first is not None
    assert first.action is Action.ALLOW
    assert second is not None
    assert second.action is Action.NUDGE
    assert second.code is VerdictCode.REPEATED_CALL
    assert second.evidence == (2, 3)
    assert "4812" in second.message  # what the first call returned
    assert TITLE not in second.message
    assert "Jazz trio" not in second.message
    assert "duplicate" in second.reason
    befores = [b for b, _ in out[2:]]
    assert [b.action for b in befores] == [Action.BLOCK, Action.BLOCK, Action.STOP]
    assert all(b.code is VerdictCode.REPEATED_CALL for b in befores)
    assert "4812" in befores[0].message
    assert TITLE not in befores[0].message


def test_an_explicit_creating_tool_is_nudged_even_when_its_answer_is_the_same() -> None:
    policy = GuardPolicy(tools={"notify": ToolPolicy(creates=True)})
    g = Guard(policy)
    _, a = run(g, "notify", {"to": "ops", "text": "deploy done"}, "Sent.")
    _, b = run(g, "notify", {"to": "ops", "text": "deploy done"}, "Sent.")
    assert a is not None
    assert a.action is Action.ALLOW
    assert b is not None
    assert b.action is Action.NUDGE
    assert "Sent." in b.message
    assert g.before_call("notify", {"to": "ops", "text": "deploy done"}).action is Action.BLOCK
    # another message is another record
    c = done(g, "notify", {"to": "ops", "text": "rollback done"}, "Sent.")
    assert c.action is Action.ALLOW


def test_a_name_alone_needs_another_result_to_count_as_creating() -> None:
    """Inferred from its name, a tool whose second run answered the same is left to the
    repeat rules (three in a row), as before."""
    g = Guard()
    args = {"to": "a@example.com", "subject": "Invoice", "body": "Attached."}
    verdicts = [run(g, "send_email", args, "Email sent.")[1] for _ in range(3)]
    assert [v.action for v in verdicts if v is not None] == [
        Action.ALLOW,
        Action.ALLOW,
        Action.NUDGE,
    ]
    assert "same result 3 times" in verdicts[2].reason  # type: ignore[union-attr]


def test_a_creating_name_whose_answer_changes_in_words_is_polled_not_duplicated() -> None:
    """Another agent asked through `send_message` answers in other words each time (a poll
    of its progress); a record made again answers in the same words with another id."""
    g = Guard()
    args = {"to": "researcher", "text": "Any findings on the outage?"}
    for answer in ["Still reading the logs.", "Found a timeout in the gateway.", "Done: DNS."]:
        after = done(g, "send_message", args, answer)
        assert after.action is Action.ALLOW
    _, a = run(g, "send_message", {"to": "ops", "text": "Deploy done"}, "sent as msg-1a2b3c")
    _, b = run(g, "send_message", {"to": "ops", "text": "Deploy done"}, "sent as msg-9f8e7d")
    assert a is not None
    assert a.action is Action.ALLOW
    assert b is not None
    assert b.action is Action.NUDGE


@pytest.mark.parametrize(
    "tool",
    ["create_issue", "mcp__github__create_issue", "createIssue", "insert_row", "post_message"],
)
def test_creating_names(tool: str) -> None:
    g = Guard()
    a = run(g, tool, {"title": "Crash on start"}, '{"id": 101}')[1]
    b = run(g, tool, {"title": "Crash on start"}, '{"id": 102}')[1]
    assert a is not None
    assert a.action is Action.ALLOW
    assert b is not None
    assert b.action is Action.NUDGE
    assert "101" in b.message


@pytest.mark.parametrize(
    ("tool", "args", "results"),
    [
        # a terminal polled through send_keys: the same keys, new output each time
        ("send_keys", {"session": "build", "keys": "Enter"}, [f"line {i}" for i in range(20)]),
        ("tmux_send_keys", {"target": "0", "keys": "j"}, [f"page {i}" for i in range(20)]),
        # an HTTP tool that posts a status query
        ("http_post", {"url": "https://ci/api", "body": "{job}"}, ["queued", "running", "done"]),
        ("send_request", {"url": "/status"}, ["queued", "running", "running 2", "done"]),
        ("check_new_messages", {"inbox": "me"}, ["0 new", "1 new", "3 new"]),
        ("get_schedule_events", {"day": "mon"}, ["a", "b", "c"]),
        ("open_page", {"url": "https://news"}, ["news 1", "news 2", "news 3"]),
    ],
)
def test_repeated_sends_that_create_nothing_are_never_duplicates(
    tool: str, args: dict[str, Any], results: list[str]
) -> None:
    g = Guard()
    for r in results:
        v, after = run(g, tool, args, r)
        assert v.action is Action.ALLOW
        assert after is not None
        assert after.action is Action.ALLOW, after.reason


def test_a_calculator_and_other_files_are_no_duplicates() -> None:
    g = Guard()
    for i in range(30):
        after = done(g, "add_numbers", {"a": i, "b": i + 1}, str(2 * i + 1))
        assert after.action is Action.ALLOW
    again = done(g, "add_numbers", {"a": 2, "b": 3}, "5")
    assert again.action is Action.ALLOW
    for i in range(12):  # "create a second file": other arguments, a new record each
        after = done(g, "create_file", {"path": f"f{i}.txt", "content": "x"}, f"created f{i}")
        assert after.action is Action.ALLOW
    for i in range(12):
        after = done(g, "create_issue", {"title": f"bug {i}"}, json.dumps({"id": i}))
        assert after.action is Action.ALLOW


def test_creates_false_and_no_pattern_turn_it_off() -> None:
    for policy in (
        GuardPolicy(tools={"wordpress_publish": ToolPolicy(creates=False)}),
        GuardPolicy(creates_pattern=None),
    ):
        out = publish(Guard(policy), 3)
        assert all(a is not None and a.action is Action.ALLOW for _, a in out)


def test_a_users_new_request_may_create_it_again() -> None:
    g = Guard()
    g.new_turn("Publish today's roundup")
    publish(g, 1)
    g.on_message("Published as post 4812.")
    g.new_turn("Publish it once more, for the other site")
    out = publish(g, 1)
    assert out[0][1] is not None
    assert out[0][1].action is Action.ALLOW


def test_a_workspace_change_lifts_the_refusal() -> None:
    g = Guard()
    publish(g, 2)
    assert g.before_call("wordpress_publish", POST).action is Action.BLOCK
    run(g, "delete_post", {"post_id": 4813}, "deleted")
    assert g.before_call("wordpress_publish", POST).allowed


def test_policy_arguments_are_checked() -> None:
    with pytest.raises(InvalidArgumentError, match=r"ToolPolicy\.creates"):
        ToolPolicy(creates="yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="creates_pattern"):
        GuardPolicy(creates_pattern="(")
    assert GuardPolicy().to_dict()["creates_pattern"]
    assert GuardPolicy(tools={"x": ToolPolicy(creates=True)}).to_dict()["tools"]["x"]["creates"]


def test_journal_replay_and_images(tmp_path: Path) -> None:
    """A reopened guard continues (journal replay, then a checkpoint image); a row of an
    older image, without the creating fields, loads as nothing created."""
    home = tmp_path / "h"
    with Guard.open(tmp_path, "s", home=home, fingerprint=lambda: "f") as g:
        publish(g, 1)
    with Guard.open(tmp_path, "s", home=home, fingerprint=lambda: "f") as g:
        ((_, second),) = publish(g, 1, first=4813)
        assert second is not None
        assert second.action is Action.NUDGE
        assert "4812" in second.message
        g.crs.save_project_backup()
    with Guard.open(tmp_path, "s", home=home, fingerprint=lambda: "f") as g:
        assert g.before_call("wordpress_publish", POST).action is Action.BLOCK
    row = SigState("wordpress_publish").export()
    assert SigState.from_export(row[:14]).made == 0
    st_ = SigState("t")
    st_.made, st_.made_res, st_.made_view, st_.dups = 3, "ab", "{id: 1}", 1
    back = SigState.from_export(st_.export())
    assert (back.made, back.made_res, back.made_view, back.dups) == (3, "ab", "{id: 1}", 1)


def test_the_first_result_is_sanitized_before_it_is_kept(tmp_path: Path) -> None:
    secret = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 3
    with Guard.open(tmp_path, "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
        run(g, "create_user", {"name": "ann"}, f'{{"id": 7, "api_key": "{secret}"}}')
        other = secret.replace("A1b2", "Z9y8")
        second = done(g, "create_user", {"name": "ann"}, f'{{"id": 8, "api_key": "{other}"}}')
        assert second.action is Action.NUDGE
        assert secret not in second.message
    data = b"".join(p.read_bytes() for p in (tmp_path / "h").rglob("*") if p.is_file())
    assert secret.encode() not in data


ARGS = st.fixed_dictionaries({"title": st.text(min_size=1, max_size=12)})


@settings(max_examples=40, deadline=None)
@given(calls=st.lists(ARGS, min_size=1, max_size=15, unique_by=lambda a: a["title"]))
def test_distinct_arguments_are_never_duplicates(calls: list[dict[str, str]]) -> None:
    g = Guard(GuardPolicy(tools={"create_issue": ToolPolicy(creates=True)}))
    sigs: set[str] = set()
    for i, args in enumerate(calls):
        sig = g._identify("create_issue", args)[2]
        if sig in sigs:  # one call once canonical (titles of whitespace only: " ", "\r")
            continue
        sigs.add(sig)
        v, after = run(g, "create_issue", args, json.dumps({"id": i}))
        assert v.action is Action.ALLOW
        assert after is not None
        assert after.action is Action.ALLOW


@settings(max_examples=40, deadline=None)
@given(
    calls=st.lists(st.integers(0, 3), min_size=2, max_size=12),
    explicit=st.booleans(),
)
def test_the_first_repeated_success_is_the_one_nudged(calls: list[int], explicit: bool) -> None:
    policy = GuardPolicy(tools={"create_issue": ToolPolicy(creates=True)} if explicit else {})
    g = Guard(policy)
    seen: set[int] = set()
    for i, k in enumerate(calls):
        v, after = run(g, "create_issue", {"title": f"bug {k}"}, json.dumps({"id": i}))
        if k in seen:
            assert v.action is Action.ALLOW
            assert after is not None
            assert after.action is Action.NUDGE
            assert g.before_call("create_issue", {"title": f"bug {k}"}).action is Action.BLOCK
            return
        seen.add(k)
        assert v.action is Action.ALLOW
        assert after is not None
        assert after.action is Action.ALLOW


# An event: ("call", tool, title index, id or None for the same answer) | ("turn", text)
# | ("msg",)
EVENT = st.one_of(
    st.tuples(
        st.just("call"),
        st.sampled_from(["create_issue", "send_keys", "notify", "read_file"]),
        st.integers(0, 2),
        st.one_of(st.none(), st.integers(0, 9)),
    ),
    st.tuples(st.just("turn"), st.sampled_from(["again please", "a new one about bug 4"])),
    st.just(("msg",)),
)


def play(g: Guard, ev: tuple[Any, ...]) -> list[tuple[str, str, tuple[int, ...], str]]:
    if ev[0] == "turn":
        g.new_turn(ev[1])
        return []
    if ev[0] == "msg":
        v = g.on_message("Done, created it.")
        return [(str(v.action), str(v.code), v.evidence, v.message)]
    _, tool, k, ident = ev
    v, after = run(g, tool, {"title": f"bug {k}"}, "ok" if ident is None else f"id {ident}")
    out = [(str(v.action), str(v.code), v.evidence, v.message)]
    if after is not None:
        out.append((str(after.action), str(after.code), after.evidence, after.message))
    return out


@settings(max_examples=20, deadline=None)
@given(events=st.lists(EVENT, min_size=1, max_size=25), cuts=st.sets(st.integers(1, 24)))
def test_a_reopened_guard_judges_creates_exactly_as_one_that_stayed(
    tmp_path_factory: pytest.TempPathFactory, events: list[Any], cuts: set[int]
) -> None:
    base = tmp_path_factory.mktemp("creates")
    policy = GuardPolicy(tools={"notify": ToolPolicy(creates=True)})
    with Guard.open(base, "s", home=base / "h1", policy=policy, fingerprint=lambda: "f") as g:
        straight = [play(g, ev) for ev in events]
    pieces = []
    g = Guard.open(base, "s", home=base / "h2", policy=policy, fingerprint=lambda: "f")
    try:
        for i, ev in enumerate(events):
            if i in cuts:  # a new process: everything comes back from the journal
                g.close()
                if i % 3 == 0:  # sometimes from a checkpoint image instead
                    with Guard.open(
                        base, "s", home=base / "h2", policy=policy, fingerprint=lambda: "f"
                    ) as h:
                        h.crs.save_project_backup()
                g = Guard.open(base, "s", home=base / "h2", policy=policy, fingerprint=lambda: "f")
            pieces.append(play(g, ev))
    finally:
        g.close()
    assert pieces == straight
