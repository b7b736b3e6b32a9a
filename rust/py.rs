//! The only PyO3 file: the whole native surface of `crs._core`.
//!
//! Inputs are extracted first, real work runs with the GIL released (`py.detach`), and
//! results are built afterwards. Nothing here panics across the boundary: every fallible
//! call returns `PyResult`, and Rust errors are mapped to `ValueError` once, here.
//! Sections are grouped by subsystem; each registers its items in `register_*`.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyBytes;
use std::sync::{Mutex, PoisonError, TryLockError};

use crate::minhash::{Signature, NUM_PERM};

// ---------------------------------------------------------------- cycle detection

/// A value shared by Python threads: locked for each call, and waited for with the GIL
/// released when another thread holds it (e.g. during a batch), so nothing deadlocks.
struct Shared<T>(Mutex<T>);

impl<T: Send> Shared<T> {
    fn new(value: T) -> Self {
        Self(Mutex::new(value))
    }

    fn with<R>(&self, py: Python<'_>, f: impl FnOnce(&mut T) -> R) -> R {
        loop {
            match self.0.try_lock() {
                Ok(mut guard) => return f(&mut guard),
                // A panic never crosses the boundary, but keep going on a poisoned lock.
                Err(TryLockError::Poisoned(p)) => return f(&mut p.into_inner()),
                Err(TryLockError::WouldBlock) => py.detach(|| {
                    drop(self.0.lock());
                }),
            }
        }
    }

    /// Runs `f` with the GIL released (for batches).
    fn with_detached<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut T) -> R + Send) -> R {
        py.detach(|| f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner)))
    }
}

/// Online cycle detector over integer state ids (see `rust/cycle.rs`). Thread-safe.
#[pyclass(name = "CycleDetector", module = "crs._core", frozen)]
struct PyCycleDetector {
    inner: Shared<crate::cycle::CycleDetector>,
}

// PyO3 extracts arguments as owned values, so borrowing them is not an option.
#[allow(clippy::needless_pass_by_value)]
#[pymethods]
impl PyCycleDetector {
    #[new]
    fn new(window: usize) -> Self {
        Self {
            inner: Shared::new(crate::cycle::CycleDetector::new(window)),
        }
    }

    /// Feed one state id; returns the cycle's state ids when this state closes one.
    fn add(&self, py: Python<'_>, state: u32) -> Option<Vec<u32>> {
        self.inner.with(py, |d| d.add(state).map(|c| c.states))
    }

    /// Feed many state ids; returns `(index, cycle, tail)` for every cycle closed.
    fn add_many(&self, py: Python<'_>, states: Vec<u32>) -> Vec<(usize, Vec<u32>, u64)> {
        self.inner
            .with_detached(py, |d| d.add_many(&states))
            .into_iter()
            .map(|(i, c)| (i, c.states, c.tail))
            .collect()
    }

    fn reset(&self, py: Python<'_>) {
        self.inner.with(py, crate::cycle::CycleDetector::reset);
    }

    #[getter]
    fn steps(&self, py: Python<'_>) -> u64 {
        self.inner.with(py, |d| d.steps())
    }

    #[getter]
    fn cycles_found(&self, py: Python<'_>) -> u64 {
        self.inner.with(py, |d| d.cycles_found())
    }

    #[getter]
    fn history_size(&self, py: Python<'_>) -> usize {
        self.inner.with(py, |d| d.history_size())
    }

    #[getter]
    fn window(&self, py: Python<'_>) -> usize {
        self.inner.with(py, |d| d.window())
    }
}

/// Online cycle detector over non-empty string states, interned in Rust (`rust/cycle.rs`).
/// Thread-safe.
#[pyclass(name = "KeyCycleDetector", module = "crs._core", frozen)]
struct PyKeyCycleDetector {
    inner: Shared<crate::cycle::KeyCycleDetector>,
}

fn empty_state(index: usize) -> PyErr {
    PyValueError::new_err(format!(
        "states[{index}] is empty; a state must be a non-empty string"
    ))
}

// PyO3 extracts arguments as owned values, so borrowing them is not an option.
#[allow(clippy::needless_pass_by_value)]
#[pymethods]
impl PyKeyCycleDetector {
    #[new]
    fn new(window: usize) -> Self {
        Self {
            inner: Shared::new(crate::cycle::KeyCycleDetector::new(window)),
        }
    }

