//! Pure pieces of the guard's call identity (`crs.guard._canon`): BLAKE2b, a POSIX
//! shell-word splitter that agrees with Python's `shlex.split` (and `shlex.join`'s quoting),
//! `posixpath.normpath` and Python's `repr` of an ASCII `str`.
//!
//! Each has a Python reference in `crs.guard._canon` (hashlib, shlex, posixpath, `repr`)
//! and a hypothesis test checking they agree (tests/guard/test_guard_canon_rust.py): the
//! signatures and digests built from them are persisted, so they must be byte-identical.

// ---------------------------------------------------------------- BLAKE2b (RFC 7693)

const IV: [u64; 8] = [
    0x6a09_e667_f3bc_c908,
    0xbb67_ae85_84ca_a73b,
    0x3c6e_f372_fe94_f82b,
    0xa54f_f53a_5f1d_36f1,
    0x510e_527f_ade6_82d1,
    0x9b05_688c_2b3e_6c1f,
    0x1f83_d9ab_fb41_bd6b,
    0x5be0_cd19_137e_2179,
];

const SIGMA: [[usize; 16]; 12] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
];

/// One application of RFC 7693's mixing function G (a macro, so every index is a
/// constant and the 16 words stay in registers).
macro_rules! g {
    ($v:ident, $a:literal, $b:literal, $c:literal, $d:literal, $x:expr, $y:expr) => {
        $v[$a] = $v[$a].wrapping_add($v[$b]).wrapping_add($x);
        $v[$d] = ($v[$d] ^ $v[$a]).rotate_right(32);
        $v[$c] = $v[$c].wrapping_add($v[$d]);
        $v[$b] = ($v[$b] ^ $v[$c]).rotate_right(24);
        $v[$a] = $v[$a].wrapping_add($v[$b]).wrapping_add($y);
        $v[$d] = ($v[$d] ^ $v[$a]).rotate_right(16);
        $v[$c] = $v[$c].wrapping_add($v[$d]);
        $v[$b] = ($v[$b] ^ $v[$c]).rotate_right(63);
    };
}

/// One round: the columns, then the diagonals, with the message words of `SIGMA[$r]`.
macro_rules! round {
    ($v:ident, $m:ident, $r:literal) => {
        let s = &SIGMA[$r];
        g!($v, 0, 4, 8, 12, $m[s[0]], $m[s[1]]);
        g!($v, 1, 5, 9, 13, $m[s[2]], $m[s[3]]);
        g!($v, 2, 6, 10, 14, $m[s[4]], $m[s[5]]);
        g!($v, 3, 7, 11, 15, $m[s[6]], $m[s[7]]);
        g!($v, 0, 5, 10, 15, $m[s[8]], $m[s[9]]);
        g!($v, 1, 6, 11, 12, $m[s[10]], $m[s[11]]);
        g!($v, 2, 7, 8, 13, $m[s[12]], $m[s[13]]);
        g!($v, 3, 4, 9, 14, $m[s[14]], $m[s[15]]);
    };
}

fn compress(h: &mut [u64; 8], block: &[u8; 128], t: u128, last: bool) {
    let mut m = [0u64; 16];
    for (w, b) in m.iter_mut().zip(block.chunks_exact(8)) {
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        *w = u64::from_le_bytes(a);
    }
    let mut v = [0u64; 16];
    v[..8].copy_from_slice(h);
    v[8..].copy_from_slice(&IV);
    v[12] ^= t as u64;
    v[13] ^= (t >> 64) as u64;
    if last {
        v[14] = !v[14];
    }
    round!(v, m, 0);
    round!(v, m, 1);
    round!(v, m, 2);
    round!(v, m, 3);
    round!(v, m, 4);
    round!(v, m, 5);
    round!(v, m, 6);
    round!(v, m, 7);
    round!(v, m, 8);
    round!(v, m, 9);
    round!(v, m, 10);
    round!(v, m, 11);
    for i in 0..8 {
        h[i] ^= v[i] ^ v[i + 8];
    }
}

