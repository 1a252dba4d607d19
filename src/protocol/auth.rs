//! OAuth 2.1 for the client, as MCP's authorization (revisions 2025-03-26 to 2026-07-28)
//! describes it: an [`OAuth`] is the client's unauthorized handler
//! ([`Client::set_unauthorized_handler`](crate::protocol::client::Client::set_unauthorized_handler)).
//!
//! On a 401 (or a 403 with `error="insufficient_scope"`, which asks for more scopes):
//! * the protected resource's metadata (RFC 9728) is read from the challenge's
//!   `resource_metadata` (of another origin than the server's, only at the well-known
//!   `/.well-known/oauth-protected-resource` path), else from `/.well-known/oauth-protected-resource`
//!   under the server's path, then at its root; it names the authorization servers (the one of
//!   [`OAuthOptions::issuer`] when given: only that one), and its `resource`, which it must have, must be the
//!   server's URL or one of its origin with a path the server's is at or under (RFC 9728 3.3, as
//!   the official SDKs read it; both as the transport's URL parser writes them) and no query but the server's (the well-known URL keeps the
//!   server's query, RFC 9728 3.1), without a fragment (RFC 8707 2). Without any (a 2025-03-26 server), the server's origin is the
//!   authorization server. Discovery runs at every authorization: a server may move to another one;
//! * the authorization server's metadata (RFC 8414, OpenID Connect Discovery) is read from the
//!   well-known URLs in the order the 2025-11-25 revision gives; it must name the issuer it was
//!   asked for (a trailing slash aside: its own spelling is then the issuer), and its endpoints must be http(s) URLs without a fragment (RFC 6749 3.1). Without any (not found, not a JSON object), the
//!   next of the resource's `authorization_servers` is tried, of its first three (not with a `client_secret` given
//!   without [`OAuthOptions::issuer`]: the secret goes to the first alone); none having any is an error, since
//!   the endpoints and the support of PKCE cannot be confirmed (2025-11-25: the client must then
//!   not go on). Only a server without resource metadata (2025-03-26) has the defaults
//!   `/authorize`, `/token`, `/register` at its origin. A URL that cannot be reached
//!   counts as one that is not there when another answered (in a browser a 404 page without
//!   CORS headers is a network error), and is the error when none did, or when it is the
//!   `resource_metadata` the challenge names. A document that is not there is a 404 (any status
//!   but 2xx, 3xx, 408, 429 and 5xx); one answered 5xx, 408 or 429 may be there: that is the
//!   error (`status`), never a reason to guess endpoints nor to take another authorization server;
//! * of the resource's authorization servers, the one the credentials held are from comes first;
//!   its metadata failing (unreachable, 5xx) is the error, the credentials kept for a later try;
//! * no URL the server's metadata names (the resource metadata, the authorization server, its
//!   endpoints) is in a more private address space than the server's own (a public server cannot
//!   send the user's browser into their local network or to their machine: loopback and private
//!   addresses and local names), nor plain http but on a loopback host or the host of a server
//!   itself reached over plain http; a metadata document's redirects are followed one at a time,
//!   each held to these two rules (a browser, which hides where a redirect goes, follows them
//!   itself), not to the well-known path a challenge's `resource_metadata` of another origin must
//!   have: metadata may move to another host (a CDN, a canonical path), and a GET it leads to is
//!   no more than the POSTs a server's metadata can already name (its `registration_endpoint`).
//!   A refusal names its rule in `oauthRefused`;
//! * the client and tokens held are for one issuer: a server naming another gets neither (a
//!   client given with `client_id` is then an error: it is registered with the first); they are
//!   set aside, not erased, and stay what is saved until the other one issues tokens (the server's
//!   metadata may be gone for a moment, the other may fail), held again if it names theirs again;
//! * a refresh token, when there is one and the server did not ask for new scopes (a step-up, or
//!   a 401 whose `scope` names some the tokens were not granted: a refresh cannot add them), is
//!   spent first: refused, the tokens are dropped (and a client the server does not know) and the
//!   user is asked; unreachable, failing (5xx), busy (408, 429) or cut off, the tokens stay and
//!   that is the error. A request refused again with the tokens just given for it (`retried`) has
//!   a step-up after a 401, and the user's authorization when a refreshed token was refused;
//!   nothing more. Across requests, as the official SDK's transport has it (a 401 after an
//!   authorization is not answered by another): a request refused with 401 while the token held
//!   is one the server refused at once (`refusedAtOnce`, see
//!   [`AuthHandler`]), with which no request succeeded since, is an `UNAUTHORIZED` error with
//!   `credentialsRefused`, without a refresh nor the user: a server that refuses every token
//!   would have the user sign in once per request. So for a step-up not granted: a 403
//!   `insufficient_scope` to the request sent again with its token with the challenge the step-up
//!   was for (`retried` and `refusedAtOnce`), and a later request's 403 with that challenge
//!   (`refusedAtOnce`, until a request succeeds), is an `UNAUTHORIZED` error with
//!   `credentialsRefused` that names the scopes asked for and granted, as the official SDK's
//!   transport has it (it remembers the challenge it stepped up for); another challenge (a
//!   server that names the scopes it misses one at a time) is another step-up. The app's
//!   `connect()` (or `close()` and a use after it) asks again;
//! * the client is the one given (`client_id`, `client_secret`), else its metadata document's URL
//!   when the server takes one (`client_id_metadata_document_supported`), else registered
//!   dynamically (RFC 7591, with OpenID Connect's `application_type`) at the
//!   `registration_endpoint`;
//! * the scopes asked for are the challenge's `scope`, else the resource's `scopes_supported`,
//!   else the configured `scope`, else none; a step-up adds those granted; `offline_access` is
//!   added to them where the authorization server lists it (for a refresh token), and with it
//!   (added or configured) the authorization request carries `prompt=consent` (OpenID Connect Core 11);
//! * the authorization server must support the code flow with PKCE S256 (its metadata's
//!   `code_challenge_methods_supported`, and `response_types_supported` when named), checked
//!   before a client is registered;
//! * the authorization request carries PKCE (S256), a random `state` and the resource indicator
//!   (RFC 8707, when the resource published metadata). The host's `authorize` callback takes the
//!   user there and gives back the URL the server redirected to; its `state` and `iss` (RFC 9207,
//!   compared unnormalized) are checked and its `code` exchanged at the token endpoint with the
//!   client's authentication method (`client_secret_basic`, `client_secret_post` or `none`, from
//!   what the server supports). Only Bearer tokens are taken (a `token_type` left out, which
//!   RFC 6749 requires, is taken as Bearer), and only of visible ASCII (an access
//!   token that cannot go in a header is refused at the token step; one restored from `saved` is
//!   dropped, as is one of another type, and the next 401 authorizes again);
//! * the issuer, the client's registration, the tokens and the server they are for are handed to
//!   the host's `saved` callback, to be restored with [`OAuthOptions::saved`] on the next page
//!   load (tokens saved for another server are dropped; saved without a server, their access
//!   token is withheld until a refusal's discovery and refresh; saved without a server or an
//!   issuer, neither tokens nor client are used).
//!
//! A client that acts for itself ([`OAuthOptions::client_credentials`]) gets its tokens from the
//! token endpoint with its own credentials instead, after the same discovery.
//!
//! Requests that meet a 401 together share one authorization, held weakly: when no request
//! waits for it any more (their timeouts, an abort, `close()`), it is dropped with the host's
//! `authorize`, and the next refusal starts afresh. A request the authorization server acts on
//! (a registration, a token request: a refresh whose refresh token it rotates, a code the user
//! granted) is not dropped once sent: with a spawner ([`OAuth::set_background`]) it runs to its
//! end in the background, within [`SETTLE_TIMEOUT_MS`], and what it brings is kept and saved; the
//! next authorization waits for it, and tokens it kept that no request was given are the next
//! refusal's answer. A step-up that joined another request's authorization runs its
//! own after it unless that one got its scopes or was a step-up for the same challenge (the
//! request is sent again with its token: granted, or declined as that one's is, the user asked
//! once): authorizations run one at a time (one consent
//! asked at a time), each step-up asking for the scopes granted before it and its own. Every failure but an abort (`ABORTED`) is an
//! `UNAUTHORIZED` error whose message starts with `OAuth` and says which step failed
//! (`oauthStep`; a token refused at once, above: `credentialsRefused` instead), with the server's `error` and `error_description` when it sent them
//! (`oauthError`, `oauthErrorDescription`).

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use futures_util::future::{select, FutureExt, Shared, WeakShared};
use serde_json::{Map, Value};

use crate::error::{Error, ErrorCode, Result};
use crate::model::{object, read_json, string, Borrowed as _, Put as _};
use crate::protocol::budget::{server_of, Collected, Refusal};
use crate::protocol::client::{parse_www_authenticate, scope_challenge, AuthHandler, Spawner};
use crate::protocol::legacy_sse::Sleep;
use crate::protocol::transport::{Body, HttpRequest, Method, Transport, TransportError};
use crate::schema::refs::percent_decode;
use crate::text::Owned as _;

/// Takes the user to the authorization URL and resolves to the URL the authorization server
/// sent them back to (the redirect URI with `code` and `state`): called with `{url, state,
/// scope}`.
pub type Authorize = Box<dyn Fn(&Value) -> Pin<Box<dyn Future<Output = Result<String>>>>>;

/// Told `{issuer, client, tokens, server}` whenever one changes, to keep them for the next session.
pub type Saved = Box<dyn Fn(&Value)>;

/// Fills a buffer with cryptographically secure random bytes.
pub type Random = Box<dyn Fn(&mut [u8]) -> Result<()>>;

/// How the client authorizes itself.
#[derive(Debug, Clone, Default)]
pub struct OAuthOptions {
    /// The redirect URI registered for the client (where `authorize` expects the user back).
    pub redirect_url: String,
    /// A client registered beforehand.
    pub client_id: Option<String>,
    /// Its secret, if it has one.
    pub client_secret: Option<String>,
    /// The URL of the client's metadata document, used as its `client_id` where the
    /// authorization server takes one (Client ID Metadata Documents, 2025-11-25).
    pub client_metadata_url: Option<String>,
    /// Fields for dynamic registration, over toolwire's (`client_name`, `redirect_uris`,
    /// `grant_types`, `response_types`, `token_endpoint_auth_method`).
    pub client_metadata: Map<String, Value>,
    /// Scopes to ask for when neither the server's challenge nor its metadata names any.
    pub scope: Option<String>,
    /// `{issuer?, client?, tokens?, server?}` as given to [`Saved`] before: the registration and
    /// the tokens to start with (those of another server dropped).
    pub saved: Option<Value>,
    /// The client acts for itself, with no user (RFC 6749 4.4's `client_credentials` grant: a
    /// service, a CI job): tokens come from the token endpoint alone, for the client given.
    pub client_credentials: bool,
    /// The issuer identifier of the one authorization server to use (a trailing slash aside):
    /// the one of the resource's `authorization_servers` that it is, and an error before anything
    /// is sent to another (no refresh token, registration, code or secret). Saved credentials of
    /// another issuer are not used.
    pub issuer: Option<String>,
}

/// A registered client.
#[derive(Debug, Clone, PartialEq)]
struct Registration {
    id: String,
    secret: Option<String>,
    /// The `token_endpoint_auth_method` it was registered with.
    method: Option<String>,
}

/// Tokens from the token endpoint.
#[derive(Debug, Clone, PartialEq)]
struct Tokens {
    access: String,
    refresh: Option<String>,
    /// The token endpoint's answer as it came (what [`Saved`] is given), with the scopes asked
    /// for as its `scope` when it names none (RFC 6749 5.1: then they were granted).
    raw: Value,
}

impl Tokens {
    fn scope(&self) -> Option<&str> {
        self.raw.get("scope").and_then(Value::as_str)
    }
}

/// What discovery found: the authorization server's endpoints and what it supports.
#[derive(Debug, Clone, Default)]
struct Discovered {
    /// The authorization server's issuer identifier.
    issuer: String,
    /// Whether the issuer must come back as the redirect's `iss` (RFC 9207).
    iss_in_response: bool,
    /// The authorization server lists `offline_access` among its scopes.
    offline_access: bool,
    /// The resource indicator, when the resource published metadata.
    resource: Option<String>,
    /// The resource's `scopes_supported`, space-separated.
    scopes: Option<String>,
    authorization_endpoint: String,
    token_endpoint: String,
    registration_endpoint: Option<String>,
    /// `token_endpoint_auth_methods_supported`.
    auth_methods: Vec<String>,
    /// `code_challenge_methods_supported`, when the server published metadata.
    pkce_methods: Option<Vec<String>>,
    /// `response_types_supported`, when the metadata names it.
    response_types: Option<Vec<String>>,
    client_id_metadata: bool,
}

