"""Seed acceptance, fourth pass: the Go CRS page (seeds/001), persistence, session restore
and graph adapters, public API only.

What no earlier test called directly after the systematic mapping of the page to Python
(docs/seed-acceptance.md, "Fourth pass"). Each docstring quotes the seed statement it checks.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest

import crs

HARD = crs.SignalSource.HARD


def _delta(i: int = 0) -> crs.ProofDelta:
    return crs.ProofDelta(HARD, {f"node{i}": crs.ProofNumber(proof=i)})


def _pm(tmp_path: Path, **kw: Any) -> crs.PersistenceManager:
    fields: dict[str, Any] = {
        "base_dir": str(tmp_path / "home"),
        "lock_timeout_sec": 5,
        "max_backup_retries": 0,
        "validate_on_restore": True,
    }
    fields.update(kw)
    return crs.PersistenceManager(crs.PersistenceConfig(**fields))


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _logger(name: str) -> tuple[logging.Logger, _Records]:
    log = logging.getLogger(name)
    log.setLevel(logging.DEBUG)
    log.propagate = False
    handler = _Records()
    log.addHandler(handler)
    return log, handler


# ---------------------------------------------------------------- backups


def test_backup_delta_count_is_the_number_of_journaled_deltas(tmp_path: Path) -> None:
    """BackupMetadata.DeltaCount "is the number of deltas in the journal" (the journal a
    backup of a CRS with a journal covers); it is in metadata.json under `delta_count`."""
    journal = crs.LocalJournal(
        crs.JournalConfig(path=str(tmp_path / "wal"), session_id="s", sync_writes=True),
        crs.DeltaCodec(),
    )
    c = crs.CRS(journal=journal)
    for i in range(3):
        c.apply(_delta(i))
    pm = _pm(tmp_path)
    key = crs.compute_project_hash(str(tmp_path))
    meta = c.save_checkpoint_to_disk(pm, key, journal)
    assert meta.delta_count == 3
    on_disk = json.loads(Path(pm.metadata_path(key)).read_text())
    assert on_disk["delta_count"] == 3
    assert pm.get_backup_metadata(key).delta_count == 3
    pm.close()
    c.close()
    journal.close()


@pytest.mark.parametrize("level", [1, 6, 9])
def test_compression_levels_one_to_nine_write_loadable_backups(tmp_path: Path, level: int) -> None:
    """PersistenceConfig.CompressionLevel "(1-9). Higher = smaller files, slower": every
    level of the page writes a backup that loads back with the same state (our lz4 frames
    take 0-16; see the first pass's "Left" note on the default)."""
    c = crs.CRS()
    for i in range(50):
        c.apply(_delta(i))
    pm = _pm(tmp_path, compression_level=level)
    key = "ab" * 8
    meta = c.save_checkpoint_to_disk(pm, key, None)
    assert 0 < meta.compressed_size < meta.uncompressed_size
    target = crs.CRS()
    target.load_checkpoint_from_disk(pm, key, None)
    assert target.snapshot().proof_index().size() == 50
    pm.close()


def test_a_larger_compression_level_gives_no_larger_file(tmp_path: Path) -> None:
    """ "Higher = smaller files": the same state at level 9 is no larger than at level 1."""
    c = crs.CRS()
    for i in range(300):
        c.apply(_delta(i % 7))
        c.apply(crs.HistoryDelta(HARD, [crs.HistoryEntry(id=f"h{i}", node_id=f"node{i % 7}")]))
    sizes = []
    for level in (1, 9):
        pm = _pm(tmp_path / f"l{level}", compression_level=level)
        sizes.append(c.save_checkpoint_to_disk(pm, "cd" * 8, None).compressed_size)
        pm.close()
    assert sizes[1] <= sizes[0]


@pytest.mark.parametrize("level", [-1, 17, True, "6"])
def test_a_compression_level_out_of_range_is_refused(tmp_path: Path, level: Any) -> None:
    """PersistenceConfig.Validate "checks if the configuration is valid": a level out of
    range (or not an int) is refused with a typed error naming `compression_level`."""
    with pytest.raises(crs.CRSError, match="compression_level"):
        crs.PersistenceConfig(base_dir=str(tmp_path), compression_level=level).validate()


def test_persistence_logger_receives_the_manager_log(tmp_path: Path) -> None:
    """PersistenceConfig.Logger "for persistence operations": a given logger gets the
    manager's records, every one of them (here the warnings of an unreadable `index.json`,
    "All projects index", and of a refresh coordinator that fails to pause); the backup is
    still written and loads."""
    log, records = _logger("acceptance4.persistence")
    pm = _pm(tmp_path, logger=log)
    key = "ef" * 8
    Path(pm.index_path()).parent.mkdir(parents=True, exist_ok=True)
    Path(pm.index_path()).write_text("{not json")
    c = crs.CRS()
    c.apply(_delta(1))
    c.save_checkpoint_to_disk(pm, key, None)
    assert any("index.json" in m for m in records.messages)

    class Stuck:
        def pause(self) -> None:
            raise RuntimeError("cannot pause")

        def resume(self) -> None:
            pass

        def is_paused(self) -> bool:
            return False

    pm.set_refresh_coordinator(Stuck())
    crs.CRS().load_checkpoint_from_disk(pm, key, None)
    assert any("cannot pause" in m for m in records.messages)
    pm.close()


# ---------------------------------------------------------------- session restore


def _saved(tmp_path: Path) -> tuple[Path, crs.SessionIdentifier, crs.PersistenceManager]:
    project = tmp_path / "proj"
    project.mkdir()
    sid = crs.SessionIdentifier(project)
    pm = _pm(tmp_path)
    c = crs.CRS()
    c.apply(_delta(1))
    c.apply(_delta(2))
    c.save_checkpoint_to_disk(pm, sid.checkpoint_key(), None)
    return project, sid, pm


def test_restored_event_reports_restore_duration_and_checkpoint_age(tmp_path: Path) -> None:
    """SessionRestoredEvent: "Generation is the CRS generation after restore",
    "CheckpointAge is how old the restored checkpoint was", "ModifiedFileCount is the number
    of files modified since checkpoint", "RestoreDuration is how long the restore took"
    (seconds, spec §2): positive and within the wall time of the call."""
    project, sid, pm = _saved(tmp_path)
    time.sleep(0.02)
    (project / "changed.txt").write_text("x")
    events: list[Any] = []
    target = crs.CRS()
    started = time.monotonic()
    result = crs.SessionRestorer(pm, None, on_event=events.append).try_restore(target, None, sid)
    elapsed = time.monotonic() - started
    assert result.restored
    [event] = events
    assert isinstance(event, crs.SessionRestoredEvent)
    assert event.generation == target.generation() == result.generation
    assert 0.0 < event.restore_duration <= elapsed
    assert 0.02 <= event.checkpoint_age < 60
    assert event.modified_file_count == result.modified_file_count >= 1
    pm.close()


def test_a_checkpoint_of_another_schema_version_is_not_restored(tmp_path: Path) -> None:
    """ErrSchemaVersionMismatch "is returned when schema versions don't match"
    (CurrentSchemaVersion "is the backup schema version"): a checkpoint whose metadata says
    schema 2.0 (hashes consistent) is reported incompatible; TryRestore's "error: Non-nil only
    for fatal errors (restore failures return in result)", so the result says why, a
    SessionRestoreFailedEvent is emitted and the target is untouched."""
    _project, sid, pm = _saved(tmp_path)
    key = sid.checkpoint_key()
    meta = pm.get_backup_metadata(key)
    assert meta.schema_version == crs.CURRENT_SCHEMA_VERSION
    forged = dataclasses.replace(meta, schema_version="2.0", metadata_hash="")
    forged = dataclasses.replace(forged, metadata_hash=forged.compute_metadata_hash())
    Path(pm.metadata_path(key)).write_text(json.dumps(forged.to_dict()))
    events: list[Any] = []
    target = crs.CRS()
    target.apply(_delta(9))
    result = crs.SessionRestorer(pm, None, on_event=events.append).try_restore(target, None, sid)
    assert not result.restored
    assert "schema version mismatch" in result.reason
    assert result.checkpoint_id == ""
    assert [type(e) for e in events] == [crs.SessionRestoreFailedEvent]
    assert target.generation() == 1
    assert target.snapshot().proof_index().get("node9") is not None
    pm.close()


def test_a_checkpoint_older_than_the_max_age_is_not_restored(tmp_path: Path) -> None:
    """SessionRestorerConfig.CheckpointMaxAge "is how old a checkpoint can be before it's
    invalid"; ErrCheckpointTooOld: restored False, the reason says so, CheckpointAge is set."""
    _project, sid, pm = _saved(tmp_path)
    time.sleep(0.05)
    cfg = crs.SessionRestorerConfig(
        checkpoint_max_age=0.01, max_files_to_refresh=100, use_git_status=True, max_retries=0
    )
    target = crs.CRS()
    result = crs.SessionRestorer(pm, cfg).try_restore(target, None, sid)
    assert not result.restored
    assert "checkpoint too old" in result.reason
    assert result.checkpoint_age >= 0.05
    assert target.generation() == 0
    pm.close()


def test_session_restorer_logger_is_used(tmp_path: Path) -> None:
    """SessionRestorerConfig.Logger "for session restore operations. If nil, uses
    slog.Default()": a given logger gets the restorer's records (here: an event callback
    that raises, which does not stop the restore)."""
    log, records = _logger("acceptance4.restore")
    _project, sid, pm = _saved(tmp_path)
    cfg = crs.SessionRestorerConfig(
        checkpoint_max_age=3600,
        max_files_to_refresh=100,
        use_git_status=True,
        max_retries=0,
        logger=log,
    )

    def broken(event: object) -> None:
        raise RuntimeError("listener down")

    restorer = crs.SessionRestorer(pm, cfg, on_event=broken)
    assert restorer.try_restore(crs.CRS(), None, sid).restored
    assert any("listener down" in m for m in records.messages)
    pm.close()


def test_journal_logger_is_used(tmp_path: Path) -> None:
    """JournalConfig.Logger: a given logger gets the journal's records (here: opening a
    journal whose last record is torn, which is truncated with a log line, spec §5.4)."""
    path = tmp_path / "wal"
    j = crs.LocalJournal(crs.JournalConfig(path=str(path), session_id="s", sync_writes=True))
    j.append(_delta(1))
    j.append(_delta(2))
    j.close()
    segments = sorted(p for p in path.rglob("*") if p.is_file() and p.stat().st_size > 0)
    wal = max(segments, key=lambda p: p.stat().st_size)
    wal.write_bytes(wal.read_bytes()[:-3])
    log, records = _logger("acceptance4.journal")
    j = crs.LocalJournal(
        crs.JournalConfig(path=str(path), session_id="s", sync_writes=True, logger=log)
    )
    assert len(j.replay()) == 1
    assert records.messages
    j.close()


# ---------------------------------------------------------------- graph adapters


def _graph(**kw: Any) -> crs.InMemoryGraph:
    symbols = [
        crs.GraphSymbol(id="pkg.A", name="A", kind="function", file_path="a.go"),
        crs.GraphSymbol(id="pkg.B", name="B", kind="function", file_path="a.go"),
        crs.GraphSymbol(id="pkg.C", name="C", kind="type", file_path="c.go"),
        crs.GraphSymbol(id="other.B", name="B", kind="method", file_path="d.go"),
        crs.GraphSymbol(id="lone.X", name="X", kind="function", file_path="x.go"),
    ]
    calls = [("pkg.A", "pkg.B"), ("pkg.B", "pkg.C"), ("pkg.C", "other.B")]
    return crs.InMemoryGraph(symbols=symbols, calls=calls, **kw)


def test_graph_query_symbol_lookups() -> None:
    """GraphQuery: FindSymbolByID "The symbol, or nil if not found"; FindSymbolsByName "all
    symbols with the given name"; FindSymbolsByKind; FindSymbolsInFile; each "Empty slice if
    none found"."""
    g = _graph()
    found = g.find_symbol_by_id("pkg.A")
    assert isinstance(found, crs.GraphSymbol)
    assert found.name == "A"
    assert g.find_symbol_by_id("missing") is None
    assert sorted(s.id for s in g.find_symbols_by_name("B")) == ["other.B", "pkg.B"]
    assert g.find_symbols_by_name("nope") == []
    assert sorted(s.id for s in g.find_symbols_by_kind("function")) == ["lone.X", "pkg.A", "pkg.B"]
    assert g.find_symbols_by_kind("interface") == []
    assert sorted(s.id for s in g.find_symbols_in_file("a.go")) == ["pkg.A", "pkg.B"]
    assert g.find_symbols_in_file("none.go") == []


def test_graph_query_references_implementations_and_call_chain() -> None:
    """FindReferences "symbols that reference the given symbol"; FindImplementations "Empty
    slice if none found"; GetCallChain "the call chain from source to target" within
    maxDepth, "Empty if no path found"; ShortestPath likewise."""
    g = _graph()
    assert [s.id for s in g.find_references("pkg.B")] == ["pkg.A"]
    assert g.find_references("pkg.A") == []
    assert g.find_implementations("Reader") == []
    assert g.get_call_chain("pkg.A", "other.B", 3) == ["pkg.A", "pkg.B", "pkg.C", "other.B"]
    assert g.get_call_chain("pkg.A", "other.B", 2) == []  # deeper than maxDepth
    assert g.get_call_chain("other.B", "pkg.A", 10) == []
    assert g.shortest_path("lone.X", "pkg.A") == []


def test_graph_query_generation_and_last_refresh_time() -> None:
    """Generation "the graph generation this adapter was created with"; LastRefreshTime
    "when the graph was last refreshed (Unix milliseconds UTC)"; the graph-backed index's
    Generation "returns the adapter's generation"."""
    g = _graph(generation=7, refreshed_at=1_700_000_000_000)
    assert g.generation() == 7
    assert g.last_refresh_time() == 1_700_000_000_000
    assert crs.GraphBackedDependencyIndex(g).generation() == 7


def test_graph_analytics_page_rank_and_communities() -> None:
    """GraphAnalyticsQuery.PageRank "returns PageRank scores for all symbols" (a score per
    symbol, a probability distribution, a callee ranked above its only caller);
    Communities "returns groups of related symbols" (GraphCommunity{ID, SymbolIDs,
    Modularity}): connected symbols share a group, every symbol is in exactly one."""
    g = _graph()
    a = g.analytics()
    ranks = a.page_rank()
    assert set(ranks) == {"pkg.A", "pkg.B", "pkg.C", "other.B", "lone.X"}
    assert abs(sum(ranks.values()) - 1.0) < 1e-6
    assert ranks["pkg.B"] > ranks["pkg.A"]
    groups = a.communities()
    assert all(isinstance(c, crs.GraphCommunity) for c in groups)
    members = [sorted(c.symbol_ids) for c in groups]
    assert sorted(members) == [["lone.X"], ["other.B", "pkg.A", "pkg.B", "pkg.C"]]
    assert len({c.id for c in groups}) == len(groups)
    for c in groups:
        assert isinstance(c.modularity, float)
        assert -0.5 <= c.modularity <= 1.0
    # Two separate pairs: each community holds half the edges and half the degree, so its
    # modularity term is 1/2 - (1/2)^2 = 0.25 (the graph's modularity 0.5 is their sum).
    pairs = crs.InMemoryGraph(calls=[("a", "b"), ("c", "d")]).analytics().communities()
    assert [(sorted(c.symbol_ids), c.modularity) for c in pairs] == [
        (["a", "b"], 0.25),
        (["c", "d"], 0.25),
    ]
    assert crs.InMemoryGraph(calls=[]).analytics().communities() == []


def test_graph_hot_spots_report_in_and_out_degree() -> None:
    """GraphHotSpot: "Score is the connectivity score", "InDegree is the number of incoming
    edges", "OutDegree is the number of outgoing edges"; HotSpots "Top k hotspots sorted by
    score descending"."""
    hot = _graph().analytics().hot_spots(5)
    by_id = {h.symbol_id: h for h in hot}
    assert (by_id["pkg.B"].in_degree, by_id["pkg.B"].out_degree) == (1, 1)
    assert (by_id["pkg.A"].in_degree, by_id["pkg.A"].out_degree) == (0, 1)
    assert (by_id["other.B"].in_degree, by_id["other.B"].out_degree) == (1, 0)
    assert (by_id["lone.X"].in_degree, by_id["lone.X"].out_degree) == (0, 0)
    for h in hot:
        assert h.score == h.in_degree + h.out_degree
    assert [h.score for h in hot] == sorted((h.score for h in hot), reverse=True)


def test_after_close_every_graph_query_returns_graph_query_closed() -> None:
    """GraphQuery.Close: "After Close, all methods return ErrGraphQueryClosed" (every method
    with an error result, the analytics ones included); Close is idempotent."""
    g = _graph()
    analytics = g.analytics()
    g.close()
    g.close()
    calls = [
        lambda: g.find_symbol_by_id("pkg.A"),
        lambda: g.find_symbols_by_name("A"),
        lambda: g.find_symbols_by_kind("function"),
        lambda: g.find_symbols_in_file("a.go"),
        lambda: g.find_callers("pkg.B"),
        lambda: g.find_callees("pkg.A"),
        lambda: g.find_implementations("I"),
        lambda: g.find_references("pkg.B"),
        lambda: g.get_call_chain("pkg.A", "pkg.B", 3),
        lambda: g.shortest_path("pkg.A", "pkg.B"),
        lambda: analytics.hot_spots(3),
        lambda: analytics.dead_code(),
        lambda: analytics.cyclic_dependencies(),
        lambda: analytics.page_rank(),
        lambda: analytics.communities(),
        lambda: g.analytics().page_rank(),
    ]
    for call in calls:
        with pytest.raises(crs.GraphQueryClosedError):
            call()


class _CountingGraph(crs.InMemoryGraph):
    """An adapter whose edge count can change (a graph refresh) and that counts cache
    invalidations."""

    def __init__(self) -> None:
        super().__init__(calls=[("a", "b")])
        self.edges = 1
        self.invalidations = 0

    def edge_count(self) -> int:
        return self.edges

    def invalidate_cache(self) -> None:
        self.invalidations += 1


def test_graph_backed_index_invalidate_cache_forces_a_new_size() -> None:
    """GraphBackedDependencyIndex.InvalidateCache "marks the cache as stale ... Called when
    the underlying graph is refreshed. This forces Size() to recompute on next call. Also
    invalidates the adapter's cache if supported"; Size "Uses invalidation-based caching"."""
    g = _CountingGraph()
    index = crs.GraphBackedDependencyIndex(g)
    assert index.size() == 1
    g.edges = 5  # the graph is refreshed
    assert index.size() == 1  # cached
    index.invalidate_cache()
    assert g.invalidations == 1
    assert index.size() == 5
    index.invalidate_cache()  # an adapter without the hook is fine too
    plain = crs.GraphBackedDependencyIndex(crs.InMemoryGraph(calls=[("x", "y")]))
    plain.invalidate_cache()
    assert plain.size() == 1


def test_crs_invalidate_graph_cache_reaches_the_graph_backed_index() -> None:
    """CRS.InvalidateGraphCache "Invalidates the Size() cache in GraphBackedDependencyIndex,
    which in turn invalidates the CRSGraphAdapter analytics cache": the adapter's hook is
    called and the next snapshot's graph-backed index sees the refreshed graph's size."""
    g = _CountingGraph()
    c = crs.CRS()
    c.set_graph_provider(g)
    assert c.snapshot().dependency_index().size() == 1
    g.edges = 4
    c.invalidate_graph_cache()
    assert g.invalidations == 1  # "in turn invalidates the CRSGraphAdapter analytics cache"
    assert c.snapshot().dependency_index().size() == 4


def test_a_refresh_coordinator_is_paused_and_resumed_around_a_restore(tmp_path: Path) -> None:
    """GraphRefreshCoordinator: "Components implementing this interface will be paused during
    restore and resumed after" (Pause / Resume / IsPaused), and resumed when the restore
    fails too."""

    class Coordinator:
        def __init__(self) -> None:
            self.paused = False
            self.calls: list[str] = []

        def pause(self) -> None:
            self.calls.append("pause")
            self.paused = True

        def resume(self) -> None:
            self.calls.append("resume")
            self.paused = False

        def is_paused(self) -> bool:
            return self.paused

    coord = Coordinator()
    assert isinstance(coord, crs.GraphRefreshCoordinator)
    pm = _pm(tmp_path)
    pm.set_refresh_coordinator(coord)
    c = crs.CRS()
    c.apply(_delta(1))
    key = "12" * 8
    c.save_checkpoint_to_disk(pm, key, None)
    target = crs.CRS()
    target.load_checkpoint_from_disk(pm, key, None)
    assert coord.calls == ["pause", "resume"]
    assert not coord.is_paused()
    pm.close()
