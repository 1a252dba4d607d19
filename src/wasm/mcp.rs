//! `McpClient` and `McpHub`: the MCP client and hub for JS, over `fetch`.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::future_to_promise;

use crate::error::{Error, ErrorCode};
use crate::policy::Policy;
use crate::protocol::client::CloseSignal;
use crate::protocol::auth::{Authorize, OAuth, OAuthOptions, Saved};
use crate::protocol::client::{CallOptions, CancelFuture, Client, ClientOptions, Era, RequestContext};
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::legacy_sse::{LegacySse, Sleep, TransportChoice, PROBE_TIMEOUT_MS};
use crate::protocol::transport::Clock as _;
use crate::protocol::hub::{Confirm, ConfirmRequest, Hub, Selection};
use crate::providers::Provider;
use crate::wasm::caught;
use crate::wasm::bridge::{describe, get, to_future, AbortGuard, AbortWait, FetchTransport, JsClock};
use crate::wasm::convert::options_param;
use crate::wasm::interop::{array_from, arguments_from_js, describe_js, entries_of, entry_pair, from_js, is_array, name_param, option_keys, parse_js, refuse_lossy_options, refuse_lossy_options_of, sent_from_js, string_param, to_js};

/// `fetch`, under the adapter that speaks the deprecated HTTP+SSE transport when asked to (or
/// when `auto` finds it).
type JsTransport = LegacySse<FetchTransport>;
type JsClient = Client<JsTransport, JsClock>;

fn opt_fn(v: &JsValue, key: &str) -> Result<Option<Function>, Error> {
    let f = get(v, key);
    if f.is_undefined() || f.is_null() {
        return Ok(None);
    }
    f.dyn_into::<Function>().map(Some).map_err(|_| Error::new(ErrorCode::InvalidOptions, format!("options.{key} must be a function")))
}

/// A time in milliseconds ([`opt_limit`]): `Infinity` for none (`u64::MAX`, which the clock
/// waits out in steps: [`crate::wasm::bridge::JsClock`]).
fn opt_ms(raw: &JsValue, key: &str) -> Result<Option<u64>, Error> {
    opt_limit(raw, key, " (milliseconds)")
}

/// The largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A limit (a time, a size, a count), read from `raw`, the options object as JS holds it (JSON
/// would make `Infinity` `null`, read as no option at all): a positive integer up to
/// `Number.MAX_SAFE_INTEGER`, or `Infinity` for no limit (`u64::MAX`). Absent, `undefined` or
/// `null`: the default.
fn opt_limit(raw: &JsValue, key: &str, unit: &str) -> Result<Option<u64>, Error> {
    let v = get(raw, key);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    // A boxed Number (`new Number(5000)`) as the number it holds, as JSON reads it.
    match crate::wasm::interop::js_number(&v) {
        Some(n) if n == f64::INFINITY => Ok(Some(u64::MAX)),
        Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER => Ok(Some(n as u64)),
        _ => Err(Error::new(
            ErrorCode::InvalidOptions,
            format!("options.{key} must be a positive integer{unit} up to 2^53 - 1, or Infinity for no limit"),
        )),
    }
}

/// A size or count limit ([`opt_limit`]) as a `usize`: past what memory holds (on wasm32, 4 GiB)
/// it is no limit.
fn opt_size(raw: &JsValue, key: &str) -> Result<Option<usize>, Error> {
    Ok(opt_limit(raw, key, "")?.map(|n| usize::try_from(n).unwrap_or(usize::MAX)))
}

/// The options that [`opt_limit`] and `maxRetries` read from JS as it holds them, left out of the
/// check for numbers JSON cannot hold (`Infinity`).
const LIMIT_KEYS: [&str; 7] = ["timeoutMs", "idleTimeoutMs", "maxPages", "maxTools", "maxEventBytes", "maxResponseBytes", "maxRetries"];

/// The keys of `McpClient`'s options. Not `url`: the URL is the constructor's first argument.
const CLIENT_KEYS: [&str; 22] = [
    "fetch", "headers", "timeoutMs", "idleTimeoutMs", "clientInfo", "maxPages", "maxTools", "maxEventBytes", "maxResponseBytes",
    "maxRetries", "onToolListChanged", "onLog", "onNotification", "capabilities", "era", "transport", "logLevel",
    "validateStructuredContent", "listen", "onRequest", "onUnauthorized", "oauth",
];

/// The keys of a hub's server config: `url` and `McpClient`'s options.
const SERVER_KEYS: [&str; 23] = [
    "url", "fetch", "headers", "timeoutMs", "idleTimeoutMs", "clientInfo", "maxPages", "maxTools", "maxEventBytes", "maxResponseBytes",
    "maxRetries", "onToolListChanged", "onLog", "onNotification", "capabilities", "era", "transport", "logLevel",
    "validateStructuredContent", "listen", "onRequest", "onUnauthorized", "oauth",
];

/// Refuses a key of `options` (named `what`) that is not in `known`: a misspelt option would be
/// ignored, and what it asked for (a policy, a timeout) silently not done. The MCP SDK's names
/// of toolwire's options are named as such.
fn refuse_unknown_keys(options: &JsValue, what: &str, known: &[&str]) -> Result<(), Error> {
    for key in option_keys(options) {
        // The SDK's name of an option this method takes (`connect()` takes no `onprogress`).
        if let Some((sdk, ours)) = SDK_CALL_OPTIONS.iter().find(|(sdk, ours)| *sdk == key && !known.contains(sdk) && known.contains(ours)) {
            return Err(Error::new(ErrorCode::InvalidOptions, format!("{what}.{sdk} is the MCP SDK's name: toolwire's is {what}.{ours}")));
        }
    }
    crate::wasm::interop::refuse_unknown_keys(options, what, known, true)
}

/// The keys of `McpHub.tools`' options: the conversion's, but for the server, which each tool
/// has. Its `limits` takes the keys of [`crate::convert::LIMIT_KEYS`], every other refused too.
const HUB_TOOLS_KEYS: [&str; 7] = ["naming", "separator", "prefix", "portableNames", "strict", "geminiMode", "limits"];

/// The keys of `McpHub`'s options.
const HUB_KEYS: [&str; 3] = ["fetch", "policy", "confirm"];

/// Whether the runtime is a browser's (a page or a worker of one), where a request can be
/// refused by CORS.
fn browser_like() -> bool {
    let global = crate::wasm::bridge::global();
    !get(&global, "document").is_undefined() || get(&global, "WorkerGlobalScope").is_function()
}

/// The MCP server URL: a string or a `URL` object, absolute `http(s)` (the scheme in any case) as
/// the runtime's URL parser reads it, or a path (`/mcp`), taken against the page's base URL.
fn url_param(url: &JsValue, what: &str) -> Result<String, Error> {
    let url = match url.as_string() {
        Some(s) => s,
        // A URL object (or anything with an `href` string, as `location`).
        None if url.is_object() && get(url, "href").is_string() => get(url, "href").as_string().unwrap_or_default(),
        None => return Err(Error::new(ErrorCode::InvalidInput, format!("{what} must be a string or a URL, got {}", describe_js(url)))),
    };
    // fetch refuses a URL with credentials, and an error would show the password: refused,
    // and every message shows the URL without them.
    let shown = crate::text::quote(&without_userinfo(&url));
    let credentials = || {
        let headers = what.strip_suffix("url").filter(|w| !w.is_empty()).map_or("options.".to_owned(), str::to_owned);
        Error::new(
            ErrorCode::InvalidInput,
            format!("{what} holds a user name or password (`user:password@` before the host), which fetch refuses: give the URL without them, and the credentials in {headers}headers (Authorization)"),
        )
    };
    if url.starts_with('/') {
        // `//user:password@host/mcp`: this page's scheme, another host.
        if url.starts_with("//") && without_userinfo(&url) != url {
            return Err(credentials());
        }
        return Ok(url);
    }
    let scheme = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
    if !matches!(scheme.as_deref(), Some("http" | "https")) {
        return Err(Error::new(ErrorCode::InvalidInput, format!("{what} must be http(s), got {shown}")));
    }
    let Some(ctor) = get(&crate::wasm::bridge::global(), "URL").dyn_into::<Function>().ok() else { return Ok(url) };
    match caught::construct(&ctor, &caught::list(&[&url.as_str().into()])) {
        Ok(parsed) if get(&parsed, "username").as_string().is_some_and(|u| !u.is_empty()) || get(&parsed, "password").as_string().is_some_and(|p| !p.is_empty()) => Err(credentials()),
        // The scheme as fetch sends it; the rest as given.
        Ok(parsed) if !url.starts_with("http") => Ok(get(&parsed, "href").as_string().unwrap_or(url)),
        Ok(_) => Ok(url),
        Err(e) => Err(Error::new(ErrorCode::InvalidInput, format!("{what} is not a valid URL ({}): {shown}", describe(&e)))),
    }
}

/// `url` with the `user:password@` of its authority (if any) written `…@`, for messages. The
/// authority as URL parsers find it: after the scheme and any slashes, up to `/ ? # \`.
fn without_userinfo(url: &str) -> String {
    let scheme = url.find(':').filter(|&i| i > 0 && url[..i].bytes().all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b)));
    let after = scheme.map_or(0, |i| i + 1);
    let start = after + url[after..].bytes().take_while(|b| matches!(b, b'/' | b'\\')).count();
    let rest = &url[start..];
    let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    match rest[..end].rfind('@') {
        Some(at) => format!("{}…{}", &url[..start], &rest[at..]),
        None => url.to_owned(),
    }
}

/// `headers` as given: an object of strings, a `Headers`, a `Map` or an array of `[name, value]`
/// pairs (the last three read by their entries).
fn js_header_pairs(h: &JsValue, what: &str) -> Result<Vec<(String, String)>, Error> {
    let iterable = is_array(h) || h.is_instance_of::<js_sys::Map>() || get(&get(h, "constructor"), "name").as_string().as_deref() == Some("Headers");
    if !iterable {
        if !h.is_object() || h.is_function() {
            return Err(Error::new(ErrorCode::InvalidOptions, format!("{what} must be an object of strings, got {}", describe_js(h))));
        }
        // Held to the options' own check: a header inherited from a prototype, a getter of a
        // class or a value not enumerable, which JSON does not see, would not be sent.
        refuse_lossy_options(h, what, &[])?;
        return header_pairs(&from_js(h, what)?, what);
    }
    let bad = || Error::new(ErrorCode::InvalidOptions, format!("{what}: each entry must be a [name, value] pair of strings"));
    let mut out = serde_json::Map::new();
    // Read into fresh arrays, where a throwing iterator or element getter is caught.
    let entries = array_from(h).map_err(|_| bad())?;
    for entry in entries.iter() {
        if !is_array(&entry) {
            return Err(bad());
        }
        let pair = array_from(&entry).map_err(|_| bad())?;
        let (Some(k), Some(v)) = (pair.get(0).as_string(), pair.get(1).as_string()) else { return Err(bad()) };
        if pair.length() != 2 {
            return Err(bad());
        }
        out.insert(k, Value::String(v));
    }
    header_pairs(&Value::Object(out), what)
}

