//! The global allocator of the wasm build: the same dlmalloc Rust uses there by default, except that
//! linear memory grows in steps of an eighth of its size (at least 1 MiB) instead of the few 64 KiB
//! pages each request needs. Every `memory.grow` replaces the JS `ArrayBuffer` over the memory, and
//! V8 answers a new buffer of hundreds of MB with a full mark-compact: a store growing past 20k
//! memories grew its memory ~100 times per 5,000 adds, and those collections — not the engine —
//! were most of what a late add cost (`benches/add-scale.mjs`). Geometric steps make the grows, and
//! the collections, logarithmic in the store's size; the memory is at most an eighth larger.

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::UnsafeCell;
use core::ptr;

const PAGE: usize = 64 * 1024;
const MIN_STEP: usize = 1 << 20;

/// Where dlmalloc gets memory from: `memory.grow`, in geometric steps.
struct GrowInSteps;

/// Grows the memory by `bytes` (rounded up to pages); the region's start and length.
fn grow(bytes: usize) -> Option<(*mut u8, usize)> {
    let pages = bytes.div_ceil(PAGE);
    let prev = wasm32::memory_grow(0, pages);
    (prev != usize::MAX).then(|| ((prev * PAGE) as *mut u8, pages * PAGE))
}

// SAFETY: the regions handed out are fresh pages past the old end of linear memory, owned by no one
// else; they are never returned (the methods below refuse every release), as with Rust's default.
unsafe impl dlmalloc::Allocator for GrowInSteps {
    fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
        let step = size.max(wasm32::memory_size(0) * PAGE / 8).max(MIN_STEP);
        // Near the 4 GiB limit a whole step may not fit where the request itself still does.
        match grow(step).or_else(|| grow(size)) {
            Some((base, len)) => (base, len, 0),
            None => (ptr::null_mut(), 0, 0),
        }
    }

    fn remap(&self, _ptr: *mut u8, _oldsize: usize, _newsize: usize, _can_move: bool) -> *mut u8 {
        ptr::null_mut()
    }

    fn free_part(&self, _ptr: *mut u8, _oldsize: usize, _newsize: usize) -> bool {
        false
    }

    fn free(&self, _ptr: *mut u8, _size: usize) -> bool {
        false
    }

    fn can_release_part(&self, _flags: u32) -> bool {
        false
    }

    fn allocates_zeros(&self) -> bool {
        true
    }

    fn page_size(&self) -> usize {
        PAGE
    }
}

struct SteppedDlmalloc(UnsafeCell<dlmalloc::Dlmalloc<GrowInSteps>>);

// SAFETY: this build has one thread per instance (no `atomics` target feature; workers are other
// instances with their own memory), so the allocator is never entered from two threads.
unsafe impl Sync for SteppedDlmalloc {}

#[global_allocator]
static ALLOCATOR: SteppedDlmalloc = SteppedDlmalloc(UnsafeCell::new(dlmalloc::Dlmalloc::new_with_allocator(GrowInSteps)));

// SAFETY: each method forwards to dlmalloc with the caller's layout, as Rust's default does; the
// `&mut` is unique because the allocator is not re-entered (dlmalloc allocates nothing itself).
unsafe impl GlobalAlloc for SteppedDlmalloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        (*self.0.get()).malloc(layout.size(), layout.align())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        (*self.0.get()).free(ptr, layout.size(), layout.align())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        (*self.0.get()).calloc(layout.size(), layout.align())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        (*self.0.get()).realloc(ptr, layout.size(), layout.align(), new_size)
    }
}
