"""Code-graph access for the CRS: the `GraphQuery` protocols, a dependency index backed
by a graph, and `InMemoryGraph`, a small adapter for tests and small users.

With a graph provider set (`CRS.set_graph_provider`), a snapshot's dependency index asks
the graph: `depends_on` = callees, `depended_by` = callers. Such queries see the live
graph (a graph is refreshed outside the CRS), as in the Go package.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections import deque
from typing import Protocol, runtime_checkable

from crs._check import brief, fail, items_of, require_instance
from crs._errors import GraphQueryClosedError, InvalidArgumentError
from crs._state._snapshot import DependencyIndexView
from crs._types import _Record

_log = logging.getLogger("crs.graph")


@dataclasses.dataclass(frozen=True, slots=True)
class GraphSymbol(_Record):
    """A code symbol as a graph adapter reports it."""

    id: str = ""
    name: str = ""
    kind: str = ""
    file_path: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class GraphHotSpot(_Record):
    """A highly connected symbol."""

    symbol_id: str = ""
    name: str = ""
    score: int = 0
    in_degree: int = 0
    out_degree: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class GraphCommunity(_Record):
    """A group of related symbols."""

    id: str = ""
    symbol_ids: tuple[str, ...] = ()
    modularity: float = 0.0


@dataclasses.dataclass(frozen=True, slots=True)
class GraphQueryConfig(_Record):
    """Cache TTL and PageRank timeout of a graph adapter (milliseconds)."""

    cache_ttl_ms: int = 0
    page_rank_timeout_ms: int = 0


def DefaultGraphQueryConfig() -> GraphQueryConfig:  # the seed's name (spec README §2)
    """5-minute cache TTL, 30-second PageRank timeout."""
    return GraphQueryConfig(cache_ttl_ms=300_000, page_rank_timeout_ms=30_000)


@runtime_checkable
class GraphAnalyticsQuery(Protocol):
    """Read-only graph analytics."""

    def hot_spots(self, k: int) -> list[GraphHotSpot]: ...
    def dead_code(self) -> list[str]: ...
    def cyclic_dependencies(self) -> list[list[str]]: ...
    def page_rank(self) -> dict[str, float]: ...
    def communities(self) -> list[GraphCommunity]: ...


@runtime_checkable
class GraphQuery(Protocol):
    """Read-only access to a code graph."""

    def find_symbol_by_id(self, id: str) -> GraphSymbol | None: ...
    def find_symbols_by_name(self, name: str) -> list[GraphSymbol]: ...
    def find_symbols_by_kind(self, kind: str) -> list[GraphSymbol]: ...
    def find_symbols_in_file(self, file_path: str) -> list[GraphSymbol]: ...
    def find_callers(self, symbol_id: str) -> list[GraphSymbol]: ...
    def find_callees(self, symbol_id: str) -> list[GraphSymbol]: ...
    def find_implementations(self, interface_name: str) -> list[GraphSymbol]: ...
    def find_references(self, symbol_id: str) -> list[GraphSymbol]: ...
    def get_call_chain(self, from_id: str, to_id: str, max_depth: int) -> list[str]: ...
    def shortest_path(self, from_id: str, to_id: str) -> list[str]: ...
    def analytics(self) -> GraphAnalyticsQuery: ...
    def node_count(self) -> int: ...
    def edge_count(self) -> int: ...
    def generation(self) -> int: ...
    def last_refresh_time(self) -> int: ...
    def close(self) -> None: ...


@runtime_checkable
class GraphRefreshCoordinator(Protocol):
    """Something that must pause graph refreshes while a CRS restores."""

    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def is_paused(self) -> bool: ...


class GraphBackedDependencyIndex(DependencyIndexView):
    """A `DependencyIndexView` that asks a `GraphQuery` (callers/callees) instead of
    storing edges. `size()` is cached until `invalidate_cache()`. (A subclass, so that
    ``isinstance(index, DependencyIndexView)`` holds as the seed's interface promises; every
    method of the view is overridden.)"""

    def __init__(self, adapter: GraphQuery) -> None:
        if adapter is None or not callable(getattr(adapter, "find_callers", None)):
            raise InvalidArgumentError(f"adapter: must be a GraphQuery, got {brief(adapter)}")
        self._adapter = adapter
        self._lock = threading.Lock()
        self._size: int | None = None
        self._epoch = 0

    def depends_on(self, node_id: str) -> list[str]:
        """Callees of `node_id`; [] (and a warning) when the graph query fails."""
        try:
            return [s.id for s in self._adapter.find_callees(node_id)]
        except Exception as err:  # the Go index degrades the same way
            _log.warning("graph find_callees(%r) failed: %s", node_id, err)
            return []

    def depended_by(self, node_id: str) -> list[str]:
        """Callers of `node_id`; [] (and a warning) when the graph query fails."""
        try:
            return [s.id for s in self._adapter.find_callers(node_id)]
        except Exception as err:  # the Go index degrades the same way
            _log.warning("graph find_callers(%r) failed: %s", node_id, err)
            return []

    def has_cycle(self, node_id: str) -> bool:
        has = getattr(self._adapter, "has_cycle_from", None)
        return bool(has(node_id)) if callable(has) else False

    def size(self) -> int:
        with self._lock:
            if self._size is not None:
                return self._size
            epoch = self._epoch
        try:
            n = self._adapter.edge_count()
        except GraphQueryClosedError:
            return 0
        with self._lock:
            if epoch == self._epoch:  # not invalidated meanwhile
                self._size = n
        return n

    def all_edges(self) -> dict[str, list[str]] | None:
        """None: edges live in the graph, which persists itself."""
        return None

    def is_graph_backed(self) -> bool:
        return True

    def generation(self) -> int:
        return self._adapter.generation()

    def invalidate_cache(self) -> None:
        with self._lock:
            self._size = None
            self._epoch += 1
        inv = getattr(self._adapter, "invalidate_cache", None)
        if callable(inv):
            inv()


class InMemoryGraph:
    """A small `GraphQuery` over symbols and call edges held in memory.

    Args:
        symbols: The graph's symbols.
        calls: (caller_id, callee_id) edges.
        generation: The graph version this adapter reports.
    """

    def __init__(
        self,
        symbols: list[GraphSymbol] | tuple[GraphSymbol, ...] = (),
        calls: list[tuple[str, str]] | tuple[tuple[str, str], ...] = (),
        generation: int = 0,
        refreshed_at: int = 0,
    ) -> None:
        symbols = items_of(symbols, "symbols")
        calls = items_of(calls, "calls")
        for sym in symbols:
            if not isinstance(sym, GraphSymbol) or not sym.id:
                raise InvalidArgumentError(
                    f"symbols: must be GraphSymbol values with an id, got {brief(sym)}"
                )
        for edge in calls:
            if (
                not isinstance(edge, tuple | list)
                or len(edge) != 2
                or not all(isinstance(x, str) and x for x in edge)
            ):
                raise InvalidArgumentError(
                    f"calls: must be (caller_id, callee_id) pairs of non-empty str"
                    f", got {brief(edge)}"
                )
        if not isinstance(generation, int) or not isinstance(refreshed_at, int):
            raise InvalidArgumentError("generation and refreshed_at: must be ints")
        self._symbols = {s.id: s for s in symbols}
        self._callees: dict[str, list[str]] = {}
        self._callers: dict[str, list[str]] = {}
        for a, b in calls:
            for x in (a, b):
                self._symbols.setdefault(x, GraphSymbol(id=x, name=x))
            self._callees.setdefault(a, []).append(b)
            self._callers.setdefault(b, []).append(a)
        self._edges = len(calls)
        self._gen = generation
        self._refreshed = refreshed_at
        self._closed = False

    def _open(self) -> None:
        if self._closed:
            raise GraphQueryClosedError("graph query adapter is closed")

    def _syms(self, ids: list[str]) -> list[GraphSymbol]:
        return [self._symbols[i] for i in ids]

    def find_symbol_by_id(self, id: str) -> GraphSymbol | None:
        require_instance(id, str, "id")
        self._open()
        return self._symbols.get(id)

    def find_symbols_by_name(self, name: str) -> list[GraphSymbol]:
        self._open()
        return [s for s in self._symbols.values() if s.name == name]

    def find_symbols_by_kind(self, kind: str) -> list[GraphSymbol]:
        self._open()
        return [s for s in self._symbols.values() if s.kind == kind]

    def find_symbols_in_file(self, file_path: str) -> list[GraphSymbol]:
        self._open()
        return [s for s in self._symbols.values() if s.file_path == file_path]

    def find_callers(self, symbol_id: str) -> list[GraphSymbol]:
        require_instance(symbol_id, str, "symbol_id")
        self._open()
        return self._syms(self._callers.get(symbol_id, []))

    def find_callees(self, symbol_id: str) -> list[GraphSymbol]:
        require_instance(symbol_id, str, "symbol_id")
        self._open()
        return self._syms(self._callees.get(symbol_id, []))

    def find_implementations(self, interface_name: str) -> list[GraphSymbol]:
        self._open()
        return []

    def find_references(self, symbol_id: str) -> list[GraphSymbol]:
        return self.find_callers(symbol_id)

    def get_call_chain(self, from_id: str, to_id: str, max_depth: int) -> list[str]:
        if isinstance(max_depth, bool) or not isinstance(max_depth, int):
            fail("max_depth", "an int", max_depth)
        path = self.shortest_path(from_id, to_id)
        return path if len(path) - 1 <= max_depth else []

    def shortest_path(self, from_id: str, to_id: str) -> list[str]:
        require_instance(from_id, str, "from_id")
        require_instance(to_id, str, "to_id")
        self._open()
        prev: dict[str, str] = {}
        queue, seen = deque([from_id]), {from_id}
        while queue:
            cur = queue.popleft()
            if cur == to_id:
                path = [cur]
                while path[-1] != from_id:
                    path.append(prev[path[-1]])
                return path[::-1]
            for n in self._callees.get(cur, []):
                if n not in seen:
                    seen.add(n)
                    prev[n] = cur
                    queue.append(n)
        return []

    def has_cycle_from(self, node_id: str) -> bool:
        return bool(self.shortest_path_cycle(node_id))

    def shortest_path_cycle(self, node_id: str) -> list[str]:
        require_instance(node_id, str, "node_id")
        for n in self._callees.get(node_id, []):
            back = self.shortest_path(n, node_id)
            if back:
                return [node_id, *back]
        return []

    def analytics(self) -> GraphAnalyticsQuery:
        return _InMemoryAnalytics(self)

    def node_count(self) -> int:
        return len(self._symbols)

    def edge_count(self) -> int:
        self._open()
        return self._edges

    def generation(self) -> int:
        return self._gen

    def last_refresh_time(self) -> int:
        return self._refreshed

    def close(self) -> None:
        self._closed = True


class _InMemoryAnalytics:
    def __init__(self, g: InMemoryGraph) -> None:
        self._g = g

    def hot_spots(self, k: int) -> list[GraphHotSpot]:
        if not isinstance(k, int):
            raise InvalidArgumentError(f"k: must be an int, got {brief(k)}")
        g = self._g
        g._open()
        spots = [
            GraphHotSpot(
                symbol_id=s.id,
                name=s.name,
                score=len(g._callers.get(s.id, [])) + len(g._callees.get(s.id, [])),
                in_degree=len(g._callers.get(s.id, [])),
                out_degree=len(g._callees.get(s.id, [])),
            )
            for s in g._symbols.values()
        ]
        spots.sort(key=lambda h: (-h.score, h.symbol_id))
        return spots[: max(k, 0)]

    def dead_code(self) -> list[str]:
        self._g._open()
        return sorted(i for i in self._g._symbols if not self._g._callers.get(i))

    def cyclic_dependencies(self) -> list[list[str]]:
        self._g._open()
        out, seen = [], set()
        for i in sorted(self._g._symbols):
            cyc = self._g.shortest_path_cycle(i)
            key = frozenset(cyc)
            if cyc and key not in seen:
                seen.add(key)
                out.append(cyc[:-1])
        return out

    def page_rank(self) -> dict[str, float]:
        g = self._g
        g._open()
        nodes = list(g._symbols)
        if not nodes:
            return {}
        rank = dict.fromkeys(nodes, 1.0 / len(nodes))
        for _ in range(30):
            nxt = dict.fromkeys(nodes, 0.15 / len(nodes))
            for n in nodes:
                outs = g._callees.get(n, [])
                share = rank[n] / len(outs) if outs else rank[n] / len(nodes)
                for m in outs or nodes:
                    nxt[m] += 0.85 * share
            rank = nxt
        return rank

    def communities(self) -> list[GraphCommunity]:
        """Connected groups of symbols (calls taken as undirected edges), each with its
        modularity term ``L_c / m - (d_c / 2m)^2`` (L_c edges inside, d_c the degree sum of
        its symbols, m all edges; 0.0 for a graph without edges)."""
        g = self._g
        g._open()
        comp: dict[str, int] = {}
        groups: list[list[str]] = []
        for s in sorted(g._symbols):
            if s in comp:
                continue
            comp[s] = len(groups)
            group, stack = [s], [s]
            while stack:
                cur = stack.pop()
                for n in g._callees.get(cur, []) + g._callers.get(cur, []):
                    if n not in comp:
                        comp[n] = len(groups)
                        group.append(n)
                        stack.append(n)
            groups.append(sorted(group))
        m = g._edges
        out = []
        for i, grp in enumerate(groups):
            inside = sum(len(g._callees.get(s, [])) for s in grp)  # edges never leave a group
            degree = sum(len(g._callees.get(s, [])) + len(g._callers.get(s, [])) for s in grp)
            q = inside / m - (degree / (2 * m)) ** 2 if m else 0.0
            out.append(GraphCommunity(id=f"c{i}", symbol_ids=tuple(grp), modularity=q))
        return out
