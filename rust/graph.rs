//! A frozen directed graph in compressed sparse row (CSR) form over `u32` node ids, and a
//! breadth-first search bounded by depth that works over any adjacency source.
//!
//! CSR keeps every successor list in one `Vec<u32>`, indexed by an offsets array, so a walk
//! touches contiguous memory. Building is two counting passes over the edges (O(V + E)).

use std::collections::VecDeque;
use std::fmt;

/// Node id.
pub type NodeId = u32;

/// Why a graph could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphError {
    /// An edge names a node `>= node_count`.
    NodeOutOfRange { node: NodeId, node_count: usize },
    /// The edge buffer does not hold whole `(source, target)` pairs.
    OddEdgeBuffer(usize),
    /// More nodes than [`MAX_NODES`] or more edges than `u32` offsets can address.
    TooLarge {
        node_count: usize,
        edge_count: usize,
    },
    /// The memory for the graph could not be allocated.
    OutOfMemory {
        node_count: usize,
        edge_count: usize,
    },
}

/// The most nodes a [`Csr`] may have (2**26 = 67,108,864): the graph allocates a few words per
/// node up front (offsets, and per-node arrays in searches), so an unchecked caller-supplied
/// `node_count` could otherwise ask for many gigabytes before any edge is read.
pub const MAX_NODES: usize = 1 << 26;

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NodeOutOfRange { node, node_count } => write!(
                f,
                "edge names node {node}, but node ids must be below node_count={node_count}"
            ),
            Self::OddEdgeBuffer(n) => write!(
                f,
                "edges must hold (source, target) pairs of u32, got {n} values (odd)"
            ),
            Self::TooLarge {
                node_count,
                edge_count,
            } => write!(
                f,
                "graph too large: node_count={node_count}, {edge_count} edges; at most \
                 node_count={MAX_NODES} and 2**32 - 2 edges"
            ),
            Self::OutOfMemory {
                node_count,
                edge_count,
            } => write!(
                f,
                "not enough memory for a graph of node_count={node_count} and {edge_count} edges"
            ),
        }
    }
}

impl std::error::Error for GraphError {}

/// A source of successors, so the BFS can run over a CSR graph or a caller's own index.
pub trait Adjacency {
    /// Every node id is below this bound (the size of the visited set).
    fn node_bound(&self) -> usize;
    /// Calls `f` once per successor of `node` (duplicates allowed).
    fn for_each_successor<F: FnMut(NodeId)>(&self, node: NodeId, f: F);
}

/// A frozen digraph in CSR form. Successors keep the order of the input edges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csr {
    offsets: Vec<u32>,
    targets: Vec<NodeId>,
}

impl Csr {
    /// Builds from interleaved pairs `[s0, t0, s1, t1, ...]` over nodes `0..node_count`.
    pub fn from_pairs(node_count: usize, pairs: &[u32]) -> Result<Self, GraphError> {
        if pairs.len() % 2 != 0 {
            return Err(GraphError::OddEdgeBuffer(pairs.len()));
        }
        let edge_count = pairs.len() / 2;
        if node_count > MAX_NODES || edge_count >= u32::MAX as usize {
            return Err(GraphError::TooLarge {
                node_count,
                edge_count,
            });
        }
        if let Some(&node) = pairs.iter().find(|&&v| v as usize >= node_count) {
            return Err(GraphError::NodeOutOfRange { node, node_count });
        }
        let oom = || GraphError::OutOfMemory {
            node_count,
            edge_count,
        };
        let mut offsets: Vec<u32> = Vec::new();
        offsets
            .try_reserve_exact(node_count + 1)
            .map_err(|_| oom())?;
        offsets.resize(node_count + 1, 0);
        let mut targets: Vec<u32> = Vec::new();
        targets.try_reserve_exact(edge_count).map_err(|_| oom())?;
        targets.resize(edge_count, 0);
        for e in pairs.chunks_exact(2) {
            offsets[e[0] as usize + 1] += 1;
        }
        for i in 0..node_count {
            offsets[i + 1] += offsets[i];
        }
        let mut cursor: Vec<u32> = offsets[..node_count].to_vec();
        for e in pairs.chunks_exact(2) {
            let c = &mut cursor[e[0] as usize];
            targets[*c as usize] = e[1];
            *c += 1;
        }
        Ok(Self { offsets, targets })
    }

