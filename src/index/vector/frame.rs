//! The envelope around persisted index bytes: magic, format version, CRC-32C and length of the body,
//! so truncation, bit rot and bytes of another kind are caught before decoding starts.

use crate::digest::crc32c;
use crate::error::{Error, Result};

pub const GRAPH_MAGIC: [u8; 4] = *b"EGVG";
pub const SNAPSHOT_MAGIC: [u8; 4] = *b"EGVS";
pub const OUTPUT_MAGIC: [u8; 4] = *b"EGVO";
/// Bumped whenever the envelope or the body encoding changes (including an instant-distance upgrade
/// that changes its serde layout). 3: the checksum became CRC-32C (the project's one CRC); graphs
/// framed by version 2 are skipped on open and rebuilt, as any derived index that does not decode.
pub const VERSION: u32 = 3;
const HEADER: usize = 4 + 4 + 4 + 8;

pub fn wrap(magic: [u8; 4], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(&magic);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&crc32c(body).to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(body);
    out
}

pub fn unwrap<'a>(magic: [u8; 4], bytes: &'a [u8], what: &str) -> Result<&'a [u8]> {
    let corrupt = |msg: &str| Err(Error::corrupt(format!("{what}: {msg}")));
    if bytes.len() < HEADER {
        return corrupt("too short");
    }
    if bytes[..4] != magic {
        return corrupt("wrong magic bytes");
    }
    let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let version = word(4);
    if version != VERSION {
        return corrupt(&format!("unsupported format version {version}"));
    }
    let crc = word(8);
    let mut len = [0u8; 8];
    len.copy_from_slice(&bytes[12..HEADER]);
    let body = &bytes[HEADER..];
    if u64::from_le_bytes(len) != body.len() as u64 {
        return corrupt("truncated or padded");
    }
    if crc32c(body) != crc {
        return corrupt("checksum mismatch");
    }
    Ok(body)
}
