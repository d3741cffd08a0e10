//! Record framing. Every stored value (change chunk, snapshot, export file) is one record:
//!
//! ```text
//! magic "ENGR" | format version u16 | kind u8 | reserved u8 = 0 | seq u64 | body length u32 | body | CRC-32C u32
//! ```
//! All integers little-endian; the CRC covers every byte before it. The trailer is the record's
//! commit marker: a torn write (empty, cut short) fails the length or checksum test, so a record is
//! either whole or ignored.

use crate::digest::crc32c;
use crate::error::{Error, Result};

pub const MAGIC: &[u8; 4] = b"ENGR";
pub const FORMAT_VERSION: u16 = 1;
pub const HEADER: usize = 4 + 2 + 1 + 1 + 8 + 4;
pub const TRAILER: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordKind {
    /// The changes of one engine call (or a flush of search touches).
    Chunk = 1,
    /// The whole state as of a sequence number; chunks up to it are obsolete.
    Snapshot = 2,
    /// A whole store or namespace as one portable file.
    Export = 3,
    /// Empty body; its sequence number is the newest snapshot's. Written after each snapshot so a
    /// second writer sharing the storage learns that chunks it has not read may be gone (see
    /// `Store::sync`). Loading never reads it.
    Head = 4,
}

impl RecordKind {
    fn from_u8(b: u8) -> Option<RecordKind> {
        match b {
            1 => Some(RecordKind::Chunk),
            2 => Some(RecordKind::Snapshot),
            3 => Some(RecordKind::Export),
            4 => Some(RecordKind::Head),
            _ => None,
        }
    }
}

pub fn encode(kind: RecordKind, seq: u64, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + body.len() + TRAILER);
    out.extend_from_slice(&[0; HEADER]);
    out.extend_from_slice(body);
    seal(kind, seq, out)
}

/// Frames a body written after [`HEADER`] bytes of room (`buf[HEADER..]` is the body): the header
/// is filled in and the checksum appended in place, so a large body (a snapshot, an import's chunk)
/// is never copied.
pub fn seal(kind: RecordKind, seq: u64, mut buf: Vec<u8>) -> Vec<u8> {
    debug_assert!(buf.len() >= HEADER);
    let len = (buf.len() - HEADER) as u32;
    buf[0..4].copy_from_slice(MAGIC);
    buf[4..6].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    buf[6] = kind as u8;
    buf[7] = 0;
    buf[8..16].copy_from_slice(&seq.to_le_bytes());
    buf[16..20].copy_from_slice(&len.to_le_bytes());
    let crc = crc32c(&buf);
    buf.reserve_exact(TRAILER);
    buf.extend_from_slice(&crc.to_le_bytes());
    buf
}

/// Checks a record's header alone (a record read in pieces): magic, version, kind, reserved byte.
/// Returns (kind, seq, body length); the checksum is the reader's to check at the end.
pub fn decode_header(h: &[u8; HEADER]) -> Result<(RecordKind, u64, usize)> {
    if &h[0..4] != MAGIC {
        return Err(Error::corrupt("not an Engram record (bad magic)"));
    }
    let version = u16::from_le_bytes([h[4], h[5]]);
    if version != FORMAT_VERSION {
        return Err(Error::corrupt(format!("record format version {version}; this build reads {FORMAT_VERSION}")));
    }
    let kind = RecordKind::from_u8(h[6]).ok_or_else(|| Error::corrupt(format!("unknown record kind {}", h[6])))?;
    if h[7] != 0 {
        return Err(Error::corrupt("reserved record byte is set"));
    }
    let mut seq = [0u8; 8];
    seq.copy_from_slice(&h[8..16]);
    let len = u32::from_le_bytes([h[16], h[17], h[18], h[19]]) as usize;
    Ok((kind, u64::from_le_bytes(seq), len))
}

/// Checks framing and checksum; returns (kind, seq, body). Any defect is `Corrupt`.
pub fn decode(bytes: &[u8]) -> Result<(RecordKind, u64, &[u8])> {
    if bytes.len() < HEADER + TRAILER {
        return Err(Error::corrupt(format!("record of {} bytes is shorter than its header", bytes.len())));
    }
    if &bytes[0..4] != MAGIC {
        return Err(Error::corrupt("not an Engram record (bad magic)"));
    }
    let (data, trailer) = bytes.split_at(bytes.len() - TRAILER);
    let stored = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    if crc32c(data) != stored {
        return Err(Error::corrupt("record checksum mismatch (torn or damaged)"));
    }
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if version != FORMAT_VERSION {
        return Err(Error::corrupt(format!("record format version {version}; this build reads {FORMAT_VERSION}")));
    }
    let kind = RecordKind::from_u8(bytes[6]).ok_or_else(|| Error::corrupt(format!("unknown record kind {}", bytes[6])))?;
    if bytes[7] != 0 {
        return Err(Error::corrupt("reserved record byte is set"));
    }
    let mut seq = [0u8; 8];
    seq.copy_from_slice(&bytes[8..16]);
    let len = u32::from_le_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]) as usize;
    if len != data.len() - HEADER {
        return Err(Error::corrupt("record length does not match its header"));
    }
    Ok((kind, u64::from_le_bytes(seq), &data[HEADER..]))
}

/// Decodes a record that must be of `kind`.
/// Whether a record that does not decode was cut short by its write rather than damaged after it:
/// shorter than its header or than the length its header states, or nothing but zero bytes (what a
/// file system can leave of a write a power loss interrupted). A record of its full stated length
/// that fails its checksum was written whole: the damage came later.
pub fn is_torn(bytes: &[u8]) -> bool {
    if bytes.len() < HEADER + TRAILER || bytes.iter().all(|&b| b == 0) {
        return true;
    }
    let len = u32::from_le_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]) as usize;
    &bytes[0..4] == MAGIC && bytes.len() < HEADER.saturating_add(len).saturating_add(TRAILER)
}

pub fn decode_kind(bytes: &[u8], kind: RecordKind) -> Result<(u64, &[u8])> {
    let (k, seq, body) = decode(bytes)?;
    if k != kind {
        return Err(Error::corrupt(format!("expected a {kind:?} record, found {k:?}")));
    }
    Ok((seq, body))
}
