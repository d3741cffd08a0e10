//! Memory ids are RFC 4122 version-4 UUIDs. Randomness comes from the OS (`getrandom`; in wasm,
//! `crypto.getRandomValues`) unless a seed is given, which tests use for reproducible stores.

use crate::error::{Error, ErrorCode, Result};

/// Makes UUIDs, either from OS randomness or from a seeded generator.
#[derive(Debug)]
pub enum IdSource {
    Os,
    /// splitmix64 state: reproducible ids for tests and fault-injection replays.
    Seeded(u64),
}

impl IdSource {
    pub fn next_uuid(&mut self) -> Result<String> {
        let mut bytes = [0u8; 16];
        match self {
            IdSource::Os => os_random(&mut bytes)?,
            IdSource::Seeded(state) => {
                for chunk in bytes.chunks_mut(8) {
                    chunk.copy_from_slice(&splitmix64(state).to_le_bytes());
                }
            }
        }
        bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
        bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
        Ok(format_uuid(&bytes))
    }
}

/// OS randomness fetched for 256 ids at a time: in wasm each `getrandom` call is a trip to
/// `crypto.getRandomValues`, which cost more than the rest of making an id (a tenth of `addMany`).
const POOL_BYTES: usize = 4096;

thread_local! {
    static POOL: std::cell::RefCell<(Vec<u8>, usize)> = const { std::cell::RefCell::new((Vec::new(), 0)) };
}

fn os_random(out: &mut [u8; 16]) -> Result<()> {
    POOL.with(|pool| {
        let (bytes, used) = &mut *pool.borrow_mut();
        if bytes.len() < *used + out.len() {
            bytes.resize(POOL_BYTES, 0);
            getrandom::getrandom(bytes).map_err(|e| Error::new(ErrorCode::Storage, format!("no randomness source for ids: {e}")))?;
            *used = 0;
        }
        out.copy_from_slice(&bytes[*used..*used + 16]);
        // Each byte serves one id only.
        bytes[*used..*used + 16].fill(0);
        *used += 16;
        Ok(())
    })
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn format_uuid(b: &[u8; 16]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(36);
    for (i, x) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        out.push(HEX[(x >> 4) as usize] as char);
        out.push(HEX[(x & 15) as usize] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn looks_like_uuid(s: &str) -> bool {
        s.len() == 36 && s.char_indices().all(|(i, c)| if [8, 13, 18, 23].contains(&i) { c == '-' } else { c.is_ascii_hexdigit() })
    }

    #[test]
    fn uuids_are_v4_and_unique() {
        let mut os = IdSource::Os;
        let a = os.next_uuid().unwrap();
        let b = os.next_uuid().unwrap();
        assert_ne!(a, b);
        assert!(looks_like_uuid(&a));
        assert_eq!(&a[14..15], "4");
        assert!("89ab".contains(&a[19..20]));
        let mut s1 = IdSource::Seeded(7);
        let mut s2 = IdSource::Seeded(7);
        assert_eq!(s1.next_uuid().unwrap(), s2.next_uuid().unwrap());
        assert!(!looks_like_uuid("not-a-uuid"));
    }
}
