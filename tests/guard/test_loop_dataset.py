"""The labelled loop benchmark's data (bench/loops/trajectories.jsonl) is well formed, and
its scoring means what bench/loops/README.md says."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EVENT_TYPES = {"call", "message", "user", "session", "workspace"}
ERROR_KINDS = {
    "timeout",
    "rate_limit",
    "server_error",
    "network",
    "exit_code",
    "not_found",
    "invalid_args",
    "permission",
    "syntax",
}
LOOP_CLASSES = {
    "repeated_call",
    "cycle",
    "error_loop",
    "no_progress",
    "known_failure",
    "monologue",
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
TRAJS: list[dict[str, Any]] = lb.load()


def test_size_and_balance() -> None:
    loops = [t for t in TRAJS if t["loop"]]
    legit = [t for t in TRAJS if not t["loop"]]
    assert len(TRAJS) >= 60
    assert len(legit) >= 25
    assert {t["class"] for t in loops} == LOOP_CLASSES
    first = [t for t in TRAJS if t["split"] in {"dev", "holdout"}]
    holdout = sum(t["split"] == "holdout" for t in first) / len(first)
    assert 0.25 <= holdout <= 0.4
    assert sum(t["split"] == "fresh" and t["loop"] for t in TRAJS) >= 15
    fresh2 = [t for t in TRAJS if t["split"] == "fresh2"]
    assert len(fresh2) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh2) / len(fresh2) <= 0.6
    fresh3 = [t for t in TRAJS if t["split"] == "fresh3"]
    assert len(fresh3) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh3) / len(fresh3) <= 0.6
    fresh4 = [t for t in TRAJS if t["split"] == "fresh4"]
    assert len(fresh4) >= 45
    assert 0.4 <= sum(not t["loop"] for t in fresh4) / len(fresh4) <= 0.6
    assert {t["class"] for t in fresh4 if t["loop"]} == LOOP_CLASSES
    assert sum(t["class"] == "long_productive" for t in fresh4) >= 3
    fresh5 = [t for t in TRAJS if t["split"] == "fresh5"]
    assert len(fresh5) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh5) / len(fresh5) <= 0.6
    assert {t["class"] for t in fresh5 if t["loop"]} == LOOP_CLASSES
    fresh6 = [t for t in TRAJS if t["split"] == "fresh6"]
    assert len(fresh6) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh6) / len(fresh6) <= 0.6
    assert {t["class"] for t in fresh6 if t["loop"]} == LOOP_CLASSES
    assert sum(t["class"] == "long_productive" for t in fresh6) >= 2
    fresh7 = [t for t in TRAJS if t["split"] == "fresh7"]
    assert len(fresh7) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh7) / len(fresh7) <= 0.6
    assert {t["class"] for t in fresh7 if t["loop"]} == LOOP_CLASSES
    assert sum(t["class"] == "long_productive" for t in fresh7) >= 2
    fresh10 = [t for t in TRAJS if t["split"] == "fresh10"]
    assert len(fresh10) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh10) / len(fresh10) <= 0.6
    assert {t["class"] for t in fresh10 if t["loop"]} == LOOP_CLASSES
    assert sum(t["class"] == "long_productive" for t in fresh10) >= 2
    fresh12 = [t for t in TRAJS if t["split"] == "fresh12"]
    assert len(fresh12) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh12) / len(fresh12) <= 0.6
    assert all(t["id"].startswith("f12-") for t in fresh12)
    fresh13 = [t for t in TRAJS if t["split"] == "fresh13"]
    assert len(fresh13) >= 35
    assert 0.4 <= sum(not t["loop"] for t in fresh13) / len(fresh13) <= 0.6
    assert all(t["id"].startswith("f13-") for t in fresh13)
    fresh14 = [t for t in TRAJS if t["split"] == "fresh14"]
    assert len(fresh14) >= 30
    assert 0.4 <= sum(not t["loop"] for t in fresh14) / len(fresh14) <= 0.6
    assert all(t["id"].startswith("f14-") for t in fresh14)
    fresh15 = [t for t in TRAJS if t["split"] == "fresh15"]
    assert len(fresh15) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh15) / len(fresh15) <= 0.6
    assert all(t["id"].startswith("f15-") for t in fresh15)
    assert {t["class"] for t in fresh15 if t["loop"]} == LOOP_CLASSES
    fresh16 = [t for t in TRAJS if t["split"] == "fresh16"]
    assert len(fresh16) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh16) / len(fresh16) <= 0.6
    assert all(t["id"].startswith("f16-") for t in fresh16)
    assert {t["class"] for t in fresh16 if t["loop"]} == LOOP_CLASSES
    fresh17 = [t for t in TRAJS if t["split"] == "fresh17"]
    assert len(fresh17) >= 36
    assert 0.4 <= sum(not t["loop"] for t in fresh17) / len(fresh17) <= 0.6
    assert all(t["id"].startswith("f17-") for t in fresh17)
    assert {t["class"] for t in fresh17 if t["loop"]} == LOOP_CLASSES
    fresh20 = [t for t in TRAJS if t["split"] == "fresh20"]
    assert len(fresh20) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh20) / len(fresh20) <= 0.6
    assert all(t["id"].startswith("f20-") for t in fresh20)
    assert {t["class"] for t in fresh20 if t["loop"]} == LOOP_CLASSES
    legit20 = {t["class"] for t in fresh20 if not t["loop"]}
    assert sum(t["class"] == "long_productive" for t in fresh20) >= 2
    assert legit20 == {
        "polling",
        "distinct_reads",
        "retry_transient",
        "edit_test_cycle",
        "session_memory",
        "conversation",
        "research",
        "long_productive",
    }
    fresh21 = [t for t in TRAJS if t["split"] == "fresh21"]
    assert len(fresh21) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh21) / len(fresh21) <= 0.6
    assert all(t["id"].startswith("f21-") for t in fresh21)
    assert {t["class"] for t in fresh21 if t["loop"]} == LOOP_CLASSES
    assert sum(t["class"] == "long_productive" for t in fresh21) >= 2
    assert {t["class"] for t in fresh21 if not t["loop"]} == legit20
    fresh22 = [t for t in TRAJS if t["split"] == "fresh22"]
    assert len(fresh22) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh22) / len(fresh22) <= 0.6
    assert all(t["id"].startswith("f22-") for t in fresh22)
    assert {t["class"] for t in fresh22 if t["loop"]} == LOOP_CLASSES
    assert sum(t["class"] == "long_productive" for t in fresh22) >= 2
    assert {t["class"] for t in fresh22 if not t["loop"]} == legit20
    fresh23 = [t for t in TRAJS if t["split"] == "fresh23"]
    assert len(fresh23) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh23) / len(fresh23) <= 0.6
    assert all(t["id"].startswith("f23-") for t in fresh23)
    assert {t["class"] for t in fresh23 if t["loop"]} == LOOP_CLASSES
    assert sum(t["class"] == "long_productive" for t in fresh23) >= 2
    assert {t["class"] for t in fresh23 if not t["loop"]} == legit20
    fresh24 = [t for t in TRAJS if t["split"] == "fresh24"]
    assert len(fresh24) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh24) / len(fresh24) <= 0.6
    assert all(t["id"].startswith("f24-") for t in fresh24)
    assert {t["class"] for t in fresh24 if t["loop"]} == LOOP_CLASSES
    assert sum(t["class"] == "long_productive" for t in fresh24) >= 2
    assert {t["class"] for t in fresh24 if not t["loop"]} == legit20
    fresh25 = [t for t in TRAJS if t["split"] == "fresh25"]
    assert len(fresh25) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh25) / len(fresh25) <= 0.6
    assert all(t["id"].startswith("f25-") for t in fresh25)
    assert {t["class"] for t in fresh25 if t["loop"]} == LOOP_CLASSES
    assert sum(t["class"] == "long_productive" for t in fresh25) >= 2
    assert {t["class"] for t in fresh25 if not t["loop"]} == legit20
    fresh26 = [t for t in TRAJS if t["split"] == "fresh26"]
    assert len(fresh26) >= 40
    assert 0.4 <= sum(not t["loop"] for t in fresh26) / len(fresh26) <= 0.6
    assert all(t["id"].startswith("f26-") for t in fresh26)
    assert {t["class"] for t in fresh26 if t["loop"]} == LOOP_CLASSES
    assert sum(t["class"] == "long_productive" for t in fresh26) >= 2
    assert {t["class"] for t in fresh26 if not t["loop"]} == legit20
    fresh27 = [t for t in TRAJS if t["split"] == "fresh27"]
    assert len(fresh27) >= 30
    assert 0.4 <= sum(not t["loop"] for t in fresh27) / len(fresh27) <= 0.6
    assert all(t["id"].startswith("f27-") for t in fresh27)
    assert {t["class"] for t in fresh27 if t["loop"]} == LOOP_CLASSES
    assert sum(t["class"] == "long_productive" for t in fresh27) >= 2
    assert {t["class"] for t in fresh27 if not t["loop"]} == legit20
    assert len({t["id"] for t in TRAJS}) == len(TRAJS)


def test_builder_output_is_committed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The JSONL is what build_trajectories.py writes: nobody edited one without the other."""
    spec = importlib.util.spec_from_file_location(
        "build_trajectories", ROOT / "bench" / "loops" / "build_trajectories.py"
    )
    assert spec is not None
    assert spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    out = tmp_path / "t.jsonl"
    monkeypatch.setattr(builder, "OUT", out)
    builder.main()
    assert out.read_text(encoding="utf-8") == lb.DATA.read_text(encoding="utf-8")


