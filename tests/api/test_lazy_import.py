"""`import crs` stays cheap (PEP 562): it loads no subsystem, framework or optional package.

Each check runs in a fresh interpreter, so what this test process has already imported does not
hide an import. The names of `crs.__init__` must agree three ways: the `TYPE_CHECKING` imports
(what type checkers see), the `_EXPORTS` table (what `__getattr__` loads) and `__all__`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import crs
from fresh_imports import modules_after

HEAVY = (
    "asyncio",
    "importlib.metadata",
    "nats",
    "langchain",
    "langchain_core",
    "langgraph",
    "agents",
    "openai",
    "pydantic_ai",
    "mcp",
    "fastmcp",
    "prometheus_client",
    "opentelemetry",
    "crc32c",
)


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m in HEAVY or m.split(".")[0] in HEAVY[2:])


def test_import_crs_loads_no_subsystem_and_no_optional_package() -> None:
    modules = modules_after("import crs")
    assert _heavy(modules) == []
    assert sorted(m for m in modules if m.startswith("crs")) == ["crs", "crs._errors"]


def test_a_local_project_needs_no_asyncio_nats_or_package_metadata() -> None:
    code = (
        "import tempfile, crs\n"
        "c = crs.open_project(tempfile.mkdtemp(), home=tempfile.mkdtemp())\n"
        "c.record_step(crs.StepRecord(session_id='s', actor=crs.Actor.MAIN_AGENT,\n"
        "    decision=crs.Decision.EXECUTE_TOOL, tool='read_file', outcome=crs.Outcome.SUCCESS))\n"
        "assert not c.check_circuit_breaker('s', 'read_file').should_fire\n"
        "c.save_project_backup(); c.close()"
    )
    assert _heavy(modules_after(code)) == []


def test_names_report_crs_whichever_way_they_were_reached() -> None:
    code = (
        "import crs.sessions\n"
        "from crs._crs import CRS\n"
        "from crs._state._deltas import ProofDelta\n"
        "assert crs.sessions.ContractError.__module__ == 'crs'\n"
        "assert crs.CRSError.__module__ == 'crs'\n"
        "assert crs.CRS is CRS and CRS.__module__ == 'crs'\n"
        "assert ProofDelta.__module__ == 'crs'  # bound when crs.CRS loaded its module's peers"
    )
    modules_after(code)


def test_star_import_and_dir_list_every_name() -> None:
    code = "from crs import *\nimport crs\nassert set(crs.__all__) <= set(dir(crs))"
    modules = modules_after(code)
    assert "crs._journal._nats" in modules  # every subsystem loaded on demand


def test_unknown_and_private_names() -> None:
    assert crs._core.__name__ == "crs._core"
    for name in ("not_a_name", "_not_a_module", "__not_dunder__"):
        with pytest.raises(AttributeError, match=repr(name)):
            getattr(crs, name)


def _init_tree() -> ast.Module:
    return ast.parse(Path(crs.__file__).read_text(encoding="utf-8"))


def test_type_checking_imports_table_and_all_agree() -> None:
    tree = _init_tree()
    static: dict[str, tuple[str, str]] = {}
    table: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "crs._errors":
            static.update({a.name: (node.module, a.name) for a in node.names})
        if isinstance(node, ast.If) and ast.unparse(node.test) == "_typing.TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom)
                assert imp.module is not None
                for a in imp.names:
                    static[a.asname or a.name] = (imp.module, a.name)
        if isinstance(node, ast.AnnAssign) and ast.unparse(node.target) == "_EXPORTS":
            assert node.value is not None
            for module, entries in ast.literal_eval(node.value).items():
                for entry in entries:
                    public, _, attr = entry.partition("=")
                    table[public] = (module, attr or public)
    assert static == table
    assert set(table) == set(crs.__all__)
