"""Rules of the guard's semantics (issue 12) refined after the fresh4 trajectories of the loop
benchmark (bench/loops, split fresh4) showed them wrong in general; one group per rule, each
with the case that must still be caught beside the case that must now pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crs.guard import Action, Guard, GuardPolicy, VerdictCode, _canon
from crs.guard._policy import COMMAND_FIELDS
from crs.guard._state import SigState
from guard_calls import flags, run

# ------------------------------------------- the same call again after the world moved

NEXT = {"selector": "a.next"}
ROWS = {"selector": ".product h3"}


def test_the_same_action_between_changing_observations_is_progress() -> None:
    """'Next', extract, 'Next', extract ...: the click answers the same every time, but the
    same extract brings a new page after each: the world moved between the clicks."""
    g = Guard()
    got = [run(g, "extract", ROWS, ["p1"])]
    for page in range(2, 11):
        got.append(run(g, "click", NEXT, "clicked a.next"))
        got.append(run(g, "extract", ROWS, [f"p{page}"]))
    assert flags(got) == []


def test_the_same_action_while_the_observation_stays_the_same_is_a_loop() -> None:
    """The page does not move: [click, extract] with the same results is a cycle."""
    g = Guard()
    got = [run(g, "extract", ROWS, ["p1"])]
    for _ in range(3):
        got.append(run(g, "click", NEXT, "clicked a.next"))
        got.append(run(g, "extract", ROWS, ["p1"]))
    assert "nudge:cycle" in flags(got)
    # (new data from *other* calls between the repeats is no change of what the repeated
    # call reads: test_guard_fresh3_rules' exact-repeat test still holds)


def test_where_the_world_last_moved_survives_a_reopen(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "fp") as g:
        run(g, "extract", ROWS, ["p1"])
        run(g, "click", NEXT, "clicked a.next")
        run(g, "extract", ROWS, ["p2"])
        moved = g._session().moved_step
        assert moved == 3
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "fp") as g:
        assert g._session().moved_step == moved
        got = []
        for page in range(3, 9):
            got.append(run(g, "click", NEXT, "clicked a.next"))
            got.append(run(g, "extract", ROWS, [f"p{page}"]))
        assert flags(got) == []


# ------------------------------------------------------ a cycle with a wait in it


SLEEP = {"command": "sleep 20"}
CHECK = {"job": "rx-204"}


def test_sleep_then_check_is_polling_while_the_status_moves() -> None:
    """Sleep, check, sleep, check: the status stays the same for two checks at times; that
    is a poll with a wait, not a cycle."""
    g = Guard()
    got = []
    for st in ["queued", "queued", "running 1/4", "running 1/4", "running 2/4", "done"]:
        got.append(run(g, "bash", SLEEP, ""))
        got.append(run(g, "check_job", CHECK, {"status": st}))
    assert flags(got) == []


def test_sleep_then_check_that_never_moves_is_reported_after_the_poll_repeat() -> None:
    """A waited cycle is reported once it came back `poll_repeat` times (as a polled call in
    a row is), not after two rounds. (An answer that says the work is under way, "queued",
    gets twice that since fresh9: tests/guard/test_guard_fresh9_rules.py.)"""
    g = Guard(GuardPolicy(poll_repeat=4))
    got = []
    for _ in range(3):
        got.append(run(g, "bash", SLEEP, ""))
        got.append(run(g, "check_job", CHECK, {"log": "no new lines"}))
    assert flags(got) == []
    run(g, "bash", SLEEP, "")
    _, after = run(g, "check_job", CHECK, {"log": "no new lines"})
    assert after is not None
    assert after.action is Action.NUDGE
    assert after.code is VerdictCode.CYCLE


def test_a_cycle_without_a_wait_is_reported_after_two_rounds() -> None:
    g = Guard()
    got = []
    for _ in range(2):
        got.append(run(g, "bash", {"command": "git status --short"}, ""))
        got.append(run(g, "check_job", CHECK, {"status": "queued"}))
    assert flags(got) == ["nudge:cycle"]


def test_that_a_call_waits_survives_a_reopen(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "fp") as g:
        run(g, "bash", SLEEP, "")
        run(g, "check_job", CHECK, {"status": "queued"})
        sig = g.call_for("bash", SLEEP).signature
        assert g._session().sigs[sig].waits
    with Guard.open(project, "s1", home=home, fingerprint=lambda: "fp") as g:
        assert g._session().sigs[sig].waits
        got = []
        for _ in range(3):
            got.append(run(g, "check_job", CHECK, {"status": "queued"}))
            got.append(run(g, "bash", SLEEP, ""))
        assert flags(got) == []


def test_the_wait_flag_is_part_of_a_signatures_export() -> None:
    st = SigState("bash")
    st.waits = True
    assert SigState.from_export(st.export()).waits
    old = st.export()[:13]  # an image written before the flag existed
    assert not SigState.from_export(old).waits


# ------------------------------------------------------ per-request metadata


def page(k: int) -> dict[str, Any]:
    return {"tabId": 7, "requestId": f"req-{9137 + 17 * k:05d}", "ts": 1767265200123 + 4211 * k}


def test_a_read_that_differs_only_by_request_metadata_is_a_repeat() -> None:
    """A new request id and send time on every call: the same page, the same text."""
    g = Guard()
    got = [run(g, "read_page", page(k), "Checkout - Step 3 of 3") for k in range(4)]
    assert "nudge:repeated_call" in flags(got)
    assert got[1][0].allowed  # a near-duplicate alone runs
    assert got[2][0].allowed


def test_request_metadata_does_not_hide_a_changing_answer() -> None:
    g = Guard()
    got = [run(g, "read_page", page(k), f"Checkout - Step {k + 1} of 6") for k in range(6)]
    assert flags(got) == []


def test_request_metadata_stays_in_the_signature() -> None:
    """Two calls that differ only by a request id are two calls: a failure of one is never
    the other's (remembered failures match signatures)."""
    a = Guard().call_for("get_request", {"request_id": "R-1"}).signature
    b = Guard().call_for("get_request", {"request_id": "R-2"}).signature
    assert a != b
    same = _canon.features({"q": "status", "trace_id": "t-1"}, COMMAND_FIELDS, str)
    other = _canon.features({"q": "status", "trace_id": "t-2"}, COMMAND_FIELDS, str)
    assert same == other
    assert _canon.features({"q": "status", "Request-Id": "x1"}, COMMAND_FIELDS, str) == same


