"""The package's import graph has no circle (issue 10), read from the source with `ast`.

Every `import` / `from ... import` of a `crs` module counts, including those inside functions
(a lazy import that dodges a circle is still a circle); imports under `if TYPE_CHECKING:` do
not, since they never run. Importing a submodule initialises its parent packages first, so an
edge to one's own ancestor package (`from crs import _core` inside `crs._state`) is no circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import crs

ROOT = Path(crs.__file__).parent


def _modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for path in ROOT.rglob("*.py"):
        parts = ("crs", *path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = path
    return mods


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(name: str, path: Path, mods: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                continue
            if isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    up = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*up, *([base] if base else [])])
                subs = {f"{base}.{a.name}" for a in child.names} & mods.keys()
                found.update(subs or ({base} & mods.keys()))
            elif isinstance(child, ast.Import):
                found.update({a.name for a in child.names} & mods.keys())
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {d for d in found if d != name and not name.startswith(d + ".")}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on_stack.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_no_import_circle() -> None:
    mods = _modules()
    graph = {name: _imports(name, path, mods) for name, path in mods.items()}
    assert _cycles(graph) == []


def test_the_checker_sees_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_lower_layers_never_import_the_facade() -> None:
    mods = _modules()
    above = {"crs", "crs._crs", "crs._crs_eval", "crs._replica", "crs._project", "crs._cli"}
    for name, path in mods.items():
        lower = ("crs._state", "crs._reasoning", "crs._journal", "crs._persistence")
        if name.startswith(lower) or name in ("crs._kernel", "crs._image"):
            bad = {d for d in _imports(name, path, mods) if d in above or d.startswith("crs._cli")}
            assert bad == set(), name


def test_the_kernel_sits_below_its_parts() -> None:
    # The parts (guards, persistence) hold a kernel; the kernel never imports them, and the
    # image format imports neither.
    mods = _modules()
    kernel = _imports("crs._kernel", mods["crs._kernel"], mods)
    assert not {d for d in kernel if d.startswith(("crs._reasoning", "crs._persistence"))}
    assert "crs._kernel" not in _imports("crs._image", mods["crs._image"], mods)
