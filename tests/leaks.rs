//! Nothing a conversion allocates outlives it: the bytes live after converting the corpus are the
//! bytes live before, on every provider path, through the JSON API and the named conversion (the
//! fast paths' arenas and their scratch trees, the general path's `Value`s). This test binary
//! counts with its own global allocator, and holds this one test only, so that no other test
//! allocates while it counts. (`make memcheck` watches the wasm module's memory the same way.)
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use toolwire::convert::{convert_json, convert_json_named, ConvertOptions};
use toolwire::providers::{GeminiMode, Provider};

/// The system allocator, counting the bytes live.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed to the system allocator as it came; only the count is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::SeqCst);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::SeqCst);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::SeqCst);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn conversions_free_everything_they_allocate() {
    let texts: Vec<(String, String)> = common::corpus().into_iter().map(|s| (s.name, s.tools.to_string())).collect();
    let paths = [
        (Provider::OpenAi, false, GeminiMode::Parameters),
        (Provider::OpenAi, true, GeminiMode::Parameters),
        (Provider::Anthropic, false, GeminiMode::Parameters),
        (Provider::Anthropic, true, GeminiMode::Parameters),
        (Provider::Gemini, false, GeminiMode::Parameters),
        (Provider::Gemini, false, GeminiMode::JsonSchema),
        (Provider::Vertex, false, GeminiMode::Parameters),
        (Provider::Bedrock, false, GeminiMode::Parameters),
    ];
    let mut leaks = Vec::new();
    let mut converted = 0;
    for (provider, strict, mode) in paths {
        let mut opts = ConvertOptions::default();
        opts.schema.strict = strict;
        opts.schema.gemini_mode = mode;
        for (name, text) in &texts {
            opts.server = Some(name.clone());
            let before = LIVE.load(Ordering::SeqCst);
            let tools = convert_json(text, provider, &opts).expect("converts");
            let named = convert_json_named(text, provider, &opts).expect("converts");
            converted += usize::from(!tools.is_empty() && !named.name_map.is_empty());
            drop((tools, named));
            let after = LIVE.load(Ordering::SeqCst);
            if after != before {
                leaks.push(format!("{provider:?} strict={strict} {mode:?} / {name}: {} bytes", after - before));
            }
        }
    }
    assert_eq!(converted, paths.len() * texts.len(), "every conversion gave tools");
    assert!(leaks.is_empty(), "left allocated:\n{}", leaks.join("\n"));
}
