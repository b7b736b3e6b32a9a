"""The CRS facade: snapshots, views, QueryAPI, checkpoints, optimistic concurrency, delta
history, the guards' seam (ops, BFS), graph providers, bad input."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

import crs
from crs import ProofStatus as P
from crs import SignalSource as S


def pn(proof: int = 0, status: P = P.UNKNOWN, **kw: int) -> crs.ProofNumber:
    return crs.ProofNumber(proof=proof, status=status, **kw)  # type: ignore[arg-type]


@pytest.fixture
def loaded() -> crs.CRS:
    c = crs.CRS()
    c.apply(
        crs.ProofDelta(
            S.HARD,
            {
                "a": pn(5, P.PROVEN),
                "b": pn(7, P.DISPROVEN),
                "c": pn(1, P.EXPANDED),
                "d": pn(3),
            },
        )
    )
    c.apply(
        crs.ConstraintDelta(
            S.SOFT,
            add=[
                crs.Constraint(id="k1", type=crs.ConstraintType.ORDERING, nodes=("a", "b")),
                crs.Constraint(id="k2", type=crs.ConstraintType.RESOURCE, nodes=("c",)),
            ],
        )
    )
    c.apply(crs.SimilarityDelta(S.SOFT, {("a", "b"): 0.2, ("a", "c"): 0.1, ("a", "d"): 0.3}))
    c.apply(crs.DependencyDelta(S.HARD, add_edges=[("b", "a"), ("c", "b"), ("d", "b")]))
    c.apply(
        crs.HistoryDelta(
            S.HARD,
            [
                crs.HistoryEntry(id="h1", node_id="a", action="try", source=S.HARD, timestamp=0),
                crs.HistoryEntry(id="h2", node_id="a", action="fix", source=S.SOFT, timestamp=1),
                crs.HistoryEntry(id="h3", node_id="b", action="run", source=S.HARD, timestamp=2),
            ],
        )
    )
    c.apply(crs.StreamingDelta(S.SOFT, increments={"a": 5, "c": 9, "zz": 50}))
    return c


def test_views(loaded: crs.CRS) -> None:
    s = loaded.snapshot()
    assert s.generation() == 6
    assert s.created_at() > 0
    assert s.proof_index().size() == 4
    assert s.proof_index().get("zz") is None
    ci = s.constraint_index()
    assert ci.size() == 2
    assert [c.id for c in ci.find_by_node("a")] == ["k1"]
    assert [c.id for c in ci.find_by_type(crs.ConstraintType.RESOURCE)] == ["k2"]
    assert ci.clause_count() == 0
    assert ci.all_clauses() == {}
    sim = s.similarity_index()
    assert [m.node_id for m in sim.nearest_neighbors("a", 2)] == ["c", "b"]
    assert sim.nearest_neighbors("a", 0) == []
    pairs, truncated = sim.all_pairs_filtered(2)
    assert truncated
    assert [(p.from_id, p.to_id) for p in pairs] == [("a", "b"), ("a", "c")]
    assert not sim.all_pairs_filtered(0).truncated
    assert s.dependency_index().has_cycle("a") is False
    assert [e.id for e in s.history_index().trace("a")] == ["h1", "h2"]


def test_query_api(loaded: crs.CRS) -> None:
    q = loaded.snapshot().query()
    assert q.find_proven_nodes() == ["a"]
    assert q.find_disproven_nodes() == ["b"]
    assert q.find_unexplored_nodes() == ["c", "d"]
    assert q.find_by_proof_range(1, 5) == ["c", "d", "a"]
    assert q.find_constrained_nodes(crs.ConstraintType.UNKNOWN) == ["a", "b", "c"]
    assert q.find_constrained_nodes(crs.ConstraintType.RESOURCE) == ["c"]
    assert [c.id for c in q.find_violated_constraints()] == ["k1"]
    got = q.find_similar_with_proof_status("a", P.DISPROVEN, 3)
    assert got == [crs.SimilarityMatch(node_id="b", distance=0.2)]
    assert q.find_dependency_chain("c", "a") == ["c", "b", "a"]
    assert q.find_dependency_chain("a", "c") == []
    assert q.find_dependency_chain("x", "x") == ["x"]
    assert q.find_affected_by_node("a") == ["b", "c", "d"]
    hot = q.find_hot_nodes(5)
    assert [h.node_id for h in hot] == ["c", "a"]  # zz has no proof entry
    assert hot[0].frequency >= 9
    assert [e.id for e in q.find_recent_decisions(2, S.UNKNOWN)] == ["h2", "h3"]
    assert [e.id for e in q.find_recent_decisions(5, S.HARD)] == ["h1", "h3"]
    assert q.find_recent_decisions(0, S.HARD) == []
    st = q.node_stats("a")
    assert st is not None
    assert st.has_proof
    assert st.constraints == ("k1",)
    assert st.nearest_neighbor == "c"
    assert st.depended_by_count == 1
    assert st.history_entry_count == 2
    assert st.last_action == "fix"
    assert st.last_action_time == "1970-01-01T00:00:00Z"
    assert st.access_frequency >= 5
    assert q.node_stats("nowhere") is None


def test_snapshot_is_immutable_and_o1(loaded: crs.CRS) -> None:
    s = loaded.snapshot()
    before = s.proof_index().all()
    loaded.apply(crs.ProofDelta(S.HARD, {"a": pn(99), "new": pn(1)}))
    assert s.proof_index().all() == before
    assert loaded.snapshot().proof_index().get("a") == pn(99)


def test_checkpoint_restore(loaded: crs.CRS) -> None:
    cp = loaded.checkpoint()
    assert cp.generation == 6
    loaded.apply(crs.ProofDelta(S.HARD, {"a": pn(42)}))
    loaded.restore(cp)
    assert loaded.generation() == 8  # new generation, content of the checkpoint
    assert loaded.snapshot().proof_index().get("a") == pn(5, P.PROVEN)
    loaded.apply(crs.ProofDelta(S.HARD, {"a": pn(43)}))
    loaded.restore(cp)  # restoring twice gives the same content (no aliasing)
    assert loaded.snapshot().proof_index().get("a") == pn(5, P.PROVEN)
    with pytest.raises(crs.InvalidArgumentError, match="cp"):
        loaded.restore("cp")  # type: ignore[arg-type]


def test_optimistic_concurrency() -> None:
    cfg = crs.Config(snapshot_epoch_limit=3)
    c = crs.CRS(cfg)
    base = c.snapshot()
    c.apply(crs.ProofDelta(S.HARD, {"x": pn(1)}))
    c.apply(crs.ProofDelta(S.HARD, {"y": pn(1)}), base=base)  # no conflict
    with pytest.raises(crs.DeltaConflictError):
        c.apply(crs.ProofDelta(S.HARD, {"x": pn(2)}), base=base)
    for i in range(3):
        c.apply(crs.ProofDelta(S.HARD, {f"z{i}": pn(1)}))
    with pytest.raises(crs.SnapshotStaleError, match="snapshot_epoch_limit"):
        c.apply(crs.ProofDelta(S.HARD, {"w": pn(1)}), base=base)
    assert c.generation() == 5
    small = crs.CRS(max_delta_records=2)
    old = small.snapshot()
    for i in range(3):
        small.apply(crs.ProofDelta(S.HARD, {f"q{i}": pn(1)}))
    with pytest.raises(crs.SnapshotStaleError, match="no longer covers"):
        small.apply(crs.ProofDelta(S.HARD, {"w": pn(1)}), base=old)
    with pytest.raises(crs.InvalidArgumentError, match="base"):
        c.apply(crs.ProofDelta(S.HARD, {}), base="old")  # type: ignore[arg-type]


def test_delta_history_is_consistent_and_bounded() -> None:
    c = crs.CRS(max_delta_records=3)
    c.set_session_id("s1")
    c.apply(crs.SimilarityDelta(S.SOFT, {("a", "b"): 0.5}))
    c.apply_with_source(
        crs.CompositeDelta(crs.ProofDelta(S.HARD, {"a": pn(1)}), crs.HistoryDelta(S.SOFT, [])),
        "Planner",
        {"why": "test"},
    )
    h = c.delta_history()
    rec = h.get_by_generation(2)
    assert rec is not None
    assert rec.source == "Planner"
    assert rec.session_id == "s1"
    assert rec.metadata == {"why": "test"}
    assert rec.delta_type == crs.DeltaType.COMPOSITE
    assert json.loads(rec.delta_bytes)["type"] == "composite"
    assert rec.delta().to_dict() == json.loads(rec.delta_bytes)["data"]
    assert [r.generation for r in h.explain("a")] == [1, 2]
    assert h.get_by_generation(1).source == "soft"  # type: ignore[union-attr]
    for i in range(3):
        c.apply(crs.ProofDelta(S.HARD, {f"n{i}": pn()}))
    assert h.size() == 3
    assert h.evicted() == 2
    assert [r.generation for r in h.get_range(2, 4)] == [3, 4]
    assert [r.id for r in h.all()] == ["delta_3", "delta_4", "delta_5"]
    assert crs.DeltaRecord.from_dict(json.loads(json.dumps(rec.to_dict()))) == rec
    c.close()
    c.close()
    with pytest.raises(crs.DeltaHistoryClosedError):
        h.size()


def test_failed_apply_leaves_no_trace(loaded: crs.CRS) -> None:
    before = loaded.snapshot()
    n_hist = loaded.delta_history().size()
    with pytest.raises(crs.DeltaValidationError):
        loaded.apply(
            crs.CompositeDelta(
                crs.ProofDelta(S.HARD, {"a": pn(0)}),
                crs.DependencyDelta(S.HARD, add_edges=[("a", "d")]),  # d -> b -> a: cycle
            )
        )
    after = loaded.snapshot()
    assert after.generation() == before.generation()
    assert after.proof_index().all() == before.proof_index().all()
    assert loaded.delta_history().size() == n_hist
    with pytest.raises(crs.NilDeltaError):
        loaded.apply(None)  # type: ignore[arg-type]
    with pytest.raises(crs.InvalidArgumentError, match="delta"):
        loaded.apply("delta")  # type: ignore[arg-type]


def test_kernel_seam() -> None:
    c = crs.CRS()
    k = c._kernel
    seen: list[dict[str, object]] = []

    def note(p: dict[str, object]) -> Callable[[], int]:
        if "bad" in p:
            raise crs.InvalidArgumentError("payload: bad")
        return lambda: (seen.append(p), len(seen))[1]

    k.register_op("note", note)
    # commit_op returns what the handler's apply function returned
    assert k.commit_op("note", {"x": 1}, bump_generation=True) == 1
    assert k.commit_op("note", {"x": 2}, bump_generation=False) == 2
    assert c.generation() == 1
    with pytest.raises(crs.InvalidArgumentError, match="payload"):
        k.commit_op("note", {"bad": 1}, bump_generation=True)
    assert (seen, c.generation()) == ([{"x": 1}, {"x": 2}], 1)  # a refused op changes nothing
    with pytest.raises(crs.InvalidArgumentError, match="kind"):
        k.commit_op("nope", {}, bump_generation=True)
    # the names crs.guard uses for the same seam
    c._register_op("note2", lambda p: lambda: "done")
    assert c._commit_op("note2", {}, bump_generation=False) == "done"
    c.apply(crs.DependencyDelta(S.HARD, add_edges=[("p", "c"), ("g", "p"), ("q", "c")]))
    assert k.bfs_depended_by("c", 10) == [("p", "c", 1), ("q", "c", 1), ("g", "p", 2)]
    assert k.bfs_depended_by("c", 1) == [("p", "c", 1), ("q", "c", 1)]
    m = k.commit(crs.ProofDelta(S.HARD, {"c": pn(1)}))
    assert m.new_generation == 3


def test_a_refused_op_writes_no_record_and_a_bad_record_is_corrupt() -> None:
    journal = crs.MemoryJournal(codec=crs.DeltaCodec())
    c = crs.CRS(journal=journal)
    c._kernel.register_op("note", lambda p: (lambda: None) if p.get("ok") else 1 / 0)
    c._kernel.commit_op("note", {"ok": True}, bump_generation=True)
    with pytest.raises(ZeroDivisionError):
        c._kernel.commit_op("note", {"ok": False}, bump_generation=True)
    assert [r.seq_num for r in journal.replay_stream()] == [1]  # only the valid op
    other = crs.CRS()
    other._kernel.register_op("note", lambda p: 1 / 0)  # refuses what was recorded
    with pytest.raises(crs.JournalCorruptedError, match="note"):
        other.replay_journal(journal)
    assert other.generation() == 0


def test_a_journaled_restore_brings_back_every_image_part() -> None:
    from crs.guard import Guard

    journal = crs.MemoryJournal(codec=crs.DeltaCodec())
    g = Guard(_crs=crs.CRS(journal=journal))
    v = g.before_call("read_file", {"path": "a.py"})
    assert v.call is not None
    g.after_call(v.call, result="x")
    cp = g.crs.checkpoint()
    v = g.before_call("read_file", {"path": "b.py"})
    assert v.call is not None
    g.after_call(v.call, result="y")
    assert g.status()["calls"] == 2
    g.crs.restore(cp)  # one journaled "restore" op carrying the guard's part too
    assert g.status()["calls"] == 1
    replayed = crs.CRS()
    replayed.replay_journal(journal)
    assert replayed._parts["guard"].sessions["default"].calls == 1
    assert replayed._state_image() == g.crs._state_image()


def test_journal_receives_every_commit() -> None:
    class ListJournal:
        def __init__(self) -> None:
            self.items: list[object] = []

        def append(self, item: object) -> None:
            self.items.append(item)

    j = ListJournal()
    c = crs.CRS(journal=j)
    c._register_op("note", lambda p: None)
    d = crs.ProofDelta(S.HARD, {"a": pn(1)})
    c.apply(d)
    c._commit_op("note", {"t": 5}, bump_generation=True)
    c._commit_op("note", {"t": 6}, bump_generation=False)
    assert j.items == [
        d,
        {"op": "note", "payload": {"t": 5}, "bump_generation": True},
        {"op": "note", "payload": {"t": 6}, "bump_generation": False},
    ]
    replayed = crs.CRS()
    replayed._register_op("note", lambda p: None)
    for item in j.items:
        replayed._kernel.replay(item)  # type: ignore[arg-type]
    assert replayed.generation() == c.generation()
    assert replayed.snapshot().proof_index().all() == c.snapshot().proof_index().all()
    # a restore is journaled as a whole-state image, so replay restores too
    cp = c.checkpoint()
    c.apply(crs.ProofDelta(S.HARD, {"b": pn(2)}))
    c.restore(cp)
    c.apply(crs.ProofDelta(S.HARD, {"c": pn(3)}))
    again = crs.CRS()
    again._register_op("note", lambda p: None)
    ops = json.loads(json.dumps([i for i in j.items if isinstance(i, dict)]))  # JSON-safe
    assert [o["op"] for o in ops] == ["note", "note", "restore"]
    for item in j.items:
        again._kernel.replay(item)  # type: ignore[arg-type]
    assert again.generation() == c.generation() == 5
    assert again.snapshot().proof_index().all() == c.snapshot().proof_index().all()
    assert again.snapshot().proof_index().get("b") is None


def test_graph_provider() -> None:
    g = crs.InMemoryGraph(calls=[("main", "f"), ("f", "g"), ("h", "g")])
    c = crs.CRS()
    c.set_graph_provider(g)
    s = c.snapshot()
    dep = s.dependency_index()
    assert dep.is_graph_backed()
    assert dep.all_edges() is None
    assert sorted(dep.depended_by("g")) == ["f", "h"]
    assert dep.size() == 3
    assert s.graph_query() is g
    assert s.query().find_affected_by_node("g") == ["f", "h", "main"]
    assert s.query().find_dependency_chain("main", "g") == ["main", "f", "g"]
    assert c._kernel.bfs_depended_by("g", 5) == [("f", "g", 1), ("h", "g", 1), ("main", "f", 2)]
    c.invalidate_graph_cache()
    analytics = g.analytics()
    assert analytics.hot_spots(1)[0].symbol_id in ("f", "g")
    assert analytics.dead_code() == ["h", "main"]
    c.set_graph_provider(crs.InMemoryGraph())
    with pytest.raises(crs.GraphQueryClosedError):
        g.find_callers("g")  # the previous provider was closed
    assert dep.depended_by("g") == []  # a failing graph degrades to "no edges"
    c.set_graph_provider(None)
    assert not c.snapshot().dependency_index().is_graph_backed()
    with pytest.raises(crs.InvalidArgumentError, match="provider"):
        c.set_graph_provider(object())  # type: ignore[arg-type]
    assert crs.DefaultGraphQueryConfig().cache_ttl_ms == 300_000


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda c: crs.CRS(config="x"), "config"),
        (lambda c: crs.CRS(crs.Config(snapshot_epoch_limit=-1)), "snapshot_epoch_limit"),
        (lambda c: crs.CRS(max_similarity_pairs=-1), "max_similarity_pairs"),
        (lambda c: crs.CRS(journal=object()), "journal"),
        (lambda c: c.set_session_id(3), "session_id"),
        (lambda c: c.apply_with_source(crs.ProofDelta(1, {}), 3), "source"),
        (lambda c: c.apply_with_source(crs.ProofDelta(1, {}), "s", {"a": 1}), "metadata"),
        (lambda c: c.snapshot().proof_index().get(3), "node_id"),
        (lambda c: c.snapshot().similarity_index().nearest_neighbors("a", "k"), "k"),
        (lambda c: c.snapshot().query().find_hot_nodes(None), "n"),
        (lambda c: c.get_last_analytics(3), "query_type"),
        (lambda c: c.delta_history().get_range("a", 2), "from_gen"),
        (lambda c: crs.ProofDelta(1, {}).validate("snap"), "snapshot"),
        (lambda c: crs.InMemoryGraph(calls=[("a",)]), "calls"),
        (lambda c: crs.InMemoryGraph(symbols=["a"]), "symbols"),
        (lambda c: crs.Serializer().export("snap", "s"), "snapshot"),
        (lambda c: crs.DeltaHistoryWorker("many"), "max_records"),
        (lambda c: crs.AnalyticsHistory().add("r"), "record"),
        (lambda c: c.snapshot().constraint_index().find_by_type("x"), "constraint_type"),
        (lambda c: c.snapshot().history_index().recent("x"), "n"),
        (lambda c: c.snapshot().query().find_recent_decisions(1, "x"), "source"),
    ],
)
def test_bad_input(call: object, match: str) -> None:
    c = crs.CRS()
    with pytest.raises(crs.InvalidArgumentError, match=match):
        call(c)  # type: ignore[operator]
    assert c.generation() == 0


def test_journal_failure_leaves_state_unchanged() -> None:
    class FailingJournal:
        fail = False

        def append(self, item: object) -> None:
            if self.fail:
                raise OSError("disk full")

    j = FailingJournal()
    c = crs.CRS(journal=j)
    c.apply(crs.ProofDelta(S.HARD, {"a": pn(1)}))
    before = c.snapshot()
    j.fail = True
    for d in (
        crs.ProofDelta(S.HARD, {"a": pn(2)}),
        crs.CompositeDelta(
            crs.ProofDelta(S.HARD, {"a": pn(3)}), crs.SimilarityDelta(S.SOFT, {("a", "b"): 1})
        ),
    ):
        with pytest.raises(OSError, match="disk full"):
            c.apply(d)
        assert c.generation() == 1
        after = c.snapshot()
        assert after.proof_index().all() == before.proof_index().all()
        assert after.similarity_index().size() == 0
    assert c.delta_history().size() == 1


def test_state_image_round_trip(loaded: crs.CRS) -> None:
    loaded.apply(crs.create_analytics_delta("hotspots", 1, 1))
    image = json.loads(json.dumps(loaded._state_image()))
    fresh = crs.CRS()
    assert fresh._kernel.load_image(image) == loaded.generation()
    a, b = loaded.snapshot(), fresh.snapshot()
    assert b.proof_index().all() == a.proof_index().all()
    assert b.constraint_index().all() == a.constraint_index().all()
    assert b.similarity_index().all_pairs_filtered(-1) == a.similarity_index().all_pairs_filtered(
        -1
    )
    assert b.dependency_index().all_edges() == a.dependency_index().all_edges()
    assert b.history_index().recent(100) == a.history_index().recent(100)
    assert b.streaming_index().estimate("c") == a.streaming_index().estimate("c")
    assert b.streaming_index().cardinality() == a.streaming_index().cardinality()
    assert fresh.get_analytics_history() == loaded.get_analytics_history()
    used = crs.CRS()
    for _ in range(9):
        used.apply(crs.ProofDelta(S.HARD, {}))
    assert used._kernel.load_image(image) == 10  # never backwards
    image["streaming"] = "AAAA"
    with pytest.raises(crs.DeltaValidationError, match="sketch"):
        crs.CRS()._kernel.load_image(image)
    with pytest.raises(crs.InvalidArgumentError, match="image"):
        crs.CRS()._kernel.load_image({"version": 99})


def test_a_read_replica_refuses_changes_made_through_the_kernel() -> None:
    # The parts call the kernel directly, so the replica's refusal lives in its kernel.
    from steps import tool_step

    journal = crs.MemoryJournal(codec=crs.DeltaCodec())
    writer = crs.CRS(journal=journal)
    writer.apply(crs.ProofDelta(S.HARD, {"a": pn(1)}))
    with crs.ReadReplica(journal, poll_interval=0.01) as replica:
        assert replica.wait_for(writer.journal_position(), timeout=30)
        r = replica.crs
        for change in (
            lambda: r._kernel.commit(crs.ProofDelta(S.HARD, {"b": pn(1)})),
            lambda: r._guards.record_step(tool_step("grep")),
            lambda: r._commit_op("record_step", {}, bump_generation=False),
            lambda: r._install([], ()),
        ):
            with pytest.raises(crs.ReadOnlyReplicaError, match="read replica"):
                change()
        assert r._state_image() == writer._state_image()
