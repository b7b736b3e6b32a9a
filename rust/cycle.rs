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

use crate::hash::FxHashMap;

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

/// Online detector over integer state ids; `window` bounds how far back a repeat is looked for.
#[derive(Debug, Clone)]
pub struct CycleDetector {
    window: usize,
    /// The last `window` states since the last detection or reset (positions `pos - len .. pos`).
    ring: VecDeque<StateId>,
    /// Absolute position of each state's latest occurrence (may hold stale entries).
    last_seen: FxHashMap<StateId, u64>,
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
        Self {
            window: window.max(1),
            ring: VecDeque::new(),
            last_seen: FxHashMap::default(),
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
        if let Some(&prev) = self.last_seen.get(&state) {
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
                self.last_seen.clear();
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
        if self.last_seen.len() > 2 * self.window + 16 {
            let oldest = self.pos - self.ring.len() as u64;
            self.last_seen.retain(|_, p| *p >= oldest);
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
        self.last_seen.clear();
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
        self.last_seen.clear();
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

/// Online detector over string states: interns each state to an id, then runs
/// [`CycleDetector`]. The interner is rebuilt from the live states when it holds more than
/// `4 * window + 1024` strings, so memory stays bounded however many distinct states pass.
#[derive(Debug, Clone)]
pub struct KeyCycleDetector {
    ids: FxHashMap<Box<str>, StateId>,
    names: Vec<Box<str>>,
    inner: CycleDetector,
}

impl KeyCycleDetector {
    pub fn new(window: usize) -> Self {
        Self {
            ids: FxHashMap::default(),
            names: Vec::new(),
            inner: CycleDetector::new(window),
        }
    }

    fn intern(&mut self, state: &str) -> StateId {
        if let Some(&id) = self.ids.get(state) {
            return id;
        }
        if self.names.len() >= 4 * self.inner.window + 1024 {
            self.compact();
        }
        let id = self.names.len() as StateId;
        self.names.push(state.into());
        self.ids.insert(state.into(), id);
        id
    }

    /// Keeps only the strings still held by the detector, renumbered densely.
    fn compact(&mut self) {
        let mut new_id: FxHashMap<StateId, StateId> = FxHashMap::default();
        let mut names: Vec<Box<str>> = Vec::new();
        for s in self.inner.history() {
            new_id.entry(s).or_insert_with(|| {
                names.push(self.names[s as usize].clone());
                (names.len() - 1) as StateId
            });
        }
        self.inner.remap(|s| new_id[&s]);
        self.ids = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as StateId))
            .collect();
        self.names = names;
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

    pub fn add(&mut self, state: &str) -> Option<KeyCycle> {
        let id = self.intern(state);
        let c = self.inner.add(id)?;
        Some(self.resolve(&c))
    }

    /// Interns every state first (ids only), then detects; returns `(index, cycle)` pairs.
    pub fn add_many<'a>(
        &mut self,
        states: impl IntoIterator<Item = &'a str>,
    ) -> Vec<(usize, KeyCycle)> {
        let mut out = Vec::new();
        for (i, s) in states.into_iter().enumerate() {
            if let Some(c) = self.add(s) {
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
    fn brent_finds_tail_and_period() {
        // 5 -> 1 -> 2 -> 3 -> 1 ...: mu = 1, lambda = 3.
        let seq = [5, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1];
        assert_eq!(brent(&seq), Some((1, 3)));
        assert_eq!(brent(&[7, 7]), Some((0, 1)));
        assert_eq!(brent(&[1, 2, 3]), None);
        assert_eq!(brent(&[]), None);
    }
}
