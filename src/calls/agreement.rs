//! The model's turn and the calls read from the same stream agree: every call the turn lists is a
//! call the accumulator gave, with the same id, name (Chat's as it takes names in a history) and
//! arguments, and it lists no other. The turn reads Chat, Ollama, Anthropic and Bedrock events
//! itself, beside the accumulator's readers
//! (`push_openai`, `push_anthropic`, `push_bedrock`, Ollama's); Responses' calls and Gemini's parts
//! it is given by the accumulator as it reads them. These tests hold both ways to it.

use serde_json::{json, Value};

use super::{model_arguments, Accumulator, CallFormat, RawArgs, ToolCall};
use crate::error::ErrorCode;

/// A call as the turn lists it: id, name, arguments (text as sent, or an object), and Gemini's
/// thought signature.
#[derive(Debug, Clone, PartialEq)]
struct Listed {
    id: Option<String>,
    name: String,
    args: Value,
    signature: Option<String>,
}

/// The text at `pointer`; an empty one is none (an id or a signature, as the accumulator reads them).
fn text(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer).and_then(Value::as_str).filter(|t| !t.is_empty()).map(str::to_owned)
}

/// The calls the turn lists, in its order.
fn listed(format: CallFormat, message: &Value) -> Vec<Listed> {
    let parts = match format {
        CallFormat::OpenAi | CallFormat::Ollama => message.get("tool_calls"),
        CallFormat::OpenAiResponses => Some(message),
        CallFormat::Anthropic | CallFormat::Bedrock => message.get("content"),
        CallFormat::Gemini => message.get("parts"),
    };
    let parts = parts.and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    let mut out = Vec::new();
    for p in parts {
        let call = |id: &str, name: &str, args: &str| Listed {
            id: text(p, id),
            name: text(p, name).unwrap_or_default(),
            args: p.pointer(args).cloned().unwrap_or(Value::Null),
            signature: None,
        };
        match format {
            CallFormat::OpenAi | CallFormat::Ollama => out.push(call("/id", "/function/name", "/function/arguments")),
            CallFormat::OpenAiResponses if p["type"] == "function_call" => out.push(call("/call_id", "/name", "/arguments")),
            CallFormat::Anthropic if p["type"] == "tool_use" => out.push(call("/id", "/name", "/input")),
            // A system tool's use (`type: "server_tool_use"`) is Bedrock's, no call.
            CallFormat::Bedrock if p.get("toolUse").is_some_and(|tu| tu["type"] != "server_tool_use") => out.push(call("/toolUse/toolUseId", "/toolUse/name", "/toolUse/input")),
            CallFormat::Gemini if p.get("functionCall").is_some() => {
                out.push(Listed { signature: text(p, "/thoughtSignature"), ..call("/functionCall/id", "/functionCall/name", "/functionCall/args") })
            }
            _ => {}
        }
    }
    out
}

/// Whether the turn's `listed` is the call the accumulator gave: its id, name, and arguments
/// (those the call could not read are what the turn says for them: text as sent, `{}` where the
/// provider wants an object, Gemini's arguments so far, the empty text of a call the stream was
/// cut right after).
fn same(format: CallFormat, call: &ToolCall, listed: &Listed) -> bool {
    // Chat's and Bedrock's turns give a name they refuse in a history as one they take (Ollama's,
    // as sent).
    let name = match format {
        CallFormat::OpenAi | CallFormat::Bedrock => super::parallel::turn_name(&call.provider_name),
        _ => call.provider_name.as_str().into(),
    };
    if call.id != listed.id || name != listed.name {
        return false;
    }
    if format == CallFormat::Gemini && call.thought_signature != listed.signature {
        return false;
    }
    let read = match &listed.args {
        Value::String(t) => model_arguments(&call.provider_name, RawArgs::Text(t.clone())),
        other => model_arguments(&call.provider_name, RawArgs::Json(other.clone())),
    };
    match (&call.error, read) {
        (None, Ok(args)) => args == call.arguments,
        (None, Err(_)) => false,
        // No name: the call has no arguments; the turn has what was sent.
        (Some(e), _) if e.code == ErrorCode::UnknownToolName.as_str() => true,
        (Some(_), Err(_)) => true,
        (Some(e), Ok(args)) => match format {
            // Arguments that were no JSON (cut short) are `{}` in the turn, which a history takes.
            CallFormat::Anthropic | CallFormat::Bedrock | CallFormat::OpenAi | CallFormat::Ollama => args == json!({}),
            CallFormat::Gemini => e.message.contains("incomplete"),
            // Cut right after it started: the turn has the empty text sent.
            _ => e.message.ends_with("the stream ended before any of them came") && args == json!({}),
        },
    }
}

