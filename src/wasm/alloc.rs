//! The module's allocator: Talc, with memory grown by a quarter of what the module holds at a
//! time rather than by what one allocation needs.
//!
//! Talc's own wasm source (`WasmGrowAndExtend`) grows the memory by just enough pages for the
//! allocation that ran out, so a call that builds a large value grows it a page (64 KiB) at a
//! time, and V8 takes about 0.2 ms for each `memory.grow` (a fresh module's first
//! `flattenContent` of 400,000 text blocks spent 4.6 s where its second took 0.7 s). Growing by a
//! quarter of the memory (at least 1 MiB) makes that a few dozen grows, for at most a quarter of
//! the memory held unused until it is needed.

use core::alloc::Layout;
use core::arch::wasm32::{memory_grow, memory_size};
use core::ptr::NonNull;

use talc::base::binning::Binning;
use talc::base::Talc;

/// WebAssembly's page.
const PAGE: usize = 64 * 1024;
/// The least the memory grows by: 16 pages, 1 MiB.
const MIN_PAGES: usize = 16;

/// A [`talc::source::Source`] that grows the wasm memory geometrically and extends Talc's heap
/// over it (a new heap where something else grew the memory in between).
#[derive(Debug, Default)]
pub(crate) struct GrowByQuarter {
    end: Option<NonNull<u8>>,
}

impl GrowByQuarter {
    pub(crate) const fn new() -> Self {
        Self { end: None }
    }
}

/// The pages an allocation of `layout` needs in a heap of its own: its size, Talc's per-chunk
/// overhead and alignment padding, with room to spare (Talc's own sum is not public).
fn pages_for(layout: Layout) -> usize {
    let bytes = layout.size().saturating_add(layout.align()).saturating_add(256);
    bytes.div_ceil(PAGE)
}

// SAFETY: uses no Rust allocator or allocating container; only grows the memory and hands the
// new pages to `talc`, returning `Ok` only when it did.
unsafe impl talc::source::Source for GrowByQuarter {
    fn acquire<B: Binning>(talc: &mut Talc<Self, B>, layout: Layout) -> Result<(), ()> {
        let needed = pages_for(layout);
        let wanted = needed.max(MIN_PAGES).max(memory_size::<0>() / 4);
        // Near the 4 GiB limit the quarter may not fit where what is needed still does.
        let (prev, pages) = match memory_grow::<0>(wanted) {
            usize::MAX if wanted > needed => (memory_grow::<0>(needed), needed),
            prev => (prev, wanted),
        };
        if prev == usize::MAX {
            return Err(());
        }
        let base = (prev * PAGE) as *mut u8;
        // Memory grown to its 4 GiB end: `base + bytes` is 2^32, past what a pointer holds. As
        // Talc's own source does, the end saturates (the heap ends a byte short), not wraps to 0.
        let bytes = (pages * PAGE).min(usize::MAX - base as usize);
        let new_end = base.wrapping_add(bytes);
        if let Some(old_end) = talc.source.end.take() {
            if old_end.as_ptr() == base {
                // SAFETY: the memory from `old_end` to `new_end` was just grown, and is no one's.
                talc.source.end = Some(unsafe { talc.extend(old_end, new_end) });
                return Ok(());
            }
        }
        // SAFETY: the pages from `base` were just grown, and are no one's.
        talc.source.end = unsafe { talc.claim(base, bytes) };
        if talc.source.end.is_some() { Ok(()) } else { Err(()) }
    }
}
