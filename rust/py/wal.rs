//! Journal framing: the WAL records (`wal_encode`, `wal_scan`, `wal_resync`) and CRC-32C.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Frames `payloads` as one unit (a single record or an atomic batch) from `first_seq`.
#[pyfunction]
#[allow(clippy::needless_pass_by_value)] // PyO3 extracts a list argument into an owned Vec
fn wal_encode<'py>(
    py: Python<'py>,
    first_seq: u64,
    payloads: Vec<Bound<'py, pyo3::types::PyBytes>>,
) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
    let refs: Vec<&[u8]> = payloads
        .iter()
        .map(pyo3::types::PyBytesMethods::as_bytes)
        .collect();
    let out = py
        .detach(|| crate::wal::encode_unit(first_seq, &refs))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(pyo3::types::PyBytes::new(py, &out))
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
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "start={start} is past the end of buf ({} bytes)",
            data.len()
        )));
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

/// CRC-32C (Castagnoli) of `data` (bytes, or any buffer of bytes), as the `crc32c` package
/// computes it. Large inputs are hashed without the GIL.
#[pyfunction]
#[pyo3(name = "crc32c")]
fn crc32c_of(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<u32> {
    const DETACH_AT: usize = 1 << 16;
    if let Ok(b) = data.cast::<PyBytes>() {
        let bytes = b.as_bytes();
        if bytes.len() < DETACH_AT {
            return Ok(::crc32c::crc32c(bytes));
        }
        return Ok(py.detach(|| ::crc32c::crc32c(bytes)));
    }
    let buf = PyBuffer::<u8>::get(data).map_err(|_| {
        PyTypeError::new_err(format!(
            "data: must be bytes or a buffer of bytes, got {}",
            data.get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string())
        ))
    })?;
    let bytes = buf.to_vec(py)?;
    Ok(py.detach(|| ::crc32c::crc32c(&bytes)))
}

/// The position of the one byte of an `n`-byte payload whose change explains a CRC-32C
/// mismatch (`syndrome` = the payload's CRC xor the stored one), or None: no change of one
/// byte does (`crate::wal::one_byte_error`; O(n), without the GIL from 64 KiB).
#[pyfunction]
fn crc32c_one_byte_error(py: Python<'_>, syndrome: u32, n: usize) -> Option<usize> {
    if n < 1 << 16 {
        return crate::wal::one_byte_error(syndrome, n);
    }
    py.detach(|| crate::wal::one_byte_error(syndrome, n))
}

pub(super) fn register_wal(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(crc32c_of, m)?)?;
    m.add_function(wrap_pyfunction!(crc32c_one_byte_error, m)?)?;
    m.add_function(wrap_pyfunction!(wal_encode, m)?)?;
    m.add_function(wrap_pyfunction!(wal_scan, m)?)?;
    m.add_function(wrap_pyfunction!(wal_resync, m)?)?;
    Ok(())
}
