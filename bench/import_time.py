"""Whole-process start-up cost of `import crs`: median wall time over N fresh interpreters.

Usage: `python bench/import_time.py [N] [--pythonpath DIR]`. Runs `python -c pass` and
`python -c "import crs"` alternately (so load changes hit both alike) and prints the medians
of wall time and of CPU time (user + system, less disturbed by a loaded machine) and their
differences; hyperfine does the same when installed (`hyperfine -N -w 3 -r 30
'python -c pass' 'python -c "import crs"'`). Bytecode is cached as in an installed package
(in a temporary `PYTHONPYCACHEPREFIX`, so the tree stays clean), whatever
`PYTHONDONTWRITEBYTECODE` says.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def _run(code: str, env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh interpreter running `code`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    args = sys.argv[1:]
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="crs-import-time-")
    if "--pythonpath" in args:
        i = args.index("--pythonpath")
        env["PYTHONPATH"] = args[i + 1]
        del args[i : i + 2]
    n = int(args[0]) if args else 30
    for _ in range(3):  # warm the page cache
        _run("import crs", env)
    bare, crs = [], []
    for _ in range(n):
        bare.append(_run("pass", env))
        crs.append(_run("import crs", env))
    for i, what in enumerate(("wall", "CPU")):
        b = statistics.median(r[i] for r in bare) * 1e3
        c = statistics.median(r[i] for r in crs) * 1e3
        print(f"{what}: runs={n} bare={b:.1f} ms  import crs={c:.1f} ms  difference={c - b:.1f} ms")


if __name__ == "__main__":
    main()
