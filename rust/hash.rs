//! Small, fast, non-cryptographic hashing shared by the algorithm kernels.
//!
//! `FxBuildHasher` is the multiply-add hash of rustc (`rustc-hash` 2): a few cycles per word,
//! good enough for hash maps keyed by integers and short strings that an adversary does not
//! choose. Like rustc-hash 2 it rotates the result, because hashbrown indexes buckets by the
//! low bits, which a multiply alone leaves poorly mixed (strings differing only in a high byte
//! of one word would all land in one bucket). `hash64` is a seeded 64-bit string hash with a strong finaliser, used where the
//! output must look random (MinHash shingles, LSH band keys).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0xf135_7aea_2e62_a9c5;

/// rustc's Fx hasher: `hash = (hash + word) * SEED` per word, rotated by 26 at the end.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = self.hash.wrapping_add(word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buf));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash.rotate_left(26)
    }
}

pub type FxBuildHasher = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = HashMap<K, V, FxBuildHasher>;
pub type FxHashSet<K> = HashSet<K, FxBuildHasher>;

/// The murmur3 64-bit finaliser: a bijection that spreads every input bit over the output.
#[inline]
pub fn fmix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// Seeded 64-bit hash of a byte string (word-at-a-time multiply-xor, then `fmix64`).
pub fn hash64(bytes: &[u8], seed: u64) -> u64 {
    let mut h = seed ^ (bytes.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h ^ fmix64(w))
            .rotate_left(27)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut buf = [0u8; 8];
        buf[..rest.len()].copy_from_slice(rest);
        h = (h ^ fmix64(u64::from_le_bytes(buf)))
            .rotate_left(27)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fmix64(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash64_is_deterministic_and_seeded() {
        assert_eq!(hash64(b"abc", 1), hash64(b"abc", 1));
        assert_ne!(hash64(b"abc", 1), hash64(b"abc", 2));
        assert_ne!(hash64(b"abc", 1), hash64(b"abd", 1));
        assert_ne!(
            hash64(b"", 1),
            hash64(b"\0", 1),
            "length is part of the hash"
        );
    }

    #[test]
    fn fx_map_works() {
        let mut m: FxHashMap<u32, u32> = FxHashMap::default();
        m.insert(1, 2);
        assert_eq!(m.get(&1), Some(&2));
    }
}
