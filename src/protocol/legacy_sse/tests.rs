//! The client over [`LegacySse`] against a fake server of the deprecated HTTP+SSE transport, made
//! as server-everything's `sse` mode is (the TypeScript SDK's `SSEServerTransport` behind Express):
//! GET /sse opens the shared stream, whose first event names `/message?sessionId=s<n>`; a POST
//! there is answered 202 and what it asks for comes on the stream; a POST to /sse is Express's 404
//! page; a POST for a session whose stream has closed is never answered.

use std::cell::RefCell;
use std::rc::Rc;

use futures_executor::block_on;
use serde_json::{json, Value};

use super::*;
use crate::protocol::client::tests::{body, bounded, fake_clock, header, scripted, status_reply, FakeClock, Live, Log, Reply, Scripted, CANNOT_POST};
use crate::protocol::client::{CallOptions, Client, ClientOptions};
use crate::protocol::transport::{Clock as _, HttpRequest, Method};

const SSE_URL: &str = "http://127.0.0.1:3001/sse";

type Handler = Box<dyn FnMut(&Value, &Live) -> Reply>;

struct Fake {
    /// Every stream opened, in order: session `s<n>` is the n-th.
    streams: RefCell<Vec<Live>>,
    /// The endpoint event's data for session n.
    endpoint: Box<dyn Fn(usize) -> String>,
    /// What a POST to /sse gets.
    post_status: u16,
    /// Whether GET /sse is the event stream (else Express's 404 page).
    get_sse: bool,
    /// What the server does with a message POSTed for an open session.
    on_message: RefCell<Handler>,
}

impl Fake {
    fn new() -> Rc<Self> {
        Self::with(Box::new(standard))
    }

    fn with(on_message: Handler) -> Rc<Self> {
        Rc::new(Self {
            streams: RefCell::default(),
            endpoint: Box::new(|n| format!("/message?sessionId=s{n}")),
            post_status: 404,
            get_sse: true,
            on_message: RefCell::new(on_message),
        })
    }

    fn stream(&self, n: usize) -> Live {
        self.streams.borrow()[n - 1].clone()
    }

    /// The server, as the scripted transport's one reply to everything.
    fn serve(self: &Rc<Self>) -> Reply {
        let fake = self.clone();
        Reply::Server(Rc::new(move |req: &HttpRequest| {
            let html = vec![("content-type", "text/html; charset=utf-8".to_owned())];
            match (req.method, req.url.as_str()) {
                (Method::Get, SSE_URL) if fake.get_sse => {
                    let live = Live::default();
                    fake.streams.borrow_mut().push(live.clone());
                    let n = fake.streams.borrow().len();
                    live.push(&format!("event: endpoint\ndata: {}\n\n", (fake.endpoint)(n)));
                    Reply::Live(live)
                }
                (Method::Get, _) => status_reply(404, html, &CANNOT_POST.replace("POST", "GET")),
                (Method::Post, SSE_URL) => status_reply(fake.post_status, html, CANNOT_POST),
                (Method::Post, url) => {
                    let n: usize = url.rsplit("sessionId=s").next().and_then(|n| n.parse().ok()).unwrap_or(0);
                    let Some(live) = fake.streams.borrow().get(n.wrapping_sub(1)).cloned() else { return status_reply(400, vec![], "no session") };
                    if live.closed() {
                        // server-everything: "No transport found", and the POST is never answered.
                        return Reply::Hang;
                    }
                    (fake.on_message.borrow_mut())(&body(req), &live)
                }
                _ => status_reply(405, vec![], ""),
            }
        }))
    }
}

/// The server-everything of 2024-11-05: `initialize`, `tools/list`, `tools/call` (echo).
fn standard(msg: &Value, live: &Live) -> Reply {
    let id = msg["id"].clone();
    let result = match msg["method"].as_str() {
        Some("initialize") => json!({"protocolVersion": "2024-11-05", "capabilities": {"tools": {}, "logging": {}}, "serverInfo": {"name": "legacy", "version": "1"}}),
        Some("tools/list") => json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        Some("tools/call") => json!({"content": [{"type": "text", "text": msg.pointer("/params/arguments/message").cloned().unwrap_or(Value::Null)}]}),
        _ => return crate::protocol::client::tests::accepted(),
    };
    live.message(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    crate::protocol::client::tests::accepted()
}

type Legacy = Client<LegacySse<Scripted>, FakeClock>;

fn client_with(fake: &Rc<Fake>, url: &str, choice: TransportChoice, opts: ClientOptions, instant_ms: u64) -> (Legacy, Rc<RefCell<Log>>) {
    let (transport, log) = scripted(vec![fake.serve()]);
    let (clock, _) = fake_clock(instant_ms);
    (Client::new(LegacySse::new(transport, url, choice), clock, opts), log)
}

fn client(fake: &Rc<Fake>) -> (Legacy, Rc<RefCell<Log>>) {
    client_with(fake, SSE_URL, TransportChoice::Auto, ClientOptions::new(SSE_URL), 10_000)
}

/// `METHOD url [JSON-RPC method]` of every request that went out.
fn wire(log: &Rc<RefCell<Log>>) -> Vec<String> {
    log.borrow()
        .requests
        .iter()
        .map(|r| {
            let m = body(r)["method"].as_str().map(|m| format!(" {m}")).unwrap_or_default();
            format!("{} {}{m}", r.method.as_str(), r.url.trim_start_matches("http://127.0.0.1:3001"))
        })
        .collect()
}

fn waiters(c: &Legacy) -> usize {
    c.transport().conn.borrow().as_ref().map_or(0, |c| c.state.borrow().waiters.len())
}

#[test]
fn auto_finds_the_endpoint_and_speaks_2024_11_05_over_it() {
    let fake = Fake::new();
    let (c, log) = client(&fake);
    assert_eq!(c.mcp_transport(), None, "not known before the handshake");
    block_on(c.connect()).unwrap();
    assert_eq!(c.mcp_transport(), Some(McpTransport::Sse));
    assert_eq!(c.protocol_version().as_deref(), Some("2024-11-05"));
    assert_eq!(c.server_info().unwrap()["name"], "legacy");
    assert_eq!(c.session_id().as_deref(), Some("s1"), "the endpoint's sessionId");
    let tools = block_on(c.list_tools()).unwrap();
    assert_eq!(tools[0]["name"], "echo");
    let r = block_on(c.call_tool("echo", json!({"message": "hi"}), &mut CallOptions::default())).unwrap();
    assert_eq!(r["content"][0]["text"], "hi");
    assert_eq!(
        wire(&log),
        [
            "POST /sse initialize",
            "GET /sse",
            "POST /message?sessionId=s1 initialize",
            "POST /message?sessionId=s1 notifications/initialized",
            "POST /message?sessionId=s1 tools/list",
            "POST /message?sessionId=s1 tools/call",
        ]
    );
    let log = log.borrow();
    let get = &log.requests[1];
    assert_eq!(header(get, "accept"), Some("text/event-stream"));
    // Streamable HTTP's headers stay home: the server's CORS may not allow them.
    for r in &log.requests[1..] {
        assert!(r.headers.iter().all(|(k, _)| !k.starts_with("mcp-")), "{:?}", r.headers);
    }
    assert_eq!(header(&log.requests[2], "content-type"), Some("application/json"));
    assert_eq!(waiters(&c), 0, "nothing waits once the requests are answered");
}

/// The app's own headers go on the GET and every POST, `Mcp-*` ones too (an `Mcp-Api-Key`): only
/// those the client sets itself stay home.
#[test]
fn the_apps_own_mcp_headers_go_on_the_get_and_every_post() {
    let fake = Fake::new();
    let mut opts = ClientOptions::new(SSE_URL);
    opts.headers = vec![("Mcp-Api-Key".into(), "k-123".into()), ("x-api-key".into(), "k-456".into())];
    let (c, log) = client_with(&fake, SSE_URL, TransportChoice::Auto, opts, 10);
    block_on(c.connect()).unwrap();
    block_on(c.list_tools()).unwrap();
    let log = log.borrow();
    assert_eq!(log.requests.len(), 5);
    let header = |r: &HttpRequest, name: &str| r.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
    for r in &log.requests {
        assert_eq!(header(r, "mcp-api-key").as_deref(), Some("k-123"), "{} {}", r.method.as_str(), r.url);
        assert_eq!(header(r, "x-api-key").as_deref(), Some("k-456"));
    }
    for r in &log.requests[1..] {
        assert!(r.headers.iter().all(|(k, _)| !crate::protocol::headers::client_owned(&k.to_ascii_lowercase())), "{:?}", r.headers);
    }
}

/// A 2024-11-05 answer over Streamable HTTP (an older server behind a gateway) is taken, as the MCP
/// SDK's client takes it, and sent back in `MCP-Protocol-Version`; 2024-10-07 is still refused.
#[test]
fn streamable_http_takes_2024_11_05_too() {
    use crate::protocol::client::tests::{accepted, harness_with, init_reply, json_reply};
    let h = harness_with(
        vec![init_reply("2024-11-05", Some("s1")), accepted(), json_reply(json!({"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo"}]}}))],
        ClientOptions::new("http://127.0.0.1/mcp"),
        10,
    );
    block_on(h.client.connect()).unwrap();
    assert_eq!(h.client.protocol_version().as_deref(), Some("2024-11-05"));
    assert_eq!(h.client.mcp_transport(), Some(McpTransport::StreamableHttp));
    assert_eq!(block_on(h.client.list_tools()).unwrap().len(), 1);
    for r in &h.log.borrow().requests[1..] {
        assert_eq!(header(r, "mcp-protocol-version"), Some("2024-11-05"));
    }
    let h = harness_with(vec![init_reply("2024-10-07", None)], ClientOptions::new("http://127.0.0.1/mcp"), 10);
    let e = block_on(h.client.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedProtocolVersion);
    assert!(e.message.ends_with("toolwire speaks 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05"), "{}", e.message);
}

