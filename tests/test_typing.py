"""Uses the public API as a user would; `mypy --strict` checks this file (make lint)."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import crs


def test_errors_are_typed() -> None:
    err: crs.CRSError = crs.InvalidArgumentError("tool: must be a non-empty string")
    assert isinstance(err, ValueError)
    contract = crs.ContractError("bad", [{"loc": ("workers", 0), "msg": "bad", "type": "x"}])
    details: list[crs.ContractErrorDetails] = contract.errors()
    assert details[0]["loc"] == ("workers", 0)
    version: str = crs.__version__
    assert version


def test_journal_api_is_typed(tmp_path: Path) -> None:
    cfg = dataclasses.replace(crs.DefaultJournalConfig(), path=str(tmp_path), session_id="t")
    cfg.validate()
    with crs.LocalJournal(cfg) as journal:
        seq: int = journal.append({"kind": "step"})
        last: int = journal.append_batch([{"a": 1}, {"b": 2}])
        assert (seq, last) == (1, 3)
        entries: list[object] = journal.replay(after_seq=1)
        items: list[crs.DeltaOrError] = list(journal.replay_stream())
        stats: crs.JournalStats = journal.stats()
        assert len(entries) == 2
        assert len(items) == stats.total_deltas
        buf = io.BytesIO()
        journal.backup(buf)
    memory: crs.Journal = crs.MemoryJournal(codec=crs.JsonCodec())
    buf.seek(0)
    memory.restore(buf)
    memory.checkpoint()
    assert memory.stats().checkpoint_seq == 3
    policy: crs.SyncPolicy = cfg.effective_sync_policy
    assert policy is crs.SyncPolicy.ALWAYS
