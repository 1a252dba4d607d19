//! Reading a provider's tool calls back: from complete responses ([`parse_tool_calls`]) and
//! from streams ([`Accumulator`]), through the name map, with arguments mapped back.
//!
//! A call whose arguments are not valid JSON, or whose name the map does not know, is still
//! returned, with an `error` (code and message) instead of arguments: one bad call never hides
//! the others, and nothing is guessed.

use serde_json::{Map, Value};

use crate::error::{Error, ErrorCode, Result};
use crate::naming::NameMap;

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
            other => {
                return Err(Error::new(
                    ErrorCode::UnknownProvider,
                    format!("unknown provider \"{other}\" (expected openai, openai-responses, anthropic, gemini, vertex, bedrock or ollama)"),
                ))
            }
        })
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

/// One tool call, resolved. JSON form: `{id, providerName, server, tool, arguments, error?}`
/// (`id` and `server` are `null` when absent, `error` is absent when there is none).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The provider's call id (`null` when the provider sent none, as Gemini may).
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
}

impl CallError {
    /// The JSON form.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("code".into(), Value::String(self.code.to_owned()));
        o.insert("message".into(), Value::String(self.message.clone()));
        Value::Object(o)
    }
}

impl ToolCall {
    /// The JSON form.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("id".into(), self.id.clone().into());
        o.insert("providerName".into(), Value::String(self.provider_name.clone()));
        o.insert("server".into(), self.server.clone().into());
        o.insert("tool".into(), Value::String(self.tool.clone()));
        o.insert("arguments".into(), self.arguments.clone());
        if let Some(e) = &self.error {
            o.insert("error".into(), e.to_value());
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

/// A model's arguments for the tool `name` as a JSON object: parsed when they are text, `{}`
/// for none (`null`, empty text); anything but an object is `INVALID_ARGUMENTS` (a tool's
/// arguments are an object, whatever the model sent).
pub(crate) fn model_arguments(name: &str, raw: RawArgs) -> Result<Value> {
    let v = match raw {
        RawArgs::Json(Value::Null) => return Ok(Value::Object(Map::new())),
        RawArgs::Json(v) => v,
        RawArgs::Text(t) if t.trim().is_empty() => return Ok(Value::Object(Map::new())),
        RawArgs::Text(t) => crate::model::read_json(&t).map_err(|e| {
            e.into_error(&format!("the arguments of \"{name}\""), |e| {
                Error::new(ErrorCode::InvalidArguments, format!("arguments of \"{name}\" are not valid JSON ({e}): {}", preview(&t)))
            })
        })?,
    };
    match v {
        Value::Object(_) => Ok(v),
        other => Err(Error::new(
            ErrorCode::InvalidArguments,
            format!("arguments of \"{name}\" must be a JSON object, got {}", crate::model::json_type(&other)),
        )),
    }
}

/// Builds a resolved call from its raw parts.
fn resolve(id: Option<String>, name: String, raw: RawArgs, map: Option<&NameMap>) -> ToolCall {
    let mut call = ToolCall { id, provider_name: name.clone(), server: None, tool: name.clone(), arguments: Value::Null, error: None };
    if name.is_empty() {
        // No tool to call, with a name map or without: the same code a map gives a name it
        // does not know.
        call.error = Some(CallError { code: ErrorCode::UnknownToolName.as_str(), message: "the call has no tool name".to_owned() });
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
    match args {
        Ok(v) => {
            call.arguments = match entry.and_then(|e| e.args.as_ref()) {
                Some(plan) => plan.apply(v),
                None => v,
            }
        }
        Err(e) => call.error = Some(e),
    }
    call
}

fn preview(s: &str) -> String {
    let mut p: String = s.chars().take(80).collect();
    if p.len() < s.len() {
        p.push_str("...");
    }
    p
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

/// Every tool call in a complete provider response, in order.
///
/// Accepts the whole response or, where it is natural, just its message
/// (`choices[0].message`, an Anthropic message, a Gemini candidate's content).
pub fn parse_tool_calls(response: &Value, format: CallFormat, map: Option<&NameMap>) -> Result<Vec<ToolCall>> {
    if !response.is_object() {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!("expected a provider response object, got {}", crate::model::json_type(response)),
        ));
    }
    let mut calls = Vec::new();
    match format {
        CallFormat::OpenAi | CallFormat::Ollama => {
            let messages: Vec<&Value> = if let Some(choices) = response.get("choices").and_then(Value::as_array) {
                choices.iter().filter_map(|c| c.get("message")).collect()
            } else if let Some(m) = response.get("message") {
                vec![m]
            } else {
                vec![response]
            };
            for m in messages {
                for (i, tc) in array(m, "tool_calls").iter().enumerate() {
                    let f = tc.get("function").unwrap_or(tc);
                    let name = str_of(f, "name").unwrap_or_default();
                    let id = str_of(tc, "id").or_else(|| (format == CallFormat::Ollama).then(|| format!("call_{i}")));
                    calls.push(resolve(id, name, args_of(f.get("arguments")), map));
                }
            }
        }
        CallFormat::OpenAiResponses => {
            for item in array(response, "output") {
                if item.get("type").and_then(Value::as_str) == Some("function_call") {
                    let name = str_of(item, "name").unwrap_or_default();
                    // `call_id` is what the `function_call_output` answers; the item's own `id`
                    // (`fc_...`) is not a call id, so a call without `call_id` has none.
                    let id = str_of(item, "call_id");
                    calls.push(resolve(id, name, args_of(item.get("arguments")), map));
                }
            }
        }
        CallFormat::Anthropic => {
            for block in array(response, "content") {
                if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                    let name = str_of(block, "name").unwrap_or_default();
                    calls.push(resolve(str_of(block, "id"), name, args_of(block.get("input")), map));
                }
            }
        }
        CallFormat::Gemini => {
            let contents: Vec<&Value> = if let Some(cands) = response.get("candidates").and_then(Value::as_array) {
                cands.iter().filter_map(|c| c.get("content")).collect()
            } else {
                vec![response]
            };
            for content in contents {
                for part in array(content, "parts") {
                    if let Some(fc) = part.get("functionCall") {
                        let name = str_of(fc, "name").unwrap_or_default();
                        calls.push(resolve(str_of(fc, "id"), name, args_of(fc.get("args")), map));
                    }
                }
            }
        }
        CallFormat::Bedrock => {
            let message = response.get("output").and_then(|o| o.get("message")).unwrap_or(response);
            for block in array(message, "content") {
                if let Some(tu) = block.get("toolUse") {
                    let name = str_of(tu, "name").unwrap_or_default();
                    calls.push(resolve(str_of(tu, "toolUseId"), name, args_of(tu.get("input")), map));
                }
            }
        }
    }
    Ok(calls)
}

/// A call being assembled from stream events.
#[derive(Debug, Clone, Default)]
struct Partial {
    id: Option<String>,
    name: String,
    args: String,
    /// Arguments given whole (an object) rather than as text fragments.
    whole: Option<Value>,
    done: bool,
}

/// The calls being assembled, by `(choice or output index, call index)`, in key order: a
/// vector kept sorted (a stream has few calls open; a `BTreeMap` costs much more wasm).
#[derive(Debug, Clone, Default)]
struct OpenCalls(Vec<((u64, u64), Partial)>);

impl OpenCalls {
    fn find(&self, key: (u64, u64)) -> std::result::Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.cmp(&key))
    }

    /// The call at `key`, created empty if absent.
    fn entry(&mut self, key: (u64, u64)) -> &mut Partial {
        let i = match self.find(key) {
            Ok(i) => i,
            Err(i) => {
                self.0.insert(i, (key, Partial::default()));
                i
            }
        };
        &mut self.0[i].1
    }

    fn get_mut(&mut self, key: (u64, u64)) -> Option<&mut Partial> {
        self.find(key).ok().map(|i| &mut self.0[i].1)
    }

    fn contains(&self, key: (u64, u64)) -> bool {
        self.find(key).is_ok()
    }

    fn remove(&mut self, key: (u64, u64)) -> Option<Partial> {
        self.find(key).ok().map(|i| self.0.remove(i).1)
    }

    fn keys(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.0.iter().map(|(k, _)| *k)
    }
}

