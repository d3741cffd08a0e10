//! Integer matrix product for the model's int8 linear layers: `X · (W_q ⊙ s)` computed as
//! `(X_q · W_q) ⊙ (a ⊗ s)` with 32-bit integer accumulation.
//!
//! The export stores every linear weight as int8 `W_q[k, n]` with one f32 scale per output column
//! `s[n]`. Left to itself, tract folds `f32(W_q) · s` into an f32 matrix at load, so each product reads
//! four bytes per weight and does one f32 multiply-add per lane. Here the weights stay integers and each
//! row of activations is quantized on the fly to 16 bits with its own scale `a[m]`, so the inner loop is a
//! pairwise 16×16→32 bit multiply-add (`i32x4.dot_i16x8_s` in wasm simd128, `pmaddwd` on x86-64): twice
//! the multiply-adds per instruction of the f32 path, and half the weight memory.
//!
//! Exactness: the integer sum is exact, so the only error is rounding each activation to a 16-bit grid
//! (at most `max|x| / 2·qmax` per element; `qmax` is 32,767 unless a column's Σ|w| is so large that a sum
//! could overflow 32 bits). The integer sums are exact, so every target gets the same sums from the same
//! grid; what differs between native and wasm is the float input to the grid (see docs/ARCHITECTURE.md).
//!
//! Layout: columns are packed in panels of [`PANEL`]; within a panel, row pair `j` of `W_q` holds
//! `[c0·k0, c0·k1, c1·k0, c1·k1, …]` as i16, which is what a pairwise multiply-add against a broadcast
//! `(x[k0], x[k1])` consumes.

/// Output columns per packed panel: two 4-lane vectors.
const PANEL: usize = 8;
/// Activation rows per tile.
const ROWS: usize = 4;

/// A linear layer's int8 weights, packed for [`matmul`].
pub(crate) struct PackedWeights {
    /// Input width (rows of `W`).
    pub k: usize,
    /// Output width (columns of `W`).
    pub n: usize,
    /// Row pairs, `ceil(k / 2)`.
    pairs: usize,
    /// Panels of `2·PANEL` i16 per row pair.
    panels: Vec<i16>,
    /// Per-column scales, zero-padded to a whole panel.
    scales: Vec<f32>,
    /// Largest quantized activation magnitude that keeps every 32-bit sum from overflowing.
    act_max: f32,
}

impl std::fmt::Debug for PackedWeights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PackedWeights({}×{})", self.k, self.n)
    }
}

impl PackedWeights {
    /// Packs row-major `q[k·n]` with per-column `scales[n]`. `None` when the sizes do not agree.
    pub fn new(q: &[i8], k: usize, n: usize, scales: &[f32]) -> Option<PackedWeights> {
        if k == 0 || n == 0 || q.len() != k.checked_mul(n)? || scales.len() != n {
            return None;
        }
        let pairs = k.div_ceil(2);
        let panel_count = n.div_ceil(PANEL);
        let mut panels = vec![0i16; panel_count * pairs * 2 * PANEL];
        for row in 0..k {
            let (pair, half) = (row / 2, row % 2);
            for col in 0..n {
                let (panel, lane) = (col / PANEL, col % PANEL);
                panels[(panel * pairs + pair) * 2 * PANEL + lane * 2 + half] = q[row * n + col] as i16;
            }
        }
        let mut padded = scales.to_vec();
        padded.resize(panel_count * PANEL, 0.0);
        Some(PackedWeights { k, n, pairs, panels, scales: padded, act_max: activation_bound(q, n) })
    }
}

/// The largest activation magnitude on the 16-bit grid such that no 32-bit sum can overflow: a column's
/// sum, and every partial sum of it, is at most `act_max · Σ_k |w[k, c]|`. Bounding by the heaviest
/// column's actual Σ|w| rather than the worst case `k · 128` gives wide layers the full grid (MiniLM's
/// 1,536-wide down-projection would otherwise be held to 10,922 levels).
fn activation_bound(q: &[i8], n: usize) -> f32 {
    let mut column_sums = vec![0i64; n];
    for row in q.chunks_exact(n) {
        for (sum, &w) in column_sums.iter_mut().zip(row) {
            *sum += (w as i64).abs();
        }
    }
    let heaviest = column_sums.into_iter().max().unwrap_or(0).max(1);
    ((i32::MAX as i64) / heaviest).min(i16::MAX as i64) as f32
}

