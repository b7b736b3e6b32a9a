"""`crs dashboard` in a real headless browser (Debian's chromium driven by selenium).

The dashboard runs as its own process (`python -m crs dashboard`) over a real data directory
while this process writes to the project through a durable `Guard`, as a hook or an agent
would: the page must show what is recorded within a second, forget a remembered failure
through the guard's API, and show attacker-controlled arguments as text.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.common.exceptions import (  # noqa: E402
    StaleElementReferenceException,
    TimeoutException,
)
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from crs.guard import Action, Guard  # noqa: E402

ARTIFACTS = Path(os.environ.get("CRS_TEST_ARTIFACTS", Path(__file__).parents[2] / "build"))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

pytestmark = pytest.mark.skipif(
    not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)),
    reason="needs Debian's chromium and chromium-driver (scripts/system-deps.sh installs them)",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


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
def server(project: tuple[Path, Path]) -> Iterator[str]:
    home = project[0]
    port = _free_port()
    cmd = [sys.executable, "-m", "crs", "dashboard", "--home", str(home), "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(url + "api/projects", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    out = proc.stdout.read() if proc.stdout else ""
                    raise AssertionError(f"dashboard did not start: {out}") from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.fixture
def browser() -> Iterator[object]:
    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.set_page_load_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()


def _rows(driver: object, css: str) -> list[object]:
    return driver.find_elements(By.CSS_SELECTOR, css)  # type: ignore[attr-defined,no-any-return]


def _texts(driver: object, css: str) -> list[str]:
    """The text of every element matching `css`, read in one step in the page (the live feed
    re-renders rows at any moment, so element handles can go stale between two reads)."""
    script = "return [...document.querySelectorAll(arguments[0])].map((e) => e.textContent)"
    return driver.execute_script(script, css)  # type: ignore[attr-defined,no-any-return]


def _wait(driver: object, seconds: float, what: str, cond: object) -> None:
    try:
        WebDriverWait(driver, seconds, poll_frequency=0.05).until(cond)
    except TimeoutException:
        raise AssertionError(f"the page did not show {what} within {seconds} s") from None


def _click_forget(driver: object) -> None:
    """Click the failure's forget button (the live feed may re-render the row meanwhile)."""
    for _ in range(50):
        try:
            driver.find_element(By.CSS_SELECTOR, "#learned button.forget").click()  # type: ignore[attr-defined]
            return
        except StaleElementReferenceException:
            time.sleep(0.05)
    raise AssertionError("the forget button kept being re-rendered")


def test_loop_block_forget_and_escaping_in_a_real_browser(
    project: tuple[Path, Path], server: str, browser: object
) -> None:
    home, proj = project
    driver = browser
    driver.get(server)  # type: ignore[attr-defined]
    _wait(driver, 10, "the session", lambda d: len(_rows(d, "#timeline tbody tr")) == 3)
    _wait(
        driver,
        5,
        "the live feed",
        lambda d: "on" in d.find_element(By.ID, "live").get_attribute("class"),
    )
    assert _texts(driver, "nav li.session a") == ["agent-1 (3)"]

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
        _wait(driver, 1.0, "the block", lambda d: _rows(d, "#timeline tr[data-action='block']"))
        shown = time.monotonic() - recorded
        assert _rows(driver, "#timeline tr[data-action='nudge']"), "the nudge came first"
        # the loop is highlighted over the steps it spans
        assert len(_rows(driver, "#timeline tr.span-loop")) >= 3
        # a failing build is remembered
        v = g.before_call("Bash", {"command": "make build"})
        g.after_call(v.call, error="error: undefined reference to `main'")
    assert shown < 1.0

    # The hostile argument is text: no script ran, no element was injected.
    cells = _texts(driver, "#timeline td.args")
    assert any("<script>window.__pwned = 1</script>" in c for c in cells)
    assert driver.execute_script("return window.__pwned === undefined")  # type: ignore[attr-defined]
    assert not _rows(driver, "#timeline img, #timeline script")

    _wait(driver, 2.0, "the remembered failure", lambda d: _rows(d, "#learned tbody tr"))
    assert any("undefined reference" in t for t in _texts(driver, "#learned tbody tr"))
    _wait(driver, 2.0, "the decision graph", lambda d: _rows(d, "#graph .node"))
    assert _rows(driver, "#graph .node.cycle"), "the repeated search is drawn as a cycle"

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / "dashboard.png"))  # type: ignore[attr-defined]

    # The same failing build is refused before it runs...
    with Guard.open(proj, "agent-2", home=home, fingerprint=_fp) as g:
        assert g.before_call("Bash", {"command": "make build"}).action is Action.BLOCK
    # ...until it is forgotten from the page, through the guard's API.
    _click_forget(driver)
    _wait(driver, 3.0, "the failure gone", lambda d: not _rows(d, "#learned tbody tr"))
    with Guard.open(proj, "agent-2", home=home, fingerprint=_fp) as g:
        assert g.learned() == []
        assert g.before_call("Bash", {"command": "make build"}).action is Action.ALLOW


def test_refuses_foreign_hosts_and_cross_site_posts(
    project: tuple[Path, Path], server: str
) -> None:
    req = urllib.request.Request(server + "api/projects", headers={"Host": "evil.example"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=5)
    err.value.close()
    assert err.value.code == 421
    with urllib.request.urlopen(server + "api/projects", timeout=5) as r:
        key = __import__("json").loads(r.read())["projects"][0]["key"]
    post = urllib.request.Request(server + f"api/projects/{key}/forget/x", method="POST", data=b"")
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(post, timeout=5)
    err.value.close()
    assert err.value.code == 403
    with urllib.request.urlopen(server, timeout=5) as r:
        assert "script-src 'self'" in r.headers["Content-Security-Policy"]