/// An authorization under way: new headers, or why not.
type FlowFuture = Pin<Box<dyn Future<Output = Result<Option<Vec<(String, String)>>>>>>;
type Flow = Shared<FlowFuture>;

/// Credentials set aside: their issuer, client and tokens ([`OAuth::discover`]).
type Aside = (String, Option<Registration>, Option<Tokens>);

/// A request to the authorization server run to its end in the background, within
/// [`SETTLE_TIMEOUT_MS`] ([`OAuth::settle`]).
type SettlingFuture = Pin<Box<dyn Future<Output = ()>>>;
type Settling = Shared<SettlingFuture>;

/// A metadata document's fate.
enum Fetched {
    Found(Value),
    /// Not there: a status that is neither 2xx nor one of [`Fetched::Failing`]'s, or not a JSON object.
    Missing,
    /// No response (in a browser, a CORS refusal of an error page looks the same).
    Unreachable(Error),
    /// An answer that says the document could not be served now (5xx, 408, 429): it may be there,
    /// so it is no reason to guess endpoints or to take another authorization server.
    Failing(Error),
}

/// OAuth 2.1 authorization of an MCP client (see the module's documentation).
pub struct OAuth<T> {
    transport: T,
    server_url: String,
    opts: OAuthOptions,
    /// `None` with `client_credentials`.
    authorize: Option<Authorize>,
    saved: Option<Saved>,
    random: Random,
    registration: RefCell<Option<Registration>>,
    tokens: RefCell<Option<Tokens>>,
    /// The issuer the registration and tokens are from: a server that names another one gets
    /// neither (they are credentials for that server alone).
    issuer: RefCell<Option<String>>,
    /// The tokens held were restored from a `saved` that names no server (saved before it was
    /// recorded): they may be another server's, so their access token is not sent; the next
    /// refusal's discovery finds the issuer they are from, and their refresh token gets one for
    /// this server.
    withheld: Cell<bool>,
    /// The credentials of the issuer the server named before it named another (its issuer, client
    /// and tokens): set aside, not erased, until the other one issues tokens (what is saved till
    /// then), and held again if the server names theirs again (its metadata gone for a moment).
    aside: RefCell<Option<Aside>>,
    /// The authorization under way, which every request that meets a 401 meanwhile awaits;
    /// held weakly: once no request waits for it, it is dropped (and the host's `authorize`
    /// with it), and the next refusal starts afresh.
    flow: RefCell<Option<WeakShared<FlowFuture>>>,
    /// The challenge ([`scope_challenge`]) of the 403 the authorization under way is a step-up for, if it is one.
    flow_for: RefCell<Option<String>>,
    /// Whether the client given (`client_id`) is known to be the issuer's held: saved with it, or
    /// used with it in this session. Saved credentials of another client say nothing of it.
    client_tied: Cell<bool>,
    /// Authorizations that were finished (new tokens).
    issued: Cell<u64>,
    /// Whether the tokens held came from a refresh: refused at once (`retried`), the user is asked
    /// rather than the refresh token spent again for another token the server refuses.
    refreshed: Cell<bool>,
    /// How many of those a request was given (their headers): tokens kept since, by a request
    /// to the authorization server that nobody waited for any more, are given to the next refusal.
    delivered: Cell<u64>,
    /// Runs requests to the authorization server to their end in the background
    /// ([`OAuth::set_background`]).
    background: RefCell<Option<(Spawner, Sleep)>>,
    /// The request to the authorization server running in the background, if one is: the next
    /// authorization waits for it (for the refresh token it may rotate).
    settling: RefCell<Option<WeakShared<SettlingFuture>>>,
}

/// The largest metadata document or authorization server answer read: a larger one is
/// `LIMIT_EXCEEDED` (never read in part).
const MAX_BODY: usize = 1 << 20;

/// Redirects of a metadata document followed at most.
const MAX_REDIRECTS: usize = 5;

/// The resource's `authorization_servers` tried at most, in order (the one of the credentials held
/// first): RFC 9728 7.6 leaves the choice to the client, and each costs a few requests, on every
/// authorization, to hosts the server names.
const MAX_AUTHORIZATION_SERVERS: usize = 3;

/// How long a request to the authorization server (a registration, a token request) goes on in
/// the background once no request waits for it.
pub const SETTLE_TIMEOUT_MS: u64 = 60_000;

fn failure(step: &str, message: impl Into<String>) -> Error {
    Error::new(ErrorCode::Unauthorized, format!("OAuth {step}: {}", message.into())).with_detail("oauthStep", step)
}

/// A discovery that a rule of toolwire's refuses, the rule named in `oauthRefused`:
/// `metadata-origin`, `private-network`, `cleartext`, `resource-mismatch`, `issuer-mismatch`.
fn refused(rule: &str, message: impl Into<String>) -> Error {
    failure("discovery", message).with_detail("oauthRefused", rule)
}

