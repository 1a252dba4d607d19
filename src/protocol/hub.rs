//! Several MCP servers behind one set of provider tools.
//!
//! * `list_tools` asks every selected server at once; one server failing does not affect the
//!   others: its error is reported next to the tools of the rest.
//! * `tools` converts the listed tools for a provider with collision-proof names and keeps the
//!   name map (a name the hub gave one tool it gives no other, and a tool keeps its name, see
//!   [`GivenNames`]); a tool
//!   that cannot be converted (a schema past the limits, an empty name) is left out and
//!   reported with its server (see [`Hub::dropped_tools`]), the others are converted; so is a
//!   tool the permission policy denies (every call of it would be refused), whose name a call is
//!   refused `PERMISSION_DENIED` for;
//!   `tools_refreshed` first lists the servers when none were listed, and lists again
//!   those that announced a change (`notifications/tools/list_changed`), whose session was
//!   renewed since (a restarted server announces nothing), whose listing's `ttlMs`
//!   (2026-07-28) has run out, or whose listing failed (a server down at the first listing is
//!   offered once it is back), within a bound and with a growing wait after a failure
//!   (see [`Hub::refresh`]); a `close_all` while it lists makes it `NOT_CONNECTED`; `call_tool` routes a provider name through that map (an unknown
//!   name is an error naming the closest names, never a guess, see [`NameMap::resolve`]; and so
//!   is a name of a server the last listing did not select), checks the permission policy against the tool as it was when the map was made,
//!   calls the server and flattens the result. The latest map of each provider is kept: an app
//!   that offers the tools to several providers (a fallback between models) routes each call
//!   through the map of the provider that made it ([`Hub::call_tool_for`]).
//! * `listen` listens on the selected servers, connecting them (before any listing: every
//!   server), and on any other connected one.
//! * `close_all` gives every session a graceful close of at most 3 s.
//! * An error about one server carries it in its `server` detail, which its text names.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;

use futures_util::future::{select, Either};
use futures_util::FutureExt as _;
use futures_util::pin_mut;
use serde_json::Value;

use crate::content::{flatten_result, FlattenOptions};
use crate::convert::{convert_json_named, tool_error, ConvertOptions};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{object, string, Borrowed as _, CallToolResult, Put as _, ToolAnnotations};
use crate::naming::{GivenNames, NameEntry, NameMap, NamingOptions};
use crate::policy::{Action, AskedBy, DeniedBy, Policy};
use crate::report::Report;
use crate::protocol::client::{CallOptions, Client, CloseSignal};
use crate::protocol::join_all;
use crate::protocol::transport::{Clock, Transport};
use crate::providers::Target;
use crate::text::Owned as _;

/// Which servers `list_tools` asks.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Selection {
    /// Every server.
    #[default]
    Auto,
    /// Only these servers.
    Manual(Vec<String>),
    /// None: tools are off.
    Disabled,
}

/// A server's failure, reported next to the other servers' tools.
#[derive(Debug, Clone)]
pub struct ServerError {
    /// The server's name.
    pub server: String,
    /// What went wrong.
    pub error: Error,
}

/// Asks the user about a call the policy marks `ask`; resolves to `Ok(true)` to proceed. `Err`
/// (the question itself failed: its reason) denies the call as `Ok(false)` does, and says why.
/// The future is dropped unsettled when the call is aborted while it waits.
pub type Confirm = Box<dyn Fn(&ConfirmRequest<'_>) -> Pin<Box<dyn Future<Output = std::result::Result<bool, String>>>>>;

/// The call a [`Confirm`] is asked about.
#[derive(Debug, Clone, Copy)]
pub struct ConfirmRequest<'a> {
    /// The name map's name for the tool (the provider-side name).
    pub name: &'a str,
    /// The arguments, as they will be sent to the server.
    pub args: &'a Value,
    /// The server the call goes to.
    pub server: &'a str,
    /// The tool's MCP name.
    pub tool: &'a str,
    /// The provider whose name map read the call (its canonical name: `"openai"` for
    /// `"openai-chat"`, `"ollama"`).
    pub provider: &'static str,
}

/// The outcome of a routed call.
#[derive(Debug, Clone)]
pub struct HubCall {
    /// The server called.
    pub server: String,
    /// The tool's MCP name.
    pub tool: String,
    /// The raw CallToolResult.
    pub result: Value,
    /// `flattenContent` of the result.
    pub text: String,
    /// Whether the tool reported an error (distinct from a JSON-RPC error, which is thrown).
    pub is_error: bool,
}

/// A server's listed tools, and the number of the listing they come from.
#[derive(Clone)]
struct Listed {
    server: String,
    tools: Vec<Value>,
    listing: u64,
}

/// The name map of the last [`Hub::tools`] for a provider, and the annotations each of its tools
/// had then, entry by entry (none without a policy): what the policy judges a call on besides its
/// names. A call is routed and judged on the same tool: a listing since (one that no longer has
/// the tool, or one that failed) changes neither until the provider's next `tools`.
struct Routes {
    target: Target,
    map: NameMap,
    annotations: Vec<Option<ToolAnnotations>>,
    /// The tools left out of the map because the policy denies them: a call of one of their
    /// names is refused as denied, not read as an unknown name.
    denied: Vec<Denied>,
    /// The conversion's input (the tools offered, as JSON text) and options, from which
    /// [`Hub::report_for`] makes its report when first asked: a `tools` that no one asks
    /// the report of costs no second pass.
    input: String,
    opts: ConvertOptions,
    /// That report, once made.
    report: Option<Report>,
}

impl Routes {
    /// The entry of a provider name, and the annotations its tool had.
    fn resolve(&self, name: &str) -> Result<(&NameEntry, Option<ToolAnnotations>)> {
        let entry = self.map.resolve(name)?;
        let annotations = self.map.position(name).and_then(|i| self.annotations.get(i).cloned().flatten());
        Ok((entry, annotations))
    }

    /// The refusal of a call of a name the map does not have that names a tool the policy denies
    /// ([`Denied`]), or `None`. A name several such tools share is refused naming them all.
    fn denied(&self, name: &str) -> Option<Error> {
        let bare = crate::naming::without_model_namespace(name);
        let called = |d: &&Denied| d.names.iter().any(|n| n == name || Some(n.as_str()) == bare);
        let mut hits = self.denied.iter().filter(called);
        let first = hits.next()?;
        let more: Vec<&Denied> = hits.filter(|d| (&d.server, &d.tool) != (&first.server, &first.tool)).collect();
        if more.is_empty() {
            return Some(first.refusal(name));
        }
        let all: Vec<&Denied> = std::iter::once(first).chain(more).collect();
        let tools: Vec<String> = all
            .iter()
            .map(|d| match d.by {
                LeftOutBy::Deny { .. } => format!("{}, which the policy denies", d.which()),
                LeftOutBy::Unconfirmable(_) => format!("{}, which needs confirmation the hub has no confirm callback to ask for", d.which()),
            })
            .collect();
        // "ask" only where every one of them is: a deny among them is final, a confirm callback or not.
        let decision = if all.iter().all(|d| d.by.decision() == "ask") { "ask" } else { "deny" };
        Some(
            Error::new(
                ErrorCode::PermissionDenied,
                format!("{} names tools the permission policy keeps from being called ({}): tools() did not offer them, and none was called", crate::text::quote(name), tools.join("; ")),
            )
            .with_detail("decision", decision),
        )
    }
}

/// The error for a name `map` does not have that the hub gave a tool (`e`, the map's own error
/// for it, otherwise). A tool `map` no longer has (the name of a turn before the tool went) is
/// named, and no other is suggested, as the map's closest names would be (another server's
/// tool of the same name, which the name was kept from). A tool `map` has under another name (a
/// name of another provider's conversion, or of other naming options) is named with that name,
/// which is suggested: the map's closest names need not be it (nothing but the hub knows the
/// names it gave with a hash).
fn no_longer_offered(given: &GivenNames, map: &NameMap, name: &str, e: Error) -> Error {
    let Some(owner) = given.owner(name).or_else(|| crate::naming::without_model_namespace(name).and_then(|b| given.owner(b))) else {
        return e;
    };
    let tool = match owner {
        (Some(server), tool) => server_tool(server, tool),
        (None, tool) => format!("tool {}", crate::text::quote(tool)),
    };
    let head = format!("no tool is named {} in this name map ({} names): it was the name of {tool}", crate::text::quote(name), map.entries().len());
    match map.entries().iter().find(|e| (e.server.as_deref(), e.tool.as_str()) == owner) {
        Some(now) => Error::new(
            ErrorCode::UnknownToolName,
            format!("{head}, which this map names {} (the name a tools() for another provider or with other naming options gave it: read each model's calls with the map of the tools it was given, callTool's options.provider); did you mean {}?", crate::text::quote(&now.name), crate::text::quote(&now.name)),
        )
        .with_detail("suggestions", vec![Value::from(now.name.as_str())]),
        None => Error::new(ErrorCode::UnknownToolName, format!("{head}, which the last tools() no longer offers; no other tool is called in its place")),
    }
}

#[cfg(test)]
thread_local! {
    /// The reports [`Hub::report_for`] made (not those it gave again), for the tests of its cache.
    static REPORTS_MADE: Cell<usize> = const { Cell::new(0) };
}

/// The hub.
pub struct Hub<T: Transport, C: Clock> {
    servers: Vec<(String, Rc<Client<T, C>>)>,
    clock: C,
    /// The tools of the last listing, server by server in the hub's order (each tool with its
    /// `serverName`); servers that failed are not in it.
    listed: RefCell<Vec<Listed>>,
    /// Whether the servers were ever listed.
    listed_once: Cell<bool>,
    /// Listings started so far: a listing's number orders it among overlapping ones.
    listings: Cell<u64>,
    /// The number of the last [`Hub::list_tools`] started: the one whose selection is
    /// `selection`, and the only one that may replace `listed` when it ends.
    last_list: Cell<u64>,
    /// The servers the last [`Hub::list_tools`] was asked for: a call to a server it left out
    /// is refused, whatever name map routes it.
    selection: RefCell<Selection>,
    /// The routes of each provider's last [`Hub::tools`], the latest `tools` last.
    routes: RefCell<Vec<Routes>>,
    /// The names the hub's [`Hub::tools`] gave, each with its tool: no later one gives it another.
    given: RefCell<Arc<GivenNames>>,
    /// The tools the last [`Hub::tools`] could not convert, each `{server, name, index, code,
    /// reason}`.
    unconverted: RefCell<Vec<Value>>,
    /// The servers whose last listing failed (by `list_tools`, or a refresh), with the error:
    /// [`Hub::listing_errors`].
    failing: RefCell<Vec<ServerError>>,
    policy: Option<Policy>,
    confirm: Option<Confirm>,
    /// Servers whose last [`Hub::refresh`] listing failed: not asked again by a refresh before
    /// `until` (`Clock::now_ms`); `delay` doubles with each failure in a row.
    backoff: RefCell<Vec<Backoff>>,
    /// The servers a [`Hub::refresh`] is listing: another refresh meanwhile waits for them.
    refreshing: RefCell<Vec<String>>,
    /// How many [`Hub::list_tools`] are under way.
    lists_running: Cell<usize>,
    /// Told when a [`Hub::list_tools`] or a refresh's listing ends (however its future ends),
    /// for those waiting for the listing under way.
    list_ended: CloseSignal,
    /// How many [`Hub::close_all`] have started: a listing that a close met compares it (its
    /// failures are the close's, not the servers').
    closes: Cell<u64>,
    /// Told when a [`Hub::close_all`] starts: a call waiting for its confirmation ends then.
    close_started: CloseSignal,
}

/// Counts a [`Hub::list_tools`] as under way for as long as it lives, and tells its end.
struct ListRunning<'h>(&'h Cell<usize>, &'h CloseSignal);

impl<'h> ListRunning<'h> {
    fn new(running: &'h Cell<usize>, ended: &'h CloseSignal) -> Self {
        running.set(running.get() + 1);
        Self(running, ended)
    }
}

impl Drop for ListRunning<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
        self.1.fire();
    }
}

/// Marks servers as being refreshed for as long as it lives (however the refresh's future ends),
/// and tells its end.
struct Refreshing<'h> {
    list: &'h RefCell<Vec<String>>,
    servers: Vec<String>,
    ended: &'h CloseSignal,
}

impl<'h> Refreshing<'h> {
    fn new(list: &'h RefCell<Vec<String>>, servers: Vec<String>, ended: &'h CloseSignal) -> Self {
        list.borrowed_mut().extend(servers.iter().cloned());
        Self { list, servers, ended }
    }
}

impl Drop for Refreshing<'_> {
    fn drop(&mut self) {
        {
            let mut list = self.list.borrowed_mut();
            for s in &self.servers {
                if let Some(at) = list.iter().position(|x| x == s) {
                    list.swap_remove(at);
                }
            }
        }
        self.ended.fire();
    }
}

/// See [`Hub::refresh`].
struct Backoff {
    server: String,
    until: u64,
    delay: u64,
}

/// The first wait after a failed refresh of a server, and the longest.
const REFRESH_BACKOFF_MS: (u64, u64) = (5_000, 60_000);
/// How long a refresh may take for one server, all in (at most: the server's own timeout when
/// it is shorter).
const REFRESH_TIMEOUT_MS: u64 = 10_000;
/// How long a listing ([`Hub::list_tools`]) may take for one server, its connection included,
/// unless the call says otherwise (at most: the server's own timeout when it is shorter): one
/// server that accepts the connection and never answers would otherwise hold up every other
/// server's tools for the whole request timeout (two minutes by default). Not for a server
/// with an unauthorized handler: signing in is a person's time, bounded by the server's own.
pub const LIST_TIMEOUT_MS: u64 = 30_000;

impl<T: Transport, C: Clock> Hub<T, C> {
    /// A hub over named clients.
    pub fn new(servers: Vec<(String, Rc<Client<T, C>>)>, clock: C, policy: Option<Policy>, confirm: Option<Confirm>) -> Self {
        Self {
            servers,
            clock,
            listed: RefCell::new(Vec::new()),
            listed_once: Cell::new(false),
            listings: Cell::new(0),
            last_list: Cell::new(0),
            selection: RefCell::default(),
            routes: RefCell::default(),
            given: RefCell::default(),
            unconverted: RefCell::default(),
            failing: RefCell::default(),
            policy,
            confirm,
            backoff: RefCell::default(),
            refreshing: RefCell::default(),
            lists_running: Cell::new(0),
            list_ended: CloseSignal::default(),
            closes: Cell::new(0),
            close_started: CloseSignal::default(),
        }
    }

    /// The server names, in order.
    pub fn server_names(&self) -> Vec<String> {
        self.servers.iter().map(|(n, _)| n.clone()).collect()
    }

    /// The client of a server.
    pub fn client(&self, name: &str) -> Option<Rc<Client<T, C>>> {
        self.servers.iter().find(|(n, _)| n == name).map(|(_, c)| c.clone())
    }

    /// Lists the tools of the selected servers (connecting those not yet connected), each within
    /// `timeout_ms` all in (default [`LIST_TIMEOUT_MS`]; a server slower than that is a
    /// `TIMEOUT` in the errors). Each tool gets `serverName`.
    pub async fn list_tools(&self, selection: &Selection, timeout_ms: Option<u64>) -> (Vec<Value>, Vec<ServerError>) {
        let chosen: Vec<&(String, Rc<Client<T, C>>)> = match selection {
            Selection::Disabled => Vec::new(),
            Selection::Auto => self.servers.iter().collect(),
            Selection::Manual(names) => self.servers.iter().filter(|(n, _)| names.contains(n)).collect(),
        };
        let mut errors: Vec<ServerError> = match selection {
            Selection::Manual(names) => names
                .iter()
                .filter(|n| !self.servers.iter().any(|(s, _)| s == *n))
                .map(|n| ServerError { server: n.clone(), error: Error::new(ErrorCode::InvalidInput, format!("no server named \"{n}\"")) })
                .collect(),
            _ => Vec::new(),
        };
        let listing = self.next_listing();
        let closes = self.closes.get();
        self.last_list.set(listing);
        let _running = ListRunning::new(&self.lists_running, &self.list_ended);
        *self.selection.borrowed_mut() = selection.clone();
        // Asked for: whatever a refresh found, these are asked now.
        self.backoff.borrowed_mut().retain(|b| !chosen.iter().any(|(n, _)| *n == b.server));
        let bound = timeout_ms.unwrap_or(LIST_TIMEOUT_MS);
        // A server that may ask a person to sign in (OAuth) has its own timeout for it.
        let results = join_all(chosen.iter().map(|(_, client)| {
            let bound = if client.has_unauthorized_handler() { u64::MAX } else { bound };
            self.list_within(client, bound, "connecting and listing the tools")
        }))
        .await;
        // A listing started after this one (another `list_tools`) has the last word over the
        // whole set, whichever ends last: its selection is the hub's, and so is its listing.
        // This one still answers with what it found.
        let superseded = self.last_list.get() != listing;
        let mut listed = Vec::new();
        let mut before = self.listed.borrowed_mut();
        for ((name, _), r) in chosen.iter().zip(results) {
            match r {
                // A listing that started after this one and has ended already is newer.
                Ok(_) if before.iter().any(|l| &l.server == name && l.listing > listing) => {
                    listed.extend(before.iter().find(|l| &l.server == name).cloned());
                }
                Ok(list) => listed.push(Listed { server: name.clone(), tools: with_server_name(name, list), listing }),
                Err(e) => errors.push(ServerError { server: name.clone(), error: about_server(e, name) }),
            }
        }
        let tools = listed.iter().flat_map(|l| l.tools.iter().cloned()).collect();
        if !superseded {
            *before = listed;
            self.listed_once.set(true);
            // The hub's servers that failed (not the names of none).
            *self.failing.borrowed_mut() = errors.iter().filter(|e| self.client(&e.server).is_some()).cloned().collect();
            // Each is asked again by a refresh once its wait has passed ([`Hub::refresh`]), not
            // at once: a server that is down would cost every conversion its timeout. Not after
            // a `close_all`, which made them fail: the next refresh asks them.
            if self.closes.get() == closes {
                let (first, _) = REFRESH_BACKOFF_MS;
                let until = self.clock.now_ms().saturating_add(first);
                let mut backoff = self.backoff.borrowed_mut();
                for f in self.failing.borrowed().iter() {
                    backoff.retain(|b| b.server != f.server);
                    backoff.push(Backoff { server: f.server.clone(), until, delay: first });
                }
            }
        }
        (tools, errors)
    }

