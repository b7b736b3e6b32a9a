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
fn duration(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && (is_w(b[i - 1]) || b[i - 1] == b'.') {
        return None;
    }
    let mut p = digits(b, i);
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
fn epoch(b: &[u8], i: usize) -> Option<usize> {
    if (i > 0 && (is_w(b[i - 1]) || b[i - 1] == b'.'))
        || b[i] != b'1'
        || !matches!(b.get(i + 1), Some(b'5'..=b'9'))
    {
        return None;
    }
    let run = digits(b, i);
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

/// `text` with each volatile part replaced by `#`, or None when it has none. `text` must
/// be ASCII (the caller checks; other text goes through the regex).
pub fn mask_volatile(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let end = if c.is_ascii_digit() {
            date_time(b, i)
                .or_else(|| clock(b, i))
                .or_else(|| duration(b, i))
                .or_else(|| address(b, i))
                .or_else(|| epoch(b, i))
                .or_else(|| hex_id(b, i))
        } else if matches!(c, b'a'..=b'f' | b'A'..=b'F') {
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
            continue;
        }
        i += 1;
    }
    out.map(|mut o| {
        o.push_str(&text[last..]);
        o
    })
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
