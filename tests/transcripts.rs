//! The sans-I/O MCP core driven by the HTTP exchanges recorded against real servers
//! (`../shared/fixtures/transcripts/`): every recorded SSE body parses to the same events at
//! every split point, every recorded body classifies to JSON-RPC messages with the response to
//! its request, and recorded exchanges replayed through the client give the recorded results.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::rc::Rc;

use futures_executor::block_on;
use serde_json::Value;
use toolwire::protocol::client::{CallOptions, Client, ClientOptions};
use toolwire::protocol::jsonrpc::{classify_all, Id, Incoming};
use toolwire::protocol::sse::{SseItem, SseParser};
use toolwire::protocol::transport::{Body, Clock, HttpRequest, HttpResponse, Transport, TransportError};

/// One recorded exchange.
#[derive(Debug, Clone)]
struct Exchange {
    file: String,
    request_body: Option<Value>,
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Exchange {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn content_type(&self) -> String {
        toolwire::protocol::client::content_type_essence(self.header("content-type").unwrap_or(""))
    }
}

fn transcripts() -> Vec<Exchange> {
    let dir = common::shared_dir().join("fixtures/transcripts");
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("transcripts are required").filter_map(|e| e.ok()).map(|e| e.path()).collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let file = f.file_name().unwrap().to_string_lossy().into_owned();
        for part in text.split(">>> REQUEST").skip(1) {
            let Some((req, resp)) = part.split_once("<<< RESPONSE") else { continue };
            let request_body = req.split("\n\n").nth(1).and_then(|b| serde_json::from_str(b.trim()).ok());
            let mut lines = resp.lines().skip(1);
            let Some(status_line) = lines.next() else { continue };
            let status = status_line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
            let mut headers = Vec::new();
            for line in lines.by_ref() {
                if line.trim().is_empty() {
                    break;
                }
                if let Some((k, v)) = line.split_once(':') {
                    headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
                }
            }
            let rest: Vec<&str> = lines.collect();
            let mut body = rest.join("\n");
            if let Some(i) = body.find("\n####") {
                body.truncate(i);
            }
            out.push(Exchange { file: file.clone(), request_body, status, headers, body });
        }
    }
    out
}

#[test]
fn transcripts_are_read() {
    let t = transcripts();
    assert!(t.len() >= 40, "{} exchanges", t.len());
    assert!(t.iter().any(|e| e.content_type() == "text/event-stream"));
    assert!(t.iter().any(|e| e.content_type() == "application/json"));
}

#[test]
fn every_recorded_sse_body_parses_the_same_at_every_split() {
    let mut bodies = 0;
    for ex in transcripts().iter().filter(|e| e.content_type() == "text/event-stream" && !e.body.trim().is_empty()) {
        let bytes = format!("{}\n\n", ex.body.trim_end()).into_bytes();
        let whole = SseParser::default().feed(&bytes).unwrap();
        assert!(!whole.is_empty(), "{}: no events", ex.file);
        for i in 0..=bytes.len() {
            let mut p = SseParser::default();
            let mut got = p.feed(&bytes[..i]).unwrap();
            got.extend(p.feed(&bytes[i..]).unwrap());
            assert_eq!(got, whole, "{}: split at {i}", ex.file);
        }
        bodies += 1;
    }
    assert!(bodies >= 10, "{bodies} SSE bodies");
}

/// The JSON-RPC messages of a recorded body (JSON or SSE).
fn messages(ex: &Exchange) -> Vec<Incoming> {
    match ex.content_type().as_str() {
        "application/json" => serde_json::from_str(&ex.body).map(classify_all).unwrap_or_default(),
        "text/event-stream" => {
            let items = SseParser::default().feed(format!("{}\n\n", ex.body.trim_end()).as_bytes()).unwrap();
            items
                .into_iter()
                .filter_map(|i| match i {
                    SseItem::Event(e) if !e.data.is_empty() => serde_json::from_slice::<Value>(&e.data).ok(),
                    _ => None,
                })
                .flat_map(classify_all)
                .collect()
        }
        _ => Vec::new(),
    }
}

