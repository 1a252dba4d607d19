//! Typed errors with stable codes.
//!
//! Every failure that input can cause is an [`Error`] with an [`ErrorCode`]. The code is the
//! stable, machine-readable part (JS callers branch on `err.code`); the message is for people and
//! names the offending tool and JSON path where there is one.

use std::fmt;

use crate::text::Owned as _;

/// Stable error codes. The string form (`as_str`) is part of the public JS contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// Input that is not valid JSON, or a JS value that cannot be represented as JSON.
    InvalidJson,
    /// Input of the wrong shape (e.g. `tools` is not an array).
    InvalidInput,
    /// A tool definition that cannot be used (e.g. no `name`).
    InvalidTool,
    /// A provider name that toolwire does not know.
    UnknownProvider,
    /// An option with a wrong type or value.
    InvalidOptions,
    /// A provider tool name that the name map does not know.
    UnknownToolName,
    /// Input beyond a configured limit (depth, node count, size, tool count).
    LimitExceeded,
    /// Tool-call arguments that cannot be mapped back.
    InvalidArguments,
    /// An HTTP error status from an MCP server (`status`, `bodyPreview`).
    HttpStatus,
    /// A JSON-RPC error response from an MCP server (`rpcCode`, `data`).
    JsonRpcError,
    /// A request took longer than its timeout (it was cancelled and its fetch aborted).
    Timeout,
    /// The caller aborted the request.
    Aborted,
    /// The request never got an HTTP response: network down, server unreachable, or CORS.
    Network,
    /// 401/403 from the server (`status`, `challenge`: the parsed `WWW-Authenticate`).
    Unauthorized,
    /// The server broke the protocol: bad content type, bad JSON, invalid UTF-8, a stream that
    /// ended without a response.
    Protocol,
    /// The server answered `initialize` with a protocol version toolwire does not speak.
    UnsupportedProtocolVersion,
    /// The permission policy denied the call.
    PermissionDenied,
    /// The client is closed, or was never connected.
    NotConnected,
    /// A request the server did not agree to in the handshake: its capabilities name no
    /// `tools`, `resources`, `prompts`, `completions` or `logging` for the method (`capability`).
    CapabilityNotNegotiated,
    /// The session expired (HTTP 404) and was renewed, but the request carried a `cursor` of the
    /// old session, which means nothing to the new one: it was not sent again (list again from
    /// the first page).
    SessionExpired,
    /// A 2026-07-28 server needs input to go on with a request (`input_required`: a form to fill
    /// in, a completion, the roots) and there is no request handler to give it, or the handler
    /// refused (`inputRequests`).
    InputRequired,
    /// The provider answered with an error instead of a response: an error body given to
    /// `parse_tool_calls`, or an error event in a stream (Anthropic's `error`, a Chat chunk's
    /// `error`, Responses' `error` and `response.failed`, Gemini's `error`, Bedrock's
    /// exceptions). The message names the provider's own type or status; `providerError` holds
    /// the error as the provider sent it.
    ProviderError,
}

impl ErrorCode {
    /// The stable string form, e.g. `"UNKNOWN_PROVIDER"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidJson => "INVALID_JSON",
            Self::InvalidInput => "INVALID_INPUT",
            Self::InvalidTool => "INVALID_TOOL",
            Self::UnknownProvider => "UNKNOWN_PROVIDER",
            Self::InvalidOptions => "INVALID_OPTIONS",
            Self::UnknownToolName => "UNKNOWN_TOOL_NAME",
            Self::LimitExceeded => "LIMIT_EXCEEDED",
            Self::InvalidArguments => "INVALID_ARGUMENTS",
            Self::HttpStatus => "HTTP_STATUS",
            Self::JsonRpcError => "JSONRPC_ERROR",
            Self::Timeout => "TIMEOUT",
            Self::Aborted => "ABORTED",
            Self::Network => "NETWORK",
            Self::Unauthorized => "UNAUTHORIZED",
            Self::Protocol => "PROTOCOL",
            Self::UnsupportedProtocolVersion => "UNSUPPORTED_PROTOCOL_VERSION",
            Self::PermissionDenied => "PERMISSION_DENIED",
            Self::NotConnected => "NOT_CONNECTED",
            Self::CapabilityNotNegotiated => "CAPABILITY_NOT_NEGOTIATED",
            Self::SessionExpired => "SESSION_EXPIRED",
            Self::InputRequired => "INPUT_REQUIRED",
            Self::ProviderError => "PROVIDER_ERROR",
        }
    }
}

