"""The CSR digraph, its depth-bounded BFS and iterative Tarjan, against pure-Python references."""

from __future__ import annotations

import array
import sys
from collections import deque

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from crs import _core


def ref_bfs(n: int, edges: list[tuple[int, int]], start: int, max_depth: int) -> dict[int, int]:
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
    depth = {start: 0}
    q = deque([start])
    while q:
        u = q.popleft()
        if depth[u] >= max_depth:
            continue
        for v in adj[u]:
            if v not in depth:
                depth[v] = depth[u] + 1
                q.append(v)
    return depth


def ref_scc(n: int, edges: list[tuple[int, int]]) -> set[frozenset[int]]:
    """SCCs by mutual reachability (slow and obviously right)."""
    adj: list[set[int]] = [set() for _ in range(n)]
    for a, b in edges:
        adj[a].add(b)
    reach = []
    for s in range(n):
        seen = {s}
        stack = [s]
        while stack:
            for v in adj[stack.pop()]:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        reach.append(seen)
    return {frozenset(v for v in range(n) if v in reach[u] and u in reach[v]) for u in range(n)}


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]]]:
    n = draw(st.integers(1, 30))
    node = st.integers(0, n - 1)
    return n, draw(st.lists(st.tuples(node, node), max_size=90))


def build(n: int, edges: list[tuple[int, int]]) -> _core.Digraph:
    return _core.Digraph(n, array.array("I", [x for e in edges for x in e]))


@given(graphs(), st.data())
def test_bfs_matches_reference(g: tuple[int, list[tuple[int, int]]], data: st.DataObject) -> None:
    n, edges = g
    start = data.draw(st.integers(0, n - 1))
    max_depth = data.draw(st.integers(0, 8))
    nodes, depths = build(n, edges).bfs_within(start, max_depth)
    assert dict(zip(nodes, depths, strict=True)) == ref_bfs(n, edges, start, max_depth)
    assert len(set(nodes)) == len(nodes)
    assert nodes[0] == start
    assert depths == sorted(depths), "BFS order: by depth"


@given(graphs())
def test_tarjan_matches_reference(g: tuple[int, list[tuple[int, int]]]) -> None:
    n, edges = g
    comps = build(n, edges).tarjan_scc()
    assert {frozenset(c) for c in comps} == ref_scc(n, edges)
    assert sorted(v for c in comps for v in c) == list(range(n))
    # Pop order is reverse topological: an edge between components points to an earlier one.
    where = {v: k for k, c in enumerate(comps) for v in c}
    assert all(where[a] >= where[b] for a, b in edges)


def test_tarjan_is_not_recursive() -> None:
    n = 50 * sys.getrecursionlimit()
    chain = np.stack([np.arange(n), (np.arange(n) + 1) % n], axis=1).astype(np.uint32)
    g = _core.Digraph(n, chain)
    assert [len(c) for c in g.tarjan_scc()] == [n]
    nodes, depths = g.bfs_within(0, 100)
    assert nodes == list(range(101))
    assert depths == list(range(101))


def test_edge_buffers() -> None:
    pairs = [0, 1, 1, 2, 2, 0, 0, 2]
    by_numpy = _core.Digraph(3, np.array(pairs, dtype=np.uint32).reshape(-1, 2))
    by_bytes = _core.Digraph(3, np.array(pairs, dtype="<u4").tobytes())
    by_array = _core.Digraph(3, array.array("I", pairs))
    for g in (by_numpy, by_bytes, by_array):
        assert (g.node_count, g.edge_count) == (3, 4)
        assert g.successors(0) == [1, 2]
        assert g.reversed().successors(2) == [0, 1]
    assert _core.Digraph(5, b"").tarjan_scc() == [[0], [1], [2], [3], [4]]


@pytest.mark.parametrize(
    ("edges", "match"),
    [
        (array.array("I", [0, 3]), "node 3"),
        (array.array("I", [0, 1, 2]), "odd"),
        (b"\x00\x01\x02", "whole little-endian u32"),
        (np.array([0.5, 1.0]), "buffer of u32"),
        ("0,1", "buffer of u32"),
    ],
)
def test_bad_edges(edges: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        _core.Digraph(3, edges)  # type: ignore[arg-type]


def test_bad_nodes() -> None:
    g = _core.Digraph(2, array.array("I", [0, 1]))
    with pytest.raises(ValueError, match="out of range"):
        g.bfs_within(2, 3)
    with pytest.raises(ValueError, match="out of range"):
        g.successors(5)
