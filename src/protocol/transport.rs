//! What the client needs from its environment: HTTP with streaming bodies, and a clock.
//! No `Send` bounds: in the browser both wrap JS objects.
//!
//! Aborting is by dropping: dropping an unfinished `send` future or a [`Body`] must abort that
//! request's HTTP exchange (the JS transport calls `AbortController.abort()`), so a timeout that
//! drops a request also stops its fetch.

use std::future::Future;

/// An HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// POST.
    Post,
    /// GET.
    Get,
    /// DELETE.
    Delete,
}

impl Method {
    /// The method name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Post => "POST",
            Self::Get => "GET",
            Self::Delete => "DELETE",
        }
    }
}

/// An HTTP request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// Method.
    pub method: Method,
    /// URL.
    pub url: String,
    /// Headers.
    pub headers: Vec<(String, String)>,
    /// Body (JSON text).
    pub body: Option<String>,
    /// Follow redirects: only a metadata document's GET that a browser answered with an opaque
    /// redirect (OAuth discovery follows the others itself, checking each target). MCP's own
    /// requests never do (a redirected POST would be resent as a GET, or, with 307 and 308, sent
    /// with its headers to a URL the app did not give), so the client reports a
    /// redirect instead.
    pub follow_redirects: bool,
}

/// Why an HTTP exchange failed below HTTP.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportError {
    /// The request could not be made or the connection broke. In browsers a CORS refusal looks
    /// exactly like this.
    Network(String),
    /// Aborted on purpose.
    Aborted,
    /// A transport that carries MCP its own way refused the exchange: this error, as the client
    /// reports it (the old HTTP+SSE transport's server sending the client elsewhere, what waited
    /// past a bound: see [`crate::protocol::legacy_sse`]).
    Refused(Box<crate::error::Error>),
}

/// Which of MCP's HTTP transports carries the client's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpTransport {
    /// Streamable HTTP (MCP 2025-03-26 and later).
    StreamableHttp,
    /// The deprecated HTTP+SSE transport of MCP 2024-11-05.
    Sse,
}

impl McpTransport {
    /// `"streamable-http"` or `"sse"`, as the JS option names them.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::StreamableHttp => "streamable-http",
            Self::Sse => "sse",
        }
    }
}

/// A streaming response body.
pub trait Body {
    /// The next chunk, or `None` at the end.
    fn next_chunk(&mut self) -> impl Future<Output = Option<Result<Vec<u8>, TransportError>>>;
}

/// A response: status, headers (names lower-cased) and a streaming body.
pub struct HttpResponse<B> {
    /// Status code.
    pub status: u16,
    /// Headers with lower-case names.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: B,
}

impl<B> HttpResponse<B> {
    /// A header value by (lower-case) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// HTTP, as the host provides it (JS `fetch` in the browser).
pub trait Transport {
    /// The body type.
    type Body: Body;
    /// Sends a request. Dropping the returned future (or, later, the body) aborts the exchange.
    fn send(&self, req: HttpRequest) -> impl Future<Output = Result<HttpResponse<Self::Body>, TransportError>>;

    /// The MCP transport the messages go over: Streamable HTTP, unless this is an adapter to
    /// another ([`crate::protocol::legacy_sse::LegacySse`]); `None` while that is not known yet
    /// (before the first handshake of its `auto` choice).
    fn mcp_transport(&self) -> Option<McpTransport> {
        Some(McpTransport::StreamableHttp)
    }

    /// The host a request to `url` reaches, as this transport's own URL parser reads it (a
    /// browser's and Node's WHATWG parser map Unicode look-alikes, soft hyphens, circled digits
    /// and full-width dots to ASCII, and IPv4 addresses to their dotted form); `None` when it
    /// has no parser of its own.
    fn url_host(&self, _url: &str) -> Option<String> {
        None
    }

    /// `url` as this transport's own URL parser writes it, the URL a request to it reaches (the
    /// WHATWG parser's `href`: the path's non-ASCII percent-encoded and its dot segments removed,
    /// the host in lower case and an IPv4 address dotted, a default port left out); `None` when it
    /// has no parser of its own, or it reads no URL there.
    fn url_href(&self, _url: &str) -> Option<String> {
        None
    }

    /// `url` as a request to it is sent: a relative URL (`/mcp`) resolved as the host resolves it
    /// (in a browser, against the page's location); `None` when it is absolute, or the host
    /// resolves nothing.
    fn resolve_url(&self, _url: &str) -> Option<String> {
        None
    }

    /// Why the last look for the deprecated HTTP+SSE transport (the `auto` choice, after a refused
    /// `initialize`) found none, when there was such a look.
    fn legacy_probe(&self) -> Option<String> {
        None
    }

    /// Ends what a failed handshake leaves open below HTTP: the deprecated HTTP+SSE transport's
    /// event stream (a Streamable HTTP session has no such thing: it is the server's, and ends
    /// with a DELETE).
    fn end_session(&self) {}
}

/// Timers, and the time.
pub trait Clock {
    /// Resolves after `ms` milliseconds.
    fn sleep(&self, ms: u64) -> impl Future<Output = ()>;
    /// Milliseconds since a fixed point of this clock (the epoch, say): only differences between
    /// two readings are used (how long a listing stays fresh).
    fn now_ms(&self) -> u64;
}
