"""Benchmarks of the algorithm kernels, each beside what a user would otherwise pick, on the
same data in the same run (issue 4). Large inputs are built lazily, once per process, and only
when benchmarks are enabled; with `--benchmark-disable` (the smoke run of `make test`) every
benchmark runs once on small inputs.

Run: `.venv/bin/maturin develop --release && .venv/bin/python -m pytest bench/test_bench_algo.py
--benchmark-enable --benchmark-columns=median,iqr,rounds --benchmark-sort=name`.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import numpy as np
import pytest

import crs
from crs import _core

# ---------------------------------------------------------------- data (cached per size)


def big(benchmark: Any) -> bool:
    return not benchmark.disabled


@functools.cache
def state_stream(n: int) -> list[str]:
    """Agent state keys drawn from a pool of 1,500 (no repeat within the 1,000-state window
    except where the pool cycles), like `get_state_key` output."""
    pool = [f"execute_tool:tool_{i}:success:router" for i in range(1500)]
    return [pool[i % len(pool)] for i in range(n)]


@functools.cache
def loop_stream(n: int) -> list[str]:
    """A looping agent: 5 states repeated, so every 6th state closes a cycle."""
    pool = [f"execute_tool:tool_{i}:failure:router" for i in range(5)]
    return [pool[i % len(pool)] for i in range(n)]


@functools.cache
def edges(n: int, m: int) -> np.ndarray:
    rng = np.random.default_rng(4)
    return rng.integers(0, n, size=(m, 2), dtype=np.uint32)


def graph_size(benchmark: Any) -> tuple[int, int]:
    return (100_000, 1_000_000) if big(benchmark) else (1_000, 10_000)


@functools.cache
def crs_graph(n: int, m: int) -> _core.Digraph:
    return _core.Digraph(n, edges(n, m))


@functools.cache
def rx_graph(n: int, m: int) -> Any:
    import rustworkx as rx

    g = rx.PyDiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from_no_data([tuple(e) for e in edges(n, m).tolist()])
    return g


@functools.cache
def nx_graph(n: int, m: int) -> Any:
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges(n, m).tolist())
    return g


# ---------------------------------------------------------------- cycle detection


@pytest.mark.benchmark(group="cycle: add_step, 10k states, per call = median / 10k")
def test_cycle_add_step_crs(benchmark: Any) -> None:
    states = state_stream(10_000)

    def run() -> int:
        add = crs.CycleDetector().add_step
        for s in states:
            add(s)
        return len(states)

    assert benchmark(run) == len(states)


@pytest.mark.benchmark(group="cycle: add_step, 10k states, per call = median / 10k")
def test_cycle_add_step_python_dict(benchmark: Any) -> None:
    """What a user would write: a dict of last positions, same semantics, no result objects."""
    states = state_stream(10_000)

    def run() -> int:
        last: dict[str, int] = {}
        found = 0
        for pos, s in enumerate(states):
            p = last.get(s)
            if p is not None and pos - p <= 1000:
                found += 1
                last.clear()
            else:
                last[s] = pos
        return len(states)

    assert benchmark(run) == len(states)


@pytest.mark.benchmark(group="cycle: add_step on a looping agent, 10k states")
def test_cycle_add_step_looping_crs(benchmark: Any) -> None:
    states = loop_stream(10_000)

    def run() -> int:
        add = crs.CycleDetector().add_step
        return sum(add(s).detected for s in states)

    assert benchmark(run) == len(states) // 6


@pytest.mark.benchmark(group="cycle: add_steps batch, 100k states, per state = median / 100k")
def test_cycle_add_steps_crs(benchmark: Any) -> None:
    states = state_stream(100_000 if big(benchmark) else 1_000)
    benchmark(lambda: crs.CycleDetector().add_steps(states))


@pytest.mark.benchmark(group="cycle: add_steps batch, 100k states, per state = median / 100k")
def test_cycle_add_many_ids_core(benchmark: Any) -> None:
    ids = [i % 1500 for i in range(100_000 if big(benchmark) else 1_000)]
    benchmark(lambda: _core.CycleDetector(1000).add_many(ids))


# ---------------------------------------------------------------- Tarjan SCC


@pytest.mark.benchmark(group="scc: 100k nodes / 1M edges")
def test_scc_crs(benchmark: Any) -> None:
    g = crs_graph(*graph_size(benchmark))
    assert sum(map(len, benchmark(g.tarjan_scc))) == g.node_count


@pytest.mark.benchmark(group="scc: 100k nodes / 1M edges")
def test_scc_rustworkx(benchmark: Any) -> None:
    import rustworkx as rx

    n, m = graph_size(benchmark)
    g = rx_graph(n, m)
    assert sum(map(len, benchmark(rx.strongly_connected_components, g))) == n


@pytest.mark.benchmark(group="scc: 100k nodes / 1M edges")
def test_scc_networkx(benchmark: Any) -> None:
    import networkx as nx

    n, m = graph_size(benchmark)
    g = nx_graph(n, m)
    result = benchmark.pedantic(
        lambda: list(nx.strongly_connected_components(g)), rounds=3, iterations=1
    )
    assert sum(map(len, result)) == n


# ---------------------------------------------------------------- BFS (propagate_disproof's walk)


@pytest.mark.benchmark(group="bfs: from node 0 within depth 100, 100k nodes / 1M edges")
def test_bfs_crs(benchmark: Any) -> None:
    g = crs_graph(*graph_size(benchmark))
    nodes, _ = benchmark(g.bfs_within, 0, 100)
    assert len(nodes) > g.node_count // 2


@pytest.mark.benchmark(group="bfs: from node 0 within depth 100, 100k nodes / 1M edges")
def test_bfs_rustworkx_bfs_layers(benchmark: Any) -> None:
    import rustworkx as rx

    n, m = graph_size(benchmark)
    g = rx_graph(n, m)
    layers = benchmark(rx.bfs_layers, g, [0])
    assert sum(map(len, layers)) > n // 2


@pytest.mark.benchmark(group="bfs: from node 0 within depth 100, 100k nodes / 1M edges")
def test_bfs_rustworkx_bfs_successors(benchmark: Any) -> None:
    import rustworkx as rx

    n, m = graph_size(benchmark)
    g = rx_graph(n, m)
    assert len(benchmark(rx.bfs_successors, g, 0)) > n // 2


# ---------------------------------------------------------------- clauses

FAMILIES = ["tool", "prev_tool", "prev_prev_tool", "outcome", "error"]


OBSERVED = [(f, f"v{i * 7 % 100}") for i, f in enumerate(FAMILIES)]


@functools.cache
def clause_set(count: int) -> list[list[tuple[str, str, bool]]]:
    """`count` clauses of 3-6 literals over 5 families x 100 values = 500 variables, literals
    negated with probability 0.7 (learned clauses are mostly blocking conditions). Clauses that
    `OBSERVED` violates are redrawn, except the last clause, which it violates: the worst case
    for a scan (and the usual case of an allowed decision, plus one block at the end)."""
    rng = random.Random(8)
    out: list[list[tuple[str, str, bool]]] = []
    while len(out) < count - 1:
        fams = rng.sample(FAMILIES, rng.randint(3, 5))
        lits = [(f, f"v{rng.randrange(100)}", rng.random() < 0.7) for f in fams]
        if rng.random() < 0.3:  # a sixth literal in a family already named
            lits.append((lits[0][0], f"v{rng.randrange(100)}", rng.random() < 0.7))
        if naive_first_violated([lits], OBSERVED) is None:
            out.append(lits)
    out.append([(f, v, True) for f, v in OBSERVED[:3]])
    return out


def clause_count(benchmark: Any) -> int:
    return 10_000 if big(benchmark) else 200


@functools.cache
def clause_db(count: int) -> _core.ClauseDb:
    db = _core.ClauseDb()
    for i, lits in enumerate(clause_set(count)):
        db.add(i, lits)
    return db


def naive_first_violated(
    clauses: list[list[tuple[str, str, bool]]], observed: list[tuple[str, str]]
) -> int | None:
    """A plain Python scan with the same one-hot three-valued semantics."""
    obs = dict(observed)
    for i, lits in enumerate(clauses):
        for f, v, neg in lits:
            o = obs.get(f)
            if o is None or (o == v) != neg:
                break  # unassigned or true literal: clause not violated
        else:
            return i
    return None


@pytest.mark.benchmark(group="clauses: check one-hot observation, 10k clauses / 500 variables")
def test_clauses_check_crs(benchmark: Any) -> None:
    count = clause_count(benchmark)
    db = clause_db(count)
    assert benchmark(db.check, OBSERVED) == naive_first_violated(clause_set(count), OBSERVED)
    assert db.check(OBSERVED) == count - 1


@pytest.mark.benchmark(group="clauses: check one-hot observation, 10k clauses / 500 variables")
def test_clauses_check_assignment_crs(benchmark: Any) -> None:
    count = clause_count(benchmark)
    db = clause_db(count)
    # The same one-hot observation spelled out: the observed values true, 10 others false.
    explicit = [(f, v, True) for f, v in OBSERVED] + [
        (f, f"v{j}", False) for f, v in OBSERVED for j in range(10) if f"v{j}" != v
    ]
    values = {(f, v): b for f, v, b in explicit}
    want = next(
        (
            i
            for i, lits in enumerate(clause_set(count))
            if all(values.get((f, v)) is neg for f, v, neg in lits)
        ),
        None,
    )
    assert benchmark(db.check_assignment, explicit) == want


@pytest.mark.benchmark(group="clauses: check one-hot observation, 10k clauses / 500 variables")
def test_clauses_check_naive_python(benchmark: Any) -> None:
    count = clause_count(benchmark)
    benchmark(naive_first_violated, clause_set(count), OBSERVED)


@pytest.mark.benchmark(group="clauses: check one-hot observation, 10k clauses / 500 variables")
def test_clauses_check_pysat_propagate(benchmark: Any) -> None:
    from pysat.solvers import Minisat22

    count = clause_count(benchmark)
    var = {(f, f"v{i}"): 1 + k * 100 + i for k, f in enumerate(FAMILIES) for i in range(100)}
    cnf = [[-var[f, v] if neg else var[f, v] for f, v, neg in lits] for lits in clause_set(count)]
    obs = dict(OBSERVED)
    assumptions = [
        var[f, f"v{i}"] if obs[f] == f"v{i}" else -var[f, f"v{i}"] for f in obs for i in range(100)
    ]
    with Minisat22(bootstrap_with=cnf) as solver:
        ok, _ = benchmark(solver.propagate, assumptions=assumptions)
    assert ok is False, "the last clause is violated: propagation must conflict"


# ---------------------------------------------------------------- MinHash / LSH

VOCAB = [f"w{i}" for i in range(5_000)]
TOOLS = ["search_code", "read_file", "grep", "list_packages", "run_tests"]


@functools.cache
def query_texts(count: int, words: int) -> list[str]:
    rng = random.Random(count)
    return [
        f"{rng.choice(TOOLS)}:" + " ".join(rng.choice(VOCAB) for _ in range(words))
        for _ in range(count)
    ]


@functools.cache
def ds_permutations() -> Any:
    from datasketch import MinHash

    return MinHash(num_perm=128).permutations


def datasketch_minhash(shingles: list[bytes]) -> Any:
    """datasketch's update loop, with permutations computed once (its cheapest use)."""
    from datasketch import MinHash

    m = MinHash(num_perm=128, permutations=ds_permutations(), scheme="affine32")
    for s in shingles:
        m.update(s)
    return m


