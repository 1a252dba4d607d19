//! The deprecated HTTP+SSE transport of MCP 2024-11-05, as a [`Transport`] over another one, so
//! that the client ([`crate::protocol::client`]) speaks to such a server as it speaks Streamable
//! HTTP, unchanged:
//!
//! * The server's event stream: a GET of the URL (`Accept: text/event-stream`), whose first event,
//!   `endpoint`, names where to POST messages: a URL relative to the stream's, which must be of the
//!   same origin (another one is refused: `PROTOCOL`). The stream is shared by everything the
//!   server sends.
//! * Each message the client POSTs goes to that endpoint (202 or any 2xx is fine). A request is
//!   answered, as far as the client can tell, with an event stream of its own: the messages of the
//!   shared stream that belong to it (its response, by JSON-RPC id; its progress, by progress token,
//!   which the client makes its request id). What belongs to no request in flight (notifications,
//!   and the server's requests: `ping`, sampling, elicitation, roots) goes to the client's
//!   standalone stream when it listens ([`Client::listen`]'s GET), else to the oldest request in
//!   flight (whose reader hands notifications to the handler and answers requests), else it waits
//!   for the next one; a request in flight is given what is its to handle even before its POST is
//!   answered (its reader answers a server request then: a server may run the request in the POST's
//!   handler and ask the client something first), the POST's answer read on with the stream. A
//!   message that is not JSON goes to the request its text names by a top-level
//!   `id` (read lexically: [`crate::protocol::jsonrpc::sketch`]), or to the one request in flight
//!   when it names none, whose reader fails on it with `PROTOCOL` as a Streamable HTTP call fails
//!   on such an event of its stream; one with a `method` (a notification or a server request), or
//!   naming no request in flight, or none while several are, is dropped. So is a response (or an
//!   error) whose id names no request (`null`: a message the server could not read), unless one
//!   request alone is in flight.
//! * No task reads the shared stream by itself (the core spawns nothing): whoever polls a body, or
//!   waits for a POST's answer, reads the stream on for everyone, puts what it reads in the queues of
//!   those it belongs to and wakes them. What waits unread for one request is bounded
//!   (`max_buffered_bytes`: `LIMIT_EXCEEDED` for that request), as is one event (`max_event_bytes`:
//!   `LIMIT_EXCEEDED` for every request, the stream being lost). All it holds (an event not yet
//!   complete, the messages waiting for their readers) counts against the memory budget and the
//!   server's share, as a Streamable HTTP stream does ([`crate::protocol::budget`]): past them,
//!   `LIMIT_EXCEEDED` for every request too, the stream being lost.
//! * The transport has no session header: the adapter gives the client one (the `sessionId` of the
//!   endpoint's query, as the SDKs' servers name it, else one of its own), never sent to the server.
//!   When the shared stream ends the server has forgotten the session: a request made then (or
//!   whose POST was not answered before the end: a server may never answer a POST for a session it
//!   dropped) is answered 404, which the client takes for an expired session: it initializes again,
//!   which opens a new stream, and sends the request once more. A request waiting for its response
//!   when the stream ends fails (`PROTOCOL`). The client's DELETE ends the stream.
//!
//! With [`TransportChoice::Auto`] the adapter passes everything through (Streamable HTTP) until a
//! POST of `initialize` is refused with 400, 404 or 405 without a JSON-RPC error (what MCP's
//! backwards compatibility guidance looks for): it then GETs the URL, and when that is an event
//! stream whose first event is `endpoint`, the client goes on over the old transport; a GET refused
//! 401 with a `Bearer` challenge (or 403 `insufficient_scope`) is the answer, for the client's
//! unauthorized handler, the verdict left for the `initialize` sent again with a token; otherwise the
//! refusal stands. The verdict is kept: reconnecting does not ask again. That look is bounded by
//! [`PROBE_TIMEOUT_MS`] as well as by the request's timeout (given a timer:
//! [`LegacySse::with_probe_timer`]): a URL that answers the GET with an event stream that never
//! names an endpoint (a page's live updates, a proxy's keep-alives) leaves the refusal standing
//! within seconds, and why the look failed is told with it ([`Transport::legacy_probe`]).
//!
//! [`Client::listen`]: crate::protocol::client::Client::listen

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use futures_util::future::{select, Either};
use futures_util::pin_mut;
use serde_json::Value;

use crate::error::{Error, ErrorCode};
use crate::model::{read_json, Borrowed as _};
use crate::protocol::auth::split_url;
use crate::protocol::budget::{server_of, Collected, Held, Refusal};
use crate::protocol::client::content_type_essence;
use crate::protocol::jsonrpc::{read_message, sketch, Id, Sketch};
use crate::protocol::sse::{SseItem, SseParser};
use crate::protocol::transport::{Body, HttpRequest, HttpResponse, McpTransport, Method, Transport, TransportError};
use crate::text::Owned as _;

/// How long the `auto` choice's GET waits for the `endpoint` event that makes it a server of the
/// old transport (the request's own timeout bounds it too): a server of that transport sends it
/// as soon as the stream opens.
pub const PROBE_TIMEOUT_MS: u64 = 5_000;

/// A timer: resolves after the given milliseconds.
pub type Sleep = Rc<dyn Fn(u64) -> Pin<Box<dyn Future<Output = ()>>>>;

/// Which of MCP's HTTP transports a client speaks (the `transport` option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TransportChoice {
    /// Streamable HTTP, and the deprecated HTTP+SSE transport when `initialize` is refused as
    /// such a server refuses it (see the module's documentation).
    #[default]
    Auto,
    /// Streamable HTTP only.
    StreamableHttp,
    /// The deprecated HTTP+SSE transport only: the URL is its event stream's.
    Sse,
}

/// A [`Transport`] that carries the client's messages over Streamable HTTP or the deprecated
/// HTTP+SSE transport (see the module's documentation).
pub struct LegacySse<T: Transport> {
    /// Shared with the POSTs that outlive the request they carry (see [`Registration::post`]).
    inner: Rc<T>,
    url: String,
    /// The transport found ([`TransportChoice::Auto`]), kept for the client's life.
    verdict: Cell<Option<McpTransport>>,
    /// The event stream of the session under way.
    conn: RefCell<Option<Rc<Conn<T::Body>>>>,
    max_event_bytes: usize,
    max_buffered_bytes: usize,
    /// Streams opened: names the sessions that have no id of the server's.
    opened: Cell<u64>,
    /// The bound of the `auto` choice's look for the old transport, and the timer for it.
    probe: Option<(u64, Sleep)>,
    /// Why the last such look found no server of the old transport.
    probe_failure: RefCell<Option<String>>,
}

