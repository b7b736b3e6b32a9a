"""Rules of the guard's semantics (issue 12) refined after the fresh11 trajectories of the loop
benchmark (bench/loops, split fresh11) showed them wrong in general; one group per rule, each
with the loop that must still be caught beside the legitimate work that must now pass, and
the neighbours probed beyond the split for new false alarms."""

from __future__ import annotations

import re

from crs.guard import Guard, _canon, _policy
from guard_calls import flags, run

# ------------------------------------------- an answer that is nothing but a clock reading


def test_a_bare_reading_is_digested_as_it_is() -> None:
    a = _canon.reading_digest("2026-06-11 14:07:10")
    b = _canon.reading_digest(" 2026-06-11 14:07:13\n")
    assert a is not None
    assert b is not None
    assert a != b
    assert _canon.reading_digest("14:07:10.512") is not None
    # words beside the stamp: the stamp is noise around an answer, masked as before
    for text in (
        "Last checked 14:07:10: no new mail",
        '{"deadline": "2026-11-15", "retrieved_at": "2026-06-11T14:05:03.120Z"}',
        "ok",  # (short text is never masked)
        "2026-06-11 14:07:10 " + "x" * 80,  # (too long to be a reading)
        "[1765432100]",  # a log prefix before an empty output
        "1765432100.25",  # a bare number
        "3f2b9c1e-8d7a-4b6c-9e0f-1a2b3c4d5e6f",  # a bare id
        "1200 ms",  # a duration
    ):
        assert _canon.reading_digest(text) is None, text


def test_a_clock_asked_again_and_again_answers_each_time() -> None:
    """langgenius/dify#19589: the user asks for current_time ten times; each answer is a
    later time, so each is new."""
    g = Guard()
    got = [
        run(g, "current_time", {"timezone": "UTC"}, f"2026-06-11 14:07:{10 + 3 * k:02d}")
        for k in range(10)
    ]
    assert flags(got) == []


def test_a_new_bare_id_each_time_is_still_the_same_answer() -> None:
    """A session created again and again, each answer only a new GUID: still a repeat."""
    g = Guard()
    got = [
        run(g, "start_session", {}, f"3f2b9c1e-8d7a-4b6c-9e0f-1a2b3c4d5e{k:02d}") for k in range(6)
    ]
    assert flags(got) != []


def test_a_frozen_clock_is_still_a_repeat() -> None:
    g = Guard()
    got = [run(g, "current_time", {}, "2026-06-11 14:07:10") for _ in range(6)]
    assert flags(got) != []


def test_a_stamp_beside_an_unchanged_answer_is_still_noise() -> None:
    """Azure-Samples/foundry-hosted-agentframework-demos#3: the same deadline with a new
    retrieval time on each call is the same answer."""
    g = Guard()
    got = [
        run(
            g,
            "get_enrollment_deadline_info",
            {},
            f'{{"deadline": "2026-11-15", "retrieved_at": "2026-06-11T14:05:{3 * k:02d}.1Z"}}',
        )
        for k in range(6)
    ]
    assert flags(got) != []
    g = Guard()
    got = [run(g, "check_mail", {}, f"Last checked 14:07:{k:02d}: no new mail") for k in range(6)]
    assert flags(got) != []


# ------------------------------------------- a tool named for what it makes changes things


def test_the_nouns_of_changing_verbs_name_a_change() -> None:
    pattern = re.compile(_policy.MUTATING_PATTERN)
    for name in ("task_creation_agent", "file_writer_tool", "record_deletion", "task_creator"):
        assert pattern.search(name), name
    for name in ("prioritization_agent", "execution_agent", "list_creations", "creative_brief"):
        assert not pattern.search(name), name


def _babyagi(g: Guard, rounds: int, creates: str = "task_creation_agent") -> list:
    got = []
    for k in range(rounds):
        task = f"draft day {k + 1} of the Kyoto itinerary"
        got.append(run(g, "execution_agent", {"task": task}, f"day {k + 1}: temple {k}"))
        got.append(run(g, creates, {"last": task}, f"{k + 2} new tasks"))
        got.append(run(g, "prioritization_agent", {"task_count": 5}, "task list reprioritised"))
    return got


def test_reprioritising_after_each_task_creation_passes() -> None:
    """yoheinakajima/babyagi#75: execute a task, create tasks from its result, reprioritise;
    the prioritiser answers the same each round, after the task list changed."""
    assert flags(_babyagi(Guard(), 8)) == []


def test_the_same_call_between_new_results_and_no_change_is_still_counted() -> None:
    """Without a call that changes anything, the same answer again and again between new
    results is still the repeat (as fresh3's `cat` between new reads)."""
    assert "nudge:repeated_call" in flags(_babyagi(Guard(), 8, creates="task_summary_agent"))


# ------------------------------------------- a memory store's writes make a memory each


def test_memory_writes_are_inferred_to_create() -> None:
    pattern = re.compile(_policy.CREATES_PATTERN)
    for name in (
        "save_memory",
        "core_memory_append",
        "archival_memory_insert",
        "add_memories",
        "memory_store",
        "mcp__mem0__add_memory",
    ):
        assert pattern.search(name), name
    for name in (
        "memory_search",
        "core_memory_search",
        "get_memory",
        "list_memories",
        "core_memory_replace",
        "memory_read",
        "save_file",
    ):
        assert not pattern.search(name), name


def test_the_same_memory_appended_again_is_a_duplicate() -> None:
    """letta-ai/letta#3116: one fact appended to the human block again and again, each
    append answering with the grown block's size."""
    g = Guard()
    fact = {"label": "human", "content": "Favourite colour: blue"}
    got = [
        run(g, "core_memory_append", fact, f'{{"status": "OK", "chars": {16 + 23 * k}}}')
        for k in range(1, 6)
    ]
    assert flags(got[:1]) == []
    assert flags(got[:2]) != []  # the second success is the duplicate


def test_a_new_fact_each_turn_is_no_duplicate() -> None:
    g = Guard()
    got = []
    for k, fact in enumerate(["lives in Lisbon", "is a nurse", "has a cat", "runs on Sundays"]):
        g.new_turn(f"By the way, I {fact}.")
        got.append(
            run(
                g,
                "core_memory_append",
                {"label": "human", "content": fact},
                f'{{"status": "OK", "chars": {30 + 20 * k}}}',
            )
        )
        got.append(run(g, "send_message", {"message": f"Noted: {fact}."}, "None"))
    assert flags(got) == []


def test_the_same_memory_saved_in_each_new_request_is_no_duplicate() -> None:
    """A duplicate is counted within one request: the user asking again is a new one."""
    g = Guard()
    got = []
    for _ in range(3):
        g.new_turn("Remember that I prefer metric units.")
        got.append(run(g, "save_memory", {"memory": "prefers metric units"}, "Memory saved."))
        g.on_message("Noted.")
    assert flags(got) == []
