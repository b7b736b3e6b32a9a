"""What guarding an MCP tool call costs, through fastmcp's in-process `Client(server)`.

Per round, interleaved (so drift hits every variant alike), one call each of:

- `bare`: a tool on a plain fastmcp server;
- `guarded (memory)`: the same tool behind `GuardMiddleware(Guard())`;
- `guarded (durable)`: behind `GuardMiddleware(Guard.open(project, ...))` (journal fsync per call);
- `crs mcp pair (durable)`: what a client of `crs mcp` pays instead: `check_call` then
  `record_result` on the guard server, on a durable guard;
- `guard only (durable)`: `before_call` + `after_call` on a durable guard, no MCP;
- `guard only, async (durable)`: `abefore_call` + `aafter_call` (each in a worker thread, as
  the middleware calls them).

Every call has new arguments (`src/f<i>.py`), so the guard never refuses one. Medians in µs;
the overhead of a variant is its median minus the bare median.

It also times starting `python -m crs mcp` over stdio until its first answer (`--startups`).

Run: `python bench/mcp_overhead.py [--rounds N] [--startups N]` (release build of the extension).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fastmcp import Client, FastMCP

from crs.guard import Guard
from crs.integrations.mcp import GuardMiddleware, create_server

CONTENT = "def f():\n    return 1\n" * 4


def tool_server(name: str, guard: Guard | None) -> FastMCP:
    server = FastMCP(name, middleware=[GuardMiddleware(guard)] if guard is not None else [])

    @server.tool
    def read_file(path: str) -> str:
        """Read a file."""
        return CONTENT

    return server


async def measure(rounds: int, root: Path) -> dict[str, float]:
    project, home = root / "project", root / "home"
    project.mkdir(exist_ok=True)
    samples: dict[str, list[float]] = {}
    with Guard() as mem, Guard.open(project, "bench", home=home) as durable:
        plain = Guard.open(root / "other", "bench", home=home / "other")
        with plain:
            async with (
                Client(tool_server("bare", None)) as bare,
                Client(tool_server("mem", mem)) as gmem,
                Client(tool_server("durable", durable)) as gdur,
                Client(create_server(durable.with_session("pair"))) as pair,
            ):

                async def one_pair(i: int) -> None:
                    args = {"path": f"src/p{i}.py"}
                    v = await pair.call_tool("check_call", {"tool": "read_file", "arguments": args})
                    assert v.structured_content is not None
                    cid = v.structured_content["call"]["call_id"]
                    await pair.call_tool("record_result", {"call_id": cid, "result": CONTENT})

                async def guard_only(i: int) -> None:
                    v = plain.before_call("read_file", {"path": f"src/g{i}.py"})
                    assert v.call is not None
                    plain.after_call(v.call, result=CONTENT)

                async def guard_only_async(i: int) -> None:
                    v = await plain.abefore_call("read_file", {"path": f"src/a{i}.py"})
                    assert v.call is not None
                    await plain.aafter_call(v.call, result=CONTENT)

                variants: list[tuple[str, Any]] = [
                    ("bare", lambda i: bare.call_tool("read_file", {"path": f"src/f{i}.py"})),
                    ("guarded (memory)", lambda i: gmem.call_tool("read_file", {"path": f"m{i}"})),
                    ("guarded (durable)", lambda i: gdur.call_tool("read_file", {"path": f"d{i}"})),
                    ("crs mcp pair (durable)", one_pair),
                    ("guard only (durable)", guard_only),
                    ("guard only, async (durable)", guard_only_async),
                ]
                for i in range(-min(50, rounds), rounds):  # negative: warm-up, not kept
                    for name, fn in variants:
                        t0 = time.perf_counter()
                        await fn(i)
                        dt = (time.perf_counter() - t0) * 1e6
                        if i >= 0:
                            samples.setdefault(name, []).append(dt)
    return {name: statistics.median(v) for name, v in samples.items()}


def report(medians: dict[str, float]) -> str:
    bare = medians["bare"]
    lines = ["| variant | median µs | overhead over bare µs |", "| --- | ---: | ---: |"]
    for name, m in medians.items():
        over = "" if name == "bare" or name.startswith("guard only") else f"{m - bare:.0f}"
        lines.append(f"| {name} | {m:.0f} | {over} |")
    return "\n".join(lines)


async def startup(runs: int, root: Path) -> float:
    """Median seconds from starting `python -m crs mcp` (stdio) to its first tool answer."""
    from fastmcp.client.transports import StdioTransport

    project, home = root / "project", root / "home"
    project.mkdir(parents=True, exist_ok=True)
    args = ["-m", "crs", "mcp", "--project", str(project), "--home", str(home)]
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        transport = StdioTransport(sys.executable, args, env=dict(os.environ), keep_alive=False)
        async with Client(transport, timeout=60) as client:
            await client.call_tool("check_call", {"tool": "read_file", "arguments": {"path": "a"}})
            times.append(time.perf_counter() - t0)
        await asyncio.sleep(0.5)  # let the server exit and release the project
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--startups", type=int, default=5, help="stdio server starts to time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        medians = asyncio.run(measure(args.rounds, Path(tmp)))
        print(f"{args.rounds} rounds")
        print(report(medians))
        if args.startups:
            start = asyncio.run(startup(args.startups, Path(tmp) / "startup"))
            print(f"stdio `crs mcp`, start to first answer: median {start:.2f} s")


if __name__ == "__main__":
    main()