impl<T: Transport + 'static> LegacySse<T>
where
    T::Body: 'static,
{
    /// The adapter over `inner` for the MCP server at `url` (absolute: an endpoint of another
    /// origin is refused, and a relative URL has no origin to compare with).
    pub fn new(inner: T, url: impl Into<String>, choice: TransportChoice) -> Self {
        Self {
            inner: Rc::new(inner),
            url: url.into(),
            verdict: Cell::new(match choice {
                TransportChoice::Auto => None,
                TransportChoice::StreamableHttp => Some(McpTransport::StreamableHttp),
                TransportChoice::Sse => Some(McpTransport::Sse),
            }),
            conn: RefCell::new(None),
            max_event_bytes: crate::protocol::sse::DEFAULT_MAX_EVENT_BYTES,
            max_buffered_bytes: 64 << 20,
            opened: Cell::new(0),
            probe: None,
            probe_failure: RefCell::new(None),
        }
    }

    /// Bounds the `auto` choice's look for the old transport (the GET, up to the `endpoint`
    /// event) by `ms` ([`PROBE_TIMEOUT_MS`], or less), timed by `sleep`. Without it the look is
    /// bounded only by the request's timeout.
    #[must_use]
    pub fn with_probe_timer(mut self, ms: u64, sleep: Sleep) -> Self {
        self.probe = Some((ms, sleep));
        self
    }

    /// Bounds one event of the shared stream and what waits unread for one request (the client's
    /// `max_event_bytes` and `max_body_bytes`).
    #[must_use]
    pub fn with_limits(mut self, max_event_bytes: usize, max_buffered_bytes: usize) -> Self {
        self.max_event_bytes = max_event_bytes;
        self.max_buffered_bytes = max_buffered_bytes;
        self
    }

    /// The transport underneath.
    pub fn inner(&self) -> &T {
        &self.inner
    }

    async fn send_any(&self, req: HttpRequest) -> Result<HttpResponse<SseBody<T::Body>>, TransportError> {
        match self.verdict.get() {
            Some(McpTransport::Sse) => self.legacy(req).await,
            Some(McpTransport::StreamableHttp) => direct(self.inner.send(req).await),
            None => self.detect(req).await,
        }
    }

    /// Auto, undecided: Streamable HTTP, and the old transport when `initialize` is refused as its
    /// servers refuse it.
    async fn detect(&self, req: HttpRequest) -> Result<HttpResponse<SseBody<T::Body>>, TransportError> {
        let initialize = req.method == Method::Post && message_of(&req).1.as_deref() == Some("initialize");
        if initialize {
            *self.probe_failure.borrowed_mut() = None;
        }
        let resp = self.inner.send(req.clone()).await?;
        if (200..300).contains(&resp.status) && req.method == Method::Post {
            self.verdict.set(Some(McpTransport::StreamableHttp));
        }
        if !initialize || !matches!(resp.status, 400 | 404 | 405) {
            return direct(Ok(resp));
        }
        // Read (as the client would, 64 KiB at most) to tell an MCP server's JSON-RPC refusal
        // (a version it does not take, a 2026-07-28 server) from a page that takes no POST. What
        // is read counts against the budget until the client has read it in turn (through the
        // look for the old transport, which may take seconds).
        let HttpResponse { status, headers, mut body } = resp;
        let too_much = |why: Refusal| {
            TransportError::Refused(Box::new(
                Error::new(ErrorCode::LimitExceeded, format!("the body of its HTTP {status} refusal, read to tell whether the server speaks the deprecated HTTP+SSE transport: {why}"))
                    .with_detail("status", status),
            ))
        };
        let mut read = Collected::of(server_of(&self.url));
        while read.len() < 64 << 10 {
            match body.next_chunk().await {
                Some(Ok(c)) => read.push(c).map_err(too_much)?,
                _ => break,
            }
        }
        drop(body);
        let (bytes, held) = read.join().map_err(too_much)?;
        let refused = HttpResponse { status, headers, body: SseBody::Bytes(Some(bytes), held) };
        let jsonrpc = std::str::from_utf8(refused_bytes(&refused)).ok().and_then(|t| read_json(t).ok()).is_some_and(|v| v.get("error").is_some_and(Value::is_object));
        if jsonrpc {
            return Ok(refused);
        }
        match self.probe(&req).await {
            Ok(conn) => {
                self.verdict.set(Some(McpTransport::Sse));
                self.replace_conn(Some(conn));
                self.legacy(req).await
            }
            Err(Opening::NotLegacy(why)) => {
                *self.probe_failure.borrowed_mut() = Some(why);
                Ok(refused)
            }
            // The old transport's server asks for a token as every MCP server does: the client's
            // unauthorized handler answers it, and the `initialize` sent again looks again.
            Err(Opening::Refused(r)) if asks_bearer(&r) => direct(Ok(r)),
            Err(Opening::Refused(r)) => {
                *self.probe_failure.borrowed_mut() = Some(format!("it answered GET with HTTP {}", r.status));
                Ok(refused)
            }
            Err(Opening::Failed(e)) => Err(e),
        }
    }

    /// [`LegacySse::open`] within the probe's bound, when it has one: past it, the GET is dropped
    /// (which aborts it) and the URL is no server of the old transport.
    async fn probe(&self, from: &HttpRequest) -> Result<Rc<Conn<T::Body>>, Opening<T::Body>> {
        let Some((ms, sleep)) = &self.probe else { return self.open(from).await };
        let opened = self.open(from);
        let timer = sleep(*ms);
        pin_mut!(opened);
        match select(opened, timer).await {
            Either::Left((r, _)) => r,
            Either::Right(_) => Err(Opening::NotLegacy(format!("its GET brought no endpoint event within {ms} ms"))),
        }
    }

    /// The session's stream, replaced (the one before closed: its requests fail, its GET is
    /// aborted).
    fn replace_conn(&self, conn: Option<Rc<Conn<T::Body>>>) {
        if let Some(old) = std::mem::replace(&mut *self.conn.borrowed_mut(), conn) {
            old.end(None);
        }
    }

    /// GETs the URL and reads up to its `endpoint` event.
    async fn open(&self, from: &HttpRequest) -> Result<Rc<Conn<T::Body>>, Opening<T::Body>> {
        let headers = forwarded(&from.headers, Some("text/event-stream"));
        let get = HttpRequest { method: Method::Get, url: self.url.clone(), headers, body: None, follow_redirects: false };
        let resp = self.inner.send(get).await.map_err(Opening::Failed)?;
        let essence = content_type_essence(resp.header("content-type").unwrap_or(""));
        if resp.status != 200 || essence != "text/event-stream" {
            return Err(if resp.status == 200 {
                Opening::NotLegacy(format!("it answered GET with {}, not an event stream", crate::text::server_text(&essence)))
            } else {
                Opening::Refused(resp)
            });
        }
        let mut body = resp.body;
        let mut parser = SseParser::new(self.max_event_bytes);
        let mut held = Held::of(server_of(&self.url));
        let (endpoint, rest) = 'read: loop {
            let chunk = match body.next_chunk().await {
                Some(Ok(c)) => c,
                Some(Err(e)) => return Err(Opening::Failed(e)),
                None => return Err(Opening::NotLegacy("its event stream ended before an endpoint event".owned())),
            };
            held.set(parser.buffered() + chunk.len()).map_err(|why| Opening::Failed(TransportError::Refused(Box::new(held_too_much(&why)))))?;
            let items = parser.feed(&chunk).map_err(|t| Opening::NotLegacy(format!("its event stream's first event is larger than {} bytes", t.limit)))?;
            held.at_least(parser.buffered() + chunk.len()).map_err(|why| Opening::Failed(TransportError::Refused(Box::new(held_too_much(&why)))))?;
            let mut items = items.into_iter();
            while let Some(item) = items.next() {
                let SseItem::Event(ev) = item else { continue };
                if ev.event.as_deref() == Some("endpoint") {
                    let Ok(data) = String::from_utf8(ev.data) else {
                        return Err(Opening::NotLegacy("its endpoint event is not UTF-8".owned()));
                    };
                    break 'read (data, items.collect::<Vec<_>>());
                }
                // A priming event (an id, no data) or a comment says nothing yet; a message does.
                if !ev.data.is_empty() {
                    return Err(Opening::NotLegacy(format!("its event stream's first event is {}, not \"endpoint\"", crate::text::server_text(ev.event.as_deref().unwrap_or("message")))));
                }
            }
        };
        let endpoint = self.endpoint(endpoint.trim()).map_err(|e| Opening::Failed(TransportError::Refused(Box::new(e))))?;
        let n = self.opened.get() + 1;
        self.opened.set(n);
        let session = session_of(&endpoint).unwrap_or_else(|| format!("sse-{n}"));
        let conn = Rc::new(Conn {
            endpoint,
            session,
            initialized: Cell::new(false),
            max_buffered_bytes: self.max_buffered_bytes,
            state: RefCell::new(ConnState {
                reader: Reader::Idle(body),
                parser,
                held,
                waiters: Vec::new(),
                next_key: 0,
                backlog: Vec::new(),
                backlog_bytes: 0,
                asked_unread: 0,
                ended: None,
                posts: Vec::new(),
            }),
        });
        // What came in the same chunk as the endpoint (nothing should, before `initialize`).
        let wake = {
            let mut st = conn.state.borrowed_mut();
            let mut wake = Vec::new();
            for item in rest {
                if let SseItem::Event(ev) = item {
                    if ev.is_message() {
                        st.route(&ev.data, self.max_buffered_bytes, &mut wake);
                    }
                }
            }
            // What it holds now: at most what it held with the chunk, and a few bytes of framing.
            if let Err(why) = st.count() {
                drop(st);
                conn.end(Some(held_too_much(&why)));
            }
            wake
        };
        wake.into_iter().for_each(Waker::wake);
        Ok(conn)
    }

    /// The endpoint event's URL, resolved against the stream's and checked to be of its origin.
    fn endpoint(&self, data: &str) -> Result<String, Error> {
        let url = resolve(&self.url, data);
        let base = split_url(&self.url).map(|(o, _)| normal_origin(o));
        let theirs = split_url(&url).map(|(o, _)| normal_origin(o));
        match (base, theirs) {
            (Some(a), Some(b)) if a == b => Ok(url),
            // A relative URL of the client's (a page's `/sse`) resolves a relative endpoint to one.
            (None, None) if self.url.starts_with('/') && url.starts_with('/') && !url.starts_with("//") => Ok(url),
            _ => Err(Error::new(
                ErrorCode::Protocol,
                format!(
                    "the server's endpoint event names {}, not a URL of the event stream's origin ({}): refused, as the HTTP+SSE transport requires (a server must not send the client's messages elsewhere)",
                    crate::text::server_text(data),
                    split_url(&self.url).map_or(self.url.as_str(), |(o, _)| o)
                ),
            )
            .with_detail("endpoint", data)),
        }
    }

    /// A request of the client's over the old transport.
    async fn legacy(&self, req: HttpRequest) -> Result<HttpResponse<SseBody<T::Body>>, TransportError> {
        let current = self.conn.borrowed().clone();
        let session = req.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("mcp-session-id")).map(|(_, v)| v.as_str());
        let ours = |c: &Conn<T::Body>| c.is_open() && session == Some(c.session.as_str());
        match req.method {
            Method::Delete => {
                if current.as_deref().is_some_and(|c| session == Some(c.session.as_str())) {
                    self.replace_conn(None);
                }
                return Ok(synthetic(200, Vec::new(), ""));
            }
            Method::Get => {
                let Some(conn) = current.filter(|c| ours(c)) else { return Ok(gone()) };
                return Ok(match Conn::register(&conn, Kind::Listener) {
                    Some(reg) => HttpResponse { status: 200, headers: vec![event_stream()], body: SseBody::Routed(reg) },
                    // One standalone stream, as a Streamable HTTP server allows one.
                    None => synthetic(409, Vec::new(), "the standalone stream is open already"),
                });
            }
            Method::Post => {}
        }
        let (id, method) = message_of(&req);
        let initialize = method.as_deref() == Some("initialize");
        let conn = if initialize {
            match current.filter(|c| c.is_open() && !c.initialized.get()) {
                Some(c) => c,
                None => match self.open(&req).await {
                    Ok(c) => {
                        self.replace_conn(Some(c.clone()));
                        c
                    }
                    Err(Opening::Failed(e)) => return Err(e),
                    // The client reports the GET's status (a 401 goes to its unauthorized handler).
                    Err(Opening::Refused(resp)) => return direct(Ok(resp)),
                    Err(Opening::NotLegacy(why)) => {
                        return Err(TransportError::Refused(Box::new(Error::new(
                            ErrorCode::Protocol,
                            format!("{} is not the event stream of a server of the deprecated HTTP+SSE transport: {why}", self.url),
                        ))))
                    }
                },
            }
        } else {
            match current.filter(|c| ours(c)) {
                Some(c) => c,
                None => return Ok(gone()),
            }
        };
        if initialize {
            conn.initialized.set(true);
        }
        // Registered before the POST: the response may come on the stream before its 202.
        let kind = match (&id, &method) {
            (Some(id), Some(_)) => Kind::Request(id.clone()),
            _ => Kind::Driver,
        };
        let Some(reg) = Conn::register(&conn, kind) else { return Ok(gone()) };
        let headers = forwarded(&req.headers, None);
        let post = HttpRequest { method: Method::Post, url: conn.endpoint.clone(), headers, body: req.body, follow_redirects: false };
        let inner = self.inner.clone();
        let mut sent: Posting<T::Body> = Box::pin(async move { inner.send(post).await });
        // The stream is read on meanwhile: a server that dropped the session may never answer; one
        // that runs the request in the POST's handler may ask the client something first (roots,
        // sampling, elicitation), and wait for the answer before it answers the POST.
        // A notification's POST (`notifications/initialized`) that the server holds while it asks
        // something on the stream (roots, before it lets the handshake end) goes on by itself:
        // the client goes on, and its next reader answers.
        let notification = id.is_none() && method.is_some();
        let asked_unread = conn.state.borrowed().asked_unread;
        let waited = {
            let (c, key) = (&*conn, reg.key);
            std::future::poll_fn(|cx| match sent.as_mut().poll(cx) {
                Poll::Ready(r) => Poll::Ready(Ok(r)),
                Poll::Pending => match c.drive(key, cx) {
                    Poll::Pending if notification && c.state.borrowed().asked_unread != asked_unread => Poll::Ready(Err(Drove::Asked)),
                    other => other.map(Err),
                },
            })
            .await
        };
        let resp = match waited {
            Ok(r) => r?,
            Err(Drove::Asked) if reg.kind_is_driver() => {
                conn.state.borrowed_mut().posts.push(sent);
                drop(reg);
                return Ok(synthetic(202, Vec::new(), ""));
            }
            // Asked something: the request's reader answers it, and reads the POST's answer on. Its
            // response come: the request has it (2024-11-05: the response is the stream's event,
            // the POST only carries the request), and its reader reads the POST's answer on.
            Err(Drove::Asked | Drove::Answered) => {
                let mut reg = reg;
                reg.post = Some(sent);
                return Ok(routed(reg, initialize.then(|| conn.session.clone())));
            }
            Err(Drove::Ended) if initialize => {
                return Err(TransportError::Refused(Box::new(Error::new(ErrorCode::Protocol, "the server's event stream ended during initialize"))));
            }
            Err(Drove::Ended) => return Ok(gone()),
        };
        if !(200..300).contains(&resp.status) {
            // The server does not know the session: its stream is of no use any more.
            if resp.status == 404 {
                conn.end(None);
            }
            return direct(Ok(resp));
        }
        if reg.kind_is_driver() {
            return direct(Ok(resp));
        }
        drop(resp);
        Ok(routed(reg, initialize.then(|| conn.session.clone())))
    }
}