@pytest.mark.benchmark(group="minhash: one 30-word query")
def test_minhash_one_crs(benchmark: Any) -> None:
    text = query_texts(1, 30)[0]
    assert len(benchmark(_core.minhash_signature, text)) == 512


@pytest.mark.benchmark(group="minhash: one 30-word query")
def test_minhash_one_datasketch(benchmark: Any) -> None:
    shingles = [s.encode() for s in _core.minhash_shingles(query_texts(1, 30)[0])]
    assert len(benchmark(datasketch_minhash, shingles).hashvalues) == 128


@pytest.mark.benchmark(group="minhash: 10k texts in bulk")
def test_minhash_bulk_crs(benchmark: Any) -> None:
    texts = query_texts(10_000 if big(benchmark) else 100, 30)
    assert len(benchmark(_core.minhash_signatures, texts)) == 512 * len(texts)


@pytest.mark.benchmark(group="minhash: 10k texts in bulk")
def test_minhash_bulk_datasketch(benchmark: Any) -> None:
    from datasketch import MinHash

    texts = query_texts(10_000 if big(benchmark) else 100, 30)
    shingled = [[s.encode() for s in _core.minhash_shingles(t)] for t in texts]
    result = benchmark.pedantic(
        lambda: MinHash.bulk(shingled, num_perm=128), rounds=3, iterations=1
    )
    assert len(result) == len(texts)