/// A count or a size: a positive integer.
/// An `INVALID_OPTIONS` error that says what an option must be (`options.era must be ...`) says
/// what it was too, as JS holds it: one phrasing, "must be X, got Y".
fn with_got(mut e: Error, options: &JsValue) -> Error {
    let Some(rest) = e.message.strip_prefix("options.") else { return e };
    let Some((path, said)) = rest.split_once(' ') else { return e };
    // Only "options.PATH must ...": what the message says must be is the value at PATH (not
    // `options.headers header "x" must ...`, about one of its values).
    if e.code != ErrorCode::InvalidOptions || !said.starts_with("must ") || rest.contains(", got ") || rest.contains("; got ") {
        return e;
    }
    let value = path.trim_end_matches(':').split('.').fold(options.clone(), |v, k| get(&v, k));
    let got = describe_js(&value);
    e.message = format!("{}, got {got}", e.message);
    e
}

/// Reads client options (a hub's server config when `config`); `fetch` and callbacks are JS
/// values, the rest is JSON.
fn client_options(url: String, options: &JsValue, config: bool) -> Result<(ClientOptions, Option<Function>, TransportChoice), Error> {
    read_client_options(url, options, config).map_err(|e| with_got(e, options))
}

fn read_client_options(url: String, options: &JsValue, config: bool) -> Result<(ClientOptions, Option<Function>, TransportChoice), Error> {
    crate::protocol::client::CORS_POSSIBLE.store(browser_like(), std::sync::atomic::Ordering::Relaxed);
    refuse_lossy_options_of(options, "options", &[&["headers"][..], &LIMIT_KEYS].concat(), if config { &SERVER_KEYS } else { &CLIENT_KEYS })?;
    // A hub's server config holds its url; McpClient's options do not (it would be ignored, and
    // the client speak to the URL of the first argument).
    if !config && option_keys(options).iter().any(|k| k == "url") {
        return Err(Error::new(
            ErrorCode::InvalidOptions,
            "options has no key \"url\": the server's URL is McpClient's first argument (new McpClient(url, options))",
        ));
    }
    refuse_unknown_keys(options, "options", if config { &SERVER_KEYS } else { &CLIENT_KEYS })?;
    let mut opts = ClientOptions::new(url);
    let fetch = opt_fn(options, "fetch")?;
    let headers = get(options, "headers");
    if !headers.is_undefined() && !headers.is_null() {
        opts.headers = own_headers(js_header_pairs(&headers, "options.headers")?, "options.headers")?;
    }
    // Those of the plain-data options given as a function or a symbol (a getter passed
    // uncalled), which the JSON view below would read as not given.
    for key in ["clientInfo", "capabilities", "era", "transport", "logLevel", "validateStructuredContent"] {
        crate::wasm::interop::refuse_left_out(&get(options, key), &format!("options.{key}")).map_err(|m| Error::new(ErrorCode::InvalidOptions, m))?;
    }
    // Sent in the handshake as given: a value deep inside that JSON would change is refused.
    for key in ["clientInfo", "capabilities"] {
        sent_from_js(&get(options, key), &format!("options.{key}"))?;
    }
    // JSON view of the plain-data options (functions drop out of JSON.stringify; the headers,
    // read above, may be a Headers or a Map, which JSON would make `{}`).
    let data = match from_js(options, "options")? {
        Value::Object(mut o) => {
            o.remove("headers");
            Value::Object(o)
        }
        v => v,
    };
    if let Some(t) = opt_ms(options, "timeoutMs")? {
        opts.timeout_ms = t;
    }
    // Infinity: no idle timeout, as when none is given.
    opts.idle_timeout_ms = opt_ms(options, "idleTimeoutMs")?.filter(|t| *t != u64::MAX);
    if let Some(p) = opt_size(options, "maxPages")? {
        opts.max_pages = p;
    }
    if let Some(p) = opt_size(options, "maxTools")? {
        opts.max_tools = p;
    }
    if let Some(p) = opt_size(options, "maxEventBytes")? {
        opts.max_event_bytes = p;
    }
    if let Some(p) = opt_size(options, "maxResponseBytes")? {
        opts.max_body_bytes = p;
    }
    // Reopenings past a hundred in a row would only hide a server that is gone: Infinity is refused.
    let retries = get(options, "maxRetries");
    if !retries.is_undefined() && !retries.is_null() {
        opts.max_retries = crate::wasm::interop::js_number(&retries)
            .filter(|n| (0.0..=100.0).contains(n) && n.fract() == 0.0)
            .ok_or_else(|| Error::new(ErrorCode::InvalidOptions, "options.maxRetries must be an integer from 0 to 100"))? as u32;
    }
    match data.get("capabilities") {
        None | Some(Value::Null) => {}
        Some(Value::Object(c)) => {
            if let Some(problem) = crate::protocol::client::capabilities_problem(c) {
                return Err(Error::new(ErrorCode::InvalidOptions, problem));
            }
            opts.capabilities = c.clone();
        }
        Some(_) => return Err(Error::new(ErrorCode::InvalidOptions, "options.capabilities must be an object")),
    }
    opts.era = match data.get("era") {
        None | Some(Value::Null) => Era::Auto,
        Some(v) if v == "auto" => Era::Auto,
        Some(v) if v == "legacy" => Era::Legacy,
        Some(v) if v == "modern" => Era::Modern,
        Some(_) => return Err(Error::new(ErrorCode::InvalidOptions, "options.era must be \"auto\", \"legacy\" or \"modern\"")),
    };
    let choice = match data.get("transport") {
        None | Some(Value::Null) => TransportChoice::Auto,
        Some(v) if v == "auto" => TransportChoice::Auto,
        Some(v) if v == "streamable-http" => TransportChoice::StreamableHttp,
        Some(v) if v == "sse" => TransportChoice::Sse,
        Some(_) => return Err(Error::new(ErrorCode::InvalidOptions, "options.transport must be \"auto\", \"streamable-http\" or \"sse\"")),
    };
    // 2026-07-28 has no HTTP+SSE transport (which opens its stream for `initialize` only).
    if opts.era == Era::Modern && choice == TransportChoice::Sse {
        return Err(Error::new(ErrorCode::InvalidOptions, "options.era \"modern\" (MCP 2026-07-28) cannot go with options.transport \"sse\": the revision has no HTTP+SSE transport"));
    }
    const LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
    opts.log_level = match data.get("logLevel") {
        None | Some(Value::Null) => None,
        Some(Value::String(l)) if LEVELS.contains(&l.as_str()) => Some(l.clone()),
        Some(_) => return Err(Error::new(ErrorCode::InvalidOptions, format!("options.logLevel must be one of {}", LEVELS.join(", ")))),
    };
    match data.get("validateStructuredContent") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => opts.validate_structured_content = *b,
        Some(_) => return Err(Error::new(ErrorCode::InvalidOptions, "options.validateStructuredContent must be a boolean")),
    }
    if let Some(ci) = data.get("clientInfo") {
        if ci.get("name").and_then(Value::as_str).is_none() || ci.get("version").and_then(Value::as_str).is_none() {
            return Err(Error::new(ErrorCode::InvalidOptions, "options.clientInfo needs a string name and a string version"));
        }
        opts.client_info = ci.clone();
    }
    Ok((opts, fetch, choice))
}

/// `headers` (`what` names them), none of them one the client sets itself from the session,
/// the protocol version or the request's body: such a one is `INVALID_OPTIONS`, naming it.
fn own_headers(headers: Vec<(String, String)>, what: &str) -> Result<Vec<(String, String)>, Error> {
    match headers.iter().find(|(k, _)| crate::protocol::headers::client_owned(k)) {
        Some((name, _)) => Err(Error::new(ErrorCode::InvalidOptions, format!("{what}: {} is a header MCP's client sets itself (from the session, the protocol version or the request's body)", crate::text::quote(name)))),
        None => Ok(headers),
    }
}

/// An object of header names to strings (`what` names it in errors), each name lower-cased.
fn header_pairs(h: &Value, what: &str) -> Result<Vec<(String, String)>, Error> {
    let Value::Object(h) = h else { return Err(Error::new(ErrorCode::InvalidOptions, format!("{what} must be an object of strings"))) };
    let mut out = Vec::with_capacity(h.len());
    for (k, v) in h {
        let v = v.as_str().ok_or_else(|| Error::new(ErrorCode::InvalidOptions, format!("{what}: header \"{k}\" must be a string, got {}", crate::model::json_type(v))))?;
        // A name is an HTTP token; a value no control character but tab (fetch refuses them),
        // and (fetch's ByteString) no character past U+00FF.
        let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        if k.is_empty() || !k.bytes().all(token) || v.bytes().any(|b| (b < b' ' && b != b'\t') || b == 0x7f) {
            return Err(Error::new(ErrorCode::InvalidOptions, format!("{what}: header {} has characters a header cannot carry", crate::text::quote(k))));
        }
        if let Some(c) = v.chars().find(|c| *c > '\u{FF}') {
            return Err(Error::new(
                ErrorCode::InvalidOptions,
                format!("{what}: header {} holds {} (U+{:04X}), which fetch refuses: a header value takes characters up to U+00FF (encode the value, as a token or base64)", crate::text::quote(k), crate::text::quote(&c.to_string()), c as u32),
            ));
        }
        out.push((k.to_ascii_lowercase(), v.to_owned()));
    }
    Ok(out)
}

/// A client of `options`, or of a hub's server config (`config`: what the hub's errors call it).
/// What goes wrong outside any call (a renewed session's subscriptions lost) is said on
/// `console.error`, as a listening stream's end without `onEnd` is: no call of the app's fails
/// with it. A hub's server is named (`server` detail).
fn new_client(url: String, options: &JsValue, config: Option<&str>, default_fetch: Option<Function>) -> Result<Rc<JsClient>, Error> {
    let client = match config {
        None => client_of(url, options, false, default_fetch)?,
        Some(what) => client_of(url, options, true, default_fetch).map_err(|e| in_config(e, what))?,
    };
    let server = config.map(|what| what.strip_prefix("servers.").unwrap_or(what).to_owned());
    client.set_problem_handler(Some(Box::new(move |e: &Error| {
        let (who, e) = match &server {
            None => ("McpClient".to_owned(), e.clone()),
            Some(name) => (format!("McpHub's server {}", crate::text::quote(name)), e.clone().with_detail("server", name.as_str())),
        };
        let console = get(&crate::wasm::bridge::global(), "console");
        if let Ok(error) = get(&console, "error").dyn_into::<Function>() {
            let _ = caught::call2(&error, &console, &format!("toolwire: {who}:").into(), &JsValue::from(e));
        }
    })));
    Ok(client)
}