/// Rows of activations quantized to 16 bits, each as `pairs` little-endian `(x[2j], x[2j+1])` words.
struct QuantizedRows {
    words: Vec<i32>,
    scales: Vec<f32>,
}

fn quantize_rows(x: &[f32], rows: usize, w: &PackedWeights) -> QuantizedRows {
    let mut words = vec![0i32; rows * w.pairs];
    let mut scales = vec![0f32; rows];
    let mut grid = vec![0i16; w.pairs * 2];
    for r in 0..rows {
        let row = &x[r * w.k..(r + 1) * w.k];
        let (peak, finite) = row.iter().fold((0f32, true), |(m, ok), v| (m.max(v.abs()), ok && v.is_finite()));
        // Non-finite activations cannot be put on a grid: the row's outputs become NaN, as the float
        // product's would, instead of hiding the failure.
        if !finite {
            scales[r] = f32::NAN;
            continue;
        }
        if peak == 0.0 {
            continue;
        }
        let step = peak / w.act_max;
        let inv = w.act_max / peak;
        for (g, v) in grid.iter_mut().zip(row) {
            *g = round_to_int(v * inv);
        }
        for (j, word) in words[r * w.pairs..(r + 1) * w.pairs].iter_mut().enumerate() {
            *word = (grid[2 * j] as u16 as u32 | (grid[2 * j + 1] as u16 as u32) << 16) as i32;
        }
        scales[r] = step;
    }
    QuantizedRows { words, scales }
}

/// Rounds `|t| ≤ 32767` to the nearest integer, ties to even. Adding and removing 1.5·2²³ leaves no
/// fraction bits, so the float unit does the rounding: two additions instead of a `roundf` call (x86-64
/// has no rounding instruction before SSE4.1), and the same result on every target.
#[inline(always)]
fn round_to_int(t: f32) -> i16 {
    const SHIFT: f32 = 12_582_912.0;
    ((t + SHIFT) - SHIFT) as i16
}

/// `out[rows·n] = x[rows·k] · (W_q ⊙ s)`, both row-major.
pub(crate) fn matmul(x: &[f32], rows: usize, w: &PackedWeights, out: &mut [f32]) {
    assert_eq!(x.len(), rows * w.k, "activation size");
    assert_eq!(out.len(), rows * w.n, "output size");
    let q = quantize_rows(x, rows, w);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return run::<simd::Wasm>(&q, rows, w, out);
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            return run::<simd::Avx2>(&q, rows, w, out);
        }
        return run::<simd::Sse2>(&q, rows, w, out);
    }
    #[allow(unreachable_code)]
    run::<simd::Portable>(&q, rows, w, out)
}

fn run<L: simd::Lanes>(q: &QuantizedRows, rows: usize, w: &PackedWeights, out: &mut [f32]) {
    let panel_len = w.pairs * 2 * PANEL;
    let mut r = 0;
    while r < rows {
        let take = (rows - r).min(ROWS);
        // A short last tile repeats its final row; the repeats are computed and dropped.
        let a: [&[i32]; ROWS] = std::array::from_fn(|i| {
            let row = r + i.min(take - 1);
            &q.words[row * w.pairs..(row + 1) * w.pairs]
        });
        for (p, panel) in w.panels.chunks_exact(panel_len).enumerate() {
            let mut tile = [[0f32; PANEL]; ROWS];
            // SAFETY: `a` rows hold `pairs` words and `panel` holds `pairs · 2 · PANEL` i16, which is
            // what `tile` reads; the target features each backend needs are checked at compile time.
            unsafe { L::tile(&a, panel, &w.scales[p * PANEL..(p + 1) * PANEL], &mut tile) };
            let cols = (w.n - p * PANEL).min(PANEL);
            for (i, t) in tile.iter().enumerate().take(take) {
                let row = r + i;
                let scale = q.scales[row];
                let dst = &mut out[row * w.n + p * PANEL..row * w.n + p * PANEL + cols];
                for (d, v) in dst.iter_mut().zip(t) {
                    *d = v * scale;
                }
            }
        }
        r += take;
    }
}

