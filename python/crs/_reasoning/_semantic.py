"""Per-session near-duplicate lookup of tool queries: MinHash (128) + LSH (20 x 5) in Rust.

A query is keyed `<tool>:<query>`; its distance to an earlier one is 1 - estimated Jaccard
similarity of their shingle sets. LSH finds candidates sharing a band (likely for Jaccard
above about 0.55, i.e. distance below about 0.45); each candidate's distance is then
estimated from the two signatures.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from crs import _core
from crs._types import SimilarityMatch

log = logging.getLogger("crs.semantic")

MAX_QUERIES_PER_SESSION: int = 10_000
"""Queries remembered per session for repetition checks; the oldest is evicted first."""


def query_key(tool: str, query: str) -> str:
    return f"{tool}:{query}"


# `_` and `-` join the parts of one identifier (`read_file`, `read-file`): a run of them
# between two word characters is one `_`, so every spelling of an identifier is the same
# token; a run at a word's edge (`--all`, a lone `-`) separates. The Rust shingler keeps
# `_` inside tokens and splits at `-`, so keys are normalised before they are signed.
_JOINER = re.compile(r"[-_]+")


def _joined(m: re.Match[str]) -> str:
    s, a, b = m.string, m.start(), m.end()
    return "_" if a > 0 and b < len(s) and s[a - 1].isalnum() and s[b].isalnum() else " "


def signed_text(key: str) -> str:
    """The text whose shingles sign `key`: identifier joiners normalised (above)."""
    if "-" not in key and "_" not in key:
        return key
    return _JOINER.sub(_joined, key)


class _SessionQueries:
    __slots__ = ("index", "next_id", "queries")

    def __init__(self) -> None:
        self.index = _core.LshIndex()
        self.queries: OrderedDict[int, tuple[str, bytes]] = OrderedDict()
        self.next_id = 0


class SemanticMemory:
    """Queries seen per session, bounded (FIFO, with an eviction counter)."""

    def __init__(self, max_per_session: int = MAX_QUERIES_PER_SESSION) -> None:
        self.max_per_session = max_per_session
        self._sessions: dict[str, _SessionQueries] = {}
        self.evicted = 0

    def matches(self, session_id: str, key: str, threshold: float) -> list[SimilarityMatch]:
        """Earlier queries of the session within `threshold` distance of `key`, nearest first."""
        s = self._sessions.get(session_id)
        if s is None:
            return []
        sig = _core.minhash_signature(signed_text(key))
        found: dict[str, float] = {}
        for qid in s.index.query(sig):
            other, other_sig = s.queries[qid]
            d = 1.0 - _core.minhash_jaccard(sig, other_sig)
            if d <= threshold and d < found.get(other, 2.0):
                found[other] = d
        return [
            SimilarityMatch(node_id=k, distance=d)
            for k, d in sorted(found.items(), key=lambda kv: (kv[1], kv[0]))
        ]

    def add(self, session_id: str, key: str) -> None:
        s = self._sessions.get(session_id)
        if s is None:
            s = self._sessions[session_id] = _SessionQueries()
        if len(s.queries) >= self.max_per_session:
            old, _ = s.queries.popitem(last=False)
            s.index.remove(old)
            self.evicted += 1
            log.info(
                "session %s remembers %d queries: evicted the oldest (evicted so far: %d)",
                session_id,
                self.max_per_session,
                self.evicted,
            )
        sig = _core.minhash_signature(signed_text(key))
        s.index.insert(s.next_id, sig)
        s.queries[s.next_id] = (key, sig)
        s.next_id += 1

    def clear(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)

    def export(self) -> dict[str, Any]:
        return {
            "evicted": self.evicted,
            "sessions": {
                sid: [k for k, _ in s.queries.values()] for sid, s in self._sessions.items()
            },
        }

    @classmethod
    def from_export(cls, data: Mapping[str, Any]) -> SemanticMemory:
        mem = cls()
        for sid, keys in dict(data.get("sessions", {})).items():
            for k in keys:
                mem.add(sid, k)
        mem.evicted = int(data.get("evicted", 0))
        return mem
