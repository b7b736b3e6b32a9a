//! The volatile parts of a tool result (clock times, timestamps, durations, memory
//! addresses, Unix times, generated ids: GUIDs and hex runs), masked before the guard digests it, so a re-run whose output differs only in
//! them is the same result.
//!
//! This is the ASCII half of `crs.guard._canon._VOLATILE` (a Python regex), written as a
//! scanner: the guard calls it for ASCII text and keeps the regex for the rest, and a
//! hypothesis test checks the two agree on every ASCII text. Each match is replaced by `#`;
//! at a position the alternatives are tried in the regex's order (a date-time, a clock time,
//! a duration, a hex address, a Unix time, a hex id) and the first that matches wins; scanning resumes
//! after it.

const UNITS: [&[u8]; 12] = [
    b"ms", b"s", b"sec", b"secs", b"second", b"seconds", b"us", b"ns", b"min", b"mins", b"minute",
    b"minutes",
];

fn is_d(b: &[u8], i: usize) -> bool {
    i < b.len() && b[i].is_ascii_digit()
}

fn is_w(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Python's `\s` on ASCII: space, \t \n \v \f \r and the separators \x1c-\x1f.
fn is_s(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1c..=0x1f)
}

/// `\d\d` at `i`.
fn two(b: &[u8], i: usize) -> bool {
    is_d(b, i) && is_d(b, i + 1)
}

/// End of a run of digits starting at `i`.
fn digits(b: &[u8], mut i: usize) -> usize {
    while is_d(b, i) {
        i += 1;
    }
    i
}

/// `\b` after a `\w` character at `i - 1`.
fn boundary(b: &[u8], i: usize) -> bool {
    i >= b.len() || !is_w(b[i])
}

/// `\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?`
fn date_time(b: &[u8], i: usize) -> Option<usize> {
    let ok = two(b, i)
        && two(b, i + 2)
        && b.get(i + 4) == Some(&b'-')
        && two(b, i + 5)
        && b.get(i + 7) == Some(&b'-')
        && two(b, i + 8)
        && matches!(b.get(i + 10), Some(b'T' | b' '))
        && two(b, i + 11)
        && b.get(i + 13) == Some(&b':')
        && two(b, i + 14);
    if !ok {
        return None;
    }
    let mut j = i + 16;
    if b.get(j) == Some(&b':') && two(b, j + 1) {
        j += 3;
        if b.get(j) == Some(&b'.') && is_d(b, j + 1) {
            j = digits(b, j + 1);
        }
    }
    match b.get(j) {
        Some(b'Z') => j += 1,
        Some(b'+' | b'-') if two(b, j + 1) => {
            if b.get(j + 3) == Some(&b':') && two(b, j + 4) {
                j += 6;
            } else if two(b, j + 3) {
                j += 5;
            }
        }
        _ => {}
    }
    Some(j)
}

/// `(?<!\d)\d{1,2}:\d\d:\d\d(?:\.\d+)?\b`
fn clock(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && b[i - 1].is_ascii_digit() {
        return None;
    }
    let colon = if is_d(b, i + 1) { i + 2 } else { i + 1 };
    let hms = b.get(colon) == Some(&b':')
        && two(b, colon + 1)
        && b.get(colon + 3) == Some(&b':')
        && two(b, colon + 4);
    if !hms {
        return None;
    }
    let end = colon + 6;
    if b.get(end) == Some(&b'.') && is_d(b, end + 1) {
        let frac = digits(b, end + 1);
        if boundary(b, frac) {
            return Some(frac);
        }
    }
    boundary(b, end).then_some(end)
}

