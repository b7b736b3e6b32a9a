//! Rust core of crs.
//!
//! Every module except `py` is plain Rust with no knowledge of Python, so `cargo test`
//! runs without an interpreter. `py` (behind the `python` feature) is the only file that
//! uses PyO3; it declares the whole native surface of `crs._core` in one place.

pub mod canon;
pub mod clauses;
pub mod codec;
pub mod cycle;
pub mod graph;
pub mod hash;
pub mod jsonenc;
pub mod minhash;
pub mod quiet;
pub mod state;
pub mod syncer;
pub mod tarjan;
pub mod triggers;
pub mod volatile;
pub mod wal;

#[cfg(feature = "python")]
mod py;
