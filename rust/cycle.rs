//! Online cycle detection over a stream of states, and Brent's recurrence finder.
//!
//! Semantics (spec README §5.7): a cycle is reported as soon as the current state equals a
//! state seen since the last detection (or reset) within the window. The reported cycle is
//! the states from that earlier occurrence up to, not including, the current one, so
//! `A,B,C,B` reports `[B, C]` at step 4 and `X,A,A` reports `[A]` at step 3.
//!
//! Each step is O(1) amortised: a hash map from state id to its last position, plus a ring
//! of the last `window` states since the last detection (to return the cycle). Memory is
//! bounded by the window: stale positions are pruned once the map is twice the window, and
//! [`KeyCycleDetector`] re-interns its strings once the interner outgrows the live states.

use std::collections::VecDeque;

use crate::hash::{hash64, FxHashMap};

/// Interned state identifier.
pub type StateId = u32;

/// A detected cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// The states from the earlier occurrence up to, not including, the repeat.
    pub states: Vec<StateId>,
    /// Step (1-based, counted since the last reset) at which the cycle closed.
    pub closed_at: u64,
    /// States seen since the last detection or reset before the cycle's first state.
    pub tail: u64,
}

/// Latest position of each state: a hash map for arbitrary ids, or a vector indexed by id
/// (position + 1, 0 = never) when ids are dense (interned).
#[derive(Debug, Clone)]
enum LastSeen {
    Sparse(FxHashMap<StateId, u64>),
    Dense(Vec<u64>),
}

impl LastSeen {
    #[inline]
    fn get(&self, state: StateId) -> Option<u64> {
        match self {
            Self::Sparse(m) => m.get(&state).copied(),
            Self::Dense(v) => v.get(state as usize).and_then(|&p| p.checked_sub(1)),
        }
    }

    #[inline]
    fn insert(&mut self, state: StateId, pos: u64) {
        match self {
            Self::Sparse(m) => {
                m.insert(state, pos);
            }
            Self::Dense(v) => {
                let i = state as usize;
                if i >= v.len() {
                    v.resize(i + 1, 0);
                }
                v[i] = pos + 1;
            }
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        match self {
            Self::Sparse(m) => m.len(),
            Self::Dense(v) => v.len(),
        }
    }
}

/// Online detector over integer state ids; `window` bounds how far back a repeat is looked for.
#[derive(Debug, Clone)]
pub struct CycleDetector {
    window: usize,
    /// The last `window` states since the last detection or reset (positions `pos - len .. pos`).
    ring: VecDeque<StateId>,
    /// Absolute position of each state's latest occurrence (may hold stale entries).
    last_seen: LastSeen,
    /// Absolute position of the first state after the last detection or reset.
    base: u64,
    /// Absolute position of the next state.
    pos: u64,
    steps: u64,
    cycles_found: u64,
}

impl CycleDetector {
    /// A detector that looks back at most `window` states (at least 1).
    pub fn new(window: usize) -> Self {
        Self::with_last_seen(window, LastSeen::Sparse(FxHashMap::default()))
    }

    /// A detector for dense ids (`0..n` for a small `n`): a vector instead of a hash map.
    fn dense(window: usize) -> Self {
        Self::with_last_seen(window, LastSeen::Dense(Vec::new()))
    }

    fn with_last_seen(window: usize, last_seen: LastSeen) -> Self {
        Self {
            window: window.max(1),
            ring: VecDeque::new(),
            last_seen,
            base: 0,
            pos: 0,
            steps: 0,
            cycles_found: 0,
        }
    }

    /// Feed one state; returns the cycle if this state closes one.
    pub fn add(&mut self, state: StateId) -> Option<Cycle> {
        self.steps += 1;
        let pos = self.pos;
        self.pos += 1;
        if let Some(prev) = self.last_seen.get(state) {
            // Valid iff since the last detection and within the window, i.e. still in the ring.
            let ring_start = pos - self.ring.len() as u64;
            if prev >= ring_start && prev >= self.base {
                let start = (prev - ring_start) as usize;
                let states: Vec<StateId> = self.ring.range(start..).copied().collect();
                let tail = prev - self.base;
                self.cycles_found += 1;
                // Detection consumes the trail: the next cycle must be seen anew.
                self.base = self.pos;
                self.ring.clear();
                if let LastSeen::Sparse(m) = &mut self.last_seen {
                    m.clear();
                }
                return Some(Cycle {
                    states,
                    closed_at: self.steps,
                    tail,
                });
            }
        }
        self.ring.push_back(state);
        if self.ring.len() > self.window {
            self.ring.pop_front();
        }
        self.last_seen.insert(state, pos);
        if let LastSeen::Sparse(m) = &mut self.last_seen {
            if m.len() > self.window.saturating_mul(2).saturating_add(16) {
                let oldest = self.pos - self.ring.len() as u64;
                m.retain(|_, p| *p >= oldest);
            }
        }
        None
    }

