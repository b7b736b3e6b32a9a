//! The reasoning state: `StateCore` (one immutable version) and `StateHead` (the current one).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::state::{ApplyError, ConstraintRec, HistoryRec, Op, OpKind, ProofEntry, State};
use pyo3::types::PyTuple;
use std::sync::Arc;

type ProofRow = (String, u64, u64, u8, u8, i64);
type ConstraintRow = (String, u8, Vec<String>, String, bool, u8, i64);
type HistoryRow = (
    String,
    String,
    String,
    String,
    u8,
    i64,
    Vec<(String, String)>,
);

/// Work above this many items runs with the GIL released.
const DETACH_ABOVE: usize = 32;

fn proof_entry(r: ProofRow) -> (String, ProofEntry) {
    (
        r.0,
        ProofEntry {
            proof: r.1,
            disproof: r.2,
            status: r.3,
            source: r.4,
            updated_at: r.5,
        },
    )
}

fn constraint_rec(r: ConstraintRow) -> ConstraintRec {
    ConstraintRec {
        id: r.0.into(),
        ctype: r.1,
        nodes: r.2.into_iter().map(Into::into).collect(),
        expression: r.3,
        active: r.4,
        source: r.5,
        created_at: r.6,
    }
}

fn constraint_row(c: &ConstraintRec) -> ConstraintRow {
    (
        c.id.to_string(),
        c.ctype,
        c.nodes.iter().map(ToString::to_string).collect(),
        c.expression.clone(),
        c.active,
        c.source,
        c.created_at,
    )
}

fn history_row(h: &HistoryRec) -> HistoryRow {
    (
        h.id.clone(),
        h.node_id.to_string(),
        h.action.clone(),
        h.result.clone(),
        h.source,
        h.timestamp,
        h.metadata.clone(),
    )
}

fn extract_op(item: &Bound<'_, PyAny>) -> PyResult<Op> {
    let t = item.cast::<PyTuple>()?;
    let kind: u8 = t.get_item(0)?.extract()?;
    Ok(match OpKind::try_from(kind)? {
        OpKind::Proof => {
            let rows: Vec<ProofRow> = t.get_item(1)?.extract()?;
            Op::Proof(rows.into_iter().map(proof_entry).collect())
        }
        OpKind::Constraint => {
            let add: Vec<ConstraintRow> = t.get_item(1)?.extract()?;
            let remove: Vec<String> = t.get_item(2)?.extract()?;
            let update: Vec<(String, ConstraintRow)> = t.get_item(3)?.extract()?;
            Op::Constraint {
                add: add.into_iter().map(constraint_rec).collect(),
                remove,
                update: update
                    .into_iter()
                    .map(|(k, c)| (k, constraint_rec(c)))
                    .collect(),
            }
        }
        OpKind::Similarity => Op::Similarity(t.get_item(1)?.extract()?),
        OpKind::Dependency => Op::Dependency {
            add: t.get_item(1)?.extract()?,
            remove: t.get_item(2)?.extract()?,
        },
        OpKind::History => {
            let rows: Vec<HistoryRow> = t.get_item(1)?.extract()?;
            Op::History(
                rows.into_iter()
                    .map(|r| HistoryRec {
                        id: r.0,
                        node_id: r.1.into(),
                        action: r.2,
                        result: r.3,
                        source: r.4,
                        timestamp: r.5,
                        metadata: r.6,
                    })
                    .collect(),
            )
        }
        OpKind::Streaming => Op::Streaming {
            increments: t.get_item(1)?.extract()?,
            items: t.get_item(2)?.extract()?,
        },
    })
}

fn op_size(op: &Op) -> usize {
    match op {
        Op::Proof(r) => r.len(),
        Op::Constraint {
            add,
            remove,
            update,
        } => add.len() + remove.len() + update.len(),
        Op::Similarity(p) => p.len(),
        Op::Dependency { add, remove } => add.len() + remove.len(),
        Op::History(h) => h.len(),
        Op::Streaming { increments, items } => increments.len() + items.len(),
    }
}

fn keys(v: Vec<crate::state::Key>) -> Vec<String> {
    v.into_iter().map(|k| k.to_string()).collect()
}

/// One immutable version of the reasoning state (see `rust/state`).
#[pyclass(name = "StateCore", module = "crs._core", frozen)]
struct PyStateCore {
    inner: Arc<State>,
}

impl PyStateCore {
    fn wrap(s: State) -> Self {
        Self { inner: Arc::new(s) }
    }
}

#[pymethods]
impl PyStateCore {
    #[new]
    fn new(max_similarity_pairs: usize, max_history_entries: usize) -> Self {
        Self::wrap(State::new(max_similarity_pairs, max_history_entries))
    }

