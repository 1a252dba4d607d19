//! The JS side of the MCP client: HTTP through a `fetch` function (the caller's, or
//! `globalThis.fetch` called unbound), streaming bodies read with `getReader()`, one
//! `AbortController` per request (aborted when Rust drops the request), and timers from
//! gloo-timers. Everything is duck-typed through `Reflect`, so any fetch-like function works.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use js_sys::{Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::wasm::caught;
use crate::protocol::transport::{Body, Clock, HttpRequest, HttpResponse, Transport, TransportError};
use crate::error::{Error, ErrorCode};
use crate::model::Borrowed as _;
use crate::text::Owned as _;

/// `v[key]`, or `undefined` (also when `v` is null or undefined).
pub(crate) fn get(v: &JsValue, key: &str) -> JsValue {
    if v.is_undefined() || v.is_null() {
        return JsValue::UNDEFINED;
    }
    caught::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// [`get`] for a caller that takes `null` as it takes `undefined` (it asks whether the value is
/// a function, an object, a string): `null` comes back as `undefined`. One crossing into JS
/// ([`caught::get_some`]), where telling the two apart takes [`get`] several.
pub(crate) fn get_loose(v: &JsValue, key: &str) -> JsValue {
    if v.is_undefined() || v.is_null() {
        return JsValue::UNDEFINED;
    }
    caught::get_some(v, &JsValue::from_str(key)).ok().flatten().unwrap_or(JsValue::UNDEFINED)
}

fn call_method(target: &JsValue, name: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = get(target, name).dyn_into().map_err(|_| JsValue::from_str(&format!("{name} is not a function")))?;
    let arr = js_sys::Array::new();
    for a in args {
        arr.push(a);
    }
    caught::apply(&f, target, &arr)
}

#[wasm_bindgen]
extern "C" {
    /// `performance.now()`: monotonic, where `Date.now()` moves with the system clock.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// A thenable or plain value as a future; one whose resolving throws is a rejected one.
/// `JsFuture` calls the promise's `then` (an import without `catch`), so it is always given a
/// promise of the module's own: the caller's value's `then` (its own, inherited, or a getter) runs
/// in the resolution of `new Promise(r => r(v))`, where what it throws rejects, and that promise
/// settles the one `JsFuture` waits on through `then(resolve, reject)`, the engine's own
/// functions, which the caller's value holds without holding anything of the module's.
///
/// `JsFuture`'s two callbacks stay in the module's table until its promise settles (js-sys cannot
/// take them back: "Ideally we'd have a way to cancel the callbacks"), which a caller's promise
/// may never do (a fetch that ignores its signal, an `onRequest` that ignores its `context.signal`).
/// So the future, dropped unsettled (the request given up: a timeout, an abort, `free()`), rejects
/// that promise itself: the callbacks are called, and go, at the next microtask.
pub(crate) fn to_future(v: JsValue) -> Settling {
    let mut give_up = None;
    let promise = Promise::new(&mut |resolve, reject| {
        let followed = Promise::new(&mut |r, _| {
            let _ = caught::call1(&r, &JsValue::UNDEFINED, &v);
        });
        promise_then(&followed, &resolve, &reject);
        give_up = Some(reject);
    });
    Settling { future: JsFuture::from(promise), give_up }
}

/// A thenable or plain value whose outcome only matters if it fails: `failed` is called with the
/// reason of a rejection (a throwing `then` included, as in [`to_future`]). Nothing waits for it:
/// where a future holds two of the module's values until the promise settles, this promise holds
/// `failed` only, and one that never settles (a write to a stream nobody reads) is the caller's
/// alone, let go with it.
pub(crate) fn when_rejected(v: &JsValue, failed: &Function) {
    let followed = Promise::new(&mut |r, _| {
        let _ = caught::call1(&r, &JsValue::UNDEFINED, v);
    });
    promise_then(&followed, &JsValue::UNDEFINED, failed);
}

#[wasm_bindgen]
extern "C" {
    /// `Promise.prototype.then.call(p, ok, err)`, on a promise of the module's own (which never throws).
    #[wasm_bindgen(js_namespace = ["Promise", "prototype", "then"], js_name = call)]
    fn promise_then(p: &Promise, ok: &JsValue, err: &Function);
}

/// [`to_future`]'s future: the promise's outcome; dropped before it, it rejects the promise.
pub(crate) struct Settling {
    future: JsFuture,
    /// The promise's `reject`, until it settled.
    give_up: Option<Function>,
}

impl Future for Settling {
    type Output = Result<JsValue, JsValue>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let out = Pin::new(&mut self.future).poll(cx);
        if out.is_ready() {
            self.give_up = None;
        }
        out
    }
}

impl Drop for Settling {
    fn drop(&mut self) {
        if let Some(reject) = self.give_up.take() {
            let _ = caught::call0(&reject, &JsValue::UNDEFINED);
        }
    }
}

pub(crate) fn describe(e: &JsValue) -> String {
    let name = get(e, "name").as_string().unwrap_or_default();
    let message = get(e, "message").as_string().or_else(|| e.as_string()).unwrap_or_default();
    let cause = get(e, "cause");
    // Node's undici: the code of a response it would not read or waited too long for (a header
    // it refuses, `HPE_*`; `UND_ERR_HEADERS_OVERFLOW`, `UND_ERR_HEADERS_TIMEOUT`...), named after
    // its message: it tells the core that the request was sent, in any wording.
    let code = get(&cause, "code").as_string().filter(|c| ["HPE_", "UND_ERR_HEADERS_", "UND_ERR_BODY_", "UND_ERR_RES_"].iter().any(|p| c.starts_with(p)));
    let cause = get(&cause, "message").as_string().map(|c| match &code {
        Some(code) if !c.contains(code.as_str()) => format!("{c} ({code})"),
        _ => c,
    });
    match cause {
        Some(c) if !c.is_empty() => format!("{name}: {message}: {c}"),
        _ if name.is_empty() => message,
        _ => format!("{name}: {message}"),
    }
}

/// Why `url`, a relative URL (`/mcp`, `//host/mcp`), cannot be fetched here, when it cannot
/// ([`fetched_url`]).
fn unresolvable_url(url: &str) -> Option<String> {
    fetched_url(url).err()
}

#[wasm_bindgen]
extern "C" {
    /// `globalThis`: the runtime's global object. Not `global()`, which takes `self` or
    /// `window` first: a Node test setup (jsdom-global) puts a `window` without `fetch` or `URL`
    /// beside Node's own.
    #[wasm_bindgen(thread_local_v2, js_name = globalThis)]
    static GLOBAL_THIS: JsValue;
}

/// The runtime's global object, `globalThis`, where `fetch`, `URL` and the like are read.
pub(crate) fn global() -> JsValue {
    GLOBAL_THIS.with(JsValue::clone)
}

/// `url` as the runtime's `fetch` takes it: a relative URL (`/mcp`, `//host/mcp`) against the
/// page's base URL (`document.baseURI`: a `<base href>`'s, an about:srcdoc frame's parent's), or
/// the worker's location; `Ok(None)` for a URL that is not relative. `Err` says why a relative
/// one cannot be fetched here: there is no base outside a page or a worker (Node, Deno,
/// Cloudflare Workers), nor one a path resolves against in a worker started from a `blob:` or
/// `data:` URL (whose location is that URL). `fetch` itself says only "Failed to parse URL",
/// which reads as an unreachable server or a CORS refusal. Everything that takes a relative
/// server URL somewhere (the OAuth discovery, the HTTP+SSE endpoint's origin) takes it here, so
/// that all agree with `fetch`.
pub(crate) fn fetched_url(url: &str) -> Result<Option<String>, String> {
    if !url.starts_with('/') {
        return Ok(None);
    }
    let global = global();
    let Ok(ctor) = get(&global, "URL").dyn_into::<Function>() else { return Ok(None) };
    let quoted = crate::text::quote(url);
    let document = get(&global, "document");
    let page = !document.is_undefined();
    let base = if page { get(&document, "baseURI") } else { get(&get(&global, "location"), "href") };
    let Some(base) = base.as_string() else {
        return Err(format!(
            "the URL {quoted} is relative, which only a page or a worker takes against its location, and there is none here: give the server's absolute URL"
        ));
    };
    if let Ok(parsed) = caught::construct(&ctor, &caught::list(&[&url.into(), &base.as_str().into()])) {
        return Ok(get(&parsed, "href").as_string());
    }
    let whose = if page { "this page's base URL" } else { "this worker's location" };
    Err(format!(
        "the URL {quoted} is relative, and {whose}, {}, is no base for it (as in a worker started from a blob: or data: URL): \
         give the server's absolute URL (in the page, new URL({quoted}, document.baseURI).href, sent to the worker)",
        crate::text::quote(&base)
    ))
}

/// A failure below HTTP, as the core sees it: its text.
fn network_failure(e: &JsValue) -> TransportError {
    TransportError::Network(describe(e))
}

/// Why a browser may have blocked a fetch of `url` that got no response: from a page (or
/// worker) served over https:, an http: URL whose host is not loopback (which browsers let
/// through) is mixed content, refused before anything is sent, with no more than a console
/// line saying so. Told beside the failure, not in its place: a browser set to allow it
/// would have sent it.
fn mixed_content(url: &str) -> Option<String> {
    if !url.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("http:")) {
        return None;
    }
    let global = global();
    if get(&get(&global, "location"), "protocol").as_string().as_deref() != Some("https:") {
        return None;
    }
    let ctor = get(&global, "URL").dyn_into::<Function>().ok()?;
    let parsed = caught::construct(&ctor, &caught::list(&[&url.into()])).ok()?;
    let host = get(&parsed, "hostname").as_string()?.to_ascii_lowercase();
    let loopback = host == "localhost" || host.ends_with(".localhost") || host.starts_with("127.") || host == "[::1]";
    (!loopback).then(|| {
        "this page is served over https: and the URL is http:, which a browser blocks as mixed content (its console says so): serve the MCP server over https".to_owned()
    })
}

