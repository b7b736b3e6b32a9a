"""Rules of the guard's semantics (issue 12) refined after the fresh9 trajectories of the loop
benchmark (bench/loops, split fresh9) showed them wrong in general; one group per rule, each
with the loop that must still be caught beside the legitimate work that must now pass, and
the neighbours probed for new false alarms."""

from __future__ import annotations

from crs.guard import Action, Guard, GuardPolicy, _canon
from guard_calls import flags, run

# ------------------------------------------- a model that answered nothing is transient


def test_an_empty_response_from_the_model_or_upstream_is_transient() -> None:
    for text in (
        "Anthropic OAuth error: model claude-sonnet returned empty response",
        "upstream server sent an empty reply",
        "LLM call failed: empty response from the provider",
    ):
        assert _canon.is_transient(RuntimeError(text), text), text


def test_an_empty_body_of_ones_own_stays_a_hard_error() -> None:
    for text in (
        "ValueError: cannot parse empty response body in fixtures/a.json",
        "AssertionError: expected a reply, got an empty response",
    ):
        assert not _canon.is_transient(RuntimeError(text), text), text


def test_an_empty_model_response_gets_the_retry_budget_then_is_caught() -> None:
    """openlegion-ai/openlegion#971: the same locale task failing with 'returned empty
    response': two retries are legitimate, the loop is caught after the third failure."""
    g = Guard()
    err = RuntimeError("Anthropic OAuth error: model claude-sonnet returned empty response")
    got = [run(g, "translate_locale", {"locale": "de"}, error=err) for _ in range(6)]
    assert flags(got[:3]) == []  # no verdict before the third failure is seen
    assert flags(got) != []


def test_an_empty_model_response_retried_once_then_answered_passes() -> None:
    g = Guard()
    err = RuntimeError("upstream server sent an empty reply")
    got = [run(g, "summarise", {"ref": "ci.log"}, error=err) for _ in range(2)]
    got.append(run(g, "summarise", {"ref": "ci.log"}, "- one failure"))
    assert flags(got) == []


# ------------------------------------------- a poll whose answer says "still under way"


def test_in_progress_answers() -> None:
    for r in (
        '{"id": "svc_81", "status": "deploying"}',
        "weather-7c2  Pending",
        {"deployment": {"status": "STATUS_DEPLOYING"}},
        "412: deployment not ready",
        {"state": "in_progress"},
    ):
        assert _canon.in_progress(r), r
    for r in (
        '{"status": "ready"}',
        "Deploy failed: pending migrations",  # an end state beside the word
        {"status": "completed"},
        "running",  # a service's end state
        "",
        None,
        "pending " * 80,  # long text: no status answer
    ):
        assert not _canon.in_progress(r), r


def _sleep_and_look(g: Guard, answers: list[str], *, wait: str = "bash") -> list[str]:
    got = []
    for a in answers:
        if wait == "bash":
            got.append(run(g, "bash", {"command": "sleep 5"}, ""))
        else:
            got.append(run(g, "wait", {"seconds": 5}, ""))
        got.append(run(g, "http_get", {"url": "/v1/services/svc_81"}, a))
    return flags(got)


def test_a_deploy_polled_every_few_seconds_while_deploying_passes() -> None:
    """dennisonbertram/agentic-hosting#16: nine identical 'deploying' answers between
    `sleep 5`s, then 'running'."""
    g = Guard()
    answers = ['{"status": "deploying"}'] * 9 + ['{"status": "running"}']
    assert _sleep_and_look(g, answers) == []


def test_a_pending_state_polled_through_a_wait_tool_passes() -> None:
    g = Guard()
    answers = ["weather-7c2  Pending"] * 10 + ["weather-7c2  Ready"]
    assert _sleep_and_look(g, answers, wait="tool") == []


def test_an_end_state_polled_again_and_again_is_still_caught() -> None:
    """The look-alike: the same wait-and-look cycle whose answer is an end state ('ready')
    keeps the poll's usual patience."""
    g = Guard()
    got = _sleep_and_look(g, ['{"status": "ready"}'] * 10)
    assert got != []


