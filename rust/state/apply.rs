//! Building the next version of the state from a list of operations (one per delta,
//! composites flattened in order). Each operation is validated against the state the
//! previous operations left; any error discards the whole new version.

use std::collections::HashSet;
use std::sync::Arc;

use super::{ConstraintRec, HistoryRec, Key, ProofEntry, State};

/// Index bits, as `IndexMask` in Python.
pub const MASK_PROOF: u8 = 1;
pub const MASK_CONSTRAINT: u8 = 2;
pub const MASK_SIMILARITY: u8 = 4;
pub const MASK_DEPENDENCY: u8 = 8;
pub const MASK_HISTORY: u8 = 16;
pub const MASK_STREAMING: u8 = 32;

/// One state change: the typed content of a delta.
#[derive(Clone, Debug)]
pub enum Op {
    Proof(Vec<(String, ProofEntry)>),
    Constraint {
        add: Vec<ConstraintRec>,
        remove: Vec<String>,
        update: Vec<(String, ConstraintRec)>,
    },
    Similarity(Vec<(String, String, f64)>),
    Dependency {
        add: Vec<(String, String)>,
        remove: Vec<(String, String)>,
    },
    History(Vec<HistoryRec>),
    Streaming {
        increments: Vec<(String, u64)>,
        items: Vec<String>,
    },
}

/// The kind of an [`Op`], as a number on the Python boundary (`(kind, ...)` tuples; the
/// Python side names them with `crs._state._ops.OpKind`, which mirrors this enum).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum OpKind {
    Proof = 1,
    Constraint = 2,
    Similarity = 3,
    Dependency = 4,
    History = 5,
    Streaming = 6,
}

impl OpKind {
    /// Every kind, in number order.
    pub const ALL: [Self; 6] = [
        Self::Proof,
        Self::Constraint,
        Self::Similarity,
        Self::Dependency,
        Self::History,
        Self::Streaming,
    ];

    /// The kind's name, as the Python `IntEnum` member (`PROOF`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::Proof => "PROOF",
            Self::Constraint => "CONSTRAINT",
            Self::Similarity => "SIMILARITY",
            Self::Dependency => "DEPENDENCY",
            Self::History => "HISTORY",
            Self::Streaming => "STREAMING",
        }
    }
}

impl TryFrom<u8> for OpKind {
    type Error = ApplyError;

    fn try_from(value: u8) -> Result<Self, ApplyError> {
        Self::ALL
            .into_iter()
            .find(|k| *k as u8 == value)
            .ok_or_else(|| inv(format!("unknown operation kind {value}")))
    }
}

impl Op {
    /// This operation's kind.
    pub fn kind(&self) -> OpKind {
        match self {
            Self::Proof(_) => OpKind::Proof,
            Self::Constraint { .. } => OpKind::Constraint,
            Self::Similarity(_) => OpKind::Similarity,
            Self::Dependency { .. } => OpKind::Dependency,
            Self::History(_) => OpKind::History,
            Self::Streaming { .. } => OpKind::Streaming,
        }
    }
}

/// Why an apply was refused; nothing was changed. Each kind crosses into Python as its own
/// exception class (`crs._core.ApplyNotFoundError`, `ApplyInvalidError`; see `rust/py`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApplyError {
    /// A constraint to remove or update does not exist.
    NotFound(String),
    /// The operation is not valid against the state.
    Invalid(String),
}

