"""Property tests: random deltas, checkpoints and restores against the pure-Python model,
and threads applying and snapshotting at once."""

from __future__ import annotations

import contextlib
import threading
import time

from hypothesis import given
from hypothesis import strategies as st

import crs
from state_model import Model, ModelError

NODES = ["a", "b", "c", "d", "e"]
CIDS = ["c1", "c2", "c3"]
nodes = st.sampled_from(NODES)
sources = st.sampled_from(list(crs.SignalSource))

proof_numbers = st.builds(
    crs.ProofNumber,
    proof=st.integers(0, 2**64 - 1),
    disproof=st.integers(0, 100),
    status=st.sampled_from(list(crs.ProofStatus)),
    source=sources,
    updated_at=st.integers(0, 2**40),
)
constraints = st.builds(
    crs.Constraint,
    id=st.sampled_from(CIDS),
    type=st.sampled_from(list(crs.ConstraintType)),
    nodes=st.lists(nodes, max_size=3).map(tuple),
    active=st.booleans(),
)


def _composite(children: list[crs.Delta]) -> crs.Delta:
    return crs.CompositeDelta(*children)


leaf = st.one_of(
    st.builds(crs.ProofDelta, sources, st.dictionaries(nodes, proof_numbers, max_size=3)),
    st.builds(
        lambda s, add, rem, upd: crs.ConstraintDelta(
            s, add=list({c.id: c for c in add}.values()), remove=rem, update=upd
        ),
        sources,
        st.lists(constraints, max_size=2),
        st.lists(st.sampled_from(CIDS), max_size=1),
        st.dictionaries(
            st.sampled_from(CIDS),
            constraints.map(lambda c: crs.Constraint(nodes=c.nodes)),
            max_size=1,
        ),
    ),
    st.builds(
        crs.SimilarityDelta,
        sources,
        st.dictionaries(st.tuples(nodes, nodes), st.floats(0, 3, allow_nan=False), max_size=3),
    ),
    st.builds(
        lambda s, a, r: crs.DependencyDelta(s, add_edges=a, remove_edges=r),
        sources,
        st.lists(st.tuples(nodes, nodes), max_size=3),
        st.lists(st.tuples(nodes, nodes), max_size=2),
    ),
    st.builds(
        crs.HistoryDelta,
        sources,
        st.lists(
            st.builds(
                crs.HistoryEntry,
                id=st.sampled_from(["h1", "h2", ""]),
                node_id=nodes,
                action=st.sampled_from(["x", "y"]),
                source=sources,
            ),
            max_size=3,
        ),
    ),
    st.builds(
        lambda s, inc, items: crs.StreamingDelta(s, increments=inc, cardinality_items=items),
        sources,
        st.dictionaries(nodes, st.integers(0, 5), max_size=3),
        st.lists(nodes, max_size=2),
    ),
)
deltas = st.one_of(leaf, st.lists(leaf, min_size=0, max_size=3).map(_composite))
actions = st.lists(
    st.one_of(
        deltas.map(lambda d: ("apply", d)),
        st.just(("checkpoint", None)),
        st.integers(0, 5).map(lambda i: ("restore", i)),
        st.just(("snapshot", None)),
    ),
    max_size=25,
)


@given(actions)
def test_crs_matches_model(steps: list[tuple[str, object]]) -> None:
    c = crs.CRS(max_similarity_pairs=4, max_history_entries=5)
    model = Model(sim_cap=4, hist_cap=5)
    checkpoints: list[tuple[crs.Checkpoint, Model]] = []
    snaps: list[tuple[crs.Snapshot, Model]] = []
    for kind, arg in steps:
        if kind == "apply":
            assert isinstance(arg, crs.Delta)
            before = c.snapshot()
            try:
                model.apply(arg)
                expect_ok = True
            except ModelError:
                expect_ok = False
            try:
                m = c.apply(arg)
                ok = True
            except crs.DeltaValidationError:
                ok = False
            assert ok == expect_ok, arg
            if ok:
                assert m.new_generation == m.old_generation + 1 == model.generation
                # the delta history sees every committed delta at once, losslessly
                rec = c.delta_history().get_by_generation(m.new_generation)
                assert rec is not None
                assert rec.delta().to_dict() == arg.to_dict()
            else:
                assert c.generation() == before.generation()
                assert c.delta_history().get_by_generation(before.generation() + 1) is None
        elif kind == "checkpoint":
            checkpoints.append((c.checkpoint(), model.copy()))
        elif kind == "restore" and checkpoints:
            assert isinstance(arg, int)
            cp, saved = checkpoints[arg % len(checkpoints)]
            c.restore(cp)
            gen = model.generation + 1
            model = saved.copy()
            model.generation = gen
        elif kind == "snapshot":
            snaps.append((c.snapshot(), model.copy()))
        model.check(c.snapshot())
    for snap, saved in snaps:
        saved.check(snap)  # a snapshot never changes after it is taken


