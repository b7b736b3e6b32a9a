"""The guard's large per-session maps survive a backup as lazy text, decoded on first read."""

from __future__ import annotations

from pathlib import Path

import pytest

from crs.guard import Guard
from crs.guard._lazy import LazyMap
from crs.guard._state import SessionState


def test_a_reopened_session_decides_like_the_live_one(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    with Guard.open(project, "s", home, fingerprint=lambda: "fp") as g:
        for i in range(600):  # past the size from which maps are stored lazily
            v = g.before_call("Read", {"file_path": f"/src/m{i}.py"}, call_id=f"r{i}")
            assert v.call is not None
            g.after_call(v.call, result=f"x = {i}")
        for _ in range(2):
            v = g.before_call("Bash", {"command": "make"}, call_id=None)
            assert v.call is not None
            g.after_call(v.call, error="Exit code 2: boom")
        live = g.before_call("Bash", {"command": "make"}).action
        g.crs.save_project_backup()
        status = g.status()
    with Guard.open(project, "s", home, fingerprint=lambda: "fp") as again:
        s = again._session()
        assert isinstance(s.sigs, LazyMap)
        assert isinstance(s.pairs, LazyMap)
        raw = sum(type(x) is str for x in dict.values(s.sigs))
        assert raw == len(s.sigs)  # nothing decoded yet
        assert again.before_call("Bash", {"command": "make"}).action == live
        assert sum(type(x) is str for x in dict.values(s.sigs)) == raw - 1  # only that one
        assert again.status()["calls"] == status["calls"]
        repeat = again.before_call("Read", {"file_path": "/src/m5.py"}, call_id="again")
        assert repeat.allowed
        exported = s.export()
        assert SessionState.from_export(exported).export() == exported


def test_lazy_map_reads_writes_and_refuses_bad_text() -> None:
    m = LazyMap(lambda raw: [int(x) for x in raw.strip("[]").split(",")])
    m.update({"a": [1, 2], "b": [3]})
    data = m.encode(list)
    back = LazyMap.decode(data, m._decode)
    assert dict.get(back, "a") == "[1,2]"
    assert back.get("a") == [1, 2]
    assert back["b"] == [3]
    assert back.get("zz", 7) == 7
    del back[next(iter(back))]
    assert list(back.items()) == [("b", [3])]
    assert back.pop("b") == [3]
    assert LazyMap.decode(["", ""], m._decode) == {}
    with pytest.raises(ValueError, match="keys and"):
        LazyMap.decode(["a b c", data[1]], m._decode)
    with pytest.raises(ValueError, match="lazy map"):
        LazyMap.decode("nope", m._decode)