/// An unkeyed BLAKE2b hasher with a digest of `size` bytes (1..=64), fed in pieces.
pub struct Blake2b {
    h: [u64; 8],
    buf: [u8; 128],
    fill: usize,
    total: u128,
    size: usize,
}

impl Blake2b {
    /// A hasher for a digest of `size` bytes, clamped to 1..=64.
    pub fn new(size: usize) -> Self {
        let size = size.clamp(1, 64);
        let mut h = IV;
        h[0] ^= 0x0101_0000 ^ size as u64;
        Self {
            h,
            buf: [0; 128],
            fill: 0,
            total: 0,
            size,
        }
    }

    /// Feed `data`.
    pub fn update(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            if self.fill == 128 {
                // a full buffer is compressed only once more data follows (the last block
                // is compressed by `finish` with the final flag)
                self.total += 128;
                let block = self.buf;
                compress(&mut self.h, &block, self.total, false);
                self.fill = 0;
            }
            let take = (128 - self.fill).min(data.len());
            self.buf[self.fill..self.fill + take].copy_from_slice(&data[..take]);
            self.fill += take;
            data = &data[take..];
        }
    }

    /// The digest.
    pub fn finish(mut self) -> Vec<u8> {
        self.total += self.fill as u128;
        self.buf[self.fill..].fill(0);
        let block = self.buf;
        compress(&mut self.h, &block, self.total, true);
        let mut out = Vec::with_capacity(64);
        for w in &self.h {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.truncate(self.size);
        out
    }

    /// The digest as lower-case hex (`hashlib`'s `hexdigest()`).
    pub fn finish_hex(self) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let d = self.finish();
        let mut hex = Vec::with_capacity(d.len() * 2);
        for b in d {
            hex.push(HEX[(b >> 4) as usize]);
            hex.push(HEX[(b & 15) as usize]);
        }
        String::from_utf8(hex).unwrap_or_default() // (hex digits: always UTF-8)
    }
}

/// BLAKE2b of `data`, `size` bytes.
pub fn blake2b(data: &[u8], size: usize) -> Vec<u8> {
    let mut h = Blake2b::new(size);
    h.update(data);
    h.finish()
}

// ---------------------------------------------------------------- shlex (POSIX mode)

/// Why a command cannot be split (Python's shlex raises `ValueError`).
#[derive(Debug, PartialEq, Eq)]
pub enum SplitError {
    NoClosingQuotation,
    NoEscapedCharacter,
}

fn is_shlex_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum St {
    Space,
    Word,
    Quote(char),
    Escape,
}

/// `shlex.split(text)`: POSIX mode, whitespace-split, no comments (the state machine of
/// `shlex.shlex.read_token` for those settings, character for character).
pub fn shell_split(text: &str) -> Result<Vec<String>, SplitError> {
    let mut out = Vec::new();
    let mut token = String::new();
    let mut quoted = false;
    let mut state = St::Space;
    let mut escaped = St::Word; // the state an escape returns to
    for c in text.chars() {
        match state {
            St::Space | St::Word => {
                if is_shlex_space(c) {
                    if state == St::Word && (!token.is_empty() || quoted) {
                        out.push(std::mem::take(&mut token));
                        quoted = false;
                    }
                    state = St::Space;
                } else if c == '\\' {
                    escaped = St::Word;
                    state = St::Escape;
                } else if c == '\'' || c == '"' {
                    state = St::Quote(c);
                } else {
                    token.push(c);
                    state = St::Word;
                }
            }
            St::Quote(q) => {
                quoted = true;
                if c == q {
                    state = St::Word;
                } else if c == '\\' && q == '"' {
                    escaped = state;
                    state = St::Escape;
                } else {
                    token.push(c);
                }
            }
            St::Escape => {
                // inside double quotes a backslash escapes only `"` and itself
                if let St::Quote(q) = escaped {
                    if c != q && c != '\\' {
                        token.push('\\');
                    }
                }
                token.push(c);
                state = escaped;
            }
        }
    }
    match state {
        St::Quote(_) => Err(SplitError::NoClosingQuotation),
        St::Escape => Err(SplitError::NoEscapedCharacter),
        St::Space | St::Word => {
            if state == St::Word && (!token.is_empty() || quoted) {
                out.push(token);
            }
            Ok(out)
        }
    }
}

