//! `QuietGate`: the sanitizer's "nothing to redact" test and the guard's result preview
//! for ASCII text (see `crate::quiet`); None or False sends the text to the Python code.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::quiet::{cut, quiet, squash};

/// The default sanitizer's trigger words, for `quiet` and `view`; built once, shared.
#[pyclass(module = "crs._core", frozen)]
struct QuietGate(crate::triggers::Triggers);

#[pymethods]
impl QuietGate {
    #[new]
    // PyO3 extracts arguments as owned values, so borrowing them is not an option.
    #[allow(clippy::needless_pass_by_value)]
    fn new(exact: Vec<String>, lower: Vec<String>) -> PyResult<Self> {
        if lower
            .iter()
            .any(|w| w.bytes().any(|c| c.is_ascii_uppercase()))
        {
            return Err(PyValueError::new_err(
                "lower: words must be written in lower case",
            ));
        }
        let exact: Vec<&str> = exact.iter().map(String::as_str).collect();
        let lower: Vec<&str> = lower.iter().map(String::as_str).collect();
        Ok(Self(crate::triggers::Triggers::new(&exact, &lower)))
    }

    /// True when the default sanitizer cannot change `text` (ASCII text only; False
    /// means "ask the sanitizer").
    fn quiet(&self, text: &Bound<'_, PyString>) -> bool {
        text.to_str().is_ok_and(|t| quiet(&self.0, t))
    }

    /// `" ".join(text.split())` cut to `limit` characters (`…` last), when `text` is
    /// ASCII and its squashed view is `quiet`; else None.
    fn view(&self, text: &Bound<'_, PyString>, limit: usize) -> Option<String> {
        let t = text.to_str().ok()?;
        if !t.is_ascii() {
            return None;
        }
        let view = squash(t);
        quiet(&self.0, &view).then(|| cut(view, limit))
    }
}

pub(super) fn register_quiet(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<QuietGate>()
}