    /// Feed many states; returns `(index into states, cycle)` for every cycle closed.
    pub fn add_many(&mut self, states: &[StateId]) -> Vec<(usize, Cycle)> {
        let mut out = Vec::new();
        for (i, &s) in states.iter().enumerate() {
            if let Some(c) = self.add(s) {
                out.push((i, c));
            }
        }
        out
    }

    /// Forget the states and the step count; `cycles_found` is kept (as in the Go package).
    pub fn reset(&mut self) {
        self.base = self.pos;
        self.ring.clear();
        if let LastSeen::Sparse(m) = &mut self.last_seen {
            m.clear();
        }
        self.steps = 0;
    }

    /// The states currently held (oldest first).
    pub fn history(&self) -> impl Iterator<Item = StateId> + '_ {
        self.ring.iter().copied()
    }

    /// Rewrites every held state id through `f` (used when ids are re-interned).
    fn remap(&mut self, f: impl Fn(StateId) -> StateId) {
        for s in &mut self.ring {
            *s = f(*s);
        }
        match &mut self.last_seen {
            LastSeen::Sparse(m) => m.clear(),
            LastSeen::Dense(v) => v.clear(),
        }
        let start = self.pos - self.ring.len() as u64;
        for (i, &s) in self.ring.iter().enumerate() {
            self.last_seen.insert(s, start + i as u64);
        }
    }

    pub fn steps(&self) -> u64 {
        self.steps
    }

    pub fn cycles_found(&self) -> u64 {
        self.cycles_found
    }

    pub fn history_size(&self) -> usize {
        self.ring.len()
    }

    pub fn window(&self) -> usize {
        self.window
    }
}

/// A detected cycle over string states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyCycle {
    pub states: Vec<String>,
    pub closed_at: u64,
    pub tail: u64,
}

/// Online detector over string states: interns each state to a dense id, then runs
/// [`CycleDetector`]. The interner is rebuilt from the live states when it holds more than
/// `4 * window + 1024` strings, so memory stays bounded however many distinct states pass.
///
/// Strings are looked up by a 64-bit hash the caller may supply ([`Self::add_hashed`], e.g.
/// the hash Python caches in every `str`), then compared byte for byte, so a hash collision
/// costs a slower lookup, never a wrong answer. One detector must always be fed with the same
/// hash function; [`Self::add`] uses [`hash64`].
#[derive(Debug, Clone)]
pub struct KeyCycleDetector {
    /// Hash -> id of the first string interned with that hash.
    by_hash: FxHashMap<u64, StateId>,
    /// Strings whose hash collided with another string's (rare).
    collided: FxHashMap<Box<str>, StateId>,
    names: Vec<Box<str>>,
    hashes: Vec<u64>,
    inner: CycleDetector,
}

const KEY_SEED: u64 = 0x6b65_795f_6379_636c; // "key_cycl"

impl KeyCycleDetector {
    pub fn new(window: usize) -> Self {
        Self {
            by_hash: FxHashMap::default(),
            collided: FxHashMap::default(),
            names: Vec::new(),
            hashes: Vec::new(),
            inner: CycleDetector::dense(window),
        }
    }

    #[inline]
    fn lookup(&self, hash: u64, state: &str) -> Option<StateId> {
        let &id = self.by_hash.get(&hash)?;
        if *self.names[id as usize] == *state {
            return Some(id);
        }
        self.collided.get(state).copied()
    }

    fn over_capacity(&self) -> bool {
        // Also compact before ids (u32) run out, whatever the window.
        let cap = self.inner.window.saturating_mul(4).saturating_add(1024);
        self.names.len() >= cap.min(StateId::MAX as usize)
    }

    #[inline]
    fn intern(&mut self, hash: u64, state: &str) -> StateId {
        if let Some(id) = self.lookup(hash, state) {
            return id;
        }
        if self.over_capacity() {
            self.compact();
        }
        self.insert_name(hash, state)
    }

    /// Interns `state` for a later [`Self::add_interned`]: never compacts, so ids handed out
    /// stay valid until that call.
    #[inline]
    pub fn intern_hashed(&mut self, hash: u64, state: &str) -> StateId {
        self.lookup(hash, state)
            .unwrap_or_else(|| self.insert_name(hash, state))
    }

