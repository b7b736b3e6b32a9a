"""Seed acceptance, third pass: the `ecc.session.v1` contract (seeds/000), recording rules.

Docstrings quote the contract (in English translation) or our spec README §6.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from test_seed_acceptance_session import example

from crs.sessions import (
    ContractError,
    persist_canonical_snapshot,
    read_session_history,
    validate_canonical_snapshot,
)


def _missing(snap: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(snap)
    out["session"]["state"] = "missing"
    out["workers"] = []
    out["aggregates"] = {"workerCount": 0, "states": {}, "healths": {}}
    return out


def test_a_missing_session_never_recorded_is_not_recorded(tmp_path: Path) -> None:
    """Decision §6.4 (docs/seed-acceptance.md): a `missing` snapshot of a session that was
    never recorded (a typo, a name never started) records nothing and creates neither the
    store nor the recording directory; it is still validated."""
    home, rec = tmp_path / "home", tmp_path / "rec"
    snap = _missing(example())
    validate_canonical_snapshot(snap)
    result = persist_canonical_snapshot(snap, home=home, recording_dir=rec)
    assert result.backend == "skipped"
    assert (result.path, result.recorded_at, result.changed) == (None, None, False)
    assert not home.exists()
    assert not rec.exists()


def test_a_recorded_session_that_goes_missing_is_recorded(tmp_path: Path) -> None:
    """Contract: the recording keeps "history" of the session's states; a session seen
    before and now `missing` is a real change of state, so it is recorded (store first)."""
    home, rec = tmp_path / "home", tmp_path / "rec"
    snap = example()
    first = persist_canonical_snapshot(snap, home=home, recording_dir=rec)
    assert first.backend == "state-store"
    gone = persist_canonical_snapshot(_missing(snap), home=home, recording_dir=rec)
    assert gone.backend == "state-store"
    assert gone.changed is True
    history = read_session_history(snap["adapterId"], snap["session"]["id"], home=home)
    assert [h.snapshot["session"]["state"] for h in history][-1] == "missing"
    assert len(history) == 2


def test_an_invalid_missing_snapshot_is_refused_before_anything(tmp_path: Path) -> None:
    """ "Validation failures are contract defects": a `missing` snapshot whose aggregates lie
    raises ContractError, never a silent skip."""
    snap = _missing(example())
    snap["aggregates"]["workerCount"] = 3
    with pytest.raises(ContractError):
        persist_canonical_snapshot(snap, home=tmp_path / "h", recording_dir=tmp_path / "r")
    assert not (tmp_path / "h").exists()


def test_persist_false_records_nothing_even_for_a_known_session(tmp_path: Path) -> None:
    """`persist=False` skips recording (the snapshot is still validated)."""
    home = tmp_path / "home"
    snap = example()
    persist_canonical_snapshot(snap, home=home, recording_dir=tmp_path / "r")
    changed = copy.deepcopy(snap)
    changed["session"]["state"] = "completed"
    r = persist_canonical_snapshot(changed, persist=False, home=home, recording_dir=tmp_path / "r")
    assert r.backend == "skipped"
    history = read_session_history(snap["adapterId"], snap["session"]["id"], home=home)
    assert len(history) == 1


def test_unchanged_repeated_reads_append_nothing(tmp_path: Path) -> None:
    """§6.4 "Unchanged repeated reads append nothing"; a changed one appends one entry."""
    home = tmp_path / "home"
    snap = example()
    results = [
        persist_canonical_snapshot(snap, home=home, recording_dir=tmp_path / "r") for _ in range(3)
    ]
    assert [r.changed for r in results] == [True, False, False]
    history = read_session_history(snap["adapterId"], snap["session"]["id"], home=home)
    assert len(history) == 1


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "3"])
def test_history_limit_must_be_a_positive_integer(tmp_path: Path, bad: Any) -> None:
    """history_limit: "how many history entries to keep per session (at least 1)"; a bad
    value is a typed error and nothing is written."""
    from crs import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="history_limit"):
        persist_canonical_snapshot(
            example(), home=tmp_path / "h", recording_dir=tmp_path / "r", history_limit=bad
        )
    assert not (tmp_path / "h").exists()
