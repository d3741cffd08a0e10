//! The memory lifecycle: what one consolidation epoch does to a namespace, as rules and numbers.
//! The engine applies them (`engine/consolidate.rs`); the LLM prompts they use live in
//! `llm/consolidate.rs`. Everything here is pure.
//!
//! - `decay`: importance by kind per epoch, derived on read from the epochs since it was set.
//! - `similar`: near-duplicate and same-topic pairs (vector, or lexical without vectors) and when a
//!   pair is the same fact in other words.
//! - `report`: what a run did, planned or applied.

pub(crate) mod decay;
pub mod report;
pub(crate) mod similar;

use crate::model::{Kind, Layer, Memory};
use crate::recall::score::REPETITION_WEIGHT;

/// Buffer memories kept per namespace; the lowest weighted beyond it are evicted each epoch.
pub(crate) const BUFFER_CAP_DEFAULT: usize = 200;
/// Reinforcement (access + 2.5 × repetition) that lifts a buffer memory to working.
pub(crate) const BUFFER_PROMOTE_SCORE: f64 = 5.0;
/// Epochs after which procedural memories and lessons leave the buffer on their own.
pub(crate) const PROCEDURAL_PROMOTE_EPOCHS: u64 = 4;
/// Working → core candidates: reinforcement at least this and importance at least `CORE_MIN_IMPORTANCE`…
pub(crate) const CORE_PROMOTE_SCORE: f64 = 3.0;
pub(crate) const CORE_MIN_IMPORTANCE: f64 = 0.6;
/// …or this many epochs in working with some reinforcement and that importance.
pub(crate) const CORE_AGE_EPOCHS: u64 = 48;
/// Gate cooldowns after the first and second rejection, in epochs; the third is final.
pub(crate) const GATE_COOLDOWNS: [u64; 2] = [48, 144];
pub(crate) const GATE_REJECTIONS_FINAL: u32 = 3;
/// Buffer memories one triage call decides (one call per namespace per epoch).
pub(crate) const TRIAGE_BATCH: usize = 20;
/// Gate candidates per call, and calls per epoch.
pub(crate) const GATE_BATCH: usize = 10;
pub(crate) const GATE_CALLS_MAX: usize = 2;
/// Pairs per merge / reconcile call, and calls of each per epoch.
pub(crate) const PAIR_BATCH: usize = 10;
pub(crate) const PAIR_CALLS_MAX: usize = 4;
/// Memories compared with their namespace per epoch (each once in its life): bounds an epoch's
/// similarity work by a constant, not by the store's size.
pub(crate) const MERGE_SCAN_PER_EPOCH: usize = 400;
/// Distillation: session-derived memories of a namespace older than this many epochs, at least
/// `DISTILL_MIN` of them, are summarized into one episodic memory; at most `DISTILL_CALLS_MAX` per epoch.
pub(crate) const DISTILL_AGE_EPOCHS: u64 = 8;
pub(crate) const DISTILL_MIN: usize = 3;
pub(crate) const DISTILL_GROUP_MAX: usize = 10;
pub(crate) const DISTILL_CALLS_MAX: usize = 2;
/// The tag a distilled memory carries (it never reaches core: a summary of sessions is volatile).
pub(crate) const DISTILLED_TAG: &str = "auto-distilled";
/// The tag that marks a lesson (promoted after `PROCEDURAL_PROMOTE_EPOCHS` like procedures).
pub(crate) const LESSON_TAG: &str = "lesson";

/// access + 2.5 × repetition: how often a memory was used or said again.
pub(crate) fn reinforcement_score(m: &Memory) -> f64 {
    f64::from(m.access_count) + REPETITION_WEIGHT * f64::from(m.repetition_count)
}

/// The id a namespace's epoch events are logged under (`history("epoch:<namespace>")`); memory ids
/// are UUIDs, so it names no memory.
pub(crate) fn epoch_id(namespace: &str) -> String {
    format!("epoch:{namespace}")
}

/// Whether consolidation may lift a buffer memory to working without a judge.
pub(crate) fn mechanical_promotion(m: &Memory, epoch: u64) -> Option<&'static str> {
    if m.layer != Layer::Buffer {
        return None;
    }
    if reinforcement_score(m) >= BUFFER_PROMOTE_SCORE {
        return Some("reinforced: access + 2.5 × repetition ≥ 5");
    }
    let lasting = m.kind == Kind::Procedural || m.tags.iter().any(|t| t == LESSON_TAG);
    if lasting && epoch.saturating_sub(m.lifecycle.layer_epoch) >= PROCEDURAL_PROMOTE_EPOCHS && !m.tags.iter().any(|t| t == DISTILLED_TAG) {
        return Some("procedure or lesson held for 4 epochs");
    }
    None
}

/// Whether a working memory is a candidate for the core gate now.
pub(crate) fn core_candidate(m: &Memory, epoch: u64, importance: f64) -> bool {
    if m.layer != Layer::Working || m.tags.iter().any(|t| t == DISTILLED_TAG) {
        return false;
    }
    if m.lifecycle.gate_rejections >= GATE_REJECTIONS_FINAL || m.lifecycle.gate_retry_epoch.is_some_and(|e| epoch < e) {
        return false;
    }
    let score = reinforcement_score(m);
    importance >= CORE_MIN_IMPORTANCE && (score >= CORE_PROMOTE_SCORE || (score > 0.0 && epoch.saturating_sub(m.lifecycle.layer_epoch) >= CORE_AGE_EPOCHS))
}

/// The epoch a rejected memory may be offered to the gate again (`None`: never).
pub(crate) fn gate_retry(rejections: u32, epoch: u64) -> Option<u64> {
    GATE_COOLDOWNS.get(rejections.saturating_sub(1) as usize).map(|c| epoch + c)
}