    /// The tools left out, server by server (of the last listing): those a server's listing left
    /// out (entries that are no objects or have no string `name` or an empty one, with their `index`; 2026-07-28 servers: broken
    /// `x-mcp-header` marks), each `{server, name, reason}`, and
    /// those the last [`Hub::tools`] could not convert, or left out because the policy denies
    /// them (`PERMISSION_DENIED`), each `{server, name, index, code,
    /// reason}` (`index`: in the server's listing; `code`: the error's). With them, the entries
    /// of a listing that repeat a name the server listed before (`INVALID_TOOL`, see
    /// [`listed_again`]): offered, but not a tool of their own.
    pub fn dropped_tools(&self) -> Vec<Value> {
        let (listed, unconverted) = (self.listed.borrowed(), self.unconverted.borrowed());
        let mut out = Vec::new();
        for l in listed.iter() {
            let Some(client) = self.client(&l.server) else { continue };
            for mut d in client.dropped_tools() {
                if let Value::Object(o) = &mut d {
                    o.put("server", string(&l.server));
                }
                out.push(d);
            }
            let left_out: Vec<&Value> = unconverted.iter().filter(|d| d["server"] == l.server.as_str()).collect();
            let offered = |i: usize| !left_out.iter().any(|d| d["index"].as_u64() == Some(i as u64));
            out.extend(listed_again(&l.server, &l.tools, offered));
            out.extend(left_out.into_iter().cloned());
        }
        out
    }

    fn next_listing(&self) -> u64 {
        let n = self.listings.get() + 1;
        self.listings.set(n);
        n
    }

    /// Connects a server if it is not connected, then lists its tools, all within `bound` (or
    /// the server's shorter timeout). At the bound the listing is cancelled as the client's own
    /// timeout cancels a request: its exchange is dropped and the request in flight is told
    /// `notifications/cancelled` (reason "timeout"; not `initialize`, and a handshake given up
    /// lets those waiting for it go on), and the listing ends then.
    async fn list_within(&self, client: &Client<T, C>, bound: u64, what: &str) -> Result<Vec<Value>> {
        let bound = client.options().timeout_ms.min(bound);
        let (stop, stopper) = futures_util::future::abortable(futures_util::future::pending::<()>());
        let mut opts = CallOptions {
            cancel: Some(Box::pin(stop.map(drop))),
            cancel_reason: Some(Box::new(|| Some("timeout".owned()))),
            ..CallOptions::default()
        };
        let list = async {
            client.ensure_connected_with(&mut opts).await?;
            client.list_tools_with(&mut opts).await
        };
        let sleep = self.clock.sleep(bound);
        pin_mut!(list, sleep);
        let timed_out = || Error::new(ErrorCode::Timeout, format!("{what} took more than {bound} ms")).with_detail("timeoutMs", bound);
        match select(list, sleep).await {
            Either::Left((r, _)) => r,
            Either::Right(((), list)) => {
                stopper.abort();
                match list.await {
                    Err(e) if e.code == ErrorCode::Aborted => Err(timed_out()),
                    // Answered meanwhile, or failed otherwise.
                    r => r,
                }
            }
        }
    }

    /// Brings the listing up to date: lists every server when none were listed (the servers of
    /// a [`Hub::list_tools`] still under way, when one is; and when a listing that started
    /// meanwhile has the last word, it waits for that one to end); otherwise lists
    /// again, at once, only the listed servers that announced a change since, or whose session
    /// is no longer the one that answered their listing ([`Client::tools_changed`]), or whose listing is no longer fresh ([`Client::tools_expired`]:
    /// a 2026-07-28 server's `ttlMs`: `0`, or none, is stale at once), and the servers of the
    /// last listing's selection whose listing failed (they offer no tools: down when the hub
    /// first listed them, say; not for `UNAUTHORIZED`, which signing in mends, and
    /// [`Hub::list_tools`] asks again), each within 10 s all in (or
    /// the server's shorter timeout), one refresh at a time per server (another refresh meanwhile waits for it).
    /// A server whose listing fails (here or in [`Hub::list_tools`]) keeps its previous tools, or
    /// has none, and is not asked again by a refresh for 5 s, then 10 s, and so on up to a minute while it
    /// keeps failing (a [`Hub::list_tools`] asks it at once); its error is in
    /// [`Hub::listing_errors`] until a listing of it succeeds. Both because apps convert before
    /// each model turn: a server that is down, or answers only after a timeout, would otherwise
    /// hold up every turn, and one that comes back would otherwise never be offered.
    pub async fn refresh(&self) {
        if !self.listed_once.get() {
            // The selection of a `list_tools` still under way, if one is: listing every server
            // would start a listing after it, whose selection (all) would win over the one asked for.
            let selection = self.selection.borrowed().clone();
            self.list_tools(&selection, None).await;
            // Superseded by a listing that started meanwhile (another conversion's, a
            // `list_tools`), this one stored nothing: that one's is the hub's listing, so it is
            // waited for (converting now would convert none).
            while !self.listed_once.get() && self.lists_running.get() > 0 {
                self.list_ended.wait().await;
            }
            return;
        }
        let now = self.clock.now_ms();
        // Not a server whose wait after a failure has not passed.
        let backed_off = |server: &str| self.backoff.borrowed().iter().any(|b| b.server == server && now < b.until);
        let being_refreshed = |server: &str| self.refreshing.borrowed().iter().any(|s| s == server);
        let stale: Vec<String> = {
            let listed = self.listed.borrowed();
            // The listed servers whose tools may have changed...
            let changed = listed.iter().filter(|l| self.client(&l.server).is_some_and(|c| c.tools_changed() || c.tools_expired())).map(|l| l.server.clone());
            // ...and the selected ones whose last listing failed, which have none here; not one
            // refused for want of authorization, nor one whose 401 a handler answers (OAuth, an
            // onUnauthorized), which a server that comes back may ask: signing in is a person's
            // to do (a sign-in page opened by every few turns, and cut at the refresh's bound,
            // would not do). `list_tools` lists those.
            let failing = self.failing.borrowed();
            let unlisted = failing
                .iter()
                .filter(|f| f.error.code != ErrorCode::Unauthorized && self.selected(&f.server) && !listed.iter().any(|l| l.server == f.server))
                .filter(|f| self.client(&f.server).is_some_and(|c| !c.has_unauthorized_handler()))
                .map(|f| f.server.clone());
            changed.chain(unlisted).filter(|s| !backed_off(s)).collect()
        };
        // A server another refresh is listing is not listed again: that listing is waited for.
        let (busy, stale): (Vec<String>, Vec<String>) = stale.into_iter().partition(|s| being_refreshed(s));
        let stale: Vec<(String, Rc<Client<T, C>>)> = stale.into_iter().filter_map(|s| self.client(&s).map(|c| (s, c))).collect();
        if !stale.is_empty() {
            self.relist(stale).await;
        }
        // Converting before it ends would convert what the server had before its change.
        while busy.iter().any(|s| being_refreshed(s)) {
            self.list_ended.wait().await;
        }
    }

    /// [`Hub::refresh`]'s listing of the servers that changed, or failed.
    async fn relist(&self, changed: Vec<(String, Rc<Client<T, C>>)>) {
        let _refreshing = Refreshing::new(&self.refreshing, changed.iter().map(|(s, _)| s.clone()).collect(), &self.list_ended);
        let listing = self.next_listing();
        let closes = self.closes.get();
        // Each server's whole refresh (a reconnection or a session renewal included) within the
        // bound.
        let results = join_all(changed.iter().map(|(_, client)| self.list_within(client, REFRESH_TIMEOUT_MS, "listing the tools again"))).await;
        let (mut listed, mut backoff, mut failing) = (self.listed.borrowed_mut(), self.backoff.borrowed_mut(), self.failing.borrowed_mut());
        let now = self.clock.now_ms();
        for ((server, _), r) in changed.iter().zip(results) {
            let at = backoff.iter().position(|b| &b.server == server);
            // A listing that started later and succeeded (a `list_tools`) has the last word.
            let newer = listed.iter().any(|l| &l.server == server && l.listing > listing);
            if !newer {
                failing.retain(|f| &f.server != server);
            }
            match r {
                Ok(list) => {
                    if let Some(at) = at {
                        backoff.swap_remove(at);
                    }
                    let fresh = Listed { server: server.clone(), tools: with_server_name(server, list), listing };
                    match listed.iter().position(|l| &l.server == server) {
                        // Not over what a listing that started later has written meanwhile.
                        Some(slot) if listed[slot].listing < listing => listed[slot] = fresh,
                        Some(_) => {}
                        // A server whose listing had failed, still selected: in its place in
                        // the hub's order.
                        None if self.selected(server) => {
                            let rank = |name: &str| self.servers.iter().position(|(n, _)| n == name);
                            let at = listed.iter().position(|l| rank(&l.server) > rank(server)).unwrap_or(listed.len());
                            listed.insert(at, fresh);
                        }
                        None => {}
                    }
                }
                Err(_) if newer => {}
                Err(e) => {
                    failing.push(ServerError { server: server.clone(), error: about_server(e, server) });
                    // A listing that `close_all` ended says nothing of the server: no wait.
                    if self.closes.get() != closes {
                        continue;
                    }
                    let (first, longest) = REFRESH_BACKOFF_MS;
                    let delay = at.map_or(first, |at| (backoff[at].delay * 2).min(longest));
                    let entry = Backoff { server: server.clone(), until: now.saturating_add(delay), delay };
                    match at {
                        Some(at) => backoff[at] = entry,
                        None => backoff.push(entry),
                    }
                }
            }
        }
    }

    /// The servers whose last listing failed, with the error: by [`Hub::list_tools`] (which
    /// sets them all), or by a refresh (which sets each server it lists again, and leaves out
    /// one it lists). A server failing here offers the tools of its last good listing, or none.
    pub fn listing_errors(&self) -> Vec<ServerError> {
        self.failing.borrowed().clone()
    }

    /// [`Hub::refresh`], then [`Hub::tools`]: what the servers offer now, for a provider.
    /// `NOT_CONNECTED` when [`Hub::close_all`] was called while the refresh listed servers:
    /// what it would convert is whatever the close left (the app is closing the hub; a later
    /// call connects the servers again).
    pub async fn tools_refreshed(&self, target: impl Into<Target>, opts: &ConvertOptions) -> Result<String> {
        let closes = self.closes.get();
        self.refresh().await;
        if self.closes.get() != closes {
            return Err(Error::new(
                ErrorCode::NotConnected,
                "tools() was abandoned: closeAll() was called while the servers were being listed (a later tools() connects them again)",
            ));
        }
        self.tools(target, opts)
    }

    /// Converts the listed tools for a provider and keeps the name map for `call_tool`, with the
    /// annotations of its tools (see [`Routes`]), in place of that provider's previous map (the
    /// other providers' maps are kept: [`Hub::call_tool_for`]). Returns the provider's tool list as JSON text
    /// (the JSON API's path: schemas that need no change are passed straight through).
    ///
    /// A tool that cannot be converted (a schema past `opts`' limits, an empty name) takes out
    /// no other: it is left out, and reported by [`Hub::dropped_tools`] with its server and its
    /// index in that server's listing, until the next `tools`. So are the tools of servers
    /// left out for `limits.maxTools` (`LIMIT_EXCEEDED`): when the tools are more than that,
    /// servers are left out whole, those with the most tools first, until the others' fit. A
    /// failure that no tool or server has alone is the whole conversion's error.
    ///
    /// A tool the permission policy denies ([`Policy::denied_by`]: a deny rule, or
    /// `defaultAction: "deny"` with no rule matching it) is not offered either: every call of it
    /// would be refused, so its description and schema would cost the model's context for
    /// nothing. It is judged as a call of it would be, by the name it would have had, and each
    /// tool offered again by the name it is given. It is reported in [`Hub::dropped_tools`]
    /// (`PERMISSION_DENIED`, the reason naming the rule or the default that denies it), counts
    /// for no limit, takes no name from the tools offered and is given none; a call of the names
    /// a model may call it by (the name it would have had, its `mcp__server__tool`) is refused
    /// `PERMISSION_DENIED` ([`Denied`]), and never reaches another tool. A tool `ask` decides
    /// is offered where the hub has a `confirm` to ask, and left out in the same way where it
    /// has none (each call would be refused: `decision: "ask"`, the reason saying how it would
    /// be allowed); a tool `allow` decides is offered. Without a policy every tool is offered.
    ///
    /// A name the hub gave one tool, for any provider, no later `tools` gives another, and a
    /// tool keeps the name it was given while it is listed (see [`GivenNames`]): a call from an
    /// earlier turn reaches its tool or is `UNKNOWN_TOOL_NAME`, whatever the servers listed since
    /// (naming the tool the name was given, and its name now if the map has it under another:
    /// [`no_longer_offered`]).
    pub fn tools(&self, target: impl Into<Target>, opts: &ConvertOptions) -> Result<String> {
        let target = target.into();
        let provider = target.provider;
        let given = Some(Arc::clone(&self.given.borrowed()));
        let mut named = ConvertOptions { naming: NamingOptions { given, ..opts.naming.clone() }, ..opts.clone() };
        let opts = &named;
        let listed = self.listed.borrowed();
        let all: Vec<ListedTool> = listed.iter().flat_map(|l| l.tools.iter().enumerate().map(|(i, t)| (l.server.as_str(), i, t))).collect();
        // The tools no call of which could go through are not offered: those the policy denies,
        // and, where the hub has no confirm callback, those it would ask for. Each is judged by
        // the name it would have had, then each tool offered by the name it has (which leaving
        // some out may change).
        let confirm = self.confirm.is_some();
        let policy = self.policy.as_ref().filter(|p| p.may_deny() || !confirm);
        let mut denied = match policy {
            Some(p) => denied_tools(p, confirm, &all, &opts.naming, opts.naming.rule(provider.name_rule())),
            None => Vec::new(),
        };
        let (conv, tools, mut unconverted, input) = loop {
            let out: HashSet<(&str, usize)> = denied.iter().map(|d| (d.server.as_str(), d.index)).collect();
            let offered: Vec<ListedTool> = all.iter().copied().filter(|(s, i, _)| !out.contains(&(*s, *i))).collect();
            let (conv, tools, unconverted, input) = convert_listed(&listed, offered, provider, opts)?;
            let Some(p) = policy else { break (conv, tools, unconverted, input) };
            let annotations = if confirm { Vec::new() } else { judged_annotations(&tools) };
            let late: Vec<Denied> = conv
                .name_map
                .entries()
                .iter()
                .zip(&tools)
                .enumerate()
                .filter_map(|(at, (e, (server, index, _)))| {
                    let by = LeftOutBy::judge(p, confirm, server, &e.tool, &e.name, annotations.get(at).and_then(Option::as_ref))?;
                    Some(Denied::new(server, *index, &e.tool, vec![e.name.clone()], by))
                })
                .collect();
            if late.is_empty() {
                break (conv, tools, unconverted, input);
            }
            denied.extend(late);
        };
        if !denied.is_empty() {
            let at: HashMap<(&str, usize), &Value> = all.iter().map(|&(s, i, t)| ((s, i), t)).collect();
            for d in &denied {
                if let Some(tool) = at.get(&(d.server.as_str(), d.index)) {
                    unconverted.push(unconverted_tool(&d.server, d.index, tool, ErrorCode::PermissionDenied, &d.reason()));
                }
            }
            // Each server's in its listing's order ([`Hub::dropped_tools`] goes server by server).
            unconverted = crate::model::sorted_by_key(unconverted, |d| d["index"].as_u64().map_or(0, |i| (i as usize).saturating_add(1)));
        }
        let annotations = match self.policy {
            Some(_) => judged_annotations(&tools),
            None => Vec::new(),
        };
        // Its only other holder gone, the hub's is changed in place.
        named.naming.given = None;
        Arc::make_mut(&mut self.given.borrowed_mut()).record(&conv.name_map);
        {
            let mut routes = self.routes.borrowed_mut();
            routes.retain(|r| r.target != target);
            routes.push(Routes { target, map: conv.name_map, annotations, denied, input, opts: named, report: None });
        }
        *self.unconverted.borrowed_mut() = unconverted;
        Ok(conv.tools)
    }

    /// The name map of the last `tools` call.
    pub fn name_map(&self) -> Option<NameMap> {
        self.name_map_for(None)
    }

    /// The name map of the last `tools` call for `provider` (`None`: of the last `tools` call,
    /// whatever its provider).
    pub fn name_map_for(&self, target: Option<Target>) -> Option<NameMap> {
        let routes = self.routes.borrowed();
        match target {
            None => routes.last(),
            Some(t) => routes.iter().find(|r| r.target == t),
        }
        .map(|r| r.map.clone())
    }

    /// The conversion report of the last `tools` call for `target` (`None`: of the last `tools`
    /// call, whatever its provider), or `None` before one: what the provider's rules changed in
    /// the tools offered and what problems remain, over the whole set (a provider's tool-count
    /// limit, strict fallbacks for a per-request limit, names shortened or sanitized), as
    /// `checkTools` says it of the same tools and options, with the names the hub gave. Made
    /// when first asked, then kept until the next `tools` for that provider. The tools the hub
    /// left out are not in it ([`Hub::dropped_tools`]).
    pub fn report_for(&self, target: Option<Target>) -> Result<Option<Report>> {
        let mut routes = self.routes.borrowed_mut();
        let routes = match target {
            None => routes.last_mut(),
            Some(t) => routes.iter_mut().find(|r| r.target == t),
        };
        let Some(r) = routes else { return Ok(None) };
        if let Some(report) = &r.report {
            return Ok(Some(report.clone()));
        }
        // The names the map has. Where the tools, named afresh, have them all (no name kept from
        // an earlier listing), they are checked as `checkTools` checks them, and say what it
        // says (a clash hashed is `names/collision`); else each is given the name it was (the
        // hub's earlier names shape a name only through the map).
        let pairs: Vec<(Option<&str>, &str)> = r.map.entries().iter().map(|e| (e.server.as_deref(), e.tool.as_str())).collect();
        let fresh_opts = NamingOptions { given: None, ..r.opts.naming.clone() };
        let (fresh, _) = NameMap::build(&pairs, &fresh_opts, fresh_opts.rule(r.target.provider.name_rule()));
        let same = fresh.entries().iter().zip(r.map.entries()).all(|(a, b)| a.name == b.name);
        let given = (!same).then(|| {
            let mut given = GivenNames::default();
            given.record(&r.map);
            Arc::new(given)
        });
        let opts = ConvertOptions { naming: NamingOptions { given, ..r.opts.naming.clone() }, ..r.opts.clone() };
        let report = crate::convert::check_json(&r.input, r.target.provider, &opts)?;
        #[cfg(test)]
        REPORTS_MADE.with(|n| n.set(n.get() + 1));
        r.report = Some(report.clone());
        Ok(Some(report))
    }

