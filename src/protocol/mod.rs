//! The MCP Streamable HTTP client, as a sans-I/O core: SSE parsing, JSON-RPC, and an async
//! driver generic over a [`transport::Transport`] and a [`transport::Clock`] (no `Send`
//! bounds, so a scripted transport drives native tests and a JS `fetch` drives the browser).

pub mod auth;
pub mod budget;
pub mod client;
pub mod headers;
pub mod hub;
pub mod jsonrpc;
pub mod legacy_sse;
pub mod sse;
pub mod transport;

/// The protocol version toolwire asks for.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";

/// Versions toolwire accepts from a server in the `initialize` handshake.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// The revision of the deprecated HTTP+SSE transport: accepted from a server spoken to over that
/// transport ([`legacy_sse`]), which may know no later one.
pub const SSE_PROTOCOL_VERSION: &str = "2024-11-05";

/// The revision without a handshake (every request carries its version and the client's
/// capabilities, `server/discover` tells the server's), spoken with [`client::Era::Modern`].
pub const MODERN_PROTOCOL_VERSION: &str = "2026-07-28";