/// A request's answer over the old transport: its share of the shared stream (with the session,
/// for `initialize`).
fn routed<B>(reg: Registration<B>, session: Option<String>) -> HttpResponse<SseBody<B>> {
    let mut headers = vec![event_stream()];
    if let Some(s) = session {
        headers.push(("mcp-session-id".owned(), s));
    }
    HttpResponse { status: 200, headers, body: SseBody::Routed(reg) }
}

/// A POST under way, owning what it needs (it may outlive the request that sent it).
type Posting<B> = Pin<Box<dyn Future<Output = Result<HttpResponse<B>, TransportError>>>>;

/// Why [`Conn::drive`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Drove {
    /// The stream ended.
    Ended,
    /// The server asked the client something, and the request is the one to answer it.
    Asked,
    /// The request's response came on the stream (the POST's answer may come later, or never).
    Answered,
}

/// Whether a refusal of the stream's GET asks for a token: 401 with a `Bearer` challenge, or 403
/// with `insufficient_scope` (a step-up), which the client's unauthorized handler answers.
fn asks_bearer<B>(resp: &HttpResponse<B>) -> bool {
    let challenge = resp.header("www-authenticate").map(crate::protocol::client::parse_www_authenticate);
    let bearer = challenge.as_ref().and_then(|c| c.get("scheme")).and_then(Value::as_str).is_some_and(|s| s.eq_ignore_ascii_case("bearer"));
    match resp.status {
        401 => bearer,
        403 => challenge.as_ref().and_then(|c| c.get("error")).and_then(Value::as_str) == Some("insufficient_scope"),
        _ => false,
    }
}