    /// The server and MCP tool that [`Hub::call_tool_for`] would route `provider_name` to, by the
    /// same map, or `None` for a name it does not know.
    pub fn route(&self, target: Option<Target>, provider_name: &str) -> Option<(String, String)> {
        let routes = self.routes.borrowed();
        let routes = match target {
            None => routes.last(),
            Some(t) => routes.iter().find(|r| r.target == t),
        }?;
        let (e, _) = routes.resolve(provider_name).ok()?;
        Some((e.server.clone().unwrap_or_default(), e.tool.clone()))
    }

    /// Whether the last [`Hub::list_tools`] was asked for `server` (every server until one is).
    fn selected(&self, server: &str) -> bool {
        match &*self.selection.borrowed() {
            Selection::Auto => true,
            Selection::Manual(names) => names.iter().any(|n| n == server),
            Selection::Disabled => false,
        }
    }

    /// Routes a provider tool call: name map, policy, server, flattened result. The policy
    /// judges the tool the map routes to, as it was when [`Hub::tools`] made the map. A name of a
    /// server the last [`Hub::list_tools`] left out (deselected, or tools turned off) is
    /// `UNKNOWN_TOOL_NAME`: its tools are no longer offered; so is a call whose server a listing
    /// left out while it waited for its confirmation or its connection. A server whose listing failed is
    /// still called through the map, which has the tools it had. A name the map does not have
    /// that names a tool the policy denies, which [`Hub::tools`] left out, is `PERMISSION_DENIED`
    /// (`decision: "deny"`), saying so: no server is called.
    ///
    /// The name is looked up in the map of the last [`Hub::tools`], whatever its provider: see
    /// [`Hub::call_tool_for`] for an app that converts for several providers.
    pub async fn call_tool(&self, provider_name: &str, args: Value, opts: CallOptions) -> Result<HubCall> {
        self.call_tool_for(None, provider_name, args, opts).await
    }

    /// [`Hub::call_tool`] through the map of the last [`Hub::tools`] for `provider` (`None`: the
    /// last map, whatever its provider): the call a provider's model made is read with the names,
    /// argument plan (an OpenAI strict `null` meaning "absent", Gemini's stringified enums) and
    /// annotations that provider was given, whichever provider was converted for since. A
    /// provider that `tools` was never called for is `UNKNOWN_TOOL_NAME`.
    pub async fn call_tool_for(&self, target: Option<Target>, provider_name: &str, args: Value, mut opts: CallOptions) -> Result<HubCall> {
        // `name`: the map's own name for the tool, which the policy judges (the model may have
        // called it inside a namespace, `functions.NAME`: see `NameMap::position`).
        let (name, server, tool, plan, annotations, provider) = {
            let routes = self.routes.borrowed();
            let routes = match target {
                None => routes.last(),
                Some(t) => routes.iter().find(|r| r.target == t),
            };
            let routes = routes.ok_or_else(|| match target {
                None => Error::new(ErrorCode::UnknownToolName, format!("no tool is named \"{provider_name}\": call tools(provider) first")),
                Some(p) => Error::new(
                    ErrorCode::UnknownToolName,
                    format!("no tool is named \"{provider_name}\" for provider \"{}\": call tools(\"{}\") first", p.name, p.name),
                ),
            })?;
            let (e, annotations) = routes.resolve(provider_name).map_err(|e| routes.denied(provider_name).unwrap_or_else(|| no_longer_offered(&self.given.borrowed(), &routes.map, provider_name, e)))?;
            (e.name.clone(), e.server.clone().unwrap_or_default(), e.tool.clone(), e.args.clone(), annotations, routes.target.name)
        };
        // Every error from here on names the tool and its server.
        // A server deselected (or tools turned off) by a listing while the call waited, for
        // its confirmation or its connection, is not called either.
        let still_selected = |waited_for: &str| {
            if self.selected(&server) {
                return Ok(());
            }
            Err(Error::new(
                ErrorCode::UnknownToolName,
                format!("\"{provider_name}\" is a tool of server \"{server}\", which the last listing, made while the call waited for {waited_for}, did not select: its tools are not offered, and it was not called"),
            ))
        };
        // `max_total_timeout_ms` bounds the whole call: the confirmation and the connection
        // first, then the request, which is given what is left of it.
        let started = self.clock.now_ms();
        let called = async {
            if !self.selected(&server) {
                return Err(Error::new(
                    ErrorCode::UnknownToolName,
                    format!("\"{provider_name}\" is a tool of server \"{server}\", which the last listing did not select: its tools are not offered"),
                ));
            }
            let args = crate::calls::model_arguments(provider_name, crate::calls::RawArgs::Json(args))?;
            // Mapped back whole, or LIMIT_EXCEEDED (as parseToolCalls and prepareArguments map them).
            let args = match plan {
                Some(p) => p.try_apply(args, provider_name)?,
                None => args,
            };
            // MCP sends a tool's arguments as an object: a root schema that is not one (wrapped
            // as `input` for the provider) unwraps to a value no MCP request can carry.
            if !args.is_object() {
                return Err(Error::new(
                    ErrorCode::InvalidArguments,
                    format!(
                        "\"{provider_name}\" cannot be called through MCP: its input schema is not an object schema, and its arguments are {} where MCP sends an object",
                        crate::model::json_type(&args)
                    ),
                ));
            }
            if let Some(policy) = &self.policy {
                let (action, asked_by) = policy.check_tool_why(&server, &tool, &name, annotations.as_ref());
                match action {
                    Action::Allow => {}
                    Action::Deny => {
                        return Err(Error::new(ErrorCode::PermissionDenied, format!("the permission policy denies \"{provider_name}\""))
                            .with_detail("decision", "deny"))
                    }
                    Action::Ask => {
                        // A call aborted already (a signal aborted before the call) asks no one.
                        if opts.cancel.as_mut().is_some_and(|cancel| cancel.as_mut().now_or_never().is_some()) {
                            return Err(Error::new(ErrorCode::Aborted, format!("the call of \"{provider_name}\" was aborted before its confirmation was asked for")));
                        }
                        let answer = match &self.confirm {
                            Some(confirm) => Some({
                                let asked = confirm(&ConfirmRequest { name: &name, args: &args, server: &server, tool: &tool, provider });
                                // An abort, the call's total time running out, or `close_all`, while
                                // the user is asked ends the call now (and drops the question, which
                                // aborts its signal), not once they answer: a call confirmed after the
                                // close would connect the server again, a session no one closes.
                                let closed = self.close_started.wait();
                                let total = opts.max_total_timeout_ms;
                                let cancel = async {
                                    match opts.cancel.as_mut() {
                                        Some(cancel) => cancel.await,
                                        None => futures_util::future::pending().await,
                                    }
                                };
                                let deadline = async {
                                    match total {
                                        Some(ms) => self.clock.sleep(ms).await,
                                        None => futures_util::future::pending().await,
                                    }
                                };
                                pin_mut!(cancel, deadline, closed);
                                // The close first: an answer that came with it is too late.
                                match select(select(closed, asked), select(cancel, deadline)).await {
                                    Either::Left((Either::Right((answer, _)), _)) => answer,
                                    Either::Left((Either::Left(_), _)) => {
                                        return Err(Error::new(
                                            ErrorCode::NotConnected,
                                            format!("the call of \"{provider_name}\" was abandoned: closeAll() was called while its confirmation was asked for; it was not sent (a later call connects the server again)"),
                                        ))
                                    }
                                    Either::Right((Either::Left(_), _)) => {
                                        return Err(Error::new(
                                            ErrorCode::Aborted,
                                            format!("the call of \"{provider_name}\" was aborted while its confirmation was asked for"),
                                        ))
                                    }
                                    Either::Right((Either::Right(_), _)) => {
                                        let ms = total.unwrap_or_default();
                                        return Err(Error::new(
                                            ErrorCode::Timeout,
                                            format!("the call of \"{provider_name}\" took more than its total of {ms} ms (maxTotalTimeoutMs) while its confirmation was asked for; it was not sent"),
                                        )
                                        .with_detail("timeoutMs", ms));
                                    }
                                }
                            }),
                            None => None,
                        };
                        let how = allow_hint(asked_by, &server, &tool);
                        let why = match answer {
                            Some(Ok(true)) => None,
                            Some(Ok(false)) => Some(format!("\"{provider_name}\" needs confirmation and was not confirmed (confirm answered false); {how}")),
                            Some(Err(e)) => Some(format!("\"{provider_name}\" needs confirmation, and asking for it failed: {e}")),
                            None => Some(format!(
                                "\"{provider_name}\" needs confirmation and was not confirmed: the hub has no confirm callback to ask (give McpHub options.confirm); {how}"
                            )),
                        };
                        if let Some(why) = why {
                            return Err(Error::new(ErrorCode::PermissionDenied, why).with_detail("decision", "ask"));
                        }
                        still_selected("its confirmation")?;
                    }
                }
            }
            let client = self.client(&server).ok_or_else(|| Error::new(ErrorCode::UnknownToolName, format!("no server named \"{server}\"")))?;
            // After closeAll (or a session the server ended), connected again, as `request` is,
            // under the call's timeout and cancellation.
            client.ensure_connected_with(&mut opts).await?;
            still_selected("its server's connection")?;
            if let Some(ms) = opts.max_total_timeout_ms {
                let spent = self.clock.now_ms().saturating_sub(started);
                if spent >= ms {
                    return Err(Error::new(
                        ErrorCode::Timeout,
                        format!("the call of \"{provider_name}\" took more than its total of {ms} ms (maxTotalTimeoutMs) before it was sent; it was not sent"),
                    )
                    .with_detail("timeoutMs", ms));
                }
                opts.max_total_timeout_ms = Some(ms - spent);
            }
            client.call_tool(&tool, args, &mut opts).await
        };
        let result = called.await.map_err(|e| about_server(e.with_tool(&tool), &server))?;
        let parsed = CallToolResult::from_value(result.clone()).unwrap_or_default();
        let text = flatten_result(&parsed, FlattenOptions::default());
        Ok(HubCall { server, tool, is_error: parsed.is_error == Some(true), result, text })
    }

    /// Any other request to one server (as [`Client::request_checked`]: `resources/read`,
    /// `prompts/get`...), connecting it first if it is not connected. Errors carry `server`; a
    /// name the hub does not know is `INVALID_INPUT`. With a permission policy, `tools/call` is
    /// `INVALID_INPUT` too, pointing to [`Hub::call_tool`]: the policy judges every call, and a call
    /// sent by method name would go around it (and around its confirmation).
    pub async fn request(&self, server: &str, method: &str, params: Value, mut opts: CallOptions) -> Result<Value> {
        let sent = async {
            Client::<T, C>::by_name(method)?;
            if method == "tools/call" && self.policy.is_some() {
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    "tools/call is not sent through request() by a hub with a permission policy, which judges every call: call the tool with callTool (its name from tools()), which checks the policy and asks for confirmation".owned(),
                ));
            }
            let client = self.named(server)?;
            client.ensure_connected().await?;
            client.request_checked(method, params, &mut opts).await
        };
        sent.await.map_err(|e| about_server(e, server))
    }

    /// A notification to one server ([`Client::notify_checked`]), connecting it first if it is
    /// not connected. Errors carry `server`.
    pub async fn notify(&self, server: &str, method: &str, params: Value, mut opts: CallOptions) -> Result<()> {
        let sent = async {
            Client::<T, C>::notifiable(method)?;
            let client = self.named(server)?;
            client.ensure_connected().await?;
            client.notify_checked(method, params, &mut opts).await
        };
        sent.await.map_err(|e| about_server(e, server))
    }

    /// [`Client::list_all`] on one server, connecting it if needed; errors name the server.
    pub async fn list_all(&self, server: &str, method: &str, params: Value, mut opts: CallOptions) -> Result<Vec<Value>> {
        let listed = async {
            Client::<T, C>::list_key(method)?;
            let client = self.named(server)?;
            client.ensure_connected().await?;
            client.list_all(method, params, &mut opts).await
        };
        listed.await.map_err(|e| about_server(e, server))
    }

    fn named(&self, server: &str) -> Result<Rc<Client<T, C>>> {
        self.client(server)
            .ok_or_else(|| Error::new(ErrorCode::InvalidInput, format!("no server named \"{server}\" (one of: {})", self.server_names().join(", "))))
    }

    /// Listens on the standalone stream ([`Client::listen`]) of every server of the last
    /// listing's selection (every server until [`Hub::list_tools`] selects some), connecting
    /// those not connected yet (a first listing under way shares their handshake), and of any
    /// other server connected, until [`Hub::close_all`]: whether each offers one, and the servers
    /// whose stream failed (one that could not be connected among them: its listen ends then,
    /// and another `listen` tries it again, joining the streams already open).
    /// `on_end` hears of each server's end as it comes (its name and what its `listen` gave),
    /// while the others listen on. Errors carry `server`, as every hub error does.
    pub async fn listen(&self, on_end: &dyn Fn(&str, &Result<bool>)) -> (Vec<(String, bool)>, Vec<ServerError>) {
        let chosen = self.servers.iter().filter(|(name, c)| c.is_connected() || self.selected(name));
        let results = join_all(chosen.map(|(name, client)| async move {
            let listened = async {
                client.ensure_connected().await?;
                client.listen().await
            };
            let r = listened.await.map_err(|e| about_server(e, name));
            on_end(name, &r);
            (name.clone(), r)
        }))
        .await;
        let (mut offered, mut failed) = (Vec::new(), Vec::new());
        for (server, r) in results {
            match r {
                Ok(b) => offered.push((server, b)),
                Err(error) => failed.push(ServerError { server, error }),
            }
        }
        (offered, failed)
    }

    /// Closes every session, each with at most 3 s before it is abandoned (which aborts its
    /// request). Returns the servers whose close failed (their errors carry `server`).
    pub async fn close_all(&self) -> Vec<ServerError> {
        self.closes.set(self.closes.get() + 1);
        self.close_started.fire();
        let results = join_all(self.servers.iter().map(|(name, client)| async move {
            let close = client.close();
            let grace = self.clock.sleep(3_000);
            pin_mut!(close, grace);
            let r = match select(close, grace).await {
                Either::Left((r, _)) => r,
                Either::Right(_) => Err(Error::new(ErrorCode::Timeout, "close took more than 3 s; abandoned")),
            };
            (name.clone(), r.map_err(|e| about_server(e, name)))
        }))
        .await;
        results.into_iter().filter_map(|(server, r)| r.err().map(|error| ServerError { server, error })).collect()
    }
}

/// An error about one server: the server in its details (`server`), which its text (`Display`,
/// a JS error's `message`) names after the message, as it names the tool: a log of the message
/// alone says which server failed.
pub(crate) fn about_server(e: Error, server: &str) -> Error {
    e.with_detail("server", server.owned())
}

/// The entries of a server's listing that repeat an earlier entry's name, each `{server, name,
/// index, code, reason}`: the server lists one tool more than once (MCP: names SHOULD be unique
/// within a server). Each entry is offered, under a name of its own, and every one calls the
/// server's one tool, which runs as at most one of them says: the app is told (as the conversion's
/// report says `names/duplicate-tool`), and what the server gave is not changed.
/// `offered`: whether the entry at an index was converted (one left out repeats nothing).
fn listed_again(server: &str, tools: &[Value], offered: impl Fn(usize) -> bool) -> Vec<Value> {
    let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for (index, tool) in tools.iter().enumerate().filter(|(i, _)| offered(*i)) {
        let Some(name) = tool.get("name").and_then(Value::as_str) else { continue };
        let at = *first.entry(name).or_insert(index);
        if at != index {
            let reason = format!(
                "server \"{server}\" lists tool \"{name}\" again (first at index {at}): each entry is offered under a name of its own, and every one calls its one tool \"{name}\""
            );
            out.push(unconverted_tool(server, index, tool, ErrorCode::InvalidTool, &reason));
        }
    }
    out
}

/// Converts the listed tools `tools` of `listed`: the conversion, the tools converted, and those
/// left out (each `{server, name, index, code, reason}`): a tool that cannot be converted takes
/// out no other, and past `limits.maxTools` servers are left out whole (see [`Hub::tools`]).
fn convert_listed<'a>(listed: &[Listed], tools: Vec<ListedTool<'a>>, provider: crate::providers::Provider, opts: &ConvertOptions) -> Result<(crate::convert::TextConversion, Vec<ListedTool<'a>>, Vec<Value>, String)> {
    let input = json_array(&tools);
    match convert_json_named(&input, provider, opts) {
        Ok(conv) => Ok((conv, tools, Vec::new(), input)),
        // Which tools fail is found once a conversion has failed: each is tried alone.
        Err(e) => {
            let (mut kept, mut unconverted) = (Vec::new(), Vec::new());
            for (server, index, tool) in tools {
                match tool_error(tool, index, provider, opts) {
                    None => kept.push((server, index, tool)),
                    Some(why) => unconverted.push(unconverted_tool(server, index, tool, why.code, &why.to_string())),
                }
            }
            // More tools than `limits.maxTools`: servers are left out whole, those with the
            // most tools first (the later one of two alike), until the others' fit (one
            // server with many tools takes out no other).
            let max = opts.schema.limits.max_tools;
            if kept.len() > max {
                let counts: Vec<(&str, usize)> = listed.iter().map(|l| (l.server.as_str(), kept.iter().filter(|(s, _, _)| *s == l.server).count())).collect();
                // Stable: of two alike, the later one in the hub's order comes first once reversed.
                let mut counts = crate::model::sorted_by_key(counts, |(_, n)| *n);
                let (mut total, mut over) = (kept.len(), Vec::new());
                while total > max {
                    let Some((server, n)) = counts.pop() else { break };
                    total -= n;
                    over.push((server, n));
                }
                let (left_out, still): (Vec<ListedTool>, Vec<ListedTool>) = kept.into_iter().partition(|(s, _, _)| over.iter().any(|(o, _)| o == s));
                kept = still;
                for (server, index, tool) in left_out {
                    let n = over.iter().find(|(o, _)| *o == server).map_or(0, |(_, n)| *n);
                    let why = format!("server \"{server}\" offers {n} tools: with the other servers' tools more than limits.maxTools ({max}), and the servers with the most tools are left out first");
                    unconverted.push(unconverted_tool(server, index, tool, ErrorCode::LimitExceeded, &why));
                }
                // Each server's in its listing's order ([`Hub::dropped_tools`] goes server by server).
                // (Every entry has its index, a usize: one past it, as a key, keeps `None` first.)
                unconverted = crate::model::sorted_by_key(unconverted, |d| d["index"].as_u64().map_or(0, |i| (i as usize).saturating_add(1)));
            }
            if unconverted.is_empty() {
                return Err(e);
            }
            let input = json_array(&kept);
            Ok((convert_json_named(&input, provider, opts)?, kept, unconverted, input))
        }
    }
}

