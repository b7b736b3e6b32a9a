//! A background `fdatasync`: the journal's writer hands the sync of a record it has just
//! written to one worker thread and goes on with the work that does not depend on it (the
//! state's update), then waits for it before anything is acknowledged.
//!
//! Why: a thread that sleeps in `fdatasync` leaves its core idle for the whole flush; the
//! core's caches go cold (and, in a virtual machine, the idle vCPU is descheduled), so all
//! the work after the sync runs several times slower than it would hot. Here the worker
//! sleeps instead, and the waiter spins (with the GIL released, yielding the CPU to any
//! thread queued on it) for up to `spin` before it parks: its core stays busy and warm for a flush of the usual length, and a long flush
//! costs no more than `spin` of CPU.
//!
//! On a loaded machine the worker may not get a CPU at once: a waiter whose request the
//! worker has not taken within `pickup` takes it back and syncs inline (what it would have
//! done without the worker), so a busy machine costs at most `pickup` more than the inline
//! sync.
//!
//! One sync in flight at a time (the worker's one request slot): `start` refuses (0) while
//! the worker is busy, and the caller syncs inline then. Tickets grow, and the worker
//! finishes them in order, so "done >= ticket" says a ticket's sync has finished. A fork
//! leaves the child without the worker thread: `start` spawns a new worker in a process
//! other than the one that spawned the last.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, TryLockError};
use std::time::{Duration, Instant};

#[derive(Default)]
struct Slot {
    /// The last ticket handed out.
    next: u64,
    /// The request waiting for the worker: (ticket, fd).
    request: Option<(u64, i32)>,
    /// The worker is running a sync.
    busy: bool,
    /// How many waiters are parked on `finished`.
    parked: u32,
    /// The errno of every finished ticket that failed and was not waited for yet.
    failed: HashMap<u64, i32>,
}

struct Worker {
    pid: u32,
    slot: Mutex<Slot>,
    /// The worker parks here until a request comes.
    wake: Condvar,
    /// Waiters park here after their spin.
    finished: Condvar,
    /// The last finished ticket.
    done: AtomicU64,
    /// The last ticket the worker took.
    taken: AtomicU64,
    /// Counters (`stats`): requests handed to the worker, taken back by their waiter, and
    /// waits that parked after their spin.
    handed: AtomicU64,
    retracted: AtomicU64,
    parks: AtomicU64,
}

