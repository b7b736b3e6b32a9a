"""DeltaCodec: every delta type and op record round-trips exactly through a real LocalJournal."""

from __future__ import annotations

import dataclasses
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import crs
from crs._state._codec import KIND_JSON, KIND_PROOF

text = st.text(min_size=1, max_size=12)  # any code points, lone surrogates included
any_text = st.text(max_size=12)
sources = st.sampled_from(list(crs.SignalSource))
i64 = st.integers(-(2**63), 2**63 - 1)
stamps = st.one_of(i64, st.integers(2**63, 2**70))  # beyond 64 bits: the JSON form
proof_numbers = st.builds(
    crs.ProofNumber,
    proof=st.integers(0, 2**64 - 1),
    disproof=st.integers(0, 2**64 - 1),
    status=st.sampled_from(list(crs.ProofStatus)),
    source=sources,
    updated_at=i64,
)
constraints = st.builds(
    crs.Constraint,
    id=text,
    type=st.sampled_from(list(crs.ConstraintType)),
    nodes=st.lists(text, max_size=3).map(tuple),
    expression=any_text,
    active=st.booleans(),
    source=sources,
    created_at=i64,
)
history = st.builds(
    crs.HistoryEntry,
    id=text,
    node_id=any_text,
    action=any_text,
    result=any_text,
    source=sources,
    timestamp=i64,
    metadata=st.dictionaries(text, any_text, max_size=2),
)
analytics = st.builds(
    crs.AnalyticsRecord,
    query_type=st.sampled_from(list(crs.AnalyticsQueryType)),
    query_time=st.integers(1, 2**50),
    result_count=st.integers(0, 5),
    execution_ms=st.integers(0, 10_000),
    id=any_text,
    results=st.lists(text, max_size=3).map(tuple),
    path=st.lists(text, max_size=3).map(tuple),
)

leaf = st.one_of(
    st.builds(
        crs.ProofDelta,
        sources,
        st.dictionaries(text, proof_numbers, max_size=4),
        timestamp=stamps,
    ),
    st.builds(
        lambda s, add, rem, upd, ts: crs.ConstraintDelta(
            s, add=list({c.id: c for c in add}.values()), remove=rem, update=upd, timestamp=ts
        ),
        sources,
        st.lists(constraints, max_size=2),
        st.lists(text, max_size=2),
        st.dictionaries(text, constraints.map(lambda c: dataclasses.replace(c, id="")), max_size=2),
        stamps,
    ),
    st.builds(
        lambda s, ups, ts: crs.SimilarityDelta(s, ups, timestamp=ts),
        sources,
        st.dictionaries(
            st.tuples(text, text).filter(lambda p: p[0] != p[1]),
            st.floats(0, 1e9, allow_nan=False),
            max_size=3,
        ),
        stamps,
    ),
    st.builds(
        lambda s, a, r, ts: crs.DependencyDelta(s, add_edges=a, remove_edges=r, timestamp=ts),
        sources,
        st.lists(st.tuples(text, text), max_size=3),
        st.lists(st.tuples(text, text), max_size=2),
        stamps,
    ),
    st.builds(
        lambda s, e, ts: crs.HistoryDelta(s, e, timestamp=ts),
        sources,
        st.lists(history, max_size=3),
        stamps,
    ),
    st.builds(
        lambda s, inc, items, ts: crs.StreamingDelta(
            s, increments=inc, cardinality_items=items, timestamp=ts
        ),
        sources,
        st.dictionaries(text, st.integers(0, 2**64 - 1), max_size=3),
        st.lists(text, max_size=3),
        stamps,
    ),
    st.builds(
        lambda s, r, ts: crs.AnalyticsDelta(s, r, timestamp=ts),
        sources,
        analytics,
        stamps,
    ),
)
deltas = st.one_of(
    leaf,
    st.builds(
        lambda children, s, ts: crs.CompositeDelta(*children, source=s, timestamp=ts),
        st.lists(leaf, max_size=3),
        sources,
        stamps,
    ),
    st.builds(
        lambda inner, ts: crs.CompositeDelta(inner, timestamp=ts),
        st.lists(leaf, max_size=2).map(lambda cs: crs.CompositeDelta(*cs)),
        stamps,
    ),
)
json_values = st.recursive(
    st.none() | st.booleans() | i64 | st.floats(allow_nan=False, allow_infinity=False) | any_text,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(any_text, kids, max_size=3),
    max_leaves=8,
)
ops = st.builds(
    lambda kind, payload, bump: {"op": kind, "payload": payload, "bump_generation": bump},
    text,
    st.dictionaries(any_text, json_values, max_size=3),
    st.booleans(),
)


