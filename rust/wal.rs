//! Record framing of the local journal (format version 1, `docs/journal-format.md`).
//!
//! A segment file is a 32-byte header followed by records. Each record is a 24-byte header
//! (its own CRC-32C, payload length, sequence number, payload CRC-32C, flags) and its payload.
//! Records of one atomic batch carry flags so that a batch is either replayed whole or not at
//! all. This module frames records for appends and scans segment buffers for replay; it knows
//! nothing about files, codecs or Python.

/// Size of a record header in bytes.
pub const RECORD_HEADER: usize = 24;
/// Flag: more records of the same atomic batch follow this one.
pub const FLAG_CONTINUES: u16 = 1;
/// Flag: this record is not the first of its batch.
pub const FLAG_NOT_FIRST: u16 = 2;
const KNOWN_FLAGS: u16 = FLAG_CONTINUES | FLAG_NOT_FIRST;

/// Why a scan stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The buffer ended exactly at a record boundary.
    End = 0,
    /// `max_records` committed records were collected.
    Limit = 1,
    /// The buffer ends inside a record header or payload.
    Incomplete = 2,
    /// A record header of all zero bytes (preallocated space, or nothing written yet).
    Zero = 3,
    /// The record header fails its CRC (or has unknown flags).
    BadHeader = 4,
    /// The payload fails its CRC.
    BadPayload = 5,
    /// A valid record whose sequence number is not the expected one.
    Gap = 6,
    /// Valid records whose batch flags contradict each other.
    BadBatch = 7,
}

/// The result of scanning a buffer from some offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scan {
    /// `(payload_offset, payload_len)` of every committed record, in order.
    pub records: Vec<(usize, usize)>,
    /// Offset just after the last committed record (the start offset if none).
    pub commit_pos: usize,
    /// Offset of the record where scanning stopped (`buf.len()` on `End`).
    pub stop_pos: usize,
    /// Why scanning stopped.
    pub stop: Stop,
    /// The sequence number found at `stop_pos` when `stop` is `Gap`, else 0.
    pub found_seq: u64,
}

/// A parsed record header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub len: usize,
    pub seq: u64,
    pub payload_crc: u32,
    pub flags: u16,
}

fn u32_at(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
}

/// Parses and checks the header at `pos`; `None` if it is not a valid header.
fn header_at(buf: &[u8], pos: usize) -> Option<Header> {
    let h = buf.get(pos..pos + RECORD_HEADER)?;
    if u32_at(h, 0) != crc32c::crc32c(&h[4..]) {
        return None;
    }
    let flags = u16::from_le_bytes([h[20], h[21]]);
    if flags & !KNOWN_FLAGS != 0 || h[22] != 0 || h[23] != 0 {
        return None;
    }
    let mut seq = [0u8; 8];
    seq.copy_from_slice(&h[8..16]);
    Some(Header {
        len: u32_at(h, 4) as usize,
        seq: u64::from_le_bytes(seq),
        payload_crc: u32_at(h, 16),
        flags,
    })
}

/// Why payloads could not be framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodeError {
    /// The unit's sequence numbers `first_seq..first_seq + count` do not fit in u64.
    SeqOverflow { first_seq: u64, count: usize },
    /// Payload `index` is longer than a record can hold (`u32::MAX` bytes).
    PayloadTooLarge { index: usize, len: usize },
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::SeqOverflow { first_seq, count } => write!(
                f,
                "first_seq={first_seq} with {count} payloads runs past the largest sequence \
                 number 2**64 - 1"
            ),
            Self::PayloadTooLarge { index, len } => write!(
                f,
                "payloads[{index}] is {len} bytes; a record holds at most 4294967295 bytes"
            ),
        }
    }
}

impl std::error::Error for EncodeError {}

