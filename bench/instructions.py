"""Instructions per guarded call pair, counted by valgrind's callgrind (deterministic, so
usable on a loaded machine, unlike a timing): the in-memory `Guard()` pair at 10,000 pairs of
history, or the durable `Guard.open` pair with every fdatasync a no-op.

Run: `python bench/instructions.py [--durable] [<tree>]` (a tree is a checkout holding
`python/crs` with the built extension; default: this one). It runs the workload twice under
`valgrind --tool=callgrind` (N=0 and N=1,000 timed pairs after the same history, hash seed
fixed) and prints the difference divided by 1,000. Needs valgrind (Debian's package).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

N = 1_000

_WORKLOAD = """
import itertools, os, sys, tempfile
from pathlib import Path
durable, n, history = sys.argv[1] == "1", int(sys.argv[2]), int(sys.argv[3])
if durable:
    os.fdatasync = lambda fd: None  # the CPU side only
from crs.guard import Guard
tmp = Path(tempfile.mkdtemp())
g = (Guard.open(tmp / "p", "bench", home=tmp / "h", fingerprint=lambda: "f")
     if durable else Guard())
c = itertools.count()
def pair():
    i = next(c)
    v = g.before_call("read_file", {"path": f"src/file_{i}.py"})
    g.after_call(v.call, result=f"contents of file {i}")
for _ in range(history + n):
    pair()
"""


def _count(tree: Path, durable: bool, n: int) -> int:
    history = 300 if durable else 10_000
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(tree / "python"))
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            _WORKLOAD,
            "1" if durable else "0",
            str(n),
            str(history),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    m = re.search(r"Collected : (\d+)", done.stderr)
    if m is None:
        raise SystemExit(f"no count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(m.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree", nargs="?", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--durable", action="store_true", help="Guard.open, fdatasync a no-op")
    args = ap.parse_args()
    tree = Path(args.tree).resolve()
    base = _count(tree, args.durable, 0)
    full = _count(tree, args.durable, N)
    kind = "durable (no fdatasync)" if args.durable else "in memory, 10k history"
    print(f"{tree}: {(full - base) // N:,} instructions per pair, {kind}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
