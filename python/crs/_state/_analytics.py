"""Analytics records: which graph analytics ran, when, and what they found (seed GR-31).

An `AnalyticsDelta` stores a record in the CRS's bounded analytics history and writes
the `analytics:<type>:done` (and, with results, `analytics:<type>:found`) proof markers.
Records are frozen; the `with_*` builders return a new record.
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import threading
from typing import Any, Self

from crs._check import brief, items_of
from crs._errors import InvalidArgumentError
from crs._types import _Record

MAX_ANALYTICS_HISTORY_RECORDS: int = 100
"""Analytics records kept by a CRS; the oldest is dropped first."""
MAX_RESULTS_PER_RECORD: int = 50
"""Result ids kept per record; the rest are truncated when the record is stored."""

PROOF_KEY_ANALYTICS_HOTSPOTS_DONE = "analytics:hotspots:done"
PROOF_KEY_ANALYTICS_HOTSPOTS_FOUND = "analytics:hotspots:found"
PROOF_KEY_ANALYTICS_DEAD_CODE_DONE = "analytics:dead_code:done"
PROOF_KEY_ANALYTICS_DEAD_CODE_FOUND = "analytics:dead_code:found"
PROOF_KEY_ANALYTICS_CYCLES_DONE = "analytics:cycles:done"
PROOF_KEY_ANALYTICS_CYCLES_FOUND = "analytics:cycles:found"
PROOF_KEY_ANALYTICS_PATH_DONE = "analytics:path:done"
PROOF_KEY_ANALYTICS_PATH_FOUND = "analytics:path:found"
PROOF_KEY_ANALYTICS_COUPLING_DONE = "analytics:coupling:done"
PROOF_KEY_ANALYTICS_COUPLING_FOUND = "analytics:coupling:found"
PROOF_KEY_ANALYTICS_REFERENCES_DONE = "analytics:references:done"
PROOF_KEY_ANALYTICS_REFERENCES_FOUND = "analytics:references:found"


class AnalyticsQueryType(enum.StrEnum):
    """Kind of graph analytics query."""

    HOTSPOTS = "hotspots"
    DEAD_CODE = "dead_code"
    CYCLES = "cycles"
    PATH = "path"
    REFERENCES = "references"
    COUPLING = "coupling"

    def is_valid(self) -> bool:
        """True for every member (unknown strings never become members)."""
        return True


@dataclasses.dataclass(frozen=True, slots=True)
class AnalyticsQueryParams(_Record):
    """Typed parameters of an analytics query; only the fields relevant to its type are set."""

    limit: int = 0
    from_symbol: str = ""
    to_symbol: str = ""
    target_symbol: str = ""
    package_name: str = ""


_record_counter = itertools.count(1)


@dataclasses.dataclass(frozen=True, slots=True)
class AnalyticsRecord(_Record):
    """One analytics query and its results.

    `AnalyticsRecord(query_type, query_time, result_count, execution_ms)` gives the record a
    unique id `analytics-<type>-<query_time>-<n>` (the seed's `NewAnalyticsRecord`).
    """

    query_type: AnalyticsQueryType | str = ""
    query_time: int = 0
    result_count: int = 0
    execution_ms: int = 0
    id: str = ""
    graph_generation: int = 0
    params: AnalyticsQueryParams = dataclasses.field(default_factory=AnalyticsQueryParams)
    query_params: dict[str, Any] = dataclasses.field(default_factory=dict)
    results: tuple[str, ...] = ()
    cycles: tuple[tuple[str, ...], ...] = ()
    path: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.query_type, str):
            raise InvalidArgumentError(
                f"query_type: must be an AnalyticsQueryType or str, got {brief(self.query_type)}"
            )
        for name in ("query_time", "result_count", "execution_ms", "graph_generation"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidArgumentError(f"{name}: must be an int, got {brief(value)}")
        if self.query_type in AnalyticsQueryType.__members__.values():
            object.__setattr__(self, "query_type", AnalyticsQueryType(self.query_type))
        for name in ("results", "path"):
            object.__setattr__(self, name, items_of(getattr(self, name), name))
        cycles = items_of(self.cycles, "cycles")
        object.__setattr__(
            self, "cycles", tuple(items_of(c, f"cycles[{i}]") for i, c in enumerate(cycles))
        )
        if not self.id:
            n = next(_record_counter)
            object.__setattr__(self, "id", f"analytics-{self.query_type}-{self.query_time}-{n}")

    def _key(self, what: str) -> str:
        return f"analytics:{self.query_type}:{what}"

    def get_proof_done_key(self) -> str:
        """Proof key marking that this query type ran (`analytics:<type>:done`)."""
        return self._key("done")

    def get_proof_found_key(self) -> str:
        """Proof key marking that this query type found something (`analytics:<type>:found`)."""
        return self._key("found")

    def has_results(self) -> bool:
        """Cycles: any cycle; path: a non-empty path; other types: `result_count > 0`."""
        if self.query_type == AnalyticsQueryType.CYCLES:
            return len(self.cycles) > 0
        if self.query_type == AnalyticsQueryType.PATH:
            return len(self.path) > 0
        return self.result_count > 0

    def truncate_results(self) -> AnalyticsRecord:
        """A copy with at most `MAX_RESULTS_PER_RECORD` results."""
        if len(self.results) <= MAX_RESULTS_PER_RECORD:
            return self
        return dataclasses.replace(self, results=self.results[:MAX_RESULTS_PER_RECORD])

    def with_results(self, results: list[str] | tuple[str, ...]) -> AnalyticsRecord:
        return dataclasses.replace(self, results=tuple(results))

    def with_cycles(self, cycles: list[list[str]] | tuple[tuple[str, ...], ...]) -> AnalyticsRecord:
        return dataclasses.replace(self, cycles=tuple(tuple(c) for c in cycles))

    def with_path(self, path: list[str] | tuple[str, ...]) -> AnalyticsRecord:
        return dataclasses.replace(self, path=tuple(path))

    def with_graph_generation(self, gen: int) -> AnalyticsRecord:
        return dataclasses.replace(self, graph_generation=gen)

    def with_params(self, params: dict[str, Any]) -> AnalyticsRecord:
        """Deprecated untyped parameters (kept for old records); prefer `with_typed_params`."""
        return dataclasses.replace(self, query_params=dict(params))

    def with_typed_params(self, params: AnalyticsQueryParams) -> AnalyticsRecord:
        return dataclasses.replace(self, params=params)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        d = dict(data)
        d["cycles"] = [list(c) for c in d.get("cycles") or []]
        d["results"] = list(d.get("results") or [])
        d["path"] = list(d.get("path") or [])
        d["query_params"] = dict(d.get("query_params") or {})
        d["params"] = d.get("params") or {}
        return super(AnalyticsRecord, cls).from_dict(d)


class AnalyticsHistory:
    """Thread-safe ring buffer of the most recent analytics records."""

    def __init__(self, max_size: int = MAX_ANALYTICS_HISTORY_RECORDS) -> None:
        if not isinstance(max_size, int) or isinstance(max_size, bool):
            raise InvalidArgumentError(f"max_size: must be an int, got {brief(max_size)}")
        self._max = max_size if max_size > 0 else MAX_ANALYTICS_HISTORY_RECORDS
        self._records: list[AnalyticsRecord] = []
        self._lock = threading.Lock()

    def add(self, record: AnalyticsRecord) -> None:
        """Store `record`, dropping the oldest when full."""
        if not isinstance(record, AnalyticsRecord):
            raise InvalidArgumentError(f"record: must be an AnalyticsRecord, got {brief(record)}")
        with self._lock:
            self._records.append(record)
            if len(self._records) > self._max:
                del self._records[0]

    def all(self) -> list[AnalyticsRecord]:
        """Records oldest first."""
        with self._lock:
            return list(self._records)

    def get_last(self, query_type: AnalyticsQueryType | str) -> AnalyticsRecord | None:
        """The newest record of `query_type`, or None."""
        with self._lock:
            return _last_of(self._records, query_type)

    def has_run(self, query_type: AnalyticsQueryType | str) -> bool:
        return self.get_last(query_type) is not None

    def size(self) -> int:
        with self._lock:
            return len(self._records)


def _last_of(
    records: list[AnalyticsRecord] | tuple[AnalyticsRecord, ...], query_type: str
) -> AnalyticsRecord | None:
    if not isinstance(query_type, str):
        raise InvalidArgumentError(
            f"query_type: must be an AnalyticsQueryType or str, got {brief(query_type)}"
        )
    for rec in reversed(records):
        if rec.query_type == query_type:
            return rec
    return None
