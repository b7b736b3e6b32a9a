//! Clauses: `ClauseDb`, the learned-clause store and its conflict checks.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyBool, PyDict, PyString};

use super::Shared;

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

pub(super) fn register_clauses(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyClauseDb>()
}
