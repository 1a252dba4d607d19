//! Permission policy: `allow` / `ask` / `deny` by tool-name pattern (`policy.check(name)`).
//!
//! Patterns in the style of Claude Code's permission rules: an exact name
//! (`mcp__github__create_issue`, that name only), a server (`mcp__github`, which covers every
//! tool of that server), or a glob with `*` and `?` (`mcp__github__*`, `*delete*`). When several
//! rules match, `deny` wins over `ask`, and `ask` over `allow`; `deny` and `ask` rules ignore
//! the case of ASCII letters (one that misses lets a call through; Unicode's case tables would be
//! 8 KB of the gzip'd module), `allow` rules do not. A pattern that could
//! match no name (empty, ending with `__`, or holding what no name holds: white space at either
//! end, a control character, a comma, an invisible format character such as a byte order mark)
//! is refused. With no match, the default action
//! applies (`ask` unless configured). `askDestructive` makes a tool that may be destructive ask instead
//! of being allowed by default or by a pattern: one whose annotations say neither
//! `readOnlyHint: true` nor `destructiveHint: false`, which is MCP's default reading (so a tool
//! without annotations asks too). It never turns an ask or a deny into an allow: annotations
//! are hints from the server, so they are never a reason to allow.
//!
//! Where the server and the tool are known (the hub's calls, [`Policy::check_tool`]), every
//! pattern is matched against `mcp__server__tool` with the names as they are, whatever name the
//! provider saw. A pattern `S__T` without `mcp__` (`github__*`) is `mcp__S__T`: server `S`'s tool
//! `T`, as `naming: "server"` writes it, never a tool of another server whose own name starts
//! `S__`; a pattern without `__` (`delete_file`, `read_*`) is also the tool's own name on any
//! server. [`Policy::check`] reads a provider name the same way: `mcp__S__T` and `S__T` as
//! server `S`'s tool `T`, any name as a tool's own name, so that both decide alike where the
//! name says the server. `mcp__S__T` is also server `mcp`'s tool `S__T` for `deny` and `ask`
//! rules, never for an `allow`: the most restrictive reading wins, and an allow of server `mcp`
//! reaches no other server's tool. `deny` and `ask` rules are also matched against the tool's own
//! name, whatever the pattern (a gateway's tool named `mcp__github__delete_repo`).

use serde_json::Value;

use crate::error::{Error, ErrorCode, Result};
use crate::model::{read_array, read_bool, read_field, read_object, read_required, read_string, FieldError, Read, ToolAnnotations};

/// A decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Action {
    /// Call without asking.
    Allow,
    /// Ask the user first.
    Ask,
    /// Never call.
    Deny,
}

/// What made a decision [`Action::Ask`], so that a call refused for want of a confirmation can
/// say how it would be allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AskedBy {
    /// An `ask` rule matched (it wins over any `allow`).
    Rule,
    /// No rule matched, and `defaultAction` is `ask` (the default).
    DefaultAction,
    /// The decision was `allow`, and `askDestructive` asks for a tool that may be destructive.
    AskDestructive,
}

/// What made a decision [`Action::Deny`] ([`Policy::denied_by`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeniedBy {
    /// This `deny` rule's pattern matched (a deny wins over any `allow` or `ask`).
    Rule(String),
    /// No rule matched, and `defaultAction` is `deny`.
    DefaultAction,
}

impl Action {
    /// `"allow" | "ask" | "deny"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }

    fn read(v: &Value) -> Read<Self> {
        match v.as_str() {
            Some("allow") => Ok(Self::Allow),
            Some("ask") => Ok(Self::Ask),
            Some("deny") => Ok(Self::Deny),
            Some(other) => Err(FieldError::new(format!("must be \"allow\", \"ask\" or \"deny\", got \"{other}\""))),
            None => Err(FieldError::wrong_type("\"allow\", \"ask\" or \"deny\"", v)),
        }
    }
}

/// A rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The name pattern.
    pub pattern: String,
    /// What to do on a match.
    pub action: Action,
}

impl Rule {
    /// `{pattern, action}` (any other field is refused by [`Policy::from_value`]).
    fn read(v: &Value) -> Read<Self> {
        let o = read_object(v)?;
        Ok(Self { pattern: read_required(o, "pattern", read_string)?, action: read_required(o, "action", Action::read)? })
    }
}

/// The policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// Rules; order does not matter (deny > ask > allow).
    pub rules: Vec<Rule>,
    /// Shorthand lists, as in Claude Code settings.
    pub allow: Vec<String>,
    /// Patterns to ask for.
    pub ask: Vec<String>,
    /// Patterns to deny.
    pub deny: Vec<String>,
    /// Decision when no rule matches (default `ask`).
    pub default_action: Action,
    /// Ask, where the decision would be allow, for tools that may be destructive ([`may_destroy`]).
    pub ask_destructive: bool,
}

/// The fields of a policy's JSON form; any other is an error.
pub(crate) const POLICY_FIELDS: [&str; 6] = ["rules", "allow", "ask", "deny", "defaultAction", "askDestructive"];

/// The fields of a rule's JSON form; any other is an error (a misspelt `action` would leave the
/// rule without one, a misspelt `pattern` without its pattern).
const RULE_FIELDS: [&str; 2] = ["pattern", "action"];

impl Policy {
    /// Reads a policy from JSON, with typed errors (`INVALID_OPTIONS`): `{rules?: [{pattern,
    /// action}], allow?, ask?, deny?, defaultAction?, askDestructive?}`, every field optional
    /// (but not `null`), no other field allowed. The `allow`/`ask`/`deny` lists become rules.
    pub fn from_value(v: Value) -> Result<Self> {
        // A misspelt field is named with the one meant, as an option of the client's is: a
        // misspelt `deny` would be a rule never applied.
        if let Some(e) = v.as_object().and_then(|o| o.keys().find_map(|k| crate::error::unknown_key("policy", k, &POLICY_FIELDS, true))) {
            return Err(e);
        }
        // And in a rule: a key of its own (`note`, `tool`) would be kept by `toJSON` and read by
        // nothing, so that a rule seems to say more than it does.
        if let Some(Value::Array(rules)) = v.get("rules") {
            for (i, rule) in rules.iter().enumerate() {
                if let Some(e) = rule.as_object().and_then(|o| o.keys().find_map(|k| crate::error::unknown_key(&format!("policy.rules[{i}]"), k, &RULE_FIELDS, true))) {
                    return Err(e);
                }
            }
        }
        let mut p = Self::read(&v).map_err(|e| e.into_error(ErrorCode::InvalidOptions, "invalid permission policy"))?;
        for (list, action) in [(std::mem::take(&mut p.allow), Action::Allow), (std::mem::take(&mut p.ask), Action::Ask), (std::mem::take(&mut p.deny), Action::Deny)] {
            p.rules.extend(list.into_iter().map(|pattern| Rule { pattern, action }));
        }
        if let Some((r, why)) = p.rules.iter().find_map(|r| stray_characters(&r.pattern).map(|why| (r, why))) {
            return Err(Error::new(ErrorCode::InvalidOptions, format!("invalid permission policy: the pattern {} {why}", crate::text::quote(&r.pattern))));
        }
        if let Some(r) = p.rules.iter().find(|r| looks_like_regex(&r.pattern)) {
            return Err(Error::new(
                ErrorCode::InvalidOptions,
                format!(
                    "invalid permission policy: the pattern {} looks like a regular expression, but patterns are globs: `*` is any run of characters, `?` one (write mcp__db__* for every tool of server db)",
                    crate::text::quote(&r.pattern)
                ),
            ));
        }
        // A pattern that could match no tool name would be a rule never applied: a `deny` that
        // seems to guard and does not. One ending `___` names a tool `_` (`mcp__fs___`).
        if let Some(r) = p.rules.iter().find(|r| r.pattern.is_empty() || (r.pattern.ends_with("__") && !r.pattern.ends_with("___") && !has_glob(&r.pattern))) {
            let message = match r.pattern.strip_suffix("__") {
                None => "invalid permission policy: a pattern is empty, and would match no tool".to_owned(),
                Some(head) => {
                    let instead = match server_pattern(head, false) {
                        Some(server) => format!("write {} (or {}) for every tool of server {}, or the tool's whole name", crate::text::quote(head), crate::text::quote(&format!("{head}__*")), crate::text::quote(server)),
                        None => format!("write {} for every name that starts so, or the tool's whole name", crate::text::quote(&format!("{head}__*"))),
                    };
                    format!("invalid permission policy: the pattern {} ends with \"__\", and would match no tool: {instead}", crate::text::quote(&r.pattern))
                }
            };
            return Err(Error::new(ErrorCode::InvalidOptions, message));
        }
        Ok(p)
    }

    fn read(v: &Value) -> Read<Self> {
        let o = read_object(v)?;
        let list = |key: &str| read_field(o, key, |v| read_array(v, read_string)).map(Option::unwrap_or_default);
        Ok(Self {
            rules: read_field(o, "rules", |v| read_array(v, Rule::read))?.unwrap_or_default(),
            allow: list("allow")?,
            ask: list("ask")?,
            deny: list("deny")?,
            default_action: read_field(o, "defaultAction", Action::read)?.unwrap_or(Action::Ask),
            ask_destructive: read_field(o, "askDestructive", read_bool)?.unwrap_or(false),
        })
    }