/// An error about a hub's server config, which the client's reading calls `options`: named as
/// the hub's caller wrote it (`servers.github.timeoutMs`, not `options.timeoutMs`), the server in
/// its `server` detail. Only the message's own words are renamed, not the values it quotes (from
/// the first `"` on).
fn in_config(mut e: Error, what: &str) -> Error {
    let own = e.message.find('"').unwrap_or(e.message.len());
    let (words, quoted) = e.message.split_at(own);
    let mut renamed = String::with_capacity(e.message.len() + 16);
    let mut rest = words;
    let mut at_start = true;
    while let Some(i) = rest.find("options") {
        let before_ok = (at_start && i == 0) || rest[..i].ends_with([' ', '(']);
        let after = &rest[i + "options".len()..];
        let after_ok = after.starts_with('.') || after.starts_with(' ') || after.starts_with(':');
        renamed.push_str(&rest[..i]);
        renamed.push_str(if before_ok && after_ok { what } else { "options" });
        rest = after;
        at_start = false;
    }
    renamed.push_str(rest);
    renamed.push_str(quoted);
    e.message = renamed;
    let server = what.strip_prefix("servers.").unwrap_or(what).to_owned();
    e.with_detail("server", server)
}

fn client_of(url: String, options: &JsValue, config: bool, default_fetch: Option<Function>) -> Result<Rc<JsClient>, Error> {
    let (opts, fetch, choice) = client_options(url, options, config)?;
    let transport = FetchTransport::new(fetch.or(default_fetch));
    // The old transport's endpoint must be of the stream's origin: a relative URL is compared
    // as fetch resolves it (the page's base URL).
    let absolute = crate::wasm::bridge::fetched_url(&opts.url).ok().flatten().unwrap_or_else(|| opts.url.clone());
    let sleep: Sleep = Rc::new(|ms| Box::pin(JsClock.sleep(ms)));
    let adapter = LegacySse::new(transport.clone(), absolute, choice)
        .with_limits(opts.max_event_bytes, opts.max_body_bytes)
        .with_probe_timer(PROBE_TIMEOUT_MS.min(opts.timeout_ms), sleep);
    let client = Rc::new(Client::new(adapter, JsClock, opts));
    // A call's error comes at its deadline (or abort); its `notifications/cancelled` goes out after.
    client.set_spawner(Some(Rc::new(wasm_bindgen_futures::spawn_local)));
    // Notification callbacks.
    let weak = Rc::downgrade(&client);
    let generation = move || weak.upgrade().map_or(u64::MAX, |c| c.close_generation());
    let on_list_changed = opt_fn(options, "onToolListChanged")?.map(|f| coalesced(f, generation));
    let on_log = opt_fn(options, "onLog")?;
    let on_any = opt_fn(options, "onNotification")?;
    if on_list_changed.is_some() || on_log.is_some() || on_any.is_some() {
        client.set_notification_handler(Some(Box::new(move |method: &str, params: &Value| {
            let js_params = to_js(params).unwrap_or(JsValue::UNDEFINED);
            // A throwing callback must not break the protocol loop.
            if method == "notifications/tools/list_changed" {
                if let Some(changed) = &on_list_changed {
                    changed();
                }
            }
            if method == "notifications/message" {
                if let Some(f) = &on_log {
                    call_ignored(f, &js_params, "onLog");
                }
            }
            if let Some(f) = &on_any {
                let msg = method_and_params(method, params).unwrap_or(JsValue::UNDEFINED);
                call_ignored(f, &msg, "onNotification");
            }
        })));
    }
    auto_listen(&client, options).map_err(|e| with_got(e, options))?;
    let oauth = get(options, "oauth");
    if !oauth.is_undefined() && !oauth.is_null() {
        if opt_fn(options, "onUnauthorized")?.is_some() {
            return Err(Error::new(ErrorCode::InvalidOptions, "options.oauth and options.onUnauthorized cannot both be given (oauth is the unauthorized handler)"));
        }
        let o = new_oauth(&client.options().url, &oauth, transport)?;
        client.set_auth_headers(o.headers());
        client.set_unauthorized_handler(Some(o.handler()));
    }
    if let Some(f) = opt_fn(options, "onUnauthorized")? {
        client.set_unauthorized_handler(Some(Box::new(move |info: &Value| {
            // A request refused again with the headers given: the refusal stands, but a step-up
            // (403 `insufficient_scope`) that answers the request sent again after a 401.
            let retried = info.get("retried").and_then(Value::as_u64);
            let step_up_after_401 = retried == Some(401) && info.get("status").and_then(Value::as_u64) == Some(403);
            if retried.is_some() && !step_up_after_401 {
                return Box::pin(async { Ok(None) });
            }
            let failed = |e: &JsValue| {
                let why = get(e, "message").as_string().or_else(|| e.as_string()).unwrap_or_else(|| "it threw".into());
                Error::new(ErrorCode::Unauthorized, format!("the client's onUnauthorized failed: {why}"))
            };
            // What the client tells the oauth option alone (see `Client::reauthorized`).
            let mut info = info.clone();
            if let Value::Object(m) = &mut info {
                m.remove("refusedAtOnce");
            }
            let called = to_js(&info).and_then(|info| caught::call1(&f, &JsValue::UNDEFINED, &info).map_err(|e| failed(&e)));
            Box::pin(async move {
                let value = to_future(called?).await.map_err(|e| failed(&e))?;
                if value.is_undefined() || value.is_null() {
                    return Ok(None);
                }
                let headers = header_pairs(&from_js(&value, "the onUnauthorized result")?, "the onUnauthorized result")?;
                Ok(Some(own_headers(headers, "the onUnauthorized result")?))
            })
        })));
    }
    if let Some(f) = opt_fn(options, "onRequest")? {
        client.set_request_handler(Some(Box::new(move |method: &str, params: &Value, request: &RequestContext| {
            let msg = method_and_params(method, params);
            let asked = (method.to_owned(), params.clone());
            let input_round = request.input_round;
            // `{id, related, signal}`: `related` the client request it came for (`{id, method,
            // tool?}`) or null; the signal is aborted when the future below is dropped unsettled
            // (the server cancelled the request, its stream was given up, the client closed).
            let mut guard = AbortGuard::new();
            let context = Object::new();
            let related = request.related.as_ref().map_or(Ok(JsValue::NULL), |r| to_js(&r.to_value()));
            let _ = Reflect::set(&context, &"id".into(), &to_js(&request.id).unwrap_or(JsValue::UNDEFINED));
            let _ = Reflect::set(&context, &"related".into(), &related.unwrap_or(JsValue::NULL));
            let _ = Reflect::set(&context, &"signal".into(), &guard.signal());
            // Called now, awaited in the future (a value or a promise of one).
            let internal = |message: String| RpcError { code: -32603, message, data: None };
            let called = msg.map_err(|e| internal(e.message)).and_then(|msg| caught::call2(&f, &JsValue::UNDEFINED, &msg, &context).map_err(|e| thrown_rpc_error(&e)));
            Box::pin(async move {
                let settled = match called {
                    Ok(p) => to_future(p).await,
                    Err(e) => {
                        guard.disarm();
                        return Err(e);
                    }
                };
                guard.disarm();
                let value = settled.map_err(|e| thrown_rpc_error(&e))?;
                if value.is_undefined() {
                    return Err(internal("the client's onRequest returned no result".into()));
                }
                // A result is an object (MCP's results all are).
                match sent_from_js(&value, "the onRequest result").map_err(|e| internal(e.message))? {
                    v @ Value::Object(_) => {
                        // An answer to a server request that the client refuses for its shape (the
                        // server is answered -32602): said on `console.error`, as a callback's
                        // failure is, since the app that returned it hears of it nowhere else. A
                        // 2026-07-28 round's refusal fails the call, which tells the app.
                        if let Some(e) = crate::protocol::client::invalid_answer(&asked.0, &asked.1, &v).filter(|_| !input_round) {
                            report_failed("onRequest", &format!("its answer to {} was refused: {}", asked.0, e.message).into());
                        }
                        Ok(v)
                    }
                    other => Err(internal(format!("the client's onRequest returned {}, not an object", crate::model::json_type(&other)))),
                }
            })
        })));
    }
    Ok(client)
}

/// Calls a callback whose outcome is the caller's (`onLog`, `onNotification`, `onProgress`,
/// `onEnd`, `onSaved`): a throw must not break the protocol loop, nor the rejection of a promise
/// (any thenable) it returns, which left alone is an unhandled rejection and ends a Node process.
/// Either is reported on `console.error`, naming the callback (the SDK hands handlers' errors to
/// its `onerror`), and the client goes on. What it returns is not awaited: its rejection goes to
/// [`reporter`], and one that never settles holds nothing of the module's (nor the client).
fn call_ignored(f: &Function, arg: &JsValue, name: &'static str) {
    let returned = match caught::call1(f, &JsValue::UNDEFINED, arg) {
        Ok(returned) => returned,
        Err(e) => return report_failed(name, &e),
    };
    // A plain function's `undefined` costs nothing more.
    if returned.is_object() || returned.is_function() {
        let failed: Function = reporter().bind1(&JsValue::UNDEFINED, &JsValue::from_str(name)).unchecked_into();
        crate::wasm::bridge::when_rejected(&returned, &failed);
    }
}

/// `(name, e) => report_failed(name, e)`, one for the module: each ignored promise holds it bound
/// to its callback's name, a JS function, none of the module's values.
fn reporter() -> Function {
    thread_local! {
        static REPORTER: Closure<dyn FnMut(JsValue, JsValue)> = Closure::new(|name: JsValue, e: JsValue| {
            report_failed(&name.as_string().unwrap_or_default(), &e);
        });
    }
    REPORTER.with(|c| c.as_ref().unchecked_ref::<Function>().clone())
}

/// A callback's failure (a throw, a rejection), said on `console.error` with the callback's name.
fn report_failed(name: &str, e: &JsValue) {
    let console = get(&crate::wasm::bridge::global(), "console");
    if let Ok(error) = get(&console, "error").dyn_into::<Function>() {
        let _ = caught::call2(&error, &console, &format!("toolwire: the {name} callback failed:").into(), e);
    }
}