impl<T: Transport + 'static> Transport for LegacySse<T>
where
    T::Body: 'static,
{
    type Body = SseBody<T::Body>;

    fn send(&self, req: HttpRequest) -> impl Future<Output = Result<HttpResponse<Self::Body>, TransportError>> {
        self.send_any(req)
    }

    fn mcp_transport(&self) -> Option<McpTransport> {
        self.verdict.get()
    }

    fn legacy_probe(&self) -> Option<String> {
        self.probe_failure.borrowed().clone()
    }

    fn end_session(&self) {
        self.replace_conn(None);
    }

    fn url_host(&self, url: &str) -> Option<String> {
        self.inner.url_host(url)
    }

    fn url_href(&self, url: &str) -> Option<String> {
        self.inner.url_href(url)
    }

    fn resolve_url(&self, url: &str) -> Option<String> {
        self.inner.resolve_url(url)
    }
}

/// Why a GET of the URL opened no session of the old transport.
enum Opening<B> {
    /// No HTTP response.
    Failed(TransportError),
    /// An HTTP error status: the response, for the client to report.
    Refused(HttpResponse<B>),
    /// An answer, but no such stream: why.
    NotLegacy(String),
}

/// The body of a response of [`LegacySse`]: another transport's as it came, bytes the adapter
/// made up, or a request's share of the shared stream.
pub enum SseBody<B> {
    /// The underlying transport's body.
    Direct(B),
    /// These bytes, then the end; counted against the budget by the [`Held`] until they are read
    /// (then their reader holds them, and counts them).
    Bytes(Option<Vec<u8>>, Held),
    /// What the shared stream brings for one request (or the standalone stream).
    Routed(Registration<B>),
}

impl<B: Body + 'static> Body for SseBody<B> {
    async fn next_chunk(&mut self) -> Option<Result<Vec<u8>, TransportError>> {
        match self {
            Self::Direct(b) => b.next_chunk().await,
            Self::Bytes(b, held) => {
                // Holding less never fails.
                let _ = held.set(0);
                b.take().filter(|b| !b.is_empty()).map(Ok)
            }
            Self::Routed(r) => std::future::poll_fn(|cx| r.poll_next(cx)).await,
        }
    }
}