# ------------------------------------------------------ code that sleeps is a poll

STATUS = {"language": "python", "code": "import time\ntime.sleep(30)\nprint(job.status())"}


def test_code_that_sleeps_before_it_looks_is_a_poll() -> None:
    """A code interpreter's poll: the same cell, `time.sleep` then a status print; the
    status stays the same for three looks before it moves (a poll's patience, not 3)."""
    g = Guard()
    got = [run(g, "execute", STATUS, st) for st in ["queued", *["running"] * 4, "done"]]
    assert flags(got) == []


def test_code_that_sleeps_and_never_sees_a_change_is_still_reported() -> None:
    g = Guard(GuardPolicy(poll_repeat=4))
    got = [run(g, "execute", STATUS, "running") for _ in range(5)]
    assert flags(got[:3]) == []  # not after 3 in a row: it waits
    assert flags(got)[0] == "nudge:repeated_call"


def test_code_without_a_sleep_is_not_a_poll() -> None:
    g = Guard()
    cell = {"language": "python", "code": "print(job.status())  # asleep(3) is not a sleep"}
    got = [run(g, "execute", cell, "running") for _ in range(3)]
    assert flags(got) == ["nudge:repeated_call"]


# ------------------------------------------- again and again: within the loop horizon


def exploration(g: Guard, every: int, calls: int) -> list[str]:
    got = []
    for k in range(calls):
        if k % every == 0:
            got.append(run(g, "read_file", {"path": "src/core/engine.py"}, "class Engine"))
        else:
            got.append(run(g, "read_file", {"path": f"src/mod{k}.py"}, f"mod {k}"))
    return flags(got)


