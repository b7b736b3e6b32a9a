//! MinHash and LSH: shingles, signatures, Jaccard and `LshIndex`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyBytes;

use crate::minhash::{Signature, NUM_PERM};

use super::Shared;

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

pub(super) fn register_minhash(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("MINHASH_NUM_PERM", NUM_PERM)?;
    m.add("LSH_BANDS", crate::minhash::BANDS)?;
    m.add("LSH_ROWS", crate::minhash::ROWS)?;
    m.add_function(wrap_pyfunction!(minhash_shingles, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_signature, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_signatures, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_jaccard, m)?)?;
    m.add_class::<PyLshIndex>()
}
