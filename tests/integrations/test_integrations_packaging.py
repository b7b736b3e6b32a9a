"""Packaging of the integrations: `import crs` and `import crs.integrations` import no framework,
each integration module imports only its own, the extras and the license are declared, and
`make demo` installs the runtime dependencies only."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from fresh_imports import modules_after

ROOT = Path(__file__).resolve().parents[2]
FRAMEWORKS = (
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
)


def imported_after(code: str) -> set[str]:
    """The frameworks a fresh interpreter has imported after `code`."""
    return modules_after(code) & set(FRAMEWORKS)


def test_import_crs_and_crs_integrations_import_no_framework() -> None:
    assert imported_after("import crs, crs.guard, crs.integrations") == set()


@pytest.mark.parametrize(
    ("module", "framework"),
    [
        ("crs.integrations.langchain", "import langchain.agents, langgraph.prebuilt"),
        ("crs.integrations.openai_agents", "import agents"),
        ("crs.integrations.pydantic_ai", "import pydantic_ai.capabilities, pydantic_ai.toolsets"),
        ("crs.integrations.prometheus", "import prometheus_client"),
        ("crs.integrations.otel", "import opentelemetry.trace"),
    ],
)
def test_an_integration_imports_only_its_framework(module: str, framework: str) -> None:
    got = imported_after(f"import {module}")
    assert got
    # What the framework itself imports comes along (the Agents SDK imports mcp and openai,
    # langchain and Pydantic AI import opentelemetry); nothing else does.
    assert got <= imported_after(f"import crs\n{framework}")


def pins() -> dict[str, str]:
    found = {}
    for line in (ROOT / "requirements-dev.txt").read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-]+)==(\S+)", line)
        if m:
            found[m.group(1).lower()] = m.group(2)
    return found


def test_extras_have_the_tested_versions_as_lower_bounds() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    pinned = pins()
    expected = {
        "langchain": ["langchain"],
        "openai-agents": ["openai-agents"],
        "pydantic-ai": ["pydantic-ai-slim"],
        "mcp": ["mcp", "fastmcp"],
        "prometheus": ["prometheus-client"],
        "otel": ["opentelemetry-api"],
    }
    for extra, packages in expected.items():
        assert extras[extra] == [f"{p}>={pinned[p]}" for p in packages], extra


def test_the_wheel_metadata_carries_the_license_and_project_urls() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())["package"]
    assert cargo["license"] == project["license"]
    assert {"Homepage", "Repository", "Issues"} <= set(project["urls"])
    assert all(u.startswith("https://") for u in project["urls"].values())


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_demo_installs_the_runtime_dependencies_only(tmp_path: Path) -> None:
    out = subprocess.run(
        ["make", "-n", "demo", f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert "-r requirements-dev.txt" not in out
    assert "maturin develop" in out
    grep = re.search(r"grep -E '([^']+)' requirements-dev.txt", out)
    assert grep is not None
    chosen = sorted(p for p in pins() if re.match(grep.group(1), f"{p}=="))
    runtime = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert chosen == sorted(["maturin", *(re.split(r"[<>=]", d)[0] for d in runtime)])
