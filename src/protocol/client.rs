//! The MCP client over Streamable HTTP (protocol revisions 2025-03-26, 2025-06-18, 2025-11-25,
//! and 2026-07-28: see [`Era`]).
//!
//! * Handshake: `initialize` asking for 2025-11-25, the answer checked against the versions
//!   toolwire speaks, then `notifications/initialized` (200, 202 and 204 are all fine).
//! * Every later request carries `Mcp-Session-Id` (when the server issued one) and
//!   `MCP-Protocol-Version`.
//! * Responses as JSON (one message or a batch) or as SSE; notifications and server requests
//!   may come first: `ping` is answered `{}`, the others by the request handler (elicitation,
//!   sampling, roots: see [`Client::set_request_handler`]) or else -32601, at most
//!   [`MAX_SERVER_REQUESTS`] at once (past them, -32000 at once); progress goes to the call its
//!   token names (its integer written as a string too: [`Id::progress_token`]), on whichever
//!   stream it comes (the call's, [`Client::listen`]'s, another call's: the SDK's `Protocol`
//!   routes it so), everything else to the client's notification handler; a response goes to the
//!   request its id names on whichever stream it comes too, and ends it as its own stream's would
//!   (the answers that stream's server requests wait for still go out). Id 0 is a real id.
//! * A stream that drops before its response is resumed: wait `retry` ms (never less than 100, and
//!   more while the streams bring nothing toward the response: see [`reopen_delay`]; without
//!   `retry`, back off), then GET with `Last-Event-ID` (the id of the last complete event over all of the
//!   response's streams that a header can carry: see `resumable_id`); a reopening that fails in a way that may pass (no response, 408,
//!   409, 425, 429, 5xx; 409 is the MCP SDK's server still holding the dropped stream) is retried
//!   up to `max_retries` times in a row, and one that succeeds starts that count again (a server
//!   may close the stream after every event and have the client poll). A resumed stream does not
//!   act again on an event whose id was dealt with already, on any stream of the session (a
//!   server may replay from before that id, or other streams' events).
//! * A 404 on a request that carried a session id means the session expired: re-initialize
//!   once, however many requests met it (the others wait for the new session), and retry. So
//!   does a 400 whose body names the session (`No valid session ID provided`: servers after the
//!   SDK's examples, server-everything among them, say it so). Each request waits for the new
//!   session within its own timeout and cancellation, the one that drives the handshake too (with
//!   a spawner, the handshake goes on for the others when it gives up).
//! * A stream belongs to the session it was opened on ([`SentOn`]): once that session is no
//!   longer the client's (renewed, ended by `connect()`), a call's stream of it is dropped and the
//!   call fails at once (never resumed on the new session, nor sent again: it may have run; but
//!   a request that changes nothing, a listing, is sent again there, [`read_only`]), its
//!   server requests are answered on it or not at all, their cancellations reach that session's
//!   requests only, and [`Client::listen`] moves to the new session.
//! * The standalone stream (a GET held open for what belongs to no request) is opt-in:
//!   [`Client::listen`] reads it, and reopens it, until the client is closed.
//! * Per-request timeouts (default 120 s), the optional idle timeout of a response stream and
//!   caller cancellation: the request's HTTP exchange is dropped (which aborts its fetch) and
//!   `notifications/cancelled` is sent (never for `initialize`, nor for a request refused with 401
//!   or 403 that waits for the unauthorized handler: the server never took it), within [`CANCEL_GRACE_MS`]: in the
//!   background with a spawner ([`Client::set_spawner`]: the caller has its error at the deadline,
//!   whatever the server does with the notification), else before the error is returned; one
//!   not yet sent when the client is closed is dropped. A task-augmented request (2025-11-25) is
//!   cancelled by `tasks/cancel` instead ([`Client::cancel_created_task`]).
//! * A 401 (or a 403 asking for more scopes) asks the unauthorized handler (if set) for new
//!   headers, and what met it (an answer to a server request too) is sent once more with them ([`Client::set_unauthorized_handler`];
//!   [`crate::protocol::auth::OAuth`] is such a handler). Headers it gave that the server refused
//!   at once, and with which no request has succeeded, are marked: a 401 to a later request sent with them tells the handler so
//!   (`refusedAtOnce`), until a request succeeds with them or [`Client::connect`] or
//!   [`Client::close`] is called.
//! * Every failure is a typed [`Error`]: `HTTP_STATUS`, `JSONRPC_ERROR`, `TIMEOUT`, `ABORTED`,
//!   `NETWORK` (with the CORS explanation), `UNAUTHORIZED` (with the parsed challenge),
//!   `PROTOCOL`, `UNSUPPORTED_PROTOCOL_VERSION` (a 2026-07-28 server's refusal of the handshake
//!   too), `CAPABILITY_NOT_NEGOTIATED`, `SESSION_EXPIRED` (a cursor of a renewed session),
//!   `INPUT_REQUIRED` (a 2026-07-28 server's request for input, without a handler to give it).
//!
//! A server of the deprecated HTTP+SSE transport (2024-11-05) is spoken to through
//! [`crate::protocol::legacy_sse::LegacySse`], a transport that makes it look like a Streamable
//! HTTP server to this client. Its `2024-11-05` is accepted in the handshake, as it is from a
//! Streamable HTTP server (an older server behind a gateway).
//!
//! With a 2026-07-28 server ([`Era::Modern`], or [`Era::Auto`] once `initialize` is refused the
//! way such a server refuses it) there is no handshake and no session: `server/discover` tells
//! the server's capabilities; every request carries the version, the client's capabilities and
//! `clientInfo` in `_meta`, and the headers `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
//! `Mcp-Param-*` (the arguments a tool's schema marks with `x-mcp-header`; a tool whose marks break
//! the rules is left out of the list, see [`Client::dropped_tools`]); an `input_required` result
//! is answered through the request handler and the request sent again (a new id, with
//! `inputResponses` and the `requestState` as given); a timeout or a cancellation closes the
//! request's stream, which is what cancels it; a stream that breaks before the response is not
//! resumed, the request is sent again (once; not a `tools/call`, which may have run);
//! [`Client::listen`] is `subscriptions/listen`, whose filter asks for the resources the app
//! subscribed to: `resources/subscribe` and `unsubscribe`, which the revision does not have, are
//! not sent but change the client's subscriptions ([`Client::subscribe_here`]); `ping` and
//! `logging/setLevel`, which it does not have either, are refused unsent.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use futures_util::future::{select, Either};
use futures_util::stream::{FuturesUnordered, StreamExt};
use futures_util::pin_mut;
use serde_json::{Map, Value};

use crate::error::{Error, ErrorCode, Result};
use crate::model::{object, read_json, string, Borrowed as _, Put as _};
use crate::protocol::jsonrpc::{self, classify_all, Id, Incoming, Malformed, RpcError};
use crate::protocol::budget::{Collected, Held, Refusal};
use crate::protocol::sse::{SseEvent, SseItem, SseParser};
use crate::protocol::transport::{Body, Clock, HttpRequest, HttpResponse, McpTransport, Method, Transport, TransportError};
use crate::protocol::headers::{header_params, header_value, param_headers, HeaderParam};
use crate::protocol::{LATEST_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS};
use crate::text::Owned as _;

/// Which revisions of MCP a client speaks with its server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Era {
    /// `initialize` first (what deployed servers speak); a server that refuses it the way a
    /// 2026-07-28 server does (HTTP 400 with -32020, -32021 or -32022, or -32601 for the
    /// method), or answers it with 2026-07-28, is then spoken to in 2026-07-28. The verdict is
    /// kept: connecting again to such a server asks `server/discover` first.
    #[default]
    Auto,
    /// 2025-03-26 to 2025-11-25 only: `initialize`, sessions.
    Legacy,
    /// 2026-07-28 only: no handshake, `server/discover`.
    Modern,
}

/// Client settings.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// The MCP endpoint.
    pub url: String,
    /// Extra headers on every request (e.g. `Authorization`).
    pub headers: Vec<(String, String)>,
    /// Per-request timeout, in ms (default 120,000).
    pub timeout_ms: u64,
    /// Optional: fail a request when its response stream is silent this long.
    pub idle_timeout_ms: Option<u64>,
    /// `clientInfo` sent in `initialize`.
    pub client_info: Value,
    /// Most `tools/list` pages followed (default 64).
    pub max_pages: usize,
    /// Most tools accepted from one server (default 10,000), and most items of any other list
    /// ([`Client::list_all`]).
    pub max_tools: usize,
    /// Retries, in a row, of a failed reopening of a dropped stream (a call's, the standalone
    /// one) before it is given up (default 2: the third failure in a row ends it).
    pub max_retries: u32,
    /// Largest SSE event, in bytes (default 16 MiB).
    pub max_event_bytes: usize,
    /// Largest JSON response body, in bytes (default 64 MiB).
    pub max_body_bytes: usize,
    /// `capabilities` sent in `initialize` (default `{}`): a server sends `elicitation/create`,
    /// `sampling/createMessage` or `roots/list` only to a client that declares it handles them.
    pub capabilities: Map<String, Value>,
    /// The revisions spoken (default [`Era::Auto`]).
    pub era: Era,
    /// The least severe log messages (`notifications/message`) wanted from the server: asked
    /// with `logging/setLevel` after the handshake (servers that declare `logging`), or in every
    /// request's `_meta` with 2026-07-28, whose servers send none for a request that does not ask.
    pub log_level: Option<String>,
    /// Check a tool's `structuredContent` against the `outputSchema` it was listed with (default
    /// true; see [`crate::schema::validate`] for the keywords checked): a result that breaks it,
    /// or that has none, fails the call with `PROTOCOL` (`violations`, and the `result` itself).
    pub validate_structured_content: bool,
}

impl ClientOptions {
    /// Defaults for an endpoint.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: Vec::new(),
            timeout_ms: 120_000,
            idle_timeout_ms: None,
            client_info: object([("name", string("toolwire")), ("version", string(crate::VERSION))]),
            max_pages: 64,
            max_tools: 10_000,
            max_retries: 2,
            max_event_bytes: crate::protocol::sse::DEFAULT_MAX_EVENT_BYTES,
            max_body_bytes: 64 << 20,
            capabilities: Map::new(),
            era: Era::Auto,
            log_level: None,
            validate_structured_content: true,
        }
    }
}

/// Why `capabilities` (a client's, to declare) are not what MCP's `ClientCapabilities` takes:
/// each capability it names (`roots`, `sampling`, `elicitation`, `tasks`, `experimental`,
/// `extensions`) must be an object, and so must the parts of them a server reads (`roots`'s
/// `listChanged` a boolean). A server refuses the handshake of a client that sends another value
/// (the MCP SDK's answers 400 without saying why), and `true`, `0` or `"no"` would leave it
/// unclear what was declared. A capability not declared is left out (`null` and `false` are
/// refused too: the SDK's server refuses them as well). Other keys are sent as given.
pub fn capabilities_problem(caps: &Map<String, Value>) -> Option<String> {
    const OBJECTS: [(&str, &[&str]); 6] = [
        ("roots", &[]),
        ("sampling", &["context", "tools"]),
        ("elicitation", &["form", "url"]),
        ("tasks", &[]),
        ("experimental", &[]),
        ("extensions", &[]),
    ];
    // (The JS layer says what was given, after the path.)
    for (key, parts) in OBJECTS {
        let Some(v) = caps.get(key) else { continue };
        let Value::Object(o) = v else {
            return Some(format!("options.capabilities.{key} must be an object (leave it out to declare no {key})"));
        };
        if let Some(part) = parts.iter().find(|p| o.get(**p).is_some_and(|v| !v.is_object())) {
            return Some(format!("options.capabilities.{key}.{part} must be an object"));
        }
        if matches!(key, "experimental" | "extensions") {
            if let Some((k, v)) = o.iter().find(|(_, v)| !v.is_object()) {
                return Some(format!("options.capabilities.{key}[{}] must be an object; got {}", crate::text::quote(k), crate::model::json_type(v)));
            }
        }
    }
    caps.get("roots")
        .and_then(|r| r.get("listChanged"))
        .is_some_and(|v| !v.is_boolean())
        .then(|| "options.capabilities.roots.listChanged must be a boolean".to_owned())
}

/// A boxed future that resolves when the caller cancels.
pub type CancelFuture = Pin<Box<dyn Future<Output = ()>>>;

/// Receives the params of each `notifications/progress` for a call.
pub type ProgressHandler = Box<dyn Fn(&Value)>;

/// Per-call options.
#[derive(Default)]
pub struct CallOptions {
    /// Overrides the client's timeout.
    pub timeout_ms: Option<u64>,
    /// Receives `notifications/progress` params for this call (opting in with a progress token),
    /// whatever stream brings them.
    pub on_progress: Option<ProgressHandler>,
    /// Resolves when the caller aborts.
    pub cancel: Option<CancelFuture>,
    /// Why the caller aborted, read once `cancel` resolved: the `reason` of the
    /// `notifications/cancelled` sent (default "aborted by the client").
    pub cancel_reason: Option<Box<dyn Fn() -> Option<String>>>,
    /// Whether `cancel` fired for time, read once it resolved (a JS signal of
    /// `AbortSignal.timeout`, whose reason is a `TimeoutError`): the call ends `TIMEOUT`, not
    /// `ABORTED`, as `fetch` tells the two apart.
    pub cancel_timed_out: Option<Box<dyn Fn() -> bool>>,
    /// Each progress notification for the call starts the timeout again: the call times out
    /// after `timeout_ms` without progress. It asks for progress (a progress token) with
    /// `on_progress` or without.
    pub reset_timeout_on_progress: bool,
    /// Ends the call after this long whatever its progress (with `reset_timeout_on_progress`).
    pub max_total_timeout_ms: Option<u64>,
    /// Keys added to the request's `params._meta` (over those the params carry): not those the
    /// client sets itself ([`CLIENT_META_KEYS`]: `INVALID_OPTIONS`). A task-run tool's call carries
    /// them, its `tasks/*` requests do not; every page of a listing does.
    pub meta: Option<Map<String, Value>>,
}

impl CallOptions {
    /// Whether the request asks for progress (sends a progress token): for `on_progress`, or
    /// for `reset_timeout_on_progress`, which needs it to hear of any.
    fn wants_progress(&self) -> bool {
        self.on_progress.is_some() || self.reset_timeout_on_progress
    }
}

/// The `_meta` keys the client sets itself, refused in [`CallOptions::meta`]: the progress token
/// (`on_progress` asks for one) and what a 2026-07-28 request carries.
pub const CLIENT_META_KEYS: [&str; 5] = [
    "progressToken",
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/logLevel",
];

/// A caller's own `params._meta` ([`Client::request_checked`], [`Client::list_all`],
/// [`Client::notify_checked`]), in every revision: an object (`INVALID_INPUT`, not dropped for the
/// client's keys; `null` is none), without a key the client sets itself ([`CLIENT_META_KEYS`], refused as in
/// [`CallOptions::meta`]; it is not overwritten without a word). A `null` is taken out: it is
/// none, and servers refuse a message whose `_meta` is not an object.
fn check_params_meta(params: &mut Value) -> Result<()> {
    let problem = match params.get("_meta") {
        None => return Ok(()),
        // `null` is taken for none (the progress token, the revision's keys take its place).
        Some(Value::Null) => {
            params.as_object_mut().map(|p| p.remove("_meta"));
            return Ok(());
        }
        Some(Value::Object(m)) => match m.keys().find(|k| CLIENT_META_KEYS.contains(&k.as_str())) {
            None => return Ok(()),
            Some(k) if k == "progressToken" => format!("must not hold \"{k}\": give onProgress, and the client makes the token"),
            Some(k) => format!("must not hold \"{k}\": the client sets it"),
        },
        Some(other) => format!("must be an object, not {}", crate::model::json_type(other)),
    };
    Err(Error::new(ErrorCode::InvalidInput, format!("params._meta {problem}")))
}

/// `params` with `meta`'s keys in its `_meta` (made an object when it is not one); params that are
/// neither an object nor null are left as they are.
fn merge_meta(params: Value, meta: Option<&Map<String, Value>>) -> Result<Value> {
    let Some(meta) = meta else { return Ok(params) };
    if let Some(k) = meta.keys().find(|k| CLIENT_META_KEYS.contains(&k.as_str())) {
        let why = if k == "progressToken" { "give onProgress, and the client makes the token" } else { "the client sets it" };
        return Err(Error::new(ErrorCode::InvalidOptions, format!("options.meta must not hold \"{k}\": {why}")));
    }
    let mut p = match params {
        Value::Object(o) => o,
        Value::Null => Map::new(),
        other => return Ok(other),
    };
    let m = p.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
    if !m.is_object() {
        *m = Value::Object(Map::new());
    }
    if let Value::Object(m) = m {
        for (k, v) in meta {
            m.put(k, v.clone());
        }
    }
    Ok(Value::Object(p))
}

/// Runs a future to its end in the background (the host's task queue: `spawn_local` in a browser).
pub type Spawner = Rc<dyn Fn(Pin<Box<dyn Future<Output = ()>>>)>;

/// Sends `notifications/cancelled` with these params through a [`Spawner`], unless the client is
/// closed after the close generation given, or the session the request was sent on is gone
/// ([`Client::send_cancelled`]).
type SendCancelled = Rc<dyn Fn(Value, u64, SentOn)>;

/// A session renewal's handshake as a future that holds the client (not borrowed from the request
/// that drives it), with the [`Spawner`] that runs it to its end once that request stops waiting
/// ([`Client::drive_renewal`]). `None`: the client is gone.
type RenewInBackground = Rc<dyn Fn() -> Option<(Pin<Box<dyn Future<Output = Result<()>>>>, Spawner)>>;

/// The session a request was sent on: its `session_gen` and `Mcp-Session-Id`. Its cancellation
/// goes to that session, or nowhere once it is gone (renewed after a 404, ended by `connect()`):
/// another session never had the request.
#[derive(Clone, PartialEq)]
struct SentOn(u64, Option<String>);

/// Called after every handshake that succeeds: `connect()`, the first use of a hub's server, a
/// session renewed after it expired (the JS layer starts `listen()` from it: `options.listen`).
pub type ConnectedHandler = Box<dyn Fn()>;

/// Receives server notifications that are not progress for a call: `method`, `params`.
pub type NotificationHandler = Box<dyn Fn(&str, &Value)>;

/// Told of what went wrong outside any call the app made, which no call of the app's can fail
/// with: the subscriptions a renewed session lost ([`Client::set_problem_handler`]).
pub type ProblemHandler = Box<dyn Fn(&Error)>;

/// Answers a server request other than `ping` (`elicitation/create`, `sampling/createMessage`,
/// `roots/list`...): `method`, `params`, and its [`RequestContext`] (its id, the client request it
/// came for); the result, or the JSON-RPC error to answer with. Its future is dropped, and
/// no answer sent, when the server cancels the request (`notifications/cancelled` naming its id) or
/// the stream it came on is given up (its call timed out or was aborted, the client closed).
pub type RequestHandler = Box<dyn Fn(&str, &Value, &RequestContext) -> Pin<Box<dyn Future<Output = std::result::Result<Value, RpcError>>>>>;

/// What the [`RequestHandler`] is told of a server request besides its method and params.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestContext {
    /// The request's JSON-RPC id (a 2026-07-28 input request's key in `inputRequests`).
    pub id: Value,
    /// The client request it came for: the one whose response stream brought it, or whose
    /// 2026-07-28 `input_required` round asked for it. One that a `tasks/*` request's stream brings
    /// comes for the `tools/call` whose task that request follows ([`Client::call_tool`]). `None` for one the listening stream
    /// ([`Client::listen`]) brought, and for every one over the deprecated HTTP+SSE transport,
    /// whose single stream carries them all (which request one is for cannot be told there).
    pub related: Option<Related>,
    /// Whether it is an input request of a 2026-07-28 `input_required` round: an answer the
    /// client refuses ([`invalid_answer`]) fails the request that asked, so the app hears of it
    /// there; a server request's refusal is answered to the server alone.
    pub input_round: bool,
}

/// A client request, as a server request that came for it names it ([`RequestContext::related`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Related {
    /// Its JSON-RPC id (a 2026-07-28 request's, of the round that asked).
    pub id: Id,
    /// Its method (`tools/call`, `prompts/get`...).
    pub method: String,
    /// The tool's name, for a `tools/call`.
    pub tool: Option<String>,
}

impl Related {
    /// `{id, method, tool?}`, as the JS `onRequest` is given it.
    pub fn to_value(&self) -> Value {
        let mut v = object([("id", self.id.to_value()), ("method", string(&self.method))]);
        if let (Some(tool), Value::Object(m)) = (&self.tool, &mut v) {
            m.put("tool", string(tool));
        }
        v
    }
}

/// Asked for new headers when a request meets HTTP 401, or 403 with `error="insufficient_scope"`
/// (`{status, challenge, wwwAuthenticate, retried?, refusedAtOnce?}`):
/// headers to send from then on (a new `authorization`), with which the request is sent once
/// more; `None` leaves the 401 as the request's outcome; an error is the request's error. The
/// request sent again and refused again is asked for once more ([`MAX_REAUTHORIZATIONS`]), with
/// `retried`, the status of the refusal the headers answered: a step-up that meets a request whose
/// token was just refreshed, or a refreshed token refused. `refusedAtOnce`: the 401 of a request
/// sent with headers the handler gave that the server refused at once (a request sent again with
/// them, refused with 401), and with which no request has succeeded (before or since) nor `connect()` or
/// `close()` been called: a handler that asks a person may decline rather than ask again for every request;
/// or the 403 of a request sent with headers the handler gave for a step-up, with the
/// challenge the step-up was for (its `error` and scopes, whatever the rest of the
/// `WWW-Authenticate`: the scopes were not granted): the request sent again after the step-up
/// (`retried`, told to the handler after the last retry too, whose error, or `None`, is its
/// outcome: it is not sent again), and a later request refused with that challenge, whatever
/// headers it went out with, until one succeeds or `connect()` or `close()` is called. A 403 with
/// another challenge is another step-up.
pub type AuthHandler = Box<dyn Fn(&Value) -> Pin<Box<dyn Future<Output = Result<Option<Vec<(String, String)>>>>>>>;

/// How many times one request is sent again with new headers from the [`AuthHandler`]: the
/// second time for the refusal of the request sent again (MCP 2025-11-25: a step-up retried "no
/// more than a few times"; a 403 `insufficient_scope` after a 401 has its own, as the SDK's
/// transport gives it).
pub const MAX_REAUTHORIZATIONS: u8 = 2;

/// How many refused step-up challenges a client remembers (`refused_scope`).
const MAX_REFUSED_SCOPES: usize = 16;

/// The refusals of one request that the [`AuthHandler`] gave new headers for.
#[derive(Debug, Clone, Copy, Default)]
struct Reauthorizations {
    times: u8,
    /// The status of the last one.
    last: Option<u16>,
}

impl Reauthorizations {
    /// Whether the handler may be asked once more.
    fn left(self) -> bool {
        self.times < MAX_REAUTHORIZATIONS
    }

    fn record(&mut self, status: u16) {
        self.times += 1;
        self.last = Some(status);
    }
}

#[derive(Debug, Default)]
struct State {
    session_id: Option<String>,
    protocol_version: Option<String>,
    server_info: Option<Value>,
    instructions: Option<String>,
    capabilities: Option<Value>,
    connected: bool,
    closed: bool,
    /// Speaking 2026-07-28 (no session; `_meta` and headers on every request).
    modern: bool,
}

/// What one exchange ended with, before mapping to the caller's error.
enum Failure {
    Error(Error),
    /// 404 on a request that carried a session id, or 400 naming the session (the status).
    SessionExpired(u16),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Self::Error(e)
    }
}

/// Wakes every in-flight request when the client is closed (and, in the wasm layer, every
/// promise of an object when it is freed).
#[derive(Default)]
pub(crate) struct CloseSignal {
    generation: Cell<u64>,
    /// The waiters' wakers by their keys, sorted by key (a `BTreeMap`'s order, without its code:
    /// a few KB of wasm per map): a waiter takes its own out when dropped, so an open client
    /// holds none for the requests that have ended.
    wakers: RefCell<Vec<(u64, std::task::Waker)>>,
    next_key: Cell<u64>,
}

impl CloseSignal {
    pub(crate) fn fire(&self) {
        self.generation.set(self.generation.get() + 1);
        let wakers = std::mem::take(&mut *self.wakers.borrowed_mut());
        for (_, w) in wakers {
            w.wake();
        }
    }

    /// Resolves once `fire` is called after this point.
    pub(crate) fn wait(&self) -> CloseWait<'_> {
        self.wait_since(self.generation.get())
    }

    /// Resolves once `fire` has been called since [`CloseSignal::generation`] was `start`: at once
    /// if it was already.
    pub(crate) fn wait_since(&self, start: u64) -> CloseWait<'_> {
        CloseWait { signal: self, start, key: None }
    }
}

/// [`CloseSignal::wait`].
pub(crate) struct CloseWait<'a> {
    signal: &'a CloseSignal,
    start: u64,
    key: Option<u64>,
}

impl Future for CloseWait<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        let signal = self.signal;
        if signal.generation.get() != self.start {
            return std::task::Poll::Ready(());
        }
        let key = *self.key.get_or_insert_with(|| {
            let k = signal.next_key.get();
            signal.next_key.set(k + 1);
            k
        });
        let mut wakers = signal.wakers.borrowed_mut();
        match wakers.binary_search_by_key(&key, |(k, _)| *k) {
            Ok(i) => wakers[i].1 = cx.waker().clone(),
            Err(i) => wakers.insert(i, (key, cx.waker().clone())),
        }
        std::task::Poll::Pending
    }
}

impl Drop for CloseWait<'_> {
    fn drop(&mut self) {
        if let Some(key) = self.key {
            let mut wakers = self.signal.wakers.borrowed_mut();
            if let Ok(i) = wakers.binary_search_by_key(&key, |(k, _)| *k) {
                wakers.remove(i);
            }
        }
    }
}

/// An MCP client over a transport and a clock.
pub struct Client<T: Transport, C: Clock> {
    transport: T,
    clock: C,
    opts: ClientOptions,
    state: RefCell<State>,
    next_id: Cell<i64>,
    on_notification: RefCell<Option<NotificationHandler>>,
    on_request: RefCell<Option<RequestHandler>>,
    on_unauthorized: RefCell<Option<AuthHandler>>,
    /// Told of every handshake that succeeds ([`Client::set_connected_handler`]).
    on_connected: RefCell<Option<ConnectedHandler>>,
    /// The URIs of the session's `resources/subscribe` requests ([`Client::request_checked`])
    /// that the server accepted, less those unsubscribed since, in order: subscribed again on the
    /// session a renewal brings (a new session has none). With a 2026-07-28 server, which has no
    /// such requests, those the app asked for by name ([`Client::subscribe_here`]), sent in
    /// every `subscriptions/listen` filter instead (kept across a change of revision either way).
    /// `connect()` and `close()` forget them.
    subscribed: RefCell<Vec<String>>,
    /// Fired when `subscribed` changes by the app's asking (a 2026-07-28 subscription made or
    /// ended by name, or forgotten by `connect()` and `close()`): a `subscriptions/listen` under
    /// way is made again with the new filter ([`Client::subscribe`]).
    subscriptions_changed: CloseSignal,
    /// A refusal of a 2026-07-28 subscription taken for the server's redeployment as a 2025 one
    /// had a new handshake since a listening stream (of either revision) last opened, or
    /// [`Client::listen`] began: another such refusal has none ([`Client::subscribe`]). The
    /// listening's own, not its loop's: the move to the standalone stream and back (its
    /// refusal of the session renewing it into 2026-07-28) starts that loop over, and a server
    /// whose handshakes alternate would have them follow each other without end.
    listen_rehandshaken: Cell<bool>,
    /// How many times `connect()` and `close()` forgot `subscribed`: a renewal that sent them
    /// again meanwhile does not put back or report what was forgotten.
    subscriptions_forgotten: Cell<u64>,
    /// The last handshake subscribed its session again to what `connect()` or `close()` forgot
    /// meanwhile: a `connect()` that joined it opens a session of its own.
    resubscribed_forgotten: Cell<bool>,
    /// Told of the subscriptions a renewed session lost ([`Client::set_problem_handler`]).
    on_problem: RefCell<Option<ProblemHandler>>,
    /// Headers the [`AuthHandler`] gave, over those of the options with the same names.
    auth_headers: RefCell<Vec<(String, String)>>,
    /// How many times [`Client::set_auth_headers`] changed them (a value, not a call).
    auth_generation: Cell<u64>,
    /// The `auth_generation` of headers the [`AuthHandler`] gave that the server refused at once
    /// (HTTP 401 to the request sent again with them), until a request sent with them succeeds or
    /// [`Client::connect`] or [`Client::close`] is called: a 401 to a request sent with them tells the handler
    /// (`refusedAtOnce`), which need not ask for new ones again for every request.
    refused_auth: Cell<Option<u64>>,
    /// The challenges ([`scope_challenge`]) of 403s `insufficient_scope` whose step-up the
    /// server refused with the same 403 again (at most [`MAX_REFUSED_SCOPES`], the oldest dropped),
    /// until a request succeeds or [`Client::connect`] or [`Client::close`] is called: the same
    /// 403 to a later request, whatever headers it went out with (a token refreshed since, another
    /// step-up), tells the handler (`refusedAtOnce`): one sign-in per refusal, not per request.
    refused_scope: RefCell<Vec<String>>,
    /// The `auth_generation` of the headers the [`AuthHandler`] last gave for a 403 (a step-up),
    /// and the challenges ([`scope_challenge`]) of the refusals they were given for: a request sent
    /// again with them and refused with one of those is a step-up not granted; with another
    /// challenge (the server names the scopes it misses one at a time), it is another step-up.
    stepped_up: RefCell<Option<(u64, Vec<String>)>>,
    /// The latest `auth_generation` a request sent with succeeded: not marked refused at once by a
    /// 401 that comes after (a request of its own the server refuses, or a replica behind).
    accepted_auth: Cell<Option<u64>>,
    closing: CloseSignal,
    /// A [`Client::listen`] runs (a second one waits for its outcome), and how the last ended.
    listening: Cell<bool>,
    listened: CloseSignal,
    /// The outcome of the listening under way, once it has one (each listening its own: a
    /// later one does not overwrite what an earlier one's waiters read).
    listen_outcome: RefCell<Rc<RefCell<Option<Result<bool>>>>>,
    /// The `notifications/tools/list_changed` that came so far.
    tools_changes: Cell<u64>,
    /// `tools_changes` when the listing stored last started: a change announced since is not in
    /// it (see [`Client::tools_changed`]).
    tools_listed_changes: Cell<u64>,
    /// The `tools/list` listings started so far: a listing's number orders it among
    /// overlapping ones.
    tools_listings: Cell<u64>,
    /// The number of the listing whose tools the client keeps (their output schemas, their
    /// dropped and task tools): an older one that ends after it replaces none of them.
    tools_stored: Cell<u64>,
    /// The session (its `session_gen`) that answered the last [`Client::list_tools`] that
    /// succeeded: a listing of another session is stale (see [`Client::tools_changed`]).
    tools_session: Cell<Option<u64>>,
    /// Until when (`Clock::now_ms`) the last tools listing is fresh: a 2026-07-28 server's
    /// `ttlMs`, from when the listing started. `None`: a 2025 server's (no such hint).
    tools_fresh_until: Cell<Option<u64>>,
    /// The number of the listing `tools_fresh_until` is from: an app's listing, which a call's own
    /// listing again (which leaves it stale) does not replace, and an older one does not either.
    tools_fresh_listing: Cell<u64>,
    /// Bumped by every handshake that succeeds: a request that meets a 404 can tell whether its
    /// session is still the current one, or was already replaced by another request's.
    session_gen: Cell<u64>,
    /// A re-initialization after a 404 is under way: other requests wait for it
    /// (`reinitialized` fires when it ends) instead of opening sessions of their own.
    reinitializing: Cell<bool>,
    reinitialized: CloseSignal,
    /// The session expired (a 404) and no handshake has succeeded since (its renewal failed, or
    /// is under way): the next request renews it again ([`Client::renew_again`]) rather than
    /// refuse itself as a request before `connect()` does. Cleared by a handshake that succeeds
    /// and by `close()`.
    renewal_owed: Cell<bool>,
    /// Ids of the SSE events of this session already dealt with, on any stream: a stream resumed
    /// with `Last-Event-ID` may be given them again (a server may replay every stream's events,
    /// not only that stream's), and each is acted on once. Event ids are unique over a session
    /// (2025-11-25: MUST); a server that numbers each stream's events from 1 could not tell its
    /// streams apart by `Last-Event-ID` anyway, and only resumed streams are checked.
    seen_events: RefCell<SeenEvents>,
    /// The progress tokens of this client's calls in flight that asked for progress, each with
    /// where its progress that another stream brings waits for the call: a call's progress is
    /// the call's on whichever stream it comes (as the SDK's `Protocol` routes it by token), not
    /// the notification handler's.
    progress_tokens: RefCell<Vec<(Id, Rc<Elsewhere>)>>,
    /// The requests waiting for their response, by id, each with where that response waits when
    /// a stream other than its own brings it: a response is its request's on whichever stream it
    /// comes (as JSON-RPC matches it, by id alone, and the SDK's `Protocol` routes it).
    awaiting: RefCell<Vec<(Id, Rc<Awaited>)>>,
    /// 2026-07-28: the arguments of each tool (by name) that go in `Mcp-Param-*` headers, from the
    /// last `tools/list`.
    header_params: RefCell<std::collections::HashMap<String, Vec<HeaderParam>>>,
    /// The tools the last `tools/list` left out (`{name, reason}`, and `index` for entries that
    /// are no objects or have no string `name`).
    dropped_tools: RefCell<Vec<Value>>,
    /// 2025-11-25: the tools the last `tools/list` marks `execution.taskSupport: "required"`,
    /// which run only as tasks.
    task_tools: RefCell<std::collections::HashSet<String>>,
    /// The `outputSchema` of each tool of the last listing that has one.
    output_schemas: RefCell<std::collections::HashMap<String, Value>>,
    /// The progress handlers of the calls that run as tasks, by the progress token each chose.
    task_progress: TaskProgressHandlers,
    /// The last handshake that succeeded was 2026-07-28's (the auto era's verdict, kept).
    spoke_modern: Cell<bool>,
    /// Server requests being answered ([`MAX_SERVER_REQUESTS`]), and refusals being POSTed
    /// ([`MAX_REFUSALS`]), over every stream of the client.
    answering: Cell<usize>,
    refusing: Cell<usize>,
    /// The server requests the request handler is answering, by id and the session of the stream
    /// each came on: a `notifications/cancelled` naming one on a stream of that session fires its
    /// signal (another session's request 0 is another request).
    being_answered: RefCell<Vec<(Id, SentOn, Rc<CloseSignal>)>>,
    /// Sends `notifications/cancelled` with these params in the background ([`Client::set_spawner`]).
    cancel_in_background: RefCell<Option<SendCancelled>>,
    /// A session renewal the request that drives it stops waiting for goes on in the background
    /// ([`Client::set_spawner`], [`Client::drive_renewal`]).
    renew_in_background: RefCell<Option<RenewInBackground>>,
    /// The server its responses are counted against in the budget ([`crate::protocol::budget`]).
    server: Rc<str>,
    /// The client's requests in flight (each round's), by id: a server request their response
    /// streams bring is theirs ([`RequestContext::related`]), and answering it pauses their timeout.
    in_flight: RefCell<Vec<(Id, Rc<InFlight>)>>,
    /// Fired when `connect()` ends the session there was (as `closing` is by `close()`): the
    /// requests in flight on it are abandoned, not left to their timeouts.
    session_ended: CloseSignal,
    /// Fired whenever the session held stops being the client's (a handshake begins or ends, the
    /// session is ended): the streams of the old one are given up ([`Client::session_left`]).
    session_changed: CloseSignal,
    /// The `Mcp-Session-Id` of the `initialize` response being read, before its result makes it
    /// the session's: a server request on that response's stream (a `ping`, which may precede
    /// the result) is answered on it, as a reopening of that stream is (an SDK server refuses a
    /// POST without it with 400).
    handshake_session: RefCell<Option<String>>,
}

/// Holds the session id of the `initialize` response being read in
/// [`Client::handshake_session`], until dropped (the read ended, or was dropped).
struct HandshakeSession<'a>(&'a RefCell<Option<String>>);

impl<'a> HandshakeSession<'a> {
    fn hold(cell: &'a RefCell<Option<String>>, session: Option<String>) -> Self {
        *cell.borrowed_mut() = session;
        Self(cell)
    }
}

impl Drop for HandshakeSession<'_> {
    fn drop(&mut self) {
        self.0.borrowed_mut().take();
    }
}

/// A client request in flight, as the server requests that come for it see it.
struct InFlight {
    related: Related,
    /// The request handler's answering of server requests of this one (a person filling in a
    /// form): the time it takes does not count against its timeout ([`Client::sleep_unpaused`]).
    time: HandlerTime,
    /// Fired whenever `time` starts or stops running.
    changed: CloseSignal,
    /// The server's response is in hand, answers to its requests still going out
    /// ([`Client::answers_out`]): the call's deadlines and its signal no longer end the call.
    answered: Cell<bool>,
    /// Fired by a deadline or the signal that comes once `answered`: the answers still going out
    /// are dropped, and the call returns its response.
    release: CloseSignal,
    /// The task this request is about (its creating `tools/call`, or a `tasks/*` request): the
    /// time spent answering its server requests pushes the task's deadline too.
    task: Option<Rc<HandlerTime>>,
}

/// The time the request handler spent answering server requests: of one request ([`InFlight`]),
/// or that came for a task, on whichever stream (its `tools/call`'s, a `tasks/get`'s, its
/// `tasks/result`'s), whose deadline is pushed by it as a call's is ([`Client::run_task`]).
#[derive(Default)]
struct HandlerTime {
    /// Server requests being answered now.
    answering: Cell<usize>,
    /// When `answering` last went from 0 to 1, and the time of the answerings that ended.
    since: Cell<u64>,
    paused: Cell<u64>,
}

impl HandlerTime {
    /// The time spent answering up to `now`.
    fn paused_ms(&self, now: u64) -> u64 {
        let open = if self.running() { now.saturating_sub(self.since.get()) } else { 0 };
        self.paused.get().saturating_add(open)
    }

    /// One more answering; whether the time started running.
    fn start(&self, now: u64) -> bool {
        let first = self.answering.get() == 0;
        if first {
            self.since.set(now);
        }
        self.answering.set(self.answering.get() + 1);
        first
    }

    /// One answering ended; whether the time stopped running.
    fn end(&self, now: u64) -> bool {
        self.answering.set(self.answering.get() - 1);
        let last = self.answering.get() == 0;
        if last {
            self.paused.set(self.paused.get().saturating_add(now.saturating_sub(self.since.get())));
        }
        last
    }