/// [`network_failure`] of a fetch of `url`, with [`mixed_content`]'s reason where it applies.
fn fetch_failure(e: &JsValue, url: &str) -> TransportError {
    match (network_failure(e), mixed_content(url)) {
        (TransportError::Network(why), Some(mixed)) => TransportError::Network(if why.is_empty() { mixed } else { format!("{why}; {mixed}") }),
        (failure, _) => failure,
    }
}

fn is_abort(e: &JsValue) -> bool {
    get(e, "name").as_string().as_deref() == Some("AbortError")
}

/// Aborts its controller when dropped, unless disarmed.
pub(crate) struct AbortGuard {
    controller: Option<JsValue>,
}

impl AbortGuard {
    pub(crate) fn new() -> Self {
        let ctor = get(&global(), "AbortController");
        let controller = ctor.dyn_ref::<Function>().and_then(|c| caught::construct(c, &js_sys::Array::new()).ok()).map(JsValue::from);
        Self { controller }
    }

    pub(crate) fn signal(&self) -> JsValue {
        self.controller.as_ref().map_or(JsValue::UNDEFINED, |c| get(c, "signal"))
    }

    pub(crate) fn disarm(&mut self) {
        self.controller = None;
    }
}

impl Drop for AbortGuard {
    fn drop(&mut self) {
        if let Some(c) = &self.controller {
            let _ = call_method(c, "abort", &[]);
        }
    }
}

