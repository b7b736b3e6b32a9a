"""A walk over items is not a reworded search: calls of three words or more that differ in
one word only, two different words (another table, another handler, another topic), each
with the same answer (`0`, "No results", nothing), are different calls (docs/guard-api.md,
"(walks)"). Reworded searches, words in two forms and short patterns with one word changed
stay near-duplicates, and an exact repeat is still a repeat."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from crs.guard import Action, Guard, Verdict
from crs.guard._canon import features, similar
from crs.guard._policy import COMMAND_FIELDS


def _flags(calls: list[tuple[str, dict[str, str], str]]) -> list[Verdict]:
    g = Guard()
    out = []
    for tool, args, result in calls:
        v = g.before_call(tool, args)
        if v.action is not Action.ALLOW:
            out.append(v)
        assert v.call is not None
        a = g.after_call(v.call, result=result)
        if a.action is not Action.ALLOW:
            out.append(a)
    return out


TABLES = ["orders", "refunds", "invoices", "customers", "payments", "shipments", "coupons"]


def test_the_same_count_on_other_tables_is_no_loop() -> None:
    calls = [("run_sql", {"query": f"SELECT count(*) FROM {t}"}, "0") for t in TABLES]
    assert _flags(calls) == []


def test_searches_for_other_topics_with_no_results_are_no_loop() -> None:
    calls = [
        ("search_docs", {"query": f"how to configure {t} retention"}, "No results") for t in TABLES
    ]
    assert _flags(calls) == []


def test_greps_for_other_handlers_that_find_nothing_are_no_loop() -> None:
    assert _flags([("grep", {"pattern": f"def {t}_handler"}, "") for t in TABLES]) == []


def test_issue_searches_by_other_labels_are_no_loop() -> None:
    labels = ["bug", "p1", "security", "docs", "ux"]
    calls = [("search_issues", {"query": f"is:open label:{lb}"}, "[]") for lb in labels]
    assert _flags(calls) == []


def test_other_keys_of_a_key_value_store_are_other_calls() -> None:
    calls = [("redis_get", {"key": f"user:{i}:session"}, "(nil)") for i in range(6)]
    assert _flags(calls) == []
    again = [("redis_get", {"key": "user:1:session"}, "(nil)")] * 4
    assert any(v.action is not Action.ALLOW for v in _flags(again))  # the same key: a repeat


def test_a_reworded_search_with_the_same_empty_answer_is_still_caught() -> None:
    queries = [
        "find the database config file",
        "locate database configuration file",
        "search database config files",
        "where is the database config file",
        "database config file location",
    ]
    flags = _flags([("search_files", {"query": q}, "No matches") for q in queries])
    assert flags
    assert flags[0].action is Action.NUDGE


def test_short_patterns_with_one_word_changed_stay_rewordings() -> None:
    a = features({"pattern": "github.*issue"}, COMMAND_FIELDS, str)
    b = features({"pattern": "create_issue"}, COMMAND_FIELDS, str)
    assert similar(a, b, 0.3)


def test_one_word_in_two_forms_stays_a_near_duplicate() -> None:
    for x, y in (("config", "configuration"), ("order", "orders"), ("noop1", "noop2")):
        a = features({"query": f"show {x} details now"}, COMMAND_FIELDS, str)
        b = features({"query": f"show {y} details now"}, COMMAND_FIELDS, str)
        assert similar(a, b, 0.3), (x, y)


def test_an_exact_repeat_is_still_a_repeat() -> None:
    calls = [("run_sql", {"query": "SELECT count(*) FROM orders"}, "0")] * 4
    assert any(v.action is not Action.ALLOW for v in _flags(calls))


_word = st.text("abcdefghijklmnopqrstuvwxyz", min_size=5, max_size=9)


@settings(max_examples=60, deadline=None)
@given(st.lists(_word, min_size=4, max_size=8, unique_by=lambda w: w[:4]), st.booleans())
@example(["aaaaa", "aaaca", "total", "aaaba"], False)  # a table named as its column
def test_a_walk_over_distinct_items_is_never_flagged(items: list[str], empty: bool) -> None:
    answer = "" if empty else "0 rows"
    calls = [("query_db", {"sql": f"select total from {w} where open"}, answer) for w in items]
    assert _flags(calls) == []
