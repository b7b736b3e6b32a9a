"""Red team, twelfth pass: failures guessed from what a content read returned.

The eleventh pass stopped learning a failure guessed from a read's multi-line content (a
crash log, a grep for `Error:`). Two kinds were still learned and refused in every later
session of the unchanged workspace, though the read had worked:

- a JSON text `{"error": "..."}` a read returned (`cat config.json`, `Read`): the text
  spells a failure object, but it is the document the read found;
- a one-line read whose line starts as an error report does (`tail -1 app.log` answering
  `ValueError: x`, `head -1 run.log` answering `fatal: ...`): a file reader's own failures
  name it first (`tail: cannot open ...`), so a line that names no program the command runs
  is what it read.

Real durable guards over real journals in real later sessions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crs.guard import Guard

CONTENT: list[tuple[str, dict[str, Any], Any]] = [
    ("Bash", {"command": "cat config.json"}, '{"error": "use the defaults"}'),
    ("Read", {"file_path": "fixtures/err.json"}, '{"error": "not found", "ts": 1}'),
    ("read_file", {"path": "cache/resp.json"}, '{"success": false, "error": "quota"}'),
    (
        "Bash",
        {"command": "cat fixtures/rpc.json"},
        {"stdout": '{"error": {"code": -32601, "message": "m"}}', "stderr": ""},
    ),
    ("Bash", {"command": "tail -1 app.log"}, "ValueError: x is not y"),
    ("Bash", {"command": "head -1 run.log"}, "fatal: unable to access 'https://x/'"),
    ("Bash", {"command": "tail -n 1 /var/log/app/err.log"}, "Traceback (most recent call"),
    ("Bash", {"command": "sed -n 3p build.log"}, "error: linker failed"),
    ("Bash", {"command": "grep -m1 panic svc.log | head -1"}, "panic: runtime error"),
    ("Bash", {"command": ["tail", "-1", "worker.log"]}, "RuntimeError: boom"),
    ("Bash", {"command": "sudo tail -1 /var/log/syslog"}, "Exception: disk"),
    (
        "Bash",
        {"command": "tail -1 out.log"},
        {"stdout": "Error: connection refused", "stderr": "", "interrupted": False},
    ),
]

# A read that failed, as its reader, its shell or the harness says so in a line; a JSON
# failure of a call that does not read.
FAILED: list[tuple[str, dict[str, Any], Any]] = [
    (
        "Bash",
        {"command": "tail -1 gone.log"},
        "tail: cannot open 'gone.log' for reading: No such file or directory",
    ),
    ("Bash", {"command": "grep -c x missing"}, "grep: missing: No such file or directory"),
    ("Bash", {"command": "cat nope.txt"}, "cat: nope.txt: No such file or directory"),
    ("Bash", {"command": "sed -n 1p nope"}, "sed: can't read nope: No such file or directory"),
    ("Bash", {"command": "zcat old.gz"}, "gzip: old.gz: No such file or directory"),
    ("Bash", {"command": "rg TODO src"}, "bash: rg: command not found"),
    (
        "Bash",
        {"command": "jq .a x.json"},
        "jq: error: Could not open file x.json: No such file or directory",
    ),
    ("Bash", {"command": "head -1 x"}, "Error: head: cannot open 'x' for reading"),
    ("read_file", {"path": "/etc/shadow"}, "Error: Access denied - outside allowed dirs"),
    ("build", {"target": "web"}, '{"error": "no such target"}'),
    ("deploy", {"env": "prod"}, '{"success": false, "error": "forbidden"}'),
]


def _run(project: Path, home: Path, session: str, calls: list[Any]) -> list[str]:
    with Guard.open(project, session, home=home) as g:
        out = []
        for tool, args, result in calls:
            v = g.before_call(tool, args)
            if not v.allowed:
                out.append(str(v.code))
                continue
            assert v.call is not None
            g.after_call(v.call, result=result)
            out.append("ran")
        return out


def test_content_that_reads_as_a_failure_is_not_refused_in_the_next_session(
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    assert _run(project, home, "s1", CONTENT) == ["ran"] * len(CONTENT)
    assert _run(project, home, "s2", CONTENT) == ["ran"] * len(CONTENT)  # before: refused
    with Guard.open(project, "s3", home=home) as g:
        assert g.learned() == []


def test_a_read_that_failed_in_a_line_and_json_failures_of_other_calls_are_learned(
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    assert _run(project, home, "s1", FAILED) == ["ran"] * len(FAILED)
    assert _run(project, home, "s2", FAILED) == ["known_failure"] * len(FAILED)


def test_a_json_failure_a_read_returned_still_counts_in_its_session() -> None:
    g = Guard()
    seen = []
    for _ in range(3):
        v = g.before_call("Bash", {"command": "cat config.json"})
        seen.append(str(v.code))
        if v.allowed:
            assert v.call is not None
            g.after_call(v.call, result='{"error": "use the defaults"}')
    assert seen[-1] == "error_loop"


# Reads behind what a shell command says before its program (agents write `cd /repo && ...`)
LEAD: list[tuple[str, dict[str, Any], Any]] = [
    (
        "Bash",
        {"command": "cd /repo && cat crash.log"},
        'Traceback (most recent call last):\n  File "a.py", line 1\nValueError: bad\n',
    ),
    ("Bash", {"command": "/usr/bin/tail -5 app.log"}, "Error: disk full\nError: disk full"),
    ("Bash", {"command": "LC_ALL=C grep -rn 'Error:' logs/"}, "Error: a\nError: b"),
    ("Bash", {"command": "cd logs; tail -1 app.log"}, "ValueError: x"),
    ("Bash", {"command": 'env TZ=UTC X="a b" tail -3 app.log'}, "fatal: a\nfatal: b"),
    ("Bash", {"command": 'cd "my dir" && head -1 run.log'}, "fatal: bad object"),
    ("Bash", {"command": "cd /repo\ncat crash.log"}, "Traceback (most recent call last):"),
    ("Bash", {"command": "bash -lc 'tail -1 app.log'"}, "ValueError: x"),
    ("Bash", {"command": "time grep -c x big.log"}, "Exception: y"),
]
LEAD_FAILED: list[tuple[str, dict[str, Any], Any]] = [
    ("Bash", {"command": "cd /repo && cat nope"}, "cat: nope: No such file or directory"),
    ("Bash", {"command": "cd /repo && make test"}, "Error: tests failed"),
    ("Bash", {"command": "bash -lc 'cat nope'"}, "cat: nope: No such file or directory"),
    ("Bash", {"command": "cd /repo"}, "bash: cd: /repo: No such file or directory"),
    (
        "Bash",
        {"command": "/usr/bin/tail -1 gone"},
        "tail: cannot open 'gone' for reading: No such file or directory",
    ),
]


def test_a_read_after_cd_variables_or_a_path_is_a_read(tmp_path: Path) -> None:
    """Before: `_reads` matched a reader only at the command's very start, so the crash
    log read after `cd /repo &&` was learned and refused in the next session."""
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    calls = LEAD + LEAD_FAILED
    assert _run(project, home, "s1", calls) == ["ran"] * len(calls)
    assert _run(project, home, "s2", calls) == ["ran"] * len(LEAD) + ["known_failure"] * len(
        LEAD_FAILED
    )


def test_a_failure_s_features_are_computed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failing call's near-duplicate features (linear in its arguments' size: seconds for
    20 MB) come from its outcome; the error streak's check reuses them (it computed them
    again: found by the twelfth pass, fixed by the lead)."""
    from crs.guard import _canon
    from crs.guard import _guard as guard_mod

    calls = [0]
    real = _canon.features

    def counted(*a: Any, **kw: Any) -> str:
        calls[0] += 1
        return real(*a, **kw)

    monkeypatch.setattr(guard_mod._canon, "features", counted)
    g = Guard()
    for _ in range(3):
        v = g.before_call("write_file", {"path": "a.txt", "content": "x" * 1000})
        assert v.call is not None
        g.after_call(v.call, error=OSError(28, "No space left on device"))
    assert calls[0] == 3  # one a call, failures and their streak check included