    /// The decision for a provider tool name, given the tool's annotations when known. A name
    /// inside a model's namespace (`functions.NAME`, see [`crate::naming::MODEL_NAMESPACES`]),
    /// which a name map resolves as `NAME`, is judged as both: the rules of either apply, the
    /// most restrictive winning. Rules that restrict (`deny`, `ask`) ignore letter case.
    ///
    /// The name is read as [`name_judged`] reads it. Where a provider takes the whole name as a
    /// tool's (Gemini's names may hold `.` and `:`, so `functions.read` may be another server's
    /// tool, which a name map routes to itself), the decision for the whole name, its default
    /// action included, counts as much as the one for `NAME`: the most restrictive wins, so an
    /// allow of `read` is no allow of `functions.read`.
    pub fn check(&self, name: &str, annotations: Option<&ToolAnnotations>) -> Action {
        let judge = |n: &str| self.decide(|r| name_judged(&r.pattern, n, restricts(r)), annotations);
        let Some(bare) = crate::naming::without_model_namespace(name) else { return judge(name) };
        if !name[..name.len() - bare.len()].ends_with('/') {
            return judge(name).max(judge(bare));
        }
        // `functions/NAME`: no provider takes a `/` in a name, so it can only be `NAME`.
        self.decide(|r| name_judged(&r.pattern, name, restricts(r)) || name_judged(&r.pattern, bare, restricts(r)), annotations)
    }

    /// The decision for a call whose (server, tool) is known, as the hub's are: the rules are
    /// matched against the tool's `mcp__server__tool` name (server and tool as given, whatever
    /// the provider saw; see [`matches_tool`]), so neither the naming format nor the shortening
    /// and sanitising of a provider name can move a tool in or out of a rule, and `mcp__a` does
    /// not cover a server named `a__b`. Rules that restrict (`deny`, `ask`) also apply when they
    /// match that whole name as text (a glob `mcp__*delete*` whatever the server), or
    /// `provider_name`, so a rule written against the names the model sees still holds; and they
    /// ignore letter case. An `allow` never comes from the provider name alone.
    pub fn check_tool(&self, server: &str, tool: &str, provider_name: &str, annotations: Option<&ToolAnnotations>) -> Action {
        self.check_tool_why(server, tool, provider_name, annotations).0
    }

    /// [`Policy::check_tool`], and for `Ask` what asked for it.
    pub fn check_tool_why(&self, server: &str, tool: &str, provider_name: &str, annotations: Option<&ToolAnnotations>) -> (Action, Option<AskedBy>) {
        let forms = if self.rules.iter().any(restricts) { ProviderForms::of(server, tool) } else { ProviderForms::default() };
        self.decide_why(|r| rule_applies_to_tool(r, server, tool, provider_name, &forms), annotations)
    }

    /// Whether any call could be denied: a `deny` rule, or `defaultAction: "deny"`.
    pub fn may_deny(&self) -> bool {
        self.default_action == Action::Deny || self.rules.iter().any(|r| r.action == Action::Deny)
    }

    /// What makes [`Policy::check_tool`] deny a tool, or `None` when it does not: the first
    /// `deny` rule that matches it (in the order of `rules`, then the `deny` list), or the
    /// default action, where no rule matches. A deny does not hang on annotations.
    pub fn denied_by(&self, server: &str, tool: &str, provider_name: &str) -> Option<DeniedBy> {
        if !self.may_deny() {
            return None;
        }
        let forms = if self.rules.iter().any(restricts) { ProviderForms::of(server, tool) } else { ProviderForms::default() };
        let applies = |r: &Rule| rule_applies_to_tool(r, server, tool, provider_name, &forms);
        if let Some(r) = self.rules.iter().find(|r| r.action == Action::Deny && applies(r)) {
            return Some(DeniedBy::Rule(r.pattern.clone()));
        }
        (self.default_action == Action::Deny && !self.rules.iter().any(applies)).then_some(DeniedBy::DefaultAction)
    }

    fn decide(&self, applies: impl Fn(&Rule) -> bool, annotations: Option<&ToolAnnotations>) -> Action {
        self.decide_why(applies, annotations).0
    }

    fn decide_why(&self, applies: impl Fn(&Rule) -> bool, annotations: Option<&ToolAnnotations>) -> (Action, Option<AskedBy>) {
        let matched = self.rules.iter().filter(|r| applies(r)).map(|r| r.action).max();
        let decision = matched.unwrap_or(self.default_action);
        if decision == Action::Allow && self.ask_destructive && may_destroy(annotations) {
            return (Action::Ask, Some(AskedBy::AskDestructive));
        }
        let by = (decision == Action::Ask).then_some(if matched.is_some() { AskedBy::Rule } else { AskedBy::DefaultAction });
        (decision, by)
    }
}

/// Whether a rule applies to server `server`'s tool `tool`, named `provider_name` for the
/// provider: see [`Policy::check_tool`]. `forms`: [`ProviderForms::of`] the pair, where a rule
/// restricts.
fn rule_applies_to_tool(r: &Rule, server: &str, tool: &str, provider_name: &str, forms: &ProviderForms) -> bool {
    let fold = restricts(r);
    tool_matches(&r.pattern, server, tool, fold)
        || (fold
            && (fits(&r.pattern, &format!("mcp__{server}__{tool}"), true)
                || name_matches(&r.pattern, &format!("{server}__{tool}"), true)
                || same(&r.pattern, provider_name, true)
                || (forms.reads_as_own(provider_name) && name_judged(&r.pattern, provider_name, true))
                || forms.names.iter().any(|n| same(&r.pattern, n, true) || (forms.reads_as_own(n) && name_judged(&r.pattern, n, true)))
                || forms.parts.iter().any(|(s, t)| tool_matches(&r.pattern, s, t, true) || (joins_plainly(s) && name_matches(&r.pattern, &format!("{s}__{t}"), true)))))
}

/// What a tool is named for each provider's rule, besides its own `mcp__server__tool`: a rule
/// that restricts is matched against each, so that a deny written from the names one provider
/// sees (`mcp__my_server` for server `my.server`, which Gemini names `mcp__my.server__...`)
/// holds whichever provider the tools were converted for. Never read for an `allow`.
#[derive(Default)]
struct ProviderForms {
    /// `prefixToolName`'s names (the default naming), hash suffix and all.
    names: Vec<String>,
    /// The server and the tool, each sanitised alone: what the names read as before any hash.
    parts: Vec<(String, String)>,
    /// The server's name, and as each provider rule sanitises it.
    servers: Vec<String>,
}

impl ProviderForms {
    fn of(server: &str, tool: &str) -> Self {
        use crate::naming::{prefix_tool_name, sanitize_part, NameRule, NamingOptions};
        let mut forms = Self { servers: vec![server.to_owned()], ..Self::default() };
        let opts = NamingOptions::default();
        for rule in [NameRule::Strict, NameRule::Gemini, NameRule::Portable] {
            let name = prefix_tool_name(Some(server), tool, &opts, rule);
            if !forms.names.contains(&name) {
                forms.names.push(name);
            }
            let part = (sanitize_part(server, rule), sanitize_part(tool, rule));
            if !forms.servers.contains(&part.0) {
                forms.servers.push(part.0.clone());
            }
            if (part.0 != server || part.1 != tool) && !forms.parts.contains(&part) {
                forms.parts.push(part);
            }
        }
        forms
    }

    /// Whether a provider name reads, split at its first `__`, as this server's name (in any of
    /// its forms) or as no server's: `mcp__docs___internal__echo` (server `docs - internal`'s, in
    /// portable names; `a.-b` is `a__b`, `a-` is `a_`) reads as server `docs`'s, and a rule for
    /// `docs` must not stop it; nor does one whose server was cut to fit read as its own. A name
    /// that reads otherwise is matched only by a pattern that writes it out whole.
    fn reads_as_own(&self, name: &str) -> bool {
        match after_mcp(name, true).unwrap_or(name).split_once("__") {
            Some((s, _)) => self.servers.iter().any(|own| own.eq_ignore_ascii_case(s)),
            None => true,
        }
    }
}

/// The keys that make `check`'s second argument an MCP tool rather than its annotations: no
/// annotations object has them.
const TOOL_KEYS: [&str; 5] = ["name", "inputSchema", "outputSchema", "description", "annotations"];

/// The annotations [`Policy::check`] is given, from an MCP tool or from its annotations alone:
/// an object with a tool's keys ([`TOOL_KEYS`]) is a tool, whose hints are those of its
/// `annotations` and none without them (a `readOnlyHint` beside its `name` is no hint of MCP's,
/// and the hub, which reads the listed tool, does not see it); any other object is the
/// annotations themselves.
pub fn annotations_given(v: Value) -> Option<ToolAnnotations> {
    let Value::Object(mut o) = v else { return None };
    if TOOL_KEYS.iter().any(|k| o.contains_key(*k)) {
        return o.remove("annotations").and_then(ToolAnnotations::from_value);
    }
    ToolAnnotations::from_value(Value::Object(o))
}

/// Whether a tool may make destructive changes, as MCP's annotation defaults read it:
/// `destructiveHint` is `true` unless given, and means nothing for a tool whose `readOnlyHint`
/// is `true` (itself `false` unless given). A tool without annotations may.
pub fn may_destroy(annotations: Option<&ToolAnnotations>) -> bool {
    annotations.is_none_or(|a| a.read_only_hint != Some(true) && a.destructive_hint != Some(false))
}

