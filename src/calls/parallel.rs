//! OpenAI's parallel wrapper, leaked as a call: its models at times send one call named
//! `multi_tool_use.parallel` (Chat Completions; `parallel` on the Responses API) whose arguments
//! are `{"tool_uses": [{"recipient_name": "functions.NAME", "parameters": {...}}, ...]}`, the
//! wrapper ChatGPT's prompt declares for calling several tools at once, instead of one call per
//! tool. Each tool use is given as a call of its own, resolved and checked as any call, with the
//! wrapper's identity in [`Parallel`]: its results must go back in a way the API takes
//! ([`crate::results::tool_result_messages`] writes Responses' one output for the wrapper; the
//! Chat turn [`super::Accumulator::message`] gives lists the tool uses as calls of their own).
//!
//! * <https://community.openai.com/t/model-tries-to-call-unknown-function-multi-tool-use-parallel/490653>
//! * the wrapper as OpenAI declares it to the model (`recipient_name`: "the name of the tool,
//!   or in the format namespace.function_name"; `parameters`: an object):
//!   <https://community.openai.com/t/gpt-4-0125-preview-hallucinating-tool-calls/609610/2>
//! * the Responses spelling `parallel`: <https://github.com/vercel/ai/issues/19067>

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::{model_arguments, resolve, CallError, RawArgs, ToolCall};
use crate::error::ErrorCode;
use crate::model::{object, string};
use crate::naming::{without_model_namespace, NameMap, NameRule};

/// The wrapper's name on Chat Completions.
pub(super) const WRAPPER: &str = "multi_tool_use.parallel";

/// Its name on the Responses API.
const BARE: &str = "parallel";

/// The namespace the wrapper's prompt puts the developer's functions in.
const NAMESPACE: &str = "functions.";

/// The call a tool use was read from, on each call made of it. JSON form `{id, name, index,
/// count}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parallel {
    /// The wrapper call's id (`null` when it had none): the one the API knows.
    pub id: Option<String>,
    /// The wrapper's name as sent (`multi_tool_use.parallel`, `parallel`).
    pub name: String,
    /// This tool use's place in `tool_uses`.
    pub index: usize,
    /// How many tool uses the wrapper holds.
    pub count: usize,
}

impl Parallel {
    /// The JSON form.
    pub fn to_value(&self) -> Value {
        object([("id", self.id.clone().into()), ("name", string(&self.name)), ("index", self.index.into()), ("count", self.count.into())])
    }
}

/// The id of the `index`th tool use of the call `id`: `{id}_{index}`, as LiteLLM and the AI SDK
/// number them.
pub(super) fn use_id(id: Option<&str>, index: usize) -> Option<String> {
    id.map(|id| format!("{id}_{index}"))
}

/// The tool use's name as its call gives it: `recipient_name` without the `functions.` namespace
/// (a name with a dot is refused in a Chat history).
pub(super) fn recipient(name: &str) -> &str {
    name.strip_prefix(NAMESPACE).unwrap_or(name)
}

/// The wrapper's `tool_uses`, when the call `name` with the arguments `args` is the wrapper:
/// `multi_tool_use.parallel` always (`Err`: why its arguments hold no tool uses), `parallel` when
/// its arguments are `{tool_uses: [...]}` and nothing else (a tool of that name with other
/// arguments is a tool).
fn tool_uses(name: &str, args: &RawArgs, bare: bool) -> Option<Result<Vec<Value>, CallError>> {
    let wrapper = match name {
        WRAPPER => true,
        BARE if bare => false,
        _ => return None,
    };
    let args = match model_arguments(name, args.clone()) {
        Ok(v) => v,
        Err(e) if wrapper => return Some(Err(CallError { code: e.code.as_str(), message: e.message })),
        Err(_) => return None,
    };
    let Value::Object(mut o) = args else { return None };
    match o.remove("tool_uses") {
        Some(Value::Array(uses)) if !uses.is_empty() && (wrapper || o.is_empty()) => Some(Ok(uses)),
        _ if !wrapper => None,
        other => {
            let got = match &other {
                None => "none".to_owned(),
                Some(Value::Array(_)) => "an empty array".to_owned(),
                Some(v) => crate::model::json_type(v).to_owned(),
            };
            Some(Err(CallError {
                code: ErrorCode::InvalidArguments.as_str(),
                message: format!("arguments of \"{name}\" (OpenAI's wrapper of parallel calls) must hold tool_uses, a non-empty array, got {got}"),
            }))
        }
    }
}

/// A call that cannot be made: no server, no arguments, the error.
fn failed(id: Option<String>, name: &str, error: CallError) -> ToolCall {
    ToolCall { id, provider_name: name.to_owned(), server: None, tool: name.to_owned(), arguments: Value::Null, error: Some(error), thought_signature: None, parallel: None, custom: false, namespace: None }
}

