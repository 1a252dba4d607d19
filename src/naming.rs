//! Tool names across servers, within every provider's name rules, and back.
//!
//! Names are built as `{prefix}{sep}{server}{sep}{tool}` ([`NameFormat::Mcp`], the default when
//! a server is known: `mcp__github__create_issue`), `{server}{sep}{tool}` ([`NameFormat::Server`])
//! or `{tool}` ([`NameFormat::Bare`]). Then, for the target provider's [`NameRule`]:
//!
//! 1. every character the provider does not allow becomes `_`;
//! 2. for Gemini, a name that does not start with a letter or `_` gets a leading `_` (with
//!    [`NamingOptions::portable`], one that does not start with a letter gets a leading `t`);
//! 3. a name that step 1 or 2 changed, that is longer than 64 characters, whose server holds
//!    the separator (server `a__b` + tool `c` reads as server `a` + tool `b__c`), or whose tool
//!    has no server and would read as a server's (`t__x` under `Mcp` or `Server`: server `t`'s
//!    tool `x`; by default, a tool named `mcp__t__x`), is cut to 55
//!    characters (a long server first, so that the tool's name stays readable) and gets `_` + an
//!    8-character hash of the raw `(server, tool)` pair, so that
//!    `search.a` and `search_a` stay apart and long names stay unique and deterministic. The
//!    hash holds at least one digit; a name that already ends so (`_` + 8 lower-case letters or
//!    digits, at least one a digit: `x_12345678`, never a word like `get_database`) is hashed
//!    too, so that no tool's own name is ever another tool's hashed name. A name
//!    so far depends on its own pair alone: the same in every conversion, whatever else is listed;
//! 4. across a set of tools ([`NameMap::build`]), any names that still coincide get a hash
//!    suffix, re-salted until every name is unique: with `Bare` names, one tool name on two
//!    servers (all of them); the same tool listed twice (the repeats: the first keeps its name).
//!    The result does not depend on input order, but for which of a tool's repeats is first.
//!    A name once given to a tool can come back for another in a later set: tools whose names
//!    coincide (one tool name on two servers under `Bare`, hashed names with the same 55 first
//!    characters and hash) are all re-salted, and once one is gone the other has the name
//!    again. With [`NamingOptions::given`] (what `McpHub` keeps), a name given before to one
//!    pair is given no other (that one is re-salted), a tool keeps its name in a clash with
//!    a tool that never had it, and a tool keeps the name it was given last (a hashed one
//!    too, once the clash it was hashed for is gone).
//!
//! Going back is a table lookup in the [`NameMap`], never a `split("__")`. [`parse_tool_name`]
//! exists for the plain formats and is documented for what it cannot tell apart.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use crate::args::ArgPlan;
use crate::error::{Error, ErrorCode, Result};
use crate::model::{read_array, read_object, read_opt_field, read_required, read_string, string, FieldError, Put as _, Read};
use crate::report::Diagnostic;
use crate::text::Owned as _;

/// How a provider name is composed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameFormat {
    /// `mcp__{server}__{tool}`.
    Mcp,
    /// `{server}__{tool}`.
    Server,
    /// `{tool}`.
    Bare,
}

impl NameFormat {
    /// Parses `"mcp" | "server" | "bare"`.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "mcp" => Ok(Self::Mcp),
            "server" => Ok(Self::Server),
            "bare" => Ok(Self::Bare),
            other => Err(Error::new(
                ErrorCode::InvalidOptions,
                format!("unknown naming format \"{other}\" (expected \"mcp\", \"server\" or \"bare\")"),
            )),
        }
    }
}

/// Naming options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamingOptions {
    /// The format; `None` means `Mcp` when the tool has a server, else `Bare`.
    pub format: Option<NameFormat>,
    /// Separator between parts, `"__"` by default.
    pub separator: String,
    /// Prefix of the `Mcp` format, `"mcp"` by default.
    pub prefix: String,
    /// Names within [`NameRule::Portable`] whatever the provider: the same names for every
    /// provider, for an app that sends one conversation to several (its history names the
    /// tools the way the first provider was given them).
    pub portable: bool,
    /// Names given to tools before (by `McpHub`'s earlier conversions), none of which
    /// [`NameMap::build`] gives another tool: see [`GivenNames`].
    pub given: Option<Arc<GivenNames>>,
}

impl Default for NamingOptions {
    fn default() -> Self {
        Self { format: None, separator: "__".owned(), prefix: "mcp".owned(), portable: false, given: None }
    }
}

impl NamingOptions {
    /// The rule names are made within: the provider's, or [`NameRule::Portable`].
    pub fn rule(&self, provider: NameRule) -> NameRule {
        if self.portable {
            NameRule::Portable
        } else {
            provider
        }
    }
}

/// A provider's rule for function names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// OpenAI, Anthropic, Bedrock: `^[a-zA-Z0-9_-]{1,64}$`.
    Strict,
    /// Gemini and Vertex AI: `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`.
    Gemini,
    /// Every provider's at once, Bedrock's strictest included (Agents, `toolChoice.tool`):
    /// `^[a-zA-Z][a-zA-Z0-9_]{0,63}$`.
    Portable,
}

/// The longest name any provider accepts everywhere.
pub const MAX_NAME_LEN: usize = 64;
const HASH_LEN: usize = 8;

impl NameRule {
    #[inline]
    fn allows(self, c: char) -> bool {
        c.is_ascii_alphanumeric()
            || c == '_'
            || (c == '-' && self != Self::Portable)
            || (self == Self::Gemini && (c == '.' || c == ':'))
    }

    #[inline]
    fn allows_first(self, c: char) -> bool {
        match self {
            Self::Strict => self.allows(c),
            Self::Gemini => c.is_ascii_alphabetic() || c == '_',
            Self::Portable => c.is_ascii_alphabetic(),
        }
    }

    /// Whether `name` already satisfies the rule.
    pub fn accepts(self, name: &str) -> bool {
        // Every character a rule allows is ASCII, so bytes can be checked one by one: the first
        // byte of a multi-byte character is never allowed.
        let bytes = name.as_bytes();
        match bytes.first() {
            Some(&first) if self.allows_first(char::from(first)) => {}
            _ => return false,
        }
        bytes.len() <= MAX_NAME_LEN && bytes[1..].iter().all(|&b| self.allows(char::from(b)))
    }
}

/// Refuses (`INVALID_OPTIONS`) a separator or prefix that names under `rule` cannot hold: each
/// of its characters would become `_` and every name get a hash suffix, so the option would
/// not do what it says. Only what the format uses is checked (the prefix by the `mcp` format,
/// the separator by `mcp` and `server`).
pub fn check_options(opts: &NamingOptions, rule: NameRule) -> Result<()> {
    // What [`refuse_options`] finds nothing in, checked first: the refusals' messages are
    // compiled only when there is one to write (see bench/README.md, "Cold start").
    let format = opts.format.unwrap_or(NameFormat::Mcp);
    // By bytes: every character a rule allows is ASCII, and no byte of another is allowed.
    let allowed = |s: &str| s.bytes().all(|b| rule.allows(char::from(b)));
    let first = opts.prefix.bytes().next().or_else(|| opts.separator.bytes().next()).map(char::from);
    let prefix_ok = format != NameFormat::Mcp || (first.is_none_or(|c| !rule.allows(c) || rule.allows_first(c)) && allowed(&opts.prefix));
    let separator_ok = format == NameFormat::Bare || allowed(&opts.separator);
    if prefix_ok && separator_ok {
        return Ok(());
    }
    refuse_options(opts, rule)
}

/// [`check_options`]'s refusal of an option it found a character in that `rule` does not take.
#[cold]
#[inline(never)]
fn refuse_options(opts: &NamingOptions, rule: NameRule) -> Result<()> {
    let format = opts.format.unwrap_or(NameFormat::Mcp);
    let who = match rule {
        NameRule::Strict => "OpenAI's, Anthropic's and Bedrock's tool names (letters, digits, `_` and `-`)",
        NameRule::Gemini => "Gemini's tool names (letters, digits, `_`, `-`, `.` and `:`)",
        NameRule::Portable => "names every provider takes (portableNames: letters, digits and `_`)",
    };
    let mut parts: Vec<(&str, &str)> = Vec::new();
    if format == NameFormat::Mcp {
        parts.push(("prefix", &opts.prefix));
    }
    if format != NameFormat::Bare {
        parts.push(("separator", &opts.separator));
    }
    for (key, value) in parts {
        // The prefix starts every name: its first character is held to how a name may start. An
        // empty prefix leaves the separator to start every name, so it is the separator's first
        // character then (a character no name may hold at all is the separator's own refusal below).
        if key == "prefix" {
            let first = value.chars().next().or_else(|| opts.separator.chars().next());
            if let Some(c) = first.filter(|c| rule.allows(*c) && !rule.allows_first(*c)) {
                let start = match rule {
                    NameRule::Gemini => "Gemini's tool names start with a letter or `_`",
                    _ => "names every provider takes (portableNames) start with a letter",
                };
                let message = if value.is_empty() {
                    format!(
                        "options.prefix is empty, so the separator {:?} starts every name with {c:?}, and {start}: give a prefix that starts so (or naming: \"server\" for names without one), or every name would be rewritten and hashed",
                        opts.separator
                    )
                } else {
                    format!("options.prefix {value:?} starts with {c:?}, and {start}: the prefix must start so, or every name would be rewritten and hashed")
                };
                return Err(Error::new(ErrorCode::InvalidOptions, message));
            }
        }
        if let Some(c) = value.chars().find(|c| !rule.allows(*c)) {
            return Err(Error::new(
                ErrorCode::InvalidOptions,
                format!("options.{key} {value:?} holds {c:?}, which {who} cannot hold: every name would be rewritten and hashed"),
            ));
        }
    }
    Ok(())
}

/// The name before any sanitising: the parts joined by the format.
pub fn raw_name(server: Option<&str>, tool: &str, opts: &NamingOptions) -> String {
    let server = server.filter(|s| !s.is_empty());
    let format = opts.format.unwrap_or(if server.is_some() { NameFormat::Mcp } else { NameFormat::Bare });
    let sep = opts.separator.as_str();
    let parts: &[&str] = match (format, server) {
        (NameFormat::Mcp, Some(s)) => &[&opts.prefix, sep, s, sep, tool],
        (NameFormat::Mcp, None) => &[&opts.prefix, sep, tool],
        (NameFormat::Server, Some(s)) => &[s, sep, tool],
        (NameFormat::Server, None) | (NameFormat::Bare, _) => &[tool],
    };
    // Not `[&str]::concat`: its generic body is compiled on a conversion's first call.
    crate::schema::lower::concat(parts)
}

/// A short stable hash of the raw pair (FNV-1a 64, base 36), salted for re-hashing.
fn pair_hash(server: Option<&str>, tool: &str, salt: u32) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    // Unambiguous encoding: no server and an empty server differ, and lengths delimit the parts.
    match server {
        None => eat(&[0]),
        Some(s) => {
            eat(&[1]);
            eat(&(s.len() as u64).to_le_bytes());
            eat(s.as_bytes());
        }
    }
    eat(&(tool.len() as u64).to_le_bytes());
    eat(tool.as_bytes());
    if salt > 0 {
        eat(&[0]);
        eat(&salt.to_le_bytes());
    }
    // Finalise (splitmix64) so short inputs still spread over all digits.
    let mut z = h;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = String::with_capacity(HASH_LEN);
    for _ in 0..HASH_LEN {
        out.push(char::from(DIGITS[(z % 36) as usize]));
        z /= 36;
    }
    out
}

/// The short stable hash of [`pair_hash`] for one key (a property key cut to fit, see
/// `providers::keys`).
pub(crate) fn key_hash(key: &str) -> String {
    pair_hash(None, key, 0)
}

/// A hashed name: the sanitised name cut to 55 characters, `_` and 8 characters of the pair's
/// hash, at least one of them a digit ([`is_hash_shaped`]). No name given verbatim ends so
/// ([`prefix_tool_name`] hashes those that would), so a hashed name is never another tool's
/// verbatim name.
fn with_hash(sanitized: &str, server: Option<&str>, tool: &str, salt: u32) -> String {
    let keep = MAX_NAME_LEN - HASH_LEN - 1;
    // Sanitised names are ASCII, so byte slicing is character slicing.
    let head = &sanitized[..sanitized.len().min(keep)];
    let mut hash = pair_hash(server, tool, salt);
    if !hash.bytes().any(|b| b.is_ascii_digit()) {
        // One hash in 13 is all letters: its last letter becomes a digit (from the first).
        let first = hash.as_bytes()[0];
        hash.pop();
        hash.push(char::from(b'0' + (first - b'a') % 10));
    }
    format!("{head}_{hash}")
}

/// Whether a name ends as [`with_hash`] ends a name: `_` and 8 lower-case letters or digits,
/// at least one a digit. Ordinary names ending in `_` and 8 characters end in a word
/// (`get_database`), which has none.
fn is_hash_shaped(name: &str) -> bool {
    let b = name.as_bytes();
    let Some(start) = b.len().checked_sub(HASH_LEN + 1) else {
        return false;
    };
    let tail = &b[start + 1..];
    b[start] == b'_' && tail.iter().all(|c| c.is_ascii_digit() || c.is_ascii_lowercase()) && tail.iter().any(u8::is_ascii_digit)
}

/// Replaces characters the rule forbids with `_`, fixing the first character for Gemini (a
/// leading `_`) and the portable rule (a leading `t`).
pub fn sanitize(raw: &str, rule: NameRule) -> String {
    let mut out = String::with_capacity(raw.len() + 1);
    for c in raw.chars() {
        out.push(if rule.allows(c) { c } else { '_' });
    }
    if !out.chars().next().is_some_and(|c| rule.allows_first(c)) {
        out.insert(0, if rule == NameRule::Portable { 't' } else { '_' });
    }
    out
}

/// The letters and digits of a tool's name that no provider name can hold, each once, in order:
/// those outside ASCII (`検索`, `поиск`, `é`). Every rule holds the ASCII letters and digits and
/// no other character, so these are what sanitising writes as `_` whatever the provider, and
/// what the model cannot read back out of the name; a name that loses none keeps all its words
/// (its punctuation aside).
pub fn lost_letters(tool: &str) -> Vec<char> {
    let mut lost = Vec::new();
    for c in tool.chars().filter(|c| !c.is_ascii() && c.is_alphanumeric()) {
        if !lost.contains(&c) {
            lost.push(c);
        }
    }
    lost
}