    /// Feed one state; returns `(cycle, tail)` when this state closes a cycle.
    fn add(&self, py: Python<'_>, state: &str) -> PyResult<Option<(Vec<String>, u64)>> {
        if state.is_empty() {
            return Err(PyValueError::new_err(
                "state is empty; a state must be a non-empty string",
            ));
        }
        Ok(self
            .inner
            .with(py, |d| d.add(state).map(|c| (c.states, c.tail))))
    }

    /// Feed many states; returns `(index, cycle, tail)` for every cycle closed. All states are
    /// checked first: on an empty one nothing is fed.
    fn add_many(
        &self,
        py: Python<'_>,
        states: Vec<PyBackedStr>,
    ) -> PyResult<Vec<(usize, Vec<String>, u64)>> {
        if let Some(i) = states.iter().position(|s| s.is_empty()) {
            return Err(empty_state(i));
        }
        Ok(self
            .inner
            .with_detached(py, |d| d.add_many(states.iter().map(|s| &**s)))
            .into_iter()
            .map(|(i, c)| (i, c.states, c.tail))
            .collect())
    }

    fn reset(&self, py: Python<'_>) {
        self.inner.with(py, crate::cycle::KeyCycleDetector::reset);
    }

    #[getter]
    fn steps(&self, py: Python<'_>) -> u64 {
        self.inner.with(py, |d| d.detector().steps())
    }

    #[getter]
    fn cycles_found(&self, py: Python<'_>) -> u64 {
        self.inner.with(py, |d| d.detector().cycles_found())
    }

    #[getter]
    fn history_size(&self, py: Python<'_>) -> usize {
        self.inner.with(py, |d| d.detector().history_size())
    }

    #[getter]
    fn window(&self, py: Python<'_>) -> usize {
        self.inner.with(py, |d| d.detector().window())
    }
}

/// Brent's `(mu, lambda)` of a sequence of iterates, or `None` if it ends first.
// PyO3 extracts arguments as owned values, so borrowing them is not an option.
#[allow(clippy::needless_pass_by_value)]
#[pyfunction]
fn brent_recurrence(py: Python<'_>, seq: Vec<u32>) -> Option<(usize, usize)> {
    py.detach(|| crate::cycle::brent(&seq))
}

fn register_cycle(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCycleDetector>()?;
    m.add_class::<PyKeyCycleDetector>()?;
    m.add_function(wrap_pyfunction!(brent_recurrence, m)?)
}

// ---------------------------------------------------------------- graphs: CSR, BFS, Tarjan

/// Reads interleaved `(source, target)` u32 pairs from a buffer of u32 (e.g. a numpy
/// `uint32` array of shape `(E, 2)`) or of bytes (little-endian u32).
fn edge_pairs(py: Python<'_>, edges: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    if edges.len().is_ok_and(|n| n == 0) && !edges.is_instance_of::<pyo3::types::PyString>() {
        // An empty `array.array` may expose an unaligned dummy pointer; nothing to read anyway.
        return Ok(Vec::new());
    }
    if let Ok(buf) = PyBuffer::<u32>::get(edges) {
        return buf.to_vec(py);
    }
    let buf = PyBuffer::<u8>::get(edges).map_err(|_| {
        PyValueError::new_err("edges must be a buffer of u32 values (numpy uint32) or of bytes")
    })?;
    let bytes = buf.to_vec(py)?;
    if bytes.len() % 4 != 0 {
        return Err(PyValueError::new_err(format!(
            "edges as bytes must hold whole little-endian u32 values, got {} bytes",
            bytes.len()
        )));
    }
    Ok(py.detach(|| {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }))
}

/// A frozen digraph in CSR form over nodes `0..node_count` (see `rust/graph.rs`).
#[pyclass(name = "Digraph", module = "crs._core", frozen)]
struct PyDigraph {
    inner: crate::graph::Csr,
}