    pub fn node_count(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn edge_count(&self) -> usize {
        self.targets.len()
    }

    /// Successors of `node` (panics if out of range; callers check `node < node_count`).
    #[inline]
    pub fn successors(&self, node: NodeId) -> &[NodeId] {
        let n = node as usize;
        &self.targets[self.offsets[n] as usize..self.offsets[n + 1] as usize]
    }

    /// The graph with every edge reversed (predecessor lists).
    #[must_use]
    pub fn reversed(&self) -> Self {
        let n = self.node_count();
        let mut offsets = vec![0u32; n + 1];
        for &t in &self.targets {
            offsets[t as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut cursor: Vec<u32> = offsets[..n].to_vec();
        let mut targets = vec![0u32; self.targets.len()];
        for u in 0..n {
            for &v in self.successors(u as NodeId) {
                let c = &mut cursor[v as usize];
                targets[*c as usize] = u as NodeId;
                *c += 1;
            }
        }
        Self { offsets, targets }
    }

    pub(crate) fn raw(&self) -> (&[u32], &[NodeId]) {
        (&self.offsets, &self.targets)
    }
}

impl Adjacency for Csr {
    fn node_bound(&self) -> usize {
        self.node_count()
    }

    #[inline]
    fn for_each_successor<F: FnMut(NodeId)>(&self, node: NodeId, f: F) {
        self.successors(node).iter().copied().for_each(f);
    }
}

/// Breadth-first search from `start`, expanding nodes at depth `< max_depth`.
///
/// `enter(from, to, depth)` is called for every edge from an expanded node to a node not yet
/// visited (so a node reached from several parents at the same level is offered once per
/// edge until it is accepted); returning `true` marks `to` visited at `depth` and queues it.
/// Returns the accepted nodes with their depth in BFS order, `start` first at depth 0.
/// Nodes `>= node_bound()` are ignored.
pub fn bfs_with<A, F>(adj: &A, start: NodeId, max_depth: u32, mut enter: F) -> Vec<(NodeId, u32)>
where
    A: Adjacency,
    F: FnMut(NodeId, NodeId, u32) -> bool,
{
    let bound = adj.node_bound();
    if start as usize >= bound {
        return Vec::new();
    }
    let mut visited = vec![0u64; bound.div_ceil(64)];
    let mut out = vec![(start, 0u32)];
    visited[start as usize / 64] |= 1 << (start % 64);
    let mut queue = VecDeque::new();
    queue.push_back((start, 0u32));
    while let Some((u, d)) = queue.pop_front() {
        if d >= max_depth {
            continue;
        }
        adj.for_each_successor(u, |v| {
            let (w, b) = (v as usize / 64, 1u64 << (v % 64));
            if (v as usize) < bound && visited[w] & b == 0 && enter(u, v, d + 1) {
                visited[w] |= b;
                out.push((v, d + 1));
                queue.push_back((v, d + 1));
            }
        });
    }
    out
}

/// Breadth-first search in the Go package's `PropagateDisproof` shape: a node is marked
/// visited when it is *expanded* (popped), not when queued.
///
/// For every edge from an expanded node `u` (at depth `< max_depth`) to a node not yet
/// expanded, `enter(u, v, depth)` is called, so a node reached from several expanded nodes is
/// offered once per edge (e.g. "increment a parent once per disproven child"); returning
/// `true` queues `v` at `depth` (a node queued twice is expanded once, at its first depth).
/// Returns the expanded nodes with their depth in BFS order, `start` first at depth 0
/// (nodes at `max_depth` are offered but never expanded). Nodes `>= node_bound()` are ignored.
pub fn bfs_offer_each_edge<A, F>(
    adj: &A,
    start: NodeId,
    max_depth: u32,
    mut enter: F,
) -> Vec<(NodeId, u32)>
where
    A: Adjacency,
    F: FnMut(NodeId, NodeId, u32) -> bool,
{
    let bound = adj.node_bound();
    if start as usize >= bound {
        return Vec::new();
    }
    let mut expanded = vec![0u64; bound.div_ceil(64)];
    let mut out = Vec::new();
    let mut queue = VecDeque::new();
    queue.push_back((start, 0u32));
    while let Some((u, d)) = queue.pop_front() {
        let (w, b) = (u as usize / 64, 1u64 << (u % 64));
        if (d >= max_depth && u != start) || expanded[w] & b != 0 {
            continue;
        }
        expanded[w] |= b;
        out.push((u, d));
        if d >= max_depth {
            continue;
        }
        adj.for_each_successor(u, |v| {
            let (w, b) = (v as usize / 64, 1u64 << (v % 64));
            if (v as usize) < bound && expanded[w] & b == 0 && enter(u, v, d + 1) {
                queue.push_back((v, d + 1));
            }
        });
    }
    out
}

/// Every node within `max_depth` edges of `start`, with its BFS depth (`start` at depth 0).
pub fn bfs_within<A: Adjacency>(adj: &A, start: NodeId, max_depth: u32) -> Vec<(NodeId, u32)> {
    bfs_with(adj, start, max_depth, |_, _, _| true)
}

/// The same search over a CSR graph, specialised (no queue of pairs; level by level).
pub fn csr_bfs_within(g: &Csr, start: NodeId, max_depth: u32) -> (Vec<NodeId>, Vec<u32>) {
    let n = g.node_count();
    if start as usize >= n {
        return (Vec::new(), Vec::new());
    }
    let mut visited = vec![0u64; n.div_ceil(64)];
    visited[start as usize / 64] |= 1 << (start % 64);
    let mut nodes = vec![start];
    let mut depths = vec![0u32];
    let (mut lo, mut depth) = (0usize, 0u32);
    while lo < nodes.len() && depth < max_depth {
        let hi = nodes.len();
        depth += 1;
        for i in lo..hi {
            for &v in g.successors(nodes[i]) {
                let (w, b) = (v as usize / 64, 1u64 << (v % 64));
                if visited[w] & b == 0 {
                    visited[w] |= b;
                    nodes.push(v);
                }
            }
        }
        depths.resize(nodes.len(), depth);
        lo = hi;
    }
    (nodes, depths)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(n: usize, edges: &[(u32, u32)]) -> Csr {
        let pairs: Vec<u32> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
        Csr::from_pairs(n, &pairs).expect("valid graph")
    }

    #[test]
    fn builds_csr_in_edge_order() {
        let gr = g(4, &[(0, 2), (1, 3), (0, 1), (2, 0)]);
        assert_eq!(gr.successors(0), &[2, 1]);
        assert_eq!(gr.successors(3), &[] as &[u32]);
        assert_eq!(gr.edge_count(), 4);
        let r = gr.reversed();
        assert_eq!(r.successors(0), &[2]);
        assert_eq!(r.successors(1), &[0]);
    }

    #[test]
    fn rejects_bad_edges() {
        assert_eq!(
            Csr::from_pairs(2, &[0, 2]),
            Err(GraphError::NodeOutOfRange {
                node: 2,
                node_count: 2
            })
        );
        assert_eq!(Csr::from_pairs(2, &[0]), Err(GraphError::OddEdgeBuffer(1)));
        assert!(matches!(
            Csr::from_pairs(MAX_NODES + 1, &[]),
            Err(GraphError::TooLarge { .. })
        ));
        assert!(matches!(
            Csr::from_pairs(usize::MAX, &[]),
            Err(GraphError::TooLarge { .. })
        ));
        assert_eq!(Csr::from_pairs(0, &[]).map(|g| g.node_count()), Ok(0));
    }

    #[test]
    fn bfs_is_bounded_by_depth() {
        // chain 0 -> 1 -> 2 -> 3 plus shortcut 0 -> 2
        let gr = g(5, &[(0, 1), (1, 2), (2, 3), (0, 2)]);
        assert_eq!(bfs_within(&gr, 0, 1), vec![(0, 0), (1, 1), (2, 1)]);
        assert_eq!(
            bfs_within(&gr, 0, 100),
            vec![(0, 0), (1, 1), (2, 1), (3, 2)]
        );
        assert_eq!(bfs_within(&gr, 0, 0), vec![(0, 0)]);
        assert_eq!(csr_bfs_within(&gr, 0, 1), (vec![0, 1, 2], vec![0, 1, 1]));
        assert_eq!(csr_bfs_within(&gr, 9, 1), (vec![], vec![]));
    }

    #[test]
    fn generic_and_csr_bfs_agree_on_random_graphs() {
        let mut x = 0x1234_5678_u64;
        let mut rnd = |n: u32| {
            x = crate::hash::fmix64(x.wrapping_add(0x9e37_79b9_7f4a_7c15));
            (x % u64::from(n)) as u32
        };
        for _ in 0..200 {
            let n = 1 + rnd(40);
            let m = rnd(120);
            let edges: Vec<(u32, u32)> = (0..m).map(|_| (rnd(n), rnd(n))).collect();
            let gr = g(n as usize, &edges);
            let (start, depth) = (rnd(n), rnd(6));
            let generic = bfs_within(&gr, start, depth);
            let (nodes, depths) = csr_bfs_within(&gr, start, depth);
            let zipped: Vec<(u32, u32)> = nodes.into_iter().zip(depths).collect();
            assert_eq!(generic, zipped);
            let expanded = bfs_offer_each_edge(&gr, start, depth, |_, _, _| true);
            let inner: Vec<(u32, u32)> = generic
                .into_iter()
                .filter(|&(_, d)| d < depth || depth == 0)
                .collect();
            let expanded_inner: Vec<(u32, u32)> = expanded
                .into_iter()
                .filter(|&(_, d)| d < depth || depth == 0)
                .collect();
            assert_eq!(inner, expanded_inner);
        }
    }

    #[test]
    fn offer_each_edge_counts_every_parent() {
        // 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 3 -> 0 (cycle back to the start)
        let gr = g(4, &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 0)]);
        let mut offers = [0u32; 4];
        let got = bfs_offer_each_edge(&gr, 0, 100, |_, to, _| {
            offers[to as usize] += 1;
            true
        });
        assert_eq!(got, vec![(0, 0), (1, 1), (2, 1), (3, 2)]);
        assert_eq!(
            offers,
            [0, 1, 1, 2],
            "3 is offered by both 1 and 2; 0 is expanded already"
        );
        let got = bfs_offer_each_edge(&gr, 0, 1, |_, _, _| true);
        assert_eq!(got, vec![(0, 0)], "depth-1 nodes are offered, not expanded");
    }

    #[test]
    fn bfs_with_can_refuse_nodes() {
        let gr = g(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let mut offered = Vec::new();
        let got = bfs_with(&gr, 0, 10, |from, to, _| {
            offered.push((from, to));
            to != 1
        });
        assert_eq!(got, vec![(0, 0), (2, 1), (3, 2)]);
        assert_eq!(offered, vec![(0, 1), (0, 2), (2, 3)]);
    }
}