    /// Whether a server request is being answered now.
    fn running(&self) -> bool {
        self.answering.get() > 0
    }
}

/// Which client request the server requests that a request's response streams bring came for
/// ([`RequestContext::related`]).
#[derive(Clone, Copy)]
enum Behalf<'a> {
    /// The request's own round.
    Own,
    /// The request's own round, kept here too: a `tools/call` that creates a task
    /// ([`Client::call_tool`]), and the task's handler time.
    Kept(&'a RefCell<Option<Related>>, &'a Rc<HandlerTime>),
    /// Another request: the `tools/call` whose task a `tasks/get` or `tasks/result` follows, as
    /// the user made it (the server asks for a task's input on the `tasks/result` stream), and
    /// the task's handler time.
    Of(&'a Related, &'a Rc<HandlerTime>),
}

/// An [`InFlight`] in [`Client::in_flight`] for as long as it is.
struct Registered<'c> {
    list: &'c RefCell<Vec<(Id, Rc<InFlight>)>>,
    call: Rc<InFlight>,
}

impl<'c> Registered<'c> {
    fn new(list: &'c RefCell<Vec<(Id, Rc<InFlight>)>>, id: &Id, method: &str, params: &Value, behalf: Behalf<'_>) -> Self {
        let related = if let Behalf::Of(call, _) = behalf {
            call.clone()
        } else {
            let tool = (method == "tools/call").then(|| params.get("name").and_then(Value::as_str).map(str::to_owned)).flatten();
            Related { id: id.clone(), method: method.to_owned(), tool }
        };
        let task = match behalf {
            Behalf::Own => None,
            Behalf::Kept(kept, time) => {
                *kept.borrowed_mut() = Some(related.clone());
                Some(time.clone())
            }
            Behalf::Of(_, time) => Some(time.clone()),
        };
        let call = Rc::new(InFlight {
            related,
            time: HandlerTime::default(),
            changed: CloseSignal::default(),
            answered: Cell::new(false),
            release: CloseSignal::default(),
            task,
        });
        list.borrowed_mut().push((id.clone(), call.clone()));
        Self { list, call }
    }
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.list.borrowed_mut().retain(|(_, c)| !Rc::ptr_eq(c, &self.call));
    }
}

/// The request handler answering a server request of an [`InFlight`], for as long as it does.
struct Pausing<'c, C: Clock> {
    call: Rc<InFlight>,
    clock: &'c C,
}

impl<'c, C: Clock> Pausing<'c, C> {
    fn new(call: Rc<InFlight>, clock: &'c C) -> Self {
        if call.time.start(clock.now_ms()) {
            call.changed.fire();
        }
        if let Some(task) = &call.task {
            task.start(clock.now_ms());
        }
        Self { call, clock }
    }
}

impl<C: Clock> Drop for Pausing<'_, C> {
    fn drop(&mut self) {
        let c = &self.call;
        if let Some(task) = &c.task {
            task.end(self.clock.now_ms());
        }
        if c.time.end(self.clock.now_ms()) {
            c.changed.fire();
        }
    }
}

/// A server request being answered, in [`Client::being_answered`] for as long as it is.
struct Answering<'c> {
    list: &'c RefCell<Vec<(Id, SentOn, Rc<CloseSignal>)>>,
    signal: Rc<CloseSignal>,
}

impl<'c> Answering<'c> {
    fn new(list: &'c RefCell<Vec<(Id, SentOn, Rc<CloseSignal>)>>, id: Id, on: SentOn, signal: Rc<CloseSignal>) -> Self {
        list.borrowed_mut().push((id, on, signal.clone()));
        Self { list, signal }
    }
}

impl Drop for Answering<'_> {
    fn drop(&mut self) {
        self.list.borrowed_mut().retain(|(_, _, s)| !Rc::ptr_eq(s, &self.signal));
    }
}

/// A list's items over all its pages ([`Client::list_all`]).
struct Listing {
    items: Vec<Value>,
    /// The least `ttlMs` of its pages that carry one (one that is not a non-negative integer
    /// counts as `0`).
    ttl_ms: Option<u64>,
    /// The session (its `session_gen`) that answered it.
    session: u64,
    /// `tools/list`: the entries that are no objects or have no string `name`, left out (`{name:
    /// "", index, reason}`).
    dropped: Vec<Value>,
    /// `tools/list`: no listing that started after it has ended before it (its tools are the
    /// client's).
    newest: bool,
    /// `tools/list`: its number among the listings started (`Client::tools_listings`).
    number: u64,
}

/// The last [`SeenEvents::CAP`] event ids dealt with, oldest first out, each kept as a 64-bit
/// hash: a server may replay thousands of events from before `Last-Event-ID` (with 1,024 kept,
/// a replay of 2,000 found none of them, each evicted just before it came back), and an id may be
/// as long as an event (kept whole, 1,024 of 16 MiB ids took the module's memory).
#[derive(Default)]
struct SeenEvents {
    order: std::collections::VecDeque<u64>,
    ids: std::collections::HashSet<u64>,
}

impl SeenEvents {
    const CAP: usize = 65_536;

    fn key(id: &str) -> u64 {
        use std::hash::{Hash as _, Hasher as _};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        id.hash(&mut h);
        h.finish()
    }

    fn contains(&self, id: &str) -> bool {
        self.ids.contains(&Self::key(id))
    }

    fn insert(&mut self, id: &str) {
        let key = Self::key(id);
        if self.ids.insert(key) {
            self.order.push_back(key);
            if self.order.len() > Self::CAP {
                if let Some(old) = self.order.pop_front() {
                    self.ids.remove(&old);
                }
            }
        }
    }

    fn clear(&mut self) {
        self.order.clear();
        self.ids.clear();
    }
}

/// A read that would take the responses every client is reading past their budget, or its
/// server's past its share: why, and who holds the most.
fn held_too_much(method: &str, why: &Refusal) -> Error {
    Error::new(ErrorCode::LimitExceeded, format!("{method}: {why}"))
}

/// Feeds `chunk` of a response's event stream to `parser`, counting what the read then holds in
/// `held` (before, and again after, as the parser's buffers may have grown by doubling): the
/// events it completes, or `LIMIT_EXCEEDED` for an event past the parser's cap or bytes past
/// the budget.
fn feed_held(parser: &mut SseParser, held: &mut Held, chunk: &[u8], method: &str) -> Result<Vec<SseItem>> {
    held.set(parser.buffered() + chunk.len()).map_err(|why| held_too_much(method, &why))?;
    let items = parser.feed(chunk).map_err(|t| Error::new(ErrorCode::LimitExceeded, format!("{method}: an SSE event is larger than {} bytes", t.limit)))?;
    held.at_least(parser.buffered() + chunk.len()).map_err(|why| held_too_much(method, &why))?;
    Ok(items)
}

/// The most server requests (`ping`, `elicitation/create`, `sampling/createMessage`,
/// `roots/list`...) one client answers at once, each from when it is read until its answer is
/// POSTed: a server that floods the client does not get a request handler (a person asked, a
/// model run) called for each. One past it is answered at once with the JSON-RPC error
/// [`SERVER_BUSY`], without the handler (the MCP spec asks clients to rate-limit sampling and
/// elicitation requests; the SDKs bound nothing).
pub const MAX_SERVER_REQUESTS: usize = 16;

/// The most refusals past [`MAX_SERVER_REQUESTS`] being POSTed at once: a request past these
/// too (a server that floods the client and holds up the POSTs of its answers) is left
/// unanswered, so that what the client holds stays bounded.
pub const MAX_REFUSALS: usize = 256;

/// At most this many `resources/subscribe` are sent again after a session renewal (the first
/// subscribed; see `subscribed` in [`Client`]); those past them are lost, as refused ones are
/// ([`Client::set_problem_handler`]). With a 2026-07-28 server, the most a `subscriptions/listen`
/// filter asks for: a subscription past them is refused (`LIMIT_EXCEEDED`), and those past them
/// when the server turns to that revision are lost.
pub const MAX_RESUBSCRIBED: usize = 256;

/// The JSON-RPC error code of a server request refused past [`MAX_SERVER_REQUESTS`]: of the range
/// JSON-RPC leaves to implementations, apart from -32603, which a failing request handler gives.
pub const SERVER_BUSY: i64 = -32000;

/// The error a server request refused past [`MAX_SERVER_REQUESTS`] is answered with.
fn server_busy(method: &str) -> RpcError {
    RpcError {
        code: SERVER_BUSY,
        message: format!("{method} refused: the client is answering {MAX_SERVER_REQUESTS} requests of the server already, the most it answers at once; send it again later"),
        data: Some(object([("limit", Value::from(MAX_SERVER_REQUESTS))])),
    }
}

/// One of the places counted in a [`Client`]'s `answering` or `refusing`, given back when dropped
/// (an answer's future dropped with its stream's reading, a timeout, a cancellation).
struct Slot<'a>(&'a Cell<usize>);

