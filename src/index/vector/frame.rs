//! The envelope around persisted index bytes: magic, format version, CRC-32 and length of the body,
//! so truncation, bit rot and bytes of another kind are caught before decoding starts.

use crate::error::{Error, Result};

pub const GRAPH_MAGIC: [u8; 4] = *b"EGVG";
pub const SNAPSHOT_MAGIC: [u8; 4] = *b"EGVS";
pub const OUTPUT_MAGIC: [u8; 4] = *b"EGVO";
/// Bumped whenever the body encoding changes (including an instant-distance upgrade that changes
/// its serde layout).
pub const VERSION: u32 = 2;
const HEADER: usize = 4 + 4 + 4 + 8;

pub fn wrap(magic: [u8; 4], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(&magic);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&crc32(body).to_le_bytes());
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
    if crc32(body) != crc {
        return corrupt("checksum mismatch");
    }
    Ok(body)
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) with a table built at compile time.
pub fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
                k += 1;
            }
            table[i] = c;
            i += 1;
        }
        table
    };
    !bytes.iter().fold(!0u32, |c, &b| TABLE[((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8))
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc32_matches_the_standard_check_value() {
        assert_eq!(super::crc32(b"123456789"), 0xCBF4_3926);
    }
}