#[test]
fn auto_falls_back_on_400_404_and_405_and_keeps_its_verdict() {
    for status in [400, 404, 405] {
        let mut fake = Fake::new();
        Rc::get_mut(&mut fake).unwrap().post_status = status;
        let (c, log) = client(&fake);
        block_on(c.connect()).unwrap();
        assert_eq!(c.mcp_transport(), Some(McpTransport::Sse), "{status}");
        // Connecting again ends the session (the stream, not a DELETE sent) and opens another,
        // without asking Streamable HTTP again.
        block_on(c.connect()).unwrap();
        assert!(fake.stream(1).dropped(), "the first stream's GET was aborted");
        assert_eq!(c.session_id().as_deref(), Some("s2"));
        let wire = wire(&log);
        assert_eq!(wire.iter().filter(|w| w.starts_with("POST /sse")).count(), 1, "{wire:?}");
        assert_eq!(wire.iter().filter(|w| *w == "GET /sse").count(), 2, "{wire:?}");
        assert!(!wire.iter().any(|w| w.starts_with("DELETE")), "{wire:?}");
        block_on(c.close()).unwrap();
        assert!(fake.stream(2).dropped());
    }
}

#[test]
fn no_fallback_when_the_get_is_no_event_stream_or_the_refusal_is_json_rpc() {
    let mut fake = Fake::new();
    Rc::get_mut(&mut fake).unwrap().get_sse = false;
    let (c, log) = client(&fake);
    let e = block_on(c.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::HttpStatus);
    assert_eq!(e.details.as_ref().unwrap()["status"], 404);
    assert!(
        e.message.starts_with("initialize: HTTP 404: Error Cannot POST /sse; the URL may not be an MCP endpoint: nothing there takes MCP's POSTs (Streamable HTTP), nor does a GET there open the event stream"),
        "{}",
        e.message
    );
    assert_eq!(wire(&log), ["POST /sse initialize", "GET /sse"]);
    assert_eq!(c.mcp_transport(), None, "still undecided: the next connect() looks again");

    // An MCP server's own refusal (a JSON-RPC error) is no sign of the old transport: no GET.
    let rpc = r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32000,"message":"Bad Request: Unsupported protocol version"}}"#;
    let (transport, log) = scripted(vec![status_reply(400, vec![("content-type", "application/json".into())], rpc)]);
    let c = Client::new(LegacySse::new(transport, SSE_URL, TransportChoice::Auto), fake_clock(10).0, ClientOptions::new(SSE_URL));
    let e = block_on(c.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::HttpStatus);
    assert_eq!(e.details.as_ref().unwrap()["rpcError"]["code"], -32000, "the body is the client's to read, as it came");
    assert_eq!(log.borrow().requests.len(), 1);

    // A first event that is not `endpoint`: not the old transport either.
    let (transport, log) = scripted(vec![
        status_reply(404, vec![], "Not Found"),
        crate::protocol::client::tests::sse_events(&[r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#], true),
    ]);
    let c = Client::new(LegacySse::new(transport, SSE_URL, TransportChoice::Auto), fake_clock(10).0, ClientOptions::new(SSE_URL));
    let e = block_on(c.connect()).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["status"].clone()), (ErrorCode::HttpStatus, json!(404)));
    assert_eq!(log.borrow().aborted, 1, "the GET was aborted");
}

#[test]
fn auto_gives_up_on_an_event_stream_without_an_endpoint_within_the_probes_bound() {
    // POST refused 404; the GET answers an event stream that only ever says keep-alive (a page's
    // live updates). The client's timeout (120 s) is far off; the probe's 5 s end the look, the
    // GET is aborted, and the refusal stands with why.
    let live = Live::default();
    live.push(": keep-alive\n\n");
    let (transport, log) = scripted(vec![status_reply(404, vec![], "Not Found"), Reply::Live(live.clone())]);
    let (clock, slept) = fake_clock(PROBE_TIMEOUT_MS);
    let timer = clock.clone();
    let sleep: Sleep = Rc::new(move |ms| {
        let c = timer.clone();
        Box::pin(async move { c.sleep(ms).await })
    });
    let adapter = LegacySse::new(transport, SSE_URL, TransportChoice::Auto).with_probe_timer(PROBE_TIMEOUT_MS, sleep);
    let c = Client::new(adapter, clock, ClientOptions::new(SSE_URL));
    let e = bounded(c.connect(), 1_000).expect("the look ends within the probe's bound, not the request's timeout").unwrap_err();
    assert_eq!(e.code, ErrorCode::HttpStatus);
    assert_eq!(e.details.as_ref().unwrap()["sseProbe"], "its GET brought no endpoint event within 5000 ms");
    assert!(e.message.ends_with("nor does a GET there open the event stream of the deprecated HTTP+SSE transport (its GET brought no endpoint event within 5000 ms)"), "{}", e.message);
    assert!(live.dropped(), "the GET was aborted");
    assert!(slept.borrow().contains(&PROBE_TIMEOUT_MS));
    assert_eq!(log.borrow().requests.len(), 2);
    assert_eq!(c.mcp_transport(), None, "still undecided");
    // A look that ends otherwise says why too; a connect that does not look says nothing of it.
    let mut fake = Fake::new();
    Rc::get_mut(&mut fake).unwrap().get_sse = false;
    let (c, _) = client(&fake);
    let e = block_on(c.connect()).unwrap_err();
    assert_eq!(e.details.as_ref().unwrap()["sseProbe"], "it answered GET with HTTP 404");
    let (transport, _) = scripted(vec![status_reply(500, vec![], "oops")]);
    let c = Client::new(LegacySse::new(transport, SSE_URL, TransportChoice::Auto), fake_clock(10).0, ClientOptions::new(SSE_URL));
    let e = block_on(c.connect()).unwrap_err();
    assert!(e.details.as_ref().unwrap().get("sseProbe").is_none());
}