#[pymethods]
impl PyDigraph {
    #[new]
    fn new(py: Python<'_>, node_count: usize, edges: &Bound<'_, PyAny>) -> PyResult<Self> {
        let pairs = edge_pairs(py, edges)?;
        let inner = py
            .detach(|| crate::graph::Csr::from_pairs(node_count, &pairs))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Self { inner })
    }

    #[getter]
    fn node_count(&self) -> usize {
        self.inner.node_count()
    }

    #[getter]
    fn edge_count(&self) -> usize {
        self.inner.edge_count()
    }

    fn successors(&self, node: u32) -> PyResult<Vec<u32>> {
        self.check(node)?;
        Ok(self.inner.successors(node).to_vec())
    }

    /// The graph with every edge reversed.
    fn reversed(&self, py: Python<'_>) -> Self {
        Self {
            inner: py.detach(|| self.inner.reversed()),
        }
    }

    /// Strongly connected components in Tarjan's pop order (iterative, no recursion).
    fn tarjan_scc(&self, py: Python<'_>) -> Vec<Vec<u32>> {
        let (members, offsets) = py.detach(|| crate::tarjan::tarjan_scc(&self.inner));
        offsets
            .windows(2)
            .map(|w| members[w[0] as usize..w[1] as usize].to_vec())
            .collect()
    }

    /// Nodes within `max_depth` edges of `start` in BFS order, and their depths.
    fn bfs_within(
        &self,
        py: Python<'_>,
        start: u32,
        max_depth: u32,
    ) -> PyResult<(Vec<u32>, Vec<u32>)> {
        self.check(start)?;
        Ok(py.detach(|| crate::graph::csr_bfs_within(&self.inner, start, max_depth)))
    }
}

impl PyDigraph {
    fn check(&self, node: u32) -> PyResult<()> {
        if (node as usize) < self.inner.node_count() {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "node {node} is out of range: node ids are 0..{}",
                self.inner.node_count()
            )))
        }
    }
}

fn register_graph(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDigraph>()
}

// ---------------------------------------------------------------- clauses

