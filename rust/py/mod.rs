//! The only PyO3 code: the whole native surface of `crs._core`, one file per binding.
//!
//! Inputs are extracted first, real work runs with the GIL released (`py.detach`), and
//! results are built afterwards. Nothing here panics across the boundary: every fallible
//! call returns `PyResult`. This file holds the module, the lock shared by the algorithm
//! classes and the one mapping of typed Rust errors to Python exceptions (a state apply's
//! `ApplyError` kinds become `ApplyNotFoundError` / `ApplyInvalidError`, both `ValueError`s,
//! so Python tells them apart by class, never by parsing text). Each binding file registers
//! its items in `register_*`.

mod canon;
mod clauses;
mod codec;
mod cycle;
mod graph;
mod jsonenc;
mod minhash;
mod quiet;
mod state;
mod syncer;
mod triggers;
mod volatile;
mod wal;
mod walappend;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Mutex, PoisonError, TryLockError};

use crate::state::{ApplyError, OpKind};

// ---------------------------------------------------------------- errors

pyo3::create_exception!(
    crs._core,
    ApplyNotFoundError,
    PyValueError,
    "A state apply named something the state does not hold (ApplyError::NotFound)."
);
pyo3::create_exception!(
    crs._core,
    ApplyInvalidError,
    PyValueError,
    "A state apply is not valid against the state (ApplyError::Invalid)."
);

impl From<ApplyError> for PyErr {
    fn from(e: ApplyError) -> Self {
        match e {
            ApplyError::NotFound(m) => ApplyNotFoundError::new_err(m),
            ApplyError::Invalid(m) => ApplyInvalidError::new_err(m),
        }
    }
}

// ---------------------------------------------------------------- shared mutable state (algorithm classes)

/// A value shared by Python threads: locked for each call, and waited for with the GIL
/// released when another thread holds it (e.g. during a batch), so nothing deadlocks.
pub(crate) struct Shared<T>(Mutex<T>);

impl<T: Send> Shared<T> {
    pub(crate) fn new(value: T) -> Self {
        Self(Mutex::new(value))
    }

    pub(crate) fn with<R>(&self, py: Python<'_>, f: impl FnOnce(&mut T) -> R) -> R {
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
    pub(crate) fn with_detached<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut T) -> R + Send,
    ) -> R {
        py.detach(|| f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner)))
    }
}

// ---------------------------------------------------------------- module

#[pymodule(gil_used = false)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "ApplyNotFoundError",
        m.py().get_type::<ApplyNotFoundError>(),
    )?;
    m.add("ApplyInvalidError", m.py().get_type::<ApplyInvalidError>())?;
    let kinds = PyDict::new(m.py());
    for kind in OpKind::ALL {
        kinds.set_item(kind.name(), kind as u8)?;
    }
    m.add("OP_KINDS", kinds)?;
    canon::register_canon(m)?;
    cycle::register_cycle(m)?;
    graph::register_graph(m)?;
    clauses::register_clauses(m)?;
    minhash::register_minhash(m)?;
    wal::register_wal(m)?;
    state::register_state(m)?;
    codec::register_codec(m)?;
    volatile::register_volatile(m)?;
    triggers::register_triggers(m)?;
    jsonenc::register_jsonenc(m)?;
    quiet::register_quiet(m)?;
    walappend::register_walappend(m)?;
    syncer::register_syncer(m)?;
    Ok(())
}