/// Appends one framed record to `out` (`payload` must be at most `u32::MAX` bytes).
fn encode_record(out: &mut Vec<u8>, seq: u64, flags: u16, payload: &[u8], len: u32) {
    let mut h = [0u8; RECORD_HEADER];
    h[4..8].copy_from_slice(&len.to_le_bytes());
    h[8..16].copy_from_slice(&seq.to_le_bytes());
    h[16..20].copy_from_slice(&crc32c::crc32c(payload).to_le_bytes());
    h[20..22].copy_from_slice(&flags.to_le_bytes());
    let hcrc = crc32c::crc32c(&h[4..]);
    h[0..4].copy_from_slice(&hcrc.to_le_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(payload);
}

/// Frames `payloads` as one unit starting at `first_seq`: a single record, or an atomic batch
/// whose records carry the batch flags. Fails (framing nothing) if a sequence number would
/// pass `u64::MAX` or a payload is longer than `u32::MAX` bytes.
pub fn encode_unit(first_seq: u64, payloads: &[&[u8]]) -> Result<Vec<u8>, EncodeError> {
    let count = payloads.len();
    let span = u64::try_from(count.saturating_sub(1)).unwrap_or(u64::MAX);
    if first_seq.checked_add(span).is_none() {
        return Err(EncodeError::SeqOverflow { first_seq, count });
    }
    let mut lens = Vec::with_capacity(count);
    for (index, p) in payloads.iter().enumerate() {
        let len = u32::try_from(p.len()).map_err(|_| EncodeError::PayloadTooLarge {
            index,
            len: p.len(),
        })?;
        lens.push(len);
    }
    let total: usize = payloads.iter().map(|p| p.len() + RECORD_HEADER).sum();
    let mut out = Vec::with_capacity(total);
    let last = count.saturating_sub(1);
    let mut seq = first_seq;
    for (i, (p, &len)) in payloads.iter().zip(&lens).enumerate() {
        let mut flags = 0;
        if i < last {
            flags |= FLAG_CONTINUES;
        }
        if i > 0 {
            flags |= FLAG_NOT_FIRST;
        }
        encode_record(&mut out, seq, flags, p, len);
        // Cannot overflow before the last record: checked above.
        seq = seq.wrapping_add(1);
    }
    Ok(out)
}

/// Scans records from `start`, expecting `expected_seq` first, and stops after `max_records`
/// committed records (at a batch boundary) or at the first record that is not valid.
///
/// Only records of complete batches are committed: when the scan stops inside a batch,
/// `commit_pos` is the offset where that batch began.
pub fn scan(buf: &[u8], start: usize, expected_seq: u64, max_records: usize) -> Scan {
    let mut records = Vec::new();
    let mut committed = 0;
    let mut commit_pos = start;
    let mut pos = start;
    // `None` once a record with sequence number u64::MAX was read: nothing may follow it.
    let mut expected = Some(expected_seq);
    let mut in_batch = false;
    let mut found_seq = 0;
    let stop = loop {
        if committed >= max_records && !in_batch {
            break Stop::Limit;
        }
        if pos == buf.len() {
            break Stop::End;
        }
        if buf.len().saturating_sub(pos) < RECORD_HEADER {
            break Stop::Incomplete;
        }
        let Some(h) = header_at(buf, pos) else {
            if buf[pos..pos + RECORD_HEADER].iter().all(|&b| b == 0) {
                break Stop::Zero;
            }
            break Stop::BadHeader;
        };
        let body = pos + RECORD_HEADER;
        if buf.len() - body < h.len {
            break Stop::Incomplete;
        }
        if Some(h.seq) != expected {
            found_seq = h.seq;
            break Stop::Gap;
        }
        if (h.flags & FLAG_NOT_FIRST != 0) != in_batch {
            break Stop::BadBatch;
        }
        if crc32c::crc32c(&buf[body..body + h.len]) != h.payload_crc {
            break Stop::BadPayload;
        }
        records.push((body, h.len));
        pos = body + h.len;
        expected = h.seq.checked_add(1);
        in_batch = h.flags & FLAG_CONTINUES != 0;
        if !in_batch {
            committed = records.len();
            commit_pos = pos;
        }
    };
    records.truncate(committed);
    Scan {
        records,
        commit_pos,
        stop_pos: pos,
        stop,
        found_seq,
    }
}

/// Finds the first offset at or after `from` holding a valid record (header and payload CRCs
/// match) that starts a batch or stands alone (any valid record if `unit_start` is false);
/// returns the offset and its header.
///
/// Used to resynchronise after a corrupt record when corrupt records may be skipped.
pub fn resync(buf: &[u8], from: usize, unit_start: bool) -> Option<(usize, Header)> {
    let last = buf.len().checked_sub(RECORD_HEADER)?;
    (from..=last).find_map(|pos| {
        let h = header_at(buf, pos)?;
        let body = pos + RECORD_HEADER;
        let payload = buf.get(body..body.checked_add(h.len)?)?;
        ((!unit_start || h.flags & FLAG_NOT_FIRST == 0) && crc32c::crc32c(payload) == h.payload_crc)
            .then_some((pos, h))
    })
}

/// CRC-32C's byte table (reflected, polynomial 0x82F63B78): `T[b]`, the CRC register's
/// change for a byte `b` (the table `crc32c` computes with, built here for the arithmetic).
const CRC_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0x82F6_3B78
            } else {
                c >> 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// `CRC_TABLE` inverted by top byte (unique: it inverts one step): at `t`, the entry whose
/// top byte is `t` and (bits 32..40) its index.
const CRC_BY_TOP: [u64; 256] = {
    let mut inv = [0u64; 256];
    let mut i = 0;
    while i < 256 {
        inv[(CRC_TABLE[i] >> 24) as usize] = CRC_TABLE[i] as u64 | (i as u64) << 32;
        i += 1;
    }
    inv
};

/// The position of the one byte whose change explains a CRC-32C mismatch of an `n`-byte
/// payload (`syndrome` = its CRC xor the stored one), or None: no change confined to one
/// byte (every single-bit flip included) explains it.
///
/// CRC-32C is linear: for equal lengths crc(a) ^ crc(b) depends only on a ^ b. An error
/// byte e at position n-1-m gives the syndrome A^m(T[e]), where A(r) = (r >> 8) ^ T[r & 0xff]
/// appends a zero byte; A is inverted one step at a time (the top byte of `T[x]` names `x`:
/// one table load a step), so this is O(n): the recovery of a preallocated segment
/// (docs/journal-format.md). The Python reference is
/// `crs._journal._local._one_byte_error_reference`.
pub fn one_byte_error(syndrome: u32, n: usize) -> Option<usize> {
    let mut s = syndrome;
    for zeros in 0..n {
        let entry = CRC_BY_TOP[(s >> 24) as usize];
        let (t, byte) = (entry as u32, (entry >> 32) as u32);
        if s == t && byte != 0 {
            return Some(n - 1 - zeros); // s = T[byte]: that byte's change, `zeros` from the end
        }
        s = ((s ^ t) << 8) | byte;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seq: u64, payloads: &[&[u8]]) -> Vec<u8> {
        encode_unit(seq, payloads).expect("encodable")
    }

    #[test]
    fn one_byte_error_finds_every_single_byte_change() {
        let payload: Vec<u8> = (0..300u32).map(|i| (i * 37 % 251) as u8).collect();
        let good = crc32c::crc32c(&payload);
        assert_eq!(CRC_TABLE[1], 0xF26B_8303);
        for pos in [0, 1, 150, 298, 299] {
            for e in [1u8, 0x80, 0xff] {
                let mut bad = payload.clone();
                bad[pos] ^= e;
                let syndrome = crc32c::crc32c(&bad) ^ good;
                assert_eq!(one_byte_error(syndrome, payload.len()), Some(pos));
            }
        }
        assert_eq!(one_byte_error(0, 300), None);
        assert_eq!(one_byte_error(0xdead_beef, 0), None);
    }

    #[test]
    fn scans_what_it_encodes() {
        let mut buf = unit(5, &[b"a"]);
        buf.extend(unit(6, &[b"bb", b"ccc"]));
        let s = scan(&buf, 0, 5, usize::MAX);
        assert_eq!(s.stop, Stop::End);
        assert_eq!(s.records.len(), 3);
        let (off, len) = s.records[2];
        assert_eq!(&buf[off..off + len], b"ccc");
        assert_eq!(s.commit_pos, buf.len());
    }

    #[test]
    fn a_torn_batch_is_not_committed() {
        let mut buf = unit(1, &[b"a"]);
        let first = buf.len();
        buf.extend(unit(2, &[b"bb", b"ccc"]));
        buf.truncate(buf.len() - 1);
        let s = scan(&buf, 0, 1, usize::MAX);
        assert_eq!(s.stop, Stop::Incomplete);
        assert_eq!(s.records.len(), 1);
        assert_eq!(s.commit_pos, first);
    }

    #[test]
    fn detects_flips_zeros_and_gaps() {
        let buf = unit(1, &[b"hello"]);
        let mut bad = buf.clone();
        bad[RECORD_HEADER + 1] ^= 1;
        assert_eq!(scan(&bad, 0, 1, 10).stop, Stop::BadPayload);
        bad = buf.clone();
        bad[5] ^= 0x40;
        assert_eq!(scan(&bad, 0, 1, 10).stop, Stop::BadHeader);
        assert_eq!(scan(&[0u8; 40], 0, 1, 10).stop, Stop::Zero);
        let s = scan(&buf, 0, 2, 10);
        assert_eq!((s.stop, s.found_seq), (Stop::Gap, 1));
    }

    #[test]
    fn limit_stops_at_a_batch_boundary() {
        let mut buf = unit(1, &[b"a", b"b", b"c"]);
        buf.extend(unit(4, &[b"d"]));
        let s = scan(&buf, 0, 1, 1);
        assert_eq!((s.stop, s.records.len()), (Stop::Limit, 3));
    }

    #[test]
    fn resync_finds_the_next_unit() {
        let mut buf = unit(1, &[b"first"]);
        let second = buf.len();
        buf.extend(unit(2, &[b"x", b"y"]));
        buf[3] ^= 0xff;
        let (pos, h) = resync(&buf, 1, true).unwrap();
        assert_eq!((pos, h.seq), (second, 2));
        assert!(resync(&buf, second + 1, true).is_none());
        assert_eq!(resync(&buf, second + 1, false).unwrap().1.seq, 3);
    }

    #[test]
    fn sequence_numbers_never_overflow() {
        assert_eq!(
            encode_unit(u64::MAX, &[b"a", b"b"]),
            Err(EncodeError::SeqOverflow {
                first_seq: u64::MAX,
                count: 2
            })
        );
        let mut buf = unit(u64::MAX, &[b"last"]);
        let s = scan(&buf, 0, u64::MAX, 10);
        assert_eq!((s.stop, s.records.len()), (Stop::End, 1));
        buf.extend(unit(0, &[b"wrapped"]));
        let s = scan(&buf, 0, u64::MAX, 10);
        assert_eq!((s.stop, s.records.len(), s.found_seq), (Stop::Gap, 1, 0));
        assert!(encode_unit(u64::MAX, &[]).is_ok_and(|b| b.is_empty()));
    }
}
