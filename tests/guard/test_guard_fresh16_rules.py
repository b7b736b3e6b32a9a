"""Rules of the guard's semantics refined after the fresh16 trajectories of the loop benchmark
(bench/loops, split fresh16) showed them wrong in general: the loop that must now be caught
beside the legitimate work that must still pass, and neighbours beyond the split probed for
new false alarms."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crs.guard import Action, Guard, VerdictCode

SOURCE = "def foo():\n    return 42\n\n__all__ = ['foo']\n"


def _run(g: Guard, tool: str, args: dict[str, Any], result: Any = None, error: Any = None) -> Any:
    v = g.before_call(tool, args)
    assert v.allowed, v
    return g.after_call(v.call, result=result, error=error)


# ------------------------------------------- one argument: its name is not what is asked


def test_one_file_read_under_four_argument_names_is_one_read() -> None:
    """victor's `test_file_path_aliases_normalized`: `path`, `file`, `filepath`,
    `file_path`, the same file and the same content each time: reads renamed, no progress
    (the third read of one file with one content, as if it kept its argument's name)."""
    g = Guard()
    keys = ("path", "file", "filepath", "file_path")
    got = [_run(g, "read", {k: "foo.py"}, SOURCE) for k in keys]
    assert [v.action for v in got] == [Action.ALLOW, Action.ALLOW, Action.NUDGE, Action.NUDGE]
    assert got[2].code is VerdictCode.REPEATED_CALL
    assert list(got[2].evidence) == [1, 2, 3]


def test_one_search_under_four_argument_names_is_one_search() -> None:
    g = Guard()
    hits = ["src/foo.py:1: def foo():"]
    keys = ("query", "search", "pattern", "keyword")
    got = [_run(g, "code_search", {k: "def foo"}, hits).action for k in keys]
    assert got == [Action.ALLOW, Action.ALLOW, Action.NUDGE, Action.NUDGE]


def test_renamed_reads_of_different_files_or_with_new_content_pass() -> None:
    """Another file under another name, or the same file whose content changed (it is
    being edited), is not a rename of one read."""
    g = Guard()
    for i, k in enumerate(("path", "file", "filepath", "file_path", "filename", "target")):
        assert _run(g, "read", {k: f"mod_{i}.py"}, SOURCE).action is Action.ALLOW
    g = Guard()
    for i, k in enumerate(("path", "file", "filepath", "file_path", "filename", "target")):
        assert _run(g, "read", {k: "foo.py"}, f"{SOURCE}# rev {i}\n").action is Action.ALLOW


def test_keys_still_matter_for_calls_of_several_arguments() -> None:
    """`copy(src=a, dst=b)` then `copy(src=b, dst=a)`: two copies, not one renamed."""
    g = Guard()
    for i in range(3):
        a, b = ("a.txt", "b.txt") if i % 2 == 0 else ("b.txt", "a.txt")
        got = _run(g, "copy", {"src": a, "dst": b, "overwrite": True}, "copied")
        assert got.action is Action.ALLOW, (i, got)


def test_a_renamed_read_that_fails_the_same_way_is_one_failing_call() -> None:
    """The same missing file asked for as `path`, `file`, `file_path`: one call failing,
    spelled three ways (the error streak of respelled calls)."""
    g = Guard()
    err = "ENOENT: no such file or directory"
    got = [_run(g, "read", {k: "cfg.yml"}, error=err) for k in ("path", "file", "file_path")]
    assert got[-1].action is Action.NUDGE
    assert got[-1].code is VerdictCode.ERROR_LOOP


# ------------------------------------------ errors about the tool itself, tool after tool


def test_one_hallucinated_tool_after_another_is_an_error_loop() -> None:
    """theappapp's loop: "Unknown tool: interview_tool", then Miro, Jira, Zoom, each a new
    name failing the same way: caught at the third."""
    g = Guard()
    assert _run(g, "file_system", {"op": "read", "path": "docs/brief.md"}, "Goal").allowed
    args = {"action": "create", "topic": "onboarding research"}
    got = [_run(g, t, args, error=f"Unknown tool: {t}") for t in ("interview_tool", "Miro")]
    assert [v.action for v in got] == [Action.ALLOW, Action.ALLOW]
    v = _run(g, "Jira", args, error="Unknown tool: Jira")
    assert v.action is Action.NUDGE
    assert v.code is VerdictCode.ERROR_LOOP
    assert list(v.evidence) == [2, 3, 4]
    assert "Jira" not in v.message  # (it redirects; it does not echo the call)


def test_tool_named_errors_with_other_wordings_each_time_are_no_loop() -> None:
    """Different tools, each failing its own way (the tool named in each): no one error."""
    g = Guard()
    errors = ["{t}: rate of writes exceeded", "{t} refused: not signed in", "{t}: bad request"]
    for t, e in zip(("Jira", "Miro", "Zoom"), errors, strict=True):
        assert _run(g, t, {"x": 1}, error=e.format(t=t)).action is Action.ALLOW


def test_an_error_that_echoes_the_arguments_is_about_them_not_the_tool() -> None:
    """Three tools probing three files that are not there ("read_file: no such file:
    a.py"): each error is about what was asked; looking for a file is no loop."""
    g = Guard()
    for t, f in (("read_file", "a.py"), ("stat_file", "b.py"), ("open_file", "c.py")):
        assert _run(g, t, {"path": f}, error=f"{t}: no such file: {f}").action is Action.ALLOW


def test_a_tool_name_inside_another_word_is_not_named() -> None:
    """`ls` is not named by "false"; `cat` not by "concatenate"."""
    g = Guard()
    for t in ("ls", "cat", "gre"):
        v = _run(g, t, {"q": t}, error="false: concatenate failed, degrees unknown")
        assert v.action is Action.ALLOW


def test_a_user_turn_after_an_answer_starts_the_run_again(tmp_path: Path) -> None:
    """The run is of one request: after the agent answered and the user spoke, the next
    unknown tool is the first of a new run (durable: a new process continues the run)."""
    with Guard.open(tmp_path / "p", "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
        for t in ("Miro", "Jira"):
            assert _run(g, t, {"a": 1}, error=f"Unknown tool: {t}").allowed
    with Guard.open(tmp_path / "p", "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
        v = _run(g, "Zoom", {"a": 1}, error="Unknown tool: Zoom")
        assert v.action is Action.NUDGE  # the run went on in the new process
    with Guard.open(tmp_path / "p", "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
        g.on_message("Those tools are not available here; I will plan it by hand.")
        g.new_turn("ok, then use the docs folder")
        for t in ("Notion", "Trello"):
            assert _run(g, t, {"a": 1}, error=f"Unknown tool: {t}").allowed


def test_the_result_counts_of_the_candidates_follow_them(tmp_path: Path) -> None:
    """`SessionState.text_res` (derived: how many near-duplicate candidates have each
    result) stays equal to what `texts` holds, past its bound, and after a reopen."""
    from collections import Counter

    with Guard.open(tmp_path / "p", "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
        for i in range(150):
            _run(g, "read", {"path": f"f{i % 40}.py"}, f"body {i % 7}")
            _run(g, "search", {"query": f"term {i % 11}", "limit": 5}, [f"hit {i % 3}"])
        s = g._session()
        assert len(s.texts) == 64
        assert s.text_res == Counter(e[3] for e in s.texts)
        before = dict(s.text_res)
    with Guard.open(tmp_path / "p", "s", home=tmp_path / "h", fingerprint=lambda: "f") as g:
        s = g._session()
        assert s.text_res == Counter(e[3] for e in s.texts) == before


# ------------------------------------------ the same message around one reworded message

FAREWELL = (
    "As we part ways, please don't hesitate to reach out if you have any more questions "
    "about the JSON format. Keep on coding and happy developing!"
)


def test_a_message_said_again_around_one_other_is_a_monologue() -> None:
    """GPT Pilot #424: a farewell, the farewell, one reworded goodbye, the farewell: three
    of the last four messages say one thing, no call between them."""
    g = Guard()
    _run(g, "write_file", {"path": "steps.json", "content": "[]"}, "Saved steps.json")
    got = [
        g.on_message(t).action
        for t in (FAREWELL, FAREWELL, "Our talk about the format has come to a close. Thanks!")
    ]
    assert got == [Action.ALLOW, Action.ALLOW, Action.ALLOW]
    v = g.on_message(FAREWELL)
    assert v.action is Action.NUDGE
    assert v.code is VerdictCode.MONOLOGUE
    assert "3 times in its last 4 messages" in v.reason


def test_a_message_said_three_times_among_other_messages_or_turns_passes() -> None:
    """Not the same thing three times in four: a design answer in sections with one short
    line said between some of them; one greeting to three new requests (each turn a run of
    its own)."""
    g = Guard()
    for i, t in enumerate(["Part one of the design.", "Next:", "Part two.", "Part three."]):
        assert g.on_message(t).action is Action.ALLOW, i
    assert g.on_message("Next:").action is Action.ALLOW  # (2 in the last 4)
    g = Guard()
    for ask in ("hi there", "can you review my pull request?", "what does crs stand for?"):
        g.new_turn(ask)  # (three new requests: each turn a run of its own)
        assert g.on_message("Hello! How can I help you today?").action is Action.ALLOW


def test_one_empty_or_numeric_argument_keeps_its_key() -> None:
    """`git(status="")`, `git(diff="")`, `git(log="")` with the same empty output are three
    commands; `get(issue=2)`, `get(pr=2)`, `get(order=2)` saying "not found" are three
    items: only a non-empty str value stands for the call without its key."""
    g = Guard()
    for k in ("status", "diff", "log", "stash"):
        assert _run(g, "git", {k: ""}, "").action is Action.ALLOW, k
    g = Guard()
    for k in ("issue", "pr", "order", "ticket"):
        assert _run(g, "get", {k: 2}, "not found").action is Action.ALLOW, k


# ------------------------------------------ held-out split fresh17: the rules it showed wrong


def test_try_again_after_a_fix_it_asks_for_is_a_hard_failure(tmp_path: Path) -> None:
    """looper #74: "... requires a newer version of Codex. Please upgrade to the latest app
    or CLI and try again." is no transient error (waiting does not fix it): remembered, and
    the same call refused in the next session of an unchanged workspace."""
    from crs.guard import _canon

    err = "The 'gpt-5.5' model requires a newer version. Please upgrade the CLI and try again."
    assert not _canon.is_transient(err, err)
    for text in (
        "Please wait a moment and try again",
        "Rate limit reached; upgrade your plan or try again later",  # (a rate limit)
        "Check your network connection and try again",  # (the network: a retry may work)
        "Something went wrong. Try again.",
    ):
        assert _canon.is_transient(text, text), text
    for text in ("Sign in and try again", "Invalid key: check your API key and try again"):
        assert not _canon.is_transient(text, text), text
    home, project = tmp_path / "h", tmp_path / "p"
    args = {"command": "codex exec --model gpt-5.5 'fix the tests'"}
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "f") as g:
        assert _run(g, "bash", args, error=err).allowed
    with Guard.open(project, "s2", home=home, fingerprint=lambda: "f") as g:
        v = g.before_call("bash", args)
        assert v.action is Action.BLOCK
        assert v.code is VerdictCode.KNOWN_FAILURE


def test_one_folder_respelt_absolute_relative_and_with_doubled_slashes_is_one_listing() -> None:
    """openstudio-mcp #26: `/runs/chicago`, `/runs/chicago/`, `./runs/chicago`,
    `runs/chicago`, `/runs//chicago`, the same listing each time."""
    g = Guard()
    listing = ["in.osm", "run/", "reports/"]
    spellings = ["/runs/chicago", "/runs/chicago/", "./runs//chicago", "runs/chicago"]
    got = [_run(g, "list_files", {"directory": d}, listing).action for d in spellings[:3]]
    assert got == [Action.ALLOW, Action.ALLOW, Action.NUDGE]
    assert g.before_call("list_files", {"directory": "runs/chicago"}).action is Action.BLOCK
    # other folders, or the same folder whose listing changed: no repeat
    g = Guard()
    for i, d in enumerate(["/runs/chicago", "runs/denver", "/runs/boston/", "./runs/austin"]):
        assert _run(g, "list_files", {"directory": d}, listing).action is Action.ALLOW, i
    g = Guard()
    for i, d in enumerate(spellings):
        assert _run(g, "list_files", {"directory": d}, [*listing, f"new_{i}"]).allowed
