"""`OpKind`: the kind of an operation tuple `(kind, ...)` that the Rust state applies.

A delta becomes operations (`Delta._ops()`), `StateCore.apply_ops` applies them; each is a tuple
whose first item is its kind. This enum mirrors `OpKind` in `rust/state/apply.rs` (the core
publishes its names and numbers as `crs._core.OP_KINDS`; tests/core/test_op_kinds.py checks the
two agree).
"""

from __future__ import annotations

import enum


class OpKind(enum.IntEnum):
    """Kind of a state operation; the layout of the rest of its tuple follows the kind."""

    PROOF = 1  # (PROOF, [(id, proof, disproof, status, source, updated_at)])
    CONSTRAINT = 2  # (CONSTRAINT, add rows, remove ids, [(id, row)] updates)
    SIMILARITY = 3  # (SIMILARITY, [(a, b, distance)])
    DEPENDENCY = 4  # (DEPENDENCY, add edges, remove edges)
    HISTORY = 5  # (HISTORY, [(id, node, action, result, source, ts, metadata)])
    STREAMING = 6  # (STREAMING, [(item, increment)], cardinality items)
