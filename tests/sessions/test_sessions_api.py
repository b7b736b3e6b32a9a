"""The public surface of `crs.sessions`: `__all__` is sorted and complete, names report home."""

from __future__ import annotations

import doctest
import types

import crs
import crs.sessions
from crs.sessions import _claude, _model


def test_all_is_sorted() -> None:
    assert crs.sessions.__all__ == sorted(crs.sessions.__all__)


def test_all_is_complete() -> None:
    public = {
        name
        for name, obj in vars(crs.sessions).items()
        if not name.startswith("_") and not isinstance(obj, types.ModuleType)
    }
    assert public - set(crs.sessions.__all__) == set(), "public names missing from __all__"
    assert set(crs.sessions.__all__) - set(vars(crs.sessions)) == set()


def test_public_names_report_their_package() -> None:
    for name in crs.sessions.__all__:
        obj = getattr(crs.sessions, name)
        if isinstance(obj, type) or callable(obj):
            assert obj.__module__ in ("crs", "crs.sessions"), name


def test_errors_are_the_crs_errors() -> None:
    assert crs.sessions.ContractError is crs.ContractError
    assert crs.sessions.SessionError is crs.SessionError
    assert issubclass(crs.UnknownAdapterError, crs.SessionError)
    assert issubclass(crs.UnknownAdapterError, ValueError)
    assert issubclass(crs.TmuxNotFoundError, crs.SessionError)


def test_docstring_examples_run() -> None:
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs = dict(vars(crs.sessions))
    for name in crs.sessions.__all__:
        for test in finder.find(getattr(crs.sessions, name), name, module=False, globs=globs):
            runner.run(test)
    for module in (_model, _claude):
        for name, obj in vars(module).items():
            if callable(obj) and getattr(obj, "__module__", "").startswith("crs.sessions"):
                for test in finder.find(obj, name, module=False, globs=dict(vars(module))):
                    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0
    assert result.attempted >= 8