fn refused_bytes<B>(resp: &HttpResponse<SseBody<B>>) -> &[u8] {
    match &resp.body {
        SseBody::Bytes(Some(b), _) => b,
        _ => &[],
    }
}

fn direct<B>(r: Result<HttpResponse<B>, TransportError>) -> Result<HttpResponse<SseBody<B>>, TransportError> {
    r.map(|r| HttpResponse { status: r.status, headers: r.headers, body: SseBody::Direct(r.body) })
}

fn synthetic<B>(status: u16, headers: Vec<(String, String)>, text: &str) -> HttpResponse<SseBody<B>> {
    HttpResponse { status, headers, body: SseBody::Bytes(Some(text.as_bytes().to_vec()), Held::default()) }
}

/// The session is gone (its stream ended): 404, which the client takes for an expired session.
fn gone<B>() -> HttpResponse<SseBody<B>> {
    synthetic(404, vec![("content-type".owned(), "text/plain".owned())], "the server's event stream (HTTP+SSE transport) ended: the session is gone")
}

fn event_stream() -> (String, String) {
    ("content-type".owned(), "text/event-stream".owned())
}

/// The id and method of the message a request carries.
fn message_of(req: &HttpRequest) -> (Option<Id>, Option<String>) {
    let Some(v) = req.body.as_deref().and_then(|b| read_json(b).ok()) else { return (None, None) };
    (v.get("id").and_then(Id::from_value), v.get("method").and_then(Value::as_str).map(str::to_owned))
}

/// The client's headers for the old transport's server: its own (authorization, the caller's, an
/// `Mcp-Api-Key` of the caller's too), not those Streamable HTTP's client sets itself
/// (`Mcp-Session-Id`, `MCP-Protocol-Version`, `Last-Event-ID`, 2026-07-28's `Mcp-Method`...),
/// which a server of the old transport's day may not allow across origins. `accept` replaces
/// `Accept` and drops `Content-Type` (a GET).
fn forwarded(headers: &[(String, String)], accept: Option<&str>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = headers
        .iter()
        .filter(|(k, _)| {
            let k = k.to_ascii_lowercase();
            !(crate::protocol::headers::client_owned(&k) || (accept.is_some() && (k == "accept" || k == "content-type")))
        })
        .cloned()
        .collect();
    if let Some(a) = accept {
        out.insert(0, ("accept".owned(), a.owned()));
    }
    out
}

/// The session id an endpoint's query carries (`sessionId`, the TypeScript SDK's; `session_id`,
/// the Python SDK's), when it can go in a header.
fn session_of(endpoint: &str) -> Option<String> {
    let query = &endpoint[endpoint.find('?')? + 1..];
    let query = &query[..query.find('#').unwrap_or(query.len())];
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (matches!(k, "sessionId" | "session_id") && !v.is_empty() && v.len() <= 1024 && v.bytes().all(|b| (0x21..=0x7e).contains(&b))).then(|| v.owned())
    })
}

/// An origin compared as browsers compare them: scheme and host in lower case, the scheme's
/// default port left out.
fn normal_origin(origin: &str) -> String {
    let o = origin.to_ascii_lowercase();
    o.strip_suffix(":80").filter(|_| o.starts_with("http://")).or_else(|| o.strip_suffix(":443").filter(|_| o.starts_with("https://"))).unwrap_or(&o).owned()
}

