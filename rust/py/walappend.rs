//! `wal_append_shared`: a shared journal's append of one record in one call (the writer
//! lock's flock, the check that no other writer changed anything since this one last held
//! it, the write, the unlock). The Python reference is `LocalJournal`'s `_hold`, `_append_locked` and
//! `_unhold` (`crs._journal._local._append_shared_py` mirrors this function step by step).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::jsonenc::push_value;
use crate::jsonenc::push_str;

/// The last OS error's errno (0 if none).
fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// `call()` until it does not fail with EINTR (as Python's `os` functions retry).
fn retry(mut call: impl FnMut() -> isize) -> isize {
    loop {
        let n = call();
        if n >= 0 || errno() != libc::EINTR {
            return n;
        }
    }
}

/// `posix_fallocate(fd, at, len)`, retried on EINTR; a failure (a full disk, a file system
/// without it) is ignored: the write then grows the file.
#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
fn allocate(fd: i32, at: libc::off_t, len: u64) {
    if let Ok(len) = libc::off_t::try_from(len) {
        // SAFETY: plain syscall on a descriptor; it returns an errno, never UB.
        while unsafe { libc::posix_fallocate(fd, at, len) } == libc::EINTR {}
    }
}

/// Without `posix_fallocate` (e.g. macOS) nothing is allocated ahead: the segment grows.
#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
fn allocate(_fd: i32, _at: libc::off_t, _len: u64) {}

/// Under the flock: `head` still the lock file's first bytes, nothing after `pos` in the
/// segment (`zero_tail`: nothing but zero bytes in the record header's 24 bytes there, the
/// end of a preallocated segment's data), then, if `grow_to` is past `pos`, the space up to
/// `grow_to` allocated (`posix_fallocate`; a failure is ignored: the write then grows the
/// file), then `frame` written at `pos` (cut back to `pos` on a failure).
fn append_locked(
    lock_fd: i32,
    fd: i32,
    head: &[u8],
    pos: u64,
    frame: &[u8],
    zero_tail: bool,
    grow_to: u64,
) -> (u8, i64) {
    let Ok(at) = libc::off_t::try_from(pos) else {
        return (2, 0);
    };
    let mut buf = vec![0u8; head.len()];
    // SAFETY: `buf` is valid for `buf.len()` bytes; a bad descriptor is an error, not UB.
    let n = retry(|| unsafe { libc::pread(lock_fd, buf.as_mut_ptr().cast(), buf.len(), 0) });
    if n < 0 {
        return (5, i64::from(errno()));
    }
    if n.unsigned_abs() != head.len() || buf != head {
        return (2, 0); // another writer held it since, or changed the directory
    }
    let mut next = [0u8; crate::wal::RECORD_HEADER];
    let want = if zero_tail { next.len() } else { 1 };
    // SAFETY: as above, `want` <= `next.len()` bytes.
    let n = retry(|| unsafe { libc::pread(fd, next.as_mut_ptr().cast(), want, at) });
    if n < 0 {
        return (5, i64::from(errno()));
    }
    let read = &next[..n.unsigned_abs()];
    let free = read.is_empty() || (zero_tail && read.iter().all(|&b| b == 0));
    if !free {
        return (2, 0); // another writer appended
    }
    if grow_to > pos {
        allocate(fd, at, grow_to - pos);
    }
    let mut done = 0usize;
    while done < frame.len() {
        let Ok(off) = libc::off_t::try_from(pos + done as u64) else {
            return (2, 0);
        };
        let rest = &frame[done..];
        // SAFETY: `rest` is valid for `rest.len()` bytes.
        let n = retry(|| unsafe { libc::pwrite(fd, rest.as_ptr().cast(), rest.len(), off) });
        if n <= 0 {
            let e = if n < 0 { errno() } else { libc::ENOSPC };
            // SAFETY: plain syscall on a descriptor.
            let cut = unsafe { libc::ftruncate(fd, at) };
            return (if cut == 0 { 3 } else { 4 }, i64::from(e));
        }
        done += n.unsigned_abs();
    }
    (0, i64::try_from(frame.len()).unwrap_or(i64::MAX))
}