impl<'a> Slot<'a> {
    /// A place, when fewer than `max` are taken.
    fn take(count: &'a Cell<usize>, max: usize) -> Option<Self> {
        (count.get() < max).then(|| {
            count.set(count.get() + 1);
            Self(count)
        })
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

/// How a server request is answered ([`Client::answer`]): now, or by the request handler's future.
enum Settled {
    Now(std::result::Result<Value, RpcError>),
    Later(Pin<Box<dyn Future<Output = std::result::Result<Value, RpcError>>>>),
}

/// The most of a JSON response's Content-Length reserved before the body proves that long.
const FIRST_RESERVE: usize = 1 << 20;

/// How long an HTTP error's body is read for its preview (`bodyPreview`, the message's quote): the
/// status came with the headers, and an error body that never ends must not turn it into a timeout.
const ERROR_BODY_MS: u64 = 1_000;

/// How long `close()` (and the DELETE after a refused handshake) waits for the server.
const CLOSE_GRACE_MS: u64 = 3_000;

/// How long, once a call has its outcome, the server's acknowledgement (HTTP status) of an answer
/// POSTed from its stream (or its JSON body: a batch that carries the response too) is waited for:
/// the answer has gone out, and a server slow to acknowledge it must not hold up (or time out) a
/// call whose result came. The call's timeout stands meanwhile.
const ANSWER_ACK_MS: u64 = 1_000;

/// How long a `notifications/cancelled` (after a timeout or an abort) is given to be accepted
/// (less when the client's own timeout is less); then it is abandoned (its fetch aborted).
pub const CANCEL_GRACE_MS: u64 = 3_000;

/// The longest session id the client takes: 8 KiB. MCP sets no limit (only visible ASCII, and it
/// names a JWT as a fit id); this is far above a signed JWT's (about 1.1 KiB with RS512 and a
/// 4096-bit key) and what a header line of 8 KiB, many servers' and proxies' limit, carries.
pub const MAX_SESSION_ID_LEN: usize = 8 * 1024;

/// Whether a session id can be sent back in a header as the server wrote it: visible ASCII
/// (0x21-0x7E), not empty; fetch would refuse or change anything else.
fn is_sendable_session_id(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

/// Whether the client takes a session id: one that can be sent back, of at most
/// [`MAX_SESSION_ID_LEN`] characters.
fn is_valid_session_id(s: &str) -> bool {
    s.len() <= MAX_SESSION_ID_LEN && is_sendable_session_id(s)
}

/// What a NETWORK error says after its reason: short, as the reason is what tells the cases apart.
/// A refusal by the page's or worker's Content Security Policy (`connect-src`) gives fetch the same
/// error as one by CORS, so both are named.
const CORS_HINT: &str = "the server is unreachable, or (from a browser) refused by a Content Security Policy (its connect-src) or by CORS: the server must answer OPTIONS preflights for this origin, GET, POST, DELETE and MCP's headers, and list mcp-session-id in Access-Control-Expose-Headers (README, \"CORS\")";

/// An answer from the listening stream refused with 404 (`Session not found`): the session is gone,
/// which the stream's reopening finds and renews (as before the answer); listening goes on.
fn session_gone_is_no_error(answered: Result<()>) -> Result<()> {
    match answered {
        Err(e) if e.code == ErrorCode::HttpStatus && e.details.as_ref().and_then(|d| d.get("status")).and_then(Value::as_u64) == Some(404) => Ok(()),
        answered => answered,
    }
}

impl<T: Transport, C: Clock> Client<T, C> {
    /// A client; call [`Client::connect`] before anything else.
    pub fn new(transport: T, clock: C, opts: ClientOptions) -> Self {
        // A relative URL's server is the page's: the clients of its origin share one share,
        // however their URLs are written.
        let server = crate::protocol::budget::server_of(transport.resolve_url(&opts.url).as_deref().unwrap_or(&opts.url));
        Self {
            transport,
            clock,
            opts,
            state: RefCell::new(State::default()),
            next_id: Cell::new(0),
            on_notification: RefCell::new(None),
            on_request: RefCell::new(None),
            on_unauthorized: RefCell::new(None),
            on_connected: RefCell::new(None),
            subscribed: RefCell::new(Vec::new()),
            subscriptions_changed: CloseSignal::default(),
            listen_rehandshaken: Cell::new(false),
            subscriptions_forgotten: Cell::new(0),
            resubscribed_forgotten: Cell::new(false),
            on_problem: RefCell::new(None),
            auth_headers: RefCell::default(),
            auth_generation: Cell::new(0),
            refused_auth: Cell::new(None),
            refused_scope: RefCell::new(Vec::new()),
            stepped_up: RefCell::new(None),
            accepted_auth: Cell::new(None),
            closing: CloseSignal::default(),
            listening: Cell::new(false),
            listened: CloseSignal::default(),
            listen_outcome: RefCell::default(),
            tools_changes: Cell::new(0),
            tools_listed_changes: Cell::new(0),
            tools_listings: Cell::new(0),
            tools_stored: Cell::new(0),
            tools_session: Cell::new(None),
            tools_fresh_until: Cell::new(None),
            tools_fresh_listing: Cell::new(0),
            session_gen: Cell::new(0),
            reinitializing: Cell::new(false),
            reinitialized: CloseSignal::default(),
            renewal_owed: Cell::new(false),
            seen_events: RefCell::default(),
            progress_tokens: RefCell::default(),
            awaiting: RefCell::default(),
            header_params: RefCell::default(),
            dropped_tools: RefCell::default(),
            task_tools: RefCell::default(),
            output_schemas: RefCell::default(),
            task_progress: RefCell::default(),
            spoke_modern: Cell::new(false),
            answering: Cell::new(0),
            refusing: Cell::new(0),
            being_answered: RefCell::default(),
            cancel_in_background: RefCell::default(),
            renew_in_background: RefCell::default(),
            server,
            in_flight: RefCell::default(),
            handshake_session: RefCell::default(),
            session_ended: CloseSignal::default(),
            session_changed: CloseSignal::default(),
        }
    }

    /// Sets the handler told of every handshake that succeeds (a new session, a renewed one).
    /// It is called while the handshake's waiters are still waiting: it must not await the
    /// client (a JS host spawns what it starts).
    pub fn set_connected_handler(&self, handler: Option<ConnectedHandler>) {
        *self.on_connected.borrowed_mut() = handler;
    }

    /// Sets the handler for server notifications.
    pub fn set_notification_handler(&self, handler: Option<NotificationHandler>) {
        *self.on_notification.borrowed_mut() = handler;
    }

    /// Sets the handler told of what went wrong outside any call the app made: resources the app
    /// subscribed to that the server no longer takes, one error each time naming them (`lost`:
    /// their `uri`, `code` and `message`). A session renewed after it expired that could not be
    /// subscribed again to some (the server refused or did not answer `resources/subscribe`, or
    /// no longer declares `resources.subscribe`); a handshake in 2026-07-28 (a renewal that found
    /// the server speaking it) whose server does not declare `resources.subscribe`, or past
    /// [`MAX_RESUBSCRIBED`]; a 2026-07-28 `subscriptions/listen` whose acknowledgement leaves some
    /// out, or made again for a change of them that the server refused (a JSON-RPC error: those
    /// the change added). They are forgotten: no `notifications/resources/updated` will come for
    /// them, and neither a later renewal nor a later listening asks again. The JS host says it on
    /// `console.error`.
    pub fn set_problem_handler(&self, handler: Option<ProblemHandler>) {
        *self.on_problem.borrowed_mut() = handler;
    }

    /// `connect()` and `close()`: the session the app asks for next is subscribed to nothing.
    fn forget_subscriptions(&self) {
        let had = !std::mem::take(&mut *self.subscribed.borrowed_mut()).is_empty();
        self.subscriptions_forgotten.set(self.subscriptions_forgotten.get() + 1);
        // A 2026-07-28 listening asks for them no more.
        if had {
            self.subscriptions_changed.fire();
        }
    }

    /// Sets the handler for server requests other than `ping`; without one they are answered
    /// -32601 (method not found). The stream a request comes in (a call's, [`Client::listen`]'s)
    /// is read on while it is answered. Neither the timeout of the call it came for
    /// ([`RequestContext::related`]) nor its idle timeout runs meanwhile: the timeout bounds the
    /// server's silence, not the person answering (its deadline is pushed by the time the handler
    /// took; `max_total_timeout_ms` and a cancellation still bound the whole). The call ends, with
    /// its result or an error, once every request before that is answered; its total or its
    /// cancellation that comes after the response is in hand ends only that wait: the response is
    /// returned, and the answers still going out are dropped ([`Client::answers_out`]).
    pub fn set_request_handler(&self, handler: Option<RequestHandler>) {
        *self.on_request.borrowed_mut() = handler;
    }

    /// Sets the handler asked for new headers when a request, a notification or a GET (the
    /// standalone stream's, a resumption's) meets HTTP 401 (an expired access token), or 403
    /// with `error="insufficient_scope"` (a step-up): it is sent once more with them, and
    /// everything later (DELETE too) carries them. Requests that meet a 401 together each ask
    /// it: a handler that refreshes a token should share one refresh (as [`OAuth`] does).
    ///
    /// [`OAuth`]: crate::protocol::auth::OAuth
    pub fn set_unauthorized_handler(&self, handler: Option<AuthHandler>) {
        *self.on_unauthorized.borrowed_mut() = handler;
    }

    /// Whether a 401 is answered by an unauthorized handler (which may wait for a person).
    pub fn has_unauthorized_handler(&self) -> bool {
        self.on_unauthorized.borrowed().is_some()
    }

    /// The options in force.
    pub fn options(&self) -> &ClientOptions {
        &self.opts
    }

    /// `serverInfo` from the handshake.
    pub fn server_info(&self) -> Option<Value> {
        self.state.borrowed().server_info.clone()
    }

    /// `instructions` from the handshake.
    pub fn instructions(&self) -> Option<String> {
        self.state.borrowed().instructions.clone()
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> Option<String> {
        self.state.borrowed().protocol_version.clone()
    }

    /// The session id, when the server issued one.
    pub fn session_id(&self) -> Option<String> {
        self.state.borrowed().session_id.clone()
    }

    /// The MCP transport the client speaks: Streamable HTTP, or the deprecated HTTP+SSE transport
    /// when its transport is an adapter to that ([`crate::protocol::legacy_sse`]); `None` while
    /// that adapter has not found out which (before the first handshake).
    pub fn mcp_transport(&self) -> Option<McpTransport> {
        self.transport.mcp_transport()
    }

    /// The transport underneath.
    pub fn transport(&self) -> &T {
        &self.transport
    }

    /// Whether the client speaks 2026-07-28 with its server.
    pub fn is_modern(&self) -> bool {
        self.state.borrowed().modern
    }

    /// The tools the last `tools/list` left out, each `{name, reason}`: entries that are no
    /// objects or have no string `name` (`name` `""`, with their `index` over the pages), and a
    /// 2026-07-28 server's tools whose `x-mcp-header` marks break the rules, so the server would
    /// refuse every call.
    pub fn dropped_tools(&self) -> Vec<Value> {
        self.dropped_tools.borrowed().clone()
    }

    /// Whether the handshake is done and the client not closed.
    pub fn is_connected(&self) -> bool {
        self.state.borrowed().connected
    }

    /// How many times [`Client::close`] has been called: work decided before a close compares
    /// it to know the close came since.
    pub fn close_generation(&self) -> u64 {
        self.closing.generation.get()
    }

    /// The server's capabilities.
    pub fn capabilities(&self) -> Option<Value> {
        self.state.borrowed().capabilities.clone()
    }

    /// Whether the tools of the last [`Client::list_tools`] that succeeded (the one started last
    /// of those, when they overlapped) may have changed: the server has sent
    /// `notifications/tools/list_changed` since that listing started (in any stream: a call's,
    /// [`Client::listen`]'s; a listing under way that started after it has not ended yet), or
    /// the session that listing was answered on is no longer the client's (renewed after the
    /// server forgot it, or connected again). A new session may be another instance of the
    /// server, restarted with other tools: it announces no change to a session it never had.
    pub fn tools_changed(&self) -> bool {
        self.tools_listed_changes.get() < self.tools_changes.get() || self.tools_session.get().is_some_and(|s| s != self.session_gen.get())
    }

    /// Whether the last [`Client::list_tools`] of a 2026-07-28 server has outlived its freshness:
    /// the `ttlMs` of its result (the least of its pages'; `0`, a value that is not a
    /// non-negative integer, or none at all, is stale at once). A 2025 server's listing never
    /// expires: such servers announce changes instead. A call refused for its headers (-32020),
    /// after which the tools were listed again, makes it stale at once too.
    pub fn tools_expired(&self) -> bool {
        self.tools_fresh_until.get().is_some_and(|until| self.clock.now_ms() >= until)
    }

    fn new_id(&self) -> Id {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        Id::Num(id)
    }

    fn headers(&self, with_session: bool, accept: &str) -> Vec<(String, String)> {
        let mut h = vec![("accept".owned(), accept.owned())];
        let auth = self.auth_headers.borrowed();
        h.extend(self.opts.headers.iter().filter(|(k, _)| !auth.iter().any(|(a, _)| a.eq_ignore_ascii_case(k))).cloned());
        h.extend(auth.iter().cloned());
        if with_session {
            let st = self.state.borrowed();
            if let Some(s) = st.session_id.as_ref().or(self.handshake_session.borrowed().as_ref()) {
                h.push(("mcp-session-id".owned(), s.clone()));
            }
            if let Some(v) = &st.protocol_version {
                h.push(("mcp-protocol-version".owned(), v.clone()));
            }
        }
        h
    }

    fn post(&self, body: String, with_session: bool, extra: &[(String, String)]) -> HttpRequest {
        let mut headers = self.headers(with_session, "application/json, text/event-stream");
        headers.push(("content-type".owned(), "application/json".owned()));
        headers.extend_from_slice(extra);
        HttpRequest { method: Method::Post, url: self.opts.url.clone(), headers, body: Some(body), follow_redirects: false }
    }

    /// Connects: `initialize`, version check, `notifications/initialized`; with a 2026-07-28
    /// server, `server/discover` (see [`Era`]).
    pub async fn connect(&self) -> Result<()> {
        self.connect_with(&mut CallOptions::default()).await
    }

    /// [`Client::connect`] with each exchange of the handshake (`initialize`,
    /// `notifications/initialized`, `server/discover`) within a timeout of its own, under the
    /// caller's cancellation (which sends no `notifications/cancelled`:
    /// `initialize` is never cancelled that way). A client that has a session already ends it
    /// first (DELETE, best effort, at most 3 s), so that reconnecting leaves no session open on
    /// the server. One that comes while a handshake is under way (a second `connect()`, as a
    /// UI framework that runs effects twice makes, or a session renewal) shares it: two
    /// handshakes at once would leave the first one's session open on the server; but a renewal
    /// that had subscribed its session again to the app's resources before this call forgot them
    /// is followed by a handshake of this call's own (a session the app asks for is subscribed to
    /// nothing). Headers the unauthorized handler gave that the server refused at once are no longer marked so
    /// (`refusedAtOnce`): connecting is the app asking again.
    pub async fn connect_with(&self, opts: &mut CallOptions) -> Result<()> {
        // Cancelled already: not even the session held is ended.
        if cancelled_already(&mut opts.cancel) {
            return Err(Error::new(ErrorCode::Aborted, "initialize was aborted before it was sent"));
        }
        if self.state.borrowed().closed {
            self.state.borrowed_mut().closed = false;
        }
        // Connecting is the app's (the user's) asking again: headers refused at once before
        // are replaced once more if the server refuses them still.
        self.refused_auth.set(None);
        self.refused_scope.borrowed_mut().clear();
        // A session of the app's asking is subscribed to nothing, a renewal's under way too: it
        // does not subscribe again to what is forgotten here.
        self.forget_subscriptions();
        if let Some(joined) = self.join_handshake(opts).await {
            // One that had subscribed its session again already: a session of this connect()'s own.
            if !(joined.is_ok() && self.resubscribed_forgotten.replace(false)) {
                return joined;
            }
        }
        // Marked as under way from here, the session held being ended first: a request made
        // meanwhile (a 2026-07-28 call's next round too), a second connect() and the listening
        // stream wait for it rather than go on without a session.
        self.initialize_shared(opts, true).await
    }

    /// A handshake under way, waited for: its outcome (`None` when there is none).
    async fn join_handshake(&self, opts: &mut CallOptions) -> Option<Result<()>> {
        if !self.reinitializing.get() {
            return None;
        }
        let ended = self.reinitialized.generation.get();
        if let Err(e) = self.await_renewal("initialize", opts).await {
            return Some(Err(e));
        }
        if self.is_connected() {
            return Some(Ok(()));
        }
        (self.reinitialized.generation.get() != ended).then(|| Err(Error::new(ErrorCode::NotConnected, "the handshake under way failed")))
    }

    /// `initialize` or `server/discover`, as the era option says.
    /// With the auto era, the verdict of the last handshake is kept: a server that spoke
    /// 2026-07-28 is asked `server/discover` first, and `initialize` again only when that fails
    /// otherwise than for want of a connection (it may have gone back).
    async fn handshake(&self, opts: &mut CallOptions) -> Result<()> {
        match self.opts.era {
            Era::Legacy => self.initialize(opts).await,
            Era::Modern => self.discover(opts).await,
            Era::Auto if self.spoke_modern.get() => match self.discover(opts).await {
                Err(e) if !matches!(e.code, ErrorCode::Network | ErrorCode::Timeout | ErrorCode::Aborted | ErrorCode::Unauthorized | ErrorCode::NotConnected) => {
                    self.initialize_first(opts).await
                }
                r => r,
            },
            Era::Auto => self.initialize_first(opts).await,
        }
    }

    /// `initialize`, and `server/discover` when the server refuses it as a 2026-07-28 server does
    /// (not over the deprecated HTTP+SSE transport, which 2026-07-28 does not have).
    async fn initialize_first(&self, opts: &mut CallOptions) -> Result<()> {
        match self.initialize(opts).await {
            Err(e) if e.details.as_ref().is_some_and(|d| d.contains_key("laterRevision")) && self.transport.mcp_transport() != Some(McpTransport::Sse) => self.discover(opts).await,
            r => r,
        }
    }

    /// `initialize` and `notifications/initialized`. One that fails leaves nothing open (as the
    /// MCP SDK's client closes its transport then): over the deprecated HTTP+SSE transport, the
    /// event stream it opened is ended, or the host could not exit while the client is held.
    async fn initialize(&self, opts: &mut CallOptions) -> Result<()> {
        let r = self.initialize_session(opts).await;
        if r.is_err() {
            self.transport.end_session();
        }
        r
    }

    async fn initialize_session(&self, opts: &mut CallOptions) -> Result<()> {
        {
            let mut st = self.state.borrowed_mut();
            st.session_id = None;
            st.protocol_version = None;
            st.connected = false;
            st.modern = false;
        }
        self.session_changed.fire();
        self.forget_tools();
        let params = object([
            ("protocolVersion", LATEST_PROTOCOL_VERSION.into()),
            ("capabilities", Value::Object(self.opts.capabilities.clone())),
            ("clientInfo", self.opts.client_info.clone()),
        ]);
        let id = self.new_id();
        let body = jsonrpc::request(&id, "initialize", params);
        let (result, session) = match self.run_with_timeout(&id, "initialize", body, (false, false), &[], opts).await {
            // A server that knows no `initialize` (as a 2026-07-28 server may say).
            // Refused with HTTP 404, it is that error already (`status_error`).
            Err(e) if rpc_code(&e) == Some(-32601) && e.details.as_ref().is_some_and(|d| d.contains_key("laterRevision")) => return Err(e),
            Err(e) if rpc_code(&e) == Some(-32601) => {
                let mut later = Error::new(
                    ErrorCode::UnsupportedProtocolVersion,
                    format!("the server knows no initialize ({}): it may speak a later revision of MCP without the handshake (2026-07-28 or later){}", e.message, no_modern_over_sse(&self.transport)),
                );
                // The server's answer as it came (`rpcCode`, `rpcError`, `status`...).
                later.details = e.details;
                return Err(later.with_detail("laterRevision", true));
            }
            r => r?,
        };
        let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or("").owned();
        // What makes the result no InitializeResult, before its version is judged: no version to
        // speak of (the SDK's schema refuses such a result as it refuses a version it does not speak).
        let problem = match result.get("protocolVersion") {
            _ if !result.is_object() => None,
            None => Some("it has no protocolVersion (the revision of MCP the server speaks, a string)".owned()),
            Some(Value::String(_)) => None,
            Some(v) => Some(format!("its protocolVersion is not a string ({}: {})", crate::model::json_type(v), crate::text::excerpt(&crate::text::to_string(v), 100))),
        };
        let refusal = if !result.is_object() {
            // Not an InitializeResult at all: no version to speak of.
            Some(
                Error::new(ErrorCode::Protocol, format!("initialize: the server's result is not an object (InitializeResult) but {}", crate::text::excerpt(&crate::text::to_string(&result), 100)))
                    .with_detail("result", result.clone()),
            )
        } else if let Some(problem) = problem {
            Some(Error::new(ErrorCode::Protocol, format!("initialize: the server's result is no InitializeResult: {problem}")).with_detail("result", result.clone()))
        } else if !SUPPORTED_PROTOCOL_VERSIONS.contains(&version.as_str()) {
            let e = Error::new(
                ErrorCode::UnsupportedProtocolVersion,
                format!(
                    "the server speaks MCP protocol version {}; toolwire speaks {}",
                    crate::text::quote(&version),
                    SUPPORTED_PROTOCOL_VERSIONS.join(", ")
                ),
            )
            .with_detail("protocolVersion", version.clone());
            // A server that answers it speaks 2026-07-28: spoken to that way (with the era option's leave).
            Some(if version == MODERN_PROTOCOL_VERSION {
                let why = no_modern_over_sse(&self.transport);
                Error { message: format!("{}{why}", e.message), ..e }.with_detail("laterRevision", true)
            } else {
                e
            })
        } else {
            handshake_problem(result.get("serverInfo"), result.get("capabilities"), true)
                .map(|problem| Error::new(ErrorCode::Protocol, format!("initialize: the server's result is no InitializeResult: {problem}")).with_detail("result", result.clone()))
        };
        if let Some(e) = refusal {
            // The server may have opened a session for us all the same: end it (best effort).
            if let Some(s) = session.as_ref().filter(|s| is_sendable_session_id(s)) {
                let _ = self.end_refused_session(s).await;
            }
            return Err(e);
        }
        if let Some(s) = session.as_ref().filter(|s| !is_valid_session_id(s)) {
            // One too long for the client is ended (DELETE), not left open on the server; one
            // that cannot go in a header cannot be ended either.
            let e = if is_sendable_session_id(s) {
                let ended = match self.end_refused_session(s).await {
                    Ok(()) => "ended".owned(),
                    Err(e) => format!("could not be ended ({})", e.message),
                };
                Error::new(ErrorCode::Protocol, format!("the server sent an Mcp-Session-Id of {} characters, more than the {MAX_SESSION_ID_LEN} the client takes; the session it opened was {ended}", s.len()))
            } else {
                Error::new(ErrorCode::Protocol, "the server sent an invalid Mcp-Session-Id (it must be visible ASCII characters, 0x21 to 0x7E): it cannot be sent back, not even to end the session it opened")
            };
            return Err(e.with_detail("sessionIdLength", s.len()));
        }
        self.seen_events.borrowed_mut().clear();
        {
            let mut st = self.state.borrowed_mut();
            st.session_id = session;
            st.protocol_version = Some(version);
            st.server_info = result.get("serverInfo").cloned();
            st.instructions = result.get("instructions").and_then(Value::as_str).map(str::to_owned);
            st.capabilities = result.get("capabilities").cloned();
        }
        self.notify_within("notifications/initialized", Value::Null, opts).await?;
        if self.state.borrowed().closed {
            // close() came during the handshake (and ended the new session): stay closed.
            return Err(Error::new(ErrorCode::NotConnected, "the client was closed during the handshake"));
        }
        let logs = self.state.borrowed().capabilities.as_ref().is_some_and(|c| c.get("logging").is_some_and(declares));
        let level = self.opts.log_level.as_ref().filter(|_| logs);
        // A renewed session has none of the old one's subscriptions: asked for again (not through
        // `request`, which would wait for this very handshake). `connect()` and `close()` forgot
        // them, so this is a renewal's handshake.
        self.resubscribed_forgotten.set(false);
        let forgotten_at = self.subscriptions_forgotten.get();
        let uris: Vec<String> = self.subscribed.borrowed().clone();
        let mut lost: Vec<(String, Error)> = Vec::new();
        let mut resent: Vec<String> = Vec::new();
        if !uris.is_empty() {
            // As `request` would refuse it: a server that no longer declares the capability.
            if let Some(missing) = self.missing_capability("resources/subscribe") {
                let e = Error::new(ErrorCode::CapabilityNotNegotiated, format!("the renewed session's server does not declare {missing}"));
                lost = uris.into_iter().map(|uri| (uri, e.clone())).collect();
            } else {
                let e = Error::new(ErrorCode::LimitExceeded, format!("at most {MAX_RESUBSCRIBED} subscriptions are made again on a renewed session"));
                lost = uris[MAX_RESUBSCRIBED.min(uris.len())..].iter().map(|uri| (uri.clone(), e.clone())).collect();
                resent = uris.into_iter().take(MAX_RESUBSCRIBED).collect();
            }
        }
        // The log level and the subscriptions asked for at once, each within the handshake's
        // timeout, all under its cancellation: every request waits for this handshake, so the
        // wait is one timeout however many there are, not one each. The log level is best effort
        // (a server that refuses it works all the same).
        let timeout_ms = opts.timeout_ms;
        let outcomes: RefCell<Vec<Option<Result<()>>>> = RefCell::new(vec![None; resent.len()]);
        // One request of the renewal, within the handshake's timeout.
        let send = |method: &'static str, params: Value| async move {
            let id = self.new_id();
            let body = jsonrpc::request(&id, method, params);
            self.run_with_timeout(&id, method, body, (true, false), &[], &mut CallOptions { timeout_ms, ..CallOptions::default() }).await
        };
        let asked = async {
            let level = async {
                if let Some(level) = level {
                    let _ = send("logging/setLevel", object([("level", level.as_str().into())])).await;
                }
            };
            let subscribed = crate::protocol::join_units(
                resent
                    .iter()
                    .enumerate()
                    .map(|(i, uri)| {
                        let outcomes = &outcomes;
                        Box::pin(async move {
                            let r = send("resources/subscribe", object([("uri", uri.as_str().into())])).await;
                            outcomes.borrowed_mut()[i] = Some(r.map(drop));
                        }) as crate::protocol::UnitFuture<'_>
                    })
                    .collect(),
            );
            futures_util::future::join(level, subscribed).await;
        };
        {
            pin_mut!(asked);
            let _ = select(asked, cancelled(&mut opts.cancel)).await;
        }
        let outcomes = outcomes.into_inner();
        lost.extend(resent.iter().zip(outcomes).filter_map(|(uri, outcome)| match outcome {
            Some(Ok(())) => None,
            Some(Err(e)) => Some((uri.clone(), e)),
            None => Some((uri.clone(), Error::new(ErrorCode::Aborted, "resources/subscribe was aborted with the handshake"))),
        }));
        let forgotten = self.subscriptions_forgotten.get() != forgotten_at;
        if forgotten {
            // connect() or close() came meanwhile: the subscriptions are no longer the app's.
            self.resubscribed_forgotten.set(!resent.is_empty());
        }
        self.state.borrowed_mut().connected = true;
        self.session_gen.set(self.session_gen.get() + 1);
        self.session_changed.fire();
        self.spoke_modern.set(false);
        if !forgotten {
            self.lose_subscriptions(RENEWED_SESSION, lost);
        }
        Ok(())
    }

    /// 2026-07-28: `server/discover` (the server's capabilities, `serverInfo`, `instructions`),
    /// sent again once when the server refuses its version while naming it as supported. Every
    /// server of the revision has it: one that knows neither it nor `initialize` is no MCP server.
    async fn discover(&self, opts: &mut CallOptions) -> Result<()> {
        {
            let mut st = self.state.borrowed_mut();
            *st = State { closed: st.closed, modern: true, protocol_version: Some(MODERN_PROTOCOL_VERSION.into()), ..State::default() };
        }
        self.session_changed.fire();
        self.forget_tools();
        const METHOD: &str = "server/discover";
        let mut retried = false;
        let result = loop {
            let id = self.new_id();
            let params = self.with_meta(&Value::Null, None);
            let headers = self.modern_headers(METHOD, &params)?;
            match self.run_with_timeout(&id, METHOD, jsonrpc::request(&id, METHOD, params), (true, false), &headers, opts).await {
                Ok((v, _)) => {
                    // `serverInfo` is in `_meta` in the revision's schema, at the top in some servers.
                    let info = v.pointer("/_meta/io.modelcontextprotocol~1serverInfo").or_else(|| v.get("serverInfo"));
                    let problem = match &v {
                        // Only tools/call, prompts/get and resources/read may ask for input.
                        Value::Object(o) => match o.get("resultType") {
                            None => handshake_problem(info, v.get("capabilities"), false),
                            Some(t) if t == "complete" => handshake_problem(info, v.get("capabilities"), false),
                            Some(t) => Some(format!("its resultType is {}, where a discovery's result is complete", crate::text::server_value(t))),
                        },
                        _ => Some(format!("it is not an object ({})", shown(&v))),
                    };
                    let Some(problem) = problem else { break v };
                    let mut st = self.state.borrowed_mut();
                    (st.protocol_version, st.modern) = (None, false);
                    return Err(Error::new(ErrorCode::Protocol, format!("{METHOD}: the server's result is no DiscoverResult: {problem}")).with_detail("result", v));
                }
                Err(e) if e.code == ErrorCode::UnsupportedProtocolVersion && !retried && names_modern(&e) => retried = true,
                Err(e) => {
                    let mut st = self.state.borrowed_mut();
                    (st.protocol_version, st.modern) = (None, false);
                    return Err(e);
                }
            }
        };
        if let Some(Value::Array(versions)) = result.get("supportedVersions") {
            if !versions.iter().any(|v| v == MODERN_PROTOCOL_VERSION) {
                let mut st = self.state.borrowed_mut();
                (st.protocol_version, st.modern) = (None, false);
                drop(st);
                return Err(Error::new(
                    ErrorCode::UnsupportedProtocolVersion,
                    format!("the server supports MCP protocol versions {}; toolwire speaks {MODERN_PROTOCOL_VERSION} without a handshake", crate::text::server_value(&Value::Array(versions.clone()))),
                )
                .with_detail("supported", Value::Array(versions.clone())));
            }
        }
        if self.state.borrowed().closed {
            return Err(Error::new(ErrorCode::NotConnected, "the client was closed while connecting"));
        }
        let mut st = self.state.borrowed_mut();
        // `serverInfo` is in `_meta` in the revision's schema, at the top in some servers.
        st.server_info = result.pointer("/_meta/io.modelcontextprotocol~1serverInfo").or_else(|| result.get("serverInfo")).cloned();
        st.instructions = result.get("instructions").and_then(Value::as_str).map(str::to_owned);
        st.capabilities = result.get("capabilities").cloned();
        st.connected = true;
        drop(st);
        self.session_gen.set(self.session_gen.get() + 1);
        self.session_changed.fire();
        self.spoke_modern.set(true);
        // The app's subscriptions kept from before (a renewal's: `connect()` forgot them) go in
        // the next `subscriptions/listen` filter; nothing is sent for them here. Those this server
        // cannot take are lost, and told, as a renewed session's are.
        self.resubscribed_forgotten.set(false);
        let uris = self.subscribed.borrowed().clone();
        if !uris.is_empty() {
            let lost = match self.missing_capability("resources/subscribe") {
                Some(missing) => {
                    let e = Error::new(ErrorCode::CapabilityNotNegotiated, format!("the server does not declare {missing}"));
                    uris.into_iter().map(|uri| (uri, e.clone())).collect()
                }
                None => {
                    let e = Error::new(ErrorCode::LimitExceeded, format!("at most {MAX_RESUBSCRIBED} subscriptions go in a subscriptions/listen"));
                    uris.into_iter().skip(MAX_RESUBSCRIBED).map(|uri| (uri, e.clone())).collect()
                }
            };
            self.lose_subscriptions(RENEWED_MODERN, lost);
        }
        Ok(())
    }

    /// Forgets the subscriptions `lost` names, and tells the problem handler so, as `how` says
    /// ([`lost_subscriptions`]).
    fn lose_subscriptions(&self, how: &str, lost: Vec<(String, Error)>) {
        if lost.is_empty() {
            return;
        }
        self.subscribed.borrowed_mut().retain(|u| !lost.iter().any(|(l, _)| l == u));
        let e = lost_subscriptions(how, &lost);
        if let Some(h) = self.on_problem.borrowed().as_ref() {
            h(&e);
        }
    }

    /// What a listing of another server (or era) said of its tools.
    fn forget_tools(&self) {
        self.header_params.borrowed_mut().clear();
        self.dropped_tools.borrowed_mut().clear();
        self.output_schemas.borrowed_mut().clear();
    }

    /// A request's params with what it carries in `_meta`: its progress token, and with a
    /// 2026-07-28 server the protocol version, the client's capabilities and `clientInfo`. Params
    /// that are neither an object nor null are left as they are.
    fn with_meta(&self, params: &Value, progress: Option<&Id>) -> Value {
        let modern = self.state.borrowed().modern;
        if !modern && progress.is_none() {
            return params.clone();
        }
        let mut p = match params {
            Value::Object(o) => o.clone(),
            Value::Null => Map::new(),
            other => return other.clone(),
        };
        let meta = p.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        if let Value::Object(m) = meta {
            if let Some(id) = progress {
                m.put("progressToken", id.to_value());
            }
            if modern {
                m.put("io.modelcontextprotocol/protocolVersion", MODERN_PROTOCOL_VERSION.into());
                m.put("io.modelcontextprotocol/clientCapabilities", Value::Object(self.opts.capabilities.clone()));
                m.put("io.modelcontextprotocol/clientInfo", self.opts.client_info.clone());
                if let Some(level) = &self.opts.log_level {
                    m.put("io.modelcontextprotocol/logLevel", level.as_str().into());
                }
            }
        }
        Value::Object(p)
    }

    /// 2026-07-28: the headers that mirror a request's body: `Mcp-Method`, `Mcp-Name` (the tool
    /// or prompt name, the resource URI) and a tool's `Mcp-Param-*` (known from `tools/list`).
    fn modern_headers(&self, method: &str, params: &Value) -> Result<Vec<(String, String)>> {
        let mut h = vec![("mcp-method".owned(), header_value(method))];
        let name = match method {
            "tools/call" | "prompts/get" => params.get("name"),
            "resources/read" => params.get("uri"),
            _ => None,
        };
        let named = matches!(method, "tools/call" | "prompts/get" | "resources/read");
        if named && !name.is_some_and(Value::is_string) {
            let field = if method == "resources/read" { "uri" } else { "name" };
            return Err(Error::new(ErrorCode::InvalidInput, format!("{method}: params.{field} must be a string (it goes in the Mcp-Name header too)")));
        }
        if let Some(name) = name.and_then(Value::as_str) {
            h.push(("mcp-name".owned(), header_value(name)));
            if method == "tools/call" {
                if let Some(marked) = self.header_params.borrowed().get(name) {
                    let args = params.get("arguments").unwrap_or(&Value::Null);
                    let mirrored = param_headers(marked, args)
                        .map_err(|m| Error::new(ErrorCode::InvalidArguments, format!("tools/call: {m}")).with_tool(name))?;
                    h.extend(mirrored);
                }
            }
        }
        Ok(h)
    }

    /// After a 404 on the session of generation `gen`: a new session, made once however many
    /// requests met the 404. A request whose session was already replaced just retries; one
    /// that comes while the handshake runs waits for it and shares its outcome. Every one of
    /// them, the one that drives the handshake too, waits within its own timeout and cancellation.
    async fn renew_session(&self, gen: u64, method: &str, opts: &mut CallOptions) -> Result<()> {
        // A closed client opens no session until connect() (or a hub's call) opens one.
        if self.state.borrowed().closed {
            return Err(Error::new(ErrorCode::NotConnected, format!("{method} was abandoned: the client was closed")));
        }
        // Renewals ended so far: one that ends while this request waits is its outcome too, failed
        // or not (each waiter trying again would hammer a server that is down).
        let ended = self.reinitialized.generation.get();
        self.await_renewal(method, opts).await?;
        if self.session_gen.get() != gen || self.reinitialized.generation.get() != ended {
            return if self.is_connected() { Ok(()) } else { Err(Error::new(ErrorCode::NotConnected, "the session expired and could not be renewed")) };
        }
        self.renewal_owed.set(true);
        self.drive_renewal(method, opts).await
    }

    /// The handshake of a session renewal, for the request that met the 404, within that
    /// request's timeout and cancellation (as the requests that wait for it wait,
    /// [`Client::await_renewal`]): its outcome, or the request's `TIMEOUT` or `ABORTED` at its
    /// deadline or abort. The handshake itself has the client's timeout for each exchange (it is
    /// every waiting request's, not this one's). When this request stops waiting, the handshake
    /// goes on in the background if the client has a spawner ([`Client::set_spawner`]; a JS
    /// host's): the requests waiting for it, and those that come after, get the new session, as
    /// when a `connect()` with a short timeout gives up on a renewal. Without a spawner nothing
    /// runs it: it is dropped, and the requests waiting for it fail `NOT_CONNECTED`, as when the
    /// driving request's future is dropped.
    async fn drive_renewal(&self, method: &str, opts: &mut CallOptions) -> Result<()> {
        let timeout = opts.timeout_ms.unwrap_or(self.opts.timeout_ms);
        let sleep = self.clock.sleep(timeout);
        pin_mut!(sleep);
        /// A handshake under way goes on in the background however this request stops waiting
        /// for it: its timeout, its abort, or its future dropped (close() ends a listening stream
        /// that was renewing its session: an `initialize` sent then still ends the session its
        /// answer names, see [`Client::run_with_timeout`]).
        struct HandOff(Option<Pin<Box<dyn Future<Output = Result<()>>>>>, Spawner);
        impl Drop for HandOff {
            fn drop(&mut self) {
                if let Some(handshake) = self.0.take() {
                    (self.1)(Box::pin(async move {
                        let _ = handshake.await;
                    }));
                }
            }
        }
        let owned = self.renew_in_background.borrowed().clone().and_then(|renew| renew());
        let timed_out = match owned {
            Some((handshake, spawn)) => {
                let mut handoff = HandOff(Some(handshake), spawn);
                let handshake = handoff.0.as_mut().expect("the handshake is there until it ends").as_mut();
                match select(handshake, select(sleep, cancelled(&mut opts.cancel))).await {
                    Either::Left((shaken, _)) => {
                        handoff.0 = None;
                        return shaken;
                    }
                    Either::Right((why, _)) => matches!(why, Either::Left(_)),
                }
            }
            None => {
                let mut defaults = CallOptions::default();
                let handshake = self.initialize_shared(&mut defaults, false);
                pin_mut!(handshake);
                match select(handshake, select(sleep, cancelled(&mut opts.cancel))).await {
                    Either::Left((shaken, _)) => return shaken,
                    Either::Right((why, _)) => matches!(why, Either::Left(_)),
                }
            }
        };
        Err(renewal_unawaited(method, timeout, timed_out))
    }

    /// Connects unless connected, sharing a handshake under way (a renewal's, or another
    /// caller's): the hub connects its servers on first use, by whichever requests come first
    /// together, and one session is opened for them all. A handshake that fails fails them all.
    pub async fn ensure_connected(&self) -> Result<()> {
        self.ensure_connected_with(&mut CallOptions::default()).await
    }

    /// [`Client::ensure_connected`] under a call's timeout and cancellation (each exchange of
    /// a handshake within the timeout, as [`Client::connect_with`] has it).
    pub async fn ensure_connected_with(&self, opts: &mut CallOptions) -> Result<()> {
        if let Some(joined) = self.join_handshake(opts).await {
            return joined;
        }
        if self.is_connected() {
            return Ok(());
        }
        self.state.borrowed_mut().closed = false;
        self.initialize_shared(opts, false).await
    }

    /// [`Client::initialize`], marked as under way for the requests that come meanwhile, which
    /// wait for it ([`Client::await_renewal`]). `end_first`: the session held is ended first
    /// (`connect()`).
    async fn initialize_shared(&self, opts: &mut CallOptions, end_first: bool) -> Result<()> {
        /// Ends the handshake however its future ends (a dropped one too: the waiters would
        /// otherwise wait for ever).
        struct Renewing<'c>(&'c Cell<bool>, &'c CloseSignal);
        impl Drop for Renewing<'_> {
            fn drop(&mut self) {
                self.0.set(false);
                self.1.fire();
            }
        }
        self.reinitializing.set(true);
        let _renewing = Renewing(&self.reinitializing, &self.reinitialized);
        if end_first {
            // A session of the app's asking: its subscriptions are the app's to make again.
            self.forget_subscriptions();
            // The requests in flight are of the session ended here: abandoned at once, as close()
            // abandons them (its DELETE tells the server; no cancellation).
            self.session_ended.fire();
            let _ = self.end_session().await;
        }
        let shaken = self.handshake(opts).await;
        if shaken.is_ok() {
            self.renewal_owed.set(false);
            if let Some(h) = self.on_connected.borrowed().as_ref() {
                h();
            }
        }
        shaken
    }

    /// For a request about to be sent: waits for a session renewal under way ([`Client::await_renewal`]),
    /// then renews again a session whose renewal failed (see `renewal_owed`), within the request's
    /// timeout and cancellation (as a hub connects a server again): a server that answered 503
    /// while it restarted is not given up on for good. Not when a renewal ended while this request
    /// waited: its outcome, failed, is this request's too (each waiter trying again would hammer a
    /// server that is down; the next request tries again).
    async fn renew_again(&self, method: &str, opts: &mut CallOptions) -> Result<()> {
        let renewals = self.reinitialized.generation.get();
        self.await_renewal(method, opts).await?;
        if self.state.borrowed().connected || !self.renewal_owed.get() {
            return Ok(());
        }
        if self.reinitialized.generation.get() != renewals {
            return Err(Error::new(ErrorCode::NotConnected, format!("{method}: the session expired and could not be renewed (the next request tries again)")));
        }
        self.ensure_connected_with(opts).await
    }

    /// Waits for a session renewal under way (another request's), within this call's timeout
    /// and its cancellation.
    async fn await_renewal(&self, method: &str, opts: &mut CallOptions) -> Result<()> {
        let timeout = opts.timeout_ms.unwrap_or(self.opts.timeout_ms);
        let sleep = self.clock.sleep(timeout);
        pin_mut!(sleep);
        while self.reinitializing.get() {
            let renewed = self.reinitialized.wait();
            pin_mut!(renewed);
            match select(renewed, select(sleep.as_mut(), cancelled(&mut opts.cancel))).await {
                Either::Left(_) => {}
                Either::Right((why, _)) => return Err(renewal_unawaited(method, timeout, matches!(why, Either::Left(_)))),
            }
        }
        Ok(())
    }

    /// Sends a notification (200, 202 and 204 are all success).
    pub async fn notify(&self, method: &str, params: Value) -> Result<()> {
        self.notify_within(method, params, &mut CallOptions::default()).await
    }

    /// [`Client::notify`] within a call's timeout and cancellation (the handshake's).
    async fn notify_within(&self, method: &str, params: Value, opts: &mut CallOptions) -> Result<()> {
        let body = jsonrpc::notification(method, params);
        let timeout = opts.timeout_ms.unwrap_or(self.opts.timeout_ms);
        // 2026-07-28: every POST names its method in `Mcp-Method`.
        let extra = if self.is_modern() { vec![("mcp-method".owned(), header_value(method))] } else { Vec::new() };
        // Sent once more with new headers after a 401, as a request is.
        let send = async {
            let mut sent_with = self.auth_generation.get();
            let mut resp = self.transport.send(self.post(body.clone(), true, &extra)).await.map_err(|e| transport_error(e, method))?;
            let mut so_far = Reauthorizations::default();
            while asks_authorization(&resp) && {
                let asked = self.reauthorized(&resp, sent_with, so_far).await;
                match asked {
                    Ok(again) => again,
                    Err(e) => return Err(self.with_refusal_body(e, resp, method).await),
                }
            } {
                so_far.record(resp.status);
                drop(resp);
                sent_with = self.auth_generation.get();
                resp = self.transport.send(self.post(body.clone(), true, &extra)).await.map_err(|e| transport_error(e, method))?;
            }
            Ok((resp, sent_with))
        };
        let sleep = self.clock.sleep(timeout);
        pin_mut!(send, sleep);
        let (resp, sent_with) = match select(send, select(sleep, cancelled(&mut opts.cancel))).await {
            Either::Left((r, _)) => r?,
            Either::Right((Either::Left(_), _)) => {
                return Err(Error::new(ErrorCode::Timeout, format!("{method} got no answer in {timeout} ms")).with_detail("timeoutMs", timeout))
            }
            Either::Right((Either::Right(_), _)) => return Err(Error::new(ErrorCode::Aborted, format!("{method} was aborted"))),
        };
        if (200..300).contains(&resp.status) {
            self.post_accepted(sent_with);
            Ok(())
        } else {
            Err(self.status_error(resp, method).await)
        }
    }

    /// A request with the session, 404 re-initialization and one retry. A method of a
    /// capability the session's server did not declare (`Client::missing_capability`) is not
    /// sent (`CAPABILITY_NOT_NEGOTIATED`, `capability` naming it), told again for the session a
    /// renewal brings. With a 2026-07-28 server, `ping` and `logging/setLevel` are not sent either
    /// (`CAPABILITY_NOT_NEGOTIATED`: the revision has neither), and `resources/subscribe` and
    /// `unsubscribe` are the client's own ([`Client::subscribe_here`]).
    pub async fn request(&self, method: &str, params: Value, opts: &mut CallOptions) -> Result<Value> {
        self.request_on_session(method, params, opts, Behalf::Own).await.map(|(v, _)| v)
    }

    /// [`Client::request`], its server requests said to come for the request `behalf` names.
    async fn request_for(&self, method: &str, params: Value, opts: &mut CallOptions, behalf: Behalf<'_>) -> Result<Value> {
        self.request_on_session(method, params, opts, behalf).await.map(|(v, _)| v)
    }

    /// [`Client::request`], with the generation of the session that answered. With a 2026-07-28
    /// server a request may take several rounds (`input_required`): `max_total_timeout_ms` bounds
    /// them all (each exchange's own bound is the 2025 revisions' way, which must tell the server).
    async fn request_on_session(&self, method: &str, params: Value, opts: &mut CallOptions, behalf: Behalf<'_>) -> Result<(Value, u64)> {
        let total = opts.max_total_timeout_ms.filter(|_| self.is_modern());
        let attempts = self.request_attempts(method, params, opts, behalf);
        let Some(ms) = total else { return attempts.await };
        let sleep = self.clock.sleep(ms);
        pin_mut!(attempts, sleep);
        match select(attempts, sleep).await {
            Either::Left((r, _)) => r,
            Either::Right(_) => Err(Error::new(ErrorCode::Timeout, format!("{method} took more than its total of {ms} ms (maxTotalTimeoutMs); the request was cancelled"))
                .with_detail("timeoutMs", ms)),
        }
    }

    async fn request_attempts(&self, method: &str, params: Value, opts: &mut CallOptions, behalf: Behalf<'_>) -> Result<(Value, u64)> {
        let mut params = merge_meta(params, opts.meta.as_ref())?;
        let mut retried = false;
        // 2026-07-28: sent again once after a refusal of its version that names it as supported,
        // or a response stream that broke; answered `input_required` at most this many times.
        let (mut reissued, mut rounds, mut relisted) = (false, 0, false);
        // A request that changes nothing, abandoned once by another request's renewal of the
        // session, was sent again on the new one.
        let mut resent = false;
        let paged = params.get("cursor").is_some();
        loop {
            // A session being renewed after a 404 (another request's): wait for the new one. A
            // cursor given meanwhile is the old session's.
            let before = self.session_gen.get();
            self.renew_again(method, opts).await?;
            if paged && self.session_gen.get() != before {
                return Err(Error::new(
                    ErrorCode::SessionExpired,
                    format!("{method}: the session was renewed while this request waited; its cursor is the old session's, so it was not sent: list from the first page"),
                ));
            }
            if !self.state.borrowed().connected {
                return Err(Error::new(ErrorCode::NotConnected, format!("call connect() before {method}")));
            }
            let modern = self.is_modern();
            if let Some(why) = modern.then(|| not_modern(method)).flatten() {
                return Err(Error::new(ErrorCode::CapabilityNotNegotiated, format!("{method} is no request of MCP 2026-07-28, which the server speaks, so it was not sent: {why}")));
            }
            if let Some(capability) = self.missing_capability(method) {
                return Err(Error::new(
                    ErrorCode::CapabilityNotNegotiated,
                    format!("{method}: the server declares no `{capability}` capability, so it was not sent"),
                )
                .with_detail("capability", capability));
            }
            let gen = self.session_gen.get();
            // 2026-07-28 has no `resources/subscribe` nor `unsubscribe`: the client's own (not
            // changed by one aborted already, as a request would not be sent).
            if modern && matches!(method, "resources/subscribe" | "resources/unsubscribe") {
                if cancelled_already(&mut opts.cancel) {
                    return Err(Error::new(ErrorCode::Aborted, format!("{method} was aborted before it was made: the client's subscriptions are as they were")));
                }
                return self.subscribe_here(method, &params).map(|v| (v, gen));
            }
            let ended = self.session_ended.generation.get();
            let id = self.new_id();
            let sent = self.with_meta(&params, opts.wants_progress().then_some(&id));
            let headers = if modern { self.modern_headers(method, &sent)? } else { Vec::new() };
            let body = jsonrpc::request(&id, method, sent);
            let _token = opts.wants_progress().then(|| ProgressToken::new(&self.progress_tokens, &id));
            let round = Registered::new(&self.in_flight, &id, method, &params, behalf);
            // A task-augmented request (2025-11-25) is cancelled by `tasks/cancel`.
            let creates_task = !modern && params.get("task").is_some_and(Value::is_object);
            match self.run_with_timeout(&id, method, body, (true, creates_task), &headers, opts).await {
                Ok((v, _)) if !modern => return Ok((v, gen)),
                Ok((v, _)) => match v.get("resultType") {
                    None => return Ok((v, gen)),
                    Some(t) if t == "complete" => return Ok((v, gen)),
                    Some(t) if t == "input_required" && matches!(method, "tools/call" | "prompts/get" | "resources/read") => {
                        rounds += 1;
                        if rounds > MAX_INPUT_ROUNDS {
                            return Err(Error::new(
                                ErrorCode::LimitExceeded,
                                format!("{method}: the server asked for input {MAX_INPUT_ROUNDS} times and still wants more"),
                            ));
                        }
                        params = self.provide_input(method, params, &v, &round.call.related, opts).await?;
                    }
                    Some(t) if t == "input_required" => {
                        return Err(Error::new(ErrorCode::Protocol, format!("{method}: the server answered input_required, which only tools/call, prompts/get and resources/read may be")))
                    }
                    Some(t) => return Err(Error::new(ErrorCode::Protocol, format!("{method}: the result's resultType {} is not one toolwire knows", crate::text::server_value(t)))),
                },
                Err(e) if modern && !reissued && e.code == ErrorCode::UnsupportedProtocolVersion && names_modern(&e) => reissued = true,
                // A call refused for its headers (-32020): the tool's schema (its `x-mcp-header`
                // marks) may have changed since the last listing, or there was none. Listed again
                // ([`Client::relist_tools`]; the request's total bounds it already) and sent once
                // more, with what its rounds have gathered so far.
                Err(e) if modern && method == "tools/call" && !relisted && rpc_code(&e) == Some(-32020) => {
                    relisted = true;
                    match self.relist_tools(opts, None).await? {
                        // The server's refusal of the call is what the app can act on.
                        Err(l) => {
                            let mut e = e;
                            e.message = format!("{}; listing the tools again to send it once more failed: {}", e.message, l.message);
                            return Err(e);
                        }
                        // The server's tools are not those of the app's last listTools() (which
                        // it may have given a model): that listing is stale now
                        // ([`Client::tools_expired`]), and so is one of the app's that started
                        // before this one and ends after it.
                        Ok(l) => {
                            self.tools_fresh_until.set(Some(0));
                            self.tools_fresh_listing.set(self.tools_fresh_listing.get().max(l.number));
                        }
                    }
                    let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
                    if !self.header_params.borrowed().contains_key(name) && self.dropped_tools.borrowed().iter().any(|d| d["name"] == name) {
                        return Err(e);
                    }
                }
                Err(e) if modern && e.details.as_ref().is_some_and(|d| d.contains_key("streamBroken")) => {
                    if method == "tools/call" {
                        return Err(Error::new(
                            ErrorCode::Protocol,
                            format!("{}; the call was not sent again (the tool may have run): call it again if that is safe", e.message),
                        )
                        .with_detail("streamBroken", true));
                    }
                    if reissued {
                        return Err(e);
                    }
                    reissued = true;
                }
                Err(mut e) if e.details.as_ref().is_some_and(|d| d.contains_key("sessionExpired")) => {
                    if retried && e.code == ErrorCode::NotConnected {
                        let status = e.details.as_ref().and_then(|d| d.get("status")).cloned().unwrap_or(Value::Null);
                        return Err(Error::new(
                            ErrorCode::HttpStatus,
                            format!("{method}: HTTP {}: the session expired again right after re-initializing", crate::text::to_string(&status)),
                        )
                        .with_detail("status", status)
                        .with_detail("sessionExpired", true));
                    }
                    let switching = e.details.as_mut().and_then(|d| d.remove("otherRevision")).is_some();
                    if retried {
                        // A refusal of the version again: the server's own answer.
                        e.details.as_mut().map(|d| d.remove("sessionExpired"));
                        return Err(e);
                    }
                    retried = true;
                    self.renew_session(gen, method, opts).await?;
                    // A refusal that seemed to say the server speaks another revision now, yet the
                    // new handshake found the same one: the refusal is the server's answer to the
                    // request (which may have run), and it is not sent again.
                    if switching && self.is_modern() == modern {
                        e.details.as_mut().map(|d| d.remove("sessionExpired"));
                        return Err(e);
                    }
                    // A cursor of the old session means nothing to the new one (or another page).
                    if paged {
                        return Err(Error::new(
                            ErrorCode::SessionExpired,
                            format!("{method}: the session expired and was renewed; the request carried a cursor of the old session, so it was not sent again: list from the first page"),
                        ));
                    }
                }
                // Its stream abandoned when another request renewed the session (not by connect()
                // or close()): a request that changes nothing is sent again on the new session
                // (waited for above), once, as after its own 404; one with a cursor is not.
                Err(e) if !resent
                    && read_only(method)
                    && e.details.as_ref().is_some_and(|d| d.contains_key("sessionEnded"))
                    && self.session_ended.generation.get() == ended
                    && !self.state.borrowed().closed =>
                {
                    resent = true;
                    if paged {
                        return Err(Error::new(
                            ErrorCode::SessionExpired,
                            format!("{method}: the session was renewed before the response; the request carried a cursor of the old session, so it was not sent again: list from the first page"),
                        ));
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// 2026-07-28: the answers to an `input_required` result's `inputRequests`, each from the
    /// request handler (as a server request would be answered), and the params of the request
    /// sent again with them and the `requestState` as given. `related`: the round that asked.
    /// The handler's time is not bounded by the call's timeout (which bounds the server's
    /// silence), only by its `max_total_timeout_ms` and cancellation, and the client's close.
    async fn provide_input(&self, method: &str, mut params: Value, result: &Value, related: &Related, opts: &mut CallOptions) -> Result<Value> {
        let needs = |message: String| Error::new(ErrorCode::InputRequired, message).with_detail("inputRequests", result.get("inputRequests").cloned().unwrap_or(Value::Null));
        let mut responses = Map::new();
        match result.get("inputRequests") {
            None => {}
            Some(Value::Object(requests)) if requests.len() > MAX_SERVER_REQUESTS => {
                // As many as the client answers at once as server requests: a server cannot have
                // the app asked thousands of questions for one call.
                return Err(Error::new(
                    ErrorCode::Protocol,
                    format!("{method}: the server asks for {} inputs at once, more than the {MAX_SERVER_REQUESTS} the client answers for one request", requests.len()),
                )
                .with_detail("limit", MAX_SERVER_REQUESTS));
            }
            Some(Value::Object(requests)) => {
                // Every entry a request (an object with a method) before any is asked: none is
                // asked of the handler as if its method were "".
                if let Some((key, request)) = requests.iter().find(|(_, r)| r.get("method").and_then(Value::as_str).is_none_or(str::is_empty)) {
                    return Err(Error::new(
                        ErrorCode::Protocol,
                        format!("{method}: the input_required result's input request {} is not an object with a string `method` ({})", crate::text::quote(key), shown(request)),
                    )
                    .with_detail("inputRequests", Value::Object(requests.clone())));
                }
                // A capability the client did not declare, or an elicitation mode it left out: refused
                // as it is as a server request, before any is asked (nobody answers a form for a
                // request that then fails on another input).
                for (key, request) in requests {
                    let asked_for = request.get("method").and_then(Value::as_str).unwrap_or_default();
                    let asked_with = request.get("params").unwrap_or(&Value::Null);
                    let refused = self
                        .undeclared_capability(asked_for)
                        .map(|r| format!("({asked_for}) is of a capability the client did not declare: {}", r.message))
                        .or_else(|| self.undeclared_elicitation(asked_for, asked_with).map(|r| format!("is an elicitation the client did not declare: {}", r.message)));
                    if let Some(refused) = refused {
                        return Err(Error::new(ErrorCode::Protocol, format!("{method}: the server's input request {} {refused}", crate::text::quote(key)))
                            .with_detail("inputRequests", Value::Object(requests.clone())));
                    }
                }
                for (key, request) in requests {
                    let asked_for = request.get("method").and_then(Value::as_str).unwrap_or_default();
                    let asked_with = request.get("params").cloned().unwrap_or(Value::Null);
                    let context = RequestContext { id: Value::String(key.clone()), related: Some(related.clone()), input_round: true };
                    let asked = self.on_request.borrowed().as_ref().map(|h| h(asked_for, &asked_with, &context));
                    let Some(asked) = asked else {
                        return Err(needs(format!("{method}: the server needs input ({asked_for}) and the client has no request handler to give it")));
                    };
                    // Within the call's cancellation and the client's close (and its total, above).
                    let closed = self.closing.wait();
                    pin_mut!(asked, closed);
                    let answer = match select(asked, select(cancelled(&mut opts.cancel), closed)).await {
                        Either::Left((answer, _)) => answer,
                        Either::Right((Either::Left(_), _)) => return Err(Error::new(ErrorCode::Aborted, format!("{method} was aborted while its input was asked for"))),
                        Either::Right((Either::Right(_), _)) => return Err(Error::new(ErrorCode::NotConnected, format!("{method} was abandoned: the client was closed"))),
                    };
                    match answer {
                        // An answer of the wrong shape is not sent: the call fails, as when the handler throws.
                        Ok(v) => match invalid_answer(asked_for, &asked_with, &v) {
                            Some(e) => return Err(needs(format!("{method}: the request handler's answer to the server's {asked_for} was not sent: {}", e.message)).with_detail("answer", v)),
                            None => responses.insert(key.clone(), self.with_elicitation_defaults(asked_for, &asked_with, v)),
                        },
                        Err(e) => return Err(needs(format!("{method}: the request handler refused the server's {asked_for}: {}", e.message))),
                    };
                }
            }
            Some(_) => return Err(Error::new(ErrorCode::Protocol, format!("{method}: the input_required result's inputRequests is not an object"))),
        }
        let state = match result.get("requestState") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(Error::new(ErrorCode::Protocol, format!("{method}: the input_required result's requestState is not a string"))),
        };
        if responses.is_empty() && state.is_none() {
            return Err(Error::new(ErrorCode::Protocol, format!("{method}: the input_required result has neither inputRequests nor requestState")));
        }
        if params.is_null() {
            params = Value::Object(Map::new());
        }
        if let Value::Object(p) = &mut params {
            p.remove("inputResponses");
            p.remove("requestState");
            if !responses.is_empty() {
                p.put("inputResponses", Value::Object(responses));
            }
            if let Some(state) = state {
                p.put("requestState", Value::String(state));
            }
        }
        Ok(params)
    }

    /// One request raced against its timeout and the caller's cancellation, which the server is
    /// told of by `notifications/cancelled`; but a task-augmented one (`creates_task`: its
    /// `params.task`) is cancelled by `tasks/cancel` ([`Client::cancel_created_task`]).
    async fn run_with_timeout(
        &self,
        id: &Id,
        method: &str,
        body: String,
        (with_session, creates_task): (bool, bool),
        headers: &[(String, String)],
        opts: &mut CallOptions,
    ) -> Result<(Value, Option<String>)> {
        let wants_progress = opts.wants_progress();
        let CallOptions { timeout_ms, on_progress, cancel, reset_timeout_on_progress, max_total_timeout_ms, cancel_reason, cancel_timed_out, .. } = opts;
        // Cancelled already (an aborted signal given): not sent, so there is nothing to tell the
        // server either.
        if cancelled_already(cancel) {
            return Err(Error::new(ErrorCode::Aborted, format!("{method} was aborted before it was sent")));
        }
        let timeout = timeout_ms.unwrap_or(self.opts.timeout_ms);
        // The session it goes on (the exchange below sends it at its first poll, with no await
        // before): its cancellation goes to that one or nowhere.
        let sent_on = self.sent_on();
        // The time spent answering this request's server requests does not count (see
        // `sleep_unpaused`); the total cap counts it.
        let call = self.in_flight(id);
        let paused = call.as_deref();
        // Progress for this call, told to the timeout below.
        let progressed = CloseSignal::default();
        let on_progress = on_progress.as_deref();
        let report = |p: &Value| {
            progressed.fire();
            if let Some(cb) = on_progress {
                cb(p);
            }
        };
        // The status of the refusal the request waits for new headers after (401, 403 step-up):
        // the server has not taken it, so there is nothing to cancel.
        let refused = Cell::new(None);
        let exchange = self.exchange(id, method, body, with_session, headers, wants_progress.then_some(&report as &dyn Fn(&Value)), &refused);
        // Its progress that other streams bring (the standalone one, another call's), told as its own.
        let elsewhere = self.progress_elsewhere(if wants_progress { self.elsewhere(id) } else { None }, &report);
        // Its response, when another stream brings it before its own is read: the call's, and the
        // request's POST (not yet answered) is dropped. Once its own stream or JSON body is read,
        // that reading takes it instead ([`Client::read_sse`], [`Client::read_json`]). Not a
        // handshake's, whose session is its response's header.
        let awaiting = (method != "initialize").then(|| Awaiting::new(&self.awaiting, id));
        let answered_elsewhere = async {
            match &awaiting {
                Some(a) => a.awaited.unread_response().await.map(|v| (v, None)).map_err(|e| Failure::Error(rpc_to_error(e, method))),
                None => futures_util::future::pending().await,
            }
        };
        let exchange = async {
            pin_mut!(exchange, elsewhere, answered_elsewhere);
            match select(select(exchange, answered_elsewhere), elsewhere).await {
                Either::Left((r, _)) => r.factor_first().0,
                Either::Right((never, _)) => match never {},
            }
        };
        let reset = *reset_timeout_on_progress;
        // What the server is told of a request given up: `notifications/cancelled`, but of no
        // handshake (MCP's `initialize` is never cancelled).
        let told = if method == "initialize" { "; the handshake was given up (initialize is never cancelled)" } else { "; the request was cancelled" };
        // What ends the call for time: `timeout` (again after each progress when asked), or the
        // total cap.
        let sleep = async {
            let idle = async {
                if !reset {
                    self.sleep_unpaused(timeout, paused).await;
                    return (format!("{method} timed out after {timeout} ms{told}"), timeout);
                }
                loop {
                    let moved = progressed.wait();
                    let sleep = self.sleep_unpaused(timeout, paused);
                    pin_mut!(moved, sleep);
                    if let Either::Left(_) = select(sleep, moved).await {
                        return (format!("{method} timed out after {timeout} ms without progress{told}"), timeout);
                    }
                }
            };
            let total = async {
                match max_total_timeout_ms {
                    Some(ms) => {
                        self.clock.sleep(*ms).await;
                        (format!("{method} took more than its total of {ms} ms (maxTotalTimeoutMs){told}"), *ms)
                    }
                    None => futures_util::future::pending().await,
                }
            };
            pin_mut!(idle, total);
            let ended = select(idle, total).await.factor_first().0;
            self.unless_answered(paused).await;
            ended
        };
        // Polled by reference, so one cancellation covers a retry after re-initialization too.
        let cancel = async {
            cancelled(cancel).await;
            self.unless_answered(paused).await;
        };
        let closed_at = self.closing.generation.get();
        let closed = self.closing.wait_since(closed_at);
        let ended = self.session_ended.wait();
        let abandoned = || Error::new(ErrorCode::NotConnected, format!("{method} was abandoned: the client was closed"));
        // The exchange lives in this block only: leaving it drops the exchange, which aborts its
        // HTTP request, before the server is told below.
        let outcome = {
            pin_mut!(exchange, sleep, cancel, closed, ended);
            let stop = select(sleep, select(cancel, select(closed, ended)));
            match select(exchange, stop).await {
                // close() came first, and the exchange ended with it or after it: abandoned, the
                // failure close() made included (the HTTP+SSE transport answers a POST whose
                // stream close() ended with a 404, which is no expired session to renew). A
                // handshake's answer ends the session it opened.
                Either::Left((r, _)) if self.closing.generation.get() != closed_at && (r.is_err() || method == "initialize") => {
                    if method == "initialize" {
                        self.end_abandoned_session(r).await;
                    }
                    return Err(abandoned());
                }
                // The response stream fell silent past the idle timeout: the request is still
                // running on the server, which is told as for the other timeout.
                Either::Left((Err(Failure::Error(e)), _)) if e.code == ErrorCode::Timeout => e,
                Either::Left((r, _)) => {
                    return r.map_err(|f| match f {
                        Failure::Error(e) => e,
                        Failure::SessionExpired(status) => Error::new(ErrorCode::NotConnected, format!("the session expired (HTTP {status})"))
                            .with_detail("sessionExpired", true)
                            .with_detail("status", status),
                    })
                }
                // `timeoutMs`: the timeout that ended it (the total, when that did).
                Either::Right((Either::Left(((message, ended_by), _)), exchange)) => {
                    let e = Error::new(ErrorCode::Timeout, message).with_detail("timeoutMs", ended_by);
                    if creates_task {
                        return Err(self.cancel_created_task(e, exchange, closed_at, &sent_on).await);
                    }
                    e
                }
                Either::Right((Either::Right((Either::Left(_), _)), exchange)) => {
                    // The caller's reason (`signal.reason`: `controller.abort(reason)`'s, or
                    // `AbortSignal.timeout`'s), as `reason`: what `notifications/cancelled` says
                    // (of a timeout: "timeout").
                    let mut e = match cancel_timed_out.as_ref().is_some_and(|t| t()) {
                        true => Error::new(ErrorCode::Timeout, format!("{method} timed out: its signal's timeout (AbortSignal.timeout) fired{told}")),
                        false => Error::new(ErrorCode::Aborted, format!("{method} was aborted{told}")),
                    };
                    if let Some(reason) = cancel_reason.as_ref().and_then(|r| r()) {
                        e = e.with_detail("reason", reason);
                    }
                    if creates_task {
                        return Err(self.cancel_created_task(e, exchange, closed_at, &sent_on).await);
                    }
                    e
                }
                // close() ends the session; its DELETE tells the server, no cancellation needed.
                // A handshake's session is not known yet: its answer, awaited within the close
                // grace, says which to end. Over the HTTP+SSE transport the session is the stream,
                // which close() ended: nothing to wait for.
                Either::Right((Either::Right((Either::Right((Either::Left(_), _)), _)), exchange)) => {
                    if method == "initialize" && self.transport.mcp_transport() != Some(McpTransport::Sse) {
                        let grace = self.clock.sleep(CLOSE_GRACE_MS);
                        pin_mut!(grace);
                        if let Either::Left((answered, _)) = select(exchange, grace).await {
                            self.end_abandoned_session(answered).await;
                        }
                    }
                    return Err(abandoned());
                }
                // So does connect() on a client with a session.
                Either::Right((Either::Right((Either::Right((Either::Right(_), _)), _)), _)) => {
                    return Err(Error::new(ErrorCode::NotConnected, format!("{method} was abandoned: connect() ended its session to open a new one"))
                        .with_detail("sessionEnded", true))
                }
            }
        };
        // Refused (401, or 403 for scopes) and waiting for authorization: the server never took
        // it, and there is nothing to cancel (MCP: only requests previously issued are).
        // Cancelling it would also meet the refusal, and ask for a sign-in of its own.
        if let Some(status) = refused.get() {
            let mut outcome = outcome;
            if let Some(base) = outcome.message.strip_suffix("; the request was cancelled") {
                outcome.message = format!("{base}; the server had refused it (HTTP {status}) and it waited for authorization: nothing to cancel");
            }
            return Err(outcome);
        }
        // 2026-07-28: closing the request's stream (above) is the cancellation. A task-augmented
        // request's is `tasks/cancel`, never this (MCP 2025-11-25: MUST), and the task it would
        // name is not known when its response stream went silent.
        if method != "initialize" && !self.is_modern() && !creates_task {
            let reason = if outcome.code == ErrorCode::Timeout {
                "timeout".owned()
            } else {
                cancel_reason.as_ref().and_then(|r| r()).unwrap_or_else(|| "aborted by the client".owned())
            };
            self.tell_cancelled(object([("requestId", id.to_value()), ("reason", reason.into())]), sent_on).await;
        }
        Err(outcome)
    }

    /// A task-augmented request (its `params.task`) that timed out or was aborted, with its error
    /// `e`: MCP (2025-11-25) has such a request cancelled by `tasks/cancel`, never by
    /// `notifications/cancelled`, and only the server's `CreateTaskResult` names the task. So its
    /// response (the `exchange`, not dropped) is waited for within [`CANCEL_GRACE_MS`] (the
    /// client's timeout, if less; not past `close()` or the end of the session it went on), and
    /// the task it names is cancelled within the same bound: the error then has `taskId` and
    /// `taskCancelled`, and its message says what became of the task.
    async fn cancel_created_task<F>(&self, mut e: Error, exchange: F, closed_at: u64, sent_on: &SentOn) -> Error
    where
        F: Future<Output = std::result::Result<(Value, Option<String>), Failure>>,
    {
        let grace = CANCEL_GRACE_MS.min(self.opts.timeout_ms);
        let answered = {
            let (sleep, closed, left) = (self.clock.sleep(grace), self.closing.wait_since(closed_at), self.session_left(sent_on));
            pin_mut!(exchange, sleep, closed, left);
            match select(exchange, select(sleep, select(closed, left))).await {
                Either::Left((r, _)) => Some(r),
                Either::Right(_) => None,
            }
        };
        let base = e.message.strip_suffix("; the request was cancelled").unwrap_or(&e.message).to_owned();
        let suffix = match answered {
            None => format!("; the server named no task within {grace} ms, so none was cancelled"),
            Some(Err(_)) => "; the server created no task".owned(),
            Some(Ok((v, _))) => match v.get("task").and_then(|t| t.get("taskId")).and_then(Value::as_str) {
                None => "; the server answered it without a task".owned(),
                Some(id) => {
                    let mut within = CallOptions { timeout_ms: Some(grace), ..CallOptions::default() };
                    // Boxed: a request is made of this one.
                    let cancel: Pin<Box<dyn Future<Output = Result<Value>> + '_>> = Box::pin(self.request("tasks/cancel", object([("taskId", string(id))]), &mut within));
                    let told = cancel.await.is_ok();
                    e = e.with_detail("taskId", id).with_detail("taskCancelled", told);
                    format!("; task {id} {}", if told { "was cancelled" } else { "could not be cancelled" })
                }
            },
        };
        e.message = format!("{base}{suffix}");
        e
    }

    /// Ends the session an `initialize` abandoned by close() opened, when its answer named one
    /// (DELETE, within the close grace): close() knew of no session to end.
    async fn end_abandoned_session(&self, answered: std::result::Result<(Value, Option<String>), Failure>) {
        let Ok((_, Some(session))) = answered else { return };
        if is_sendable_session_id(&session) {
            let _ = self.end_refused_session(&session).await;
        }
    }

    /// Ends a session the client does not take (or no longer wants) that a handshake's answer
    /// opened: DELETE with its id ([`Client::delete_session`]).
    async fn end_refused_session(&self, session: &str) -> Result<()> {
        let mut headers = self.headers(false, "application/json, text/event-stream");
        headers.push(("mcp-session-id".owned(), session.owned()));
        self.delete_session(headers).await
    }

    /// What a deadline or the signal of `call` does once it comes: nothing when the server's
    /// response is in hand ([`InFlight::answered`]) but release the answers still going out (so
    /// that the call returns the response, and never pends again); else it ends the call.
    async fn unless_answered(&self, call: Option<&InFlight>) {
        if let Some(call) = call.filter(|c| c.answered.get()) {
            call.release.fire();
            futures_util::future::pending::<()>().await;
        }
    }

    /// Where the progress of call `id` that other streams bring waits, when it asked for progress.
    fn elsewhere(&self, id: &Id) -> Option<Rc<Elsewhere>> {
        self.progress_tokens.borrowed().iter().find(|(t, _)| t == id).map(|(_, e)| e.clone())
    }

    /// Where the response to request `id` waits when another stream brings it, while it is awaited.
    fn awaited(&self, id: &Id) -> Option<Rc<Awaited>> {
        self.awaiting.borrowed().iter().find(|(k, _)| k == id).map(|(_, a)| a.clone())
    }

    /// [`Client::awaited`], taken by the reader of the request's own stream or JSON body: the
    /// response another stream brings is from now on that reader's outcome, as if it had come
    /// there, and not [`Client::run_with_timeout`]'s (which would drop the reading, and with it
    /// the answers to the server's requests it brought that are still going out).
    fn read_here(&self, id: &Id) -> Option<Rc<Awaited>> {
        let awaited = self.awaited(id)?;
        awaited.read_here.set(true);
        Some(awaited)
    }

    /// Tells `report` of the progress that other streams bring for a call, as it comes; never ends.
    async fn progress_elsewhere(&self, elsewhere: Option<Rc<Elsewhere>>, report: &dyn Fn(&Value)) -> std::convert::Infallible {
        let Some(elsewhere) = elsewhere else { return futures_util::future::pending().await };
        loop {
            // Made before the queue is read: progress put there after the reading wakes it.
            let arrived = elsewhere.arrived.wait();
            let came = std::mem::take(&mut *elsewhere.queue.borrowed_mut());
            if came.is_empty() {
                arrived.await;
            }
            for params in &came {
                report(params);
            }
        }
    }

    /// `notifications/cancelled` with these params: handed to the spawner when the client has one
    /// (the caller's error is not held up by a server slow to accept it), else sent here; either
    /// way within [`CANCEL_GRACE_MS`].
    async fn tell_cancelled(&self, params: Value, sent_on: SentOn) {
        let background = self.cancel_in_background.borrowed().clone();
        let since = self.closing.generation.get();
        match background {
            Some(send) => send(params, since, sent_on),
            None => self.send_cancelled(params, since, sent_on).await,
        }
    }

    /// The session requests go on now ([`SentOn`]); during the handshake, the session of the
    /// `initialize` response being read.
    fn sent_on(&self) -> SentOn {
        let handshake = self.handshake_session.borrowed();
        SentOn(self.session_gen.get(), self.state.borrowed().session_id.as_ref().or(handshake.as_ref()).cloned())
    }

    /// Whether the session a stream was opened on is still the client's: its server requests are
    /// answered, its cancellations heard and its drops resumed only then (another session never had
    /// its requests, and may have requests of the same ids).
    fn is_current(&self, on: &SentOn) -> bool {
        self.sent_on() == *on
    }

    /// Resolves once the session `on` is no longer the client's (renewed after the server forgot
    /// it, by whichever request met that; ended by `connect()` or `close()`).
    async fn session_left(&self, on: &SentOn) {
        while self.is_current(on) {
            self.session_changed.wait().await;
        }
    }

    /// Sends `notifications/cancelled` within [`CANCEL_GRACE_MS`] (the client's timeout, if less);
    /// its outcome changes nothing. Not sent, or abandoned, once the client has been closed since
    /// the close generation `since` (when the cancellation was decided): `close()` ended the session
    /// the request was of (its DELETE tells the server), and a closed client asks no one for
    /// authorization (a 401 to a notification sent without a session would call `onUnauthorized`).
    /// Not sent either once the session the request was sent on (`sent_on`) is gone: renewed
    /// after a 404, ended by `connect()`; the session there is now never had the request.
    async fn send_cancelled(&self, params: Value, since: u64, sent_on: SentOn) {
        if self.closing.generation.get() != since || self.sent_on() != sent_on {
            return;
        }
        let mut within = CallOptions { timeout_ms: Some(CANCEL_GRACE_MS.min(self.opts.timeout_ms)), ..CallOptions::default() };
        let sent = self.notify_within("notifications/cancelled", params, &mut within);
        let closed = self.closing.wait_since(since);
        pin_mut!(sent, closed);
        let _ = select(sent, closed).await;
    }

    /// The request `id` of this client in flight, when a server request its response stream
    /// brings is known to be for it: not over the deprecated HTTP+SSE transport, whose single
    /// stream's messages go to whichever request reads it.
    fn in_flight(&self, id: &Id) -> Option<Rc<InFlight>> {
        if self.transport.mcp_transport() == Some(McpTransport::Sse) {
            return None;
        }
        self.in_flight.borrowed().iter().find(|(k, _)| k == id).map(|(_, c)| c.clone())
    }

    /// Sleeps `ms` of the clock's time not spent answering server requests of `call`: its
    /// deadline is pushed by the time the request handler takes (a timeout bounds the server's
    /// silence, not the person filling in a form), and stands while the handler answers.
    async fn sleep_unpaused(&self, ms: u64, call: Option<&InFlight>) {
        let Some(call) = call else { return self.clock.sleep(ms).await };
        let start = self.clock.now_ms();
        let before = call.time.paused_ms(start);
        loop {
            // Made before the state is read: a change after the reading wakes it.
            let changed = call.changed.wait();
            if call.time.running() {
                changed.await;
                continue;
            }
            let now = self.clock.now_ms();
            let due = start.saturating_add(ms).saturating_add(call.time.paused_ms(now).saturating_sub(before));
            if now >= due {
                return;
            }
            let sleep = self.clock.sleep(due - now);
            pin_mut!(sleep, changed);
            select(sleep, changed).await;
        }
    }

    /// After a 401, or a 403 that asks for more scopes ([`asks_authorization`]): asks the
    /// [`AuthHandler`] (if any) for new headers, and takes them; whether it gave some (the
    /// request that met the refusal is then sent once more). `sent_with`: the
    /// `auth_generation` the refused request went out with: when the headers were
    /// renewed since (a request that met the 401 before it), it is sent again with the new ones
    /// and the handler is not asked (a second sign-in, or a second refresh rotating the tokens).
    /// `so_far`: the refusals of this request it answered before (their last status is the
    /// handler's `retried`), at most [`MAX_REAUTHORIZATIONS`]. A 401 to the request sent again
    /// with new headers marks them refused at once (`refused_auth`), unless a request has
    /// succeeded with them: a later request sent with them and refused with 401 tells the handler
    /// so (`refusedAtOnce`), until one succeeds. So does a 403 to the request sent again with the
    /// headers of a step-up, with the challenge the step-up was for (`refused_scope`): for that
    /// request (even after its last retry: the handler's error is its outcome) and for a later
    /// request refused with the same challenge.
    async fn reauthorized<B>(&self, resp: &HttpResponse<B>, sent_with: u64, so_far: Reauthorizations) -> Result<bool> {
        let current = self.auth_generation.get() == sent_with;
        if resp.status == 401 && so_far.last.is_some() && current && self.accepted_auth.get() != Some(sent_with) {
            self.refused_auth.set(Some(sent_with));
        }
        let challenge = resp.header("www-authenticate").map(str::to_owned);
        // What the 403 asks for (its `error` and scopes), not its text: an `error_description`
        // that varies (a request id) or parameters in another order are the same challenge.
        let asked_for = challenge.as_deref().filter(|_| resp.status == 403).map(scope_challenge);
        // Sent again with the headers of a step-up and refused with a challenge it was for: the
        // scopes were not granted. Another challenge (a server that names the scopes it misses
        // one at a time) is another step-up.
        let declined = so_far.last == Some(403)
            && asked_for.as_ref().is_some_and(|c| self.stepped_up.borrowed().as_ref().is_some_and(|(g, cs)| *g == sent_with && cs.contains(c)));
        if let (true, Some(c)) = (declined, &asked_for) {
            let mut refused = self.refused_scope.borrowed_mut();
            if !refused.contains(c) {
                if refused.len() >= MAX_REFUSED_SCOPES {
                    refused.remove(0);
                }
                refused.push(c.clone());
            }
        }
        // A step-up declined is told to the handler after the last retry too (it is not sent
        // again): its error, not a bare 403, is the request's.
        if !so_far.left() && !declined {
            return Ok(false);
        }
        // Not for a 403: new headers need not carry the scopes it asks for.
        if resp.status == 401 && !current {
            return Ok(true);
        }
        let mut info = object([
            ("status", resp.status.into()),
            ("challenge", challenge.as_deref().map_or(Value::Null, parse_www_authenticate)),
            ("wwwAuthenticate", challenge.clone().map_or(Value::Null, Value::String)),
        ]);
        if let (Some(status), Value::Object(m)) = (so_far.last, &mut info) {
            m.put("retried", status.into());
        }
        if let (None, 401, Value::Object(m)) = (so_far.last, resp.status, &mut info) {
            if self.refused_auth.get() == Some(sent_with) {
                m.put("refusedAtOnce", true.into());
            }
        }
        // A 403 with a challenge whose step-up was refused, first met or met after a refresh
        // (`retried` 401): whatever headers the request went out with, the user is not asked again.
        if let (None | Some(401), Some(c), Value::Object(m)) = (so_far.last, &asked_for, &mut info) {
            if self.refused_scope.borrowed().contains(c) {
                m.put("refusedAtOnce", true.into());
            }
        }
        if let (true, Value::Object(m)) = (declined, &mut info) {
            m.put("refusedAtOnce", true.into());
        }
        let asked = self.on_unauthorized.borrowed().as_ref().map(|h| h(&info));
        let Some(asked) = asked else { return Ok(false) };
        match asked.await? {
            Some(headers) => {
                self.set_auth_headers(headers);
                if let Some(c) = asked_for {
                    self.stepped_up_for(c);
                }
                Ok(so_far.left())
            }
            None => Ok(false),
        }
    }

    /// The headers now held are a step-up's for the 403 challenge `c` (with those of the requests
    /// that got the same headers, which were for the same step-up or joined it).
    fn stepped_up_for(&self, c: String) {
        let generation = self.auth_generation.get();
        let mut stepped_up = self.stepped_up.borrowed_mut();
        match stepped_up.as_mut() {
            Some((g, cs)) if *g == generation => {
                if !cs.contains(&c) {
                    cs.push(c);
                }
            }
            _ => *stepped_up = Some((generation, vec![c])),
        }
    }

    /// The [`AuthHandler`]'s error for a refusal it says stands (`credentialsRefused`: a step-up
    /// not granted, a token refused at once) with the refusal's body (`bodyPreview`), as the
    /// plain 401 or 403 error has it: what the server said of it.
    async fn with_refusal_body(&self, e: Error, resp: HttpResponse<T::Body>, method: &str) -> Error {
        let details = e.details.as_deref();
        if details.and_then(|d| d.get("credentialsRefused")) != Some(&Value::Bool(true)) || details.is_some_and(|d| d.contains_key("bodyPreview")) {
            return e;
        }
        match self.status_error(resp, method).await.details.and_then(|mut d| d.remove("bodyPreview")) {
            Some(text) => e.with_detail("bodyPreview", text),
            None => e,
        }
    }

    /// A POST sent with the headers of `sent_with` succeeded: they are not refused (any more),
    /// and a step-up refused before may be tried again, as the official SDK's transport has it
    /// (not after a GET: a listening stream reopened would have the user asked once per reopening).
    fn post_accepted(&self, sent_with: u64) {
        self.auth_accepted(sent_with);
        if !self.refused_scope.borrowed().is_empty() {
            self.refused_scope.borrowed_mut().clear();
        }
    }

    /// A request sent with the headers of `sent_with` succeeded: they are not refused (any more).
    fn auth_accepted(&self, sent_with: u64) {
        if self.refused_auth.get() == Some(sent_with) {
            self.refused_auth.set(None);
        }
        if self.accepted_auth.get().is_none_or(|a| a < sent_with) {
            self.accepted_auth.set(Some(sent_with));
        }
    }

    /// Headers from the [`AuthHandler`] (or restored credentials, before connecting): each
    /// replaces one of the same name given before, and of [`ClientOptions::headers`].
    pub fn set_auth_headers(&self, headers: Vec<(String, String)>) {
        let mut auth = self.auth_headers.borrowed_mut();
        for (k, v) in headers {
            let k = k.to_ascii_lowercase();
            if auth.iter().any(|(a, b)| *a == k && *b == v) {
                continue;
            }
            // A generation is a change: the same headers again (each request that waited for one
            // authorization sets its result) leave requests sent with them as they were.
            self.auth_generation.set(self.auth_generation.get() + 1);
            auth.retain(|(a, _)| *a != k);
            auth.push((k, v));
        }
    }

    /// POST a request and read its response (JSON or SSE, with resumption). `refused`: the status
    /// of the refusal the request waits for new headers after, while it does.
    #[allow(clippy::too_many_arguments)]
    async fn exchange(
        &self,
        id: &Id,
        method: &str,
        body: String,
        with_session: bool,
        headers: &[(String, String)],
        on_progress: Option<&dyn Fn(&Value)>,
        refused: &Cell<Option<u16>>,
    ) -> std::result::Result<(Value, Option<String>), Failure> {
        let sent_session = with_session && self.state.borrowed().session_id.is_some();
        // The body is kept for a second send only when a 401 may be answered with new headers.
        let again = self.on_unauthorized.borrowed().is_some().then(|| body.clone());
        let req = self.post(body, with_session, headers);
        let mut sent_with = self.auth_generation.get();
        // The session the request goes on, whose streams its response's are.
        let sent_on = self.sent_on();
        let mut resp = self.transport.send(req).await.map_err(|e| transport_error(e, method))?;
        let mut so_far = Reauthorizations::default();
        if let Some(body) = again {
            while asks_authorization(&resp) && {
                refused.set(Some(resp.status));
                let asked = self.reauthorized(&resp, sent_with, so_far).await;
                match asked {
                    Ok(again) => again,
                    Err(e) => return Err(self.with_refusal_body(e, resp, method).await.into()),
                }
            } {
                so_far.record(resp.status);
                drop(resp);
                sent_with = self.auth_generation.get();
                // Sent again: from now on the server may have it.
                refused.set(None);
                resp = self.transport.send(self.post(body.clone(), with_session, headers)).await.map_err(|e| transport_error(e, method))?;
            }
            refused.set(None);
        }
        let status = resp.status;
        if status == 404 && sent_session {
            return Err(Failure::SessionExpired(404));
        }
        if !(200..300).contains(&status) {
            let e = refused_again(self.status_error(resp, method).await, so_far);
            // Servers built on the SDK's examples, server-everything among them, answer a session
            // they no longer know with 400 ("No valid session ID provided") before their
            // transport could say 404: a 400 that names the session sent is its end too.
            if status == 400 && sent_session && names_session(&e) {
                return Err(Failure::SessionExpired(400));
            }
            // A server that speaks another revision now (redeployed): with the auto era, a new
            // handshake finds out which, as for an expired session.
            if status == 400 && self.other_revision(method, &e) {
                return Err(Failure::Error(e.with_detail("sessionExpired", true).with_detail("otherRevision", true)));
            }
            return Err(e.into());
        }
        self.post_accepted(sent_with);
        // An empty header (or one of blanks, which fetch reads as empty) is no session id: the
        // server is stateless, as the SDK client takes it (a session id is visible ASCII
        // characters, at least one, so it cannot be one).
        let session = resp.header("mcp-session-id").filter(|s| !s.trim().is_empty()).map(str::to_owned);
        // While the handshake's response is read, its session is the one to answer on.
        let _handshake = (method == "initialize" && !sent_session)
            .then(|| HandshakeSession::hold(&self.handshake_session, session.clone().filter(|s| is_valid_session_id(s))));
        let on = if _handshake.is_some() { self.sent_on() } else { sent_on };
        let essence = content_type_essence(resp.header("content-type").unwrap_or(""));
        let result = match essence.as_str() {
            "application/json" => {
                // A body its length says is too large is refused unread (dropping it aborts the fetch).
                // Read as a u64: a usize is 32 bits in wasm, where 2^32 or more would not parse.
                let length = resp.header("content-length").and_then(|l| l.trim().parse::<u64>().ok());
                if let Some(n) = length.filter(|n| *n > self.opts.max_body_bytes as u64) {
                    return Err(Error::new(
                        ErrorCode::LimitExceeded,
                        format!("{method}: response larger than {} bytes (its Content-Length is {n}); refused before reading it", self.opts.max_body_bytes),
                    )
                    .with_detail("contentLength", n)
                    .into());
                }
                self.read_json(id, method, resp.body, on_progress, length.and_then(|n| usize::try_from(n).ok()), &on).await?
            }
            "text/event-stream" => self.read_sse(id, method, resp.body, on_progress, &on).await?,
            "" if status == 202 || status == 204 => {
                return Err(Error::new(ErrorCode::Protocol, format!("the server accepted {method} (HTTP {status}) but sent no response")).into())
            }
            other => {
                // A page answering the handshake's POST (a site's catch-all route, the app's own
                // origin): most often a URL that is not the server's MCP endpoint, as a 404 is.
                let page = method == "initialize" && matches!(other, "text/html" | "text/plain" | "application/xhtml+xml");
                return Err(Error::new(
                    ErrorCode::Protocol,
                    format!(
                        "{method}: unexpected content type {} (expected application/json or text/event-stream){}",
                        crate::text::server_text(other),
                        if page { "; the URL may not be an MCP endpoint: what answered it sends pages, not MCP's JSON (is its path the server's MCP endpoint, such as /mcp?)" } else { "" }
                    ),
                )
                .into())
            }
        };
        Ok((result, session))
    }

    /// With the auto era, whether a request's refusal (HTTP 400) says the server speaks another
    /// revision than the session's now (it was redeployed): the request was not run, and a new
    /// handshake picks the revision (versioning: the client selects a version from `supported`
    /// and retries, re-probing when what it learnt fails). A session of the 2025 revisions
    /// refused as a 2026-07-28 server refuses one (-32022 naming 2026-07-28, -32020 for the
    /// headers that revision needs, -32021); a 2026-07-28 one refused with -32022 naming only
    /// 2025 revisions toolwire speaks, or as a 2025 server built on an MCP SDK refuses a request
    /// without a session (TypeScript: -32000 "Mcp-Session-Id header is required"; Python: -32600
    /// "Missing session ID"), or as its 2025 transport refuses a 2026-07-28 request
    /// ([`sdk_refuses_modern`]). The handshakes are not: theirs are
    /// read there ([`Client::handshake`]).
    fn other_revision(&self, method: &str, e: &Error) -> bool {
        if self.opts.era != Era::Auto || matches!(method, "initialize" | "server/discover") {
            return false;
        }
        let refused_version = e.code == ErrorCode::UnsupportedProtocolVersion;
        if self.is_modern() {
            (refused_version && names_legacy(e)) || (matches!(rpc_code(e), Some(-32000 | -32600)) && asks_session(e)) || sdk_refuses_modern(e)
        } else {
            (refused_version && names_modern(e)) || matches!(rpc_code(e), Some(-32021..=-32020))
        }
    }

    async fn next_chunk(&self, body: &mut T::Body, method: &str) -> Result<Option<Vec<u8>>> {
        self.read_chunk(body, &mut FuturesUnordered::new(), method).await
    }

    /// The next chunk of a response body, driving `answers` meanwhile (answers first). The
    /// idle timeout runs only once none is pending: the server may be silent until it has its
    /// answer, and the same read then goes on under a fresh idle timer.
    async fn read_chunk(&self, body: &mut T::Body, answers: &mut Answers<'_>, method: &str) -> Result<Option<Vec<u8>>> {
        let next = body.next_chunk();
        pin_mut!(next);
        let mut chunk = None;
        while !answers.is_empty() {
            match select(answers.next(), next.as_mut()).await {
                Either::Left((Some(Err(e)), _)) => return Err(e),
                Either::Left(_) => {}
                Either::Right((c, _)) => {
                    chunk = Some(c);
                    break;
                }
            }
        }
        let chunk = match (chunk, self.opts.idle_timeout_ms) {
            (Some(c), _) => c,
            (None, None) => next.await,
            (None, Some(idle)) => {
                let sleep = self.clock.sleep(idle);
                pin_mut!(sleep);
                match select(next, sleep).await {
                    Either::Left((c, _)) => c,
                    Either::Right(_) => {
                        return Err(Error::new(ErrorCode::Timeout, format!("{method}: the response stream was silent for {idle} ms; the request was cancelled"))
                            .with_detail("idleTimeoutMs", idle))
                    }
                }
            }
        };
        match chunk {
            None => Ok(None),
            Some(Ok(c)) => Ok(Some(c)),
            Some(Err(e)) => Err(body_error(e, method)),
        }
    }

    /// A JSON response, read whole and parsed. `length`: its Content-Length (within the limit).
    ///
    /// The body is held once: with a length, in a buffer of exactly that size (its first
    /// [`FIRST_RESERVE`] at first, then all of it once the body proves longer, so that a length
    /// that lies larger costs no more than that), held against the budget before it is taken;
    /// without one, as the chunks came, joined once at the end (held twice while they are joined,
    /// and counted twice then). A buffer that grows by doubling held up to twice the body, and in
    /// wasm the blocks it outgrew are left behind as memory the module keeps (a refused 100 MB
    /// body left 257 MB).
    async fn read_json(&self, id: &Id, method: &str, mut body: T::Body, on_progress: Option<&dyn Fn(&Value)>, length: Option<usize>, on: &SentOn) -> Result<Value> {
        let mut held = Held::of(self.server.clone());
        let mut bytes: Vec<u8> = Vec::new();
        let mut chunks: Vec<Vec<u8>> = Vec::new();
        let mut total = 0usize;
        while let Some(chunk) = self.next_chunk(&mut body, method).await? {
            let want = total + chunk.len();
            if want > self.opts.max_body_bytes {
                return Err(Error::new(ErrorCode::LimitExceeded, format!("{method}: response larger than {} bytes", self.opts.max_body_bytes)));
            }
            let Some(n) = length else {
                if let Err(why) = held.set(want) {
                    return Err(held_too_much(method, &why));
                }
                chunks.push(chunk);
                total = want;
                continue;
            };
            let cap = match bytes.capacity() {
                c if want <= c => c,
                _ if want <= n.min(FIRST_RESERVE) => n.min(FIRST_RESERVE),
                _ if want <= n => n,
                // A length that lies smaller: grown as any buffer is.
                c => want.max(c * 2),
            };
            if let Err(why) = held.set(cap) {
                return Err(held_too_much(method, &why));
            }
            bytes.reserve_exact(cap - bytes.len());
            bytes.extend_from_slice(&chunk);
            total = want;
        }
        drop(body);
        if chunks.len() == 1 {
            bytes = chunks.pop().unwrap_or_default();
        } else if !chunks.is_empty() {
            // Joined, the body is held twice until the chunks are dropped: counted so.
            if let Err(why) = held.set(total.saturating_mul(2)) {
                return Err(held_too_much(method, &why));
            }
            bytes.reserve_exact(total);
            for c in chunks.drain(..) {
                bytes.extend_from_slice(&c);
            }
            drop(chunks);
            // Holding less never fails.
            let _ = held.set(total);
        }
        // Decode first, so one instance of the JSON parser (over &str) serves every input.
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| Error::new(ErrorCode::Protocol, format!("{method}: the response is not valid UTF-8")).with_detail("bodyPreview", preview(&bytes)))?;
        // A byte order mark is no part of the JSON (fetch's `response.json()`, which the SDK
        // reads with, drops it; so does the SSE parser).
        let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
        let value = jsonrpc::read_message(text).map_err(|e| {
            e.into_error(&format!("{method}: the response"), |e| {
                Error::new(ErrorCode::Protocol, format!("{method}: the response is not valid JSON: {e}")).with_detail("bodyPreview", preview(&bytes))
            })
        })?;
        // Parsed: the body is given back before a request of the server's in it is answered (its
        // handler may wait on a person).
        drop(bytes);
        drop(held);
        // Its response that another stream brings is the body's outcome when the body has none
        // ([`Client::read_here`]): before its answers go out, or while they do.
        let routed = self.read_here(id);
        // The server's requests in it (a batch that carries the response too) are answered as on
        // a stream ([`Client::read_sse`]): the outcome is known once the body is read, and a
        // server slow to acknowledge an answer holds it up no more than [`ANSWER_ACK_MS`].
        let read = CloseSignal::default();
        let mut answers: Answers<'_> = FuturesUnordered::new();
        let mut outcome = None;
        for msg in classify_all(value) {
            if let Incoming::Request { id: rid, method: m, params } = msg {
                answers.push(Box::pin(self.answer(rid, m, params, self.in_flight(id), on.clone(), Some(&read))));
                continue;
            }
            match self.handle(id, method, msg, on_progress, false, on).await {
                Ok(None) => {}
                Ok(Some(result)) => {
                    outcome = Some(Ok(result));
                    break;
                }
                Err(e) => {
                    outcome = Some(Err(e));
                    break;
                }
            }
        }
        let outcome = outcome.unwrap_or_else(|| {
            Err(Error::new(ErrorCode::Protocol, format!("{method}: the JSON response did not contain the response to request {}", crate::text::to_string(&id.to_value()))))
        });
        let outcome = or_routed(outcome, routed.as_deref(), method);
        self.answers_out(id, &read, &mut answers, answered(&outcome), routed.as_deref()).await;
        or_routed(outcome, routed.as_deref(), method)
    }

    /// Once the reading of a response (to the request `id`) has its outcome: `read` fired, from
    /// which the server's acknowledgement of each answer still going out is waited for
    /// [`ANSWER_ACK_MS`] at most ([`Client::answer`]), and those answers driven to their end (a
    /// handler still answering too), its time not counted against the call's timeout.
    ///
    /// `answered`: the outcome is the server's response ([`answered`]), one rule for a JSON body
    /// and a stream. The call then ends with it, whatever comes: its deadlines (`timeoutMs`,
    /// `maxTotalTimeoutMs`) and its signal no longer fail it nor cancel the request, which the
    /// server has answered; one that comes while a handler is still answering drops the answers
    /// left ([`Client::unless_answered`]), which the server then never gets, and the call returns the
    /// response. So a handler that answers after the response is bounded by the call's total
    /// and signal, as one before it is. Not `answered` (its reading failed), the response that
    /// another stream brings while they go out (`routed`, left there for [`or_routed`]) makes it
    /// answered from then on, as its own stream's would have.
    async fn answers_out(&self, id: &Id, read: &CloseSignal, answers: &mut Answers<'_>, answered: bool, routed: Option<&Awaited>) {
        if answers.is_empty() {
            return;
        }
        read.fire();
        let call = self.in_flight(id);
        let _paused = call.clone().map(|c| Pausing::new(c, &self.clock));
        let release = async {
            let Some(call) = call.as_deref() else { return futures_util::future::pending().await };
            if !answered {
                match routed {
                    // Come at any time (taken or not): the outcome is the server's response.
                    Some(r) => r.arrived.wait_since(0).await,
                    None => futures_util::future::pending().await,
                }
            }
            call.answered.set(true);
            call.release.wait().await;
        };
        let all = async { while answers.next().await.is_some() {} };
        pin_mut!(release, all);
        select(all, release).await;
    }

    /// An SSE response, on the session `on`: once that session is no longer the client's (renewed
    /// after the server forgot it, by another request), its stream is dropped and the call fails at
    /// once (`NOT_CONNECTED`, `sessionEnded`): not resumed on the new session, which never had it,
    /// nor sent again there (it may have run), unless it changes nothing ([`read_only`]: sent
    /// again by [`Client::request_attempts`]).
    async fn read_sse(&self, id: &Id, method: &str, body: T::Body, on_progress: Option<&dyn Fn(&Value)>, on: &SentOn) -> Result<Value> {
        // Fired once the outcome is known (see ANSWER_ACK_MS).
        let read = CloseSignal::default();
        // Answers to the server's requests, made while the stream is read on (a `ping` or the
        // progress behind an elicitation is not held up); all made before the call ends, with its
        // result or an error (a timeout or a cancellation drops them, as it drops the call).
        let mut answers: Answers<'_> = FuturesUnordered::new();
        let ended = self.session_ended.generation.get();
        // Its response that another stream brings ends the reading as its own would
        // ([`Client::read_here`]): the stream is closed, then the answers still going out are
        // sent ([`Client::answers_out`]). One that comes while they go out, after the reading
        // failed, is the outcome too, and from then on the call's deadlines and signal no longer
        // fail it, as they would not had it come first.
        let routed = self.read_here(id);
        let outcome = {
            let left = self.session_left(on);
            let reading = self.read_sse_answering(id, method, body, on_progress, on, &read, &mut answers);
            let elsewhere = async {
                match &routed {
                    Some(a) => a.response().await.map_err(|e| rpc_to_error(e, method)),
                    None => futures_util::future::pending().await,
                }
            };
            let reading = async {
                pin_mut!(reading, elsewhere);
                select(reading, elsewhere).await.factor_first().0
            };
            pin_mut!(left, reading);
            // The session first: a stream of a session gone is not read (nor resumed) once more.
            match select(left, reading).await {
                // close() and connect() end the session too: said as run_with_timeout says it.
                Either::Left(_) if self.state.borrowed().closed => return Err(Error::new(ErrorCode::NotConnected, format!("{method} was abandoned: the client was closed"))),
                Either::Left(_) => {
                    let why = if self.session_ended.generation.get() != ended {
                        "connect() ended its session to open a new one"
                    } else if read_only(method) {
                        "its session ended before the response (the server forgot it, and another request renewed it), again after it was sent again"
                    } else {
                        "its session ended before the response (the server forgot it, and another request renewed it); it was not sent again, as it may have run"
                    };
                    return Err(Error::new(ErrorCode::NotConnected, format!("{method} was abandoned: {why}")).with_detail("sessionEnded", true));
                }
                Either::Right((outcome, _)) => outcome,
            }
        };
        self.answers_out(id, &read, &mut answers, answered(&outcome), routed.as_deref()).await;
        or_routed(outcome, routed.as_deref(), method)
    }

    #[allow(clippy::too_many_arguments)]
    async fn read_sse_answering<'s>(
        &'s self,
        id: &Id,
        method: &str,
        mut body: T::Body,
        on_progress: Option<&dyn Fn(&Value)>,
        on: &SentOn,
        read: &'s CloseSignal,
        answers: &mut Answers<'s>,
    ) -> Result<Value> {
        let mut parser = SseParser::new(self.opts.max_event_bytes);
        let mut held = Held::of(self.server.clone());
        let mut retry_ms: Option<u64> = None;
        // The id of the last complete event over every stream of this response (an `id:` line of
        // an event the stream dropped in the middle of does not count: resuming after it would
        // skip that event). A reopened stream that drops before an id of its own resumes from it.
        let mut last_id = None::<String>;
        // The last event id that could not be sent back (see `resumable_id`), to say so.
        let mut unusable_id = None::<String>;
        // Reopenings that failed in a row. A server may close the stream after each event and
        // have the client poll (2025-11-25): a reopening that succeeds starts the count again.
        let mut failed = 0u32;
        // Whether the stream read is a reopening (with `Last-Event-ID`): only such a stream may
        // bring again what another stream brought. A first stream is taken whole, whatever its
        // ids (a server may number each stream's events from 1).
        let mut resumed = false;
        // Streams in a row that brought nothing toward the response (see `reopen_delay`).
        let mut idle = 0u32;
        loop {
            // Whether this stream brought a message for this request not dealt with before: its
            // progress, a request of the server's (what it needs for the response).
            let mut progressed = false;
            // Read this stream to its end.
            let ended_with = loop {
                let chunk = match self.read_chunk(&mut body, answers, method).await {
                    Ok(Some(c)) => c,
                    Ok(None) => break None,
                    Err(e) if e.code == ErrorCode::Network => break Some(e),
                    Err(e) => return Err(e),
                };
                let items = feed_held(&mut parser, &mut held, &chunk, method)?;
                for item in items {
                    match item {
                        SseItem::Retry(ms) => retry_ms = Some(ms),
                        SseItem::Event(ev) => {
                            match ev.id.as_ref().filter(|i| last_id.as_ref() != Some(*i)) {
                                Some(i) if resumable_id(i) => last_id = Some(i.clone()),
                                Some(i) => unusable_id = Some(i.clone()),
                                None => {}
                            }
                            if !ev.is_message() || (resumed && self.seen(&ev)) {
                                continue; // priming events, keep-alives, other event types, replays
                            }
                            let text = std::str::from_utf8(&ev.data)
                                .map_err(|_| Error::new(ErrorCode::Protocol, format!("{method}: an SSE event is not valid UTF-8")))?;
                            let value = jsonrpc::read_message(text).map_err(|e| {
                                e.into_error(&format!("{method}: an SSE event"), |e| {
                                    Error::new(ErrorCode::Protocol, format!("{method}: an SSE event is not valid JSON: {e}"))
                                        .with_detail("bodyPreview", preview(text.as_bytes()))
                                })
                            })?;
                            let msgs = classify_all(value);
                            self.dealt_with(&ev, id, &msgs, resumed);
                            progressed |= msgs.iter().any(|m| toward(m, id));
                            for msg in msgs {
                                if let Incoming::Request { id: rid, method: m, params } = msg {
                                    answers.push(Box::pin(self.answer(rid, m, params, self.in_flight(id), on.clone(), Some(read))));
                                } else if let Some(result) = self.handle(id, method, msg, on_progress, resumed, on).await? {
                                    return Ok(result);
                                }
                            }
                        }
                    }
                }
            };
            // The stream ended before our response. Resume if the server gave us an event id (an
            // empty `id:` clears it: then there is nothing to resume from).
            // 2026-07-28 has no resumption: the request is lost with its stream.
            if self.is_modern() {
                let e = ended_with.unwrap_or_else(|| Error::new(ErrorCode::Protocol, format!("{method}: the response stream ended before the response")));
                return Err(e.with_detail("streamBroken", true));
            }
            let Some(from) = last_id.clone().filter(|id| !id.is_empty()) else {
                return Err(ended_with.unwrap_or_else(|| {
                    let why = match &unusable_id {
                        Some(i) => format!("; it cannot be resumed: its event id {} cannot go back in Last-Event-ID, a header of printable ASCII", crate::text::quote_at_most(i, 64)),
                        None => String::new(),
                    };
                    Error::new(ErrorCode::Protocol, format!("{method}: the response stream ended before the response{why}"))
                }));
            };
            idle = if progressed { 0 } else { idle + 1 };
            // Reopen with `Last-Event-ID`, again after a failure that may pass (no response, 408,
            // 409, 425, 429, 5xx), up to `max_retries` times in a row; any other answer ends the
            // call. 409: the MCP SDK's server refuses a resumption while it still holds the
            // stream's old connection (its side of a drop it has not noticed yet); the SDK's
            // client tries again after any refusal but 405, toolwire after those that may pass
            // (a 400, 404 or 405 says the resumption cannot work: no such event, session, GET).
            let mut last_got = Got::default();
            let mut reauthorized = Reauthorizations::default();
            body = loop {
                if failed > self.opts.max_retries {
                    return Err(gave_up(format_args!("{method}: the response stream dropped and could not be resumed"), failed, &last_got, true));
                }
                let delay = reopen_delay(retry_ms, failed, idle);
                failed += 1;
                while_answering(answers, self.clock.sleep(delay)).await?;
                let mut headers = self.headers(true, "text/event-stream");
                headers.push(("last-event-id".owned(), from.clone()));
                let req = HttpRequest { method: Method::Get, url: self.opts.url.clone(), headers, body: None, follow_redirects: false };
                let sent_with = self.auth_generation.get();
                match while_answering(answers, self.transport.send(req)).await? {
                    Ok(r) if r.status == 200 && content_type_essence(r.header("content-type").unwrap_or("")) == "text/event-stream" => {
                        self.auth_accepted(sent_with);
                        failed = 0;
                        resumed = true;
                        break r.body;
                    }
                    Ok(r) if matches!(r.status, 408 | 409 | 425 | 429 | 500..=599) => last_got = Got::Status(r.status),
                    // An expired token, renewed by the unauthorized handler: tried again (once
                    // per reopening), not counted as a failure.
                    Ok(r) if asks_authorization(&r) && while_answering(answers, self.reauthorized(&r, sent_with, reauthorized)).await?? => {
                        reauthorized.record(r.status);
                        failed -= 1;
                    }
                    Ok(r) if matches!(r.status, 401 | 403) => return Err(refused_again(self.status_error(r, method).await, reauthorized)),
                    Ok(r) => {
                        return Err(Error::new(
                            ErrorCode::Protocol,
                            format!("{method}: resuming the dropped stream failed (GET with Last-Event-ID answered HTTP {})", r.status),
                        )
                        .with_detail("status", r.status))
                    }
                    Err(e) => last_got = Got::NoResponse(e),
                }
            };
            parser = SseParser::new(self.opts.max_event_bytes);
        }
    }

    /// The id that names this event: one its own lines set (one kept from an earlier event
    /// names that event), not empty.
    fn event_id(ev: &SseEvent) -> Option<&str> {
        ev.id.as_deref().filter(|i| ev.own_id && !i.is_empty())
    }

    /// Whether this event (by its id) was dealt with already, on this stream or another.
    fn seen(&self, ev: &SseEvent) -> bool {
        Self::event_id(ev).is_some_and(|i| self.seen_events.borrowed().contains(i))
    }

    /// Marks an event as dealt with by the reader of the response to `ours`, unless it holds
    /// something that belongs to another reader (a response to another request, another call's
    /// progress replayed on a resumed stream): a resumed stream may be given other streams'
    /// events, and that reader must still act on it when its own stream brings it. Another call's
    /// progress on a stream that is not resumed is that call's at once ([`Client::handle`]).
    fn dealt_with(&self, ev: &SseEvent, ours: &Id, msgs: &[Incoming], resumed: bool) {
        let Some(i) = Self::event_id(ev) else { return };
        let foreign = msgs.iter().any(|m| match m {
            Incoming::Response { id, .. } | Incoming::Malformed { id: Some(id), .. } => id != ours,
            Incoming::Notification { method, params } if method == "notifications/progress" && resumed => {
                params.get("progressToken").and_then(Id::progress_token).is_some_and(|t| &t != ours && self.elsewhere(&t).is_some())
            }
            _ => false,
        });
        if !foreign {
            self.seen_events.borrowed_mut().insert(i);
        }
    }

    /// Handles one incoming message; returns the result when it is our response. `replayed`: it
    /// came on a resumed stream, which may replay other streams' events.
    /// `on`: the session of the stream it came on.
    async fn handle(&self, id: &Id, method: &str, msg: Incoming, on_progress: Option<&dyn Fn(&Value)>, replayed: bool, on: &SentOn) -> Result<Option<Value>> {
        match msg {
            Incoming::Response { id: rid, outcome } if &rid == id => match outcome {
                Ok(v) => Ok(Some(v)),
                Err(e) => Err(rpc_to_error(e, method)),
            },
            Incoming::Malformed { id: rid, problem, error } if rid.as_ref().is_none_or(|r| r == id) => Err(malformed_response(method, id, problem, error)),
            // Another request's response (a server may write each message on whichever stream is
            // open): that request's, at once. One no request waits for (a late answer, a replay of
            // one taken already) is ignored.
            Incoming::Response { id: rid, outcome } => {
                if let Some(awaited) = self.awaited(&rid) {
                    awaited.deliver(outcome);
                }
                Ok(None)
            }
            Incoming::Malformed { .. } | Incoming::Invalid(_) => Ok(None),
            Incoming::OrphanError(e) => Err(rpc_to_error(e, method)),
            Incoming::Notification { method: m, params } => {
                if m == "notifications/tools/list_changed" {
                    self.tools_changes.set(self.tools_changes.get() + 1);
                }
                if m == "notifications/cancelled" {
                    if let Some(rid) = params.get("requestId").and_then(Id::from_value) {
                        let found = self.being_answered.borrowed().iter().filter(|(k, s, _)| *k == rid && s == on).map(|(_, _, c)| c.clone()).collect::<Vec<_>>();
                        for c in found {
                            c.fire();
                        }
                    }
                }
                let token = (m == "notifications/progress").then(|| params.get("progressToken").and_then(Id::progress_token)).flatten();
                if token.as_ref() == Some(id) {
                    if let Some(cb) = on_progress {
                        cb(&params);
                    }
                } else if let Some(elsewhere) = token.as_ref().and_then(|t| self.elsewhere(t)) {
                    // Another call's progress, here on the standalone stream or another call's: that
                    // call's, told as if its own stream had brought it. Replayed on a resumed
                    // stream, it is left to that call's own stream, which brings it too.
                    if !replayed {
                        elsewhere.queue.borrowed_mut().push(params);
                        elsewhere.arrived.fire();
                    }
                } else if let Some(cb) = token.and_then(|t| self.task_progress.borrowed().iter().find(|(k, _)| *k == t).map(|(_, h)| h.clone())) {
                    // A task's progress, on whichever stream (the handler may call the client).
                    cb(&params);
                } else if let Some(h) = self.on_notification.borrowed().as_ref() {
                    h(&m, &params);
                }
                Ok(None)
            }
            Incoming::Request { id: rid, method: m, params } => {
                self.answer(rid, m, params, self.in_flight(id), on.clone(), None).await?;
                Ok(None)
            }
        }
    }

    /// A form elicitation's `accept` result with the `default` of each property of the
    /// `requestedSchema` its `content` left out, when the client declared
    /// `elicitation.form.applyDefaults: true` (as the MCP SDK's client does it: SEP-1034 gives every
    /// primitive of a form a `default`; the flag is the SDK's). Anything else is left as it is.
    fn with_elicitation_defaults(&self, method: &str, params: &Value, mut result: Value) -> Value {
        let applies = self.opts.capabilities.get("elicitation").and_then(|e| e.get("form")).and_then(|f| f.get("applyDefaults")) == Some(&Value::Bool(true));
        let form = params.get("mode").is_none_or(|m| m == "form");
        if !applies || method != "elicitation/create" || !form || result.get("action").and_then(Value::as_str) != Some("accept") {
            return result;
        }
        let Some(Value::Object(props)) = params.get("requestedSchema").and_then(|s| s.get("properties")) else { return result };
        let Value::Object(r) = &mut result else { return result };
        let content = r.entry("content").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(content) = content {
            for (k, prop) in props {
                if let Some(d) = prop.get("default") {
                    if !content.contains_key(k) {
                        content.put(k, d.clone());
                    }
                }
            }
        }
        result
    }

    /// A request of a capability the client did not declare (`elicitation/create` without
    /// `elicitation`, `sampling/createMessage` without `sampling`, `roots/list` without `roots`):
    /// -32601, as the MCP SDK's client answers it (it cannot take a handler for one), and the
    /// handler is not asked (a server sends them only to a client that declares them; one written
    /// for something else would answer it all the same).
    fn undeclared_capability(&self, method: &str) -> Option<RpcError> {
        let capability = match method {
            "elicitation/create" => "elicitation",
            "sampling/createMessage" => "sampling",
            "roots/list" => "roots",
            _ => return None,
        };
        let declared = self.opts.capabilities.get(capability).is_some_and(|v| !matches!(v, Value::Null | Value::Bool(false)));
        (!declared).then(|| RpcError { code: -32601, message: format!("Method not found: {method}"), data: None })
    }

    /// An `elicitation/create` in a mode the client's declared `elicitation` capability leaves
    /// out, as the MCP SDK's client reads it (2025-11-25: `{}` is form mode alone, `{url: {}}`
    /// URL mode alone, `{form: {}, url: {}}` both; a request without `mode` is form mode): the
    /// error the SDK's client answers it with (-32602), and the handler is not asked (an app that
    /// shows forms would take a URL request for an empty form and accept it). A client that
    /// declares no `elicitation` answers every one -32601 ([`Client::undeclared_capability`]).
    fn undeclared_elicitation(&self, method: &str, params: &Value) -> Option<RpcError> {
        if method != "elicitation/create" {
            return None;
        }
        let Some(Value::Object(declared)) = self.opts.capabilities.get("elicitation") else { return None };
        let mode = params.get("mode").and_then(Value::as_str).unwrap_or("form");
        let supported = match mode {
            "form" => declared.contains_key("form") || !declared.contains_key("url"),
            other => declared.contains_key(other),
        };
        (!supported).then(|| RpcError { code: -32602, message: format!("Client does not support {mode}-mode elicitation requests"), data: None })
    }

    /// Answers a server request: `ping` with `{}`, the others through the request handler (or
    /// -32601), POSTed back. What it is answered with is settled here, as the request is read
    /// (the handler asked now), so that the bound of [`MAX_SERVER_REQUESTS`] takes requests in the
    /// order they came: one past it is refused ([`SERVER_BUSY`]) without the handler, and one past
    /// [`MAX_REFUSALS`] too is left unanswered. `call`: the client request it came for, whose
    /// timeout stands while the handler answers. `on`: the session of the stream it came on, the
    /// only one it is answered on (once that is gone, it is not answered). `read`: fired once the
    /// reading of that stream (or JSON body) has its outcome, after which the server's
    /// acknowledgement of the answer is waited for [`ANSWER_ACK_MS`] at most. Its error: the answer
    /// refused, or its POST met no server ([`Client::send_answer`]), unless the server cancelled the
    /// request or its session was replaced meanwhile.
    fn answer<'s>(&'s self, id: Id, method: String, params: Value, call: Option<Rc<InFlight>>, on: SentOn, read: Option<&'s CloseSignal>) -> impl Future<Output = Result<()>> + 's {
        // A 2026-07-28 server sends no requests, and a client sends no responses: ignored.
        let settled = if self.is_modern() {
            None
        } else if method == "ping" {
            // Answered at once, outside the bound: a keep-alive is not held up by requests that
            // wait for a person (MCP: the receiver answers a ping promptly). The POSTs of such
            // answers are bounded as refusals are.
            Slot::take(&self.refusing, MAX_REFUSALS).map(|slot| (slot, Settled::Now(Ok(Value::Object(Map::new())))))
        } else if let Some(refusal) = self.undeclared_capability(&method).or_else(|| self.undeclared_elicitation(&method, &params)) {
            Slot::take(&self.refusing, MAX_REFUSALS).map(|slot| (slot, Settled::Now(Err(refusal))))
        } else if let Some(slot) = Slot::take(&self.answering, MAX_SERVER_REQUESTS) {
            // The handler's future is made while it is borrowed and awaited after, so that the
            // handler may replace itself.
            let context = RequestContext { id: id.to_value(), related: call.as_ref().map(|c| c.related.clone()), input_round: false };
            let handled = self.on_request.borrowed().as_ref().map(|h| h(&method, &params, &context));
            let answer = match handled {
                Some(answer) => Settled::Later(answer),
                None => Settled::Now(Err(RpcError { code: -32601, message: format!("Method not found: {method}"), data: None })),
            };
            Some((slot, answer))
        } else {
            Slot::take(&self.refusing, MAX_REFUSALS).map(|slot| (slot, Settled::Now(Err(server_busy(&method)))))
        };
        // Registered now, as the request is read: a cancellation right behind it finds it.
        let entry = matches!(settled, Some((_, Settled::Later(_)))).then(|| Answering::new(&self.being_answered, id.clone(), on.clone(), Rc::default()));
        // From now until the handler settles (or its future is dropped), the call's timeout stands.
        let pausing = call.filter(|_| entry.is_some()).map(|c| Pausing::new(c, &self.clock));
        async move {
            let Some((_slot, answer)) = settled else { return Ok(()) };
            let answer = match answer {
                Settled::Now(a) => a,
                Settled::Later(f) => {
                    // Until the server cancels it: then the handler's future is dropped (which
                    // aborts its JS signal) and no answer is sent (the receiver of a cancellation
                    // SHOULD NOT answer).
                    let Some(entry) = &entry else { return Ok(()) };
                    // From the signal's making (as the request was read), not from this first
                    // poll: a cancellation read meanwhile counts.
                    let cancelled = CloseWait { signal: &entry.signal, start: 0, key: None };
                    pin_mut!(f, cancelled);
                    let settled = select(f, cancelled).await;
                    drop(pausing);
                    match settled {
                        // An answer of the wrong shape is the handler's error, the server told as
                        // the MCP SDK's client tells it.
                        Either::Left((a, _)) => a.and_then(|v| invalid_answer(&method, &params, &v).map_or(Ok(v), Err)).map(|v| self.with_elicitation_defaults(&method, &params, v)),
                        Either::Right(_) => return Ok(()),
                    }
                }
            };
            // Ready after its session was replaced: not sent (the new session never asked, and its
            // requests may have the same ids).
            if !self.is_current(&on) {
                return Ok(());
            }
            let send = async {
                let sent = self.send_answer(jsonrpc::response(&id, answer), &on, &method).await;
                // Refused once the server cancelled the request, or once its session was replaced
                // (the answer is then dropped, as it is when ready after): nothing waits on it.
                let moot = entry.as_ref().is_some_and(|e| e.signal.generation.get() > 0) || !self.is_current(&on);
                if moot { Ok(()) } else { sent }
            };
            let Some(read) = read else { return send.await };
            let late = async {
                CloseWait { signal: read, start: 0, key: None }.await;
                self.clock.sleep(ANSWER_ACK_MS).await;
            };
            pin_mut!(send, late);
            match select(send, late).await {
                Either::Left((r, _)) => r,
                Either::Right(_) => Ok(()),
            }
        }
    }

    /// POSTs the answer to a server request on its session `on` (the client's still). A 401 (or a 403
    /// asking for more scopes) goes to the unauthorized handler, and the answer is sent once more with
    /// the headers it gives, as a request is (the MCP SDK's transport does so for every message it
    /// sends): refused still, or given none, that is the error of the stream it came on (the call it
    /// came for, `listen()`), not an answer lost without a word. So is any other refusal (400, 404
    /// `Session not found`, 500: the MCP SDK's server has not taken the answer, and never sends what
    /// waits on it) and a POST that met no server (`HTTP_STATUS`, `NETWORK`): the call would
    /// otherwise wait its whole timeout. A connection lost once the answer was sent may have
    /// delivered it: that changes nothing, as an abort does.
    async fn send_answer(&self, body: String, on: &SentOn, method: &str) -> Result<()> {
        let mut so_far = Reauthorizations::default();
        loop {
            let sent_with = self.auth_generation.get();
            let resp = match self.transport.send(self.post(body.clone(), true, &[])).await {
                Ok(resp) => resp,
                Err(TransportError::Aborted) => return Ok(()),
                Err(TransportError::Network(detail)) if lost_after_sending(&detail) => return Ok(()),
                Err(e) => return Err(transport_error(e, &format!("the answer to {method}"))),
            };
            if !asks_authorization(&resp) {
                if (200..300).contains(&resp.status) {
                    self.post_accepted(sent_with);
                    return Ok(());
                }
                return Err(self.status_error(resp, &format!("the answer to {method}")).await);
            }
            let asked = self.reauthorized(&resp, sent_with, so_far).await;
            let again = match asked {
                Ok(again) => again,
                Err(e) => return Err(self.with_refusal_body(e, resp, &format!("the answer to {method}")).await),
            };
            if again {
                so_far.record(resp.status);
                // Not on a session that came meanwhile.
                if !self.is_current(on) {
                    return Ok(());
                }
                continue;
            }
            return Err(refused_again(self.status_error(resp, &format!("the answer to {method}")).await, so_far));
        }
    }

    async fn status_error(&self, resp: HttpResponse<T::Body>, method: &str) -> Error {
        let status = resp.status;
        let challenge = resp.header("www-authenticate").map(str::to_owned);
        let resp_location = resp.header("location").map(str::to_owned);
        let retry_after = resp.header("retry-after").map(str::to_owned);
        let html = resp.header("content-type").is_some_and(|c| content_type_essence(c) == "text/html");
        let mut body = resp.body;
        // Enough for a JSON-RPC error that echoes what it refused, not more, and for as long as
        // [`ERROR_BODY_MS`]: a hostile server could send an endless error body, or one that never
        // ends, and the status is the answer whatever comes after it. Counted against the budget
        // as every body read is.
        let too_much = |why: Refusal| {
            Error::new(ErrorCode::LimitExceeded, format!("{method}: HTTP {status}, whose body could not be read: {why}")).with_detail("status", status)
        };
        let mut read = Collected::of(self.server.clone());
        let deadline = self.clock.sleep(ERROR_BODY_MS);
        pin_mut!(deadline);
        while read.len() < 64 << 10 {
            let next = body.next_chunk();
            pin_mut!(next);
            match select(next, deadline.as_mut()).await {
                Either::Left((Some(Ok(c)), _)) => {
                    if let Err(why) = read.push(c) {
                        return too_much(why);
                    }
                }
                Either::Left(_) | Either::Right(_) => break,
            }
        }
        // Held until the error is made.
        let (bytes, _held) = match read.join() {
            Ok(read) => read,
            Err(why) => return too_much(why),
        };
        let text = preview(&bytes);
        // 3xx, or 0: a browser's opaque redirect (fetch with `redirect: "manual"`).
        if status == 0 || (300..400).contains(&status) {
            let location = resp_location.as_deref().map_or_else(String::new, |l| format!(" to {}", crate::text::server_text(l)));
            let mut e = Error::new(
                ErrorCode::HttpStatus,
                format!("{method}: the server redirected{location} (HTTP {status}); redirects are not followed ({}): use the URL it points to", redirect_why(status)),
            )
            .with_detail("status", status);
            if let Some(l) = resp_location {
                e = e.with_detail("location", l);
            }
            return e;
        }
        if status == 401 || status == 403 {
            let parsed = challenge.as_deref().map(parse_www_authenticate);
            let said = if status == 401 {
                // The headers of the request as sent (the configured ones, or those the
                // unauthorized handler gave since): one a fetch wrapper adds is not seen, but
                // the challenge's `invalid_token` says a token came.
                let sent = self.opts.headers.iter().chain(self.auth_headers.borrowed().iter()).any(|(k, _)| k.eq_ignore_ascii_case("authorization"));
                unauthorized_text(sent, parsed.as_ref().unwrap_or(&Value::Null))
            } else {
                "Forbidden: the server refused the credentials given, or their scope".owned()
            };
            let mut e = Error::new(ErrorCode::Unauthorized, format!("{method}: HTTP {status} {said}")).with_detail("status", status).with_detail("bodyPreview", text);
            if let (Some(c), Some(parsed)) = (challenge, parsed) {
                e = e.with_detail("challenge", parsed).with_detail("wwwAuthenticate", c);
            }
            return e;
        }
        let rpc_error = read_json(&String::from_utf8_lossy(&bytes)).ok().and_then(|v| v.get("error").cloned());
        // A server of the 2026-07-28 revision has no `initialize`: it refuses one with 400 and
        // -32020 (no MCP-Protocol-Version header), -32021 or -32022 (unsupported version), or
        // with 404 and -32601 (no such method).
        let rpc_code = rpc_error.as_ref().and_then(|e| e.get("code")).and_then(Value::as_i64);
        let later = method == "initialize" && ((status == 400 && matches!(rpc_code, Some(-32022..=-32020))) || (status == 404 && rpc_code == Some(-32601)));
        // A 2026-07-28 server refuses the version a request carries with -32022 (and `supported`).
        let refused = status == 400 && rpc_code == Some(-32022);
        if later || refused {
            let message = if later {
                format!(
                    "the server refused initialize (HTTP {status}, error {}): it speaks a later revision of MCP without the handshake (2026-07-28 or later); toolwire speaks {}, and {MODERN_PROTOCOL_VERSION} when the era option allows it",
                    rpc_code.unwrap_or_default(),
                    SUPPORTED_PROTOCOL_VERSIONS.join(", ")
                )
            } else {
                let version = self.state.borrowed().protocol_version.clone().unwrap_or_default();
                format!("{method}: the server refused protocol version {version} (HTTP 400, error -32022)")
            };
            let mut e = Error::new(ErrorCode::UnsupportedProtocolVersion, message).with_detail("status", status).with_detail("bodyPreview", text);
            if later {
                e = e.with_detail("laterRevision", true);
            }
            if let Some(supported) = rpc_error.as_ref().and_then(|e| e.pointer("/data/supported")) {
                e = e.with_detail("supported", supported.clone());
            }
            if let Some(err) = rpc_error {
                e = e.with_detail("rpcError", err);
            }
            return e;
        }
        // 2026-07-28 sends JSON-RPC errors with 4xx statuses (400 for bad params or headers, 404
        // for an unknown method): the server's answer, as a 200 would carry it.
        if let (true, Some(Value::Object(err))) = (self.is_modern() && (400..500).contains(&status), &rpc_error) {
            if let Some(code) = err.get("code").and_then(Value::as_i64) {
                let message = err.get("message").and_then(Value::as_str).unwrap_or_default().owned();
                return rpc_to_error(RpcError { code, message, data: err.get("data").cloned() }, method).with_detail("status", status);
            }
        }
        // No session id from the handshake, and the server asks for one: from a browser, the
        // usual cause is a server that does not expose the header to scripts (CORS). The
        // TypeScript SDK's servers say so ("Mcp-Session-Id header is required"), or, where a
        // request without one starts a transport of its own (server-everything), "Server not
        // initialized".
        let about_session = || {
            let lower = text.to_ascii_lowercase();
            lower.contains("session") || lower.contains("not initialized")
        };
        let hint = (status == 400 && method != "initialize" && !self.is_modern() && self.state.borrowed().session_id.is_none() && about_session())
            .then_some(" (toolwire got no Mcp-Session-Id from the handshake: a server reached from a browser must list mcp-session-id in Access-Control-Expose-Headers for a page to read it)");
        // A POST of `initialize` refused as no MCP server would refuse it (a web framework's "Cannot
        // POST", a page that takes no POST): most often a URL that is not the server's MCP endpoint.
        // Why the `auto` transport's look for the old one, after this refusal, found none.
        let probe = (method == "initialize").then(|| self.transport.legacy_probe()).flatten();
        let not_mcp = (method == "initialize" && matches!(status, 404 | 405) && rpc_error.is_none()).then(|| match self.transport.mcp_transport() {
            Some(McpTransport::StreamableHttp) => "; the URL may not be an MCP endpoint: nothing there takes MCP's POSTs (Streamable HTTP)".owned(),
            // The `auto` transport looked for the old one too, in vain.
            None => format!(
                "; the URL may not be an MCP endpoint: nothing there takes MCP's POSTs (Streamable HTTP), nor does a GET there open the event stream of the deprecated HTTP+SSE transport{}",
                probe.as_ref().map(|why| format!(" ({why})")).unwrap_or_default()
            ),
            Some(McpTransport::Sse) => "; the URL may not be the event stream of a server of the deprecated HTTP+SSE transport".owned(),
        });
        let quoted = crate::text::printable(&quote_body(&text, html));
        let mut e = Error::new(
            ErrorCode::HttpStatus,
            format!(
                "{method}: HTTP {status}{}{}{}",
                if quoted.is_empty() { String::new() } else { format!(": {quoted}") },
                not_mcp.unwrap_or_default(),
                hint.unwrap_or_default()
            ),
        )
        .with_detail("status", status)
        .with_detail("bodyPreview", text.clone());
        if let Some(err) = rpc_error {
            e = e.with_detail("rpcError", err);
        }
        if hint.is_some() {
            e = e.with_detail("missingSessionId", true);
        }
        if let Some(why) = probe {
            e = e.with_detail("sseProbe", why);
        }
        // 429 and 503 say when to try again; the client does not retry by itself.
        if let Some(r) = retry_after {
            e = e.with_detail("retryAfter", r);
        }
        e
    }

    /// The server capability a method needs (`tools/call` needs `tools`), when it is one of
    /// those the handshake negotiates and the server's `initialize` result declared
    /// capabilities without it: a client uses only what was negotiated (2025-06-18: MUST). A
    /// capability is declared by an object under its name, or by `true` (an object with nothing
    /// in it: see [`declares`]); `resources/subscribe` and `unsubscribe` also need `subscribe:
    /// true` in it (`resources.subscribe`). A server that sent no capabilities object at all is
    /// not taken at its word.
    fn missing_capability(&self, method: &str) -> Option<&'static str> {
        let (needed, flag) = match method.split_once('/').map_or(method, |(family, _)| family) {
            "tools" => ("tools", None),
            "resources" if matches!(method, "resources/subscribe" | "resources/unsubscribe") => ("resources", Some("subscribe")),
            "resources" => ("resources", None),
            "prompts" => ("prompts", None),
            "completion" => ("completions", None),
            "logging" => ("logging", None),
            _ => return None,
        };
        let st = self.state.borrowed();
        let Some(Value::Object(declared)) = &st.capabilities else { return None };
        match (declared.get(needed), flag) {
            (Some(c), _) if !declares(c) => Some(needed),
            (Some(c), Some(flag)) if c.get(flag) != Some(&Value::Bool(true)) => Some("resources.subscribe"),
            (Some(_), _) => None,
            (None, _) => Some(needed),
        }
    }

    /// Any request but `initialize` (see [`Client::connect`]), for what the client has no method
    /// of its own for (`resources/read`, `prompts/get`, `completion/complete`...): its result,
    /// checked as [`Client::request`] checks it.
    pub async fn request_checked(&self, method: &str, mut params: Value, opts: &mut CallOptions) -> Result<Value> {
        Self::by_name(method)?;
        check_params_meta(&mut params)?;
        let tool = (method == "tools/call").then(|| params.get("name").and_then(Value::as_str).map(str::to_owned)).flatten();
        let uri = matches!(method, "resources/subscribe" | "resources/unsubscribe").then(|| params.get("uri").and_then(Value::as_str).map(str::to_owned)).flatten();
        let started = self.clock.now_ms();
        let mut result = self.request(method, params, opts).await?;
        // Asked by name, a listing is the server's answer: a name cut inside a character as read
        // (U+FFFD), not the mark the client's own listing leaves such a tool out by.
        if method == "tools/list" {
            jsonrpc::unmark_cut_names(&mut result);
        }
        if method == "tools/call" {
            // A task's creation (a call with `task`) is no CallToolResult yet: given as it came.
            if result.get("task").is_some() && result.get("content").is_none() {
                return Ok(result);
            }
            return self.checked_result(tool.as_deref().unwrap_or_default(), result, started, opts).await;
        }
        if let Some((ty, problem)) = request_result_problem(method, &result) {
            return Err(Error::new(ErrorCode::Protocol, format!("{method}: the result is no {ty}: {problem}")).with_detail("result", result));
        }
        // The session's subscriptions, made again on a renewed one (see `subscribed`). Not those
        // of a 2026-07-28 server, which were not sent: `subscribe_here` kept them (the revision
        // cannot have changed since, in the same poll).
        if let Some(uri) = uri.filter(|_| !self.is_modern()) {
            let mut subscribed = self.subscribed.borrowed_mut();
            subscribed.retain(|u| *u != uri);
            if method == "resources/subscribe" {
                subscribed.push(uri);
            }
        }
        Ok(result)
    }

    /// 2026-07-28's `resources/subscribe` and `unsubscribe`, which the revision does not have
    /// (its servers answer them -32601): the client's subscriptions (`subscribed`, at most
    /// [`MAX_RESUBSCRIBED`]) are changed instead, and go in the `resourceSubscriptions` of
    /// `subscriptions/listen`; one under way is made again with them ([`Client::subscribe`]).
    /// `{}`, as the server's `EmptyResult` would be. A URI subscribed to already, or not
    /// subscribed to, changes nothing.
    fn subscribe_here(&self, method: &str, params: &Value) -> Result<Value> {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return Err(Error::new(ErrorCode::InvalidInput, format!("{method}: params.uri must be a string (the URI of the resource)")));
        };
        let mut subscribed = self.subscribed.borrowed_mut();
        let had = subscribed.iter().any(|u| u == uri);
        match method {
            "resources/subscribe" if had => {}
            "resources/subscribe" if subscribed.len() >= MAX_RESUBSCRIBED => {
                return Err(Error::new(
                    ErrorCode::LimitExceeded,
                    format!("{method}: the client holds {MAX_RESUBSCRIBED} subscriptions already, the most its subscriptions/listen asks for (MCP 2026-07-28): unsubscribe from one first"),
                )
                .with_detail("limit", MAX_RESUBSCRIBED));
            }
            "resources/subscribe" => {
                subscribed.push(uri.to_owned());
                drop(subscribed);
                self.subscriptions_changed.fire();
            }
            _ if had => {
                subscribed.retain(|u| u != uri);
                drop(subscribed);
                self.subscriptions_changed.fire();
            }
            _ => {}
        }
        Ok(Value::Object(Map::new()))
    }

    /// Whether `method` may be sent by name: not `initialize` (`connect()` does the handshake)
    /// nor a notification (`INVALID_INPUT`, pointing to `notify()`).
    pub fn by_name(method: &str) -> Result<()> {
        if method == "initialize" {
            return Err(Error::new(ErrorCode::InvalidInput, "`initialize` is not a request to send by name: connect() does the handshake"));
        }
        if method.starts_with("notifications/") {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("`{method}` is a notification, not a request: send it with notify(), which expects no result"),
            ));
        }
        Ok(())
    }

