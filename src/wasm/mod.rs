//! The wasm-bindgen layer: thin, compiled only for wasm32. Every export takes `JsValue`s and
//! checks them itself, so a wrong type from JS is a `ToolwireError`, never a trap.
//!
//! Data crosses the boundary as JSON text: `JSON.stringify` on the way in (which also turns
//! cycles and BigInts into clean errors) and `JSON.parse` on the way out, so outputs are plain
//! objects and a property named `__proto__` stays an ordinary own property.

// Exports are reached from JS through wasm-bindgen, not from Rust paths.
#![allow(unreachable_pub)]

#[cfg(not(target_feature = "atomics"))]
mod alloc;
// Without the client, some of the bridge's helpers (promises, method calls) have no user.
#[cfg_attr(not(feature = "client"), allow(dead_code))]
mod bridge;
mod caught;
pub mod convert;
pub mod error;
mod interop;
#[cfg(feature = "client")]
pub mod mcp;
pub mod names;
pub mod roundtrip;

// Talc in place of Rust's default wasm allocator (dlmalloc). Conversions run as fast with either
// (paired over the corpus: 0.98x to 1.06x), the module is 3 KB of gzip smaller, and the first call
// in a fresh process is cheaper: dlmalloc's `malloc` is a 4.8 KB function that became hot within
// the first conversion, and V8 then compiled it with TurboFan on a background thread (3 to 8 ms of
// CPU, which on two cores competes with the call itself). Talc's allocation path is small enough
// to stay in the baseline tier there. Single-threaded builds only (no `atomics`). Memory is grown
// by a quarter at a time (see `alloc`).
#[cfg(not(target_feature = "atomics"))]
#[global_allocator]
static ALLOCATOR: talc::cell::TalcSyncCell<alloc::GrowByQuarter, talc::wasm::WasmBinning> =
    talc::cell::TalcSyncCell::new_wasm(alloc::GrowByQuarter::new());