/// Issuer identifiers compared as RFC 8414 asks, but for a trailing slash.
fn same_issuer(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

impl<T: Transport + 'static> OAuth<T> {
    /// An authorization for the MCP server at `server_url`, over `transport`.
    pub fn new(transport: T, server_url: impl Into<String>, opts: OAuthOptions, authorize: Option<Authorize>, saved: Option<Saved>, random: Random) -> Result<Rc<Self>> {
        // As the requests reach it (`/café/mcp` is `/caf%C3%A9/mcp`, `/x/../mcp` is `/mcp`, `127.1`
        // is `127.0.0.1`): the URL the resource metadata's `resource` is compared with.
        let server_url = server_url.into();
        let server_url = transport.url_href(&server_url).unwrap_or(server_url);
        if opts.client_credentials {
            if opts.client_id.is_none() || opts.client_secret.is_none() {
                return Err(Error::new(ErrorCode::InvalidOptions, "oauth: the client_credentials grant needs clientId and clientSecret"));
            }
        } else if authorize.is_none() {
            return Err(Error::new(ErrorCode::InvalidOptions, "oauth.authorize is required (or the client_credentials grant)"));
        } else {
            check_redirect_url(&opts.redirect_url)?;
        }
        // A secret is a given client's: alone it would be dropped for a client registered now.
        if opts.client_secret.is_some() && opts.client_id.is_none() {
            return Err(Error::new(ErrorCode::InvalidOptions, "oauth.clientSecret needs clientId: the secret is the secret of a client registered beforehand"));
        }
        if let Some(url) = &opts.client_metadata_url {
            check_client_metadata_url(url)?;
        }
        let restored = opts.saved.clone().unwrap_or(Value::Null);
        // A part of another type (a store that kept `tokens` as a JSON string, say) is a mistake
        // to be told of: ignored, it would cost the user a sign-in and lose the client.
        for (part, what) in [("client", "an object ({client_id, ...})"), ("tokens", "an object ({access_token, ...})"), ("issuer", "a string"), ("server", "a string")] {
            let fits = match restored.get(part) {
                None | Some(Value::Null) => true,
                Some(v) if part == "issuer" || part == "server" => v.is_string(),
                Some(v) => v.is_object(),
            };
            if !fits {
                return Err(Error::new(ErrorCode::InvalidOptions, format!("oauth.saved.{part} must be {what}, as onSaved gave it, or null")));
            }
        }
        // The client given was saved with the issuer saved: it is that one's.
        let saved_client = restored.get("client").and_then(|c| c.get("client_id")).and_then(Value::as_str);
        let client_tied = opts.client_id.is_some() && saved_client == opts.client_id.as_deref();
        let mut registration = match (&opts.client_id, restored.get("client")) {
            (Some(id), _) => Some(Registration { id: id.clone(), secret: opts.client_secret.clone(), method: None }),
            (None, Some(c)) if c.is_object() => Some(registration_from(c).ok_or_else(|| Error::new(ErrorCode::InvalidOptions, "oauth.saved.client has no client_id"))?),
            _ => None,
        };
        let mut tokens = match restored.get("tokens") {
            Some(t) if t.is_object() => Some(tokens_from(t.clone(), None).ok_or_else(|| Error::new(ErrorCode::InvalidOptions, "oauth.saved.tokens has no access_token"))?),
            _ => None,
        };
        // An access token no request could carry (saved before such tokens were refused): dropped,
        // and the next 401 authorizes again (its answer replaces what was saved).
        if tokens.as_ref().is_some_and(|t| !sendable(&t.access)) {
            tokens = None;
        }
        // Nor one of another type than Bearer (a DPoP-bound token): sent as a bearer token it is
        // refused, and its refresh token needs the same proof.
        let bearer_type = match restored.get("tokens").and_then(|t| t.get("token_type")) {
            None | Some(Value::Null) => true,
            Some(Value::String(t)) => t.eq_ignore_ascii_case("bearer"),
            Some(_) => false,
        };
        if !bearer_type {
            tokens = None;
        }
        // Tokens are the server's they were saved for (`server`, compared as requests reach it):
        // restored for another (one key for every server), they are dropped, or the first request
        // would take its access token to this one. Saved without it, they are withheld.
        let mut issuer = restored.get("issuer").and_then(Value::as_str).map(str::to_owned);
        let withheld = match restored.get("server").and_then(Value::as_str) {
            Some(s) => {
                let s = transport.url_href(s).unwrap_or_else(|| s.to_owned());
                if !(resource_allowed(&server_url, &s) && resource_allowed(&s, &server_url)) {
                    tokens = None;
                }
                false
            }
            // Nor with the authorization server they are from: nothing could tell whether the one
            // this server names issued them, and its refresh token and client would go to any
            // server naming it. Neither is used: the user signs in again.
            None if issuer.is_none() => {
                tokens = None;
                if opts.client_id.is_none() {
                    registration = None;
                }
                false
            }
            None => tokens.is_some(),
        };
        if let Some(pin) = &opts.issuer {
            if split_url(pin).is_none() {
                return Err(Error::new(ErrorCode::InvalidOptions, "oauth.issuer must be an http(s) URL: the authorization server's issuer identifier"));
            }
        }
        // Credentials saved from another authorization server than the one pinned are not used.
        if let (Some(pin), Some(saved)) = (&opts.issuer, &issuer) {
            if !same_issuer(pin, saved) {
                tokens = None;
                if opts.client_id.is_none() {
                    registration = None;
                }
                issuer = None;
            }
        }
        Ok(Rc::new(Self {
            transport,
            server_url,
            opts,
            authorize,
            saved,
            random,
            registration: RefCell::new(registration),
            tokens: RefCell::new(tokens),
            issuer: RefCell::new(issuer),
            withheld: Cell::new(withheld),
            aside: RefCell::new(None),
            flow: RefCell::new(None),
            flow_for: RefCell::new(None),
            client_tied: Cell::new(client_tied),
            issued: Cell::new(0),
            refreshed: Cell::new(false),
            delivered: Cell::new(0),
            background: RefCell::new(None),
            settling: RefCell::new(None),
        }))
    }

    /// Has the requests the authorization server acts on (a registration, a token request) run
    /// to their end by `spawn` once sent, within [`SETTLE_TIMEOUT_MS`] (`sleep`), when no request
    /// waits for them any more (their timeouts, an abort, `close()`): what they bring is kept and
    /// handed to [`Saved`] (a refresh token the server rotated, a code the user granted, a client
    /// registered). Without it they are dropped with the authorization.
    pub fn set_background(&self, spawn: Spawner, sleep: Sleep) {
        *self.background.borrowed_mut() = Some((spawn, sleep));
    }

    /// Runs `op`, a request the authorization server acts on and what is kept of its answer, to
    /// its end: in the background when there is a spawner ([`OAuth::set_background`]), so that it
    /// is not dropped with the request that waits for it.
    fn settle<O: Clone + 'static>(&self, op: impl Future<Output = Result<O>> + 'static) -> Shared<Pin<Box<dyn Future<Output = Result<O>>>>> {
        let op = (Box::pin(op) as Pin<Box<dyn Future<Output = Result<O>>>>).shared();
        if let Some((spawn, sleep)) = self.background.borrowed().as_ref() {
            let bounded = select(op.clone(), sleep(SETTLE_TIMEOUT_MS));
            let task: Settling = (Box::pin(bounded.map(drop)) as SettlingFuture).shared();
            *self.settling.borrowed_mut() = task.downgrade();
            spawn(Box::pin(task));
        }
        op
    }

    /// `authorization: Bearer ...` for the tokens held, if any: the headers to start with.
    pub fn headers(&self) -> Vec<(String, String)> {
        if self.withheld.get() {
            return Vec::new();
        }
        self.tokens.borrowed().as_ref().map(|t| bearer(&t.access)).unwrap_or_default()
    }

    /// This authorization as the client's unauthorized handler.
    pub fn handler(self: &Rc<Self>) -> AuthHandler {
        let me = self.clone();
        Box::new(move |info: &Value| {
            let me = me.clone();
            let info = info.clone();
            Box::pin(async move { me.on_refused(&info).await })
        })
    }

    /// A request met 401 or 403 (`{status, challenge, wwwAuthenticate, retried?}`): new headers, or
    /// why not.
    async fn on_refused(self: Rc<Self>, info: &Value) -> Result<Option<Vec<(String, String)>>> {
        // Refused again with the tokens just given for it (`retried`, the status they answered): a
        // step-up after a 401 (a refresh cannot add scopes), or a refreshed token refused, which
        // the user replaces (spent again, the refresh token would bring another the server
        // refuses). Nothing more: the user was just asked, or the step-up had its try.
        // A step-up refused again with 403 `insufficient_scope` and the challenge it was for
        // (`refusedAtOnce`): the scopes were not granted. With another challenge (a server that
        // names the scopes it misses one at a time): another step-up.
        let status = info.get("status").and_then(Value::as_u64);
        let step_up_for = (status == Some(403) && asks_scope(info)).then(|| info.get("wwwAuthenticate").and_then(Value::as_str).map(scope_challenge)).flatten();
        match info.get("retried").and_then(Value::as_u64) {
            None => {}
            Some(401) if status == Some(403) => {}
            Some(_) if status == Some(401) && self.refreshed.get() => {}
            Some(403) if status == Some(403) && asks_scope(info) && info.get("refusedAtOnce") == Some(&Value::Bool(true)) => return Err(self.step_up_refused(info)),
            Some(403) if status == Some(403) && asks_scope(info) => {}
            Some(_) => return Ok(None),
        }
        loop {
            let running = self.flow.borrowed().as_ref().and_then(WeakShared::upgrade);
            let (flow, mine, same) = match running {
                // One under way is awaited, whatever it is for: authorizations run one at a time
                // (one consent at a time, each step-up asking for the scopes of those before it).
                Some(flow) => (flow, false, step_up_for.is_some() && *self.flow_for.borrowed() == step_up_for),
                None => {
                    let me = self.clone();
                    let info = info.clone();
                    let flow: Flow = (Box::pin(async move { me.authorize_once(&info).await }) as FlowFuture).shared();
                    *self.flow.borrowed_mut() = flow.downgrade();
                    *self.flow_for.borrowed_mut() = step_up_for.clone();
                    (flow, true, false)
                }
            };
            let out = flow.clone().await;
            if let Ok(Some(_)) = &out {
                self.delivered.set(self.issued.get());
            }
            {
                let mut slot = self.flow.borrowed_mut();
                if slot.as_ref().and_then(WeakShared::upgrade).is_some_and(|f| f.ptr_eq(&flow)) {
                    *slot = None;
                }
            }
            // A step-up that joined another request's authorization (a refresh, another step-up)
            // still needs its scopes unless that one got them: its own runs after it (after the
            // next one under way, if another request started one meanwhile), asking for those
            // granted and its own. Not when it joined a step-up for the same challenge: the
            // user was just asked for those scopes; with its token, the request sent again is
            // granted, or refused as that one's is (not one sign-in per request).
            if !mine && !same && out.is_ok() && !self.covers(info) {
                continue;
            }
            return out;
        }
    }

    /// Whether the tokens held have the scopes a 403 `insufficient_scope` asks for (always, for
    /// any other refusal).
    fn covers(&self, info: &Value) -> bool {
        let challenge = info.get("challenge");
        let param = |k: &str| challenge.and_then(|c| c.get(k)).and_then(Value::as_str);
        if param("error") != Some("insufficient_scope") {
            return true;
        }
        let tokens = self.tokens.borrowed();
        has_scopes(tokens.as_ref().and_then(Tokens::scope).unwrap_or(""), param("scope").unwrap_or(""))
    }

    async fn authorize_once(self: &Rc<Self>, info: &Value) -> Result<Option<Vec<(String, String)>>> {
        let status = info.get("status").and_then(Value::as_u64).unwrap_or(401);
        let challenge = challenge_of(info);
        let param = |k: &str| challenge.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
        let step_up = param("error").as_deref() == Some("insufficient_scope");
        if status == 403 && !step_up {
            return Ok(None);
        }
        // A request to the authorization server that an earlier authorization left running (no
        // request waited for it any more): its answer first (a refresh token it rotated).
        let running = self.settling.borrowed().as_ref().and_then(WeakShared::upgrade);
        if let Some(running) = running {
            running.await;
        }
        // Tokens it kept, which no request was given: those, if they serve.
        if self.issued.get() > self.delivered.get() && self.covers(info) {
            if let Some(t) = self.tokens.borrowed().as_ref() {
                return Ok(Some(bearer(&t.access)));
            }
        }
        // The token held was refused as soon as it was obtained, and no request has succeeded
        // with it since (`refusedAtOnce`): a server that refuses every token would have the user
        // sign in (and the refresh token spent) for every request. It is the error until a request
        // succeeds or the app connects again.
        // So for a 403 with the challenge a step-up was refused with (`refusedAtOnce`): the
        // authorization server did not grant the scopes, and would not for every request (as the
        // official SDK's transport has it).
        if info.get("refusedAtOnce") == Some(&Value::Bool(true)) {
            return Err(if status == 401 { self.refused_at_once(info) } else { self.step_up_refused(info) });
        }
        let discovered = self.discover(param("resource_metadata")).await?;
        let granted = self.tokens.borrowed().as_ref().and_then(|t| t.scope().map(str::to_owned));
        // A 401 whose challenge names scopes the tokens held were not granted (MCP: the scopes to
        // ask for): a refresh cannot add them (RFC 6749 6), but the server may take its token all
        // the same (an authorization server may grant fewer than asked, a challenge may name more
        // than the server needs), so it is tried first; if its token is refused in turn, the user
        // is asked for those granted and those named, as for a step-up.
        let widen = step_up || (status == 401 && param("scope").zip(granted.as_deref()).is_some_and(|(wanted, granted)| !has_scopes(granted, &wanted)));
        // A refreshed token just refused (`retried`): the user, not another refresh.
        let retried = info.get("retried").is_some();
        // A refresh gets a new access token for the scopes granted; a step-up needs the user.
        let refresh = if step_up || retried { None } else { self.tokens.borrowed().as_ref().and_then(|t| t.refresh.clone()) };
        if let Some(refresh) = refresh {
            match self.refresh(&discovered, &refresh).await {
                Ok(headers) => return Ok(Some(headers)),
                // The server unreachable or failing: that may pass, the tokens stay.
                Err(e) if may_pass(&e) => return Err(e),
                // Refused (expired, revoked, an unknown client): the user authorizes again.
                Err(e) => {
                    *self.tokens.borrowed_mut() = None;
                    self.forget_client_if_refused(&e);
                    self.save();
                }
            }
        }
        let mut scope = param("scope").or_else(|| discovered.scopes.clone()).or_else(|| self.opts.scope.clone());
        // A step-up keeps what was granted: asking only for the new scopes would lose the others.
        if widen {
            scope = union(granted.as_deref(), scope.as_deref());
        }
        // A refresh token, where the server gives one only when asked (OpenID Connect).
        // Only next to other scopes: a server applies its default ones when none are asked for.
        if discovered.offline_access && !self.opts.client_credentials && scope.is_some() {
            scope = union(scope.as_deref(), Some("offline_access"));
        }
        // What the code flow needs, checked before a client is registered for it.
        if !self.opts.client_credentials {
            code_flow_supported(&discovered)?;
        }
        let client = self.client(&discovered).await?;
        if self.opts.client_credentials {
            let mut grant = vec![("grant_type", "client_credentials".owned())];
            grant.extend(scope.map(|s| ("scope", s)));
            grant.extend(discovered.resource.iter().map(|r| ("resource", r.clone())));
            let (me, d) = (self.clone(), discovered.clone());
            let exchanged = self.settle(async move {
                let tokens = me.token_request(&d, &client, grant, None, None).await?;
                Ok(me.keep(tokens, false))
            });
            return exchanged.await.map(Some);
        }
        let out = self.authorization_code(&discovered, &client, scope).await;
        if let Err(e) = &out {
            self.forget_client_if_refused(e);
        }
        out.map(Some)
    }

    /// The error of a request refused with 401 while the token held is one the server refused as
    /// soon as it was obtained (see [`OAuth::authorize_once`]): `UNAUTHORIZED` with
    /// `credentialsRefused`, the status and the challenge.
    fn refused_at_once(&self, info: &Value) -> Error {
        let mut e = Error::new(
            ErrorCode::Unauthorized,
            format!(
                "OAuth: the server {} refused the token obtained for it as soon as it was given (HTTP 401 to the request sent again with it), and has taken it for no request since: the user is not asked to sign in again for every request; call connect() to sign in again (a hub: closeAll(), then use it)",
                self.server_url
            ),
        )
        .with_detail("status", 401)
        .with_detail("credentialsRefused", true);
        if let Some(c) = info.get("challenge").filter(|c| c.is_object()) {
            e = e.with_detail("challenge", c.clone());
        }
        if let Some(w) = info.get("wwwAuthenticate").filter(|w| w.is_string()) {
            e = e.with_detail("wwwAuthenticate", w.clone());
        }
        e
    }

    /// The error of a 403 `insufficient_scope` to a request sent with the token of a step-up for
    /// it (or a later request refused the same way, `refusedAtOnce`): `UNAUTHORIZED` with
    /// `credentialsRefused`, the status and the challenge, and a message that names the scopes
    /// the server asks for and those granted.
    fn step_up_refused(&self, info: &Value) -> Error {
        let challenge = challenge_of(info);
        let wanted = challenge.get("scope").and_then(Value::as_str).filter(|s| !s.is_empty());
        let granted = self.tokens.borrowed().as_ref().and_then(|t| t.scope().map(str::to_owned));
        let mut e = Error::new(
            ErrorCode::Unauthorized,
            format!(
                "OAuth: the server {} asks for {} (HTTP 403 insufficient_scope) and refused the token of the sign-in that asked for it{}: the user is not asked to sign in again for every request; after a request that succeeds, or connect() (a hub: closeAll(), then use it), the next such refusal asks again",
                self.server_url,
                wanted.map_or_else(|| "more scopes".to_owned(), |w| format!("the scope {}", crate::text::server_text(w))),
                granted.map_or_else(String::new, |g| format!(" (the authorization server granted {})", crate::text::server_text(&g))),
            ),
        )
        .with_detail("status", 403)
        .with_detail("credentialsRefused", true);
        if challenge.is_object() {
            e = e.with_detail("challenge", challenge);
        }
        if let Some(w) = info.get("wwwAuthenticate").filter(|w| w.is_string()) {
            e = e.with_detail("wwwAuthenticate", w.clone());
        }
        e
    }

    /// A client the token endpoint does not know (`invalid_client`, `unauthorized_client`) is
    /// forgotten unless it was given: the next authorization registers again.
    fn forget_client_if_refused(&self, e: &Error) {
        let code = e.details.as_ref().and_then(|d| d.get("oauthError")).and_then(Value::as_str);
        if matches!(code, Some("invalid_client" | "unauthorized_client")) && self.opts.client_id.is_none() {
            *self.registration.borrowed_mut() = None;
            self.save();
        }
    }

    /// The authorization server's endpoints, discovered at every authorization: a server may
    /// move to another authorization server (whose client and tokens are then its own).
    async fn discover(&self, resource_metadata: Option<String>) -> Result<Discovered> {
        let (origin, path) = split_url(&self.server_url).ok_or_else(|| failure("discovery", format!("the server URL {} is not an http(s) URL", self.server_url)))?;
        let mut candidates: Vec<String> = Vec::new();
        let named = resource_metadata.filter(|u| split_url(u).is_some());
        if let Some(url) = &named {
            self.vet_metadata_url(url)?;
            candidates.push(url.clone());
        }
        // RFC 9728 3.1: the well-known path goes between the host and the path, the query kept.
        let query = query_of(&self.server_url).map_or_else(String::new, |q| format!("?{q}"));
        if (!path.is_empty() && path != "/") || !query.is_empty() {
            candidates.push(format!("{origin}/.well-known/oauth-protected-resource{}{query}", path.trim_end_matches('/')));
        }
        candidates.push(format!("{origin}/.well-known/oauth-protected-resource"));
        candidates.dedup();
        let prm = self.first_document(&candidates, usize::from(named.is_some())).await?;
        let mut found = Discovered::default();
        // The issuer of the credentials held (restored, or from an earlier authorization; set aside).
        let held = self.aside.borrowed().as_ref().map(|a| a.0.clone()).or_else(|| self.issuer.borrowed().clone());
        // The authorization servers to try, in order: the resource's (RFC 9728 7.6: the client
        // chooses), or the one pinned.
        let (issuers, from_resource) = match &prm {
            Some(doc) => {
                // RFC 9728 3.3 and 7.3: metadata that does not say it is this server's is not used (it
                // could be another resource's, naming another authorization server).
                let Some(resource) = doc.get("resource").and_then(Value::as_str) else {
                    return Err(refused(
                        "resource-mismatch",
                        "the protected resource's metadata names no resource (RFC 9728 requires it): it cannot be told to be this server's",
                    ));
                };
                // RFC 8707 2 (and RFC 9728 1.2): a resource indicator has no fragment.
                if resource.contains('#') {
                    return Err(refused(
                        "resource-mismatch",
                        format!("the protected resource's metadata names the resource {}, with a fragment, which a resource identifier must not have (RFC 8707 2)", shown(resource)),
                    ));
                }
                // Both as the transport's URL parser writes them, as the SDKs compare them.
                let read = self.transport.url_href(resource);
                if !resource_allowed(&self.server_url, read.as_deref().unwrap_or(resource)) {
                    return Err(refused(
                        "resource-mismatch",
                        format!(
                            "the protected resource's metadata names the resource {}, which is not the server {} (it must be the server's URL, or one of its origin with a path the server's is at or under, and no other query)",
                            shown(resource),
                            self.server_url
                        ),
                    ));
                }
                found.resource = Some(resource.owned());
                found.scopes = doc.get("scopes_supported").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" ")).filter(|s| !s.is_empty());
                let mut servers: Vec<&str> = doc.get("authorization_servers").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
                // The one the credentials held are from comes first when it is among them (RFC 9728
                // 7.6: the client chooses): its refresh token and client still serve.
                if let Some(i) = held.as_deref().and_then(|h| servers.iter().position(|s| same_issuer(s, h))) {
                    let s = servers.remove(i);
                    servers.insert(0, s);
                }
                // The one pinned, when it is among them (RFC 9728 7.6: the client chooses).
                let chosen = match &self.opts.issuer {
                    Some(pin) if !servers.is_empty() => match servers.iter().find(|s| same_issuer(s, pin)) {
                        Some(s) => vec![*s],
                        None => {
                            return Err(refused(
                                "issuer-mismatch",
                                format!("the protected resource's metadata names the authorization server {}, not oauth.issuer {pin}", listed(&servers)),
                            ))
                        }
                    },
                    // A client secret given without a pin is for the first: it must not reach
                    // another because the first did not answer.
                    _ if self.opts.client_secret.is_some() => servers.into_iter().take(1).collect(),
                    _ => servers.into_iter().take(MAX_AUTHORIZATION_SERVERS).collect(),
                };
                if chosen.is_empty() {
                    return Err(failure("discovery", "the protected resource's metadata names no authorization_servers"));
                }
                (chosen.into_iter().map(str::to_owned).collect::<Vec<_>>(), true)
            }
            // 2025-03-26: the MCP server's origin is the authorization server.
            None => (vec![origin.owned()], false),
        };
        // The first whose metadata can be read. Without any, a 2025-03-26 server (no resource
        // metadata) has the default endpoints; a later one's authorization server must publish
        // metadata: its endpoints and its PKCE support cannot be guessed (2025-11-25: a client
        // that cannot confirm PKCE must not go on).
        let mut chosen = None;
        let mut unreachable = None;
        let mut missing = Vec::new();
        for issuer in issuers {
            if split_url(&issuer).is_none() {
                return Err(failure("discovery", format!("the authorization server {} is not an http(s) URL", shown(&issuer))));
            }
            self.vet("authorization server", &issuer)?;
            match (self.authorization_server_metadata(&issuer).await, from_resource) {
                (Ok(Some(meta)), _) => {
                    chosen = Some((issuer, Some(meta)));
                    break;
                }
                (Ok(None), false) => {
                    chosen = Some((issuer, None));
                    break;
                }
                (Ok(None), true) => missing.push(issuer),
                // Not reached (a network error, an answer broken off, a 5xx): another may answer; when
                // none does, the first's error is the error. An abort, a limit or a refusal is the
                // error, and so is the failure of the one whose credentials are held: they are not
                // given up (nor another server taken) for what may pass.
                (Err(e), true)
                    if e.code == ErrorCode::Unauthorized
                        && e.details.as_ref().is_some_and(|d| d.get("url").is_some())
                        && !held.as_deref().is_some_and(|h| same_issuer(h, &issuer)) =>
                {
                    unreachable.get_or_insert(e);
                }
                (Err(e), _) => return Err(e),
            }
        }
        let (issuer, meta) = match (chosen, unreachable) {
            (Some(chosen), _) => chosen,
            (None, Some(e)) if missing.is_empty() || e.details.as_ref().is_some_and(|d| d.get("status").is_some()) => return Err(e),
            (None, _) => {
                return Err(failure(
                    "discovery",
                    format!(
                        "the authorization server{} {} that the protected resource's metadata names publish{} no metadata (RFC 8414 or OpenID Connect Discovery, at the well-known URLs: not found, or not a JSON object): the endpoints and the support of PKCE cannot be confirmed, and MCP's authorization then forbids going on (the 2025-03-26 default endpoints are only for a server without protected resource metadata)",
                        if missing.len() > 1 { "s" } else { "" },
                        listed(&missing),
                        if missing.len() > 1 { "" } else { "es" },
                    ),
                ));
            }
        };
        found.issuer = issuer.clone();
        if let Some(m) = &meta {
            let named = m.get("issuer").and_then(Value::as_str);
            // RFC 8414 3.3: metadata for another issuer must not be used. A 2025-03-26 server's
            // issuer is only guessed from its origin: the issuer its metadata names stands if it is
            // of that origin (a path, a trailing slash). One of another origin would pass for a
            // server the saved tokens or the given client belong to, and receive them.
            let same_origin = |n: &str| split_url(n).zip(split_url(&issuer)).is_some_and(|((a, _), (b, _))| a.eq_ignore_ascii_case(b));
            match named {
                // A trailing slash aside (`https://as.example/` listed for the issuer
                // `https://as.example`, as servers that write URLs through a URL type do): both
                // spellings have the same well-known URLs, so the document is the one asked for.
                // The metadata's own spelling stands, the one its redirects' `iss` carries (RFC 9207
                // compares strings).
                Some(n) if same_issuer(n, &issuer) => found.issuer = n.owned(),
                Some(n) if !from_resource && same_origin(n) => found.issuer = n.owned(),
                None if !from_resource => {}
                _ => {
                    return Err(refused("issuer-mismatch", format!("the metadata of the authorization server {} names the issuer {}", shown(&issuer), named.map_or_else(|| "(none)".owned(), shown))));
                }
            }
        }
        if let Some(pin) = self.opts.issuer.as_deref().filter(|pin| !same_issuer(pin, &found.issuer)) {
            return Err(refused("issuer-mismatch", format!("the server's authorization server is {}, not oauth.issuer {pin}", shown(&found.issuer))));
        }
        let issuer_origin = split_url(&issuer).map_or(issuer.as_str(), |(o, _)| o).owned();
        let endpoint = |key: &str, default: &str| -> Result<Option<String>> {
            match &meta {
                Some(m) => match m.get(key).and_then(Value::as_str) {
                    // Only http(s): the authorization endpoint is where the host sends the user.
                    Some(url) if split_url(url).is_none() => Err(failure("discovery", format!("the authorization server's {key} {} is not an http(s) URL", shown(url)))),
                    // RFC 6749 3.1, 3.2: an endpoint has no fragment (the parameters appended after one
                    // would never reach the server).
                    Some(url) if url.contains('#') => Err(failure("discovery", format!("the authorization server's {key} {} has a fragment, which an endpoint URL must not have (RFC 6749 3.1)", shown(url)))),
                    Some(url) => self.vet(key, url).map(|()| Some(url.owned())),
                    None => Ok(None),
                },
                None => Ok(Some(format!("{issuer_origin}{default}"))),
            }
        };
        found.authorization_endpoint = endpoint("authorization_endpoint", "/authorize")?.ok_or_else(|| failure("discovery", format!("{}'s metadata has no authorization_endpoint", shown(&issuer))))?;
        found.token_endpoint = endpoint("token_endpoint", "/token")?.ok_or_else(|| failure("discovery", format!("{}'s metadata has no token_endpoint", shown(&issuer))))?;
        found.registration_endpoint = endpoint("registration_endpoint", "/register")?;
        let strings = |key: &str| meta.as_ref().and_then(|m| m.get(key)).and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect::<Vec<_>>());
        let flag = |key: &str| meta.as_ref().and_then(|m| m.get(key)).and_then(Value::as_bool).unwrap_or(false);
        found.auth_methods = strings("token_endpoint_auth_methods_supported").unwrap_or_default();
        found.pkce_methods = meta.as_ref().map(|_| strings("code_challenge_methods_supported").unwrap_or_default());
        found.response_types = strings("response_types_supported");
        found.client_id_metadata = flag("client_id_metadata_document_supported");
        found.iss_in_response = flag("authorization_response_iss_parameter_supported");
        found.offline_access = strings("scopes_supported").is_some_and(|s| s.iter().any(|s| s == "offline_access"));
        // Credentials are for the server that issued them: another one gets neither. A client given
        // (`client_id`, and its secret) is the first issuer's it is used with: the server moving
        // elsewhere is an error. Saved with another client, the credentials held say nothing of it.
        // Those of another are set aside, not erased: the server may name theirs again (its
        // metadata not found for a moment), and another server may fail before it issues any.
        let known = self.issuer.borrowed().clone();
        let was_aside = self.aside.borrowed().is_some();
        if let Some(known) = known.filter(|k| !same_issuer(k, &found.issuer)) {
            if self.opts.client_id.is_some() && self.client_tied.get() {
                return Err(failure(
                    "discovery",
                    format!("the server now names the authorization server {}, but the client given (clientId) is {}'s", shown(&found.issuer), shown(&known)),
                ));
            }
            let tokens = self.tokens.borrowed_mut().take();
            let registration = if self.opts.client_id.is_none() { self.registration.borrowed_mut().take() } else { None };
            let mut aside = self.aside.borrowed_mut();
            match aside.take() {
                // Named again: its credentials are held again (those of the other, which issued no
                // tokens, are dropped).
                Some((issuer, registration, tokens)) if same_issuer(&issuer, &found.issuer) => {
                    *self.tokens.borrowed_mut() = tokens;
                    if self.opts.client_id.is_none() {
                        *self.registration.borrowed_mut() = registration;
                    }
                }
                Some(kept) => *aside = Some(kept),
                None => *aside = Some((known, registration, tokens)),
            }
        }
        self.client_tied.set(self.opts.client_id.is_some());
        let changed = self.issuer.borrowed().as_deref() != Some(found.issuer.as_str());
        *self.issuer.borrowed_mut() = Some(found.issuer.clone());
        // What is saved changes only when nothing is (or was) set aside.
        if changed && !was_aside && self.aside.borrowed().is_none() {
            self.save();
        }
        Ok(found)
    }

    /// The challenge's `resource_metadata`: of the server's origin, any; of another, only at the
    /// well-known location (RFC 9728 3.1), so that a server cannot have the user's browser GET
    /// any URL of any host; and, as every URL discovery goes to, [`vet`](Self::vet)ted.
    fn vet_metadata_url(&self, url: &str) -> Result<()> {
        // As `fetch` reads it: tabs and line breaks anywhere dropped (`.\t.` is `..`).
        let read = as_fetched(url);
        let same_origin = split_url(&read).zip(split_url(&self.server_url)).is_some_and(|((a, _), (b, _))| same_origin(a, b));
        if !same_origin && !split_url(&read).is_some_and(|(_, path)| well_known_metadata_path(path)) {
            return Err(refused(
                "metadata-origin",
                format!(
                    "the server's challenge names the resource metadata {}, of another origin than the server's and not at /.well-known/oauth-protected-resource (metadata of another origin is read only there)",
                    shown(url)
                ),
            ));
        }
        self.vet("resource_metadata", url)
    }

    /// A URL the server's metadata sends the client to (metadata, the authorization server, its
    /// endpoints): not into a more private address space than the server's, and not in the clear.
    fn vet(&self, what: &str, url: &str) -> Result<()> {
        self.refuse_inward(what, url)?;
        self.refuse_cleartext(what, url)
    }

    /// A server on the public internet sends the client nowhere on the user's local network or
    /// machine, and a server on a local network nowhere on the user's machine: in a browser every
    /// request discovery makes comes from the user's own machine, inside their network (a GET of
    /// a router's page, a POST to a local service), and the user is sent to the authorization
    /// endpoint. A server on this machine may send the client anywhere.
    fn refuse_inward(&self, what: &str, url: &str) -> Result<()> {
        // The host as the transport's own URL parser reads it when it has one (a browser's maps
        // look-alikes, soft hyphens, circled digits... to the ASCII it connects to); else as
        // written, with what fetch drops dropped, and a host still not ASCII refused below.
        let space = |u: &str| {
            let read = as_fetched(u);
            let host = match self.transport.url_host(&read) {
                Some(h) => h,
                None => host_of(split_url(&read)?.0).to_owned(),
            };
            address_space(&host)
        };
        let describe = |s: Space| match s {
            Space::Public => "on the public internet",
            Space::Private => "on a local network",
            Space::Loopback => "on this machine (loopback)",
        };
        // A server URL whose host cannot be placed is held to the public rule.
        let server = space(&self.server_url).unwrap_or(Space::Public);
        match space(url) {
            Some(target) if target <= server => Ok(()),
            Some(target) => Err(refused(
                "private-network",
                format!(
                    "the {what} {} is {}, but the server {} is {}: a server may send the client only to hosts as public as its own",
                    shown(url),
                    describe(target),
                    self.server_url,
                    describe(server)
                ),
            )),
            None => Err(refused("private-network", format!("the {what} {} has a host that is neither a name nor an address", shown(url)))),
        }
    }

    /// MCP (Communication Security, after OAuth 2.1 1.5): authorization server endpoints are
    /// served over HTTPS, since codes, secrets and tokens travel to them. Plain http is taken for
    /// a loopback host (which a server reached over https may name only when it is on this
    /// machine too, [`refuse_inward`](Self::refuse_inward)), and on the host of a server that is
    /// itself reached over plain http (a development machine, whose bearer tokens travel in the
    /// clear anyway).
    fn refuse_cleartext(&self, what: &str, url: &str) -> Result<()> {
        let Some(h) = cleartext_host(url) else { return Ok(()) };
        if is_loopback(h) || cleartext_host(&self.server_url).is_some_and(|s| s.eq_ignore_ascii_case(h)) {
            return Ok(());
        }
        Err(refused(
            "cleartext",
            format!("the {what} {} is plain http: authorization servers are reached over https (http only on a loopback host, or on the host of a server itself reached over http)", shown(url)),
        ))
    }

    /// RFC 8414 and OpenID Connect Discovery metadata of an issuer, from the first well-known URL
    /// that has it; `None` when none does.
    async fn authorization_server_metadata(&self, issuer: &str) -> Result<Option<Value>> {
        let (origin, path) = split_url(issuer).ok_or_else(|| failure("discovery", format!("the authorization server {} is not an http(s) URL", shown(issuer))))?;
        let path = path.trim_end_matches('/');
        let candidates = if path.is_empty() {
            vec![format!("{origin}/.well-known/oauth-authorization-server"), format!("{origin}/.well-known/openid-configuration")]
        } else {
            vec![
                format!("{origin}/.well-known/oauth-authorization-server{path}"),
                format!("{origin}/.well-known/openid-configuration{path}"),
                format!("{origin}{path}/.well-known/openid-configuration"),
            ]
        };
        let sure = if self.issuer.borrowed().as_deref().is_some_and(|h| same_issuer(h, issuer)) { candidates.len() } else { 0 };
        self.first_document(&candidates, sure).await
    }

    /// The first of these metadata documents there is; `None` when none is there; the first
    /// error when none could even be reached (a URL that cannot be reached is taken for one
    /// that is not there when another answered: in a browser, a 404 page without CORS headers
    /// is a network error), or when one answered that it failed (5xx, 408, 429: it may be there).
    /// The first `sure` URLs are there by someone's word (the challenge's `resource_metadata`; the
    /// authorization server of the credentials held, whose metadata was read before): one of them
    /// not reached is the error too.
    async fn first_document(&self, urls: &[String], sure: usize) -> Result<Option<Value>> {
        let (mut unreachable, mut failing) = (None, None);
        let mut answered = false;
        for (i, url) in urls.iter().enumerate() {
            match self.get_json(url).await? {
                Fetched::Found(doc) => return Ok(Some(doc)),
                Fetched::Missing => answered = true,
                Fetched::Unreachable(e) if i < sure => {
                    failing.get_or_insert(e);
                }
                Fetched::Unreachable(e) => {
                    unreachable.get_or_insert(e);
                }
                Fetched::Failing(e) => {
                    failing.get_or_insert(e);
                }
            }
        }
        match (failing, unreachable) {
            (Some(e), _) => Err(e),
            (None, Some(e)) if !answered => Err(e),
            _ => Ok(None),
        }
    }

    /// The client to authorize as: given, restored, a metadata document's URL, or registered now.
    async fn client(self: &Rc<Self>, d: &Discovered) -> Result<Registration> {
        if let Some(r) = self.registration.borrowed().clone() {
            return Ok(r);
        }
        if let (Some(url), true) = (&self.opts.client_metadata_url, d.client_id_metadata) {
            let registration = Registration { id: url.clone(), secret: None, method: Some("none".owned()) };
            *self.registration.borrowed_mut() = Some(registration.clone());
            self.save();
            return Ok(registration);
        }
        let Some(endpoint) = &d.registration_endpoint else {
            return Err(failure("registration", "the authorization server offers no dynamic registration (registration_endpoint): give oauth.clientId"));
        };
        let mut metadata = Map::new();
        metadata.put("client_name", string("toolwire"));
        metadata.put("redirect_uris", Value::Array(vec![self.opts.redirect_url.clone().into()]));
        metadata.put("grant_types", Value::Array(vec!["authorization_code".into(), "refresh_token".into()]));
        metadata.put("response_types", Value::Array(vec!["code".into()]));
        metadata.put("token_endpoint_auth_method", string("none"));
        metadata.put("application_type", application_type(&self.opts.redirect_url).into());
        // The scopes configured, not this authorization's: a server may hold a client to the scopes it
        // registered with (RFC 7591 2), and a step-up asks for more later.
        if let Some(scope) = &self.opts.scope {
            metadata.put("scope", scope.clone().into());
        }
        for (k, v) in &self.opts.client_metadata {
            metadata.insert(k.clone(), v.clone());
        }
        let req = HttpRequest {
            method: Method::Post,
            url: endpoint.clone(),
            headers: vec![("content-type".owned(), "application/json".owned()), ("accept".owned(), "application/json".owned())],
            body: Some(crate::text::to_string(&Value::Object(metadata))),
            follow_redirects: false,
        };
        let me = self.clone();
        // Kept (and saved) when no request waits any more: the server has registered it.
        self.settle(async move {
            let (status, location, body) = me.exchange("registration", req).await?;
            if !(200..300).contains(&status) {
                return Err(server_error("registration", status, location.as_deref(), &body));
            }
            let registration = body.as_ref().and_then(registration_from).ok_or_else(|| failure("registration", format!("the registration endpoint answered HTTP {status} without a client_id")).with_detail("status", status))?;
            *me.registration.borrowed_mut() = Some(registration.clone());
            me.save();
            Ok(registration)
        })
        .await
    }

    /// PKCE, `state`, the user's authorization through the host, and the code's exchange.
    async fn authorization_code(self: &Rc<Self>, d: &Discovered, client: &Registration, scope: Option<String>) -> Result<Vec<(String, String)>> {
        let verifier = base64url(&self.random_bytes(32)?);
        let state = base64url(&self.random_bytes(16)?);
        let challenge = base64url(&sha256(verifier.as_bytes()));
        let mut params = vec![
            ("response_type", "code".owned()),
            ("client_id", client.id.clone()),
            ("code_challenge", challenge),
            ("code_challenge_method", "S256".owned()),
            ("redirect_uri", self.opts.redirect_url.clone()),
            ("state", state.clone()),
        ];
        if let Some(s) = &scope {
            params.push(("scope", s.clone()));
            // OpenID Connect Core 11: without `prompt=consent`, the server must ignore
            // `offline_access` (or refuses the request), and issues no refresh token.
            if s.split_ascii_whitespace().any(|s| s == "offline_access") {
                params.push(("prompt", "consent".owned()));
            }
        }
        if let Some(r) = &d.resource {
            params.push(("resource", r.clone()));
        }
        let sep = if d.authorization_endpoint.contains('?') { '&' } else { '?' };
        let url = format!("{}{sep}{}", d.authorization_endpoint, form(&params));
        let request = object([("url", url.into()), ("state", state.clone().into()), ("scope", scope.clone().map_or(Value::Null, Value::String))]);
        let Some(authorize) = &self.authorize else { return Err(failure("authorization", "no authorize callback")) };
        let back = authorize(&request).await?;
        let query = query_params(&back);
        let get = |k: &str| query.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        if let Some(error) = get("error") {
            let mut e = failure("authorization", format!("the authorization server refused: {}{}", shown(&error), get("error_description").map_or_else(String::new, |d| format!(" ({})", shown(&d)))))
                .with_detail("oauthError", error);
            if let Some(d) = get("error_description") {
                e = e.with_detail("oauthErrorDescription", d);
            }
            return Err(e);
        }
        if get("state").as_deref() != Some(state.as_str()) {
            return Err(failure("authorization", "the redirect's state is not the one sent (a forged or stale redirect)"));
        }
        // RFC 9207: the issuer the redirect says it comes from (a mix-up attack sends another's).
        // Compared as strings, unnormalized (RFC 9207 2.4).
        match get("iss") {
            Some(iss) if iss != d.issuer => {
                return Err(failure("authorization", format!("the redirect comes from the issuer {}, not {}", shown(&iss), shown(&d.issuer))));
            }
            None if d.iss_in_response => return Err(failure("authorization", "the redirect lacks the iss its authorization server promises (RFC 9207)")),
            _ => {}
        }
        let code = get("code").filter(|c| !c.is_empty()).ok_or_else(|| failure("authorization", "the redirect carries no code"))?;
        let mut grant = vec![
            ("grant_type", "authorization_code".owned()),
            ("code", code),
            ("code_verifier", verifier),
            ("redirect_uri", self.opts.redirect_url.clone()),
        ];
        if let Some(r) = &d.resource {
            grant.push(("resource", r.clone()));
        }
        // Once sent, the code is spent: its tokens are kept when no request waits any more.
        let (me, d, client) = (self.clone(), d.clone(), client.clone());
        self.settle(async move {
            let tokens = me.token_request(&d, &client, grant, None, scope.as_deref()).await?;
            Ok(me.keep(tokens, false))
        })
        .await
    }

    /// A refresh-token grant.
    async fn refresh(self: &Rc<Self>, d: &Discovered, refresh: &str) -> Result<Vec<(String, String)>> {
        let Some(client) = self.registration.borrowed().clone() else {
            return Err(failure("token", "no client to refresh the token as"));
        };
        let mut grant = vec![("grant_type", "refresh_token".owned()), ("refresh_token", refresh.owned())];
        if let Some(r) = &d.resource {
            grant.push(("resource", r.clone()));
        }
        let granted = self.tokens.borrowed().as_ref().and_then(|t| t.scope().map(str::to_owned));
        // The server may rotate the refresh token as it answers: the new one is kept when no
        // request waits any more, or the next refresh would spend a revoked one.
        let (me, d, refresh) = (self.clone(), d.clone(), refresh.to_owned());
        self.settle(async move {
            let tokens = me.token_request(&d, &client, grant, Some(&refresh), granted.as_deref()).await?;
            Ok(me.keep(tokens, true))
        })
        .await
    }

    /// A token endpoint request, with the client's authentication.
    async fn token_request(&self, d: &Discovered, client: &Registration, mut params: Vec<(&str, String)>, refresh: Option<&str>, asked: Option<&str>) -> Result<Tokens> {
        let mut headers = vec![("content-type".owned(), "application/x-www-form-urlencoded".owned()), ("accept".owned(), "application/json".owned())];
        match (auth_method(client, &d.auth_methods), &client.secret) {
            ("client_secret_basic", Some(secret)) => {
                let pair = format!("{}:{}", form_component(&client.id), form_component(secret));
                headers.push(("authorization".owned(), format!("Basic {}", crate::protocol::headers::base64(pair.as_bytes()))));
            }
            ("client_secret_post", Some(secret)) => {
                params.push(("client_id", client.id.clone()));
                params.push(("client_secret", secret.clone()));
            }
            _ => params.push(("client_id", client.id.clone())),
        }
        let req = HttpRequest { method: Method::Post, url: d.token_endpoint.clone(), headers, body: Some(form(&params)), follow_redirects: false };
        let (status, location, body) = self.exchange("token", req).await?;
        // An error answered with a 2xx (GitHub's `bad_verification_code`, for one) is an error as
        // a 400 is (RFC 6749 5.2).
        let error = body.as_ref().and_then(|b| b.get("error")).is_some_and(Value::is_string);
        if !(200..300).contains(&status) || error {
            return Err(server_error("token", status, location.as_deref(), &body));
        }
        // RFC 6749 5.1 requires token_type; an answer without one is taken as Bearer (the token is
        // sent as one: a server that meant another refuses it), one naming another is refused.
        let token_type = match body.as_ref().and_then(|b| b.get("token_type")) {
            None | Some(Value::Null) => "Bearer".owned(),
            Some(Value::String(t)) => t.clone(),
            Some(other) => crate::text::to_string(other),
        };
        if !token_type.eq_ignore_ascii_case("bearer") {
            return Err(failure("token", format!("the token endpoint issued a {} token; toolwire sends Bearer tokens only", shown(&token_type))).with_detail("tokenType", token_type));
        }
        let mut tokens = body.and_then(|b| tokens_from(b, refresh)).ok_or_else(|| failure("token", format!("the token endpoint answered HTTP {status} without an access_token")).with_detail("status", status))?;
        // Kept, it would fail every request after (fetch refuses the header) without a 401 to renew it.
        if !sendable(&tokens.access) {
            return Err(failure(
                "token",
                "the token endpoint issued an access_token that cannot be sent in an Authorization header (a line break, a space, a control or non-ASCII character; RFC 6750 tokens are b64token)",
            ));
        }
        // No `scope` in the answer: the scopes asked for were granted (RFC 6749 5.1).
        if tokens.scope().is_none() {
            if let (Some(asked), Some(raw)) = (asked, tokens.raw.as_object_mut()) {
                raw.put("scope", asked.into());
            }
        }
        Ok(tokens)
    }

    /// Holds new tokens (`refreshed`: from a refresh), tells the host, and gives the header they make.
    fn keep(&self, tokens: Tokens, refreshed: bool) -> Vec<(String, String)> {
        let headers = bearer(&tokens.access);
        *self.tokens.borrowed_mut() = Some(tokens);
        // They replace the credentials set aside, of the issuer the server named before.
        *self.aside.borrowed_mut() = None;
        self.withheld.set(false);
        self.refreshed.set(refreshed);
        self.issued.set(self.issued.get() + 1);
        self.save();
        headers
    }

    fn save(&self) {
        if let Some(saved) = &self.saved {
            // Until the issuer the server names now issues tokens, the credentials set aside stay
            // what is saved (with a client given, that one).
            let aside = self.aside.borrowed();
            let (issuer, registration, tokens) = match aside.as_ref() {
                Some((i, r, t)) => (Some(i.clone()), if self.opts.client_id.is_none() { r.clone() } else { self.registration.borrowed().clone() }, t.clone()),
                None => (self.issuer.borrowed().clone(), self.registration.borrowed().clone(), self.tokens.borrowed().clone()),
            };
            let client = registration.as_ref().map_or(Value::Null, |r| {
                let mut m = Map::new();
                m.put("client_id", r.id.clone().into());
                if let Some(s) = &r.secret {
                    m.put("client_secret", s.clone().into());
                }
                if let Some(method) = &r.method {
                    m.put("token_endpoint_auth_method", method.clone().into());
                }
                Value::Object(m)
            });
            let tokens = tokens.as_ref().map_or(Value::Null, |t| t.raw.clone());
            let issuer = issuer.map_or(Value::Null, Value::String);
            // The server the tokens are for; tokens withheld are not known to be its.
            let server = if self.withheld.get() { Value::Null } else { self.server_url.clone().into() };
            saved(&object([("issuer", issuer), ("client", client), ("tokens", tokens), ("server", server)]));
        }
    }

    /// Tokens issued so far by this authorization (refreshes included).
    pub fn issued(&self) -> u64 {
        self.issued.get()
    }

    fn random_bytes(&self, n: usize) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; n];
        (self.random)(&mut buf)?;
        Ok(buf)
    }

    /// A GET of a metadata document. It may live behind a redirect (another host, a canonical
    /// path): the client follows those itself, each target [`vet`](Self::vet)ted as the first URL
    /// was. A browser hides where a redirect goes (an opaque redirect, status 0): there the GET is
    /// sent again for the browser to follow, under its own local network protection.
    async fn get_json(&self, url: &str) -> Result<Fetched> {
        let mut url = url.owned();
        let mut browser_follows = false;
        for _ in 0..=MAX_REDIRECTS {
            let req = HttpRequest { method: Method::Get, url: url.clone(), headers: vec![("accept".owned(), "application/json".owned())], body: None, follow_redirects: browser_follows };
            let (status, location, doc) = match self.exchange("discovery", req).await {
                Ok(answer) => answer,
                // Past the memory budget: not a document that is not there (nothing else is tried).
                Err(e) if matches!(e.code, ErrorCode::Aborted | ErrorCode::LimitExceeded) => return Err(e),
                Err(e) => return Ok(Fetched::Unreachable(e)),
            };
            match status {
                0 if !browser_follows => browser_follows = true,
                300..=399 if !browser_follows => {
                    let Some(next) = location.and_then(|l| resolve(&url, &l)) else { return Ok(Fetched::Missing) };
                    self.vet("metadata redirect", &next)?;
                    url = next;
                }
                200..=299 => return Ok(doc.filter(Value::is_object).map_or(Fetched::Missing, Fetched::Found)),
                s @ (408 | 429 | 500..=599) => {
                    let e = failure("discovery", format!("{} answered HTTP {s}: the metadata could not be read now (nothing is guessed in its place, and the credentials held are kept)", shown(&url)));
                    return Ok(Fetched::Failing(e.with_detail("status", s).with_detail("url", url)));
                }
                _ => return Ok(Fetched::Missing),
            }
        }
        Ok(Fetched::Missing)
    }

    /// Sends: the status, the `location` header, and the body as JSON when it is JSON.
    async fn exchange(&self, step: &str, req: HttpRequest) -> Result<(u16, Option<String>, Option<Value>)> {
        let url = req.url.clone();
        let resp = self.transport.send(req).await.map_err(|e| match e {
            TransportError::Aborted => Error::new(ErrorCode::Aborted, format!("OAuth {step}: aborted")),
            TransportError::Network(why) => failure(step, format!("{} could not be reached ({why}); in a browser, the authorization server must allow this page's origin (CORS), and the page's or worker's Content Security Policy its URL (connect-src)", shown(&url))).with_detail("url", url.clone()),
            TransportError::Refused(e) => *e,
        })?;
        let status = resp.status;
        let location = resp.header("location").map(str::to_owned);
        let mut body = resp.body;
        // Counted against the budget as every body read is, in the URL's server's share.
        let too_much = |why: Refusal| Error::new(ErrorCode::LimitExceeded, format!("OAuth {step}: the answer of {}: {why}", shown(&url))).with_detail("oauthStep", step);
        let mut read = Collected::of(server_of(&url));
        loop {
            match body.next_chunk().await {
                // Read whole or not at all: a document cut short could parse as another one.
                Some(Ok(c)) if read.len() + c.len() > MAX_BODY => {
                    return Err(Error::new(ErrorCode::LimitExceeded, format!("OAuth {step}: the answer of {} is larger than {MAX_BODY} bytes, the most read of a metadata document or an authorization server's answer", shown(&url)))
                        .with_detail("oauthStep", step)
                        .with_detail("url", url));
                }
                Some(Ok(c)) => read.push(c).map_err(too_much)?,
                // Cut off mid-answer: not an answer (a refusal would drop the tokens).
                Some(Err(e)) => {
                    let why = match e {
                        TransportError::Aborted => return Err(Error::new(ErrorCode::Aborted, format!("OAuth {step}: aborted"))),
                        TransportError::Network(why) => why,
                        TransportError::Refused(e) => e.message,
                    };
                    return Err(failure(step, format!("the answer of {} broke off ({why})", shown(&url))).with_detail("url", url));
                }
                None => break,
            }
        }
        let (bytes, _held) = read.join().map_err(too_much)?;
        Ok((status, location, std::str::from_utf8(&bytes).ok().and_then(|t| read_json(t).ok())))
    }
}