/// Why a pattern could match no tool for a character no tool name holds, which a pattern gets
/// from a list split on `", "`, a value read from a file, or several patterns written as one:
/// a line break or another control character, a comma, white space at either end, an invisible
/// format character (a file's byte order mark, a zero-width space pasted with a name). Such a
/// rule would never apply (a `deny` that seems to guard and does not), as an empty one would not.
fn stray_characters(pattern: &str) -> Option<String> {
    if pattern.chars().any(char::is_control) {
        Some("holds a control character (a line break, a tab), which no tool name holds, and would match no tool".to_owned())
    } else if pattern.contains(',') {
        Some("holds a comma, which no tool name holds, and would match no tool: give each pattern as a string of its own ([\"a\", \"b\"], not \"a, b\")".to_owned())
    } else if pattern.starts_with(char::is_whitespace) || pattern.ends_with(char::is_whitespace) {
        Some("starts or ends with white space, which no tool name does, and would match no tool".to_owned())
    } else {
        // MCP's tool names are letters, digits, `_`, `-` and `.`; one that does hold such a
        // character is still named with a `?` in its place.
        pattern.chars().find(|&c| crate::text::is_format(c)).map(|c| {
            format!(
                "holds the invisible character U+{:04X} (a byte order mark, a zero-width space, a direction mark), which tool names do not hold, and would match no tool (where a name does hold one, write ? in its place)",
                u32::from(c)
            )
        })
    }
}

/// The pattern that allows server `server`'s tool `tool` and no other tool: `mcp__{server}__{tool}`,
/// where that is a pattern the policy takes and no glob. A tool whose name holds `*` or `?`
/// (patterns have no escape for them: `mcp__fs__read*` also allows `read_secrets`), or what a
/// pattern cannot hold (`get (v2)`, `a,b`), has none.
pub fn exact_pattern(server: &str, tool: &str) -> Option<String> {
    let pattern = format!("mcp__{server}__{tool}");
    (!has_glob(&pattern) && Policy::from_value(serde_json::json!({ "allow": [&pattern] })).is_ok()).then_some(pattern)
}

/// Whether a pattern is written as a regular expression (`mcp__db__.*`, `^mcp__`, `a|b`), which
/// as a glob would match no tool name and so never apply.
fn looks_like_regex(pattern: &str) -> bool {
    pattern.starts_with('^')
        || pattern.ends_with('$')
        || pattern.starts_with(".*")
        || pattern.contains("__.*")
        || pattern.contains(".+")
        || pattern.contains(['|', '\\', '(', '[', '{'])
}

/// Whether a rule restricts (`deny`, `ask`): such a rule is matched more widely than an `allow`
/// (letter case ignored, and in the hub the provider's name and the whole name as text too), as
/// one that misses lets a call through that it was written to stop.
fn restricts(rule: &Rule) -> bool {
    rule.action != Action::Allow
}

/// Whether an `allow` rule's `pattern` covers the provider name `name` ([`name_judged`]): as
/// text, exactly or as a glob with `*` and `?`; `mcp__S__T` and `S__T` as server `S`'s tool
/// `T` ([`matches_tool`]), so that `mcp__fs` and `fs__*` cover both `mcp__fs__read` and
/// `fs__read`, and `read_*` covers `mcp__fs__read_file`. An exact tool name covers no longer
/// name: `mcp__fs__read` is not `mcp__fs__read__and_delete_all`.
pub fn matches(pattern: &str, name: &str) -> bool {
    name_judged(pattern, name, false)
}

/// Whether `pattern` covers the provider name `name` as [`Policy::check`] reads it, letter case
/// ignored when `fold` (a rule that restricts). The name as text; a name `mcp__S__T` or `S__T`
/// as server `S`'s tool `T` (`S` up to the first `__`, as no hub server's name holds one), and
/// for a rule that restricts `mcp__S__T` as server `mcp`'s tool `S__T` too (an `allow` must not
/// take that reading: `mcp__mcp` would cover every `mcp__S__T`),
/// matched as [`tool_matches`] matches a known server and tool, so that a rule reads the same
/// in `check` as in the hub wherever the name says the server; and for a rule that restricts,
/// [`name_matches`]'s wider reading of the text (a word as a server: `github` covers
/// `github__x`).
fn name_judged(pattern: &str, name: &str, fold: bool) -> bool {
    // For a rule that restricts, `mcp__S__T` read as `S__T` too: a word (`fs`) covers server `fs`
    // under either naming, as the hub's check reads it.
    if fits(pattern, name, fold) || (fold && (name_matches(pattern, name, true) || after_mcp(name, true).is_some_and(|rest| name_matches(pattern, rest, true)))) {
        return true;
    }
    // `mcp__S__T` reads two ways: server `S`'s tool `T` (naming "mcp"), and server `mcp`'s tool
    // `S__T` (naming "server"). A rule that restricts applies under either; an `allow` only under
    // the first, so that one for server `mcp` (`mcp__mcp`, `mcp__mcp__fs__x`) reaches no other
    // server's tool (`mcp__fs__x`): under `naming: "mcp"` server `mcp`'s tools are `mcp__mcp__*`.
    let mcp = after_mcp(name, fold).and_then(server_and_tool);
    let plain = if fold || mcp.is_none() { server_and_tool(name) } else { None };
    mcp.into_iter().chain(plain).any(|(s, t)| tool_matches(pattern, s, t, fold))
}

/// `S__T` as (`S`, `T`), `S` up to the first `__`, neither empty.
fn server_and_tool(name: &str) -> Option<(&str, &str)> {
    name.split_once("__").filter(|(s, t)| !s.is_empty() && !t.is_empty())
}

/// The text reading of a name, letter case ignored when `fold`: exactly or as a glob; a server
/// pattern `mcp__S` (`S` without `__`, a glob or not) covers every name `mcp__S__...` of that
/// server (`S` read up to the first `__`); and a pattern with no `__` and no glob, `github`,
/// covers `github__*` likewise (the names of `naming: "server"`). Rules that restrict read
/// names so too ([`name_judged`]); an `allow` does not take a word for a server.
fn name_matches(pattern: &str, name: &str, fold: bool) -> bool {
    if fits(pattern, name, fold) {
        return true;
    }
    if let Some(server) = server_pattern(pattern, fold) {
        // `mcp__S__T`: S up to the first `__` (the hub's server names hold none).
        return after_mcp(name, fold).and_then(|rest| rest.split_once("__")).is_some_and(|(s, _)| fits(server, s, fold));
    }
    if pattern.is_empty() || pattern.contains("__") || has_glob(pattern) {
        return false;
    }
    name.split_once("__").is_some_and(|(s, _)| fits(pattern, s, fold))
}

/// The `S` of a server pattern `mcp__S`: `S` not empty and without `__` (`MCP__S` too when
/// `fold`).
fn server_pattern(pattern: &str, fold: bool) -> Option<&str> {
    after_mcp(pattern, fold).filter(|s| !s.is_empty() && !s.contains("__"))
}

/// What follows a leading `mcp__` in `s`, the case of its letters ignored when `fold`: a rule
/// that restricts reads `MCP__fs` as `mcp__fs`, as it reads `MCP__fs__*` as `mcp__fs__*`.
fn after_mcp(s: &str, fold: bool) -> Option<&str> {
    let head = s.get(..5)?;
    (head == "mcp__" || (fold && head.eq_ignore_ascii_case("mcp__"))).then(|| &s[5..])
}

fn has_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?'])
}

/// `pattern` against the whole of `s`: a glob when it holds `*` or `?`, else equality; the case
/// of ASCII letters ignored when `fold`.
fn fits(pattern: &str, s: &str, fold: bool) -> bool {
    if fold {
        return fits(&pattern.to_ascii_lowercase(), &s.to_ascii_lowercase(), false);
    }
    if has_glob(pattern) {
        glob(&pattern.chars().collect::<Vec<_>>(), &s.chars().collect::<Vec<_>>())
    } else {
        pattern == s
    }
}

/// Whether `pattern` covers `tool` of `server` (letter case as given: an `allow`'s reading;
/// [`Policy::check_tool`] reads `deny` and `ask` rules more widely).
///
/// * Every pattern is matched against the whole `mcp__server__tool`, a glob or exactly
///   (`mcp__*delete*`, `*delete*`, `mcp__fs__read`), where that name reads one way only: where
///   the server holds no `__`, as no server of an `McpHub` does.
/// * A pattern `mcp__S` or `mcp__S__T` is also read against the two names separately: `S` must
///   be the server's name (or a glob matching it), and `T`, where given, the tool's; where `S`
///   or `T` could hold `__` (`mcp__a__b__c`), every way to split the pattern is tried (a glob
///   covering a whole server is one without `__`: `mcp__git*`, `mcp__?s`).
/// * A pattern `S__T` without `mcp__` (`github__*`, `github__list_issues`) is `mcp__S__T`, the
///   same tool as `naming: "server"` names it. It is not read against the tool's own name for an
///   `allow`: a server naming its tool `github__delete_repo` would take the allow written for
///   server `github` (a rule that restricts reads it so too, as it can only stop more).
/// * Any other pattern (`delete_file`, `*_file`: no `__`) is also matched against the tool's own
///   name, on whatever server: the name a tool has under `naming: "bare"`, before any hash.
pub fn matches_tool(pattern: &str, server: &str, tool: &str) -> bool {
    tool_matches(pattern, server, tool, false)
}

