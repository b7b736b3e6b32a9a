"""Proof-number arithmetic and the circuit-breaker decision, as pure functions.

The CRS reads the current `ProofNumber`, calls these, and commits the result as one
`ProofDelta` (so the generation moves by exactly one).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from crs._errors import HardSoftBoundaryViolationError, InvalidArgumentError
from crs._reasoning._steps import require_id
from crs._types import (
    DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
    DEFAULT_INITIAL_PROOF_NUMBER,
    PROOF_NUMBER_INFINITE,
    CircuitBreakerResult,
    ProofNumber,
    ProofStatus,
    ProofUpdate,
    ProofUpdateType,
    SignalSource,
)

MAX = PROOF_NUMBER_INFINITE


def tool_node_id(session_id: str, tool: str) -> str:
    """The proof node the circuit breaker reads for `tool` in a session."""
    return f"session:{session_id}:tool:{tool}"


def state_node_id(session_id: str, state_key: str) -> str:
    """The proof node of a decision state (disproven when it is part of a cycle)."""
    return f"session:{session_id}:state:{state_key}"


def new_node(source: SignalSource) -> ProofNumber:
    """A node created by an update: proof = disproof = 10, status unknown."""
    return ProofNumber(
        proof=DEFAULT_INITIAL_PROOF_NUMBER,
        disproof=DEFAULT_INITIAL_PROOF_NUMBER,
        status=ProofStatus.UNKNOWN,
        source=source,
    )


def validate_update(update: ProofUpdate) -> None:
    """`update.validate()` plus the hard/soft boundary, with errors naming `update.<field>`.

    Raises:
        InvalidArgumentError: a field is invalid.
        HardSoftBoundaryViolationError: a soft signal tries to disprove.
    """
    if not isinstance(update, ProofUpdate):
        raise InvalidArgumentError(f"update: must be a ProofUpdate, got {type(update).__name__}")
    try:
        update.validate()
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"update.{exc}") from None
    require_id(update.node_id, "update.node_id")
    if update.type == ProofUpdateType.DISPROVEN and not SignalSource(update.source).is_hard():
        raise HardSoftBoundaryViolationError(
            f"update.source: node {update.node_id} cannot be marked DISPROVEN by a soft signal; "
            "use SignalSource.HARD or SAFETY"
        )


def apply_update(current: ProofNumber | None, update: ProofUpdate, now: int) -> ProofNumber:
    """The node's proof number after `update` (validated) at time `now` (ms).

    Increment and decrement saturate at 0 and 2**64-1 and move an unknown node to expanded;
    disproven sets proof to infinity; proven sets it to 0; reset restores 10/10/unknown. The
    disproof number is only changed by reset.

    >>> apply_update(None, ProofUpdate(node_id="n", type=ProofUpdateType.INCREMENT, delta=5,
    ...              source=SignalSource.SOFT), now=1).proof
    15

    Raises:
        HardSoftBoundaryViolationError: a soft update would leave the node disproven.
    """
    node = current if current is not None else new_node(SignalSource(update.source))
    proof, disproof, status = node.proof, node.disproof, node.status
    t = update.type
    if t == ProofUpdateType.INCREMENT:
        proof = MAX if proof >= MAX - update.delta else proof + update.delta
        status = ProofStatus.EXPANDED if status == ProofStatus.UNKNOWN else status
    elif t == ProofUpdateType.DECREMENT:
        proof = max(0, proof - update.delta)
        status = ProofStatus.EXPANDED if status == ProofStatus.UNKNOWN else status
    elif t == ProofUpdateType.DISPROVEN:
        proof, status = MAX, ProofStatus.DISPROVEN
    elif t == ProofUpdateType.PROVEN:
        proof, status = 0, ProofStatus.PROVEN
    else:  # reset
        proof = disproof = DEFAULT_INITIAL_PROOF_NUMBER
        status = ProofStatus.UNKNOWN
    if status == ProofStatus.DISPROVEN and not SignalSource(update.source).is_hard():
        raise HardSoftBoundaryViolationError(
            f"update.source: node {update.node_id} is disproven; only a HARD or SAFETY signal "
            "may change it"
        )
    return dataclasses.replace(
        node,
        proof=proof,
        disproof=disproof,
        status=status,
        source=SignalSource(update.source),
        updated_at=now,
    )


def circuit_breaker(
    tool: str, node: ProofNumber | None, executions: int, threshold: int
) -> CircuitBreakerResult:
    """Reference §1.8: with proof data the node decides; without, the execution count does."""
    if node is None:
        if executions >= threshold:
            return CircuitBreakerResult(
                should_fire=True,
                reason=f"tool {tool} called {executions} times (threshold: {threshold})",
                proof_number=0,
                status=ProofStatus.UNKNOWN,
            )
        return CircuitBreakerResult(
            should_fire=False,
            reason="no proof data, execution count below threshold",
            proof_number=DEFAULT_INITIAL_PROOF_NUMBER,
            status=ProofStatus.UNKNOWN,
        )
    if node.status == ProofStatus.DISPROVEN:
        reason, fire = f"tool {tool} is disproven", True
    elif node.proof >= MAX:
        reason, fire = f"tool {tool} proof exhausted: pn={node.proof}", True
    else:
        reason, fire = "proof number viable", False
    return CircuitBreakerResult(
        should_fire=fire, reason=reason, proof_number=node.proof, status=node.status
    )


def threshold_for(thresholds: Mapping[str, int], tool: str) -> int:
    """The per-tool threshold if configured and positive, else the default (2)."""
    n = thresholds.get(tool, 0)
    return n if n > 0 else DEFAULT_CIRCUIT_BREAKER_THRESHOLD


def propagation_updates(
    start: str,
    edges: list[tuple[str, str, int]],
    read: Callable[[str], ProofNumber | None],
    now: int,
) -> tuple[dict[str, ProofNumber], int]:
    """Disproof propagation over BFS edges (parent, child, depth) in BFS order (§1.9).

    Each parent of an expanding node gets proof += 1 (saturating; created at 10 when new),
    once per disproven child. A parent that is then disproven or exhausted expands in turn;
    every node expands at most once. `read(node)` gives a node's current proof number (only
    the parents of expanding nodes are read). Returns the new proof numbers and the number
    of increments.
    """
    expanding = {start}
    visited: set[str] = set()
    out: dict[str, ProofNumber] = {}
    increments = 0
    inc = ProofUpdate(type=ProofUpdateType.INCREMENT, delta=1, source=SignalSource.HARD)
    for parent, child, _depth in edges:
        if child not in expanding:
            continue
        visited.add(child)
        if parent in visited or parent == start:
            continue
        cur = out[parent] if parent in out else read(parent)
        nxt = apply_update(cur, dataclasses.replace(inc, node_id=parent), now)
        out[parent] = nxt
        increments += 1
        if nxt.status == ProofStatus.DISPROVEN or nxt.proof >= MAX:
            expanding.add(parent)
    return out, increments
