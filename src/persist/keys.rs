//! The storage key layout, in one place. Everything a store writes lives under `["engram", …]`:
//!
//! - `["engram", "chunk", <seq, 20 digits>]`: one write's records (the chain);
//! - `["engram", "snapshot", <seq, 20 digits>]`: the whole state as of chunk `seq`;
//! - `["engram", "head"]`: the newest snapshot's sequence (a hint for other writers, never for load);
//! - `["engram", "vgraph", <memories|raw>, <id, 16 hex digits>]`: one vector graph segment;
//! - `["engram", "vgraphs"]`: the list of current graph segments.
//!
//! Sequence numbers are zero-padded so that a key range lists records in sequence order.

use crate::engine::VectorTarget;
use crate::host::StorageKey;

pub const ROOT: &str = "engram";
const CHUNK: &str = "chunk";
const SNAPSHOT: &str = "snapshot";
const HEAD: &str = "head";
const SEGMENT: &str = "vgraph";
const SEGMENT_LIST: &str = "vgraphs";

/// What a key under [`ROOT`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoredKey {
    Chunk(u64),
    Snapshot(u64),
    Head,
    Segment(VectorTarget, u64),
    SegmentList,
}

/// The prefix every key of a store starts with.
pub fn root() -> StorageKey {
    vec![ROOT.to_string()]
}

pub fn chunk_key(seq: u64) -> StorageKey {
    vec![ROOT.to_string(), CHUNK.to_string(), format!("{seq:020}")]
}

pub fn snapshot_key(seq: u64) -> StorageKey {
    vec![ROOT.to_string(), SNAPSHOT.to_string(), format!("{seq:020}")]
}

pub fn head_key() -> StorageKey {
    vec![ROOT.to_string(), HEAD.to_string()]
}

pub fn segment_key(target: VectorTarget, id: u64) -> StorageKey {
    vec![ROOT.to_string(), SEGMENT.to_string(), target.as_str().to_string(), format!("{id:016x}")]
}

pub fn segment_list_key() -> StorageKey {
    vec![ROOT.to_string(), SEGMENT_LIST.to_string()]
}

/// What `key` names; `None` for a key this layer never writes (left alone on load).
pub fn parse(key: &[String]) -> Option<StoredKey> {
    match key {
        [root, kind] if root == ROOT => match kind.as_str() {
            HEAD => Some(StoredKey::Head),
            SEGMENT_LIST => Some(StoredKey::SegmentList),
            _ => None,
        },
        [root, kind, seq] if root == ROOT => {
            if seq.len() != 20 || !seq.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let seq = seq.parse().ok()?;
            match kind.as_str() {
                CHUNK => Some(StoredKey::Chunk(seq)),
                SNAPSHOT => Some(StoredKey::Snapshot(seq)),
                _ => None,
            }
        }
        [root, kind, target, id] if root == ROOT && kind == SEGMENT && id.len() == 16 => Some(StoredKey::Segment(VectorTarget::parse(target)?, u64::from_str_radix(id, 16).ok()?)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_parses_back_and_foreign_keys_do_not() {
        assert_eq!(parse(&chunk_key(7)), Some(StoredKey::Chunk(7)));
        assert_eq!(parse(&snapshot_key(u64::MAX)), Some(StoredKey::Snapshot(u64::MAX)));
        assert_eq!(parse(&head_key()), Some(StoredKey::Head));
        assert_eq!(parse(&segment_key(VectorTarget::Raw, 0xabc)), Some(StoredKey::Segment(VectorTarget::Raw, 0xabc)));
        assert_eq!(parse(&segment_list_key()), Some(StoredKey::SegmentList));
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(parse(&s(&["engram", "chunk", "7"])), None);
        assert_eq!(parse(&s(&["other", "chunk", "00000000000000000007"])), None);
        assert_eq!(parse(&s(&["engram", "vgraph", "neither", "0000000000000abc"])), None);
        assert_eq!(parse(&s(&["engram", "notes"])), None);
        // Zero padding keeps key order equal to sequence order.
        assert!(chunk_key(9) < chunk_key(10));
    }
}