/// `onToolListChanged` as the notifications call it: at once when no call of it is pending, else
/// once after the pending one, for all the notifications that came meanwhile (a server that sends
/// thousands makes the app list its tools twice, not thousands of times). A call is pending until
/// what it returned settles (the promise of an async callback), and at least until the task that
/// read the notification ends, so that a flood in one read is one call and one more. The call
/// owed is dropped if the client was closed since the last notification (`generation`: the
/// client's close generation), whose list the app can no longer read.
fn coalesced(f: Function, generation: impl Fn() -> u64 + 'static) -> Box<dyn Fn()> {
    // 0: no call pending; 1: one pending; 2: one pending and one owed after it.
    let state = Rc::new(std::cell::Cell::new(0u8));
    // The close generation when the owed call was last asked for.
    let owed_at = Rc::new(std::cell::Cell::new(0u64));
    let generation = Rc::new(generation);
    // A throwing callback must not break the protocol loop: its error is the caller's, said on
    // `console.error` (as [`call_ignored`] says the other callbacks').
    let call = |f: &Function| {
        caught::call0(f, &JsValue::UNDEFINED).unwrap_or_else(|e| {
            report_failed("onToolListChanged", &e);
            JsValue::UNDEFINED
        })
    };
    Box::new(move || {
        if state.get() != 0 {
            state.set(2);
            owed_at.set(generation());
            return;
        }
        state.set(1);
        let returned = call(&f);
        let (f, state, owed_at, generation) = (f.clone(), state.clone(), owed_at.clone(), generation.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let mut returned = returned;
            loop {
                // A rejection is the caller's too (a plain value settles at once).
                if let Err(e) = to_future(returned).await {
                    report_failed("onToolListChanged", &e);
                }
                if state.get() != 2 || owed_at.get() != generation() {
                    state.set(0);
                    return;
                }
                state.set(1);
                returned = call(&f);
            }
        });
    })
}

/// How often a stream opened by `options.listen` looks whether the app still holds its client.
const ORPHAN_CHECK_MS: u32 = 1_000;

/// Resolves once nothing but the caller holds `c` (the app freed the client, or let it go, without
/// `close()`), looked at every [`ORPHAN_CHECK_MS`]. The standalone stream is the client's, not a
/// reason to keep it: a listening raced with this drops its stream (its fetch aborted), and the
/// client with it. Requests in flight hold the client too, and so keep it until they end.
async fn orphaned(c: &Rc<JsClient>) {
    loop {
        gloo_timers::future::TimeoutFuture::new(ORPHAN_CHECK_MS).await;
        if Rc::strong_count(c) == 1 {
            return;
        }
    }
}

/// `options.listen`: `true` or `{onEnd?}` starts `listen()` after every handshake that succeeds
/// (`connect()`, a hub's first use of the server, a session renewed after it expired), unless one
/// started so still runs: that one moves to the new session by itself (`Client::listen`). How each ends goes to `onEnd` (`{offered}` or `{error}`); without one, an
/// error goes to `console.error` (a stream lost without a word would lose the server's requests).
fn auto_listen(client: &Rc<JsClient>, options: &JsValue) -> Result<(), Error> {
    let listen = get(options, "listen");
    let on_end = match listen.as_bool() {
        _ if listen.is_undefined() || listen.is_null() => return Ok(()),
        Some(false) => return Ok(()),
        Some(true) => None,
        None if listen.is_object() && !listen.is_function() => {
            refuse_unknown_keys(&listen, "options.listen", &["onEnd"])?;
            opt_fn(&listen, "onEnd").map_err(|_| Error::new(ErrorCode::InvalidOptions, "options.listen.onEnd must be a function"))?
        }
        None => return Err(Error::new(ErrorCode::InvalidOptions, "options.listen must be a boolean or {onEnd?}")),
    };
    let weak = Rc::downgrade(client);
    let running = Rc::new(std::cell::Cell::new(false));
    client.set_connected_handler(Some(Box::new(move || {
        let Some(c) = weak.upgrade() else { return };
        if running.replace(true) {
            return;
        }
        let (running, on_end) = (running.clone(), on_end.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let orphaned = orphaned(&c);
            let listened = c.listen();
            futures_util::pin_mut!(listened, orphaned);
            let r = match futures_util::future::select(listened, orphaned).await {
                futures_util::future::Either::Left((r, _)) => r,
                futures_util::future::Either::Right(_) => return,
            };
            running.set(false);
            let event = Object::new();
            match &r {
                Ok(b) => Reflect::set(&event, &"offered".into(), &JsValue::from_bool(*b)),
                Err(e) => Reflect::set(&event, &"error".into(), &JsValue::from(e.clone())),
            }
            .ok();
            match (&on_end, r) {
                // A throwing (or rejecting) callback is the caller's.
                (Some(f), _) => call_ignored(f, &event, "listen onEnd"),
                (None, Err(e)) => {
                    let console = get(&crate::wasm::bridge::global(), "console");
                    if let Ok(error) = get(&console, "error").dyn_into::<Function>() {
                        let _ = caught::call2(&error, &console, &"toolwire: McpClient's standalone stream (options.listen) ended:".into(), &JsValue::from(e));
                    }
                }
                (None, Ok(_)) => {}
            }
        });
    })));
    Ok(())
}

/// The keys of `options.oauth`.
const OAUTH_KEYS: [&str; 11] =
    ["redirectUrl", "authorize", "clientId", "clientSecret", "clientMetadataUrl", "clientMetadata", "scope", "issuer", "saved", "onSaved", "grantType"];

/// `options.oauth`: `{redirectUrl, authorize, clientId?, clientSecret?, clientMetadataUrl?,
/// clientMetadata?, scope?, issuer?, saved?, onSaved?, grantType?}` for the server at `url` (a relative URL is taken
/// as fetch takes it, [`crate::wasm::bridge::fetched_url`]).
fn new_oauth(url: &str, oauth: &JsValue, transport: FetchTransport) -> Result<Rc<OAuth<FetchTransport>>, Error> {
    let bad = |what: &str| Error::new(ErrorCode::InvalidOptions, format!("options.oauth.{what}"));
    let data = from_js(oauth, "options.oauth")?;
    if !data.is_object() {
        return Err(Error::new(ErrorCode::InvalidOptions, "options.oauth must be an object: {redirectUrl, authorize, ...}"));
    }
    refuse_unknown_keys(oauth, "options.oauth", &OAUTH_KEYS)?;
    let text = |k: &str| -> Result<Option<String>, Error> {
        match data.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
            Some(_) => Err(bad(&format!("{k} must be a non-empty string"))),
        }
    };
    let mut opts = OAuthOptions {
        redirect_url: text("redirectUrl")?.unwrap_or_default(),
        client_id: text("clientId")?,
        client_secret: text("clientSecret")?,
        client_metadata_url: text("clientMetadataUrl")?,
        scope: text("scope")?,
        issuer: text("issuer")?,
        ..OAuthOptions::default()
    };
    match data.get("clientMetadata") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => opts.client_metadata = m.clone(),
        Some(_) => return Err(bad("clientMetadata must be an object (RFC 7591 client metadata)")),
    }
    match data.get("saved") {
        None | Some(Value::Null) => {}
        Some(v @ Value::Object(_)) => opts.saved = Some(v.clone()),
        Some(_) => return Err(bad("saved must be an object: what onSaved was given")),
    }
    opts.client_credentials = match data.get("grantType") {
        None | Some(Value::Null) => false,
        Some(v) if v == "authorization_code" => false,
        Some(v) if v == "client_credentials" => true,
        Some(_) => return Err(bad("grantType must be \"authorization_code\" or \"client_credentials\"")),
    };
    if opts.redirect_url.is_empty() && !opts.client_credentials {
        return Err(bad("redirectUrl is required: the redirect URI the authorization server sends the user back to"));
    }
    let authorize = match get(oauth, "authorize") {
        f if (f.is_undefined() || f.is_null()) && opts.client_credentials => None,
        f => Some(f.dyn_into::<Function>().map_err(|_| {
            bad("authorize must be a function: ({url, state}) => the URL the user was sent back to (a popup, or a CLI's local server)")
        })?),
    };
    let on_saved = match get(oauth, "onSaved") {
        f if f.is_undefined() || f.is_null() => None,
        f => Some(f.dyn_into::<Function>().map_err(|_| bad("onSaved must be a function"))?),
    };
    // A relative URL (`/mcp`, `//host/mcp`) is resolved as fetch resolves it (the page's base URL).
    let url = match crate::wasm::bridge::fetched_url(url) {
        Ok(resolved) => resolved.unwrap_or_else(|| url.to_owned()),
        Err(why) => return Err(Error::new(ErrorCode::InvalidOptions, format!("options.oauth: {why}"))),
    };
    let authorize = authorize.map(|authorize| -> Authorize { Box::new(move |request: &Value| {
        let failed = |e: &JsValue| {
            let why = get(e, "message").as_string().or_else(|| e.as_string()).unwrap_or_else(|| "it threw".into());
            Error::new(ErrorCode::Unauthorized, format!("OAuth authorization: options.oauth.authorize failed: {why}")).with_detail("oauthStep", "authorization")
        };
        // Aborted when no request waits for this authorization any more (their timeouts, `close()`):
        // the host can close its popup.
        let mut guard = AbortGuard::new();
        let called = to_js(request).and_then(|r| {
            let _ = Reflect::set(&r, &"signal".into(), &guard.signal());
            caught::call1(&authorize, &JsValue::UNDEFINED, &r).map_err(|e| failed(&e))
        });
        Box::pin(async move {
            let back = to_future(called?).await.map_err(|e| failed(&e));
            guard.disarm();
            back?.as_string().ok_or_else(|| failed(&JsValue::from_str("it gave no URL (a string with the code and state)")))
        })
    }) });
    let saved: Option<Saved> = on_saved.map(|f| {
        Box::new(move |v: &Value| {
            if let Ok(v) = to_js(v) {
                // A throwing (or rejecting) callback does not undo the authorization.
                call_ignored(&f, &v, "oauth onSaved");
            }
        }) as Saved
    });
    let o = OAuth::new(transport, url, opts, authorize, saved, Box::new(crate::wasm::bridge::random_bytes))?;
    // A token request or a registration sent goes on when no call waits any more (its timeout,
    // `close()`): the refresh token the server rotates is kept.
    o.set_background(Rc::new(wasm_bindgen_futures::spawn_local), Rc::new(|ms| Box::pin(JsClock.sleep(ms))));
    Ok(o)
}

/// `{method, params}`: what `onNotification` and `onRequest` are called with.
fn method_and_params(method: &str, params: &Value) -> Result<JsValue, Error> {
    to_js(&crate::model::object([("method", method.into()), ("params", params.clone())]))
}

