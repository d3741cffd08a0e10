//! Links between memories by slot, both ways, derived from each memory's `links` (ids are what is
//! stored; slots are renumbered on every open). Following a link is then an array read instead of
//! hashing and comparing id strings, which is what keeps a new memory's link search
//! (`engine/links.rs`) from slowing down as the store grows. A link to an id that has no memory (not
//! yet loaded, or removed) waits under that id and is resolved when a memory with it is stored, so
//! the order records arrive in (load, import, undo) does not matter.

use std::collections::HashMap;

use crate::index::DocId;

#[derive(Debug, Default)]
pub struct LinkGraph {
    /// Slots each memory links to, in the order of its `links`.
    out: Vec<Vec<DocId>>,
    /// Slots of the memories linking to each memory, in slot order: the order they were written
    /// (slots are never reused), whatever order the links were made in, so that a store reopened
    /// (links made in slot order) walks the same graph as the one that wrote it.
    into: Vec<Vec<DocId>>,
    /// Target id → slots of the memories linking to it while no memory has that id.
    pending: HashMap<String, Vec<DocId>>,
}

fn row(rows: &mut Vec<Vec<DocId>>, slot: DocId) -> &mut Vec<DocId> {
    let i = slot as usize;
    if rows.len() <= i {
        rows.resize_with(i + 1, Vec::new);
    }
    &mut rows[i]
}

/// Adds `src` to the sources of `at`, keeping them in slot order (nearly always at the end).
fn add_source(rows: &mut Vec<Vec<DocId>>, at: DocId, src: DocId) {
    let r = row(rows, at);
    match r.last() {
        Some(&last) if last > src => r.insert(r.partition_point(|&s| s < src), src),
        _ => r.push(src),
    }
}

fn drop_from(rows: &mut [Vec<DocId>], at: DocId, slot: DocId) {
    if let Some(r) = rows.get_mut(at as usize) {
        r.retain(|&s| s != slot);
    }
}

impl LinkGraph {
    /// Slots the memory in `slot` links to (only targets that exist).
    pub fn outgoing(&self, slot: DocId) -> &[DocId] {
        self.out.get(slot as usize).map_or(&[], Vec::as_slice)
    }

    /// Slots of the memories linking to the memory in `slot`, in slot order (oldest memory first).
    pub fn incoming(&self, slot: DocId) -> &[DocId] {
        self.into.get(slot as usize).map_or(&[], Vec::as_slice)
    }

    /// Slots of the memories linking to `id` while no memory has that id.
    pub fn pending(&self, id: &str) -> &[DocId] {
        self.pending.get(id).map_or(&[], Vec::as_slice)
    }

    /// A memory was stored in `slot` with `id` and link ids `targets`: its own links, and the links
    /// other memories made to `id` while it had no slot.
    pub fn insert(&mut self, slot: DocId, id: &str, targets: &[String], slot_of: impl Fn(&str) -> Option<DocId>) {
        self.link_out(slot, targets, slot_of);
        if let Some(sources) = self.pending.remove(id) {
            for src in sources {
                row(&mut self.out, src).push(slot);
                add_source(&mut self.into, slot, src);
            }
        }
    }

    /// The memory in `slot` now links to `targets` instead of `old` (same id, same slot).
    pub fn relink(&mut self, slot: DocId, old: &[String], targets: &[String], slot_of: impl Fn(&str) -> Option<DocId>) {
        self.unlink_out(slot, old);
        self.link_out(slot, targets, slot_of);
    }

    /// The memory `id` in `slot` (with link ids `targets`) was removed: its links go, and the links
    /// made to it wait under its id again.
    pub fn remove(&mut self, slot: DocId, id: &str, targets: &[String]) {
        self.unlink_out(slot, targets);
        let sources = self.into.get_mut(slot as usize).map(std::mem::take).unwrap_or_default();
        for src in sources {
            drop_from(&mut self.out, src, slot);
            self.pending.entry(id.to_string()).or_default().push(src);
        }
    }

