//! The only PyO3 file: the whole native surface of `crs._core`.
//!
//! Inputs are extracted first, real work runs with the GIL released (`py.detach`), and
//! results are built afterwards. Nothing here panics across the boundary: every fallible
//! call returns `PyResult`, and Rust errors are mapped to `ValueError` once, here.
//! Sections are grouped by subsystem; each registers its items in `register_*`.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList, PyString};
use std::sync::{Mutex, PoisonError, TryLockError};

use crate::minhash::{Signature, NUM_PERM};

// ---------------------------------------------------------------- shared mutable state (algorithm classes)

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

// ---------------------------------------------------------------- cycle detection

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

/// Python's cached hash of a str (as the interner's hash) and its UTF-8 text.
fn str_key<'a>(s: &'a Bound<'_, PyString>) -> PyResult<(u64, &'a str)> {
    Ok((s.hash()? as u64, s.to_str()?))
}

/// `states[i]` as `(hash, text)`: a non-empty str.
fn state_item<'a>(i: usize, item: &'a Bound<'_, PyAny>) -> PyResult<(u64, &'a str)> {
    let s = item.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "states[{i}] is {}, not str",
            item.get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string())
        ))
    })?;
    let (hash, text) = str_key(s)?;
    if text.is_empty() {
        return Err(empty_state(i));
    }
    Ok((hash, text))
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
    fn add(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyString>,
    ) -> PyResult<Option<(Vec<String>, u64)>> {
        let (hash, text) = str_key(state)?;
        if text.is_empty() {
            return Err(PyValueError::new_err(
                "state is empty; a state must be a non-empty string",
            ));
        }
        Ok(self
            .inner
            .with(py, |d| d.add_hashed(hash, text).map(|c| (c.states, c.tail))))
    }

    /// Feed many states; returns `(index, cycle, tail)` for every cycle closed. All states are
    /// read and checked first: on a bad one nothing is fed.
    fn add_many(
        &self,
        py: Python<'_>,
        states: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<(usize, Vec<String>, u64)>> {
        // Intern under the GIL (reading str objects needs it) and detect with it released,
        // all under one hold of the lock so the ids stay valid.
        let found = self.inner.with(py, |d| -> PyResult<_> {
            let mut ids: Vec<u32> = Vec::new();
            if let Ok(list) = states.cast::<PyList>() {
                ids.reserve(list.len());
                // Agents repeat the same few state strings, so a batch holds the same str
                // objects many times. Map each exact `str` object's address to its id for this
                // call: the list keeps every item alive, and hashing an exact `str` runs no
                // Python code (a subclass could, e.g. mutate the list), so an address cannot
                // be reused by another string before the call returns.
                let mut seen: crate::hash::FxHashMap<usize, u32> =
                    crate::hash::FxHashMap::default();
                for (i, item) in list.iter().enumerate() {
                    let exact = item.is_exact_instance_of::<PyString>();
                    let addr = item.as_ptr() as usize;
                    if exact {
                        if let Some(&id) = seen.get(&addr) {
                            ids.push(id);
                            continue;
                        }
                    }
                    let (hash, text) = state_item(i, &item)?;
                    let id = d.intern_hashed(hash, text);
                    if exact {
                        seen.insert(addr, id);
                    }
                    ids.push(id);
                }
            } else {
                for (i, item) in states.try_iter()?.enumerate() {
                    let item = item?;
                    let (hash, text) = state_item(i, &item)?;
                    ids.push(d.intern_hashed(hash, text));
                }
            }
            Ok(py.detach(|| d.add_interned(&ids)))
        })?;
        Ok(found
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
        // PyO3 accepts an explicit byte order ('>I', '!I') as u32 but copies the raw bytes,
        // so a foreign-endian buffer would be read as different node ids.
        let foreign = if cfg!(target_endian = "little") {
            [b'>', b'!']
        } else {
            [b'<', b'<']
        };
        if buf
            .format()
            .to_bytes()
            .first()
            .is_some_and(|b| foreign.contains(b))
        {
            return Err(PyValueError::new_err(
                "edges: a u32 buffer in non-native byte order is not supported; convert it \
                 first (numpy: edges.astype(numpy.uint32))",
            ));
        }
        return buf.to_vec(py);
    }
    let buf = PyBuffer::<u8>::get(edges).map_err(|_| {
        PyValueError::new_err(
            "edges: must be a buffer of u32 values (aligned, native byte order: numpy \
             uint32, array.array('I')) or of little-endian bytes",
        )
    })?;
    let bytes = buf.to_vec(py)?;
    if bytes.len() % 4 != 0 {
        return Err(PyValueError::new_err(format!(
            "edges: bytes must hold whole little-endian u32 values, got {} bytes",
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
            .map_err(|e| {
                let arg = match e {
                    crate::graph::GraphError::TooLarge { .. }
                    | crate::graph::GraphError::OutOfMemory { .. } => "node_count",
                    _ => "edges",
                };
                PyValueError::new_err(format!("{arg}: {e}"))
            })?;
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
        self.check("node", node)?;
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
        self.check("start", start)?;
        Ok(py.detach(|| crate::graph::csr_bfs_within(&self.inner, start, max_depth)))
    }
}

impl PyDigraph {
    fn check(&self, arg: &str, node: u32) -> PyResult<()> {
        if (node as usize) < self.inner.node_count() {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "{arg}: node {node} is out of range: node ids are 0..{}",
                self.inner.node_count()
            )))
        }
    }
}

fn register_graph(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDigraph>()
}

// ---------------------------------------------------------------- clauses

/// A clause error as `ValueError` naming the argument it came from.
fn clause_err(arg: &str, e: &crate::clauses::ClauseError) -> PyErr {
    PyValueError::new_err(format!("{arg}: {e}"))
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
            .map_err(|e| clause_err("literals", &e))
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
            .map_err(|e| clause_err("observed", &e))
    }

    /// Every clause violated by the one-hot observation, oldest first.
    fn check_all(&self, py: Python<'_>, observed: Vec<(String, String)>) -> PyResult<Vec<i64>> {
        self.inner
            .with_detached(py, |d| d.check_all(&observed))
            .map_err(|e| clause_err("observed", &e))
    }

    /// Oldest clause violated by the explicit assignment `(family, value, bool)*`.
    fn check_assignment(
        &self,
        py: Python<'_>,
        assignment: Vec<(String, String, bool)>,
    ) -> PyResult<Option<i64>> {
        self.inner
            .with_detached(py, |d| d.check_assignment(&assignment))
            .map_err(|e| clause_err("assignment", &e))
    }

    /// Oldest clause violated by the explicit assignment `{"family:value": bool}` (names
    /// split at the first `:` in Rust; keys must be non-empty `str`, values `bool`).
    /// The keys' UTF-8 is borrowed, not copied (`PyBackedStr` keeps each key alive).
    fn check_names(&self, py: Python<'_>, assignment: &Bound<'_, PyDict>) -> PyResult<Option<i64>> {
        let mut names: Vec<(PyBackedStr, bool)> = Vec::with_capacity(assignment.len());
        for (k, v) in assignment.iter() {
            let b = v
                .cast::<PyBool>()
                .map_err(|_| PyTypeError::new_err("assignment: values must be bools"))?
                .is_true();
            let name: PyBackedStr = k
                .cast_into::<PyString>()
                .map_err(|_| PyTypeError::new_err("assignment: keys must be str"))?
                .try_into()?;
            if name.is_empty() {
                return Err(PyValueError::new_err("assignment: keys must be non-empty"));
            }
            names.push((name, b));
        }
        self.inner
            .with_detached(py, |d| d.check_assignment_names(&names))
            .map_err(|e| clause_err("assignment", &e))
    }

    /// Every clause violated by the explicit assignment, oldest first.
    fn check_assignment_all(
        &self,
        py: Python<'_>,
        assignment: Vec<(String, String, bool)>,
    ) -> PyResult<Vec<i64>> {
        self.inner
            .with_detached(py, |d| d.check_assignment_all(&assignment))
            .map_err(|e| clause_err("assignment", &e))
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

fn sig_from(arg: &str, bytes: &[u8]) -> PyResult<Signature> {
    if bytes.len() != NUM_PERM * 4 {
        return Err(PyValueError::new_err(format!(
            "{arg}: a signature must be {} bytes ({NUM_PERM} little-endian u32), got {}",
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
fn minhash_shingles(py: Python<'_>, text: &str) -> Vec<String> {
    py.detach(|| crate::minhash::shingles(text))
}

/// MinHash signature of `text` as 512 bytes (128 little-endian u32).
#[pyfunction]
fn minhash_signature<'py>(py: Python<'py>, text: &str) -> Bound<'py, PyBytes> {
    let sig = py.detach(|| crate::minhash::signatures(&PERMUTATIONS, &[text])[0]);
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
    Ok(crate::minhash::jaccard(
        &sig_from("a", a)?,
        &sig_from("b", b)?,
    ))
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
        let sig = sig_from("signature", signature)?;
        self.inner.with(py, |d| d.insert(id, &sig));
        Ok(())
    }

    fn remove(&self, py: Python<'_>, id: u64) -> bool {
        self.inner.with(py, |d| d.remove(id))
    }

    /// Ids sharing at least one band with `signature`, ascending.
    fn query(&self, py: Python<'_>, signature: &[u8]) -> PyResult<Vec<u64>> {
        let sig = sig_from("signature", signature)?;
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

// ---------------------------------------------------------------- journal framing

/// Frames `payloads` as one unit (a single record or an atomic batch) from `first_seq`.
#[pyfunction]
#[allow(clippy::needless_pass_by_value)] // PyO3 extracts a list argument into an owned Vec
fn wal_encode<'py>(
    py: Python<'py>,
    first_seq: u64,
    payloads: Vec<Bound<'py, pyo3::types::PyBytes>>,
) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
    let refs: Vec<&[u8]> = payloads
        .iter()
        .map(pyo3::types::PyBytesMethods::as_bytes)
        .collect();
    let out = py
        .detach(|| crate::wal::encode_unit(first_seq, &refs))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(pyo3::types::PyBytes::new(py, &out))
}

/// What `wal_scan` returns: `(payloads, commit_pos, stop_pos, stop, found_seq)`.
type ScanTuple<'py> = (Vec<Bound<'py, pyo3::types::PyBytes>>, usize, usize, u8, u64);

/// Scans `buf` from `start`: `(payloads, commit_pos, stop_pos, stop, found_seq)`.
#[pyfunction]
fn wal_scan<'py>(
    py: Python<'py>,
    buf: &Bound<'py, pyo3::types::PyBytes>,
    start: usize,
    expected_seq: u64,
    max_records: usize,
) -> PyResult<ScanTuple<'py>> {
    let data = buf.as_bytes();
    if start > data.len() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "start={start} is past the end of buf ({} bytes)",
            data.len()
        )));
    }
    let s = py.detach(|| crate::wal::scan(data, start, expected_seq, max_records));
    let payloads = s
        .records
        .iter()
        .map(|&(off, len)| pyo3::types::PyBytes::new(py, &data[off..off + len]))
        .collect();
    Ok((
        payloads,
        s.commit_pos,
        s.stop_pos,
        s.stop as u8,
        s.found_seq,
    ))
}