/// The body of a refused `initialize`, read to tell the old transport, counts against the budget
/// while the look for the old transport goes on and until the client has read it (then the client
/// counts it); past its server's share it is LIMIT_EXCEEDED, and nothing more is looked for.
#[test]
fn a_refused_initializes_body_counts_against_the_budget_until_it_is_read() {
    use std::task::{Context, Poll};

    use crate::protocol::budget::{server_of, Held, MAX_SERVER_HELD_BYTES};
    let page = format!("<html><body>{}</body></html>", "x".repeat(40_000));
    let (first, second) = page.as_bytes().split_at(page.len() / 2);
    let refusal = || Reply::Http {
        status: 404,
        headers: vec![("content-type", "text/html".into())],
        chunks: vec![first.to_vec(), second.to_vec()],
        then_hang: false,
        then_error: false,
    };
    let start = Held::total();
    let live = Live::default();
    let (transport, log) = scripted(vec![refusal(), Reply::Live(live.clone())]);
    let t = LegacySse::new(transport, SSE_URL, TransportChoice::Auto);
    let init = HttpRequest {
        method: Method::Post,
        url: SSE_URL.into(),
        headers: vec![],
        body: Some(crate::protocol::jsonrpc::request(&Id::Num(0), "initialize", json!({}))),
        follow_redirects: false,
    };
    let sent = t.send(init);
    futures_util::pin_mut!(sent);
    let waker = futures_util::task::noop_waker();
    let mut cx = Context::from_waker(&waker);
    assert!(sent.as_mut().poll(&mut cx).is_pending(), "the GET waits for an endpoint event");
    assert_eq!(wire(&log), ["POST /sse initialize", "GET /sse"]);
    assert_eq!(Held::total() - start, page.len(), "the refusal's body is held while the look goes on");
    live.close();
    let Poll::Ready(Ok(mut refused)) = sent.as_mut().poll(&mut cx) else { panic!("no endpoint: the refusal stands") };
    assert_eq!(refused.status, 404);
    assert_eq!(Held::total() - start, page.len(), "and until it is read");
    assert_eq!(block_on(refused.body.next_chunk()).unwrap().unwrap(), page.as_bytes());
    assert_eq!(Held::total(), start, "its reader holds it now");
    assert!(block_on(refused.body.next_chunk()).is_none());

    // Another client of the server holds all but 100 bytes of its share: the body's first chunk is
    // past it.
    let mut same = Held::of(server_of("http://127.0.0.1:3001/other"));
    assert!(same.set(MAX_SERVER_HELD_BYTES - 100).is_ok());
    let (transport, log) = scripted(vec![refusal()]);
    let c = Client::new(LegacySse::new(transport, SSE_URL, TransportChoice::Auto), fake_clock(10).0, ClientOptions::new(SSE_URL));
    let e = block_on(c.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
    assert!(
        e.message.starts_with("initialize: the body of its HTTP 404 refusal, read to tell whether the server speaks the deprecated HTTP+SSE transport: the responses of http://127.0.0.1:3001 being read at once would hold more than 128 MiB"),
        "{}",
        e.message
    );
    assert_eq!(e.details.as_ref().unwrap()["status"], 404);
    assert_eq!(wire(&log), ["POST /sse initialize"], "nothing looked for");
    // Room for its chunks, not for them joined (the body twice): refused too.
    assert!(same.set(MAX_SERVER_HELD_BYTES - page.len() * 3 / 2).is_ok());
    let (transport, _) = scripted(vec![refusal()]);
    let c = Client::new(LegacySse::new(transport, SSE_URL, TransportChoice::Auto), fake_clock(10).0, ClientOptions::new(SSE_URL));
    assert_eq!(block_on(c.connect()).unwrap_err().code, ErrorCode::LimitExceeded);
    drop(same);
    assert_eq!(Held::total(), start, "given back");
}

#[test]
fn the_forced_transports() {
    // "streamable-http": a 404 stands, and no GET looks for the old transport.
    let fake = Fake::new();
    let (c, log) = client_with(&fake, SSE_URL, TransportChoice::StreamableHttp, ClientOptions::new(SSE_URL), 10);
    let e = block_on(c.connect()).unwrap_err();
    assert!(e.message.ends_with("nothing there takes MCP's POSTs (Streamable HTTP)"), "{}", e.message);
    assert_eq!(wire(&log), ["POST /sse initialize"]);
    // "sse": straight to the GET.
    let (c, log) = client_with(&fake, SSE_URL, TransportChoice::Sse, ClientOptions::new(SSE_URL), 10);
    block_on(c.connect()).unwrap();
    assert_eq!(wire(&log)[..2], ["GET /sse", "POST /message?sessionId=s1 initialize"]);
    // "sse" at a URL that is no event stream: said so.
    let url = "http://127.0.0.1:3001/mcp";
    let (transport, _) = scripted(vec![status_reply(200, vec![("content-type", "text/html".into())], "<html></html>")]);
    let c = Client::new(LegacySse::new(transport, url, TransportChoice::Sse), fake_clock(10).0, ClientOptions::new(url));
    let e = block_on(c.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert_eq!(e.message, "initialize: http://127.0.0.1:3001/mcp is not the event stream of a server of the deprecated HTTP+SSE transport: it answered GET with \"text/html\", not an event stream");
    // The server's text in it (the content type, an event's name) escaped and cut.
    let hostile = crate::protocol::client::tests::hostile_text();
    let (transport, _) = scripted(vec![status_reply(200, vec![("content-type", hostile.clone())], "")]);
    let c = Client::new(LegacySse::new(transport, url, TransportChoice::Sse), fake_clock(10).0, ClientOptions::new(url));
    let e = block_on(c.connect()).unwrap_err();
    crate::protocol::client::tests::assert_defanged(&e.message);
    let (transport, _) = scripted(vec![status_reply(200, vec![("content-type", "text/event-stream".into())], &format!("event: {hostile}\ndata: x\n\n"))]);
    let c = Client::new(LegacySse::new(transport, url, TransportChoice::Sse), fake_clock(10).0, ClientOptions::new(url));
    let e = block_on(c.connect()).unwrap_err();
    assert!(e.message.contains("its event stream's first event is \""), "{}", e.message.chars().take(200).collect::<String>());
    crate::protocol::client::tests::assert_defanged(&e.message);
    // ... or a status, which the client reports as for any request.
    let mut fake = Fake::new();
    Rc::get_mut(&mut fake).unwrap().get_sse = false;
    let (c, _) = client_with(&fake, SSE_URL, TransportChoice::Sse, ClientOptions::new(SSE_URL), 10);
    let e = block_on(c.connect()).unwrap_err();
    assert!(e.message.starts_with("initialize: HTTP 404: Error Cannot GET /sse; the URL may not be the event stream of a server of the deprecated HTTP+SSE transport"), "{}", e.message);
}

#[test]
fn a_relative_endpoint_is_resolved_against_the_streams_url() {
    let mut fake = Fake::new();
    Rc::get_mut(&mut fake).unwrap().endpoint = Box::new(|n| format!("../mcp/message?sessionId=s{n}"));
    let url = "http://127.0.0.1:3001/api/sse";
    let (transport, log) = scripted(vec![Reply::Server(Rc::new({
        let fake = fake.clone();
        let serve = fake.serve();
        move |req: &HttpRequest| {
            let Reply::Server(f) = &serve else { unreachable!() };
            // The fake serves /sse: this server's stream is at /api/sse.
            let mut req = req.clone();
            if req.url == "http://127.0.0.1:3001/api/sse" {
                req.url = SSE_URL.to_owned();
            }
            f(&req)
        }
    }))]);
    let c = Client::new(LegacySse::new(transport, url, TransportChoice::Sse), fake_clock(10).0, ClientOptions::new(url));
    block_on(c.connect()).unwrap();
    assert_eq!(log.borrow().requests[1].url, "http://127.0.0.1:3001/mcp/message?sessionId=s1");

    for (reference, resolved) in [
        ("/messages/?session_id=ab", "http://h:1/messages/?session_id=ab"),
        ("message?x=1", "http://h:1/a/message?x=1"),
        ("./m", "http://h:1/a/m"),
        ("../../../m", "http://h:1/m"),
        ("?s=1", "http://h:1/a/sse?s=1"),
        ("http://h:1/x", "http://h:1/x"),
        ("//h:1/y", "http://h:1/y"),
    ] {
        assert_eq!(resolve("http://h:1/a/sse?q=1", reference), resolved, "{reference}");
    }
    assert_eq!(session_of("/m?x=1&session_id=abc"), Some("abc".to_owned()));
    assert_eq!(session_of("/m?sessionId="), None);
}

/// The endpoint named is the server's text, as long as an event can be: the message quotes it
/// escaped and cut, the `endpoint` detail keeps it.
#[test]
fn a_refused_endpoint_is_quoted_escaped_and_cut() {
    let endpoint = format!("http://evil.example/\u{202e}\u{9b}\u{85}\u{2066}{}", "a".repeat(1 << 20));
    let mut fake = Fake::new();
    let sent = endpoint.clone();
    Rc::get_mut(&mut fake).unwrap().endpoint = Box::new(move |_| sent.clone());
    let (c, _log) = client(&fake);
    let e = block_on(c.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert!(e.message.contains("names \"http://evil.example/\\u202e\\u009b\\u0085\\u2066aaa"), "{}", &e.message[..200]);
    assert!(!e.message.contains(['\u{202e}', '\u{9b}', '\u{85}', '\u{2066}']));
    assert!(e.message.len() < 1500, "{}", e.message.len());
    assert_eq!(e.details.as_ref().unwrap()["endpoint"], endpoint.as_str());
}

#[test]
fn an_endpoint_of_another_origin_is_refused() {
    for endpoint in ["http://evil.example/message?sessionId=s1", "//evil.example/message", "https://127.0.0.1:3001/message", "http://evil.example\\@127.0.0.1:3001/m", "javascript:alert(1)"] {
        let mut fake = Fake::new();
        Rc::get_mut(&mut fake).unwrap().endpoint = Box::new(move |_| endpoint.to_owned());
        let (c, log) = client(&fake);
        let e = block_on(c.connect()).unwrap_err();
        assert_eq!(e.code, ErrorCode::Protocol, "{endpoint}");
        assert!(e.message.starts_with("initialize: the server's endpoint event names"), "{}", e.message);
        assert!(e.message.contains("not a URL of the event stream's origin (http://127.0.0.1:3001)"), "{}", e.message);
        assert_eq!(e.details.as_ref().unwrap()["endpoint"], endpoint);
        assert_eq!(wire(&log), ["POST /sse initialize", "GET /sse"], "nothing is sent there");
        assert!(fake.stream(1).dropped(), "the stream is dropped");
    }
    // The same origin written otherwise is the same origin.
    let mut fake = Fake::new();
    Rc::get_mut(&mut fake).unwrap().endpoint = Box::new(|n| format!("HTTP://127.0.0.1:3001/message?sessionId=s{n}"));
    block_on(client(&fake).0.connect()).unwrap();
    assert_eq!(normal_origin("http://h:80"), "http://h");
    assert_eq!(normal_origin("https://H:443"), "https://h");
}

/// On the one stream, a call's progress, a log message and a ping come before its result: each
/// goes where the client expects it (the progress callback, the notification handler, an answer
/// POSTed to the endpoint).
#[test]
fn responses_are_routed_by_id_between_notifications_and_a_ping() {
    let fake = Fake::with(Box::new(|msg, live| {
        if msg["method"] == "tools/call" {
            let id = &msg["id"];
            live.message(&json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": id, "progress": 1, "total": 2}}));
            live.message(&json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "working"}}));
            live.message(&json!({"jsonrpc": "2.0", "id": 0, "method": "ping"}));
            // A response to another id (late, of a request that timed out) is nobody's.
            live.message(&json!({"jsonrpc": "2.0", "id": 99, "result": {}}));
            // Two messages in one event, a batch.
            live.push(&format!("event: message\ndata: [{}, {}]\n\n", json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}), json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}})));
            return crate::protocol::client::tests::accepted();
        }
        standard(msg, live)
    }));
    let (c, log) = client(&fake);
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    c.set_notification_handler(Some(Box::new(move |m, _| n2.borrow_mut().push(m.to_owned()))));
    block_on(c.connect()).unwrap();
    let progress = Rc::new(RefCell::new(Vec::new()));
    let p2 = progress.clone();
    let mut opts = CallOptions { on_progress: Some(Box::new(move |p| p2.borrow_mut().push(p["progress"].clone()))), ..CallOptions::default() };
    let r = bounded(c.call_tool("t", json!({}), &mut opts), 1000).expect("the call ends").unwrap();
    assert_eq!(r, json!({"content": []}));
    assert_eq!(*progress.borrow(), [json!(1)]);
    assert_eq!(*notes.borrow(), ["notifications/message", "notifications/tools/list_changed"]);
    assert!(c.tools_changed());
    let log = log.borrow();
    let pong = log.requests.iter().find(|r| body(r).get("result").is_some()).expect("the ping was answered");
    assert_eq!(body(pong), json!({"jsonrpc": "2.0", "id": 0, "result": {}}));
    assert_eq!(pong.url, "http://127.0.0.1:3001/message?sessionId=s1");
}

