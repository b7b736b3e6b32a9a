"""What the guard tells the world about each decision: the `crs.guard` log and observers.

Every decision of `Guard.before_call`, `after_call` and `on_message` becomes one `GuardEvent`.
Verdicts other than ALLOW are logged on the `crs.guard` logger with the code, tool, session and
step as structured `extra` fields; every event goes to the guard's observers (plain callables,
e.g. `crs.integrations.prometheus.GuardMetrics`, `crs.integrations.otel.GuardTracer`), shared by
every session of the engine (`Guard.with_session`). An observer that raises is logged and
skipped: observing never changes a verdict or breaks a tool call.
"""

from __future__ import annotations

import enum
import functools
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from crs._check import brief
from crs._errors import InvalidArgumentError
from crs.guard._verdict import Action, Call, LearnedFailure, Verdict

logger = logging.getLogger("crs.guard")
# A library leaves output to the application: without a configured handler, nothing is printed
# (no "last resort" lines on stderr); with one, every non-ALLOW verdict arrives there.
logger.addHandler(logging.NullHandler())

_F = TypeVar("_F", bound=Callable[..., Any])
_LEVELS = {Action.NUDGE: logging.INFO, Action.BLOCK: logging.WARNING, Action.STOP: logging.WARNING}


class GuardEventKind(enum.StrEnum):
    """Which decision an event reports."""

    BEFORE_CALL = "before_call"  # a call about to run: allow, nudge, block or stop
    AFTER_CALL = "after_call"  # a finished call recorded: allow, nudge or stop
    MESSAGE = "message"  # an agent turn without a tool call (monologue check)


@dataclass(frozen=True, slots=True)
class GuardEvent:
    """One decision of the guard, as its observers see it."""

    kind: GuardEventKind
    verdict: Verdict
    session_id: str
    tool: str | None  # None for a message
    call_id: str | None
    step: int | None
    seconds: float  # wall time the guard took to decide (perf_counter)
    error: str | None = None  # after_call: the call's error, shortened
    learned: LearnedFailure | None = None  # after_call: the failure this call taught the guard

    @property
    def call(self) -> Call | None:
        return self.verdict.call


GuardObserver = Callable[[GuardEvent], None]
"""An observer: called once per decision, in the deciding thread; keep it fast."""


class Observers:
    """The observers of one engine's guards (shared by `with_session`); thread-safe."""

    __slots__ = ("_items", "_lock")

    def __init__(self, observers: Iterable[GuardObserver] = ()) -> None:
        self._lock = threading.Lock()
        self._items: tuple[GuardObserver, ...] = ()
        if isinstance(observers, str | bytes) or not isinstance(observers, Iterable):
            raise InvalidArgumentError(
                f"observers: must be an iterable of callables, got {type(observers).__name__}"
            )
        for fn in observers:
            self.add(fn)

    def add(self, fn: GuardObserver) -> None:
        if not callable(fn):
            raise InvalidArgumentError(f"observer: must be callable, got {brief(fn)}")
        with self._lock:
            if fn not in self._items:
                self._items = (*self._items, fn)

    def remove(self, fn: GuardObserver) -> bool:
        with self._lock:
            if fn not in self._items:
                return False
            self._items = tuple(o for o in self._items if o is not fn and o != fn)
            return True

    def __iter__(self) -> Iterator[GuardObserver]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def _handled(log: logging.Logger) -> bool:
    """Whether a record of `log` reaches anything: a filter of its own, or a handler other
    than a `NullHandler` on it or an ancestor it propagates to. (Without one, as when the
    application configured no logging, building a record costs about 10 us and goes
    nowhere; the `NullHandler` above means `logging.lastResort` never prints either.)"""
    if log.filters:
        return True
    found = False
    c: logging.Logger | None = log
    while c is not None:
        for h in c.handlers:
            if type(h) is not logging.NullHandler:
                return True
            found = True
        if not c.propagate:
            break
        c = c.parent
    # no handler at all (the NullHandler removed): logging's last resort prints the record
    return not found and logging.lastResort is not None


