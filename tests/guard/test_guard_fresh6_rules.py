"""Rules of the guard's semantics (issue 12) refined after the fresh6 trajectories of the loop
benchmark (bench/loops, split fresh6) showed them wrong in general; one group per rule, each
with the loop that must now be caught beside the legitimate work that must still pass."""

from __future__ import annotations

from crs.guard import Action, Guard, VerdictCode, _canon
from guard_calls import flags, run

# ------------------------------------------- a rate-limit counter is no new result


def test_a_result_differing_only_by_its_rate_limit_counter_is_the_same_result() -> None:
    """A gateway that echoes the cursor it got: the same page each time, only the caller's
    remaining quota going down (LerianStudio/midaz-sdk-golang#241)."""
    g = Guard()
    args = {"ledger_id": "L-7", "cursor": "eyJpZCI6MTAwfQ"}
    page = {"items": [{"id": 101}], "next_cursor": "eyJpZCI6MTAwfQ"}
    got = [
        run(g, "list_transactions", args, {**page, "rate_limit": {"remaining": 990 - k}})
        for k in range(4)
    ]
    assert "nudge:repeated_call" in flags(got)
    g = Guard()
    got = [
        run(g, "get_issue", {"n": 5}, {"title": "x", "x-ratelimit-remaining": 4990 - k})
        for k in range(4)
    ]
    assert "nudge:repeated_call" in flags(got)


def test_pages_that_change_beside_the_rate_limit_counter_are_new_results() -> None:
    g = Guard()
    got = [
        run(
            g,
            "list_transactions",
            {"ledger_id": "L-7", "cursor": f"c{k}"},
            {"items": [{"id": k}], "rate_limit": {"remaining": 990 - k}},
        )
        for k in range(8)
    ]
    assert flags(got) == []


def test_a_rate_limit_report_asked_for_is_the_answer() -> None:
    """Alone, the quota is what the call reports: watched while other workers spend it, its
    answer moves each time."""
    g = Guard()
    got = [
        run(g, "get_rate_limit", {}, {"rate_limit": {"remaining": r, "reset": 1_790_000_000}})
        for r in (40, 31, 22, 9, 0, 5000)
    ]
    assert flags(got) == []
    a = _canon.result_digest({"x-ratelimit-remaining": 0})
    assert a != _canon.result_digest({"x-ratelimit-remaining": 5000})


def test_rate_limit_keys_are_rate_keys_and_quota_data_is_not() -> None:
    for key in ("rate_limit", "RateLimit", "x-ratelimit-remaining", "X-RateLimit-Reset"):
        assert _canon._rate_key(key), key
        assert not _canon._stamp_key(key), key  # not a stamp: alone, it is the answer
    for key in ("limit", "remaining", "rate", "quota", "items", "total"):
        assert not _canon._rate_key(key), key


# ------------------------------------------- one spelling of a path in near-duplicate checks


def test_a_leading_dot_slash_or_trailing_slash_names_the_same_path() -> None:
    cmds = frozenset({"command"})
    same = [
        "cd /data && python3 convert.py report.xlsx",
        "cd /data && python3 ./convert.py report.xlsx",
        "cd /data/ && python3 convert.py ./report.xlsx",
    ]
    idents = {_canon.features({"command": c}, cmds, str).partition("|")[0] for c in same}
    assert len(idents) == 1
    a = _canon.features({"path": "./src/a.py", "query": "x"}, cmds, str)
    b = _canon.features({"path": "src/a.py", "query": "x"}, cmds, str)
    assert a == b
    # the program word is not a path argument: another program
    run_a = _canon.features({"command": "./run.sh fast"}, cmds, str)
    run_b = _canon.features({"command": "run.sh fast"}, cmds, str)
    assert run_a.partition("|")[0] != run_b.partition("|")[0]
    # and each spelling keeps its own signature
    g = Guard()
    s1 = g.call_for("bash", {"command": "python3 ./convert.py r.xlsx"}).signature
    s2 = g.call_for("bash", {"command": "python3 convert.py r.xlsx"}).signature
    assert s1 != s2


# ------------------------------------------- the same error from re-spelt calls


MOD = "ModuleNotFoundError: No module named 'openpyxl'"