/// `reference` resolved against `base` (RFC 3986, 5.2): an absolute URL, `//host/path`,
/// `/path?query`, `?query`, or a path relative to the base's directory (dot segments removed).
pub(crate) fn resolve(base: &str, reference: &str) -> String {
    let scheme = reference.find(':').filter(|&i| i > 0 && reference[..i].bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')) && reference.as_bytes()[0].is_ascii_alphabetic());
    if scheme.is_some() {
        return reference.owned();
    }
    let (origin, path_etc) = match base.find("://") {
        Some(i) => {
            let after = &base[i + 3..];
            let end = after.find(['/', '\\', '?', '#']).map_or(base.len(), |j| i + 3 + j);
            (&base[..end], &base[end..])
        }
        None => ("", base),
    };
    if let Some(rest) = reference.strip_prefix("//") {
        let scheme = base.find("://").map_or("", |i| &base[..i]);
        return if scheme.is_empty() { format!("//{rest}") } else { format!("{scheme}://{rest}") };
    }
    let base_path = &path_etc[..path_etc.find(['?', '#']).unwrap_or(path_etc.len())];
    let (path, tail) = match reference.find(['?', '#']) {
        Some(i) => (&reference[..i], &reference[i..]),
        None => (reference, ""),
    };
    let merged = if path.is_empty() {
        // `?query` (or `#fragment`): the base's path.
        base_path.owned()
    } else if path.starts_with('/') {
        path.owned()
    } else {
        let dir = &base_path[..base_path.rfind('/').map_or(0, |i| i + 1)];
        format!("{}{path}", if dir.is_empty() { "/" } else { dir })
    };
    let tail = if path.is_empty() && tail.starts_with('#') {
        // Only a fragment: the base's query stays.
        format!("{}{tail}", &path_etc[base_path.len()..path_etc.find('#').unwrap_or(path_etc.len())])
    } else {
        tail.owned()
    };
    format!("{origin}{}{tail}", remove_dot_segments(&merged))
}

fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len() - 1;
    for (i, seg) in segments.iter().enumerate() {
        match *seg {
            "." => {
                if i == last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if i == last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if path.starts_with('/') && !joined.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

/// What a registration waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// The messages of the request of this id.
    Request(Id),
    /// What belongs to no request: the client's standalone stream.
    Listener,
    /// Nothing: reads the stream on while a notification's (or a response's) POST waits.
    Driver,
}

/// One waiting reader of the shared stream.
struct Waiter {
    kind: Kind,
    /// SSE events to give it, each with whether it belongs to no request (it goes to another
    /// reader when this one leaves before reading it).
    queue: Vec<(Vec<u8>, bool)>,
    bytes: usize,
    waker: Option<Waker>,
    /// More than the bound came for it unread: the error to give once its queue is gone.
    overflowed: bool,
    /// A request of the server's was given to it to answer.
    asked: bool,
    /// Its response came (or what fails it: an event that is no JSON, an error of id null).
    answered: bool,
}

/// What a read of a body gives.
type Chunk = Option<Result<Vec<u8>, TransportError>>;

/// The shared stream being read: the body, or the read in flight (which owns it, so that whoever
/// polls next goes on with it: a read dropped half way could lose its chunk).
enum Reader<B> {
    Idle(B),
    Reading(Pin<Box<dyn Future<Output = (B, Chunk)>>>),
    /// Being polled, or ended.
    None,
}

/// How the shared stream ended.
#[derive(Clone)]
enum Ended {
    /// Closed (by the server, or the client's DELETE).
    Closed,
    /// An error to give every request still waiting.
    Failed(Box<Error>),
}

struct ConnState<B> {
    reader: Reader<B>,
    parser: SseParser,
    /// What the stream holds (the parser's unfinished event, every waiter's queue, the backlog),
    /// against the budget and the server's share.
    held: Held,
    /// By key, oldest first. A few at a time: a list, where a map would cost more code than it saves.
    waiters: Vec<(u64, Waiter)>,
    next_key: u64,
    /// What belongs to no request, read while none waited for it (given to the next reader).
    backlog: Vec<Vec<u8>>,
    backlog_bytes: usize,
    /// How many server requests went to the backlog in all (a notification's POST that waits
    /// sees one come, and goes on by itself).
    asked_unread: u64,
    ended: Option<Ended>,
    /// POSTs not answered yet when their requests left before their responses came (see
    /// [`Registration::post`]): read on by whoever reads the stream, so that the server's answer
    /// is taken rather than aborted.
    posts: Vec<Posting<B>>,
}

/// One session of the old transport: its shared stream and who waits on it.
struct Conn<B> {
    endpoint: String,
    session: String,
    /// `initialize` went over it already (another one opens a new stream).
    initialized: Cell<bool>,
    max_buffered_bytes: usize,
    state: RefCell<ConnState<B>>,
}

/// A waiter's place on a shared stream, removed when dropped (a request that timed out, was
/// cancelled or got its response): what it held that belongs to no request goes to another.
pub struct Registration<B> {
    conn: Rc<Conn<B>>,
    key: u64,
    /// The request's POST, when the server asked the client something, or sent the response,
    /// before answering it: read on with the stream, its answer checked (when the request leaves
    /// before its response, read on by the stream's readers; after it, aborted).
    post: Option<Posting<B>>,
}

impl<B> Registration<B> {
    fn kind_is_driver(&self) -> bool {
        self.conn.state.borrowed_mut().waiter(self.key).is_some_and(|w| w.kind == Kind::Driver)
    }
}

impl<B: Body + 'static> Registration<B> {
    /// The next chunk for the request; a refusal of its POST (answered after the server had
    /// asked the client something) is its error.
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Vec<u8>, TransportError>>> {
        if let Some(Poll::Ready(answered)) = self.post.as_mut().map(|p| p.as_mut().poll(cx)) {
            self.post = None;
            match answered {
                Ok(resp) if (200..300).contains(&resp.status) => {}
                Ok(resp) => {
                    let status = resp.status;
                    drop(resp);
                    // The server does not know the session: its stream is of no use any more.
                    if status == 404 {
                        self.conn.end(None);
                    }
                    return Poll::Ready(Some(Err(TransportError::Refused(Box::new(
                        Error::new(ErrorCode::HttpStatus, format!("the server answered its POST with HTTP {status}, after its event stream had asked the client something for it or brought its response (HTTP+SSE transport)"))
                            .with_detail("status", status),
                    )))));
                }
                Err(e) => return Poll::Ready(Some(Err(e))),
            }
        }
        self.conn.poll_waiter(self.key, cx)
    }
}

impl<B> Drop for Registration<B> {
    fn drop(&mut self) {
        let mut post = self.post.take();
        let wake = {
            let mut st = self.conn.state.borrowed_mut();
            // Its POST, left before its response came (a timeout, a cancel), is answered all the
            // same (dropped, it would be aborted): the stream's readers take the answer. Once the
            // response came, the answer is of no use (nothing reads it), and a POST the server
            // answers late or never would hold a connection to it (a browser has 6 an origin):
            // aborted, after the borrow.
            let answered = st.waiter(self.key).is_some_and(|w| w.answered);
            if let Some(p) = post.take_if(|_| st.ended.is_none() && !answered) {
                st.posts.push(p);
            }
            let Some(at) = st.waiters.iter().position(|(k, _)| *k == self.key) else { return };
            let (_, w) = st.waiters.remove(at);
            let mut wake = Vec::new();
            for (event, unowned) in w.queue {
                if unowned {
                    st.deliver_unowned(event, self.conn.max_buffered_bytes, &mut wake);
                }
            }
            // It may have been the one reading: another takes over.
            st.others(self.key, &mut wake);
            st.release();
            wake
        };
        drop(post);
        wake.into_iter().for_each(Waker::wake);
    }
}

impl<B: Body + 'static> Conn<B> {
    fn is_open(&self) -> bool {
        self.state.borrowed().ended.is_none()
    }

    /// A new waiter (`None` when the stream has ended, or for a second listener).
    fn register(this: &Rc<Self>, kind: Kind) -> Option<Registration<B>> {
        let mut st = this.state.borrowed_mut();
        if st.ended.is_some() || (kind == Kind::Listener && st.waiters.iter().any(|(_, w)| w.kind == Kind::Listener)) {
            return None;
        }
        let key = st.next_key;
        st.next_key += 1;
        let mut w = Waiter { kind, queue: Vec::new(), bytes: 0, waker: None, overflowed: false, asked: false, answered: false };
        // What waited for no one goes to the first that can take it.
        if w.kind != Kind::Driver {
            st.backlog_bytes = 0;
            for event in std::mem::take(&mut st.backlog) {
                // Not what its POST waits for (it came before): read once the POST is answered.
                w.bytes += event.len();
                w.queue.push((event, true));
            }
        }
        st.waiters.push((key, w));
        Some(Registration { conn: this.clone(), key, post: None })
    }

    /// Reads on the POSTs whose requests left before their answers (polled with no borrow held:
    /// they are the host's).
    fn poll_posts(&self, cx: &mut Context<'_>) {
        let posts = std::mem::take(&mut self.state.borrowed_mut().posts);
        if posts.is_empty() {
            return;
        }
        let mut pending: Vec<_> = posts.into_iter().filter_map(|mut p| p.as_mut().poll(cx).is_pending().then_some(p)).collect();
        let mut st = self.state.borrowed_mut();
        if st.ended.is_none() {
            pending.append(&mut st.posts);
            st.posts = pending;
        } else {
            drop(st);
            drop(pending);
        }
    }

    /// Ends the stream (its GET aborted, and the POSTs it reads on) and wakes every waiter.
    fn end(&self, why: Option<Error>) {
        let posts = std::mem::take(&mut self.state.borrowed_mut().posts);
        drop(posts);
        let wake = {
            let mut st = self.state.borrowed_mut();
            if st.ended.is_none() {
                st.ended = Some(why.map_or(Ended::Closed, |e| Ended::Failed(Box::new(e))));
            }
            st.reader = Reader::None;
            // The event it was in the middle of will never be complete (nothing is fed to it again).
            st.parser = SseParser::default();
            st.release();
            st.waiters.iter_mut().filter_map(|(_, w)| w.waker.take()).collect::<Vec<_>>()
        };
        wake.into_iter().for_each(Waker::wake);
    }

    /// The next chunk for waiter `key`: an event of its queue, else the shared stream read on.
    fn poll_waiter(&self, key: u64, cx: &mut Context<'_>) -> Poll<Option<Result<Vec<u8>, TransportError>>> {
        loop {
            {
                let mut st = self.state.borrowed_mut();
                let ended = st.ended.clone();
                let Some(w) = st.waiter(key) else { return Poll::Ready(None) };
                if !w.queue.is_empty() {
                    let (event, _) = w.queue.remove(0);
                    w.bytes -= event.len();
                    // Its reader holds it now, against the budget too.
                    st.release();
                    let mut wake = Vec::new();
                    st.others(key, &mut wake);
                    drop(st);
                    wake.into_iter().for_each(Waker::wake);
                    return Poll::Ready(Some(Ok(event)));
                }
                if w.overflowed {
                    w.overflowed = false;
                    return Poll::Ready(Some(Err(TransportError::Refused(Box::new(Error::new(
                        ErrorCode::LimitExceeded,
                        format!("more than {} bytes of the server's event stream came for it unread (options.maxResponseBytes)", self.max_buffered_bytes),
                    ))))));
                }
                match ended {
                    Some(Ended::Closed) => {
                        // A request's stream ends with an error that says what ended; the
                        // standalone stream just ends.
                        return Poll::Ready(match w.kind {
                            Kind::Listener => None,
                            _ => Some(Err(TransportError::Refused(Box::new(Error::new(
                                ErrorCode::Protocol,
                                "the server's event stream (HTTP+SSE transport) ended before the response; the session is gone",
                            ))))),
                        });
                    }
                    Some(Ended::Failed(e)) => return Poll::Ready(Some(Err(TransportError::Refused(e)))),
                    None => {}
                }
            }
            if self.read_on(key, cx).is_pending() {
                return Poll::Pending;
            }
        }
    }

    /// Reads the stream on for waiter `key` (a POST's wait) until it ends, or until the server
    /// asks something that waiter is to answer.
    fn drive(&self, key: u64, cx: &mut Context<'_>) -> Poll<Drove> {
        loop {
            if self.state.borrowed().ended.is_some() {
                return Poll::Ready(Drove::Ended);
            }
            if self.state.borrowed_mut().waiter(key).is_some_and(|w| w.asked) {
                return Poll::Ready(Drove::Asked);
            }
            if self.state.borrowed_mut().waiter(key).is_some_and(|w| w.answered) {
                return Poll::Ready(Drove::Answered);
            }
            if self.read_on(key, cx).is_pending() {
                return Poll::Pending;
            }
        }
    }

    /// One read of the shared stream, its events routed: `Ready` when it brought something (or
    /// the end), `Pending` (with the waker kept for `key`) when it waits.
    fn read_on(&self, key: u64, cx: &mut Context<'_>) -> Poll<()> {
        self.poll_posts(cx);
        let reader = std::mem::replace(&mut self.state.borrowed_mut().reader, Reader::None);
        let mut read = match reader {
            Reader::Idle(mut body) => Box::pin(async move {
                let chunk = body.next_chunk().await;
                (body, chunk)
            }) as Pin<Box<dyn Future<Output = _>>>,
            Reader::Reading(read) => read,
            Reader::None => {
                // Only an ended stream has no reader (it is put back before anyone else polls).
                self.end(None);
                return Poll::Ready(());
            }
        };
        // Polled with no borrow held: the body is the host's.
        let polled = read.as_mut().poll(cx);
        let mut wake = Vec::new();
        {
            let mut st = self.state.borrowed_mut();
            match polled {
                Poll::Pending => {
                    if st.ended.is_none() {
                        st.reader = Reader::Reading(read);
                    }
                    if let Some(w) = st.waiter(key) {
                        w.waker = Some(cx.waker().clone());
                    }
                    return Poll::Pending;
                }
                Poll::Ready((body, Some(Ok(chunk)))) => {
                    if st.ended.is_some() {
                        return Poll::Ready(());
                    }
                    st.reader = Reader::Idle(body);
                    let want = st.holds() + chunk.len();
                    if let Err(why) = st.held.set(want) {
                        drop(st);
                        self.end(Some(held_too_much(&why)));
                        return Poll::Ready(());
                    }
                    match st.parser.feed(&chunk) {
                        Ok(items) => {
                            for item in items {
                                if let SseItem::Event(ev) = item {
                                    if ev.is_message() {
                                        st.route(&ev.data, self.max_buffered_bytes, &mut wake);
                                    }
                                }
                            }
                            // Framed as events, the messages may take a few bytes more than the chunk did.
                            if let Err(why) = st.count() {
                                drop(st);
                                wake.into_iter().for_each(Waker::wake);
                                self.end(Some(held_too_much(&why)));
                                return Poll::Ready(());
                            }
                        }
                        Err(t) => {
                            drop(st);
                            self.end(Some(Error::new(ErrorCode::LimitExceeded, format!("an event of the server's event stream is larger than {} bytes", t.limit))));
                            return Poll::Ready(());
                        }
                    }
                }
                Poll::Ready((_, end)) => {
                    drop(st);
                    // A stream that drops is as gone as one that ends: the server forgets the session.
                    // A body that could not be read (a chunk that is no bytes) says why, to every request.
                    match end {
                        Some(Err(TransportError::Refused(e))) => self.end(Some(*e)),
                        _ => self.end(None),
                    }
                    return Poll::Ready(());
                }
            }
        }
        wake.into_iter().for_each(Waker::wake);
        Poll::Ready(())
    }
}

impl<B> ConnState<B> {
    /// The bytes the stream holds: its unfinished event, and the messages waiting to be read.
    fn holds(&self) -> usize {
        self.parser.buffered() + self.backlog_bytes + self.waiters.iter().map(|(_, w)| w.bytes).sum::<usize>()
    }

    /// Holds what it holds now against the budget.
    fn count(&mut self) -> Result<(), Refusal> {
        let n = self.holds();
        self.held.set(n)
    }

    /// Gives back to the budget what it no longer holds (after something was taken out: holding
    /// less is never refused).
    fn release(&mut self) {
        let n = self.holds();
        debug_assert!(n <= self.held.get(), "released {n} of {}", self.held.get());
        let _ = self.held.set(n.min(self.held.get()));
    }

    /// Puts one message of the shared stream (an event's data) where it belongs.
    fn route(&mut self, data: &[u8], cap: usize, wake: &mut Vec<Waker>) {
        let Some(value) = std::str::from_utf8(data).ok().and_then(|t| read_message(t).ok()) else {
            // Its reader fails on it as a Streamable HTTP call fails on such an event of its stream.
            if let Some(key) = self.answered_by_no_json(data) {
                self.answer(key, frame(data), cap, wake);
            }
            return;
        };
        match value {
            // A batch: each message on its own.
            Value::Array(items) => {
                for item in items {
                    let text = crate::text::to_string(&item);
                    self.route_one(&item, frame(text.as_bytes()), cap, wake);
                }
            }
            v => self.route_one(&v, frame(data), cap, wake),
        }
    }

    fn route_one(&mut self, msg: &Value, event: Vec<u8>, cap: usize, wake: &mut Vec<Waker>) {
        let method = msg.get("method").and_then(Value::as_str);
        let owner = match method {
            None => match msg.get("id").and_then(Id::from_value) {
                Some(id) => match self.request(&id) {
                    Some(key) => return self.answer(key, event, cap, wake),
                    // A late response (its request timed out or was cancelled).
                    None => return,
                },
                // No id to tell what it answers (an error of id null: a message the server could
                // not read): the one request waiting, as for an event that is no JSON; dropped
                // while several wait, or none.
                None => {
                    if let Some(key) = self.only_request() {
                        self.answer(key, event, cap, wake);
                    }
                    return;
                }
            },
            Some("notifications/progress") => msg.pointer("/params/progressToken").and_then(Id::progress_token).and_then(|t| self.request(&t)),
            Some(_) => None,
        };
        match owner {
            Some(key) => self.push(key, event, false, cap, wake),
            None => self.deliver_unowned(event, cap, wake),
        }
    }

    /// The request a message that is no JSON (or no UTF-8) answers, as far as its text tells
    /// ([`sketch`]): the one its top-level `id` names, or, when no id can be read, the one request
    /// waiting. A message with a `method` (a notification, a request of the server's) answers none,
    /// nor does one that names no request waiting (a late response), nor, with several requests
    /// waiting, one without an id (which it answers cannot be told): those are dropped, as the
    /// standalone stream drops such a message over Streamable HTTP.
    fn answered_by_no_json(&self, data: &[u8]) -> Option<u64> {
        let text = String::from_utf8_lossy(data);
        let Sketch { id, method } = sketch(&text);
        if method {
            return None;
        }
        match id {
            Some(id) => self.request(&id),
            None => self.only_request(),
        }
    }

    /// The one request waiting, when only one is.
    fn only_request(&self) -> Option<u64> {
        let mut requests = self.waiters.iter().filter(|(_, w)| matches!(w.kind, Kind::Request(_)));
        match (requests.next(), requests.next()) {
            (Some((key, _)), None) => Some(*key),
            _ => None,
        }
    }

    fn request(&self, id: &Id) -> Option<u64> {
        self.waiters.iter().find(|(_, w)| matches!(&w.kind, Kind::Request(i) if i == id)).map(|(k, _)| *k)
    }

    /// What belongs to no request: to the standalone stream, else the oldest request, else kept
    /// for the next (the oldest dropped past the bound).
    fn deliver_unowned(&mut self, event: Vec<u8>, cap: usize, wake: &mut Vec<Waker>) {
        let listener = self.waiters.iter().find(|(_, w)| w.kind == Kind::Listener && !w.overflowed).map(|(k, _)| *k);
        let oldest = || self.waiters.iter().find(|(_, w)| matches!(w.kind, Kind::Request(_)) && !w.overflowed).map(|(k, _)| *k);
        match listener.or_else(oldest) {
            Some(key) => self.push(key, event, true, cap, wake),
            None => {
                self.asked_unread += u64::from(asks(&event));
                self.backlog_bytes += event.len();
                self.backlog.push(event);
                while self.backlog_bytes > cap && !self.backlog.is_empty() {
                    let old = self.backlog.remove(0);
                    self.backlog_bytes -= old.len();
                }
            }
        }
    }

    /// The response of request `key` (or what fails it), which its POST's wait ends on.
    fn answer(&mut self, key: u64, event: Vec<u8>, cap: usize, wake: &mut Vec<Waker>) {
        self.push(key, event, false, cap, wake);
        if let Some(w) = self.waiter(key) {
            w.answered = true;
        }
    }

    fn push(&mut self, key: u64, event: Vec<u8>, unowned: bool, cap: usize, wake: &mut Vec<Waker>) {
        let Some(w) = self.waiter(key) else { return };
        if w.bytes + event.len() > cap {
            // Nobody reads it: what it has is dropped, and it fails when it reads again.
            w.queue.clear();
            w.bytes = 0;
            w.overflowed = true;
        } else {
            w.bytes += event.len();
            w.asked |= unowned && asks(&event);
            w.queue.push((event, unowned));
        }
        wake.extend(w.waker.take());
    }

    /// The wakers of every waiter but `key`, so that one of them reads on.
    fn others(&mut self, key: u64, wake: &mut Vec<Waker>) {
        wake.extend(self.waiters.iter_mut().filter(|(k, _)| *k != key).filter_map(|(_, w)| w.waker.take()));
    }

    fn waiter(&mut self, key: u64) -> Option<&mut Waiter> {
        self.waiters.iter_mut().find(|(k, _)| *k == key).map(|(_, w)| w)
    }
}

/// Past the memory budget or the server's share: the error of every request of the stream.
fn held_too_much(why: &Refusal) -> Error {
    Error::new(ErrorCode::LimitExceeded, format!("the server's event stream (HTTP+SSE transport): {why}"))
}

/// Whether an event (as [`frame`] makes it) is a request of the server's: a method, and an id.
fn asks(event: &[u8]) -> bool {
    let mut data = Vec::with_capacity(event.len());
    for (i, line) in event.split(|b| *b == b'\n').filter_map(|l| l.strip_prefix(b"data: ")).enumerate() {
        if i > 0 {
            data.push(b'\n');
        }
        data.extend_from_slice(line);
    }
    std::str::from_utf8(&data).ok().and_then(|t| read_message(t).ok()).is_some_and(|v| v.get("method").is_some_and(Value::is_string) && v.get("id").and_then(Id::from_value).is_some())
}

/// A message as one SSE event (`data:` lines).
fn frame(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 16);
    for line in data.split(|b| *b == b'\n') {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests;
