//! The guard's call identity and result digest (see `crate::canon`): the fast paths of
//! `crs.guard._canon`. Each returns None where the Python reference must decide (input it
//! does not take: non-ASCII text, floats, nested values, subclasses, bad input), so every
//! error is raised, with its message, by the Python code.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFrozenSet, PyInt, PyList, PyString, PyTuple};

use crate::canon::{normpath, repr_ascii_into, shell_canon as canon_shell, strip_ascii, Blake2b};

/// `MAX_VALUE_CHARS` of `crs.guard._canon`: longer text is the Python code's to refuse.
const MAX_VALUE_CHARS: usize = 64 * 1024 * 1024;

/// `shlex.join(shlex.split(text))`, or None where shlex raises `ValueError` (an unclosed
/// quote or a trailing backslash).
#[pyfunction]
fn shell_canon(text: &str) -> Option<String> {
    canon_shell(text).ok()
}

/// `hashlib.blake2b(data, digest_size=size).hexdigest()` (the GIL released for long data,
/// as hashlib does).
#[pyfunction]
fn blake2b_hex(py: Python<'_>, data: &[u8], size: usize) -> PyResult<String> {
    if !(1..=64).contains(&size) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "size: must be between 1 and 64",
        ));
    }
    let digest = |data: &[u8]| {
        let mut h = Blake2b::new(size);
        h.update(data);
        h.finish_hex()
    };
    if data.len() >= 64 * 1024 {
        Ok(py.detach(|| digest(data)))
    } else {
        Ok(digest(data))
    }
}

/// Whether `_canon.path_norm` of an ASCII path is `posixpath.normpath` (not the path as
/// it is).
fn path_needs_norm(p: &str) -> bool {
    !p.is_empty()
        && !p.contains("://")
        && (p.ends_with('/')
            || p.ends_with("/.")
            || p.contains("./")
            || p.contains("//")
            || p == ".")
}

/// `field_key(name)` of `crs.guard._policy` for an ASCII name (lower case, `_` and `-`
/// left out), or None when that is `name` itself.
fn field_key_ascii(name: &str) -> Option<String> {
    if name
        .bytes()
        .all(|b| !b.is_ascii_uppercase() && b != b'_' && b != b'-')
    {
        return None;
    }
    Some(
        name.bytes()
            .filter(|&b| b != b'_' && b != b'-')
            .map(|b| b.to_ascii_lowercase() as char)
            .collect(),
    )
}

/// What `identify_flat` adds to `canon_flat`: the commentary names matched by `field_key`
/// (`ToolPolicy.ignore_fields` spelt another way) and the names whose str value may make a
/// call wait (`Guard._waits`).
struct Extra<'a, 'py> {
    keys: &'a Bound<'py, PyFrozenSet>,
    wait_keys: &'a Bound<'py, PyFrozenSet>,
}

/// What `canon_flat` does not take (the Python code decides).
struct Declined;

/// The canonical form of the ASCII str value `val` of argument `k`: `Ok(None)` when it is
/// `val` itself, `Ok(Some(text))` when it differs, `Err(Declined)` where `canon_flat`
/// declines (a shell command shlex does not split). The first shell command is put into `cmd`.
fn canon_str(
    k: &Bound<'_, PyAny>,
    val: &str,
    commands: &Bound<'_, PyFrozenSet>,
    path_keys: &Bound<'_, PyFrozenSet>,
    cmd: &mut String,
) -> PyResult<Result<Option<String>, Declined>> {
    if commands.contains(k)? {
        let Ok(c) = canon_shell(val) else {
            return Ok(Err(Declined));
        };
        if cmd.is_empty() {
            cmd.clone_from(&c);
        }
        return Ok(Ok(Some(c)));
    }
    let s = strip_ascii(val);
    Ok(Ok(if path_keys.contains(k)? && path_needs_norm(s) {
        let n = normpath(s);
        (n != val).then_some(n)
    } else {
        (s.len() != val.len()).then(|| s.to_string())
    }))
}

/// `(signature, canonical dict, first shell command or "", whether the call may wait)`.
type Identity<'py> = (String, Bound<'py, PyDict>, String, bool);