def _emit(event: GuardEvent, observers: Observers) -> None:
    v = event.verdict
    level = _LEVELS.get(v.action, 0)
    if level and logger.isEnabledFor(level):
        # `logger.log` without its search of the stack for the caller (a third of a
        # record's cost): the record names this function, as the search would.
        logger.handle(
            logger.makeRecord(
                logger.name,
                level,
                __file__,
                _EMIT_LINE,
                "%s %s (%s) on %s: %s",
                (event.kind, v.action, v.code, event.tool or "message", v.reason),
                None,
                "_emit",
                {
                    "action": str(v.action),
                    "code": str(v.code),
                    "tool": event.tool,
                    "session": event.session_id,
                    "step": event.step,
                    "call_id": event.call_id,
                    "kind": str(event.kind),
                    "evidence": list(v.evidence),
                },
            )
        )
    if event.learned is not None and logger.isEnabledFor(logging.INFO):
        f = event.learned
        logger.info(
            "learned failure %s of %s: %s",
            f.id,
            f.tool,
            f.error,
            extra={
                "code": "learned_failure",
                "tool": f.tool,
                "session": f.session_id,
                "step": f.step,
                "failure_id": f.id,
            },
        )
    for fn in observers:
        try:
            fn(event)
        except Exception:
            logger.exception("guard observer %r failed; skipped", fn)


_EMIT_LINE = _emit.__code__.co_firstlineno


def notify(
    guard: Any, kind: GuardEventKind, v: Verdict, seconds: float, err: BaseException | str | None
) -> None:
    """Log and observe one decision of `guard` (its `_observers`), unless nothing would see
    it: an ALLOW without an error, or no observer and no log record that reaches a handler.
    (`Guard.before_call` and `after_call` call this inline; `observed` wraps the rest.)"""
    observers: Observers = guard._observers
    if not observers._items:
        if v.action is Action.ALLOW and err is None:
            return  # the common case
        if not _handled(logger):
            return  # the records would go nowhere, and there is no observer
    call = v.call
    error: str | None = None
    learned: LearnedFailure | None = None
    if err is not None:
        # What observers export (a span's status, a metric's label) is sanitized as the
        # journal's error is: a tool's error text often quotes the credential it refused.
        error = _short(_sanitize(_error_text(err)))
        if call is not None and (observers._items or logger.isEnabledFor(logging.INFO)):
            learned = next(
                (
                    f
                    for f in guard.learned()
                    if f.signature == call.signature
                    and f.session_id == call.session_id
                    and f.step == call.step
                ),
                None,
            )
    _emit(
        GuardEvent(
            kind=kind,
            verdict=v,
            session_id=guard.session_id,
            tool=None if call is None else call.tool,
            call_id=None if call is None else call.call_id,
            step=None if call is None else call.step,
            seconds=seconds,
            error=error,
            learned=learned,
        ),
        observers,
    )


def _sanitize(text: str) -> str:
    # inside: `import crs.guard` stays cheap; an error to report means a Guard exists
    from crs.guard._canon import sanitizer

    return sanitizer().sanitize(text)


def _error_text(err: BaseException | str) -> str:
    """The call's error as the journal has it (`_canon.error_text`), or its type when that
    refuses it (an argument error the guard's `after_call` raised already)."""
    # inside: as above
    from crs.guard._canon import error_text

    try:
        return error_text(err)
    except InvalidArgumentError:
        return f"<{type(err).__name__} error>"


def _short(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def observed(kind: GuardEventKind) -> Callable[[_F], _F]:
    """Decorate a `Guard` decision method so its verdict is timed, logged and observed."""

    def deco(method: _F) -> _F:
        after = kind is GuardEventKind.AFTER_CALL
        allow = Action.ALLOW  # (an enum member read through its class costs ~0.2 us)

        @functools.wraps(method)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Verdict:
            observers: Observers = self._observers
            if not observers._items:
                # Nothing observes: only a verdict other than ALLOW (or a failed call) is
                # logged, and a log line carries no latency, so nothing is timed.
                v: Verdict = method(self, *args, **kwargs)
                seconds = 0.0
            else:
                t0 = time.perf_counter()
                v = method(self, *args, **kwargs)
                seconds = time.perf_counter() - t0
            err = None
            if after:
                err = kwargs.get("error", args[2] if len(args) > 2 else None)
            if v.action is allow and err is None and not observers._items:
                return v  # the common case
            notify(self, kind, v, seconds, err)
            return v

        return wrapper  # type: ignore[return-value]

    return deco
