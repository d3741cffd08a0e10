//! The approximate tier: an HNSW graph (instant-distance) over int8 codes, built in one batch from an
//! owned snapshot so the build can run anywhere (another thread, a worker, another instance) while
//! the index keeps answering queries. instant-distance has no insert or delete: the index keeps newer
//! vectors in its exact delta tier and treats replaced or removed points as tombstones until the next
//! build.

use super::quantize::Code;
use crate::error::{Error, Result};
use crate::index::DocId;
use instant_distance::{Hnsw, PointId, Search};
use serde::Deserialize;
use std::sync::Mutex;

/// A built HNSW graph over int8 codes, with the document of each point.
pub struct BuiltGraph {
    dims: usize,
    ef_search: usize,
    docs: Vec<DocId>,
    hnsw: Hnsw<Code>,
    /// Reusable search state (its visited set is as long as the graph); `Mutex` keeps the index `Sync`.
    searches: Mutex<Vec<Search>>,
}

impl std::fmt::Debug for BuiltGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuiltGraph").field("dims", &self.dims).field("points", &self.docs.len()).field("ef_search", &self.ef_search).finish()
    }
}

impl BuiltGraph {
    pub fn len(&self) -> usize {
        self.docs.len()
    }
    // Beside `len` where the graph is exported (through `internals`).
    #[cfg(any(test, feature = "internals"))]
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
    pub fn dims(&self) -> usize {
        self.dims
    }
    pub fn ef_search(&self) -> usize {
        self.ef_search
    }

    /// `pids[i]` is the graph point of the i-th input document (what instant-distance returns).
    pub(super) fn from_build(dims: usize, ef_search: usize, docs: Vec<DocId>, hnsw: Hnsw<Code>, pids: Vec<PointId>) -> BuiltGraph {
        let mut docs_by_point = vec![0; docs.len()];
        for (doc, pid) in docs.into_iter().zip(pids) {
            docs_by_point[pid.into_inner() as usize] = doc;
        }
        BuiltGraph { dims, ef_search, docs: docs_by_point, hnsw, searches: Mutex::new(Vec::new()) }
    }

    /// The document of every point, by point.
    pub fn point_docs(&self) -> &[DocId] {
        &self.docs
    }

    /// The same graph with its points mapped to other documents (`docs[point]`; a document the
    /// owner no longer has can be any id it never uses, such as `DocId::MAX`).
    pub fn with_docs(self, docs: Vec<DocId>) -> Result<BuiltGraph> {
        if docs.len() != self.docs.len() {
            return Err(Error::corrupt("vector graph: document list does not match its points"));
        }
        Ok(BuiltGraph { docs, ..self })
    }

    pub(super) fn doc(&self, point: u32) -> DocId {
        self.docs[point as usize]
    }
    pub(super) fn code(&self, point: u32) -> &Code {
        &self.hnsw[PointId::from(point)]
    }
    /// (point, doc, code) for every point, tombstones included.
    pub(super) fn points(&self) -> impl Iterator<Item = (u32, DocId, &Code)> + '_ {
        self.hnsw.iter().map(move |(pid, code)| (pid.into_inner(), self.docs[pid.into_inner() as usize], code))
    }

    /// Up to `ef_search` nearest points as (point, estimated cosine), nearest first.
    pub(super) fn nearest(&self, query: &Code) -> Vec<(u32, f32)> {
        let mut search = self.searches.lock().ok().and_then(|mut pool| pool.pop()).unwrap_or_default();
        let out = self.hnsw.search(query, &mut search).map(|item| (item.pid.into_inner(), 1.0 - item.distance)).collect();
        if let Ok(mut pool) = self.searches.lock() {
            if pool.len() < 4 {
                pool.push(search);
            }
        }
        out
    }

    /// The same graph answering with `ef` candidates per query. instant-distance keeps `ef_search`
    /// in the graph with no setter, so the graph goes through its own byte form (first field).
    pub(super) fn with_ef_search(self, ef: usize) -> BuiltGraph {
        let mut bytes = super::binary::to_vec(&self.hnsw).expect("graph shapes are all supported by the codec");
        bytes[..8].copy_from_slice(&(ef as u64).to_le_bytes());
        let hnsw = super::binary::from_slice(&bytes).expect("bytes just written read back");
        BuiltGraph { dims: self.dims, ef_search: ef, docs: self.docs, hnsw, searches: Mutex::new(Vec::new()) }
    }

    /// Approximate heap bytes: codes, links (64 ids on layer 0, 32 per upper-layer node), doc map.
    pub fn memory_bytes(&self) -> usize {
        let n = self.docs.len();
        let code = std::mem::size_of::<Code>() + self.dims;
        let upper: usize = self.layer_sizes().iter().skip(1).sum();
        n * (code + 64 * 4 + 4) + upper * 32 * 4
    }

    /// Nodes per layer, bottom first (estimated from instant-distance's layer sizing: mL = 1/ln 32).
    fn layer_sizes(&self) -> Vec<usize> {
        let ml = 1.0 / (32f32).ln();
        let mut sizes = vec![self.docs.len()];
        let mut num = self.docs.len();
        loop {
            let next = (num as f32 * ml) as usize;
            if next < 32 {
                break;
            }
            sizes.push(next);
            num = next;
        }
        sizes
    }

    /// Versioned, checksummed bytes for a persistence layer: `EGVG`, format version, CRC-32 of the
    /// body, body length, then the body (dims, ef, docs, the instant-distance graph).
    pub fn to_bytes(&self) -> Vec<u8> {
        let body = super::binary::to_vec(&(self.dims as u64, self.ef_search as u64, &self.docs, &self.hnsw)).expect("graph shapes are all supported by the codec");
        super::frame::wrap(super::frame::GRAPH_MAGIC, &body)
    }

    /// Reads [`BuiltGraph::to_bytes`] output. Anything malformed — truncation, a bad checksum, an
    /// unknown version, or a graph whose links would point outside it — is a `Corrupt` error.
    pub fn from_bytes(bytes: &[u8]) -> Result<BuiltGraph> {
        let body = super::frame::unwrap(super::frame::GRAPH_MAGIC, bytes, "vector graph")?;
        let corrupt = |e: super::binary::CodecError| Error::corrupt(format!("vector graph: {e}"));
        // Check the structure on a plain mirror first: instant-distance indexes links without
        // bounds checks of its own, so a bad link would panic at query time.
        let mirror: (u64, u64, Vec<DocId>, MirrorHnsw) = super::binary::from_slice(body).map_err(corrupt)?;
        let (dims, ef_search) = validate(&mirror)?;
        let (_, _, docs, hnsw): (u64, u64, Vec<DocId>, Hnsw<Code>) = super::binary::from_slice(body).map_err(corrupt)?;
        Ok(BuiltGraph { dims, ef_search, docs, hnsw, searches: Mutex::new(Vec::new()) })
    }
}