/// What an `onRequest` callback threw (or its promise rejected with), as the JSON-RPC error to
/// answer: its own integer `code` if it has one, else -32603 (internal error), its `message`, and
/// its `data` when it has one that JSON can carry (as the SDK's `McpError` has).
fn thrown_rpc_error(e: &JsValue) -> RpcError {
    let code = get(e, "code").as_f64().filter(|c| c.fract() == 0.0 && c.abs() < 9.0e15).map_or(-32603, |c| c as i64);
    let data = get(e, "data");
    let data = if data.is_undefined() { None } else { from_js(&data, "data").ok().filter(|d| !d.is_null() || data.is_null()) };
    RpcError { code, message: thrown_message(e), data }
}

fn thrown_message(e: &JsValue) -> String {
    get(e, "message").as_string().or_else(|| e.as_string()).unwrap_or_else(|| "the client's onRequest failed".into())
}

/// An AbortSignal's `reason` as the `reason` of `notifications/cancelled` (as the SDK sends it): an
/// error's `message`, a string as it is, anything else but `undefined` as `String()` makes it.
fn abort_reason(reason: &JsValue) -> Option<String> {
    if reason.is_undefined() {
        return None;
    }
    if let Some(s) = reason.as_string() {
        return Some(s);
    }
    if let Some(m) = get(reason, "message").as_string().filter(|_| reason.is_object()) {
        return Some(m);
    }
    let string = get(&crate::wasm::bridge::global(), "String").dyn_into::<Function>().ok()?;
    caught::call1(&string, &JsValue::UNDEFINED, reason).ok()?.as_string()
}

/// Resolves when the AbortSignal fires (at once if it already has); what is not one (no
/// `aborted` flag, no `addEventListener`) is `INVALID_OPTIONS`, not a signal that never fires.
fn signal_future(signal: &JsValue) -> Result<Option<CancelFuture>, Error> {
    if signal.is_undefined() || signal.is_null() {
        return Ok(None);
    }
    let aborted = get(signal, "aborted").as_bool();
    if aborted.is_none() || !get(signal, "addEventListener").is_function() {
        return Err(Error::new(ErrorCode::InvalidOptions, "options.signal must be an AbortSignal"));
    }
    if aborted == Some(true) {
        return Ok(Some(Box::pin(async {})));
    }
    Ok(Some(Box::pin(AbortWait::new(signal))))
}

/// A request by name: the method, its `params` (an object, or nothing) and `callTool`'s options.
fn named_request(method: &JsValue, params: &JsValue, options: &JsValue) -> Result<(String, Value, CallOptions), Error> {
    named_request_of(method, params, options, &CALL_KEYS)
}

/// [`named_request`] with options whose keys are `known` (a notification's, [`NOTIFY_KEYS`]).
fn named_request_of(method: &JsValue, params: &JsValue, options: &JsValue, known: &[&str]) -> Result<(String, Value, CallOptions), Error> {
    let method = name_param(method, "method")?;
    let params = match sent_from_js(params, "params")? {
        v @ (Value::Null | Value::Object(_)) => v,
        _ => return Err(Error::new(ErrorCode::InvalidInput, "params must be an object")),
    };
    Ok((method, params, call_options_of(options, known)?))
}

/// [`named_request_of`] to a named server of a hub: what is wrong with the rest names the server too.
fn server_request(server: &JsValue, method: &JsValue, params: &JsValue, options: &JsValue, known: &[&str]) -> Result<(String, String, Value, CallOptions), Error> {
    let server = name_param(server, "server")?;
    match named_request_of(method, params, options, known) {
        Ok((method, params, opts)) => Ok((server, method, params, opts)),
        Err(e) => Err(crate::protocol::hub::about_server(e, &server)),
    }
}

/// The official SDK's names of a request's options, and toolwire's: given to a call, they would be
/// ignored as unknown keys are, and the call would run without the timeout or progress it asked for.
const SDK_CALL_OPTIONS: [(&str, &str); 3] = [("timeout", "timeoutMs"), ("onprogress", "onProgress"), ("maxTotalTimeout", "maxTotalTimeoutMs")];

/// The keys of a request's options (`McpCallOptions`: `callTool`, `request`, `listAll`,
/// `listTools`).
const CALL_KEYS: [&str; 6] = ["timeoutMs", "maxTotalTimeoutMs", "resetTimeoutOnProgress", "meta", "onProgress", "signal"];

/// The keys of `connect()`'s options: its handshake has no progress to report, and its
/// `initialize` carries no `_meta` of the caller's (a key given for them would be dropped).
const CONNECT_KEYS: [&str; 2] = ["timeoutMs", "signal"];

/// The keys of a notification's options (`notify`, the client's and the hub's): a notification
/// has no response, so no progress and no total timeout, but a `_meta`.
const NOTIFY_KEYS: [&str; 3] = ["timeoutMs", "signal", "meta"];

/// The keys of a hub's `callTool` options: a request's, and `provider`.
const HUB_CALL_KEYS: [&str; 7] = ["timeoutMs", "maxTotalTimeoutMs", "resetTimeoutOnProgress", "meta", "onProgress", "signal", "provider"];

fn call_options(options: &JsValue) -> Result<CallOptions, Error> {
    call_options_of(options, &CALL_KEYS)
}

/// A request's options, of an object whose keys are `known`.
fn call_options_of(options: &JsValue, known: &[&str]) -> Result<CallOptions, Error> {
    read_call_options(options, known).map_err(|e| with_got(e, options))
}

fn read_call_options(options: &JsValue, known: &[&str]) -> Result<CallOptions, Error> {
    refuse_lossy_options_of(options, "options", &["signal", "timeoutMs", "maxTotalTimeoutMs"], known)?;
    for (sdk, ours) in SDK_CALL_OPTIONS {
        // Only where the method takes toolwire's (`connect()` takes no progress): else the
        // refusal below lists the keys it takes.
        if known.contains(&ours) && !get(options, sdk).is_undefined() {
            return Err(Error::new(ErrorCode::InvalidOptions, format!("options.{sdk} is the MCP SDK's name: toolwire's is options.{ours}")));
        }
    }
    refuse_unknown_keys(options, "options", known)?;
    let data = from_js(&get_data(options), "options")?;
    let mut opts = CallOptions {
        timeout_ms: opt_ms(options, "timeoutMs")?,
        max_total_timeout_ms: opt_ms(options, "maxTotalTimeoutMs")?,
        ..CallOptions::default()
    };
    match data.get("resetTimeoutOnProgress") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => opts.reset_timeout_on_progress = *b,
        Some(_) => return Err(Error::new(ErrorCode::InvalidOptions, "options.resetTimeoutOnProgress must be a boolean")),
    }
    match data.get("meta") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => opts.meta = Some(m.clone()),
        Some(_) => return Err(Error::new(ErrorCode::InvalidOptions, "options.meta must be an object (the request's params._meta)")),
    }
    if let Some(f) = opt_fn(options, "onProgress")? {
        opts.on_progress = Some(Box::new(move |p: &Value| {
            call_ignored(&f, &to_js(p).unwrap_or(JsValue::UNDEFINED), "onProgress");
        }));
    }
    let signal = get(options, "signal");
    opts.cancel = signal_future(&signal)?;
    if opts.cancel.is_some() {
        let reason_of = signal.clone();
        opts.cancel_reason = Some(Box::new(move || abort_reason(&get(&reason_of, "reason"))));
        // `AbortSignal.timeout(ms)`'s reason: a DOMException named TimeoutError.
        opts.cancel_timed_out = Some(Box::new(move || {
            let reason = get(&signal, "reason");
            reason.is_object() && get(&reason, "name").as_string().as_deref() == Some("TimeoutError")
        }));
    }
    Ok(opts)
}

/// The JSON-able part of an options object (a signal would stringify to `{}`).
fn get_data(options: &JsValue) -> JsValue {
    if options.is_undefined() || options.is_null() {
        return JsValue::UNDEFINED;
    }
    let o = Object::new();
    for key in ["timeoutMs", "maxTotalTimeoutMs", "resetTimeoutOnProgress", "meta"] {
        if let Ok(v) = caught::get(options, &key.into()) {
            let _ = Reflect::set(&o, &key.into(), &v);
        }
    }
    o.into()
}

/// The one way an async export makes its promise: a boxed future keeps `future_to_promise`
/// (and the task machinery under it) to a single copy, where a generic helper compiled one per
/// export.
/// Its error is converted to a JS error here, once, not at each `?` of the export.
fn promise(fut: Pin<Box<dyn Future<Output = Result<JsValue, Error>>>>) -> Promise {
    future_to_promise(async move { fut.await.map_err(JsValue::from) })
}

/// Told when the JS object (an `McpClient`, an `McpHub`) is freed: the promises its methods
/// made hold the client (an `Rc`), and would keep its streams open, its callbacks firing and
/// the host's event loop alive for as long as a stream or a call with no timeout lasts.
/// Each of those promises watches it ([`Freed::until_freed`]): freed, its future is dropped
/// (which aborts its fetches). `close()` and `closeAll()` do not watch it: a session being
/// ended is let end.
/// ([`CloseSignal`], fired once: a wait since its first generation is over once it fired.)
#[derive(Clone, Default)]
struct Freed(Rc<CloseSignal>);

impl Freed {
    fn fire(&self) {
        self.0.fire();
    }

    /// The promise of `fut`, settled with `on_freed()` (the future dropped) when the object is
    /// freed first.
    fn until_freed(&self, fut: Pin<Box<dyn Future<Output = Result<JsValue, Error>>>>, on_freed: impl FnOnce() -> Result<JsValue, Error> + 'static) -> Promise {
        let freed = self.clone();
        promise(Box::pin(async move {
            let ended = freed.0.wait_since(0);
            futures_util::pin_mut!(ended);
            match futures_util::future::select(fut, ended).await {
                futures_util::future::Either::Left((r, _)) => r,
                futures_util::future::Either::Right(_) => on_freed(),
            }
        }))
    }

    /// [`Freed::until_freed`], rejecting with `NOT_CONNECTED` (as a request that `close()`
    /// abandons does).
    fn rejected_when_freed(&self, what: &'static str, class: &'static str, fut: Pin<Box<dyn Future<Output = Result<JsValue, Error>>>>) -> Promise {
        self.rejected_when_freed_about(what, class, None, fut)
    }

    /// [`Freed::rejected_when_freed`] for a hub's call to one server: the error carries `server`
    /// (and `tool`, the MCP name, when given), as every other error of the call does.
    fn rejected_when_freed_about(&self, what: &'static str, class: &'static str, about: Option<(String, Option<String>)>, fut: Pin<Box<dyn Future<Output = Result<JsValue, Error>>>>) -> Promise {
        self.until_freed(fut, move || {
            let e = Error::new(ErrorCode::NotConnected, format!("{what} was abandoned: the {class} was freed (free() was called on it)"));
            Err(match about {
                Some((server, Some(tool))) => crate::protocol::hub::about_server(e.with_tool(&tool), &server),
                Some((server, None)) => crate::protocol::hub::about_server(e, &server),
                None => e,
            })
        })
    }
}

