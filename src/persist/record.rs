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
const HEADER: usize = 4 + 2 + 1 + 1 + 8 + 4;
const TRAILER: usize = 4;

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
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.push(kind as u8);
    out.push(0);
    out.extend_from_slice(&seq.to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    let crc = crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
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
pub fn decode_kind(bytes: &[u8], kind: RecordKind) -> Result<(u64, &[u8])> {
    let (k, seq, body) = decode(bytes)?;
    if k != kind {
        return Err(Error::corrupt(format!("expected a {kind:?} record, found {k:?}")));
    }
    Ok((seq, body))
}
