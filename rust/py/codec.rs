//! The journal payload codec: decoding runs of binary ProofDelta payloads.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// Decode the binary ProofDelta payloads of a run (`None` for other payloads) into
/// `(source, timestamp, rows)`; raises ValueError naming the index of the first damaged one.
/// The payloads are checked with the GIL released; the Python objects are then made
/// straight from the payload bytes (no intermediate Rust strings).
#[pyfunction]
#[allow(clippy::needless_pass_by_value)] // PyO3 extracts a list argument into an owned Vec
fn codec_decode_proofs(
    py: Python<'_>,
    payloads: Vec<pyo3::pybacked::PyBackedBytes>,
) -> PyResult<Bound<'_, PyList>> {
    let mask = proof_mask(py, &payloads)?;
    let out = PyList::empty(py);
    for (data, is_proof) in payloads.iter().zip(mask) {
        if !is_proof {
            out.append(py.None())?;
            continue;
        }
        let rows = PyList::empty(py);
        let mut failed: Option<PyErr> = None;
        let (source, timestamp) = crate::codec::walk_proof(data, |id, r| {
            if let Err(e) = rows.append((id, r.0, r.1, r.2, r.3, r.4)) {
                failed.get_or_insert(e);
            }
        })
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
        if let Some(e) = failed {
            return Err(e);
        }
        out.append((source, timestamp, rows))?;
    }
    Ok(out)
}

/// For each payload of a run: is it a binary ProofDelta payload (checked by decoding it,
/// without making Python objects)? ValueError naming the index of the first damaged one.
#[pyfunction]
#[allow(clippy::needless_pass_by_value)] // PyO3 extracts a list argument into an owned Vec
fn codec_proof_mask(
    py: Python<'_>,
    payloads: Vec<pyo3::pybacked::PyBackedBytes>,
) -> PyResult<Vec<bool>> {
    proof_mask(py, &payloads)
}

fn proof_mask(py: Python<'_>, payloads: &[pyo3::pybacked::PyBackedBytes]) -> PyResult<Vec<bool>> {
    py.detach(|| {
        payloads
            .iter()
            .enumerate()
            .map(|(i, data)| {
                if !crate::codec::is_proof(data) {
                    return Ok(false);
                }
                crate::codec::check_proof(data)
                    .map(|()| true)
                    .map_err(|e| format!("payloads[{i}]: {e}"))
            })
            .collect::<Result<Vec<bool>, String>>()
    })
    .map_err(PyValueError::new_err)
}

pub(super) fn register_codec(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(codec_decode_proofs, m)?)?;
    m.add_function(wrap_pyfunction!(codec_proof_mask, m)?)?;
    Ok(())
}