/// What `McpHub.listen()` resolves to: `{servers, errors}`.
fn listen_report(servers: &Object, failed: Vec<crate::protocol::hub::ServerError>) -> JsValue {
    let out = Object::new();
    let _ = Reflect::set(&out, &"servers".into(), servers);
    let _ = Reflect::set(&out, &"errors".into(), &server_errors(failed));
    out.into()
}

/// An MCP client over Streamable HTTP.
///
/// ```js
/// const client = new McpClient("http://127.0.0.1:3001/mcp", { headers: { authorization: "Bearer t" } });
/// await client.connect();
/// const tools = await client.listTools();
/// const result = await client.callTool("echo", { message: "hi" }, { timeoutMs: 10_000, signal });
/// await client.close();
/// ```
#[wasm_bindgen(js_name = McpClient)]
pub struct JsMcpClient {
    inner: Rc<JsClient>,
    freed: Freed,
}

#[wasm_bindgen(js_class = McpClient)]
impl JsMcpClient {
    /// Fires [`Freed`]: the package's `free()` calls it first. Not on a drop, which the
    /// wrapper's garbage collection makes too: a call whose promise is awaited, by an app that
    /// holds the promise and no longer the object, runs to its end.
    #[wasm_bindgen(js_name = __abandon, skip_typescript)]
    pub fn abandon(&self) {
        self.freed.fire();
    }

    /// `options`: `{fetch?, headers?, timeoutMs?, idleTimeoutMs?, clientInfo?, maxPages?, maxTools?,
    /// maxEventBytes?, maxResponseBytes?, maxRetries?, capabilities?, era?, transport?, logLevel?, listen?, onToolListChanged?, onLog?,
    /// onNotification?, onRequest?, onUnauthorized?}`.
    #[wasm_bindgen(constructor)]
    pub fn new(url: JsValue, options: JsValue) -> Result<JsMcpClient, Error> {
        let url = url_param(&url, "url")?;
        Ok(Self { inner: new_client(url, &options, None, None)?, freed: Freed::default() })
    }

    /// `initialize` + `notifications/initialized`: `{timeoutMs?, signal?}` (every other key
    /// refused). Connecting again ends the session before (DELETE).
    pub fn connect(&self, options: JsValue) -> Promise {
        let c = self.inner.clone();
        let opts = call_options_of(&options, &CONNECT_KEYS);
        self.freed.rejected_when_freed("connect", "McpClient", Box::pin(async move {
            c.connect_with(&mut opts?).await?;
            Ok(JsValue::UNDEFINED)
        }))
    }

    /// Every tool, over all pages: `callTool`'s options (`{timeoutMs?, signal?, ...}`) apply to
    /// each page's request.
    #[wasm_bindgen(js_name = listTools)]
    pub fn list_tools(&self, options: JsValue) -> Promise {
        let c = self.inner.clone();
        let opts = call_options(&options);
        self.freed.rejected_when_freed("listTools", "McpClient", Box::pin(async move { to_js(&Value::Array(c.list_tools_with(&mut opts?).await?)) }))
    }

    /// Listens on the server's standalone stream until `close()` (resolves `true`), or resolves
    /// `false` at once when the server offers none. See `Client::listen`. `free()` ends it too
    /// (the stream closed), resolving `true` as `close()` does, and so does letting the client go
    /// (garbage-collected, within about a second: [`orphaned`]), as with `options.listen`: the
    /// promise holds the client only to listen, never to keep it.
    pub fn listen(&self) -> Promise {
        let c = self.inner.clone();
        self.freed.until_freed(
            Box::pin(async move {
                let listened = c.listen();
                let orphaned = orphaned(&c);
                futures_util::pin_mut!(listened, orphaned);
                match futures_util::future::select(listened, orphaned).await {
                    futures_util::future::Either::Left((r, _)) => Ok(JsValue::from_bool(r?)),
                    futures_util::future::Either::Right(_) => Ok(JsValue::TRUE),
                }
            }),
            || Ok(JsValue::TRUE),
        )
    }

    /// Calls a tool: `{timeoutMs?, signal?, onProgress?}`. Resolves to the CallToolResult
    /// (`isError` results resolve; JSON-RPC errors reject with `JSONRPC_ERROR`).
    #[wasm_bindgen(js_name = callTool)]
    pub fn call_tool(&self, name: JsValue, args: JsValue, options: JsValue) -> Promise {
        let c = self.inner.clone();
        let prepared = (|| -> Result<(String, Value, CallOptions), Error> {
            let name = name_param(&name, "name")?;
            let args = match arguments_from_js(&args).map_err(|e| e.with_tool(&name))? {
                Value::Null => Value::Object(serde_json::Map::new()),
                v @ Value::Object(_) => v,
                _ => {
                    let text = args.as_string().is_some_and(|s| s.trim_start().starts_with('{'));
                    let hint = if text { " (JSON text? JSON.parse it)" } else { "" };
                    let got = describe_js(&args);
                    return Err(Error::new(ErrorCode::InvalidArguments, format!("arguments must be an object, got {got}{hint}")).with_tool(&name));
                }
            };
            Ok((name, args, call_options(&options)?))
        })();
        self.freed.rejected_when_freed("callTool", "McpClient", Box::pin(async move {
            let (name, args, mut opts) = prepared?;
            to_js(&c.call_tool(&name, args, &mut opts).await.map_err(|e| e.with_tool(&name))?)
        }))
    }

    /// Any request but `initialize` (`resources/read`, `prompts/get`...), with `params` (an
    /// object, or nothing) and `callTool`'s options: resolves to its result. Not sent for a
    /// capability the server did not declare (`CAPABILITY_NOT_NEGOTIATED`).
    pub fn request(&self, method: JsValue, params: JsValue, options: JsValue) -> Promise {
        let c = self.inner.clone();
        let prepared = named_request(&method, &params, &options);
        self.freed.rejected_when_freed("request", "McpClient", Box::pin(async move {
            let (method, params, mut opts) = prepared?;
            to_js(&c.request_checked(&method, params, &mut opts).await?)
        }))
    }

    /// A notification (`notifications/roots/list_changed`...), with `params` (an object, or
    /// nothing) and `{timeoutMs?, signal?, meta?}` (every other key refused): resolves (to `undefined`) once the server accepted
    /// it (HTTP 202). Not `notifications/initialized` nor `notifications/cancelled`, which the
    /// client sends itself (`INVALID_INPUT`).
    pub fn notify(&self, method: JsValue, params: JsValue, options: JsValue) -> Promise {
        let c = self.inner.clone();
        let prepared = named_request_of(&method, &params, &options, &NOTIFY_KEYS);
        self.freed.rejected_when_freed("notify", "McpClient", Box::pin(async move {
            let (method, params, mut opts) = prepared?;
            c.notify_checked(&method, params, &mut opts).await?;
            Ok(JsValue::UNDEFINED)
        }))
    }

    /// Every item of a paginated list (`tools/list`, `resources/list`, `resources/templates/list`,
    /// `prompts/list`), over all its pages: `[]` for a capability the server did not declare.
    #[wasm_bindgen(js_name = listAll)]
    pub fn list_all(&self, method: JsValue, params: JsValue, options: JsValue) -> Promise {
        let c = self.inner.clone();
        let prepared = named_request(&method, &params, &options);
        self.freed.rejected_when_freed("listAll", "McpClient", Box::pin(async move {
            let (method, params, mut opts) = prepared?;
            to_js(&Value::Array(c.list_all(&method, params, &mut opts).await?))
        }))
    }

    /// Ends the session (DELETE; 405 is fine). Never rejects: the session is ended here whatever
    /// the server says, and a DELETE that failed (or was abandoned after 3 s) is what it resolves
    /// to, as a `ToolwireError` (`undefined` otherwise), as `closeAll()` reports its servers'.
    pub fn close(&self) -> Promise {
        let c = self.inner.clone();
        promise(Box::pin(async move {
            Ok(match c.close().await {
                Ok(()) => JsValue::UNDEFINED,
                Err(e) => JsValue::from(e),
            })
        }))
    }

    /// `serverInfo` from the handshake.
    #[wasm_bindgen(getter, js_name = serverInfo)]
    pub fn server_info(&self) -> JsValue {
        self.inner.server_info().and_then(|v| to_js(&v).ok()).unwrap_or(JsValue::UNDEFINED)
    }

    /// `instructions` from the handshake.
    #[wasm_bindgen(getter)]
    pub fn instructions(&self) -> Option<String> {
        self.inner.instructions()
    }

    /// The negotiated protocol version.
    #[wasm_bindgen(getter, js_name = protocolVersion)]
    pub fn protocol_version(&self) -> Option<String> {
        self.inner.protocol_version()
    }

    /// The session id, when the server issued one (over the deprecated HTTP+SSE transport, the
    /// `sessionId` of its endpoint, or one of toolwire's own: that transport has no header).
    #[wasm_bindgen(getter, js_name = sessionId)]
    pub fn session_id(&self) -> Option<String> {
        self.inner.session_id()
    }

    /// The MCP transport spoken: `"streamable-http"` or `"sse"` (the deprecated HTTP+SSE
    /// transport); `undefined` before the first handshake with `transport: "auto"`.
    #[wasm_bindgen(getter)]
    pub fn transport(&self) -> Option<String> {
        self.inner.mcp_transport().map(|t| t.as_str().to_owned())
    }

    /// The server's capabilities.
    #[wasm_bindgen(getter)]
    pub fn capabilities(&self) -> JsValue {
        self.inner.capabilities().and_then(|v| to_js(&v).ok()).unwrap_or(JsValue::UNDEFINED)
    }

    /// The tools the last listing left out, each `{name, reason}` (and `index` for entries that are
    /// no objects or have no string `name`; a 2026-07-28 server's tools for their `x-mcp-header` marks).
    #[wasm_bindgen(getter, js_name = droppedTools)]
    pub fn dropped_tools(&self) -> JsValue {
        to_js(&Value::Array(self.inner.dropped_tools())).unwrap_or(JsValue::UNDEFINED)
    }

    /// Whether the tools of the last `listTools()` may be out of date: the server announced a
    /// change since (`notifications/tools/list_changed`), the session is not the one that
    /// answered the listing (renewed, or connected again), or the listing's `ttlMs` (2026-07-28)
    /// has passed.
    #[wasm_bindgen(getter, js_name = toolsStale)]
    pub fn tools_stale(&self) -> bool {
        self.inner.tools_changed() || self.inner.tools_expired()
    }
}

