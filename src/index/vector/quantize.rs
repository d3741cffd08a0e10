//! Int8 codes: each unit vector stored as `round(x / scale)` with one f32 scale per vector
//! (`scale = max|x| / 127`), a quarter of the f32 bytes. `dot(a, b) ≈ a.scale * b.scale * Σ aᵢbᵢ`;
//! at 384 dimensions the estimate is off by about 1e-3, so a short list of int8 winners is rescored
//! with exact f32 before anything is returned.

use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One quantized vector: what the HNSW graph stores per point and what queries are turned into.
#[derive(Clone, Debug, PartialEq)]
pub struct Code {
    pub scale: f32,
    pub q: Box<[i8]>,
}

impl Code {
    pub fn new(v: &[f32]) -> Code {
        let mut q = vec![0i8; v.len()].into_boxed_slice();
        let scale = quantize_into(v, &mut q);
        Code { scale, q }
    }

    /// Cosine estimate between two codes.
    pub fn cosine(&self, other: &Code) -> f32 {
        self.scale * other.scale * dot_i8(&self.q, &other.q) as f32
    }
}

/// Writes the int8 code of `v` into `out` and returns its scale (0 for the zero vector).
pub fn quantize_into(v: &[f32], out: &mut [i8]) -> f32 {
    debug_assert_eq!(v.len(), out.len());
    // Plain comparisons and ties-to-even rounding compile to single instructions in wasm, where
    // `f32::max` and `f32::round` are library calls (a third of quantizing time on open).
    let max = v.iter().fold(0f32, |m, x| if x.abs() > m { x.abs() } else { m });
    if !(max > 0.0 && max.is_finite()) {
        out.fill(0);
        return 0.0;
    }
    let scale = max / 127.0;
    let inv = 127.0 / max;
    for (o, x) in out.iter_mut().zip(v) {
        *o = (x * inv).round_ties_even().clamp(-127.0, 127.0) as i8;
    }
    scale
}

/// Exact f32 dot product (the cosine of two unit vectors).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Int8 dot product accumulated in i32 (exact: |aᵢbᵢ| ≤ 16129, so no overflow below 133k dims).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    use core::arch::wasm32::*;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    // SAFETY: each chunk is exactly 16 bytes, and v128_load has no alignment requirement.
    let lanes = |c: &[i8]| unsafe { v128_load(c.as_ptr() as *const v128) };
    let mut acc = i32x4_splat(0);
    let mut ca = a.chunks_exact(16);
    let mut cb = b.chunks_exact(16);
    for (x, y) in (&mut ca).zip(&mut cb) {
        let (x, y) = (lanes(x), lanes(y));
        // Widen to i16, then i32x4.dot_i16x8_s multiplies and adds adjacent pairs into i32 lanes.
        acc = i32x4_add(acc, i32x4_dot_i16x8(i16x8_extend_low_i8x16(x), i16x8_extend_low_i8x16(y)));
        acc = i32x4_add(acc, i32x4_dot_i16x8(i16x8_extend_high_i8x16(x), i16x8_extend_high_i8x16(y)));
    }
    let head = i32x4_extract_lane::<0>(acc) + i32x4_extract_lane::<1>(acc) + i32x4_extract_lane::<2>(acc) + i32x4_extract_lane::<3>(acc);
    head + ca.remainder().iter().zip(cb.remainder()).map(|(&x, &y)| x as i32 * y as i32).sum::<i32>()
}

/// Portable int8 dot product: fixed 32-wide chunks into i32 lanes, a shape LLVM turns into SIMD
/// widening multiply-adds (pmaddwd on x86, smlal on arm).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    const W: usize = 32;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0i32; W];
    let mut ca = a.chunks_exact(W);
    let mut cb = b.chunks_exact(W);
    for (x, y) in (&mut ca).zip(&mut cb) {
        for i in 0..W {
            acc[i] += x[i] as i16 as i32 * y[i] as i16 as i32;
        }
    }
    let tail: i32 = ca.remainder().iter().zip(cb.remainder()).map(|(&x, &y)| x as i32 * y as i32).sum();
    acc.iter().sum::<i32>() + tail
}

/// A query code widened once to 16-bit lanes: a scan then sign-extends only the stored side, which
/// takes a third of the SIMD work out of each row's dot product.
pub struct ScanQuery {
    pub scale: f32,
    wide: Box<[i16]>,
}

impl ScanQuery {
    pub fn new(code: &Code) -> ScanQuery {
        ScanQuery { scale: code.scale, wide: code.q.iter().map(|&x| x as i16).collect() }
    }

    /// Σ qᵢcᵢ over the common length, exactly (the same value as [`dot_i8`]).
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    pub fn dot(&self, c: &[i8]) -> i32 {
        use core::arch::wasm32::*;
        let n = self.wide.len().min(c.len());
        let (q, c) = (&self.wide[..n], &c[..n]);
        let full = n / 16 * 16;
        // Two accumulators: the adds of consecutive chunks do not wait on each other.
        let (mut lo, mut hi) = (i32x4_splat(0), i32x4_splat(0));
        let mut i = 0;
        while i < full {
            // SAFETY: i + 16 <= n for both slices (c: 16 i8, q: 16 i16); v128_load is unaligned.
            unsafe {
                let x = v128_load(c.as_ptr().add(i) as *const v128);
                let q0 = v128_load(q.as_ptr().add(i) as *const v128);
                let q1 = v128_load(q.as_ptr().add(i + 8) as *const v128);
                lo = i32x4_add(lo, i32x4_dot_i16x8(i16x8_extend_low_i8x16(x), q0));
                hi = i32x4_add(hi, i32x4_dot_i16x8(i16x8_extend_high_i8x16(x), q1));
            }
            i += 16;
        }
        let acc = i32x4_add(lo, hi);
        let head = i32x4_extract_lane::<0>(acc) + i32x4_extract_lane::<1>(acc) + i32x4_extract_lane::<2>(acc) + i32x4_extract_lane::<3>(acc);
        head + q[full..].iter().zip(&c[full..]).map(|(&x, &y)| x as i32 * y as i32).sum::<i32>()
    }