/// A redirect's `location` against the URL redirected, as a browser resolves it (a backslash is
/// a slash in http(s) URLs; tabs and newlines are dropped); `None` for what is not http(s).
fn resolve(base: &str, location: &str) -> Option<String> {
    let location = as_fetched(location);
    let location = location.split('#').next().unwrap_or("");
    let (before, query) = location.split_once('?').map_or((location, None), |(b, q)| (b, Some(q)));
    let mut reference = before.replace('\\', "/");
    if let Some(q) = query {
        reference = format!("{reference}?{q}");
    }
    let (origin, path) = split_url(base)?;
    let scheme = &origin[..origin.find(':')?];
    let is_scheme = |s: &str| s.starts_with(|c: char| c.is_ascii_alphabetic()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    let target = if let Some(colon) = reference.find(':').filter(|&i| is_scheme(&reference[..i])) {
        // An absolute URL; `http:/x` and `http:x` without `//` are relative to the base when of its
        // scheme (of another, not followed: not a URL `split_url` reads).
        let rest = &reference[colon + 1..];
        if rest.starts_with("//") || !reference[..colon].eq_ignore_ascii_case(scheme) {
            reference.clone()
        } else {
            return resolve(base, rest);
        }
    } else if reference.starts_with("//") {
        format!("{scheme}:{reference}")
    } else if reference.starts_with('/') {
        format!("{origin}{reference}")
    } else if reference.is_empty() || reference.starts_with('?') {
        format!("{origin}{path}{reference}")
    } else {
        format!("{origin}{}/{reference}", &path[..path.rfind('/').unwrap_or(0)])
    };
    let (origin, path) = split_url(&target)?;
    let query = &target[origin.len() + path.len()..];
    // Dot segments, removed (RFC 3986 5.2.4).
    let mut segments: Vec<&str> = Vec::new();
    let parts: Vec<&str> = path.split('/').skip(1).collect();
    for (i, segment) in parts.iter().enumerate() {
        match *segment {
            "." | ".." if i + 1 == parts.len() => {
                if *segment == ".." {
                    segments.pop();
                }
                segments.push("");
            }
            "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    let path = if path.is_empty() { String::new() } else { format!("/{}", segments.join("/")) };
    Some(format!("{origin}{path}{query}"))
}

/// A failure that may pass by itself: the server unreachable, failing (5xx), or the request
/// aborted. Anything else is a refusal.
fn may_pass(e: &Error) -> bool {
    let detail = |k: &str| e.details.as_ref().and_then(|d| d.get(k));
    e.code == ErrorCode::Aborted
        || detail("url").is_some()
        // A token type toolwire cannot send: asking the user again would get another.
        || detail("tokenType").is_some()
        || detail("status").and_then(Value::as_u64).is_some_and(|s| s >= 500 || s == 408 || s == 429)
}

/// The redirect URI, where the authorization code is sent: https, http on a loopback host (MCP:
/// redirect URIs are localhost or https URLs), or a native app's own scheme (RFC 8252 7.1); not a
/// scheme that runs or holds content in the page (`javascript:`, `data:`...).
fn check_redirect_url(url: &str) -> Result<()> {
    let bad = |why: &str| Err(Error::new(ErrorCode::InvalidOptions, format!("oauth.redirectUrl {url:?} {why}")));
    let is_scheme = |s: &str| s.starts_with(|c: char| c.is_ascii_alphabetic()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    let Some(scheme) = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase()).filter(|s| is_scheme(s)) else {
        return bad("must be an absolute URL");
    };
    if url.contains('#') {
        return bad("must not have a fragment (RFC 6749 3.1.2)");
    }
    match scheme.as_str() {
        "http" | "https" => match split_url(url) {
            None => bad("must be an absolute URL"),
            Some((origin, _)) if scheme == "http" && !is_loopback(host_of(origin)) => {
                bad("must be an https URL, or an http one on a loopback host (localhost, 127.0.0.1, [::1]): the authorization code travels to it")
            }
            Some(_) => Ok(()),
        },
        "javascript" | "data" | "vbscript" | "file" | "blob" | "about" | "filesystem" => {
            bad("must be an https URL, an http one on a loopback host, or a native app's own scheme, not a javascript:, data:, file:, blob: or about: URL")
        }
        _ => Ok(()),
    }
}

/// A Client ID Metadata Document's URL, a `client_id`: https, with a path, no fragment, no dot
/// segments, no user or password.
fn check_client_metadata_url(url: &str) -> Result<()> {
    let bad = || Err(Error::new(ErrorCode::InvalidOptions, format!("oauth.clientMetadataUrl {url:?} must be an https URL with a path (the client metadata document's), without a fragment, dot segments or credentials")));
    let Some((origin, path)) = split_url(url) else { return bad() };
    let dots = path.split('/').any(|segment| matches!(segment, "." | ".."));
    if !origin.get(..8).is_some_and(|s| s.eq_ignore_ascii_case("https://")) || path.len() <= 1 || dots || url.contains('#') || origin.contains('@') {
        return bad();
    }
    Ok(())
}

/// OpenID Connect's `application_type` for a redirect URI (SEP-837): one to this machine or to
/// an app's own scheme is a native app's, any other a web app's.
fn application_type(redirect: &str) -> &'static str {
    let Some((origin, _)) = split_url(redirect) else { return "native" };
    let host = origin.split_once("://").map_or("", |(_, h)| h);
    let host = host.rsplit_once(':').filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit())).map_or(host, |(h, _)| h);
    if matches!(host.to_ascii_lowercase().as_str(), "localhost" | "127.0.0.1" | "[::1]") { "native" } else { "web" }
}

