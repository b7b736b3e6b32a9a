//! `json_compact`: the journal's op records as compact JSON in one pass (see
//! `crate::jsonenc`). None where Python's `json` must decide, so its output and its errors
//! stay the reference.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};

use crate::jsonenc::push_str;

/// Nesting deeper than this is the Python encoder's (it raises on cycles and on depth).
const MAX_DEPTH: u32 = 64;

/// Appends `v`; false for a value only Python's `json` may encode (a float, a subclass, a
/// lone surrogate, an int beyond 64 bits, a non-str key, deep nesting).
pub(super) fn push_value(out: &mut Vec<u8>, v: &Bound<'_, PyAny>, depth: u32) -> PyResult<bool> {
    if v.is_exact_instance_of::<PyString>() {
        let Ok(s) = v.cast::<PyString>()?.to_str() else {
            return Ok(false); // a lone surrogate
        };
        push_str(out, s);
    } else if v.is_none() {
        out.extend_from_slice(b"null");
    } else if v.is_exact_instance_of::<PyBool>() {
        out.extend_from_slice(if v.is_truthy()? { b"true" } else { b"false" });
    } else if v.is_exact_instance_of::<PyInt>() {
        let Ok(i) = v.extract::<i64>() else {
            return Ok(false);
        };
        out.extend_from_slice(i.to_string().as_bytes());
    } else if depth >= MAX_DEPTH {
        return Ok(false);
    } else if let Ok(d) = v.cast_exact::<PyDict>() {
        out.push(b'{');
        for (i, (k, item)) in d.iter().enumerate() {
            if !k.is_exact_instance_of::<PyString>() {
                return Ok(false);
            }
            let Ok(key) = k.cast::<PyString>()?.to_str() else {
                return Ok(false);
            };
            if i > 0 {
                out.push(b',');
            }
            push_str(out, key);
            out.push(b':');
            if !push_value(out, &item, depth + 1)? {
                return Ok(false);
            }
        }
        out.push(b'}');
    } else if let Ok(l) = v.cast_exact::<PyList>() {
        return push_array(out, l.iter(), depth);
    } else if let Ok(t) = v.cast_exact::<PyTuple>() {
        return push_array(out, t.iter(), depth);
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// Appends the items as a JSON array (a list or a tuple); false as `push_value`.
fn push_array<'py>(
    out: &mut Vec<u8>,
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    depth: u32,
) -> PyResult<bool> {
    out.push(b'[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        if !push_value(out, &item, depth + 1)? {
            return Ok(false);
        }
    }
    out.push(b']');
    Ok(true)
}

/// `prefix + json.dumps(obj, separators=(",", ":"), ensure_ascii=False,
/// allow_nan=False).encode()` for JSON made of exact `dict` (str keys), `list`, `tuple`,
/// `str`, 64-bit `int`, `bool` and None, at most 64 levels deep; None for anything else.
#[pyfunction]
fn json_compact<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    prefix: &[u8],
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let mut out = Vec::with_capacity(prefix.len() + 256);
    out.extend_from_slice(prefix);
    if !push_value(&mut out, obj, 0)? {
        return Ok(None);
    }
    Ok(Some(PyBytes::new(py, &out)))
}

pub(super) fn register_jsonenc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(json_compact, m)?)
}