/// A toolwire error: a stable code, a message, and where it happened.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    /// The stable code.
    pub code: ErrorCode,
    /// What went wrong, for people.
    pub message: String,
    /// The tool concerned (its MCP name), when there is one.
    pub tool: Option<String>,
    /// A JSON pointer into the tool's input schema (or the input), when there is one.
    pub path: Option<String>,
    /// Extra fields for the caller (`status`, `rpcCode`, `challenge`, `server`...), set as
    /// properties of the JS error.
    pub details: Option<Box<serde_json::Map<String, serde_json::Value>>>,
}

impl Error {
    /// A new error with no tool or path.
    // Out of line: one copy per message type (`&str`, `String`) instead of the message's copy and
    // the error's fields written at each of the crate's ~190 calls.
    #[inline(never)]
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), tool: None, path: None, details: None }
    }

    /// Attaches a detail field.
    #[must_use]
    pub fn with_detail(mut self, key: &str, value: impl Into<serde_json::Value>) -> Self {
        self.details.get_or_insert_with(Box::default).insert(key.owned(), value.into());
        self
    }

    /// Attaches the tool name (kept if one is already set).
    #[must_use]
    pub fn with_tool(mut self, tool: &str) -> Self {
        if self.tool.is_none() {
            self.tool = Some(tool.owned());
        }
        self
    }

    /// Attaches a JSON pointer (kept if one is already set).
    #[must_use]
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        if self.path.is_none() {
            self.path = Some(path.into());
        }
        self
    }
}

impl Error {
    /// The `server` detail (a hub's errors about one server), unless the message names it
    /// already: said after the message, as the tool is.
    fn unnamed_server(&self) -> Option<&str> {
        let server = self.details.as_ref()?.get("server")?.as_str()?;
        let m = &self.message;
        let quoted = crate::text::quote(server);
        let named = m.contains(&format!("server {quoted}"))
            || m.contains(&format!("server named {quoted}"))
            // A hub's server config: `servers.github.timeoutMs ...`.
            || m.contains(&format!("servers.{server}.")) || m.contains(&format!("servers.{server} "));
        (!named).then_some(server)
    }