    /// Whether `method` may be sent as a notification by name ([`Client::notify_checked`]): not
    /// empty, and not one the client sends itself: `notifications/initialized` (`connect()` sends
    /// it) and `notifications/cancelled` (a call's cancellation or timeout sends it, for the
    /// call's id). `notifications/progress` may be sent (the progress of a server request the
    /// `onRequest` handler is answering is the app's to tell), and so may
    /// `notifications/tasks/status` (a client may run a server's request as a task). MCP's
    /// server-to-client notifications are refused: a server has no use for them from a client.
    pub fn notifiable(method: &str) -> Result<()> {
        let refused = match method {
            "" => Some("the method must not be empty"),
            "notifications/initialized" => Some("connect() sends it after the handshake"),
            "notifications/cancelled" => Some("the client sends it itself when a call's signal is aborted or its timeout passes"),
            "initialize" => Some("connect() does the handshake"),
            "notifications/message"
            | "notifications/resources/updated"
            | "notifications/resources/list_changed"
            | "notifications/tools/list_changed"
            | "notifications/prompts/list_changed"
            | "notifications/elicitation/complete" => Some("MCP has a server send it to a client, not a client to a server"),
            _ => None,
        };
        match refused {
            Some(why) => Err(Error::new(ErrorCode::InvalidInput, format!("`{method}` is not a notification to send with notify(): {why}"))),
            None => Ok(()),
        }
    }