#[test]
fn concurrent_requests_get_their_own_responses_whatever_their_order() {
    let first = Rc::new(RefCell::new(None::<Value>));
    let f2 = first.clone();
    let fake = Fake::with(Box::new(move |msg, live| {
        if msg["method"] == "tools/call" {
            let text = msg["params"]["name"].clone();
            let answer = json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [{"type": "text", "text": text}]}});
            let earlier = f2.borrow_mut().take();
            match earlier {
                // The second call's answer first, then the first's.
                Some(earlier) => {
                    live.message(&answer);
                    live.message(&earlier);
                }
                None => *f2.borrow_mut() = Some(answer),
            }
            return crate::protocol::client::tests::accepted();
        }
        standard(msg, live)
    }));
    let (c, _) = client(&fake);
    block_on(c.connect()).unwrap();
    let (a, b) = bounded(
        async {
            let (mut oa, mut ob) = (CallOptions::default(), CallOptions::default());
            futures_util::join!(c.call_tool("a", json!({}), &mut oa), c.call_tool("b", json!({}), &mut ob))
        },
        1000,
    )
    .expect("both end");
    assert_eq!(a.unwrap()["content"][0]["text"], "a");
    assert_eq!(b.unwrap()["content"][0]["text"], "b");
    assert!(first.borrow().is_none());
    assert_eq!(waiters(&c), 0);
}

/// A call whose response does not come times out as over Streamable HTTP: its waiter is
/// removed (the shared stream stays open), and the server is told.
#[test]
fn a_timeout_removes_the_waiter_and_cancels() {
    let fake = Fake::with(Box::new(|msg, live| if msg["method"] == "tools/call" { crate::protocol::client::tests::accepted() } else { standard(msg, live) }));
    let mut opts = ClientOptions::new(SSE_URL);
    opts.timeout_ms = 50;
    let (c, log) = client_with(&fake, SSE_URL, TransportChoice::Auto, opts, 50);
    block_on(c.connect()).unwrap();
    let e = bounded(c.call_tool("slow", json!({}), &mut CallOptions::default()), 1000).unwrap().unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    assert_eq!(waiters(&c), 0);
    assert!(!fake.stream(1).dropped(), "the shared stream is not the call's to abort");
    let log = log.borrow();
    let cancel = body(log.requests.last().unwrap());
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], 1);
    // The late response, when it comes, is nobody's; the next call works.
    drop(log);
    fake.stream(1).message(&json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}));
    let r = bounded(c.list_tools(), 1000).unwrap().unwrap();
    assert_eq!(r.len(), 1);
}

/// The stream that ends takes the session with it: a call waiting for its response fails; the
/// next request initializes again over a new stream and is sent once more; a POST that the
/// server never answers (its session forgotten) is abandoned once the stream is found closed.
#[test]
fn a_closed_stream_fails_its_call_and_the_next_request_reconnects() {
    let fake = Fake::with(Box::new(|msg, live| {
        if msg["method"] == "tools/call" && msg["params"]["name"] == "crash" {
            live.message(&json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}}));
            live.close();
            return crate::protocol::client::tests::accepted();
        }
        standard(msg, live)
    }));
    let (c, log) = client(&fake);
    block_on(c.connect()).unwrap();
    let e = bounded(c.call_tool("crash", json!({}), &mut CallOptions::default()), 1000).unwrap().unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol);
    assert_eq!(e.message, "tools/call: the server's event stream (HTTP+SSE transport) ended before the response; the session is gone");
    let tools = bounded(c.list_tools(), 1000).unwrap().unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(c.session_id().as_deref(), Some("s2"));
    assert_eq!(
        wire(&log)[5..],
        ["GET /sse", "POST /message?sessionId=s2 initialize", "POST /message?sessionId=s2 notifications/initialized", "POST /message?sessionId=s2 tools/list"],
        "the stream known closed: no POST to the old session"
    );

    // Closed while idle, unseen: the POST goes to the old session, which never answers; reading
    // on finds the stream closed, and the request is sent again on a new session.
    fake.stream(2).close();
    let tools = bounded(c.list_tools(), 1000).unwrap().unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(c.session_id().as_deref(), Some("s3"));
    let wire = wire(&log);
    assert_eq!(wire[9..], ["POST /message?sessionId=s2 tools/list", "GET /sse", "POST /message?sessionId=s3 initialize", "POST /message?sessionId=s3 notifications/initialized", "POST /message?sessionId=s3 tools/list"]);
    assert_eq!(log.borrow().aborted, 1, "the unanswered POST was aborted");
}

