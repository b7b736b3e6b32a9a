"""Red team: `crs dashboard` on loopback had no token, so any local user (another account on
a shared machine, a container sharing the host's network) could read every session's
previews and forget learned failures (docs/redteam.md). It now makes a random token per run,
prints it in its URL, and refuses (403, nothing read or changed) a request without it; a GET
with it sets a cookie so the page keeps working. `--no-token` keeps the old behaviour.
Real `python -m crs dashboard` processes, real HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dashboard"))
from dashboard_page import Served, dashboard

from crs.guard import Guard


def _fp() -> str:
    return "ws-1"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home, proj = tmp_path / "home", tmp_path / "project"
    proj.mkdir()
    with Guard.open(proj, "agent-1", home=home, fingerprint=_fp) as g:
        v = g.before_call("Bash", {"command": "make secret-target"})
        g.after_call(v.call, error="error: undefined reference to `main'")
        assert len(g.learned()) == 1
    return home


def _status(url: str, method: str = "GET", **headers: str) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, method=method, headers=headers)
    if method == "POST":
        req.data = b""
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, dict(err.headers), err.read()


@pytest.fixture
def served(home: Path) -> Iterator[Served]:
    with dashboard("--home", str(home)) as s:
        yield s


def test_every_request_without_the_token_is_refused(home: Path, served: Served) -> None:
    assert served.token
    assert len(served.token) >= 24
    base = served.base
    code, _, body = _status(served.api("api/projects"))
    assert code == 200
    key = json.loads(body)["projects"][0]["key"]
    failures = json.loads(_status(served.api(f"api/projects/{key}/sessions/agent-1"))[2])
    fid = failures["learned"][0]["id"]
    for path in (
        "",
        "static/app.js",
        "api/projects",
        f"api/projects/{key}/sessions/agent-1",
        f"api/events?project={key}",
    ):
        code, _, body = _status(base + path)
        assert code == 403, path
        assert b"secret-target" not in body
        wrong = base + path + ("&" if "?" in path else "?") + "token=" + "x" * 32
        assert _status(wrong)[0] == 403, path
        assert _status(base + path, **{"X-CRS-Token": served.token[:-1]})[0] == 403
    forget = f"api/projects/{key}/forget/{fid}"
    code, _, _ = _status(base + forget, "POST", **{"X-CRS-Request": "1"})
    assert code == 403
    projects = json.loads(_status(served.api("api/projects"))[2])["projects"]
    assert projects[0]["key"] == key
    view = json.loads(_status(served.api(f"api/projects/{key}/sessions/agent-1"))[2])
    assert [f["id"] for f in view["learned"]] == [fid]  # nothing was forgotten
    # with the token (a header, as the page sends it) the same POST forgets
    code, _, body = _status(
        base + forget, "POST", **{"X-CRS-Request": "1", "X-CRS-Token": served.token}
    )
    assert code == 200
    assert json.loads(body)["forgotten"]


def test_the_tokened_page_sets_a_cookie_that_then_suffices(served: Served) -> None:
    code, headers, _ = _status(served.page)
    assert code == 200
    set_cookie = headers["set-cookie"]
    assert "HttpOnly" in set_cookie
    assert "SameSite=strict" in set_cookie.replace("Strict", "strict")
    pair = set_cookie.split(";", 1)[0]
    assert served.token not in pair  # a value derived from the token, not the token
    assert _status(served.base + "api/projects", Cookie=pair)[0] == 200
    assert _status(served.base + "static/app.js", Cookie=pair)[0] == 200
    name = pair.split("=", 1)[0]
    assert _status(served.base + "api/projects", Cookie=f"{name}=forged")[0] == 403


def test_no_token_is_explicit(home: Path) -> None:
    with dashboard("--home", str(home), "--no-token") as s:
        assert s.token is None
        assert _status(s.base + "api/projects")[0] == 200
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "crs",
            "dashboard",
            "--home",
            str(home),
            "--no-token",
            "--token",
            "abc",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2
    assert "not both" in p.stderr
    for bad in ("", "a b", "t\u00fcr", "x\x1b[31m"):
        p = subprocess.run(
            [sys.executable, "-m", "crs", "dashboard", "--home", str(home), "--token", bad],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert p.returncode == 2, bad
        assert "--token must be printable ASCII" in p.stderr


def test_forget_of_a_project_whose_checkout_is_gone_still_works(tmp_path: Path) -> None:
    """The dashboard lists a project from the home; its checkout may have been removed since.
    The dashboard's forget opens it without `must_exist`, so it still works."""
    import shutil

    from crs.dashboard._data import Dashboard

    home, proj = tmp_path / "home", tmp_path / "gone"
    proj.mkdir()
    with Guard.open(proj, "agent-1", home=home, fingerprint=_fp) as g:
        v = g.before_call("Bash", {"command": "make"})
        g.after_call(v.call, error="error: no rule to make target")
        g.crs.save_project_backup()  # the project's path is recorded with its backup
    shutil.rmtree(proj)
    data = Dashboard(home, None)
    try:
        (listed,) = data.projects()
        fid = data.session(listed["key"], "agent-1")["learned"][0]["id"]
        assert data.forget(listed["key"], fid) is True
    finally:
        data.close()
    data = Dashboard(home, None)  # a fresh reader: the forgetting is durable
    try:
        assert data.session(listed["key"], "agent-1")["learned"] == []
    finally:
        data.close()
    assert not proj.exists()  # and nothing re-created it