/// Several MCP servers behind one set of provider tools.
///
/// ```js
/// const hub = new McpHub({ github: { url: "https://.../mcp", headers: { authorization } }, docs: { url } },
///                        { policy: { allow: ["mcp__docs__*"] }, confirm: async (name, args, { server, tool }) => ask(server, tool) });
/// const { tools, errors } = await hub.listTools();
/// const providerTools = await hub.tools("anthropic");
/// const { text, isError } = await hub.callTool(call.name, call.input);
/// window.addEventListener("pagehide", () => hub.closeAll());
/// ```
#[wasm_bindgen(js_name = McpHub)]
pub struct JsMcpHub {
    inner: Rc<Hub<JsTransport, JsClock>>,
    freed: Freed,
}

#[wasm_bindgen(js_class = McpHub)]
impl JsMcpHub {
    /// Fires [`Freed`]: the package's `free()` calls it first. Not on a drop, which the
    /// wrapper's garbage collection makes too: a call whose promise is awaited, by an app that
    /// holds the promise and no longer the object, runs to its end.
    #[wasm_bindgen(js_name = __abandon, skip_typescript)]
    pub fn abandon(&self) {
        self.freed.fire();
    }

    /// `servers`: name → `{url, headers?, timeoutMs?, fetch?, ...McpClient options}`;
    /// `options`: `{fetch?, policy?, confirm?}` (`confirm(name, args, {server, tool, provider,
    /// signal})` answers the policy's "ask").
    #[wasm_bindgen(constructor)]
    pub fn new(servers: JsValue, options: JsValue) -> Result<JsMcpHub, Error> {
        refuse_lossy_options(&options, "options", &["policy"])?;
        refuse_unknown_keys(&options, "options", &HUB_KEYS)?;
        let default_fetch = opt_fn(&options, "fetch")?;
        crate::wasm::interop::refuse_lossy(&servers, "servers")?;
        // Any object but an array or a function, as every other argument is read: one with a null
        // prototype, or another realm's, is no `instanceof Object`.
        if !servers.is_object() || is_array(&servers) || servers.is_function() {
            return Err(Error::new(ErrorCode::InvalidInput, format!("servers must be an object: name → {{url, headers?}}, got {}", describe_js(&servers))));
        }
        let obj: &Object = servers.unchecked_ref();
        let mut list = Vec::new();
        // A getter that throws is the error of `servers`, as JSON's would be.
        let entries = entries_of(obj).map_err(|e| Error::new(ErrorCode::InvalidInput, format!("servers cannot be read: {}", describe(&e))))?;
        for entry in entries.iter() {
            let (name, conf) = entry_pair(&entry);
            // Two names each with a lone surrogate would both read as U+FFFD: one server.
            let name = crate::wasm::interop::name_param(&name, "a server's name (a key of servers)")?;
            if !conf.is_object() || conf.is_function() || is_array(&conf) || conf.has_type::<js_sys::JsString>() {
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    format!("servers.{name} must be an object {{url, headers?, ...}}, got {} (write {{url: ...}})", describe_js(&conf)),
                ));
            }
            // A misspelt key first: `{ulr}` is a key of the config meant as `url`.
            let config = format!("servers.{name}");
            refuse_unknown_keys(&conf, &config, &SERVER_KEYS).map_err(|e| in_config(e, &config))?;
            // A config's url is one of its options (as a misspelt key of it is `INVALID_OPTIONS`).
            let url = url_param(&get(&conf, "url"), &format!("servers.{name}.url")).map_err(|mut e| {
                e.code = ErrorCode::InvalidOptions;
                e
            })?;
            if name.is_empty() {
                return Err(Error::new(ErrorCode::InvalidInput, "server names must not be empty"));
            }
            // `mcp__a__b` would be server `a`'s tool `b` and all of server `a__b` to a
            // permission rule (and `files_` + `__` + `x` reads as `files` + `_x`).
            if name.contains("__") || name.ends_with('_') {
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    format!("server name \"{name}\" must not hold \"__\" or end with \"_\": names like mcp__server__tool and permission rules read \"__\" as the server's end"),
                ));
            }
            list.push((name, new_client(url, &conf, Some(&config), default_fetch.clone())?));
        }
        // A `PermissionPolicy` is read by its `toJSON` (its config).
        let policy_value = get(&options, "policy");
        let policy = if policy_value.is_undefined() || policy_value.is_null() {
            None
        } else {
            refuse_lossy_options(&policy_value, "options.policy", &[])?;
            // What cannot be read (a freed `PermissionPolicy`, whose `toJSON` throws) is the
            // option's error, as every other of the policy's.
            let config = crate::wasm::interop::policy_config(&policy_value, "options.policy").map_err(|mut e| {
                e.code = ErrorCode::InvalidOptions;
                e
            })?;
            Some(Policy::from_value(config)?)
        };
        let confirm: Option<Confirm> = opt_fn(&options, "confirm")?.map(|f| {
            Box::new(move |asked: &ConfirmRequest<'_>| {
                // `{server, tool, provider, signal}`: the signal is aborted when the question is
                // dropped unanswered (the call was aborted while it waited).
                let mut guard = AbortGuard::new();
                let call = Object::new();
                let _ = Reflect::set(&call, &"server".into(), &JsValue::from_str(asked.server));
                let _ = Reflect::set(&call, &"tool".into(), &JsValue::from_str(asked.tool));
                let _ = Reflect::set(&call, &"provider".into(), &JsValue::from_str(asked.provider));
                let _ = Reflect::set(&call, &"signal".into(), &guard.signal());
                let answer = caught::call3(&f, &JsValue::UNDEFINED, &JsValue::from_str(asked.name), &to_js(asked.args).unwrap_or(JsValue::UNDEFINED), &call);
                // Only `true` confirms (not `"yes"`, not 1); a confirm that throws or rejects
                // denies, and the error says why.
                Box::pin(async move {
                    let answer = match answer {
                        Ok(v) => to_future(v).await.map_err(|e| (e, "rejected with")),
                        Err(e) => Err((e, "threw")),
                    };
                    guard.disarm();
                    match answer {
                        Ok(v) => match v.as_bool() {
                            Some(b) => Ok(b),
                            None => Err(format!("options.confirm returned {}, not true or false (only true confirms)", describe_js(&v))),
                        },
                        Err((e, how)) => Err(confirm_failure(&e, how)),
                    }
                }) as std::pin::Pin<Box<dyn std::future::Future<Output = std::result::Result<bool, String>>>>
            }) as Confirm
        });
        Ok(Self { inner: Rc::new(Hub::new(list, JsClock, policy, confirm)), freed: Freed::default() })
    }

    /// `{mode?: "auto" | "manual", selectedServers?, enabled?, timeoutMs?}` → `{tools, errors,
    /// dropped}`; a failing server's error is in `errors` (`{server, error}`), the others' tools
    /// are listed, each server within `timeoutMs` all in (default 30 s);
    /// `dropped`: `droppedTools`.
    #[wasm_bindgen(js_name = listTools)]
    pub fn list_tools(&self, options: JsValue) -> Promise {
        let hub = self.inner.clone();
        let selection = selection(&options);
        self.freed.rejected_when_freed("listTools", "McpHub", Box::pin(async move {
            let (selection, timeout) = selection?;
            let (tools, errors) = hub.list_tools(&selection, timeout).await;
            let out = Object::new();
            let _ = Reflect::set(&out, &"tools".into(), &to_js(&Value::Array(tools))?);
            let _ = Reflect::set(&out, &"errors".into(), &server_errors(errors));
            let _ = Reflect::set(&out, &"dropped".into(), &to_js(&Value::Array(hub.dropped_tools()))?);
            Ok(out.into())
        }))
    }

    /// Provider-ready tools, with collision-proof names; the name map is kept for `callTool`.
    /// Lists every server first when `listTools()` has not run, and lists again each server whose
    /// tools are stale (`McpClient.toolsStale`: `notifications/tools/list_changed`, a new session
    /// since its last listing, or the listing's `ttlMs` passed), and each selected server whose
    /// listing failed, within 10 s, waiting 5 s to a minute after a failure (`Hub::refresh`);
    /// `NOT_CONNECTED` when `closeAll()` came while it listed. A tool that cannot be converted is
    /// left out, in `droppedTools`; so is one the permission policy denies (`PERMISSION_DENIED`).
    pub fn tools(&self, provider: JsValue, options: JsValue) -> Promise {
        let hub = self.inner.clone();
        let parsed = (|| -> Result<_, Error> {
            let p = Provider::target(&string_param(&provider, "provider")?)?;
            // Each tool's server is the hub's name for it: a server given here would be read by
            // nothing.
            if let Some(key) = ["server", "serverName"].into_iter().find(|k| !get(&options, k).is_undefined()) {
                return Err(Error::new(ErrorCode::InvalidOptions, format!("options.{key} is no option of McpHub.tools(): each tool's server is the name the hub has for it")));
            }
            let opts = options_param(&options)?;
            // The conversion's options, whose keys a hub, as its other options, holds to those known;
            // `limits` follows the options it is in (`maxToolCount` would be no limit at all).
            refuse_unknown_keys(&options, "options", &HUB_TOOLS_KEYS)?;
            refuse_unknown_keys(&get(&options, "limits"), "options.limits", &crate::convert::LIMIT_KEYS)?;
            Ok((p, opts))
        })();
        self.freed.rejected_when_freed("tools", "McpHub", Box::pin(async move {
            let (provider, opts) = parsed?;
            parse_js(hub.tools_refreshed(provider, &opts).await?)
        }))
    }

    /// The tools left out (`Hub::dropped_tools`): those a server's listing left out (`{server,
    /// name, reason}`, and `index`), and those the last `tools()` could not convert or left out
    /// for the permission policy (`{server, name, index, code, reason}`).
    #[wasm_bindgen(getter, js_name = droppedTools)]
    pub fn dropped_tools(&self) -> JsValue {
        to_js(&Value::Array(self.inner.dropped_tools())).unwrap_or(JsValue::UNDEFINED)
    }

    /// The servers whose last listing failed (`Hub::listing_errors`), `[{server, error}]`: what
    /// `tools()`'s own listings met, which it does not reject for.
    #[wasm_bindgen(getter, js_name = listErrors)]
    pub fn list_errors(&self) -> js_sys::Array {
        server_errors(self.inner.listing_errors())
    }

    /// The name map of the last `tools()` call (as `NameMap.toJSON()` gives it).
    #[wasm_bindgen(getter, js_name = nameMap)]
    pub fn name_map(&self) -> JsValue {
        self.inner.name_map().and_then(|m| to_js(&m.to_json_value()).ok()).unwrap_or(JsValue::NULL)
    }

    /// The name map of the last `tools(provider)` call for that provider, or `null`.
    #[wasm_bindgen(js_name = nameMapFor)]
    pub fn name_map_for(&self, provider: JsValue) -> Result<JsValue, Error> {
        let provider = Provider::target(&string_param(&provider, "provider")?)?;
        Ok(self.inner.name_map_for(Some(provider)).and_then(|m| to_js(&m.to_json_value()).ok()).unwrap_or(JsValue::NULL))
    }

    /// The conversion report of the last `tools()` call (`Hub::report_for`), or `null` before one.
    #[wasm_bindgen(getter)]
    pub fn report(&self) -> Result<JsValue, Error> {
        hub_report(self.inner.report_for(None)?)
    }

    /// The conversion report of the last `tools(provider)` call for that provider, or `null`.
    #[wasm_bindgen(js_name = reportFor)]
    pub fn report_for(&self, provider: JsValue) -> Result<JsValue, Error> {
        let provider = Provider::target(&string_param(&provider, "provider")?)?;
        hub_report(self.inner.report_for(Some(provider))?)
    }

    /// Routes a provider tool call: `{result, text, isError, server, tool}`. Unknown names (and
    /// names of a server the last `listTools()` did not select), denied calls and transport
    /// failures reject with a `ToolwireError`. The policy judges the tool as the last `tools()`
    /// saw it (`Hub::call_tool`). `options.provider` reads the name with the map of that
    /// provider's last `tools()` (`Hub::call_tool_for`); without it, the last `tools()`'s map.
    #[wasm_bindgen(js_name = callTool)]
    pub fn call_tool(&self, provider_name: JsValue, args: JsValue, options: JsValue) -> Promise {
        let hub = self.inner.clone();
        let prepared = (|| -> Result<_, Error> {
            let name = name_param(&provider_name, "name")?;
            let args = crate::calls::model_arguments(&name, crate::wasm::names::raw_args(&args).map_err(|e| e.with_tool(&name))?)?;
            let provider = match get(&options, "provider") {
                p if p.is_undefined() || p.is_null() => None,
                // A wrong type is the options' error, as every other option's there.
                p => Some(Provider::target(&string_param(&p, "options.provider").map_err(|mut e| {
                    e.code = ErrorCode::InvalidOptions;
                    e
                })?)?),
            };
            Ok((name, args, provider, call_options_of(&options, &HUB_CALL_KEYS)?))
        })();
        // Where the name map sends the call (as the call reads it, on its first poll): the error
        // of a call that `free()` abandons names them, as one that `closeAll()` abandons does.
        let about = prepared.as_ref().ok().and_then(|(name, _, provider, _)| hub.route(*provider, name)).map(|(server, tool)| (server, Some(tool)));
        self.freed.rejected_when_freed_about("callTool", "McpHub", about, Box::pin(async move {
            let (name, args, provider, opts) = prepared?;
            let r = hub.call_tool_for(provider, &name, args, opts).await?;
            to_js(&crate::model::object([
                ("result", r.result),
                ("text", Value::String(r.text)),
                ("isError", Value::Bool(r.is_error)),
                ("server", Value::String(r.server)),
                ("tool", Value::String(r.tool)),
            ]))
        }))
    }

    /// Any other request to one server (`McpClient.request`), connecting it first if needed.
    pub fn request(&self, server: JsValue, method: JsValue, params: JsValue, options: JsValue) -> Promise {
        let hub = self.inner.clone();
        let prepared = server_request(&server, &method, &params, &options, &CALL_KEYS);
        let about = prepared.as_ref().ok().map(|(server, ..)| (server.clone(), None));
        self.freed.rejected_when_freed_about("request", "McpHub", about, Box::pin(async move {
            let (server, method, params, opts) = prepared?;
            to_js(&hub.request(&server, &method, params, opts).await?)
        }))
    }

    /// `McpClient.notify` on one server (connected on first use).
    pub fn notify(&self, server: JsValue, method: JsValue, params: JsValue, options: JsValue) -> Promise {
        let hub = self.inner.clone();
        let prepared = server_request(&server, &method, &params, &options, &NOTIFY_KEYS);
        let about = prepared.as_ref().ok().map(|(server, ..)| (server.clone(), None));
        self.freed.rejected_when_freed_about("notify", "McpHub", about, Box::pin(async move {
            let (server, method, params, opts) = prepared?;
            hub.notify(&server, &method, params, opts).await?;
            Ok(JsValue::UNDEFINED)
        }))
    }

    /// `listAll` on one server (connected on first use).
    #[wasm_bindgen(js_name = listAll)]
    pub fn list_all(&self, server: JsValue, method: JsValue, params: JsValue, options: JsValue) -> Promise {
        let hub = self.inner.clone();
        let prepared = server_request(&server, &method, &params, &options, &CALL_KEYS);
        let about = prepared.as_ref().ok().map(|(server, ..)| (server.clone(), None));
        self.freed.rejected_when_freed_about("listAll", "McpHub", about, Box::pin(async move {
            let (server, method, params, opts) = prepared?;
            to_js(&Value::Array(hub.list_all(&server, &method, params, opts).await?))
        }))
    }

    /// Listens on the standalone stream of every server of the last `listTools()`'s selection
    /// (every server before one), connecting those not connected yet, and of any other connected
    /// server, until `closeAll()` (`Hub::listen`); resolves to
    /// `{servers: {name: offered}, errors: [{server, error}]}`. `options.onEnd` hears of each
    /// server's end as it comes: `{server, offered}` or `{server, error}`. `free()` ends it too
    /// (every stream closed, `onEnd` told nothing more), resolving `{servers: {}, errors: []}`.
    pub fn listen(&self, options: JsValue) -> Promise {
        let hub = self.inner.clone();
        let on_end = refuse_lossy_options(&options, "options", &["onEnd"]).and_then(|_| refuse_unknown_keys(&options, "options", &["onEnd"])).and_then(|_| opt_fn(&options, "onEnd"));
        self.freed.until_freed(Box::pin(async move {
            let on_end = on_end?;
            let report = |server: &str, r: &Result<bool, Error>| {
                let Some(f) = &on_end else { return };
                let event = Object::new();
                let _ = Reflect::set(&event, &"server".into(), &JsValue::from_str(server));
                match r {
                    Ok(b) => Reflect::set(&event, &"offered".into(), &JsValue::from_bool(*b)),
                    Err(e) => Reflect::set(&event, &"error".into(), &JsValue::from(e.clone())),
                }
                .ok();
                // A throwing (or rejecting) callback is the caller's; the other servers listen on.
                call_ignored(f, &event, "listen onEnd");
            };
            let (offered, failed) = hub.listen(&report).await;
            let servers = Object::new();
            for (name, b) in offered {
                let _ = Reflect::set(&servers, &JsValue::from_str(&name), &JsValue::from_bool(b));
            }
            Ok(listen_report(&servers, failed))
        }), || Ok(listen_report(&Object::new(), Vec::new())))
    }

    /// Closes every session (each gets at most 3 s); resolves to the failures `[{server, error}]`.
    #[wasm_bindgen(js_name = closeAll)]
    pub fn close_all(&self) -> Promise {
        let hub = self.inner.clone();
        promise(Box::pin(async move { Ok(server_errors(hub.close_all().await).into()) }))
    }

    /// The server names.
    #[wasm_bindgen(getter)]
    pub fn servers(&self) -> Vec<String> {
        self.inner.server_names()
    }
}