def lsh_size(benchmark: Any) -> int:
    return 100_000 if big(benchmark) else 500


@functools.cache
def lsh_signatures(count: int) -> bytes:
    return _core.minhash_signatures(query_texts(count, 12))


@functools.cache
def crs_lsh(count: int) -> _core.LshIndex:
    sigs = lsh_signatures(count)
    idx = _core.LshIndex()
    for i in range(count):
        idx.insert(i, sigs[512 * i : 512 * (i + 1)])
    return idx


def ds_minhash_of(sig: bytes) -> Any:
    from datasketch import MinHash

    values = np.frombuffer(sig, dtype="<u4").astype(np.uint64)
    return MinHash(hashvalues=values, permutations=ds_permutations(), scheme="affine32")


@functools.cache
def ds_lsh(count: int) -> Any:
    from datasketch import MinHashLSH

    sigs = lsh_signatures(count)
    lsh = MinHashLSH(num_perm=128, params=(20, 5))
    with lsh.insertion_session() as session:
        for i in range(count):
            session.insert(i, ds_minhash_of(sigs[512 * i : 512 * (i + 1)]))
    return lsh


def near_duplicate_query(count: int) -> bytes:
    """Document 7 with one word changed: it must come back as a candidate."""
    words = query_texts(count, 12)[7].split(" ")
    words[3] = "changed"
    return _core.minhash_signature(" ".join(words))


@pytest.mark.benchmark(group="lsh: query over 100k signatures (20 bands x 5 rows)")
def test_lsh_query_crs(benchmark: Any) -> None:
    count = lsh_size(benchmark)
    idx = crs_lsh(count)
    assert 7 in benchmark(idx.query, near_duplicate_query(count))


@pytest.mark.benchmark(group="lsh: query over 100k signatures (20 bands x 5 rows)")
def test_lsh_query_datasketch(benchmark: Any) -> None:
    count = lsh_size(benchmark)
    lsh = ds_lsh(count)
    q = ds_minhash_of(near_duplicate_query(count))
    assert 7 in benchmark(lsh.query, q)