impl std::fmt::Display for ApplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotFound(m) | Self::Invalid(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ApplyError {}

fn inv(msg: String) -> ApplyError {
    ApplyError::Invalid(msg)
}

impl State {
    /// Applies `ops` in order to a copy; returns (next version, entries modified, mask).
    pub fn apply(&self, ops: &[Op]) -> Result<(State, usize, u8), ApplyError> {
        let mut next = self.clone();
        let mut entries = 0usize;
        let mut mask = 0u8;
        for op in ops {
            entries += next.apply_one(op, &mut mask)?;
        }
        Ok((next, entries, mask))
    }

    /// Applies a proof update list in place (the fast path of a 1-entry ProofDelta).
    pub fn put_proofs(&mut self, rows: &[(String, ProofEntry)]) -> usize {
        for (k, v) in rows {
            if let Some(slot) = self.proof.get_mut(k.as_str()) {
                *slot = *v;
            } else {
                self.proof.insert(Key::from(k.as_str()), *v);
            }
        }
        rows.len()
    }

    fn apply_one(&mut self, op: &Op, mask: &mut u8) -> Result<usize, ApplyError> {
        match op {
            Op::Proof(rows) => {
                *mask |= MASK_PROOF;
                Ok(self.put_proofs(rows))
            }
            Op::Constraint {
                add,
                remove,
                update,
            } => {
                *mask |= MASK_CONSTRAINT;
                self.apply_constraints(add, remove, update)
            }
            Op::Similarity(pairs) => {
                *mask |= MASK_SIMILARITY;
                self.apply_similarity(pairs)
            }
            Op::Dependency { add, remove } => {
                *mask |= MASK_DEPENDENCY;
                self.apply_dependency(add, remove)
            }
            Op::History(entries) => {
                *mask |= MASK_HISTORY;
                for e in entries {
                    if self.hist_cap > 0 && self.history.len() >= self.hist_cap {
                        self.history.pop_front();
                        self.hist_evicted += 1;
                    }
                    self.history.push_back(Arc::new(e.clone()));
                }
                Ok(entries.len())
            }
            Op::Streaming { increments, items } => {
                *mask |= MASK_STREAMING;
                let sk = Arc::make_mut(&mut self.streaming);
                for (item, n) in increments {
                    if *n > 0 {
                        sk.add_count(item, *n);
                        sk.observe(item);
                    }
                }
                for item in items {
                    if sk.estimate(item) == 0 {
                        sk.add_count(item, 1);
                    }
                    sk.observe(item);
                }
                Ok(increments.len() + items.len())
            }
        }
    }

    fn apply_constraints(
        &mut self,
        add: &[ConstraintRec],
        remove: &[String],
        update: &[(String, ConstraintRec)],
    ) -> Result<usize, ApplyError> {
        for id in remove {
            if !self.constraints.contains_key(id.as_str()) {
                return Err(ApplyError::NotFound(format!(
                    "constraint {id:?} to remove does not exist"
                )));
            }
        }
        for (id, _) in update {
            if !self.constraints.contains_key(id.as_str()) {
                return Err(ApplyError::NotFound(format!(
                    "constraint {id:?} to update does not exist"
                )));
            }
        }
        let mut seen: HashSet<&str> = HashSet::new();
        for c in add {
            if !seen.insert(&c.id) {
                return Err(inv(format!(
                    "constraint {:?} is added twice in one delta",
                    &*c.id
                )));
            }
            if self.constraints.contains_key(&c.id) {
                return Err(inv(format!("constraint {:?} already exists", &*c.id)));
            }
        }
        for id in remove {
            self.constraints.remove(id.as_str());
        }
        for (id, c) in update {
            let mut c = c.clone();
            c.id = Key::from(id.as_str());
            self.constraints.insert(c.id.clone(), Arc::new(c));
        }
        for c in add {
            self.constraints.insert(c.id.clone(), Arc::new(c.clone()));
        }
        Ok(add.len() + remove.len() + update.len())
    }

    fn sim_link(&mut self, a: &Key, b: &Key) {
        self.sim_adj.entry(a.clone()).or_default().insert(b.clone());
        self.sim_adj.entry(b.clone()).or_default().insert(a.clone());
    }

    fn sim_unlink(&mut self, a: &Key, b: &Key) {
        for (x, y) in [(a, b), (b, a)] {
            let empty = match self.sim_adj.get_mut(x) {
                Some(set) => {
                    set.remove(y);
                    set.is_empty()
                }
                None => false,
            };
            if empty {
                self.sim_adj.remove(x);
            }
        }
    }

    fn apply_similarity(&mut self, pairs: &[(String, String, f64)]) -> Result<usize, ApplyError> {
        for (a, b, d) in pairs {
            if a.is_empty() || b.is_empty() {
                return Err(inv("similarity keys must not be empty".into()));
            }
            if a == b {
                return Err(inv(format!("self-similarity not allowed ({a:?})")));
            }
            if !d.is_finite() || *d < 0.0 {
                return Err(inv(format!(
                    "similarity distance must be a finite number >= 0, got {d}"
                )));
            }
        }
        for (a, b, d) in pairs {
            let key = State::canon(a, b);
            if let Some(v) = self.sim.get_mut(&key) {
                // Re-recording a pair makes it the newest: the cap evicts the pair recorded
                // longest ago, not a fresh measurement that was first seen long ago.
                self.sim_seq += 1;
                let old_seq = std::mem::replace(&mut v.1, self.sim_seq);
                v.0 = *d;
                self.sim_order.remove(&old_seq);
                self.sim_order.insert(self.sim_seq, key);
                continue;
            }
            if self.sim_cap > 0 && self.sim.len() >= self.sim_cap {
                if let Some((_, old)) = self.sim_order.get_min().cloned() {
                    let seq = self.sim.get(&old).map_or(0, |v| v.1);
                    self.sim_order.remove(&seq);
                    self.sim.remove(&old);
                    self.sim_unlink(&old.0, &old.1);
                    self.sim_evicted += 1;
                }
            }
            self.sim_seq += 1;
            let seq = self.sim_seq;
            self.sim_link(&key.0, &key.1);
            self.sim_order.insert(seq, key.clone());
            self.sim.insert(key, (*d, seq));
        }
        Ok(pairs.len())
    }

    fn apply_dependency(
        &mut self,
        add: &[(String, String)],
        remove: &[(String, String)],
    ) -> Result<usize, ApplyError> {
        let mut changed = 0;
        for (f, t) in add {
            if f.is_empty() || t.is_empty() {
                return Err(inv("dependency edge ends must not be empty".into()));
            }
            if f == t {
                return Err(inv(format!("self-dependency not allowed ({f:?})")));
            }
        }
        for (f, t) in remove {
            let removed = self
                .dep_fwd
                .get_mut(f.as_str())
                .is_some_and(|s| s.remove(t.as_str()).is_some());
            if removed {
                for (map, x, y) in [(&mut self.dep_fwd, f, t), (&mut self.dep_rev, t, f)] {
                    let empty = match map.get_mut(x.as_str()) {
                        Some(s) => {
                            s.remove(y.as_str());
                            s.is_empty()
                        }
                        None => false,
                    };
                    if empty {
                        map.remove(x.as_str());
                    }
                }
                self.dep_edges -= 1;
                changed += 1;
            }
        }
        for (f, t) in add {
            if self
                .dep_fwd
                .get(f.as_str())
                .is_some_and(|s| s.contains(t.as_str()))
            {
                continue;
            }
            if self.reaches(t, f) {
                return Err(inv(format!(
                    "dependency {f:?} -> {t:?} would create a cycle"
                )));
            }
            let (fk, tk) = (Key::from(f.as_str()), Key::from(t.as_str()));
            self.dep_fwd
                .entry(fk.clone())
                .or_default()
                .insert(tk.clone());
            self.dep_rev.entry(tk).or_default().insert(fk);
            self.dep_edges += 1;
            changed += 1;
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn con(id: &str) -> ConstraintRec {
        ConstraintRec {
            id: id.into(),
            ctype: 1,
            nodes: vec!["n".into()],
            expression: String::new(),
            active: true,
            source: 1,
            created_at: 0,
        }
    }

    #[test]
    fn failed_apply_leaves_nothing() {
        let s = State::default();
        let r = s.apply(&[
            Op::Proof(vec![(
                "a".into(),
                ProofEntry {
                    proof: 1,
                    disproof: 1,
                    status: 0,
                    source: 1,
                    updated_at: 0,
                },
            )]),
            Op::Constraint {
                add: vec![],
                remove: vec!["missing".into()],
                update: vec![],
            },
        ]);
        assert!(matches!(r, Err(ApplyError::NotFound(_))));
        assert_eq!(s.proof_len(), 0);
    }

    #[test]
    fn composite_children_see_earlier_children() {
        let s = State::default();
        let (s2, n, mask) = s
            .apply(&[
                Op::Constraint {
                    add: vec![con("c1")],
                    remove: vec![],
                    update: vec![],
                },
                Op::Constraint {
                    add: vec![],
                    remove: vec![],
                    update: vec![("c1".into(), con("other"))],
                },
            ])
            .unwrap();
        assert_eq!(n, 2);
        assert_eq!(mask, MASK_CONSTRAINT);
        assert_eq!(&*s2.constraint_get("c1").unwrap().id, "c1");
        let dup = s2.apply(&[Op::Constraint {
            add: vec![con("c1")],
            remove: vec![],
            update: vec![],
        }]);
        assert!(matches!(dup, Err(ApplyError::Invalid(_))));
    }

    #[test]
    fn similarity_is_canonical_and_capped() {
        let s = State::new(2, 0);
        let (s, _, _) = s
            .apply(&[Op::Similarity(vec![
                ("b".into(), "a".into(), 0.5),
                ("a".into(), "b".into(), 0.25),
                ("c".into(), "d".into(), 0.0),
                ("e".into(), "f".into(), 1.0),
            ])])
            .unwrap();
        assert_eq!(s.sim_len(), 2);
        assert_eq!(s.sim_evicted(), 1);
        assert_eq!(s.sim_distance("a", "b"), None);
        assert_eq!(s.sim_distance("d", "c"), Some(0.0));
        assert!(s.sim_neighbors("a").is_empty());
        assert_eq!(s.sim_neighbors("f").len(), 1);
        let bad = s.apply(&[Op::Similarity(vec![("x".into(), "x".into(), 0.1)])]);
        assert!(bad.is_err());
    }

    #[test]
    fn re_recording_a_pair_makes_it_the_newest() {
        let s = State::new(2, 0);
        let pair = |a: &str, b: &str, d: f64| Op::Similarity(vec![(a.into(), b.into(), d)]);
        let (s, _, _) = s
            .apply(&[
                pair("a", "b", 0.1),
                pair("c", "d", 0.2),
                pair("b", "a", 0.3),
            ])
            .unwrap();
        let (s, _, _) = s.apply(&[pair("e", "f", 0.4)]).unwrap();
        assert_eq!(s.sim_distance("a", "b"), Some(0.3));
        assert_eq!(s.sim_distance("c", "d"), None);
        let (order, _) = s.sim_pairs(None);
        let keys: Vec<(&str, &str)> = order.iter().map(|(x, y, _)| (&**x, &**y)).collect();
        assert_eq!(keys, vec![("a", "b"), ("e", "f")]);
    }

    #[test]
    fn history_is_bounded() {
        let s = State::new(0, 3);
        let rec = |i: usize| HistoryRec {
            id: format!("h{i}"),
            node_id: "n".into(),
            action: String::new(),
            result: String::new(),
            source: 1,
            timestamp: 0,
            metadata: vec![],
        };
        let (s, _, _) = s.apply(&[Op::History((0..5).map(rec).collect())]).unwrap();
        assert_eq!(s.history_len(), 3);
        assert_eq!(s.history_evicted(), 2);
        assert_eq!(s.history_recent(1)[0].id, "h4");
    }
}