    /// Next version after `ops` (all or nothing): (state, entries modified, index mask).
    fn apply_ops(&self, py: Python<'_>, ops: &Bound<'_, PyList>) -> PyResult<(Self, usize, u8)> {
        let ops: Vec<Op> = ops
            .iter()
            .map(|o| extract_op(&o))
            .collect::<PyResult<_>>()?;
        let size: usize = ops.iter().map(op_size).sum();
        let res = if size > DETACH_ABOVE {
            py.detach(|| self.inner.apply(&ops))
        } else {
            self.inner.apply(&ops)
        };
        let (next, n, mask) = res?;
        Ok((Self::wrap(next), n, mask))
    }

    fn proof_get(&self, node_id: &str) -> Option<(u64, u64, u8, u8, i64)> {
        self.inner
            .proof_get(node_id)
            .map(|e| (e.proof, e.disproof, e.status, e.source, e.updated_at))
    }

    fn proof_len(&self) -> usize {
        self.inner.proof_len()
    }

    fn proof_all(&self, py: Python<'_>) -> Vec<ProofRow> {
        py.detach(|| {
            self.inner
                .proof_all()
                .into_iter()
                .map(|(k, e)| {
                    (
                        k.to_string(),
                        e.proof,
                        e.disproof,
                        e.status,
                        e.source,
                        e.updated_at,
                    )
                })
                .collect()
        })
    }

    fn constraint_get(&self, constraint_id: &str) -> Option<ConstraintRow> {
        self.inner
            .constraint_get(constraint_id)
            .map(|c| constraint_row(&c))
    }

    fn constraint_len(&self) -> usize {
        self.inner.constraint_len()
    }

    fn constraint_all(&self, py: Python<'_>) -> Vec<ConstraintRow> {
        py.detach(|| {
            self.inner
                .constraint_all()
                .iter()
                .map(|c| constraint_row(c))
                .collect()
        })
    }

    fn sim_distance(&self, a: &str, b: &str) -> Option<f64> {
        self.inner.sim_distance(a, b)
    }

    fn sim_neighbors(&self, py: Python<'_>, node_id: &str) -> Vec<(String, f64)> {
        py.detach(|| {
            self.inner
                .sim_neighbors(node_id)
                .into_iter()
                .map(|(k, d)| (k.to_string(), d))
                .collect()
        })
    }

    fn sim_len(&self) -> usize {
        self.inner.sim_len()
    }

    fn sim_evicted(&self) -> u64 {
        self.inner.sim_evicted()
    }

    #[pyo3(signature = (max_pairs=None))]
    fn sim_pairs(
        &self,
        py: Python<'_>,
        max_pairs: Option<usize>,
    ) -> (Vec<(String, String, f64)>, bool) {
        py.detach(|| {
            let (pairs, truncated) = self.inner.sim_pairs(max_pairs);
            (
                pairs
                    .into_iter()
                    .map(|(a, b, d)| (a.to_string(), b.to_string(), d))
                    .collect(),
                truncated,
            )
        })
    }

    fn depends_on(&self, node_id: &str) -> Vec<String> {
        keys(self.inner.depends_on(node_id))
    }

    fn depended_by(&self, node_id: &str) -> Vec<String> {
        keys(self.inner.depended_by(node_id))
    }

    fn has_cycle(&self, py: Python<'_>, node_id: &str) -> bool {
        py.detach(|| self.inner.has_cycle(node_id))
    }

    fn dep_len(&self) -> usize {
        self.inner.dep_len()
    }

    fn dep_edges(&self, py: Python<'_>) -> Vec<(String, String)> {
        py.detach(|| {
            self.inner
                .dep_edges_all()
                .into_iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        })
    }

    fn bfs_depended_by(
        &self,
        py: Python<'_>,
        start: &str,
        max_depth: usize,
    ) -> Vec<(String, String, usize)> {
        py.detach(|| {
            self.inner
                .bfs_depended_by(start, max_depth)
                .into_iter()
                .map(|(p, c, d)| (p.to_string(), c.to_string(), d))
                .collect()
        })
    }

    fn dependency_chain(&self, py: Python<'_>, start: &str, end: &str) -> Vec<String> {
        py.detach(|| keys(self.inner.dependency_chain(start, end)))
    }

    fn affected_by(&self, py: Python<'_>, node_id: &str) -> Vec<String> {
        py.detach(|| keys(self.inner.affected_by(node_id)))
    }

    fn history_len(&self) -> usize {
        self.inner.history_len()
    }

    fn history_evicted(&self) -> u64 {
        self.inner.history_evicted()
    }

    fn history_recent(&self, py: Python<'_>, n: usize) -> Vec<HistoryRow> {
        py.detach(|| {
            self.inner
                .history_recent(n)
                .iter()
                .map(|h| history_row(h))
                .collect()
        })
    }

    fn history_trace(&self, py: Python<'_>, node_id: &str) -> Vec<HistoryRow> {
        py.detach(|| {
            self.inner
                .history_trace(node_id)
                .iter()
                .map(|h| history_row(h))
                .collect()
        })
    }

