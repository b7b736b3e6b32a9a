//! MinHash signatures (128 permutations) over word shingles, and an LSH index (20 bands x 5 rows)
//! for near-duplicate lookup of tool queries (`<tool>:<query>`, spec README §5.9).
//!
//! Shingling: the text is lower-cased (full Unicode lower case) and split into tokens at
//! whitespace and ASCII punctuation other than `_`; the shingles are the set of tokens plus
//! the set of adjacent token bigrams (`"a b"`). So `grep:Find TODO items` gives `grep`, `find`,
//! `todo`, `items`, `grep find`, `find todo`, `todo items`.
//!
//! Hashing: each shingle is hashed to 32 bits (`hash64`), then permutation `i` is the strongly
//! universal multiply-add-shift hash `h_i(x) = (a_i * x + b_i) >> 32` with random 64-bit
//! `a_i` (odd) and `b_i` from a fixed seed, so signatures are stable across runs and machines.
//! The signature keeps the minimum of each `h_i` over the shingles; the fraction of equal
//! positions of two signatures estimates the Jaccard similarity of their shingle sets with
//! standard error `sqrt(J (1 - J) / 128)`. A text without shingles has the all-`u32::MAX`
//! signature.

use crate::hash::{fmix64, hash64, FxHashMap};

/// Number of permutations (signature length).
pub const NUM_PERM: usize = 128;
/// LSH bands and rows per band (bands x rows <= `NUM_PERM`).
pub const BANDS: usize = 20;
pub const ROWS: usize = 5;

const SHINGLE_SEED: u64 = 0x6372_735f_6d69_6e68; // "crs_minh"

/// A MinHash signature.
pub type Signature = [u32; NUM_PERM];

/// The permutation parameters `(a_i, b_i)`, with `a_i` split into 32-bit halves so the
/// kernel needs only 32x32->64 and 32-bit multiplies (which vectorise).
pub struct Permutations {
    a_lo: [u32; NUM_PERM],
    a_hi: [u32; NUM_PERM],
    b: [u64; NUM_PERM],
}

impl Permutations {
    pub fn new(seed: u64) -> Self {
        let mut state = seed;
        let mut next = || {
            // splitmix64
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            fmix64(state)
        };
        let mut a_lo = [0u32; NUM_PERM];
        let mut a_hi = [0u32; NUM_PERM];
        let mut b = [0u64; NUM_PERM];
        for i in 0..NUM_PERM {
            let a = next() | 1;
            a_lo[i] = a as u32;
            a_hi[i] = (a >> 32) as u32;
            b[i] = next();
        }
        Self { a_lo, a_hi, b }
    }

    /// The MinHash signature of a set of 32-bit shingle hashes.
    pub fn signature(&self, shingles: &[u32]) -> Signature {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked just above).
                return unsafe { self.signature_avx2(shingles) };
            }
        }
        self.signature_portable(shingles)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn signature_avx2(&self, shingles: &[u32]) -> Signature {
        self.signature_portable(shingles)
    }

    /// `h_i(x) = ((a_i * x + b_i) mod 2**64) >> 32`, computed as
    /// `((a_lo * x + b) >> 32) + a_hi * x (mod 2**32)`.
    // Inlined into the AVX2 wrapper so it is compiled (and vectorised) with AVX2 there.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn signature_portable(&self, shingles: &[u32]) -> Signature {
        let mut sig = [u32::MAX; NUM_PERM];
        for &x in shingles {
            let params = self.a_lo.iter().zip(&self.a_hi).zip(&self.b);
            for (s, ((&lo, &hi), &b)) in sig.iter_mut().zip(params) {
                let t = (u64::from(lo) * u64::from(x)).wrapping_add(b);
                let h = ((t >> 32) as u32).wrapping_add(hi.wrapping_mul(x));
                *s = (*s).min(h);
            }
        }
        sig
    }
}

impl Default for Permutations {
    fn default() -> Self {
        Self::new(0x0005_eed0_fc25)
    }
}

fn is_separator(c: char) -> bool {
    c.is_whitespace() || (c.is_ascii_punctuation() && c != '_')
}

/// The shingles of `text` (documented above), without duplicates, in first-seen order.
pub fn shingles(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(is_separator)
        .filter(|t| !t.is_empty())
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for t in &tokens {
        push((*t).to_string());
    }
    for w in tokens.windows(2) {
        push(format!("{} {}", w[0], w[1]));
    }
    out
}

/// 32-bit hashes of the shingles of `text` (duplicates possible; MinHash ignores them).
pub fn shingle_hashes(text: &str, out: &mut Vec<u32>) {
    out.clear();
    let lower = text.to_lowercase();
    let mut prev: Option<&str> = None;
    let mut buf: Vec<u8> = Vec::new();
    for t in lower.split(is_separator).filter(|t| !t.is_empty()) {
        out.push(hash64(t.as_bytes(), SHINGLE_SEED) as u32);
        if let Some(p) = prev {
            buf.clear();
            buf.extend_from_slice(p.as_bytes());
            buf.push(b' ');
            buf.extend_from_slice(t.as_bytes());
            out.push(hash64(&buf, SHINGLE_SEED) as u32);
        }
        prev = Some(t);
    }
}

/// Signatures of many texts, concatenated.
pub fn signatures<S: AsRef<str>>(perms: &Permutations, texts: &[S]) -> Vec<Signature> {
    let mut hashes = Vec::new();
    texts
        .iter()
        .map(|t| {
            shingle_hashes(t.as_ref(), &mut hashes);
            perms.signature(&hashes)
        })
        .collect()
}

