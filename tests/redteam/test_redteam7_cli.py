"""Red team, seventh pass: the command line's `--json` on its error paths.

`crs guard status|learned|forget --json`, `crs demo --json` and `crs journal verify --json`
wrote their errors as a line on stderr and nothing on stdout: a script parsing the output
(`crs guard status --json | jq`) got no JSON at all, where `crs backup --json` answers
`{"error": ..., "message": ...}`. Each check runs a real `python -m crs` process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_redteam3_cli import crs

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).parents[2]


def _guarded(tmp_path: Path) -> Path:
    """A project a guard ran in (one call), so the CLI opens its state."""
    project = tmp_path / "p"
    project.mkdir()
    code = (
        "import sys; from crs.guard import Guard\n"
        "with Guard.open(sys.argv[1], 's', home=sys.argv[2], fingerprint=lambda: 'f') as g:\n"
        "    v = g.before_call('read', {'p': 1}); g.after_call(v.call, result='x')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    subprocess.run(
        [sys.executable, "-c", code, str(project), str(tmp_path / "home")],
        check=True,
        timeout=60,
        env=env,
    )
    return project


def test_every_json_error_path_prints_one_json_object(tmp_path: Path) -> None:
    project = _guarded(tmp_path)
    (tmp_path / "a-file").write_text("not a directory")
    p, h = str(project), str(tmp_path / "home")
    cases = [
        ("guard", "status", "--json", "--project", str(tmp_path / "typo")),
        ("guard", "learned", "--json", "--home", str(tmp_path / "a-file"), "--project", p),
        ("guard", "status", "--json", "--session", "nope", "--project", p, "--home", h),
        ("guard", "forget", "--json", "no-such-id", "--project", p, "--home", h),
        ("guard", "forget", "--json", "", "--project", p, "--home", h),
        ("guard", "forget", "--json", "x", "--project", str(tmp_path), "--home", h),
        ("guard", "status", "--json", "--project", p, "--nats", "nats://127.0.0.1:1"),
        ("demo", "--json", "--home", str(tmp_path / "a-file")),
        ("journal", "verify", "--json", str(tmp_path / "no-journal")),
    ]
    for argv in cases:
        r = crs(*argv, home=tmp_path / "home")
        assert r.returncode not in (0, None), (argv, r.stdout)
        assert "Traceback" not in r.stderr, (argv, r.stderr)
        try:
            answer = json.loads(r.stdout)
        except json.JSONDecodeError:
            raise AssertionError(f"{argv}: stdout is not JSON: {r.stdout!r}") from None
        assert isinstance(answer, dict), (argv, answer)
        assert isinstance(answer.get("error"), str), (argv, answer)
        assert answer["error"], (argv, answer)
        assert r.stderr.strip(), argv  # (the line for a person is still there)
        assert answer["message"] == r.stderr.strip(), (argv, answer)


def test_json_success_paths_are_unchanged(tmp_path: Path) -> None:
    project = _guarded(tmp_path)
    r = crs("guard", "status", "--json", "--project", str(project), home=tmp_path / "home")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["sessions"][0]["calls"] == 1
    r = crs("guard", "learned", "--json", "--project", str(project), home=tmp_path / "home")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == []


@pytest.mark.parametrize(
    "args",
    [
        ["guard", "status", "--json", "--bogus"],
        ["guard", "forget", "--json"],  # its id missing
        ["backup", "status", "--json", "--verify=yes"],
        ["journal", "verify", "--json"],  # its path missing
    ],
)
def test_a_usage_error_under_json_is_json_too(args: list[str]) -> None:
    """A `--json` command's usage error (an unknown option, a missing argument) was only
    argparse's text on stderr (found, not fixed, by the seventh pass): stdout now has one
    JSON object with argparse's line; the usage text stays on stderr, exit 2."""
    done = crs(*args)
    assert done.returncode == 2
    doc = json.loads(done.stdout)
    assert doc["error"] == "usage"
    assert doc["exit"] == 2
    assert doc["message"].startswith("crs")
    assert "error:" in doc["message"]
    assert "usage:" in done.stderr


def test_help_and_plain_usage_errors_are_unchanged() -> None:
    done = crs("guard", "status", "--json", "--help")
    assert done.returncode == 0
    assert done.stdout.startswith("usage: crs guard status")
    done = crs("guard", "status", "--bogus")
    assert (done.returncode, done.stdout) == (2, "")