def test_the_same_error_from_a_call_spelled_three_ways_is_an_error_loop() -> None:
    """octos-org/octos#284: each spelling fails once, so no signature reaches its own
    failure count; the third failure in a row on the same resources is the loop."""
    g = Guard()
    got = [
        run(g, "shell", {"command": c}, error=MOD)
        for c in [
            "cd /data && python3 convert.py report.xlsx",
            "cd /data && python convert.py report.xlsx",
            "cd /data && python3 -u ./convert.py report.xlsx",
        ]
    ]
    assert flags(got) == ["nudge:error_loop"]
    after = got[-1][1]
    assert after is not None
    assert after.code is VerdictCode.ERROR_LOOP
    assert "openpyxl" not in after.message  # the model is redirected, not echoed


def test_an_exit_status_alone_is_not_the_same_error() -> None:
    """ "Exit code 1" says nothing of what failed (a grep that found nothing exits 1): it is
    no evidence that the spellings asked the same thing."""
    g = Guard()
    got = [
        run(g, "shell", {"command": c}, error=RuntimeError("Exit code 1"))
        for c in [
            "cd /data && python3 convert.py report.xlsx",
            "cd /data && python convert.py report.xlsx",
            "cd /data && python3 -u ./convert.py report.xlsx",
        ]
    ]
    assert flags(got) == []


def test_two_spellings_failing_the_same_way_are_not_yet_a_loop() -> None:
    g = Guard()
    got = [
        run(g, "shell", {"command": c}, error=MOD)
        for c in ["python3 convert.py r.xlsx", "python3 -u convert.py r.xlsx"]
    ]
    assert flags(got) == []


def test_probing_different_files_with_the_same_error_is_no_loop() -> None:
    """Other resources: the error text, without the path it echoes, is the same each time,
    but each call asks about another file."""
    g = Guard()
    got = [
        run(g, "read_file", {"path": p, "encoding": "utf-8"}, error=f"ENOENT: no such file '{p}'")
        for p in [".eslintrc", ".eslintrc.json", ".eslintrc.js", "eslint.config.js"]
    ]
    assert flags(got) == []


def test_a_success_between_the_failures_breaks_the_streak() -> None:
    g = Guard()
    got = [
        run(g, "shell", {"command": "cd /data && python3 convert.py r.xlsx"}, error=MOD),
        run(g, "shell", {"command": "cd /data && python convert.py r.xlsx"}, error=MOD),
        run(g, "shell", {"command": "pip install openpyxl"}, "Successfully installed"),
        run(g, "shell", {"command": "cd /data && python3 -u convert.py r.xlsx"}, error=MOD),
    ]
    assert flags(got) == []


def test_a_user_turn_after_an_answer_starts_a_new_streak() -> None:
    g = Guard()
    got = [
        run(g, "shell", {"command": "cd /data && python3 convert.py r.xlsx"}, error=MOD),
        run(g, "shell", {"command": "cd /data && python convert.py r.xlsx"}, error=MOD),
    ]
    g.on_message("openpyxl is missing; shall I install it?")
    g.new_turn()
    got.append(run(g, "shell", {"command": "cd /data && python3 -u convert.py r.xlsx"}, error=MOD))
    assert flags(got) == []


# ------------------------------------------- a rewording close to the run, not to one call


NONE = "No tools matched the pattern."


def test_a_search_reworded_from_the_earlier_wordings_is_no_progress() -> None:
    """microsoft/vscode#296123: `mcp_github_create.*` is close to what the two searches before
    it said together, though not to either one."""
    g = Guard()
    got = [
        run(g, "tool_search_tool_regex", {"pattern": p}, NONE)
        for p in ["github.*issue", "create_issue", "mcp_github_create.*"]
    ]
    assert flags(got) == ["nudge:repeated_call"]


def test_one_earlier_call_is_not_a_run() -> None:
    """The run rule needs two earlier near-duplicates: one earlier call is the pairwise
    test's, and `mcp_github_create.*` is not close enough to `create_issue` alone."""
    g = Guard()
    got = [
        run(g, "tool_search_tool_regex", {"pattern": p}, NONE)
        for p in ["create_issue", "mcp_github_create.*", "list_pulls"]
    ]
    assert flags(got) == []


