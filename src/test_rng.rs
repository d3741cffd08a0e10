//! Deterministic pseudo-random input for unit tests that compare a fast path with a reference on
//! many generated cases (xorshift64: enough to spread inputs, nothing more).

pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value; zero would stay zero, so it is nudged).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A text of up to `max_len` characters drawn from `alphabet`.
    pub fn text(&mut self, alphabet: &[char], max_len: usize) -> String {
        let len = self.below(max_len + 1);
        (0..len).map(|_| alphabet[self.below(alphabet.len())]).collect()
    }
}