/// The next valid record (that starts a unit, if `unit_start`) at or after `start`:
/// `(offset, seq)`, or `None`.
#[pyfunction]
fn wal_resync(
    py: Python<'_>,
    buf: &Bound<'_, pyo3::types::PyBytes>,
    start: usize,
    unit_start: bool,
) -> Option<(usize, u64)> {
    let data = buf.as_bytes();
    py.detach(|| crate::wal::resync(data, start, unit_start).map(|(pos, h)| (pos, h.seq)))
}

/// CRC-32C (Castagnoli) of `data` (bytes, or any buffer of bytes), as the `crc32c` package
/// computes it. Large inputs are hashed without the GIL.
#[pyfunction]
#[pyo3(name = "crc32c")]
fn crc32c_of(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<u32> {
    const DETACH_AT: usize = 1 << 16;
    if let Ok(b) = data.cast::<PyBytes>() {
        let bytes = b.as_bytes();
        if bytes.len() < DETACH_AT {
            return Ok(::crc32c::crc32c(bytes));
        }
        return Ok(py.detach(|| ::crc32c::crc32c(bytes)));
    }
    let buf = PyBuffer::<u8>::get(data).map_err(|_| {
        PyTypeError::new_err(format!(
            "data: must be bytes or a buffer of bytes, got {}",
            data.get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string())
        ))
    })?;
    let bytes = buf.to_vec(py)?;
    Ok(py.detach(|| ::crc32c::crc32c(&bytes)))
}