/// `(?<![\w.])\d+(?:\.\d+)?\s?(?:ms|s|sec|secs|seconds?|µs|us|ns|mins?|minutes?)\b`
/// (`µs` is not ASCII: the regex handles it). A unit must end at a word boundary, so it is
/// the whole word that follows.
///
/// Then (it has the same look-behind; an address starts with `0`, a Unix time with `1`, so
/// trying it here keeps the regex's order) `epoch`.
fn duration_or_epoch(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && (is_w(b[i - 1]) || b[i - 1] == b'.') {
        return None;
    }
    let run = digits(b, i);
    duration_after(b, run).or_else(|| epoch(b, i, run))
}

fn duration_after(b: &[u8], run: usize) -> Option<usize> {
    let mut p = run;
    if b.get(p) == Some(&b'.') && is_d(b, p + 1) {
        p = digits(b, p + 1);
    }
    if p < b.len() && is_s(b[p]) {
        p += 1;
    }
    let mut r = p;
    while r < b.len() && is_w(b[r]) {
        r += 1;
    }
    UNITS.contains(&&b[p..r]).then_some(r)
}

/// `0x[0-9a-fA-F]{6,}`
fn address(b: &[u8], i: usize) -> Option<usize> {
    if b[i] != b'0' || b.get(i + 1) != Some(&b'x') {
        return None;
    }
    let mut r = i + 2;
    while r < b.len() && b[r].is_ascii_hexdigit() {
        r += 1;
    }
    (r - i - 2 >= 6).then_some(r)
}

/// A Unix time in seconds or milliseconds (2017 to 2033): `(?<![\w.])1[5-9]\d{8}(?:\d{3})?`
/// `(?:\.\d+)?(?![\w.])`, a whole number of 10 or 13 digits, perhaps with a fraction.
/// (`run`: the end of the digits from `i`; the look-behind is `duration_or_epoch`'s.)
fn epoch(b: &[u8], i: usize, run: usize) -> Option<usize> {
    if b[i] != b'1' || !matches!(b.get(i + 1), Some(b'5'..=b'9')) {
        return None;
    }
    if run - i != 10 && run - i != 13 {
        return None;
    }
    let free = |j: usize| j >= b.len() || !(is_w(b[j]) || b[j] == b'.');
    if b.get(run) == Some(&b'.') && is_d(b, run + 1) {
        let frac = digits(b, run + 1);
        if free(frac) {
            return Some(frac);
        }
    }
    free(run).then_some(run)
}

/// A generated id: a whole word of hex digits, groups joined by single dashes (a GUID, a
/// `batch-9f3a...` suffix, a nonce), with at least 8 hex digits, a digit and a letter among
/// them: `(?<![0-9A-Za-z])` + letter and digit lookaheads + `(?:[0-9a-fA-F]-?){7,}[0-9a-fA-F]`
/// `(?![0-9A-Za-z]|-[0-9a-fA-F])`. Words of letters only ("deadbeef", "facade") and numbers
/// (counts, sizes) are not ids.
fn hex_id(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && b[i - 1].is_ascii_alphanumeric() {
        return None;
    }
    let (mut j, mut count, mut digit, mut letter) = (i, 0usize, false, false);
    loop {
        while j < b.len() && b[j].is_ascii_hexdigit() {
            if b[j].is_ascii_digit() {
                digit = true;
            } else {
                letter = true;
            }
            count += 1;
            j += 1;
        }
        if j + 1 < b.len() && b[j] == b'-' && b[j + 1].is_ascii_hexdigit() {
            j += 1;
            continue;
        }
        break;
    }
    if j < b.len() && b[j].is_ascii_alphanumeric() {
        return None;
    }
    (count >= 8 && digit && letter).then_some(j)
}

const DIGIT: u8 = 1;
const HEX_LETTER: u8 = 2;
const ALNUM: u8 = 4;

/// The class bits of each byte (`DIGIT`, `HEX_LETTER`, `ALNUM`).
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_digit() {
            t[c] = DIGIT | ALNUM;
        } else if matches!(b, b'a'..=b'f' | b'A'..=b'F') {
            t[c] = HEX_LETTER | ALNUM;
        } else if b.is_ascii_alphanumeric() {
            t[c] = ALNUM;
        }
        c += 1;
    }
    t
};