/// A tool [`Hub::tools`] leaves out because no call of it could go through: the policy denies
/// it, or it decides "ask" and the hub has no `confirm` to ask. `names`: those a model may call
/// it by (the name it would have had, its plain `prefixToolName` name, its `mcp__server__tool`),
/// which [`Hub::call_tool`] refuses `PERMISSION_DENIED`.
struct Denied {
    server: String,
    index: usize,
    tool: String,
    names: Vec<String>,
    by: LeftOutBy,
}

/// Why the policy leaves a tool out of [`Hub::tools`].
#[derive(Clone)]
enum LeftOutBy {
    /// It denies the tool; `can_ask`: whether the hub has a `confirm` (an `ask` rule would
    /// offer the tool only then).
    Deny { by: DeniedBy, can_ask: bool },
    /// It decides "ask" (for this reason), and the hub has no `confirm` to ask: every call
    /// would be refused.
    Unconfirmable(Option<AskedBy>),
}

impl LeftOutBy {
    /// Why `policy` leaves server `server`'s tool `tool`, named `name` for the provider, out of
    /// the tools offered, where `confirm` says whether the hub can ask for a confirmation (as
    /// a call of it would be judged: [`Hub::call_tool`]).
    fn judge(policy: &Policy, confirm: bool, server: &str, tool: &str, name: &str, annotations: Option<&ToolAnnotations>) -> Option<Self> {
        if let Some(by) = policy.denied_by(server, tool, name) {
            return Some(Self::Deny { by, can_ask: confirm });
        }
        if confirm {
            return None;
        }
        match policy.check_tool_why(server, tool, name, annotations) {
            (Action::Ask, by) => Some(Self::Unconfirmable(by)),
            _ => None,
        }
    }

    /// The `decision` of a call's refusal.
    fn decision(&self) -> &'static str {
        match self {
            Self::Deny { .. } => "deny",
            Self::Unconfirmable(_) => "ask",
        }
    }
}

impl Denied {
    fn new(server: &str, index: usize, tool: &str, names: Vec<String>, by: LeftOutBy) -> Self {
        Self { server: server.owned(), index, tool: tool.owned(), names, by }
    }

    /// What denies it: `its deny rule "P" matches it`, or the default action.
    fn why(by: &DeniedBy) -> String {
        match by {
            DeniedBy::Rule(pattern) => format!("its deny rule {} matches it", crate::text::quote(pattern)),
            DeniedBy::DefaultAction => "no rule matches it, and its defaultAction is \"deny\"".owned(),
        }
    }

    /// `server "s"'s tool "t"`.
    fn which(&self) -> String {
        server_tool(&self.server, &self.tool)
    }

    /// Its `droppedTools` reason.
    fn reason(&self) -> String {
        let (server, tool) = (&self.server, &self.tool);
        let which = self.which();
        match &self.by {
            LeftOutBy::Deny { by, can_ask } => {
                // An ask rule offers a tool only where the hub can ask.
                let rule = if *can_ask { "an allow or ask rule" } else { "an allow rule" };
                let how = match by {
                    DeniedBy::Rule(_) => "to offer it, take it out of that rule".owned(),
                    DeniedBy::DefaultAction => match crate::policy::exact_pattern(server, tool) {
                        Some(exact) => format!("to offer it, add {rule} for it ({}, or \"mcp__{server}\" for the whole server)", crate::text::quote(&exact)),
                        None => format!("to offer it, add {rule} for its server (\"mcp__{server}\")"),
                    },
                };
                format!("the permission policy denies {which} ({}): it is not offered, as every call of it would be refused PERMISSION_DENIED; {how}", Self::why(by))
            }
            LeftOutBy::Unconfirmable(by) => format!(
                "{which} needs confirmation, and the hub has no confirm callback to ask (give McpHub options.confirm): it is not offered, as every call of it would be refused PERMISSION_DENIED; {}",
                allow_hint(*by, server, tool)
            ),
        }
    }

    /// The error of a call of one of its names (`called`): refused, not sent.
    fn refusal(&self, called: &str) -> Error {
        let (called, which) = (crate::text::quote(called), self.which());
        let message = match &self.by {
            LeftOutBy::Deny { by, .. } => format!("{called} is {which}, which the permission policy denies ({}): tools() did not offer it, and it was not called", Self::why(by)),
            LeftOutBy::Unconfirmable(by) => format!(
                "{called} is {which}, which needs confirmation, and the hub has no confirm callback to ask (give McpHub options.confirm): tools() did not offer it, and it was not called; {}",
                allow_hint(*by, &self.server, &self.tool)
            ),
        };
        let e = Error::new(ErrorCode::PermissionDenied, message).with_detail("decision", self.by.decision());
        about_server(e.with_tool(&self.tool), &self.server)
    }
}

/// The listed tools `policy` leaves out ([`LeftOutBy::judge`]; `confirm`: whether the hub can
/// ask), each judged by the name it would have had were every listed tool offered (naming
/// `opts`, rule `rule`), as a call of it would be.
fn denied_tools(policy: &Policy, confirm: bool, all: &[ListedTool], opts: &NamingOptions, rule: crate::naming::NameRule) -> Vec<Denied> {
    let annotations = if confirm { Vec::new() } else { judged_annotations(all) };
    // A tool without a string name has no name to judge (nor is it converted).
    let named: Vec<(&str, usize, &str, Option<&ToolAnnotations>)> = all
        .iter()
        .enumerate()
        .filter_map(|(at, (s, i, t))| t.get("name").and_then(Value::as_str).map(|n| (*s, *i, n, annotations.get(at).and_then(Option::as_ref))))
        .collect();
    let pairs: Vec<(Option<&str>, &str)> = named.iter().map(|(s, _, t, _)| (Some(*s), *t)).collect();
    let (map, _) = NameMap::build(&pairs, opts, rule);
    let given = opts.given.as_deref();
    named
        .iter()
        .zip(map.entries())
        .filter_map(|((server, index, tool, annotations), e)| {
            let by = LeftOutBy::judge(policy, confirm, server, tool, &e.name, *annotations)?;
            let mut names = vec![e.name.clone()];
            // The names a model may guess, where the hub gave no other tool the name.
            for guess in [crate::naming::prefix_tool_name(Some(server), tool, opts, rule), format!("mcp__{server}__{tool}")] {
                let others = given.and_then(|g| g.owner(&guess)).is_some_and(|o| o != (Some(*server), *tool));
                if !others && !names.contains(&guess) {
                    names.push(guess);
                }
            }
            Some(Denied::new(server, *index, tool, names, by))
        })
        .collect()
}

/// `server "s"'s tool "t"`, as messages name a server's tool.
fn server_tool(server: &str, tool: &str) -> String {
    format!("server {}'s tool {}", crate::text::quote(server), crate::text::quote(tool))
}

/// A listed tool: its server, its index in that server's listing, the tool.
type ListedTool<'a> = (&'a str, usize, &'a Value);

/// A tool [`Hub::tools`] left out: `{server, name, index, code, reason}`.
fn unconverted_tool(server: &str, index: usize, tool: &Value, code: ErrorCode, reason: &str) -> Value {
    object([
        ("server", server.into()),
        ("name", tool.get("name").and_then(Value::as_str).unwrap_or_default().into()),
        ("index", index.into()),
        ("code", code.as_str().into()),
        ("reason", reason.into()),
    ])
}

/// The annotations the policy judges each listed tool on: its own, but where a server lists one
/// tool more than once (a pagination repeat) with different hints, those of a repeat that may be
/// destructive for every repeat, as they are one tool: `askDestructive` asks for all of its names
/// or none, whichever the model calls (each repeat has a name of its own).
fn judged_annotations(tools: &[ListedTool]) -> Vec<Option<ToolAnnotations>> {
    let tool_name = |t: &Value| t.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
    let own: Vec<Option<ToolAnnotations>> = tools.iter().map(|(_, _, t)| t.get("annotations").cloned().and_then(ToolAnnotations::from_value)).collect();
    let mut cautious: std::collections::HashMap<(&str, String), usize> = std::collections::HashMap::new();
    for (i, (server, _, t)) in tools.iter().enumerate() {
        if crate::policy::may_destroy(own[i].as_ref()) {
            cautious.entry((*server, tool_name(t))).or_insert(i);
        }
    }
    if cautious.is_empty() {
        return own;
    }
    tools.iter().enumerate().map(|(i, (server, _, t))| own[cautious.get(&(*server, tool_name(t))).copied().unwrap_or(i)].clone()).collect()
}

/// Tools as one JSON array, written from where they are kept (no copies).
/// How a call the policy asks about would be let through without asking, by what asked.
fn allow_hint(asked_by: Option<AskedBy>, server: &str, tool: &str) -> String {
    match asked_by {
        Some(AskedBy::Rule) => format!("an ask rule of the policy matches \"mcp__{server}__{tool}\" (ask wins over allow): to call it without asking, take it out of that rule"),
        Some(AskedBy::AskDestructive) => "the policy's askDestructive asks for it, as its annotations do not say readOnlyHint: true or destructiveHint: false: to call it without asking, turn askDestructive off".to_owned(),
        // An allow rule is advised only where it names this tool alone: `mcp__fs__read*` for a
        // tool named `read*` would allow `read_secrets` too.
        Some(AskedBy::DefaultAction) | None => match crate::policy::exact_pattern(server, tool) {
            Some(exact) => format!(
                "no rule of the policy matches it, and its defaultAction is \"ask\": to call it without asking, add an allow rule ({}, or \"mcp__{server}\" for the whole server) or set defaultAction: \"allow\"",
                crate::text::quote(&exact)
            ),
            None => format!(
                "no rule of the policy matches it, and its defaultAction is \"ask\": no allow rule can name this tool alone (its name holds \"*\" or \"?\", which a pattern reads as a glob, or what a pattern cannot hold), so to call it, confirm each call (McpHub options.confirm), or allow the whole server (\"mcp__{server}\") or set defaultAction: \"allow\""
            ),
        },
    }
}

fn json_array(tools: &[ListedTool]) -> String {
    let mut json = vec![b'['];
    for (i, (_, _, t)) in tools.iter().enumerate() {
        if i > 0 {
            json.push(b',');
        }
        crate::text::write_value(&mut json, t);
    }
    json.push(b']');
    crate::text::into_string(json)
}

/// A server's tools, each with `serverName`.
fn with_server_name(server: &str, mut tools: Vec<Value>) -> Vec<Value> {
    for t in &mut tools {
        if let Value::Object(o) = t {
            o.put("serverName", string(server));
        }
    }
    tools
}

#[cfg(test)]
mod tests {
    //! The hub over clients driven by the client tests' scripted transport (2025 servers).

    use futures_executor::block_on;
    use serde_json::json;

    use super::*;
    use crate::providers::Provider;
    use crate::protocol::client::tests::{accepted, body, harness_with, init_reply, init_reply_id, json_reply, legacy, status_reply, FakeClock, Reply, Scripted};
    use crate::protocol::transport::{HttpRequest, Method};

    type TestHub = Hub<Scripted, FakeClock>;

    /// A `tools/list` result.
    fn listing(tools: Value) -> Reply {
        Reply::Echo(json!({ "tools": tools }))
    }

    /// A hub over servers, each answering its handshake and then `replies`, in order.
    fn hub(servers: Vec<(&str, Vec<Reply>)>, policy: Option<Value>, confirm: Option<Confirm>) -> TestHub {
        hub_and_clock(servers, policy, confirm).0
    }

    /// [`hub`], and the hub's clock.
    fn hub_and_clock(servers: Vec<(&str, Vec<Reply>)>, policy: Option<Value>, confirm: Option<Confirm>) -> (TestHub, FakeClock) {
        let mut clock = None;
        let clients = servers
            .into_iter()
            .map(|(name, replies)| {
                let h = harness_with([vec![init_reply("2025-11-25", Some(name)), accepted()], replies].concat(), legacy(), 1_000);
                clock.get_or_insert(h.clock);
                (name.to_owned(), Rc::new(h.client))
            })
            .collect();
        let clock = clock.unwrap();
        (Hub::new(clients, clock.clone(), policy.map(|p| Policy::from_value(p).unwrap()), confirm), clock)
    }

    /// A confirmation that says no, and the names it was asked about.
    fn refusing() -> (Confirm, Rc<RefCell<Vec<String>>>) {
        let asked = Rc::new(RefCell::new(Vec::new()));
        let seen = asked.clone();
        let confirm: Confirm = Box::new(move |asked| {
            seen.borrow_mut().push(asked.name.to_owned());
            Box::pin(async { Ok(false) })
        });
        (confirm, asked)
    }

    fn call(hub: &TestHub, name: &str) -> Result<HubCall> {
        block_on(hub.call_tool(name, json!({}), CallOptions::default()))
    }

    /// The servers whose last listing failed are said ([`Hub::listing_errors`]): after the first
    /// listing that `tools_refreshed` makes itself (which does not fail for it), and after
    /// `list_tools`, which sets them all.
    #[test]
    fn the_servers_whose_last_listing_failed_are_said() {
        let web = json!([{"name": "fetch"}]);
        let hub = hub(vec![("fs", vec![Reply::NetworkError, listing(json!([{"name": "read"}]))]), ("web", vec![listing(web.clone()), listing(web)])], None, None);
        assert!(hub.listing_errors().is_empty());
        let out = block_on(hub.tools_refreshed(Provider::Anthropic, &ConvertOptions::default())).unwrap();
        assert!(out.contains("mcp__web__fetch") && !out.contains("read"), "{out}");
        let failing = hub.listing_errors();
        assert_eq!(failing.iter().map(|f| (f.server.as_str(), f.error.code)).collect::<Vec<_>>(), [("fs", ErrorCode::Network)]);
        assert_eq!(failing[0].error.details.as_ref().unwrap()["server"], "fs");
        let (tools, errors) = block_on(hub.list_tools(&Selection::Auto, None));
        assert_eq!((tools.len(), errors.len()), (2, 0));
        assert!(hub.listing_errors().is_empty(), "a listing that succeeds clears it");
    }

    /// A server whose listing failed (down when the hub first listed it) is listed again by a
    /// later conversion once its wait has passed (5 s, then 10 s while it keeps failing), in its
    /// place in the hub's order, and its error is said until then. It was once asked again only
    /// by `list_tools`: a server down at the first conversion stayed out for good.
    #[test]
    fn a_server_whose_listing_failed_is_listed_again_by_a_later_conversion_after_a_wait() {
        let read = json!([{"name": "read"}]);
        let (hub, clock) = hub_and_clock(vec![("fs", vec![Reply::NetworkError, Reply::NetworkError, listing(read)]), ("web", vec![listing(json!([{"name": "fetch"}]))])], None, None);
        let opts = ConvertOptions::default();
        let offered = || {
            let out = block_on(hub.tools_refreshed(Provider::Anthropic, &opts)).unwrap();
            let names: Vec<String> = hub.name_map().unwrap().entries().iter().map(|e| e.name.clone()).collect();
            assert!(names.iter().all(|n| out.contains(n.as_str())), "{out}");
            (names, hub.listing_errors().iter().map(|f| (f.server.clone(), f.error.code)).collect::<Vec<_>>())
        };
        let failing = vec![("fs".to_owned(), ErrorCode::Network)];
        assert_eq!(offered(), (vec!["mcp__web__fetch".to_owned()], failing.clone()), "the first listing");
        assert_eq!(offered().1, failing, "not asked again at once");
        clock.advance(4_999);
        assert_eq!(offered().1, failing, "nor within 5 s");
        clock.advance(1);
        // Asked (its second failure, the script's second NetworkError): the wait doubles.
        assert_eq!(offered(), (vec!["mcp__web__fetch".to_owned()], failing.clone()));
        assert!(hub.listing_errors()[0].error.to_string().contains("server \"fs\""), "{}", hub.listing_errors()[0].error);
        clock.advance(9_999);
        assert_eq!(offered().1, failing, "nor within 10 s after a second failure");
        clock.advance(1);
        assert_eq!(offered(), (vec!["mcp__fs__read".to_owned(), "mcp__web__fetch".to_owned()], vec![]), "back, in the hub's order");
        // Nor is one refused for want of authorization (signing in is a person's: listTools() asks it).
        let (hub, clock) = hub_and_clock(vec![("locked", vec![status_reply(401, vec![], ""), listing(json!([{"name": "read"}]))])], None, None);
        block_on(hub.tools_refreshed(Provider::Anthropic, &opts)).unwrap();
        clock.advance(60_000);
        block_on(hub.tools_refreshed(Provider::Anthropic, &opts)).unwrap();
        assert_eq!(hub.listing_errors().iter().map(|f| f.error.code).collect::<Vec<_>>(), [ErrorCode::Unauthorized]);
        assert_eq!(block_on(hub.list_tools(&Selection::Auto, None)).0.len(), 1, "listTools() asks it");
        // Nor one whose 401 a handler answers (OAuth): down at first, it may ask for a sign-in
        // when it comes back, which a conversion is not to open.
        let (hub, clock) = hub_and_clock(vec![("oauth", vec![Reply::NetworkError, listing(json!([{"name": "read"}]))])], None, None);
        let asked = Rc::new(Cell::new(0));
        let count = asked.clone();
        hub.client("oauth").unwrap().set_unauthorized_handler(Some(Box::new(move |_: &Value| {
            count.set(count.get() + 1);
            Box::pin(async { Ok(None) })
        })));
        block_on(hub.tools_refreshed(Provider::Anthropic, &opts)).unwrap();
        clock.advance(60_000);
        block_on(hub.tools_refreshed(Provider::Anthropic, &opts)).unwrap();
        assert_eq!(hub.listing_errors().iter().map(|f| f.error.code).collect::<Vec<_>>(), [ErrorCode::Network], "not asked again");
        assert_eq!(block_on(hub.list_tools(&Selection::Auto, None)).0.len(), 1, "listTools() asks it");
        assert_eq!(asked.get(), 0);
        // A deselected server whose listing failed is not asked by a conversion.
        let (hub, clock) = hub_and_clock(vec![("fs", vec![Reply::NetworkError]), ("web", vec![listing(json!([])), listing(json!([]))])], None, None);
        block_on(hub.list_tools(&Selection::Auto, None));
        block_on(hub.list_tools(&Selection::Manual(vec!["web".into()]), None));
        clock.advance(60_000);
        block_on(hub.tools_refreshed(Provider::Anthropic, &opts)).unwrap();
        assert!(hub.listing_errors().is_empty());
    }

