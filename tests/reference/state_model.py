"""A slow, obviously-correct pure-Python model of the CRS state, for property tests.

It mirrors the documented semantics (spec README §5 items 1, 2, 6, 9, 10, 11) with plain
dicts and lists; streaming keeps exact counts (the sketch must never report less).
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import crs


class ModelError(Exception):
    """The model refused a delta (the real CRS must refuse it too)."""


@dataclasses.dataclass
class Model:
    sim_cap: int
    hist_cap: int
    proof: dict[str, crs.ProofNumber] = dataclasses.field(default_factory=dict)
    constraints: dict[str, crs.Constraint] = dataclasses.field(default_factory=dict)
    sim: dict[tuple[str, str], float] = dataclasses.field(default_factory=dict)  # insertion order
    edges: set[tuple[str, str]] = dataclasses.field(default_factory=set)
    history: list[crs.HistoryEntry] = dataclasses.field(default_factory=list)
    counts: dict[str, int] = dataclasses.field(default_factory=dict)
    seen: set[str] = dataclasses.field(default_factory=set)
    generation: int = 0

    def copy(self) -> Model:
        return copy.deepcopy(self)

    def apply(self, delta: crs.Delta) -> None:
        """Apply all-or-nothing; raise ModelError when the CRS must refuse."""
        trial = self.copy()
        trial._apply(delta)
        trial.generation += 1
        self.__dict__.update(trial.__dict__)

    def _reaches(self, a: str, b: str) -> bool:
        stack, seen = [a], {a}
        while stack:
            n = stack.pop()
            if n == b:
                return True
            for f, t in self.edges:
                if f == n and t not in seen:
                    seen.add(t)
                    stack.append(t)
        return False

    def _apply(self, d: crs.Delta) -> None:
        if isinstance(d, crs.CompositeDelta):
            for child in d.deltas:
                self._apply(child)
        elif isinstance(d, crs.ProofDelta):
            for v in d.updates.values():
                if v.status == crs.ProofStatus.DISPROVEN and not d.source().is_hard():
                    raise ModelError("soft disproof")
            self.proof.update(d.updates)
        elif isinstance(d, crs.ConstraintDelta):
            ids = [c.id for c in d.add]
            if len(set(ids)) != len(ids) or any(i in self.constraints for i in ids):
                raise ModelError("bad add")
            if any(r not in self.constraints for r in d.remove):
                raise ModelError("missing remove")
            if any(u not in self.constraints for u in d.update):
                raise ModelError("missing update")
            for r in d.remove:
                self.constraints.pop(r, None)
            for k, c in d.update.items():
                self.constraints[k] = dataclasses.replace(c, id=k)
            for c in d.add:
                self.constraints[c.id] = c
        elif isinstance(d, crs.SimilarityDelta):
            for (a, b), dist in d.updates.items():
                if not a or not b or a == b or not (dist >= 0 and dist != float("inf")):
                    raise ModelError("bad pair")
            for (a, b), dist in d.updates.items():
                key = (min(a, b), max(a, b))
                if key in self.sim:  # re-recorded: now the newest pair
                    del self.sim[key]
                    self.sim[key] = dist
                    continue
                if self.sim_cap and len(self.sim) >= self.sim_cap:
                    del self.sim[next(iter(self.sim))]
                self.sim[key] = dist
        elif isinstance(d, crs.DependencyDelta):
            for f, t in d.add_edges:
                if not f or not t or f == t:
                    raise ModelError("bad edge")
            for e in d.remove_edges:
                self.edges.discard(e)
            for f, t in d.add_edges:
                if (f, t) in self.edges:
                    continue
                if self._reaches(t, f):
                    raise ModelError("cycle")
                self.edges.add((f, t))
        elif isinstance(d, crs.HistoryDelta):
            if any(not e.id for e in d.entries):
                raise ModelError("empty id")
            for e in d.entries:
                self.history.append(e)
                if self.hist_cap and len(self.history) > self.hist_cap:
                    del self.history[0]
        elif isinstance(d, crs.StreamingDelta):
            for k, n in d.increments.items():
                if n > 0:
                    self.counts[k] = self.counts.get(k, 0) + n
                    self.seen.add(k)
            for k in d.cardinality_items:
                if self.counts.get(k, 0) == 0:
                    self.counts[k] = 1
                self.seen.add(k)
        else:  # pragma: no cover - the strategies only build the types above
            raise AssertionError(d)

    def check(self, snap: crs.Snapshot) -> None:
        """Assert the snapshot shows exactly this model's observable state."""
        assert snap.generation() == self.generation
        assert snap.proof_index().all() == self.proof
        assert snap.constraint_index().all() == self.constraints
        sim = snap.similarity_index()
        assert sim.size() == len(self.sim)
        got = {(p.from_id, p.to_id): p.similarity for p in sim.all_pairs_filtered(-1).pairs}
        assert got == self.sim
        assert list(got) == list(self.sim)  # oldest first
        dep = snap.dependency_index()
        assert dep.size() == len(self.edges)
        edges = {(f, t) for f, tos in (dep.all_edges() or {}).items() for t in tos}
        assert edges == self.edges
        assert snap.history_index().recent(10_000) == self.history
        stream = snap.streaming_index()
        for k, n in self.counts.items():
            assert stream.estimate(k) >= n
        assert abs(stream.cardinality() - len(self.seen)) <= max(1, len(self.seen) // 20)

    def observable(self) -> Any:
        return (
            dict(self.proof),
            dict(self.constraints),
            list(self.sim.items()),
            set(self.edges),
            list(self.history),
        )
