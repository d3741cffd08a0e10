//! The body of chunks, snapshots and exports: a sequence of operations, each a tag byte and its
//! fields, until the body ends. A snapshot is the operations that rebuild the state from empty; a
//! chunk, those that turn the previous state into the next. Records (memories, raw entries, history
//! events) are JSON so fields added later load with their defaults; vectors are raw f32 LE bytes.

use super::bytes::{Reader, Writer};
use super::identity::EmbedderIdentity;
use crate::error::{Error, Result};
use crate::model::{Memory, RawEntry};
use crate::store::HistoryEvent;

const RESET: u8 = 1;
const PUT_MEMORY: u8 = 2;
const DELETE_MEMORY: u8 = 3;
const PUT_RAW: u8 = 4;
const DELETE_RAW: u8 = 5;
const HISTORY: u8 = 6;
const EMBEDDER: u8 = 7;

#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Forget every record (the embedder identity stays: it describes the store, not its records).
    Reset,
    /// Insert or replace a memory (by id) with its vector.
    PutMemory(Memory, Option<Vec<f32>>),
    DeleteMemory(String),
    /// Insert or replace a raw entry (by id) with its vector.
    PutRaw(RawEntry, Option<Vec<f32>>),
    DeleteRaw(String),
    /// Append a history event.
    History(HistoryEvent),
    /// The embedder that made the vectors.
    Embedder(EmbedderIdentity),
}

/// Writes operations without copying the records they come from.
#[derive(Default)]
pub struct OpWriter {
    w: Writer,
    count: usize,
}

impl OpWriter {
    pub fn len(&self) -> usize {
        self.count
    }
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    pub fn into_bytes(self) -> Vec<u8> {
        self.w.buf
    }
    fn tag(&mut self, t: u8) {
        self.count += 1;
        self.w.u8(t);
    }
    pub fn reset(&mut self) {
        self.tag(RESET);
    }
    pub fn put_memory(&mut self, m: &Memory, v: Option<&[f32]>) {
        self.tag(PUT_MEMORY);
        self.w.json(m);
        self.w.vector(v);
    }
    pub fn delete_memory(&mut self, id: &str) {
        self.tag(DELETE_MEMORY);
        self.w.str(id);
    }
    pub fn put_raw(&mut self, e: &RawEntry, v: Option<&[f32]>) {
        self.tag(PUT_RAW);
        self.w.json(e);
        self.w.vector(v);
    }
    pub fn delete_raw(&mut self, id: &str) {
        self.tag(DELETE_RAW);
        self.w.str(id);
    }
    pub fn history(&mut self, h: &HistoryEvent) {
        self.tag(HISTORY);
        self.w.json(h);
    }
    pub fn embedder(&mut self, id: &EmbedderIdentity) {
        self.tag(EMBEDDER);
        self.w.str(&id.model);
        self.w.u32(id.dims);
    }
}

/// Decodes every operation of a body; any malformed byte is `Corrupt`.
pub fn decode(body: &[u8]) -> Result<Vec<Op>> {
    let mut r = Reader::new(body);
    let mut ops = Vec::new();
    while !r.is_empty() {
        ops.push(match r.u8()? {
            RESET => Op::Reset,
            PUT_MEMORY => Op::PutMemory(r.json("memory")?, r.vector()?),
            DELETE_MEMORY => Op::DeleteMemory(r.str()?),
            PUT_RAW => Op::PutRaw(r.json("raw entry")?, r.vector()?),
            DELETE_RAW => Op::DeleteRaw(r.str()?),
            HISTORY => Op::History(r.json("history event")?),
            EMBEDDER => Op::Embedder(EmbedderIdentity { model: r.str()?, dims: r.u32()? }),
            t => return Err(Error::corrupt(format!("unknown operation tag {t}"))),
        });
    }
    Ok(ops)
}