/// close() while a call's POST is unanswered: the adapter answers that POST 404 once close()
/// ended the stream, which is no expired session to renew. The call is abandoned (`NOT_CONNECTED`,
/// as over Streamable HTTP), and the closed client sends nothing more: no new stream, no
/// `initialize`.
#[test]
fn close_while_a_calls_post_is_unanswered_opens_no_new_session() {
    let fake = Fake::with(Box::new(|msg, live| if msg["method"] == "tools/call" { Reply::Hang } else { standard(msg, live) }));
    let (c, log) = client(&fake);
    block_on(c.connect()).unwrap();
    let sent_before = wire(&log).len();
    let mut opts = CallOptions::default();
    let (called, closed) = bounded(
        async {
            let call = c.call_tool("echo", json!({}), &mut opts);
            let close = async {
                crate::protocol::client::tests::yield_now().await;
                c.close().await
            };
            futures_util::join!(call, close)
        },
        1000,
    )
    .expect("both end");
    closed.unwrap();
    let e = called.unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (ErrorCode::NotConnected, "tools/call was abandoned: the client was closed"));
    assert_eq!(wire(&log)[sent_before..], ["POST /message?sessionId=s1 tools/call"], "nothing after close()");
    assert_eq!(fake.streams.borrow().len(), 1, "no new stream");
    assert!(fake.stream(1).dropped(), "close() ended the stream");
    assert_eq!(c.session_id(), None);
}

/// What belongs to no request goes to the standalone stream when the client listens.
#[test]
fn listen_gets_what_belongs_to_no_request() {
    let fake = Fake::with(Box::new(|msg, live| {
        if msg["method"] == "tools/call" {
            live.message(&json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "x"}}));
            live.message(&json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}));
        }
        standard(msg, live)
    }));
    // Sleeps are not instant: the listener would otherwise try to reopen its stream at once, and
    // give up, before it hears of close().
    let (c, log) = client_with(&fake, SSE_URL, TransportChoice::Auto, ClientOptions::new(SSE_URL), 10);
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    c.set_notification_handler(Some(Box::new(move |m, _| n2.borrow_mut().push(m.to_owned()))));
    block_on(c.connect()).unwrap();
    let (listened, called) = bounded(
        async {
            let listen = c.listen();
            let then = async {
                crate::protocol::client::tests::yield_now().await;
                let r = c.call_tool("echo", json!({"message": "m"}), &mut CallOptions::default()).await;
                // The listener has the notification and the ping.
                while notes.borrow().is_empty() || !log.borrow().requests.iter().any(|r| body(r)["id"] == "p") {
                    crate::protocol::client::tests::yield_now().await;
                }
                c.close().await.unwrap();
                r
            };
            futures_util::join!(listen, then)
        },
        1000,
    )
    .expect("both end");
    assert!(listened.unwrap());
    assert_eq!(called.unwrap()["content"][0]["text"], "m");
    assert_eq!(*notes.borrow(), ["notifications/message"]);
    assert!(fake.stream(1).dropped(), "close() ended the stream");
    // The client's GET for its standalone stream never reached the server: the one stream serves.
    assert_eq!(wire(&log).iter().filter(|w| w.starts_with("GET")).count(), 1);
}

/// A request nobody reads does not gather the stream without end: past the bound, it fails
/// with LIMIT_EXCEEDED when read, and the others go on.
#[test]
fn what_waits_unread_for_a_request_is_bounded() {
    let fake = Fake::with(Box::new(|msg, live| {
        if msg["method"] == "tools/call" && msg["params"]["name"] == "a" {
            return crate::protocol::client::tests::accepted();
        }
        if msg["method"] == "tools/call" && msg["params"]["name"] == "b" {
            for i in 0..20 {
                live.message(&json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": i}}));
            }
            live.message(&json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": []}}));
            return crate::protocol::client::tests::accepted();
        }
        standard(msg, live)
    }));
    let (transport, _) = scripted(vec![fake.serve()]);
    let t = LegacySse::new(transport, SSE_URL, TransportChoice::Sse).with_limits(1 << 20, 1000);
    let post = |id: i64, method: &str, params: Value| HttpRequest {
        method: Method::Post,
        url: SSE_URL.into(),
        headers: vec![("mcp-session-id".into(), "s1".into())],
        body: Some(crate::protocol::jsonrpc::request(&Id::Num(id), method, params)),
        follow_redirects: false,
    };
    let read = |b: &mut SseBody<crate::protocol::client::tests::ScriptedBody>| bounded(b.next_chunk(), 100).flatten();
    let mut init = block_on(t.send(post(0, "initialize", json!({})))).unwrap().body;
    assert!(String::from_utf8(read(&mut init).unwrap().unwrap()).unwrap().contains("2024-11-05"));
    let mut a = block_on(t.send(post(1, "tools/call", json!({"name": "a"})))).unwrap().body;
    let mut b = block_on(t.send(post(2, "tools/call", json!({"name": "b"})))).unwrap().body;
    let got = String::from_utf8(read(&mut b).unwrap().unwrap()).unwrap();
    assert!(got.contains("\"id\":2"), "{got}");
    let Some(Err(TransportError::Refused(e))) = read(&mut a) else { panic!("a overflowed") };
    assert_eq!(e.code, ErrorCode::LimitExceeded);
    assert!(e.message.contains("more than 1000 bytes"), "{}", e.message);

    // One event past max_event_bytes loses the stream for everyone.
    let t = LegacySse::new(scripted(vec![fake.serve()]).0, SSE_URL, TransportChoice::Sse).with_limits(64, 1000);
    let mut init = block_on(t.send(post(0, "initialize", json!({})))).unwrap().body;
    let Some(Err(TransportError::Refused(e))) = read(&mut init) else { panic!("too large") };
    assert_eq!(e.code, ErrorCode::LimitExceeded);
}

/// What the shared stream holds (an event not yet complete, a message waiting for its reader)
/// counts against the memory budget and the server's share, as a Streamable HTTP stream's
/// unfinished event does: past the share, every request of the stream fails with LIMIT_EXCEEDED,
/// and everything is given back.
#[test]
fn what_the_shared_stream_holds_counts_against_the_budget() {
    use crate::protocol::budget::{server_of, Held, MAX_SERVER_HELD_BYTES};
    let note = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "n".repeat(5_000)}});
    let sent = note.clone();
    let fake = Fake::with(Box::new(move |msg, live| {
        if msg["method"] == "tools/call" && msg["params"]["name"] == "a" {
            return crate::protocol::client::tests::accepted();
        }
        if msg["method"] == "tools/call" && msg["params"]["name"] == "b" {
            // For no request: it goes to the oldest one (a), which does not read yet.
            live.message(&sent);
            live.message(&json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": []}}));
            // An event that is not complete yet.
            live.push(UNFINISHED);
            return crate::protocol::client::tests::accepted();
        }
        standard(msg, live)
    }));
    const UNFINISHED: &str = "data: {\"jsonrpc\": \"2.0\", \"method\": \"notifications/message\", \"params\": {\"data\": \"ppppppppppppppppppppppppp";
    let start = Held::total();
    let (transport, _) = scripted(vec![fake.serve()]);
    let t = LegacySse::new(transport, SSE_URL, TransportChoice::Sse);
    let post = |id: i64, method: &str, params: Value| HttpRequest {
        method: Method::Post,
        url: SSE_URL.into(),
        headers: vec![("mcp-session-id".into(), "s1".into())],
        body: Some(crate::protocol::jsonrpc::request(&Id::Num(id), method, params)),
        follow_redirects: false,
    };
    let read = |b: &mut SseBody<crate::protocol::client::tests::ScriptedBody>| bounded(b.next_chunk(), 100).flatten();
    let mut init = block_on(t.send(post(0, "initialize", json!({})))).unwrap().body;
    assert!(read(&mut init).unwrap().is_ok());
    drop(init);
    assert_eq!(Held::total(), start, "nothing held once read");
    let mut a = block_on(t.send(post(1, "tools/call", json!({"name": "a"})))).unwrap().body;
    let mut b = block_on(t.send(post(2, "tools/call", json!({"name": "b"})))).unwrap().body;
    assert!(String::from_utf8(read(&mut b).unwrap().unwrap()).unwrap().contains("\"id\":2"));
    // a's message waits for it, framed as an event (`data: ` and the blank line).
    let waiting = format!("data: {note}\n\n").len();
    assert_eq!(Held::total() - start, waiting);
    assert!(String::from_utf8(read(&mut a).unwrap().unwrap()).unwrap().contains("notifications/message"));
    assert_eq!(Held::total(), start, "its reader holds it now, and counts it");
    // a reads on: the event that is not complete waits in the parser.
    assert!(read(&mut a).is_none(), "a waits");
    assert_eq!(Held::total() - start, UNFINISHED.len());
    // Another client of the server holds all but a few bytes of its share: the next chunk is past it.
    let mut same = Held::of(server_of("http://127.0.0.1:3001/other"));
    assert!(same.set(MAX_SERVER_HELD_BYTES - UNFINISHED.len() - 16).is_ok());
    fake.stream(1).push("ppppppppppppppppppppppppp");
    let Some(Err(TransportError::Refused(e))) = read(&mut a) else { panic!("past the share") };
    assert_eq!(e.code, ErrorCode::LimitExceeded);
    assert!(
        e.message.starts_with("the server's event stream (HTTP+SSE transport): the responses of http://127.0.0.1:3001 being read at once would hold more than 128 MiB, a server's share"),
        "{}",
        e.message
    );
    assert!(fake.stream(1).dropped(), "the stream is lost");
    drop(same);
    assert_eq!(Held::total(), start, "given back once the stream ended");
    drop((a, b, t));
    assert_eq!(Held::total(), start);
}

