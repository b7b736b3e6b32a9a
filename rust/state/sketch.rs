//! Streaming statistics with bounded memory: a Count-Min sketch for frequencies and a
//! HyperLogLog for the number of distinct items (spec README §5 item 10).
//!
//! Count-Min never under-counts: every counter a key maps to is at least its true count
//! (additions saturate at `u64::MAX` instead of wrapping). Hashing is deterministic
//! (FNV-1a mixed by a SplitMix64 finaliser), so a state rebuilt from a journal gives the
//! same estimates.

/// Count-Min width (counters per row).
pub const CM_WIDTH: usize = 1024;
/// Count-Min depth (rows, one hash each).
pub const CM_DEPTH: usize = 5;
/// HyperLogLog precision: 2^14 registers (standard error ~0.8%).
pub const HLL_PRECISION: u32 = 14;
const HLL_REGISTERS: usize = 1 << HLL_PRECISION;

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Count-Min sketch plus HyperLogLog registers; cloned only when a shared copy is written.
#[derive(Clone)]
pub struct Sketch {
    counts: Vec<u64>,
    registers: Vec<u8>,
}

impl Default for Sketch {
    fn default() -> Self {
        Self::new()
    }
}

impl Sketch {
    pub fn new() -> Self {
        Self {
            counts: vec![0; CM_WIDTH * CM_DEPTH],
            registers: vec![0; HLL_REGISTERS],
        }
    }

    fn slots(item: &str) -> [usize; CM_DEPTH] {
        let h = fnv1a(item.as_bytes());
        let h1 = mix(h);
        let h2 = mix(h ^ 0x9e37_79b9_7f4a_7c15) | 1;
        let mut out = [0usize; CM_DEPTH];
        for (i, slot) in out.iter_mut().enumerate() {
            let hi = h1.wrapping_add((i as u64).wrapping_mul(h2));
            *slot = i * CM_WIDTH + (hi % CM_WIDTH as u64) as usize;
        }
        out
    }

    /// Adds `n` occurrences of `item` (saturating) without touching the cardinality.
    pub fn add_count(&mut self, item: &str, n: u64) {
        if n == 0 {
            return;
        }
        for s in Self::slots(item) {
            self.counts[s] = self.counts[s].saturating_add(n);
        }
    }

    /// Upper-bound estimate of the count of `item` (never below the true count).
    pub fn estimate(&self, item: &str) -> u64 {
        Self::slots(item)
            .iter()
            .map(|&s| self.counts[s])
            .min()
            .unwrap_or(0)
    }

    /// Records `item` as seen for the distinct-count estimate.
    pub fn observe(&mut self, item: &str) {
        let h = mix(fnv1a(item.as_bytes()));
        let idx = (h >> (64 - HLL_PRECISION)) as usize;
        let rest = h << HLL_PRECISION;
        let rank = (rest.leading_zeros() + 1).min(64 - HLL_PRECISION + 1) as u8;
        if rank > self.registers[idx] {
            self.registers[idx] = rank;
        }
    }

    /// HyperLogLog estimate of the number of distinct observed items.
    pub fn cardinality(&self) -> u64 {
        let m = HLL_REGISTERS as f64;
        let mut sum = 0.0;
        let mut zeros = 0usize;
        for &r in &self.registers {
            sum += 1.0 / f64::from(1u32 << r.min(31));
            if r == 0 {
                zeros += 1;
            }
        }
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let raw = alpha * m * m / sum;
        let est = if raw <= 2.5 * m && zeros > 0 {
            m * (m / zeros as f64).ln() // linear counting for small cardinalities
        } else {
            raw
        };
        est.round() as u64
    }

    /// The sketch as bytes (little-endian counters, then registers), for backups.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.size_bytes());
        for c in &self.counts {
            out.extend_from_slice(&c.to_le_bytes());
        }
        out.extend_from_slice(&self.registers);
        out
    }

    /// Inverse of `to_bytes`; `None` if the length is wrong.
    pub fn from_bytes(data: &[u8]) -> Option<Self> {
        let n = CM_WIDTH * CM_DEPTH * 8;
        if data.len() != n + HLL_REGISTERS {
            return None;
        }
        let counts = data[..n]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        Some(Self {
            counts,
            registers: data[n..].to_vec(),
        })
    }

    /// Memory held by the sketch, in bytes (constant).
    pub fn size_bytes(&self) -> usize {
        self.counts.len() * 8 + self.registers.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_min_never_under_counts() {
        let mut s = Sketch::new();
        for i in 0..5000u64 {
            s.add_count(&format!("item{i}"), i % 7 + 1);
        }
        for i in 0..5000u64 {
            assert!(s.estimate(&format!("item{i}")) > i % 7);
        }
    }

    #[test]
    fn count_min_saturates() {
        let mut s = Sketch::new();
        s.add_count("a", u64::MAX);
        s.add_count("a", 5);
        assert_eq!(s.estimate("a"), u64::MAX);
    }

    #[test]
    fn bytes_round_trip() {
        let mut s = Sketch::new();
        s.add_count("a", 7);
        s.observe("a");
        let back = Sketch::from_bytes(&s.to_bytes()).unwrap();
        assert_eq!(back.estimate("a"), 7);
        assert_eq!(back.cardinality(), 1);
        assert!(Sketch::from_bytes(&[1, 2, 3]).is_none());
    }

    #[test]
    fn hll_is_close() {
        let mut s = Sketch::new();
        assert_eq!(s.cardinality(), 0);
        for i in 0..10_000 {
            s.observe(&format!("k{i}"));
            s.observe(&format!("k{i}"));
        }
        let c = s.cardinality() as f64;
        assert!((c - 10_000.0).abs() / 10_000.0 < 0.05, "{c}");
        let mut small = Sketch::new();
        small.observe("x");
        small.observe("y");
        assert_eq!(small.cardinality(), 2);
    }
}
