//! The reasoning state: six indexes held in persistent maps with structural sharing.
//!
//! A `State` is a value: cloning it is a handful of reference-count increments, and
//! `apply` builds the next version from a clone, returning it only when every operation
//! succeeded (so a failed apply leaves no trace). Composite deltas are a list of
//! operations applied in order, each validated against the state the earlier ones left.
//!
//! We use `imbl` (HAMT hash maps, B-tree ordered maps, RRB vectors): it is the maintained
//! successor of `im`, has no unsafe-heavy custom allocator, and its maps share all
//! untouched nodes between versions, which is what O(1) snapshots need.

pub mod apply;
pub mod sketch;

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use imbl::{HashMap, OrdMap, OrdSet, Vector};

pub use apply::{ApplyError, Op, OpKind};
use sketch::Sketch;

/// Interned-by-refcount string used as key everywhere (16 bytes, cheap to clone).
pub type Key = Arc<str>;

/// Proof-number entry of one node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProofEntry {
    pub proof: u64,
    pub disproof: u64,
    pub status: u8,
    pub source: u8,
    pub updated_at: i64,
}

/// A constraint on the search space.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstraintRec {
    pub id: Key,
    pub ctype: u8,
    pub nodes: Vec<Key>,
    pub expression: String,
    pub active: bool,
    pub source: u8,
    pub created_at: i64,
}

/// One decision in the history index.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryRec {
    pub id: String,
    pub node_id: Key,
    pub action: String,
    pub result: String,
    pub source: u8,
    pub timestamp: i64,
    pub metadata: Vec<(String, String)>,
}

/// Default cap of stored similarity pairs (the pair recorded longest ago is evicted first).
pub const DEFAULT_MAX_SIMILARITY_PAIRS: usize = 10_000;
/// Default cap of history entries (oldest evicted first).
pub const DEFAULT_MAX_HISTORY_ENTRIES: usize = 10_000;

type AdjSet = OrdSet<Key>;

/// One version of the whole state.
#[derive(Clone)]
pub struct State {
    pub(crate) proof: OrdMap<Key, ProofEntry>,
    pub(crate) constraints: OrdMap<Key, Arc<ConstraintRec>>,
    /// Canonical pair (min, max) -> (distance, sequence of its last recording).
    pub(crate) sim: HashMap<(Key, Key), (f64, u64)>,
    pub(crate) sim_order: OrdMap<u64, (Key, Key)>,
    pub(crate) sim_adj: HashMap<Key, AdjSet>,
    pub(crate) sim_seq: u64,
    pub(crate) sim_cap: usize,
    pub(crate) sim_evicted: u64,
    pub(crate) dep_fwd: HashMap<Key, AdjSet>,
    pub(crate) dep_rev: HashMap<Key, AdjSet>,
    pub(crate) dep_edges: usize,
    pub(crate) history: Vector<Arc<HistoryRec>>,
    pub(crate) hist_cap: usize,
    pub(crate) hist_evicted: u64,
    pub(crate) streaming: Arc<Sketch>,
}

impl Default for State {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_SIMILARITY_PAIRS, DEFAULT_MAX_HISTORY_ENTRIES)
    }
}

fn adj_list(map: &HashMap<Key, AdjSet>, id: &str) -> Vec<Key> {
    map.get(id)
        .map(|s| s.iter().cloned().collect())
        .unwrap_or_default()
}

impl State {
    /// An empty state with the given caps (0 means unlimited).
    pub fn new(sim_cap: usize, hist_cap: usize) -> Self {
        Self {
            proof: OrdMap::new(),
            constraints: OrdMap::new(),
            sim: HashMap::new(),
            sim_order: OrdMap::new(),
            sim_adj: HashMap::new(),
            sim_seq: 0,
            sim_cap,
            sim_evicted: 0,
            dep_fwd: HashMap::new(),
            dep_rev: HashMap::new(),
            dep_edges: 0,
            history: Vector::new(),
            hist_cap,
            hist_evicted: 0,
            streaming: Arc::new(Sketch::new()),
        }
    }

