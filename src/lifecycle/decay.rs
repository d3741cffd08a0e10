//! Importance decay per consolidation epoch, never per wall-clock: idle time costs nothing. A
//! memory's stored importance is the value set at `lifecycle.decayEpoch`; what it is worth now is
//! derived from the epochs its namespace has run since, so an epoch writes one event, not one record
//! per memory.

use crate::model::{Kind, Memory, Pin};

/// Importance never decays below this; buffer memories that reach it are evicted.
pub const FLOOR: f64 = 0.01;

/// The factor one epoch multiplies importance by.
pub fn factor(kind: Kind) -> f64 {
    match kind {
        Kind::Episodic => 0.98,
        Kind::Semantic => 0.988,
        Kind::Procedural => 0.996,
    }
}

/// `importance` after `epochs` epochs of decay: exponential, floored; at or under the floor already,
/// it stays as set.
pub fn decayed(importance: f64, kind: Kind, epochs: u64) -> f64 {
    if importance <= FLOOR || epochs == 0 {
        return importance;
    }
    let e = i32::try_from(epochs).unwrap_or(i32::MAX);
    (importance * factor(kind).powi(e)).max(FLOOR)
}

/// A memory's importance at namespace epoch `epoch`. Pinned memories do not decay.
pub fn current_importance(m: &Memory, epoch: u64) -> f64 {
    if m.pin == Pin::Pinned {
        return m.importance;
    }
    decayed(m.importance, m.kind, epoch.saturating_sub(m.lifecycle.decay_epoch))
}

/// Whether decay has taken it to the floor (a buffer memory there is evicted).
pub fn at_floor(m: &Memory, epoch: u64) -> bool {
    m.pin != Pin::Pinned && current_importance(m, epoch) <= FLOOR
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decay_is_per_epoch_by_kind_with_a_floor() {
        assert_eq!(decayed(0.5, Kind::Episodic, 0), 0.5);
        assert!((decayed(0.5, Kind::Episodic, 1) - 0.49).abs() < 1e-12);
        assert!((decayed(0.5, Kind::Semantic, 1) - 0.494).abs() < 1e-12);
        assert!((decayed(0.5, Kind::Procedural, 1) - 0.498).abs() < 1e-12);
        // Half-lives: ~35 episodic, ~58 semantic, ~173 procedural epochs.
        for (kind, half) in [(Kind::Episodic, 35), (Kind::Semantic, 58), (Kind::Procedural, 173)] {
            let v = decayed(1.0, kind, half);
            assert!((0.48..0.52).contains(&v), "{kind:?}: {v}");
        }
        assert_eq!(decayed(0.9, Kind::Episodic, 100_000), FLOOR);
        assert_eq!(decayed(0.005, Kind::Episodic, 10), 0.005, "under the floor: left as set");
        assert_eq!(decayed(0.5, Kind::Episodic, u64::MAX), FLOOR);
    }

    #[test]
    fn pinned_memories_do_not_decay() {
        let mut m = Memory { importance: 0.8, kind: Kind::Episodic, ..Memory::default() };
        assert!(current_importance(&m, 10) < 0.8);
        m.pin = Pin::Pinned;
        assert_eq!(current_importance(&m, 10), 0.8);
        m.pin = Pin::Active;
        m.lifecycle.decay_epoch = 10;
        assert_eq!(current_importance(&m, 10), 0.8, "decay counts from the epoch importance was set");
        assert!(!at_floor(&m, 10));
    }
}
