//! Reading a provider's tool calls back: from complete responses ([`parse_tool_calls`]) and
//! from streams ([`Accumulator`]), through the name map, with arguments mapped back.
//!
//! A call whose arguments are not valid JSON, or whose name the map does not know, is still
//! returned, with an `error` (code and message) instead of arguments: one bad call never hides
//! the others, and nothing is guessed.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::error::{Error, ErrorCode, Result};
use crate::model::{string, NameSet, Put as _};
use crate::naming::NameMap;
use crate::text::Owned as _;

mod parallel;
mod shape;
mod text;
mod turn;

pub use parallel::Parallel;
pub use text::{parse_text_tool_calls, text_tool_results, TextAccumulator, TextReply};

#[cfg(test)]
mod agreement;

/// The providers whose tool calls can be read. Ollama is read-only here (it takes OpenAI-style
/// tools but sends arguments as objects).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallFormat {
    /// OpenAI Chat Completions (and compatible APIs).
    OpenAi,
    /// OpenAI Responses.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini and Vertex.
    Gemini,
    /// Bedrock Converse.
    Bedrock,
    /// Ollama `/api/chat`.
    Ollama,
}

impl CallFormat {
    /// Parses the provider string (the conversion providers plus `ollama`).
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "openai" | "openai-chat" => Self::OpenAi,
            "openai-responses" => Self::OpenAiResponses,
            "anthropic" => Self::Anthropic,
            "gemini" | "google" | "vertex" => Self::Gemini,
            "bedrock" => Self::Bedrock,
            "ollama" => Self::Ollama,
            other => return Err(Error::new(ErrorCode::UnknownProvider, crate::error::unknown_provider(other, &["openai", "openai-responses", "anthropic", "gemini", "vertex", "bedrock", "ollama"]))),
        })
    }

    /// The stream events an accumulator for this format takes, for its errors.
    fn events(self) -> &'static str {
        match self {
            Self::OpenAi => "the `chat.completion.chunk`s",
            Self::OpenAiResponses => "the `response.*` events",
            Self::Anthropic => "`message_start`, `content_block_start`...",
            Self::Gemini => "the `GenerateContentResponse` chunks",
            Self::Bedrock => "ConverseStream's `contentBlockStart`, `contentBlockDelta`...",
            Self::Ollama => "the `/api/chat` chunks or `chat.completion.chunk`s",
        }
    }

    /// The provider's name, for messages.
    fn label(self) -> &'static str {
        match self {
            Self::OpenAi => "OpenAI",
            Self::OpenAiResponses => "OpenAI Responses",
            Self::Anthropic => "Anthropic",
            Self::Gemini => "Gemini",
            Self::Bedrock => "Bedrock",
            Self::Ollama => "Ollama",
        }
    }
}

/// The error attached to one call. JSON form: `{code, message}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    /// Stable code (`INVALID_ARGUMENTS`, `UNKNOWN_TOOL_NAME`).
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
}

/// One tool call, resolved. JSON form: `{id, providerName, server, tool, arguments,
/// thoughtSignature?, parallel?, custom?, error?}` (`id` and `server` are `null` when absent,
/// `thoughtSignature`, `parallel` and `error` are absent when there is none, `custom` is `true`
/// or absent).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The provider's call id (`null` when the provider sent none, as Gemini may; an OpenAI Chat
    /// or Ollama call sent without one gets `call_{n}`, which its result answers).
    pub id: Option<String>,
    /// The name the provider used.
    pub provider_name: String,
    /// The server, when the name map knows it.
    pub server: Option<String>,
    /// The original MCP tool name (the provider name when there is no map).
    pub tool: String,
    /// The arguments, mapped back to what the server expects (`null` when `error` is set).
    pub arguments: Value,
    /// Why the call cannot be made as it is.
    pub error: Option<CallError>,
    /// Gemini: the `thoughtSignature` of the call's part, which the model's turn must carry back
    /// unchanged when the conversation goes on (Gemini 3 rejects a `functionCall` part without
    /// it; of parallel calls, only the first part has one).
    pub thought_signature: Option<String>,
    /// OpenAI: the wrapper call (`multi_tool_use.parallel`) this call is a tool use of
    /// ([`parallel`]); `None` for a call the provider sent as one.
    pub parallel: Option<Parallel>,
    /// OpenAI: a call of a custom tool (free-form input, [`custom_call`]), which the Responses API
    /// answers with a `custom_tool_call_output`.
    pub custom: bool,
    /// OpenAI Responses: the tool namespace the call's tool is in (`{type: "namespace", name}`),
    /// which tells apart two tools of one name in two namespaces.
    pub namespace: Option<String>,
}

impl CallError {
    /// The JSON form.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.put("code", string(self.code));
        o.put("message", string(&self.message));
        Value::Object(o)
    }
}

impl ToolCall {
    /// The JSON form.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.put("id", self.id.clone().into());
        o.put("providerName", string(&self.provider_name));
        o.put("server", self.server.clone().into());
        o.put("tool", string(&self.tool));
        o.put("arguments", self.arguments.clone());
        if let Some(s) = &self.thought_signature {
            o.put("thoughtSignature", string(s));
        }
        if let Some(p) = &self.parallel {
            o.put("parallel", p.to_value());
        }
        if self.custom {
            o.put("custom", Value::Bool(true));
        }
        if let Some(ns) = &self.namespace {
            o.put("namespace", string(ns));
        }
        if let Some(e) = &self.error {
            o.put("error", e.to_value());
        }
        Value::Object(o)
    }
}

serialize_via_value!(CallError, ToolCall);

/// Raw arguments as a provider sends them.
#[derive(Debug, Clone)]
pub(crate) enum RawArgs {
    /// A JSON string (OpenAI, Responses, Bedrock streams, Anthropic streams).
    Text(String),
    /// An object (Anthropic, Gemini, Bedrock, Ollama).
    Json(Value),
}

/// A model's arguments for the tool `name` as a JSON object: parsed when they are text (a lone
/// surrogate escape read as U+FFFD, as `JSON.parse` takes it and stream events are read), `{}`
/// for none (`null`, the text `null`, empty text); anything but an object is `INVALID_ARGUMENTS`
/// (a tool's arguments are an object, whatever the model sent).
pub(crate) fn model_arguments(name: &str, raw: RawArgs) -> Result<Value> {
    let v = match raw {
        RawArgs::Json(Value::Null) => return Ok(Value::Object(Map::new())),
        RawArgs::Json(v) => v,
        RawArgs::Text(t) if t.trim().is_empty() => return Ok(Value::Object(Map::new())),
        RawArgs::Text(t) => read_repaired(&t).map_err(|e| {
            e.into_error(&format!("the arguments of \"{name}\""), |e| {
                Error::new(ErrorCode::InvalidArguments, format!("arguments of \"{name}\" are not valid JSON ({e}): {}", preview(&t)))
            })
        })?,
    };
    match v {
        Value::Object(_) => Ok(v),
        // The text `null` is the value null, as an object's `null` arguments are: none.
        Value::Null => Ok(Value::Object(Map::new())),
        other => Err(Error::new(
            ErrorCode::InvalidArguments,
            format!("arguments of \"{name}\" must be a JSON object, got {}", crate::model::json_type(&other)),
        )),
    }
}

/// Builds a resolved call from its raw parts.
fn resolve(id: Option<String>, name: String, raw: RawArgs, map: Option<&NameMap>) -> ToolCall {
    let mut call =
        ToolCall { id, provider_name: name.clone(), server: None, tool: name.clone(), arguments: Value::Null, error: None, thought_signature: None, parallel: None, custom: false, namespace: None };
    if name.is_empty() {
        // No tool to call, with a name map or without: the same code a map gives a name it
        // does not know.
        call.error = Some(CallError { code: ErrorCode::UnknownToolName.as_str(), message: "the call has no tool name".owned() });
        return call;
    }
    let args = model_arguments(&name, raw).map_err(|e| CallError { code: e.code.as_str(), message: e.message });
    let entry = match map {
        Some(m) => match m.resolve(&name) {
            Ok(e) => Some(e),
            Err(e) => {
                call.error = Some(CallError { code: e.code.as_str(), message: e.message });
                return call;
            }
        },
        None => None,
    };
    if let Some(e) = entry {
        call.server = e.server.clone();
        call.tool = e.tool.clone();
    }
    let args = args.and_then(|v| match entry.and_then(|e| e.args.as_ref()) {
        Some(plan) => plan.try_apply(v, &name).map_err(|e| CallError { code: e.code.as_str(), message: e.message }),
        None => Ok(v),
    });
    match args {
        Ok(v) => call.arguments = v,
        Err(e) => call.error = Some(e),
    }
    call
}

/// The calls a provider's call stands for: itself, resolved, or for OpenAI's formats the tool
/// uses of its parallel wrapper ([`parallel::expand`]), each resolved.
fn resolve_all(id: Option<String>, name: String, raw: RawArgs, map: Option<&NameMap>, format: CallFormat) -> Vec<ToolCall> {
    if matches!(format, CallFormat::OpenAi | CallFormat::OpenAiResponses | CallFormat::Ollama) {
        // Spelt `parallel` on the Responses API only.
        if let Some(calls) = parallel::expand(id.as_deref(), &name, &raw, map, format == CallFormat::OpenAiResponses) {
            return calls;
        }
    }
    vec![resolve(id, name, raw, map)]
}

fn preview(s: &str) -> String {
    let mut p: String = s.chars().take(80).collect();
    if p.len() < s.len() {
        p.push_str("...");
    }
    p
}

/// Where a Chat tool call delta goes ([`Accumulator::chat_place`]).
enum ChatPlace {
    /// On the open call at this key.
    On((u64, u64)),
    /// Nowhere: more of a call dropped past the bounds.
    Dropped,
    /// On a new call, which completes the one it replaces at its `index`, if any.
    New(Option<(u64, u64)>),
}

/// Whether the dropped call `d` (choice, `index`, id) is the one a Chat delta of choice `ci`
/// with `index` and `id` is more of.
fn chat_dropped(&(c, i, ref d): &(u64, Option<u64>, Option<String>), ci: u64, index: Option<u64>, id: Option<&str>) -> bool {
    c == ci && (index.is_some() && i == index || id.is_some() && d.as_deref() == id || index.is_none() && id.is_none())
}

fn str_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn args_of(v: Option<&Value>) -> RawArgs {
    match v {
        Some(Value::String(s)) => RawArgs::Text(s.clone()),
        Some(other) => RawArgs::Json(other.clone()),
        None => RawArgs::Json(Value::Null),
    }
}

fn array<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// The provider's own error in a response body or a stream event, as `PROVIDER_ERROR`, or `None`
/// when `v` is no error:
/// * `{type: "error", error: {type, message}}` (Anthropic; Responses as observed) or
///   `{type: "error", code, message}` (Responses, as its SDK types it);
/// * `{type: "response.failed", response: {error: {code, message}}}` (Responses), and a Responses
///   response of `status: "failed"`, with its `error` or without one;
/// * `{error: {...}}` without a `type` of its own (an HTTP error body; a Chat chunk; a Gemini
///   chunk, `{code, message, status}`; a failed Responses response), or `{error: "text"}` (Ollama);
/// * `{xxxException: {message}}` (Bedrock ConverseStream's exception events).
///
/// A typed item with an `error` field of its own (a Responses `mcp_call`) is no error body.
fn provider_error(v: &Value, format: CallFormat, stream: bool) -> Option<Error> {
    let o = v.as_object()?;
    // A field of the error as text (a number too: Gemini's `code`).
    let field = |e: &Value, k: &str| match e.get(k) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(n @ Value::Number(_)) => Some(crate::text::to_string(n)),
        _ => None,
    };
    let typed = |e: &Value| field(e, "type").or_else(|| field(e, "status"));
    // A Bedrock exception's event key (`throttlingException`).
    let mut exception = None;
    // The error as sent, and its kind when it has one besides its `code`.
    let (body, kind) = match o.get("type").and_then(Value::as_str) {
        Some("error") => match o.get("error").filter(|e| e.is_object()) {
            Some(e) => (e, typed(e)),
            // Flat, as Responses' SDK types it: the `type` is the event's.
            None => (v, None),
        },
        Some("response.failed") => {
            let e = o.get("response").and_then(|r| r.get("error")).unwrap_or(&Value::Null);
            (e, typed(e))
        }
        Some(_) => return None,
        None => match o.get("error").filter(|e| e.is_object() || e.is_string()) {
            Some(e) => (e, typed(e)),
            // A Responses response that failed without its `error`, as `response.failed` may.
            None if format == CallFormat::OpenAiResponses && o.get("status").and_then(Value::as_str) == Some("failed") => (&Value::Null, None),
            // OpenRouter: an upstream failure after the output began is the choice's `error`
            // (`finish_reason: "error"`, HTTP 200), in a completion or a chunk; the choice read
            // (the first, as its calls are) is the error as the choice alone is.
            None if matches!(format, CallFormat::OpenAi | CallFormat::Ollama) && o.get("choices").is_some_and(Value::is_array) => {
                let first = array(v, "choices").iter().find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)?;
                let e = first.get("error").filter(|e| e.is_object() || e.is_string())?;
                (e, typed(e))
            }
            None => {
                let (k, e) = o.iter().find(|(k, e)| k.ends_with("Exception") && e.is_object())?;
                exception = Some(k);
                (e, Some(k.clone()))
            }
        },
    };
    let kind = match (kind, field(body, "code")) {
        (Some(k), Some(c)) if k != c => format!(" {k} ({c})"),
        (Some(k), _) | (None, Some(k)) => format!(" {k}"),
        (None, None) => String::new(),
    };
    let message = match body {
        Value::String(s) => Some(s.clone()),
        _ => field(body, "message").or_else(|| field(body, "Message")).or_else(|| field(body, "originalMessage")),
    };
    let message = match message {
        Some(m) => format!(": {m}"),
        None if body.is_null() => ": the response failed".owned(),
        None => String::new(),
    };
    let what = if stream { "stream error" } else { "error" };
    let mut sent = body.clone();
    // A Bedrock exception's kind is its event's key (`throttlingException`): kept as the `type`
    // Anthropic's errors have, for a caller to tell what to retry without reading the message.
    if let (Some(k), Value::Object(e)) = (exception, &mut sent) {
        if !e.contains_key("type") {
            let mut typed = Map::new();
            typed.insert("type".into(), Value::String(k.clone()));
            typed.extend(std::mem::take(e));
            *e = typed;
        }
    }
    Some(Error::new(ErrorCode::ProviderError, format!("{} {what}{kind}{message}", format.label())).with_detail("providerError", sent))
}

/// What a Gemini `finishReason` that says the model's tool call failed means, and what to do:
/// the model wrote a call that could not be read (`MALFORMED_FUNCTION_CALL`; `finishMessage` may
/// quote it, `print(default_api.search(...))`), called a tool the request did not enable
/// (`UNEXPECTED_TOOL_CALL`), or too many in a row (`TOO_MANY_TOOL_CALLS`); or the turn failed
/// whole: the request's history lacked a thought signature (`MISSING_THOUGHT_SIGNATURE`), or
/// Gemini's own response was malformed (`MALFORMED_RESPONSE`). Gemini gives no call for it (the
/// candidate mostly has no parts), so that, read as a turn without calls, the model would seem
/// to have answered with nothing. `None` for another reason.
fn gemini_call_failed(reason: &str) -> Option<&'static str> {
    Some(match reason {
        "MALFORMED_FUNCTION_CALL" => "the model's function call was malformed, and Gemini gave no call for it: retry the turn",
        "UNEXPECTED_TOOL_CALL" => {
            "the model called a tool the request did not enable (no tools given, or function calling mode NONE), and Gemini gave no call for it: retry the turn, with the tools enabled if it is to call them"
        }
        "TOO_MANY_TOOL_CALLS" => "the model called too many tools in a row, and Gemini ended the turn: retry the turn",
        // What the request sent, not what the model did: a retry of the same request ends so again.
        "MISSING_THOUGHT_SIGNATURE" => {
            "the request's history has a functionCall part without the thoughtSignature its response gave it (Gemini 3 needs each one back on its part: each call's thoughtSignature, or the turn ToolCallAccumulator.message() makes), and Gemini gave no answer: put the signatures back and send the request again"
        }
        "MALFORMED_RESPONSE" => "Gemini's response was malformed, and it gave no call or answer: retry the turn",
        _ => return None,
    })
}

/// The `PROVIDER_ERROR` of a Gemini candidate that ended at a tool call that failed
/// ([`gemini_call_failed`]); `failure` is its `finishReason` and `finishMessage` as sent (the
/// error's `providerError`), `others` the calls the candidate held besides, which
/// [`parse_tool_calls`] leaves out: a turn that failed is retried whole, not run in part.
fn gemini_failure(failure: &Value, stream: bool, others: usize) -> Error {
    let reason = failure.get("finishReason").and_then(Value::as_str).unwrap_or_default();
    let what = if stream { "stream error" } else { "error" };
    let mut message = format!("{} {what} {reason}: {}", CallFormat::Gemini.label(), gemini_call_failed(reason).unwrap_or("the model's tool call failed: retry the turn"));
    match others {
        0 => {}
        1 => message.push_str("; the turn's 1 other call is left out too: a turn that failed is retried whole"),
        n => message.push_str(&format!("; the turn's {n} other calls are left out too: a turn that failed is retried whole")),
    }
    if let Some(said) = failure.get("finishMessage").and_then(Value::as_str).filter(|m| !m.trim().is_empty()) {
        message.push_str(&format!(" (finishMessage: {})", crate::text::excerpt(said.trim(), 300)));
    }
    Error::new(ErrorCode::ProviderError, message).with_detail("providerError", failure.clone())
}

/// Every tool call in a complete provider response, in order.
///
/// Takes the whole response or the parts of it that the providers' SDKs hand out:
/// * OpenAI Chat and Ollama: the response (`choices`: the first choice's calls, of `index` 0,
///   when `n > 1` gave several; give `choices[i]` for another's), a choice or Ollama's response
///   (`message`), a message (`tool_calls`), one tool call (`function`), or an array of these
///   (`message.tool_calls`).
/// * OpenAI Responses: the response (`output`), one output item, or an array of items
///   (`response.output`).
/// * Anthropic: the message (`content`), one content block, or an array of blocks
///   (`message.content`).
/// * Gemini: the response (`candidates`: the first candidate's calls, as for Chat), a candidate
///   (`content`), a content (`parts`), a part,
///   a `FunctionCall`, or an array of these (`response.functionCalls`, `content.parts`).
///   Arguments streamed in parts (`partialArgs`) are put together as [`Accumulator`] does.
/// * Bedrock: the response (`output.message`), its `output` (`message`), a message
///   (`content`), one content block, or an array of blocks (`message.content`).
///
/// A response of the right kind without tool calls gives no calls. An error body (the provider's
/// own error, as [`Accumulator::push`] lists them) is `PROVIDER_ERROR`, and so is a Gemini
/// candidate read that ended at a tool call that failed (`finishReason` `MALFORMED_FUNCTION_CALL`,
/// `UNEXPECTED_TOOL_CALL`, `TOO_MANY_TOOL_CALLS`: [`gemini_call_failed`]), the calls it held
/// besides left out, as the turn is to be retried whole. An object with none of
/// the provider's fields (another provider's response, `{}`) is `INVALID_INPUT`, as is anything
/// but an object or an array of objects: a wrong input does not pass for a response without
/// calls. Empty objects in an array are skipped. `null` gives no calls, for every provider: it
/// is what the part an SDK hands out is (`undefined`) when the model called nothing (OpenAI's
/// `message.tool_calls`, Gemini's `response.functionCalls`).
pub fn parse_tool_calls(response: &Value, format: CallFormat, map: Option<&NameMap>) -> Result<Vec<ToolCall>> {
    // Suggestions for at most a few unknown names of the response (each a pass over the map).
    let _budget = crate::naming::SuggestionBudget::start();
    let items = match response {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items.as_slice(),
        Value::Object(_) => std::slice::from_ref(response),
        other => {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("expected a provider response (an object) or an array of its parts, got {}", crate::model::json_type(other)),
            ))
        }
    };
    let in_array = response.is_array();
    for (i, item) in items.iter().enumerate() {
        let at = || if in_array { format!("response[{i}]") } else { "response".owned() };
        let Some(o) = item.as_object() else {
            return Err(Error::new(ErrorCode::InvalidInput, format!("{} must be an object, got {}", at(), crate::model::json_type(item))));
        };
        if let Some(e) = provider_error(item, format, false) {
            return Err(e);
        }
        // Google's Interactions API: said so, rather than that none of a Gemini response's
        // fields are there.
        if let Some(e) = interactions_error(o, format, &at(), "parseToolCalls for Gemini or Vertex") {
            return Err(e);
        }
        // A stream event holds a piece of the turn, not its calls: read as a response, it would
        // give none without a word.
        if let Some(kind) = stream_event(o, format) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("{} is a stream event ({kind}), not a response: give a stream's events to ToolCallAccumulator (push, finish), which puts its calls together", at()),
            ));
        }
        // An empty object in an array is skipped (Gemini ends streamed arguments with one).
        let skipped = in_array && o.is_empty();
        let checked = if !skipped && !recognised(o, format) {
            Err(Error::new(ErrorCode::InvalidInput, format!("{} is not {}: it has none of its fields{}", at(), shapes(format), keys_of(o))))
        } else {
            shape::check_response(item, format, in_array.then_some(i))
        };
        // Another provider's response with calls: said so, rather than which field is amiss.
        if let Err(e) = checked {
            return Err(foreign(items, format, in_array).unwrap_or(e));
        }
    }
    let calls = calls_in(first_choice(items, format), format, map)?;
    // Another provider's response whose fields this one's also has (`content`, `output`, `role`...):
    // its calls would be lost without a word.
    if calls.is_empty() {
        if let Some(e) = foreign(items, format, in_array) {
            return Err(e);
        }
    }
    Ok(calls)
}

/// Of an array of choices (`completion.choices`) or candidates (`response.candidates`), the
/// first (of `index` 0, else the first given), as of the whole response: the results sent answer
/// the calls of one turn, and the others' calls would be mixed into it. Other arrays as given.
fn first_choice(items: &[Value], format: CallFormat) -> &[Value] {
    let choice = |v: &Value| match format {
        CallFormat::OpenAi | CallFormat::Ollama => {
            v.get("message").is_some() && v.get("choices").is_none() && (v.get("index").is_some() || v.get("finish_reason").is_some())
        }
        CallFormat::Gemini => v.get("content").is_some() && v.get("candidates").is_none() && (v.get("index").is_some() || v.get("finishReason").is_some()),
        _ => false,
    };
    if items.len() < 2 || !items.iter().all(choice) {
        return items;
    }
    let first = items.iter().enumerate().position(|(i, v)| v.get("index").and_then(Value::as_u64).unwrap_or(i as u64) == 0).unwrap_or(0);
    std::slice::from_ref(&items[first])
}

/// The error for `items` that hold tool calls in another provider's shape than `format`'s.
fn foreign(items: &[Value], format: CallFormat, in_array: bool) -> Option<Error> {
    let other = foreign_calls(items, format)?;
    Some(
        Error::new(
            ErrorCode::InvalidInput,
            format!(
                "{} holds tool calls as {} gives them, and none as {} does: parse it for the provider it came from",
                if in_array { "the response" } else { "response" },
                other.label(),
                format.label()
            ),
        )
        .with_detail("looksLike", other.label()),
    )
}

/// The format, other than `format`, whose stream or response has `event` as a tool call or a
/// piece of one: a Chat chunk's `delta.tool_calls` or a completion's `message.tool_calls`, an
/// Ollama chunk's or response's own `message.tool_calls`, a Responses function call's item, its
/// arguments' delta, or a response's `output` holding one, an Anthropic `tool_use` block's start
/// or a Message holding one, a Gemini `functionCall` part, a Bedrock `toolUse` block's start or a
/// Converse response holding one. Ollama's accumulator reads Chat's chunks (its `/v1`'s) too.
fn foreign_event(event: &Value, format: CallFormat) -> Option<CallFormat> {
    use CallFormat::*;
    let ty = event.get("type").and_then(Value::as_str);
    let any = |v: Option<&Value>, f: &dyn Fn(&Value) -> bool| v.and_then(Value::as_array).is_some_and(|a| a.iter().any(f));
    let some = |v: Option<&Value>| v.and_then(Value::as_array).is_some_and(|a| !a.is_empty());
    let holds = |f: CallFormat| match f {
        OpenAi => any(event.get("choices"), &|c| some(c.pointer("/delta/tool_calls")) || some(c.pointer("/message/tool_calls"))),
        Ollama => event.get("choices").is_none() && some(event.pointer("/message/tool_calls")),
        OpenAiResponses => {
            ty == Some("response.function_call_arguments.delta")
                || (matches!(ty, Some("response.output_item.added" | "response.output_item.done")) && event.pointer("/item/type").and_then(Value::as_str) == Some("function_call"))
                || any(event.get("output"), &|i| i.get("type").and_then(Value::as_str) == Some("function_call"))
        }
        Anthropic => {
            (ty == Some("content_block_start") && event.pointer("/content_block/type").and_then(Value::as_str) == Some("tool_use"))
                || (ty == Some("message") && any(event.get("content"), &|b| b.get("type").and_then(Value::as_str) == Some("tool_use")))
        }
        Gemini => any(event.get("candidates"), &|c| any(c.pointer("/content/parts"), &|p| p.get("functionCall").is_some())),
        Bedrock => event.pointer("/contentBlockStart/start/toolUse").is_some() || any(event.pointer("/output/message/content"), &|b| b.get("toolUse").is_some()),
    };
    let own = |f: CallFormat| f == format || (format == Ollama && f == OpenAi);
    [OpenAi, Ollama, OpenAiResponses, Anthropic, Gemini, Bedrock].into_iter().filter(|&f| !own(f)).find(|&f| holds(f))
}

/// The format, other than `format` (and the one sharing its shapes: OpenAI Chat and Ollama),
/// in which `items` hold tool calls, if any.
fn foreign_calls(items: &[Value], format: CallFormat) -> Option<CallFormat> {
    use CallFormat::*;
    let family = |f: CallFormat| if f == Ollama { OpenAi } else { f };
    [OpenAi, OpenAiResponses, Anthropic, Gemini, Bedrock]
        .into_iter()
        .filter(|&f| family(f) != family(format))
        .find(|&f| match f {
            // A Gemini turn that failed held its calls all the same: it still looks like Gemini's.
            Gemini => gemini_calls(items, None).is_ok_and(|(calls, failure)| !calls.is_empty() || failure.is_some_and(|(_, others)| others > 0)),
            _ => calls_in(items, f, None).is_ok_and(|c| !c.is_empty()),
        })
}

/// A Gemini candidate's tool call failure ([`gemini_failure`]): its `finishReason` and
/// `finishMessage`, and the calls of the candidate left out.
type GeminiFailure = (Value, usize);

/// Gemini: the calls `items` hold, or, when the candidate read ended at a tool call that failed
/// ([`gemini_call_failed`]), its `finishReason` and `finishMessage` and how many calls that
/// candidate held besides (none given: the turn is retried whole).
fn gemini_calls(items: &[Value], map: Option<&NameMap>) -> Result<(Vec<ToolCall>, Option<GeminiFailure>)> {
    let mut calls = Vec::new();
    let mut acc = Accumulator::new(CallFormat::Gemini);
    acc.turn = turn::Turn::off();
    // What streamed arguments may make, in all the items.
    acc.room = MAX_OPEN_BYTES;
    // The calls of the candidate read (index 0), as other candidates' are read too when the
    // items are candidates.
    let mut first = 0;
    for (i, item) in items.iter().enumerate() {
        let before = calls.len();
        acc.gemini_value(item, i as u64, map, &mut calls);
        let candidate = item.get("candidates").is_none() && (item.get("content").is_some() || item.get("finishReason").is_some());
        if !candidate || item.get("index").and_then(Value::as_u64).unwrap_or(i as u64) == 0 {
            first += calls.len() - before;
        }
    }
    // The turn failed at a tool call: retried whole, rather than its other calls run.
    if let Some(failure) = acc.failed.take() {
        let others = first + acc.open.calls.iter().filter(|(k, _)| k.0 == 0).count() + usize::from(acc.held.is_some());
        return Ok((Vec::new(), Some((failure, others))));
    }
    if acc.open.too_large() {
        return Err(acc.drop_open());
    }
    calls.extend(acc.finish(map)?);
    Ok((calls, None))
}

/// The calls `items` (checked to be of `format`'s shapes) hold.
fn calls_in(items: &[Value], format: CallFormat, map: Option<&NameMap>) -> Result<Vec<ToolCall>> {
    if format == CallFormat::Gemini {
        return match gemini_calls(items, map)? {
            (_, Some((failure, others))) => Err(gemini_failure(&failure, false, others)),
            (calls, None) => Ok(calls),
        };
    }
    let mut calls = Vec::new();
    let given = GivenIds::new(items);
    for (i, item) in items.iter().enumerate() {
        match format {
            CallFormat::OpenAi | CallFormat::Ollama => {
                if let Some(choices) = item.get("choices").and_then(Value::as_array) {
                    // The first choice's (`n > 1`): the message sent back is one choice's.
                    let first = choices.iter().find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0);
                    if let Some(m) = first.and_then(|c| c.get("message")) {
                        let cut = first.and_then(|c| out_of_tokens(c.get("finish_reason")));
                        openai_message(m, format, map, &mut calls, cut.as_deref());
                    }
                } else if let Some(m) = item.get("message").filter(|m| m.is_object()) {
                    openai_message(m, format, map, &mut calls, None);
                } else if item.get("function").is_some() || item.get("custom").is_some_and(Value::is_object) {
                    // One call of `message.tool_calls` (a function's, or a custom tool's, which
                    // has no `function` but must be answered too).
                    calls.extend(openai_call(item, i, &|id| given.has(id), format, map));
                } else {
                    openai_message(item, format, map, &mut calls, None);
                }
            }
            CallFormat::OpenAiResponses => match item.get("output").and_then(Value::as_array) {
                Some(output) => {
                    let cut = cut_short(item).or_else(|| unfinished(item));
                    calls.extend(output.iter().filter_map(|o| responses_call(o, cut.as_deref(), map)).flatten());
                }
                None => calls.extend(responses_call(item, None, map).into_iter().flatten()),
            },
            CallFormat::Anthropic => match item.get("content").and_then(Value::as_array) {
                Some(content) => {
                    calls.extend(content.iter().filter_map(|b| anthropic_call(b, map)));
                    let tool_use = |b: &Value| b.get("type").and_then(Value::as_str) == Some("tool_use");
                    cut_last_block(content, out_of_tokens(item.get("stop_reason")), &mut calls, tool_use);
                }
                None => calls.extend(anthropic_call(item, map)),
            },
            CallFormat::Bedrock => {
                // The response, its `output`, or the message itself.
                let message = item.get("output").and_then(|o| o.get("message")).or_else(|| item.get("message")).unwrap_or(item);
                match message.get("content").and_then(Value::as_array) {
                    Some(content) => {
                        calls.extend(content.iter().filter_map(|b| bedrock_call(b, map)));
                        cut_last_block(content, out_of_tokens(item.get("stopReason")), &mut calls, |b| b.get("toolUse").is_some_and(|tu| !server_tool_use(tu)));
                    }
                    None => calls.extend(bedrock_call(item, map)),
                }
            }
            CallFormat::Gemini => unreachable!("read above"),
        }
    }
    Ok(calls)
}

/// Gemini's fields, of a response, a candidate, a content and a part: what tells a Gemini
/// value that holds no function call from something else. A part's are every kind the API
/// answers with: `toolCall` and `toolResponse` are the built-in tools' (Google Search...) that
/// Gemini 3 sends beside the function calls when asked to (`includeServerSideToolInvocations`).
const GEMINI_FIELDS: &[&str] = &[
    "candidates", "promptFeedback", "usageMetadata", "modelVersion", "responseId", "content", "finishReason", "parts",
    "functionCall", "text", "thought", "thoughtSignature", "inlineData", "fileData", "functionResponse", "executableCode",
    "codeExecutionResult", "toolCall", "toolResponse", "audioTranscription", "videoMetadata", "partMetadata",
    "functionCalls",
];

/// Bedrock's fields, of a response, its output, a message and a content block.
const BEDROCK_FIELDS: &[&str] = &[
    "output", "stopReason", "message", "content", "role", "toolUse", "text", "image", "document", "video", "audio",
    "toolResult", "guardContent", "cachePoint", "reasoningContent", "citationsContent", "searchResult", "toolAddition",
    "$unknown",
];

/// Whether `o` is one of the shapes [`parse_tool_calls`] reads for `format`.
fn recognised(o: &Map<String, Value>, format: CallFormat) -> bool {
    let has = |keys: &[&str]| keys.iter().any(|k| o.contains_key(*k));
    let typed = || o.get("type").is_some_and(Value::is_string);
    match format {
        CallFormat::OpenAi | CallFormat::Ollama => has(&["choices", "message", "tool_calls", "role", "content", "function", "custom"]),
        CallFormat::OpenAiResponses => has(&["output"]) || typed(),
        CallFormat::Anthropic => has(&["content", "role"]) || typed(),
        CallFormat::Gemini => has(GEMINI_FIELDS) || is_function_call(o),
        CallFormat::Bedrock => has(BEDROCK_FIELDS),
    }
}

/// What stream event `o` is, when it is one of `format`'s (not a response): a Chat chunk (its
/// `object`, or a choice's `delta`), a Responses event (`response.*`), an Anthropic event.
/// Gemini's stream events are responses, and Bedrock's have fields no response has.
fn stream_event(o: &Map<String, Value>, format: CallFormat) -> Option<String> {
    let kind = o.get("type").and_then(Value::as_str);
    match format {
        CallFormat::OpenAi | CallFormat::Ollama => {
            let chunk = o.get("object").and_then(Value::as_str) == Some("chat.completion.chunk")
                || o.get("choices").and_then(Value::as_array).is_some_and(|c| c.iter().any(|c| c.get("delta").is_some() && c.get("message").is_none()));
            chunk.then(|| "a chat.completion.chunk".owned())
        }
        CallFormat::OpenAiResponses => kind.filter(|k| k.starts_with("response.")).map(|k| format!("`{k}`")),
        CallFormat::Anthropic => kind
            .filter(|k| matches!(*k, "message_start" | "message_delta" | "message_stop" | "content_block_start" | "content_block_delta" | "content_block_stop" | "ping"))
            .map(|k| format!("`{k}`")),
        CallFormat::Gemini | CallFormat::Bedrock => None,
    }
}

/// What whole response `o` is, when it is one of `format`'s that no stream event is: an
/// Anthropic Message, a Responses response, a Bedrock Converse response. Chat's and Gemini's are
/// read as events (a Gemini stream's events are responses, a Chat completion is read whole).
fn whole_response(o: &Map<String, Value>, format: CallFormat) -> Option<&'static str> {
    let is = |key: &str, value: &str| o.get(key).and_then(Value::as_str) == Some(value);
    match format {
        CallFormat::Anthropic if is("type", "message") => Some("an Anthropic Message (`type: \"message\"`)"),
        CallFormat::OpenAiResponses if is("object", "response") => Some("a Responses response (`object: \"response\"`)"),
        CallFormat::Bedrock if o.get("output").is_some_and(|out| out.get("message").is_some()) => Some("a Bedrock Converse response (`output.message`)"),
        _ => None,
    }
}

/// What part of a response `o` is, when it is one of `format`'s that holds the turn's content
/// and that no stream event is: what an SDK hands out beside its stream (Anthropic's
/// `MessageStream` `contentBlock`, a Chat stream's `message`, Responses' `output_item.done`
/// item) or a message of the history. Read as an event, it gave no calls and an empty turn.
/// Every stream event of these providers has fields none of these has (Anthropic's and
/// Responses' `type`s, Chat's `choices`, Ollama's `message`, Bedrock's event keys); Gemini's
/// stream events are responses, whose parts are read ([`Accumulator::gemini_value`]).
fn response_part(o: &Map<String, Value>, format: CallFormat) -> Option<String> {
    let kind = o.get("type").and_then(Value::as_str);
    let object = |key: &str| o.get(key).is_some_and(Value::is_object);
    let role = o.get("role").is_some_and(Value::is_string);
    match format {
        CallFormat::OpenAi | CallFormat::Ollama if o.contains_key("choices") || o.contains_key("message") => None,
        CallFormat::OpenAi | CallFormat::Ollama if role && ["content", "tool_calls", "refusal", "function_call"].iter().any(|k| o.contains_key(*k)) => {
            Some(if format == CallFormat::Ollama { "an Ollama chat message (`role`)" } else { "a Chat message (`role`)" }.owned())
        }
        CallFormat::OpenAi | CallFormat::Ollama if object("function") || (kind == Some("custom") && object("custom")) => {
            Some("one tool call of a message's `tool_calls`".owned())
        }
        CallFormat::OpenAiResponses => match kind {
            Some(k @ ("function_call" | "custom_tool_call")) => Some(format!("a Responses output item (`type: \"{k}\"`)")),
            None if o.get("output").is_some_and(Value::is_array) => Some("a Responses response (`output`)".owned()),
            _ => None,
        },
        CallFormat::Anthropic if role && o.contains_key("content") => Some("an Anthropic message (`role`, `content`)".owned()),
        CallFormat::Anthropic => match kind {
            Some(k @ ("text" | "thinking" | "redacted_thinking" | "tool_use" | "server_tool_use" | "mcp_tool_use")) => {
                Some(format!("an Anthropic content block (`type: \"{k}\"`)"))
            }
            _ => None,
        },
        CallFormat::Bedrock if role && o.get("content").is_some_and(Value::is_array) => Some("a Bedrock message (`role`, `content`)".owned()),
        CallFormat::Bedrock if kind.is_none() && o.get("message").is_some_and(|m| m.get("content").is_some_and(Value::is_array)) => {
            Some("a Bedrock Converse output (`message`)".owned())
        }
        CallFormat::Bedrock if object("toolUse") => Some("a Bedrock content block (`toolUse`)".owned()),
        _ => None,
    }
}

/// What Gemini Interactions API value `o` is, for Gemini (or Vertex): an `Interaction` (its
/// `steps`, the `outputs` of the API's first version, or its `object: "interaction"`) or one of
/// its stream's events (`event_type`). toolwire does not read that API, whose calls are
/// `function_call` steps: passed over as an event of a kind not known, or refused as no Gemini
/// response, its calls would be lost or the error would not say why. No generateContent response
/// or chunk has these fields, nor any of [`GEMINI_FIELDS`] beside them.
fn interactions(o: &Map<String, Value>, format: CallFormat) -> Option<String> {
    if format != CallFormat::Gemini || GEMINI_FIELDS.iter().any(|k| o.contains_key(*k)) {
        return None;
    }
    if let Some(kind) = o.get("event_type").and_then(Value::as_str) {
        return Some(format!("an Interactions API stream event (`event_type: \"{kind}\"`)"));
    }
    if let Some(k) = ["steps", "outputs"].into_iter().find(|k| o.get(*k).is_some_and(Value::is_array)) {
        return Some(format!("an Interactions API response (`{k}`)"));
    }
    (o.get("object").and_then(Value::as_str) == Some("interaction")).then(|| "an Interactions API response (`object: \"interaction\"`)".owned())
}

/// The `INVALID_INPUT` for `o` when it is a Gemini Interactions API value ([`interactions`]):
/// `subject` names it (`the event`, `response`), `reader` says what is read instead.
fn interactions_error(o: &Map<String, Value>, format: CallFormat, subject: &str, reader: &str) -> Option<Error> {
    let what = interactions(o, format)?;
    Some(Error::new(
        ErrorCode::InvalidInput,
        format!("{subject} is {what}, which toolwire does not read: {reader} reads generateContent responses and streamGenerateContent chunks"),
    ))
}

/// What [`parse_tool_calls`] takes for `format`, for its error.
fn shapes(format: CallFormat) -> &'static str {
    match format {
        CallFormat::OpenAi => "an OpenAI chat completion, choice, message or tool call",
        CallFormat::Ollama => "an Ollama chat response, message or tool call",
        CallFormat::OpenAiResponses => "an OpenAI Responses response or output item",
        CallFormat::Anthropic => "an Anthropic message or content block",
        CallFormat::Gemini => "a Gemini response, candidate, content, part or FunctionCall",
        CallFormat::Bedrock => "a Bedrock Converse response, output, message or content block",
    }
}

/// ` (keys: a, b, c)`, the first few keys of an object, for errors.
fn keys_of(o: &Map<String, Value>) -> String {
    if o.is_empty() {
        return " (it is empty)".owned();
    }
    let mut keys: Vec<&str> = o.keys().take(6).map(String::as_str).collect();
    if o.len() > keys.len() {
        keys.push("...");
    }
    format!(" (keys: {})", keys.join(", "))
}

/// A Gemini `FunctionCall` on its own: only its fields, and at least one that makes a call.
fn is_function_call(o: &Map<String, Value>) -> bool {
    o.keys().all(|k| matches!(k.as_str(), "name" | "args" | "id" | "partialArgs" | "willContinue"))
        && ["name", "args", "partialArgs", "willContinue"].iter().any(|k| o.contains_key(*k))
}

/// `cut`: why the choice stopped before its last call was whole ([`out_of_tokens`]).
fn openai_message(m: &Value, format: CallFormat, map: Option<&NameMap>, calls: &mut Vec<ToolCall>, cut: Option<&str>) {
    let tool_calls = array(m, "tool_calls");
    let given = GivenIds::new(tool_calls);
    for (i, tc) in tool_calls.iter().enumerate() {
        let mut these = openai_call(tc, i, &|id| given.has(id), format, map);
        if let Some(why) = cut.filter(|_| i + 1 == tool_calls.len()) {
            these.iter_mut().for_each(|c| cut_call(c, why));
        }
        calls.extend(these);
    }
}

/// One Chat tool call (or the tool uses of a parallel wrapper), the `i`th of its turn: one
/// without an id (Ollama's have none, some OpenAI-compatible servers send none) gets one that is
/// not `taken` by another call ([`made_id`]). A custom tool's call (`type: "custom"`, `custom:
/// {name, input}`) is read with its error ([`custom_call`]).
fn openai_call(tc: &Value, i: usize, taken: &dyn Fn(&str) -> bool, format: CallFormat, map: Option<&NameMap>) -> Vec<ToolCall> {
    let id = str_of(tc, "id").filter(|id| !id.is_empty()).unwrap_or_else(|| made_id(i, taken));
    if let Some(c) = tc.get("custom").filter(|c| c.is_object()) {
        let mut call = resolve(Some(id), str_of(c, "name").unwrap_or_default(), RawArgs::Json(Value::Null), map);
        custom_call(&mut call);
        return vec![call];
    }
    let f = tc.get("function").unwrap_or(tc);
    let name = str_of(f, "name").unwrap_or_default();
    resolve_all(Some(id), name, args_of(f.get("arguments")), map, format)
}

/// The ids Chat or Ollama calls were given, for those of them sent without one ([`made_id`]):
/// read once, when a call first needs one made, into a [`NameSet`] (a scan of the calls for
/// each id made took quadratic time).
struct GivenIds<'a> {
    calls: &'a [Value],
    set: std::cell::OnceCell<NameSet<'a>>,
}

impl<'a> GivenIds<'a> {
    fn new(calls: &'a [Value]) -> Self {
        Self { calls, set: std::cell::OnceCell::new() }
    }

    /// Whether one of the calls has the id `id`.
    fn has(&self, id: &str) -> bool {
        ids_read(1);
        let set = self.set.get_or_init(|| {
            ids_read(self.calls.len());
            NameSet::of(self.calls.iter().filter_map(|c| c.get("id").and_then(Value::as_str)))
        });
        set.contains(id)
    }
}

#[cfg(test)]
thread_local! {
    /// Ids read to make one for a call sent without ([`made_id`]), for the tests of its cost.
    static IDS_READ: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts `n` ids read to make one ([`IDS_READ`]); nothing outside tests.
#[inline(always)]
fn ids_read(n: usize) {
    #[cfg(test)]
    IDS_READ.with(|c| c.set(c.get() + n));
    let _ = n;
}

/// The id of the `n`th Chat or Ollama call of a turn, which the provider sent without one, for
/// its result to answer: `call_{n}`, or `call_{n}_{k}` when an id the provider gave another call
/// is that (`taken`). `n` is the call's alone, so no two made up are the same.
fn made_id(n: usize, taken: impl Fn(&str) -> bool) -> String {
    let id = format!("call_{n}");
    if !taken(&id) {
        return id;
    }
    (1..).map(|k| format!("call_{n}_{k}")).find(|id| !taken(id)).unwrap_or_default()
}

/// Marks a call of a custom tool (OpenAI's free-form tools, whose input is text, not JSON
/// arguments): `INVALID_ARGUMENTS` saying so, as no MCP tool takes it (toolwire gives tools to
/// the model as functions). An error of the call's name (none, an unknown one) stands.
fn custom_call(call: &mut ToolCall) {
    call.custom = true;
    if call.error.is_none() {
        call.error = Some(CallError { code: ErrorCode::InvalidArguments.as_str(), message: custom_message(&call.provider_name) });
        call.arguments = Value::Null;
    }
}

/// The error of a custom tool's call named `name` ([`custom_call`]).
fn custom_message(name: &str) -> String {
    format!("\"{name}\" is a custom tool call, whose input is free text, not JSON arguments: MCP tools are given to the model as functions")
}

/// Why a Responses response ended before its calls did, when it is `status: "incomplete"`: its
/// `incomplete_details.reason` (`max_output_tokens`, `content_filter`).
fn cut_short(response: &Value) -> Option<String> {
    if response.get("status").and_then(Value::as_str) != Some("incomplete") {
        return None;
    }
    let reason = response.get("incomplete_details").and_then(|d| d.get("reason")).and_then(Value::as_str).filter(|r| !r.is_empty());
    Some(match reason {
        Some(r) => format!("the response is incomplete ({r})"),
        None => "the response is incomplete".owned(),
    })
}

/// Why a turn stopped that cut its last call short: it reached the output limit (Anthropic's
/// `stop_reason` and Bedrock's `stopReason` `max_tokens` or `model_context_window_exceeded`,
/// Chat's `finish_reason` `length`), or the provider stopped the output (Anthropic's `refusal`,
/// Chat's `content_filter`, Bedrock's `content_filtered` and `guardrail_intervened`), or it
/// failed (Chat's `error`: OpenRouter's, Mistral's): a call
/// ends a turn of itself (`tool_use`, `tool_calls`), so one that is the last part of a turn
/// stopped otherwise was being written. It is closed with what it had (Anthropic closes such a
/// `tool_use` block with the input so far).
fn out_of_tokens(reason: Option<&Value>) -> Option<String> {
    let reason = reason.and_then(Value::as_str)?;
    match reason {
        "max_tokens" | "model_context_window_exceeded" | "length" => Some(format!("the model's output reached its limit ({reason})")),
        "refusal" | "content_filter" | "content_filtered" | "guardrail_intervened" => Some(format!("the provider stopped the model's output ({reason})")),
        // OpenRouter's, Mistral's: the output failed as it was written.
        "error" => Some(format!("the model's output ended with an error ({reason})")),
        _ => None,
    }
}

/// Why a Responses response that has not ended ends its calls before they did: a background
/// response retrieved while it was still `queued` or `in_progress`, or one `cancelled` (its
/// calls not `completed` are cut short, as an `incomplete` one's are).
fn unfinished(response: &Value) -> Option<String> {
    match response.get("status").and_then(Value::as_str)? {
        s @ ("queued" | "in_progress") => Some(format!("the response is still {}", s.replace('_', " "))),
        "cancelled" => Some("the response was cancelled".owned()),
        _ => None,
    }
}

/// Marks the call of `content`'s last block, the last of `calls`, when it is a call (`is_call`)
/// and the turn stopped for `why` ([`out_of_tokens`]).
fn cut_last_block(content: &[Value], why: Option<String>, calls: &mut [ToolCall], is_call: impl Fn(&Value) -> bool) {
    if let (Some(why), Some(call)) = (why, calls.last_mut()) {
        if content.last().is_some_and(is_call) {
            cut_call(call, &why);
        }
    }
}

/// Marks a call whose arguments were cut short: `INVALID_ARGUMENTS` saying why, rather than what
/// parsed of them (empty text is `{}`), which would call the tool with arguments the model never
/// finished, or that they are not JSON. An error of the call's name (none, an unknown one) stands.
/// A custom tool's call ([`custom_call`]) says both.
fn cut_call(call: &mut ToolCall, why: &str) {
    if call.error.as_ref().is_none_or(|e| e.code == ErrorCode::InvalidArguments.as_str()) {
        let message = if call.custom {
            format!("{}; its input is incomplete: {why}", custom_message(&call.provider_name))
        } else {
            format!("the arguments of \"{}\" are incomplete: {why}", call.provider_name)
        };
        call.error = Some(CallError { code: ErrorCode::InvalidArguments.as_str(), message });
        call.arguments = Value::Null;
    }
}

/// A Responses function call item (the tool uses of a parallel wrapper, for one); `cut`: why the
/// response it is in ended early, or has not ended, which cuts short a call not `completed` in
/// it. A call item `incomplete` or `in_progress` itself is cut short too.
fn responses_call(item: &Value, cut: Option<&str>, map: Option<&NameMap>) -> Option<Vec<ToolCall>> {
    match item.get("type").and_then(Value::as_str) {
        Some("function_call") => {}
        // A custom tool's call, with its error: the turn holds it, and the API wants its output.
        Some("custom_tool_call") => {
            let namespace = str_of(item, "namespace");
            let mut call = resolve(str_of(item, "call_id"), namespaced(str_of(item, "name").unwrap_or_default(), namespace.as_deref(), map), RawArgs::Json(Value::Null), map);
            custom_call(&mut call);
            in_namespace(std::slice::from_mut(&mut call), item, namespace, map);
            if let Some(why) = item_cut(item, cut) {
                cut_call(&mut call, why);
            }
            return Some(vec![call]);
        }
        _ => return None,
    }
    // `call_id` is what the `function_call_output` answers; the item's own `id` (`fc_...`) is
    // not a call id, so a call without `call_id` has none.
    let namespace = str_of(item, "namespace");
    let name = namespaced(str_of(item, "name").unwrap_or_default(), namespace.as_deref(), map);
    let mut calls = resolve_all(str_of(item, "call_id"), name, args_of(item.get("arguments")), map, CallFormat::OpenAiResponses);
    in_namespace(&mut calls, item, namespace, map);
    if let Some(why) = item_cut(item, cut) {
        calls.iter_mut().for_each(|c| cut_call(c, why));
    }
    Some(calls)
}

/// The name to resolve a Responses call of `name` in tool namespace `namespace` by: that of the
/// map's tool named `name` of server `namespace` (tools put in namespaces by their MCP server,
/// under their MCP names), whatever else the map names `name` (another server's tool of that
/// name, given it bare where this server's was hashed); else `name`.
fn namespaced(name: String, namespace: Option<&str>, map: Option<&NameMap>) -> String {
    let (Some(ns), Some(map)) = (namespace, map) else { return name };
    match map.entries().iter().find(|e| e.server.as_deref() == Some(ns) && e.tool == name) {
        Some(e) => e.name.clone(),
        None => name,
    }
}

/// Gives the calls of a Responses item its tool `namespace`, and the name the model sent
/// (the map's may have been resolved instead, [`namespaced`]).
fn in_namespace(calls: &mut [ToolCall], item: &Value, namespace: Option<String>, map: Option<&NameMap>) {
    let Some(ns) = namespace else { return };
    let name = str_of(item, "name").unwrap_or_default();
    for call in calls {
        if call.parallel.is_none() {
            call.provider_name.clone_from(&name);
            refuse_other_namespace(call, &ns, map);
        }
        call.namespace = Some(ns.clone());
    }
}

/// A call in namespace `ns`, the name of a server of `map`, whose name the map resolved to
/// another server's tool: that server's tool of the name (which it has not) or the tool the
/// name is, which was meant is not known, and neither is called (`UNKNOWN_TOOL_NAME`). A
/// namespace that is no server of the map (an app's own grouping) says nothing of the server.
fn refuse_other_namespace(call: &mut ToolCall, ns: &str, map: Option<&NameMap>) {
    let Some(map) = map else { return };
    let Some(server) = call.server.as_deref() else { return };
    if call.error.is_some() || server == ns || !map.entries().iter().any(|e| e.server.as_deref() == Some(ns)) {
        return;
    }
    let message = format!(
        "the call names {} in namespace {}, a server of this name map, but {} is server {}'s tool {} (server {} has no tool of that name): which was meant is not known, and neither is called",
        crate::text::quote(&call.provider_name),
        crate::text::quote(ns),
        crate::text::quote(&call.provider_name),
        crate::text::quote(server),
        crate::text::quote(&call.tool),
        crate::text::quote(ns),
    );
    call.error = Some(CallError { code: ErrorCode::UnknownToolName.as_str(), message });
}

/// Whether a Responses item is a custom tool's call (`custom_tool_call`), whose text is its
/// `input`, not `arguments`.
fn custom_item(item: &Value) -> bool {
    item.get("type").and_then(Value::as_str) == Some("custom_tool_call")
}

/// The key of a Responses call item's text: a custom tool's `input`, a function's `arguments`.
fn args_key(item: &Value) -> &'static str {
    if custom_item(item) {
        "input"
    } else {
        "arguments"
    }
}

/// Why a Responses call item is cut short, `cut` being why the response it is in ended early,
/// or has not ended ([`responses_call`]): a call not `completed` in it is, and an item
/// `incomplete` or `in_progress` itself.
fn item_cut<'a>(item: &Value, cut: Option<&'a str>) -> Option<&'a str> {
    match (item.get("status").and_then(Value::as_str), cut) {
        (Some("completed"), _) => None,
        (_, Some(why)) => Some(why),
        (Some("incomplete"), None) => Some("its item is incomplete"),
        (Some("in_progress"), None) => Some("its item is still in progress"),
        _ => None,
    }
}

fn anthropic_call(block: &Value, map: Option<&NameMap>) -> Option<ToolCall> {
    if block.get("type").and_then(Value::as_str) != Some("tool_use") {
        return None;
    }
    Some(resolve(str_of(block, "id"), str_of(block, "name").unwrap_or_default(), args_of(block.get("input")), map))
}

fn bedrock_call(block: &Value, map: Option<&NameMap>) -> Option<ToolCall> {
    let tu = block.get("toolUse").filter(|tu| !server_tool_use(tu))?;
    Some(resolve(str_of(tu, "toolUseId"), str_of(tu, "name").unwrap_or_default(), args_of(tu.get("input")), map))
}

/// Whether a Bedrock `toolUse` is a system tool's (`type: "server_tool_use"`: Nova's
/// `nova_grounding`, `nova_code_interpreter`), which Bedrock runs itself, its `toolResult` after
/// it in the same turn: no call for the client, as Anthropic's `server_tool_use` is none.
fn server_tool_use(tu: &Value) -> bool {
    tu.get("type").and_then(Value::as_str) == Some("server_tool_use")
}

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The steps of a JSON path (RFC 9535) that names one value, as Gemini's `PartialArg.jsonPath`
/// does (`$.foo.bar[0].data`): `$`, then `.name`, `['name']`, `["name"]` and `[0]` steps.
/// `None` for anything else (wildcards, slices, filters, a malformed path). A path of more
/// steps than [`crate::model::MAX_JSON_NESTING`] is read no further: its steps so far, one
/// more than that, for the caller to refuse ([`apply_partial_args`]).
fn json_path(path: &str) -> Option<Vec<Step>> {
    let mut rest = path.strip_prefix('$')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if steps.len() > crate::model::MAX_JSON_NESTING {
            return Some(steps);
        }
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end == 0 || &r[..end] == "*" {
                return None;
            }
            steps.push(Step::Key(r[..end].owned()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            match r.chars().next()? {
                q @ ('\'' | '"') => {
                    // The closing quote: the first one not escaped.
                    let body = &r[1..];
                    let mut escaped = false;
                    let close = body.char_indices().find_map(|(i, c)| {
                        let end = !escaped && c == q;
                        escaped = !escaped && c == '\\';
                        end.then_some(i)
                    })?;
                    steps.push(Step::Key(quoted_name(&body[..close], q)?));
                    rest = body[close + 1..].strip_prefix(']')?;
                }
                _ => {
                    let end = r.find(']')?;
                    let digits = r[..end].trim();
                    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                        return None;
                    }
                    steps.push(Step::Index(digits.parse().ok()?));
                    rest = &r[end + 1..];
                }
            }
        } else {
            return None;
        }
    }
    Some(steps)
}

/// A quoted member name of a JSON path: JSON string escapes, plus `\'` in single quotes.
fn quoted_name(body: &str, quote: char) -> Option<String> {
    let text = if quote == '"' {
        format!("\"{body}\"")
    } else {
        // As a double-quoted JSON string: `\'` is a plain quote there, `"` needs its escape.
        let mut t = String::with_capacity(body.len() + 2);
        t.push('"');
        let mut chars = body.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next()? {
                    '\'' => t.push('\''),
                    e => {
                        t.push('\\');
                        t.push(e);
                    }
                },
                '"' => t.push_str("\\\""),
                c => t.push(c),
            }
        }
        t.push('"');
        t
    };
    match crate::model::read_json(&text) {
        Ok(Value::String(name)) => Some(name),
        _ => None,
    }
}

/// How far past an array's end a streamed path may name an index: the array is filled with
/// `null` up to it, so a bound per step would let each few bytes of `$.k[10000]` allocate an
/// array of that size. Elements stream in order; a small gap is tolerated.
const MAX_STREAMED_GAP: usize = 16;

/// What a value made by [`set_at`] costs towards the bounds, besides its key: a
/// `serde_json::Value`, its share of the vector or map it is in, a map's own allocation. What a
/// stream's path makes is charged so, not by the path's text: `[16]` makes 17 values of 4 bytes.
const MADE_VALUE_BYTES: usize = 64;

/// Sets the value at `steps` inside `root`, making the objects and arrays on the way. A string
/// where a string already is is appended to it (Gemini streams long strings in pieces at one
/// path). A path through a value of another kind (an index into an object, a key into a
/// string), or to an index more than [`MAX_STREAMED_GAP`] past an array's end, sets nothing:
/// why, as the second value. Returns about how many bytes it added ([`MADE_VALUE_BYTES`] for
/// each value made on the way, the value's size). Iterative: a path is as deep as the stream
/// says.
fn set_at(root: &mut Value, steps: &[Step], value: Value) -> (usize, Option<String>) {
    let mut made = 0;
    let mut cur = root;
    for (i, step) in steps.iter().enumerate() {
        if let Some(why) = no_place(step, cur) {
            return (made, Some(why));
        }
        let slot = match (step, cur) {
            (Step::Key(k), Value::Object(m)) => {
                if !m.contains_key(k.as_str()) {
                    made += MADE_VALUE_BYTES + k.len();
                }
                m.entry(k.clone()).or_insert(Value::Null)
            }
            (Step::Index(n), Value::Array(a)) if *n <= a.len() + MAX_STREAMED_GAP => {
                if a.len() <= *n {
                    made += (*n + 1 - a.len()) * MADE_VALUE_BYTES;
                    a.resize(*n + 1, Value::Null);
                }
                &mut a[*n]
            }
            _ => return (made, None),
        };
        match steps.get(i + 1) {
            None => {
                made += turn::size(&value);
                match (slot, value) {
                    (Value::String(s), Value::String(more)) => s.push_str(&more),
                    (slot, value) => *slot = value,
                }
                return (made, None);
            }
            Some(next) => {
                if slot.is_null() {
                    *slot = match next {
                        Step::Key(_) => Value::Object(Map::new()),
                        Step::Index(_) => Value::Array(Vec::new()),
                    };
                }
                cur = slot;
            }
        }
    }
    (made, None)
}

/// Why [`set_at`] cannot take `step` into `v`, if it cannot.
fn no_place(step: &Step, v: &Value) -> Option<String> {
    match (step, v) {
        (Step::Key(_), Value::Object(_)) => None,
        (Step::Index(n), Value::Array(a)) if *n <= a.len() + MAX_STREAMED_GAP => None,
        (Step::Index(n), Value::Array(a)) => Some(format!("it names index {n}, more than {MAX_STREAMED_GAP} past the end of an array of {}", a.len())),
        (Step::Index(n), v) => Some(format!("it names index {n} of a value of type {}", crate::model::json_type(v))),
        (Step::Key(k), v) => Some(format!("it names member \"{}\" of a value of type {}", preview(k), crate::model::json_type(v))),
    }
}

/// Why Gemini arguments were left unfinished by [`merge_args`]: past a bound, what was past it
/// not put in (the call is then `LIMIT_EXCEEDED`), or a piece that could not be put in (the call
/// is then `INVALID_ARGUMENTS`, as arguments cut short are).
#[derive(Debug, Clone, PartialEq, Eq)]
enum ArgsCut {
    /// A `partialArgs` `jsonPath` of more steps than JSON read anywhere may nest.
    TooDeep,
    /// What the arguments were made into passed the bytes they had room for.
    TooLarge,
    /// A `partialArgs` piece that names no place in the arguments: which, and why.
    Unplaced(String),
}

impl ArgsCut {
    fn why(&self) -> String {
        match self {
            Self::TooDeep => format!("a partialArgs jsonPath nests deeper than {} levels", crate::model::MAX_JSON_NESTING),
            Self::TooLarge => format!("what the streamed partialArgs make passed {MAX_OPEN_BYTES} bytes"),
            Self::Unplaced(why) => why.clone(),
        }
    }

    /// Keeps the first reason in `cut`, but a bound passed goes before a piece not placed.
    fn note(cut: &mut Option<Self>, new: Self) {
        if cut.as_ref().is_none_or(|c| matches!(c, Self::Unplaced(_)) && !matches!(new, Self::Unplaced(_))) {
            *cut = Some(new);
        }
    }
}

/// The reason a `partialArgs` piece at `path` could not be placed.
fn unplaced(path: &str, why: &str) -> ArgsCut {
    ArgsCut::Unplaced(format!("the partialArgs piece at jsonPath \"{}\" could not be placed: {why}", preview(path)))
}

/// Applies Gemini `PartialArg`s (`{jsonPath, stringValue | numberValue | boolValue |
/// nullValue, willContinue?}`) to arguments being put together. One without a value, and
/// without `willContinue`, is an empty container where nothing is yet, as @ai-sdk/google reads
/// it: `[]` for a path ending in `[]` (`$.tags[]`), `{}` for another (one where a value is
/// already, for the arguments themselves, or that names no single value, is passed over); one
/// with a path that names no single value, no place in the arguments ([`set_at`])
/// or the arguments themselves, one deeper than [`crate::model::MAX_JSON_NESTING`] steps, or
/// once `room` (bytes) is used up, is not put in, and said ([`ArgsCut`]). Returns about how many
/// bytes it added.
fn apply_partial_args(args: &mut Value, partial: &[Value], room: usize, half: &mut Option<(String, u32)>) -> (usize, Option<ArgsCut>) {
    let (mut used, mut cut) = (0, None);
    for pa in partial {
        let mut path = pa.get("jsonPath").and_then(Value::as_str).unwrap_or_default();
        // A lone half at the start (low) or end (high) of a string piece ([`LONE_HALVES`]).
        let (mut low, mut high) = (None, None);
        let value = if let Some(s) = pa.get("stringValue").filter(|v| v.is_string()) {
            s.clone()
        } else if let Some((text, l, h)) = pa.get("stringValue").and_then(lone_halves) {
            (low, high) = (l, h);
            Value::String(text)
        } else if let Some(n) = pa.get("numberValue").filter(|v| v.is_number()) {
            n.clone()
        } else if let Some(b) = pa.get("boolValue").filter(|v| v.is_boolean()) {
            b.clone()
        } else if pa.get("nullValue").is_some() {
            Value::Null
        } else if pa.get("willContinue").and_then(Value::as_bool) == Some(true) {
            continue;
        } else {
            let array = path.ends_with("[]");
            if array {
                path = &path[..path.len() - 2];
            }
            match json_path(path) {
                Some(steps) if !steps.is_empty() && value_at_steps(args, &steps).is_none() => {
                    if array {
                        Value::Array(Vec::new())
                    } else {
                        Value::Object(Map::new())
                    }
                }
                _ => continue,
            }
        };
        let Some(steps) = json_path(path) else {
            ArgsCut::note(&mut cut, unplaced(path, "it names no single value"));
            continue;
        };
        if steps.len() > crate::model::MAX_JSON_NESTING {
            ArgsCut::note(&mut cut, ArgsCut::TooDeep);
        } else if used >= room {
            ArgsCut::note(&mut cut, ArgsCut::TooLarge);
        } else if steps.is_empty() {
            ArgsCut::note(&mut cut, unplaced(path, "it names the arguments themselves, an object"));
        } else {
            let mut value = value;
            // A pair split between this piece and the last of the same path, each half U+FFFD:
            // joined.
            let pending = half.take().filter(|(at, _)| at == path);
            if let (Some((_, h)), Some(l), Value::String(text)) = (pending, low, &mut value) {
                if let Some(have) = string_at(args, &steps).filter(|have| have.ends_with('\u{FFFD}')) {
                    if let (Some(c), true) = (char::from_u32(0x10000 + ((h - 0xD800) << 10) + (l - 0xDC00)), text.starts_with('\u{FFFD}')) {
                        have.pop();
                        text.replace_range(..'\u{FFFD}'.len_utf8(), c.encode_utf8(&mut [0; 4]));
                    }
                }
            }
            // One path makes at most a few hundred KiB (400 steps of 17 values), past `room` once.
            let (made, why) = set_at(args, &steps, value);
            used += made;
            if let Some(why) = why {
                ArgsCut::note(&mut cut, unplaced(path, &why));
            }
            *half = high.map(|h| (path.to_owned(), h));
        }
    }
    (used, cut)
}

/// The value at `steps` in `root`, if there is one.
fn value_at_steps<'a>(root: &'a Value, steps: &[Step]) -> Option<&'a Value> {
    steps.iter().try_fold(root, |v, step| match (step, v) {
        (Step::Key(k), Value::Object(m)) => m.get(k.as_str()),
        (Step::Index(n), Value::Array(a)) => a.get(*n),
        _ => None,
    })
}

/// The string at `steps` in `root`, if there is one.
fn string_at<'a>(root: &'a mut Value, steps: &[Step]) -> Option<&'a mut String> {
    let v = steps.iter().try_fold(root, |v, step| match (step, v) {
        (Step::Key(k), Value::Object(m)) => m.get_mut(k.as_str()),
        (Step::Index(n), Value::Array(a)) => a.get_mut(*n),
        _ => None,
    })?;
    match v {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// The key of the object [`split_surrogates_event`] puts for a Gemini `stringValue` that starts
/// with a lone low half or ends with a lone high half (each U+FFFD in its `text`), with the two
/// halves' units (`null` for none), so that a pair split between two pieces is joined
/// ([`apply_partial_args`]). No `stringValue` the API sends is an object.
const LONE_HALVES: &str = "\u{0}loneHalves";

/// A `stringValue` of [`LONE_HALVES`]: its text, the low half it starts with, the high half it
/// ends with.
fn lone_halves(v: &Value) -> Option<(String, Option<u32>, Option<u32>)> {
    let o = v.as_object()?;
    let text = o.get("text")?.as_str()?;
    let [low, high] = o.get(LONE_HALVES)?.as_array()?.as_slice() else { return None };
    let unit = |v: &Value, range: std::ops::Range<u64>| v.as_u64().filter(|u| range.contains(u)).map(|u| u as u32);
    Some((text.to_owned(), unit(low, 0xDC00..0xE000), unit(high, 0xD800..0xDC00)))
}

/// Whether a Gemini `FunctionCall` named `name` (with `id`) goes on with the call streaming as
/// `open_name` (`open_id`): one without a name does; so does one with its name, unless its id says
/// it is another call.
fn continues_call(name: Option<&str>, id: Option<&str>, open_name: &str, open_id: Option<&str>) -> bool {
    name.is_none_or(|n| n == open_name && (id.is_none() || open_id.is_none() || id == open_id))
}

/// Adds a Gemini `FunctionCall`'s `args` (merged into an object, else in its place) and
/// `partialArgs` to the arguments put together so far. Returns about how many bytes they
/// added (`args` by its size); `partialArgs` past `room` (bytes), or too deep, are not put
/// in, and said ([`apply_partial_args`]).
fn merge_args(whole: &mut Value, args: Option<&Value>, partial: Option<&Vec<Value>>, room: usize, half: &mut Option<(String, u32)>) -> (usize, Option<ArgsCut>) {
    let mut used = 0;
    if let Some(a) = args {
        used += turn::size(a);
        match (whole.as_object_mut(), a) {
            (Some(have), Value::Object(more)) => have.extend(more.clone()),
            _ => *whole = a.clone(),
        }
    }
    match (partial, &*whole) {
        (Some(list), Value::Object(_)) => {
            let (made, cut) = apply_partial_args(whole, list, room.saturating_sub(used), half);
            (used + made, cut)
        }
        _ => (used, None),
    }
}

/// What a Gemini `functionCall` part is to the calls, as the accumulator reads it: the turn puts
/// the part in as it says ([`Accumulator::gemini_call`]), so that its calls are the accumulator's.
#[derive(Debug)]
enum GeminiStep<'a> {
    /// More of the call streaming (its arguments, and its id and signature when it had none):
    /// the call's `id` and `signature` so far; `last` when the part ends it.
    More { last: bool, id: Option<&'a str>, signature: Option<&'a str> },
    /// A call of its own: whole, or `open` while its arguments stream on.
    New { open: bool },
    /// No call: an empty `functionCall`, with none streaming.
    Nothing,
}

/// A piece of a Chat call's name: streamed in pieces it is appended (Gemini's OpenAI-compatible
/// endpoint sends `edit_ex` + `isting_file`), but some servers send the whole name again in
/// every delta (GPT-5 at times, MiniMax through NVIDIA NIM), which appended would double it: a
/// piece equal to the name so far is taken for that name again (counted in `repeats`), until
/// another piece comes after it: then those were pieces of the name (`go` + `go` + `__deploy`
/// is `gogo__deploy`, not `go__deploy`), which a server sending the whole name again never
/// sends. Whether it put such pieces back.
fn add_name_piece(name: &mut String, repeats: &mut usize, piece: &str) -> bool {
    if piece.is_empty() {
        return false;
    }
    if name == piece {
        *repeats += 1;
        return false;
    }
    // Many repeats are a server sending the name again, whatever follows.
    let back = (1..=MAX_NAME_REPEATS).contains(repeats);
    if back {
        *name = name.repeat(*repeats + 1);
    }
    *repeats = 0;
    name.push_str(piece);
    back
}

/// How many pieces equal to the name so far [`add_name_piece`] puts back.
const MAX_NAME_REPEATS: usize = 8;

/// A call being assembled from stream events.
#[derive(Debug, Clone, Default)]
struct Partial {
    id: Option<String>,
    name: String,
    args: String,
    /// Arguments given whole (an object) rather than as text fragments; Gemini's, put together
    /// from `partialArgs`.
    whole: Option<Value>,
    /// Why the arguments are incomplete, when the call ended while they were still streaming
    /// (Gemini's `willContinue`: text arguments tell it themselves, by not being JSON).
    incomplete: Option<String>,
    /// Gemini: the `thoughtSignature` of the call's first part that had one.
    signature: Option<String>,
    /// About how many bytes of arguments given whole it holds (text: `args.len()`).
    whole_bytes: usize,
    /// Gemini: `partialArgs` past a bound were not put in ([`merge_args`]): the call is
    /// `LIMIT_EXCEEDED`; or one could not be placed: `INVALID_ARGUMENTS`.
    cut: Option<ArgsCut>,
    /// Responses: the id of the call's item, by which its events find it ([`ResponsesCalls::items`]).
    item: Option<String>,
    /// OpenAI Chat: the `index` its deltas gave it, when they gave one ([`Accumulator::chat_key`]).
    index: Option<u64>,
    /// OpenAI Chat and Responses: a custom tool's call ([`custom_call`]).
    custom: bool,
    /// OpenAI Responses: the call's tool namespace ([`ToolCall::namespace`]).
    namespace: Option<String>,
    /// OpenAI Chat: the name's pieces that were the name so far, since the last other one
    /// ([`add_name_piece`]).
    name_repeats: usize,
    /// Anthropic and Bedrock: its block ended; it is given with the next event, which says
    /// whether the output limit cut it ([`Accumulator::release_closed`]).
    closed: bool,
    /// Gemini: the lone high half the last `partialArgs` string piece ended with, and its
    /// `jsonPath` ([`apply_partial_args`]).
    half: Option<(String, u32)>,
}

impl Partial {
    /// Gemini arguments merged in ([`merge_args`]), what they add counted towards
    /// [`MAX_OPEN_BYTES`] and taken from `room`, what the event's calls may still add.
    fn merge(&mut self, args: Option<&Value>, partial: Option<&Vec<Value>>, room: &mut usize) {
        let (used, cut) = merge_args(self.whole.get_or_insert_with(|| Value::Object(Map::new())), args, partial, *room, &mut self.half);
        *room = room.saturating_sub(used);
        self.whole_bytes += used;
        if cut == Some(ArgsCut::TooLarge) {
            // Past the room: the calls being read are past their bound.
            self.whole_bytes = self.whole_bytes.max(MAX_OPEN_BYTES + 1);
        }
        if let Some(cut) = cut {
            ArgsCut::note(&mut self.cut, cut);
        }
    }
}

/// The most the calls being read may hold, names and arguments, in bytes (about): a stream
/// whose calls grow past it (arguments streamed without end) is an error, and they are dropped.
const MAX_OPEN_BYTES: usize = 64 << 20;

/// The most calls read at once: a call opened past it is not made, and the stream is an error
/// (the calls being read are dropped). Models call a few tools in parallel, rarely tens.
const MAX_OPEN_CALLS: usize = 1024;

/// The calls being assembled, by `(choice or output index, call index)`, in key order: a
/// vector kept sorted (at most [`MAX_OPEN_CALLS`]; a `BTreeMap` costs much more wasm).
#[derive(Debug, Clone, Default)]
struct OpenCalls {
    calls: Vec<((u64, u64), Partial)>,
    /// A call was not made, past [`MAX_OPEN_CALLS`].
    overflow: bool,
}

impl Partial {
    /// Its size towards [`MAX_OPEN_BYTES`].
    fn bytes(&self) -> usize {
        self.name.len() + self.args.len() + self.whole_bytes + self.item.as_ref().map_or(0, String::len)
    }
}

impl OpenCalls {
    fn find(&self, key: (u64, u64)) -> std::result::Result<usize, usize> {
        self.calls.binary_search_by(|(k, _)| k.cmp(&key))
    }

    /// The call at `key`, created empty if absent; `None` when it is absent and
    /// [`MAX_OPEN_CALLS`] are open already (the overflow is then noted, for [`OpenCalls::too_large`]).
    fn entry(&mut self, key: (u64, u64)) -> Option<&mut Partial> {
        let i = match self.find(key) {
            Ok(i) => i,
            Err(_) if self.calls.len() >= MAX_OPEN_CALLS => {
                self.overflow = true;
                return None;
            }
            Err(i) => {
                self.calls.insert(i, (key, Partial::default()));
                i
            }
        };
        Some(&mut self.calls[i].1)
    }

    fn get_mut(&mut self, key: (u64, u64)) -> Option<&mut Partial> {
        let i = self.find(key).ok()?;
        Some(&mut self.calls[i].1)
    }

    fn contains(&self, key: (u64, u64)) -> bool {
        self.find(key).is_ok()
    }

    fn remove(&mut self, key: (u64, u64)) -> Option<Partial> {
        Some(self.calls.remove(self.find(key).ok()?).1)
    }

    /// Their names and arguments, in bytes ([`Partial::bytes`]): at most [`MAX_OPEN_CALLS`]
    /// added once an event.
    fn bytes(&self) -> usize {
        self.calls.iter().map(|(_, p)| p.bytes()).sum()
    }

    /// Whether a call was refused past [`MAX_OPEN_CALLS`], or the calls hold more than
    /// [`MAX_OPEN_BYTES`].
    fn too_large(&self) -> bool {
        self.overflow || self.bytes() > MAX_OPEN_BYTES
    }

    fn keys(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.calls.iter().map(|(k, _)| *k)
    }
}

/// The most calls a Responses stream completes: each leaves its key behind
/// ([`ResponsesCalls::closed`], 8 bytes and the set's room, about 4.5 MiB in all), so that none is
/// given twice. A call opened past it is not made, and the push is an error. A response holds at most
/// its output tokens' worth of calls (128,000 tokens for the largest models, a call taking several):
/// no real stream comes near it.
const MAX_CLOSED_CALLS: usize = 1 << 18;

/// What a Responses stream's events know its calls by.
#[derive(Debug, Clone, Default)]
struct ResponsesCalls {
    /// Item id → key, for the calls being read: an id goes with its call ([`Partial::item`]), so
    /// there are at most [`MAX_OPEN_CALLS`].
    items: HashMap<String, (u64, u64)>,
    /// The output indexes (keys `(index, 0)`) of the calls completed, so that an
    /// `output_item.done` after `function_call_arguments.done`, or one given again, does not give a
    /// call twice: at most [`MAX_CLOSED_CALLS`].
    closed: HashSet<u64>,
    /// A call was not made, past [`MAX_CLOSED_CALLS`].
    refused: bool,
}

impl ResponsesCalls {
    fn key(&self, item_id: Option<&str>) -> Option<(u64, u64)> {
        self.items.get(item_id?).copied()
    }

    fn closed(&self, key: (u64, u64)) -> bool {
        self.closed.contains(&key.0)
    }

    /// Notes the call at `key` completed.
    fn close(&mut self, key: (u64, u64)) {
        debug_assert_eq!(key.1, 0, "a Responses call's key is its output index");
        self.closed.insert(key.0);
    }

    /// Makes `item` the item id of `p`, the call at `key`, in place of the one it had.
    fn set_item(&mut self, p: &mut Partial, key: (u64, u64), item: Option<String>) {
        if p.item == item {
            return;
        }
        if let Some(old) = std::mem::replace(&mut p.item, item.clone()) {
            self.forget(&old, key);
        }
        if let Some(id) = item {
            self.items.insert(id, key);
        }
    }

    /// Lets go of the item id of the call at `key` (unless the id names another call since).
    fn forget(&mut self, item: &str, key: (u64, u64)) {
        if self.items.get(item) == Some(&key) {
            self.items.remove(item);
        }
    }

    /// Whether one more call may be made ([`MAX_CLOSED_CALLS`]), `open` being read: when not,
    /// the refusal is noted, for [`Accumulator::push`].
    fn room(&mut self, open: &OpenCalls) -> bool {
        let room = self.closed.len() + open.calls.len() < MAX_CLOSED_CALLS;
        self.refused |= !room;
        room
    }
}

/// Stream text read by [`Accumulator::push_text`] and not yet made into events.
#[derive(Debug, Clone, Default)]
struct StreamText {
    /// The end of the text so far, a line not ended yet.
    line: String,
    /// The `data` lines of the event being read, joined with `\n`.
    data: String,
    has_data: bool,
    /// The text so far ended with `\r`: a `\n` at the start of the next ends no other line.
    after_cr: bool,
    /// Some text came (a byte order mark is skipped only before it).
    started: bool,
    /// The lines of a JSON text over several lines (pretty-printed), read so far: empty when none
    /// is being read.
    json: String,
    /// How far `json` is through its text.
    depth: JsonDepth,
    /// Gemini: a stream may be one JSON array of events (`streamGenerateContent` without
    /// `alt=sse`), read as such when its text starts with `[`.
    arrays: bool,
    /// The stream is one JSON array of events, being read ([`EventArray`]).
    array: Option<EventArray>,
    /// A line past [`MAX_STREAM_EVENT_BYTES`] was dropped before its end: the rest of it is
    /// passed over, not read as lines of its own.
    skipping: bool,
    /// A line was refused before its end (no line of an event stream starts so): the rest of it,
    /// with its end, is passed over, so that it is one error wherever the text was cut.
    refused: bool,
}

/// A stream that is one JSON array of events, as Gemini's `streamGenerateContent` without
/// `alt=sse` sends it (`[{...}\n,\r\n{...}\n]`): each element an event, taken as soon as it is
/// whole, however the text was cut.
#[derive(Debug, Clone, Default)]
struct EventArray {
    /// The array's `[` came.
    open: bool,
    /// Its `]` came: the stream is over.
    closed: bool,
    /// The element being read, so far.
    item: String,
    /// How deep `item` is; whether inside a string.
    depth: usize,
    string: InString,
    /// An element passed [`MAX_STREAM_EVENT_BYTES`]: it was dropped with the rest of the array,
    /// whose later text is passed over (where the element ends is not known).
    dropped: bool,
}

impl EventArray {
    /// Reads `text` on, adding the elements it completes to `events` (their JSON read, or its
    /// error), and an error for text where none may be.
    fn read(&mut self, text: &str, events: &mut Vec<Result<Value>>) {
        if self.dropped {
            return;
        }
        let mut start = None;
        for (i, b) in text.bytes().enumerate() {
            if start.is_some() || !self.item.is_empty() {
                let start_at = *start.get_or_insert(i);
                if self.string.within(b) {
                    continue;
                }
                let end = match b {
                    b'"' => {
                        self.string.open = true;
                        None
                    }
                    b'{' | b'[' => {
                        self.depth += 1;
                        None
                    }
                    b'}' | b']' if self.depth > 0 => {
                        self.depth -= 1;
                        (self.depth == 0).then_some(i + 1)
                    }
                    // A scalar element (no event, but read as one, for its error) ends here.
                    b',' | b']' if self.depth == 0 => Some(i),
                    _ => None,
                };
                if let Some(end) = end {
                    self.item.push_str(&text[start_at..end]);
                    let item = std::mem::take(&mut self.item);
                    events.push(read_event(item.trim()));
                    start = None;
                    if b == b']' && end == i {
                        self.closed = true;
                    }
                }
                continue;
            }
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => {}
                b'[' if !self.open => self.open = true,
                b',' if self.open && !self.closed => {}
                b']' if self.open && !self.closed => self.closed = true,
                _ if self.open && !self.closed => {
                    start = Some(i);
                    match b {
                        b'"' => self.string.open = true,
                        b'{' | b'[' => self.depth = 1,
                        _ => {}
                    }
                }
                _ => {
                    let rest = &text[i..];
                    events.push(Err(Error::new(
                        ErrorCode::InvalidJson,
                        format!("stream text after the end of the JSON array of events: {}", preview(rest)),
                    )));
                    return;
                }
            }
        }
        if let Some(start) = start {
            self.item.push_str(&text[start..]);
        }
        if self.item.len() > MAX_STREAM_EVENT_BYTES {
            let held = self.item.len();
            *self = Self { open: true, closed: true, dropped: true, ..Self::default() };
            events.push(Err(Error::new(
                ErrorCode::LimitExceeded,
                format!("stream text of {held} bytes with no end of event (at most {MAX_STREAM_EVENT_BYTES}): dropped, and the rest of the array"),
            )));
        }
    }

    /// The end of the stream: an element cut short is its error.
    fn end(&mut self, events: &mut Vec<Result<Value>>) {
        let item = std::mem::take(&mut self.item);
        if !item.trim().is_empty() {
            events.push(read_event(item.trim()));
        }
    }
}

/// How deep a JSON text read line by line is, to know where it ends without reading it again
/// with each line (a pretty-printed body has one per value): its brackets and braces outside
/// strings.
#[derive(Debug, Clone, Copy, Default)]
struct JsonDepth {
    depth: usize,
    string: InString,
}

/// Whether a JSON text read byte by byte is inside a string, and after a backslash in one.
#[derive(Debug, Clone, Copy, Default)]
struct InString {
    open: bool,
    escaped: bool,
}

impl InString {
    /// Reads `b` inside a string: `true` when it is one of its bytes (its closing quote too),
    /// `false` outside strings (the opening quote is the caller's to see).
    fn within(&mut self, b: u8) -> bool {
        if !self.open {
            return false;
        }
        match (self.escaped, b) {
            (true, _) => self.escaped = false,
            (false, b'\\') => self.escaped = true,
            (false, b'"') => self.open = false,
            _ => {}
        }
        true
    }
}

impl JsonDepth {
    /// Reads `line` on. `true` when the text's brackets closed in it.
    fn feed(&mut self, line: &str) -> bool {
        for b in line.bytes() {
            if self.string.within(b) {
                continue;
            }
            match b {
                b'"' => self.string.open = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return true;
                    }
                }
                _ => {}
            }
        }
        false
    }

    /// Whether a text read to the end of a line may go on in the next: a bracket open, and not
    /// inside a string (a JSON string holds no line end).
    fn goes_on(&self) -> bool {
        self.depth > 0 && !self.string.open
    }
}

/// Reads a stream event's JSON text, with a typed error. Lone surrogate escapes (which no
/// UTF-8 string can hold) become U+FFFD instead of failing the event, but in a piece of
/// arguments ([`read_stream_json`]).
fn read_event(text: &str) -> Result<Value> {
    read_stream_json(text).map_err(|e| {
        e.into_error("a stream event", |e| Error::new(ErrorCode::InvalidJson, format!("stream event is not valid JSON ({e}): {}", preview(text))))
    })
}

/// JSON text, lone surrogate escapes read as U+FFFD.
fn read_repaired(text: &str) -> std::result::Result<Value, crate::model::ReadError> {
    crate::model::read_json_repaired(text)
}

/// A stream event's JSON text, lone surrogate escapes read as U+FFFD, but in a piece of
/// arguments streamed as JSON text ([`split_surrogates_event`]).
/// An integer written as a double (`"index": 0.0`) is the integer, as in the object `JSON.parse`
/// makes of the text.
fn read_stream_json(text: &str) -> std::result::Result<Value, crate::model::ReadError> {
    let mut v = match crate::model::read_json(text) {
        Err(crate::model::ReadError::Json(_)) => match split_surrogates_event(text) {
            Some(v) => Ok(v),
            None => read_repaired(text),
        },
        read => read,
    }?;
    crate::model::integral_numbers(&mut v);
    Ok(v)
}

/// Where the stand-ins for lone UTF-16 surrogates begin (`U+D800` is `U+10F800`): a private use
/// code point for each, read from the event's text and gone once it is read
/// ([`split_surrogates_event`]). A stand-in is told from the same character sent by where it is,
/// not by what it is: only where the text read with U+FFFD for each lone half has U+FFFD.
const SURROGATE_STAND_IN: u32 = 0x10_F800;

/// A step of the path to a value inside an event.
#[derive(Clone, Copy)]
enum ArgsStep {
    Key(&'static str),
    Index(usize),
}

/// Where an event has a piece of arguments streamed as JSON text, as the accumulator reads it:
/// Anthropic's `delta.partial_json` (`input_json_delta`), a Chat choice's calls'
/// `function.arguments`, a Responses event's arguments `delta`, `arguments` and
/// `item.arguments` (a `function_call` item), Bedrock's `contentBlockDelta.delta.toolUse.input`.
/// The arguments themselves (objects: Gemini's `args`, Anthropic's `input`) and free text (a
/// custom tool's input) are none of them.
fn args_text_paths(ev: &Value) -> Vec<Vec<ArgsStep>> {
    use ArgsStep::{Index, Key};
    let mut paths = Vec::new();
    let kind = ev.get("type").and_then(Value::as_str);
    match kind {
        Some("content_block_delta") if args_pointer(ev, &[Key("delta"), Key("type")]).and_then(Value::as_str) == Some("input_json_delta") => {
            paths.push(vec![Key("delta"), Key("partial_json")]);
        }
        Some("response.function_call_arguments.delta") => paths.push(vec![Key("delta")]),
        Some("response.function_call_arguments.done") => paths.push(vec![Key("arguments")]),
        Some("response.output_item.added" | "response.output_item.done") => paths.push(vec![Key("item"), Key("arguments")]),
        _ => {}
    }
    paths.push(vec![Key("contentBlockDelta"), Key("delta"), Key("toolUse"), Key("input")]);
    for (ci, choice) in array(ev, "choices").iter().enumerate() {
        for m in ["delta", "message"] {
            for (ti, _) in choice.get(m).map(|m| array(m, "tool_calls")).unwrap_or_default().iter().enumerate() {
                paths.push(vec![Key("choices"), Index(ci), Key(m), Key("tool_calls"), Index(ti), Key("function"), Key("arguments")]);
            }
        }
    }
    paths
}

/// Where a Gemini event has string pieces of arguments streamed as values (Vertex's
/// `functionCall.partialArgs[].stringValue`): a pair split between two of them is joined by
/// [`apply_partial_args`] ([`LONE_HALVES`]).
fn string_value_paths(ev: &Value) -> Vec<Vec<ArgsStep>> {
    use ArgsStep::{Index, Key};
    let mut paths = Vec::new();
    for (ci, c) in array(ev, "candidates").iter().enumerate() {
        for (pi, part) in c.get("content").map(|c| array(c, "parts")).unwrap_or_default().iter().enumerate() {
            for (ai, _) in part.get("functionCall").map(|f| array(f, "partialArgs")).unwrap_or_default().iter().enumerate() {
                paths.push(vec![Key("candidates"), Index(ci), Key("content"), Key("parts"), Index(pi), Key("functionCall"), Key("partialArgs"), Index(ai), Key("stringValue")]);
            }
        }
    }
    paths
}

/// The value at `path` in `v`.
fn args_pointer<'a>(v: &'a Value, path: &[ArgsStep]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, s| match s {
        ArgsStep::Key(k) => v.get(*k),
        ArgsStep::Index(i) => v.get(*i),
    })
}

/// [`args_pointer`], to change the value.
fn args_pointer_mut<'a>(v: &'a mut Value, path: &[ArgsStep]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, s| match s {
        ArgsStep::Key(k) => v.get_mut(*k),
        ArgsStep::Index(i) => v.get_mut(*i),
    })
}

/// A stream event whose JSON text has lone surrogate escapes (`\ud83d`), read so that a pair
/// split between two pieces of arguments (a delta ending with `\ud83d`, the next starting with
/// `\ude00`, as a server that cuts UTF-16 text sends them) is joined again, as JavaScript joins
/// them: in a piece of arguments streamed as JSON text ([`args_text_paths`], where the
/// accumulator reads it in each provider's events), a lone surrogate is kept as its escape,
/// which the arguments' JSON reads as one character with the other half, or as U+FFFD alone;
/// anywhere else (text, names, keys, the arguments' own fields of any name) it is U+FFFD, as
/// ever. `None` when the text has none, or does not read.
///
/// Whether a lone half at the start of a streamed piece, or after backslashes only, is escaped
/// by them takes the call's text before the piece to tell (`{"path":"C:\` then `\<half>`: the
/// piece's backslash ends an escaped one); read here, such an event is given for the
/// accumulator to read once the pieces before it are in: [`DEFERRED_EVENT`].
pub(crate) fn split_surrogates_event(text: &str) -> Option<Value> {
    split_surrogates_event_with(text, None)
}

/// The key of the object [`split_surrogates_event`] gives for an event whose lone halves take
/// the call's text so far to read (its text, as its value): [`Accumulator::push`] reads it again
/// with [`split_surrogates_event_with`]. No event the providers send has it.
const DEFERRED_EVENT: &str = "\u{0}deferredEvent";

/// Whether the call a streamed piece of arguments goes on ends with an open escape
/// ([`split_surrogates_event_with`]).
type OpenEscape<'a> = &'a dyn Fn(&Value, &[ArgsStep]) -> bool;

/// [`split_surrogates_event`], with `open_escape`: whether the text of the call a streamed piece
/// of arguments (in the event, at the path) goes on ends with a backslash that escapes what comes
/// next (an odd run); `None` while it cannot be told, [`DEFERRED_EVENT`] given then where it
/// matters.
fn split_surrogates_event_with(text: &str, open_escape: Option<OpenEscape<'_>>) -> Option<Value> {
    let (repaired, at) = crate::model::repair_lone_surrogates_at(text)?;
    let mut v = crate::model::read_json(&repaired).ok()?;
    let mut events: Vec<&mut Value> = match &mut v {
        Value::Array(a) => a.iter_mut().collect(),
        v => vec![v],
    };
    // Each path, and whether its string is one of Gemini's pieces (else JSON text).
    let paths: Vec<(usize, Vec<ArgsStep>, bool)> = events
        .iter()
        .enumerate()
        .flat_map(|(e, ev)| {
            let pieces = string_value_paths(ev).into_iter().map(|p| (p, true));
            args_text_paths(ev).into_iter().map(|p| (p, false)).chain(pieces).filter(|(p, _)| args_pointer(ev, p).is_some_and(|s| s.as_str().is_some_and(|s| s.contains('\u{FFFD}')))).map(move |(p, g)| (e, p, g))
        })
        .collect();
    if paths.is_empty() {
        return Some(v);
    }
    // The text again with a stand-in for each lone half: where a string of it differs from the
    // same string read with U+FFFD, it had a lone half.
    let mut marked = String::with_capacity(text.len());
    let mut last = 0;
    for i in at {
        let unit = u32::from_str_radix(text.get(i + 2..i + 6)?, 16).ok()?;
        marked.push_str(&text[last..i]);
        marked.push(char::from_u32(SURROGATE_STAND_IN + (unit - 0xD800))?);
        last = i + 6;
    }
    marked.push_str(&text[last..]);
    let marked = crate::model::read_json(&marked).ok()?;
    let marked_events: Vec<&Value> = match &marked {
        Value::Array(a) => a.iter().collect(),
        v => vec![v],
    };
    for (e, path, piece) in paths {
        let (Some(Value::String(m)), Some(ev)) = (marked_events.get(e).and_then(|ev| args_pointer(ev, &path)), events.get_mut(e)) else { continue };
        // Whether the call's text before this piece leaves an escape open, if it takes telling.
        let escape_before = |ev: &Value| match open_escape {
            Some(f) => Some(f(ev, &path)),
            None if streamed_piece(&path) => None,
            None => Some(false),
        };
        let before = if piece { Some(false) } else { leading_half(m, ev, &path).map_or(Some(false), |()| escape_before(ev)) };
        let Some(before) = before else {
            return Some(Value::Object(Map::from_iter([(DEFERRED_EVENT.to_owned(), Value::String(text.to_owned()))])));
        };
        let Some(slot) = args_pointer_mut(ev, &path) else { continue };
        let Value::String(s) = slot else { continue };
        if m.chars().count() != s.chars().count() {
            continue;
        }
        if piece {
            // A lone half that starts or ends it, told apart by where it is.
            let lone = |c: Option<char>, plain: Option<char>, range: std::ops::Range<u32>| {
                let (c, plain) = (c? as u32, plain?);
                let unit = c.checked_sub(SURROGATE_STAND_IN)? + 0xD800;
                (plain == '\u{FFFD}' && c != plain as u32 && range.contains(&unit)).then_some(unit)
            };
            let low = lone(m.chars().next(), s.chars().next(), 0xDC00..0xE000);
            let high = lone(m.chars().next_back(), s.chars().next_back(), 0xD800..0xDC00);
            if low.is_some() || high.is_some() {
                let text = std::mem::take(s);
                let halves = Value::Array(vec![low.map_or(Value::Null, Value::from), high.map_or(Value::Null, Value::from)]);
                *slot = Value::Object(Map::from_iter([("text".to_owned(), Value::String(text)), (LONE_HALVES.to_owned(), halves)]));
            }
            continue;
        }
        let mut out = String::with_capacity(s.len() + 8);
        // A lone half right after a backslash that escapes it stays U+FFFD: as an escape it
        // would make `\\ud83d`, the text `\ud83d`, of arguments that were not JSON. The run of
        // backslashes at the piece's start goes on from the call's text before it.
        let mut backslashes = usize::from(before);
        for (c, plain) in m.chars().zip(s.chars()) {
            match (c as u32).checked_sub(SURROGATE_STAND_IN) {
                Some(n) if c != plain && backslashes % 2 == 0 => out.push_str(&format!("\\u{:04x}", 0xD800 + n)),
                _ => out.push(plain),
            }
            backslashes = if plain == '\\' { backslashes + 1 } else { 0 };
        }
        *s = out;
    }
    Some(v)
}

/// Whether a streamed piece of arguments at `path` (in the event `ev`, `m` its text with the
/// stand-ins) has a lone half with nothing but backslashes before it: `Some(())` then, as what
/// the backslashes do takes the call's text before the piece to tell.
fn leading_half(m: &str, ev: &Value, path: &[ArgsStep]) -> Option<()> {
    let plain = args_pointer(ev, path)?.as_str()?;
    let (c, p) = m.chars().zip(plain.chars()).find(|&(c, _)| c != '\\')?;
    (c != p && (c as u32) >= SURROGATE_STAND_IN).then_some(())
}

/// Whether `path` ([`args_text_paths`]) is a piece of arguments streamed after others of its call
/// (a delta), rather than the whole of them.
fn streamed_piece(path: &[ArgsStep]) -> bool {
    use ArgsStep::Key;
    match path {
        [Key("delta"), Key("partial_json")] | [Key("delta")] | [Key("contentBlockDelta"), ..] => true,
        [Key("choices"), _, Key(m), ..] => *m == "delta",
        _ => false,
    }
}

/// The most text of one event the stream reader holds while it waits for the event's end.
const MAX_STREAM_EVENT_BYTES: usize = 16 << 20;

/// The event in `text` if it is whole already: a JSON object or array (or `[DONE]`, which is no
/// event). `None` while it may go on: text cut inside an object is not JSON, and a whole object
/// cannot be the start of a longer one.
fn whole_event(text: &str) -> Option<Option<Value>> {
    let t = text.trim();
    if t == "[DONE]" {
        return Some(None);
    }
    if !(t.starts_with('{') && t.ends_with('}') || t.starts_with('[') && t.ends_with(']')) {
        return None;
    }
    read_stream_json(t).ok().map(Some)
}

impl StreamText {
    /// Reads `text` on from where the last left off, adding the events it completes to
    /// `events` (a JSON text that does not parse is an error there, in its place).
    fn read(&mut self, mut text: &str, events: &mut Vec<Result<Value>>) {
        if text.is_empty() {
            return;
        }
        if !self.started {
            text = text.strip_prefix('\u{feff}').unwrap_or(text);
            // White space before the stream starts tells nothing yet.
            if self.arrays && text.trim_start().is_empty() {
                return;
            }
            self.started = true;
            // `[`, but not `[DONE]`: one JSON array of events.
            let t = text.trim_start();
            if self.arrays && t.starts_with('[') && !t[1..].trim_start().starts_with('D') {
                self.array = Some(EventArray::default());
            }
        }
        if let Some(array) = &mut self.array {
            array.read(text, events);
            return;
        }
        if self.skipping {
            // Up to the line end, which ends it (and, after it, an event as an empty line does).
            let Some(end) = text.find(['\n', '\r']) else { return };
            self.skipping = false;
            text = &text[end..];
        }
        if self.refused {
            // Up to the line end, which is the refused line's own: what follows is read as ever.
            let Some(end) = text.find(['\n', '\r']) else { return };
            self.refused = false;
            self.after_cr = text.as_bytes()[end] == b'\r';
            text = &text[end + 1..];
        }
        // One JSON text given whole between events, over several lines (pretty-printed): one
        // event. (Lines of JSON, one event each, are read below.)
        if self.line.is_empty() && !self.has_data && self.json.is_empty() {
            let t = text.trim();
            if t.starts_with(['{', '[']) && t.ends_with(['}', ']']) && t.contains(['\n', '\r']) {
                if let Ok(mut v) = crate::model::read_json(t) {
                    crate::model::integral_numbers(&mut v);
                    self.after_cr = false;
                    events.push(Ok(v));
                    return;
                }
            }
        }
        // A line given without its end (one line per push, as a line reader gives them), then
        // the start of another: the first is whole. Only a line that carries nothing is taken
        // so (a data line is taken as soon as its JSON is whole, below); one cut short, whose
        // rest this text is, goes on as the text says.
        if !self.line.is_empty() && ignored_line(&self.line) && starts_a_line(text) {
            let line = std::mem::take(&mut self.line);
            self.line_done(&line, events);
        }
        let mut start = 0;
        for (i, b) in text.bytes().enumerate() {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    start = i + 1;
                    continue;
                }
            }
            if b == b'\n' || b == b'\r' {
                self.line.push_str(&text[start..i]);
                let line = std::mem::take(&mut self.line);
                self.line_done(&line, events);
                self.after_cr = b == b'\r';
                start = i + 1;
            }
        }
        self.line.push_str(&text[start..]);
        // A line not ended yet whose event is whole already: a JSON text, or a data line, given
        // without its line end (a bare JSON string, a `data: {...}` line).
        let line = self.line.trim_start();
        let candidate = if !self.json.is_empty() {
            // The last line of a JSON text over several, given without its end.
            let mut depth = self.depth;
            let closes = self.line.trim_end().ends_with(['}', ']']) && depth.feed(&self.line);
            if closes {
                whole_event(&format!("{}\n{}", self.json, self.line))
            } else {
                None
            }
        } else if line.starts_with(['{', '[']) {
            whole_event(line)
        } else if let Some(value) = self.line.strip_prefix("data:") {
            // At the line's start only: ` data:` is no field of the stream, as when the line comes whole.
            let value = value.strip_prefix(' ').unwrap_or(value);
            if self.has_data {
                whole_event(&format!("{}\n{value}", self.data))
            } else {
                whole_event(value)
            }
        } else {
            None
        };
        if let Some(event) = candidate {
            if self.line.starts_with("data:") {
                self.data.clear();
                self.has_data = false;
            }
            self.line.clear();
            (self.json, self.depth) = (String::new(), JsonDepth::default());
            events.extend(event.map(Ok));
        } else if self.json.is_empty() && !may_go_on(&self.line) {
            // No line of an event stream starts so: an error now, not with the next text, and
            // the rest of the line passed over (as when it comes whole), not read as a line.
            let line = std::mem::take(&mut self.line);
            self.line_done(&line, events);
            self.refused = true;
        }
        // A line that never ends, or data that never makes an event: bounded, and said.
        if self.line.len() + self.data.len() + self.json.len() > MAX_STREAM_EVENT_BYTES {
            let held = self.line.len() + self.data.len() + self.json.len();
            self.skipping = !self.line.is_empty();
            (self.line, self.data, self.has_data) = (String::new(), String::new(), false);
            (self.json, self.depth) = (String::new(), JsonDepth::default());
            events.push(Err(Error::new(
                ErrorCode::LimitExceeded,
                format!("stream text of {held} bytes with no end of event (at most {MAX_STREAM_EVENT_BYTES}): dropped (the rest of its line is passed over)"),
            )));
        }
    }

    /// One whole line, as the SSE standard reads it, and JSON lines (NDJSON) as events; a JSON
    /// text over several lines (pretty-printed) is one event, read once its brackets close.
    fn line_done(&mut self, line: &str, events: &mut Vec<Result<Value>>) {
        if !self.json.is_empty() {
            // A line of an event stream (a field, a comment, or JSON at its start, whole) ends
            // the JSON text unfinished: its error, then the line as ever.
            let ends = match line.starts_with(['{', '[']) {
                true => read_stream_json(line).is_ok(),
                false => starts_a_line(line),
            };
            if !ends {
                self.json.push('\n');
                self.json.push_str(line);
                if self.depth.feed(line) || !self.depth.goes_on() {
                    let json = std::mem::take(&mut self.json);
                    self.depth = JsonDepth::default();
                    events.push(read_event(json.trim()));
                }
                return;
            }
            let json = std::mem::take(&mut self.json);
            self.depth = JsonDepth::default();
            events.push(read_event(json.trim()));
        }
        if line.is_empty() {
            self.dispatch(events);
            return;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || line.starts_with(':') {
            return; // A comment, or only spaces.
        }
        if trimmed.starts_with(['{', '[']) {
            if trimmed == "[DONE]" {
                return;
            }
            // A JSON line, or the first of a JSON text over several.
            let mut depth = JsonDepth::default();
            if !depth.feed(trimmed) && depth.goes_on() {
                (self.json, self.depth) = (trimmed.to_owned(), depth);
            } else {
                events.push(read_event(trimmed));
            }
            return;
        }
        let (field, value) = match line.find(':') {
            Some(p) => (&line[..p], line[p + 1..].strip_prefix(' ').unwrap_or(&line[p + 1..])),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
                // Dispatched as soon as it is a whole JSON object, without waiting for the empty
                // line: text given a line at a time may have none.
                if let Some(event) = whole_event(&self.data) {
                    self.data.clear();
                    self.has_data = false;
                    events.extend(event.map(Ok));
                }
            }
            "event" | "id" | "retry" => {}
            _ => {
                // AWS's binary event stream (Bedrock's ConverseStream body) names its headers in ASCII.
                let hint = if line.contains(":event-type") || line.contains(":message-type") {
                    " (this is AWS's binary event stream, as Bedrock's ConverseStream sends it: push the events the SDK reads from it, `for await (const event of response.stream)`)"
                } else {
                    ""
                };
                events.push(Err(Error::new(
                    ErrorCode::InvalidJson,
                    format!("stream text is neither SSE (data:, event:, id:, retry:, a comment) nor JSON{hint}: {}", preview(line)),
                )))
            }
        }
    }

    /// The empty line: the event's data, if any, is the event.
    fn dispatch(&mut self, events: &mut Vec<Result<Value>>) {
        if !self.has_data {
            return;
        }
        let data = std::mem::take(&mut self.data);
        self.has_data = false;
        let t = data.trim();
        if !t.is_empty() && t != "[DONE]" {
            events.push(read_event(t));
        }
    }

    /// The end of the stream: a last line or event not ended is read as if it were.
    fn end(&mut self, events: &mut Vec<Result<Value>>) {
        let arrays = self.arrays;
        if let Some(mut array) = self.array.take() {
            array.end(events);
            *self = Self { arrays, ..Self::default() };
            return;
        }
        let line = std::mem::take(&mut self.line);
        if !line.is_empty() {
            self.line_done(&line, events);
        }
        if !self.json.is_empty() {
            events.push(read_event(self.json.trim()));
        }
        self.dispatch(events);
        *self = Self { arrays, ..Self::default() };
    }
}

/// A line that carries nothing for calls, when whole: an `event`, `id` or `retry` field, or a
/// comment.
/// The fields of an event stream's lines: `data`, then those read and ignored.
const SSE_FIELDS: [&str; 4] = ["data:", "event:", "id:", "retry:"];

fn ignored_line(line: &str) -> bool {
    line.starts_with(':') || SSE_FIELDS[1..].iter().any(|f| line.starts_with(f))
}

/// Whether `line`, not ended yet, may be the start of a line of an event stream.
fn may_go_on(line: &str) -> bool {
    line.trim().is_empty()
        || line.starts_with(':')
        || line.trim_start().starts_with(['{', '['])
        || SSE_FIELDS.iter().any(|f| line.starts_with(f) || f.starts_with(line))
}

/// Whether `text` begins as a line of an event stream does (a field, a comment, or JSON).
fn starts_a_line(text: &str) -> bool {
    text.starts_with([':', '{', '[']) || SSE_FIELDS.iter().any(|f| text.starts_with(f))
}

/// Assembles complete tool calls from a provider's stream events or chunks.
///
/// Feed every event to [`Accumulator::push`] (or the stream's text to
/// [`Accumulator::push_text`]); it returns the calls that the event completed.
/// [`Accumulator::finish`] returns any call still open when the stream ended (a stream cut
/// short yields its partial calls, with an error if their arguments are incomplete).
/// [`Accumulator::message`] gives the model's turn, everything pushed so far put together in the
/// provider's own form.
#[derive(Debug, Clone)]
pub struct Accumulator {
    format: CallFormat,
    open: OpenCalls,
    /// Stream text not yet read as events.
    text: StreamText,
    /// Calls completed by a push that failed (text with an event that could not be read, a
    /// bound passed): the error was thrown, these come with the next push (or `finish`), in
    /// order ([`Accumulator::carry`]).
    carried: Vec<ToolCall>,
    /// Responses: the calls' item ids, and the calls completed.
    responses: ResponsesCalls,
    /// OpenAI Chat: the key the next call gets, and the key of the call the last delta went on
    /// ([`Accumulator::chat_key`]).
    chat_next: u64,
    chat_last: Option<(u64, u64)>,
    /// The id of the completion, response or message read (the last given: Chat's `id`,
    /// Responses' `response.id`, Gemini's `responseId`, Anthropic's `message.id`), and whether
    /// it ended (Chat: the first choice's `finish_reason`; Responses: `response.completed` or
    /// `response.incomplete`; Gemini: the first candidate's `finishReason`; Anthropic:
    /// `message_stop`; Bedrock: `messageStop`; Ollama `/api/chat`: `done: true`), by which
    /// another's start is known
    /// ([`Accumulator::next_turn`]).
    stream_id: Option<String>,
    stream_ended: bool,
    /// OpenAI Chat and Gemini: the calls dropped past the bounds ([`Accumulator::drop_open`]),
    /// by choice or candidate, `index` and id, so that the deltas still streaming to them are
    /// passed over rather than read as calls without a name.
    dropped: Vec<(u64, Option<u64>, Option<String>)>,
    emitted: usize,
    /// Gemini: the bytes the calls' arguments may still grow by in the event being read
    /// ([`MAX_OPEN_BYTES`] less what the calls being read hold when it starts): `partialArgs`
    /// make more than they say, and calls completed in the event are not counted with those
    /// being read.
    room: usize,
    /// The model's turn, for [`Accumulator::message`].
    turn: turn::Turn,
    /// [`Accumulator::finish`] ended the stream: the next push starts another (the next turn's).
    finished: bool,
    /// Gemini: the turn's first call, whole in a part of the first candidate without a
    /// `thoughtSignature`, held until the part after it, as its signature may come alone in that
    /// part ([`Accumulator::gemini_release`]).
    held: Option<ToolCall>,
    /// Gemini: the `finishReason` and `finishMessage` of a candidate read that ended at a tool
    /// call that failed ([`gemini_call_failed`]), for the push (or `parse_tool_calls`) to throw.
    failed: Option<Value>,
    /// Gemini: the failure the last push threw, the calls it dropped and the response it found
    /// dropped ([`thrown_failure`]), for [`Accumulator::push_all`] to drop those of the turn that
    /// earlier events completed too.
    thrown: Option<(Value, usize, Option<String>)>,
    /// [`Accumulator::next_turn`] began another turn's stream in the last push.
    began: bool,
}

/// The `PROVIDER_ERROR` an accumulator throws for a Gemini turn that ended at a tool call that
/// failed: `thrown` holds the failure, the calls of the turn not given yet that it dropped, and
/// the error of a response dropped as this one began (said once, so in this error); `more` the
/// calls dropped besides.
fn thrown_failure(thrown: &(Value, usize, Option<String>), more: usize) -> Error {
    let (failure, dropped, next) = thrown;
    let mut e = gemini_failure(failure, true, dropped + more);
    if let Some(next) = next {
        e.message.push_str(&format!("; also, {next}"));
    }
    e
}

impl Accumulator {
    /// A new accumulator for a provider's stream format.
    pub fn new(format: CallFormat) -> Self {
        Self {
            format,
            open: OpenCalls::default(),
            text: StreamText { arrays: format == CallFormat::Gemini, ..StreamText::default() },
            carried: Vec::new(),
            responses: ResponsesCalls::default(),
            chat_next: 0,
            chat_last: None,
            stream_id: None,
            stream_ended: false,
            dropped: Vec::new(),
            emitted: 0,
            room: 0,
            turn: turn::Turn::default(),
            finished: false,
            held: None,
            failed: None,
            thrown: None,
            began: false,
        }
    }

    /// A push after [`Accumulator::finish`] is the next stream's (an accumulator given the next
    /// turn): it starts afresh, rather than take its calls for those completed before (a
    /// Responses call at an output index done in the last turn was passed over) or its parts
    /// for more of the last turn (two Anthropic turns made one message).
    fn start_again(&mut self) {
        if self.finished {
            *self = Self::new(self.format);
        }
    }

    /// `ev` begins another turn's stream without a `finish` after the last (as an app may leave
    /// out, every Responses and Gemini call coming from `push`): a Responses `response.created`
    /// of another response than the one read (by its id; without ids, after the one read
    /// ended), a Chat chunk of another completion (its `id`) that has the first choice's message
    /// begin, after the one read ended (a server may give every chunk an id of its own: not
    /// within a completion, nor in the usage chunk after its end), a Gemini chunk with parts of
    /// another response (its `responseId`, which every chunk of one repeats) after the one read
    /// ended (its first candidate's `finishReason`; not the usage chunk after it; without ids,
    /// none: a proxy may put a `finishReason` on every chunk), an Anthropic `message_start` of another message (its id; without ids, after the
    /// `message_stop` of the one read), a Bedrock `messageStart` after a `messageStop`, an
    /// Ollama `/api/chat` chunk with a message after a `done: true` one. The
    /// accumulator then starts afresh, as after `finish`, rather than take the next turn's calls
    /// for the last's (a Responses call at an output index done before passed over) or put two
    /// turns in one message; the text not yet read stays, the next stream's. Calls of the last
    /// turn not given yet (a stream cut short, calls kept from a push that failed, a Gemini call
    /// held for its signature) are dropped: the error says so, rather than give them with the
    /// next turn's.
    fn next_turn(&mut self, ev: &Value) -> Option<Error> {
        let (id, begins, ends) = self.turn_edges(ev);
        let mut error = None;
        if begins {
            let left = self.open.calls.len() + self.carried.len() + usize::from(self.held.is_some());
            let text = std::mem::take(&mut self.text);
            *self = Self::new(self.format);
            self.text = text;
            self.began = true;
            let what = match self.format {
                CallFormat::OpenAiResponses | CallFormat::Gemini => "response",
                CallFormat::Anthropic | CallFormat::Bedrock => "message",
                CallFormat::OpenAi | CallFormat::Ollama => "completion",
            };
            error = (left > 0).then(|| {
                Error::new(
                    ErrorCode::InvalidInput,
                    format!("another {what} began before finish() ended the stream of the last: its {left} tool calls not given yet were dropped (call finish() when a stream ends)"),
                )
            });
        }
        if let Some(id) = id.filter(|&i| self.stream_id.as_deref() != Some(i)) {
            self.stream_id = Some(id.owned());
        }
        self.stream_ended |= ends;
        error
    }

    /// What [`Accumulator::next_turn`] reads of `ev`: its id (of the completion, response or
    /// message it is of, when it says), whether it begins another turn's stream than the one
    /// read, and whether it ends the one it is of.
    fn turn_edges<'e>(&self, ev: &'e Value) -> (Option<&'e str>, bool, bool) {
        match self.format {
            CallFormat::OpenAiResponses => {
                let kind = ev.get("type").and_then(Value::as_str).unwrap_or("");
                let id = ev.get("response").and_then(|r| r.get("id")).and_then(Value::as_str).filter(|i| !i.is_empty());
                let begins = kind == "response.created"
                    && match (id, self.stream_id.as_deref()) {
                        (Some(new), Some(old)) => new != old,
                        _ => self.stream_ended,
                    };
                (id, begins, matches!(kind, "response.completed" | "response.incomplete"))
            }
            // Ollama's own `/api/chat` chunks have no id: `done: true` ends the response, and a
            // chunk with a message after it is the next one's (its first, or a whole response).
            CallFormat::Ollama if ev.get("choices").is_none() => {
                (None, self.stream_ended && ev.get("message").is_some_and(Value::is_object), ev.get("done").and_then(Value::as_bool) == Some(true))
            }
            CallFormat::OpenAi | CallFormat::Ollama => {
                let id = ev.get("id").and_then(Value::as_str).filter(|i| !i.is_empty());
                let first = array(ev, "choices").iter().find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0);
                let delta = first.and_then(|c| c.get("delta"));
                let starts = |d: &Value| {
                    d.get("role").is_some_and(Value::is_string)
                        || ["content", "refusal", "reasoning_content", "reasoning"].iter().any(|k| d.get(*k).and_then(Value::as_str).is_some_and(|t| !t.is_empty()))
                        || d.get("tool_calls").and_then(Value::as_array).is_some_and(|t| !t.is_empty())
                };
                let begins = self.stream_ended && id.is_some() && id != self.stream_id.as_deref() && delta.is_some_and(starts);
                (id, begins, first.and_then(|c| c.get("finish_reason")).is_some_and(|r| !r.is_null()))
            }
            CallFormat::Gemini => {
                let id = ev.get("responseId").and_then(Value::as_str).filter(|i| !i.is_empty());
                // The first candidate, as `gemini_value` reads it (one pushed alone is its own).
                let index = |c: &Value, i: usize| c.get("index").and_then(Value::as_u64).unwrap_or(i as u64);
                let first = match ev.get("candidates").and_then(Value::as_array) {
                    Some(candidates) => candidates.iter().enumerate().find(|&(i, c)| index(c, i) == 0).map(|(_, c)| c),
                    None => Some(ev).filter(|c| (c.get("content").is_some() || c.get("finishReason").is_some()) && index(c, 0) == 0),
                };
                let starts = first.and_then(|c| c.get("content")).is_some_and(|c| !array(c, "parts").is_empty());
                // As Chat's: a producer may give each chunk an id of its own, or put a
                // `finishReason` on every chunk; only both together (another id with parts, after
                // an end) begin another response. Without ids, none is known to begin.
                let begins = self.stream_ended && id.is_some() && id != self.stream_id.as_deref() && starts;
                (id, begins, first.and_then(|c| c.get("finishReason")).and_then(Value::as_str).is_some_and(|r| !r.is_empty()))
            }
            CallFormat::Anthropic => {
                let kind = ev.get("type").and_then(Value::as_str).unwrap_or("");
                let id = ev.get("message").and_then(|m| m.get("id")).and_then(Value::as_str).filter(|i| kind == "message_start" && !i.is_empty());
                let begins = kind == "message_start"
                    && match (id, self.stream_id.as_deref()) {
                        (Some(new), Some(old)) => new != old,
                        _ => self.stream_ended,
                    };
                (id, begins, kind == "message_stop")
            }
            CallFormat::Bedrock => (None, self.stream_ended && ev.get("messageStart").is_some(), ev.get("messageStop").is_some()),
        }
    }

    /// The provider format it reads.
    pub fn format(&self) -> CallFormat {
        self.format
    }

    /// How many calls have been completed so far (a parallel wrapper counts once).
    pub fn completed(&self) -> usize {
        self.emitted
    }

    /// Takes one event (a parsed JSON chunk, an object). Returns the calls it completed.
    /// Anything but an object is `INVALID_INPUT` (text goes to [`Accumulator::push_text`]); the
    /// provider's error event is `PROVIDER_ERROR`: Anthropic's `{type: "error", error}`, an OpenAI
    /// Chat chunk's `error`, Responses' `error` and `response.failed`, Gemini's `{error}` (also
    /// in an array, as its JSON stream ends with one: the elements before it are read first, as
    /// the array's text is), Bedrock's `{xxxException: {message}}`, Ollama's `{error: "..."}`; and
    /// a Gemini chunk whose candidate read ends at a tool call that failed
    /// ([`gemini_call_failed`]), read first (its parts are the turn's, a call it completes or
    /// releases comes next). Either way the calls completed before it come with the next push or
    /// `finish`, and the accumulator goes on.
    pub fn push(&mut self, event: &Value, map: Option<&NameMap>) -> Result<Vec<ToolCall>> {
        // Suggestions for at most a few unknown names of the response (each a pass over the map).
        let _budget = crate::naming::SuggestionBudget::start();
        if let Some(text) = event.as_object().filter(|o| o.len() == 1).and_then(|o| o.get(DEFERRED_EVENT)).and_then(Value::as_str) {
            // Its lone halves read now that the pieces before it are in.
            let read = split_surrogates_event_with(text, Some(&|ev: &Value, path: &[ArgsStep]| self.open_escape(ev, path)));
            let event = match read {
                Some(v) => v,
                None => read_event(text)?,
            };
            return self.push(&event, map);
        }
        self.start_again();
        if let (Value::Array(items), CallFormat::Gemini) = (event, self.format) {
            // Gemini's stream without `alt=sse`: one JSON array of events, given whole (or as
            // much of it as came). Each element is read in turn, as the array's text is: the
            // calls of those before an error (the `{error}` the stream ends with, an element that
            // is no event) come out, the error with them.
            let events = items.iter().enumerate().map(|(i, v)| match v {
                Value::Object(_) => Ok(v.clone()),
                _ => Err(Error::new(
                    ErrorCode::InvalidInput,
                    format!("element {i} of the stream's array is not an event: a stream event must be an object, got {}", crate::model::json_type(v)),
                )),
            });
            return self.push_all(events.collect(), map);
        }
        let items = event.as_array().map_or(std::slice::from_ref(event), Vec::as_slice);
        if let Some(e) = items.iter().find_map(|v| provider_error(v, self.format, true)) {
            // No stop reason comes after the provider's error: a call whose block ended stands,
            // and comes with the next push, as calls completed before an error do.
            let mut ended = Vec::new();
            self.release_closed(None, map, &mut ended);
            self.carried.extend(ended);
            return Err(e);
        }
        if !event.is_object() {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("a stream event must be an object, got {}", crate::model::json_type(event)),
            ));
        }
        // A tool call, or a piece of one, as another provider gives it: no event of this one's,
        // which would be passed over, and the call lost without a word.
        if let Some(other) = foreign_event(event, self.format) {
            let hint = match (self.format, other) {
                (CallFormat::Bedrock, CallFormat::Anthropic) => " (Bedrock's InvokeModelWithResponseStream streams Claude's events as Anthropic's: read them with \"anthropic\"; \"bedrock\" reads ConverseStream's)",
                _ => "",
            };
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("the event holds a tool call as {} gives it, and no {} stream has it: push it to an accumulator for the provider it came from{hint}", other.label(), self.format.label()),
            )
            .with_detail("looksLike", other.label()));
        }
        // A response not streamed holds its calls whole, as no event does: read as an event, it
        // would give none without a word.
        if let Some(what) = event.as_object().and_then(|o| whole_response(o, self.format)) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("the event is {what}, a response not streamed, not a stream event: give it to parseToolCalls, which reads its calls"),
            ));
        }
        // Nor does any event hold a part of the turn whole (a content block, a message).
        if let Some(what) = event.as_object().and_then(|o| response_part(o, self.format)) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("the event is {what}, a part of a response, not a stream event: push the stream's own events ({}), or give it to parseToolCalls, which reads its calls", self.format.events()),
            ));
        }
        if let Some(e) = event.as_object().and_then(|o| interactions_error(o, self.format, "the event", "a Gemini or Vertex accumulator")) {
            return Err(e);
        }
        shape::check_event(event, self.format)?;
        self.thrown = None;
        let next = self.next_turn(event);
        let mut out = std::mem::take(&mut self.carried);
        out.extend(self.push_event(event, map));
        if let Some(failure) = self.failed.take() {
            // The turn failed at a tool call: it is retried whole, so the calls not given yet
            // (completed or released by this chunk, cut short, kept from a push that failed)
            // are dropped with it, rather than given after the error, run, and run again by the
            // retry. A response dropped as this one began is said too, as the error is thrown
            // once. A call refused, or a turn dropped, at the same time says so with the next
            // push.
            let thrown = (failure, out.len(), next.map(|e| e.message));
            let e = thrown_failure(&thrown, 0);
            self.thrown = Some(thrown);
            return Err(e);
        }
        // Calls dropped first: a call refused, or a turn dropped, at the same time says so with
        // the next push.
        let error = if next.is_some() {
            next
        } else if self.open.too_large() {
            Some(self.drop_open())
        } else if std::mem::take(&mut self.responses.refused) {
            Some(self.refused())
        } else {
            self.turn.take_error()
        };
        match error {
            Some(e) => {
                self.carry(out);
                Err(e)
            }
            None => Ok(out),
        }
    }

    /// Keeps `calls`, completed by a push that failed, for the next push or `finish`: before
    /// those kept already, which an event read after them left (`push_text` reads several).
    fn carry(&mut self, mut calls: Vec<ToolCall>) {
        calls.append(&mut self.carried);
        self.carried = calls;
    }

    /// Drops the calls being read, grown too large ([`OpenCalls::too_large`]), and the turn,
    /// which lists them (a call it listed would never come): the error to say so.
    #[cold]
    fn drop_open(&mut self) -> Error {
        let open = std::mem::take(&mut self.open);
        self.dropped = open.calls.iter().map(|(k, p)| (k.0, p.index, p.id.clone())).collect();
        self.responses.items.clear();
        self.turn.drop_with_calls();
        let what = if open.overflow {
            format!("more than {MAX_OPEN_CALLS} tool calls were being read at once")
        } else {
            format!("the {} tool calls being read passed {MAX_OPEN_BYTES} bytes of names and arguments", open.calls.len())
        };
        Error::new(ErrorCode::LimitExceeded, format!("{what}: they were dropped, and the model's turn with them"))
    }

    /// A Responses call was not made, past [`MAX_CLOSED_CALLS`]: the turn, which may list it, is
    /// dropped; the error to say so.
    #[cold]
    fn refused(&mut self) -> Error {
        self.turn.drop_with_calls();
        Error::new(
            ErrorCode::LimitExceeded,
            format!("the stream completed {MAX_CLOSED_CALLS} tool calls, the most one is read for: a call past them was not made, and the model's turn was dropped"),
        )
    }

    /// The model's turn: everything pushed so far, put together as the provider's own message,
    /// ready to be appended to the conversation before the tool results. Nothing the provider
    /// wants back is dropped (thinking blocks and their signatures, reasoning items, thought
    /// signatures), and names and arguments are the provider's, as the model sent them:
    /// * OpenAI Chat and Ollama: `{role: "assistant", content (text or null), refusal?,
    ///   thinking? (Ollama), reasoning_content? (DeepSeek, Kimi), reasoning? (vLLM, Ollama's `/v1`,
    ///   OpenRouter, Groq), reasoning_details? (OpenRouter), thinking_blocks? (LiteLLM; not a
    ///   thinking block the stream was cut inside before its signature, as for Anthropic),
    ///   tool_calls?: [{id, type: "function", function: {name, arguments}}]}`
    ///   for the first choice; arguments are text, or objects from Ollama's own `/api/chat`. A
    ///   call sent without an id has the one its [`ToolCall`] has (`call_{n}`) once it is
    ///   complete (Ollama's own calls, and those some OpenAI-compatible servers stream). Other keys of a
    ///   call's deltas are kept as sent (Gemini's OpenAI-compatible `extra_content`, which holds
    ///   the call's thought signature). For OpenAI, a name Chat refuses in a history
    ///   (`functions.NAME`, the parallel wrapper) is listed under one it takes, with the call's
    ///   id ([`parallel::chat_calls`]); Ollama's names are as sent (its tool message answers a
    ///   call by its name), a wrapper's tool uses listed under their calls' names.
    /// * OpenAI Responses: the output items (reasoning, message, function calls...), in order,
    ///   each as its `response.output_item.done` gave it (a call with the id, name and arguments
    ///   it was given, the item's in any stream but a broken one), or as the final event's
    ///   `output` has it when no event gave it (a stream resumed past its events); a function
    ///   call not done yet (a stream cut short) as `output_item.added` gave it, with the
    ///   arguments streamed so far.
    /// * Anthropic: `{role: "assistant", content: [...]}`, the content blocks in index order as
    ///   their deltas made them: `thinking` (with `signature`; one the stream was cut inside,
    ///   before its signature, is left out, as Anthropic refuses it sent back), `redacted_thinking`, `text`
    ///   (with `citations`; one of white space at most is left out, as Anthropic refuses it),
    ///   `tool_use` (`input` read from its streamed JSON), `compaction` (as its `compaction_delta`
    ///   gave it), and any other block as it started (a delta of a type not known passed over, as
    ///   the SDK's stream passes over it).
    /// * Gemini: `{role: "model", parts: [...]}` of the first candidate (or of the candidate,
    ///   content, parts or calls pushed alone): text streamed in pieces put together again
    ///   (thoughts apart from the rest, each signature on the text it ends), `functionCall` parts
    ///   (arguments streamed in parts put together; a signature alone right after the turn's first
    ///   call, which had none, on its part: [`Accumulator::gemini_release`]), other parts as sent.
    /// * Bedrock: `{role: "assistant", content: [...]}` in index order: `reasoningContent`
    ///   (`reasoningText` with `signature`, or `redactedContent` as base64; one the stream was
    ///   cut inside, before its signature, is left out, as Claude refuses it sent back), `text` (but one of
    ///   white space at most, which Bedrock refuses; `citationsContent` when `citation` deltas
    ///   came for it), `toolUse` (a system tool's, `type: "server_tool_use"`, is no call), and a
    ///   system tool's `toolResult`, its content from its deltas. A call's name Bedrock refuses in
    ///   a history is listed under one it takes, with its id, as Chat's ([`parallel::turn_name`]).
    ///
    /// A turn with nothing in it (the model sent no text and no call) is `content: []`,
    /// `parts: []`, `[]`, or Chat's `content: null` without `tool_calls`: not for the
    /// conversation, as the providers refuse it there (Anthropic an empty message but the last,
    /// Gemini and Bedrock any, OpenAI Chat `content: null` without calls).
    ///
    /// Arguments streamed as JSON text that is not a whole object (a stream cut short) are
    /// given as `{}` where the provider wants an object (Anthropic, Bedrock). A turn that grew
    /// past 32 MiB or 4,096 parts was dropped (the push that did it said `LIMIT_EXCEEDED`, the
    /// calls are still read) and is `LIMIT_EXCEEDED` here too; so is one dropped with the calls
    /// being read, past their bounds.
    pub fn message(&self) -> Result<Value> {
        self.turn.message(self.format)
    }

    /// Takes the stream's text as it comes, in pieces of any size: Server-Sent Events (what
    /// Anthropic, OpenAI and Gemini send: whole frames, several at once, or a frame split
    /// anywhere, its end kept for the next piece), or JSON (one event, one per line as Ollama
    /// sends them, or one over several lines, pretty-printed, read once its brackets close: a
    /// line that ends one cut short, a field or a whole JSON line, is its error). SSE as the HTML standard reads it (`\n`, `\r\n` or `\r` line ends,
    /// `data` lines joined with `\n`, `event`, `id`, `retry` and comments ignored), except that
    /// an event is taken as soon as its data is a whole JSON object, so text given a line at a
    /// time (`data: {...}` without the empty line after it) loses nothing. `[DONE]` is no event.
    ///
    /// Returns the calls completed. An event that is not JSON (or not an object), a line that is
    /// neither SSE nor JSON, or the provider's error event, is an error (`INVALID_JSON`,
    /// `INVALID_INPUT`, `PROVIDER_ERROR`; the first, if several) once the whole text is read: the
    /// calls it completed come with the next push or `finish`.
    pub fn push_text(&mut self, text: &str, map: Option<&NameMap>) -> Result<Vec<ToolCall>> {
        // Suggestions for at most a few unknown names of the response (each a pass over the map).
        let _budget = crate::naming::SuggestionBudget::start();
        self.start_again();
        let mut events = Vec::new();
        self.text.read(text, &mut events);
        self.push_all(events, map)
    }

    /// Events read from text (or an array's elements), each pushed: the calls they completed,
    /// or the first error (the calls then kept for the next push or `finish`).
    fn push_all(&mut self, events: Vec<Result<Value>>, map: Option<&NameMap>) -> Result<Vec<ToolCall>> {
        let mut out = std::mem::take(&mut self.carried);
        let mut error: Option<Error> = None;
        // Where the calls of the turn being read begin in `out`.
        let mut turn_from = 0;
        for event in events {
            self.began = false;
            let read = event.and_then(|v| self.push(&v, map));
            if self.began {
                turn_from = out.len();
            }
            match read {
                Ok(calls) => out.extend(calls),
                Err(e) => match self.thrown.take() {
                    // A Gemini turn that failed: the calls of the turn earlier events completed
                    // are dropped with it, as those of the event are; the error is the turn's,
                    // saying an earlier one.
                    Some(thrown) => {
                        let mut e = thrown_failure(&thrown, out.len() - turn_from);
                        out.truncate(turn_from);
                        if let Some(first) = error.take() {
                            e.message.push_str(&format!("; also, {}", first.message));
                        }
                        error = Some(e);
                    }
                    None => {
                        error.get_or_insert(e);
                    }
                },
            }
        }
        match error {
            Some(e) => {
                self.carry(out);
                Err(e)
            }
            None => Ok(out),
        }
    }

    /// One event, an object.
    fn push_event(&mut self, event: &Value, map: Option<&NameMap>) -> Vec<ToolCall> {
        // The calls completed, those a reader ended itself first, then those of `done`.
        let mut out = Vec::new();
        let mut done = Vec::new();
        let emitted = self.emitted;
        let ollama = self.format == CallFormat::Ollama && event.get("choices").is_none();
        if ollama {
            // Ollama's own stream (`/api/chat`, one JSON line per chunk): each chunk's
            // `message.tool_calls` are whole, arguments as objects. Calls without an id are
            // numbered over the stream, as `parse_tool_calls` numbers a message's, an id made
            // being none that a call of the chunk or of the turn has (read before the turn has
            // the chunk's calls, as the turn reads it: both make the same ids).
            let tool_calls = event.get("message").map_or(&[][..], |m| array(m, "tool_calls"));
            let given = GivenIds::new(tool_calls);
            for tc in tool_calls {
                let taken = |id: &str| given.has(id) || self.turn.has_call_id(id);
                out.extend(openai_call(tc, self.emitted, &taken, CallFormat::Ollama, map));
                self.emitted += 1;
            }
        }
        self.turn.record(self.format, event, emitted);
        match self.format {
            CallFormat::Ollama if ollama => {}
            CallFormat::OpenAi | CallFormat::Ollama => self.push_openai(event, &mut done),
            CallFormat::OpenAiResponses => self.push_responses(event, &mut done),
            CallFormat::Anthropic => self.push_anthropic(event, map, &mut out),
            CallFormat::Gemini => {
                self.room = MAX_OPEN_BYTES.saturating_sub(self.open.bytes());
                self.gemini_value(event, 0, map, &mut out);
            }
            CallFormat::Bedrock => self.push_bedrock(event, map, &mut out),
        }
        if !done.is_empty() {
            out.extend(self.take(done, map));
        }
        self.turn.settle();
        out
    }

    /// Ends the stream: every call still open is returned (and any that text pushed last
    /// completed, read as if it ended there).
    ///
    /// Text pushed last that cannot be read as it ends (a stream cut inside an event, two events
    /// on one line) is `INVALID_JSON`, saying the stream ended there, and so is that text's
    /// event that fails as [`Accumulator::push_text`] says: the calls are kept for the next
    /// `finish` (or push), as a push that fails keeps them, rather than lost without a word.
    pub fn finish(&mut self, map: Option<&NameMap>) -> Result<Vec<ToolCall>> {
        // Suggestions for at most a few unknown names of the response (each a pass over the map).
        let _budget = crate::naming::SuggestionBudget::start();
        let mut events = Vec::new();
        self.text.end(&mut events);
        let events = events.into_iter().map(|event| {
            event.map_err(|e| match e.code {
                ErrorCode::InvalidJson => Error::new(e.code, format!("the stream ended with text that is not a whole event: {}", e.message)),
                _ => e,
            })
        });
        let (mut out, error) = match self.push_all(events.collect(), map) {
            Ok(calls) => (calls, None),
            Err(e) => (std::mem::take(&mut self.carried), Some(e)),
        };
        // Those of an event whose push failed (a turn grown too large) come all the same.
        out.append(&mut self.carried);
        out.extend(self.finish_open(map));
        match error {
            Some(e) => {
                self.carried = out;
                Err(e)
            }
            None => {
                self.finished = true;
                Ok(out)
            }
        }
    }

    /// [`Accumulator::finish`] after the stream's last `text` (what its bytes ended with): the
    /// calls that text completes, and its error, come from here.
    pub fn finish_text(&mut self, text: &str, map: Option<&NameMap>) -> Result<Vec<ToolCall>> {
        // Suggestions for at most a few unknown names of the response (each a pass over the map).
        let _budget = crate::naming::SuggestionBudget::start();
        let first = match self.push_text(text, map) {
            Ok(calls) => {
                self.carry(calls);
                None
            }
            Err(e) => Some(e),
        };
        match (first, self.finish(map)) {
            (Some(e), Ok(calls)) => {
                // Not ended: the calls come with the next `finish`, as the error says.
                self.finished = false;
                self.carried = calls;
                Err(e)
            }
            (_, finished) => finished,
        }
    }

    /// The calls still open when the stream ends. Gemini's were still streaming
    /// (`willContinue`); another's that never had a byte of its arguments was cut right after
    /// it started (Anthropic's start `input: {}` is a placeholder): read as it is, empty text
    /// would be `{}`, and the tool called with arguments the model never sent.
    fn finish_open(&mut self, map: Option<&NameMap>) -> Vec<ToolCall> {
        // A call held for its signature came before those still open.
        let held: Vec<ToolCall> = self.held.take().into_iter().collect();
        let keys: Vec<(u64, u64)> = self.open.keys().collect();
        let placeholder = |w: &Value| matches!(self.format, CallFormat::Anthropic | CallFormat::Bedrock) && w.as_object().is_some_and(Map::is_empty);
        for &k in &keys {
            if let Some(p) = self.open.get_mut(k) {
                if self.format == CallFormat::Gemini {
                    p.incomplete = Some("the stream ended while they were still streaming (willContinue)".owned());
                } else if p.custom && self.format == CallFormat::OpenAiResponses {
                    // Open until its input or its item is done: what came of its input is not all.
                    p.incomplete.get_or_insert_with(|| "the stream ended before it did".owned());
                } else if !p.closed && p.incomplete.is_none() && p.args.trim().is_empty() && p.whole.as_ref().is_none_or(placeholder) {
                    p.incomplete = Some(if p.custom { "the stream ended before any of it came" } else { "the stream ended before any of them came" }.owned());
                }
            }
        }
        let mut out = held;
        out.extend(self.take(keys, map));
        out
    }

    fn take(&mut self, keys: Vec<(u64, u64)>, map: Option<&NameMap>) -> Vec<ToolCall> {
        let mut out = Vec::new();
        // The ids of the calls still open, by how many have each, once one is made an id
        // (a scan of the open calls for each took quadratic time).
        let mut open_ids: Option<HashMap<String, usize>> = None;
        for k in keys {
            if let Some(p) = self.open.remove(k) {
                if let (Some(ids), Some(id)) = (open_ids.as_mut(), p.id.as_deref()) {
                    if let Some(n) = ids.get_mut(id) {
                        *n -= 1;
                    }
                }
                if let Some(item) = &p.item {
                    self.responses.forget(item, k);
                }
                let raw = match p.whole {
                    Some(v) if p.args.is_empty() => RawArgs::Json(v),
                    _ => RawArgs::Text(p.args),
                };
                let mut id = p.id;
                if id.is_none() && matches!(self.format, CallFormat::OpenAi | CallFormat::Ollama) {
                    // A Chat call streamed without an id (StepFun, some of SiliconFlow's and
                    // NVIDIA's models): one made up, in the turn too, for its result to answer.
                    let open = &self.open.calls;
                    let ids = open_ids.get_or_insert_with(|| {
                        ids_read(open.len());
                        let mut ids = HashMap::new();
                        for id in open.iter().filter_map(|(_, o)| o.id.clone()) {
                            *ids.entry(id).or_insert(0) += 1;
                        }
                        ids
                    });
                    let made = made_id(self.emitted, |i| {
                        ids_read(1);
                        ids.get(i).is_some_and(|&n| n > 0) || self.turn.has_call_id(i)
                    });
                    self.turn.chat_id(k.1, &made);
                    id = Some(made);
                }
                let sent = p.namespace.as_ref().map(|_| p.name.clone());
                let name = namespaced(p.name, p.namespace.as_deref(), map);
                let mut calls = if p.custom {
                    let mut call = resolve(id, name, RawArgs::Json(Value::Null), map);
                    custom_call(&mut call);
                    vec![call]
                } else {
                    resolve_all(id, name, raw, map, self.format)
                };
                for call in &mut calls {
                    call.thought_signature.clone_from(&p.signature);
                    if let (Some(ns), Some(sent)) = (&p.namespace, &sent) {
                        if call.parallel.is_none() {
                            call.provider_name.clone_from(sent);
                            refuse_other_namespace(call, ns, map);
                        }
                        call.namespace = Some(ns.clone());
                    }
                    if let Some(why) = &p.incomplete {
                        cut_call(call, why);
                    }
                    match &p.cut {
                        // Cut short by the stream already, which says more.
                        Some(ArgsCut::Unplaced(why)) if p.incomplete.is_none() => cut_call(call, why),
                        Some(ArgsCut::Unplaced(_)) | None => {}
                        Some(cut) => {
                            call.error = Some(CallError {
                                code: ErrorCode::LimitExceeded.as_str(),
                                message: format!("the arguments of \"{}\" were not put together: {}", call.provider_name, cut.why()),
                            });
                            call.arguments = Value::Null;
                        }
                    }
                }
                out.extend(calls);
                // A parallel wrapper is one call of the provider's.
                self.emitted += 1;
            }
        }
        out
    }

    /// Gemini: the function calls in a response, a candidate, a content, a part or a
    /// `FunctionCall` (the shapes of [`parse_tool_calls`]). `index` is the candidate's index
    /// when `v` is a candidate without its own.
    fn gemini_value(&mut self, v: &Value, index: u64, map: Option<&NameMap>, out: &mut Vec<ToolCall>) {
        if let Some(candidates) = v.get("candidates").and_then(Value::as_array) {
            // The first candidate's calls, as the turn is the first candidate's.
            for (i, c) in candidates.iter().enumerate() {
                if c.get("index").and_then(Value::as_u64).unwrap_or(i as u64) == 0 {
                    self.gemini_candidate(c, 0, map, out);
                }
            }
        } else if v.get("content").is_some() || v.get("finishReason").is_some() {
            self.gemini_candidate(v, index, map, out);
        } else if let Some(parts) = v.get("parts").and_then(Value::as_array) {
            for part in parts {
                self.gemini_part(part, 0, map, out);
            }
        } else if v.get("functionCall").is_some() {
            self.gemini_part(v, 0, map, out);
        } else if let Some(calls) = v.get("toolCall").unwrap_or(v).get("functionCalls").and_then(Value::as_array) {
            // The Live API's message (`toolCall`) or its `LiveServerToolCall`: whole calls.
            for call in calls {
                self.gemini_call(call, None, 0, map, out);
            }
        } else if v.as_object().is_some_and(is_function_call) {
            self.gemini_call(v, None, 0, map, out);
        }
    }

    /// A part of candidate `index`: a call's, or another (text...), which the turn takes as it
    /// comes when it is the first candidate's.
    fn gemini_part(&mut self, part: &Value, index: u64, map: Option<&NameMap>, out: &mut Vec<ToolCall>) {
        if index == 0 && self.gemini_release(Some(part), out) {
            return;
        }
        match part.get("functionCall").filter(|fc| fc.is_object()) {
            Some(fc) => self.gemini_call(fc, Some(part), index, map, out),
            None if index == 0 => self.turn.gemini_part(part),
            None => {}
        }
    }

    /// Gives the call held for its signature ([`Accumulator::held`]), once the first candidate's
    /// next `part` came (or it finished: `None`). A part that holds nothing but a signature (empty
    /// text, not a thought), as some Gemini streams send one after the call it signs, is the
    /// call's: its signature goes on the call and on its part in the turn, and the part is taken
    /// (true).
    fn gemini_release(&mut self, part: Option<&Value>, out: &mut Vec<ToolCall>) -> bool {
        let Some(mut call) = self.held.take() else { return false };
        let signature = part.and_then(Value::as_object).filter(|o| turn::text_part(o) && !turn::thought(o) && o.get("text").is_none_or(|t| t == ""));
        let signature = signature.and_then(|o| o.get("thoughtSignature")).and_then(Value::as_str).filter(|s| !s.is_empty());
        if let Some(s) = signature {
            call.thought_signature = Some(s.owned());
            self.turn.gemini_sign_call(s);
        }
        out.push(call);
        signature.is_some()
    }

    fn gemini_candidate(&mut self, c: &Value, index: u64, map: Option<&NameMap>, out: &mut Vec<ToolCall>) {
        let index = c.get("index").and_then(Value::as_u64).unwrap_or(index);
        for part in c.get("content").map_or(&[][..], |content| array(content, "parts")) {
            self.gemini_part(part, index, map, out);
        }
        // The candidate is done: a call still streaming ends here, complete only if the model
        // stopped of itself (not at MAX_TOKENS, for safety, or at a malformed call).
        if let Some(reason) = c.get("finishReason").and_then(Value::as_str).filter(|r| !r.is_empty()) {
            // Only the candidate read's failure is the turn's.
            if index == 0 && gemini_call_failed(reason).is_some() && self.failed.is_none() {
                let mut failure = Map::new();
                failure.insert("finishReason".owned(), Value::from(reason));
                if let Some(m) = c.get("finishMessage").filter(|m| !m.is_null()) {
                    failure.insert("finishMessage".owned(), m.clone());
                }
                self.failed = Some(Value::Object(failure));
            }
            if index == 0 {
                self.turn.gemini_finished();
                self.gemini_release(None, out);
            }
            self.dropped.retain(|d| d.0 != index);
            if let Some(p) = self.open.get_mut((index, 0)) {
                if reason != "STOP" {
                    p.incomplete = Some(format!("the response ended ({reason}) while they were still streaming (willContinue)"));
                }
                out.extend(self.take(vec![(index, 0)], map));
            }
        }
    }

    /// One `FunctionCall` of candidate `index`, alone or in its `part`. A call is whole in one
    /// part, or its arguments stream over several (Vertex's `streamFunctionCallArguments`): the
    /// first part has the name and `willContinue: true`, the next ones `partialArgs` (and
    /// `willContinue` while more follow), and the call ends at a part without `willContinue`
    /// (often an empty `functionCall`), at another call, or when the candidate finishes. The call
    /// keeps the first `thoughtSignature` of its parts. The first candidate's part goes in the
    /// turn as this reads it ([`GeminiStep`]). The turn's first call, whole in a part without a
    /// signature, is held until the part after it ([`Accumulator::held`]).
    fn gemini_call(&mut self, fc: &Value, part: Option<&Value>, index: u64, map: Option<&NameMap>, out: &mut Vec<ToolCall>) {
        let key = (index, 0);
        if part.is_none() && index == 0 {
            self.gemini_release(None, out);
        }
        let has_part = part.is_some();
        let signature = part.and_then(|p| str_of(p, "thoughtSignature")).filter(|s| !s.is_empty());
        let name = str_of(fc, "name").filter(|n| !n.is_empty());
        let id = str_of(fc, "id").filter(|i| !i.is_empty());
        let args = fc.get("args").filter(|a| !a.is_null());
        let partial = fc.get("partialArgs").and_then(Value::as_array);
        let more = fc.get("willContinue").and_then(Value::as_bool) == Some(true);
        // The part, for the turn: a `FunctionCall` alone is one of its own.
        let turn = index == 0 && self.turn.reading();
        let alone;
        let part = match part {
            Some(part) => part,
            None if turn => {
                alone = crate::model::object([("functionCall", fc.clone())]);
                &alone
            }
            None => &Value::Null,
        };
        if let Some(p) = self.open.get_mut(key) {
            // A part without a name goes on with the call streaming; so does one with its name,
            // unless its id says it is another call.
            if continues_call(name.as_deref(), id.as_deref(), &p.name, p.id.as_deref()) {
                if p.id.is_none() {
                    p.id = id;
                }
                if p.signature.is_none() {
                    p.signature = signature;
                }
                p.merge(args, partial, &mut self.room);
                if turn {
                    let step = GeminiStep::More { last: !more, id: p.id.as_deref(), signature: p.signature.as_deref() };
                    self.turn.gemini_call(part, args, partial, &step);
                }
                if !more {
                    out.extend(self.take(vec![key], map));
                }
                return;
            }
            // Another call: the one streaming has ended.
            out.extend(self.take(vec![key], map));
        }
        let step = if !more && partial.is_none() {
            // A whole call, or an empty `functionCall` (the end of streamed arguments, here with
            // none streaming): nothing to call.
            if name.is_none() && args.is_none() {
                GeminiStep::Nothing
            } else {
                let mut call = resolve(id, name.unwrap_or_default(), args_of(args), map);
                call.thought_signature = signature;
                if call.thought_signature.is_none() && has_part && index == 0 && self.emitted == 0 {
                    self.held = Some(call);
                } else {
                    out.push(call);
                }
                self.emitted += 1;
                GeminiStep::New { open: false }
            }
        } else {
            // More of a call dropped past the bounds: passed over.
            if self.dropped.iter().any(|d| d.0 == index) {
                if name.is_none() {
                    return;
                }
                self.dropped.retain(|d| d.0 != index);
            }
            let Some(p) = self.open.entry(key) else { return };
            p.id = id;
            p.name = name.unwrap_or_default();
            p.signature = signature;
            p.whole = None;
            p.whole_bytes = 0;
            p.cut = None;
            p.merge(args, partial, &mut self.room);
            if !more {
                out.extend(self.take(vec![key], map));
            }
            GeminiStep::New { open: more }
        };
        if turn {
            self.turn.gemini_call(part, args, partial, &step);
        }
    }

    fn push_openai(&mut self, ev: &Value, done: &mut Vec<(u64, u64)>) {
        for choice in array(ev, "choices") {
            let ci = choice.get("index").and_then(Value::as_u64).unwrap_or(0);
            // The first choice's calls, as the turn is the first choice's (`n > 1`).
            if ci != 0 {
                continue;
            }
            let delta = choice.get("delta").or_else(|| choice.get("message"));
            if let Some(delta) = delta {
                for (pos, tc) in array(delta, "tool_calls").iter().enumerate() {
                    let Some(key) = self.chat_key(ci, pos, tc, done) else { continue };
                    if ci == 0 {
                        self.turn.chat_call(key.1, tc);
                    }
                    let Some(p) = self.open.get_mut(key) else { continue };
                    let custom = tc.get("custom").filter(|c| c.is_object());
                    p.custom |= custom.is_some();
                    // The name, when pieces taken for it again were put back: the turn's too.
                    let mut named = None;
                    if let Some(c) = custom {
                        if let Some(n) = c.get("name").and_then(Value::as_str) {
                            if add_name_piece(&mut p.name, &mut p.name_repeats, n) {
                                named = Some(p.name.clone());
                            }
                        }
                        if let Some(input) = c.get("input").and_then(Value::as_str) {
                            p.args.push_str(input);
                        }
                    } else {
                        // A call without `function` holds its name and arguments itself, as
                        // `parse_tool_calls` reads it (some proxies send `{id, name, arguments}`).
                        let f = tc.get("function").unwrap_or(tc);
                        if let Some(n) = f.get("name").and_then(Value::as_str) {
                            if add_name_piece(&mut p.name, &mut p.name_repeats, n) {
                                named = Some(p.name.clone());
                            }
                        }
                        match f.get("arguments") {
                            Some(Value::String(a)) => p.args.push_str(a),
                            // An object, or what is no arguments (`5`, `[1]`): read as
                            // `parse_tool_calls` reads it (`INVALID_ARGUMENTS`), not dropped.
                            Some(Value::Null) | None => {}
                            Some(v) => p.whole = Some(v.clone()),
                        }
                    }
                    if let Some(name) = named {
                        self.turn.chat_name(key.1, custom.is_some(), name);
                    }
                }
            }
            if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
                self.dropped.retain(|d| d.0 != ci);
                let ended: Vec<(u64, u64)> = self.open.keys().filter(|k| k.0 == ci && !done.contains(k)).collect();
                // The output limit cut the call started last.
                if let (Some(why), Some(&last)) = (out_of_tokens(Some(reason)), ended.iter().max_by_key(|k| k.1)) {
                    if let Some(p) = self.open.get_mut(last) {
                        p.incomplete.get_or_insert(why);
                    }
                }
                done.extend(ended);
            }
        }
    }

    /// OpenAI Chat: the key of the call that the tool call delta `tc`, at `pos` in its delta, of
    /// choice `ci` goes on; a new call's, made (`None` past [`MAX_OPEN_CALLS`]). Keys are given in
    /// the order calls start. A delta goes on the call being read at its `index`, unless it
    /// carries a name and an `id` other than that call's: then it starts another (Ollama's
    /// OpenAI-compatible endpoint gives every parallel call `index: 0`), and the one it replaces
    /// there is complete (put in `done`: no later delta finds it). A delta without `index`
    /// (Gemini's OpenAI-compatible endpoint sends none) goes on the call of its `id`; one with
    /// neither (or an unknown id and no name), or one with neither name nor id at an `index` no
    /// call has, on the call the last delta went on, if it is the first of its delta (those after
    /// it start calls).
    fn chat_key(&mut self, ci: u64, pos: usize, tc: &Value, done: &mut Vec<(u64, u64)>) -> Option<(u64, u64)> {
        let index = tc.get("index").and_then(Value::as_u64);
        let id = str_of(tc, "id").filter(|i| !i.is_empty());
        let key = match self.chat_place(ci, pos, tc, done) {
            ChatPlace::Dropped => return None,
            ChatPlace::On(k) => {
                if let (Some(p), Some(id)) = (self.open.get_mut(k), id) {
                    p.id.get_or_insert(id);
                }
                k
            }
            ChatPlace::New(replaced) => {
                done.extend(replaced);
                // A named delta at a dropped call's place starts a call: that one is over.
                self.dropped.retain(|d| !chat_dropped(d, ci, index, id.as_deref()));
                let k = (ci, self.chat_next);
                let p = self.open.entry(k)?;
                self.chat_next += 1;
                p.id = id;
                p.index = index;
                k
            }
        };
        self.chat_last = Some(key);
        Some(key)
    }

    /// OpenAI Chat: where the tool call delta `tc`, at `pos` in its delta, of choice `ci` goes, by
    /// [`Accumulator::chat_key`]'s rule (which [`Accumulator::open_escape`] reads by too, before
    /// the event is read); `done`: the calls the event completed so far.
    fn chat_place(&self, ci: u64, pos: usize, tc: &Value, done: &[(u64, u64)]) -> ChatPlace {
        let index = tc.get("index").and_then(Value::as_u64);
        let id = tc.get("id").and_then(Value::as_str).filter(|i| !i.is_empty());
        // A call starts with its name: a delta without one whose id is another is more of the
        // call (Poolside gives a call's later deltas another id than its first).
        let named = tc.get("function").or_else(|| tc.get("custom")).unwrap_or(tc).get("name").and_then(Value::as_str).is_some_and(|n| !n.is_empty());
        let open = |k: &(u64, u64)| k.0 == ci && !done.contains(k);
        let last = (pos == 0).then_some(self.chat_last).flatten().filter(|k| open(k) && self.open.contains(*k));
        let mut replaced = None;
        let found = match (index, id) {
            (Some(i), _) => {
                let at = self.open.calls.iter().rev().find(|(k, p)| open(k) && p.index == Some(i));
                match at {
                    Some((k, p)) if named && id.is_some() && p.id.is_some() && p.id.as_deref() != id => {
                        replaced = Some(*k);
                        None
                    }
                    at => at.map(|(k, _)| *k),
                }
            }
            (None, Some(id)) => {
                let by_id = self.open.calls.iter().rev().find(|(k, p)| open(k) && p.id.as_deref() == Some(id)).map(|(k, _)| *k);
                by_id.or(last.filter(|_| !named))
            }
            (None, None) => last,
        };
        // More of a call dropped past the bounds: passed over.
        if found.is_none() && !named && self.dropped.iter().any(|d| chat_dropped(d, ci, index, id)) {
            return ChatPlace::Dropped;
        }
        // A delta with neither name nor id at an `index` no call has starts none: it is more of
        // the call the last delta went on (a server that gave a second call's head the first's
        // `index` and its arguments the next, agno#8879), not a nameless call with the arguments
        // while the named one has none.
        match found.or_else(|| last.filter(|_| index.is_some() && id.is_none() && !named)) {
            Some(k) => ChatPlace::On(k),
            None => ChatPlace::New(replaced),
        }
    }

    /// The key of a Responses item: its own, by `item_id`, else its output index's.
    /// Whether the text of the call that the streamed piece of arguments at `path` in `ev` goes
    /// on ([`split_surrogates_event_with`]) ends with a backslash that escapes what comes next.
    /// The call as each reader finds it, read only (Chat: [`Accumulator::chat_place`]); none
    /// found, none open.
    fn open_escape(&self, ev: &Value, path: &[ArgsStep]) -> bool {
        use ArgsStep::{Index, Key};
        let u64_at = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
        let key = match path {
            [Key("delta"), Key("partial_json")] => Some((0, u64_at(ev.get("index")))),
            [Key("delta")] => Some(self.item_key(ev.get("item_id").and_then(Value::as_str), u64_at(ev.get("output_index")))),
            [Key("contentBlockDelta"), ..] => Some((0, u64_at(ev.pointer("/contentBlockDelta/contentBlockIndex")))),
            [Key("choices"), Index(c), Key("delta"), Key("tool_calls"), Index(t), ..] => {
                let choice = &ev["choices"][*c];
                match self.chat_place(u64_at(choice.get("index")), *t, &choice["delta"]["tool_calls"][*t], &[]) {
                    ChatPlace::On(k) => Some(k),
                    ChatPlace::Dropped | ChatPlace::New(_) => None,
                }
            }
            _ => None,
        };
        let Some(p) = key.and_then(|k| self.open.find(k).ok()).map(|i| &self.open.calls[i].1) else { return false };
        p.args.bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 1
    }

    fn item_key(&self, item_id: Option<&str>, output_index: u64) -> (u64, u64) {
        self.responses.key(item_id).unwrap_or((output_index, 0))
    }

    /// Responses: the call `item` (a function's, a custom tool's), whole, at `key` (its
    /// `output_item.done`, or its item in the response's output): it completes the call still
    /// open there, and one never opened (a stream resumed after its `output_item.added`) as well;
    /// one completed already is not given twice, its item put in the turn in place of its part.
    /// `why`: why it is cut short.
    fn item_done(&mut self, key: (u64, u64), item: &Value, why: Option<String>, done: &mut Vec<(u64, u64)>) {
        let open = self.open.contains(key);
        if !open && self.responses.closed(key) {
            self.turn.call_again(key.0, item);
            return;
        }
        if !open && !self.responses.room(&self.open) {
            return;
        }
        let Some(p) = self.open.entry(key) else { return };
        p.id = str_of(item, "call_id").or(p.id.take());
        p.name = str_of(item, "name").unwrap_or(std::mem::take(&mut p.name));
        p.namespace = str_of(item, "namespace").or(p.namespace.take());
        p.custom = custom_item(item);
        match item.get(args_key(item)) {
            Some(Value::String(a)) => p.args = a.owned(),
            Some(Value::Null) | None => {}
            // Read as `parse_tool_calls` reads the item: an object as the arguments, anything
            // else `INVALID_ARGUMENTS`.
            Some(v) => {
                p.args.clear();
                p.whole = Some(v.clone());
            }
        }
        if why.is_some() {
            p.incomplete = why;
        }
        self.turn.call_done(key.0, Some(item), !open, p.id.as_deref(), &p.name, &p.args);
        done.push(key);
        self.responses.close(key);
    }

    fn push_responses(&mut self, ev: &Value, done: &mut Vec<(u64, u64)>) {
        let kind = ev.get("type").and_then(Value::as_str).unwrap_or("");
        let oi = ev.get("output_index").and_then(Value::as_u64).unwrap_or(0);
        // A function's call or a custom tool's, read alike: opened by `output_item.added`, its
        // arguments (a custom tool's input, of no use: the call is an error, [`custom_call`])
        // streamed, completed by their `.done` or the item's; one cut short is still open for
        // `finish` (or `response.incomplete`) to give, and the turn has its item so far.
        let call_item = ev.get("item").filter(|i| matches!(i.get("type").and_then(Value::as_str), Some("function_call" | "custom_tool_call")));
        match kind {
            "response.output_item.added" => {
                if let Some(item) = call_item {
                    let key = (oi, 0);
                    let open = self.open.contains(key);
                    // A call completed is not made again (its events given again).
                    if !open && (self.responses.closed(key) || !self.responses.room(&self.open)) {
                        return;
                    }
                    let Some(p) = self.open.entry(key) else { return };
                    p.id = str_of(item, "call_id");
                    p.name = str_of(item, "name").unwrap_or_default();
                    p.namespace = str_of(item, "namespace");
                    p.custom = custom_item(item);
                    p.args = str_of(item, args_key(item)).unwrap_or_default();
                    self.responses.set_item(p, key, str_of(item, "id"));
                    self.turn.call_added(key.0, item, !open);
                }
            }
            "response.function_call_arguments.delta" | "response.custom_tool_call_input.delta" => {
                let key = self.item_key(ev.get("item_id").and_then(Value::as_str), oi);
                if let (Some(p), Some(d)) = (self.open.get_mut(key), ev.get("delta").and_then(Value::as_str)) {
                    p.args.push_str(d);
                    self.turn.call_args(key.0, d);
                }
            }
            "response.function_call_arguments.done" | "response.custom_tool_call_input.done" => {
                let key = self.item_key(ev.get("item_id").and_then(Value::as_str), oi);
                if let Some(p) = self.open.get_mut(key) {
                    let field = if kind == "response.custom_tool_call_input.done" { "input" } else { "arguments" };
                    if let Some(a) = ev.get(field).and_then(Value::as_str) {
                        p.args = a.owned();
                    }
                    if let Some(n) = ev.get("name").and_then(Value::as_str) {
                        p.name = n.owned();
                    }
                    self.turn.call_done(key.0, None, false, p.id.as_deref(), &p.name, &p.args);
                    done.push(key);
                    self.responses.close(key);
                }
            }
            "response.output_item.done" => {
                if let Some(item) = call_item {
                    let key = self.item_key(item.get("id").and_then(Value::as_str), oi);
                    let why = (item.get("status").and_then(Value::as_str) == Some("incomplete")).then(|| "its item is incomplete".owned());
                    self.item_done(key, item, why, done);
                }
            }
            // The response's output: an item no event gave (a stream resumed past its events, a
            // server that sends none) is read as its `output_item.done` would be, as the SDK's
            // final response has it: a call (a function's, a custom tool's) made, cut short as
            // `parse_tool_calls` cuts it, any other item put in the turn; what the events gave
            // stays. `response.incomplete` then ends the calls still streaming, cut short, as they
            // are in the response's body.
            "response.completed" | "response.incomplete" => {
                let response = ev.get("response");
                let cut = response.and_then(|r| cut_short(r).or_else(|| unfinished(r)));
                let output = response.and_then(|r| r.get("output")).and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
                for (i, item) in output.iter().enumerate() {
                    if matches!(item.get("type").and_then(Value::as_str), Some("function_call" | "custom_tool_call")) {
                        let key = self.item_key(item.get("id").and_then(Value::as_str), i as u64);
                        if self.open.contains(key) || !self.responses.closed(key) {
                            self.item_done(key, item, item_cut(item, cut.as_deref()).map(str::to_owned), done);
                        }
                    }
                }
                self.turn.final_output(output);
                if kind == "response.incomplete" {
                    let why = cut.unwrap_or_else(|| "the response is incomplete".owned());
                    let keys: Vec<(u64, u64)> = self.open.keys().filter(|k| !done.contains(k)).collect();
                    for &k in &keys {
                        if let Some(p) = self.open.get_mut(k) {
                            p.incomplete = Some(why.clone());
                        }
                        self.responses.close(k);
                    }
                    done.extend(keys);
                }
            }
            _ => {}
        }
    }

    /// A block started at `idx`: a call still open there ends (its block is replaced, its
    /// `content_block_stop` never came), as the turn keeps its block and puts the new one after it.
    fn block_started(&mut self, idx: u64, map: Option<&NameMap>, out: &mut Vec<ToolCall>) {
        if self.open.contains((0, idx)) {
            out.extend(self.take(vec![(0, idx)], map));
        }
    }

    /// Anthropic and Bedrock: the calls whose block ended, given now that the event after it
    /// came; `stop`: the turn's stop reason, when that event has it (a call it cut short is
    /// closed with the input so far, which may parse).
    fn release_closed(&mut self, stop: Option<&Value>, map: Option<&NameMap>, out: &mut Vec<ToolCall>) {
        let closed: Vec<(u64, u64)> = self.open.calls.iter().filter(|(_, p)| p.closed).map(|(k, _)| *k).collect();
        if closed.is_empty() {
            return;
        }
        if let Some(why) = out_of_tokens(stop) {
            for &k in &closed {
                if let Some(p) = self.open.get_mut(k) {
                    p.incomplete.get_or_insert_with(|| why.clone());
                }
            }
        }
        out.extend(self.take(closed, map));
    }

    fn push_anthropic(&mut self, ev: &Value, map: Option<&NameMap>, out: &mut Vec<ToolCall>) {
        let kind = ev.get("type").and_then(Value::as_str).unwrap_or("");
        let idx = ev.get("index").and_then(Value::as_u64).unwrap_or(0);
        if kind != "ping" {
            self.release_closed(ev.get("delta").and_then(|d| d.get("stop_reason")), map, out);
        }
        match kind {
            "content_block_start" => {
                let Some(b) = ev.get("content_block").filter(|b| b.is_object()) else { return };
                self.block_started(idx, map, out);
                if b.get("type").and_then(Value::as_str) == Some("tool_use") {
                    let Some(p) = self.open.entry((0, idx)) else { return };
                    p.id = str_of(b, "id");
                    p.name = str_of(b, "name").unwrap_or_default();
                    p.whole = b.get("input").cloned();
                }
            }
            "content_block_delta" => {
                if let Some(d) = ev.get("delta").filter(|d| d.get("type").and_then(Value::as_str) == Some("input_json_delta")) {
                    if let (Some(p), Some(j)) = (self.open.get_mut((0, idx)), d.get("partial_json").and_then(Value::as_str)) {
                        p.args.push_str(j);
                    }
                }
            }
            "content_block_stop" => {
                if let Some(p) = self.open.get_mut((0, idx)) {
                    p.closed = true;
                }
            }
            _ => {}
        }
    }

    fn push_bedrock(&mut self, ev: &Value, map: Option<&NameMap>, out: &mut Vec<ToolCall>) {
        self.release_closed(ev.get("messageStop").and_then(|m| m.get("stopReason")), map, out);
        // ConverseStream events, keyed by their event type as the AWS SDK yields them.
        if let Some(start) = ev.get("contentBlockStart") {
            let idx = start.get("contentBlockIndex").and_then(Value::as_u64).unwrap_or(0);
            // A block the turn reads (a tool use, a server tool's `toolResult`) ends a call still
            // open at its index, as the turn puts it after the call.
            let start = start.get("start");
            if ["toolUse", "toolResult"].iter().any(|k| start.and_then(|s| s.get(*k)).is_some_and(Value::is_object)) {
                self.block_started(idx, map, out);
            }
            if let Some(tu) = start.and_then(|s| s.get("toolUse")).filter(|t| t.is_object() && !server_tool_use(t)) {
                let Some(p) = self.open.entry((0, idx)) else { return };
                p.id = str_of(tu, "toolUseId");
                p.name = str_of(tu, "name").unwrap_or_default();
                // Not sent by Bedrock, but kept by the turn when no input streams.
                p.whole = tu.get("input").cloned();
            }
        } else if let Some(delta) = ev.get("contentBlockDelta") {
            let idx = delta.get("contentBlockIndex").and_then(Value::as_u64).unwrap_or(0);
            if let Some(input) = delta.get("delta").and_then(|d| d.get("toolUse")).and_then(|t| t.get("input")).and_then(Value::as_str) {
                if let Some(p) = self.open.get_mut((0, idx)) {
                    p.args.push_str(input);
                }
            }
        } else if let Some(stop) = ev.get("contentBlockStop") {
            let idx = stop.get("contentBlockIndex").and_then(Value::as_u64).unwrap_or(0);
            if let Some(p) = self.open.get_mut((0, idx)) {
                p.closed = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naming::{NameMap, NamingOptions, NameRule};
    use serde_json::json;

    /// An event pushed, which must be taken.
    fn push(acc: &mut Accumulator, event: &Value, map: Option<&NameMap>) -> Vec<ToolCall> {
        acc.push(event, map).unwrap()
    }

    fn map() -> NameMap {
        NameMap::build(&[(Some("gh"), "create_issue")], &NamingOptions::default(), NameRule::Strict).0
    }

    #[test]
    fn a_responses_call_keeps_its_tool_namespace_and_resolves_by_it() {
        // Two tools named `search` in the namespaces `github` and `jira` (F4 of s27a): each call
        // says its namespace, and a map of the MCP servers' tools resolves each to its server's.
        let map = NameMap::build(&[(Some("github"), "search"), (Some("jira"), "search")], &NamingOptions::default(), NameRule::Strict).0;
        let item = |id: &str, ns: &str| json!({"type":"function_call","id":format!("fc_{id}"),"call_id":id,"namespace":ns,"name":"search","arguments":"{\"q\":\"bug\"}","status":"completed"});
        let got = |calls: &[ToolCall]| calls.iter().map(|c| (c.namespace.clone(), c.provider_name.clone(), c.server.clone(), c.tool.clone(), c.error.is_none())).collect::<Vec<_>>();
        let ns = |n: &str| Some(n.to_owned());
        let want_mapped = vec![(ns("github"), "search".to_owned(), ns("github"), "search".to_owned(), true), (ns("jira"), "search".to_owned(), ns("jira"), "search".to_owned(), true)];
        let response = json!({"object":"response","status":"completed","output":[item("call_1","github"), item("call_2","jira")]});
        assert_eq!(got(&parse_tool_calls(&response, CallFormat::OpenAiResponses, Some(&map)).unwrap()), want_mapped);
        let unmapped = parse_tool_calls(&response, CallFormat::OpenAiResponses, None).unwrap();
        assert_eq!(got(&unmapped), vec![(ns("github"), "search".to_owned(), None, "search".to_owned(), true), (ns("jira"), "search".to_owned(), None, "search".to_owned(), true)]);
        assert_eq!(unmapped[0].to_value()["namespace"], "github");
        // Streamed: the item's namespace, from `output_item.added`.
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        let mut calls = Vec::new();
        for (i, (id, n)) in [("call_1", "github"), ("call_2", "jira")].into_iter().enumerate() {
            let mut added = item(id, n);
            added["arguments"] = json!("");
            added["status"] = json!("in_progress");
            calls.extend(push(&mut acc, &json!({"type":"response.output_item.added","output_index":i,"item":added}), Some(&map)));
            calls.extend(push(&mut acc, &json!({"type":"response.function_call_arguments.delta","output_index":i,"item_id":format!("fc_{id}"),"delta":"{\"q\":\"bug\"}"}), Some(&map)));
            calls.extend(push(&mut acc, &json!({"type":"response.output_item.done","output_index":i,"item":item(id, n)}), Some(&map)));
        }
        calls.extend(acc.finish(Some(&map)).unwrap());
        assert_eq!(got(&calls), want_mapped);
        // A call outside a namespace has none.
        let plain = json!([{"type":"function_call","call_id":"c","name":"t","arguments":"{}"}]);
        assert_eq!(parse_tool_calls(&plain, CallFormat::OpenAiResponses, None).unwrap()[0].namespace, None);
    }

    /// A call whose namespace is a server of the map and whose name the map resolves to another
    /// server's tool is no guess: `search` in namespace `grafana` is not docs's `search`. A
    /// namespace that is no server of the map (the app's own grouping) resolves by the name.
    #[test]
    fn a_responses_call_in_another_servers_namespace_is_not_routed_by_its_name_alone() {
        let bare = NamingOptions { format: Some(crate::naming::NameFormat::Bare), ..NamingOptions::default() };
        let map = NameMap::build(&[(Some("docs"), "search"), (Some("grafana"), "x")], &bare, NameRule::Strict).0;
        let item = |ns: &str| json!({"type":"function_call","call_id":"c2","name":"search","namespace":ns,"arguments":"{}","status":"completed"});
        let parsed = |ns: &str| parse_tool_calls(&json!([item(ns)]), CallFormat::OpenAiResponses, Some(&map)).unwrap().remove(0);
        let refused = parsed("grafana");
        let e = refused.error.as_ref().unwrap();
        assert_eq!(e.code, "UNKNOWN_TOOL_NAME");
        assert!(e.message.contains("namespace \"grafana\", a server of this name map, but \"search\" is server \"docs\"'s tool \"search\""), "{}", e.message);
        for ok in ["docs", "my_tools"] {
            let call = parsed(ok);
            assert_eq!((call.server.as_deref(), call.error.is_none()), (Some("docs"), true), "{ok}");
        }
        // Streamed, the same.
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        let mut calls = push(&mut acc, &json!({"type":"response.output_item.done","output_index":0,"item":item("grafana")}), Some(&map));
        calls.extend(acc.finish(Some(&map)).unwrap());
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].error.as_ref().map(|e| e.code), Some("UNKNOWN_TOOL_NAME"));
        // Each server lists `search` (their names hashed apart; a hub that gave docs's `search`
        // first keeps it bare): a call of `search` in grafana's namespace is grafana's.
        let both = NameMap::build(&[(Some("docs"), "search"), (Some("grafana"), "search")], &bare, NameRule::Strict).0;
        let hashed = both.entries()[1].name.clone();
        assert_ne!(hashed, "search");
        let in_grafana = parse_tool_calls(&json!([item("grafana")]), CallFormat::OpenAiResponses, Some(&both)).unwrap().remove(0);
        assert_eq!((in_grafana.server.as_deref(), in_grafana.error.is_none(), in_grafana.provider_name.as_str()), (Some("grafana"), true, "search"));
        let in_docs = parse_tool_calls(&json!([item("docs")]), CallFormat::OpenAiResponses, Some(&both)).unwrap().remove(0);
        assert_eq!(in_docs.server.as_deref(), Some("docs"));
        // The default naming: a whole name of grafana's in docs's namespace.
        let map = NameMap::build(&[(Some("docs"), "search"), (Some("grafana"), "list_incidents")], &NamingOptions::default(), NameRule::Strict).0;
        let wrong = json!([{"type":"function_call","call_id":"c","name":"mcp__grafana__list_incidents","namespace":"docs","arguments":"{}"}]);
        assert_eq!(parse_tool_calls(&wrong, CallFormat::OpenAiResponses, Some(&map)).unwrap()[0].error.as_ref().map(|e| e.code), Some("UNKNOWN_TOOL_NAME"));
    }

    #[test]
    fn openai_chat_calls_resolve_and_bad_arguments_are_per_call_errors() {
        // Shape: openai-node ChatCompletion.choices[].message.tool_calls
        let resp = json!({"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[
            {"id":"call_1","type":"function","function":{"name":"mcp__gh__create_issue","arguments":"{\"title\":\"x\"}"}},
            {"id":"call_2","type":"function","function":{"name":"mcp__gh__create_issue","arguments":"{\"title\":"}},
            {"id":"call_3","type":"function","function":{"name":"mcp__gh__create_issue","arguments":""}},
            {"id":"call_4","type":"function","function":{"name":"mcp__other__x","arguments":"{}"}}
        ]},"finish_reason":"tool_calls"}]});
        let calls = parse_tool_calls(&resp, CallFormat::OpenAi, Some(&map())).unwrap();
        assert_eq!(calls.len(), 4);
        assert_eq!((calls[0].server.as_deref(), calls[0].tool.as_str()), (Some("gh"), "create_issue"));
        assert_eq!(calls[0].arguments, json!({"title":"x"}));
        assert_eq!(calls[1].error.as_ref().unwrap().code, "INVALID_ARGUMENTS");
        assert_eq!(calls[2].arguments, json!({}));
        assert_eq!(calls[3].error.as_ref().unwrap().code, "UNKNOWN_TOOL_NAME");
    }

    /// A call named inside a model's namespace reaches its tool; `providerName` stays the name
    /// as the model sent it (what the turn and the tool's result go back with).
    #[test]
    fn a_call_named_inside_a_models_namespace_is_resolved() {
        let resp = json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"default_api.mcp__gh__create_issue","args":{"title":"x"}}}]}}]});
        let calls = parse_tool_calls(&resp, CallFormat::Gemini, Some(&map())).unwrap();
        assert_eq!(calls[0].error, None);
        assert_eq!((calls[0].provider_name.as_str(), calls[0].server.as_deref(), calls[0].tool.as_str()), ("default_api.mcp__gh__create_issue", Some("gh"), "create_issue"));
        let resp = json!({"choices":[{"message":{"tool_calls":[{"id":"c","type":"function","function":{"name":"functions.mcp__gh__create_issue","arguments":"{}"}}]}}]});
        assert_eq!(parse_tool_calls(&resp, CallFormat::OpenAi, Some(&map())).unwrap()[0].tool, "create_issue");
    }

    #[test]
    fn ids_made_for_calls_sent_without_cost_as_many_as_the_calls() {
        let call = |i: usize, index: bool| {
            let mut c = json!({"type":"function","function":{"name":"f","arguments":"{}"}});
            if index {
                c["index"] = json!(i);
            }
            c
        };
        let calls = |n: usize, index: bool| Value::Array((0..n).map(|i| call(i, index)).collect());
        let parse = |format: CallFormat| {
            move |n: usize| {
                let resp = match format {
                    CallFormat::Ollama => json!({"message":{"role":"assistant","tool_calls":calls(n, false)}}),
                    _ => json!({"choices":[{"message":{"role":"assistant","tool_calls":calls(n, false)}}]}),
                };
                parse_tool_calls(&resp, format, None).unwrap()
            }
        };
        let stream = |format: CallFormat, events: fn(usize, Value) -> Vec<Value>| {
            move |n: usize| {
                let mut acc = Accumulator::new(format);
                let mut out = Vec::new();
                for e in events(n, calls(n, format != CallFormat::Ollama)) {
                    out.extend(push(&mut acc, &e, None));
                }
                out.extend(acc.finish(None).unwrap());
                assert!(acc.message().is_ok());
                out
            }
        };
        let ollama_line: fn(usize, Value) -> Vec<Value> = |_, calls| vec![json!({"message":{"role":"assistant","tool_calls":calls},"done":true})];
        let ollama_lines: fn(usize, Value) -> Vec<Value> = |_, calls| {
            let mut lines: Vec<Value> = calls.as_array().unwrap().iter().map(|c| json!({"message":{"role":"assistant","tool_calls":[c]},"done":false})).collect();
            lines.push(json!({"message":{"role":"assistant","content":""},"done":true}));
            lines
        };
        let chat_chunk: fn(usize, Value) -> Vec<Value> = |_, calls| vec![json!({"choices":[{"index":0,"delta":{"tool_calls":calls},"finish_reason":"tool_calls"}]})];
        let chat_chunks: fn(usize, Value) -> Vec<Value> = |_, calls| {
            let mut chunks: Vec<Value> = calls.as_array().unwrap().iter().map(|c| json!({"choices":[{"index":0,"delta":{"tool_calls":[c]}}]})).collect();
            chunks.push(json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}));
            chunks
        };
        /// The calls read from `n` calls sent without an id.
        type Read<'a> = Box<dyn Fn(usize) -> Vec<ToolCall> + 'a>;
        let cases: [(&str, Read<'_>); 7] = [
            ("chat", Box::new(parse(CallFormat::OpenAi))),
            ("chat list", Box::new(move |n| parse_tool_calls(&calls(n, false), CallFormat::OpenAi, None).unwrap())),
            ("ollama", Box::new(parse(CallFormat::Ollama))),
            ("ollama line", Box::new(stream(CallFormat::Ollama, ollama_line))),
            ("ollama lines", Box::new(stream(CallFormat::Ollama, ollama_lines))),
            ("chat chunk", Box::new(stream(CallFormat::OpenAi, chat_chunk))),
            ("chat chunks", Box::new(stream(CallFormat::OpenAi, chat_chunks))),
        ];
        let mut costs = Vec::new();
        for (what, run) in cases {
            let cost = |n: usize| {
                IDS_READ.with(|c| c.set(0));
                let out = run(n);
                let ids: Vec<String> = out.iter().map(|c| c.id.clone().unwrap()).collect();
                assert_eq!(ids, (0..n).map(|i| format!("call_{i}")).collect::<Vec<_>>(), "{what}");
                IDS_READ.with(|c| c.get())
            };
            costs.push((what, cost(200), cost(800)));
        }
        assert!(costs.iter().all(|&(_, few, many)| many <= 5 * few.max(200)), "ids read for 200 calls and for 800: {costs:?}");
    }

    #[test]
    fn every_provider_shape() {
        let cases = [
            (CallFormat::OpenAiResponses, json!({"output":[{"type":"message","content":[]},{"type":"function_call","id":"fc_1","call_id":"call_9","name":"t","arguments":"{\"a\":1}"}]}), Some("call_9")),
            (CallFormat::Anthropic, json!({"content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"toolu_1","name":"t","input":{"a":1}}]}), Some("toolu_1")),
            (CallFormat::Gemini, json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"t","args":{"a":1}}}]}}]}), None),
            (CallFormat::Bedrock, json!({"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_1","name":"t","input":{"a":1}}}]}}}), Some("tooluse_1")),
            (CallFormat::Ollama, json!({"message":{"role":"assistant","tool_calls":[{"function":{"name":"t","arguments":{"a":1}}}]}}), Some("call_0")),
        ];
        for (format, resp, id) in cases {
            let calls = parse_tool_calls(&resp, format, None).unwrap();
            assert_eq!(calls.len(), 1, "{format:?}");
            assert_eq!(calls[0].id.as_deref(), id, "{format:?}");
            assert_eq!(calls[0].arguments, json!({"a":1}), "{format:?}");
            assert_eq!(calls[0].tool, "t");
        }
    }

    /// `null` (JavaScript's `undefined`: `message.tool_calls`, `response.functionCalls` when the
    /// model called no tool) gives no calls for every provider, not `INVALID_INPUT`.
    #[test]
    fn null_gives_no_calls_for_every_provider() {
        use CallFormat::*;
        for format in [OpenAi, OpenAiResponses, Anthropic, Gemini, Bedrock, Ollama] {
            assert_eq!(parse_tool_calls(&Value::Null, format, None).unwrap(), Vec::new(), "{format:?}");
            // Anything else but an object or an array still is.
            assert_eq!(parse_tool_calls(&json!(1), format, None).unwrap_err().code, ErrorCode::InvalidInput, "{format:?}");
        }
    }

    /// A response with calls parsed for another provider (but the one sharing its shapes) is an
    /// error that names the provider it looks like, never `[]`: the fields the formats share
    /// (`content`, `output`, `role`, `message`) let it past the shape check.
    #[test]
    fn calls_in_another_providers_shape_are_an_error_not_none() {
        use CallFormat::*;
        let given = [
            (OpenAi, json!({"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"t","arguments":"{}"}}]}}]})),
            (OpenAi, json!({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"t","arguments":"{}"}}]})),
            (OpenAiResponses, json!({"output":[{"type":"function_call","id":"fc_1","call_id":"call_9","name":"t","arguments":"{}"}]})),
            (OpenAiResponses, json!([{"type":"function_call","id":"fc_1","call_id":"call_9","name":"t","arguments":"{}"}])),
            (Anthropic, json!({"id":"m","type":"message","role":"assistant","content":[{"type":"tool_use","id":"tu1","name":"t","input":{}}]})),
            (Anthropic, json!([{"type":"tool_use","id":"tu1","name":"t","input":{}}])),
            (Gemini, json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"t","args":{}}}]}}]})),
            (Gemini, json!({"role":"model","parts":[{"functionCall":{"name":"t","args":{}}}]})),
            (Bedrock, json!({"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"tu","name":"t","input":{}}}]}}})),
            (Bedrock, json!({"role":"assistant","content":[{"toolUse":{"toolUseId":"tu","name":"t","input":{}}}]})),
        ];
        let family = |f: CallFormat| if f == Ollama { OpenAi } else { f };
        for (from, resp) in &given {
            assert_eq!(parse_tool_calls(resp, *from, None).unwrap().len(), 1, "{from:?} {resp}");
            for to in [OpenAi, Ollama, OpenAiResponses, Anthropic, Gemini, Bedrock] {
                match parse_tool_calls(resp, to, None) {
                    Ok(calls) => assert!(family(to) == family(*from) && calls.len() == 1, "{from:?} as {to:?}: {calls:?} {resp}"),
                    Err(e) => {
                        assert_ne!(family(to), family(*from), "{e}");
                        assert_eq!(e.code, ErrorCode::InvalidInput, "{from:?} as {to:?}: {e}");
                        // Whichever check met it first (shape, fields), the error names the provider.
                        let like = e.details.as_ref().and_then(|d| d.get("looksLike"));
                        assert_eq!(like, Some(&json!(from.label())), "{from:?} as {to:?}: {e}");
                        assert!(e.message.contains("parse it for the provider it came from"), "{e}");
                    }
                }
            }
        }
        let e = parse_tool_calls(&given[4].1, OpenAi, None).unwrap_err();
        assert_eq!(e.message, "response holds tool calls as Anthropic gives them, and none as OpenAI does: parse it for the provider it came from");
        // Without calls, another provider's text-only response is still none.
        assert_eq!(parse_tool_calls(&json!({"role":"assistant","content":[{"type":"text","text":"hi"}]}), OpenAi, None).unwrap(), []);
    }

    /// A Live API tool call whose `functionCalls` is no list of `FunctionCall`s is `INVALID_INPUT`
    /// naming where: read, it would give fewer calls than the turn holds, and the session would
    /// wait for the answers of those it lost.
    #[test]
    fn a_live_tool_call_that_lists_no_function_calls_is_refused() {
        let call = json!({"id": "c", "name": "t", "args": {}});
        for (live, at) in [
            (json!({"toolCall": {"functionCalls": [5, call]}}), "/toolCall/functionCalls/0"),
            (json!({"toolCall": {"functionCalls": [{"functionCall": call}]}}), "/toolCall/functionCalls/0"),
            (json!({"toolCall": {"functionCalls": "c"}}), "/toolCall/functionCalls"),
            (json!({"functionCalls": [call, {}]}), "/functionCalls/1"),
        ] {
            let e = parse_tool_calls(&live, CallFormat::Gemini, None).unwrap_err();
            assert_eq!((e.code, e.path.as_deref()), (ErrorCode::InvalidInput, Some(at)), "{live}: {}", e.message);
        }
        // A built-in tool's toolCall (no functionCalls) holds no function call.
        assert!(parse_tool_calls(&json!({"toolCall": {"toolType": "GOOGLE_SEARCH_WEB", "args": {}}}), CallFormat::Gemini, None).unwrap().is_empty());
    }

    #[test]
    fn the_parts_of_a_response_that_the_sdks_hand_out() {
        let a1 = json!({"a":1});
        let cases = [
            // Responses: `res.output`, one item.
            (CallFormat::OpenAiResponses, json!([{"type":"reasoning","id":"rs_1","summary":[]},{"type":"function_call","id":"fc_1","call_id":"call_1","name":"t","arguments":"{\"a\":1}"}])),
            (CallFormat::OpenAiResponses, json!({"type":"function_call","id":"fc_1","call_id":"call_1","name":"t","arguments":"{\"a\":1}"})),
            // Anthropic: `message.content`, one block.
            (CallFormat::Anthropic, json!([{"type":"text","text":"hi"},{"type":"tool_use","id":"call_1","name":"t","input":{"a":1}}])),
            (CallFormat::Anthropic, json!({"type":"tool_use","id":"call_1","name":"t","input":{"a":1}})),
            // Gemini: `res.functionCalls`, a candidate, `content.parts`, a part, a FunctionCall.
            (CallFormat::Gemini, json!([{"id":"call_1","name":"t","args":{"a":1}}])),
            (CallFormat::Gemini, json!({"content":{"role":"model","parts":[{"text":"hi"},{"functionCall":{"id":"call_1","name":"t","args":{"a":1}}}]},"finishReason":"STOP","index":0})),
            (CallFormat::Gemini, json!([{"text":"hi"},{"functionCall":{"id":"call_1","name":"t","args":{"a":1}}}])),
            (CallFormat::Gemini, json!({"functionCall":{"id":"call_1","name":"t","args":{"a":1}}})),
            (CallFormat::Gemini, json!({"id":"call_1","name":"t","args":{"a":1}})),
            // Gemini Live API: a message's `toolCall`, and that `LiveServerToolCall`.
            (CallFormat::Gemini, json!({"toolCall":{"functionCalls":[{"id":"call_1","name":"t","args":{"a":1}}]}})),
            (CallFormat::Gemini, json!({"functionCalls":[{"id":"call_1","name":"t","args":{"a":1}}]})),
            // Bedrock: `res.output`, `message.content`, one block.
            (CallFormat::Bedrock, json!({"message":{"role":"assistant","content":[{"text":"hi"},{"toolUse":{"toolUseId":"call_1","name":"t","input":{"a":1}}}]}})),
            (CallFormat::Bedrock, json!([{"text":"hi"},{"toolUse":{"toolUseId":"call_1","name":"t","input":{"a":1}}}])),
            (CallFormat::Bedrock, json!({"toolUse":{"toolUseId":"call_1","name":"t","input":{"a":1}}})),
            // OpenAI Chat: `message.tool_calls`, one tool call, one choice.
            (CallFormat::OpenAi, json!([{"id":"call_1","type":"function","function":{"name":"t","arguments":"{\"a\":1}"}}])),
            (CallFormat::OpenAi, json!({"id":"call_1","type":"function","function":{"name":"t","arguments":"{\"a\":1}"}})),
            (CallFormat::OpenAi, json!({"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"t","arguments":"{\"a\":1}"}}]}})),
        ];
        for (format, input) in cases {
            let calls = parse_tool_calls(&input, format, None).unwrap_or_else(|e| panic!("{format:?} {input}: {e}"));
            assert_eq!(calls.len(), 1, "{format:?} {input}");
            assert_eq!((calls[0].id.as_deref(), calls[0].tool.as_str(), &calls[0].arguments), (Some("call_1"), "t", &a1), "{format:?} {input}");
        }
    }

    #[test]
    fn parts_and_blocks_of_other_kinds_beside_the_calls_are_read_past() {
        // Gemini 3 with a built-in tool and a function (ai.google.dev, tool-combination): the
        // built-in tool's `toolCall` and `toolResponse` parts come before the function call, and
        // `content.parts` given as it is must not be refused for them. Media and code parts too.
        let parts = json!([
            {"toolCall":{"id":"tc_1","toolType":"GOOGLE_SEARCH_WEB","args":{"queries":["northernmost city"]}}},
            {"toolResponse":{"id":"tc_1","toolType":"GOOGLE_SEARCH_WEB","response":{"search_suggestions":"..."}}},
            {"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},
            {"fileData":{"mimeType":"video/mp4","fileUri":"gs://b/v.mp4"},"videoMetadata":{"fps":1}},
            {"executableCode":{"language":"PYTHON","code":"print(1)"}},
            {"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1\n"}},
            {"audioTranscription":{"text":"one","finished":true}},
            {"text":"Thinking...","thought":true},
            {"functionCall":{"id":"call_1","name":"t","args":{"a":1}},"thoughtSignature":"c2ln"}
        ]);
        let response = json!({"candidates":[{"content":{"role":"model","parts":parts},"finishReason":"STOP","index":0}]});
        for input in [&parts, &response, &json!({"role":"model","parts":parts})] {
            let calls = parse_tool_calls(input, CallFormat::Gemini, None).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(calls.len(), 1, "{input}");
            assert_eq!((calls[0].id.as_deref(), &calls[0].arguments), (Some("call_1"), &json!({"a":1})));
        }
        for lone in parts.as_array().unwrap() {
            assert_eq!(parse_tool_calls(lone, CallFormat::Gemini, None).unwrap().len(), usize::from(lone.get("functionCall").is_some()), "{lone}");
        }
        // Anthropic: server tools' blocks and a text block with citations beside a tool_use.
        let content = json!([
            {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},
            {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://example.com","title":"E","encrypted_content":"x","page_age":null}]},
            {"type":"text","text":"E says so.","citations":[{"type":"web_search_result_location","url":"https://example.com","title":"E","encrypted_index":"y","cited_text":"so"}]},
            {"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_2","content":{"type":"web_fetch_tool_result_error","error_code":"url_not_accessible"}},
            {"type":"code_execution_tool_result","tool_use_id":"srvtoolu_3","content":{"type":"code_execution_result","stdout":"1","stderr":"","return_code":0,"content":[]}},
            {"type":"mcp_tool_use","id":"mcptoolu_1","name":"echo","server_name":"s","input":{}},
            {"type":"mcp_tool_result","tool_use_id":"mcptoolu_1","is_error":false,"content":[{"type":"text","text":"hi"}]},
            {"type":"tool_use","id":"call_1","name":"t","input":{"a":1}}
        ]);
        for input in [content.clone(), json!({"role":"assistant","content":content})] {
            let calls = parse_tool_calls(&input, CallFormat::Anthropic, None).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(calls.len(), 1, "only tool_use is the client's to call: {input}");
            assert_eq!((calls[0].id.as_deref(), &calls[0].arguments), (Some("call_1"), &json!({"a":1})));
        }
    }

    #[test]
    fn a_bedrock_system_tools_use_is_no_call() {
        // Nova's nova_grounding, run by Bedrock (`type: "server_tool_use"`), its toolResult after
        // it in the turn (F1, s24a): no call to run and answer, with a name map or without, in a
        // response or a stream; the client's toolUse beside it is.
        let server = json!({"toolUse":{"toolUseId":"tooluse_srv1","name":"nova_grounding","input":{"query":"weather"},"type":"server_tool_use"}});
        let result = json!({"toolResult":{"toolUseId":"tooluse_srv1","content":[{"json":{"results":[1]}}],"status":"success","type":"nova_grounding"}});
        let client = json!({"toolUse":{"toolUseId":"tooluse_1","name":"mcp__gh__create_issue","input":{"title":"x"}}});
        let response = json!({"output":{"message":{"role":"assistant","content":[server, result, client]}},"stopReason":"tool_use"});
        for m in [None, Some(map())] {
            let calls = parse_tool_calls(&response, CallFormat::Bedrock, m.as_ref()).unwrap();
            assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.error.is_none())).collect::<Vec<_>>(), [(Some("tooluse_1"), true)]);
            assert!(parse_tool_calls(&server, CallFormat::Bedrock, m.as_ref()).unwrap().is_empty());
        }
        // A turn cut by max_tokens after the system tool's use: the client's call before it stands.
        let cut = json!({"output":{"message":{"role":"assistant","content":[client, server]}},"stopReason":"max_tokens"});
        let calls = parse_tool_calls(&cut, CallFormat::Bedrock, None).unwrap();
        assert_eq!((calls.len(), calls[0].error.is_none()), (1, true));
        // `type` is read: one not a string is refused, as an id's is.
        let e = parse_tool_calls(&json!({"toolUse":{"toolUseId":"t","name":"n","input":{},"type":1}}), CallFormat::Bedrock, None).unwrap_err();
        assert_eq!(e.path.as_deref(), Some("/toolUse/type"));
        // ConverseStream: the system tool's block streams its input and stops; no call, even at
        // `end_turn`.
        let mut acc = Accumulator::new(CallFormat::Bedrock);
        let mut calls = Vec::new();
        for ev in [
            json!({"messageStart":{"role":"assistant"}}),
            json!({"contentBlockStart":{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"tooluse_srv1","name":"nova_grounding","type":"server_tool_use"}}}}),
            json!({"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"query\":\"weather\"}"}}}}),
            json!({"contentBlockStop":{"contentBlockIndex":0}}),
            json!({"contentBlockStart":{"contentBlockIndex":1,"start":{"toolResult":{"toolUseId":"tooluse_srv1","type":"nova_grounding","status":"success"}}}}),
            json!({"contentBlockStop":{"contentBlockIndex":1}}),
            json!({"contentBlockStart":{"contentBlockIndex":2,"start":{"toolUse":{"toolUseId":"tooluse_1","name":"mcp__gh__create_issue"}}}}),
            json!({"contentBlockDelta":{"contentBlockIndex":2,"delta":{"toolUse":{"input":"{}"}}}}),
            json!({"contentBlockStop":{"contentBlockIndex":2}}),
            json!({"messageStop":{"stopReason":"end_turn"}}),
        ] {
            calls.extend(push(&mut acc, &ev, Some(&map())));
        }
        calls.extend(acc.finish(Some(&map())).unwrap());
        assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.tool.as_str())).collect::<Vec<_>>(), [(Some("tooluse_1"), "create_issue")]);
    }

    #[test]
    fn responses_without_calls_give_none_and_what_is_not_a_response_is_an_error() {
        let none = [
            (CallFormat::OpenAi, json!({"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}]})),
            (CallFormat::OpenAi, json!({"role":"assistant","content":"hi","refusal":null})),
            (CallFormat::Ollama, json!({"model":"m","message":{"role":"assistant","content":"hi"},"done":true})),
            (CallFormat::OpenAiResponses, json!({"id":"resp_1","object":"response","output":[{"type":"message","role":"assistant","content":[]}]})),
            (CallFormat::OpenAiResponses, json!({"type":"message","role":"assistant","content":[]})),
            (CallFormat::Anthropic, json!({"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"hi"}]})),
            (CallFormat::Anthropic, json!({"type":"text","text":"hi"})),
            (CallFormat::Gemini, json!({"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}]})),
            // A prompt blocked: no candidates at all.
            (CallFormat::Gemini, json!({"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":3}})),
            (CallFormat::Gemini, json!({"text":"hi"})),
            (CallFormat::Gemini, json!([])),
            // `response.functionCalls` (and for the others `message.tool_calls`...) when there are none.
            (CallFormat::Gemini, Value::Null),
            (CallFormat::Bedrock, Value::Null),
            (CallFormat::Anthropic, Value::Null),
            (CallFormat::Bedrock, json!({"output":{"message":{"role":"assistant","content":[{"text":"hi"}]}},"stopReason":"end_turn"})),
            (CallFormat::Bedrock, json!([{"text":"hi"},{}])),
        ];
        for (format, input) in none {
            assert_eq!(parse_tool_calls(&input, format, None).unwrap_or_else(|e| panic!("{format:?} {input}: {e}")), [], "{format:?} {input}");
        }
        let wrong = [
            (CallFormat::OpenAi, json!({})),
            (CallFormat::OpenAiResponses, json!({"choices":[]})),
            (CallFormat::OpenAiResponses, json!([{"call_id":"c","name":"t"}])),
            (CallFormat::Anthropic, json!({"candidates":[]})),
            (CallFormat::Gemini, json!({"name":"t","inputSchema":{}})),
            (CallFormat::Gemini, json!(["functionCall"])),
            (CallFormat::Bedrock, json!({"choices":[]})),
            (CallFormat::Bedrock, json!("text")),
        ];
        for (format, input) in wrong {
            let e = parse_tool_calls(&input, format, None).expect_err(&format!("{format:?} {input}"));
            assert_eq!(e.code, ErrorCode::InvalidInput, "{format:?} {input}: {e}");
        }
        let e = parse_tool_calls(&json!({"choices":[]}), CallFormat::Anthropic, None).unwrap_err();
        assert_eq!(e.message, "response is not an Anthropic message or content block: it has none of its fields (keys: choices)");
        let e = parse_tool_calls(&json!([{"type":"tool_use"},{"x":1}]), CallFormat::Anthropic, None).unwrap_err();
        assert_eq!(e.message, "response[1] is not an Anthropic message or content block: it has none of its fields (keys: x)");
    }

    #[test]
    fn wrong_typed_fields_are_invalid_input_naming_their_path() {
        use CallFormat::*;
        // (provider, what is given, the JSON pointer, the message)
        let cases = [
            (OpenAi, json!({"choices":{}}), "/choices", "response.choices must be an array, got object"),
            (OpenAi, json!({"choices":[1]}), "/choices/0", "response.choices[0] must be an object, got number"),
            (OpenAi, json!({"choices":[{"message":"hi"}]}), "/choices/0/message", "response.choices[0].message must be an object, got string"),
            (OpenAi, json!({"choices":[{"index":0,"message":{"tool_calls":{}}}]}), "/choices/0/message/tool_calls", "response.choices[0].message.tool_calls must be an array, got object"),
            (OpenAi, json!({"choices":[{"message":{"tool_calls":[{"id":1,"function":{"name":"t"}}]}}]}), "/choices/0/message/tool_calls/0/id", "response.choices[0].message.tool_calls[0].id must be a string, got number"),
            (OpenAi, json!({"choices":[{"message":{"tool_calls":[{"id":"c","function":"t"}]}}]}), "/choices/0/message/tool_calls/0/function", "response.choices[0].message.tool_calls[0].function must be an object, got string"),
            (OpenAi, json!({"role":"assistant","tool_calls":"x"}), "/tool_calls", "response.tool_calls must be an array, got string"),
            (OpenAi, json!([{"id":"c","function":{"name":5}}]), "/0/function/name", "response[0].function.name must be a string, got number"),
            (Ollama, json!({"model":"m","message":[]}), "/message", "response.message must be an object, got array"),
            (Ollama, json!({"message":{"tool_calls":[{"function":{"name":"t","arguments":{}}},3]}}), "/message/tool_calls/1", "response.message.tool_calls[1] must be an object, got number"),
            (OpenAiResponses, json!({"object":"response","output":3}), "/output", "response.output must be an array, got number"),
            (OpenAiResponses, json!({"output":[null]}), "/output/0", "response.output[0] must be an object, got null"),
            (OpenAiResponses, json!({"output":[{"type":"function_call","call_id":7,"name":"t","arguments":"{}"}]}), "/output/0/call_id", "response.output[0].call_id must be a string, got number"),
            (OpenAiResponses, json!({"status":1,"output":[]}), "/status", "response.status must be a string, got number"),
            (OpenAiResponses, json!({"object":"response","status":"incomplete","incomplete_details":"max_output_tokens","output":[]}), "/incomplete_details", "response.incomplete_details must be an object, got string"),
            (OpenAiResponses, json!([{"type":"function_call","call_id":"c","name":["t"]}]), "/0/name", "response[0].name must be a string, got array"),
            (Anthropic, json!({"id":"msg_1","type":"message","role":"assistant","content":"hi"}), "/content", "response.content must be an array, got string"),
            (Anthropic, json!({"role":"assistant","content":{}}), "/content", "response.content must be an array, got object"),
            (Anthropic, json!({"role":"assistant","content":["text"]}), "/content/0", "response.content[0] must be an object, got string"),
            (Anthropic, json!({"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":{}}]}), "/content/0/name", "response.content[0].name must be a string, got object"),
            (Gemini, json!({"candidates":{}}), "/candidates", "response.candidates must be an array, got object"),
            (Gemini, json!({"candidates":[{"content":[]}]}), "/candidates/0/content", "response.candidates[0].content must be an object, got array"),
            (Gemini, json!({"candidates":[{"content":{"parts":{}}}]}), "/candidates/0/content/parts", "response.candidates[0].content.parts must be an array, got object"),
            (Gemini, json!({"candidates":[{"content":{"parts":[{"functionCall":"t"}]}}]}), "/candidates/0/content/parts/0/functionCall", "response.candidates[0].content.parts[0].functionCall must be an object, got string"),
            (Gemini, json!({"candidates":[{"content":{"parts":[{"functionCall":{"name":1}}]}}]}), "/candidates/0/content/parts/0/functionCall/name", "response.candidates[0].content.parts[0].functionCall.name must be a string, got number"),
            (Gemini, json!({"promptFeedback":"SAFETY"}), "/promptFeedback", "response.promptFeedback must be an object, got string"),
            (Gemini, json!([{"functionCall":{"name":"t","willContinue":"yes"}}]), "/0/functionCall/willContinue", "response[0].functionCall.willContinue must be a boolean, got string"),
            (Bedrock, json!({"output":"x"}), "/output", "response.output must be an object, got string"),
            (Bedrock, json!({"output":{"message":[]}}), "/output/message", "response.output.message must be an object, got array"),
            (Bedrock, json!({"output":{"message":{"role":"assistant","content":{}}},"stopReason":"end_turn"}), "/output/message/content", "response.output.message.content must be an array, got object"),
            (Bedrock, json!({"message":{"content":[{"toolUse":"x"}]}}), "/message/content/0/toolUse", "response.message.content[0].toolUse must be an object, got string"),
            (Bedrock, json!({"content":[{"toolUse":{"toolUseId":1,"name":"t","input":{}}}]}), "/content/0/toolUse/toolUseId", "response.content[0].toolUse.toolUseId must be a string, got number"),
            (Bedrock, json!({"stopReason":3,"output":{"message":{"content":[]}}}), "/stopReason", "response.stopReason must be a string, got number"),
        ];
        for (format, input, path, message) in cases {
            let e = parse_tool_calls(&input, format, None).expect_err(&format!("{format:?} {input}"));
            assert_eq!((e.code, e.path.as_deref(), e.message.as_str()), (ErrorCode::InvalidInput, Some(path), message), "{format:?} {input}");
        }
        // Absent and null are what providers send for what they have not: no error, and the calls
        // there are read.
        let fine = [
            (OpenAi, json!({"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":null,"refusal":null},"finish_reason":"stop"}]}), 0),
            (OpenAi, json!({"choices":null,"role":"assistant","content":"hi"}), 0),
            (OpenAi, json!({"role":"assistant","tool_calls":[{"id":null,"type":"function","function":{"name":"t","arguments":"{}"}}]}), 1),
            (Ollama, json!({"model":"m","message":{"role":"assistant","content":"hi","tool_calls":null},"done":true}), 0),
            (OpenAiResponses, json!({"object":"response","status":"completed","error":null,"incomplete_details":null,"output":[]}), 0),
            (OpenAiResponses, json!({"output":null,"status":null}), 0),
            (OpenAiResponses, json!({"type":"function_call","id":null,"call_id":"c","name":"t","arguments":"{}","status":null}), 1),
            // Items whose fields of the same names mean something else: an `mcp_call`'s output is text.
            (OpenAiResponses, json!([{"type":"mcp_call","id":"mcp_1","server_label":"s","name":"t","arguments":"{}","output":"text"},{"type":"function_call_output","call_id":"c","output":"42"}]), 0),
            (Anthropic, json!({"role":"user","content":"hi"}), 0),
            (Anthropic, json!({"type":"message","role":"assistant","content":null,"stop_reason":"max_tokens"}), 0),
            (Anthropic, json!({"type":"tool_result","tool_use_id":"toolu_1","content":"42"}), 0),
            (Gemini, json!({"candidates":[{"finishReason":"SAFETY","index":0}],"promptFeedback":null}), 0),
            (Gemini, json!({"candidates":null,"promptFeedback":{"blockReason":"SAFETY"}}), 0),
            (Gemini, json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"t","args":{},"id":null}}]},"finishReason":null}]}), 1),
            (Bedrock, json!({"output":{"message":{"role":"assistant","content":[{"text":"hi"},{"toolUse":{"toolUseId":"t1","name":"t","input":{}}}]}},"stopReason":"tool_use"}), 1),
            (Bedrock, json!({"toolResult":{"toolUseId":"t1","content":[{"text":"y"}],"status":"success"}}), 0),
            (Bedrock, json!({"output":{"message":null},"message":{"content":null}}), 0),
        ];
        for (format, input, n) in fine {
            let calls = parse_tool_calls(&input, format, None).unwrap_or_else(|e| panic!("{format:?} {input}: {e}"));
            assert_eq!(calls.len(), n, "{format:?} {input}");
        }
    }

    #[test]
    fn wrong_typed_stream_event_fields_are_invalid_input_and_the_accumulator_goes_on() {
        use CallFormat::*;
        let cases = [
            (OpenAi, json!({"choices":"x"}), "/choices", "event.choices must be an array, got string"),
            (OpenAi, json!({"choices":[{"index":0,"delta":{"tool_calls":{"index":0}}}]}), "/choices/0/delta/tool_calls", "event.choices[0].delta.tool_calls must be an array, got object"),
            (OpenAi, json!({"choices":[{"index":"0","delta":{}}]}), "/choices/0/index", "event.choices[0].index must be a non-negative integer, got string"),
            (OpenAi, json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":-1,"function":{"arguments":"{}"}}]}}]}), "/choices/0/delta/tool_calls/0/index", "event.choices[0].delta.tool_calls[0].index must be a non-negative integer, got number"),
            (Ollama, json!({"message":{"tool_calls":[{"function":[]}]}}), "/message/tool_calls/0/function", "event.message.tool_calls[0].function must be an object, got array"),
            (OpenAiResponses, json!({"type":"response.output_item.added","output_index":0,"item":"x"}), "/item", "event.item must be an object, got string"),
            (OpenAiResponses, json!({"type":"response.output_item.added","output_index":-1,"item":{"type":"function_call"}}), "/output_index", "event.output_index must be a non-negative integer, got number"),
            (OpenAiResponses, json!({"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":{"a":1}}), "/delta", "event.delta must be a string, got object"),
            (OpenAiResponses, json!({"type":"response.completed","response":{"status":"completed","output":{}}}), "/response/output", "event.response.output must be an array, got object"),
            (Anthropic, json!({"type":"content_block_start","index":0,"content_block":[]}), "/content_block", "event.content_block must be an object, got array"),
            (Anthropic, json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":5}}), "/delta/partial_json", "event.delta.partial_json must be a string, got number"),
            (Anthropic, json!({"type":"message_start","message":{"type":"message","role":"assistant","content":"x"}}), "/message/content", "event.message.content must be an array, got string"),
            (Gemini, json!({"candidates":[{"content":{"parts":"x"}}]}), "/candidates/0/content/parts", "event.candidates[0].content.parts must be an array, got string"),
            (Bedrock, json!({"contentBlockStart":{"contentBlockIndex":0,"start":{"toolUse":"t"}}}), "/contentBlockStart/start/toolUse", "event.contentBlockStart.start.toolUse must be an object, got string"),
            (Bedrock, json!({"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":{}}}}}), "/contentBlockDelta/delta/toolUse/input", "event.contentBlockDelta.delta.toolUse.input must be a string, got object"),
            (Bedrock, json!({"contentBlockStop":{"contentBlockIndex":"0"}}), "/contentBlockStop/contentBlockIndex", "event.contentBlockStop.contentBlockIndex must be a non-negative integer, got string"),
        ];
        // One good call of each provider's stream, to push after the bad event.
        let good = |format: CallFormat| -> Vec<Value> {
            match format {
                OpenAi | Ollama => vec![json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"t","arguments":"{}"}}]},"finish_reason":"tool_calls"}]})],
                OpenAiResponses => vec![json!({"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"c1","name":"t","arguments":"{}"}})],
                Anthropic => vec![
                    json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"c1","name":"t","input":{}}}),
                    json!({"type":"content_block_stop","index":0}),
                ],
                Gemini => vec![json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"c1","name":"t","args":{}}}]}}]})],
                Bedrock => vec![
                    json!({"contentBlockStart":{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"c1","name":"t"}}}}),
                    json!({"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{}"}}}}),
                    json!({"contentBlockStop":{"contentBlockIndex":0}}),
                ],
            }
        };
        for (format, event, path, message) in cases {
            let mut acc = Accumulator::new(format);
            let e = acc.push(&event, None).expect_err(&format!("{format:?} {event}"));
            assert_eq!((e.code, e.path.as_deref(), e.message.as_str()), (ErrorCode::InvalidInput, Some(path), message), "{format:?} {event}");
            // The same as text.
            let e = acc.push_text(&format!("data: {event}\n\n"), None).expect_err("as text too");
            assert_eq!(e.path.as_deref(), Some(path));
            let mut calls = Vec::new();
            for ev in good(format) {
                calls.extend(push(&mut acc, &ev, None));
            }
            calls.extend(acc.finish(None).unwrap());
            assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("c1")], "{format:?}: the accumulator goes on");
        }
        // Null and absent fields are no error in a stream either.
        let mut acc = Accumulator::new(OpenAi);
        assert!(push(&mut acc, &json!({"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":null},"finish_reason":null,"logprobs":null}],"usage":null}), None).is_empty());
        let mut acc = Accumulator::new(Bedrock);
        assert!(push(&mut acc, &json!({"messageStart":{"role":"assistant"}}), None).is_empty());
        assert!(push(&mut acc, &json!({"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"hi"}}}), None).is_empty());
    }

    /// The message and the provider's error of a `PROVIDER_ERROR`.
    fn provider_failure(r: Result<Vec<ToolCall>>) -> (String, Value) {
        let e = r.expect_err("a provider error");
        assert_eq!(e.code, ErrorCode::ProviderError, "{e}");
        let detail = e.details.as_ref().and_then(|d| d.get("providerError")).cloned().unwrap_or_default();
        (e.message, detail)
    }

    #[test]
    fn error_bodies_are_provider_errors_naming_the_providers_type() {
        let cases = [
            // Anthropic's error body (HTTP 529), as its SDK's APIError carries it.
            (CallFormat::Anthropic, json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011"}), "Anthropic error overloaded_error: Overloaded"),
            (CallFormat::OpenAi, json!({"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}), "OpenAI error requests (rate_limit_exceeded): Rate limit reached"),
            // A Responses response that failed.
            (CallFormat::OpenAiResponses, json!({"id":"resp_1","object":"response","status":"failed","error":{"code":"server_error","message":"An error occurred while processing your request."},"output":[]}), "OpenAI Responses error server_error: An error occurred while processing your request."),
            (CallFormat::Gemini, json!({"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}), "Gemini error INVALID_ARGUMENT (400): API key not valid."),
            // streamGenerateContent without `alt=sse` answers with an array.
            (CallFormat::Gemini, json!([{"error":{"code":503,"message":"The service is currently unavailable.","status":"UNAVAILABLE"}}]), "Gemini error UNAVAILABLE (503): The service is currently unavailable."),
            (CallFormat::Ollama, json!({"error":"model \"llama9\" not found, try pulling it first"}), "Ollama error: model \"llama9\" not found, try pulling it first"),
        ];
        for (format, body, message) in cases {
            let (got, detail) = provider_failure(parse_tool_calls(&body, format, None));
            assert_eq!(got, message, "{format:?}");
            assert!(detail.is_object() || detail.is_string(), "{format:?}: {detail}");
        }
        // A typed item with an `error` field of its own is no error body: a Responses `mcp_call`.
        let mcp = json!({"type":"mcp_call","id":"mcp_1","server_label":"s","name":"t","arguments":"{}","output":null,"error":"boom"});
        assert_eq!(parse_tool_calls(&json!({"output":[mcp]}), CallFormat::OpenAiResponses, None).unwrap(), []);
        assert_eq!(parse_tool_calls(&mcp, CallFormat::OpenAiResponses, None).unwrap(), []);
        // Nor is a response whose `error` is null.
        let ok = json!({"object":"response","status":"completed","error":null,"output":[{"type":"function_call","call_id":"c","name":"t","arguments":"{}"}]});
        assert_eq!(parse_tool_calls(&ok, CallFormat::OpenAiResponses, None).unwrap().len(), 1);
        // A Responses response that failed without saying why is the provider's error all the same,
        // as `response.failed` is in a stream, whatever calls its output holds.
        for error in [json!(null), json!(false)] {
            let failed = json!({"id":"resp_1","object":"response","status":"failed","error":error,"output":[{"type":"function_call","call_id":"c","name":"t","arguments":"{}"}]});
            assert_eq!(provider_failure(parse_tool_calls(&failed, CallFormat::OpenAiResponses, None)), ("OpenAI Responses error: the response failed".to_owned(), Value::Null));
        }
        let failed = json!({"object":"response","status":"failed","output":[]});
        assert_eq!(provider_failure(parse_tool_calls(&json!([failed]), CallFormat::OpenAiResponses, None)).0, "OpenAI Responses error: the response failed");
        // Only for Responses: another provider's `status` is no such thing.
        assert_eq!(parse_tool_calls(&json!({"status":"failed","content":[]}), CallFormat::Anthropic, None).unwrap(), []);
    }

    #[test]
    fn a_responses_response_cut_short_cuts_its_unfinished_calls_short() {
        // `status: "incomplete"` (max_output_tokens): the call completed before the cut is given as
        // it is; the one cut off, even with arguments that parse (empty text is `{}`), is
        // INVALID_ARGUMENTS saying why, not a call with arguments the model never finished.
        let call = |id: &str, args: &str, status: &str| json!({"type":"function_call","id":format!("fc_{id}"),"call_id":id,"name":"t","arguments":args,"status":status});
        let response = json!({"id":"resp_1","object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"error":null,
            "output":[call("c1", "{\"a\":1}", "completed"), call("c2", "", "incomplete"), call("c3", "{\"a\":", "in_progress")]});
        let calls = parse_tool_calls(&response, CallFormat::OpenAiResponses, None).unwrap();
        assert_eq!((calls[0].arguments.clone(), calls[0].error.clone()), (json!({"a":1}), None));
        for c in &calls[1..] {
            let e = c.error.as_ref().expect("cut short");
            assert_eq!((e.code, e.message.as_str(), &c.arguments), ("INVALID_ARGUMENTS", "the arguments of \"t\" are incomplete: the response is incomplete (max_output_tokens)", &Value::Null));
        }
        // An item that says it is incomplete, given alone or in a response that does not say why.
        let e = parse_tool_calls(&call("c2", "{}", "incomplete"), CallFormat::OpenAiResponses, None).unwrap()[0].error.clone().unwrap();
        assert_eq!(e.message, "the arguments of \"t\" are incomplete: its item is incomplete");
        // A response not ended (a background one retrieved too early, one cancelled), and an item
        // still in progress alone.
        for (status, why) in [("in_progress", "the response is still in progress"), ("queued", "the response is still queued"), ("cancelled", "the response was cancelled")] {
            let response = json!({"status":status,"output":[call("c1", "{}", "completed"), call("c2", "", "in_progress")]});
            let calls = parse_tool_calls(&response, CallFormat::OpenAiResponses, None).unwrap();
            assert!(calls[0].error.is_none());
            assert_eq!(calls[1].error.clone().unwrap().message, format!("the arguments of \"t\" are incomplete: {why}"));
        }
        let e = parse_tool_calls(&call("c2", "", "in_progress"), CallFormat::OpenAiResponses, None).unwrap()[0].error.clone().unwrap();
        assert_eq!(e.message, "the arguments of \"t\" are incomplete: its item is still in progress");
        let bare = json!({"status":"incomplete","output":[call("c2", "{}", "in_progress")]});
        assert_eq!(parse_tool_calls(&bare, CallFormat::OpenAiResponses, None).unwrap()[0].error.clone().unwrap().message, "the arguments of \"t\" are incomplete: the response is incomplete");
        // Without calls, an incomplete response gives none, as a Chat `finish_reason: "length"`, an
        // Anthropic `stop_reason: "max_tokens"` or a Gemini `finishReason: "MAX_TOKENS"` does.
        let text = json!({"object":"response","status":"incomplete","incomplete_details":{"reason":"content_filter"},"output":[{"type":"message","role":"assistant","content":[]}]});
        assert_eq!(parse_tool_calls(&text, CallFormat::OpenAiResponses, None).unwrap(), []);

        // The stream: `response.incomplete` ends the call still streaming, cut short, with the
        // reason; a call done before it stands; an item done `incomplete` is cut short too.
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        push(&mut acc, &json!({"type":"response.output_item.added","output_index":0,"item":call("c1", "", "in_progress")}), None);
        let done = push(&mut acc, &json!({"type":"response.output_item.done","output_index":0,"item":call("c1", "{}", "completed")}), None);
        assert_eq!((done.len(), done[0].error.clone()), (1, None));
        push(&mut acc, &json!({"type":"response.output_item.added","output_index":1,"item":call("c2", "", "in_progress")}), None);
        push(&mut acc, &json!({"type":"response.function_call_arguments.delta","output_index":1,"item_id":"fc_c2","delta":"{\"a\":"}), None);
        let cut = push(&mut acc, &json!({"type":"response.incomplete","response":{"id":"resp_1","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}), None);
        assert_eq!(cut.len(), 1);
        assert_eq!(cut[0].error.as_ref().unwrap().message, "the arguments of \"t\" are incomplete: the response is incomplete (max_output_tokens)");
        assert!(acc.finish(None).unwrap().is_empty(), "given once");
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        let out = push(&mut acc, &json!({"type":"response.output_item.done","output_index":0,"item":call("c1", "", "incomplete")}), None);
        assert_eq!(out[0].error.as_ref().unwrap().message, "the arguments of \"t\" are incomplete: its item is incomplete");
    }

    #[test]
    fn stream_errors_are_provider_errors_and_the_accumulator_goes_on() {
        // Each provider's error event, as it comes in the stream's text (Bedrock's as its SDK yields them).
        let cases = [
            (CallFormat::Anthropic, "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n", "Anthropic stream error overloaded_error: Overloaded"),
            (CallFormat::OpenAi, "data: {\"error\":{\"message\":\"The server had an error while processing your request. Sorry about that!\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n", "OpenAI stream error server_error: The server had an error while processing your request. Sorry about that!"),
            // Responses: `error` as its SDK types it, as observed (nested), and `response.failed`.
            (CallFormat::OpenAiResponses, "event: error\ndata: {\"type\":\"error\",\"code\":\"ERR_SOMETHING\",\"message\":\"Something went wrong\",\"param\":null,\"sequence_number\":1}\n\n", "OpenAI Responses stream error ERR_SOMETHING: Something went wrong"),
            (CallFormat::OpenAiResponses, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"service_unavailable_error\",\"code\":\"server_is_overloaded\",\"message\":\"Our servers are currently overloaded. Please try again later.\",\"param\":null},\"sequence_number\":2}\n\n", "OpenAI Responses stream error service_unavailable_error (server_is_overloaded): Our servers are currently overloaded. Please try again later."),
            (CallFormat::OpenAiResponses, "event: response.failed\ndata: {\"type\":\"response.failed\",\"sequence_number\":9,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"An error occurred while processing your request.\"},\"output\":[]}}\n\n", "OpenAI Responses stream error server_error: An error occurred while processing your request."),
            (CallFormat::OpenAiResponses, "data: {\"type\":\"response.failed\",\"sequence_number\":9,\"response\":{\"id\":\"resp_1\",\"status\":\"failed\",\"error\":null}}\n\n", "OpenAI Responses stream error: the response failed"),
            (CallFormat::Gemini, "data: {\"error\": {\"code\": 503, \"message\": \"The model is overloaded. Please try again later.\", \"status\": \"UNAVAILABLE\"}}\r\n\r\n", "Gemini stream error UNAVAILABLE (503): The model is overloaded. Please try again later."),
            (CallFormat::Ollama, "{\"error\":\"an error was encountered while running the model: unexpected EOF\"}\n", "Ollama stream error: an error was encountered while running the model: unexpected EOF"),
            (CallFormat::Bedrock, "{\"internalServerException\":{\"message\":\"The system encountered an unexpected error during processing. Try your request again.\"}}", "Bedrock stream error internalServerException: The system encountered an unexpected error during processing. Try your request again."),
            (CallFormat::Bedrock, "{\"modelStreamErrorException\":{\"message\":\"Model stream error\",\"originalStatusCode\":500,\"originalMessage\":\"upstream\"}}", "Bedrock stream error modelStreamErrorException: Model stream error"),
            (CallFormat::Bedrock, "{\"throttlingException\":{\"message\":\"Too many requests, please wait before trying again.\"}}", "Bedrock stream error throttlingException: Too many requests, please wait before trying again."),
            (CallFormat::Bedrock, "{\"validationException\":{\"message\":\"The model returned the following errors: Input is too long for requested model.\"}}", "Bedrock stream error validationException: The model returned the following errors: Input is too long for requested model."),
            // The AWS SDK's exception, through JSON.stringify (its message is not enumerable).
            (CallFormat::Bedrock, "{\"serviceUnavailableException\":{\"name\":\"ServiceUnavailableException\",\"$fault\":\"server\"}}", "Bedrock stream error serviceUnavailableException"),
        ];
        for (format, text, message) in cases {
            // As text, alone and after a call it completes in the same piece; as the event object.
            let mut acc = Accumulator::new(format);
            assert_eq!(provider_failure(acc.push_text(text, None)).0, message, "{format:?}");
            let event: Value = serde_json::from_str(text.lines().find_map(|l| l.strip_prefix("data: ").or(l.starts_with('{').then_some(l))).unwrap()).unwrap();
            let (got, detail) = provider_failure(acc.push(&event, None));
            assert_eq!(got, message, "{format:?}");
            assert!(detail.is_object() || detail.is_string() || detail.is_null(), "{format:?}: {detail}");
            // A Bedrock exception's kind is kept as its `type`, beside what it sent.
            if format == CallFormat::Bedrock {
                let kind = event.as_object().unwrap().keys().next().unwrap().clone();
                assert_eq!(detail["type"], kind.as_str(), "{detail}");
                assert!(event[kind.as_str()].as_object().unwrap().iter().all(|(k, v)| detail[k] == *v), "{detail}");
            }
            assert!(acc.finish(None).unwrap().is_empty());
        }
        // The call completed before the error in the same text comes next; the accumulator goes on.
        let start = "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"t\",\"input\":{}}}\n\n";
        let stop = "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n";
        let error = cases[0].1;
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        provider_failure(acc.push_text(&format!("{start}{stop}{error}"), None));
        assert_eq!(acc.push_text(": ping\n", None).unwrap().iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("toolu_1")]);
        assert_eq!(text_calls(CallFormat::Anthropic, &[start, stop]).len(), 1);
        // An error event pushed as an object keeps the calls carried from text for the next push.
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        assert!(acc.push_text(&format!("{start}{stop}data: [1]\n\n"), None).is_err());
        provider_failure(acc.push(&json!({"type":"error","error":{"type":"api_error","message":"Internal server error"}}), None));
        assert_eq!(acc.finish(None).unwrap().len(), 1);
        // Gemini's JSON stream is an array: an error in it is the provider's.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let (message, _) = provider_failure(acc.push(&json!([{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}]), None));
        assert_eq!(message, "Gemini stream error INTERNAL (500): Internal error encountered.");
        assert_eq!(acc.push(&json!([1]), None).unwrap_err().code, ErrorCode::InvalidInput, "other arrays are still no event");
    }

    #[test]
    fn a_choices_error_is_a_provider_error_in_a_completion_and_a_stream() {
        // OpenRouter (s28c F3): an upstream failure after the output began, HTTP 200, is the
        // choice's `error` with `finish_reason: "error"`: as the choice alone reads, not a turn
        // without calls.
        let error = json!({"code":502,"message":"Upstream error from Anthropic: Overloaded"});
        let choice = json!({"index":0,"finish_reason":"error","native_finish_reason":"error","error":error,"message":{"role":"assistant","content":""}});
        let completion = json!({"id":"gen-1","object":"chat.completion","choices":[choice]});
        for format in [CallFormat::OpenAi, CallFormat::Ollama] {
            for response in [&completion, &choice] {
                let e = parse_tool_calls(response, format, None).unwrap_err();
                assert_eq!((e.code, e.message.ends_with(" error 502: Upstream error from Anthropic: Overloaded")), (ErrorCode::ProviderError, true), "{format:?} {response}: {e}");
            }
        }
        // Another choice's (n > 1) is not the turn read; `error: null` is none.
        let other = json!({"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Hi"}},{"index":1,"finish_reason":"error","error":error,"message":{"role":"assistant","content":""}}]});
        assert!(parse_tool_calls(&other, CallFormat::OpenAi, None).unwrap().is_empty());
        let none = json!({"choices":[{"index":0,"finish_reason":"stop","error":null,"message":{"role":"assistant","content":"Hi"}}]});
        assert!(parse_tool_calls(&none, CallFormat::OpenAi, None).unwrap().is_empty());
        // A stream's chunk: the provider's error, and the accumulator goes on.
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        acc.push(&json!({"choices":[{"index":0,"delta":{"role":"assistant","content":"Let me look that up."},"finish_reason":null}]}), None).unwrap();
        let chunk = json!({"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":""},"finish_reason":"error","native_finish_reason":"error","error":error}]});
        let (message, _) = provider_failure(acc.push(&chunk, None));
        assert_eq!(message, "OpenAI stream error 502: Upstream error from Anthropic: Overloaded");
        assert!(acc.finish(None).unwrap().is_empty());
        // `finish_reason: "error"` alone cuts the call being written, as `length` does.
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        acc.push(&json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"t","arguments":"{}"}}]},"finish_reason":null}]}), None).unwrap();
        let calls = acc.push(&json!({"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}), None).unwrap();
        assert_eq!(calls[0].error.as_ref().map(|e| e.code), Some("INVALID_ARGUMENTS"), "{calls:?}");
        let cut = json!({"choices":[{"index":0,"finish_reason":"error","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"t","arguments":"{}"}}]}}]});
        assert_eq!(parse_tool_calls(&cut, CallFormat::OpenAi, None).unwrap()[0].error.as_ref().map(|e| e.code), Some("INVALID_ARGUMENTS"));
    }

    #[test]
    fn arguments_at_an_index_no_call_has_go_on_the_call_before_them() {
        // agno#8879 (s28c F4): a second call's head came at the first's `index` 0, its arguments
        // at `index` 1. They are the named call's: not `{}` for it and a nameless call with them.
        let chunk = |tc: Value| json!({"choices":[{"index":0,"delta":{"tool_calls":[tc]},"finish_reason":null}]});
        let events = [
            chunk(json!({"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}})),
            chunk(json!({"index":0,"function":{"arguments":"{\"city\":\"Paris\"}"}})),
            chunk(json!({"index":0,"id":"call_b","type":"function","function":{"name":"delete_file","arguments":""}})),
            chunk(json!({"index":1,"function":{"arguments":"{\"path\":"}})),
            chunk(json!({"index":1,"function":{"arguments":"\"/tmp/scratch.txt\"}"}})),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
        ];
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let mut calls = Vec::new();
        for e in &events {
            calls.extend(acc.push(e, None).unwrap());
        }
        calls.extend(acc.finish(None).unwrap());
        let got: Vec<(Option<&str>, &str, &Value, bool)> = calls.iter().map(|c| (c.id.as_deref(), c.provider_name.as_str(), &c.arguments, c.error.is_some())).collect();
        assert_eq!(got, [(Some("call_a"), "get_weather", &json!({"city":"Paris"}), false), (Some("call_b"), "delete_file", &json!({"path":"/tmp/scratch.txt"}), false)]);
        let message = acc.message().unwrap();
        assert_eq!(message["tool_calls"][1], json!({"id":"call_b","type":"function","function":{"name":"delete_file","arguments":"{\"path\":\"/tmp/scratch.txt\"}"}}));
        assert_eq!(message["tool_calls"].as_array().map(Vec::len), Some(2));
        // A call's head at a new index starts it, as ever.
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        acc.push(&events[0], None).unwrap();
        acc.push(&chunk(json!({"index":1,"id":"call_c","type":"function","function":{"name":"t","arguments":"{}"}})), None).unwrap();
        assert_eq!(acc.finish(None).unwrap().len(), 2);
    }

    #[test]
    fn an_escaped_backslash_at_an_index_no_call_has_is_read_on_the_call_before_it() {
        // agno#8879's shape (s28r2 F4): `"C:\\` then the halves of a pair, at `index` 1 with no id
        // or name, are the call before them, whose text ends with an escaped backslash (not one
        // that escapes what comes next), as they are at its own `index` 0.
        let events = |tail: u64| {
            [
                json!({"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}).to_string(),
                json!({"index":0,"id":"call_b","type":"function","function":{"name":"write_file","arguments":""}}).to_string(),
                json!({"index":tail,"function":{"arguments":"{\"p\":\"C:\\"}}).to_string(),
                format!(r#"{{"index":{tail},"function":{{"arguments":"\\\ud83d"}}}}"#),
                format!(r#"{{"index":{tail},"function":{{"arguments":"\ude00\"}}"}}}}"#),
            ]
            .iter()
            .map(|tc| format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{tc}]}},\"finish_reason\":null}}]}}\n\n"))
            .collect::<String>()
        };
        for tail in [0, 1] {
            let mut acc = Accumulator::new(CallFormat::OpenAi);
            let mut calls = acc.push_text(&events(tail), None).unwrap();
            calls.extend(acc.push_text("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n", None).unwrap());
            calls.extend(acc.finish(None).unwrap());
            assert_eq!(calls.len(), 2, "index {tail}");
            assert_eq!(calls[1].arguments, json!({"p":"C:\\\u{1F600}"}), "index {tail}");
        }
    }

    #[test]
    fn json_paths_of_streamed_arguments() {
        let k = |s: &str| Step::Key(s.to_owned());
        assert_eq!(json_path("$.foo.bar[0].data"), Some(vec![k("foo"), k("bar"), Step::Index(0), k("data")]));
        assert_eq!(json_path("$['a.b'][\"c\\\"d\"]['it\\'s'][ 12 ]"), Some(vec![k("a.b"), k("c\"d"), k("it's"), Step::Index(12)]));
        assert_eq!(json_path("$['\\u00e9']"), Some(vec![k("é")]));
        assert_eq!(json_path("$"), Some(vec![]));
        for bad in ["", "foo", "$.", "$..a", "$.*", "$[*]", "$[-1]", "$[1:2]", "$['a'", "$['a']x", "$[?@.a]"] {
            assert_eq!(json_path(bad), None, "{bad}");
        }
        let mut args = json!({});
        set_at(&mut args, &json_path("$.a[2].b").unwrap(), json!("x"));
        set_at(&mut args, &json_path("$.a[2].b").unwrap(), json!("y"));
        set_at(&mut args, &json_path("$.a.c").unwrap(), json!(1));
        assert_eq!(set_at(&mut args, &json_path("$.a[20000]").unwrap(), json!(1)).1.as_deref(), Some("it names index 20000, more than 16 past the end of an array of 3"));
        assert_eq!(set_at(&mut args, &json_path("$.a[30]").unwrap(), json!(1)).1.as_deref(), Some("it names index 30, more than 16 past the end of an array of 3"));
        assert_eq!(set_at(&mut args, &json_path("$.a[2].b.c").unwrap(), json!(1)).1.as_deref(), Some("it names member \"c\" of a value of type string"));
        assert_eq!(set_at(&mut args, &json_path("$.a.b").unwrap(), json!(1)).1.as_deref(), Some("it names member \"b\" of a value of type array"));
        assert_eq!(set_at(&mut args, &json_path("$.a[2][0]").unwrap(), json!(1)).1.as_deref(), Some("it names index 0 of a value of type object"));
        assert_eq!(args, json!({"a":[null,null,{"b":"xy"}]}), "strings append; a conflicting path, or one far past the end, sets nothing");
        assert_eq!(set_at(&mut args, &json_path("$.a[19]").unwrap(), json!(1)), (17 * MADE_VALUE_BYTES + turn::size(&json!(1)), None));
    }

    #[test]
    fn an_array_of_choices_or_candidates_gives_the_first_ones_calls() {
        let tc = |id: &str, name: &str| json!({"id":id,"type":"function","function":{"name":name,"arguments":"{}"}});
        let choices = json!([
            {"index":0,"message":{"role":"assistant","content":null,"tool_calls":[tc("call_0","get_weather")]},"finish_reason":"tool_calls"},
            {"index":1,"message":{"role":"assistant","content":null,"tool_calls":[tc("call_1","delete_file")]},"finish_reason":"tool_calls"}
        ]);
        let names = |calls: Vec<ToolCall>| calls.into_iter().map(|c| c.provider_name).collect::<Vec<_>>();
        for format in [CallFormat::OpenAi, CallFormat::Ollama] {
            assert_eq!(names(parse_tool_calls(&choices, format, None).unwrap()), ["get_weather"], "{format:?}");
            assert_eq!(names(parse_tool_calls(&json!({"choices":choices}), format, None).unwrap()), ["get_weather"]);
            // One choice given alone is that one's.
            assert_eq!(names(parse_tool_calls(&choices[1], format, None).unwrap()), ["delete_file"]);
        }
        let fc = |name: &str| json!({"functionCall":{"name":name,"args":{}}});
        let candidates = json!([
            {"content":{"role":"model","parts":[fc("get_weather")]},"finishReason":"STOP","index":0},
            {"content":{"role":"model","parts":[fc("delete_file")]},"finishReason":"STOP","index":1}
        ]);
        assert_eq!(names(parse_tool_calls(&candidates, CallFormat::Gemini, None).unwrap()), ["get_weather"]);
        let unindexed = json!([{"content":{"parts":[fc("a")]},"finishReason":"STOP"},{"content":{"parts":[fc("b")]},"finishReason":"STOP"}]);
        assert_eq!(names(parse_tool_calls(&unindexed, CallFormat::Gemini, None).unwrap()), ["a"]);
        // Parts, contents and a stream's responses are all read.
        assert_eq!(names(parse_tool_calls(&json!([fc("a"), fc("b")]), CallFormat::Gemini, None).unwrap()), ["a", "b"]);
        let stream = json!([{"candidates":[{"content":{"parts":[fc("a")]}}]},{"candidates":[{"content":{"parts":[fc("b")]},"finishReason":"STOP"}]}]);
        assert_eq!(names(parse_tool_calls(&stream, CallFormat::Gemini, None).unwrap()), ["a", "b"]);
        assert_eq!(names(parse_tool_calls(&json!([tc("c0", "a"), tc("c1", "b")]), CallFormat::OpenAi, None).unwrap()), ["a", "b"]);
    }

    #[test]
    fn stream_events_given_to_parse_tool_calls_are_invalid_input() {
        let call = json!({"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{}","status":"completed"});
        let cases = [
            (CallFormat::OpenAiResponses, json!({"type":"response.completed","sequence_number":9,"response":{"id":"resp_1","status":"completed","output":[call]}}), "`response.completed`"),
            (CallFormat::OpenAiResponses, json!({"type":"response.output_item.done","output_index":0,"item":call}), "`response.output_item.done`"),
            (CallFormat::Anthropic, json!({"type":"message_start","message":{"id":"msg_1","role":"assistant","content":[]}}), "`message_start`"),
            (CallFormat::Anthropic, json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"t","input":{}}}), "`content_block_start`"),
            (CallFormat::OpenAi, json!({"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"t","arguments":"{}"}}]}}]}), "a chat.completion.chunk"),
            (CallFormat::Ollama, json!({"choices":[{"index":0,"delta":{"content":"Hi"}}]}), "a chat.completion.chunk"),
        ];
        for (format, event, kind) in cases {
            for given in [event.clone(), json!([event])] {
                let e = parse_tool_calls(&given, format, None).unwrap_err();
                assert_eq!(e.code, ErrorCode::InvalidInput, "{format:?} {given}");
                assert!(e.message.contains(kind) && e.message.contains("ToolCallAccumulator"), "{}", e.message);
            }
        }
        // Responses and output items still read.
        assert_eq!(parse_tool_calls(&json!({"output":[call]}), CallFormat::OpenAiResponses, None).unwrap().len(), 1);
        assert_eq!(parse_tool_calls(&call, CallFormat::OpenAiResponses, None).unwrap().len(), 1);
        let block = json!({"type":"tool_use","id":"toolu_1","name":"t","input":{}});
        assert_eq!(parse_tool_calls(&block, CallFormat::Anthropic, None).unwrap().len(), 1);
    }

    #[test]
    fn whole_responses_pushed_to_the_accumulator_are_invalid_input() {
        // A response not streamed whose shape no stream event has: refused, rather than read as
        // an event of a kind not known, which gave no calls and an empty turn.
        let cases = [
            (CallFormat::Anthropic, json!({"id":"msg_1","type":"message","role":"assistant","stop_reason":"tool_use",
                "content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"toolu_1","name":"get","input":{"a":1}}]}), "Anthropic Message"),
            (CallFormat::OpenAiResponses, json!({"id":"resp_1","object":"response","status":"completed",
                "output":[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get","arguments":"{}","status":"completed"}]}), "Responses response"),
            (CallFormat::Bedrock, json!({"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"tu1","name":"get","input":{}}}]}},
                "stopReason":"tool_use"}), "Bedrock Converse response"),
        ];
        for (format, response, what) in cases {
            assert_eq!(parse_tool_calls(&response, format, None).unwrap().len(), 1, "{format:?}");
            let mut acc = Accumulator::new(format);
            let empty = acc.message().unwrap();
            let e = acc.push(&response, None).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput, "{format:?}");
            assert!(e.message.contains(what) && e.message.contains("parseToolCalls"), "{}", e.message);
            let e = acc.push_text(&format!("data: {response}\n\n"), None).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput, "{format:?}");
            assert!(acc.finish(None).unwrap().is_empty());
            assert_eq!(acc.message().unwrap(), empty);
        }
    }

    #[test]
    fn parts_of_a_response_pushed_to_the_accumulator_are_invalid_input() {
        // What an SDK hands out beside its stream (Anthropic's `MessageStream` `contentBlock`, a
        // Chat stream's `message`, the item of Responses' `output_item.done`), a Bedrock
        // Converse response's message, a message of the history: each holds its calls whole, as
        // no stream event does. Read as an event of a kind not known, it gave no calls and an
        // empty turn, while `parse_tool_calls` read its call (F1 of s31c).
        let tool_use = json!({"type":"tool_use","id":"toolu_1","name":"get","input":{"a":1}});
        let chat_call = json!({"id":"call_1","type":"function","function":{"name":"get","arguments":"{\"a\":1}"}});
        let bedrock = json!({"role":"assistant","content":[{"toolUse":{"toolUseId":"tu1","name":"get","input":{"a":1}}}]});
        let item = json!({"type":"function_call","id":"fc_1","call_id":"call_1","name":"get","arguments":"{\"a\":1}","status":"completed"});
        let cases = [
            (CallFormat::Anthropic, tool_use.clone(), "Anthropic content block (`type: \"tool_use\"`)"),
            (CallFormat::Anthropic, json!({"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}), "`type: \"server_tool_use\"`"),
            (CallFormat::Anthropic, json!({"role":"assistant","content":[tool_use]}), "Anthropic message (`role`, `content`)"),
            (CallFormat::OpenAi, json!({"role":"assistant","content":null,"tool_calls":[chat_call]}), "Chat message (`role`)"),
            (CallFormat::OpenAi, chat_call.clone(), "one tool call of a message's `tool_calls`"),
            (CallFormat::OpenAi, json!({"id":"call_2","type":"custom","custom":{"name":"get","input":"x"}}), "one tool call"),
            (CallFormat::Ollama, json!({"role":"assistant","content":"","tool_calls":[{"function":{"name":"get","arguments":{"a":1}}}]}), "Ollama chat message"),
            (CallFormat::Ollama, json!({"function":{"name":"get","arguments":{"a":1}}}), "one tool call"),
            (CallFormat::OpenAiResponses, item.clone(), "Responses output item (`type: \"function_call\"`)"),
            (CallFormat::OpenAiResponses, json!({"type":"custom_tool_call","id":"ctc_1","call_id":"call_2","name":"get","input":"x"}), "`type: \"custom_tool_call\"`"),
            (CallFormat::OpenAiResponses, json!({"id":"resp_1","status":"completed","output":[item]}), "Responses response (`output`)"),
            (CallFormat::Bedrock, bedrock.clone(), "Bedrock message (`role`, `content`)"),
            (CallFormat::Bedrock, json!({"message":bedrock}), "Bedrock Converse output (`message`)"),
            (CallFormat::Bedrock, json!({"toolUse":{"toolUseId":"tu1","name":"get","input":{"a":1}}}), "Bedrock content block (`toolUse`)"),
        ];
        for (format, part, what) in cases {
            assert_eq!(parse_tool_calls(&part, format, None).unwrap().len(), usize::from(!what.contains("server_tool_use")), "{format:?} {part}");
            let mut acc = Accumulator::new(format);
            let empty = acc.message().unwrap();
            let e = acc.push(&part, None).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput, "{format:?} {part}");
            assert!(e.message.contains(what) && e.message.contains("not a stream event") && e.message.contains("parseToolCalls"), "{}", e.message);
            let e = acc.push_text(&format!("data: {part}\n\n"), None).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput, "{format:?}");
            assert!(acc.finish(None).unwrap().is_empty());
            assert_eq!(acc.message().unwrap(), empty);
        }
    }

    #[test]
    fn every_stream_event_is_still_read_beside_the_parts_refused() {
        // The events of each provider's stream, as its SDK yields them, and those of the others:
        // none is taken for a part of a response.
        let anthropic = [
            json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"c"}}),
            json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get","input":{}}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":1}"}}),
            json!({"type":"content_block_stop","index":0}),
            json!({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}),
            json!({"type":"ping"}),
            json!({"type":"message_stop"}),
        ];
        let chat = [
            json!({"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get","arguments":""}}]}}]}),
            json!({"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]}}]}),
            json!({"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
            json!({"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"total_tokens":3}}),
        ];
        let ollama = [
            json!({"model":"m","created_at":"t","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get","arguments":{"a":1}}}]},"done":false}),
            json!({"model":"m","created_at":"t","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}),
        ];
        let item = json!({"type":"function_call","id":"fc_1","call_id":"call_1","name":"get","arguments":"","status":"in_progress"});
        let responses = [
            json!({"type":"response.created","response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}),
            json!({"type":"response.output_item.added","output_index":0,"item":item}),
            json!({"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc_1","delta":"{\"a\":1}"}),
            json!({"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get","arguments":"{\"a\":1}","status":"completed"}}),
            json!({"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","output":[]}}),
        ];
        let gemini = [json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get","args":{"a":1}}}]},"finishReason":"STOP","index":0}],"responseId":"r1"})];
        let bedrock = [
            json!({"messageStart":{"role":"assistant"}}),
            json!({"contentBlockStart":{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"tu1","name":"get"}}}}),
            json!({"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"a\":1}"}}}}),
            json!({"contentBlockStop":{"contentBlockIndex":0}}),
            json!({"messageStop":{"stopReason":"tool_use"}}),
            json!({"metadata":{"usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2},"metrics":{"latencyMs":1}}}),
        ];
        let streams: [(CallFormat, &[Value]); 6] = [
            (CallFormat::Anthropic, &anthropic),
            (CallFormat::OpenAi, &chat),
            (CallFormat::Ollama, &ollama),
            (CallFormat::OpenAiResponses, &responses),
            (CallFormat::Gemini, &gemini),
            (CallFormat::Bedrock, &bedrock),
        ];
        for (format, own) in streams {
            // Another provider's event is passed over, or refused for a field of its own format's
            // event that it has in another shape; never as a part of a response.
            let mut acc = Accumulator::new(format);
            for (other, events) in streams {
                for ev in events.iter().filter(|_| other != format) {
                    if let Err(e) = acc.push(ev, None) {
                        assert!(!e.message.contains("part of a response"), "{format:?} refused {other:?}'s {ev}: {}", e.message);
                    }
                }
            }
            let mut acc = Accumulator::new(format);
            let mut calls = Vec::new();
            for ev in own {
                calls.extend(acc.push(ev, None).unwrap_or_else(|e| panic!("{format:?} refused {ev}: {}", e.message)));
            }
            calls.extend(acc.finish(None).unwrap());
            assert_eq!(calls.iter().map(|c| (c.provider_name.as_str(), c.arguments.clone())).collect::<Vec<_>>(), [("get", json!({"a":1}))], "{format:?}");
        }
    }

    #[test]
    fn interactions_api_values_pushed_to_a_gemini_accumulator_are_invalid_input() {
        // Google's Interactions API: a response holds its calls as `function_call` steps, its
        // stream gives them in `step.start` events. Read as events of a kind not known, they gave
        // no calls, no error and an empty turn.
        let call = json!({"type":"function_call","id":"fc_1","name":"get_weather","arguments":{"city":"Paris"}});
        let cases = [
            (json!({"id":"v1_abc","status":"requires_action","model":"gemini-3-flash-preview","steps":[{"type":"thought","signature":"SIG"},call]}), "Interactions API response (`steps`)"),
            (json!({"id":"v1_abc","status":"requires_action","outputs":[call]}), "Interactions API response (`outputs`)"),
            (json!({"event_type":"interaction.created","interaction":{"id":"v1_abc","status":"in_progress"}}), "`event_type: \"interaction.created\"`"),
            (json!({"event_type":"step.start","index":0,"step":call}), "`event_type: \"step.start\"`"),
        ];
        for (value, what) in cases {
            let mut acc = Accumulator::new(CallFormat::Gemini);
            let empty = acc.message().unwrap();
            let e = acc.push(&value, None).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput, "{value}");
            assert!(e.message.contains(what) && e.message.contains("does not read"), "{}", e.message);
            let e = acc.push_text(&format!("event: x\ndata: {value}\n\n"), None).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput, "{value}");
            assert!(acc.finish(None).unwrap().is_empty());
            assert_eq!(acc.message().unwrap(), empty);
            // parseToolCalls refuses them too, saying what they are as the accumulator does (it
            // said only that none of a Gemini response's fields were there).
            let e = parse_tool_calls(&value, CallFormat::Gemini, None).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput, "{value}");
            assert!(e.message.starts_with("response is an Interactions API") && e.message.contains(what) && e.message.contains("does not read"), "{}", e.message);
            let e = parse_tool_calls(&json!([value]), CallFormat::Gemini, None).unwrap_err();
            assert!(e.message.starts_with("response[0] is an Interactions API") && e.message.contains(what), "{}", e.message);
        }
        // An Interaction with neither steps nor outputs yet (`in_progress`, in the background)
        // is one by its `object`.
        let pending = json!({"id":"v1_abc","object":"interaction","status":"in_progress"});
        let e = parse_tool_calls(&pending, CallFormat::Gemini, None).unwrap_err();
        assert!(e.message.contains("Interactions API response (`object: \"interaction\"`)"), "{}", e.message);
        assert!(Accumulator::new(CallFormat::Gemini).push(&pending, None).unwrap_err().message.contains("`object: \"interaction\"`"));
        // Its error is the provider's error for parseToolCalls too.
        let e = parse_tool_calls(&json!({"event_type":"error","error":{"code":"429","message":"busy"}}), CallFormat::Gemini, None).unwrap_err();
        assert_eq!(e.code, ErrorCode::ProviderError, "{}", e.message);
        // Its error event is the provider's error, as Gemini's own `{error}` chunk is.
        let e = Accumulator::new(CallFormat::Gemini).push(&json!({"event_type":"error","error":{"code":"429","message":"busy"}}), None).unwrap_err();
        assert_eq!(e.code, ErrorCode::ProviderError, "{}", e.message);
        // A generateContent chunk is still read, and another provider's event passed over.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let chunk = json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"t","args":{}}}]},"finishReason":"STOP"}],"responseId":"r"});
        assert_eq!(acc.push(&chunk, None).unwrap().len(), 1);
        assert!(Accumulator::new(CallFormat::Gemini).push(&json!({"type":"response.created","response":{}}), None).unwrap().is_empty());
    }

    #[test]
    fn a_call_with_its_arguments_under_another_key_is_invalid_input() {
        // LangChain's AIMessage.tool_calls: `{name, args, id, type: "tool_call"}`; read as a Chat
        // call, its arguments were `{}`, and the tool would be called without them.
        let lc = json!({"name":"delete_files","args":{"path":"/tmp/one-file.txt"},"id":"call_1","type":"tool_call"});
        for format in [CallFormat::OpenAi, CallFormat::Ollama] {
            let e = parse_tool_calls(&json!({"role":"assistant","content":"","tool_calls":[lc]}), format, None).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput, "{format:?}");
            assert_eq!(e.path.as_deref(), Some("/tool_calls/0/args"));
            assert!(e.message.starts_with("response.tool_calls[0] has `args` but no `arguments`"), "{}", e.message);
            // In a call's `function`: its path once (it was `.function.function`).
            let tc = json!({"id":"a","type":"function","function":{"name":"x","args":"{}"}});
            let response = json!({"choices":[{"index":0,"message":{"role":"assistant","tool_calls":[tc]},"finish_reason":"tool_calls"}]});
            let e = parse_tool_calls(&response, format, None).unwrap_err();
            assert_eq!(e.path.as_deref(), Some("/choices/0/message/tool_calls/0/function/args"));
            assert!(e.message.starts_with("response.choices[0].message.tool_calls[0].function has `args` but no `arguments`"), "{}", e.message);
            for tc in [json!({"id":"c","function":{"name":"t","args":{"a":1}}}), json!({"id":"c","function":{"name":"t","parameters":{"a":1}}}), json!({"id":"c","name":"t","input":{"a":1}})] {
                let e = parse_tool_calls(&json!({"tool_calls":[tc]}), format, None).unwrap_err();
                assert_eq!(e.code, ErrorCode::InvalidInput, "{tc}");
            }
            let mut acc = Accumulator::new(format);
            let e = acc.push(&json!({"choices":[{"index":0,"delta":{"tool_calls":[lc]}}]}), None).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput);
            // A call without arguments at all is still one of none, and `arguments` beside them wins.
            let calls = parse_tool_calls(&json!({"tool_calls":[{"id":"c","function":{"name":"t"}},{"id":"d","function":{"name":"t","arguments":"{}","parameters":{}}}]}), format, None).unwrap();
            assert_eq!(calls.len(), 2);
        }
    }

    /// An event with lone halves read as the accumulator reads it after pieces that leave no
    /// escape open ([`split_surrogates_event_with`]).
    fn read_after_closed(text: &str) -> Option<Value> {
        split_surrogates_event_with(text, Some(&|_, _| false))
    }

    #[test]
    fn a_surrogate_pair_split_between_two_pieces_of_arguments_is_joined() {
        // Each half alone in a delta, as its JSON escape: the SDKs (JavaScript strings) join them.
        let anthropic = [
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"t","input":{}}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\":\"\ud83d"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\ude00 \ud83d\"}"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
        ];
        let chat = [
            r#"{"choices":[{"index":0,"delta":{"content":"\ud83d","tool_calls":[{"index":0,"id":"c","function":{"name":"t","arguments":"{\"city\":\"\uD83D"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"\ude00","tool_calls":[{"index":0,"function":{"arguments":"\uDE00 \ud83d\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ];
        let responses = [
            r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"c","name":"t","arguments":""}}"#,
            r#"{"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc_1","delta":"{\"city\":\"\ud83d"}"#,
            r#"{"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc_1","delta":"\ude00 \ud83d\"}"}"#,
            r#"{"type":"response.output_text.delta","output_index":1,"item_id":"m","delta":"\ud83d"}"#,
        ];
        let bedrock = [
            r#"{"contentBlockStart":{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"tu","name":"t"}}}}"#,
            r#"{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"city\":\"\ud83d"}}}}"#,
            r#"{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":"\ude00 \ud83d\"}"}}}}"#,
            r#"{"contentBlockStop":{"contentBlockIndex":0}}"#,
        ];
        for (format, events) in [(CallFormat::Anthropic, &anthropic[..]), (CallFormat::OpenAi, &chat[..]), (CallFormat::OpenAiResponses, &responses[..]), (CallFormat::Bedrock, &bedrock[..])] {
            let text: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
            let mut acc = Accumulator::new(format);
            let mut calls = acc.push_text(&text, None).unwrap();
            calls.extend(acc.finish(None).unwrap());
            // The pair joined; the half alone is U+FFFD, as ever.
            assert_eq!(calls[0].arguments, json!({"city":"\u{1F600} \u{FFFD}"}), "{format:?}");
            let turn = acc.message().unwrap().to_string();
            assert!(!turn.contains('\u{10F83D}') && !turn.contains('\u{10FA00}'), "{format:?}: {turn}");
        }
        // Anywhere else a lone half is U+FFFD (text, names, keys), as the stand-ins never stay.
        let v = read_after_closed(r#"{"type":"content_block_delta","delta":{"type":"input_json_delta","partial_json":"\ud83d","text":"a\ud83d","\udc00k":["\ude00"]}}"#).unwrap();
        assert_eq!(v, json!({"type":"content_block_delta","delta":{"type":"input_json_delta","partial_json":"\\ud83d","text":"a\u{FFFD}","\u{FFFD}k":["\u{FFFD}"]}}));
        assert_eq!(split_surrogates_event(r#"{"text":"\ud83d\ude00"}"#), None, "a pair is no lone half");
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        acc.push_text(&format!("data: {}\n\ndata: {}\n\n", chat[0], chat[1]), None).unwrap();
        assert_eq!(acc.message().unwrap()["content"], "\u{FFFD}\u{FFFD}", "text is not JSON: its halves stay apart");
    }

    #[test]
    fn characters_like_the_stand_ins_for_lone_halves_are_kept() {
        // U+10F800..U+10FFFF were the stand-ins for lone halves, and were taken back as
        // surrogates wherever they were, in an event that had a lone half too.
        let events = [
            r#"{"choices":[{"index":0,"delta":{"content":"A\udbff\udffd","tool_calls":[{"index":0,"id":"c","function":{"name":"t","arguments":"{\"x\":\"\udbfe\udc00\udbff\udfff\ud83d"}}]}}]}"#.to_owned(),
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\ude00\"}"}}]}}]}"#.to_owned(),
            // The same characters as they are, not escaped.
            "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\u{10F83D}\\ud83d\",\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\"}}]}}]}".to_owned(),
        ];
        let text: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let mut calls = acc.push_text(&text, None).unwrap();
        calls.extend(acc.finish(None).unwrap());
        assert_eq!(calls[0].arguments, json!({"x":"\u{10F800}\u{10FFFF}\u{1F600}"}));
        assert_eq!(acc.message().unwrap()["content"], "A\u{10FFFD}\u{10F83D}\u{FFFD}");
        let v = split_surrogates_event("{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\u{10F83D}\\ud83d\u{FFFD}\"}}").unwrap();
        assert_eq!(v["delta"]["partial_json"], "\u{10F83D}\\ud83d\u{FFFD}");
    }

    /// Whether the backslashes a streamed piece starts with escape a lone half after them is
    /// told by the pieces before: `C:\` then `\<D83D>` (an escaped backslash split between them)
    /// keeps the half as its escape, and the pair is joined; a half right after a piece that
    /// ends with a backslash escaping it is no escape. Read from SSE text, cut anywhere, or from
    /// events given one by one as the package reads JavaScript objects.
    #[test]
    fn backslashes_before_a_lone_half_count_from_the_pieces_before() {
        let events = |format: CallFormat, pieces: &[&str]| -> Vec<String> {
            let piece = |i: usize, x: &str| match format {
                CallFormat::Anthropic => format!(r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"input_json_delta","partial_json":"{x}"}}}}"#),
                CallFormat::OpenAi if i == 0 => format!(r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,"id":"c","function":{{"name":"t","arguments":"{x}"}}}}]}}}}]}}"#),
                CallFormat::OpenAi => format!(r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,"function":{{"arguments":"{x}"}}}}]}}}}]}}"#),
                CallFormat::OpenAiResponses => format!(r#"{{"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc_1","delta":"{x}"}}"#),
                _ => format!(r#"{{"contentBlockDelta":{{"contentBlockIndex":0,"delta":{{"toolUse":{{"input":"{x}"}}}}}}}}"#),
            };
            let (start, end) = match format {
                CallFormat::Anthropic => (r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"t","input":{}}}"#, r#"{"type":"content_block_stop","index":0}"#),
                CallFormat::OpenAi => ("", r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#),
                CallFormat::OpenAiResponses => (r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"c","name":"t","arguments":""}}"#, ""),
                _ => (r#"{"contentBlockStart":{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"tu","name":"t"}}}}"#, r#"{"contentBlockStop":{"contentBlockIndex":0}}"#),
            };
            let mut all = vec![start.to_owned()];
            all.extend(pieces.iter().enumerate().map(|(i, x)| piece(i, x)));
            all.push(end.to_owned());
            all.retain(|e| !e.is_empty());
            all
        };
        // Pieces of the arguments' JSON text, as they are in an event's JSON text.
        let joined = json!({"path":"C:\\\u{1F600}.txt"});
        for (pieces, want) in [
            (&[r#"{\"path\":\"C:\\"#, r#"\\\ud83d"#, r#"\ude00.txt\"}"#][..], Some(&joined)),
            (&[r#"{\"path\":\"C:\\"#, r#"\\\\\\\ud83d"#, r#"\ude00.txt\"}"#][..], Some(&json!({"path":"C:\\\\\u{1F600}.txt"}))),
            (&[r#"{\"path\":\"C:"#, r#"\\"#, r#"\\"#, r#"\ud83d"#, r#"\ude00.txt\"}"#][..], Some(&json!({"path":"C:\\\u{1F600}.txt"}))),
            // The half escaped by the backslash before it: the arguments are not JSON.
            (&[r#"{\"path\":\"C:\\"#, r#"\ud83d"#, r#"\ude00.txt\"}"#][..], None),
            (&[r#"{\"path\":\"C:\\\\"#, r#"\\\ud83d"#, r#"\ude00.txt\"}"#][..], None),
        ] {
            for format in [CallFormat::Anthropic, CallFormat::OpenAi, CallFormat::OpenAiResponses, CallFormat::Bedrock] {
                let events = events(format, pieces);
                let text: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
                let mut runs: Vec<(Accumulator, Vec<ToolCall>)> = Vec::new();
                for step in [text.len(), 1, 5] {
                    let mut acc = Accumulator::new(format);
                    let mut calls = Vec::new();
                    for piece in text.as_bytes().chunks(step) {
                        calls.extend(acc.push_text(std::str::from_utf8(piece).unwrap(), None).unwrap());
                    }
                    runs.push((acc, calls));
                }
                // As the package gives the events of JavaScript objects, one by one.
                let mut acc = Accumulator::new(format);
                let mut calls = Vec::new();
                for e in &events {
                    calls.extend(acc.push(&split_surrogates_event(e).unwrap_or_else(|| read_event(e).unwrap()), None).unwrap());
                }
                runs.push((acc, calls));
                for (mut acc, mut calls) in runs {
                    calls.extend(acc.finish(None).unwrap());
                    assert_eq!(calls.len(), 1, "{format:?}");
                    let call = &calls[0];
                    match want {
                        Some(want) => assert_eq!((&call.arguments, &call.error), (want, &None), "{format:?} {pieces:?}"),
                        None => assert_eq!(call.error.as_ref().map(|e| e.code), Some("INVALID_ARGUMENTS"), "{format:?} {pieces:?}: {}", call.arguments),
                    }
                    let turn = acc.message().unwrap().to_string();
                    assert!(!turn.contains("deferredEvent") && !turn.contains('\u{10F83D}'), "{format:?}: {turn}");
                }
            }
        }
        // Read alone, such a piece waits for the call's text (a half inside a piece does not).
        let e = r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\\\ud83d"}}"#;
        assert_eq!(split_surrogates_event(e), Some(json!({DEFERRED_EVENT: e})));
        let e = r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a\\\ud83d"}}"#;
        assert_eq!(split_surrogates_event(e), Some(json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a\\\u{FFFD}"}})));
    }

    #[test]
    fn a_lone_half_after_a_backslash_that_escapes_it_is_no_escape() {
        // A lone half escaped by a backslash is no escape of its own: the arguments stay not JSON.
        let v = split_surrogates_event(r#"{"type":"content_block_delta","delta":{"type":"input_json_delta","partial_json":"\"\\\ud83d\\\\\ud83d"}}"#).unwrap();
        assert_eq!(v["delta"]["partial_json"], "\"\\\u{FFFD}\\\\\\ud83d");
    }

    #[test]
    fn only_the_pieces_of_arguments_keep_a_lone_half_not_fields_named_like_them() {
        // `input`, `arguments` and `partial_json` kept their lone half as its escape at any
        // depth: the arguments' own fields of those names too (6 characters of text, `\ud83d`).
        let gemini = r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"input":"a\ud83d","other":"a\ud83d","arguments":"\ud83d","partial_json":"\ud83d"}}}]},"finishReason":"STOP"}]}"#;
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let mut calls = acc.push_text(&format!("data: {gemini}\n\n"), None).unwrap();
        calls.extend(acc.finish(None).unwrap());
        assert_eq!(calls[0].arguments, json!({"input":"a\u{FFFD}","other":"a\u{FFFD}","arguments":"\u{FFFD}","partial_json":"\u{FFFD}"}));
        let anthropic = [
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{"arguments":"x\ud83d","input":{"input":"\ud83d"}}}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
        ];
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        let text: String = anthropic.iter().map(|e| format!("data: {e}\n\n")).collect();
        let mut calls = acc.push_text(&text, None).unwrap();
        calls.extend(acc.finish(None).unwrap());
        assert_eq!(calls[0].arguments, json!({"arguments":"x\u{FFFD}","input":{"input":"\u{FFFD}"}}));
        // A field of those names beside the event's own piece, or in another event's shape.
        let v = split_surrogates_event(r#"{"type":"response.output_text.delta","delta":"\ud83d","arguments":"\ud83d","item":{"arguments":"\ud83d"}}"#).unwrap();
        assert_eq!(v, json!({"type":"response.output_text.delta","delta":"\u{FFFD}","arguments":"\u{FFFD}","item":{"arguments":"\u{FFFD}"}}));
        let v = read_after_closed(r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"\ud83d","input":"\ud83d"},"custom":{"input":"\ud83d"}}]}}],"input":"\ud83d"}"#).unwrap();
        assert_eq!(v, json!({"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"\\ud83d","input":"\u{FFFD}"},"custom":{"input":"\u{FFFD}"}}]}}],"input":"\u{FFFD}"}));
    }

    #[test]
    fn gemini_stream_without_alt_sse_is_one_array_of_events() {
        let chunks = [
            json!({"candidates":[{"content":{"role":"model","parts":[{"text":"Checking"}]},"index":0}]}),
            json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris, \"FR\" [1]"}},"thoughtSignature":"c2ln"}]},"index":0}]}),
            json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_time","args":{"tz":"}]"}}}]},"finishReason":"STOP","index":0}]}),
        ];
        let pretty: Vec<String> = chunks.iter().map(|c| serde_json::to_string_pretty(c).unwrap()).collect();
        // As the REST API sends it, and compact.
        let bodies = [format!("[{}\n]", pretty.join("\n,\r\n")), format!("\u{feff} [{}]", chunks.iter().map(Value::to_string).collect::<Vec<_>>().join(","))];
        let want = json!({"role":"model","parts":[{"text":"Checking"},{"functionCall":{"name":"get_weather","args":{"city":"Paris, \"FR\" [1]"}},"thoughtSignature":"c2ln"},{"functionCall":{"name":"get_time","args":{"tz":"}]"}}}]});
        for (body, second) in bodies.iter().zip([pretty[1].clone(), chunks[1].to_string()]) {
            let first_end = body.find(&second).unwrap() + second.len();
            let cuts: Vec<Vec<&str>> = (0..=body.len())
                .filter(|&i| body.is_char_boundary(i))
                .map(|i| vec![&body[..i], &body[i..]])
                .chain([body.split_inclusive('\n').collect(), body.split_inclusive(',').collect()])
                .collect();
            for pieces in cuts {
                let mut acc = Accumulator::new(CallFormat::Gemini);
                let mut calls = Vec::new();
                let mut at = 0;
                for piece in &pieces {
                    let got = acc.push_text(piece, None).unwrap();
                    at += piece.len();
                    if at >= first_end && at < body.rfind(']').unwrap() {
                        // Each event is taken as soon as its element closes, not at the array's end.
                        assert!(!got.is_empty() || !calls.is_empty(), "{pieces:?}");
                    }
                    calls.extend(got);
                }
                calls.extend(acc.finish(None).unwrap());
                let names: Vec<&str> = calls.iter().map(|c| c.provider_name.as_str()).collect();
                assert_eq!(names, ["get_weather", "get_time"], "{pieces:?}");
                assert_eq!(calls[0].thought_signature.as_deref(), Some("c2ln"));
                assert_eq!(acc.message().unwrap(), want, "{pieces:?}");
            }
        }
        // The array given whole to `push`, as `JSON.parse(body)` gives it.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert_eq!(acc.push(&Value::Array(chunks.to_vec()), None).unwrap().len(), 2);
        assert_eq!(acc.message().unwrap(), want);
        assert_eq!(acc.push(&json!([{"candidates":[]}, 1]), None).unwrap_err().code, ErrorCode::InvalidInput);
        // An element that is no event, or the `{error}` the stream ends with: the elements before
        // it are read, as the array's text is, their calls coming with the next push or `finish`
        // (and in the turn), the error naming the element (F3, s25a).
        let error = json!({"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}});
        for (last, code, message, texts) in [
            (error.clone(), ErrorCode::ProviderError, "Gemini stream error UNAVAILABLE (503): The model is overloaded.", &[false, true][..]),
            (json!(5), ErrorCode::InvalidInput, "element 2 of the stream's array is not an event: a stream event must be an object, got number", &[false, true]),
            (json!([chunks[2]]), ErrorCode::InvalidInput, "element 2 of the stream's array is not an event: a stream event must be an object, got array", &[false]),
        ] {
            let body = json!([chunks[0], chunks[1], last]);
            for &text in texts {
                let mut acc = Accumulator::new(CallFormat::Gemini);
                let e = if text { acc.push_text(&body.to_string(), None) } else { acc.push(&body, None) }.unwrap_err();
                assert_eq!(e.code, code, "{text}");
                // (Text does not count the elements.)
                assert!(if text { message.ends_with(&e.message) } else { e.message == message }, "{text}: {}", e.message);
                let calls = acc.finish(None).unwrap();
                assert_eq!(calls.iter().map(|c| c.provider_name.as_str()).collect::<Vec<_>>(), ["get_weather"], "{text}: {message}");
                assert_eq!(acc.message().unwrap()["parts"].as_array().unwrap().len(), 2, "{text}: {message}");
            }
        }
        // Its error, an element; an element cut short; text after the array.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let e = acc.push_text("[{\"error\":{\"code\":503,\"message\":\"Unavailable.\",\"status\":\"UNAVAILABLE\"}}]", None).unwrap_err();
        assert_eq!(e.code, ErrorCode::ProviderError);
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert_eq!(acc.push_text(&format!("[{},{{\"candi", chunks[1]), None).unwrap().len(), 1);
        assert_eq!(acc.finish(None).unwrap_err().code, ErrorCode::InvalidJson);
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert_eq!(acc.push_text(&format!("[{}]\n{}", chunks[1], chunks[1]), None).unwrap_err().code, ErrorCode::InvalidJson);
        assert_eq!(acc.finish(None).unwrap().len(), 1, "the call before it comes all the same");
        // SSE is read as ever, and so is a pushed `[DONE]`.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert_eq!(acc.push_text(&format!("data: {}\r\n\r\n", chunks[1]), None).unwrap().len(), 1);
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert_eq!(acc.push_text("[DONE]", None).unwrap(), []);
    }

    #[test]
    fn a_surrogate_pair_split_between_two_vertex_string_pieces_is_joined() {
        // Vertex's partialArgs stringValue pieces, each half alone as its escape: joined, as in
        // pieces of arguments streamed as JSON text (they were two U+FFFD).
        let fc = |fc: &str| format!(r#"{{"candidates":[{{"index":0,"content":{{"role":"model","parts":[{{"functionCall":{fc}}}]}}}}]}}"#);
        let events = [
            fc(r#"{"name":"get_weather","willContinue":true}"#),
            fc(r#"{"partialArgs":[{"jsonPath":"$.city","stringValue":"a\ud83d"}],"willContinue":true}"#),
            fc(r#"{"partialArgs":[{"jsonPath":"$.city","stringValue":"\ude00b\ud83d"},{"jsonPath":"$.city","stringValue":"\ude00c"},{"jsonPath":"$.other","stringValue":"\ud83d"}],"willContinue":true}"#),
            // A half after another path's piece, or after U+FFFD sent as it is: not joined.
            fc(r#"{"partialArgs":[{"jsonPath":"$.city","stringValue":"\ude00"}],"willContinue":true}"#),
            fc(r#"{"partialArgs":[{"jsonPath":"$.other","stringValue":"x\ufffd"}],"willContinue":true}"#),
            fc(r#"{"partialArgs":[{"jsonPath":"$.other","stringValue":"\ude00"},{"jsonPath":"$.n","numberValue":1}],"willContinue":true}"#),
            fc(r#"{}"#),
        ];
        let text: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        let want = json!({"city":"a\u{1F600}b\u{1F600}c\u{FFFD}","other":"\u{FFFD}x\u{FFFD}\u{FFFD}","n":1});
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let mut calls = acc.push_text(&text, None).unwrap();
        calls.extend(acc.finish(None).unwrap());
        assert_eq!(calls[0].arguments, want);
        assert_eq!(acc.message().unwrap()["parts"][0]["functionCall"]["args"], want);
        assert!(!acc.message().unwrap().to_string().contains(LONE_HALVES));
        // Cut anywhere, the same.
        for step in [1, 7, 64] {
            let mut acc = Accumulator::new(CallFormat::Gemini);
            let mut calls = Vec::new();
            for piece in text.as_bytes().chunks(step) {
                calls.extend(acc.push_text(std::str::from_utf8(piece).unwrap(), None).unwrap());
            }
            calls.extend(acc.finish(None).unwrap());
            assert_eq!(calls[0].arguments, want, "{step}");
        }
    }

    #[test]
    fn gemini_partial_args_deeper_than_json_nests_are_limit_exceeded() {
        let fc = |fc: Value| json!({"candidates":[{"index":0,"content":{"role":"model","parts":[{"functionCall":fc}]}}]});
        let stop = json!({"candidates":[{"index":0,"content":{"role":"model","parts":[]},"finishReason":"STOP"}]});
        let path = |depth: usize| format!("${}", ".a".repeat(depth));
        assert_eq!(json_path(&path(100_000)).map(|s| s.len()), Some(crate::model::MAX_JSON_NESTING + 1), "read no further");
        for (depth, ok) in [(crate::model::MAX_JSON_NESTING, true), (crate::model::MAX_JSON_NESTING + 1, false), (5000, false), (100_000, false)] {
            let events = [
                fc(json!({"name":"get_weather","willContinue":true})),
                fc(json!({"partialArgs":[{"jsonPath":"$.city","stringValue":"Paris"},{"jsonPath":path(depth),"stringValue":"x"}],"willContinue":true})),
                stop.clone(),
            ];
            let mut acc = Accumulator::new(CallFormat::Gemini);
            let calls: Vec<ToolCall> = events.iter().flat_map(|e| push(&mut acc, e, None)).collect();
            assert_eq!(calls.len(), 1, "{depth}");
            let parsed = parse_tool_calls(&Value::Array(events.to_vec()), CallFormat::Gemini, None).unwrap();
            assert_eq!(parsed.len(), 1);
            for call in [&calls[0], &parsed[0]] {
                if ok {
                    assert!(call.error.is_none(), "{depth}: {:?}", call.error);
                    assert_eq!(crate::model::json_depth(&call.arguments), depth);
                } else {
                    let e = call.error.as_ref().expect("an error");
                    assert_eq!(e.code, "LIMIT_EXCEEDED");
                    assert!(e.message.contains("deeper than 400 levels"), "{}", e.message);
                    assert_eq!(call.arguments, Value::Null);
                }
            }
            // The turn holds what was put in, no deeper than the path allowed.
            let turn = acc.message().unwrap();
            let args = &turn["parts"][0]["functionCall"]["args"];
            assert_eq!(args["city"], "Paris");
            assert_eq!(crate::model::json_depth(args), if ok { depth } else { 1 });
        }
    }

    /// A `partialArgs` piece that names no place in the arguments (a path that is not one value,
    /// an index far past an array's end, a member of a string, the arguments themselves) is not
    /// dropped without a word: the call is `INVALID_ARGUMENTS`, naming the piece, streamed or not.
    #[test]
    fn gemini_partial_args_that_cannot_be_placed_make_the_call_an_error() {
        let fc = |fc: Value| json!({"candidates":[{"index":0,"content":{"role":"model","parts":[{"functionCall":fc}]}}]});
        let stop = json!({"candidates":[{"index":0,"content":{"role":"model","parts":[]},"finishReason":"STOP"}]});
        for (path, why) in [
            ("$.tags[*]", "it names no single value"),
            ("$['it''s']", "it names no single value"),
            ("$.lines[17]", "it names index 17, more than 16 past the end of an array of 0"),
            ("$.path.more", "it names member \"more\" of a value of type string"),
            ("$.path[0]", "it names index 0 of a value of type string"),
            ("$", "it names the arguments themselves, an object"),
        ] {
            let events = [
                fc(json!({"name":"write_file","willContinue":true})),
                fc(json!({"partialArgs":[{"jsonPath":"$.path","stringValue":"/tmp/a"},{"jsonPath":path,"stringValue":"x"},{"jsonPath":"$.n","numberValue":1}],"willContinue":true})),
                stop.clone(),
            ];
            let mut acc = Accumulator::new(CallFormat::Gemini);
            let mut calls: Vec<ToolCall> = events.iter().flat_map(|e| push(&mut acc, e, None)).collect();
            calls.extend(acc.finish(None).unwrap());
            let parsed = parse_tool_calls(&Value::Array(events.to_vec()), CallFormat::Gemini, None).unwrap();
            for call in [&calls[0], &parsed[0]] {
                let e = call.error.as_ref().unwrap_or_else(|| panic!("{path}: no error, {}", call.arguments));
                assert_eq!(e.code, "INVALID_ARGUMENTS", "{path}");
                assert_eq!(e.message, format!("the arguments of \"write_file\" are incomplete: the partialArgs piece at jsonPath \"{path}\" could not be placed: {why}"));
                assert_eq!(call.arguments, Value::Null);
            }
            // The pieces placed are in the turn, after it as before.
            assert_eq!(acc.message().unwrap()["parts"][0]["functionCall"]["args"]["n"], 1, "{path}");
        }
        // A piece without a value whose path names no single value is none to place; the call stands.
        let events = [fc(json!({"name":"write_file","partialArgs":[{"jsonPath":"$.path","stringValue":"/tmp/a"},{"jsonPath":"$.tags[*]"}]})), stop.clone()];
        let calls = parse_tool_calls(&Value::Array(events.to_vec()), CallFormat::Gemini, None).unwrap();
        assert_eq!((calls[0].arguments.clone(), calls[0].error.is_none()), (json!({"path":"/tmp/a"}), true));
        // Without a value nor `willContinue`, an empty container where nothing is yet, as
        // @ai-sdk/google reads it: `[]` for a path ending in `[]`, `{}` for another; a piece
        // where a value is already, for the arguments themselves, or with `willContinue`, is
        // passed over (F4, s25a).
        let pieces = json!([
            {"jsonPath":"$.q","stringValue":"x"},
            {"jsonPath":"$.filter"},
            {"jsonPath":"$.tags[]"},
            {"jsonPath":"$.nested.list[]"},
            {"jsonPath":"$.q"},
            {"jsonPath":"$.later","willContinue":true},
            {"jsonPath":"$"},
            {"jsonPath":"$.n","nullValue":null},
            {"jsonPath":"$.n"}
        ]);
        let want = json!({"q":"x","filter":{},"tags":[],"nested":{"list":[]},"n":null});
        let streamed = [fc(json!({"name":"search","willContinue":true})), fc(json!({"partialArgs":pieces,"willContinue":true})), fc(json!({})), stop];
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let mut calls: Vec<ToolCall> = streamed.iter().flat_map(|e| push(&mut acc, e, None)).collect();
        calls.extend(acc.finish(None).unwrap());
        let parsed = parse_tool_calls(&Value::Array(streamed.to_vec()), CallFormat::Gemini, None).unwrap();
        for call in [&calls[0], &parsed[0]] {
            assert_eq!((&call.arguments, call.error.is_none()), (&want, true));
        }
        assert_eq!(acc.message().unwrap()["parts"][0]["functionCall"]["args"], want);
    }

    #[test]
    fn gemini_partial_args_are_charged_for_what_they_make() {
        // `[16]` makes an array of 17 values from 4 bytes: 20 paths of 300 such steps an event.
        let fc = |fc: Value| json!({"candidates":[{"index":0,"content":{"role":"model","parts":[{"functionCall":fc}]}}]});
        let event = |e: usize| {
            let partial: Vec<Value> =
                (0..20).map(|i| json!({"jsonPath": format!("$.k{e}_{i}{}", "[16]".repeat(300)), "nullValue":"NULL_VALUE"})).collect();
            fc(json!({"partialArgs": partial, "willContinue": true}))
        };
        let mut acc = Accumulator::new(CallFormat::Gemini);
        push(&mut acc, &fc(json!({"name":"get_weather","willContinue":true})), None);
        let mut sent = 0;
        let mut errors = Vec::new();
        for e in 0..200 {
            let ev = event(e);
            sent += ev.to_string().len();
            if let Err(err) = acc.push(&ev, None) {
                errors.push(err);
            }
            if errors.len() == 2 {
                break;
            }
        }
        assert!(sent < 4 << 20, "{sent} bytes of stream: {errors:?}");
        assert_eq!(errors.len(), 2, "the turn is dropped past 32 MiB, then the call past 64 MiB");
        assert!(errors.iter().all(|e| e.code == ErrorCode::LimitExceeded));
        assert!(errors[0].message.contains("the model's turn passed"), "{}", errors[0].message);
        assert!(errors[1].message.contains("tool calls being read passed"), "{}", errors[1].message);
        assert_eq!(acc.message().unwrap_err().code, ErrorCode::LimitExceeded);
        // One event that makes more than the bounds in itself: the call is cut there.
        let partial: Vec<Value> = (0..2000).map(|i| json!({"jsonPath": format!("$.k{i}{}", "[16]".repeat(300)), "nullValue":"NULL_VALUE"})).collect();
        let whole = fc(json!({"name":"get_weather","partialArgs": partial}));
        let calls = parse_tool_calls(&whole, CallFormat::Gemini, None).unwrap();
        let e = calls[0].error.as_ref().expect("an error");
        assert_eq!(e.code, "LIMIT_EXCEEDED");
        assert!(e.message.contains("what the streamed partialArgs make passed"), "{}", e.message);
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let e = acc.push(&whole, None).unwrap_err();
        assert!(e.message.contains("the model's turn passed"), "{}", e.message);
        assert_eq!(acc.finish(None).unwrap()[0].error.as_ref().map(|e| e.code), Some("LIMIT_EXCEEDED"));
    }

    /// Vertex's `streamFunctionCallArguments`, as the Vertex API sends it (vercel/ai#13929,
    /// #14358): the name with `willContinue`, then `partialArgs`, then an empty `functionCall`
    /// (or a last `partialArgs` without `willContinue`).
    pub(super) fn vertex_chunks(end_with_empty: bool) -> Vec<Value> {
        let fc = |fc: Value| json!({"candidates":[{"index":0,"content":{"role":"model","parts":[{"functionCall":fc}]}}]});
        let mut chunks = vec![
            json!({"candidates":[{"content":{"role":"model","parts":[{"text":"Let me check."}]}}]}),
            fc(json!({"name":"get_weather","willContinue":true})),
            fc(json!({"partialArgs":[{"jsonPath":"$.location","stringValue":"Bos","willContinue":true}],"willContinue":true})),
            fc(json!({"partialArgs":[{"jsonPath":"$.location","stringValue":"ton, MA"},{"jsonPath":"$.days","numberValue":3}],"willContinue":true})),
            fc(json!({"partialArgs":[{"jsonPath":"$.opts.units[0]","stringValue":"C"},{"jsonPath":"$.opts.alerts","boolValue":true},{"jsonPath":"$.opts.note","nullValue":"NULL_VALUE"}],"willContinue":true})),
        ];
        if end_with_empty {
            chunks.push(fc(json!({})));
        } else {
            chunks.push(fc(json!({"partialArgs":[{"jsonPath":"$.opts.units[1]","stringValue":"F"}]})));
        }
        chunks.push(json!({"candidates":[{"index":0,"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP"}]}));
        chunks
    }

    #[test]
    fn gemini_streamed_arguments_make_one_call() {
        for end_with_empty in [true, false] {
            let mut acc = Accumulator::new(CallFormat::Gemini);
            let chunks = vertex_chunks(end_with_empty);
            let mut when = Vec::new();
            for (i, c) in chunks.iter().enumerate() {
                for call in push(&mut acc, c, None) {
                    when.push((i, call));
                }
            }
            assert!(acc.finish(None).unwrap().is_empty());
            assert_eq!(when.len(), 1, "{when:?}");
            let (i, call) = &when[0];
            assert_eq!(*i, 5, "completed by the part without willContinue");
            assert_eq!(call.tool, "get_weather");
            assert_eq!(call.error, None);
            let units = if end_with_empty { json!(["C"]) } else { json!(["C", "F"]) };
            assert_eq!(call.arguments, json!({"location":"Boston, MA","days":3,"opts":{"units":units,"alerts":true,"note":null}}));
            // The same parts in one response (a history put together from the chunks).
            let parts: Vec<Value> = chunks.iter().flat_map(|c| c["candidates"][0]["content"]["parts"].as_array().unwrap().clone()).collect();
            let calls = parse_tool_calls(&json!({"role":"model","parts":parts}), CallFormat::Gemini, None).unwrap();
            assert_eq!(calls.len(), 1);
            assert_eq!(calls[0].arguments, call.arguments);
        }
    }

    #[test]
    fn gemini_calls_carry_the_thought_signature_of_their_part() {
        // Gemini 3, two parallel calls: only the first part has a signature (ai.google.dev,
        // thought-signatures); the text part's signature belongs to no call.
        let parts = json!([
            {"text":"Checking both.","thoughtSignature":"c2lnLXRleHQ="},
            {"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"c2lnLTE="},
            {"functionCall":{"name":"get_weather","args":{"city":"London"}}}
        ]);
        let response = json!({"candidates":[{"content":{"role":"model","parts":parts},"finishReason":"STOP","index":0}]});
        let signatures = |calls: &[ToolCall]| calls.iter().map(|c| c.thought_signature.clone()).collect::<Vec<_>>();
        let expected = [Some("c2lnLTE=".to_owned()), None];
        assert_eq!(signatures(&parse_tool_calls(&response, CallFormat::Gemini, None).unwrap()), expected);
        assert_eq!(signatures(&parse_tool_calls(&parts, CallFormat::Gemini, None).unwrap()), expected);
        // A `FunctionCall` on its own (`response.functionCalls`) has no part, so no signature.
        assert_eq!(signatures(&parse_tool_calls(&json!([parts[1]["functionCall"]]), CallFormat::Gemini, None).unwrap()), [None]);
        // Streamed: one part per chunk, as events and as SSE text.
        let chunks: Vec<Value> = parts.as_array().unwrap().iter().map(|p| json!({"candidates":[{"content":{"role":"model","parts":[p]},"index":0}]})).collect();
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let calls: Vec<ToolCall> = chunks.iter().flat_map(|c| push(&mut acc, c, None)).collect();
        assert_eq!(signatures(&calls), expected);
        let sse: String = chunks.iter().map(|c| format!("data: {c}\r\n\r\n")).collect();
        assert_eq!(signatures(&text_calls(CallFormat::Gemini, &[&sse[..50], &sse[50..]])), expected);
        // The JSON form: the key only when there is a signature.
        let calls = parse_tool_calls(&response, CallFormat::Gemini, None).unwrap();
        assert_eq!(calls[0].to_value()["thoughtSignature"], "c2lnLTE=");
        assert!(calls[1].to_value().get("thoughtSignature").is_none());
        // Arguments streamed over several parts (Vertex): the signature of the first part that has one.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let fc = |part: Value| json!({"candidates":[{"content":{"role":"model","parts":[part]}}]});
        push(&mut acc, &fc(json!({"functionCall":{"name":"get_weather","willContinue":true},"thoughtSignature":"c2lnLXY="})), None);
        push(&mut acc, &fc(json!({"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"Rome"}],"willContinue":true},"thoughtSignature":"b3RoZXI="})), None);
        let out = push(&mut acc, &fc(json!({"functionCall":{}})), None);
        assert_eq!((out[0].arguments.clone(), out[0].thought_signature.as_deref()), (json!({"city":"Rome"}), Some("c2lnLXY=")));
        // Other providers' calls have none.
        let calls = parse_tool_calls(&json!({"content":[{"type":"tool_use","id":"t","name":"n","input":{}}]}), CallFormat::Anthropic, None).unwrap();
        assert!(calls[0].to_value().get("thoughtSignature").is_none());
    }

    /// A signature that comes alone (an empty text part) right after the turn's first call, which
    /// had none, is that call's: on the `ToolCall` and on its part in the turn, where Gemini 3
    /// wants it back ("Function call is missing a thought_signature"). The call is given with the
    /// part after it, then (F2, s25a).
    #[test]
    fn a_signature_alone_right_after_the_first_call_is_the_calls() {
        let chunk = |parts: Value, finish: bool| {
            let mut c = json!({"candidates":[{"content":{"role":"model","parts":parts},"index":0}]});
            if finish {
                c["candidates"][0]["finishReason"] = json!("STOP");
            }
            c
        };
        let fc = |id: &str| json!({"functionCall":{"id":id,"name":"exec","args":{"cmd":"ls"}}});
        let lone = json!({"text":"","thoughtSignature":"SIG"});
        let signed = |id: &str| json!({"functionCall":{"id":id,"name":"exec","args":{"cmd":"ls"}},"thoughtSignature":"SIG"});
        let signatures = |calls: &[ToolCall]| calls.iter().map(|c| (c.id.clone().unwrap_or_default(), c.thought_signature.clone())).collect::<Vec<_>>();
        let sig = |id: &str, s: Option<&str>| (id.to_owned(), s.map(str::to_owned));
        // Across chunks, and in one.
        for chunks in [vec![chunk(json!([fc("c1")]), false), chunk(json!([lone]), true)], vec![chunk(json!([fc("c1"), lone]), true)]] {
            let mut acc = Accumulator::new(CallFormat::Gemini);
            let mut given = Vec::new();
            for c in &chunks {
                given.push(push(&mut acc, c, None).len());
            }
            assert_eq!(given.last(), Some(&1), "given with the part after it");
            let calls = push(&mut acc, &json!({"usageMetadata":{"totalTokenCount":1}}), None);
            assert!(calls.is_empty() && acc.finish(None).unwrap().is_empty());
            assert_eq!(acc.message().unwrap()["parts"], json!([signed("c1")]));
            let calls = parse_tool_calls(&chunk(chunks.iter().flat_map(|c| c["candidates"][0]["content"]["parts"].as_array().unwrap().clone()).collect(), true), CallFormat::Gemini, None).unwrap();
            assert_eq!(signatures(&calls), [sig("c1", Some("SIG"))]);
        }
        // The part after it holds something else: the call as it came, given then (or at the
        // candidate's end, or `finish`).
        for (parts, message) in [
            (vec![json!([fc("c1")]), json!([{"text":"Done."}])], json!([fc("c1"), {"text":"Done."}])),
            (vec![json!([fc("c1")]), json!([{"text":"","thoughtSignature":"SIG","thought":true}])], json!([fc("c1"), {"text":"","thoughtSignature":"SIG","thought":true}])),
            (vec![json!([fc("c1")]), json!([fc("c2")]), json!([lone])], json!([fc("c1"), fc("c2"), lone])),
        ] {
            let mut acc = Accumulator::new(CallFormat::Gemini);
            let mut calls = push(&mut acc, &chunk(parts[0].clone(), false), None);
            assert!(calls.is_empty());
            for p in &parts[1..] {
                calls.extend(push(&mut acc, &chunk(p.clone(), false), None));
            }
            calls.extend(acc.finish(None).unwrap());
            assert!(calls.iter().all(|c| c.thought_signature.is_none()), "{calls:?}");
            assert_eq!(acc.message().unwrap()["parts"], message);
        }
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert_eq!(push(&mut acc, &chunk(json!([fc("c1")]), true), None).len(), 1, "the candidate's end");
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert!(push(&mut acc, &chunk(json!([fc("c1")]), false), None).is_empty());
        assert_eq!(signatures(&acc.finish(None).unwrap()), [sig("c1", None)]);
        // A call with its own signature, or a later (parallel) call, is given at once, and a
        // signature alone after it stays on its own part.
        for (parts, want) in [(json!([signed("c1")]), vec![sig("c1", Some("SIG"))]), (json!([signed("c1"), fc("c2")]), vec![sig("c1", Some("SIG")), sig("c2", None)])] {
            let mut acc = Accumulator::new(CallFormat::Gemini);
            let calls = push(&mut acc, &chunk(parts, false), None);
            assert!(push(&mut acc, &chunk(json!([{"text":"","thoughtSignature":"OTHER"}]), true), None).is_empty());
            assert_eq!(signatures(&calls), want);
            assert_eq!(acc.message().unwrap()["parts"].as_array().unwrap().last().unwrap(), &json!({"text":"","thoughtSignature":"OTHER"}));
        }
    }

    #[test]
    fn gemini_streamed_arguments_cut_short_or_followed_by_another_call() {
        let chunks = vertex_chunks(true);
        // Cut before the end: finish() gives the call, with an error (its arguments are not all there).
        let mut acc = Accumulator::new(CallFormat::Gemini);
        for c in &chunks[..4] {
            assert!(push(&mut acc, c, None).is_empty());
        }
        let out = acc.finish(None).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].tool, "get_weather");
        assert_eq!(out[0].error.as_ref().unwrap().code, "INVALID_ARGUMENTS");
        assert!(out[0].error.as_ref().unwrap().message.contains("incomplete"), "{:?}", out[0].error);
        // Ended by the candidate finishing: complete at STOP, incomplete at MAX_TOKENS.
        for (reason, ok) in [("STOP", true), ("MAX_TOKENS", false)] {
            let mut acc = Accumulator::new(CallFormat::Gemini);
            for c in &chunks[..4] {
                push(&mut acc, c, None);
            }
            let out = push(&mut acc, &json!({"candidates":[{"index":0,"finishReason":reason}]}), None);
            assert_eq!(out.len(), 1);
            assert_eq!(out[0].error.is_none(), ok, "{reason}: {:?}", out[0].error);
        }
        // Another call begins: the one streaming ends, and the new one is its own.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        for c in &chunks[..4] {
            push(&mut acc, c, None);
        }
        let out = push(&mut acc, &json!({"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_time","args":{"tz":"UTC"}}}]}}]}), None);
        assert_eq!(out.iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(), ["get_weather", "get_time"]);
        assert_eq!(out[0].arguments, json!({"location":"Boston, MA","days":3}));
        // Whole calls are given at once, as before; an empty functionCall alone is nothing.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let out = push(&mut acc, &json!({"candidates":[{"content":{"parts":[{"functionCall":{"name":"a","args":{}}},{"functionCall":{}},{"functionCall":{"name":"b"}}]}}]}), None);
        assert_eq!(out.iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(out[1].arguments, json!({}));
        // Two candidates stream at once: the first's call is read, as the turn is the first's.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let two = |a: Value, b: Value| json!({"candidates":[{"index":1,"content":{"parts":[{"functionCall":b}]}},{"index":0,"content":{"parts":[{"functionCall":a}]}}]});
        push(&mut acc, &two(json!({"name":"x","willContinue":true}), json!({"name":"y","willContinue":true})), None);
        push(&mut acc, &two(json!({"partialArgs":[{"jsonPath":"$.v","numberValue":0}],"willContinue":true}), json!({"partialArgs":[{"jsonPath":"$.v","numberValue":1}],"willContinue":true})), None);
        let out = push(&mut acc, &two(json!({}), json!({})), None);
        assert_eq!(out.iter().map(|c| (c.tool.as_str(), c.arguments["v"].as_u64())).collect::<Vec<_>>(), [("x", Some(0))]);
        assert!(acc.finish(None).unwrap().is_empty());
        assert_eq!(acc.message().unwrap()["parts"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn gemini_tool_call_failures_are_provider_errors() {
        // A candidate that ended at a malformed function call: Gemini gives no part for it, and
        // a `finishMessage` quoting what the model wrote. Read as a turn without calls, the app
        // would take it for an empty answer; the provider said the turn failed.
        let said = "Malformed function call: print(default_api.search(query=\"weather\"))";
        let want = "Gemini error MALFORMED_FUNCTION_CALL: the model's function call was malformed, and Gemini gave no call for it: retry the turn (finishMessage: Malformed function call: print(default_api.search(query=\"weather\")))";
        let candidate = json!({"content":{"role":"model","parts":[]},"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":said,"index":0});
        let bare = json!({"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":said,"index":0});
        let response = |c: &Value| json!({"candidates":[c],"usageMetadata":{"promptTokenCount":2595,"totalTokenCount":2595},"modelVersion":"gemini-2.5-flash","responseId":"r1"});
        let detail = json!({"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":said});
        for input in [response(&candidate), response(&bare), candidate.clone(), bare.clone(), json!([candidate]), json!([response(&bare)])] {
            assert_eq!(provider_failure(parse_tool_calls(&input, CallFormat::Gemini, None)), (want.to_owned(), detail.clone()), "{input}");
        }
        // Without a finishMessage (as the Python SDK drops it), and each of the family.
        for (reason, message) in [
            ("MALFORMED_FUNCTION_CALL", "Gemini error MALFORMED_FUNCTION_CALL: the model's function call was malformed, and Gemini gave no call for it: retry the turn"),
            ("UNEXPECTED_TOOL_CALL", "Gemini error UNEXPECTED_TOOL_CALL: the model called a tool the request did not enable (no tools given, or function calling mode NONE), and Gemini gave no call for it: retry the turn, with the tools enabled if it is to call them"),
            ("TOO_MANY_TOOL_CALLS", "Gemini error TOO_MANY_TOOL_CALLS: the model called too many tools in a row, and Gemini ended the turn: retry the turn"),
            ("MALFORMED_RESPONSE", "Gemini error MALFORMED_RESPONSE: Gemini's response was malformed, and it gave no call or answer: retry the turn"),
            (
                "MISSING_THOUGHT_SIGNATURE",
                "Gemini error MISSING_THOUGHT_SIGNATURE: the request's history has a functionCall part without the thoughtSignature its response gave it (Gemini 3 needs each one back on its part: each call's thoughtSignature, or the turn ToolCallAccumulator.message() makes), and Gemini gave no answer: put the signatures back and send the request again",
            ),
        ] {
            let input = json!({"candidates":[{"finishReason":reason,"finishMessage":null,"index":0}]});
            assert_eq!(provider_failure(parse_tool_calls(&input, CallFormat::Gemini, None)), (message.to_owned(), json!({"finishReason":reason})), "{reason}");
        }
        // A long finishMessage is cut in the message, and whole in `providerError`.
        let long = format!("Malformed function call: write(content=\"{}\")", "x".repeat(5000));
        let (message, detail) = provider_failure(parse_tool_calls(&json!({"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":long}]}), CallFormat::Gemini, None));
        assert!(message.len() < 700 && message.ends_with("… (5042 characters in all))"), "{message}");
        assert_eq!(detail["finishMessage"], json!(long));
        // Calls beside it are left out, and said so: a turn that failed is retried whole, not
        // run in part. A call still streaming when it ended counts too.
        let with_calls = json!({"candidates":[{"content":{"role":"model","parts":[{"text":"Let me look."},{"functionCall":{"name":"a","args":{}},"thoughtSignature":"c2ln"},{"functionCall":{"name":"b","willContinue":true}}]},"finishReason":"MALFORMED_FUNCTION_CALL"}]});
        let (message, _) = provider_failure(parse_tool_calls(&with_calls, CallFormat::Gemini, None));
        assert_eq!(message, "Gemini error MALFORMED_FUNCTION_CALL: the model's function call was malformed, and Gemini gave no call for it: retry the turn; the turn's 2 other calls are left out too: a turn that failed is retried whole");
        // Another candidate's failure is not the turn read's, in a response or in an array of
        // candidates; other finish reasons give no calls.
        let other = json!({"candidates":[{"index":0,"content":{"parts":[{"functionCall":{"name":"a","args":{}}}]},"finishReason":"STOP"},{"index":1,"finishReason":"MALFORMED_FUNCTION_CALL"}]});
        assert_eq!(parse_tool_calls(&other, CallFormat::Gemini, None).unwrap().len(), 1);
        assert_eq!(parse_tool_calls(&other["candidates"], CallFormat::Gemini, None).unwrap().len(), 1);
        // The calls left out are the candidate read's only.
        let second = json!([{"index":0,"content":{"parts":[{"functionCall":{"name":"a","args":{}}}]},"finishReason":"MALFORMED_FUNCTION_CALL"},{"index":1,"content":{"parts":[{"functionCall":{"name":"b","args":{}}},{"functionCall":{"name":"c","args":{}}}]},"finishReason":"STOP"}]);
        assert!(provider_failure(parse_tool_calls(&second, CallFormat::Gemini, None)).0.contains("; the turn's 1 other call is left out too"));
        // A Gemini response whose turn failed still looks like Gemini's, read as another's.
        let e = parse_tool_calls(&with_calls, CallFormat::OpenAi, None).unwrap_err();
        assert_eq!((e.code, e.details.as_ref().and_then(|d| d.get("looksLike")).cloned()), (ErrorCode::InvalidInput, Some(json!("Gemini"))), "{}", e.message);
        for reason in ["STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "OTHER", "FINISH_REASON_UNSPECIFIED"] {
            assert!(parse_tool_calls(&json!({"candidates":[{"finishReason":reason,"index":0}]}), CallFormat::Gemini, None).unwrap().is_empty(), "{reason}");
        }

        // Streamed: the chunk that ends the candidate throws, as the provider's error event does;
        // the text before it stays in the turn, and a call it released comes with `finish`.
        let text = json!({"candidates":[{"content":{"role":"model","parts":[{"text":"I'll search for that."}]},"index":0}],"responseId":"r1"});
        let end = json!({"candidates":[{"content":{"role":"model","parts":[]},"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":said,"index":0}],"usageMetadata":{"promptTokenCount":2595},"responseId":"r1"});
        let stream_want = want.replacen("Gemini error", "Gemini stream error", 1);
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert!(push(&mut acc, &text, None).is_empty());
        assert_eq!(provider_failure(acc.push(&end, None)), (stream_want.clone(), detail_of(said)));
        assert!(acc.finish(None).unwrap().is_empty());
        assert_eq!(acc.message().unwrap(), json!({"role":"model","parts":[{"text":"I'll search for that."}]}));
        // As SSE text, and as the JSON array of a stream without `alt=sse`.
        let sse = format!("data: {text}\r\n\r\ndata: {end}\r\n\r\n");
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert_eq!(provider_failure(acc.push_text(&sse, None)).0, stream_want);
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert_eq!(provider_failure(acc.push(&json!([text, end]), None)).0, stream_want);
        // A call before it: the first, held for a signature that may follow, is released by the
        // end, and dropped with the turn, as parseToolCalls leaves it out: not given by
        // `finish` (run, then run again by the retry), nor dropped by the retry's first push.
        let malformed = "Gemini stream error MALFORMED_FUNCTION_CALL: the model's function call was malformed, and Gemini gave no call for it: retry the turn";
        let call = json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"a","args":{"q":1}}}]},"index":0}],"responseId":"r1"});
        let left_out = format!("{malformed}; the turn's 1 other call is left out too: a turn that failed is retried whole (finishMessage: {said})");
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert!(push(&mut acc, &call, None).is_empty());
        assert_eq!(provider_failure(acc.push(&end, None)).0, left_out);
        assert!(acc.finish(None).unwrap().is_empty());
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert!(push(&mut acc, &call, None).is_empty());
        assert!(acc.push(&end, None).is_err());
        let retried = json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"search","args":{}},"thoughtSignature":"c2ln"}]},"finishReason":"STOP","index":0}],"responseId":"r2"});
        assert_eq!(acc.push(&retried, None).unwrap().iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(), ["search"]);
        // In one array or text, the calls earlier events of the turn completed are dropped too;
        // a call given by an earlier push was given before the failure was known.
        let signed = json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"b","args":{}},"thoughtSignature":"c2ln"}]},"index":0}],"responseId":"r1"});
        let two = format!("{malformed}; the turn's 2 other calls are left out too: a turn that failed is retried whole (finishMessage: {said})");
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert_eq!(provider_failure(acc.push(&json!([call, signed, end]), None)).0, two);
        assert!(acc.finish(None).unwrap().is_empty());
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert_eq!(provider_failure(acc.push_text(&format!("data: {call}\n\ndata: {signed}\n\ndata: {end}\n\n"), None)).0, two);
        assert!(acc.finish(None).unwrap().is_empty());
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert!(push(&mut acc, &call, None).is_empty());
        assert_eq!(push(&mut acc, &signed, None).len(), 2);
        assert_eq!(provider_failure(acc.push(&end, None)).0, want.replacen("Gemini error", "Gemini stream error", 1));
        // The retried turn's failure, in a chunk that also begins it while calls of the last
        // are not given yet, is thrown, saying both.
        let retry_fails = json!({"candidates":[{"content":{"role":"model","parts":[{"text":"Let me search."}]},"finishReason":"MALFORMED_FUNCTION_CALL","index":0}],"responseId":"r2"});
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert!(push(&mut acc, &call, None).is_empty());
        // A turn that ended (STOP), its held call kept by a push that failed after it.
        let stop = json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"d","args":{}},"thoughtSignature":"c2ln"}]},"finishReason":"STOP","index":0}],"responseId":"r1"});
        assert!(acc.push_text(&format!("data: {stop}\n\ndata: {{broken\n\n"), None).is_err());
        assert_eq!(
            provider_failure(acc.push(&retry_fails, None)).0,
            format!("{malformed}; also, another response began before finish() ended the stream of the last: its 2 tool calls not given yet were dropped (call finish() when a stream ends)")
        );
        assert!(acc.finish(None).unwrap().is_empty());
        // Another candidate's failure is not the turn's.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert!(acc.push(&json!({"finishReason":"MALFORMED_FUNCTION_CALL","index":1}), None).unwrap().is_empty());
        assert!(acc.push(&json!({"candidates":[{"index":0,"content":{"parts":[{"text":"Hi."}]},"finishReason":"STOP"},{"index":1,"finishReason":"MALFORMED_FUNCTION_CALL"}]}), None).unwrap().is_empty());
        // A call streaming its arguments (Vertex) when it ended is cut short, as at MAX_TOKENS,
        // and dropped with the turn.
        let chunks = vertex_chunks(true);
        let mut acc = Accumulator::new(CallFormat::Gemini);
        for c in &chunks[..4] {
            push(&mut acc, c, None);
        }
        let e = acc.push(&json!({"candidates":[{"index":0,"finishReason":"MALFORMED_FUNCTION_CALL"}]}), None).unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (ErrorCode::ProviderError, format!("{malformed}; the turn's 1 other call is left out too: a turn that failed is retried whole").as_str()));
        assert!(acc.finish(None).unwrap().is_empty());
        // The accumulator goes on: the retried turn's stream (another responseId) is read afresh.
        let retried = json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"search","args":{"query":"weather"}},"thoughtSignature":"c2ln"}]},"finishReason":"STOP","index":0}],"responseId":"r2"});
        let mut acc = Accumulator::new(CallFormat::Gemini);
        push(&mut acc, &text, None);
        assert!(acc.push(&end, None).is_err());
        assert_eq!(push(&mut acc, &retried, None).iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(), ["search"]);
        assert_eq!(acc.message().unwrap()["parts"].as_array().unwrap().len(), 1);
    }

    /// The `providerError` of a candidate that ended at a malformed function call.
    fn detail_of(said: &str) -> Value {
        json!({"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":said})
    }

    /// An Anthropic stream as it comes over the wire (the Messages streaming docs' example, with
    /// a ping, a comment, an id and a retry, and a character outside ASCII).
    const ANTHROPIC_SSE: &str = concat!(
        ": a comment\n",
        "retry: 100\n\n",
        "event: message_start\n",
        "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude\",\"stop_reason\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: ping\n",
        "data: {\"type\": \"ping\"}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Voilà 😀\"}}\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: content_block_start\n",
        "id: 5\n",
        "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{}}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"location\\\": \\\"São Pa\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"ulo\\\", \\\"unit\\\": \\\"c\\\"}\"}}\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
        "event: message_delta\n",
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":89}}\n\n",
        "event: message_stop\n",
        "data: {\"type\":\"message_stop\"}\n\n",
    );

    /// Pushes every piece of text, then finishes; every call, in order.
    fn text_calls(format: CallFormat, pieces: &[&str]) -> Vec<ToolCall> {
        let mut acc = Accumulator::new(format);
        let mut out = Vec::new();
        for p in pieces {
            out.extend(acc.push_text(p, None).unwrap_or_else(|e| panic!("{p:?}: {e}")));
        }
        out.extend(acc.finish(None).unwrap());
        out
    }

    fn weather(calls: &[ToolCall]) {
        assert_eq!(calls.len(), 1, "{calls:?}");
        assert_eq!((calls[0].id.as_deref(), calls[0].tool.as_str()), (Some("toolu_1"), "get_weather"));
        assert_eq!(calls[0].arguments, json!({"location":"São Paulo","unit":"c"}));
    }

    #[test]
    fn sse_frames_whole_together_or_split_anywhere() {
        // Frame by frame, as an SSE reader that keeps frames whole gives them.
        let frames: Vec<String> = ANTHROPIC_SSE.split_inclusive("\n\n").map(str::to_owned).collect();
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        let mut when = Vec::new();
        for (i, f) in frames.iter().enumerate() {
            when.extend(acc.push_text(f, None).unwrap().into_iter().map(|c| (i, c)));
        }
        assert!(acc.finish(None).unwrap().is_empty());
        assert_eq!(when.len(), 1);
        assert_eq!(when[0].0, 11, "given by the frame after its content_block_stop (message_delta, which says whether max_tokens cut it)");
        weather(&[when[0].1.clone()]);
        // All at once; with CRLF and CR line ends; from a body that starts with a BOM.
        weather(&text_calls(CallFormat::Anthropic, &[ANTHROPIC_SSE]));
        weather(&text_calls(CallFormat::Anthropic, &[&ANTHROPIC_SSE.replace('\n', "\r\n")]));
        weather(&text_calls(CallFormat::Anthropic, &[&ANTHROPIC_SSE.replace('\n', "\r")]));
        weather(&text_calls(CallFormat::Anthropic, &[&format!("\u{feff}{ANTHROPIC_SSE}")]));
        // Split in two and in three anywhere (a CRLF split between its CR and LF too), and one
        // character at a time.
        let crlf = ANTHROPIC_SSE.replace('\n', "\r\n");
        for text in [ANTHROPIC_SSE, crlf.as_str()] {
            let cuts: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
            for &i in &cuts {
                weather(&text_calls(CallFormat::Anthropic, &[&text[..i], &text[i..]]));
            }
            for &i in cuts.iter().step_by(19) {
                for &j in cuts.iter().filter(|&&j| j >= i).step_by(23) {
                    weather(&text_calls(CallFormat::Anthropic, &[&text[..i], &text[i..j], &text[j..]]));
                }
            }
            let chars: Vec<String> = text.chars().map(String::from).collect();
            weather(&text_calls(CallFormat::Anthropic, &chars.iter().map(String::as_str).collect::<Vec<_>>()));
        }
    }

    #[test]
    fn sse_of_openai_responses_chat_and_gemini() {
        let responses = concat!(
            "event: response.output_item.added\n",
            "data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"t\",\"arguments\":\"\"},\"sequence_number\":1}\n\n",
            "event: response.function_call_arguments.delta\n",
            "data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"output_index\":0,\"delta\":\"{\\\"a\\\":\",\"sequence_number\":2}\n\n",
            "event: response.function_call_arguments.delta\n",
            "data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"output_index\":0,\"delta\":\"1}\",\"sequence_number\":3}\n\n",
            "event: response.function_call_arguments.done\n",
            "data: {\"type\":\"response.function_call_arguments.done\",\"item_id\":\"fc_1\",\"output_index\":0,\"arguments\":\"{\\\"a\\\":1}\",\"sequence_number\":4}\n\n",
            "event: response.output_item.done\n",
            "data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"t\",\"arguments\":\"{\\\"a\\\":1}\"},\"sequence_number\":5}\n\n",
        );
        let chat = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"t\",\"arguments\":\"\"}}]}}]}\r\n\r\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"a\\\":1}\"}}]}}]}\r\n\r\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\r\n\r\n",
            "data: [DONE]\r\n\r\n",
        );
        let gemini = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"call_1\",\"name\":\"t\",\"args\":{\"a\":1}}}]},\"finishReason\":\"STOP\"}]}\r\n\r\n";
        for (format, text) in [(CallFormat::OpenAiResponses, responses), (CallFormat::OpenAi, chat), (CallFormat::Gemini, gemini)] {
            for step in [text.len(), 64, 5] {
                let pieces: Vec<&str> = text.as_bytes().chunks(step).map(|c| std::str::from_utf8(c).unwrap()).collect();
                let calls = text_calls(format, &pieces);
                assert_eq!(calls.len(), 1, "{format:?} step {step}: {calls:?}");
                assert_eq!((calls[0].id.as_deref(), &calls[0].arguments), (Some("call_1"), &json!({"a":1})), "{format:?}");
            }
        }
    }

    #[test]
    fn sse_data_lines_join_and_what_was_taken_before_still_is() {
        let start = r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}"#;
        let delta = r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"location\":\"São Paulo\",\"unit\":\"c\"}"}}"#;
        let stop = r#"{"type":"content_block_stop","index":0}"#;
        // Data over several lines is joined with newlines (JSON does not mind).
        let multi = format!("event: content_block_start\ndata: {}\ndata: {}\n\n", &start[..40], &start[40..]);
        weather(&text_calls(CallFormat::Anthropic, &[&multi, &format!("data: {delta}\n\ndata: {stop}\n\n")]));
        // What push took before: event objects, bare JSON, one `data:` line, `event:` lines,
        // `[DONE]`, comments, empty strings; a line at a time without line ends (a line reader).
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        let mut out = acc.push(&serde_json::from_str(start).unwrap(), None).unwrap();
        for piece in ["event: content_block_delta", &format!("data: {delta}"), "", "id: 7", "retry: 100", ": ping", "event: content_block_stop", stop, "data: [DONE]", "[DONE]"] {
            out.extend(acc.push_text(piece, None).unwrap_or_else(|e| panic!("{piece:?}: {e}")));
        }
        out.extend(acc.finish(None).unwrap());
        weather(&out);
        // Pretty-printed JSON, several lines for one event.
        let pretty = |s: &str| serde_json::to_string_pretty(&serde_json::from_str::<Value>(s).unwrap()).unwrap();
        weather(&text_calls(CallFormat::Anthropic, &[&pretty(start), &pretty(delta), &pretty(stop)]));
        // Lines of JSON (NDJSON).
        weather(&text_calls(CallFormat::Anthropic, &[&format!("{start}\n{delta}\n"), &format!("{stop}\n")]));
        // A stream that ends without the empty line after its last event.
        weather(&text_calls(CallFormat::Anthropic, &[&format!("data: {start}\n\ndata: {delta}\n\nevent: content_block_stop\ndata: {}\ndata: {}", &stop[..29], &stop[29..])]));
    }

    #[test]
    fn sse_errors_keep_the_calls_completed_before_them() {
        let start = r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"t","input":{}}}"#;
        let stop = r#"data: {"type":"content_block_stop","index":0}"#;
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        acc.push_text(&format!("{start}\n\n"), None).unwrap();
        // The call's block ends, then an event is not JSON: the error is thrown, the call comes
        // with the next event (which says whether the output limit cut it), or `finish`.
        let e = acc.push_text(&format!("{stop}\n\ndata: {{\"type\":\n\n"), None).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson);
        assert!(acc.push_text(": still here\n", None).unwrap().is_empty());
        let next = acc.push_text("data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}\n\n", None).unwrap();
        assert_eq!(next.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("toolu_1")]);
        assert!(acc.finish(None).unwrap().is_empty());
        // An error does not stop the rest of the text: a later call comes too (with finish).
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        let e = acc.push_text(&format!("data: [1]\n\n{start}\n\n{stop}\n\n"), None).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput, "an event must be an object");
        assert_eq!(acc.finish(None).unwrap().len(), 1);
        // Text that is neither SSE nor JSON.
        for bad in ["hello", "42", "data: {\"a\":1}\nnot sse\n", "{\"a\":1}}", "{\"a\":\"b\n"] {
            let mut acc = Accumulator::new(CallFormat::OpenAi);
            let r = acc.push_text(bad, None).and_then(|_| acc.push_text("\n", None));
            assert_eq!(r.map_err(|e| e.code), Err(ErrorCode::InvalidJson), "{bad:?}");
        }
        // AWS's binary event stream (its prelude, then headers named in ASCII) is named as such.
        let mut acc = Accumulator::new(CallFormat::Bedrock);
        let binary = "\u{0}\u{0}\u{0}\u{7f}\u{0}\u{0}\u{0}\u{4b}\u{fffd}\u{fffd}\u{b}:event-type\u{7}\u{0}\u{c}messageStart\u{d}:content-type\u{7}\u{0}\u{10}application/json{\"role\":\"assistant\"}";
        let e = acc.push_text(binary, None).and_then(|_| acc.finish(None)).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson);
        assert!(e.message.contains("AWS's binary event stream") && e.message.contains("response.stream"), "{}", e.message);
        // JSON cut short at a line's end may go on in the next line (pretty-printed): the error
        // comes with the line that shows it is not, or with `finish`.
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        assert!(acc.push_text("{\"a\":\n", None).is_ok());
        assert_eq!(acc.finish(None).map_err(|e| e.code), Err(ErrorCode::InvalidJson));
    }

    #[test]
    fn calls_of_a_last_event_that_fails_come_next_from_text_as_from_objects() {
        // The event that completes `call_a` takes the turn past its bound: the push fails, the
        // call comes with what follows, whether the event came as text or as an object.
        let open = json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"t","arguments":"{}"}}]}}]});
        let mib = json!({"choices":[{"index":0,"delta":{"content":"x".repeat(1 << 20)}}]});
        let last = json!({"choices":[{"index":0,"delta":{"content":"x".repeat(2 << 20)},"finish_reason":"tool_calls"}]});
        for as_text in [false, true] {
            let mut acc = Accumulator::new(CallFormat::OpenAi);
            push(&mut acc, &open, None);
            for _ in 0..31 {
                push(&mut acc, &mib, None);
            }
            let e = if as_text { acc.push_text(&format!("data: {last}\n\n"), None) } else { acc.push(&last, None) }.unwrap_err();
            assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
            let mut calls = acc.push_text(": more\n", None).unwrap();
            calls.extend(acc.finish(None).unwrap());
            assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("call_a")], "as text: {as_text}");
        }
    }

    /// Calls whose arguments stream without end, or a stream opening call after call, are an
    /// error once past the bounds, and dropped; the accumulator reads on.
    #[test]
    fn the_calls_being_read_are_bounded() {
        let delta = |i: u64, args: &str| json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":i,"id":format!("c{i}"),"function":{"name":"t","arguments":args}}]}}]});
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let mib = "x".repeat(1 << 20);
        // The turn, which holds the same arguments, is dropped first (at half the size).
        let errors: Vec<Error> = (0..=MAX_OPEN_BYTES >> 20).filter_map(|_| acc.push(&delta(0, &mib), None).err()).collect();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors.iter().all(|e| e.code == ErrorCode::LimitExceeded));
        assert!(errors[0].message.starts_with("the model's turn passed"), "{}", errors[0]);
        assert!(errors[1].message.starts_with("the 1 tool calls being read passed"), "{}", errors[1]);
        assert!(acc.open.calls.iter().all(|(_, p)| p.args.len() <= 1 << 20), "dropped, then read on");
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let pushed: Vec<_> = (0..=MAX_OPEN_CALLS as u64).map(|i| acc.push(&delta(i, "{"), None).map(|c| c.len())).collect();
        assert!(pushed[..MAX_OPEN_CALLS].iter().all(|r| r == &Ok(0)));
        assert_eq!(pushed[MAX_OPEN_CALLS].as_ref().unwrap_err().code, ErrorCode::LimitExceeded);
        // Gemini's arguments given whole count too.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let part = |args: Value| json!({"candidates":[{"content":{"parts":[{"functionCall":{"name":"t","args":args,"willContinue":true}}]}}]});
        let big = json!({"k": mib});
        let errors: Vec<Error> = (0..=MAX_OPEN_BYTES >> 20).filter_map(|_| acc.push(&part(big.clone()), None).err()).collect();
        assert!(errors.iter().any(|e| e.message.starts_with("the 1 tool calls being read passed")), "{errors:?}");
        // And after each, a call reads as ever.
        let done = json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]});
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let e = acc.push(&delta(0, &"x".repeat(MAX_OPEN_BYTES + 1)), None).unwrap_err();
        assert!(e.message.starts_with("the 1 tool calls being read passed"), "{e}");
        assert!(acc.push(&delta(1, "{}"), None).unwrap_err().message.starts_with("the model's turn passed"), "said once, next");
        assert_eq!(push(&mut acc, &delta(1, ""), None), []);
        let calls = push(&mut acc, &done, None);
        assert_eq!((calls.len(), &calls[0].arguments), (1, &json!({})));
    }

    #[test]
    fn calls_are_bounded_as_they_are_made_and_the_turn_goes_with_those_dropped() {
        let call = |i: usize| json!({"index":i,"id":format!("c{i}"),"function":{"name":"t","arguments":"{}"}});
        // One event opening more calls than the bound, in descending order, and ending them:
        // those past it are never made, the others come after the error.
        let many: Vec<Value> = (0..=MAX_OPEN_CALLS).rev().map(call).collect();
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let e = acc.push(&json!({"choices":[{"index":0,"delta":{"tool_calls":many},"finish_reason":"tool_calls"}]}), None).unwrap_err();
        assert_eq!(e.code, ErrorCode::LimitExceeded);
        assert!(e.message.starts_with(&format!("more than {MAX_OPEN_CALLS} tool calls were being read")), "{e}");
        assert_eq!(acc.finish(None).unwrap().len(), MAX_OPEN_CALLS);
        // The turn listed the call refused: it is dropped, and says so.
        assert_eq!(acc.message().unwrap_err().code, ErrorCode::LimitExceeded);
        // Call after call, an event each: the turn does not list the calls dropped either.
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let errors: Vec<Error> = (0..=MAX_OPEN_CALLS).filter_map(|i| acc.push(&json!({"choices":[{"index":0,"delta":{"tool_calls":[call(i)]}}]}), None).err()).collect();
        assert_eq!(errors.len(), 1);
        assert!(errors[0].message.ends_with("they were dropped, and the model's turn with them"), "{}", errors[0]);
        let e = acc.message().unwrap_err();
        assert_eq!(e.code, ErrorCode::LimitExceeded);
        assert!(e.message.starts_with("the model's turn was dropped with the tool calls"), "{e}");
        // Said by the push that dropped them, not again; calls are still read.
        let done = json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]});
        push(&mut acc, &json!({"choices":[{"index":0,"delta":{"tool_calls":[call(0)]}}]}), None);
        assert_eq!(push(&mut acc, &done, None).len(), 1);
        // The size of the calls: their names and arguments.
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let delta = |i: usize, args: &str| json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":i,"function":{"name":"n","arguments":args}}]}}]});
        for (i, args) in [(0, "{\"a\""), (1, "{"), (0, ":1}"), (2, "")] {
            push(&mut acc, &delta(i, args), None);
        }
        // `n{"a":1}` (its name sent twice is said once), `n{`, `n`.
        assert_eq!(acc.open.bytes(), 11);
        push(&mut acc, &json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}), None);
        assert_eq!((acc.open.calls.len(), acc.open.bytes()), (0, 0));
    }

    #[test]
    fn stream_text_is_bounded_and_a_lone_surrogate_ends_no_line_early() {
        // A line that never ends is dropped with an error once past the bound; the reader goes on.
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        let piece = format!("data: {{\"pad\":\"{}", "x".repeat(1 << 20));
        let mut error = None;
        for _ in 0..20 {
            if let Err(e) = acc.push_text(&piece, None) {
                error = Some(e);
                break;
            }
        }
        assert_eq!(error.map(|e| e.code), Some(ErrorCode::LimitExceeded));
        assert!(acc.text.line.len() + acc.text.data.len() <= MAX_STREAM_EVENT_BYTES);
        // A data line given without its end whose JSON holds a lone surrogate escape is whole
        // (read as U+FFFD), so the next line given the same way is not glued to it.
        let start = r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"t\ud800","input":{}}}"#;
        let stop = r#"data: {"type":"content_block_stop","index":0}"#;
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        assert!(acc.push_text(start, None).unwrap().is_empty());
        assert!(acc.push_text(stop, None).unwrap().is_empty());
        let calls = acc.push_text(r#"data: {"type":"message_stop"}"#, None).unwrap();
        assert_eq!(calls.iter().map(|c| c.provider_name.as_str()).collect::<Vec<_>>(), ["t\u{fffd}"]);
    }

    #[test]
    fn a_gemini_array_dropped_past_the_bound_passes_over_its_later_text() {
        // Its later pieces were each an INVALID_JSON "after the end of the JSON array", which
        // had not ended: they are passed over, as the error said ("and the rest of the array").
        let mut acc = Accumulator::new(CallFormat::Gemini);
        assert!(acc.push_text("[", None).unwrap().is_empty());
        let big = json!({"candidates":[{"content":{"parts":[{"text":"x".repeat(MAX_STREAM_EVENT_BYTES + (4 << 20))}]}}]}).to_string();
        let mut errors = Vec::new();
        for piece in big.as_bytes().chunks(4 << 20) {
            if let Err(e) = acc.push_text(std::str::from_utf8(piece).unwrap(), None) {
                errors.push(e);
            }
        }
        let after = json!({"candidates":[{"content":{"parts":[{"functionCall":{"name":"after","args":{}}}]},"finishReason":"STOP"}]});
        for piece in [",\n".to_owned(), after.to_string(), "]".to_owned(), "\n".to_owned()] {
            if let Err(e) = acc.push_text(&piece, None) {
                errors.push(e);
            }
        }
        assert_eq!(errors.iter().map(|e| e.code).collect::<Vec<_>>(), [ErrorCode::LimitExceeded], "{errors:?}");
        assert!(errors[0].message.contains("dropped, and the rest of the array"), "{}", errors[0].message);
        assert!(acc.text.array.as_ref().unwrap().item.is_empty());
        assert!(acc.finish(None).unwrap().is_empty());
    }

    #[test]
    fn ollama_streams_whole_calls_in_json_lines() {
        // /api/chat with "stream": true (ollama.com/blog/streaming-tool): one JSON object per line.
        let body = concat!(
            "{\"model\":\"qwen3\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"Hmm\"},\"done\":false}\n",
            "{\"model\":\"qwen3\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":\"get_weather\",\"arguments\":{\"location\":\"Toronto\"}}}]},\"done\":false}\n",
            "{\"model\":\"qwen3\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":\"get_time\",\"arguments\":{}}}]},\"done\":false}\n",
            "{\"model\":\"qwen3\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\"}\n",
        );
        for step in [body.len(), 50, 7] {
            let pieces: Vec<&str> = body.as_bytes().chunks(step).map(|c| std::str::from_utf8(c).unwrap()).collect();
            let calls = text_calls(CallFormat::Ollama, &pieces);
            let got: Vec<(Option<&str>, &str, &Value)> = calls.iter().map(|c| (c.id.as_deref(), c.tool.as_str(), &c.arguments)).collect();
            assert_eq!(got, [(Some("call_0"), "get_weather", &json!({"location":"Toronto"})), (Some("call_1"), "get_time", &json!({}))], "step {step}");
        }
        // Ollama's OpenAI-compatible endpoint streams Chat chunks, read as before.
        let mut acc = Accumulator::new(CallFormat::Ollama);
        push(&mut acc, &json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_x","function":{"name":"t","arguments":"{}"}}]}}]}), None);
        assert_eq!(push(&mut acc, &json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}), None)[0].id.as_deref(), Some("call_x"));
    }

    /// Splits `s` into pieces at every `step` bytes, on char boundaries.
    fn pieces(s: &str, step: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        for c in s.chars() {
            cur.push(c);
            if cur.len() >= step {
                out.push(std::mem::take(&mut cur));
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    }

    const ARGS: &str = r#"{"title":"naïve \"quoted\" 😀","labels":["a","b"],"n":12}"#;

    /// A name sent whole in every delta is the name, not the name repeated; in pieces, it is put
    /// together; the turn says the same.
    #[test]
    fn a_name_repeated_in_every_delta_is_said_once() {
        let delta = |name: &str, args: &str| json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":name,"arguments":args}}]}}]});
        let done = json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]});
        for (pieces, want) in [(["read_file", "read_file", "read_file"], "read_file"), (["edit_ex", "isting_file", ""], "edit_existing_file")] {
            let mut acc = Accumulator::new(CallFormat::OpenAi);
            for (piece, args) in pieces.iter().zip(["{\"p", "ath\":", "\"a\"}"]) {
                assert_eq!(push(&mut acc, &delta(piece, args), None), []);
            }
            let calls = push(&mut acc, &done, None);
            assert_eq!((calls[0].provider_name.as_str(), &calls[0].arguments), (want, &json!({"path": "a"})));
            assert_eq!(acc.message().unwrap()["tool_calls"][0]["function"]["name"], want);
        }
    }

    /// A piece of a tool call as another provider streams it is `INVALID_INPUT` naming that
    /// provider (it was passed over, the call lost without a word), in every accumulator of another
    /// family; the accumulator reads its own events after it.
    #[test]
    fn another_providers_tool_call_event_is_refused_naming_it() {
        let pieces = [
            (CallFormat::OpenAi, json!({"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"t","arguments":""}}]}}]})),
            (CallFormat::OpenAiResponses, json!({"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc","call_id":"c","name":"t","arguments":""}})),
            (CallFormat::OpenAiResponses, json!({"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc","delta":"{"})),
            (CallFormat::Anthropic, json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"t","input":{}}})),
            (CallFormat::Gemini, json!({"candidates":[{"index":0,"content":{"role":"model","parts":[{"functionCall":{"name":"t","args":{}}}]}}]})),
            (CallFormat::Bedrock, json!({"contentBlockStart":{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"u","name":"t"}}}})),
            // Ollama's own chunk, and responses not streamed holding calls.
            (CallFormat::Ollama, json!({"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"t","arguments":{}}}]},"done":false})),
            (CallFormat::OpenAi, json!({"object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"t","arguments":"{}"}}]}}]})),
            (CallFormat::Anthropic, json!({"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"t","input":{}}],"stop_reason":"tool_use"})),
            (CallFormat::OpenAiResponses, json!({"object":"response","status":"completed","output":[{"type":"function_call","call_id":"c","name":"t","arguments":"{}"}]})),
            (CallFormat::Bedrock, json!({"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"u","name":"t","input":{}}}]}},"stopReason":"tool_use"})),
        ];
        // Ollama's accumulator reads Chat's chunks (its `/v1`'s).
        let own = |from: CallFormat, format: CallFormat| from == format || (format == CallFormat::Ollama && from == CallFormat::OpenAi);
        for format in [CallFormat::OpenAi, CallFormat::Ollama, CallFormat::OpenAiResponses, CallFormat::Anthropic, CallFormat::Gemini, CallFormat::Bedrock] {
            for (from, event) in &pieces {
                let mut acc = Accumulator::new(format);
                if own(*from, format) {
                    continue;
                }
                let e = acc.push(event, None).unwrap_err();
                assert_eq!((e.code, e.details.as_ref().and_then(|d| d.get("looksLike")).cloned()), (ErrorCode::InvalidInput, Some(json!(from.label()))), "{format:?}: {event}");
                assert_eq!(e.message.contains("InvokeModelWithResponseStream"), format == CallFormat::Bedrock && *from == CallFormat::Anthropic, "{}", e.message);
            }
        }
        // Usable after it: its own stream read as before.
        let mut acc = Accumulator::new(CallFormat::Bedrock);
        assert!(acc.push(&pieces[3].1, None).is_err());
        push(&mut acc, &pieces[5].1, None);
        push(&mut acc, &json!({"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{}"}}}}), None);
        push(&mut acc, &json!({"contentBlockStop":{"contentBlockIndex":0}}), None);
        let mut calls = push(&mut acc, &json!({"messageStop":{"stopReason":"tool_use"}}), None);
        calls.extend(acc.finish(None).unwrap());
        assert_eq!(calls.iter().map(|c| c.provider_name.as_str()).collect::<Vec<_>>(), ["t"]);
    }

    /// A Chat call sent without an id (StepFun, kimi on NVIDIA, DeepSeek on SiliconFlow stream
    /// such deltas) gets `call_{n}`, in its `ToolCall` and in the turn, for its result to answer;
    /// one an id the provider gave another call is not taken again.
    #[test]
    fn a_chat_call_without_an_id_gets_one_that_no_other_call_has() {
        let delta = |i: u64, id: Option<&str>, name: &str, args: &str| {
            let mut tc = json!({"index":i,"type":"function","function":{"name":name,"arguments":args}});
            if let Some(id) = id {
                tc["id"] = json!(id);
            }
            json!({"choices":[{"index":0,"delta":{"tool_calls":[tc]}}]})
        };
        let done = json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]});
        let ids = |calls: &[ToolCall]| calls.iter().map(|c| c.id.clone().unwrap_or_default()).collect::<Vec<_>>();
        for (given, want) in [([None, None, None], ["call_0", "call_1", "call_2"]), ([None, Some("call_0"), None], ["call_0_1", "call_0", "call_2"])] {
            let mut acc = Accumulator::new(CallFormat::OpenAi);
            for (i, id) in given.iter().enumerate() {
                push(&mut acc, &delta(i as u64, *id, "now", ""), None);
                push(&mut acc, &delta(i as u64, None, "", "{}"), None);
            }
            let calls = push(&mut acc, &done, None);
            assert_eq!(ids(&calls), want);
            let message = acc.message().unwrap();
            assert_eq!(message["tool_calls"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap_or_default()).collect::<Vec<_>>(), want);
            // Parsed whole, the same.
            let tool_calls: Vec<Value> = given.iter().map(|id| json!({"id":id,"type":"function","function":{"name":"now","arguments":"{}"}})).collect();
            for format in [CallFormat::OpenAi, CallFormat::Ollama] {
                let calls = parse_tool_calls(&json!({"choices":[{"index":0,"message":{"role":"assistant","tool_calls":tool_calls}}]}), format, None).unwrap();
                assert_eq!(ids(&calls), want, "{format:?}");
                assert_eq!(ids(&parse_tool_calls(&json!(tool_calls), format, None).unwrap()), want, "{format:?}: the calls alone");
            }
        }
        // A stream cut short: the call is given by `finish`, with an id all the same.
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        push(&mut acc, &delta(0, None, "now", "{}"), None);
        assert_eq!(ids(&acc.finish(None).unwrap()), ["call_0"]);
        assert_eq!(acc.message().unwrap()["tool_calls"][0]["id"], "call_0");
        // Ollama's own stream: the ids of other calls of the event are not taken either.
        let mut acc = Accumulator::new(CallFormat::Ollama);
        let calls = push(&mut acc, &json!({"message":{"role":"assistant","tool_calls":[{"function":{"name":"now","arguments":{}}},{"id":"call_0","function":{"name":"now","arguments":{}}}]}}), None);
        assert_eq!(ids(&calls), ["call_0_1", "call_0"]);
        assert_eq!(acc.message().unwrap()["tool_calls"][0]["id"], "call_0_1");
        // Nor those of calls of an earlier chunk: a call that came with the id `call_1`, then
        // the second, without one, gets `call_1_1`, as in a Chat stream (F6, s26a), in its
        // `ToolCall` and in the turn.
        let line = |tool_calls: Value| json!({"model":"m","created_at":"t","message":{"role":"assistant","content":"","tool_calls":tool_calls},"done":false});
        let mut acc = Accumulator::new(CallFormat::Ollama);
        let mut calls = push(&mut acc, &line(json!([{"id":"call_1","function":{"index":0,"name":"now","arguments":{}}}])), None);
        calls.extend(push(&mut acc, &line(json!([{"function":{"index":1,"name":"now","arguments":{}}}])), None));
        calls.extend(push(&mut acc, &line(json!([{"function":{"index":2,"name":"now","arguments":{}}}])), None));
        calls.extend(acc.finish(None).unwrap());
        assert_eq!(ids(&calls), ["call_1", "call_1_1", "call_2"]);
        assert_eq!(acc.message().unwrap()["tool_calls"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap_or_default()).collect::<Vec<_>>(), ids(&calls));
    }

    #[test]
    fn openai_stream_fragments_at_every_split() {
        for step in 1..8 {
            let mut acc = Accumulator::new(CallFormat::OpenAi);
            let mut out = Vec::new();
            out.extend(push(&mut acc, &json!({"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"mcp__gh__","arguments":""}}]}}]}), Some(&map())));
            out.extend(push(&mut acc, &json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"create_issue"}}]}}]}), Some(&map())));
            for p in pieces(ARGS, step) {
                out.extend(push(&mut acc, &json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":p}}]}}]}), Some(&map())));
            }
            assert!(out.is_empty());
            out.extend(push(&mut acc, &json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}), Some(&map())));
            assert_eq!(out.len(), 1);
            assert_eq!(out[0].tool, "create_issue");
            assert_eq!(out[0].arguments, serde_json::from_str::<Value>(ARGS).unwrap());
        }
    }

    #[test]
    fn anthropic_stream() {
        for step in [1, 3, 7] {
            let mut acc = Accumulator::new(CallFormat::Anthropic);
            let mut out = push(&mut acc, &json!({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"t","input":{}}}), None);
            for p in pieces(ARGS, step) {
                out.extend(push(&mut acc, &json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":p}}), None));
            }
            // Given with the event after its block's end, which says whether the output limit cut it.
            assert!(push(&mut acc, &json!({"type":"content_block_stop","index":1}), None).is_empty());
            assert!(push(&mut acc, &json!({"type":"ping"}), None).is_empty());
            out.extend(push(&mut acc, &json!({"type":"message_delta","delta":{"stop_reason":"tool_use"}}), None));
            assert_eq!(out.len(), 1);
            assert_eq!(out[0].id.as_deref(), Some("toolu_1"));
            assert_eq!(out[0].arguments["n"], 12);
        }
        // A tool with no arguments sends no deltas.
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        push(&mut acc, &json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_2","name":"t","input":{}}}), None);
        push(&mut acc, &json!({"type":"content_block_stop","index":0}), None);
        let out = push(&mut acc, &json!({"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}), None);
        assert_eq!(out[0].arguments, json!({}));
        // So does one whose block ended the stream.
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        push(&mut acc, &json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_2","name":"t","input":{}}}), None);
        push(&mut acc, &json!({"type":"content_block_stop","index":0}), None);
        assert_eq!(acc.finish(None).unwrap()[0].arguments, json!({}));
    }

    /// A turn the output limit stopped (`max_tokens`): Anthropic closes the `tool_use` block it
    /// was writing with the input so far, which may parse (a file's path without its content),
    /// and says why only in `message_delta` after it. That call is `INVALID_ARGUMENTS`, in the
    /// stream as in the message; a call before it, and one of a turn stopped for another
    /// reason, stands.
    #[test]
    fn a_call_the_output_limit_cut_is_incomplete() {
        let why = "the arguments of \"write\" are incomplete: the model's output reached its limit (max_tokens)";
        let start = |i: u64, id: &str| json!({"type":"content_block_start","index":i,"content_block":{"type":"tool_use","id":id,"name":"write","input":{}}});
        let delta = |i: u64, j: &str| json!({"type":"content_block_delta","index":i,"delta":{"type":"input_json_delta","partial_json":j}});
        let stop = |i: u64| json!({"type":"content_block_stop","index":i});
        for reason in ["max_tokens", "model_context_window_exceeded", "refusal", "end_turn"] {
            let mut acc = Accumulator::new(CallFormat::Anthropic);
            let mut out = Vec::new();
            for e in [start(0, "a"), delta(0, "{\"path\":\"/x\"}"), stop(0), start(1, "b"), delta(1, "{\"path\":\"/y\"}"), stop(1)] {
                out.extend(push(&mut acc, &e, None));
            }
            assert_eq!(out.len(), 1, "the first call comes with the next block");
            out.extend(push(&mut acc, &json!({"type":"message_delta","delta":{"stop_reason":reason}}), None));
            assert!(out[0].error.is_none());
            let cut = reason != "end_turn";
            let message = json!({"content":[{"type":"tool_use","id":"a","name":"write","input":{"path":"/x"}},{"type":"tool_use","id":"b","name":"write","input":{"path":"/y"}}],"stop_reason":reason});
            for calls in [out, parse_tool_calls(&message, CallFormat::Anthropic, None).unwrap()] {
                assert!(calls[0].error.is_none());
                assert_eq!(calls[1].error.is_some(), cut, "{reason}");
                if cut {
                    let why = if reason == "refusal" { why.replace("the model's output reached its limit (max_tokens)", "the provider stopped the model's output (refusal)") } else { why.replace("max_tokens", reason) };
                    assert_eq!(calls[1].error.as_ref().unwrap().message, why);
                    assert_eq!(calls[1].arguments, Value::Null);
                }
            }
        }
        // Text after the call: the limit cut the text, not the call.
        let message = json!({"content":[{"type":"tool_use","id":"a","name":"write","input":{}},{"type":"text","text":"and"}],"stop_reason":"max_tokens"});
        assert!(parse_tool_calls(&message, CallFormat::Anthropic, None).unwrap()[0].error.is_none());
        // Bedrock: messageStop's stopReason, and the response's.
        let mut acc = Accumulator::new(CallFormat::Bedrock);
        push(&mut acc, &json!({"contentBlockStart":{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"a","name":"write"}}}}), None);
        push(&mut acc, &json!({"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"path\":\"/x\"}"}}}}), None);
        assert!(push(&mut acc, &json!({"contentBlockStop":{"contentBlockIndex":0}}), None).is_empty());
        let out = push(&mut acc, &json!({"messageStop":{"stopReason":"max_tokens"}}), None);
        assert_eq!(out[0].error.as_ref().unwrap().message, why);
        let response = json!({"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"write","input":{"path":"/x"}}}]}},"stopReason":"max_tokens"});
        assert_eq!(parse_tool_calls(&response, CallFormat::Bedrock, None).unwrap()[0].error.as_ref().unwrap().message, why);
        // A guardrail or a content filter that stopped the output cuts the call it stopped, too.
        for (format, response) in [
            (CallFormat::Bedrock, json!({"output":{"message":{"content":[{"toolUse":{"toolUseId":"a","name":"write","input":{"path":"/x"}}}]}},"stopReason":"guardrail_intervened"})),
            (CallFormat::Bedrock, json!({"output":{"message":{"content":[{"toolUse":{"toolUseId":"a","name":"write","input":{"path":"/x"}}}]}},"stopReason":"content_filtered"})),
            (CallFormat::OpenAi, json!({"choices":[{"index":0,"finish_reason":"content_filter","message":{"tool_calls":[{"id":"a","type":"function","function":{"name":"write","arguments":"{}"}}]}}]})),
        ] {
            let e = parse_tool_calls(&response, format, None).unwrap().remove(0).error.unwrap();
            assert!(e.message.contains("the provider stopped the model's output ("), "{}", e.message);
        }
        // Chat: `finish_reason: "length"` cuts the last call, streamed or not.
        let why = why.replace("max_tokens", "length");
        let completion = json!({"choices":[{"index":0,"finish_reason":"length","message":{"role":"assistant","tool_calls":[
            {"id":"a","type":"function","function":{"name":"write","arguments":"{\"path\":\"/x\"}"}},
            {"id":"b","type":"function","function":{"name":"write","arguments":""}}]}}]});
        let calls = parse_tool_calls(&completion, CallFormat::OpenAi, None).unwrap();
        assert!(calls[0].error.is_none());
        assert_eq!(calls[1].error.as_ref().unwrap().message, why);
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        push(&mut acc, &json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"write","arguments":"{\"path\":\"/x\"}"}},{"index":1,"id":"b","function":{"name":"write","arguments":"{\"path\":\"/y\"}"}}]}}]}), None);
        let calls = push(&mut acc, &json!({"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}), None);
        assert!(calls[0].error.is_none());
        assert_eq!(calls[1].error.as_ref().unwrap().message, why);
    }

    #[test]
    fn responses_stream() {
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        let mut out = push(&mut acc, &json!({"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"t","arguments":""}}), None);
        for p in pieces(ARGS, 5) {
            out.extend(push(&mut acc, &json!({"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":p}), None));
        }
        out.extend(push(&mut acc, &json!({"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":1,"arguments":ARGS}), None));
        out.extend(push(&mut acc, &json!({"type":"response.output_item.done","output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"t","arguments":ARGS}}), None));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].id.as_deref(), Some("call_1"));
    }

    #[test]
    fn a_responses_call_seen_only_at_output_item_done_is_given_once() {
        let item = json!({"type":"function_call","id":"fc_1","call_id":"call_1","name":"t","arguments":"{\"a\":1}"});
        // A resumed stream: no `output_item.added` before it.
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        let out = push(&mut acc, &json!({"type":"response.output_item.done","output_index":2,"item":item}), None);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].id.as_deref(), &out[0].arguments), (Some("call_1"), &json!({"a":1})));
        assert!(push(&mut acc, &json!({"type":"response.output_item.done","output_index":2,"item":item}), None).is_empty(), "not twice");
        assert!(acc.finish(None).unwrap().is_empty());
        assert_eq!(acc.completed(), 1);
        // Without an item id either.
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        let bare = json!({"type":"function_call","call_id":"call_2","name":"t","arguments":"{}"});
        assert_eq!(push(&mut acc, &json!({"type":"response.output_item.done","output_index":0,"item":bare}), None).len(), 1);
        assert!(push(&mut acc, &json!({"type":"response.output_item.done","output_index":0,"item":bare}), None).is_empty());
        // After `.added` and `.arguments.done`, the `.done` item adds nothing (`responses_stream`
        // has the whole sequence); after `.added` alone, it completes the call.
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        push(&mut acc, &json!({"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"t","arguments":""}}), None);
        let out = push(&mut acc, &json!({"type":"response.output_item.done","output_index":0,"item":item}), None);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].arguments, json!({"a":1}));
        assert!(acc.finish(None).unwrap().is_empty());
    }

    /// A Responses stream of very many calls: each given once, in order, at a cost that does not
    /// grow with the calls before it (an item id goes with its call, the keys of those completed
    /// are a set); past [`MAX_CLOSED_CALLS`] a call is not made.
    #[test]
    fn a_responses_stream_of_very_many_calls_gives_each_once_in_order() {
        const N: usize = 200_000;
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        let (mut ids, mut errors) = (Vec::new(), Vec::new());
        let mut push = |acc: &mut Accumulator, event: &Value| match acc.push(event, None) {
            Ok(calls) => ids.extend(calls.into_iter().map(|c| c.id.unwrap())),
            Err(e) => errors.push(e),
        };
        // The events, changed in place from call to call (made anew, they would take most of the time).
        let item = json!({"type":"function_call","id":"","call_id":"","name":"t","arguments":""});
        let mut added = json!({"type":"response.output_item.added","output_index":0,"item":item});
        let mut delta = json!({"type":"response.function_call_arguments.delta","item_id":"","output_index":0,"delta":""});
        let mut args_done = json!({"type":"response.function_call_arguments.done","item_id":"","output_index":0,"arguments":""});
        let mut done = json!({"type":"response.output_item.done","output_index":0,"item":item});
        for i in 0..N {
            let (item_id, args) = (json!(format!("fc_{i:048x}")), json!(format!("{{\"i\":{i}}}")));
            for (e, at) in [(&mut added, "/output_index"), (&mut delta, "/output_index"), (&mut args_done, "/output_index"), (&mut done, "/output_index")] {
                *e.pointer_mut(at).unwrap() = json!(i);
            }
            for e in [&mut added, &mut done] {
                e["item"]["id"] = item_id.clone();
                e["item"]["call_id"] = json!(format!("call_{i}"));
            }
            (delta["item_id"], args_done["item_id"]) = (item_id.clone(), item_id);
            (delta["delta"], args_done["arguments"], done["item"]["arguments"]) = (args.clone(), args.clone(), args);
            push(&mut acc, &added);
            // Some stream their arguments and are completed by `.arguments.done` (the `.done` item
            // after it adds nothing); the others by the item.
            if i % 8 == 0 {
                push(&mut acc, &delta);
                push(&mut acc, &args_done);
            }
            push(&mut acc, &done);
        }
        // Items given again, long after: nothing.
        for i in (0..N).step_by(4099) {
            done["output_index"] = json!(i);
            done["item"]["id"] = json!(format!("fc_{i:048x}"));
            push(&mut acc, &done);
        }
        assert_eq!(ids.len(), N);
        assert!(ids.iter().enumerate().all(|(i, id)| *id == format!("call_{i}")), "each once, in order");
        // The turn passed its bound of parts long before (said once); the calls were all read.
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].message.starts_with("the model's turn passed"), "{}", errors[0]);
        assert_eq!((acc.responses.items.len(), acc.open.calls.len()), (0, 0), "no item id outlives its call");
        assert_eq!(acc.responses.closed.len(), N);
        // Up to the bound (the keys of other calls completed), then one call more is not made.
        acc.responses.closed.extend((1 << 40..).take(MAX_CLOSED_CALLS - N));
        for event in [json!({"type":"response.output_item.added","output_index":N,"item":item}), json!({"type":"response.output_item.done","output_index":N + 1,"item":item})] {
            let e = acc.push(&event, None).unwrap_err();
            assert_eq!(e.code, ErrorCode::LimitExceeded);
            assert!(e.message.starts_with("the stream completed 262144 tool calls"), "{e}");
        }
        assert!(acc.finish(None).unwrap().is_empty());
        assert_eq!(acc.completed(), N);
    }

    #[test]
    fn gemini_and_bedrock_streams() {
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let out = push(&mut acc, &json!({"candidates":[{"content":{"parts":[{"functionCall":{"name":"t","args":{"a":1},"id":"x"}}]}}]}), None);
        // The turn's first call without a signature comes with the part after it (which may hold
        // its signature), the candidate's end, or `finish`.
        assert!(out.is_empty());
        assert_eq!(acc.finish(None).unwrap().len(), 1);
        let mut acc = Accumulator::new(CallFormat::Bedrock);
        let mut out = push(&mut acc, &json!({"contentBlockStart":{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"tu_1","name":"t"}}}}), None);
        for p in pieces(ARGS, 4) {
            out.extend(push(&mut acc, &json!({"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":p}}}}), None));
        }
        out.extend(push(&mut acc, &json!({"contentBlockStop":{"contentBlockIndex":0}}), None));
        assert!(out.is_empty(), "given with the next event, which says whether the output limit cut it");
        out.extend(push(&mut acc, &json!({"messageStop":{"stopReason":"tool_use"}}), None));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].arguments["labels"], json!(["a", "b"]));
    }

    #[test]
    fn a_responses_call_without_call_id_has_no_id_not_its_item_id() {
        let resp = json!({"output":[{"type":"function_call","id":"fc_1","name":"t","arguments":"{}"}]});
        let calls = parse_tool_calls(&resp, CallFormat::OpenAiResponses, None).unwrap();
        assert_eq!(calls[0].id, None);
        // Its result then cannot be written (the output would answer a call id that does not exist).
        let call = crate::results::CallRef::from_value(&calls[0].to_value()).unwrap();
        let result = crate::model::CallToolResult::from_value(json!({"content":[]})).unwrap();
        let opts = crate::results::ResultOptions::default();
        let err = crate::results::tool_result_message(&call, &result, crate::results::ResultFormat::OpenAiResponses, &opts).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
    }

    #[test]
    fn a_call_without_a_name_is_a_per_call_error_with_or_without_a_map() {
        let resp = json!({"content":[{"type":"tool_use","id":"toolu_1","input":{}},{"type":"tool_use","id":"toolu_2","name":"","input":{}}]});
        for m in [None, Some(map())] {
            let calls = parse_tool_calls(&resp, CallFormat::Anthropic, m.as_ref()).unwrap();
            assert_eq!(calls.len(), 2);
            for c in &calls {
                assert_eq!(c.error.as_ref().map(|e| e.code), Some("UNKNOWN_TOOL_NAME"), "{c:?}");
                assert_eq!(c.arguments, Value::Null);
            }
        }
        // A stream cut before the name came.
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        push(&mut acc, &json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"arguments":"{}"}}]}}]}), None);
        assert_eq!(acc.finish(None).unwrap()[0].error.as_ref().unwrap().code, "UNKNOWN_TOOL_NAME");
    }

    #[test]
    fn a_stream_event_that_is_not_an_object_is_invalid_input() {
        for format in [CallFormat::OpenAi, CallFormat::OpenAiResponses, CallFormat::Anthropic, CallFormat::Gemini, CallFormat::Bedrock] {
            let mut acc = Accumulator::new(format);
            for bad in [json!(42), Value::Null, json!(true), json!([]), json!([{"type":"content_block_stop","index":0}])] {
                if format == CallFormat::Gemini && bad.is_array() {
                    // Gemini's stream without `alt=sse` is an array of events: its elements are.
                    assert!(acc.push(&bad, None).is_ok());
                    continue;
                }
                assert_eq!(acc.push(&bad, None).unwrap_err().code, ErrorCode::InvalidInput, "{format:?} {bad}");
            }
            assert_eq!(acc.push(&json!([[]]), None).unwrap_err().code, ErrorCode::InvalidInput, "{format:?}");
        }
    }

    #[test]
    fn call_json_form_is_exact() {
        let calls = parse_tool_calls(
            &json!({"content":[{"type":"tool_use","id":"toolu_1","name":"mcp__gh__create_issue","input":{"b":1,"a":[null]}},{"type":"tool_use","name":"x","input":{}}]}),
            CallFormat::Anthropic,
            Some(&map()),
        )
        .unwrap();
        let text = serde_json::to_string(&Value::Array(calls.iter().map(ToolCall::to_value).collect())).unwrap();
        assert_eq!(
            text,
            concat!(
                r#"[{"id":"toolu_1","providerName":"mcp__gh__create_issue","server":"gh","tool":"create_issue","arguments":{"b":1,"a":[null]}},"#,
                r#"{"id":null,"providerName":"x","server":null,"tool":"x","arguments":null,"error":{"code":"UNKNOWN_TOOL_NAME","message":"no tool is named \"x\" in this name map (1 names)"}}]"#
            )
        );
        assert_eq!(serde_json::to_string(&calls).unwrap(), text, "Serialize gives the same JSON");
    }

    /// Parallel Chat calls that share an `index` (Ollama's OpenAI-compatible endpoint gives each
    /// `index: 0`) or have none (Gemini's OpenAI-compatible endpoint) are calls of their own, by
    /// their ids, in the turn too; a call's later deltas still find it.
    #[test]
    fn parallel_chat_calls_sharing_an_index_or_without_one_are_each_a_call() {
        let chunk = |tcs: Value| json!({"choices":[{"index":0,"delta":{"tool_calls":tcs}}]});
        let done = json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]});
        let call = |index: Option<u64>, id: Option<&str>, name: &str, args: &str| {
            let mut tc = json!({"type":"function","function":{"name":name,"arguments":args}});
            if let Some(i) = index {
                tc["index"] = json!(i);
            }
            if let Some(id) = id {
                tc["id"] = json!(id);
            }
            tc
        };
        let turn_call = |id: &str, name: &str, args: &str| json!({"id":id,"type":"function","function":{"name":name,"arguments":args}});
        let run = |events: &[Value]| {
            let mut acc = Accumulator::new(CallFormat::OpenAi);
            let mut calls = Vec::new();
            for e in events {
                calls.extend(push(&mut acc, e, None));
            }
            calls.extend(acc.finish(None).unwrap());
            let got: Vec<(String, String, Value)> = calls.iter().map(|c| (c.id.clone().unwrap_or_default(), c.provider_name.clone(), c.arguments.clone())).collect();
            (got, acc.message().unwrap()["tool_calls"].clone())
        };
        let two = |a: &str, b: &str| vec![(a.to_owned(), "read_file".to_owned(), json!({"path":"a"})), (b.to_owned(), "read_file".to_owned(), json!({"path":"b"}))];
        let two_in_turn = json!([turn_call("call_a", "read_file", "{\"path\":\"a\"}"), turn_call("call_b", "read_file", "{\"path\":\"b\"}")]);
        for format in [CallFormat::OpenAi, CallFormat::Ollama] {
            for index in [Some(0), None] {
                // Each call whole in its chunk (Ollama /v1, Gemini), or both in one.
                let a = call(index, Some("call_a"), "read_file", "{\"path\":\"a\"}");
                let b = call(index, Some("call_b"), "read_file", "{\"path\":\"b\"}");
                for events in [vec![chunk(json!([a])), chunk(json!([b])), done.clone()], vec![chunk(json!([a, b])), done.clone()]] {
                    let mut acc = Accumulator::new(format);
                    let mut calls = Vec::new();
                    for e in &events {
                        calls.extend(push(&mut acc, e, None));
                    }
                    calls.extend(acc.finish(None).unwrap());
                    let got: Vec<(String, String, Value)> = calls.iter().map(|c| (c.id.clone().unwrap(), c.provider_name.clone(), c.arguments.clone())).collect();
                    assert_eq!(got, two("call_a", "call_b"), "{format:?} {index:?} {events:?}");
                    assert_eq!(acc.message().unwrap()["tool_calls"], two_in_turn, "{format:?} {index:?}");
                }
            }
        }
        // At one index, the call a new one replaces is complete as soon as the new one starts.
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        assert_eq!(push(&mut acc, &chunk(json!([call(Some(0), Some("call_a"), "read_file", "{\"path\":\"a\"}")])), None), []);
        let first = push(&mut acc, &chunk(json!([call(Some(0), Some("call_b"), "read_file", "")])), None);
        assert_eq!(first.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("call_a")]);
        // Streamed in pieces: without `index`, by id, or with neither on the call the last delta
        // went on; at one index, pieces without an id, or (Poolside) with another id and no name.
        let pieces = |index: Option<u64>, later_id: fn(&str) -> Option<&str>| {
            let mut events = Vec::new();
            // The name in pieces too, but where later deltas have another id (they have no name).
            let split = later_id("call_a") != Some("chatcmpl-tool-other");
            let (first, second) = if split { ("read_", "file") } else { ("read_file", "") };
            for (id, path) in [("call_a", "a"), ("call_b", "b")] {
                events.push(chunk(json!([call(index, Some(id), first, "")])));
                events.push(chunk(json!([call(index, later_id(id), second, "{\"path\":")])));
                events.push(chunk(json!([call(index, later_id(id), "", &format!("\"{path}\"}}"))])));
            }
            events.push(done.clone());
            events
        };
        let same: fn(&str) -> Option<&str> = |id| Some(id);
        let none: fn(&str) -> Option<&str> = |_| None;
        let other: fn(&str) -> Option<&str> = |_| Some("chatcmpl-tool-other");
        for (index, later) in [(None, same), (None, none), (Some(0), none), (Some(0), same), (Some(0), other), (None, other)] {
            let (got, turn) = run(&pieces(index, later));
            assert_eq!(got, two("call_a", "call_b"), "{index:?}");
            assert_eq!(turn, two_in_turn, "{index:?}");
        }
        // Interleaved calls at their own indexes, as OpenAI streams them, read as ever.
        let (got, turn) = run(&[
            chunk(json!([call(Some(0), Some("call_a"), "read_file", "")])),
            chunk(json!([call(Some(1), Some("call_b"), "read_file", "{\"path\":")])),
            chunk(json!([call(Some(0), None, "", "{\"path\":\"a\"}")])),
            chunk(json!([call(Some(1), None, "", "\"b\"}")])),
            done.clone(),
        ]);
        assert_eq!((got, turn), (two("call_a", "call_b"), two_in_turn));
    }

    /// Text a stream ended with that cannot be read is an error from `finish`, not lost without a
    /// word; the calls still open come with the next `finish`.
    #[test]
    fn a_stream_ending_in_text_that_cannot_be_read_is_an_error_from_finish() {
        // Ollama's JSON lines, the line of the call cut by a dropped connection.
        let mut acc = Accumulator::new(CallFormat::Ollama);
        let cut = r#"{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"rm","arguments":{"path":"/tmp/x""#;
        assert_eq!(acc.push_text(cut, None).unwrap(), []);
        let e = acc.finish(None).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson);
        assert!(e.message.starts_with("the stream ended with text that is not a whole event: stream event is not valid JSON (EOF"), "{e}");
        assert_eq!(acc.finish(None).unwrap(), []);
        // Two events on one line, after a call still open: the error, then the call.
        let open = json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c0","type":"function","function":{"name":"a","arguments":"{}"}}]}}]});
        let ev = json!({"choices":[{"index":1,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"a","arguments":"{}"}}]},"finish_reason":"tool_calls"}]});
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        assert_eq!(acc.push_text(&format!("data: {open}\n\n{ev}{ev}"), None).unwrap(), []);
        let e = acc.finish(None).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson);
        assert!(e.message.contains("trailing characters"), "{e}");
        assert_eq!(acc.finish(None).unwrap().iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("c0")]);
        assert!(acc.finish(None).unwrap().is_empty());
        // SSE cut inside an event: the call it was in comes next, cut short.
        let start = r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"t","input":{}}}"#;
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        acc.push_text(&format!("{start}\n\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"input_js"), None).unwrap();
        assert_eq!(acc.finish(None).unwrap_err().code, ErrorCode::InvalidJson);
        assert_eq!(acc.finish(None).unwrap().iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("toolu_1")]);
        // The last text, given to `finish_text`: what it completes, with the error of the rest.
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        acc.push_text(start, None).unwrap();
        let e = acc.finish_text("\n\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nnot sse", None).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson);
        assert_eq!(acc.finish(None).unwrap().len(), 1);
        // A stream that ends whole (a last line without its end) is no error.
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        acc.push_text(&format!("{start}\n\n"), None).unwrap();
        assert_eq!(acc.finish_text("data: {\"type\":\"content_block_stop\",\"index\":0}", None).unwrap().len(), 1);
    }

    /// A JSON text over several lines (a pretty-printed body, events pretty-printed one after
    /// another) pushed in pieces reads as it does pushed whole.
    #[test]
    fn pretty_printed_json_in_pieces_reads_as_whole() {
        let body = serde_json::to_string_pretty(&json!({"choices":[{"index":0,"message":{"role":"assistant","content":null,
            "tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{\"x\":\"}{ [\\\" \"}"}}]},"finish_reason":"tool_calls"}]}))
        .unwrap();
        let want = |calls: &[ToolCall]| {
            assert_eq!(calls.len(), 1, "{calls:?}");
            assert_eq!((calls[0].id.as_deref(), &calls[0].arguments), (Some("c1"), &json!({"x":"}{ [\" "})));
        };
        for text in [body.clone(), body.replace('\n', "\r\n"), format!("{body}\n")] {
            want(&text_calls(CallFormat::OpenAi, &[&text]));
            for step in [1, 2, 7, 40, 64] {
                let pieces = pieces(&text, step);
                want(&text_calls(CallFormat::OpenAi, &pieces.iter().map(String::as_str).collect::<Vec<_>>()));
            }
        }
        // Events pretty-printed one after another, in pieces.
        let pretty = |v: Value| serde_json::to_string_pretty(&v).unwrap();
        let events = [
            json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"location\":\"São Paulo\",\"unit\":\"c\"}"}}),
            json!({"type":"content_block_stop","index":0}),
        ];
        let text: String = events.iter().map(|e| pretty(e.clone()) + "\n").collect();
        for step in [3, 16, 100] {
            weather(&text_calls(CallFormat::Anthropic, &pieces(&text, step).iter().map(String::as_str).collect::<Vec<_>>()));
        }
        // JSON lines stay events of their own, a line each.
        let lines: String = events.iter().map(|e| format!("{e}\n")).collect();
        weather(&text_calls(CallFormat::Anthropic, &pieces(&lines, 5).iter().map(String::as_str).collect::<Vec<_>>()));
        // A text cut short: the error, at the line that shows it (an SSE line, a JSON line whole)
        // or at the end; the line is read as ever.
        let cut = &text[..text.find("input_json_delta").unwrap()];
        for (rest, n) in [(format!("data: {}\n\n", events[2]), 0), (format!("{}\n", events[2]), 0)] {
            let mut acc = Accumulator::new(CallFormat::Anthropic);
            assert!(acc.push_text(cut, None).unwrap().is_empty());
            assert_eq!(acc.push_text(&rest, None).unwrap_err().code, ErrorCode::InvalidJson);
            assert_eq!(acc.finish(None).unwrap().len(), 1 - n, "the call, ended by its stop");
        }
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        acc.push_text(cut, None).unwrap();
        assert_eq!(acc.finish(None).unwrap_err().code, ErrorCode::InvalidJson);
    }

    /// With several choices (`n > 1`) or candidates, the calls are the first's, as the turn is:
    /// every call given is in the turn, and every call in the turn is given.
    #[test]
    fn with_several_choices_or_candidates_the_calls_are_the_firsts_as_the_turn_is() {
        let choice = |i: u64, id: &str| json!({"index":i,"delta":{"tool_calls":[{"index":0,"id":id,"type":"function","function":{"name":"a","arguments":"{}"}}]},"finish_reason":"tool_calls"});
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let mut calls = push(&mut acc, &json!({"choices":[choice(1, "c1")]}), None);
        calls.extend(push(&mut acc, &json!({"choices":[choice(0, "c0")]}), None));
        calls.extend(acc.finish(None).unwrap());
        assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("c0")]);
        assert_eq!(acc.message().unwrap()["tool_calls"].as_array().unwrap().iter().map(|c| c["id"].clone()).collect::<Vec<_>>(), [json!("c0")]);
        // A whole response: the first choice's, a choice given alone whichever it is.
        let message = |id: &str| json!({"role":"assistant","content":null,"tool_calls":[{"id":id,"type":"function","function":{"name":"a","arguments":"{}"}}]});
        let response = json!({"choices":[{"index":1,"message":message("c1")},{"index":0,"message":message("c0")}]});
        let ids = |v: &Value| parse_tool_calls(v, CallFormat::OpenAi, None).unwrap().into_iter().map(|c| c.id.unwrap()).collect::<Vec<_>>();
        assert_eq!(ids(&response), ["c0"]);
        assert_eq!(ids(&response["choices"][0]), ["c1"]);
        let unindexed = json!({"choices":[{"message":message("c0")},{"message":message("c1")}]});
        assert_eq!(ids(&unindexed), ["c0"]);
        // Gemini: the first candidate's, by its index or else its place.
        let candidate = |index: Option<u64>, name: &str| {
            let mut c = json!({"content":{"role":"model","parts":[{"functionCall":{"name":name,"args":{}}}]},"finishReason":"STOP"});
            if let Some(i) = index {
                c["index"] = json!(i);
            }
            c
        };
        for response in [json!({"candidates":[candidate(Some(1), "b"), candidate(Some(0), "a")]}), json!({"candidates":[candidate(None, "a"), candidate(None, "b")]})] {
            let names: Vec<String> = parse_tool_calls(&response, CallFormat::Gemini, None).unwrap().into_iter().map(|c| c.tool).collect();
            assert_eq!(names, ["a"]);
            let mut acc = Accumulator::new(CallFormat::Gemini);
            let mut calls = push(&mut acc, &response, None);
            calls.extend(acc.finish(None).unwrap());
            assert_eq!(calls.iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(), ["a"]);
            assert_eq!(acc.message().unwrap()["parts"], json!([{"functionCall":{"name":"a","args":{}}}]));
        }
        assert_eq!(parse_tool_calls(&candidate(Some(1), "b"), CallFormat::Gemini, None).unwrap()[0].tool, "b");
    }

    /// The deltas still streaming to calls dropped past the bounds are passed over, not read as
    /// calls without a name.
    #[test]
    fn deltas_of_calls_dropped_past_the_bounds_make_no_call() {
        let big = "x".repeat(MAX_OPEN_BYTES + 1);
        let delta = |tc: Value| json!({"choices":[{"index":0,"delta":{"tool_calls":[tc]}}]});
        for later in [json!({"index":0,"function":{"arguments":"more"}}), json!({"id":"c0","function":{"arguments":"more"}}), json!({"function":{"arguments":"more"}})] {
            let mut acc = Accumulator::new(CallFormat::OpenAi);
            let e = acc.push(&delta(json!({"index":0,"id":"c0","function":{"name":"t","arguments":big}})), None).unwrap_err();
            assert_eq!(e.code, ErrorCode::LimitExceeded);
            // (The turn dropped first says so with this push.)
            assert!(acc.push(&delta(later.clone()), None).is_err_and(|e| e.message.starts_with("the model's turn passed")));
            assert!(acc.finish(None).unwrap().is_empty(), "{later}");
        }
        // A call started after them is read.
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        acc.push(&delta(json!({"index":0,"id":"c0","function":{"name":"t","arguments":big}})), None).unwrap_err();
        let _ = acc.push(&delta(json!({"index":0,"function":{"arguments":"more"}})), None);
        push(&mut acc, &delta(json!({"index":0,"id":"c1","function":{"name":"u","arguments":"{"}})), None);
        push(&mut acc, &delta(json!({"index":0,"function":{"arguments":"}"}})), None);
        let calls = acc.finish(None).unwrap();
        assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.tool.as_str(), c.error.is_none())).collect::<Vec<_>>(), [(Some("c1"), "u", true)]);
        // Gemini's arguments streamed in parts.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let part = |fc: Value| json!({"candidates":[{"content":{"parts":[{"functionCall":fc}]}}]});
        acc.push(&part(json!({"name":"t","args":{"k":big},"willContinue":true})), None).unwrap_err();
        assert!(acc.push(&part(json!({"partialArgs":[{"jsonPath":"$.a","stringValue":"x"}],"willContinue":true})), None).map_or(true, |c| c.is_empty()));
        assert_eq!(push(&mut acc, &part(json!({})), None), []);
        assert!(acc.finish(None).unwrap().is_empty());
    }

    /// Chat arguments with a lone surrogate escape read as U+FFFD, as `JSON.parse` reads them and
    /// stream events are read; the turn's arguments read as objects too.
    #[test]
    fn a_lone_surrogate_in_arguments_reads_as_u_fffd() {
        let args = r#"{"x":"\ud800 and \udc00"}"#;
        let response = json!({"choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"t","arguments":args}}]}}]});
        let calls = parse_tool_calls(&response, CallFormat::OpenAi, None).unwrap();
        assert_eq!((&calls[0].arguments, &calls[0].error), (&json!({"x":"\u{fffd} and \u{fffd}"}), &None));
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        push(&mut acc, &json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"t","arguments":args}}]}}]}), None);
        assert_eq!(acc.finish(None).unwrap()[0].arguments, json!({"x":"\u{fffd} and \u{fffd}"}));
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        push(&mut acc, &json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"t","input":{}}}), None);
        push(&mut acc, &json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":args}}), None);
        assert!(push(&mut acc, &json!({"type":"content_block_stop","index":0}), None).is_empty());
        let calls = push(&mut acc, &json!({"type":"message_delta","delta":{"stop_reason":"tool_use"}}), None);
        assert_eq!(calls[0].arguments, json!({"x":"\u{fffd} and \u{fffd}"}));
        assert_eq!(acc.message().unwrap()["content"][0]["input"], calls[0].arguments);
    }

    /// A Chat call of a custom tool (free-form input) is read with an error that says so.
    #[test]
    fn a_chat_custom_tool_call_is_an_error_saying_so() {
        let custom = json!({"id":"call_1","type":"custom","custom":{"name":"code_exec","input":"print(1)"}});
        let response = json!({"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[custom]}}]});
        let calls = parse_tool_calls(&response, CallFormat::OpenAi, None).unwrap();
        assert_eq!((calls[0].id.as_deref(), calls[0].provider_name.as_str(), &calls[0].arguments), (Some("call_1"), "code_exec", &Value::Null));
        let e = calls[0].error.as_ref().unwrap();
        assert_eq!(e.code, "INVALID_ARGUMENTS");
        assert!(e.message.starts_with("\"code_exec\" is a custom tool call, whose input is free text"), "{}", e.message);
        // Given as `message.tool_calls` or as the call itself, the same (s22d F3: it was left out).
        let function = json!({"id":"call_0","type":"function","function":{"name":"t","arguments":"{}"}});
        for given in [json!([function, custom]), custom.clone()] {
            let calls = parse_tool_calls(&given, CallFormat::OpenAi, None).unwrap();
            let last = calls.last().unwrap();
            assert_eq!((calls.len(), last.provider_name.as_str(), last.custom), (if given.is_array() { 2 } else { 1 }, "code_exec", true), "{given}");
            assert_eq!(last.error.as_ref().unwrap().code, "INVALID_ARGUMENTS");
        }
        // A name the map does not know says that instead.
        assert_eq!(parse_tool_calls(&response, CallFormat::OpenAi, Some(&map())).unwrap()[0].error.as_ref().unwrap().code, "UNKNOWN_TOOL_NAME");
        // Streamed, and in the turn as sent.
        let mut streamed = custom.clone();
        streamed["index"] = json!(0);
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        push(&mut acc, &json!({"choices":[{"index":0,"delta":{"tool_calls":[streamed]}}]}), None);
        let calls = push(&mut acc, &json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}), None);
        assert_eq!((calls[0].provider_name.as_str(), calls[0].error.as_ref().unwrap().code), ("code_exec", "INVALID_ARGUMENTS"));
        assert_eq!(acc.message().unwrap()["tool_calls"], json!([custom]));
    }

    /// A Responses custom tool's call is given with its error, as Chat's is (not left out: the
    /// turn holds it, and the API wants its output), marked `custom`; once, streamed.
    #[test]
    fn a_responses_custom_tool_call_is_an_error_saying_so() {
        let item = json!({"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"apply_patch","input":"*** Begin Patch","status":"completed"});
        for response in [json!({"output":[item]}), item.clone(), json!([item])] {
            let calls = parse_tool_calls(&response, CallFormat::OpenAiResponses, None).unwrap();
            assert_eq!(calls.len(), 1, "{response}");
            assert_eq!((calls[0].id.as_deref(), calls[0].provider_name.as_str(), &calls[0].arguments, calls[0].custom), (Some("call_1"), "apply_patch", &Value::Null, true));
            let e = calls[0].error.as_ref().unwrap();
            assert_eq!(e.code, "INVALID_ARGUMENTS");
            assert!(e.message.starts_with("\"apply_patch\" is a custom tool call, whose input is free text"), "{}", e.message);
            assert_eq!(calls[0].to_value()["custom"], true);
        }
        // A name the map knows is still a custom call; one it does not know says that.
        let named = json!({"type":"custom_tool_call","call_id":"c","name":"mcp__gh__create_issue","input":"x"});
        assert_eq!(parse_tool_calls(&named, CallFormat::OpenAiResponses, Some(&map())).unwrap()[0].error.as_ref().unwrap().code, "INVALID_ARGUMENTS");
        assert_eq!(parse_tool_calls(&item, CallFormat::OpenAiResponses, Some(&map())).unwrap()[0].error.as_ref().unwrap().code, "UNKNOWN_TOOL_NAME");
        // A function call has no `custom`.
        let f = parse_tool_calls(&json!({"type":"function_call","call_id":"c","name":"t","arguments":"{}"}), CallFormat::OpenAiResponses, None).unwrap();
        assert!(f[0].to_value().get("custom").is_none());
        // A call_id of the wrong type is refused, as a function call's is.
        let bad = json!({"type":"custom_tool_call","call_id":5,"name":"t","input":""});
        assert_eq!(parse_tool_calls(&bad, CallFormat::OpenAiResponses, None).unwrap_err().code, ErrorCode::InvalidInput);
        // Streamed: given when its input is done, once; the turn holds the item.
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        let added = json!({"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"apply_patch","input":"","status":"in_progress"});
        let mut out = push(&mut acc, &json!({"type":"response.output_item.added","output_index":0,"item":added}), None);
        out.extend(push(&mut acc, &json!({"type":"response.custom_tool_call_input.delta","output_index":0,"item_id":"ctc_1","delta":"*** Begin"}), None));
        assert!(out.is_empty());
        out.extend(push(&mut acc, &json!({"type":"response.custom_tool_call_input.done","output_index":0,"item_id":"ctc_1","input":"*** Begin Patch"}), None));
        assert_eq!(out.len(), 1);
        let done = json!({"type":"response.output_item.done","output_index":0,"item":item});
        out.extend(push(&mut acc, &done, None));
        out.extend(push(&mut acc, &done, None));
        out.extend(acc.finish(None).unwrap());
        assert_eq!(out.iter().map(|c| (c.id.as_deref(), c.provider_name.as_str(), c.custom, c.error.as_ref().map(|e| e.code))).collect::<Vec<_>>(), [(Some("call_1"), "apply_patch", true, Some("INVALID_ARGUMENTS"))]);
        assert_eq!(acc.message().unwrap(), json!([item]));
    }

    /// A Responses custom tool's call cut short (no `output_item.done`: the stream ends, or fails,
    /// after its deltas or after its `custom_tool_call_input.done`; `response.incomplete` without
    /// the item) is given as a function call cut there is, `custom`, with its error, and the
    /// turn keeps its item with its input so far, for its output to answer (s29a F1).
    #[test]
    fn a_responses_custom_tool_call_cut_short_is_given_and_kept() {
        let added = json!({"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"code_exec","input":"","status":"in_progress"});
        let head = [
            json!({"type":"response.created","response":{"id":"r","status":"in_progress","output":[]}}),
            json!({"type":"response.output_item.added","output_index":0,"item":added}),
            json!({"type":"response.custom_tool_call_input.delta","output_index":0,"item_id":"ctc_1","delta":"print("}),
        ];
        let failed = json!({"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"server_error","message":"boom"},"output":[]}});
        let input_done = json!({"type":"response.custom_tool_call_input.done","output_index":0,"item_id":"ctc_1","input":"print(1)"});
        let incomplete = json!({"type":"response.incomplete","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]}});
        let cases = [
            (None, "print(", Some("its input is incomplete: the stream ended before it did")),
            (Some(failed), "print(", Some("its input is incomplete: the stream ended before it did")),
            (Some(input_done), "print(1)", None),
            (Some(incomplete), "print(", Some("its input is incomplete: the response is incomplete (max_output_tokens)")),
        ];
        for (tail, input, why) in cases {
            let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
            let mut calls = Vec::new();
            for ev in head.iter().chain(&tail) {
                // `response.failed` is the provider's error: the call stays open for `finish`.
                calls.extend(acc.push(ev, None).unwrap_or_default());
            }
            calls.extend(acc.finish(None).unwrap());
            assert_eq!(calls.len(), 1, "{tail:?}");
            assert_eq!((calls[0].id.as_deref(), calls[0].provider_name.as_str(), calls[0].custom, &calls[0].arguments), (Some("call_1"), "code_exec", true, &Value::Null));
            let e = calls[0].error.as_ref().unwrap();
            assert_eq!(e.code, "INVALID_ARGUMENTS");
            assert!(e.message.starts_with("\"code_exec\" is a custom tool call, whose input is free text"), "{}", e.message);
            assert_eq!(why.is_some_and(|w| e.message.ends_with(w)), why.is_some(), "{}", e.message);
            let mut item = added.clone();
            item["input"] = json!(input);
            assert_eq!(acc.message().unwrap(), json!([item]), "{tail:?}");
        }
        // Cut short in the response (`incomplete` there), it says so, as a function call does.
        let mut cut = added.clone();
        cut["input"] = json!("print(");
        let response = json!({"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[cut]});
        let e = parse_tool_calls(&response, CallFormat::OpenAiResponses, None).unwrap()[0].error.clone().unwrap();
        assert!(e.message.ends_with("; its input is incomplete: the response is incomplete (max_output_tokens)"), "{}", e.message);
    }

    /// A Chat custom tool's call streamed over several deltas: the turn has its name and all its
    /// input, put together as a function's are (as the openai SDK's ChatCompletionStream does).
    #[test]
    fn a_streamed_chat_custom_call_is_put_together_in_the_turn() {
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let delta = |tc: Value| json!({"choices":[{"index":0,"delta":{"tool_calls":[tc]}}]});
        push(&mut acc, &delta(json!({"index":0,"id":"call_1","type":"custom","custom":{"name":"apply_patch","input":""}})), None);
        push(&mut acc, &delta(json!({"index":0,"custom":{"input":"*** Begin"}})), None);
        push(&mut acc, &delta(json!({"index":0,"custom":{"input":" Patch"}})), None);
        let calls = push(&mut acc, &json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}), None);
        assert_eq!((calls[0].provider_name.as_str(), calls[0].custom), ("apply_patch", true));
        assert_eq!(acc.message().unwrap()["tool_calls"], json!([{"id":"call_1","type":"custom","custom":{"name":"apply_patch","input":"*** Begin Patch"}}]));
        // The whole name given again is not more of it; a name in pieces is put together; other keys stay.
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        push(&mut acc, &delta(json!({"index":0,"id":"call_2","type":"custom","custom":{"name":"apply_"}})), None);
        push(&mut acc, &delta(json!({"index":0,"custom":{"name":"patch","input":"a"}})), None);
        push(&mut acc, &delta(json!({"index":0,"custom":{"name":"apply_patch","input":"b","x":1}})), None);
        assert_eq!(acc.message().unwrap()["tool_calls"], json!([{"id":"call_2","type":"custom","custom":{"name":"apply_patch","input":"ab","x":1}}]));
    }

    #[test]
    fn open_calls_complete_in_key_order() {
        // Calls opened out of order (tool 2 before tool 0) come out in the order they started;
        // another choice's are not read (the turn is the first choice's).
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        for (c, t) in [(1, 2), (0, 2), (1, 0), (0, 0), (0, 1), (0, 2)] {
            let id = format!("c{c}t{t}");
            push(&mut acc, &json!({"choices":[{"index":c,"delta":{"tool_calls":[{"index":t,"id":id,"function":{"name":"n","arguments":"{}"}}]}}]}), None);
        }
        assert_eq!(push(&mut acc, &json!({"choices":[{"index":1,"delta":{},"finish_reason":"tool_calls"}]}), None), []);
        let rest = acc.finish(None).unwrap();
        assert_eq!(rest.iter().map(|c| c.id.as_deref().unwrap()).collect::<Vec<_>>(), ["c0t2", "c0t0", "c0t1"]);
        // A repeated tool index with the same id appends to the same call: `{}{}` is not JSON.
        assert_eq!(rest[0].error.as_ref().unwrap().code, "INVALID_ARGUMENTS");
        assert_eq!(acc.completed(), 3);
        // Responses: deltas find their call through the item id, whatever the output index says.
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        for (oi, id) in [(3, "fc_z"), (1, "fc_a"), (2, "fc_m")] {
            push(&mut acc, &json!({"type":"response.output_item.added","output_index":oi,"item":{"type":"function_call","id":id,"call_id":format!("call_{id}"),"name":"t","arguments":""}}), None);
        }
        for id in ["fc_m", "fc_z", "fc_a"] {
            push(&mut acc, &json!({"type":"response.function_call_arguments.delta","item_id":id,"delta":format!("{{\"id\":\"{id}\"}}")}), None);
        }
        let out = acc.finish(None).unwrap();
        assert_eq!(out.iter().map(|c| c.arguments["id"].as_str().unwrap()).collect::<Vec<_>>(), ["fc_a", "fc_m", "fc_z"]);
    }

    #[test]
    fn a_cut_stream_yields_its_partial_call_with_an_error() {
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        push(&mut acc, &json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"t","arguments":"{\"a\":"}}]}}]}), None);
        let out = acc.finish(None).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].error.as_ref().unwrap().code, "INVALID_ARGUMENTS");
    }

    /// A stream cut right after a call started, before a byte of its arguments: the call is
    /// cut short, not made with `{}` (Anthropic's start `input: {}` a placeholder), for every
    /// provider as for Gemini. A call whose start gave real input, a Chat delta's object, or
    /// arguments that are whole JSON, stays good.
    #[test]
    fn a_stream_cut_before_any_arguments_is_an_incomplete_call() {
        let cut = [
            (CallFormat::OpenAi, vec![json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"rm","arguments":""}}]},"finish_reason":null}]})]),
            (CallFormat::OpenAiResponses, vec![json!({"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"c","name":"rm","arguments":"","status":"in_progress"}})]),
            (CallFormat::Anthropic, vec![json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"c","name":"rm","input":{}}})]),
            (CallFormat::Anthropic, vec![
                json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"c","name":"rm","input":{}}}),
                json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}),
            ]),
            (CallFormat::Bedrock, vec![json!({"contentBlockStart":{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"c","name":"rm"}}}})]),
        ];
        for (format, events) in cut {
            let mut acc = Accumulator::new(format);
            for e in &events {
                assert!(push(&mut acc, e, None).is_empty());
            }
            let out = acc.finish(None).unwrap();
            assert_eq!(out.len(), 1, "{format:?}");
            let e = out[0].error.as_ref().unwrap_or_else(|| panic!("{format:?}: {:?}", out[0].arguments));
            assert_eq!((e.code, e.message.as_str()), ("INVALID_ARGUMENTS", "the arguments of \"rm\" are incomplete: the stream ended before any of them came"));
            assert_eq!(out[0].arguments, Value::Null);
        }
        let good = [
            (CallFormat::OpenAi, json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"rm","arguments":"{}"}}]}}]})),
            (CallFormat::OpenAi, json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"rm","arguments":{}}}]}}]})),
            (CallFormat::Anthropic, json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"c","name":"rm","input":{"p":1}}})),
        ];
        for (format, event) in good {
            let mut acc = Accumulator::new(format);
            push(&mut acc, &event, None);
            let out = acc.finish(None).unwrap();
            assert!(out[0].error.is_none(), "{format:?}: {:?}", out[0].error);
        }
    }

    /// Ollama's turn has a string `content` (its message type's), `""` where the stream sent
    /// none or `""` beside its calls, whose arguments stay objects; Chat's is `null` beside calls.
    #[test]
    fn ollamas_turn_has_string_content() {
        let line = json!({"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"ls","arguments":{"p":"/"}}}]},"done":false});
        let done = json!({"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"});
        let mut acc = Accumulator::new(CallFormat::Ollama);
        push(&mut acc, &line, None);
        push(&mut acc, &done, None);
        acc.finish(None).unwrap();
        let m = acc.message().unwrap();
        assert_eq!((m["content"].clone(), m["tool_calls"][0]["function"]["arguments"].clone()), (json!(""), json!({"p":"/"})));
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        push(&mut acc, &json!({"choices":[{"index":0,"delta":{"content":"","tool_calls":[{"index":0,"id":"c","function":{"name":"ls","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}), None);
        assert_eq!(acc.message().unwrap()["content"], Value::Null);
    }

    /// Streamed arguments that are neither text nor JSON text (`5`, `true`, `[1]`, an object in
    /// a Responses item) are read as `parse_tool_calls` reads them: an object is the
    /// arguments, anything else `INVALID_ARGUMENTS`; never dropped for `{}`. The turn has them
    /// as the JSON text Chat and Responses take back (their types' `arguments: string`), Chat's
    /// refused ones as `{}` (servers read a history's arguments as an object).
    #[test]
    fn streamed_arguments_of_another_type_are_read_as_a_response_is() {
        for args in [json!(5), json!(true), json!([1, 2]), json!({"path": "/"})] {
            let tc = json!({"id":"c","type":"function","function":{"name":"rm","arguments":args}});
            let parsed = parse_tool_calls(&json!({"choices":[{"index":0,"message":{"role":"assistant","tool_calls":[tc]}}]}), CallFormat::OpenAi, None).unwrap();
            let mut acc = Accumulator::new(CallFormat::OpenAi);
            let mut delta = tc.clone();
            delta["index"] = json!(0);
            let streamed = push(&mut acc, &json!({"choices":[{"index":0,"delta":{"tool_calls":[delta]},"finish_reason":"tool_calls"}]}), None);
            assert_eq!((&streamed[0].arguments, &streamed[0].error), (&parsed[0].arguments, &parsed[0].error), "{args}");
            assert_eq!(streamed[0].error.is_some(), !args.is_object(), "{args}");
            // Chat's history: JSON text of an object, `{}` for the refused others (as servers read it).
            let sent = if args.is_object() { args.to_string() } else { "{}".to_owned() };
            assert_eq!(acc.message().unwrap()["tool_calls"][0]["function"]["arguments"], json!(sent));
            let item = json!({"type":"function_call","id":"fc_1","call_id":"c","name":"rm","arguments":args,"status":"completed"});
            let parsed = parse_tool_calls(&json!({"status":"completed","output":[item]}), CallFormat::OpenAiResponses, None).unwrap();
            let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
            let streamed = push(&mut acc, &json!({"type":"response.output_item.done","output_index":0,"item":item}), None);
            assert_eq!((&streamed[0].arguments, &streamed[0].error), (&parsed[0].arguments, &parsed[0].error), "{args}");
            assert_eq!(streamed[0].error.is_some(), !args.is_object(), "{args}");
            assert_eq!(acc.message().unwrap()[0]["arguments"], json!(args.to_string()));
        }
    }

    /// A Responses call given only in `response.completed` (a stream resumed past its item's
    /// events, a server that sends none) is read as its `output_item.done`, and the turn has
    /// it; one completed by its events before is not given again.
    #[test]
    fn a_responses_call_only_in_response_completed_is_read() {
        let fc = |id: &str, args: &str| json!({"type":"function_call","id":format!("fc_{id}"),"call_id":id,"name":"get_weather","arguments":args,"status":"completed"});
        let completed = json!({"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[fc("a", "{\"city\":\"Oslo\"}"), fc("b", "{\"city\":\"Paris\"}")]}});
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        let calls = push(&mut acc, &completed, None);
        assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.arguments["city"].as_str())).collect::<Vec<_>>(), [(Some("a"), Some("Oslo")), (Some("b"), Some("Paris"))]);
        assert!(acc.finish(None).unwrap().is_empty());
        let message = acc.message().unwrap();
        assert_eq!(message.as_array().unwrap().iter().map(|i| i["call_id"].as_str().unwrap()).collect::<Vec<_>>(), ["a", "b"]);
        // The first completed by its events (with its item's id or by its index), the second only at the end.
        for by_id in [true, false] {
            let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
            let mut done = json!({"type":"response.output_item.done","output_index":0,"item":fc("a", "{\"city\":\"Oslo\"}")});
            if !by_id {
                done["item"].as_object_mut().unwrap().remove("id");
            }
            let mut calls = push(&mut acc, &done, None);
            calls.extend(push(&mut acc, &completed, None));
            calls.extend(acc.finish(None).unwrap());
            assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("a"), Some("b")]);
            assert_eq!(acc.message().unwrap().as_array().unwrap().len(), 2);
        }
    }

    /// Items that come only in the final response event (`response.completed`,
    /// `response.incomplete`: a stream resumed past their events, a server that sends no
    /// per-item events) are read as their `output_item.done` would be: the calls as
    /// `parse_tool_calls` gives them from the same response, and every item in the turn, in
    /// order, beside those the events gave (F3, s24b).
    #[test]
    fn items_only_in_the_final_response_event_are_read_as_their_events_would_be() {
        let rs = json!({"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA"});
        let msg = |id: &str, status: &str| json!({"type":"message","id":id,"role":"assistant","status":status,"content":[{"type":"output_text","text":"Checking.","annotations":[]}]});
        let fc = |id: &str, status: &str| json!({"type":"function_call","id":format!("fc_{id}"),"call_id":id,"name":"now","arguments":"{}","status":status});
        let ctc = json!({"type":"custom_tool_call","id":"ctc_1","call_id":"c","name":"sql","input":"SELECT 1"});
        let ids = |calls: &[ToolCall]| calls.iter().map(|c| (c.id.clone().unwrap_or_default(), c.error.as_ref().map(|e| e.code))).collect::<Vec<_>>();
        let cases = [
            // (a) completed: the reasoning and message items are in the turn with the call.
            ("response.completed", json!({"id":"r","status":"completed","output":[rs, msg("msg_1", "completed"), fc("a", "completed")]})),
            // (b) incomplete: a call `completed` in it is given whole, one not is cut short.
            ("response.incomplete", json!({"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[rs, fc("a", "completed"), fc("b", "in_progress"), msg("msg_2", "incomplete")]})),
            // (c) a custom tool's call, with its error.
            ("response.completed", json!({"id":"r","status":"completed","output":[ctc]})),
        ];
        for (kind, response) in cases {
            let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
            let mut calls = push(&mut acc, &json!({"type":"response.created","response":{"id":"r","status":"in_progress","output":[]}}), None);
            calls.extend(push(&mut acc, &json!({"type":kind,"response":response}), None));
            calls.extend(acc.finish(None).unwrap());
            let parsed = parse_tool_calls(&response, CallFormat::OpenAiResponses, None).unwrap();
            assert!(!parsed.is_empty());
            assert_eq!(ids(&calls), ids(&parsed), "{kind}");
            assert_eq!(calls.iter().map(|c| &c.arguments).collect::<Vec<_>>(), parsed.iter().map(|c| &c.arguments).collect::<Vec<_>>());
            assert_eq!(acc.message().unwrap(), response["output"], "{kind}");
        }
        // (d) resumed past the reasoning item's events: the call's events, then the whole output.
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        let mut added = fc("a", "in_progress");
        added["arguments"] = json!("");
        let mut calls = push(&mut acc, &json!({"type":"response.output_item.added","output_index":1,"item":added}), None);
        calls.extend(push(&mut acc, &json!({"type":"response.function_call_arguments.delta","output_index":1,"item_id":"fc_a","delta":"{}"}), None));
        calls.extend(push(&mut acc, &json!({"type":"response.output_item.done","output_index":1,"item":fc("a", "completed")}), None));
        let mut other = msg("msg_9", "completed");
        other["content"][0]["text"] = json!("as the events gave it");
        calls.extend(push(&mut acc, &json!({"type":"response.output_item.done","output_index":2,"item":other}), None));
        calls.extend(push(&mut acc, &json!({"type":"response.completed","response":{"id":"r","status":"completed","output":[rs, fc("a", "completed"), msg("msg_9", "completed")]}}), None));
        calls.extend(acc.finish(None).unwrap());
        assert_eq!(ids(&calls), [("a".to_owned(), None)]);
        assert_eq!(acc.message().unwrap(), json!([rs, fc("a", "completed"), other]));
        // A call still streaming when `response.incomplete` comes, its item `completed` in the
        // output: given whole, not cut short; one not in the output is cut short.
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        push(&mut acc, &json!({"type":"response.output_item.added","output_index":0,"item":added}), None);
        let mut other = added.clone();
        other["id"] = json!("fc_z");
        other["call_id"] = json!("z");
        push(&mut acc, &json!({"type":"response.output_item.added","output_index":1,"item":other}), None);
        let calls = push(&mut acc, &json!({"type":"response.incomplete","response":{"id":"r","status":"incomplete","output":[fc("a", "completed")]}}), None);
        assert_eq!(ids(&calls), [("a".to_owned(), None), ("z".to_owned(), Some("INVALID_ARGUMENTS"))]);
        assert_eq!(calls[0].arguments, json!({}));
    }

    /// An accumulator given the next turn's stream without `finish` after the last (every
    /// Responses call comes from `push`, so an app may leave it out) starts afresh at a new
    /// response's `response.created`, or a new Chat completion's first chunk after the last's
    /// end: the next turn's calls are given and its message is its own; calls of the last not
    /// given yet are dropped, and the push says so (F4, s24b).
    #[test]
    fn a_new_response_or_completion_without_finish_starts_the_next_turn() {
        let item = |n: u64| json!({"type":"function_call","id":format!("fc_{n}"),"call_id":format!("call_{n}"),"name":"now","arguments":format!("{{\"turn\":{n}}}"),"status":"completed"});
        let turn = |n: u64, end: bool| {
            let mut added = item(n);
            added["arguments"] = json!("");
            let mut events = vec![
                json!({"type":"response.created","response":{"id":format!("resp_{n}"),"status":"in_progress","output":[]}}),
                json!({"type":"response.output_item.added","output_index":0,"item":added}),
                json!({"type":"response.function_call_arguments.delta","output_index":0,"item_id":format!("fc_{n}"),"delta":format!("{{\"turn\":{n}}}")}),
            ];
            if end {
                events.push(json!({"type":"response.output_item.done","output_index":0,"item":item(n)}));
                events.push(json!({"type":"response.completed","response":{"id":format!("resp_{n}"),"status":"completed","output":[]}}));
            }
            events
        };
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        for n in [1, 2] {
            let calls: Vec<ToolCall> = turn(n, true).iter().flat_map(|e| push(&mut acc, e, None)).collect();
            assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.arguments["turn"].as_u64())).collect::<Vec<_>>(), [(Some(format!("call_{n}").as_str()), Some(n))]);
            assert_eq!(acc.message().unwrap(), json!([item(n)]));
        }
        assert!(acc.finish(None).unwrap().is_empty());
        // As text, both streams in one piece.
        let text: String = [turn(1, true), turn(2, true)].concat().iter().map(|e| format!("data: {e}\n\n")).collect();
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        let calls = acc.push_text(&text, None).unwrap();
        assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("call_1"), Some("call_2")]);
        assert_eq!(acc.message().unwrap(), json!([item(2)]));
        // The same response's events given again (a stream read again from its start) are no
        // new turn: its call is not given twice.
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        let calls: Vec<ToolCall> = [turn(1, true), turn(1, true)].concat().iter().flat_map(|e| push(&mut acc, e, None)).collect();
        assert_eq!(calls.len(), 1);
        // Without ids, a response created after the last completed is the next.
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        let mut calls = Vec::new();
        for n in [1, 2] {
            for mut e in turn(n, true) {
                e["response"].as_object_mut().map(|r| r.remove("id"));
                calls.extend(push(&mut acc, &e, None));
            }
        }
        assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("call_1"), Some("call_2")]);
        // A stream cut short, then the next without finish: its open call is dropped, said so.
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        for e in turn(1, false) {
            push(&mut acc, &e, None);
        }
        let next = turn(2, true);
        let e = acc.push(&next[0], None).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(e.message.contains("finish()"), "{}", e.message);
        let calls: Vec<ToolCall> = next[1..].iter().flat_map(|e| push(&mut acc, e, None)).collect();
        assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("call_2")]);
        assert!(acc.finish(None).unwrap().is_empty());
        assert_eq!(acc.message().unwrap(), json!([item(2)]));

        // Chat: a chunk of another completion after the last's end begins the next turn.
        let chunks = |n: u64, id: &dyn Fn(usize) -> String| {
            vec![
                json!({"id":id(0),"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":format!("call_{n}"),"type":"function","function":{"name":"now","arguments":""}}]},"finish_reason":null}]}),
                json!({"id":id(1),"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":format!("{{\"turn\":{n}}}")}}]},"finish_reason":null}]}),
                json!({"id":id(2),"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
                json!({"id":id(3),"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}),
            ]
        };
        for per_chunk in [false, true] {
            let mut acc = Accumulator::new(CallFormat::OpenAi);
            for n in [1, 2] {
                // Some servers give each chunk an id of its own: that is no new turn.
                let id = move |i: usize| if per_chunk { format!("chatcmpl-{n}-{i}") } else { format!("chatcmpl-{n}") };
                let calls: Vec<ToolCall> = chunks(n, &id).iter().flat_map(|e| push(&mut acc, e, None)).collect();
                assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.arguments["turn"].as_u64())).collect::<Vec<_>>(), [(Some(format!("call_{n}").as_str()), Some(n))]);
                let message = acc.message().unwrap();
                assert_eq!(message["tool_calls"].as_array().unwrap().iter().map(|t| t["id"].as_str()).collect::<Vec<_>>(), [Some(format!("call_{n}").as_str())], "{per_chunk}");
                assert_eq!(message["tool_calls"][0]["function"]["arguments"], format!("{{\"turn\":{n}}}"));
            }
        }
    }

    /// Gemini (and Vertex), Anthropic and Bedrock: the next turn's stream pushed without `finish`
    /// (Gemini's calls all come from `push`) starts afresh at a chunk with parts of another
    /// `responseId` after the first candidate's `finishReason`, another
    /// message's `message_start` (without ids, after `message_stop`), a `messageStart` after a
    /// `messageStop`: its message is its own, not both turns in one; calls of the last not given
    /// yet are dropped, and the push says so (F1, s25a).
    #[test]
    fn a_new_gemini_response_or_anthropic_or_bedrock_message_without_finish_starts_the_next_turn() {
        // Gemini, as a two-turn gemini-3.1-pro-preview stream has it.
        let chunk = |rid: Option<&str>, parts: Value, finish: Option<&str>| {
            let mut c = json!({"candidates":[{"content":{"role":"model","parts":parts},"index":0}],"modelVersion":"gemini-3.1-pro-preview"});
            if let Some(f) = finish {
                c["candidates"][0]["finishReason"] = json!(f);
            }
            if let Some(rid) = rid {
                c["responseId"] = json!(rid);
            }
            c
        };
        let call = |n: u64| json!({"functionCall":{"name":"get_weather","args":{"turn":n},"id":format!("g{n}")},"thoughtSignature":format!("S{n}")});
        let turn = |n: u64, rid: Option<&str>| {
            vec![
                chunk(rid, json!([{"text":format!("Turn {n}.")}]), None),
                chunk(rid, json!([call(n)]), None),
                chunk(rid, json!([{"text":""}]), Some("STOP")),
                // A usage chunk after the end is no new turn.
                json!({"usageMetadata":{"promptTokenCount":1,"totalTokenCount":2}}),
            ]
        };
        let parts = |n: u64| json!([{"text":format!("Turn {n}.")}, call(n)]);
        {
            let rid = |n: u64| Some(format!("resp-{n}"));
            let mut acc = Accumulator::new(CallFormat::Gemini);
            for n in [1, 2] {
                let calls: Vec<ToolCall> = turn(n, rid(n).as_deref()).iter().flat_map(|e| push(&mut acc, e, None)).collect();
                assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.arguments["turn"].as_u64())).collect::<Vec<_>>(), [(Some(format!("g{n}").as_str()), Some(n))]);
                assert_eq!(acc.message().unwrap()["parts"], parts(n));
            }
            // As text, both streams in one piece, SSE and a JSON array each.
            let events = [turn(1, rid(1).as_deref()), turn(2, rid(2).as_deref())].concat();
            let sse: String = events.iter().map(|e| format!("data: {e}\r\n\r\n")).collect();
            for text in [sse, format!("[{}]", events.iter().map(Value::to_string).collect::<Vec<_>>().join(",\n"))] {
                let mut acc = Accumulator::new(CallFormat::Gemini);
                let calls = acc.push_text(&text, None).unwrap();
                assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("g1"), Some("g2")]);
                assert_eq!(acc.message().unwrap()["parts"], parts(2));
            }
        }
        // The same response's chunks again, or a chunk without its id (some proxies leave it out
        // of a few) within the response, are no new turn.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        push(&mut acc, &chunk(Some("r1"), json!([{"text":"a"}]), None), None);
        push(&mut acc, &chunk(None, json!([{"text":"b"}]), None), None);
        push(&mut acc, &chunk(Some("r1"), json!([{"text":"c"}]), Some("STOP")), None);
        push(&mut acc, &chunk(Some("r1"), json!([{"text":"d"}]), None), None);
        assert_eq!(acc.message().unwrap()["parts"], json!([{"text":"abcd"}]));
        // Without ids none is known to begin (a proxy may put a `finishReason` on every chunk),
        // nor does another id before the last's end (a producer may give every chunk one of its
        // own): all is one turn, nothing lost (review F3, F4, s25r).
        for (first, second) in [(None, None), (Some("c1"), Some("c2"))] {
            let mut acc = Accumulator::new(CallFormat::Gemini);
            let finish = first.is_none().then_some("STOP");
            push(&mut acc, &chunk(first, json!([{"text":"Turn 1."}]), finish), None);
            let calls = [push(&mut acc, &chunk(second, json!([call(1)]), finish), None), acc.finish(None).unwrap()].concat();
            assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("g1")], "{first:?}");
            assert_eq!(acc.message().unwrap()["parts"], parts(1), "{first:?}");
        }
        // The held first call of a response that ended is given at its end, before another begins.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let unsigned = json!({"functionCall":{"name":"get_weather","args":{"turn":1},"id":"g1"}});
        assert!(push(&mut acc, &chunk(Some("r1"), json!([unsigned]), None), None).is_empty(), "held for its signature");
        assert_eq!(push(&mut acc, &chunk(Some("r1"), json!([]), Some("STOP")), None).len(), 1);
        assert_eq!(acc.push(&chunk(Some("r2"), json!([call(2)]), Some("STOP")), None).unwrap().len(), 1, "the next response's, no error");
        assert_eq!(acc.message().unwrap()["parts"], json!([call(2)]));

        // Anthropic: another message's `message_start`.
        let message = |id: Option<&str>, n: u64, end: bool| {
            let mut start = json!({"type":"message_start","message":{"type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}});
            if let Some(id) = id {
                start["message"]["id"] = json!(id);
            }
            let mut events = vec![
                start,
                json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
                json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":format!("Turn {n}.")}}),
                json!({"type":"content_block_stop","index":0}),
                json!({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":format!("toolu_{n}"),"name":"now","input":{}}}),
                json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":format!("{{\"turn\":{n}}}")}}),
            ];
            if end {
                events.extend([
                    json!({"type":"content_block_stop","index":1}),
                    json!({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":1}}),
                    json!({"type":"message_stop"}),
                ]);
            }
            events
        };
        let content = |n: u64| json!([{"type":"text","text":format!("Turn {n}.")},{"type":"tool_use","id":format!("toolu_{n}"),"name":"now","input":{"turn":n}}]);
        for ids in [true, false] {
            let id = |n: u64| ids.then(|| format!("msg_{n}"));
            let mut acc = Accumulator::new(CallFormat::Anthropic);
            for n in [1, 2] {
                let calls: Vec<ToolCall> = message(id(n).as_deref(), n, true).iter().flat_map(|e| push(&mut acc, e, None)).collect();
                assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.arguments["turn"].as_u64())).collect::<Vec<_>>(), [(Some(format!("toolu_{n}").as_str()), Some(n))]);
                assert_eq!(acc.message().unwrap()["content"], content(n), "{ids}");
            }
        }
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        for e in message(Some("msg_1"), 1, false) {
            push(&mut acc, &e, None);
        }
        let next = message(Some("msg_2"), 2, true);
        let e = acc.push(&next[0], None).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(e.message.contains("another message began before finish()"), "{}", e.message);
        let calls: Vec<ToolCall> = next[1..].iter().flat_map(|e| push(&mut acc, e, None)).collect();
        assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("toolu_2")]);
        assert_eq!(acc.message().unwrap()["content"], content(2));

        // Bedrock: a `messageStart` after a `messageStop`.
        let stream = |n: u64, end: bool| {
            let mut events = vec![
                json!({"messageStart":{"role":"assistant"}}),
                json!({"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":format!("Turn {n}.")}}}),
                json!({"contentBlockStop":{"contentBlockIndex":0}}),
                json!({"contentBlockStart":{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":format!("tooluse_{n}"),"name":"now"}}}}),
                json!({"contentBlockDelta":{"contentBlockIndex":1,"delta":{"toolUse":{"input":format!("{{\"turn\":{n}}}")}}}}),
            ];
            if end {
                events.extend([json!({"contentBlockStop":{"contentBlockIndex":1}}), json!({"messageStop":{"stopReason":"tool_use"}}), json!({"metadata":{"usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}})]);
            }
            events
        };
        let content = |n: u64| json!([{"text":format!("Turn {n}.")},{"toolUse":{"toolUseId":format!("tooluse_{n}"),"name":"now","input":{"turn":n}}}]);
        let mut acc = Accumulator::new(CallFormat::Bedrock);
        for n in [1, 2] {
            let calls: Vec<ToolCall> = stream(n, true).iter().flat_map(|e| push(&mut acc, e, None)).collect();
            assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.arguments["turn"].as_u64())).collect::<Vec<_>>(), [(Some(format!("tooluse_{n}").as_str()), Some(n))]);
            assert_eq!(acc.message().unwrap()["content"], content(n));
        }
        // Without ids, a stream cut short (no `messageStop`) is not known to have ended: the
        // next `messageStart` is read as more of it, and its call is not dropped.
        let mut acc = Accumulator::new(CallFormat::Bedrock);
        let mut calls: Vec<ToolCall> = [stream(1, false), stream(2, true)].concat().iter().flat_map(|e| push(&mut acc, e, None)).collect();
        calls.extend(acc.finish(None).unwrap());
        assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("tooluse_1"), Some("tooluse_2")]);
    }

    /// Ollama's own `/api/chat` stream (no ids): the next turn's stream pushed without `finish`
    /// starts afresh at its first chunk with a message after the last one's `done: true`, as
    /// text and as objects: its message is its own, its calls numbered from `call_0` again; the
    /// `done: true` chunk itself is of the turn it ends (F4, s26a).
    #[test]
    fn an_ollama_chunk_after_done_without_finish_starts_the_next_turn() {
        let line = |message: Value, done: bool| json!({"model":"qwen3","created_at":"2026-12-06T08:00:00Z","message":message,"done":done});
        let turn = |text: &str, tool: &str| {
            vec![
                line(json!({"role":"assistant","content":text}), false),
                line(json!({"role":"assistant","content":"","tool_calls":[{"function":{"index":0,"name":tool,"arguments":{"q":text}}}]}), false),
                json!({"model":"qwen3","created_at":"2026-12-06T08:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}),
            ]
        };
        let want = |text: &str, tool: &str| json!({"role":"assistant","content":text,"tool_calls":[{"id":"call_0","type":"function","function":{"index":0,"name":tool,"arguments":{"q":text}}}]});
        let (one, two) = (turn("Checking.", "get_weather"), turn("Searching.", "search"));
        let mut acc = Accumulator::new(CallFormat::Ollama);
        for (events, text, tool) in [(&one, "Checking.", "get_weather"), (&two, "Searching.", "search")] {
            let calls: Vec<ToolCall> = events.iter().flat_map(|e| push(&mut acc, e, None)).collect();
            assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.provider_name.as_str())).collect::<Vec<_>>(), [(Some("call_0"), tool)]);
            assert_eq!(acc.message().unwrap(), want(text, tool));
        }
        // Both streams' JSON lines in one piece of text.
        let text: String = [one, two].concat().iter().map(|e| format!("{e}\n")).collect();
        let mut acc = Accumulator::new(CallFormat::Ollama);
        let calls = acc.push_text(&text, None).unwrap();
        assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.provider_name.as_str())).collect::<Vec<_>>(), [(Some("call_0"), "get_weather"), (Some("call_0"), "search")]);
        assert_eq!(acc.message().unwrap(), want("Searching.", "search"));
        // Whole responses (not streamed), one after the other.
        let mut acc = Accumulator::new(CallFormat::Ollama);
        push(&mut acc, &line(json!({"role":"assistant","content":"One."}), true), None);
        push(&mut acc, &line(json!({"role":"assistant","content":"Two."}), true), None);
        assert_eq!(acc.message().unwrap(), json!({"role":"assistant","content":"Two."}));
    }

    /// An accumulator given the next turn's stream after `finish` starts afresh: the next
    /// Responses call at output index 0 is not taken for the one completed before, nor two
    /// Anthropic turns made one message. A `finish` that failed keeps its calls for the next.
    #[test]
    fn a_push_after_finish_starts_the_next_stream() {
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        for id in ["a", "b"] {
            let item = json!({"type":"function_call","id":format!("fc_{id}"),"call_id":id,"name":"t","arguments":"{}","status":"completed"});
            let mut calls = push(&mut acc, &json!({"type":"response.output_item.added","output_index":0,"item":item}), None);
            calls.extend(push(&mut acc, &json!({"type":"response.output_item.done","output_index":0,"item":item}), None));
            calls.extend(acc.finish(None).unwrap());
            assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some(id)]);
            assert_eq!(acc.message().unwrap().as_array().unwrap().iter().map(|i| i["call_id"].as_str()).collect::<Vec<_>>(), [Some(id)]);
        }
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        for id in ["a", "b"] {
            push(&mut acc, &json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":id,"name":"t","input":{}}}), None);
            push(&mut acc, &json!({"type":"content_block_stop","index":0}), None);
            assert_eq!(acc.finish(None).unwrap()[0].id.as_deref(), Some(id));
            assert_eq!(acc.message().unwrap()["content"].as_array().unwrap().len(), 1);
        }
        // A finish that failed (text cut inside an event) is no end: its calls come with the next.
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        push(&mut acc, &json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"a","name":"t","input":{}}}), None);
        push(&mut acc, &json!({"type":"content_block_stop","index":0}), None);
        acc.push_text("data: {\"type\":", None).unwrap();
        assert!(acc.finish(None).is_err());
        assert_eq!(acc.finish(None).unwrap()[0].id.as_deref(), Some("a"));
        // So is one whose last text was not SSE: the next `finish_text` gives the calls.
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        push(&mut acc, &json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"a","name":"t","input":{}}}), None);
        assert!(acc.finish_text("\u{fffd}", None).is_err());
        assert_eq!(acc.finish_text("", None).unwrap().len(), 1);
    }

    /// An SSE event past the bound is dropped with the rest of its line: the text after it up
    /// to the line's end is passed over, not read as lines that are neither SSE nor JSON (an
    /// `INVALID_JSON` with every push, and the next good event's calls held back with it).
    #[test]
    fn the_rest_of_a_line_dropped_past_the_bound_is_passed_over() {
        let big = json!({"candidates":[{"content":{"role":"model","parts":[{"inlineData":{"mimeType":"image/png","data":"A".repeat(MAX_STREAM_EVENT_BYTES + (2 << 20))}}]}}]}).to_string();
        let next = json!({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"save","args":{"p":1}}}]},"finishReason":"STOP"}]}).to_string();
        for end in ["\r\n", "\n", "\r"] {
            let text = format!("data: {big}{end}{end}data: {next}{end}{end}");
            let mut acc = Accumulator::new(CallFormat::Gemini);
            let (mut calls, mut errors) = (Vec::new(), Vec::new());
            for piece in text.as_bytes().chunks(1 << 20) {
                match acc.push_text(std::str::from_utf8(piece).unwrap(), None) {
                    Ok(c) => calls.extend(c),
                    Err(e) => errors.push(e),
                }
            }
            calls.extend(acc.finish(None).unwrap());
            assert_eq!(errors.iter().map(|e| e.code).collect::<Vec<_>>(), [ErrorCode::LimitExceeded], "{end:?}: {errors:?}");
            assert_eq!(calls.iter().map(|c| c.provider_name.as_str()).collect::<Vec<_>>(), ["save"]);
        }
    }

    /// An index written as a double (`0.0`, `1e0`, `-0`, as a proxy that writes every number as a
    /// double sends it) is that index, in stream text as in the object `JSON.parse` makes of it
    /// (s26d F3).
    #[test]
    fn an_index_written_as_a_double_in_stream_text_is_the_integer() {
        let chat = |i: [&str; 3]| {
            let delta = |i: &str, ci: &str, id: &str, args: &str| format!(r#"data: {{"choices":[{{"index":{ci},"delta":{{"tool_calls":[{{"index":{i},"id":"{id}","type":"function","function":{{"name":"t","arguments":"{args}"}}}}]}}}}]}}"#);
            let pieces = [delta(i[0], i[2], "c1", "{"), delta(i[1], i[2], "c2", "{"), delta(i[0], i[2], "", "}"), delta(i[1], i[2], "", "}")];
            pieces.join("\n\n") + "\n\ndata: [DONE]\n\n"
        };
        let anthropic = |i: &str| {
            [
                format!(r#"data: {{"type":"content_block_start","index":{i},"content_block":{{"type":"tool_use","id":"toolu_1","name":"t","input":{{}}}}}}"#),
                format!(r#"data: {{"type":"content_block_delta","index":{i},"delta":{{"type":"input_json_delta","partial_json":"{{\"a\":1.0}}"}}}}"#),
                format!(r#"data: {{"type":"content_block_stop","index":{i}}}"#),
            ]
            .join("\n\n")
                + "\n\n"
        };
        let bedrock = |i: &str| {
            format!(r#"{{"contentBlockStart":{{"contentBlockIndex":{i},"start":{{"toolUse":{{"toolUseId":"b1","name":"t"}}}}}}}}{{"contentBlockDelta":{{"contentBlockIndex":{i},"delta":{{"toolUse":{{"input":"{{}}"}}}}}}}}{{"contentBlockStop":{{"contentBlockIndex":{i}}}}}"#)
                .replace("}{", "}\n{")
        };
        let calls = |format: CallFormat, text: &str| {
            let mut acc = Accumulator::new(format);
            let mut out = acc.push_text(text, None).unwrap();
            out.extend(acc.finish(None).unwrap());
            out.iter().map(|c| (c.id.clone(), c.arguments.to_string())).collect::<Vec<_>>()
        };
        let whole = calls(CallFormat::OpenAi, &chat(["0", "1", "0"]));
        assert_eq!(whole.len(), 2, "{whole:?}");
        for i in [["0.0", "1.0", "0.0"], ["0e0", "1e0", "-0"], ["-0", "1.00", "0E0"]] {
            assert_eq!(calls(CallFormat::OpenAi, &chat(i)), whole, "{i:?}");
        }
        let whole = calls(CallFormat::Anthropic, &anthropic("0"));
        assert_eq!(whole.len(), 1);
        let whole_bedrock = calls(CallFormat::Bedrock, &bedrock("0"));
        assert_eq!(whole_bedrock.len(), 1);
        for i in ["0.0", "-0", "0e0"] {
            assert_eq!(calls(CallFormat::Anthropic, &anthropic(i)), whole, "{i}");
            assert_eq!(calls(CallFormat::Bedrock, &bedrock(i)), whole_bedrock, "{i}");
        }
    }

    /// A line that is neither SSE nor JSON is one `INVALID_JSON` and no event wherever the stream
    /// was cut: refused from its first pieces, the rest of it up to its end is passed over, not
    /// read as a line of its own (whose JSON tail would give a call).
    #[test]
    fn a_line_refused_before_its_end_is_passed_over_to_its_end() {
        let call = r#"{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"delete_repo","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#;
        let next = r#"data: {"id":"y","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c2","type":"function","function":{"name":"ok","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#;
        for field in ["x: ", "DATA: ", "data : ", " data: ", "x-request-id: "] {
            for end in ["\n", "\r\n", "\r"] {
                let text = format!("{field}{call}{end}{end}{next}{end}{end}");
                let outcome = |pieces: &[&str]| {
                    let mut acc = Accumulator::new(CallFormat::OpenAi);
                    let (mut ids, mut errors) = (Vec::new(), 0);
                    for piece in pieces {
                        match acc.push_text(piece, None) {
                            Ok(c) => ids.extend(c.into_iter().map(|c| c.id)),
                            Err(e) => {
                                assert_eq!(e.code, ErrorCode::InvalidJson);
                                errors += 1;
                            }
                        }
                    }
                    ids.extend(acc.finish(None).unwrap().into_iter().map(|c| c.id));
                    (ids, errors)
                };
                let whole = outcome(&[&text]);
                assert_eq!(whole, (vec![Some("c2".to_owned())], 1), "{field:?} {end:?}");
                for cut in (1..text.len()).filter(|&i| text.is_char_boundary(i)) {
                    assert_eq!(outcome(&[&text[..cut], &text[cut..]]), whole, "{field:?} {end:?} cut at {cut}");
                }
                let bytes: Vec<String> = text.chars().map(String::from).collect();
                assert_eq!(outcome(&bytes.iter().map(String::as_str).collect::<Vec<_>>()), whole, "{field:?} {end:?} a character at a time");
            }
        }
    }

    /// A Chat name streamed in pieces, one of them equal to the name so far (`go` + `go` +
    /// `__deploy`): put back once another piece follows, in the call and in the turn; the whole
    /// name sent again in every delta is still not doubled.
    #[test]
    fn a_name_piece_equal_to_the_name_so_far_is_kept_when_more_follows() {
        let delta = |name: &str, args: &str| json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":name,"arguments":args}}]}}]});
        let finish = json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]});
        for (pieces, name) in [
            (&["go", "go", "__deploy"][..], "gogo__deploy"),
            (&["go", "go", "go", "__deploy"][..], "gogogo__deploy"),
            (&["get_weather", "get_weather", "get_weather"][..], "get_weather"),
            (&["get_", "weather", "get_weather", ""][..], "get_weather"),
        ] {
            let mut acc = Accumulator::new(CallFormat::OpenAi);
            for (i, piece) in pieces.iter().enumerate() {
                push(&mut acc, &delta(piece, if i == 0 { "{}" } else { "" }), None);
            }
            let calls = push(&mut acc, &finish, None);
            assert_eq!(calls[0].provider_name, name, "{pieces:?}");
            assert_eq!(acc.message().unwrap()["tool_calls"][0]["function"]["name"], name, "{pieces:?}");
        }
    }

    /// Chat's legacy `function_call` (the `functions` API) is `INVALID_INPUT` naming it, in a
    /// completion and in a stream, rather than no call at all.
    #[test]
    fn a_legacy_function_call_is_invalid_input_not_no_call() {
        let fc = json!({"name":"get_weather","arguments":"{\"city\":\"Paris\"}"});
        let completion = json!({"choices":[{"index":0,"message":{"role":"assistant","content":null,"function_call":fc},"finish_reason":"function_call"}]});
        let e = parse_tool_calls(&completion, CallFormat::OpenAi, None).unwrap_err();
        assert_eq!((e.code, e.path.as_deref()), (ErrorCode::InvalidInput, Some("/choices/0/message/function_call")));
        assert!(e.message.contains("legacy `functions` API"), "{e}");
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let e = acc.push(&json!({"choices":[{"index":0,"delta":{"role":"assistant","function_call":{"name":"get_weather","arguments":""}}}]}), None).unwrap_err();
        assert_eq!((e.code, e.path.as_deref()), (ErrorCode::InvalidInput, Some("/choices/0/delta/function_call")));
        // `function_call: null`, as some servers send beside `tool_calls`, is nothing.
        let completion = json!({"choices":[{"index":0,"message":{"role":"assistant","function_call":null,"tool_calls":[{"id":"c","type":"function","function":fc}]}}]});
        assert_eq!(parse_tool_calls(&completion, CallFormat::OpenAi, None).unwrap().len(), 1);
        // Beside no call (`tool_calls: []`), it is still the only call.
        let completion = json!({"choices":[{"index":0,"message":{"role":"assistant","function_call":fc,"tool_calls":[]}}]});
        assert_eq!(parse_tool_calls(&completion, CallFormat::OpenAi, None).unwrap_err().code, ErrorCode::InvalidInput);
    }

    /// A Chat call with its name and arguments on itself, without the `function` wrapper (`{id,
    /// type, name, arguments}`, as some proxies send): `parse_tool_calls` reads it, and so does
    /// the accumulator, pushed whole or streamed; the turn has it as Chat takes it, under
    /// `function` (F7, s26a).
    #[test]
    fn a_call_without_the_function_wrapper_is_read_by_the_accumulator_as_parsed() {
        let map = NameMap::build(&[(None, "get_weather")], &NamingOptions::default(), NameRule::Strict).0;
        let completion = json!({"id":"c1","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls",
            "message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}]}}]});
        let parsed = parse_tool_calls(&completion, CallFormat::OpenAi, Some(&map)).unwrap();
        assert_eq!(parsed.iter().map(|c| (c.id.as_deref(), c.tool.as_str(), c.arguments.clone(), c.error.is_none())).collect::<Vec<_>>(), [(Some("call_a"), "get_weather", json!({"city":"Paris"}), true)]);
        let want = json!({"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]});
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let mut calls = push(&mut acc, &completion, Some(&map));
        calls.extend(acc.finish(Some(&map)).unwrap());
        assert_eq!(calls, parsed);
        assert_eq!(acc.message().unwrap(), want);
        // Streamed so, the arguments in pieces.
        let chunk = |tc: Value, finish: Value| json!({"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[tc]},"finish_reason":finish}]});
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let mut calls = push(&mut acc, &chunk(json!({"index":0,"id":"call_a","type":"function","name":"get_weather","arguments":""}), Value::Null), Some(&map));
        calls.extend(push(&mut acc, &chunk(json!({"index":0,"arguments":"{\"city\":"}), Value::Null), Some(&map)));
        calls.extend(push(&mut acc, &chunk(json!({"index":0,"arguments":"\"Paris\"}"}), json!("tool_calls")), Some(&map)));
        calls.extend(acc.finish(Some(&map)).unwrap());
        assert_eq!(calls, parsed);
        assert_eq!(acc.message().unwrap(), want);
    }

    /// llama-cpp-python's function-calling formats copy the first call into `function_call`
    /// beside `tool_calls`, in the message and in every delta, and not always as it is there
    /// (functionary: the first of several calls; chatml-function-calling: one call's arguments
    /// under the name the grammar picked after it, `""`; a stream's first delta has the first
    /// piece of the arguments where the call has `""`): the calls of `tool_calls` are read, each
    /// once, and the copy is neither an error nor a call, nor in the turn sent back (F1, s26a).
    #[test]
    fn a_function_call_beside_tool_calls_is_their_legacy_copy() {
        let map = NameMap::build(&[(None, "get_weather")], &NamingOptions::default(), NameRule::Strict).0;
        let call = |n: u64, city: &str| json!({"id":format!("call__{n}_get_weather_cmpl-1"),"type":"function","function":{"name":"get_weather","arguments":format!("{{\"city\":\"{city}\"}}")}});
        let completion = |tool_calls: Value, fc: Value| {
            json!({"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"function_call":fc,"tool_calls":tool_calls}}]})
        };
        for (completion, cities) in [
            (completion(json!([call(0, "Paris"), call(1, "Rome")]), call(0, "Paris")["function"].clone()), &["Paris", "Rome"][..]),
            (completion(json!([call(0, "Paris")]), json!({"name":"","arguments":"{\"city\":\"Paris\"}"})), &["Paris"][..]),
        ] {
            let calls = parse_tool_calls(&completion, CallFormat::OpenAi, Some(&map)).unwrap();
            assert_eq!(calls.iter().map(|c| (c.tool.as_str(), c.arguments["city"].as_str().unwrap_or_default())).collect::<Vec<_>>(), cities.iter().map(|c| ("get_weather", *c)).collect::<Vec<_>>());
            // The completion pushed for its message.
            let mut acc = Accumulator::new(CallFormat::OpenAi);
            let mut pushed = push(&mut acc, &completion, Some(&map));
            pushed.extend(acc.finish(Some(&map)).unwrap());
            assert_eq!(pushed, calls);
            let message = acc.message().unwrap();
            assert!(message.get("function_call").is_none(), "{message}");
            assert_eq!(message["tool_calls"], completion["choices"][0]["message"]["tool_calls"]);
        }
        // The stream of a call the user chose (`tool_choice`), as the server sends it.
        let chunk = |delta: Value, finish: Value| json!({"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"finish_reason":finish,"logprobs":null,"delta":delta}]});
        let piece = |fc: &str, tc: &str| {
            let call = json!([{"index":0,"id":"call__0_get_weather_cmpl-1","type":"function","function":{"name":"get_weather","arguments":tc}}]);
            chunk(json!({"role":null,"content":null,"function_call":{"name":"get_weather","arguments":fc},"tool_calls":call}), Value::Null)
        };
        let none = json!({"role":null,"content":null,"function_call":null,"tool_calls":null});
        let stream = [chunk(json!({"role":"assistant","content":null,"function_call":null,"tool_calls":null}), Value::Null), piece(" ", ""), piece("{\"city\":", "{\"city\":"), piece("\"Paris\"}", "\"Paris\"}"), chunk(none, json!("tool_calls"))];
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let mut calls: Vec<ToolCall> = Vec::new();
        for ev in &stream {
            calls.extend(acc.push(ev, Some(&map)).unwrap());
        }
        calls.extend(acc.finish(Some(&map)).unwrap());
        assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.arguments.clone())).collect::<Vec<_>>(), [(Some("call__0_get_weather_cmpl-1"), json!({"city":"Paris"}))]);
        let message = acc.message().unwrap();
        assert!(message.get("function_call").is_none(), "{message}");
        assert_eq!(message["tool_calls"][0]["function"]["arguments"], "{\"city\":\"Paris\"}");
    }
}
