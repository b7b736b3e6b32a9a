"""Rules of the guard's semantics refined after the fresh25 trajectories of the loop benchmark
(bench/loops, split fresh25: chat-platform bots, RAG and document agents, coding agents)
were measured held out."""

from __future__ import annotations

from crs.guard import Action, Guard, VerdictCode
from crs.guard._canon import is_transient
from guard_calls import decided


def test_an_api_s_snake_case_code_for_a_failure_on_its_side_is_transient() -> None:
    err = Exception("x")
    for text in (
        "An API error occurred: internal_error",  # Slack's Web API
        "rpc error: code = INTERNAL_ERROR",
        "DEADLINE_EXCEEDED: the call took too long",
        "too_many_requests",
        "upstream answered bad_gateway",
    ):
        assert is_transient(err, text), text
    for text in (
        "sqlalchemy.exc.InternalError: current transaction is aborted",  # a class name
        "internal error: null pointer dereference in parse()",  # prose, maybe the caller's
        "fatal_error",
        "invalid_auth",
    ):
        assert not is_transient(err, text), text


def test_a_post_that_fails_twice_on_the_server_side_then_goes_through_runs() -> None:
    """slackapi/bolt-js #2668: chat.postMessage fails twice with `internal_error`, then posts;
    the third try is a retry within the transient budget, not a refused error loop."""
    g = Guard()
    post = {"channel": "D08B2KQ4M7Z", "thread_ts": "1759730051.812309", "text": "Summary"}
    for _ in range(2):
        v = decided(g, "chat_postMessage", post, error="An API error occurred: internal_error")
        assert v.action is Action.ALLOW, v
    v = decided(g, "chat_postMessage", post, {"ok": True, "ts": "1759730099.000300"})
    assert v.action is Action.ALLOW, v


def test_an_auth_failure_in_snake_case_is_still_an_error_loop() -> None:
    g = Guard()
    post = {"channel": "C1", "text": "hello"}
    got = [decided(g, "chat_postMessage", post, error="invalid_auth") for _ in range(3)]
    assert got[-1].action is not Action.ALLOW
    assert got[-1].code is VerdictCode.ERROR_LOOP