    // ------------------------------------------------------------ proof

    pub fn proof_get(&self, id: &str) -> Option<ProofEntry> {
        self.proof.get(id).copied()
    }

    pub fn proof_len(&self) -> usize {
        self.proof.len()
    }

    pub fn proof_all(&self) -> Vec<(Key, ProofEntry)> {
        self.proof.iter().map(|(k, v)| (k.clone(), *v)).collect()
    }

    // ------------------------------------------------------------ constraints

    pub fn constraint_get(&self, id: &str) -> Option<Arc<ConstraintRec>> {
        self.constraints.get(id).cloned()
    }

    pub fn constraint_len(&self) -> usize {
        self.constraints.len()
    }

    /// Every constraint, sorted by id.
    pub fn constraint_all(&self) -> Vec<Arc<ConstraintRec>> {
        self.constraints.values().cloned().collect()
    }

    // ------------------------------------------------------------ similarity

    fn canon(a: &str, b: &str) -> (Key, Key) {
        if a <= b {
            (Key::from(a), Key::from(b))
        } else {
            (Key::from(b), Key::from(a))
        }
    }

    pub fn sim_distance(&self, a: &str, b: &str) -> Option<f64> {
        self.sim.get(&Self::canon(a, b)).map(|v| v.0)
    }

    pub fn sim_len(&self) -> usize {
        self.sim.len()
    }

    pub fn sim_evicted(&self) -> u64 {
        self.sim_evicted
    }

    /// Neighbours of `id` with their distances, nearest first (ties by id).
    pub fn sim_neighbors(&self, id: &str) -> Vec<(Key, f64)> {
        let mut out: Vec<(Key, f64)> = match self.sim_adj.get(id) {
            None => Vec::new(),
            Some(set) => set
                .iter()
                .filter_map(|other| {
                    self.sim
                        .get(&Self::canon(id, other))
                        .map(|v| (other.clone(), v.0))
                })
                .collect(),
        };
        out.sort_by(|x, y| x.1.total_cmp(&y.1).then_with(|| x.0.cmp(&y.0)));
        out
    }

    /// Pairs (min, max, distance), least recently recorded first, at most `max` (`None` = all);
    /// the flag tells whether pairs were left out.
    pub fn sim_pairs(&self, max: Option<usize>) -> (Vec<(Key, Key, f64)>, bool) {
        let limit = max.unwrap_or(usize::MAX);
        let out: Vec<(Key, Key, f64)> = self
            .sim_order
            .values()
            .take(limit)
            .map(|(a, b)| {
                let d = self.sim.get(&(a.clone(), b.clone())).map_or(0.0, |v| v.0);
                (a.clone(), b.clone(), d)
            })
            .collect();
        let truncated = out.len() < self.sim.len();
        (out, truncated)
    }

    // ------------------------------------------------------------ dependency

    pub fn depends_on(&self, id: &str) -> Vec<Key> {
        adj_list(&self.dep_fwd, id)
    }

    pub fn depended_by(&self, id: &str) -> Vec<Key> {
        adj_list(&self.dep_rev, id)
    }

    pub fn dep_len(&self) -> usize {
        self.dep_edges
    }

    /// Every edge (from, to), sorted.
    pub fn dep_edges_all(&self) -> Vec<(Key, Key)> {
        let mut out: Vec<(Key, Key)> = self
            .dep_fwd
            .iter()
            .flat_map(|(f, tos)| tos.iter().map(move |t| (f.clone(), t.clone())))
            .collect();
        out.sort();
        out
    }

    /// Whether `target` is reachable from `start` along forward edges (start itself counts).
    pub(crate) fn reaches(&self, start: &str, target: &str) -> bool {
        if start == target {
            return true;
        }
        let mut seen: HashSet<Key> = HashSet::new();
        let mut stack: Vec<Key> = vec![Key::from(start)];
        while let Some(n) = stack.pop() {
            if let Some(next) = self.dep_fwd.get(&n) {
                for t in next {
                    if &**t == target {
                        return true;
                    }
                    if seen.insert(t.clone()) {
                        stack.push(t.clone());
                    }
                }
            }
        }
        false
    }