@pytest.mark.parametrize("traj", TRAJS, ids=[t["id"] for t in TRAJS])
def test_trajectory_is_well_formed(traj: dict[str, Any]) -> None:
    src = traj["source"]
    assert ("repo" in src and "path" in src) or "url" in src or "issue" in src
    assert traj["split"] in set(lb.SPLIT_ORDER)
    events = traj["events"]
    assert events[0]["type"] == "user"
    for ev in events:
        assert ev["type"] in EVENT_TYPES
        if ev["type"] == "call":
            assert isinstance(ev["tool"], str)
            assert isinstance(ev["args"], dict)
            json.dumps(ev["args"])
            assert ("error" in ev) != ("result" in ev)
            if "error" in ev:
                assert ev["error_kind"] in ERROR_KINDS
    if traj["loop"]:
        assert traj["class"] in LOOP_CLASSES
        first, earliest, latest = traj["first_repeat"], traj["earliest"], traj["latest"]
        assert 0 < first <= earliest + 1 <= latest + 1 <= len(events)
        assert latest > earliest
    else:
        assert traj["class"] not in LOOP_CLASSES
        assert "earliest" not in traj


def test_judge_boundaries() -> None:
    loop = {"id": "x", "loop": True, "class": "cycle", "split": "dev", "earliest": 4, "latest": 9}
    assert lb.judge(loop, None).verdict == "missed"
    assert lb.judge(loop, 3).verdict == "early"
    assert lb.judge(loop, 4).verdict == "caught"
    assert lb.judge(loop, 4).latency == 0
    assert lb.judge(loop, 9).verdict == "caught"
    assert lb.judge(loop, 10).verdict == "late"
    legit = {"id": "y", "loop": False, "class": "polling", "split": "holdout"}
    assert lb.judge(legit, None).verdict == "quiet"
    assert lb.judge(legit, 0).verdict == "false_alarm"


def test_vercel_reimplementation_reads_the_data() -> None:
    """The reimplemented Vercel check flags a byte-identical repeat on its third step and
    never a tool error, as its description says."""
    by_id = {t["id"]: t for t in TRAJS}
    assert lb.vercel_flag(by_id["oh-sdk-repeat-ls"]) == 3
    assert lb.vercel_flag(by_id["oh-sdk-invalid-command"]) is None
    assert lb.vercel_flag(by_id["pi-go-poll-bash-output"]) is None