/// Each request is its own task (as each JS promise is): when the one that read the stream last
/// leaves with its response, another must be woken to read on, or the response behind it waits
/// for ever.
#[test]
fn the_next_reader_is_woken_when_one_leaves() {
    use futures_util::stream::{FuturesUnordered, StreamExt as _};
    let ids = Rc::new(RefCell::new(Vec::new()));
    let i2 = ids.clone();
    let fake = Fake::with(Box::new(move |msg, live| {
        if msg["method"] == "tools/call" {
            i2.borrow_mut().push((msg["params"]["name"].clone(), msg["id"].clone()));
            return crate::protocol::client::tests::accepted();
        }
        standard(msg, live)
    }));
    let (c, _) = client(&fake);
    block_on(c.connect()).unwrap();
    let call = |name: &'static str| {
        let c = &c;
        Box::pin(async move { (name, c.call_tool(name, json!({}), &mut CallOptions::default()).await) })
    };
    let mut tasks = FuturesUnordered::new();
    tasks.push(call("a"));
    tasks.push(call("b"));
    let waker = futures_util::task::noop_waker();
    let mut cx = Context::from_waker(&waker);
    assert!(tasks.poll_next_unpin(&mut cx).is_pending(), "both wait");
    assert_eq!(ids.borrow().len(), 2);
    // The answers, in the order opposite to the one the tasks last read in.
    let answers: Vec<Value> = ids.borrow().iter().rev().map(|(name, id)| json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": name}]}})).collect();
    for a in &answers {
        fake.stream(1).message(a);
    }
    let mut done = Vec::new();
    for _ in 0..100 {
        match tasks.poll_next_unpin(&mut cx) {
            Poll::Ready(Some((name, r))) => done.push((name, r.unwrap()["content"][0]["text"].clone())),
            Poll::Ready(None) => break,
            Poll::Pending => {}
        }
    }
    done.sort_by_key(|(name, _)| *name);
    assert_eq!(done, [("a", json!("a")), ("b", json!("b"))]);
}

/// A lone surrogate escape (`"\ud83d"`: a JS server cut a text inside an emoji) is read as
/// U+FFFD: the event is the call's response, not dropped to leave the call to its timeout.
#[test]
fn a_lone_surrogate_escape_in_an_event_is_read_as_u_fffd() {
    let fake = Fake::with(Box::new(|msg, live| {
        if msg["method"] == "tools/call" {
            let id = msg["id"].to_string();
            live.push(&format!("event: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"cut \\ud83d\"}}]}}}}\n\n"));
            return crate::protocol::client::tests::accepted();
        }
        standard(msg, live)
    }));
    let (c, _) = client(&fake);
    block_on(c.connect()).unwrap();
    let r = bounded(c.call_tool("t", json!({}), &mut CallOptions::default()), 1000).expect("the call ends").unwrap();
    assert_eq!(r["content"][0]["text"], "cut \u{FFFD}");
}

