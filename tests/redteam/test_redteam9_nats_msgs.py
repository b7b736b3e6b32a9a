"""Red team, ninth pass: an agent message or a user turn that raced another writer's record.

On a NATS project a guard's records are a compare-and-set (eighth pass): a `guard.step` that
raced is refused by the server, the writer applies what came first and judges the call again.
A `guard.msg` (`on_message`) and a `guard.turn` (`new_turn`) that raced were sent again as
built: their judgment (a monologue; a turn that asks nothing new) had been made without the
record that came first. They are now judged again on the caught-up state too.

Each check starts a real nats-server on 127.0.0.1 and reads the stream back with a new guard.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_redteam8_nats import _slow_feed, _wait

from crs.guard import Guard, _turns
from nats_server import NatsServer, started_server

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def nats(tmp_path: Path) -> Iterator[NatsServer]:
    yield from started_server(tmp_path / "nats-store")


def _fp() -> str:
    return "fp"


def _open(project: Path, url: str) -> Guard:
    return Guard.open(project, "s", nats=url, fingerprint=_fp)


TEXT = "I will look into the failing build and report back on what I find."


def test_the_third_identical_message_of_two_racing_writers_is_a_monologue(
    nats: NatsServer, tmp_path: Path
) -> None:
    """Two writers of one session; the agent said a thing once, stored and seen by both.
    The first writer says it again (the 2nd: allowed). The second writer's feed is slow, so
    when it says it too it had not seen the 2nd: before this pass it was judged as the 2nd
    and sent as built after it (three in a row, no nudge anywhere). Now its record is refused
    by the server, the other's message applied and it is judged again: the 3rd, a NUDGE."""
    project = tmp_path / "p"
    project.mkdir()
    a = _open(project, nats.url)
    b = _open(project, nats.url)
    try:
        assert a.on_message(TEXT).action.value == "allow"
        _wait("b never saw a's message", lambda: len(b._session().msgs) == 1)
        _slow_feed(b, 0.4)
        va = a.on_message(TEXT)
        vb = b.on_message(TEXT)  # a's second had not reached b yet
        assert va.action.value == "allow", va
        assert vb.action.value == "nudge", vb  # before: allow (judged as the 2nd)
        assert vb.code.value == "monologue"
        assert len(b._session().msgs) == 3
        assert b.on_message(TEXT).action.value == "block"  # the 4th, after a nudge
    finally:
        a.close()
        b.close()
    with _open(project, nats.url) as r:
        assert len(r._session().msgs) == 4  # each stored once
        assert r.on_message(TEXT).action.value == "stop"  # the 5th: the ladder's top


def test_a_message_of_another_session_first_keeps_the_judgment(
    nats: NatsServer, tmp_path: Path
) -> None:
    """Writers of different sessions share the subject: a record of the other session that
    came first refuses this one's; judged again, the other session's message changes
    nothing: the same verdicts as alone, every message stored once."""
    project = tmp_path / "p"
    project.mkdir()
    a = Guard.open(project, "s", nats=nats.url, fingerprint=_fp)
    b = Guard.open(project, "t", nats=nats.url, fingerprint=_fp)
    try:
        _slow_feed(b, 0.3)
        got = []
        for _ in range(4):
            a.on_message("something else entirely, about the other session's own work")
            got.append(b.on_message(TEXT).action.value)  # a's record came first each time
        assert got == ["allow", "allow", "nudge", "block"]
    finally:
        a.close()
        b.close()
    with Guard.open(project, "t", nats=nats.url, fingerprint=_fp) as r:
        assert len(r._session().msgs) == 4
    with Guard.open(project, "s", nats=nats.url, fingerprint=_fp) as r:
        assert len(r._session().msgs) == 4


def test_a_user_turn_that_raced_is_judged_on_the_request_that_came_first(
    nats: NatsServer, tmp_path: Path
) -> None:
    """A user turn is judged against the last request (a turn with no word of its own only
    follows it up, and leaves it the request). b's feed is slow: a stored a new request
    ("deploy ...") b had not seen when the user asked the first one again. Sent as built,
    b's turn was judged against the first request (a follow-up: the request stayed
    "deploy"); judged again after a's record, it is a new request: "rotate ..." again."""
    project = tmp_path / "p"
    project.mkdir()
    a = _open(project, nats.url)
    b = _open(project, nats.url)
    rotate = "rotate the database credentials for billing"
    try:
        a.new_turn(rotate)
        a.on_message("Rotated: the new credentials are in the vault.")
        _wait("b never saw a's turn", lambda: len(b._session().msgs) == 1)
        _slow_feed(b, 0.4)
        a.new_turn("please deploy the staging cluster now")
        b.new_turn(rotate)  # a's turn had not reached b yet
        assert b._session().ask == frozenset(_turns.words(rotate)[:256])  # before: deploy's
    finally:
        a.close()
        b.close()
    with _open(project, nats.url) as r:
        assert r._session().ask == frozenset(_turns.words(rotate)[:256])