mod simd {
    use super::{PANEL, ROWS};

    /// One backend of the tile kernel: `tile[i][c] = Σ_j dot(a[i][j], panel[j][c]) · scales[c]`.
    pub(super) trait Lanes {
        /// # Safety
        /// Each `a[i]` has `pairs` words, `panel` has `pairs · 2 · PANEL` values, `scales` has `PANEL`.
        unsafe fn tile(a: &[&[i32]; ROWS], panel: &[i16], scales: &[f32], tile: &mut [[f32; PANEL]; ROWS]);
    }

    /// Reference semantics, used where no SIMD backend applies.
    #[allow(dead_code)]
    pub(super) struct Portable;

    impl Lanes for Portable {
        unsafe fn tile(a: &[&[i32]; ROWS], panel: &[i16], scales: &[f32], tile: &mut [[f32; PANEL]; ROWS]) {
            for (i, row) in a.iter().enumerate() {
                let mut acc = [0i32; PANEL];
                for (j, &word) in row.iter().enumerate() {
                    let (x0, x1) = (word as i16 as i32, (word >> 16) as i16 as i32);
                    let w = &panel[j * 2 * PANEL..(j + 1) * 2 * PANEL];
                    for (c, acc) in acc.iter_mut().enumerate() {
                        *acc += x0 * w[2 * c] as i32 + x1 * w[2 * c + 1] as i32;
                    }
                }
                for c in 0..PANEL {
                    tile[i][c] = acc[c] as f32 * scales[c];
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    pub(super) struct Sse2;

    #[cfg(target_arch = "x86_64")]
    impl Lanes for Sse2 {
        // SSE2 is part of the x86-64 baseline, so no runtime check is needed.
        #[inline(always)]
        unsafe fn tile(a: &[&[i32]; ROWS], panel: &[i16], scales: &[f32], tile: &mut [[f32; PANEL]; ROWS]) {
            use std::arch::x86_64::*;
            let pairs = a[0].len();
            let mut acc = [[_mm_setzero_si128(); 2]; ROWS];
            let mut w = panel.as_ptr() as *const __m128i;
            for j in 0..pairs {
                let w0 = _mm_loadu_si128(w);
                let w1 = _mm_loadu_si128(w.add(1));
                w = w.add(2);
                for i in 0..ROWS {
                    let x = _mm_set1_epi32(*a[i].get_unchecked(j));
                    acc[i][0] = _mm_add_epi32(acc[i][0], _mm_madd_epi16(x, w0));
                    acc[i][1] = _mm_add_epi32(acc[i][1], _mm_madd_epi16(x, w1));
                }
            }
            let s0 = _mm_loadu_ps(scales.as_ptr());
            let s1 = _mm_loadu_ps(scales.as_ptr().add(4));
            for i in 0..ROWS {
                _mm_storeu_ps(tile[i].as_mut_ptr(), _mm_mul_ps(_mm_cvtepi32_ps(acc[i][0]), s0));
                _mm_storeu_ps(tile[i].as_mut_ptr().add(4), _mm_mul_ps(_mm_cvtepi32_ps(acc[i][1]), s1));
            }
        }
    }

    /// Twice SSE2's width: one 256-bit multiply-add covers a whole panel. Chosen at run time; the
    /// integer sums, hence the results, are the same as every other backend's.
    #[cfg(target_arch = "x86_64")]
    pub(super) struct Avx2;

    #[cfg(target_arch = "x86_64")]
    impl Lanes for Avx2 {
        #[target_feature(enable = "avx2")]
        unsafe fn tile(a: &[&[i32]; ROWS], panel: &[i16], scales: &[f32], tile: &mut [[f32; PANEL]; ROWS]) {
            use std::arch::x86_64::*;
            let pairs = a[0].len();
            let mut acc = [_mm256_setzero_si256(); ROWS];
            let mut w = panel.as_ptr() as *const __m256i;
            for j in 0..pairs {
                let wj = _mm256_loadu_si256(w);
                w = w.add(1);
                for i in 0..ROWS {
                    let x = _mm256_set1_epi32(*a[i].get_unchecked(j));
                    acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(x, wj));
                }
            }
            let s = _mm256_loadu_ps(scales.as_ptr());
            for i in 0..ROWS {
                _mm256_storeu_ps(tile[i].as_mut_ptr(), _mm256_mul_ps(_mm256_cvtepi32_ps(acc[i]), s));
            }
        }
    }

    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    pub(super) struct Wasm;

    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    impl Lanes for Wasm {
        #[inline(always)]
        unsafe fn tile(a: &[&[i32]; ROWS], panel: &[i16], scales: &[f32], tile: &mut [[f32; PANEL]; ROWS]) {
            use std::arch::wasm32::*;
            let pairs = a[0].len();
            let mut acc = [[i32x4_splat(0); 2]; ROWS];
            let mut w = panel.as_ptr() as *const v128;
            for j in 0..pairs {
                let w0 = v128_load(w);
                let w1 = v128_load(w.add(1));
                w = w.add(2);
                for i in 0..ROWS {
                    let x = i32x4_splat(*a[i].get_unchecked(j));
                    acc[i][0] = i32x4_add(acc[i][0], i32x4_dot_i16x8(x, w0));
                    acc[i][1] = i32x4_add(acc[i][1], i32x4_dot_i16x8(x, w1));
                }
            }
            let s0 = v128_load(scales.as_ptr() as *const v128);
            let s1 = v128_load(scales.as_ptr().add(4) as *const v128);
            for i in 0..ROWS {
                v128_store(tile[i].as_mut_ptr() as *mut v128, f32x4_mul(f32x4_convert_i32x4(acc[i][0]), s0));
                v128_store(tile[i].as_mut_ptr().add(4) as *mut v128, f32x4_mul(f32x4_convert_i32x4(acc[i][1]), s1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(x: &[f32], rows: usize, q: &[i8], k: usize, n: usize, s: &[f32]) -> Vec<f32> {
        let mut out = vec![0f32; rows * n];
        for r in 0..rows {
            for c in 0..n {
                out[r * n + c] = (0..k).map(|i| x[r * k + i] as f64 * q[i * n + c] as f64 * s[c] as f64).sum::<f64>() as f32;
            }
        }
        out
    }

    fn lcg(seed: &mut u64) -> f32 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((*seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    #[test]
    fn matches_float_product_for_odd_shapes_and_outliers() {
        let mut seed = 7;
        for &(rows, k, n) in &[(1, 1, 1), (3, 5, 7), (4, 384, 384), (9, 1536, 20), (13, 33, 9)] {
            let q: Vec<i8> = (0..k * n).map(|_| (lcg(&mut seed) * 128.0).clamp(-128.0, 127.0) as i8).collect();
            let s: Vec<f32> = (0..n).map(|_| 0.001 + lcg(&mut seed).abs() * 0.01).collect();
            let mut x: Vec<f32> = (0..rows * k).map(|_| lcg(&mut seed)).collect();
            x[0] = 25.0; // an outlier, as LayerNorm outputs have
            let w = PackedWeights::new(&q, k, n, &s).unwrap();
            let mut out = vec![f32::NAN; rows * n];
            matmul(&x, rows, &w, &mut out);
            let want = reference(&x, rows, &q, k, n, &s);
            for r in 0..rows {
                let row = &x[r * k..(r + 1) * k];
                let peak = row.iter().fold(0f32, |m, v| m.max(v.abs()));
                // Error bound: half a grid step per activation, times Σ|w|.
                for c in 0..n {
                    let wsum: f32 = (0..k).map(|i| (q[i * n + c] as f32 * s[c]).abs()).sum();
                    let bound = peak / w.act_max * 0.5 * wsum + 1e-5;
                    let (got, exp) = (out[r * n + c], want[r * n + c]);
                    assert!((got - exp).abs() <= bound, "{rows}×{k}×{n} [{r},{c}]: {got} vs {exp} (bound {bound})");
                }
            }
        }
    }

    #[test]
    fn simd_backend_equals_portable() {
        let mut seed = 11;
        let (rows, k, n) = (6, 97, 24);
        let q: Vec<i8> = (0..k * n).map(|_| (lcg(&mut seed) * 128.0).clamp(-128.0, 127.0) as i8).collect();
        let s: Vec<f32> = (0..n).map(|_| 0.01 + lcg(&mut seed).abs()).collect();
        let x: Vec<f32> = (0..rows * k).map(|_| lcg(&mut seed) * 3.0).collect();
        let w = PackedWeights::new(&q, k, n, &s).unwrap();
        let mut fast = vec![0f32; rows * n];
        matmul(&x, rows, &w, &mut fast);
        let mut slow = vec![0f32; rows * n];
        run::<simd::Portable>(&quantize_rows(&x, rows, &w), rows, &w, &mut slow);
        assert_eq!(fast, slow);
    }

    #[test]
    fn extreme_weights_and_activations_do_not_overflow() {
        let (rows, k, n) = (2, 1536, 8);
        let q = vec![-128i8; k * n];
        let s = vec![1.0f32; n];
        let x = vec![-1.0f32; rows * k];
        let w = PackedWeights::new(&q, k, n, &s).unwrap();
        let mut out = vec![0f32; rows * n];
        matmul(&x, rows, &w, &mut out);
        assert!(out.iter().all(|&v| (v - 128.0 * k as f32).abs() < 1e-2 * k as f32), "{out:?}");
    }

    #[test]
    fn wide_layers_get_the_full_grid_unless_a_column_could_overflow() {
        let k = 1536;
        // Typical trained weights: |w| well below 128 on average, so the full 16-bit grid is safe.
        let mut seed = 5;
        let typical: Vec<i8> = (0..k * 3).map(|_| (lcg(&mut seed) * 40.0) as i8).collect();
        assert_eq!(PackedWeights::new(&typical, k, 3, &[1.0; 3]).unwrap().act_max, 32767.0);
        // One saturated column bounds the grid for the whole layer.
        let mut heavy = typical.clone();
        for row in 0..k {
            heavy[row * 3 + 1] = -128;
        }
        let w = PackedWeights::new(&heavy, k, 3, &[1.0; 3]).unwrap();
        assert_eq!(w.act_max, (i32::MAX as i64 / (128 * k as i64)) as f32);
        let x = vec![-1.0f32; k];
        let mut out = vec![0f32; 3];
        matmul(&x, 1, &w, &mut out);
        assert!((out[1] - 128.0 * k as f32).abs() < 1e-2 * k as f32, "{out:?}");
    }

    #[test]
    fn zero_rows_give_zero_and_non_finite_rows_give_nan() {
        let w = PackedWeights::new(&[1, 2, 3, 4], 2, 2, &[1.0, 1.0]).unwrap();
        let mut out = vec![9f32; 4];
        matmul(&[0.0, 0.0, f32::NAN, 1.0], 2, &w, &mut out);
        assert_eq!(&out[..2], &[0.0, 0.0]);
        assert!(out[2..].iter().all(|v| v.is_nan()), "{out:?}");
    }

    #[test]
    fn rounding_is_to_nearest_with_ties_to_even() {
        for (t, want) in [(0.4999999, 0), (0.5, 0), (1.5, 2), (2.5, 2), (-0.5, 0), (-1.5, -2), (-2.6, -3), (32767.0, 32767)] {
            assert_eq!(round_to_int(t), want, "{t}");
        }
    }

    #[test]
    fn rejects_mismatched_sizes() {
        assert!(PackedWeights::new(&[1, 2, 3], 2, 2, &[1.0, 1.0]).is_none());
        assert!(PackedWeights::new(&[1, 2, 3, 4], 2, 2, &[1.0]).is_none());
        assert!(PackedWeights::new(&[], 0, 0, &[]).is_none());
    }
}
