"""The README's Python example runs as written, so it keeps working."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).parents[2] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_python_example() -> None:
    assert python_blocks(), "README.md must contain a ```python example"


def test_readme_examples_run(tmp_path: Path, monkeypatch: object) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setenv("CRS_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    for block in python_blocks():
        exec(compile(block, str(README), "exec"), {"__name__": "__readme__"})