    /// Whether a cycle passes through `id` (some successor reaches it back).
    pub fn has_cycle(&self, id: &str) -> bool {
        self.dep_fwd
            .get(id)
            .is_some_and(|next| next.iter().any(|t| self.reaches(t, id)))
    }

    /// BFS over reverse edges from `start`: (parent, child, depth) for every edge
    /// parent -> child met, children expanded at most once and only below `max_depth`.
    pub fn bfs_depended_by(&self, start: &str, max_depth: usize) -> Vec<(Key, Key, usize)> {
        let mut out = Vec::new();
        let mut visited: HashSet<Key> = HashSet::new();
        let mut queue: VecDeque<(Key, usize)> = VecDeque::from([(Key::from(start), 0)]);
        while let Some((node, depth)) = queue.pop_front() {
            if depth >= max_depth || !visited.insert(node.clone()) {
                continue;
            }
            if let Some(parents) = self.dep_rev.get(&node) {
                for p in parents {
                    if !visited.contains(p) {
                        out.push((p.clone(), node.clone(), depth + 1));
                        queue.push_back((p.clone(), depth + 1));
                    }
                }
            }
        }
        out
    }

    /// Shortest path start -> end along forward edges (BFS), inclusive; empty if none.
    pub fn dependency_chain(&self, start: &str, end: &str) -> Vec<Key> {
        if start == end {
            return vec![Key::from(start)];
        }
        let mut prev: std::collections::HashMap<Key, Key> = std::collections::HashMap::new();
        let s = Key::from(start);
        let mut queue: VecDeque<Key> = VecDeque::from([s.clone()]);
        let mut seen: HashSet<Key> = HashSet::from([s]);
        while let Some(n) = queue.pop_front() {
            if let Some(next) = self.dep_fwd.get(&n) {
                for t in next {
                    if seen.insert(t.clone()) {
                        prev.insert(t.clone(), n.clone());
                        if &**t == end {
                            let mut path = vec![t.clone()];
                            let mut cur = t.clone();
                            while let Some(p) = prev.get(&cur) {
                                path.push(p.clone());
                                cur = p.clone();
                            }
                            path.reverse();
                            return path;
                        }
                        queue.push_back(t.clone());
                    }
                }
            }
        }
        Vec::new()
    }

    /// Transitive closure of `depended_by` from `id`, sorted, without `id` itself.
    pub fn affected_by(&self, id: &str) -> Vec<Key> {
        let mut seen: HashSet<Key> = HashSet::new();
        let mut stack = vec![Key::from(id)];
        while let Some(n) = stack.pop() {
            if let Some(ps) = self.dep_rev.get(&n) {
                for p in ps {
                    if seen.insert(p.clone()) {
                        stack.push(p.clone());
                    }
                }
            }
        }
        seen.remove(id);
        let mut out: Vec<Key> = seen.into_iter().collect();
        out.sort();
        out
    }

    // ------------------------------------------------------------ history

    pub fn history_len(&self) -> usize {
        self.history.len()
    }

    pub fn history_evicted(&self) -> u64 {
        self.hist_evicted
    }

    /// The last `n` entries, oldest first.
    pub fn history_recent(&self, n: usize) -> Vec<Arc<HistoryRec>> {
        let len = self.history.len();
        self.history
            .iter()
            .skip(len.saturating_sub(n))
            .cloned()
            .collect()
    }

    pub fn history_trace(&self, node: &str) -> Vec<Arc<HistoryRec>> {
        self.history
            .iter()
            .filter(|e| &*e.node_id == node)
            .cloned()
            .collect()
    }

    // ------------------------------------------------------------ streaming

