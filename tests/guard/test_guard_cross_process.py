# ruff: noqa: RUF001  (a Chinese ping, its full-width question mark)
"""A new process continues what the last one saw, each step in a real process of its own (a
Claude Code hook runs so): a duplicate create made across processes is nudged, then refused;
near-identical answers to pings (in any language) count across processes, through the
journaled MinHash sketch of the last answer. Only digests reach the files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_guard_fresh6_rules import SUMS  # restatements of one diagnosis

import crs
from crs import _core
from crs.guard import Guard, _turns
from crs.guard._state import SessionState

PYTHON_DIR = str(Path(crs.__file__).resolve().parent.parent)

# One process: open the project's guard, play the events, print each verdict as JSON.
STEP = """
import json, sys
from crs.guard import Guard
project, home, events = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
out = []
with Guard.open(project, "s", home=home, fingerprint=lambda: "fp") as g:
    for ev in events:
        if ev[0] == "turn":
            g.new_turn(ev[1])
        elif ev[0] == "msg":
            out.append(g.on_message(ev[1]).to_dict())
        else:
            v = g.before_call(ev[1], ev[2])
            out.append(v.to_dict())
            if v.allowed:
                out.append(g.after_call(v.call, result=ev[3]).to_dict())
print(json.dumps(out))
"""


def in_a_process(tmp: Path, *events: list[Any]) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": PYTHON_DIR}
    done = subprocess.run(
        [sys.executable, "-c", STEP, str(tmp / "project"), str(tmp / "home"), json.dumps(events)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def journal_bytes(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in home.rglob("*") if p.is_file())


POST = {"title": "Event roundup: Nov 30", "content": "Open mic at 8pm. Jazz trio at 9pm."}


def test_a_duplicate_publish_is_caught_across_processes(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    first = in_a_process(tmp_path, ["call", "wordpress_publish", POST, '{"post_id": 4812}'])
    assert [v["action"] for v in first] == ["allow", "allow"]
    second = in_a_process(tmp_path, ["call", "wordpress_publish", POST, '{"post_id": 4813}'])
    assert [v["action"] for v in second] == ["allow", "nudge"]
    assert second[1]["code"] == "repeated_call"
    assert "4812" in second[1]["message"]
    assert "Jazz trio" not in second[1]["message"]
    third = in_a_process(tmp_path, ["call", "wordpress_publish", POST, '{"post_id": 4814}'])
    assert [v["action"] for v in third] == ["block"]
    # the reading of the journal in this process agrees
    with Guard.open(
        tmp_path / "project", "s", home=tmp_path / "home", fingerprint=lambda: "fp"
    ) as g:
        assert g.status()["calls"] == 2


# A long answer without sentence ends: only the MinHash sketch can tell its rewordings apart
# from new answers (no sentence of it is said again word for word).
ANSWER = (
    "I am still going through the deployment logs for the staging cluster and will report "
    "back with the root cause as soon as I have found it"
)
ASKED = "Find out why the staging deploy fails"


def answers(pings: list[str]) -> list[list[Any]]:
    """A request answered with ANSWER, then each ping answered with a one-word rewording."""
    words = ["indeed", "truly", "honestly", "really"]
    out: list[list[Any]] = [["turn", ASKED], ["msg", ANSWER]]
    for i, ping in enumerate(pings):
        out += [["turn", ping], ["msg", f"{ANSWER} {words[i]}"]]
    return out


def test_near_identical_answers_to_pings_count_across_processes(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    events = answers(["¿Alguna novedad?", "有更新吗？", "Bist du noch da?"])
    with Guard() as g:  # the same in one process
        straight = []
        for ev in events:
            if ev[0] == "turn":
                g.new_turn(ev[1])
            else:
                straight.append(str(g.on_message(ev[1]).action))
    assert straight == ["allow", "allow", "nudge", "block"]
    # each user turn and its answer in a process of its own
    pieces = [in_a_process(tmp_path, *events[i : i + 2]) for i in range(0, len(events), 2)]
    assert [p[0]["action"] for p in pieces] == straight
    assert pieces[2][0]["code"] == "monologue"
    data = journal_bytes(tmp_path / "home")
    assert b"deployment" not in data  # digests, not the text
    assert "有更新".encode() not in data


def test_a_new_question_in_a_new_process_starts_over(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    events = answers(["Any update?", "What is the capital of France?", "still waiting"])
    pieces = [in_a_process(tmp_path, *events[i : i + 2]) for i in range(0, len(events), 2)]
    assert [p[0]["action"] for p in pieces] == ["allow", "allow", "allow", "allow"]


def test_a_secret_in_an_answer_reaches_no_file(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    secret = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 3
    in_a_process(tmp_path, ["turn", ASKED], ["msg", f"{ANSWER}. The key is {secret}."])
    data = journal_bytes(tmp_path / "home")
    assert secret.encode() not in data
    assert b"A1b2C3d4E5f6G7h8I9j0" not in data


def test_restatements_count_across_processes(tmp_path: Path) -> None:
    """A run of messages that says the same findings in other words, each message in its own
    process: the run's word digests are journaled, so the fifth is a monologue as in one."""
    (tmp_path / "project").mkdir()
    got = [in_a_process(tmp_path, ["msg", m])[0] for m in SUMS]
    assert [v["action"] for v in got] == ["allow"] * 4 + ["nudge"]
    assert got[4]["code"] == "monologue"
    assert "other words" in got[4]["reason"]
    data = journal_bytes(tmp_path / "home")
    assert b"certificate" not in data