/// Pushes `events` (then finishes) and checks that the turn lists exactly the calls given since
/// it began, each once; `Err` says how they differ.
fn agree(format: CallFormat, events: &[Value]) -> Result<(), String> {
    let mut acc = Accumulator::new(format);
    let mut calls = Vec::new();
    for e in events {
        // An event that begins the next turn's stream (a Gemini chunk with parts after the first
        // candidate's `finishReason`) starts the turn afresh: the calls given before are the last's.
        if acc.turn_edges(e).1 {
            calls.clear();
        }
        calls.extend(acc.push(e, None).map_err(|err| format!("{e}: {err}"))?);
    }
    calls.extend(acc.finish(None).unwrap());
    let message = acc.message().map_err(|e| e.to_string())?;
    let turn = listed(format, &message);
    // Each call with a listed one of its own (a matching, not the first that fits: a call whose
    // arguments could not be read fits more than one of several of the same id).
    let fits: Vec<Vec<usize>> = calls.iter().map(|c| (0..turn.len()).filter(|&j| same(format, c, &turn[j])).collect()).collect();
    let mut owner: Vec<Option<usize>> = vec![None; turn.len()];
    for i in 0..calls.len() {
        take(i, &fits, &mut owner, &mut vec![false; turn.len()]);
    }
    let unlisted: Vec<&ToolCall> = calls.iter().enumerate().filter(|(i, _)| !owner.contains(&Some(*i))).map(|(_, c)| c).collect();
    let left: Vec<&Listed> = turn.iter().zip(&owner).filter(|(_, o)| o.is_none()).map(|(l, _)| l).collect();
    if unlisted.is_empty() && left.is_empty() {
        return Ok(());
    }
    Err(format!("given but not in the turn: {unlisted:#?}\nin the turn but not given: {left:#?}\nturn: {message:#}"))
}

/// Gives call `i` a listed call it fits, moving others to ones they fit where need be (an
/// augmenting path); whether it has one.
fn take(i: usize, fits: &[Vec<usize>], owner: &mut [Option<usize>], seen: &mut [bool]) -> bool {
    for &j in &fits[i] {
        if !std::mem::replace(&mut seen[j], true) && owner[j].is_none_or(|k| take(k, fits, owner, seen)) {
            owner[j] = Some(i);
            return true;
        }
    }
    false
}

#[track_caller]
fn assert_agree(format: CallFormat, events: &[Value]) {
    if let Err(e) = agree(format, events) {
        panic!("{format:?}: {e}\nevents: {events:#?}");
    }
}

/// Pushes `events`; the turn.
fn turn_of(format: CallFormat, events: &[Value]) -> Value {
    let mut acc = Accumulator::new(format);
    for e in events {
        acc.push(e, None).unwrap();
    }
    acc.finish(None).unwrap();
    acc.message().unwrap()
}

/// An object of the entries whose value is not `None`.
fn object(entries: &[(&str, Option<Value>)]) -> Value {
    Value::Object(entries.iter().filter_map(|(k, v)| Some(((*k).to_owned(), v.clone()?))).collect())
}