/// The calls the wrapper call `name` (of id `id`, arguments `args`) stands for, one per tool use,
/// each resolved through `map` as any call, or `None` when it is no wrapper. A wrapper whose
/// arguments hold no tool uses is one call with the error `INVALID_ARGUMENTS`; a tool use that is
/// not an object, or has no `recipient_name`, is a call with an error of its own.
pub(super) fn expand(id: Option<&str>, name: &str, args: &RawArgs, map: Option<&NameMap>, bare: bool) -> Option<Vec<ToolCall>> {
    // A tool of the map named `parallel` is that tool, whatever its arguments.
    if name == BARE && map.is_some_and(|m| m.resolve(BARE).is_ok()) {
        return None;
    }
    let uses = match tool_uses(name, args, bare)? {
        Ok(uses) => uses,
        Err(e) => return Some(vec![failed(id.map(str::to_owned), name, e)]),
    };
    let count = uses.len();
    let calls = uses
        .into_iter()
        .enumerate()
        .map(|(index, tool_use)| {
            let parallel = Parallel { id: id.map(str::to_owned), name: name.to_owned(), index, count };
            let call_id = use_id(id, index);
            let fail = |code: ErrorCode, message: String| failed(call_id.clone(), "", CallError { code: code.as_str(), message });
            let mut call = match tool_use {
                Value::Object(mut o) => match o.remove("recipient_name") {
                    Some(Value::String(r)) if !recipient(&r).is_empty() => {
                        let raw = match o.remove("parameters") {
                            Some(Value::String(text)) => RawArgs::Text(text),
                            Some(v) => RawArgs::Json(v),
                            None => RawArgs::Json(Value::Null),
                        };
                        resolve(call_id, recipient(&r).to_owned(), raw, map)
                    }
                    _ => fail(ErrorCode::UnknownToolName, format!("tool_uses[{index}] of \"{name}\" has no recipient_name: no tool to call")),
                },
                other => fail(ErrorCode::InvalidArguments, format!("tool_uses[{index}] of \"{name}\" must be an object, got {}", crate::model::json_type(&other))),
            };
            call.parallel = Some(parallel);
            call
        })
        .collect();
    Some(calls)
}

/// The calls of a Chat turn's `tool_calls` as sent back: a wrapper (`multi_tool_use.parallel`)
/// whose tool uses [`expand`] makes calls of is replaced by them, each `{id: "{id}_{index}",
/// type: "function", function: {name, arguments}}` (arguments as the wrapper's are: text, or
/// objects from Ollama's own API), as Chat Completions refuses the wrapper's name in a history
/// (`'messages[1].tool_calls[0].function.name': string does not match pattern`), and answers
/// each id with the result of its call. Other keys of the wrapper's call (Gemini's `extra_content`)
/// go on its first tool use's. Other calls as they are, but, when `chat_names`, a name Chat would
/// refuse there ([`turn_name`]): a wrapper without tool uses, a name in the model's namespace
/// (`functions.get_weather`), none. Without `chat_names` (Ollama's own `/api/chat`, which takes
/// any name and pairs a tool message with its call by `tool_name`, the name the model sent) every
/// name is as the model sent it, a tool use's as its call's `providerName` ([`recipient`]).
pub(super) fn chat_calls(calls: Vec<Value>, chat_names: bool) -> Vec<Value> {
    let kept = |c: &Value| match call_name(c) {
        None => true,
        Some(n) if chat_names => NameRule::Strict.accepts(n),
        Some(n) => n != WRAPPER,
    };
    if calls.iter().all(kept) {
        return calls;
    }
    let mut out = Vec::with_capacity(calls.len());
    for mut call in calls {
        let f = call.get("function");
        let name = f.and_then(|f| f.get("name")).and_then(Value::as_str).unwrap_or_default();
        let (args, text) = match f.and_then(|f| f.get("arguments")) {
            Some(Value::String(t)) => (RawArgs::Text(t.clone()), true),
            Some(v) => (RawArgs::Json(v.clone()), false),
            None => (RawArgs::Json(Value::Null), true),
        };
        let Some(Ok(uses)) = tool_uses(name, &args, false) else {
            // Under the same id, which its result answers.
            if let (true, Some(slot)) = (chat_names, call_name_mut(&mut call)) {
                if let Cow::Owned(name) = turn_name(slot) {
                    *slot = name;
                }
            }
            out.push(call);
            continue;
        };
        let id = call.get("id").and_then(Value::as_str);
        for (index, tool_use) in uses.into_iter().enumerate() {
            let r = tool_use.get("recipient_name").and_then(Value::as_str).map(recipient).unwrap_or_default();
            let r = if chat_names { history_name(r) } else { r.to_owned() };
            let parameters = match tool_use.get("parameters") {
                None | Some(Value::Null) => Value::Object(Map::new()),
                Some(p) => p.clone(),
            };
            let arguments = match parameters {
                Value::String(s) if text => Value::String(s),
                p if text => Value::String(crate::text::to_string(&p)),
                p => p,
            };
            let mut c = Map::new();
            if let Some(id) = use_id(id, index) {
                c.insert("id".into(), Value::String(id));
            }
            c.insert("type".into(), string("function"));
            c.insert("function".into(), object([("name", string(&r)), ("arguments", arguments)]));
            if index == 0 {
                for (k, v) in call.as_object().into_iter().flatten() {
                    if !matches!(k.as_str(), "id" | "type" | "function") {
                        c.insert(k.clone(), v.clone());
                    }
                }
            }
            out.push(Value::Object(c));
        }
    }
    out
}