/// What starts the description of a tool whose name lost letters or digits
/// ([`named_description`]), before the name.
pub const TOOL_NAME_LABEL: &str = "Tool name: ";

/// The description a tool whose name lost letters or digits ([`lost_letters`]) is sent with:
/// `label` and the name, where the model reads it, then the description, if it has one, after a
/// blank line (`Tool name: 検索\n\nSearches the documents.`). Without it the model would read
/// nothing of the name (`mcp__docs_____nmd3d66h`). `None` for any other tool: its description is
/// sent as it is.
pub fn named_description(label: &str, tool: &str, description: &str) -> Option<String> {
    // An ASCII name (most) is looked at no further: the rest is compiled on its first call.
    if tool.is_ascii() {
        return None;
    }
    name_with_description(label, tool, description)
}

/// [`named_description`] for a name outside ASCII.
#[inline(never)]
fn name_with_description(label: &str, tool: &str, description: &str) -> Option<String> {
    if !tool.chars().any(|c| !c.is_ascii() && c.is_alphanumeric()) {
        return None;
    }
    let description = description.trim();
    let mut text = String::with_capacity(label.len() + tool.len() + 2 + description.len());
    text.push_str(label);
    text.push_str(tool);
    if !description.is_empty() {
        text.push_str("\n\n");
        text.push_str(description);
    }
    Some(text)
}

/// A part of a name (a server's, a tool's) with each character the rule forbids as `_`, as
/// [`sanitize`] makes it within the whole name.
pub(crate) fn sanitize_part(raw: &str, rule: NameRule) -> String {
    raw.chars().map(|c| if rule.allows(c) { c } else { '_' }).collect()
}

/// The provider name of one tool (`prefixToolName` in JS), without regard to other tools.
///
/// Deterministic; distinct `(server, tool)` pairs get distinct names except when two raw names
/// coincide exactly (see [`NameMap::build`], which resolves that) or two hashes do. A name
/// without a hash splits back at the first separator after the prefix ([`parse_tool_name`]).
/// An empty server is no server, as a conversion reads a tool's `serverName: ""`.
pub fn prefix_tool_name(server: Option<&str>, tool: &str, opts: &NamingOptions, rule: NameRule) -> String {
    let server = server.filter(|s| !s.is_empty());
    let raw = raw_name(server, tool, opts);
    // A name that ends like a hashed one is hashed too: given verbatim, it could be the hashed
    // name of another pair (`a.b` is `mcp__s__a_b_` + a hash), and name that tool in another turn.
    let splits_back = splits_at_server(&raw, server, opts) && !is_hash_shaped(&raw);
    if splits_back && rule.accepts(&raw) {
        // What sanitize would return unchanged, within the length limit.
        return raw;
    }
    let clean = sanitize(&raw, rule);
    if splits_back && clean == raw && clean.len() <= MAX_NAME_LEN {
        clean
    } else {
        with_hash(&hash_head(clean, server, tool, opts, rule), server, tool, 0)
    }
}

/// The sanitised name a hash goes after ([`with_hash`] keeps its first 55 characters): a name
/// too long for that has its server cut first (to no fewer than 16 characters), so that the
/// tool's own name, which tells one server's tools apart, is what the model reads.
fn hash_head(clean: String, server: Option<&str>, tool: &str, opts: &NamingOptions, rule: NameRule) -> String {
    const MIN_SERVER: usize = 16;
    let keep = MAX_NAME_LEN - HASH_LEN - 1;
    let Some(server) = server.filter(|s| !s.is_empty() && clean.len() > keep && opts.format != Some(NameFormat::Bare)) else {
        return clean;
    };
    // Each character of the server is one of the sanitised name.
    let server_len = server.chars().count();
    let room = keep.saturating_sub(clean.len().saturating_sub(server_len)).max(MIN_SERVER);
    if room >= server_len {
        return clean;
    }
    let cut: String = server.chars().take(room).collect();
    sanitize(&raw_name(Some(&cut), tool, opts), rule)
}

/// Whether a raw name's server ends where the first separator after it begins: a server
/// holding the separator (`a__b`), or ending in part of it (`files_` before `__`), would read
/// as another `(server, tool)` pair (`a` + `b__c`), so such a name is hashed. That keeps a
/// name the property of its own pair: a name one turn gives `a__b`'s tool `c` can never be
/// given to `a`'s tool `b__c` in another, whichever of the two is listed at the time.
///
/// A tool with no server splits back only where its name cannot read as a server's tool: with
/// `Mcp` and `Server`, a tool name holding the separator (no server, `t__x`: `mcp__t__x` and
/// `t__x` are server `t`'s tool `x`); by default (a bare name), one that reads as an `Mcp` name
/// (`mcp__t__x`). Such a name is hashed too, so that it never names server `t`'s tool `x`.
fn splits_at_server(raw: &str, server: Option<&str>, opts: &NamingOptions) -> bool {
    let sep = opts.separator.as_str();
    let Some(server) = server.filter(|s| !s.is_empty()) else {
        let after_server = match opts.format {
            Some(NameFormat::Bare) => return true,
            Some(NameFormat::Server) => Some(raw),
            // `mcp__` + the tool; by default the tool's own name, `mcp__` + what follows if it
            // starts so.
            Some(NameFormat::Mcp) | None => raw.strip_prefix(opts.prefix.as_str()).and_then(|r| r.strip_prefix(sep)),
        };
        return after_server.is_none_or(|rest| crate::text::find(rest, sep).is_none());
    };
    let start = match opts.format.unwrap_or(NameFormat::Mcp) {
        NameFormat::Mcp => opts.prefix.len() + sep.len(),
        NameFormat::Server => 0,
        NameFormat::Bare => return true,
    };
    raw.get(start..).and_then(|rest| crate::text::find(rest, sep)) == Some(server.len())
}

/// The parts of a name in one of the plain formats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedName {
    /// The server, when the format has one.
    pub server: Option<String>,
    /// The tool.
    pub tool: String,
}

impl ParsedName {
    /// `{server, tool}` (`server` is `null` when absent).
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.put("server", self.server.clone().into());
        o.put("tool", string(&self.tool));
        Value::Object(o)
    }
}

serialize_via_value!(ParsedName);

/// Splits a name built by a plain format (`parseToolName` in JS).
///
/// What it can tell apart: names whose server part does not contain the separator. It splits
/// at the *first* separator after the prefix, so a tool name containing `__` is recovered
/// intact but a server name containing `__` is not. It cannot undo sanitising or hashing
/// (`my.server` became `my_server`, long names were cut). With `format: None` it reads
/// `mcp__s__t` as `Mcp`, `s__t` as `Server` and anything else as `Bare`. For exact answers use
/// the [`NameMap`] built at conversion time.
pub fn parse_tool_name(name: &str, format: Option<NameFormat>, opts: &NamingOptions) -> Option<ParsedName> {
    let sep = opts.separator.as_str();
    if sep.is_empty() || name.is_empty() {
        return None;
    }
    let mcp_head = format!("{}{sep}", opts.prefix);
    let format = format.unwrap_or_else(|| {
        if name.starts_with(&mcp_head) {
            NameFormat::Mcp
        } else if name.contains(sep) {
            NameFormat::Server
        } else {
            NameFormat::Bare
        }
    });
    let split = |rest: &str| {
        let (s, t) = rest.split_once(sep)?;
        (!s.is_empty() && !t.is_empty()).then(|| ParsedName { server: Some(s.owned()), tool: t.owned() })
    };
    match format {
        // `mcp__t`: what the format makes of a tool with no server.
        NameFormat::Mcp => name.strip_prefix(&mcp_head).and_then(|rest| {
            split(rest).or_else(|| (!rest.is_empty() && !rest.contains(sep)).then(|| ParsedName { server: None, tool: rest.owned() }))
        }),
        // `t`: what the format makes of a tool with no server (one whose name holds the
        // separator is hashed).
        NameFormat::Server => split(name).or_else(|| (!name.contains(sep)).then(|| ParsedName { server: None, tool: name.owned() })),
        NameFormat::Bare => Some(ParsedName { server: None, tool: name.owned() }),
    }
}

/// One entry of a [`NameMap`]. JSON form: `{name, server, tool, args?}` (`server` is `null`
/// when unknown; `args` is absent when the arguments pass through unchanged).
#[derive(Debug, Clone, PartialEq)]
pub struct NameEntry {
    /// The name the provider sees.
    pub name: String,
    /// The server, when known.
    pub server: Option<String>,
    /// The tool's original MCP name.
    pub tool: String,
    /// How to map the model's arguments back (absent when they pass through unchanged).
    pub args: Option<ArgPlan>,
}

impl NameEntry {
    /// The JSON form.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.put("name", string(&self.name));
        o.put("server", self.server.clone().into());
        o.put("tool", string(&self.tool));
        if let Some(args) = &self.args {
            o.put("args", args.to_value());
        }
        Value::Object(o)
    }

    /// Reads the JSON form: `name` and `tool` are required strings, `server` and `args` may be
    /// absent or `null`, unknown fields are ignored. Wrong types are `INVALID_INPUT` errors.
    pub fn from_value(v: &Value) -> Result<Self> {
        Self::read(v).map_err(|e| e.into_error(ErrorCode::InvalidInput, "invalid name map entry"))
    }

    fn read(v: &Value) -> Read<Self> {
        let o = read_object(v)?;
        Ok(Self {
            name: read_required(o, "name", read_string)?,
            server: read_opt_field(o, "server", read_string)?,
            tool: read_required(o, "tool", read_string)?,
            args: read_opt_field(o, "args", ArgPlan::read)?,
        })
    }
}

serialize_via_value!(NameEntry);

/// Names given to tools, each with its `(server, tool)` pair: what `McpHub` keeps across its
/// conversions, so that a name a model was given for one tool, in any turn, never routes to
/// another. [`NameMap::build`] with [`NamingOptions::given`] gives none of these names to
/// another pair (it re-salts that pair's name), and in a clash the pair a name was given to
/// keeps it. A pair keeps the name it was given last, of those the map could give it (its own
/// name, or its name with a hash after a clash): a clash that ends, or one that never was its
/// own, renames no tool a model was given. At least the last [`GIVEN_NAMES_KEPT`] names given
/// are kept (and every name of the last map recorded); past half as many again, those given
/// longest ago are forgotten down to that many (a server that renames its tools at every
/// listing would otherwise grow it without end).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GivenNames {
    /// Each name's pair, and the number of the last [`GivenNames::record`] that gave it.
    names: HashMap<String, (Option<String>, String, u64)>,
    /// The hashed names given ([`is_hash_shaped`]), by what comes before the hash: where
    /// [`GivenNames::last_given`] finds a pair's.
    hashed: HashMap<String, Vec<String>>,
    records: u64,
}

/// How many of the names given last a [`GivenNames`] keeps at least; it keeps at most half as
/// many again (and those of the last map recorded).
pub const GIVEN_NAMES_KEPT: usize = 65_536;

impl GivenNames {
    /// The pair `name` was given to, if any.
    pub fn owner(&self, name: &str) -> Option<(Option<&str>, &str)> {
        self.names.get(name).map(|(s, t, _)| (s.as_deref(), t.as_str()))
    }

    /// Whether `name` was given to a pair other than `pair`.
    fn taken_from(&self, name: &str, pair: (Option<&str>, &str)) -> bool {
        self.owner(name).is_some_and(|o| o != pair)
    }

    /// Of the names given to `pair` that a map could give it again, `name` (its name without a
    /// clash) and `head` followed by `_` and a hash (its name in one), the one given last
    /// (`name` of two given at once).
    fn last_given<'a>(&'a self, pair: (Option<&str>, &str), name: &'a str, head: &str) -> Option<&'a str> {
        let age = |n: &str| self.names.get(n).filter(|g| (g.0.as_deref(), g.1.as_str()) == pair).map(|g| g.2);
        let mut last = age(name).map(|a| (name, a));
        for n in self.hashed.get(head).into_iter().flatten() {
            match age(n) {
                Some(a) if last.is_none_or(|(_, b)| a > b) => last = Some((n.as_str(), a)),
                _ => {}
            }
        }
        last.map(|(n, _)| n)
    }

    /// Notes the names of `map` as given (a name given to another pair before keeps that pair:
    /// a map built with these names has none).
    pub fn record(&mut self, map: &NameMap) {
        self.records += 1;
        let at = self.records;
        for e in map.entries() {
            match self.names.get_mut(&e.name) {
                Some(given) if given.0 == e.server && given.1 == e.tool => given.2 = at,
                Some(_) => {}
                None => {
                    self.names.insert(e.name.clone(), (e.server.clone(), e.tool.clone(), at));
                    if is_hash_shaped(&e.name) {
                        self.hashed.entry(e.name[..e.name.len() - HASH_LEN - 1].owned()).or_default().push(e.name.clone());
                    }
                }
            }
        }
        if self.names.len() > GIVEN_NAMES_KEPT + GIVEN_NAMES_KEPT / 2 {
            // Down to the last GIVEN_NAMES_KEPT (with those given by the same record as the last
            // of them, and never fewer than this map's), so that forgetting costs a pass over the
            // names once in many records.
            // A sort, not core's selection (3.5 KB of wasm for this one place): once in many records.
            let mut ages: Vec<u64> = self.names.values().map(|g| g.2).collect();
            crate::model::heapsort(&mut ages);
            let oldest_kept = ages[ages.len() - GIVEN_NAMES_KEPT];
            self.names.retain(|_, g| g.2 >= oldest_kept);
            let names = &self.names;
            self.hashed.retain(|_, hashed| {
                hashed.retain(|n| names.contains_key(n));
                !hashed.is_empty()
            });
        }
    }

