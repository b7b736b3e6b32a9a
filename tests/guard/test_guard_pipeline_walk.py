"""A pipeline's later programs are programs, not free text: `cat app.log | grep ERROR`,
`... | grep WARN`, `... | grep FATAL`, each with no match, search for three words (a walk
over items, as `grep -n ERROR app.log` and `grep -n WARN app.log` already were); a search
reworded behind the same pipe is still a rewording, and the re-spelt program of a later
stage (`cd /data && python3 x`, `... && python x`) still a re-spelling."""

from __future__ import annotations

from crs.guard import Guard
from crs.guard._canon import features, similar
from crs.guard._policy import COMMAND_FIELDS
from guard_calls import flags, run

WORDS = ["ERROR", "WARN", "FATAL", "panic", "Traceback", "timeout", "refused"]


def _feat(command: str) -> str:
    return features({"command": command}, COMMAND_FIELDS, lambda s: s)


def test_searching_a_piped_log_for_other_words_is_no_loop() -> None:
    g = Guard()
    for pipe in [
        "cat app.log | grep {}",
        "journalctl -u api | grep -i {}",
        "docker logs api 2>&1 | grep {} | tail -5",
    ]:
        assert flags([run(g, "bash", {"command": pipe.format(w)}, "") for w in WORDS]) == []


def test_the_marked_programs_keep_the_walk_rule_to_pipelines() -> None:
    a, b = _feat("cat app.log | grep ERROR"), _feat("cat app.log | grep WARN")
    # (a call of one argument: its tokens carry no key, fresh16)
    assert ":>grep" in a.split("|", 1)[1].split()
    assert not similar(a, b, 0.3)
    # one changed word of two, with no program among them: still a rewording
    assert similar("i|pattern:github pattern:issue", "i|pattern:create pattern:issue", 0.3)
    # the same word in two forms behind the same pipe: still near-duplicates
    assert similar(_feat("cat a.log | grep config"), _feat("cat a.log | grep configuration"), 0.3)


def test_a_search_reworded_behind_the_same_pipe_is_still_caught() -> None:
    g = Guard()
    calls = [
        "cat app.log | grep -i 'connection refused'",
        "cat app.log | grep 'refused connection'",
        "cat app.log | grep -i 'connection.*refused'",
        "cat app.log | grep -E 'connection (was )?refused'",
        "cat app.log | grep -i 'refused' | grep -i connection",
    ]
    got = flags([run(g, "bash", {"command": c}, "") for c in calls])
    assert got, "a search reworded five times behind one pipe"
    assert got[0].startswith("nudge:"), got  # (by the cluster of the rewordings)


def test_the_same_command_through_a_pipe_is_still_a_repeat() -> None:
    g = Guard()
    got = flags([run(g, "bash", {"command": "cat app.log | grep ERROR"}, "") for _ in range(4)])
    assert got[:1] == ["nudge:repeated_call"], got