TEXT = st.lists(
    st.sampled_from(
        ["the", "deploy", "fails", "staging", "certificate", "expired", "registry", "push"]
    ),
    min_size=1,
    max_size=30,
).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(a=TEXT, b=TEXT)
def test_the_journaled_sketch_estimates_the_minhash_similarity(a: str, b: str) -> None:
    """The sketch keeps one byte of each MinHash value: its estimate is the full signature's,
    but for chance agreements of a byte (1 in 256 per position, corrected for)."""
    sa, sb = _core.minhash_signature(a), _core.minhash_signature(b)
    full = _core.minhash_jaccard(sa, sb)
    est = _turns.sketch_similarity(_turns.sketch(sa), _turns.sketch(sb))
    assert abs(est - full) <= 0.06
    assert _turns.sketch_similarity(_turns.sketch(sa), _turns.sketch(sa)) == 1.0
    assert _turns.sketch_similarity(_turns.sketch(sa), "zz") == 0.0
    assert len(_turns.sketch(sa)) == 2 * _turns.SKETCH_BYTES


def test_records_and_images_of_an_older_version_replay(tmp_path: Path) -> None:
    """Records written before the sketch, the word digests and the creating fields (a
    `guard.msg` with only its digest, a `guard.step` of a publish without `cr`) replay: the
    guard knows no last answer and nothing created, as a new process did before."""
    home = tmp_path / "h"
    with Guard.open(tmp_path, "s", home=home, fingerprint=lambda: "fp") as g:
        g._kernel.commit_op("guard.msg", {"s": "s", "d": "ab" * 8, "ts": 1}, bump_generation=False)
        step = {"s": "s", "n": 1, "t": "wordpress_publish", "g": "cd" * 16, "r": "ef" * 8}
        g._kernel.commit_op("guard.step", {**step, "k": 0, "ts": 2}, bump_generation=False)
        image = g._part.export()
    with Guard.open(tmp_path, "s", home=home, fingerprint=lambda: "fp") as g:
        s = g._part.sessions["s"]
        assert (s.last_sketch, s.msg_run, s.calls) == ("", frozenset(), 1)
        assert s.sigs["cd" * 16].made == 0
        assert g.on_message(ANSWER).action.value == "allow"
    old = image["sessions"]["s"]
    for key in ("last_msg", "msg_words"):
        old.pop(key)
    old["sigs"] = {k: v[:14] for k, v in old["sigs"].items()}
    back = SessionState.from_export(old)
    assert (back.last_sketch, back.msg_run, back.sigs["cd" * 16].made) == ("", frozenset(), 0)
