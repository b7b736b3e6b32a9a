"""Bad input to the public API: a typed `CRSError` naming the argument, and nothing changes.

Each case calls one public entry point (CRS and its guards, the snapshot views, the cycle
detector, journals, the persistence manager, session restore helpers, `crs.sessions`) with an
input it cannot take: empty ids, unknown enum values, NaN/negative/infinite distances, `None`
or ints for strings, lone surrogates, clauses without literals, closed objects. The call must
raise the expected `crs.CRSError` subclass with a message naming the argument, and a
fingerprint of what is stored (full export, generation, step history, journal records,
backup files) must be equal before and after.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import crs
import crs.sessions as sessions
from crs import (
    CRS,
    Clause,
    CompositeDelta,
    ConstraintDelta,
    CRSError,
    CycleDetector,
    CycleDetectorConfig,
    DependencyDelta,
    HistoryEntry,
    InvalidArgumentError,
    JournalConfig,
    LocalJournal,
    PersistenceConfig,
    PersistenceManager,
    ProofDelta,
    ProofNumber,
    ProofUpdate,
    SignalSource,
    SimilarityDelta,
    StepRecord,
    StreamingDelta,
)

HARD = SignalSource.HARD
S = "\ud800"  # a lone surrogate: a str Python allows and UTF-8 cannot encode


@dataclass
class World:
    """The objects under test, filled with some content, and where their files live."""

    crs: CRS
    journal: LocalJournal
    pm: PersistenceManager
    detector: CycleDetector
    base: Path
    journal_closed: bool = False


def _fill(c: CRS) -> None:
    c.apply(ProofDelta(HARD, {"n1": ProofNumber(proof=3, disproof=1)}))
    c.apply(SimilarityDelta(HARD, {("n1", "n2"): 0.25}))
    c.apply(DependencyDelta(HARD, add_edges=[("n1", "n2")]))
    c.apply(StreamingDelta(HARD, increments={"n1": 2}))
    c.record_step(
        StepRecord(
            session_id="s",
            step_number=1,
            actor="router",
            decision="execute_tool",
            tool="grep",
            outcome="success",
        )
    )


class _Image:
    """A minimal `BackupSource`: a fixed image (the CRS is not a backup source on main)."""

    def export_image(self) -> crs.BackupImage:
        return crs.BackupImage(b"state", 0, 1)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    c = CRS()
    _fill(c)
    journal = LocalJournal(JournalConfig(path=str(tmp_path / "journal"), session_id="s"))
    journal.append({"k": 1})
    journal.append_batch([{"k": 2}, {"k": 3}])
    pm = PersistenceManager(PersistenceConfig(base_dir=str(tmp_path / "data"), lock_timeout_sec=2))
    pm.save_backup("abcdef12", _Image())
    detector = CycleDetector(CycleDetectorConfig(max_history=10))
    for s in ["a", "b"]:
        detector.add_step(s)
    yield World(c, journal, pm, detector, tmp_path)
    journal.close()
    pm.close()
    c.close()


def fingerprint(w: World) -> tuple[Any, ...]:
    """Everything the objects store, as comparable values."""
    res = crs.Serializer().export_full(w.crs.snapshot(), "s")
    assert res.export is not None
    files = sorted(
        (str(p.relative_to(w.base)), hashlib.sha256(p.read_bytes()).hexdigest())
        for p in w.base.rglob("*")
        if p.is_file() and not p.name.endswith(".lock")
    )
    stats = w.detector.stats()
    return (
        w.crs.generation(),
        res.export.to_dict()["indexes"],
        w.crs.get_step_history("s"),
        w.crs.snapshot().constraint_index().clause_count(),
        w.journal.replay() if not w.journal_closed else None,
        files,
        (stats.steps_processed, stats.history_size, stats.cycles_detected),
    )


# (id, call, expected error, text the message must contain)
CASES: list[tuple[str, Callable[[World], Any], type[CRSError], str]] = [
    # ---- CRS.apply and deltas
    ("apply-none", lambda w: w.crs.apply(None), crs.NilDeltaError, "delta"),  # type: ignore[arg-type]
    ("apply-int", lambda w: w.crs.apply(5), InvalidArgumentError, "delta"),  # type: ignore[arg-type]
    (
        "proof-empty-id",
        lambda w: w.crs.apply(ProofDelta(HARD, {"": ProofNumber()})),
        InvalidArgumentError,
        "updates",
    ),
    (
        "proof-unknown-source",
        lambda w: w.crs.apply(ProofDelta(99, {"a": ProofNumber()})),
        InvalidArgumentError,
        "source",
    ),
    (
        "proof-unknown-status",
        lambda w: w.crs.apply(ProofDelta(HARD, {"a": ProofNumber(status=42)})),  # type: ignore[arg-type]
        InvalidArgumentError,
        "status",
    ),
    (
        "proof-negative",
        lambda w: w.crs.apply(ProofDelta(HARD, {"a": ProofNumber(proof=-1)})),
        InvalidArgumentError,
        "proof",
    ),
    (
        "proof-past-u64",
        lambda w: w.crs.apply(ProofDelta(HARD, {"a": ProofNumber(disproof=2**64)})),
        InvalidArgumentError,
        "disproof",
    ),
    (
        "proof-updates-none",
        lambda w: w.crs.apply(ProofDelta(HARD, None)),  # type: ignore[arg-type]
        InvalidArgumentError,
        "updates",
    ),
    (
        "similarity-nan",
        lambda w: w.crs.apply(SimilarityDelta(HARD, {("a", "b"): math.nan})),
        crs.DeltaValidationError,
        "distance",
    ),
    (
        "similarity-negative",
        lambda w: w.crs.apply(SimilarityDelta(HARD, {("a", "b"): -0.5})),
        crs.DeltaValidationError,
        "distance",
    ),
    (
        "similarity-inf",
        lambda w: w.crs.apply(SimilarityDelta(HARD, {("a", "b"): math.inf})),
        crs.DeltaValidationError,
        "distance",
    ),
    (
        "similarity-str-distance",
        lambda w: w.crs.apply(SimilarityDelta(HARD, {("a", "b"): "0.5"})),  # type: ignore[dict-item]
        InvalidArgumentError,
        "updates",
    ),
    (
        "similarity-int-keys",
        lambda w: w.crs.apply(SimilarityDelta(HARD, {(1, 2): 0.5})),  # type: ignore[dict-item]
        InvalidArgumentError,
        "keys",
    ),
    (
        "similarity-surrogate",
        lambda w: w.crs.apply(SimilarityDelta(HARD, {(S, "b"): 0.5})),
        InvalidArgumentError,
        "delta",
    ),
    (
        "dependency-empty-end",
        lambda w: w.crs.apply(DependencyDelta(HARD, add_edges=[("", "b")])),
        crs.DeltaValidationError,
        "empty",
    ),
    (
        "dependency-none-end",
        lambda w: w.crs.apply(DependencyDelta(HARD, add_edges=[(None, "b")])),  # type: ignore[list-item]
        InvalidArgumentError,
        "add_edges",
    ),
    (
        "streaming-negative",
        lambda w: w.crs.apply(StreamingDelta(HARD, increments={"a": -1})),
        InvalidArgumentError,
        "increments",
    ),
    (
        "constraint-unknown-type",
        lambda w: w.crs.apply(
            ConstraintDelta(HARD, add=[crs.Constraint(id="c", type=99, nodes=("a", "b"))])  # type: ignore[arg-type]
        ),
        InvalidArgumentError,
        "type",
    ),
    (
        "composite-none",
        lambda w: w.crs.apply(CompositeDelta([None])),  # type: ignore[list-item]
        InvalidArgumentError,
        "deltas",
    ),
    (
        "history-empty-id",
        lambda w: w.crs.apply(crs.HistoryDelta(HARD, [HistoryEntry()])),
        crs.DeltaValidationError,
        "id",
    ),
    (
        "restore-none",
        lambda w: w.crs.restore(None),  # type: ignore[arg-type]
        InvalidArgumentError,
        "cp",
    ),
    (
        "session-id-int",
        lambda w: w.crs.set_session_id(3),  # type: ignore[arg-type]
        InvalidArgumentError,
        "session_id",
    ),
    (
        "negative-cap",
        lambda w: CRS(max_similarity_pairs=-1),
        InvalidArgumentError,
        "max_similarity_pairs",
    ),
    # ---- snapshot views
    (
        "proof-get-none",
        lambda w: w.crs.snapshot().proof_index().get(None),  # type: ignore[arg-type]
        InvalidArgumentError,
        "node_id",
    ),
    (
        "neighbors-str-k",
        lambda w: w.crs.snapshot().similarity_index().nearest_neighbors("n1", "3"),  # type: ignore[arg-type]
        InvalidArgumentError,
        "k",
    ),
    # ---- guards
    ("step-none", lambda w: w.crs.record_step(None), InvalidArgumentError, "step"),  # type: ignore[arg-type]
    (
        "step-empty-session",
        lambda w: w.crs.record_step(StepRecord()),
        InvalidArgumentError,
        "session_id",
    ),
    (
        "step-surrogate-session",
        lambda w: w.crs.record_step(
            StepRecord(
                session_id=S,
                step_number=2,
                actor="router",
                decision="execute_tool",
                tool="grep",
                outcome="success",
            )
        ),
        InvalidArgumentError,
        "session_id",
    ),
    (
        "steps-unknown-actor",
        lambda w: w.crs.get_steps_by_actor("s", "martian"),
        InvalidArgumentError,
        "actor",
    ),
    (
        "steps-unknown-outcome",
        lambda w: w.crs.get_steps_by_outcome("s", 99),  # type: ignore[arg-type]
        InvalidArgumentError,
        "outcome",
    ),
    (
        "clear-steps-empty",
        lambda w: w.crs.clear_step_history(""),
        InvalidArgumentError,
        "session_id",
    ),
    (
        "proof-update-unknown-type",
        lambda w: w.crs.update_proof_number(ProofUpdate(node_id="n1", type=99)),  # type: ignore[arg-type]
        InvalidArgumentError,
        "type",
    ),
    (
        "propagate-none",
        lambda w: w.crs.propagate_disproof(None),  # type: ignore[arg-type]
        InvalidArgumentError,
        "node_id",
    ),
    (
        "clause-without-literals",
        lambda w: w.crs.add_clause(Clause(id="x", literals=())),
        InvalidArgumentError,
        "literals",
    ),
    (
        "clause-surrogate-variable",
        lambda w: w.crs.add_clause(
            Clause(id="y", literals=(crs.Literal(variable="tool:" + S, negated=True),), source=HARD)
        ),
        InvalidArgumentError,
        "clause.literals[0].variable",
    ),
    (
        "assignment-surrogate",
        lambda w: w.crs.check_assignment({"tool:" + S: True}),
        InvalidArgumentError,
        "assignment",
    ),
    (
        "proof-update-surrogate-node",
        lambda w: w.crs.update_proof_number(
            ProofUpdate(node_id=S, type=crs.ProofUpdateType.INCREMENT, delta=1, source=HARD)
        ),
        InvalidArgumentError,
        "update.node_id",
    ),
    (
        "proof-update-int-node",
        lambda w: w.crs.update_proof_number(
            ProofUpdate(node_id=5, type=crs.ProofUpdateType.INCREMENT, delta=1, source=HARD)  # type: ignore[arg-type]
        ),
        InvalidArgumentError,
        "update.node_id",
    ),
    (
        "decision-surrogate-tool",
        lambda w: w.crs.check_decision_allowed("s", S),
        InvalidArgumentError,
        "tool",
    ),
    (
        "decision-empty-tool",
        lambda w: w.crs.check_decision_allowed("s", ""),
        InvalidArgumentError,
        "tool",
    ),
    (
        "assignment-non-bool",
        lambda w: w.crs.check_assignment({"tool:grep": "yes"}),  # type: ignore[dict-item]
        InvalidArgumentError,
        "assignment",
    ),
    (
        "similarity-guard-nan",
        lambda w: w.crs.record_similarity("a", "b", math.nan),
        InvalidArgumentError,
        "distance",
    ),
    (
        "similarity-guard-negative",
        lambda w: w.crs.record_similarity("a", "b", -1.0),
        InvalidArgumentError,
        "distance",
    ),
    (
        "semantic-threshold-nan",
        lambda w: w.crs.check_semantic_repetition("s", "grep", "q", math.nan),
        InvalidArgumentError,
        "threshold",
    ),
    (
        "semantic-query-surrogate",
        lambda w: w.crs.check_semantic_repetition("s", "grep", "find " + S),
        InvalidArgumentError,
        "query",
    ),
    (
        "learn-none",
        lambda w: w.crs.learn_from_failure(None),  # type: ignore[arg-type]
        InvalidArgumentError,
        "event",
    ),
    # ---- cycle detector
    (
        "cycle-negative-history",
        lambda w: CycleDetector(CycleDetectorConfig(max_history=-1)),
        InvalidArgumentError,
        "max_history",
    ),
    (
        "cycle-history-past-i64",
        lambda w: CycleDetector(CycleDetectorConfig(max_history=2**64)),
        InvalidArgumentError,
        "max_history",
    ),
    (
        "cycle-config-int",
        lambda w: CycleDetector(5),  # type: ignore[arg-type]
        InvalidArgumentError,
        "config",
    ),
    ("detector-empty", lambda w: w.detector.add_step(""), InvalidArgumentError, "state"),
    ("detector-none", lambda w: w.detector.add_step(None), InvalidArgumentError, "state"),  # type: ignore[arg-type]
    ("detector-surrogate", lambda w: w.detector.add_step(S), InvalidArgumentError, "state"),
    (
        "detector-steps-with-none",
        lambda w: w.detector.add_steps(["a", None]),  # type: ignore[list-item]
        InvalidArgumentError,
        "states",
    ),
    ("detector-one-str", lambda w: w.detector.add_steps("abc"), InvalidArgumentError, "states"),
    # ---- journals
    ("journal-append-none", lambda w: w.journal.append(None), crs.NilDeltaJournalError, "delta"),
    (
        "journal-append-unencodable",
        lambda w: w.journal.append(object()),
        InvalidArgumentError,
        "entry",
    ),
    (
        "journal-batch-with-none",
        lambda w: w.journal.append_batch([{"k": 9}, None]),
        crs.NilDeltaJournalError,
        "index 1",
    ),
    (
        "journal-batch-str",
        lambda w: w.journal.append_batch("ab"),  # type: ignore[arg-type]
        InvalidArgumentError,
        "deltas",
    ),
    ("journal-replay-negative", lambda w: w.journal.replay(-1), InvalidArgumentError, "after_seq"),
    (
        "journal-checkpoint-future",
        lambda w: w.journal.checkpoint(10**6),
        InvalidArgumentError,
        "seq",
    ),
    ("journal-backup-none", lambda w: w.journal.backup(None), InvalidArgumentError, "stream"),  # type: ignore[arg-type]
    ("journal-restore-none", lambda w: w.journal.restore(None), InvalidArgumentError, "stream"),  # type: ignore[arg-type]
    (
        "journal-restore-garbage",
        lambda w: w.journal.restore(io.BytesIO(b"garbage")),
        crs.JournalCorruptedError,
        "backup",
    ),
    (
        "journal-full-handler-int",
        lambda w: w.journal.set_full_handler(5),  # type: ignore[arg-type]
        InvalidArgumentError,
        "handler",
    ),
    (
        "journal-config-none",
        lambda w: LocalJournal(None),  # type: ignore[arg-type]
        InvalidArgumentError,
        "config",
    ),
    (
        "journal-session-int",
        lambda w: LocalJournal(JournalConfig(path=str(w.base / "j2"), session_id=5)),  # type: ignore[arg-type]
        InvalidArgumentError,
        "session_id",
    ),
    (
        "journal-max-bytes-str",
        lambda w: LocalJournal(
            JournalConfig(in_memory=True, session_id="s", max_journal_bytes="1")  # type: ignore[arg-type]
        ),
        InvalidArgumentError,
        "max_journal_bytes",
    ),
    (
        "journal-unknown-policy",
        lambda w: LocalJournal(JournalConfig(in_memory=True, session_id="s", sync_policy="often")),
        InvalidArgumentError,
        "sync_policy",
    ),
    (
        "journal-nan-interval",
        lambda w: LocalJournal(
            JournalConfig(in_memory=True, session_id="s", batch_interval=math.nan)
        ),
        InvalidArgumentError,
        "batch_interval",
    ),
    (
        "journal-restore-text-stream",
        lambda w: crs.MemoryJournal().restore(io.StringIO("abc")),  # type: ignore[arg-type]
        InvalidArgumentError,
        "binary",
    ),
    (
        "memory-journal-config-int",
        lambda w: crs.MemoryJournal(5),  # type: ignore[arg-type]
        InvalidArgumentError,
        "config",
    ),
    (
        "follower-without-journal",
        lambda w: crs.JournalFollower(None, None, 0),  # type: ignore[arg-type]
        InvalidArgumentError,
        "journal",
    ),
    # ---- persistence and session restore
    ("pm-empty-hash", lambda w: w.pm.has_backup(""), InvalidArgumentError, "project_hash"),
    ("pm-none-hash", lambda w: w.pm.load_backup(None), InvalidArgumentError, "project_hash"),  # type: ignore[arg-type]
    (
        "pm-traversal-dir",
        lambda w: w.pm.project_dir("../../etc"),
        InvalidArgumentError,
        "project_hash",
    ),
    (
        "pm-save-none-source",
        lambda w: w.pm.save_backup("abcdef12", None),  # type: ignore[arg-type]
        InvalidArgumentError,
        "source",
    ),
    (
        "pm-save-bad-options",
        lambda w: w.pm.save_backup("abcdef12", _Image(), options=5),  # type: ignore[arg-type]
        InvalidArgumentError,
        "options",
    ),
    (
        "pm-config-level",
        lambda w: PersistenceManager(
            PersistenceConfig(base_dir=str(w.base / "p2"), compression_level=99, lock_timeout_sec=1)
        ),
        InvalidArgumentError,
        "compression_level",
    ),
    (
        "pm-config-nan-timeout",
        lambda w: PersistenceManager(
            PersistenceConfig(base_dir=str(w.base / "p2"), lock_timeout_sec=math.nan)
        ),
        InvalidArgumentError,
        "lock_timeout_sec",
    ),
    (
        "project-hash-none",
        lambda w: crs.compute_project_hash(None),  # type: ignore[arg-type]
        InvalidArgumentError,
        "project_path",
    ),
    (
        "project-hash-empty",
        lambda w: crs.compute_project_hash(""),
        crs.ProjectPathEmptyError,
        "project path",
    ),
    (
        "pm-config-base-int",
        lambda w: PersistenceManager(PersistenceConfig(base_dir=5, lock_timeout_sec=1)),  # type: ignore[arg-type]
        InvalidArgumentError,
        "base_dir",
    ),
    (
        "pm-config-timeout-str",
        lambda w: PersistenceManager(
            PersistenceConfig(base_dir=str(w.base / "p2"), lock_timeout_sec="1")  # type: ignore[arg-type]
        ),
        InvalidArgumentError,
        "lock_timeout_sec",
    ),
    (
        "pm-options-session-int",
        lambda w: w.pm.save_backup("abcdef12", _Image(), crs.BackupOptions(session_id=5)),  # type: ignore[arg-type]
        InvalidArgumentError,
        "options.session_id",
    ),
    (
        "restorer-config-age-str",
        lambda w: crs.SessionRestorerConfig(
            checkpoint_max_age="1", max_files_to_refresh=1, max_retries=0
        ).validate(),  # type: ignore[arg-type]
        InvalidArgumentError,
        "checkpoint_max_age",
    ),
    (
        "modified-since-nan",
        lambda w: crs.find_files_modified_since(str(w.base), math.nan),
        InvalidArgumentError,
        "since",
    ),
    (
        "nats-servers-none",
        lambda w: crs.NATSJournalConfig(session_id="s", servers=None).validate(),  # type: ignore[arg-type]
        InvalidArgumentError,
        "servers",
    ),
    (
        "nats-timeout-nan",
        lambda w: crs.NATSJournalConfig(session_id="s", connect_timeout=math.nan).validate(),
        InvalidArgumentError,
        "connect_timeout",
    ),
    (
        "nats-stream-none",
        lambda w: crs.NATSJournalConfig(session_id="s", stream=None).validate(),  # type: ignore[arg-type]
        InvalidArgumentError,
        "stream",
    ),
    (
        "nats-stream-replicas-str",
        lambda w: crs.NATSJournalConfig(
            session_id="s",
            stream=crs.NATSStreamConfig(replicas="1"),  # type: ignore[arg-type]
        ).validate(),
        InvalidArgumentError,
        "replicas",
    ),
    # ---- crs.sessions
    (
        "sessions-target-none",
        lambda w: sessions.inspect_session_target(None),  # type: ignore[arg-type]
        InvalidArgumentError,
        "target",
    ),
    (
        "sessions-unknown-adapter",
        lambda w: sessions.inspect_session_target("x", adapter_id="nope"),
        crs.UnknownAdapterError,
        "nope",
    ),
    (
        "sessions-normalize-context",
        lambda w: sessions.normalize_structured_target({"type": "x", "value": "y"}, {}),  # type: ignore[arg-type]
        InvalidArgumentError,
        "context",
    ),
    (
        "sessions-history-empty-id",
        lambda w: sessions.read_session_history("claude-history", "", home=w.base),
        InvalidArgumentError,
        "session_id",
    ),
    (
        "sessions-aggregates-none",
        lambda w: sessions.build_aggregates(None),  # type: ignore[arg-type]
        InvalidArgumentError,
        "workers",
    ),
    (
        "sessions-changes-none",
        lambda w: sessions.worker_state_changes(None),  # type: ignore[arg-type]
        InvalidArgumentError,
        "history",
    ),
    (
        "sessions-validate-none",
        lambda w: sessions.validate_canonical_snapshot(None),
        crs.ContractError,
        "snapshot",
    ),
]


@pytest.mark.parametrize(
    ("call", "error", "names"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_input_raises_typed_error_and_changes_nothing(
    world: World, call: Callable[[World], Any], error: type[CRSError], names: str
) -> None:
    before = fingerprint(world)
    with pytest.raises(error) as info:
        call(world)
    assert isinstance(info.value, CRSError)
    assert names in str(info.value), f"message does not name {names!r}: {info.value}"
    assert fingerprint(world) == before, "a rejected call changed what is stored"


def test_case_ids_are_unique() -> None:
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))
    assert len(ids) > 70


# ---------------------------------------------------------------- closed objects


def test_closed_journal_and_manager_raise_typed_errors(world: World) -> None:
    records = world.journal.replay()
    world.journal.close()
    world.journal_closed = True
    before = fingerprint(world)
    for call in (
        lambda: world.journal.append({"k": 4}),
        lambda: world.journal.append_batch([{"k": 4}]),
        world.journal.replay,
        world.journal.checkpoint,
        world.journal.sync,
    ):
        with pytest.raises(crs.JournalClosedError, match="closed"):
            call()
    assert fingerprint(world) == before
    reopened = LocalJournal(JournalConfig(path=str(world.base / "journal"), session_id="s"))
    assert reopened.replay() == records
    reopened.close()
    world.pm.close()
    with pytest.raises(crs.PersistenceManagerClosedError, match="closed"):
        world.pm.has_backup("abcdef12")
    with pytest.raises(crs.PersistenceManagerClosedError):
        world.pm.save_backup("abcdef12", _Image())


# ---------------------------------------------------------------- state views and proof deltas

# (id, call, text a CRSError must contain, whether returning normally is also right)
STATE_CASES: list[tuple[str, Callable[[World], Any], str, bool]] = [
    (
        "proof-surrogate-id",
        lambda w: w.crs.apply(ProofDelta(HARD, {S: ProofNumber()})),
        "updates",
        False,
    ),
    ("proof-get-surrogate", lambda w: w.crs.snapshot().proof_index().get(S), "node_id", True),
    (
        "estimate-surrogate",
        lambda w: w.crs.snapshot().streaming_index().estimate(S),
        "item",
        True,
    ),
    (
        "pairs-filtered-past-u64",
        lambda w: w.crs.snapshot().similarity_index().all_pairs_filtered(2**70),
        "max_pairs",
        True,
    ),
    (
        "history-recent-past-u64",
        lambda w: w.crs.snapshot().history_index().recent(2**70),
        "n",
        True,
    ),
]


@pytest.mark.parametrize(
    ("call", "names", "may_return"), [c[1:] for c in STATE_CASES], ids=[c[0] for c in STATE_CASES]
)
def test_state_views_type_their_errors(
    world: World, call: Callable[[World], Any], names: str, may_return: bool
) -> None:
    before = fingerprint(world)
    err: CRSError | None = None
    try:
        call(world)
    except CRSError as e:
        err = e
    if err is None:
        assert may_return, "bad input accepted"
    else:
        assert names in str(err)
    assert fingerprint(world) == before


# ---------------------------------------------------------------- sessions: arbitrary JSON

json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=12),
        st.sampled_from([S, "", "claude-history", "dmux-tmux", "id"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(["type", "value", "id", "session", "workers", "schemaVersion", "x"]),
            inner,
            max_size=5,
        ),
    ),
    max_leaves=20,
)


@given(data=json_values)
def test_session_contract_takes_any_json(data: Any) -> None:
    """Any JSON-like value is a valid snapshot or a `ContractError`; nothing else escapes."""
    with contextlib.suppress(crs.ContractError):
        sessions.validate_canonical_snapshot(data)
    message = ""
    try:
        sessions.normalize_structured_target(data, sessions.SessionContext())
    except InvalidArgumentError as e:
        message = str(e)
    assert not message or "target" in message
    assert isinstance(sessions.sanitize_path_segment(data), str)
    if isinstance(data, str):
        sessions.parse_session_metadata(data)