def test_lookups_of_different_things_with_the_same_empty_answer_pass() -> None:
    g = Guard()
    got = [
        run(g, "search_kb", {"query": q}, "[]")
        for q in ["refund window", "shipping to canada", "gift card balance", "warranty claim"]
    ]
    assert flags(got) == []
    g = Guard()
    got = [
        run(g, "directory_lookup", {"name": n}, [])
        for n in ["Ana Ruiz", "Ana Chen", "Ana Ruiz Chen", "Bo Ruiz"]
    ]
    assert flags(got) == []


# ------------------------------------------- restating the last message in other words


SUMS = [
    "Diagnosis: the deploy fails because the staging certificate expired on Monday; the "
    "registry rejects the push. Conclusion: renew the certificate.",
    "Let me go over it once more. The deploy fails since the staging certificate expired "
    "Monday, so the registry refuses the push; the certificate must be renewed.",
    "Reviewing it: the staging certificate expired on Monday, so the registry refuses the "
    "push and the deploy fails until the certificate is renewed.",
    "Diagnosis once more: the registry rejects the push because the staging certificate "
    "expired Monday, so the deploy fails; renew the certificate.",
    "To restate: the deploy fails, the registry rejects the push, the staging certificate "
    "expired on Monday. The certificate must be renewed.",
]


def test_the_same_findings_restated_again_and_again_are_a_monologue() -> None:
    """dwgx/WindsurfAPI#116: each message says the last one's findings in other words (a
    diagnosis here, re-analysed sales figures there)."""
    g = Guard()
    g.new_turn()
    got = [g.on_message(m) for m in SUMS]
    assert all(v.allowed and v.action is Action.ALLOW for v in got[:4])
    assert got[4].code is VerdictCode.MONOLOGUE
    assert got[4].action is Action.NUDGE


def test_three_restatements_are_not_yet_a_monologue() -> None:
    g = Guard()
    g.new_turn()
    assert all(g.on_message(m).action is Action.ALLOW for m in SUMS[:4])


def test_a_tool_call_or_a_user_turn_between_restatements_resets_the_count() -> None:
    g = Guard()
    g.new_turn()
    for m in SUMS[:3]:
        assert g.on_message(m).action is Action.ALLOW
    run(g, "bash", {"command": "openssl x509 -enddate -noout -in staging.pem"}, "notAfter=Nov 30")
    assert all(g.on_message(m).action is Action.ALLOW for m in SUMS[2:])
    g = Guard()
    g.new_turn()
    for m in SUMS[:3]:
        assert g.on_message(m).action is Action.ALLOW
    g.new_turn()
    assert all(g.on_message(m).action is Action.ALLOW for m in SUMS[2:])


def test_an_answer_on_one_topic_that_keeps_adding_is_no_monologue() -> None:
    """Messages about the same subject share words; each says something new."""
    g = Guard()
    g.new_turn()
    parts = [
        "Revenue grew every month this quarter, from 120 in July to 151 in September.",
        "Most of the revenue growth came from the new enterprise plan launched in August.",
        "Churn fell to 2% as the onboarding changes shipped, which also lifted revenue.",
        "For October, the pipeline suggests revenue near 169 if the enterprise deals close.",
        "Risks: two large renewals slip into November and the EU pricing change.",
    ]
    assert all(g.on_message(p).action is Action.ALLOW for p in parts)


# ------------------------------------------- answers through a tool, thoughts through a tool
# (found after the split by probing shapes of the frameworks it names: Letta agents answer
# every user turn with a `send_message` call; Anthropic's `think` tool and the MCP
# `sequentialthinking` server acknowledge every thought the same way)

NOTED = [
    "you like pizza",
    "your birthday is in May",
    "you live in Lisbon",
    "your dog is called Rex",
    "you work at Acme",
    "you prefer tea",
    "your sister is Ana",
    "you cycle to work",
    "you read science fiction",
    "you have two cats",
    "your flight is on Friday",
    "you play chess",
    "your car is blue",
]


def test_replies_through_a_send_message_tool_to_each_user_turn_pass() -> None:
    """Each reply is a new answer to a new request, though the replies share words and the
    tool answers "sent" every time."""
    g = Guard()
    got = []
    for thing in NOTED:
        g.new_turn()
        reply = {"message": f"Sure! I have noted that {thing}.", "request_heartbeat": False}
        got.append(run(g, "send_message", reply, "Sent message successfully."))
    assert flags(got) == []


