"""Map every exported item of the Go seed page to its Python name and report test coverage.

    PYTHONPATH=python python scripts/seed_coverage.py /work/shared/seeds/001_*.txt \
        [--seen seen.json ...]

Items: types, struct fields, methods, interface methods, functions and constants (enum
members, error sentinels) of the page, named by the rule of spec/README.md §2. For each: does
the Python name exist, and is it covered by the seed acceptance tests (methods and functions:
called directly from a test, per the `seed_calltrace` plugin's output; other items: named in
a test). Prints the items that exist but are not covered, and a summary per kind.
(docs/seed-acceptance.md, "Fourth pass".)
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import inspect
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import crs

ROOT = Path(__file__).resolve().parent.parent
PREFIXES = {
    "AnalyticsQuery": "AnalyticsQueryType",
    "ErrorCategory": "ErrorCategory",
    "Index": "IndexMask",
}


def extract(lines: list[str]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []

    def add(kind: str, owner: str, name: str, i: int) -> None:
        items.append({"kind": kind, "owner": owner, "name": name, "line": i + 1})

    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^func \((\w+ )?\*?(\w+)\) (\w+)\(", line)
        if m:
            add("method", m.group(2), m.group(3), i)
        elif (m := re.match(r"^func (\w+)\(", line)) and i > 700:
            add("func", "", m.group(1), i)
        elif m := re.match(r"^type (\w+) (interface|struct) \{", line):
            owner, kind = m.group(1), m.group(2)
            add("type", "", owner, i)
            depth, i = 1, i + 1
            while i < len(lines) and depth > 0:
                t = lines[i]
                if depth == 1:
                    pat = r"^\t([A-Z]\w*)\(" if kind == "interface" else r"^\t([A-Z]\w*)\s+\S"
                    if mm := re.match(pat, t):
                        add("imethod" if kind == "interface" else "field", owner, mm.group(1), i)
                depth += t.count("{") - t.count("}")
                i += 1
            continue
        elif (m := re.match(r"^type (\w+) (\w+)", line)) and i > 700:
            add("type", "", m.group(1), i)
        elif line.startswith(("const (", "var (")):
            i += 1
            while i < len(lines) and not lines[i].startswith(")"):
                if mm := re.match(r"^\t([A-Z]\w*)\b", lines[i]):
                    add("const", "", mm.group(1), i)
                i += 1
        elif m := re.match(r"^(const|var) (\w+)", line):
            add("const", "", m.group(2), i)
        i += 1
    return items


def snake(name: str) -> str:
    name = name.replace("SCCs", "Sccs").replace("IDs", "Ids")
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


ENUMS = sorted(
    (
        n
        for n in dir(crs)
        if isinstance(getattr(crs, n), type) and issubclass(getattr(crs, n), enum.Enum)
    ),
    key=len,
    reverse=True,
)


def python_name(kind: str, owner: str, name: str) -> str:
    if kind == "method" and name == "String":
        return f"{owner}.__str__"
    if kind == "method" and name == "Import":
        return f"{owner}.import_"
    if kind == "field" and name == "From":
        return f"{owner}.from_"
    if kind == "const":
        if name.startswith("Err") and not name.startswith("ErrorCategory"):
            return name[3:] + "Error"
        for prefix, target in PREFIXES.items():
            rest = name[len(prefix) :]
            if name.startswith(prefix) and rest[:1].isupper() and not name.startswith("IndexMask"):
                return f"{target}.{snake(rest).upper()}"
        for e in ENUMS:
            if name.startswith(e) and name != e:
                return f"{e}.{snake(name[len(e) :]).upper()}"
        return snake(name).upper()
    if kind == "type":
        return name
    if kind == "func":
        if name == "New":
            return "CRS"
        if name.startswith("New"):
            return name[3:]
        if name.startswith("Default") or name == "SecureTraceConfig":
            return name
        return snake(name)
    return f"{owner}.{snake(name)}"


def exists(py: str) -> bool:
    obj: Any = crs
    for part in py.split("."):
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        if not isinstance(obj, type):
            return False
        if dataclasses.is_dataclass(obj) and part in {f.name for f in dataclasses.fields(obj)}:
            return True
        annotations: dict[str, Any] = {}
        for cls in obj.__mro__:
            annotations.update(getattr(cls, "__annotations__", {}))
        if part in annotations or part in getattr(obj, "_fields", ()):
            return True
        try:
            return part in inspect.signature(obj).parameters
        except (TypeError, ValueError):
            return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("seed")
    ap.add_argument("--seen", action="append", default=[])
    ap.add_argument("--tests", default=str(ROOT / "tests" / "api"))
    args = ap.parse_args()
    items = extract(Path(args.seed).read_text().splitlines())
    seen: set[str] = set()
    for path in args.seen:
        seen |= set(json.loads(Path(path).read_text()))
    corpus = [p.read_text() for p in Path(args.tests).glob("test_seed_acceptance*.py")]
    total, dropped, covered = Counter(), Counter(), Counter()
    for it in items:
        kind = it["kind"]
        py = python_name(kind, it["owner"], it["name"])
        total[kind] += 1
        if not exists(py):
            dropped[kind] += 1
            print(f"absent  {kind:7s} {py}  (seed line {it['line']})")
            continue
        last = py.split(".")[-1]
        if kind in ("method", "imethod", "func") and seen:
            ok = py in seen or any(q.endswith("." + last) or q.startswith(last + ".") for q in seen)
        else:
            pat = rf"(\.{re.escape(last)}\b|\b{re.escape(last)}\b)"
            ok = any(re.search(pat, text) for text in corpus)
        covered[kind] += ok
        if not ok:
            print(f"untested {kind:7s} {py}  (seed line {it['line']})")
    for kind in total:
        n, gone, ok = total[kind], dropped[kind], covered[kind]
        print(f"{kind:8s} {n:4d} items, {gone:3d} absent, {ok:4d} covered")


if __name__ == "__main__":
    main()
