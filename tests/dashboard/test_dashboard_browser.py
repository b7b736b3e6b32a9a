"""`crs dashboard` in a real headless browser (Debian's chromium driven by selenium).

The dashboard runs as its own process (`python -m crs dashboard`) over a real data directory
while this process writes to the project through a durable `Guard`, as a hook or an agent
would: the page must show what is recorded within a second, forget a remembered failure
through the guard's API, and show attacker-controlled arguments as text.
"""

from __future__ import annotations

import json
import time
import urllib.error
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
    Served,
    chromium,
    click_forget,
    dashboard,
    live,
    rows,
    texts,
    wait,
)

from crs.guard import Action, Guard

pytestmark = pytest.mark.skipif(not HAVE_BROWSER, reason=NO_BROWSER)


def _fp() -> str:
    return "workspace-1"


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    home, proj = tmp_path / "home", tmp_path / "project"
    proj.mkdir()
    with Guard.open(proj, "agent-1", home=home, fingerprint=_fp) as g:
        for i in range(3):  # some ordinary work before the page opens
            v = g.before_call("Read", {"file_path": f"src/mod_{i:02}.py"})
            g.after_call(v.call, result=f"print({i})")
    return home, proj


@pytest.fixture
def server(project: tuple[Path, Path]) -> Iterator[Served]:
    with dashboard("--home", str(project[0])) as url:
        yield url


@pytest.fixture
def browser() -> Iterator[object]:
    with chromium() as driver:
        yield driver


def test_loop_block_forget_and_escaping_in_a_real_browser(
    project: tuple[Path, Path], server: Served, browser: object
) -> None:
    home, proj = project
    driver = browser
    driver.get(server.page)  # type: ignore[attr-defined]
    wait(driver, 10, "the session", lambda d: len(rows(d, "#timeline tbody tr")) == 3)
    wait(driver, 5, "the live feed", live)
    assert texts(driver, "nav li.session a") == ["agent-1 (3)"]

    hostile = "<script>window.__pwned = 1</script><img src=x onerror='window.__pwned=2'>"
    with Guard.open(proj, "agent-1", home=home, fingerprint=_fp) as g:
        actions = []
        for _ in range(6):  # the agent repeats one search with the same empty result
            v = g.before_call("Grep", {"pattern": hostile})
            actions.append(v.action)
            if v.allowed:
                g.after_call(v.call, result="no matches")
        recorded = time.monotonic()
        assert Action.BLOCK in actions
        wait(driver, 1.0, "the block", lambda d: rows(d, "#timeline tr[data-action='block']"))
        shown = time.monotonic() - recorded
        assert rows(driver, "#timeline tr[data-action='nudge']"), "the nudge came first"
        # the loop is highlighted over the steps it spans
        assert len(rows(driver, "#timeline tr.span-loop")) >= 3
        # a failing build is remembered
        v = g.before_call("Bash", {"command": "make build"})
        g.after_call(v.call, error="error: undefined reference to `main'")
    assert shown < 1.0

    # The hostile argument is text: no script ran, no element was injected.
    cells = texts(driver, "#timeline td.args")
    assert any("<script>window.__pwned = 1</script>" in c for c in cells)
    assert driver.execute_script("return window.__pwned === undefined")  # type: ignore[attr-defined]
    assert not rows(driver, "#timeline img, #timeline script")

    wait(driver, 2.0, "the remembered failure", lambda d: rows(d, "#learned tbody tr"))
    assert any("undefined reference" in t for t in texts(driver, "#learned tbody tr"))
    wait(driver, 2.0, "the decision graph", lambda d: rows(d, "#graph .node"))
    assert rows(driver, "#graph .node.cycle"), "the repeated search is drawn as a cycle"

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / "dashboard.png"))  # type: ignore[attr-defined]

    # The same failing build is refused before it runs...
    with Guard.open(proj, "agent-2", home=home, fingerprint=_fp) as g:
        assert g.before_call("Bash", {"command": "make build"}).action is Action.BLOCK
    # ...until it is forgotten from the page, through the guard's API.
    click_forget(driver)
    wait(driver, 3.0, "the failure gone", lambda d: not rows(d, "#learned tbody tr"))
    with Guard.open(proj, "agent-2", home=home, fingerprint=_fp) as g:
        assert g.learned() == []
        assert g.before_call("Bash", {"command": "make build"}).action is Action.ALLOW


def test_refuses_foreign_hosts_and_cross_site_posts(
    project: tuple[Path, Path], server: Served
) -> None:
    req = urllib.request.Request(server.api("api/projects"), headers={"Host": "evil.example"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=5)
    err.value.close()
    assert err.value.code == 421
    with urllib.request.urlopen(server.api("api/projects"), timeout=5) as r:
        key = json.loads(r.read())["projects"][0]["key"]
    forget = server.api(f"api/projects/{key}/forget/x")
    post = urllib.request.Request(forget, method="POST", data=b"")
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(post, timeout=5)
    err.value.close()
    assert err.value.code == 403
    with urllib.request.urlopen(server.page, timeout=5) as r:
        assert "script-src 'self'" in r.headers["Content-Security-Policy"]