@given(deltas, deltas)
def test_merge_and_json_form(a: crs.Delta, b: crs.Delta) -> None:
    for d in (a, b):
        assert crs.delta_from_dict(d.to_dict()) == d
    assert a.conflicts_with(b) == b.conflicts_with(a)
    merged = a.merge(b)
    assert crs.delta_from_dict(merged.to_dict()) == merged
    if isinstance(merged, crs.CompositeDelta) and not isinstance(a, crs.CompositeDelta):
        # merging different types keeps both, in order: same result as applying both
        one, two = crs.CRS(), crs.CRS()
        try:
            one.apply(merged)
        except crs.DeltaValidationError:
            return
        two.apply(a)
        two.apply(b)
        assert one.snapshot().proof_index().all() == two.snapshot().proof_index().all()
        assert one.snapshot().constraint_index().all() == two.snapshot().constraint_index().all()


def test_threads_apply_and_snapshot() -> None:
    c = crs.CRS()
    n_threads, per_thread = 4, 300
    errors: list[BaseException] = []

    def writer(t: int) -> None:
        try:
            for i in range(per_thread):
                c.apply(
                    crs.ProofDelta(crs.SignalSource.HARD, {f"t{t}:n{i}": crs.ProofNumber(proof=i)})
                )
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    def reader() -> None:
        try:
            last = -1
            for _ in range(500):
                s = c.snapshot()
                size = s.proof_index().size()
                assert s.generation() >= last
                assert size == s.generation()  # one entry per delta, from generation 0
                last = s.generation()
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(n_threads)]
    threads += [threading.Thread(target=reader) for _ in range(2)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
        assert not t.is_alive(), "deadlock"
    assert not errors, errors
    assert time.monotonic() - start < 60
    assert c.generation() == n_threads * per_thread
    assert c.snapshot().proof_index().size() == n_threads * per_thread
    assert c.delta_history().size() == 1000  # bounded


def test_optimistic_read_modify_write_loses_no_update() -> None:
    """Threads increment one node via snapshot -> delta -> apply(base=snapshot), retrying on
    DeltaConflictError: no increment is lost."""
    c = crs.CRS()
    c.apply(crs.ProofDelta(crs.SignalSource.HARD, {"counter": crs.ProofNumber(proof=0)}))
    n_threads, per_thread = 4, 100
    conflicts = [0]
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(per_thread):
                while True:
                    base = c.snapshot()
                    cur = base.proof_index().get("counter")
                    assert cur is not None
                    d = crs.ProofDelta(
                        crs.SignalSource.HARD, {"counter": crs.ProofNumber(proof=cur.proof + 1)}
                    )
                    try:
                        c.apply(d, base=base)
                        break
                    except crs.DeltaConflictError:
                        conflicts[0] += 1
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=worker) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
        assert not t.is_alive(), "deadlock"
    assert not errors, errors
    final = c.snapshot().proof_index().get("counter")
    assert final is not None
    assert final.proof == n_threads * per_thread
    assert c.generation() == 1 + n_threads * per_thread


@given(st.lists(deltas, max_size=12))
def test_export_import_round_trip(ds: list[crs.Delta]) -> None:
    """Any reachable state survives export_full -> JSON -> import_ -> load_into."""
    import json

    c = crs.CRS(max_similarity_pairs=4, max_history_entries=5)
    for d in ds:
        with contextlib.suppress(crs.DeltaValidationError):
            c.apply(d)
    ser = crs.Serializer()
    res = ser.export_full(c.snapshot(), "s")
    assert res.export is not None
    loaded = crs.CRS(max_similarity_pairs=4, max_history_entries=5)
    ser.import_(json.loads(json.dumps(res.export.to_dict()))).load_into(loaded)
    a, b = c.snapshot(), loaded.snapshot()
    assert b.proof_index().all() == a.proof_index().all()
    assert b.constraint_index().all() == a.constraint_index().all()
    assert b.similarity_index().all_pairs() == a.similarity_index().all_pairs()
    assert b.dependency_index().all_edges() == a.dependency_index().all_edges()
    assert b.history_index().recent(100) == a.history_index().recent(100)
    assert ser.compute_summary(b) == ser.compute_summary(a)
