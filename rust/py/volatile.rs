//! `mask_volatile`: the ASCII scanner of a tool result's volatile parts (see
//! `crate::volatile`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// `text` with its clock times, timestamps, durations and memory addresses replaced by
/// `#`, or None when it has none. ASCII text only (the guard keeps its regex for the rest).
#[pyfunction]
fn mask_volatile(text: &str) -> PyResult<Option<String>> {
    if !text.is_ascii() {
        return Err(PyValueError::new_err(
            "text: must be ASCII (use the regex for the rest)",
        ));
    }
    Ok(crate::volatile::mask_volatile(text))
}

pub(super) fn register_volatile(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mask_volatile, m)?)
}
