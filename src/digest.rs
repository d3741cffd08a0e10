//! The two non-cryptographic digests the project persists, one implementation each.
//!
//! CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): the checksum of every stored record and
//! every framed index. It detects
//! every error of up to three flipped bits in records far larger than ours, and every burst up to
//! 32 bits; a torn (short) write fails it or the length check before it. A byte table is built once
//! at compile time; no dependency, identical natively and in wasm32.

const POLY: u32 = 0x82F6_3B78;

/// `TABLES[0]` is the byte-at-a-time table; `TABLES[k][b]` is the CRC of byte `b` followed by `k`
/// zero bytes, so eight bytes are folded per step (slicing-by-8, about 4× a byte loop).
const TABLES: [[u32; 256]; 8] = {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut k = 1;
    while k < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            i += 1;
        }
        k += 1;
    }
    t
};

pub fn crc32c(bytes: &[u8]) -> u32 {
    crc32c_extend(0, bytes)
}

/// The CRC-32C of `a` followed by `bytes`, given `crc = crc32c(a)`: a checksum computed over slices
/// as they arrive (an import read from a stream) equals the one over the whole.
pub fn crc32c_extend(crc: u32, bytes: &[u8]) -> u32 {
    let t = &TABLES;
    let mut c = !crc;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let lo = c ^ u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        c = t[7][(lo & 0xff) as usize]
            ^ t[6][((lo >> 8) & 0xff) as usize]
            ^ t[5][((lo >> 16) & 0xff) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][w[4] as usize]
            ^ t[2][w[5] as usize]
            ^ t[1][w[6] as usize]
            ^ t[0][w[7] as usize];
    }
    for &b in words.remainder() {
        c = t[0][((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

/// 64-bit FNV-1a: stable across platforms and releases (dedup keys and segment ids depend on it),
/// and cheap. Feed bytes with [`Fnv1a::eat`], read with [`Fnv1a::finish`].
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    pub fn eat(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}

/// FNV-1a of one byte string.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = Fnv1a::default();
    h.eat(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::{crc32c, crc32c_extend, fnv1a, Fnv1a, TABLES};

    #[test]
    fn matches_the_standard_check_values() {
        // RFC 3720 (iSCSI) test vectors and the catalogue check value.
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
        assert_eq!(crc32c(&[0xffu8; 32]), 0x62A8_AB43);
        assert_eq!(crc32c(b""), 0);
        // Lengths around the 8-byte stride agree with the byte-at-a-time definition.
        let data: Vec<u8> = (0..100u32).map(|i| (i * 37 + 11) as u8).collect();
        for n in 0..data.len() {
            let slow = !data[..n].iter().fold(!0u32, |c, &b| TABLES[0][((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8));
            assert_eq!(crc32c(&data[..n]), slow, "length {n}");
        }
    }

    #[test]
    fn crc32c_over_slices_equals_the_whole() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 91 + 7) as u8).collect();
        for cut in [0, 1, 7, 8, 9, 333, 999, 1000] {
            let (a, b) = data.split_at(cut);
            assert_eq!(crc32c_extend(crc32c(a), b), crc32c(&data), "cut at {cut}");
        }
    }

    #[test]
    fn fnv1a_matches_the_published_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        let mut h = Fnv1a::default();
        h.eat(b"foo");
        h.eat(b"bar");
        assert_eq!(h.finish(), fnv1a(b"foobar"));
    }
}
