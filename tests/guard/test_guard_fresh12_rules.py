"""A rule of the guard's semantics refined after the fresh12 trajectories of the loop benchmark
(bench/loops, split fresh12: other loop detectors' test suites) showed it wrong in general:
the loop that must now be caught beside the legitimate text that must still pass, and
neighbours beyond the split probed for new false alarms."""

from __future__ import annotations

from crs.guard import Action, Guard, _repeat

# --------------------------------------------------------- a passage repeated with a counter

STEP = "Step {i}: back up the database before continuing."


def test_a_sentence_numbered_each_time_is_a_repetition() -> None:
    """7shi/llm7shi's quasi-repetition: the copies differ only by a counter."""
    text = "Here is the plan. " + " ".join(STEP.format(i=i) for i in range(1, 61))
    assert _repeat.repetition(text) == (48, 60)
    g = Guard()
    assert g.on_message(text).action is not Action.ALLOW


def test_a_few_numbered_equal_steps_are_a_list() -> None:
    step = "Step {i}: back up the database to the archive host before continuing."
    text = "The plan: " + " ".join(step.format(i=i) for i in range(1, 10))
    assert len(text) > _repeat.MIN_SPAN
    assert _repeat.repetition(text) is None
    assert Guard().on_message(text).action is Action.ALLOW


def test_numbered_rows_of_a_report_are_not_a_repetition() -> None:
    """A number and a word or two: a record, however many there are."""
    report = "Results: " + " ".join(f"Test {i} passed." for i in range(1, 60))
    assert _repeat.repetition(report) is None
    rows = " ".join(f"Page {i}: ok." for i in range(1, 120))
    assert _repeat.repetition(rows) is None
    assert Guard().on_message(rows).action is Action.ALLOW


def test_numbered_items_that_say_different_things_are_no_repetition() -> None:
    items = [
        "install the client libraries on the build host",
        "copy the configuration template into place",
        "create the database user with read access",
        "run the schema migration against staging",
        "load the fixture data for the smoke tests",
        "point the service at the staging database",
        "start the service and watch its health check",
        "run the smoke tests and keep their report",
        "switch the traffic to the new version",
        "remove the old version after an hour",
        "write the release note for the change",
        "close the ticket with a link to the note",
    ]
    text = " ".join(f"Step {i}: {s}." for i, s in enumerate(items, 1))
    assert len(text) > _repeat.MIN_SPAN
    assert _repeat.repetition(text) is None
    assert Guard().on_message(text).action is Action.ALLOW


def test_an_exact_repetition_is_found_as_before() -> None:
    assert _repeat.repetition("Version 2 is ready. " * 30) == (20, 30)
    assert _repeat.repetition("I will fix the bug now. " * 30) == (24, 30)


def test_a_second_number_in_each_copy_names_what_it_is_about() -> None:
    """One counter folded: "service 3", "page 3 of 60" make each copy about another thing."""
    services = "".join(f"- Step {i}: restart the worker pool of service {i}\n" for i in range(40))
    pages = " ".join(f"Downloaded page {i} of 60 from the archive." for i in range(1, 60))
    for text in [services, pages]:
        assert _repeat.repetition(text) is None
        assert Guard().on_message(text).action is Action.ALLOW
