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

// ---------------------------------------------------------------- module

#[pymodule(gil_used = false)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    register_cycle(m)?;
    Ok(())
}
