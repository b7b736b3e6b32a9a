"""Rules of the guard's semantics (issue 12) refined after the fresh8 trajectories of the loop
benchmark (bench/loops, split fresh8) showed them wrong in general; one group per rule, each
with the loop that must still be caught beside the legitimate work that must now pass, and
the neighbours probed for new false alarms."""

from __future__ import annotations

from crs.guard import Guard, _canon
from guard_calls import flags, run

CMDS = frozenset({"command"})

# ------------------------------------------- a number sent as a string is the number


def test_a_number_as_text_is_the_number_in_near_duplicate_checks() -> None:
    a = _canon.features({"path": "src/w.py", "offset": 668, "limit": 30}, CMDS, str)
    for other in ({"offset": "668", "limit": "30"}, {"offset": "668.0", "limit": 30}):
        b = _canon.features({"path": "src/w.py", **other}, CMDS, str)
        assert _canon.similar(a, b, 0.3), other


def test_codes_with_zeros_and_versions_stay_words() -> None:
    a = _canon.features({"zip": "02139", "q": "pizza"}, CMDS, str)
    b = _canon.features({"zip": "10001", "q": "pizza"}, CMDS, str)
    assert a.partition("|")[2] != b.partition("|")[2]  # "02139" is a word, not a number
    assert "zip:02139" in a
    v1 = _canon.features({"q": "changelog", "version": "3.10"}, CMDS, str)
    v2 = _canon.features({"q": "changelog", "version": "3.1"}, CMDS, str)
    assert not _canon.similar(v1, v2, 0.3)  # two versions, as before


def test_which_one_as_text_is_still_which_one() -> None:
    """Under a key that says which item (`issue`, `id`), a number as text names it as the
    number does: another issue is another call."""
    a = _canon.features({"issue": "12", "body": "closing as fixed"}, CMDS, str)
    b = _canon.features({"issue": 12, "body": "closing as fixed"}, CMDS, str)
    c = _canon.features({"issue": "13", "body": "closing as fixed"}, CMDS, str)
    assert a == b
    assert not _canon.similar(a, c, 0.3)


def test_one_window_read_with_its_offset_as_int_str_and_float_is_a_repeat() -> None:
    """jwbron/egg#3595: the same read_file window, the offset and limit spelt each way."""
    g = Guard()
    forms = [(668, 30), ("668", "30"), (668.0, 30), (668, 30.0), ("668", 30)]
    got = [
        run(g, "read_file", {"path": "src/w.py", "offset": o, "limit": n}, "668 for seg in ...")
        for o, n in forms
    ]
    assert "nudge:repeated_call" in flags(got[:3])


def test_windows_at_other_offsets_as_text_are_reads() -> None:
    g = Guard()
    got = [
        run(g, "read_file", {"path": "src/w.py", "offset": str(o), "limit": "30"}, f"lines {o}")
        for o in (600, 630, 660, 690, 720)
    ]
    assert flags(got) == []


# ------------------------------------------- an action that says it waits is a wait


def test_a_process_wait_action_is_polled_with_a_polls_patience() -> None:
    """hermes-agent#823: a background build followed through `process(action="wait")`,
    'still running, no new output' four times, then its output."""
    g = Guard()
    wait = {"action": "wait", "session_id": "proc_7f2a", "timeout": 60}
    got = [run(g, "process", wait, '{"status": "running", "new_output": ""}') for _ in range(4)]
    got.append(run(g, "process", wait, '{"status": "exited", "exit_code": 0}'))
    assert flags(got) == []


def test_a_wait_that_never_ends_is_still_reported() -> None:
    g = Guard()
    wait = {"op": "poll", "job": "j_1"}
    got = [run(g, "jobs", wait, "running") for _ in range(8)]
    assert "nudge:repeated_call" in flags(got)
    first = next(i for i, (b, a) in enumerate(got) if a is not None and a.action != "allow")
    assert first >= 5  # `poll_repeat` (6) unchanged answers, not `repeat_nudge` (3)


def test_other_actions_of_the_same_tool_are_reads() -> None:
    g = Guard()
    log = {"action": "log", "session_id": "proc_7f2a"}
    got = [run(g, "process", log, "built 12 pages") for _ in range(4)]
    assert "nudge:repeated_call" in flags(got)
    g = Guard()  # `mode: "await_review"` has no wait word of its own
    got = [run(g, "review", {"mode": "await_review", "pr": 3}, "pending") for _ in range(4)]
    assert "nudge:repeated_call" in flags(got)


# ------------------------------------------- near-duplicates whose answers differ are a walk


def test_one_rubric_over_many_leads_with_two_verdicts_is_a_walk() -> None:
    """griffinwork40/agent-afk#427: a qualifier subagent per lead, the same rubric; the
    leads' ids differ only by their numbers and the verdicts repeat (ACCEPT, REJECT)."""
    g = Guard()
    verdicts = "RARRAARRARAR"
    got = [
        run(
            g,
            "Task",
            {"subagent_type": "qualifier", "prompt": f"Qualify lead_{100 + 37 * k} by the rubric"},
            "ACCEPT: fits ICP" if v == "A" else "REJECT: outside ICP",
        )
        for k, v in enumerate(verdicts)
    ]
    assert flags(got) == []