    pub fn estimate(&self, item: &str) -> u64 {
        self.streaming.estimate(item)
    }

    pub fn cardinality(&self) -> u64 {
        self.streaming.cardinality()
    }

    /// The streaming sketch as bytes (for whole-state images).
    pub fn sketch_bytes(&self) -> Vec<u8> {
        self.streaming.to_bytes()
    }

    /// Replace the streaming sketch by one from `sketch_bytes`; false if malformed.
    pub fn set_sketch(&mut self, data: &[u8]) -> bool {
        match Sketch::from_bytes(data) {
            Some(s) => {
                self.streaming = Arc::new(s);
                true
            }
            None => false,
        }
    }

    /// (similarity pairs evicted, history entries evicted).
    pub fn evicted(&self) -> (u64, u64) {
        (self.sim_evicted, self.hist_evicted)
    }

    /// Restore the eviction counters (whole-state images).
    pub fn set_evicted(&mut self, sim: u64, hist: u64) {
        self.sim_evicted = sim;
        self.hist_evicted = hist;
    }

    pub fn streaming_bytes(&self) -> usize {
        self.streaming.size_bytes()
    }

    /// Nodes with a proof entry and a positive frequency estimate, most frequent first
    /// (ties by id), at most `n`.
    pub fn hot_nodes(&self, n: usize) -> Vec<(Key, u64)> {
        let mut out: Vec<(Key, u64)> = self
            .proof
            .keys()
            .filter_map(|k| {
                let f = self.streaming.estimate(k);
                (f > 0).then(|| (k.clone(), f))
            })
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out.truncate(n);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pe(proof: u64, status: u8) -> ProofEntry {
        ProofEntry {
            proof,
            disproof: 1,
            status,
            source: 1,
            updated_at: 7,
        }
    }

    #[test]
    fn snapshot_is_unchanged_by_apply() {
        let s0 = State::default();
        let (s1, n, _) = s0
            .apply(&[Op::Proof(vec![("a".into(), pe(1, 0))])])
            .unwrap();
        assert_eq!(n, 1);
        let s2 = s1.clone();
        let (s3, _, _) = s2
            .apply(&[Op::Proof(vec![("a".into(), pe(5, 1))])])
            .unwrap();
        assert_eq!(s1.proof_get("a").unwrap().proof, 1);
        assert_eq!(s3.proof_get("a").unwrap().proof, 5);
        assert_eq!(s0.proof_len(), 0);
    }

    #[test]
    fn bfs_and_chains() {
        let s = State::default();
        let (s, _, _) = s
            .apply(&[Op::Dependency {
                add: vec![("p".into(), "c".into()), ("g".into(), "p".into())],
                remove: vec![],
            }])
            .unwrap();
        let bfs = s.bfs_depended_by("c", 10);
        assert_eq!(bfs.len(), 2);
        assert_eq!(&*bfs[0].0, "p");
        assert_eq!(bfs[1].2, 2);
        assert_eq!(s.bfs_depended_by("c", 1).len(), 1);
        assert_eq!(s.dependency_chain("g", "c").len(), 3);
        assert_eq!(s.affected_by("c").len(), 2);
        assert!(!s.has_cycle("c"));
        let err = s.apply(&[Op::Dependency {
            add: vec![("c".into(), "g".into())],
            remove: vec![],
        }]);
        assert!(err.is_err());
    }

    #[test]
    fn hot_nodes_need_proof_and_frequency() {
        let s = State::default();
        let (s, _, _) = s
            .apply(&[
                Op::Proof(vec![("a".into(), pe(1, 0)), ("b".into(), pe(1, 0))]),
                Op::Streaming {
                    increments: vec![("a".into(), 3), ("z".into(), 9)],
                    items: vec![],
                },
            ])
            .unwrap();
        let hot = s.hot_nodes(5);
        assert_eq!(hot.len(), 1);
        assert_eq!(&*hot[0].0, "a");
        assert!(hot[0].1 >= 3);
    }
}