/// Fired, and the task to wake then: one per [`AbortWait`].
type Waiting = Rc<RefCell<(bool, Option<Waker>)>>;

/// The one `abort` listener on a signal, and the waits it wakes.
struct Listening {
    signal: JsValue,
    listener: Closure<dyn FnMut()>,
    waits: Vec<Waiting>,
}

thread_local! {
    /// One listener per signal however many calls wait on it: an app's one signal for a turn's
    /// parallel calls would otherwise gather a listener per call, and Node warns past 10 on one
    /// EventTarget (`MaxListenersExceededWarning`, a leak that is none). A handful of signals are
    /// waited on at a time, so a list, compared with `===`.
    static LISTENING: RefCell<Vec<Listening>> = RefCell::default();
}

/// Resolves when an AbortSignal fires. The signal has one listener for all the waits on it
/// ([`LISTENING`]), removed when the last of them is dropped, so a call whose signal never fires
/// leaves nothing on the signal (an app's one signal for all its calls would otherwise gather a
/// listener, and the wasm state it holds, per call).
pub(crate) struct AbortWait {
    signal: JsValue,
    state: Waiting,
}

impl AbortWait {
    /// `signal` has `aborted` and `addEventListener` (checked by the caller).
    ///
    /// No code of the signal's (a getter, a signal-like's own `addEventListener`, which may fire
    /// its listeners there and then) runs while [`LISTENING`] or a wait's state is borrowed: a
    /// listener called inside such a borrow would panic, which traps the module and leaves the
    /// borrow taken for every later call.
    pub(crate) fn new(signal: &JsValue) -> Self {
        let state: Waiting = Rc::default();
        let added = LISTENING.with(|l| {
            let mut listening = l.borrowed_mut();
            if let Some(on) = listening.iter_mut().find(|on| on.signal == *signal) {
                on.waits.push(state.clone());
                return None;
            }
            let fired = signal.clone();
            let listener = Closure::<dyn FnMut()>::new(move || {
                // Woken once the list is let go of (a wake may run a task at once).
                let wakers: Vec<Waker> = LISTENING.with(|l| {
                    let Ok(listening) = l.try_borrow() else { return Vec::new() };
                    let waits = listening.iter().find(|on| on.signal == fired).map_or(&[][..], |on| &on.waits[..]);
                    waits
                        .iter()
                        .filter_map(|w| {
                            let mut w = w.try_borrow_mut().ok()?;
                            w.0 = true;
                            w.1.take()
                        })
                        .collect()
                });
                wakers.into_iter().for_each(Waker::wake);
            });
            let f = listener.as_ref().clone();
            listening.push(Listening { signal: signal.clone(), listener, waits: vec![state.clone()] });
            Some(f)
        });
        // Listed first, added after: a listener fired at once finds this wait.
        if let Some(f) = added {
            let _ = call_method(signal, "addEventListener", &["abort".into(), f]);
        }
        Self { signal: signal.clone(), state }
    }
}

