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

use crate::model::Borrowed as _;

/// Runs `futures` together and gives their outputs in their order, as futures-util's `join_all`
/// does. Each is boxed as a future of no output that puts its output in its slot, so that the
/// crate has one copy of `join_all` (with the `FuturesOrdered` and `FuturesUnordered` it runs
/// past 30 futures) instead of one for each type joined: about 2.9 KB of wasm each.
pub(crate) async fn join_all<'a, T: 'a>(futures: impl IntoIterator<Item = impl std::future::Future<Output = T> + 'a>) -> Vec<T> {
    let outputs = std::cell::RefCell::new(Vec::new());
    let joined: Vec<UnitFuture<'_>> = futures
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            outputs.borrowed_mut().push(None);
            let outputs = &outputs;
            Box::pin(async move {
                let out = f.await;
                outputs.borrowed_mut()[i] = Some(out);
            }) as UnitFuture<'_>
        })
        .collect();
    join_units(joined).await;
    // Every future has ended, and put its output.
    outputs.into_inner().into_iter().flatten().collect()
}

/// A boxed future of no output, the one type [`join_units`] joins.
pub(crate) type UnitFuture<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + 'a>>;

/// futures-util's `join_all` of futures of no output (see [`join_all`]).
pub(crate) async fn join_units(futures: Vec<UnitFuture<'_>>) {
    futures_util::future::join_all(futures).await;
}

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