/// [`matches_tool`], letter case ignored when `fold`. A rule that restricts (`fold`) reads the
/// tool's own name too, whatever the pattern, as it can only stop more: `mcp__github__*` stops a
/// gateway's tool whose own name is `mcp__github__delete_repo`, under every naming.
fn tool_matches(pattern: &str, server: &str, tool: &str, fold: bool) -> bool {
    (fold && fits(pattern, tool, true)) || server_tool_matches(pattern, server, tool, fold)
}

/// [`tool_matches`] without the restricting reading of the tool's own name.
fn server_tool_matches(pattern: &str, server: &str, tool: &str, fold: bool) -> bool {
    let full = || format!("mcp__{server}__{tool}");
    let Some(rest) = after_mcp(pattern, fold) else {
        if fits(pattern, &full(), fold) {
            return true;
        }
        if pattern.contains("__") {
            return server_tool_matches(&format!("mcp__{pattern}"), server, tool, fold);
        }
        return fits(pattern, tool, fold);
    };
    if joins_plainly(server) && fits(pattern, &full(), fold) {
        return true;
    }
    // The whole rest as the server: a glob there only where it cannot also be read as a server
    // and a tool (`mcp__a__*` is every tool of `a`, not every server whose name starts `a__`).
    let whole = if rest.contains("__") { same(rest, server, fold) } else { fits(rest, server, fold) };
    whole || rest.match_indices("__").any(|(i, _)| fits(&rest[..i], server, fold) && fits(&rest[i + 2..], tool, fold))
}

/// Whether `mcp__{server}__{tool}` reads back as `server`'s tool: `server` holds no `__` and
/// does not end with `_` (as no hub server's own name does; a sanitised one may: `a.-b` is `a__b`
/// in portable names, `a-` is `a_`).
fn joins_plainly(server: &str) -> bool {
    !server.contains("__") && !server.ends_with('_')
}

