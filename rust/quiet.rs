//! The sanitizer's "nothing to redact" test and the guard's result preview, for ASCII text
//! (the fast path of `crs._reasoning._sanitizer.SecretSanitizer.sanitize` and of the
//! guard's `_previews`; the Python code is the reference and decides everything else).

use crate::triggers::Triggers;

/// Python's `str.split()` separators among ASCII characters.
fn is_py_space(b: u8) -> bool {
    matches!(b, 9..=13 | 28..=32)
}

/// Whether ASCII `text` holds a run of at least `n` characters of `[A-Za-z0-9+/_-]` (the
/// high-entropy pass's candidates are such runs).
pub fn has_token_run(text: &str, n: usize) -> bool {
    let mut run = 0usize;
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'_' | b'-') {
            run += 1;
            if run >= n {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// True when no built-in pass of the default sanitizer can change ASCII `text`: it is
/// short with none of `=:-.@/`, or it holds no trigger word (`gate`), fewer than two dots
/// (the discord pass) and no run of 20 token characters (the high-entropy pass).
pub fn quiet(gate: &Triggers, text: &str) -> bool {
    if !text.is_ascii() {
        return false;
    }
    let b = text.as_bytes();
    if b.len() < 13 && !b.iter().any(|c| b"=:-.@/".contains(c)) {
        return true;
    }
    !gate.found(text)
        && b.iter()
            .position(|&c| c == b'.')
            .is_none_or(|i| !b[i + 1..].contains(&b'.'))
        && !has_token_run(text, 20)
}

/// `" ".join(text.split())` of ASCII text.
pub fn squash(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split(|c: char| c.is_ascii() && is_py_space(c as u8)) {
        if word.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// `text` cut to `limit` characters as the guard's `_short` does (the last one `…`).
pub fn cut(mut text: String, limit: usize) -> String {
    if text.len() > limit && limit > 0 {
        text.truncate(limit - 1); // ASCII: bytes are characters
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{cut, has_token_run, quiet, squash};
    use crate::triggers::Triggers;

    #[test]
    fn squashes_and_cuts_as_python_does() {
        assert_eq!(squash("  a \t\n b\x1c\x1fc  "), "a b c");
        assert_eq!(squash(""), "");
        assert_eq!(cut("abcdef".to_string(), 4), "abc…");
        assert_eq!(cut("abc".to_string(), 4), "abc");
    }

    #[test]
    fn quiet_text() {
        let gate = Triggers::new(&["sk-", "://"], &["token"]);
        assert!(quiet(&gate, "Grep"));
        assert!(quiet(&gate, "contents of file 12"));
        assert!(!quiet(&gate, "my Token is x"));
        assert!(!quiet(&gate, "a.b.c and more text"));
        assert!(!quiet(&gate, "Zt8qL2vX9mKp4RwQ7nYb and more"));
        assert!(!quiet(&gate, "é"));
        assert!(has_token_run("aaaaaaaaaa/aaaaaaaaa", 20));
        assert!(!has_token_run("aaaaaaaaaa aaaaaaaaa", 20));
    }
}
