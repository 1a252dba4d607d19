//! OAuth against a scripted world: an MCP server that wants a bearer token, its protected
//! resource metadata, and an authorization server (metadata, registration, token endpoint)
//! that checks what a real one checks (PKCE, the client's authentication, the code, the
//! resource), with every request recorded.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use futures_executor::block_on;
use serde_json::{json, Value};

use super::*;
use crate::protocol::client::{Client, ClientOptions};
use crate::protocol::transport::{Body, Clock, HttpRequest, HttpResponse, Transport, TransportError};
use crate::results::decode_base64;

const MCP: &str = "https://mcp.example/api/mcp";
const REDIRECT: &str = "http://localhost:3000/callback";

/// Rewrites a JSON answer.
type Rewrite = Rc<dyn Fn(&mut Value)>;

/// What the scripted servers publish and want.
#[derive(Clone)]
struct Config {
    /// Where the resource metadata is served (`None`: nowhere, a 2025-03-26 server).
    prm_at: Option<&'static str>,
    /// Whether the 401's challenge names `resource_metadata`.
    challenge_names_prm: bool,
    /// The challenge's `scope`.
    challenge_scope: Option<&'static str>,
    /// The resource metadata.
    prm: Value,
    /// Where the authorization server's metadata is served (`None`: nowhere).
    as_meta_at: Option<&'static str>,
    /// The authorization server's metadata (endpoints are filled in).
    as_meta: Value,
    /// The scopes the MCP server wants in a token (a token without them gets 403 insufficient_scope).
    needs_scope: Option<&'static str>,
    /// A client registered beforehand: (id, secret).
    preregistered: Option<(&'static str, Option<&'static str>)>,
    /// The token endpoint answers 503 with a page.
    token_down: bool,
    /// The token endpoint answers this status with an empty body.
    token_bare: Option<u16>,
    /// The token endpoint's `token_type`.
    token_type: &'static str,
    /// URLs whose fetch fails (a network error; in a browser also a CORS refusal).
    unreachable: Vec<&'static str>,
    /// The `iss` the authorization endpoint adds to its redirect.
    iss: Option<&'static str>,
    /// Requests to the MCP server (by their index among them) whose answer comes a few polls late.
    slow_mcp: Vec<usize>,
    /// A scope the authorization server never grants.
    withheld: Option<&'static str>,
    /// The 403 names the first scope of `needs_scope` the token misses, not all of them.
    one_at_a_time: bool,
    /// The token endpoint answers a few polls late.
    slow_token: bool,
    /// The registration endpoint answers a few polls late.
    slow_register: bool,
    /// A refresh token is spent by its use (rotation: the answer carries the next one).
    rotate: bool,
    /// The token endpoint's answer breaks off after its first bytes.
    token_cut: bool,
    /// URLs answered with a 302 to a location.
    redirects: Vec<(&'static str, &'static str)>,
    /// Redirects as a browser gives them to a `redirect: "manual"` fetch: status 0, no location
    /// (followed when the request asks for it).
    opaque_redirects: bool,
    /// Rewrites the token endpoint's answers (the tokens it records stay as issued).
    token_answer: Option<Rewrite>,
    /// URLs answered with this status and an HTML page (a server down or busy).
    failing: Vec<(&'static str, u16)>,
    /// More JSON documents served to a GET (another authorization server's metadata).
    documents: Vec<(&'static str, Value)>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            prm_at: Some("https://mcp.example/.well-known/oauth-protected-resource/api/mcp"),
            challenge_names_prm: true,
            challenge_scope: None,
            prm: json!({"resource": MCP, "authorization_servers": ["https://auth.example/tenant"], "scopes_supported": ["mcp:read", "mcp:write"]}),
            as_meta_at: Some("https://auth.example/.well-known/oauth-authorization-server/tenant"),
            as_meta: json!({
                "issuer": "https://auth.example/tenant",
                "authorization_endpoint": "https://auth.example/tenant/authorize",
                "token_endpoint": "https://auth.example/tenant/token",
                "registration_endpoint": "https://auth.example/tenant/register",
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            }),
            needs_scope: None,
            preregistered: None,
            token_down: false,
            token_bare: None,
            token_type: "Bearer",
            unreachable: Vec::new(),
            iss: None,
            slow_mcp: Vec::new(),
            withheld: None,
            one_at_a_time: false,
            slow_token: false,
            slow_register: false,
            rotate: false,
            token_cut: false,
            redirects: Vec::new(),
            opaque_redirects: false,
            token_answer: None,
            failing: Vec::new(),
            documents: Vec::new(),
        }
    }
}

#[derive(Default)]
struct State {
    log: Vec<HttpRequest>,
    /// code → (client_id, code_challenge, redirect_uri, scope)
    codes: Vec<(String, String, String, String, Option<String>)>,
    /// Tokens issued: (access, refresh, scope)
    tokens: Vec<(String, String, Option<String>)>,
    registered: Vec<(String, Option<String>)>,
    /// Token requests refused, and why.
    refused: Vec<String>,
}

#[derive(Clone)]
struct World {
    config: Rc<RefCell<Config>>,
    state: Rc<RefCell<State>>,
}

fn form_of(body: &str) -> Vec<(String, String)> {
    query_params(&format!("?{body}"))
}

fn field<'a>(form: &'a [(String, String)], k: &str) -> Option<&'a str> {
    form.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
}

fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
    req.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

impl World {
    fn new(config: Config) -> Self {
        let world = Self { config: Rc::new(RefCell::new(config)), state: Rc::default() };
        if let Some((id, secret)) = world.config.borrow().preregistered {
            world.state.borrow_mut().registered.push((id.into(), secret.map(str::to_owned)));
        }
        world
    }

    fn answer(&self, req: &HttpRequest) -> (u16, Vec<(String, String)>, String) {
        let c = self.config.borrow().clone();
        let json = |status: u16, v: Value| (status, vec![("content-type".to_owned(), "application/json".to_owned())], v.to_string());
        let url = req.url.as_str();
        if let Some((_, to)) = c.redirects.iter().find(|(from, _)| *from == url) {
            if req.follow_redirects {
                return self.answer(&HttpRequest { url: resolve(url, to).unwrap(), ..req.clone() });
            }
            return match c.opaque_redirects {
                true => (0, vec![], String::new()),
                false => (302, vec![("location".into(), (*to).to_owned())], String::new()),
            };
        }
        if let Some((_, status)) = c.failing.iter().find(|(u, _)| *u == url) {
            return (*status, vec![("content-type".into(), "text/html".into())], "<h1>try again later</h1>".into());
        }
        if let Some((_, doc)) = c.documents.iter().find(|(u, _)| *u == url && req.method == Method::Get) {
            return json(200, doc.clone());
        }
        if url == MCP {
            let token = header(req, "authorization").and_then(|h| h.strip_prefix("Bearer "));
            let issued = token.and_then(|t| self.state.borrow().tokens.iter().find(|(a, _, _)| a == t).cloned());
            let Some((_, _, scope)) = issued else {
                let mut challenge = "Bearer error=\"invalid_token\"".to_owned();
                if c.challenge_names_prm {
                    challenge.push_str(&format!(", resource_metadata=\"{}\"", c.prm_at.unwrap_or("https://mcp.example/nowhere")));
                }
                if let Some(s) = c.challenge_scope {
                    challenge.push_str(&format!(", scope=\"{s}\""));
                }
                return (401, vec![("www-authenticate".into(), challenge)], String::new());
            };
            if let Some(needed) = c.needs_scope {
                let granted = scope.unwrap_or_default();
                let missing = needed.split(' ').find(|n| !granted.split(' ').any(|g| g == *n));
                if let Some(missing) = missing {
                    let named = if c.one_at_a_time { missing } else { needed };
                    let challenge = format!("Bearer error=\"insufficient_scope\", scope=\"{named}\", resource_metadata=\"{}\"", c.prm_at.unwrap_or(""));
                    return (403, vec![("www-authenticate".into(), challenge)], String::new());
                }
            }
            let body: Value = serde_json::from_str(req.body.as_deref().unwrap_or("{}")).unwrap_or_default();
            let result = match body["method"].as_str() {
                Some("initialize") => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}),
                Some("tools/list") => json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
                _ => return (202, vec![], String::new()),
            };
            return json(200, json!({"jsonrpc": "2.0", "id": body["id"], "result": result}));
        }
        if Some(url) == c.prm_at && req.method == Method::Get {
            return json(200, c.prm.clone());
        }
        if Some(url) == c.as_meta_at && req.method == Method::Get {
            return json(200, c.as_meta.clone());
        }
        let endpoint = |k: &str, default: &str| c.as_meta.get(k).and_then(Value::as_str).unwrap_or(default).to_owned();
        if url == endpoint("registration_endpoint", "https://mcp.example/register") && req.method == Method::Post {
            let body: Value = serde_json::from_str(req.body.as_deref().unwrap_or("")).unwrap();
            assert_eq!(body["redirect_uris"], json!([REDIRECT]));
            // REDIRECT is on localhost.
            assert_eq!(body["application_type"], "native");
            let n = self.requests_to(url).len();
            let id = format!("dyn-client-{n}");
            self.state.borrow_mut().registered.push((id.clone(), None));
            return json(201, json!({"client_id": id, "token_endpoint_auth_method": "none", "redirect_uris": [REDIRECT]}));
        }
        if url == endpoint("token_endpoint", "https://mcp.example/token") && req.method == Method::Post && c.token_down {
            return (503, vec![("content-type".into(), "text/html".into())], "<h1>down</h1>".into());
        }
        if let (Some(status), true) = (c.token_bare, url == endpoint("token_endpoint", "")) {
            return (status, vec![], String::new());
        }
        if url == endpoint("token_endpoint", "https://mcp.example/token") && req.method == Method::Post {
            return self.token(req);
        }
        (404, vec![], "not found".into())
    }

    /// What the authorization endpoint does once the user agrees: a code for the request.
    fn authorize(&self, url: &str) -> String {
        let q = query_params(url);
        let get = |k: &str| field(&q, k).map(str::to_owned);
        assert_eq!(get("response_type").as_deref(), Some("code"));
        assert_eq!(get("code_challenge_method").as_deref(), Some("S256"));
        let code = format!("code-{}", self.state.borrow().codes.len());
        let withheld = self.config.borrow().withheld;
        let granted = get("scope").map(|s| s.split(' ').filter(|s| Some(*s) != withheld).collect::<Vec<_>>().join(" "));
        self.state.borrow_mut().codes.push((code.clone(), get("client_id").unwrap(), get("code_challenge").unwrap(), get("redirect_uri").unwrap(), granted));
        let iss = self.config.borrow().iss.map_or_else(String::new, |i| format!("&iss={}", form_component(i)));
        format!("{}?code={code}&state={}{iss}", get("redirect_uri").unwrap(), form_component(&get("state").unwrap()))
    }

    fn token(&self, req: &HttpRequest) -> (u16, Vec<(String, String)>, String) {
        let f = form_of(req.body.as_deref().unwrap_or(""));
        // The client's authentication: Basic header, or the form's client_id (and secret).
        let (client_id, secret) = match header(req, "authorization").and_then(|h| h.strip_prefix("Basic ")) {
            Some(b) => {
                let decoded = String::from_utf8(decode_base64(b)).unwrap();
                let (id, secret) = decoded.split_once(':').unwrap();
                (percent_decode(id, true), Some(percent_decode(secret, true)))
            }
            None => (field(&f, "client_id").unwrap_or("").to_owned(), field(&f, "client_secret").map(str::to_owned)),
        };
        let refuse = |why: &str, state: &Rc<RefCell<State>>| {
            state.borrow_mut().refused.push(why.to_owned());
            (400, vec![("content-type".to_owned(), "application/json".to_owned())], json!({"error": why}).to_string())
        };
        if !self.state.borrow().registered.iter().any(|(id, s)| *id == client_id && *s == secret) {
            return refuse("invalid_client", &self.state);
        }
        let scope = match field(&f, "grant_type") {
            Some("authorization_code") => {
                let code = field(&f, "code").unwrap_or("");
                let Some((_, cid, challenge, redirect, scope)) = self.state.borrow().codes.iter().find(|c| c.0 == code).cloned() else {
                    return refuse("invalid_grant", &self.state);
                };
                let verifier = field(&f, "code_verifier").unwrap_or("");
                if cid != client_id || base64url(&sha256(verifier.as_bytes())) != challenge || field(&f, "redirect_uri") != Some(redirect.as_str()) {
                    return refuse("invalid_grant", &self.state);
                }
                scope
            }
            Some("client_credentials") => field(&f, "scope").map(str::to_owned),
            Some("refresh_token") => {
                let refresh = field(&f, "refresh_token").unwrap_or("");
                let Some((_, _, scope)) = self.state.borrow().tokens.iter().find(|t| t.1 == refresh).cloned() else {
                    return refuse("invalid_grant", &self.state);
                };
                if self.config.borrow().rotate {
                    self.state.borrow_mut().tokens.iter_mut().filter(|t| t.1 == refresh).for_each(|t| t.1 = "spent".into());
                }
                scope
            }
            _ => return refuse("unsupported_grant_type", &self.state),
        };
        let n = self.state.borrow().tokens.len();
        let (access, refresh) = (format!("access-{n}"), format!("refresh-{n}"));
        self.state.borrow_mut().tokens.push((access.clone(), refresh.clone(), scope.clone()));
        let mut body = json!({"access_token": access, "token_type": self.config.borrow().token_type, "expires_in": 3600, "refresh_token": refresh});
        if let Some(s) = scope {
            body["scope"] = s.into();
        }
        if let Some(rewrite) = self.config.borrow().token_answer.clone() {
            rewrite(&mut body);
        }
        (200, vec![("content-type".to_owned(), "application/json".to_owned())], body.to_string())
    }

    fn urls(&self) -> Vec<String> {
        self.state.borrow().log.iter().map(|r| format!("{} {}", r.method.as_str(), r.url)).collect()
    }

    fn requests_to(&self, url: &str) -> Vec<HttpRequest> {
        self.state.borrow().log.iter().filter(|r| r.url == url).cloned().collect()
    }
}

/// A body of one chunk, then its end or (cut) a broken connection.
struct OneChunk(Option<Vec<u8>>, bool);

impl OneChunk {
    fn whole(bytes: Vec<u8>) -> Self {
        Self(Some(bytes), false)
    }
    fn cut(bytes: Vec<u8>) -> Self {
        Self(Some(bytes), true)
    }
}

impl Body for OneChunk {
    fn next_chunk(&mut self) -> impl Future<Output = Option<Result<Vec<u8>, TransportError>>> {
        let next = self.0.take();
        let broken = next.is_none() && std::mem::take(&mut self.1);
        async move {
            if broken {
                return Some(Err(TransportError::Network("connection reset".into())));
            }
            next.map(Ok)
        }
    }
}

impl Transport for World {
    type Body = OneChunk;
    fn send(&self, req: HttpRequest) -> impl Future<Output = Result<HttpResponse<OneChunk>, TransportError>> {
        let down = self.config.borrow().unreachable.contains(&req.url.as_str());
        let slow = (req.url == MCP && self.config.borrow().slow_mcp.contains(&self.requests_to(MCP).len()))
            || (self.config.borrow().slow_token && req.url.ends_with("/token"))
            || (self.config.borrow().slow_register && req.url.ends_with("/register"));
        let cut = self.config.borrow().token_cut && req.url.ends_with("/token");
        let (status, headers, body) = self.answer(&req);
        self.state.borrow_mut().log.push(req);
        async move {
            for _ in 0..if slow { 5 } else { 0 } {
                YieldOnce(false).await;
            }
            if down {
                return Err(TransportError::Network("Failed to fetch".into()));
            }
            if cut {
                return Ok(HttpResponse { status, headers, body: OneChunk::cut(body.as_bytes()[..3].to_vec()) });
            }
            Ok(HttpResponse { status, headers, body: OneChunk::whole(body.into_bytes()) })
        }
    }
}

/// Counting random bytes: deterministic, and different on every call.
fn counting() -> Random {
    let n = Rc::new(std::cell::Cell::new(0u8));
    Box::new(move |buf: &mut [u8]| {
        for b in buf {
            n.set(n.get().wrapping_add(1));
            *b = n.get();
        }
        Ok(())
    })
}

/// An OAuth whose user agrees at once; the authorization URLs asked for, and what was saved.
#[allow(clippy::type_complexity)]
fn oauth(world: &World, opts: OAuthOptions) -> (Rc<OAuth<World>>, Rc<RefCell<Vec<String>>>, Rc<RefCell<Vec<Value>>>) {
    oauth_at(world, MCP, opts)
}

/// The same for a server at another URL than [`MCP`] (whose refusals [`challenge`] makes).
#[allow(clippy::type_complexity)]
fn oauth_at(world: &World, server: &str, opts: OAuthOptions) -> (Rc<OAuth<World>>, Rc<RefCell<Vec<String>>>, Rc<RefCell<Vec<Value>>>) {
    let asked = Rc::new(RefCell::new(Vec::new()));
    let saved = Rc::new(RefCell::new(Vec::new()));
    let (w, a, s) = (world.clone(), asked.clone(), saved.clone());
    let authorize: Authorize = Box::new(move |req: &Value| {
        let url = req["url"].as_str().unwrap().to_owned();
        a.borrow_mut().push(url.clone());
        let back = w.authorize(&url);
        // The user takes a moment: whatever else runs goes on meanwhile.
        Box::pin(async move {
            YieldOnce(false).await;
            Ok(back)
        })
    });
    let on_saved: Saved = Box::new(move |v: &Value| s.borrow_mut().push(v.clone()));
    let o = OAuth::new(world.clone(), server, opts, Some(authorize), Some(on_saved), counting()).unwrap();
    (o, asked, saved)
}

fn opts() -> OAuthOptions {
    OAuthOptions { redirect_url: REDIRECT.into(), ..OAuthOptions::default() }
}

/// What the client's handler is given for the MCP server's answer to an unauthenticated request.
fn refusal(world: &World, token: Option<&str>) -> Value {
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    if let Some(t) = token {
        headers.push(("authorization".into(), format!("Bearer {t}")));
    }
    let req = HttpRequest { method: Method::Post, url: MCP.into(), headers, body: Some(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.into()), follow_redirects: false };
    let (status, headers, _) = world.answer(&req);
    let challenge = headers.iter().find(|(k, _)| k == "www-authenticate").map(|(_, v)| v.clone()).unwrap();
    json!({"status": status, "challenge": parse_www_authenticate(&challenge), "wwwAuthenticate": challenge})
}

/// A 401 whose challenge names this resource metadata.
fn challenge(resource_metadata: &str) -> Value {
    let header = format!("Bearer error=\"invalid_token\", resource_metadata=\"{resource_metadata}\"");
    json!({"status": 401, "challenge": parse_www_authenticate(&header), "wwwAuthenticate": header})
}

/// The rule a discovery error names (`oauthRefused`).
fn rule(e: &Error) -> Option<&str> {
    e.details.as_ref().and_then(|d| d.get("oauthRefused")).and_then(Value::as_str)
}

fn bearer_of(headers: &[(String, String)]) -> &str {
    headers.iter().find(|(k, _)| k == "authorization").map(|(_, v)| v.strip_prefix("Bearer ").unwrap()).unwrap()
}