/// Whether `b` may hold a hex id: 8 bytes in a row that are hex digits or dashes (a
/// superset of `hex_id`'s matches: no word boundary, digit or letter test). Eight bytes at
/// a time (SWAR, `b` is ASCII): most results have no such run and skip the id checks.
fn may_have_hex_id(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // the high bit of each byte of `x` (all < 0x80) set when it lies in lo..=hi
    let within = |x: u64, lo: u8, hi: u8| {
        let ge_lo = x.wrapping_add(ONES * u64::from(0x80 - lo));
        let gt_hi = x.wrapping_add(ONES * u64::from(0x80 - hi - 1));
        ge_lo & !gt_hi & HIGH
    };
    let mut run = 0u32; // flagged bytes in a row up to the current word
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        let dash = x ^ (ONES * u64::from(b'-'));
        let is_dash = !(((dash & LOW7) + LOW7) | dash | LOW7);
        let m = within(x, b'0', b'9') | within(x | (ONES * 0x20), b'a', b'f') | (is_dash & HIGH);
        if m == HIGH {
            run += 8;
        } else {
            let lead = ((!m & HIGH).trailing_zeros() - 7) / 8; // flagged bytes from byte 0
            if run + lead >= 8 {
                return true;
            }
            run = (!m & HIGH).leading_zeros() / 8; // flagged bytes at the end
        }
        if run >= 8 {
            return true;
        }
    }
    for &c in words.remainder() {
        let hex = c.is_ascii_hexdigit() || c == b'-';
        run = if hex { run + 1 } else { 0 };
        if run >= 8 {
            return true;
        }
    }
    false
}

/// `text` with each volatile part replaced by `#`, or None when it has none. `text` must
/// be ASCII (the caller checks; other text goes through the regex).
pub fn mask_volatile(text: &str) -> Option<String> {
    if may_have_hex_id(text.as_bytes()) {
        scan::<true>(text)
    } else {
        scan::<false>(text)
    }
}

/// The scanner. `HEX`: look for hex ids too; without (a text with no run of 8 hex bytes,
/// `may_have_hex_id`) only digits start a volatile part, and the byte class is a digit
/// test, not a table lookup. (A const parameter: each form is compiled on its own, so the
/// one without ids carries none of their checks.)
fn scan<const HEX: bool>(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut last = 0;
    let mut i = 0;
    // whether the byte before `i` is a letter or digit: a hex id starts only after one that
    // is not (checked here, so the letters inside words cost a table lookup and no call)
    let mut prev_alnum = false;
    while i < b.len() {
        let k = if HEX { CLASS[b[i] as usize] } else { 0 };
        let digit = if HEX {
            k & DIGIT != 0
        } else {
            b[i].is_ascii_digit()
        };
        let end = if digit {
            date_time(b, i)
                .or_else(|| clock(b, i))
                .or_else(|| duration_or_epoch(b, i))
                .or_else(|| address(b, i))
                .or_else(|| {
                    if HEX && !prev_alnum {
                        hex_id(b, i)
                    } else {
                        None
                    }
                })
        } else if HEX && k & HEX_LETTER != 0 && !prev_alnum {
            hex_id(b, i)
        } else {
            None
        };
        if let Some(end) = end {
            let o = out.get_or_insert_with(|| String::with_capacity(b.len()));
            o.push_str(&text[last..i]);
            o.push('#');
            last = end;
            i = end;
            if HEX {
                prev_alnum = b[end - 1].is_ascii_alphanumeric();
            }
            continue;
        }
        if HEX {
            prev_alnum = k & ALNUM != 0;
        }
        i += 1;
    }
    out.map(|mut o| {
        o.push_str(&text[last..]);
        o
    })
}