def test_the_same_reply_to_every_user_turn_is_still_a_repeat() -> None:
    g = Guard()
    got = []
    for _ in range(6):
        g.new_turn()
        got.append(run(g, "send_message", {"message": "Sure!"}, "Sent message successfully."))
    assert "nudge:repeated_call" in flags(got)


def test_reworded_replies_within_one_turn_are_still_no_progress() -> None:
    """No user turn between them: the same reply sent again in other words."""
    g = Guard()
    g.new_turn()
    got = [
        run(g, "send_message", {"message": m}, "Sent message successfully.")
        for m in [
            "Your order 4471 has shipped and arrives Friday.",
            "Order 4471 has shipped; it arrives on Friday.",
            "Good news: order 4471 shipped and will arrive Friday.",
        ]
    ]
    assert "nudge:repeated_call" in flags(got)


def test_only_tools_that_answer_the_user_end_a_request() -> None:
    from crs.guard._state import _ANSWERS

    for name in ("send_message", "mcp__letta__send_message", "final_answer", "attempt_completion"):
        assert _ANSWERS.search(name), name
    for name in ("send_message_to_queue", "get_answer", "read_replies", "messages_list"):
        assert not _ANSWERS.search(name), name


def test_thoughts_through_a_think_tool_that_share_words_pass() -> None:
    g = Guard()
    g.new_turn()
    thoughts = [
        "The failing test expects ISO dates; parse_date splits on slashes, so ISO never parses.",
        "So the fix is in parse_date: split on dashes for ISO input, keep slashes otherwise.",
        "Callers pass both formats, so parse_date must accept both; add an ISO branch.",
        "Plan: edit parse_date, add a test for ISO dates, run the date tests, then all.",
    ]
    got = [run(g, "think", {"thought": t}, "") for t in thoughts]
    assert flags(got) == []
    g = Guard()
    got = [run(g, "think", {"thought": thoughts[0]}, "") for _ in range(4)]
    assert "nudge:repeated_call" in flags(got)  # the same thought again and again


# ------------------------------------------- a batch of actions on different targets
# (found by probing after the split: the same acknowledgement for each target made the
# calls near-duplicates, as numbers are parameters and a channel is one word of text)


def test_the_same_action_on_different_targets_is_a_batch_not_a_loop() -> None:
    batches = [
        [
            ("post_message", {"channel": c, "text": "Deploy of v2.3 finished, checks green."}, "ok")
            for c in ["#eng", "#ops", "#release", "#support"]
        ],
        [
            (
                "send_email",
                {"to": t, "subject": "Invoice", "body": "Your invoice is attached."},
                "sent",
            )
            for t in ["a@x.com", "b@x.com", "c@x.com", "d@x.com"]
        ],
        [("add_label", {"issue": n, "label": "stale"}, "ok") for n in range(11, 17)],
        [("close_issue", {"number": n, "comment": "Fixed in v2.3"}, "closed") for n in range(3, 9)],
        [("archive_user", {"user_id": n, "reason_text": "left the org"}, "ok") for n in (5, 8, 13)],
    ]
    for batch in batches:
        g = Guard()
        g.new_turn()
        got = [run(g, tool, args, res) for tool, args, res in batch]
        assert flags(got) == [], batch[0][0]


def test_a_re_parameterised_call_is_still_the_same_call() -> None:
    """A number that says how much (a timeout, a limit) is a parameter: raising it with the
    same failure is no progress; the same action on the same target again is a repeat."""
    g = Guard()
    got = [
        run(g, "fetch_report", {"report": "q3 revenue summary", "timeout_ms": t}, "[]")
        for t in (1000, 5000, 30000, 60000)
    ]
    assert "nudge:repeated_call" in flags(got)
    g = Guard()
    got = [
        run(g, "post_message", {"channel": "#eng", "text": m}, "ok")
        for m in [
            "Deploy done, checks green.",
            "Deploy is done; checks green.",
            "Done: deploy, green.",
        ]
    ]
    assert "nudge:repeated_call" in flags(got)
    for key in ("issue", "number", "user_id", "orderId", "ticket"):
        assert _canon._target_key(key), key
    for key in ("timeout", "limit", "top_k", "page", "offset", "count", "valid"):
        assert not _canon._target_key(key), key
