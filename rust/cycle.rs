//! Online cycle detection over a stream of state ids.
//!
//! Semantics (spec README §5.7): a cycle is reported as soon as the current state equals a
//! state seen since the last detection (or reset) within the window. The reported cycle is
//! the states from that earlier occurrence up to, not including, the current one, so
//! `A,B,C,B` reports `[B, C]` at step 4 and `X,A,A` reports `[A]` at step 3.
//! Each step is O(1) amortised: a hash map from state id to its last position.

use std::collections::HashMap;

/// Interned state identifier (the Python facade maps state keys to ids).
pub type StateId = u32;

/// A detected cycle: the states of the cycle and the step index (1-based) it closed at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    pub states: Vec<StateId>,
    pub closed_at: u64,
}

/// Online detector; `window` bounds how far back a repeat is looked for.
#[derive(Debug, Clone)]
pub struct CycleDetector {
    window: usize,
    /// States since the last detection or reset, in order.
    trail: Vec<StateId>,
    /// Absolute position of each state's latest occurrence in the trail.
    last_seen: HashMap<StateId, usize>,
    /// Absolute position of `trail[0]`.
    base: usize,
    steps: u64,
    cycles_found: u64,
}

impl CycleDetector {
    pub fn new(window: usize) -> Self {
        Self {
            window: window.max(1),
            trail: Vec::new(),
            last_seen: HashMap::new(),
            base: 0,
            steps: 0,
            cycles_found: 0,
        }
    }

    /// Feed one state; returns the cycle if this state closes one.
    pub fn add(&mut self, state: StateId) -> Option<Cycle> {
        self.steps += 1;
        let pos = self.base + self.trail.len();
        if let Some(&prev) = self.last_seen.get(&state) {
            if prev >= self.base && pos - prev <= self.window {
                let start = prev - self.base;
                let states = self.trail[start..].to_vec();
                self.cycles_found += 1;
                // Detection consumes the trail: the next cycle must be seen anew.
                self.base = pos + 1;
                self.trail.clear();
                self.last_seen.clear();
                return Some(Cycle {
                    states,
                    closed_at: self.steps,
                });
            }
        }
        self.trail.push(state);
        self.last_seen.insert(state, pos);
        // Keep memory bounded by the window: drop the oldest half when the trail is 2x window.
        if self.trail.len() > 2 * self.window {
            let drop = self.trail.len() - self.window;
            self.trail.drain(..drop);
            self.base += drop;
            let base = self.base;
            self.last_seen.retain(|_, p| *p >= base);
        }
        None
    }

    pub fn reset(&mut self) {
        self.base += self.trail.len();
        self.trail.clear();
        self.last_seen.clear();
    }

    pub fn steps(&self) -> u64 {
        self.steps
    }

    pub fn cycles_found(&self) -> u64 {
        self.cycles_found
    }
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
    }
}
