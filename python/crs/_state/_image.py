"""The state image: the whole reasoning state as one JSON-able document.

`state_image` is `CRS._state_image()` (and, without its proof rows, the JSON part of a backup
image, whose byte layout `crs._image` adds); `crs._image.parse_image` reads it back. Bump
`STATE_IMAGE_VERSION` when the document changes.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from crs import _core

if TYPE_CHECKING:
    from crs._state._analytics import AnalyticsRecord

STATE_IMAGE_VERSION: int = 1
"""Format version of `CRS._state_image()`."""


def state_image(
    core: _core.StateCore,
    gen: int,
    analytics: tuple[AnalyticsRecord, ...],
    guards: dict[str, Any],
    *,
    proof: bool = True,
) -> dict[str, Any]:
    pairs, _ = core.sim_pairs(None)
    return {
        "version": STATE_IMAGE_VERSION,
        "generation": gen,
        "proof": [list(r) for r in core.proof_all()] if proof else [],
        "constraints": [list(r) for r in core.constraint_all()],
        "similarity": [list(p) for p in pairs],
        "dependency": [list(e) for e in core.dep_edges()],
        "history": [
            [*r[:6], [list(kv) for kv in r[6]]] for r in core.history_recent(core.history_len())
        ],
        "streaming": base64.b64encode(core.sketch_bytes()).decode(),
        "evicted": [core.sim_evicted(), core.history_evicted()],
        "analytics": [r.to_dict() for r in analytics],
        "guards": guards,
    }