/// The name of a Chat turn's call: a function's, or a custom tool's (empty when it has none).
fn call_name(call: &Value) -> Option<&str> {
    let o = call.get("function").or_else(|| call.get("custom"))?;
    Some(o.get("name").and_then(Value::as_str).unwrap_or_default())
}

/// [`call_name`], to change it (one without a name given an empty one).
fn call_name_mut(call: &mut Value) -> Option<&mut String> {
    let o = match call.get("function") {
        Some(_) => call.get_mut("function"),
        None => call.get_mut("custom"),
    }?;
    let o = o.as_object_mut()?;
    let name = o.entry("name").or_insert_with(|| Value::String(String::new()));
    if !name.is_string() {
        *name = Value::String(String::new());
    }
    match name {
        Value::String(name) => Some(name),
        _ => None,
    }
}

/// A call's name as the turn gives it: as sent, unless Chat Completions would refuse it in a
/// history; then without the model's namespace (`functions.get_weather` is `get_weather`, the name
/// a map resolves it to), and as [`history_name`] makes a tool use's (the wrapper itself,
/// `multi_tool_use_parallel`).
pub(super) fn turn_name(name: &str) -> Cow<'_, str> {
    if NameRule::Strict.accepts(name) {
        return Cow::Borrowed(name);
    }
    Cow::Owned(history_name(without_model_namespace(name).filter(|n| !n.is_empty()).unwrap_or(name)))
}

/// A tool use's name as the turn gives it: Chat Completions refuses a history whose names are
/// not `^[a-zA-Z0-9_-]{1,64}$`, which a tool use's name need not be (a recipient in another
/// namespace, `functions.ns.search`; none at all). Its call, an error the app answers under the
/// same id, stands in the turn under the name with every other character as `_`, cut at 64
/// (`unnamed_tool` for none).
fn history_name(name: &str) -> String {
    if name.is_empty() {
        return "unnamed_tool".to_owned();
    }
    let mut name = crate::naming::sanitize(name, crate::naming::NameRule::Strict);
    // ASCII once sanitised.
    name.truncate(crate::naming::MAX_NAME_LEN);
    name
}

#[cfg(test)]
mod tests {
    use super::super::{parse_tool_calls, Accumulator, CallFormat, ToolCall};
    use crate::naming::{NameMap, NameRule, NamingOptions};
    use serde_json::{json, Value};

    fn map() -> NameMap {
        NameMap::build(&[(Some("gh"), "create_issue"), (Some("gh"), "search")], &NamingOptions::default(), NameRule::Strict).0
    }