/// A URL or a name a server gave (its metadata, a challenge, a redirect) for a message: cut short,
/// and what would act on a terminal or a page rather than show escaped.
fn shown(s: &str) -> String {
    crate::text::excerpt(s, 200)
}

/// Names for a message, the list and each name cut short (a server chooses them).
fn listed<S: AsRef<str>>(names: &[S]) -> String {
    const MOST: usize = 5;
    let mut out: Vec<String> = names.iter().take(MOST).map(|n| shown(n.as_ref())).collect();
    if names.len() > MOST {
        out.push(format!("and {} more", names.len() - MOST));
    }
    out.join(", ")
}

/// The challenge of a refusal the handler is given: parsed, else parsed from its `WWW-Authenticate`.
fn challenge_of(info: &Value) -> Value {
    match info.get("challenge") {
        Some(c @ Value::Object(_)) => c.clone(),
        _ => info.get("wwwAuthenticate").and_then(Value::as_str).map_or(Value::Null, parse_www_authenticate),
    }
}

/// Whether a refusal the handler is given asks for more scopes (`error="insufficient_scope"`).
fn asks_scope(info: &Value) -> bool {
    challenge_of(info).get("error").and_then(Value::as_str) == Some("insufficient_scope")
}

/// Whether the space-separated scopes `granted` include all of `wanted`.
fn has_scopes(granted: &str, wanted: &str) -> bool {
    wanted.split_ascii_whitespace().all(|s| granted.split_ascii_whitespace().any(|g| g == s))
}