    /// `listen()` before any listing listens on every server, connecting each (it once listened
    /// on the connected servers only: none then); after a listing that selects some, on those
    /// (and any other server connected).
    #[test]
    fn listen_before_the_first_listing_connects_and_listens_on_every_server() {
        let no_stream = || status_reply(405, vec![], "");
        let both = hub(vec![("a", vec![no_stream()]), ("b", vec![no_stream()])], None, None);
        let (offered, failed) = block_on(both.listen(&|_, _| {}));
        assert_eq!(offered, [("a".to_owned(), false), ("b".to_owned(), false)]);
        assert!(failed.is_empty());
        assert!(both.client("a").unwrap().is_connected() && both.client("b").unwrap().is_connected());
        // A server that cannot be connected ends its listen with its error, naming it.
        let down = hub_with_down_b();
        let (offered, failed) = block_on(down.listen(&|_, _| {}));
        assert_eq!(offered, [("a".to_owned(), false)]);
        assert_eq!(failed.iter().map(|f| (f.server.as_str(), f.error.code)).collect::<Vec<_>>(), [("b", ErrorCode::Network)]);
        assert!(failed[0].error.to_string().ends_with("(server \"b\")"), "{}", failed[0].error);
        // After a listing of `a` only: `b` is neither selected nor connected.
        let some = hub(vec![("a", vec![listing(json!([])), no_stream()]), ("b", vec![])], None, None);
        block_on(some.list_tools(&Selection::Manual(vec!["a".into()]), None));
        assert_eq!(block_on(some.listen(&|_, _| {})).0, [("a".to_owned(), false)]);
        assert!(!some.client("b").unwrap().is_connected());
    }

    /// A hub whose `a` offers no standalone stream and whose `b` is down.
    fn hub_with_down_b() -> TestHub {
        let a = harness_with(vec![init_reply("2025-11-25", Some("a")), accepted(), status_reply(405, vec![], "")], legacy(), 1_000);
        let b = harness_with(vec![Reply::NetworkError], legacy(), 1_000);
        Hub::new(vec![("a".to_owned(), Rc::new(a.client)), ("b".to_owned(), Rc::new(b.client))], a.clock, None, None)
    }

    /// `close_all` while the first conversion's listing is under way: the conversion rejects with
    /// `NOT_CONNECTED` (what it would convert is what the close left), nothing is sent after the
    /// close but its DELETE, the listing's failure is said, and the next conversion lists the
    /// server again at once (a failure the close made is no reason to wait).
    #[test]
    fn close_all_during_the_first_conversion_rejects_it_and_sends_nothing_more() {
        let sent = Rc::new(RefCell::new(Vec::<String>::new()));
        let log = sent.clone();
        let server = Reply::Server(Rc::new(move |req: &HttpRequest| {
            let b = body(req);
            let method = b["method"].as_str().map_or_else(|| format!("{:?}", req.method), str::to_owned);
            let listings = log.borrow().iter().filter(|m| *m == "tools/list").count();
            log.borrow_mut().push(method.clone());
            match method.as_str() {
                "initialize" => init_reply_id(b["id"].as_i64().unwrap(), "2025-11-25", Some("s2")),
                // The first listing never answers; the next one does.
                "tools/list" if listings == 0 => Reply::Hang,
                "tools/list" => json_reply(json!({"jsonrpc": "2.0", "id": b["id"], "result": {"tools": [{"name": "read"}]}})),
                _ => accepted(),
            }
        }));
        let hub = hub(vec![("fs", vec![server])], None, None);
        let opts = ConvertOptions::default();
        let closed = Cell::new(false);
        let (converted, failed) = block_on(futures_util::future::join(hub.tools_refreshed(Provider::OpenAi, &opts), async {
            while !sent.borrow().iter().any(|m| m == "tools/list") {
                futures_util::pending!();
            }
            let failed = hub.close_all().await;
            closed.set(true);
            failed
        }));
        assert!(closed.get() && failed.is_empty(), "{failed:?}");
        let e = converted.unwrap_err();
        assert_eq!(e.code, ErrorCode::NotConnected, "{e}");
        assert!(e.message.contains("closeAll()"), "{e}");
        assert_eq!(*sent.borrow(), ["tools/list", "Delete"], "nothing but the DELETE after the close");
        let failing = hub.listing_errors();
        assert_eq!(failing.iter().map(|f| (f.server.as_str(), f.error.code)).collect::<Vec<_>>(), [("fs", ErrorCode::NotConnected)]);
        // The next conversion connects the server again and lists it, without waiting.
        let out = block_on(hub.tools_refreshed(Provider::OpenAi, &opts)).unwrap();
        assert!(out.contains("mcp__fs__read"), "{out}");
        assert!(hub.listing_errors().is_empty());
    }

    /// `listen()`'s and `close_all()`'s errors carry `server`, as every other hub error does, and
    /// so does the error `on_end` is told of.
    #[test]
    fn listen_and_close_all_errors_carry_the_server() {
        // b's stream opens (reopened after 10 ms), ends, and b goes down: its reopenings and its
        // DELETE get no answer.
        let opened = Cell::new(false);
        let down = Reply::Server(Rc::new(move |req: &HttpRequest| match req.method {
            Method::Get if !opened.replace(true) => Reply::Http {
                status: 200,
                headers: vec![("content-type", "text/event-stream".into())],
                chunks: vec![b"retry: 10\n\n".to_vec()],
                then_hang: false,
                then_error: false,
            },
            _ => Reply::NetworkError,
        }));
        let hub = hub(vec![("a", vec![listing(json!([])), status_reply(405, vec![], ""), accepted()]), ("b", vec![listing(json!([])), down])], None, None);
        block_on(hub.list_tools(&Selection::Auto, None));
        let ended = RefCell::new(Vec::new());
        let (offered, failed) = block_on(hub.listen(&|server: &str, r: &Result<bool>| {
            ended.borrow_mut().push((server.to_owned(), r.as_ref().err().map(|e| e.details.as_ref().unwrap()["server"].clone())));
        }));
        assert_eq!(offered, [("a".to_owned(), false)]);
        assert_eq!(failed.iter().map(|f| (f.server.as_str(), f.error.details.as_ref().unwrap()["server"].clone())).collect::<Vec<_>>(), [("b", json!("b"))]);
        assert!(ended.borrow().contains(&("b".to_owned(), Some(json!("b")))), "{:?}", ended.borrow());
        let failed = block_on(hub.close_all());
        assert_eq!(failed.iter().map(|f| (f.server.as_str(), f.error.code, f.error.details.as_ref().unwrap()["server"].clone())).collect::<Vec<_>>(), [("b", ErrorCode::Network, json!("b"))]);
    }

    /// The policy judges the tool the name map routes to, as it was when `tools` made the map:
    /// a listing since that failed, or left the server out, does not let a destructive tool go
    /// unconfirmed. A deselected server is not called at all; one whose listing failed still is.
    #[test]
    fn a_hub_call_is_judged_on_the_tool_its_name_map_routes_to() {
        let fs = json!([{"name": "read", "annotations": {"readOnlyHint": true}}, {"name": "delete_all", "annotations": {"destructiveHint": true}}]);
        let web = json!([{"name": "fetch", "annotations": {"readOnlyHint": true}}]);
        let (confirm, asked) = refusing();
        let hub = hub(
            vec![
                ("fs", vec![listing(fs), Reply::NetworkError, Reply::Echo(json!({"content": [{"type": "text", "text": "read"}]}))]),
                ("web", vec![listing(web.clone()), listing(web.clone()), listing(web), Reply::Echo(json!({"content": []}))]),
            ],
            Some(json!({"allow": ["mcp__fs", "mcp__web"], "askDestructive": true})),
            Some(confirm),
        );
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
        let refused = |why: &str| {
            let e = call(&hub, "mcp__fs__delete_all").unwrap_err();
            assert_eq!((e.code, e.tool.as_deref()), (ErrorCode::PermissionDenied, Some("delete_all")), "{why}: {e}");
            assert_eq!(e.details.unwrap()["decision"], "ask", "{why}");
        };
        refused("listed");
        // fs's listing fails: the map still routes to it, and its tool is still destructive.
        let (tools, errors) = block_on(hub.list_tools(&Selection::Auto, None));
        assert_eq!((tools.len(), errors[0].server.as_str()), (1, "fs"));
        refused("after a failed listing");
        assert_eq!(*asked.borrow(), ["mcp__fs__delete_all", "mcp__fs__delete_all"]);
        assert_eq!(call(&hub, "mcp__fs__read").unwrap().text, "read", "a server whose listing failed is still called");
        // fs deselected: none of its names is called, nor is anyone asked.
        block_on(hub.list_tools(&Selection::Manual(vec!["web".into()]), None));
        for name in ["mcp__fs__delete_all", "mcp__fs__read"] {
            let e = call(&hub, name).unwrap_err();
            assert_eq!(e.code, ErrorCode::UnknownToolName, "{e}");
            assert!(e.message.contains("did not select"), "{e}");
            assert_eq!(e.details.unwrap()["server"], "fs");
        }
        assert_eq!(asked.borrow().len(), 2);
        assert!(!call(&hub, "mcp__web__fetch").unwrap().is_error);
        // The next map has no fs names at all.
        hub.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
        assert_eq!(
            call(&hub, "mcp__fs__read").unwrap_err().message,
            "no tool is named \"mcp__fs__read\" in this name map (1 names): it was the name of server \"fs\"'s tool \"read\", which the last tools() no longer offers; no other tool is called in its place"
        );
    }