fn shell_safe(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(c, '_' | '@' | '%' | '+' | '=' | ':' | ',' | '.' | '/' | '-')
}

/// `shlex.quote(word)` appended to `out`.
pub fn shell_quote_into(word: &str, out: &mut String) {
    if word.is_empty() {
        out.push_str("''");
    } else if word.chars().all(shell_safe) {
        out.push_str(word);
    } else {
        out.push('\'');
        out.push_str(&word.replace('\'', "'\"'\"'"));
        out.push('\'');
    }
}

/// `shlex.join(shlex.split(text))`.
pub fn shell_canon(text: &str) -> Result<String, SplitError> {
    let words = shell_split(text)?;
    let mut out = String::with_capacity(text.len() + 2);
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        shell_quote_into(w, &mut out);
    }
    Ok(out)
}

// ---------------------------------------------------------------- paths, repr

/// `posixpath.normpath(path)`.
pub fn normpath(path: &str) -> String {
    if path.is_empty() {
        return ".".to_string();
    }
    let initial = if path.starts_with("//") && !path.starts_with("///") {
        2
    } else {
        usize::from(path.starts_with('/'))
    };
    let mut comps: Vec<&str> = Vec::new();
    for comp in path.split('/') {
        if comp.is_empty() || comp == "." {
            continue;
        }
        if comp != ".." || (initial == 0 && comps.is_empty()) || comps.last() == Some(&"..") {
            comps.push(comp);
        } else if !comps.is_empty() {
            comps.pop();
        }
    }
    let mut out = "/".repeat(initial);
    out.push_str(&comps.join("/"));
    if out.is_empty() {
        ".".to_string()
    } else {
        out
    }
}

/// Python's `str.strip()` on ASCII text (whitespace: space, \t \n \v \f \r, \x1c-\x1f).
pub fn strip_ascii(s: &str) -> &str {
    s.trim_matches(|c: char| {
        matches!(
            c,
            ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r' | '\x1c'..='\x1f'
        )
    })
}

/// Python's `repr(s)` of an ASCII `str`, appended to `out`.
pub fn repr_ascii_into(s: &str, out: &mut String) {
    if s.bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'\\' && b != b'\'')
    {
        // nothing to escape (most names and values): quoted as it is
        out.reserve(s.len() + 2);
        out.push('\'');
        out.push_str(s);
        out.push('\'');
        return;
    }
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for b in s.bytes() {
        let c = b as char;
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            _ if b < 0x20 || b == 0x7f => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\x");
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 15) as usize] as char);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(d: &[u8]) -> String {
        use std::fmt::Write;
        d.iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
    }

    #[test]
    fn blake2b_known_answers() {
        // RFC 7693 appendix A, and hashlib.blake2b(b"", digest_size=16)
        assert_eq!(
            hex(&blake2b(b"abc", 64)),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1\
             7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"
        );
        assert_eq!(hex(&blake2b(b"", 16)), "cae66941d9efbd404e4d88758ea67670");
    }

    #[test]
    fn shlex_cases() {
        assert_eq!(shell_canon("a  'b c'").unwrap(), "a 'b c'");
        assert_eq!(shell_canon(r#"x "a\"b\q""#).unwrap(), r#"x 'a"b\q'"#);
        assert_eq!(shell_canon("''").unwrap(), "''");
        assert_eq!(shell_split("'a"), Err(SplitError::NoClosingQuotation));
        assert_eq!(shell_split("a\\"), Err(SplitError::NoEscapedCharacter));
    }

    #[test]
    fn normpath_cases() {
        assert_eq!(normpath("./src/"), "src");
        assert_eq!(normpath("//a/../b"), "//b");
        assert_eq!(normpath("../.."), "../..");
        assert_eq!(normpath("/.."), "/");
    }
}