    /// A notification by name (`notifications/roots/list_changed`...) on the session, with a
    /// call's timeout and cancellation: done once the server accepted it (HTTP 202, or any
    /// other 2xx); a refusal is the typed error a request would get (`HTTP_STATUS`,
    /// `UNAUTHORIZED`...). Not sent before `connect()` (`NOT_CONNECTED`), nor for what
    /// [`Client::notifiable`] refuses, nor `notifications/roots/list_changed` by a client whose
    /// capabilities do not declare `roots.listChanged: true` (`INVALID_INPUT`): declaring it is
    /// the client's promise to send it, and the MCP SDK's client refuses to send it without.
    pub async fn notify_checked(&self, method: &str, mut params: Value, opts: &mut CallOptions) -> Result<()> {
        Self::notifiable(method)?;
        if method == "notifications/roots/list_changed" && self.opts.capabilities.get("roots").and_then(|r| r.get("listChanged")) != Some(&Value::Bool(true)) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("`{method}` is not sent by a client whose capabilities do not declare roots.listChanged: true (declare it in the options' capabilities)"),
            ));
        }
        check_params_meta(&mut params)?;
        // `meta` goes in the notification's `_meta`, as in a request's.
        let params = merge_meta(params, opts.meta.as_ref())?;
        self.renew_again(method, opts).await?;
        if !self.state.borrowed().connected {
            return Err(Error::new(ErrorCode::NotConnected, format!("call connect() before notify(\"{method}\")")));
        }
        if cancelled_already(&mut opts.cancel) {
            return Err(Error::new(ErrorCode::Aborted, format!("{method} was aborted before it was sent")));
        }
        // A session the server no longer knows (404, or a 400 naming it) is renewed, once, and
        // the notification sent on the new one, as a request would be.
        let (gen, had_session) = (self.session_gen.get(), self.session_id().is_some());
        match self.notify_unless_closed(method, params.clone(), opts).await {
            Err(e) if had_session && session_gone(&e) => {
                self.renew_session(gen, method, opts).await?;
                self.notify_unless_closed(method, params, opts).await
            }
            sent => sent,
        }
    }

    /// [`Client::notify_within`], abandoned when the client is closed.
    async fn notify_unless_closed(&self, method: &str, params: Value, opts: &mut CallOptions) -> Result<()> {
        let closed = self.closing.wait();
        let sent = self.notify_within(method, params, opts);
        pin_mut!(closed, sent);
        match select(sent, closed).await {
            Either::Left((r, _)) => r,
            Either::Right(_) => Err(Error::new(ErrorCode::NotConnected, format!("{method} was abandoned: the client was closed"))),
        }
    }

    /// `tools/list`, following `nextCursor` up to the page cap, stopping on a repeated cursor.
    /// Once it succeeds, [`Client::tools_changed`] is `false` until the next change is announced,
    /// or the session is renewed (unless a change came after it started, or a listing that
    /// started after it ended first: that one's tools are kept).
    /// A server whose capabilities name no `tools` is not asked: it lists none.
    /// A 2026-07-28 server's `ttlMs` says until when the listing is fresh ([`Client::tools_expired`]).
    pub async fn list_tools(&self) -> Result<Vec<Value>> {
        self.list_tools_with(&mut CallOptions::default()).await
    }

    /// [`Client::list_tools`] with a request's options (a timeout, a cancel), applied to each
    /// page's request as [`Client::list_all`] applies them.
    pub async fn list_tools_with(&self, opts: &mut CallOptions) -> Result<Vec<Value>> {
        // The changes this listing may hold: one announced while the pages are read may not be
        // in them (a listing that fails, or is dropped, changes nothing).
        let changes = self.tools_changes.get();
        let started = self.clock.now_ms();
        let listing = self.list_fresh("tools/list", Value::Null, opts).await?;
        if listing.newest {
            self.tools_listed_changes.set(changes);
            self.tools_session.set(Some(listing.session));
        }
        // Fresh from the newest of the app's listings, though a call's own listing again that
        // started after it ended first.
        if listing.number > self.tools_fresh_listing.get() {
            self.tools_fresh_listing.set(listing.number);
            // The revision requires the hint: a listing without it is stale at once.
            let ttl_ms = self.is_modern().then(|| listing.ttl_ms.unwrap_or(0));
            self.tools_fresh_until.set(ttl_ms.map(|t| started.saturating_add(t)));
        }
        let mut tools = listing.items;
        // `serverName` is the app's tag for the server a tool's calls go to (toolwire's, not
        // MCP's): a server that put one on its tools would have them named, and their calls
        // routed, as another server's.
        for t in &mut tools {
            if let Some(o) = t.as_object_mut() {
                o.remove("serverName");
            }
        }
        Ok(tools)
    }

    /// The field of a list method's result that holds its items.
    pub(crate) fn list_key(method: &str) -> Result<&'static str> {
        match method {
            "tools/list" => Ok("tools"),
            "resources/list" => Ok("resources"),
            "resources/templates/list" => Ok("resourceTemplates"),
            "prompts/list" => Ok("prompts"),
            _ => Err(Error::new(
                ErrorCode::InvalidInput,
                format!("`{method}` is not a list method (tools/list, resources/list, resources/templates/list, prompts/list)"),
            )),
        }
    }

    /// Every item of a paginated list (`tools/list`, `resources/list`, `resources/templates/list`,
    /// `prompts/list`), as [`Client::list_tools`] lists the tools: up to the page cap, at most
    /// `max_tools` items, stopping on a repeated cursor, from the first page again (once) when
    /// the session is renewed between pages. `params` (an object or null) go with every page;
    /// `opts` apply to each page's request. A server whose capabilities lack the list's
    /// capability lists nothing.
    pub async fn list_all(&self, method: &str, mut params: Value, opts: &mut CallOptions) -> Result<Vec<Value>> {
        check_params_meta(&mut params)?;
        self.list_fresh(method, params, opts).await.map(|l| l.items)
    }

    /// [`Client::list_all`], with what [`Client::list_tools`] keeps of the listing.
    async fn list_fresh(&self, method: &str, params: Value, opts: &mut CallOptions) -> Result<Listing> {
        let key = Self::list_key(method)?;
        let tools = method == "tools/list";
        let number = self.tools_listings.get() + 1;
        if tools {
            self.tools_listings.set(number);
        }
        let listed = match self.list_pages(method, key, &params, opts).await {
            // A server without the capability (its session's, renewed or not) lists none.
            Err(e) if e.code == ErrorCode::CapabilityNotNegotiated => {
                Ok(Listing { items: Vec::new(), ttl_ms: None, session: self.session_gen.get(), dropped: Vec::new(), newest: true, number: 0 })
            }
            listed => listed,
        };
        let mut l = match listed {
            Ok(l) if tools => l,
            listed => return listed,
        };
        // Overlapping listings end in any order: one that started before the listing kept last
        // (which may have seen a change this one did not) keeps nothing of its own. It still
        // answers with what it found.
        l.newest = number > self.tools_stored.get();
        l.number = number;
        if l.newest {
            self.tools_stored.set(number);
        }
        if self.is_modern() {
            l.items = self.keep_callable(l.items, std::mem::take(&mut l.dropped), l.newest);
            if l.newest {
                self.keep_output_schemas(&l.items);
            }
        } else if l.newest {
            *self.dropped_tools.borrowed_mut() = std::mem::take(&mut l.dropped);
            self.keep_output_schemas(&l.items);
            *self.task_tools.borrowed_mut() = l
                .items
                .iter()
                .filter(|t| t.pointer("/execution/taskSupport").and_then(Value::as_str) == Some("required"))
                .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_owned))
                .collect();
        }
        Ok(l)
    }

    /// 2026-07-28: the tools whose `x-mcp-header` marks keep the rules (the others are left out,
    /// and told by [`Client::dropped_tools`] after those `dropped` already), with the arguments
    /// each sends in headers (kept only when `store`: the listing is the newest).
    fn keep_callable(&self, tools: Vec<Value>, mut dropped: Vec<Value>, store: bool) -> Vec<Value> {
        let mut marked = std::collections::HashMap::new();
        let kept = tools
            .into_iter()
            .filter(|tool| {
                let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
                match header_params(tool.get("inputSchema").unwrap_or(&Value::Null)) {
                    Ok(params) => {
                        if !params.is_empty() {
                            marked.insert(name.owned(), params);
                        }
                        true
                    }
                    Err(reason) => {
                        dropped.push(object([("name", name.into()), ("reason", reason.into())]));
                        false
                    }
                }
            })
            .collect();
        if store {
            *self.header_params.borrowed_mut() = marked;
            *self.dropped_tools.borrowed_mut() = dropped;
        }
        kept
    }

    async fn list_pages(&self, method: &str, key: &str, base: &Value, opts: &mut CallOptions) -> Result<Listing> {
        let (mut items, mut dropped) = (Vec::new(), Vec::new());
        // Entries of the pages so far, objects or not: the index of the next page's first.
        let mut offered = 0usize;
        let mut ttl_ms: Option<u64> = None;
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        let (mut page, mut restarted, mut gen) = (0, false, self.session_gen.get());
        loop {
            if page >= self.opts.max_pages {
                return Err(Error::new(
                    ErrorCode::LimitExceeded,
                    format!("{method} did not end after {} pages (options.maxPages)", self.opts.max_pages),
                ));
            }
            let mut params = match base {
                Value::Object(o) => o.clone(),
                _ => Map::new(),
            };
            if let Some(c) = &cursor {
                params.put("cursor", string(c));
            }
            // Renewed by another request since the last page: its cursor is not sent.
            let result = if cursor.is_some() && self.session_gen.get() != gen {
                Err(Error::new(ErrorCode::SessionExpired, format!("{method}: the session was renewed between pages")))
            } else {
                self.request_on_session(method, Value::Object(params), opts, Behalf::Own).await
            };
            let (mut result, answered) = match result {
                // A cursor of a session that was renewed since (refused here, or by `request`
                // after its own renewal) may mean nothing to the new one, or another page: the
                // listing starts over from the first page, once.
                Err(e) if e.code == ErrorCode::SessionExpired && !restarted => {
                    (items, dropped, offered, cursor, page, restarted, ttl_ms) = (Vec::new(), Vec::new(), 0, None, 0, true, None);
                    seen.clear();
                    continue;
                }
                result => result?,
            };
            // The session that answered the first page is the listing's (a renewal on the way to
            // it, the page's own or another request's, changes nothing for the pages to come).
            if cursor.is_none() {
                gen = answered;
            }
            page += 1;
            // A page of another list is checked as `request` checks it (an entry without what its
            // type requires, a resource's `uri`, is the error: the SDK's client refuses the page);
            // a page of tools keeps what it can, below.
            if key != "tools" {
                if let Some((ty, problem)) = request_result_problem(method, &result) {
                    return Err(Error::new(ErrorCode::Protocol, format!("{method}: the result is no {ty}: {problem}")).with_detail("result", result));
                }
            }
            // Moved out of the page, not copied: a page of tools is held once.
            let listed = match result.get_mut(key).map(Value::take) {
                Some(Value::Array(listed)) => listed,
                None => return Err(Error::new(ErrorCode::Protocol, format!("{method} result has no `{key}` array"))),
                Some(other) => return Err(Error::new(ErrorCode::Protocol, format!("{method} result's `{key}` is not an array ({})", crate::model::json_type(&other)))),
            };
            // An entry that is no object is no tool, nor is one without a string `name` (the SDK's
            // schema refuses the whole listing for either), nor one whose name is empty (no call
            // can name it, and a conversion refuses it): left out as a tool that breaks other
            // rules is (told by `dropped_tools`), and the others kept. Of the other lists, an entry
            // that is no object is the error.
            for (i, item) in listed.into_iter().enumerate() {
                let index = offered + i;
                let problem = match item.get("name") {
                    _ if !item.is_object() => Some(format!("is not an object ({})", crate::model::json_type(&item))),
                    _ if key != "tools" => None,
                    Some(Value::String(name)) if name.is_empty() => Some("has an empty name".owned()),
                    Some(Value::String(_)) => None,
                    Some(Value::Object(cut)) if cut.len() == 1 && cut.get(jsonrpc::CUT_NAME).is_some_and(Value::is_string) => {
                        let name = cut[jsonrpc::CUT_NAME].as_str().unwrap_or_default();
                        Some(format!(
                            "has a name holding a lone UTF-16 surrogate escape (half of a character), read as {}: a call could not name it as the server has it",
                            crate::text::to_string(&string(name))
                        ))
                    }
                    None => Some("has no name (a string)".owned()),
                    Some(other) => Some(format!("has a name that is not a string ({})", crate::model::json_type(other))),
                };
                let Some(problem) = problem else {
                    items.push(item);
                    continue;
                };
                let what = format!("the entry at index {index} of `{key}` {problem}");
                if key != "tools" {
                    return Err(Error::new(ErrorCode::Protocol, format!("{method}: {what}")).with_detail("index", index));
                }
                let name = item["name"].get(jsonrpc::CUT_NAME).cloned().unwrap_or_else(|| "".into());
                dropped.push(object([("name", name), ("index", index.into()), ("reason", format!("{what}, so no tool").into())]));
            }
            offered = items.len() + dropped.len();
            if offered > self.opts.max_tools {
                return Err(Error::new(ErrorCode::LimitExceeded, format!("the server lists more than {} {key} (options.maxTools)", self.opts.max_tools)));
            }
            if let Some(t) = result.get("ttlMs") {
                let t = t.as_u64().or_else(|| t.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64)).unwrap_or(0);
                ttl_ms = Some(ttl_ms.map_or(t, |least| least.min(t)));
            }
            // A cursor that is not a string (the SDK's client refuses the page) is no end of the
            // listing: the pages after it would be lost without a word.
            if let Some(c) = result.get("nextCursor").filter(|c| !c.is_string() && !c.is_null()) {
                return Err(Error::new(ErrorCode::Protocol, format!("{method}: the result's nextCursor is not a string ({})", shown(c))).with_detail("nextCursor", c.clone()));
            }
            match result.get("nextCursor").and_then(Value::as_str) {
                Some(c) if !c.is_empty() => {
                    if !seen.insert(c.owned()) {
                        break; // a repeated cursor would loop forever
                    }
                    cursor = Some(c.owned());
                }
                _ => break,
            }
        }
        Ok(Listing { items, ttl_ms, session: gen, dropped, newest: true, number: 0 })
    }

    /// `tools/call`. Not sent to a server whose capabilities name no `tools`
    /// (`CAPABILITY_NOT_NEGOTIATED`).
    ///
    /// A tool that the last listing marks `execution.taskSupport: "required"` (2025-11-25) runs
    /// as a task when the server declares `tasks.requests.tools.call`: the call creates it, the
    /// client polls `tasks/get` as often as the task's `pollInterval` says (100 ms to 30 s, else
    /// 1 s) until it completes, fails or needs input, then fetches `tasks/result` (on whose
    /// stream the server asks for that input: `onRequest` answers). `on_progress` hears the
    /// task's progress while it runs. The call's `timeout_ms` (or `max_total_timeout_ms`) bounds
    /// the whole task (its `timeout_ms` pushed by the request handler's time, as a call's), and its
    /// cancellation ends it; a call that fails but by the server's own cancellation (`ABORTED`)
    /// sends `tasks/cancel`, even one that fails before the server answered it with the task
    /// ([`Client::cancel_created_task`]). Tasks are 2025-11-25's: not used with a server of an
    /// earlier revision.
    pub async fn call_tool(&self, name: &str, arguments: Value, opts: &mut CallOptions) -> Result<Value> {
        let started = self.clock.now_ms();
        let mut params = Map::new();
        params.put("name", string(name));
        params.put("arguments", if arguments.is_null() { Value::Object(Map::new()) } else { arguments });
        if self.is_modern() || !self.task_tools.borrowed().contains(name) || !self.runs_tool_tasks() {
            let result = self.request("tools/call", Value::Object(params), opts).await?;
            return self.checked_result(name, result, started, opts).await;
        }
        params.put("task", Value::Object(Map::new()));
        // The call's `_meta` goes with the call, not with the requests that follow the task.
        let meta = opts.meta.take();
        let total = opts.max_total_timeout_ms.or(opts.timeout_ms).unwrap_or(self.opts.timeout_ms);
        let deadline = self.clock.now_ms().saturating_add(total);
        // The task's progress comes with the call's token for as long as it runs, on whichever
        // stream: the token is chosen here and its handler kept until the call ends. The
        // requests about the task carry no token of their own: `reset_timeout_on_progress`,
        // which would ask for one for each, has no say over a task (its deadline bounds it).
        opts.reset_timeout_on_progress = false;
        let _progress = opts.on_progress.take().map(|handler| {
            let token = self.new_id();
            params.put("_meta", object([("progressToken", token.to_value())]));
            TaskProgress::new(&self.task_progress, token, handler)
        });
        let params = merge_meta(Value::Object(params), meta.as_ref())?;
        // The call as the user made it: the server requests that come while its task runs are
        // said to come for it.
        let call = RefCell::new(None);
        // The time `onRequest` takes to answer the task's server requests, on whichever of its
        // streams they come: the task's deadline is pushed by it (not a total's).
        let handler_time = Rc::new(HandlerTime::default());
        let result = self.request_for("tools/call", params, opts, Behalf::Kept(&call, &handler_time)).await?;
        let pushed = opts.max_total_timeout_ms.is_none().then_some(&*handler_time);
        match (result.get("task"), call.into_inner()) {
            // A server may answer a task-augmented call at once, with the result itself.
            (Some(task), Some(call)) if result.get("content").is_none() => {
                let task = task.clone();
                let task_id = task.get("taskId").cloned();
                let result = self.run_task(name, (&call, &handler_time), task, (deadline, pushed), total, opts).await?;
                // The task exists: its result's errors carry its id as the others do.
                self.checked_result(name, result, started, opts).await.map_err(|e| match task_id {
                    Some(id) => e.with_detail("taskId", id),
                    None => e,
                })
            }
            _ => self.checked_result(name, result, started, opts).await,
        }
    }

    /// The output schemas of a listing's tools, for [`Client::checked_result`].
    fn keep_output_schemas(&self, tools: &[Value]) {
        *self.output_schemas.borrowed_mut() = tools
            .iter()
            .filter_map(|t| Some((t.get("name")?.as_str()?.owned(), t.get("outputSchema").filter(|s| s.is_object())?.clone())))
            .collect();
    }

    /// A tool's result, checked against the `outputSchema` it was listed with (MCP: a tool that
    /// declares one must return `structuredContent` that conforms to it, and clients should
    /// check). An error result (`isError`) is not checked, nor any while the tools may have
    /// changed since they were listed ([`Client::tools_changed`]).
    ///
    /// A 2026-07-28 listing past its `ttlMs` ([`Client::tools_expired`]) is checked all the same:
    /// the SDKs' default `ttlMs` is `0`, so skipping it would check no such server's results. Its
    /// schema may be out of date (the tool redeployed), so a result it refuses is checked again
    /// against a fresh listing, made once within the call's `opts` (timeout, cancellation, what is
    /// left of its total from `started`: [`Client::relist_tools`]): refused if that schema refuses
    /// it too, accepted if the tool is gone or has no `outputSchema` now, and refused with the first
    /// check's error if the listing fails. The fresh listing's tools become the client's, as a call
    /// refused for its headers has them (later calls are checked against them); the app's listing
    /// stays stale.
    ///
    /// First of all, a result must be a `CallToolResult` at all ([`call_result_problem`]): what is
    /// not is `PROTOCOL`, with the `result` as it came, never handed on as if it were one (a hub
    /// would give the model an empty text that is no error). One without `content` has `content:
    /// []` (the SDK's `CallToolResultSchema` defaults it so), an `isError` that is not a boolean
    /// is made one ([`crate::model::is_error_value`]), its other fields as they came.
    async fn checked_result(&self, name: &str, mut result: Value, started: u64, opts: &mut CallOptions) -> Result<Value> {
        if let Some(problem) = call_result_problem(&result) {
            return Err(Error::new(ErrorCode::Protocol, format!("tools/call {name}: the result is not a CallToolResult: {problem}"))
                .with_tool(name)
                .with_detail("result", result));
        }
        if let Value::Object(o) = &mut result {
            o.entry("content").or_insert_with(|| Value::Array(Vec::new()));
            // `isError` a boolean, as MCP types it, read by the one rule everything else reads it
            // by (a server's `"false"` is no error, its `"yes"` one): `if (result.isError)` then
            // agrees with the flattening and the hub.
            if let Some(v) = o.get_mut("isError").filter(|v| !v.is_boolean()) {
                *v = Value::Bool(crate::model::is_error_value(v));
            }
        }
        // A listing after an announced change or a new session may hold a schema the tool no
        // longer has.
        if !self.opts.validate_structured_content || self.tools_changed() || result.get("isError").is_some_and(crate::model::is_error_value) {
            return Ok(result);
        }
        let violations = output_violations(self.output_schemas.borrowed().get(name), &result);
        if violations.is_empty() {
            return Ok(result);
        }
        if !self.tools_expired() {
            return Err(Self::output_error(name, violations, result));
        }
        // Past its `ttlMs`, the listing may be older than the tool: listed again, once, within
        // what is left of the call's total.
        let total = opts.max_total_timeout_ms.map(|ms| (started, ms));
        match self.relist_tools(opts, total).await? {
            Ok(listing) => {
                // The last of its entries with the name, as the client keeps them.
                let schema = listing
                    .items
                    .iter()
                    .rev()
                    .filter(|t| t.get("name").and_then(Value::as_str) == Some(name))
                    .find_map(|t| t.get("outputSchema").filter(|s| s.is_object()));
                let violations = output_violations(schema, &result);
                if violations.is_empty() {
                    Ok(result)
                } else {
                    Err(Self::output_error(name, violations, result))
                }
            }
            Err(l) => {
                let mut e = Self::output_error(name, violations, result);
                e.message = format!("{}; the tools' listing was past its ttlMs, and listing them again to check against a fresh one failed: {}", e.message, l.message);
                Err(e)
            }
        }
    }

    /// `tools/list` again for a call (one refused for its headers, a result its listed
    /// `outputSchema` refuses), within the call's timeout and cancellation and, given `total`
    /// (`(started, max_total_timeout_ms)` by [`Clock::now_ms`]), what is left of its total. The
    /// call's own deadline or cancellation met while listing (`TIMEOUT`, `ABORTED`) is the call's
    /// error, as it came; `Ok(Err)` is the listing's own failure, which the caller tells with the
    /// call's error. The listing's tools become the client's, as another listing's do.
    async fn relist_tools(&self, opts: &mut CallOptions, total: Option<(u64, u64)>) -> Result<Result<Listing>> {
        let mut relist = CallOptions { timeout_ms: opts.timeout_ms, cancel: opts.cancel.take(), ..CallOptions::default() };
        let listed = {
            // Boxed: a listing is made of requests, of which a call is one.
            let listing: Pin<Box<dyn Future<Output = Result<Listing>> + '_>> = Box::pin(self.list_fresh("tools/list", Value::Null, &mut relist));
            match total {
                None => listing.await,
                Some((started, ms)) => {
                    let sleep = self.clock.sleep(started.saturating_add(ms).saturating_sub(self.clock.now_ms()));
                    pin_mut!(sleep);
                    match select(listing, sleep).await {
                        Either::Left((r, _)) => r,
                        Either::Right(_) => Err(Error::new(
                            ErrorCode::Timeout,
                            format!("tools/call took more than its total of {ms} ms (maxTotalTimeoutMs) while the tools were listed again; the listing was cancelled"),
                        )
                        .with_detail("timeoutMs", ms)),
                    }
                }
            }
        };
        opts.cancel = relist.cancel.take();
        match listed {
            Err(l) if matches!(l.code, ErrorCode::Timeout | ErrorCode::Aborted) => Err(l),
            listed => Ok(listed),
        }
    }

    /// `PROTOCOL`: a result that the tool's `outputSchema` refuses ([`Client::checked_result`]).
    fn output_error(name: &str, violations: Vec<crate::schema::validate::Violation>, result: Value) -> Error {
        let first = violations.first().map_or_else(String::new, |v| if v.path.is_empty() { v.message.clone() } else { format!("{}: {}", v.path, v.message) });
        let more = if violations.len() > 1 { format!(" (and {} more)", violations.len() - 1) } else { String::new() };
        let listed: Vec<Value> = violations.into_iter().map(|v| object([("path", v.path.into()), ("message", v.message.into())])).collect();
        Error::new(ErrorCode::Protocol, format!("tools/call {name}: the result does not match the tool's outputSchema: {first}{more}"))
            .with_tool(name)
            .with_detail("violations", Value::Array(listed))
            .with_detail("result", result)
    }

    /// Whether the server runs `tools/call` as a task (`capabilities.tasks.requests.tools.call`)
    /// in the revision the handshake settled on: tasks are 2025-11-25's (an earlier revision has
    /// none, whatever its server's capabilities say).
    fn runs_tool_tasks(&self) -> bool {
        let st = self.state.borrowed();
        st.protocol_version.as_deref().is_some_and(|v| v >= "2025-11-25")
            && st.capabilities.as_ref().and_then(|c| c.pointer("/tasks/requests/tools/call")).is_some_and(Value::is_object)
    }

    /// Follows a task that `tools/call` created to its result, until `deadline` (see
    /// [`Client::call_tool`]), pushed by the time the request handler spent answering the task's
    /// server requests (`pushed`, unless the bound is a total). Each request about it goes with
    /// the caller's options and the time left; a poll that meets a network error is tried again
    /// once. A task (created, or as `tasks/get` answers) that is not one (not an object, a
    /// `status` missing or not one of MCP's five) is `PROTOCOL`: it is not taken for a task still
    /// working. However it fails while the task runs (but for the server's own cancellation), the
    /// task is cancelled.
    async fn run_task(
        &self,
        tool: &str,
        (call, time): (&Related, &Rc<HandlerTime>),
        mut task: Value,
        (deadline, pushed): (u64, Option<&HandlerTime>),
        total: u64,
        opts: &mut CallOptions,
    ) -> Result<Value> {
        let Some(id) = task.get("taskId").and_then(Value::as_str).map(str::to_owned) else {
            return Err(Error::new(ErrorCode::Protocol, format!("tools/call {tool}: the created task has no taskId")));
        };
        let due = || deadline.saturating_add(pushed.map_or(0, |t| t.paused_ms(self.clock.now_ms())));
        // `settled`: the task had ended (completed or failed) when its result was asked for, so
        // an error then is the task's own answer and there is nothing to cancel.
        let (mut retried, mut settled) = (false, false);
        // What brought `task`: the call that created it, then each poll.
        let mut from = "the created task";
        let ended = loop {
            let left = due().saturating_sub(self.clock.now_ms());
            if let Some(problem) = task_problem(&task) {
                break Err(Error::new(ErrorCode::Protocol, format!("{from} is not a Task: {problem}")).with_detail("result", task.clone()));
            }
            let (status, interval) = (task.get("status").and_then(Value::as_str), task.get("pollInterval").and_then(poll_interval_ms));
            let method = match status {
                Some(done @ ("completed" | "failed" | "input_required")) => {
                    settled = done != "input_required";
                    "tasks/result"
                }
                Some("cancelled") => {
                    let why = task.get("statusMessage").and_then(Value::as_str).map_or_else(String::new, |m| format!(": {m}"));
                    return Err(Error::new(ErrorCode::Aborted, format!("tools/call {tool}: the server cancelled task {id}{why}")).with_detail("taskId", id.as_str()));
                }
                // `working` (task_problem let no other status through).
                _ => {
                    let (sleep, closed) = (self.clock.sleep(interval.map_or(1_000, |ms| ms.clamp(100, 30_000)).min(left)), self.closing.wait());
                    pin_mut!(sleep, closed);
                    match select(sleep, select(cancelled(&mut opts.cancel), closed)).await {
                        Either::Left(_) => {}
                        Either::Right((Either::Left(_), _)) => break Err(Error::new(ErrorCode::Aborted, "the call was aborted")),
                        Either::Right(_) => break Err(Error::new(ErrorCode::NotConnected, "the client was closed")),
                    }
                    "tasks/get"
                }
            };
            let left = due().saturating_sub(self.clock.now_ms());
            if left == 0 {
                break Err(Error::new(ErrorCode::Timeout, ""));
            }
            opts.timeout_ms = Some(left);
            match self.request_for(method, object([("taskId", string(&id))]), opts, Behalf::Of(call, time)).await {
                Ok(r) if method == "tasks/result" => break Ok(r),
                Ok(t) => {
                    task = t;
                    from = "the tasks/get result";
                }
                Err(e) if e.code == ErrorCode::Network && method == "tasks/get" && !retried => retried = true,
                Err(e) => break Err(e),
            }
        };
        let failed = match ended {
            Ok(r) => return Ok(r),
            // The task's own time is up (not an inner bound such as an idle timeout).
            Err(e) if e.code == ErrorCode::Timeout && self.clock.now_ms() >= due() => {
                Error::new(ErrorCode::Timeout, format!("task {id} did not end in {total} ms")).with_detail("timeoutMs", total)
            }
            Err(e) => e,
        };
        let (suffix, told) = if settled {
            (String::new(), None)
        } else {
            // Told, within a short bound: the task would otherwise run on for nothing.
            let told = self.cancel_task(&id, (call, time), 5_000).await;
            (format!("; task {id} {}", if told { "was cancelled" } else { "could not be cancelled" }), Some(told))
        };
        let message = format!("tools/call {tool}: {}{suffix}", failed.message);
        let e = Error { message, ..failed }.with_detail("taskId", id.as_str());
        Err(match told {
            Some(told) => e.with_detail("taskCancelled", told),
            None => e,
        })
    }

    /// `tasks/cancel` for task `id`, within `ms`: whether the server acknowledged it.
    async fn cancel_task(&self, id: &str, (call, time): (&Related, &Rc<HandlerTime>), ms: u64) -> bool {
        let mut within = CallOptions { timeout_ms: Some(ms), ..CallOptions::default() };
        self.request_for("tasks/cancel", object([("taskId", string(id))]), &mut within, Behalf::Of(call, time)).await.is_ok()
    }

    /// Listens on the standalone stream (GET, `text/event-stream`), where a server sends what
    /// belongs to no request of ours: notifications (a changed tool list, log messages) to the
    /// notification handler, requests (`elicitation/create`, `roots/list`, `ping`) to the request
    /// handler, answered by POST. Runs until [`Client::close`] (`Ok(true)`); `Ok(false)` at once
    /// when the server does not offer the stream (405, or any other answer than an event stream
    /// but 401 and 403: not an error, the stream is optional). 401 and 403, at the first opening
    /// or a reopening, fail it with `UNAUTHORIZED` (after the unauthorized handler's try). A
    /// stream that ends or drops is reopened with `Last-Event-ID` after the server's `retry`
    /// (else a backoff from 1 s), for as long as the server lets it be reopened (a server may
    /// close it after each message and have the client poll), at most ten times a second; after `max_retries` failed reopenings in a row, it
    /// fails with `PROTOCOL` (its `status` detail the last HTTP status). A reopening the server
    /// refuses because it no longer knows the session (it restarted) gets a new session, once
    /// per loss of the stream, and the stream on it (the tool list then taken as changed); a
    /// renewal that fails ends the listening with its error. A session that another request
    /// renewed (or `connect()` replaced) moves it there: the old session's stream is dropped and
    /// one opened on the new session, without the old event id (the tool list taken as changed);
    /// a handshake that fails meanwhile ends it with `NOT_CONNECTED`. An answer refused for want of
    /// authorization ([`Client::send_answer`]) fails it with that error. An event past `max_event_bytes` fails it with `LIMIT_EXCEEDED`. The stream is
    /// read on while a server request is being answered (a person filling in a form holds up
    /// neither a `ping` nor the notifications behind it), as a call's stream is. With a
    /// 2026-07-28 server it is a subscription instead (see `subscribe` in the source), and a
    /// session renewed (or `connect()` made) in that revision while the stream is open moves it
    /// to one: no GET is sent from then on.
    pub async fn listen(&self) -> Result<bool> {
        // A session renewal that failed is tried again here too, as by any request.
        self.renew_again("listen", &mut CallOptions::default()).await?;
        if !self.state.borrowed().connected {
            return Err(Error::new(ErrorCode::NotConnected, "call connect() before listen()"));
        }
        // One stream: a second listen() (an effect run twice) waits for the first's outcome
        // (a server refuses a second stream, often with 409, which would read as not offered).
        if self.listening.get() {
            let outcome = self.listen_outcome.borrowed().clone();
            let (ended, closed) = (self.listened.wait(), self.closing.wait());
            pin_mut!(ended, closed);
            return match select(ended, closed).await {
                Either::Left(_) => outcome.borrowed().clone().unwrap_or(Ok(true)),
                Either::Right(_) => Ok(true),
            };
        }
        /// Marks the listening over however its future ends.
        struct Listening<'c>(&'c Cell<bool>, &'c CloseSignal);
        impl Drop for Listening<'_> {
            fn drop(&mut self) {
                self.0.set(false);
                self.1.fire();
            }
        }
        self.listening.set(true);
        let slot = Rc::new(RefCell::new(None));
        *self.listen_outcome.borrowed_mut() = slot.clone();
        let _listening = Listening(&self.listening, &self.listened);
        let outcome = self.listen_once().await;
        *slot.borrowed_mut() = Some(outcome.clone());
        outcome
    }

    /// The notifications a listening that missed what the server sent tells the handler of, since
    /// what changed in between is not known: the tool list changed; the resource and prompt lists
    /// too when the server declared `listChanged` for them; each resource subscribed to
    /// (`resources/updated`: a new session's subscriptions having been made again by its
    /// handshake, a 2026-07-28 subscription's filter asking for them).
    fn changes_unknown(&self) -> Vec<Incoming> {
        let note = |method: &str, params: Value| Incoming::Notification { method: method.owned(), params };
        let mut changed = vec![note("notifications/tools/list_changed", Value::Object(Map::new()))];
        let caps = self.state.borrowed().capabilities.clone().unwrap_or(Value::Null);
        for family in ["resources", "prompts"] {
            if caps.get(family).and_then(|c| c.get("listChanged")) == Some(&Value::Bool(true)) {
                changed.push(note(&format!("notifications/{family}/list_changed"), Value::Object(Map::new())));
            }
        }
        let uris = self.subscribed.borrowed().iter().take(MAX_RESUBSCRIBED).cloned().collect::<Vec<_>>();
        changed.extend(uris.into_iter().map(|uri| note("notifications/resources/updated", object([("uri", uri.into())]))));
        changed
    }

    /// [`Client::listen`]'s stream (or subscription), until it ends or the client is closed.
    async fn listen_once(&self) -> Result<bool> {
        self.listen_rehandshaken.set(false);
        let closed = self.closing.wait();
        let run = async {
            if self.is_modern() {
                self.subscribe().await
            } else {
                self.listen_until_closed().await
            }
        };
        pin_mut!(closed, run);
        match select(run, closed).await {
            Either::Left((r, _)) => r,
            Either::Right(_) => Ok(true),
        }
    }

    async fn listen_until_closed(&self) -> Result<bool> {
        const WHAT: &str = "listen";
        // No response is awaited on this stream: what `handle` returns for one is dropped.
        let none = Id::Str(String::new());
        let (mut last_id, mut retry_ms, mut failed, mut opened) = (None::<String>, None::<u64>, 0u32, false);
        // The unauthorized handler gave new headers for the opening under way.
        let mut reauthorized = Reauthorizations::default();
        // When the session was last renewed for the stream, until the stream brings a message: a
        // server that forgets every new session is not asked for one more than every
        // RENEW_AGAIN_MS (its refusals meanwhile count as failures).
        let mut renewed_at = None::<u64>;
        // What the last failed reopening got: an HTTP status, or none (no response).
        let mut last_status = Got::default();
        // Answers to the server's requests, made while the stream is read on: a request that
        // waits for a person holds up neither a `ping` nor the notifications behind it.
        let mut answers: Answers<'_> = FuturesUnordered::new();
        // Streams in a row that brought no message (see `reopen_delay`).
        let mut idle = 0u32;
        // The session the stream is opened on: the client's, whichever that is now.
        let mut of = None::<SentOn>;
        loop {
            // A handshake under way (a renewal, connect()) first: the stream is the new session's.
            while self.reinitializing.get() {
                self.reinitialized.wait().await;
            }
            if self.state.borrowed().closed {
                return Ok(true);
            }
            if !self.is_connected() {
                return Err(Error::new(ErrorCode::NotConnected, format!("{WHAT}: the session ended and no new one could be opened")));
            }
            let on = self.sent_on();
            if of.as_ref() != Some(&on) {
                if of.is_some() {
                    // Another session (renewed after the server forgot the stream's, by this stream
                    // or a request; connect() again): a stream of its own, without the old session's
                    // event id. Answers to the old session's requests go nowhere now (their ids may
                    // be the new session's requests'): dropped, their handlers' signals aborted. What
                    // the server sent in between is lost, and a restarted server announces no change:
                    // its lists and subscribed resources are taken as changed (the notification
                    // handler hears so, see `changes_unknown`).
                    answers.clear();
                    (last_id, retry_ms, failed) = (None, None, 0);
                    for changed in self.changes_unknown() {
                        drop(self.handle(&none, WHAT, changed, None, false, &on).await);
                    }
                }
                of = Some(on.clone());
            }
            // The handshake spoke 2026-07-28 (the auto era found the server turned to it, at a
            // renewal of this stream's or a request's): that revision has no standalone stream (a
            // GET is 405) but the subscription, which a listen() begun in it opens.
            if self.is_modern() {
                return self.subscribe().await;
            }
            let mut headers = self.headers(true, "text/event-stream");
            // An empty `id:` clears the last event id: then no header at all.
            let resumed = last_id.as_ref().is_some_and(|id| !id.is_empty());
            if let Some(id) = last_id.as_ref().filter(|id| !id.is_empty()) {
                headers.push(("last-event-id".owned(), id.clone()));
            }
            let req = HttpRequest { method: Method::Get, url: self.opts.url.clone(), headers, body: None, follow_redirects: false };
            let sent_with = self.auth_generation.get();
            let (gen, had_session) = (on.0, on.1.is_some());
            let resp = match self.transport.send(req).await {
                Ok(r) if r.status == 200 && content_type_essence(r.header("content-type").unwrap_or("")) == "text/event-stream" => {
                    self.auth_accepted(sent_with);
                    Some(r)
                }
                // An expired token, renewed by the unauthorized handler: opened again at once (once
                // per opening).
                Ok(r) if asks_authorization(&r) && while_answering(&mut answers, self.reauthorized(&r, sent_with, reauthorized)).await?? => {
                    reauthorized.record(r.status);
                    continue;
                }
                // Refused for want of credentials (an expired token, often, on a reopening): said
                // so, neither taken for a stream not on offer nor tried again.
                Ok(r) if matches!(r.status, 401 | 403) => return Err(refused_again(self.status_error(r, WHAT).await, reauthorized)),
                // The server no longer knows the session (it restarted, or let the session
                // expire): a new one, as a request makes, and the stream opened on it (above). At
                // the first opening only a refusal that names the session counts (a server may
                // answer a GET it does not offer with 404).
                Ok(r) if had_session && renewed_at.is_none_or(|t| self.clock.now_ms().saturating_sub(t) >= RENEW_AGAIN_MS) && matches!(r.status, 400 | 404) => {
                    let status = r.status;
                    let e = while_answering(&mut answers, self.status_error(r, WHAT)).await?;
                    if session_gone(&e) && (opened || names_session(&e)) {
                        answers.clear();
                        renewed_at = Some(self.clock.now_ms());
                        if let Err(e) = self.renew_session(gen, WHAT, &mut CallOptions::default()).await {
                            return Err(Error { message: format!("{WHAT}: the session expired and could not be renewed: {}", e.message), ..e });
                        }
                        continue;
                    }
                    if !opened {
                        return Ok(false);
                    }
                    last_status = Got::Status(status);
                    None
                }
                // Not offered (405), or refused in any other way: the stream is optional.
                Ok(_) if !opened => return Ok(false),
                Ok(r) => {
                    last_status = Got::Status(r.status);
                    None
                }
                Err(e) if !opened => return Err(transport_error(e, WHAT)),
                Err(e) => {
                    last_status = Got::NoResponse(e);
                    None
                }
            };
            reauthorized = Reauthorizations::default();
            // Whether the stream brought a message not dealt with before.
            let mut brought = false;
            let opened_now = resp.is_some();
            if let Some(resp) = resp {
                (opened, failed) = (true, 0);
                self.listen_rehandshaken.set(false);
                let mut body = resp.body;
                let mut parser = SseParser::new(self.opts.max_event_bytes);
                // What the stream holds unfinished counts against the budget and the server's share.
                let mut held = Held::of(self.server.clone());
                // Read to the end (or a drop, or the end of its session); the stream is silent for as
                // long as the server is.
                let left = self.session_left(&on);
                pin_mut!(left);
                loop {
                    let chunk = {
                        let next = while_answering(&mut answers, body.next_chunk());
                        pin_mut!(next);
                        match select(left.as_mut(), next).await {
                            Either::Left(_) => None,
                            Either::Right((c, _)) => Some(c?),
                        }
                    };
                    let Some(Some(Ok(chunk))) = chunk else { break };
                    let items = feed_held(&mut parser, &mut held, &chunk, WHAT)?;
                    for item in items {
                        // The id of complete events only (see `read_sse_answering`), one a header can carry.
                        if let SseItem::Event(SseEvent { id: Some(i), .. }) = &item {
                            if last_id.as_ref() != Some(i) && resumable_id(i) {
                                last_id = Some(i.clone());
                            }
                        }
                        match item {
                            SseItem::Retry(ms) => retry_ms = Some(ms),
                            SseItem::Event(ev) if ev.is_message() && !(resumed && self.seen(&ev)) => {
                                brought = true;
                                let Some(value) = std::str::from_utf8(&ev.data).ok().and_then(|t| jsonrpc::read_message(t).ok()) else { continue };
                                let msgs = classify_all(value);
                                self.dealt_with(&ev, &none, &msgs, resumed);
                                for msg in msgs {
                                    match msg {
                                        Incoming::Request { id, method, params } => answers.push(Box::pin(futures_util::FutureExt::map(self.answer(id, method, params, None, on.clone(), None), session_gone_is_no_error))),
                                        // A stray error meant for no request is no reason to stop listening.
                                        msg => drop(self.handle(&none, WHAT, msg, None, resumed, &on).await),
                                    }
                                }
                            }
                            SseItem::Event(_) => {}
                        }
                    }
                }
            } else {
                failed += 1;
                if failed > self.opts.max_retries {
                    // A 404 there: a session renewed for the stream was refused again.
                    return Err(gave_up(format_args!("{WHAT}: the server's stream could not be reopened"), failed, &last_status, resumed));
                }
            }
            if brought {
                renewed_at = None;
            }
            if opened_now {
                idle = if brought { 0 } else { idle + 1 };
            }
            // The session gone: at once to the new one (above).
            if !self.is_current(&on) {
                continue;
            }
            let delay = reopen_delay(retry_ms, failed, idle);
            while_answering(&mut answers, self.clock.sleep(delay)).await?;
        }
    }

    /// 2026-07-28's [`Client::listen`]: `subscriptions/listen` for the changes of the tool, prompt
    /// and resource lists, and of the resources the app subscribed to (`resourceSubscriptions`,
    /// when it subscribed to any: see [`Client::subscribe_here`]), a stream (a POST's) read to its
    /// end and opened again (a new request, no `Last-Event-ID`: the revision has no resumption)
    /// after 1 s, backing off while openings fail, up to `max_retries` failures in a row
    /// (`PROTOCOL`), and while streams end without bringing anything but the acknowledgement
    /// ([`resubscribe_delay`]: at most one opening in 30 s then). A subscription opened again
    /// announces a changed tool list (to the notification handler too; the other lists as
    /// [`Client::changes_unknown`] says), and each resource subscribed to as updated: what changed
    /// in between is not known. After a stream that brought nothing too: the server may have
    /// published in the wait between the two streams (a stream it ends at once covers no time at
    /// all), and neither its silence nor its acknowledgement says it did not; so the announcements
    /// stand at every reopening, one set each (an update is never lost), and what keeps a server
    /// that ends every stream at once from having the app list its tools every second is the
    /// spacing of those reopenings. The app's subscriptions changed, what the stream has brought
    /// is read, then it is closed (what cancels a request in that revision) and the subscription made again
    /// with the new filter at once, announcing each resource kept across the change as updated:
    /// what the server published between the two streams is not known, so none is missed, some
    /// may come twice. Changed while waiting to reopen a stream that ended or an opening that
    /// failed, they end the wait, but the reopening comes no sooner than 1 s after that end or
    /// failure ([`RESUBSCRIBE_MS`], the least wait of any reopening: an app that subscribes in a
    /// loop has a server asked at most once a second), and announces what any reopening does;
    /// nor does it start the spacing or the backoff over: a stream so opened that ends at once
    /// counts as one more idle one, an opening that fails as one more failure (toward
    /// `max_retries`). A server that refuses the new filter with a JSON-RPC error loses the
    /// resources added since the last stream opened (forgotten, and the problem handler told,
    /// with its error), and the subscription is made again without them. The server's acknowledgement
    /// (`notifications/subscriptions/acknowledged`, which the notification handler hears too)
    /// holds the part of the filter it honors: the resources it leaves out are forgotten, and the
    /// problem handler told ([`Client::set_problem_handler`]). At the first opening, 405 or -32601
    /// (not offered) is `Ok(false)`, a JSON result (the server ended it at once) `Ok(true)`, any
    /// other answer the server's error; a response on the stream (it ended the subscription) ends
    /// it: `Ok(true)`, or its error, and so does `notifications/cancelled` naming the
    /// subscription's request: `Ok(true)`. With the auto era, a refusal that says the server
    /// speaks a 2025 revision now (redeployed: [`Client::other_revision`], as for any request)
    /// has a new handshake find out which, once until a stream opens again (of either revision:
    /// a listening moved to the standalone stream and back, whose stream never opened, has none
    /// more, see `listen_rehandshaken`), and the listening goes on on the standalone stream
    /// ([`Client::listen_until_closed`]); the handshake finding 2026-07-28 again, or none made,
    /// the refusal is taken as any other. A handshake that finds a 2025 revision (a request's
    /// renewal) moves the listening there at once, during a wait or with a stream open: what the
    /// stream brought read, it is closed (the server as it was may hold it for long), and the
    /// lists announced as changed, as at any reopening.
    async fn subscribe(&self) -> Result<bool> {
        const WHAT: &str = "subscriptions/listen";
        let none = Id::Str(String::new());
        let (mut failed, mut opened, mut reauthorized) = (0u32, false, Reauthorizations::default());
        let mut last_status = Got::default();
        // The last stream was closed to make the subscription again with the app's new
        // subscriptions (`refiltered`): its reopening announces the resources kept across the
        // change as updated (what came meanwhile is not known). `before`: what the filter of the
        // last stream opened asked for; a refusal of a new filter forgets the resources added
        // since (however the change came: on the stream, in a wait, during a failed opening).
        let (mut refiltered, mut before) = (false, Vec::<String>::new());
        // Streams in a row that brought nothing, the last included (see `resubscribe_delay`).
        let mut idle = 0u32;
        loop {
            // A handshake under way (a renewal, connect()) first: the subscription is the new session's.
            while self.reinitializing.get() {
                self.reinitialized.wait().await;
            }
            // Closed (which forgets the subscriptions too): not made again.
            if self.state.borrowed().closed {
                return Ok(true);
            }
            // The handshake spoke a 2025 revision (the auto era found the server redeployed as
            // one, at a request's refusal): that revision has no subscription but the standalone
            // stream (GET), which a listen() begun in it opens.
            if self.is_connected() && !self.is_modern() {
                // What the server published since the subscription's last stream ended is not
                // known: announced, as a session renewal does on the standalone stream.
                if opened {
                    for changed in self.changes_unknown() {
                        drop(self.handle(&none, WHAT, changed, None, false, &self.sent_on()).await);
                    }
                }
                return Box::pin(self.listen_until_closed()).await;
            }
            let id = self.new_id();
            // The app's subscriptions as the filter asks for them: a change after this makes the
            // subscription again.
            let filtered = self.subscriptions_changed.generation.get();
            let asked: Vec<String> = self.subscribed.borrowed().iter().take(MAX_RESUBSCRIBED).cloned().collect();
            let mut filter = object([("toolsListChanged", true.into()), ("promptsListChanged", true.into()), ("resourcesListChanged", true.into())]);
            if let (Value::Object(f), false) = (&mut filter, asked.is_empty()) {
                f.put("resourceSubscriptions", Value::Array(asked.iter().map(|u| string(u)).collect()));
            }
            let params = self.with_meta(&object([("notifications", filter)]), None);
            let headers = self.modern_headers(WHAT, &params)?;
            let req = self.post(jsonrpc::request(&id, WHAT, params), true, &headers);
            let (sent_with, gen) = (self.auth_generation.get(), self.session_gen.get());
            // The resources the app's subscriptions gained since the last stream opened: a refusal
            // of the new filter is theirs.
            let added: Vec<String> = if opened { asked.iter().filter(|u| !before.contains(u)).cloned().collect() } else { Vec::new() };
            let stream = match self.transport.send(req).await {
                Ok(r) if r.status == 200 && content_type_essence(r.header("content-type").unwrap_or("")) == "text/event-stream" => {
                    self.auth_accepted(sent_with);
                    Some(r.body)
                }
                Ok(r) if asks_authorization(&r) && self.reauthorized(&r, sent_with, reauthorized).await? => {
                    reauthorized.record(r.status);
                    continue;
                }
                Ok(r) if matches!(r.status, 401 | 403) => return Err(refused_again(self.status_error(r, WHAT).await, reauthorized)),
                // A refusal that may say the server speaks a 2025 revision now (redeployed): a new
                // handshake, after which the listening goes on in the revision it found (above);
                // the same one found, the refusal is taken as the arms below take it.
                Ok(r) if r.status == 400 && self.opts.era == Era::Auto && !self.listen_rehandshaken.get() => {
                    let e = self.status_error(r, WHAT).await;
                    if self.other_revision(WHAT, &e) {
                        // Once until a stream opens, whichever revision it finds.
                        self.listen_rehandshaken.set(true);
                        if let Err(h) = self.renew_session(gen, WHAT, &mut CallOptions::default()).await {
                            return Err(Error { message: format!("{WHAT}: the server refused it as one of another revision does, and a new handshake failed: {}", h.message), ..h });
                        }
                        if !self.is_modern() {
                            continue;
                        }
                    }
                    if opened && !added.is_empty() && rpc_code(&e).is_some() {
                        self.lose_subscriptions(REFUSED_FILTER, added.iter().map(|u| (u.clone(), e.clone())).collect());
                        continue;
                    }
                    if !opened {
                        return if rpc_code(&e) == Some(-32601) { Ok(false) } else { Err(e) };
                    }
                    last_status = Got::Status(400);
                    None
                }
                // The server refused the filter a change of the app's subscriptions made (a
                // JSON-RPC error, such as one for a resource it does not know): the resources the
                // change added are forgotten and told, and the subscription made again without them.
                Ok(r) if opened && !added.is_empty() && !(500..600).contains(&r.status) => {
                    let status = r.status;
                    let e = if r.status == 200 && content_type_essence(r.header("content-type").unwrap_or("")) == "application/json" {
                        match self.read_json(&id, WHAT, r.body, None, None, &self.sent_on()).await {
                            Err(e) => e,
                            // A result at once: it ended the subscription.
                            Ok(_) => return Ok(true),
                        }
                    } else {
                        self.status_error(r, WHAT).await
                    };
                    if rpc_code(&e).is_some() {
                        self.lose_subscriptions(REFUSED_FILTER, added.iter().map(|u| (u.clone(), e.clone())).collect());
                        continue;
                    }
                    last_status = Got::Status(status);
                    None
                }
                // Not offered (405, or -32601 for the method); a result at once ended it; any other
                // answer is the server's error.
                Ok(r) if !opened && r.status == 405 => return Ok(false),
                Ok(r) if !opened && r.status == 200 && content_type_essence(r.header("content-type").unwrap_or("")) == "application/json" => {
                    // A small answer: no length needed.
                    return match self.read_json(&id, WHAT, r.body, None, None, &self.sent_on()).await {
                        Err(e) if rpc_code(&e) == Some(-32601) => Ok(false),
                        ended => ended.map(|_| true),
                    };
                }
                Ok(r) if !opened => {
                    let e = self.status_error(r, WHAT).await;
                    return if rpc_code(&e) == Some(-32601) { Ok(false) } else { Err(e) };
                }
                Ok(r) => {
                    last_status = Got::Status(r.status);
                    None
                }
                Err(e) if !opened => return Err(transport_error(e, WHAT)),
                Err(e) => {
                    last_status = Got::NoResponse(e);
                    None
                }
            };
            reauthorized = Reauthorizations::default();
            // How long the stream lived (none: no stream).
            let mut lived = 0u64;
            if let Some(mut body) = stream {
                // A subscription opened again may have missed changes while there was none; one
                // made again for a change of the app's subscriptions, what came for the resources
                // kept across it (the others' were not asked for, or are new) between the two
                // streams (duplicates of what the last one brought, maybe).
                if opened && refiltered {
                    for uri in asked.iter().filter(|u| before.contains(u)) {
                        let updated = Incoming::Notification { method: "notifications/resources/updated".owned(), params: object([("uri", string(uri))]) };
                        drop(self.handle(&none, WHAT, updated, None, false, &self.sent_on()).await);
                    }
                } else if opened {
                    for changed in self.changes_unknown() {
                        drop(self.handle(&none, WHAT, changed, None, false, &self.sent_on()).await);
                    }
                }
                (opened, failed, refiltered, before) = (true, 0, false, asked.clone());
                self.listen_rehandshaken.set(false);
                // Whether the stream brought a message but the acknowledgement, and when it opened.
                let (mut brought, opened_at) = (false, self.clock.now_ms());
                let mut parser = SseParser::new(self.opts.max_event_bytes);
                let mut held = Held::of(self.server.clone());
                let (changed, left) = (self.subscriptions_changed.wait_since(filtered), self.left_modern());
                pin_mut!(changed, left);
                // A handshake (a request's renewal) found the server speaking a 2025 revision now:
                // the stream, of the server as it was, is left for the new session's (above).
                let mut moved = false;
                loop {
                    // What the stream has already is read before a change of the app's
                    // subscriptions, or of revision, closes it.
                    let chunk = {
                        let next = body.next_chunk();
                        pin_mut!(next);
                        match select(next, select(changed.as_mut(), left.as_mut())).await {
                            Either::Left((c, _)) => c,
                            Either::Right((Either::Left(_), _)) => {
                                refiltered = true;
                                break;
                            }
                            Either::Right((Either::Right(_), _)) => {
                                moved = true;
                                break;
                            }
                        }
                    };
                    let Some(Ok(chunk)) = chunk else { break };
                    let items = feed_held(&mut parser, &mut held, &chunk, WHAT)?;
                    for item in items {
                        let SseItem::Event(ev) = item else { continue };
                        let Some(value) = ev.is_message().then(|| std::str::from_utf8(&ev.data).ok().and_then(|t| jsonrpc::read_message(t).ok())).flatten() else { continue };
                        for msg in classify_all(value) {
                            match msg {
                                Incoming::Response { id: rid, outcome } if rid == id => return outcome.map(|_| true).map_err(|e| rpc_to_error(e, WHAT)),
                                Incoming::Malformed { id: Some(rid), problem, error } if rid == id => return Err(malformed_response(WHAT, &id, problem, error)),
                                // The server tore the subscription down: ended as by a result, not
                                // opened again (nor a change of the tools announced for it).
                                Incoming::Notification { method, params }
                                    if method == "notifications/cancelled" && params.get("requestId").and_then(Id::from_value).as_ref() == Some(&id) =>
                                {
                                    return Ok(true)
                                }
                                msg => {
                                    match &msg {
                                        Incoming::Notification { method, params } if method == "notifications/subscriptions/acknowledged" => {
                                            self.acknowledged(&id, &asked, filtered, params)
                                        }
                                        Incoming::Notification { .. } | Incoming::Request { .. } => brought = true,
                                        _ => {}
                                    }
                                    drop(self.handle(&none, WHAT, msg, None, false, &self.sent_on()).await)
                                }
                            }
                        }
                    }
                }
                // Closed (dropped, which aborts its fetch) before the subscription is made again.
                drop(body);
                if moved {
                    continue;
                }
                // One closed for a change of the app's subscriptions did not end by itself: it
                // counts only when it brought something.
                if refiltered {
                    if brought {
                        idle = 0;
                    }
                    continue;
                }
                lived = self.clock.now_ms().saturating_sub(opened_at);
                idle = if brought || lived >= MAX_BACKOFF_MS { 0 } else { idle + 1 };
            } else {
                failed += 1;
                refiltered = false;
                if failed > self.opts.max_retries {
                    return Err(gave_up(format_args!("{WHAT}: the subscription could not be opened again"), failed, &last_status, false));
                }
            }
            // The wait before the reopening ends early when the app's subscriptions change (since
            // the filter the last request asked for): the new one is sent then, but not sooner
            // than RESUBSCRIBE_MS after the stream ended or the opening failed (the least wait of
            // any reopening). The counters stand: a stream so opened that ends at once is one
            // more idle one, a failure one more failure.
            let delay = resubscribe_delay(failed, idle, lived);
            let waited_from = self.clock.now_ms();
            let sleep = self.clock.sleep(delay);
            let (changed, left) = (self.subscriptions_changed.wait_since(filtered), self.left_modern());
            pin_mut!(sleep, changed, left);
            // Nor is a move to a 2025 revision waited for (above).
            if let Either::Right((Either::Left(_), _)) = select(sleep, select(changed, left)).await {
                // (A close() forgets the subscriptions: ended above, no wait.)
                let gap = RESUBSCRIBE_MS.saturating_sub(self.clock.now_ms().saturating_sub(waited_from));
                if gap > 0 && !self.state.borrow().closed {
                    self.clock.sleep(gap).await;
                }
            }
        }
    }

    /// Resolves once a handshake has the client speak a 2025 revision (the auto era found the
    /// server redeployed as one, at a request's refusal): a 2026-07-28 listening moves to the
    /// standalone stream then, not when the stream of the server as it was ends.
    async fn left_modern(&self) {
        loop {
            let changed = self.session_changed.wait();
            if self.is_connected() && !self.is_modern() {
                return;
            }
            changed.await;
        }
    }

    /// A 2026-07-28 subscription's acknowledgement (`notifications/subscriptions/acknowledged`:
    /// the part of the filter the server honors): of the resources the filter asked for
    /// (`asked`, the app's subscriptions as they were at `filtered`), those it leaves out are
    /// forgotten, and told. Not when the app's subscriptions changed since (the subscription is
    /// being made again, and its own acknowledgement tells), nor for one naming another
    /// subscription (`subscriptionId`).
    fn acknowledged(&self, id: &Id, asked: &[String], filtered: u64, params: &Value) {
        let of = params.pointer("/_meta/io.modelcontextprotocol~1subscriptionId");
        if asked.is_empty() || self.subscriptions_changed.generation.get() != filtered || of.is_some_and(|v| Id::from_value(v).as_ref() != Some(id)) {
            return;
        }
        let honored = params.pointer("/notifications/resourceSubscriptions").and_then(Value::as_array);
        let e = Error::new(ErrorCode::CapabilityNotNegotiated, "the server did not take it (it sends notifications/resources/updated only for those it acknowledges)");
        let subscribed = self.subscribed.borrowed().clone();
        let lost = asked
            .iter()
            .filter(|u| subscribed.contains(u) && !honored.is_some_and(|h| h.iter().any(|x| x.as_str() == Some(u.as_str()))))
            .map(|u| (u.clone(), e.clone()))
            .collect();
        self.lose_subscriptions(NOT_ACKNOWLEDGED, lost);
    }

    /// Ends the session: DELETE (405 is fine). The client can connect again afterwards, starting
    /// over: headers refused at once before are no longer marked so (`refusedAtOnce`), as after
    /// [`Client::connect`] (a hub, which connects its servers on use, is started over by its close).
    pub async fn close(&self) -> Result<()> {
        {
            let mut st = self.state.borrowed_mut();
            st.connected = false;
            st.closed = true;
        }
        self.renewal_owed.set(false);
        self.refused_auth.set(None);
        self.refused_scope.borrowed_mut().clear();
        self.forget_subscriptions();
        // Abandon every request in flight (dropping them aborts their fetches).
        self.closing.fire();
        self.end_session().await
    }

    /// Ends the session there is (DELETE, see [`Client::delete_session`]); it is ended here
    /// whatever the server says.
    async fn end_session(&self) -> Result<()> {
        if self.state.borrowed().session_id.is_none() {
            return Ok(());
        }
        let headers = self.headers(true, "application/json, text/event-stream");
        self.state.borrowed_mut().session_id = None;
        self.session_changed.fire();
        self.delete_session(headers).await
    }

    /// DELETE of a session (these headers carry its id): 405 and 404 are fine; one that fails is
    /// reported, one unanswered after [`CLOSE_GRACE_MS`] abandoned (which aborts it). The grace
    /// covers reading an error's body too (one that never ends must not hold it).
    async fn delete_session(&self, headers: Vec<(String, String)>) -> Result<()> {
        let req = HttpRequest { method: Method::Delete, url: self.opts.url.clone(), headers, body: None, follow_redirects: false };
        let delete = async {
            match self.transport.send(req).await {
                Ok(r) if (200..300).contains(&r.status) || r.status == 405 || r.status == 404 => Ok(()),
                // The session already ended, said with 400 (see `exchange`).
                Ok(r) if r.status == 400 => match self.status_error(r, "close").await {
                    e if names_session(&e) => Ok(()),
                    e => Err(e),
                },
                Ok(r) => Err(self.status_error(r, "close").await),
                Err(e) => Err(transport_error(e, "close")),
            }
        };
        let grace = self.clock.sleep(CLOSE_GRACE_MS);
        pin_mut!(delete, grace);
        match select(delete, grace).await {
            Either::Left((r, _)) => r,
            Either::Right(_) => Err(Error::new(ErrorCode::Timeout, format!("close: the server did not answer DELETE in {CLOSE_GRACE_MS} ms; abandoned"))),
        }
    }
}

