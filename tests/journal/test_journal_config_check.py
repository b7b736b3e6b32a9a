"""The journal configs validate through the one checker, `crs._check` (issue 11).

`JournalConfig`, `NATSJournalConfig` and `NATSStreamConfig` check every field against its type
hint first, then its value, with the records' one message form (`name: must be …, got …`) and
the typed `InvalidArgumentError`. Every field of each, given each hostile value of the API
sweep (tests/api/hostile_sweep.py), ends in that typed error or in a journal that works.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import crs
from crs import JournalConfig, LocalJournal
from crs._journal._nats import NATSJournalConfig
from crs._journal._nats_async import NATSStreamConfig

sys.path.insert(0, str(Path(__file__).parents[1] / "api"))
from hostile_sweep import hostile_values


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"session_id": 5}, "session_id"),
        ({"session_id": "s\ud800"}, "session_id"),
        ({"path": 3}, "path"),
        ({"path": "j\ud800"}, "path"),
        ({"max_journal_bytes": "1"}, "max_journal_bytes"),
        ({"max_journal_bytes": 2**64}, "max_journal_bytes"),
        ({"segment_bytes": 4096.0}, "segment_bytes"),
        ({"lock_timeout": True}, "lock_timeout"),
        ({"batch_interval": float("inf")}, "batch_interval"),
        ({"sync_policy": 1}, "sync_policy"),
        ({"read_only": 1}, "read_only"),
        ({"shared": "yes"}, "shared"),
        ({"logger": "crs"}, "logger"),
    ],
)
def test_a_journal_config_of_the_wrong_type_is_named(
    tmp_path: Path, kw: dict[str, Any], field: str
) -> None:
    cfg = JournalConfig(**{"path": str(tmp_path / "j"), "session_id": "s", **kw})
    with pytest.raises(crs.InvalidArgumentError, match=rf"^{field}: must be "):
        LocalJournal(cfg)
    assert not (tmp_path / "j").exists()  # refused before anything was created


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: NATSStreamConfig(subjects=("a", 1)), r"subjects\[1\]"),
        (lambda: NATSStreamConfig(subjects="crs.*"), "subjects"),
        (lambda: NATSStreamConfig(max_bytes="9"), "max_bytes"),
        (lambda: NATSStreamConfig(max_age=float("nan")), "max_age"),
        (lambda: NATSStreamConfig(replicas=0), "replicas"),
        (lambda: NATSJournalConfig(session_id=1), "session_id"),
        (lambda: NATSJournalConfig(session_id="s", servers=None), "servers"),
        (lambda: NATSJournalConfig(session_id="s", connect_timeout="2"), "connect_timeout"),
        (lambda: NATSJournalConfig(session_id="s", stream={"max_bytes": 1}), "stream"),
        (
            lambda: NATSJournalConfig(
                session_id="s", stream=NATSStreamConfig(max_msgs_per_subject=0)
            ),
            r"stream\.max_msgs_per_subject",
        ),
        (lambda: NATSJournalConfig(session_id="s", codec=3), "codec"),
    ],
)
def test_a_nats_config_of_the_wrong_type_is_named(make: Any, field: str) -> None:
    with pytest.raises(crs.InvalidArgumentError, match=rf"^{field}: must be "):
        make().validate()


def _fields(cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)]


def _named(exc: crs.CRSError | None, name: str) -> bool:
    """A refusal names the field (`name: must be …`); an OS-level one (a path too long for the
    file system: `JournalDegradedError`) is typed too."""
    if exc is None or not isinstance(exc, crs.InvalidArgumentError):
        return True
    return re.match(rf"^(stream\.)?{name}(\[\d+\])?: must be ", str(exc)) is not None


def test_every_field_of_every_journal_config_takes_every_hostile_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a hostile str path ("grep") is relative: journaled here
    counts = {"typed": 0, "works": 0}
    good = JournalConfig(path=str(tmp_path / "j"), session_id="s", lock_timeout=1.0)
    for name in _fields(JournalConfig):
        for label, value in hostile_values():
            cfg = dataclasses.replace(good, **{name: value})
            refused: crs.CRSError | None = None
            try:
                j = LocalJournal(cfg)
            except crs.CRSError as exc:
                refused = exc
            assert _named(refused, name), f"{name}={label}: {refused}"
            if refused is not None:
                counts["typed"] += 1
                continue
            with j:  # accepted: it journals and replays (a reader only replays)
                if not cfg.read_only:
                    assert j.append({"k": label}) >= 1
                    assert j.replay()[-1] == {"k": label}
                else:
                    assert isinstance(j.replay(), list)
            counts["works"] += 1
    for cls, base in (
        (NATSStreamConfig, NATSStreamConfig()),
        (NATSJournalConfig, NATSJournalConfig(session_id="s")),
    ):
        for name in _fields(cls):
            for label, value in hostile_values():
                refused = None
                try:
                    dataclasses.replace(base, **{name: value}).validate()  # type: ignore[type-var]
                except crs.CRSError as exc:
                    refused = exc
                except RuntimeError as exc:  # the value's own __getattr__ raised: propagated
                    if not str(exc).startswith("hostile "):
                        raise
                    continue
                assert _named(refused, name), f"{cls.__name__}.{name}={label}: {refused}"
                counts["typed" if refused else "works"] += 1
    assert counts["typed"] > 500
    assert counts["works"] > 20


@given(
    max_journal_bytes=st.one_of(st.integers(-5, 2**64), st.floats(), st.booleans()),
    segment_bytes=st.one_of(st.sampled_from([0, 4096, 1 << 20, 1 << 31]), st.integers(), st.none()),
    lock_timeout=st.one_of(st.floats(), st.integers(-2, 5), st.text(max_size=2)),
    sync_policy=st.one_of(st.sampled_from(["always", "batch", "none", None]), st.text(max_size=4)),
)
def test_a_journal_config_is_refused_with_its_name_or_journals(
    tmp_path_factory: pytest.TempPathFactory,
    max_journal_bytes: Any,
    segment_bytes: Any,
    lock_timeout: Any,
    sync_policy: Any,
) -> None:
    path = tmp_path_factory.mktemp("j")
    kw = {
        "max_journal_bytes": max_journal_bytes,
        "segment_bytes": segment_bytes,
        "lock_timeout": lock_timeout,
        "sync_policy": sync_policy,
    }
    cfg = JournalConfig(path=os.fspath(path / "j"), session_id="s", **kw)
    refused: crs.InvalidArgumentError | None = None
    try:
        j = LocalJournal(cfg)
    except crs.InvalidArgumentError as exc:
        refused = exc
    if refused is not None:
        assert str(refused).split(":")[0] in kw, str(refused)
        assert not (path / "j").exists()
        return
    with j:
        try:
            j.append({"x": 1})
        except crs.JournalFullError:
            assert 0 < max_journal_bytes < 100  # a limit too small for one record
            return
        assert j.replay() == [{"x": 1}]