/// `frame` appended at `pos` under the writer lock (a non-blocking flock, released in
/// every case) by `append_locked`, without the GIL: `wal_append_shared`'s results.
#[allow(clippy::too_many_arguments)]
fn append_unit(
    py: Python<'_>,
    lock_fd: i32,
    fd: i32,
    head: &[u8],
    pos: u64,
    frame: &[u8],
    zero_tail: bool,
    grow_to: u64,
) -> (u8, i64) {
    py.detach(|| {
        // SAFETY: plain syscall on a descriptor.
        let got = retry(|| unsafe { libc::flock(lock_fd, libc::LOCK_EX | libc::LOCK_NB) } as isize);
        if got != 0 {
            let e = errno();
            return if e == libc::EWOULDBLOCK {
                (1, 0)
            } else {
                (5, i64::from(e))
            };
        }
        let out = append_locked(lock_fd, fd, head, pos, frame, zero_tail, grow_to);
        // SAFETY: as above; unlocking a held flock does not fail on a valid descriptor.
        unsafe { libc::flock(lock_fd, libc::LOCK_UN) };
        out
    })
}

/// Append one record (`seq`, `payload`) to a shared journal's active segment at `pos`:
/// `(0, bytes written)`; `(1, 0)` the writer lock is busy; `(2, 0)` another writer changed
/// something since (`head`, `LOCK`'s first bytes as this writer left them, differs, or a
/// byte follows `pos`; `zero_tail`: a byte other than zero in the 24 bytes at `pos`) or the
/// record needs more than `room` bytes (a roll): nothing written (`grow_to` past `pos`:
/// `posix_fallocate` up to it, before the write, failure ignored);
/// `(3, errno)` the write failed and was cut back; `(4, errno)` the write failed and could
/// not be cut back; `(5, errno)` another OS error. The lock is released in every case.
#[pyfunction]
#[pyo3(signature = (lock_fd, fd, head, pos, seq, payload, room, zero_tail=false, grow_to=0))]
#[allow(clippy::too_many_arguments)]
fn wal_append_shared(
    py: Python<'_>,
    lock_fd: i32,
    fd: i32,
    head: &[u8],
    pos: u64,
    seq: u64,
    payload: &[u8],
    room: u64,
    zero_tail: bool,
    grow_to: u64,
) -> PyResult<(u8, i64)> {
    let frame = crate::wal::encode_unit(seq, &[payload])
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    if frame.len() as u64 > room {
        return Ok((2, 0));
    }
    Ok(append_unit(
        py, lock_fd, fd, head, pos, &frame, zero_tail, grow_to,
    ))
}

/// The frame of one op record `{"op": kind, "payload": payload, "bump_generation": bump}`
/// (`seq`, after `prefix`), byte for byte as `json_compact(doc, prefix)` encodes it; or
/// `wal_append_op`'s status when nothing is to be written: `(7, 0)` not plain JSON data,
/// `(8, len)` longer than `max_bytes`, `(2, 0)` longer than `room`.
fn op_frame(
    seq: u64,
    prefix: &[u8],
    kind: &str,
    payload: &Bound<'_, PyAny>,
    bump: bool,
    max_bytes: u64,
    room: u64,
) -> PyResult<Result<Vec<u8>, (u8, i64)>> {
    let mut data = Vec::with_capacity(prefix.len() + 320);
    data.extend_from_slice(prefix);
    data.extend_from_slice(b"{\"op\":");
    push_str(&mut data, kind);
    data.extend_from_slice(b",\"payload\":");
    if !push_value(&mut data, payload, 1)? {
        return Ok(Err((7, 0)));
    }
    data.extend_from_slice(if bump {
        b",\"bump_generation\":true}".as_slice()
    } else {
        b",\"bump_generation\":false}".as_slice()
    });
    if data.len() as u64 > max_bytes {
        return Ok(Err((8, i64::try_from(data.len()).unwrap_or(i64::MAX))));
    }
    let frame =
        crate::wal::encode_unit(seq, &[&data]).map_err(|e| PyValueError::new_err(e.to_string()))?;
    if frame.len() as u64 > room {
        return Ok(Err((2, 0)));
    }
    Ok(Ok(frame))
}