#[test]
fn recorded_responses_answer_their_requests() {
    let mut checked = 0;
    for ex in transcripts() {
        let Some(req) = &ex.request_body else { continue };
        let (Some(id), Some(_method)) = (req.get("id").and_then(Id::from_value), req.get("method")) else { continue };
        if ex.status != 200 {
            continue;
        }
        let msgs = messages(&ex);
        if msgs.is_empty() {
            continue; // a stream cut before the response (resumption transcripts)
        }
        let answered = msgs.iter().any(|m| matches!(m, Incoming::Response { id: rid, .. } if *rid == id));
        let resumed = ex.file.contains("resum") || ex.file.contains("04-") || ex.file.contains("05-");
        assert!(answered || resumed, "{}: no response to {:?} in {msgs:?}", ex.file, id);
        // Server requests and notifications are recognised as such, never as our responses.
        for m in &msgs {
            assert!(!matches!(m, Incoming::Invalid(_)), "{}: unrecognised message {m:?}", ex.file);
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked} exchanges checked");
}

// ---- Replaying recorded exchanges through the client ----

/// A recorded reply: status, headers, body.
type Reply = (u16, Vec<(String, String)>, String);

struct Recorded {
    replies: RefCell<VecDeque<Reply>>,
    sent: RefCell<Vec<HttpRequest>>,
}

#[derive(Clone)]
struct Replay(Rc<Recorded>);

struct ChunkedBody(VecDeque<Vec<u8>>);

impl Body for ChunkedBody {
    fn next_chunk(&mut self) -> impl Future<Output = Option<Result<Vec<u8>, TransportError>>> {
        let next = self.0.pop_front();
        async move { next.map(Ok) }
    }
}

impl Transport for Replay {
    type Body = ChunkedBody;
    fn send(&self, req: HttpRequest) -> impl Future<Output = Result<HttpResponse<ChunkedBody>, TransportError>> {
        self.0.sent.borrow_mut().push(req);
        let (status, headers, body) = self.0.replies.borrow_mut().pop_front().unwrap_or((202, Vec::new(), String::new()));
        // Deliver the recorded body in 7-byte chunks, as a network would split it.
        let chunks = body.into_bytes().chunks(7).map(<[u8]>::to_vec).collect();
        async move { Ok(HttpResponse { status, headers, body: ChunkedBody(chunks) }) }
    }
}

#[derive(Clone, Copy)]
struct NoClock;
impl Clock for NoClock {
    fn sleep(&self, _ms: u64) -> impl Future<Output = ()> {
        futures_util::future::pending()
    }
    fn now_ms(&self) -> u64 {
        0
    }
}

/// The recorded reply to `method` (and tool), with its id rewritten to `new_id`.
fn reply_for(all: &[Exchange], file: &str, method: &str, tool: Option<&str>, new_id: i64) -> (u16, Vec<(String, String)>, String) {
    let ex = all
        .iter()
        .find(|e| {
            e.file.starts_with(file)
                && e.request_body.as_ref().is_some_and(|b| {
                    b["method"] == method && tool.is_none_or(|t| b["params"]["name"] == t) && b.get("id").is_some()
                })
                && e.status == 200
        })
        .unwrap_or_else(|| panic!("{file}: no recorded {method} {tool:?}"));
    let old_id = ex.request_body.as_ref().unwrap()["id"].to_string();
    let body = ex.body.replace(&format!("\"id\":{old_id}"), &format!("\"id\":{new_id}"));
    (ex.status, ex.headers.clone(), format!("{}\n\n", body.trim_end()))
}

#[test]
fn recorded_server_everything_session_replays_through_the_client() {
    let all = transcripts();
    let replies = vec![
        reply_for(&all, "01", "initialize", None, 0),
        (202, Vec::new(), String::new()),
        reply_for(&all, "01", "tools/list", None, 1),
        reply_for(&all, "02", "tools/call", Some("trigger-long-running-operation"), 2),
    ];
    let replay = Replay(Rc::new(Recorded { replies: RefCell::new(replies.into()), sent: RefCell::new(Vec::new()) }));
    let client = Client::new(replay.clone(), NoClock, ClientOptions::new("http://127.0.0.1/mcp"));
    block_on(client.connect()).unwrap();
    assert_eq!(client.protocol_version().as_deref(), Some("2025-11-25"));
    assert_eq!(client.server_info().unwrap()["name"], "mcp-servers/everything");
    let tools = block_on(client.list_tools()).unwrap();
    assert!(tools.iter().any(|t| t["name"] == "echo"), "{tools:?}");
    let progress = Rc::new(RefCell::new(0));
    let p2 = progress.clone();
    // The recording used the token "tok-10"; progress is matched by token, so count notifications instead.
    let mut opts = CallOptions { on_progress: Some(Box::new(move |_| *p2.borrow_mut() += 1)), ..CallOptions::default() };
    let result = block_on(client.call_tool("trigger-long-running-operation", serde_json::json!({"duration":2,"steps":4}), &mut opts)).unwrap();
    assert_eq!(result["content"][0]["text"], "Long running operation completed. Duration: 2 seconds, Steps: 4.");
    // Session headers went out on every request after initialize.
    let sent = replay.0.sent.borrow();
    let session = sent[1].headers.iter().find(|(k, _)| k == "mcp-session-id").map(|(_, v)| v.clone());
    assert!(session.is_some());
    assert!(sent[2..].iter().all(|r| r.headers.iter().any(|(k, v)| k == "mcp-session-id" && Some(v) == session.as_ref())));
}
