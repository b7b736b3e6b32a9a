"""Rules of the guard's semantics refined after the fresh23 trajectories of the loop benchmark
(bench/loops, split fresh23: tool-use benchmarks, mobile/GUI, game, notebook, email and
voice agents) were measured held out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import crs
from crs.guard import Action, Guard, VerdictCode
from crs.guard._canon import _is_ident
from guard_calls import decided as _run

# ------------------------------------------------------------- an email address names a target

PEOPLE = ["kate@hotmail.com", "bob@scottlogic.com", "amy@scottlogic.com", "raj@x.io", "li@x.io"]


def _mail(
    address: str, subject: str = "Team lunch", body: str = "Team lunch moved to 1pm"
) -> tuple[dict[str, Any], dict[str, Any]]:
    args = {"address": address, "subject": subject, "body": body}
    return args, {"isEmailSent": True, "message": f"Email sent to {address}"}


def test_an_email_address_is_an_identifier_whatever_its_key() -> None:
    for v in ("kate@hotmail.com", "john.smith+tag@mail.example.co.uk"):
        assert _is_ident("address", v)
    for v in ("a@b", "send it to a@b.com now", "@here", "hello"):
        assert not _is_ident("address", v)


def test_one_email_to_each_listed_address_is_a_walk() -> None:
    """ScottLogic prompt-injection #75's email tool used as meant: the same subject and body
    to five addresses, each confirmed alike once its echo of the address is set aside."""
    g = Guard(policy=None)
    for p in PEOPLE:
        args, res = _mail(p)
        assert _run(g, "sendEmail", args, res).action is Action.ALLOW, p


def test_one_address_mailed_again_and_again_in_other_words_is_still_caught() -> None:
    g = Guard()
    got = []
    # (ScottLogic #75's loop: "hello", "Hello", "Greetings", ... to one address)
    for subject in ("hello", "Hello", "Greetings", "Hello!", "greetings", "Hi"):
        args, res = _mail(PEOPLE[0], subject, "hello")
        got.append(_run(g, "sendEmail", args, res))
    assert any(v.action is not Action.ALLOW for v in got), got


# ------------------------------------------------------------- a run carried over a user turn

SAID = "I'll start by gathering some wood for the hut!"


def test_the_run_a_turn_ended_on_goes_on_when_the_next_turn_gets_it_again() -> None:
    """Mindcraft #246: the bot says one line twice, the user answers, it says it again."""
    g = Guard()
    g.new_turn("andy, build a small wooden hut here")
    _run(g, "nearbyBlocks", {}, "NEARBY_BLOCKS\n- oak_log\n- stone")
    assert g.on_message(SAID).action is Action.ALLOW
    assert g.on_message(SAID).action is Action.ALLOW
    g.new_turn("you have wood already, start building")
    v = g.on_message(SAID)
    assert v.action is Action.NUDGE
    assert v.code is VerdictCode.MONOLOGUE
    assert "3 times in a row" in v.reason
    assert g.on_message(SAID).action is Action.NUDGE  # (a nudge each time)


def test_a_line_said_once_a_turn_or_another_answer_is_not_carried() -> None:
    g = Guard()  # once a turn: a stock line (the canned-reply floor judges long ones)
    for q in ("build a hut", "now a fence", "and a door"):
        g.new_turn(q)
        assert g.on_message(SAID).action is Action.ALLOW
    g = Guard()  # said twice, then the next turn answers something else first
    g.new_turn("build a hut")
    g.on_message(SAID)
    g.on_message(SAID)
    g.new_turn("you have wood already")
    assert g.on_message("Right, building the walls now.").action is Action.ALLOW
    assert g.on_message(SAID).action is Action.ALLOW
    g = Guard()  # or acts first
    g.new_turn("build a hut")
    g.on_message(SAID)
    g.on_message(SAID)
    g.new_turn("you have wood already")
    _run(g, "placeBlock", {"block": "oak_planks", "x": 1}, "placed")
    assert g.on_message(SAID).action is Action.ALLOW


def test_the_carried_run_survives_a_new_process_and_an_image(tmp_path: Path) -> None:
    home, project = tmp_path / "h", tmp_path / "p"
    with Guard.open(project, "s", home=home, fingerprint=lambda: "f") as g:
        g.new_turn("build a hut")
        g.on_message(SAID)
        g.on_message(SAID)
        g.new_turn("you have wood already")
    with Guard.open(project, "s", home=home, fingerprint=lambda: "f") as g:
        assert g.on_message(SAID).action is Action.NUDGE
    g = Guard()
    g.new_turn("build a hut")
    g.on_message(SAID)
    g.on_message(SAID)
    g.new_turn("you have wood already")
    other = crs.CRS()
    other.load_image(g.crs.export_image())
    assert other._parts["guard"].sessions["default"].carry[1] == 2


def test_a_run_already_reported_is_not_carried() -> None:
    """A run nudged (or stopped) in its turn: the user's next message is a new request,
    decided afresh (the Stop hook's monologue, tests/integrations)."""
    g = Guard()
    g.new_turn("refactor the parser")
    got = [g.on_message(SAID) for _ in range(4)]
    assert got[-1].action is not Action.ALLOW
    g.new_turn("now the lexer")
    assert g.on_message(SAID).action is Action.ALLOW
