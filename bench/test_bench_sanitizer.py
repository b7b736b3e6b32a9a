"""Recall and false positives over the secret corpus, crs beside detect-secrets (issue 11).

The corpus (bench/data/secret_corpus.json): synthetic secrets in the formats of public
secret-scanner rules (gitleaks, trufflehog, detect-secrets), one per format, plus look-alike
negatives that must come back unchanged. A secret counts as caught when it no longer appears
in the output; a negative counts as a false positive when the output differs. detect-secrets
(Yelp; its default plugins, each reported value replaced) detects rather than redacts, so the
replacement is done here the same way for it as in bench/test_bench_trace.py.

    python bench/test_bench_sanitizer.py      # prints the table quoted in bench/RESULTS.md
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import crs
from test_bench_trace import detect_secrets_redact  # the same redaction the trace bench uses

CORPUS = json.loads((Path(__file__).parent / "data" / "secret_corpus.json").read_text())
SANITIZER = crs.SecretSanitizer()


def score(redact: Callable[[str], str]) -> dict[str, Any]:
    pos, neg = CORPUS["positives"], CORPUS["negatives"]
    t0 = time.perf_counter()
    missed = [p["format"] for p in pos if p["secret"] in redact(p["text"])]
    false = [n["text"] for n in neg if redact(n["text"]) != n["text"]]
    took = time.perf_counter() - t0
    return {
        "caught": len(pos) - len(missed),
        "positives": len(pos),
        "false_positives": len(false),
        "negatives": len(neg),
        "missed": missed,
        "false": false,
        "us_per_text": took / (len(pos) + len(neg)) * 1e6,
    }


@pytest.fixture(scope="module")
def ds_plugins() -> Iterator[list[Any]]:
    settings = pytest.importorskip("detect_secrets.settings")
    with settings.default_settings():
        yield list(settings.get_plugins())


def test_crs_recall_and_false_positives() -> None:
    r = score(SANITIZER.sanitize)
    assert r["caught"] == r["positives"], r["missed"]
    assert r["false_positives"] == 0, r["false"]


def test_detect_secrets_on_the_same_corpus(ds_plugins: list[Any]) -> None:
    r = score(lambda s: detect_secrets_redact(s, ds_plugins))
    assert r["caught"] < score(SANITIZER.sanitize)["caught"]  # the comparison RESULTS quotes


def test_bench_sanitize_corpus_crs(benchmark: Any) -> None:
    texts = [p["text"] for p in CORPUS["positives"]] + [n["text"] for n in CORPUS["negatives"]]
    benchmark(lambda: [SANITIZER.sanitize(t) for t in texts])


if __name__ == "__main__":
    from detect_secrets.settings import default_settings, get_plugins

    with default_settings():
        plugins = list(get_plugins())
        rows = {
            "crs SecretSanitizer": score(SANITIZER.sanitize),
            "detect-secrets (default plugins)": score(lambda s: detect_secrets_redact(s, plugins)),
        }
    for name, r in rows.items():
        print(
            f"{name:34s} caught {r['caught']}/{r['positives']}, false positives "
            f"{r['false_positives']}/{r['negatives']}, {r['us_per_text']:.0f} us/text"
        )
        if r["missed"]:
            print("   missed:", ", ".join(r["missed"]))
        if r["false"]:
            print("   false positives:", "; ".join(r["false"]))