#[test]
fn chat_a_call_after_a_finish_reason_is_another_call_in_the_turn_too() {
    // The accumulator ends a choice's calls at its `finish_reason`: a delta after it at the same
    // tool index is another call, which the turn listed as more of the first.
    let delta = |id: &str, args: &str| json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":id,"function":{"name":"t","arguments":args}}]}}]});
    let finish = json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]});
    let events = [delta("call_1", "{\"a\":1}"), finish.clone(), delta("call_2", "{\"a\":2}"), finish];
    assert_agree(CallFormat::OpenAi, &events);
    let ids: Vec<Value> = turn_of(CallFormat::OpenAi, &events)["tool_calls"].as_array().unwrap().iter().map(|c| c["id"].clone()).collect();
    assert_eq!(ids, [json!("call_1"), json!("call_2")]);
}

#[test]
fn chat_arguments_given_as_text_and_as_an_object_are_the_text_in_the_turn_too() {
    // The accumulator takes text arguments, once some came, over an object given besides.
    let delta = |args: Value| json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"t","arguments":args}}]}}]});
    for events in [[delta(json!("{\"a\":1}")), delta(json!({"b": 2}))], [delta(json!({"b": 2})), delta(json!(""))]] {
        assert_agree(CallFormat::OpenAi, &events);
    }
}