    fn estimate(&self, item: &str) -> u64 {
        self.inner.estimate(item)
    }

    fn cardinality(&self, py: Python<'_>) -> u64 {
        py.detach(|| self.inner.cardinality())
    }

    fn streaming_bytes(&self) -> usize {
        self.inner.streaming_bytes()
    }

    fn sketch_bytes(&self, py: Python<'_>) -> Vec<u8> {
        py.detach(|| self.inner.sketch_bytes())
    }

    fn hot_nodes(&self, py: Python<'_>, n: usize) -> Vec<(String, u64)> {
        py.detach(|| {
            self.inner
                .hot_nodes(n)
                .into_iter()
                .map(|(k, f)| (k.to_string(), f))
                .collect()
        })
    }
}

/// The mutable head version a CRS writes to. Nodes not shared with a frozen version
/// (`freeze`) are updated in place; shared ones are copied on write, so frozen versions
/// never change.
#[pyclass(name = "StateHead", module = "crs._core")]
struct PyStateHead {
    inner: State,
}

#[pymethods]
impl PyStateHead {
    #[new]
    fn new(max_similarity_pairs: usize, max_history_entries: usize) -> Self {
        Self {
            inner: State::new(max_similarity_pairs, max_history_entries),
        }
    }

    /// An immutable version sharing this head's current content (O(1)).
    fn freeze(&self) -> PyStateCore {
        PyStateCore::wrap(self.inner.clone())
    }

    /// Make `core`'s content the head's (O(1)).
    fn reset(&mut self, core: &PyStateCore) {
        self.inner = (*core.inner).clone();
    }

    /// Install a streaming sketch from `StateCore.sketch_bytes()` and eviction counters.
    fn set_sketch(&mut self, data: &[u8], sim_evicted: u64, hist_evicted: u64) -> PyResult<()> {
        if !self.inner.set_sketch(data) {
            return Err(
                ApplyError::Invalid("streaming sketch bytes have the wrong length".into()).into(),
            );
        }
        self.inner.set_evicted(sim_evicted, hist_evicted);
        Ok(())
    }

    /// (similarity pairs evicted, history entries evicted) so far.
    fn evicted(&self) -> (u64, u64) {
        self.inner.evicted()
    }

    /// Write proof rows (cannot fail); returns the number written.
    fn put_proofs(&mut self, py: Python<'_>, rows: Vec<ProofRow>) -> usize {
        let n = rows.len();
        let inner = &mut self.inner;
        let work = move || {
            let entries: Vec<(String, ProofEntry)> = rows.into_iter().map(proof_entry).collect();
            inner.put_proofs(&entries)
        };
        if n > DETACH_ABOVE {
            py.detach(work)
        } else {
            work()
        }
    }

    /// Decode the journal codec's binary ProofDelta payloads (`rust/codec.rs`) and write
    /// their rows in order, all or nothing; returns the number of rows written. The replay
    /// of a CRS journal uses it so that no Python object is made per record. ValueError
    /// naming the first payload that is not a valid binary ProofDelta (nothing written).
    #[allow(clippy::needless_pass_by_value)] // PyO3 extracts a list argument into an owned Vec
    fn put_proof_payloads(
        &mut self,
        py: Python<'_>,
        payloads: Vec<pyo3::pybacked::PyBackedBytes>,
    ) -> PyResult<usize> {
        let inner = &mut self.inner;
        py.detach(move || {
            let mut entries: Vec<(String, ProofEntry)> = Vec::with_capacity(payloads.len());
            for (i, data) in payloads.iter().enumerate() {
                if !crate::codec::is_proof(data) {
                    return Err(format!("payloads[{i}]: not a binary ProofDelta payload"));
                }
                let rec =
                    crate::codec::decode_proof(data).map_err(|e| format!("payloads[{i}]: {e}"))?;
                entries.extend(rec.rows.into_iter().map(proof_entry));
            }
            Ok(inner.put_proofs(&entries))
        })
        .map_err(PyValueError::new_err)
    }

    /// Apply `ops` all or nothing: (entries modified, index mask); on error nothing changed.
    fn apply_ops(&mut self, py: Python<'_>, ops: &Bound<'_, PyList>) -> PyResult<(usize, u8)> {
        let ops: Vec<Op> = ops
            .iter()
            .map(|o| extract_op(&o))
            .collect::<PyResult<_>>()?;
        let size: usize = ops.iter().map(op_size).sum();
        let res = if size > DETACH_ABOVE {
            py.detach(|| self.inner.apply(&ops))
        } else {
            self.inner.apply(&ops)
        };
        let (next, n, mask) = res?;
        self.inner = next;
        Ok((n, mask))
    }
}

pub(super) fn register_state(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyStateCore>()?;
    m.add_class::<PyStateHead>()
}
