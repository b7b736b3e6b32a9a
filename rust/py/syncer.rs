//! `sync_start` / `sync_wait`: the journal's sync handed to a worker thread while the
//! writer goes on (`crate::syncer`; the Python reference is `crs._journal._local`'s
//! `_sync_start_py` / `_sync_wait_py`, which sync inline).

use std::time::Duration;

use pyo3::prelude::*;

/// Hand `fdatasync(fd)` to the worker thread: a ticket (> 0) for `sync_wait`, or 0 when
/// the worker is busy with another sync or cannot run (the caller syncs inline). `fd` must
/// stay open until `sync_wait(ticket, ..)` returns.
#[pyfunction]
fn sync_start(fd: i32) -> u64 {
    crate::syncer::start(fd)
}

/// Wait, with the GIL released, until the sync of `ticket` has finished: 0, or its errno
/// (EINVAL for a ticket never handed out). Spins for up to `spin_us` microseconds (at most
/// one second) before it parks; syncs inline when the worker has not taken the request
/// within `pickup_us`.
#[pyfunction]
#[pyo3(signature = (ticket, spin_us, pickup_us=50))]
fn sync_wait(py: Python<'_>, ticket: u64, spin_us: u64, pickup_us: u64) -> i32 {
    let spin = Duration::from_micros(spin_us.min(1_000_000));
    let pickup = Duration::from_micros(pickup_us.min(1_000_000));
    py.detach(|| crate::syncer::wait(ticket, spin, pickup))
}

/// This process's counts: (syncs handed to the worker, taken back by their waiter because
/// the worker had not started them within the pickup time, waits that parked after their
/// spin).
#[pyfunction]
fn sync_stats() -> (u64, u64, u64) {
    crate::syncer::stats()
}

pub(super) fn register_syncer(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sync_start, m)?)?;
    m.add_function(wrap_pyfunction!(sync_stats, m)?)?;
    m.add_function(wrap_pyfunction!(sync_wait, m)?)
}
