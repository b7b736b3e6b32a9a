"""The `Evaluable` protocol (the seed's `eval.Evaluable`) and what it reports.

A component that can be evaluated names itself, runs its invariants (`properties()`), reports
its current measurements (`metrics()`) and checks its own health (`health_check()`). `CRS`
implements it; a user can implement it on their own components and evaluate them the same way
(spec README §5 item 14). Every result is a small frozen dataclass.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Protocol, runtime_checkable


class MetricKind(enum.StrEnum):
    """What a metric measures."""

    COUNTER = "counter"  # only grows (events counted)
    GAUGE = "gauge"  # a current value that can go up and down
    TIMER = "timer"  # durations: count, total and maximum, in seconds


class HealthState(enum.IntEnum):
    """How healthy a component (or one of its checks) is; higher is worse."""

    HEALTHY = 0  # within every bound
    DEGRADED = 1  # working, but a bound is reached or durability is reduced
    UNHEALTHY = 2  # a check failed (e.g. the journal is unavailable)


@dataclasses.dataclass(frozen=True, slots=True)
class PropertyResult:
    """The outcome of checking one invariant against the live component."""

    name: str = ""
    description: str = ""
    passed: bool = False
    detail: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class Metric:
    """One measurement. For a `TIMER`, `value` is the mean duration in seconds, and
    `count`/`total`/`maximum` describe every recorded duration; for the others `value` is
    the current figure."""

    name: str = ""
    kind: MetricKind = MetricKind.GAUGE
    description: str = ""
    unit: str = ""
    value: float = 0.0
    count: int = 0
    total: float = 0.0
    maximum: float = 0.0


@dataclasses.dataclass(frozen=True, slots=True)
class HealthCheck:
    """One health check: a bounded index (`used` of `limit`; limit 0 = unbounded) or a
    resource such as the journal."""

    name: str = ""
    state: HealthState = HealthState.HEALTHY
    message: str = ""
    used: int = 0
    limit: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class HealthStatus:
    """The overall health: the worst state of its checks."""

    state: HealthState = HealthState.HEALTHY
    checks: tuple[HealthCheck, ...] = ()

    @property
    def healthy(self) -> bool:
        """True when every check is `HEALTHY`."""
        return self.state is HealthState.HEALTHY

    @classmethod
    def of(cls, checks: tuple[HealthCheck, ...]) -> HealthStatus:
        """The status whose state is the worst of `checks` (HEALTHY when there are none)."""
        worst = max((c.state for c in checks), default=HealthState.HEALTHY)
        return cls(HealthState(worst), checks)


@runtime_checkable
class Evaluable(Protocol):
    """A component that can be evaluated (the seed's `eval.Evaluable`)."""

    def name(self) -> str:
        """A short, stable name of the component."""
        ...

    def properties(self) -> list[PropertyResult]:
        """Check the component's invariants now; one result per property."""
        ...

    def metrics(self) -> list[Metric]:
        """The component's current measurements."""
        ...

    def health_check(self) -> HealthStatus:
        """Check the component's bounds and resources."""
        ...


def bound_check(name: str, used: int, limit: int, what: str) -> HealthCheck:
    """`used` of `limit` `what`: DEGRADED once the bound is reached (the oldest are then
    evicted), HEALTHY below it or when unbounded (limit 0)."""
    if limit > 0 and used >= limit:
        return HealthCheck(
            name,
            HealthState.DEGRADED,
            f"{used} of {limit} {what}: at the cap, the oldest are evicted",
            used,
            limit,
        )
    cap = f"of {limit} " if limit > 0 else "(unbounded) "
    return HealthCheck(name, HealthState.HEALTHY, f"{used} {cap}{what}", used, limit)
