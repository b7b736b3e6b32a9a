"""Rules of the guard's semantics refined after the fresh24 trajectories of the loop benchmark
(bench/loops, split fresh24: app builders, hosted agent run polling, research and security
agents) were measured held out."""

from __future__ import annotations

from crs.guard import Action, Guard, VerdictCode
from crs.guard._guard import _nothing_came, _queue_read
from guard_calls import decided as _run


def test_queue_and_mailbox_reads_by_their_names() -> None:
    for tool in ("peek_queue_messages", "receive_message", "sqs.receiveMessage", "dequeue"):
        assert _queue_read(tool), tool
    for tool in ("read_file", "peekaboo", "received_orders_report", "get_messages"):
        assert not _queue_read(tool), tool


def test_what_counts_as_nothing_came() -> None:
    for r in (None, "", " [] ", "{}", "null", [], (), {}, {"Messages": []}, {"a": [], "b": []}):
        assert _nothing_came(r), r
    for r in ("[1]", ["m"], {"Messages": [{"Body": "x"}]}, {"count": 0}, 0, b""):
        assert not _nothing_came(r), r


def test_an_empty_queue_peeked_until_the_reply_lands_is_a_wait() -> None:
    """azure-sdk-for-python #40913: the agent peeks the output queue, empty three times,
    before the function's reply lands."""
    g = Guard()
    for _ in range(4):
        assert _run(g, "peek_queue_messages", {"queue": "out"}, []).action is Action.ALLOW
    v = _run(g, "peek_queue_messages", {"queue": "out"}, [{"id": "m1", "body": "42"}])
    assert v.action is Action.ALLOW


def test_an_empty_queue_read_forever_and_one_message_again_are_still_caught() -> None:
    g = Guard()  # a poll's patience, not forever
    got = [_run(g, "receive_message", {"queue": "jobs"}, {"Messages": []}) for _ in range(12)]
    flagged = [k for k, v in enumerate(got) if v.action is not Action.ALLOW]
    assert flagged, got
    assert flagged[0] >= 3
    g = Guard()  # the same message delivered again and again: a repeat at the usual count
    msg = {"Messages": [{"MessageId": "m-1", "Body": "resize image 7"}]}
    got = [_run(g, "receive_message", {"queue": "jobs"}, msg) for _ in range(4)]
    assert got[2].action is Action.NUDGE
    assert got[2].code is VerdictCode.REPEATED_CALL
