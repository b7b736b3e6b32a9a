//! `mask_volatile`: the ASCII scanner of a tool result's volatile parts (see
//! `crate::volatile`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

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

/// The stamp fields of a structured result, looked for in its JSON text
/// (`crate::volatile::StampKeys`); built once from the guard's words and units.
#[pyclass(module = "crs._core", frozen)]
struct StampKeys(crate::volatile::StampKeys);

#[pymethods]
impl StampKeys {
    #[new]
    // PyO3 extracts arguments as owned values, so borrowing them is not an option.
    #[allow(clippy::needless_pass_by_value)]
    fn new(words: Vec<String>, units: Vec<String>) -> PyResult<Self> {
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let units: Vec<&str> = units.iter().map(String::as_str).collect();
        crate::volatile::StampKeys::new(&words, &units)
            .map(Self)
            .map_err(|why| PyValueError::new_err(format!("words, units: {why}")))
    }

    /// Whether some `"<key>":` of `text` may name a stamp field (True for a text with a
    /// lone surrogate: the caller's slow path decides).
    fn found(&self, text: &Bound<'_, PyString>) -> bool {
        text.to_str().map_or(true, |t| self.0.found(t))
    }
}

pub(super) fn register_volatile(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mask_volatile, m)?)?;
    m.add_class::<StampKeys>()
}
