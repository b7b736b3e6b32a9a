"""Prometheus metrics of the guard (`pip install 'crs-agent[prometheus]'`).

>>> from prometheus_client import CollectorRegistry, generate_latest
>>> from crs import Guard
>>> from crs.integrations.prometheus import GuardMetrics
>>> registry = CollectorRegistry()
>>> metrics = GuardMetrics(registry)
>>> guard = metrics.track(Guard())
>>> v = guard.before_call("read_file", {"path": "a.py"})
>>> b'crs_guard_verdicts_total{action="allow",code="ok",kind="before_call"} 1.0' in (
...     generate_latest(registry))
True

Metrics (names under `namespace`, default `crs`):

- `crs_guard_verdicts_total{kind, action, code}`: every decision (counter).
- `crs_guard_check_seconds{kind}`: how long the guard took to decide (histogram).
- `crs_guard_failures_learned_total`: failures learned (counter); with `track(guard)`,
  `crs_guard_learned_failures{session}` is what each tracked guard remembers now (gauge).
- `crs_guard_journal_bytes{session}`: live journal bytes of each tracked durable guard (gauge,
  read at scrape time).

Mount the registry as usual (`prometheus_client.start_http_server(port, registry=registry)` or
`make_asgi_app(registry)`); the default is prometheus_client's global `REGISTRY`.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from crs._errors import InvalidArgumentError
from crs.guard import Guard
from crs.guard._observe import GuardEvent

if TYPE_CHECKING:
    from prometheus_client.metrics_core import Metric

__all__ = ["DEFAULT_BUCKETS", "GuardMetrics"]

DEFAULT_BUCKETS: tuple[float, ...] = (
    5e-6,
    1e-5,
    2.5e-5,
    5e-5,
    1e-4,
    2.5e-4,
    5e-4,
    1e-3,
    2.5e-3,
    5e-3,
    1e-2,
    2.5e-2,
    0.1,
    1.0,
)
"""Check latency buckets (seconds): an in-memory check takes microseconds, a durable
`after_call` an fsync."""


def journal_bytes(guard: Guard) -> int | None:
    """Live journal bytes of the guard's engine, or None when it has no journal."""
    engine = guard.crs
    journal = getattr(engine, "_journal", None)
    stats = getattr(journal, "stats", None)
    if stats is None:
        return None
    return int(stats().total_bytes)


class _Tracked(Collector):
    """Scrape-time gauges of the tracked guards (weakly held: a dropped guard disappears)."""

    def __init__(self, namespace: str) -> None:
        self._namespace = namespace
        self._guards: weakref.WeakSet[Guard] = weakref.WeakSet()
        self._lock = threading.Lock()

    def add(self, guard: Guard) -> None:
        with self._lock:
            self._guards.add(guard)

    def collect(self) -> Iterator[Metric]:
        learned = GaugeMetricFamily(
            f"{self._namespace}_guard_learned_failures",
            "Failures the guard remembers now",
            labels=["session"],
        )
        journal = GaugeMetricFamily(
            f"{self._namespace}_guard_journal_bytes",
            "Live journal bytes of the guard's engine",
            labels=["session"],
        )
        with self._lock:
            guards = list(self._guards)
        for g in guards:
            try:
                n_learned = len(g.learned())
                n_bytes = journal_bytes(g)
            except Exception:  # a closed guard: nothing to report
                continue
            learned.add_metric([g.session_id], n_learned)
            if n_bytes is not None:
                journal.add_metric([g.session_id], n_bytes)
        yield learned
        yield journal

    def describe(self) -> Iterator[Metric]:
        # Describing without collecting keeps registration free of guard calls.
        yield GaugeMetricFamily(f"{self._namespace}_guard_learned_failures", "", labels=["session"])
        yield GaugeMetricFamily(f"{self._namespace}_guard_journal_bytes", "", labels=["session"])


class GuardMetrics:
    """A guard observer that counts verdicts, times checks and counts learned failures.

    Args:
        registry: Where the metrics are registered (default: prometheus_client's `REGISTRY`).
        namespace: Metric name prefix.
        buckets: Check latency histogram buckets, seconds.

    Use `metrics.track(guard)` (or `Guard(..., observers=[metrics])`); one `GuardMetrics`
    serves any number of guards.
    """

    def __init__(
        self,
        registry: CollectorRegistry | None = None,
        *,
        namespace: str = "crs",
        buckets: Sequence[float] = DEFAULT_BUCKETS,
    ) -> None:
        if registry is not None and not isinstance(registry, CollectorRegistry):
            raise InvalidArgumentError(
                f"registry: must be a prometheus_client CollectorRegistry, got {registry!r}"
            )
        if not isinstance(namespace, str) or not namespace.isidentifier():
            raise InvalidArgumentError(f"namespace: must be an identifier, got {namespace!r}")
        reg = REGISTRY if registry is None else registry
        self.registry = reg
        self.verdicts = Counter(
            "guard_verdicts",
            "Guard decisions by kind, action and code",
            ["kind", "action", "code"],
            namespace=namespace,
            registry=reg,
        )
        self.check_seconds = Histogram(
            "guard_check_seconds",
            "Time the guard took to decide",
            ["kind"],
            namespace=namespace,
            buckets=tuple(buckets),
            registry=reg,
        )
        self.learned_failures = Counter(
            "guard_failures_learned",
            "Failures the guard learned (each refused on an identical retry)",
            namespace=namespace,
            registry=reg,
        )
        self._tracked = _Tracked(namespace)
        reg.register(self._tracked)

    def __call__(self, event: GuardEvent) -> None:
        """The observer: one decision."""
        v = event.verdict
        self.verdicts.labels(str(event.kind), str(v.action), str(v.code)).inc()
        self.check_seconds.labels(str(event.kind)).observe(event.seconds)
        if event.learned is not None:
            self.learned_failures.inc()

    def track(self, guard: Guard) -> Guard:
        """Observe `guard` and report its scrape-time gauges; returns the guard."""
        if not isinstance(guard, Guard):
            raise InvalidArgumentError(f"guard: must be a crs.Guard, got {guard!r}")
        guard.add_observer(self)
        self._tracked.add(guard)
        return guard

    def __repr__(self) -> str:
        return f"<GuardMetrics tracked={len(self._tracked._guards)}>"
