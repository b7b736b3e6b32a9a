//! `Triggers`: the sanitizer's one-pass word gate (see `crate::triggers`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Whether an ASCII text holds any word of `exact`, or of `lower` once its letters are
/// lower-cased; built once, safe to share between threads.
#[pyclass(module = "crs._core", frozen)]
struct Triggers(crate::triggers::Triggers);

#[pymethods]
impl Triggers {
    #[new]
    // PyO3 extracts arguments as owned values, so borrowing them is not an option.
    #[allow(clippy::needless_pass_by_value)]
    fn new(exact: Vec<String>, lower: Vec<String>) -> PyResult<Self> {
        if let Some(w) = lower
            .iter()
            .find(|w| w.bytes().any(|c| c.is_ascii_uppercase()))
        {
            return Err(PyValueError::new_err(format!(
                "lower: words must be written in lower case, got {w:?}"
            )));
        }
        let exact: Vec<&str> = exact.iter().map(String::as_str).collect();
        let lower: Vec<&str> = lower.iter().map(String::as_str).collect();
        Ok(Self(crate::triggers::Triggers::new(&exact, &lower)))
    }

    /// True when `text` (ASCII) holds a word of either set.
    fn found(&self, py: Python<'_>, text: &str) -> PyResult<bool> {
        if !text.is_ascii() {
            return Err(PyValueError::new_err("text: must be ASCII"));
        }
        if text.len() > 4096 {
            return Ok(py.detach(|| self.0.found(text)));
        }
        Ok(self.0.found(text))
    }
}

pub(super) fn register_triggers(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Triggers>()
}