/// An event of the shared stream that is no JSON (nor a lone surrogate escape) fails at once the
/// call it answers, with the `PROTOCOL` error the call gets over Streamable HTTP when its stream
/// brings such an event: the call is found by the `id` its text names (read lexically, wherever it
/// is: the SDK's servers write it last), or, when no id can be read, it is the one call waiting.
/// A message with a `method` answers no call, nor does one naming another id: the calls wait on
/// for their own responses.
#[test]
fn an_event_that_is_no_json_fails_the_call_it_answers() {
    for (bad, says) in [
        // The server wrote a NaN; the id before it.
        ("{\"jsonrpc\":\"2.0\",\"id\":ID,\"result\":{\"content\":[],\"n\":NaN}}", "an SSE event is not valid JSON"),
        // The SDK's order (the id last), past what broke.
        ("{\"result\":{\"content\":[{\"type\":\"text\",\"text\":'single'}]},\"jsonrpc\":\"2.0\",\"id\":ID}", "an SSE event is not valid JSON"),
        // Cut short before its id: the one call waiting is the one it answers.
        ("{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"cut", "an SSE event is not valid JSON"),
        // A byte that is no UTF-8 (0xFF, written \u{1} here).
        ("{\"jsonrpc\":\"2.0\",\"id\":ID,\"result\":{\"text\":\"\u{1}\"}}", "an SSE event is not valid UTF-8"),
    ] {
        let fake = Fake::with(Box::new(move |msg, live| {
            if msg["method"] == "tools/call" {
                let data = bad.replace("ID", &msg["id"].to_string());
                let mut event = b"event: message\ndata: ".to_vec();
                event.extend(data.bytes().map(|b| if b == 1 { 0xFF } else { b }));
                event.extend(b"\n\n");
                live.push_bytes(event);
                return crate::protocol::client::tests::accepted();
            }
            standard(msg, live)
        }));
        let (c, _) = client(&fake);
        block_on(c.connect()).unwrap();
        let e = bounded(c.call_tool("t", json!({}), &mut CallOptions::default()), 1000).expect("the call ends at once").unwrap_err();
        assert_eq!(e.code, ErrorCode::Protocol, "{bad}: {e}");
        assert!(e.message.starts_with(&format!("tools/call: {says}")), "{bad}: {}", e.message);
        assert_eq!(waiters(&c), 0);
        // The stream goes on: the next request is answered on it.
        assert_eq!(bounded(c.list_tools(), 1000).unwrap().unwrap().len(), 1);
        assert_eq!(c.session_id().as_deref(), Some("s1"));
    }

    // Two calls waiting: the one the bad event names fails; a bad notification, a bad event naming
    // no call waiting, and one that names none, with two calls to choose from, fail neither.
    let fake = Fake::with(Box::new(|msg, live| {
        if msg["method"] == "tools/call" && msg["params"]["name"] == "b" {
            live.push("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"id\":1,\"params\":{\"data\":NaN}}\n\n");
            live.push("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":99,\"result\":NaN}\n\n");
            live.push("event: message\ndata: {\"result\":{\"cut\n\n");
            live.push(&format!("event: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":NaN}}\n\n", msg["id"].as_i64().unwrap() - 1));
            live.message(&json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": []}}));
            return crate::protocol::client::tests::accepted();
        }
        if msg["method"] == "tools/call" {
            return crate::protocol::client::tests::accepted();
        }
        standard(msg, live)
    }));
    let (c, _) = client(&fake);
    block_on(c.connect()).unwrap();
    let (a, b) = bounded(
        async {
            let (mut oa, mut ob) = (CallOptions::default(), CallOptions::default());
            futures_util::join!(c.call_tool("a", json!({}), &mut oa), c.call_tool("b", json!({}), &mut ob))
        },
        1000,
    )
    .expect("both end");
    let e = a.unwrap_err();
    assert_eq!(e.code, ErrorCode::Protocol, "{e}");
    assert!(e.message.starts_with("tools/call: an SSE event is not valid JSON"), "{}", e.message);
    assert_eq!(b.unwrap(), json!({"content": []}));
}

/// A call's progress goes to the call by its token (its integer written as a string too) while
/// the client listens too (the listener gets what belongs to no call): the shared stream's
/// progress is routed as the SDK's `Protocol` routes it.
#[test]
fn a_calls_progress_goes_to_it_while_listening() {
    let fake = Fake::with(Box::new(|msg, live| {
        if msg["method"] == "tools/call" {
            let id = &msg["id"];
            live.message(&json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": id, "progress": 1}}));
            live.message(&json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "nobody's", "progress": 2}}));
            // The integer token echoed as a string: the call's too.
            live.message(&json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": id.to_string(), "progress": 3}}));
        }
        standard(msg, live)
    }));
    let (c, _) = client_with(&fake, SSE_URL, TransportChoice::Auto, ClientOptions::new(SSE_URL), 10);
    let notes = Rc::new(RefCell::new(Vec::new()));
    let n2 = notes.clone();
    c.set_notification_handler(Some(Box::new(move |m, p| n2.borrow_mut().push(format!("{m} {}", p["progress"])))));
    block_on(c.connect()).unwrap();
    let heard = Rc::new(RefCell::new(Vec::new()));
    let h2 = heard.clone();
    let mut opts = CallOptions { on_progress: Some(Box::new(move |p| h2.borrow_mut().push(p["progress"].clone()))), ..CallOptions::default() };
    let (listened, called) = bounded(
        async {
            let then = async {
                crate::protocol::client::tests::yield_now().await;
                let r = c.call_tool("echo", json!({"message": "m"}), &mut opts).await;
                while notes.borrow().is_empty() {
                    crate::protocol::client::tests::yield_now().await;
                }
                c.close().await.unwrap();
                r
            };
            futures_util::join!(c.listen(), then)
        },
        1000,
    )
    .expect("both end");
    assert!(listened.unwrap());
    assert_eq!(called.unwrap()["content"][0]["text"], "m");
    assert_eq!(*heard.borrow(), [json!(1), json!(3)]);
    assert_eq!(*notes.borrow(), ["notifications/progress 2"]);
}

/// `auto`: a POST of `initialize` refused 404 (no route for it, before any authorization), then a
/// GET that asks for a token (401 and a `Bearer` challenge, as the SDK's SSE example behind its
/// bearer middleware answers): the client's unauthorized handler is asked, as with `"sse"`, and
/// the `initialize` sent again with the token finds the stream.
#[test]
fn auto_authorizes_a_get_that_asks_for_a_token() {
    let fake = Fake::new();
    let serve = fake.serve();
    let server = || {
        let Reply::Server(f) = &serve else { unreachable!() };
        let f = f.clone();
        Reply::Server(Rc::new(move |req: &HttpRequest| {
            let token = req.headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("authorization") && v == "Bearer t");
            if req.method == Method::Get && !token {
                return status_reply(401, vec![("www-authenticate", "Bearer resource_metadata=\"http://127.0.0.1:3001/.well-known/oauth-protected-resource/sse\"".into())], "Unauthorized");
            }
            f(req)
        }))
    };
    let (transport, log) = scripted(vec![server()]);
    let c = Client::new(LegacySse::new(transport, SSE_URL, TransportChoice::Auto), fake_clock(10).0, ClientOptions::new(SSE_URL));
    let asked = Rc::new(RefCell::new(Vec::new()));
    let a2 = asked.clone();
    c.set_unauthorized_handler(Some(Box::new(move |info: &Value| {
        a2.borrow_mut().push(info.clone());
        Box::pin(async { Ok(Some(vec![("Authorization".to_owned(), "Bearer t".to_owned())])) })
    })));
    block_on(c.connect()).unwrap();
    assert_eq!(c.mcp_transport(), Some(McpTransport::Sse));
    assert_eq!(asked.borrow().len(), 1);
    assert_eq!(wire(&log)[..5], ["POST /sse initialize", "GET /sse", "POST /sse initialize", "GET /sse", "POST /message?sessionId=s1 initialize"]);
    assert_eq!(block_on(c.list_tools()).unwrap().len(), 1);

    // No handler: UNAUTHORIZED, as with "sse", not the POST's 404; still undecided.
    let (transport, _) = scripted(vec![server()]);
    let c = Client::new(LegacySse::new(transport, SSE_URL, TransportChoice::Auto), fake_clock(10).0, ClientOptions::new(SSE_URL));
    let e = block_on(c.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Unauthorized, "{e}");
    assert_eq!(c.mcp_transport(), None);
    // A 401 that asks for no bearer token (a page behind Basic authentication) is no MCP server's:
    // the POST's refusal stands.
    let (transport, _) = scripted(vec![status_reply(404, vec![], "Not Found"), status_reply(401, vec![("www-authenticate", "Basic realm=\"x\"".into())], "")]);
    let c = Client::new(LegacySse::new(transport, SSE_URL, TransportChoice::Auto), fake_clock(10).0, ClientOptions::new(SSE_URL));
    let e = block_on(c.connect()).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["status"].clone()), (ErrorCode::HttpStatus, json!(404)));
    assert_eq!(e.details.as_ref().unwrap()["sseProbe"], "it answered GET with HTTP 401");
}

/// A handshake that fails (an error for `initialize`, its timeout, a version refused) leaves no
/// stream open: the host can exit, and the server ends the session.
#[test]
fn a_failed_handshake_ends_the_stream_it_opened() {
    let error = Fake::with(Box::new(|msg, live| {
        if msg["method"] == "initialize" {
            live.message(&json!({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32603, "message": "internal error"}}));
            return crate::protocol::client::tests::accepted();
        }
        standard(msg, live)
    }));
    let (c, _) = client(&error);
    let e = block_on(c.connect()).unwrap_err();
    assert_eq!(e.code, ErrorCode::JsonRpcError, "{e}");
    assert!(error.stream(1).dropped(), "the GET was aborted");
    assert!(c.transport().conn.borrow().is_none());
    // The next connect() opens a stream of its own.
    block_on(c.connect()).unwrap_err();
    assert_eq!(error.streams.borrow().len(), 2);
    assert!(error.stream(2).dropped());

    let silent = Fake::with(Box::new(|msg, live| if msg["method"] == "initialize" { crate::protocol::client::tests::accepted() } else { standard(msg, live) }));
    let mut opts = ClientOptions::new(SSE_URL);
    opts.timeout_ms = 50;
    let (c, _) = client_with(&silent, SSE_URL, TransportChoice::Sse, opts, 50);
    let e = bounded(c.connect(), 1000).expect("it times out").unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{e}");
    assert!(silent.stream(1).dropped(), "the GET was aborted");
}

/// `era: "auto"` over the old transport: an `initialize` refused with -32601, or answered with
/// 2026-07-28, is `UNSUPPORTED_PROTOCOL_VERSION` as with `era: "legacy"`; 2026-07-28 has no
/// HTTP+SSE transport, so no `server/discover` goes over it.
#[test]
fn the_auto_era_asks_no_discovery_over_the_old_transport() {
    for answer in [json!({"error": {"code": -32601, "message": "Method not found"}}), json!({"result": {"protocolVersion": "2026-07-28", "capabilities": {}, "serverInfo": {"name": "m", "version": "1"}}})] {
        let a2 = answer.clone();
        let fake = Fake::with(Box::new(move |msg, live| {
            if msg["method"] == "initialize" {
                let mut m = a2.clone();
                m["jsonrpc"] = json!("2.0");
                m["id"] = msg["id"].clone();
                live.message(&m);
                return crate::protocol::client::tests::accepted();
            }
            standard(msg, live)
        }));
        let (c, log) = client(&fake);
        let e = bounded(c.connect(), 1000).expect("it ends").unwrap_err();
        assert_eq!(e.code, ErrorCode::UnsupportedProtocolVersion, "{answer}: {e}");
        assert!(e.message.contains("2026-07-28 has no HTTP+SSE transport, so it is not tried over the deprecated one this server speaks"), "{}", e.message);
        assert!(!wire(&log).iter().any(|w| w.contains("server/discover")), "{:?}", wire(&log));
        assert!(fake.stream(1).dropped());
    }
}