fn register_wal(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(crc32c_of, m)?)?;
    m.add_function(wrap_pyfunction!(wal_encode, m)?)?;
    m.add_function(wrap_pyfunction!(wal_scan, m)?)?;
    m.add_function(wrap_pyfunction!(wal_resync, m)?)?;
    Ok(())
}

// ---------------------------------------------------------------- state

use crate::state::{ApplyError, ConstraintRec, HistoryRec, Op, ProofEntry, State};
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

fn apply_err(e: &ApplyError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

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
    Ok(match kind {
        1 => {
            let rows: Vec<ProofRow> = t.get_item(1)?.extract()?;
            Op::Proof(rows.into_iter().map(proof_entry).collect())
        }
        2 => {
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
        3 => Op::Similarity(t.get_item(1)?.extract()?),
        4 => Op::Dependency {
            add: t.get_item(1)?.extract()?,
            remove: t.get_item(2)?.extract()?,
        },
        5 => {
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
        6 => Op::Streaming {
            increments: t.get_item(1)?.extract()?,
            items: t.get_item(2)?.extract()?,
        },
        other => {
            return Err(PyValueError::new_err(format!(
                "invalid: unknown operation kind {other}"
            )))
        }
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
        let (next, n, mask) = res.map_err(|e| apply_err(&e))?;
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
            return Err(PyValueError::new_err(
                "invalid: streaming sketch bytes have the wrong length",
            ));
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
        let (next, n, mask) = res.map_err(|e| apply_err(&e))?;
        self.inner = next;
        Ok((n, mask))
    }
}

fn register_state(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyStateCore>()?;
    m.add_class::<PyStateHead>()
}

// ---------------------------------------------------------------- codec

/// Decode the binary ProofDelta payloads of a run (`None` for other payloads) into
/// `(source, timestamp, rows)`; raises ValueError naming the index of the first damaged one.
/// The payloads are checked with the GIL released; the Python objects are then made
/// straight from the payload bytes (no intermediate Rust strings).
#[pyfunction]
#[allow(clippy::needless_pass_by_value)] // PyO3 extracts a list argument into an owned Vec
fn codec_decode_proofs(
    py: Python<'_>,
    payloads: Vec<pyo3::pybacked::PyBackedBytes>,
) -> PyResult<Bound<'_, PyList>> {
    let mask = proof_mask(py, &payloads)?;
    let out = PyList::empty(py);
    for (data, is_proof) in payloads.iter().zip(mask) {
        if !is_proof {
            out.append(py.None())?;
            continue;
        }
        let rows = PyList::empty(py);
        let mut failed: Option<PyErr> = None;
        let (source, timestamp) = crate::codec::walk_proof(data, |id, r| {
            if let Err(e) = rows.append((id, r.0, r.1, r.2, r.3, r.4)) {
                failed.get_or_insert(e);
            }
        })
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
        if let Some(e) = failed {
            return Err(e);
        }
        out.append((source, timestamp, rows))?;
    }
    Ok(out)
}

/// For each payload of a run: is it a binary ProofDelta payload (checked by decoding it,
/// without making Python objects)? ValueError naming the index of the first damaged one.
#[pyfunction]
#[allow(clippy::needless_pass_by_value)] // PyO3 extracts a list argument into an owned Vec
fn codec_proof_mask(
    py: Python<'_>,
    payloads: Vec<pyo3::pybacked::PyBackedBytes>,
) -> PyResult<Vec<bool>> {
    proof_mask(py, &payloads)
}

fn proof_mask(py: Python<'_>, payloads: &[pyo3::pybacked::PyBackedBytes]) -> PyResult<Vec<bool>> {
    py.detach(|| {
        payloads
            .iter()
            .enumerate()
            .map(|(i, data)| {
                if !crate::codec::is_proof(data) {
                    return Ok(false);
                }
                crate::codec::check_proof(data)
                    .map(|()| true)
                    .map_err(|e| format!("payloads[{i}]: {e}"))
            })
            .collect::<Result<Vec<bool>, String>>()
    })
    .map_err(PyValueError::new_err)
}

fn register_codec(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(codec_decode_proofs, m)?)?;
    m.add_function(wrap_pyfunction!(codec_proof_mask, m)?)?;
    Ok(())
}

// ---------------------------------------------------------------- module

#[pymodule(gil_used = false)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    register_cycle(m)?;
    register_graph(m)?;
    register_clauses(m)?;
    register_minhash(m)?;
    register_wal(m)?;
    register_state(m)?;
    register_codec(m)?;
    Ok(())
}