    /// How many names are kept.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// The registry that maps provider names back to `(server, tool)`, exactly.
#[derive(Debug, Clone, Default)]
pub struct NameMap {
    entries: Vec<NameEntry>,
    /// Names to positions, built on the first lookup: a conversion that returns the tools only
    /// never looks a name up.
    index: OnceLock<HashMap<String, usize>>,
}

impl PartialEq for NameMap {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl NameMap {
    /// Names every `(server, tool)` pair, unique across the set, in input order.
    /// Returns the map and set-level diagnostics (duplicates, collisions resolved).
    pub fn build(pairs: &[(Option<&str>, &str)], opts: &NamingOptions, rule: NameRule) -> (Self, Vec<Diagnostic>) {
        let mut names: Vec<String> = pairs.iter().map(|(s, t)| prefix_tool_name(*s, t, opts, rule)).collect();
        let mut diags = Vec::new();
        let mut salt_of = vec![0u32; pairs.len()];
        let given = opts.given.as_deref();
        if let Some(g) = given {
            keep_last_given(g, pairs, opts, rule, &mut names);
        }
        // Resolve coincidences; bounded because each round re-salts every member of a group.
        let mut unique = false;
        for _round in 0..16 {
            // A name given to another pair before is re-salted, then the set's own clashes.
            let retaken = given.is_some_and(|g| resalt_given(g, pairs, opts, rule, &mut names, &mut salt_of, &mut diags));
            let clashes = if names.len() <= PAIRWISE && pairwise_distinct(&names) { Vec::new() } else { clashes(&names) };
            if clashes.is_empty() {
                if retaken {
                    continue;
                }
                unique = true;
                break;
            }
            resalt(&clashes, pairs, opts, rule, given, &mut names, &mut salt_of, &mut diags);
        }
        // Past 16 re-saltings (never seen; would take engineered hash collisions), fall back to
        // position suffixes so that uniqueness holds unconditionally.
        if !unique {
            suffix_positions(&mut names, &|i: usize, name: &str| given.is_some_and(|g| g.taken_from(name, pairs[i])));
        }
        let entries: Vec<NameEntry> = pairs
            .iter()
            .zip(names)
            .map(|((s, t), name)| NameEntry { name, server: s.map(str::to_owned), tool: (*t).owned(), args: None })
            .collect();
        (Self::from_entries(entries), diags)
    }

    fn from_entries(entries: Vec<NameEntry>) -> Self {
        Self { entries, index: OnceLock::new() }
    }

    fn index(&self) -> &HashMap<String, usize> {
        self.index.get_or_init(|| self.entries.iter().enumerate().map(|(i, e)| (e.name.clone(), i)).collect())
    }

    /// The entries, in input order.
    pub fn entries(&self) -> &[NameEntry] {
        &self.entries
    }

    /// Mutable access to the entry at `i` (for attaching argument plans).
    pub fn entry_mut(&mut self, i: usize) -> Option<&mut NameEntry> {
        // The entry may be renamed: the index is built again on the next lookup.
        self.index.take();
        self.entries.get_mut(i)
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Looks a provider name up ([`NameMap::position`]), or reports it unknown: an
    /// `UNKNOWN_TOOL_NAME` that names the map's closest names (`details.suggestions`; "did you
    /// mean"). A name is never resolved by likeness: a name one character off may be a tool the
    /// server since removed, whose neighbour must not run in its place.
    pub fn resolve(&self, name: &str) -> Result<&NameEntry> {
        if let Some(i) = self.position(name) {
            return Ok(&self.entries[i]);
        }
        let (close, why) = self.closest(name);
        let mut hint = if close.is_empty() { String::new() } else { format!("; did you mean {}?", quoted_list(&close, "or")) };
        if why.renamed {
            hint.push_str(" (a framework that replaces every character but letters and digits with \"_\", as OpenAI Agents JS's tool() does, renamed it: convert with portableNames: true, whose names it keeps)");
        }
        if why.elsewhere {
            hint.push_str(" (that is the tool's name in a conversion for another provider or with other naming options: read each model's calls with the name map of the tools that model was given, as McpHub.callTool's options.provider does)");
        }
        let e = Error::new(ErrorCode::UnknownToolName, format!("no tool is named {} in this name map ({} names){hint}", crate::text::quote(name), self.entries.len()));
        Err(if close.is_empty() { e } else { e.with_detail("suggestions", close.iter().map(|n| Value::from(*n)).collect::<Vec<_>>()) })
    }

    /// Where a provider name's entry is in [`NameMap::entries`]. A name the map does not have
    /// is also looked up without a namespace a model put before it ([`MODEL_NAMESPACES`]):
    /// `functions.mcp__fs__read` is `mcp__fs__read` when the map has no tool of that whole name.
    pub fn position(&self, name: &str) -> Option<usize> {
        let index = self.index();
        let bare = without_model_namespace(name);
        index.get(name).or_else(|| bare.and_then(|b| index.get(b))).copied()
    }

    /// The map's names closest to an unknown one, best first (at most 3), and why, for the two
    /// kinds of names that can only have meant the tools suggested (then only those are):
    /// the map's names a framework renamed to it, turning every character but ASCII letters and
    /// digits into `_` ([`renamed_to`]), and the names of tools it spells, server and tool, as a
    /// conversion for another provider (Gemini keeps `.`) or with other naming options names
    /// them ([`spells`]). Else those whose tool is the name (`execute_sql` for
    /// `mcp__db__execute_sql`) or that end in it after a separator, then (in a map of at most
    /// [`EDIT_SUGGESTIONS_UP_TO`] names) those within a few edits of it. A character is only
    /// ever read as one a rule or a framework could have made `_` of, never the other way: a
    /// name with `.` where a tool's has `_` is no name of that tool. None for a name longer than
    /// any a provider takes ([`SUGGESTED_NAME_CHARS`]), and none past the first
    /// [`SUGGESTED_PER_RESPONSE`] unknown names of a response ([`SuggestionBudget`]): the cost
    /// is bounded by the map's size however many unknown names a response holds.
    fn closest(&self, name: &str) -> (Vec<&str>, Meant) {
        let called = without_model_namespace(name).unwrap_or(name);
        if called.is_empty() || called.len() > SUGGESTED_NAME_CHARS || !take_suggestion_pass() {
            return (Vec::new(), Meant::default());
        }
        let most = (called.chars().count() / 4).clamp(1, 3);
        let edits = self.entries.len() <= EDIT_SUGGESTIONS_UP_TO;
        // Only a name a rule keeps as it is can be another conversion's name of a tool: every
        // such name is ASCII, at most [`MAX_NAME_LEN`] long, not hash-shaped, and holds the
        // server's and the tool's own characters (a rule that changes one adds a hash). One that
        // spells a tool otherwise (`_` for a `-`, `mcp__server__tool` past the length a rule
        // cuts to) is a model's mistake: suggested, with no reason given.
        let called_chars: Vec<char> = called.chars().collect();
        let exact = called.is_ascii() && called.len() <= MAX_NAME_LEN && !is_hash_shaped(called);
        // (score, index), sorted as before: the name that came after the index was never
        // compared (indexes differ), and `(usize, usize)` pairs are what the crate's other
        // sorts sort, one copy of the sort's code in the wasm.
        let mut scored: Vec<(usize, usize)> = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            let spelt = e.server.as_deref().and_then(|s| spells(&called_chars, s, &e.tool));
            let score = if renamed_to(&e.name, called) {
                Some(RENAMED)
            } else if exact && spelt == Some(true) {
                Some(ELSEWHERE)
            } else if spelt.is_some() || reads_as(called, &e.tool) || ends_with_reading(&e.name, called) || e.name.eq_ignore_ascii_case(called) || hashed_from(&e.name, called) {
                Some(2)
            } else if edits {
                crate::text::edit_distance(called, &e.name, most).map(|d| d + 2)
            } else {
                None
            };
            if let Some(score) = score {
                scored.push((score, i));
            }
        }
        crate::model::sort_pairs(&mut scored);
        // A name that can only have meant some tools is suggested those, not their neighbours too.
        let known = scored.first().is_some_and(|s| s.0 <= ELSEWHERE);
        let close: Vec<(usize, usize)> = scored.into_iter().take_while(|s| !known || s.0 <= ELSEWHERE).take(3).collect();
        let why = Meant { renamed: close.iter().any(|s| s.0 == RENAMED), elsewhere: close.iter().any(|s| s.0 == ELSEWHERE) };
        (close.into_iter().map(|(_, i)| self.entries[i].name.as_str()).collect(), why)
    }

    /// Serialises to JSON (`{version:1, entries:[...]}`, `nameMap.toJSON()`).
    pub fn to_json_value(&self) -> Value {
        let mut o = Map::new();
        o.put("version", Value::from(1u32));
        o.put("entries", Value::Array(self.entries.iter().map(NameEntry::to_value).collect()));
        Value::Object(o)
    }

    /// `Err` (`INVALID_INPUT`) when the serialised map's JSON text `text` holds a lone UTF-16
    /// surrogate escape (`\ud83d`, as `JSON.stringify` writes a JS string's lone half) in an
    /// entry's `name`, `server` or `tool`: read as U+FFFD it would be another name (and two names
    /// one), as `prefixToolName` refuses it. Elsewhere (an argument plan's values) it is text.
    pub fn refuse_lone_surrogate_names(text: &str) -> Result<()> {
        if !text.contains("\\u") {
            return Ok(());
        }
        let Some((fixed, at)) = crate::model::repair_lone_surrogates_at(text) else { return Ok(()) };
        for pointer in crate::model::pointers_at(&fixed, &at) {
            let Some((index, key)) = pointer.strip_prefix("/entries/").and_then(|rest| rest.split_once('/')) else { continue };
            if ["name", "server", "tool"].contains(&key) && index.bytes().all(|b| b.is_ascii_digit()) {
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    format!("not a serialised name map: entries[{index}].{key} holds a lone UTF-16 surrogate (half of a character, as text cut inside an emoji leaves it), which no name can hold: read as U+FFFD it would be another name"),
                ));
            }
        }
        Ok(())
    }

    /// Reads the serialised form back, checking names are unique. `version` must be a 32-bit
    /// unsigned integer and `entries` an array of [`NameEntry`]; unknown fields are ignored.
    pub fn from_json_value(v: Value) -> Result<Self> {
        let read = |v: &Value| -> Read<Vec<NameEntry>> {
            let o = read_object(v)?;
            read_required(o, "version", |v| {
                // `1.0` too, as `JSON.parse` reads it (the object it makes is read so).
                v.as_number().and_then(crate::model::integral_u64).filter(|n| u32::try_from(*n).is_ok()).ok_or_else(|| FieldError::wrong_type("a 32-bit unsigned integer", v))
            })?;
            read_required(o, "entries", |v| read_array(v, NameEntry::read))
        };
        let entries = read(&v).map_err(|e| e.into_error(ErrorCode::InvalidInput, "not a serialised name map"))?;
        let map = Self::from_entries(entries);
        if map.index().len() != map.entries.len() {
            // The first name an earlier entry has, and where both are.
            let mut seen: HashMap<&str, usize> = HashMap::new();
            let (first, again) = map.entries.iter().enumerate().find_map(|(i, e)| seen.insert(e.name.as_str(), i).map(|first| (first, i))).unwrap_or_default();
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("serialised name map has duplicate names: entries[{first}] and entries[{again}] are both named {} (a map's names are unique: it was not made by a conversion, or was edited)", crate::text::quote(&map.entries[again].name)),
            ));
        }
        Ok(map)
    }
}

/// The longest name an unknown name's suggestions are looked for (providers take at most 128
/// characters).
const SUGGESTED_NAME_CHARS: usize = 256;

/// The largest map whose names are compared by edit distance with an unknown name.
const EDIT_SUGGESTIONS_UP_TO: usize = 2_000;

/// How many unknown names of one response (a `parse_tool_calls`, an accumulator's `push`,
/// `push_text`, `finish`) get suggestions ([`SuggestionBudget`]): each costs a pass over the map,
/// and a response may hold thousands of calls (an accumulator takes 262,144 completed calls).
pub(crate) const SUGGESTED_PER_RESPONSE: usize = 16;