impl Worker {
    fn new(pid: u32) -> Self {
        Self {
            pid,
            slot: Mutex::new(Slot::default()),
            wake: Condvar::new(),
            finished: Condvar::new(),
            done: AtomicU64::new(0),
            taken: AtomicU64::new(0),
            handed: AtomicU64::new(0),
            retracted: AtomicU64::new(0),
            parks: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn run(&self) {
        loop {
            let (ticket, fd) = {
                let mut slot = self.lock();
                loop {
                    if let Some(req) = slot.request.take() {
                        slot.busy = true;
                        self.taken.store(req.0, Ordering::Release);
                        break req;
                    }
                    slot = self.wake.wait(slot).unwrap_or_else(PoisonError::into_inner);
                }
            };
            let err = datasync(fd);
            self.finish(ticket, err);
        }
    }

    /// Record `ticket`'s sync as finished with `err` and wake its parked waiter.
    fn finish(&self, ticket: u64, err: i32) {
        let mut slot = self.lock();
        slot.busy = false;
        if err != 0 {
            slot.failed.insert(ticket, err);
        }
        // (stored under the lock: a waiter that checks `done` under it before it parks
        // cannot miss the notification)
        self.done.fetch_max(ticket, Ordering::AcqRel);
        let parked = slot.parked;
        drop(slot);
        if parked > 0 {
            self.finished.notify_all();
        }
    }
}

/// `fdatasync(fd)` retried on EINTR: 0 or the errno.
pub fn datasync(fd: i32) -> i32 {
    loop {
        // SAFETY: a plain syscall on a descriptor; a bad one is an error (EBADF), not UB.
        #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
        let rc = unsafe { libc::fdatasync(fd) };
        // SAFETY: as above.
        #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
        let rc = unsafe { libc::fsync(fd) };
        if rc == 0 {
            return 0;
        }
        let err = std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO);
        if err != libc::EINTR {
            return err;
        }
    }
}

static WORKER: Mutex<Option<Arc<Worker>>> = Mutex::new(None);
/// The process in which a worker could not be spawned (its writers sync inline).
static NO_THREAD: AtomicU32 = AtomicU32::new(0);

/// This process's worker; None when it has none yet: the first call spawns it (again in
/// a forked child) and returns None, so the caller syncs that once inline while the thread
/// starts (a process that writes one record, a hook, never waits for a spawn); None also
/// when no thread can be spawned.
fn worker() -> Option<Arc<Worker>> {
    worker_in(&WORKER)
}

/// `worker` of the slot `global`. Its lock is only tried: another thread holds it for an
/// instant (this one sync runs inline), or, in a child forked while a thread of its parent
/// held it, for ever (that thread did not come along): every sync of the child runs inline,
/// and nothing waits on the lock.
fn worker_in(global: &Mutex<Option<Arc<Worker>>>) -> Option<Arc<Worker>> {
    let pid = std::process::id();
    let mut global = match global.try_lock() {
        Ok(held) => held,
        Err(TryLockError::Poisoned(held)) => held.into_inner(),
        Err(TryLockError::WouldBlock) => return None,
    };
    if let Some(w) = global.as_ref() {
        if w.pid == pid {
            return Some(Arc::clone(w));
        }
    }
    if NO_THREAD.load(Ordering::Relaxed) == pid {
        return None;
    }
    let w = Arc::new(Worker::new(pid));
    let run = Arc::clone(&w);
    let spawned = std::thread::Builder::new()
        .name("crs-sync".into())
        .stack_size(64 * 1024)
        .spawn(move || run.run());
    if spawned.is_err() {
        NO_THREAD.store(pid, Ordering::Relaxed);
        return None;
    }
    *global = Some(w);
    None
}

/// Hand the sync of `fd` to the worker: its ticket (> 0), or 0 when the worker is busy
/// with another sync or cannot run (the caller syncs inline). `fd` must stay open until
/// `wait(ticket, ..)` returns.
pub fn start(fd: i32) -> u64 {
    worker().map_or(0, |w| start_on(&w, fd))
}

fn start_on(w: &Worker, fd: i32) -> u64 {
    let mut slot = w.lock();
    if slot.busy || slot.request.is_some() {
        return 0;
    }
    slot.next += 1;
    let ticket = slot.next;
    slot.request = Some((ticket, fd));
    drop(slot);
    w.handed.fetch_add(1, Ordering::Relaxed);
    w.wake.notify_one();
    ticket
}

/// Wait until the sync of `ticket` has finished: 0, or its errno. Spins (yielding the
/// CPU to a thread queued on it) for up to `spin`, then parks; when the worker has not
/// taken the request within `pickup`, takes it back and syncs inline. A ticket never
/// handed out (0, or one of an earlier process) returns EINVAL at once.
pub fn wait(ticket: u64, spin: Duration, pickup: Duration) -> i32 {
    current().map_or(libc::EINVAL, |w| wait_on(&w, ticket, spin, pickup))
}

fn wait_on(w: &Worker, ticket: u64, spin: Duration, pickup: Duration) -> i32 {
    if ticket == 0 || ticket > w.lock().next {
        return libc::EINVAL;
    }
    let t0 = Instant::now();
    let mut picked = false;
    'spin: loop {
        for _ in 0..64 {
            if w.done.load(Ordering::Acquire) >= ticket {
                break 'spin;
            }
            std::hint::spin_loop();
        }
        let waited = t0.elapsed();
        if !picked {
            picked = w.taken.load(Ordering::Acquire) >= ticket;
            if !picked && waited >= pickup {
                if let Some(err) = retract(w, ticket) {
                    return err;
                }
                picked = true; // (the worker took it meanwhile)
            }
        }
        if waited >= spin {
            break;
        }
        // A thread queued on this CPU (the worker itself, on a loaded machine) runs now.
        // SAFETY: a plain syscall without arguments.
        unsafe { libc::sched_yield() };
    }
    let mut slot = w.lock();
    if w.done.load(Ordering::Acquire) < ticket {
        w.parks.fetch_add(1, Ordering::Relaxed);
        slot.parked += 1;
        while w.done.load(Ordering::Acquire) < ticket {
            slot = w
                .finished
                .wait(slot)
                .unwrap_or_else(PoisonError::into_inner);
        }
        slot.parked -= 1;
    }
    slot.failed.remove(&ticket).unwrap_or(0)
}

