"""Rules of the guard's semantics (issue 12) refined after the fresh5 trajectories of the loop
benchmark (bench/loops, split fresh5) showed them wrong in general; one group per rule, each
with the case that must still be caught beside the case that must now pass (or the loop that
must now be caught beside the legitimate work that must still pass)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from crs import _core
from crs.guard import Action, Guard, GuardPolicy, ToolPolicy, VerdictCode, _canon
from guard_calls import flags, run

# ------------------------------------------- a tool that runs commands: the command decides


def test_a_read_only_command_through_an_exec_tool_is_a_read() -> None:
    """`fabric_exec`, `execute_command` run commands: `echo noop` again and again with the
    same output is a repeat, although the tool's name says "exec" (a display label that
    counts up changes nothing)."""
    g = Guard()
    got = [
        run(g, "fabric_exec", {"command": "echo noop", "display_name": f"noop{k}"}, "noop\n")
        for k in range(5)
    ]
    assert "nudge:repeated_call" in flags(got)
    g = Guard()
    got = [run(g, "execute_command", {"command": "git status --short"}, "") for _ in range(4)]
    assert "nudge:repeated_call" in flags(got)


def test_a_writing_command_through_an_exec_tool_still_changes_the_workspace() -> None:
    g = Guard()
    assert g.before_call("execute_command", {"command": "ls"}).call is not None
    ident = g._identify("execute_command", {"command": "sed -i s/a/b/ f.txt"})
    assert ident[5] is True  # mutates
    assert g._identify("execute_command", {"command": "cat f.txt"})[5] is False
    assert g._identify("fabric_exec", {"command": "make build"})[5] is True
    # an edit tool whose command field names the edit keeps its name's meaning
    assert g._identify("str_replace_editor", {"command": "view", "path": "a.py"})[5] is True
    # and an explicit ToolPolicy wins over the command
    pol = GuardPolicy(tools={"fabric_exec": ToolPolicy(mutating=True)})
    assert Guard(pol)._identify("fabric_exec", {"command": "cat f.txt"})[5] is True


def test_the_same_command_after_an_edit_through_an_exec_tool_runs_again() -> None:
    """The test-fix-test cycle through one exec tool: the edit (a writing command) changes
    the workspace, so the same failing test after it is no repeat."""
    g = Guard()
    test = {"command": "pytest -q tests/test_a.py"}
    got = []
    for k in range(4):
        got.append(run(g, "execute_command", test, error="1 failed"))
        got.append(run(g, "execute_command", {"command": f"sed -i 's/x{k}/y/' src/a.py"}, ""))
    assert flags(got) == []


# ------------------------------------------- generated ids in a result are no new result


def test_a_result_differing_only_by_generated_ids_is_the_same_result() -> None:
    """The same dispatch, each result with a fresh batch GUID, wisp id and elapsed time."""
    g = Guard()
    got = []
    for k in range(5):
        res = (
            f"batch-{k:02d}c9e41f7a3b2d: 1 wisp dispatched\n"
            f"  wisp-{k}f0a9b8c7d6e5 done in {900 + k}ms\n"
            f"id {k}23e4567-e89b-12d3-a456-42661417400{k}\nresult: 14 messages, 0 urgent"
        )
        got.append(run(g, "spawn_wisps", {"name": "summarise-inbox"}, res))
    assert "nudge:repeated_call" in flags(got)


def test_a_result_that_changes_beside_its_ids_is_a_new_result() -> None:
    g = Guard()
    got = [
        run(g, "spawn_wisps", {"name": "inbox"}, f"batch-{k:02d}c9e41f7a3b2d: {k} messages")
        for k in range(6)
    ]
    assert flags(got) == []


def test_short_shas_words_and_numbers_are_not_ids() -> None:
    for text in ("commit 4be91c2", "a deadbeefcafe word", "12345678 bytes", "x9f3a2c1d0e"):
        assert _canon.mask_volatile(text) == text
    assert _canon.mask_volatile("nonce=6941afa76632fc57 ok") == "nonce=# ok"
    assert _canon.mask_volatile("run 123e4567-e89b-12d3-a456-426614174000") == "run #"


HEX_PIECES = st.sampled_from(
    ["9f", "3a", "e8", "A", "F", "deadbeef", "12345678", "-", "--", "_", "=", " ", "x", "g",
     "4be91c2", "0x", "1", "b", ":", ".", "2024-01-02T10:11"]
)  # fmt: skip


@settings(max_examples=3000)
@given(st.lists(HEX_PIECES, max_size=30).map("".join))
def test_the_scanner_agrees_with_the_regex_on_hex_near_misses(text: str) -> None:
    masked = _core.mask_volatile(text)
    assert (text if masked is None else masked) == _canon._VOLATILE.sub("#", text)


# ------------------------------------------- the same answer to turn after turn (not a rule)


def test_the_same_answer_to_every_user_turn_is_no_monologue() -> None:
    """Each answer follows a user message (tests/integrations/test_conform_langchain.py holds
    the same through LangChain): fresh5's f5-tolokaforge-please-wait-each-turn, a model that
    says "please wait" to every turn, is left missed rather than flag a chat."""
    g = Guard()
    for _ in range(8):
        g.new_turn()
        assert g.on_message("I am still working on the task right now, please wait").allowed


# ------------------------------------------- a long run of messages counts by what it says


def test_a_long_answer_in_distinct_sections_is_no_monologue() -> None:
    g = Guard()
    g.new_turn()
    topics = [
        "background login phone mini program openid",
        "goals account person several openids registration",
        "schema table user app unionid bound unique",
        "binding endpoint verification token code",
        "unbinding settings last method removed",
        "conflicts already bound elsewhere support link",
        "migration backfill log together appear",
        "security verify server side never trust client",
        "rate limits attempts hour number",
        "error codes invalid frequent conflicts",
        "tests unit rules sandbox end",
        "rollout flag staff percent everyone",
        "open questions phones during transition",
        "summary separate table verified available",
        "appendix references wechat documentation pages",
        "glossary terms acronyms definitions",
    ]
    assert all(g.on_message(f"{k + 1}. {t}.").allowed for k, t in enumerate(topics))


def test_reworded_lines_that_say_nothing_new_are_a_monologue() -> None:
    g = Guard()
    g.new_turn()
    lines = [
        "Maria: We're throwing a housewarming party on Saturday at our new flat.",
        "Tom: Wonderful, when should we arrive, and shall I bring something?",
        "Maria: Around eight; dessert would be lovely!",
        "Tom: I'll bake a lemon tart, and Anna comes too.",
        "Maria: Perfect, talk to you at the party then!",
        "Tom: Talk to you there, Maria!",
        "Maria: Perfect! Talk to you then!",
        "Tom: Talk to you at the party, Maria!",
        "Maria: Great, talk to you there!",
        "Tom: Talk to you then, Maria!",
        "Maria: Perfect, talk to you at the party!",
        "Tom: Talk to you there!",
    ]
    got = [g.on_message(m) for m in lines]
    assert any(v.code is VerdictCode.MONOLOGUE for v in got)
    assert all(v.allowed for v in got[:8])


def test_a_very_long_run_of_distinct_messages_gets_a_nudge_and_never_more() -> None:
    g = Guard(GuardPolicy(monologue_max=4))
    g.new_turn()
    got = [g.on_message(f"section {w} explains topic {w}{w} in detail") for w in "abcdefghijkl"]
    actions = {v.action for v in got}
    assert Action.NUDGE in actions
    assert Action.BLOCK not in actions
    assert Action.STOP not in actions


# ------------------------------------------- found by perturbing every benchmark trajectory
# (bench/loops: the same trajectories with label-preserving changes: a commentary field
# spelt `Description`, commands as an argv, timing fields in structured results, Unix times
# in text; each variant flipped dozens of verdicts before these rules)


def test_a_commentary_field_spelt_another_way_is_left_out() -> None:
    g = Guard()
    a = g.call_for("bash", {"command": "ls", "Description": "look around"})
    b = g.call_for("bash", {"command": "ls", "Reasoning": "x", "THOUGHT": "y", "No-te": "z"})
    assert a.signature == b.signature == g.call_for("bash", {"command": "ls"}).signature
    # a real argument that only resembles one stays
    assert g.call_for("bash", {"command": "ls", "descriptions": "x"}).signature != a.signature


def test_an_argv_command_is_the_command_it_runs() -> None:
    g = Guard()
    argv = g.call_for("shell", {"command": ["bash", "-lc", "ls  -la"]})
    assert argv.signature == g.call_for("shell", {"command": "ls -la"}).signature
    assert g._identify("shell", {"command": ["bash", "-lc", "cat a.txt"]})[5] is False
    assert g._identify("shell", {"command": ["bash", "-lc", "make build"]})[5] is True
    assert g._identify("shell", {"command": ["sleep", "30"]})[4] is True  # waits
    # polling with a sleep between, both as argvs, passes while the checks move
    got = []
    for p in [5, 4, 3, 3, 2, 1, 0]:
        got.append(run(g, "shell", {"command": ["gh", "pr", "checks", "7"]}, f"{p} pending"))
        got.append(run(g, "shell", {"command": ["bash", "-c", "sleep 30"]}, ""))
    assert flags(got) == []


def test_timing_fields_of_a_structured_result_are_no_new_result() -> None:
    g = Guard()
    got = [
        run(g, "read_file", {"path": "a.py"}, {"text": "x = 1", "elapsed_ms": 3 + k, "ts": k})
        for k in range(4)
    ]
    assert "nudge:repeated_call" in flags(got)
    g = Guard()
    got = [run(g, "get_job", {"id": 7}, {"done": k, "durationSeconds": k}) for k in range(8)]
    assert flags(got) == []  # the data moved beside the timing


def test_stamp_keys_are_only_timing_and_delivery_fields() -> None:
    for key in ("elapsed_ms", "durationSeconds", "took", "request-id", "messageId", "ETag"):
        assert _canon._stamp_key(key), key
    for key in ("items", "times", "dates", "count", "status", "created", "updated_at"):
        assert not _canon._stamp_key(key), key


def test_unix_times_in_text_are_volatile() -> None:
    assert _canon.mask_volatile("[1767265200] ok at 1767265200123.5") == "[#] ok at #"
    for text in ("12345678901", "1767265200x", "v1767265200", "1234567890 (not 2017+)"):
        assert _canon.mask_volatile(text) == text


EPOCH_PIECES = st.sampled_from(
    ["1767265200", "15", "1", "9", "17672652001", "123", ".", "5", " ", "x", "_", "[", "]"]
)


@settings(max_examples=3000)
@given(st.lists(EPOCH_PIECES, max_size=20).map("".join))
def test_the_scanner_agrees_with_the_regex_on_unix_time_near_misses(text: str) -> None:
    masked = _core.mask_volatile(text)
    assert (text if masked is None else masked) == _canon._VOLATILE.sub("#", text)


# ------------------------------------------- printing to itself through the shell


def test_echoes_between_repeats_do_not_break_the_run() -> None:
    """`echo 'Done again.'`, `true`, `echo 'Final done'`, `true` ...: the echoes only print
    their own words; the no-op between them repeats."""
    g = Guard()
    got = [run(g, "shell", {"command": "git status -sb"}, "## main")]
    for word in ["All set.", "Complete.", "Finished!", "Wrapping up"]:  # nothing in common
        got.append(run(g, "shell", {"command": f"echo '{word}'"}, word))
        got.append(run(g, "shell", {"command": "true"}, ""))
    assert "nudge:repeated_call" in flags(got)
    assert got[6][1] is not None
    assert got[6][1].code is VerdictCode.REPEATED_CALL  # the third `true`


def test_echoes_that_print_something_else_are_real_calls() -> None:
    g = Guard()
    assert not g._says({"command": "echo $HOME"}, "/home/me")
    assert not g._says({"command": "echo hi > f.txt"}, "")
    assert g._says({"command": "echo -n 'step  done'"}, "step done")
    got = []
    for k in range(4):  # a status printed between the same read: the read is a repeat
        got.append(run(g, "shell", {"command": f"echo 'step {k}'"}, f"step {k}"))
        got.append(run(g, "read_file", {"path": f"src/m{k}.py"}, f"module {k}"))
    assert flags(got) == []
