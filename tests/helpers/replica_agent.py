"""An agent process for tests/test_nats_crs.py; prints its CRS state as JSON on stdout.

replica_agent.py write URL SESSION SEED N     N seeded mutations journaled to NATS
replica_agent.py read URL SESSION...          replay each session's NATS journal
replica_agent.py write-local DIR SEED N       N seeded mutations on a LocalJournal
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
import time
from typing import Any

import crs

TOOLS = ["grep", "read", "build"]


def mutate(c: crs.CRS, rng: random.Random, i: int) -> None:
    tool, prev = rng.choice(TOOLS), rng.choice(TOOLS)
    kind = rng.randrange(6)
    if kind == 0:
        c.update_proof_number(
            crs.ProofUpdate(
                node_id=f"n{rng.randrange(5)}",
                type=rng.choice(list(crs.ProofUpdateType)[1:]),
                delta=2,
                source=crs.SignalSource.HARD,
            )
        )
    elif kind == 1:
        c.record_step(
            crs.StepRecord(
                session_id="s1",
                actor=crs.Actor.MAIN_AGENT,
                decision=crs.Decision.EXECUTE_TOOL,
                tool=tool,
                outcome=crs.Outcome.SUCCESS,
            )
        )
    elif kind == 2:
        c.add_clause(
            crs.Clause(
                id=f"c{i}",
                literals=(
                    crs.Literal(variable=f"tool:{tool}", negated=True),
                    crs.Literal(variable=f"prev_tool:{prev}", negated=True),
                ),
                source=crs.SignalSource.HARD,
                session_id="s1",
            )
        )
    elif kind == 3:
        c.record_similarity(f"q{i}", f"q{rng.randrange(i + 1)}x", rng.random())
    elif kind == 4:
        c.apply(crs.DependencyDelta(1, add_edges=[(f"n{rng.randrange(5)}", f"m{i}")]))
    else:
        c.check_decision_allowed("s1", tool)


def state(c: crs.CRS) -> dict[str, Any]:
    doc = {"generation": c.generation(), "position": c.journal_position()}
    doc["image"] = c._state_image()
    return doc


def nats(url: str, session: str) -> crs.NATSJournal:
    cfg = crs.NATSJournalConfig(session_id=session, servers=url, codec=crs.DeltaCodec())
    return crs.NATSJournal(cfg)


def main(argv: list[str]) -> int:
    mode = argv[0]
    if mode == "write":
        url, session, seed, n = argv[1], argv[2], int(argv[3]), int(argv[4])
        rng = random.Random(seed)
        with nats(url, session) as j:
            c = crs.CRS(journal=j)
            for i in range(n):
                mutate(c, rng, i)
                time.sleep(0.005)  # let the other agent's entries interleave in the stream
            print(json.dumps({**state(c), "entries": j.stats().total_deltas}))
    elif mode == "read":
        url, sessions = argv[1], argv[2:]
        out = []
        for session in sessions:
            with nats(url, session) as j:
                out.append(state(crs.CRS.open(j)))
        print(json.dumps(out))
    elif mode == "write-local":
        path, seed, n = argv[1], int(argv[2]), int(argv[3])
        rng = random.Random(seed)
        cfg = dataclasses.replace(
            crs.DefaultJournalConfig(), path=path, session_id="t", sync_policy="none"
        )
        with crs.LocalJournal(cfg, crs.DeltaCodec()) as j:
            c = crs.CRS.open(j)
            for i in range(n):
                mutate(c, rng, i)
            print(json.dumps(state(c)))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
