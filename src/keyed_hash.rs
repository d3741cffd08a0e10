//! The hasher of the in-memory maps keyed by text (vocabulary terms, memory ids, content digests):
//! foldhash keyed by a per-process seed from the OS. Those maps are looked up on every write, where
//! SipHash cost more than the rest of the lookup; a key the writer of stored text cannot know keeps
//! crafted collisions out of reach all the same.

/// A `BuildHasher` for `HashMap`/`HashSet`, all sharing this process's key.
#[derive(Clone, Debug)]
pub struct KeyedState(foldhash::fast::FixedState);

impl Default for KeyedState {
    fn default() -> Self {
        static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
        let seed = *SEED.get_or_init(|| {
            let mut b = [0u8; 8];
            // Without an OS source the maps still work; their key is then only less secret.
            getrandom::getrandom(&mut b).map_or(0x243F_6A88_85A3_08D3, |()| u64::from_le_bytes(b))
        });
        KeyedState(foldhash::fast::FixedState::with_seed(seed))
    }
}

impl std::hash::BuildHasher for KeyedState {
    type Hasher = <foldhash::fast::FixedState as std::hash::BuildHasher>::Hasher;
    fn build_hasher(&self) -> Self::Hasher {
        self.0.build_hasher()
    }
}