    fn link_out(&mut self, slot: DocId, targets: &[String], slot_of: impl Fn(&str) -> Option<DocId>) {
        for t in targets {
            match slot_of(t) {
                Some(to) => {
                    row(&mut self.out, slot).push(to);
                    add_source(&mut self.into, to, slot);
                }
                None => self.pending.entry(t.clone()).or_default().push(slot),
            }
        }
    }

    fn unlink_out(&mut self, slot: DocId, targets: &[String]) {
        let out = self.out.get_mut(slot as usize).map(std::mem::take).unwrap_or_default();
        for to in out {
            drop_from(&mut self.into, to, slot);
        }
        for t in targets {
            if let Some(p) = self.pending.get_mut(t.as_str()) {
                p.retain(|&s| s != slot);
                if p.is_empty() {
                    self.pending.remove(t.as_str());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    /// A tiny table: slot i holds id names[i] (None = empty slot).
    fn resolver<'a>(names: &'a [Option<&'a str>]) -> impl Fn(&str) -> Option<DocId> + 'a {
        move |id| names.iter().position(|n| *n == Some(id)).map(|i| i as DocId)
    }

    #[test]
    fn links_resolve_in_any_arrival_order() {
        let mut g = LinkGraph::default();
        // b (slot 0) links to a before a exists; a arrives in slot 1.
        g.insert(0, "b", &ids(&["a"]), resolver(&[Some("b")]));
        assert_eq!(g.pending("a"), [0]);
        g.insert(1, "a", &[], resolver(&[Some("b"), Some("a")]));
        assert_eq!((g.outgoing(0), g.incoming(1), g.pending("a")), (&[1][..], &[0][..], &[][..]));
    }

    #[test]
    fn removal_and_restore_keep_both_directions_true() {
        let names = [Some("a"), Some("b"), Some("c")];
        let mut g = LinkGraph::default();
        g.insert(0, "a", &[], resolver(&names));
        g.insert(1, "b", &ids(&["a"]), resolver(&names));
        g.insert(2, "c", &ids(&["a", "b"]), resolver(&names));
        assert_eq!(g.incoming(0), [1, 2]);
        g.remove(0, "a", &[]);
        assert_eq!((g.outgoing(1), g.outgoing(2), g.pending("a")), (&[][..], &[1][..], &[1, 2][..]));
        // a comes back in a fresh slot (3): the links made to it follow.
        g.insert(3, "a", &[], resolver(&[None, Some("b"), Some("c"), Some("a")]));
        assert_eq!((g.outgoing(1), g.outgoing(2), g.incoming(3)), (&[3][..], &[1, 3][..], &[1, 2][..]));
        // c drops its link to b and gains one to a missing id.
        g.relink(2, &ids(&["a", "b"]), &ids(&["zz"]), resolver(&[None, Some("b"), Some("c"), Some("a")]));
        assert_eq!((g.outgoing(2), g.incoming(1), g.incoming(3), g.pending("zz")), (&[][..], &[][..], &[1][..], &[2][..]));
        // c links to a again, then b (older) drops its link to a and makes it again, after c's:
        // a's sources stay in slot order, as a reopened store would list them.
        let now = [None, Some("b"), Some("c"), Some("a")];
        g.relink(2, &ids(&["zz"]), &ids(&["a"]), resolver(&now));
        g.relink(1, &ids(&["a"]), &[], resolver(&now));
        g.relink(1, &[], &ids(&["a"]), resolver(&now));
        assert_eq!(g.incoming(3), [1, 2]);
        g.relink(2, &ids(&["a"]), &ids(&["zz"]), resolver(&now));
        g.remove(2, "c", &ids(&["zz"]));
        assert_eq!(g.pending("zz"), [] as [DocId; 0]);
        assert!(g.pending.is_empty(), "no link waits for a removed memory: {:?}", g.pending);
    }
}
