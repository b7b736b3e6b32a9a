"""The public surface: `__all__` is complete and sorted, and every name belongs to `crs`."""

from __future__ import annotations

import subprocess
import sys
import types

import crs


def test_all_is_sorted() -> None:
    assert crs.__all__ == sorted(crs.__all__)


def test_all_is_complete() -> None:
    for name in crs.__all__:  # names are bound on first use (PEP 562): load them all
        getattr(crs, name)
    assert set(crs.__all__) <= set(dir(crs))
    public = {
        name
        for name, obj in vars(crs).items()
        if not name.startswith("_") and not isinstance(obj, types.ModuleType)
    }
    assert public - set(crs.__all__) == set(), "public names missing from __all__"
    assert set(crs.__all__) - set(vars(crs)) == set(), "__all__ names that do not exist"


def test_every_public_name_reports_crs_module() -> None:
    for name in crs.__all__:
        obj = getattr(crs, name)
        if isinstance(obj, type) or callable(obj):
            assert obj.__module__ == "crs", name


def test_every_error_derives_from_crs_error() -> None:
    for name in crs.__all__:
        obj = getattr(crs, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            assert issubclass(obj, crs.CRSError), name


def test_version_matches_cargo() -> None:
    import tomllib
    from pathlib import Path

    cargo = tomllib.loads((Path(__file__).parents[2] / "Cargo.toml").read_text())
    assert crs.__version__ == cargo["package"]["version"]


def test_cli_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "crs", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"crs {crs.__version__}"
