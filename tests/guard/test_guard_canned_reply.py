"""A canned reply: one long text given word for word, in text only, as the answer to new
user requests in a row (held-out misses of fresh17, fresh19 and fresh21: elizaOS #4331's
group-chat bot, a support bot's one return-policy answer to every question, Copilot's
instruction recital to every prompt). A stock phrase is short and is no canned reply."""

from __future__ import annotations

from pathlib import Path

import pytest

import crs
from crs.guard import Action, Guard, Verdict, VerdictCode
from crs.guard._turns import CANNED_WORDS

CANNED = (
    "You can return any item within 30 days of delivery for a full refund. Items must be "
    "unused and in their original packaging. Refunds are issued to the original payment "
    "method within 5-7 business days."
)
QUESTIONS = [
    "What's your return policy?",
    "Do I have to pay for return shipping?",
    "Can I exchange it for a different size instead?",
    "Where is my order right now?",
    "Why do you keep saying the same thing?",
    "Can I talk to a person?",
]


def _chat(g: Guard, replies: list[str], questions: list[str] = QUESTIONS) -> list[Verdict]:
    out = []
    for q, r in zip(questions, replies, strict=False):
        g.new_turn(q)
        out.append(g.on_message(r))
    return out


def test_the_same_long_reply_to_three_new_requests_is_nudged_never_blocked() -> None:
    g = Guard()
    got = _chat(g, [CANNED] * 6)
    assert [v.action for v in got[:2]] == [Action.ALLOW, Action.ALLOW]
    assert got[2].action is Action.NUDGE  # the third request answered alike
    assert got[2].code is VerdictCode.MONOLOGUE
    assert "3 user turns in a row" in got[2].reason
    assert "answer what it asks" in got[2].message
    assert CANNED[:20] not in got[2].message  # the reply is not echoed back to the model
    # the evidence is about the conversation, not the work: a nudge each time, never more
    assert [v.action for v in got[3:]] == [Action.NUDGE] * 3


def test_a_short_stock_phrase_to_every_request_is_no_canned_reply() -> None:
    # Rasa's "That's not a valid email, try again", a closing line after each turn
    for phrase in (
        "Done. Let me know if you need anything else.",
        "That's not a valid email address, please try again.",
        "I'm sorry, but I can't help with that request.",
    ):
        g = Guard()
        got = _chat(g, [phrase] * 6)
        assert all(v.action is Action.ALLOW for v in got), (phrase, got)


def test_the_threshold_is_the_reply_s_distinct_content_words() -> None:
    eleven = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo"
    twelve = eleven + " lima"
    assert CANNED_WORDS == 12
    g = Guard()
    assert all(v.action is Action.ALLOW for v in _chat(g, [eleven] * 5))
    g = Guard()
    assert [v.action for v in _chat(g, [twelve] * 3)][-1] is Action.NUDGE
    g = Guard()  # words said twice count once
    assert all(v.action is Action.ALLOW for v in _chat(g, [eleven + " " + eleven] * 5))


def test_a_different_reply_between_breaks_the_run() -> None:
    g = Guard()
    other = (
        "Your order left our warehouse yesterday and the carrier expects to deliver it on "
        "Thursday between nine and noon; the tracking link is in your confirmation email."
    )
    got = _chat(g, [CANNED, CANNED, other, CANNED, CANNED])
    assert all(v.action is Action.ALLOW for v in got)


def test_a_turn_that_acts_or_a_turn_without_text_is_not_counted() -> None:
    # an answer after a call is judged by the calls' rules (the echo of fresh15), and a turn
    # whose text is not known may be the same request again
    g = Guard()
    for k, q in enumerate(QUESTIONS[:4]):
        g.new_turn(q)
        v = g.before_call("lookup_order", {"question": q})
        g.after_call(v.call, result=f"order {k} found")
        assert g.on_message(CANNED).action is Action.ALLOW
    g = Guard()
    for _ in range(4):
        g.new_turn()
        assert g.on_message(CANNED).action is Action.ALLOW


def test_a_follow_up_answered_alike_continues_a_run_a_new_request_opened() -> None:
    # "return policy?" after a request answered alike, then a new request answered alike:
    # three turns with one reply (bolt.new #3644: the same question after every "yes";
    # fresh24). Follow-ups alone, with no new request opening the run, are the echo rule's.
    g = Guard()
    g.new_turn("What's your return policy for shoes?")
    assert g.on_message(CANNED).action is Action.ALLOW
    g.new_turn("return policy?")  # (no word of its own)
    assert g.on_message(CANNED).action is Action.ALLOW
    s = g._session()
    assert s.canned[1] == 2
    assert not s.new_ask
    g.new_turn("Can I exchange sandals for a different size?")
    assert g.on_message(CANNED).action is Action.NUDGE


def test_the_second_message_of_a_turn_does_not_open_it() -> None:
    g = Guard()
    for q in QUESTIONS[:4]:
        g.new_turn(q)
        assert g.on_message("Let me look into that.").action is Action.ALLOW
        assert g.on_message(CANNED).action is Action.ALLOW


def test_the_count_continues_in_a_new_process_and_through_a_backup(tmp_path: Path) -> None:
    home, project = tmp_path / "h", tmp_path / "p"
    with Guard.open(project, "s", home=home, fingerprint=lambda: "f") as g:
        _chat(g, [CANNED] * 2)
    with Guard.open(project, "s", home=home, fingerprint=lambda: "f") as g:
        g.new_turn(QUESTIONS[2])
        v = g.on_message(CANNED)
        assert v.action is Action.NUDGE, v
        g.crs.save_project_backup()  # (a checkpoint: the state image carries the count)
    with Guard.open(project, "s", home=home, fingerprint=lambda: "f") as g:
        assert g.crs.project_info().restored_from_backup
        g.new_turn(QUESTIONS[3])
        assert g.on_message(CANNED).action is Action.NUDGE


def test_an_image_carries_the_count() -> None:
    g = Guard()
    _chat(g, [CANNED] * 2)
    image = g.crs.export_image()
    other = crs.CRS()
    other.load_image(image)
    s = other._parts["guard"].sessions["default"]
    assert s.canned[1] == 2
    assert s.new_ask


def test_a_bad_count_in_a_record_is_refused() -> None:
    g = Guard()
    part = g.crs._parts["guard"]
    for bad in (0, -1, "3", 1.5, True, 10**7):
        with pytest.raises(crs.InvalidArgumentError, match="'cn'"):
            part._op_msg({"s": "default", "d": "x", "cn": bad})
