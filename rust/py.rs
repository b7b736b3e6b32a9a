//! The only PyO3 file: the whole native surface of `crs._core`.
//!
//! Inputs are extracted first, real work runs with the GIL released (`py.detach`), and
//! results are built afterwards. Nothing here panics across the boundary: every fallible
//! call returns `PyResult`, and Rust errors are mapped to `ValueError` once, here.
//! Sections are grouped by subsystem; each registers its items in `register_*`.

use pyo3::prelude::*;

// ---------------------------------------------------------------- cycle detection

/// Online cycle detector over interned state ids (see `rust/cycle.rs`).
#[pyclass(name = "CycleDetector", module = "crs._core")]
struct PyCycleDetector {
    inner: crate::cycle::CycleDetector,
}

#[pymethods]
impl PyCycleDetector {
    #[new]
    fn new(window: usize) -> Self {
        Self {
            inner: crate::cycle::CycleDetector::new(window),
        }
    }

    /// Feed one state id; returns the cycle's state ids when this state closes one.
    fn add(&mut self, state: u32) -> Option<Vec<u32>> {
        self.inner.add(state).map(|c| c.states)
    }

    fn reset(&mut self) {
        self.inner.reset();
    }

    #[getter]
    fn steps(&self) -> u64 {
        self.inner.steps()
    }

    #[getter]
    fn cycles_found(&self) -> u64 {
        self.inner.cycles_found()
    }
}

fn register_cycle(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCycleDetector>()
}

// ---------------------------------------------------------------- journal framing

/// Frames `payloads` as one unit (a single record or an atomic batch) from `first_seq`.
#[pyfunction]
#[allow(clippy::needless_pass_by_value)] // PyO3 extracts a list argument into an owned Vec
fn wal_encode<'py>(
    py: Python<'py>,
    first_seq: u64,
    payloads: Vec<Bound<'py, pyo3::types::PyBytes>>,
) -> Bound<'py, pyo3::types::PyBytes> {
    let refs: Vec<&[u8]> = payloads
        .iter()
        .map(pyo3::types::PyBytesMethods::as_bytes)
        .collect();
    let out = py.detach(|| crate::wal::encode_unit(first_seq, &refs));
    pyo3::types::PyBytes::new(py, &out)
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
        return Err(pyo3::exceptions::PyValueError::new_err(
            "start is past the end of the buffer",
        ));
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

fn register_wal(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(wal_encode, m)?)?;
    m.add_function(wrap_pyfunction!(wal_scan, m)?)?;
    m.add_function(wrap_pyfunction!(wal_resync, m)?)?;
    Ok(())
}

// ---------------------------------------------------------------- module

#[pymodule(gil_used = false)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    register_cycle(m)?;
    register_wal(m)?;
    Ok(())
}
