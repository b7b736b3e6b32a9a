"""Shared by the browser tests of `crs dashboard`: the dashboard process, headless chromium
(Debian's, driven by selenium) and reading the page."""

from __future__ import annotations

import os
import re
import select
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ARTIFACTS = Path(os.environ.get("CRS_TEST_ARTIFACTS", Path(__file__).parents[2] / "build"))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
HAVE_BROWSER = os.path.exists(CHROMIUM) and os.path.exists(DRIVER)
NO_BROWSER = "needs Debian's chromium and chromium-driver (scripts/system-deps.sh installs them)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass(frozen=True)
class Served:
    """A running dashboard: its base URL and the token it printed (None with --no-token)."""

    base: str
    token: str | None

    @property
    def page(self) -> str:
        """The URL the dashboard printed (with its token), what a person opens."""
        return self.base + (f"?token={self.token}" if self.token else "")

    def api(self, path: str) -> str:
        """`path` (relative, no query) on the dashboard, with the token."""
        return self.base + path + (f"?token={self.token}" if self.token else "")


@contextmanager
def dashboard(*args: str) -> Iterator[Served]:
    """`python -m crs dashboard ARGS --port N` as its own process; yields where it serves
    (the URL it printed: its per-run token comes from there)."""
    port = free_port()
    cmd = [sys.executable, "-m", "crs", "dashboard", *args, "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}/"
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 20
        printed = ""
        while "serving" not in printed:
            ready, _, _ = select.select([proc.stdout], [], [], 0.2)
            if ready:
                printed = proc.stdout.readline()
            if (not ready or not printed) and (
                proc.poll() is not None or time.monotonic() > deadline
            ):
                raise AssertionError(f"dashboard did not start: {printed}")
        m = re.search(r"\?token=([A-Za-z0-9_%-]+)", printed)
        served = Served(base, urllib.parse.unquote(m.group(1)) if m else None)
        # Read what it writes from now on: a pipe nobody reads fills up (64 KiB) and blocks
        # the server on its next log line; shown at the end (pytest prints it on a failure).
        output: list[str] = []
        reader = threading.Thread(target=output.extend, args=(proc.stdout,), daemon=True)
        reader.start()
        while True:
            try:
                with urllib.request.urlopen(served.api("api/projects"), timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("dashboard did not answer") from None
                time.sleep(0.1)
        yield served
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        if "reader" in locals():
            reader.join(timeout=10)
            if output:
                print("crs dashboard wrote:", "".join(output)[-20_000:], sep="\n", file=sys.stderr)
        if proc.stdout is not None:
            proc.stdout.close()


@contextmanager
def chromium() -> Iterator[object]:
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


def rows(driver: object, css: str) -> list[object]:
    return driver.find_elements(By.CSS_SELECTOR, css)  # type: ignore[attr-defined,no-any-return]


def texts(driver: object, css: str) -> list[str]:
    """The text of every element matching `css`, read in one step in the page (the live feed
    re-renders rows at any moment, so element handles can go stale between two reads)."""
    script = "return [...document.querySelectorAll(arguments[0])].map((e) => e.textContent)"
    return driver.execute_script(script, css)  # type: ignore[attr-defined,no-any-return]


def wait(driver: object, seconds: float, what: str, cond: object) -> None:
    try:
        WebDriverWait(driver, seconds, poll_frequency=0.05).until(cond)  # type: ignore[arg-type]
    except TimeoutException:
        raise AssertionError(f"the page did not show {what} within {seconds} s") from None


def live(driver: object) -> bool:
    return "on" in driver.find_element(By.ID, "live").get_attribute("class")  # type: ignore[attr-defined,no-any-return]


def click_forget(driver: object) -> None:
    """Click the failure's forget button (the live feed may re-render the row meanwhile)."""
    for _ in range(50):
        try:
            driver.find_element(By.CSS_SELECTOR, "#learned button.forget").click()  # type: ignore[attr-defined]
            return
        except StaleElementReferenceException:
            time.sleep(0.05)
    raise AssertionError("the forget button kept being re-rendered")
