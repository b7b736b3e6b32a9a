"""Four rules of the guard's semantics (issue 12), refined after the fresh2 trajectories of the
loop benchmark showed them wrong in general: a word carrying a number names another item, a
user turn gives transient errors a fresh retry budget, new data is reading rather than
polling, and a message repeating a sentence of the last one is a repeated message."""

from __future__ import annotations

from crs.guard import Action, Guard, GuardPolicy, VerdictCode, _canon
from guard_calls import flags, run


def feat(**args: str) -> str:
    return _canon.features(args, frozenset({"command"}), lambda s: s)


# ---------------------------------------------------------------- words carrying numbers


def test_a_word_carrying_a_number_is_one_token() -> None:
    assert _canon._tokens("test1") == ["test1"]
    assert sorted(_canon._tokens("mod_01 helper for parseHttp2 page-3")) == sorted(
        ["mod_01", "parsehttp2", "page-3", "helper", "for"]
    )
    # words without numbers split as before; bare numbers stay tokens of their own
    assert _canon._tokens("validateSchema call 2024") == ["validate", "schema", "call", "2024"]


def test_queries_differing_in_a_numbered_word_are_not_near_duplicates() -> None:
    t = GuardPolicy().near_duplicate
    assert not _canon.similar(feat(query="test1"), feat(query="test2"), t)
    assert not _canon.similar(feat(query="page2"), feat(query="page3"), t)
    # a rewording of the same numbered item still is one
    assert _canon.similar(feat(query="mod_01 imports"), feat(query="imports of mod_01"), t)


def test_searches_for_numbered_items_with_echoed_results_pass() -> None:
    """A search tool whose answer echoes the query: test1, test2, test3 are three searches,
    not one search reworded (its result, without the echo, is the same each time)."""
    g = Guard()
    got = [run(g, "search", {"query": f"test{i}"}, f"Results for test{i}") for i in range(1, 7)]
    assert flags(got) == []


def test_reworded_searches_with_the_same_echoed_result_are_still_no_progress() -> None:
    g = Guard()
    got = [
        run(g, "search", {"query": q}, f"No results for '{q}'")
        for q in ["validate_schema callers", "callers of validate_schema", "validate_schema call"]
    ]
    assert any(f.endswith((":repeated_call", ":no_progress")) for f in flags(got))


# ---------------------------------------------------------------- transient errors and turns


def test_a_user_turn_gives_transient_errors_a_fresh_retry_budget() -> None:
    g = Guard()
    ssh = {"command": "ssh staging 'systemctl restart api'"}
    for _ in range(3):
        run(g, "bash", ssh, error=TimeoutError("timed out"))
    assert g.before_call("bash", ssh).code is VerdictCode.RETRY_BUDGET  # three in a row
    g.new_turn()  # "continue (the VPN is back)"
    got = [run(g, "bash", ssh, error=TimeoutError("timed out")) for _ in range(3)]
    assert flags(got) == []
    blocked = g.before_call("bash", ssh)  # three more in a row after the turn
    assert (blocked.action, blocked.code) == (Action.BLOCK, VerdictCode.RETRY_BUDGET)


def test_two_transient_errors_a_turn_and_one_more_still_run() -> None:
    g = Guard()
    ssh = {"command": "ssh staging 'systemctl restart api'"}
    run(g, "bash", ssh, error=TimeoutError("timed out"))
    run(g, "bash", ssh, error=TimeoutError("timed out"))
    g.new_turn()
    run(g, "bash", ssh, error=TimeoutError("timed out"))
    before, after = run(g, "bash", ssh, result="")
    assert before.action is Action.ALLOW
    assert after is not None
    assert after.action is Action.ALLOW


def test_a_user_turn_does_not_lift_an_error_loop_of_hard_failures() -> None:
    g = Guard()
    mig = {"command": "bunx drizzle-kit migrate"}
    run(g, "bash", mig, error=RuntimeError("Cannot find schema"))
    g.new_turn()  # "fix the config first"; nothing changed
    run(g, "bash", mig, error=RuntimeError("Cannot find schema"))
    v = g.before_call("bash", mig)
    assert (v.action, v.code) == (Action.BLOCK, VerdictCode.ERROR_LOOP)


# ---------------------------------------------------------------- reading versus polling


def test_a_call_bringing_new_data_each_time_is_reading_not_polling() -> None:
    g = Guard(GuardPolicy(poll_budget=5))
    pty = {"session": "pty-1", "max_bytes": 8192}
    got = [run(g, "read_output", pty, f"chunk {i:04x}: module mod{i:03}.dll") for i in range(40)]
    assert flags(got) == []


def test_polling_that_brings_back_earlier_results_has_a_budget() -> None:
    g = Guard(GuardPolicy(poll_budget=5))
    job = {"job_id": "job-42"}
    got = [run(g, "wait_for_job", job, "pending" if i % 2 else "queued") for i in range(12)]
    nudged = [a for _, a in got if a is not None and a.action is Action.NUDGE]
    assert nudged
    assert nudged[0].code is VerdictCode.POLLING
    # queued, pending are new; the five runs after them brought back an earlier result
    assert nudged[0].call is not None
    assert nudged[0].call.step == 7


# ---------------------------------------------------------------- monologue


def test_messages_repeating_a_sentence_of_the_last_one_are_a_monologue() -> None:
    g = Guard()
    vs = [
        g.on_message(m)
        for m in [
            "I apologize for the false bug report. Is there anything else to explore?",
            "I apologize for the false bug report. The parentheses are properly balanced.",
            "I apologize for the false bug report. I should have verified more carefully.",
        ]
    ]
    assert [v.action for v in vs] == [Action.ALLOW, Action.ALLOW, Action.NUDGE]
    assert vs[-1].code is VerdictCode.MONOLOGUE


def test_different_messages_sharing_only_short_formulae_pass() -> None:
    g = Guard()
    vs = [
        g.on_message(m)
        for m in [
            "Done. The parser now accepts ISO weeks and the tests are green again.",
            "Done. The docs describe the new week format with two worked examples.",
            "Done. The changelog lists the new format under the 2.4 release notes.",
        ]
    ]
    assert [v.action for v in vs] == [Action.ALLOW] * 3


def test_the_same_apology_once_per_user_turn_passes() -> None:
    g = Guard()
    for ans in [
        "I apologize for the confusion, you're right: it iterates with a stack.",
        "I apologize for the confusion, you're right: the file is memory.metta.",
        "I apologize for the confusion, you're right: the parentheses balance.",
    ]:
        g.new_turn()
        assert g.on_message(ans).action is Action.ALLOW
