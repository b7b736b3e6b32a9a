"""The crs half of the labelled loop benchmark (bench/loops, issue 12) as a CI gate: on every
trajectory `crs.Guard` with its defaults catches at least 90% of the loops, raises no false
alarm on the legitimate trajectories (none is accepted, see below) and never flags a loop
before its repetition has fully happened once. The peers' half runs in `bench/loops/run.py`
(it needs their own venv)."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

RECALL_FLOOR = 0.90
FALSE_ALARMS_CEILING = 0
EARLY_CEILING = 0
# False alarms measured and accepted, by id (none since fresh4: the one left standing after
# fresh3, f3-validator-validate-fix-loop, a CI status polled with no wait, passes since a
# call whose answer moved with the workspace unchanged and that names no workspace path is
# treated as watching something outside, docs/guard-api.md). Any false alarm fails.
ACCEPTED_FALSE_ALARMS: frozenset[str] = frozenset()
# Loops caught (on time) per split, at least: a rule change may catch more, never fewer, and
# each split keeps 0 false alarms. fresh5 was measured at 21/24 caught, 1/22 false alarms
# before its rules were fixed (bench/RESULTS.md, "fresh5"); fresh6 at 16/23 and 0/23 (18/23
# with two cycle labels corrected, bench/loops/README.md), 22/23 after (bench/RESULTS.md,
# "fresh6"); fresh7 at 23/24 and 2/25 (ab70a92), 23/24 and 0/25 after (bench/RESULTS.md,
# "fresh7 (helper)"); fresh6 23/23 and fresh7 24/24 with duplicate creates
# (bench/RESULTS.md, "creates (helper)"); fresh8 at 22/25 and 2/22 (260c571, main
# 7dae68d's guard), 24/25 and 0/22 after (bench/RESULTS.md, "fresh8"); fresh9 at 21/23, 1/25
# and 1 early (d219a80, main dbdd815's guard), 23/23 and 0/25 after (bench/RESULTS.md,
# "fresh9 (helper)"); fresh10 at 17/22 and 1/26 (3ffdc02, main c98f6dd's guard), 20/22 and
# 0/26 after (bench/RESULTS.md, "fresh10 (helper)");
# fresh11 at 24/27 and 2/24 (4dbcec5, main d1e729e's guard), 25/27 and
# 0/24 after (bench/RESULTS.md, "fresh11 (helper)"); fresh12 at 19/28 and 0/22 (7521f99,
# main 17166de's guard), 20/28 and 0/22 after (bench/RESULTS.md, "fresh12 (helper)");
# fresh13 at 20/21 (one late) and 0/19 (7584b23, main d7b91df's guard), 21/21 and 0/19
# after (bench/RESULTS.md, "fresh13 (helper)"); fresh14 at 16/17 and 0/15 (e522efe, main
# cacd776's guard), 17/17 and 0/15 after (bench/RESULTS.md, "fresh14 (helper)"); fresh15 at
# 19/23 (one early, one late) and 0/21 (07a6e6b, main 8d341fb's guard; 20/23 with the early
# flag's label corrected, bench/loops/README.md), 21/23 and 0/21 after (bench/RESULTS.md,
# "fresh15 (helper)"); fresh16 at 17/24 (one late) and 0/22 (f35ba1f, main d683114's guard,
# no rule changed; bench/loops/README.md, "fresh16"); fresh17 at 15/18 and 0/19 (5abc2ea,
# main d5bc5c3's guard, no rule changed; bench/loops/README.md, "fresh17"); fresh18 at 20/23 and
# 0/26 (02965fb, main 913a198's guard, no rule changed; bench/loops/README.md, "fresh18");
# fresh19 at 20/28 (one early, one late) and 0/22 (20c37ae, main 913a198's guard, no rule
# changed; 21/28 with the early flag's label corrected, bench/loops/README.md, "fresh19"),
# fresh18 21/23 and fresh19 24/28, 0 false alarms, after (docs/guard-api.md, "Held-out
# splits fresh18 and fresh19").
# fresh20 at 20/27 and 1/22 (2603118, main a0f1cde's guard, no rule changed;
# bench/loops/README.md, "fresh20"), 25/27 and 0/22 after (docs/guard-api.md, "Held-out
# split fresh20"); fresh21 at 18/23 and 0/22, none early or late (a01232f, main d907b5d's
# guard, no rule changed; bench/loops/README.md, "fresh21"), 19/23 after (docs/guard-api.md,
# "Held-out split fresh21"); fresh22 at 19/26 and 0/23, none early, two late (9b4dd60, main
# fde87d3's guard, no rule changed; bench/loops/README.md, "fresh22"). A canned reply to new
# requests (docs/guard-api.md, "A canned reply", session 15): fresh17 18/18, fresh19 25/28,
# fresh21 20/23; fresh22 22/26 after its rules (docs/guard-api.md, "Held-out split fresh22").
# fresh23 at 19/23 and 1/22, one early, none late (b190275, main bf8464d's guard, no rule
# changed; bench/loops/README.md, "fresh23"); the early flag's label corrected at the merge by
# the file's error rule (20/23), 21/23 and 0/22 after its rules (docs/guard-api.md,
# "Held-out split fresh23").
# fresh24 at 18/21 and 1/23, none early or late (6b38748, main 3df9569's guard, no rule
# changed; bench/loops/README.md, "fresh24"), 19/21 and 0/23 after its rules
# (docs/guard-api.md, "Held-out split fresh24").
# fresh25 at 18/18 and 1/24, none early or late (eb3fd66, main d44db93's guard, no rule
# changed; bench/loops/README.md, "fresh25"), 0/24 after its rule (docs/guard-api.md,
# "Held-out split fresh25").
# fresh26 at 17/19 and 0/21, none early or late (04163b6, main e563cd8's guard, no rule
# changed; bench/loops/README.md, "fresh26").
# fresh27 at 13/16 and 3/16, none early or late (e8b82a7, main bf48886's guard, no rule
# changed; bench/loops/README.md, "fresh27"), 15/16 and 0/16 after its rules
# (docs/guard-api.md, "Held-out split fresh27").
CAUGHT_AT_LEAST = {
    "dev": 30,
    "holdout": 16,
    "fresh": 22,
    "fresh2": 22,
    "fresh3": 27,
    "fresh4": 24,
    "fresh5": 24,
    "fresh6": 23,
    "fresh7": 24,
    "fresh8": 24,
    "fresh9": 23,
    "fresh10": 20,
    "fresh11": 25,
    "fresh12": 20,
    "fresh13": 21,
    "fresh14": 17,
    "fresh15": 21,
    "fresh16": 21,
    "fresh17": 18,
    "fresh18": 21,
    "fresh19": 25,
    "fresh20": 25,
    "fresh21": 20,
    "fresh22": 22,
    "fresh23": 21,
    "fresh24": 19,
    "fresh25": 18,
    "fresh26": 17,
    "fresh27": 15,
}


def load_loopbench() -> ModuleType:
    name = "loopbench"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "loops" / "loopbench.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


lb = load_loopbench()


@pytest.fixture(scope="module")
def outcomes() -> list[Any]:
    trajs = lb.load()
    t0 = time.perf_counter()
    flags = lb.run_crs(trajs)
    elapsed = time.perf_counter() - t0
    assert elapsed < 60, f"the crs half took {elapsed:.1f} s"
    result: list[Any] = lb.outcomes_for(trajs, flags)
    return result


def _ids(outs: list[Any], verdict: str) -> list[str]:
    return [f"{o.id} ({o.split}, step {o.flag})" for o in outs if o.verdict == verdict]


def test_every_split_is_scored(outcomes: list[Any]) -> None:
    """The two numbers below cover every split of the data, the newest included."""
    assert {o.split for o in outcomes} == set(lb.SPLIT_ORDER)


def test_recall(outcomes: list[Any]) -> None:
    s = lb.score(outcomes)
    missed = _ids(outcomes, "missed") + _ids(outcomes, "late") + _ids(outcomes, "early")
    assert s.recall >= RECALL_FLOOR, f"caught {s.caught}/{s.loops}; not caught: {missed}"


def test_no_false_alarm(outcomes: list[Any]) -> None:
    rest = [o for o in outcomes if o.id not in ACCEPTED_FALSE_ALARMS]
    s = lb.score(rest)
    assert s.false_alarms <= FALSE_ALARMS_CEILING, _ids(rest, "false_alarm")
    assert {o.id for o in outcomes if not o.loop} >= ACCEPTED_FALSE_ALARMS


def test_no_loop_flagged_before_it_repeated(outcomes: list[Any]) -> None:
    s = lb.score(outcomes)
    assert s.early <= EARLY_CEILING, _ids(outcomes, "early")


def test_every_split_keeps_its_catches_and_no_false_alarm(outcomes: list[Any]) -> None:
    assert set(CAUGHT_AT_LEAST) == set(lb.SPLIT_ORDER)
    for split, floor in CAUGHT_AT_LEAST.items():
        outs = [o for o in outcomes if o.split == split]
        s = lb.score(outs)
        assert s.caught >= floor, (split, s.caught, _ids(outs, "missed") + _ids(outs, "late"))
        rest = [o for o in outs if o.id not in ACCEPTED_FALSE_ALARMS]
        assert lb.score(rest).false_alarms == 0, (split, _ids(rest, "false_alarm"))