/// Space-separated scopes, each once, in order of appearance.
fn union(a: Option<&str>, b: Option<&str>) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for s in a.into_iter().chain(b).flat_map(str::split_ascii_whitespace) {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    (!out.is_empty()).then(|| out.join(" "))
}

/// Whether a token can go in an `authorization: Bearer` header: visible ASCII alone (RFC 6750's
/// b64token and more; no space, control or line break, which fetch refuses or which would split
/// the header).
fn sendable(token: &str) -> bool {
    !token.is_empty() && token.bytes().all(|b| b.is_ascii_graphic())
}

fn bearer(token: &str) -> Vec<(String, String)> {
    vec![("authorization".owned(), format!("Bearer {token}"))]
}

fn registration_from(v: &Value) -> Option<Registration> {
    let s = |k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    Some(Registration { id: s("client_id")?, secret: s("client_secret"), method: s("token_endpoint_auth_method") })
}

/// Tokens from a token response; a refresh that returns no refresh token keeps the one spent.
/// An `expires_in` sent as a string of a number is that number (what [`Saved`] is given is typed
/// so); one that is no number at all is left out.
fn tokens_from(mut v: Value, spent_refresh: Option<&str>) -> Option<Tokens> {
    let access = v.get("access_token").and_then(Value::as_str).filter(|s| !s.is_empty())?.owned();
    if let Some(m) = v.as_object_mut() {
        if let Some(e) = m.get("expires_in").filter(|e| !e.is_number()) {
            let number = e.as_str().map(str::trim).and_then(|s| {
                // serde_json's number reader, not `str::parse::<f64>` (Rust's float parser is 15 KB
                // of gzip'd wasm of its own).
                s.parse::<u64>().ok().map(Value::from).or_else(|| serde_json::from_str::<Value>(s).ok().filter(|n| n.as_f64().is_some_and(|n| n >= 0.0)))
            });
            match number {
                Some(n) => m.put("expires_in", n),
                None => {
                    m.remove("expires_in");
                }
            }
        }
    }
    let mut refresh = v.get("refresh_token").and_then(Value::as_str).map(str::to_owned);
    if refresh.is_none() {
        if let (Some(r), Some(m)) = (spent_refresh, v.as_object_mut()) {
            m.put("refresh_token", r.into());
            refresh = Some(r.owned());
        }
    }
    Some(Tokens { access, refresh, raw: v })
}