/// `a == b`, letter case ignored when `fold` (a `*` or `?` in `a` is itself).
fn same(a: &str, b: &str, fold: bool) -> bool {
    if fold {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

/// Iterative glob matching over characters (no recursion, linear backtracking on the last `*`);
/// `?` is one character, whatever its UTF-8 length.
fn glob(p: &[char], s: &[char]) -> bool {
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, si));
            pi += 1;
        } else if let Some((sp, ss)) = star {
            pi = sp + 1;
            si = ss + 1;
            star = Some((sp, ss + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `denied_by` says what denies a tool exactly when `check_tool` denies it: the first deny
    /// rule that matches, or the default action where no rule does.
    #[test]
    fn denied_by_names_the_rule_or_the_default() {
        let p = Policy::from_value(json!({"rules": [{"pattern": "*wipe*", "action": "deny"}], "deny": ["mcp__fs__delete*"], "allow": ["mcp__fs__read"], "ask": ["mcp__fs__write"], "defaultAction": "deny", "askDestructive": true})).unwrap();
        let cases = [
            ("delete_all", Some(DeniedBy::Rule("mcp__fs__delete*".into()))),
            ("delete_wipe", Some(DeniedBy::Rule("*wipe*".into()))),
            ("rm", Some(DeniedBy::DefaultAction)),
            ("read", None),
            ("write", None),
        ];
        for (tool, by) in cases {
            let name = format!("mcp__fs__{tool}");
            assert_eq!(p.denied_by("fs", tool, &name), by, "{tool}");
            assert_eq!(p.check_tool("fs", tool, &name, None) == Action::Deny, by.is_some(), "{tool}");
        }
        // A deny written against the provider's name only.
        let p = Policy::from_value(json!({"deny": ["x_fs_rm"], "defaultAction": "allow"})).unwrap();
        assert_eq!(p.denied_by("fs", "rm", "x_fs_rm"), Some(DeniedBy::Rule("x_fs_rm".into())));
        assert_eq!(p.denied_by("fs", "rm", "mcp__fs__rm"), None);
        assert!(!Policy::from_value(json!({"ask": ["*"], "allow": ["mcp__fs"]})).unwrap().may_deny());
    }

    #[test]
    fn patterns() {
        assert!(matches("mcp__github__*", "mcp__github__create_issue"));
        assert!(matches("mcp__github", "mcp__github__create_issue"));
        assert!(!matches("mcp__github", "mcp__github2__x"));
        assert!(matches("*delete*", "mcp__fs__delete_file"));
        assert!(matches("mcp__?s__read", "mcp__fs__read"));
        assert!(!matches("mcp__github__*", "mcp__gitlab__x"));
    }

    /// A name a model called inside a namespace, which a name map resolves to the tool, meets
    /// that tool's rules (it met none, and took the default action).
    #[test]
    fn a_name_inside_a_models_namespace_meets_the_tools_rules() {
        let p = Policy::from_value(json!({"deny":["mcp__fs__delete_all"],"ask":["mcp__fs"],"defaultAction":"allow"})).unwrap();
        for name in ["functions.mcp__fs__delete_all", "functions/mcp__fs__delete_all", "default_api.mcp__fs__delete_all", "default_api:mcp__fs__delete_all"] {
            assert_eq!(p.check(name, None), Action::Deny, "{name}");
        }
        assert_eq!(p.check("functions.mcp__fs__read", None), Action::Ask);
        assert_eq!(p.check("functions.mcp__web__get", None), Action::Allow);
        assert_eq!(p.check("tools.mcp__fs__delete_all", None), Action::Allow, "not a namespace a map looks past");
    }

    /// A name inside a namespace whose whole form a provider takes as a tool's (Gemini's names
    /// hold `.` and `:`) is judged as both names, each with its default action, the most
    /// restrictive winning: another server's tool `functions.read` does not get `read`'s allow.
    #[test]
    fn a_namespaced_name_gets_the_most_restrictive_decision() {
        let allow = Policy::from_value(json!({"allow": ["read"], "defaultAction": "deny"})).unwrap();
        assert_eq!(allow.check("read", None), Action::Allow);
        for name in ["functions.read", "default_api.read", "default_api:read"] {
            assert_eq!(allow.check(name, None), Action::Deny, "{name}");
        }
        assert_eq!(allow.check("functions/read", None), Action::Allow, "no provider's name holds a `/`: only read");
        let both = Policy::from_value(json!({"allow": ["read", "functions.read"], "defaultAction": "deny"})).unwrap();
        assert_eq!(both.check("functions.read", None), Action::Allow);
        let deny = Policy::from_value(json!({"deny": ["read"], "defaultAction": "allow"})).unwrap();
        assert_eq!(deny.check("functions.read", None), Action::Deny);
        assert_eq!(deny.check("functions/read", None), Action::Deny);
    }

    /// A pattern `S__T` without `mcp__` is server `S`'s tool `T` (`naming: "server"`'s name), in
    /// the hub and in `check` alike: another server's tool whose own name starts `S__` does not
    /// get its allow (it did in the hub, where server `S`'s own tools did not).
    #[test]
    fn a_server_tool_pattern_is_that_servers_in_check_and_in_the_hub() {
        let p = Policy::from_value(json!({"allow": ["github__*"], "defaultAction": "deny"})).unwrap();
        for provider_name in ["github__list_issues", "mcp__github__list_issues", "list_issues"] {
            assert_eq!(p.check_tool("github", "list_issues", provider_name, None), Action::Allow, "{provider_name}");
        }
        for provider_name in ["evil__github__delete_repo", "mcp__evil__github__delete_repo", "github__delete_repo"] {
            assert_eq!(p.check_tool("evil", "github__delete_repo", provider_name, None), Action::Deny, "{provider_name}");
        }
        for (name, want) in [("github__list_issues", Action::Allow), ("mcp__github__list_issues", Action::Allow), ("evil__github__delete_repo", Action::Deny), ("mcp__evil__github__delete_repo", Action::Deny)] {
            assert_eq!(p.check(name, None), want, "{name}");
        }
        let exact = Policy::from_value(json!({"allow": ["github__list_issues"], "defaultAction": "deny"})).unwrap();
        assert_eq!(exact.check_tool("github", "list_issues", "list_issues", None), Action::Allow);
        assert_eq!(exact.check_tool("evil", "github__list_issues", "github__list_issues_1a2b3c4d", None), Action::Deny);
        // A rule that restricts reads the tool's own name too: it can only stop more.
        let deny = Policy::from_value(json!({"deny": ["github__delete_repo"], "defaultAction": "allow"})).unwrap();
        assert_eq!(deny.check_tool("github", "delete_repo", "mcp__github__delete_repo", None), Action::Deny);
        assert_eq!(deny.check_tool("evil", "github__delete_repo", "mcp__evil__github__delete_repo", None), Action::Deny);
        // So does one written `mcp__S__T`, or a glob of it, against a gateway's tool whose own name
        // is `mcp__github__delete_repo`, whatever naming the provider sees; an allow does not.
        for (pattern, action) in [("mcp__github__delete_repo", "deny"), ("MCP__GitHub__*", "deny"), ("mcp__github__delete_repo", "ask")] {
            let p = Policy::from_value(json!({action: [pattern], "defaultAction": "allow"})).unwrap();
            let want = if action == "deny" { Action::Deny } else { Action::Ask };
            for provider_name in ["mcp__gw__mcp__github__delete_repo", "gw__mcp__github__delete_repo", "mcp__github__delete_repo", "mcp__gw__mcp__github__delete_repo_1a2b3c4d"] {
                assert_eq!(p.check_tool("gw", "mcp__github__delete_repo", provider_name, None), want, "{action} {pattern} {provider_name}");
            }
            assert_eq!(p.check("mcp__gw__mcp__github__delete_repo", None), want, "{action} {pattern}");
            assert_eq!(p.check("gw__mcp__github__delete_repo", None), want, "{action} {pattern}");
            assert_eq!(p.check_tool("gw", "github__delete_repo", "mcp__gw__github__delete_repo", None), Action::Allow, "{action} {pattern}");
        }
        let allow = Policy::from_value(json!({"allow": ["mcp__github__delete_repo"], "defaultAction": "deny"})).unwrap();
        assert_eq!(allow.check_tool("gw", "mcp__github__delete_repo", "mcp__gw__mcp__github__delete_repo", None), Action::Deny);
        assert_eq!(allow.check_tool("github", "delete_repo", "delete_repo", None), Action::Allow);
        // `mcp__fs` and `fs__*` are one rule, whichever form the name has.
        for pattern in ["mcp__fs", "fs__*", "mcp__fs__*"] {
            let p = Policy::from_value(json!({"allow": [pattern], "defaultAction": "deny"})).unwrap();
            for (name, want) in [("fs__read", Action::Allow), ("mcp__fs__read", Action::Allow), ("evil__fs__read", Action::Deny), ("mcp__evil__fs__read", Action::Deny)] {
                assert_eq!(p.check(name, None), want, "{pattern} {name}");
            }
            assert_eq!(p.check_tool("fs", "read", "read", None), Action::Allow, "{pattern}");
            assert_eq!(p.check_tool("evil", "fs__read", "fs__read", None), Action::Deny, "{pattern}");
        }
        // A word is a tool's own name for an allow, in both; a restricting word also covers the
        // server of that name, in both.
        let word = Policy::from_value(json!({"allow": ["github"], "defaultAction": "deny"})).unwrap();
        assert_eq!(word.check("github__list_issues", None), Action::Deny);
        assert_eq!(word.check_tool("github", "list_issues", "github__list_issues", None), Action::Deny);
        assert_eq!(word.check("evil__github", None), Action::Allow);
        assert_eq!(word.check_tool("evil", "github", "evil__github", None), Action::Allow);
        let deny_word = Policy::from_value(json!({"deny": ["github"], "defaultAction": "allow"})).unwrap();
        assert_eq!(deny_word.check("github__x", None), Action::Deny);
        assert_eq!(deny_word.check_tool("github", "x", "mcp__github__x", None), Action::Deny);
        // Under the default naming too, as the hub reads it (s22d F2); an ask word likewise.
        assert_eq!(deny_word.check("mcp__github__x", None), Action::Deny);
        assert_eq!(deny_word.check("MCP__GitHub__x", None), Action::Deny);
        let ask_word = Policy::from_value(json!({"ask": ["db"], "defaultAction": "allow"})).unwrap();
        assert_eq!(ask_word.check("mcp__db__query", None), Action::Ask);
        assert_eq!(ask_word.check("mcp__dbx__query", None), Action::Allow);
        // A tool-name glob is the tool's own name whichever server the name holds.
        let read = Policy::from_value(json!({"allow": ["read_*"], "defaultAction": "deny"})).unwrap();
        assert_eq!(read.check("mcp__fs__read_file", None), Action::Allow);
        assert_eq!(read.check_tool("fs", "read_file", "mcp__fs__read_file", None), Action::Allow);
    }

    /// A pattern with a character no tool name holds (stray white space, a line break, several
    /// patterns joined by commas) is refused, as an empty one is: it was kept and never matched.
    #[test]
    fn a_pattern_with_stray_characters_is_refused() {
        let control = "holds a control character (a line break, a tab), which no tool name holds, and would match no tool";
        let comma = "holds a comma, which no tool name holds, and would match no tool: give each pattern as a string of its own ([\"a\", \"b\"], not \"a, b\")";
        let space = "starts or ends with white space, which no tool name does, and would match no tool";
        for (pattern, why) in [
            (" mcp__fs__*", space),
            ("mcp__fs__* ", space),
            ("\u{a0}mcp__fs", space),
            ("mcp__fs__*\n", control),
            ("mcp__fs\t", control),
            ("mcp__db__*, mcp__fs__*", comma),
            ("mcp__db__*,mcp__fs__*", comma),
        ] {
            for config in [json!({"deny": [pattern]}), json!({"rules": [{"pattern": pattern, "action": "allow"}]})] {
                let e = Policy::from_value(config).unwrap_err();
                assert_eq!((e.code, e.message), (ErrorCode::InvalidOptions, format!("invalid permission policy: the pattern {} {why}", crate::text::quote(pattern))));
            }
        }
        // An invisible format character, anywhere: a file's byte order mark, a pasted zero-width
        // space, a direction mark.
        for (pattern, code) in [("\u{feff}mcp__fs", "FEFF"), ("mcp__fs\u{200b}", "200B"), ("mcp__\u{2060}fs", "2060"), ("mcp__fs__re\u{202e}ad", "202E"), ("mcp__f\u{ad}s", "00AD")] {
            let e = Policy::from_value(json!({"deny": [pattern]})).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidOptions, "{pattern:?}");
            assert!(e.message.contains(&format!("holds the invisible character U+{code} (a byte order mark")), "{}", e.message);
            assert!(e.message.ends_with("(where a name does hold one, write ? in its place)"), "{}", e.message);
        }
        for (pattern, code) in [("mcp__fs\u{200e}", "200E"), ("mcp__\u{2066}fs", "2066"), ("mcp__f\u{2064}s", "2064"), ("mcp__f\u{202a}s", "202A")] {
            let e = Policy::from_value(json!({"deny": [pattern]})).unwrap_err();
            assert!(e.message.contains(&format!("holds the invisible character U+{code} (a byte order mark")), "{}", e.message);
        }
        // A space inside is a name's (a hub server may be named so).
        let p = Policy::from_value(json!({"deny": ["mcp__my server"], "defaultAction": "allow"})).unwrap();
        assert_eq!(p.check_tool("my server", "x", "mcp__my_server__x", None), Action::Deny);
    }

    /// The joiners a word or an emoji is written with (Persian's U+200C, an emoji's U+200D) and
    /// variation selectors are a name's own: a pattern holding them is taken and names that
    /// server exactly.
    #[test]
    fn a_pattern_holding_a_joiner_names_the_server_spelt_with_it() {
        for server in ["\u{641}\u{627}\u{6cc}\u{644}\u{200c}\u{647}\u{627}", "\u{1f468}\u{200d}\u{1f4bb} dev", "\u{915}\u{94d}\u{200d}\u{937}", "\u{2764}\u{fe0f} fav"] {
            let p = Policy::from_value(json!({"deny": [format!("mcp__{server}")], "defaultAction": "allow"})).unwrap();
            assert_eq!(p.check_tool(server, "t", &format!("mcp__{server}__t"), None), Action::Deny, "{server:?}");
            assert_eq!(p.check_tool(&format!("{server}x"), "t", &format!("mcp__{server}x__t"), None), Action::Allow, "{server:?}");
            assert_eq!(p.check_tool("other", "t", "mcp__other__t", None), Action::Allow, "{server:?}");
        }
    }

    /// A deny written from one provider's names holds for every provider's: `mcp__my_server`
    /// (OpenAI's, Anthropic's) for server `my.server` holds where Gemini names it
    /// `mcp__my.server__wipe`, as does a name with its hash; `mcp__my_server_x` (the portable
    /// form of `my-server-x`) holds for OpenAI's `mcp__my-server-x__...`. An allow is read as
    /// before: only against the tool's own names.
    #[test]
    fn a_restricting_rule_written_from_any_providers_names_holds_for_all() {
        let openai = crate::naming::prefix_tool_name(Some("my.server"), "wipe", &crate::naming::NamingOptions::default(), crate::naming::NameRule::Strict);
        assert!(openai.starts_with("mcp__my_server__wipe_"), "{openai}");
        for pattern in ["mcp__my_server", "mcp__my_server__*", "mcp__my_server__wipe", openai.as_str(), "my_server", "my_server__wipe", "MCP__MY_SERVER"] {
            let p = Policy::from_value(json!({"deny": [pattern], "defaultAction": "allow"})).unwrap();
            for provider_name in ["mcp__my.server__wipe", openai.as_str()] {
                assert_eq!(p.check_tool("my.server", "wipe", provider_name, None), Action::Deny, "{pattern} / {provider_name}");
            }
            assert_eq!(p.check_tool("other", "wipe", "mcp__other__wipe", None), Action::Allow, "{pattern}");
        }
        let portable = Policy::from_value(json!({"ask": ["mcp__my_server_x"], "defaultAction": "allow"})).unwrap();
        assert_eq!(portable.check_tool("my-server-x", "wipe", "mcp__my-server-x__wipe", None), Action::Ask);
        let allow = Policy::from_value(json!({"allow": ["mcp__my_server"], "defaultAction": "deny"})).unwrap();
        assert_eq!(allow.check_tool("my.server", "wipe", "mcp__my.server__wipe", None), Action::Deny);
        assert_eq!(allow.check_tool("my.server", "wipe", &openai, None), Action::Deny);
    }

    /// A rule naming one server restricts that server only, though the provider forms of another
    /// server's name start with it and `__` once sanitised (`docs - internal` is
    /// `docs___internal` in portable names, `a.-b` is `a__b`, `a-` is `a_`): the forms are read
    /// with their server known, never split again at the first `__`. An allow widens nothing.
    #[test]
    fn a_rule_for_one_server_restricts_no_server_whose_sanitised_name_starts_with_it() {
        let pairs = [("docs", "docs - internal"), ("a", "a - b"), ("a", "a.-b"), ("a", "a._b"), ("a", "a _b"), ("a", "a-"), ("a", "a."), ("a.b", "a_b"), ("x", "x.y"), ("x", "x-_y")];
        for (named, other) in pairs {
            for pattern in [format!("mcp__{named}"), format!("mcp__{named}__*"), format!("MCP__{named}"), named.to_owned(), format!("{named}__*"), format!("mcp__{named}__echo")] {
                let p = Policy::from_value(json!({"deny": [&pattern], "ask": [&pattern], "allow": [format!("mcp__{other}")], "defaultAction": "allow"})).unwrap();
                for rule in [crate::naming::NameRule::Strict, crate::naming::NameRule::Gemini, crate::naming::NameRule::Portable] {
                    let name = crate::naming::prefix_tool_name(Some(other), "echo", &crate::naming::NamingOptions::default(), rule);
                    assert_eq!(p.check_tool(other, "echo", &name, None), Action::Allow, "{pattern} / {other:?} as {name}");
                }
                let own = crate::naming::prefix_tool_name(Some(named), "echo", &crate::naming::NamingOptions::default(), crate::naming::NameRule::Strict);
                assert_eq!(p.check_tool(named, "echo", &own, None), Action::Deny, "{pattern} / {named:?}");
            }
        }
        // The review's case: deny mcp__docs beside an allow of "docs - internal".
        let p = Policy::from_value(json!({"allow": ["mcp__docs - internal"], "deny": ["mcp__docs__*"], "defaultAction": "deny"})).unwrap();
        assert_eq!(p.check_tool("docs - internal", "echo", "mcp__docs_-_internal__echo_rnsmf4ga", None), Action::Allow);
        assert_eq!(p.check_tool("docs", "echo", "mcp__docs__echo", None), Action::Deny);
        // A deny written from another provider's form of the other server still holds for it.
        for pattern in ["mcp__docs___internal", "mcp__docs___internal__*", "mcp__docs_-_internal__echo"] {
            let p = Policy::from_value(json!({"deny": [pattern], "defaultAction": "allow"})).unwrap();
            assert_eq!(p.check_tool("docs - internal", "echo", "mcp__docs_-_internal__echo_rnsmf4ga", None), Action::Deny, "{pattern}");
            assert_eq!(p.check_tool("docs", "echo", "mcp__docs__echo", None), Action::Allow, "{pattern}");
        }
    }

    /// The exact pattern of a tool allows that tool alone; a tool whose name is a glob, or what a
    /// pattern cannot hold, has none.
    #[test]
    fn exact_pattern_is_one_for_that_tool_only() {
        assert_eq!(exact_pattern("fs", "read").as_deref(), Some("mcp__fs__read"));
        assert_eq!(exact_pattern("fs", "a__b").as_deref(), Some("mcp__fs__a__b"));
        for tool in ["*", "read*", "r?ad", "get (v2)", "a,b", "x ", "x__", "re\u{200b}ad", "a|b"] {
            assert_eq!(exact_pattern("fs", tool), None, "{tool:?}");
        }
    }

    /// `check`'s second argument: a tool's hints are its `annotations` only (a hint beside its
    /// `name` is none, as the hub reads the listed tool); an object of no tool's keys is the
    /// annotations themselves.
    #[test]
    fn a_tools_hints_are_its_annotations_only() {
        let read_only = |v: Value| annotations_given(v).and_then(|a| a.read_only_hint);
        assert_eq!(read_only(json!({"name": "wipe_disk", "inputSchema": {"type": "object"}, "readOnlyHint": true})), None);
        assert!(annotations_given(json!({"name": "wipe_disk", "readOnlyHint": true})).is_none());
        assert!(annotations_given(json!({"inputSchema": {}, "readOnlyHint": true})).is_none());
        assert!(annotations_given(json!({"name": "t", "annotations": null})).is_none());
        assert_eq!(read_only(json!({"name": "t", "annotations": {"readOnlyHint": true}})), Some(true));
        assert_eq!(read_only(json!({"readOnlyHint": true})), Some(true));
        assert_eq!(read_only(json!({"title": "Read", "readOnlyHint": true})), Some(true));
        assert!(annotations_given(Value::Null).is_none());
        let p = Policy::from_value(json!({"defaultAction": "allow", "askDestructive": true})).unwrap();
        assert_eq!(p.check("mcp__fs__wipe_disk", annotations_given(json!({"name": "wipe_disk", "readOnlyHint": true})).as_ref()), Action::Ask);
    }

    #[test]
    fn a_hint_that_is_not_a_boolean_counts_as_not_given() {
        // `"false"` read as false would let a call through unasked; it asks, as no hint does.
        let p = Policy::from_value(json!({"allow": ["*"], "askDestructive": true})).unwrap();
        for hint in [json!({"destructiveHint": "false"}), json!({"readOnlyHint": "true"}), json!({"readOnlyHint": 1}), json!({"destructiveHint": null})] {
            let a = annotations_given(json!({"name": "t", "annotations": hint.clone()}));
            assert_eq!(p.check("mcp__s__t", a.as_ref()), Action::Ask, "{hint}");
        }
        let a = annotations_given(json!({"name": "t", "annotations": {"destructiveHint": "false", "readOnlyHint": "true"}})).unwrap();
        assert_eq!((a.destructive_hint, a.read_only_hint), (None, None));
        // Kept as given, for what reads the annotations back.
        assert_eq!((a.extra.get("destructiveHint"), a.extra.get("readOnlyHint")), (Some(&json!("false")), Some(&json!("true"))));
        assert_eq!(p.check("mcp__s__t", annotations_given(json!({"annotations": {"destructiveHint": false}})).as_ref()), Action::Allow);
    }

    #[test]
    fn precedence_default_and_destructive() {
        let p = Policy::from_value(json!({"allow":["mcp__github__*"],"deny":["mcp__github__delete_repo"],"ask":["*push*"],"askDestructive":true})).unwrap();
        let hints = |read_only: Option<bool>, destructive: Option<bool>| ToolAnnotations { read_only_hint: read_only, destructive_hint: destructive, ..ToolAnnotations::default() };
        let read_only = hints(Some(true), None);
        assert_eq!(p.check("mcp__github__list", Some(&read_only)), Action::Allow);
        assert_eq!(p.check("mcp__github__delete_repo", Some(&read_only)), Action::Deny);
        assert_eq!(p.check("mcp__github__push_files", Some(&read_only)), Action::Ask);
        assert_eq!(p.check("mcp__other__x", Some(&read_only)), Action::Ask, "read-only hints never allow");
        // MCP's defaults: destructive unless read-only or said not to be; no annotations, the same.
        for (a, asks) in [
            (None, true),
            (Some(hints(None, None)), true),
            (Some(hints(Some(false), None)), true),
            (Some(hints(None, Some(true))), true),
            (Some(hints(Some(false), Some(false))), false),
            (Some(hints(None, Some(false))), false),
            (Some(hints(Some(true), Some(true))), false),
        ] {
            let want = if asks { Action::Ask } else { Action::Allow };
            assert_eq!(p.check("mcp__github__update", a.as_ref()), want, "{a:?}");
        }
        let no_ask = Policy::from_value(json!({"allow":["mcp__github__*"]})).unwrap();
        assert_eq!(no_ask.check("mcp__github__update", None), Action::Allow);
        let allow_all = Policy::from_value(json!({"defaultAction":"allow"})).unwrap();
        assert_eq!(allow_all.check("x", None), Action::Allow);
        assert_eq!(Policy::from_value(json!({"rules":[{"pattern":"x","action":"maybe"}]})).unwrap_err().code, ErrorCode::InvalidOptions);
    }

    #[test]
    fn a_known_server_and_tool_are_matched_as_themselves() {
        // The server and the tool, not a prefix of the text.
        assert!(matches_tool("mcp__a", "a", "x"));
        assert!(!matches_tool("mcp__a", "a__b", "x"));
        assert!(matches_tool("mcp__a__b", "a__b", "x"));
        assert!(matches_tool("mcp__a__b", "a", "b"));
        assert!(!matches_tool("mcp__a__b", "a", "b__c"));
        assert!(matches_tool("mcp__a__b__c", "a", "b__c"));
        assert!(matches_tool("mcp__a__b__c", "a__b", "c"));
        // Globs, on either side of the split.
        assert!(matches_tool("mcp__fs__*", "fs", "wipe_disk"));
        assert!(!matches_tool("mcp__a__*", "a__b", "x"), "a glob on the tool does not reach into the server");
        assert!(matches_tool("mcp__git*", "github", "x"));
        assert!(matches_tool("mcp__*__delete", "anything", "delete"));
        assert!(matches_tool("*delete*", "fs", "delete_file"));
        assert!(!matches_tool("*delete*", "fs", "read"));
        // Names no provider takes as they are: the rule says the server's own name.
        assert!(matches_tool("mcp__my.server", "my.server", "wipe_disk"));
        let long = "s".repeat(80);
        assert!(matches_tool(&format!("mcp__{long}"), &long, "x"));
    }

    #[test]
    fn the_hub_decides_by_server_and_tool_whatever_the_provider_name() {
        let deny = Policy::from_value(json!({"deny": ["mcp__fs"], "defaultAction": "allow"})).unwrap();
        // The naming formats, a prefix, a separator, a sanitised and a shortened name: all fs's.
        for provider_name in ["mcp__fs__wipe_disk", "fs__wipe_disk", "x__fs__wipe_disk", "mcp-fs-wipe_disk", "wipe_disk"] {
            assert_eq!(deny.check_tool("fs", "wipe_disk", provider_name, None), Action::Deny, "{provider_name}");
        }
        let dotted = Policy::from_value(json!({"deny": ["mcp__my.server"], "defaultAction": "allow"})).unwrap();
        assert_eq!(dotted.check_tool("my.server", "wipe_disk", "mcp__my_server__wipe_disk_l3uk7ybs", None), Action::Deny);
        // An allow of server `a` does not run server `a__b`'s tools.
        let allow = Policy::from_value(json!({"allow": ["mcp__a"], "defaultAction": "deny"})).unwrap();
        assert_eq!(allow.check_tool("a", "wipe_disk", "mcp__a__wipe_disk", None), Action::Allow);
        assert_eq!(allow.check_tool("a__b", "wipe_disk", "mcp__a__b__wipe_disk", None), Action::Deny);
        // A restricting rule written against the provider's name still holds; an allowing one
        // does not stand in for the server's own name: `fs__*` is server fs's, whatever
        // another server's tool the provider name `fs__t` may be under `naming: "bare"`.
        let by_provider_name = Policy::from_value(json!({"deny": ["mcp__my_server"], "allow": ["fs__*"], "defaultAction": "ask"})).unwrap();
        assert_eq!(by_provider_name.check_tool("my.server", "t", "mcp__my_server__t", None), Action::Deny);
        assert_eq!(by_provider_name.check_tool("fs", "t", "fs__t", None), Action::Allow);
        assert_eq!(by_provider_name.check_tool("other", "fs__t", "fs__t", None), Action::Ask);
    }

    /// A glob over the whole `mcp__server__tool` (`mcp__*delete*`, with no `__` after the
    /// prefix) applies in the hub whatever name the provider saw: another naming format, a
    /// prefix, a bare name, a name shortened past the matched part. It once was read against the
    /// server's name only, and so held only while the provider name was the raw one.
    #[test]
    fn a_glob_over_the_whole_name_holds_whatever_the_provider_name() {
        let long = "bulk_update_records_in_every_table_and_then_delete_the_rest";
        for (rule, action) in [("deny", Action::Deny), ("ask", Action::Ask)] {
            let p = Policy::from_value(json!({rule: ["mcp__*delete*", "mcp__*_wipe"], "defaultAction": "allow"})).unwrap();
            assert_eq!(p.check("mcp__fs__delete_file", None), action);
            for provider_name in ["mcp__fs__delete_file", "fs__delete_file", "delete_file", "x__fs__delete_file", "delete_file_71h514bx", "tmcp_fs_delete_file"] {
                assert_eq!(p.check_tool("fs", "delete_file", provider_name, None), action, "{rule} {provider_name}");
            }
            assert_eq!(p.check_tool("fs", long, "mcp__fs__bulk_update_records_in_every_table_and_then_de_6u8bx54p", None), action, "shortened");
            assert_eq!(p.check_tool("fs", "disk_wipe", "disk_wipe", None), action);
            assert_eq!(p.check_tool("fs", "read", "read", None), Action::Allow);
        }
        // An allow glob over the whole name allows, as it reads.
        let allow = Policy::from_value(json!({"allow": ["mcp__*_read"], "defaultAction": "deny"})).unwrap();
        assert_eq!(allow.check_tool("fs", "file_read", "file_read", None), Action::Allow);
        assert_eq!(allow.check_tool("fs", "file_write", "file_read", None), Action::Deny, "an allow never comes from the provider name");
        assert!(matches_tool("mcp__*delete*", "fs", "delete_file"));
        assert!(matches_tool("mcp__fs__delete_file", "fs", "delete_file"));
    }

    /// Rules that restrict ignore letter case (`*delete*` stops `DeleteFile`), in the hub and in
    /// `check`; an allow does not (`mcp__fs__read` does not allow `READ`).
    #[test]
    fn restricting_rules_ignore_letter_case() {
        let p = Policy::from_value(json!({"deny": ["*delete*", "mcp__DB"], "ask": ["mcp__fs__Wipe"], "allow": ["mcp__fs__read"], "defaultAction": "deny"})).unwrap();
        assert_eq!(p.check_tool("fs", "DeleteFile", "mcp__fs__DeleteFile", None), Action::Deny);
        assert_eq!(p.check_tool("db", "query", "mcp__db__query", None), Action::Deny);
        assert_eq!(p.check_tool("fs", "wipe", "wipe", None), Action::Ask);
        assert_eq!(p.check("mcp__fs__DELETE_ALL", None), Action::Deny);
        assert_eq!(p.check("mcp__db__query", None), Action::Deny);
        assert_eq!(p.check_tool("fs", "read", "read", None), Action::Allow);
        assert_eq!(p.check_tool("fs", "READ", "READ", None), Action::Deny, "the default; the allow is for read");
        assert_eq!(p.check("mcp__fs__READ", None), Action::Deny);
        // `?` is one character, whatever its length in UTF-8.
        assert!(matches_tool("mcp__?s__read", "\u{e9}s", "read"));
        assert!(matches("mcp__?s__*", "mcp__\u{1f600}s__read"));
    }

    /// The `mcp__` of a rule that restricts ignores case as the rest of it does: `MCP__fs` is
    /// `mcp__fs` (it matched nothing), in the hub and in `check`, and a name `MCP__fs__x` is
    /// server `fs`'s tool `x` to it; an allow's `MCP__fs` is still no `mcp__fs`.
    #[test]
    fn the_mcp_prefix_of_a_restricting_rule_ignores_letter_case() {
        for pattern in ["MCP__fs", "Mcp__fs", "MCP__f?", "mcp__FS"] {
            for action in ["deny", "ask"] {
                let p = Policy::from_value(json!({action: [pattern], "defaultAction": "allow"})).unwrap();
                let want = if action == "deny" { Action::Deny } else { Action::Ask };
                assert_eq!(p.check_tool("fs", "delete", "mcp__fs__delete", None), want, "{action} {pattern}");
                assert_eq!(p.check("mcp__fs__delete", None), want, "{action} {pattern}");
                assert_eq!(p.check("MCP__fs__delete", None), want, "{action} {pattern}");
                assert_eq!(p.check_tool("fsx", "delete", "mcp__fsx__delete", None), Action::Allow, "{action} {pattern}");
            }
        }
        let deny = Policy::from_value(json!({"deny": ["mcp__fs"], "defaultAction": "allow"})).unwrap();
        assert_eq!(deny.check("MCP__fs__delete", None), Action::Deny);
        assert_eq!(deny.check("MCP__fsx__delete", None), Action::Allow);
        let allow = Policy::from_value(json!({"allow": ["MCP__fs"], "defaultAction": "deny"})).unwrap();
        assert_eq!(allow.check_tool("fs", "read", "mcp__fs__read", None), Action::Deny);
        assert_eq!(allow.check("mcp__fs__read", None), Action::Deny);
    }

    /// An exact tool name is that name, not a prefix: `mcp__fs__read` does not cover
    /// `mcp__fs__read__and_delete_all` (only a server, `mcp__fs`, covers the names under it).
    #[test]
    fn an_exact_tool_name_is_no_prefix() {
        let allow = Policy::from_value(json!({"allow": ["mcp__fs__read"], "defaultAction": "deny"})).unwrap();
        assert_eq!(allow.check("mcp__fs__read", None), Action::Allow);
        assert_eq!(allow.check("mcp__fs__read__and_delete_all", None), Action::Deny);
        assert_eq!(allow.check_tool("fs", "read__and_delete_all", "mcp__fs__read__and_delete_all", None), Action::Deny);
        let deny = Policy::from_value(json!({"deny": ["mcp__fs__x"], "defaultAction": "allow"})).unwrap();
        assert_eq!(deny.check("mcp__fs__x__y", None), Action::Allow);
        assert_eq!(deny.check_tool("fs", "x__y", "mcp__fs__x__y", None), Action::Allow);
        assert!(!matches("mcp__fs__read", "mcp__fs__read__x"));
        // A server covers its names, exactly or as a glob; a word covers `word__*` (naming "server").
        assert!(matches("mcp__fs", "mcp__fs__read__x"));
        assert!(matches("mcp__?s", "mcp__fs__read"));
        assert!(!matches("mcp__?s", "mcp__fsx__read"));
        assert!(!matches("fs", "fs__read"), "an allow's word is a tool's name, not a server's");
        assert!(name_judged("fs", "fs__read", true), "a restricting word covers the server too");
        assert!(matches("fs__*", "fs__read") && matches("fs__*", "mcp__fs__read") && matches("mcp__fs", "fs__read"));
        assert!(!matches("fs__read", "fs__read__x"));
    }

    /// A pattern that would match no tool (ending with `__`, or empty) is refused, not kept as a
    /// rule that seems to guard and never applies.
    #[test]
    fn a_pattern_that_matches_nothing_is_refused() {
        for (pattern, said) in [
            ("mcp__fs__", "the pattern \"mcp__fs__\" ends with \"__\", and would match no tool: write \"mcp__fs\" (or \"mcp__fs__*\") for every tool of server \"fs\", or the tool's whole name"),
            ("mcp__", "the pattern \"mcp__\" ends with \"__\", and would match no tool: write \"mcp__*\" for every name that starts so, or the tool's whole name"),
            ("", "a pattern is empty, and would match no tool"),
        ] {
            for config in [json!({"deny": [pattern]}), json!({"rules": [{"pattern": pattern, "action": "allow"}]})] {
                let e = Policy::from_value(config).unwrap_err();
                assert_eq!((e.code, e.message.as_str()), (ErrorCode::InvalidOptions, format!("invalid permission policy: {said}").as_str()));
            }
        }
        assert!(Policy::from_value(json!({"deny": ["mcp__fs__*", "*__"]})).is_ok(), "a glob may end so");
        // `mcp__fs___` is server fs's tool `_` (no hub server's name ends with `_`).
        let p = Policy::from_value(json!({"deny": ["mcp__fs___"], "defaultAction": "allow"})).unwrap();
        assert_eq!(p.check_tool("fs", "_", "mcp__fs___", None), Action::Deny);
        assert_eq!(p.check_tool("fs", "x", "mcp__fs__x", None), Action::Allow);
    }

    /// A pattern without `mcp__` that is no glob over the whole name is the tool's own name on
    /// any server (what `naming: "bare"` shows): a second server listing the tool (which hashes
    /// both bare names) does not take it out of the rule.
    #[test]
    fn a_bare_pattern_is_the_tool_on_any_server() {
        let p = Policy::from_value(json!({"deny": ["delete_file"], "allow": ["read_*"], "defaultAction": "ask"})).unwrap();
        for (server, provider_name) in [("fs", "delete_file"), ("fs", "delete_file_71h514bx"), ("backup", "delete_file_5ztod79e"), ("fs", "mcp__fs__delete_file")] {
            assert_eq!(p.check_tool(server, "delete_file", provider_name, None), Action::Deny, "{server} {provider_name}");
        }
        assert_eq!(p.check_tool("fs", "read_file", "read_file_0abc1234", None), Action::Allow);
        assert_eq!(p.check_tool("fs", "delete_files", "delete_files", None), Action::Ask);
        assert!(matches_tool("delete_file", "fs", "delete_file"));
        assert!(!matches_tool("fs", "fs", "delete_file"), "a word is a tool, not a server");
    }

    /// F1 (s24c): `mcp__fs__x` is server `fs`'s tool `x` (naming "mcp") or server `mcp`'s tool
    /// `fs__x` (naming "server"). An allow of server `mcp` must not reach every server's tools
    /// through the second reading; a deny or an ask of either reading still applies; the hub,
    /// which knows the server, judges server `mcp`'s tools as its own.
    #[test]
    fn an_allow_of_server_mcp_reaches_no_other_server() {
        for pattern in ["mcp__mcp", "mcp__mcp__*", "mcp__mcp__fs__delete_all", "mcp__*cp", "mcp__m?p"] {
            let p = Policy::from_value(json!({"allow": [pattern], "defaultAction": "deny"})).unwrap();
            for name in ["mcp__fs__delete_all", "mcp__github__delete_repo"] {
                assert_eq!(p.check(name, None), Action::Deny, "{pattern} {name}");
            }
            assert_eq!(p.check_tool("fs", "delete_all", "mcp__fs__delete_all", None), Action::Deny, "{pattern}");
            assert_eq!(p.check_tool("mcp", "fs__delete_all", "mcp__fs__delete_all", None), Action::Allow, "{pattern}: the hub knows the server");
        }
        let p = Policy::from_value(json!({"allow": ["mcp__mcp"], "defaultAction": "deny"})).unwrap();
        assert_eq!(p.check("mcp__mcp__read", None), Action::Allow);
        assert_eq!(p.check("mcp__read", None), Action::Allow, "naming \"server\": only server mcp's");
        assert_eq!(p.check_tool("mcp", "read", "mcp__mcp__read", None), Action::Allow);
        // An allow of another server still reads `mcp__S__T` as server `S`'s.
        let fs = Policy::from_value(json!({"allow": ["mcp__fs", "read_*"], "defaultAction": "deny"})).unwrap();
        for name in ["mcp__fs__delete_all", "mcp__db__read_rows", "fs__x"] {
            assert_eq!(fs.check(name, None), Action::Allow, "{name}");
        }
        assert_eq!(fs.check("mcp__db__drop", None), Action::Deny);
        // Restricting rules read both ways, the most restrictive winning, whatever the default.
        for (deny, name) in [("mcp__mcp", "mcp__fs__read"), ("mcp__fs", "mcp__fs__read"), ("mcp__mcp__fs__*", "mcp__fs__read")] {
            for default in ["allow", "ask", "deny"] {
                let p = Policy::from_value(json!({"allow": ["mcp__fs", "mcp__mcp", "*"], "deny": [deny], "defaultAction": default})).unwrap();
                assert_eq!(p.check(name, None), Action::Deny, "{deny} {name} {default}");
            }
        }
        let ask = Policy::from_value(json!({"allow": ["mcp__fs"], "ask": ["mcp__mcp"], "defaultAction": "allow"})).unwrap();
        assert_eq!(ask.check("mcp__fs__read", None), Action::Ask);
        // With no rule for either reading the default decides.
        for default in [Action::Allow, Action::Ask, Action::Deny] {
            let p = Policy::from_value(json!({"allow": ["mcp__mcp"], "defaultAction": default.as_str()})).unwrap();
            assert_eq!(p.check("mcp__fs__x", None), default);
        }
        assert!(!matches("mcp__mcp", "mcp__fs__x") && matches("mcp__mcp", "mcp__mcp__x") && matches("mcp__mcp", "mcp__x"));
    }

    #[test]
    fn reading_matches_the_documented_form() {
        let p = Policy::from_value(json!({"rules":[{"pattern":"a","action":"deny"}],"allow":["b"],"ask":[],"defaultAction":"deny","askDestructive":false})).unwrap();
        assert_eq!(
            p,
            Policy {
                rules: vec![Rule { pattern: "a".into(), action: Action::Deny }, Rule { pattern: "b".into(), action: Action::Allow }],
                allow: vec![],
                ask: vec![],
                deny: vec![],
                default_action: Action::Deny,
                ask_destructive: false,
            }
        );
        let empty = Policy::from_value(json!({})).unwrap();
        assert_eq!((empty.rules.len(), empty.default_action, empty.ask_destructive), (0, Action::Ask, false));
        for (bad, message) in [
            (json!("allow"), "the value must be an object, got string"),
            (json!({"allow": "x"}), "allow must be an array, got string"),
            (json!({"deny": null}), "deny must be an array, got null"),
            (json!({"ask": ["a", 1]}), "ask[1] must be a string, got number"),
            (json!({"rules": [{"pattern": "x"}]}), "rules[0].action is missing"),
            (json!({"rules": [{"action": "ask"}]}), "rules[0].pattern is missing"),
            (json!({"rules": [{"pattern": "x", "action": "Allow"}]}), r#"rules[0].action must be "allow", "ask" or "deny", got "Allow""#),
            (json!({"defaultAction": 1}), r#"defaultAction must be "allow", "ask" or "deny", got number"#),
            (json!({"askDestructive": "yes"}), "askDestructive must be a boolean, got string"),
        ] {
            let e = Policy::from_value(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidOptions);
            assert_eq!(e.message, format!("invalid permission policy: {message}"));
        }
        // A field not known is named with the one meant, or with the fields.
        for (bad, message) in [
            (json!({"alow": []}), "policy has no key \"alow\": did you mean allow?"),
            (json!({"deny": [], "default_action": "deny"}), "policy has no key \"default_action\": did you mean defaultAction?"),
            (json!({"block": []}), "policy has no key \"block\" (the keys are rules, allow, ask, deny, defaultAction, askDestructive)"),
            // In a rule too: a key no rule reads, or a misspelt one.
            (json!({"rules": [{"pattern": "a", "action": "deny", "foo": 1}]}), "policy.rules[0] has no key \"foo\" (the keys are pattern, action)"),
            (json!({"rules": [{"pattern": "a", "action": "deny"}, {"patern": "b", "action": "ask"}]}), "policy.rules[1] has no key \"patern\": did you mean pattern?"),
            (json!({"rules": [{"pattern": "a", "acton": "deny"}]}), "policy.rules[0] has no key \"acton\": did you mean action?"),
        ] {
            let e = Policy::from_value(bad).unwrap_err();
            assert_eq!((e.code, e.message.as_str()), (ErrorCode::InvalidOptions, message));
        }
    }
}