/// An error of id null (a message the server could not read) on the shared stream names no call:
/// with several waiting it fails none of them, whether the client listens or not.
#[test]
fn an_error_of_id_null_fails_none_of_several_calls() {
    for listening in [false, true] {
        let fake = Fake::with(Box::new(|msg, live| {
            if msg["method"] == "tools/call" && msg["params"]["name"] == "b" {
                live.message(&json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request"}}));
                live.message(&json!({"jsonrpc": "2.0", "id": msg["id"].as_i64().unwrap() - 1, "result": {"content": [{"type": "text", "text": "a"}]}}));
                live.message(&json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [{"type": "text", "text": "b"}]}}));
            }
            if msg["method"] == "tools/call" {
                return crate::protocol::client::tests::accepted();
            }
            standard(msg, live)
        }));
        let (c, _) = client_with(&fake, SSE_URL, TransportChoice::Auto, ClientOptions::new(SSE_URL), 10);
        block_on(c.connect()).unwrap();
        let (listened, (a, b)) = bounded(
            async {
                let listen = async {
                    if listening {
                        c.listen().await.map(|_| ())
                    } else {
                        Ok(())
                    }
                };
                let calls = async {
                    crate::protocol::client::tests::yield_now().await;
                    let (mut oa, mut ob) = (CallOptions::default(), CallOptions::default());
                    let r = futures_util::join!(c.call_tool("a", json!({}), &mut oa), c.call_tool("b", json!({}), &mut ob));
                    c.close().await.unwrap();
                    r
                };
                futures_util::join!(listen, calls)
            },
            1000,
        )
        .expect("all end");
        listened.unwrap();
        assert_eq!(a.unwrap()["content"][0]["text"], "a", "listening: {listening}");
        assert_eq!(b.unwrap()["content"][0]["text"], "b");
    }
}

/// A server that runs a tool inside its POST's handler and asks the client something (roots)
/// before it answers that POST: the client answers at once, listening or not (else neither
/// would ever go on). The POST is not aborted while the call waits: its answer is taken when it
/// comes; once the call has its result, a POST still unanswered is aborted (nothing reads its
/// answer, and it would hold a connection).
#[test]
fn a_server_request_before_the_posts_answer_is_answered() {
    for released_late in [false, true] {
        let answered = Rc::new(Cell::new(false));
        let released = Rc::new(Cell::new(!released_late));
        // Held by the POST while it waits (its count falls when the POST is let go).
        let post = Rc::new(());
        let (a2, r2, p2) = (answered.clone(), released.clone(), post.clone());
        let fake = Fake::with(Box::new(move |msg, live| {
            if msg["method"] == "tools/call" {
                live.message(&json!({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"}));
                let (live, id, a3, r3, held) = (live.clone(), msg["id"].clone(), a2.clone(), r2.clone(), p2.clone());
                let sent = Cell::new(false);
                // The tool goes on once its question is answered; the POST is answered when the
                // test says.
                return Reply::Until(
                    Rc::new(move || {
                        let _held = &held;
                        if a3.get() && !sent.replace(true) {
                            live.message(&json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "done"}]}}));
                        }
                        sent.get() && r3.get()
                    }),
                    Box::new(crate::protocol::client::tests::accepted()),
                );
            }
            if msg["id"] == "r1" && msg.get("method").is_none() {
                a2.set(true);
                return crate::protocol::client::tests::accepted();
            }
            standard(msg, live)
        }));
        let (c, _log) = client(&fake);
        block_on(c.connect()).unwrap();
        let r = bounded(c.call_tool("t", json!({}), &mut CallOptions::default()), 1000).expect("the call ends").unwrap();
        assert_eq!(r["content"][0]["text"], "done");
        assert!(answered.get());
        let posts = || c.transport().conn.borrow().as_ref().map_or(0, |c| c.state.borrow().posts.len());
        assert_eq!(posts(), 0);
        assert_eq!(Rc::strong_count(&post), 2, "the POST, answered or not, let go (the test's and the server's remain)");
        released.set(true);
        assert_eq!(bounded(c.list_tools(), 1000).unwrap().unwrap().len(), 1);
        assert_eq!(posts(), 0);
        assert_eq!(waiters(&c), 0);
    }
}

/// A server that holds the POST of `notifications/initialized` until the client has answered
/// what it asks on the stream meanwhile (roots): the handshake ends all the same (the POST goes
/// on by itself), and the client's next request reads and answers the question, after which the
/// server answers that POST (review F1, s24r).
#[test]
fn a_held_notification_post_does_not_hold_the_handshake() {
    let answered = Rc::new(Cell::new(false));
    let a2 = answered.clone();
    let fake = Fake::with(Box::new(move |msg, live| {
        if msg["method"] == "notifications/initialized" {
            live.message(&json!({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"}));
            let a3 = a2.clone();
            return Reply::Until(Rc::new(move || a3.get()), Box::new(crate::protocol::client::tests::accepted()));
        }
        if msg["id"] == "r1" && msg.get("method").is_none() {
            a2.set(true);
            return crate::protocol::client::tests::accepted();
        }
        standard(msg, live)
    }));
    let (c, _log) = client(&fake);
    bounded(c.connect(), 1000).expect("the handshake ends").unwrap();
    assert!(!answered.get());
    assert_eq!(bounded(c.list_tools(), 1000).expect("the listing ends").unwrap().len(), 1);
    assert!(answered.get(), "the question is answered by the next reader");
    let posts = || c.transport().conn.borrow().as_ref().map_or(0, |c| c.state.borrow().posts.len());
    assert_eq!(bounded(c.list_tools(), 1000).expect("the listing ends").unwrap().len(), 1);
    assert_eq!(posts(), 0, "the held POST was answered and let go");
    assert_eq!(waiters(&c), 0);
}

/// A notification the server sends on the stream while it holds that POST asks nothing: the
/// POST is waited for as before (only a server request lets it go on by itself).
#[test]
fn a_held_notification_post_waits_through_a_notification() {
    let fake = Fake::with(Box::new(move |msg, live| {
        if msg["method"] == "notifications/initialized" {
            live.message(&json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hello"}}));
            let polls = Cell::new(0);
            let held = move || {
                polls.set(polls.get() + 1);
                polls.get() > 3
            };
            return Reply::Until(Rc::new(held), Box::new(crate::protocol::client::tests::accepted()));
        }
        standard(msg, live)
    }));
    let (c, _log) = client(&fake);
    bounded(c.connect(), 1000).expect("the handshake ends").unwrap();
    let posts = || c.transport().conn.borrow().as_ref().map_or(0, |c| c.state.borrow().posts.len());
    assert_eq!(posts(), 0, "the POST was answered before connect() ended, not left to the stream's readers");
    assert_eq!(bounded(c.list_tools(), 1000).expect("the listing ends").unwrap().len(), 1);
    assert_eq!(waiters(&c), 0);
}

/// A server that writes a call's response on the stream before it answers the POST, and answers
/// that late or never (slow work after queueing the response, a buffering proxy): the call has its
/// response at once, as 2024-11-05 has it (the response is the event), and its POST, unanswered,
/// is aborted: nothing reads its answer, and in a browser it would hold one of the connections to
/// the origin (review F4, s27e; s27r1).
#[test]
fn a_response_on_the_stream_ends_the_call_before_its_posts_answer() {
    for released_late in [false, true] {
        let released = Rc::new(Cell::new(false));
        // Held by the POST while it waits (its count falls when the POST is let go).
        let post = Rc::new(());
        let (r2, p2) = (released.clone(), post.clone());
        let fake = Fake::with(Box::new(move |msg, live| {
            if msg["method"] == "tools/call" {
                live.message(&json!({"jsonrpc": "2.0", "id": msg["id"].clone(), "result": {"content": [{"type": "text", "text": "done"}]}}));
                if !released_late {
                    return Reply::Hang;
                }
                let (r3, held) = (r2.clone(), p2.clone());
                let until = move || {
                    let _held = &held;
                    r3.get()
                };
                return Reply::Until(Rc::new(until), Box::new(crate::protocol::client::tests::accepted()));
            }
            standard(msg, live)
        }));
        let (c, log) = client(&fake);
        block_on(c.connect()).unwrap();
        let aborted = log.borrow().aborted;
        let r = bounded(c.call_tool("t", json!({}), &mut CallOptions::default()), 1000).expect("the call ends on its response").unwrap();
        assert_eq!(r["content"][0]["text"], "done");
        assert_eq!(waiters(&c), 0);
        let posts = || c.transport().conn.borrow().as_ref().map_or(0, |c| c.state.borrow().posts.len());
        assert_eq!(posts(), 0, "the POST aborted, not kept");
        assert_eq!(Rc::strong_count(&post), 2);
        assert_eq!(log.borrow().aborted - aborted, usize::from(!released_late), "a hanging fetch counts as aborted when dropped");
        assert!(!wire(&log).iter().any(|w| w.ends_with("notifications/cancelled")), "nothing cancelled: {:?}", wire(&log));
        released.set(true);
        assert_eq!(bounded(c.list_tools(), 1000).unwrap().unwrap().len(), 1);
        assert_eq!(posts(), 0);
    }
}
