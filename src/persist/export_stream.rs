//! An export file written in slices: the same bytes as [`super::export::export`], handed out a
//! slice at a time so the whole file never sits in memory. The header carries the body's length,
//! so the first slice costs one pass that measures the operations without keeping them; the
//! checksum is carried along and ends the last slice. The engine must not change between slices
//! (the JS facade holds its call queue while a stream is read).

use std::collections::HashSet;

use super::identity::EmbedderIdentity;
use super::ops::OpWriter;
use super::record::{RecordKind, FORMAT_VERSION, HEADER, MAGIC};
use crate::digest::crc32c_extend;
use crate::engine::Engram;

/// Where the next slice starts: the embedder, then memories, raw entries, history, by position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pos {
    Embedder,
    Memories(usize),
    Raw(usize),
    History(usize),
    Trailer,
    Done,
}

pub struct ExportStream {
    namespace: Option<String>,
    identity: Option<EmbedderIdentity>,
    /// For a namespace: the memories exported, whose history goes with them.
    ids: Option<HashSet<String>>,
    pos: Pos,
    started: bool,
    crc: u32,
}

impl ExportStream {
    pub fn new(identity: Option<EmbedderIdentity>, namespace: Option<String>) -> Self {
        ExportStream { namespace, identity, ids: None, pos: Pos::Embedder, started: false, crc: 0 }
    }

    /// The next slice (about `max_bytes`, more when one record is larger), `None` after the last.
    pub fn next_slice(&mut self, engine: &Engram, max_bytes: usize) -> Option<Vec<u8>> {
        if self.pos == Pos::Done {
            return None;
        }
        let mut out = Vec::new();
        if !self.started {
            self.started = true;
            if let Some(ns) = &self.namespace {
                self.ids = Some(engine.memories_with_vectors().filter(|(m, _)| &m.namespace == ns).map(|(m, _)| m.id.clone()).collect());
            }
            let mut len = 0usize;
            let mut at = Pos::Embedder;
            while !matches!(at, Pos::Trailer) {
                let mut w = OpWriter::default();
                at = self.write(engine, at, &mut w, max_bytes);
                len += w.byte_len();
            }
            out.extend_from_slice(MAGIC);
            out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
            out.push(RecordKind::Export as u8);
            out.push(0);
            out.extend_from_slice(&0u64.to_le_bytes());
            out.extend_from_slice(&(len as u32).to_le_bytes());
            debug_assert_eq!(out.len(), HEADER);
        }
        if self.pos != Pos::Trailer {
            let mut w = OpWriter::default();
            self.pos = self.write(engine, self.pos, &mut w, max_bytes);
            out.extend_from_slice(&w.into_bytes());
        }
        self.crc = crc32c_extend(self.crc, &out);
        if self.pos == Pos::Trailer {
            out.extend_from_slice(&self.crc.to_le_bytes());
            self.pos = Pos::Done;
        }
        Some(out)
    }

    /// Writes operations from `at` until `w` holds `max_bytes`; returns where the next ones start.
    fn write(&self, engine: &Engram, mut at: Pos, w: &mut OpWriter, max_bytes: usize) -> Pos {
        let keep = |ns: &str| self.namespace.as_deref().is_none_or(|n| n == ns);
        loop {
            if w.byte_len() >= max_bytes {
                return at;
            }
            at = match at {
                Pos::Embedder => {
                    if let Some(id) = &self.identity {
                        w.embedder(id);
                    }
                    Pos::Memories(0)
                }
                Pos::Memories(from) => {
                    let mut next = Pos::Raw(0);
                    for (i, (m, v)) in engine.memories_with_vectors().enumerate().skip(from) {
                        if w.byte_len() >= max_bytes {
                            next = Pos::Memories(i);
                            break;
                        }
                        if keep(&m.namespace) {
                            w.put_memory(m, v);
                        }
                    }
                    next
                }
                Pos::Raw(from) => {
                    let mut next = Pos::History(0);
                    for (i, (e, v)) in engine.raw_with_vectors().enumerate().skip(from) {
                        if w.byte_len() >= max_bytes {
                            next = Pos::Raw(i);
                            break;
                        }
                        if keep(&e.namespace) {
                            w.put_raw(e, v);
                        }
                    }
                    next
                }
                Pos::History(from) => {
                    let mut next = Pos::Trailer;
                    for (i, h) in engine.history_events().iter().enumerate().skip(from) {
                        if w.byte_len() >= max_bytes {
                            next = Pos::History(i);
                            break;
                        }
                        if self.ids.as_ref().is_none_or(|ids| ids.contains(&h.memory_id)) {
                            w.history(h);
                        }
                    }
                    next
                }
                Pos::Trailer | Pos::Done => return at,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ExportStream;
    use crate::engine::{Engram, NewMemory};
    use crate::host::ManualClock;
    use crate::persist::export::{decode_export, export};
    use crate::persist::EmbedderIdentity;

    fn engine() -> Engram {
        let mut e = Engram::new(Box::new(ManualClock::new(1_700_000_000_000)), Default::default());
        for i in 0..40 {
            let namespace = Some(if i % 3 == 0 { "work" } else { "home" }.to_string());
            e.add(NewMemory { content: format!("fact number {i} about the garden"), namespace, embedding: Some(vec![(i as f32).cos(), (i as f32).sin()]), ..Default::default() })
                .unwrap();
        }
        e
    }

    fn streamed(e: &Engram, identity: Option<EmbedderIdentity>, ns: Option<&str>, max: usize) -> (Vec<u8>, usize) {
        let mut s = ExportStream::new(identity, ns.map(str::to_string));
        let (mut out, mut slices) = (Vec::new(), 0);
        while let Some(slice) = s.next_slice(e, max) {
            out.extend_from_slice(&slice);
            slices += 1;
        }
        (out, slices)
    }

    #[test]
    fn the_slices_are_the_export_file() {
        let e = engine();
        let id = Some(EmbedderIdentity { model: "m".into(), dims: 2 });
        for ns in [None, Some("work")] {
            let whole = export(&e, id.as_ref(), ns);
            for max in [1, 100, 1000, 1 << 20] {
                let (bytes, slices) = streamed(&e, id.clone(), ns, max);
                assert!(bytes == whole, "namespace {ns:?}, slices of {max}");
                if max <= 1000 {
                    assert!(slices > 3, "{slices} slices of {max} bytes for {} bytes", whole.len());
                }
            }
            assert!(decode_export(&whole).is_ok());
        }
    }
}