/// The one pass of `canon_flat` (and, with `extra`, of `identify_flat`): `(signature,
/// canonical dict, first shell command or "", whether the call may wait)`, or None.
fn flat_identity<'py>(
    py: Python<'py>,
    tool: &str,
    args: &Bound<'py, PyAny>,
    drop: &Bound<'py, PyFrozenSet>,
    commands: &Bound<'py, PyFrozenSet>,
    path_keys: &Bound<'py, PyFrozenSet>,
    extra: Option<&Extra<'_, 'py>>,
) -> PyResult<Option<Identity<'py>>> {
    let Ok(args) = args.cast_exact::<PyDict>() else {
        return Ok(None);
    };
    if args.len() > 4096 {
        return Ok(None);
    }
    let out = PyDict::new(py);
    // (key, start and end of its value's repr in `texts`)
    let mut items: Vec<(Bound<'py, PyAny>, usize, usize)> = Vec::with_capacity(args.len());
    let mut texts = String::new();
    let mut cmd = String::new();
    let mut size = 0usize;
    let mut waits = false;
    for (k, v) in args.iter() {
        if !k.is_exact_instance_of::<PyString>() {
            return Ok(None);
        }
        if drop.contains(&k)? {
            continue;
        }
        let Ok(key) = k.cast::<PyString>()?.to_str() else {
            return Ok(None);
        };
        if !key.is_ascii() {
            return Ok(None);
        }
        if let Some(x) = extra {
            // a commentary field spelt another way (`Description`, `Reason`): left out
            let ignored = match field_key_ascii(key) {
                None => x.keys.contains(&k)?,
                Some(fk) => x.keys.contains(fk)?,
            };
            if ignored {
                continue;
            }
        }
        let start = texts.len();
        if v.is_exact_instance_of::<PyString>() {
            let Ok(val) = v.cast::<PyString>()?.to_str() else {
                return Ok(None);
            };
            if !val.is_ascii() || val.len() > MAX_VALUE_CHARS {
                return Ok(None);
            }
            if let Some(x) = extra {
                waits = waits || x.wait_keys.contains(&k)?;
            }
            // the canonical value when it differs from `val` (else `v` itself is kept)
            let Ok(changed) = canon_str(&k, val, commands, path_keys, &mut cmd)? else {
                return Ok(None);
            };
            repr_ascii_into(changed.as_deref().unwrap_or(val), &mut texts);
            match changed {
                Some(c) => out.set_item(&k, c)?,
                None => out.set_item(&k, &v)?,
            }
        } else if v.is_none() {
            texts.push_str("None");
            out.set_item(&k, &v)?;
        } else if v.is_exact_instance_of::<PyBool>() {
            texts.push_str(if v.is_truthy()? { "True" } else { "False" });
            out.set_item(&k, &v)?;
        } else if v.is_exact_instance_of::<PyInt>() {
            // a 64-bit int; longer ones are the Python code's (it bounds their digits)
            let Ok(i) = v.extract::<i64>() else {
                return Ok(None);
            };
            // (a positive number may be a time to wait: `yield_time_ms`)
            waits = waits || i > 0;
            texts.push_str(&i.to_string());
            out.set_item(&k, &v)?;
        } else {
            return Ok(None);
        }
        size += texts.len() - start + key.len() + 6;
        items.push((k, start, texts.len()));
    }
    if size > MAX_VALUE_CHARS {
        return Ok(None);
    }
    // (every key is an ASCII str: checked above)
    let mut keyed: Vec<(&str, usize, usize)> = Vec::with_capacity(items.len());
    for (k, a, b) in &items {
        keyed.push((k.cast::<PyString>()?.to_str()?, *a, *b));
    }
    keyed.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut h = Blake2b::new(16);
    h.update(tool.as_bytes());
    h.update(b"\x00r[");
    let mut key = String::new();
    for (i, (k, a, b)) in keyed.iter().enumerate() {
        key.clear();
        if i > 0 {
            h.update(b", ");
        }
        h.update(b"(");
        repr_ascii_into(k, &mut key);
        h.update(key.as_bytes());
        h.update(b", ");
        h.update(&texts.as_bytes()[*a..*b]);
        h.update(b")");
    }
    h.update(b"]");
    Ok(Some((h.finish_hex(), out, cmd, waits)))
}

