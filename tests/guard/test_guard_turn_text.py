"""`Guard.new_turn(text)`: the same answer to user turns that ask nothing new, with no tool
call, is a monologue across turns; a chat of different questions answered alike is not.
Only digests of the user's words are kept, journaled in `guard.turn` and continued by a
reopened guard; without a text `new_turn()` is what it always was."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crs import InvalidArgumentError
from crs.guard import Action, Guard, GuardPolicy, Verdict, VerdictCode, _turns
from crs.guard._state import SessionState

WAIT = "I am still working on completing the task right now, please wait."
PINGS = ["Any update?", "hello?", "?", "Are you there?", "I'm still waiting.", "any news yet"]


def chat(g: Guard, turns: Sequence[tuple[str | None, str]]) -> list[Verdict]:
    """Each (user text, agent answer) as a user turn and one agent message."""
    out = []
    for text, answer in turns:
        g.new_turn(text)
        out.append(g.on_message(answer))
    return out


def codes(vs: list[Verdict]) -> list[str]:
    return [f"{v.action}:{v.code}" for v in vs]


def test_the_same_answer_to_pings_is_a_monologue_across_turns() -> None:
    g = Guard()
    request = "Please cancel my order #5521 and refund it to my card."
    vs = chat(g, [(request, WAIT), *((p, WAIT) for p in PINGS[:4])])
    assert codes(vs) == [
        "allow:ok",
        "allow:ok",
        "nudge:monologue",  # the third time the same answer, nothing done
        "block:monologue",
        "stop:monologue",
    ]
    assert "user turns" in vs[2].reason
    assert vs[2].evidence == ()


def test_follow_ups_naming_the_request_again_ask_nothing_new() -> None:
    """A follow-up that names what was asked (stemmed: cancelled, cancellation) is no new
    question."""
    g = Guard()
    turns = [
        ("Please cancel my order #5521 and refund it to my card.", WAIT),
        ("Is it cancelled yet?", WAIT),
        ("Hello? Can you confirm the cancellation of the order?", WAIT),
    ]
    assert codes(chat(g, turns))[-1] == "nudge:monologue"


def test_different_questions_answered_alike_are_a_chat() -> None:
    g = Guard()
    answer = "Sure, happy to help with that. Let me know what else you need from me today."
    vs = chat(g, [(f"question {i}", answer) for i in range(13)])
    assert all(v.action is Action.ALLOW for v in vs)
    questions = ["What is a mutex?", "And a semaphore?", "Which one for a pool?", "Why?"]
    assert all(v.action is Action.ALLOW for v in chat(Guard(), [(q, "I see.") for q in questions]))


def test_without_a_text_new_turn_is_what_it_was() -> None:
    g = Guard()
    vs = chat(g, [(None, WAIT) for _ in range(8)])
    assert all(v.action is Action.ALLOW for v in vs)
    # and a text-less turn in the middle of pings starts the count over
    g = Guard()
    vs = chat(g, [("do it", WAIT), ("?", WAIT), (None, WAIT), ("?", WAIT), ("?", WAIT)])
    assert codes(vs) == ["allow:ok"] * 4 + ["nudge:monologue"]


def test_a_tool_call_or_a_new_question_between_breaks_the_run() -> None:
    g = Guard()
    out = chat(g, [("check my inbox", "Unavailable."), ("try again", "Unavailable.")])
    v = g.before_call("email_list", {"folder": "inbox"})
    assert v.call is not None
    g.after_call(v.call, error="503 Service Unavailable")
    out += chat(g, [("try again", "Unavailable."), ("try again", "Unavailable.")])
    assert all(x.action is Action.ALLOW for x in out)  # the call started it over
    out = chat(g, [("try again", "Unavailable.")])
    assert out[-1].code is VerdictCode.MONOLOGUE
    g = Guard()
    out = chat(g, [("cancel my order", WAIT), ("?", WAIT), ("what about invoices", WAIT)])
    out += chat(g, [("?", WAIT)])
    assert all(x.action is Action.ALLOW for x in out)  # a new request, answered twice


def test_a_reworded_answer_is_the_same_answer() -> None:
    g = Guard()
    turns = [
        ("cancel my order", WAIT),
        ("any update?", "I am still working on completing the task right now, please wait a bit."),
        ("hello?", "I AM STILL working on completing the task right now, please wait 2 minutes."),
    ]
    assert codes(chat(g, turns))[-1] == "nudge:monologue"


def test_an_answer_of_several_messages_given_again_is_the_same_answer() -> None:
    g = Guard()
    parts = ["Checking the refund system.", "Still processing, please wait."]
    verdicts = []
    for text in ["refund order 5521", "any update?", "hello?"]:
        g.new_turn(text)
        verdicts += [g.on_message(m) for m in parts]
    assert codes(verdicts) == ["allow:ok"] * 5 + ["nudge:monologue"]
    # a turn that says part of it, or more, starts over
    g = Guard()
    for text, said in [("refund it", parts), ("?", parts), ("?", parts[:1]), ("?", parts)]:
        g.new_turn(text)
        assert all(g.on_message(m).action is Action.ALLOW for m in said)
    g.new_turn("?")
    assert [g.on_message(m).action for m in parts] == [Action.ALLOW, Action.ALLOW]
    g.new_turn("?")
    assert [g.on_message(m).action for m in parts] == [Action.ALLOW, Action.NUDGE]


def test_only_the_first_message_of_a_turn_counts_and_policy_threshold_holds() -> None:
    g = Guard(GuardPolicy(monologue_repeats=4))
    vs = chat(g, [("cancel my order", WAIT), *(("?", WAIT) for _ in range(3))])
    assert codes(vs) == ["allow:ok"] * 3 + ["nudge:monologue"]
    g = Guard()
    g.new_turn("cancel it")
    assert g.on_message(WAIT).action is Action.ALLOW
    g.new_turn("?")
    assert g.on_message(WAIT).action is Action.ALLOW
    assert g.on_message("Something else entirely, to say.").action is Action.ALLOW
    g.new_turn("?")  # the last turn ended on another answer: the run starts over
    assert g.on_message(WAIT).action is Action.ALLOW


def test_bad_text_is_refused_by_name_and_lone_surrogates_are_repaired() -> None:
    g = Guard()
    with pytest.raises(InvalidArgumentError, match=r"^text: must be a str or None"):
        g.new_turn(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match=r"^text:"):
        g.new_turn(3)  # type: ignore[arg-type]
    assert g.status()["turns"] == 0  # nothing recorded
    g.new_turn("half a pair \ud83d")
    g.new_turn("")
    assert g.status()["turns"] == 2


def _journal_bytes(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file())


def test_the_journal_keeps_digests_not_the_users_words(tmp_path: Path) -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    text = f"Deploy zanzibarfrobnicate with token {secret} please"
    with Guard.open(tmp_path, "s", home=tmp_path / "h") as g:
        g.new_turn(text)
        g.on_message(WAIT)
        g.crs.save_project_backup(export_json=True)
        g.new_turn(text)
    data = _journal_bytes(tmp_path / "h")
    assert b"zanzibar" not in data
    assert b"ghp_" not in data
    assert b"Deploy" not in data


def test_a_reopened_guard_continues_the_run_of_turns(tmp_path: Path) -> None:
    home = tmp_path / "h"
    with Guard.open(tmp_path, "s", home=home) as g:
        chat(g, [("cancel my order", WAIT), ("any update?", WAIT)])
        g.new_turn("hello?")
    with Guard.open(tmp_path, "s", home=home) as g:  # the journal replayed
        assert g.on_message(WAIT).action is Action.NUDGE
        g.crs.save_project_backup()
        g.new_turn("still waiting")
    with Guard.open(tmp_path, "s", home=home) as g:  # from the checkpoint, then the tail
        assert g.on_message(WAIT).action is Action.BLOCK
        g.new_turn("and what about my invoices from march")  # a new request
        assert g.on_message(WAIT).action is Action.ALLOW


def test_old_turn_records_and_old_images_replay(tmp_path: Path) -> None:
    home = tmp_path / "h"
    with Guard.open(tmp_path, "s", home=home) as g:
        # a record as written before texts existed: only the session
        g.crs._kernel.commit_op("guard.turn", {"s": "s"}, bump_generation=False)
        g.on_message(WAIT)
    with Guard.open(tmp_path, "s", home=home) as g:
        assert g.status()["turns"] == 1
        g.new_turn("?")
        assert g.on_message(WAIT).action is Action.ALLOW
    old = SessionState().export()
    del old["echo"], old["ask"]
    s = SessionState.from_export(json.loads(json.dumps(old)))
    assert s.echo == [[], 0, 0, False, []]  # (the fifth, the answer's calls: fresh15)
    assert s.ask == frozenset()
    # an image of before fresh15: an echo of four elements reads with no calls
    old["echo"], old["ask"] = [["d1"], 2, 0, True], []
    s = SessionState.from_export(json.loads(json.dumps(old)))
    assert s.echo == [["d1"], 2, 0, True, []]


@pytest.mark.parametrize(
    "bad", [{"s": "s", "u": "abc"}, {"s": "s", "u": [1]}, {"s": "s", "f": "1"}]
)
def test_a_damaged_turn_record_is_refused(bad: dict[str, Any]) -> None:
    g = Guard()
    with pytest.raises(InvalidArgumentError, match=r"guard\.turn"):
        g.crs._kernel.commit_op("guard.turn", bad, bump_generation=False)
    assert g.status()["turns"] == 0


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_words_are_short_digests_of_any_text(text: str) -> None:
    out = _turns.words(text)
    assert out == sorted(set(out))
    assert len(out) <= _turns.MAX_WORDS
    assert all(len(w) == 8 and int(w, 16) >= 0 for w in out)
    # a text asks nothing new after itself; pings add nothing to it
    assert _turns.asks_nothing_new(out, frozenset(out))
    assert _turns.words(f"{text} any update? hello, still waiting") == out or len(out) >= 60


# An event: ("turn", text or None) | ("msg", answer) | ("call", result)
EVENT = st.one_of(
    st.tuples(st.just("turn"), st.sampled_from([None, "?", "any update", "fix a", "fix b"])),
    st.tuples(st.just("msg"), st.sampled_from(["wait.", "done.", "hm"])),
    st.tuples(st.just("call"), st.sampled_from(["x", "y"])),
)


def play(g: Guard, ev: tuple[Any, ...]) -> str:
    if ev[0] == "turn":
        g.new_turn(ev[1])
        return "turn"
    if ev[0] == "msg":
        v = g.on_message(ev[1])
        return f"{v.action}:{v.code}"
    v = g.before_call("read", {"path": "a"})
    if v.allowed and v.call is not None:
        v = g.after_call(v.call, result=ev[1])
    return f"{v.action}:{v.code}"


@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(EVENT, st.booleans()), min_size=1, max_size=24))
def test_a_reopened_guard_decides_turns_as_the_live_one(
    tmp_path_factory: pytest.TempPathFactory, script: list[tuple[Any, bool]]
) -> None:
    """A durable guard closed and reopened before some events (a new process each time)
    decides every event as one in-memory guard that saw them all."""
    home = tmp_path_factory.mktemp("turns")
    # (monologue_max out of reach: its count of stale messages is not journaled)
    pol = GuardPolicy(monologue_max=40)
    live = Guard(pol, fingerprint=lambda: "fp")
    expected = [play(live, ev) for ev, _ in script]
    got = []
    g = Guard.open(home, "s", home=home, policy=pol, fingerprint=lambda: "fp")
    for ev, reopen in script:
        if reopen:
            g.close()
            g = Guard.open(home, "s", home=home, policy=pol, fingerprint=lambda: "fp")
        got.append(play(g, ev))
    g.close()
    assert got == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from(["wait.", "done."])), max_size=12))
def test_text_less_turns_never_make_a_monologue_across_turns(
    turns: list[tuple[bool, str]],
) -> None:
    """Without texts, the same answers across turns are never flagged (as before)."""
    g = Guard()
    assert all(v.action is Action.ALLOW for v in chat(g, [(None, a) for _, a in turns]))