    /// Feeds states interned by [`Self::intern_hashed`] since the last call that could
    /// compact; returns `(index, cycle)` pairs, then compacts the interner if it is too large.
    pub fn add_interned(&mut self, ids: &[StateId]) -> Vec<(usize, KeyCycle)> {
        let mut out = Vec::new();
        for (i, &id) in ids.iter().enumerate() {
            if let Some(c) = self.inner.add(id) {
                out.push((i, self.resolve(&c)));
            }
        }
        if self.over_capacity() {
            self.compact();
        }
        out
    }

    fn insert_name(&mut self, hash: u64, state: &str) -> StateId {
        let id = self.names.len() as StateId;
        self.names.push(state.into());
        self.hashes.push(hash);
        if let Some(&other) = self.by_hash.get(&hash) {
            debug_assert_ne!(*self.names[other as usize], *state);
            self.collided.insert(state.into(), id);
        } else {
            self.by_hash.insert(hash, id);
        }
        id
    }

    /// Keeps only the strings still held by the detector, renumbered densely.
    fn compact(&mut self) {
        let mut new_id: FxHashMap<StateId, StateId> = FxHashMap::default();
        let mut keep: Vec<StateId> = Vec::new();
        for s in self.inner.history() {
            new_id.entry(s).or_insert_with(|| {
                keep.push(s);
                (keep.len() - 1) as StateId
            });
        }
        self.inner.remap(|s| new_id[&s]);
        let names: Vec<Box<str>> = keep
            .iter()
            .map(|&s| self.names[s as usize].clone())
            .collect();
        let hashes: Vec<u64> = keep.iter().map(|&s| self.hashes[s as usize]).collect();
        self.by_hash.clear();
        self.collided.clear();
        for (i, (n, &h)) in names.iter().zip(&hashes).enumerate() {
            if let std::collections::hash_map::Entry::Vacant(e) = self.by_hash.entry(h) {
                e.insert(i as StateId);
            } else {
                self.collided.insert(n.clone(), i as StateId);
            }
        }
        self.names = names;
        self.hashes = hashes;
    }

    fn resolve(&self, c: &Cycle) -> KeyCycle {
        KeyCycle {
            states: c
                .states
                .iter()
                .map(|&s| self.names[s as usize].to_string())
                .collect(),
            closed_at: c.closed_at,
            tail: c.tail,
        }
    }

    /// Feeds `state` whose hash (under this detector's hash function) is `hash`.
    #[inline]
    pub fn add_hashed(&mut self, hash: u64, state: &str) -> Option<KeyCycle> {
        let id = self.intern(hash, state);
        let c = self.inner.add(id)?;
        Some(self.resolve(&c))
    }

    pub fn add(&mut self, state: &str) -> Option<KeyCycle> {
        self.add_hashed(hash64(state.as_bytes(), KEY_SEED), state)
    }

    /// Feeds many states; returns `(index, cycle)` pairs.
    pub fn add_many<'a>(
        &mut self,
        states: impl IntoIterator<Item = &'a str>,
    ) -> Vec<(usize, KeyCycle)> {
        self.add_many_hashed(
            states
                .into_iter()
                .map(|s| (hash64(s.as_bytes(), KEY_SEED), s)),
        )
    }

    /// Feeds many `(hash, state)` pairs; returns `(index, cycle)` pairs.
    pub fn add_many_hashed<'a>(
        &mut self,
        states: impl IntoIterator<Item = (u64, &'a str)>,
    ) -> Vec<(usize, KeyCycle)> {
        let mut out = Vec::new();
        for (i, (h, s)) in states.into_iter().enumerate() {
            if let Some(c) = self.add_hashed(h, s) {
                out.push((i, c));
            }
        }
        out
    }

    pub fn reset(&mut self) {
        self.inner.reset();
    }

    pub fn detector(&self) -> &CycleDetector {
        &self.inner
    }

    /// Number of interned strings (bounded by `4 * window + 1024`).
    pub fn interned(&self) -> usize {
        self.names.len()
    }
}

