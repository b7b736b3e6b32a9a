//! Cycle detection: `CycleDetector` (Brent, over ints) and `KeyCycleDetector` (over state keys).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use super::Shared;

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

pub(super) fn register_cycle(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCycleDetector>()?;
    m.add_class::<PyKeyCycleDetector>()?;
    m.add_function(wrap_pyfunction!(brent_recurrence, m)?)
}