/// Estimated Jaccard similarity: the fraction of equal positions.
pub fn jaccard(a: &Signature, b: &Signature) -> f64 {
    let eq = a.iter().zip(b.iter()).filter(|(x, y)| x == y).count();
    eq as f64 / NUM_PERM as f64
}

fn band_keys(sig: &Signature) -> [u64; BANDS] {
    let mut keys = [0u64; BANDS];
    for (b, key) in keys.iter_mut().enumerate() {
        let mut h = b as u64;
        for &v in &sig[b * ROWS..(b + 1) * ROWS] {
            h = fmix64(h ^ u64::from(v)).wrapping_add(0x9e37_79b9_7f4a_7c15);
        }
        *key = h;
    }
    keys
}

/// Locality-sensitive hashing index: two signatures become candidates when all 5 rows of
/// at least one of the 20 bands agree (probability `1 - (1 - J^5)^20`: 0.5 at J ~ 0.55).
#[derive(Debug, Default, Clone)]
pub struct LshIndex {
    buckets: Vec<FxHashMap<u64, Vec<u64>>>,
    keys: FxHashMap<u64, [u64; BANDS]>,
}

impl LshIndex {
    pub fn new() -> Self {
        Self {
            buckets: (0..BANDS).map(|_| FxHashMap::default()).collect(),
            keys: FxHashMap::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn contains(&self, id: u64) -> bool {
        self.keys.contains_key(&id)
    }

    /// Indexes `id` under `sig`, replacing an earlier signature of the same id.
    pub fn insert(&mut self, id: u64, sig: &Signature) {
        self.remove(id);
        let keys = band_keys(sig);
        for (b, &k) in keys.iter().enumerate() {
            self.buckets[b].entry(k).or_default().push(id);
        }
        self.keys.insert(id, keys);
    }

    /// Removes `id`; returns whether it was indexed.
    pub fn remove(&mut self, id: u64) -> bool {
        let Some(keys) = self.keys.remove(&id) else {
            return false;
        };
        for (b, k) in keys.iter().enumerate() {
            if let Some(list) = self.buckets[b].get_mut(k) {
                if let Some(i) = list.iter().position(|&x| x == id) {
                    list.swap_remove(i);
                }
                if list.is_empty() {
                    self.buckets[b].remove(k);
                }
            }
        }
        true
    }

    /// Ids sharing at least one band with `sig`, ascending.
    pub fn query(&self, sig: &Signature) -> Vec<u64> {
        let mut out = Vec::new();
        for (b, k) in band_keys(sig).iter().enumerate() {
            if let Some(list) = self.buckets[b].get(k) {
                out.extend_from_slice(list);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    pub fn clear(&mut self) {
        *self = Self::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_kernel_equals_the_64_bit_formula() {
        let p = Permutations::default();
        let xs = [0u32, 1, 7, 0xdead_beef, u32::MAX];
        let sig = p.signature(&xs);
        for (i, &got) in sig.iter().enumerate() {
            let a = (u64::from(p.a_hi[i]) << 32) | u64::from(p.a_lo[i]);
            let want = xs
                .iter()
                .map(|&x| (a.wrapping_mul(u64::from(x)).wrapping_add(p.b[i]) >> 32) as u32)
                .min()
                .unwrap();
            assert_eq!(got, want);
        }
    }

    fn sig(text: &str) -> Signature {
        signatures(&Permutations::default(), &[text])[0]
    }

    #[test]
    fn shingles_are_words_and_bigrams() {
        assert_eq!(
            shingles("grep:Find TODO items"),
            vec![
                "grep",
                "find",
                "todo",
                "items",
                "grep find",
                "find todo",
                "todo items"
            ]
        );
        assert_eq!(shingles("a a a"), vec!["a", "a a"]);
        assert!(shingles(" ,.; ").is_empty());
        assert_eq!(
            shingles("read_file:src/x.rs"),
            vec![
                "read_file",
                "src",
                "x",
                "rs",
                "read_file src",
                "src x",
                "x rs"
            ]
        );
    }

    #[test]
    fn identical_texts_have_equal_signatures() {
        assert!(jaccard(&sig("grep:foo bar"), &sig("GREP: foo  bar")) > 0.999);
        assert!(
            jaccard(
                &sig("grep:foo bar baz"),
                &sig("write:completely other words")
            ) < 0.2
        );
        assert_eq!(sig(""), [u32::MAX; NUM_PERM]);
    }

    #[test]
    fn estimate_tracks_jaccard() {
        // 40 shared words out of 60 distinct -> J of shingles is about 0.5.
        let a: Vec<String> = (0..50).map(|i| format!("w{i}")).collect();
        let b: Vec<String> = (10..60).map(|i| format!("w{i}")).collect();
        let sa: std::collections::HashSet<String> = shingles(&a.join(" ")).into_iter().collect();
        let sb: std::collections::HashSet<String> = shingles(&b.join(" ")).into_iter().collect();
        let exact = sa.intersection(&sb).count() as f64 / sa.union(&sb).count() as f64;
        let est = jaccard(&sig(&a.join(" ")), &sig(&b.join(" ")));
        assert!((est - exact).abs() < 0.2, "est {est} exact {exact}");
    }

    #[test]
    fn lsh_finds_near_duplicates_and_removes() {
        let mut idx = LshIndex::new();
        idx.insert(1, &sig("search_code:find the config loader in the repo"));
        idx.insert(2, &sig("write_file:something entirely different here"));
        let q = sig("search_code:find the config loader in the repo please");
        assert_eq!(idx.query(&q), vec![1]);
        assert!(idx.remove(1));
        assert!(!idx.remove(1));
        assert!(idx.query(&q).is_empty());
        idx.insert(2, &q);
        assert_eq!(idx.query(&q), vec![2]);
        assert_eq!(idx.len(), 1);
    }
}