    /// A Chat completion whose one call is `name` with the arguments `args` (a JSON value, sent
    /// as its text).
    fn chat(name: &str, args: &Value) -> Value {
        json!({"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[
            {"id":"call_w","type":"function","function":{"name":name,"arguments":crate::text::to_string(args)}}
        ]}}]})
    }

    fn error(c: &ToolCall) -> Option<(&str, &str)> {
        c.error.as_ref().map(|e| (e.code, e.message.as_str()))
    }

    fn marker(c: &ToolCall) -> Value {
        c.parallel.as_ref().map_or(Value::Null, super::Parallel::to_value)
    }

    /// The shape of the community report (Chat, `functions.` recipients), beside a call of its
    /// own: each tool use is a call, resolved and numbered after the wrapper; the other call is
    /// as it was.
    #[test]
    fn a_chat_wrapper_is_one_call_per_tool_use_resolved_through_the_map() {
        let resp = json!({"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[
            {"id":"call_w","type":"function","function":{"name":"multi_tool_use.parallel","arguments":"{\"tool_uses\":[{\"recipient_name\":\"functions.mcp__gh__create_issue\",\"parameters\":{\"title\":\"a\"}},{\"recipient_name\":\"mcp__gh__search\",\"parameters\":{\"q\":\"b\"}}]}"}},
            {"id":"call_n","type":"function","function":{"name":"mcp__gh__search","arguments":"{\"q\":\"c\"}"}}
        ]}}]});
        let calls = parse_tool_calls(&resp, CallFormat::OpenAi, Some(&map())).unwrap();
        let seen: Vec<_> = calls.iter().map(|c| (c.id.as_deref(), c.provider_name.as_str(), c.server.as_deref(), c.tool.as_str(), c.arguments.clone(), error(c))).collect();
        assert_eq!(
            seen,
            [
                (Some("call_w_0"), "mcp__gh__create_issue", Some("gh"), "create_issue", json!({"title":"a"}), None),
                (Some("call_w_1"), "mcp__gh__search", Some("gh"), "search", json!({"q":"b"}), None),
                (Some("call_n"), "mcp__gh__search", Some("gh"), "search", json!({"q":"c"}), None),
            ]
        );
        assert_eq!(marker(&calls[0]), json!({"id":"call_w","name":"multi_tool_use.parallel","index":0,"count":2}));
        assert_eq!(marker(&calls[1]), json!({"id":"call_w","name":"multi_tool_use.parallel","index":1,"count":2}));
        assert_eq!(calls[2].parallel, None);
        assert_eq!(calls[2].to_value().get("parallel"), None);
        // Without a name map: the tool is the name the model called.
        let calls = parse_tool_calls(&resp, CallFormat::OpenAi, None).unwrap();
        assert_eq!((calls[0].tool.as_str(), calls[0].server.as_deref()), ("mcp__gh__create_issue", None));
        // Ollama (its OpenAI-compatible answers, and its own): the same.
        assert_eq!(parse_tool_calls(&resp, CallFormat::Ollama, Some(&map())).unwrap().len(), 3);
    }

    /// Responses spells it `parallel` (vercel/ai#19067, its fixture): the tool uses are calls, the
    /// wrapper's `call_id` in their marker. A response cut short cuts each short.
    #[test]
    fn a_responses_wrapper_is_expanded_and_cut_short_with_its_response() {
        let item = json!({"type":"function_call","id":"fc_parallel","call_id":"call_parallel","name":"parallel","status":"completed",
            "arguments":"{\"tool_uses\":[{\"recipient_name\":\"functions.mcp__gh__search\",\"parameters\":{\"q\":\"San Francisco\"}},{\"recipient_name\":\"functions.mcp__gh__create_issue\",\"parameters\":{\"title\":\"Rome\"}}]}"});
        let resp = json!({"id":"resp_parallel","object":"response","status":"completed","output":[item]});
        let calls = parse_tool_calls(&resp, CallFormat::OpenAiResponses, Some(&map())).unwrap();
        assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.tool.as_str(), error(c))).collect::<Vec<_>>(), [(Some("call_parallel_0"), "search", None), (Some("call_parallel_1"), "create_issue", None)]);
        assert_eq!(marker(&calls[1]), json!({"id":"call_parallel","name":"parallel","index":1,"count":2}));
        let mut cut = item.clone();
        cut["status"] = json!("in_progress");
        let resp = json!({"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[cut]});
        for c in parse_tool_calls(&resp, CallFormat::OpenAiResponses, Some(&map())).unwrap() {
            assert_eq!(error(&c).map(|e| e.0), Some("INVALID_ARGUMENTS"));
            assert!(c.parallel.is_some());
        }
        // A tool of the user's named `parallel`, with other arguments, is that tool.
        let own = json!({"type":"function_call","call_id":"c","name":"parallel","arguments":"{\"jobs\":2}"});
        let calls = parse_tool_calls(&own, CallFormat::OpenAiResponses, None).unwrap();
        assert_eq!((calls.len(), calls[0].tool.as_str(), calls[0].parallel.is_none()), (1, "parallel", true));
        let mixed = json!({"type":"function_call","call_id":"c","name":"parallel","arguments":"{\"tool_uses\":[{\"recipient_name\":\"t\"}],\"jobs\":2}"});
        assert_eq!(parse_tool_calls(&mixed, CallFormat::OpenAiResponses, None).unwrap()[0].arguments, json!({"tool_uses":[{"recipient_name":"t"}],"jobs":2}));
        // One the name map knows is that tool, even with the wrapper's arguments.
        let named = NameMap::build(&[(None, "parallel"), (None, "t")], &NamingOptions { format: Some(crate::naming::NameFormat::Bare), ..NamingOptions::default() }, NameRule::Strict).0;
        let only = json!({"type":"function_call","call_id":"c","name":"parallel","arguments":"{\"tool_uses\":[{\"recipient_name\":\"t\"}]}"});
        let calls = parse_tool_calls(&only, CallFormat::OpenAiResponses, Some(&named)).unwrap();
        assert_eq!((calls.len(), calls[0].tool.as_str(), calls[0].parallel.is_none()), (1, "parallel", true));
        assert!(parse_tool_calls(&only, CallFormat::OpenAiResponses, Some(&map())).unwrap()[0].parallel.is_some(), "expanded otherwise");
    }

    /// What the tool uses may hold: `parameters` as text (read as the arguments' text is),
    /// none (`{}`), a recipient without the namespace. A bad tool use is a call with its error,
    /// in its place, never dropped; a wrapper with no tool uses is one call with its error, under
    /// the wrapper's id (which the API then wants answered).
    #[test]
    fn bad_tool_uses_are_calls_with_their_errors_and_a_bad_wrapper_is_one() {
        let uses = json!({"tool_uses":[
            {"recipient_name":"functions.mcp__gh__search","parameters":"{\"q\":\"text\"}"},
            {"recipient_name":"mcp__gh__search"},
            {"recipient_name":"functions.mcp__gh__delete_repo","parameters":{}},
            {"parameters":{"q":"x"}},
            "functions.mcp__gh__search",
            {"recipient_name":"functions.mcp__gh__search","parameters":["q"]},
            {"recipient_name":"functions.mcp__gh__search","parameters":"{\"q\":"}
        ]});
        let calls = parse_tool_calls(&chat("multi_tool_use.parallel", &uses), CallFormat::OpenAi, Some(&map())).unwrap();
        assert_eq!(calls.len(), 7);
        assert!(calls.iter().enumerate().all(|(i, c)| c.id == Some(format!("call_w_{i}")) && c.parallel.as_ref().is_some_and(|p| p.index == i && p.count == 7)));
        assert_eq!((calls[0].arguments.clone(), error(&calls[0])), (json!({"q":"text"}), None));
        assert_eq!((calls[1].arguments.clone(), error(&calls[1])), (json!({}), None));
        let codes: Vec<_> = calls.iter().map(|c| error(c).map(|e| e.0)).collect();
        assert_eq!(codes, [None, None, Some("UNKNOWN_TOOL_NAME"), Some("UNKNOWN_TOOL_NAME"), Some("INVALID_ARGUMENTS"), Some("INVALID_ARGUMENTS"), Some("INVALID_ARGUMENTS")]);
        assert_eq!(calls[3].provider_name, "");
        assert_eq!(error(&calls[3]).unwrap().1, "tool_uses[3] of \"multi_tool_use.parallel\" has no recipient_name: no tool to call");
        assert_eq!(error(&calls[4]).unwrap().1, "tool_uses[4] of \"multi_tool_use.parallel\" must be an object, got string");
        assert_eq!(error(&calls[5]).unwrap().1, "arguments of \"mcp__gh__search\" must be a JSON object, got array");
        assert!(calls[2..].iter().all(|c| c.arguments.is_null()));
        for (args, why) in [
            (json!({"tool_uses":{"recipient_name":"t"}}), "got object"),
            (json!({"tool_uses":[]}), "got an empty array"),
            (json!({}), "got none"),
        ] {
            let calls = parse_tool_calls(&chat("multi_tool_use.parallel", &args), CallFormat::OpenAi, Some(&map())).unwrap();
            assert_eq!(calls.len(), 1);
            let c = &calls[0];
            assert_eq!((c.id.as_deref(), c.provider_name.as_str(), c.parallel.is_none(), c.arguments.is_null()), (Some("call_w"), "multi_tool_use.parallel", true, true));
            let (code, message) = error(c).unwrap();
            assert_eq!(code, "INVALID_ARGUMENTS");
            assert!(message.ends_with(why), "{message}");
        }
        let resp = json!({"choices":[{"message":{"tool_calls":[{"id":"call_w","function":{"name":"multi_tool_use.parallel","arguments":"{\"tool_uses\":["}}]}}]});
        let calls = parse_tool_calls(&resp, CallFormat::OpenAi, None).unwrap();
        assert_eq!((calls.len(), error(&calls[0]).map(|e| e.0)), (1, Some("INVALID_ARGUMENTS")));
        // Only OpenAI's formats have the wrapper: elsewhere it is a call of that name.
        let block = json!({"type":"tool_use","id":"toolu_1","name":"multi_tool_use.parallel","input":uses});
        let calls = parse_tool_calls(&block, CallFormat::Anthropic, Some(&map())).unwrap();
        assert_eq!((calls.len(), error(&calls[0]).map(|e| e.0)), (1, Some("UNKNOWN_TOOL_NAME")));
    }

    fn chat_chunk(delta: Value, finish: Option<&str>) -> Value {
        json!({"choices":[{"index":0,"delta":delta,"finish_reason":finish}]})
    }

    /// Streamed, the wrapper's calls come when it ends; the turn lists them in its place, as
    /// calls of their own (Chat refuses the wrapper's name sent back), each id answered by its
    /// call's result.
    #[test]
    fn a_streamed_chat_wrapper_gives_its_calls_and_the_turn_lists_them() {
        let args = r#"{"tool_uses":[{"recipient_name":"functions.mcp__gh__search","parameters":{"q":"a"}},{"recipient_name":"functions.mcp__gh__create_issue","parameters":"{\"title\":\"b\"}"}]}"#;
        let (head, tail) = args.split_at(40);
        let events = [
            chat_chunk(json!({"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_w","type":"function","function":{"name":"multi_tool_use.parallel","arguments":""}}]}), None),
            chat_chunk(json!({"tool_calls":[{"index":0,"function":{"arguments":head}}]}), None),
            chat_chunk(json!({"tool_calls":[{"index":0,"function":{"arguments":tail}}]}), None),
            chat_chunk(json!({"tool_calls":[{"index":1,"id":"call_n","type":"function","function":{"name":"mcp__gh__search","arguments":"{\"q\":\"c\"}"}}]}), None),
            chat_chunk(json!({}), Some("tool_calls")),
        ];
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let mut calls = Vec::new();
        for e in &events {
            calls.extend(acc.push(e, Some(&map())).unwrap());
        }
        calls.extend(acc.finish(Some(&map())).unwrap());
        assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.tool.as_str(), c.arguments.clone())).collect::<Vec<_>>(), [
            (Some("call_w_0"), "search", json!({"q":"a"})),
            (Some("call_w_1"), "create_issue", json!({"title":"b"})),
            (Some("call_n"), "search", json!({"q":"c"})),
        ]);
        assert_eq!(acc.completed(), 2);
        assert_eq!(acc.message().unwrap(), json!({"role":"assistant","content":null,"tool_calls":[
            {"id":"call_w_0","type":"function","function":{"name":"mcp__gh__search","arguments":"{\"q\":\"a\"}"}},
            {"id":"call_w_1","type":"function","function":{"name":"mcp__gh__create_issue","arguments":"{\"title\":\"b\"}"}},
            {"id":"call_n","type":"function","function":{"name":"mcp__gh__search","arguments":"{\"q\":\"c\"}"}}
        ]}));
        // A whole completion pushed gives the same turn: the way to it for a response not streamed.
        let whole = chat("multi_tool_use.parallel", &serde_json::from_str(args).unwrap());
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        assert_eq!(acc.push(&whole, None).unwrap().len(), 2);
        assert_eq!(acc.message().unwrap()["tool_calls"][1]["id"], "call_w_1");
        // Other keys of the wrapper's call go on its first tool use's.
        let mut extra = chat("multi_tool_use.parallel", &serde_json::from_str(args).unwrap());
        extra["choices"][0]["message"]["tool_calls"][0]["extra_content"] = json!({"google":{"thought_signature":"sig"}});
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        acc.push(&extra, None).unwrap();
        let turn = acc.message().unwrap();
        assert_eq!((turn["tool_calls"][0]["extra_content"].clone(), turn["tool_calls"][1].get("extra_content")), (json!({"google":{"thought_signature":"sig"}}), None));
        // Spelt `parallel` (as Responses does, never Chat), a call of a tool of that name: calls
        // and turn agree, whatever the name map (which the turn does not see).
        let bare = chat("parallel", &serde_json::from_str(args).unwrap());
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let ids: Vec<_> = acc.push(&bare, None).unwrap().into_iter().map(|c| c.id).collect();
        let turn: Vec<_> = acc.message().unwrap()["tool_calls"].as_array().unwrap().iter().map(|c| c["id"].as_str().map(str::to_owned)).collect();
        assert_eq!((ids.clone(), turn), (vec![Some("call_w".to_owned())], ids));
        // A wrapper without tool uses stays in the turn under its id (its call is an error), with
        // a name Chat takes.
        let bad = chat("multi_tool_use.parallel", &json!({"tool_uses":[]}));
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        acc.push(&bad, None).unwrap();
        assert_eq!(acc.message().unwrap()["tool_calls"][0]["function"]["name"], "multi_tool_use_parallel");
        // Tool uses whose names Chat would refuse in a history (none, another namespace): their
        // calls are errors, listed in the turn under their ids with a name it takes.
        let odd = chat("multi_tool_use.parallel", &json!({"tool_uses":[{"parameters":{}},{"recipient_name":"functions.ns.search","parameters":{}}]}));
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let calls = acc.push(&odd, Some(&map())).unwrap();
        assert!(calls.iter().all(|c| c.error.is_some()));
        let turn = acc.message().unwrap();
        let listed: Vec<(&str, &str)> = turn["tool_calls"].as_array().unwrap().iter().map(|c| (c["id"].as_str().unwrap(), c["function"]["name"].as_str().unwrap())).collect();
        assert_eq!(listed, [("call_w_0", "unnamed_tool"), ("call_w_1", "ns_search")]);
        assert_eq!(calls.iter().map(|c| c.id.as_deref().unwrap()).collect::<Vec<_>>(), ["call_w_0", "call_w_1"]);
    }

    /// Ollama's own API takes any name in a history, and its tool message answers a call by the
    /// name the model sent (`tool_name`): the turn keeps every name as sent, a tool use's as its
    /// call's `providerName`; a wrapper is still listed as its tool uses, each answered apart.
    #[test]
    fn an_ollama_turn_keeps_the_names_the_model_sent() {
        let wrapper = json!({"tool_uses":[{"recipient_name":"functions.ns.search","parameters":{"q":"a"}},{"recipient_name":"functions.mcp__gh__create_issue"}]});
        let line = json!({"model":"m","message":{"role":"assistant","content":"","tool_calls":[
            {"function":{"arguments":{"q":"x"}}},
            {"function":{"name":"functions.mcp__gh__search","arguments":{}}},
            {"function":{"name":"get weather","arguments":{}}},
            {"function":{"name":"multi_tool_use.parallel","arguments":wrapper}},
            {"function":{"name":"multi_tool_use.parallel","arguments":{"tool_uses":[]}}}
        ]},"done":true});
        let mut acc = Accumulator::new(CallFormat::Ollama);
        let calls = acc.push(&line, Some(&map())).unwrap();
        let seen: Vec<_> = calls.iter().map(|c| (c.id.as_deref().unwrap(), c.provider_name.as_str(), error(c).map(|e| e.0))).collect();
        assert_eq!(seen, [
            ("call_0", "", Some("UNKNOWN_TOOL_NAME")),
            ("call_1", "functions.mcp__gh__search", None),
            ("call_2", "get weather", Some("UNKNOWN_TOOL_NAME")),
            ("call_3_0", "ns.search", Some("UNKNOWN_TOOL_NAME")),
            ("call_3_1", "mcp__gh__create_issue", None),
            ("call_4", "multi_tool_use.parallel", Some("INVALID_ARGUMENTS")),
        ]);
        assert_eq!(acc.message().unwrap()["tool_calls"], json!([
            {"id":"call_0","type":"function","function":{"arguments":{"q":"x"},"name":""}},
            {"id":"call_1","type":"function","function":{"name":"functions.mcp__gh__search","arguments":{}}},
            {"id":"call_2","type":"function","function":{"name":"get weather","arguments":{}}},
            {"id":"call_3_0","type":"function","function":{"name":"ns.search","arguments":{"q":"a"}}},
            {"id":"call_3_1","type":"function","function":{"name":"mcp__gh__create_issue","arguments":{}}},
            {"id":"call_4","type":"function","function":{"name":"multi_tool_use.parallel","arguments":{"tool_uses":[]}}}
        ]));
        // A turn without a wrapper is as it came.
        let plain = json!({"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"functions.mcp__gh__search","arguments":{}}}]},"done":true});
        let mut acc = Accumulator::new(CallFormat::Ollama);
        acc.push(&plain, Some(&map())).unwrap();
        assert_eq!(acc.message().unwrap()["tool_calls"][0]["function"], plain["message"]["tool_calls"][0]["function"]);
    }

    /// Chat refuses a history whose call names are not `^[a-zA-Z0-9_-]{1,64}$`: a call named in
    /// the model's namespace, or a wrapper left without tool uses (cut short, or `tool_uses: []`),
    /// is listed under its id, which the app answers, with a name Chat takes; other calls as sent.
    #[test]
    fn a_chat_turn_lists_every_call_under_a_name_chat_takes() {
        let ok = r#"{"tool_uses":[{"recipient_name":"functions.mcp__gh__search","parameters":{"q":"a"}}]}"#;
        let events = [
            chat_chunk(json!({"role":"assistant","content":null,"tool_calls":[
                {"index":0,"id":"call_1","type":"function","function":{"name":"functions.mcp__gh__search","arguments":"{\"q\":\"x\"}"}},
                {"index":1,"id":"call_2","type":"function","function":{"name":"mcp__gh__create_issue","arguments":"{}"}},
                {"index":2,"id":"call_3","type":"function","function":{"name":"default_api:mcp__gh__search","arguments":"{}"}},
                {"index":3,"id":"call_4","type":"function","function":{"name":"functions.","arguments":"{}"}},
                {"index":4,"id":"call_W","type":"function","function":{"name":"multi_tool_use.parallel","arguments":&ok[..40]}}
            ]}), None),
            chat_chunk(json!({}), Some("length")),
        ];
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let mut calls = Vec::new();
        for e in &events {
            calls.extend(acc.push(e, Some(&map())).unwrap());
        }
        calls.extend(acc.finish(Some(&map())).unwrap());
        let seen: Vec<_> = calls.iter().map(|c| (c.id.as_deref().unwrap(), c.tool.as_str(), error(c).map(|e| e.0))).collect();
        assert_eq!(seen, [
            ("call_1", "search", None),
            ("call_2", "create_issue", None),
            ("call_3", "search", None),
            ("call_4", "functions.", Some("UNKNOWN_TOOL_NAME")),
            ("call_W", "multi_tool_use.parallel", Some("INVALID_ARGUMENTS")),
        ]);
        let turn = acc.message().unwrap();
        let listed: Vec<(&str, &str)> = turn["tool_calls"].as_array().unwrap().iter().map(|c| (c["id"].as_str().unwrap(), c["function"]["name"].as_str().unwrap())).collect();
        assert_eq!(listed, [
            ("call_1", "mcp__gh__search"),
            ("call_2", "mcp__gh__create_issue"),
            ("call_3", "mcp__gh__search"),
            ("call_4", "functions_"),
            ("call_W", "multi_tool_use_parallel"),
        ]);
        assert_eq!(turn["tool_calls"][0]["function"]["arguments"], "{\"q\":\"x\"}", "arguments as sent");
        // The wrapper cut short is no JSON: `{}`, which a history takes (the call was refused).
        assert_eq!(turn["tool_calls"][4]["function"]["arguments"], "{}");
        // A custom tool's call too; a turn whose names Chat takes is as it came.
        let custom = json!({"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[
            {"id":"call_c","type":"custom","custom":{"name":"functions.patch","input":"x"}}
        ]}}]});
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        acc.push(&custom, None).unwrap();
        assert_eq!(acc.message().unwrap()["tool_calls"][0]["custom"], json!({"name":"patch","input":"x"}));
        // Chat's OpenAI-compatible stream, read as `openai`: a call without a name (an error) is
        // listed with one.
        let chunk = chat_chunk(json!({"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_0","type":"function","function":{"arguments":"{}"}}]}), Some("tool_calls"));
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        let calls = acc.push(&chunk, Some(&map())).unwrap();
        assert_eq!(error(&calls[0]).map(|e| e.0), Some("UNKNOWN_TOOL_NAME"));
        assert_eq!(acc.message().unwrap()["tool_calls"][0]["function"], json!({"arguments":"{}","name":"unnamed_tool"}));
        let plain = chat("mcp__gh__search", &json!({"q":"a"}));
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        acc.push(&plain, None).unwrap();
        assert_eq!(acc.message().unwrap()["tool_calls"], plain["choices"][0]["message"]["tool_calls"]);
    }

    /// Responses: the calls of the wrapper, the turn's item as it came (the API knows it, and
    /// takes one output for it).
    #[test]
    fn a_streamed_responses_wrapper_gives_its_calls_and_keeps_its_item() {
        let args = r#"{"tool_uses":[{"recipient_name":"functions.mcp__gh__search","parameters":{"q":"a"}},{"recipient_name":"functions.mcp__gh__create_issue","parameters":{"title":"b"}}]}"#;
        let item = json!({"type":"function_call","id":"fc_parallel","call_id":"call_parallel","name":"parallel","arguments":args,"status":"completed"});
        let mut added = item.clone();
        added["arguments"] = json!("");
        added["status"] = json!("in_progress");
        let events = [
            json!({"type":"response.output_item.added","output_index":0,"item":added}),
            json!({"type":"response.function_call_arguments.delta","item_id":"fc_parallel","output_index":0,"delta":args}),
            json!({"type":"response.function_call_arguments.done","item_id":"fc_parallel","output_index":0,"arguments":args}),
            json!({"type":"response.output_item.done","output_index":0,"item":item}),
        ];
        let mut acc = Accumulator::new(CallFormat::OpenAiResponses);
        let mut calls: Vec<ToolCall> = events.iter().flat_map(|e| acc.push(e, Some(&map())).unwrap()).collect();
        calls.extend(acc.finish(Some(&map())).unwrap());
        assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.tool.as_str())).collect::<Vec<_>>(), [(Some("call_parallel_0"), "search"), (Some("call_parallel_1"), "create_issue")]);
        assert_eq!(acc.message().unwrap(), json!([item]));
    }

    /// Ollama's own stream: ids made up as for its other calls (`call_{n}`), then numbered per
    /// tool use; the turn lists them, arguments as objects.
    #[test]
    fn an_ollama_wrapper_is_expanded_in_its_calls_and_its_turn() {
        let line = json!({"model":"gpt-oss","message":{"role":"assistant","content":"","tool_calls":[
            {"function":{"name":"mcp__gh__search","arguments":{"q":"x"}}},
            {"function":{"name":"multi_tool_use.parallel","arguments":{"tool_uses":[{"recipient_name":"functions.mcp__gh__search","parameters":{"q":"a"}},{"recipient_name":"functions.mcp__gh__search","parameters":{"q":"b"}}]}}}
        ]},"done":false});
        let mut acc = Accumulator::new(CallFormat::Ollama);
        let calls = acc.push(&line, Some(&map())).unwrap();
        assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.arguments.clone())).collect::<Vec<_>>(), [
            (Some("call_0"), json!({"q":"x"})),
            (Some("call_1_0"), json!({"q":"a"})),
            (Some("call_1_1"), json!({"q":"b"})),
        ]);
        assert_eq!(acc.message().unwrap()["tool_calls"], json!([
            {"id":"call_0","type":"function","function":{"name":"mcp__gh__search","arguments":{"q":"x"}}},
            {"id":"call_1_0","type":"function","function":{"name":"mcp__gh__search","arguments":{"q":"a"}}},
            {"id":"call_1_1","type":"function","function":{"name":"mcp__gh__search","arguments":{"q":"b"}}}
        ]));
    }
}
