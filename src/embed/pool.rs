//! Token vectors → one sentence vector, as sentence-transformers does for all-MiniLM-L6-v2: the mean of
//! the hidden states of the real (unmasked) tokens, then scaled to unit length so cosine is a dot product.

/// Pools `hidden` (`[rows, seq, dims]`, flat) under `mask` (`[rows, seq]`, 1 = real token).
pub(crate) fn mean_pool_normalized(hidden: &[f32], mask: &[i64], rows: usize, seq: usize, dims: usize) -> Vec<Vec<f32>> {
    (0..rows)
        .map(|r| {
            let mut sum = vec![0f32; dims];
            let mut count = 0f32;
            for t in 0..seq {
                if mask[r * seq + t] == 0 {
                    continue;
                }
                count += 1.0;
                let row = &hidden[(r * seq + t) * dims..(r * seq + t + 1) * dims];
                for (s, h) in sum.iter_mut().zip(row) {
                    *s += h;
                }
            }
            // Same guards as the reference: a floor on the token count and on the norm.
            let count = count.max(1e-9);
            sum.iter_mut().for_each(|s| *s /= count);
            let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
            sum.iter_mut().for_each(|s| *s /= norm);
            sum
        })
        .collect()
}