/// An error answer of an authorization server (RFC 6749 5.2: `error`, `error_description`), or
/// its redirect (`location`), which is not followed: the request carries a code, a verifier, a
/// client's secret or metadata, for the endpoint the metadata named alone.
fn server_error(step: &str, status: u16, location: Option<&str>, body: &Option<Value>) -> Error {
    // 0: a browser's opaque redirect (fetch with `redirect: "manual"`), which says not where.
    if status == 0 || (300..400).contains(&status) {
        let message = if status == 0 {
            format!("the {step} endpoint answered HTTP 0, which is how a browser reports a redirect it was told not to follow (fetch with redirect \"manual\"): it may redirect, and redirects are not followed (the request carries credentials): the authorization server's metadata must name the endpoint the redirect leads to")
        } else {
            let to = location.map_or_else(String::new, |l| format!(" to {}", crate::text::server_text(l)));
            format!("the {step} endpoint redirected{to} (HTTP {status}); redirects are not followed (the request carries credentials, which would go to a URL the metadata did not name): the authorization server's metadata must name the endpoint it leads to")
        };
        let e = failure(step, message).with_detail("status", status);
        return match location {
            Some(l) => e.with_detail("location", l),
            None => e,
        };
    }
    let field = |k: &str| body.as_ref().and_then(|b| b.get(k)).and_then(Value::as_str).map(str::to_owned);
    let mut message = format!("the {step} endpoint answered HTTP {status}");
    if let Some(e) = field("error") {
        message.push_str(&format!(": {}", shown(&e)));
    }
    if let Some(d) = field("error_description") {
        message.push_str(&format!(" ({})", shown(&d)));
    }
    let mut e = failure(step, message).with_detail("status", status);
    if let Some(code) = field("error") {
        e = e.with_detail("oauthError", code);
    }
    if let Some(d) = field("error_description") {
        e = e.with_detail("oauthErrorDescription", d);
    }
    e
}

/// The authorization code flow (`response_types_supported`, when named) with PKCE S256, where the
/// authorization server published its metadata (2025-11-25: without its support confirmed, the
/// client does not go on).
fn code_flow_supported(d: &Discovered) -> Result<()> {
    // RFC 8414 2: the response types it supports; without `code`, no authorization code flow.
    if let Some(types) = d.response_types.as_ref().filter(|t| !t.iter().any(|t| t == "code")) {
        return Err(failure(
            "authorization",
            format!("the authorization server does not support the authorization code flow: its response_types_supported ({}) lists no \"code\"", listed(types)),
        ));
    }
    if let Some(methods) = &d.pkce_methods {
        if !methods.iter().any(|m| m == "S256") {
            return Err(failure("authorization", "the authorization server does not support PKCE with S256 (code_challenge_methods_supported), which OAuth 2.1 requires"));
        }
    }
    Ok(())
}

/// The token endpoint authentication: the registered method where the server supports it, else
/// a secret in the Basic header or the form, else none.
fn auth_method<'a>(client: &'a Registration, supported: &'a [String]) -> &'a str {
    let has_secret = client.secret.is_some();
    if supported.is_empty() {
        return match (&client.method, has_secret) {
            (Some(m), _) => m,
            (None, true) => "client_secret_basic",
            (None, false) => "none",
        };
    }
    if let Some(m) = client.method.as_deref().filter(|m| supported.iter().any(|s| s == m)) {
        return m;
    }
    for m in ["client_secret_basic", "client_secret_post"] {
        if has_secret && supported.iter().any(|s| s == m) {
            return m;
        }
    }
    if has_secret { "client_secret_post" } else { "none" }
}

/// `(origin, path)` of an absolute http(s) URL: `("https://a.example:8443", "/mcp")`, without
/// query or fragment.
pub(crate) fn split_url(url: &str) -> Option<(&str, &str)> {
    let scheme_end = url.find("://")?;
    let scheme = &url[..scheme_end];
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return None;
    }
    let rest = &url[scheme_end + 3..];
    // A backslash ends the authority too, as in every browser's URL parser (WHATWG: `\` is `/`
    // in http(s) URLs): `http://evil.example\@127.0.0.1/` goes to evil.example.
    let authority_end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    if authority_end == 0 {
        return None;
    }
    let origin = &url[..scheme_end + 3 + authority_end];
    let after = &rest[authority_end..];
    Some((origin, &after[..after.find(['?', '#']).unwrap_or(after.len())]))
}

/// The query of a URL (without its `?`), before any fragment; `None` without one.
fn query_of(url: &str) -> Option<&str> {
    let url = &url[..url.find('#').unwrap_or(url.len())];
    url.find('?').map(|i| &url[i + 1..])
}

/// The host of a plain-http URL; `None` for https (and what is not http(s)).
fn cleartext_host(url: &str) -> Option<&str> {
    let (origin, _) = split_url(url)?;
    origin.get(..5).filter(|s| s.eq_ignore_ascii_case("http:")).map(|_| host_of(origin))
}

/// A URL as `fetch` reads it: tabs and line breaks anywhere dropped, and C0 controls and spaces
/// at either end (WHATWG URL).
fn as_fetched(url: &str) -> std::borrow::Cow<'_, str> {
    let url = url.trim_matches(|c: char| c <= ' ');
    if url.contains(['\t', '\n', '\r']) {
        std::borrow::Cow::Owned(url.chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect())
    } else {
        std::borrow::Cow::Borrowed(url)
    }
}

/// Whether two origins are the same: scheme and host without regard to case, a host's trailing
/// dot aside, the scheme's default port (443, 80) the same as none.
fn same_origin(a: &str, b: &str) -> bool {
    fn key(origin: &str) -> Option<(String, String, String)> {
        let (scheme, _) = origin.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let host = host_of(origin);
        let authority = &origin[origin.find("://")? + 3..];
        let authority = &authority[authority.rfind('@').map_or(0, |i| i + 1)..];
        let port = authority[host.len().min(authority.len())..].strip_prefix(':').unwrap_or("");
        let port = match (scheme.as_str(), port) {
            ("https", "443") | ("http", "80") => "",
            (_, p) => p,
        };
        Some((scheme, host.trim_end_matches('.').to_ascii_lowercase(), port.to_owned()))
    }
    key(a).is_some_and(|k| Some(k) == key(b))
}