thread_local! {
    /// The passes left to [`NameMap::closest`] in the response being read (`None`: no response
    /// is, and a lone `resolve` gets its suggestions).
    static SUGGESTIONS_LEFT: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// While it lives, the unknown names resolved on this thread share [`SUGGESTED_PER_RESPONSE`]
/// suggestion passes: a reader of a response starts one, so that a response of unknown names
/// costs at most that many passes over the map however many it holds. One started inside
/// another (`finish_text`'s `push_text`) shares the outer's.
pub(crate) struct SuggestionBudget(Option<usize>);

impl SuggestionBudget {
    pub(crate) fn start() -> Self {
        let outer = SUGGESTIONS_LEFT.with(|left| left.get());
        SUGGESTIONS_LEFT.with(|left| left.set(Some(outer.unwrap_or(SUGGESTED_PER_RESPONSE))));
        Self(outer)
    }
}

impl Drop for SuggestionBudget {
    fn drop(&mut self) {
        let outer = self.0;
        SUGGESTIONS_LEFT.with(|left| left.set(match (outer, left.get()) {
            // The passes the inner reader spent are spent for the outer too.
            (Some(_), now) => now,
            (None, _) => None,
        }));
    }
}

/// The suggestion passes left in the response being read (`None`: no response is).
pub(crate) fn suggestions_left() -> Option<usize> {
    SUGGESTIONS_LEFT.with(|left| left.get())
}

/// Sets the passes left, as [`suggestions_left`] gave them: a reader that takes back what it
/// read gives back the passes it spent.
pub(crate) fn set_suggestions_left(n: Option<usize>) {
    SUGGESTIONS_LEFT.with(|left| left.set(n));
}

/// Takes one suggestion pass from the response's budget: `false` when none is left.
fn take_suggestion_pass() -> bool {
    SUGGESTIONS_LEFT.with(|left| match left.get() {
        None => true,
        Some(0) => false,
        Some(n) => {
            left.set(Some(n - 1));
            true
        }
    })
}

/// [`NameMap::closest`]'s score of a map's name a framework renamed to the called name.
const RENAMED: usize = 0;
/// [`NameMap::closest`]'s score of a tool the called name spells ([`spells`]).
const ELSEWHERE: usize = 1;

/// Why [`NameMap::closest`] suggests what it does, when the name can only have meant those tools.
#[derive(Default)]
struct Meant {
    /// A framework renamed a suggested name to the called one ([`renamed_to`]).
    renamed: bool,
    /// The called name is a suggested tool's in another conversion ([`spells`]).
    elsewhere: bool,
}

/// Whether `called` is `name` with each character but ASCII letters and digits as `_`: what a
/// framework that keeps only those (OpenAI Agents JS's `tool()`) makes of it.
fn renamed_to(name: &str, called: &str) -> bool {
    name.chars().count() == called.chars().count() && name.chars().zip(called.chars()).all(|(n, c)| c == if n.is_ascii_alphanumeric() { n } else { '_' })
}

/// Whether `called` reads as `name`: each character `name`'s, or `_` where `name` has one but
/// an ASCII letter or digit (one a rule or a framework may have made `_`; never the other way).
fn reads_as(called: &str, name: &str) -> bool {
    called.chars().count() == name.chars().count() && called.chars().zip(name.chars()).all(|(c, n)| reads_as_char(c, n))
}

#[inline]
fn reads_as_char(c: char, n: char) -> bool {
    c == n || (c == '_' && !n.is_ascii_alphanumeric())
}

/// Whether `name` ends, after a character but an ASCII letter or digit, with what reads as
/// `tail` ([`reads_as`]).
fn ends_with_reading(name: &str, tail: &str) -> bool {
    let (n, t) = (name.chars().count(), tail.chars().count());
    n > t && !name.chars().nth(n - t - 1).unwrap_or('_').is_ascii_alphanumeric() && tail.chars().zip(name.chars().skip(n - t)).all(|(c, x)| reads_as_char(c, x))
}

/// Whether the called name `c` spells the pair `(server, tool)` as a conversion names it
/// without a hash: what reads as the tool ([`reads_as`]) after a separator (characters but
/// ASCII letters and digits), what reads as the server before that, and before the server
/// nothing, the one character a rule puts before a name that may not start so, or a prefix and
/// the separator. Neither the server nor the prefix holds the separator (a server that does
/// has hashed names; a prefix that did would make the name another pair's). Another
/// provider's rule (Gemini keeps `.` and `:`, where the others' names have `_` and a hash) or
/// other naming options (a prefix, a separator) name a tool so.
///
/// `None` when it does not; `Some(true)` when it holds the server's and the tool's own
/// characters, `Some(false)` when it reads as them only with `_` for some (a conversion that
/// writes `_` for a character adds a hash: no conversion names a tool so).
fn spells(c: &[char], server: &str, tool: &str) -> Option<bool> {
    let (s, t): (Vec<char>, Vec<char>) = (server.chars().collect(), tool.chars().collect());
    let reads = |part: &[char], name: &[char]| part.len() == name.len() && part.iter().zip(name).all(|(c, n)| reads_as_char(*c, *n));
    let holds = |part: &[char], sep: &[char]| part.windows(sep.len()).any(|w| w == sep);
    let at = c.len().checked_sub(t.len())?;
    if s.is_empty() || t.is_empty() || !reads(&c[at..], &t) {
        return None;
    }
    let run = c[..at].iter().rev().take_while(|c| !c.is_ascii_alphanumeric()).count();
    // Exact where any reading is (`true` sorts last).
    (1..=run).filter_map(|len| {
        let (sep, end) = (&c[at - len..at], at - len);
        let start = end.checked_sub(s.len())?;
        let head = &c[..start];
        let fixed_start = match head {
            ['_'] => !s[0].is_ascii_alphabetic() && s[0] != '_',
            ['t'] => !s[0].is_ascii_alphabetic(),
            _ => false,
        };
        let prefixed = head.len() >= len && head.ends_with(sep) && !holds(&head[..head.len() - len], sep);
        (reads(&c[start..end], &s) && !holds(&c[start..end], sep) && (head.is_empty() || fixed_start || prefixed)).then(|| c[start..end] == s[..] && c[at..] == t[..])
    })
    .max()
}

/// Whether `name` is `called` with the `_` and hash a rule adds to a name it changed or cut:
/// a model that left the hash off (or wrote the name cut where the hash began).
fn hashed_from(name: &str, called: &str) -> bool {
    name.strip_prefix(called).is_some_and(|rest| rest.len() == HASH_LEN + 1 && is_hash_shaped(rest))
}

/// `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
fn quoted_list(names: &[&str], last: &str) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((only, [])) => only.clone(),
        Some((tail, head)) => format!("{} {last} {tail}", head.join(", ")),
    }
}

/// Namespaces models write before the name of a function they call, which the map looks past
/// ([`NameMap::position`]): OpenAI's models at times call `functions.NAME` (the namespace their
/// prompt format declares functions in; `functions/NAME` through some runtimes), Gemini's
/// `default_api.NAME` (the module its code format calls functions from; `default_api:NAME` seen
/// too). Apps strip these by hand; a name map does it for every caller, and only where the whole
/// name is no tool's.
pub const MODEL_NAMESPACES: [&str; 4] = ["functions.", "functions/", "default_api.", "default_api:"];

/// `name` without the model's namespace before it ([`MODEL_NAMESPACES`]), if it has one.
pub fn without_model_namespace(name: &str) -> Option<&str> {
    MODEL_NAMESPACES.iter().find_map(|ns| name.strip_prefix(ns))
}

/// Up to this many names, [`NameMap::build`] compares them pair by pair before it looks for
/// clashes with a hash map.
const PAIRWISE: usize = 64;

/// Whether no two names are the same, comparing every pair: for the few tools of a server
/// this costs less than hashing them, and a conversion's first call compiles no hash map.
fn pairwise_distinct(names: &[String]) -> bool {
    names.iter().enumerate().all(|(i, n)| names[..i].iter().all(|m| m != n))
}

/// The groups of positions that share a name, each in position order, by their first
/// position.
#[inline(never)]
fn clashes(names: &[String]) -> Vec<Vec<usize>> {
    // Only clashes get a vector.
    let mut first: HashMap<&str, usize> = HashMap::with_capacity(names.len());
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, n) in names.iter().enumerate() {
        match first.entry(n.as_str()) {
            Entry::Vacant(v) => {
                v.insert(i);
            }
            Entry::Occupied(o) => {
                let head = *o.get();
                if groups.is_empty() {
                    groups.resize_with(names.len(), Vec::new);
                }
                if groups[head].is_empty() {
                    groups[head].push(head);
                }
                groups[head].push(i);
            }
        }
    }
    groups.into_iter().filter(|g| !g.is_empty()).collect()
}

/// Re-salts every member of each group of tools that [`NameMap::build`] found sharing a name,
/// saying so in `diags`. Apart from `build`, as is [`suffix_positions`]: a function is compiled
/// on its first call, and a conversion without a clash never calls these.
/// With `given`, the pair a group's name was given to before keeps it (its first listing).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn resalt(
    clashes: &[Vec<usize>],
    pairs: &[(Option<&str>, &str)],
    opts: &NamingOptions,
    rule: NameRule,
    given: Option<&GivenNames>,
    names: &mut [String],
    salt_of: &mut [u32],
    diags: &mut Vec<Diagnostic>,
) {
    for group in clashes {
        // One tool listed more than once: the first keeps its name (the calls any of them gets go
        // to the same tool), so a name does not change when a server repeats a tool. Of tools
        // that differ, the one the name was given to before, if any.
        let one_tool = group.iter().all(|&j| pairs[j] == pairs[group[0]]);
        let owner = given.and_then(|g| g.owner(&names[group[0]]));
        let keeper = if one_tool { Some(group[0]) } else { owner.and_then(|o| group.iter().copied().find(|&j| pairs[j] == o)) };
        // How many of the group's tools before each are the same (server, tool): counted as
        // they come, as a server may list one tool thousands of times.
        let mut seen: HashMap<(Option<&str>, &str), u32> = HashMap::new();
        if let Some(k) = keeper {
            seen.insert(pairs[k], 1);
        }
        for &i in group.iter().filter(|&&i| Some(i) != keeper) {
            let (server, tool) = pairs[i];
            let count = seen.entry(pairs[i]).or_insert(0);
            let same_pair_before = *count;
            *count += 1;
            salt_of[i] = salt_of[i].saturating_add(1).saturating_add(same_pair_before.saturating_mul(1000));
            let clean = hash_head(sanitize(&raw_name(server, tool, opts), rule), server, tool, opts, rule);
            let old = std::mem::replace(&mut names[i], with_hash(&clean, server, tool, salt_of[i]));
            diags.push(Diagnostic {
                path: String::new(),
                rule: if same_pair_before > 0 { "names/duplicate-tool" } else { "names/collision" },
                message: format!(
                    "tool \"{tool}\"{} would be named \"{old}\" like another tool; named \"{}\"",
                    server.map(|s| format!(" of server \"{s}\"")).unwrap_or_default(),
                    names[i]
                ),
            });
        }
    }
}

/// Gives each pair the name it was given last of those it could have ([`GivenNames::last_given`]):
/// a tool hashed in a clash keeps its hashed name once the other tool is gone, as the other
/// tool, back, keeps its own (a model may call either by the name it was given).
#[inline(never)]
fn keep_last_given(given: &GivenNames, pairs: &[(Option<&str>, &str)], opts: &NamingOptions, rule: NameRule, names: &mut [String]) {
    let keep = MAX_NAME_LEN - HASH_LEN - 1;
    // Each pair and name looked up once: a tool listed many times (its copies hashed, all
    // under one head) would otherwise walk that head's names once a copy.
    type Pair<'a> = (Option<&'a str>, &'a str);
    let mut found: HashMap<(Pair, String), Option<String>> = HashMap::new();
    for (i, &(server, tool)) in pairs.iter().enumerate() {
        let key = ((server, tool), names[i].clone());
        if let Some(last) = found.get(&key) {
            if let Some(last) = last {
                names[i] = last.clone();
            }
            continue;
        }
        let name = names[i].as_str();
        // What a hash goes after in this pair's name ([`with_hash`]): a hashed name's own head,
        // a short name itself.
        let long;
        let head = if is_hash_shaped(name) {
            &name[..name.len() - HASH_LEN - 1]
        } else if name.len() <= keep {
            name
        } else {
            long = hash_head(sanitize(&raw_name(server, tool, opts), rule), server, tool, opts, rule);
            &long[..long.len().min(keep)]
        };
        let last = given.last_given(pairs[i], name, head).filter(|&last| last != name).map(str::to_owned);
        found.insert(key, last.clone());
        if let Some(last) = last {
            names[i] = last;
        }
    }
}

/// Re-salts each name that was given to another pair before ([`GivenNames`]), saying so in
/// `diags`; whether any was.
#[inline(never)]
fn resalt_given(
    given: &GivenNames,
    pairs: &[(Option<&str>, &str)],
    opts: &NamingOptions,
    rule: NameRule,
    names: &mut [String],
    salt_of: &mut [u32],
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let mut any = false;
    for (i, &(server, tool)) in pairs.iter().enumerate() {
        if !given.taken_from(&names[i], pairs[i]) {
            continue;
        }
        any = true;
        salt_of[i] = salt_of[i].saturating_add(1);
        let clean = hash_head(sanitize(&raw_name(server, tool, opts), rule), server, tool, opts, rule);
        let old = std::mem::replace(&mut names[i], with_hash(&clean, server, tool, salt_of[i]));
        diags.push(Diagnostic {
            path: String::new(),
            rule: "names/collision",
            message: format!(
                "tool \"{tool}\"{} would be named \"{old}\", a name given to another tool before; named \"{}\"",
                server.map(|s| format!(" of server \"{s}\"")).unwrap_or_default(),
                names[i]
            ),
        });
    }
    any
}