def test_a_deploy_that_never_leaves_deploying_is_caught_in_the_end() -> None:
    g = Guard()
    assert _sleep_and_look(g, ['{"status": "deploying"}'] * 40) != []


def test_an_in_progress_answer_without_a_wait_is_a_repeat() -> None:
    """Looking again at once, no wait in between: the usual repeat rule."""
    g = Guard()
    got = [run(g, "http_get", {"url": "/v1/services/svc_81"}, '{"status": "deploying"}')]
    got += [
        run(g, "http_get", {"url": "/v1/services/svc_81"}, '{"status": "deploying"}')
        for _ in range(6)
    ]
    assert flags(got) != []


def test_a_queued_job_gets_twice_the_poll_repeat_then_is_reported() -> None:
    """The fresh4 rule with an answer under way: `poll_repeat=4` identical 'queued' answers
    pass, and the cycle is reported at twice that."""
    g = Guard(GuardPolicy(poll_repeat=4))
    got = []
    for _ in range(7):
        got.append(run(g, "bash", {"command": "sleep 30"}, ""))
        got.append(run(g, "check_job", {"id": "j1"}, {"status": "queued"}))
    assert flags(got) == []
    run(g, "bash", {"command": "sleep 30"}, "")
    _, after = run(g, "check_job", {"id": "j1"}, {"status": "queued"})
    assert after is not None
    assert after.action is Action.NUDGE


# ------------------------------------------- PowerShell's aliases of one read are one program


_LS_SPELLINGS = [
    "Get-ChildItem D:\\Agents",
    'Get-ChildItem -Path "D:\\Agents"',
    "gci D:\\Agents",
    "dir D:\\Agents",
    "get-childitem -LiteralPath 'D:\\Agents'",
    "ls D:\\Agents",
]


def test_powershell_aliases_and_quotes_are_one_program_and_path() -> None:
    cmds = frozenset({"command"})
    spellings = _LS_SPELLINGS
    feats = {_canon.features({"command": c, "shell": "powershell"}, cmds, str) for c in spellings}
    assert len(feats) == 1
    other = _canon.features({"command": "gci D:\\Logs", "shell": "powershell"}, cmds, str)
    assert other not in feats  # another folder is another call


def test_one_listing_through_powershell_aliases_is_caught() -> None:
    """openclaw/openclaw#68923: one static folder listed again and again through spellings
    of Get-ChildItem, the same listing each time."""
    g = Guard()
    listing = "Mode  Name\nd----  agents\nd----  logs"
    got = [run(g, "exec", {"command": c, "shell": "powershell"}, listing) for c in _LS_SPELLINGS]
    assert flags(got) != []


def test_a_file_read_through_cat_gc_and_get_content_is_caught() -> None:
    """The variant: one file read through `cat`, `gc` and `Get-Content`, the same text."""
    g = Guard()
    got = [
        run(g, "bash", {"command": c, "note": "read the config"}, "TIMEOUT = 30")
        for c in [
            "cat conf/app.ini",
            "gc conf/app.ini",
            'Get-Content "conf/app.ini"',
            "cat 'conf/app.ini'",
            "gc conf/app.ini",
        ]
    ]
    assert flags(got) != []


def test_listing_many_folders_through_aliases_passes() -> None:
    """The look-alike: other folders, some with the same (empty) listing."""
    g = Guard()
    got = []
    for k, c in enumerate(["gci", "dir", "Get-ChildItem", "ls", "gci", "dir"]):
        got.append(run(g, "exec", {"command": f"{c} D:\\Agents\\a{k}", "shell": "powershell"}, ""))
    assert flags(got) == []


def test_powershell_writes_are_not_reads() -> None:
    g = Guard()
    got = [
        run(g, "exec", {"command": f"Set-Content D:\\out{k}.txt 'x'", "shell": "powershell"}, "")
        for k in range(4)
    ]
    got += [run(g, "exec", {"command": "Get-ChildItem D:\\ > D:\\list.txt"}, "") for _ in range(2)]
    assert flags(got) == []
