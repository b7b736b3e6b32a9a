"""The state boundary's names: op kinds and apply errors are typed on both sides.

`crs._state._ops.OpKind` mirrors `OpKind` in `rust/state/apply.rs` (published as
`crs._core.OP_KINDS`); a refused apply raises one exception class per `ApplyError` kind
(`ApplyNotFoundError`, `ApplyInvalidError`, both `ValueError`s) with the bare message, and the
facade turns them into `DeltaTargetNotFoundError` / `DeltaValidationError` by class.
"""

from __future__ import annotations

import pytest

import crs
from crs import _core
from crs._state._ops import OpKind

SOFT = crs.SignalSource.SOFT


def test_python_op_kinds_mirror_the_rust_enum() -> None:
    assert {k.name: k.value for k in OpKind} == _core.OP_KINDS
    assert list(OpKind) == sorted(OpKind)


def test_every_delta_hands_over_named_op_kinds() -> None:
    c = crs.Constraint(id="c1", type=crs.ConstraintType.ORDERING, nodes=("a", "b"))
    deltas = [
        crs.ProofDelta(SOFT, {"x": crs.ProofNumber(proof=1, disproof=1)}),
        crs.ConstraintDelta(SOFT, add=[c]),
        crs.SimilarityDelta(SOFT, {("a", "b"): 0.5}),
        crs.DependencyDelta(SOFT, add_edges=[("a", "b")]),
        crs.StreamingDelta(SOFT, increments={"a": 1}),
    ]
    kinds = [op[0] for d in deltas for op in d._ops()]
    assert all(type(k) is OpKind for k in kinds)
    assert kinds == [
        OpKind.PROOF,
        OpKind.CONSTRAINT,
        OpKind.SIMILARITY,
        OpKind.DEPENDENCY,
        OpKind.STREAMING,
    ]


def test_apply_errors_are_distinct_classes_with_bare_messages() -> None:
    core = _core.StateCore(0, 0)
    with pytest.raises(_core.ApplyNotFoundError) as missing:
        core.apply_ops([(OpKind.CONSTRAINT, [], ["nope"], [])])
    assert isinstance(missing.value, ValueError)
    assert not str(missing.value).startswith("not_found")
    assert "nope" in str(missing.value)
    with pytest.raises(_core.ApplyInvalidError, match=r"^self-similarity not allowed"):
        core.apply_ops([(OpKind.SIMILARITY, [("x", "x", 0.1)])])
    with pytest.raises(_core.ApplyInvalidError, match=r"^unknown operation kind 9$"):
        core.apply_ops([(9, [])])
    assert not issubclass(_core.ApplyNotFoundError, _core.ApplyInvalidError)
    assert not issubclass(_core.ApplyInvalidError, _core.ApplyNotFoundError)


def test_the_facade_maps_them_to_the_public_errors() -> None:
    c = crs.CRS()
    with pytest.raises(crs.DeltaTargetNotFoundError) as missing:
        c.apply(crs.ConstraintDelta(SOFT, remove=["nope"]))
    assert not str(missing.value).startswith("not_found")
    c1 = crs.Constraint(id="c1", type=crs.ConstraintType.ORDERING, nodes=("a", "b"))
    c.apply(crs.ConstraintDelta(SOFT, add=[c1]))
    with pytest.raises(crs.DeltaValidationError, match=r'^constraint "c1" already exists'):
        c.apply(crs.ConstraintDelta(SOFT, add=[c1]))