fn clause_err(e: &crate::clauses::ClauseError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Clause database with two watched literals over `family=value` variables (`rust/clauses.rs`).
/// Thread-safe.
#[pyclass(name = "ClauseDb", module = "crs._core", frozen)]
struct PyClauseDb {
    inner: Shared<crate::clauses::ClauseDb>,
}

// PyO3 extracts arguments as owned values, so borrowing them is not an option.
#[allow(clippy::needless_pass_by_value)]
#[pymethods]
impl PyClauseDb {
    #[new]
    fn new() -> Self {
        Self {
            inner: Shared::new(crate::clauses::ClauseDb::new()),
        }
    }

    /// Adds clause `id` with literals `(family, value, negated)`.
    fn add(&self, py: Python<'_>, id: i64, literals: Vec<(String, String, bool)>) -> PyResult<()> {
        self.inner
            .with(py, |d| d.add(id, &literals))
            .map_err(|e| clause_err(&e))
    }

    fn remove(&self, py: Python<'_>, id: i64) -> bool {
        self.inner.with(py, |d| d.remove(id))
    }

    fn clear(&self, py: Python<'_>) {
        self.inner
            .with_detached(py, crate::clauses::ClauseDb::clear);
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.inner.with(py, |d| d.len())
    }

    fn __contains__(&self, py: Python<'_>, id: i64) -> bool {
        self.inner.with(py, |d| d.contains(id))
    }

    #[getter]
    fn variable_count(&self, py: Python<'_>) -> usize {
        self.inner.with(py, |d| d.variable_count())
    }

    /// Clause ids, oldest first.
    fn ids(&self, py: Python<'_>) -> Vec<i64> {
        self.inner.with_detached(py, |d| d.ids())
    }

    /// Oldest clause violated by the one-hot observation `(family, value)*`.
    fn check(&self, py: Python<'_>, observed: Vec<(String, String)>) -> PyResult<Option<i64>> {
        self.inner
            .with_detached(py, |d| d.check(&observed))
            .map_err(|e| clause_err(&e))
    }

    /// Every clause violated by the one-hot observation, oldest first.
    fn check_all(&self, py: Python<'_>, observed: Vec<(String, String)>) -> PyResult<Vec<i64>> {
        self.inner
            .with_detached(py, |d| d.check_all(&observed))
            .map_err(|e| clause_err(&e))
    }

    /// Oldest clause violated by the explicit assignment `(family, value, bool)*`.
    fn check_assignment(
        &self,
        py: Python<'_>,
        assignment: Vec<(String, String, bool)>,
    ) -> PyResult<Option<i64>> {
        self.inner
            .with_detached(py, |d| d.check_assignment(&assignment))
            .map_err(|e| clause_err(&e))
    }

    /// Every clause violated by the explicit assignment, oldest first.
    fn check_assignment_all(
        &self,
        py: Python<'_>,
        assignment: Vec<(String, String, bool)>,
    ) -> PyResult<Vec<i64>> {
        self.inner
            .with_detached(py, |d| d.check_assignment_all(&assignment))
            .map_err(|e| clause_err(&e))
    }
}

fn register_clauses(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyClauseDb>()
}

// ---------------------------------------------------------------- minhash / LSH

static PERMUTATIONS: std::sync::LazyLock<crate::minhash::Permutations> =
    std::sync::LazyLock::new(crate::minhash::Permutations::default);

fn sig_bytes(sig: &Signature) -> Vec<u8> {
    sig.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn sig_from(bytes: &[u8]) -> PyResult<Signature> {
    if bytes.len() != NUM_PERM * 4 {
        return Err(PyValueError::new_err(format!(
            "signature must be {} bytes ({NUM_PERM} little-endian u32), got {}",
            NUM_PERM * 4,
            bytes.len()
        )));
    }
    let mut sig = [0u32; NUM_PERM];
    for (v, c) in sig.iter_mut().zip(bytes.chunks_exact(4)) {
        *v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    Ok(sig)
}

/// The shingles of `text`: lower-cased tokens and adjacent token bigrams, first-seen order.
#[pyfunction]
fn minhash_shingles(text: &str) -> Vec<String> {
    crate::minhash::shingles(text)
}

/// MinHash signature of `text` as 512 bytes (128 little-endian u32).
#[pyfunction]
fn minhash_signature<'py>(py: Python<'py>, text: &str) -> Bound<'py, PyBytes> {
    let sig = crate::minhash::signatures(&PERMUTATIONS, &[text])[0];
    PyBytes::new(py, &sig_bytes(&sig))
}

/// Signatures of many texts, concatenated (`512 * len(texts)` bytes); GIL released.
// PyO3 extracts arguments as owned values, so borrowing them is not an option.
#[allow(clippy::needless_pass_by_value)]
#[pyfunction]
fn minhash_signatures(py: Python<'_>, texts: Vec<PyBackedStr>) -> Bound<'_, PyBytes> {
    let out = py.detach(|| {
        let sigs = crate::minhash::signatures(&PERMUTATIONS, &texts);
        let mut out = Vec::with_capacity(sigs.len() * NUM_PERM * 4);
        for s in &sigs {
            for v in s {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    });
    PyBytes::new(py, &out)
}

/// Estimated Jaccard similarity of two signatures (fraction of equal positions).
#[pyfunction]
fn minhash_jaccard(a: &[u8], b: &[u8]) -> PyResult<f64> {
    Ok(crate::minhash::jaccard(&sig_from(a)?, &sig_from(b)?))
}

/// LSH index (20 bands x 5 rows) of MinHash signatures under integer ids. Thread-safe.
#[pyclass(name = "LshIndex", module = "crs._core", frozen)]
struct PyLshIndex {
    inner: Shared<crate::minhash::LshIndex>,
}

#[pymethods]
impl PyLshIndex {
    #[new]
    fn new() -> Self {
        Self {
            inner: Shared::new(crate::minhash::LshIndex::new()),
        }
    }

    /// Indexes `id` under `signature` (512 bytes), replacing its earlier signature.
    fn insert(&self, py: Python<'_>, id: u64, signature: &[u8]) -> PyResult<()> {
        let sig = sig_from(signature)?;
        self.inner.with(py, |d| d.insert(id, &sig));
        Ok(())
    }

    fn remove(&self, py: Python<'_>, id: u64) -> bool {
        self.inner.with(py, |d| d.remove(id))
    }

    /// Ids sharing at least one band with `signature`, ascending.
    fn query(&self, py: Python<'_>, signature: &[u8]) -> PyResult<Vec<u64>> {
        let sig = sig_from(signature)?;
        Ok(self.inner.with_detached(py, |d| d.query(&sig)))
    }

    fn clear(&self, py: Python<'_>) {
        self.inner.with(py, crate::minhash::LshIndex::clear);
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.inner.with(py, |d| d.len())
    }

    fn __contains__(&self, py: Python<'_>, id: u64) -> bool {
        self.inner.with(py, |d| d.contains(id))
    }
}

fn register_minhash(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("MINHASH_NUM_PERM", NUM_PERM)?;
    m.add("LSH_BANDS", crate::minhash::BANDS)?;
    m.add("LSH_ROWS", crate::minhash::ROWS)?;
    m.add_function(wrap_pyfunction!(minhash_shingles, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_signature, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_signatures, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_jaccard, m)?)?;
    m.add_class::<PyLshIndex>()
}

// ---------------------------------------------------------------- module

#[pymodule(gil_used = false)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    register_cycle(m)?;
    register_graph(m)?;
    register_clauses(m)?;
    register_minhash(m)?;
    Ok(())
}