/// The host of an origin (`http://user@[::1]:8080` -> `[::1]`): no user, no port.
fn host_of(origin: &str) -> &str {
    let authority = &origin[origin.find("://").map_or(0, |i| i + 3)..];
    let authority = &authority[authority.rfind('@').map_or(0, |i| i + 1)..];
    match authority.rfind([':', ']']) {
        Some(i) if authority.as_bytes()[i] == b':' => &authority[..i],
        _ => authority,
    }
}

/// `localhost` (and its subdomains), `127.0.0.0/8`, `[::1]` (and the other spellings of those
/// addresses a browser reads the same way).
fn is_loopback(host: &str) -> bool {
    address_space(host) == Some(Space::Loopback)
}

/// Where a host is, from the most open to the most closed, as browsers rank address spaces
/// (Private Network Access): a server may send the client to hosts of its own space or a more
/// open one, never into a more closed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Space {
    Public,
    /// A local network: RFC 1918 and shared (100.64.0.0/10) addresses, link-local ones (the cloud
    /// metadata service's 169.254.169.254), IPv6 unique-local and link-local ones, and the names
    /// that only a local network resolves: one label (`router`), `.local`, `.internal`, `.lan`,
    /// `.home.arpa`.
    Private,
    /// This machine: `localhost`, `127.0.0.0/8`, `0.0.0.0`, `[::1]`, `[::]`.
    Loopback,
}

/// The address space of a URL's host (`[::1]` with its brackets), read as a browser reads it
/// (WHATWG URL's host parser): a host in brackets is an IPv6 address as written, neither
/// percent-decoded nor folded (`[%3A%3A1]` and a full-width `[０::１]` are no host); any other
/// percent-decoded, full-width characters folded, and IPv4 in any of the forms a browser takes
/// (`127.1`, `0x7f.0.0.1`, `2130706433`, `0177.0.0.1`); `None` for a host no browser would go to.
/// By name or address as written: a public name whose DNS answers a private address is the
/// browser's to refuse.
fn address_space(host: &str) -> Option<Space> {
    if let Some(inner) = host.strip_prefix('[') {
        let ip = std::net::Ipv6Addr::from(ipv6(inner.strip_suffix(']')?.as_bytes())?);
        if let Some(v4) = ip.to_ipv4_mapped() {
            return Some(ipv4_space(v4));
        }
        let first = ip.segments()[0];
        return Some(if ip.is_loopback() || ip.is_unspecified() {
            Space::Loopback
        } else if first & 0xfe00 == 0xfc00 || first & 0xffc0 == 0xfe80 || first & 0xffc0 == 0xfec0 {
            Space::Private
        } else {
            Space::Public
        });
    }
    let decoded = percent_decode(host, false);
    let mut h = String::with_capacity(decoded.len());
    for c in decoded.chars() {
        h.push(match c {
            // IDNA maps these to `.`; full-width ASCII to ASCII.
            '\u{3002}' | '\u{ff0e}' | '\u{ff61}' => '.',
            '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
            c => c.to_ascii_lowercase(),
        });
    }
    let h = h.strip_suffix('.').unwrap_or(&h);
    // A bracket decoded or folded (`%5B::1%5D`, `［::1］`) is no host either: the forbidden
    // characters below. Not ASCII still: a name that IDNA (which this does not do) may map to an address or to
    // `localhost` (circled digits, soft hyphens...), so it cannot be placed.
    if h.is_empty() || !h.is_ascii() || h.contains(['[', ']', '%', '/', '\\', '@', ':', ' ']) {
        return None;
    }
    let last = h.rsplit('.').next().unwrap_or(h);
    let hex = last.strip_prefix("0x").is_some_and(|d| d.bytes().all(|b| b.is_ascii_hexdigit()));
    if hex || (!last.is_empty() && last.bytes().all(|b| b.is_ascii_digit())) {
        // A host ending in a number is an IPv4 address, or no host at all (WHATWG URL).
        return ipv4(h).map(ipv4_space);
    }
    Some(if h == "localhost" || h.ends_with(".localhost") {
        Space::Loopback
    } else if !h.contains('.') || [".local", ".internal", ".lan", ".home.arpa"].iter().any(|s| h.ends_with(s)) {
        Space::Private
    } else {
        Space::Public
    })
}

/// The groups of an IPv6 address, read as `Ipv6Addr`'s `FromStr` reads it (core's
/// `net::parser`, the same steps): up to eight groups of one to four hex digits, one `::` for
/// one or more groups of zeros, and an IPv4 address in dotted decimal as the last two groups.
/// core's parser is generic over the integers it reads and 3 KB of wasm; this is a third of it.
fn ipv6(s: &[u8]) -> Option<[u16; 8]> {
    // A number of at most `max` digits in `radix` that fits `limit`, at `*at`; a leading zero
    // only alone when `zero_prefix` is false. `*at` moves only when it is read.
    fn number(s: &[u8], at: &mut usize, radix: u32, max: usize, limit: u32, zero_prefix: bool) -> Option<u32> {
        let (mut n, mut digits) = (0u32, 0);
        while let Some(d) = s.get(*at + digits).and_then(|&b| char::from(b).to_digit(radix)) {
            n = n * radix + d;
            digits += 1;
            if n > limit || digits > max {
                return None;
            }
        }
        if digits == 0 || (!zero_prefix && digits > 1 && s[*at] == b'0') {
            return None;
        }
        *at += digits;
        Some(n)
    }
    // Four decimal numbers up to 255 with dots between, at `*at`.
    fn v4(s: &[u8], at: &mut usize) -> Option<[u8; 4]> {
        let mut i = *at;
        let mut out = [0; 4];
        for (k, o) in out.iter_mut().enumerate() {
            if k > 0 {
                (s.get(i) == Some(&b'.')).then_some(())?;
                i += 1;
            }
            *o = u8::try_from(number(s, &mut i, 10, 3, 255, false)?).ok()?;
        }
        *at = i;
        Some(out)
    }
    // Groups into `groups` from `*at`, with `:` between: how many, and whether the last two
    // were an IPv4 address.
    fn groups(s: &[u8], at: &mut usize, groups: &mut [u16]) -> (usize, bool) {
        let limit = groups.len();
        for i in 0..limit {
            let sep = |at: usize| if i > 0 { (s.get(at) == Some(&b':')).then_some(at + 1) } else { Some(at) };
            if i < limit - 1 {
                let mut j = sep(*at).unwrap_or(usize::MAX);
                if let Some([a, b, c, d]) = (j != usize::MAX).then(|| v4(s, &mut j)).flatten() {
                    groups[i] = u16::from_be_bytes([a, b]);
                    groups[i + 1] = u16::from_be_bytes([c, d]);
                    *at = j;
                    return (i + 2, true);
                }
            }
            let Some(mut j) = sep(*at) else { return (i, false) };
            match number(s, &mut j, 16, 4, 0xFFFF, true) {
                Some(g) => {
                    groups[i] = u16::try_from(g).unwrap_or_default();
                    *at = j;
                }
                None => return (i, false),
            }
        }
        (limit, false)
    }
    let mut at = 0;
    let mut head = [0u16; 8];
    let (head_size, head_v4) = groups(s, &mut at, &mut head);
    if head_size < 8 {
        // No IPv4 address before `::`, which stands for at least one group.
        if head_v4 || s.get(at..at + 2) != Some(b"::") {
            return None;
        }
        at += 2;
        let mut tail = [0u16; 7];
        let (tail_size, _) = groups(s, &mut at, &mut tail[..7 - head_size]);
        head[8 - tail_size..].copy_from_slice(&tail[..tail_size]);
    }
    (at == s.len()).then_some(head)
}

/// An IPv4 address as the WHATWG URL parser reads it: one to four parts, each decimal, octal
/// (a leading `0`) or hexadecimal (`0x`), the last filling the bytes that remain.
fn ipv4(host: &str) -> Option<std::net::Ipv4Addr> {
    let parts: Vec<&str> = host.split('.').collect();
    if parts.len() > 4 {
        return None;
    }
    let mut numbers = Vec::with_capacity(parts.len());
    for p in &parts {
        let (digits, radix) = match p.strip_prefix("0x") {
            Some(d) => (d, 16),
            None if p.len() > 1 && p.starts_with('0') => (&p[1..], 8),
            None => (*p, 10),
        };
        if p.is_empty() {
            return None;
        }
        numbers.push(if digits.is_empty() { 0 } else { u64::from_str_radix(digits, radix).ok()? });
    }
    let (last, rest) = numbers.split_last()?;
    if rest.iter().any(|&n| n > 255) || *last >= 1u64 << (8 * (5 - numbers.len())) {
        return None;
    }
    let mut n = *last;
    for (i, &part) in rest.iter().enumerate() {
        n += part << (8 * (3 - i));
    }
    Some(std::net::Ipv4Addr::from(u32::try_from(n).ok()?))
}

fn ipv4_space(ip: std::net::Ipv4Addr) -> Space {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() || a == 0 {
        Space::Loopback
    } else if ip.is_private() || ip.is_link_local() || (a == 100 && b & 0xc0 == 64) {
        Space::Private
    } else {
        Space::Public
    }
}

/// Whether a `resource_metadata` URL of another origin than the server's is at the well-known
/// location of protected resource metadata (RFC 9728 3.1): `/.well-known/oauth-protected-resource`,
/// with or without a resource's path after it, and no dot segment that would leave it.
fn well_known_metadata_path(path: &str) -> bool {
    const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";
    let Some(rest) = path.strip_prefix(WELL_KNOWN) else { return false };
    (rest.is_empty() || rest.starts_with('/'))
        && !path.contains('\\')
        && path.split('/').all(|segment| {
            let s = segment.to_ascii_lowercase().replace("%2e", ".");
            s != "." && s != ".."
        })
}

/// Whether a resource indicator covers the server's URL: the same origin, a path the server's
/// path is at or under, and no query but the server's (another tenant's, say).
fn resource_allowed(server: &str, resource: &str) -> bool {
    let (Some((so, sp)), Some((ro, rp))) = (split_url(server), split_url(resource)) else { return false };
    if !same_origin(so, ro) {
        return false;
    }
    if query_of(resource).is_some_and(|q| query_of(server) != Some(q)) {
        return false;
    }
    let rp = rp.trim_end_matches('/');
    let sp = sp.trim_end_matches('/');
    sp == rp || (sp.starts_with(rp) && sp.as_bytes().get(rp.len()) == Some(&b'/'))
}

/// `application/x-www-form-urlencoded` (also a URL's query).
fn form(params: &[(&str, String)]) -> String {
    params.iter().map(|(k, v)| format!("{}={}", form_component(k), form_component(v))).collect::<Vec<_>>().join("&")
}

/// Percent-encodes all but RFC 3986's unreserved characters.
fn form_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The parameters of a URL's query (or of a bare query string), decoded.
fn query_params(url: &str) -> Vec<(String, String)> {
    let url = &url[..url.find('#').unwrap_or(url.len())];
    let query = match url.find('?') {
        Some(i) => &url[i + 1..],
        None if url.contains("://") => "",
        None => url,
    };
    query.split('&').filter(|p| !p.is_empty()).map(|p| {
        let (k, v) = p.split_once('=').unwrap_or((p, ""));
        (percent_decode(k, true), percent_decode(v, true))
    }).collect()
}

/// Base64url without padding (RFC 4648 section 5), as PKCE writes it.
fn base64url(bytes: &[u8]) -> String {
    crate::protocol::headers::base64(bytes).trim_end_matches('=').replace('+', "-").replace('/', "_")
}

/// SHA-256 (FIPS 180-4), for the PKCE challenge.
pub(crate) fn sha256(data: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
        0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
        0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ];
    let mut h: [u32; 8] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7].wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [t1.wrapping_add(t2), v[0], v[1], v[2], v[3].wrapping_add(t1), v[4], v[5], v[6]];
        }
        for (a, b) in h.iter_mut().zip(v) {
            *a = a.wrapping_add(b);
        }
    }
    let mut out = [0u8; 32];
    for (i, word) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&word.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests;