/// Brent's cycle finder over the iterates `seq[0], seq[1] = f(seq[0]), ...` of a function.
///
/// Returns `(mu, lambda)`: the tail length (index of the first state on the cycle) and the
/// period, or `None` if the sequence ends before Brent's hare meets the tortoise (always found
/// when `seq.len() > 3 * (mu + lambda + 1)`). Uses O(1) extra space. For a sequence that is not
/// the iteration of a function the result still satisfies `seq[mu] == seq[mu + lambda]`.
pub fn brent(seq: &[StateId]) -> Option<(usize, usize)> {
    let n = seq.len();
    if n < 2 {
        return None;
    }
    let (mut power, mut lam) = (1usize, 1usize);
    let (mut tortoise, mut hare) = (0usize, 1usize);
    while seq[tortoise] != seq[hare] {
        if power == lam {
            tortoise = hare;
            power *= 2;
            lam = 0;
        }
        hare += 1;
        lam += 1;
        if hare >= n {
            return None;
        }
    }
    // seq[tortoise] == seq[tortoise + lam], so the scan stops at or before `tortoise`.
    let mut mu = 0;
    while seq[mu] != seq[mu + lam] {
        mu += 1;
    }
    Some((mu, lam))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abcb_reports_bc() {
        let mut d = CycleDetector::new(100);
        assert_eq!(d.add(0), None);
        assert_eq!(d.add(1), None);
        assert_eq!(d.add(2), None);
        let c = d.add(1).expect("cycle");
        assert_eq!(c.states, vec![1, 2]);
        assert_eq!(c.closed_at, 4);
        assert_eq!(c.tail, 1);
    }

    #[test]
    fn xaa_reports_a() {
        let mut d = CycleDetector::new(100);
        assert_eq!(d.add(9), None);
        assert_eq!(d.add(1), None);
        assert_eq!(d.add(1).expect("cycle").states, vec![1]);
    }

    #[test]
    fn window_bounds_lookback() {
        let mut d = CycleDetector::new(2);
        d.add(1);
        d.add(2);
        d.add(3);
        assert_eq!(d.add(1), None, "repeat is 3 steps back, window is 2");
        assert_eq!(d.add(3).expect("cycle").states, vec![3, 1]);
    }

    #[test]
    fn detection_consumes_the_trail() {
        let mut d = CycleDetector::new(10);
        let found = d.add_many(&[1, 2, 1, 2, 1, 2]);
        let at: Vec<usize> = found.iter().map(|(i, _)| *i).collect();
        assert_eq!(at, vec![2, 5]);
        assert_eq!(found[1].1.states, vec![2, 1]);
        assert_eq!(d.cycles_found(), 2);
    }

    #[test]
    fn reset_keeps_cycle_count() {
        let mut d = CycleDetector::new(10);
        d.add_many(&[1, 1]);
        d.reset();
        assert_eq!(d.steps(), 0);
        assert_eq!(d.history_size(), 0);
        assert_eq!(d.cycles_found(), 1);
        assert_eq!(d.add(1), None, "reset forgets earlier states");
    }

    #[test]
    fn memory_stays_bounded() {
        let mut d = CycleDetector::new(8);
        for s in 0..10_000u32 {
            assert_eq!(d.add(s), None);
        }
        assert!(d.last_seen.len() <= 2 * 8 + 17);
        assert_eq!(d.history_size(), 8);
    }

    #[test]
    fn key_detector_interns_and_compacts() {
        let mut d = KeyCycleDetector::new(4);
        for i in 0..5_000 {
            assert_eq!(d.add(&format!("s{i}")), None);
        }
        assert!(d.interned() <= 4 * 4 + 1024);
        let c = d.add("s4998").expect("cycle");
        assert_eq!(c.states, vec!["s4998".to_string(), "s4999".to_string()]);
        assert_eq!(c.closed_at, 5_001);
    }

    #[test]
    fn key_detector_survives_hash_collisions() {
        let mut d = KeyCycleDetector::new(100);
        // Every state gets the same "hash": lookups fall back to exact comparison.
        let found = d.add_many_hashed([(7, "a"), (7, "b"), (7, "c"), (7, "b")]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, 3);
        assert_eq!(found[0].1.states, vec!["b".to_string(), "c".to_string()]);
        for i in 0..3_000 {
            assert!(d.add_hashed(7, &format!("s{i}")).is_none());
        }
        assert!(
            d.add_hashed(7, "s2999").is_some(),
            "still exact after compaction"
        );
    }

    #[test]
    fn brent_finds_tail_and_period() {
        // 5 -> 1 -> 2 -> 3 -> 1 ...: mu = 1, lambda = 3.
        let seq = [5, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1];
        assert_eq!(brent(&seq), Some((1, 3)));
        assert_eq!(brent(&[7, 7]), Some((0, 1)));
        assert_eq!(brent(&[1, 2, 3]), None);
        assert_eq!(brent(&[]), None);
    }

    #[test]
    fn huge_windows_do_not_overflow() {
        let mut d = CycleDetector::new(usize::MAX);
        assert!(d.add(1).is_none());
        assert_eq!(d.add(1).map(|c| c.states), Some(vec![1]));
        let mut k = KeyCycleDetector::new(usize::MAX);
        assert!(k.add("a").is_none());
        assert!(k.add("a").is_some());
    }
}