/// Same field order and encoding as instant-distance 0.6's `Hnsw<P>` serde derive.
#[derive(Deserialize)]
struct MirrorHnsw {
    ef_search: u64,
    points: Vec<Code>,
    zero: Vec<Links<64>>,
    layers: Vec<Vec<Links<32>>>,
}

/// One node's neighbour ids (u32::MAX = none), a fixed-size array in the encoding.
struct Links<const N: usize>(Vec<u32>);

impl<'de, const N: usize> Deserialize<'de> for Links<N> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<const N: usize>;
        impl<'de, const N: usize> serde::de::Visitor<'de> for V<N> {
            type Value = Links<N>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "{N} neighbour ids")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Links<N>, A::Error> {
                let mut ids = Vec::with_capacity(N);
                while let Some(id) = seq.next_element::<u32>()? {
                    ids.push(id);
                }
                Ok(Links(ids))
            }
        }
        d.deserialize_tuple(N, V::<N>)
    }
}

const NO_LINK: u32 = u32::MAX;
const EF_SEARCH_MAX: u64 = 1 << 16;
const DIMS_MAX: u64 = 1 << 16;

/// What a search relies on: every link lands inside its layer, each upper layer is a prefix of the
/// one below (point 0, the entry, is on all of them), codes have the graph's dimension and finite
/// scales, and there is one document per point.
fn validate(m: &(u64, u64, Vec<DocId>, MirrorHnsw)) -> Result<(usize, usize)> {
    let (dims, ef, docs, h) = m;
    let bad = |what: &str| Err(Error::corrupt(format!("vector graph: {what}")));
    if *dims == 0 || *dims > DIMS_MAX {
        return bad("dimension out of range");
    }
    if *ef == 0 || *ef > EF_SEARCH_MAX || h.ef_search != *ef {
        return bad("ef_search out of range");
    }
    let n = h.points.len();
    if docs.len() != n || h.zero.len() != n || n >= NO_LINK as usize {
        return bad("point, link and document counts differ");
    }
    if h.points.iter().any(|c| c.q.len() as u64 != *dims || !c.scale.is_finite() || c.scale < 0.0) {
        return bad("a code has the wrong dimension or scale");
    }
    let links_within = |nodes: &[Links<64>], len: usize| nodes.iter().all(|l| l.0.len() == 64 && l.0.iter().all(|&id| id == NO_LINK || (id as usize) < len));
    if !links_within(&h.zero, n) {
        return bad("a link points outside the graph");
    }
    let mut below = n;
    for layer in &h.layers {
        let len = layer.len();
        if len == 0 || len > below || !layer.iter().all(|l| l.0.len() == 32 && l.0.iter().all(|&id| id == NO_LINK || (id as usize) < len)) {
            return bad("an upper layer is malformed");
        }
        below = len;
    }
    if n == 0 && !h.layers.is_empty() {
        return bad("an empty graph has layers");
    }
    Ok((*dims as usize, *ef as usize))
}