/// The stamp fields of a structured result (`crs.guard._canon.RESULT_STAMP_KEYS`: `elapsed`,
/// `request_id`, `durationSeconds` ...), looked for in its JSON text: whether some
/// `"<key>":` in it may name one, so that the guard rebuilds the document without their
/// values only when it has one (most have none).
///
/// A key matches when, lower-cased with `_` and `-` left out, it is a word or a word and a
/// unit: exactly the regex `"(?:words)(?:units)?":` searched in
/// `text.lower().replace("_", "").replace("-", "")` (the Python reference,
/// `crs.guard._canon._may_stamp_reference`; a hypothesis test checks they agree). Every
/// quote is tried as an opening one, so a text that is not JSON gets the regex's answer
/// too. `str.lower()` gives an ASCII letter for ASCII letters and the Kelvin sign only.
pub struct StampKeys {
    words: Vec<Vec<u8>>,
    units: Vec<Vec<u8>>,
    longest: usize,
}

impl StampKeys {
    /// Words and units of lower-case ASCII letters, a word and a unit at most 64 letters
    /// (else what is wrong).
    pub fn new(words: &[&str], units: &[&str]) -> Result<Self, String> {
        let own = |list: &[&str]| -> Result<Vec<Vec<u8>>, String> {
            list.iter()
                .map(|w| {
                    if w.is_empty() || !w.bytes().all(|c| c.is_ascii_lowercase()) {
                        return Err(format!("{w:?} is not lower-case ASCII letters"));
                    }
                    Ok(w.as_bytes().to_vec())
                })
                .collect()
        };
        let (words, units) = (own(words)?, own(units)?);
        let max = |list: &[Vec<u8>]| list.iter().map(Vec::len).max().unwrap_or(0);
        let longest = max(&words) + max(&units);
        if longest > 64 {
            return Err("a word and a unit are longer than 64 letters".into());
        }
        Ok(Self {
            words,
            units,
            longest,
        })
    }

    /// Whether `text` holds a quote, a key that matches, a quote and `:` (`_` and `-` aside).
    pub fn found(&self, text: &str) -> bool {
        let b = text.as_bytes();
        let Some(mut p) = b.iter().position(|&c| c == b'"') else {
            return false;
        };
        while let Some(q) = b[p + 1..].iter().position(|&c| c == b'"') {
            let q = p + 1 + q;
            let colon = b[q + 1..].iter().find(|&&c| c != b'_' && c != b'-') == Some(&b':');
            if colon && self.names_one(&text[p + 1..q]) {
                return true;
            }
            p = q;
        }
        false
    }

    /// `key`, normalised, is a word or a word and a unit.
    fn names_one(&self, key: &str) -> bool {
        let mut buf = [0u8; 64];
        let mut n = 0;
        for c in key.chars() {
            let l = match c {
                '_' | '-' => continue,
                'A'..='Z' | 'a'..='z' => c.to_ascii_lowercase() as u8,
                '\u{212a}' => b'k', // KELVIN SIGN: "k" in lower case
                _ => return false,
            };
            if n == self.longest {
                return false;
            }
            buf[n] = l;
            n += 1;
        }
        let k = &buf[..n];
        let word = |w: &[u8]| self.words.iter().any(|x| x == w);
        word(k)
            || self
                .units
                .iter()
                .any(|u| k.len() > u.len() && k.ends_with(u) && word(&k[..k.len() - u.len()]))
    }
}

#[cfg(test)]
mod tests {
    use super::mask_volatile;

    fn m(t: &str) -> String {
        mask_volatile(t).unwrap_or_else(|| t.to_string())
    }

