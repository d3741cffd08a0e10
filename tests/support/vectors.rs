//! Seeded synthetic embeddings for the vector-index tests and benchmark: iid gaussian directions
//! (the hard case for HNSW) and mixtures of gaussian clusters on the sphere (closer to real text
//! embeddings, which bunch by topic). Shared by the index's tests (`src/index/vector/tests/`), `tests/persist_vectors.rs` and the native
//! benches.
#![allow(dead_code)]

/// SplitMix64: tiny, seedable, good enough for test data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize % n.max(1)
    }
    /// Standard normal (Box–Muller).
    pub fn gauss(&mut self) -> f32 {
        let u = self.unit().max(1e-300);
        let v = self.unit();
        ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
    }
}

pub fn normalize(mut v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

pub fn random_unit(rng: &mut Rng, dims: usize) -> Vec<f32> {
    normalize((0..dims).map(|_| rng.gauss()).collect())
}

/// `n` uniformly random unit vectors.
pub fn uniform(n: usize, dims: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| random_unit(&mut rng, dims)).collect()
}

/// Cluster centres and per-cluster spreads; `sample` draws a vector from a random cluster.
pub struct Clusters {
    centres: Vec<Vec<f32>>,
    spreads: Vec<f32>,
    rng: Rng,
}

impl Clusters {
    pub fn new(count: usize, dims: usize, seed: u64) -> Clusters {
        let mut rng = Rng::new(seed);
        let centres = (0..count).map(|_| random_unit(&mut rng, dims)).collect();
        // Total noise norm 0.5..1.2 around a unit centre: tight topics and loose ones.
        let spreads = (0..count).map(|_| (0.5 + 0.7 * rng.unit() as f32) / (dims as f32).sqrt()).collect();
        Clusters { centres, spreads, rng }
    }

    pub fn sample(&mut self) -> Vec<f32> {
        let c = self.rng.below(self.centres.len());
        let s = self.spreads[c];
        let v = self.centres[c].iter().map(|x| x + s * self.rng.gauss()).collect();
        normalize(v)
    }

    pub fn many(&mut self, n: usize) -> Vec<Vec<f32>> {
        (0..n).map(|_| self.sample()).collect()
    }
}

/// Brute-force f32 top-k (best first, ties by doc), the oracle for recall.
pub fn exact_top(data: &[(u32, Vec<f32>)], query: &[f32], k: usize, accept: impl Fn(u32) -> bool) -> Vec<(u32, f32)> {
    let mut all: Vec<(u32, f32)> = data.iter().filter(|(d, _)| accept(*d)).map(|(d, v)| (*d, v.iter().zip(query).map(|(a, b)| a * b).sum())).collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    all.truncate(k);
    all
}
