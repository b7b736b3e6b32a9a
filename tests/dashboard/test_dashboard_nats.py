"""`crs dashboard --nats URL` in a real headless browser, over a real nats-server (JetStream).

The guard's memory is a NATS stream (`Guard.open(..., nats=URL)`), as for agents on several
machines; the dashboard runs as its own process and follows it live through a read replica
fed by the server: a scripted session's loop and block must appear within a second of being
recorded, the dashboard writes nothing while it reads, and forgetting a remembered failure
from the page goes through `Guard.open(..., nats=...).forget`, after which the call is
allowed. Without nats-server the tests are skipped with a reason, and fail in CI (`CI` set).
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("selenium.webdriver")

from dashboard_page import (
    ARTIFACTS,
    HAVE_BROWSER,
    NO_BROWSER,
    chromium,
    click_forget,
    dashboard,
    live,
    rows,
    texts,
    wait,
)

from crs import NATSJournal, NATSJournalConfig
from crs._persistence._session_restore import compute_project_hash
from crs.guard import Action, Guard
from nats_server import NatsServer, started_server

pytestmark = [pytest.mark.skipif(not HAVE_BROWSER, reason=NO_BROWSER), pytest.mark.timeout(180)]


def _fp() -> str:
    return "workspace-1"


@pytest.fixture
def nats(tmp_path: Path) -> Iterator[NatsServer]:
    """A real nats-server with JetStream, stopped after the test."""
    yield from started_server(tmp_path / "nats-store")


@pytest.fixture
def project(tmp_path: Path, nats: NatsServer) -> Path:
    proj = tmp_path / "project"
    proj.mkdir()
    with Guard.open(proj, "agent-1", nats=nats.url, fingerprint=_fp) as g:
        for i in range(3):  # some ordinary work before the page opens
            v = g.before_call("Read", {"file_path": f"src/mod_{i:02}.py"})
            g.after_call(v.call, result=f"print({i})")
    return proj


def _records(nats: NatsServer, project: Path) -> int:
    """How many records the project's subject holds (read by a plain reader)."""
    key = compute_project_hash(str(project.resolve()))
    cfg = NATSJournalConfig(servers=nats.url, session_id=key, create_stream=False)
    with NATSJournal(cfg) as j:
        return j.stats().total_deltas


def test_a_nats_project_live_in_a_real_browser(nats: NatsServer, project: Path) -> None:
    with dashboard("--nats", nats.url) as url, chromium() as driver:
        with urllib.request.urlopen(url.api("api/projects"), timeout=5) as r:
            (listed,) = json.loads(r.read())["projects"]
        assert listed["key"] == compute_project_hash(str(project.resolve()))
        before = _records(nats, project)
        driver.get(url.page)  # type: ignore[attr-defined]
        wait(driver, 10, "the session", lambda d: len(rows(d, "#timeline tbody tr")) == 3)
        wait(driver, 5, "the live feed", live)
        assert texts(driver, "nav li.session a") == ["agent-1 (3)"]
        time.sleep(0.3)
        assert _records(nats, project) == before, "the dashboard wrote while reading"

        with Guard.open(project, "agent-1", nats=nats.url, fingerprint=_fp) as g:
            actions = []
            for _ in range(6):  # the agent repeats one search with the same empty result
                v = g.before_call("Grep", {"pattern": "<b>TODO</b>"})
                actions.append(v.action)
                if v.allowed:
                    g.after_call(v.call, result="no matches")
            recorded = time.monotonic()
            assert Action.BLOCK in actions
            wait(driver, 1.0, "the block", lambda d: rows(d, "#timeline tr[data-action='block']"))
            shown = time.monotonic() - recorded
            assert rows(driver, "#timeline tr[data-action='nudge']"), "the nudge came first"
            assert len(rows(driver, "#timeline tr.span-loop")) >= 3
            v = g.before_call("Bash", {"command": "make build"})
            g.after_call(v.call, error="error: undefined reference to `main'")
        assert shown < 1.0
        assert any("<b>TODO</b>" in c for c in texts(driver, "#timeline td.args"))

        wait(driver, 2.0, "the remembered failure", lambda d: rows(d, "#learned tbody tr"))
        assert any("undefined reference" in t for t in texts(driver, "#learned tbody tr"))
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "dashboard-nats.png"))  # type: ignore[attr-defined]

        with Guard.open(project, "agent-2", nats=nats.url, fingerprint=_fp) as g:
            assert g.before_call("Bash", {"command": "make build"}).action is Action.BLOCK
            click_forget(driver)  # through Guard.open(..., nats=...).forget, on the server
            wait(driver, 3.0, "the failure gone", lambda d: not rows(d, "#learned tbody tr"))
            deadline = time.monotonic() + 2.0
            while g.learned() and time.monotonic() < deadline:  # the open guard sees it live
                time.sleep(0.01)
            assert g.learned() == []
            assert g.before_call("Bash", {"command": "make build"}).action is Action.ALLOW


def test_dashboard_refuses_an_unreachable_server_and_home_with_nats(tmp_path: Path) -> None:
    import subprocess
    import sys

    from nats_server import free_port

    base = [sys.executable, "-m", "crs", "dashboard", "--port", "0"]
    gone = subprocess.run(
        [*base, "--nats", f"nats://127.0.0.1:{free_port()}"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert gone.returncode == 2
    assert "cannot" in gone.stderr
    bad = subprocess.run(
        [*base, "--nats", "http://x:1"], capture_output=True, text=True, timeout=30, check=False
    )
    assert bad.returncode == 2
    assert "nats: " in bad.stderr
    both = subprocess.run(
        [*base, "--nats", "nats://127.0.0.1:1", "--home", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert both.returncode == 2
    assert "not both" in both.stderr