    #[test]
    fn masks_each_kind() {
        assert_eq!(m("at 2024-01-02T10:11:12.5Z done"), "at # done");
        assert_eq!(m("at 2024-01-02 10:11+01:00"), "at #");
        assert_eq!(m("up 9:05:01 now"), "up # now");
        assert_eq!(m("took 12ms, then 3.5 s"), "took #, then #");
        assert_eq!(m("obj at 0x7f3e25a5ea00"), "obj at #");
        assert_eq!(mask_volatile("12 passed in file_3.py"), None);
        assert_eq!(mask_volatile("5secs2 x5ms"), None);
    }

    #[test]
    fn the_hex_prefilter_is_exact_about_runs_of_eight() {
        fn reference(b: &[u8]) -> bool {
            let mut run = 0;
            for &c in b {
                run = if c.is_ascii_hexdigit() || c == b'-' {
                    run + 1
                } else {
                    0
                };
                if run >= 8 {
                    return true;
                }
            }
            false
        }
        let alphabet = b"09afAFgz-_ .:\n";
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 0..80 {
            for _ in 0..300 {
                let text: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        alphabet[(seed % alphabet.len() as u64) as usize]
                    })
                    .collect();
                assert_eq!(super::may_have_hex_id(&text), reference(&text), "{text:?}");
            }
        }
    }

    #[test]
    fn the_scan_without_ids_agrees_where_the_prefilter_sends_it() {
        // `mask_volatile` takes `scan::<false>` when no run of 8 hex bytes exists: there it
        // must give what the full scan gives (no id can match, the other checks are shared)
        let alphabet = b"0123456789abcdefxyzXABF-_ .:+Tsmn\n";
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut skipped = 0;
        for len in 0..60 {
            for _ in 0..400 {
                let text: String = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        char::from(alphabet[(seed % alphabet.len() as u64) as usize])
                    })
                    .collect();
                let full = super::scan::<true>(&text);
                assert_eq!(super::mask_volatile(&text), full, "{text:?}");
                if !super::may_have_hex_id(text.as_bytes()) {
                    skipped += 1;
                    assert_eq!(super::scan::<false>(&text), full, "{text:?}");
                }
            }
        }
        assert!(skipped > 1000, "{skipped}");
    }

    #[test]
    fn finds_stamp_keys_in_json() {
        let keys = super::StampKeys::new(&["took", "runid", "ts"], &["ms", "seconds"]).unwrap();
        for yes in [
            r#"{"a":1,"took":3}"#,
            r#"{"Run_ID":"x"}"#,
            r#"{"took_ms":3}"#,
            r#"{"durationx":1,"TS-Seconds":2}"#,
            "{\"too\u{212a}\":1}",
            r#""took"__:"#,
        ] {
            assert!(keys.found(yes), "{yes}");
        }
        for no in [
            r#"{"a":"took","b":["took"]}"#,
            r#"{"tookx":1,"ms":2,"mstook":3}"#,
            r#"{"took\"":1}"#,
            "{\"tooK\u{307}\":1}",
            r#""took" :"#,
            "",
            r#"""#,
        ] {
            assert!(!keys.found(no), "{no}");
        }
        assert!(super::StampKeys::new(&["Took"], &[]).is_err());
        assert!(super::StampKeys::new(&["took"], &[""]).is_err());
    }

    #[test]
    fn masks_generated_ids() {
        assert_eq!(m("batch-9f3a2c1d0e: ok"), "batch-#: ok");
        assert_eq!(
            m("id 123e4567-e89b-12d3-a456-426614174000 done"),
            "id # done"
        );
        assert_eq!(m("nonce=6941afa76632fc57"), "nonce=#");
        assert_eq!(mask_volatile("a deadbeefcafe word, 12345678 bytes"), None);
        assert_eq!(mask_volatile("x9f3a2c1d0e and 9f3a2c1d0ex"), None);
        assert_eq!(mask_volatile("commit 4be91c2"), None);
        assert_eq!(m("[1767265200] ok at 1767265200123.5"), "[#] ok at #");
        assert_eq!(
            mask_volatile("12345678901 and 1767265200x and 1767265200.5.1"),
            None
        );
    }
}
