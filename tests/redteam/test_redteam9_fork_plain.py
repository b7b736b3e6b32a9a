"""Red team, ninth pass: a forked child of a process with a plain `LocalJournal` writer (made
by the caller, or by `CRS.open(path)`), not a project's.

The child has the journal's descriptors, and `LOCK`'s flock with them, shared with the
parent: it kept neither process out of the other's appends, so the child's appends through
the inherited journal interleaved with the parent's (the local-guard pass saw a damaged
record). Every writer is now closed in the child at the fork (nothing written, synced or
unlocked there): its calls raise `JournalClosedError` naming the fork, and the parent's
journal holds exactly the parent's records. Opening the journal again in the child makes a
writer of its own.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_redteam9_fork_local import _Child

import crs
from crs import JournalClosedError, JournalConfig, LocalJournal, ProofDelta, ProofNumber

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork"),
]


def _config(path: Path, **kw: object) -> JournalConfig:
    return JournalConfig(path=str(path), session_id="s", sync_policy="always", **kw)  # type: ignore[arg-type]


def test_a_childs_append_through_an_inherited_journal_is_refused(tmp_path: Path) -> None:
    j = LocalJournal(_config(tmp_path / "j"))
    j.append({"who": "parent", "i": 0})

    def child() -> str:
        try:
            j.append({"who": "child"})
        except JournalClosedError as exc:
            return str(exc)
        return "appended"

    said = _Child(child).result()
    assert "forked" in said, said
    assert f"process {os.getpid()}" in said
    j.append({"who": "parent", "i": 1})
    j.close()
    with LocalJournal(_config(tmp_path / "j")) as again:
        assert [e["who"] for e in again.replay()] == ["parent", "parent"]


def test_a_child_of_a_crs_open_changes_nothing_in_the_parents_journal(tmp_path: Path) -> None:
    c = crs.CRS.open(tmp_path / "j")
    c.apply(ProofDelta(crs.SignalSource.HARD, {"n1": ProofNumber(proof=3, disproof=1)}))

    def child() -> list[str]:
        out = []
        try:
            c.apply(ProofDelta(crs.SignalSource.HARD, {"n2": ProofNumber(proof=1, disproof=1)}))
            out.append("applied")
        except (JournalClosedError, crs.CRSClosedError) as exc:
            out.append(type(exc).__name__ + ": " + str(exc))
        return out

    said = _Child(child).result()
    assert "forked" in said[0], said
    c.apply(ProofDelta(crs.SignalSource.HARD, {"n3": ProofNumber(proof=2, disproof=2)}))
    c.close()
    with crs.CRS.open(tmp_path / "j") as again:
        nodes = again.snapshot().proof_index()
        assert nodes.get("n1") is not None
        assert nodes.get("n3") is not None
        assert nodes.get("n2") is None  # (the child's change: not in the parent's journal)