def test_a_label_counting_up_with_one_answer_is_still_a_loop() -> None:
    """earendil-works/pi#9637 (fresh5): the display name counts up (noop1, noop2, ...), the
    answer never changes: one call."""
    g = Guard()
    got = [
        run(g, "fabric_exec", {"command": "echo noop", "display_name": f"noop{k}"}, "noop")
        for k in range(1, 9)
    ]
    assert any(f.startswith("nudge:") for f in flags(got))


def test_an_answer_that_differed_once_for_the_same_call_is_no_evidence() -> None:
    """The world moved for one call (its own answer changed): that says nothing of what its
    re-parameterised neighbours ask, which still repeat."""
    g = Guard()
    got = [run(g, "search", {"query": "deploy status eu-west", "top_k": 5}, "pending")]
    got += [run(g, "search", {"query": "deploy status eu-west", "top_k": 5}, "done")]
    got += [
        run(g, "search", {"query": "deploy status eu-west", "top_k": k}, "done")
        for k in (6, 7, 8, 9, 10, 11)
    ]
    assert any(f.startswith("nudge:") for f in flags(got))


def test_a_search_reworded_after_a_first_answer_of_its_own_is_still_one_call() -> None:
    """bytedance/UI-TARS-desktop#698 (fresh7's shape): the first wording found a forum
    post, every rewording after it finds nothing. Several words change between wordings,
    so the first answer says nothing about which item is asked: the rewordings repeat."""
    g = Guard()
    qs = [
        "etf_code.mst master file format specification",
        "format of etf_code.mst file",
        "etf_code.mst file layout fields",
        "etf_code.mst master file column format",
        "etf_code.mst file specification",
    ]
    got = [run(g, "web_search", {"query": "etf_code.mst file format"}, "1 result: a forum post")]
    got += [run(g, "web_search", {"query": q}, "No results found") for q in qs]
    assert "nudge:repeated_call" in flags(got)
    assert _canon.one_word_apart(
        _canon.features({"prompt": "Qualify lead_137 by the rubric"}, CMDS, str),
        _canon.features({"prompt": "Qualify lead_174 by the rubric"}, CMDS, str),
    )
    assert not _canon.one_word_apart(
        _canon.features({"query": qs[0]}, CMDS, str), _canon.features({"query": qs[1]}, CMDS, str)
    )


def test_a_parameter_that_changed_the_answer_once_is_still_a_parameter() -> None:
    """Another window of the file brought other lines; the window at 668 re-read with
    limit 30, 31, 32, ... brings the same lines each time: one read re-parameterised."""
    g = Guard()
    got = [run(g, "read_file", {"path": "src/w.py", "offset": 0, "limit": 30}, "lines 0-29")]
    got += [
        run(g, "read_file", {"path": "src/w.py", "offset": 668, "limit": 30 + k}, "668 ... 697")
        for k in range(6)
    ]
    assert "nudge:repeated_call" in flags(got)
    a = _canon.features({"path": "src/w.py", "offset": 0, "limit": 30}, CMDS, str)
    b = _canon.features({"path": "src/w.py", "offset": 668, "limit": 31}, CMDS, str)
    assert not _canon.one_word_apart(a, b)


# ------------------------------------------- a run of rewordings is one run, whatever it matched

PASSAGE = (
    "Front Row (software) | a discontinued media center application for Mac OS X; it can be "
    "controlled by an Apple Remote or the keyboard function keys."
)
REWORDINGS = [
    "Front Row program Apple Remote",
    "Front Row software controlled by devices",
    "devices that can control Front Row software",
    "Front Row media center control device besides Apple Remote",
    "what controls Front Row besides the Apple Remote",
    "Front Row software control keyboard function keys",
]


def test_rewordings_that_match_two_older_wordings_are_one_run() -> None:
    """stanfordnlp/dspy#748: a ReAct program keeps searching after it found the answer,
    rewording the query; each wording is close to one of two earlier ones (the first or the
    second), so they made two clusters taking turns, and no rule saw three in a row. A
    rewording that continues the run just before it joins that run."""
    g = Guard()
    got = [run(g, "Search", {"query": q}, PASSAGE) for q in REWORDINGS]
    first = next(i for i, (b, a) in enumerate(got) if a is not None and a.action != "allow")
    assert first <= 4
    assert flags(got)[0] == "nudge:repeated_call"


TOPICS = (
    "refund policy for sale items",
    "sale items refund policy",
    "shipping times to Canada",
    "gift card expiry rules",
    "warranty for refurbished laptops",
    "loyalty points conversion",
)


def test_a_walk_over_topics_with_the_same_empty_answer_after_a_rewording_is_no_run() -> None:
    """One query reworded once (both empty), then other topics, each "No results": the
    other topics share no words with the run, so they do not join it."""
    g = Guard()
    assert flags([run(g, "search_help", {"query": q}, "No results") for q in TOPICS]) == []