#[test]
fn ollama_a_call_without_function_is_in_the_turn_with_its_name() {
    // The accumulator reads a call's name and arguments from the call itself when it has no
    // `function` (as `parse_tool_calls` takes one); the turn had `function: null`.
    let events = [json!({"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"name":"t","arguments":{"a":1}}]},"done":false})];
    assert_agree(CallFormat::Ollama, &events);
    assert_eq!(turn_of(CallFormat::Ollama, &events)["tool_calls"][0]["function"], json!({"name":"t","arguments":{"a":1}}));
}

#[test]
fn anthropic_and_bedrock_blocks_started_again_keep_every_call_in_the_turn() {
    let start = |i: u64, block: Value| json!({"type":"content_block_start","index":i,"content_block":block});
    let tool = |id: &str| json!({"type":"tool_use","id":id,"name":"t","input":{}});
    let args = |i: u64, j: &str| json!({"type":"content_block_delta","index":i,"delta":{"type":"input_json_delta","partial_json":j}});
    let stop = |i: u64| json!({"type":"content_block_stop","index":i});
    let text = json!({"type":"text","text":""});
    for events in [
        // A block started where a call is still open: it ends the call, which the turn keeps
        // (the accumulator read on into the call, given by `finish`; the turn replaced it).
        vec![start(0, tool("toolu_1")), args(0, "{\"a\":1}"), start(0, text.clone())],
        // ... a call started there: the accumulator added its arguments to the first's.
        vec![start(0, tool("toolu_1")), args(0, "{\"a\":"), start(0, tool("toolu_2")), args(0, "{\"b\":2}"), stop(0)],
        // A block started at the index of a call stopped: the turn replaced the call.
        vec![start(0, tool("toolu_1")), stop(0), start(0, tool("toolu_2")), stop(0)],
        // Deltas after the stop are not the call's (the turn added them to its input).
        vec![start(0, tool("toolu_1")), args(0, "{\"a\":1}"), stop(0), args(0, "x")],
        // Empty JSON text is no input: the block's own stands (the turn read it as `{}`).
        vec![start(0, json!({"type":"tool_use","id":"toolu_1","name":"t","input":{"a":1}})), args(0, ""), stop(0)],
    ] {
        assert_agree(CallFormat::Anthropic, &events);
    }
    let (calls, turn) = {
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        let mut calls = Vec::new();
        for e in [start(0, tool("toolu_1")), args(0, "{\"a\":1}"), start(0, text)] {
            calls.extend(acc.push(&e, None).unwrap());
        }
        (calls, acc.message().unwrap())
    };
    assert_eq!((calls[0].id.as_deref(), &calls[0].arguments), (Some("toolu_1"), &json!({"a":1})), "ended by the block after it");
    assert_eq!(turn["content"], json!([{"type":"tool_use","id":"toolu_1","name":"t","input":{"a":1}}]), "the blank text block left out");

    let start = |i: u64, tool_use: Value| json!({"contentBlockStart":{"contentBlockIndex":i,"start":{"toolUse":tool_use}}});
    let delta = |i: u64, d: Value| json!({"contentBlockDelta":{"contentBlockIndex":i,"delta":d}});
    let stop = |i: u64| json!({"contentBlockStop":{"contentBlockIndex":i}});
    let tool = |id: &str| json!({"toolUseId":id,"name":"t"});
    for events in [
        // Input for a block that is no tool use: no call (the turn made one of the text block).
        vec![delta(0, json!({"text":"Hi"})), delta(0, json!({"toolUse":{"input":"{}"}}))],
        // An input given with the start and none streamed is the input (the accumulator had `{}`).
        vec![start(0, json!({"toolUseId":"tooluse_1","name":"t","input":{"a":1}})), stop(0)],
        vec![start(0, tool("tooluse_1")), delta(0, json!({"toolUse":{"input":"{}"}})), stop(0), start(0, tool("tooluse_2")), stop(0)],
        vec![start(0, tool("tooluse_1")), delta(0, json!({"toolUse":{"input":"{\"a\":1}"}})), stop(0), delta(0, json!({"toolUse":{"input":"x"}}))],
        vec![start(0, tool("tooluse_1")), start(0, tool("tooluse_2")), delta(0, json!({"toolUse":{"input":"{}"}}))],
    ] {
        assert_agree(CallFormat::Bedrock, &events);
    }
}

#[test]
fn responses_calls_in_the_turn_are_those_the_accumulator_finds() {
    let item = |call_id: Option<&str>, args: &str| {
        object(&[("type", Some(json!("function_call"))), ("id", Some(json!("fc_1"))), ("call_id", call_id.map(|c| json!(c))), ("name", Some(json!("t"))), ("arguments", Some(json!(args)))])
    };
    let added = |oi: u64, item: Value| json!({"type":"response.output_item.added","output_index":oi,"item":item});
    let done = |oi: u64, item: Value| json!({"type":"response.output_item.done","output_index":oi,"item":item});
    let delta = |at: Value, d: &str| {
        let mut e = json!({"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":d});
        if let Some(oi) = at.as_u64() {
            e["output_index"] = json!(oi);
        }
        e
    };
    let args_done = |args: &str, name: Value| json!({"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":1,"arguments":args,"name":name});
    let reasoning = json!({"type":"reasoning","id":"rs_1","summary":[]});
    for events in [
        // Deltas find their call by item id, whatever their output index says (the turn went by
        // the output index).
        vec![added(1, item(Some("call_1"), "")), delta(Value::Null, "{\"a\":1}")],
        vec![added(1, item(Some("call_1"), "")), delta(json!(3), "{\"a\":1}")],
        // `.arguments.done` names the call (the turn kept the name `.added` gave).
        vec![added(1, item(Some("call_1"), "")), args_done("{}", json!("u"))],
        // A delta after `.arguments.done` is no call's (the turn added it to the arguments).
        vec![added(1, item(Some("call_1"), "")), args_done("{}", Value::Null), delta(json!(1), "x")],
        // The done item without the call id `.added` gave: the call keeps it.
        vec![added(1, item(Some("call_1"), "")), done(1, item(None, "{}"))],
        // An item given again does not make the call again, nor change it.
        vec![added(1, item(Some("call_1"), "")), done(1, item(Some("call_1"), "{}")), added(1, item(Some("call_1"), "")), done(1, item(Some("call_2"), "{\"a\":1}"))],
        // Another item at a call's output index does not take its place; a call's takes another's.
        vec![done(1, item(Some("call_1"), "{}")), done(1, reasoning.clone())],
        vec![done(1, reasoning.clone()), done(1, item(Some("call_1"), "{}"))],
    ] {
        assert_agree(CallFormat::OpenAiResponses, &events);
    }
}

#[test]
fn gemini_calls_in_the_turn_are_those_the_accumulator_reads() {
    let chunk = |parts: Value| json!({"candidates":[{"index":0,"content":{"role":"model","parts":parts}}]});
    // A call streamed over parts, its first part with an empty id and signature and a later one
    // with both: the call has them (an empty one is none), the turn kept the empty ones.
    let events = [
        chunk(json!([{"functionCall":{"name":"t","id":"","willContinue":true},"thoughtSignature":""}])),
        chunk(json!([{"functionCall":{"id":"g1","partialArgs":[{"jsonPath":"$.a","stringValue":"x"}],"willContinue":true},"thoughtSignature":"c2ln"}])),
        chunk(json!([{"functionCall":{}}])),
    ];
    assert_agree(CallFormat::Gemini, &events);
    assert_eq!(turn_of(CallFormat::Gemini, &events)["parts"], json!([{"functionCall":{"name":"t","id":"g1","args":{"a":"x"}},"thoughtSignature":"c2ln"}]));
    // A candidate, a content, a part or a FunctionCall pushed alone: read for calls, and for the
    // turn, which read only responses.
    let call = json!({"name":"t","args":{"a":1}});
    for event in [
        json!({"content":{"role":"model","parts":[{"text":"Hi"},{"functionCall":call}]},"finishReason":"STOP"}),
        json!({"role":"model","parts":[{"text":"Hi"},{"functionCall":call}]}),
        json!({"functionCall":call}),
        call.clone(),
    ] {
        assert_agree(CallFormat::Gemini, std::slice::from_ref(&event));
        assert_eq!(turn_of(CallFormat::Gemini, &[event]).pointer("/parts").and_then(Value::as_array).and_then(|p| p.last()), Some(&json!({"functionCall":call})));
    }
}

// Streams made at random (proptest is a native-only dev-dependency, see Cargo.toml): every
// format's readers, on events that open, continue and end calls at a few indexes, with a few ids
// and names, among other events, in any order.
#[cfg(not(target_arch = "wasm32"))]
mod any_stream {
    use super::*;
    use proptest::prelude::*;

    /// One of a few values, by `n`.
    fn pick<T: Clone>(n: u8, of: &[T]) -> T {
        of[n as usize % of.len()].clone()
    }

    const PIECES: &[&str] = &["", "{", "\"a\":", "1", "}", "{\"a\":1}", " ", "{}"];

    /// A stream event of `format`, chosen by four numbers: calls opened, continued and ended at a few
    /// indexes, with a few ids and names, among other events, in any order.
    fn event(format: CallFormat, a: u8, b: u8, c: u8, d: u8) -> Value {
        let some = |n: u8, v: Value| (n % 4 != 0).then_some(v);
        let piece = |n: u8| json!(pick(n, PIECES));
        match format {
            // Ollama's own stream (its OpenAI-compatible one is read as Chat's).
            CallFormat::Ollama => {
                let call = |c: u8, d: u8| {
                    let function = object(&[("name", some(d, json!(pick(d / 4, &["t", "u", ""])))), ("arguments", some(c, json!({"a": c % 3})))]);
                    if d % 9 == 0 {
                        // A call without `function` around its name and arguments.
                        return function;
                    }
                    object(&[("id", (c % 3 == 0).then(|| json!(format!("call_o{d}")))), ("function", Some(function))])
                };
                match b % 3 {
                    0 => json!({"model": "m", "message": {"role": "assistant", "content": "Hi", "thinking": "Hm"}, "done": false}),
                    1 => json!({"model": "m", "message": {"role": "assistant", "content": "", "tool_calls": [call(c, d)]}, "done": false}),
                    _ => json!({"model": "m", "message": {"role": "assistant", "content": "", "tool_calls": [call(c, d), call(d, c)]}, "done": false}),
                }
            }
            CallFormat::OpenAi => {
                let call = |b: u8, c: u8, d: u8| {
                    let function = object(&[
                        ("name", some(d, json!(pick(d / 4, &["get_", "weather", "get_weather", "", "t"])))),
                        ("arguments", some(c / 8, if c % 16 == 1 { json!({"a": 2}) } else { piece(c / 2) })),
                    ]);
                    object(&[
                        ("index", some(b / 3 % 5 + 1, json!(b % 3))),
                        ("id", some(c, json!(pick(c / 4, &["call_x", "call_y", "call_z"])))),
                        ("type", Some(json!("function"))),
                        ("function", some(d / 16 % 8 + 1, function)),
                        ("extra_content", (b % 7 == 0).then(|| json!({"google": {"thought_signature": "c2ln"}}))),
                    ])
                };
                let finish = |n: u8| if n % 3 == 0 { json!("tool_calls") } else { Value::Null };
                match a % 4 {
                    0 | 1 => json!({"choices": [{"index": 0, "delta": {"tool_calls": [call(b, c, d)]}, "finish_reason": finish(a / 4)}]}),
                    2 => json!({"choices": [{"index": 0, "delta": {"tool_calls": [call(b, c, d), call(b.wrapping_add(1), d, c)]}}]}),
                    _ => match b % 3 {
                        0 => json!({"choices": [{"index": 0, "delta": {"content": "Hi "}, "finish_reason": finish(c)}]}),
                        1 => json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
                        _ => json!({"choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": [call(c, d, b)]}, "finish_reason": "tool_calls"}]}),
                    },
                }
            }
            CallFormat::OpenAiResponses => {
                let oi = some(b / 4 % 8 + 1, json!(b % 4));
                let item_id = |n: u8| some(n, json!(pick(n / 4, &["fc_1", "fc_2", "fc_3"])));
                let item = |c: u8, d: u8| {
                    object(&[
                        ("type", Some(json!("function_call"))),
                        ("id", item_id(c)),
                        ("call_id", some(d, json!(pick(d / 4, &["call_1", "call_2", "call_3", "call_4"])))),
                        ("name", some(d / 16 % 4 + 1, json!(pick(c / 16, &["t", "u", ""])))),
                        ("arguments", some(c / 4, piece(d / 2))),
                    ])
                };
                let typed = |t: &str, rest: &[(&str, Option<Value>)]| {
                    let mut v = object(rest);
                    v["type"] = json!(t);
                    v
                };
                match a % 8 {
                    0 | 1 => typed("response.output_item.added", &[("output_index", oi), ("item", Some(item(c, d)))]),
                    2 => typed("response.function_call_arguments.delta", &[("item_id", item_id(c)), ("output_index", oi), ("delta", Some(piece(d)))]),
                    3 => typed(
                        "response.function_call_arguments.done",
                        &[("item_id", item_id(c)), ("output_index", oi), ("arguments", some(d, piece(d / 4))), ("name", (d % 5 == 0).then(|| json!("v")))],
                    ),
                    4 | 5 => typed("response.output_item.done", &[("output_index", oi), ("item", Some(item(c, d)))]),
                    6 => typed("response.output_item.added", &[("output_index", oi), ("item", Some(json!({"type": "message", "id": "msg_1", "role": "assistant", "content": []})))]),
                    _ => typed("response.output_item.done", &[("output_index", oi), ("item", Some(json!({"type": "reasoning", "id": "rs_1", "summary": []})))]),
                }
            }
            CallFormat::Anthropic => {
                let index = json!(b % 3);
                match a % 6 {
                    0 | 1 => {
                        let block = match c % 5 {
                            0 => json!({"type": "text", "text": ""}),
                            1 => json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}),
                            _ => object(&[
                                ("type", Some(json!("tool_use"))),
                                ("id", some(d, json!(pick(d / 4, &["toolu_1", "toolu_2", "toolu_3"])))),
                                ("name", some(c / 8, json!(pick(c / 32, &["t", "u", ""])))),
                                ("input", some(d / 16, pick(d / 64, &[json!({}), json!({"b": 1})]))),
                            ]),
                        };
                        json!({"type": "content_block_start", "index": index, "content_block": block})
                    }
                    2 | 3 => json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": pick(c, PIECES)}}),
                    4 => json!({"type": "content_block_stop", "index": index}),
                    _ => json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": "Hi"}}),
                }
            }
            CallFormat::Bedrock => {
                let index = b % 3;
                match a % 6 {
                    0 | 1 => {
                        let tool_use = object(&[
                            ("toolUseId", some(d, json!(pick(d / 4, &["tooluse_1", "tooluse_2", "tooluse_3"])))),
                            ("name", some(c / 8, json!(pick(c / 32, &["t", "u", "", "functions.t"])))),
                            ("input", (c % 7 == 0).then(|| json!({"b": 1}))),
                            // A system tool's use, run by Bedrock: no call.
                            ("type", (d % 5 == 0).then(|| json!("server_tool_use"))),
                        ]);
                        // Its result, a block of its own.
                        if b % 7 == 0 {
                            return json!({"contentBlockStart": {"contentBlockIndex": index, "start": {"toolResult": {"toolUseId": "tooluse_1", "status": "success"}}}});
                        }
                        json!({"contentBlockStart": {"contentBlockIndex": index, "start": {"toolUse": tool_use}}})
                    }
                    2 | 3 => json!({"contentBlockDelta": {"contentBlockIndex": index, "delta": {"toolUse": {"input": pick(c, PIECES)}}}}),
                    4 => json!({"contentBlockStop": {"contentBlockIndex": index}}),
                    _ => json!({"contentBlockDelta": {"contentBlockIndex": index, "delta": {"text": "Hi"}}}),
                }
            }
            CallFormat::Gemini => {
                let call = |c: u8, d: u8| {
                    let fc = object(&[
                        ("name", some(c, json!(pick(c / 4, &["t", "u", ""])))),
                        ("id", (d % 3 != 0).then(|| json!(pick(d / 3, &["", "g1", "g2"])))),
                        ("args", (c % 5 < 2).then(|| pick(c / 5, &[json!({"a": 1}), json!({"b": 2}), Value::Null]))),
                        ("partialArgs", (d % 5 < 2).then(|| json!([{"jsonPath": pick(d / 5, &["$.k", "$.a", "$"]), "stringValue": "x"}]))),
                        ("willContinue", (c % 7 < 4).then(|| json!(c % 7 < 3))),
                    ]);
                    object(&[("functionCall", Some(fc)), ("thoughtSignature", (d % 11 < 3).then(|| json!(pick(d % 11, &["", "c2lnMQ==", "c2lnMg=="]))))])
                };
                let candidate = |parts: Value, finish: Option<&str>| {
                    let mut c = json!({"index": 0, "content": {"role": "model", "parts": parts}});
                    if let Some(f) = finish {
                        c["finishReason"] = json!(f);
                    }
                    json!({"candidates": [c]})
                };
                match a % 6 {
                    0..=2 => candidate(json!([call(c, d)]), None),
                    3 => candidate(json!([call(c, d), call(d, c)]), None),
                    4 => candidate(json!([{"text": "Hi"}]), (b % 3 != 0).then(|| pick(b, &["STOP", "MAX_TOKENS"]))),
                    _ => candidate(json!([{"functionCall": {}}]), None),
                }
            }
        }
    }

    /// Checks `agree` on the events the numbers choose.
    fn check(format: CallFormat, numbers: Vec<(u8, u8, u8, u8)>) -> Result<(), String> {
        let events: Vec<Value> = numbers.into_iter().map(|(a, b, c, d)| event(format, a, b, c, d)).collect();
        agree(format, &events).map_err(|e| format!("{format:?}: {e}\nevents: {events:#?}"))
    }

    fn events() -> impl Strategy<Value = Vec<(u8, u8, u8, u8)>> {
        proptest::collection::vec(any::<(u8, u8, u8, u8)>(), 0..10)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]
        /// Any stream: the turn lists the calls given.
        #[test]
        fn chat(e in events()) { check(CallFormat::OpenAi, e).map_err(TestCaseError::fail)?; }
        #[test]
        fn ollama(e in events()) { check(CallFormat::Ollama, e).map_err(TestCaseError::fail)?; }
        #[test]
        fn responses(e in events()) { check(CallFormat::OpenAiResponses, e).map_err(TestCaseError::fail)?; }
        #[test]
        fn anthropic(e in events()) { check(CallFormat::Anthropic, e).map_err(TestCaseError::fail)?; }
        #[test]
        fn bedrock(e in events()) { check(CallFormat::Bedrock, e).map_err(TestCaseError::fail)?; }
        #[test]
        fn gemini(e in events()) { check(CallFormat::Gemini, e).map_err(TestCaseError::fail)?; }
    }
}
