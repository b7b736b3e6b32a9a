//! Compact JSON text as Python's `json` writes it with `separators=(",", ":")`,
//! `ensure_ascii=False` (the journal's op records, `crs._state._codec`): the string
//! escaping of CPython's `_json.c` (`escape_unicode`), byte for byte.

/// Appends `s` as a JSON string: `"` and `\` escaped, `\b \f \n \r \t` by name, every
/// other character below U+0020 as `\u00xx` (lower-case hex), the rest as it is (UTF-8).
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut done = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let named: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            0x0c => b"\\f",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[done..i]);
        if named.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 15)]);
        } else {
            out.extend_from_slice(named);
        }
        done = i + 1;
    }
    out.extend_from_slice(&bytes[done..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::push_str;

    fn enc(s: &str) -> String {
        let mut out = Vec::new();
        push_str(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_as_python_json_does() {
        assert_eq!(enc(""), "\"\"");
        assert_eq!(enc("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(enc("\u{8}\u{c}\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
        assert_eq!(enc("\u{0}\u{1f}\u{7f}"), "\"\\u0000\\u001f\u{7f}\"");
        assert_eq!(enc("é😀"), "\"é😀\"");
    }
}
