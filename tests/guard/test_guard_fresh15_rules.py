"""A rule of the guard's semantics refined after the fresh15 trajectories of the loop benchmark
(bench/loops, split fresh15: framework limit reports, chat front ends and MCP clients) showed
it wrong in general: the same calls with the same results and the same answer given to
requests that have nothing in common ignore what was asked (LM Studio #970: every new
message re-runs the first query and gets the same table list); the same answer to the same
question asked again, a status check answering "any update?", a chat answered in text only,
and the same calls before different answers are not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crs.guard import Action, Guard

LIST = {"sql": "SELECT table_name FROM information_schema.tables WHERE table_schema='public'"}
TABLES = [["users"], ["orders"], ["products"]]
ANSWER = "The database has three tables: users, orders and products."
REQUESTS = [
    "List all tables",
    "Count the users in the database",
    "How many orders were placed last week?",
    "Show the five most expensive products",
    "Which customer spent the most in March?",
]


def _turn(g: Guard, text: str, calls: list[tuple[str, dict[str, Any], Any]], answer: str) -> Any:
    """A user turn, the agent's calls (all allowed), then its answer; the answer's verdict.
    (Four turns at most: the same pair a fifth time in the session is the repeated-call
    rule's, `repeat_in_session`, as before.)"""
    g.new_turn(text)
    for tool, args, result in calls:
        v = g.before_call(tool, args)
        assert v.allowed, v
        assert g.after_call(v.call, result=result).action is Action.ALLOW
    return g.on_message(answer)


def _ghost(g: Guard, texts: list[str]) -> list[Any]:
    return [_turn(g, t, [("postgres_query", LIST, TABLES)], ANSWER) for t in texts]


def test_the_same_calls_and_answer_to_unrelated_requests_are_a_loop() -> None:
    """The third request answered by the same query, result and answer is nudged, and so is
    the fourth (a nudge each time, never a block: weaker evidence than a text-only answer to
    a follow-up), with a reason that names the calls."""
    g = Guard()
    vs = _ghost(g, REQUESTS[:4])
    assert [v.action for v in vs] == [Action.ALLOW, Action.ALLOW, Action.NUDGE, Action.NUDGE]
    assert vs[2].code == "monologue"
    assert "after the same calls with the same results to 3 user turns" in vs[2].reason


def test_a_request_reworded_is_no_other_request() -> None:
    """The same question in other words (a word in common) answered alike is the user's call,
    as the same question asked again is (the follow-up case)."""
    g = Guard()
    vs = _ghost(
        g,
        [
            "List all tables",
            "List the tables please",
            "Which tables are there? List them",
            "List every table",
        ],
    )
    assert all(v.allowed for v in vs)
    g = Guard()
    assert all(v.allowed for v in _ghost(g, ["List all tables"] * 4))


def test_a_status_check_answering_any_update_is_no_loop() -> None:
    """Follow-ups ("any update?") answered by the same status read and the same report: the
    agent looks at something that may be moving each time."""
    g = Guard()
    check = ("deploy_status", {"deploy": "web-42"}, {"state": "deploying"})
    vs = [_turn(g, "Is the deploy of web-42 done?", [check], "Still deploying.")]
    vs += [_turn(g, "any update?", [check], "Still deploying.") for _ in range(3)]
    assert all(v.allowed for v in vs)


def test_text_only_answers_to_new_requests_stay_a_chat() -> None:
    """Without calls, the same answer to unrelated requests is still no monologue (the
    LangChain conformance test's thirteen questions)."""
    g = Guard()
    for text in REQUESTS:
        g.new_turn(text)
        assert g.on_message("Sure, happy to help with that. Anything else?").allowed


def test_the_same_calls_before_different_answers_are_no_loop() -> None:
    """A context lookup at each request, then an answer of its own: not a replay."""
    g = Guard()
    profile = ("get_user_profile", {"user": "ana"}, {"plan": "pro", "region": "eu"})
    answers = [
        "There are three tables.",
        "You have 4,210 users.",
        "388 orders were placed last week.",
        "The most expensive products are the desk, the chair and the lamp.",
    ]
    vs = [_turn(g, t, [profile], a) for t, a in zip(REQUESTS, answers, strict=False)]
    assert all(v.allowed for v in vs)


def test_another_call_or_result_ends_the_count() -> None:
    """A turn whose call brings another result, or that makes another call, starts over."""
    g = Guard()
    vs = _ghost(g, REQUESTS[:2])
    vs.append(_turn(g, REQUESTS[2], [("postgres_query", LIST, [["users"], ["orders"]])], ANSWER))
    vs += _ghost(g, REQUESTS[3:5])
    assert all(v.allowed for v in vs)


def test_a_refused_call_in_the_turn_is_no_replay() -> None:
    """A turn with a transient failure is no plain replay of the last one."""
    g = Guard()
    _ghost(g, REQUESTS[:2])
    g.new_turn(REQUESTS[2])
    v = g.before_call("postgres_query", LIST)
    assert g.after_call(v.call, error=TimeoutError("timed out")).allowed
    v = g.before_call("postgres_query", LIST)
    assert g.after_call(v.call, result=TABLES).allowed
    assert g.on_message(ANSWER).allowed


def test_the_rule_holds_for_a_durable_guard_reopened_between_turns(tmp_path: Path) -> None:
    """The count and the calls of the answer are in the journal and the checkpoint: a guard
    reopened between the second and third request nudges the third."""
    with Guard.open(tmp_path / "p", "s1", home=tmp_path / "h") as g:
        assert all(v.allowed for v in _ghost(g, REQUESTS[:2]))
    with Guard.open(tmp_path / "p", "s1", home=tmp_path / "h") as g:
        v = _ghost(g, [REQUESTS[2]])[0]
        assert v.action is Action.NUDGE
        assert v.code == "monologue"