    /// Σ qᵢcᵢ over the common length: 32-wide i16 × i16 → i32 lanes (pmaddwd on x86).
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    pub fn dot(&self, c: &[i8]) -> i32 {
        const W: usize = 32;
        let n = self.wide.len().min(c.len());
        let (q, c) = (&self.wide[..n], &c[..n]);
        let mut acc = [0i32; W];
        let mut cq = q.chunks_exact(W);
        let mut cc = c.chunks_exact(W);
        for (x, y) in (&mut cq).zip(&mut cc) {
            for i in 0..W {
                acc[i] += x[i] as i32 * y[i] as i16 as i32;
            }
        }
        let tail: i32 = cq.remainder().iter().zip(cc.remainder()).map(|(&x, &y)| x as i32 * y as i32).sum();
        acc.iter().sum::<i32>() + tail
    }

    /// Cosine estimate against a stored code.
    pub fn cosine(&self, scale: f32, c: &[i8]) -> f32 {
        self.scale * scale * self.dot(c) as f32
    }
}

/// Graph distance: 1 − estimated cosine (instant-distance keeps the smallest). Each call is counted
/// per thread, so a build can measure what a graph search costs without a clock.
impl instant_distance::Point for Code {
    fn distance(&self, other: &Code) -> f32 {
        EVALS.with(|c| c.set(c.get() + 1));
        1.0 - self.cosine(other)
    }
}

thread_local! {
    static EVALS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Graph distance evaluations made on this thread so far.
pub fn distance_evals() -> u64 {
    EVALS.with(|c| c.get())
}

// Stored as (scale, bytes): a byte string is one length prefix plus raw bytes in the graph codec.
impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = self.q.iter().map(|&x| x as u8).collect();
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&self.scale)?;
        t.serialize_element(&Bytes(&bytes))?;
        t.end()
    }
}

struct Bytes<'a>(&'a [u8]);
/// A byte string in the codec (one length prefix, raw bytes).
pub struct ByteString<'a>(pub &'a [u8]);
impl Serialize for ByteString<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}
impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Code, D::Error> {
        struct CodeVisitor;
        impl<'de> Visitor<'de> for CodeVisitor {
            type Value = Code;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an int8 code (scale, bytes)")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Code, A::Error> {
                let scale: f32 = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let bytes: ByteBuf = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
                Ok(Code { scale, q: bytes.0.into_iter().map(|x| x as i8).collect() })
            }
        }
        d.deserialize_tuple(2, CodeVisitor)
    }
}

/// An owned byte string read from the codec.
pub struct OwnedBytes(pub Vec<u8>);
type ByteBuf = OwnedBytes;
impl<'de> Deserialize<'de> for OwnedBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ByteBuf, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OwnedBytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<ByteBuf, E> {
                Ok(OwnedBytes(v.to_vec()))
            }
            fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<ByteBuf, E> {
                Ok(OwnedBytes(v))
            }
        }
        d.deserialize_byte_buf(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int8_dot_matches_scalar_and_cosine_is_close() {
        let a: Vec<i8> = (0i32..389).map(|i| ((i * 37 % 255) - 127) as i8).collect();
        let b: Vec<i8> = (0i32..389).map(|i| ((i * 91 % 255) - 127) as i8).collect();
        let scalar: i32 = a.iter().zip(&b).map(|(&x, &y)| x as i32 * y as i32).sum();
        assert_eq!(dot_i8(&a, &b), scalar);
        assert_eq!(dot_i8(&[-127; 64], &[-127; 64]), 127 * 127 * 64);

        let u: Vec<f32> = (0..384).map(|i| ((i as f32) * 0.37).sin()).collect();
        let w: Vec<f32> = (0..384).map(|i| ((i as f32) * 0.11).cos()).collect();
        let unit = |v: Vec<f32>| {
            let n = dot(&v, &v).sqrt();
            v.into_iter().map(|x| x / n).collect::<Vec<_>>()
        };
        let (u, w) = (unit(u), unit(w));
        let exact = dot(&u, &w);
        assert!((Code::new(&u).cosine(&Code::new(&w)) - exact).abs() < 5e-3);
        assert!((Code::new(&u).cosine(&Code::new(&u)) - 1.0).abs() < 5e-3);
        assert_eq!(Code::new(&[0.0, 0.0]).scale, 0.0);
    }

    #[test]
    fn scan_query_dot_equals_int8_dot_at_every_length() {
        // Lengths around the 16- and 32-lane chunks, extreme codes (−128 can come from storage).
        for n in [0usize, 1, 15, 16, 17, 31, 32, 33, 383, 384, 385] {
            let a: Vec<i8> = (0..n).map(|i| ((i * 37 + 11) % 256) as u8 as i8).collect();
            let b: Vec<i8> = (0..n).map(|i| ((i * 91 + 5) % 256) as u8 as i8).collect();
            let q = ScanQuery::new(&Code { scale: 0.5, q: a.clone().into() });
            assert_eq!(q.dot(&b), dot_i8(&a, &b), "n = {n}");
            let extreme = vec![-128i8; n];
            let qe = ScanQuery::new(&Code { scale: 1.0, q: extreme.clone().into() });
            assert_eq!(qe.dot(&extreme), 128 * 128 * n as i32, "n = {n}");
            assert_eq!(q.cosine(2.0, &b), 0.5 * 2.0 * dot_i8(&a, &b) as f32);
        }
    }
}
