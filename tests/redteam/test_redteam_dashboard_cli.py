"""Red team: `crs dashboard` started the way a careless user starts it (real processes)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _dashboard(home: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "crs", "dashboard", "--home", str(home), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python")},
    )


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def test_a_port_out_of_range_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    code, out, err = _finish(_dashboard(tmp_path, "--port", "-5"))
    assert code == 2
    assert "Traceback" not in err
    assert "--port" in err
    assert "serving" not in out


def test_a_port_in_use_is_said_before_serving_is_announced(tmp_path: Path) -> None:
    """It printed "serving ... on http://127.0.0.1:N/" and only then failed to bind."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = _finish(_dashboard(tmp_path, "--port", str(port)))
    assert code == 2
    assert "serving" not in out
    assert f"cannot listen on 127.0.0.1:{port}" in err


def test_port_0_prints_the_port_it_got(tmp_path: Path) -> None:
    """`--port 0` (documented: any free port) printed `http://127.0.0.1:0/`, a URL nobody
    can open. The printed URL is the one that serves."""
    proc = _dashboard(tmp_path, "--port", "0")
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=(\S+)", line)
        assert m is not None, line
        assert m.group(1) != "0"
        deadline = time.monotonic() + 30
        api = f"http://127.0.0.1:{m.group(1)}/api/projects?token={m.group(2)}"
        while True:
            try:
                with urllib.request.urlopen(api, timeout=2) as r:
                    assert r.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline, "the printed URL never answered"
                time.sleep(0.1)
    finally:
        proc.terminate()
        _finish(proc)
