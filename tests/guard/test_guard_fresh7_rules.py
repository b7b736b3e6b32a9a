"""Rules of the guard's semantics (issue 12) refined after the fresh7 trajectories of the loop
benchmark (bench/loops, split fresh7) showed them wrong in general; one group per rule, each
with the loop that must still be caught beside the legitimate work that must now pass, and
the neighbours probed for new false alarms."""

from __future__ import annotations

import re

from crs.guard import Guard, GuardPolicy, _canon
from crs.guard._policy import limits_for
from guard_calls import flags, run

# ------------------------------------------- `issue_number` says which issue


def test_a_number_word_after_a_thing_names_which_one() -> None:
    for key in ("issue_number", "pull_number", "prNumber", "PR_NUMBER", "order_no", "item_nr"):
        assert _canon._target_key(key), key
    for key in ("page_number", "line_number", "top_k", "limit", "max_number", "number_of_rows"):
        assert not _canon._target_key(key), key
    assert _canon._target_key("number")
    assert _canon._target_key("orderId")


def test_one_label_added_to_many_issues_by_issue_number_is_a_batch() -> None:
    """GitHub's MCP server names the issue `issue_number`: the same label on eight issues,
    each answered with the issue's label list (github/github-mcp-server#2412)."""
    g = Guard()
    got = [
        run(
            g,
            "add_labels_to_issue",
            {"owner": "acme", "repo": "tool", "issue_number": n, "labels": ["sprint-42"]},
            [{"name": "sprint-42"}],
        )
        for n in (10, 15, 20, 25, 30, 35, 40, 45)
    ]
    assert flags(got) == []
    g = Guard()  # reviews on several pull requests, the same body, "ok" each time
    got = [
        run(g, "create_review", {"pull_number": n, "body": "LGTM, thanks!"}, "ok")
        for n in range(100, 106)
    ]
    assert flags(got) == []


def test_the_same_label_on_the_same_issue_again_is_still_a_repeat() -> None:
    g = Guard()
    args = {"owner": "acme", "repo": "tool", "issue_number": 10, "labels": ["sprint-42"]}
    got = [run(g, "add_labels_to_issue", args, [{"name": "sprint-42"}]) for _ in range(4)]
    assert "nudge:repeated_call" in flags(got)


def test_a_comment_reworded_on_one_issue_number_is_still_a_near_duplicate() -> None:
    cmds = frozenset({"command"})
    a = _canon.features({"issue_number": 7, "body": "the fix is merged, closing"}, cmds, str)
    b = _canon.features({"issue_number": 7, "body": "closing, the fix is merged now"}, cmds, str)
    c = _canon.features({"issue_number": 8, "body": "the fix is merged, closing"}, cmds, str)
    assert _canon.similar(a, b, 0.3)
    assert not _canon.similar(a, c, 0.3)  # another issue: another call


def test_pages_by_page_number_stay_one_call_re_parameterised() -> None:
    cmds = frozenset({"command"})
    a = _canon.features({"page_number": 1, "query": "open invoices"}, cmds, str)
    b = _canon.features({"page_number": 2, "query": "open invoices"}, cmds, str)
    assert _canon.similar(a, b, 0.3)


def test_a_str_id_under_an_id_key_names_which_one() -> None:
    """Probed after the split: `sku_id: "A1001"`, `user_id: "u_81"` name the item as
    `user_id: 81` does; a walk over them with the same empty answer is no rewording."""
    for key in ("sku_id", "userId", "page-id", "customerID", "issue_number"):
        assert _canon._id_key(key), key
    for key in ("issue", "order", "number", "query", "video", "paid"):
        assert not _canon._id_key(key), key
    g = Guard()
    got = [
        run(g, "get_product", {"sku_id": f"A100{k}", "fields": "price stock"}, "No results")
        for k in range(6)
    ]
    assert flags(got) == []


def test_the_same_str_id_reworded_is_still_a_near_duplicate() -> None:
    g = Guard()
    got = [
        run(g, "get_product", {"sku_id": "A1001", "fields": f"{f} stock"}, "No results")
        for f in ("price", "cost", "amount", "value")
    ]
    assert "nudge:repeated_call" in flags(got)


def test_per_request_ids_stay_metadata() -> None:
    cmds = frozenset({"command"})
    a = _canon.features({"query": "open invoices", "request_id": "r-1"}, cmds, str)
    b = _canon.features({"query": "open invoices", "request_id": "r-2"}, cmds, str)
    assert a == b


# ------------------------------------------- a wait between two looks is a poll


def _job_polled(g: Guard, statuses: list[str]) -> list[str]:
    got = []
    for st in statuses:
        got.append(run(g, "bash", {"command": "sleep 60"}, ""))
        got.append(run(g, "GetAHORun", {"id": "5520011"}, {"id": "5520011", "status": st}))
    return flags(got)


def test_a_job_polled_between_sleeps_gets_a_polls_patience() -> None:
    """Waiting on a seven-minute run: sleep, look, the same RUNNING five times, then the
    run moves on (awslabs/mcp#4493). The same pair five times was `repeat_in_session`'s
    nudge although a cycle with a wait in it gets `poll_repeat` rounds."""
    g = Guard()
    assert _job_polled(g, ["PENDING", *["RUNNING"] * 5, "STOPPING", "COMPLETED"]) == []