impl<T: Transport + 'static, C: Clock + 'static> Client<T, C> {
    /// Has what the client sends without waiting for it run by `spawn`: the
    /// `notifications/cancelled` after a timeout or an abort, so that the call's error comes at
    /// its deadline (or as soon as it is aborted) however long the server takes to accept the
    /// notification (it is still sent, within [`CANCEL_GRACE_MS`]). Without a spawner (`None`)
    /// the call's error waits for it. And a session renewal that the request driving it stops
    /// waiting for (its timeout, its abort) goes on for the others ([`Client::drive_renewal`]);
    /// without a spawner it is dropped. The spawned future holds the client only while it runs.
    pub fn set_spawner(self: &Rc<Self>, spawn: Option<Spawner>) {
        let send = spawn.clone().map(|spawn| {
            let client = Rc::downgrade(self);
            Rc::new(move |params: Value, since: u64, sent_on: SentOn| {
                let client = client.clone();
                spawn(Box::pin(async move {
                    let Some(c) = client.upgrade() else { return };
                    // A turn of the host's event loop first: the errors of many calls that time
                    // out together all settle before their notifications are sent. A `close()`
                    // in that turn (or while it is sent) drops it.
                    c.clock.sleep(0).await;
                    c.send_cancelled(params, since, sent_on).await;
                }));
            }) as SendCancelled
        });
        *self.cancel_in_background.borrowed_mut() = send;
        let renew = spawn.map(|spawn| {
            let client = Rc::downgrade(self);
            Rc::new(move || {
                let c = client.upgrade()?;
                let handshake: Pin<Box<dyn Future<Output = Result<()>>>> = Box::pin(async move { c.initialize_shared(&mut CallOptions::default(), false).await });
                Some((handshake, spawn.clone()))
            }) as RenewInBackground
        });
        *self.renew_in_background.borrowed_mut() = renew;
    }
}