def test_a_central_file_reopened_every_twenty_calls_is_not_a_loop() -> None:
    """A long read-only exploration (nothing edited) re-opens its central file now and then:
    six times in 120 calls, each time amid new reads."""
    assert exploration(Guard(), 20, 120) == []


def test_the_same_read_every_few_calls_is_still_a_repeat() -> None:
    """Within the longest period the guard calls a cycle (max_period), the fifth run of the
    same read, nothing changed, is reported."""
    assert exploration(Guard(), 4, 20) == ["nudge:repeated_call"]


# ------------------------------------------- an out-of-band edit lifts an error loop

LOGIN = {"command": "pytest -q tests/test_api.py"}
E401 = RuntimeError("FAILED tests/test_api.py::test_login - AssertionError: 401 != 200")


class Workspace:
    def __init__(self) -> None:
        self.generation = 0

    def fingerprint(self) -> str:
        return f"generation-{self.generation}"


def test_a_failing_run_after_the_user_edited_a_file_runs_again() -> None:
    """'I fixed it, run the tests again': the user's edit (out of band, seen by the
    workspace fingerprint) is a change, as the agent's own edit is."""
    ws = Workspace()
    g = Guard(fingerprint=ws.fingerprint)
    run(g, "bash", LOGIN, error=E401)
    run(g, "bash", LOGIN, error=E401)  # two in a row: the next one would be refused
    assert g.before_call("bash", LOGIN).action is Action.BLOCK
    g.on_message("The login test still fails with 401.")
    ws.generation += 1  # the user edits src/auth.py
    g.new_turn()
    again, _ = run(g, "bash", LOGIN, error=E401)
    assert again.allowed
    # that run failed the same way in the new workspace: refused until the next change
    refused = g.before_call("bash", LOGIN)
    assert refused.action is Action.BLOCK
    assert refused.code is VerdictCode.ERROR_LOOP
    g.on_message("Still 401.")
    ws.generation += 1
    g.new_turn()
    ok, after = run(g, "bash", LOGIN, "3 passed")
    assert ok.allowed
    assert after is not None
    assert after.allowed


def test_without_a_change_the_error_loop_stays_refused() -> None:
    ws = Workspace()
    g = Guard(fingerprint=ws.fingerprint)
    run(g, "bash", LOGIN, error=E401)
    run(g, "bash", LOGIN, error=E401)
    g.on_message("The login test fails with 401.")
    g.new_turn()  # a user message alone is not a change of the workspace
    assert g.before_call("bash", LOGIN).action is Action.BLOCK


# ------------------------------------- a call that watches something outside the workspace

CHECKS = {"command": "gh pr checks --watch=false"}


def test_a_status_that_moved_by_itself_is_polled() -> None:
    """CI status checked again and again: it moved once with nothing edited (queued, then
    in_progress), so it watches something outside the workspace; three unchanged answers in
    a row are not yet a loop (one look more than a read gets)."""
    g = Guard()
    run(g, "bash", {"command": "git push -u origin feat"}, "branch 'feat' set up to track")
    got = [run(g, "bash", CHECKS, "ci\tqueued")]
    got += [run(g, "bash", CHECKS, "ci\tin_progress") for _ in range(3)]
    got.append(run(g, "bash", CHECKS, "ci\tcompleted/success"))
    assert flags(got) == []