def test_a_job_polled_between_sleeps_past_poll_repeat_is_reported() -> None:
    g = Guard()
    assert "nudge:cycle" in _job_polled(g, ["PENDING", *["RUNNING"] * 7])
    g = Guard(GuardPolicy(poll_repeat=3))
    got = _job_polled(g, ["PENDING", *["RUNNING"] * 4])
    assert got
    assert got[0].startswith("nudge:")


def test_the_same_look_without_a_wait_between_keeps_its_threshold() -> None:
    """Between other calls that do not wait, the same answer five times is still the
    'again and again' nudge; and looks in a row with no wait stay a repeat."""
    g = Guard()
    got = []
    for k in range(5):
        got.append(run(g, "read_file", {"path": f"src/m{k}.py"}, f"module {k}"))
        got.append(run(g, "GetAHORun", {"id": "1"}, {"id": "1", "status": "RUNNING"}))
    assert "nudge:repeated_call" in flags(got)
    g = Guard()
    got = [run(g, "GetAHORun", {"id": "1"}, {"id": "1", "status": "FAILED"}) for _ in range(4)]
    assert "nudge:repeated_call" in flags(got)


def test_one_wait_long_ago_does_not_lift_the_threshold() -> None:
    """Only a wait since the pair's last run counts: a sleep before the first look and
    none after it leaves the later looks a repeat."""
    g = Guard()
    got = [run(g, "bash", {"command": "sleep 30"}, "")]
    for k in range(5):
        got.append(run(g, "read_file", {"path": f"docs/p{k}.md"}, f"page {k}"))
        got.append(run(g, "get_status", {"job": "j1"}, "queued"))
    assert "nudge:repeated_call" in flags(got)


# ------------------------------------------- a thinking tool's other commentary


def test_a_thinking_tool_keeps_its_thought_but_not_its_description() -> None:
    policy = GuardPolicy()
    never = re.compile(r"(?!x)x")
    for tool in ("think", "think_tool", "sequentialthinking", "thinking"):
        lim = limits_for(policy, tool, never, never)
        assert {"thought", "thoughts", "reasoning"}.isdisjoint(lim.ignore_fields), tool
        assert "description" in lim.ignore_fields, tool
    assert "thought" in limits_for(policy, "bash", never, never).ignore_fields


def test_the_same_reflection_with_a_varying_description_is_a_repeat() -> None:
    """A deep-research `think_tool` called with the same reflection again and again, the
    harness adding a description that varies (langchain-ai/deep_research_from_scratch#6)."""
    g = Guard()
    refl = "I found five shops; I still need roast details for two."
    got = [
        run(
            g,
            "think_tool",
            {"reflection": refl, "description": d},
            f"Reflection recorded: {refl}",
        )
        for d in ("check it", "look again", "verify this", "inspect now", "confirm")
    ]
    assert "nudge:repeated_call" in flags(got)


def test_different_thoughts_with_one_description_are_different_calls() -> None:
    g = Guard()
    got = [
        run(g, "think", {"thought": th, "description": "plan the next step"}, "")
        for th in (
            "Booked two days ago: only a 24h window or insurance allows a refund.",
            "The flight is scheduled, so no airline cancellation applies here.",
            "Gold members may get a travel credit; confirm before writing anything.",
            "The user agreed to the credit: issue it, then summarise.",
        )
    ]
    assert flags(got) == []


# ------------------------------------------- editors and writers by name


def test_editor_and_writer_names_change_the_workspace() -> None:
    """OpenHands names its editing tool `file_editor` (and `claude_editor`); an in-memory
    guard that did not read it as a change took the same failing test after each of six
    different edits for the same result again and again (probed after fresh7)."""
    policy = GuardPolicy()
    never = re.compile(r"(?!x)x")
    mutating = re.compile(policy.mutating_pattern)
    for tool in ("file_editor", "claude_editor", "put_file", "s3_put_object", "overwrite_file"):
        assert limits_for(policy, tool, mutating, never).mutating, tool
    for tool in ("read_file", "output_schema", "get_input", "editorconfig_lint", "list_puts"):
        assert not limits_for(policy, tool, mutating, never).mutating, tool


def test_six_edits_through_file_editor_then_the_same_failing_test_is_work() -> None:
    edits = [
        ("def total(items):", "def total(items, tax=0):"),
        ("return sum(i.price for i in items)", "return sum(i.price * i.qty for i in items)"),
        ("import math", "import math\nimport decimal"),
        ("tax=0", "tax=0.0"),
        ("class Cart:", "class Cart(object):"),
        ("if not items:", "if items is None or not items:"),
    ]
    g = Guard()
    got = []
    for old, new in edits:
        args = {"path": "/w/cart.py", "old_str": old, "new_str": new}
        got.append(run(g, "file_editor", args, "The file /w/cart.py has been edited."))
        got.append(run(g, "terminal", {"command": "pytest -q"}, "FAILED test_total\n1 failed"))
    assert flags(got) == []


def test_the_same_edit_through_file_editor_again_is_still_a_repeat() -> None:
    g = Guard()
    args = {"path": "/w/a.py", "old_str": "x = 1", "new_str": "x = 2"}
    got = [run(g, "file_editor", args, "No replacement was performed.") for _ in range(4)]
    assert "nudge:repeated_call" in flags(got)