/// Responses stream: item id → key of its call, sorted by id.
#[derive(Debug, Clone, Default)]
struct ItemKeys(Vec<(String, (u64, u64))>);

impl ItemKeys {
    fn get(&self, id: &str) -> Option<(u64, u64)> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(id)).ok().map(|i| self.0[i].1)
    }

    fn insert(&mut self, id: String, key: (u64, u64)) {
        match self.0.binary_search_by(|(k, _)| k.as_str().cmp(&id)) {
            Ok(i) => self.0[i].1 = key,
            Err(i) => self.0.insert(i, (id, key)),
        }
    }
}

/// Assembles complete tool calls from a provider's stream events or chunks.
///
/// Feed every event to [`Accumulator::push`]; it returns the calls that the event completed.
/// [`Accumulator::finish`] returns any call still open when the stream ended (a stream cut
/// short yields its partial calls, with an error if their arguments are incomplete JSON).
#[derive(Debug, Clone)]
pub struct Accumulator {
    format: CallFormat,
    open: OpenCalls,
    /// Responses: item id → key.
    items: ItemKeys,
    /// Responses: the keys of the calls completed, so that an `output_item.done` after
    /// `function_call_arguments.done` does not give the call twice.
    closed: Vec<(u64, u64)>,
    emitted: usize,
}

