//! Opening a store image: which records count. The newest valid snapshot is the base; chunks
//! `base+1, base+2, …` are applied while they are present and valid. A load tolerates exactly what a
//! crash can leave behind — one torn record at the very end (the write in flight), torn snapshots
//! whose chunks are still there, stale records older than the base — and refuses (`Corrupt`)
//! anything that would silently drop committed data: an unreadable record with records after it, a
//! gap in the chunk sequence, a damaged snapshot nothing else covers.

use std::collections::BTreeMap;

use super::graphs;
use super::image::Image;
use super::keys::{self, StoredKey};
use super::ops;
use super::record::{self, RecordKind};
use crate::engine::{EngineState, PersistedSegment, Prebuilt};
use crate::error::{Error, Result};
use crate::host::StorageKey;

use super::identity::EmbedderIdentity;

/// What an image holds and where its sequence stands.
pub struct Loaded {
    pub state: EngineState,
    pub identity: Option<EmbedderIdentity>,
    /// Keyword entries the base snapshot persisted, for the records no chunk changed since.
    pub prebuilt: Prebuilt,
    /// Sequence number of the base snapshot (0 without one).
    pub base: u64,
    /// Last chunk applied (`base` if none).
    pub last: u64,
    /// Size of the base snapshot record.
    pub base_bytes: usize,
    /// Every stored key except the base snapshot (head markers included): removed once a newer
    /// snapshot is written.
    pub obsolete: Vec<StorageKey>,
    /// Graph segments the segment list names (also handed to the engine in `prebuilt`).
    pub segments: Vec<(crate::engine::VectorTarget, u64)>,
    /// Segment keys the list does not name (left by an interrupted install): removed by the next one.
    pub stale_segments: Vec<StorageKey>,
    /// A damaged newest chunk left out because the host allowed it (`Damage::Skip`).
    pub skipped: Vec<Skipped>,
}

/// What to do with a newest chunk that was written whole and then damaged (its checksum fails at
/// its full length). A torn one (cut short by a crash mid-write, never acknowledged) is always
/// left out silently; a damaged one may hold acknowledged writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Damage {
    /// Refuse to open: `Corrupt`, naming the record.
    #[default]
    Refuse,
    /// Open without it and report it (`Loaded::skipped`); the next write replaces it.
    Skip,
}

/// A record a load left out, as reported to the host.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// The storage key, segment by segment.
    pub key: StorageKey,
    /// The chunk's sequence number: the changes of one write call.
    pub seq: u64,
    pub bytes: usize,
    pub reason: String,
}

/// The `Corrupt` error (or, with `Damage::Skip`, the report) for a damaged newest chunk.
pub fn damaged_chunk(key: &StorageKey, seq: u64, bytes: &[u8], damage: Damage) -> Result<Skipped> {
    let reason = format!("chunk {seq} ({} bytes) was written whole but fails its checksum: it was damaged after it was written and may hold acknowledged writes", bytes.len());
    match damage {
        Damage::Refuse => Err(Error::corrupt(format!("{reason}; open with onCorruption to open without it (the report names what is left out)"))),
        Damage::Skip => Ok(Skipped { key: key.clone(), seq, bytes: bytes.len(), reason }),
    }
}

/// The ops of a record whose checksum holds (`None` if it does not: torn or damaged); a record that
/// passes its checksum but does not decode is `Corrupt`.
pub fn read(bytes: &[u8], kind: RecordKind, seq: u64) -> Result<Option<Vec<ops::Op>>> {
    let Ok((stored_seq, body)) = record::decode_kind(bytes, kind) else { return Ok(None) };
    if stored_seq != seq {
        return Err(Error::corrupt(format!("record stored under sequence {seq} says {stored_seq}")));
    }
    ops::decode(body).map(Some)
}

pub fn load(records: Vec<(StorageKey, Vec<u8>)>, damage: Damage) -> Result<Loaded> {
    let mut chunks: BTreeMap<u64, (StorageKey, Vec<u8>)> = BTreeMap::new();
    let mut snapshots: BTreeMap<u64, (StorageKey, Vec<u8>)> = BTreeMap::new();
    let mut segment_values = BTreeMap::new();
    let mut segment_list = None;
    let mut head_markers = Vec::new();
    for (key, bytes) in records {
        match keys::parse(&key) {
            Some(StoredKey::Chunk(seq)) => {
                chunks.insert(seq, (key, bytes));
            }
            Some(StoredKey::Snapshot(seq)) => {
                snapshots.insert(seq, (key, bytes));
            }
            Some(StoredKey::Segment(target, id)) => {
                segment_values.insert((target, id), (key, bytes));
            }
            Some(StoredKey::SegmentList) => segment_list = graphs::decode_list(&bytes),
            Some(StoredKey::HeadMarker(_)) => head_markers.push(key),
            Some(StoredKey::Head) | None => {}
        }
    }
    let mut image = Image::default();
    let mut base = 0;
    let mut base_key = None;
    let mut base_bytes = 0;
    let mut damaged_snapshots = Vec::new();
    for (&seq, (key, bytes)) in snapshots.iter().rev() {
        match read(bytes, RecordKind::Snapshot, seq)? {
            Some(ops) => {
                for op in ops {
                    image.apply(op);
                }
                base = seq;
                base_key = Some(key.clone());
                base_bytes = bytes.len();
                break;
            }
            None => damaged_snapshots.push(seq),
        }
    }
    let mut last = base;
    let mut skipped = Vec::new();
    while let Some((key, bytes)) = chunks.get(&(last + 1)) {
        let Some(ops) = read(bytes, RecordKind::Chunk, last + 1)? else {
            // Only the newest can be left out (with records after it the load fails below).
            if !record::is_torn(bytes) && chunks.range(last + 2..).next().is_none() {
                skipped.push(damaged_chunk(key, last + 1, bytes, damage)?);
            }
            break;
        };
        for op in ops {
            image.apply(op);
        }
        last += 1;
    }
    // What lies beyond the chain may only be the write in flight: one chunk, right after it. A
    // snapshot is always written after the chunks it covers, so a damaged one beyond the chain
    // means lost data, never a torn write.
    let later_chunks: Vec<u64> = chunks.range(last + 1..).map(|(s, _)| *s).collect();
    let torn_tail = matches!(later_chunks.as_slice(), [] | [_]) && later_chunks.first().is_none_or(|&s| s == last + 1);
    let lost_snapshot = damaged_snapshots.iter().any(|&s| s > last);
    if !torn_tail || lost_snapshot {
        return Err(Error::corrupt(format!("the store's records break off after sequence {last}: later records cannot be reached (a record is damaged or missing)")));
    }
    // Head markers go with the next snapshot too: it writes its own first.
    let obsolete = chunks.into_values().chain(snapshots.into_values()).map(|(k, _)| k).filter(|k| Some(k) != base_key.as_ref()).chain(head_markers).collect();
    let (state, identity, mut prebuilt) = image.into_state();
    let listed = segment_list.unwrap_or_default();
    let mut segments = Vec::new();
    for &(target, id) in &listed {
        let Some((_, bytes)) = segment_values.remove(&(target, id)) else { continue };
        if let Some((ids, graph)) = graphs::decode_segment(&bytes) {
            prebuilt.vector_segments.push(PersistedSegment { target, id, ids, graph: graph.to_vec() });
            segments.push((target, id));
        }
    }
    let stale_segments = segment_values.into_values().map(|(k, _)| k).collect();
    Ok(Loaded { state, identity, prebuilt, base, last, base_bytes, obsolete, segments, stale_segments, skipped })
}
