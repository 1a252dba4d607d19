//! toolwire: use MCP tools with any LLM provider.
//!
//! The core is pure Rust with no WebAssembly code, tested natively:
//! * [`model`]: MCP types (tools, content blocks, results), lenient and lossless.
//! * [`schema`]: the root normalisation every provider starts from, a structural walker and
//!   `$ref` inlining.
//! * [`providers`]: one module per provider, each an ordered list of transforms.
//! * [`naming`]: collision-proof provider names and the exact reverse mapping.
//! * [`args`]: mapping a model's arguments back to what the server expects.
//! * [`content`]: flattening tool results to text.
//! * [`convert`](mod@convert): the entry points that tie these together, with a report of every change.
//! * [`fast`]: the borrowed-tree path of `convert_json`: schemas that need no change passed
//!   through, and Gemini `parameters` lowered node by node when they need no more.
//! * [`text`]: compact JSON text, as serde_json writes it, faster.
//!
//! `src/wasm/` is the thin wasm-bindgen layer, compiled only for `wasm32`.

/// `serde::Serialize` through a type's `to_value()` JSON form: the crate writes its typed JSON by
/// hand (see `model::FieldError`), and Rust callers can still hand these types to serde.
macro_rules! serialize_via_value {
    ($($t:ty),*) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                self.to_value().serialize(s)
            }
        }
    )*};
}

pub mod args;
pub mod calls;
pub mod content;
pub mod convert;
pub mod error;
pub mod fast;
pub mod model;
pub mod naming;
pub mod policy;
pub mod prompt;
pub mod protocol;
pub mod providers;
pub mod report;
pub mod results;
pub mod schema;
pub mod text;

#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod wasm;

pub use convert::{check, check_json, convert, convert_json, convert_json_detailed, ConvertOptions, Conversion, TextConversion};
pub use error::{Error, ErrorCode, Result};
pub use providers::Provider;

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