impl Future for AbortWait {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // Read before the state is borrowed: the getter may fire the listener, which marks it.
        let aborted = get(&self.signal, "aborted").as_bool() == Some(true);
        let mut s = self.state.borrowed_mut();
        if s.0 || aborted {
            return Poll::Ready(());
        }
        s.1 = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for AbortWait {
    fn drop(&mut self) {
        let last = LISTENING.with(|l| {
            let mut listening = l.borrowed_mut();
            let at = listening.iter().position(|on| on.signal == self.signal)?;
            listening[at].waits.retain(|w| !Rc::ptr_eq(w, &self.state));
            listening[at].waits.is_empty().then(|| listening.swap_remove(at))
        });
        // The last wait on the signal: its listener goes (called outside the list's borrow).
        if let Some(Listening { signal, listener, .. }) = last {
            if call_method(&signal, "removeEventListener", &["abort".into(), listener.as_ref().clone()]).is_err() {
                // A signal-like object that cannot take its listener back would call a freed
                // closure (a JS exception) when it fired: that one listener is left to it.
                listener.forget();
            }
        }
    }
}

/// A function that does nothing: the rejection handler of a stream cancelled on drop. One for
/// the module: a closure made per body and never called (a cancel that succeeds) is never freed.
fn ignore() -> JsValue {
    thread_local! {
        static IGNORE: Closure<dyn FnMut(JsValue)> = Closure::new(|_: JsValue| {});
    }
    IGNORE.with(|c| c.as_ref().clone())
}

/// HTTP through a JS `fetch`.
#[derive(Clone)]
pub(crate) struct FetchTransport {
    fetch: Option<Function>,
}

impl FetchTransport {
    /// `fetch`: the caller's function, or `None` for `globalThis.fetch` (looked up per request).
    pub(crate) fn new(fetch: Option<Function>) -> Self {
        Self { fetch }
    }
}

/// The headers the client reads; fetched by name so that any Headers-like object works.
/// `content-length` is CORS-safelisted: a page reads it from any server.
const READ_HEADERS: &[&str] = &["content-type", "content-length", "mcp-session-id", "www-authenticate", "mcp-protocol-version", "location", "retry-after"];

impl Transport for FetchTransport {
    type Body = FetchBody;

    fn resolve_url(&self, url: &str) -> Option<String> {
        // The base fetch resolves it against (a URL it cannot resolve fails when fetched).
        fetched_url(url).ok().flatten()
    }

    fn url_host(&self, url: &str) -> Option<String> {
        // `new URL(url).hostname`: the host fetch connects to, as the runtime's parser reads it.
        let ctor = get(&global(), "URL").dyn_into::<Function>().ok()?;
        let parsed = caught::construct(&ctor, &caught::list(&[&url.into()])).ok()?;
        get(&parsed, "hostname").as_string()
    }

    fn url_href(&self, url: &str) -> Option<String> {
        // `new URL(url).href`: the URL fetch requests, as the runtime's parser writes it.
        let ctor = get(&global(), "URL").dyn_into::<Function>().ok()?;
        let parsed = caught::construct(&ctor, &caught::list(&[&url.into()])).ok()?;
        get(&parsed, "href").as_string()
    }

