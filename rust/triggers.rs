//! Whether a text holds any of a fixed set of words: one pass over the text (Aho-Corasick
//! over bytes), for the secret sanitizer's gate (`crs._reasoning._sanitizer._triggered`):
//! most text holds no trigger and skips every pattern pass, so this check runs on every
//! sanitized string.
//!
//! Two sets: words matched as they are, and words matched against the text with its ASCII
//! letters lower-cased (the caller hands only ASCII text; Python's `str.lower()` maps some
//! other characters onto ASCII letters, so other text keeps the Python check).

/// A byte automaton whose states know whether a word of the set ends there.
struct Automaton {
    /// `next[state * 256 + byte]`: the state after reading `byte` (failure links folded in).
    next: Vec<u32>,
    accept: Vec<bool>,
}

impl Automaton {
    fn new<'a>(words: impl IntoIterator<Item = &'a [u8]>) -> Self {
        // The trie.
        let mut goto: Vec<[u32; 256]> = vec![[u32::MAX; 256]];
        let mut accept = vec![false];
        for w in words {
            if w.is_empty() {
                accept[0] = true;
                continue;
            }
            let mut s = 0usize;
            for &c in w {
                let t = goto[s][c as usize];
                s = if t == u32::MAX {
                    goto.push([u32::MAX; 256]);
                    accept.push(false);
                    let n = goto.len() - 1;
                    goto[s][c as usize] = n as u32;
                    n
                } else {
                    t as usize
                };
            }
            accept[s] = true;
        }
        // Breadth-first: failure links, folded into a complete transition table.
        let n = goto.len();
        let mut next = vec![0u32; n * 256];
        let mut fail = vec![0usize; n];
        let mut queue = std::collections::VecDeque::new();
        for c in 0..256 {
            let t = goto[0][c];
            if t == u32::MAX {
                next[c] = 0;
            } else {
                next[c] = t;
                fail[t as usize] = 0;
                queue.push_back(t as usize);
            }
        }
        while let Some(s) = queue.pop_front() {
            accept[s] = accept[s] || accept[fail[s]];
            for c in 0..256 {
                let t = goto[s][c];
                if t == u32::MAX {
                    next[s * 256 + c] = next[fail[s] * 256 + c];
                } else {
                    fail[t as usize] = next[fail[s] * 256 + c] as usize;
                    next[s * 256 + c] = t;
                    queue.push_back(t as usize);
                }
            }
        }
        Self { next, accept }
    }

    fn found(&self, bytes: impl Iterator<Item = u8>) -> bool {
        if self.accept[0] {
            return true;
        }
        let mut s = 0usize;
        for c in bytes {
            s = self.next[s * 256 + c as usize] as usize;
            if self.accept[s] {
                return true;
            }
        }
        false
    }
}

/// Two word sets: as written, and ASCII-case-insensitive (written in lower case).
pub struct Triggers {
    exact: Automaton,
    lower: Automaton,
}

impl Triggers {
    pub fn new(exact: &[&str], lower: &[&str]) -> Self {
        Self {
            exact: Automaton::new(exact.iter().map(|w| w.as_bytes())),
            lower: Automaton::new(lower.iter().map(|w| w.as_bytes())),
        }
    }

    /// Whether `text` holds a word of the exact set, or, with its ASCII letters lower-cased,
    /// a word of the lower set.
    pub fn found(&self, text: &str) -> bool {
        let b = text.as_bytes();
        self.exact.found(b.iter().copied())
            || self.lower.found(b.iter().map(u8::to_ascii_lowercase))
    }
}

#[cfg(test)]
mod tests {
    use super::Triggers;

    #[test]
    fn finds_words_anywhere() {
        let t = Triggers::new(&["AKIA", "sk-", "://"], &["token", "pass"]);
        assert!(t.found("key AKIAXYZ"));
        assert!(t.found("https://x"));
        assert!(t.found("My ToKeN here"));
        assert!(t.found("xxsk-1"));
        assert!(!t.found("akia SK- tok en"));
        assert!(!t.found(""));
        let overlap = Triggers::new(&["abcd", "bc"], &[]);
        assert!(overlap.found("xabcx")); // "bc" inside a failed "abcd"
    }
}