/// A request's error when it stops waiting for a session renewal: its timeout passed
/// (`timed_out`), or it was aborted.
fn renewal_unawaited(method: &str, timeout: u64, timed_out: bool) -> Error {
    if timed_out {
        Error::new(ErrorCode::Timeout, format!("{method} timed out after {timeout} ms waiting for the session to be renewed")).with_detail("timeoutMs", timeout)
    } else {
        Error::new(ErrorCode::Aborted, format!("{method} was aborted while the session was renewed"))
    }
}

/// Requests that change nothing on the server (MCP's listings, reads, `ping`, completions): one
/// whose response stream a session renewal (another request's) abandoned is sent again on the
/// new session, as one that met the session's end itself is. Any other may have run, and is not.
fn read_only(method: &str) -> bool {
    matches!(
        method,
        "ping" | "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" | "resources/read" | "prompts/get" | "completion/complete"
    )
}

/// Whether an HTTP error sent with a session says the server no longer knows it: a 404, or a
/// 400 whose body names the session ([`names_session`]).
fn session_gone(e: &Error) -> bool {
    let status = e.details.as_ref().and_then(|d| d.get("status")).and_then(Value::as_u64);
    e.code == ErrorCode::HttpStatus && (status == Some(404) || (status == Some(400) && names_session(e)))
}

/// Whether an HTTP error's body says the server does not know the session (`No valid session
/// ID provided`, `Session not found`, `Invalid or missing session ID`): sent with one, the
/// server no longer knows it. Not a JSON-RPC error answering the request itself (its `id`
/// set): that is about the request (`session_name is required`), not the session.
fn names_session(e: &Error) -> bool {
    let body = e.details.as_ref().and_then(|d| d.get("bodyPreview")).and_then(Value::as_str).unwrap_or("");
    if read_json(body).ok().and_then(|v| v.get("id").cloned()).is_some_and(|id| !id.is_null()) {
        return false;
    }
    let body = body.to_ascii_lowercase();
    ["no valid session", "session not found", "invalid session", "unknown session", "session expired", "session has expired", "missing session", "session id"]
        .iter()
        .any(|phrase| body.contains(phrase))
}

/// The progress handlers of calls that run as tasks, by token.
type TaskProgressHandlers = RefCell<Vec<(Id, Rc<dyn Fn(&Value)>)>>;

/// A task's progress handler, listed in [`Client::task_progress`] while its call runs (however
/// its future ends).
struct TaskProgress<'c> {
    handlers: &'c TaskProgressHandlers,
    token: Id,
}

impl<'c> TaskProgress<'c> {
    fn new(handlers: &'c TaskProgressHandlers, token: Id, handler: ProgressHandler) -> Self {
        handlers.borrowed_mut().push((token.clone(), Rc::from(handler)));
        Self { handlers, token }
    }
}

impl Drop for TaskProgress<'_> {
    fn drop(&mut self) {
        self.handlers.borrowed_mut().retain(|(t, _)| *t != self.token);
    }
}

/// The progress of a call in flight that a stream other than its own brought, until the call
/// takes it ([`Client::progress_elsewhere`]).
#[derive(Default)]
struct Elsewhere {
    queue: RefCell<Vec<Value>>,
    /// Fired when progress is put in `queue`.
    arrived: CloseSignal,
}

/// The response to a request in flight that a stream other than its own brought, until the
/// request takes it ([`Client::run_with_timeout`], or the reader of its own stream).
#[derive(Default)]
struct Awaited {
    response: RefCell<Option<std::result::Result<Value, RpcError>>>,
    /// Fired when `response` is set.
    arrived: CloseSignal,
    /// Set once the request's own stream (or JSON body) is read: its reader takes the response
    /// ([`Client::read_here`]).
    read_here: Cell<bool>,
}

impl Awaited {
    /// Keeps the first response that comes (a replay may bring it again).
    fn deliver(&self, outcome: std::result::Result<Value, RpcError>) {
        if self.arrived.generation.get() == 0 {
            *self.response.borrowed_mut() = Some(outcome);
            self.arrived.fire();
        }
    }

    /// The response, once it has come.
    async fn response(&self) -> std::result::Result<Value, RpcError> {
        loop {
            let arrived = self.arrived.wait();
            if let Some(r) = self.take() {
                return r;
            }
            arrived.await;
        }
    }

    /// The response, once it has come while no reader of the request's own stream takes it
    /// (never, once one does).
    async fn unread_response(&self) -> std::result::Result<Value, RpcError> {
        loop {
            let arrived = self.arrived.wait();
            if let Some(r) = (!self.read_here.get()).then(|| self.take()).flatten() {
                return r;
            }
            arrived.await;
        }
    }

    /// The response, if it has come (and was not taken).
    fn take(&self) -> Option<std::result::Result<Value, RpcError>> {
        self.response.borrowed_mut().take()
    }
}

/// A request waiting for its response, listed in [`Client::awaiting`] while it waits (however its
/// future ends).
struct Awaiting<'c> {
    list: &'c RefCell<Vec<(Id, Rc<Awaited>)>>,
    awaited: Rc<Awaited>,
}

impl<'c> Awaiting<'c> {
    fn new(list: &'c RefCell<Vec<(Id, Rc<Awaited>)>>, id: &Id) -> Self {
        let awaited = Rc::new(Awaited::default());
        list.borrowed_mut().push((id.clone(), awaited.clone()));
        Self { list, awaited }
    }
}

impl Drop for Awaiting<'_> {
    fn drop(&mut self) {
        self.list.borrowed_mut().retain(|(_, a)| !Rc::ptr_eq(a, &self.awaited));
    }
}

/// A call's progress token, listed in [`Client::progress_tokens`] while the call runs (however
/// its future ends).
struct ProgressToken<'c> {
    tokens: &'c RefCell<Vec<(Id, Rc<Elsewhere>)>>,
    id: Id,
}

impl<'c> ProgressToken<'c> {
    fn new(tokens: &'c RefCell<Vec<(Id, Rc<Elsewhere>)>>, id: &Id) -> Self {
        tokens.borrowed_mut().push((id.clone(), Rc::default()));
        Self { tokens, id: id.clone() }
    }
}

impl Drop for ProgressToken<'_> {
    fn drop(&mut self) {
        let mut tokens = self.tokens.borrowed_mut();
        if let Some(at) = tokens.iter().position(|(t, _)| *t == self.id) {
            tokens.swap_remove(at);
        }
    }
}

/// Why a request of the 2025 revisions is not sent to a 2026-07-28 server, which does not have
/// it (and answers it -32601), when it has no equivalent there (see [`Client::subscribe_here`]).
fn not_modern(method: &str) -> Option<&'static str> {
    match method {
        "ping" => Some("the revision has no ping (any request, a listing or server/discover, tells whether the server answers)"),
        "logging/setLevel" => Some("the log level goes in each request's _meta in that revision: give the client's logLevel option"),
        _ => None,
    }
}

/// How a renewed session lost subscriptions ([`lost_subscriptions`]).
const RENEWED_SESSION: &str = "the session was renewed (the server had forgotten the old one), but could not be subscribed again to";

/// How a handshake in 2026-07-28 (a renewal that found the server speaking it) lost subscriptions.
const RENEWED_MODERN: &str = "the client connected again, in MCP 2026-07-28 (the server speaks it now), but cannot keep";

/// How a 2026-07-28 subscription made again for a change of the app's subscriptions, and refused
/// (a JSON-RPC error), lost those the change added.
const REFUSED_FILTER: &str = "the server refused the subscriptions/listen (MCP 2026-07-28) that asked for";

/// How a 2026-07-28 subscription's acknowledgement lost subscriptions.
const NOT_ACKNOWLEDGED: &str = "the server's acknowledgement of subscriptions/listen (MCP 2026-07-28) leaves out";

/// The error a [`ProblemHandler`] is told of for the subscriptions lost as `how` says (one of
/// the texts above): the first one's code, the first few named in the message, each in `lost`
/// (`{uri, code, message}`).
fn lost_subscriptions(how: &str, lost: &[(String, Error)]) -> Error {
    const NAMED: usize = 5;
    let mut named: Vec<String> = lost.iter().take(NAMED).map(|(uri, e)| format!("{} ({})", crate::text::excerpt(uri, 200), crate::text::excerpt(&e.message, 200))).collect();
    if lost.len() > NAMED {
        named.push(format!("and {} more", lost.len() - NAMED));
    }
    let each = lost.iter().map(|(uri, e)| object([("uri", string(uri)), ("code", e.code.as_str().into()), ("message", string(&e.message))])).collect();
    Error::new(
        lost[0].1.code,
        format!(
            "{how} {} resource{} the app subscribed to: {}; no notifications/resources/updated will come for {}: request resources/subscribe again once the server has {}",
            lost.len(),
            if lost.len() == 1 { "" } else { "s" },
            named.join(", "),
            if lost.len() == 1 { "it" } else { "them" },
            if lost.len() == 1 { "it" } else { "them" },
        ),
    )
    .with_detail("lost", Value::Array(each))
}

/// Whether the cancellation has come already (polled once; one that is ready must not be
/// polled again: the caller ends there).
fn cancelled_already(cancel: &mut Option<CancelFuture>) -> bool {
    cancel.as_mut().is_some_and(|c| futures_util::FutureExt::now_or_never(c.as_mut()).is_some())
}

/// Resolves when the caller cancels (never without a cancellation). The caller's future is polled
/// by reference, so one cancellation covers every wait of a call.
fn cancelled(cancel: &mut Option<CancelFuture>) -> impl Future<Output = ()> + Unpin + '_ {
    std::future::poll_fn(move |cx| match cancel.as_mut() {
        Some(c) => c.as_mut().poll(cx),
        None => std::task::Poll::Pending,
    })
}

/// Answers to server requests in flight ([`Client::answer`]), driven beside a stream's reading;
/// one that fails (refused for want of authorization) is the error of that stream.
type Answers<'a> = FuturesUnordered<Pin<Box<dyn Future<Output = Result<()>> + 'a>>>;

/// Awaits `f` while driving `answers` meanwhile, answers first (so that those ready go out
/// before whatever `f` leads to); the error of an answer that fails ends it. `f` is never dropped
/// before it ends but by such an error (a read of a response body that is dropped may lose its chunk).
async fn while_answering<F: Future>(answers: &mut Answers<'_>, f: F) -> Result<F::Output> {
    pin_mut!(f);
    loop {
        if answers.is_empty() {
            return Ok(f.await);
        }
        match select(answers.next(), f.as_mut()).await {
            Either::Left((Some(Err(e)), _)) => return Err(e),
            Either::Left(_) => {}
            Either::Right((out, _)) => return Ok(out),
        }
    }
}

/// The longest wait before a stream is opened again ([`backoff_ms`]).
const MAX_BACKOFF_MS: u64 = 30_000;

/// The least wait before a 2026-07-28 subscription is made again after its stream ended or an
/// opening failed ([`backoff_ms`] of no failure), even for a change of the app's subscriptions
/// ([`Client::subscribe`]): an app that subscribes and unsubscribes in a loop has a server that
/// ends its streams at once, or fails, asked at most once a second.
const RESUBSCRIBE_MS: u64 = 1000;

/// The wait after `failed` failed openings in a row, without the server's word: 1 s, half as long
/// again after each failure, at most 30 s.
fn backoff_ms(failed: u32) -> u64 {
    (1000.0 * 1.5f64.powi(failed as i32)).min(MAX_BACKOFF_MS as f64) as u64
}

/// How long to wait before a 2026-07-28 subscription (`subscriptions/listen`) is made again: after
/// `failed` failed openings in a row, [`backoff_ms`]; and while streams come in a row that end
/// without bringing anything but the acknowledgement, each within [`MAX_BACKOFF_MS`] (`idle` of
/// them, the last included, which lived `lived_ms`), the openings are spaced at least as the
/// failures' backoff from the second on (1.5 s, 2.25 s... at most 30 s from one opening to the
/// next): a server that ends every subscription at once is not asked (nor its changes announced,
/// see [`Client::subscribe`]) every second for ever, and one that closes quiet streams after a
/// while is asked again 1 s after that while, as before. The wait for a failure is never less than
/// that spacing.
fn resubscribe_delay(failed: u32, idle: u32, lived_ms: u64) -> u64 {
    let spacing = if idle == 0 { 0 } else { backoff_ms(idle - 1) };
    backoff_ms(failed).max(spacing.saturating_sub(lived_ms))
}

/// The least wait before a stream is opened again, whatever the server's `retry` says: a server
/// that closes every stream at once with `retry: 0` is not asked again hundreds of times a second.
pub const MIN_REOPEN_MS: u64 = 100;

/// How long to wait before opening a stream again: the server's `retry` (a server may close the
/// stream after every event and have the client poll, 2025-11-25), else [`backoff_ms`]; never less
/// than [`MIN_REOPEN_MS`], and while streams come in a row that bring nothing toward the response
/// (`idle` of them, the last included; on `listen()`, nothing at all) that floor doubles from the
/// second, up to the wait without `retry` (1 s): a server that answers later after a priming event
/// is polled at its `retry` (or every second), one that closes every stream with nothing new (or
/// with messages for others) soon no faster than once a second.
fn reopen_delay(retry_ms: Option<u64>, failed: u32, idle: u32) -> u64 {
    let floor = (MIN_REOPEN_MS << idle.saturating_sub(1).min(4)).min(backoff_ms(0));
    retry_ms.unwrap_or_else(|| backoff_ms(failed)).max(floor)
}

/// Whether a message on a request's stream is a step toward its response: the response, its
/// progress, a request of the server's but `ping` (it may need the answer to go on).
fn toward(msg: &Incoming, id: &Id) -> bool {
    match msg {
        Incoming::Response { id: rid, .. } => rid == id,
        Incoming::Request { method, .. } => method != "ping",
        Incoming::Notification { method, params } => {
            method == "notifications/progress" && params.get("progressToken").and_then(Id::progress_token).as_ref() == Some(id)
        }
        _ => false,
    }
}

/// What the last failed opening of a stream got: an HTTP status, or no response and why.
enum Got {
    Status(u16),
    NoResponse(TransportError),
}

impl Default for Got {
    fn default() -> Self {
        Self::NoResponse(TransportError::Network(String::new()))
    }
}

/// A stream given up after `failed` failed openings in a row, `last` what the last one got: its
/// HTTP status (`PROTOCOL`: the server answered, not with the stream), or no response, with the
/// transport's word for why. No HTTP response at all is `NETWORK`, with the hint any request that
/// got none has ([`transport_error`]): the server is unreachable, or a browser's CORS refused the
/// request; `last_event_id`: the last opening sent `Last-Event-ID`, the header a server's CORS most
/// often leaves out, which a browser refuses the GET for. fetch's own error (one that throws before
/// anything is sent, over a header it cannot carry) is no network trouble: `PROTOCOL`.
fn gave_up(what: std::fmt::Arguments<'_>, failed: u32, last: &Got, last_event_id: bool) -> Error {
    let (code, got, hint) = match last {
        Got::Status(s) => (ErrorCode::Protocol, format!("HTTP {s}"), String::new()),
        Got::NoResponse(TransportError::Network(why)) => {
            let got = if why.is_empty() { "no response".owned() } else { format!("no response: {why}") };
            let hint = if lost_after_sending(why) {
                // The server was reached, and closed the connection: not unreachable.
                String::new()
            } else if CORS_POSSIBLE.load(std::sync::atomic::Ordering::Relaxed) && last_event_id {
                format!("; {}; a reopening sends last-event-id, which Access-Control-Allow-Headers must list", no_response_hint())
            } else {
                format!("; {}", no_response_hint())
            };
            (ErrorCode::Network, got, hint)
        }
        Got::NoResponse(TransportError::Aborted) => (ErrorCode::Protocol, "no response: aborted".owned(), String::new()),
        Got::NoResponse(TransportError::Refused(e)) => (ErrorCode::Protocol, format!("no response: {}", e.message), String::new()),
    };
    let e = Error::new(code, format!("{what} ({failed} attempts in a row, the last got {got}){hint}"));
    match last {
        Got::Status(s) => e.with_detail("status", *s),
        Got::NoResponse(_) => e,
    }
}

/// Whether an event id can be sent back in `Last-Event-ID`: printable ASCII without a space at
/// either end (fetch throws on a header value of other characters, or sends other bytes than the
/// server's, and trims spaces), or empty (which clears the last id). Another is ignored, as an id
/// with NUL is: the stream resumes from the last id that can be sent back.
fn resumable_id(id: &str) -> bool {
    id.bytes().all(|b| (0x20..0x7f).contains(&b)) && !id.starts_with(' ') && !id.ends_with(' ')
}

/// How long after renewing a session for the standalone stream it may be renewed again without
/// the stream having brought a message on it.
const RENEW_AGAIN_MS: u64 = 30_000;

/// Most `input_required` results answered for one request.
const MAX_INPUT_ROUNDS: u32 = 16;

/// What keeps a task (a `CreateTaskResult`'s `task`, a `tasks/get` result) from being an MCP
/// `Task`, as far as the client follows it: an object whose `status` is one of
/// [`TASK_STATUSES`] (the MCP SDK's `GetTaskResultSchema` refuses the others as well).
fn task_problem(task: &Value) -> Option<String> {
    let Value::Object(t) = task else { return Some(format!("it is {}, not an object", crate::model::json_type(task))) };
    match t.get("status") {
        None => Some("it has no status".owned()),
        Some(Value::String(s)) if TASK_STATUSES.contains(&s.as_str()) => None,
        Some(s) => Some(format!("its status {} is not one of {}", crate::text::server_value(s), TASK_STATUSES.join(", "))),
    }
}

/// A MCP `Task`'s `status` values (2025-11-25).
const TASK_STATUSES: [&str; 5] = ["working", "input_required", "completed", "failed", "cancelled"];

/// Where a result's `structuredContent` breaks a tool's `outputSchema` (none without a schema; a
/// result without `structuredContent` breaks any).
fn output_violations(schema: Option<&Value>, result: &Value) -> Vec<crate::schema::validate::Violation> {
    match (schema, result.get("structuredContent")) {
        (None, _) => Vec::new(),
        (Some(_), None) => vec![crate::schema::validate::Violation { path: String::new(), message: "no structuredContent".owned() }],
        (Some(schema), Some(content)) => crate::schema::validate::validate(schema, content),
    }
}

/// What keeps a `tools/call` result from being a `CallToolResult`, as every revision has one: an
/// object whose `content`, when it has one, is an array of content blocks: objects with a string
/// `type`, those of a type MCP defines with the string fields it requires (a text block's `text`,
/// an image's or audio's `data` and `mimeType`, a resource link's `uri` and `name`, an embedded
/// resource's `resource` with a `uri` and a `text` or `blob`), as the MCP SDK's client requires
/// them and the package's types promise them. The rest is left to the revisions' leeway:
/// `content` may be missing (`{}`, a result with nothing to show, as the SDKs read it; a task's
/// creation), a block of a type MCP does not define yet is kept, as are fields toolwire does not
/// know and image data that is no base64 (a URL, said as such when flattened); `structuredContent`
/// may be any JSON value (2026-07-28).
fn call_result_problem(result: &Value) -> Option<String> {
    match result {
        Value::Object(o) => match o.get("content") {
            Some(Value::Array(blocks)) => blocks.iter().enumerate().find_map(|(i, b)| content_block_problem(b, true).map(|why| format!("content[{i}] {why}"))),
            Some(c) => Some(format!("its content is not an array of content blocks ({})", shown(c))),
            None => None,
        },
        Value::Null => Some("it is not an object (null)".owned()),
        other => Some(format!("it is not an object ({})", shown(other))),
    }
}

/// What keeps the request handler's answer to a server's `elicitation/create` or
/// `sampling/createMessage` from being an `ElicitResult` or a `CreateMessageResult`, as the MCP
/// SDK's client checks it (its schemas; the content of a form is not checked against the
/// request's `requestedSchema`, as it does not): the -32602 the server is answered with instead,
/// as it answers. An elicitation's `action` is accept, decline or cancel, its `content` (null
/// taken as absent) an object of strings, numbers, booleans and arrays of strings; a sampling's
/// `model` a string, `role` user or assistant, `content` a text, image or audio block (one of
/// them or an array of them, tool_use and tool_result too, when the request offered `tools`).
/// A task-augmented request's answer (`params.task`: a `CreateTaskResult`) is not checked.
pub(crate) fn invalid_answer(method: &str, params: &Value, result: &Value) -> Option<RpcError> {
    if params.get("task").is_some_and(Value::is_object) {
        return None;
    }
    let problem = match method {
        "elicitation/create" => elicit_result_problem(result).map(|p| format!("Invalid elicitation result: {p}")),
        "sampling/createMessage" => {
            let tools = params.get("tools").is_some_and(|t| !t.is_null()) || params.get("toolChoice").is_some_and(|t| !t.is_null());
            message_result_problem(result, tools).map(|p| format!("Invalid sampling result: {p}"))
        }
        _ => None,
    }?;
    Some(RpcError { code: -32602, message: problem, data: None })
}

