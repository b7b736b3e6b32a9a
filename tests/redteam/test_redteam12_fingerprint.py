"""Red team, twelfth pass: a workspace fingerprint that is long (a `git diff`'s text).

`fingerprint=` is the user's function; its value was stored whole in every learned failure
and shown by `learned()`, `crs guard learned` and the dashboard: a 10 MB fingerprint made
each learned failure a 10 MB record, and one over the journal's 64 MiB record limit made
every failure's record refused. A fingerprint over 256 characters is kept as its digest
now: it compares the same (the same workspace refuses the failure, another does not).
"""

from __future__ import annotations

from pathlib import Path

from crs.guard import Guard

DIFF = "diff --git a/x b/x\n" + "+a line of the change\n" * 500_000  # ~10.5 MB


def _fail(project: Path, home: Path, session: str, fp: str) -> str:
    with Guard.open(project, session, home=home, fingerprint=lambda: fp) as g:
        v = g.before_call("build", {"target": "all"})
        if not v.allowed:
            return str(v.code)
        assert v.call is not None
        g.after_call(v.call, error="make: *** [all] Error 2")
        return "ran"


def test_a_long_fingerprint_is_kept_as_its_digest_and_compares_the_same(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    assert _fail(project, home, "s1", DIFF) == "ran"
    journal_bytes = sum(f.stat().st_size for f in home.rglob("*") if f.is_file())
    assert journal_bytes < 1 << 20  # before: over 10 MB
    with Guard.open(project, "s2", home=home, fingerprint=lambda: DIFF) as g:
        (lf,) = g.learned()
        assert len(lf.fingerprint) < 100  # before: 10.5 million characters
    assert _fail(project, home, "s2", DIFF) == "known_failure"  # the same workspace
    assert _fail(project, home, "s3", DIFF + "+one more\n") == "ran"  # another one


def test_a_short_fingerprint_is_kept_as_it_is(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    assert _fail(project, home, "s1", "build-1234") == "ran"
    with Guard.open(project, "s2", home=home, fingerprint=lambda: "build-1234") as g:
        assert [f.fingerprint for f in g.learned()] == ["build-1234"]


def test_a_fingerprint_with_a_lone_surrogate_over_the_bound_digests(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    odd = "\ud800" + "x" * 300
    assert _fail(project, home, "s1", odd) == "ran"
    assert _fail(project, home, "s2", odd) == "known_failure"
