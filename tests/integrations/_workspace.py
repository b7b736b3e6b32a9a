"""The fake coding workspace every framework test drives, framework-neutral: plain Python
tools that count their runs, where `build` fails until `edit_file` fixed the code. Each
framework's test wraps `functions()` with its own tool decorator (LangChain's `@tool`, the
Agents SDK's `@function_tool`), which take the name, docstring and type hints from them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

BUILD_ERROR = "error: src/main.c:3: expected ';' before '}'"


class FakeWorkspace:
    """Counts each tool's runs (`runs`); `fixed` once `edit_file` ran."""

    def __init__(self, build_error: type[Exception] = RuntimeError) -> None:
        self.runs: Counter[str] = Counter()
        self.fixed = False
        self._build_error = build_error

    def functions(self) -> list[Callable[..., Any]]:
        """read_file, check_status, build, edit_file, as plain functions over this workspace."""
        ws = self

        def read_file(path: str) -> str:
            """Read a file."""
            ws.runs["read_file"] += 1
            return f"contents of {path}"

        def check_status(job: str) -> str:
            """Status of a job."""
            ws.runs["check_status"] += 1
            return "pending"

        def build(target: str) -> str:
            """Build a target."""
            ws.runs["build"] += 1
            if not ws.fixed:
                raise ws._build_error(BUILD_ERROR)
            return "build ok"

        def edit_file(path: str, text: str) -> str:
            """Write a file."""
            ws.runs["edit_file"] += 1
            ws.fixed = True
            return f"wrote {path}"

        return [read_file, check_status, build, edit_file]