/// `canonical_args(args, drop, commands)` and `signature(tool, canon, flat=True)` in one
/// pass, for a plain dict whose keys are ASCII `str` and whose values are ASCII `str`,
/// `int`, `bool` or None: `(signature, canonical dict, first shell command or "")`; None
/// for anything else (the Python code then does it, and raises on bad input).
#[pyfunction]
fn canon_flat<'py>(
    py: Python<'py>,
    tool: &str,
    args: &Bound<'py, PyAny>,
    drop: &Bound<'py, PyFrozenSet>,
    commands: &Bound<'py, PyFrozenSet>,
    path_keys: &Bound<'py, PyFrozenSet>,
) -> PyResult<Option<(String, Bound<'py, PyDict>, String)>> {
    Ok(
        flat_identity(py, tool, args, drop, commands, path_keys, None)?
            .map(|(sig, canon, cmd, _)| (sig, canon, cmd)),
    )
}

/// `Guard._identify`'s arguments part in one pass: `canon_flat` of `args` without the
/// names whose `field_key` is in `keys` (commentary fields spelt another way), plus
/// whether the call may wait (False: `Guard._waits` is False; True: it must be asked),
/// i.e. it has a positive int or a str under one of `wait_keys`. None where `canon_flat`
/// declines (the Python code decides).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn identify_flat<'py>(
    py: Python<'py>,
    tool: &str,
    args: &Bound<'py, PyAny>,
    drop: &Bound<'py, PyFrozenSet>,
    keys: &Bound<'py, PyFrozenSet>,
    commands: &Bound<'py, PyFrozenSet>,
    path_keys: &Bound<'py, PyFrozenSet>,
    wait_keys: &Bound<'py, PyFrozenSet>,
) -> PyResult<Option<Identity<'py>>> {
    let extra = Extra { keys, wait_keys };
    flat_identity(py, tool, args, drop, commands, path_keys, Some(&extra))
}

/// `result_digest(text, echo)` of an ASCII `str` result: strip, each echo string replaced
/// by NUL, volatile parts masked (text longer than 8), BLAKE2b-8 of `b"s" + text`. `echo`
/// is a list or tuple of str, or a dict: the call's canonical arguments, whose str values
/// of at least 4 characters are the echo (as `Guard.after_call` picks them; the others
/// cannot occur in ASCII text). None for other text or echo items that are not ASCII
/// `str` (the Python code decides).
#[pyfunction]
fn digest_text(text: &Bound<'_, PyString>, echo: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let Ok(raw) = text.to_str() else {
        return Ok(None);
    };
    if !raw.is_ascii() || raw.len() > MAX_VALUE_CHARS {
        return Ok(None);
    }
    let mut words: Vec<Bound<'_, PyAny>> = Vec::new();
    let from_args = if let Ok(d) = echo.cast::<PyDict>() {
        words.extend(d.iter().map(|(_, v)| v)); // (no list of the values made)
        true
    } else if let Ok(list) = echo.cast::<PyList>() {
        words.extend(list.iter());
        false
    } else if let Ok(t) = echo.cast::<PyTuple>() {
        words.extend(t.iter());
        false
    } else {
        return Ok(None);
    };
    let stripped = strip_ascii(raw);
    let mut owned: Option<String> = None;
    for e in &words {
        if !e.is_exact_instance_of::<PyString>() {
            if from_args {
                continue;
            }
            return Ok(None);
        }
        let e = e.cast::<PyString>()?.to_str();
        let e = match e {
            Ok(e) if e.is_ascii() && !e.is_empty() && (!from_args || e.len() >= 4) => e,
            // an argument that is not ASCII (or shorter) is no echo in ASCII text
            _ if from_args => continue,
            _ => return Ok(None),
        };
        let cur = owned.as_deref().unwrap_or(stripped);
        if cur.contains(e) {
            owned = Some(cur.replace(e, "\x00"));
        }
    }
    let cur = owned.as_deref().unwrap_or(stripped);
    let masked = if cur.len() > 8 {
        crate::volatile::mask_volatile(cur)
    } else {
        None
    };
    let data = masked.as_deref().unwrap_or(cur);
    let mut h = Blake2b::new(8);
    h.update(b"s");
    h.update(data.as_bytes());
    Ok(Some(h.finish_hex()))
}

pub(super) fn register_canon(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(shell_canon, m)?)?;
    m.add_function(wrap_pyfunction!(blake2b_hex, m)?)?;
    m.add_function(wrap_pyfunction!(canon_flat, m)?)?;
    m.add_function(wrap_pyfunction!(identify_flat, m)?)?;
    m.add_function(wrap_pyfunction!(digest_text, m)?)
}