    /// The tool, unless the message names it already (`tool "t"`, `tool named "t"`).
    fn unnamed_tool(&self) -> Option<&str> {
        let tool = self.tool.as_deref()?;
        let quoted = crate::text::quote(tool);
        let m = &self.message;
        let named = m.contains(&format!("tool {quoted}")) || m.contains(&format!("tool named {quoted}"));
        (!named).then_some(tool)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        // `(server "s", tool "t", at /p)`: a log of the message alone says where it failed.
        let mut sep = " (";
        if let Some(s) = self.unnamed_server() {
            write!(f, "{sep}server {}", crate::text::quote(s))?;
            sep = ", ";
        }
        if let Some(t) = self.unnamed_tool() {
            write!(f, "{sep}tool {}", crate::text::quote(t))?;
            sep = ", ";
        }
        if let Some(p) = &self.path {
            write!(f, "{sep}at {}", display_path(p))?;
            sep = ", ";
        }
        if sep == ", " {
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// A JSON path as messages name it: the empty path is "the root".
pub(crate) fn display_path(p: &str) -> &str {
    if p.is_empty() {
        "the root"
    } else {
        p
    }
}

impl std::error::Error for Error {}

/// Shorthand for results in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A name as [`did_you_mean`] compares it: without case, `-`, `_`, spaces or `.`. ASCII case
/// only: Unicode's case tables would weigh more than every name compared here.
fn fold(s: &str) -> String {
    s.chars().filter(|c| !matches!(c, '-' | '_' | ' ' | '.')).map(|c| c.to_ascii_lowercase()).collect()
}

/// The candidate `word` was most likely meant as, compared without case, `-`, `_` or spaces and
/// within a small edit distance; `None` when nothing is close.
pub(crate) fn did_you_mean<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let w = fold(word);
    // One edit in four characters, at most three.
    let most = (w.chars().count().max(4) / 4).min(3);
    let mut best: Option<(usize, &'a str)> = None;
    for &c in candidates {
        if let Some(d) = crate::text::edit_distance(&w, &fold(c), most).filter(|&d| best.is_none_or(|(bd, _)| d < bd)) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The known key that `key` is with a word put before or after it, as other libraries name a
/// switch (`strictMode`, `useStrict`, `enable_strict`, `strictEnabled`), compared as
/// [`did_you_mean`] compares: read and ignored, `{strictMode: true}` would leave strict mode off
/// without a word.
fn decorated<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    const BEFORE: [&str; 4] = ["use", "enable", "is", "with"];
    const AFTER: [&str; 4] = ["mode", "enabled", "flag", "option"];
    let w = fold(key);
    known.iter().copied().find(|k| {
        let k = fold(k);
        BEFORE.iter().any(|b| w.strip_prefix(b) == Some(k.as_str())) || AFTER.iter().any(|a| w.strip_suffix(a) == Some(k.as_str()))
    })
}

/// The `INVALID_OPTIONS` error for `key` of the options object `what` (`"options"`,
/// `"options.limits"`), whose keys are `known`, or `None` when it is fine: a key of `known`, or
/// (unless `all`) one no known key is within [`did_you_mean`]'s distance of, nor is with a word
/// around it ([`decorated`]), which is left for a newer version to read. A misspelt key
/// (`stict`) would otherwise be ignored, and what it asked for silently not done. `all` refuses
/// every other key too, naming the keys. The one check of an option's key, for every options
/// object.
pub(crate) fn unknown_key(what: &str, key: &str, known: &[&str], all: bool) -> Option<Error> {
    if known.contains(&key) {
        return None;
    }
    let shown = crate::text::quote(key);
    let message = match did_you_mean(key, known).or_else(|| decorated(key, known)) {
        Some(m) => format!("{what} has no key {shown}: did you mean {m}?"),
        None if all => format!("{what} has no key {shown} (the keys are {})", known.join(", ")),
        None => return None,
    };
    Some(Error::new(ErrorCode::InvalidOptions, message))
}

/// The one message of `UNKNOWN_PROVIDER`: what was given, the names `accepted`, and the one
/// most likely meant ("claude" is anthropic, a provider's name in another case or spelling).
pub(crate) fn unknown_provider(given: &str, accepted: &[&str]) -> String {
    let lower = given.trim().to_ascii_lowercase();
    // Servers that speak OpenAI's Chat Completions API (tools, calls and results as OpenAI's).
    const OPENAI_COMPATIBLE: [&str; 20] = [
        "openai-compatible", "openai_compatible", "compatible", "vllm", "groq", "openrouter", "deepseek", "mistral", "mistralai", "together", "togetherai", "fireworks",
        "lmstudio", "lm-studio", "llamacpp", "llama.cpp", "localai", "xai", "grok", "litellm",
    ];
    if OPENAI_COMPATIBLE.contains(&lower.as_str()) && accepted.contains(&"openai") {
        return format!(
            "unknown provider {}: for a server of OpenAI's Chat Completions API (vLLM, Groq, OpenRouter, DeepSeek, Mistral, LM Studio, llama.cpp, LiteLLM...), use \"openai\" (\"openai-responses\" where it serves the Responses API; \"ollama\" for Ollama's own /api/chat) (the providers are {})",
            crate::text::quote(given),
            accepted.join(", ")
        );
    }
    let meant = match lower.as_str() {
        "claude" | "anthropic-messages" | "messages" => Some("anthropic"),
        "google" | "google-ai" | "googleai" | "genai" | "google-genai" => Some("gemini"),
        "aws" | "aws-bedrock" | "bedrock-converse" | "converse" => Some("bedrock"),
        "vertexai" | "vertex-ai" | "google-vertex" => Some("vertex"),
        "responses" | "openai-response" => Some("openai-responses"),
        "chat" | "chatgpt" | "gpt" | "openai-chat-completions" | "chat-completions" | "azure" | "azure-openai" => Some("openai"),
        _ => did_you_mean(given, accepted),
    }
    .filter(|m| accepted.contains(m));
    let list = accepted.join(", ");
    let shown = crate::text::quote(given);
    match meant {
        Some(m) => format!("unknown provider {shown}: did you mean \"{m}\"? (the providers are {list})"),
        None => format!("unknown provider {shown} (the providers are {list})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: [&str; 4] = ["strict", "maxChars", "timeoutMs", "onEnd"];

    /// A server of OpenAI's Chat Completions API named by its own name is pointed to "openai";
    /// where "openai" is not one of the names taken, nothing is said of it.
    #[test]
    fn an_openai_compatible_server_is_pointed_to_openai() {
        let all = ["openai", "openai-responses", "anthropic", "gemini", "vertex", "bedrock", "ollama"];
        for given in ["vllm", "Groq", "openrouter", "deepseek", "mistral", "lmstudio", "openai-compatible"] {
            let m = unknown_provider(given, &all);
            assert!(m.starts_with(&format!("unknown provider \"{given}\": for a server of OpenAI's Chat Completions API")) && m.contains("use \"openai\""), "{m}");
        }
        assert!(!unknown_provider("vllm", &["anthropic"]).contains("openai"));
        assert_eq!(unknown_provider("opnai", &all), "unknown provider \"opnai\": did you mean \"openai\"? (the providers are openai, openai-responses, anthropic, gemini, vertex, bedrock, ollama)");
    }

    /// An error about one server (a hub's: its `server` detail) says which in its text, after the
    /// message as the tool is, unless the message names it already: a log of `err.message` alone
    /// once could not tell which server failed.
    #[test]
    fn the_text_names_the_server_of_the_server_detail() {
        let e = |message: &str| Error::new(ErrorCode::Timeout, message).with_detail("server", "github");
        assert_eq!(e("listing took more than 30000 ms").to_string(), "listing took more than 30000 ms (server \"github\")");
        assert_eq!(e("denied").with_tool("create_issue").with_path("/a").to_string(), "denied (server \"github\", tool \"create_issue\", at /a)");
        for named in ["\"x\" is a tool of server \"github\"", "no server named \"github\"", "servers.github.timeoutMs must be a number", "servers.github has no key \"ulr\""] {
            assert_eq!(e(named).to_string(), named);
        }
        // Of another server, or none: as before.
        assert_eq!(e("server \"githubx\" failed").to_string(), "server \"githubx\" failed (server \"github\")");
        assert_eq!(Error::new(ErrorCode::Timeout, "slow").with_tool("t").to_string(), "slow (tool \"t\")");
        assert_eq!(Error::new(ErrorCode::Timeout, "slow").with_detail("status", 500).to_string(), "slow");
    }

    /// The tool is said after the message unless the message names it already (a hub's refusal
    /// of a denied tool said it twice), and a name is quoted as messages quote it: a server's
    /// control characters cannot forge a log line.
    #[test]
    fn the_text_names_the_tool_once_and_quoted() {
        let e = |message: &str| Error::new(ErrorCode::PermissionDenied, message).with_tool("create_issue").with_detail("server", "github");
        let named = "\"mcp__github__create_issue\" is server \"github\"'s tool \"create_issue\", which the permission policy denies";
        assert_eq!(e(named).to_string(), named);
        assert_eq!(e("no tool named \"create_issue\"").to_string(), "no tool named \"create_issue\" (server \"github\")");
        assert_eq!(e("tool \"create_issues\" failed").to_string(), "tool \"create_issues\" failed (server \"github\", tool \"create_issue\")");
        let sly = Error::new(ErrorCode::Timeout, "slow").with_tool("t\n[ok] done\u{202e}").with_detail("server", "s\u{1b}[2J");
        assert_eq!(sly.to_string(), "slow (server \"s\\u001b[2J\", tool \"t\\n[ok] done\\u202e\")");
    }

    /// A key within did-you-mean distance of a known key is refused naming it, in either mode;
    /// a known key never is.
    #[test]
    fn a_near_miss_is_refused_naming_the_key_meant() {
        for (key, meant) in [("stict", "strict"), ("Strict", "strict"), ("maxChar", "maxChars"), ("timeotMs", "timeoutMs"), ("onend", "onEnd"), ("on_end", "onEnd")] {
            for all in [false, true] {
                let e = unknown_key("options", key, &KEYS, all).expect(key);
                assert_eq!(e.code, ErrorCode::InvalidOptions);
                assert_eq!(e.message, format!("options has no key \"{key}\": did you mean {meant}?"));
            }
        }
        for key in KEYS {
            assert!(unknown_key("options", key, &KEYS, false).is_none() && unknown_key("options", key, &KEYS, true).is_none(), "{key}");
        }
        // A known key with a word around it, as other libraries name a switch.
        for (key, meant) in [("strictMode", "strict"), ("useStrict", "strict"), ("enable_strict", "strict"), ("strictEnabled", "strict"), ("is-strict", "strict"), ("maxCharsOption", "maxChars")] {
            for all in [false, true] {
                assert_eq!(unknown_key("options", key, &KEYS, all).expect(key).message, format!("options has no key \"{key}\": did you mean {meant}?"));
            }
        }
        let nested = unknown_key("options.limits", "maxDeph", &["maxDepth", "maxNodes"], false).unwrap();
        assert_eq!(nested.message, "options.limits has no key \"maxDeph\": did you mean maxDepth?");
    }

    /// A key near no known key is left alone (forward compatibility) unless every unknown key
    /// is refused, when the message lists the keys.
    #[test]
    fn an_unrelated_key_is_ignored_or_refused_with_the_keys() {
        for key in ["futureOption", "x", "", "temperature", "stricter_than_ever"] {
            assert!(unknown_key("options", key, &KEYS, false).is_none(), "{key}");
            let e = unknown_key("options", key, &KEYS, true).expect(key);
            assert_eq!(e.code, ErrorCode::InvalidOptions);
            assert_eq!(e.message, format!("options has no key {}: (the keys are strict, maxChars, timeoutMs, onEnd)", crate::text::quote(key)).replace(": (", " ("));
        }
        // A long key is quoted cut short.
        let long = "k".repeat(500);
        let e = unknown_key("options", &long, &KEYS, true).unwrap();
        assert!(e.message.len() < 300 && e.message.contains("characters in all"), "{}", e.message);
    }
}
