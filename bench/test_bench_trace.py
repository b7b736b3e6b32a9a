"""Sanitising a 2 KB tool output and recording a trace step, beside what a user would pick.

Same data, same run:
- `SecretSanitizer.sanitize` (crs);
- the Go package's 21 patterns applied one after the other with `re.sub` (what the reference
  does, without our literal pre-checks and extra passes);
- detect-secrets (Yelp), the best-kept Python secret scanner: its 27 default plugins run on
  every line, and each value they report is replaced (it detects; redaction is up to the user).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

import crs
from crs._reasoning._sanitizer import REFERENCE_PATTERNS

SECRETS = (
    "AKIA" + "QWERTYUIOPASDFGH",
    "ghp_" + "Zt8qL2vX9mKp4RwQ7nYb3cHj6sDf1gGa5hEk",
    "hunter2hunter2",
)

_LINES = [
    "src/crs/_trace.py:42:    recorder = TraceRecorder(SecureTraceConfig())",
    "src/crs/_trace.py:57:    step = TraceStepBuilder().with_action('explore').build()",
    "tests/test_trace.py:12:def test_fifo_eviction_counter_and_log(caplog) -> None:",
    "2026-11-30T05:00:01Z INFO  request id=550e8400-e29b-41d4-a716-446655440000 status=200",
    "2026-11-30T05:00:02Z DEBUG cache hit key=session:s1:tool:Grep ttl=300",
    "commit a94a8fe5ccb19ba61c4c0873d391e987982fbbd3 (HEAD -> main)",
    "    max_tokens=4096 temperature=0.2 model=claude tokens_used: 1834",
    "Makefile:12: MATURIN_PROFILE ?= --release",
    "README.md:3: Records every step, detects loops, fires circuit breakers.",
    "python/crs/_types.py:210:class StepRecord(_Record):",
]
_SECRET_LINES = [
    f"config.py:3: AWS_ACCESS_KEY_ID = '{SECRETS[0]}'",
    f"deploy.sh:9: git push https://x:{SECRETS[1]}@github.com/org/repo",
    f'settings.yaml:4: password: "{SECRETS[2]}"',
]


def _tool_output(with_secrets: bool) -> str:
    lines: list[str] = []
    i = 0
    while sum(len(s) + 1 for s in lines) < 2048:
        lines.append(_LINES[i % len(_LINES)])
        if with_secrets and i % 9 == 4:
            lines.append(_SECRET_LINES[(i // 9) % len(_SECRET_LINES)])
        i += 1
    return "\n".join(lines)[:2048]


OUTPUT = _tool_output(with_secrets=True)
CLEAN = _tool_output(with_secrets=False)
SANITIZER = crs.SecretSanitizer()
GO_PATTERNS = [re.compile(rx, re.ASCII) for _, rx in REFERENCE_PATTERNS]


def go_sequential(text: str) -> str:
    for rx in GO_PATTERNS:
        text = rx.sub(crs.REDACTED, text)
    return text


def detect_secrets_redact(text: str, plugins: list[Any]) -> str:
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        values = {
            s.secret_value
            for p in plugins
            for s in p.analyze_line(filename="tool-output.txt", line=line, line_number=n)
            if s.secret_value
        }
        for v in sorted(values, key=len, reverse=True):
            line = line.replace(v, crs.REDACTED)
        out.append(line)
    return "\n".join(out)


@pytest.fixture(scope="module")
def ds_plugins() -> Any:
    settings = pytest.importorskip("detect_secrets.settings")
    with settings.default_settings():
        yield list(settings.get_plugins())


def test_sample_is_2kb_with_three_secrets() -> None:
    assert len(OUTPUT) == len(CLEAN) == 2048
    assert all(s in OUTPUT for s in SECRETS)
    assert all(s not in SANITIZER.sanitize(OUTPUT) for s in SECRETS)
    assert SANITIZER.sanitize(CLEAN) == CLEAN


def test_bench_sanitize_2kb_crs(benchmark: Any) -> None:
    out = benchmark(SANITIZER.sanitize, OUTPUT)
    assert all(s not in out for s in SECRETS)


def test_bench_sanitize_2kb_clean_crs(benchmark: Any) -> None:
    assert benchmark(SANITIZER.sanitize, CLEAN) == CLEAN


def test_bench_sanitize_2kb_go_patterns_sequential(benchmark: Any) -> None:
    out = benchmark(go_sequential, OUTPUT)
    assert all(s not in out for s in SECRETS)


def test_bench_sanitize_2kb_detect_secrets(benchmark: Any, ds_plugins: Any) -> None:
    out = benchmark(detect_secrets_redact, OUTPUT, ds_plugins)
    assert all(s not in out for s in SECRETS)


def _step() -> crs.TraceStep:
    return (
        crs.TraceStepBuilder()
        .with_action("tool_call")
        .with_target(OUTPUT[:200])
        .with_tool("Grep")
        .with_duration(0.012)
        .with_symbols_found(["TraceRecorder", "SecureTraceConfig"])
        .with_proof_update("session:s1:tool:Grep", "increment", "no match", "soft")
        .with_metadata("query", "password")
        .with_metadata("output", OUTPUT)
        .build()
    )


def test_bench_record_step_secure(benchmark: Any) -> None:
    rec = crs.TraceRecorder(crs.SecureTraceConfig())
    step = _step()
    stored = benchmark(rec.record_step, step)
    assert SECRETS[1] not in stored.metadata["output"]


def test_bench_record_step_unsanitised(benchmark: Any) -> None:
    rec = crs.TraceRecorder(crs.DefaultTraceConfig())
    step = _step()
    assert benchmark(rec.record_step, step).tool == "Grep"


def coverage() -> dict[str, tuple[int, int]]:
    """How many of the labelled secrets in tests/reasoning/test_sanitizer.py each approach
    removes."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "reasoning"))
    from detect_secrets.settings import default_settings, get_plugins

    import test_sanitizer as t

    samples = [(pos, secret) for _, pos, secret, _, _ in t.CASES]
    samples += [
        ("password=hunter2", "hunter2"),
        ("deploy --token abc123", "abc123"),
        ('{"password": "pw1"}', "pw1"),
        ("db_password: correct horse battery", "correct horse battery"),
        ("Authorization: Bearer abc.def", "abc.def"),
        ("x-api-key: k-123", "k-123"),
        ("git clone https://bob:pa55@github.com/x/y", "pa55"),
        ("token ghp_" + t.body(24, t.ALNUM), "ghp_" + t.body(24, t.ALNUM)),
        ("key sk-ant-api03-" + t.body(40, t.ALNUM), t.body(40, t.ALNUM)),
        ('{"value": "' + t.body(32) + '"}', t.body(32)),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx4\n-----END RSA PRIVATE KEY-----",
         "MIIEowIBAAKCAQEAx4"),
    ]  # fmt: skip
    with default_settings():
        plugins = list(get_plugins())
        tools = {
            "crs SecretSanitizer": SANITIZER.sanitize,
            "Go 21 patterns": go_sequential,
            "detect-secrets": lambda s: detect_secrets_redact(s, plugins),
        }
        return {
            name: (sum(secret not in f(text) for text, secret in samples), len(samples))
            for name, f in tools.items()
        }


if __name__ == "__main__":
    for name, (removed, total) in coverage().items():
        print(f"{name:22s} removed {removed}/{total}")