/// A hub's report as JS (`null` for none).
fn hub_report(report: Option<crate::report::Report>) -> Result<JsValue, Error> {
    match report {
        Some(r) => to_js(&r.to_value()),
        None => Ok(JsValue::NULL),
    }
}

/// Why a `confirm` that threw or rejected failed: the error's own words (`Error: dialog
/// closed`, a string thrown), or, where it gives none (`Promise.reject()`, `new Error()`), what
/// it was, so the message never ends on nothing.
fn confirm_failure(e: &JsValue, how: &str) -> String {
    let reason = describe(e);
    let said = reason.trim_start_matches(get(e, "name").as_string().unwrap_or_default().as_str()).trim_matches([':', ' ']);
    if said.is_empty() {
        return format!("options.confirm {how} {}, which gives no reason", describe_js(e));
    }
    reason
}

/// `[{server, error}]`, each error a `ToolwireError`.
fn server_errors(errors: Vec<crate::protocol::hub::ServerError>) -> js_sys::Array {
    let out = js_sys::Array::new();
    for e in errors {
        let o = Object::new();
        let _ = Reflect::set(&o, &"server".into(), &JsValue::from_str(&e.server));
        let _ = Reflect::set(&o, &"error".into(), &JsValue::from(e.error));
        out.push(&o);
    }
    out
}

/// `listTools` options: the servers, and the bound on each one's listing.
fn selection(options: &JsValue) -> Result<(Selection, Option<u64>), Error> {
    read_selection(options).map_err(|e| with_got(e, options))
}

fn read_selection(options: &JsValue) -> Result<(Selection, Option<u64>), Error> {
    const KEYS: [&str; 4] = ["mode", "selectedServers", "enabled", "timeoutMs"];
    refuse_lossy_options_of(options, "options", &["timeoutMs"], &KEYS)?;
    refuse_unknown_keys(options, "options", &KEYS)?;
    let data = from_js(options, "options")?;
    let timeout = opt_ms(options, "timeoutMs")?;
    match data.get("enabled") {
        None | Some(Value::Null) | Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) => return Ok((Selection::Disabled, timeout)),
        Some(_) => return Err(Error::new(ErrorCode::InvalidOptions, "options.enabled must be a boolean")),
    }
    let mode = match data.get("mode") {
        // `selectedServers` without a mode: those servers (not every server, which "auto" would
        // list, leaving the servers left out callable).
        None | Some(Value::Null) if data.get("selectedServers").is_some_and(|v| !v.is_null()) => Some("manual"),
        None | Some(Value::Null) => None,
        Some(Value::String(m)) => Some(m.as_str()),
        Some(_) => return Err(Error::new(ErrorCode::InvalidOptions, "options.mode must be \"auto\" or \"manual\"")),
    };
    let selection = match mode {
        None | Some("auto") => Ok(Selection::Auto),
        Some("manual") => {
            let bad = || Error::new(ErrorCode::InvalidOptions, "options.selectedServers must be an array of server names");
            let names = match data.get("selectedServers") {
                Some(Value::Array(a)) => a.iter().map(|v| v.as_str().map(str::to_owned).ok_or_else(bad)).collect::<Result<_, _>>()?,
                None | Some(Value::Null) => {
                    return Err(Error::new(
                        ErrorCode::InvalidOptions,
                        "options.mode \"manual\" lists the servers of options.selectedServers, which is not given: name them (selectedServers: [\"a\"]), or use mode \"auto\" for all",
                    ))
                }
                Some(_) => return Err(bad()),
            };
            Ok(Selection::Manual(names))
        }
        Some(other) => Err(Error::new(ErrorCode::InvalidOptions, format!("options.mode must be \"auto\" or \"manual\", got \"{other}\""))),
    }?;
    Ok((selection, timeout))
}
