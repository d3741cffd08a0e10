//! Open time of a compacted store, by phase (ignored by default; run optimized):
//! `cargo test --profile bench-native --lib -- --ignored persist_open_time --nocapture`

use super::persist_common;

use std::time::Instant;

use crate::digest::crc32c;
use crate::engine::EngineState;
use crate::model::{Kind, Layer, Memory};
use crate::persist::{export, keys, load, MemoryStorage};
use crate::store::{EventKind, HistoryEvent};
use crate::{EngineOptions, Engram};
use persist_common::*;

fn state(n: usize) -> EngineState {
    let mut r = Rng(n as u64);
    let mut s = EngineState::default();
    for i in 0..n {
        let v: Vec<f32> = (0..384).map(|_| (r.below(2000) as f32 - 1000.0) / 1000.0).collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let id = format!("{:08x}-0000-4000-8000-{:012x}", i, r.next() >> 16);
        let content = format!("memory {i} about topic {} and detail {} with some more words", r.below(500), r.below(5000));
        let at = T0 + i as i64;
        s.history.push(HistoryEvent {
            memory_id: id.clone(),
            event: EventKind::Add,
            at,
            content: Some(content.clone()),
            previous_content: None,
            prompt_id: None,
            related: None,
            reason: None,
        });
        let m = Memory {
            id,
            namespace: "default".into(),
            content,
            kind: Kind::Semantic,
            layer: Layer::Buffer,
            importance: 0.5,
            tags: vec!["t".into()],
            source: None,
            metadata: Default::default(),
            created_at: at,
            modified_at: at,
            last_accessed: at,
            access_count: 0,
            repetition_count: 0,
            event_at: None,
            derived_from: vec![],
            links: vec![],
            ..Default::default()
        };
        s.memories.push((m, Some(v.iter().map(|x| x / norm).collect())));
    }
    s
}

#[test]
#[ignore]
fn open_time_at_10k_and_50k() {
    for n in [10_000, 50_000] {
        let mut engine = Engram::new(Box::new(clock()), EngineOptions::default());
        engine.load_state(state(n)).unwrap();
        let body = export::snapshot_ops(&engine, None).into_bytes();
        let record = crate::persist::record::encode(crate::persist::record::RecordKind::Snapshot, 1, &body);
        let records = vec![(keys::snapshot_key(1), record.clone())];

        let t = Instant::now();
        let crc = crc32c(&record);
        let t_crc = t.elapsed();
        let t = Instant::now();
        let loaded = load::load(records.clone(), load::Damage::Refuse).unwrap();
        let t_decode = t.elapsed();
        let t = Instant::now();
        let mut fresh = Engram::new(Box::new(clock()), EngineOptions::default());
        fresh.load_state_with(loaded.state, loaded.prebuilt).unwrap();
        let t_build = t.elapsed();
        let t = Instant::now();
        let store = open(MemoryStorage::from_records(records), usize::MAX).unwrap();
        let t_open = t.elapsed();
        assert_eq!(store.engine().stats().memories, n);
        println!(
            "{n} memories (384-dim): snapshot {:.1} MB; open {t_open:?} = read+decode+check {t_decode:?} (of it CRC {t_crc:?}) + index build {t_build:?} [{crc:x}]",
            record.len() as f64 / 1e6
        );
    }
}