    fn send(&self, req: HttpRequest) -> impl Future<Output = Result<HttpResponse<FetchBody>, TransportError>> {
        // A `fetch` of the caller's may take relative URLs its own way; the runtime's takes them
        // against its location, when there is one that can be a base.
        let unresolvable = if self.fetch.is_none() { unresolvable_url(&req.url) } else { None };
        let fetch = self.fetch.clone().or_else(|| get(&global(), "fetch").dyn_into::<Function>().ok());
        async move {
            if let Some(why) = unresolvable {
                return Err(TransportError::Refused(Box::new(Error::new(ErrorCode::Network, why))));
            }
            let Some(fetch) = fetch else {
                return Err(TransportError::Network("no fetch function: pass options.fetch".owned()));
            };
            let guard = AbortGuard::new();
            let init = Object::new();
            let headers = Object::new();
            for (k, v) in &req.headers {
                let _ = Reflect::set(&headers, &k.into(), &v.into());
            }
            let _ = Reflect::set(&init, &"method".into(), &req.method.as_str().into());
            let _ = Reflect::set(&init, &"headers".into(), &headers);
            if let Some(b) = &req.body {
                let _ = Reflect::set(&init, &"body".into(), &b.into());
            }
            let _ = Reflect::set(&init, &"signal".into(), &guard.signal());
            // Redirects are not followed (fetch would turn a redirected POST into a GET): the
            // client reports them, and OAuth discovery follows a metadata document's itself. A
            // browser gives an opaque redirect, status 0: discovery then asks for it to be followed.
            let _ = Reflect::set(&init, &"redirect".into(), &(if req.follow_redirects { "follow" } else { "manual" }).into());
            // Called unbound: `window.fetch` throws "Illegal invocation" when called as a method.
            let pending = caught::call2(&fetch, &JsValue::UNDEFINED, &req.url.clone().into(), &init).map_err(|e| network_failure(&e))?;
            let resp = to_future(pending).await.map_err(|e| if is_abort(&e) { TransportError::Aborted } else { fetch_failure(&e, &req.url) })?;
            let status = response_status(&resp)?;
            let h = get(&resp, "headers");
            let mut headers = Vec::new();
            for name in READ_HEADERS {
                if let Ok(v) = call_method(&h, "get", &[JsValue::from_str(name)]) {
                    if let Some(s) = v.as_string() {
                        headers.push(((*name).owned(), s));
                    }
                }
            }
            let stream = get(&resp, "body");
            let reader = if stream.is_null() || stream.is_undefined() { None } else { call_method(&stream, "getReader", &[]).ok() };
            // Without a streaming body (some fetch polyfills), read it whole.
            let whole = if reader.is_none() && !(stream.is_null() && status == 204) {
                call_method(&resp, "arrayBuffer", &[]).ok()
            } else {
                None
            };
            Ok(HttpResponse { status, headers, body: FetchBody { reader, whole, guard, done: false } })
        }
    }
}

/// The HTTP status of what `fetch` resolved to, or why it is no HTTP response (a custom fetch
/// that resolved to `undefined`, a string, `Response.error()`, a status that is not a number):
/// a NETWORK error that names it, not a status 0, which would read as a redirect. A browser's
/// redirect not followed is status 0 too, of type `opaqueredirect`, and stays one.
fn response_status(resp: &JsValue) -> Result<u16, TransportError> {
    let what = crate::wasm::interop::describe_js;
    if !resp.is_object() {
        return Err(TransportError::Network(format!("the fetch function resolved to {}, not a Response", what(resp))));
    }
    let kind = get(resp, "type").as_string();
    if kind.as_deref() == Some("error") {
        return Err(TransportError::Network("the fetch function resolved to a network error (a Response of type \"error\", as Response.error() makes)".owned()));
    }
    let status = get(resp, "status");
    match status.as_f64() {
        Some(n) if n.fract() == 0.0 && (0.0..=999.0).contains(&n) => match n as u16 {
            0 if kind.as_deref().is_some_and(|k| k != "opaqueredirect") => Err(TransportError::Network(format!(
                "the fetch function resolved to a Response of status 0 and type {}, which carries no HTTP response (a no-cors request's is opaque)",
                crate::text::quote(kind.as_deref().unwrap_or(""))
            ))),
            n => Ok(n),
        },
        _ => Err(TransportError::Network(format!("the fetch function resolved to an object whose status is {}, not an HTTP status", what(&status)))),
    }
}

/// A streaming response body.
pub(crate) struct FetchBody {
    reader: Option<JsValue>,
    whole: Option<JsValue>,
    guard: AbortGuard,
    done: bool,
}

impl Body for FetchBody {
    async fn next_chunk(&mut self) -> Option<Result<Vec<u8>, TransportError>> {
        if self.done {
            return None;
        }
        let pending = match (&self.reader, self.whole.take()) {
            (Some(r), _) => match call_method(r, "read", &[]) {
                Ok(p) => p,
                Err(e) => return Some(Err(network_failure(&e))),
            },
            (None, Some(whole)) => whole,
            (None, None) => {
                self.finish();
                return None;
            }
        };
        match to_future(pending).await {
            Err(e) if is_abort(&e) => Some(Err(TransportError::Aborted)),
            Err(e) => Some(Err(network_failure(&e))),
            Ok(v) if self.reader.is_none() => Some(chunk_bytes(&v)),
            Ok(v) if get(&v, "done").as_bool() == Some(true) => {
                self.finish();
                None
            }
            Ok(v) => Some(chunk_bytes(&get(&v, "value"))),
        }
    }
}

/// The bytes of a chunk of a response body (or of the whole body, `arrayBuffer()`'s): a
/// `Uint8Array` (a Node `Buffer` is one), another view of bytes or an `ArrayBuffer`, as they are;
/// a string, as UTF-8 (a `fetch` of a polyfill or a test's whose reader decodes; a lone UTF-16 surrogate as
/// its JSON escape, see `json_string_text`). Anything else is
/// `PROTOCOL`, naming it: `new Uint8Array(v)` read a string as no bytes (or `"5"` as five zeros), and
/// a body dropped without a word leaves the call to its timeout or a baffling parse error.
fn chunk_bytes(v: &JsValue) -> Result<Vec<u8>, TransportError> {
    // Bytes that cannot be read (a detached buffer, a Proxy of a Uint8Array) are the response's fault.
    if let Some(bytes) = crate::wasm::interop::js_bytes(v, "a chunk of the fetch function's response body") {
        return bytes.map_err(|mut e| {
            e.code = ErrorCode::Protocol;
            TransportError::Refused(Box::new(e))
        });
    }
    if let Some(s) = v.dyn_ref::<js_sys::JsString>() {
        return crate::wasm::interop::json_string_text(s, "a body chunk").map(String::into_bytes).map_err(|e| TransportError::Refused(Box::new(e)));
    }
    Err(TransportError::Refused(Box::new(Error::new(
        ErrorCode::Protocol,
        format!(
            "the fetch function's response body gave a chunk that is {}, not bytes (a Uint8Array) nor a string: a custom fetch (options.fetch) must give a Response whose body yields Uint8Array chunks",
            crate::wasm::interop::describe_js(v)
        ),
    ))))
}

impl FetchBody {
    /// The stream ended normally: dropping the body must not abort anything.
    fn finish(&mut self) {
        self.done = true;
        self.guard.disarm();
    }
}

impl Drop for FetchBody {
    fn drop(&mut self) {
        if !self.done {
            if let Some(r) = &self.reader {
                if let Ok(p) = call_method(r, "cancel", &[]) {
                    // Swallow the rejection of an already-aborted stream.
                    let _ = call_method(&p, "catch", &[ignore()]);
                }
            }
            // The guard aborts the fetch as it drops.
        }
    }
}

/// Cryptographically secure random bytes from `crypto.getRandomValues` (browsers, Node 19+).
pub(crate) fn random_bytes(buf: &mut [u8]) -> Result<(), Error> {
    let crypto = get(&global(), "crypto");
    let array = Uint8Array::new_with_length(buf.len() as u32);
    call_method(&crypto, "getRandomValues", &[array.clone().into()])
        .map_err(|_| Error::new(ErrorCode::Unauthorized, "OAuth needs crypto.getRandomValues (Web Crypto), which this runtime lacks"))?;
    array.copy_to(buf);
    Ok(())
}

/// Timers from gloo-timers (a dropped timer is cleared, so nothing keeps Node alive).
#[derive(Clone, Copy)]
pub(crate) struct JsClock;

impl Clock for JsClock {
    async fn sleep(&self, ms: u64) {
        // Browsers fire delays above 2^31-1 ms at once: a longer one (a timeout of `Infinity`,
        // `u64::MAX`) is waited out in steps of that.
        let mut left = ms;
        loop {
            let step = left.min(i32::MAX as u64);
            gloo_timers::future::TimeoutFuture::new(step as u32).await;
            left -= step;
            if left == 0 {
                break;
            }
        }
    }

    fn now_ms(&self) -> u64 {
        performance_now() as u64
    }
}
