"""The delta history keeps a large ProofDelta packed (issue 11: 258 B per entry -> <= 158).

The history must answer exactly as before (seed GR-35: range, by node, by generation,
explain, all, conflicts of a stale snapshot); only what it keeps in memory changes.
"""

from __future__ import annotations

import gc
import json
import tracemalloc

import pytest

import crs
from crs import ProofDelta, ProofNumber, ProofStatus, SignalSource


def _pn(i: int, status: ProofStatus = ProofStatus.EXPANDED) -> ProofNumber:
    return ProofNumber(
        proof=i + 1000,
        disproof=2**64 - 1 - i,
        status=status,
        source=SignalSource.SAFETY,
        updated_at=-(2**63) + i if i % 2 else 1_700_000_000 + i,
    )


def _large(n: int, prefix: str = "node:", source: SignalSource = SignalSource.HARD) -> ProofDelta:
    return ProofDelta(source, {f"{prefix}{i:08d}": _pn(i) for i in range(n)}, timestamp=42)


def _per_entry(n: int) -> float:
    warm = crs.CRS()  # lazily built module state is not the history's
    warm.apply(_large(200))
    warm.close()
    del warm
    gc.collect()
    tracemalloc.start()
    try:
        c = crs.CRS()
        c.apply(_large(n))
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
        c.close()
        del c
        gc.collect()
        left = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert left < kept / 10  # released with the history
    return kept / n


def test_a_large_proof_delta_costs_the_history_at_most_158_bytes_per_entry() -> None:
    per_entry = _per_entry(20_000)
    # 409 B when the history kept the caller's ProofNumber mapping, 258 B with the rows only.
    assert per_entry <= 158, f"{per_entry:.0f} B per entry"


def test_eviction_frees_the_packed_entries() -> None:
    n = 5_000
    c = crs.CRS(max_delta_records=2)
    c.apply(ProofDelta(SignalSource.HARD, {"warm": _pn(0)}))
    gc.collect()
    tracemalloc.start()
    try:
        c.apply(_large(n))
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
        for i in range(3):
            c.apply(ProofDelta(SignalSource.HARD, {f"small{i}": _pn(i)}))
        gc.collect()
        left = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert c.delta_history().evicted() == 3  # the warm-up, then the large delta, then small0
    assert c.delta_history().get_by_node("node:00000001") == []
    assert kept > 20 * n  # the packed entries were traced ...
    assert left < kept - 20 * n, (kept, left)  # ... and went with their record
    c.close()


def test_the_history_answers_a_packed_delta_exactly_as_the_delta_itself() -> None:
    big = _large(300)
    small = ProofDelta(SignalSource.SOFT, {"node:00000007": _pn(7, ProofStatus.PROVEN)})
    c = crs.CRS()
    c.apply(big)
    c.apply(small)
    h = c.delta_history()
    rec = h.get_by_generation(1)
    assert rec is not None
    back = rec.delta()
    assert back == big
    assert isinstance(back, ProofDelta)
    assert dict(back.updates) == dict(big.updates)  # -(2**63), 2**64-1 kept exactly
    assert json.loads(rec.delta_bytes) == {"type": "proof", "data": big.to_dict()}
    assert rec.affected_nodes == tuple(big.updates)
    assert rec.delta_type is crs.DeltaType.PROOF
    assert rec.source == str(SignalSource.HARD)
    assert [r.generation for r in h.get_by_node("node:00000007")] == [1, 2]
    assert [r.generation for r in h.explain("node:00000299")] == [1]
    for absent in ("node:0000000", "ode:00000007", "node:00000007\0node:00000008", "", "x"):
        assert h.get_by_node(absent) == []
    assert [r.generation for r in h.get_range(0, 2)] == [1, 2]
    assert [r.id for r in h.all()] == ["delta_1", "delta_2"]
    assert h.size() == 2
    c.close()


@pytest.mark.parametrize(
    "prefix",
    ["n\0", "ünïcode-\U0001f600-", "a" * 300],
    ids=["nul-in-id", "non-ascii", "long"],
)
def test_unusual_node_ids_round_trip(prefix: str) -> None:
    big = _large(100, prefix=prefix)
    c = crs.CRS()
    c.apply(big)
    h = c.delta_history()
    rec = h.get_by_generation(1)
    assert rec is not None
    assert rec.delta() == big
    node = f"{prefix}{42:08d}"
    assert [r.generation for r in h.get_by_node(node)] == [1]
    assert h.get_by_node(prefix) == []
    c.close()


def test_a_stale_snapshot_still_conflicts_with_a_packed_delta() -> None:
    c = crs.CRS()
    base = c.snapshot()
    c.apply(_large(500))
    clash = ProofDelta(SignalSource.HARD, {"node:00000499": _pn(1)})
    with pytest.raises(crs.DeltaConflictError):
        c.apply(clash, base=base)
    c.apply(ProofDelta(SignalSource.HARD, {"elsewhere": _pn(1)}), base=base)
    assert c.generation() == 2
    c.close()


def test_a_soft_packed_delta_keeps_its_hard_soft_check() -> None:
    c = crs.CRS()
    c.apply(_large(100, source=SignalSource.SOFT))
    rec = c.delta_history().get_by_generation(1)
    assert rec is not None
    d = rec.delta()
    assert isinstance(d, ProofDelta)
    assert d.source() is SignalSource.SOFT
    c.close()