#[test]
fn sha256_and_base64url_match_independent_vectors() {
    // Vectors from Python's hashlib.
    let hex = |b: [u8; 32]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    assert_eq!(hex(sha256(b"")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_eq!(hex(sha256(b"abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // 200 bytes: four blocks, the length in a block of its own.
    assert_eq!(hex(sha256(&[b'a'; 200])), "c2a908d98f5df987ade41b5fce213067efbcc21ef2240212a41e54b5e7c28ae5");
    assert_eq!(base64url(&sha256(b"dBjftJeZ4CVP-mJ92IqhaZ7Nb4lKXD9sYuBr1iQkTbI")), "yDYdUWJi0VYypHR4vYYqCCErIa1LSZNPYyzaIL0MVQk");
    assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
}

#[test]
fn urls_forms_and_queries() {
    assert_eq!(split_url("https://a.example:8443/x/y?q=1#f"), Some(("https://a.example:8443", "/x/y")));
    assert_eq!(split_url("http://a.example"), Some(("http://a.example", "")));
    assert_eq!(split_url("ftp://a.example/x"), None);
    assert_eq!(split_url("https:///x"), None);
    assert_eq!(form(&[("a b", "c&d=é".into())]), "a%20b=c%26d%3D%C3%A9");
    assert_eq!(query_params("http://l/cb?code=a%2Bb+c&state=s%3D#frag"), vec![("code".into(), "a+b c".into()), ("state".into(), "s=".into())]);
    assert_eq!(query_params("code=x&bad=%zz"), vec![("code".into(), "x".into()), ("bad".into(), "%zz".into())]);
    assert!(resource_allowed("https://mcp.example/api/mcp", "https://mcp.example/api"));
    assert!(resource_allowed("https://mcp.example/api/mcp", "https://MCP.example/api/mcp/"));
    assert!(!resource_allowed("https://mcp.example/api/mcp", "https://mcp.example/api/mc"));
    assert!(!resource_allowed("https://mcp.example/api/mcp", "https://other.example/api/mcp"));
    for (redirect, kind) in [
        ("https://app.example/cb", "web"),
        ("http://localhost:3000/cb", "native"),
        ("http://127.0.0.1/cb", "native"),
        ("http://[::1]:8080/cb", "native"),
        ("com.example.app:/oauth", "native"),
        ("https://localhost.example/cb", "web"),
    ] {
        assert_eq!(application_type(redirect), kind, "{redirect}");
    }
    assert_eq!(union(Some("a b"), Some("b c")), Some("a b c".into()));
    assert_eq!(union(None, Some("  ")), None);
}

#[test]
fn a_first_authorization_discovers_registers_and_exchanges_a_pkce_code() {
    let world = World::new(Config { challenge_scope: Some("mcp:read"), ..Config::default() });
    let (o, asked, saved) = oauth(&world, opts());
    let headers = block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!(bearer_of(&headers), "access-0");
    // Discovery: the challenge's resource metadata, then the issuer's metadata with its path inserted.
    assert_eq!(
        world.urls(),
        [
            "GET https://mcp.example/.well-known/oauth-protected-resource/api/mcp",
            "GET https://auth.example/.well-known/oauth-authorization-server/tenant",
            "POST https://auth.example/tenant/register",
            "POST https://auth.example/tenant/token",
        ]
    );
    // The authorization request: PKCE S256, state, the challenge's scope, the resource indicator.
    let q = query_params(&asked.borrow()[0]);
    assert!(asked.borrow()[0].starts_with("https://auth.example/tenant/authorize?"));
    assert_eq!(field(&q, "client_id"), Some("dyn-client-0"));
    assert_eq!(field(&q, "scope"), Some("mcp:read"));
    assert_eq!(field(&q, "resource"), Some(MCP));
    assert_eq!(field(&q, "redirect_uri"), Some(REDIRECT));
    assert_eq!(field(&q, "code_challenge").unwrap().len(), 43);
    assert!(field(&q, "state").unwrap().len() >= 16);
    // The token request: the verifier matched the challenge (else the world refuses), the resource.
    let token_req = &world.requests_to("https://auth.example/tenant/token")[0];
    let f = form_of(token_req.body.as_deref().unwrap());
    assert_eq!(field(&f, "grant_type"), Some("authorization_code"));
    assert_eq!(field(&f, "resource"), Some(MCP));
    assert_eq!(field(&f, "client_id"), Some("dyn-client-0"));
    assert_eq!(header(token_req, "content-type"), Some("application/x-www-form-urlencoded"));
    assert!(world.state.borrow().refused.is_empty());
    // No request has the transport follow redirects: the client follows a metadata document's itself.
    for r in world.state.borrow().log.iter() {
        assert!(!r.follow_redirects, "{} {}", r.method.as_str(), r.url);
    }
    // Saved: the registration, then the tokens.
    let last = saved.borrow().last().cloned().unwrap();
    assert_eq!(last["client"]["client_id"], "dyn-client-0");
    assert_eq!(last["tokens"]["access_token"], "access-0");
    assert_eq!(o.issued(), 1);
}

/// What the authorization's exchanges read counts against the budget, in the share of the server
/// answering: past it, LIMIT_EXCEEDED with the step, and nothing more is asked.
#[test]
fn the_answers_read_count_against_the_budget() {
    use crate::protocol::budget::{Held, MAX_SERVER_HELD_BYTES};
    let world = World::new(Config::default());
    let (o, asked, _) = oauth(&world, opts());
    let mut same = Held::of(server_of(MCP));
    assert!(same.set(MAX_SERVER_HELD_BYTES - 10).is_ok());
    let e = block_on(o.clone().on_refused(&refusal(&world, None))).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
    assert!(e.message.starts_with("OAuth discovery: the answer of https://mcp.example/.well-known/oauth-protected-resource/api/mcp: the responses of https://mcp.example being read at once"), "{e}");
    assert_eq!(e.details.as_ref().unwrap()["oauthStep"], "discovery");
    assert_eq!(world.urls().len(), 1, "{:?}", world.urls());
    assert!(asked.borrow().is_empty());
    drop(same);
    assert_eq!(Held::total(), 0, "given back");
    assert!(block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().is_some(), "with room, it goes on");
}

#[test]
fn scopes_come_from_the_challenge_then_the_resource_then_the_options() {
    let scope_asked = |config: Config, configured: Option<&str>| {
        let world = World::new(config);
        let (o, asked, _) = oauth(&world, OAuthOptions { scope: configured.map(str::to_owned), ..opts() });
        block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
        let url = asked.borrow()[0].clone();
        field(&query_params(&url), "scope").map(str::to_owned)
    };
    assert_eq!(scope_asked(Config { challenge_scope: Some("a b"), ..Config::default() }, Some("c")).as_deref(), Some("a b"));
    assert_eq!(scope_asked(Config::default(), Some("c")).as_deref(), Some("mcp:read mcp:write"));
    let no_scopes = Config { prm: json!({"resource": MCP, "authorization_servers": ["https://auth.example/tenant"]}), ..Config::default() };
    assert_eq!(scope_asked(no_scopes.clone(), Some("c")).as_deref(), Some("c"));
    assert_eq!(scope_asked(no_scopes, None), None);
}

#[test]
fn discovery_tries_the_well_known_urls_in_order() {
    // No resource_metadata in the challenge, the metadata at the origin's root; the issuer's
    // metadata only at its OpenID Connect URL with the path appended.
    let world = World::new(Config {
        challenge_names_prm: false,
        prm_at: Some("https://mcp.example/.well-known/oauth-protected-resource"),
        as_meta_at: Some("https://auth.example/tenant/.well-known/openid-configuration"),
        ..Config::default()
    });
    let (o, _, _) = oauth(&world, opts());
    block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!(
        world.urls()[..5],
        [
            "GET https://mcp.example/.well-known/oauth-protected-resource/api/mcp",
            "GET https://mcp.example/.well-known/oauth-protected-resource",
            "GET https://auth.example/.well-known/oauth-authorization-server/tenant",
            "GET https://auth.example/.well-known/openid-configuration/tenant",
            "GET https://auth.example/tenant/.well-known/openid-configuration",
        ]
    );
}

#[test]
fn a_2025_03_26_server_is_its_own_authorization_server_with_default_endpoints() {
    // No resource metadata: the MCP server's origin is the issuer. Its metadata first...
    let meta = json!({
        "issuer": "https://mcp.example",
        "authorization_endpoint": "https://mcp.example/oauth/authorize",
        "token_endpoint": "https://mcp.example/oauth/token",
        "registration_endpoint": "https://mcp.example/oauth/register",
        "code_challenge_methods_supported": ["S256"],
    });
    let world = World::new(Config {
        prm_at: None,
        challenge_names_prm: false,
        as_meta_at: Some("https://mcp.example/.well-known/oauth-authorization-server"),
        as_meta: meta,
        ..Config::default()
    });
    let (o, asked, _) = oauth(&world, opts());
    block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert!(asked.borrow()[0].starts_with("https://mcp.example/oauth/authorize?"));
    // No resource indicator without the resource's metadata.
    assert_eq!(field(&query_params(&asked.borrow()[0]), "resource"), None);
    assert_eq!(world.requests_to("https://mcp.example/oauth/token").len(), 1);

    // Its metadata naming an issuer of another origin is not used: it would pass for the
    // server that saved tokens or a client given belong to, and its token endpoint get them.
    let meta = json!({
        "issuer": "https://auth.example/tenant",
        "authorization_endpoint": "https://auth.example/tenant/authorize",
        "token_endpoint": "https://mcp.example/steal",
        "code_challenge_methods_supported": ["S256"],
    });
    let world = World::new(Config {
        prm_at: None,
        challenge_names_prm: false,
        as_meta_at: Some("https://mcp.example/.well-known/oauth-authorization-server"),
        as_meta: meta,
        ..Config::default()
    });
    let (o, asked, _) = oauth(&world, opts());
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert!(e.message.contains("names the issuer https://auth.example/tenant"), "{}", e.message);
    assert!(asked.borrow().is_empty());
    assert!(world.requests_to("https://mcp.example/steal").is_empty());

    // ...and without any metadata, /authorize, /token and /register at that origin.
    let world = World::new(Config { prm_at: None, challenge_names_prm: false, as_meta_at: None, as_meta: json!({}), ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    let headers = block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!(bearer_of(&headers), "access-0");
    assert!(asked.borrow()[0].starts_with("https://mcp.example/authorize?"));
    assert_eq!(world.requests_to("https://mcp.example/register").len(), 1);
    assert_eq!(world.requests_to("https://mcp.example/token").len(), 1);
}

#[test]
fn a_preregistered_client_authenticates_as_the_server_supports() {
    let method_used = |methods: Value, secret: Option<&'static str>| {
        let mut config = Config { preregistered: Some(("pre", secret)), ..Config::default() };
        config.as_meta["token_endpoint_auth_methods_supported"] = methods;
        let world = World::new(config);
        let (o, _, _) = oauth(&world, OAuthOptions { client_id: Some("pre".into()), client_secret: secret.map(str::to_owned), ..opts() });
        block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
        assert!(world.requests_to("https://auth.example/tenant/register").is_empty(), "no registration for a client given");
        assert!(world.state.borrow().refused.is_empty(), "{:?}", world.state.borrow().refused);
        let req = world.requests_to("https://auth.example/tenant/token")[0].clone();
        let f = form_of(req.body.as_deref().unwrap());
        match (header(&req, "authorization"), field(&f, "client_secret")) {
            (Some(_), None) => "client_secret_basic",
            (None, Some(_)) => "client_secret_post",
            (None, None) => "none",
            _ => "both",
        }
    };
    assert_eq!(method_used(json!(["client_secret_basic", "client_secret_post"]), Some("s3cr:t/")), "client_secret_basic");
    // RFC 6749 2.3.1: the id and the secret are form-encoded before the Basic header's base64.
    let mut config = Config { preregistered: Some(("app:1", Some("a+b%2F="))), ..Config::default() };
    config.as_meta["token_endpoint_auth_methods_supported"] = json!(["client_secret_basic"]);
    let world = World::new(config);
    let (o, _, _) = oauth(&world, OAuthOptions { client_id: Some("app:1".into()), client_secret: Some("a+b%2F=".into()), ..opts() });
    block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
    let basic = header(&world.requests_to("https://auth.example/tenant/token")[0], "authorization").unwrap().to_owned();
    assert_eq!(String::from_utf8(decode_base64(basic.strip_prefix("Basic ").unwrap())).unwrap(), "app%3A1:a%2Bb%252F%3D");
    assert_eq!(method_used(json!(["client_secret_post"]), Some("s3cr:t/")), "client_secret_post");
    assert_eq!(method_used(json!(["none"]), None), "none");
    // Nothing said: RFC 6749's default for a client with a secret is the Basic header.
    assert_eq!(method_used(Value::Null, Some("s")), "client_secret_basic");
}

#[test]
fn a_metadata_document_url_is_the_client_id_where_the_server_takes_one() {
    let mut config = Config { preregistered: Some(("https://app.example/client.json", None)), ..Config::default() };
    config.as_meta["client_id_metadata_document_supported"] = true.into();
    let world = World::new(config);
    let (o, asked, _) = oauth(&world, OAuthOptions { client_metadata_url: Some("https://app.example/client.json".into()), ..opts() });
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!(field(&query_params(&asked.borrow()[0]), "client_id"), Some("https://app.example/client.json"));
    assert!(world.requests_to("https://auth.example/tenant/register").is_empty());

    // The document's URL is the client a refresh authenticates as (and what is saved).
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    let headers = block_on(o.clone().on_refused(&refusal(&world, Some("access-0")))).unwrap().unwrap();
    assert_eq!(bearer_of(&headers), "access-1");
    let f = form_of(world.requests_to("https://auth.example/tenant/token")[1].body.as_deref().unwrap());
    assert_eq!((field(&f, "grant_type"), field(&f, "client_id")), (Some("refresh_token"), Some("https://app.example/client.json")));

    // A server that does not take them: registered dynamically.
    let world = World::new(Config::default());
    let (o, asked, _) = oauth(&world, OAuthOptions { client_metadata_url: Some("https://app.example/client.json".into()), ..opts() });
    block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!(field(&query_params(&asked.borrow()[0]), "client_id"), Some("dyn-client-0"));
}

#[test]
fn saved_tokens_are_refreshed_without_the_user() {
    let world = World::new(Config::default());
    let (first, _, saved) = oauth(&world, opts());
    block_on(first.on_refused(&refusal(&world, None))).unwrap().unwrap();
    let kept = saved.borrow().last().cloned().unwrap();

    // The next page load: restored, sent from the start; the token expires (the server forgets it).
    let (o, asked, saved) = oauth(&world, OAuthOptions { saved: Some(kept), ..opts() });
    assert_eq!(bearer_of(&o.headers()), "access-0");
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    let headers = block_on(o.clone().on_refused(&refusal(&world, Some("access-0")))).unwrap().unwrap();
    assert_eq!(bearer_of(&headers), "access-1");
    assert!(asked.borrow().is_empty(), "a refresh asks nothing of the user");
    let f = form_of(world.requests_to("https://auth.example/tenant/token")[1].body.as_deref().unwrap());
    assert_eq!(field(&f, "grant_type"), Some("refresh_token"));
    assert_eq!(field(&f, "refresh_token"), Some("refresh-0"));
    assert_eq!(field(&f, "resource"), Some(MCP));
    assert_eq!(saved.borrow().last().unwrap()["tokens"]["access_token"], "access-1");

    // The token endpoint is down: the refresh fails with that, and the tokens are kept for a later try.
    world.config.borrow_mut().token_down = true;
    world.state.borrow_mut().tokens[1].0 = "expired".into();
    let e = block_on(o.clone().on_refused(&refusal(&world, Some("access-1")))).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["status"].as_u64()), (ErrorCode::Unauthorized, Some(503)));
    assert_eq!(bearer_of(&o.headers()), "access-1");
    assert!(asked.borrow().is_empty());
    world.config.borrow_mut().token_down = false;
    world.state.borrow_mut().tokens[1].0 = "access-1".into();

    // Busy (429), or an answer cut off: that may pass, the tokens stay and nobody is asked.
    for (bare, cut) in [(Some(429), false), (None, true)] {
        world.config.borrow_mut().token_bare = bare;
        world.config.borrow_mut().token_cut = cut;
        world.state.borrow_mut().tokens[1].0 = "expired".into();
        let e = block_on(o.clone().on_refused(&refusal(&world, Some("access-1")))).unwrap_err();
        assert_eq!(e.code, ErrorCode::Unauthorized);
        assert_eq!(bearer_of(&o.headers()), "access-1");
        assert!(asked.borrow().is_empty());
        world.state.borrow_mut().tokens[1].0 = "access-1".into();
    }
    world.config.borrow_mut().token_bare = None;
    world.config.borrow_mut().token_cut = false;

    // A refresh token that no longer works: the user is asked again.
    world.state.borrow_mut().tokens.iter_mut().for_each(|t| t.1 = "revoked".into());
    world.state.borrow_mut().tokens[1].0 = "expired".into();
    let headers = block_on(o.on_refused(&refusal(&world, Some("access-1")))).unwrap().unwrap();
    // access-2 went out in the answer that broke off.
    assert_eq!(bearer_of(&headers), "access-3");
    assert_eq!(asked.borrow().len(), 1);
}

#[test]
fn insufficient_scope_asks_the_user_for_the_scopes_the_server_names() {
    let world = World::new(Config { challenge_scope: Some("mcp:read"), needs_scope: Some("mcp:read mcp:write"), ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    let headers = block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    let token = bearer_of(&headers).to_owned();
    let info = refusal(&world, Some(&token));
    assert_eq!(info["status"], 403);
    let headers = block_on(o.on_refused(&info)).unwrap().unwrap();
    assert_eq!(field(&query_params(&asked.borrow()[1]), "scope"), Some("mcp:read mcp:write"));
    // Not a refresh: the new scopes need the user; and the token works now.
    assert_eq!(world.requests_to("https://auth.example/tenant/token").len(), 2);
    let ok = world.answer(&HttpRequest {
        method: Method::Post,
        url: MCP.into(),
        headers: headers.clone(),
        body: Some(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.into()),
        follow_redirects: false,
    });
    assert_eq!(ok.0, 200);
    // A 403 for any other reason is not the handler's to answer.
    let forbidden = json!({"status": 403, "challenge": {"scheme": "Bearer", "error": "invalid_token"}});
    let world = World::new(Config::default());
    let (o, asked, _) = oauth(&world, opts());
    assert_eq!(block_on(o.on_refused(&forbidden)).unwrap(), None);
    assert!(asked.borrow().is_empty() && world.urls().is_empty());
}

#[test]
fn what_goes_wrong_is_an_unauthorized_error_that_names_its_step() {
    let err = |world: &World, opts: OAuthOptions, back: Option<&'static str>| {
        let w = world.clone();
        let authorize: Authorize = Box::new(move |req: &Value| {
            let url = req["url"].as_str().unwrap().to_owned();
            let real = w.authorize(&url);
            Box::pin(async move { Ok(back.map_or(real, str::to_owned)) })
        });
        let o = OAuth::new(world.clone(), MCP, opts, Some(authorize), None, counting()).unwrap();
        block_on(o.on_refused(&refusal(world, None))).unwrap_err()
    };
    let world = World::new(Config::default());
    let e = err(&world, opts(), Some("http://localhost:3000/callback?code=code-0&state=forged"));
    assert_eq!((e.code, e.details.as_ref().unwrap()["oauthStep"].as_str()), (ErrorCode::Unauthorized, Some("authorization")));
    assert!(e.message.contains("state"), "{}", e.message);
    assert!(world.requests_to("https://auth.example/tenant/token").is_empty(), "a forged redirect's code is not exchanged");

    let e = err(&World::new(Config::default()), opts(), Some("http://localhost:3000/callback?error=access_denied&error_description=no+thanks"));
    assert_eq!(e.details.as_ref().unwrap()["oauthError"], "access_denied");
    assert!(e.message.contains("no thanks"), "{}", e.message);

    // The resource's metadata names another server.
    let config = Config { prm: json!({"resource": "https://evil.example/mcp", "authorization_servers": ["https://auth.example/tenant"]}), ..Config::default() };
    let world = World::new(config);
    let e = err(&world, opts(), None);
    assert_eq!(e.details.as_ref().unwrap()["oauthStep"], "discovery");
    assert!(world.requests_to("https://auth.example/tenant/authorize").is_empty());

    // No PKCE with S256, or no word of PKCE at all (2025-11-25: then there is none, and the client
    // must not go on).
    let mut config = Config::default();
    config.as_meta["code_challenge_methods_supported"] = json!(["plain"]);
    let e = err(&World::new(config), opts(), None);
    assert!(e.message.contains("PKCE"), "{}", e.message);
    let mut config = Config::default();
    config.as_meta.as_object_mut().unwrap().remove("code_challenge_methods_supported");
    let world = World::new(config);
    let e = err(&world, opts(), None);
    assert!(e.message.contains("PKCE"), "{}", e.message);
    assert!(world.requests_to("https://auth.example/tenant/token").is_empty());

    // No registration endpoint and no client given.
    let mut config = Config::default();
    config.as_meta.as_object_mut().unwrap().remove("registration_endpoint");
    let e = err(&World::new(config), opts(), None);
    assert_eq!(e.details.as_ref().unwrap()["oauthStep"], "registration");
    assert!(e.message.contains("oauth.clientId"), "{}", e.message);

    // The token endpoint refuses (a client the server does not know).
    let config = Config { preregistered: Some(("pre", Some("right"))), ..Config::default() };
    let e = err(&World::new(config), OAuthOptions { client_id: Some("pre".into()), client_secret: Some("wrong".into()), ..opts() }, None);
    assert_eq!((e.details.as_ref().unwrap()["oauthStep"].as_str(), e.details.as_ref().unwrap()["oauthError"].as_str()), (Some("token"), Some("invalid_client")));

    // The host's authorize fails: its error is the request's.
    let world = World::new(Config::default());
    let authorize: Authorize = Box::new(|_: &Value| Box::pin(async { Err(Error::new(ErrorCode::Aborted, "the user closed the window")) }));
    let o = OAuth::new(world.clone(), MCP, opts(), Some(authorize), None, counting()).unwrap();
    assert_eq!(block_on(o.on_refused(&refusal(&world, None))).unwrap_err().code, ErrorCode::Aborted);
}

#[test]
fn a_redirecting_token_or_registration_endpoint_is_said_to_redirect() {
    for (endpoint, step) in [("https://auth.example/tenant/token", "token"), ("https://auth.example/tenant/register", "registration")] {
        for opaque in [false, true] {
            let config = Config { redirects: vec![(endpoint, "https://auth.example/moved")], opaque_redirects: opaque, ..Config::default() };
            let world = World::new(config);
            let (o, _, _) = oauth(&world, opts());
            let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
            let details = e.details.clone().unwrap();
            assert_eq!((e.code, details["oauthStep"].as_str()), (ErrorCode::Unauthorized, Some(step)), "{}", e.message);
            if opaque {
                assert_eq!((details["status"].as_u64(), details.get("location")), (Some(0), None));
                assert!(e.message.contains("answered HTTP 0, which is how a browser reports a redirect") && e.message.contains("it may redirect"), "{}", e.message);
            } else {
                assert_eq!((details["status"].as_u64(), details["location"].as_str()), (Some(302), Some("https://auth.example/moved")));
                assert!(e.message.starts_with(&format!("OAuth {step}: the {step} endpoint redirected to \"https://auth.example/moved\" (HTTP 302); redirects are not followed")), "{}", e.message);
            }
            assert!(world.requests_to("https://auth.example/moved").is_empty(), "not followed");
        }
    }
}

#[test]
fn bad_options_are_refused() {
    let world = World::new(Config::default());
    let authorize = || -> Authorize { Box::new(|_: &Value| Box::pin(async { Ok(String::new()) })) };
    let new = |opts| OAuth::new(world.clone(), MCP, opts, Some(authorize()), None, counting()).err().map(|e| e.code);
    assert_eq!(new(OAuthOptions::default()), Some(ErrorCode::InvalidOptions));
    assert_eq!(new(OAuthOptions { saved: Some(json!({"tokens": {"token_type": "Bearer"}})), ..opts() }), Some(ErrorCode::InvalidOptions));
    assert_eq!(new(OAuthOptions { saved: Some(json!({"client": {"client_secret": "x"}})), ..opts() }), Some(ErrorCode::InvalidOptions));
    assert_eq!(new(OAuthOptions { saved: Some(json!({"client": null, "tokens": null})), ..opts() }), None);
    assert_eq!(new(OAuthOptions { saved: Some(json!({"client": null, "tokens": null, "issuer": null})), ..opts() }), None);
    // Parts of another type (a store that kept them as JSON strings): named, not ignored.
    for (saved, part) in [
        (json!({"tokens": "{\"access_token\":\"at-1\"}"}), "oauth.saved.tokens must be an object"),
        (json!({"client": "client-7"}), "oauth.saved.client must be an object"),
        (json!({"client": ["client-7"]}), "oauth.saved.client must be an object"),
        (json!({"issuer": 7}), "oauth.saved.issuer must be a string"),
    ] {
        let e = OAuth::new(world.clone(), MCP, OAuthOptions { saved: Some(saved.clone()), ..opts() }, Some(authorize()), None, counting()).err();
        assert!(matches!(&e, Some(e) if e.code == ErrorCode::InvalidOptions && e.message.starts_with(part)), "{saved}: {e:?}");
    }
}

#[test]
fn a_client_acting_for_itself_gets_tokens_with_its_credentials_alone() {
    let world = World::new(Config { preregistered: Some(("svc", Some("pw"))), ..Config::default() });
    let service = OAuthOptions { client_id: Some("svc".into()), client_secret: Some("pw".into()), client_credentials: true, ..OAuthOptions::default() };
    let o = OAuth::new(world.clone(), MCP, service, None, None, counting()).unwrap();
    let headers = block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!(bearer_of(&headers), "access-0");
    let req = world.requests_to("https://auth.example/tenant/token")[0].clone();
    let f = form_of(req.body.as_deref().unwrap());
    assert_eq!(field(&f, "grant_type"), Some("client_credentials"));
    assert_eq!(field(&f, "scope"), Some("mcp:read mcp:write"));
    assert_eq!(field(&f, "resource"), Some(MCP));
    assert!(header(&req, "authorization").unwrap().starts_with("Basic "));
    assert!(world.requests_to("https://auth.example/tenant/register").is_empty());
    // Without a secret there is nothing to authenticate with; without the grant, a user is needed.
    let no_secret = OAuthOptions { client_id: Some("svc".into()), client_credentials: true, ..OAuthOptions::default() };
    assert_eq!(OAuth::new(world.clone(), MCP, no_secret, None, None, counting()).err().unwrap().code, ErrorCode::InvalidOptions);
    assert_eq!(OAuth::new(world.clone(), MCP, opts(), None, None, counting()).err().unwrap().code, ErrorCode::InvalidOptions);
}

#[test]
fn an_authorization_no_request_waits_for_is_dropped_and_the_next_refusal_starts_afresh() {
    /// Counts the host's `authorize` futures dropped before they ended (a JS host's signal aborts).
    struct Abandoned(Rc<std::cell::Cell<u32>>, bool);
    impl Drop for Abandoned {
        fn drop(&mut self) {
            if !self.1 {
                self.0.set(self.0.get() + 1);
            }
        }
    }
    let world = World::new(Config::default());
    let abandoned = Rc::new(std::cell::Cell::new(0));
    let asked = Rc::new(std::cell::Cell::new(0));
    let (w, a, n) = (world.clone(), abandoned.clone(), asked.clone());
    let authorize: Authorize = Box::new(move |req: &Value| {
        n.set(n.get() + 1);
        let back = w.authorize(req["url"].as_str().unwrap());
        let guard = Abandoned(a.clone(), false);
        Box::pin(async move {
            let mut guard = guard;
            YieldOnce(false).await;
            guard.1 = true;
            Ok(back)
        })
    });
    let o = OAuth::new(world.clone(), MCP, opts(), Some(authorize), None, counting()).unwrap();
    let info = refusal(&world, None);
    // The only request waiting for the user is dropped (its timeout): so is the authorization.
    let mut first = Box::pin(o.clone().on_refused(&info));
    let waker = futures_util::task::noop_waker();
    assert!(first.as_mut().poll(&mut std::task::Context::from_waker(&waker)).is_pending());
    assert_eq!((asked.get(), abandoned.get()), (1, 0));
    drop(first);
    assert_eq!(abandoned.get(), 1, "the host's authorize was dropped with it");
    // Nothing holds on to it: the next refusal asks the user afresh, and its flow is cleared after.
    let headers = block_on(o.clone().on_refused(&info)).unwrap().unwrap();
    assert_eq!(bearer_of(&headers), "access-0");
    assert_eq!((asked.get(), abandoned.get()), (2, 1));
    assert!(o.flow.borrow().as_ref().and_then(WeakShared::upgrade).is_none());
    // A later refusal starts a new one (here a refresh).
    let headers = block_on(o.on_refused(&refusal(&world, Some("nope")))).unwrap().unwrap();
    assert_eq!(bearer_of(&headers), "access-1");
}

#[test]
fn a_refused_refresh_asks_the_user_and_an_unknown_client_registers_again() {
    let world = World::new(Config::default());
    let (o, asked, _) = oauth(&world, opts());
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    // A bare 401 from the token endpoint (no JSON): a refusal all the same.
    world.config.borrow_mut().token_bare = Some(401);
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    let e = block_on(o.clone().on_refused(&refusal(&world, Some("access-0")))).unwrap_err();
    assert_eq!(e.details.as_ref().unwrap()["oauthStep"], "token");
    assert_eq!(asked.borrow().len(), 2, "the refresh was refused: the user was asked");
    assert!(o.headers().is_empty(), "the refused tokens are gone");
    world.config.borrow_mut().token_bare = None;
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();

    // The server forgot the client: the refresh meets invalid_client, the client is forgotten
    // too, registered again and the user asked, all in that one authorization.
    world.state.borrow_mut().registered.clear();
    world.state.borrow_mut().tokens.iter_mut().for_each(|t| t.0 = "expired".into());
    let headers = block_on(o.on_refused(&refusal(&world, Some("access-1")))).unwrap().unwrap();
    assert_eq!(world.state.borrow().refused.last().map(String::as_str), Some("invalid_client"));
    assert_eq!(world.requests_to("https://auth.example/tenant/register").len(), 2);
    assert_eq!(asked.borrow().len(), 4);
    assert_eq!(field(&query_params(asked.borrow().last().unwrap()), "client_id"), Some("dyn-client-1"));
    assert_eq!(bearer_of(&headers), "access-2");
}

#[test]
fn metadata_from_elsewhere_is_checked() {
    let err = |config: Config| {
        let world = World::new(config);
        let (o, asked, _) = oauth(&world, opts());
        let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
        let n = asked.borrow().len();
        (e, n, world.requests_to("https://auth.example/tenant/token").len())
    };
    // An authorization endpoint that is not http(s) never reaches the host (a `javascript:` URL in a popup).
    let mut config = Config::default();
    config.as_meta["authorization_endpoint"] = "javascript:alert(1)//".into();
    let (e, asked, _) = err(config);
    assert!(e.message.contains("not an http(s) URL") && asked == 0, "{}", e.message);
    // Metadata naming another issuer (RFC 8414 3.3).
    let mut config = Config::default();
    config.as_meta["issuer"] = "https://evil.example".into();
    let (e, asked, _) = err(config);
    assert!(e.message.contains("names the issuer") && asked == 0, "{}", e.message);
    // A redirect from another issuer (RFC 9207), or without the iss its server promises.
    let config = Config { iss: Some("https://evil.example"), ..Config::default() };
    let (e, _, exchanged) = err(config);
    assert!(e.message.contains("evil.example") && exchanged == 0, "{}", e.message);
    let mut config = Config::default();
    config.as_meta["authorization_response_iss_parameter_supported"] = true.into();
    let (e, _, exchanged) = err(config);
    assert!(e.message.contains("RFC 9207") && exchanged == 0, "{}", e.message);
    // Compared unnormalized: a trailing slash is another issuer (RFC 9207 2.4).
    let (e, _, exchanged) = err(Config { iss: Some("https://auth.example/tenant/"), ..Config::default() });
    assert!(e.message.contains("tenant/") && exchanged == 0, "{}", e.message);
    let mut config = Config { iss: Some("https://auth.example/tenant"), ..Config::default() };
    config.as_meta["authorization_response_iss_parameter_supported"] = true.into();
    let world = World::new(config);
    let (o, _, _) = oauth(&world, opts());
    assert!(block_on(o.on_refused(&refusal(&world, None))).is_ok(), "the issuer it promised");
    // A token that is not a bearer token.
    let (e, _, _) = err(Config { token_type: "DPoP", ..Config::default() });
    assert!(e.message.contains("DPoP"), "{}", e.message);
}

#[test]
fn credentials_are_not_sent_to_another_authorization_server() {
    let world = World::new(Config::default());
    let (first, _, saved) = oauth(&world, opts());
    block_on(first.on_refused(&refusal(&world, None))).unwrap().unwrap();
    let kept = saved.borrow().last().cloned().unwrap();
    assert_eq!(kept["issuer"], "https://auth.example/tenant");
    // The server now names another authorization server: the refresh token and the client stay home.
    let other = "https://auth2.example";
    {
        let mut c = world.config.borrow_mut();
        c.prm["authorization_servers"] = json!([other]);
        c.as_meta_at = Some("https://auth2.example/.well-known/oauth-authorization-server");
        c.as_meta = json!({
            "issuer": other,
            "authorization_endpoint": "https://auth2.example/authorize",
            "token_endpoint": "https://auth2.example/token",
            "registration_endpoint": "https://auth2.example/register",
            "code_challenge_methods_supported": ["S256"],
        });
    }
    let (o, asked, _) = oauth(&world, OAuthOptions { saved: Some(kept), ..opts() });
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    block_on(o.on_refused(&refusal(&world, Some("access-0")))).unwrap().unwrap();
    let to_other: Vec<_> = world.state.borrow().log.iter().filter(|r| r.url.starts_with(other)).cloned().collect();
    assert!(to_other.iter().all(|r| !r.body.as_deref().unwrap_or("").contains("refresh-0")), "the old refresh token went to the new server");
    assert_eq!(world.requests_to("https://auth2.example/register").len(), 1, "registered with the new server");
    assert_eq!(asked.borrow().len(), 1);
}

#[test]
fn discovery_goes_past_a_url_that_cannot_be_reached_but_reports_when_none_can() {
    // In a browser a 404 page without CORS headers is a network error: the next URL is tried.
    let config = Config {
        challenge_names_prm: false,
        prm_at: Some("https://mcp.example/.well-known/oauth-protected-resource"),
        unreachable: vec!["https://mcp.example/.well-known/oauth-protected-resource/api/mcp"],
        ..Config::default()
    };
    let world = World::new(config);
    let (o, _, _) = oauth(&world, opts());
    assert!(block_on(o.on_refused(&refusal(&world, None))).is_ok());
    // None can be reached: that is the error (not a guess at 2025-03-26 endpoints).
    let config = Config {
        challenge_names_prm: false,
        unreachable: vec!["https://mcp.example/.well-known/oauth-protected-resource/api/mcp", "https://mcp.example/.well-known/oauth-protected-resource"],
        ..Config::default()
    };
    let world = World::new(config);
    let (o, asked, _) = oauth(&world, opts());
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert_eq!(e.details.as_ref().unwrap()["oauthStep"], "discovery");
    assert!(e.message.contains("CORS"), "{}", e.message);
    // A page's Content Security Policy refuses a request just as a browser's CORS check does.
    assert!(e.message.contains("connect-src"), "{}", e.message);
    assert!(asked.borrow().is_empty());
}

#[test]
fn offline_access_is_asked_for_where_the_server_lists_it() {
    let mut config = Config::default();
    config.as_meta["scopes_supported"] = json!(["mcp:read", "offline_access"]);
    let world = World::new(config);
    let (o, asked, _) = oauth(&world, opts());
    block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!(field(&query_params(&asked.borrow()[0]), "scope"), Some("mcp:read mcp:write offline_access"));
    // OpenID Connect Core 11: a server ignores `offline_access` (or refuses) without `prompt=consent`.
    assert_eq!(field(&query_params(&asked.borrow()[0]), "prompt"), Some("consent"));
    // Without it, no prompt: the server decides whether to ask.
    let world = World::new(Config::default());
    let (o, asked, _) = oauth(&world, opts());
    block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!(field(&query_params(&asked.borrow()[0]), "prompt"), None);
}

#[test]
fn a_step_up_through_the_client_keeps_the_scopes_granted() {
    // The listing needs mcp:read; the server then wants mcp:write too (a 403 on the next request).
    let world = World::new(Config { challenge_scope: Some("mcp:read"), ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    let client = Client::new(world.clone(), Still, ClientOptions::new(MCP));
    client.set_unauthorized_handler(Some(o.handler()));
    block_on(client.connect()).unwrap();
    world.config.borrow_mut().needs_scope = Some("mcp:write");
    world.config.borrow_mut().challenge_scope = None;
    assert_eq!(block_on(client.list_tools()).unwrap().len(), 1);
    assert_eq!(asked.borrow().len(), 2);
    assert_eq!(field(&query_params(&asked.borrow()[1]), "scope"), Some("mcp:read mcp:write"));
    // A server that keeps refusing: once per request, then the 403 is the request's error.
    world.config.borrow_mut().needs_scope = Some("mcp:admin");
    world.config.borrow_mut().withheld = Some("mcp:admin");
    let e = block_on(client.list_tools()).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["status"].as_u64()), (ErrorCode::Unauthorized, Some(403)));
    assert_eq!(asked.borrow().len(), 3);
}

/// A step-up the authorization server does not grant: the user is asked once, not once per
/// request, until a request succeeds or the app connects again (as the official SDK's transport
/// has it, which remembers the challenge it stepped up for).
#[test]
fn a_step_up_not_granted_is_not_asked_for_again_by_every_request() {
    let world = World::new(Config { challenge_scope: Some("mcp:read"), ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    let client = Client::new(world.clone(), Still, ClientOptions::new(MCP));
    client.set_unauthorized_handler(Some(o.handler()));
    block_on(client.connect()).unwrap();
    world.config.borrow_mut().challenge_scope = None;
    world.config.borrow_mut().needs_scope = Some("mcp:admin");
    world.config.borrow_mut().withheld = Some("mcp:admin");
    let refused = |e: &Error| {
        let d = e.details.as_ref().unwrap();
        assert_eq!((e.code, d["status"].as_u64(), &d["credentialsRefused"]), (ErrorCode::Unauthorized, Some(403), &json!(true)), "{e:?}");
        assert_eq!(d["challenge"]["scope"], "mcp:admin");
        assert!(e.message.contains("\"mcp:admin\"") && e.message.contains("granted \"mcp:read"), "{}", e.message);
    };
    // The first refusal asks the user, whose token is refused again: the request's error says why.
    refused(&block_on(client.list_tools()).unwrap_err());
    assert_eq!(asked.borrow().len(), 2);
    assert_eq!(field(&query_params(&asked.borrow()[1]), "scope"), Some("mcp:read mcp:admin"));
    // The same refusal again: the same error at once.
    for _ in 0..2 {
        refused(&block_on(client.list_tools()).unwrap_err());
    }
    assert_eq!(asked.borrow().len(), 2);
    // A request that succeeds: the next refusal asks again, once.
    world.config.borrow_mut().needs_scope = None;
    block_on(client.list_tools()).unwrap();
    world.config.borrow_mut().needs_scope = Some("mcp:admin");
    refused(&block_on(client.list_tools()).unwrap_err());
    refused(&block_on(client.list_tools()).unwrap_err());
    assert_eq!(asked.borrow().len(), 3);
    // Another scope asked for is another step-up.
    world.config.borrow_mut().needs_scope = Some("mcp:write");
    assert_eq!(block_on(client.list_tools()).unwrap().len(), 1);
    assert_eq!(asked.borrow().len(), 4);
    // connect() is the app asking again.
    world.config.borrow_mut().needs_scope = Some("mcp:admin");
    refused(&block_on(client.list_tools()).unwrap_err());
    refused(&block_on(client.list_tools()).unwrap_err());
    assert_eq!(asked.borrow().len(), 5);
    refused(&block_on(client.connect()).unwrap_err());
    assert_eq!(asked.borrow().len(), 6);
}

/// The grant types of the token requests made so far.
fn grants(world: &World) -> Vec<String> {
    let log = world.requests_to("https://auth.example/tenant/token");
    log.iter().map(|r| field(&form_of(r.body.as_deref().unwrap_or("")), "grant_type").unwrap_or("").to_owned()).collect()
}

#[test]
fn a_step_up_after_a_refresh_in_the_same_request_asks_the_user() {
    let world = World::new(Config { challenge_scope: Some("mcp:read"), ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    let client = Client::new(world.clone(), Still, ClientOptions::new(MCP));
    client.set_unauthorized_handler(Some(o.handler()));
    block_on(client.connect()).unwrap();
    // The access token expires, and the next request needs mcp:write too: 401, a refresh (for
    // mcp:read, all a refresh can give), 403 `insufficient_scope` on the request sent again: the
    // user is asked for both, and the request goes through.
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    world.config.borrow_mut().needs_scope = Some("mcp:write");
    world.config.borrow_mut().challenge_scope = None;
    assert_eq!(block_on(client.list_tools()).unwrap().len(), 1);
    assert_eq!(grants(&world), ["authorization_code", "refresh_token", "authorization_code"]);
    assert_eq!(asked.borrow().len(), 2);
    assert_eq!(field(&query_params(&asked.borrow()[1]), "scope"), Some("mcp:read mcp:write"));
    // Bounded: a step-up refused again is the request's error (two new headers per request).
    world.state.borrow_mut().tokens.iter_mut().for_each(|t| t.0 = "expired".into());
    world.config.borrow_mut().needs_scope = Some("mcp:admin");
    world.config.borrow_mut().withheld = Some("mcp:admin");
    let e = block_on(client.list_tools()).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["status"].as_u64()), (ErrorCode::Unauthorized, Some(403)));
    assert_eq!((asked.borrow().len(), grants(&world).len()), (3, 5));
    // The step-up declined on the request's last retry: the error says so, as the next request's.
    assert_eq!(e.details.as_ref().unwrap()["credentialsRefused"], true, "{e:?}");
    assert!(e.message.contains("\"mcp:admin\""), "{}", e.message);
    let next = block_on(client.list_tools()).unwrap_err();
    assert_eq!((next.message, asked.borrow().len()), (e.message, 3));
}

/// 401, a sign-in, then 403 `insufficient_scope` and a step-up the authorization server does
/// not grant: the first request's error is the declined step-up's (`credentialsRefused`), as the
/// next requests' are, though it had no retry left after it.
#[test]
fn a_step_up_declined_after_a_sign_in_in_the_same_request_says_so() {
    let world = World::new(Config { challenge_scope: Some("mcp:read"), ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    let client = Client::new(world.clone(), Still, ClientOptions::new(MCP));
    client.set_unauthorized_handler(Some(o.handler()));
    block_on(client.connect()).unwrap();
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    world.state.borrow_mut().tokens[0].1 = "revoked".into();
    world.config.borrow_mut().needs_scope = Some("mcp:admin");
    world.config.borrow_mut().withheld = Some("mcp:admin");
    for _ in 0..3 {
        let e = block_on(client.list_tools()).unwrap_err();
        let d = e.details.as_ref().unwrap();
        assert_eq!((e.code, d["status"].as_u64(), &d["credentialsRefused"]), (ErrorCode::Unauthorized, Some(403), &json!(true)), "{e:?}");
        assert!(e.message.contains("\"mcp:admin\""), "{}", e.message);
    }
    assert_eq!(asked.borrow().len(), 3, "the connect, the sign-in after the 401, the step-up");
}

/// A server that names the scopes a token misses one at a time (403 `scope="mcp:admin"`, then
/// with that granted `scope="mcp:write"`): the request sent again after the step-up and refused
/// for another scope is another step-up, not a step-up declined (as the official SDK's transport
/// compares the challenge); one declined is told with the scope it was for.
#[test]
fn a_server_that_names_the_scopes_it_misses_one_at_a_time_is_stepped_up_for_each() {
    let world = World::new(Config { challenge_scope: Some("mcp:read"), one_at_a_time: true, ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    let client = Client::new(world.clone(), Still, ClientOptions::new(MCP));
    client.set_unauthorized_handler(Some(o.handler()));
    block_on(client.connect()).unwrap();
    world.config.borrow_mut().challenge_scope = None;
    world.config.borrow_mut().needs_scope = Some("mcp:admin mcp:write");
    for _ in 0..2 {
        assert_eq!(block_on(client.list_tools()).unwrap().len(), 1);
    }
    let scopes: Vec<_> = asked.borrow().iter().map(|u| field(&query_params(u), "scope").unwrap_or("").to_owned()).collect();
    assert_eq!(scopes, ["mcp:read", "mcp:read mcp:admin", "mcp:read mcp:admin mcp:write"]);
    // The second scope not granted: the step-up for it is the one declined.
    let world = World::new(Config { challenge_scope: Some("mcp:read"), one_at_a_time: true, withheld: Some("mcp:write"), ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    let client = Client::new(world.clone(), Still, ClientOptions::new(MCP));
    client.set_unauthorized_handler(Some(o.handler()));
    block_on(client.connect()).unwrap();
    world.config.borrow_mut().challenge_scope = None;
    world.config.borrow_mut().needs_scope = Some("mcp:admin mcp:write");
    for _ in 0..2 {
        let e = block_on(client.list_tools()).unwrap_err();
        assert_eq!(e.details.as_ref().unwrap()["credentialsRefused"], true, "{e:?}");
        assert!(e.message.contains("the scope \"mcp:write\"") && e.message.contains("granted \"mcp:read mcp:admin\""), "{}", e.message);
    }
    assert_eq!(asked.borrow().len(), 3);
}

/// Requests that meet the same 403 `insufficient_scope` together share one step-up; when the
/// authorization server does not grant it, each request's error says so, and the user was asked
/// once, not once per request.
#[test]
fn a_step_up_declined_is_asked_once_for_requests_that_meet_it_together() {
    let world = World::new(Config { challenge_scope: Some("mcp:read"), ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    let client = Client::new(world.clone(), Still, ClientOptions::new(MCP));
    client.set_unauthorized_handler(Some(o.handler()));
    block_on(client.connect()).unwrap();
    world.config.borrow_mut().challenge_scope = None;
    world.config.borrow_mut().needs_scope = Some("mcp:admin");
    world.config.borrow_mut().withheld = Some("mcp:admin");
    let (mut a, mut b) = (crate::protocol::client::CallOptions::default(), crate::protocol::client::CallOptions::default());
    let (x, y, z) = block_on(futures_util::future::join3(client.list_tools(), client.request("tools/list", Value::Null, &mut a), client.request("tools/list", Value::Null, &mut b)));
    for e in [x.unwrap_err(), y.unwrap_err(), z.unwrap_err()] {
        assert_eq!(e.details.as_ref().unwrap()["credentialsRefused"], true, "{e:?}");
    }
    assert_eq!(asked.borrow().len(), 2, "the connect and one step-up");
}

#[test]
fn a_401_that_names_scopes_not_granted_refreshes_then_asks_the_user_for_them() {
    let world = World::new(Config { challenge_scope: Some("mcp:read"), ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    // Expired; the server's 401 names a scope the tokens were not granted: refreshed first (the
    // server may take the token all the same: an authorization server may grant fewer scopes
    // than asked, a challenge may name more than the server needs), the user not asked.
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    world.config.borrow_mut().challenge_scope = Some("mcp:write");
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!((grants(&world), asked.borrow().len()), (vec!["authorization_code".to_owned(), "refresh_token".to_owned()], 1));
    // Its token refused in turn: the user is asked, for the scopes granted and those named.
    let mut retried = refusal(&world, None);
    retried["retried"] = 401.into();
    block_on(o.clone().on_refused(&retried)).unwrap().unwrap();
    assert_eq!(grants(&world), ["authorization_code", "refresh_token", "authorization_code"]);
    assert_eq!(field(&query_params(&asked.borrow()[1]), "scope"), Some("mcp:read mcp:write"));
    // Scopes granted: refreshed without the user.
    world.state.borrow_mut().tokens.last_mut().unwrap().0 = "expired".into();
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!((grants(&world).last().map(String::as_str), asked.borrow().len()), (Some("refresh_token"), 2));
    // Scopes granted not known (none asked for, none named): refreshed, as before.
    let world = World::new(Config { prm: json!({"resource": MCP, "authorization_servers": ["https://auth.example/tenant"]}), ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    world.config.borrow_mut().challenge_scope = Some("mcp:write");
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!((grants(&world), asked.borrow().len()), (vec!["authorization_code".to_owned(), "refresh_token".to_owned()], 1));
}

#[test]
fn a_refreshed_token_the_server_refuses_is_replaced_through_the_user() {
    let world = World::new(Config::default());
    let (o, asked, _) = oauth(&world, opts());
    let client = Client::new(world.clone(), Still, ClientOptions::new(MCP));
    client.set_unauthorized_handler(Some(o.handler()));
    block_on(client.connect()).unwrap();
    // The next token the authorization server issues is one the server does not take (another
    // audience, a server re-keyed).
    let left = Rc::new(std::cell::Cell::new(1));
    let l = left.clone();
    world.config.borrow_mut().token_answer = Some(Rc::new(move |body: &mut Value| {
        if l.get() > 0 {
            l.set(l.get() - 1);
            body["access_token"] = "not-for-this-server".into();
        }
    }));
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    // 401, refreshed, 401 again: the user is asked (not the refresh token spent again), and the
    // request goes through.
    assert_eq!(block_on(client.list_tools()).unwrap().len(), 1);
    assert_eq!(grants(&world), ["authorization_code", "refresh_token", "authorization_code"]);
    assert_eq!(asked.borrow().len(), 2);
    // Every token refused: one sign-in per request at most, and the error says the token just
    // obtained was refused.
    left.set(u32::MAX);
    world.state.borrow_mut().tokens.iter_mut().for_each(|t| t.0 = "expired".into());
    let e = block_on(client.list_tools()).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["status"].as_u64()), (ErrorCode::Unauthorized, Some(401)));
    assert!(e.message.contains("refused the credentials just obtained"), "{}", e.message);
    assert_eq!((grants(&world).len(), asked.borrow().len()), (5, 3));
    // A token the user just gave, refused: the user is not asked again at once.
    let retried = |status: u16| {
        let mut info = refusal(&world, None);
        info["status"] = status.into();
        info["retried"] = 401.into();
        info
    };
    assert_eq!(block_on(o.clone().on_refused(&retried(401))).unwrap(), None);
    assert_eq!(asked.borrow().len(), 3);
}

#[test]
fn a_refusal_of_credentials_already_replaced_is_answered_with_the_new_ones() {
    // Two requests go out with the same token; the first one's 401 gets a new token; the second
    // one's 401 arrives after that: it is sent again with the new token, nobody is asked.
    let world = World::new(Config::default());
    let (o, asked, _) = oauth(&world, opts());
    let client = Client::new(world.clone(), Still, ClientOptions::new(MCP));
    let calls = Rc::new(std::cell::Cell::new(0));
    let (inner, c) = (o.handler(), calls.clone());
    client.set_unauthorized_handler(Some(Box::new(move |info: &Value| {
        c.set(c.get() + 1);
        inner(info)
    })));
    block_on(client.connect()).unwrap();
    assert_eq!(calls.get(), 1);
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    world.state.borrow_mut().tokens[0].1 = "revoked".into();
    // The second request's 401 comes late: after the first one's authorization has ended.
    let n = world.requests_to(MCP).len();
    world.config.borrow_mut().slow_mcp = vec![n + 1];
    let mut opts = crate::protocol::client::CallOptions::default();
    let (a, b) = block_on(futures_util::future::join(client.list_tools(), client.request("tools/list", Value::Null, &mut opts)));
    a.unwrap();
    b.unwrap();
    assert_eq!(asked.borrow().len(), 2, "the user was asked once more, not twice");
    assert_eq!(calls.get(), 2, "the late refusal was answered with the new token, without the handler");
    let retried = world.requests_to(MCP)[n + 2..].iter().map(|r| header(r, "authorization").unwrap_or("").to_owned()).collect::<Vec<_>>();
    assert_eq!(retried, ["Bearer access-1", "Bearer access-1"]);
}

#[test]
fn a_client_given_stays_with_its_authorization_server() {
    let config = Config { preregistered: Some(("pre", Some("s3cret"))), ..Config::default() };
    let world = World::new(config);
    let given = OAuthOptions { client_id: Some("pre".into()), client_secret: Some("s3cret".into()), ..opts() };
    let (o, _, _) = oauth(&world, given);
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    world.config.borrow_mut().prm["authorization_servers"] = json!(["https://auth2.example"]);
    world.config.borrow_mut().as_meta_at = Some("https://auth2.example/.well-known/oauth-authorization-server");
    world.config.borrow_mut().as_meta = json!({
        "issuer": "https://auth2.example",
        "authorization_endpoint": "https://auth2.example/authorize",
        "token_endpoint": "https://auth2.example/token",
        "code_challenge_methods_supported": ["S256"],
    });
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    let e = block_on(o.on_refused(&refusal(&world, Some("access-0")))).unwrap_err();
    assert_eq!(e.details.as_ref().unwrap()["oauthStep"], "discovery");
    assert!(e.message.contains("clientId"), "{}", e.message);
    assert!(world.state.borrow().log.iter().all(|r| !r.url.starts_with("https://auth2.example/token")), "the secret went to the new server");
}

#[test]
fn offline_access_is_never_the_only_scope_and_registration_asks_for_none() {
    let mut config = Config { prm: json!({"resource": MCP, "authorization_servers": ["https://auth.example/tenant"]}), ..Config::default() };
    config.as_meta["scopes_supported"] = json!(["offline_access"]);
    let world = World::new(config);
    let (o, asked, _) = oauth(&world, opts());
    block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!(field(&query_params(&asked.borrow()[0]), "scope"), None);
    let registration: Value = serde_json::from_str(world.requests_to("https://auth.example/tenant/register")[0].body.as_deref().unwrap()).unwrap();
    assert!(registration.get("scope").is_none(), "{registration}");
}

#[test]
fn a_token_type_that_cannot_be_sent_asks_nobody_again() {
    let world = World::new(Config::default());
    let (o, asked, _) = oauth(&world, opts());
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    world.config.borrow_mut().token_type = "DPoP";
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    let e = block_on(o.on_refused(&refusal(&world, Some("access-0")))).unwrap_err();
    assert!(e.message.contains("DPoP"), "{}", e.message);
    assert_eq!(asked.borrow().len(), 1, "the user was not asked for a token that could not be used either");
}

#[test]
fn a_step_up_that_joined_a_refresh_runs_its_own_after_it() {
    let world = World::new(Config::default());
    let (o, asked, _) = oauth(&world, opts());
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    // One request's token expired (a refresh, slow), another's needs a scope (a step-up) meanwhile.
    world.config.borrow_mut().slow_token = true;
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    let expired = refusal(&world, Some("access-0"));
    let step_up = json!({"status": 403, "challenge": {"scheme": "Bearer", "error": "insufficient_scope", "scope": "mcp:admin"}});
    let (a, b) = block_on(futures_util::future::join(o.clone().on_refused(&expired), o.clone().on_refused(&step_up)));
    assert_eq!(bearer_of(&a.unwrap().unwrap()), "access-1", "the refresh");
    assert_eq!(bearer_of(&b.unwrap().unwrap()), "access-2", "the step-up's own authorization");
    assert_eq!(asked.borrow().len(), 2);
    assert_eq!(field(&query_params(&asked.borrow()[1]), "scope"), Some("mcp:read mcp:write mcp:admin"));
}

/// A clock whose sleeps never end (nothing here times out).
#[derive(Clone, Copy)]
struct Still;
impl Clock for Still {
    fn sleep(&self, _ms: u64) -> impl Future<Output = ()> {
        futures_util::future::pending()
    }
    fn now_ms(&self) -> u64 {
        0
    }
}

#[test]
fn requests_that_meet_a_401_together_share_one_authorization_and_the_client_retries_with_it() {
    let world = World::new(Config { needs_scope: Some("mcp:read"), challenge_scope: Some("mcp:read"), ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    let client = Client::new(world.clone(), Still, ClientOptions::new(MCP));
    client.set_unauthorized_handler(Some(o.handler()));
    block_on(client.connect()).unwrap();
    assert_eq!(asked.borrow().len(), 1);
    // Two requests at once, both refused: one authorization.
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    world.state.borrow_mut().tokens[0].1 = "revoked".into();
    let mut opts = crate::protocol::client::CallOptions::default();
    let (a, b) = block_on(futures_util::future::join(client.list_tools(), client.request("tools/list", Value::Null, &mut opts)));
    assert_eq!(a.unwrap().len(), 1);
    b.unwrap();
    assert_eq!(asked.borrow().len(), 2, "one more authorization for both");
    assert_eq!(world.state.borrow().tokens.len(), 2);
    // Every request after carries the new token.
    let last = world.requests_to(MCP).last().cloned().unwrap();
    assert_eq!(header(&last, "authorization"), Some("Bearer access-1"));
    // initialize, notifications/initialized, then both requests were sent with access-0 and refused.
    let refused = world.requests_to(MCP).iter().filter(|r| header(r, "authorization") == Some("Bearer access-0")).count();
    assert_eq!(refused, 4);
}

/// Pending once, then ready.
struct YieldOnce(bool);
impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

#[test]
fn authorization_servers_are_reached_over_https_but_on_loopback_or_a_cleartext_servers_host() {
    let err = |config: Config| {
        let world = World::new(config);
        let (o, asked, _) = oauth(&world, opts());
        let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
        let n = asked.borrow().len();
        (e, n, world.urls())
    };
    // An https server naming a plain-http authorization server: nothing is sent to it.
    let mut config = Config::default();
    config.prm["authorization_servers"] = json!(["http://auth.example/tenant"]);
    let (e, asked, urls) = err(config);
    assert!(e.message.contains("plain http") && asked == 0, "{}", e.message);
    assert!(urls.iter().all(|u| !u.contains("http://auth.example")), "{urls:?}");
    assert_eq!(e.details.as_ref().unwrap()["oauthStep"], "discovery");
    assert_eq!(rule(&e), Some("cleartext"));
    // Metadata with a plain-http token endpoint: the user is not sent to sign in for it.
    let mut config = Config::default();
    config.as_meta["token_endpoint"] = "http://auth.example/tenant/token".into();
    let (e, asked, _) = err(config);
    assert!(e.message.contains("token_endpoint") && e.message.contains("plain http") && asked == 0, "{}", e.message);
    // A loopback authorization server is taken from a server on loopback too (development, the
    // conformance suite's, the demo's); a server on the public internet is refused it below.
    let server = "http://127.0.0.1:8000/mcp";
    let config = Config {
        prm_at: Some("http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"),
        prm: json!({"resource": server, "authorization_servers": ["http://127.0.0.1:9000"]}),
        as_meta_at: Some("http://127.0.0.1:9000/.well-known/oauth-authorization-server"),
        as_meta: json!({
            "issuer": "http://127.0.0.1:9000",
            "authorization_endpoint": "http://127.0.0.1:9000/authorize",
            "token_endpoint": "http://127.0.0.1:9000/token",
            "registration_endpoint": "http://127.0.0.1:9000/register",
            "code_challenge_methods_supported": ["S256"],
        }),
        ..Config::default()
    };
    let world = World::new(config);
    let (o, _, _) = oauth_at(&world, server, opts());
    let headers = block_on(o.on_refused(&challenge("http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"))).unwrap().unwrap();
    assert_eq!(bearer_of(&headers), "access-0");
    // A server reached over plain http takes a plain-http authorization server on its own host only.
    let never: Authorize = Box::new(|_: &Value| Box::pin(async { unreachable!("not asked") }));
    let o = OAuth::new(World::new(Config::default()), "http://dev.lan:3000/mcp", opts(), Some(never), None, counting()).unwrap();
    assert!(o.refuse_cleartext("issuer", "http://DEV.lan:4000/").is_ok());
    assert!(o.refuse_cleartext("issuer", "http://other.lan/").is_err());
    assert!(o.refuse_cleartext("issuer", "https://other.lan/").is_ok());
    for (origin, host, loopback) in [
        ("http://localhost:3000", "localhost", true),
        ("http://app.localhost", "app.localhost", true),
        ("http://user:pw@127.0.0.9:80", "127.0.0.9", true),
        ("http://[::1]:8080", "[::1]", true),
        ("http://[::1]", "[::1]", true),
        ("http://127.0.0.1.evil.example", "127.0.0.1.evil.example", false),
        ("http://127.0.0.256", "127.0.0.256", false),
        ("http://localhost.evil.example:80", "localhost.evil.example", false),
        ("http://10.0.0.1", "10.0.0.1", false),
    ] {
        assert_eq!(host_of(origin), host, "{origin}");
        assert_eq!(is_loopback(host_of(origin)), loopback, "{origin}");
    }
    // A URL's host as browsers read it: a backslash ends the authority (`\` is `/` in http URLs).
    assert_eq!(cleartext_host("http://evil.example\\@127.0.0.1/token"), Some("evil.example"));
    assert!(o.refuse_cleartext("token_endpoint", "http://evil.example\\@127.0.0.1/token").is_err());
}

#[test]
fn hosts_are_placed_in_address_spaces_as_a_browser_reads_them() {
    use Space::{Loopback, Private, Public};
    for (host, space) in [
        ("mcp.example", Some(Public)),
        ("MCP.Example.", Some(Public)),
        ("8.8.8.8", Some(Public)),
        ("127.0.0.1.evil.example", Some(Public)),
        ("localhost.evil.example", Some(Public)),
        ("[2001:db8::1]", Some(Public)),
        ("localhost", Some(Loopback)),
        ("LOCALHOST.", Some(Loopback)),
        ("app.localhost", Some(Loopback)),
        ("127.0.0.1", Some(Loopback)),
        ("127.9.9.9", Some(Loopback)),
        ("0.0.0.0", Some(Loopback)),
        ("[::1]", Some(Loopback)),
        ("[0:0:0:0:0:0:0:1]", Some(Loopback)),
        ("[::]", Some(Loopback)),
        ("[::ffff:127.0.0.1]", Some(Loopback)),
        ("[::ffff:7f00:1]", Some(Loopback)),
        // Other spellings of 127.0.0.1 that browsers take (WHATWG URL's IPv4 parser).
        ("2130706433", Some(Loopback)),
        ("127.1", Some(Loopback)),
        ("0x7f.0.0.1", Some(Loopback)),
        ("0x7F000001", Some(Loopback)),
        ("0177.0.0.1", Some(Loopback)),
        ("%31%32%37.0.0.1", Some(Loopback)),
        ("\u{ff11}\u{ff12}\u{ff17}\u{ff0e}0\u{3002}0.1", Some(Loopback)),
        ("10.1.2.3", Some(Private)),
        ("172.16.0.1", Some(Private)),
        ("172.31.255.255", Some(Private)),
        ("192.168.1.1", Some(Private)),
        ("169.254.169.254", Some(Private)),
        ("100.64.0.1", Some(Private)),
        ("0xa9.0xfe.0xa9.0xfe", Some(Private)),
        ("[fd00::1]", Some(Private)),
        ("[fe80::1]", Some(Private)),
        ("[::ffff:192.168.0.1]", Some(Private)),
        ("router", Some(Private)),
        ("nas.local", Some(Private)),
        ("db.internal", Some(Private)),
        ("printer.lan", Some(Private)),
        ("box.home.arpa", Some(Private)),
        ("172.32.0.1", Some(Public)),
        ("100.128.0.1", Some(Public)),
        // No host a browser goes to.
        ("127.0.0.256", None),
        ("1.2.3.4.5", None),
        ("08.0.0.1", None),
        ("[::1", None),
        ("", None),
        // Not ASCII after folding: IDNA may map it to an address or to localhost (a soft hyphen,
        // circled digits, a zero-width space), so it is not placed without the runtime's parser.
        ("127.0.0.1\u{ad}", None),
        ("127.0.0.\u{2460}", None),
        ("192.168.1.1\u{200b}", None),
        ("\u{24db}ocalhost", None),
    ] {
        assert_eq!(address_space(host), space, "{host}");
    }
}

/// A host in brackets is an IPv6 address as written, as WHATWG URL's host parser reads it: not
/// percent-decoded, not folded from full-width (probe rv2 F6); a bracket decoded or folded is
/// no host either. A redirect URL `new URL()` refuses is refused as it is.
#[test]
fn a_bracketed_host_is_read_as_written() {
    use Space::*;
    for (host, space) in [
        ("[::1]", Some(Loopback)),
        ("[::FFFF:7F00:1]", Some(Loopback)),
        ("[FD00::1]", Some(Private)),
        ("[%3A%3A1]", None),
        ("[%3a%3a1]", None),
        ("[::%31]", None),
        ("[\u{ff10}::\u{ff11}]", None),
        ("[::\u{ff11}]", None),
        ("%5B::1%5D", None),
        ("\u{ff3b}::1\u{ff3d}", None),
    ] {
        assert_eq!(address_space(host), space, "{host}");
    }
    let world = World::new(Config::default());
    let authorize = || -> Authorize { Box::new(|_: &Value| Box::pin(async { Ok(String::new()) })) };
    let new = |opts| OAuth::new(world.clone(), MCP, opts, Some(authorize()), None, counting()).err().map(|e| (e.code, e.message));
    for url in ["http://[%3A%3A1]/cb", "http://[\u{ff10}::\u{ff11}]/cb", "http://%5B::1%5D/cb"] {
        let e = new(OAuthOptions { redirect_url: url.into(), ..opts() });
        assert!(matches!(&e, Some((ErrorCode::InvalidOptions, m)) if m.starts_with("oauth.redirectUrl")), "{url}: {e:?}");
    }
    assert_eq!(new(OAuthOptions { redirect_url: "http://[0:0::1]:8080/cb".into(), ..opts() }), None);
}

/// Origins compared as a URL parser reads them: a default port is no port, a host's trailing dot
/// and case do not count; a URL's tabs and line breaks are dropped before any rule reads it.
#[test]
fn origins_and_urls_are_compared_as_fetch_reads_them() {
    assert!(resource_allowed("https://mcp.example:443/mcp", "https://mcp.example/mcp"));
    assert!(resource_allowed("https://mcp.example/mcp", "https://MCP.example.:443/mcp"));
    assert!(resource_allowed("http://127.0.0.1:80/mcp", "http://127.0.0.1/mcp"));
    assert!(!resource_allowed("https://mcp.example/mcp", "https://mcp.example:8443/mcp"));
    assert!(!resource_allowed("https://mcp.example/mcp", "http://mcp.example/mcp"));
    assert!(!resource_allowed("https://mcp.example/mcp", "https://mcp.example.evil/mcp"));
    let (o, _, _) = oauth(&World::new(Config::default()), opts());
    for url in [
        "https://evil.example/.well-known/oauth-protected-resource/.\t./.\t./admin/delete",
        "https://evil.example/.well-known/oauth-protected-resource/.\n./admin",
    ] {
        assert_eq!(rule(&o.vet_metadata_url(url).unwrap_err()), Some("metadata-origin"), "{url:?}");
    }
    // The server's own origin, spelled with its default port, is its own.
    assert!(o.vet_metadata_url("https://mcp.example:443/custom/metadata.json").is_ok());
    // A tab inside a host is dropped before the host is placed.
    assert_eq!(rule(&o.vet("authorization server", "https://127.0.\t0.1:8443").unwrap_err()), Some("private-network"));
    assert_eq!(rule(&o.vet("authorization server", "https://127.0.0.1\u{ad}:8443").unwrap_err()), Some("private-network"));
}

#[test]
fn a_server_sends_the_client_no_further_into_the_users_network_than_itself() {
    let refused = |config: Config| {
        let world = World::new(config);
        let (o, asked, _) = oauth(&world, opts());
        let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
        let n = asked.borrow().len();
        (e, n, world.urls())
    };
    // A public server naming an authorization server on the user's machine or network: nothing is
    // sent there, in any spelling of its address.
    for issuer in [
        "http://127.0.0.1:9000",
        "https://localhost/tenant",
        "https://2130706433",
        "https://0x7f.1",
        "https://%31%32%37.0.0.1",
        "https://[::ffff:7f00:1]",
        "https://10.0.0.5/tenant",
        "https://169.254.169.254",
        "https://router",
        "https://nas.local",
        "https://[fd00::1]",
    ] {
        let mut config = Config::default();
        config.prm["authorization_servers"] = json!([issuer]);
        let (e, asked, urls) = refused(config);
        assert_eq!((rule(&e), e.code, asked), (Some("private-network"), ErrorCode::Unauthorized, 0), "{issuer}: {}", e.message);
        assert!(e.message.contains("public internet"), "{}", e.message);
        assert_eq!(urls.len(), 1, "{issuer}: only the resource metadata was read: {urls:?}");
    }
    // Its metadata's endpoints likewise: the user is not sent to sign in, no code or secret goes there.
    for (key, url) in [
        ("token_endpoint", "https://127.0.0.1/token"),
        ("registration_endpoint", "https://192.168.0.1/register"),
        ("authorization_endpoint", "https://localhost:8443/authorize"),
    ] {
        let mut config = Config::default();
        config.as_meta[key] = url.into();
        let (e, asked, urls) = refused(config);
        assert_eq!((rule(&e), asked), (Some("private-network"), 0), "{key}: {}", e.message);
        assert!(e.message.contains(key) && (e.message.contains("this machine") || e.message.contains("local network")), "{}", e.message);
        assert!(urls.iter().all(|u| !u.contains(url)), "{urls:?}");
    }
    // And a challenge naming metadata there, even at the well-known path.
    let config = Config { prm_at: Some("https://192.168.1.1/.well-known/oauth-protected-resource"), ..Config::default() };
    let (e, _, urls) = refused(config);
    assert_eq!(rule(&e), Some("private-network"), "{}", e.message);
    assert!(urls.is_empty(), "{urls:?}");
    // A server on a local network may name hosts of a local network or the internet, not this machine.
    let never: Authorize = Box::new(|_: &Value| Box::pin(async { unreachable!("not asked") }));
    let o = OAuth::new(World::new(Config::default()), "https://10.0.0.2/mcp", opts(), Some(never), None, counting()).unwrap();
    assert!(o.refuse_inward("issuer", "https://10.0.0.3/").is_ok());
    assert!(o.refuse_inward("issuer", "https://auth.example/").is_ok());
    assert_eq!(rule(&o.refuse_inward("issuer", "https://127.0.0.1/").unwrap_err()), Some("private-network"));
    // A server on this machine, anywhere.
    let never: Authorize = Box::new(|_: &Value| Box::pin(async { unreachable!("not asked") }));
    let o = OAuth::new(World::new(Config::default()), "http://localhost:3000/mcp", opts(), Some(never), None, counting()).unwrap();
    for url in ["http://127.0.0.1:9000/", "https://10.0.0.3/", "https://auth.example/"] {
        assert!(o.vet("issuer", url).is_ok(), "{url}");
    }
}

#[test]
fn resource_metadata_of_another_origin_is_read_only_at_the_well_known_path() {
    let run = |prm_at: &'static str| {
        let world = World::new(Config { prm_at: Some(prm_at), ..Config::default() });
        let (o, asked, _) = oauth(&world, opts());
        let out = block_on(o.on_refused(&refusal(&world, None)));
        let n = asked.borrow().len();
        (out, n, world.urls())
    };
    // Any URL of the server's origin (a custom location, conformance's metadata-var3).
    let (out, _, _) = run("https://mcp.example/custom/metadata.json");
    assert!(out.is_ok(), "{out:?}");
    // The well-known location of another origin (RFC 9728 3.1).
    let (out, _, urls) = run("https://meta.example/.well-known/oauth-protected-resource/api/mcp");
    assert!(out.is_ok(), "{out:?}");
    assert_eq!(urls[0], "GET https://meta.example/.well-known/oauth-protected-resource/api/mcp");
    // Any other URL of another origin is not even read: a server could have the user's browser GET anything.
    for url in [
        "https://evil.example/anything",
        "https://evil.example/.well-known/oauth-protected-resource-not",
        "https://evil.example/.well-known/oauth-protected-resource/../../admin/reboot",
        "https://evil.example/.well-known/oauth-protected-resource/%2e%2e/admin",
        "https://mcp.example@evil.example/.well-known/oauth-protected-resource/x/../../y",
    ] {
        let (out, asked, urls) = run(url);
        let e = out.unwrap_err();
        assert_eq!((rule(&e), asked), (Some("metadata-origin"), 0), "{url}: {}", e.message);
        assert!(e.message.contains("/.well-known/oauth-protected-resource"), "{}", e.message);
        assert!(urls.is_empty(), "{url}: {urls:?}");
    }
    // A backslash is a slash to a browser (a challenge's quoted string would take it for an escape).
    let (o, _, _) = oauth(&World::new(Config::default()), opts());
    assert_eq!(rule(&o.vet_metadata_url("https://evil.example/.well-known/oauth-protected-resource/..\\admin").unwrap_err()), Some("metadata-origin"));
    assert!(o.vet_metadata_url("https://meta.example/.well-known/oauth-protected-resource").is_ok());
    // Nor in the clear from a server reached over https.
    let (out, _, urls) = run("http://meta.example/.well-known/oauth-protected-resource");
    assert_eq!(rule(&out.unwrap_err()), Some("cleartext"));
    assert!(urls.is_empty(), "{urls:?}");
}

#[test]
fn protected_resource_metadata_must_name_this_server() {
    let run = |prm: Value| {
        let world = World::new(Config { prm, ..Config::default() });
        let (o, asked, _) = oauth(&world, opts());
        let out = block_on(o.on_refused(&refusal(&world, None)));
        let n = asked.borrow().len();
        (out, n, world.urls())
    };
    for prm in [
        // No resource (RFC 9728 2: REQUIRED): it could be any resource's.
        json!({"authorization_servers": ["https://auth.example/tenant"]}),
        json!({"resource": 42, "authorization_servers": ["https://auth.example/tenant"]}),
        json!({"resource": "https://mcp.example/other", "authorization_servers": ["https://auth.example/tenant"]}),
        json!({"resource": "https://mcp.example/api/mcp/more", "authorization_servers": ["https://auth.example/tenant"]}),
        json!({"resource": "https://evil.example/api/mcp", "authorization_servers": ["https://auth.example/tenant"]}),
        json!({"resource": "http://mcp.example/api/mcp", "authorization_servers": ["https://auth.example/tenant"]}),
    ] {
        let (out, asked, urls) = run(prm.clone());
        let e = out.unwrap_err();
        assert_eq!((rule(&e), asked), (Some("resource-mismatch"), 0), "{prm}: {}", e.message);
        assert!(urls.iter().all(|u| !u.contains("auth.example")), "{prm}: the authorization server was asked: {urls:?}");
    }
    // The server's origin (conformance's metadata-var2): the resource indicator it names is sent.
    let (out, asked, _) = run(json!({"resource": "https://mcp.example", "authorization_servers": ["https://auth.example/tenant"]}));
    assert!(out.is_ok(), "{out:?}");
    assert_eq!(asked, 1);
}

#[test]
fn a_pinned_issuer_is_the_only_authorization_server_anything_is_sent_to() {
    let pinned = |issuer: &str| OAuthOptions { issuer: Some(issuer.into()), ..opts() };
    // Among several, the one pinned (a trailing slash aside) is used.
    let mut config = Config::default();
    config.prm["authorization_servers"] = json!(["https://evil.example", "https://auth.example/tenant"]);
    let world = World::new(config);
    let (o, asked, saved) = oauth(&world, pinned("https://auth.example/tenant/"));
    assert!(block_on(o.on_refused(&refusal(&world, None))).is_ok());
    assert_eq!(asked.borrow().len(), 1);
    assert!(world.urls().iter().all(|u| !u.contains("evil.example")), "{:?}", world.urls());
    let kept = saved.borrow().last().cloned().unwrap();

    // The resource names another: nothing is sent to it, nor to the one pinned.
    let mut config = Config::default();
    config.prm["authorization_servers"] = json!(["https://evil.example"]);
    let world = World::new(config);
    let (o, asked, _) = oauth(&world, pinned("https://auth.example/tenant"));
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert_eq!((rule(&e), asked.borrow().len()), (Some("issuer-mismatch"), 0), "{}", e.message);
    assert!(e.message.contains("oauth.issuer") && e.message.contains("evil.example"), "{}", e.message);
    assert_eq!(world.urls(), ["GET https://mcp.example/.well-known/oauth-protected-resource/api/mcp"]);

    // Saved credentials with a refresh token: the refresh token is not spent with another server.
    let mut config = Config::default();
    config.prm["authorization_servers"] = json!(["https://evil.example"]);
    config.as_meta_at = Some("https://evil.example/.well-known/oauth-authorization-server");
    config.as_meta["issuer"] = "https://evil.example".into();
    config.as_meta["token_endpoint"] = "https://evil.example/token".into();
    let world = World::new(config);
    let (o, asked, _) = oauth(&world, OAuthOptions { saved: Some(kept.clone()), ..pinned("https://auth.example/tenant") });
    assert!(!o.headers().is_empty(), "the saved token, from the issuer pinned, is sent");
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert_eq!((rule(&e), asked.borrow().len()), (Some("issuer-mismatch"), 0));
    assert!(world.state.borrow().log.iter().all(|r| !r.body.as_deref().unwrap_or("").contains("refresh")), "{:?}", world.urls());
    // Saved from another issuer than the one pinned: not used at all.
    let (o, _, _) = oauth(&World::new(Config::default()), OAuthOptions { saved: Some(kept), ..pinned("https://auth2.example") });
    assert!(o.headers().is_empty());

    // A 2025-03-26 server (no resource metadata) is its own authorization server: not the one pinned.
    let world = World::new(Config { prm_at: None, challenge_names_prm: false, as_meta_at: None, ..Config::default() });
    let (o, asked, _) = oauth(&world, pinned("https://auth.example/tenant"));
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert_eq!((rule(&e), asked.borrow().len()), (Some("issuer-mismatch"), 0), "{}", e.message);
    assert!(world.urls().iter().all(|u| u.starts_with("GET ")), "{:?}", world.urls());

    // Metadata naming another issuer than the one it was read for (RFC 8414 3.3) is the same rule.
    let mut config = Config::default();
    config.as_meta["issuer"] = "https://evil.example".into();
    let world = World::new(config);
    let (o, _, _) = oauth(&world, opts());
    assert_eq!(rule(&block_on(o.on_refused(&refusal(&world, None))).unwrap_err()), Some("issuer-mismatch"));

    // Not a URL: a mistake in the options.
    let authorize: Authorize = Box::new(|_: &Value| Box::pin(async { Ok(String::new()) }));
    let e = OAuth::new(World::new(Config::default()), MCP, pinned("auth.example"), Some(authorize), None, counting()).err().unwrap();
    assert_eq!(e.code, ErrorCode::InvalidOptions);
}

#[test]
fn an_authorization_server_listed_with_a_trailing_slash_its_issuer_lacks_is_that_issuer() {
    // (listed, the metadata's issuer, oauth.issuer): the same server either way, pinned or not.
    for (listed, named, pin) in [
        ("https://auth.example/tenant/", "https://auth.example/tenant", None),
        ("https://auth.example/tenant", "https://auth.example/tenant/", None),
        ("https://auth.example/tenant/", "https://auth.example/tenant", Some("https://auth.example/tenant")),
        ("https://auth.example/tenant", "https://auth.example/tenant/", Some("https://auth.example/tenant")),
    ] {
        let mut config = Config { iss: Some(named), ..Config::default() };
        config.prm["authorization_servers"] = json!([listed]);
        config.as_meta["issuer"] = named.into();
        // The redirect's `iss` is the metadata's spelling, compared as a string (RFC 9207 2.4).
        config.as_meta["authorization_response_iss_parameter_supported"] = true.into();
        let world = World::new(config);
        let (o, asked, saved) = oauth(&world, OAuthOptions { issuer: pin.map(str::to_owned), ..opts() });
        let out = block_on(o.on_refused(&refusal(&world, None)));
        assert!(out.is_ok(), "{listed} / {named} / {pin:?}: {out:?}");
        assert_eq!(asked.borrow().len(), 1);
        assert_eq!(saved.borrow().last().unwrap()["issuer"], named, "the issuer is the metadata's own");
    }
    // Another path is another issuer still.
    let mut config = Config::default();
    config.prm["authorization_servers"] = json!(["https://auth.example/tenant/"]);
    config.as_meta["issuer"] = "https://auth.example/tenant/x".into();
    let world = World::new(config);
    let (o, asked, _) = oauth(&world, opts());
    assert_eq!((rule(&block_on(o.on_refused(&refusal(&world, None))).unwrap_err()), asked.borrow().len()), (Some("issuer-mismatch"), 0));
}

#[test]
fn metadata_redirects_are_followed_one_at_a_time_within_the_same_rules() {
    const WELL_KNOWN: &str = "https://mcp.example/.well-known/oauth-protected-resource/api/mcp";
    let run = |redirects: Vec<(&'static str, &'static str)>, opaque: bool| {
        let config = Config { challenge_names_prm: false, prm_at: Some("https://mcp.example/meta/prm.json"), redirects, opaque_redirects: opaque, ..Config::default() };
        let world = World::new(config);
        let (o, asked, _) = oauth(&world, opts());
        let out = block_on(o.on_refused(&refusal(&world, None)));
        let n = asked.borrow().len();
        (out, n, world)
    };
    // Relative, and through another host of the internet, at any path: the well-known path of
    // `metadata-origin` is for the challenge's `resource_metadata`, not for where it redirects.
    let (out, _, world) = run(vec![(WELL_KNOWN, "https://meta.example/moved"), ("https://meta.example/moved", "https://mcp.example/meta/prm.json")], false);
    assert!(out.is_ok(), "{out:?}");
    assert_eq!(world.urls()[..3], ["GET https://mcp.example/.well-known/oauth-protected-resource/api/mcp", "GET https://meta.example/moved", "GET https://mcp.example/meta/prm.json"]);
    let (out, _, world) = run(vec![(WELL_KNOWN, "../../../meta/./prm.json")], false);
    assert!(out.is_ok(), "{out:?}");
    assert_eq!(world.urls()[1], "GET https://mcp.example/meta/prm.json");
    // Into the user's network, or in the clear: refused, and not requested.
    for (to, refusal_rule) in [("http://192.168.1.1/admin", "private-network"), ("https://localhost/x", "private-network"), ("\\\\127.0.0.1/x", "private-network"), ("http://meta.example/prm", "cleartext")] {
        let (out, asked, world) = run(vec![(WELL_KNOWN, to)], false);
        let e = out.unwrap_err();
        assert_eq!((rule(&e), asked), (Some(refusal_rule), 0), "{to}: {}", e.message);
        assert_eq!(world.urls().len(), 1, "{to}: {:?}", world.urls());
    }
    // A loop ends.
    let (_, _, world) = run(vec![(WELL_KNOWN, WELL_KNOWN)], false);
    assert_eq!(world.requests_to(WELL_KNOWN).len(), MAX_REDIRECTS + 1);
    // A browser hides the location (an opaque redirect): it is asked to follow, under its own protection.
    let (out, _, world) = run(vec![(WELL_KNOWN, "/meta/prm.json")], true);
    assert!(out.is_ok(), "{out:?}");
    let tries = world.requests_to(WELL_KNOWN);
    assert_eq!(tries.iter().map(|r| r.follow_redirects).collect::<Vec<_>>(), [false, true]);
    assert_eq!(resolve("https://a.example/x/y?q", "z"), Some("https://a.example/x/z".into()));
    assert_eq!(resolve("https://a.example/x/y", "../../../z/."), Some("https://a.example/z/".into()));
    assert_eq!(resolve("https://a.example/x/y", "?q#f"), Some("https://a.example/x/y?q".into()));
    assert_eq!(resolve("https://a.example/x", "//b.example/p"), Some("https://b.example/p".into()));
    assert_eq!(resolve("https://a.example/x", "https:/p"), Some("https://a.example/p".into()));
    assert_eq!(resolve("https://a.example/x", "javascript:alert(1)"), None);
}

/// RFC 9110 11.6.1: a `WWW-Authenticate` field may hold several challenges (or come as several
/// header lines, which fetch joins with ", "): the Bearer one is read, wherever it sits, and no
/// other's parameters are mixed into it.
#[test]
fn www_authenticate_with_several_challenges_gives_the_bearer_one() {
    let p = parse_www_authenticate;
    let bearer = json!({"scheme": "Bearer", "error": "invalid_token", "resource_metadata": "https://mcp.example/prm", "scope": "files:read"});
    for header in [
        r#"Bearer error="invalid_token", resource_metadata="https://mcp.example/prm", scope="files:read""#,
        r#"Basic realm="api", Bearer error="invalid_token", resource_metadata="https://mcp.example/prm", scope="files:read""#,
        r#"Bearer error="invalid_token", resource_metadata="https://mcp.example/prm", scope="files:read", Basic realm="api""#,
        r#"Basic realm="api, with a comma", charset="UTF-8", Bearer error = "invalid_token" ,resource_metadata="https://mcp.example/prm",scope="files:read""#,
        r#"Negotiate, Basic YWxhZGRpbjpvcGVuc2VzYW1l==, bearer error=invalid_token, resource_metadata="https://mcp.example/prm", scope="files:read""#,
        r#"DPoP algs="ES256", Bearer error="invalid_token", resource_metadata="https://mcp.example/prm", scope="files:read", Basic"#,
    ] {
        let mut want = bearer.clone();
        if header.contains("bearer error") {
            want["scheme"] = "bearer".into();
        }
        assert_eq!(p(header), want, "{header}");
    }
    // No Bearer challenge: the first, alone.
    assert_eq!(p(r#"Basic realm="api", DPoP algs="ES256""#), json!({"scheme": "Basic", "realm": "api"}));
    assert_eq!(p("Negotiate"), json!({"scheme": "Negotiate"}));
    assert_eq!(p(""), json!({"scheme": ""}));
    // A parameter named `scheme` does not replace the scheme; quoted-pairs are unescaped.
    assert_eq!(p(r#"Bearer scheme="Basic", realm="a \"b\" é""#), json!({"scheme": "Bearer", "realm": "a \"b\" é"}));

    // Discovery through the Bearer challenge's resource_metadata when Basic comes first: the
    // resource metadata is only at the URL it names.
    let world = World::new(Config { prm_at: Some("https://mcp.example/prm"), ..Config::default() });
    let (o, _, _) = oauth(&world, opts());
    let header = r#"Basic realm="api", Bearer error="invalid_token", resource_metadata="https://mcp.example/prm", scope="mcp:read""#;
    let info = json!({"status": 401, "challenge": parse_www_authenticate(header), "wwwAuthenticate": header});
    block_on(o.on_refused(&info)).unwrap().unwrap();
    assert_eq!(world.urls()[0], "GET https://mcp.example/prm");
    assert_eq!(world.urls()[1], "GET https://auth.example/.well-known/oauth-authorization-server/tenant");
}

/// A 403 whose Bearer challenge asks for more scopes, after another challenge: a step-up.
#[test]
fn a_step_up_is_asked_by_the_bearer_challenge_wherever_it_sits() {
    #[derive(Clone)]
    struct BasicFirst(World);
    impl Transport for BasicFirst {
        type Body = OneChunk;
        fn send(&self, req: HttpRequest) -> impl Future<Output = Result<HttpResponse<OneChunk>, TransportError>> {
            let sent = self.0.send(req);
            async move {
                let mut resp = sent.await?;
                for (k, v) in resp.headers.iter_mut() {
                    if k == "www-authenticate" {
                        *v = format!("Basic realm=\"api\", {v}");
                    }
                }
                Ok(resp)
            }
        }
    }
    let world = World::new(Config { challenge_scope: Some("mcp:read"), ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    let client = Client::new(BasicFirst(world.clone()), Still, ClientOptions::new(MCP));
    client.set_unauthorized_handler(Some(o.handler()));
    block_on(client.connect()).unwrap();
    assert_eq!(field(&query_params(&asked.borrow()[0]), "scope"), Some("mcp:read"), "the 401's scope");
    world.config.borrow_mut().needs_scope = Some("mcp:write");
    assert_eq!(block_on(client.list_tools()).unwrap().len(), 1);
    assert_eq!(asked.borrow().len(), 2);
    assert_eq!(field(&query_params(&asked.borrow()[1]), "scope"), Some("mcp:read mcp:write"));
}

/// MCP 2025-11-25: a client that cannot confirm PKCE from the authorization server's metadata
/// must not go on. A server with resource metadata is no 2025-03-26 server: its authorization
/// server's endpoints are not guessed, and the next one it names is tried.
#[test]
fn an_authorization_server_without_metadata_is_not_guessed_at() {
    let nothing_sent = |world: &World| {
        let urls = world.urls();
        assert!(urls.iter().all(|u| u.starts_with("GET ")), "{urls:?}");
    };
    // No metadata (404), or metadata that is no JSON object.
    for config in [Config { as_meta_at: None, ..Config::default() }, Config { as_meta: json!("<html>"), ..Config::default() }] {
        let world = World::new(config);
        let (o, asked, saved) = oauth(&world, opts());
        let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
        assert_eq!((e.code, e.details.as_ref().unwrap()["oauthStep"].as_str()), (ErrorCode::Unauthorized, Some("discovery")));
        assert!(e.message.contains("https://auth.example/tenant") && e.message.contains("publishes no metadata") && e.message.contains("PKCE"), "{}", e.message);
        assert!(asked.borrow().is_empty());
        assert!(saved.borrow().iter().all(|s| s["client"].is_null()), "nothing registered");
        nothing_sent(&world);
        assert!(!world.urls().iter().any(|u| u.ends_with("/authorize") || u.contains("openid-configuration/authorize")));
    }
    // The resource names two: the first has none, the second is used.
    let mut config = Config::default();
    config.prm["authorization_servers"] = json!(["https://gone.example", "https://auth.example/tenant"]);
    let world = World::new(config);
    let (o, asked, _) = oauth(&world, opts());
    assert_eq!(bearer_of(&block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap()), "access-0");
    assert!(asked.borrow()[0].starts_with("https://auth.example/tenant/authorize?"));
    assert!(world.requests_to("https://gone.example/register").is_empty() && world.requests_to("https://gone.example/token").is_empty());
    assert_eq!(world.urls()[1..4], [
        "GET https://gone.example/.well-known/oauth-authorization-server",
        "GET https://gone.example/.well-known/openid-configuration",
        "GET https://auth.example/.well-known/oauth-authorization-server/tenant",
    ]);
    // Neither has any: both named.
    let mut config = Config { as_meta_at: None, ..Config::default() };
    config.prm["authorization_servers"] = json!(["https://gone.example", "https://auth.example/tenant"]);
    let world = World::new(config);
    let (o, _, _) = oauth(&world, opts());
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert!(e.message.contains("authorization servers https://gone.example, https://auth.example/tenant that"), "{}", e.message);
    nothing_sent(&world);
    // One unreachable, the other without metadata: still no guess.
    let mut config = Config { as_meta_at: None, unreachable: vec!["https://gone.example/.well-known/oauth-authorization-server", "https://gone.example/.well-known/openid-configuration"], ..Config::default() };
    config.prm["authorization_servers"] = json!(["https://gone.example", "https://auth.example/tenant"]);
    let world = World::new(config);
    let (o, _, _) = oauth(&world, opts());
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert!(e.message.contains("publishes no metadata"), "{}", e.message);
    nothing_sent(&world);
    // The first unreachable, the second answers: the second.
    let mut config = Config { unreachable: vec!["https://gone.example/.well-known/oauth-authorization-server", "https://gone.example/.well-known/openid-configuration"], ..Config::default() };
    config.prm["authorization_servers"] = json!(["https://gone.example", "https://auth.example/tenant"]);
    let world = World::new(config);
    let (o, _, _) = oauth(&world, opts());
    assert!(block_on(o.on_refused(&refusal(&world, None))).unwrap().is_some());
    // The same with a client secret given and no issuer pinned: the secret is the first's, and the
    // second is not asked at all (it would be sent the secret).
    let mut config = Config { unreachable: vec!["https://gone.example/.well-known/oauth-authorization-server", "https://gone.example/.well-known/openid-configuration"], ..Config::default() };
    config.prm["authorization_servers"] = json!(["https://gone.example", "https://auth.example/tenant"]);
    let world = World::new(config);
    let (o, _, _) = oauth(&world, OAuthOptions { client_id: Some("app".into()), client_secret: Some("s3cret".into()), ..opts() });
    assert!(block_on(o.on_refused(&refusal(&world, None))).is_err());
    assert!(world.urls().iter().all(|u| !u.contains("auth.example")), "{:?}", world.urls());
    // A refusal at the first (its metadata redirected in the clear) is the error: the next is not tried.
    let mut config = Config { redirects: vec![("https://gone.example/.well-known/oauth-authorization-server", "http://gone.example/meta")], ..Config::default() };
    config.prm["authorization_servers"] = json!(["https://gone.example", "https://auth.example/tenant"]);
    let world = World::new(config);
    let (o, _, _) = oauth(&world, opts());
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert_eq!(rule(&e), Some("cleartext"), "{e}");
    assert!(world.urls().iter().all(|u| !u.contains("auth.example")), "{:?}", world.urls());
}

/// A metadata document or token answer past the most read is LIMIT_EXCEEDED, never read in part
/// (a document cut short is not there, and the next guess was taken).
#[test]
fn an_answer_larger_than_the_most_read_is_refused_whole() {
    let mut config = Config::default();
    config.as_meta["padding"] = "x".repeat(MAX_BODY).into();
    let world = World::new(config);
    let (o, asked, _) = oauth(&world, opts());
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
    assert_eq!(e.details.as_ref().unwrap()["oauthStep"], "discovery");
    assert!(e.message.contains("https://auth.example/.well-known/oauth-authorization-server/tenant is larger than 1048576 bytes"), "{}", e.message);
    assert!(asked.borrow().is_empty());
    assert_eq!(world.urls().len(), 2, "{:?}", world.urls());
    // Just within: read.
    let mut config = Config::default();
    let size = config.as_meta.to_string().len() + r#","padding":"""#.len();
    config.as_meta["padding"] = "x".repeat(MAX_BODY - size).into();
    assert_eq!(config.as_meta.to_string().len(), MAX_BODY);
    let world = World::new(config);
    let (o, _, _) = oauth(&world, opts());
    assert!(block_on(o.on_refused(&refusal(&world, None))).unwrap().is_some());
}

/// Step-ups for different scopes at once: one consent at a time, each asking for the scopes
/// granted before it and its own, so that the last token has them all.
#[test]
fn concurrent_step_ups_run_one_after_another_and_keep_every_scope() {
    let world = World::new(Config::default());
    let asked = Rc::new(RefCell::new(Vec::<String>::new()));
    let open = Rc::new(std::cell::Cell::new((0, 0)));
    let (w, a, n) = (world.clone(), asked.clone(), open.clone());
    let authorize: Authorize = Box::new(move |req: &Value| {
        let url = req["url"].as_str().unwrap().to_owned();
        a.borrow_mut().push(field(&query_params(&url), "scope").unwrap_or("").to_owned());
        let back = w.authorize(&url);
        let n = n.clone();
        n.set((n.get().0 + 1, n.get().1.max(n.get().0 + 1)));
        Box::pin(async move {
            YieldOnce(false).await;
            YieldOnce(false).await;
            n.set((n.get().0 - 1, n.get().1));
            Ok(back)
        })
    });
    let o = OAuth::new(world.clone(), MCP, opts(), Some(authorize), None, counting()).unwrap();
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    let step_up = |scope: &str| json!({"status": 403, "challenge": {"scheme": "Bearer", "error": "insufficient_scope", "scope": scope}});
    let (x, y, z) = block_on(futures_util::future::join3(
        o.clone().on_refused(&step_up("mcp:a")),
        o.clone().on_refused(&step_up("mcp:b")),
        o.clone().on_refused(&step_up("mcp:c")),
    ));
    let (x, y, z) = (x.unwrap().unwrap(), y.unwrap().unwrap(), z.unwrap().unwrap());
    // The first, then the two that joined it one after the other (in whichever order they woke).
    let asked = asked.borrow();
    assert_eq!(asked.len(), 4, "{asked:?}");
    assert_eq!(asked[1], "mcp:read mcp:write mcp:a");
    assert!(["mcp:read mcp:write mcp:a mcp:b", "mcp:read mcp:write mcp:a mcp:c"].contains(&asked[2].as_str()), "{asked:?}");
    let mut last: Vec<&str> = asked[3].split(' ').collect();
    last.sort_unstable();
    assert_eq!(last, ["mcp:a", "mcp:b", "mcp:c", "mcp:read", "mcp:write"], "{asked:?}");
    assert_eq!(open.get().1, 1, "one consent at a time");
    assert_eq!(o.tokens.borrow().as_ref().unwrap().scope(), Some(asked[3].as_str()));
    assert_eq!(bearer_of(&x), "access-1");
    let mut others = [bearer_of(&y), bearer_of(&z)];
    others.sort_unstable();
    assert_eq!(others, ["access-2", "access-3"]);
}

/// An access token that cannot go in an `authorization` header (a line break, a space, a control
/// or non-ASCII character) is refused at the token step, not kept to fail every request after;
/// one restored from what was saved is dropped, and the next refusal authorizes again.
#[test]
fn an_access_token_that_cannot_be_sent_in_a_header_is_refused() {
    for bad in ["bad\ntoken", "two words", "tab\there", "caf\u{e9}", "nul\u{0}"] {
        let world = World::new(Config::default());
        world.config.borrow_mut().token_answer = Some(Rc::new(move |v: &mut Value| v["access_token"] = bad.into()));
        let (o, _, saved) = oauth(&world, opts());
        let e = block_on(o.clone().on_refused(&refusal(&world, None))).unwrap_err();
        assert_eq!((e.code, e.details.as_ref().unwrap()["oauthStep"].as_str()), (ErrorCode::Unauthorized, Some("token")), "{bad:?}");
        assert!(e.message.contains("cannot be sent in an Authorization header"), "{}", e.message);
        assert!(o.headers().is_empty());
        assert!(saved.borrow().iter().all(|s| s["tokens"].is_null()), "not saved");

        // Saved by an earlier version: dropped, the client kept; the next refusal asks the user.
        let world = World::new(Config::default());
        let (o, _, saved) = oauth(&world, opts());
        block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
        let mut last = saved.borrow().last().cloned().unwrap();
        last["tokens"]["access_token"] = bad.into();
        let (o, asked, _) = oauth(&world, OAuthOptions { saved: Some(last), ..opts() });
        assert!(o.headers().is_empty(), "{bad:?}: {:?}", o.headers());
        let headers = block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
        assert_eq!(bearer_of(&headers), "access-1");
        assert_eq!(asked.borrow().len(), 1);
        assert!(world.requests_to("https://auth.example/tenant/register").len() == 1, "registered once, the saved client reused");
    }
}

/// An authorization server that cannot do the code flow the client needs (no PKCE S256) is refused
/// before a client is registered with it (nothing registered, nothing saved).
#[test]
fn what_the_code_flow_needs_is_checked_before_registration() {
    for methods in [None, Some(json!(["plain"]))] {
        let mut config = Config::default();
        match methods {
            Some(m) => config.as_meta["code_challenge_methods_supported"] = m,
            None => {
                config.as_meta.as_object_mut().unwrap().remove("code_challenge_methods_supported");
            }
        }
        let world = World::new(config);
        let (o, asked, saved) = oauth(&world, opts());
        let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
        assert!(e.message.contains("PKCE"), "{}", e.message);
        assert!(world.requests_to("https://auth.example/tenant/register").is_empty(), "{:?}", world.urls());
        assert!(saved.borrow().iter().all(|s| s["client"].is_null()), "{:?}", saved.borrow());
        assert!(asked.borrow().is_empty());
    }
    // Nor is the next of the resource's authorization servers tried (MCP 2025-11-25: the client
    // must refuse to proceed): only one that publishes no metadata is passed over.
    let mut config = Config { documents: vec![other_server()], ..Config::default() };
    config.prm["authorization_servers"] = json!(["https://auth.example/tenant", "https://auth2.example"]);
    config.as_meta["code_challenge_methods_supported"] = json!(["plain"]);
    let world = World::new(config);
    let (o, asked, _) = oauth(&world, opts());
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert!(e.message.contains("PKCE"), "{}", e.message);
    assert!(world.urls().iter().all(|u| !u.contains("auth2.example")) && asked.borrow().is_empty(), "{:?}", world.urls());
}

/// RFC 8414's `response_types_supported`, when given, must list `code` for the code flow; when
/// absent (many servers leave it out), the code flow is assumed.
#[test]
fn an_authorization_server_without_the_code_response_type_is_refused() {
    let mut config = Config::default();
    config.as_meta["response_types_supported"] = json!(["token"]);
    let world = World::new(config);
    let (o, asked, _) = oauth(&world, opts());
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert_eq!((e.code, e.details.as_ref().unwrap()["oauthStep"].as_str()), (ErrorCode::Unauthorized, Some("authorization")));
    assert!(e.message.contains("response_types_supported (token) lists no \"code\""), "{}", e.message);
    assert!(asked.borrow().is_empty() && world.requests_to("https://auth.example/tenant/register").is_empty());
    let mut config = Config::default();
    config.as_meta["response_types_supported"] = json!(["code", "token"]);
    let world = World::new(config);
    let (o, _, _) = oauth(&world, opts());
    assert!(block_on(o.on_refused(&refusal(&world, None))).unwrap().is_some());
}

/// RFC 6749 3.1 and 3.2: an endpoint URL has no fragment (the authorization request's parameters
/// appended after one would never reach the server).
#[test]
fn an_endpoint_with_a_fragment_is_refused() {
    for key in ["authorization_endpoint", "token_endpoint", "registration_endpoint"] {
        let mut config = Config::default();
        let url = format!("{}#x", config.as_meta[key].as_str().unwrap());
        config.as_meta[key] = url.clone().into();
        let world = World::new(config);
        let (o, asked, _) = oauth(&world, opts());
        let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
        assert_eq!((e.code, e.details.as_ref().unwrap()["oauthStep"].as_str()), (ErrorCode::Unauthorized, Some("discovery")));
        assert!(e.message.contains(&format!("{key} {url} has a fragment")), "{}", e.message);
        assert!(asked.borrow().is_empty());
        assert!(world.urls().iter().all(|u| u.starts_with("GET ")), "{:?}", world.urls());
    }
}

/// RFC 8707 2: a resource indicator has no fragment; the resource metadata's `resource` with one
/// is refused before it is sent anywhere (a query is taken: the server's own).
#[test]
fn a_resource_with_a_fragment_is_refused() {
    let mut config = Config::default();
    config.prm["resource"] = format!("{MCP}#frag").into();
    let world = World::new(config);
    let (o, asked, _) = oauth(&world, opts());
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert_eq!((e.details.as_ref().unwrap()["oauthStep"].as_str(), rule(&e)), (Some("discovery"), Some("resource-mismatch")));
    assert!(e.message.contains("with a fragment"), "{}", e.message);
    assert!(asked.borrow().is_empty());
    assert_eq!(world.urls(), ["GET https://mcp.example/.well-known/oauth-protected-resource/api/mcp"]);
    let mut config = Config::default();
    config.prm["resource"] = format!("{MCP}?tenant=1").into();
    let world = World::new(config);
    let (o, asked, _) = oauth_at(&world, &format!("{MCP}?tenant=1"), opts());
    block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!(field(&query_params(&asked.borrow()[0]), "resource"), Some("https://mcp.example/api/mcp?tenant=1"));
}

/// The redirect URI is https, http on a loopback host, or a native app's own scheme; the client
/// metadata document's URL, a client_id, is https with a path (Client ID Metadata Documents).
#[test]
fn redirect_and_client_metadata_urls_are_checked_at_construction() {
    let world = World::new(Config::default());
    let authorize = || -> Authorize { Box::new(|_: &Value| Box::pin(async { Ok(String::new()) })) };
    let new = |opts| OAuth::new(world.clone(), MCP, opts, Some(authorize()), None, counting()).err().map(|e| (e.code, e.message));
    for url in ["javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,x", "file:///tmp/cb", "http://evil.example/cb", "http://192.168.1.2/cb", "https://app.example/cb#x", "not a url", "/callback", "http:/cb"] {
        let e = new(OAuthOptions { redirect_url: url.into(), ..opts() });
        assert!(matches!(&e, Some((ErrorCode::InvalidOptions, m)) if m.starts_with("oauth.redirectUrl")), "{url}: {e:?}");
    }
    for url in ["https://app.example/cb", "http://localhost:3000/callback", "http://127.0.0.1/cb", "http://[::1]:8080/cb", "com.example.app:/oauth", "myapp://cb"] {
        assert_eq!(new(OAuthOptions { redirect_url: url.into(), ..opts() }), None, "{url}");
    }
    for url in ["not a url", "http://app.example/client.json", "https://app.example", "https://app.example/", "https://app.example/c.json#x", "https://app.example/a/../c.json", "https://u:p@app.example/c.json", "ftp://app.example/c.json"] {
        let e = new(OAuthOptions { client_metadata_url: Some(url.into()), ..opts() });
        assert!(matches!(&e, Some((ErrorCode::InvalidOptions, m)) if m.starts_with("oauth.clientMetadataUrl")), "{url}: {e:?}");
    }
    for url in ["https://app.example/client.json", "https://app.example/oauth/client-metadata", "HTTPS://app.example/c?v=1"] {
        assert_eq!(new(OAuthOptions { client_metadata_url: Some(url.into()), ..opts() }), None, "{url}");
    }
}

/// RFC 6749 5.1: `token_type` is Bearer (any case) or, when left out, taken as Bearer; another
/// (or not a string) is refused. An `expires_in` sent as a string of a number is saved as that
/// number, one that is none left out.
#[test]
fn the_token_answer_is_read_as_its_types_say() {
    let run = |rewrite: fn(&mut Value)| {
        let world = World::new(Config { token_answer: Some(Rc::new(rewrite)), ..Config::default() });
        let (o, _, saved) = oauth(&world, opts());
        let out = block_on(o.on_refused(&refusal(&world, None)));
        let tokens = saved.borrow().last().map(|s| s["tokens"].clone());
        (out, tokens.unwrap_or(Value::Null))
    };
    let (out, tokens) = run(|v| {
        v.as_object_mut().unwrap().remove("token_type");
    });
    assert_eq!(bearer_of(&out.unwrap().unwrap()), "access-0", "no token_type: Bearer");
    assert!(tokens.get("token_type").is_none());
    assert!(run(|v| v["token_type"] = "bEaReR".into()).0.is_ok());
    for odd in [json!(5), json!(["Bearer"]), json!("N_A")] {
        let world = World::new(Config { token_answer: Some(Rc::new(move |v: &mut Value| v["token_type"] = odd.clone())), ..Config::default() });
        let (o, _, saved) = oauth(&world, opts());
        let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
        assert_eq!(e.details.as_ref().unwrap()["oauthStep"], "token");
        assert!(e.message.contains("Bearer tokens only"), "{}", e.message);
        assert!(saved.borrow().iter().all(|s| s["tokens"].is_null()));
    }
    assert_eq!(run(|v| v["expires_in"] = "3600".into()).1["expires_in"], json!(3600));
    assert_eq!(run(|v| v["expires_in"] = " 90.5 ".into()).1["expires_in"], json!(90.5));
    assert_eq!(run(|v| v["expires_in"] = 60.into()).1["expires_in"], json!(60));
    for odd in [json!("soon"), json!("-5"), json!(null), json!({"s": 1}), json!("NaN")] {
        let world = World::new(Config { token_answer: Some(Rc::new(move |v: &mut Value| v["expires_in"] = odd.clone())), ..Config::default() });
        let (o, _, saved) = oauth(&world, opts());
        block_on(o.on_refused(&refusal(&world, None))).unwrap().unwrap();
        assert!(saved.borrow().last().unwrap()["tokens"].get("expires_in").is_none(), "{:?}", saved.borrow().last());
    }
    // Restored as saved by an earlier version: the same.
    let world = World::new(Config::default());
    let saved = json!({"tokens": {"access_token": "a", "token_type": "Bearer", "expires_in": "3600"}, "server": MCP});
    let (o, _, _) = oauth(&world, OAuthOptions { saved: Some(saved), ..opts() });
    assert_eq!(o.tokens.borrow().as_ref().unwrap().raw["expires_in"], json!(3600));
}

/// The authorization server `https://auth2.example`'s metadata.
fn other_server() -> (&'static str, Value) {
    ("https://auth2.example/.well-known/oauth-authorization-server", json!({
        "issuer": "https://auth2.example",
        "authorization_endpoint": "https://auth2.example/authorize",
        "token_endpoint": "https://auth2.example/token",
        "registration_endpoint": "https://auth2.example/register",
        "code_challenge_methods_supported": ["S256"],
    }))
}

#[test]
fn metadata_that_fails_for_now_is_an_error_of_its_own_not_a_reason_to_guess() {
    let prm = "https://mcp.example/.well-known/oauth-protected-resource/api/mcp";
    let root = "https://mcp.example/.well-known/oauth-protected-resource";
    let status = |e: &Error| e.details.as_ref().and_then(|d| d.get("status")).and_then(Value::as_u64);
    let to_mcp_origin = |world: &World| world.state.borrow().log.iter().filter(|r| r.method == Method::Post && r.url.starts_with("https://mcp.example/") && r.url != MCP).count();
    // The resource metadata the challenge names answers 503 (and so does the root): not a server
    // without metadata (2025-03-26), whose endpoints would be guessed and sent the client's secret.
    for root_answer in [503, 404] {
        let world = World::new(Config { preregistered: Some(("svc", Some("pw"))), failing: vec![(prm, 503), (root, root_answer)], ..Config::default() });
        let service = OAuthOptions { client_id: Some("svc".into()), client_secret: Some("pw".into()), client_credentials: true, ..OAuthOptions::default() };
        let o = OAuth::new(world.clone(), MCP, service, None, None, counting()).unwrap();
        let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
        assert_eq!((e.code, status(&e)), (ErrorCode::Unauthorized, Some(503)), "{e}");
        assert_eq!(e.details.as_ref().unwrap()["oauthStep"], "discovery");
        assert_eq!(e.details.as_ref().unwrap()["url"], prm);
        assert_eq!(to_mcp_origin(&world), 0, "{:?}", world.urls());
        assert!(world.urls().iter().all(|u| !u.contains("/.well-known/oauth-authorization-server") && !u.contains("openid")), "{:?}", world.urls());
    }
    // Busy (429) is the same; so is a network error at the URL the challenge names.
    let world = World::new(Config { failing: vec![(prm, 429)], ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    assert_eq!(status(&block_on(o.on_refused(&refusal(&world, None))).unwrap_err()), Some(429));
    assert!(asked.borrow().is_empty());
    let world = World::new(Config { unreachable: vec![prm], failing: vec![(root, 404)], ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert_eq!(e.details.as_ref().unwrap()["url"], prm, "{e}");
    assert!(asked.borrow().is_empty() && to_mcp_origin(&world) == 0, "{:?}", world.urls());

    // Saved credentials: kept through the failure (not erased in `onSaved`), and used once it passes.
    let world = World::new(Config::default());
    let (first, _, saved) = oauth(&world, opts());
    block_on(first.on_refused(&refusal(&world, None))).unwrap().unwrap();
    let kept = saved.borrow().last().cloned().unwrap();
    world.config.borrow_mut().failing = vec![(prm, 503), (root, 503)];
    let (o, asked, saved) = oauth(&world, OAuthOptions { saved: Some(kept), ..opts() });
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    let e = block_on(o.clone().on_refused(&refusal(&world, Some("access-0")))).unwrap_err();
    assert_eq!(status(&e), Some(503));
    assert!(saved.borrow().is_empty(), "nothing erased: {:?}", saved.borrow());
    assert_eq!(bearer_of(&o.headers()), "access-0");
    world.config.borrow_mut().failing.clear();
    assert_eq!(bearer_of(&block_on(o.on_refused(&refusal(&world, Some("access-0")))).unwrap().unwrap()), "access-1");
    assert!(asked.borrow().is_empty(), "the refresh token served");

    // A 2025-03-26 server (no resource metadata) whose authorization server metadata answers 500:
    // that is the error, and its default endpoints are not guessed.
    let world = World::new(Config {
        prm_at: None,
        challenge_names_prm: false,
        preregistered: Some(("svc", Some("pw"))),
        failing: vec![("https://mcp.example/.well-known/oauth-authorization-server", 500)],
        ..Config::default()
    });
    let service = OAuthOptions { client_id: Some("svc".into()), client_secret: Some("pw".into()), client_credentials: true, ..OAuthOptions::default() };
    let o = OAuth::new(world.clone(), MCP, service.clone(), None, None, counting()).unwrap();
    assert_eq!(status(&block_on(o.on_refused(&refusal(&world, None))).unwrap_err()), Some(500));
    assert!(world.requests_to("https://mcp.example/token").is_empty(), "{:?}", world.urls());
    // Not there at all (404): the fallbacks MCP's authorization asks for are kept, the default
    // endpoints of 2025-03-26 among them.
    let world = World::new(Config { prm_at: None, challenge_names_prm: false, as_meta_at: None, preregistered: Some(("svc", Some("pw"))), ..Config::default() });
    world.config.borrow_mut().as_meta = json!({});
    let o = OAuth::new(world.clone(), MCP, service, None, None, counting()).unwrap();
    assert!(block_on(o.on_refused(&refusal(&world, None))).unwrap().is_some());
    assert_eq!(world.requests_to("https://mcp.example/token").len(), 1, "{:?}", world.urls());
}

#[test]
fn saved_credentials_of_an_authorization_server_the_resource_still_lists_are_kept() {
    let world = World::new(Config::default());
    let (first, _, saved) = oauth(&world, opts());
    block_on(first.on_refused(&refusal(&world, None))).unwrap().unwrap();
    let kept = saved.borrow().last().cloned().unwrap();
    assert_eq!(kept["issuer"], "https://auth.example/tenant");

    // Listed second now: it is still the one chosen, and the refresh token spent there.
    {
        let mut c = world.config.borrow_mut();
        c.prm["authorization_servers"] = json!(["https://auth2.example", "https://auth.example/tenant"]);
        c.documents = vec![other_server()];
    }
    let (o, asked, saved) = oauth(&world, OAuthOptions { saved: Some(kept.clone()), ..opts() });
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    assert_eq!(bearer_of(&block_on(o.on_refused(&refusal(&world, Some("access-0")))).unwrap().unwrap()), "access-1");
    assert!(asked.borrow().is_empty());
    assert!(world.urls().iter().all(|u| !u.contains("auth2.example")), "{:?}", world.urls());
    assert!(saved.borrow().iter().all(|s| s["issuer"] == "https://auth.example/tenant" && !s["client"].is_null()), "{:?}", saved.borrow());

    // Listed first, its metadata unreachable once (at every well-known URL, or at the first while
    // the others are not found), or failing: the error, the credentials kept, the other server not
    // taken.
    let meta = "https://auth.example/.well-known/oauth-authorization-server/tenant";
    let everywhere = vec![meta, "https://auth.example/.well-known/openid-configuration/tenant", "https://auth.example/tenant/.well-known/openid-configuration"];
    for (unreachable, failing) in [(everywhere, None), (vec![meta], None), (vec![], Some(503))] {
        let world = World::new(Config::default());
        let (first, _, saved) = oauth(&world, opts());
        block_on(first.on_refused(&refusal(&world, None))).unwrap().unwrap();
        let kept = saved.borrow().last().cloned().unwrap();
        {
            let mut c = world.config.borrow_mut();
            c.prm["authorization_servers"] = json!(["https://auth.example/tenant", "https://auth2.example"]);
            c.documents = vec![other_server()];
            c.unreachable = unreachable;
            c.failing = failing.map(|s| vec![(meta, s)]).unwrap_or_default();
        }
        let (o, asked, saved) = oauth(&world, OAuthOptions { saved: Some(kept), ..opts() });
        world.state.borrow_mut().tokens[0].0 = "expired".into();
        let e = block_on(o.clone().on_refused(&refusal(&world, Some("access-0")))).unwrap_err();
        assert_eq!(e.details.as_ref().unwrap()["oauthStep"], "discovery", "{e}");
        assert!(asked.borrow().is_empty() && saved.borrow().is_empty(), "{:?}", saved.borrow());
        assert!(world.urls().iter().all(|u| !u.contains("auth2.example")), "{:?}", world.urls());
        assert_eq!(bearer_of(&o.headers()), "access-0");
        // Back: the refresh token serves.
        world.config.borrow_mut().unreachable.clear();
        world.config.borrow_mut().failing.clear();
        assert_eq!(bearer_of(&block_on(o.on_refused(&refusal(&world, Some("access-0")))).unwrap().unwrap()), "access-1");
        assert!(asked.borrow().is_empty());
    }
}

/// `ipv6` reads what `Ipv6Addr::from_str` reads, and nothing else: hand-picked forms, then
/// random strings of the characters an address is made of.
#[test]
fn ipv6_reads_as_core_reads() {
    let same = |s: &str| assert_eq!(ipv6(s.as_bytes()), s.parse::<std::net::Ipv6Addr>().ok().map(|ip| ip.segments()), "{s:?}");
    for s in [
        "::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "1::2::3", ":1::", "1:::2",
        "::ffff:127.0.0.1", "::127.0.0.1", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", "1.2.3.4::", "::1.2.3.04", "::1.2.3.256",
        "::256.1.1.1", "::1.2.3", "::1.2.3.4.5", "fe80::1", "FE80::A", "12345::", "0000:0:00:000::", "::0.0.0.0", "::00.0.0.0", "", ":",
        "1:2:3:4:5:6::1.2.3.4", "1::1.2.3.4", "::1:1.2.3.4", "1:2:3:4:5::1.2.3.4", "::ffff:1.2.3.4:5", "g::", "::1%eth0", "[::1]",
    ] {
        same(s);
    }
    let alphabet = b"0123456789abcdefABCDEFg:.:.:";
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..300_000 {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        let r = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let len = usize::try_from(r % 24).unwrap_or(0);
        let mut y = r;
        let s: String = (0..len)
            .map(|_| {
                y = y.rotate_left(5) ^ 0x5851_F42D_4C95_7F2D;
                y = y.wrapping_mul(0x2545_F491_4F6C_DD1D);
                char::from(alphabet[usize::try_from(y >> 59).unwrap_or(0) % alphabet.len()])
            })
            .collect();
        same(&s);
        // Mostly valid ones: a real address with a character changed.
        let groups = (0..8).map(|i| format!("{:x}", (r >> (i * 8)) & 0x1ff)).collect::<Vec<_>>();
        let mut t = groups.join(":");
        let at = usize::try_from(r >> 40).unwrap_or(0) % t.len();
        t.replace_range(at..at + 1, [":", "::", ".", "1.2.3.4", "0", ""][usize::try_from(r >> 50).unwrap_or(0) % 6]);
        same(&t);
    }
}

/// Futures handed to an OAuth's spawner, run when the test says.
type Spawned = Rc<RefCell<Vec<std::pin::Pin<Box<dyn Future<Output = ()>>>>>>;

/// A spawner that keeps what it is given, and a sleep that never ends (`timed_out`: that ends at once).
fn background(o: &OAuth<World>, timed_out: bool) -> Spawned {
    let spawned: Spawned = Rc::default();
    let sink = spawned.clone();
    let sleep: Sleep = Rc::new(move |_| if timed_out { Box::pin(async {}) } else { Box::pin(futures_util::future::pending()) });
    o.set_background(Rc::new(move |f| sink.borrow_mut().push(f)), sleep);
    spawned
}

/// Polls a refusal's handling until `sent` (a request reached the server), then drops it: the
/// request that waited gave up (its timeout, an abort, `close()`).
fn give_up_after(o: &Rc<OAuth<World>>, info: &Value, sent: impl Fn() -> bool) {
    let mut waiting = Box::pin(o.clone().on_refused(info));
    let waker = futures_util::task::noop_waker();
    for _ in 0..100 {
        if sent() {
            break;
        }
        assert!(waiting.as_mut().poll(&mut std::task::Context::from_waker(&waker)).is_pending());
    }
    assert!(sent(), "the request was never sent");
    drop(waiting);
}

fn run_all(spawned: &Spawned) -> usize {
    let tasks = std::mem::take(&mut *spawned.borrow_mut());
    let n = tasks.len();
    for task in tasks {
        block_on(task);
    }
    n
}

#[test]
fn a_refresh_nobody_waits_for_any_more_is_kept_with_the_refresh_token_the_server_rotated() {
    let world = World::new(Config { rotate: true, ..Config::default() });
    let (o, asked, saved) = oauth(&world, opts());
    let spawned = background(&o, false);
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    run_all(&spawned);
    // The access token expires; the refresh is slow, and the only request waiting gives up once it is sent.
    world.config.borrow_mut().slow_token = true;
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    let token = "https://auth.example/tenant/token";
    give_up_after(&o, &refusal(&world, Some("access-0")), || world.requests_to(token).len() == 2);
    assert_eq!(world.state.borrow().tokens[0].1, "spent", "the server rotated the refresh token");
    assert_eq!(run_all(&spawned), 1, "the refresh went on in the background");
    assert_eq!(saved.borrow().last().unwrap()["tokens"]["refresh_token"], "refresh-1", "the rotated refresh token was saved");
    // The next refusal gets the tokens kept, with no other request to the server and nobody asked.
    world.config.borrow_mut().slow_token = false;
    let headers = block_on(o.clone().on_refused(&refusal(&world, Some("access-0")))).unwrap().unwrap();
    assert_eq!(bearer_of(&headers), "access-1");
    assert_eq!(world.requests_to(token).len(), 2);
    // And the refresh after spends the new refresh token.
    world.state.borrow_mut().tokens[1].0 = "expired".into();
    let headers = block_on(o.clone().on_refused(&refusal(&world, Some("access-1")))).unwrap().unwrap();
    assert_eq!(bearer_of(&headers), "access-2");
    assert!(world.state.borrow().refused.is_empty(), "{:?}", world.state.borrow().refused);
    assert_eq!(asked.borrow().len(), 1);
}

#[test]
fn a_refresh_still_running_is_waited_for_by_the_next_authorization() {
    let world = World::new(Config { rotate: true, ..Config::default() });
    let (o, asked, _) = oauth(&world, opts());
    let spawned = background(&o, false);
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    run_all(&spawned);
    world.config.borrow_mut().slow_token = true;
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    let token = "https://auth.example/tenant/token";
    give_up_after(&o, &refusal(&world, Some("access-0")), || world.requests_to(token).len() == 2);
    // Another refusal before the background ran: it waits for that refresh, and spends no revoked token.
    let headers = block_on(o.clone().on_refused(&refusal(&world, Some("access-0")))).unwrap().unwrap();
    assert_eq!(bearer_of(&headers), "access-1");
    assert_eq!(world.requests_to(token).len(), 2);
    assert_eq!(asked.borrow().len(), 1);
}

#[test]
fn a_code_exchange_and_a_registration_nobody_waits_for_any_more_are_kept() {
    let token = "https://auth.example/tenant/token";
    let register = "https://auth.example/tenant/register";
    // The code the user granted is exchanged when the request that waited has given up.
    let world = World::new(Config { slow_token: true, ..Config::default() });
    let (o, asked, saved) = oauth(&world, opts());
    let spawned = background(&o, false);
    give_up_after(&o, &refusal(&world, None), || world.requests_to(token).len() == 1);
    assert_eq!(run_all(&spawned), 2, "the registration and the code exchange");
    assert_eq!(saved.borrow().last().unwrap()["tokens"]["access_token"], "access-0");
    let headers = block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!(bearer_of(&headers), "access-0");
    assert_eq!((asked.borrow().len(), world.requests_to(token).len()), (1, 1), "nobody asked again, no other code");

    // A registration that the server made is kept: the next authorization registers no other client.
    let world = World::new(Config { slow_register: true, ..Config::default() });
    let (o, asked, saved) = oauth(&world, opts());
    let spawned = background(&o, false);
    give_up_after(&o, &refusal(&world, None), || world.requests_to(register).len() == 1);
    assert_eq!(asked.borrow().len(), 0);
    assert_eq!(run_all(&spawned), 1);
    assert_eq!(saved.borrow().last().unwrap()["client"]["client_id"], "dyn-client-0");
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    assert_eq!(world.requests_to(register).len(), 1);
    assert_eq!(asked.borrow().len(), 1);
}

#[test]
fn a_request_left_running_in_the_background_is_let_go_after_its_timeout() {
    let world = World::new(Config::default());
    let (o, _, _) = oauth(&world, opts());
    let spawned = background(&o, true);
    block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap();
    run_all(&spawned);
    world.config.borrow_mut().slow_token = true;
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    let token = "https://auth.example/tenant/token";
    give_up_after(&o, &refusal(&world, Some("access-0")), || world.requests_to(token).len() == 2);
    // Its time is up before the answer: dropped, and nothing waits for it.
    assert_eq!(run_all(&spawned), 1);
    assert!(o.settling.borrow().as_ref().and_then(WeakShared::upgrade).is_none());
    assert_eq!(o.tokens.borrow().as_ref().unwrap().access, "access-0");
}

#[test]
fn a_few_authorization_servers_are_tried_and_the_message_stays_short() {
    // A resource naming many authorization servers, none of which publishes metadata.
    let many: Vec<String> = (0..2000).map(|i| format!("https://as{i}.example")).collect();
    let mut config = Config::default();
    config.prm["authorization_servers"] = json!(many);
    let world = World::new(config);
    let (o, asked, _) = oauth(&world, opts());
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert_eq!(asked.borrow().len(), 0);
    let hosts: std::collections::BTreeSet<String> = world.state.borrow().log.iter().filter_map(|r| split_url(&r.url).map(|(o, _)| o.to_owned())).filter(|o| o.contains("://as")).collect();
    assert_eq!(hosts.len(), MAX_AUTHORIZATION_SERVERS, "{hosts:?}");
    assert!(world.urls().len() <= 1 + 2 * MAX_AUTHORIZATION_SERVERS, "{:?}", world.urls());
    assert!(e.message.contains("https://as0.example") && e.message.len() < 1000, "{}", e.message);
    // The one of the credentials held is tried first, wherever the resource lists it.
    let mut config = Config::default();
    let mut listed = many.clone();
    listed.insert(1500, "https://auth.example/tenant".into());
    config.prm["authorization_servers"] = json!(listed);
    let world = World::new(config);
    let saved = json!({"issuer": "https://auth.example/tenant", "client": {"client_id": "dyn-client-0"}});
    let (o, _, _) = oauth(&world, OAuthOptions { saved: Some(saved), ..opts() });
    world.state.borrow_mut().registered.push(("dyn-client-0".into(), None));
    assert!(block_on(o.on_refused(&refusal(&world, None))).is_ok());
    assert!(world.urls().iter().all(|u| !u.contains("://as")), "{:?}", world.urls());
    // A pin none of them is: the message names a few.
    let long = format!("https://{}.example", "x".repeat(5000));
    let mut config = Config::default();
    config.prm["authorization_servers"] = json!([long, "https://b.example", "https://c.example", "https://d.example", "https://e.example", "https://f.example", "https://g.example"]);
    let world = World::new(config);
    let (o, _, _) = oauth(&world, OAuthOptions { issuer: Some("https://auth.example/tenant".into()), ..opts() });
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert_eq!(rule(&e), Some("issuer-mismatch"));
    assert!(e.message.contains("and 2 more") && e.message.len() < 1000, "{}", e.message);
}

#[test]
fn a_client_given_for_the_current_authorization_server_wins_over_credentials_saved_with_another() {
    let config = Config { preregistered: Some(("y-client", None)), ..Config::default() };
    let world = World::new(config);
    // Saved with another authorization server and its own client; the app is now configured with this one's.
    let saved = json!({"issuer": "https://as-x.example", "client": {"client_id": "x-client"}, "tokens": {"access_token": "old", "refresh_token": "rt-x"}});
    let (o, asked, kept) = oauth(&world, OAuthOptions { client_id: Some("y-client".into()), saved: Some(saved), ..opts() });
    let headers = block_on(o.clone().on_refused(&refusal(&world, Some("old")))).unwrap().unwrap();
    assert_eq!(bearer_of(&headers), "access-0");
    assert_eq!(asked.borrow().len(), 1);
    assert_eq!(field(&query_params(&asked.borrow()[0]), "client_id"), Some("y-client"));
    assert!(world.state.borrow().log.iter().all(|r| !r.body.as_deref().unwrap_or("").contains("rt-x")), "the other server's refresh token was sent");
    let last = kept.borrow().last().cloned().unwrap();
    assert_eq!((last["issuer"].as_str(), last["client"]["client_id"].as_str()), (Some("https://auth.example/tenant"), Some("y-client")));
    // Now the client is this server's: the resource moving to another is the error it was.
    world.config.borrow_mut().prm["authorization_servers"] = json!(["https://auth2.example"]);
    world.config.borrow_mut().documents.push(other_server());
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    let e = block_on(o.on_refused(&refusal(&world, Some("access-0")))).unwrap_err();
    assert!(e.message.contains("clientId") && e.message.contains("https://auth.example/tenant's"), "{}", e.message);
    // Saved with the client given: tied to the issuer saved, as before.
    let world = World::new(Config { preregistered: Some(("y-client", None)), ..Config::default() });
    let saved = json!({"issuer": "https://as-x.example", "client": {"client_id": "y-client"}});
    let (o, asked, _) = oauth(&world, OAuthOptions { client_id: Some("y-client".into()), saved: Some(saved), ..opts() });
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert!(e.message.contains("https://as-x.example's"), "{}", e.message);
    assert_eq!(asked.borrow().len(), 0);
}

#[test]
fn a_token_endpoint_error_answered_with_http_200_is_an_error_with_its_code() {
    let rewrite: Rewrite = Rc::new(|body: &mut Value| *body = json!({"error": "bad_verification_code", "error_description": "The code passed is incorrect or expired."}));
    let world = World::new(Config { token_answer: Some(rewrite), ..Config::default() });
    let (o, _, _) = oauth(&world, opts());
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    let d = e.details.as_ref().unwrap();
    assert_eq!((d["oauthStep"].as_str(), d["oauthError"].as_str()), (Some("token"), Some("bad_verification_code")));
    assert_eq!(d["oauthErrorDescription"], "The code passed is incorrect or expired.");
    assert!(e.message.contains("HTTP 200: bad_verification_code"), "{}", e.message);

    // The authorization server's text: what would act on a terminal or a page is escaped, and
    // the message cut; the details keep it as sent.
    let description = format!("\u{202e}\u{9b}2J{}", "d".repeat(5000));
    let sent = description.clone();
    let rewrite: Rewrite = Rc::new(move |body: &mut Value| *body = json!({"error": "bad\u{2066}code", "error_description": sent}));
    let world = World::new(Config { token_answer: Some(rewrite), ..Config::default() });
    let (o, _, _) = oauth(&world, opts());
    let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
    assert!(e.message.contains("HTTP 200: bad\\u2066code (\\u202e\\u009b2Jddd"), "{}", e.message);
    assert!(!e.message.contains(['\u{202e}', '\u{9b}', '\u{2066}']) && e.message.len() < 1000, "{}", e.message);
    assert_eq!(e.details.as_ref().unwrap()["oauthErrorDescription"], description.as_str());
}

/// A registration or token answer of 2xx without what it must carry names its status, as the
/// message does.
#[test]
fn an_answer_of_2xx_without_a_client_id_or_an_access_token_names_its_status() {
    for (endpoint, status, step) in [("https://auth.example/tenant/register", 201, "registration"), ("https://auth.example/tenant/token", 200, "token")] {
        let world = World::new(Config { failing: vec![(endpoint, status)], ..Config::default() });
        let (o, _, _) = oauth(&world, opts());
        let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
        let d = e.details.as_ref().unwrap();
        assert_eq!((d["oauthStep"].as_str(), d["status"].as_u64()), (Some(step), Some(u64::from(status))), "{e:?}");
        assert!(e.message.contains(&format!("HTTP {status} without")), "{}", e.message);
    }
}

#[test]
fn the_resource_metadata_keeps_and_names_the_servers_query() {
    const TENANT: &str = "https://mcp.example/api/mcp?tenant=a";
    const AT: &str = "https://mcp.example/.well-known/oauth-protected-resource/api/mcp?tenant=a";
    let run = |resource: &str| {
        let prm = json!({"resource": resource, "authorization_servers": ["https://auth.example/tenant"]});
        let world = World::new(Config { prm_at: Some(AT), prm, ..Config::default() });
        let (o, asked, _) = oauth_at(&world, TENANT, opts());
        let out = block_on(o.on_refused(&json!({"status": 401, "challenge": {"scheme": "Bearer"}})));
        let n = asked.borrow().len();
        (out, n, world.urls())
    };
    // RFC 9728 3.1: the well-known URL is the server's with the suffix inserted, its query kept.
    let (out, asked, urls) = run(TENANT);
    assert!(out.is_ok(), "{out:?}");
    assert_eq!(urls[0], format!("GET {AT}"));
    assert_eq!(asked, 1);
    // Metadata of another tenant (another query) is not this server's.
    let (out, asked, urls) = run("https://mcp.example/api/mcp?tenant=b");
    let e = out.unwrap_err();
    assert_eq!((rule(&e), asked), (Some("resource-mismatch"), 0), "{}", e.message);
    assert!(urls.iter().all(|u| !u.contains("auth.example")), "{urls:?}");
    assert!(!resource_allowed(MCP, "https://mcp.example/api/mcp?x=1"));
    assert!(resource_allowed(TENANT, "https://mcp.example?tenant=a"));
    assert!(resource_allowed(TENANT, "https://mcp.example/api"));
}

#[test]
fn a_client_secret_without_a_client_id_is_refused() {
    let world = World::new(Config::default());
    let authorize = || -> Authorize { Box::new(|_: &Value| Box::pin(async { Ok(String::new()) })) };
    let secret_alone = OAuthOptions { client_secret: Some("s3cret".into()), ..opts() };
    let e = OAuth::new(world.clone(), MCP, secret_alone, Some(authorize()), None, counting()).err().unwrap();
    assert_eq!(e.code, ErrorCode::InvalidOptions);
    assert!(e.message.contains("clientSecret needs clientId"), "{}", e.message);
    let both = OAuthOptions { client_id: Some("pre".into()), client_secret: Some("s3cret".into()), ..opts() };
    assert!(OAuth::new(world, MCP, both, Some(authorize()), None, counting()).is_ok());
}

#[test]
fn saved_tokens_of_another_type_than_bearer_are_dropped() {
    let world = World::new(Config::default());
    let saved = |token_type: Value| json!({"issuer": "https://auth.example/tenant", "server": MCP, "tokens": {"access_token": "bound", "refresh_token": "rt", "token_type": token_type}});
    for other in [json!("DPoP"), json!("mac"), json!(7)] {
        let (o, _, _) = oauth(&world, OAuthOptions { saved: Some(saved(other.clone())), ..opts() });
        assert!(o.headers().is_empty(), "{other}");
        assert!(o.tokens.borrow().is_none(), "{other}: its refresh token would be spent too");
    }
    for bearer in [json!("Bearer"), json!("bearer"), Value::Null] {
        let (o, _, _) = oauth(&world, OAuthOptions { saved: Some(saved(bearer.clone())), ..opts() });
        assert_eq!(bearer_of(&o.headers()), "bound", "{bearer}");
    }
}

/// The server's resource metadata not found for a moment (a deploy, a proxy rule) as the token
/// expires, so that it looks like a 2025-03-26 server, its own authorization server; or the
/// metadata naming another authorization server whose registration fails: the credentials of the
/// one named before are set aside, not erased (nothing saved), and serve again once it is named
/// again, without the user (review F3, s27e).
#[test]
fn credentials_are_kept_until_the_authorization_server_named_now_issues_tokens() {
    for to_other in [false, true] {
        let world = World::new(Config::default());
        let (first, _, saved) = oauth(&world, opts());
        block_on(first.on_refused(&refusal(&world, None))).unwrap().unwrap();
        let kept = saved.borrow().last().cloned().unwrap();
        let normal = world.config.borrow().clone();
        {
            let mut c = world.config.borrow_mut();
            if to_other {
                c.prm["authorization_servers"] = json!(["https://auth2.example"]);
                c.documents = vec![other_server()];
                c.failing = vec![("https://auth2.example/register", 503)];
            } else {
                c.prm_at = None;
            }
        }
        let (o, asked, saved) = oauth(&world, OAuthOptions { saved: Some(kept.clone()), ..opts() });
        world.state.borrow_mut().tokens[0].0 = "expired".into();
        let e = block_on(o.clone().on_refused(&refusal(&world, Some("access-0")))).unwrap_err();
        assert_eq!(e.details.as_ref().unwrap()["oauthStep"], "registration", "{e}");
        assert!(saved.borrow().is_empty(), "nothing saved (nor erased): {:?}", saved.borrow());
        assert!(asked.borrow().is_empty());
        // Back: the refresh token of the one named again serves, without the user.
        *world.config.borrow_mut() = normal;
        assert_eq!(bearer_of(&block_on(o.on_refused(&refusal(&world, Some("access-0")))).unwrap().unwrap()), "access-1");
        assert!(asked.borrow().is_empty());
        let last = saved.borrow().last().cloned().unwrap();
        assert_eq!((&last["issuer"], &last["client"]["client_id"], &last["tokens"]["access_token"]), (&kept["issuer"], &kept["client"]["client_id"], &json!("access-1")));
    }

    // The other one issues tokens: they replace those set aside, which are saved no more.
    let world = World::new(Config::default());
    let (first, _, saved) = oauth(&world, opts());
    block_on(first.on_refused(&refusal(&world, None))).unwrap().unwrap();
    let kept = saved.borrow().last().cloned().unwrap();
    {
        let mut c = world.config.borrow_mut();
        c.prm["authorization_servers"] = json!(["https://auth2.example"]);
        c.as_meta_at = Some("https://auth2.example/.well-known/oauth-authorization-server");
        c.as_meta = other_server().1;
    }
    let (o, asked, saved) = oauth(&world, OAuthOptions { saved: Some(kept), ..opts() });
    world.state.borrow_mut().tokens[0].0 = "expired".into();
    block_on(o.on_refused(&refusal(&world, Some("access-0")))).unwrap().unwrap();
    assert_eq!(asked.borrow().len(), 1);
    let last = saved.borrow().last().cloned().unwrap();
    assert_eq!(last["issuer"], "https://auth2.example");
    assert!(!last["tokens"].is_null() && !last["client"].is_null(), "{last}");
    assert!(saved.borrow().iter().all(|s| s["issuer"] != "https://auth2.example" || !s["tokens"].is_null()), "nothing erased before: {:?}", saved.borrow());
}

/// What is saved names the server the tokens are for: restored into a client of another server
/// (one storage key for every server), they are dropped, and its first request carries no token
/// of the first server's; saved before the server was recorded, the access token is withheld and
/// the refresh token gets one for this server at the first refusal, without the user (review F1,
/// s27e).
#[test]
fn saved_tokens_go_only_to_the_server_they_were_saved_for() {
    let world = World::new(Config::default());
    let (first, _, saved) = oauth(&world, opts());
    block_on(first.on_refused(&refusal(&world, None))).unwrap().unwrap();
    let kept = saved.borrow().last().cloned().unwrap();
    assert_eq!(kept["server"], MCP);

    // Another server: no token; the client (its authorization server's) is kept.
    for other in ["https://other.example/api/mcp", "https://mcp.example/api/other", "https://mcp.example/api/mcp?tenant=b", "https://mcp.example/api"] {
        let (o, _, _) = oauth_at(&world, other, OAuthOptions { saved: Some(kept.clone()), ..opts() });
        assert!(o.headers().is_empty(), "{other}");
        assert!(o.tokens.borrow().is_none(), "{other}: its refresh token is the first server's too");
        assert!(o.registration.borrow().is_some(), "{other}");
    }
    // The same server, spelled with a trailing slash or its host's case: its token.
    for same in [MCP, "https://mcp.example/api/mcp/", "https://MCP.example/api/mcp"] {
        let (o, _, _) = oauth_at(&world, same, OAuthOptions { saved: Some(kept.clone()), ..opts() });
        assert_eq!(bearer_of(&o.headers()), "access-0", "{same}");
    }

    // Saved without `server`: the access token is not sent; the first refusal's discovery finds the
    // issuer the tokens are from, and the refresh token gets a token for this server.
    let mut legacy = kept.clone();
    legacy.as_object_mut().unwrap().remove("server");
    let (o, asked, saved) = oauth(&world, OAuthOptions { saved: Some(legacy), ..opts() });
    assert!(o.headers().is_empty());
    assert_eq!(bearer_of(&block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap()), "access-1");
    assert!(asked.borrow().is_empty());
    assert_eq!(bearer_of(&o.headers()), "access-1");
    let last = saved.borrow().last().cloned().unwrap();
    assert_eq!((&last["server"], &last["tokens"]["access_token"]), (&json!(MCP), &json!("access-1")));
}

/// Saved with neither the server nor the authorization server the tokens are from (before both
/// were recorded): nothing can tell whether the authorization server this server names issued
/// them, so neither its refresh token nor its client goes there; the user signs in again, and what
/// is saved then names both (review s27r1 F1).
#[test]
fn saved_with_neither_server_nor_issuer_is_not_used() {
    let world = World::new(Config::default());
    let saved = json!({"client": {"client_id": "client-of-another"}, "tokens": {"access_token": "other-access", "refresh_token": "other-refresh", "token_type": "Bearer"}});
    let (o, asked, onsaved) = oauth(&world, OAuthOptions { saved: Some(saved), ..opts() });
    assert!(o.headers().is_empty());
    assert_eq!(bearer_of(&block_on(o.clone().on_refused(&refusal(&world, None))).unwrap().unwrap()), "access-0");
    assert_eq!(asked.borrow().len(), 1, "the user signs in");
    for r in &world.state.borrow().log {
        let sent = format!("{} {}", r.url, r.body.as_deref().unwrap_or(""));
        assert!(!sent.contains("other-refresh") && !sent.contains("client-of-another"), "{sent}");
    }
    let last = onsaved.borrow().last().cloned().unwrap();
    assert_eq!((&last["server"], &last["issuer"]), (&json!(MCP), &json!("https://auth.example/tenant")));
    assert_ne!(last["client"]["client_id"], "client-of-another");

    // A client given stays (it is the app's, not the state's).
    let saved = json!({"client": {"client_id": "given"}, "tokens": {"access_token": "other-access", "refresh_token": "other-refresh"}});
    let (o, _, _) = oauth(&world, OAuthOptions { saved: Some(saved), client_id: Some("given".into()), ..opts() });
    assert!(o.tokens.borrow().is_none());
    assert_eq!(o.registration.borrow().as_ref().map(|r| r.id.as_str()), Some("given"));
}

/// The URL of a metadata GET is the server's (the issuer its resource metadata names, the
/// metadata a challenge names, a redirect's target): a message that names it, when it answers
/// 5xx or cannot be reached, has it escaped and cut; the `url` detail keeps it as it was.
#[test]
fn a_metadata_url_the_server_gave_is_escaped_and_cut_in_messages() {
    let issuer = format!("https://auth.example/\u{202e}{}", "x".repeat(500_000));
    let path = &issuer["https://auth.example/".len()..];
    let at = |url: String| -> &'static str { Box::leak(url.into_boxed_str()) };
    let meta = at(format!("https://auth.example/.well-known/oauth-authorization-server/{path}"));
    let everywhere = vec![meta, at(format!("https://auth.example/.well-known/openid-configuration/{path}")), at(format!("{issuer}/.well-known/openid-configuration"))];
    let prm = json!({"resource": MCP, "authorization_servers": [issuer]});
    for down in [false, true] {
        let mut config = Config { prm: prm.clone(), ..Config::default() };
        if down {
            // Not reached at any of its well-known URLs (one that answered would be taken for a
            // server without metadata).
            config.unreachable = everywhere.clone();
        } else {
            config.failing = vec![(meta, 503)];
        }
        let world = World::new(config);
        let (o, _, _) = oauth(&world, opts());
        let e = block_on(o.on_refused(&refusal(&world, None))).unwrap_err();
        let said = if down { "could not be reached" } else { "answered HTTP 503" };
        assert!(e.message.contains(said) && e.message.contains("\\u202exxx") && e.message.contains("characters in all)"), "{}", &e.message[..e.message.len().min(400)]);
        assert!(!e.message.contains('\u{202e}') && e.message.len() < 1000, "{} bytes: {}", e.message.len(), &e.message[..e.message.len().min(400)]);
        assert_eq!(e.details.as_ref().unwrap()["url"], meta);
    }
}