/// `wal_append_shared` of one op record `{"op": kind, "payload": payload,
/// "bump_generation": bump}`, encoded in the same call, byte for byte as
/// `json_compact(doc, prefix)` encodes it (the hot path of a durable guard: one call per
/// finished tool call). `wal_append_shared`'s results, and: `(7, 0)` the payload is not
/// plain JSON data (`json_compact` would give None: the caller encodes it); `(8, len)` its
/// encoding, `len` bytes, is longer than `max_bytes`. Nothing is written in cases 1, 2, 7
/// and 8.
#[pyfunction]
#[pyo3(signature = (
    lock_fd, fd, head, pos, seq, prefix, kind, payload, bump, max_bytes, room,
    zero_tail=false, grow_to=0
))]
#[allow(clippy::too_many_arguments)]
fn wal_append_op(
    py: Python<'_>,
    lock_fd: i32,
    fd: i32,
    head: &[u8],
    pos: u64,
    seq: u64,
    prefix: &[u8],
    kind: &str,
    payload: &Bound<'_, PyAny>,
    bump: bool,
    max_bytes: u64,
    room: u64,
    zero_tail: bool,
    grow_to: u64,
) -> PyResult<(u8, i64)> {
    Ok(
        match op_frame(seq, prefix, kind, payload, bump, max_bytes, room)? {
            Ok(frame) => append_unit(py, lock_fd, fd, head, pos, &frame, zero_tail, grow_to),
            Err(status) => status,
        },
    )
}

/// `wal_append_op`, then, once the record is written, its `fdatasync` handed to the worker
/// thread (`crate::syncer::start`) before this call returns: `(status, value, ticket)`,
/// `ticket` the sync's (> 0; the caller waits for it with `sync_wait` before anything is
/// acknowledged), or 0 when nothing was written or the worker could not take it (the caller
/// syncs inline). The sync starts as soon as the write is done, not after the caller's
/// bookkeeping (the durable guard's record: the hot path).
#[pyfunction]
#[pyo3(signature = (
    lock_fd, fd, head, pos, seq, prefix, kind, payload, bump, max_bytes, room,
    zero_tail=false, grow_to=0
))]
#[allow(clippy::too_many_arguments)]
fn wal_append_op_ahead(
    py: Python<'_>,
    lock_fd: i32,
    fd: i32,
    head: &[u8],
    pos: u64,
    seq: u64,
    prefix: &[u8],
    kind: &str,
    payload: &Bound<'_, PyAny>,
    bump: bool,
    max_bytes: u64,
    room: u64,
    zero_tail: bool,
    grow_to: u64,
) -> PyResult<(u8, i64, u64)> {
    Ok(
        match op_frame(seq, prefix, kind, payload, bump, max_bytes, room)? {
            Ok(frame) => {
                let (status, value) =
                    append_unit(py, lock_fd, fd, head, pos, &frame, zero_tail, grow_to);
                let ticket = if status == 0 {
                    crate::syncer::start(fd)
                } else {
                    0
                };
                (status, value, ticket)
            }
            Err((status, value)) => (status, value, 0),
        },
    )
}

pub(super) fn register_walappend(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(wal_append_shared, m)?)?;
    m.add_function(wrap_pyfunction!(wal_append_op, m)?)?;
    m.add_function(wrap_pyfunction!(wal_append_op_ahead, m)?)
}