def test_a_status_that_moved_by_itself_and_then_stopped_is_reported() -> None:
    """Four unchanged answers in a row: reported (a harness's "same input as before" notice
    after a first real answer has this shape too, and must be caught in time)."""
    g = Guard()
    got = [run(g, "bash", CHECKS, "ci\tqueued")]
    got += [run(g, "bash", CHECKS, "ci\tin_progress") for _ in range(4)]
    assert flags(got) == ["nudge:repeated_call"]
    g = Guard()
    search = {"query": "quarterly revenue 2026"}
    got = [run(g, "search", search, [{"title": "Q3 report"}])]
    notice = "I tried reusing the same input, I must stop using this action input."
    got += [run(g, "search", search, notice) for _ in range(4)]
    assert flags(got) == ["nudge:repeated_call"]


def test_a_file_whose_answer_changed_once_is_still_a_read() -> None:
    """A path names the workspace: it changes through edits the guard sees. A read answered
    "unchanged" again and again after its first answer is a repeat at three."""
    g = Guard()
    read = {"file_path": "/repo/src/client.ts"}
    got = [run(g, "Read", read, "export class Client {}")]
    got += [
        run(g, "Read", read, "Wasted call: file unchanged since your last Read") for _ in range(3)
    ]
    assert flags(got) == ["nudge:repeated_call"]


def test_an_answer_that_changed_only_with_the_workspace_is_no_outside_watch() -> None:
    """`git status` changes after an edit: that is the workspace, not something outside;
    the same answer three times in a row afterwards is a repeat."""
    g = Guard()
    status = {"command": "git status --short"}
    run(g, "bash", status, "")
    run(g, "edit_file", {"path": "a.py", "old": "x", "new": "y"}, "edited")
    got = [run(g, "bash", status, " M a.py") for _ in range(3)]
    assert flags(got) == ["nudge:repeated_call"]


# ------------------------------------------------------ camelCase tool names


def test_a_camel_case_edit_tool_changes_the_workspace() -> None:
    """`editFile` is `edit_file`: the same test result after each edit is no repeat."""
    g = Guard()
    got = []
    for k in range(8):
        got.append(run(g, "editFile", {"path": f"src/m{k}.ts", "old": "a", "new": "b"}, "ok"))
        got.append(run(g, "runTests", {"suite": "unit"}, "42 passed"))
    assert flags(got) == []
    assert g._limits_for("applyPatch").mutating
    assert g._limits_for("waitForDeployment").polling
    assert not g._limits_for("getUpdates").mutating  # words, not substrings


def test_a_camel_case_read_tool_is_no_edit() -> None:
    g = Guard()
    got = []
    for k in range(8):
        got.append(run(g, "readFile", {"path": f"src/m{k}.ts"}, f"m{k}"))
        got.append(run(g, "runTests", {"suite": "unit"}, "42 passed"))
    assert "nudge:repeated_call" in flags(got)


# ------------------------------------------------------ transient errors, worded


def test_server_errors_in_words_are_transient() -> None:
    """A 5xx, a rate limit or a dropped connection named without its number: two failures
    and a retry that succeeds is a retry, not an error loop."""
    for text in [
        "Internal Server Error",
        "upstream connect error or disconnect/reset before headers",
        "RESOURCE_EXHAUSTED: quota for requests per minute",
        "SlowDown: Please reduce your request rate",
        "socket hang up",
        "RemoteDisconnected: Remote end closed connection without response",
        "database is locked",
        "getaddrinfo ENOTFOUND api.test",
    ]:
        g = Guard()
        call = {"url": "https://api.test/v1/items"}
        got = [run(g, "http_get", call, error=RuntimeError(text)) for _ in range(2)]
        got.append(run(g, "http_get", call, {"items": []}))
        assert flags(got) == [], text


def test_hard_errors_that_contain_those_words_stay_hard() -> None:
    g = Guard()
    call = {"command": "python scraper.py"}
    err = RuntimeError("ModuleNotFoundError: No module named 'bs4'")
    run(g, "bash", call, error=err)
    run(g, "bash", call, error=err)
    assert g.before_call("bash", call).code is VerdictCode.ERROR_LOOP