impl Accumulator {
    /// A new accumulator for a provider's stream format.
    pub fn new(format: CallFormat) -> Self {
        Self { format, open: OpenCalls::default(), items: ItemKeys::default(), closed: Vec::new(), emitted: 0 }
    }

    /// How many calls have been completed so far.
    pub fn completed(&self) -> usize {
        self.emitted
    }

    /// Takes one event (a parsed JSON chunk, an object). Returns the calls it completed.
    /// Anything but an object is `INVALID_INPUT`.
    pub fn push(&mut self, event: &Value, map: Option<&NameMap>) -> Result<Vec<ToolCall>> {
        if !event.is_object() {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("a stream event must be an object, got {}", crate::model::json_type(event)),
            ));
        }
        Ok(self.push_event(event, map))
    }

    /// One event, an object.
    fn push_event(&mut self, event: &Value, map: Option<&NameMap>) -> Vec<ToolCall> {
        let mut done = Vec::new();
        match self.format {
            CallFormat::OpenAi | CallFormat::Ollama => self.push_openai(event, &mut done),
            CallFormat::OpenAiResponses => self.push_responses(event, &mut done),
            CallFormat::Anthropic => self.push_anthropic(event, &mut done),
            CallFormat::Gemini => {
                // Gemini streams whole function calls, one or more per chunk.
                if let Ok(calls) = parse_tool_calls(event, CallFormat::Gemini, map) {
                    self.emitted += calls.len();
                    return calls;
                }
            }
            CallFormat::Bedrock => self.push_bedrock(event, &mut done),
        }
        self.take(done, map)
    }

    /// Ends the stream: every call still open is returned.
    pub fn finish(&mut self, map: Option<&NameMap>) -> Vec<ToolCall> {
        let keys: Vec<(u64, u64)> = self.open.keys().collect();
        self.take(keys, map)
    }

    fn take(&mut self, keys: Vec<(u64, u64)>, map: Option<&NameMap>) -> Vec<ToolCall> {
        let mut out = Vec::new();
        for k in keys {
            if let Some(p) = self.open.remove(k) {
                let raw = match p.whole {
                    Some(v) if p.args.is_empty() => RawArgs::Json(v),
                    _ => RawArgs::Text(p.args),
                };
                out.push(resolve(p.id, p.name, raw, map));
            }
        }
        self.emitted += out.len();
        out
    }

    fn push_openai(&mut self, ev: &Value, done: &mut Vec<(u64, u64)>) {
        for choice in array(ev, "choices") {
            let ci = choice.get("index").and_then(Value::as_u64).unwrap_or(0);
            let delta = choice.get("delta").or_else(|| choice.get("message"));
            if let Some(delta) = delta {
                for (pos, tc) in array(delta, "tool_calls").iter().enumerate() {
                    let ti = tc.get("index").and_then(Value::as_u64).unwrap_or(pos as u64);
                    let p = self.open.entry((ci, ti));
                    if let Some(id) = str_of(tc, "id") {
                        p.id = Some(id);
                    }
                    if let Some(f) = tc.get("function") {
                        if let Some(n) = f.get("name").and_then(Value::as_str) {
                            p.name.push_str(n);
                        }
                        match f.get("arguments") {
                            Some(Value::String(a)) => p.args.push_str(a),
                            Some(v @ Value::Object(_)) => p.whole = Some(v.clone()),
                            _ => {}
                        }
                    }
                }
            }
            if choice.get("finish_reason").is_some_and(|r| !r.is_null()) {
                done.extend(self.open.keys().filter(|(c, _)| *c == ci).collect::<Vec<_>>());
            }
        }
    }

    fn push_responses(&mut self, ev: &Value, done: &mut Vec<(u64, u64)>) {
        let kind = ev.get("type").and_then(Value::as_str).unwrap_or("");
        let oi = ev.get("output_index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "response.output_item.added" => {
                if let Some(item) = ev.get("item").filter(|i| i.get("type").and_then(Value::as_str) == Some("function_call")) {
                    let p = self.open.entry((oi, 0));
                    p.id = str_of(item, "call_id");
                    p.name = str_of(item, "name").unwrap_or_default();
                    p.args = str_of(item, "arguments").unwrap_or_default();
                    if let Some(id) = str_of(item, "id") {
                        self.items.insert(id, (oi, 0));
                    }
                }
            }
            "response.function_call_arguments.delta" => {
                let key = str_of(ev, "item_id").and_then(|id| self.items.get(&id)).unwrap_or((oi, 0));
                if let (Some(p), Some(d)) = (self.open.get_mut(key), ev.get("delta").and_then(Value::as_str)) {
                    p.args.push_str(d);
                }
            }
            "response.function_call_arguments.done" => {
                let key = str_of(ev, "item_id").and_then(|id| self.items.get(&id)).unwrap_or((oi, 0));
                if let Some(p) = self.open.get_mut(key) {
                    if let Some(a) = ev.get("arguments").and_then(Value::as_str) {
                        p.args = a.to_owned();
                    }
                    if let Some(n) = ev.get("name").and_then(Value::as_str) {
                        p.name = n.to_owned();
                    }
                    p.done = true;
                    done.push(key);
                    self.closed.push(key);
                }
            }
            "response.output_item.done" => {
                if let Some(item) = ev.get("item").filter(|i| i.get("type").and_then(Value::as_str) == Some("function_call")) {
                    let key = str_of(item, "id").and_then(|id| self.items.get(&id)).unwrap_or((oi, 0));
                    // The item is the whole call: it completes one still open, and one never
                    // opened (a stream resumed after its `output_item.added`) as well; one that
                    // `.arguments.done` completed already is not given twice.
                    if self.open.contains(key) || !self.closed.contains(&key) {
                        let p = self.open.entry(key);
                        p.id = str_of(item, "call_id").or(p.id.take());
                        p.name = str_of(item, "name").unwrap_or(std::mem::take(&mut p.name));
                        if let Some(a) = item.get("arguments").and_then(Value::as_str) {
                            p.args = a.to_owned();
                        }
                        if let Some(id) = str_of(item, "id") {
                            self.items.insert(id, key);
                        }
                        done.push(key);
                        self.closed.push(key);
                    }
                }
            }
            _ => {}
        }
    }

    fn push_anthropic(&mut self, ev: &Value, done: &mut Vec<(u64, u64)>) {
        let kind = ev.get("type").and_then(Value::as_str).unwrap_or("");
        let idx = ev.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "content_block_start" => {
                if let Some(b) = ev.get("content_block").filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use")) {
                    let p = self.open.entry((0, idx));
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
            "content_block_stop" if self.open.contains((0, idx)) => done.push((0, idx)),
            _ => {}
        }
    }

    fn push_bedrock(&mut self, ev: &Value, done: &mut Vec<(u64, u64)>) {
        // ConverseStream events, keyed by their event type as the AWS SDK yields them.
        if let Some(start) = ev.get("contentBlockStart") {
            let idx = start.get("contentBlockIndex").and_then(Value::as_u64).unwrap_or(0);
            if let Some(tu) = start.get("start").and_then(|s| s.get("toolUse")) {
                let p = self.open.entry((0, idx));
                p.id = str_of(tu, "toolUseId");
                p.name = str_of(tu, "name").unwrap_or_default();
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
            if self.open.contains((0, idx)) {
                done.push((0, idx));
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
            out.extend(push(&mut acc, &json!({"type":"content_block_stop","index":1}), None));
            assert_eq!(out.len(), 1);
            assert_eq!(out[0].id.as_deref(), Some("toolu_1"));
            assert_eq!(out[0].arguments["n"], 12);
        }
        // A tool with no arguments sends no deltas.
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        push(&mut acc, &json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_2","name":"t","input":{}}}), None);
        let out = push(&mut acc, &json!({"type":"content_block_stop","index":0}), None);
        assert_eq!(out[0].arguments, json!({}));
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
        assert!(acc.finish(None).is_empty());
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
        assert!(acc.finish(None).is_empty());
    }

    #[test]
    fn gemini_and_bedrock_streams() {
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let out = push(&mut acc, &json!({"candidates":[{"content":{"parts":[{"functionCall":{"name":"t","args":{"a":1},"id":"x"}}]}}]}), None);
        assert_eq!(out.len(), 1);
        let mut acc = Accumulator::new(CallFormat::Bedrock);
        let mut out = push(&mut acc, &json!({"contentBlockStart":{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"tu_1","name":"t"}}}}), None);
        for p in pieces(ARGS, 4) {
            out.extend(push(&mut acc, &json!({"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":p}}}}), None));
        }
        out.extend(push(&mut acc, &json!({"contentBlockStop":{"contentBlockIndex":0}}), None));
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
        assert_eq!(acc.finish(None)[0].error.as_ref().unwrap().code, "UNKNOWN_TOOL_NAME");
    }

    #[test]
    fn a_stream_event_that_is_not_an_object_is_invalid_input() {
        for format in [CallFormat::OpenAi, CallFormat::OpenAiResponses, CallFormat::Anthropic, CallFormat::Gemini, CallFormat::Bedrock] {
            let mut acc = Accumulator::new(format);
            for bad in [json!(42), Value::Null, json!(true), json!([]), json!([{"type":"content_block_stop","index":0}])] {
                assert_eq!(acc.push(&bad, None).unwrap_err().code, ErrorCode::InvalidInput, "{format:?} {bad}");
            }
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

    #[test]
    fn open_calls_complete_in_key_order() {
        // Calls opened out of order (choice 1 before choice 0, tool 2 before tool 0) come out
        // sorted by (choice, tool), as they did from a BTreeMap.
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        for (c, t) in [(1, 2), (0, 2), (1, 0), (0, 0), (0, 1), (0, 2)] {
            let id = format!("c{c}t{t}");
            push(&mut acc, &json!({"choices":[{"index":c,"delta":{"tool_calls":[{"index":t,"id":id,"function":{"name":"n","arguments":"{}"}}]}}]}), None);
        }
        let first = push(&mut acc, &json!({"choices":[{"index":1,"delta":{},"finish_reason":"tool_calls"}]}), None);
        assert_eq!(first.iter().map(|c| c.id.as_deref().unwrap()).collect::<Vec<_>>(), ["c1t0", "c1t2"]);
        let rest = acc.finish(None);
        assert_eq!(rest.iter().map(|c| c.id.as_deref().unwrap()).collect::<Vec<_>>(), ["c0t0", "c0t1", "c0t2"]);
        // A repeated tool index appends to the same call: `{}{}` is not JSON.
        assert_eq!(rest[2].error.as_ref().unwrap().code, "INVALID_ARGUMENTS");
        assert_eq!(acc.completed(), 5);
        // Responses: deltas find their call through the item id, whatever the output index says.
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        for (oi, id) in [(3, "fc_z"), (1, "fc_a"), (2, "fc_m")] {
            push(&mut acc, &json!({"type":"response.output_item.added","output_index":oi,"item":{"type":"function_call","id":id,"call_id":format!("call_{id}"),"name":"t","arguments":""}}), None);
        }
        for id in ["fc_m", "fc_z", "fc_a"] {
            push(&mut acc, &json!({"type":"response.function_call_arguments.delta","item_id":id,"delta":format!("{{\"id\":\"{id}\"}}")}), None);
        }
        let out = acc.finish(None);
        assert_eq!(out.iter().map(|c| c.arguments["id"].as_str().unwrap()).collect::<Vec<_>>(), ["fc_a", "fc_m", "fc_z"]);
    }

    #[test]
    fn a_cut_stream_yields_its_partial_call_with_an_error() {
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        push(&mut acc, &json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"t","arguments":"{\"a\":"}}]}}]}), None);
        let out = acc.finish(None);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].error.as_ref().unwrap().code, "INVALID_ARGUMENTS");
    }
}
