"""Red team, twelfth pass: a failure whose text is long and holds one long token (a base64
payload, minified code, a blob a tool echoed in its error).

The guard keeps 400 characters of a failure's text, sanitized; it sanitized the whole text
first, and the sanitizer tests a run of token characters for randomness one character at a
time: a 20 MB error of one token took 3.6 s in `after_call`, on the agent's hot path, for
an exception, an `error=` text and an MCP `isError` result alike. Only the text's first
64 KiB are sanitized now. A secret at its start is still redacted.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from crs.guard import Guard

BLOB = "x" * 20_000_000


class _Loud(Exception):
    pass


@pytest.mark.parametrize(
    "kw",
    [
        {"error": "E: " + BLOB},
        {"error": _Loud(BLOB)},
        {"result": {"content": [{"type": "text", "text": "Error: " + BLOB}], "isError": True}},
    ],
    ids=["text", "exception", "mcp-envelope"],
)
def test_a_long_failure_text_is_judged_in_bounded_time(kw: dict[str, Any]) -> None:
    g = Guard()
    v = g.before_call("upload", {"file": "a.bin"})
    assert v.call is not None
    t = time.perf_counter()
    g.after_call(v.call, **kw)
    took = time.perf_counter() - t
    assert took < 1.5, took  # before: 3.6 s (0.07 s alone; the machine is shared)
    assert g.status()["calls"] == 1


def test_a_secret_at_the_start_of_a_long_failure_is_still_redacted(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    secret = "sk-" + "Zt8qL2vX9mKp4RwQ7nYbA1c3" * 3
    with Guard.open(project, "s", home=home) as g:
        v = g.before_call("deploy", {"env": "prod"})
        assert v.call is not None
        g.after_call(v.call, error=f"auth failed with key {secret}: " + "word " * 200_000)
        (lf,) = g.learned()
    assert secret not in lf.error
    assert lf.error.startswith("auth failed with key")
    stored = b"".join(f.read_bytes() for f in home.rglob("*") if f.is_file())
    assert secret.encode() not in stored