/// Take `ticket`'s request back from the worker's slot if the worker has not taken it, and
/// sync it here: its errno, or None when the worker has it (or it finished).
fn retract(w: &Worker, ticket: u64) -> Option<i32> {
    let mut slot = w.lock();
    let fd = match slot.request {
        Some((t, fd)) if t == ticket => fd,
        _ => return None,
    };
    slot.request = None;
    slot.busy = true; // (no other request until this sync is done: tickets finish in order)
    drop(slot);
    w.retracted.fetch_add(1, Ordering::Relaxed);
    let err = datasync(fd);
    w.finish(ticket, 0); // (its errno is this waiter's answer: none to keep for later)
    Some(err)
}

/// (handed to the worker, taken back by their waiter, waits that parked) in this process.
pub fn stats() -> (u64, u64, u64) {
    current().map_or((0, 0, 0), |w| {
        (
            w.handed.load(Ordering::Relaxed),
            w.retracted.load(Ordering::Relaxed),
            w.parks.load(Ordering::Relaxed),
        )
    })
}

/// This process's worker if it has one (no spawn).
fn current() -> Option<Arc<Worker>> {
    let global = WORKER.lock().unwrap_or_else(PoisonError::into_inner);
    global
        .as_ref()
        .filter(|w| w.pid == std::process::id())
        .map(Arc::clone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;

    #[test]
    fn syncs_a_file_and_reports_a_bad_descriptor() {
        let path = std::env::temp_dir().join(format!("crs-syncer-{}", std::process::id()));
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(b"record").unwrap();
        if current().is_none() {
            assert_eq!(start(f.as_raw_fd()), 0); // (the first call spawns the worker)
        }
        let mut ok = 0;
        for _ in 0..20 {
            let t = start(f.as_raw_fd());
            if t != 0 {
                assert_eq!(
                    wait(t, Duration::from_micros(100), Duration::from_micros(50)),
                    0
                );
                ok += 1;
            }
        }
        assert_eq!(ok, 20); // (sequential: the worker is never busy at a start)
        let t = start(-1);
        assert_ne!(t, 0);
        assert_eq!(wait(t, Duration::ZERO, Duration::ZERO), libc::EBADF);
        assert_eq!(wait(t + 1000, Duration::ZERO, Duration::ZERO), libc::EINVAL);
        assert_eq!(wait(0, Duration::ZERO, Duration::ZERO), libc::EINVAL);
        drop(f);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_slot_locked_by_a_thread_that_is_gone_makes_the_sync_inline() {
        // a child forked while a thread of its parent held the worker's slot: that thread
        // never unlocks it (here: it forgets its guard and ends)
        static SLOT: Mutex<Option<Arc<Worker>>> = Mutex::new(None);
        std::thread::spawn(|| std::mem::forget(SLOT.lock().unwrap()))
            .join()
            .unwrap();
        let t0 = Instant::now();
        assert!(worker_in(&SLOT).is_none());
        assert!(worker_in(&SLOT).is_none());
        assert!(t0.elapsed() < Duration::from_secs(1)); // (no wait on the lock)
    }

    #[test]
    fn a_request_no_worker_takes_is_taken_back_and_synced_inline() {
        // a worker whose thread never runs (a loaded machine, at its extreme)
        let w = Worker::new(std::process::id());
        let path = std::env::temp_dir().join(format!("crs-syncer-idle-{}", std::process::id()));
        let f = std::fs::File::create(&path).unwrap();
        let pickup = Duration::from_micros(20);
        let spin = Duration::from_micros(500);
        let t1 = start_on(&w, f.as_raw_fd());
        assert_eq!(t1, 1);
        assert_eq!(start_on(&w, f.as_raw_fd()), 0); // (one request at a time)
        assert_eq!(wait_on(&w, t1, spin, pickup), 0);
        let t2 = start_on(&w, -1);
        assert_eq!(t2, 2);
        assert_eq!(wait_on(&w, t2, spin, pickup), libc::EBADF);
        assert_eq!(wait_on(&w, t2, spin, pickup), 0); // (an errno is given once)
        assert_eq!(w.done.load(Ordering::Acquire), 2);
        assert_eq!(w.retracted.load(Ordering::Relaxed), 2);
        assert_eq!(w.parks.load(Ordering::Relaxed), 0);
        assert!(!w.lock().busy);
        drop(f);
        let _ = std::fs::remove_file(&path);
    }
}