/// Makes names unique by position suffixes (`_7`), past 16 re-saltings in [`NameMap::build`];
/// a name `taken(i, name)` (given to another pair before) gets one too.
#[inline(never)]
fn suffix_positions(names: &mut [String], taken: &dyn Fn(usize, &str) -> bool) {
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let all: std::collections::HashSet<String> = names.iter().cloned().collect();
    for (i, n) in names.iter_mut().enumerate() {
        if seen.contains(n.as_str()) || taken(i, n) {
            let base = n.clone();
            let mut k = i;
            loop {
                let suffix = format!("_{k}");
                let keep = MAX_NAME_LEN.saturating_sub(suffix.len()).min(base.len());
                let candidate = format!("{}{suffix}", &base[..keep]);
                if !seen.contains(&candidate) && !all.contains(&candidate) && !taken(i, &candidate) {
                    *n = candidate;
                    break;
                }
                k += 1;
            }
        }
        seen.insert(n.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `check_options`' first look lets through exactly what its refusals find nothing in, and
    /// its refusal is theirs: every format and rule, over prefixes and separators that start or
    /// hold characters some rule refuses (outside ASCII too).
    #[test]
    fn check_options_refuses_what_its_refusals_find() {
        let texts = ["", "mcp", "__", "-", "_", ".", ":", "1x", "-x", ".x", "a-b", "a.b", "a b", "\u{e9}", "x\u{e9}", "\u{1F600}", "t"];
        let (mut refused, mut checked) = (0, 0);
        for format in [None, Some(NameFormat::Mcp), Some(NameFormat::Server), Some(NameFormat::Bare)] {
            for rule in [NameRule::Strict, NameRule::Gemini, NameRule::Portable] {
                for prefix in texts {
                    for separator in texts {
                        let opts = NamingOptions { format, prefix: prefix.into(), separator: separator.into(), ..NamingOptions::default() };
                        let message = |r: Result<()>| r.err().map(|e| (e.code, e.message));
                        let got = message(check_options(&opts, rule));
                        assert_eq!(got, message(refuse_options(&opts, rule)), "{format:?} {rule:?} {prefix:?} {separator:?}");
                        refused += usize::from(got.is_some());
                        checked += 1;
                    }
                }
            }
        }
        assert!(refused > 0 && refused < checked, "{refused} of {checked}");
    }

    /// A tool with no server never gets the name a server's tool has, in any turn: with `mcp`
    /// and `server`, `t__x` without a server once was `mcp__t__x` (`t__x`), server `t`'s tool
    /// `x`'s name, and so a name from one turn named the other tool in the next; by default, so
    /// was a server-less tool named `mcp__t__x`. Such a name is hashed; other names are as they were.
    #[test]
    fn a_tool_without_a_server_never_gets_a_servers_tools_name() {
        let with = |format, separator: &str| NamingOptions { format, separator: separator.to_owned(), ..NamingOptions::default() };
        for (format, sep, alone) in [
            (Some(NameFormat::Mcp), "__", "t__x"),
            (Some(NameFormat::Server), "__", "t__x"),
            (None, "__", "mcp__t__x"),
            (Some(NameFormat::Mcp), "-", "t-x"),
            (Some(NameFormat::Server), ".", "t.x"),
        ] {
            let o = with(format, sep);
            for rule in [NameRule::Strict, NameRule::Gemini, NameRule::Portable] {
                let servers = prefix_tool_name(Some("t"), "x", &o, rule);
                let (turn1, _) = NameMap::build(&[(Some("t"), "x")], &o, rule);
                let (turn2, _) = NameMap::build(&[(None, alone)], &o, rule);
                let name = &turn2.entries()[0].name;
                assert_ne!(name, &servers, "{format:?} {sep} {rule:?}");
                assert!(turn1.resolve(name).is_err(), "{format:?} {sep} {rule:?}: {name}");
                assert!(turn2.resolve(&servers).is_err(), "{format:?} {sep} {rule:?}: {servers}");
            }
        }
        // Names that cannot read as a server's tool are as they were.
        for (format, tool, name) in [
            (Some(NameFormat::Mcp), "read_file", "mcp__read_file"),
            (Some(NameFormat::Server), "read_file", "read_file"),
            (None, "a__b", "a__b"),
            (None, "mcp__x", "mcp__x"),
            (Some(NameFormat::Bare), "t__x", "t__x"),
        ] {
            assert_eq!(prefix_tool_name(None, tool, &with(format, "__"), NameRule::Strict), name, "{format:?}");
        }
    }

    #[test]
    fn the_portable_rule_is_every_providers() {
        for ok in ["a", "mcp__gh__create_issue", "A9_z", &"x".repeat(64)] {
            assert!(NameRule::Portable.accepts(ok), "{ok}");
            assert!(NameRule::Strict.accepts(ok) && NameRule::Gemini.accepts(ok), "{ok}");
        }
        for bad in ["", "_x", "9a", "a-b", "a.b", "a:b", "é", &"x".repeat(65)] {
            assert!(!NameRule::Portable.accepts(bad), "{bad:?}");
        }
        assert_eq!(sanitize("9-lives.v2", NameRule::Portable), "t9_lives_v2");
        assert_eq!(sanitize("_x", NameRule::Portable), "t_x");
        assert_eq!(sanitize("9-lives.v2", NameRule::Gemini), "_9-lives.v2");
        let opts = NamingOptions { portable: true, ..NamingOptions::default() };
        assert_eq!(opts.rule(NameRule::Gemini), NameRule::Portable);
        assert_eq!(NamingOptions::default().rule(NameRule::Gemini), NameRule::Gemini);
    }

    /// The letters a name loses are those outside ASCII, whatever the rule: every rule holds
    /// the ASCII letters and digits and no other character. Punctuation, emoji and combining
    /// marks are no letters; a name that loses none has no description of its name.
    #[test]
    fn lost_letters_are_the_letters_outside_ascii() {
        for rule in [NameRule::Strict, NameRule::Gemini, NameRule::Portable] {
            assert!(('0'..='9').chain('a'..='z').chain('A'..='Z').all(|c| rule.allows(c)), "{rule:?}");
            assert!(!['é', '検', 'п', 'ج', '٣', 'Ⅻ', 'ｓ', '\u{301}', '🔍', '\u{200d}'].iter().any(|c| rule.allows(*c)), "{rule:?}");
        }
        assert_eq!(lost_letters("検索検"), ['検', '索']);
        assert_eq!(lost_letters("поиск-Docs"), ['п', 'о', 'и', 'с', 'к']);
        assert_eq!(lost_letters("ｓｅａｒｃｈ٣"), ['ｓ', 'ｅ', 'ａ', 'ｒ', 'ｃ', 'ｈ', '٣']);
        for kept in ["get", "a.b-c d:e", "find🔍", "cafe\u{301}", "x\u{200b}y", ""] {
            assert!(lost_letters(kept).is_empty(), "{kept:?}");
            assert_eq!(named_description(TOOL_NAME_LABEL, kept, "D"), None, "{kept:?}");
        }
        assert_eq!(named_description(TOOL_NAME_LABEL, "検索", "").as_deref(), Some("Tool name: 検索"));
        assert_eq!(named_description(TOOL_NAME_LABEL, "café", " Finds.\n").as_deref(), Some("Tool name: café\n\nFinds."));
    }

    fn opts() -> NamingOptions {
        NamingOptions::default()
    }

    #[test]
    fn formats() {
        let o = opts();
        assert_eq!(prefix_tool_name(Some("github"), "create_issue", &o, NameRule::Strict), "mcp__github__create_issue");
        let o2 = NamingOptions { format: Some(NameFormat::Server), ..opts() };
        assert_eq!(prefix_tool_name(Some("github"), "create_issue", &o2, NameRule::Strict), "github__create_issue");
        let o3 = NamingOptions { format: Some(NameFormat::Bare), ..opts() };
        assert_eq!(prefix_tool_name(Some("github"), "create_issue", &o3, NameRule::Strict), "create_issue");
        assert_eq!(prefix_tool_name(None, "create_issue", &o, NameRule::Strict), "create_issue");
        // F2 (s24c): an empty server is no server, hashed names included.
        for tool in ["create_issue", "search.docs", &"t".repeat(80)] {
            for format in [NameFormat::Mcp, NameFormat::Server, NameFormat::Bare] {
                let o = NamingOptions { format: Some(format), ..opts() };
                assert_eq!(prefix_tool_name(Some(""), tool, &o, NameRule::Strict), prefix_tool_name(None, tool, &o, NameRule::Strict), "{tool} {format:?}");
            }
        }
        let o4 = NamingOptions { separator: "-".into(), ..opts() };
        assert_eq!(prefix_tool_name(Some("gh"), "x", &o4, NameRule::Strict), "mcp-gh-x");
    }

    #[test]
    fn illegal_characters_are_replaced_and_hashed() {
        // https://github.com/Lucassssss/eechat/issues/52 (dots rejected by OpenAI)
        let n = prefix_tool_name(Some("caldav-mcp"), "create.event", &opts(), NameRule::Strict);
        assert!(n.starts_with("mcp__caldav-mcp__create_event_"), "{n}");
        assert!(NameRule::Strict.accepts(&n));
        // Gemini allows dots: no change, no hash.
        assert_eq!(prefix_tool_name(Some("caldav-mcp"), "create.event", &opts(), NameRule::Gemini), "mcp__caldav-mcp__create.event");
        // search-a / search.a stay apart (https://github.com/openai/openai-agents-js/issues/1934)
        let a = prefix_tool_name(None, "search.a", &opts(), NameRule::Strict);
        assert_ne!(a, "search_a");
    }

    #[test]
    fn gemini_first_character() {
        // https://github.com/cline/cline/issues/7339
        let n = prefix_tool_name(None, "1abc", &opts(), NameRule::Gemini);
        assert!(NameRule::Gemini.accepts(&n), "{n}");
        assert!(n.starts_with("_1abc"));
    }

    #[test]
    fn long_names_are_cut_with_a_stable_hash() {
        // https://github.com/danny-avila/LibreChat/issues/7435
        let tool = "a_really_long_tool_name_that_goes_on_and_on_and_on_forever_and_ever";
        let n1 = prefix_tool_name(Some("server"), tool, &opts(), NameRule::Strict);
        let n2 = prefix_tool_name(Some("server"), tool, &opts(), NameRule::Strict);
        assert_eq!(n1, n2);
        assert_eq!(n1.len(), 64);
        assert!(NameRule::Strict.accepts(&n1));
        let n3 = prefix_tool_name(Some("server"), &format!("{tool}2"), &opts(), NameRule::Strict);
        assert_ne!(n1, n3);
    }

    /// F2 (s29c): two tools of one server whose hashed names coincide (the same 55 first
    /// characters, the same hash) are both re-salted; once one is gone, a set without
    /// [`NamingOptions::given`] names the other as the first once was. With the names given
    /// before, no name moves to another tool: the first keeps its name through the clash, the
    /// second keeps its re-salted one, and the first, back, gets its own again.
    #[test]
    fn a_name_given_before_is_given_no_other_tool() {
        // A pair whose salt-0 hashed names coincide (found by a birthday search).
        let (x, y) = ("t".repeat(60) + "4mjcaa", "t".repeat(60) + "p0fjba");
        let (px, py) = ((Some("A"), x.as_str()), (Some("A"), y.as_str()));
        let names = |pairs: &[(Option<&str>, &str)], o: &NamingOptions| -> Vec<String> { NameMap::build(pairs, o, NameRule::Strict).0.entries().iter().map(|e| e.name.clone()).collect() };
        let stateless = [names(&[px], &opts()), names(&[px, py], &opts()), names(&[py], &opts())];
        assert_eq!(stateless[0][0], stateless[2][0], "the hashes coincide");
        assert!(stateless[1][0] != stateless[0][0] && stateless[1][1] != stateless[0][0]);

        let mut given = GivenNames::default();
        let mut turn = |pairs: &[(Option<&str>, &str)]| {
            let o = NamingOptions { given: Some(Arc::new(given.clone())), ..opts() };
            let (map, diags) = NameMap::build(pairs, &o, NameRule::Strict);
            given.record(&map);
            (map.entries().iter().map(|e| e.name.clone()).collect::<Vec<_>>(), diags)
        };
        let (t1, _) = turn(&[px]);
        let (t2, diags) = turn(&[px, py]);
        assert_eq!(t2[0], t1[0], "the tool that had the name keeps it");
        assert_ne!(t2[1], t1[0]);
        assert_eq!(diags.len(), 1);
        assert!(diags[0].message.contains("given to another tool before"), "{}", diags[0].message);
        let (t3, _) = turn(&[py]);
        assert_eq!(t3, [t2[1].clone()], "the other keeps its name");
        let (t4, _) = turn(&[py, px]);
        assert_eq!(t4, [t2[1].clone(), t1[0].clone()], "in any order");
        // Order does not matter for who keeps it, nor does a repeat of the other tool.
        let (t5, _) = turn(&[py, py, px]);
        assert_eq!((t5[0].as_str(), t5[2].as_str()), (t2[1].as_str(), t1[0].as_str()));
        assert!(t5[1] != t5[0] && t5[1] != t5[2]);

        // Bare names: a tool name one server had is another's no more once that server is gone.
        let bare = NamingOptions { format: Some(NameFormat::Bare), ..opts() };
        let mut given = GivenNames::default();
        let o = NamingOptions { given: Some(Arc::new(given.clone())), ..bare.clone() };
        given.record(&NameMap::build(&[(Some("a"), "echo")], &o, NameRule::Strict).0);
        let o = NamingOptions { given: Some(Arc::new(given.clone())), ..bare.clone() };
        let (later, _) = NameMap::build(&[(Some("b"), "echo")], &o, NameRule::Strict);
        assert!(later.resolve("echo").is_err());
        assert_eq!(later.entries()[0].tool, "echo");
        assert_eq!(names(&[(Some("b"), "echo")], &bare), ["echo"], "without the names given, b's tool is named so");
    }

    /// [`GivenNames`] forgets the names given longest ago, but never any of the last
    /// [`GIVEN_NAMES_KEPT`]: a name given fewer names ago than that still keeps its tool.
    #[test]
    fn given_names_keep_the_last_kept() {
        let mut given = GivenNames::default();
        let batch = 5_000;
        let record = |given: &mut GivenNames, server: &str, tools: &[String]| {
            let pairs: Vec<(Option<&str>, &str)> = tools.iter().map(|t| (Some(server), t.as_str())).collect();
            given.record(&NameMap::build(&pairs, &opts(), NameRule::Strict).0);
        };
        let mut n = 0;
        let mut fresh = |count: usize| -> Vec<String> {
            n += 1;
            (0..count).map(|i| format!("r{n}_{i}")).collect()
        };
        // Enough names first that forgetting has begun, then one, then one batch fewer than kept.
        for _ in 0..(GIVEN_NAMES_KEPT + GIVEN_NAMES_KEPT / 2) / batch + 1 {
            record(&mut given, "s", &fresh(batch));
        }
        record(&mut given, "a", &["echo".to_owned()]);
        for _ in 0..GIVEN_NAMES_KEPT / batch - 1 {
            record(&mut given, "s", &fresh(batch));
            assert_eq!(given.owner("mcp__a__echo"), Some((Some("a"), "echo")), "{}", given.len());
            assert!(given.len() <= GIVEN_NAMES_KEPT + GIVEN_NAMES_KEPT / 2);
        }
    }

    /// [`GivenNames`] forgets the names given longest ago past [`GIVEN_NAMES_KEPT`], never those
    /// of the map it records.
    #[test]
    fn given_names_are_bounded() {
        let mut given = GivenNames::default();
        let tools: Vec<String> = (0..GIVEN_NAMES_KEPT / 4 + 1).map(|i| format!("t{i}")).collect();
        for round in 0..7 {
            let pairs: Vec<(Option<&str>, &str)> = tools.iter().map(|t| (Some(["a", "b", "c", "d", "e", "f", "g"][round]), t.as_str())).collect();
            let (map, _) = NameMap::build(&pairs, &opts(), NameRule::Strict);
            given.record(&map);
            assert!(given.len() <= GIVEN_NAMES_KEPT + GIVEN_NAMES_KEPT / 2);
            assert!(map.entries().iter().all(|e| given.owner(&e.name) == Some((e.server.as_deref(), e.tool.as_str()))), "{round}");
            if round == 0 {
                // Hashed names, forgotten with the others given as long ago.
                let bare = NamingOptions { format: Some(NameFormat::Bare), ..opts() };
                given.record(&NameMap::build(&[(Some("a"), "echo"), (Some("b"), "echo")], &bare, NameRule::Strict).0);
                assert_eq!(given.hashed["echo"].len(), 2);
            }
        }
        assert_eq!(given.owner("mcp__a__t0"), None);
        assert!(given.hashed.is_empty());
    }

    /// A tool listed many times (each copy after the first hashed, all under one head) is named
    /// with the names given in linear time: each pair's last name is looked up once, not once a
    /// copy (which walked every copy's hashed name for each). The names are those of a map
    /// built without the names given.
    #[test]
    fn many_copies_of_one_tool_are_named_with_the_names_given_in_linear_time() {
        let n = 5_000;
        let pairs = vec![(Some("s"), "echo"); n];
        let (first, _) = NameMap::build(&pairs, &opts(), NameRule::Strict);
        let mut given = GivenNames::default();
        given.record(&first);
        assert_eq!(given.hashed["mcp__s__echo"].len(), n - 1);
        let o = NamingOptions { given: Some(Arc::new(given)), ..opts() };
        let (again, _) = NameMap::build(&pairs, &o, NameRule::Strict);
        assert_eq!(again.entries().iter().map(|e| &e.name).collect::<Vec<_>>(), first.entries().iter().map(|e| &e.name).collect::<Vec<_>>());
    }

    /// F1 (s31a): a tool keeps the name it was given last of those a map could give it: hashed
    /// in a clash, it keeps its hashed name once the other tool is gone (without the names
    /// given, it is named as if alone), with a name longer than a hash goes after too. Its own
    /// name, given last, it keeps through a clash.
    #[test]
    fn a_tool_keeps_the_name_it_was_given_last() {
        let bare = NamingOptions { format: Some(NameFormat::Bare), ..opts() };
        let long = "x".repeat(60);
        for tool in ["echo", long.as_str()] {
            let (a, b) = ((Some("a"), tool), (Some("b"), tool));
            let mut given = GivenNames::default();
            let mut turn = |pairs: &[(Option<&str>, &str)]| {
                let o = NamingOptions { given: Some(Arc::new(given.clone())), ..bare.clone() };
                let (map, _) = NameMap::build(pairs, &o, NameRule::Strict);
                given.record(&map);
                map.entries().iter().map(|e| e.name.clone()).collect::<Vec<_>>()
            };
            let both = turn(&[a, b]);
            assert!(both[0] != tool && both[1] != tool && both[0] != both[1], "{both:?}");
            assert_eq!(NameMap::build(&[a], &bare, NameRule::Strict).0.entries()[0].name, tool);
            assert_eq!(turn(&[a]), [both[0].clone()], "{tool}");
            assert_eq!(turn(&[b, a]), [both[1].clone(), both[0].clone()]);
            assert_eq!(turn(&[b]), [both[1].clone()]);
            // Another naming, another name: what a hash would go after is not the same.
            let o = NamingOptions { given: Some(Arc::new(given.clone())), ..opts() };
            assert_eq!(NameMap::build(&[a], &o, NameRule::Strict).0.entries()[0].name, prefix_tool_name(Some("a"), tool, &opts(), NameRule::Strict));
        }
        // A tool that had its own name keeps it; the other is hashed.
        let mut given = GivenNames::default();
        let o = NamingOptions { given: Some(Arc::new(given.clone())), ..bare.clone() };
        given.record(&NameMap::build(&[(Some("a"), "echo")], &o, NameRule::Strict).0);
        let o = NamingOptions { given: Some(Arc::new(given.clone())), ..bare.clone() };
        let (map, _) = NameMap::build(&[(Some("b"), "echo"), (Some("a"), "echo")], &o, NameRule::Strict);
        assert_eq!(map.entries()[1].name, "echo");
        assert!(map.entries()[0].name.starts_with("echo_"));
    }

    #[test]
    fn separator_ambiguity_never_collides() {
        let pairs = [(Some("a"), "b__c"), (Some("a__b"), "c")];
        let (map, diags) = NameMap::build(&pairs, &opts(), NameRule::Strict);
        let e = map.entries();
        // The name that splits back at its first separator is `a`'s; `a__b`'s is hashed, so the
        // two never meet and neither needs the other to be told apart.
        assert_eq!(e[0].name, "mcp__a__b__c");
        assert!(e[1].name.starts_with("mcp__a__b__c_") && e[1].name.len() == "mcp__a__b__c_".len() + HASH_LEN, "{}", e[1].name);
        assert_eq!(diags, []);
        assert_eq!(map.resolve(&e[0].name).unwrap().server.as_deref(), Some("a"));
        assert_eq!(map.resolve(&e[0].name).unwrap().tool, "b__c");
        assert_eq!(map.resolve(&e[1].name).unwrap().server.as_deref(), Some("a__b"));
        // Order does not matter.
        let rev = [pairs[1], pairs[0]];
        let (map2, _) = NameMap::build(&rev, &opts(), NameRule::Strict);
        assert_eq!(map2.entries()[0].name, e[1].name);
    }

    /// A long server is cut before the tool: a server's tools keep names that tell them apart.
    #[test]
    fn long_servers_are_cut_before_tools() {
        let server = "mcp.internal.example.com/teams/platform/servers/filesystem";
        let names: Vec<String> = ["read_file", "write_file", "delete_file"].iter().map(|t| prefix_tool_name(Some(server), t, &opts(), NameRule::Strict)).collect();
        for (name, tool) in names.iter().zip(["read_file", "write_file", "delete_file"]) {
            assert_eq!(name.len(), MAX_NAME_LEN, "{name}");
            assert!(name.starts_with("mcp__mcp_internal_example_com_teams_plat") && name[..name.len() - HASH_LEN - 1].ends_with(&format!("__{tool}")), "{name}");
        }
        // A long tool keeps 16 characters of the server and as much of itself as fits.
        let tool = "t".repeat(70);
        let name = prefix_tool_name(Some(server), &tool, &opts(), NameRule::Strict);
        assert_eq!(&name[..name.len() - HASH_LEN - 1], format!("mcp__mcp_internal_exa__{}", "t".repeat(32)));
        // Short servers, and the bare format, are as before: the name's start is kept.
        let name = prefix_tool_name(Some("gh"), &tool, &opts(), NameRule::Strict);
        assert_eq!(&name[..name.len() - HASH_LEN - 1], format!("mcp__gh__{}", "t".repeat(46)));
        let bare = NamingOptions { format: Some(NameFormat::Bare), ..opts() };
        assert_eq!(&prefix_tool_name(Some(server), &tool, &bare, NameRule::Strict)[..55], "t".repeat(55));
        // The names stay apart and resolve through a map, collisions re-salted the same way.
        let pairs = [(Some(server), "read_file"), (Some(server), "read_file")];
        let (map, _) = NameMap::build(&pairs, &opts(), NameRule::Strict);
        assert_ne!(map.entries()[0].name, map.entries()[1].name);
        assert!(map.entries().iter().all(|e| e.name.contains("__read_file_")), "{:?}", map.entries());
    }

    /// A name belongs to its own `(server, tool)`: the same whatever else is listed, so a name
    /// from an earlier conversion never reaches another tool when the tool set changes.
    #[test]
    fn a_name_does_not_depend_on_the_other_tools() {
        for (sep, format) in [("__", None), ("__", Some(NameFormat::Server)), ("_", None), ("-", Some(NameFormat::Server))] {
            let o = NamingOptions { separator: sep.into(), format, ..opts() };
            let pairs = [
                (Some("a".to_owned()), format!("b{sep}c")),
                (Some(format!("a{sep}b")), "c".to_owned()),
                (Some("files".to_owned()), "_purge".to_owned()),
                (Some("files_".to_owned()), "purge".to_owned()),
                (Some("x".to_owned()), format!("{sep}y")),
                (Some(format!("x{sep}")), "y".to_owned()),
            ];
            let pairs: Vec<(Option<&str>, &str)> = pairs.iter().map(|(s, t)| (s.as_deref(), t.as_str())).collect();
            let (all, _) = NameMap::build(&pairs, &o, NameRule::Strict);
            for (i, p) in pairs.iter().enumerate() {
                let (alone, _) = NameMap::build(&[*p], &o, NameRule::Strict);
                assert_eq!(alone.entries()[0].name, all.entries()[i].name, "{sep} {p:?}");
                // A name without a hash is read back by its first separator.
                if alone.entries()[0].name == raw_name(p.0, p.1, &o) {
                    let parsed = parse_tool_name(&alone.entries()[0].name, format, &o).unwrap();
                    assert_eq!((parsed.server.as_deref(), parsed.tool.as_str()), *p, "{sep} {p:?}");
                }
            }
        }
        // `_` as the separator: a server holding `_` is hashed, a tool holding it is not.
        let o = NamingOptions { separator: "_".into(), ..opts() };
        assert_eq!(prefix_tool_name(Some("github"), "create_issue", &o, NameRule::Strict), "mcp_github_create_issue");
        assert_ne!(prefix_tool_name(Some("my_server"), "t", &o, NameRule::Strict), "mcp_my_server_t");
    }

    /// The names of `pairs` built alone, one by one.
    fn alone(pairs: &[(Option<&str>, &str)]) -> Vec<String> {
        pairs.iter().map(|p| NameMap::build(&[*p], &opts(), NameRule::Strict).0.entries()[0].name.clone()).collect()
    }

    /// A tool named as another tool's hashed name does not take it: the name of `a.b` from one
    /// turn never names tool `a_b_…` in the next, and neither name changes while both are listed.
    #[test]
    fn a_tool_named_as_a_hashed_name_is_hashed_itself() {
        let hashed = prefix_tool_name(Some("s"), "a.b", &opts(), NameRule::Strict);
        assert!(is_hash_shaped(&hashed), "{hashed}");
        let copy = hashed.strip_prefix("mcp__s__").unwrap();
        let pairs = [(Some("s"), "a.b"), (Some("s"), copy)];
        let alone = alone(&pairs);
        assert_eq!(alone[0], hashed);
        assert_ne!(alone[1], hashed);
        let (map, diags) = NameMap::build(&pairs, &opts(), NameRule::Strict);
        assert_eq!(map.entries().iter().map(|e| e.name.clone()).collect::<Vec<_>>(), alone);
        assert_eq!(diags, []);
        assert_eq!(map.resolve(&hashed).unwrap().tool, "a.b");
    }

    /// The same across servers: a server whose name is another's cut server does not take that
    /// server's hashed names with tools named after them.
    #[test]
    fn a_cut_servers_hashed_name_is_no_other_servers_name() {
        let server = "analytics_warehouse_production_eu_west";
        let tool = "export_quarterly_revenue_report";
        let hashed = prefix_tool_name(Some(server), tool, &opts(), NameRule::Strict);
        let parsed = parse_tool_name(&hashed, None, &opts()).unwrap();
        let other = parsed.server.as_deref().unwrap();
        assert!(server.starts_with(other) && other != server, "{hashed}");
        let pairs = [(Some(server), tool), (Some(other), parsed.tool.as_str())];
        let alone = alone(&pairs);
        assert_ne!(alone[1], hashed);
        let (map, diags) = NameMap::build(&pairs, &opts(), NameRule::Strict);
        assert_eq!(map.entries().iter().map(|e| e.name.clone()).collect::<Vec<_>>(), alone);
        assert_eq!(diags, []);
        assert_eq!(map.resolve(&hashed).unwrap().server.as_deref(), Some(server));
    }

    /// Tools named as every re-salted name of `a.b` get the same names in any order: each its
    /// own, as when listed alone.
    #[test]
    fn tools_named_as_resalted_names_are_named_in_any_order() {
        let tools: Vec<String> = (0..17).map(|salt| with_hash("mcp__s__a_b", Some("s"), "a.b", salt).strip_prefix("mcp__s__").unwrap().to_owned()).collect();
        let mut pairs: Vec<(Option<&str>, &str)> = vec![(Some("s"), "a.b")];
        pairs.extend(tools.iter().map(|t| (Some("s"), t.as_str())));
        assert_eq!(pairs.len(), 18);
        let alone = alone(&pairs);
        let mut distinct = alone.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), pairs.len());
        let n = pairs.len();
        let orders: Vec<Vec<usize>> = vec![(0..n).collect(), (0..n).rev().collect(), (0..n).map(|i| (i * 7 + 3) % n).collect()];
        for order in orders {
            let listed: Vec<_> = order.iter().map(|&i| pairs[i]).collect();
            let (map, diags) = NameMap::build(&listed, &opts(), NameRule::Strict);
            assert_eq!(diags, [], "{order:?}");
            for (e, &i) in map.entries().iter().zip(&order) {
                assert_eq!(e.name, alone[i], "{order:?}");
            }
        }
    }

    /// Hashed names all end in `_` and 8 letters or digits, one a digit; names that do not end
    /// so are kept, those that do are hashed.
    #[test]
    fn only_names_ending_as_a_hash_does_are_hashed_for_it() {
        for (server, tool) in [(Some("s"), "a.b"), (Some("s"), &*"t".repeat(70)), (None, "a b")] {
            let name = prefix_tool_name(server, tool, &opts(), NameRule::Strict);
            assert!(is_hash_shaped(&name), "{name}");
        }
        for tool in ["get_database", "list_projects", "x_1234567A", "x_1234567", "a_b"] {
            let name = prefix_tool_name(Some("s"), tool, &opts(), NameRule::Strict);
            assert_eq!(name, format!("mcp__s__{tool}"), "{tool} ends as no hash does");
        }
        let name = prefix_tool_name(Some("s"), "x_abcdefg1", &opts(), NameRule::Strict);
        assert!(name.starts_with("mcp__s__x_abcdefg1_") && is_hash_shaped(&name), "{name}");
        // A hash of letters only gets a digit: some salt of this pair gives one.
        let names: Vec<String> = (0..200).map(|salt| with_hash("t", None, "t", salt)).collect();
        assert!(names.iter().all(|n| is_hash_shaped(n)), "{names:?}");
        assert!((0..200).any(|salt| !pair_hash(None, "t", salt).bytes().any(|b| b.is_ascii_digit())));
    }

    #[test]
    fn duplicates_get_distinct_names() {
        let pairs = [(Some("s"), "t"), (Some("s"), "t"), (Some("s"), "t")];
        let (map, diags) = NameMap::build(&pairs, &opts(), NameRule::Strict);
        let mut names: Vec<_> = map.entries().iter().map(|e| e.name.clone()).collect();
        assert_eq!(names[0], "mcp__s__t", "the first keeps its name: {names:?}");
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 3);
        assert_eq!(diags.iter().filter(|d| d.rule == "names/duplicate-tool").count(), 2);
    }

    #[test]
    fn clashes_are_found_with_few_names_and_with_many() {
        // Below and above the number of names compared pair by pair: distinct tools keep their
        // names, and the duplicates are renamed wherever they are.
        for n in [3, PAIRWISE - 2, PAIRWISE, PAIRWISE + 1, 3 * PAIRWISE] {
            let tools: Vec<String> = (0..n).map(|i| format!("tool_{i}")).collect();
            let mut pairs: Vec<(Option<&str>, &str)> = tools.iter().map(|t| (Some("s"), t.as_str())).collect();
            let (map, diags) = NameMap::build(&pairs, &opts(), NameRule::Strict);
            assert!(diags.is_empty(), "{n}: {diags:?}");
            assert!(map.entries().iter().zip(&tools).all(|(e, t)| e.name == format!("mcp__s__{t}")), "{n}");
            pairs.insert(n / 2, (Some("s"), "tool_0"));
            pairs.push((Some("s"), "tool_1"));
            let (map, diags) = NameMap::build(&pairs, &opts(), NameRule::Strict);
            let mut names: Vec<&str> = map.entries().iter().map(|e| e.name.as_str()).collect();
            // The first of each keeps its name; the repeats are renamed.
            assert_eq!(names.iter().filter(|&&x| x == "mcp__s__tool_0" || x == "mcp__s__tool_1").count(), 2, "{n}: {names:?}");
            assert_eq!(names[0], "mcp__s__tool_0", "{n}");
            assert!(diags.iter().any(|d| d.rule == "names/duplicate-tool"), "{n}");
            for (e, p) in map.entries().iter().zip(&pairs) {
                assert_eq!(map.resolve(&e.name).unwrap().tool, p.1);
            }
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), pairs.len(), "{n}");
        }
    }

    #[test]
    fn names_stay_unique_when_the_fallback_suffix_is_taken() {
        // Found by the names fuzzer: a tool already named like the fallback suffix, and pairs
        // whose parts contain NUL.
        let pairs = [(None, "mcp__a___b_uybd68y1_2"), (Some("a\0"), "b"), (Some("a"), "\0b"), (Some(""), "t"), (None, "t")];
        let (map, _) = NameMap::build(&pairs, &opts(), NameRule::Strict);
        let mut names: Vec<_> = map.entries().iter().map(|e| e.name.clone()).collect();
        for (e, p) in map.entries().iter().zip(pairs) {
            let r = map.resolve(&e.name).unwrap();
            assert_eq!((r.server.as_deref(), r.tool.as_str()), (p.0.filter(|s| !s.is_empty()).or(p.0), p.1));
        }
        names.sort();
        names.dedup();
        assert_eq!(names.len(), pairs.len());
        assert!(NameMap::from_json_value(map.to_json_value()).is_ok());
    }

    /// A name map may be shared between threads (its index is built once, on a lookup).
    #[test]
    fn name_maps_are_send_and_sync() {
        fn shareable<T: Send + Sync>() {}
        shareable::<NameMap>();
    }

    #[test]
    fn a_renamed_entry_is_found_by_its_new_name() {
        let (mut map, _) = NameMap::build(&[(Some("s"), "t"), (Some("s"), "u")], &opts(), NameRule::Strict);
        assert_eq!(map.resolve("mcp__s__u").unwrap().tool, "u");
        map.entry_mut(1).unwrap().name = "renamed".into();
        assert_eq!(map.resolve("renamed").unwrap().tool, "u");
        assert_eq!(map.resolve("mcp__s__u").unwrap_err().code, ErrorCode::UnknownToolName);
    }

    /// A model's namespace before a name (`functions.`, `default_api.`) is looked past, but only
    /// where the whole name is no tool's, and only those namespaces.
    #[test]
    fn names_a_model_put_in_a_namespace_are_found() {
        let (map, _) = NameMap::build(&[(Some("s"), "t"), (None, "functions.u"), (None, "u")], &opts(), NameRule::Gemini);
        for called in ["functions.mcp__s__t", "functions/mcp__s__t", "default_api.mcp__s__t", "default_api:mcp__s__t"] {
            let e = map.resolve(called).unwrap();
            assert_eq!((e.name.as_str(), e.server.as_deref(), e.tool.as_str()), ("mcp__s__t", Some("s"), "t"), "{called}");
        }
        // The whole name wins: a tool really named `functions.u` is that tool, not `u`.
        assert_eq!(map.resolve("functions.u").unwrap().tool, "functions.u");
        assert_eq!(map.resolve("default_api.u").unwrap().tool, "u");
        for unknown in ["functions.", "tools.mcp__s__t", "functions.functions.mcp__s__t", "xfunctions.mcp__s__t", "mcp__s__t.functions"] {
            assert_eq!(map.resolve(unknown).unwrap_err().code, ErrorCode::UnknownToolName, "{unknown}");
        }
    }

    /// A name a framework made by turning every character but letters and digits into `_`
    /// (OpenAI Agents JS's `tool()`) reaches its tool when one name of the map folds to it; when
    /// several do, the error names them.
    #[test]
    fn names_a_framework_folded_are_suggested_never_resolved() {
        let pairs = [(Some("everything"), "get-sum"), (Some("s"), "a.b"), (Some("s"), "a-b"), (Some("s"), "a_c")];
        let (map, _) = NameMap::build(&pairs, &opts(), NameRule::Gemini);
        assert_eq!(map.entries()[0].name, "mcp__everything__get-sum");
        for called in ["mcp__everything__get_sum", "functions.mcp__everything__get_sum"] {
            let e = map.resolve(called).unwrap_err();
            assert_eq!(e.code, ErrorCode::UnknownToolName);
            assert_eq!(e.details.as_ref().unwrap()["suggestions"][0], "mcp__everything__get-sum", "{called}");
            assert!(e.message.contains("portableNames: true"), "{}", e.message);
            assert_eq!(map.position(called), None, "{called}");
        }
        // No framework makes `.` of `-`: a neighbour, without the claim.
        let e = map.resolve("mcp__everything__get.sum").unwrap_err();
        assert_eq!(e.details.as_ref().unwrap()["suggestions"], serde_json::json!(["mcp__everything__get-sum"]));
        assert!(!e.message.contains("framework"), "{}", e.message);
        // Exact names only: a removed `a_b` never reaches `a.b` or `a-b`.
        assert_eq!(map.resolve("mcp__s__a.b").unwrap().tool, "a.b");
        assert!(map.resolve("mcp__s__a-c").is_err());
        let e = map.resolve("mcp__s__a_b").unwrap_err();
        assert_eq!(e.details.unwrap()["suggestions"], serde_json::json!(["mcp__s__a.b", "mcp__s__a-b"]));
    }

    /// F1 (s29c): a name with `.` where a tool's has `_` is no name of that tool: Gemini's name
    /// of `a.b`, read with OpenAI's map (where `a.b` is hashed and `a_b` keeps its name), is
    /// suggested `a.b`'s name alone, as the name of that tool in another conversion, never
    /// `a_b`'s as one a framework renamed. Folding goes one way only, in every rule.
    #[test]
    fn a_suggestion_names_only_the_tool_the_name_can_have_meant() {
        let pairs = [(Some("A"), "a.b"), (Some("A"), "a_b")];
        let (openai, _) = NameMap::build(&pairs, &opts(), NameRule::Strict);
        let (gemini, _) = NameMap::build(&pairs, &opts(), NameRule::Gemini);
        let hashed = openai.entries()[0].name.clone();
        assert!(hashed.starts_with("mcp__A__a_b_"), "{hashed}");
        assert_eq!(openai.entries()[1].name, "mcp__A__a_b");
        assert_eq!(gemini.entries()[0].name, "mcp__A__a.b");
        for called in ["mcp__A__a.b", "functions.mcp__A__a.b"] {
            let e = openai.resolve(called).unwrap_err();
            assert_eq!(e.details.as_ref().unwrap()["suggestions"], serde_json::json!([hashed]), "{called}");
            assert!(!e.message.contains("framework"), "{}", e.message);
            assert!(e.message.contains("another provider") && e.message.contains("options.provider"), "{}", e.message);
        }
        // Other naming options spell the tool too (a prefix, a separator); a name that reads as
        // another server's, or whose server part holds the separator, does not.
        let (map, _) = NameMap::build(&[(Some("fs"), "read.file"), (Some("fs2"), "read.file"), (Some("9s"), "x.y")], &opts(), NameRule::Strict);
        for (called, i) in [("tw__fs__read.file", 0), ("fs-read.file", 0), ("fs__read_file", 0), ("__fs__read.file", 0), ("mcp__fs2__read.file", 1), ("_9s__x.y", 2)] {
            let e = map.resolve(called).unwrap_err();
            assert_eq!(e.details.as_ref().unwrap()["suggestions"], serde_json::json!([map.entries()[i].name]), "{called}");
        }
        for called in ["mcp__xfs__read.file", "mcp__a__fs__read.file", "fs__read-file", "_fs__read.file", "mcp__fs__read.file_12345678"] {
            let e = map.resolve(called).unwrap_err();
            assert!(!e.message.contains("another provider"), "{called}: {}", e.message);
        }
        // A tool's own name and a map's name's tail are read one way too.
        let (map, _) = NameMap::build(&[(Some("A"), "x_y"), (Some("B"), "p.q")], &opts(), NameRule::Gemini);
        assert!(map.resolve("x.y").unwrap_err().details.is_none());
        assert_eq!(map.resolve("p_q").unwrap_err().details.unwrap()["suggestions"], serde_json::json!(["mcp__B__p.q"]));
    }

    /// A name that spells a tool only with `_` for some of its characters, with other letter
    /// case, without the hash its name has, or whole past the length the rule cuts to, is a
    /// model's mistake: suggested, and said to be no other conversion's name (none gives it:
    /// a rule that writes `_` for a character adds a hash), as it would send the reader
    /// looking for a mix-up of maps that is not there.
    #[test]
    fn a_garbled_name_is_suggested_without_blaming_another_conversion() {
        let long = "list-sharepoint-site-onenote-notebook-section-groups";
        let (map, _) = NameMap::build(&[(Some("ms-365"), "list-mail-messages"), (Some("ms-365"), long), (Some("grafana"), "list_incidents")], &opts(), NameRule::Strict);
        let cut = map.entries()[1].name.clone();
        assert!(is_hash_shaped(&cut) && cut.len() == MAX_NAME_LEN, "{cut}");
        let cases = [
            ("mcp__ms-365__list_mail_messages", "mcp__ms-365__list-mail-messages"),
            ("mcp__ms-365__list_mail-messages", "mcp__ms-365__list-mail-messages"),
            ("mcp__GRAFANA__LIST_INCIDENTS", "mcp__grafana__list_incidents"),
            (&cut[..cut.len() - HASH_LEN - 1], &cut),
            (&format!("mcp__ms-365__{long}"), &cut),
        ];
        for (called, meant) in cases {
            let e = map.resolve(called).unwrap_err();
            assert_eq!(e.details.as_ref().unwrap()["suggestions"][0], meant, "{called}: {e}");
            assert!(!e.message.contains("another provider") && !e.message.contains("framework"), "{called}: {e}");
            assert_eq!(map.position(called), None, "never resolved by likeness: {called}");
        }
        // Gemini's name of a tool whose server has a `.` is another conversion's name, and said so.
        let (openai, _) = NameMap::build(&[(Some("my.server"), "get")], &opts(), NameRule::Strict);
        let e = openai.resolve("mcp__my.server__get").unwrap_err();
        assert!(e.message.contains("another provider"), "{e}");
        assert!(!openai.resolve("mcp__my_server__get").unwrap_err().message.contains("another provider"));
    }

    /// Suggestions cost at most a pass over the map: none for a name longer than any provider
    /// takes, and no edit distances in a large map (only the folded and tool-name matches).
    #[test]
    fn suggestions_are_bounded() {
        let tools: Vec<(Option<&str>, String)> = (0..EDIT_SUGGESTIONS_UP_TO + 1).map(|i| (Some("s"), format!("tool_{i}"))).collect();
        let pairs: Vec<(Option<&str>, &str)> = tools.iter().map(|(s, t)| (*s, t.as_str())).collect();
        let (map, _) = NameMap::build(&pairs, &opts(), NameRule::Strict);
        let long = "x".repeat(SUGGESTED_NAME_CHARS + 1);
        assert!(map.resolve(&long).unwrap_err().details.is_none());
        assert_eq!(map.resolve("tool_7").unwrap_err().details.unwrap()["suggestions"], serde_json::json!(["mcp__s__tool_7"]));
        assert!(map.resolve("mcp__s__tool_7x").unwrap_err().details.is_none(), "one edit away, but the map is large");
    }

    /// F5 (s24c): in one response, only the first [`SUGGESTED_PER_RESPONSE`] unknown names get
    /// suggestions (each a pass over the map), however many unknown names it holds; a lone
    /// `resolve` always gets them, and a budget started inside another shares it.
    #[test]
    fn a_response_pays_for_a_few_suggestion_passes() {
        let (map, _) = NameMap::build(&[(Some("fs"), "read_file"), (Some("fs"), "write_file")], &opts(), NameRule::Strict);
        let suggested = |name: &str| map.resolve(name).unwrap_err().details.is_some();
        {
            let _budget = SuggestionBudget::start();
            for i in 0..SUGGESTED_PER_RESPONSE {
                assert!(suggested("read_file"), "{i}");
                assert!(map.resolve("mcp__fs__read_file").is_ok(), "known names cost no pass");
            }
            {
                let _inner = SuggestionBudget::start();
                assert!(!suggested("read_file"), "the inner reader shares the outer's budget");
            }
            assert!(!suggested("write_file"));
        }
        assert!(suggested("read_file"), "outside a response");
        let _again = SuggestionBudget::start();
        assert!(suggested("read_file"), "a new response, a new budget");
        // Through the readers of responses: the first calls' errors suggest, the rest do not.
        let calls: Vec<Value> = (0..40).map(|i| serde_json::json!({"id": format!("c{i}"), "type": "function", "function": {"name": "read_file", "arguments": "{}"}})).collect();
        let response = serde_json::json!({"choices": [{"message": {"tool_calls": calls}}]});
        drop(_again);
        for _ in 0..2 {
            let parsed = crate::calls::parse_tool_calls(&response, crate::calls::CallFormat::OpenAi, Some(&map)).unwrap();
            let hinted = parsed.iter().filter(|c| c.error.as_ref().is_some_and(|e| e.message.contains("did you mean"))).count();
            assert_eq!((parsed.len(), hinted), (40, SUGGESTED_PER_RESPONSE));
            assert!(parsed[0].error.as_ref().unwrap().message.contains("did you mean \"mcp__fs__read_file\""));
            assert!(parsed.iter().all(|c| c.error.as_ref().unwrap().code == "UNKNOWN_TOOL_NAME"));
        }
    }

    /// An unknown name's error suggests the map's closest names: those whose tool it is, then
    /// those a few edits away; none when nothing is close.
    #[test]
    fn unknown_names_suggest_the_closest_names() {
        let (map, _) = NameMap::build(&[(Some("db"), "execute_sql"), (Some("a"), "echo"), (Some("b"), "echo"), (Some("fs"), "read_file")], &opts(), NameRule::Strict);
        let message = |name: &str| map.resolve(name).unwrap_err().message;
        assert_eq!(message("execute_sql"), "no tool is named \"execute_sql\" in this name map (4 names); did you mean \"mcp__db__execute_sql\"?");
        assert_eq!(message("echo"), "no tool is named \"echo\" in this name map (4 names); did you mean \"mcp__a__echo\" or \"mcp__b__echo\"?");
        assert_eq!(message("functions.echo"), "no tool is named \"functions.echo\" in this name map (4 names); did you mean \"mcp__a__echo\" or \"mcp__b__echo\"?");
        assert_eq!(message("mcp__fs__read_fil"), "no tool is named \"mcp__fs__read_fil\" in this name map (4 names); did you mean \"mcp__fs__read_file\"?");
        assert_eq!(message("mcp__fs__write"), "no tool is named \"mcp__fs__write\" in this name map (4 names)");
        let e = map.resolve("echo").unwrap_err();
        assert_eq!(e.details.unwrap()["suggestions"], serde_json::json!(["mcp__a__echo", "mcp__b__echo"]));
        assert!(map.resolve("weather").unwrap_err().details.is_none());
    }

    #[test]
    fn unknown_names_are_errors() {
        let (map, _) = NameMap::build(&[(Some("s"), "t")], &opts(), NameRule::Strict);
        assert_eq!(map.resolve("mcp__s__u").unwrap_err().code, ErrorCode::UnknownToolName);
        let json = map.to_json_value();
        let back = NameMap::from_json_value(json).unwrap();
        assert_eq!(back.resolve("mcp__s__t").unwrap().tool, "t");
    }

    #[test]
    fn name_map_json_is_exact_and_round_trips() {
        let (mut map, _) = NameMap::build(&[(Some("s"), "t"), (None, "u")], &opts(), NameRule::Strict);
        let mut plan = ArgPlan { null_means_absent: vec!["x".into()], ..ArgPlan::default() };
        plan.set_property("e", ArgPlan { enum_values: vec![serde_json::json!(3)], ..ArgPlan::default() });
        map.entry_mut(0).unwrap().args = Some(plan);
        let v = map.to_json_value();
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            concat!(
                r#"{"version":1,"entries":[{"name":"mcp__s__t","server":"s","tool":"t","args":{"properties":{"e":{"enumValues":[3]}},"nullMeansAbsent":["x"]}},"#,
                r#"{"name":"u","server":null,"tool":"u"}]}"#
            )
        );
        assert_eq!(serde_json::to_value(&map.entries()[1]).unwrap(), map.entries()[1].to_value());
        let back = NameMap::from_json_value(v).unwrap();
        assert_eq!(back, map);
        // Missing `server` and `args`, `null` args, unknown keys and any u32 version are accepted.
        let lenient = serde_json::json!({"version": 7, "x": 1, "entries": [{"name": "a", "tool": "b", "args": null, "y": 2}]});
        let back = NameMap::from_json_value(lenient).unwrap();
        assert_eq!(back.entries()[0], NameEntry { name: "a".into(), server: None, tool: "b".into(), args: None });
    }

    #[test]
    fn wrong_typed_name_map_fields_are_invalid_input() {
        use serde_json::json;
        for (bad, message) in [
            (json!([]), "the value must be an object, got array"),
            (json!({"entries": []}), "version is missing"),
            (json!({"version": 1}), "entries is missing"),
            (json!({"version": 1.5, "entries": []}), "version must be a 32-bit unsigned integer, got number"),
            (json!({"version": -1, "entries": []}), "version must be a 32-bit unsigned integer, got number"),
            (json!({"version": 4_294_967_296u64, "entries": []}), "version must be a 32-bit unsigned integer, got number"),
            (json!({"version": 1, "entries": {}}), "entries must be an array, got object"),
            (json!({"version": 1, "entries": [{"name": "a", "tool": 1}]}), "entries[0].tool must be a string, got number"),
            (json!({"version": 1, "entries": [{"name": "a", "tool": "t"}, {"tool": "t"}]}), "entries[1].name is missing"),
            (json!({"version": 1, "entries": [{"name": "a", "tool": "t", "server": false}]}), "entries[0].server must be a string, got boolean"),
            (
                json!({"version": 1, "entries": [{"name": "a", "tool": "t", "args": {"anyOf": [{"unwrap": []}]}}]}),
                "entries[0].args.anyOf[0].unwrap must be a string, got array",
            ),
        ] {
            let e = NameMap::from_json_value(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput);
            assert_eq!(e.message, format!("not a serialised name map: {message}"));
        }
        let dup = json!({"version": 1, "entries": [{"name": "a", "tool": "t"}, {"name": "a", "tool": "u"}]});
        assert_eq!(NameMap::from_json_value(dup).unwrap_err().code, ErrorCode::InvalidInput);
        // s26d F3: a version spelled as a double is the integer, as `JSON.parse` reads it.
        for version in ["1.0", "1e0", "1", "0.0", "-0"] {
            let text = format!(r#"{{"version":{version},"entries":[{{"name":"a","tool":"t"}}]}}"#);
            assert!(NameMap::from_json_value(serde_json::from_str(&text).unwrap()).is_ok(), "{text}");
        }
        for version in ["1.5", "-1", "4294967296", "4294967296.0"] {
            let text = format!(r#"{{"version":{version},"entries":[]}}"#);
            assert_eq!(NameMap::from_json_value(serde_json::from_str(&text).unwrap()).unwrap_err().code, ErrorCode::InvalidInput, "{text}");
        }
        // F3 (s24c): a lone surrogate escape in a name is refused, elsewhere it is text.
        for (text, key) in [
            (r#"{"version":1,"entries":[{"name":"a","server":"s","tool":"x\udc00"}]}"#, Some("entries[0].tool")),
            (r#"{"version":1,"entries":[{"name":"b","tool":"t"},{"name":"a\ud83d","tool":"t"}]}"#, Some("entries[1].name")),
            (r#"{"version":1,"entries":[{"name":"a","server":"\ud83dx","tool":"t"}]}"#, Some("entries[0].server")),
            (r#"{"version":1,"entries":[{"name":"a","tool":"t\ud83d\ude00"}]}"#, None),
            (r#"{"version":1,"entries":[{"name":"a","tool":"t","args":{"enumValues":["\ud83d"]}}]}"#, None),
            (r#"{"version":1,"entries":[{"name":"a","tool":"t\\ud83d"}]}"#, None),
        ] {
            match (NameMap::refuse_lone_surrogate_names(text), key) {
                (Err(e), Some(key)) => {
                    assert_eq!(e.code, ErrorCode::InvalidInput);
                    assert!(e.message.starts_with(&format!("not a serialised name map: {key} holds a lone UTF-16 surrogate")), "{}", e.message);
                }
                (Ok(()), None) => {}
                (got, _) => panic!("{text}: {got:?}"),
            }
        }
        let e = NameEntry::from_value(&json!({"name": null, "tool": "t"})).unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (ErrorCode::InvalidInput, "invalid name map entry: name must be a string, got null"));
    }

    #[test]
    fn parse_plain_formats() {
        let o = opts();
        let p = parse_tool_name("mcp__github__create__issue", None, &o).unwrap();
        assert_eq!((p.server.as_deref(), p.tool.as_str()), (Some("github"), "create__issue"));
        let p = parse_tool_name("github__x", None, &o).unwrap();
        assert_eq!(p.server.as_deref(), Some("github"));
        let p = parse_tool_name("plain", None, &o).unwrap();
        assert_eq!((p.server, p.tool.as_str()), (None, "plain"));
        // What `mcp` makes of a tool with no server reads back as that.
        let mcp = NamingOptions { format: Some(NameFormat::Mcp), ..opts() };
        let named = prefix_tool_name(None, "nosplit", &mcp, NameRule::Strict);
        assert_eq!(named, "mcp__nosplit");
        let p = parse_tool_name(&named, Some(NameFormat::Mcp), &o).unwrap();
        assert_eq!((p.server, p.tool.as_str()), (None, "nosplit"));
        assert!(parse_tool_name("mcp__", Some(NameFormat::Mcp), &o).is_none());
        assert!(parse_tool_name("other__x", Some(NameFormat::Mcp), &o).is_none());
        // And what `server` makes of one (it once read back as nothing).
        let server = NamingOptions { format: Some(NameFormat::Server), ..opts() };
        let named = prefix_tool_name(None, "x", &server, NameRule::Strict);
        assert_eq!(named, "x");
        let p = parse_tool_name(&named, Some(NameFormat::Server), &o).unwrap();
        assert_eq!((p.server, p.tool.as_str()), (None, "x"));
        assert!(parse_tool_name("x__", Some(NameFormat::Server), &o).is_none());
    }

    // `accepts` reads bytes; it must say yes exactly when sanitising would change nothing and the
    // name fits, for any text (prefix_tool_name keeps accepted names as they are).
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn accepts_is_exactly_sanitize_changing_nothing(s in "(?s)[a-zA-Z0-9_.:\\-é中😀 ]{0,70}") {
            for rule in [NameRule::Strict, NameRule::Gemini] {
                let unchanged = sanitize(&s, rule) == s && s.len() <= MAX_NAME_LEN;
                proptest::prop_assert_eq!(rule.accepts(&s), unchanged, "{:?} {:?}", rule, s);
            }
        }
    }

    /// A separator or prefix the provider's names cannot hold is refused, not silently
    /// replaced and hashed (probe F11); one they can is taken.
    #[test]
    fn separators_and_prefixes_names_cannot_hold_are_refused() {
        let o = |separator: &str, prefix: &str, portable: bool| NamingOptions { separator: separator.into(), prefix: prefix.into(), portable, ..NamingOptions::default() };
        for (opts, rule) in [(o(".", "mcp", false), NameRule::Strict), (o("/", "mcp", false), NameRule::Gemini), (o("-", "mcp", true), NameRule::Strict), (o("__", "my tools", false), NameRule::Strict), (o("__", "1x", false), NameRule::Gemini)] {
            let rule = opts.rule(rule);
            let e = check_options(&opts, rule).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidOptions, "{opts:?}");
        }
        for (opts, rule) in [(o(".", "mcp", false), NameRule::Gemini), (o("-", "x", false), NameRule::Strict), (o("__", "mcp", true), NameRule::Strict)] {
            assert!(check_options(&opts, opts.rule(rule)).is_ok(), "{opts:?}");
        }
        // Not used by its format: not checked.
        let bare = NamingOptions { format: Some(NameFormat::Bare), ..o(".", "a b", false) };
        assert!(check_options(&bare, NameRule::Strict).is_ok());
    }

    /// A prefix whose first character names may hold but not start with is refused saying how a
    /// name must start, not that the names cannot hold it (probe pQ 8).
    #[test]
    fn a_prefix_is_refused_for_its_first_character_saying_how_names_start() {
        let o = |prefix: &str, portable: bool| NamingOptions { prefix: prefix.into(), portable, ..NamingOptions::default() };
        for (opts, rule, message) in [
            (o("1abc", false), NameRule::Gemini, r#"options.prefix "1abc" starts with '1', and Gemini's tool names start with a letter or `_`: the prefix must start so, or every name would be rewritten and hashed"#),
            (o("_x", true), NameRule::Strict, r#"options.prefix "_x" starts with '_', and names every provider takes (portableNames) start with a letter: the prefix must start so, or every name would be rewritten and hashed"#),
            (o("-x", true), NameRule::Strict, r#"options.prefix "-x" holds '-', which names every provider takes (portableNames: letters, digits and `_`) cannot hold: every name would be rewritten and hashed"#),
        ] {
            let e = check_options(&opts, opts.rule(rule)).unwrap_err();
            assert_eq!((e.code, e.message.as_str()), (ErrorCode::InvalidOptions, message), "{opts:?}");
        }
        // A first character the rule takes to start a name: taken.
        assert!(check_options(&o("_x", false), NameRule::Gemini).is_ok());
        assert!(check_options(&o("1abc", false), NameRule::Strict).is_ok());
    }

    /// An empty prefix leaves the separator to start every name: refused where names may not
    /// start with it, as a prefix starting so is (probe rv2 F3); taken where they may.
    #[test]
    fn an_empty_prefix_is_refused_where_the_separator_cannot_start_a_name() {
        let o = |separator: &str, portable: bool| NamingOptions { separator: separator.into(), prefix: String::new(), portable, ..NamingOptions::default() };
        for (opts, rule, message) in [
            (o("__", true), NameRule::Strict, r#"options.prefix is empty, so the separator "__" starts every name with '_', and names every provider takes (portableNames) start with a letter: give a prefix that starts so (or naming: "server" for names without one), or every name would be rewritten and hashed"#),
            (o("-", false), NameRule::Gemini, r#"options.prefix is empty, so the separator "-" starts every name with '-', and Gemini's tool names start with a letter or `_`: give a prefix that starts so (or naming: "server" for names without one), or every name would be rewritten and hashed"#),
            (o(".", false), NameRule::Gemini, r#"options.prefix is empty, so the separator "." starts every name with '.', and Gemini's tool names start with a letter or `_`: give a prefix that starts so (or naming: "server" for names without one), or every name would be rewritten and hashed"#),
        ] {
            let e = check_options(&opts, opts.rule(rule)).unwrap_err();
            assert_eq!((e.code, e.message.as_str()), (ErrorCode::InvalidOptions, message), "{opts:?}");
        }
        // A separator names may start with: the names fit, and are not hashed.
        for (opts, rule) in [(o("__", false), NameRule::Strict), (o("-", false), NameRule::Strict), (o("__", false), NameRule::Gemini)] {
            assert!(check_options(&opts, opts.rule(rule)).is_ok(), "{opts:?}");
            let name = prefix_tool_name(Some("s"), "t", &opts, opts.rule(rule));
            assert_eq!(name, format!("{0}s{0}t", opts.separator));
        }
        // The prefix unused by the format: not checked.
        let server = NamingOptions { format: Some(NameFormat::Server), ..o("__", true) };
        assert!(check_options(&server, server.rule(NameRule::Strict)).is_ok());
    }
}
