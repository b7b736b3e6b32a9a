"""Red team, third pass: the dashboard (docs/redteam.md, "Third pass"). A real `python -m
crs dashboard` process, real HTTP."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from guard_calls import run

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dashboard"))
from dashboard_page import dashboard

from crs.guard import Guard


def _get(url: str) -> tuple[int, object]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        with err:
            return err.code, err.read().decode()


def test_a_session_id_with_a_slash_can_be_opened_and_its_failure_forgotten(
    tmp_path: Path,
) -> None:
    """Session ids such as "agent-7/sub-2" (sub-agents, LangGraph namespaces) were listed,
    but their page answered 404 (the route's `{session}` does not match a "/", even sent as
    `%2F`), so the dashboard could not show them; the same for failure ids."""
    project, home = tmp_path / "repo", tmp_path / "home"
    project.mkdir()
    sid = "agent-7/sub-2?x#y"
    with Guard.open(project, sid, home=home, fingerprint=lambda: "fp") as g:
        for _ in range(2):
            run(g, "make", {"target": "all"}, error="error: main.c:3")
        (failure,) = g.learned()
    with dashboard("--home", str(home)) as served:
        status, listed = _get(served.api("api/projects"))
        assert status == 200
        (proj,) = listed["projects"]  # type: ignore[index]
        assert [s["session_id"] for s in proj["sessions"]] == [sid]
        quoted = urllib.parse.quote(sid, safe="")
        status, view = _get(served.api(f"api/projects/{proj['key']}/sessions/{quoted}"))
        assert status == 200, view
        assert [f["id"] for f in view["learned"]] == [failure.id]  # type: ignore[index]
        req = urllib.request.Request(
            served.api(f"api/projects/{proj['key']}/forget/{urllib.parse.quote(failure.id)}"),
            method="POST",
            data=b"",
            headers={"X-CRS-Request": "1"},
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            assert json.loads(r.read())["forgotten"] is True
    with Guard.open(project, "later", home=home, fingerprint=lambda: "fp") as g:
        assert g.learned() == []