    /// A hub with a policy sends no `tools/call` by method name, which would go around the policy;
    /// one without a policy sends it, as its client does.
    #[test]
    fn a_tools_call_request_does_not_go_around_the_policy() {
        let called = || Reply::Echo(json!({"content": [{"type": "text", "text": "called"}]}));
        let params = json!({"name": "echo", "arguments": {}});
        let guarded = hub(vec![("s", vec![called()])], Some(json!({"deny": ["*"]})), None);
        let e = block_on(guarded.request("s", "tools/call", params.clone(), CallOptions::default())).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput, "{e}");
        assert!(e.message.contains("call the tool with callTool"), "{e}");
        assert_eq!(e.details.unwrap()["server"], "s");
        let open = hub(vec![("s", vec![called()])], None, None);
        let result = block_on(open.request("s", "tools/call", params, CallOptions::default())).unwrap();
        assert_eq!(result["content"][0]["text"], "called");
    }

    /// The confirmation is told which server, tool and provider a call is for: under `"bare"`
    /// naming the provider names of one tool on two servers do not tell them apart.
    #[test]
    fn a_confirmation_is_told_the_calls_server_tool_and_provider() {
        let rm = json!([{"name": "rm"}]);
        let asked = Rc::new(RefCell::new(Vec::new()));
        let seen = asked.clone();
        let confirm: Confirm = Box::new(move |r| {
            seen.borrow_mut().push((r.name.to_owned(), r.server.to_owned(), r.tool.to_owned(), r.provider, r.args.clone()));
            Box::pin(async { Ok(false) })
        });
        let hub = hub(vec![("a", vec![listing(rm.clone())]), ("b", vec![listing(rm)])], Some(json!({})), Some(confirm));
        block_on(hub.list_tools(&Selection::Auto, None));
        let bare = ConvertOptions { naming: crate::naming::NamingOptions { format: Some(crate::naming::NameFormat::Bare), ..Default::default() }, ..Default::default() };
        hub.tools(Provider::OpenAi, &bare).unwrap();
        let names: Vec<String> = hub.name_map().unwrap().entries().iter().map(|e| e.name.clone()).collect();
        for name in &names {
            let e = block_on(hub.call_tool(name, json!({"path": "/"}), CallOptions::default())).unwrap_err();
            assert_eq!(e.code, ErrorCode::PermissionDenied, "{e}");
        }
        let mut got: Vec<_> = asked.borrow().iter().map(|(_, server, tool, provider, args)| (server.clone(), tool.clone(), *provider, args.clone())).collect();
        got.sort_by(|x, y| x.0.cmp(&y.0));
        assert_eq!(got, [("a".into(), "rm".into(), "openai", json!({"path": "/"})), ("b".into(), "rm".into(), "openai", json!({"path": "/"}))]);
        assert_eq!(asked.borrow().iter().map(|a| a.0.clone()).collect::<Vec<_>>(), names);
    }

    /// A call refused for want of a confirmation says how it would be allowed, by what asked
    /// for it: the default action, an `ask` rule, or `askDestructive`. Without a confirm
    /// callback the tool is not offered (each call of it would be refused), and both its
    /// `dropped_tools` reason and a call of its name say so, and how it would be offered.
    #[test]
    fn an_unconfirmed_call_says_how_to_allow_it() {
        let no_confirm = "\"mcp__s__rm\" is server \"s\"'s tool \"rm\", which needs confirmation, and the hub has no confirm callback to ask (give McpHub options.confirm): tools() did not offer it, and it was not called";
        let cases = [
            (json!({}), None, no_confirm, vec!["add an allow rule (\"mcp__s__rm\", or \"mcp__s\" for the whole server) or set defaultAction: \"allow\""]),
            (
                json!({"ask": ["*rm*"], "allow": ["mcp__s"]}),
                Some(refusing().0),
                "\"mcp__s__rm\" needs confirmation and was not confirmed",
                vec!["was not confirmed (confirm answered false)", "an ask rule of the policy matches \"mcp__s__rm\" (ask wins over allow)"],
            ),
            (json!({"allow": ["mcp__s"], "askDestructive": true}), None, no_confirm, vec!["askDestructive asks for it", "turn askDestructive off"]),
        ];
        for (policy, confirm, head, said) in cases {
            let offered = confirm.is_some();
            let hub = hub(vec![("s", vec![listing(json!([{"name": "rm"}]))])], Some(policy.clone()), confirm);
            block_on(hub.list_tools(&Selection::Auto, None));
            hub.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
            let (names, dropped) = offered_and_dropped(&hub);
            assert_eq!((names.len(), dropped.len()), if offered { (1, 0) } else { (0, 1) }, "{policy}");
            let e = call(&hub, "mcp__s__rm").unwrap_err();
            assert_eq!((e.code, e.details.as_ref().map(|d| d["decision"].clone())), (ErrorCode::PermissionDenied, Some(json!("ask"))), "{policy}: {e}");
            assert!(e.message.starts_with(head), "{policy}: {e}");
            let reason = hub.dropped_tools().first().map(|d| d["reason"].as_str().unwrap_or_default().to_owned());
            if let Some(reason) = &reason {
                assert!(
                    reason.starts_with("server \"s\"'s tool \"rm\" needs confirmation, and the hub has no confirm callback to ask (give McpHub options.confirm): it is not offered, as every call of it would be refused PERMISSION_DENIED; "),
                    "{policy}: {reason}"
                );
            }
            for s in said {
                assert!(e.message.contains(s), "{policy}: {s:?} not in {e}");
                assert!(reason.as_ref().is_none_or(|r| r.contains(s)), "{policy}: {s:?} not in {reason:?}");
            }
        }
    }

    /// A tool no allow rule can name alone (`*`, `read*`: a glob over other tools; `get (v2)`:
    /// a pattern the policy refuses) is given no such rule to add, but how else to call it.
    #[test]
    fn an_unconfirmed_call_advises_no_rule_wider_than_its_tool() {
        let hub = hub(vec![("s", vec![listing(json!([{"name": "*"}, {"name": "read*"}, {"name": "get (v2)"}]))])], Some(json!({})), None);
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::Gemini, &ConvertOptions::default()).unwrap();
        assert_eq!(offered_and_dropped(&hub), (vec![], vec!["s/*/0/PERMISSION_DENIED".to_owned(), "s/read*/1/PERMISSION_DENIED".to_owned(), "s/get (v2)/2/PERMISSION_DENIED".to_owned()]));
        let reasons: Vec<String> = hub.dropped_tools().iter().map(|d| d["reason"].as_str().unwrap_or_default().to_owned()).collect();
        for (tool, reason) in ["*", "read*", "get (v2)"].into_iter().zip(reasons) {
            let e = call(&hub, &format!("mcp__s__{tool}")).unwrap_err();
            assert_eq!(e.code, ErrorCode::PermissionDenied, "{e}");
            for said in [&e.message, &reason] {
                assert!(!said.contains("add an allow rule"), "{said}");
                assert!(said.contains("no allow rule can name this tool alone"), "{said}");
                assert!(said.contains("confirm each call (McpHub options.confirm), or allow the whole server (\"mcp__s\")"), "{said}");
            }
        }
    }

    /// Two listings that overlap: the one started last wins, whichever ends last. Its selection
    /// and its listing are the hub's (the older one, slower, once replaced the listing while the
    /// selection was the newer one's: `tools` offered only tools it then refused to call). The
    /// older one still answers with what it found.
    #[test]
    fn the_listing_started_last_wins_whichever_ends_last() {
        let (fs, db) = (json!([{"name": "read"}]), json!([{"name": "query"}]));
        let hub = hub(
            vec![
                ("fs", vec![listing(fs.clone()), Reply::Later(20, Box::new(listing(fs)))]),
                ("db", vec![listing(db.clone()), listing(db), Reply::Echo(json!({"content": [{"type": "text", "text": "rows"}]}))]),
            ],
            None,
            None,
        );
        block_on(hub.list_tools(&Selection::Auto, None));
        let ((older, _), (newer, _)) = block_on(futures_util::future::join(hub.list_tools(&Selection::Manual(vec!["fs".into()]), None), async {
            hub.list_tools(&Selection::Manual(vec!["db".into()]), None).await
        }));
        let names = |tools: &[Value]| tools.iter().map(|t| format!("{}/{}", t["serverName"].as_str().unwrap(), t["name"].as_str().unwrap())).collect::<Vec<_>>();
        assert_eq!((names(&older), names(&newer)), (vec!["fs/read".to_owned()], vec!["db/query".to_owned()]));
        hub.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
        assert_eq!(hub.name_map().unwrap().entries().iter().map(|e| e.name.clone()).collect::<Vec<_>>(), ["mcp__db__query"]);
        assert_eq!(call(&hub, "mcp__db__query").unwrap().text, "rows");
        assert_eq!(call(&hub, "mcp__fs__read").unwrap_err().code, ErrorCode::UnknownToolName);
    }

    /// A conversion while the first listing, of some servers, is under way lists those servers,
    /// not every server: a listing of all would be the later one, and so the selection.
    #[test]
    fn a_conversion_during_the_first_listing_keeps_its_selection() {
        let (fs, db) = (json!([{"name": "read"}]), json!([{"name": "query"}]));
        let hub = hub(vec![("fs", vec![listing(fs)]), ("db", vec![Reply::Later(20, Box::new(listing(db.clone()))), listing(db)])], None, None);
        let (_, converted) = block_on(futures_util::future::join(hub.list_tools(&Selection::Manual(vec!["db".into()]), None), async {
            hub.tools_refreshed(Provider::Anthropic, &ConvertOptions::default()).await
        }));
        assert!(converted.unwrap().contains("mcp__db__query"));
        assert_eq!(*hub.selection.borrow(), Selection::Manual(vec!["db".into()]));
        assert_eq!(call(&hub, "mcp__fs__read").unwrap_err().code, ErrorCode::UnknownToolName);
    }

    /// A future that waits until [`Gate::open`].
    #[derive(Clone, Default)]
    struct Gate(Rc<(Cell<bool>, RefCell<Option<std::task::Waker>>)>);

    impl Gate {
        async fn wait(&self) {
            std::future::poll_fn(|cx| {
                if self.0 .0.get() {
                    return std::task::Poll::Ready(());
                }
                *self.0 .1.borrow_mut() = Some(cx.waker().clone());
                std::task::Poll::Pending
            })
            .await
        }

        fn open(&self) {
            self.0 .0.set(true);
            if let Some(w) = self.0 .1.borrow_mut().take() {
                w.wake();
            }
        }
    }

    /// A listing that deselects a server (or turns tools off) while a call of its tool waits for
    /// its confirmation: the call, confirmed afterwards, is not sent (it was, once: the selection
    /// was checked before the confirmation only).
    #[test]
    fn a_server_deselected_while_a_call_is_confirmed_is_not_called() {
        for deselect in [Selection::Manual(vec!["web".into()]), Selection::Disabled] {
            let gate = Gate::default();
            let asked = gate.clone();
            let confirm: Confirm = Box::new(move |_| {
                let gate = asked.clone();
                Box::pin(async move {
                    gate.wait().await;
                    Ok(true)
                })
            });
            let web = json!([{"name": "get"}]);
            let hub = hub(
                vec![("fs", vec![listing(json!([{"name": "rm"}])), Reply::Echo(json!({"content": []}))]), ("web", vec![listing(web.clone()), listing(web)])],
                Some(json!({})),
                Some(confirm),
            );
            block_on(hub.list_tools(&Selection::Auto, None));
            hub.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
            let (called, ()) = block_on(futures_util::future::join(hub.call_tool("mcp__fs__rm", json!({}), CallOptions::default()), async {
                hub.list_tools(&deselect, None).await;
                gate.open();
            }));
            let e = called.unwrap_err();
            assert_eq!((e.code, e.tool.as_deref()), (ErrorCode::UnknownToolName, Some("rm")), "{deselect:?}: {e}");
            assert_eq!(
                e.message,
                "\"mcp__fs__rm\" is a tool of server \"fs\", which the last listing, made while the call waited for its confirmation, did not select: its tools are not offered, and it was not called"
            );
        }
    }

    /// A call aborted while its confirmation is asked for ends at once with `ABORTED`, and the
    /// question is dropped (which aborts the signal the JavaScript callback was given).
    #[test]
    fn a_call_aborted_while_confirmation_is_asked_for_ends_and_drops_the_question() {
        struct Dropped(Rc<Cell<bool>>);
        impl Drop for Dropped {
            fn drop(&mut self) {
                self.0.set(true);
            }
        }
        let dropped = Rc::new(Cell::new(false));
        let flag = dropped.clone();
        let confirm: Confirm = Box::new(move |_| {
            let guard = Dropped(flag.clone());
            Box::pin(async move {
                let _guard = guard;
                std::future::pending::<()>().await;
                Ok(true)
            })
        });
        let hub = hub(vec![("s", vec![listing(json!([{"name": "rm"}]))])], Some(json!({})), Some(confirm));
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
        // Aborted once the question is out: the first poll finds it pending, the next aborted.
        let mut polls = 0;
        let aborted_later = std::future::poll_fn(move |cx| {
            polls += 1;
            if polls > 1 {
                return std::task::Poll::Ready(());
            }
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        });
        let opts = CallOptions { cancel: Some(Box::pin(aborted_later)), ..CallOptions::default() };
        let e = block_on(hub.call_tool("mcp__s__rm", json!({}), opts)).unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (ErrorCode::Aborted, "the call of \"mcp__s__rm\" was aborted while its confirmation was asked for"));
        assert!(dropped.get());
    }

    /// `close_all` while a call waits for its confirmation ends the call with `NOT_CONNECTED`, as
    /// it ends a call in flight, and drops the question (which aborts the signal the JavaScript
    /// callback was given). Once, the call went on waiting, and an answer after the close
    /// connected the server again and called the tool: a session no one closed.
    #[test]
    fn close_all_while_a_call_is_confirmed_ends_it_and_drops_the_question() {
        struct Dropped(Rc<Cell<bool>>);
        impl Drop for Dropped {
            fn drop(&mut self) {
                self.0.set(true);
            }
        }
        let (gate, dropped) = (Gate::default(), Rc::new(Cell::new(false)));
        let (answered, flag) = (gate.clone(), dropped.clone());
        let confirm: Confirm = Box::new(move |_| {
            let (gate, guard) = (answered.clone(), Dropped(flag.clone()));
            Box::pin(async move {
                let _guard = guard;
                gate.wait().await;
                Ok(true)
            })
        });
        let sent = Rc::new(RefCell::new(Vec::<String>::new()));
        let log = sent.clone();
        let server = Reply::Server(Rc::new(move |req: &HttpRequest| {
            let b = body(req);
            let method = b["method"].as_str().map_or_else(|| format!("{:?}", req.method), str::to_owned);
            log.borrow_mut().push(method.clone());
            match method.as_str() {
                "initialize" => init_reply_id(b["id"].as_i64().unwrap(), "2025-11-25", Some("s2")),
                "tools/call" => json_reply(json!({"jsonrpc": "2.0", "id": b["id"], "result": {"content": []}})),
                _ => accepted(),
            }
        }));
        let hub = hub(vec![("s", vec![listing(json!([{"name": "rm"}])), server])], Some(json!({})), Some(confirm));
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
        let (called, failed) = block_on(futures_util::future::join(hub.call_tool("mcp__s__rm", json!({}), CallOptions::default()), async {
            // The call, polled first, waits for its confirmation.
            let failed = hub.close_all().await;
            // The user answers after the close.
            gate.open();
            failed
        }));
        assert!(failed.is_empty(), "{failed:?}");
        let e = called.unwrap_err();
        assert_eq!((e.code, e.tool.as_deref()), (ErrorCode::NotConnected, Some("rm")), "{e}");
        assert_eq!(e.details.as_ref().unwrap()["server"], "s");
        assert_eq!(
            e.message,
            "the call of \"mcp__s__rm\" was abandoned: closeAll() was called while its confirmation was asked for; it was not sent (a later call connects the server again)"
        );
        assert!(dropped.get(), "the question is dropped");
        assert_eq!(*sent.borrow(), ["Delete"], "nothing but the close's DELETE: no new session, no call");
    }

    /// A call's `max_total_timeout_ms` bounds the wait for its confirmation: a question not
    /// answered by then ends the call with `TIMEOUT` at the total, and the question is dropped
    /// (which aborts the signal the JavaScript callback was given).
    #[test]
    fn the_total_timeout_bounds_the_wait_for_a_confirmation() {
        struct Dropped(Rc<Cell<bool>>);
        impl Drop for Dropped {
            fn drop(&mut self) {
                self.0.set(true);
            }
        }
        let dropped = Rc::new(Cell::new(false));
        let flag = dropped.clone();
        let confirm: Confirm = Box::new(move |_| {
            let guard = Dropped(flag.clone());
            // The answer comes late: after 100 polls (each asking for the next).
            let mut polls = 0;
            Box::pin(std::future::poll_fn(move |cx| {
                let _guard = &guard;
                polls += 1;
                if polls > 100 {
                    return std::task::Poll::Ready(Ok(true));
                }
                cx.waker().wake_by_ref();
                std::task::Poll::Pending
            }))
        });
        // The harness's clock ends sleeps of up to 1000 ms at once, and the others never.
        let unanswered = hub(vec![("s", vec![listing(json!([{"name": "rm"}]))])], Some(json!({})), Some(confirm));
        block_on(unanswered.list_tools(&Selection::Auto, None));
        unanswered.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
        let opts = CallOptions { max_total_timeout_ms: Some(500), ..CallOptions::default() };
        let e = block_on(unanswered.call_tool("mcp__s__rm", json!({}), opts)).unwrap_err();
        assert_eq!(e.code, ErrorCode::Timeout, "{e}");
        assert!(e.message.contains("took more than its total of 500 ms (maxTotalTimeoutMs) while its confirmation was asked for"), "{e}");
        assert_eq!(e.details.as_ref().unwrap()["timeoutMs"], 500);
        assert!(dropped.get(), "the question is dropped");
        // A confirmation that comes within the total lets the call go on.
        let confirm: Confirm = Box::new(|_| Box::pin(async { Ok(true) }));
        let answered = hub(vec![("s", vec![listing(json!([{"name": "rm"}])), Reply::Echo(json!({"content": []}))])], Some(json!({})), Some(confirm));
        block_on(answered.list_tools(&Selection::Auto, None));
        answered.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
        let opts = CallOptions { max_total_timeout_ms: Some(500), ..CallOptions::default() };
        let called = block_on(answered.call_tool("mcp__s__rm", json!({}), opts)).unwrap();
        assert_eq!(called.tool, "rm");
    }

    /// A call aborted before it was made (an aborted signal) asks no one: `ABORTED`, saying so,
    /// and the confirmation is never called (a dialog once opened for it).
    #[test]
    fn a_call_aborted_before_it_is_made_asks_no_one() {
        let asked = Rc::new(Cell::new(0));
        let count = asked.clone();
        let confirm: Confirm = Box::new(move |_| {
            count.set(count.get() + 1);
            Box::pin(async { Ok(true) })
        });
        let hub = hub(vec![("s", vec![listing(json!([{"name": "rm"}]))])], Some(json!({})), Some(confirm));
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
        let opts = CallOptions { cancel: Some(Box::pin(async {})), ..CallOptions::default() };
        let e = block_on(hub.call_tool("mcp__s__rm", json!({}), opts)).unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (ErrorCode::Aborted, "the call of \"mcp__s__rm\" was aborted before its confirmation was asked for"));
        assert_eq!(asked.get(), 0);
    }

    /// A name a model called inside a namespace (`functions.`, `default_api.`) reaches the tool
    /// of the map's name, and the policy and the confirmation see the map's name.
    #[test]
    fn a_hub_call_in_a_models_namespace_is_routed_and_judged_by_the_maps_name() {
        let fs = json!([{"name": "read", "annotations": {"readOnlyHint": true}}, {"name": "delete_all", "annotations": {"destructiveHint": true}}]);
        let (confirm, asked) = refusing();
        let hub = hub(
            vec![("fs", vec![listing(fs), Reply::Echo(json!({"content": [{"type": "text", "text": "read"}]}))])],
            Some(json!({"allow": ["mcp__fs"], "askDestructive": true})),
            Some(confirm),
        );
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::OpenAi, &ConvertOptions::default()).unwrap();
        let e = call(&hub, "functions.mcp__fs__delete_all").unwrap_err();
        assert_eq!((e.code, e.tool.as_deref()), (ErrorCode::PermissionDenied, Some("delete_all")), "{e}");
        assert_eq!(e.details.unwrap()["decision"], "ask");
        assert_eq!(*asked.borrow(), ["mcp__fs__delete_all"], "the confirmation is asked about the map's name");
        assert_eq!(call(&hub, "default_api.mcp__fs__read").unwrap().text, "read");
    }

    /// A server that restarted (it forgot the session) with other tools announces no change to a
    /// session it never had: the session a call renewed makes the hub list the server again
    /// before the next conversion.
    #[test]
    fn a_renewed_session_is_listed_again_before_the_next_conversion() {
        let hub = hub(
            vec![(
                "docs",
                vec![
                    listing(json!([{"name": "search"}, {"name": "read"}])),
                    status_reply(404, vec![], ""),
                    init_reply_id(3, "2025-11-25", Some("docs-2")),
                    accepted(),
                    Reply::Echo(json!({"content": []})),
                    listing(json!([{"name": "search"}, {"name": "write"}])),
                ],
            )],
            None,
            None,
        );
        let names = || {
            block_on(hub.tools_refreshed(Provider::OpenAi, &ConvertOptions::default())).unwrap();
            hub.name_map().unwrap().entries().iter().map(|e| e.name.clone()).collect::<Vec<_>>()
        };
        assert_eq!(names(), ["mcp__docs__search", "mcp__docs__read"]);
        assert!(!call(&hub, "mcp__docs__search").unwrap().is_error);
        let docs = hub.client("docs").unwrap();
        assert_eq!(docs.session_id().as_deref(), Some("docs-2"), "renewed by the call");
        assert!(docs.tools_changed());
        assert_eq!(names(), ["mcp__docs__search", "mcp__docs__write"]);
        assert!(!docs.tools_changed());
    }

    /// F2 (s29c): a name the hub gave one tool is given no other, whatever the servers list
    /// since. Tools X and Y of one server have hashed names that coincide: X listed alone, then
    /// with Y, then Y alone, Y never gets X's name (a `NameMap` built from each listing alone
    /// gives it X's first name at the end), so a call an old turn made to X is
    /// `UNKNOWN_TOOL_NAME`, not a call of Y; X keeps its name throughout.
    #[test]
    fn a_name_the_hub_gave_one_tool_never_routes_to_another() {
        let (x, y) = ("t".repeat(60) + "4mjcaa", "t".repeat(60) + "p0fjba");
        let hub = hub(
            vec![("A", vec![listing(json!([{"name": x}])), listing(json!([{"name": x}, {"name": y}])), listing(json!([{"name": y}])), listing(json!([{"name": y}, {"name": x}]))])],
            None,
            None,
        );
        let turn = || {
            block_on(hub.list_tools(&Selection::Auto, None));
            hub.tools(Provider::OpenAi, &ConvertOptions::default()).unwrap();
            hub.name_map().unwrap().entries().iter().map(|e| (e.name.clone(), e.tool.clone())).collect::<Vec<_>>()
        };
        let t1 = turn();
        let t2 = turn();
        let t3 = turn();
        assert_eq!(t2, [t1[0].clone(), (t2[1].0.clone(), y.clone())], "X keeps its name");
        assert_ne!(t2[1].0, t1[0].0);
        assert_eq!(t3, [t2[1].clone()], "Y keeps the name it was given");
        let stateless = NameMap::build(&[(Some("A"), y.as_str())], &crate::naming::NamingOptions::default(), crate::naming::NameRule::Strict).0;
        assert_eq!(stateless.entries()[0].name, t1[0].0, "the names coincide");
        let e = call(&hub, &t1[0].0).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownToolName);
        assert_eq!(turn(), [t2[1].clone(), t1[0].clone()], "X, back, has its own name again");
    }

    /// F1 (s31a): a change on one server renames no tool of another that a model was given.
    /// Under naming "bare", my.srv's `echo` and Srv-B's coincide, so both are hashed; once Srv-B
    /// no longer lists its `echo`, my.srv's keeps its hashed name (it was renamed `echo`, and a
    /// call of the name it had was `UNKNOWN_TOOL_NAME` naming no tool), and a call of it
    /// reaches it. So with every naming, and for the other provider converted for.
    #[test]
    fn a_tool_keeps_its_name_when_the_clash_it_was_hashed_for_ends() {
        use crate::naming::{NameFormat, NamingOptions};
        for format in [NameFormat::Bare, NameFormat::Server, NameFormat::Mcp] {
            let mine = json!([{"name": "echo"}, {"name": "add"}]);
            let hub = hub(
                vec![("my.srv", vec![listing(mine.clone()), listing(mine), echoing_arguments()]), ("Srv-B", vec![listing(json!([{"name": "echo"}])), listing(json!([]))])],
                None,
                None,
            );
            let opts = ConvertOptions { naming: NamingOptions { format: Some(format), ..NamingOptions::default() }, ..ConvertOptions::default() };
            let names = |provider: Provider| {
                hub.tools(provider, &opts).unwrap();
                hub.name_map().unwrap().entries().iter().filter(|e| e.server.as_deref() == Some("my.srv")).map(|e| e.name.clone()).collect::<Vec<_>>()
            };
            block_on(hub.list_tools(&Selection::Auto, None));
            let (openai, gemini) = (names(Provider::OpenAi), names(Provider::Gemini));
            if format == NameFormat::Bare {
                assert!(openai[0].starts_with("echo_") && gemini[0] == openai[0], "{openai:?} {gemini:?}");
            }
            block_on(hub.list_tools(&Selection::Auto, None));
            assert_eq!(hub.name_map().unwrap().len(), 3, "Srv-B's echo is still in the map until tools()");
            assert_eq!(names(Provider::OpenAi), openai, "{format:?}");
            assert_eq!(hub.name_map().unwrap().len(), 2);
            let c = block_on(hub.call_tool(&openai[0], json!({"message": "hi"}), CallOptions::default())).unwrap();
            assert_eq!((c.server.as_str(), c.tool.as_str(), c.text.as_str()), ("my.srv", "echo", r#"{"message":"hi"}"#), "{format:?}");
            assert_eq!(names(Provider::Gemini), gemini, "{format:?}");
            // A tool listed with it again, the name stays with the tool that has it.
            assert_eq!(names(Provider::OpenAi), openai, "{format:?}");
        }
    }

    /// A name the hub gave a tool that the map has under another name (given by a conversion
    /// with other naming options, or for another provider) is refused naming the tool and its
    /// name in the map, which is suggested (the map alone could suggest nothing).
    #[test]
    fn a_name_the_hub_gave_a_tool_offered_under_another_name_says_its_name_now() {
        use crate::naming::{NameFormat, NamingOptions};
        let echo = json!([{"name": "echo"}]);
        let hub = hub(vec![("my.srv", vec![listing(echo.clone())]), ("Srv-B", vec![listing(echo)])], None, None);
        block_on(hub.list_tools(&Selection::Auto, None));
        let bare = ConvertOptions { naming: NamingOptions { format: Some(NameFormat::Bare), ..NamingOptions::default() }, ..ConvertOptions::default() };
        hub.tools(Provider::OpenAi, &bare).unwrap();
        let old = hub.name_map().unwrap().entries()[0].name.clone();
        assert!(old.starts_with("echo_"), "{old}");
        hub.tools(Provider::OpenAi, &ConvertOptions::default()).unwrap();
        let now = hub.name_map().unwrap().entries()[0].name.clone();
        assert_eq!(now, "mcp__my_srv__echo_".to_owned() + &now[18..]);
        let e = call(&hub, &old).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownToolName);
        assert!(
            e.message.starts_with(&format!("no tool is named \"{old}\" in this name map (2 names): it was the name of server \"my.srv\"'s tool \"echo\", which this map names \"{now}\" (")),
            "{}",
            e.message
        );
        assert!(e.message.ends_with(&format!("; did you mean \"{now}\"?")), "{}", e.message);
        assert_eq!(e.details.unwrap()["suggestions"], json!([now]));
        // Inside a model's namespace too.
        assert!(call(&hub, &format!("functions.{old}")).unwrap_err().message.contains(&format!("which this map names \"{now}\"")));
    }

    /// A call of a tool's bare name is refused, and its error names the tools of that name; so
    /// is a name a framework folded (`-` as `_`): it names the tool it reads as, never calls it.
    #[test]
    fn a_hub_call_of_a_bare_or_folded_name() {
        let echo = json!([{"name": "echo"}, {"name": "get-sum"}]);
        let hub = hub(vec![("a", vec![listing(echo.clone()), echoing_arguments()]), ("b", vec![listing(echo)])], None, None);
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::OpenAi, &ConvertOptions::default()).unwrap();
        let e = call(&hub, "echo").unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownToolName);
        assert_eq!(e.message, "no tool is named \"echo\" in this name map (4 names); did you mean \"mcp__a__echo\" or \"mcp__b__echo\"?");
        let e = call(&hub, "mcp__a__get_sum").unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownToolName);
        assert!(e.message.contains("did you mean \"mcp__a__get-sum\"?") && e.message.contains("portableNames: true"), "{}", e.message);
    }

    /// A server that answers every call with the arguments it got, as text.
    fn echoing_arguments() -> Reply {
        Reply::Server(Rc::new(|req| Reply::Echo(json!({"content": [{"type": "text", "text": body(req)["params"]["arguments"].to_string()}]}))))
    }

    /// An app that converts for two providers (a fallback between models) reads each model's
    /// call with its provider's map: OpenAI strict's `null` for an absent argument is dropped
    /// even after an Anthropic conversion, whose map (the last one) has no such plan.
    #[test]
    fn each_providers_last_name_map_is_kept() {
        let tools = json!([{"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "note": {"type": "string"}}, "required": ["a"]}}]);
        let hub = hub(vec![("s", vec![listing(tools), echoing_arguments()])], None, None);
        block_on(hub.list_tools(&Selection::Auto, None));
        let mut strict = ConvertOptions::default();
        strict.schema.strict = true;
        hub.tools(Provider::OpenAi, &strict).unwrap();
        hub.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
        let sent = |provider: Option<Provider>| block_on(hub.call_tool_for(provider.map(Target::from), "mcp__s__add", json!({"a": 1, "note": null}), CallOptions::default())).map(|c| c.text);
        assert_eq!(sent(Some(Provider::OpenAi)).unwrap(), r#"{"a":1}"#);
        // Without a provider: the last map, Anthropic's, which passes the arguments through.
        assert_eq!(sent(None).unwrap(), r#"{"a":1,"note":null}"#);
        assert_eq!(sent(Some(Provider::Anthropic)).unwrap(), r#"{"a":1,"note":null}"#);
        assert!(hub.name_map_for(Some(Provider::OpenAi.into())).unwrap().entries()[0].args.is_some());
        assert!(hub.name_map_for(Some(Provider::Anthropic.into())).unwrap().entries()[0].args.is_none());
        assert_eq!(hub.name_map(), hub.name_map_for(Some(Provider::Anthropic.into())));
        // Ollama keeps a map of its own: OpenAI's strict plan stays.
        hub.tools(Provider::target("ollama").unwrap(), &ConvertOptions::default()).unwrap();
        assert_eq!(sent(Some(Provider::OpenAi)).unwrap(), r#"{"a":1}"#, "OpenAI's map after Ollama's");
        let ollama = block_on(hub.call_tool_for(Some(Provider::target("ollama").unwrap()), "mcp__s__add", json!({"a": 1, "note": null}), CallOptions::default())).unwrap();
        assert_eq!(ollama.text, r#"{"a":1,"note":null}"#);
        assert!(hub.name_map_for(Some(Provider::target("ollama").unwrap())).unwrap().entries()[0].args.is_none());
        let e = sent(Some(Provider::Gemini)).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownToolName);
        assert_eq!(e.message, "no tool is named \"mcp__s__add\" for provider \"gemini\": call tools(\"gemini\") first");
        assert!(hub.name_map_for(Some(Provider::Gemini.into())).is_none());
        // A provider's next conversion replaces its map only.
        hub.tools(Provider::OpenAi, &ConvertOptions::default()).unwrap();
        assert_eq!(sent(Some(Provider::OpenAi)).unwrap(), r#"{"a":1,"note":null}"#);
        assert_eq!(hub.name_map(), hub.name_map_for(Some(Provider::OpenAi.into())));
        assert!(hub.name_map_for(Some(Provider::Anthropic.into())).is_some());
    }

    /// Each provider's map keeps the annotations its tools had when it was made: the policy
    /// judges a call on the tool as its provider was given it.
    #[test]
    fn each_providers_map_is_judged_on_its_own_annotations() {
        let safe = json!([{"name": "wipe", "annotations": {"readOnlyHint": true}}]);
        let destructive = json!([{"name": "wipe", "annotations": {"destructiveHint": true}}]);
        let (confirm, asked) = refusing();
        let hub = hub(vec![("s", vec![listing(safe), listing(destructive), echoing_arguments()])], Some(json!({"allow": ["mcp__s"], "askDestructive": true})), Some(confirm));
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::OpenAi, &ConvertOptions::default()).unwrap();
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
        let call = |p| block_on(hub.call_tool_for(Some(p), "mcp__s__wipe", json!({}), CallOptions::default()));
        assert_eq!(call(Provider::Anthropic.into()).unwrap_err().code, ErrorCode::PermissionDenied);
        assert_eq!(call(Provider::OpenAi.into()).unwrap().text, "{}");
        assert_eq!(*asked.borrow(), ["mcp__s__wipe"]);
    }

    /// A tool a server lists twice with different hints is one tool: under `askDestructive`
    /// both of its names ask when either repeat may be destructive (one ran unasked).
    #[test]
    fn a_tool_listed_twice_is_judged_on_its_most_cautious_hints() {
        let twice = json!([{"name": "wipe", "annotations": {"destructiveHint": true}}, {"name": "wipe", "annotations": {"readOnlyHint": true}}, {"name": "read", "annotations": {"readOnlyHint": true}}]);
        let (confirm, asked) = refusing();
        let hub = hub(vec![("s", vec![listing(twice), echoing_arguments()])], Some(json!({"allow": ["mcp__s"], "askDestructive": true})), Some(confirm));
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::OpenAi, &ConvertOptions::default()).unwrap();
        let names: Vec<String> = hub.name_map().unwrap().entries().iter().filter(|e| e.tool == "wipe").map(|e| e.name.clone()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        for name in &names {
            let e = call(&hub, name).unwrap_err();
            assert_eq!((e.code, e.details.as_ref().and_then(|d| d.get("decision")).cloned()), (ErrorCode::PermissionDenied, Some(json!("ask"))), "{name}: {e}");
        }
        assert_eq!(*asked.borrow(), names);
        assert_eq!(call(&hub, "mcp__s__read").unwrap().text, "{}");
    }

    /// A schema `depth` objects deep.
    fn deep(depth: usize) -> Value {
        (0..depth).fold(json!({"type": "object"}), |inner, _| json!({"type": "object", "properties": {"x": inner}}))
    }

    /// The report of a provider's last `tools`: made over the whole set offered, so a
    /// per-request limit shows (Anthropic strict: 20 strict tools), with each tool's server and
    /// the name the hub gave it (a hashed name kept from an earlier listing too); none before a
    /// `tools`; kept until the next `tools` for that provider, then made again.
    #[test]
    fn the_report_is_of_the_whole_set_offered_with_the_hubs_names() {
        let tools = |n: usize| Value::Array((0..n).map(|i| json!({"name": format!("t{i}"), "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}})).collect());
        let mut a = tools(11).as_array().unwrap().clone();
        a.push(json!({"name": "echo"}));
        let mut b = tools(11).as_array().unwrap().clone();
        b.push(json!({"name": "echo"}));
        let hub = hub(vec![("a", vec![listing(Value::Array(a))]), ("b", vec![listing(Value::Array(b))])], None, None);
        assert!(hub.report_for(None).unwrap().is_none());
        block_on(hub.list_tools(&Selection::Auto, None));
        let strict = ConvertOptions { schema: crate::providers::SchemaOptions { strict: true, ..Default::default() }, naming: NamingOptions { format: Some(crate::naming::NameFormat::Bare), ..Default::default() }, ..Default::default() };
        hub.tools(Provider::Anthropic, &strict).unwrap();
        assert!(hub.report_for(Some(Provider::OpenAi.into())).unwrap().is_none(), "no tools() for openai yet");
        let report = hub.report_for(None).unwrap().unwrap();
        let names: Vec<String> = hub.name_map().unwrap().entries().iter().map(|e| e.name.clone()).collect();
        assert_eq!(report.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>(), names);
        assert!(names.iter().filter(|n| n.starts_with("echo_")).count() == 2, "{names:?}");
        // The two echos hashed apart say so as checkTools says it.
        let echo = report.tools.iter().find(|t| t.tool == "echo").unwrap();
        assert!(echo.changes.iter().any(|c| c.rule == "names/collision"), "{:?}", echo.changes);
        assert_eq!(report.tools.iter().map(|t| t.server.clone().unwrap_or_default()).filter(|s| s == "b").count(), 12);
        // 24 tools, strict: the last four are sent without strict, and said so.
        let fell_back: Vec<&str> = report.tools.iter().filter(|t| t.strict == Some(false)).map(|t| t.name.as_str()).collect();
        assert_eq!(fell_back.len(), 4, "{fell_back:?}");
        assert!(report.tools.iter().any(|t| t.problems.iter().any(|p| p.rule.ends_with("strict-limit"))), "{report:?}");
        let made = || REPORTS_MADE.with(Cell::get);
        let before = made();
        assert_eq!(hub.report_for(Some(Provider::Anthropic.into())).unwrap().unwrap(), report, "kept");
        assert_eq!(made(), before, "given again, not made again");
        // A tools() for another provider leaves it; the next one for this provider makes it again.
        hub.tools(Provider::OpenAi, &ConvertOptions::default()).unwrap();
        assert_eq!(hub.report_for(Some(Provider::Anthropic.into())).unwrap().unwrap(), report);
        assert_eq!(made(), before);
        assert_eq!(hub.report_for(None).unwrap().unwrap().provider, "openai");
        assert_eq!(made(), before + 1);
        hub.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
        assert!(hub.report_for(Some(Provider::Anthropic.into())).unwrap().unwrap().tools.iter().all(|t| t.strict.is_none()));
        assert_eq!(made(), before + 2);
    }

    /// A tool that cannot be converted is left out and reported with its server and its index in
    /// that server's listing; the other tools, that server's too, are converted and called.
    #[test]
    fn a_tool_that_cannot_be_converted_takes_out_no_other() {
        let github = json!([{"name": "search"}, {"name": "create_issue"}]);
        let hub = hub(
            vec![
                ("github", vec![listing(github.clone()), Reply::Echo(json!({"content": [{"type": "text", "text": "found"}]})), listing(github)]),
                ("misc", vec![listing(json!([{"name": "hello"}, {"name": "deep_tool", "inputSchema": deep(80)}, {"name": ""}])), listing(json!([{"name": "hello"}]))]),
            ],
            None,
            None,
        );
        block_on(hub.list_tools(&Selection::Auto, None));
        let names = |opts: &ConvertOptions| {
            let tools = hub.tools(Provider::Anthropic, opts).unwrap();
            let names = hub.name_map().unwrap().entries().iter().map(|e| e.name.clone()).collect::<Vec<_>>();
            assert!(names.iter().all(|n| tools.contains(&format!("\"name\":\"{n}\""))), "{tools}");
            names
        };
        let left_out = || hub.dropped_tools().iter().map(|d| format!("{}/{}/{}/{}", d["server"], d["name"], d["index"], d["code"]).replace('"', "")).collect::<Vec<_>>();
        assert_eq!(names(&ConvertOptions::default()), ["mcp__github__search", "mcp__github__create_issue", "mcp__misc__hello"]);
        // The nameless tool, left out by its server's listing (no `code`), then the deep one.
        assert_eq!(left_out(), ["misc//2/null", "misc/deep_tool/1/LIMIT_EXCEEDED"]);
        let dropped = hub.dropped_tools();
        assert_eq!(dropped[0]["reason"], "the entry at index 2 of `tools` has an empty name, so no tool");
        assert!(dropped[1]["reason"].as_str().unwrap().starts_with("schema nesting exceeds the limit of 64 levels (tool \"deep_tool\", at /properties/x/"), "{dropped:?}");
        assert_eq!(call(&hub, "mcp__github__search").unwrap().text, "found");
        // Deep enough limits convert the deep tool.
        let mut opts = ConvertOptions::default();
        opts.schema.limits.max_depth = 128;
        assert!(names(&opts).contains(&"mcp__misc__deep_tool".to_owned()));
        assert_eq!(left_out(), ["misc//2/null"]);
        // More tools than limits.maxTools: the server that takes the count past it is left out
        // whole, the others converted.
        opts.schema.limits.max_tools = 2;
        assert_eq!(names(&opts), ["mcp__github__search", "mcp__github__create_issue"]);
        assert_eq!(left_out(), ["misc//2/null", "misc/hello/0/LIMIT_EXCEEDED", "misc/deep_tool/1/LIMIT_EXCEEDED"]);
        // Reported until a conversion leaves nothing out (what the new listing left out: nothing).
        block_on(hub.list_tools(&Selection::Auto, None));
        assert_eq!(left_out(), ["misc/hello/0/LIMIT_EXCEEDED", "misc/deep_tool/1/LIMIT_EXCEEDED"]);
        assert_eq!(names(&ConvertOptions::default()).len(), 3);
        assert!(hub.dropped_tools().is_empty());
    }

    /// Conversions that overlap the first listing, or a listing that starts during it: each
    /// converts every server's tools, and so does each provider's name map. The first one's own
    /// listing, superseded by the later one, once left it converting none (its map empty).
    #[test]
    fn conversions_overlapping_the_first_listing_each_convert_every_tool() {
        let tools = json!([{"name": "search"}]);
        let opts = ConvertOptions::default();
        // The first listing ends first; the later one (another provider's) ends after it.
        let hub1 = hub(vec![("s", vec![Reply::Later(2, Box::new(listing(tools.clone()))), Reply::Later(20, Box::new(listing(tools.clone())))])], None, None);
        let (openai, anthropic) = block_on(futures_util::future::join(hub1.tools_refreshed(Provider::OpenAi, &opts), hub1.tools_refreshed(Provider::Anthropic, &opts)));
        for (provider, out) in [(Provider::OpenAi, openai), (Provider::Anthropic, anthropic)] {
            assert!(out.unwrap().contains("mcp__s__search"), "{provider:?}");
            assert_eq!(hub1.name_map_for(Some(provider.into())).unwrap().entries().len(), 1, "{provider:?}");
        }
        assert!(hub1.listing_errors().is_empty());
        // Overlapped by a `list_tools` that ends after it.
        let hub2 = hub(vec![("s", vec![Reply::Later(2, Box::new(listing(tools.clone()))), Reply::Later(20, Box::new(listing(tools)))])], None, None);
        let (converted, (listed, _)) = block_on(futures_util::future::join(hub2.tools_refreshed(Provider::OpenAi, &opts), hub2.list_tools(&Selection::Auto, None)));
        assert!(converted.unwrap().contains("mcp__s__search"));
        assert_eq!(listed.len(), 1);
        assert!(!call(&hub2, "mcp__s__search").is_err_and(|e| e.code == ErrorCode::UnknownToolName));
    }

    /// A server whose `tools/call` adds the tool `b` and announces it in the call's stream;
    /// its `n`-th `tools/list` answers after `lags[n]` yields (none past the list). Returns the
    /// reply and the number of `tools/list` asked.
    fn changing_server(lags: Vec<u32>) -> (Reply, Rc<Cell<usize>>) {
        let (changed, lists) = (Rc::new(Cell::new(false)), Rc::new(Cell::new(0)));
        let listed = lists.clone();
        let serve = Reply::Server(Rc::new(move |req: &HttpRequest| {
            let b = body(req);
            match b["method"].as_str() {
                Some("tools/call") => {
                    changed.set(true);
                    let text = format!(
                        "data: {}\n\ndata: {}\n\n",
                        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
                        json!({"jsonrpc": "2.0", "id": b["id"], "result": {"content": []}})
                    );
                    Reply::Http { status: 200, headers: vec![("content-type", "text/event-stream".into())], chunks: vec![text.into_bytes()], then_hang: false, then_error: false }
                }
                Some("tools/list") => {
                    let n = lists.get();
                    lists.set(n + 1);
                    let tools = if changed.get() { json!([{"name": "a"}, {"name": "b"}]) } else { json!([{"name": "a"}]) };
                    let reply = json_reply(json!({"jsonrpc": "2.0", "id": b["id"], "result": {"tools": tools}}));
                    match lags.get(n) {
                        Some(&lag) if lag > 0 => Reply::Later(lag, Box::new(reply)),
                        _ => reply,
                    }
                }
                _ => accepted(),
            }
        }));
        (serve, listed)
    }

    /// A conversion after an announced change, while a listing is under way (a `list_tools`
    /// started after the change, or another conversion's refresh), converts the new tools: it
    /// lists the server again, or waits for the refresh listing it. It once converted the
    /// listing from before the change at once.
    #[test]
    fn a_conversion_during_a_listing_converts_what_the_change_brought() {
        let opts = ConvertOptions::default();
        let names = |out: &str| ["mcp__s__a", "mcp__s__b"].iter().filter(|n| out.contains(*n)).count();
        // A `list_tools` under way, slower than the conversion's own listing.
        let (server, lists) = changing_server(vec![0, 20, 0]);
        let hub1 = hub(vec![("s", vec![server])], None, None);
        assert_eq!(names(&block_on(hub1.tools_refreshed(Provider::OpenAi, &opts)).unwrap()), 1);
        call(&hub1, "mcp__s__a").unwrap();
        let ((listed, _), converted) = block_on(futures_util::future::join(hub1.list_tools(&Selection::Auto, None), hub1.tools_refreshed(Provider::OpenAi, &opts)));
        assert_eq!(listed.len(), 2);
        assert_eq!(names(&converted.unwrap()), 2, "the tool the change brought is converted");
        assert_eq!(lists.get(), 3);
        // Two conversions at once: the second waits for the first one's refresh.
        let (server, lists) = changing_server(vec![0, 20]);
        let hub2 = hub(vec![("s", vec![server])], None, None);
        block_on(hub2.tools_refreshed(Provider::OpenAi, &opts)).unwrap();
        call(&hub2, "mcp__s__a").unwrap();
        let (openai, anthropic) = block_on(futures_util::future::join(hub2.tools_refreshed(Provider::OpenAi, &opts), hub2.tools_refreshed(Provider::Anthropic, &opts)));
        assert_eq!((names(&openai.unwrap()), names(&anthropic.unwrap())), (2, 2));
        assert_eq!(lists.get(), 2, "one listing for both");
    }

    /// One server with more tools than `limits.maxTools` takes out no other: its tools are left
    /// out (`LIMIT_EXCEEDED`, said in `dropped_tools`), the other servers' converted and callable,
    /// whichever comes first.
    #[test]
    fn a_server_with_too_many_tools_takes_out_no_other() {
        // Two tools fit: `big`'s three do not, even before `good`'s one, which is kept.
        let many = Value::Array((0..3).map(|i| json!({"name": format!("t{i}")})).collect());
        let mut opts = ConvertOptions::default();
        opts.schema.limits.max_tools = 2;
        for big_first in [true, false] {
            let (big, good) = (("big", vec![listing(many.clone())]), ("good", vec![listing(json!([{"name": "echo"}])), Reply::Echo(json!({"content": [{"type": "text", "text": "hi"}]}))]));
            let hub = hub(if big_first { vec![big, good] } else { vec![good, big] }, None, None);
            block_on(hub.list_tools(&Selection::Auto, None));
            let out = hub.tools(Provider::OpenAi, &opts).unwrap();
            assert!(out.contains("mcp__good__echo") && !out.contains("mcp__big__"), "{out}");
            let dropped = hub.dropped_tools();
            assert_eq!(dropped.iter().map(|d| format!("{}/{}", d["server"], d["code"]).replace('"', "")).collect::<Vec<_>>(), ["big/LIMIT_EXCEEDED"; 3]);
            assert!(dropped[0]["reason"].as_str().unwrap().starts_with("server \"big\" offers 3 tools: with the other servers' tools more than limits.maxTools (2)"), "{dropped:?}");
            assert_eq!(call(&hub, "mcp__good__echo").unwrap().text, "hi");
        }
    }

    /// A server that lists one tool name twice: both entries are offered (each under a name of its
    /// own, both calling the one tool), and the later one is in `dropped_tools` with
    /// `INVALID_TOOL`, saying so. The hub once said nothing, where the conversion's report says
    /// `names/duplicate-tool`.
    #[test]
    fn a_tool_listed_twice_by_one_server_is_said() {
        let tools = json!([{"name": "same", "description": "first"}, {"name": "other"}, {"name": "same", "description": "second"}]);
        let hub = hub(vec![("raw", vec![listing(tools)]), ("web", vec![listing(json!([{"name": "same"}]))])], None, None);
        block_on(hub.list_tools(&Selection::Auto, None));
        let said = |hub: &TestHub| hub.dropped_tools().iter().map(|d| (d["server"].as_str().unwrap().to_owned(), d["index"].as_u64().unwrap(), d["code"].as_str().unwrap().to_owned())).collect::<Vec<_>>();
        assert_eq!(said(&hub), [("raw".to_owned(), 2, "INVALID_TOOL".to_owned())], "another server's tool of that name is no repeat");
        let out = hub.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&out).unwrap().as_array().unwrap().len(), 4, "every entry is still offered: {out}");
        assert_eq!(said(&hub).len(), 1);
        let d = &hub.dropped_tools()[0];
        assert_eq!(d["name"], "same");
        assert_eq!(
            d["reason"],
            "server \"raw\" lists tool \"same\" again (first at index 0): each entry is offered under a name of its own, and every one calls its one tool \"same\""
        );
    }

    /// A server that lists `tools` and answers every call with the tool's name, and the methods
    /// sent to it (`tools/call NAME` for a call).
    fn recording(tools: Value) -> (Reply, Rc<RefCell<Vec<String>>>) {
        let sent = Rc::new(RefCell::new(Vec::<String>::new()));
        let log = sent.clone();
        let server = Reply::Server(Rc::new(move |req: &HttpRequest| {
            let b = body(req);
            let method = b["method"].as_str().map_or_else(|| format!("{:?}", req.method), str::to_owned);
            match method.as_str() {
                "tools/call" => {
                    let name = b["params"]["name"].as_str().unwrap_or_default().to_owned();
                    log.borrow_mut().push(format!("tools/call {name}"));
                    json_reply(json!({"jsonrpc": "2.0", "id": b["id"], "result": {"content": [{"type": "text", "text": name}]}}))
                }
                "tools/list" => {
                    log.borrow_mut().push(method);
                    json_reply(json!({"jsonrpc": "2.0", "id": b["id"], "result": {"tools": tools}}))
                }
                _ => accepted(),
            }
        }));
        (server, sent)
    }

    /// The provider names of the last map, and the `droppedTools` entries as `server/name/index/code`.
    fn offered_and_dropped(hub: &TestHub) -> (Vec<String>, Vec<String>) {
        let names = hub.name_map().unwrap().entries().iter().map(|e| e.name.clone()).collect();
        let dropped = hub.dropped_tools().iter().map(|d| format!("{}/{}/{}/{}", d["server"], d["name"], d["index"], d["code"]).replace('"', "")).collect();
        (names, dropped)
    }

    /// A tool a deny rule matches is not offered (every call of it would be refused): it is in
    /// `dropped_tools` with `PERMISSION_DENIED` and the rule, and a call of its name, the one a
    /// model may guess, is refused `PERMISSION_DENIED` and never sent, whatever namespace a model
    /// puts before it. It was once offered, its description and schema in the model's context.
    #[test]
    fn a_tool_a_deny_rule_matches_is_not_offered_and_its_name_is_refused() {
        let (server, sent) = recording(json!([{"name": "read"}, {"name": "delete_all"}, {"name": "write"}]));
        let hub = hub(vec![("fs", vec![server])], Some(json!({"deny": ["mcp__fs__delete*"], "defaultAction": "allow"})), None);
        block_on(hub.list_tools(&Selection::Auto, None));
        let out = hub.tools(Provider::Anthropic, &ConvertOptions::default()).unwrap();
        assert!(!out.contains("delete_all"), "{out}");
        assert_eq!(offered_and_dropped(&hub), (vec!["mcp__fs__read".to_owned(), "mcp__fs__write".to_owned()], vec!["fs/delete_all/1/PERMISSION_DENIED".to_owned()]));
        assert_eq!(
            hub.dropped_tools()[0]["reason"],
            "the permission policy denies server \"fs\"'s tool \"delete_all\" (its deny rule \"mcp__fs__delete*\" matches it): it is not offered, as every call of it would be refused PERMISSION_DENIED; to offer it, take it out of that rule"
        );
        for name in ["mcp__fs__delete_all", "functions.mcp__fs__delete_all"] {
            let e = call(&hub, name).unwrap_err();
            assert_eq!((e.code, e.tool.as_deref()), (ErrorCode::PermissionDenied, Some("delete_all")), "{e}");
            let details = e.details.as_ref().unwrap();
            assert_eq!((&details["decision"], &details["server"]), (&json!("deny"), &json!("fs")));
            assert_eq!(
                e.message,
                format!("\"{name}\" is server \"fs\"'s tool \"delete_all\", which the permission policy denies (its deny rule \"mcp__fs__delete*\" matches it): tools() did not offer it, and it was not called")
            );
        }
        // An unknown name is still the map's error, and the offered tools are called.
        assert_eq!(call(&hub, "mcp__fs__delete_some").unwrap_err().code, ErrorCode::UnknownToolName);
        assert_eq!(call(&hub, "mcp__fs__write").unwrap().text, "write");
        assert_eq!(*sent.borrow(), ["tools/list", "tools/call write"], "the denied tool is never called");
        // The name map's names stay their tools' in the next conversion, and for another provider.
        hub.tools(Provider::OpenAi, &ConvertOptions::default()).unwrap();
        assert_eq!(offered_and_dropped(&hub).0, ["mcp__fs__read", "mcp__fs__write"]);
        assert_eq!(block_on(hub.call_tool_for(Some(Provider::Anthropic.into()), "mcp__fs__delete_all", json!({}), CallOptions::default())).unwrap_err().code, ErrorCode::PermissionDenied);
        assert!(hub.given.borrow().owner("mcp__fs__delete_all").is_none(), "a name never given is not kept as given");
    }

    /// With `defaultAction: "deny"`, only the tools an allow or ask rule matches are offered;
    /// one an ask rule matches is offered and asks. Each left out says how it would be offered.
    #[test]
    fn with_default_deny_only_the_tools_a_rule_allows_or_asks_for_are_offered() {
        let (server, sent) = recording(json!([{"name": "read"}, {"name": "write"}, {"name": "rm"}]));
        let (confirm, asked) = refusing();
        let hub = hub(vec![("fs", vec![server])], Some(json!({"allow": ["mcp__fs__read"], "ask": ["*write*"], "defaultAction": "deny"})), Some(confirm));
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::OpenAi, &ConvertOptions::default()).unwrap();
        assert_eq!(offered_and_dropped(&hub), (vec!["mcp__fs__read".to_owned(), "mcp__fs__write".to_owned()], vec!["fs/rm/2/PERMISSION_DENIED".to_owned()]));
        assert_eq!(
            hub.dropped_tools()[0]["reason"],
            "the permission policy denies server \"fs\"'s tool \"rm\" (no rule matches it, and its defaultAction is \"deny\"): it is not offered, as every call of it would be refused PERMISSION_DENIED; to offer it, add an allow or ask rule for it (\"mcp__fs__rm\", or \"mcp__fs\" for the whole server)"
        );
        let e = call(&hub, "mcp__fs__rm").unwrap_err();
        assert_eq!(e.code, ErrorCode::PermissionDenied, "{e}");
        assert!(e.message.contains("no rule matches it, and its defaultAction is \"deny\"): tools() did not offer it"), "{e}");
        let refused = call(&hub, "mcp__fs__write").unwrap_err();
        assert_eq!((refused.code, refused.details.unwrap()["decision"].clone()), (ErrorCode::PermissionDenied, json!("ask")));
        assert_eq!(*asked.borrow(), ["mcp__fs__write"]);
        assert_eq!(call(&hub, "mcp__fs__read").unwrap().text, "read");
        assert_eq!(*sent.borrow(), ["tools/list", "tools/call read"]);
    }

    /// A hub without a confirm callback offers none of the tools its policy would ask for: each
    /// call would be refused. An allow list with the default action ("ask") offers what it
    /// allows; `askDestructive` leaves out what may destroy, judged on the annotations of
    /// every repeat of the tool; each left out is reported, and a call of its name refused
    /// `decision: "ask"`, never sent.
    #[test]
    fn without_a_confirm_callback_what_the_policy_asks_for_is_not_offered() {
        let (server, sent) = recording(json!([
            {"name": "read", "annotations": {"readOnlyHint": true}},
            {"name": "write"},
            {"name": "rm", "annotations": {"destructiveHint": true}}
        ]));
        let (db, _) = recording(json!([{"name": "query"}]));
        let hub = hub(vec![("fs", vec![server]), ("db", vec![db])], Some(json!({"allow": ["mcp__fs"], "askDestructive": true})), None);
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::OpenAi, &ConvertOptions::default()).unwrap();
        assert_eq!(
            offered_and_dropped(&hub),
            (vec!["mcp__fs__read".to_owned()], vec!["fs/write/1/PERMISSION_DENIED".to_owned(), "fs/rm/2/PERMISSION_DENIED".to_owned(), "db/query/0/PERMISSION_DENIED".to_owned()])
        );
        let reasons: Vec<String> = hub.dropped_tools().iter().map(|d| d["reason"].as_str().unwrap_or_default().to_owned()).collect();
        assert!(reasons[0].contains("askDestructive asks for it") && reasons[2].contains("its defaultAction is \"ask\""), "{reasons:?}");
        for name in ["mcp__fs__write", "mcp__fs__rm", "mcp__db__query"] {
            let e = call(&hub, name).unwrap_err();
            assert_eq!((e.code, e.details.unwrap()["decision"].clone()), (ErrorCode::PermissionDenied, json!("ask")), "{name}");
        }
        assert_eq!(call(&hub, "mcp__fs__read").unwrap().text, "read");
        assert_eq!(*sent.borrow(), ["tools/list", "tools/call read"]);
        // A pagination repeat that may destroy makes every repeat of the tool ask, as at a call.
        let hub = self::tests::hub(
            vec![("fs", vec![listing(json!([{"name": "rm", "annotations": {"readOnlyHint": true}}, {"name": "rm"}]))])],
            Some(json!({"allow": ["mcp__fs"], "askDestructive": true})),
            None,
        );
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::OpenAi, &ConvertOptions::default()).unwrap();
        assert_eq!(offered_and_dropped(&hub).0, Vec::<String>::new());
        // A tool denied by default is told to add an allow rule: an ask rule would not offer it here.
        let hub = self::tests::hub(vec![("fs", vec![listing(json!([{"name": "rm"}]))])], Some(json!({"defaultAction": "deny"})), None);
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::OpenAi, &ConvertOptions::default()).unwrap();
        let reason = hub.dropped_tools()[0]["reason"].as_str().unwrap_or_default().to_owned();
        assert!(reason.ends_with("to offer it, add an allow rule for it (\"mcp__fs__rm\", or \"mcp__fs\" for the whole server)"), "{reason}");
    }

    /// `limits.maxTools` counts the tools offered: tools the policy denies take no server out.
    #[test]
    fn denied_tools_count_for_no_limit() {
        let hub = hub(
            vec![("a", vec![listing(json!([{"name": "x"}, {"name": "y"}]))]), ("b", vec![listing(json!([{"name": "read"}, {"name": "list"}]))])],
            Some(json!({"deny": ["mcp__a"], "defaultAction": "allow"})),
            None,
        );
        block_on(hub.list_tools(&Selection::Auto, None));
        let mut opts = ConvertOptions::default();
        opts.schema.limits.max_tools = 2;
        hub.tools(Provider::Anthropic, &opts).unwrap();
        assert_eq!(
            offered_and_dropped(&hub),
            (vec!["mcp__b__read".to_owned(), "mcp__b__list".to_owned()], vec!["a/x/0/PERMISSION_DENIED".to_owned(), "a/y/1/PERMISSION_DENIED".to_owned()])
        );
    }

    /// A tool left out takes no name from the tools offered, and gives none: with `naming:
    /// "bare"`, server b's `rm` is `rm` while a's is denied, and keeps it; a call of `rm` is b's,
    /// the one the model was given. A tool offered is judged by the name it is given: one whose
    /// name, hashed while a denied tool's clashed with it, becomes one a deny rule names once
    /// that tool is left out, is left out too.
    #[test]
    fn tools_left_out_for_the_policy_keep_the_names_of_the_others() {
        let (b, sent) = recording(json!([{"name": "rm"}, {"name": "ls"}]));
        let hub = hub(vec![("a", vec![listing(json!([{"name": "rm"}]))]), ("b", vec![b])], Some(json!({"deny": ["mcp__a"], "defaultAction": "allow"})), None);
        block_on(hub.list_tools(&Selection::Auto, None));
        let bare = ConvertOptions { naming: NamingOptions { format: Some(crate::naming::NameFormat::Bare), ..Default::default() }, ..Default::default() };
        for _ in 0..2 {
            hub.tools(Provider::OpenAi, &bare).unwrap();
            assert_eq!(offered_and_dropped(&hub), (vec!["rm".to_owned(), "ls".to_owned()], vec!["a/rm/0/PERMISSION_DENIED".to_owned()]));
        }
        assert_eq!(call(&hub, "rm").unwrap().text, "rm");
        assert_eq!(call(&hub, "mcp__a__rm").unwrap_err().code, ErrorCode::PermissionDenied);
        assert_eq!(*sent.borrow(), ["tools/list", "tools/call rm"]);
        // A server that lists `rm` twice: with prefix "x", the first entry is "x__s__rm" and the
        // second hashed while both are judged. A deny of "x__s__rm" (a name only the provider
        // sees) leaves the first out, and the second is then named "x__s__rm": it is left out
        // too, not offered to be refused.
        let naming = NamingOptions { prefix: "x".into(), ..Default::default() };
        let hub = self::tests::hub(vec![("s", vec![listing(json!([{"name": "rm"}, {"name": "rm"}, {"name": "ls"}]))])], Some(json!({"deny": ["x__s__rm"], "defaultAction": "allow"})), None);
        block_on(hub.list_tools(&Selection::Auto, None));
        hub.tools(Provider::OpenAi, &ConvertOptions { naming, ..Default::default() }).unwrap();
        assert_eq!(offered_and_dropped(&hub), (vec!["x__s__ls".to_owned()], vec!["s/rm/0/PERMISSION_DENIED".to_owned(), "s/rm/1/PERMISSION_DENIED".to_owned()]));
        let e = call(&hub, "x__s__rm").unwrap_err();
        assert_eq!(e.code, ErrorCode::PermissionDenied, "{e}");
        assert!(e.message.contains("its deny rule \"x__s__rm\" matches it"), "{e}");
    }

    /// A hub whose policy denies nothing, or that has none, offers every tool, as before: with a
    /// confirm callback to ask, whatever it asks for; without one, where it asks for nothing.
    #[test]
    fn a_policy_that_denies_nothing_leaves_nothing_out() {
        let cases = [(None, false), (Some(json!({"ask": ["*"]})), true), (Some(json!({"deny": ["mcp__other"], "defaultAction": "allow"})), false)];
        for (policy, confirm) in cases {
            let hub = hub(vec![("fs", vec![listing(json!([{"name": "read"}, {"name": "rm"}]))])], policy.clone(), confirm.then(|| refusing().0));
            block_on(hub.list_tools(&Selection::Auto, None));
            hub.tools(Provider::Gemini, &ConvertOptions::default()).unwrap();
            assert_eq!(offered_and_dropped(&hub), (vec!["mcp__fs__read".to_owned(), "mcp__fs__rm".to_owned()], vec![]), "{policy:?}");
        }
    }
}
