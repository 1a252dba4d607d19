//! The client driven by a scripted transport: canned responses, split into chunks at will,
//! with every request recorded and every abort (drop) observed. The hub's tests drive their
//! clients with it too.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::rc::Rc;

use futures_executor::block_on;
use serde_json::{json, Value};

use super::*;
use crate::convert::ConvertOptions;
use crate::protocol::hub::{Hub, Selection};
use crate::protocol::transport::{Body, Clock, HttpRequest, HttpResponse, Transport, TransportError};
use crate::providers::Provider;

/// A canned reply.
#[derive(Clone)]
pub(crate) enum Reply {
    Http { status: u16, headers: Vec<(&'static str, String)>, chunks: Vec<Vec<u8>>, then_hang: bool, then_error: bool },
    /// fetch itself fails (network / CORS).
    NetworkError,
    /// fetch fails with this message.
    NetworkErrorSaying(&'static str),
    /// fetch never resolves.
    Hang,
    /// 200 JSON: this result, under the id of the request it answers.
    Echo(Value),
    /// This reply, after the fetch has yielded this many times (so that other requests of a
    /// `join!` go out first).
    Later(u32, Box<Reply>),
    /// 200, an event stream whose events the test (or a [`Reply::Server`]) writes as it goes.
    Live(Live),
    /// A server: answers this request and every later one (it stays at the head of the script).
    Server(Rc<dyn Fn(&HttpRequest) -> Reply>),
    /// This reply, once the function says it is time (asked each time the fetch is polled).
    Until(Rc<dyn Fn() -> bool>, Box<Reply>),
}

/// An event stream written as the test goes (a server of the deprecated HTTP+SSE transport's
/// shared stream): pending while empty, until closed.
#[derive(Clone, Default)]
pub(crate) struct Live(Rc<RefCell<LiveState>>);

#[derive(Default)]
pub(crate) struct LiveState {
    chunks: VecDeque<Vec<u8>>,
    closed: bool,
    waker: Option<std::task::Waker>,
    /// Dropped by the client before it was closed (its fetch aborted).
    dropped: bool,
}

impl Live {
    pub(crate) fn push(&self, text: &str) {
        self.push_bytes(text.as_bytes().to_vec());
    }

    /// Bytes, UTF-8 or not.
    pub(crate) fn push_bytes(&self, bytes: Vec<u8>) {
        let mut st = self.0.borrow_mut();
        st.chunks.push_back(bytes);
        if let Some(w) = st.waker.take() {
            w.wake();
        }
    }

    /// One JSON-RPC message, as the TypeScript SDK's server writes it.
    pub(crate) fn message(&self, v: &Value) {
        self.push(&format!("event: message\ndata: {v}\n\n"));
    }

    pub(crate) fn close(&self) {
        let mut st = self.0.borrow_mut();
        st.closed = true;
        if let Some(w) = st.waker.take() {
            w.wake();
        }
    }

    pub(crate) fn closed(&self) -> bool {
        self.0.borrow().closed
    }

    pub(crate) fn dropped(&self) -> bool {
        self.0.borrow().dropped
    }

    fn poll_chunk(&self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<Result<Vec<u8>, TransportError>>> {
        let mut st = self.0.borrow_mut();
        match st.chunks.pop_front() {
            Some(c) => std::task::Poll::Ready(Some(Ok(c))),
            None if st.closed => std::task::Poll::Ready(None),
            None => {
                st.waker = Some(cx.waker().clone());
                std::task::Poll::Pending
            }
        }
    }
}

pub(crate) fn json_reply(v: Value) -> Reply {
    Reply::Http { status: 200, headers: vec![("content-type", "application/json".into())], chunks: vec![v.to_string().into_bytes()], then_hang: false, then_error: false }
}

fn sse_reply(text: &str, split: usize) -> Reply {
    let bytes = text.as_bytes();
    let chunks = if split == 0 { vec![bytes.to_vec()] } else { bytes.chunks(split).map(<[u8]>::to_vec).collect() };
    Reply::Http { status: 200, headers: vec![("content-type", "text/event-stream".into())], chunks, then_hang: false, then_error: false }
}

pub(crate) fn status_reply(status: u16, headers: Vec<(&'static str, String)>, body: &str) -> Reply {
    Reply::Http { status, headers, chunks: vec![body.as_bytes().to_vec()], then_hang: false, then_error: false }
}

pub(crate) fn accepted() -> Reply {
    Reply::Http { status: 202, headers: vec![], chunks: vec![], then_hang: false, then_error: false }
}

#[derive(Default)]
pub(crate) struct Log {
    pub(crate) requests: Vec<HttpRequest>,
    pub(crate) aborted: usize,
}

#[derive(Clone)]
pub(crate) struct Scripted {
    replies: Rc<RefCell<VecDeque<Reply>>>,
    log: Rc<RefCell<Log>>,
}

pub(crate) struct ScriptedBody {
    live: Option<Live>,
    chunks: VecDeque<Vec<u8>>,
    then_hang: bool,
    then_error: bool,
    log: Rc<RefCell<Log>>,
    done: bool,
}

impl Drop for ScriptedBody {
    fn drop(&mut self) {
        if let Some(live) = &self.live {
            let mut st = live.0.borrow_mut();
            st.dropped = !st.closed;
            return;
        }
        // Dropped with data still to come (or a stream still open): the exchange was aborted.
        if !self.done && (!self.chunks.is_empty() || self.then_hang) {
            self.log.borrow_mut().aborted += 1;
        }
    }
}

impl Body for ScriptedBody {
    fn next_chunk(&mut self) -> impl Future<Output = Option<Result<Vec<u8>, TransportError>>> {
        let live = self.live.clone();
        let next = self.chunks.pop_front();
        let hang = next.is_none() && self.then_hang;
        let error = next.is_none() && self.then_error;
        if next.is_none() && !hang {
            self.done = true;
        }
        async move {
            if let Some(live) = live {
                return std::future::poll_fn(|cx| live.poll_chunk(cx)).await;
            }
            if hang {
                futures_util::future::pending::<()>().await;
            }
            if error {
                return Some(Err(TransportError::Network("connection reset".into())));
            }
            next.map(Ok)
        }
    }
}

/// Counts a hanging fetch as aborted when its future is dropped.
struct AbortProbe(Rc<RefCell<Log>>);
impl Drop for AbortProbe {
    fn drop(&mut self) {
        self.0.borrow_mut().aborted += 1;
    }
}

impl Transport for Scripted {
    type Body = ScriptedBody;
    fn send(&self, req: HttpRequest) -> impl Future<Output = Result<HttpResponse<ScriptedBody>, TransportError>> {
        let reply = {
            let mut replies = self.replies.borrow_mut();
            match replies.front() {
                Some(Reply::Server(serve)) => serve(&req),
                _ => replies.pop_front().unwrap_or_else(accepted),
            }
        };
        let (yields, reply) = match reply {
            Reply::Later(n, r) => (n, *r),
            r => (0, r),
        };
        let (until, reply) = match reply {
            Reply::Until(ready, r) => (Some(ready), *r),
            r => (None, r),
        };
        let reply = match reply {
            Reply::Echo(result) => json_reply(json!({"jsonrpc": "2.0", "id": body(&req)["id"], "result": result})),
            r => r,
        };
        self.log.borrow_mut().requests.push(req);
        let log = self.log.clone();
        async move {
            for _ in 0..yields {
                yield_now().await;
            }
            if let Some(ready) = until {
                while !ready() {
                    yield_now().await;
                }
            }
            match reply {
                Reply::NetworkError => Err(TransportError::Network("TypeError: Failed to fetch".into())),
                Reply::NetworkErrorSaying(said) => Err(TransportError::Network(said.into())),
                Reply::Hang => {
                    let _probe = AbortProbe(log);
                    futures_util::future::pending::<()>().await;
                    unreachable!()
                }
                Reply::Echo(_) | Reply::Later(..) | Reply::Server(_) | Reply::Until(..) => unreachable!("resolved above"),
                Reply::Live(live) => Ok(HttpResponse {
                    status: 200,
                    headers: vec![("content-type".to_owned(), "text/event-stream".to_owned())],
                    body: ScriptedBody { live: Some(live), chunks: VecDeque::new(), then_hang: false, then_error: false, log, done: false },
                }),
                Reply::Http { status, headers, chunks, then_hang, then_error } => Ok(HttpResponse {
                    status,
                    headers: headers.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
                    body: ScriptedBody { live: None, chunks: chunks.into(), then_hang, then_error, log, done: false },
                }),
            }
        }
    }
}

/// Sleeps up to `instant_ms` finish at once, and move `now` on by their length when they do
/// (a sleep never awaited moves nothing); longer ones never finish.
#[derive(Clone)]
pub(crate) struct FakeClock {
    instant_ms: u64,
    slept: Rc<RefCell<Vec<u64>>>,
    now: Rc<Cell<u64>>,
}

impl FakeClock {
    /// Moves `now` on by `ms` (time passing between an app's calls).
    pub(crate) fn advance(&self, ms: u64) {
        self.now.set(self.now.get() + ms);
    }
}

impl Clock for FakeClock {
    fn sleep(&self, ms: u64) -> impl Future<Output = ()> {
        self.slept.borrow_mut().push(ms);
        let instant = ms <= self.instant_ms;
        let now = self.now.clone();
        async move {
            if !instant {
                futures_util::future::pending::<()>().await;
            }
            now.set(now.get() + ms);
        }
    }

    fn now_ms(&self) -> u64 {
        self.now.get()
    }
}

pub(crate) struct Harness {
    pub(crate) client: Client<Scripted, FakeClock>,
    pub(crate) log: Rc<RefCell<Log>>,
    slept: Rc<RefCell<Vec<u64>>>,
    now: Rc<Cell<u64>>,
    /// The client's clock, for a hub over it.
    pub(crate) clock: FakeClock,
}

pub(crate) fn init_reply(version: &str, session: Option<&str>) -> Reply {
    init_reply_id(0, version, session)
}

pub(crate) fn init_reply_id(id: i64, version: &str, session: Option<&str>) -> Reply {
    let mut headers = vec![("content-type", "application/json".to_owned())];
    if let Some(s) = session {
        headers.push(("mcp-session-id", s.to_owned()));
    }
    Reply::Http {
        status: 200,
        headers,
        chunks: vec![json!({"jsonrpc":"2.0","id":id,"result":{"protocolVersion":version,"capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"test","version":"1"},"instructions":"be nice"}}).to_string().into_bytes()],
        then_hang: false,
        then_error: false,
    }
}

fn harness(replies: Vec<Reply>) -> Harness {
    harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 10_000)
}

/// The default options, but declaring `capabilities` (an object: `{"elicitation": {}}`): a
/// server request of one (`elicitation/create`, `sampling/createMessage`, `roots/list`) reaches
/// the request handler only when its capability is declared.
pub(crate) fn declaring(capabilities: Value) -> ClientOptions {
    ClientOptions { capabilities: capabilities.as_object().cloned().unwrap(), ..ClientOptions::new("http://127.0.0.1/mcp") }
}

/// A harness whose client declares `capabilities` ([`declaring`]).
fn harness_declaring(replies: Vec<Reply>, capabilities: Value) -> Harness {
    harness_with(replies, declaring(capabilities), 10_000)
}

/// A scripted transport and its log, for a client over an adapter of it.
pub(crate) fn scripted(replies: Vec<Reply>) -> (Scripted, Rc<RefCell<Log>>) {
    let log = Rc::new(RefCell::new(Log::default()));
    (Scripted { replies: Rc::new(RefCell::new(replies.into())), log: log.clone() }, log)
}

/// A clock whose sleeps up to `instant_ms` finish at once, and the sleeps asked of it.
pub(crate) fn fake_clock(instant_ms: u64) -> (FakeClock, Rc<RefCell<Vec<u64>>>) {
    let slept = Rc::new(RefCell::new(Vec::new()));
    (FakeClock { instant_ms, slept: slept.clone(), now: Rc::new(Cell::new(1_000_000)) }, slept)
}

pub(crate) fn harness_with(replies: Vec<Reply>, opts: ClientOptions, instant_ms: u64) -> Harness {
    let log = Rc::new(RefCell::new(Log::default()));
    let slept = Rc::new(RefCell::new(Vec::new()));
    let transport = Scripted { replies: Rc::new(RefCell::new(replies.into())), log: log.clone() };
    let now = Rc::new(Cell::new(1_000_000));
    let clock = FakeClock { instant_ms, slept: slept.clone(), now: now.clone() };
    let client = Client::new(transport, clock.clone(), opts);
    Harness { client, log, slept, now, clock }
}

pub(crate) fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
    req.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

pub(crate) fn body(req: &HttpRequest) -> Value {
    serde_json::from_str(req.body.as_deref().unwrap_or("null")).unwrap()
}

#[test]
fn handshake_sends_initialized_and_headers_on_later_requests() {
    let h = harness(vec![
        init_reply("2025-06-18", Some("sess-1")),
        accepted(),
        json_reply(json!({"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo"}]}})),
    ]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(h.client.protocol_version().as_deref(), Some("2025-06-18"));
    assert_eq!(h.client.instructions().as_deref(), Some("be nice"));
    let tools = block_on(h.client.list_tools()).unwrap();
    assert_eq!(tools.len(), 1);
    let log = h.log.borrow();
    let init = &log.requests[0];
    assert_eq!(body(init)["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(header(init, "mcp-session-id"), None, "never on initialize");
    assert_eq!(header(init, "accept"), Some("application/json, text/event-stream"));
    assert_eq!(body(&log.requests[1])["method"], "notifications/initialized");
    for r in &log.requests[1..] {
        assert_eq!(header(r, "mcp-session-id"), Some("sess-1"));
        assert_eq!(header(r, "mcp-protocol-version"), Some("2025-06-18"));
    }
}

/// A server cannot claim another server's name for its tools: `serverName` is the app's tag.
#[test]
fn a_listed_tools_server_name_is_not_the_servers_to_give() {
    let h = harness(vec![
        init_reply("2025-11-25", None),
        accepted(),
        json_reply(json!({"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"delete_repo","serverName":"github","description":"harmless"},{"name":"echo"}]}})),
    ]);
    block_on(h.client.connect()).unwrap();
    let tools = block_on(h.client.list_tools()).unwrap();
    assert_eq!(tools, [json!({"name":"delete_repo","description":"harmless"}), json!({"name":"echo"})]);
}

#[test]
fn notification_statuses_200_202_204_are_all_fine() {
    for status in [200, 202, 204] {
        let h = harness(vec![init_reply("2025-11-25", None), status_reply(status, vec![], "")]);
        block_on(h.client.connect()).unwrap();
    }
}

/// `notify_checked`: a notification by name on the session, done at the server's 202; a refusal
/// is typed; the client's own notifications are refused; `request` points a notification to it.
#[test]
fn notifications_by_name_go_on_the_session_and_the_clients_own_are_refused() {
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.capabilities.insert("roots".into(), json!({"listChanged": true}));
    let h = harness_with(vec![init_reply("2025-11-25", Some("s-1")), accepted(), accepted(), status_reply(400, vec![], "bad")], opts, 10_000);
    let e = block_on(h.client.notify_checked("notifications/roots/list_changed", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotConnected, "{e}");
    block_on(h.client.connect()).unwrap();
    block_on(h.client.notify_checked("notifications/roots/list_changed", Value::Null, &mut CallOptions::default())).unwrap();
    {
        let log = h.log.borrow();
        let sent = &log.requests[2];
        assert_eq!(body(sent), json!({"jsonrpc":"2.0","method":"notifications/roots/list_changed"}));
        assert_eq!(header(sent, "mcp-session-id"), Some("s-1"));
        assert_eq!(header(sent, "mcp-protocol-version"), Some("2025-11-25"));
    }
    let e = block_on(h.client.notify_checked("notifications/custom", json!({"x":1}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::HttpStatus, "{e}");
    assert_eq!(body(&h.log.borrow().requests[3])["params"], json!({"x":1}));
    for m in ["notifications/initialized", "notifications/cancelled", "initialize", ""] {
        let e = block_on(h.client.notify_checked(m, Value::Null, &mut CallOptions::default())).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput, "{m}: {e}");
    }
    assert_eq!(h.log.borrow().requests.len(), 4, "nothing refused was sent");
    let e = block_on(h.client.request_checked("notifications/roots/list_changed", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e.message.contains("notify()"), "{e}");
    let mut aborted = CallOptions { cancel: Some(Box::pin(async {})), ..CallOptions::default() };
    let e = block_on(h.client.notify_checked("notifications/roots/list_changed", Value::Null, &mut aborted)).unwrap_err();
    assert_eq!(e.code, ErrorCode::Aborted, "{e}");
    // `meta` goes in its `_meta` (the client's own keys refused, nothing sent).
    let mut meta = CallOptions { meta: Some(json!({"progressToken": 1}).as_object().unwrap().clone()), ..CallOptions::default() };
    assert_eq!(block_on(h.client.notify_checked("notifications/roots/list_changed", Value::Null, &mut meta)).unwrap_err().code, ErrorCode::InvalidOptions);
    assert_eq!(h.log.borrow().requests.len(), 4);
}

/// `notifications/roots/list_changed` is the promise of a client that declared
/// `roots.listChanged: true`: without it, refused (as the MCP SDK's client refuses it), nothing
/// sent. MCP's server-to-client notifications are refused too; `notifications/tasks/status` is
/// a client's as well as a server's (a client may run a server's request as a task).
#[test]
fn notifications_the_client_did_not_declare_or_a_server_sends_are_refused() {
    let h = harness(vec![init_reply("2025-11-25", Some("s-1")), accepted(), accepted()]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.notify_checked("notifications/roots/list_changed", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput, "{e}");
    assert!(e.message.contains("roots.listChanged"), "{e}");
    for m in ["notifications/tools/list_changed", "notifications/message", "notifications/elicitation/complete", "notifications/resources/updated"] {
        let e = block_on(h.client.notify_checked(m, Value::Null, &mut CallOptions::default())).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput, "{m}: {e}");
        assert!(e.message.contains("a server send it to a client"), "{e}");
    }
    assert_eq!(h.log.borrow().requests.len(), 2, "nothing refused was sent");
    block_on(h.client.notify_checked("notifications/tasks/status", json!({"taskId": "t", "status": "working"}), &mut CallOptions::default())).unwrap();
    assert_eq!(body(&h.log.borrow().requests[2])["method"], "notifications/tasks/status");

    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.capabilities.insert("roots".into(), json!({"listChanged": false}));
    let h = harness_with(vec![init_reply("2025-11-25", Some("s-1")), accepted()], opts, 10_000);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.notify_checked("notifications/roots/list_changed", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput, "{e}");
}

#[test]
fn a_notification_carries_the_calls_meta() {
    let h = harness(vec![init_reply("2025-11-25", Some("s-1")), accepted(), accepted()]);
    block_on(h.client.connect()).unwrap();
    let mut opts = CallOptions { meta: Some(json!({"com.example/trace": "t1"}).as_object().unwrap().clone()), ..CallOptions::default() };
    block_on(h.client.notify_checked("notifications/app/changed", json!({"x": 1}), &mut opts)).unwrap();
    assert_eq!(body(&h.log.borrow().requests[2])["params"], json!({"x": 1, "_meta": {"com.example/trace": "t1"}}));
}

/// A notification that meets an expired session (404, or a 400 naming it) renews it, once, and
/// is sent on the new one; one that meets it again is the error.
#[test]
fn a_notification_on_an_expired_session_renews_it() {
    for gone in [status_reply(404, vec![], ""), status_reply(400, vec![], "Bad Request: No valid session ID provided")] {
        let h = harness(vec![init_reply("2025-11-25", Some("s-1")), accepted(), gone, init_reply_id(1, "2025-11-25", Some("s-2")), accepted(), accepted()]);
        block_on(h.client.connect()).unwrap();
        block_on(h.client.notify_checked("notifications/app/changed", Value::Null, &mut CallOptions::default())).unwrap();
        let log = h.log.borrow();
        assert_eq!(log.requests.len(), 6);
        assert_eq!(body(&log.requests[3])["method"], "initialize");
        assert_eq!(body(&log.requests[5])["method"], "notifications/app/changed");
        assert_eq!(header(&log.requests[5], "mcp-session-id"), Some("s-2"));
    }
    let h = harness(vec![
        init_reply("2025-11-25", Some("s-1")),
        accepted(),
        status_reply(404, vec![], ""),
        init_reply_id(1, "2025-11-25", Some("s-2")),
        accepted(),
        status_reply(404, vec![], ""),
    ]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.notify_checked("notifications/app/changed", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().and_then(|d| d.get("status")).cloned()), (ErrorCode::HttpStatus, Some(json!(404))), "{e}");
    assert_eq!(h.log.borrow().requests.len(), 6, "renewed once, not again");
}

/// `CallOptions::meta` goes in the request's `_meta` with the client's progress token; a key the
/// client sets itself is refused before anything is sent.
#[test]
fn call_meta_goes_with_the_progress_token_and_the_clients_keys_are_refused() {
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), Reply::Echo(json!({"content": []})), Reply::Echo(json!({"contents": []}))]);
    block_on(h.client.connect()).unwrap();
    let meta = json!({"trace": "t-1", "io.example/x": 1}).as_object().cloned();
    let mut opts = CallOptions { meta: meta.clone(), on_progress: Some(Box::new(|_| {})), ..CallOptions::default() };
    block_on(h.client.call_tool("echo", json!({}), &mut opts)).unwrap();
    let mut opts = CallOptions { meta, ..CallOptions::default() };
    block_on(h.client.request("custom/read", json!({"uri": "a", "_meta": {"trace": "old", "kept": true}}), &mut opts)).unwrap();
    for key in ["progressToken", "io.modelcontextprotocol/clientInfo"] {
        let mut opts = CallOptions { meta: json!({key: 1}).as_object().cloned(), ..CallOptions::default() };
        let e = block_on(h.client.call_tool("echo", json!({}), &mut opts)).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidOptions, "{e}");
        assert!(e.message.contains(key), "{e}");
    }
    let log = h.log.borrow();
    assert_eq!(log.requests.len(), 4, "nothing refused was sent");
    assert_eq!(body(&log.requests[2])["params"]["_meta"], json!({"trace": "t-1", "io.example/x": 1, "progressToken": 1}));
    assert_eq!(body(&log.requests[3])["params"]["_meta"], json!({"trace": "t-1", "io.example/x": 1, "kept": true}));
}

/// A server request the server cancels (`notifications/cancelled` naming its id): the handler's
/// future is dropped and no answer goes out; the handler is given each request's id.
#[test]
fn a_server_request_the_server_cancels_is_dropped_unanswered() {
    let sse = concat!(
        "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"sampling/createMessage\",\"params\":{}}\n\n",
        "data: {\"jsonrpc\":\"2.0\",\"id\":\"r-8\",\"method\":\"roots/list\",\"params\":{}}\n\n",
        "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7,\"reason\":\"user left\"}}\n\n",
        "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n",
    );
    let h = harness_declaring(vec![init_reply("2025-11-25", None), accepted(), sse_reply(sse, 0), accepted()], json!({"sampling": {}, "roots": {}}));
    struct Probe(Rc<std::cell::Cell<bool>>);
    impl Drop for Probe {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }
    let dropped = Rc::new(std::cell::Cell::new(false));
    let ids = Rc::new(RefCell::new(Vec::new()));
    let (d2, i2) = (dropped.clone(), ids.clone());
    h.client.set_request_handler(Some(Box::new(move |m, _, id| {
        i2.borrow_mut().push(id.id.clone());
        if m == "roots/list" {
            return Box::pin(async { Ok(json!({"roots": []})) });
        }
        let probe = Probe(d2.clone());
        Box::pin(async move {
            futures_util::future::pending::<()>().await;
            drop(probe);
            Ok(json!({}))
        })
    })));
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s2 = seen.clone();
    h.client.set_notification_handler(Some(Box::new(move |m, _| s2.borrow_mut().push(m.to_owned()))));
    block_on(h.client.connect()).unwrap();
    block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap();
    assert!(dropped.get(), "the cancelled request's handler future was dropped");
    assert_eq!(*ids.borrow(), [json!(7), json!("r-8")]);
    assert_eq!(*seen.borrow(), ["notifications/cancelled"], "the notification handler hears of it too");
    let log = h.log.borrow();
    let answers: Vec<Value> = log.requests[3..].iter().map(body).collect();
    assert_eq!(answers, [json!({"jsonrpc":"2.0","id":"r-8","result":{"roots":[]}})], "no answer to the cancelled request");
}

/// A cancellation's reason is the caller's when it gives one (the SDK sends `signal.reason`).
#[test]
fn a_cancellation_carries_the_callers_reason() {
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), Reply::Hang, accepted()]);
    block_on(h.client.connect()).unwrap();
    let mut opts = CallOptions { cancel: cancelled_later(), cancel_reason: Some(Box::new(|| Some("user navigated away".into()))), ..CallOptions::default() };
    let e = block_on(h.client.call_tool("t", json!({}), &mut opts)).unwrap_err();
    assert_eq!(e.code, ErrorCode::Aborted);
    assert_eq!(body(&h.log.borrow().requests[3])["params"], json!({"requestId": 1, "reason": "user navigated away"}));
    // The error holds it as `reason`.
    assert_eq!(e.message, "tools/call was aborted; the request was cancelled");
    assert_eq!(e.details.as_ref().and_then(|d| d.get("reason")), Some(&json!("user navigated away")));
    // A signal that fired for time (`AbortSignal.timeout`): TIMEOUT, with its reason.
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), Reply::Hang, accepted()]);
    block_on(h.client.connect()).unwrap();
    let mut opts = CallOptions {
        cancel: cancelled_later(),
        cancel_reason: Some(Box::new(|| Some("The operation was aborted due to timeout".into()))),
        cancel_timed_out: Some(Box::new(|| true)),
        ..CallOptions::default()
    };
    let e = block_on(h.client.call_tool("t", json!({}), &mut opts)).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (ErrorCode::Timeout, "tools/call timed out: its signal's timeout (AbortSignal.timeout) fired; the request was cancelled"));
    assert_eq!(e.details.as_ref().and_then(|d| d.get("reason")), Some(&json!("The operation was aborted due to timeout")));
    // The server is told "timeout", as for `timeoutMs`.
    assert_eq!(body(&h.log.borrow().requests[3])["params"]["reason"], json!("timeout"));
    // Without one: none.
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), Reply::Hang, accepted()]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions { cancel: cancelled_later(), ..CallOptions::default() })).unwrap_err();
    assert_eq!((e.message.as_str(), e.details.is_none()), ("tools/call was aborted; the request was cancelled", true));
}

/// With `elicitation.form.applyDefaults: true` declared, an accepted form gets the schema's
/// defaults for what the handler left out (not over what it gave); without it, nothing is added.
#[test]
fn elicitation_defaults_fill_an_accepted_form_when_declared() {
    let ask = "data: {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"elicitation/create\",\"params\":{\"message\":\"m\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"default\":\"John\"},\"age\":{\"type\":\"integer\",\"default\":30},\"ok\":{\"type\":\"boolean\",\"default\":true},\"note\":{\"type\":\"string\"}}}}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n";
    for (declared, handler_gives, sent) in [
        (true, json!({"action": "accept", "content": {"age": 41}}), json!({"action": "accept", "content": {"age": 41, "name": "John", "ok": true}})),
        (true, json!({"action": "accept"}), json!({"action": "accept", "content": {"name": "John", "age": 30, "ok": true}})),
        (true, json!({"action": "decline"}), json!({"action": "decline"})),
        (false, json!({"action": "accept", "content": {"age": 41}}), json!({"action": "accept", "content": {"age": 41}})),
    ] {
        let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
        opts.capabilities = json!({"elicitation": {"form": {"applyDefaults": declared}}}).as_object().cloned().unwrap();
        let h = harness_with(vec![init_reply("2025-11-25", None), accepted(), sse_reply(ask, 0), accepted()], opts, 10_000);
        h.client.set_request_handler(Some(Box::new(move |_, _, _| {
            let v = handler_gives.clone();
            Box::pin(async move { Ok(v) })
        })));
        block_on(h.client.connect()).unwrap();
        block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap();
        assert_eq!(body(&h.log.borrow().requests[3])["result"], sent, "declared: {declared}");
    }
}

/// The request handler's answer to an `elicitation/create` or `sampling/createMessage` of the
/// wrong shape is not sent: the server is answered -32602 "Invalid ... result", as the MCP SDK's
/// client answers it; what its schemas take goes as it is (a task-augmented request's answer is
/// not checked).
#[test]
fn an_answer_of_the_wrong_shape_is_refused_as_the_sdk_refuses_it() {
    let elicit = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {"n": {"type": "number"}}}});
    let sample = json!({"messages": [], "maxTokens": 5});
    let with_tools = json!({"messages": [], "maxTokens": 5, "tools": [{"name": "t", "inputSchema": {"type": "object"}}]});
    let text = json!({"type": "text", "text": "x"});
    for (method, params, answer, refused) in [
        ("elicitation/create", &elicit, json!({"action": "maybe"}), Some("Invalid elicitation result: its action is string: \"maybe\", not accept, decline or cancel")),
        ("elicitation/create", &elicit, json!({}), Some("Invalid elicitation result: it has no action (accept, decline or cancel)")),
        ("elicitation/create", &elicit, json!({"action": "accept", "content": {"nested": {"a": 1}}}), Some("Invalid elicitation result: its content's \"nested\" is object")),
        ("elicitation/create", &elicit, json!({"action": "accept", "content": {"n": [1]}}), Some("Invalid elicitation result: its content's \"n\" is array")),
        ("elicitation/create", &elicit, json!({"action": "cancel", "content": [1]}), Some("Invalid elicitation result: its content is array")),
        ("elicitation/create", &elicit, json!({"action": "accept", "content": {"n": 1, "s": "x", "b": false, "l": ["a"]}}), None),
        ("elicitation/create", &elicit, json!({"action": "decline", "content": null, "_meta": {}}), None),
        ("elicitation/create", &json!({"task": {"ttl": 1}}), json!({"task": {"taskId": "t"}}), None),
        ("sampling/createMessage", &sample, json!({"foo": 1}), Some("Invalid sampling result: its model is missing, not a string")),
        ("sampling/createMessage", &sample, json!({"model": "m", "role": "system", "content": text}), Some("Invalid sampling result: its role is string: \"system\"")),
        ("sampling/createMessage", &sample, json!({"model": "m", "role": "assistant"}), Some("Invalid sampling result: it has no content")),
        ("sampling/createMessage", &sample, json!({"model": "m", "role": "assistant", "content": [text]}), Some("Invalid sampling result: its content array")),
        ("sampling/createMessage", &sample, json!({"model": "m", "role": "assistant", "content": {"type": "image", "data": "x"}}), Some("its image content block object: {\"type\":\"image\",\"data\":\"x\"} needs a string `data` and `mimeType`")),
        ("sampling/createMessage", &sample, json!({"model": "m", "role": "assistant", "content": {"type": "tool_use", "id": "u", "name": "t", "input": {}}}), Some("no text, image or audio content block")),
        ("sampling/createMessage", &sample, json!({"model": "m", "role": "user", "content": text, "stopReason": "other"}), None),
        ("sampling/createMessage", &with_tools, json!({"model": "m", "role": "assistant", "content": [text, {"type": "tool_use", "id": "u", "name": "t", "input": {}}]}), None),
        ("sampling/createMessage", &with_tools, json!({"model": "m", "role": "assistant", "content": [{"type": "tool_use", "id": "u"}]}), Some("its tool_use content block")),
        // The SDK's schema takes a tool_result's `content` left out for [].
        ("sampling/createMessage", &with_tools, json!({"model": "m", "role": "assistant", "content": [{"type": "tool_use", "id": "u1", "name": "t", "input": {}}, {"type": "tool_result", "toolUseId": "u1"}]}), None),
        ("sampling/createMessage", &with_tools, json!({"model": "m", "role": "assistant", "content": [{"type": "tool_result", "toolUseId": "u1", "content": null}]}), Some("its tool_result content block object: {\"type\":\"tool_result\",\"toolUseId\":\"u1\",\"content\":null} needs a string `toolUseId`, and a `content` that is an array if it has one")),
        ("sampling/createMessage", &with_tools, json!({"model": "m", "role": "assistant", "content": [{"type": "video"}]}), Some("is no text, image, audio, tool_use or tool_result content block")),
        ("roots/list", &Value::Null, json!({"anything": 1}), None),
    ] {
        let got = invalid_answer(method, params, &answer);
        match refused {
            None => assert_eq!(got, None, "{answer}"),
            Some(text) => {
                let got = got.unwrap_or_else(|| panic!("{answer} refused"));
                assert_eq!(got.code, -32602);
                assert!(got.message.contains(text), "{answer}: {}", got.message);
            }
        }
    }
    // Answered so on the wire, not with the handler's answer.
    let ask = "data: {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"elicitation/create\",\"params\":{\"message\":\"m\"}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n";
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.capabilities = json!({"elicitation": {}}).as_object().cloned().unwrap();
    let h = harness_with(vec![init_reply("2025-11-25", None), accepted(), sse_reply(ask, 0), accepted()], opts, 10_000);
    h.client.set_request_handler(Some(Box::new(|_, _, _| Box::pin(async { Ok(json!({"action": "maybe"})) }))));
    block_on(h.client.connect()).unwrap();
    block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap();
    let answer = body(&h.log.borrow().requests[3]);
    assert_eq!(answer["error"]["code"], -32602);
    assert!(answer.get("result").is_none(), "{answer}");

    // 2026-07-28: the call fails, INPUT_REQUIRED, and no retry carries it.
    let ask = Reply::Echo(json!({"resultType": "input_required", "inputRequests": {"k": {"method": "elicitation/create", "params": {"message": "m"}}}}));
    let h = harness_with(vec![discover_reply(), ask], modern_declaring(json!({"elicitation": {}})), 10_000);
    h.client.set_request_handler(Some(Box::new(|_, _, _| Box::pin(async { Ok(json!({"action": "accept", "content": {"x": {"y": 1}}})) }))));
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::InputRequired, "{}", e.message);
    assert!(e.message.contains("answer to the server's elicitation/create was not sent: Invalid elicitation result: its content's \"x\" is object"), "{}", e.message);
    assert_eq!(e.details.unwrap()["answer"], json!({"action": "accept", "content": {"x": {"y": 1}}}));
    assert_eq!(h.log.borrow().requests.len(), 2, "no retry");
}

/// An elicitation in a mode the declared `elicitation` capability leaves out is refused as the
/// SDK's client refuses it (-32602), the handler not asked: a page that shows forms would take a
/// URL request for an empty form and accept it. A declared mode reaches it; without `elicitation`
/// declared (or declared `false`), every one is -32601, as the SDK's client answers it.
#[test]
fn an_elicitation_in_a_mode_not_declared_is_refused_without_the_handler() {
    let ask = |mode: &str| {
        let params = if mode.is_empty() { json!({"message": "m"}) } else { json!({"message": "m", "mode": mode, "url": "https://example.com/x", "elicitationId": "e"}) };
        format!("data: {}\n\ndata: {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"content\":[]}}}}\n\n", json!({"jsonrpc": "2.0", "id": 5, "method": "elicitation/create", "params": params}))
    };
    for (declared, mode, refused) in [
        (json!({}), "url", Some((-32602, "Client does not support url-mode elicitation requests"))),
        (json!({"form": {}}), "url", Some((-32602, "Client does not support url-mode elicitation requests"))),
        (json!({"url": {}}), "", Some((-32602, "Client does not support form-mode elicitation requests"))),
        (json!({"url": {}}), "form", Some((-32602, "Client does not support form-mode elicitation requests"))),
        (json!({}), "", None),
        (json!({"form": {}, "url": {}}), "url", None),
        (Value::Null, "url", Some((-32601, "Method not found: elicitation/create"))),
        (Value::Null, "", Some((-32601, "Method not found: elicitation/create"))),
        (json!(false), "", Some((-32601, "Method not found: elicitation/create"))),
    ] {
        let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
        if !declared.is_null() {
            opts.capabilities = json!({ "elicitation": declared }).as_object().cloned().unwrap();
        }
        let h = harness_with(vec![init_reply("2025-11-25", None), accepted(), sse_reply(&ask(mode), 0), accepted()], opts, 10_000);
        let asked = Rc::new(RefCell::new(0));
        let counted = asked.clone();
        h.client.set_request_handler(Some(Box::new(move |_, _, _| {
            *counted.borrow_mut() += 1;
            Box::pin(async { Ok(json!({"action": "decline"})) })
        })));
        block_on(h.client.connect()).unwrap();
        block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap();
        let answer = body(&h.log.borrow().requests[3]);
        match refused {
            Some((code, message)) => {
                assert_eq!(answer["error"], json!({"code": code, "message": message}), "{declared} {mode}");
                assert_eq!(*asked.borrow(), 0);
            }
            None => {
                assert_eq!(answer["result"], json!({"action": "decline"}), "{declared} {mode}");
                assert_eq!(*asked.borrow(), 1);
            }
        }
    }
}

/// An answer to a server request of the shape its method's result has (the client refuses others
/// for `elicitation/create` and `sampling/createMessage`).
fn fitting_answer(method: &str) -> Value {
    match method {
        "elicitation/create" => json!({"action": "decline"}),
        "sampling/createMessage" => json!({"model": "m", "role": "assistant", "content": {"type": "text", "text": "answered"}}),
        _ => json!({"answered": true}),
    }
}

/// A server request of a capability the client did not declare (`elicitation/create`,
/// `sampling/createMessage`, `roots/list`) is answered -32601 as the SDK's client answers it, the
/// handler not asked: it may have been written for something else. A declared one, and any other
/// method, reach it.
#[test]
fn a_server_request_of_a_capability_not_declared_is_refused_without_the_handler() {
    let asks = [
        ("elicitation/create", json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}})),
        ("sampling/createMessage", json!({"messages": [], "maxTokens": 1})),
        ("roots/list", json!({})),
        ("toolwire-test/custom", json!({})),
    ];
    let mut events: Vec<String> = asks.iter().enumerate().map(|(i, (m, p))| json!({"jsonrpc": "2.0", "id": 10 + i, "method": m, "params": p}).to_string()).collect();
    events.push(json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}).to_string());
    for (declared, reached) in [
        (json!({}), vec!["toolwire-test/custom"]),
        (json!({"roots": {}, "sampling": false, "elicitation": null}), vec!["roots/list", "toolwire-test/custom"]),
        (json!({"elicitation": {}, "sampling": {}, "roots": {"listChanged": true}}), asks.iter().map(|(m, _)| *m).collect()),
    ] {
        let mut replies = vec![init_reply("2025-11-25", Some("s")), accepted(), sse_events(&events.iter().map(String::as_str).collect::<Vec<_>>(), false)];
        replies.extend(asks.iter().map(|_| accepted()));
        let h = harness_declaring(replies, declared.clone());
        let asked = Rc::new(RefCell::new(Vec::new()));
        let a2 = asked.clone();
        h.client.set_request_handler(Some(Box::new(move |m, _, _| {
            a2.borrow_mut().push(m.to_owned());
            let answer = fitting_answer(m);
            Box::pin(async { Ok(answer) })
        })));
        block_on(h.client.connect()).unwrap();
        block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap();
        assert_eq!(*asked.borrow(), reached, "{declared}");
        let log = h.log.borrow();
        for (i, (method, _)) in asks.iter().enumerate() {
            let answer = log.requests.iter().map(body).find(|b| b["id"] == 10 + i).unwrap_or_else(|| panic!("{declared}: {method} unanswered"));
            if reached.contains(method) {
                assert_eq!(answer["result"], fitting_answer(method), "{declared} {method}");
            } else {
                assert_eq!(answer["error"], json!({"code": -32601, "message": format!("Method not found: {method}")}), "{declared} {method}");
            }
        }
    }
}

#[test]
fn unsupported_version_is_a_typed_error() {
    let h = harness(vec![init_reply("1999-01-01", None)]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedProtocolVersion);
}

/// An `initialize` result without a `protocolVersion`, or with one that is not a string, is no
/// InitializeResult (the SDK's schema refuses it): `PROTOCOL` naming the field, with the result,
/// and the session the server may have opened ended, as for a version toolwire does not speak.
#[test]
fn an_initialize_result_without_a_string_protocol_version_is_refused() {
    for (version, says) in [(None, "it has no protocolVersion"), (Some(json!(20251125)), "its protocolVersion is not a string (number: 20251125)"), (Some(Value::Null), "its protocolVersion is not a string (null")] {
        let mut result = json!({"capabilities": {"tools": {}}, "serverInfo": {"name": "test", "version": "1"}});
        if let Some(v) = &version {
            result["protocolVersion"] = v.clone();
        }
        let init = Reply::Http {
            status: 200,
            headers: vec![("content-type", "application/json".into()), ("mcp-session-id", "s-1".into())],
            chunks: vec![json!({"jsonrpc": "2.0", "id": 0, "result": result}).to_string().into_bytes()],
            then_hang: false,
            then_error: false,
        };
        let h = harness(vec![init, status_reply(200, vec![], "")]);
        let e = block_on(h.client.connect()).unwrap_err();
        assert_eq!(e.code, ErrorCode::Protocol, "{version:?}: {e}");
        assert!(e.message.starts_with(&format!("initialize: the server's result is no InitializeResult: {says}")), "{}", e.message);
        assert_eq!(e.details.as_ref().unwrap()["result"], result);
        assert!(!h.client.is_connected());
        let log = h.log.borrow();
        assert_eq!((log.requests.len(), log.requests[1].method, header(&log.requests[1], "mcp-session-id")), (2, Method::Delete, Some("s-1")), "the session ended");
    }
}

const SSE_CALL: &str = "\u{feff}: hello\r\nid: e1\r\nretry: 10\r\ndata:\r\n\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"sampling/createMessage\",\"params\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1,\"total\":2}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\n";
const SSE_END: &str = "data: \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"h\u{e9}\"}]}}\n\n";

#[test]
fn sse_with_notifications_server_requests_and_progress_at_every_split() {
    let stream = format!("{SSE_CALL}{SSE_END}");
    for split in [0, 1, 2, 3, 5, 7, 64] {
        let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), sse_reply(&stream, split), accepted(), accepted()]);
        let notes = Rc::new(RefCell::new(Vec::new()));
        let n2 = notes.clone();
        h.client.set_notification_handler(Some(Box::new(move |m, _| n2.borrow_mut().push(m.to_owned()))));
        block_on(h.client.connect()).unwrap();
        let progress = Rc::new(RefCell::new(Vec::new()));
        let p2 = progress.clone();
        let mut opts = CallOptions { on_progress: Some(Box::new(move |p| p2.borrow_mut().push(p["progress"].clone()))), ..CallOptions::default() };
        let result = block_on(h.client.call_tool("echo", json!({"x":1}), &mut opts)).unwrap();
        assert_eq!(result["content"][0]["text"], "hé", "split {split}");
        assert_eq!(*progress.borrow(), vec![json!(1)]);
        assert_eq!(*notes.borrow(), vec!["notifications/tools/list_changed".to_owned()]);
        let log = h.log.borrow();
        let call = body(&log.requests[2]);
        assert_eq!(call["params"]["_meta"]["progressToken"], 1);
        // The ping (id 0, a real id) got {} and the unknown request -32601.
        assert_eq!(body(&log.requests[3]), json!({"jsonrpc":"2.0","id":0,"result":{}}));
        assert_eq!(body(&log.requests[4])["error"]["code"], -32601);
        assert_eq!(body(&log.requests[4])["id"], 7);
    }
}

/// Progress whose token comes back as the string form of the integer sent (`"1"` for 1: a server
/// whose schema has a string token) is the call's, as the MCP SDK finds it (`Number(token)`); a
/// string that only reads as it (`"01"`) is not.
#[test]
fn progress_with_the_token_as_a_string_is_the_calls() {
    let progress = |token: &str, n: u32| format!("data: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":{token},\"progress\":{n}}}}}\n\n");
    let stream = format!("{}{}{}{RESULT_1}", progress("\"1\"", 1), progress("\"01\"", 2), progress("1", 3));
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), sse_reply(&stream, 5)]);
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    h.client.set_notification_handler(Some(Box::new(move |m, p| n2.borrow_mut().push((m.to_owned(), p["progress"].clone())))));
    block_on(h.client.connect()).unwrap();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s2 = seen.clone();
    let mut opts = CallOptions { on_progress: Some(Box::new(move |p: &Value| s2.borrow_mut().push(p["progress"].clone()))), reset_timeout_on_progress: true, ..CallOptions::default() };
    assert_eq!(block_on(h.client.call_tool("t", json!({}), &mut opts)).unwrap(), json!({"done": true, "content": []}));
    assert_eq!(*seen.borrow(), vec![json!(1), json!(3)]);
    assert_eq!(*notes.borrow(), vec![("notifications/progress".to_owned(), json!(2))]);
}

#[test]
fn tools_changed_from_an_announcement_until_a_listing_succeeds() {
    let list = json_reply(json!({"jsonrpc":"2.0","id":3,"result":{"tools":[]}}));
    let h = harness(vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        sse_reply(&format!("{SSE_CALL}{SSE_END}"), 0),
        accepted(),
        accepted(),
        status_reply(500, vec![], "down"),
        list,
    ]);
    block_on(h.client.connect()).unwrap();
    assert!(!h.client.tools_changed());
    block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap();
    // Announced in the call's stream, with no notification handler set.
    assert!(h.client.tools_changed());
    // A listing that fails leaves it announced; one that succeeds clears it.
    assert_eq!(block_on(h.client.list_tools()).unwrap_err().code, ErrorCode::HttpStatus);
    assert!(h.client.tools_changed());
    block_on(h.client.list_tools()).unwrap();
    assert!(!h.client.tools_changed());
}

/// A new session may be another instance of the server (restarted with other tools, announcing
/// nothing to a session it never had): once the session is renewed, or the client connects
/// again, the last listing is stale until the tools are listed again. A listing that renews the
/// session on its way is the new session's, and fresh.
#[test]
fn a_new_session_makes_the_listing_stale() {
    let h = harness_with(
        vec![
            init_reply("2025-11-25", Some("s1")),
            accepted(),
            Reply::Echo(json!({"tools": [{"name": "read"}]})),
            // tools/call (2): the server forgot s1; renewed (3), and the call sent again (4).
            status_reply(404, vec![], ""),
            init_reply_id(3, "2025-11-25", Some("s2")),
            accepted(),
            Reply::Echo(json!({"content": []})),
            // tools/list (5): the server forgot s2 too; renewed (6), and listed on s3 (7).
            status_reply(404, vec![], ""),
            init_reply_id(6, "2025-11-25", Some("s3")),
            accepted(),
            Reply::Echo(json!({"tools": [{"name": "write"}]})),
            // connect() again: s3 ended (DELETE), then s4 (8).
            accepted(),
            init_reply_id(8, "2025-11-25", Some("s4")),
            accepted(),
        ],
        legacy(),
        10_000,
    );
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    assert!(!h.client.tools_changed());
    block_on(h.client.call_tool("read", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(h.client.session_id().as_deref(), Some("s2"));
    assert!(h.client.tools_changed(), "listed on s1, the session is s2");
    let tools = block_on(h.client.list_tools()).unwrap();
    assert_eq!((tools[0]["name"].as_str(), h.client.session_id().as_deref()), (Some("write"), Some("s3")));
    assert!(!h.client.tools_changed(), "listed on s3, the session it renewed");
    block_on(h.client.connect()).unwrap();
    assert_eq!(h.client.session_id().as_deref(), Some("s4"));
    assert!(h.client.tools_changed(), "listed on s3, connected again");
}

#[test]
fn server_requests_go_to_the_request_handler_and_capabilities_to_initialize() {
    // The handler answers the sampling request (id 7) with its result, once with an error of its
    // own; `ping` never reaches it. The capabilities are the initialize request's.
    for fails in [false, true] {
        let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
        opts.capabilities.insert("sampling".into(), json!({}));
        let stream = format!("{SSE_CALL}{SSE_END}");
        let h = harness_with(vec![init_reply("2025-11-25", Some("s")), accepted(), sse_reply(&stream, 3), accepted(), accepted()], opts, 10_000);
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s2 = seen.clone();
        h.client.set_request_handler(Some(Box::new(move |m, params, _| {
            s2.borrow_mut().push((m.to_owned(), params.clone()));
            Box::pin(async move {
                match fails {
                    false => Ok(json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"})),
                    true => Err(RpcError { code: -1, message: "declined".into(), data: None }),
                }
            })
        })));
        block_on(h.client.connect()).unwrap();
        let result = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap();
        assert_eq!(result["content"][0]["text"], "hé");
        assert_eq!(*seen.borrow(), vec![("sampling/createMessage".to_owned(), json!({}))]);
        let log = h.log.borrow();
        assert_eq!(body(&log.requests[0])["params"]["capabilities"], json!({"sampling": {}}));
        assert_eq!(body(&log.requests[3]), json!({"jsonrpc":"2.0","id":0,"result":{}}), "ping answered by the client");
        let answer = body(&log.requests[4]);
        assert_eq!(answer["id"], 7);
        match fails {
            false => assert_eq!(answer["result"]["content"]["text"], "hi"),
            true => assert_eq!(answer["error"], json!({"code": -1, "message": "declined"})),
        }
    }
}

/// A request handler that takes `polls` polls to answer, counting the answers under way (now, most).
fn slow_handler(h: &Harness, polls: usize) -> Rc<RefCell<(usize, usize, usize)>> {
    // (called, under way, most under way)
    let seen = Rc::new(RefCell::new((0, 0, 0)));
    let s2 = seen.clone();
    h.client.set_request_handler(Some(Box::new(move |_, _, _| {
        let s = s2.clone();
        {
            let mut s = s.borrow_mut();
            s.0 += 1;
            s.1 += 1;
            s.2 = s.2.max(s.1);
        }
        let mut left = polls;
        Box::pin(std::future::poll_fn(move |cx| {
            if left == 0 {
                s.borrow_mut().1 -= 1;
                return std::task::Poll::Ready(Ok(json!({"action": "decline"})));
            }
            left -= 1;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }))
    })));
    seen
}

#[test]
fn server_requests_answered_at_once_are_bounded_and_those_past_the_bound_refused() {
    // A server floods the call's stream with 40 elicitations before the result, while the app's
    // handler is slow: 16 reach the handler, the 24 others are answered -32000 at once.
    let elicit = |i: usize| format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"elicitation/create\",\"params\":{{\"message\":\"m\"}}}}", 100 + i);
    let mut events: Vec<String> = (0..40).map(elicit).collect();
    // A ping behind them is answered all the same: it takes no place of the bound.
    events.push(r#"{"jsonrpc":"2.0","id":300,"method":"ping"}"#.to_owned());
    events.push(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#.to_owned());
    let flood = sse_events(&events.iter().map(String::as_str).collect::<Vec<_>>(), false);
    let again = sse_events(&[&elicit(99), r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#], false);
    let mut replies = vec![init_reply("2025-11-25", Some("s")), accepted(), flood];
    replies.extend((0..41).map(|_| accepted()));
    replies.push(again);
    let h = harness_declaring(replies, json!({"elicitation": {}}));
    let seen = slow_handler(&h, 1_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(*seen.borrow(), (MAX_SERVER_REQUESTS, 0, MAX_SERVER_REQUESTS), "(called, under way, most under way)");
    let pong: Vec<Value> = h.log.borrow().requests.iter().map(body).filter(|b| b["id"] == 300).collect();
    assert_eq!(pong, [json!({"jsonrpc": "2.0", "id": 300, "result": {}})], "the ping answered {{}}, not refused");
    let answers: Vec<Value> = h.log.borrow().requests.iter().map(body).filter(|b| b["id"].as_i64().is_some_and(|i| (100..300).contains(&i))).collect();
    assert_eq!(answers.len(), 40, "every request answered");
    let refused: Vec<&Value> = answers.iter().filter(|a| a.get("error").is_some()).collect();
    assert_eq!(refused.len(), 40 - MAX_SERVER_REQUESTS);
    assert!(answers.iter().filter(|a| a.get("result").is_some()).all(|a| a["result"] == json!({"action": "decline"})));
    assert_eq!(refused[0]["error"]["code"], SERVER_BUSY);
    assert_eq!(refused[0]["error"]["data"], json!({"limit": MAX_SERVER_REQUESTS}));
    assert!(refused[0]["error"]["message"].as_str().unwrap().starts_with("elicitation/create refused: the client is answering 16 requests of the server already"));
    // The places are given back: the next call's request reaches the handler.
    block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(seen.borrow().0, MAX_SERVER_REQUESTS + 1);
    assert_eq!((h.client.answering.get(), h.client.refusing.get()), (0, 0));
    let last = h.log.borrow().requests.last().map(body).unwrap();
    assert_eq!((last["id"].clone(), last["result"].clone()), (json!(199), json!({"action": "decline"})));
}

#[test]
fn past_the_refusals_being_posted_a_server_request_is_left_unanswered() {
    // The POSTs of the answers never end (a server that holds them up): 16 answered, 256 refused,
    // the rest left alone; a timeout drops them all and gives every place back.
    let elicit = |i: usize| format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"elicitation/create\",\"params\":{{}}}}", 100 + i);
    let events: Vec<String> = (0..300).map(elicit).collect();
    let flood = sse_events(&events.iter().map(String::as_str).collect::<Vec<_>>(), true);
    let mut opts = declaring(json!({"elicitation": {}}));
    opts.timeout_ms = 50;
    let mut replies = vec![init_reply("2025-11-25", Some("s")), accepted(), flood];
    replies.extend((0..300).map(|_| Reply::Hang));
    let h = harness_with(replies, opts, 10_000);
    let seen = slow_handler(&h, 0);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    assert_eq!(seen.borrow().0, MAX_SERVER_REQUESTS);
    let posted = h.log.borrow().requests.iter().map(body).filter(|b| b["id"].as_i64().is_some_and(|i| i >= 100)).count();
    assert_eq!(posted, MAX_SERVER_REQUESTS + MAX_REFUSALS);
    assert_eq!((h.client.answering.get(), h.client.refusing.get()), (0, 0));
}

#[test]
fn listen_reads_the_standalone_stream_until_close_and_reopens_it_with_the_last_event_id() {
    let stream = "id: g1\nretry: 250\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\nid: g2\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"elicitation/create\",\"params\":{\"message\":\"m\"}}\n\n";
    let h = harness_declaring(vec![init_reply("2025-11-25", Some("s")), accepted(), sse_reply(stream, 7), accepted(), Reply::Hang], json!({"elicitation": {}}));
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    h.client.set_notification_handler(Some(Box::new(move |m, _| n2.borrow_mut().push(m.to_owned()))));
    h.client.set_request_handler(Some(Box::new(|m, p, _| {
        let answer = json!({"action": "decline", "seen": [m, p["message"]]});
        Box::pin(async move { Ok(answer) })
    })));
    block_on(h.client.connect()).unwrap();
    let (listened, closed) = block_on(futures_util::future::join(h.client.listen(), h.client.close()));
    assert!(listened.unwrap(), "ended by close()");
    closed.unwrap();
    assert_eq!(*notes.borrow(), ["notifications/tools/list_changed"]);
    let log = h.log.borrow();
    let get = &log.requests[2];
    assert_eq!((get.method, header(get, "accept"), header(get, "mcp-session-id"), header(get, "last-event-id")), (Method::Get, Some("text/event-stream"), Some("s"), None));
    assert_eq!(body(&log.requests[3]), json!({"jsonrpc":"2.0","id":9,"result":{"action":"decline","seen":["elicitation/create","m"]}}));
    let reopened = &log.requests[4];
    assert_eq!((reopened.method, header(reopened, "last-event-id")), (Method::Get, Some("g2")));
    assert!(h.slept.borrow().contains(&250), "waited the server's retry before reopening");
    assert_eq!(log.aborted, 1, "the open GET was aborted by close()");
}

/// A request handler whose answer waits until `gate` is opened by the notification handler.
fn gated_handlers(h: &Harness) {
    // (a notification seen, the waker of the pending answer)
    let gate: Rc<RefCell<(bool, Option<std::task::Waker>)>> = Rc::new(RefCell::new((false, None)));
    let g = gate.clone();
    h.client.set_notification_handler(Some(Box::new(move |_, _| {
        let mut g = g.borrow_mut();
        g.0 = true;
        if let Some(w) = g.1.take() {
            w.wake();
        }
    })));
    h.client.set_request_handler(Some(Box::new(move |_, _, _| {
        let g = gate.clone();
        Box::pin(std::future::poll_fn(move |cx| {
            let mut g = g.borrow_mut();
            if g.0 {
                std::task::Poll::Ready(Ok(json!({"action": "accept", "content": {}})))
            } else {
                g.1 = Some(cx.waker().clone());
                std::task::Poll::Pending
            }
        }))
    })));
}

/// Polls `f` until it ends or `polls` polls have passed without that (`None`): a test that
/// would otherwise hang fails instead.
pub(crate) fn bounded<F: Future>(f: F, polls: usize) -> Option<F::Output> {
    let mut f = std::pin::pin!(f);
    let mut n = 0;
    block_on(std::future::poll_fn(move |cx| match f.as_mut().poll(cx) {
        std::task::Poll::Ready(v) => std::task::Poll::Ready(Some(v)),
        std::task::Poll::Pending if n >= polls => std::task::Poll::Ready(None),
        std::task::Poll::Pending => {
            n += 1;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    }))
}

pub(crate) fn sse_events(events: &[&str], then_hang: bool) -> Reply {
    let chunks = events.iter().map(|e| format!("data: {e}\n\n").into_bytes()).collect();
    Reply::Http { status: 200, headers: vec![("content-type", "text/event-stream".into())], chunks, then_hang, then_error: false }
}

const ELICIT_9: &str = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"elicitation/create\",\"params\":{}}";

#[test]
fn a_call_stream_is_read_on_while_a_server_request_waits_for_its_answer() {
    // As on the standalone stream: request 9's answer comes only once the log message after it
    // has been seen; the ping between is answered first; then the call's result, returned once
    // request 9 is answered. Without the message, request 9 is never answered, and the call
    // waits for it though its result has come.
    for with_message in [true, false] {
        let mut events = vec![ELICIT_9, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}"];
        if with_message {
            events.push("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}");
        }
        events.push("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}");
        let h = harness_declaring(vec![init_reply("2025-11-25", Some("s")), accepted(), sse_events(&events, false), accepted(), accepted()], json!({"elicitation": {}}));
        gated_handlers(&h);
        block_on(h.client.connect()).unwrap();
        let result = bounded(h.client.call_tool("ask", json!({}), &mut CallOptions::default()), 10_000);
        let log = h.log.borrow();
        assert_eq!(body(&log.requests[3]), json!({"jsonrpc":"2.0","id":0,"result":{}}), "the ping first, not held up");
        if with_message {
            assert_eq!(result.expect("the call ended").unwrap(), json!({"content": []}));
            assert_eq!(body(&log.requests[4]), json!({"jsonrpc":"2.0","id":9,"result":{"action":"accept","content":{}}}));
            assert_eq!(log.requests.len(), 5);
        } else {
            assert!(result.is_none(), "waits for the answer");
            assert_eq!(log.requests.len(), 4);
        }
    }
}

#[test]
fn the_idle_timeout_does_not_run_while_a_server_request_is_answered() {
    // Every sleep of 1 ms ends at once, so a silent stream with an idle timeout of 1 ms fails at
    // once, but not while the server waits for the answer to its request.
    for with_request in [false, true] {
        let mut opts = declaring(json!({"elicitation": {}}));
        opts.idle_timeout_ms = Some(1);
        let events: &[&str] = if with_request { &[ELICIT_9] } else { &[] };
        let h = harness_with(vec![init_reply("2025-11-25", Some("s")), accepted(), sse_events(events, true)], opts, 1);
        gated_handlers(&h);
        block_on(h.client.connect()).unwrap();
        let outcome = bounded(h.client.call_tool("ask", json!({}), &mut CallOptions::default()), 1_000);
        if with_request {
            assert!(outcome.is_none(), "still waiting for the answer");
        } else {
            assert_eq!(outcome.expect("timed out").unwrap_err().code, ErrorCode::Timeout);
        }
    }
}

#[test]
fn the_idle_timeout_runs_again_once_the_answers_are_out() {
    // A ping, answered at once, then silence: the idle timeout (every 1 ms sleep ends at once)
    // ends the call, as it would have without the ping.
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.idle_timeout_ms = Some(1);
    let ping = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}";
    let h = harness_with(vec![init_reply("2025-11-25", Some("s")), accepted(), sse_events(&[ping], true), accepted()], opts, 1);
    block_on(h.client.connect()).unwrap();
    let outcome = bounded(h.client.call_tool("t", json!({}), &mut CallOptions::default()), 1_000);
    let e = outcome.expect("timed out").unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["idleTimeoutMs"].clone()), (ErrorCode::Timeout, json!(1)));
    let log = h.log.borrow();
    assert_eq!(body(&log.requests[3]), json!({"jsonrpc":"2.0","id":0,"result":{}}));
    // The server is told, as for the call's own timeout, after the silent stream was dropped.
    assert_eq!(log.aborted, 1, "the silent stream was aborted");
    assert_eq!(body(&log.requests[4]), json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"timeout"}}));
    assert_eq!(log.requests.len(), 5);
}

#[test]
fn a_call_that_fails_still_answers_the_requests_before_its_end() {
    // Request 9's answer takes a poll; the stream then ends with an error response, or ends
    // without one (and without an event id to resume from). The answer goes out either way.
    let error = "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32000,\"message\":\"no\"}}";
    for (events, code) in [(vec![ELICIT_9, error], ErrorCode::JsonRpcError), (vec![ELICIT_9], ErrorCode::Protocol)] {
        let h = harness_declaring(vec![init_reply("2025-11-25", Some("s")), accepted(), sse_events(&events, false), accepted()], json!({"elicitation": {}}));
        h.client.set_request_handler(Some(Box::new(|_, _, _| {
            let mut polled = false;
            Box::pin(std::future::poll_fn(move |cx| {
                if polled {
                    std::task::Poll::Ready(Ok(json!({"action": "decline"})))
                } else {
                    polled = true;
                    cx.waker().wake_by_ref();
                    std::task::Poll::Pending
                }
            }))
        })));
        block_on(h.client.connect()).unwrap();
        let outcome = bounded(h.client.call_tool("t", json!({}), &mut CallOptions::default()), 1_000);
        assert_eq!(outcome.expect("the call ended").unwrap_err().code, code);
        let log = h.log.borrow();
        assert_eq!(log.requests.len(), 4, "{code:?}");
        assert_eq!(body(&log.requests[3]), json!({"jsonrpc":"2.0","id":9,"result":{"action":"decline"}}), "{code:?}");
    }
}

#[test]
fn listen_reads_on_while_a_server_request_waits_for_its_answer() {
    // Request 9 waits for a person: its answer comes only once the log message after it has
    // been seen. The ping and the message behind it are not held up; the answer is still sent.
    // One event per chunk: the request, then the ping, then the message.
    let events = [
        "data: {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"elicitation/create\",\"params\":{}}\n\n",
        "data: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}\n\n",
        "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n",
    ];
    let stream = Reply::Http {
        status: 200,
        headers: vec![("content-type", "text/event-stream".into())],
        chunks: events.iter().map(|e| e.as_bytes().to_vec()).collect(),
        then_hang: true,
        then_error: false,
    };
    let h = harness_declaring(vec![init_reply("2025-11-25", Some("s")), accepted(), stream, accepted(), accepted()], json!({"elicitation": {}}));
    gated_handlers(&h);
    block_on(h.client.connect()).unwrap();
    let (listened, closed) = block_on(futures_util::future::join(h.client.listen(), async {
        // Closed once both answers are out (or after many polls without them: a reader held up
        // by the pending answer never gets there, and the assertions below say so).
        let mut polls = 0;
        std::future::poll_fn(|cx| {
            polls += 1;
            if h.log.borrow().requests.len() >= 5 || polls > 10_000 {
                std::task::Poll::Ready(())
            } else {
                cx.waker().wake_by_ref();
                std::task::Poll::Pending
            }
        })
        .await;
        h.client.close().await
    }));
    assert!(listened.unwrap());
    closed.unwrap();
    let log = h.log.borrow();
    assert_eq!(body(&log.requests[3]), json!({"jsonrpc":"2.0","id":0,"result":{}}), "the ping first, not held up");
    assert_eq!(body(&log.requests[4]), json!({"jsonrpc":"2.0","id":9,"result":{"action":"accept","content":{}}}));
}

#[test]
fn listen_without_the_stream_on_offer_ends_at_once_and_failed_reopenings_end_it() {
    for status in [405, 400, 404, 409] {
        let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), status_reply(status, vec![], "")]);
        block_on(h.client.connect()).unwrap();
        assert!(!block_on(h.client.listen()).unwrap(), "HTTP {status}: not offered");
    }
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), sse_reply(": open\n\n", 0), status_reply(500, vec![], ""), Reply::NetworkError, status_reply(409, vec![], "")]);
    assert_eq!(block_on(h.client.listen()).unwrap_err().code, ErrorCode::NotConnected);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.listen()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol, "three failed reopenings (max_retries 2)");
    assert_eq!(e.details.as_ref().and_then(|d| d.get("status")), Some(&json!(409)), "the last status: {e:?}");
    assert_eq!(h.log.borrow().requests.len(), 6);
    // The last reopening got no response: NETWORK, with the hint (no Last-Event-ID: no id came).
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), sse_reply(": open\n\n", 0), status_reply(500, vec![], ""), status_reply(500, vec![], ""), Reply::NetworkError]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.listen()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Network, "{e}");
    assert!(e.message.ends_with("the last got no response: TypeError: Failed to fetch); the server is unreachable, or (from a browser) refused by a Content Security Policy (its connect-src) or by CORS: the server must answer OPTIONS preflights for this origin, GET, POST, DELETE and MCP's headers, and list mcp-session-id in Access-Control-Expose-Headers (README, \"CORS\")"), "{e}");
}

/// A server that restarted (it no longer knows the session) gets a new session from a listening
/// client, once per loss of the stream, and the stream is opened on it without the old session's
/// `Last-Event-ID`; the tool list is then taken as changed. A renewed session refused again at
/// once ends the listening.
#[test]
fn listen_renews_a_session_the_server_forgot_and_listens_on() {
    let gone = || status_reply(404, vec![], "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}");
    let first = "id: e1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n";
    let h = harness(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        sse_reply(first, 0),
        status_reply(400, vec![], "Bad Request: No valid session ID provided"),
        init_reply_id(1, "2025-11-25", Some("new")),
        accepted(),
        Reply::Hang,
    ]);
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    h.client.set_notification_handler(Some(Box::new(move |m, _| n2.borrow_mut().push(m.to_owned()))));
    block_on(h.client.connect()).unwrap();
    let (listened, closed) = block_on(futures_util::future::join(h.client.listen(), async {
        // (Or after many polls without them: the assertions below then say what is missing.)
        for _ in 0..10_000 {
            if h.log.borrow().requests.len() >= 7 {
                break;
            }
            yield_now().await;
        }
        h.client.close().await
    }));
    assert!(listened.unwrap(), "listened on until close()");
    closed.unwrap();
    assert_eq!(*notes.borrow(), ["notifications/message", "notifications/tools/list_changed"]);
    assert!(h.client.tools_changed(), "the listing of the old session is stale");
    let log = h.log.borrow();
    assert_eq!((header(&log.requests[3], "mcp-session-id"), header(&log.requests[3], "last-event-id")), (Some("old"), Some("e1")));
    assert_eq!(body(&log.requests[4])["method"], "initialize");
    let reopened = &log.requests[6];
    assert_eq!((reopened.method, header(reopened, "mcp-session-id"), header(reopened, "last-event-id")), (Method::Get, Some("new"), None));
    drop(log);

    // The new session forgotten at once too: one renewal per loss, then the refusals count.
    let h = harness(vec![init_reply("2025-11-25", Some("a")), accepted(), sse_reply(": open\n\n", 0), gone(), init_reply_id(1, "2025-11-25", Some("b")), accepted(), gone(), gone(), gone()]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.listen()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol, "{e:?}");
    assert_eq!(e.details.as_ref().and_then(|d| d.get("status")), Some(&json!(404)));
    assert_eq!(h.log.borrow().requests.len(), 9, "one renewal, then max_retries + 1 refusals");

    // A renewal that fails ends the listening with its error.
    let h = harness(vec![init_reply("2025-11-25", Some("a")), accepted(), sse_reply(": open\n\n", 0), gone(), status_reply(503, vec![], "")]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.listen()).unwrap_err();
    assert!(e.message.starts_with("listen: the session expired and could not be renewed"), "{e:?}");
}

/// A server request read on a session that is then renewed is not answered on the new one (its
/// id may be a request of the new session's): its handler is dropped (its signal aborted).
#[test]
fn answers_to_a_forgotten_sessions_requests_are_dropped_at_its_renewal() {
    let ask = "id: e1\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"elicitation/create\",\"params\":{\"message\":\"staging?\"}}\n\n";
    let h = harness_declaring(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        sse_reply(ask, 0),
        status_reply(404, vec![], "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}"),
        init_reply_id(1, "2025-11-25", Some("new")),
        accepted(),
        Reply::Hang,
    ], json!({"elicitation": {}}));
    /// Marks its handler's future dropped.
    struct Dropped(Rc<Cell<bool>>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }
    let dropped = Rc::new(Cell::new(false));
    // The handler answers once released (after the renewal), as a person would, late.
    let (release, waker) = (Rc::new(Cell::new(false)), Rc::new(RefCell::new(None::<std::task::Waker>)));
    let (d2, r2, w2) = (dropped.clone(), release.clone(), waker.clone());
    h.client.set_request_handler(Some(Box::new(move |_, _, _| {
        let (guard, release, waker) = (Dropped(d2.clone()), r2.clone(), w2.clone());
        Box::pin(async move {
            let _guard = guard;
            std::future::poll_fn(|cx| {
                if release.get() {
                    return std::task::Poll::Ready(());
                }
                *waker.borrow_mut() = Some(cx.waker().clone());
                std::task::Poll::Pending
            })
            .await;
            Ok(json!({"action": "accept", "content": {}}))
        })
    })));
    block_on(h.client.connect()).unwrap();
    let dropped_at_renewal = Rc::new(Cell::new(false));
    let (listened, closed) = block_on(futures_util::future::join(h.client.listen(), async {
        for _ in 0..10_000 {
            if h.log.borrow().requests.len() >= 7 {
                break;
            }
            yield_now().await;
        }
        dropped_at_renewal.set(dropped.get());
        release.set(true);
        if let Some(w) = waker.borrow_mut().take() {
            w.wake();
        }
        for _ in 0..100 {
            yield_now().await;
        }
        h.client.close().await
    }));
    assert!(listened.unwrap());
    closed.unwrap();
    assert!(dropped_at_renewal.get(), "the old session's handler was dropped at the renewal");
    let log = h.log.borrow();
    assert_eq!(body(&log.requests[4])["method"], "initialize");
    assert!(log.requests.iter().all(|r| body(r).get("result").is_none()), "no answer posted: {:?}", log.requests.iter().map(body).collect::<Vec<_>>());
}

/// `listen()` called after the server forgot the session renews it when the refusal names the
/// session; a plain 404 at the first opening is a stream not on offer (no new session).
#[test]
fn listen_renews_at_its_first_opening_only_a_session_named_gone() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        status_reply(404, vec![], "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}"),
        init_reply_id(1, "2025-11-25", Some("new")),
        accepted(),
        Reply::Hang,
    ]);
    block_on(h.client.connect()).unwrap();
    let (listened, closed) = block_on(futures_util::future::join(h.client.listen(), async {
        for _ in 0..10_000 {
            if h.log.borrow().requests.len() >= 6 {
                break;
            }
            yield_now().await;
        }
        h.client.close().await
    }));
    assert!(listened.unwrap());
    closed.unwrap();
    assert_eq!(header(&h.log.borrow().requests[5], "mcp-session-id"), Some("new"));
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), status_reply(404, vec![], "Not Found")]);
    block_on(h.client.connect()).unwrap();
    assert!(!block_on(h.client.listen()).unwrap(), "not offered");
    assert_eq!(h.log.borrow().requests.len(), 3, "no handshake for a GET not on offer");
    assert_eq!(h.client.session_id().as_deref(), Some("s"));
}

#[test]
fn listen_waits_at_least_100_ms_between_reopenings_and_fails_on_an_oversized_event() {
    // `retry: 0` and a stream that ends at once: reopened after 100 ms, whether it brought a
    // message or nothing new (no busy loop).
    let polling = "id: p1\nretry: 0\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n";
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.max_event_bytes = 64;
    let big = format!("data: {}\n\n", "x".repeat(100));
    let h = harness_with(
        vec![init_reply("2025-11-25", Some("s")), accepted(), sse_reply(polling, 0), sse_reply(": nothing new\n\n", 0), sse_reply(&big, 0)],
        opts,
        10_000,
    );
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.listen()).unwrap_err().code, ErrorCode::LimitExceeded);
    let slept = h.slept.borrow();
    assert_eq!(slept[slept.len() - 2..], [100, 100], "after a message, and after nothing new, 100 ms: {slept:?}");
    assert_eq!(header(&h.log.borrow().requests[3], "last-event-id"), Some("p1"));
    assert_eq!(header(&h.log.borrow().requests[4], "last-event-id"), Some("p1"));
}

#[test]
fn batch_arrays_and_unknown_ids_in_json() {
    let h = harness(vec![
        init_reply("2025-03-26", None),
        accepted(),
        json_reply(json!([{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}},{"jsonrpc":"2.0","id":99,"result":{}},{"jsonrpc":"2.0","id":1,"result":{"ok":true}}])),
    ]);
    block_on(h.client.connect()).unwrap();
    let r = block_on(h.client.request("x", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(r, json!({"ok":true}));
    // A 2025-03-26 server: that version goes in the header of every later request.
    let log = h.log.borrow();
    assert!(log.requests[1..].iter().all(|r| header(r, "mcp-protocol-version") == Some("2025-03-26")));
}

/// A 2025-03-26 server may batch in an SSE event's data too: each message is dealt with.
#[test]
fn batch_arrays_in_sse_data() {
    let batch = "data: [{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"hi\"}},{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}]\n\n";
    let h = harness(vec![init_reply("2025-03-26", None), accepted(), sse_reply(batch, 5), accepted()]);
    let heard = Rc::new(RefCell::new(Vec::new()));
    let sink = heard.clone();
    h.client.set_notification_handler(Some(Box::new(move |m: &str, p: &Value| sink.borrow_mut().push((m.to_owned(), p["data"].clone())))));
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.request("x", json!({}), &mut CallOptions::default())).unwrap(), json!({"ok": true}));
    assert_eq!(*heard.borrow(), [("notifications/message".to_owned(), json!("hi"))]);
    assert_eq!(body(&h.log.borrow().requests[3]), json!({"jsonrpc":"2.0","id":0,"result":{}}));
}

/// `initialize` answered with a JSON-RPC error: JSONRPC_ERROR with its data (`supported`).
#[test]
fn an_initialize_error_keeps_its_data() {
    let refused = json_reply(json!({"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"Unsupported protocol version","data":{"supported":["2024-11-05"],"requested":"2025-11-25"}}}));
    let h = harness(vec![refused]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["rpcCode"].clone()), (ErrorCode::JsonRpcError, json!(-32602)));
    assert_eq!(e.details.as_ref().unwrap()["data"]["supported"], json!(["2024-11-05"]));
    assert_eq!(h.log.borrow().requests.len(), 1, "no notifications/initialized");
}

/// The session id is taken from the initialize response only: one on a later response is ignored.
#[test]
fn the_session_id_comes_from_the_handshake_only() {
    let mut later = json_reply(json!({"jsonrpc":"2.0","id":1,"result":{"tools":[]}}));
    if let Reply::Http { headers, .. } = &mut later {
        headers.push(("mcp-session-id", "other".into()));
    }
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), later, Reply::Echo(json!({"tools": []}))]);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    assert_eq!(h.client.session_id().as_deref(), Some("s"));
    assert_eq!(header(&h.log.borrow().requests[3], "mcp-session-id"), Some("s"));
}

/// Keep-alive comments are chunks: each starts the idle timeout again, so a stream that only
/// keeps alive for a while and then answers is not cut.
#[test]
fn keep_alive_comments_keep_the_idle_timeout_away() {
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.idle_timeout_ms = Some(1_000);
    let mut chunks: Vec<Vec<u8>> = (0..50).map(|_| b": keep-alive\n\n".to_vec()).collect();
    chunks.push(b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}\n\n".to_vec());
    let stream = Reply::Http { status: 200, headers: vec![("content-type", "text/event-stream".into())], chunks, then_hang: false, then_error: false };
    // Sleeps of the idle timeout never end by themselves here: the chunks win each race.
    let h = harness_with(vec![init_reply("2025-11-25", None), accepted(), stream], opts, 0);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.request("x", json!({}), &mut CallOptions::default())).unwrap(), json!({"ok": true}));
    assert!(h.slept.borrow().iter().filter(|&&ms| ms == 1_000).count() >= 50, "the idle timer started again per chunk");
}

/// A JSON response with parameters in its content type is JSON; 406 and 415 (headers the server
/// did not take) are HTTP errors naming the status, and the client stays usable.
#[test]
fn content_type_parameters_and_refused_headers() {
    let mut charset = json_reply(json!({"jsonrpc":"2.0","id":1,"result":{"ok":true}}));
    if let Reply::Http { headers, .. } = &mut charset {
        headers[0].1 = "application/json; charset=utf-8".into();
    }
    let h = harness(vec![
        init_reply("2025-11-25", None),
        accepted(),
        charset,
        status_reply(406, vec![], "Not Acceptable: Client must accept both application/json and text/event-stream"),
        status_reply(415, vec![], "Unsupported Media Type: Content-Type must be application/json"),
        Reply::Echo(json!({"ok": 2})),
    ]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.request("x", json!({}), &mut CallOptions::default())).unwrap(), json!({"ok": true}));
    for status in [406, 415] {
        let e = block_on(h.client.request("x", json!({}), &mut CallOptions::default())).unwrap_err();
        assert_eq!((e.code, e.details.as_ref().unwrap()["status"].clone()), (ErrorCode::HttpStatus, json!(status)));
        assert!(e.message.contains(&format!("HTTP {status}")), "{}", e.message);
    }
    assert_eq!(block_on(h.client.request("x", json!({}), &mut CallOptions::default())).unwrap(), json!({"ok": 2}));
}

/// Content the client does not interpret (audio, a type from a later revision, structured content
/// that is not an object) comes back exactly as the server sent it.
#[test]
fn tool_results_come_back_as_sent() {
    let result = json!({"content": [
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
        {"type": "hologram", "frames": [1, 2]},
        {"type": "text", "text": "ok", "annotations": {"audience": ["user"]}}
    ], "structuredContent": [1, "two"], "isError": false, "_meta": {"x": 1}});
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), Reply::Echo(result.clone())]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap(), result);
}

/// A result without `content` has `content: []`, as the SDK's `CallToolResultSchema` defaults it
/// (so that what reads a result's blocks can read it), with every other field as the server sent it.
#[test]
fn a_tool_result_without_content_has_an_empty_one() {
    for (result, expected) in [
        (json!({}), json!({"content": []})),
        (json!({"structuredContent": {"sum": 3}, "isError": false, "_meta": {"x": 1}}), json!({"content": [], "structuredContent": {"sum": 3}, "isError": false, "_meta": {"x": 1}})),
        // An `isError` of another type made the boolean it reads as (s22d F5).
        (json!({"content": [], "isError": "false"}), json!({"content": [], "isError": false})),
        (json!({"content": [], "isError": "yes"}), json!({"content": [], "isError": true})),
        (json!({"content": [], "isError": null}), json!({"content": [], "isError": false})),
    ] {
        let h = harness(vec![init_reply("2025-11-25", None), accepted(), Reply::Echo(result)]);
        block_on(h.client.connect()).unwrap();
        assert_eq!(block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap(), expected);
    }
}

#[test]
fn dropped_stream_resumes_with_last_event_id() {
    let first = "id: ev-1\nretry: 25\ndata:\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\nid: ev-2\n\n";
    let resumed = "id: ev-3\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"done\":true}}\n\n";
    let mut broken = sse_reply(first, 9);
    if let Reply::Http { then_error, .. } = &mut broken {
        *then_error = true;
    }
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), broken, sse_reply(resumed, 4)]);
    block_on(h.client.connect()).unwrap();
    let r = block_on(h.client.call_tool("long", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(r, json!({"done": true, "content": []}));
    let log = h.log.borrow();
    let get = &log.requests[3];
    assert_eq!(get.method, Method::Get);
    assert_eq!(header(get, "last-event-id"), Some("ev-2"));
    assert_eq!(header(get, "mcp-session-id"), Some("s"));
    // The server asked for 25 ms: 100 are waited, the least between two openings.
    assert!(h.slept.borrow().contains(&100) && !h.slept.borrow().contains(&25), "waited 100 ms: {:?}", h.slept.borrow());
}

/// A stream that drops after `text` (split in chunks of 7).
fn dropping(text: &str) -> Reply {
    let mut r = sse_reply(text, 7);
    if let Reply::Http { then_error, .. } = &mut r {
        *then_error = true;
    }
    r
}

const PROGRESS_1: &str = "id: e1\nretry: 5\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n";
const RESULT_1: &str = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"done\":true}}\n\n";

fn gets(h: &Harness) -> Vec<Option<String>> {
    h.log.borrow().requests.iter().filter(|r| r.method == Method::Get).map(|r| header(r, "last-event-id").map(str::to_owned)).collect()
}

/// A reopening that fails in a way that may pass (5xx, no response) is tried again; the call
/// gets its result from the stream that finally opens.
#[test]
fn a_failed_resumption_is_retried() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        dropping(PROGRESS_1),
        status_reply(503, vec![], "busy"),
        Reply::NetworkError,
        sse_reply(RESULT_1, 5),
    ]);
    block_on(h.client.connect()).unwrap();
    let r = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(r, json!({"done": true, "content": []}));
    assert_eq!(gets(&h), vec![Some("e1".to_owned()); 3]);
}

/// A 409 to the resumption (the MCP SDK's server: "Stream already has an active connection",
/// while it still holds its side of the dropped stream) may pass: tried again after the wait, the
/// call gets its result; 409s past `max_retries` end it with the last status.
#[test]
fn a_resumption_refused_409_is_retried() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        dropping(PROGRESS_1),
        status_reply(409, vec![("content-type", "application/json".into())], r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Conflict: Stream already has an active connection"},"id":null}"#),
        sse_reply(RESULT_1, 0),
    ]);
    block_on(h.client.connect()).unwrap();
    let r = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(r, json!({"done": true, "content": []}));
    assert_eq!(gets(&h), vec![Some("e1".to_owned()); 2]);
    let waits: Vec<u64> = h.slept.borrow().iter().copied().filter(|&ms| ms < 120_000).collect();
    assert_eq!(waits, vec![100, 100], "the server's retry (at least 100 ms) before each opening, besides the timeouts");

    let h = harness(vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        dropping(PROGRESS_1),
        status_reply(409, vec![], ""),
        status_reply(425, vec![], ""),
        status_reply(409, vec![], ""),
        sse_reply(RESULT_1, 0),
    ]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["status"].clone()), (ErrorCode::Protocol, json!(409)), "{e:?}");
    assert!(e.message.contains("3 attempts in a row, the last got HTTP 409"), "{}", e.message);
    assert_eq!(gets(&h).len(), 3, "max_retries (2) retries after the first 409");
}

/// `max_retries` failures in a row are retried, the next one ends the call with PROTOCOL and
/// the last status; a 4xx other than 408, 409, 425 and 429 ends it at once.
#[test]
fn resumption_gives_up_after_max_retries_failures_in_a_row_or_a_refusal() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        dropping(PROGRESS_1),
        status_reply(500, vec![], ""),
        status_reply(429, vec![], ""),
        status_reply(502, vec![], ""),
        sse_reply(RESULT_1, 0),
    ]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol, "{e:?}");
    assert_eq!(e.details.as_ref().unwrap()["status"], 502);
    assert_eq!(gets(&h).len(), 3, "max_retries (2) retries after the first failure");

    for refused in [404, 405, 400] {
        let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), dropping(PROGRESS_1), status_reply(refused, vec![], ""), sse_reply(RESULT_1, 0)]);
        block_on(h.client.connect()).unwrap();
        let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
        assert_eq!((e.code, e.details.as_ref().unwrap()["status"].clone()), (ErrorCode::Protocol, json!(refused)));
        assert_eq!(gets(&h).len(), 1, "HTTP {refused} is not retried");
    }
}

/// A server that closes the stream after every event (and has the client poll) is followed for
/// as long as it brings new events, past `max_retries`; a reopened stream that drops before an
/// id of its own resumes from the last id of the earlier ones; progress comes once per event.
#[test]
fn a_polling_server_is_followed_while_it_brings_new_events() {
    let event = |id: &str, p: u32| format!("id: {id}\nretry: 5\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":1,\"progress\":{p}}}}}\n\n");
    let h = harness(vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        dropping(&event("e1", 1)),
        dropping(&event("e2", 2)),
        dropping(&event("e3", 3)),
        dropping(&event("e4", 4)),
        // No id of its own: resumed from e4 again.
        dropping(": keep-alive\n\n"),
        sse_reply(RESULT_1, 0),
    ]);
    block_on(h.client.connect()).unwrap();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let log = seen.clone();
    let mut opts = CallOptions { on_progress: Some(Box::new(move |p: &Value| log.borrow_mut().push(p["progress"].clone()))), ..CallOptions::default() };
    let r = block_on(h.client.call_tool("t", json!({}), &mut opts)).unwrap();
    assert_eq!(r, json!({"done": true, "content": []}));
    let ids: Vec<Option<String>> = ["e1", "e2", "e3", "e4", "e4"].iter().map(|s| Some((*s).to_owned())).collect();
    assert_eq!(gets(&h), ids);
    assert_eq!(*seen.borrow(), vec![json!(1), json!(2), json!(3), json!(4)]);
}

/// The `id:` of an event the stream dropped in the middle of is not resumed from (the server
/// would replay what comes after it, the event itself lost): the last complete event's is.
#[test]
fn resumption_starts_after_the_last_complete_event() {
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), dropping(&format!("{PROGRESS_1}id: e2\ndata: {{\"jsonrpc\"")), sse_reply(RESULT_1, 0)]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap(), json!({"done": true, "content": []}));
    assert_eq!(gets(&h), vec![Some("e1".to_owned())]);
}

/// Reopenings that succeed but bring no event (a polling server with nothing new yet) are not
/// failures, however many; `retry: 0` still waits 100 ms, then longer for each in a row.
#[test]
fn successful_reopenings_without_events_are_not_failures() {
    let zero = "id: e1\nretry: 0\ndata:\n\n";
    let h = harness(vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        dropping(zero),
        dropping(": nothing yet\n\n"),
        dropping(": nothing yet\n\n"),
        dropping(": nothing yet\n\n"),
        dropping(": nothing yet\n\n"),
        sse_reply(RESULT_1, 0),
    ]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap(), json!({"done": true, "content": []}));
    assert_eq!(gets(&h).len(), 5);
    assert_eq!(h.slept.borrow()[h.slept.borrow().len() - 5..], [100, 200, 400, 800, 1000]);
}

/// The waits asked of the clock but the requests' timeouts (the default 120 s).
fn waits(h: &Harness) -> Vec<u64> {
    h.slept.borrow().iter().copied().filter(|&ms| ms != 120_000).collect()
}

/// A server that ends every stream at once with `retry: 0`: a call's streams that bring messages
/// for others only (log messages, pings) are reopened ever more slowly, from 100 ms to 1 s; ones
/// that bring its progress (or a request of the server's) every 100 ms, never at once.
#[test]
fn streams_that_bring_nothing_toward_the_response_are_reopened_ever_more_slowly() {
    let log = |n: u32| format!("id: l{n}\nretry: 0\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":{n}}}}}\n\n");
    let ping = |n: u32| format!("id: p{n}\nretry: 0\ndata: {{\"jsonrpc\":\"2.0\",\"id\":\"ping-{n}\",\"method\":\"ping\"}}\n\n");
    let mut replies = vec![init_reply("2025-11-25", Some("s")), accepted()];
    replies.extend((1..=6).map(|n| dropping(&log(n))));
    replies.push(dropping(&ping(7)));
    replies.push(accepted());
    replies.push(sse_reply(RESULT_1, 0));
    let h = harness(replies);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap(), json!({"done": true, "content": []}));
    assert_eq!(gets(&h).len(), 7);
    assert_eq!(waits(&h), [100, 200, 400, 800, 1000, 1000, 1000]);

    let progress = |n: u32| format!("id: e{n}\nretry: 0\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":1,\"progress\":{n}}}}}\n\n");
    let elicit = "id: q1\nretry: 0\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"q\",\"method\":\"roots/list\"}\n\n";
    let mut replies = vec![init_reply("2025-11-25", Some("s")), accepted()];
    replies.extend((1..=4).map(|n| dropping(&progress(n))));
    replies.push(dropping(elicit));
    replies.push(accepted());
    replies.push(dropping(&log(9)));
    replies.push(sse_reply(RESULT_1, 0));
    let h = harness(replies);
    block_on(h.client.connect()).unwrap();
    let mut opts = CallOptions { on_progress: Some(Box::new(|_: &Value| {})), ..CallOptions::default() };
    assert_eq!(block_on(h.client.call_tool("t", json!({}), &mut opts)).unwrap(), json!({"done": true, "content": []}));
    assert_eq!(waits(&h), [100, 100, 100, 100, 100, 100], "progress, then a request: each 100 ms; then a log: 100 ms");
}

/// The polling pattern of 2025-11-25: a server that ends the stream after a priming event with
/// `retry` and answers later is polled at its `retry` however many streams bring nothing new, as
/// long as that is more than the floor (1 s at most).
#[test]
fn a_polling_server_with_nothing_new_is_polled_at_its_retry() {
    let priming = |n: u32| format!("id: e{n}\nretry: 1500\ndata:\n\n");
    let mut replies = vec![init_reply("2025-11-25", Some("s")), accepted()];
    replies.extend((1..=8).map(|n| dropping(&priming(n))));
    replies.push(sse_reply(RESULT_1, 0));
    let h = harness(replies);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap(), json!({"done": true, "content": []}));
    assert_eq!(waits(&h), [1500; 8]);
}

/// `listen()`'s streams: each that brings a message (any) is reopened after 100 ms whatever
/// `retry` says (at most ten times a second); each in a row that brings none, ever more slowly.
#[test]
fn listen_reopens_at_most_ten_times_a_second_and_slower_while_streams_bring_nothing() {
    let log = |n: u32| format!("id: l{n}\nretry: 0\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"data\":{n}}}}}\n\n");
    let mut replies = vec![init_reply("2025-11-25", Some("s")), accepted()];
    replies.extend((1..=3).map(|n| sse_reply(&log(n), 0)));
    replies.extend((0..6).map(|_| sse_reply(": nothing\n\n", 0)));
    replies.push(sse_reply(&log(4), 0));
    replies.push(status_reply(401, vec![], ""));
    let h = harness(replies);
    let heard = Rc::new(Cell::new(0));
    let count = heard.clone();
    h.client.set_notification_handler(Some(Box::new(move |_: &str, _: &Value| count.set(count.get() + 1))));
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.listen()).unwrap_err().code, ErrorCode::Unauthorized);
    assert_eq!(heard.get(), 4);
    // The last: the bound on reading the 401's body (`ERROR_BODY_MS`), not a reopening.
    assert_eq!(waits(&h), [100, 100, 100, 100, 200, 400, 800, 1000, 1000, 100, 1000]);
    assert_eq!(gets(&h).len(), 11, "ten reopenings after the first opening, none after the 401");
}

/// An event id a header cannot carry (not printable ASCII, or a space at an end: fetch would
/// throw, or send other bytes) is ignored for `Last-Event-ID`, as one with NUL is: the stream
/// resumes from the last id that can go back, or, without one, its end is the call's error, which
/// says why. A reopening that gets no response says what the transport said.
#[test]
fn event_ids_a_header_cannot_carry_are_not_resumed_from() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        dropping(&format!("{PROGRESS_1}id: 日本-1\ndata:\n\nid: tab\there\ndata:\n\nid:  e9\ndata:\n\n")),
        sse_reply(RESULT_1, 0),
    ]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap(), json!({"done": true, "content": []}));
    assert_eq!(gets(&h), [Some("e1".to_owned())]);

    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), sse_reply("id: 日本-1\nretry: 50\ndata:\n\n", 0), sse_reply(RESULT_1, 0)]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert!(e.message.contains("ended before the response; it cannot be resumed: its event id \"日本-1\" cannot go back in Last-Event-ID"), "{e}");
    assert!(gets(&h).is_empty());

    // The id is the server's text: what would act on a terminal or a page rather than show is escaped.
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), sse_reply("id: a\u{202e}b\u{9b}c\u{85}d\u{2066}\nretry: 50\ndata:\n\n", 0)]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert!(e.message.contains("its event id \"a\\u202eb\\u009bc\\u0085d\\u2066\" cannot go back"), "{e}");

    // listen(): reopened from the last id that can go back.
    let log = |id: &str| format!("id: {id}\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{}}}}\n\n");
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), sse_reply(&format!("{}{}", log("l1"), log("日本-2")), 0), status_reply(401, vec![], "")]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.listen()).unwrap_err().code, ErrorCode::Unauthorized);
    assert_eq!(gets(&h), [None, Some("l1".to_owned())]);
}

/// A resumption that got no HTTP response at all (a server gone, a browser's CORS refusing the GET
/// for its `Last-Event-ID`) is `NETWORK`, as any request without one is, and says what fetch said
/// and what the hint of such requests says, with the header a server's CORS most often leaves out.
/// One whose last reopening the server answered wrongly is `PROTOCOL`; a connection the server
/// closed is not said to be unreachable.
#[test]
fn a_reopening_without_a_response_says_why() {
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), dropping(PROGRESS_1), Reply::NetworkError, Reply::NetworkError, Reply::NetworkError]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Network, "{e}");
    assert!(e.message.contains("could not be resumed (3 attempts in a row, the last got no response: TypeError: Failed to fetch); the server is unreachable, or (from a browser) refused by a Content Security Policy"), "{e}");
    assert!(e.message.ends_with("(README, \"CORS\"); a reopening sends last-event-id, which Access-Control-Allow-Headers must list"), "{e}");

    let reset = "TypeError: fetch failed: other side closed";
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), dropping(PROGRESS_1), Reply::NetworkError, Reply::NetworkErrorSaying(reset), Reply::NetworkErrorSaying(reset)]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Network, "{e}");
    assert!(e.message.ends_with(&format!("(3 attempts in a row, the last got no response: {reset})")), "{e}");

    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), dropping(PROGRESS_1), Reply::NetworkError, Reply::NetworkError, status_reply(503, vec![], "")]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol, "{e}");
    assert!(e.message.ends_with("(3 attempts in a row, the last got HTTP 503)"), "{e}");
}

/// An empty `id:` clears the last event id: a stream that then drops cannot be resumed.
#[test]
fn an_empty_event_id_leaves_nothing_to_resume_from() {
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), dropping("id: e1\ndata:\n\nid:\ndata:\n\n"), sse_reply(RESULT_1, 0)]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Network, "{e:?}");
    assert!(gets(&h).is_empty());
}

/// An event the stream ends in the middle of (no blank line after it) is never dispatched, even
/// when its data would be the response: the call fails instead of using a truncated event.
#[test]
fn an_unterminated_last_event_is_not_a_response() {
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), sse_reply("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n", 0)]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert!(e.message.contains("ended before the response"), "{}", e.message);
}

#[test]
fn a_stream_without_event_ids_that_ends_early_is_a_protocol_error() {
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), sse_reply("data: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n", 0)]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
}

/// The connected handler hears of every handshake that succeeds (a renewal's too), and of no
/// failed one.
#[test]
fn the_connected_handler_hears_of_each_new_session() {
    let h = harness(vec![
        init_reply("1999-01-01", None),
        init_reply_id(1, "2025-11-25", Some("old")),
        accepted(),
        status_reply(404, vec![], "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}"),
        init_reply_id(3, "2025-11-25", Some("new")),
        accepted(),
        json_reply(json!({"jsonrpc":"2.0","id":4,"result":{"tools":[]}})),
    ]);
    let told = Rc::new(std::cell::Cell::new(0));
    let count = told.clone();
    h.client.set_connected_handler(Some(Box::new(move || count.set(count.get() + 1))));
    block_on(h.client.connect()).unwrap_err();
    assert_eq!(told.get(), 0, "a failed handshake");
    block_on(h.client.connect()).unwrap();
    assert_eq!(told.get(), 1);
    block_on(h.client.list_tools()).unwrap();
    assert_eq!(told.get(), 2, "the renewal");
    assert_eq!(h.client.session_id().as_deref(), Some("new"));
}

#[test]
fn expired_session_reinitializes_once_and_retries() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        status_reply(404, vec![], "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}"),
        init_reply_id(2, "2025-11-25", Some("new")),
        accepted(),
        json_reply(json!({"jsonrpc":"2.0","id":3,"result":{"tools":[]}})),
    ]);
    block_on(h.client.connect()).unwrap();
    let tools = block_on(h.client.list_tools()).unwrap();
    assert!(tools.is_empty());
    let log = h.log.borrow();
    assert_eq!(body(&log.requests[3])["method"], "initialize");
    assert_eq!(header(&log.requests[3], "mcp-session-id"), None);
    assert_eq!(header(&log.requests[5], "mcp-session-id"), Some("new"));
    // A second 404 in a row is not retried forever.
    drop(log);
    let h = harness(vec![init_reply("2025-11-25", Some("a")), accepted(), status_reply(404, vec![], ""), init_reply_id(2, "2025-11-25", Some("b")), accepted(), status_reply(404, vec![], "")]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.code, ErrorCode::HttpStatus);
    assert_eq!(e.details.as_ref().unwrap()["status"], 404);
}

/// A session renewal that fails (the restarting server answers 503) is tried again by the next
/// request, which then succeeds on the new session: the client is not left refusing every
/// request with "call connect() before". After close() a request is refused again.
#[test]
fn a_failed_session_renewal_is_tried_again_by_the_next_request() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        status_reply(404, vec![], ""),
        status_reply(503, vec![], "warming up"),
        init_reply_id(3, "2025-11-25", Some("new")),
        accepted(),
        Reply::Echo(json!({"content": []})),
        accepted(),
    ]);
    block_on(h.client.connect()).unwrap();
    let call = || block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default()));
    let e = call().unwrap_err();
    assert_eq!(e.code, ErrorCode::HttpStatus, "{e}");
    assert!(e.message.starts_with("initialize: HTTP 503"), "{e}");
    assert_eq!(call().unwrap(), json!({"content": []}));
    {
        let log = h.log.borrow();
        assert_eq!(body(&log.requests[4])["method"], "initialize");
        assert_eq!(header(&log.requests[4], "mcp-session-id"), None);
        assert_eq!(header(&log.requests[6], "mcp-session-id"), Some("new"));
    }
    block_on(h.client.close()).unwrap();
    let sent = h.log.borrow().requests.len();
    assert_eq!(call().unwrap_err().code, ErrorCode::NotConnected);
    assert_eq!(h.log.borrow().requests.len(), sent, "nothing sent after close()");
}

/// A server that closes the connection after the request came, before its headers (it died
/// running the tool), is not said to be unreachable: the request may have run (`requestSent`).
/// One that refuses the connection still is.
#[test]
fn a_connection_lost_after_the_request_was_sent_is_not_an_unreachable_server() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        Reply::NetworkErrorSaying("TypeError: fetch failed: other side closed"),
        Reply::NetworkErrorSaying("TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:9"),
    ]);
    block_on(h.client.connect()).unwrap();
    let call = || block_on(h.client.call_tool("transfer", json!({}), &mut CallOptions::default())).unwrap_err();
    let lost = call();
    assert_eq!(lost.code, ErrorCode::Network, "{lost}");
    assert!(lost.message.contains("the connection was lost after the request was sent") && lost.message.contains("other side closed"), "{lost}");
    assert!(!lost.message.contains("unreachable"), "{lost}");
    assert_eq!(lost.details.as_ref().and_then(|d| d.get("requestSent")), Some(&json!(true)));
    let refused = call();
    assert_eq!(refused.code, ErrorCode::Network, "{refused}");
    assert!(refused.message.contains("unreachable"), "{refused}");
    assert!(refused.details.as_ref().is_none_or(|d| !d.contains_key("requestSent")), "{refused}");
}

/// A response Node's fetch refused to read (a header with a control byte, headers past 16 KB)
/// came from a server that read the request: not unreachable, `requestSent`, and said to be an
/// answer that could not be read. Node's fetch giving up on its own 300 s timer says so, and how
/// to lift it, before the headers and in the middle of a body.
#[test]
fn a_response_fetch_would_not_read_or_stopped_waiting_for_was_sent() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        Reply::NetworkErrorSaying("TypeError: fetch failed: Response does not match the HTTP/1.1 protocol (Invalid header value char) (HPE_INVALID_HEADER_TOKEN)"),
        Reply::NetworkErrorSaying("TypeError: fetch failed: Headers Overflow Error (UND_ERR_HEADERS_OVERFLOW)"),
        Reply::NetworkErrorSaying("TypeError: fetch failed: Headers Timeout Error (UND_ERR_HEADERS_TIMEOUT)"),
    ]);
    block_on(h.client.connect()).unwrap();
    let call = || block_on(h.client.call_tool("transfer", json!({}), &mut CallOptions::default())).unwrap_err();
    for said in ["Invalid header value char", "Headers Overflow Error"] {
        let e = call();
        assert_eq!(e.code, ErrorCode::Network, "{e}");
        assert!(e.message.contains("the server's response could not be read") && e.message.contains(said), "{e}");
        assert!(!e.message.contains("unreachable"), "{e}");
        assert_eq!(e.details.as_ref().and_then(|d| d.get("requestSent")), Some(&json!(true)));
    }
    let e = call();
    assert!(e.message.contains("no response came before the fetch's own timeout") && e.message.contains("undici package's own fetch with an Agent whose headersTimeout and bodyTimeout are 0"), "{e}");
    assert!(!e.message.contains("unreachable"), "{e}");
    assert_eq!(e.details.as_ref().and_then(|d| d.get("requestSent")), Some(&json!(true)));
    let e = body_error(TransportError::Network("TypeError: terminated: Body Timeout Error (UND_ERR_BODY_TIMEOUT)".into()), "tools/call");
    assert!(e.message.contains("broke off after its headers; this is Node's fetch (undici) giving up on its own after 300 s"), "{e}");
    let e = body_error(TransportError::Network("TypeError: terminated: other side closed".into()), "tools/call");
    assert!(!e.message.contains("undici"), "{e}");
}

/// Overlapping listings: one that started before an announced change and ends after one that
/// started after it does not replace what the newer one stored (the output schemas a result is
/// checked against), nor mark the tools fresh again.
#[test]
fn an_older_listing_that_ends_last_does_not_replace_the_newer_one() {
    let tools = |field: &str| json!({"tools": [{"name": "st", "outputSchema": {"type": "object", "required": [field]}}]});
    let changed = format!(
        "data: {}\n\ndata: {}\n\n",
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": []}})
    );
    let h = harness(vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        Reply::Later(20, Box::new(Reply::Echo(tools("a")))),
        sse_reply(&changed, 0),
        Reply::Echo(tools("b")),
        Reply::Echo(json!({"content": [], "structuredContent": {"b": 1}})),
    ]);
    block_on(h.client.connect()).unwrap();
    let (older, newer) = block_on(futures_util::future::join(h.client.list_tools(), async {
        h.client.call_tool("other", json!({}), &mut CallOptions::default()).await.unwrap();
        assert!(h.client.tools_changed());
        h.client.list_tools().await
    }));
    assert_eq!(older.unwrap()[0]["outputSchema"]["required"], json!(["a"]), "the older listing still answers with what it found");
    assert_eq!(newer.unwrap()[0]["outputSchema"]["required"], json!(["b"]));
    assert!(!h.client.tools_changed());
    let result = block_on(h.client.call_tool("st", json!({}), &mut CallOptions::default()));
    assert_eq!(result.unwrap()["structuredContent"], json!({"b": 1}), "checked against the newer listing's schema");
}

/// A listing that started before an announced change, and ends after it, leaves the tools
/// changed: it may not have what the change brought.
#[test]
fn a_listing_that_started_before_a_change_leaves_the_tools_changed() {
    let changed = format!(
        "data: {}\n\ndata: {}\n\n",
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": []}})
    );
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), Reply::Later(20, Box::new(Reply::Echo(json!({"tools": []})))), sse_reply(&changed, 0)]);
    block_on(h.client.connect()).unwrap();
    let (listed, called) = block_on(futures_util::future::join(h.client.list_tools(), h.client.call_tool("other", json!({}), &mut CallOptions::default())));
    listed.unwrap();
    called.unwrap();
    assert!(h.client.tools_changed());
}

/// listen() after a renewal that failed renews the session too (s22r F5: it said "call
/// connect() before listen()" until another request renewed it).
#[test]
fn listen_after_a_failed_session_renewal_renews_it() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        status_reply(404, vec![], ""),
        status_reply(503, vec![], "warming up"),
        init_reply_id(3, "2025-11-25", Some("new")),
        accepted(),
        status_reply(405, vec![], ""),
    ]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err().code, ErrorCode::HttpStatus);
    assert!(!block_on(h.client.listen()).unwrap(), "the server offers no stream");
    let log = h.log.borrow();
    assert_eq!(body(&log.requests[4])["method"], "initialize");
    assert_eq!(log.requests[6].method, Method::Get);
    assert_eq!(header(&log.requests[6], "mcp-session-id"), Some("new"));
}

/// Pending once, woken at once: lets the other futures of a `join!` run.
pub(crate) async fn yield_now() {
    let mut yielded = false;
    std::future::poll_fn(move |cx| {
        if yielded {
            return std::task::Poll::Ready(());
        }
        yielded = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    })
    .await
}

/// Requests that meet a 404 together renew the session once: the others wait for the new
/// session (and a request made meanwhile too) instead of opening sessions of their own.
#[test]
fn concurrent_404s_renew_the_session_once() {
    let expired = || Reply::Later(2, Box::new(status_reply(404, vec![], "")));
    let h = harness(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        expired(),
        expired(),
        Reply::Later(3, Box::new(init_reply_id(3, "2025-11-25", Some("new")))),
        accepted(),
        Reply::Echo(json!({"tools": [{"name": "a"}]})),
        Reply::Echo(json!({"tools": [{"name": "a"}]})),
        Reply::Echo(json!({"content": []})),
    ]);
    block_on(h.client.connect()).unwrap();
    let (a, b, c) = block_on(async {
        let a = h.client.list_tools();
        let b = h.client.list_tools();
        // Started once the first 404 has come back: it waits for the new session.
        let c = async {
            while !h.client.reinitializing.get() {
                yield_now().await;
            }
            h.client.call_tool("t", json!({}), &mut CallOptions::default()).await
        };
        futures_util::join!(a, b, c)
    });
    assert_eq!(a.unwrap().len(), 1);
    assert_eq!(b.unwrap().len(), 1);
    assert_eq!(c.unwrap(), json!({"content": []}));
    let log = h.log.borrow();
    let inits = log.requests.iter().filter(|r| body(r)["method"] == "initialize").count();
    assert_eq!(inits, 2, "the connect and one renewal");
    assert!(log.requests[6..].iter().all(|r| header(r, "mcp-session-id") == Some("new")));
    assert_eq!(h.client.session_id().as_deref(), Some("new"));
}

/// A listing whose first page was answered on the old session while another request renewed
/// it (a cursor of the old session) starts over on the new one.
#[test]
fn listing_starts_over_after_another_requests_renewal() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        Reply::Later(3, Box::new(Reply::Echo(json!({"tools": [{"name": "a"}], "nextCursor": "old-2"})))),
        Reply::Later(1, Box::new(status_reply(404, vec![], ""))),
        init_reply_id(3, "2025-11-25", Some("new")),
        accepted(),
        Reply::Echo(json!({"content": []})),
        Reply::Echo(json!({"tools": [{"name": "a"}], "nextCursor": "new-2"})),
        Reply::Echo(json!({"tools": [{"name": "b"}]})),
    ]);
    block_on(h.client.connect()).unwrap();
    let mut opts = CallOptions::default();
    let (listed, called) = block_on(async { futures_util::join!(h.client.list_tools(), h.client.call_tool("t", json!({}), &mut opts)) });
    assert_eq!(called.unwrap(), json!({"content": []}));
    let names: Vec<String> = listed.unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    assert_eq!(names, ["a", "b"]);
    let log = h.log.borrow();
    let cursors: Vec<Value> = log.requests.iter().filter(|r| body(r)["method"] == "tools/list").map(|r| body(r)["params"]["cursor"].clone()).collect();
    assert_eq!(cursors, [Value::Null, Value::Null, json!("new-2")]);
}

/// A renewal that fails is the outcome of every request that waited for it (one handshake, not
/// one per request); a renewal whose future is dropped half-way lets the others go on (none
/// waits for ever), and the next request renews the session itself.
#[test]
fn a_failed_or_dropped_renewal_ends_the_wait() {
    let expired = || Reply::Later(2, Box::new(status_reply(404, vec![], "")));
    let h = harness(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        expired(),
        expired(),
        Reply::Later(3, Box::new(status_reply(500, vec![], "down"))),
    ]);
    block_on(h.client.connect()).unwrap();
    let (a, b) = block_on(async { futures_util::join!(h.client.list_tools(), h.client.list_tools()) });
    assert_eq!(a.unwrap_err().code, ErrorCode::HttpStatus);
    assert_eq!(b.unwrap_err().code, ErrorCode::NotConnected);
    let inits = h.log.borrow().requests.iter().filter(|r| body(r)["method"] == "initialize").count();
    assert_eq!(inits, 2, "the connect and one renewal");

    // A renewal dropped unfinished: the next request renews the session again.
    let h = harness(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        status_reply(404, vec![], ""),
        Reply::Hang,
        Reply::Echo(json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "test", "version": "1"}})),
        accepted(),
        Reply::Echo(json!({"content": []})),
    ]);
    block_on(h.client.connect()).unwrap();
    let mut listing = Box::pin(h.client.list_tools());
    let waker = futures_util::task::noop_waker();
    assert!(listing.as_mut().poll(&mut std::task::Context::from_waker(&waker)).is_pending());
    assert!(h.client.reinitializing.get(), "the renewal's handshake hangs");
    drop(listing);
    assert!(!h.client.reinitializing.get());
    assert_eq!(block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap(), json!({"content": []}));
    let inits = h.log.borrow().requests.iter().filter(|r| body(r)["method"] == "initialize").count();
    assert_eq!(inits, 3, "the connect, the dropped renewal, and the call's");
}

/// A call that waits for another request's renewal keeps its own timeout (and abort).
#[test]
fn waiting_for_a_renewal_keeps_the_calls_timeout() {
    let h = harness_with(
        vec![init_reply("2025-11-25", Some("old")), accepted(), Reply::Later(1, Box::new(status_reply(404, vec![], ""))), Reply::Hang],
        ClientOptions::new("http://127.0.0.1/mcp"),
        500,
    );
    block_on(h.client.connect()).unwrap();
    // The listing's renewal hangs (its handshake has the client's 120 s); the call's 300 ms
    // timeout, a sleep the fake clock ends at once, ends the wait.
    let call = block_on(async {
        let listing = Box::pin(h.client.list_tools());
        let call = Box::pin(async {
            while !h.client.reinitializing.get() {
                yield_now().await;
            }
            h.client.call_tool("t", json!({}), &mut CallOptions { timeout_ms: Some(300), ..CallOptions::default() }).await
        });
        match select(listing, call).await {
            Either::Right((call, _)) => call,
            Either::Left((listed, _)) => panic!("the listing ended first: {listed:?}"),
        }
    });
    let e = call.unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{e:?}");
    assert!(e.message.contains("waiting for the session to be renewed"), "{}", e.message);
}

/// The call that meets the 404 and drives the renewal keeps its own timeout and abort too: the
/// handshake has the client's 120 s (here it never ends, or ends only in the background), the
/// call its 300 ms, or its signal. With a spawner the handshake goes on in the background and the
/// next call has the new session; without one it is dropped (its fetch aborted).
#[test]
fn driving_a_renewal_keeps_the_calls_timeout_and_abort() {
    let replies = || {
        vec![
            init_reply("2025-11-25", Some("old")),
            accepted(),
            status_reply(404, vec![], ""),
            Reply::Later(5, Box::new(init_reply_id(2, "2025-11-25", Some("new")))),
            accepted(),
            Reply::Echo(json!({"content": []})),
        ]
    };
    for abort in [false, true] {
        let Harness { client, log, .. } = harness_with(replies(), ClientOptions::new("http://127.0.0.1/mcp"), 500);
        let client = Rc::new(client);
        let (spawn, spawned) = spawner();
        client.set_spawner(Some(spawn));
        block_on(client.connect()).unwrap();
        let mut opts = if abort { CallOptions { cancel: cancelled_later(), ..CallOptions::default() } } else { CallOptions { timeout_ms: Some(300), ..CallOptions::default() } };
        let e = bounded(client.call_tool("t", json!({}), &mut opts), 1_000).expect("settled at its deadline or abort").unwrap_err();
        if abort {
            assert_eq!(e.code, ErrorCode::Aborted, "{e:?}");
        } else {
            assert_eq!(e.code, ErrorCode::Timeout, "{e:?}");
            assert!(e.message.contains("waiting for the session to be renewed"), "{}", e.message);
        }
        assert!(client.reinitializing.get(), "the renewal goes on");
        assert_eq!(spawned.borrow().len(), 1, "handed to the spawner");
        let mut pool = futures_executor::LocalPool::new();
        spawn_into(&pool, &spawned);
        pool.run_until_stalled();
        assert!(!client.reinitializing.get());
        assert_eq!(client.session_id().as_deref(), Some("new"));
        assert_eq!(block_on(client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap(), json!({"content": []}));
        let inits = log.borrow().requests.iter().filter(|r| body(r)["method"] == "initialize").count();
        assert_eq!(inits, 2, "the connect and one renewal");
    }

    let h = harness_with(vec![init_reply("2025-11-25", Some("old")), accepted(), status_reply(404, vec![], ""), Reply::Hang], ClientOptions::new("http://127.0.0.1/mcp"), 500);
    block_on(h.client.connect()).unwrap();
    let mut opts = CallOptions { timeout_ms: Some(300), ..CallOptions::default() };
    let aborted = h.log.borrow().aborted;
    let e = bounded(h.client.call_tool("t", json!({}), &mut opts), 1_000).expect("settled at its deadline").unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{e:?}");
    assert!(!h.client.reinitializing.get(), "no spawner: the renewal was dropped");
    // The 404's unread body, and the initialize fetch.
    assert_eq!(h.log.borrow().aborted, aborted + 2, "its initialize fetch aborted");
}

/// close() while a renewal's handshake is under way leaves the client closed.
#[test]
fn close_during_a_renewal_leaves_the_client_closed() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        status_reply(404, vec![], ""),
        init_reply_id(2, "2025-11-25", Some("new")),
        // notifications/initialized, answered once close() has run.
        Reply::Later(3, Box::new(accepted())),
        accepted(),
    ]);
    block_on(h.client.connect()).unwrap();
    let (listed, closed) = block_on(async {
        let close = async {
            while !h.client.reinitializing.get() || h.client.session_id().is_none() {
                yield_now().await;
            }
            h.client.close().await
        };
        futures_util::join!(h.client.list_tools(), close)
    });
    assert!(closed.is_ok());
    assert_eq!(listed.unwrap_err().code, ErrorCode::NotConnected);
    assert!(!h.client.is_connected());
}

/// close() while the handshake's `initialize` is unanswered: the session its answer names, when
/// it comes (within the close grace), is ended (DELETE), and connect() fails `NOT_CONNECTED`.
/// close() knew of no session to end; the server's would stay open.
#[test]
fn close_during_initialize_ends_the_session_its_answer_names() {
    // Sleeps of more than 1000 ms never end: the close grace (3 s) is not what ends the wait.
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.headers.push(("authorization".into(), "Bearer t".into()));
    let h = harness_with(vec![Reply::Later(5, Box::new(init_reply("2025-11-25", Some("S1")))), accepted()], opts, 1_000);
    let (connected, closed) = block_on(async {
        let close = async {
            while h.log.borrow().requests.is_empty() {
                yield_now().await;
            }
            h.client.close().await
        };
        futures_util::join!(h.client.connect(), close)
    });
    closed.unwrap();
    let e = connected.unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (ErrorCode::NotConnected, "initialize was abandoned: the client was closed"));
    let log = h.log.borrow();
    let sent: Vec<_> = log.requests.iter().map(|r| (r.method, header(r, "mcp-session-id"), header(r, "authorization"))).collect();
    assert_eq!(sent, [(Method::Post, None, Some("Bearer t")), (Method::Delete, Some("S1"), Some("Bearer t"))]);
    assert!(!h.client.is_connected());
    assert_eq!(h.client.session_id(), None);
}

/// An `initialize` answered in the very poll close() came in (its answer read first): its
/// session is ended too, and the handshake goes no further.
#[test]
fn an_initialize_answered_as_close_comes_ends_its_session() {
    // Answered after one yield: by the handshake's next poll, close() has run, and the answer and
    // the close are both there.
    let h = harness_with(vec![Reply::Later(1, Box::new(init_reply("2025-11-25", Some("S1")))), accepted()], ClientOptions::new("http://127.0.0.1/mcp"), 1_000);
    let (connected, closed) = block_on(async {
        let close = async {
            while h.log.borrow().requests.is_empty() {
                yield_now().await;
            }
            h.client.close().await
        };
        futures_util::join!(h.client.connect(), close)
    });
    closed.unwrap();
    assert_eq!(connected.unwrap_err().code, ErrorCode::NotConnected);
    let log = h.log.borrow();
    let sent: Vec<_> = log.requests.iter().map(|r| (r.method, header(r, "mcp-session-id"), body(r)["method"].clone())).collect();
    assert_eq!(sent, [(Method::Post, None, json!("initialize")), (Method::Delete, Some("S1"), Value::Null)], "no notifications/initialized");
}

/// close() while a session renewal's `initialize` is unanswered, the request that drove the
/// renewal dropped meanwhile (close() ends a listening stream that renews its session so): the
/// handshake goes on in the background, and the session its answer names is ended.
#[test]
fn close_during_a_renewals_initialize_ends_the_session_its_answer_names() {
    let replies = vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        status_reply(404, vec![], ""),
        Reply::Later(5, Box::new(init_reply_id(2, "2025-11-25", Some("new")))),
        accepted(),
    ];
    // Sleeps of more than 500 ms never end: the close grace (3 s) is not what ends the wait.
    let Harness { client, log, .. } = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 500);
    let client = Rc::new(client);
    let (spawn, spawned) = spawner();
    client.set_spawner(Some(spawn));
    block_on(client.connect()).unwrap();
    let mut opts = CallOptions::default();
    block_on(async {
        let call = client.call_tool("t", json!({}), &mut opts);
        let close = async {
            while log.borrow().requests.len() < 4 {
                yield_now().await;
            }
            client.close().await.unwrap();
        };
        pin_mut!(call, close);
        // The call is dropped once close() returns.
        if let Either::Left((called, _)) = select(call, close).await {
            panic!("the call ended before close(): {called:?}");
        }
    });
    let mut pool = futures_executor::LocalPool::new();
    spawn_into(&pool, &spawned);
    pool.run_until_stalled();
    let log = log.borrow();
    let sent: Vec<_> = log.requests.iter().map(|r| (r.method, header(r, "mcp-session-id"), body(r)["method"].clone())).collect();
    assert_eq!(
        sent[2..],
        [(Method::Post, Some("old"), json!("tools/call")), (Method::Post, None, json!("initialize")), (Method::Delete, Some("new"), Value::Null)],
        "no notifications/initialized; the new session ended"
    );
    assert!(!client.is_connected());
    assert!(!client.reinitializing.get());
}

/// The DELETE after a refused handshake carries the configured headers (authorization...).
#[test]
fn the_delete_after_a_refused_handshake_carries_the_configured_headers() {
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.headers.push(("authorization".into(), "Bearer t".into()));
    let h = harness_with(vec![init_reply("1999-01-01", Some("s")), accepted()], opts, 10_000);
    block_on(h.client.connect()).unwrap_err();
    let log = h.log.borrow();
    assert_eq!((log.requests[1].method, header(&log.requests[1], "authorization")), (Method::Delete, Some("Bearer t")));
}

/// tools/list pages read under a cursor of a session that expired are read again from the
/// first page of the new session (a cursor may mean nothing to it).
#[test]
fn listing_starts_over_when_the_session_is_renewed_between_pages() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        Reply::Echo(json!({"tools": [{"name": "a"}], "nextCursor": "p2"})),
        status_reply(404, vec![], ""),
        init_reply_id(3, "2025-11-25", Some("new")),
        accepted(),
        // The old session's cursor is not sent to the new one: the listing starts over.
        Reply::Echo(json!({"tools": [{"name": "a"}], "nextCursor": "p2"})),
        Reply::Echo(json!({"tools": [{"name": "b"}]})),
    ]);
    block_on(h.client.connect()).unwrap();
    let tools = block_on(h.client.list_tools()).unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a", "b"]);
    let log = h.log.borrow();
    let cursors: Vec<Value> = log.requests.iter().filter(|r| body(r)["method"] == "tools/list").map(|r| body(r)["params"]["cursor"].clone()).collect();
    assert_eq!(cursors, [Value::Null, json!("p2"), Value::Null, json!("p2")]);
    assert_eq!(header(log.requests.last().unwrap(), "mcp-session-id"), Some("new"));
}

/// A request by name with a cursor meets a 404: the session is renewed, the request is not sent
/// again (`SESSION_EXPIRED`), and the next request uses the new session.
#[test]
fn a_cursor_is_not_sent_to_a_renewed_session() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        status_reply(404, vec![], ""),
        init_reply_id(2, "2025-11-25", Some("new")),
        accepted(),
        Reply::Echo(json!({"resources": []})),
    ]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.request("tools/list", json!({"cursor": "p2"}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::SessionExpired);
    assert_eq!(h.client.session_id().as_deref(), Some("new"));
    block_on(h.client.request("tools/list", json!({}), &mut CallOptions::default())).unwrap();
    let log = h.log.borrow();
    assert_eq!(log.requests.len(), 6, "initialize, initialized, the 404, initialize, initialized, the next request");
    assert_eq!(body(&log.requests[5])["params"], json!({}));
}

/// A server that answers the handshake with a version toolwire does not speak, and a session:
/// that session is ended (DELETE) before the error.
#[test]
fn a_refused_handshake_ends_the_session_the_server_opened() {
    let h = harness(vec![init_reply("1999-01-01", Some("s")), accepted()]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedProtocolVersion);
    let log = h.log.borrow();
    assert_eq!(log.requests.len(), 2);
    assert_eq!(log.requests[1].method, Method::Delete);
    assert_eq!(header(&log.requests[1], "mcp-session-id"), Some("s"));
}

/// close() ends the session here whatever the server does: a DELETE that fails is reported,
/// one that hangs is abandoned (aborted) after the grace period.
#[test]
fn close_reports_a_failed_delete_and_abandons_a_hanging_one() {
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), status_reply(500, vec![], "oops")]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.close()).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["status"].clone()), (ErrorCode::HttpStatus, json!(500)));
    assert!(!h.client.is_connected());

    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), Reply::Hang]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.close()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    assert_eq!(h.log.borrow().aborted, 1, "the hanging DELETE was aborted");
    assert!(h.slept.borrow().contains(&CLOSE_GRACE_MS));
}

/// A DELETE whose error body never ends does not hold close() past its grace period: its status
/// is the outcome once the body's preview has been read for a while.
#[test]
fn close_is_not_held_by_an_endless_error_body() {
    let endless = Reply::Http { status: 500, headers: vec![], chunks: vec![b"partial".to_vec()], then_hang: true, then_error: false };
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), endless]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.close()).unwrap_err();
    assert_eq!(e.code, ErrorCode::HttpStatus, "{e}");
    assert_eq!(e.details.unwrap()["bodyPreview"], "partial");
}

/// A redirect's `Location` is the server's text: the message quotes it escaped and cut, the
/// `location` detail keeps it as sent.
#[test]
fn a_redirects_location_is_quoted_escaped_and_cut() {
    let location = format!("/x\u{9b}2J\u{80}\u{202e}{}", "a".repeat(5000));
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), status_reply(302, vec![("location", location.clone())], "")]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.code, ErrorCode::HttpStatus);
    assert!(e.message.contains("redirected to \"/x\\u009b2J\\u0080\\u202eaaa"), "{}", e.message);
    assert!(!e.message.contains(['\u{9b}', '\u{80}', '\u{202e}']), "{}", e.message);
    assert!(e.message.len() < 1300, "{}", e.message.len());
    assert_eq!(e.details.as_ref().unwrap()["location"], location.as_str());
}

/// A redirect is an error that says where to (not followed: a POST would become a GET); a
/// browser's opaque redirect (status 0) says so without a target. 429/503 carry `Retry-After`,
/// and nothing is retried.
#[test]
fn redirects_and_retry_after_are_typed_errors() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        status_reply(307, vec![("location", "https://example.com/mcp2".into())], ""),
        status_reply(0, vec![], ""),
        status_reply(429, vec![("retry-after", "7".into())], "slow down"),
    ]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.code, ErrorCode::HttpStatus);
    assert!(e.message.contains("redirected to \"https://example.com/mcp2\" (HTTP 307)"), "{}", e.message);
    // A 307 keeps the POST a POST: why it is not followed is another reason.
    assert!(e.message.contains("redirects are not followed (the request, its headers with it, would go to a URL the client was not given)"), "{}", e.message);
    assert_eq!(e.details.as_ref().unwrap()["location"], "https://example.com/mcp2");
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert!(e.message.contains("redirected (HTTP 0)"), "{}", e.message);
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    let d = e.details.as_ref().unwrap();
    assert_eq!((e.code, d["status"].clone(), d["retryAfter"].clone()), (ErrorCode::HttpStatus, json!(429), json!("7")));
    assert_eq!(h.log.borrow().requests.len(), 5, "nothing retried");
}

#[test]
fn close_abandons_calls_in_flight() {
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), Reply::Hang, accepted()]);
    block_on(h.client.connect()).unwrap();
    let call = async {
        let mut opts = CallOptions::default();
        h.client.call_tool("slow", json!({}), &mut opts).await
    };
    let close = async {
        // Let the call start, then close.
        futures_util::future::ready(()).await;
        h.client.close().await
    };
    let (r, c) = block_on(futures_util::future::join(call, close));
    assert_eq!(r.unwrap_err().code, ErrorCode::NotConnected);
    assert!(c.is_ok());
    let log = h.log.borrow();
    assert_eq!(log.aborted, 1, "the hanging fetch was aborted");
    assert!(log.requests.iter().any(|r| r.method == Method::Delete));
    assert!(!log.requests.iter().any(|r| r.body.as_deref().is_some_and(|b| b.contains("notifications/cancelled"))));
}

#[test]
fn timeout_cancels_and_aborts() {
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.timeout_ms = 50;
    // Sleeps up to 50 ms finish at once: the request's timeout fires while its fetch hangs.
    let h = harness_with(vec![init_reply("2025-11-25", Some("s")), accepted(), Reply::Hang, accepted()], opts, 50);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("slow", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    let log = h.log.borrow();
    assert_eq!(log.aborted, 1, "the hanging fetch was dropped (aborted)");
    let cancel = body(&log.requests[3]);
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], 1);
}

/// A request refused with 401 (or 403 for scopes) that times out or is aborted while the
/// unauthorized handler still works (a user signing in) sends no `notifications/cancelled`: the
/// server never took it, and the notification would meet the refusal too and ask for a second
/// sign-in.
#[test]
fn a_request_refused_and_waiting_for_authorization_is_not_cancelled() {
    for (refusal, abort) in [(401, false), (401, true), (403, false)] {
        let challenge = if refusal == 401 { r#"Bearer error="invalid_token""# } else { r#"Bearer error="insufficient_scope", scope="admin""# };
        let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
        opts.timeout_ms = 50;
        let replies = vec![init_reply("2025-11-25", Some("s")), accepted(), status_reply(refusal, vec![("www-authenticate", challenge.into())], ""), accepted(), accepted()];
        let h = harness_with(replies, opts, 50);
        block_on(h.client.connect()).unwrap();
        let asked = Rc::new(Cell::new(0));
        let seen = asked.clone();
        h.client.set_unauthorized_handler(Some(Box::new(move |_: &Value| {
            seen.set(seen.get() + 1);
            Box::pin(futures_util::future::pending())
        })));
        let mut call = if abort { CallOptions { cancel: cancelled_later(), timeout_ms: Some(60_000), ..CallOptions::default() } } else { CallOptions::default() };
        let e = block_on(h.client.call_tool("slow", json!({}), &mut call)).unwrap_err();
        assert_eq!(e.code, if abort { ErrorCode::Aborted } else { ErrorCode::Timeout });
        assert!(e.message.ends_with(&format!("the server had refused it (HTTP {refusal}) and it waited for authorization: nothing to cancel")), "{}", e.message);
        let methods: Vec<Value> = h.log.borrow().requests.iter().map(|r| body(r)["method"].clone()).collect();
        assert_eq!(methods, [json!("initialize"), json!("notifications/initialized"), json!("tools/call")], "{refusal} {abort}");
        assert_eq!(asked.get(), 1);
    }
}

/// Futures handed to a client's spawner, run when the test says.
type Spawned = Rc<RefCell<Vec<Pin<Box<dyn Future<Output = ()>>>>>>;

fn spawner() -> (Spawner, Spawned) {
    let spawned: Spawned = Rc::default();
    let sink = spawned.clone();
    (Rc::new(move |f| sink.borrow_mut().push(f)), spawned)
}

/// With a spawner, a timeout or an abort settles at once, however long the server takes to
/// accept `notifications/cancelled` (here: never, and its 3 s bound never passes either): the
/// notification goes out in the background, within that bound.
#[test]
fn a_timeout_or_an_abort_settles_before_the_cancellation_is_accepted() {
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.timeout_ms = 60_000;
    let replies = vec![init_reply("2025-11-25", Some("s")), accepted(), Reply::Hang, Reply::Hang, Reply::Hang, Reply::Hang];
    let Harness { client, log, slept, .. } = harness_with(replies, opts, 50);
    let client = Rc::new(client);
    let (spawn, spawned) = spawner();
    client.set_spawner(Some(spawn));
    block_on(client.connect()).unwrap();
    let mut opts = CallOptions { timeout_ms: Some(50), ..CallOptions::default() };
    let e = bounded(client.call_tool("slow", json!({}), &mut opts), 1_000).expect("settled at its deadline").unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    let mut opts = CallOptions { cancel: cancelled_later(), ..CallOptions::default() };
    let e = bounded(client.call_tool("slow", json!({}), &mut opts), 1_000).expect("settled when aborted").unwrap_err();
    assert_eq!(e.code, ErrorCode::Aborted);
    assert_eq!(log.borrow().aborted, 2, "both requests' fetches were aborted");
    assert_eq!(log.borrow().requests.len(), 4, "no cancellation sent yet");
    // In the background: each sent, and waited for within its bound.
    let mut pool = futures_executor::LocalPool::new();
    spawn_into(&pool, &spawned);
    slept.borrow_mut().clear();
    pool.run_until_stalled();
    let cancels: Vec<Value> = log.borrow().requests[4..].iter().map(body).collect();
    assert_eq!(cancels.iter().map(|c| (c["method"].clone(), c["params"]["requestId"].clone())).collect::<Vec<_>>(), [
        (json!("notifications/cancelled"), json!(1)),
        (json!("notifications/cancelled"), json!(2)),
    ]);
    assert_eq!((cancels[0]["params"]["reason"].clone(), cancels[1]["params"]["reason"].clone()), (json!("timeout"), json!("aborted by the client")));
    assert_eq!(*slept.borrow(), [0, CANCEL_GRACE_MS, 0, CANCEL_GRACE_MS], "each after a turn of the event loop, within its bound");
    drop(pool);
    assert_eq!(log.borrow().aborted, 4, "a notification abandoned is aborted");
}

/// A client whose unauthorized handler counts into `asked`, with a spawner, connected, whose
/// call `slow` (the third reply) timed out: its `notifications/cancelled` waits in `spawned`.
fn timed_out_in_background(replies: Vec<Reply>, asked: &Rc<Cell<usize>>) -> (Rc<Client<Scripted, FakeClock>>, Rc<RefCell<Log>>, Spawned) {
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.timeout_ms = 60_000;
    let Harness { client, log, .. } = harness_with(replies, opts, 50);
    let client = Rc::new(client);
    let seen = asked.clone();
    client.set_unauthorized_handler(Some(Box::new(move |_: &Value| {
        seen.set(seen.get() + 1);
        Box::pin(async { Ok(None) })
    })));
    let (spawn, spawned) = spawner();
    client.set_spawner(Some(spawn));
    block_on(client.connect()).unwrap();
    let mut opts = CallOptions { timeout_ms: Some(50), ..CallOptions::default() };
    let e = bounded(client.call_tool("slow", json!({}), &mut opts), 1_000).expect("settled at its deadline").unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    (client, log, spawned)
}

/// Hands what `spawned` holds to `pool`.
fn spawn_into(pool: &futures_executor::LocalPool, spawned: &Spawned) {
    for f in spawned.borrow_mut().drain(..) {
        futures_util::task::LocalSpawnExt::spawn_local(&pool.spawner(), f).unwrap();
    }
}

/// A cancellation left to the background when the client is closed is dropped: `close()` ended
/// the session (its DELETE tells the server), and a notification sent without it would meet a 401
/// that asks the unauthorized handler (a user's sign-in) for a client that is gone. One already
/// on its way when the client closes is abandoned (its fetch aborted).
#[test]
fn a_background_cancellation_is_dropped_when_the_client_closes() {
    let unauthorized = || status_reply(401, vec![("www-authenticate", "Bearer realm=\"mcp\"".into())], "");
    let asked = Rc::new(Cell::new(0));
    // The handshake, a call that hangs, the DELETE, and 401 for what comes after.
    let replies = vec![init_reply("2025-11-25", Some("s")), accepted(), Reply::Hang, accepted(), unauthorized(), unauthorized()];
    let (client, log, spawned) = timed_out_in_background(replies, &asked);
    block_on(client.close()).unwrap();
    assert_eq!(body(&log.borrow().requests[3]), Value::Null, "the DELETE");
    let mut pool = futures_executor::LocalPool::new();
    spawn_into(&pool, &spawned);
    pool.run_until_stalled();
    assert_eq!((log.borrow().requests.len(), asked.get()), (4, 0), "nothing sent after close(), no authorization asked");

    // A cancellation on its way (its POST unanswered) when close() comes.
    let replies = vec![init_reply("2025-11-25", Some("s")), accepted(), Reply::Hang, Reply::Hang, accepted(), unauthorized()];
    let (client, log, spawned) = timed_out_in_background(replies, &asked);
    spawn_into(&pool, &spawned);
    pool.run_until_stalled();
    assert_eq!(body(&log.borrow().requests[3])["method"], "notifications/cancelled", "on its way");
    let aborted = log.borrow().aborted;
    block_on(client.close()).unwrap();
    pool.run_until_stalled();
    assert_eq!(log.borrow().aborted, aborted + 1, "abandoned: its fetch aborted");
    assert_eq!(asked.get(), 0);
}

/// Without a spawner, the error waits for the cancellation, within its bound.
#[test]
fn without_a_spawner_the_cancellation_is_sent_before_the_error() {
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.timeout_ms = 10_000;
    let h = harness_with(vec![init_reply("2025-11-25", Some("s")), accepted(), Reply::Hang, Reply::Hang], opts, 10_000);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("slow", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    assert_eq!(body(&h.log.borrow().requests[3])["method"], "notifications/cancelled");
    assert_eq!(h.slept.borrow()[h.slept.borrow().len() - 1], CANCEL_GRACE_MS, "{:?}", h.slept.borrow());
    assert_eq!(h.log.borrow().aborted, 2);
}

#[test]
fn a_hanging_sse_body_is_aborted_too() {
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.timeout_ms = 50;
    let mut hanging = sse_reply("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n", 0);
    if let Reply::Http { then_hang, .. } = &mut hanging {
        *then_hang = true;
    }
    let h = harness_with(vec![init_reply("2025-11-25", None), accepted(), hanging, accepted()], opts, 50);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("slow", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    assert_eq!(h.log.borrow().aborted, 1);
}

/// A cancellation that comes once the request is out: pending at its first two polls (the
/// checks before anything is sent), then ready.
fn cancelled_later() -> Option<CancelFuture> {
    let mut polls = 0;
    Some(Box::pin(std::future::poll_fn(move |cx| {
        polls += 1;
        if polls > 2 {
            std::task::Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })))
}

#[test]
fn caller_abort_is_aborted_not_timeout() {
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), Reply::Hang, accepted()]);
    block_on(h.client.connect()).unwrap();
    let mut opts = CallOptions { cancel: cancelled_later(), ..CallOptions::default() };
    let e = block_on(h.client.call_tool("t", json!({}), &mut opts)).unwrap_err();
    assert_eq!(e.code, ErrorCode::Aborted);
    assert_eq!(body(&h.log.borrow().requests[3])["method"], "notifications/cancelled");
    // Cancelled before it was sent (an aborted signal given): nothing goes out, not even the notice.
    let mut opts = CallOptions { cancel: Some(Box::pin(async {})), ..CallOptions::default() };
    let e = block_on(h.client.call_tool("t", json!({}), &mut opts)).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (ErrorCode::Aborted, "tools/call was aborted before it was sent"));
    assert_eq!(h.log.borrow().requests.len(), 4);
}

#[test]
fn typed_errors() {
    // JSON-RPC error, distinct from an isError result.
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), json_reply(json!({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad","data":{"x":1}}}))]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::JsonRpcError);
    assert_eq!(e.details.as_ref().unwrap()["rpcCode"], -32602);
    assert_eq!(e.details.as_ref().unwrap()["data"], json!({"x":1}));

    // 401 with a parsed challenge.
    let h = harness(vec![status_reply(401, vec![("www-authenticate", "Bearer realm=\"mcp\", error=\"invalid_token\", resource_metadata=\"https://x/.well-known/oauth-protected-resource\"".into())], "no")]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Unauthorized);
    let ch = &e.details.as_ref().unwrap()["challenge"];
    assert_eq!(ch["scheme"], "Bearer");
    assert_eq!(ch["error"], "invalid_token");
    assert_eq!(ch["resource_metadata"], "https://x/.well-known/oauth-protected-resource");

    // HTTP status with a preview.
    let h = harness(vec![status_reply(500, vec![], "internal trouble")]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::HttpStatus);
    assert_eq!(e.details.as_ref().unwrap()["bodyPreview"], "internal trouble");

    // Network / CORS / the page's CSP: fetch says the same of all three.
    let h = harness(vec![Reply::NetworkError]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Network);
    assert!(e.message.contains("CORS") && e.message.contains("Access-Control-Expose-Headers"));
    assert!(e.message.contains("Content Security Policy (its connect-src)"), "{}", e.message);
    assert!(e.message.starts_with("initialize: no HTTP response (TypeError: Failed to fetch); "), "the reason first: {}", e.message);
    assert!(e.message.len() < 400, "the advice stays short: {}", e.message);

    // Bad content type, bad JSON, invalid UTF-8.
    for reply in [
        status_reply(200, vec![("content-type", "text/html".into())], "<html>"),
        status_reply(200, vec![("content-type", "application/json; charset=utf-8".into())], "{nope"),
        Reply::Http { status: 200, headers: vec![("content-type", "text/event-stream".into())], chunks: vec![b"data: \"\xFF\"\n\n".to_vec()], then_hang: false, then_error: false },
        Reply::Http { status: 200, headers: vec![("content-type", "application/json".into())], chunks: vec![b"{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":\"\xFF\"}".to_vec()], then_hang: false, then_error: false },
    ] {
        let h = harness(vec![reply]);
        assert_eq!(block_on(h.client.connect()).unwrap_err().code, ErrorCode::Protocol);
    }
}

#[test]
fn pagination_cap_and_repeated_cursor() {
    let page = |id: i64, cursor: Option<&str>| {
        let mut r = json!({"jsonrpc":"2.0","id":id,"result":{"tools":[{"name":format!("t{id}")}]}});
        if let Some(c) = cursor {
            r["result"]["nextCursor"] = json!(c);
        }
        json_reply(r)
    };
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), page(1, Some("a")), page(2, Some("b")), page(3, None)]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.list_tools()).unwrap().len(), 3);
    assert_eq!(body(&h.log.borrow().requests[3])["params"]["cursor"], "a");

    let h = harness(vec![init_reply("2025-11-25", None), accepted(), page(1, Some("a")), page(2, Some("a"))]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.list_tools()).unwrap().len(), 2, "stops on a repeated cursor");

    let mut opts = ClientOptions::new("http://x");
    opts.max_pages = 3;
    let replies = vec![init_reply("2025-11-25", None), accepted(), page(1, Some("a")), page(2, Some("b")), page(3, Some("c"))];
    let h = harness_with(replies, opts, 10_000);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.list_tools()).unwrap_err().code, ErrorCode::LimitExceeded);
}

#[test]
fn close_deletes_the_session_and_405_is_fine() {
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), status_reply(405, vec![], "")]);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.close()).unwrap();
    let log = h.log.borrow();
    assert_eq!(log.requests[2].method, Method::Delete);
    assert_eq!(header(&log.requests[2], "mcp-session-id"), Some("s"));
    drop(log);
    assert_eq!(block_on(h.client.list_tools()).unwrap_err().code, ErrorCode::NotConnected);
}

/// A session id of characters a header cannot carry back is refused, and cannot be ended; one
/// longer than 8 KiB is refused, and the session the server opened is ended (DELETE with it).
#[test]
fn invalid_session_ids_are_refused() {
    let h = harness(vec![init_reply("2025-11-25", Some("bad id\u{7f}")), accepted()]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert!(e.message.contains("it cannot be sent back, not even to end the session it opened"), "{}", e.message);
    assert_eq!(h.log.borrow().requests.len(), 1, "nothing sent after the handshake's answer");

    let long = "x".repeat(MAX_SESSION_ID_LEN + 1);
    let h = harness(vec![init_reply("2025-11-25", Some(&long)), accepted()]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert_eq!(e.message, "the server sent an Mcp-Session-Id of 8193 characters, more than the 8192 the client takes; the session it opened was ended");
    assert_eq!(e.details.as_ref().unwrap()["sessionIdLength"], 8193);
    let log = h.log.borrow();
    assert_eq!((log.requests.len(), log.requests[1].method), (2, Method::Delete));
    assert_eq!(header(&log.requests[1], "mcp-session-id"), Some(long.as_str()));
    assert_eq!(h.client.session_id(), None);
}

/// A session id as long as a signed JWT (the spec names JWTs: 1,103 characters with RS512 and a
/// 4096-bit key), and one of 8 KiB, are taken and sent back as they came.
#[test]
fn long_session_ids_are_taken() {
    for len in [1_103, MAX_SESSION_ID_LEN] {
        let id: String = "eyJhbGciOiJSUzUxMiJ9.payload-_~".chars().cycle().take(len).collect();
        let h = harness(vec![init_reply("2025-11-25", Some(&id)), accepted(), Reply::Echo(json!({"tools": []}))]);
        block_on(h.client.connect()).unwrap();
        assert_eq!(h.client.session_id().as_deref(), Some(id.as_str()));
        block_on(h.client.list_tools()).unwrap();
        assert_eq!(header(&h.log.borrow().requests[2], "mcp-session-id"), Some(id.as_str()));
    }
}

/// An empty `Mcp-Session-Id` (or one of blanks) on the handshake's response is no session: the
/// client connects stateless and sends none, as the SDK client does.
#[test]
fn an_empty_session_id_is_none() {
    for empty in ["", " ", "\t "] {
        let h = harness(vec![init_reply("2025-11-25", Some(empty)), accepted(), Reply::Echo(json!({"tools": []}))]);
        block_on(h.client.connect()).unwrap();
        assert_eq!(h.client.session_id(), None, "{empty:?}");
        assert_eq!(block_on(h.client.list_tools()).unwrap(), Vec::<Value>::new());
        let log = h.log.borrow();
        assert!(log.requests[1..].iter().all(|r| header(r, "mcp-session-id").is_none()), "{empty:?}: no session header sent");
        assert_eq!(header(&log.requests[2], "mcp-protocol-version"), Some("2025-11-25"));
    }
}

#[test]
fn www_authenticate_parsing() {
    let v = parse_www_authenticate("Bearer error=\"insufficient_scope\", scope=\"files:read files:write\", realm=x");
    assert_eq!(v, json!({"scheme":"Bearer","error":"insufficient_scope","scope":"files:read files:write","realm":"x"}));
}

/// A server whose capabilities name no `tools` (prompts only, say) is neither listed nor
/// called, nor asked for any other capability it did not declare: a client uses only what was
/// negotiated. One that sent no capabilities object at all is still asked.
#[test]
fn a_server_without_the_tools_capability_is_not_asked_for_tools() {
    let init = |capabilities: Value| {
        json_reply(json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":capabilities,"serverInfo":{"name":"p","version":"1"}}}))
    };
    let h = harness(vec![init(json!({"prompts": {}})), accepted(), Reply::Echo(json!({"messages": []})), Reply::Echo(json!({}))]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.list_tools()).unwrap(), Vec::<Value>::new());
    let e = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::CapabilityNotNegotiated);
    assert_eq!(e.details.as_ref().unwrap()["capability"], json!("tools"));
    assert!(e.message.contains("no `tools` capability"), "{}", e.message);
    for (method, capability) in [("resources/read", "resources"), ("completion/complete", "completions"), ("logging/setLevel", "logging")] {
        let e = block_on(h.client.request_checked(method, json!({}), &mut CallOptions::default())).unwrap_err();
        assert_eq!((e.code, e.details.as_ref().unwrap()["capability"].clone()), (ErrorCode::CapabilityNotNegotiated, json!(capability)));
    }
    let e = block_on(h.client.request_checked("initialize", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    let methods: Vec<Value> = h.log.borrow().requests.iter().map(|r| body(r)["method"].clone()).collect();
    assert_eq!(methods, [json!("initialize"), json!("notifications/initialized")]);
    // What it declares, and methods of no capability, are sent.
    assert_eq!(block_on(h.client.request_checked("prompts/get", json!({"name": "p"}), &mut CallOptions::default())).unwrap(), json!({"messages": []}));
    assert_eq!(block_on(h.client.request_checked("ping", Value::Null, &mut CallOptions::default())).unwrap(), json!({}));

    let mut init_without = init(Value::Null);
    if let Reply::Http { chunks, .. } = &mut init_without {
        let mut v: Value = serde_json::from_slice(&chunks[0]).unwrap();
        v["result"].as_object_mut().unwrap().remove("capabilities");
        chunks[0] = v.to_string().into_bytes();
    }
    let h = harness(vec![init_without, accepted(), Reply::Echo(json!({"tools": [{"name": "a"}]}))]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.list_tools()).unwrap().len(), 1);
}

fn init_caps(id: i64, session: &str, capabilities: Value) -> Reply {
    Reply::Http {
        status: 200,
        headers: vec![("content-type", "application/json".into()), ("mcp-session-id", session.to_owned())],
        chunks: vec![json!({"jsonrpc":"2.0","id":id,"result":{"protocolVersion":"2025-11-25","capabilities":capabilities,"serverInfo":{"name":"p","version":"1"}}}).to_string().into_bytes()],
        then_hang: false,
        then_error: false,
    }
}

fn methods(h: &Harness) -> Vec<String> {
    h.log.borrow().requests.iter().map(|r| body(r)["method"].as_str().unwrap_or("").to_owned()).collect()
}

/// The capabilities checked are the session's own: a renewed session that no longer declares
/// `tools` gets no retried tools/call, and requests made while another renews the session are
/// checked against the new one once it is there.
#[test]
fn capabilities_are_checked_against_the_session_a_renewal_brings() {
    let h = harness(vec![
        init_caps(0, "old", json!({"tools": {}})),
        accepted(),
        status_reply(404, vec![], ""),
        init_caps(2, "new", json!({"prompts": {}})),
        accepted(),
    ]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::CapabilityNotNegotiated);
    assert_eq!(methods(&h).iter().filter(|m| *m == "tools/call").count(), 1);

    let h = harness(vec![
        init_caps(0, "old", json!({"prompts": {}})),
        accepted(),
        Reply::Later(2, Box::new(status_reply(404, vec![], ""))),
        Reply::Later(3, Box::new(init_caps(2, "new", json!({"prompts": {}})))),
        accepted(),
        Reply::Echo(json!({"messages": []})),
    ]);
    block_on(h.client.connect()).unwrap();
    let (prompt, call, list) = block_on(async {
        let mut opts = CallOptions::default();
        let prompt = h.client.request_checked("prompts/get", json!({"name": "p"}), &mut opts);
        let call = async {
            while !h.client.reinitializing.get() {
                yield_now().await;
            }
            h.client.call_tool("t", json!({}), &mut CallOptions::default()).await
        };
        let list = async {
            while !h.client.reinitializing.get() {
                yield_now().await;
            }
            h.client.list_tools().await
        };
        futures_util::join!(prompt, call, list)
    });
    assert_eq!(prompt.unwrap(), json!({"messages": []}));
    assert_eq!(call.unwrap_err().code, ErrorCode::CapabilityNotNegotiated);
    assert_eq!(list.unwrap(), Vec::<Value>::new());
    assert!(!methods(&h).iter().any(|m| m.starts_with("tools/")), "{:?}", methods(&h));
}

/// `resources/subscribe` needs `resources.subscribe: true`; a capability is declared by an
/// object (`tools: null` declares nothing); a `_meta` that is not an object gives way to the
/// progress token.
#[test]
fn sub_capabilities_declarations_and_meta() {
    let h = harness(vec![init_caps(0, "s", json!({"resources": {}, "tools": null})), accepted(), Reply::Echo(json!({"contents": []}))]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.request_checked("resources/subscribe", json!({"uri": "file:///x"}), &mut CallOptions::default())).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["capability"].clone()), (ErrorCode::CapabilityNotNegotiated, json!("resources.subscribe")));
    assert_eq!(block_on(h.client.list_tools()).unwrap(), Vec::<Value>::new());
    let mut opts = CallOptions { on_progress: Some(Box::new(|_: &Value| {})), ..CallOptions::default() };
    block_on(h.client.request_checked("resources/read", json!({"uri": "x", "_meta": null}), &mut opts)).unwrap();
    let sent = body(&h.log.borrow().requests[2]);
    assert!(sent["params"]["_meta"]["progressToken"].is_number(), "{sent}");
    assert_eq!(methods(&h), ["initialize", "notifications/initialized", "resources/read"]);
}

/// Callers that need a connection together (the hub's first uses of a server) share one
/// handshake and one session; a failed one fails them all, and the next call tries again.
#[test]
fn callers_connecting_together_share_one_handshake() {
    let h = harness(vec![Reply::Later(2, Box::new(init_caps(0, "s", json!({"tools": {}})))), accepted()]);
    let (a, b) = block_on(async { futures_util::join!(h.client.ensure_connected(), h.client.ensure_connected()) });
    assert!(a.is_ok() && b.is_ok(), "{a:?} {b:?}");
    assert_eq!(methods(&h), ["initialize", "notifications/initialized"]);
    assert!(block_on(h.client.ensure_connected()).is_ok());
    assert_eq!(methods(&h).len(), 2, "connected: nothing sent");

    let h = harness(vec![Reply::Later(2, Box::new(status_reply(500, vec![], "down"))), init_caps(1, "s", json!({})), accepted()]);
    let (a, b) = block_on(async { futures_util::join!(h.client.ensure_connected(), h.client.ensure_connected()) });
    assert_eq!((a.unwrap_err().code, b.unwrap_err().code), (ErrorCode::HttpStatus, ErrorCode::NotConnected));
    assert!(block_on(h.client.ensure_connected()).is_ok());
    assert_eq!(methods(&h), ["initialize", "initialize", "notifications/initialized"]);
}

/// Responses read at once are bounded together: a read that would take them past the module's
/// budget is LIMIT_EXCEEDED, as JSON and as SSE, and the client goes on once they are read.
#[test]
fn responses_read_at_once_are_bounded_together() {
    use crate::protocol::budget::{Held, MAX_HELD_BYTES};
    let tools = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}});
    let sse = format!("data: {}\n\n", json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}));
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), json_reply(tools.clone()), sse_reply(&sse, 7), json_reply(json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": []}}))]);
    block_on(h.client.connect()).unwrap();
    // Other reads hold all but a few bytes of the budget.
    let mut others = Held::default();
    assert!(others.set(MAX_HELD_BYTES - Held::total() - 16).is_ok());
    for _ in 0..2 {
        let e = block_on(h.client.list_tools()).unwrap_err();
        assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
        assert!(e.message.contains("responses being read at once"), "{e}");
    }
    drop(others);
    assert!(block_on(h.client.list_tools()).is_ok());
}

/// A JSON body without a Content-Length is read as its chunks came and joined at the end: held
/// twice while they are joined, and counted twice then, so that the budget sees the peak.
#[test]
fn joining_a_json_bodys_chunks_counts_the_body_twice() {
    use crate::protocol::budget::{server_of, Held, MAX_SERVER_HELD_BYTES};
    let text = |id: u32| json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "x".repeat(10_000)}]}}).to_string();
    let chunked = |id: u32| {
        let text = text(id);
        let (first, second) = text.as_bytes().split_at(text.len() / 2);
        Reply::Http {
            status: 200,
            headers: vec![("content-type", "application/json".into())],
            chunks: vec![first.to_vec(), second.to_vec()],
            then_hang: false,
            then_error: false,
        }
    };
    let len = text(1).len();
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), chunked(1), chunked(2)]);
    block_on(h.client.connect()).unwrap();
    // Another client of the server holds all but one and a half bodies of its share: the chunks
    // fit, the join does not.
    let mut same = Held::of(server_of("http://127.0.0.1/other"));
    assert!(same.set(MAX_SERVER_HELD_BYTES - len * 3 / 2).is_ok());
    let Err(e) = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())) else { panic!("the join is past the share") };
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
    assert!(e.message.starts_with("tools/call: the responses of http://127.0.0.1 being read at once would hold more than 128 MiB"), "{e}");
    // Room for both: read.
    assert!(same.set(MAX_SERVER_HELD_BYTES - len * 2).is_ok());
    let r = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(r["content"][0]["text"].as_str().map(str::len), Some(10_000));
    drop(same);
    assert_eq!(Held::total(), 0, "given back");
}

/// An SSE event left unfinished counts against the budget as the parser holds it: its buffer's
/// capacity, which doubling takes up to twice what came (8 MiB and 64 KiB are held in 16 MiB),
/// counted once the chunk is parsed (the last one doubled it), not only before.
#[test]
fn an_unfinished_sse_event_counts_as_its_buffer_holds_it() {
    use std::task::Context;

    use crate::protocol::budget::Held;
    let chunk = vec![b'x'; 64 << 10];
    let mut chunks = vec![b"data: ".to_vec()];
    chunks.extend(std::iter::repeat_n(chunk.clone(), 129));
    let stalled = Reply::Http { status: 200, headers: vec![("content-type", "text/event-stream".into())], chunks, then_hang: true, then_error: false };
    let h = harness_with(vec![init_reply("2025-11-25", Some("s")), accepted(), stalled], ClientOptions::new("http://127.0.0.1/mcp"), 10);
    block_on(h.client.connect()).unwrap();
    // The parser's buffer, grown as it grows.
    let mut mirror: Vec<u8> = Vec::new();
    mirror.extend_from_slice(b"data: ");
    for _ in 0..129 {
        mirror.extend_from_slice(&chunk);
    }
    let listed = h.client.list_tools();
    futures_util::pin_mut!(listed);
    let waker = futures_util::task::noop_waker();
    let mut cx = Context::from_waker(&waker);
    for _ in 0..1_000 {
        assert!(listed.as_mut().poll(&mut cx).is_pending(), "the event never ends");
    }
    assert_eq!(Held::total(), mirror.capacity() + chunk.len(), "its buffer, and the last chunk read");
    assert!(Held::total() > mirror.len() * 3 / 2, "{} counted for {} that came", Held::total(), mirror.len());
}

/// An error's body (read for its JSON-RPC error and its preview) counts against the budget as
/// every body read does: past its server's share, LIMIT_EXCEEDED with the status.
#[test]
fn an_error_body_counts_against_the_budget() {
    use crate::protocol::budget::{server_of, Held, MAX_SERVER_HELD_BYTES};
    let text = "e".repeat(40_000);
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), status_reply(500, vec![], &text), status_reply(500, vec![], &text)]);
    block_on(h.client.connect()).unwrap();
    let mut same = Held::of(server_of("http://127.0.0.1/other"));
    assert!(same.set(MAX_SERVER_HELD_BYTES - 100).is_ok());
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
    assert!(e.message.starts_with("tools/list: HTTP 500, whose body could not be read: the responses of http://127.0.0.1 being read at once would hold more than 128 MiB"), "{e}");
    assert_eq!(e.details.as_ref().unwrap()["status"], 500);
    // Room for it: the status error, as before.
    assert!(same.set(MAX_SERVER_HELD_BYTES - text.len()).is_ok());
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.code, ErrorCode::HttpStatus, "{e}");
    drop(same);
    assert_eq!(Held::total(), 0, "given back");
}

/// A JSON body that carries a request of the server's beside the response is given back (to the
/// memory and the budget) before the request handler is awaited: a person may take minutes.
#[test]
fn a_json_body_is_given_back_before_its_server_request_is_answered() {
    use crate::protocol::budget::Held;
    let batch = json!([
        {"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage", "params": {}},
        {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "x".repeat(10_000)}]}},
    ]);
    let h = harness_declaring(vec![init_reply("2025-11-25", Some("s")), accepted(), json_reply(batch), accepted()], json!({"sampling": {}}));
    let held_then = Rc::new(Cell::new(usize::MAX));
    let seen = held_then.clone();
    h.client.set_request_handler(Some(Box::new(move |_, _, _| {
        let seen = seen.clone();
        Box::pin(async move {
            seen.set(Held::total());
            Ok(json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}))
        })
    })));
    block_on(h.client.connect()).unwrap();
    let r = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(r["content"][0]["text"].as_str().map(str::len), Some(10_000));
    assert_eq!(held_then.get(), 0, "nothing held while the handler answers");
    assert_eq!(body(&h.log.borrow().requests[3])["id"], 7, "answered");
}

/// A transport that resolves relative URLs against a page's location, as fetch in a browser does.
struct Paged(Scripted);

impl Transport for Paged {
    type Body = ScriptedBody;
    fn send(&self, req: HttpRequest) -> impl Future<Output = Result<HttpResponse<ScriptedBody>, TransportError>> {
        self.0.send(req)
    }
    fn resolve_url(&self, url: &str) -> Option<String> {
        url.starts_with('/').then(|| format!("http://page.example{url}"))
    }
}

/// A page's relative URLs are its origin's: their clients share one share of the budget, as the
/// clients of two absolute URLs of one origin do, and beside those.
#[test]
fn relative_urls_of_a_page_share_its_origins_share() {
    use crate::protocol::budget::{server_of, Held, MAX_SERVER_HELD_BYTES};
    let tools = |id: u32| json_reply(json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}}));
    let (transport, _) = scripted(vec![init_reply("2025-11-25", Some("s")), accepted(), tools(1), tools(2)]);
    let (clock, _) = fake_clock(10_000);
    let client = Client::new(Paged(transport), clock, ClientOptions::new("/a/mcp"));
    block_on(client.connect()).unwrap();
    assert!(block_on(client.list_tools()).is_ok());
    // The client of another path of the page (or of its absolute URL) holds all but a few bytes of the share.
    let mut other = Held::of(server_of(&Paged(scripted(vec![]).0).resolve_url("/b/mcp").unwrap()));
    assert!(other.set(MAX_SERVER_HELD_BYTES - 16).is_ok());
    let Err(e) = block_on(client.list_tools()) else { panic!("past the page's share") };
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
    assert!(e.message.starts_with("tools/list: the responses of http://page.example being read at once would hold more than 128 MiB"), "{e}");
}

/// A server whose reads hold their whole share (a hostile one leaving SSE events unfinished)
/// does not make another server's responses fail; the reads of a client's own server past that
/// share do, and the error says whose they are.
#[test]
fn one_servers_reads_cannot_take_the_budget_of_another() {
    use crate::protocol::budget::{server_of, Held, MAX_SERVER_HELD_BYTES};
    let tools = |id: u32| json_reply(json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}}));
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), tools(1), tools(2)]);
    block_on(h.client.connect()).unwrap();
    let mut hostile = Held::of(server_of("http://hostile.example:8000/mcp"));
    assert!(hostile.set(MAX_SERVER_HELD_BYTES).is_ok());
    assert!(Held::of(server_of("http://hostile.example:8000/mcp")).set(1).is_err(), "nothing more for that server");
    assert!(block_on(h.client.list_tools()).is_ok(), "another server's read fits beside it");
    // Another client of this client's server (the same origin) holds all but a few bytes of its share.
    let mut same = Held::of(server_of("http://127.0.0.1/other"));
    assert!(same.set(MAX_SERVER_HELD_BYTES - 16).is_ok());
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded);
    assert!(e.message.starts_with("tools/list: the responses of http://127.0.0.1 being read at once would hold more than 128 MiB, a server's share of the 256 MiB"), "{e}");
    // The listening stream's unfinished events count too.
    let event = format!("data: {}\n\n", json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "x".repeat(100)}}));
    drop(same);
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), sse_reply(&event, 0)]);
    block_on(h.client.connect()).unwrap();
    let mut same = Held::of(server_of("http://127.0.0.1/other"));
    assert!(same.set(MAX_SERVER_HELD_BYTES - 16).is_ok());
    let e = block_on(h.client.listen()).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
    assert!(e.message.contains("a server's share"), "{e}");
}

/// A resumed stream that is given events again (the server replays from before the last id, and
/// other streams' events too, as server-everything's event store does): each event is acted on
/// once; a response to another request and another call's progress are left to their own streams.
#[test]
fn replayed_events_are_acted_on_once() {
    let log_msg = |n: u32| format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":{n}}}}}");
    let first = format!("id: e1\nretry: 5\ndata: {}\n\nid: e2\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":1,\"progress\":1}}}}\n\n", log_msg(1));
    let resumed = format!(
        "id: e1\ndata: {}\n\nid: e2\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":1,\"progress\":1}}}}\n\n\
         id: x1\ndata: {{\"jsonrpc\":\"2.0\",\"id\":57,\"result\":{{}}}}\n\n\
         id: e3\ndata: {}\n\nid: e4\ndata: {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"done\":true}}}}\n\n",
        log_msg(1),
        log_msg(2)
    );
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), dropping(&first), sse_reply(&resumed, 0)]);
    let heard = Rc::new(RefCell::new(Vec::new()));
    let sink = heard.clone();
    h.client.set_notification_handler(Some(Box::new(move |m: &str, p: &Value| sink.borrow_mut().push((m.to_owned(), p["data"].clone())))));
    block_on(h.client.connect()).unwrap();
    let progress = Rc::new(RefCell::new(Vec::new()));
    let seen = progress.clone();
    let mut opts = CallOptions { on_progress: Some(Box::new(move |p: &Value| seen.borrow_mut().push(p["progress"].clone()))), ..Default::default() };
    let r = block_on(h.client.call_tool("long", json!({}), &mut opts)).unwrap();
    assert_eq!(r, json!({"done": true, "content": []}));
    assert_eq!(gets(&h), [Some("e2".to_owned())]);
    assert_eq!(*progress.borrow(), [json!(1)], "progress 1 once");
    let heard = heard.borrow();
    assert_eq!(*heard, [("notifications/message".to_owned(), json!(1)), ("notifications/message".to_owned(), json!(2))], "each log message once");
    drop(heard);
    assert!(h.client.seen_events.borrow().contains("e3"));
    // A new session starts with none dealt with (its server may number its events afresh).
    let h2 = harness(vec![init_reply("2025-11-25", Some("s2")), accepted()]);
    h2.client.seen_events.borrow_mut().insert("e3");
    block_on(h2.client.connect()).unwrap();
    assert!(!h2.client.seen_events.borrow().contains("e3"));
}

/// A replay of thousands of events finds each of them dealt with (1,024 were kept, and a replay of
/// 2,000 found none), and ids as long as an event are kept in the same few bytes as short ones.
#[test]
fn thousands_of_replayed_event_ids_are_remembered() {
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted()]);
    block_on(h.client.connect()).unwrap();
    let event = |id: String| SseEvent { id: Some(id), own_id: true, event: None, data: Vec::new() };
    let progress = Incoming::Notification { method: "notifications/progress".into(), params: json!({"progressToken": 1, "progress": 1}) };
    let ids: Vec<String> = (0..20_000).map(|i| format!("{}-{i}", "x".repeat(i % 7 * 1000))).collect();
    for id in &ids {
        h.client.dealt_with(&event(id.clone()), &Id::Num(1), std::slice::from_ref(&progress), true);
    }
    assert!(ids.iter().all(|id| h.client.seen(&event(id.clone()))), "every one of 20,000 ids is remembered");
    assert!(!h.client.seen(&event("another".into())));
    let mut seen = SeenEvents::default();
    for i in 0..=SeenEvents::CAP {
        seen.insert(&i.to_string());
    }
    assert!(!seen.contains("0") && seen.contains("1") && seen.contains(&SeenEvents::CAP.to_string()), "the oldest goes past the cap");
}

/// Another call's progress given to this call's resumed stream is neither this call's nor the
/// notification handler's, and is not marked as dealt with: the other call still takes it from
/// its own stream. Responses to other requests are not marked either. On a stream that is not
/// resumed it is no replay: the other call's at once (and dealt with).
#[test]
fn other_calls_events_are_left_to_their_own_streams() {
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted()]);
    block_on(h.client.connect()).unwrap();
    let other = ProgressToken::new(&h.client.progress_tokens, &Id::Num(7));
    let event = |id: &str| SseEvent { id: Some(id.to_owned()), own_id: true, event: None, data: Vec::new() };
    let progress = |token: i64| Incoming::Notification { method: "notifications/progress".into(), params: json!({"progressToken": token, "progress": 1}) };
    h.client.dealt_with(&event("p7"), &Id::Num(1), &[progress(7)], true);
    h.client.dealt_with(&event("r7"), &Id::Num(1), &[Incoming::Response { id: Id::Num(7), outcome: Ok(json!({})) }], true);
    h.client.dealt_with(&event("p1"), &Id::Num(1), &[progress(1)], true);
    // A finished call's progress has no stream left to take it: dealt with here.
    h.client.dealt_with(&event("p9"), &Id::Num(1), &[progress(9)], true);
    h.client.dealt_with(&event("first-p7"), &Id::Num(1), &[progress(7)], false);
    assert!(!h.client.seen(&event("p7")) && !h.client.seen(&event("r7")));
    assert!(h.client.seen(&event("p1")) && h.client.seen(&event("p9")) && h.client.seen(&event("first-p7")));
    let heard = Rc::new(RefCell::new(0));
    let sink = heard.clone();
    h.client.set_notification_handler(Some(Box::new(move |_: &str, _: &Value| *sink.borrow_mut() += 1)));
    assert!(block_on(h.client.handle(&Id::Num(1), "t", progress(7), None, true, &h.client.sent_on())).unwrap().is_none());
    assert_eq!(*heard.borrow(), 0, "call 7's progress replayed here is not the handler's");
    let waiting = || h.client.elsewhere(&Id::Num(7)).unwrap().queue.borrow().len();
    assert_eq!(waiting(), 0, "nor call 7's: its own stream brings it");
    // On a first stream it is not a replay: call 7's, not the handler's.
    assert!(block_on(h.client.handle(&Id::Num(1), "t", progress(7), None, false, &h.client.sent_on())).unwrap().is_none());
    assert_eq!((*heard.borrow(), waiting()), (0, 1));
    drop(other);
    assert!(block_on(h.client.handle(&Id::Num(1), "t", progress(7), None, true, &h.client.sent_on())).unwrap().is_none());
    assert_eq!(*heard.borrow(), 1, "once call 7 has ended, it is");
}

pub(crate) fn legacy() -> ClientOptions {
    ClientOptions { era: Era::Legacy, ..ClientOptions::new("http://127.0.0.1/mcp") }
}

/// A server of the 2026-07-28 revision refuses `initialize` with 400 and -32020 or -32022: with
/// the legacy era only, the handshake fails as a version mismatch, with the versions the server
/// names.
#[test]
fn a_server_without_the_handshake_is_a_version_mismatch() {
    let harness = |replies| harness_with(replies, legacy(), 10_000);
    let missing = r#"{"jsonrpc":"2.0","error":{"code":-32020,"message":"Missing MCP-Protocol-Version header"},"id":null}"#;
    let h = harness(vec![status_reply(400, vec![("content-type", "application/json".into())], missing)]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedProtocolVersion, "{}", e.message);
    assert!(e.message.contains("2026-07-28") && e.message.contains("2025-11-25"), "{}", e.message);
    assert_eq!(e.details.as_ref().unwrap()["rpcError"]["code"], -32020);

    let unsupported = r#"{"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}},"id":null}"#;
    let h = harness(vec![status_reply(400, vec![], unsupported)]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedProtocolVersion);
    assert_eq!(e.details.as_ref().unwrap()["supported"], json!(["2026-07-28"]));
    assert!(!h.client.is_connected());

    // No such method (as a 2026-07-28 server answers it, with 404 or in a 200): the server's
    // answer kept, and said once.
    for status in [404, 200] {
        let h = harness(vec![rpc_status(status, -32601, Value::Null)]);
        let e = block_on(h.client.connect()).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnsupportedProtocolVersion, "{}", e.message);
        let d = e.details.as_ref().unwrap();
        assert_eq!((d["laterRevision"].as_bool(), d["rpcError"]["code"].as_i64()), (Some(true), Some(-32601)), "{status}: {d:?}");
        assert_eq!(e.message.matches("later revision").count(), 1, "{}", e.message);
    }

    // Another 400 to initialize stays an HTTP error.
    let h = harness(vec![status_reply(400, vec![], r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Bad"},"id":null}"#)]);
    assert_eq!(block_on(h.client.connect()).unwrap_err().code, ErrorCode::HttpStatus);
}

/// A page answering the handshake (a site's catch-all route, the app's own origin without
/// /mcp) says that the URL may not be an MCP endpoint, as a 404 does; a page answering a later
/// request does not (the endpoint was one at the handshake).
#[test]
fn a_page_answering_the_handshake_says_the_url_may_not_be_an_mcp_endpoint() {
    let page = || status_reply(200, vec![("content-type", "text/html; charset=utf-8".to_owned())], "<!doctype html><title>App</title>");
    let h = harness(vec![page()]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert!(e.message.starts_with("initialize: unexpected content type \"text/html\"") && e.message.contains("the URL may not be an MCP endpoint"), "{}", e.message);
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), page()]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert!(!e.message.contains("MCP endpoint"), "{}", e.message);
}

/// No session id came with the handshake (a browser cannot read one the server does not expose)
/// and the server answers the next request 400 about a session: the error says why.
#[test]
fn a_400_about_a_session_that_never_came_names_the_cors_header() {
    let needed = "Bad Request: Mcp-Session-Id header is required";
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), status_reply(400, vec![], needed), status_reply(400, vec![], "Bad Request: invalid arguments")]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["missingSessionId"].clone()), (ErrorCode::HttpStatus, json!(true)));
    assert!(e.message.contains("Access-Control-Expose-Headers"), "{}", e.message);
    // A 400 about something else says nothing of it.
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert!(!e.details.as_ref().unwrap().contains_key("missingSessionId") && !e.message.contains("Expose"), "{}", e.message);
    // server-everything, whose request without a session starts a transport of its own, says
    // "Server not initialized", here to the handshake's notification.
    let h = harness(vec![init_reply("2025-11-25", None), status_reply(400, vec![], r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}"#)]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["missingSessionId"].clone()), (ErrorCode::HttpStatus, json!(true)), "{}", e.message);
    assert!(e.message.starts_with("notifications/initialized: HTTP 400") && e.message.contains("Access-Control-Expose-Headers"), "{}", e.message);

    // With a session id held, a 400 about the session is its end (server-everything says so
    // for a session it dropped): renewed, and the request sent again.
    let h = harness(vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        status_reply(400, vec![], r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}"#),
        init_reply_id(2, "2025-11-25", Some("s2")),
        accepted(),
        json_reply(json!({"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}})),
    ]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.list_tools()).unwrap().len(), 1);
    assert_eq!(h.client.session_id().as_deref(), Some("s2"));
    let log = h.log.borrow();
    assert_eq!((body(&log.requests[3])["method"].clone(), header(&log.requests[3], "mcp-session-id")), (json!("initialize"), None));
    assert_eq!(header(&log.requests[5], "mcp-session-id"), Some("s2"));
}

/// A 400 that is the server's answer to the request (a JSON-RPC error with its id), however
/// it words it, is no end of the session: not renewed, the server's error kept.
#[test]
fn a_400_answering_the_request_is_not_the_sessions_end() {
    let answer = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: session_name is required"}}"#;
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), status_reply(400, vec![], answer)]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::HttpStatus);
    assert!(e.message.contains("session_name is required"), "{}", e.message);
    assert_eq!(h.log.borrow().requests.len(), 3, "no renewal");
    assert_eq!(h.client.session_id().as_deref(), Some("s"));
    // Nor a body that mentions a session in passing.
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), status_reply(400, vec![], "Bad Request: the session's quota for uploads is spent")]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.list_tools()).unwrap_err().code, ErrorCode::HttpStatus);
    assert_eq!(h.log.borrow().requests.len(), 3);
}

/// Connecting again ends the session before: DELETE with its id, then a handshake without one.
#[test]
fn connecting_again_ends_the_session_before() {
    let h = harness(vec![init_reply("2025-11-25", Some("one")), accepted(), status_reply(200, vec![], ""), init_reply_id(1, "2025-11-25", Some("two")), accepted()]);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.connect()).unwrap();
    assert_eq!(h.client.session_id().as_deref(), Some("two"));
    let log = h.log.borrow();
    assert_eq!((log.requests[2].method, header(&log.requests[2], "mcp-session-id")), (Method::Delete, Some("one")));
    assert_eq!(body(&log.requests[3])["method"], "initialize");
    assert_eq!(header(&log.requests[3], "mcp-session-id"), None);
}

/// A handshake the caller cancels is aborted, and no `notifications/cancelled` goes out for it;
/// its own timeout is the caller's.
#[test]
fn a_cancelled_or_timed_out_handshake_sends_no_cancellation() {
    let h = harness(vec![Reply::Hang]);
    let mut opts = CallOptions { cancel: cancelled_later(), ..Default::default() };
    let e = block_on(h.client.connect_with(&mut opts)).unwrap_err();
    assert_eq!(e.code, ErrorCode::Aborted);
    assert_eq!((h.log.borrow().requests.len(), h.log.borrow().aborted), (1, 1));
    assert!(!h.client.is_connected());
    // Cancelled before: not even sent.
    let h = harness(vec![Reply::Hang]);
    let mut opts = CallOptions { cancel: Some(Box::pin(async {})), ..Default::default() };
    assert_eq!(block_on(h.client.connect_with(&mut opts)).unwrap_err().code, ErrorCode::Aborted);
    assert_eq!(h.log.borrow().requests.len(), 0);

    let h = harness(vec![Reply::Hang]);
    let mut opts = CallOptions { timeout_ms: Some(5), ..Default::default() };
    let e = block_on(h.client.connect_with(&mut opts)).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["timeoutMs"].clone()), (ErrorCode::Timeout, json!(5)));
    assert_eq!(h.log.borrow().requests.len(), 1);

    // notifications/initialized is within them too.
    let h = harness_with(vec![init_reply("2025-11-25", Some("s")), Reply::Hang], ClientOptions::new("http://127.0.0.1/mcp"), 5);
    let mut opts = CallOptions { timeout_ms: Some(5), ..Default::default() };
    let e = bounded(h.client.connect_with(&mut opts), 1_000).expect("ended").unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    assert!(!h.client.is_connected());
}

/// A request that meets 401 asks the unauthorized handler for new headers and is sent once more
/// with them; they replace the configured ones of the same name on every later request. A
/// second 401 is the request's outcome; a handler that gives none leaves the first one.
#[test]
fn a_401_asks_for_new_headers_and_sends_the_request_once_more() {
    let challenge = r#"Bearer error="invalid_token", resource_metadata="https://as.example/meta""#;
    let unauthorized = || status_reply(401, vec![("www-authenticate", challenge.into())], "");
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.headers.push(("authorization".into(), "Bearer old".into()));
    let h = harness_with(
        vec![init_reply("2025-11-25", Some("s")), accepted(), unauthorized(), Reply::Echo(json!({"tools": []})), unauthorized(), unauthorized(), unauthorized()],
        opts,
        10_000,
    );
    let asked = Rc::new(RefCell::new(Vec::new()));
    let seen = asked.clone();
    h.client.set_unauthorized_handler(Some(Box::new(move |info: &Value| {
        seen.borrow_mut().push(info.clone());
        let n = seen.borrow().len();
        Box::pin(async move { Ok((n < 3).then(|| vec![("Authorization".to_owned(), format!("Bearer new{n}"))])) })
    })));
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.list_tools()).unwrap(), Vec::<Value>::new());
    {
        let log = h.log.borrow();
        assert_eq!(header(&log.requests[2], "authorization"), Some("Bearer old"));
        assert_eq!(header(&log.requests[3], "authorization"), Some("Bearer new1"));
        assert_eq!(log.requests[3].headers.iter().filter(|(k, _)| k == "authorization").count(), 1, "replaced, not added");
        assert_eq!(body(&log.requests[3])["method"], "tools/list");
    }
    let info = asked.borrow()[0].clone();
    assert_eq!(info["status"], 401);
    assert_eq!(info["challenge"]["resource_metadata"], "https://as.example/meta");
    assert_eq!(info["wwwAuthenticate"], challenge);
    // 401, new headers, 401 again: the handler is asked once more, told so (`retried`), and
    // gives none: the request's error, which says the credentials just given were refused.
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["status"].clone()), (ErrorCode::Unauthorized, json!(401)));
    assert!(e.message.contains("refused the credentials just obtained"), "{}", e.message);
    assert_eq!(header(&h.log.borrow().requests[5], "authorization"), Some("Bearer new2"));
    assert_eq!((asked.borrow()[1].get("retried"), &asked.borrow()[2]["retried"]), (None, &json!(401)));
    // The handler gives none: the 401 stands, nothing sent again.
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Unauthorized);
    assert!(e.message.contains("the server refused the Authorization header sent (invalid_token)"), "{}", e.message);
    assert_eq!((h.log.borrow().requests.len(), asked.borrow().len()), (7, 4));
    // Later requests (a DELETE too) carry the last headers given.
    block_on(h.client.close()).unwrap();
    assert_eq!(header(h.log.borrow().requests.last().unwrap(), "authorization"), Some("Bearer new2"));
}

/// A 401 says what to do by what the request carried: with no Authorization header, to give
/// one; with one, or a challenge saying `invalid_token` (a header a fetch wrapper added), that it
/// was refused, with the challenge's error and description. Its code is UNAUTHORIZED either way.
#[test]
fn a_401_says_whether_the_authorization_header_sent_was_refused() {
    let refusal = |challenge: Option<&str>| status_reply(401, challenge.map(|c| vec![("www-authenticate", c.to_owned())]).unwrap_or_default(), "");
    let connect = |header: Option<&str>, challenge: Option<&str>| {
        let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
        if let Some(h) = header {
            opts.headers.push(("Authorization".into(), h.into()));
        }
        let h = harness_with(vec![refusal(challenge)], opts, 10_000);
        let e = block_on(h.client.connect()).unwrap_err();
        assert_eq!((e.code, &e.details.as_ref().unwrap()["status"]), (ErrorCode::Unauthorized, &json!(401)));
        e.message
    };
    let wants = "initialize: HTTP 401 Unauthorized: the server wants credentials (give a token in the client's headers option, {authorization: \"Bearer ...\"}, or sign in with its oauth option)";
    assert_eq!(connect(None, None), wants);
    assert_eq!(connect(None, Some(r#"Bearer realm="mcp""#)), wants);
    let refused = "initialize: HTTP 401 Unauthorized: the server refused the Authorization header sent";
    let advice = ": give a valid token in the client's headers option, or sign in with its oauth option";
    assert_eq!(
        connect(Some("Bearer wrong"), Some(r#"Bearer error="invalid_token", error_description="The access token expired""#)),
        format!("{refused} (invalid_token: \"The access token expired\"){advice}")
    );
    assert_eq!(connect(Some("Bearer wrong"), None), format!("{refused}{advice}"));
    assert_eq!(connect(Some("Basic eDp5"), Some(r#"Basic realm="mcp""#)), format!("{refused}{advice}"));
    assert_eq!(connect(None, Some(r#"Bearer error="invalid_token""#)), format!("{refused} (invalid_token){advice}"));
}

/// Headers the handler gave that the server refused at once (401 to the request sent again with
/// them): the next 401 to a request sent with them tells the handler (`refusedAtOnce`), until a
/// request succeeds with them or connect() is called (the app asking again).
#[test]
fn headers_refused_at_once_are_told_to_the_handler_until_a_request_succeeds_or_connect() {
    let unauthorized = || status_reply(401, vec![("www-authenticate", "Bearer error=\"invalid_token\"".into())], "");
    let h = harness_with(
        vec![
            init_reply("2025-11-25", Some("s")),
            accepted(),
            unauthorized(),
            unauthorized(),
            unauthorized(),
            Reply::Echo(json!({"tools": []})),
            unauthorized(),
            unauthorized(),
            unauthorized(),
            status_reply(200, vec![], ""),
            unauthorized(),
        ],
        ClientOptions::new("http://127.0.0.1/mcp"),
        10_000,
    );
    let asked = Rc::new(RefCell::new(Vec::new()));
    let seen = asked.clone();
    h.client.set_unauthorized_handler(Some(Box::new(move |info: &Value| {
        seen.borrow_mut().push(info.clone());
        let n = seen.borrow().len();
        Box::pin(async move { Ok(matches!(n, 1 | 5).then(|| vec![("authorization".to_owned(), format!("Bearer new{n}"))])) })
    })));
    block_on(h.client.connect()).unwrap();
    // Refused at once: the error says so.
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.details.as_ref().unwrap()["credentialsRefused"], true);
    // Refused still: the handler is told.
    block_on(h.client.list_tools()).unwrap_err();
    // A success with them: no more.
    block_on(h.client.list_tools()).unwrap();
    block_on(h.client.list_tools()).unwrap_err();
    // Refused at once again, then connect(): not told.
    block_on(h.client.list_tools()).unwrap_err();
    block_on(h.client.connect()).unwrap_err();
    let flags: Vec<_> = asked.borrow().iter().map(|i| (i.get("retried").cloned(), i.get("refusedAtOnce").cloned())).collect();
    let (r, t) = (Some(json!(401)), Some(json!(true)));
    assert_eq!(flags, [(None, None), (r.clone(), None), (None, t), (None, None), (None, None), (r, None), (None, None)]);
    assert_eq!(header(h.log.borrow().requests.last().unwrap(), "authorization"), Some("Bearer new5"));
}

/// Headers the handler gave for a step-up (403 `insufficient_scope`) that the server refused with
/// the same 403 again: that refusal and a later request's with that challenge tell the handler
/// (`refusedAtOnce`), as the official SDK's transport remembers the challenge it stepped up for;
/// another challenge does not, nor does that one after a request succeeds.
#[test]
fn a_step_up_refused_again_is_told_to_the_handler_for_the_same_challenge_until_a_request_succeeds() {
    let forbidden = |scope: &str| status_reply(403, vec![("www-authenticate", format!("Bearer error=\"insufficient_scope\", scope=\"{scope}\""))], "");
    let h = harness_with(
        vec![
            init_reply("2025-11-25", Some("s")),
            accepted(),
            forbidden("admin"),
            forbidden("admin"),
            forbidden("admin"),
            forbidden("write"),
            Reply::Echo(json!({"tools": []})),
            forbidden("admin"),
        ],
        ClientOptions::new("http://127.0.0.1/mcp"),
        10_000,
    );
    let asked = Rc::new(RefCell::new(Vec::new()));
    let seen = asked.clone();
    h.client.set_unauthorized_handler(Some(Box::new(move |info: &Value| {
        seen.borrow_mut().push(info.clone());
        let n = seen.borrow().len();
        Box::pin(async move { Ok((n == 1).then(|| vec![("authorization".to_owned(), "Bearer stepped-up".to_owned())])) })
    })));
    block_on(h.client.connect()).unwrap();
    for _ in 0..3 {
        block_on(h.client.list_tools()).unwrap_err();
    }
    block_on(h.client.list_tools()).unwrap();
    block_on(h.client.list_tools()).unwrap_err();
    let flags: Vec<_> = asked.borrow().iter().map(|i| (i.get("retried").cloned(), i.get("refusedAtOnce").cloned())).collect();
    let (r, t) = (Some(json!(403)), Some(json!(true)));
    assert_eq!(flags, [(None, None), (r, t.clone()), (None, t), (None, None), (None, None)]);
}

/// The request sent again after a step-up and refused with another challenge (a server that names
/// the scopes it misses one at a time) is not a step-up declined: the handler is asked without
/// `refusedAtOnce`, and the request is sent again with what it gives. Refused with the challenge
/// of that step-up after its last retry, it is one: the handler is told still (its error is the
/// request's, with the 403's body as the plain 403 error has it), and the request is not sent again.
#[test]
fn a_step_up_refused_with_another_challenge_is_another_step_up_and_a_declined_one_is_told_after_the_last_retry() {
    let forbidden = |scope: &str| status_reply(403, vec![("www-authenticate", format!("Bearer error=\"insufficient_scope\", scope=\"{scope}\""))], "ask your workspace owner");
    let h = harness_with(
        vec![
            init_reply("2025-11-25", Some("s")),
            accepted(),
            forbidden("admin"),
            forbidden("write"),
            Reply::Echo(json!({"tools": []})),
            forbidden("admin"),
            forbidden("write"),
            forbidden("write"),
        ],
        ClientOptions::new("http://127.0.0.1/mcp"),
        10_000,
    );
    let asked = Rc::new(RefCell::new(Vec::new()));
    let seen = asked.clone();
    h.client.set_unauthorized_handler(Some(Box::new(move |info: &Value| {
        seen.borrow_mut().push(info.clone());
        let n = seen.borrow().len();
        let declined = info.get("refusedAtOnce").is_some();
        Box::pin(async move {
            if declined {
                return Err(Error::new(ErrorCode::Unauthorized, "declined").with_detail("credentialsRefused", true));
            }
            Ok(Some(vec![("authorization".to_owned(), format!("Bearer up{n}"))]))
        })
    })));
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.message, "declined");
    assert_eq!(e.details.as_ref().unwrap()["bodyPreview"], "ask your workspace owner");
    let flags: Vec<_> = asked.borrow().iter().map(|i| (i.get("retried").cloned(), i["challenge"]["scope"].clone(), i.get("refusedAtOnce").cloned())).collect();
    let r = Some(json!(403));
    assert_eq!(
        flags,
        [(None, json!("admin"), None), (r.clone(), json!("write"), None), (None, json!("admin"), None), (r.clone(), json!("write"), None), (r, json!("write"), Some(json!(true)))]
    );
    // Sent four times with the headers given, not a fifth after the last refusal.
    let sent: Vec<_> = h.log.borrow().requests[2..].iter().map(|r| header(r, "authorization").unwrap_or("").to_owned()).collect();
    assert_eq!(sent, ["", "Bearer up1", "Bearer up2", "Bearer up2", "Bearer up3", "Bearer up4"]);
}

/// What a handler was told: `(retried, challenge scope, refusedAtOnce)` for each refusal.
type Told = Rc<RefCell<Vec<(Option<Value>, Value, Option<Value>)>>>;

/// A step-up handler that gives headers unless told the step-up was refused (`refusedAtOnce`), and
/// what it was told.
fn step_up_handler(h: &Harness) -> Told {
    let asked = Rc::new(RefCell::new(Vec::new()));
    let seen = asked.clone();
    h.client.set_unauthorized_handler(Some(Box::new(move |info: &Value| {
        seen.borrow_mut().push((info.get("retried").cloned(), info["challenge"]["scope"].clone(), info.get("refusedAtOnce").cloned()));
        let n = seen.borrow().len();
        let declined = info.get("refusedAtOnce").is_some();
        Box::pin(async move { Ok((!declined).then(|| vec![("authorization".to_owned(), format!("Bearer up{n}"))])) })
    })));
    asked
}

/// A step-up refused with the same challenge in other words (an `error_description` with a
/// request id, the parameters in another order, the scopes in another order) is a step-up
/// declined: told to the handler for that request and for a later one (review s30r4 F2).
#[test]
fn a_step_up_refused_with_the_same_challenge_in_other_words_is_declined() {
    let forbidden = |c: &str| status_reply(403, vec![("www-authenticate", c.to_owned())], "");
    let h = harness_with(
        vec![
            init_reply("2025-11-25", Some("s")),
            accepted(),
            forbidden(r#"Bearer error="insufficient_scope", scope="tools admin", error_description="request r-1""#),
            forbidden(r#"Bearer error_description="request r-2", scope="admin tools", error="insufficient_scope""#),
            forbidden(r#"Bearer error="insufficient_scope", scope="tools admin", error_description="request r-3""#),
        ],
        ClientOptions::new("http://127.0.0.1/mcp"),
        10_000,
    );
    let asked = step_up_handler(&h);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap_err();
    block_on(h.client.list_tools()).unwrap_err();
    let (r, t) = (Some(json!(403)), Some(json!(true)));
    assert_eq!(*asked.borrow(), [(None, json!("tools admin"), None), (r, json!("admin tools"), t.clone()), (None, json!("tools admin"), t)]);
}

/// A declined step-up stays declined whatever headers a later request goes out with: after a
/// refresh (a 401 between), and after another challenge's step-up, declined in turn (two tools
/// needing two scopes, called in turn): the user is asked once per challenge (review s30r4 F1).
#[test]
fn declined_step_ups_are_remembered_across_a_refresh_and_each_other() {
    let forbidden = |scope: &str| status_reply(403, vec![("www-authenticate", format!("Bearer error=\"insufficient_scope\", scope=\"{scope}\""))], "");
    let h = harness_with(
        vec![
            init_reply("2025-11-25", Some("s")),
            accepted(),
            forbidden("admin"),
            forbidden("admin"),
            status_reply(401, vec![("www-authenticate", "Bearer error=\"invalid_token\"".into())], ""),
            forbidden("admin"),
            forbidden("write"),
            forbidden("write"),
            forbidden("admin"),
            forbidden("write"),
        ],
        ClientOptions::new("http://127.0.0.1/mcp"),
        10_000,
    );
    let asked = step_up_handler(&h);
    block_on(h.client.connect()).unwrap();
    for _ in 0..5 {
        block_on(h.client.list_tools()).unwrap_err();
    }
    let (r4, r3, t) = (Some(json!(401)), Some(json!(403)), Some(json!(true)));
    let (admin, write) = (json!("admin"), json!("write"));
    assert_eq!(
        *asked.borrow(),
        [
            (None, admin.clone(), None),
            (r3.clone(), admin.clone(), t.clone()),
            (None, Value::Null, None),
            (r4, admin.clone(), t.clone()),
            (None, write.clone(), None),
            (r3, write.clone(), t.clone()),
            (None, admin, t.clone()),
            (None, write, t),
        ]
    );
}

/// Headers a request has succeeded with are not marked refused at once by a 401 that comes after
/// to another request sent again with them (a tool the server refuses whatever the token, or a
/// replica behind): when they expire, the handler is asked to renew them, not told they were
/// refused at once (review s27r1 F2).
#[test]
fn headers_a_request_succeeded_with_are_not_refused_at_once_by_a_later_401() {
    let unauthorized = || status_reply(401, vec![("www-authenticate", "Bearer error=\"invalid_token\"".into())], "");
    let valid = Rc::new(RefCell::new("t1".to_owned()));
    let v = valid.clone();
    let server = Reply::Server(Rc::new(move |req: &HttpRequest| {
        let b = body(req);
        if b["params"]["name"] == "admin" {
            // Its 401 comes after the other call's success.
            return Reply::Later(5, Box::new(unauthorized()));
        }
        if header(req, "authorization") == Some(format!("Bearer {}", v.borrow()).as_str()) {
            return Reply::Echo(json!({"content": []}));
        }
        unauthorized()
    }));
    let h = harness_with(vec![init_reply("2025-11-25", Some("s")), accepted(), server], ClientOptions::new("http://127.0.0.1/mcp"), 10_000);
    let asked = Rc::new(RefCell::new(Vec::new()));
    let (seen, valid_now) = (asked.clone(), valid.clone());
    h.client.set_unauthorized_handler(Some(Box::new(move |info: &Value| {
        seen.borrow_mut().push(info.clone());
        // A renewal for a 401; none for one to a request sent again (the user declines).
        let token = info.get("retried").is_none().then(|| valid_now.borrow().clone());
        Box::pin(async move { Ok(token.map(|t| vec![("authorization".to_owned(), format!("Bearer {t}"))])) })
    })));
    block_on(h.client.connect()).unwrap();
    let (whoami, admin) = block_on(futures_util::future::join(
        h.client.call_tool("whoami", json!({}), &mut CallOptions::default()),
        h.client.call_tool("admin", json!({}), &mut CallOptions::default()),
    ));
    whoami.unwrap();
    admin.unwrap_err();
    // t1 expires: the next 401 asks for a renewal, as any expiry does.
    *valid.borrow_mut() = "t2".into();
    asked.borrow_mut().clear();
    block_on(h.client.call_tool("whoami", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(asked.borrow().len(), 1);
    assert_eq!(asked.borrow()[0].get("refusedAtOnce"), None, "{:?}", asked.borrow());
}

/// A handler that fails makes the request fail with its error.
#[test]
fn a_failing_unauthorized_handler_is_the_requests_error() {
    let h = harness(vec![status_reply(401, vec![], "")]);
    h.client.set_unauthorized_handler(Some(Box::new(|_: &Value| Box::pin(async { Err(Error::new(ErrorCode::Unauthorized, "the token could not be refreshed")) }))));
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (ErrorCode::Unauthorized, "the token could not be refreshed"));
    assert_eq!(h.log.borrow().requests.len(), 1);
}

/// A tool listed with an `outputSchema`: its `structuredContent` is checked against it; a result
/// that breaks it, or has none, is a `PROTOCOL` error that carries the violations and the result;
/// an error result is not checked, nor a tool without a schema; the option turns it off.
#[test]
fn structured_content_is_checked_against_the_output_schema() {
    let schema = json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]});
    let listing = json!({"tools": [
        {"name": "add", "inputSchema": {"type": "object"}, "outputSchema": schema},
        {"name": "free", "inputSchema": {"type": "object"}},
    ]});
    let replies = |opts: ClientOptions| {
        harness_with(
            vec![
                init_reply("2025-11-25", Some("s")),
                accepted(),
                Reply::Echo(listing.clone()),
                Reply::Echo(json!({"content": [], "structuredContent": {"sum": 3}})),
                Reply::Echo(json!({"content": [{"type": "text", "text": "3"}], "structuredContent": {"sum": "3"}})),
                Reply::Echo(json!({"content": [{"type": "text", "text": "3"}]})),
                Reply::Echo(json!({"content": [{"type": "text", "text": "failed"}], "isError": true})),
                Reply::Echo(json!({"content": [], "structuredContent": {"anything": true}})),
                Reply::Echo(json!({"content": [], "structuredContent": {"sum": "stale"}})),
            ],
            opts,
            10_000,
        )
    };
    let h = replies(ClientOptions::new("http://127.0.0.1/mcp"));
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let call = |name: &str| block_on(h.client.call_tool(name, json!({}), &mut CallOptions::default()));
    assert_eq!(call("add").unwrap()["structuredContent"]["sum"], 3);
    let e = call("add").unwrap_err();
    assert_eq!((e.code, e.tool.as_deref()), (ErrorCode::Protocol, Some("add")));
    assert!(e.message.contains("/sum: string where the schema wants number"), "{}", e.message);
    let details = e.details.unwrap();
    assert_eq!(details["violations"], json!([{"path": "/sum", "message": "string where the schema wants number"}]));
    assert_eq!(details["result"]["structuredContent"]["sum"], "3", "the result is kept in the error");
    assert!(call("add").unwrap_err().message.contains("no structuredContent"));
    assert_eq!(call("add").unwrap()["isError"], true);
    assert_eq!(call("free").unwrap()["structuredContent"]["anything"], true);
    // The server announced a changed tool list: the schemas held may be stale, nothing is refused.
    h.client.tools_changes.set(h.client.tools_changes.get() + 1);
    assert_eq!(call("add").unwrap()["structuredContent"]["sum"], "stale");
    h.client.tools_listed_changes.set(h.client.tools_changes.get());
    // A new session (a renewal, a reconnection) forgets them until the tools are listed again.
    h.client.forget_tools();
    assert!(h.client.output_schemas.borrow().is_empty());

    let h = replies(ClientOptions { validate_structured_content: false, ..ClientOptions::new("http://127.0.0.1/mcp") });
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    block_on(h.client.call_tool("add", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(block_on(h.client.call_tool("add", json!({}), &mut CallOptions::default())).unwrap()["structuredContent"]["sum"], "3");
}

/// A request refused with headers already replaced is sent again with the new ones without
/// asking, after a 401 only: a 403 asking for scopes asks the handler (new headers need not carry
/// them). Setting the same headers again is no change.
#[test]
fn renewed_headers_answer_a_late_401_but_not_a_403() {
    let h = harness(vec![]);
    let asked = Rc::new(Cell::new(0));
    let a = asked.clone();
    h.client.set_unauthorized_handler(Some(Box::new(move |_: &Value| {
        a.set(a.get() + 1);
        Box::pin(async { Ok(Some(vec![("authorization".to_owned(), "Bearer new".to_owned())])) })
    })));
    let refusal = |status: u16, challenge: &str| HttpResponse { status, headers: vec![("www-authenticate".to_owned(), challenge.to_owned())], body: () };
    h.client.set_auth_headers(vec![("Authorization".into(), "Bearer old".into())]);
    let sent_with = h.client.auth_generation.get();
    h.client.set_auth_headers(vec![("authorization".into(), "Bearer old".into())]);
    assert_eq!(h.client.auth_generation.get(), sent_with, "the same header again");
    h.client.set_auth_headers(vec![("authorization".into(), "Bearer renewed".into())]);
    // Sent with "old", refused after it was renewed: sent again, nobody asked.
    assert!(block_on(h.client.reauthorized(&refusal(401, "Bearer"), sent_with, Reauthorizations::default())).unwrap());
    assert_eq!(asked.get(), 0);
    // A 403 for scopes asks even so.
    assert!(block_on(h.client.reauthorized(&refusal(403, r#"Bearer error="insufficient_scope", scope="x""#), sent_with, Reauthorizations::default())).unwrap());
    assert_eq!(asked.get(), 1);
    assert_eq!(h.client.headers(false, "*/*").iter().filter(|(k, _)| k == "authorization").collect::<Vec<_>>(), [&("authorization".to_owned(), "Bearer new".to_owned())]);
}

/// Any of the four lists, over its pages; `[]` for a capability the server did not declare; a
/// method that is not a list is refused before anything is sent.
#[test]
fn list_all_follows_the_pages_of_any_list() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        Reply::Echo(json!({"resources": [{"uri": "a://1", "name": "1"}], "nextCursor": "c2"})),
        Reply::Echo(json!({"resources": [{"uri": "a://2", "name": "2"}]})),
        Reply::Echo(json!({"nope": []})),
        Reply::Echo(json!({"resources": [{"uri": "a://1", "name": "1"}, 1]})),
        Reply::Echo(json!({"resources": [{"uri": "a://1", "name": "1"}, {"name": "no uri"}]})),
    ]);
    block_on(h.client.connect()).unwrap();
    // The test server declares only `tools`: resources are not asked for.
    assert_eq!(block_on(h.client.list_all("resources/list", Value::Null, &mut CallOptions::default())).unwrap(), Vec::<Value>::new());
    assert_eq!(h.log.borrow().requests.len(), 2);
    h.client.state.borrow_mut().capabilities = Some(json!({"tools": {}, "resources": {}}));
    let listed = block_on(h.client.list_all("resources/list", json!({"_meta": {"k": 1}}), &mut CallOptions::default())).unwrap();
    assert_eq!(listed, [json!({"uri": "a://1", "name": "1"}), json!({"uri": "a://2", "name": "2"})]);
    {
        let log = h.log.borrow();
        assert_eq!(body(&log.requests[2])["params"], json!({"_meta": {"k": 1}}));
        assert_eq!(body(&log.requests[3])["params"], json!({"_meta": {"k": 1}, "cursor": "c2"}));
    }
    let e = block_on(h.client.list_all("resources/list", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert!(e.message.contains("`resources`"), "{}", e.message);
    let e = block_on(h.client.list_all("resources/list", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol, "an item that is not an object");
    // An entry without what its type requires, as `request` refuses it (and the SDK's client).
    let e = block_on(h.client.list_all("resources/list", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert!(e.message.contains("`resources[1]` has no string `uri` and `name`"), "{}", e.message);
    let e = block_on(h.client.list_all("resources/read", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert_eq!(h.log.borrow().requests.len(), 7);
}

/// A request with a cursor that comes while another request renews the session waits for the
/// new session, and is then not sent: its cursor is the old session's.
#[test]
fn a_cursor_is_not_sent_after_waiting_for_anothers_renewal() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        Reply::Later(2, Box::new(status_reply(404, vec![], ""))),
        Reply::Later(3, Box::new(init_reply_id(2, "2025-11-25", Some("new")))),
        accepted(),
        Reply::Echo(json!({"content": []})),
    ]);
    block_on(h.client.connect()).unwrap();
    let mut call = CallOptions::default();
    let (a, b) = block_on(async {
        let a = h.client.call_tool("t", json!({}), &mut call);
        let b = async {
            while !h.client.reinitializing.get() {
                yield_now().await;
            }
            h.client.request("tools/list", json!({"cursor": "old-2"}), &mut CallOptions::default()).await
        };
        futures_util::join!(a, b)
    });
    assert_eq!(a.unwrap(), json!({"content": []}));
    assert_eq!(b.unwrap_err().code, ErrorCode::SessionExpired);
    assert!(h.log.borrow().requests.iter().all(|r| body(r)["params"].get("cursor").is_none()), "no cursor sent");
}

/// A server that numbers each stream's events from 1 (not unique over the session, as the spec
/// asks): every call's first stream is taken whole all the same.
#[test]
fn first_streams_are_taken_whole_whatever_their_ids() {
    let answer = |n: u32| sse_reply(&format!("id: 1\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{n},\"result\":{{\"n\":{n}}}}}\n\n"), 0);
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), answer(1), answer(2)]);
    block_on(h.client.connect()).unwrap();
    for n in [1, 2] {
        assert_eq!(block_on(h.client.request("x", json!({}), &mut CallOptions::default())).unwrap(), json!({"n": n}));
    }
}

/// The unauthorized handler serves the standalone stream, a stream's resumption and a
/// notification too: a 401 there is sent again at once with the new headers.
#[test]
fn a_401_on_a_get_or_a_notification_asks_for_new_headers_too() {
    let unauthorized = || status_reply(401, vec![("www-authenticate", "Bearer error=\"invalid_token\"".into())], "");
    let token = |h: &Harness| {
        let n = Rc::new(Cell::new(0));
        h.client.set_unauthorized_handler(Some(Box::new(move |_: &Value| {
            n.set(n.get() + 1);
            let k = n.get();
            Box::pin(async move { Ok(Some(vec![("authorization".to_owned(), format!("Bearer t{k}"))])) })
        })));
    };
    // listen(): the first GET meets 401, the second opens the stream.
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), unauthorized(), sse_events(&[], true)]);
    token(&h);
    block_on(h.client.connect()).unwrap();
    let (listened, _) = block_on(futures_util::future::join(h.client.listen(), async {
        while h.log.borrow().requests.len() < 4 {
            yield_now().await;
        }
        h.client.close().await
    }));
    assert!(listened.unwrap(), "the stream was opened, then ended by close()");
    assert_eq!(header(&h.log.borrow().requests[3], "authorization"), Some("Bearer t1"));

    // A call's stream drops; its resumption meets 401, then resumes with the new header.
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), dropping(PROGRESS_1), unauthorized(), sse_reply(RESULT_1, 0)]);
    token(&h);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap(), json!({"done": true, "content": []}));
    assert_eq!(gets(&h), [Some("e1".to_owned()), Some("e1".to_owned())]);
    assert_eq!(header(h.log.borrow().requests.last().unwrap(), "authorization"), Some("Bearer t1"));

    // notifications/initialized meets 401: sent again with the new header.
    let h = harness(vec![init_reply("2025-11-25", Some("s")), unauthorized(), accepted()]);
    token(&h);
    block_on(h.client.connect()).unwrap();
    let log = h.log.borrow();
    assert_eq!(log.requests.len(), 3);
    assert_eq!((body(&log.requests[2])["method"].clone(), header(&log.requests[2], "authorization")), (json!("notifications/initialized"), Some("Bearer t1")));
}

/// A standalone stream refused with 401 or 403 (and no handler that renews the token) is
/// UNAUTHORIZED, not a stream the server does not offer.
#[test]
fn listen_refused_for_credentials_is_unauthorized() {
    for status in [401, 403] {
        let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), status_reply(status, vec![("www-authenticate", "Bearer realm=\"mcp\"".into())], "")]);
        block_on(h.client.connect()).unwrap();
        let e = block_on(h.client.listen()).unwrap_err();
        assert_eq!((e.code, e.details.as_ref().unwrap()["status"].clone()), (ErrorCode::Unauthorized, json!(status)));
        assert_eq!(e.details.as_ref().unwrap()["challenge"]["realm"], "mcp");
    }
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), status_reply(405, vec![], "")]);
    block_on(h.client.connect()).unwrap();
    assert!(!block_on(h.client.listen()).unwrap(), "405: not offered");
    // At a reopening too (a token that expired while the stream was open), at once.
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), sse_events(&[], false), status_reply(401, vec![], "")]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.listen()).unwrap_err().code, ErrorCode::Unauthorized);
    assert_eq!(h.log.borrow().requests.len(), 4, "not tried again");
    // And a call's stream whose resumption is refused.
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), dropping(PROGRESS_1), status_reply(403, vec![], "")]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["status"].clone()), (ErrorCode::Unauthorized, json!(403)));
}

/// A renewal on the way to the first page changes nothing for the pages after it: the listing
/// goes on from that page, and keeps its one fresh start for a renewal between pages.
#[test]
fn a_renewal_before_the_first_page_keeps_the_fresh_start_for_later() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("s1")),
        accepted(),
        status_reply(404, vec![], ""),
        init_reply_id(2, "2025-11-25", Some("s2")),
        accepted(),
        Reply::Echo(json!({"tools": [{"name": "a"}], "nextCursor": "p2"})),
        status_reply(404, vec![], ""),
        init_reply_id(5, "2025-11-25", Some("s3")),
        accepted(),
        Reply::Echo(json!({"tools": [{"name": "a"}], "nextCursor": "p2"})),
        Reply::Echo(json!({"tools": [{"name": "b"}]})),
    ]);
    block_on(h.client.connect()).unwrap();
    let names: Vec<Value> = block_on(h.client.list_tools()).unwrap().iter().map(|t| t["name"].clone()).collect();
    assert_eq!(names, [json!("a"), json!("b")]);
    let log = h.log.borrow();
    let cursors: Vec<Value> = log.requests.iter().filter(|r| body(r)["method"] == "tools/list").map(|r| body(r)["params"]["cursor"].clone()).collect();
    assert_eq!(cursors, [Value::Null, Value::Null, json!("p2"), Value::Null, json!("p2")]);
    assert_eq!(h.client.session_id().as_deref(), Some("s3"));
}

// ---- 2026-07-28 ----

fn modern() -> ClientOptions {
    ClientOptions { era: Era::Modern, ..ClientOptions::new("http://127.0.0.1/mcp") }
}

/// The 2026-07-28 options, declaring `capabilities` ([`declaring`]): an input request of one
/// reaches the request handler only when its capability is declared.
fn modern_declaring(capabilities: Value) -> ClientOptions {
    ClientOptions { era: Era::Modern, ..declaring(capabilities) }
}

fn discover_reply() -> Reply {
    Reply::Echo(json!({
        "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {"listChanged": true}},
        "instructions": "be modern", "ttlMs": 0, "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "m", "version": "2"}}
    }))
}

fn rpc_status(status: u16, code: i64, data: Value) -> Reply {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": "refused", "data": data}});
    status_reply(status, vec![("content-type", "application/json".into())], &body.to_string())
}

/// Every request of the modern era: the version header equal to `_meta`'s, `Mcp-Method`, the
/// client's capabilities and info, no session.
fn assert_modern(req: &HttpRequest) {
    let b = body(req);
    let meta = &b["params"]["_meta"];
    assert_eq!(req.method, Method::Post);
    assert_eq!(header(req, "mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    assert_eq!(header(req, "mcp-method"), b["method"].as_str());
    assert!(meta["io.modelcontextprotocol/clientCapabilities"].is_object(), "{b}");
    assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "toolwire");
    assert_eq!(header(req, "mcp-session-id"), None);
    assert_eq!(header(req, "accept"), Some("application/json, text/event-stream"));
}

const MARKED_TOOLS: &str = r#"{"tools": [
    {"name": "regional", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"}, "n": {"type": "integer", "x-mcp-header": "N"}, "note": {"type": "string"}}}},
    {"name": "bad", "inputSchema": {"type": "object", "properties": {"x": {"type": "number", "x-mcp-header": "X"}}}},
    {"name": "plain", "inputSchema": {"type": "object"}}
], "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}"#;

/// `auto` (the default) tries `initialize`; refused as a 2026-07-28 server refuses it, the
/// client discovers the server and speaks 2026-07-28: `_meta` and headers on every request,
/// tools with broken `x-mcp-header` marks left out and told, marked arguments in headers.
#[test]
fn auto_speaks_2026_07_28_to_a_server_that_refuses_initialize() {
    let h = harness(vec![
        rpc_status(400, -32020, Value::Null),
        discover_reply(),
        Reply::Echo(serde_json::from_str(MARKED_TOOLS).unwrap()),
        Reply::Echo(json!({"content": [{"type": "text", "text": "ok"}], "resultType": "complete"})),
    ]);
    block_on(h.client.connect()).unwrap();
    assert!(h.client.is_modern() && h.client.is_connected());
    assert_eq!(h.client.protocol_version().as_deref(), Some("2026-07-28"));
    assert_eq!(h.client.server_info(), Some(json!({"name": "m", "version": "2"})));
    assert_eq!(h.client.instructions().as_deref(), Some("be modern"));
    let tools = block_on(h.client.list_tools()).unwrap();
    assert_eq!(tools.iter().map(|t| t["name"].as_str().unwrap()).collect::<Vec<_>>(), ["regional", "plain"]);
    let dropped = h.client.dropped_tools();
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0]["name"], "bad");
    assert!(dropped[0]["reason"].as_str().unwrap().contains("not a string, an integer or a boolean"), "{dropped:?}");
    let result = block_on(h.client.call_tool("regional", json!({"region": "Zürich", "n": 3, "note": "x"}), &mut CallOptions::default())).unwrap();
    assert_eq!(result["content"][0]["text"], "ok");
    let log = h.log.borrow();
    assert_eq!(body(&log.requests[0])["method"], "initialize");
    assert_eq!(body(&log.requests[1])["method"], "server/discover");
    assert_eq!(log.requests.len(), 4, "no notifications/initialized, nothing else");
    for r in &log.requests[1..] {
        assert_modern(r);
    }
    let call = &log.requests[3];
    assert_eq!(header(call, "mcp-name"), Some("regional"));
    assert_eq!(header(call, "mcp-param-region"), Some("=?base64?WsO8cmljaA==?="));
    assert_eq!(header(call, "mcp-param-n"), Some("3"));
    assert!(call.headers.iter().filter(|(k, _)| k.starts_with("mcp-param-")).count() == 2, "no header for the unmarked argument");
}

/// The other refusals that say "2026-07-28" (-32022 and 404 with -32601) switch too; a plain
/// HTTP error does not, and the legacy era never does.
#[test]
fn which_refusals_of_initialize_switch_eras() {
    for refusal in [rpc_status(400, -32022, json!({"supported": ["2026-07-28"]})), rpc_status(404, -32601, Value::Null), rpc_status(200, -32601, Value::Null)] {
        let h = harness(vec![refusal, discover_reply()]);
        block_on(h.client.connect()).unwrap();
        assert!(h.client.is_modern());
    }
    let h = harness(vec![rpc_status(400, -32000, Value::Null)]);
    assert_eq!(block_on(h.client.connect()).unwrap_err().code, ErrorCode::HttpStatus);
    assert_eq!(h.log.borrow().requests.len(), 1);
    // An initialize answered with 2026-07-28 itself (a dual server) is spoken to that way.
    let h = harness(vec![init_reply("2026-07-28", None), discover_reply()]);
    block_on(h.client.connect()).unwrap();
    assert!(h.client.is_modern());
    let h = harness_with(vec![rpc_status(400, -32020, Value::Null)], legacy(), 10_000);
    assert_eq!(block_on(h.client.connect()).unwrap_err().code, ErrorCode::UnsupportedProtocolVersion);
    assert_eq!(h.log.borrow().requests.len(), 1);
}

/// A refusal of 2026-07-28 that names it as supported (a server may ask for a request once more
/// that way) is retried once, with a new id; a second one, or one that does not name it, fails.
#[test]
fn a_refused_version_named_as_supported_is_sent_once_more() {
    let refused = || rpc_status(400, -32022, json!({"supported": ["2026-07-28"], "requested": "2026-07-28"}));
    let h = harness_with(vec![refused(), discover_reply()], modern(), 10_000);
    block_on(h.client.connect()).unwrap();
    {
        let log = h.log.borrow();
        assert_eq!(log.requests.len(), 2);
        assert_ne!(body(&log.requests[0])["id"], body(&log.requests[1])["id"]);
        log.requests.iter().for_each(assert_modern);
    }
    let h = harness_with(vec![refused(), refused()], modern(), 10_000);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedProtocolVersion);
    assert_eq!(e.details.unwrap()["supported"], json!(["2026-07-28"]));
    let h = harness_with(vec![rpc_status(400, -32022, json!({"supported": ["2099-01-01"]}))], modern(), 10_000);
    assert_eq!(block_on(h.client.connect()).unwrap_err().code, ErrorCode::UnsupportedProtocolVersion);
    assert_eq!(h.log.borrow().requests.len(), 1);
    // Discovery that lists other versions only.
    let h = harness_with(vec![Reply::Echo(json!({"supportedVersions": ["2099-01-01"], "capabilities": {}}))], modern(), 10_000);
    assert_eq!(block_on(h.client.connect()).unwrap_err().code, ErrorCode::UnsupportedProtocolVersion);
    // Every server of the revision has server/discover: one without it is not connected to.
    let h = harness_with(vec![rpc_status(404, -32601, Value::Null)], modern(), 10_000);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!((e.code, e.details.unwrap()["rpcCode"].clone()), (ErrorCode::JsonRpcError, json!(-32601)));
    assert!(!h.client.is_connected());
}

/// A server's text of 10 KB that a terminal would act on (an escape sequence that clears it, a
/// CSI, a bidirectional override).
pub(crate) fn hostile_text() -> String {
    format!("\u{1b}[2J\u{9b}31m\u{202e}{}", "x".repeat(10_000))
}

/// An error message that quotes [`hostile_text`]: cut (saying how long it was), escaped.
pub(crate) fn assert_defanged(message: &str) {
    let start: String = message.chars().take(200).collect();
    assert!(!message.chars().any(|c| c < ' ' || crate::text::is_hidden(c)), "{start}");
    assert!(message.chars().count() < 1_300, "{} characters: {start}", message.chars().count());
    // (A content type is quoted lower-cased.)
    assert!(message.to_lowercase().contains("\\u001b[2j\\u009b31m\\u202e") && message.contains("characters in all)"), "{start}");
}

/// What a server sends that goes into an error message (the versions its discovery lists, a
/// result's unknown `resultType`, a response's content type) is quoted as its text always is:
/// escaped, and cut at 1,024 characters.
#[test]
fn a_servers_text_in_an_error_is_escaped_and_cut() {
    let hostile = hostile_text();
    let h = harness_with(vec![Reply::Echo(json!({"supportedVersions": [hostile], "capabilities": {}}))], modern(), 10_000);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedProtocolVersion);
    assert_defanged(&e.message);
    assert_eq!(e.details.unwrap()["supported"], json!([hostile]), "the versions whole in `supported`");

    let h = harness_with(vec![discover_reply(), Reply::Echo(json!({"content": [], "resultType": hostile}))], modern(), 10_000);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert!(e.message.starts_with("tools/call: the result's resultType \""), "{}", e.message.chars().take(100).collect::<String>());
    assert_defanged(&e.message);
    // Not a string: as JSON, cut the same way.
    let h = harness_with(vec![discover_reply(), Reply::Echo(json!({"content": [], "resultType": {"k": hostile}}))], modern(), 10_000);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap_err();
    assert!(e.message.starts_with("tools/call: the result's resultType {\"k\":\""), "{}", e.message.chars().take(100).collect::<String>());
    assert_defanged(&e.message);

    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), status_reply(200, vec![("content-type", hostile.clone())], "{}")]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert!(e.message.starts_with("tools/list: unexpected content type \""), "{}", e.message.chars().take(100).collect::<String>());
    assert_defanged(&e.message);
}

/// The review's cases: the wait for input bounded by the timeout and close(); a requestState
/// that is not a string, or an input_required with nothing to answer, is the server's error;
/// a request without params still takes the answers; a 2026-07-28 JSON-RPC error on a 4xx is
/// JSONRPC_ERROR, as on a 200.
#[test]
fn input_rounds_are_bounded_and_checked() {
    let ask = || Reply::Echo(json!({"resultType": "input_required", "inputRequests": {"k": {"method": "elicitation/create", "params": {}}}, "requestState": "s"}));
    // The wait for the input is the person's: the call's timeout does not bound it, its total does.
    let mut opts = modern_declaring(json!({"elicitation": {}}));
    opts.timeout_ms = 5;
    let h = harness_with(vec![discover_reply(), ask(), ask()], opts, 10);
    h.client.set_request_handler(Some(Box::new(|_, _, _| Box::pin(futures_util::future::pending()))));
    block_on(h.client.connect()).unwrap();
    assert!(bounded(h.client.call_tool("t", Value::Null, &mut CallOptions::default()), 1_000).is_none(), "still waiting for the input");
    let e = block_on(h.client.call_tool("t", Value::Null, &mut CallOptions { max_total_timeout_ms: Some(5), ..CallOptions::default() })).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{}", e.message);
    assert!(e.message.contains("total of 5 ms"), "the total bounds the wait for the input: {}", e.message);

    // More inputs in one result than the client answers at once: refused before any is asked.
    let many: Map<String, Value> = (0..=MAX_SERVER_REQUESTS).map(|i| (format!("k{i}"), json!({"method": "elicitation/create", "params": {}}))).collect();
    let h = harness_with(vec![discover_reply(), Reply::Echo(json!({"resultType": "input_required", "inputRequests": many}))], modern_declaring(json!({"elicitation": {}})), 10_000);
    let asked = Rc::new(Cell::new(0));
    let count = asked.clone();
    h.client.set_request_handler(Some(Box::new(move |_, _, _| {
        count.set(count.get() + 1);
        Box::pin(async { Ok(json!({"action": "decline"})) })
    })));
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol, "{}", e.message);
    assert!(e.message.contains("asks for 17 inputs at once, more than the 16"), "{}", e.message);
    assert_eq!(asked.get(), 0, "nobody was asked");

    let h = harness_with(
        vec![
            Reply::Echo(json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}, "prompts": {}}})),
            Reply::Echo(json!({"resultType": "input_required", "requestState": 5})),
            Reply::Echo(json!({"resultType": "input_required"})),
            ask(),
            Reply::Echo(json!({"messages": []})),
            rpc_status(400, -32602, json!({"field": "name"})),
        ],
        modern_declaring(json!({"elicitation": {}})),
        10_000,
    );
    h.client.set_request_handler(Some(Box::new(|_, _, _| Box::pin(async { Ok(json!({"action": "decline"})) }))));
    block_on(h.client.connect()).unwrap();
    let mut o = CallOptions::default();
    assert!(block_on(h.client.call_tool("t", Value::Null, &mut o)).unwrap_err().message.contains("requestState is not a string"));
    assert!(block_on(h.client.call_tool("t", Value::Null, &mut o)).unwrap_err().message.contains("neither inputRequests nor requestState"));
    block_on(h.client.request("prompts/get", json!({"name": "p"}), &mut o)).unwrap();
    let e = block_on(h.client.call_tool("t", Value::Null, &mut o)).unwrap_err();
    let d = e.details.unwrap();
    assert_eq!((e.code, d["rpcCode"].clone(), d["status"].clone(), d["data"].clone()), (ErrorCode::JsonRpcError, json!(-32602), json!(400), json!({"field": "name"})));
    let log = h.log.borrow();
    let retry = body(&log.requests[4]);
    assert_eq!((retry["params"]["requestState"].clone(), retry["params"]["inputResponses"]["k"]["action"].clone()), (json!("s"), json!("decline")));
}

/// A server redeployed to speak only 2026-07-28 refuses a 2025 session's version (-32022 naming
/// 2026-07-28): with the auto era the client finds it out by a new handshake and goes on.
#[test]
fn auto_follows_a_server_that_turned_to_2026_07_28() {
    let refused = || rpc_status(400, -32022, json!({"supported": ["2026-07-28"]}));
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), refused(), refused(), discover_reply(), Reply::Echo(json!({"tools": []}))]);
    block_on(h.client.connect()).unwrap();
    assert!(!h.client.is_modern());
    assert_eq!(block_on(h.client.list_tools()).unwrap(), Vec::<Value>::new());
    assert!(h.client.is_modern());
    let log = h.log.borrow();
    let methods: Vec<Value> = log.requests.iter().map(|r| body(r)["method"].clone()).collect();
    assert_eq!(methods, [json!("initialize"), json!("notifications/initialized"), json!("tools/list"), json!("initialize"), json!("server/discover"), json!("tools/list")]);
    assert_modern(&log.requests[5]);
    drop(log);
    // The legacy era reports it instead.
    let h = harness_with(vec![init_reply("2025-11-25", Some("s")), accepted(), refused()], legacy(), 10_000);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.list_tools()).unwrap_err().code, ErrorCode::UnsupportedProtocolVersion);
}

/// The other changes of revision under a connected auto client: a 2026-07-28 session refused
/// with -32022 naming only 2025 revisions, or as the MCP SDKs' 2025 servers refuse a request
/// without a session (-32000, -32600); a 2025 session refused with -32020 (a 2026-07-28 server's
/// refusal of a request without its headers). Each is a new handshake and the request sent once
/// more; once only (a second refusal is the request's error), and never with a pinned era.
#[test]
fn auto_follows_a_server_that_changed_revision_every_way() {
    let legacy_only = || rpc_status(400, -32022, json!({"supported": ["2025-11-25"], "requested": "2026-07-28"}));
    let session_required = || {
        let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request: Mcp-Session-Id header is required"}});
        status_reply(400, vec![("content-type", "application/json".into())], &body.to_string())
    };
    // The Python SDK's (its id a string).
    let session_missing = || {
        let body = json!({"jsonrpc": "2.0", "id": "server-error", "error": {"code": -32600, "message": "Bad Request: Missing session ID"}});
        status_reply(400, vec![("content-type", "application/json".into())], &body.to_string())
    };
    // The servers built on the TypeScript SDK's examples.
    let no_valid_session = || {
        let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"}});
        status_reply(400, vec![("content-type", "application/json".into())], &body.to_string())
    };
    // The TypeScript SDK's transport, stateless (its versions listed) or stateful and not initialized yet.
    let sdk_version = || {
        let message = "Bad Request: Unsupported protocol version: 2026-07-28 (supported versions: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07)";
        let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": message}});
        status_reply(400, vec![("content-type", "application/json".into())], &body.to_string())
    };
    let sdk_not_initialized = || {
        let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request: Server not initialized"}});
        status_reply(400, vec![("content-type", "application/json".into())], &body.to_string())
    };
    let listed = || Reply::Echo(json!({"tools": []}));
    let methods = |h: &Harness| h.log.borrow().requests.iter().map(|r| body(r)["method"].as_str().unwrap_or_default().to_owned()).collect::<Vec<_>>();
    for refusal in [legacy_only, session_required, session_missing, no_valid_session, sdk_version, sdk_not_initialized] {
        // Connected as a 2026-07-28 server (it refused initialize), then gone back to 2025-11-25:
        // server/discover refused too, then initialize.
        let h = harness(vec![rpc_status(400, -32020, Value::Null), discover_reply(), refusal(), refusal(), Reply::Echo(json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "t", "version": "1"}})), accepted(), listed()]);
        block_on(h.client.connect()).unwrap();
        assert!(h.client.is_modern());
        assert_eq!(block_on(h.client.list_tools()).unwrap(), Vec::<Value>::new());
        assert!(!h.client.is_modern());
        assert_eq!(h.client.protocol_version().as_deref(), Some("2025-11-25"));
        assert_eq!(methods(&h), ["initialize", "server/discover", "tools/list", "server/discover", "initialize", "notifications/initialized", "tools/list"]);
        // The new handshake finds the same revision: the refusal is the request's error, and the
        // request is not sent again (it may have run).
        let h = harness(vec![rpc_status(400, -32020, Value::Null), discover_reply(), refusal(), discover_reply()]);
        block_on(h.client.connect()).unwrap();
        let e = block_on(h.client.list_tools()).unwrap_err();
        assert!(!e.details.unwrap().contains_key("sessionExpired"));
        assert_eq!(methods(&h), ["initialize", "server/discover", "tools/list", "server/discover"]);
        // The modern era reports it.
        let h = harness_with(vec![discover_reply(), refusal()], modern(), 10_000);
        block_on(h.client.connect()).unwrap();
        assert!(block_on(h.client.list_tools()).is_err());
        assert_eq!(methods(&h), ["server/discover", "tools/list"]);
    }
    let e = {
        let h = harness_with(vec![discover_reply(), legacy_only()], modern(), 10_000);
        block_on(h.client.connect()).unwrap();
        block_on(h.client.list_tools()).unwrap_err()
    };
    assert_eq!((e.code, e.details.unwrap()["supported"].clone()), (ErrorCode::UnsupportedProtocolVersion, json!(["2025-11-25"])));
    // A -32022 that names no version toolwire speaks is the request's error.
    let h = harness(vec![rpc_status(400, -32020, Value::Null), discover_reply(), rpc_status(400, -32022, json!({"supported": ["2099-01-01"]}))]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.list_tools()).unwrap_err().code, ErrorCode::UnsupportedProtocolVersion);
    assert_eq!(h.log.borrow().requests.len(), 3);

    // A 2025 session refused with -32020: initialize is refused the same way, then discovery.
    let header_mismatch = || rpc_status(400, -32020, Value::Null);
    let h = harness(vec![init_reply("2025-11-25", Some("s")), accepted(), header_mismatch(), header_mismatch(), discover_reply(), listed()]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.list_tools()).unwrap(), Vec::<Value>::new());
    assert!(h.client.is_modern());
    assert_eq!(methods(&h), ["initialize", "notifications/initialized", "tools/list", "initialize", "server/discover", "tools/list"]);
    assert_modern(&h.log.borrow().requests[5]);
    // The legacy era reports it.
    let h = harness_with(vec![init_reply("2025-11-25", Some("s")), accepted(), header_mismatch()], legacy(), 10_000);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!((e.code, rpc_code(&e)), (ErrorCode::HttpStatus, Some(-32020)));
    assert_eq!(h.log.borrow().requests.len(), 3);
}

/// The TypeScript SDK's refusals of a 2026-07-28 request, word for word: a list of versions is
/// read (one without a 2025 revision toolwire speaks, or with 2026-07-28, is no such refusal).
#[test]
fn the_sdk_transport_refusing_2026_07_28_is_told_by_its_words() {
    let rpc = |code: i64, message: &str| Error::new(ErrorCode::JsonRpcError, "x").with_detail("rpcCode", code).with_detail("rpcError", json!({"code": code, "message": message}));
    let unsupported = "Bad Request: Unsupported protocol version: 2026-07-28";
    assert!(sdk_refuses_modern(&rpc(-32000, &format!("{unsupported} (supported versions: 2025-11-25, 2025-06-18)"))));
    assert!(sdk_refuses_modern(&rpc(-32000, unsupported)));
    assert!(sdk_refuses_modern(&rpc(-32000, "Bad Request: Server not initialized")));
    assert!(!sdk_refuses_modern(&rpc(-32000, &format!("{unsupported} (supported versions: 2026-07-28, 2025-11-25)"))));
    assert!(!sdk_refuses_modern(&rpc(-32000, &format!("{unsupported} (supported versions: 2099-01-01)"))));
    assert!(!sdk_refuses_modern(&rpc(-32600, "Bad Request: Server not initialized")));
    assert!(!sdk_refuses_modern(&rpc(-32000, "Server not initialized: the bank is down")));
}

/// A 2026-07-28 server that was not redeployed refuses a call with 400 and a message that merely
/// mentions a session (-32600 `arguments.session_name must be a string`, -32000 `Upstream session
/// expired`): that is its answer to the call, which is sent once, with no new handshake. Only the
/// MCP SDKs' own refusals of a request without a session say the server speaks 2025 now.
#[test]
fn auto_sends_a_call_once_when_its_refusal_merely_mentions_a_session() {
    let methods = |h: &Harness| h.log.borrow().requests.iter().map(|r| body(r)["method"].as_str().unwrap_or_default().to_owned()).collect::<Vec<_>>();
    for (code, message) in [(-32600, "Invalid request: arguments.session_name must be a string"), (-32000, "Upstream session expired; re-authenticate with the bank")] {
        let refusal = json!({"jsonrpc": "2.0", "id": 2, "error": {"code": code, "message": message}});
        let refusal = status_reply(400, vec![("content-type", "application/json".into())], &refusal.to_string());
        let h = harness(vec![rpc_status(400, -32020, Value::Null), discover_reply(), refusal, discover_reply(), Reply::Echo(json!({"content": []}))]);
        block_on(h.client.connect()).unwrap();
        let e = block_on(h.client.call_tool("transfer", json!({"amount": 100}), &mut CallOptions::default())).unwrap_err();
        assert_eq!((e.code, rpc_code(&e)), (ErrorCode::JsonRpcError, Some(code)));
        assert!(!e.details.unwrap().contains_key("sessionExpired"));
        assert_eq!(methods(&h), ["initialize", "server/discover", "tools/call"]);
    }
}

/// subscriptions/listen: an error answer is the caller's error, not "not offered"; a result at
/// once ends it; a subscription opened again marks the tool list as possibly changed.
#[test]
fn subscription_answers_and_reopenings() {
    let h = harness_with(vec![discover_reply(), rpc_status(400, -32021, json!({"requiredCapabilities": {"roots": {}}}))], modern(), 10_000);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.listen()).unwrap_err();
    assert_eq!((e.code, e.details.unwrap()["rpcCode"].clone()), (ErrorCode::JsonRpcError, json!(-32021)));
    let h = harness_with(vec![discover_reply(), Reply::Echo(json!({"resultType": "complete"}))], modern(), 10_000);
    block_on(h.client.connect()).unwrap();
    assert!(block_on(h.client.listen()).unwrap());
    let h = harness_with(vec![discover_reply(), sse_events(&[], false), sse_events(&[], true)], modern(), 10_000);
    let heard = Rc::new(RefCell::new(Vec::new()));
    let h2 = heard.clone();
    h.client.set_notification_handler(Some(Box::new(move |m, _| h2.borrow_mut().push(m.to_owned()))));
    block_on(h.client.connect()).unwrap();
    assert!(!h.client.tools_changed());
    assert_eq!(bounded(h.client.listen(), 200), None, "still listening on the second stream");
    assert!(h.client.tools_changed(), "what changed between the two streams is not known");
    assert_eq!(*heard.borrow(), ["notifications/tools/list_changed"], "and the handler is told");
    assert_eq!(h.log.borrow().requests.len(), 3);
}

/// A 2026-07-28 server that ends every subscription at once (its acknowledgement alone, or no
/// event at all) is asked again ever later: 1 s, then half as long again each time, at most 30 s
/// between openings; a stream that brings a change starts over at 1 s. Each reopening still
/// announces the lists as changed (the wait is a gap in which the server may have published):
/// one set each, no more. A stream that lived a while before ending counts its life against the
/// wait, and one that lived 30 s or more is no idle one.
#[test]
fn a_subscription_ended_at_once_again_and_again_is_made_again_ever_later() {
    let ack = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true}}}"#;
    let changed = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}"#;
    let mut replies = vec![discover_reply()];
    replies.extend((0..11).map(|n| if n % 2 == 0 { sse_events(&[ack], false) } else { sse_events(&[], false) }));
    replies.push(sse_events(&[ack, changed], false));
    replies.push(sse_events(&[ack], false));
    replies.push(status_reply(401, vec![], ""));
    let h = harness_with(replies, modern(), 60_000);
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    h.client.set_notification_handler(Some(Box::new(move |m, _| n2.borrow_mut().push(m.to_owned()))));
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.listen()).unwrap_err().code, ErrorCode::Unauthorized);
    // The last: the bound on reading the 401's body, not a reopening.
    assert_eq!(waits(&h), [1000, 1500, 2250, 3375, 5062, 7593, 11390, 17085, 25628, 30000, 30000, 1000, 1000, 1000]);
    assert_eq!(posted(&h).iter().filter(|m| *m == "subscriptions/listen").count(), 14);
    let listed = notes.borrow().iter().filter(|m| *m == "notifications/tools/list_changed").count();
    assert_eq!(listed, 12 + 1, "one announcement at each of the 12 reopenings, and the server's own");

    // Streams that live a while: the wait is what is left of the spacing; 30 s or more, none.
    let (h, state, _) = listening_client(json!({"tools": {"listChanged": true}}));
    block_on(h.client.connect()).unwrap();
    let st = &state;
    let streams = move |n: usize| until(move || st.borrow().streams.len() == n);
    let (listened, ()) = block_on(futures_util::future::join(h.client.listen(), async {
        for (n, life) in [(1, 0), (2, 0), (3, 1000), (4, 0), (5, 40_000), (6, 0)] {
            streams(n).await;
            h.clock.advance(life);
            state.borrow().streams[n - 1].close();
        }
        streams(7).await;
        h.client.close().await.unwrap();
    }));
    assert!(listened.unwrap());
    assert_eq!(waits(&h), [1000, 1500, 2250 - 1000, 3375, 1000, 1000]);
}

/// MRTR: `input_required` is answered through the request handler and the call sent again with
/// a new id, `inputResponses` and the `requestState` exactly as given (none when none was given);
/// the answers are for that call only. Without a handler: `INPUT_REQUIRED`.
#[test]
fn input_required_is_answered_by_the_request_handler_and_the_call_sent_again() {
    let ask = |state: Option<&str>| {
        let mut r = json!({"resultType": "input_required", "inputRequests": {"confirm": {"method": "elicitation/create", "params": {"message": "Proceed?"}}}});
        if let Some(s) = state {
            r["requestState"] = json!(s);
        }
        Reply::Echo(r)
    };
    let done = || Reply::Echo(json!({"content": [{"type": "text", "text": "done"}]}));
    let h = harness_with(vec![discover_reply(), ask(Some("{\"n\":\"\\u00e9\"}")), done(), ask(None), done(), done()], modern_declaring(json!({"elicitation": {}})), 10_000);
    let asked = Rc::new(RefCell::new(Vec::new()));
    let a2 = asked.clone();
    h.client.set_request_handler(Some(Box::new(move |m, p, _| {
        a2.borrow_mut().push((m.to_owned(), p["message"].clone()));
        Box::pin(async { Ok(json!({"action": "accept", "content": {"ok": true}})) })
    })));
    block_on(h.client.connect()).unwrap();
    let r = block_on(h.client.call_tool("t", json!({"a": 1}), &mut CallOptions::default())).unwrap();
    assert_eq!(r["content"][0]["text"], "done", "a result without resultType is complete");
    block_on(h.client.call_tool("u", Value::Null, &mut CallOptions::default())).unwrap();
    block_on(h.client.call_tool("v", Value::Null, &mut CallOptions::default())).unwrap();
    assert_eq!(*asked.borrow(), [("elicitation/create".to_owned(), json!("Proceed?")), ("elicitation/create".to_owned(), json!("Proceed?"))]);
    let log = h.log.borrow();
    let (first, retry) = (body(&log.requests[1]), body(&log.requests[2]));
    assert_ne!(first["id"], retry["id"]);
    assert_eq!(retry["params"]["arguments"], json!({"a": 1}));
    assert_eq!(retry["params"]["inputResponses"], json!({"confirm": {"action": "accept", "content": {"ok": true}}}));
    assert_eq!(retry["params"]["requestState"], "{\"n\":\"\\u00e9\"}", "byte for byte");
    let no_state = body(&log.requests[4]);
    assert!(no_state["params"].get("requestState").is_none() && no_state["params"]["inputResponses"].is_object());
    let unrelated = body(&log.requests[5]);
    assert!(unrelated["params"].get("inputResponses").is_none() && unrelated["params"].get("requestState").is_none());
    log.requests.iter().for_each(assert_modern);
    drop(log);

    let h = harness_with(vec![discover_reply(), ask(Some("s"))], modern_declaring(json!({"elicitation": {}})), 10_000);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::InputRequired);
    assert_eq!(e.details.unwrap()["inputRequests"]["confirm"]["method"], "elicitation/create");

    // An unknown resultType, or input_required where it may not come, is the server's error.
    let h = harness_with(vec![discover_reply(), Reply::Echo(json!({"resultType": "later"})), Reply::Echo(json!({"resultType": "input_required"}))], modern(), 10_000);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.call_tool("t", Value::Null, &mut CallOptions::default())).unwrap_err().code, ErrorCode::Protocol);
    assert_eq!(block_on(h.client.request("tools/list", Value::Null, &mut CallOptions::default())).unwrap_err().code, ErrorCode::Protocol);
}

/// No resumption, no `notifications/cancelled`: a broken stream loses the request, sent again
/// once (not a tool call, which may have run); a timeout closes the stream and tells nothing more.
#[test]
fn broken_streams_and_timeouts_in_2026_07_28() {
    let broken = || Reply::Http {
        status: 200,
        headers: vec![("content-type", "text/event-stream".into())],
        chunks: vec![b"id: e1\nretry: 5\ndata: \n\n".to_vec()],
        then_hang: false,
        then_error: true,
    };
    let h = harness_with(vec![discover_reply(), broken(), Reply::Echo(json!({"tools": []})), broken()], modern(), 10_000);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.list_tools()).unwrap(), Vec::<Value>::new());
    let e = block_on(h.client.call_tool("t", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert!(e.message.contains("not sent again"), "{}", e.message);
    {
        let log = h.log.borrow();
        assert!(log.requests.iter().all(|r| r.method == Method::Post), "no GET to resume");
        assert_eq!(log.requests.len(), 4);
        assert_ne!(body(&log.requests[1])["id"], body(&log.requests[2])["id"]);
    }

    let mut opts = modern();
    opts.timeout_ms = 5;
    let h = harness_with(vec![discover_reply(), Reply::Hang], opts, 10);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.call_tool("t", Value::Null, &mut CallOptions::default())).unwrap_err().code, ErrorCode::Timeout);
    let log = h.log.borrow();
    assert_eq!((log.requests.len(), log.aborted), (2, 1), "the call's fetch aborted, no notice sent");
}

/// A call refused for its headers (-32020: the tool's marks changed, or were never listed)
/// lists the tools and is sent once more with the headers the schema asks for.
#[test]
fn a_call_refused_for_its_headers_lists_the_tools_and_is_sent_again() {
    let h = harness_with(
        vec![discover_reply(), rpc_status(400, -32020, Value::Null), Reply::Echo(serde_json::from_str(MARKED_TOOLS).unwrap()), Reply::Echo(json!({"content": []}))],
        modern(),
        10_000,
    );
    block_on(h.client.connect()).unwrap();
    block_on(h.client.call_tool("regional", json!({"region": "eu"}), &mut CallOptions::default())).unwrap();
    let log = h.log.borrow();
    assert_eq!(header(&log.requests[1], "mcp-param-region"), None);
    assert_eq!(body(&log.requests[2])["method"], "tools/list");
    assert_eq!(header(&log.requests[3], "mcp-param-region"), Some("eu"));
    drop(log);
    // An argument that cannot go in its header is refused before anything is sent.
    let e = block_on(h.client.call_tool("regional", json!({"region": ["eu"]}), &mut CallOptions::default())).unwrap_err();
    assert_eq!((e.code, e.tool.as_deref()), (ErrorCode::InvalidArguments, Some("regional")));
    assert_eq!(h.log.borrow().requests.len(), 4);
}

/// A call refused for its headers whose listing then fails is the server's refusal of the call
/// (what the app can act on: its -32020 and status), the listing's failure in its message.
#[test]
fn a_failed_listing_after_a_header_refusal_keeps_the_refusal() {
    let h = harness_with(vec![discover_reply(), rpc_status(400, -32020, Value::Null), rpc_status(500, -32603, Value::Null)], modern(), 10_000);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("regional", json!({"region": "eu"}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::JsonRpcError, "{}", e.message);
    let d = e.details.as_ref().unwrap();
    assert_eq!((d["rpcCode"].as_i64(), d["status"].as_u64()), (Some(-32020), Some(400)));
    assert!(e.message.contains("listing the tools again") && e.message.contains("tools/list"), "{}", e.message);
    assert_eq!(h.log.borrow().requests.len(), 3, "not sent again");
}

/// A discovery whose result asks for input, or is of a kind toolwire does not know, is no
/// discovery: `PROTOCOL`, not a connection without capabilities.
#[test]
fn a_discovery_result_must_be_complete() {
    for result_type in [json!("input_required"), json!("bogus"), json!(7)] {
        let mut result = json!({"capabilities": {"tools": {}}, "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "m", "version": "2"}}});
        result["resultType"] = result_type.clone();
        if result_type == "input_required" {
            result["inputRequests"] = json!({"k": {"method": "elicitation/create", "params": {}}});
        }
        let h = harness_with(vec![Reply::Echo(result)], modern(), 10_000);
        let e = block_on(h.client.connect()).unwrap_err();
        assert_eq!(e.code, ErrorCode::Protocol, "{result_type}: {}", e.message);
        assert!(e.message.contains("resultType"), "{}", e.message);
        assert!(!h.client.is_connected());
    }
}

/// listen() is `subscriptions/listen`: a POST whose stream brings the list changes; close()
/// ends it.
#[test]
fn listen_subscribes_to_list_changes_in_2026_07_28() {
    let stream = sse_events(
        &[
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#,
        ],
        true,
    );
    let h = harness_with(vec![discover_reply(), stream], modern(), 10_000);
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    h.client.set_notification_handler(Some(Box::new(move |m, _| n2.borrow_mut().push(m.to_owned()))));
    block_on(h.client.connect()).unwrap();
    let (listened, closed) = block_on(futures_util::future::join(h.client.listen(), h.client.close()));
    assert!(listened.unwrap());
    closed.unwrap();
    assert!(h.client.tools_changed());
    assert_eq!(*notes.borrow(), ["notifications/subscriptions/acknowledged", "notifications/tools/list_changed"]);
    let log = h.log.borrow();
    assert_eq!(log.requests.len(), 2, "no DELETE: there is no session");
    let sub = &log.requests[1];
    assert_modern(sub);
    assert_eq!(body(sub)["params"]["notifications"], json!({"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true}));
    assert_eq!(log.aborted, 1, "close() closed the subscription's stream");
    drop(log);
    // Not on offer (a JSON answer): false at once.
    let h = harness_with(vec![discover_reply(), rpc_status(404, -32601, Value::Null)], modern(), 10_000);
    block_on(h.client.connect()).unwrap();
    assert!(!block_on(h.client.listen()).unwrap());
}

/// The auto era keeps its verdict: connecting again to a server that spoke 2026-07-28 asks
/// server/discover first; one that no longer answers it is asked initialize again.
#[test]
fn auto_remembers_the_revision_a_server_spoke() {
    let h = harness(vec![rpc_status(400, -32020, Value::Null), discover_reply(), discover_reply(), rpc_status(400, -32000, Value::Null), init_reply_id(4, "2025-11-25", None), accepted()]);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.connect()).unwrap();
    assert!(h.client.is_modern());
    block_on(h.client.connect()).unwrap();
    assert!(!h.client.is_modern(), "the server went back to the handshake");
    let log = h.log.borrow();
    let methods: Vec<Value> = log.requests.iter().map(|r| body(r)["method"].clone()).collect();
    assert_eq!(methods, [json!("initialize"), json!("server/discover"), json!("server/discover"), json!("server/discover"), json!("initialize"), json!("notifications/initialized")]);
}

/// logLevel: `logging/setLevel` after `initialize` to a server that declares `logging` (none to
/// one that does not), and in every request's `_meta` with 2026-07-28.
#[test]
fn the_log_level_is_asked_for_in_each_revision_s_way() {
    let with_level = |era| ClientOptions { era, log_level: Some("warning".into()), ..ClientOptions::new("http://127.0.0.1/mcp") };
    let logging = Reply::Http {
        status: 200,
        headers: vec![("content-type", "application/json".into()), ("mcp-session-id", "s".into())],
        chunks: vec![json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{}},"serverInfo":{"name":"t","version":"1"}}}).to_string().into_bytes()],
        then_hang: false,
        then_error: false,
    };
    let h = harness_with(vec![logging, accepted(), Reply::Echo(json!({}))], with_level(Era::Auto), 10_000);
    block_on(h.client.connect()).unwrap();
    {
        let log = h.log.borrow();
        let set = body(&log.requests[2]);
        assert_eq!((set["method"].clone(), set["params"]["level"].clone()), (json!("logging/setLevel"), json!("warning")));
        assert_eq!(header(&log.requests[2], "mcp-session-id"), Some("s"));
    }
    // No `logging` capability: not asked.
    let h = harness_with(vec![init_reply("2025-11-25", None), accepted()], with_level(Era::Auto), 10_000);
    block_on(h.client.connect()).unwrap();
    assert_eq!(h.log.borrow().requests.len(), 2);
    // 2026-07-28: on every request.
    let h = harness_with(vec![discover_reply(), Reply::Echo(json!({"tools": []}))], with_level(Era::Modern), 10_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    for r in &h.log.borrow().requests {
        assert_eq!(body(r)["params"]["_meta"]["io.modelcontextprotocol/logLevel"], "warning");
    }
}

/// The second review's cases: the round cap; a call refused for its headers after an input round
/// keeps that round's answers; connect() while a call is between rounds makes the call wait;
/// names that cannot go in Mcp-Name; the era and errors after a failed or refused handshake.
#[test]
fn rounds_reconnects_and_refusals_in_2026_07_28() {
    let ask = || Reply::Echo(json!({"resultType": "input_required", "inputRequests": {"k": {"method": "elicitation/create", "params": {}}}, "requestState": "s"}));
    let accept: fn() -> Option<RequestHandler> = || Some(Box::new(|_, _, _| Box::pin(async { Ok(json!({"action": "accept"})) })));
    let mut replies = vec![discover_reply()];
    replies.extend((0..=MAX_INPUT_ROUNDS).map(|_| ask()));
    let h = harness_with(replies, modern_declaring(json!({"elicitation": {}})), 10_000);
    h.client.set_request_handler(accept());
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{}", e.message);
    assert_eq!(h.log.borrow().requests.len(), 2 + MAX_INPUT_ROUNDS as usize);

    // ask, answer; refused for its headers; listed; sent again with the answers.
    let h = harness_with(
        vec![discover_reply(), ask(), rpc_status(400, -32020, Value::Null), Reply::Echo(serde_json::from_str(MARKED_TOOLS).unwrap()), Reply::Echo(json!({"content": []}))],
        modern_declaring(json!({"elicitation": {}})),
        10_000,
    );
    h.client.set_request_handler(accept());
    block_on(h.client.connect()).unwrap();
    block_on(h.client.call_tool("regional", json!({"region": "eu"}), &mut CallOptions::default())).unwrap();
    {
        let log = h.log.borrow();
        let last = body(&log.requests[4]);
        assert_eq!((last["params"]["requestState"].clone(), last["params"]["inputResponses"]["k"]["action"].clone()), (json!("s"), json!("accept")));
        assert_eq!(header(&log.requests[4], "mcp-param-region"), Some("eu"));
    }

    // connect() while the call is between its rounds: the call waits for it and goes on.
    let h = harness_with(
        vec![discover_reply(), Reply::Later(1, Box::new(ask())), Reply::Later(4, Box::new(discover_reply())), Reply::Echo(json!({"content": []}))],
        modern_declaring(json!({"elicitation": {}})),
        10_000,
    );
    h.client.set_request_handler(accept());
    block_on(h.client.connect()).unwrap();
    let mut opts = CallOptions::default();
    let (called, connected) = block_on(futures_util::future::join(h.client.call_tool("t", Value::Null, &mut opts), h.client.connect()));
    connected.unwrap();
    called.unwrap();
    assert_eq!(body(&h.log.borrow().requests[3])["params"]["requestState"], "s");

    // A name that is not a string cannot go in Mcp-Name: refused before anything is sent.
    let sent = h.log.borrow().requests.len();
    for (method, params) in [("tools/call", json!({"name": 5})), ("tools/call", json!({})), ("tools/call", json!({"name": null}))] {
        let e = block_on(h.client.request(method, params, &mut CallOptions::default())).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput, "{method}");
    }
    assert_eq!(h.log.borrow().requests.len(), sent);

    // A failed discovery leaves no 2026-07-28 state behind.
    let h = harness_with(vec![Reply::NetworkError], modern(), 10_000);
    assert_eq!(block_on(h.client.connect()).unwrap_err().code, ErrorCode::Network);
    assert!(!h.client.is_modern() && h.client.protocol_version().is_none());
    // The legacy era: every refusal of initialize a 2026-07-28 server makes is UNSUPPORTED_PROTOCOL_VERSION.
    for refusal in [rpc_status(200, -32601, Value::Null), rpc_status(400, -32601, Value::Null), rpc_status(404, -32601, Value::Null)] {
        let h = harness_with(vec![refusal], legacy(), 10_000);
        let e = block_on(h.client.connect()).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnsupportedProtocolVersion, "{}", e.message);
        assert_eq!(e.details.unwrap()["laterRevision"], true);
    }
}

/// A 2026-07-28 listing is fresh for its `ttlMs` (the least of its pages', from when the listing
/// started); a listing without the hint, or with one that is not a non-negative whole number, is
/// stale at once, as `0` is.
#[test]
fn a_2026_07_28_listing_expires_after_its_ttl() {
    let page = |tools: Value, extra: Value| {
        let mut r = json!({"tools": tools, "resultType": "complete", "cacheScope": "private"});
        r.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        Reply::Echo(r)
    };
    let h = harness_with(
        vec![
            discover_reply(),
            page(json!([{"name": "a", "inputSchema": {"type": "object"}}]), json!({"ttlMs": 5000, "nextCursor": "2"})),
            page(json!([{"name": "b", "inputSchema": {"type": "object"}}]), json!({"ttlMs": 3000})),
            page(json!([]), json!({"ttlMs": 1500.0})),
            page(json!([]), json!({})),
            page(json!([]), json!({"ttlMs": "soon"})),
            page(json!([]), json!({"ttlMs": 0})),
        ],
        modern(),
        10_000,
    );
    block_on(h.client.connect()).unwrap();
    assert!(!h.client.tools_expired(), "nothing listed yet: nothing to expire");
    assert_eq!(block_on(h.client.list_tools()).unwrap().len(), 2);
    h.now.set(h.now.get() + 2_999);
    assert!(!h.client.tools_expired(), "3,000 ms, the least of the pages' ttlMs, have not passed");
    h.now.set(h.now.get() + 1);
    assert!(h.client.tools_expired());
    assert!(!h.client.tools_changed(), "expired is not announced");
    block_on(h.client.list_tools()).unwrap();
    h.now.set(h.now.get() + 1_499);
    assert!(!h.client.tools_expired(), "1500.0 is a whole number of milliseconds");
    h.now.set(h.now.get() + 1);
    assert!(h.client.tools_expired());
    block_on(h.client.list_tools()).unwrap();
    assert!(h.client.tools_expired(), "no ttlMs, which the revision requires: stale at once");
    block_on(h.client.list_tools()).unwrap();
    assert!(h.client.tools_expired(), "a ttlMs of \"soon\" counts as 0");
    block_on(h.client.list_tools()).unwrap();
    assert!(h.client.tools_expired(), "0: stale at once");
    assert_eq!(h.log.borrow().requests.len(), 7);
}

/// The hint is 2026-07-28's: a 2025 server's listing that carries a `ttlMs` never expires.
#[test]
fn a_2025_listing_does_not_expire() {
    let h = harness(vec![
        init_reply("2025-06-18", Some("s")),
        accepted(),
        json_reply(json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "echo"}], "ttlMs": 0}})),
    ]);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    h.now.set(h.now.get() + 1);
    assert!(!h.client.tools_expired());
}

/// A handshake whose server runs `tools/call` as tasks (2025-11-25), and a listing with a tool
/// that runs only so.
fn task_server() -> Vec<Reply> {
    vec![
        json_reply(json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "serverInfo": {"name": "t", "version": "1"},
            "capabilities": {"tools": {}, "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}}}}})),
        accepted(),
        Reply::Echo(json!({"tools": [
            {"name": "research", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
            {"name": "quick", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}}
        ]})),
    ]
}

fn task(status: &str, poll_ms: u64) -> Value {
    json!({"taskId": "t-1", "status": status, "ttl": 60000, "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z", "pollInterval": poll_ms})
}

/// A tool marked `taskSupport: "required"` runs as a task: created by the call, polled with
/// `tasks/get` at its `pollInterval` (at least 100 ms), its result fetched with `tasks/result`.
/// Other tools are called as ever.
#[test]
fn a_tool_that_runs_only_as_a_task_is_followed_to_its_result() {
    let mut replies = task_server();
    replies.extend([
        Reply::Echo(json!({"task": task("working", 50)})),
        Reply::Echo(task("working", 2000)),
        Reply::Echo(task("completed", 2000)),
        Reply::Echo(json!({"content": [{"type": "text", "text": "report"}], "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t-1"}}})),
        Reply::Echo(json!({"content": [{"type": "text", "text": "quick"}]})),
    ]);
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 10_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let r = block_on(h.client.call_tool("research", json!({"topic": "x"}), &mut CallOptions::default())).unwrap();
    assert_eq!(r["content"][0]["text"], "report");
    let r = block_on(h.client.call_tool("quick", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(r["content"][0]["text"], "quick");
    let log = h.log.borrow();
    let sent: Vec<Value> = log.requests[3..].iter().map(body).collect();
    assert_eq!(sent.iter().map(|b| b["method"].as_str().unwrap()).collect::<Vec<_>>(), ["tools/call", "tasks/get", "tasks/get", "tasks/result", "tools/call"]);
    assert_eq!(sent[0]["params"]["task"], json!({}));
    for b in &sent[1..4] {
        assert_eq!(b["params"], json!({"taskId": "t-1"}));
    }
    assert!(sent[4]["params"].get("task").is_none(), "an optional task tool is called plainly");
    let slept = h.slept.borrow();
    assert!(slept.contains(&100) && slept.contains(&2000), "polled at the task's pollInterval, at least 100 ms: {slept:?}");
}

/// A `pollInterval` written as a double (`3000.0`, `2500.6`) is read as the number it is, rounded;
/// one that is negative or no number leaves the default of 1 s.
#[test]
fn a_poll_interval_written_with_a_fraction_is_kept() {
    let with = |status: &str, poll: Value| {
        let mut t = task(status, 0);
        t["pollInterval"] = poll;
        t
    };
    let mut replies = task_server();
    replies.extend([
        Reply::Echo(json!({"task": with("working", json!(3000.0))})),
        Reply::Echo(with("working", json!(2500.6))),
        Reply::Echo(with("working", json!(-1.0))),
        Reply::Echo(with("working", json!("3000"))),
        Reply::Echo(with("completed", json!(3000.0))),
        Reply::Echo(json!({"content": [{"type": "text", "text": "report"}]})),
    ]);
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 10_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let r = block_on(h.client.call_tool("research", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(r["content"][0]["text"], "report");
    // The polls' sleeps (the others are the requests' timeouts).
    let polls: Vec<u64> = h.slept.borrow().iter().copied().filter(|&ms| ms <= 30_000).collect();
    assert_eq!(polls, [3000, 2501, 1000, 1000]);
    assert_eq!(poll_interval_ms(&serde_json::from_str("3e3").unwrap()), Some(3000));
    assert_eq!(poll_interval_ms(&serde_json::from_str("1e30").unwrap()), Some(u64::MAX));
}

/// The call's timeout bounds the whole task, which is then cancelled with `tasks/cancel`; a task
/// the server cancels is `ABORTED`; a server without `tasks.requests.tools.call` gets a plain call.
#[test]
fn a_task_that_outlives_its_call_is_cancelled() {
    let mut replies = task_server();
    replies.extend([Reply::Echo(json!({"task": task("working", 5000)})), Reply::Echo(task("cancelled", 5000))]);
    // Sleeps of up to 1,000 ms end at once: the call's total does, the 5 s poll does not.
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 1_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let e = block_on(h.client.call_tool("research", json!({}), &mut CallOptions { timeout_ms: Some(1_000), ..CallOptions::default() })).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{e}");
    let details = e.details.as_ref().unwrap();
    assert_eq!(details["taskId"], "t-1");
    assert_eq!(details["taskCancelled"], true);
    let log = h.log.borrow();
    let last = body(log.requests.last().unwrap());
    assert_eq!((last["method"].as_str(), &last["params"]), (Some("tasks/cancel"), &json!({"taskId": "t-1"})));
    drop(log);

    // A poll that hangs is cut at the time left (1,000 ms less the 100 ms slept), and that is the
    // task's time: the task is cancelled.
    let mut replies = task_server();
    replies.extend([Reply::Echo(json!({"task": task("working", 100)})), Reply::Hang, accepted(), Reply::Echo(task("cancelled", 100))]);
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 1_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let before = h.slept.borrow().len();
    let e = block_on(h.client.call_tool("research", json!({}), &mut CallOptions { timeout_ms: Some(1_000), ..CallOptions::default() })).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{e}");
    assert!(e.message.contains("task t-1 did not end in 1000 ms; task t-1 was cancelled"), "{e}");
    assert!(h.slept.borrow()[before..].contains(&900), "the poll's own bound is the time left: {:?}", h.slept.borrow());
    let methods: Vec<Value> = h.log.borrow().requests[3..].iter().map(|r| body(r)["method"].clone()).collect();
    assert_eq!(methods, ["tools/call", "tasks/get", "notifications/cancelled", "tasks/cancel"]);

    let mut replies = task_server();
    replies.extend([Reply::Echo(json!({"task": task("working", 100)})), Reply::Echo(json!({"taskId": "t-1", "status": "cancelled", "statusMessage": "operator stopped it"}))]);
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 10_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let e = block_on(h.client.call_tool("research", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Aborted);
    assert!(e.message.contains("operator stopped it"), "{e}");
    assert_eq!(e.details.as_ref().unwrap()["taskId"], "t-1");

    let mut replies = task_server();
    replies[0] = init_reply("2025-11-25", None);
    replies.push(Reply::Echo(json!({"content": []})));
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 10_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    block_on(h.client.call_tool("research", json!({}), &mut CallOptions::default())).unwrap();
    assert!(body(h.log.borrow().requests.last().unwrap())["params"].get("task").is_none(), "no tasks capability: no task");
}

/// A task's progress comes with the call's token on whichever stream (here `tasks/result`'s)
/// and reaches the call's `on_progress`; the requests about the task carry no token of their
/// own. A poll that meets a network error is tried again once; a second one fails the call,
/// and the task is cancelled, its id in the error.
#[test]
fn a_tasks_progress_and_a_failed_poll() {
    // `reset_timeout_on_progress` changes nothing of it (a task's deadline bounds it): it once
    // gave each request of the task a token of its own, the call's not the one registered.
    for reset in [false, true] {
        task_progress_reaches_the_call(reset);
    }
    let mut replies = task_server();
    replies.extend([Reply::Echo(json!({"task": task("working", 100)})), Reply::NetworkError, Reply::NetworkError, Reply::Echo(task("cancelled", 100))]);
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 10_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let e = block_on(h.client.call_tool("research", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Network, "{e}");
    assert_eq!(e.details.as_ref().unwrap()["taskId"], "t-1");
    assert_eq!(e.details.as_ref().unwrap()["taskCancelled"], true);
    let methods: Vec<Value> = h.log.borrow().requests[3..].iter().map(|r| body(r)["method"].clone()).collect();
    assert_eq!(methods, ["tools/call", "tasks/get", "tasks/get", "tasks/cancel"]);
}

fn task_progress_reaches_the_call(reset: bool) {
    let mut replies = task_server();
    // Ids: initialize 0, tools/list 1, the progress token 2, tools/call 3, tasks/get 4, tasks/result 5.
    let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1,"total":2}}"#;
    let done = r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"done"}]}}"#;
    replies.extend([Reply::Echo(json!({"task": task("working", 100)})), Reply::Echo(task("input_required", 100)), sse_events(&[progress, done], false)]);
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 10_000);
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    h.client.set_notification_handler(Some(Box::new(move |m, _| n2.borrow_mut().push(m.to_owned()))));
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let heard = Rc::new(RefCell::new(Vec::new()));
    let h2 = heard.clone();
    let mut opts = CallOptions { on_progress: Some(Box::new(move |p: &Value| h2.borrow_mut().push(p["progress"].clone()))), reset_timeout_on_progress: reset, ..CallOptions::default() };
    let r = block_on(h.client.call_tool("research", json!({}), &mut opts)).unwrap();
    assert_eq!(r["content"][0]["text"], "done");
    assert_eq!(*heard.borrow(), [json!(1)], "reset {reset}");
    assert!(notes.borrow().is_empty(), "not the notification handler's: {:?}", notes.borrow());
    let sent: Vec<Value> = h.log.borrow().requests[3..].iter().map(body).collect();
    assert_eq!(sent[0]["params"]["_meta"], json!({"progressToken": 2}), "reset {reset}");
    assert_eq!(sent[1]["method"], "tasks/get");
    assert_eq!(sent[2]["method"], "tasks/result");
    assert!(sent[1]["params"].get("_meta").is_none() && sent[2]["params"].get("_meta").is_none(), "{sent:?}");
    assert!(h.client.task_progress.borrow().is_empty(), "the handler is dropped with the call");
}

/// A task's input is asked for on the `tasks/result` stream: the request names the `tools/call`
/// the user made (its id, its tool), not the `tasks/result` that brought it.
#[test]
fn a_tasks_server_request_names_the_call() {
    let mut replies = task_server();
    // Ids: initialize 0, tools/list 1, tools/call 2, tasks/get 3, tasks/result 4.
    let ask = r#"{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"go on?","requestedSchema":{"type":"object","properties":{}}}}"#;
    let done = r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"done"}]}}"#;
    replies.extend([Reply::Echo(json!({"task": task("working", 100)})), Reply::Echo(task("input_required", 100)), sse_events(&[ask, done], false), accepted()]);
    let h = harness_with(replies, declaring(json!({"elicitation": {}})), 10_000);
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s2 = seen.clone();
    h.client.set_request_handler(Some(Box::new(move |_, _, context| {
        s2.borrow_mut().push(context.related.as_ref().map_or(Value::Null, Related::to_value));
        Box::pin(async { Ok(json!({"action": "accept", "content": {}})) })
    })));
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let r = block_on(h.client.call_tool("research", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(r["content"][0]["text"], "done");
    let sent: Vec<Value> = h.log.borrow().requests[3..].iter().map(body).collect();
    assert_eq!((&sent[0]["method"], &sent[2]["method"]), (&json!("tools/call"), &json!("tasks/result")));
    assert_eq!(*seen.borrow(), [json!({"id": sent[0]["id"], "method": "tools/call", "tool": "research"})]);
}

fn rpc_error_reply(id: i64, code: i64, message: &str) -> Reply {
    json_reply(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
}

/// A task that ended `failed` (tasks/result answers the tool's JSON-RPC error, as the
/// 2025-11-25 spec requires) is over: no tasks/cancel (the server would refuse it), and the
/// error names the tool and the task without saying anything of a cancellation.
#[test]
fn a_task_that_ended_is_not_cancelled() {
    let mut replies = task_server();
    // Ids: initialize 0, tools/list 1, tools/call 2, tasks/get 3, tasks/result 4, tasks/cancel 5.
    replies.extend([
        Reply::Echo(json!({"task": task("working", 100)})),
        Reply::Echo(task("failed", 100)),
        rpc_error_reply(4, -32603, "the research backend is down"),
        rpc_error_reply(5, -32602, "Cannot cancel task: already in terminal status"),
    ]);
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 10_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let e = block_on(h.client.call_tool("research", json!({}), &mut CallOptions::default())).unwrap_err();
    let methods: Vec<Value> = h.log.borrow().requests[3..].iter().map(|r| body(r)["method"].clone()).collect();
    assert_eq!(methods, ["tools/call", "tasks/get", "tasks/result"], "a terminal task was cancelled: {e}");
    assert_eq!(e.code, ErrorCode::JsonRpcError);
    assert!(e.message.starts_with("tools/call research: ") && e.message.contains("the research backend is down") && !e.message.contains("cancel"), "{e}");
    let details = e.details.as_ref().unwrap();
    assert_eq!(details["taskId"], "t-1");
    assert!(!details.contains_key("taskCancelled"));
}

/// A task-augmented call that times out or is aborted before the server's `CreateTaskResult`
/// came is cancelled as MCP 2025-11-25 has one cancelled: no `notifications/cancelled`, but its
/// response is waited for (within the cancel grace) and the task it names gets `tasks/cancel`.
/// A response that does not come within the grace leaves nothing to cancel, and nothing is sent.
#[test]
fn a_task_call_cancelled_before_its_task_came_cancels_the_task() {
    let slow_task = || Reply::Later(20, Box::new(Reply::Echo(json!({"task": task("working", 1000)}))));
    for abort in [false, true] {
        let mut replies = task_server();
        replies.extend([slow_task(), Reply::Echo(task("cancelled", 1000))]);
        // The call's 1,000 ms end at once; the grace's 3,000 ms do not.
        let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 1_000);
        block_on(h.client.connect()).unwrap();
        block_on(h.client.list_tools()).unwrap();
        let mut opts = if abort {
            // Aborted once the call is on its way (a signal aborted already sends nothing).
            CallOptions { cancel: Some(Box::pin(async { yield_now().await; yield_now().await })), ..CallOptions::default() }
        } else {
            CallOptions { timeout_ms: Some(1_000), ..CallOptions::default() }
        };
        let e = block_on(h.client.call_tool("research", json!({}), &mut opts)).unwrap_err();
        assert_eq!(e.code, if abort { ErrorCode::Aborted } else { ErrorCode::Timeout }, "{e}");
        assert!(e.message.ends_with("; task t-1 was cancelled (tool \"research\")") || e.message.ends_with("; task t-1 was cancelled"), "{e}");
        assert!(!e.message.contains("the request was cancelled"), "{e}");
        let details = e.details.as_ref().unwrap();
        assert_eq!((&details["taskId"], &details["taskCancelled"]), (&json!("t-1"), &json!(true)), "{details:?}");
        let sent: Vec<Value> = h.log.borrow().requests[3..].iter().map(body).collect();
        assert_eq!(sent.iter().map(|b| b["method"].as_str().unwrap()).collect::<Vec<_>>(), ["tools/call", "tasks/cancel"], "abort {abort}");
        assert_eq!(sent[1]["params"], json!({"taskId": "t-1"}));
    }

    // A task-augmented call by name (the app runs the task itself) is cancelled so too.
    let mut replies = task_server();
    replies.extend([slow_task(), Reply::Echo(task("cancelled", 1000))]);
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 1_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let params = json!({"name": "research", "arguments": {}, "task": {"ttl": 60000}});
    let e = block_on(h.client.request_checked("tools/call", params, &mut CallOptions { timeout_ms: Some(1_000), ..CallOptions::default() })).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (ErrorCode::Timeout, "tools/call timed out after 1000 ms; task t-1 was cancelled"));
    let methods: Vec<Value> = h.log.borrow().requests[3..].iter().map(|r| body(r)["method"].clone()).collect();
    assert_eq!(methods, ["tools/call", "tasks/cancel"]);

    // No response within the grace: no task is known, and nothing is sent.
    let mut replies = task_server();
    replies.push(Reply::Hang);
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), CANCEL_GRACE_MS);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let e = block_on(h.client.call_tool("research", json!({}), &mut CallOptions { timeout_ms: Some(1_000), ..CallOptions::default() })).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{e}");
    assert!(e.message.contains("the server named no task within 3000 ms, so none was cancelled"), "{e}");
    let methods: Vec<Value> = h.log.borrow().requests[3..].iter().map(|r| body(r)["method"].clone()).collect();
    assert_eq!(methods, ["tools/call"]);

    // A plain call (no task) is cancelled as ever.
    let mut replies = task_server();
    replies.extend([Reply::Hang, accepted()]);
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 1_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let e = block_on(h.client.call_tool("quick", json!({}), &mut CallOptions { timeout_ms: Some(1_000), ..CallOptions::default() })).unwrap_err();
    assert!(e.message.ends_with("the request was cancelled"), "{e}");
    let methods: Vec<Value> = h.log.borrow().requests[3..].iter().map(|r| body(r)["method"].clone()).collect();
    assert_eq!(methods, ["tools/call", "notifications/cancelled"]);
}

/// The time `onRequest` takes to answer a task's input request does not count against the
/// call's timeout, on whichever stream the request came: the `tools/call`'s, a `tasks/get`'s
/// (as on the `tasks/result`'s). Here the user takes 3 s of a 2 s timeout.
#[test]
fn a_tasks_input_time_does_not_count_against_its_timeout_on_any_stream() {
    // Ids: initialize 0, tools/list 1, tools/call 2, tasks/get 3, tasks/result 4 (or 3 and 4 shifted).
    let ask = r#"{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"go on?","requestedSchema":{"type":"object","properties":{}}}}"#;
    let result = || Reply::Echo(json!({"content": [{"type": "text", "text": "done"}]}));
    for on_get in [true, false] {
        let mut replies = task_server();
        if on_get {
            let polled = json!({"jsonrpc": "2.0", "id": 3, "result": task("completed", 100)}).to_string();
            replies.extend([Reply::Echo(json!({"task": task("working", 100)})), sse_events(&[ask, &polled], false), accepted(), result()]);
        } else {
            let created = json!({"jsonrpc": "2.0", "id": 2, "result": {"task": task("working", 100)}}).to_string();
            replies.extend([sse_events(&[ask, &created], false), accepted(), Reply::Echo(task("completed", 100)), result()]);
        }
        let h = harness_with(replies, declaring(json!({"elicitation": {}})), 10_000);
        let clock = h.clock.clone();
        h.client.set_request_handler(Some(Box::new(move |_, _, _| {
            let clock = clock.clone();
            Box::pin(async move {
                clock.advance(3_000);
                Ok(json!({"action": "accept", "content": {}}))
            })
        })));
        block_on(h.client.connect()).unwrap();
        block_on(h.client.list_tools()).unwrap();
        let r = block_on(h.client.call_tool("research", json!({}), &mut CallOptions { timeout_ms: Some(2_000), ..CallOptions::default() }));
        let r = r.unwrap_or_else(|e| panic!("on the {} stream: {e}", if on_get { "tasks/get" } else { "tools/call" }));
        assert_eq!(r["content"][0]["text"], "done");
        let methods: Vec<Value> = h.log.borrow().requests[3..].iter().map(|r| body(r)["method"].clone()).collect();
        assert!(!methods.contains(&json!("tasks/cancel")) && methods.contains(&json!("tasks/result")), "{methods:?}");
    }

    // A total (`max_total_timeout_ms`) counts it: the task's time is up.
    let mut replies = task_server();
    let polled = json!({"jsonrpc": "2.0", "id": 3, "result": task("completed", 100)}).to_string();
    replies.extend([Reply::Echo(json!({"task": task("working", 100)})), sse_events(&[ask, &polled], false), accepted()]);
    let h = harness_with(replies, declaring(json!({"elicitation": {}})), 10_000);
    let clock = h.clock.clone();
    h.client.set_request_handler(Some(Box::new(move |_, _, _| {
        let clock = clock.clone();
        Box::pin(async move {
            clock.advance(3_000);
            Ok(json!({"action": "accept", "content": {}}))
        })
    })));
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let e = block_on(h.client.call_tool("research", json!({}), &mut CallOptions { max_total_timeout_ms: Some(2_000), ..CallOptions::default() })).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{e}");
    assert!(e.message.contains("did not end in 2000 ms"), "{e}");
}

/// A `tasks/get` answer (or a created task) that is not a Task (not an object, no `status`, a
/// status MCP does not have) is `PROTOCOL` naming what is wrong, at once: it is not polled on as
/// a task still working until the timeout (or forever, without one). The task is cancelled.
#[test]
fn a_task_that_is_not_a_task_is_a_protocol_error() {
    for (bad, problem) in [
        (Value::Null, "the tasks/get result is not a Task: it is null, not an object"),
        (json!([task("working", 100)]), "the tasks/get result is not a Task: it is array, not an object"),
        (json!({"taskId": "t-1"}), "the tasks/get result is not a Task: it has no status"),
        (json!({"taskId": "t-1", "status": "paused"}), "the tasks/get result is not a Task: its status \"paused\" is not one of working, input_required, completed, failed, cancelled"),
    ] {
        let mut replies = task_server();
        replies.extend([Reply::Echo(json!({"task": task("working", 100)})), Reply::Echo(bad.clone()), Reply::Echo(task("cancelled", 100))]);
        let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 10_000);
        block_on(h.client.connect()).unwrap();
        block_on(h.client.list_tools()).unwrap();
        let e = block_on(h.client.call_tool("research", json!({}), &mut CallOptions::default())).unwrap_err();
        assert_eq!(e.code, ErrorCode::Protocol, "{e}");
        assert!(e.message.contains(problem), "{e}");
        let details = e.details.as_ref().unwrap();
        assert_eq!((&details["result"], &details["taskId"], &details["taskCancelled"]), (&bad, &json!("t-1"), &json!(true)));
        let methods: Vec<Value> = h.log.borrow().requests[3..].iter().map(|r| body(r)["method"].clone()).collect();
        assert_eq!(methods, ["tools/call", "tasks/get", "tasks/cancel"], "{bad}");
    }
    let mut replies = task_server();
    replies.extend([Reply::Echo(json!({"task": {"taskId": "t-1", "status": 3}})), Reply::Echo(task("cancelled", 100))]);
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 10_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let e = block_on(h.client.call_tool("research", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol, "{e}");
    assert!(e.message.contains("the created task is not a Task: its status 3 is not one of"), "{e}");
}

/// Tasks are 2025-11-25's: a server that settled on an earlier revision gets a plain call, even
/// when its capabilities name `tasks.requests.tools.call`.
#[test]
fn a_server_of_an_earlier_revision_runs_no_tasks() {
    let mut replies = task_server();
    replies[0] = json_reply(json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "serverInfo": {"name": "t", "version": "1"},
        "capabilities": {"tools": {}, "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}}}}}));
    replies.push(Reply::Echo(json!({"content": [{"type": "text", "text": "plain"}]})));
    let h = harness(replies);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let r = block_on(h.client.call_tool("research", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(r["content"][0]["text"], "plain");
    let last = body(h.log.borrow().requests.last().unwrap());
    assert!(last["params"].get("task").is_none(), "{last}");
}

/// A 404 renewal of a 2025-11-25 session keeps what the listing said of its tools until they are
/// listed again: a tool that runs only as a task still does. The listing is stale, though: the
/// new session may be another instance of the server.
#[test]
fn a_session_renewal_keeps_what_the_listing_said_of_tasks() {
    let init = |id: i64, session: &str| Reply::Http {
        status: 200,
        headers: vec![("content-type", "application/json".to_owned()), ("mcp-session-id", session.to_owned())],
        chunks: vec![json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-11-25", "serverInfo": {"name": "t", "version": "1"},
            "capabilities": {"tools": {}, "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}}}}}).to_string().into_bytes()],
        then_hang: false,
        then_error: false,
    };
    let mut replies = task_server();
    replies[0] = init(0, "a");
    // Ids: initialize 0, tools/list 1, tools/call quick 2 (404), initialize 3, tools/call quick 4, tools/call research 5.
    replies.extend([
        status_reply(404, vec![], ""),
        init(3, "b"),
        accepted(),
        Reply::Echo(json!({"content": [{"type": "text", "text": "quick"}]})),
        Reply::Echo(json!({"content": [{"type": "text", "text": "answered at once"}]})),
    ]);
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 10_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    block_on(h.client.call_tool("quick", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(h.client.session_id().as_deref(), Some("b"), "renewed");
    assert!(h.client.tools_changed() && !h.client.tools_expired(), "a new session asks for a new listing");
    block_on(h.client.call_tool("research", json!({}), &mut CallOptions::default())).unwrap();
    let last = body(h.log.borrow().requests.last().unwrap());
    assert_eq!(last["params"]["name"], "research");
    assert!(last["params"].get("task").is_some(), "sent as a plain call after the renewal: {last}");
}

/// A task's progress handler may call back into the client (no RefCell is held while it runs):
/// here it reads the client's state and starts another task call, which registers a handler.
#[test]
fn a_task_progress_handler_may_call_the_client() {
    let mut replies = task_server();
    let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1}}"#;
    let done = r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"done"}]}}"#;
    replies.extend([Reply::Echo(json!({"task": task("working", 100)})), Reply::Echo(task("completed", 100)), sse_events(&[progress, done], false)]);
    let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 10_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let client: &'static Client<Scripted, FakeClock> = Box::leak(Box::new(h.client));
    let heard = Rc::new(Cell::new(0));
    let h2 = heard.clone();
    let mut opts = CallOptions {
        on_progress: Some(Box::new(move |_p: &Value| {
            h2.set(h2.get() + 1);
            let _ = client.tools_expired();
            client.set_notification_handler(None);
            let mut inner = CallOptions { on_progress: Some(Box::new(|_: &Value| {})), ..CallOptions::default() };
            let f = client.call_tool("research", json!({}), &mut inner);
            let _ = futures_util::FutureExt::now_or_never(f);
        })),
        ..CallOptions::default()
    };
    let r = block_on(client.call_tool("research", json!({}), &mut opts)).unwrap();
    assert_eq!(r["content"][0]["text"], "done");
    assert_eq!(heard.get(), 1);
    assert!(client.task_progress.borrow().is_empty());
}

/// A bound inside the task (an idle timeout of its `tasks/result`) is not the task's own time:
/// its error is kept as it is (with `idleTimeoutMs`), and the task is cancelled.
#[test]
fn an_inner_timeout_is_not_the_tasks() {
    let mut replies = task_server();
    replies.extend([
        Reply::Echo(json!({"task": task("input_required", 1000)})),
        Reply::Http { status: 200, headers: vec![("content-type", "text/event-stream".into())], chunks: vec![], then_hang: true, then_error: false },
    ]);
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.idle_timeout_ms = Some(500);
    let h = harness_with(replies, opts, 1_000);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let e = block_on(h.client.call_tool("research", json!({}), &mut CallOptions { timeout_ms: Some(600_000), ..CallOptions::default() })).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    let details = e.details.as_ref().unwrap();
    assert!(details.contains_key("idleTimeoutMs") && !e.message.contains("did not end in 600000"), "{e} {details:?}");
    assert!(e.message.starts_with("tools/call research: "), "{e}");
    assert!(details.contains_key("taskCancelled"), "the task was still running: {details:?}");
    let last = body(h.log.borrow().requests.last().unwrap());
    assert_eq!(last["method"], "tasks/cancel");
}

/// The hub's refresh of a 2026-07-28 server whose listing expired (`ttlMs: 0`): a listing that
/// hangs is given up after 10 s (not the client's 120 s), the server keeps its tools, and a
/// refresh does not ask it again for 5 s, then 10 s; a success ends the wait.
#[test]
fn a_hub_refresh_is_bounded_and_waits_after_a_failure() {
    let tools = || Reply::Echo(json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "resultType": "complete", "ttlMs": 0}));
    // Sleeps up to 10 s end at once (moving `now`); the client's 120 s would never end, so the
    // test would hang if the refresh were not bounded.
    let h = harness_with(vec![discover_reply(), tools(), Reply::Hang, Reply::Hang, tools()], modern(), 10_000);
    let (now, slept) = (h.now.clone(), h.slept.clone());
    let hub = Hub::new(vec![("s".to_owned(), Rc::new(h.client))], h.clock, None, None);
    let (listed, errors) = block_on(hub.list_tools(&Selection::Auto, None));
    assert!(errors.is_empty() && listed.len() == 1);
    let requests = || h.log.borrow().requests.len();
    let convert = || block_on(hub.tools_refreshed(Provider::OpenAi, &ConvertOptions::default())).unwrap();
    let before = now.get();
    assert!(convert().contains("mcp__s__a"), "the hung listing is given up; the tools are kept");
    assert_eq!(now.get() - before, 10_000, "given up after 10 s: {:?}", slept.borrow());
    assert_eq!(requests(), 3);
    convert();
    now.set(now.get() + 4_000);
    convert();
    assert_eq!(requests(), 3, "not asked again within 5 s");
    now.set(now.get() + 1_000);
    convert();
    assert_eq!(requests(), 4, "asked once 5 s have passed; it hung again");
    now.set(now.get() + 9_999);
    convert();
    assert_eq!(requests(), 4, "now the wait is 10 s");
    now.set(now.get() + 1);
    assert!(convert().contains("mcp__s__a"));
    assert_eq!(requests(), 5, "asked once 10 s have passed, and it answered");
    now.set(now.get() + 1);
    convert();
    assert_eq!(requests(), 6, "an answer ends the wait: the expired listing (ttlMs 0) is asked for again");
    assert!(h.log.borrow().requests[2..].iter().all(|r| body(r)["method"] == "tools/list"));
}

/// A server that takes the connection and never answers: the hub's listing gives it up after
/// 30 s (or the call's `timeout_ms`), not the client's 120 s, and says so in its errors.
#[test]
fn a_hub_listing_is_bounded_per_server() {
    for (timeout, waited) in [(None, 30_000), (Some(5_000), 5_000)] {
        // Sleeps up to 30 s end at once (moving `now`); the client's 120 s would never end.
        let h = harness_with(vec![Reply::Hang], legacy(), 30_000);
        let now = h.now.clone();
        let hub = Hub::new(vec![("s".to_owned(), Rc::new(h.client))], h.clock, None, None);
        let before = now.get();
        let (tools, errors) = block_on(hub.list_tools(&Selection::Auto, timeout));
        assert!(tools.is_empty());
        assert_eq!(now.get() - before, waited);
        let e = &errors[0].error;
        assert_eq!((e.code, errors[0].server.as_str()), (ErrorCode::Timeout, "s"));
        assert_eq!(e.message, format!("connecting and listing the tools took more than {waited} ms"));
        assert_eq!(h.log.borrow().requests.len(), 1, "no cancellation for initialize");
    }
    // A server whose 401 may wait for a person signing in (OAuth) has its own timeout for it.
    let mut opts = legacy();
    opts.timeout_ms = 60_000;
    let h = harness_with(vec![Reply::Hang], opts, 60_000);
    h.client.set_unauthorized_handler(Some(Box::new(|_: &Value| Box::pin(async { Ok(None) }))));
    let now = h.now.clone();
    let hub = Hub::new(vec![("s".to_owned(), Rc::new(h.client))], h.clock, None, None);
    let before = now.get();
    let (_, errors) = block_on(hub.list_tools(&Selection::Auto, None));
    assert_eq!(now.get() - before, 60_000, "not cut at 30 s");
    assert_eq!(errors[0].error.code, ErrorCode::Timeout);
}

/// The hub's bound on a listing ends it as the client's own timeout would: the `tools/list` in
/// flight is told `notifications/cancelled` (reason "timeout"), from `list_tools` and from the
/// refresh; a handshake given up is not (`initialize` is never cancelled).
#[test]
fn a_hub_listing_given_up_at_its_bound_is_cancelled() {
    let sent = |log: &Rc<RefCell<Log>>, at: usize| {
        let log = log.borrow();
        (log.requests.len(), body(&log.requests[at])["method"].clone(), body(&log.requests[at])["params"].clone())
    };
    let h = harness_with(vec![init_reply("2025-11-25", Some("s")), accepted(), Reply::Hang, accepted()], legacy(), 30_000);
    let hub = Hub::new(vec![("s".to_owned(), Rc::new(h.client))], h.clock, None, None);
    let (_, errors) = block_on(hub.list_tools(&Selection::Auto, Some(500)));
    assert_eq!((errors[0].error.code, errors[0].error.message.as_str()), (ErrorCode::Timeout, "connecting and listing the tools took more than 500 ms"));
    assert_eq!(sent(&h.log, 3), (4, json!("notifications/cancelled"), json!({"requestId": 1, "reason": "timeout"})));

    // The refresh (10 s) of a server that announced a change.
    let h = harness_with(
        vec![init_reply("2025-11-25", Some("s")), accepted(), sse_reply(LISTED_WITH_A_CHANGE, 0), Reply::Hang, accepted()],
        legacy(),
        10_000,
    );
    let hub = Hub::new(vec![("s".to_owned(), Rc::new(h.client))], h.clock, None, None);
    block_on(hub.list_tools(&Selection::Auto, None));
    block_on(hub.tools_refreshed(Provider::OpenAi, &ConvertOptions::default())).unwrap();
    assert_eq!(hub.listing_errors()[0].error.message, "listing the tools again took more than 10000 ms");
    assert_eq!(sent(&h.log, 4), (5, json!("notifications/cancelled"), json!({"requestId": 2, "reason": "timeout"})));
}

/// A 2025 listing (request 1) whose stream also announces a change: `tools_changed` stays set.
const LISTED_WITH_A_CHANGE: &str = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"a\",\"inputSchema\":{\"type\":\"object\"}}]}}\n\n";

/// A 2025 server announced a change; the refresh's tools/list meets a 404 (the server restarted)
/// and the renewal's initialize hangs: the refresh still ends at its 10 s bound, and the change
/// is still pending. (Sleeps up to 10 s end at once; the client's 120 s never would.)
#[test]
fn a_hub_refresh_that_renews_the_session_is_bounded_too() {
    let h = harness_with(
        vec![init_reply("2025-11-25", Some("s1")), accepted(), sse_reply(LISTED_WITH_A_CHANGE, 0), status_reply(404, vec![], ""), Reply::Hang, Reply::Hang],
        legacy(),
        10_000,
    );
    let now = h.now.clone();
    let hub = Hub::new(vec![("s".to_owned(), Rc::new(h.client))], h.clock, None, None);
    let (tools, errors) = block_on(hub.list_tools(&Selection::Auto, None));
    assert!(errors.is_empty() && tools.len() == 1, "{errors:?}");
    assert!(hub.client("s").unwrap().tools_changed());
    let before = now.get();
    block_on(hub.tools_refreshed(Provider::OpenAi, &ConvertOptions::default())).unwrap();
    assert!(now.get() - before <= 10_000, "the refresh took {} ms", now.get() - before);
    assert!(hub.client("s").unwrap().tools_changed(), "the change is still to be listed");
}

/// After a failed renewal the client is disconnected; the next refresh (after the wait) connects
/// again, within the refresh's 10 s too.
#[test]
fn a_hub_refresh_that_reconnects_is_bounded_too() {
    let h = harness_with(
        vec![init_reply("2025-11-25", Some("s1")), accepted(), sse_reply(LISTED_WITH_A_CHANGE, 0), status_reply(404, vec![], ""), Reply::NetworkError, Reply::Hang],
        legacy(),
        10_000,
    );
    let now = h.now.clone();
    let hub = Hub::new(vec![("s".to_owned(), Rc::new(h.client))], h.clock, None, None);
    block_on(hub.list_tools(&Selection::Auto, None));
    // The renewal fails at once (network): disconnected, backoff 5 s.
    block_on(hub.tools_refreshed(Provider::OpenAi, &ConvertOptions::default())).unwrap();
    assert!(!hub.client("s").unwrap().is_connected());
    now.set(now.get() + 5_000);
    let before = now.get();
    block_on(hub.tools_refreshed(Provider::OpenAi, &ConvertOptions::default())).unwrap();
    assert_eq!(h.log.borrow().requests.len(), 6, "asked again after 5 s: an initialize");
    assert!(now.get() - before <= 10_000, "the refresh took {} ms", now.get() - before);
}

/// Two conversions at once (ttlMs 0): one refresh lists the server, the other leaves it be; the
/// failure's wait is the first one, 5 s.
#[test]
fn concurrent_hub_refreshes_list_a_server_once() {
    let tools = || Reply::Echo(json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "resultType": "complete", "ttlMs": 0}));
    let h = harness_with(vec![discover_reply(), tools(), Reply::Later(2, Box::new(Reply::NetworkError)), Reply::Later(2, Box::new(Reply::NetworkError)), tools()], modern(), 1_000);
    let now = h.now.clone();
    let hub = Hub::new(vec![("s".to_owned(), Rc::new(h.client))], h.clock, None, None);
    block_on(hub.list_tools(&Selection::Auto, None));
    let opts = ConvertOptions::default();
    let (a, b) = block_on(async { futures_util::join!(hub.tools_refreshed(Provider::OpenAi, &opts), hub.tools_refreshed(Provider::OpenAi, &opts)) });
    assert_eq!(a.unwrap(), b.unwrap(), "both convert the kept tools");
    assert_eq!(h.log.borrow().requests.len(), 3, "one refresh asked");
    now.set(now.get() + 4_999);
    block_on(hub.tools_refreshed(Provider::OpenAi, &opts)).unwrap();
    assert_eq!(h.log.borrow().requests.len(), 3, "within the first wait");
    now.set(now.get() + 1);
    block_on(hub.tools_refreshed(Provider::OpenAi, &opts)).unwrap();
    assert_eq!(h.log.borrow().requests.len(), 4, "one failed attempt: asked again after 5 s");
}

#[test]
fn an_open_client_holds_nothing_for_the_requests_that_have_ended() {
    let mut replies = vec![init_reply("2025-11-25", Some("s")), accepted()];
    for i in 0..50 {
        let result = json!({"content": [{"type": "text", "text": i.to_string()}]});
        let sse = format!("data: {}\n\n", json!({"jsonrpc": "2.0", "id": i + 1, "result": result}));
        replies.push(Reply::Later(3, Box::new(if i % 2 == 0 { Reply::Echo(result) } else { sse_reply(&sse, 5) })));
    }
    let h = harness(replies);
    block_on(h.client.connect()).unwrap();
    for i in 0..50 {
        let result = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap();
        assert_eq!(result["content"][0]["text"], i.to_string());
        // Each call waited on the close signal (its reply came late) and took its waker back.
        assert_eq!(h.client.closing.wakers.borrow().len(), 0, "call {i}");
    }
    assert!(h.client.closing.next_key.get() >= 50, "every call waited on the close signal");
}

/// Express's page for a route it does not have, as a server of the deprecated HTTP+SSE transport
/// answers a POST to its event stream's URL.
pub(crate) const CANNOT_POST: &str = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n<style>pre { color: red }</style>\n</head>\n<body>\n<pre>Cannot POST /sse</pre>\n</body>\n</html>\n";

/// A POST of `initialize` refused with 404 or 405 and no JSON-RPC error: the URL may not be an MCP
/// endpoint, said in the message, with an HTML page quoted as its text (the page itself stays
/// in `bodyPreview`). A 404 that carries a JSON-RPC error is an MCP server's answer, not that.
#[test]
fn initialize_refused_by_a_web_page_says_the_url_may_not_be_an_mcp_endpoint() {
    let html = vec![("content-type", "text/html; charset=utf-8".to_owned())];
    let h = harness(vec![status_reply(404, html.clone(), CANNOT_POST)]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::HttpStatus);
    assert!(e.message.starts_with("initialize: HTTP 404: Error Cannot POST /sse; the URL may not be an MCP endpoint"), "{}", e.message);
    assert!(!e.message.contains('<') && !e.message.contains("color"), "{}", e.message);
    let details = e.details.unwrap();
    assert_eq!(details["status"], 404);
    assert_eq!(details["bodyPreview"], CANNOT_POST);

    let h = harness(vec![status_reply(405, vec![], "Method Not Allowed")]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.message, "initialize: HTTP 405: Method Not Allowed; the URL may not be an MCP endpoint: nothing there takes MCP's POSTs (Streamable HTTP)");

    // An MCP server's own refusal, and another request's 404: no such guess.
    let h = harness(vec![status_reply(404, vec![], r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32000,"message":"Not here"}}"#)]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert!(!e.message.contains("MCP endpoint"), "{}", e.message);
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), status_reply(500, html, "<html><head><title>500 Internal Server Error</title><script>var x = 1 < 2;</script></head><body><h1>Internal   Server &amp; Error</h1></body></html>")]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.message, "tools/list: HTTP 500: 500 Internal Server Error Internal Server & Error");
}

/// A server request names the client request it came for (`RequestContext::related`): the call
/// whose response stream brought it (with the tool's name), or the 2026-07-28 round that asked
/// for it; one on the listening stream names none.
#[test]
fn a_server_request_names_the_request_it_came_for() {
    let seen: Rc<RefCell<Vec<(Value, Value)>>> = Rc::default();
    let record = |h: &Harness| {
        let s2 = seen.clone();
        h.client.set_request_handler(Some(Box::new(move |_, _, context| {
            s2.borrow_mut().push((context.id.clone(), context.related.as_ref().map_or(Value::Null, Related::to_value)));
            Box::pin(async { Ok(json!({"action": "decline"})) })
        })));
    };
    let ask = sse_events(&[r#"{"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{}}"#, r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#], false);
    let listening = sse_events(&[r#"{"jsonrpc":"2.0","id":9,"method":"roots/list","params":{}}"#], true);
    let h = harness_declaring(vec![init_reply("2025-11-25", Some("s")), accepted(), ask, accepted(), listening, accepted(), accepted()], json!({"elicitation": {}, "roots": {}}));
    record(&h);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap();
    let (listened, closed) = block_on(futures_util::future::join(h.client.listen(), async {
        while seen.borrow().len() < 2 {
            yield_now().await;
        }
        h.client.close().await
    }));
    assert!(listened.unwrap());
    closed.unwrap();
    assert_eq!(*seen.borrow(), [(json!(5), json!({"id": 1, "method": "tools/call", "tool": "echo"})), (json!(9), Value::Null)]);

    // 2026-07-28: the round that answered input_required.
    seen.borrow_mut().clear();
    let h = harness_with(
        vec![
            discover_reply(),
            Reply::Echo(json!({"resultType": "input_required", "inputRequests": {"k": {"method": "elicitation/create", "params": {}}}})),
            Reply::Echo(json!({"content": []})),
        ],
        modern_declaring(json!({"elicitation": {}})),
        10_000,
    );
    record(&h);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.call_tool("ask", json!({}), &mut CallOptions::default())).unwrap();
    let round = body(&h.log.borrow().requests[1])["id"].clone();
    assert_eq!(*seen.borrow(), [(json!("k"), json!({"id": round, "method": "tools/call", "tool": "ask"}))]);
}

/// A call's timeout does not count the time the request handler takes to answer a request of
/// that call (a person filling in a form): its deadline is pushed by that time. The server's
/// silence after the answer still counts.
#[test]
fn a_calls_timeout_stands_while_its_server_request_is_answered() {
    const ELICIT: &str = r#"{"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{}}}}"#;
    // Answered after 5,000 ms of the clock: the handler moves it on, and answers at its 20th poll (the
    // call's timeout is polled meanwhile).
    let slow_person = |h: &Harness| {
        let now = h.now.clone();
        h.client.set_request_handler(Some(Box::new(move |_, _, _| {
            let (now, mut polls) = (now.clone(), 0);
            Box::pin(std::future::poll_fn(move |cx| {
                polls += 1;
                if polls == 1 {
                    now.set(now.get() + 5_000);
                }
                if polls < 20 {
                    cx.waker().wake_by_ref();
                    return std::task::Poll::Pending;
                }
                std::task::Poll::Ready(Ok(json!({"action": "accept", "content": {}})))
            }))
        })));
    };
    // The POSTs after the call's own, each with the clock's time it was sent at.
    let posted: Rc<RefCell<Vec<(u64, Value)>>> = Rc::default();
    let server = |h: &Harness| {
        let (now, posted) = (h.now.clone(), posted.clone());
        Reply::Server(Rc::new(move |req: &HttpRequest| {
            posted.borrow_mut().push((now.get(), body(req)));
            accepted()
        }))
    };

    let h = harness_declaring(vec![], json!({"elicitation": {}}));
    let stream = sse_events(&[ELICIT, r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#], false);
    *h.client.transport().replies.borrow_mut() = vec![init_reply("2025-11-25", Some("s")), accepted(), stream, server(&h)].into();
    slow_person(&h);
    block_on(h.client.connect()).unwrap();
    let start = h.now.get();
    let result = block_on(h.client.call_tool("ask", json!({}), &mut CallOptions { timeout_ms: Some(1_000), ..CallOptions::default() }));
    assert_eq!(result.unwrap()["content"], json!([]), "answered after 5,000 ms, the call of 1,000 ms still resolves");
    assert_eq!(*posted.borrow(), [(start + 5_000, json!({"jsonrpc": "2.0", "id": 5, "result": {"action": "accept", "content": {}}}))]);

    // The server silent after the answer: the call times out 1,000 ms later.
    posted.borrow_mut().clear();
    let h = harness_declaring(vec![], json!({"elicitation": {}}));
    let stream = sse_events(&[ELICIT], true);
    *h.client.transport().replies.borrow_mut() = vec![init_reply("2025-11-25", Some("s")), accepted(), stream, server(&h)].into();
    slow_person(&h);
    block_on(h.client.connect()).unwrap();
    let start = h.now.get();
    let e = block_on(h.client.call_tool("ask", json!({}), &mut CallOptions { timeout_ms: Some(1_000), ..CallOptions::default() })).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{}", e.message);
    let posted = posted.borrow();
    assert_eq!(posted[0], (start + 5_000, json!({"jsonrpc": "2.0", "id": 5, "result": {"action": "accept", "content": {}}})), "the answer went out");
    assert_eq!((posted[1].0, posted[1].1["method"].clone()), (start + 6_000, json!("notifications/cancelled")), "timed out 1,000 ms after the answer");
}

/// A server's error message is quoted in the error's message escaped (terminal escapes, NUL, a
/// bidi override) and cut to about 1 KB; the whole error object, as it came, is `rpcError`.
#[test]
fn a_servers_error_message_is_quoted_escaped_and_cut() {
    let message = format!("ok\u{1b}[2J\u{1b}[31mFAKE\u{0}\u{202e}evil{}", "E".repeat(100_000));
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), json_reply(json!({"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":message,"data":{"x":1}}}))]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::JsonRpcError);
    assert!(e.message.starts_with(r#"tools/call: the server answered error -32000: "ok\u001b[2J\u001b[31mFAKE\u0000\u202eevilEEE"#), "{}", &e.message[..100]);
    assert!(e.message.ends_with(&format!("… ({} characters in all)", message.chars().count())), "{}", &e.message[e.message.len() - 60..]);
    assert!(e.message.len() < 1_200, "{}", e.message.len());
    assert!(!e.message.contains(['\u{1b}', '\u{0}', '\u{202e}']));
    let d = e.details.unwrap();
    assert_eq!(d["rpcCode"], -32000);
    assert_eq!(d["data"], json!({"x": 1}));
    assert_eq!(d["rpcError"], json!({"code": -32000, "message": message, "data": {"x": 1}}));
}

/// Error answers that JSON-RPC does not allow, and answers that are no answer, say what they are.
#[test]
fn malformed_answers_say_what_is_wrong() {
    // An error object with a code that is no integer and a message that is no string: the server's
    // own words are kept, not read as "error 0" and "".
    let bad = json!({"code": "E_TOOL", "message": {"text": "disk full"}});
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), json_reply(json!({"jsonrpc":"2.0","id":1,"error":bad})), json_reply(json!({"jsonrpc":"2.0","id":2}))]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol, "{e}");
    assert!(e.message.contains(r#"an error object JSON-RPC does not allow (its code must be an integer, its message a string): {"code":"E_TOOL","message":{"text":"disk full"}}"#), "{}", e.message);
    assert_eq!(e.details.unwrap()["invalidRpcError"], bad);
    // Neither a result nor an error.
    let e = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert_eq!(e.message, "tools/call: the server's response to request 2 has neither a result nor an error");
}

/// An HTTP error's body is quoted with what would act on a terminal escaped, on one line.
#[test]
fn an_error_body_is_quoted_printable() {
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), status_reply(502, vec![], "bad\u{1b}[2J gateway\n\u{202e}x")]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.message, r"tools/list: HTTP 502: bad\u001b[2J gateway \u202ex");
}

/// An initialize result that is no object is no version "" of the protocol: it says so, and the
/// session the server opened is ended.
#[test]
fn an_initialize_result_that_is_no_object_says_so() {
    let null_init = Reply::Http { status: 200, headers: vec![("content-type", "application/json".into()), ("mcp-session-id", "s-1".into())], chunks: vec![br#"{"jsonrpc":"2.0","id":0,"result":null}"#.to_vec()], then_hang: false, then_error: false };
    let h = harness(vec![null_init, accepted()]);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol, "{e}");
    assert_eq!(e.message, "initialize: the server's result is not an object (InitializeResult) but null");
    assert_eq!(h.log.borrow().requests[1].method, Method::Delete);
}

/// A body that breaks off once the headers came is no unreachable server: the message says the
/// connection dropped in the middle of the response (`midResponse`).
#[test]
fn a_body_that_breaks_off_after_its_headers_says_so() {
    let cut = Reply::Http { status: 200, headers: vec![("content-type", "application/json".into())], chunks: vec![br#"{"jsonrpc":"2.0","id":"#.to_vec()], then_hang: false, then_error: true };
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), cut]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Network);
    assert!(e.message.starts_with("tools/call: the connection dropped in the middle of the response (connection reset)"), "{}", e.message);
    assert!(!e.message.contains("no HTTP response") && !e.message.contains("unreachable"), "{}", e.message);
    assert_eq!(e.details.unwrap()["midResponse"], true);
}

/// An HTTP error whose body never ends is that error, once its preview was read for a while
/// (`ERROR_BODY_MS`), not the request's timeout.
#[test]
fn an_error_status_whose_body_never_ends_is_that_status() {
    let endless = Reply::Http { status: 500, headers: vec![("content-type", "text/plain".into())], chunks: vec![b"Internal error, details follow...".to_vec()], then_hang: true, then_error: false };
    let h = harness(vec![init_reply("2025-11-25", None), accepted(), endless]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::HttpStatus, "{e}");
    assert_eq!(e.message, "tools/call: HTTP 500: Internal error, details follow...");
    assert_eq!(e.details.unwrap()["status"], 500);
    assert!(h.slept.borrow().contains(&ERROR_BODY_MS));
    assert_eq!(h.log.borrow().aborted, 1, "the body's fetch is aborted");
}

/// A `tools/call` result that is no `CallToolResult` (not an object, or a `content` that is not an
/// array) is `PROTOCOL` with the result as it came, from the client and through a hub (which gave
/// the model an empty text that was no error); what the revisions allow passes.
#[test]
fn a_call_result_that_is_no_call_tool_result_is_a_protocol_error() {
    // Blocks without what their type requires (the types promise it: `b.text.toUpperCase()`).
    let blocks = [
        json!({"content": [{"type": "text", "text": 5}]}),
        json!({"content": [{"type": "text", "text": "ok"}, {"type": "image"}]}),
        json!({"content": [{"type": "audio", "data": "AAAA"}]}),
        json!({"content": ["hello"]}),
        json!({"content": [{"text": "no type"}]}),
        json!({"content": [{"type": "resource_link", "uri": "file:///a"}]}),
        json!({"content": [{"type": "resource", "resource": {"uri": "file:///a"}}]}),
        json!({"content": [{"type": "resource", "uri": "file:///a", "text": "x"}]}),
    ];
    for bad in [json!(null), json!("hello"), json!({"content": "hello"}), json!({"content": {"type": "text", "text": "x"}}), json!([{"type": "text", "text": "x"}])].into_iter().chain(blocks) {
        let h = harness(vec![init_reply("2025-11-25", None), accepted(), Reply::Echo(bad.clone())]);
        block_on(h.client.connect()).unwrap();
        let e = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap_err();
        assert_eq!(e.code, ErrorCode::Protocol, "{bad}: {e}");
        assert!(e.message.starts_with("tools/call echo: the result is not a CallToolResult: "), "{}", e.message);
        assert_eq!(e.details.unwrap()["result"], bad);

        let h = harness(vec![init_reply("2025-11-25", None), accepted(), Reply::Echo(json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]})), Reply::Echo(bad.clone())]);
        let hub = Hub::new(vec![("s".to_owned(), Rc::new(h.client))], h.clock, None, None);
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::OpenAi, &ConvertOptions::default()).unwrap();
        let Err(e) = block_on(hub.call_tool("mcp__s__echo", json!({}), CallOptions::default())) else { panic!("the hub's call fails too") };
        assert_eq!(e.code, ErrorCode::Protocol, "{bad}: {e}");
        assert_eq!(e.details.as_ref().unwrap()["server"], "s");
    }
    // A block of a type MCP does not define (yet), image data that is a URL: kept.
    let kept = [json!({"content": [{"type": "widget", "spec": {}}]}), json!({"content": [{"type": "image", "data": "https://example.com/a.png", "mimeType": "image/png"}]})];
    for good in [json!({}), json!({"content": []}), json!({"content": [{"type": "text", "text": "x"}], "isError": true}), json!({"structuredContent": 5, "_meta": {}})].into_iter().chain(kept) {
        let h = harness(vec![init_reply("2025-11-25", None), accepted(), Reply::Echo(good.clone())]);
        block_on(h.client.connect()).unwrap();
        let mut expected = good.clone();
        expected.as_object_mut().unwrap().entry("content").or_insert(json!([]));
        assert_eq!(block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap(), expected);
    }
}

/// A listing with an entry that is no object leaves out that entry, not the whole listing: it is
/// in `dropped_tools` with its index over the pages, as a tool that breaks other rules is; the
/// other lists, which have no such report, fail naming the index.
#[test]
fn a_listing_entry_that_is_no_object_is_dropped_with_its_index() {
    let h = harness(vec![
        init_reply("2025-11-25", None),
        accepted(),
        Reply::Echo(json!({"tools": [{"name": "a"}, "b"], "nextCursor": "p2"})),
        Reply::Echo(json!({"tools": [{"name": "c"}, null, {"name": "d"}]})),
    ]);
    block_on(h.client.connect()).unwrap();
    let tools = block_on(h.client.list_tools()).unwrap();
    assert_eq!(tools, [json!({"name": "a"}), json!({"name": "c"}), json!({"name": "d"})]);
    let dropped = h.client.dropped_tools();
    assert_eq!(dropped.len(), 2, "{dropped:?}");
    assert_eq!(dropped[0]["index"], 1);
    assert_eq!(dropped[0]["name"], "");
    assert_eq!(dropped[0]["reason"], "the entry at index 1 of `tools` is not an object (string), so no tool");
    assert_eq!(dropped[1]["index"], 3);

    let init = json_reply(json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{}},"serverInfo":{"name":"t","version":"1"}}}));
    let h = harness(vec![init, accepted(), Reply::Echo(json!({"resources": [{"uri": "a", "name": "a"}, 7]})), Reply::Echo(json!({"tools": {}}))]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.list_all("resources/list", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert_eq!(e.message, "resources/list: the result is no ListResourcesResult: `resources[1]` is not an object (number: 7)");
    assert_eq!(e.details.unwrap()["result"], json!({"resources": [{"uri": "a", "name": "a"}, 7]}));
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.message, "tools/list result's `tools` is not an array (object)");
}

/// A tool entry without a string `name` is no tool (the SDK's schema refuses the whole listing
/// for it): left out into `dropped_tools` as an entry that is no object is, with its index over
/// the pages; the other tools are kept. An empty name is left out too: no call can name it, and
/// `convertMcpTools(await client.listTools())` refused the whole listing for it.
#[test]
fn a_listed_tool_without_a_string_name_is_dropped_with_its_index() {
    let h = harness(vec![
        init_reply("2025-11-25", None),
        accepted(),
        Reply::Echo(json!({"tools": [{"name": "a"}, {"description": "no name", "inputSchema": {"type": "object"}}], "nextCursor": "p2"})),
        Reply::Echo(json!({"tools": [{"name": 7}, "x", {"name": ""}, {"name": null}, {"name": "d"}]})),
    ]);
    block_on(h.client.connect()).unwrap();
    let tools = block_on(h.client.list_tools()).unwrap();
    assert_eq!(tools, [json!({"name": "a"}), json!({"name": "d"})]);
    let dropped = h.client.dropped_tools();
    let shown = dropped.iter().map(|d| (d["name"].as_str().unwrap(), d["index"].as_u64().unwrap(), d["reason"].as_str().unwrap())).collect::<Vec<_>>();
    assert_eq!(
        shown,
        [
            ("", 1, "the entry at index 1 of `tools` has no name (a string), so no tool"),
            ("", 2, "the entry at index 2 of `tools` has a name that is not a string (number), so no tool"),
            ("", 3, "the entry at index 3 of `tools` is not an object (string), so no tool"),
            ("", 4, "the entry at index 4 of `tools` has an empty name, so no tool"),
            ("", 5, "the entry at index 5 of `tools` has a name that is not a string (null), so no tool"),
        ]
    );
}

/// A capability declared `true` rather than an object (`tools: true`) is taken as declared, with
/// nothing in it (`resources: true` declares no `subscribe`): the SDK's schema refuses such a
/// handshake; toolwire takes the server at its word. `false`, `null` or any other value declares
/// nothing, as a missing capability does.
#[test]
fn a_capability_declared_true_is_declared() {
    let init = |caps: Value| json_reply(json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":caps,"serverInfo":{"name":"t","version":"1"}}}));
    let h = harness(vec![
        init(json!({"tools": true, "resources": true})),
        accepted(),
        Reply::Echo(json!({"tools": [{"name": "a"}]})),
        Reply::Echo(json!({"content": []})),
        Reply::Echo(json!({"resources": []})),
    ]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.list_tools()).unwrap(), [json!({"name": "a"})]);
    block_on(h.client.call_tool("a", json!({}), &mut CallOptions::default())).unwrap();
    block_on(h.client.list_all("resources/list", Value::Null, &mut CallOptions::default())).unwrap();
    let e = block_on(h.client.request("resources/subscribe", json!({"uri": "x"}), &mut CallOptions::default())).unwrap_err();
    assert_eq!((e.code, e.details.unwrap()["capability"].clone()), (ErrorCode::CapabilityNotNegotiated, json!("resources.subscribe")));
    assert_eq!(h.log.borrow().requests.len(), 5);
    for not in [json!(false), Value::Null, json!("yes"), json!(1)] {
        let h = harness(vec![init(json!({"tools": not})), accepted()]);
        block_on(h.client.connect()).unwrap();
        assert_eq!(block_on(h.client.list_tools()).unwrap(), Vec::<Value>::new(), "{not}");
        let e = block_on(h.client.call_tool("a", json!({}), &mut CallOptions::default())).unwrap_err();
        assert_eq!(e.code, ErrorCode::CapabilityNotNegotiated, "{not}");
        assert_eq!(h.log.borrow().requests.len(), 2, "{not}: nothing sent");
    }
}

/// A JSON body whose Content-Length is past `max_body_bytes` is refused before any of it is read
/// (its fetch aborted); one within it is read whole, whether its length is right or lies.
#[test]
fn a_json_body_longer_than_the_limit_by_its_length_is_refused_unread() {
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.max_body_bytes = 1_000;
    let answer = |length: &str| Reply::Http {
        status: 200,
        headers: vec![("content-type", "application/json".into()), ("content-length", length.into())],
        chunks: vec![br#"{"jsonrpc":"2.0","id":"#.to_vec(), br#"1,"result":{"content":[]}}"#.to_vec()],
        then_hang: false,
        then_error: false,
    };
    let h = harness_with(vec![init_reply("2025-11-25", None), accepted(), answer("1001"), answer("5"), Reply::Echo(json!({"content": []})), answer("999")], opts, 10_000);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
    assert_eq!(e.message, "tools/call: response larger than 1000 bytes (its Content-Length is 1001); refused before reading it");
    assert_eq!(e.details.unwrap()["contentLength"], 1001);
    assert_eq!(h.log.borrow().aborted, 1);
    // A length that lies smaller, or larger: the body is what counts (the ids: 2, then 3 and 4).
    let e = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap_err();
    assert!(e.message.contains("did not contain the response to request 2"), "{e}");
    block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap();
    let e = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap_err();
    assert!(e.message.contains("did not contain the response to request 4"), "{e}");
    assert_eq!(crate::protocol::budget::Held::total(), 0, "what the reads held is given back");
}

/// A lone surrogate escape (`"\ud83d"`, as `JSON.stringify` writes a JS string cut inside an
/// emoji) is read as U+FFFD, in a JSON body and in an SSE event, as the MCP SDK reads it: one
/// cut description does not make a server's tools unlistable, nor a cut text fail its call.
#[test]
fn lone_surrogate_escapes_are_read_as_u_fffd() {
    let cut_list = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","description":"smile \ud83d","inputSchema":{"type":"object"}}]}}"#;
    let cut_call = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"\ude00 low, then high \ud83d"}]}}"#;
    let cut_sse = r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"pair \ud83d\ude00 and lone \ud83d"}]}}"#;
    let h = harness(vec![
        init_reply("2025-11-25", Some("s1")),
        accepted(),
        Reply::Http { status: 200, headers: vec![("content-type", "application/json".into())], chunks: vec![cut_list.as_bytes().to_vec()], then_hang: false, then_error: false },
        Reply::Http { status: 200, headers: vec![("content-type", "application/json".into())], chunks: vec![cut_call.as_bytes().to_vec()], then_hang: false, then_error: false },
        sse_events(&[cut_sse], false),
    ]);
    block_on(h.client.connect()).unwrap();
    let tools = block_on(h.client.list_tools()).unwrap();
    assert_eq!(tools[0]["description"], "smile \u{FFFD}");
    let r = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(r["content"][0]["text"], "\u{FFFD} low, then high \u{FFFD}");
    let r = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(r["content"][0]["text"], "pair \u{1F600} and lone \u{FFFD}");
}

/// A listed tool whose name holds a lone surrogate escape is left out (told by
/// `dropped_tools`), in a JSON body and in an SSE event: read as U+FFFD it is a name the server
/// does not have (a call would be refused), and two such names would read as one. A name with a
/// surrogate pair, a name that is U+FFFD itself, and a cut description are kept.
#[test]
fn a_tool_name_cut_inside_a_character_is_dropped_not_renamed() {
    let list = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a\ud83d","inputSchema":{"type":"object"}},{"name":"b\ud83d\ude00","description":"x\ud83d","inputSchema":{"type":"object"}},{"name":"a\ud83e","inputSchema":{"type":"object"}},{"name":"c\ufffd","inputSchema":{"type":"object"}}]}}"#;
    let sse = r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"\udc00x","inputSchema":{"type":"object"}},{"name":"ok","inputSchema":{"type":"object"},"annotations":{"title":"\udc00"}}]}}"#;
    let h = harness(vec![
        init_reply("2025-11-25", Some("s1")),
        accepted(),
        Reply::Http { status: 200, headers: vec![("content-type", "application/json".into())], chunks: vec![list.as_bytes().to_vec()], then_hang: false, then_error: false },
        sse_events(&[sse], false),
    ]);
    block_on(h.client.connect()).unwrap();
    let tools = block_on(h.client.list_tools()).unwrap();
    let names: Vec<_> = tools.iter().map(|t| t["name"].clone()).collect();
    assert_eq!(names, [json!("b\u{1F600}"), json!("c\u{FFFD}")]);
    assert_eq!(tools[0]["description"], "x\u{FFFD}");
    let dropped = h.client.dropped_tools();
    assert_eq!(dropped.iter().map(|d| (d["name"].clone(), d["index"].clone())).collect::<Vec<_>>(), [(json!("a\u{FFFD}"), json!(0)), (json!("a\u{FFFD}"), json!(2))]);
    assert!(dropped[0]["reason"].as_str().unwrap().contains("lone UTF-16 surrogate"), "{dropped:?}");
    let tools = block_on(h.client.list_tools()).unwrap();
    assert_eq!(tools.iter().map(|t| t["name"].clone()).collect::<Vec<_>>(), [json!("ok")]);
    assert_eq!(tools[0]["annotations"]["title"], "\u{FFFD}", "only a listed name is dropped");
    assert_eq!(h.client.dropped_tools()[0]["name"], "\u{FFFD}x");
}

/// [`jsonrpc::read_message`] marks a tool's name only, in a batch too.
#[test]
fn read_message_marks_listed_names_only() {
    let v = jsonrpc::read_message(r#"[{"id":1,"result":{"tools":[{"name":"\ud800"}]}},{"id":2,"result":{"name":"\ud800","content":[{"name":"\ud800"}]}}]"#).unwrap();
    assert_eq!(v[0]["result"]["tools"][0]["name"], json!({ "loneSurrogateName": "\u{FFFD}" }));
    assert_eq!(v[1]["result"]["name"], "\u{FFFD}");
    assert_eq!(v[1]["result"]["content"][0]["name"], "\u{FFFD}");
    assert_eq!(jsonrpc::read_message(r#"{"result":{"tools":[{"name":"a"}]}}"#).unwrap()["result"]["tools"][0]["name"], "a");
}

/// JSON that is broken otherwise still fails, with the parser's own message.
#[test]
fn a_body_broken_otherwise_is_still_a_protocol_error() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("s1")),
        accepted(),
        Reply::Http { status: 200, headers: vec![("content-type", "application/json".into())], chunks: vec![br#"{"jsonrpc":"2.0","id":1,"result":{"x":"\ud83d\u12"}}"#.to_vec()], then_hang: false, then_error: false },
    ]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol, "{e:?}");
    assert!(e.message.contains("not valid JSON"), "{}", e.message);
}

/// A server that writes a number id back another way (`0.0`, `1e0`, `-0`: decoded as a double)
/// is answering the request of that number, as the MCP SDK (JS numbers) takes it.
#[test]
fn a_number_id_written_as_a_float_answers_its_request() {
    let raw = |text: &str| Reply::Http { status: 200, headers: vec![("content-type", "application/json".into())], chunks: vec![text.as_bytes().to_vec()], then_hang: false, then_error: false };
    let h = harness(vec![
        raw(r#"{"jsonrpc":"2.0","id":0.0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"gson","version":"1"}}}"#),
        accepted(),
        raw(r#"{"jsonrpc":"2.0","id":1e0,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}"#),
        sse_events(&[r#"{"jsonrpc":"2.0","id":2.0,"result":{"content":[{"type":"text","text":"ok"}]}}"#], false),
    ]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(h.client.server_info().unwrap()["name"], "gson");
    assert_eq!(block_on(h.client.list_tools()).unwrap()[0]["name"], "echo");
    let r = block_on(h.client.call_tool("echo", json!({}), &mut CallOptions::default())).unwrap();
    assert_eq!(r["content"][0]["text"], "ok");
}

/// A `ping` on the `initialize` response's stream, before the result (the one request that may
/// precede it), is answered with the session id of that response's headers: an SDK server
/// refuses a POST without it (400 "Mcp-Session-Id header is required").
#[test]
fn a_ping_before_the_initialize_result_is_answered_on_its_session() {
    let init = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"t","version":"1"}}}"#;
    let events = format!("data: {{\"jsonrpc\":\"2.0\",\"id\":\"p0\",\"method\":\"ping\"}}\n\ndata: {init}\n\n");
    let h = harness(vec![
        Reply::Http {
            status: 200,
            headers: vec![("content-type", "text/event-stream".into()), ("mcp-session-id", "S1".into())],
            chunks: events.split_inclusive("\n\n").map(|e| e.as_bytes().to_vec()).collect(),
            then_hang: false,
            then_error: false,
        },
        accepted(),
        accepted(),
    ]);
    block_on(h.client.connect()).unwrap();
    let log = h.log.borrow();
    let pong = log.requests.iter().find(|r| body(r)["id"] == "p0").expect("the ping was answered");
    assert_eq!(body(pong)["result"], json!({}));
    assert_eq!(header(pong, "mcp-session-id"), Some("S1"));
    // The version is not known before the result: none is claimed.
    assert_eq!(header(pong, "mcp-protocol-version"), None);
    assert_eq!(h.client.session_id().as_deref(), Some("S1"));
    drop(log);
    // Once the handshake is over (here, refused), the session it offered is nobody's.
    let h = harness(vec![
        Reply::Http {
            status: 200,
            headers: vec![("content-type", "text/event-stream".into()), ("mcp-session-id", "S2".into())],
            chunks: vec![b"data: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"1999-01-01\",\"capabilities\":{}}}\n\n".to_vec()],
            then_hang: false,
            then_error: false,
        },
        accepted(),
    ]);
    assert_eq!(block_on(h.client.connect()).unwrap_err().code, ErrorCode::UnsupportedProtocolVersion);
    assert_eq!(h.client.headers(true, "x").iter().find(|(k, _)| k == "mcp-session-id"), None);
}

/// `connect()` on a client with a session abandons the calls in flight on it at once, as
/// `close()` does (NOT_CONNECTED; its DELETE tells the server, so no cancellation), instead of
/// leaving them to their timeouts (120 s by default) and then cancelling them on the new session.
#[test]
fn connecting_again_abandons_the_calls_of_the_session_it_ends() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("one")),
        accepted(),
        Reply::Hang,
        accepted(),
        init_reply_id(2, "2025-11-25", Some("two")),
        accepted(),
    ]);
    block_on(h.client.connect()).unwrap();
    let call = async { h.client.call_tool("slow", json!({}), &mut CallOptions::default()).await };
    let connect = async {
        yield_now().await;
        h.client.connect().await
    };
    let (r, c) = bounded(futures_util::future::join(call, connect), 1_000).expect("the call is settled at once, not at its timeout");
    c.unwrap();
    let e = r.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotConnected, "{e:?}");
    assert!(e.message.contains("connect() ended its session"), "{}", e.message);
    assert_eq!(e.details.as_ref().unwrap()["sessionEnded"], true);
    assert_eq!(h.client.session_id().as_deref(), Some("two"));
    let log = h.log.borrow();
    assert_eq!(log.aborted, 1, "the call's fetch was aborted");
    assert_eq!((log.requests[3].method, header(&log.requests[3], "mcp-session-id")), (Method::Delete, Some("one")));
    assert!(!log.requests.iter().any(|r| r.body.as_deref().is_some_and(|b| b.contains("notifications/cancelled"))), "no cancellation, on either session");
    drop(log);
    // Calls on the new session are not abandoned by the reconnection before them.
    let h2 = harness(vec![init_reply("2025-11-25", Some("one")), accepted(), status_reply(200, vec![], ""), init_reply_id(1, "2025-11-25", Some("two")), accepted(), Reply::Echo(json!({"content": []}))]);
    block_on(h2.client.connect()).unwrap();
    block_on(h2.client.connect()).unwrap();
    assert_eq!(block_on(h2.client.call_tool("t", json!({}), &mut CallOptions::default())).unwrap(), json!({"content": []}));
}

/// A call whose session was renewed (another request met a 404) while it ran stays pending (its
/// stream is open), but its cancellation is not sent to the new session, which never had it.
/// One on the session it was sent on still is.
#[test]
fn a_cancellation_goes_to_the_session_its_request_was_sent_on_or_nowhere() {
    let h = harness(vec![
        init_reply("2025-11-25", Some("old")),
        accepted(),
        Reply::Hang,
        status_reply(404, vec![], "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}"),
        init_reply_id(3, "2025-11-25", Some("new")),
        accepted(),
        json_reply(json!({"jsonrpc":"2.0","id":4,"result":{"tools":[]}})),
        Reply::Hang,
        accepted(),
    ]);
    block_on(h.client.connect()).unwrap();
    let renewed = Rc::new(Cell::new(false));
    let seen = renewed.clone();
    let abort: CancelFuture = Box::pin(std::future::poll_fn(move |cx| {
        if seen.get() {
            std::task::Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    }));
    let call = async { h.client.call_tool("slow", json!({}), &mut CallOptions { cancel: Some(abort), ..CallOptions::default() }).await };
    let list = async {
        yield_now().await;
        let tools = h.client.list_tools().await;
        renewed.set(true);
        tools
    };
    let (r, tools) = bounded(futures_util::future::join(call, list), 1_000).expect("both end");
    assert_eq!(tools.unwrap(), Vec::<Value>::new());
    assert_eq!(r.unwrap_err().code, ErrorCode::Aborted);
    assert_eq!(h.client.session_id().as_deref(), Some("new"));
    let cancels = || h.log.borrow().requests.iter().filter(|r| body(r)["method"] == "notifications/cancelled").map(|r| (body(r)["params"]["requestId"].clone(), header(r, "mcp-session-id").map(str::to_owned))).collect::<Vec<_>>();
    assert_eq!(cancels(), [], "request 1 was of the session gone");
    // A call of the new session, aborted: its cancellation goes out, on that session.
    let e = block_on(h.client.call_tool("slow", json!({}), &mut CallOptions { cancel: cancelled_later(), ..CallOptions::default() })).unwrap_err();
    assert_eq!(e.code, ErrorCode::Aborted);
    assert_eq!(cancels(), [(json!(5), Some("new".to_owned()))]);
}

/// A JSON body that starts with a UTF-8 byte order mark is read without it, as `response.json()`
/// (the SDK's reader) reads it; one that is there twice is no JSON.
#[test]
fn a_json_body_may_start_with_a_byte_order_mark() {
    let bom = |text: String| Reply::Http { status: 200, headers: vec![("content-type", "application/json; charset=utf-8".into())], chunks: vec![text.into_bytes()], then_hang: false, then_error: false };
    let h = harness(vec![
        bom(format!("\u{FEFF}{}", json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bom","version":"1"}}}))),
        accepted(),
        bom(format!("\u{FEFF}{}", json!({"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo"}]}}))),
        bom(format!("\u{FEFF}\u{FEFF}{}", json!({"jsonrpc":"2.0","id":2,"result":{"tools":[]}}))),
    ]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(h.client.server_info().unwrap()["name"], "bom");
    assert_eq!(block_on(h.client.list_tools()).unwrap()[0]["name"], "echo");
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert!(e.message.contains("not valid JSON"), "{}", e.message);
}

/// A clock moved by the test: a sleep ends once `advance` has brought the time to its end.
#[derive(Clone, Default)]
struct Manual(Rc<RefCell<(u64, Vec<std::task::Waker>)>>);

impl Manual {
    fn advance(&self, ms: u64) {
        let wakers = {
            let mut st = self.0.borrow_mut();
            st.0 += ms;
            std::mem::take(&mut st.1)
        };
        wakers.into_iter().for_each(std::task::Waker::wake);
    }
}

impl Clock for Manual {
    fn sleep(&self, ms: u64) -> impl Future<Output = ()> {
        let (clock, due) = (self.clone(), self.now_ms().saturating_add(ms));
        std::future::poll_fn(move |cx| {
            let mut st = clock.0.borrow_mut();
            if st.0 >= due {
                return std::task::Poll::Ready(());
            }
            st.1.push(cx.waker().clone());
            std::task::Poll::Pending
        })
    }

    fn now_ms(&self) -> u64 {
        self.0.borrow().0
    }
}

/// A call's progress goes to the call by its token, whatever stream brings it, as the SDK's
/// `Protocol` routes it: one on the standalone stream (`listen()`) reaches the call's
/// `on_progress`, not the notification handler, and starts its timeout again when asked to; one
/// that another call's stream brings too. Progress for no call of this client is a notification.
#[test]
fn a_calls_progress_reaches_it_from_any_stream() {
    let (listened, call_a, call_b) = (Live::default(), Live::default(), Live::default());
    let (transport, log) = scripted(vec![init_reply("2025-11-25", Some("s")), accepted(), Reply::Live(listened.clone()), Reply::Live(call_a.clone()), Reply::Live(call_b.clone())]);
    let clock = Manual::default();
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.timeout_ms = 100;
    let client = Client::new(transport, clock.clone(), opts);
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    client.set_notification_handler(Some(Box::new(move |m, p| n2.borrow_mut().push(format!("{m} {}", p["progress"])))));
    block_on(client.connect()).unwrap();
    let heard = Rc::new(RefCell::new(Vec::new()));
    let h2 = heard.clone();
    let mut a = CallOptions { on_progress: Some(Box::new(move |p: &Value| h2.borrow_mut().push(p["progress"].clone()))), reset_timeout_on_progress: true, ..CallOptions::default() };
    let progress = |token: i64, n: i64| json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": n}});
    let settle = || async {
        for _ in 0..50 {
            yield_now().await;
        }
    };
    let (_, ra, rb, _) = block_on(async {
        futures_util::join!(client.listen(), client.call_tool("a", json!({}), &mut a), async {
            settle().await;
            // Call b (no progress wanted, a longer timeout) goes out after a.
            client.call_tool("b", json!({}), &mut CallOptions { timeout_ms: Some(10_000), ..CallOptions::default() }).await
        }, async {
            settle().await;
            assert_eq!(log.borrow().requests.len(), 5, "the GET, then both calls");
            clock.advance(60);
            listened.message(&progress(1, 1));
            settle().await;
            // 120 ms since the call, 60 since its progress: not timed out.
            clock.advance(60);
            settle().await;
            call_b.message(&progress(1, 2));
            call_b.message(&progress(42, 3));
            call_b.message(&json!({"jsonrpc": "2.0", "id": 2, "result": {"content": []}}));
            settle().await;
            clock.advance(60);
            settle().await;
            call_a.message(&json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}));
            settle().await;
            client.close().await.unwrap();
        })
    });
    assert_eq!(ra.unwrap(), json!({"content": []}));
    assert_eq!(rb.unwrap(), json!({"content": []}));
    assert_eq!(*heard.borrow(), [json!(1), json!(2)]);
    assert_eq!(*notes.borrow(), ["notifications/progress 3"]);
    assert_eq!(body(&log.borrow().requests[3])["params"]["_meta"]["progressToken"], 1);
}

/// A request's response goes to the request by its id, whatever stream brings it, as the SDK's
/// `Protocol` matches it: one on another call's event stream, one in another POST's JSON batch,
/// one on the standalone stream (which the spec reserves for resumptions; the SDK takes it
/// there too), an error as well. The request ends at once with it (its own stream, still open,
/// dropped), and no cancellation is sent for it. A copy that comes again later changes nothing.
#[test]
fn a_response_reaches_its_request_from_any_stream() {
    let (listened, call_b, call_a, call_c, call_e, call_f) = (Live::default(), Live::default(), Live::default(), Live::default(), Live::default(), Live::default());
    let response = |id: i64, text: &str| json!({"jsonrpc": "2.0", "id": id, "result": {"text": text}});
    let replies = vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        Reply::Live(listened.clone()),
        Reply::Live(call_b.clone()),
        Reply::Live(call_a.clone()),
        Reply::Live(call_c.clone()),
        json_reply(json!([response(3, "c in d's batch"), response(4, "d")])),
        Reply::Live(call_e.clone()),
        Reply::Live(call_f.clone()),
    ];
    let (transport, log) = scripted(replies);
    let client = Client::new(transport, Manual::default(), ClientOptions::new("http://127.0.0.1/mcp"));
    block_on(client.connect()).unwrap();
    let settle = || async {
        for _ in 0..50 {
            yield_now().await;
        }
    };
    let client = &client;
    let ask = |name: &'static str| async move { client.request("x", json!({"name": name}), &mut CallOptions::default()).await };
    let run = async {
        futures_util::join!(client.listen(), async {
            // b (id 1) waits on its open stream; a's (id 2) brings b's response, then its own.
            let (b, a, ()) = futures_util::join!(ask("b"), async {
                settle().await;
                ask("a").await
            }, async {
                settle().await;
                settle().await;
                call_a.message(&response(1, "b on a's stream"));
                call_a.message(&response(2, "a"));
            });
            // c (id 3) waits; d's (id 4) JSON batch brings c's response.
            let (c, d) = futures_util::join!(ask("c"), async {
                settle().await;
                ask("d").await
            });
            // e (id 5) and f (id 6): the standalone stream brings e's result and f's error.
            let (e, f, ()) = futures_util::join!(ask("e"), ask("f"), async {
                settle().await;
                listened.message(&response(5, "e on the standalone stream"));
                listened.message(&json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32000, "message": "f failed"}}));
            });
            // b's response once more: no request waits for it.
            listened.message(&response(1, "again"));
            settle().await;
            client.close().await.unwrap();
            [b, a, c, d, e, f]
        })
    };
    let (listening, [b, a, c, d, e, f]) = bounded(run, 10_000).expect("every request got its response");
    assert!(listening.unwrap());
    assert_eq!(b.unwrap()["text"], "b on a's stream");
    assert_eq!(a.unwrap()["text"], "a");
    assert_eq!(c.unwrap()["text"], "c in d's batch");
    assert_eq!(d.unwrap()["text"], "d");
    assert_eq!(e.unwrap()["text"], "e on the standalone stream");
    let f = f.unwrap_err();
    assert_eq!(f.code, ErrorCode::JsonRpcError, "{f}");
    assert!(f.message.contains("f failed"), "{f}");
    assert!(call_b.dropped() && call_c.dropped() && call_e.dropped() && call_f.dropped(), "their own streams were given up");
    let methods: Vec<_> = log.borrow().requests.iter().map(|r| body(r)["method"].as_str().map(str::to_owned)).collect();
    assert!(!methods.iter().any(|m| m.as_deref() == Some("notifications/cancelled")), "{methods:?}");
    assert_eq!(client.awaiting.borrow().len(), 0);
}

/// A response that another stream brings while the request's own stream (or JSON body) brought
/// a server request whose answer is still being made: the request's reading ends with it as if
/// its own stream had brought it. The handler's answer still goes out (before the call ends),
/// and the request's own stream is closed after; before, the call ended at once and the answer
/// was dropped with its stream, never sent. So too when its own stream ended (unresumable) before
/// the response came.
#[test]
fn a_response_another_stream_brings_lets_the_answers_on_its_own_go_out() {
    let (call_b, call_a, call_d, call_f, call_e) = (Live::default(), Live::default(), Live::default(), Live::default(), Live::default());
    let ask = |id: &str| json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {"message": "name?", "requestedSchema": {"type": "object", "properties": {}}}});
    let replies = vec![
        init_reply("2025-11-25", Some("s")),
        accepted(),
        Reply::Live(call_b.clone()),
        Reply::Live(call_a.clone()),
        accepted(),
        Reply::Live(call_d.clone()),
        json_reply(json!([ask("c-asks")])),
        accepted(),
        Reply::Live(call_f.clone()),
        Reply::Live(call_e.clone()),
        accepted(),
    ];
    let (transport, log) = scripted(replies);
    let client = Client::new(transport, Manual::default(), declaring(json!({"elicitation": {}})));
    // The handler answers its n-th request once the test fires `release` the n-th time.
    let release = Rc::new(CloseSignal::default());
    let (released, asked) = (release.clone(), Cell::new(0));
    client.set_request_handler(Some(Box::new(move |_, _, _| {
        let (released, n) = (released.clone(), asked.get());
        asked.set(n + 1);
        Box::pin(async move {
            released.wait_since(n).await;
            Ok(json!({"action": "accept", "content": {}}))
        })
    })));
    block_on(client.connect()).unwrap();
    let settle = || async {
        for _ in 0..50 {
            yield_now().await;
        }
    };
    let client = &client;
    let answers = || log.borrow().requests.iter().filter(|r| body(r).get("method").is_none()).map(body).collect::<Vec<_>>();
    let ask_for = |name: &'static str| async move {
        let r = client.request("x", json!({"name": name}), &mut CallOptions::default()).await;
        (r, answers())
    };
    let response = |id: i64, text: &str| json!({"jsonrpc": "2.0", "id": id, "result": {"text": text}});
    let run = async {
        // b (id 1) waits on its open stream; a's (id 2) asks the client, and b's brings a's response
        // while the handler has not answered yet.
        let (_, a, ()) = futures_util::join!(ask_for("b"), async {
            settle().await;
            ask_for("a").await
        }, async {
            settle().await;
            call_a.message(&ask("a-asks"));
            settle().await;
            call_b.message(&response(2, "a on b's stream"));
            settle().await;
            release.fire();
            settle().await;
            call_b.message(&response(1, "b"));
        });
        // The same with d (id 3) waiting, and c's (id 4) JSON body asking.
        let (_, c, ()) = futures_util::join!(ask_for("d"), async {
            settle().await;
            ask_for("c").await
        }, async {
            settle().await;
            settle().await;
            call_d.message(&response(4, "c on d's stream"));
            settle().await;
            release.fire();
            settle().await;
            call_d.message(&response(3, "d"));
        });
        // f (id 5) waits; e's (id 6) stream asks and ends, then f's brings e's response.
        let (_, e, ()) = futures_util::join!(ask_for("f"), async {
            settle().await;
            ask_for("e").await
        }, async {
            settle().await;
            call_e.message(&ask("e-asks"));
            call_e.close();
            settle().await;
            call_f.message(&response(6, "e on f's stream"));
            settle().await;
            release.fire();
            settle().await;
            call_f.message(&response(5, "f"));
        });
        [a, c, e]
    };
    let [(a, answered_a), (c, answered_c), (e, answered_e)] = bounded(run, 10_000).expect("every request got its response");
    assert_eq!(a.unwrap()["text"], "a on b's stream");
    assert_eq!(answered_a, [json!({"jsonrpc": "2.0", "id": "a-asks", "result": {"action": "accept", "content": {}}})], "the answer went out before the call ended");
    assert!(call_a.dropped(), "a's own stream was closed");
    assert_eq!(c.unwrap()["text"], "c on d's stream");
    assert_eq!(answered_c.len(), 2);
    assert_eq!(answered_c[1]["id"], "c-asks");
    assert_eq!(e.unwrap()["text"], "e on f's stream");
    assert_eq!(answered_e.len(), 3);
    assert_eq!(answered_e[2]["id"], "e-asks");
    let methods: Vec<_> = log.borrow().requests.iter().map(|r| body(r)["method"].as_str().map(str::to_owned)).collect();
    assert!(!methods.iter().any(|m| m.as_deref() == Some("notifications/cancelled")), "{methods:?}");
    assert_eq!(client.awaiting.borrow().len(), 0);
}

/// A call whose own stream (ended without an event id) or JSON body brought a server request but
/// not the response, and whose response another stream brings while the handler still answers,
/// is answered from then on: an abort or its total that comes next resolves it with that response
/// (the answer left is dropped), and no `notifications/cancelled` goes out for it.
#[test]
fn a_response_another_stream_brings_after_its_own_ended_answers_the_call() {
    let ask = json!({"jsonrpc": "2.0", "id": "a-asks", "method": "elicitation/create", "params": {"message": "name?", "requestedSchema": {"type": "object", "properties": {}}}});
    for (json_body, by_total) in [(false, false), (true, false), (false, true), (true, true)] {
        let (call_b, call_a) = (Live::default(), Live::default());
        let own = if json_body { json_reply(json!([ask.clone()])) } else { Reply::Live(call_a.clone()) };
        let (transport, log) = scripted(vec![init_reply("2025-11-25", Some("s")), accepted(), Reply::Live(call_b.clone()), own, accepted(), accepted()]);
        let clock = Manual::default();
        let client = Client::new(transport, clock.clone(), declaring(json!({"elicitation": {}})));
        // The handler never answers.
        client.set_request_handler(Some(Box::new(|_, _, _| Box::pin(futures_util::future::pending()))));
        block_on(client.connect()).unwrap();
        let settle = || async {
            for _ in 0..50 {
                yield_now().await;
            }
        };
        let stop = Rc::new(CloseSignal::default());
        let stopped = stop.clone();
        let mut opts = match by_total {
            true => CallOptions { max_total_timeout_ms: Some(1_000), ..CallOptions::default() },
            false => CallOptions { cancel: Some(Box::pin(async move { stopped.wait_since(0).await })), ..CallOptions::default() },
        };
        let client = &client;
        let run = async {
            let (_, a, ()) = futures_util::join!(async { client.request("x", json!({"name": "b"}), &mut CallOptions::default()).await }, async {
                settle().await;
                client.request("x", json!({"name": "a"}), &mut opts).await
            }, async {
                settle().await;
                if !json_body {
                    call_a.message(&ask);
                    call_a.close();
                }
                settle().await;
                call_b.message(&json!({"jsonrpc": "2.0", "id": 2, "result": {"text": "a on b's stream"}}));
                settle().await;
                if by_total {
                    clock.advance(1_000);
                } else {
                    stop.fire();
                }
                settle().await;
                call_b.message(&json!({"jsonrpc": "2.0", "id": 1, "result": {"text": "b"}}));
            });
            a
        };
        let case = format!("json body: {json_body}, total: {by_total}");
        let a = bounded(run, 10_000).unwrap_or_else(|| panic!("{case}: both calls ended"));
        assert_eq!(a.unwrap_or_else(|e| panic!("{case}: {e:?}"))["text"], "a on b's stream", "{case}");
        let methods: Vec<_> = log.borrow().requests.iter().map(|r| body(r)["method"].clone()).collect();
        assert_eq!(methods, [json!("initialize"), json!("notifications/initialized"), json!("x"), json!("x")], "{case}: no answer, no cancellation");
        assert_eq!(client.awaiting.borrow().len(), 0);
    }
}

/// `request_checked` (the package's `request()`) gives a known method's result only as the type
/// it is declared as, where MCP's schema and the SDK's client refuse it too: `PROTOCOL` with the
/// `result`; fields past those are kept. `tools/call` is checked as `call_tool` checks it; a
/// method toolwire does not know is not checked.
#[test]
fn request_results_are_checked_against_their_types() {
    let init = json_reply(json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "serverInfo": {"name": "t", "version": "1"},
        "capabilities": {"tools": {}, "resources": {}, "prompts": {}, "completions": {}}}}));
    let refused = [
        ("resources/read", json!({}), "it has no `contents` array"),
        ("resources/read", json!({"contents": [{"uri": "a"}]}), "`contents[0]` has neither a string `text` nor a string `blob`"),
        ("prompts/get", json!({"messages": "none"}), "its `messages` is not an array (string"),
        ("prompts/get", json!({"messages": [{"role": "system", "content": {"type": "text", "text": "x"}}]}), "`messages[0]` has no `role`"),
        ("completion/complete", json!({"completion": null}), "its completion is not an object"),
        ("completion/complete", json!({"completion": {"values": [1]}}), "completion.values holds a value that is not a string"),
        ("ping", json!("pong"), "it is not an object (string"),
        ("resources/list", json!({"resources": [{"uri": "a", "name": "a"}], "nextCursor": 2}), "its nextCursor is not a string (number"),
        ("tools/list", json!({"tools": ["junk"]}), "`tools[0]` is not an object"),
        ("tools/call", json!({"content": "x", "structuredContent": {"n": "no"}}), "the result is not a CallToolResult"),
    ];
    let accepted_results = [
        ("resources/read", json!({"contents": [{"uri": "a", "text": "t", "extra": 1}, {"uri": "b", "blob": "AA=="}], "more": true})),
        ("prompts/get", json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]})),
        ("completion/complete", json!({"completion": {"values": ["a"], "total": 1}})),
        ("ping", json!({})),
        ("resources/list", json!({"resources": [], "nextCursor": null})),
        ("x/custom", json!("anything")),
    ];
    let mut replies = vec![init, accepted()];
    replies.extend(refused.iter().map(|(_, r, _)| Reply::Echo(r.clone())));
    replies.extend(accepted_results.iter().map(|(_, r)| Reply::Echo(r.clone())));
    replies.push(Reply::Echo(json!({"structuredContent": {"n": 1}})));
    let h = harness(replies);
    block_on(h.client.connect()).unwrap();
    for (method, result, why) in refused {
        let params = if method == "tools/call" { json!({"name": "t", "arguments": {}}) } else { json!({}) };
        let e = block_on(h.client.request_checked(method, params, &mut CallOptions::default())).unwrap_err();
        assert_eq!(e.code, ErrorCode::Protocol, "{method}: {}", e.message);
        assert!(e.message.contains(why), "{method}: {}", e.message);
        assert_eq!(e.details.unwrap()["result"], result, "{method}");
    }
    for (method, result) in accepted_results {
        assert_eq!(block_on(h.client.request_checked(method, json!({}), &mut CallOptions::default())).unwrap(), result, "{method}");
    }
    // As call_tool gives it: `content: []` when the server sent none.
    let r = block_on(h.client.request_checked("tools/call", json!({"name": "t"}), &mut CallOptions::default())).unwrap();
    assert_eq!(r, json!({"structuredContent": {"n": 1}, "content": []}));
}

/// A handshake whose `serverInfo` is not an object with a string `name` and `version`, or whose
/// `capabilities` are not an object, is `PROTOCOL` with the result (the SDK's client refuses it);
/// a 2026-07-28 `server/discover` may leave `serverInfo` out, and any handshake `capabilities`.
#[test]
fn a_handshake_result_of_the_wrong_shape_is_refused() {
    let init = |result: Value| json_reply(json!({"jsonrpc": "2.0", "id": 0, "result": result}));
    for (result, why) in [
        (json!({"protocolVersion": "2025-11-25", "serverInfo": "x", "capabilities": {}}), "its serverInfo is not an object (string"),
        (json!({"protocolVersion": "2025-11-25", "serverInfo": {"name": "x"}, "capabilities": {}}), "its serverInfo has no string name and version"),
        (json!({"protocolVersion": "2025-11-25", "capabilities": {}}), "it has no serverInfo"),
        (json!({"protocolVersion": "2025-11-25", "serverInfo": {"name": "x", "version": "1"}, "capabilities": []}), "its capabilities is not an object (array"),
    ] {
        let h = harness(vec![init(result.clone())]);
        let e = block_on(h.client.connect()).unwrap_err();
        assert_eq!(e.code, ErrorCode::Protocol, "{}", e.message);
        assert!(e.message.contains("no InitializeResult") && e.message.contains(why), "{}", e.message);
        assert_eq!(e.details.unwrap()["result"], result);
        assert!(!h.client.is_connected());
    }
    for (result, why) in [
        (json!({"supportedVersions": ["2026-07-28"], "capabilities": "all"}), "its capabilities is not an object (string"),
        (json!({"capabilities": {}, "_meta": {"io.modelcontextprotocol/serverInfo": "x"}}), "its serverInfo is not an object"),
        (json!({"capabilities": {}, "serverInfo": {"name": 1, "version": "1"}}), "its serverInfo has no string name and version"),
        (json!(["x"]), "it is not an object (array"),
    ] {
        let h = harness_with(vec![Reply::Echo(result.clone())], modern(), 10_000);
        let e = block_on(h.client.connect()).unwrap_err();
        assert_eq!(e.code, ErrorCode::Protocol, "{}", e.message);
        assert!(e.message.contains("server/discover") && e.message.contains(why), "{}", e.message);
        assert_eq!(e.details.unwrap()["result"], result);
        assert!(!h.client.is_connected() && !h.client.is_modern());
    }
    let h = harness_with(vec![Reply::Echo(json!({"capabilities": {"tools": {}}}))], modern(), 10_000);
    block_on(h.client.connect()).unwrap();
    assert_eq!(h.client.server_info(), None);
}

/// A `nextCursor` that is not a string fails the listing (`PROTOCOL`), as the SDK's client
/// refuses the page: it is no end, which would lose the pages after it without a word. `null`
/// is no cursor.
#[test]
fn a_cursor_that_is_not_a_string_fails_the_listing() {
    let h = harness(vec![
        init_reply("2025-11-25", None),
        accepted(),
        Reply::Echo(json!({"tools": [{"name": "a"}], "nextCursor": 2})),
        Reply::Echo(json!({"tools": [{"name": "a"}], "nextCursor": null})),
    ]);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.list_tools()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol, "{}", e.message);
    assert!(e.message.contains("tools/list: the result's nextCursor is not a string (number"), "{}", e.message);
    assert_eq!(e.details.unwrap()["nextCursor"], 2);
    assert_eq!(block_on(h.client.list_tools()).unwrap().len(), 1);
}

/// A 2026-07-28 subscription the server tears down with `notifications/cancelled` naming its
/// request ends `listen()` (`true`, as a result would): not opened again, and no change of the
/// tools made up for it. One naming another request is a notification like any.
#[test]
fn a_subscription_the_server_cancels_ends_listen() {
    let stream = sse_events(
        &[
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"shutting down"}}"#,
        ],
        true,
    );
    let h = harness_with(vec![discover_reply(), stream], modern(), 10_000);
    let heard = Rc::new(RefCell::new(Vec::new()));
    let h2 = heard.clone();
    h.client.set_notification_handler(Some(Box::new(move |m, p| h2.borrow_mut().push(format!("{m} {}", p["requestId"])))));
    block_on(h.client.connect()).unwrap();
    assert_eq!(bounded(h.client.listen(), 200).map(Result::unwrap), Some(true));
    assert_eq!(h.log.borrow().requests.len(), 2, "not subscribed again");
    assert!(!h.client.tools_changed());
    assert_eq!(*heard.borrow(), ["notifications/cancelled 7"]);
}

/// An `inputRequests` entry that is not an object with a string `method` is the server's error,
/// before anyone is asked (none is asked as if its method were "").
#[test]
fn malformed_input_requests_are_refused_before_any_is_asked() {
    for bad in [json!(5), json!({"params": {}}), json!({"method": 7}), json!({"method": ""}), json!("roots/list")] {
        let requests = json!({"good": {"method": "roots/list"}, "bad": bad});
        let h = harness_with(vec![discover_reply(), Reply::Echo(json!({"resultType": "input_required", "inputRequests": requests}))], modern(), 10_000);
        let asked = Rc::new(Cell::new(0));
        let count = asked.clone();
        h.client.set_request_handler(Some(Box::new(move |_, _, _| {
            count.set(count.get() + 1);
            Box::pin(async { Ok(json!({"roots": []})) })
        })));
        block_on(h.client.connect()).unwrap();
        let e = block_on(h.client.call_tool("t", Value::Null, &mut CallOptions::default())).unwrap_err();
        assert_eq!(e.code, ErrorCode::Protocol, "{}", e.message);
        assert!(e.message.contains("input request \"bad\" is not an object with a string `method`"), "{}", e.message);
        assert_eq!(e.details.unwrap()["inputRequests"], requests);
        assert_eq!(asked.get(), 0, "nobody was asked");
        assert_eq!(h.log.borrow().requests.len(), 2, "nothing answered");
    }
}

/// 2026-07-28: an input request for an elicitation in a mode the client did not declare is the
/// server's error (`PROTOCOL`), and the handler is not asked.
#[test]
fn an_input_request_for_an_undeclared_elicitation_mode_is_refused() {
    let mut opts = modern();
    opts.capabilities = json!({"elicitation": {"form": {}}}).as_object().cloned().unwrap();
    let requests = json!({"go": {"method": "elicitation/create", "params": {"mode": "url", "url": "https://example.com/x", "elicitationId": "e", "message": "m"}}});
    let h = harness_with(vec![discover_reply(), Reply::Echo(json!({"resultType": "input_required", "inputRequests": requests}))], opts, 10_000);
    let asked = Rc::new(Cell::new(0));
    let count = asked.clone();
    h.client.set_request_handler(Some(Box::new(move |_, _, _| {
        count.set(count.get() + 1);
        Box::pin(async { Ok(json!({"action": "accept"})) })
    })));
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol, "{}", e.message);
    assert!(e.message.contains("input request \"go\" is an elicitation the client did not declare: Client does not support url-mode elicitation requests"), "{}", e.message);
    assert_eq!(asked.get(), 0);
}

/// 2026-07-28: an input request for a capability the client did not declare (`elicitation/create`,
/// `sampling/createMessage`, `roots/list`) fails its request as an undeclared elicitation mode
/// does (`PROTOCOL`), the handler not asked and the request not sent again; a declared one, and
/// any other method, reach it.
#[test]
fn an_input_request_for_a_capability_not_declared_is_refused_without_the_handler() {
    let asks = [
        ("elicitation/create", json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}})),
        ("sampling/createMessage", json!({"messages": [], "maxTokens": 1})),
        ("roots/list", json!({})),
        ("toolwire-test/custom", json!({})),
    ];
    for (declared, reached) in [
        (json!({}), vec!["toolwire-test/custom"]),
        (json!({"roots": {}, "sampling": false, "elicitation": null}), vec!["roots/list", "toolwire-test/custom"]),
        (json!({"elicitation": {}, "sampling": {}, "roots": {"listChanged": true}}), asks.iter().map(|(m, _)| *m).collect()),
    ] {
        for (method, params) in &asks {
            let requests = json!({"in": {"method": method, "params": params}});
            let replies = vec![discover_reply(), Reply::Echo(json!({"resultType": "input_required", "inputRequests": requests})), Reply::Echo(json!({"content": []}))];
            let h = harness_with(replies, modern_declaring(declared.clone()), 10_000);
            let asked = Rc::new(Cell::new(0));
            let count = asked.clone();
            h.client.set_request_handler(Some(Box::new(move |m, _, _| {
                count.set(count.get() + 1);
                let answer = fitting_answer(m);
                Box::pin(async { Ok(answer) })
            })));
            block_on(h.client.connect()).unwrap();
            let called = block_on(h.client.call_tool("t", Value::Null, &mut CallOptions::default()));
            if reached.contains(method) {
                called.unwrap_or_else(|e| panic!("{declared} {method}: {e}"));
                assert_eq!(asked.get(), 1, "{declared} {method}");
                assert_eq!(body(&h.log.borrow().requests[2])["params"]["inputResponses"]["in"], fitting_answer(method), "{declared} {method}");
            } else {
                let e = called.unwrap_err();
                assert_eq!(e.code, ErrorCode::Protocol, "{declared} {method}: {}", e.message);
                let expected = format!("input request \"in\" ({method}) is of a capability the client did not declare: Method not found: {method}");
                assert!(e.message.contains(&expected), "{declared} {method}: {}", e.message);
                assert_eq!(e.details.unwrap()["inputRequests"], requests, "{declared} {method}");
                assert_eq!(asked.get(), 0, "{declared} {method}: the handler is not asked");
                assert_eq!(h.log.borrow().requests.len(), 2, "{declared} {method}: not sent again");
            }
        }
    }
    // Refused before any input is asked: the declared one beside it is not asked either.
    let requests = json!({"a": {"method": "toolwire-test/custom", "params": {}}, "b": {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 1}}});
    let h = harness_with(vec![discover_reply(), Reply::Echo(json!({"resultType": "input_required", "inputRequests": requests}))], modern_declaring(json!({"elicitation": {}})), 10_000);
    let asked = Rc::new(Cell::new(0));
    let count = asked.clone();
    h.client.set_request_handler(Some(Box::new(move |_, _, _| {
        count.set(count.get() + 1);
        Box::pin(async { Ok(json!({})) })
    })));
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("t", Value::Null, &mut CallOptions::default())).unwrap_err();
    assert!(e.code == ErrorCode::Protocol && e.message.contains("input request \"b\" (sampling/createMessage) is of a capability"), "{}", e.message);
    assert_eq!(asked.get(), 0, "nobody was asked");
}

/// A task's result that fails the client's own checks (no CallToolResult, or not of the tool's
/// `outputSchema`) is an error after the task exists: it carries `taskId` as the others do.
#[test]
fn a_tasks_result_the_client_refuses_carries_the_task_id() {
    for (result, why) in [(json!({"content": "x"}), "not a CallToolResult"), (json!({"content": [], "structuredContent": {"n": "no"}}), "outputSchema")] {
        let mut replies = task_server();
        replies[2] = Reply::Echo(json!({"tools": [{"name": "research", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"},
            "outputSchema": {"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}}]}));
        replies.extend([Reply::Echo(json!({"task": task("working", 50)})), Reply::Echo(task("completed", 50)), Reply::Echo(result)]);
        let h = harness_with(replies, ClientOptions::new("http://127.0.0.1/mcp"), 10_000);
        block_on(h.client.connect()).unwrap();
        block_on(h.client.list_tools()).unwrap();
        let e = block_on(h.client.call_tool("research", json!({}), &mut CallOptions::default())).unwrap_err();
        assert_eq!(e.code, ErrorCode::Protocol, "{}", e.message);
        assert!(e.message.contains(why), "{}", e.message);
        assert_eq!(e.details.unwrap()["taskId"], "t-1", "{why}");
    }
}

/// A caller's own `params._meta`, in both eras: an object (or null), without a key the client sets
/// itself (as `options.meta`): `INVALID_INPUT` before anything is sent, for a request, a listing
/// and a notification. Its other keys are sent with the client's.
#[test]
fn a_callers_params_meta_is_an_object_without_the_clients_keys_in_both_eras() {
    for opts in [legacy(), modern()] {
        let replies = if opts.era == Era::Modern { vec![discover_reply()] } else { vec![init_reply("2025-11-25", None), accepted()] };
        let h = harness_with(replies.into_iter().chain([Reply::Echo(json!({})), Reply::Echo(json!({}))]).collect(), opts.clone(), 10_000);
        block_on(h.client.connect()).unwrap();
        let sent = h.log.borrow().requests.len();
        for (meta, why) in [
            (json!("trace-123"), "params._meta must be an object, not string"),
            (json!({"io.modelcontextprotocol/protocolVersion": "2025-11-25"}), "must not hold \"io.modelcontextprotocol/protocolVersion\": the client sets it"),
            (json!({"progressToken": 5}), "must not hold \"progressToken\": give onProgress"),
        ] {
            let params = json!({"_meta": meta});
            let o = &mut CallOptions::default();
            for e in [
                block_on(h.client.request_checked("app/echo", params.clone(), o)).unwrap_err(),
                block_on(h.client.list_all("tools/list", params.clone(), o)).unwrap_err(),
                block_on(h.client.notify_checked("notifications/app/changed", params.clone(), o)).unwrap_err(),
            ] {
                assert_eq!(e.code, ErrorCode::InvalidInput, "{}", e.message);
                assert!(e.message.contains(why), "{}", e.message);
            }
        }
        assert_eq!(h.log.borrow().requests.len(), sent, "nothing sent");
        block_on(h.client.request_checked("app/echo", json!({"_meta": {"trace": "t"}}), &mut CallOptions::default())).unwrap();
        let sent_last = body(h.log.borrow().requests.last().unwrap());
        assert_eq!(sent_last["params"]["_meta"]["trace"], "t");
        assert_eq!(sent_last["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion").is_some(), opts.era == Era::Modern);
        // `null` is none: not sent as `"_meta": null`, which servers refuse (s22d F4).
        block_on(h.client.request_checked("app/echo", json!({"_meta": null}), &mut CallOptions::default())).unwrap();
        let sent_last = body(h.log.borrow().requests.last().unwrap());
        assert!(sent_last["params"].get("_meta").is_none_or(Value::is_object), "{sent_last}");
    }
}

/// A call refused for its headers (-32020) lists the tools again: the app's last listing is stale
/// from then on (its tools are not the server's), however long its `ttlMs`.
#[test]
fn a_relisting_after_a_call_refused_for_its_headers_makes_the_tools_stale() {
    let mut listed: Value = serde_json::from_str(MARKED_TOOLS).unwrap();
    listed["ttlMs"] = json!(600_000);
    let h = harness_with(
        vec![discover_reply(), Reply::Echo(json!({"tools": [{"name": "regional", "inputSchema": {"type": "object"}}], "ttlMs": 600_000})), rpc_status(400, -32020, Value::Null), Reply::Echo(listed), Reply::Echo(json!({"content": []}))],
        modern(),
        10_000,
    );
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    assert!(!h.client.tools_expired());
    block_on(h.client.call_tool("regional", json!({"region": "eu"}), &mut CallOptions::default())).unwrap();
    assert_eq!(header(&h.log.borrow().requests[4], "mcp-param-region"), Some("eu"));
    assert!(h.client.tools_expired(), "the listing the app holds is not the server's");
}

/// A 2026-07-28 listing past its `ttlMs` (`0`, the SDKs' default) is checked all the same; a result
/// its schema refuses is checked again against one fresh listing, which the client keeps.
#[test]
fn a_result_refused_by_an_expired_listing_is_checked_against_a_fresh_one() {
    let tools = |required: &str, ttl: u64| {
        Reply::Echo(json!({"tools": [{"name": "w", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "required": [required]}}], "ttlMs": ttl}))
    };
    let result = |field: &str| Reply::Echo(json!({"content": [], "structuredContent": {field: 1}}));
    let h = harness_with(
        vec![
            discover_reply(),
            tools("celsius", 0),
            // Redeployed: the result and the schema are kelvin's now.
            result("kelvin"),
            tools("kelvin", 0),
            result("kelvin"),
            // Wrong for the fresh listing too.
            result("celsius"),
            tools("kelvin", 0),
            // The listing fails: the first check's error.
            result("celsius"),
            rpc_status(500, -32603, Value::Null),
            // The tool has no outputSchema now.
            result("celsius"),
            Reply::Echo(json!({"tools": [{"name": "w", "inputSchema": {"type": "object"}}], "ttlMs": 0})),
            result("anything"),
            // A listing within its ttlMs is not listed again.
            tools("kelvin", 600_000),
            result("celsius"),
        ],
        modern(),
        10_000,
    );
    let call = || block_on(h.client.call_tool("w", json!({}), &mut CallOptions::default()));
    let requests = || h.log.borrow().requests.len();
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    assert!(h.client.tools_expired());
    assert_eq!(call().unwrap()["structuredContent"], json!({"kelvin": 1}));
    assert_eq!(requests(), 4, "listed again once");
    assert_eq!(body(&h.log.borrow().requests[3])["method"], "tools/list");
    assert!(h.client.tools_expired(), "the app's listing is still the old one");
    assert_eq!(call().unwrap()["structuredContent"], json!({"kelvin": 1}), "checked against the fresh listing kept");
    assert_eq!(requests(), 5, "not listed again");
    let e = call().unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert!(e.message.contains("\"kelvin\" is missing"), "{}", e.message);
    assert_eq!(requests(), 7);
    let e = call().unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert!(e.message.contains("\"kelvin\" is missing") && e.message.contains("past its ttlMs, and listing them again"), "{}", e.message);
    assert_eq!(e.details.as_ref().unwrap()["result"]["structuredContent"], json!({"celsius": 1}));
    assert_eq!(requests(), 9);
    assert_eq!(call().unwrap()["structuredContent"], json!({"celsius": 1}), "no outputSchema now: not checked");
    assert_eq!(call().unwrap()["structuredContent"], json!({"anything": 1}), "nor after");
    assert_eq!(requests(), 12);
    block_on(h.client.list_tools()).unwrap();
    assert!(!h.client.tools_expired());
    let e = call().unwrap_err();
    assert!(e.message.contains("\"kelvin\" is missing"), "{}", e.message);
    assert_eq!(requests(), 14, "a fresh listing is not listed again");
}

/// The listing again after a refused result is part of the call: bounded by what is left of its
/// `maxTotalTimeoutMs`, and ended by its own timeout as `TIMEOUT`, as the listing again after a
/// call refused for its headers is (not `PROTOCOL` for a listing that failed) (s28r2 F1, F2).
#[test]
fn the_listing_again_after_a_refused_result_keeps_the_calls_bounds() {
    let tools = || Reply::Echo(json!({"tools": [{"name": "w", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "required": ["celsius"]}}], "ttlMs": 0}));
    let wrong = || Reply::Echo(json!({"content": [], "structuredContent": {"kelvin": 1}}));
    // Sleeps of up to 500 ms end at once, longer ones never.
    let h = harness_with(vec![discover_reply(), tools(), wrong(), Reply::Later(5, Box::new(tools())), wrong(), Reply::Hang], modern(), 500);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    let mut opts = CallOptions { timeout_ms: Some(4000), max_total_timeout_ms: Some(500), ..CallOptions::default() };
    let e = block_on(h.client.call_tool("w", json!({}), &mut opts)).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{}", e.message);
    assert!(e.message.contains("total of 500 ms (maxTotalTimeoutMs)"), "{}", e.message);
    assert_eq!(body(h.log.borrow().requests.last().unwrap())["method"], "tools/list");
    let mut opts = CallOptions { timeout_ms: Some(400), ..CallOptions::default() };
    let e = block_on(h.client.call_tool("w", json!({}), &mut opts)).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{}", e.message);
    assert!(e.message.starts_with("tools/list"), "{}", e.message);
}

/// An app's `listTools()` that a call's own listing again overlapped, started after it and ended
/// before it, makes the tools fresh for its `ttlMs` all the same (s28r2 F3).
#[test]
fn an_apps_listing_overlapped_by_a_calls_listing_again_is_fresh() {
    let tools = |ttl: u64| Reply::Echo(json!({"tools": [{"name": "w", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "required": ["celsius"]}}], "ttlMs": ttl}));
    let h = harness_with(
        vec![discover_reply(), tools(0), Reply::Later(20, Box::new(tools(60_000))), Reply::Echo(json!({"content": [], "structuredContent": {"kelvin": 1}})), tools(0)],
        modern(),
        10_000,
    );
    block_on(h.client.connect()).unwrap();
    block_on(h.client.list_tools()).unwrap();
    assert!(h.client.tools_expired());
    let mut opts = CallOptions::default();
    let (listed, called) = block_on(async { futures_util::join!(h.client.list_tools(), h.client.call_tool("w", json!({}), &mut opts)) });
    assert_eq!(called.unwrap_err().code, ErrorCode::Protocol);
    listed.unwrap();
    assert_eq!(h.log.borrow().requests.len(), 5, "the call listed the tools again");
    assert!(!h.client.tools_expired(), "the app's listing, with a ttlMs of 60000, was just made");
}

/// Polls until `done` holds, or gives up after many polls (the assertions after say what is missing).
async fn until(done: impl Fn() -> bool) {
    for _ in 0..10_000 {
        if done() {
            return;
        }
        yield_now().await;
    }
}

/// The POSTs of answers to server requests (`{id, result}`), with the session each went on.
fn answers_posted(h: &Harness) -> Vec<(Value, Option<String>)> {
    h.log.borrow().requests.iter().filter(|r| r.method == Method::Post && body(r).get("result").is_some()).map(|r| (body(r), header(r, "mcp-session-id").map(str::to_owned))).collect()
}

/// A server whose session `s1` is forgotten by whatever answers call "b" (another node, an
/// expiry), while the streams opened on it stay open: call "a" and the standalone stream (`old`,
/// `listening`) are `s1`'s, call "b" resent on `s2` gets `new`. A GET with a session is answered
/// with a stream that gives call "a" its result (as a server that resolves the stream by its
/// event id, the SDK's, would give another session's).
fn forgetting_server(old: &Live, new: &Live, listening: &[Live]) -> Reply {
    let (old, new, listening) = (old.clone(), new.clone(), listening.to_vec());
    let (inits, gets) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
    Reply::Server(Rc::new(move |req: &HttpRequest| {
        let b = body(req);
        let session = header(req, "mcp-session-id").map(str::to_owned);
        match (req.method, b["method"].as_str(), b["params"]["name"].as_str()) {
            (Method::Post, Some("initialize"), _) => {
                inits.set(inits.get() + 1);
                init_reply_id(b["id"].as_i64().unwrap(), "2025-11-25", Some(if inits.get() == 1 { "s1" } else { "s2" }))
            }
            (Method::Post, Some("tools/call"), Some("a")) => Reply::Live(old.clone()),
            (Method::Post, Some("tools/call"), Some("b")) if session.as_deref() == Some("s1") => status_reply(404, vec![], "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}"),
            (Method::Post, Some("tools/call"), Some("b")) => Reply::Live(new.clone()),
            (Method::Get, _, _) if header(req, "last-event-id").is_none() => {
                gets.set(gets.get() + 1);
                listening.get(gets.get() - 1).cloned().map_or(Reply::Hang, Reply::Live)
            }
            (Method::Get, _, _) => sse_reply("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n", 0),
            _ => accepted(),
        }
    }))
}

/// A request handler whose answers wait for `release`; it tells which requests it was asked
/// (method, id) and which of their futures were dropped before they ended (their signals aborted).
#[allow(clippy::type_complexity)]
fn held_handler(h: &Harness) -> (Rc<RefCell<Vec<(String, Value)>>>, Rc<RefCell<Vec<Value>>>, Rc<Cell<bool>>) {
    struct Aborted(Rc<RefCell<Vec<Value>>>, Value, bool);
    impl Drop for Aborted {
        fn drop(&mut self) {
            if !self.2 {
                self.0.borrow_mut().push(self.1.clone());
            }
        }
    }
    let (asked, aborted, release) = (Rc::new(RefCell::new(Vec::new())), Rc::new(RefCell::new(Vec::new())), Rc::new(Cell::new(false)));
    let (a, d, r) = (asked.clone(), aborted.clone(), release.clone());
    h.client.set_request_handler(Some(Box::new(move |method, _, context| {
        a.borrow_mut().push((method.to_owned(), context.id.clone()));
        let (guard, release) = (Aborted(d.clone(), context.id.clone(), false), r.clone());
        Box::pin(async move {
            let mut guard = guard;
            while !release.get() {
                yield_now().await;
            }
            guard.2 = true;
            Ok(json!({"action": "accept", "content": {"ok": true}}))
        })
    })));
    (asked, aborted, release)
}

/// A call whose stream of session s1 dropped after an event id, while another call renewed the
/// session to s2: not resumed on s2 with s1's event id (s2 never had the call; a server that
/// resolves the stream by its event id would replay nothing, and the call would wait for its
/// timeout): it fails at once, `NOT_CONNECTED` with `sessionEnded`, and is not sent again.
#[test]
fn a_stream_of_a_session_renewed_meanwhile_is_not_resumed_on_the_new_one() {
    let (old, new) = (Live::default(), Live::default());
    let h = harness(vec![forgetting_server(&old, &new, &[])]);
    block_on(h.client.connect()).unwrap();
    let go = Cell::new(false);
    let (a, b, ()) = block_on(futures_util::future::join3(
        h.client.call_tool("a", json!({}), &mut CallOptions::default()),
        async {
            until(|| go.get()).await;
            h.client.call_tool("b", json!({}), &mut CallOptions::default()).await
        },
        async {
            until(|| h.log.borrow().requests.len() >= 3).await;
            // A priming event, then the stream ends: resumable from a1 after 100 ms.
            old.push("id: a1\nretry: 100\ndata:\n\n");
            for _ in 0..10 {
                yield_now().await;
            }
            go.set(true);
            until(|| h.log.borrow().requests.iter().any(|r| header(r, "mcp-session-id") == Some("s2") && body(r)["params"]["name"] == "b")).await;
            old.close();
            new.message(&json!({"jsonrpc": "2.0", "id": 4, "result": {"content": []}}));
            new.close();
        },
    ));
    b.unwrap();
    let e = a.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotConnected, "{e}");
    assert_eq!(e.details.as_ref().unwrap()["sessionEnded"], true);
    let log = h.log.borrow();
    assert!(log.requests.iter().all(|r| r.method != Method::Get), "resumed on the new session: {:?}", log.requests.iter().map(|r| (r.method, header(r, "mcp-session-id"), header(r, "last-event-id"))).collect::<Vec<_>>());
    assert_eq!(log.requests.iter().filter(|r| body(r)["params"]["name"] == "a").count(), 1, "not sent again");
}

/// A server that forgets session s1 at whatever answers `tools/call` "b": a `tools/list` on s1 is
/// held open on `held` (its answer never comes, the stream of a session gone), its first `firsts`
/// answered; on s2 the listing has `a` and `b`, the call `{"content": []}`.
fn forgetting_lister(held: &Live, firsts: usize) -> Reply {
    let (held, inits, lists) = (held.clone(), Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
    Reply::Server(Rc::new(move |req: &HttpRequest| {
        let b = body(req);
        let old = header(req, "mcp-session-id") == Some("s1");
        match b["method"].as_str() {
            Some("initialize") => {
                inits.set(inits.get() + 1);
                init_reply_id(b["id"].as_i64().unwrap(), "2025-11-25", Some(if inits.get() == 1 { "s1" } else { "s2" }))
            }
            Some("tools/list") if old && lists.get() < firsts => {
                lists.set(lists.get() + 1);
                Reply::Echo(json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}))
            }
            Some("tools/list") if old => Reply::Live(held.clone()),
            Some("tools/list") => Reply::Echo(json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}, {"name": "b", "inputSchema": {"type": "object"}}]})),
            Some("tools/call") if old => status_reply(404, vec![], ""),
            Some("tools/call") => Reply::Echo(json!({"content": []})),
            _ => accepted(),
        }
    }))
}

/// A listing whose stream of session s1 is abandoned when another request renews the session
/// (s1 forgotten) is sent again on s2, as a listing that meets the 404 itself is: it changes
/// nothing, so "it may have run" does not hold for it. A `tools/call` in its place is not (see
/// [`a_stream_of_a_session_renewed_meanwhile_is_not_resumed_on_the_new_one`]). Through the hub, the
/// server's listing is no error either.
#[test]
fn a_read_only_request_abandoned_by_a_renewal_is_sent_again() {
    let held = Live::default();
    let h = harness(vec![forgetting_lister(&held, 0)]);
    block_on(h.client.connect()).unwrap();
    let (listed, called) = block_on(async {
        let call = async {
            until(|| h.log.borrow().requests.iter().any(|r| body(r)["method"] == "tools/list")).await;
            h.client.call_tool("b", json!({}), &mut CallOptions::default()).await
        };
        futures_util::join!(h.client.list_tools(), call)
    });
    assert_eq!(called.unwrap(), json!({"content": []}));
    let names: Vec<Value> = listed.expect("sent again on s2").iter().map(|t| t["name"].clone()).collect();
    assert_eq!(names, [json!("a"), json!("b")]);
    assert!(held.dropped(), "the stream of s1 was given up");
    let lists: Vec<Option<String>> = h.log.borrow().requests.iter().filter(|r| body(r)["method"] == "tools/list").map(|r| header(r, "mcp-session-id").map(str::to_owned)).collect();
    assert_eq!(lists, [Some("s1".to_owned()), Some("s2".to_owned())]);

    // The hub's listing of the server, the same way.
    let held = Live::default();
    let h = harness(vec![forgetting_lister(&held, 1)]);
    let client = Rc::new(h.client);
    let hub = Hub::new(vec![("s".to_owned(), client.clone())], h.clock, None, None);
    let (listed, errors) = block_on(hub.list_tools(&Selection::Auto, None));
    assert!(errors.is_empty() && listed.len() == 1);
    let ((listed, errors), called) = block_on(async {
        let call = async {
            until(|| h.log.borrow().requests.iter().filter(|r| body(r)["method"] == "tools/list").count() == 2).await;
            client.call_tool("b", json!({}), &mut CallOptions::default()).await
        };
        futures_util::join!(hub.list_tools(&Selection::Auto, None), call)
    });
    called.unwrap();
    assert!(errors.is_empty(), "{:?}", errors.iter().map(|e| e.error.to_string()).collect::<Vec<_>>());
    assert_eq!(listed.len(), 2);
    assert!(hub.listing_errors().is_empty());
}

/// What a stream of session s1 brings after s1 was renewed to s2 is not s2's business: a `ping`
/// (id 0) is not answered on s2, where request 0 is s2's own elicitation, and s1's cancellation of
/// its request 0 does not abort s2's request 0 (whose answer is the only one s2 gets).
#[test]
fn what_an_old_sessions_stream_brings_neither_answers_nor_cancels_on_the_new_one() {
    let (old, new) = (Live::default(), Live::default());
    let h = harness_declaring(vec![forgetting_server(&old, &new, &[])], json!({"elicitation": {}}));
    let (asked, aborted, release) = held_handler(&h);
    block_on(h.client.connect()).unwrap();
    let go = Cell::new(false);
    let (a, b, ()) = block_on(futures_util::future::join3(
        h.client.call_tool("a", json!({}), &mut CallOptions::default()),
        async {
            until(|| go.get()).await;
            h.client.call_tool("b", json!({}), &mut CallOptions::default()).await
        },
        async {
            until(|| h.log.borrow().requests.len() >= 3).await;
            go.set(true);
            until(|| h.log.borrow().requests.iter().any(|r| header(r, "mcp-session-id") == Some("s2") && body(r)["params"]["name"] == "b")).await;
            new.message(&json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": {"message": "go?", "requestedSchema": {"type": "object"}}}));
            until(|| !asked.borrow().is_empty()).await;
            // s1's own request 0, then its cancellation, on s1's stream.
            old.message(&json!({"jsonrpc": "2.0", "id": 0, "method": "ping"}));
            old.message(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 0}}));
            for _ in 0..50 {
                yield_now().await;
            }
            release.set(true);
            until(|| !answers_posted(&h).is_empty()).await;
            new.message(&json!({"jsonrpc": "2.0", "id": 4, "result": {"content": []}}));
            new.close();
            old.close();
        },
    ));
    b.unwrap();
    assert_eq!(a.unwrap_err().code, ErrorCode::NotConnected);
    assert!(aborted.borrow().is_empty(), "s2's request 0 was aborted by s1's cancellation");
    let answers = answers_posted(&h);
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0].0["result"]["action"], "accept", "{answers:?}");
    assert_eq!(answers[0].1.as_deref(), Some("s2"));
}

/// A call's renewal of the session moves the standalone stream to the new session: the old
/// session's stream is dropped (a `ping` on it then goes unanswered), and a stream without the old
/// session's event id opened on the new one, as `listen` after a renewal promises (the tool list
/// taken as changed, as a renewal of the stream's own makes it).
#[test]
fn listening_moves_to_the_session_another_request_renewed() {
    let (old, new, first, second) = (Live::default(), Live::default(), Live::default(), Live::default());
    let h = harness(vec![forgetting_server(&old, &new, &[first.clone(), second.clone()])]);
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    h.client.set_notification_handler(Some(Box::new(move |m, _| n2.borrow_mut().push(m.to_owned()))));
    block_on(h.client.connect()).unwrap();
    let gets = |h: &Harness| h.log.borrow().requests.iter().filter(|r| r.method == Method::Get).map(|r| (header(r, "mcp-session-id").map(str::to_owned), header(r, "last-event-id").map(str::to_owned))).collect::<Vec<_>>();
    let (listened, b, ()) = block_on(futures_util::future::join3(
        h.client.listen(),
        async {
            until(|| !gets(&h).is_empty()).await;
            first.push("id: x1\ndata:\n\n");
            for _ in 0..10 {
                yield_now().await;
            }
            let mut opts = CallOptions::default();
            let b = h.client.call_tool("b", json!({}), &mut opts);
            let push = async {
                until(|| h.log.borrow().requests.iter().any(|r| header(r, "mcp-session-id") == Some("s2") && body(r)["params"]["name"] == "b")).await;
                // Its id as resent (ids are never reused).
                let id = h.log.borrow().requests.iter().rev().find(|r| body(r)["params"]["name"] == "b").map(|r| body(r)["id"].clone()).unwrap();
                new.message(&json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}}));
                new.close();
            };
            futures_util::future::join(b, push).await.0
        },
        async {
            until(|| gets(&h).len() >= 2).await;
            first.message(&json!({"jsonrpc": "2.0", "id": 0, "method": "ping"}));
            for _ in 0..50 {
                yield_now().await;
            }
            h.client.close().await.unwrap();
        },
    ));
    assert!(listened.unwrap());
    b.unwrap();
    assert_eq!(gets(&h), [(Some("s1".to_owned()), None), (Some("s2".to_owned()), None)]);
    assert!(first.dropped(), "the old session's stream was dropped");
    assert!(answers_posted(&h).is_empty(), "{:?}", answers_posted(&h));
    assert_eq!(*notes.borrow(), ["notifications/tools/list_changed"]);
}

/// The answer to a server request that meets HTTP 401 goes to the unauthorized handler and is sent
/// again with the headers it gives, as a request is; without new headers, the refusal is the error
/// of the call the request came for (`UNAUTHORIZED`), not an answer lost and a call timed out.
#[test]
fn an_answer_refused_for_its_token_is_reauthorized_and_sent_again() {
    for reauthorizes in [true, false] {
        let stream = Live::default();
        let answered = Rc::new(Cell::new(0));
        let (s, n) = (stream.clone(), answered.clone());
        let h = harness_declaring(vec![Reply::Server(Rc::new(move |req: &HttpRequest| {
            let b = body(req);
            match b["method"].as_str() {
                Some("initialize") => init_reply("2025-11-25", Some("s1")),
                Some("tools/call") => Reply::Live(s.clone()),
                None if b.get("result").is_some() => {
                    n.set(n.get() + 1);
                    if header(req, "authorization") == Some("Bearer new") {
                        accepted()
                    } else {
                        status_reply(401, vec![("www-authenticate", "Bearer error=\"invalid_token\"".into())], "")
                    }
                }
                _ => accepted(),
            }
        }))], json!({"elicitation": {}}));
        let asked = Rc::new(Cell::new(0));
        let a = asked.clone();
        h.client.set_unauthorized_handler(Some(Box::new(move |_: &Value| {
            a.set(a.get() + 1);
            Box::pin(async move { Ok(reauthorizes.then(|| vec![("authorization".to_owned(), "Bearer new".to_owned())])) })
        })));
        h.client.set_request_handler(Some(Box::new(|_, _, _| Box::pin(async { Ok(json!({"action": "decline"})) }))));
        block_on(h.client.connect()).unwrap();
        let (r, ()) = block_on(futures_util::future::join(h.client.call_tool("x", json!({}), &mut CallOptions::default()), async {
            until(|| h.log.borrow().requests.len() >= 3).await;
            stream.message(&json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": {"message": "go?", "requestedSchema": {"type": "object"}}}));
            until(|| answered.get() >= if reauthorizes { 2 } else { 1 }).await;
            for _ in 0..50 {
                yield_now().await;
            }
            stream.message(&json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}));
            stream.close();
        }));
        assert_eq!(asked.get(), 1, "the unauthorized handler is asked");
        if reauthorizes {
            r.unwrap();
            assert_eq!(answered.get(), 2, "sent again with the new token");
        } else {
            let e = r.unwrap_err();
            assert_eq!((e.code, e.details.as_ref().unwrap()["status"].as_u64()), (ErrorCode::Unauthorized, Some(401)), "{e}");
            assert!(e.message.contains("elicitation/create"), "{e}");
        }
    }
}

/// The answer to a server request that the server refuses otherwise (a 404 `Session not found`, a
/// 400, a 500: the MCP SDK's server has not taken it, and never sends what waits on it), or whose
/// POST meets no server, is the error of the call the request came for, at once: not a call that
/// waits its whole timeout.
#[test]
fn an_answer_the_server_refuses_fails_the_call_it_came_for() {
    for (refusal, code, status) in [
        (Some(400u16), ErrorCode::HttpStatus, Some(400u64)),
        (Some(404), ErrorCode::HttpStatus, Some(404)),
        (Some(500), ErrorCode::HttpStatus, Some(500)),
        (None, ErrorCode::Network, None),
    ] {
        let stream = Live::default();
        let s = stream.clone();
        let h = harness_declaring(vec![Reply::Server(Rc::new(move |req: &HttpRequest| {
            let b = body(req);
            match b["method"].as_str() {
                Some("initialize") => init_reply("2025-11-25", Some("s1")),
                Some("tools/call") => Reply::Live(s.clone()),
                None if b.get("result").is_some() => match refusal {
                    Some(status) => status_reply(status, vec![], "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}"),
                    None => Reply::NetworkErrorSaying("connect ECONNREFUSED 127.0.0.1:1"),
                },
                _ => accepted(),
            }
        }))], json!({"roots": {}}));
        h.client.set_request_handler(Some(Box::new(|_, _, _| Box::pin(async { Ok(json!({"roots": []})) }))));
        block_on(h.client.connect()).unwrap();
        let (r, ()) = block_on(futures_util::future::join(h.client.call_tool("x", json!({}), &mut CallOptions::default()), async {
            until(|| h.log.borrow().requests.len() >= 3).await;
            stream.message(&json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}));
        }));
        let e = r.unwrap_err();
        assert_eq!((e.code, e.details.as_ref().and_then(|d| d["status"].as_u64())), (code, status), "{e}");
        assert!(e.message.starts_with("the answer to roots/list: "), "{e}");
        assert_eq!(answers_posted(&h).len(), 1);
    }
}

/// An answer refused once the server cancelled its request, or once the call it came for has its
/// response, fails nothing: nothing waits on it any more.
#[test]
fn a_refused_answer_fails_nothing_once_its_request_was_cancelled_or_its_call_answered() {
    for cancelled in [true, false] {
        let stream = Live::default();
        let refuse = Rc::new(Cell::new(false));
        let (s, f) = (stream.clone(), refuse.clone());
        let h = harness_declaring(vec![Reply::Server(Rc::new(move |req: &HttpRequest| {
            let b = body(req);
            let f = f.clone();
            match b["method"].as_str() {
                Some("initialize") => init_reply("2025-11-25", Some("s1")),
                Some("tools/call") => Reply::Live(s.clone()),
                None if b.get("result").is_some() => Reply::Until(Rc::new(move || f.get()), Box::new(status_reply(500, vec![], "answer refused"))),
                _ => accepted(),
            }
        }))], json!({"elicitation": {}}));
        h.client.set_request_handler(Some(Box::new(|_, _, _| Box::pin(async { Ok(json!({"action": "decline"})) }))));
        block_on(h.client.connect()).unwrap();
        let (r, ()) = block_on(futures_util::future::join(h.client.call_tool("x", json!({}), &mut CallOptions::default()), async {
            until(|| h.log.borrow().requests.len() >= 3).await;
            stream.message(&json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": {"message": "go?", "requestedSchema": {"type": "object"}}}));
            until(|| !answers_posted(&h).is_empty()).await;
            if cancelled {
                stream.message(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 0}}));
                for _ in 0..50 {
                    yield_now().await;
                }
                refuse.set(true);
                for _ in 0..50 {
                    yield_now().await;
                }
            } else {
                stream.message(&json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}));
                for _ in 0..50 {
                    yield_now().await;
                }
                refuse.set(true);
            }
            stream.message(&json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}));
            stream.close();
        }));
        r.unwrap_or_else(|e| panic!("cancelled {cancelled}: {e}"));
    }
}

/// A call whose result came is not held up by the server's acknowledgement of an answer POSTed
/// from its stream (a `ping`'s): it is waited for a moment (ANSWER_ACK_MS), then the call resolves
/// and the POST is abandoned; the call's timeout stands meanwhile.
#[test]
fn a_result_is_not_held_by_an_answer_the_server_is_slow_to_acknowledge() {
    let stream = Live::default();
    let s = stream.clone();
    let h = harness(vec![Reply::Server(Rc::new(move |req: &HttpRequest| {
        let b = body(req);
        match b["method"].as_str() {
            Some("initialize") => init_reply("2025-11-25", Some("s1")),
            Some("tools/call") => Reply::Live(s.clone()),
            None if b.get("result").is_some() => Reply::Hang,
            _ => accepted(),
        }
    }))]);
    block_on(h.client.connect()).unwrap();
    let mut opts = CallOptions::default();
    let call = h.client.call_tool("x", json!({}), &mut opts);
    let give_up = async {
        until(|| h.log.borrow().requests.len() >= 3).await;
        stream.message(&json!({"jsonrpc": "2.0", "id": 0, "method": "ping"}));
        until(|| !answers_posted(&h).is_empty()).await;
        stream.message(&json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}));
        until(|| false).await;
    };
    pin_mut!(call, give_up);
    let r = match block_on(select(call, give_up)) {
        Either::Left((r, _)) => r,
        Either::Right(_) => panic!("the call is still waiting for the answer's acknowledgement"),
    };
    r.unwrap();
    assert!(h.slept.borrow().contains(&ANSWER_ACK_MS), "{:?}", h.slept.borrow());
    assert_eq!(h.log.borrow().aborted, 1, "the answer's POST abandoned");
}

/// `close()` while a call's stream is being resumed abandons it as the client's close, not as a
/// session renewed under it (close() ends the session too).
#[test]
fn a_close_during_a_resumption_is_said_as_a_close() {
    let h = harness(vec![init_reply("2025-11-25", Some("s1")), accepted(), sse_reply("id: e1\nretry: 100\ndata:\n\n", 0), Reply::Hang, accepted()]);
    block_on(h.client.connect()).unwrap();
    let (r, ()) = block_on(futures_util::future::join(h.client.call_tool("x", json!({}), &mut CallOptions::default()), async {
        until(|| h.log.borrow().requests.iter().any(|r| r.method == Method::Get)).await;
        h.client.close().await.unwrap();
    }));
    let e = r.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotConnected);
    assert!(e.message.ends_with("was abandoned: the client was closed"), "{e}");
    assert!(e.details.is_none(), "{e:?}");
}

/// A JSON body (a batch, as a 2025-03-26 server may send) that carries requests of the server's
/// beside the response: the call's result is not held up by the server's acknowledgement of their
/// answers either, as on a stream (ANSWER_ACK_MS): each is waited for a moment, then abandoned.
#[test]
fn a_json_result_is_not_held_by_an_answer_the_server_is_slow_to_acknowledge() {
    let h = harness_declaring(vec![Reply::Server(Rc::new(move |req: &HttpRequest| {
        let b = body(req);
        match b["method"].as_str() {
            Some("initialize") => init_reply("2025-11-25", Some("s1")),
            Some("tools/call") => json_reply(json!([
                {"jsonrpc": "2.0", "id": 0, "method": "ping"},
                {"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage", "params": {}},
                {"jsonrpc": "2.0", "id": b["id"], "result": {"content": []}},
            ])),
            None if b.get("result").is_some() => Reply::Hang,
            _ => accepted(),
        }
    }))], json!({"sampling": {}}));
    h.client.set_request_handler(Some(Box::new(|_, _, _| Box::pin(async { Ok(json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"})) }))));
    block_on(h.client.connect()).unwrap();
    let r = bounded(h.client.call_tool("x", json!({}), &mut CallOptions::default()), 10_000);
    r.expect("the call is still waiting for the answers' acknowledgement").unwrap();
    let posted: Vec<Value> = answers_posted(&h).into_iter().map(|(b, _)| b["id"].clone()).collect();
    assert_eq!(posted, [json!(0), json!(1)], "both answered");
    assert!(h.slept.borrow().contains(&ANSWER_ACK_MS), "{:?}", h.slept.borrow());
    assert_eq!(h.log.borrow().aborted, 2, "the answers' POSTs abandoned");
}

/// A server that speaks 2025-11-25 on session `s1` until `turned`, then 2026-07-28 only (it refuses
/// `initialize` as such a server does): a GET on `s1` is answered by `opened` (a stream each, in
/// turn, then 404 for the session forgotten), a GET without a session with 405 (the revision has
/// no standalone stream), `tools/list` on `s1` with 404 (the session forgotten), and
/// `subscriptions/listen` with `subscription`.
fn turning_server(turned: &Rc<Cell<bool>>, opened: Vec<Reply>, subscription: &Live) -> Reply {
    let (turned, subscription) = (turned.clone(), subscription.clone());
    let opened = RefCell::new(VecDeque::from(opened));
    let gone = || status_reply(404, vec![], "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}");
    Reply::Server(Rc::new(move |req: &HttpRequest| {
        let b = body(req);
        let on_s1 = header(req, "mcp-session-id") == Some("s1");
        match (req.method, b["method"].as_str()) {
            (Method::Get, _) if on_s1 && !turned.get() => opened.borrow_mut().pop_front().unwrap_or_else(|| {
                turned.set(true);
                gone()
            }),
            (Method::Get, _) if on_s1 => gone(),
            (Method::Get, _) => status_reply(405, vec![], ""),
            (_, Some("initialize")) if turned.get() => rpc_status(400, -32020, Value::Null),
            (_, Some("initialize")) => init_reply("2025-11-25", Some("s1")),
            (_, Some("server/discover")) => discover_reply(),
            (_, Some("tools/list")) if on_s1 => {
                turned.set(true);
                gone()
            }
            (_, Some("tools/list")) => Reply::Echo(json!({"tools": []})),
            (_, Some("subscriptions/listen")) => Reply::Live(subscription.clone()),
            _ => accepted(),
        }
    }))
}

/// A session renewal that ends in 2026-07-28 (the auto era finding the server turned to it) while
/// the standalone stream is open moves listen() to what that revision has instead, as a listen()
/// begun in it: the `subscriptions/listen` stream, no more GETs (such a server offers none). So
/// whether the renewal was a request's (its 404) or the stream's own (a reopening refused for the
/// session).
#[test]
fn a_renewal_into_2026_07_28_moves_listen_to_the_subscription() {
    let list_changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}});
    for by_the_stream in [false, true] {
        let (turned, subscription, listening) = (Rc::new(Cell::new(false)), Live::default(), Live::default());
        let opened = if by_the_stream { vec![sse_reply(": open\n\nretry: 100\n\n", 0)] } else { vec![Reply::Live(listening.clone())] };
        let h = harness(vec![turning_server(&turned, opened, &subscription)]);
        let notes = Rc::new(RefCell::new(Vec::new()));
        let n2 = notes.clone();
        h.client.set_notification_handler(Some(Box::new(move |m, _| n2.borrow_mut().push(m.to_owned()))));
        block_on(h.client.connect()).unwrap();
        let subscribed = || h.log.borrow().requests.iter().any(|r| body(r)["method"] == "subscriptions/listen");
        let (listened, listed) = block_on(futures_util::future::join(h.client.listen(), async {
            until(|| h.log.borrow().requests.iter().any(|r| r.method == Method::Get)).await;
            let listed = if by_the_stream { Ok(Vec::new()) } else { h.client.list_tools().await };
            until(subscribed).await;
            subscription.message(&list_changed);
            until(|| notes.borrow().len() >= 2).await;
            h.client.close().await.unwrap();
            listed
        }));
        assert_eq!(listed.unwrap(), Vec::<Value>::new(), "by the stream: {by_the_stream}");
        assert!(h.client.is_modern(), "by the stream: {by_the_stream}");
        assert_eq!(listened, Ok(true), "by the stream: {by_the_stream}");
        let log = h.log.borrow();
        let gets: Vec<Option<&str>> = log.requests.iter().filter(|r| r.method == Method::Get).map(|r| header(r, "mcp-session-id")).collect();
        assert_eq!(gets, if by_the_stream { vec![Some("s1"), Some("s1")] } else { vec![Some("s1")] }, "no GET after the renewal");
        let sub = log.requests.iter().find(|r| body(r)["method"] == "subscriptions/listen").expect("subscribed");
        assert_modern(sub);
        assert_eq!(*notes.borrow(), ["notifications/tools/list_changed", "notifications/tools/list_changed"], "the renewal's, then the subscription's");
        if !by_the_stream {
            assert!(listening.dropped(), "the old session's stream abandoned");
        }
    }
}

/// The other way: a session renewal that ends in a 2025 revision (the auto era finding the server
/// redeployed as one, at a request's refusal) moves a listen() begun in 2026-07-28 to what that
/// revision has instead: the standalone stream (GET) on the new session, no more
/// `subscriptions/listen` (such a server answers it -32601, and listen() would give up). At once,
/// whether the server ended the subscription's stream or holds it still (the server as it was,
/// in a rolling redeployment): what it brought is read, and the lists announced as changed.
#[test]
fn a_renewal_into_2025_moves_listen_to_the_standalone_stream() {
    for ended_by_the_server in [true, false] {
        let (turned, subscription, listening) = (Rc::new(Cell::new(false)), Live::default(), Live::default());
        let (t, sub, lis) = (turned.clone(), subscription.clone(), listening.clone());
        let session_required = || {
            let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request: Mcp-Session-Id header is required"}});
            status_reply(400, vec![("content-type", "application/json".into())], &body.to_string())
        };
        let h = harness(vec![Reply::Server(Rc::new(move |req: &HttpRequest| {
            let b = body(req);
            let on_s1 = header(req, "mcp-session-id") == Some("s1");
            match (t.get(), req.method, b["method"].as_str()) {
                (false, _, Some("initialize")) => rpc_status(400, -32020, Value::Null),
                (false, _, Some("server/discover")) => discover_reply(),
                (false, _, Some("subscriptions/listen")) => Reply::Live(sub.clone()),
                (false, _, Some("tools/list")) => Reply::Echo(json!({"tools": [], "resultType": "complete"})),
                (true, _, Some("initialize")) => init_reply_id(b["id"].as_i64().unwrap_or_default(), "2025-11-25", Some("s1")),
                (true, Method::Get, _) if on_s1 => Reply::Live(lis.clone()),
                (true, Method::Delete, _) | (true, _, Some("notifications/initialized")) => accepted(),
                (true, _, Some("subscriptions/listen")) if on_s1 => json_reply(json!({"jsonrpc": "2.0", "id": b["id"], "error": {"code": -32601, "message": "Method not found"}})),
                (true, _, Some("tools/list")) if on_s1 => Reply::Echo(json!({"tools": []})),
                (true, _, _) => session_required(),
                _ => accepted(),
            }
        }))]);
        let notes = Rc::new(RefCell::new(Vec::new()));
        let n2 = notes.clone();
        h.client.set_notification_handler(Some(Box::new(move |m, p| n2.borrow_mut().push(format!("{m} {}", p["data"])))));
        block_on(h.client.connect()).unwrap();
        assert!(h.client.is_modern());
        let (listened, listed) = block_on(futures_util::future::join(h.client.listen(), async {
            until(|| h.log.borrow().requests.iter().any(|r| body(r)["method"] == "subscriptions/listen")).await;
            turned.set(true);
            let listed = h.client.list_tools().await;
            // The redeployed server ended the subscription; or the old one holds it still (a
            // rolling redeployment): left at once all the same, what it brought read first.
            if ended_by_the_server {
                subscription.close();
            } else {
                subscription.message(&json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": 0}}));
            }
            until(|| h.log.borrow().requests.iter().any(|r| r.method == Method::Get)).await;
            listening.message(&json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": 1}}));
            until(|| notes.borrow().len() == 2 + usize::from(!ended_by_the_server)).await;
            h.client.close().await.unwrap();
            listed
        }));
        assert_eq!(listed.unwrap(), Vec::<Value>::new());
        assert!(!h.client.is_modern());
        assert_eq!(listened, Ok(true));
        let log = h.log.borrow();
        let subscriptions = log.requests.iter().filter(|r| body(r)["method"] == "subscriptions/listen").count();
        assert_eq!(subscriptions, 1, "no subscriptions/listen on the 2025 session");
        let gets: Vec<Option<&str>> = log.requests.iter().filter(|r| r.method == Method::Get).map(|r| header(r, "mcp-session-id")).collect();
        assert_eq!(gets, [Some("s1")]);
        assert!(listening.dropped() || listening.closed(), "the standalone stream read until close()");
        assert!(subscription.closed() || subscription.dropped(), "ended by the server: {ended_by_the_server}");
        // The reopening's announcement (what the server published in between is not known).
        let mut heard = vec!["notifications/tools/list_changed null", "notifications/message 1"];
        if !ended_by_the_server {
            heard.insert(0, "notifications/message 0");
        }
        assert_eq!(*notes.borrow(), heard, "ended by the server: {ended_by_the_server}");
    }
}

/// A `subscriptions/listen` refused as a 2025 server refuses a 2026-07-28 request (redeployed:
/// here the TypeScript SDK's "Mcp-Session-Id header is required") has the auto era find out, as
/// any request's refusal does: a new handshake, and listen() goes on on the standalone stream of
/// the new session, whether at the first opening or at a reopening (which announces the lists as
/// changed: what the server published in between is not known). A refusal of another kind, or
/// one after which the handshake finds 2026-07-28 again, is the listening's error as before, one
/// handshake at most.
#[test]
fn a_listen_refused_by_a_server_redeployed_as_2025_moves_to_the_standalone_stream() {
    let session_required = || {
        let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request: Mcp-Session-Id header is required"}});
        status_reply(400, vec![("content-type", "application/json".into())], &body.to_string())
    };
    let methods = |h: &Harness| {
        h.log.borrow().requests.iter().map(|r| if r.method == Method::Get { "GET".to_owned() } else { body(r)["method"].as_str().unwrap_or_default().to_owned() }).collect::<Vec<_>>()
    };
    for at_a_reopening in [false, true] {
        let (turned, subscription, listening) = (Rc::new(Cell::new(false)), Live::default(), Live::default());
        let (t, sub, lis) = (turned.clone(), subscription.clone(), listening.clone());
        let h = harness(vec![Reply::Server(Rc::new(move |req: &HttpRequest| {
            let b = body(req);
            let on_s1 = header(req, "mcp-session-id") == Some("s1");
            match (t.get(), req.method, b["method"].as_str()) {
                (false, _, Some("initialize")) => rpc_status(400, -32020, Value::Null),
                (false, _, Some("server/discover")) => discover_reply(),
                (false, _, Some("subscriptions/listen")) => Reply::Live(sub.clone()),
                (true, _, Some("initialize")) => init_reply_id(b["id"].as_i64().unwrap_or_default(), "2025-11-25", Some("s1")),
                (true, Method::Get, _) if on_s1 => Reply::Live(lis.clone()),
                (true, Method::Delete, _) | (true, _, Some("notifications/initialized")) => accepted(),
                (true, _, _) => session_required(),
                _ => accepted(),
            }
        }))]);
        let notes = Rc::new(RefCell::new(Vec::new()));
        let n2 = notes.clone();
        h.client.set_notification_handler(Some(Box::new(move |m, _| n2.borrow_mut().push(m.to_owned()))));
        block_on(h.client.connect()).unwrap();
        assert!(h.client.is_modern());
        if !at_a_reopening {
            turned.set(true);
        }
        let (listened, ()) = block_on(futures_util::future::join(h.client.listen(), async {
            if at_a_reopening {
                until(|| h.log.borrow().requests.iter().any(|r| body(r)["method"] == "subscriptions/listen")).await;
                // Redeployed: the subscription's stream ends with the old server.
                turned.set(true);
                subscription.close();
            }
            until(|| h.log.borrow().requests.iter().any(|r| r.method == Method::Get)).await;
            listening.message(&json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": 1}}));
            until(|| notes.borrow().iter().any(|n| n == "notifications/message")).await;
            h.client.close().await.unwrap();
        }));
        assert_eq!(listened, Ok(true), "at a reopening: {at_a_reopening}");
        assert!(!h.client.is_modern());
        let mut expected = vec!["initialize", "server/discover", "subscriptions/listen"];
        if at_a_reopening {
            expected.push("subscriptions/listen");
        }
        expected.extend(["server/discover", "initialize", "notifications/initialized", "GET"]);
        assert_eq!(methods(&h)[..expected.len()], expected, "at a reopening: {at_a_reopening}");
        let heard: &[&str] = if at_a_reopening { &["notifications/tools/list_changed", "notifications/message"] } else { &["notifications/message"] };
        assert_eq!(*notes.borrow(), heard, "at a reopening: {at_a_reopening}");
    }

    // Another refusal (400, -32602): the listening's error, no new handshake.
    let h = harness(vec![rpc_status(400, -32020, Value::Null), discover_reply(), rpc_status(400, -32602, Value::Null)]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(rpc_code(&block_on(h.client.listen()).unwrap_err()), Some(-32602));
    assert_eq!(methods(&h), ["initialize", "server/discover", "subscriptions/listen"]);
    // The handshake finds 2026-07-28 again: the refusal is the listening's error.
    let h = harness(vec![rpc_status(400, -32020, Value::Null), discover_reply(), session_required(), discover_reply(), session_required()]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(rpc_code(&block_on(h.client.listen()).unwrap_err()), Some(-32000));
    assert!(h.client.is_modern());
    assert_eq!(methods(&h), ["initialize", "server/discover", "subscriptions/listen", "server/discover"]);
    // Refused so at reopenings, with the same revision found: one handshake, then failures counted.
    let h = harness(vec![rpc_status(400, -32020, Value::Null), discover_reply(), sse_events(&[], false), session_required(), discover_reply(), session_required(), session_required()]);
    block_on(h.client.connect()).unwrap();
    assert_eq!(block_on(h.client.listen()).unwrap_err().code, ErrorCode::Protocol);
    assert_eq!(methods(&h), ["initialize", "server/discover", "subscriptions/listen", "subscriptions/listen", "server/discover", "subscriptions/listen", "subscriptions/listen"]);
}

/// A server whose handshakes alternate between revisions (a rolling redeployment, its nodes behind
/// one address): each `subscriptions/listen` refused as a 2025 server refuses it, each standalone
/// stream refused for its session. The listening's moves between the revisions are no handshake
/// loop: after a refusal of the subscription had a new handshake, another such refusal has none
/// until a stream (of either revision) opens: it is the listening's error.
#[test]
fn a_listening_moved_between_revisions_by_refusals_is_no_handshake_loop() {
    // Handshakes that succeeded; the next in 2025 (else 2026-07-28).
    let (inits, legacy) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(false)));
    let (i2, l2) = (inits.clone(), legacy.clone());
    let session_required = || {
        let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request: Mcp-Session-Id header is required"}});
        status_reply(400, vec![("content-type", "application/json".into())], &body.to_string())
    };
    let h = harness(vec![Reply::Server(Rc::new(move |req: &HttpRequest| {
        let b = body(req);
        let done = || {
            i2.set(i2.get() + 1);
            l2.set(!l2.get());
        };
        match (req.method, b["method"].as_str()) {
            (_, Some("initialize")) if l2.get() => {
                done();
                init_reply_id(b["id"].as_i64().unwrap_or_default(), "2025-11-25", Some("s1"))
            }
            (_, Some("initialize")) => rpc_status(400, -32020, Value::Null),
            (_, Some("server/discover")) if !l2.get() => {
                done();
                discover_reply()
            }
            (_, Some("server/discover")) => session_required(),
            (_, Some("subscriptions/listen")) => session_required(),
            (Method::Get, _) => status_reply(404, vec![], "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}"),
            _ => accepted(),
        }
    }))]);
    block_on(h.client.connect()).unwrap();
    assert!(h.client.is_modern());
    let (listened, ()) = block_on(futures_util::future::join(h.client.listen(), async {
        until(|| inits.get() >= 12).await;
        h.client.close().await.unwrap();
    }));
    assert_eq!(inits.get(), 3, "the connection's, the subscription's refusal's, the stream's renewal's");
    assert_eq!(rpc_code(&listened.unwrap_err()), Some(-32000));
}

/// A response in hand is the call's, whatever comes after it (probe rv2 F5): in a JSON body (a
/// 2025-03-26 batch) or on a stream, beside a server request whose handler answers after the
/// response came, the call's total deadline or its signal ends only the wait for that answer. The
/// call returns the result, and no `notifications/cancelled` goes out for a request the server
/// answered.
#[test]
fn a_response_in_hand_is_returned_when_a_deadline_or_the_signal_comes_while_a_handler_answers() {
    let sampling = json!({"jsonrpc": "2.0", "id": "s2", "method": "sampling/createMessage", "params": {}});
    type Options = fn(Rc<Cell<bool>>) -> CallOptions;
    let ended_by: [(&str, Options); 2] = [
        ("the total", |_| CallOptions { max_total_timeout_ms: Some(5), ..CallOptions::default() }),
        ("the signal", |asked| CallOptions { cancel: Some(Box::pin(until_owned(asked))), ..CallOptions::default() }),
    ];
    for sse in [false, true] {
        for (by, opts) in &ended_by {
            let s = sampling.clone();
            let h = harness_with(
                vec![Reply::Server(Rc::new(move |req: &HttpRequest| {
                    let b = body(req);
                    match b["method"].as_str() {
                        Some("initialize") => init_reply("2025-03-26", Some("s1")),
                        Some("tools/call") if sse => {
                            let response = json!({"jsonrpc": "2.0", "id": b["id"], "result": {"content": [{"type": "text", "text": "done"}]}});
                            sse_reply(&format!("data: {s}\n\ndata: {response}\n\n"), 0)
                        }
                        Some("tools/call") => json_reply(json!([s, {"jsonrpc": "2.0", "id": b["id"], "result": {"content": [{"type": "text", "text": "done"}]}}])),
                        _ => accepted(),
                    }
                }))],
                declaring(json!({"sampling": {}})),
                10,
            );
            let asked = Rc::new(Cell::new(false));
            let a = asked.clone();
            // A person who never answers.
            h.client.set_request_handler(Some(Box::new(move |_, _, _| {
                a.set(true);
                Box::pin(futures_util::future::pending())
            })));
            block_on(h.client.connect()).unwrap();
            let r = bounded(h.client.call_tool("t", json!({}), &mut opts(asked.clone())), 10_000);
            let case = format!("sse: {sse}, ended by {by}");
            let result = r.unwrap_or_else(|| panic!("{case}: the call still waits for the handler")).unwrap_or_else(|e| panic!("{case}: {e}"));
            assert_eq!(result["content"][0]["text"], "done", "{case}");
            assert!(asked.get(), "{case}: the handler was asked");
            let log = h.log.borrow();
            assert!(!log.requests.iter().any(|r| body(r)["method"] == "notifications/cancelled"), "{case}: a cancellation went out");
            assert!(answers_posted(&h).is_empty(), "{case}: the handler never answered");
        }
    }
}

/// Resolves once `flag` is set.
async fn until_owned(flag: Rc<Cell<bool>>) {
    while !flag.get() {
        yield_now().await;
    }
}

/// A capability the client declares is an object (or left out): `true`, `0`, `"no"`, `[]`, and
/// `null` or `false`, which a server's handshake refuses, are named.
#[test]
fn capabilities_are_objects() {
    let problem = |caps: Value| capabilities_problem(caps.as_object().unwrap());
    for v in [json!(true), json!(0), json!("no"), json!([]), json!(null), json!(false)] {
        let p = problem(json!({ "elicitation": v.clone() })).unwrap_or_default();
        assert!(p.starts_with("options.capabilities.elicitation must be an object"), "{v}: {p}");
    }
    assert!(problem(json!({ "sampling": { "tools": true } })).unwrap().starts_with("options.capabilities.sampling.tools must be an object"));
    assert!(problem(json!({ "roots": { "listChanged": 1 } })).unwrap().starts_with("options.capabilities.roots.listChanged must be a boolean"));
    assert!(problem(json!({ "experimental": { "x": 1 } })).unwrap().starts_with("options.capabilities.experimental[\"x\"] must be an object"));
    assert_eq!(problem(json!({ "elicitation": { "form": { "applyDefaults": true }, "url": {} }, "sampling": {}, "roots": { "listChanged": true }, "tasks": {}, "custom": 1 })), None);
}

/// An `initialize` answer of session `session` (request id `id`) whose server declares `capabilities`.
fn init_declaring(id: i64, session: &str, capabilities: Value) -> Reply {
    Reply::Http {
        status: 200,
        headers: vec![("content-type", "application/json".into()), ("mcp-session-id", session.to_owned())],
        chunks: vec![json!({"jsonrpc":"2.0","id":id,"result":{"protocolVersion":"2025-11-25","capabilities":capabilities,"serverInfo":{"name":"t","version":"1"}}}).to_string().into_bytes()],
        then_hang: false,
        then_error: false,
    }
}

/// The resources the app subscribed to on a session (and did not unsubscribe from) are subscribed
/// to again on the session a renewal brings, which has none; the listening moved there hears
/// each of them as updated, and the resource and prompt lists as changed where the server
/// declared `listChanged` (what changed in between is not known). `connect()` forgets them.
#[test]
fn a_renewed_session_is_subscribed_again_to_the_apps_resources() {
    let caps = json!({"resources": {"subscribe": true, "listChanged": true}, "prompts": {"listChanged": true}, "tools": {}});
    let gone = || status_reply(404, vec![], "");
    let first = "id: e1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"file:///a\"}}\n\n";
    let h = harness(vec![
        init_declaring(0, "old", caps.clone()),
        accepted(),
        Reply::Echo(json!({})),
        Reply::Echo(json!({})),
        Reply::Echo(json!({})),
        sse_reply(first, 0),
        gone(),
        init_declaring(4, "new", caps.clone()),
        accepted(),
        Reply::Echo(json!({})),
        Reply::Hang,
    ]);
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    h.client.set_notification_handler(Some(Box::new(move |m, p| n2.borrow_mut().push(format!("{m} {p}")))));
    block_on(h.client.connect()).unwrap();
    for (method, uri) in [("resources/subscribe", "file:///a"), ("resources/subscribe", "file:///b"), ("resources/unsubscribe", "file:///b")] {
        block_on(h.client.request_checked(method, json!({"uri": uri}), &mut CallOptions::default())).unwrap();
    }
    let (listened, closed) = block_on(futures_util::future::join(h.client.listen(), async {
        for _ in 0..10_000 {
            if h.log.borrow().requests.len() >= 11 {
                break;
            }
            yield_now().await;
        }
        h.client.close().await
    }));
    assert!(listened.unwrap());
    closed.unwrap();
    let log = h.log.borrow();
    assert_eq!(body(&log.requests[7])["method"], "initialize");
    let again = &log.requests[9];
    assert_eq!((body(again)["method"].clone(), body(again)["params"].clone()), (json!("resources/subscribe"), json!({"uri": "file:///a"})));
    assert_eq!(header(again, "mcp-session-id"), Some("new"));
    assert_eq!((log.requests[10].method, header(&log.requests[10], "mcp-session-id")), (Method::Get, Some("new")));
    drop(log);
    assert_eq!(
        *notes.borrow(),
        [
            "notifications/resources/updated {\"uri\":\"file:///a\"}",
            "notifications/tools/list_changed {}",
            "notifications/resources/list_changed {}",
            "notifications/prompts/list_changed {}",
            "notifications/resources/updated {\"uri\":\"file:///a\"}",
        ]
    );

    // connect() again: a session of the app's, subscribed to nothing (close() forgot them too).
    let h = harness(vec![init_declaring(0, "a", caps.clone()), accepted(), Reply::Echo(json!({})), status_reply(200, vec![], ""), init_declaring(2, "b", caps), accepted()]);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.request_checked("resources/subscribe", json!({"uri": "file:///a"}), &mut CallOptions::default())).unwrap();
    block_on(h.client.connect()).unwrap();
    let methods: Vec<Value> = h.log.borrow().requests.iter().filter(|r| r.method == Method::Post).map(|r| body(r)["method"].clone()).collect();
    assert_eq!(methods, ["initialize", "notifications/initialized", "resources/subscribe", "initialize", "notifications/initialized"]);
}

/// A result of `request` whose fields the package types are of another type is the server's
/// error, where the MCP SDK's client refuses it too: completion's `hasMore`, `total` and more
/// than 100 values, a prompt message's content block, a `blob` that is no base64, a resource's
/// `mimeType` and `size`. What the SDK takes is taken (whitespace in base64, `total` 5.0, a
/// `text` beside a `blob`).
#[test]
fn request_results_are_checked_as_typed() {
    let caps = json!({"resources": {}, "prompts": {}, "completions": {}});
    let check = |method: &str, result: Value| {
        let h = harness(vec![init_declaring(0, "s", caps.clone()), accepted(), Reply::Echo(result)]);
        block_on(h.client.connect()).unwrap();
        block_on(h.client.request_checked(method, json!({}), &mut CallOptions::default()))
    };
    let values = |n: usize| json!((0..n).map(|i| i.to_string()).collect::<Vec<_>>());
    for (method, result, why) in [
        ("completion/complete", json!({"completion": {"values": ["a"], "hasMore": "yes"}}), "its completion.hasMore is not a boolean (string: \"yes\")"),
        ("completion/complete", json!({"completion": {"values": ["a"], "total": "many"}}), "its completion.total is not an integer (string: \"many\")"),
        ("completion/complete", json!({"completion": {"values": ["a"], "total": 1.5}}), "its completion.total is not an integer (number: 1.5)"),
        ("completion/complete", json!({"completion": {"values": values(101)}}), "its completion.values holds 101 values, more than the 100 MCP allows"),
        ("prompts/get", json!({"messages": [{"role": "user", "content": {"type": "text"}}]}), "`messages[0]` has a content block object: {\"type\":\"text\"} without a string `text`"),
        ("prompts/get", json!({"messages": [{"role": "user", "content": {"type": "video", "url": "x"}}]}), "is no text, image, audio, resource_link or resource block"),
        ("prompts/get", json!({"messages": [{"role": "user", "content": {"type": "image", "data": "%%", "mimeType": "image/png"}}]}), "has an image content block whose `data` is not base64"),
        ("prompts/get", json!({"messages": [{"role": "user", "content": {"type": "resource", "resource": {"uri": "a", "blob": "a"}}}]}), "whose `resource` has a `blob` that is not base64"),
        ("prompts/get", json!({"messages": [], "description": 5}), "its description is not a string (number: 5)"),
        ("resources/read", json!({"contents": [{"uri": "a://b", "blob": "%%% not base64 %%%"}]}), "`contents[0]` has a `blob` that is not base64"),
        ("resources/read", json!({"contents": [{"uri": "a://b", "text": "x", "mimeType": 7}]}), "`contents[0]` has a `mimeType` that is not a string (number: 7)"),
        ("resources/list", json!({"resources": [{"uri": "a://b", "name": "b", "mimeType": 7}]}), "`resources[0]` has a `mimeType` that is not a string (number: 7)"),
        ("resources/list", json!({"resources": [{"uri": "a://b", "name": "b", "size": "big"}]}), "`resources[0]` has a `size` that is not a number (string: \"big\")"),
        ("resources/templates/list", json!({"resourceTemplates": [{"uriTemplate": "a://{x}", "name": "b", "description": null}]}), "has a `description` that is not a string (null"),
        ("prompts/list", json!({"prompts": [{"name": "p", "arguments": [{"name": "a", "required": "yes"}]}]}), "`prompts[0]` has an `arguments[0]` that has a `required` that is not a boolean"),
    ] {
        let e = check(method, result.clone()).unwrap_err();
        assert_eq!(e.code, ErrorCode::Protocol, "{method} {result}: {e}");
        assert!(e.message.contains(why), "{method} {result}: {}", e.message);
        assert_eq!(e.details.unwrap()["result"], result);
    }
    for (method, result) in [
        ("completion/complete", json!({"completion": {"values": values(100), "total": 5.0, "hasMore": true, "extra": 1}})),
        ("prompts/get", json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "t"}},
            {"role": "user", "content": {"type": "image", "data": "iVBO Rw0K\nGgo=", "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "resource_link", "uri": "a", "name": "a", "size": 3}},
            {"role": "assistant", "content": {"type": "resource", "resource": {"uri": "a", "text": "t"}}},
        ]})),
        ("resources/read", json!({"contents": [{"uri": "a", "blob": "YWJj"}, {"uri": "b", "blob": ""}, {"uri": "c", "text": "t", "blob": "%%"}]})),
        ("resources/list", json!({"resources": [{"uri": "a", "name": "a", "mimeType": "text/plain", "size": 3, "icons": []}]})),
    ] {
        assert_eq!(check(method, result.clone()).unwrap(), result, "{method}");
    }
}

#[test]
fn base64_is_checked_as_atob_decodes_it() {
    for good in ["", "YQ==", "YQ", "YWI=", "YWI", "YWJj", " Y W J j\n", "+/+/"] {
        assert!(is_base64(good), "{good:?}");
    }
    for bad in ["Y", "YQ=", "Y===", "YQ==YQ==", "YW-j", "YW_j", "é", "%%%"] {
        assert!(!is_base64(bad), "{bad:?}");
    }
}

/// A server whose sessions a test can forget (a restart) and whose answers to
/// `resources/subscribe` it chooses: the sessions are `s1`, `s2`... (one for each `initialize`).
#[derive(Default)]
struct Subscribing {
    /// The session the server knows (requests of another are answered 404).
    session: usize,
    /// The capabilities the next `initialize` declares.
    caps: Value,
    /// URIs whose `resources/subscribe` is refused (-32002).
    refused: Vec<&'static str>,
    /// `resources/subscribe` and `initialize` are answered once this says so.
    gate: Option<Gate>,
}

/// Whether a request of a [`Subscribing`] server may be answered now.
type Gate = Rc<dyn Fn(&HttpRequest) -> bool>;

/// The problems a client's [`ProblemHandler`] was told of.
type Problems = Rc<RefCell<Vec<Error>>>;

/// The notifications heard, each `method params`.
type Notes = Rc<RefCell<Vec<String>>>;

fn subscribing(state: &Rc<RefCell<Subscribing>>) -> Reply {
    let state = state.clone();
    Reply::Server(Rc::new(move |req: &HttpRequest| {
        let mut st = state.borrow_mut();
        if req.method != Method::Post {
            return status_reply(if req.method == Method::Delete { 200 } else { 405 }, vec![], "");
        }
        let msg = body(req);
        let id = msg["id"].clone();
        let gate = st.gate.clone();
        let gated = |reply: Reply| match gate.clone() {
            Some(gate) => {
                let req = req.clone();
                Reply::Until(Rc::new(move || gate(&req)), Box::new(reply))
            }
            None => reply,
        };
        if msg["method"] == "initialize" {
            st.session += 1;
            let reply = Reply::Http {
                status: 200,
                headers: vec![("content-type", "application/json".into()), ("mcp-session-id", format!("s{}", st.session))],
                chunks: vec![json!({"jsonrpc":"2.0","id":id,"result":{"protocolVersion":"2025-11-25","capabilities":st.caps,"serverInfo":{"name":"t","version":"1"}}}).to_string().into_bytes()],
                then_hang: false,
                then_error: false,
            };
            return gated(reply);
        }
        if header(req, "mcp-session-id") != Some(&format!("s{}", st.session)) {
            return status_reply(404, vec![], "");
        }
        if id.is_null() {
            return accepted();
        }
        match msg["method"].as_str() {
            Some("resources/subscribe") if st.refused.iter().any(|u| msg["params"]["uri"] == *u) => {
                gated(json_reply(json!({"jsonrpc":"2.0","id":id,"error":{"code":-32002,"message":"Resource not found"}})))
            }
            Some("resources/subscribe") => gated(Reply::Echo(json!({}))),
            Some("resources/read") => Reply::Echo(json!({"contents": []})),
            _ => Reply::Echo(json!({})),
        }
    }))
}

/// A client of a [`Subscribing`] server declaring `caps`, its problems collected.
fn subscribed_client(caps: Value) -> (Harness, Rc<RefCell<Subscribing>>, Problems) {
    let state = Rc::new(RefCell::new(Subscribing { caps, ..Subscribing::default() }));
    let h = harness(vec![subscribing(&state)]);
    let problems = Rc::new(RefCell::new(Vec::new()));
    let p2 = problems.clone();
    h.client.set_problem_handler(Some(Box::new(move |e: &Error| p2.borrow_mut().push(e.clone()))));
    (h, state, problems)
}

/// The `resources/subscribe` URIs sent on session `session`.
fn subscribes_on(h: &Harness, session: &str) -> Vec<String> {
    let log = h.log.borrow();
    log.requests.iter().filter(|r| header(r, "mcp-session-id") == Some(session) && body(r)["method"] == "resources/subscribe").map(|r| body(r)["params"]["uri"].as_str().unwrap().to_owned()).collect()
}

fn read(h: &Harness) -> Result<Value> {
    block_on(h.client.request_checked("resources/read", json!({"uri": "file:///a"}), &mut CallOptions::default()))
}

const SUBSCRIBABLE: fn() -> Value = || json!({"resources": {"subscribe": true}});

/// A subscription the renewed session's server refuses (the resource is gone since it restarted)
/// is forgotten, and the problem handler told of it: the others stand, and the next renewal asks
/// again only for them.
#[test]
fn a_subscription_refused_on_the_renewed_session_is_forgotten_and_reported() {
    let (h, state, problems) = subscribed_client(SUBSCRIBABLE());
    block_on(h.client.connect()).unwrap();
    for uri in ["file:///a", "file:///b", "file:///c"] {
        block_on(h.client.request_checked("resources/subscribe", json!({"uri": uri}), &mut CallOptions::default())).unwrap();
    }
    {
        let mut st = state.borrow_mut();
        st.session += 1;
        st.refused = vec!["file:///b"];
    }
    read(&h).unwrap();
    assert_eq!(subscribes_on(&h, "s3"), ["file:///a", "file:///b", "file:///c"]);
    let problems_now = problems.borrow().clone();
    assert_eq!(problems_now.len(), 1, "{problems_now:?}");
    let e = &problems_now[0];
    assert_eq!(e.code, ErrorCode::JsonRpcError);
    assert!(e.message.contains("could not be subscribed again to 1 resource the app subscribed to: file:///b (") && e.message.contains("Resource not found"), "{}", e.message);
    let lost = &e.details.as_ref().unwrap()["lost"];
    assert_eq!((lost.as_array().unwrap().len(), lost[0]["uri"].clone(), lost[0]["code"].clone()), (1, json!("file:///b"), json!("JSONRPC_ERROR")));

    // The next renewal asks again for the two that stand, and tells of nothing.
    {
        let mut st = state.borrow_mut();
        st.session += 1;
        st.refused.clear();
    }
    read(&h).unwrap();
    assert_eq!(subscribes_on(&h, "s5"), ["file:///a", "file:///c"]);
    assert_eq!(problems.borrow().len(), 1);
}

/// A renewed session whose server no longer declares `resources.subscribe` is sent no
/// `resources/subscribe` (as `request` would refuse it): the subscriptions are lost, and told.
#[test]
fn a_renewed_session_without_the_subscribe_capability_is_not_asked_and_the_loss_is_reported() {
    let (h, state, problems) = subscribed_client(SUBSCRIBABLE());
    block_on(h.client.connect()).unwrap();
    for uri in ["file:///a", "file:///b"] {
        block_on(h.client.request_checked("resources/subscribe", json!({"uri": uri}), &mut CallOptions::default())).unwrap();
    }
    {
        let mut st = state.borrow_mut();
        st.session += 1;
        st.caps = json!({"resources": {}});
    }
    read(&h).unwrap();
    assert_eq!(subscribes_on(&h, "s3"), Vec::<String>::new());
    let e = problems.borrow()[0].clone();
    assert_eq!(e.code, ErrorCode::CapabilityNotNegotiated);
    assert!(e.message.contains("2 resources") && e.message.contains("does not declare resources.subscribe"), "{}", e.message);
    let uris: Vec<Value> = e.details.as_ref().unwrap()["lost"].as_array().unwrap().iter().map(|l| l["uri"].clone()).collect();
    assert_eq!(uris, [json!("file:///a"), json!("file:///b")]);
    // Forgotten: a server that declares it again is not asked for them.
    {
        let mut st = state.borrow_mut();
        st.session += 1;
        st.caps = SUBSCRIBABLE();
    }
    read(&h).unwrap();
    assert_eq!(subscribes_on(&h, "s5"), Vec::<String>::new());
    assert_eq!(problems.borrow().len(), 1);
}

/// The subscriptions are asked for again all at once (every request waits for the renewal: one
/// server that does not answer holds it for one timeout, not one per subscription); one that
/// times out is lost as a refused one is.
#[test]
fn a_renewal_asks_for_the_subscriptions_at_once() {
    let (h, state, problems) = subscribed_client(SUBSCRIBABLE());
    block_on(h.client.connect()).unwrap();
    for uri in ["file:///a", "file:///b", "file:///c"] {
        block_on(h.client.request_checked("resources/subscribe", json!({"uri": uri}), &mut CallOptions::default())).unwrap();
    }
    let open = Rc::new(Cell::new(false));
    {
        let mut st = state.borrow_mut();
        st.session += 1;
        let open = open.clone();
        st.gate = Some(Rc::new(move |req: &HttpRequest| body(req)["method"] != "resources/subscribe" || open.get()));
    }
    let (read, all_out) = block_on(futures_util::future::join(h.client.request_checked("resources/read", json!({"uri": "file:///a"}), &mut CallOptions::default()), async {
        let mut all_out = false;
        for _ in 0..1_000 {
            if subscribes_on(&h, "s3").len() == 3 {
                all_out = true;
                break;
            }
            yield_now().await;
        }
        open.set(true);
        all_out
    }));
    read.unwrap();
    assert!(all_out, "the three were sent before any was answered: {:?}", subscribes_on(&h, "s3"));
    assert!(problems.borrow().is_empty());

    // A server that answers none: one timeout for them all, each lost with it.
    let state = Rc::new(RefCell::new(Subscribing { caps: SUBSCRIBABLE(), ..Subscribing::default() }));
    let h = harness_with(vec![subscribing(&state)], ClientOptions { timeout_ms: 5_000, ..ClientOptions::new("http://127.0.0.1/mcp") }, 5_000);
    let problems = Rc::new(RefCell::new(Vec::new()));
    let p2 = problems.clone();
    h.client.set_problem_handler(Some(Box::new(move |e: &Error| p2.borrow_mut().push(e.clone()))));
    block_on(h.client.connect()).unwrap();
    for uri in ["file:///a", "file:///b", "file:///c"] {
        block_on(h.client.request_checked("resources/subscribe", json!({"uri": uri}), &mut CallOptions::default())).unwrap();
    }
    {
        let mut st = state.borrow_mut();
        st.session += 1;
        st.gate = Some(Rc::new(|req: &HttpRequest| body(req)["method"] != "resources/subscribe"));
    }
    block_on(h.client.request_checked("resources/read", json!({"uri": "file:///a"}), &mut CallOptions { timeout_ms: Some(60_000), ..CallOptions::default() })).unwrap();
    let e = problems.borrow()[0].clone();
    assert_eq!(e.code, ErrorCode::Timeout, "{e}");
    assert_eq!(e.details.as_ref().unwrap()["lost"].as_array().unwrap().len(), 3);
    assert_eq!(subscribes_on(&h, "s3").len(), 3);
}

/// `connect()` during a renewal forgets the subscriptions: one that comes before the renewal
/// asked for them again shares the renewal, which asks for none; one that comes after opens a
/// session of its own, subscribed to nothing.
#[test]
fn connect_during_a_renewal_forgets_the_subscriptions() {
    for late in [false, true] {
        let (h, state, problems) = subscribed_client(SUBSCRIBABLE());
        block_on(h.client.connect()).unwrap();
        block_on(h.client.request_checked("resources/subscribe", json!({"uri": "file:///a"}), &mut CallOptions::default())).unwrap();
        let asked = Rc::new(Cell::new(false));
        {
            let mut st = state.borrow_mut();
            st.session += 1;
            let asked = asked.clone();
            // Early: the renewal's initialize waits for connect(); late: its resources/subscribe.
            let waits = if late { "resources/subscribe" } else { "initialize" };
            st.gate = Some(Rc::new(move |req: &HttpRequest| body(req)["method"] != waits || asked.get()));
        }
        let method = if late { "resources/subscribe" } else { "initialize" };
        let (_, connected) = block_on(futures_util::future::join(h.client.request_checked("resources/read", json!({"uri": "file:///a"}), &mut CallOptions::default()), async {
            for _ in 0..1_000 {
                if h.log.borrow().requests.iter().filter(|r| body(r)["method"] == method).count() == 2 {
                    break;
                }
                yield_now().await;
            }
            asked.set(true);
            h.client.connect().await
        }));
        connected.unwrap();
        let session = h.client.session_id().unwrap();
        assert_eq!(session, if late { "s4" } else { "s3" }, "late: a session of connect()'s own");
        assert_eq!(subscribes_on(&h, &session), Vec::<String>::new());
        assert!(problems.borrow().is_empty());
        // Forgotten: the next renewal asks for nothing.
        state.borrow_mut().session += 1;
        read(&h).unwrap();
        let session = h.client.session_id().unwrap();
        assert_eq!(subscribes_on(&h, &session), Vec::<String>::new(), "{session}");
    }
}

// ---- 2026-07-28 subscriptions ----

/// What a [`listening_server`] of 2026-07-28 saw and holds: each `subscriptions/listen` is
/// answered by a stream of its own (`streams`, in order), its request's id in `ids` and its filter
/// in `filters`.
#[derive(Default)]
struct Listening {
    /// The capabilities `server/discover` declares.
    caps: Value,
    streams: Vec<Live>,
    ids: Vec<Value>,
    filters: Vec<Value>,
    /// A resource whose naming in a filter the server refuses (-32002, as a JSON-RPC error).
    refuse: Option<&'static str>,
    /// `subscriptions/listen` answered 503 (its filter recorded).
    down: bool,
}

/// A 2026-07-28 server over a [`Listening`]: `server/discover`, `subscriptions/listen`,
/// `resources/read` (no contents), and `{}` for every other request.
fn listening_server(state: &Rc<RefCell<Listening>>) -> Reply {
    let state = state.clone();
    Reply::Server(Rc::new(move |req: &HttpRequest| {
        let b = body(req);
        let mut st = state.borrow_mut();
        match b["method"].as_str() {
            Some("server/discover") => Reply::Echo(json!({
                "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": st.caps,
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "m", "version": "2"}}
            })),
            Some("subscriptions/listen") => {
                st.filters.push(b["params"]["notifications"].clone());
                if st.down {
                    return status_reply(503, vec![], "");
                }
                if st.refuse.is_some_and(|r| b["params"]["notifications"]["resourceSubscriptions"].as_array().is_some_and(|a| a.iter().any(|u| u == r))) {
                    return json_reply(json!({"jsonrpc": "2.0", "id": b["id"], "error": {"code": -32002, "message": "Resource not found"}}));
                }
                let live = Live::default();
                st.streams.push(live.clone());
                st.ids.push(b["id"].clone());
                Reply::Live(live)
            }
            Some("resources/read") => Reply::Echo(json!({"contents": []})),
            _ => Reply::Echo(json!({})),
        }
    }))
}

/// A 2026-07-28 client of a [`listening_server`] declaring `caps`, its problems collected.
fn listening_client(caps: Value) -> (Harness, Rc<RefCell<Listening>>, Problems) {
    let state = Rc::new(RefCell::new(Listening { caps, ..Listening::default() }));
    let h = harness_with(vec![listening_server(&state)], modern(), 10_000);
    let problems = Rc::new(RefCell::new(Vec::new()));
    let p2 = problems.clone();
    h.client.set_problem_handler(Some(Box::new(move |e: &Error| p2.borrow_mut().push(e.clone()))));
    (h, state, problems)
}

/// The JSON-RPC methods of the POSTs sent so far.
fn posted(h: &Harness) -> Vec<String> {
    h.log.borrow().requests.iter().filter(|r| r.method == Method::Post).map(|r| body(r)["method"].as_str().unwrap_or_default().to_owned()).collect()
}

/// The list-change part of every `subscriptions/listen` filter, with `uris` as its
/// `resourceSubscriptions` when there are any.
fn filter_of(uris: &[&str]) -> Value {
    let mut f = json!({"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true});
    if !uris.is_empty() {
        f["resourceSubscriptions"] = json!(uris);
    }
    f
}

/// 2026-07-28 has no `resources/subscribe` nor `unsubscribe`: asked for by name, they are not
/// sent but change the client's subscriptions (`{}`, as the server's EmptyResult), which the
/// listening's filter asks for (`resourceSubscriptions`, in order), after the capability check a
/// 2025 request has; a URI that is no string is refused, and so is a subscription past the 256 a
/// filter asks for.
#[test]
fn subscriptions_in_2026_07_28_are_the_clients_and_go_in_the_listen_filter() {
    let (h, state, _) = listening_client(SUBSCRIBABLE());
    block_on(h.client.connect()).unwrap();
    let o = &mut CallOptions::default();
    for (method, uri) in [
        ("resources/subscribe", "file:///a"),
        ("resources/subscribe", "file:///b"),
        ("resources/subscribe", "file:///c"),
        ("resources/unsubscribe", "file:///b"),
        ("resources/subscribe", "file:///a"),
        ("resources/unsubscribe", "file:///x"),
    ] {
        assert_eq!(block_on(h.client.request_checked(method, json!({"uri": uri}), o)).unwrap(), json!({}), "{method} {uri}");
    }
    for params in [json!({"uri": 5}), json!({})] {
        let e = block_on(h.client.request_checked("resources/subscribe", params, o)).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(e.message.contains("params.uri must be a string"), "{}", e.message);
    }
    assert_eq!(posted(&h), ["server/discover"], "nothing sent for them");
    let (listened, closed) = block_on(futures_util::future::join(h.client.listen(), async {
        until(|| state.borrow().streams.len() == 1).await;
        h.client.close().await
    }));
    assert!(listened.unwrap());
    closed.unwrap();
    assert_eq!(state.borrow().filters, [filter_of(&["file:///a", "file:///c"])]);
    assert_modern(h.log.borrow().requests.iter().find(|r| body(r)["method"] == "subscriptions/listen").unwrap());

    // A server that does not declare `resources.subscribe`: refused as in 2025, and not kept.
    let (h, state, _) = listening_client(json!({"resources": {}}));
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.request_checked("resources/subscribe", json!({"uri": "file:///a"}), o)).unwrap_err();
    assert_eq!((e.code, e.details.unwrap()["capability"].clone()), (ErrorCode::CapabilityNotNegotiated, json!("resources.subscribe")));
    block_on(futures_util::future::join(h.client.listen(), async {
        until(|| state.borrow().streams.len() == 1).await;
        h.client.close().await
    }))
    .1
    .unwrap();
    assert_eq!(state.borrow().filters, [filter_of(&[])]);

    // At most 256: one more is refused; one subscribed to already is no more.
    let (h, _, _) = listening_client(SUBSCRIBABLE());
    block_on(h.client.connect()).unwrap();
    for i in 0..MAX_RESUBSCRIBED {
        block_on(h.client.request_checked("resources/subscribe", json!({"uri": format!("file:///{i}")}), o)).unwrap();
    }
    block_on(h.client.request_checked("resources/subscribe", json!({"uri": "file:///0"}), o)).unwrap();
    let e = block_on(h.client.request_checked("resources/subscribe", json!({"uri": "file:///more"}), o)).unwrap_err();
    assert_eq!((e.code, e.details.unwrap()["limit"].clone()), (ErrorCode::LimitExceeded, json!(MAX_RESUBSCRIBED)));
    assert!(e.message.contains("unsubscribe from one first"), "{}", e.message);
    block_on(h.client.request_checked("resources/unsubscribe", json!({"uri": "file:///0"}), o)).unwrap();
    block_on(h.client.request_checked("resources/subscribe", json!({"uri": "file:///more"}), o)).unwrap();
    assert_eq!(posted(&h), ["server/discover"]);
}

/// A subscription made or ended while the 2026-07-28 listening runs closes its stream (which
/// cancels it in that revision) and makes it again at once with the new filter, announcing each
/// resource kept across the change as updated (what came between the two streams is not known);
/// one that changes nothing opens nothing. A stream the server ends
/// is opened again announcing what may have been missed: the lists, and each resource subscribed
/// to as updated.
#[test]
fn a_change_of_subscriptions_makes_the_2026_07_28_listening_again() {
    let (h, state, _) = listening_client(json!({"resources": {"subscribe": true, "listChanged": true}, "tools": {"listChanged": true}}));
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    h.client.set_notification_handler(Some(Box::new(move |m, p| n2.borrow_mut().push(format!("{m} {p}")))));
    block_on(h.client.connect()).unwrap();
    let (client, st) = (&h.client, &state);
    let sub = move |method: &'static str, uri: &'static str| async move { client.request_checked(method, json!({"uri": uri}), &mut CallOptions::default()).await };
    let streams = move |n: usize| until(move || st.borrow().streams.len() == n);
    let (listened, ()) = block_on(futures_util::future::join(h.client.listen(), async {
        streams(1).await;
        sub("resources/subscribe", "file:///a").await.unwrap();
        streams(2).await;
        assert!(state.borrow().streams[0].dropped(), "the first stream closed");
        sub("resources/unsubscribe", "file:///x").await.unwrap();
        sub("resources/subscribe", "file:///a").await.unwrap();
        sub("resources/subscribe", "file:///b").await.unwrap();
        streams(3).await;
        until(|| notes.borrow().len() == 1).await;
        // The server ends it.
        state.borrow().streams[2].close();
        streams(4).await;
        sub("resources/unsubscribe", "file:///a").await.unwrap();
        streams(5).await;
        until(|| notes.borrow().len() == 6).await;
        h.client.close().await.unwrap();
    }));
    assert!(listened.unwrap());
    let st = state.borrow();
    assert_eq!(st.filters, [filter_of(&[]), filter_of(&["file:///a"]), filter_of(&["file:///a", "file:///b"]), filter_of(&["file:///a", "file:///b"]), filter_of(&["file:///b"])]);
    assert!(st.streams[1].dropped() && st.streams[3].dropped());
    assert_eq!(
        *notes.borrow(),
        [
            "notifications/resources/updated {\"uri\":\"file:///a\"}",
            "notifications/tools/list_changed {}",
            "notifications/resources/list_changed {}",
            "notifications/resources/updated {\"uri\":\"file:///a\"}",
            "notifications/resources/updated {\"uri\":\"file:///b\"}",
            "notifications/resources/updated {\"uri\":\"file:///b\"}",
        ],
        "a change announces the resources it kept; the reopening after the server ended the stream, the lists too"
    );
    assert_eq!(posted(&h).iter().filter(|m| *m == "resources/subscribe" || *m == "resources/unsubscribe").count(), 0);
}

/// A change of the app's subscriptions while the 2026-07-28 listening runs loses no notification:
/// what the stream already brought is read before it is closed, and the new one announces the
/// resources kept as updated (the server may have published in between).
#[test]
fn a_change_of_subscriptions_loses_no_notification() {
    let (h, state, _) = listening_client(SUBSCRIBABLE());
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    h.client.set_notification_handler(Some(Box::new(move |m, p| n2.borrow_mut().push(format!("{m} {p}")))));
    block_on(h.client.connect()).unwrap();
    let o = &mut CallOptions::default();
    block_on(h.client.request_checked("resources/subscribe", json!({"uri": "file:///a"}), o)).unwrap();
    let (listened, ()) = block_on(futures_util::future::join(h.client.listen(), async {
        until(|| state.borrow().streams.len() == 1).await;
        // Arrived, not read yet, when the change comes.
        state.borrow().streams[0].message(&json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "file:///a", "n": 1}}));
        h.client.request_checked("resources/subscribe", json!({"uri": "file:///b"}), &mut CallOptions::default()).await.unwrap();
        until(|| state.borrow().streams.len() == 2 && notes.borrow().len() == 2).await;
        h.client.close().await.unwrap();
    }));
    assert!(listened.unwrap());
    assert_eq!(state.borrow().filters, [filter_of(&["file:///a"]), filter_of(&["file:///a", "file:///b"])]);
    assert_eq!(
        *notes.borrow(),
        ["notifications/resources/updated {\"uri\":\"file:///a\",\"n\":1}", "notifications/resources/updated {\"uri\":\"file:///a\"}"],
        "the one that came, then the reopening's for the resource kept"
    );
}

/// A server that refuses the filter a change of the app's subscriptions made (a JSON-RPC error,
/// here for a resource it does not know): the resources the change added are forgotten and told
/// by the problem handler with the server's error, and the listening goes on with the filter
/// before the change; a later listen() is not refused for them.
#[test]
fn a_refused_change_of_subscriptions_forgets_what_it_added_and_listens_on() {
    let (h, state, problems) = listening_client(SUBSCRIBABLE());
    state.borrow_mut().refuse = Some("file:///missing");
    block_on(h.client.connect()).unwrap();
    block_on(h.client.request_checked("resources/subscribe", json!({"uri": "file:///a"}), &mut CallOptions::default())).unwrap();
    let (listened, ()) = block_on(futures_util::future::join(h.client.listen(), async {
        until(|| state.borrow().streams.len() == 1).await;
        h.client.request_checked("resources/subscribe", json!({"uri": "file:///missing"}), &mut CallOptions::default()).await.unwrap();
        until(|| state.borrow().streams.len() == 2).await;
        assert!(!state.borrow().streams[1].dropped());
        h.client.close().await.unwrap();
    }));
    assert!(listened.unwrap());
    assert_eq!(state.borrow().filters, [filter_of(&["file:///a"]), filter_of(&["file:///a", "file:///missing"]), filter_of(&["file:///a"])]);
    let problems = problems.borrow();
    assert_eq!(problems.len(), 1, "{problems:?}");
    let e = &problems[0];
    assert!(e.message.starts_with("the server refused the subscriptions/listen (MCP 2026-07-28) that asked for 1 resource the app subscribed to: file:///missing ("), "{}", e.message);
    assert!(e.message.contains("Resource not found"), "{}", e.message);
    let lost = &e.details.as_ref().unwrap()["lost"];
    assert_eq!(lost[0]["uri"], "file:///missing");
    assert!(lost[0]["message"].as_str().unwrap().contains("Resource not found"), "{lost}");
}

/// A 2026-07-28 client of a [`listening_server`] whose clock ends at once the waits up to 1 s
/// only (longer ones never end of themselves), its notifications collected.
fn slow_listening_client(caps: Value) -> (Harness, Rc<RefCell<Listening>>, Notes, Problems) {
    let state = Rc::new(RefCell::new(Listening { caps, ..Listening::default() }));
    let h = harness_with(vec![listening_server(&state)], modern(), 1000);
    let (notes, problems) = (Rc::new(RefCell::new(Vec::new())), Rc::new(RefCell::new(Vec::new())));
    let (n2, p2) = (notes.clone(), problems.clone());
    h.client.set_notification_handler(Some(Box::new(move |m, p| n2.borrow_mut().push(format!("{m} {p}")))));
    h.client.set_problem_handler(Some(Box::new(move |e: &Error| p2.borrow_mut().push(e.clone()))));
    (h, state, notes, problems)
}

/// A change of the app's subscriptions while the 2026-07-28 listening waits to reopen a stream
/// the server ended (spaced ever more while streams end at once) ends the wait: the new filter
/// is sent then, not when the wait would have ended, but no sooner than 1 s after the stream
/// ended; the reopening announces what any reopening does, and the spacing goes on (the stream
/// so opened that ends at once is one more idle one). A close() during the wait ends listen().
#[test]
fn a_change_of_subscriptions_ends_the_wait_before_a_reopening() {
    let (h, state, notes, _) = slow_listening_client(SUBSCRIBABLE());
    block_on(h.client.connect()).unwrap();
    let (client, st) = (&h.client, &state);
    let sub = move |uri: &'static str| async move { client.request_checked("resources/subscribe", json!({"uri": uri}), &mut CallOptions::default()).await.unwrap() };
    let streams = move |n: usize| until(move || st.borrow().streams.len() == n);
    let (listened, ()) = block_on(futures_util::future::join(h.client.listen(), async {
        streams(1).await;
        state.borrow().streams[0].close();
        streams(2).await;
        state.borrow().streams[1].close();
        // Waiting 1.5 s: a change 1 s after the stream ended reopens at once.
        until(|| waits(&h).len() == 2).await;
        h.clock.advance(1000);
        sub("file:///a").await;
        streams(3).await;
        state.borrow().streams[2].close();
        // Waiting 2.25 s: a change at once after the end waits out the first second.
        until(|| waits(&h).len() == 3).await;
        sub("file:///b").await;
        streams(4).await;
        state.borrow().streams[3].close();
        until(|| waits(&h).len() == 5).await;
        h.client.close().await.unwrap();
    }));
    assert_eq!(listened, Ok(true), "ended by close() during the wait");
    assert_eq!(waits(&h), [1000, 1500, 2250, 1000, 3375]);
    assert_eq!(state.borrow().filters, [filter_of(&[]), filter_of(&[]), filter_of(&["file:///a"]), filter_of(&["file:///a", "file:///b"])]);
    assert_eq!(
        *notes.borrow(),
        [
            "notifications/tools/list_changed {}",
            "notifications/tools/list_changed {}",
            "notifications/resources/updated {\"uri\":\"file:///a\"}",
            "notifications/tools/list_changed {}",
            "notifications/resources/updated {\"uri\":\"file:///a\"}",
            "notifications/resources/updated {\"uri\":\"file:///b\"}",
        ],
        "each reopening announces the lists and the resources subscribed to"
    );
}

/// A change of the app's subscriptions during the backoff after a failed reopening ends the wait
/// too, but no sooner than 1 s after the failure, and the failures count on: an app that
/// subscribes in a loop neither asks a failing server more than once a second nor keeps
/// listen() from giving up after `max_retries` failures in a row.
#[test]
fn a_change_of_subscriptions_during_a_backoff_keeps_a_gap_and_the_failures() {
    let (h, state, _, _) = slow_listening_client(SUBSCRIBABLE());
    block_on(h.client.connect()).unwrap();
    let (client, st) = (&h.client, &state);
    let sub = move |uri: &'static str| async move { client.request_checked("resources/subscribe", json!({"uri": uri}), &mut CallOptions::default()).await.unwrap() };
    let asked = move |n: usize| until(move || st.borrow().filters.len() == n);
    let (listened, ()) = block_on(futures_util::future::join(h.client.listen(), async {
        asked(1).await;
        state.borrow_mut().down = true;
        state.borrow().streams[0].close();
        asked(2).await;
        until(|| waits(&h).len() == 2).await;
        h.clock.advance(400);
        sub("file:///a").await;
        asked(3).await;
        until(|| waits(&h).len() == 4).await;
        sub("file:///b").await;
        asked(4).await;
        until(|| waits(&h).len() == 5).await;
        h.client.close().await.unwrap();
    }));
    let e = listened.unwrap_err();
    assert_eq!((e.code, e.details.unwrap()["status"].clone()), (ErrorCode::Protocol, json!(503)));
    // 1 s after the stream ended; 1.5 s after the first failure (cut to what was left of 1 s),
    // 2.25 s after the second (cut to 1 s); the third failure is one too many.
    assert_eq!(waits(&h), [1000, 1500, 600, 2250, 1000]);
    assert_eq!(state.borrow().filters, [filter_of(&[]), filter_of(&[]), filter_of(&["file:///a"]), filter_of(&["file:///a", "file:///b"])]);
}

/// A server that refuses the filter of a reopening after a change of the app's subscriptions
/// made during the wait (not on an open stream) loses the resources added since the last stream
/// opened, as a change on the stream does, and the listening goes on without them: the refusal
/// is no failure of the server's toward listen() giving up.
#[test]
fn a_filter_changed_during_a_wait_and_refused_forgets_what_was_added() {
    let (h, state, _, problems) = slow_listening_client(SUBSCRIBABLE());
    state.borrow_mut().refuse = Some("file:///missing");
    block_on(h.client.connect()).unwrap();
    block_on(h.client.request_checked("resources/subscribe", json!({"uri": "file:///a"}), &mut CallOptions::default())).unwrap();
    let (listened, ()) = block_on(futures_util::future::join(h.client.listen(), async {
        for n in [1, 2] {
            until(|| state.borrow().streams.len() == n).await;
            state.borrow().streams[n - 1].close();
        }
        // Waiting 1.5 s.
        until(|| waits(&h).len() == 2).await;
        h.clock.advance(1000);
        h.client.request_checked("resources/subscribe", json!({"uri": "file:///missing"}), &mut CallOptions::default()).await.unwrap();
        until(|| state.borrow().streams.len() == 3).await;
        h.client.close().await.unwrap();
    }));
    assert_eq!(listened, Ok(true));
    let a = filter_of(&["file:///a"]);
    assert_eq!(state.borrow().filters, [a.clone(), a.clone(), filter_of(&["file:///a", "file:///missing"]), a]);
    assert_eq!(waits(&h), [1000, 1500]);
    let problems = problems.borrow();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].details.as_ref().unwrap()["lost"][0]["uri"], "file:///missing");
}

/// An aborted signal given to a 2026-07-28 subscribe or unsubscribe: ABORTED, as a request sent
/// would be, and the client's subscriptions unchanged.
#[test]
fn an_aborted_subscription_change_changes_nothing() {
    let (h, state, _) = listening_client(SUBSCRIBABLE());
    block_on(h.client.connect()).unwrap();
    block_on(h.client.request_checked("resources/subscribe", json!({"uri": "file:///a"}), &mut CallOptions::default())).unwrap();
    for (method, uri) in [("resources/subscribe", "file:///b"), ("resources/unsubscribe", "file:///a")] {
        let mut opts = CallOptions { cancel: Some(Box::pin(async {})), ..CallOptions::default() };
        let e = block_on(h.client.request_checked(method, json!({"uri": uri}), &mut opts)).unwrap_err();
        assert_eq!(e.code, ErrorCode::Aborted, "{method}: {e}");
        assert!(e.message.contains("subscriptions are as they were"), "{}", e.message);
    }
    block_on(futures_util::future::join(h.client.listen(), async {
        until(|| state.borrow().streams.len() == 1).await;
        h.client.close().await
    }))
    .1
    .unwrap();
    assert_eq!(state.borrow().filters, [filter_of(&["file:///a"])]);
}

/// The server's acknowledgement of a 2026-07-28 subscription holds the part of the filter it
/// honors: the resources it leaves out are forgotten and told once, by the problem handler (as
/// a renewed session's lost subscriptions are), and not asked for again. The notification handler
/// hears the acknowledgement too; one naming another subscription is not read.
#[test]
fn an_acknowledgement_that_leaves_subscriptions_out_forgets_and_reports_them() {
    let (h, state, problems) = listening_client(SUBSCRIBABLE());
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    h.client.set_notification_handler(Some(Box::new(move |m, _| n2.borrow_mut().push(m.to_owned()))));
    block_on(h.client.connect()).unwrap();
    for uri in ["file:///a", "file:///b", "file:///c"] {
        block_on(h.client.request_checked("resources/subscribe", json!({"uri": uri}), &mut CallOptions::default())).unwrap();
    }
    let ack = |id: &Value, honored: &[&str]| {
        let mut n = json!({"toolsListChanged": true});
        if !honored.is_empty() {
            n["resourceSubscriptions"] = json!(honored);
        }
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {"notifications": n, "_meta": {"io.modelcontextprotocol/subscriptionId": id}}})
    };
    let (listened, ()) = block_on(futures_util::future::join(h.client.listen(), async {
        until(|| state.borrow().streams.len() == 1).await;
        let (live, id) = (state.borrow().streams[0].clone(), state.borrow().ids[0].clone());
        live.message(&ack(&json!(99), &[]));
        live.message(&ack(&id, &["file:///a"]));
        until(|| problems.borrow().len() == 1).await;
        live.close();
        until(|| state.borrow().streams.len() == 2).await;
        let (live, id) = (state.borrow().streams[1].clone(), state.borrow().ids[1].clone());
        live.message(&ack(&id, &["file:///a"]));
        until(|| notes.borrow().iter().filter(|m| m.ends_with("acknowledged")).count() == 3).await;
        h.client.close().await.unwrap();
    }));
    assert!(listened.unwrap());
    assert_eq!(state.borrow().filters, [filter_of(&["file:///a", "file:///b", "file:///c"]), filter_of(&["file:///a"])]);
    let problems = problems.borrow();
    assert_eq!(problems.len(), 1, "told once: {problems:?}");
    let e = &problems[0];
    assert_eq!(e.code, ErrorCode::CapabilityNotNegotiated);
    assert!(e.message.starts_with("the server's acknowledgement of subscriptions/listen (MCP 2026-07-28) leaves out 2 resources the app subscribed to: file:///b ("), "{}", e.message);
    assert!(e.message.contains("request resources/subscribe again once the server has them"), "{}", e.message);
    let lost: Vec<Value> = e.details.as_ref().unwrap()["lost"].as_array().unwrap().iter().map(|l| l["uri"].clone()).collect();
    assert_eq!(lost, [json!("file:///b"), json!("file:///c")]);
}

/// An auto-era renewal that finds the server turned to 2026-07-28 keeps the app's subscriptions:
/// nothing is sent for them, and the listening's filter asks for them (nothing told). A server
/// of that revision that does not declare `resources.subscribe` cannot keep them: forgotten, and
/// told. `connect()` forgets them, as in 2025.
#[test]
fn a_renewal_into_2026_07_28_keeps_the_subscriptions_for_the_listening() {
    for declared in [true, false] {
        let turned = Rc::new(Cell::new(false));
        let state = Rc::new(RefCell::new(Listening { caps: if declared { SUBSCRIBABLE() } else { json!({"resources": {}}) }, ..Listening::default() }));
        let (t, modern_server) = (turned.clone(), listening_server(&state));
        let Reply::Server(modern_server) = modern_server else { unreachable!() };
        let h = harness(vec![Reply::Server(Rc::new(move |req: &HttpRequest| {
            let b = body(req);
            match (t.get(), b["method"].as_str()) {
                (false, Some("initialize")) => init_declaring(b["id"].as_i64().unwrap(), "s1", SUBSCRIBABLE()),
                (false, _) if b["id"].is_null() => accepted(),
                (false, Some("resources/read")) => Reply::Echo(json!({"contents": []})),
                (false, _) => Reply::Echo(json!({})),
                (true, Some("initialize")) => rpc_status(400, -32020, Value::Null),
                (true, _) if header(req, "mcp-session-id").is_some() => status_reply(404, vec![], ""),
                (true, _) => modern_server(req),
            }
        }))]);
        let problems = Rc::new(RefCell::new(Vec::new()));
        let p2 = problems.clone();
        h.client.set_problem_handler(Some(Box::new(move |e: &Error| p2.borrow_mut().push(e.clone()))));
        block_on(h.client.connect()).unwrap();
        for uri in ["file:///a", "file:///b"] {
            block_on(h.client.request_checked("resources/subscribe", json!({"uri": uri}), &mut CallOptions::default())).unwrap();
        }
        turned.set(true);
        block_on(h.client.request_checked("resources/read", json!({"uri": "file:///a"}), &mut CallOptions::default())).unwrap();
        assert!(h.client.is_modern());
        block_on(futures_util::future::join(h.client.listen(), async {
            until(|| state.borrow().streams.len() == 1).await;
            h.client.close().await
        }))
        .1
        .unwrap();
        assert_eq!(
            posted(&h),
            ["initialize", "notifications/initialized", "resources/subscribe", "resources/subscribe", "resources/read", "initialize", "server/discover", "resources/read", "subscriptions/listen"],
            "declared: {declared}"
        );
        let problems = problems.borrow();
        if declared {
            assert_eq!(state.borrow().filters, [filter_of(&["file:///a", "file:///b"])]);
            assert!(problems.is_empty(), "{problems:?}");
        } else {
            assert_eq!(state.borrow().filters, [filter_of(&[])]);
            assert_eq!(problems.len(), 1);
            assert_eq!(problems[0].code, ErrorCode::CapabilityNotNegotiated);
            assert!(problems[0].message.starts_with("the client connected again, in MCP 2026-07-28 (the server speaks it now), but cannot keep 2 resources the app subscribed to: file:///a (the server does not declare resources.subscribe)"), "{}", problems[0].message);
        }
    }

    // connect() forgets them: the next listening asks for none.
    let (h, state, _) = listening_client(SUBSCRIBABLE());
    block_on(h.client.connect()).unwrap();
    block_on(h.client.request_checked("resources/subscribe", json!({"uri": "file:///a"}), &mut CallOptions::default())).unwrap();
    block_on(h.client.connect()).unwrap();
    block_on(futures_util::future::join(h.client.listen(), async {
        until(|| state.borrow().streams.len() == 1).await;
        h.client.close().await
    }))
    .1
    .unwrap();
    assert_eq!(state.borrow().filters, [filter_of(&[])]);
}

/// The other way: an auto-era renewal that finds a 2026-07-28 server redeployed as a 2025 one
/// subscribes the new session to the resources the app subscribed to, as a 2025 renewal does.
#[test]
fn a_renewal_into_2025_subscribes_the_session_to_the_apps_resources() {
    let turned = Rc::new(Cell::new(false));
    let state = Rc::new(RefCell::new(Listening { caps: SUBSCRIBABLE(), ..Listening::default() }));
    let (t, modern_server) = (turned.clone(), listening_server(&state));
    let Reply::Server(modern_server) = modern_server else { unreachable!() };
    let session_required = || {
        let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request: Mcp-Session-Id header is required"}});
        status_reply(400, vec![("content-type", "application/json".into())], &body.to_string())
    };
    let h = harness(vec![Reply::Server(Rc::new(move |req: &HttpRequest| {
        let b = body(req);
        match (t.get(), b["method"].as_str()) {
            (false, Some("initialize")) => rpc_status(400, -32020, Value::Null),
            (false, _) => modern_server(req),
            (true, Some("initialize")) => init_declaring(b["id"].as_i64().unwrap(), "s1", SUBSCRIBABLE()),
            (true, _) if header(req, "mcp-session-id").is_none() => session_required(),
            (true, _) if b["id"].is_null() => accepted(),
            (true, Some("resources/read")) => Reply::Echo(json!({"contents": []})),
            (true, _) => Reply::Echo(json!({})),
        }
    }))]);
    block_on(h.client.connect()).unwrap();
    for uri in ["file:///a", "file:///b"] {
        block_on(h.client.request_checked("resources/subscribe", json!({"uri": uri}), &mut CallOptions::default())).unwrap();
    }
    assert_eq!(posted(&h), ["initialize", "server/discover"]);
    turned.set(true);
    block_on(h.client.request_checked("resources/read", json!({"uri": "file:///a"}), &mut CallOptions::default())).unwrap();
    assert!(!h.client.is_modern());
    assert_eq!(subscribes_on(&h, "s1"), ["file:///a", "file:///b"]);
    assert_eq!(posted(&h)[2..], ["resources/read", "server/discover", "initialize", "notifications/initialized", "resources/subscribe", "resources/subscribe", "resources/read"]);
}

/// `ping` and `logging/setLevel` are no requests of 2026-07-28 (its servers answer them -32601):
/// asked for by name of such a server, they are refused unsent, saying what the revision has
/// instead. A 2025 server is sent them.
#[test]
fn ping_and_set_level_are_not_sent_to_a_2026_07_28_server() {
    let (h, _, _) = listening_client(json!({"logging": {}, "tools": {}}));
    block_on(h.client.connect()).unwrap();
    for (method, params, says) in [("ping", json!({}), "the revision has no ping"), ("logging/setLevel", json!({"level": "info"}), "give the client's logLevel option")] {
        let e = block_on(h.client.request_checked(method, params, &mut CallOptions::default())).unwrap_err();
        assert_eq!(e.code, ErrorCode::CapabilityNotNegotiated, "{method}");
        assert!(e.message.starts_with(&format!("{method} is no request of MCP 2026-07-28, which the server speaks, so it was not sent: ")) && e.message.contains(says), "{}", e.message);
    }
    assert_eq!(posted(&h), ["server/discover"]);
    let logging = json!({"logging": {}});
    let h = harness(vec![init_declaring(0, "s", logging), accepted(), Reply::Echo(json!({})), Reply::Echo(json!({}))]);
    block_on(h.client.connect()).unwrap();
    block_on(h.client.request_checked("ping", json!({}), &mut CallOptions::default())).unwrap();
    block_on(h.client.request_checked("logging/setLevel", json!({"level": "info"}), &mut CallOptions::default())).unwrap();
    assert_eq!(posted(&h), ["initialize", "notifications/initialized", "ping", "logging/setLevel"]);
}

/// A handshake that times out or is aborted says it was given up, not cancelled: MCP never
/// cancels `initialize`, and nothing is sent after it; a request after the handshake is cancelled,
/// and says so.
#[test]
fn a_handshake_given_up_says_so_and_sends_no_cancellation() {
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.timeout_ms = 50;
    let h = harness_with(vec![Reply::Hang], opts, 10_000);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    assert_eq!(e.message, "initialize timed out after 50 ms; the handshake was given up (initialize is never cancelled)");
    let methods: Vec<Value> = h.log.borrow().requests.iter().map(|r| body(r)["method"].clone()).collect();
    assert_eq!(methods, [json!("initialize")]);

    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.timeout_ms = 50;
    let h = harness_with(vec![init_reply("2025-11-25", Some("s")), accepted(), Reply::Hang, accepted()], opts, 10_000);
    block_on(h.client.connect()).unwrap();
    let e = block_on(h.client.call_tool("slow", json!({}), &mut CallOptions::default())).unwrap_err();
    assert_eq!(e.message, "tools/call timed out after 50 ms; the request was cancelled");
    let methods: Vec<Value> = h.log.borrow().requests.iter().map(|r| body(r)["method"].clone()).collect();
    assert_eq!(methods.last(), Some(&json!("notifications/cancelled")));
}

/// An https:// URL to a server that speaks plain HTTP fails in the TLS handshake: the message says
/// so (not "unreachable": the server runs), on one line.
#[test]
fn an_https_url_to_a_plain_http_server_says_so() {
    let detail = "TypeError: fetch failed: 806C2F5C2A7F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:355:\n";
    let e = transport_error(TransportError::Network(detail.into()), "initialize");
    assert_eq!(e.code, ErrorCode::Network);
    assert!(e.message.ends_with("the TLS handshake failed: a server that speaks plain HTTP on that port answers an https:// URL so; is it http://?"), "{e}");
    assert!(!e.message.contains('\n') && e.message.contains("wrong version number"), "{e}");
    for detail in ["TypeError: Failed to fetch (net::ERR_SSL_PROTOCOL_ERROR)", "SSL_ERROR_RX_RECORD_TOO_LONG"] {
        assert!(transport_error(TransportError::Network(detail.into()), "initialize").message.contains("is it http://?"), "{detail}");
    }
    // Another failure keeps its own hint.
    let e = transport_error(TransportError::Network("TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:9".into()), "initialize");
    assert!(!e.message.contains("TLS") && e.message.contains("no HTTP response (TypeError: fetch failed: connect ECONNREFUSED"), "{e}");
}

/// `reset_timeout_on_progress` without `on_progress` still asks for progress (a progress token:
/// a server sends none otherwise) and starts the timeout again at each: the call outlives its
/// timeout while progress comes, and times out once it stops.
#[test]
fn reset_on_progress_asks_for_progress_without_a_handler() {
    let (call, stalled) = (Live::default(), Live::default());
    let (transport, log) = scripted(vec![init_reply("2025-11-25", Some("s")), accepted(), Reply::Live(call.clone()), Reply::Live(stalled.clone())]);
    let clock = Manual::default();
    let mut opts = ClientOptions::new("http://127.0.0.1/mcp");
    opts.timeout_ms = 100;
    let client = Client::new(transport, clock.clone(), opts);
    block_on(client.connect()).unwrap();
    let progress = |token: i64, n: i64| json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": n}});
    let settle = || async {
        for _ in 0..50 {
            yield_now().await;
        }
    };
    let reset = || CallOptions { reset_timeout_on_progress: true, ..CallOptions::default() };
    let (first, second) = block_on(async {
        let mut a = reset();
        let first = futures_util::join!(client.call_tool("a", json!({}), &mut a), async {
            settle().await;
            for n in 1..=3 {
                clock.advance(60);
                call.message(&progress(1, n));
                settle().await;
            }
            // 180 ms since the call, 60 since its last progress.
            call.message(&json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}));
            settle().await;
        })
        .0;
        let mut b = reset();
        let second = futures_util::join!(client.call_tool("b", json!({}), &mut b), async {
            settle().await;
            clock.advance(60);
            stalled.message(&progress(2, 1));
            settle().await;
            clock.advance(101);
            settle().await;
        })
        .0;
        (first, second)
    });
    assert_eq!(first.unwrap(), json!({"content": []}));
    assert_eq!(body(&log.borrow().requests[2])["params"]["_meta"]["progressToken"], 1);
    let e = second.unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    assert!(e.message.contains("timed out after 100 ms without progress"), "{}", e.message);
}
