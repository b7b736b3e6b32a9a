"""Red team, seventh pass: a project's journal written by a newer crs.

A newer crs that journals an op this one does not know (a new `guard.*` record), then an
older crs opening the project (the Claude Code hook of another install, a CI image): every
open failed with `InvalidArgumentError: record: must be a Delta or a registered op, got
{...}`, an argument error for what is a record of the journal, naming neither the record
nor what to do. Now a `JournalCorruptedError` naming the record and the op and saying to
upgrade; the journal is left as it was.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_redteam3_cli import crs
from test_redteam7_files import _digests

from crs import JournalCorruptedError
from crs._journal._base import JournalConfig
from crs._journal._local import LocalJournal
from crs._persistence._load import compute_project_hash
from crs._state._codec import DeltaCodec
from crs.guard import Guard

pytestmark = pytest.mark.timeout(120)


def _fp() -> str:
    return "fp"


def test_an_op_from_a_newer_crs_is_a_typed_journal_error_and_nothing_changes(
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    with Guard.open(project, "s", home=home, fingerprint=_fp) as g:
        v = g.before_call("read_file", {"path": "a.py"})
        assert v.call is not None
        g.after_call(v.call, result="a")
    journal = home / compute_project_hash(str(project.resolve())) / "journal"
    with LocalJournal(JournalConfig(path=str(journal), session_id="newer"), DeltaCodec()) as j:
        newer = {"op": "guard.plan", "payload": {"s": "s", "n": 2}, "bump_generation": False}
        seq = j.append(newer)
    before = _digests(home)
    with pytest.raises(JournalCorruptedError) as caught:
        Guard.open(project, "s", home=home, fingerprint=_fp)
    text = str(caught.value)
    assert f"record {seq}" in text
    assert "'guard.plan'" in text
    assert "upgrade crs" in text
    assert _digests(home) == before  # the newer crs's record and the rest are kept
    r = crs("guard", "status", "--project", str(project), "--home", str(home))
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    assert "guard.plan" in r.stderr
    assert "upgrade crs" in r.stderr
    assert _digests(home) == before
