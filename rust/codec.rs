//! Decoding of the journal codec's binary ProofDelta payloads (kind `P`, codec version 1;
//! docs/journal-format.md, "Payload"). Python encodes them (`crs._codec`); replay decodes
//! runs of them here, so a decoded replay does not pay for `struct` calls per field.

/// One entry: (node id, proof, disproof, status, source, updated_at).
pub type Row = (String, u64, u64, u8, u8, i64);

/// Kind byte of a binary ProofDelta payload.
pub const KIND_PROOF: u8 = 0x50;
/// Codec version this decoder reads.
pub const VERSION: u8 = 1;
const HEAD: usize = 16;
const ROW: usize = 26;

/// A decoded ProofDelta payload.
#[derive(Debug, PartialEq, Eq)]
pub struct ProofRecord {
    pub source: u8,
    pub timestamp: i64,
    pub rows: Vec<Row>,
}

/// Why a payload is not a valid binary ProofDelta.
#[derive(Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The payload ends before the layout does.
    Short,
    /// Bytes follow the last entry.
    Trailing,
    /// A node id is empty or not UTF-8.
    BadId,
    /// A source or status byte is out of range.
    Range,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Short => "payload is cut short",
            Self::Trailing => "bytes follow the last entry",
            Self::BadId => "a node id is empty or not UTF-8",
            Self::Range => "a source or status is out of range",
        })
    }
}

fn u32_at(d: &[u8], p: usize) -> u32 {
    u32::from_le_bytes([d[p], d[p + 1], d[p + 2], d[p + 3]])
}

fn u64_at(d: &[u8], p: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[p..p + 8]);
    u64::from_le_bytes(b)
}

fn i64_at(d: &[u8], p: usize) -> i64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[p..p + 8]);
    i64::from_le_bytes(b)
}

/// True if `data` is a binary ProofDelta payload of this version (by its first two bytes).
pub fn is_proof(data: &[u8]) -> bool {
    data.len() >= 2 && data[0] == KIND_PROOF && data[1] == VERSION
}

/// Check a payload for which `is_proof` holds as `decode_proof` would, without copying
/// its rows out.
pub fn check_proof(d: &[u8]) -> Result<(), DecodeError> {
    walk_proof(d, |_, _| ()).map(|_| ())
}

/// One entry's fixed fields: (proof, disproof, status, source, updated_at).
pub type Fixed = (u64, u64, u8, u8, i64);

/// Decode a payload for which `is_proof` holds.
pub fn decode_proof(d: &[u8]) -> Result<ProofRecord, DecodeError> {
    let mut rows = Vec::with_capacity(d.len().saturating_sub(HEAD) / (ROW + 4) + 1);
    let (source, timestamp) = walk_proof(d, |id, r| {
        rows.push((id.to_owned(), r.0, r.1, r.2, r.3, r.4));
    })?;
    Ok(ProofRecord {
        source,
        timestamp,
        rows,
    })
}

/// Validate the layout of a payload for which `is_proof` holds, calling `row(id, fields)`
/// per entry in order; returns (source, timestamp).
pub fn walk_proof(d: &[u8], mut row: impl FnMut(&str, Fixed)) -> Result<(u8, i64), DecodeError> {
    if d.len() < HEAD {
        return Err(DecodeError::Short);
    }
    let source = d[2];
    if source > 3 {
        return Err(DecodeError::Range);
    }
    let timestamp = i64_at(d, 4);
    let count = u32_at(d, 12) as usize;
    let mut p = HEAD;
    for _ in 0..count {
        if d.len() < p + 4 {
            return Err(DecodeError::Short);
        }
        let n = u32_at(d, p) as usize;
        p += 4;
        if d.len() < p + n + ROW {
            return Err(DecodeError::Short);
        }
        let id = std::str::from_utf8(&d[p..p + n]).map_err(|_| DecodeError::BadId)?;
        if id.is_empty() {
            return Err(DecodeError::BadId);
        }
        p += n;
        let (status, src) = (d[p + 16], d[p + 17]);
        if status > 3 || src > 3 {
            return Err(DecodeError::Range);
        }
        row(
            id,
            (
                u64_at(d, p),
                u64_at(d, p + 8),
                status,
                src,
                i64_at(d, p + 18),
            ),
        );
        p += ROW;
    }
    if p != d.len() {
        return Err(DecodeError::Trailing);
    }
    Ok((source, timestamp))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(source: u8, ts: i64, rows: &[(&str, u64, u64, u8, u8, i64)]) -> Vec<u8> {
        let mut out = vec![KIND_PROOF, VERSION, source, 0];
        out.extend_from_slice(&ts.to_le_bytes());
        out.extend_from_slice(&(rows.len() as u32).to_le_bytes());
        for r in rows {
            out.extend_from_slice(&(r.0.len() as u32).to_le_bytes());
            out.extend_from_slice(r.0.as_bytes());
            out.extend_from_slice(&r.1.to_le_bytes());
            out.extend_from_slice(&r.2.to_le_bytes());
            out.push(r.3);
            out.push(r.4);
            out.extend_from_slice(&r.5.to_le_bytes());
        }
        out
    }

    #[test]
    fn round_trip() {
        let raw = encode(
            1,
            -5,
            &[("a", 1, u64::MAX, 2, 3, i64::MIN), ("é", 0, 0, 0, 0, 7)],
        );
        assert!(is_proof(&raw));
        assert_eq!(check_proof(&raw), Ok(()));
        let rec = decode_proof(&raw).unwrap();
        assert_eq!(rec.source, 1);
        assert_eq!(rec.timestamp, -5);
        assert_eq!(rec.rows[0], ("a".to_owned(), 1, u64::MAX, 2, 3, i64::MIN));
        assert_eq!(rec.rows[1], ("é".to_owned(), 0, 0, 0, 0, 7));
        assert_eq!(decode_proof(&encode(0, 0, &[])).unwrap().rows, vec![]);
    }

    #[test]
    fn damage_is_reported() {
        let raw = encode(1, 0, &[("a", 1, 2, 1, 1, 3)]);
        for cut in 0..raw.len() {
            assert!(decode_proof(&raw[..cut]).is_err(), "cut at {cut}");
            assert!(check_proof(&raw[..cut]).is_err(), "cut at {cut}");
        }
        let mut extra = raw.clone();
        extra.push(0);
        assert_eq!(decode_proof(&extra), Err(DecodeError::Trailing));
        assert_eq!(check_proof(&extra), Err(DecodeError::Trailing));
        let mut bad = raw.clone();
        bad[2] = 4;
        assert_eq!(decode_proof(&bad), Err(DecodeError::Range));
        let mut bad = raw.clone();
        bad[20] = 0xff;
        assert_eq!(decode_proof(&bad), Err(DecodeError::BadId));
        assert_eq!(
            decode_proof(&encode(1, 0, &[("", 1, 2, 1, 1, 3)])),
            Err(DecodeError::BadId)
        );
        assert!(!is_proof(b"J\x01{}"));
        assert!(!is_proof(&[KIND_PROOF, 2]));
    }
}
