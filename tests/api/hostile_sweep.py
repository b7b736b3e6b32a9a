"""A hostile-input sweep over the public API (issue 11): every call ends well or in a CRSError.

`sweep()` calls every public function, constructor and method it knows with one argument
replaced by each hostile value (None, bools, huge and negative ints, NaN, lone surrogates,
bytes, deep and cyclic containers, objects whose methods raise...) and the others good, and
counts the outcomes: returned, a typed `crs.CRSError`, or anything else (untyped: a bug).
Used by tests/api/test_hostile_sweep.py (bounded) and to quote counts in bench/RESULTS.md:

    python tests/api/hostile_sweep.py
"""

from __future__ import annotations

import collections
import inspect
import logging
import math
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

import crs
import crs.sessions


class _Raises:
    """An object every dunder of which raises (a hostile __eq__, __hash__, __len__...)."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"hostile attribute {name}")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("hostile __eq__")

    def __hash__(self) -> int:
        raise RuntimeError("hostile __hash__")

    def __repr__(self) -> str:
        raise RuntimeError("hostile __repr__")

    def __len__(self) -> int:
        raise RuntimeError("hostile __len__")

    def __iter__(self) -> Iterator[Any]:
        raise RuntimeError("hostile __iter__")


class _StrSub(str):
    pass


def _deep(n: int) -> list[Any]:
    out: list[Any] = []
    for _ in range(n):
        out = [out]
    return out


def _cyclic() -> dict[str, Any]:
    d: dict[str, Any] = {"a": 1}
    d["self"] = d
    return d


_HOSTILE: list[tuple[str, Any]] = []


def hostile_values() -> list[tuple[str, Any]]:
    """The hostile values, built once (a 100k-deep list is not cheap to make or free)."""
    if not _HOSTILE:
        _HOSTILE.extend(_make_hostile())
    return _HOSTILE


def _make_hostile() -> list[tuple[str, Any]]:
    return [
        ("None", None),
        ("True", True),
        ("-1", -1),
        ("0", 0),
        ("2**64", 2**64),
        ("-2**70", -(2**70)),
        ("1.5", 1.5),
        ("nan", math.nan),
        ("inf", math.inf),
        ("empty str", ""),
        ("surrogate", "a\ud800b"),
        ("nul", "a\x00b"),
        ("long str", "x" * 100_000),
        ("str subclass", _StrSub("grep")),
        ("bytes", b"bytes"),
        ("list", ["a", 1]),
        ("dict", {"a": [1]}),
        ("set", {1, 2}),
        ("deep list", _deep(100_000)),
        ("cyclic dict", _cyclic()),
        ("object", object()),
        ("raising object", _Raises()),
        ("function", len),
        ("type", int),
    ]


def _step(**kw: Any) -> crs.StepRecord:
    base: dict[str, Any] = {
        "session_id": "s1",
        "actor": "router",
        "decision": "execute_tool",
        "tool": "grep",
        "outcome": "success",
    }
    return crs.StepRecord(**{**base, **kw})


def good_values(tmp: str) -> dict[str, Any]:
    """A good value for each parameter name the public API uses."""
    pn = crs.ProofNumber(proof=3, disproof=4, status=crs.ProofStatus.EXPANDED)
    delta = crs.ProofDelta(crs.SignalSource.HARD, {"n1": pn})
    clause = crs.Clause(
        id="c1",
        literals=(crs.Literal(variable="tool:grep", negated=True),),
        source=crs.SignalSource.HARD,
    )
    return {
        "session_id": "s1",
        "sid": "s1",
        "tool": "grep",
        "tool_name": "grep",
        "node_id": "n1",
        "node": "n1",
        "start": "n1",
        "from_id": "n1",
        "to_id": "n2",
        "a": "n1",
        "b": "n2",
        "id1": "n1",
        "id2": "n2",
        "step": _step(),
        "steps": [_step()],
        "history": [_step()],
        "delta": delta,
        "deltas": delta,
        "update": crs.ProofUpdate(
            node_id="n1",
            type=crs.ProofUpdateType.INCREMENT,
            delta=1,
            source=crs.SignalSource.HARD,
        ),
        "clause": clause,
        "config": None,
        "event": crs.FailureEvent(
            session_id="s1",
            failure_type=crs.FailureType.TOOL_ERROR,
            source=crs.SignalSource.HARD,
            failed_step=_step(outcome="failure", error_category="internal"),
        ),
        "query": "find callers of parse",
        "text": "password=hunter22",
        "m": {"api_key": "x"},
        "state": "execute_tool:grep:success:router",
        "states": ["a", "b", "a"],
        "source": crs.SignalSource.HARD,
        "reason": "because",
        "distance": 0.5,
        "similarity": 0.5,
        "max_depth": 3,
        "n": 2,
        "limit": 3,
        "threshold": 0.5,
        "assignment": {"tool:grep": True},
        "metadata": {"k": "v"},
        "base": None,
        "snapshot": None,
        "checkpoint": None,
        "actor": "router",
        "outcome": "success",
        "path": os.path.join(tmp, "proj"),
        "project_path": os.path.join(tmp, "proj"),
        "root": tmp,
        "directory": tmp,
        "dir": tmp,
        "since": 0,
        "home": os.path.join(tmp, "home"),
        "journal": os.path.join(tmp, "journal"),
        "project_hash": "0123456789abcdef",
        "params": {"q": "x"},
        "name": "x",
        "key": "api_key",
        "value": "v",
        "d": delta.to_dict(),
        "export": {"session_id": "s", "generation": 1},
        "opts": None,
        "timeout": 1.0,
        "options": None,
        "entries": [crs.HistoryEntry(id="h1", node_id="n1")],
        "updates": {"n1": pn},
        "record": crs.AnalyticsRecord(),
        "patterns": ["zz"],
        "extra_patterns": ["zz"],
        "ts": 0,
        "timestamp": 0,
    }


Call = tuple[str, Callable[..., Any], inspect.Signature]


def _sig(fn: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


# Callables that touch the network, block, or spawn processes: not part of the sweep.
_SKIP = {
    "AsyncNATSJournal",
    "NATSJournal",
    "JournalFollower",
    "ReadReplica",
    "GraphRefreshCoordinator",
    "CRS.close",
    "CRS.open",  # a journal directory per hostile value; covered by open_project
}


def targets(
    tmp: str, skip_modules: tuple[str, ...] = ()
) -> Iterator[tuple[str, Callable[[], Any], Callable[..., Any]]]:
    """(name, factory of a fresh receiver or None, callable(receiver) -> the function)."""
    for name in crs.__all__:
        obj = getattr(crs, name)
        if name in _SKIP or (inspect.isclass(obj) and issubclass(obj, BaseException)):
            continue
        if any(name in getattr(sys.modules.get(m), "__all__", ()) for m in skip_modules):
            continue
        if inspect.isfunction(obj):
            yield name, lambda: None, lambda _r, o=obj: o
        elif inspect.isclass(obj) and not issubclass(obj, enum_types()):
            if getattr(obj, "_is_protocol", False) or inspect.isabstract(obj):
                continue
            yield name, lambda: None, lambda _r, o=obj: o
    receivers: dict[str, Callable[[], Any]] = {
        "CRS": crs.CRS,
        "CycleDetector": crs.CycleDetector,
        "SecretSanitizer": crs.SecretSanitizer,
        "TraceRecorder": crs.TraceRecorder,
        "TraceStepBuilder": crs.TraceStepBuilder,
        "Serializer": crs.Serializer,
        "Snapshot": lambda: crs.CRS().snapshot(),
        "ProofIndexView": lambda: crs.CRS().snapshot().proof_index(),
        "ConstraintIndexView": lambda: crs.CRS().snapshot().constraint_index(),
        "SimilarityIndexView": lambda: crs.CRS().snapshot().similarity_index(),
        "DependencyIndexView": lambda: crs.CRS().snapshot().dependency_index(),
        "HistoryIndexView": lambda: crs.CRS().snapshot().history_index(),
        "StreamingIndexView": lambda: crs.CRS().snapshot().streaming_index(),
        "MemoryJournal": crs.MemoryJournal,
        "InMemoryGraph": crs.InMemoryGraph,
        "DeltaHistoryWorker": crs.DeltaHistoryWorker,
    }
    for rname, make in receivers.items():
        sample = make()
        for mname in dir(sample):
            if mname.startswith("_") or f"{rname}.{mname}" in _SKIP:
                continue
            attr = getattr(sample, mname, None)
            if not callable(attr) or inspect.isclass(attr):
                continue
            yield f"{rname}.{mname}", make, lambda r, m=mname: getattr(r, m)


def enum_types() -> tuple[type, ...]:
    import enum

    return (enum.Enum,)


def calls(tmp: str, skip_modules: tuple[str, ...] = ()) -> Iterator[tuple[str, Callable[[], Any]]]:
    """Every (label, thunk) of the sweep: one hostile argument at a time."""
    good = good_values(tmp)
    for name, make, get in targets(tmp, skip_modules):
        probe = get(make())
        sig = _sig(probe)
        if sig is None:
            continue
        params = [
            p
            for p in sig.parameters.values()
            if p.kind
            in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY, p.VAR_POSITIONAL)
        ]
        for i, p in enumerate(params):
            for hname, hvalue in hostile_values():

                def thunk(
                    make: Callable[[], Any] = make,
                    get: Callable[..., Any] = get,
                    i: int = i,
                    hvalue: Any = hvalue,
                    params: list[inspect.Parameter] = params,
                ) -> Any:
                    args: list[Any] = []
                    kwargs: dict[str, Any] = {}
                    for j, q in enumerate(params):
                        if j == i:
                            v = hvalue
                        elif q.name in good:
                            v = good[q.name]
                        elif q.default is not q.empty or q.kind is q.VAR_POSITIONAL:
                            continue
                        else:
                            v = "x"
                        if q.kind in (q.POSITIONAL_ONLY, q.VAR_POSITIONAL):
                            args.append(v)
                        else:
                            kwargs[q.name] = v
                    return get(make())(*args, **kwargs)

                yield f"{name}({p.name}={hname})", thunk


def sweep(
    stride: int = 1, skip_modules: tuple[str, ...] = ()
) -> tuple[collections.Counter[str], list[str]]:
    """Run the sweep (every `stride`-th call, leaving out public names defined in
    `skip_modules`); returns (outcome counts, one line per untyped error)."""
    counts: collections.Counter[str] = collections.Counter()
    untyped: list[str] = []
    old = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CRS_HOME"] = os.path.join(tmp, "home")
        os.chdir(tmp)
        logging.disable(logging.CRITICAL)  # hostile values logged thousands of times: noise
        try:
            for k, (label, thunk) in enumerate(calls(tmp, skip_modules)):
                if k % stride:
                    continue
                try:
                    result = thunk()
                    if hasattr(result, "close") and isinstance(result, crs.CRS | crs.Journal):
                        result.close()
                    counts["returned"] += 1
                except crs.CRSError:
                    counts["typed CRSError"] += 1
                except (KeyboardInterrupt, SystemExit):
                    raise
                except BaseException as exc:
                    if isinstance(exc, RuntimeError) and str(exc).startswith("hostile "):
                        # The argument's own method raised (its __eq__, __getattr__...): that
                        # is the caller's exception, propagated unchanged as Python does.
                        counts["raised by the argument itself"] += 1
                        continue
                    counts["untyped"] += 1
                    counts[f"untyped {type(exc).__name__}"] += 1
                    untyped.append(f"{label}: {type(exc).__name__}: {crs._check.brief(str(exc))}")
        finally:
            logging.disable(logging.NOTSET)
            os.chdir(old)
    kinds = ("returned", "typed CRSError", "untyped", "raised by the argument itself")
    counts["calls"] = sum(v for k, v in counts.items() if k in kinds)
    return counts, untyped


if __name__ == "__main__":
    sys.setrecursionlimit(10_000)
    c, bad = sweep()
    for line in bad:
        print(line)
    print(dict(c))
