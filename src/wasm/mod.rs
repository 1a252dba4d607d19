//! The wasm-bindgen layer: thin, compiled only for wasm32. Every export takes `JsValue`s and
//! checks them itself, so a wrong type from JS is a `ToolwireError`, never a trap.
//!
//! Data crosses the boundary as JSON text: `JSON.stringify` on the way in (which also turns
//! cycles and BigInts into clean errors) and `JSON.parse` on the way out, so outputs are plain
//! objects and a property named `__proto__` stays an ordinary own property.

// Exports are reached from JS through wasm-bindgen, not from Rust paths.
#![allow(unreachable_pub)]

mod bridge;
pub mod convert;
pub mod error;
mod interop;
pub mod mcp;
pub mod names;
pub mod roundtrip;