def journal(path: Path, codec: crs.DeltaCodec | None = None, **kw: object) -> crs.LocalJournal:
    cfg = dataclasses.replace(
        crs.DefaultJournalConfig(),
        path=str(path),
        session_id="t",
        segment_bytes=64 * 1024,
        preallocate=False,
        **kw,
    )
    return crs.LocalJournal(cfg, codec or crs.DeltaCodec())


def same(a: object, b: object) -> bool:
    if isinstance(a, crs.Delta):
        return type(a) is type(b) and a.to_dict() == b.to_dict()  # type: ignore[union-attr]
    return a == b


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(st.one_of(deltas, ops), min_size=1, max_size=12))
def test_every_delta_and_op_round_trips_through_local_journal(
    tmp_path_factory: pytest.TempPathFactory, entries: list[object]
) -> None:
    path = tmp_path_factory.mktemp("j")
    with journal(path) as j:
        for e in entries[: len(entries) // 2]:
            j.append(e)
        if entries[len(entries) // 2 :]:
            j.append_batch(entries[len(entries) // 2 :])
    with journal(path) as j:  # reopened: decoded from disk
        back = j.replay()
        streamed = [item.delta for item in j.replay_stream()]
    assert len(back) == len(entries)
    for a, b, c in zip(entries, back, streamed, strict=True):
        assert same(a, b), (a, b)
        assert same(a, c)
        if isinstance(a, crs.Delta):
            assert b.source() == a.source()  # type: ignore[attr-defined]
            assert b.timestamp() == a.timestamp()  # type: ignore[attr-defined]
            assert b == a


def test_hot_proof_deltas_use_the_binary_layout() -> None:
    codec = crs.DeltaCodec()
    d = crs.ProofDelta(crs.SignalSource.HARD, {"n": crs.ProofNumber(proof=7, status=2)})
    raw = codec.encode(d)
    assert raw[:2] == bytes((KIND_PROOF, 1))
    assert len(raw) < 60  # 16-byte head + 4 + 1 + 26
    back = codec.decode(raw)
    assert back == d
    assert back.updates == d.updates
    big = crs.ProofDelta(crs.SignalSource.HARD, {}, timestamp=2**64)
    assert codec.encode(big)[0] == KIND_JSON
    assert codec.decode(codec.encode(big)) == big
    # A node id the state cannot store (a lone surrogate) is refused before any encoding.
    with pytest.raises(crs.InvalidArgumentError, match="updates"):
        crs.ProofDelta(crs.SignalSource.SOFT, {"\ud800x": crs.ProofNumber()})


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"P",
        b"P\x02" + bytes(16),  # unknown version
        b"X\x01{}",  # unknown kind
        b"J\x01[1]",
        b"J\x01{not json",
        b'J\x01{"delta":{"type":"nope"}}',
        b'J\x01{"op":3,"payload":{}}',
        struct.pack("<BBBxqI", KIND_PROOF, 1, 1, 0, 1),  # one row announced, none there
        struct.pack("<BBBxqI", KIND_PROOF, 1, 1, 0, 0) + b"extra",
        struct.pack("<BBBxqI", KIND_PROOF, 1, 9, 0, 0),  # bad source
    ],
)
def test_bad_payloads_are_typed_corruption(payload: bytes) -> None:
    with pytest.raises(crs.JournalCorruptedError):
        crs.DeltaCodec().decode(payload)


@pytest.mark.parametrize("entry", [object(), {"op": "", "payload": {}}, {"op": "x"}, 3, "s"])
def test_unencodable_entries_are_rejected(entry: object) -> None:
    with pytest.raises(crs.InvalidArgumentError, match="entry"):
        crs.DeltaCodec().encode(entry)


def test_nan_is_rejected() -> None:
    with pytest.raises(crs.InvalidArgumentError, match="JSON"):
        crs.DeltaCodec().encode({"op": "x", "payload": {"v": float("nan")}})


def test_rust_batch_decoder_agrees_and_reports_damage() -> None:
    codec = crs.DeltaCodec()
    ds = [
        crs.ProofDelta(crs.SignalSource.SOFT, {"a": crs.ProofNumber(proof=1)}, timestamp=5),
        crs.DependencyDelta(crs.SignalSource.HARD, add_edges=[("a", "b")]),
        crs.ProofDelta(crs.SignalSource.HARD, {"é": crs.ProofNumber(status=2)}),
    ]
    raw = [codec.encode(d) for d in ds]
    assert codec.decode_many(raw) == [codec.decode(p) for p in raw] == ds
    for cut in (3, 17, len(raw[0]) - 1):
        with pytest.raises(crs.JournalCorruptedError, match=r"payloads\[0\]"):
            codec.decode_many([raw[0][:cut], raw[1]])
    soft_disproof = codec.decode_many(
        [codec.encode(crs.ProofDelta(crs.SignalSource.HARD, {"x": crs.ProofNumber(status=2)}))]
    )[0]
    assert soft_disproof.source() == crs.SignalSource.HARD


class _ObjectCodec(crs.DeltaCodec):
    """The DeltaCodec without its replay entry point: every record becomes a Delta object."""

    decode_for_replay = None


proof_deltas = st.builds(
    crs.ProofDelta,
    st.sampled_from([crs.SignalSource.HARD, crs.SignalSource.SOFT]),
    st.dictionaries(
        st.sampled_from(["a", "b", "é", "node:1"]),
        st.builds(
            crs.ProofNumber,
            proof=st.integers(0, 2**64 - 1),
            status=st.sampled_from([crs.ProofStatus.UNKNOWN, crs.ProofStatus.PROVEN]),
            updated_at=i64,
        ),
        max_size=3,
    ),
)
other_deltas = st.builds(
    crs.DependencyDelta,
    st.just(crs.SignalSource.HARD),
    add_edges=st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xyz")), max_size=2),
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=40)
@given(entries=st.lists(st.one_of(proof_deltas, proof_deltas, other_deltas), max_size=30))
def test_replay_from_payloads_builds_the_state_the_live_crs_had(
    tmp_path_factory: pytest.TempPathFactory, entries: list[crs.Delta]
) -> None:
    """CRS.open writes stretches of binary ProofDeltas straight from their payloads (no
    Delta objects); the state and generation equal the live CRS's and the object path's."""
    path = tmp_path_factory.mktemp("r")
    with journal(path) as j:
        live = crs.CRS.open(j)
        for d in entries:
            live.apply(d)
        want = (live._state_image(), live.generation())
    for codec in (crs.DeltaCodec(), _ObjectCodec()):
        with journal(path, codec) as j:
            again = crs.CRS.open(j)
            assert (again._state_image(), again.generation()) == want
            assert again.journal_position() == len(entries)


def test_proof_mask_and_payload_writes_report_damage() -> None:
    from crs import _core

    codec = crs.DeltaCodec()
    good = codec.encode(crs.ProofDelta(crs.SignalSource.HARD, {"a": crs.ProofNumber(proof=3)}))
    other = codec.encode(crs.DependencyDelta(crs.SignalSource.HARD, add_edges=[("a", "b")]))
    assert _core.codec_proof_mask([good, other, good]) == [True, False, True]
    runs = codec.decode_for_replay([good, good, other, good])
    assert [type(r).__name__ for r in runs] == ["ProofPayloads", "DependencyDelta", "ProofPayloads"]
    assert [len(r.payloads) for r in (runs[0], runs[2])] == [2, 1]
    for cut in (3, 17, len(good) - 1):
        with pytest.raises(crs.JournalCorruptedError, match=r"payloads\[1\]"):
            codec.decode_for_replay([good, good[:cut]])
    head = _core.StateHead(10, 10)
    before = head.freeze().proof_all()
    with pytest.raises(ValueError, match=r"payloads\[1\]"):
        head.put_proof_payloads([good, other])
    assert head.freeze().proof_all() == before  # nothing written
    assert head.put_proof_payloads([good, good]) == 2
    assert head.freeze().proof_all() != before


def test_pause_gc_is_counted_and_respects_a_disabled_collector() -> None:
    import gc
    import threading

    from crs._journal._base import pause_gc

    assert gc.isenabled()
    with pause_gc():
        with pause_gc():
            assert not gc.isenabled()
        assert not gc.isenabled(), "the outer pause still runs"
    assert gc.isenabled()
    # Overlapping pauses in two threads: the collector returns when the last one ends.
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with pause_gc():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=other)
    with pause_gc():
        t.start()
        assert inside.wait(10)
    assert not gc.isenabled(), "the other thread's pause still runs"
    release.set()
    t.join(10)
    assert gc.isenabled()
    # A collector the application disabled stays disabled.
    gc.disable()
    try:
        with pause_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(RuntimeError), pause_gc():
        raise RuntimeError
    assert gc.isenabled()
