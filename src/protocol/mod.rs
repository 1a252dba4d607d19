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

/// Versions toolwire accepts from a server in the `initialize` handshake, over either transport:
/// 2024-11-05 (which had no Streamable HTTP) also from a Streamable HTTP server, as the MCP SDK's
/// client accepts it, since a gateway puts servers of that revision on Streamable HTTP as they are.
/// It is then spoken as 2025-03-26 is, its version in `MCP-Protocol-Version` as the SDK sends it.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", SSE_PROTOCOL_VERSION];

/// The revision of the deprecated HTTP+SSE transport ([`legacy_sse`]), whose servers may know no
/// later one.
pub const SSE_PROTOCOL_VERSION: &str = "2024-11-05";

/// The revision without a handshake (every request carries its version and the client's
/// capabilities, `server/discover` tells the server's), spoken with [`client::Era::Modern`].
pub const MODERN_PROTOCOL_VERSION: &str = "2026-07-28";