fn elicit_result_problem(result: &Value) -> Option<String> {
    let action = result.get("action");
    if !action.and_then(Value::as_str).is_some_and(|a| matches!(a, "accept" | "decline" | "cancel")) {
        return Some(match action {
            None => "it has no action (accept, decline or cancel)".owned(),
            Some(a) => format!("its action is {}, not accept, decline or cancel", shown(a)),
        });
    }
    match result.get("content") {
        None | Some(Value::Null) => None,
        Some(Value::Object(content)) => content.iter().find_map(|(k, v)| {
            let fits = match v {
                Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
                Value::Array(items) => items.iter().all(Value::is_string),
                _ => false,
            };
            (!fits).then(|| format!("its content's {} is {}, where a value is a string, a number, a boolean or an array of strings", crate::text::quote(k), shown(v)))
        }),
        Some(c) => Some(format!("its content is {}, not an object", shown(c))),
    }
}

fn message_result_problem(result: &Value, tools: bool) -> Option<String> {
    if !result.get("model").is_some_and(Value::is_string) {
        return Some(format!("its model is {}, not a string", result.get("model").map_or("missing".owned(), shown)));
    }
    if !result.get("role").and_then(Value::as_str).is_some_and(|r| matches!(r, "user" | "assistant")) {
        return Some(format!("its role is {}, not user or assistant", result.get("role").map_or("missing".owned(), shown)));
    }
    // A block of a known type is told what it lacks; one of another type, which types it may be.
    let block = |b: &Value| -> Option<String> {
        let string = |k: &str| b.get(k).is_some_and(Value::is_string);
        let (kind, fits, needs) = match b.get("type").and_then(Value::as_str) {
            Some(kind @ "text") => (kind, string("text"), "a string `text`"),
            Some(kind @ ("image" | "audio")) => (kind, string("data") && string("mimeType"), "a string `data` and `mimeType`"),
            Some(kind @ "tool_use") if tools => {
                (kind, string("id") && string("name") && b.get("input").is_some_and(Value::is_object), "a string `id` and `name` and an object `input`")
            }
            // The SDK takes a `content` left out for [] (a null is refused, as it refuses one).
            Some(kind @ "tool_result") if tools => {
                (kind, string("toolUseId") && b.get("content").is_none_or(Value::is_array), "a string `toolUseId`, and a `content` that is an array if it has one")
            }
            _ => {
                let kinds = if tools { "text, image, audio, tool_use or tool_result" } else { "text, image or audio" };
                return Some(format!("its content {} is no {kinds} content block", shown(b)));
            }
        };
        (!fits).then(|| format!("its {kind} content block {} needs {needs}", shown(b)))
    };
    match result.get("content") {
        None => Some("it has no content".owned()),
        Some(Value::Array(blocks)) if tools => blocks.iter().find_map(block),
        Some(b) => block(b),
    }
}

/// A JSON value as an error message shows one from a server: its type and the start of its text.
fn shown(v: &Value) -> String {
    format!("{}: {}", crate::model::json_type(v), crate::text::excerpt(&crate::text::to_string(v), 100))
}

/// What keeps a result of `method` from being what [`Client::request_checked`] gives it as (the
/// package's `McpRequestResults`): the result type it is not, and why. Only what MCP's schema
/// and the official SDK's client refuse too: a result that is no object; a list, `contents`,
/// `messages` or `completion.values` missing or of the wrong type, or an entry of them that is no
/// object or lacks what each must have; a field the package types that is of another type (a
/// resource's `mimeType`, `size`; a `title`, `description`; a prompt's `arguments`; a message's
/// content block, as [`content_block_problem`] has it; a `blob` that is no base64, as the SDK
/// decodes it; `completion.total`, an integer, `hasMore`, a boolean; more than
/// [`MAX_COMPLETION_VALUES`] values); a `nextCursor` that is not a string (nor null). Fields past
/// these are the server's to add. `tools/call` is checked as [`Client::call_tool`] checks it,
/// other methods not at all.
fn request_result_problem(method: &str, result: &Value) -> Option<(&'static str, String)> {
    let (ty, key): (_, Option<&str>) = match method {
        "tools/list" => ("ListToolsResult", Some("tools")),
        "resources/list" => ("ListResourcesResult", Some("resources")),
        "resources/templates/list" => ("ListResourceTemplatesResult", Some("resourceTemplates")),
        "prompts/list" => ("ListPromptsResult", Some("prompts")),
        "resources/read" => ("ReadResourceResult", Some("contents")),
        "prompts/get" => ("GetPromptResult", Some("messages")),
        "completion/complete" => ("CompleteResult", None),
        "resources/subscribe" | "resources/unsubscribe" | "logging/setLevel" | "ping" => ("EmptyResult", None),
        _ => return None,
    };
    let Value::Object(o) = result else { return Some((ty, format!("it is not an object ({})", shown(result)))) };
    let has_string = |e: &Map<String, Value>, k: &str| e.get(k).is_some_and(Value::is_string);
    // What an entry of the array must have: the string fields of its type that MCP requires, and
    // its optional fields of the type the package gives them.
    let entry_problem = |e: &Map<String, Value>| -> Option<String> {
        let required = match method {
            "tools/list" | "prompts/list" if !has_string(e, "name") => Some("has no string `name`"),
            "resources/list" if !has_string(e, "uri") || !has_string(e, "name") => Some("has no string `uri` and `name`"),
            "resources/templates/list" if !has_string(e, "uriTemplate") || !has_string(e, "name") => Some("has no string `uriTemplate` and `name`"),
            "resources/read" if !has_string(e, "uri") => Some("has no string `uri`"),
            "resources/read" if !has_string(e, "text") && !has_string(e, "blob") => Some("has neither a string `text` nor a string `blob`"),
            "prompts/get" if !matches!(e.get("role").and_then(Value::as_str), Some("user" | "assistant")) => Some("has no `role` \"user\" or \"assistant\""),
            "prompts/get" if !e.get("content").is_some_and(Value::is_object) => Some("has no `content` object (a content block)"),
            _ => None,
        };
        if let Some(why) = required {
            return Some(why.owned());
        }
        match method {
            "resources/list" => fields_problem(e, &[("title", Kind::String), ("description", Kind::String), ("mimeType", Kind::String), ("size", Kind::Number)]),
            "resources/templates/list" => fields_problem(e, &[("title", Kind::String), ("description", Kind::String), ("mimeType", Kind::String)]),
            "resources/read" => resource_contents_problem(e),
            "prompts/list" => fields_problem(e, &[("title", Kind::String), ("description", Kind::String)]).or_else(|| match e.get("arguments") {
                None => None,
                Some(Value::Array(args)) => args.iter().enumerate().find_map(|(i, a)| match a {
                    Value::Object(a) if !has_string(a, "name") => Some(format!("has an `arguments[{i}]` without a string `name`")),
                    Value::Object(a) => fields_problem(a, &[("title", Kind::String), ("description", Kind::String), ("required", Kind::Boolean)])
                        .map(|why| format!("has an `arguments[{i}]` that {why}")),
                    other => Some(format!("has an `arguments[{i}]` that is not an object ({})", shown(other))),
                }),
                Some(other) => Some(format!("has `arguments` that are not an array ({})", shown(other))),
            }),
            "prompts/get" => content_block_problem(&e["content"], false),
            _ => None,
        }
    };
    let problem = match key {
        _ if o.get("nextCursor").is_some_and(|c| !c.is_string() && !c.is_null()) => Some(format!("its nextCursor is not a string ({})", shown(&o["nextCursor"]))),
        _ if method == "prompts/get" && o.get("description").is_some_and(|d| !d.is_string()) => Some(format!("its description is not a string ({})", shown(&o["description"]))),
        Some(key) => match o.get(key) {
            None => Some(format!("it has no `{key}` array")),
            Some(Value::Array(entries)) => entries.iter().enumerate().find_map(|(i, entry)| match entry {
                Value::Object(e) => entry_problem(e).map(|why| format!("`{key}[{i}]` {why}")),
                other => Some(format!("`{key}[{i}]` is not an object ({})", shown(other))),
            }),
            Some(other) => Some(format!("its `{key}` is not an array ({})", shown(other))),
        },
        None if method == "completion/complete" => match o.get("completion") {
            Some(Value::Object(c)) => match c.get("values") {
                Some(Value::Array(values)) if !values.iter().all(Value::is_string) => Some("its completion.values holds a value that is not a string".owned()),
                Some(Value::Array(values)) if values.len() > MAX_COMPLETION_VALUES => {
                    Some(format!("its completion.values holds {} values, more than the {MAX_COMPLETION_VALUES} MCP allows", values.len()))
                }
                Some(Value::Array(_)) => match (c.get("total"), c.get("hasMore")) {
                    (Some(t), _) if !is_integer(t) => Some(format!("its completion.total is not an integer ({})", shown(t))),
                    (_, Some(m)) if !m.is_boolean() => Some(format!("its completion.hasMore is not a boolean ({})", shown(m))),
                    _ => None,
                },
                _ => Some("its completion has no `values` array".owned()),
            },
            None => Some("it has no `completion` object".owned()),
            Some(other) => Some(format!("its completion is not an object ({})", shown(other))),
        },
        None => None,
    };
    problem.map(|p| (ty, p))
}

/// The most values a `completion/complete` result holds (MCP's schema; the SDK's client refuses more).
const MAX_COMPLETION_VALUES: usize = 100;

/// A JSON type an optional field must have ([`fields_problem`]).
#[derive(Clone, Copy)]
enum Kind {
    String,
    Number,
    Boolean,
}

/// The first of `fields` that `entry` has of another type (null too, as the SDK's schemas
/// refuse it): "has a `mimeType` that is not a string (number: 7)".
fn fields_problem(entry: &Map<String, Value>, fields: &[(&str, Kind)]) -> Option<String> {
    fields.iter().find_map(|&(name, kind)| {
        let v = entry.get(name)?;
        let (fits, what) = match kind {
            Kind::String => (v.is_string(), "a string"),
            Kind::Number => (v.is_number(), "a number"),
            Kind::Boolean => (v.is_boolean(), "a boolean"),
        };
        (!fits).then(|| format!("has a `{name}` that is not {what} ({})", shown(v)))
    })
}

/// A number with no fraction (JSON's `5.0` too, which JavaScript reads as 5).
fn is_integer(v: &Value) -> bool {
    v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// What keeps resource contents (a `resources/read` result's, an embedded resource's) from being
/// text or blob contents, past a string `uri` and a string `text` or `blob`: a `mimeType` that is
/// not a string, a `text` that is not one, a `blob` (of contents without a string `text`) that is
/// no base64 ([`is_base64`]).
fn resource_contents_problem(e: &Map<String, Value>) -> Option<String> {
    if let Some(why) = fields_problem(e, &[("mimeType", Kind::String), ("text", Kind::String), ("blob", Kind::String)]) {
        return Some(why);
    }
    match (e.get("text"), e.get("blob").and_then(Value::as_str)) {
        (None, Some(blob)) if !is_base64(blob) => Some(format!("has a `blob` that is not base64 ({})", shown(&e["blob"]))),
        _ => None,
    }
}

/// Whether `data` is base64 as `atob` decodes it (WHATWG's forgiving base64, which the SDK's
/// client checks `blob` and image data with): ASCII whitespace left out, at most two `=` at the
/// end of a length that is a multiple of 4, the standard alphabet, and no length of 4n + 1.
fn is_base64(data: &str) -> bool {
    let mut clean: Vec<u8> = data.bytes().filter(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')).collect();
    if clean.len() % 4 == 0 {
        for _ in 0..2 {
            if clean.last() == Some(&b'=') {
                clean.pop();
            }
        }
    }
    clean.len() % 4 != 1 && clean.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/'))
}

/// What keeps a prompt message's `content` from being a content block of MCP's (the package's
/// `McpContentBlock`, the SDK's `ContentBlockSchema`): `text` with a string `text`; `image` and
/// `audio` with base64 `data` and a string `mimeType`; `resource_link` with a string `uri` and
/// `name` (its `title`, `description`, `mimeType` strings, its `size` a number); `resource` with
/// a `resource` of text or blob contents ([`resource_contents_problem`]). Another `type` is none.
/// `of_call`: a block of a `tools/call` result ([`call_result_problem`]), which must be an object
/// with a string `type`, and is held only to the string fields its type requires: a type MCP does
/// not define yet is kept, as are image data that is no base64 (a URL) and optional fields.
fn content_block_problem(block: &Value, of_call: bool) -> Option<String> {
    let Value::Object(b) = block else { return of_call.then(|| format!("is not an object ({})", shown(block))) };
    let string = |k: &str| b.get(k).is_some_and(Value::is_string);
    let needs = match b.get("type").and_then(Value::as_str) {
        Some("text") => (!string("text")).then_some("a string `text`"),
        Some("image" | "audio") if !string("data") || !string("mimeType") => Some("a string `data` and `mimeType`"),
        Some(kind @ ("image" | "audio")) if !of_call => {
            return (!is_base64(b["data"].as_str().unwrap_or_default())).then(|| format!("has an {kind} content block whose `data` is not base64 ({})", shown(&b["data"])));
        }
        Some("resource_link") if !string("uri") || !string("name") => Some("a string `uri` and `name`"),
        Some("resource_link") if !of_call => {
            return fields_problem(b, &[("title", Kind::String), ("description", Kind::String), ("mimeType", Kind::String), ("size", Kind::Number)])
                .map(|why| format!("has a resource_link content block that {why}"));
        }
        Some("resource") => {
            return match b.get("resource") {
                Some(Value::Object(r)) if !r.get("uri").is_some_and(Value::is_string) => Some("has a resource content block whose `resource` has no string `uri`".owned()),
                Some(Value::Object(r)) if !r.get("text").is_some_and(Value::is_string) && !r.get("blob").is_some_and(Value::is_string) => {
                    Some("has a resource content block whose `resource` has neither a string `text` nor a string `blob`".owned())
                }
                Some(Value::Object(_)) if of_call => None,
                Some(Value::Object(r)) => resource_contents_problem(r).map(|why| format!("has a resource content block whose `resource` {why}")),
                _ => Some("has a resource content block without a `resource` object".owned()),
            };
        }
        Some("image" | "audio" | "resource_link") => None,
        Some(_) if of_call => None,
        None if of_call => Some("a string `type`"),
        _ => return Some(format!("has a content {} that is no text, image, audio, resource_link or resource block", shown(block))),
    };
    needs.map(|needs| format!("has a content block {} without {needs}", shown(block)))
}

/// What keeps a handshake's result (`initialize`'s, `server/discover`'s) from giving what
/// [`Client::server_info`] and [`Client::capabilities`] are: `serverInfo` an object with a string
/// `name` and `version` (MCP's `Implementation`; `server/discover` may leave it out), and
/// `capabilities` an object. A result without `capabilities` is kept, as it always was (its
/// server is then not taken at its word: [`Client::missing_capability`]).
fn handshake_problem(server_info: Option<&Value>, capabilities: Option<&Value>, info_required: bool) -> Option<String> {
    match server_info {
        None if info_required => return Some("it has no serverInfo (an object with a string name and version)".owned()),
        None => {}
        Some(Value::Object(i)) if i.get("name").is_some_and(Value::is_string) && i.get("version").is_some_and(Value::is_string) => {}
        Some(Value::Object(_)) => return Some("its serverInfo has no string name and version".owned()),
        Some(other) => return Some(format!("its serverInfo is not an object ({})", shown(other))),
    }
    match capabilities {
        Some(c) if !c.is_object() => Some(format!("its capabilities is not an object ({})", shown(c))),
        _ => None,
    }
}

/// Whether a server capability's value declares it: an object, as MCP's schema has every
/// capability, or `true`, taken as an empty object (the SDK's schema refuses a handshake with
/// `tools: true`; a server that writes it means it has tools). `false`, `null` or any other value
/// declares nothing, as a capability left out does.
fn declares(capability: &Value) -> bool {
    capability.is_object() || *capability == Value::Bool(true)
}

/// The JSON-RPC error code an error carries: a JSON-RPC error's, or one in an HTTP error's body.
fn rpc_code(e: &Error) -> Option<i64> {
    let d = e.details.as_ref()?;
    d.get("rpcCode").or_else(|| d.get("rpcError").and_then(|r| r.get("code"))).and_then(Value::as_i64)
}

/// A refusal of the version that names [`MODERN_PROTOCOL_VERSION`] among those supported (a
/// server may ask for the request once more that way).
fn names_modern(e: &Error) -> bool {
    e.details.as_ref().and_then(|d| d.get("supported")).and_then(Value::as_array).is_some_and(|v| v.iter().any(|v| v == MODERN_PROTOCOL_VERSION))
}

/// A refusal of the version whose `supported` names only revisions of 2025 (or 2024) that toolwire
/// speaks, not [`MODERN_PROTOCOL_VERSION`]: a server that speaks those alone.
fn names_legacy(e: &Error) -> bool {
    let supported = e.details.as_ref().and_then(|d| d.get("supported")).and_then(Value::as_array);
    supported.is_some_and(|v| !v.iter().any(|v| v == MODERN_PROTOCOL_VERSION) && v.iter().any(|v| v.as_str().is_some_and(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(&v))))
}

/// Whether a JSON-RPC error is the TypeScript SDK's 2025 transport refusing a 2026-07-28 request
/// before it ran (-32000, word for word): "Bad Request: Unsupported protocol version: 2026-07-28
/// (supported versions: ...)" from a stateless one, whose list (if given) names a 2025 revision
/// toolwire speaks and not 2026-07-28, as a -32022 would; "Bad Request: Server not initialized"
/// from a stateful one that no client initialized yet.
fn sdk_refuses_modern(e: &Error) -> bool {
    let message = e.details.as_ref().and_then(|d| d.get("rpcError")).and_then(|r| r.get("message")).and_then(Value::as_str).unwrap_or("").trim();
    if rpc_code(e) != Some(-32000) {
        return false;
    }
    if message.eq_ignore_ascii_case("Bad Request: Server not initialized") {
        return true;
    }
    let Some(refused) = message.strip_prefix("Bad Request: Unsupported protocol version: ") else { return false };
    match refused.split_once("(supported versions:") {
        Some((_, list)) => {
            let supported: Vec<&str> = list.trim_end_matches(')').split(',').map(str::trim).collect();
            !supported.contains(&MODERN_PROTOCOL_VERSION) && supported.iter().any(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(v))
        }
        None => true,
    }
}

/// Whether a JSON-RPC error's message is an MCP SDK's 2025 server's refusal of a request without
/// a session, word for word (TypeScript: "Bad Request: Mcp-Session-Id header is required", and
/// "Bad Request: No valid session ID provided" from the servers built on its examples; Python:
/// "Bad Request: Missing session ID"). Not any message with "session" in it
/// (`arguments.session_name must be a string`): that is the server's answer to the request.
fn asks_session(e: &Error) -> bool {
    let message = e.details.as_ref().and_then(|d| d.get("rpcError")).and_then(|r| r.get("message")).and_then(Value::as_str).unwrap_or("");
    ["Bad Request: Mcp-Session-Id header is required", "Bad Request: No valid session ID provided", "Bad Request: Missing session ID"]
        .iter()
        .any(|m| message.trim().eq_ignore_ascii_case(m))
}

/// Whether a call's outcome is the server's response to it: its result, or its JSON-RPC error.
fn answered(outcome: &Result<Value>) -> bool {
    outcome.as_ref().map_or_else(|e| e.code == ErrorCode::JsonRpcError, |_| true)
}

/// The `outcome` of reading a request's own stream or JSON body, or, when it is not the server's
/// response ([`answered`]), the response another stream has brought ([`Client::read_here`]).
fn or_routed(outcome: Result<Value>, routed: Option<&Awaited>, method: &str) -> Result<Value> {
    match routed.and_then(Awaited::take) {
        Some(r) if !answered(&outcome) => r.map_err(|e| rpc_to_error(e, method)),
        _ => outcome,
    }
}

/// A server's JSON-RPC error as the caller's: `JSONRPC_ERROR` with `rpcCode` and `data`, and the
/// error object whole in `rpcError`. The message quotes the server's message as a JSON string,
/// escaped and cut ([`crate::text::quote_at_most`]): it is the server's text, of any length, and
/// may hold what a terminal or a page would act on.
fn rpc_to_error(e: RpcError, method: &str) -> Error {
    let quoted = crate::text::quote_at_most(&e.message, crate::text::SERVER_QUOTE_CHARS);
    let mut err = Error::new(ErrorCode::JsonRpcError, format!("{method}: the server answered error {}: {quoted}", e.code)).with_detail("rpcCode", e.code);
    let mut raw = Map::new();
    raw.put("code", e.code.into());
    raw.put("message", e.message.into());
    if let Some(d) = e.data {
        err = err.with_detail("data", d.clone());
        raw.put("data", d);
    }
    err.with_detail("rpcError", Value::Object(raw))
}

/// A response to request `id` that JSON-RPC does not allow ([`Incoming::Malformed`]): `PROTOCOL`,
/// with a bad error object as it came in `invalidRpcError` (`rpcError` is always a well-formed one).
fn malformed_response(method: &str, id: &Id, problem: Malformed, error: Value) -> Error {
    let id = crate::text::to_string(&id.to_value());
    match problem {
        Malformed::NoOutcome => Error::new(ErrorCode::Protocol, format!("{method}: the server's response to request {id} has neither a result nor an error")),
        Malformed::BadError => {
            let quoted = crate::text::excerpt(&crate::text::to_string(&error), crate::text::SERVER_QUOTE_CHARS);
            Error::new(
                ErrorCode::Protocol,
                format!("{method}: the server answered with an error object JSON-RPC does not allow (its code must be an integer, its message a string): {quoted}"),
            )
            .with_detail("invalidRpcError", error)
        }
    }
}

/// Whether a refused request may be a CORS refusal: `false` where there is no such thing (Node,
/// Deno, Bun, workerd), said once by the JS layer, so the error there does not send the reader to
/// CORS.
pub(crate) static CORS_POSSIBLE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Why there was no HTTP response, for the runtime: with the CORS explanation in a browser.
fn no_response_hint() -> &'static str {
    if CORS_POSSIBLE.load(std::sync::atomic::Ordering::Relaxed) {
        CORS_HINT
    } else {
        "the server is unreachable: is it running, and are the URL's host and port right?"
    }
}

/// A response body that broke off: the server was reached and answered (its headers came), so
/// this is no unreachable server, whatever the runtime's words (a connection closed in the
/// middle of the body, a body that is not in the encoding its headers name). `NETWORK` all the
/// same: the request may be tried again.
fn body_error(e: TransportError, method: &str) -> Error {
    match e {
        TransportError::Network(detail) => {
            let why = if detail.is_empty() { String::new() } else { format!(" ({})", crate::text::excerpt(&detail, crate::text::SERVER_QUOTE_CHARS)) };
            let timer = if said_any(&detail, &["und_err_body_timeout", "body timeout error"]) { FETCH_TIMEOUT_HINT } else { "" };
            Error::new(ErrorCode::Network, format!("{method}: the connection dropped in the middle of the response{why}: the server answered, and its response broke off after its headers{timer}"))
                .with_detail("midResponse", true)
        }
        e => transport_error(e, method),
    }
}

/// Whether what fetch said of a request that got no response says the server closed a
/// connection it had accepted (Node's undici: "other side closed", "socket hang up",
/// `ECONNRESET`; Bun, Deno: a connection closed or reset before the response), rather than that
/// no connection was made (`ECONNREFUSED`, a name not found, a browser's "Failed to fetch").
fn lost_after_sending(detail: &str) -> bool {
    said_any(detail, &["other side closed", "socket hang up", "econnreset", "connection reset", "closed unexpectedly", "connection closed before message completed"])
}

/// Whether what fetch said of a request that got no response says a response came that it
/// would not read: Node's undici refuses headers that break HTTP/1.1 (a control byte in a value:
/// `HPE_INVALID_HEADER_TOKEN`, "Response does not match the HTTP/1.1 protocol") or that pass
/// its 16 KB (`UND_ERR_HEADERS_OVERFLOW`). The server read the request and answered.
fn unreadable_response(detail: &str) -> bool {
    said_any(detail, &["hpe_", "does not match the http/1.1 protocol", "und_err_headers_overflow", "headers overflow error", "und_err_res_"])
}

/// Whether what fetch said of a request that got no response is Node's undici giving up after its
/// own wait for the response's headers (`headersTimeout`, 300 s), whatever `timeoutMs` is.
fn fetch_timer_fired(detail: &str) -> bool {
    said_any(detail, &["und_err_headers_timeout", "headers timeout error"])
}

/// Whether `detail` holds one of `marks` (lowercase), whatever its case.
fn said_any(detail: &str, marks: &[&str]) -> bool {
    let detail = detail.to_ascii_lowercase();
    marks.iter().any(|m| detail.contains(m))
}

/// What a message adds when Node's fetch ended a request on its own timer, not `timeoutMs`.
const FETCH_TIMEOUT_HINT: &str = "; this is Node's fetch (undici) giving up on its own after 300 s without the response's headers (headersTimeout) or with its body silent (bodyTimeout), whatever timeoutMs says: to wait longer, give the client (options.fetch) the undici package's own fetch with an Agent whose headersTimeout and bodyTimeout are 0 as its dispatcher";

fn transport_error(e: TransportError, method: &str) -> Error {
    match e {
        TransportError::Aborted => Error::new(ErrorCode::Aborted, format!("{method} was aborted")),
        // The server was reached, and may have read the request and acted on it (a tool that ran,
        // then a server that died before its headers): never said to be unreachable, which
        // reads as "not delivered, safe to send again".
        TransportError::Network(detail) if lost_after_sending(&detail) => Error::new(
            ErrorCode::Network,
            format!("{method}: the connection was lost after the request was sent, before any response ({detail}): the server was reached, and may have received the request and acted on it"),
        )
        .with_detail("requestSent", true),
        TransportError::Network(detail) if fetch_timer_fired(&detail) => Error::new(
            ErrorCode::Network,
            format!("{method}: no response came before the fetch's own timeout ({detail}): the server was reached, and may have received the request and acted on it{FETCH_TIMEOUT_HINT}"),
        )
        .with_detail("requestSent", true),
        TransportError::Network(detail) if unreadable_response(&detail) => Error::new(
            ErrorCode::Network,
            format!("{method}: the server's response could not be read: fetch refused its headers ({detail}): the server was reached, and may have received the request and acted on it"),
        )
        .with_detail("requestSent", true),
        // The reason first: it is what tells an unreachable server from a refusal.
        TransportError::Network(detail) if detail.is_empty() => Error::new(ErrorCode::Network, format!("{method}: no HTTP response: {}", no_response_hint())),
        // A TLS record that is no TLS (OpenSSL's "wrong version number", Chromium's
        // ERR_SSL_PROTOCOL_ERROR): a server that speaks plain HTTP there, asked with https://.
        TransportError::Network(detail) if said_any(&detail, &["wrong version number", "err_ssl_protocol_error", "ssl_error_rx_record_too_long", "packet length too long"]) => Error::new(
            ErrorCode::Network,
            format!("{method}: no HTTP response ({}): the TLS handshake failed: a server that speaks plain HTTP on that port answers an https:// URL so; is it http://?", detail.split_whitespace().collect::<Vec<_>>().join(" ")),
        ),
        TransportError::Network(detail) => Error::new(ErrorCode::Network, format!("{method}: no HTTP response ({detail}); {}", no_response_hint())),
        TransportError::Refused(e) => Error { message: format!("{method}: {}", e.message), ..*e },
    }
}

/// The media-type essence of a Content-Type (`application/json; charset=utf-8` → `application/json`):
/// a MIME type as tool results compare them too ([`crate::results`]).
pub fn content_type_essence(ct: &str) -> String {
    crate::results::essence(ct)
}

/// What an error's message quotes of a response body: its first 200 characters, or, for an HTML
/// page (a web server's or a framework's error page), its text without the markup, on one line
/// (`Error Cannot POST /sse`, not a page of tags). `bodyPreview` keeps the body as it came.
fn quote_body(text: &str, html: bool) -> String {
    let start = text.trim_start().as_bytes();
    let opens = |tag: &[u8]| start.len() >= tag.len() && start[..tag.len()].eq_ignore_ascii_case(tag);
    if !(html || opens(b"<!doctype") || opens(b"<html")) {
        return text.chars().take(200).collect();
    }
    let mut words = String::new();
    let mut rest = text;
    while let Some(lt) = rest.find('<') {
        words.push_str(&rest[..lt]);
        words.push(' ');
        let tag = &rest[lt..];
        // A script's or a style sheet's content is no text to read.
        let skip_to = ["script", "style"].into_iter().find(|name| tag.get(1..=name.len()).is_some_and(|t| t.eq_ignore_ascii_case(name)));
        let end = match skip_to {
            Some(name) => tag.to_ascii_lowercase().find(&format!("</{name}")).and_then(|close| tag[close..].find('>').map(|gt| close + gt)),
            None => tag.find('>'),
        };
        let Some(end) = end else { rest = ""; break };
        rest = &tag[end + 1..];
    }
    words.push_str(rest);
    let words = words.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&nbsp;", " ").replace("&amp;", "&");
    words.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(200).collect()
}

/// A task's `pollInterval` in whole milliseconds: any non-negative number, as JSON has it (`3000`,
/// `3000.0`, `3e3`: encoders write a double so), rounded, as the MCP SDK reads it (a JS number);
/// `None` for another value (the default interval then).
fn poll_interval_ms(v: &Value) -> Option<u64> {
    // Past u64's range the cast saturates; the interval is clamped to 30 s after.
    v.as_u64().or_else(|| v.as_f64().filter(|f| f.is_finite() && *f >= 0.0).map(|f| f.round() as u64))
}

/// What a refusal of `initialize` that points to 2026-07-28 adds over the deprecated HTTP+SSE
/// transport: why `server/discover` is not tried.
fn no_modern_over_sse<T: Transport>(transport: &T) -> &'static str {
    if transport.mcp_transport() == Some(McpTransport::Sse) {
        "; 2026-07-28 has no HTTP+SSE transport, so it is not tried over the deprecated one this server speaks (give the URL of its Streamable HTTP endpoint, if it has one)"
    } else {
        ""
    }
}

fn preview(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(2048)];
    String::from_utf8_lossy(cut).into_owned()
}

/// Why a redirect of an MCP request is not followed: 301, 302 and 303 turn a POST into a GET;
/// 307 and 308 keep it, but to a URL the app did not give (its headers, a token among them, with it).
fn redirect_why(status: u16) -> &'static str {
    match status {
        301..=303 => "a POST would be resent as a GET",
        307 | 308 => "the request, its headers with it, would go to a URL the client was not given",
        // A browser's opaque redirect: which, it does not say.
        _ => "a POST would be resent as a GET, or, its headers with it, to a URL the client was not given",
    }
}

/// The error of a request refused (401, 403) once more after the unauthorized handler gave it new
/// headers: a 401 then says that the credentials just obtained were refused (not that the client
/// should be given some).
fn refused_again(mut e: Error, so_far: Reauthorizations) -> Error {
    let status = e.details.as_ref().and_then(|d| d.get("status")).and_then(Value::as_u64);
    if so_far.last.is_some() && e.code == ErrorCode::Unauthorized && status == Some(401) {
        if let Some((method, _)) = e.message.split_once(": HTTP 401 Unauthorized: ") {
            e.message = format!(
                "{method}: HTTP 401 Unauthorized: the server refused the credentials just obtained for it (the oauth option's new token, or the headers onUnauthorized gave)"
            );
        }
        e = e.with_detail("credentialsRefused", true);
    }
    e
}

/// What a 401 says after "Unauthorized: ", by what the request carried: with no Authorization
/// header, that the server wants one; with one (`sent`), or a challenge saying `invalid_token`
/// (RFC 6750 3.1: the token is expired, revoked, malformed or invalid), that the token was
/// refused, with the challenge's `error` and `error_description`: telling a user who gave a
/// token to give one would point the wrong way.
fn unauthorized_text(sent: bool, challenge: &Value) -> String {
    let error = challenge.get("error").and_then(Value::as_str).filter(|e| !e.is_empty());
    if !sent && error != Some("invalid_token") {
        return "Unauthorized: the server wants credentials (give a token in the client's headers option, {authorization: \"Bearer ...\"}, or sign in with its oauth option)".owned();
    }
    let description = challenge.get("error_description").and_then(Value::as_str).filter(|d| !d.is_empty());
    let why = match (error, description) {
        (Some(e), Some(d)) => format!(" ({}: {})", crate::text::excerpt(e, 100), crate::text::server_text(d)),
        (Some(e), None) => format!(" ({})", crate::text::excerpt(e, 100)),
        (None, Some(d)) => format!(" ({})", crate::text::server_text(d)),
        (None, None) => String::new(),
    };
    format!(
        "Unauthorized: the server refused the Authorization header sent{why}: give a valid token in the client's headers option, or sign in with its oauth option"
    )
}

/// What a 403's `WWW-Authenticate` asks for, to tell whether two refusals are the same
/// challenge: its `error` and its `scope` (each scope once, sorted), the rest (an
/// `error_description` with a request id, the order of the parameters) aside.
pub(crate) fn scope_challenge(header: &str) -> String {
    let parsed = parse_www_authenticate(header);
    let param = |name: &str| parsed.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
    let scope = param("scope");
    let mut scopes: Vec<&str> = scope.split_ascii_whitespace().collect();
    crate::model::heapsort(&mut scopes);
    scopes.dedup();
    format!("{}\n{}", param("error"), scopes.join(" "))
}

/// Whether a refusal is one the [`AuthHandler`] may answer: 401, or 403 with
/// `error="insufficient_scope"` (the token lacks scopes the request needs: a step-up).
fn asks_authorization<B>(resp: &HttpResponse<B>) -> bool {
    resp.status == 401
        || (resp.status == 403
            && resp.header("www-authenticate").is_some_and(|c| parse_www_authenticate(c).get("error").and_then(Value::as_str) == Some("insufficient_scope")))
}

/// Parses a `WWW-Authenticate` field into the challenge to answer: `{scheme, realm, error,
/// resource_metadata, ...}` (parameter names lowercased). The field may hold several challenges
/// (RFC 9110 11.6.1: `Basic realm="api", Bearer error="invalid_token"`, or several header lines,
/// which fetch joins with ", "): the `Bearer` one (its scheme compared without regard to case) is
/// the one given, wherever it sits, else the first; another challenge's parameters are never
/// mixed in. A `token68` (`Basic abc==`) is skipped.
pub fn parse_www_authenticate(header: &str) -> Value {
    let mut challenges: Vec<Map<String, Value>> = Vec::new();
    let bytes = header.as_bytes();
    let token_char = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    let space = |b: u8| b == b' ' || b == b'\t';
    let mut i = 0;
    // One list element at a time: `scheme`, `scheme token68`, `scheme name=value`, or `name=value`
    // (a parameter of the challenge before it).
    while i < bytes.len() {
        while i < bytes.len() && (bytes[i] == b',' || bytes[i].is_ascii_whitespace()) {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && token_char(bytes[i]) {
            i += 1;
        }
        let first = &header[start..i];
        if first.is_empty() {
            // Not a token: what is left of this element is skipped.
            i = skip_element(header, i);
            continue;
        }
        let mut j = i;
        while j < bytes.len() && space(bytes[j]) {
            j += 1;
        }
        // The parameter's name and where its `=` is.
        let (name, eq) = if bytes.get(j) == Some(&b'=') {
            // `name=value`: a parameter of the challenge before it (none before: dropped).
            (first, j)
        } else {
            let mut challenge = Map::new();
            challenge.put("scheme", string(first));
            challenges.push(challenge);
            i = j;
            let start = i;
            while i < bytes.len() && token_char(bytes[i]) {
                i += 1;
            }
            let second = &header[start..i];
            let mut j = i;
            while j < bytes.len() && space(bytes[j]) {
                j += 1;
            }
            // A parameter's `=` is followed by its value; a token68's by more `=` or its end.
            let mut k = j + 1;
            while k < bytes.len() && space(bytes[k]) {
                k += 1;
            }
            let param = !second.is_empty() && bytes.get(j) == Some(&b'=') && bytes.get(k).is_some_and(|&b| b == b'"' || token_char(b));
            if !param {
                i = skip_element(header, i);
                continue;
            }
            (second, j)
        };
        // Past the `=`: the value, a token or a quoted string.
        i = eq + 1;
        while i < bytes.len() && space(bytes[i]) {
            i += 1;
        }
        let value = if bytes.get(i) == Some(&b'"') {
            i += 1;
            let mut v = String::new();
            while i < bytes.len() && bytes[i] != b'"' {
                if bytes[i] == b'\\' && i + 1 < bytes.len() {
                    i += 1;
                }
                // Walk by characters so multi-byte text stays intact.
                let ch = header[i..].chars().next().unwrap_or('\u{fffd}');
                v.push(ch);
                i += ch.len_utf8();
            }
            i += 1;
            v
        } else {
            let s = i;
            while i < bytes.len() && bytes[i] != b',' {
                i += 1;
            }
            header[s..i].trim().owned()
        };
        i = skip_element(header, i);
        let key = name.to_ascii_lowercase();
        if let Some(challenge) = challenges.last_mut().filter(|_| key != "scheme") {
            challenge.insert(key, Value::String(value));
        }
    }
    let bearer = challenges.iter().position(|c| c.get("scheme").and_then(Value::as_str).is_some_and(|s| s.eq_ignore_ascii_case("bearer")));
    let mut chosen = match bearer {
        Some(n) => challenges.swap_remove(n),
        None if challenges.is_empty() => Map::new(),
        None => challenges.swap_remove(0),
    };
    if !chosen.contains_key("scheme") {
        // Nothing that reads as a challenge: its first word.
        let header = header.trim_start();
        chosen.put("scheme", string(&header[..header.find([' ', '\t', ',']).unwrap_or(header.len())]));
    }
    Value::Object(chosen)
}

/// Where the list element at `i` of a `WWW-Authenticate` field ends: its next comma outside a
/// quoted string (or the end).
fn skip_element(header: &str, mut i: usize) -> usize {
    let bytes = header.as_bytes();
    let mut quoted = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quoted => i += 1,
            b'"' => quoted = !quoted,
            b',' if !quoted => break,
            _ => {}
        }
        i += 1;
    }
    i
}

#[cfg(test)]
pub(crate) mod tests;
