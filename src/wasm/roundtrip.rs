//! The round trip: tool calls in, tool results out, the system prompt and the permission policy.

use std::rc::Rc;

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::calls::{parse_tool_calls, Accumulator, CallFormat};
use crate::convert::{tools_from_value, ConvertOptions};
use crate::error::{Error, ErrorCode};
use crate::model::{CallToolResult, ContentBlock, TextContent, Tool};
use crate::naming::{NameMap, NameRule};
use crate::policy::Policy;
use crate::prompt::{tools_system_prompt, Locale, PromptOptions};
use crate::providers::Provider;
use crate::results::{decode_base64, tool_result_message, tool_result_messages, CallRef, ResultFormat, ResultOptions};
use crate::text::Owned as _;
use crate::wasm::caught;
use crate::wasm::bridge::{get, get_loose};
use crate::wasm::interop::{describe_js, from_js, is_array, parse, refuse_lossy, refuse_lossy_known, refuse_lossy_options, refuse_unknown_keys, string_param, to_js};
use crate::wasm::names::{name_map_data, JsNameMap};

/// A name map from its JSON (`toJSON()` output, or that JSON's text), or nothing. A `NameMap`
/// instance read this way is copied through its `toJSON`: the package's entry points send
/// instances to the `…WithMap` functions below instead, which read them in place.
fn name_map_param(v: &JsValue) -> Result<Option<Rc<NameMap>>, Error> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    name_map_data(v, "nameMap").map(|m| Some(Rc::new(m)))
}

/// A stream event object as JSON, read as [`from_js`] reads it, but that a surrogate pair split
/// between two pieces of arguments (each half alone in a JS string, escaped alone by
/// `JSON.stringify`) can be joined again ([`crate::calls::split_surrogates_event`]). For an
/// event that `js_bytes` has turned down (no bytes).
fn event_from_js(event: &JsValue) -> crate::error::Result<Value> {
    if event.is_undefined() || event.is_null() {
        return from_js(event, "stream event");
    }
    let text = crate::wasm::interop::json_text_not_bytes(event, "stream event")?;
    crate::wasm::interop::refuse_non_finite_inside(event, &text, "stream event")?;
    match crate::calls::split_surrogates_event(&text) {
        Some(v) => Ok(v),
        None => parse(&text, "stream event"),
    }
}

/// The bytes of Bedrock `InvokeModelWithResponseStream`'s event as the AWS SDK yields it,
/// `{chunk: {bytes}}` (a `PayloadPart`): one event of the model's own stream, as JSON. `None`
/// for any other event.
fn payload_part(event: &JsValue) -> Option<crate::error::Result<Vec<u8>>> {
    let chunk = get_loose(event, "chunk");
    if !chunk.is_object() {
        return None;
    }
    crate::wasm::interop::js_bytes(&get(&chunk, "bytes"), "the event's chunk.bytes")
}

/// The event a `PayloadPart`'s bytes carry ([`payload_part`]), read as an event object is.
fn payload_event(bytes: &[u8]) -> crate::error::Result<Value> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Error::new(ErrorCode::InvalidInput, format!("the event's chunk.bytes are not UTF-8 text ({e}): they should be one stream event as JSON")))?;
    match crate::calls::split_surrogates_event(text) {
        Some(v) => Ok(v),
        None => parse(text, "the event's chunk.bytes"),
    }
}

fn calls_to_js(calls: &[crate::calls::ToolCall]) -> Result<JsValue, Error> {
    // Most pushes complete no call: a fresh `[]` without writing and parsing its JSON.
    if calls.is_empty() {
        return Ok(js_sys::Array::new().into());
    }
    to_js(&Value::Array(calls.iter().map(crate::calls::ToolCall::to_value).collect()))
}

/// Every tool call in a complete provider response, or in the part of it an SDK hands out
/// (`crate::calls::parse_tool_calls` lists them): `[{id, providerName, server, tool, arguments,
/// thoughtSignature?, parallel?, custom?, namespace?, error?}]`. A call with malformed arguments or an unknown name carries
/// `error` ({code, message}) instead of failing the others.
#[wasm_bindgen(js_name = parseToolCalls)]
pub fn parse_tool_calls_js(response: JsValue, provider: JsValue, name_map: JsValue) -> Result<JsValue, Error> {
    // The provider first: with the arguments' order mistaken, its error says so.
    string_param(&provider, "provider")?;
    let map = name_map_param(&name_map)?;
    parse_calls(&response, &provider, map.as_deref())
}

/// `parseToolCalls` with a `NameMap` instance, read in place (the package's `parseToolCalls`
/// sends instances here: copying a map of a thousand tools through `toJSON` costs milliseconds).
#[wasm_bindgen(js_name = __parseToolCallsWithMap, skip_typescript)]
pub fn parse_tool_calls_with_map(response: JsValue, provider: JsValue, name_map: &JsNameMap) -> Result<JsValue, Error> {
    parse_calls(&response, &provider, Some(name_map.shared().as_ref()))
}

fn parse_calls(response: &JsValue, provider: &JsValue, map: Option<&NameMap>) -> Result<JsValue, Error> {
    let format = CallFormat::parse(&string_param(provider, "provider")?)?;
    let response = match response.as_string() {
        Some(text) => {
            // Read as the object `JSON.parse` makes of it: an index written `0.0` is 0.
            let mut v = parse(&text, "response")?;
            crate::model::integral_numbers(&mut v);
            v
        }
        None if response.is_undefined() || response.is_null() => Value::Null,
        None => {
            let text = crate::wasm::interop::json_text(response, "response")?;
            crate::wasm::interop::refuse_non_finite_inside(response, &text, "response")?;
            parse(&text, "response")?
        }
    };
    let calls = parse_tool_calls(&response, format, map)?;
    calls_to_js(&calls)
}

/// The `<tool_call>` blocks of a model's reply to `toolsSystemPrompt`
/// (`crate::calls::parse_text_tool_calls`): `{calls, text}`, `calls` as `parseToolCalls` gives
/// them, `text` the reply without its blocks.
#[wasm_bindgen(js_name = parseTextToolCalls)]
pub fn parse_text_tool_calls_js(text: JsValue, name_map: JsValue) -> Result<JsValue, Error> {
    let text = string_param(&text, "text")?;
    let map = name_map_param(&name_map)?;
    to_js(&crate::calls::parse_text_tool_calls(&text, map.as_deref()).to_value())
}

/// `parseTextToolCalls` with a `NameMap` instance, read in place.
#[wasm_bindgen(js_name = __parseTextToolCallsWithMap, skip_typescript)]
pub fn parse_text_tool_calls_with_map(text: JsValue, name_map: &JsNameMap) -> Result<JsValue, Error> {
    let text = string_param(&text, "text")?;
    to_js(&crate::calls::parse_text_tool_calls(&text, Some(name_map.shared().as_ref())).to_value())
}

/// Reads a reply to `toolsSystemPrompt` as it streams (`crate::calls::TextAccumulator`): each
/// `push(delta)` gives `{calls, text}`, what no more text can change, `finish()` the rest; put
/// together, `parseTextToolCalls`' of the whole reply.
///
/// ```js
/// const acc = new TextToolCallAccumulator(nameMap);
/// for await (const delta of stream) { const { text, calls } = acc.push(delta); show(text); calls.forEach(run); }
/// const { text, calls } = acc.finish();
/// ```
#[wasm_bindgen(js_name = TextToolCallAccumulator)]
pub struct JsTextAccumulator {
    inner: crate::calls::TextAccumulator,
    map: Option<Rc<NameMap>>,
    /// A UTF-16 high surrogate a delta ended with, for the next delta: a character cut between
    /// two deltas is joined again.
    carry: Option<js_sys::JsString>,
}

#[wasm_bindgen(js_class = TextToolCallAccumulator)]
impl JsTextAccumulator {
    /// A new accumulator; `nameMap` as `parseTextToolCalls` takes it.
    #[wasm_bindgen(constructor)]
    pub fn new(name_map: JsValue) -> Result<JsTextAccumulator, Error> {
        Ok(Self { inner: crate::calls::TextAccumulator::new(), map: name_map_param(&name_map)?, carry: None })
    }

    /// The constructor with a `NameMap` instance, shared rather than copied.
    #[wasm_bindgen(js_name = __withMap, skip_typescript)]
    pub fn with_map(name_map: &JsNameMap) -> JsTextAccumulator {
        Self { inner: crate::calls::TextAccumulator::new(), map: Some(name_map.shared()), carry: None }
    }

    /// Takes the next piece of the reply (a string); gives `{calls, text}` it completed.
    pub fn push(&mut self, delta: JsValue) -> Result<JsValue, Error> {
        let Some(delta) = delta.dyn_ref::<js_sys::JsString>() else {
            return Err(Error::new(ErrorCode::InvalidInput, format!("the delta must be a string (a piece of the model's reply), got {}", describe_js(&delta))));
        };
        let mut delta = match &self.carry {
            Some(high) => high.concat(delta),
            None => delta.clone(),
        };
        // A piece whose UTF-16 length alone takes the reply past the limit (a unit is a byte of
        // UTF-8 or more) is refused before its text is copied; another, once copied (at most 3
        // bytes a unit), by its UTF-8 length below. Either way the accumulator is as it was.
        self.inner.room_for(delta.length() as usize)?;
        let len = delta.length();
        let mut carry = None;
        // A high surrogate (U+D800 to U+DBFF) last: the low one comes with the next delta.
        if len > 0 && (55296.0..56320.0).contains(&delta.char_code_at(len - 1)) {
            carry = Some(delta.slice(len - 1, len));
            delta = delta.slice(0, len - 1);
        }
        let text = String::from(&delta);
        // One kept is read as U+FFFD (3 bytes) if the reply ends there: room is kept for it.
        self.inner.room_for(text.len() + if carry.is_some() { 3 } else { 0 })?;
        let got = self.inner.push(&text, self.map.as_deref())?;
        self.carry = carry;
        to_js(&got.to_value())
    }

    /// Ends the reply: gives the rest of its `{calls, text}`; the accumulator then reads the next reply.
    pub fn finish(&mut self) -> Result<JsValue, Error> {
        // A character the reply never finished: U+FFFD, as `parseTextToolCalls` reads it.
        if let Some(high) = self.carry.take() {
            let rest = self.inner.push(&String::from(&high), self.map.as_deref())?;
            let end = self.inner.finish(self.map.as_deref());
            let mut calls = rest.calls;
            calls.extend(end.calls);
            return to_js(&crate::calls::TextReply { calls, text: rest.text + &end.text }.to_value());
        }
        to_js(&self.inner.finish(self.map.as_deref()).to_value())
    }
}

/// The results of a turn's calls as `<tool_response>` blocks for a model without native tool
/// calling (`crate::calls::text_tool_results`): one CallToolResult or an array of them, in the
/// calls' order; `options.maxChars` caps each as `flattenContent` does.
#[wasm_bindgen(js_name = textToolResults)]
pub fn text_tool_results_js(results: JsValue, options: JsValue) -> Result<String, Error> {
    let results = match is_array(&results) {
        true => js_array(&results).iter().enumerate().map(|(i, r)| tool_result_param(r, "result").map_err(|mut e| {
            e.message = format!("results[{i}]: {}", e.message);
            e
        })).collect::<Result<Vec<_>, Error>>()?,
        false => vec![tool_result_param(&results, "result")?],
    };
    let mut opts = crate::content::FlattenOptions::default();
    refuse_lossy_known(&options, "options", &["maxChars"], Some(&["maxChars"]))?;
    refuse_unknown_keys(&options, "options", &["maxChars"], false)?;
    refuse_unused_result_options(&from_js(&options, "options")?, "textToolResults", &["maxChars"])?;
    if let Some(max) = max_chars_option(&options)? {
        opts.max_chars = max;
    }
    Ok(crate::calls::text_tool_results(&results, opts))
}

/// Assembles complete tool calls from a provider's stream, and the model's turn.
///
/// ```js
/// const acc = new ToolCallAccumulator("anthropic", nameMap);
/// for await (const event of stream) for (const call of acc.push(event)) run(call);
/// for (const call of acc.finish()) run(call);
/// messages.push(acc.message());
/// ```
#[wasm_bindgen(js_name = ToolCallAccumulator)]
pub struct JsAccumulator {
    inner: Accumulator,
    map: Option<Rc<NameMap>>,
    /// The start of a UTF-8 sequence a chunk of bytes ended in, for the next chunk.
    carry: Vec<u8>,
}

#[wasm_bindgen(js_class = ToolCallAccumulator)]
impl JsAccumulator {
    /// A new accumulator for `provider`'s stream format.
    #[wasm_bindgen(constructor)]
    pub fn new(provider: JsValue, name_map: JsValue) -> Result<JsAccumulator, Error> {
        let format = CallFormat::parse(&string_param(&provider, "provider")?)?;
        Ok(Self { inner: Accumulator::new(format), map: name_map_param(&name_map)?, carry: Vec::new() })
    }

    /// The constructor with a `NameMap` instance, shared rather than copied (the package's
    /// `ToolCallAccumulator` sends instances here).
    #[wasm_bindgen(js_name = __withMap, skip_typescript)]
    pub fn with_map(provider: JsValue, name_map: &JsNameMap) -> Result<JsAccumulator, Error> {
        let format = CallFormat::parse(&string_param(&provider, "provider")?)?;
        Ok(Self { inner: Accumulator::new(format), map: Some(name_map.shared()), carry: Vec::new() })
    }

    /// Takes one event (a parsed chunk, an object) or the stream's text as it comes: SSE frames
    /// (whole, several, or split anywhere), `data:` lines, JSON (`Accumulator::push_text`), as a
    /// string or as UTF-8 bytes (a `Uint8Array`, a `Buffer`, an `ArrayBuffer`: what a fetch
    /// body's reader yields), a character split across two chunks joined again.
    /// Returns the calls it completed (often none).
    pub fn push(&mut self, event: JsValue) -> Result<JsValue, Error> {
        // Said as it is: read as JSON it would be `null`.
        if event.is_undefined() {
            return Err(Error::new(ErrorCode::InvalidInput, "a stream event must be an object, got undefined"));
        }
        let text = match event.dyn_ref::<js_sys::JsString>() {
            Some(s) => Some(crate::wasm::interop::json_string_text(s, "the event")?),
            None => None,
        };
        let calls = match text {
            Some(text) => self.inner.push_text(&text, self.map.as_deref())?,
            None => match self.bytes_text(&event)? {
                Some(text) => self.inner.push_text(&text, self.map.as_deref())?,
                None => match payload_part(&event) {
                    Some(bytes) => self.inner.push(&payload_event(&bytes?)?, self.map.as_deref())?,
                    None => self.inner.push(&event_from_js(&event)?, self.map.as_deref())?,
                },
            },
        };
        calls_to_js(&calls)
    }

    /// Ends the stream: returns every call still open (`Accumulator::finish`: text it ended with
    /// that cannot be read is `INVALID_JSON`, the calls kept for the next `finish`).
    pub fn finish(&mut self) -> Result<JsValue, Error> {
        // A character the stream never finished: the stream was cut there, read as U+FFFD, as
        // the text cut with it says.
        let rest = String::from_utf8_lossy(&std::mem::take(&mut self.carry)).into_owned();
        calls_to_js(&self.inner.finish_text(&rest, self.map.as_deref())?)
    }

    /// The model's turn so far, as the provider's own message (`Accumulator::message`); Bedrock's
    /// `redactedContent` and an image's `source.bytes` as a `Uint8Array`, as the AWS SDK takes them.
    pub fn message(&self) -> Result<JsValue, Error> {
        let message = to_js(&self.inner.message()?)?;
        if self.inner.format() == CallFormat::Bedrock {
            for block in js_array(&get(&message, "content")) {
                base64_to_uint8array(&get(&block, "reasoningContent"), "redactedContent");
                base64_to_uint8array(&get(&get(&block, "image"), "source"), "bytes");
            }
        }
        Ok(message)
    }
}

impl JsAccumulator {
    /// A chunk of bytes as text: the chunk after what the last one left of a character, up to
    /// where a character is cut off (kept for the next chunk); bytes that are not UTF-8 become
    /// U+FFFD. `None` for anything but bytes; bytes that cannot be read (a detached buffer) are
    /// `INVALID_INPUT`, and the accumulator is as it was.
    fn bytes_text(&mut self, event: &JsValue) -> Result<Option<String>, Error> {
        let Some(bytes) = crate::wasm::interop::js_bytes(event, "the event") else { return Ok(None) };
        let bytes = bytes?;
        let mut all = std::mem::take(&mut self.carry);
        all.extend_from_slice(&bytes);
        let mut text = String::with_capacity(all.len());
        let mut rest = all.as_slice();
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    text.push_str(s);
                    break;
                }
                Err(e) => {
                    let (good, bad) = rest.split_at(e.valid_up_to());
                    // `good` is valid UTF-8, by `valid_up_to`.
                    text.push_str(std::str::from_utf8(good).unwrap_or_default());
                    match e.error_len() {
                        // Cut off at the end: the next chunk finishes it.
                        None => {
                            self.carry = bad.to_vec();
                            break;
                        }
                        Some(n) => {
                            text.push('\u{FFFD}');
                            rest = &bad[n..];
                        }
                    }
                }
            }
        }
        Ok(Some(text))
    }
}

/// `options.maxChars` as JS holds it (JSON would make `NaN` and `Infinity` both `null`): a
/// non-negative integer, `Infinity` for no cap; absent, `undefined` or `null` for the default.
pub(crate) fn max_chars_option(options: &JsValue) -> Result<Option<usize>, Error> {
    size_option(options, "maxChars")
}

/// A size option (`maxChars`, `maxMediaBytes`, `maxImageSide`) read as [`max_chars_option`] reads `maxChars`.
fn size_option(options: &JsValue, key: &str) -> Result<Option<usize>, Error> {
    if !options.is_object() {
        return Ok(None);
    }
    let v = caught::get(options, &JsValue::from_str(key))
        .map_err(|_| Error::new(ErrorCode::InvalidOptions, format!("options.{key} cannot be read")))?;
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    // A boxed Number (`new Number(5)`) as the number it holds, as JSON reads it.
    match crate::wasm::interop::js_number(&v) {
        Some(n) if n == f64::INFINITY => Ok(Some(usize::MAX)),
        // Saturating: a cap past what memory holds is no cap.
        Some(n) if n >= 0.0 && n.fract() == 0.0 => Ok(Some(n as usize)),
        n => {
            let got = match (n, v.as_string()) {
                (Some(n), _) if n.is_nan() => "NaN".owned(),
                // As JS writes it (not Rust's `-inf`).
                (Some(n), _) if n.is_infinite() => "-Infinity".owned(),
                (Some(n), _) => crate::text::f64_display(n),
                (None, Some(s)) => format!("the string {}", crate::text::to_string(&Value::String(s))),
                (None, None) => v.js_typeof().as_string().unwrap_or_default(),
            };
            Err(Error::new(ErrorCode::InvalidOptions, format!("options.{key} must be a non-negative integer, or Infinity for no cap; got {got}")))
        }
    }
}

/// A CallToolResult (or a content array) from JS. One whose `structuredContent` nests deeper
/// than the reader takes (`LIMIT_EXCEEDED` for the whole result before) is read without it, and
/// the structure's JSON, as `JSON.stringify` writes it, is sent as text under a line that says so.
/// A JS `Error` that is no result (whose JSON is `{}`, or has no `name`: a fetch's `TypeError`,
/// the MCP SDK's `StreamableHTTPError`) is named as the error it is, as one whose JSON has a
/// `name` is (`CallToolResult::from_value`).
pub(crate) fn tool_result_param(result: &JsValue, what: &str) -> Result<CallToolResult, Error> {
    let read = match crate::wasm::interop::sent_from_js(result, what) {
        Ok(v) => CallToolResult::from_value(v),
        // Too deep, not too many values (a structure of millions of them is no model's to read).
        Err(e) if e.code == ErrorCode::LimitExceeded && e.message.contains("nesting deeper than") => deep_structure(result, what).unwrap_or(Err(e)),
        Err(e) => Err(e),
    };
    match read {
        Err(e) if result.is_instance_of::<js_sys::Error>() => Err(error_as_result(result).unwrap_or(e)),
        read => read,
    }
}

/// [`crate::model::error_as_result`] for a JS `Error`: named by its `name` (`TypeError`,
/// `ToolwireError`), or by its class where that `name` is only `Error` (a class that sets none,
/// as `StreamableHTTPError`), with its `code` if that is a string or a number.
fn error_as_result(error: &JsValue) -> Option<Error> {
    let word = |n: &String| !n.is_empty() && n.len() <= 64 && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$');
    let name = caught::get(error, &JsValue::from_str("name")).ok().and_then(|n| n.as_string()).filter(|n| word(n) && n != "Error");
    let name = name.or_else(|| crate::wasm::interop::class_name(error).filter(word)).unwrap_or_else(|| "Error".owned());
    let code = caught::get(error, &JsValue::from_str("code")).ok().and_then(|c| match (c.as_string(), c.as_f64()) {
        (Some(c), _) => Some(Value::String(c)),
        (None, Some(n)) if n.fract() == 0.0 && n.abs() < 9e15 => Some(Value::from(n as i64)),
        (None, Some(n)) => serde_json::Number::from_f64(n).map(Value::Number),
        _ => None,
    });
    Some(crate::model::error_as_result(&name, code.as_ref()))
}

fn deep_structure(result: &JsValue, what: &str) -> Option<Result<CallToolResult, Error>> {
    if !result.is_object() || is_array(result) {
        return None;
    }
    let key = JsValue::from_str("structuredContent");
    let sc = caught::get(result, &key).ok().filter(|sc| !sc.is_undefined() && !sc.is_null())?;
    // A getter that throws: the error as it was.
    let rest = crate::wasm::interop::own_copy(result).ok()?;
    js_sys::Reflect::delete_property(rest.unchecked_ref::<js_sys::Object>(), &key).ok()?;
    // Too deep elsewhere too: the error as it was.
    let mut rest = from_js(&rest, what).ok()?;
    // A result of structuredContent alone is a result: its content is then the note below.
    if let Value::Object(o) = &mut rest {
        o.entry("content").or_insert_with(|| Value::Array(Vec::new()));
    }
    let json = crate::wasm::interop::json_text(&sc, what).ok()?;
    let mut parsed = match CallToolResult::from_value(rest) {
        Ok(parsed) => parsed,
        Err(e) => return Some(Err(e)),
    };
    // A text block that is the structure already (as JSON.stringify writes it, or with blanks
    // between its tokens) says it: it is not repeated, and pretty-printed it is the compact JSON
    // (a cap would cut its blanks' many levels of indent, and the JSON with them).
    let said = parsed.content.iter_mut().find_map(|b| match b {
        ContentBlock::Text(t) if crate::content::same_json_text(&t.text, &json) => Some(t),
        _ => None,
    });
    if let Some(t) = said {
        if t.text.len() > json.len() {
            t.text = json;
        }
        return Some(Ok(parsed));
    }
    // The result is a level around it: a structure of 400 levels makes the result's 401.
    let note = format!("[structuredContent nests deeper than {} levels: sent as its JSON text]\n{json}", crate::model::MAX_JSON_NESTING - 1);
    parsed.content.push(ContentBlock::Text(TextContent { text: note, extra: serde_json::Map::new() }));
    Some(Ok(parsed))
}

/// The keys of `toolResultMessage`'s options.
pub(crate) const RESULT_KEYS: [&str; 6] = ["maxChars", "maxMediaBytes", "maxImageSide", "imageMessage", "multimodal", "bedrockStatus"];

/// Refuses a key `function` makes no use of among the conversion's (and `provider`, which
/// `function` takes as an argument, if at all) and `toolResultMessage`'s: read and then ignored, they
/// would say they were done (a `provider` unlike the argument, `multimodal` given to
/// `flattenContent`, which sends no media). `INVALID_OPTIONS` naming the keys it takes.
pub(crate) fn refuse_unused_result_options(options: &Value, function: &str, valid: &[&str]) -> Result<(), Error> {
    crate::convert::refuse_unused_options(options, function, valid)?;
    let Some(o) = options.as_object() else { return Ok(()) };
    match o.iter().find(|(k, v)| !v.is_null() && !valid.contains(&k.as_str()) && RESULT_KEYS.contains(&k.as_str())) {
        Some((key, _)) => Err(Error::new(ErrorCode::InvalidOptions, format!("options.{key} is no option of {function}() (its options are {})", valid.join(", ")))),
        None => Ok(()),
    }
}

/// The keys of `toolsSystemPrompt`'s options beside the conversion's.
const PROMPT_KEYS: [&str; 5] = ["locale", "template", "instructions", "provider", "maxSchemaChars"];

/// `toolResultMessage`'s options.
fn result_options(options: &JsValue, function: &str) -> Result<ResultOptions, Error> {
    let mut opts = ResultOptions::default();
    refuse_lossy_known(options, "options", &["maxChars", "maxMediaBytes", "maxImageSide"], Some(&RESULT_KEYS))?;
    refuse_unknown_keys(options, "options", &RESULT_KEYS, false)?;
    let raw = from_js(options, "options")?;
    refuse_unused_result_options(&raw, function, &RESULT_KEYS)?;
    if let Some(max) = max_chars_option(options)? {
        opts.max_chars = max;
    }
    opts.max_media_bytes = size_option(options, "maxMediaBytes")?;
    // Pixels past u32 (Infinity among them) are no limit.
    opts.max_image_side = size_option(options, "maxImageSide")?.map(|n| u32::try_from(n).unwrap_or(u32::MAX));
    match raw {
        Value::Null => {}
        Value::Object(o) => {
            for (k, v) in o {
                match (k.as_str(), v) {
                    ("imageMessage", Value::Bool(b)) => opts.image_message = b,
                    ("multimodal", Value::Bool(b)) => opts.multimodal = b,
                    ("bedrockStatus", Value::Bool(b)) => opts.bedrock_status = b,
                    // `null` is the default, as for the caps.
                    (_, Value::Null) => {}
                    ("imageMessage" | "multimodal" | "bedrockStatus", other) => {
                        return Err(Error::new(ErrorCode::InvalidOptions, format!("options.{k} has the wrong type: {}", crate::text::to_string(&other))))
                    }
                    _ => {}
                }
            }
        }
        _ => return Err(Error::new(ErrorCode::InvalidOptions, "options must be an object")),
    }
    Ok(opts)
}

/// A message as JS takes it: Bedrock's bytes as `Uint8Array`s.
fn message_to_js(message: &Value, format: ResultFormat) -> Result<JsValue, Error> {
    let message = to_js(message)?;
    if format == ResultFormat::Bedrock {
        bedrock_bytes_to_uint8array(&message);
    }
    Ok(message)
}

/// The provider's tool-result message for an MCP result. `call` is an entry of
/// `parseToolCalls` (or `{id, name}`); `result` a CallToolResult.
#[wasm_bindgen(js_name = toolResultMessage)]
pub fn tool_result_message_js(call: JsValue, result: JsValue, provider: JsValue, options: JsValue) -> Result<JsValue, Error> {
    let call = CallRef::from_value(&from_js(&call, "call")?)?;
    let result = tool_result_param(&result, "result")?;
    let format = ResultFormat::parse(&string_param(&provider, "provider")?)?;
    let opts = result_options(&options, "toolResultMessage")?;
    message_to_js(&tool_result_message(&call, &result, format, &opts)?, format)
}

/// The messages for the results of several calls of one turn (`results[i]` answers `calls[i]`):
/// `crate::results::tool_result_messages`.
#[wasm_bindgen(js_name = toolResultMessages)]
pub fn tool_result_messages_js(calls: JsValue, results: JsValue, provider: JsValue, options: JsValue) -> Result<JsValue, Error> {
    let list = |v: &JsValue, what: &str| -> Result<Vec<JsValue>, Error> {
        match is_array(v) {
            // Read once, into a fresh array (an element's getter may throw).
            true => Ok(crate::wasm::interop::array_from(v)
                .map_err(|e| Error::new(ErrorCode::InvalidInput, format!("{what} cannot be read: {}", crate::wasm::bridge::describe(&e))))?
                .iter()
                .collect()),
            false => Err(Error::new(ErrorCode::InvalidInput, format!("{what} must be an array, got {}", describe_js(v)))),
        }
    };
    // An error names the entry it is about.
    let at = |what: &str, i: usize| {
        let what = what.owned();
        move |mut e: Error| {
            e.message = format!("{what}[{i}]: {}", e.message);
            e
        }
    };
    let calls = list(&calls, "calls")?
        .iter()
        .enumerate()
        .map(|(i, c)| from_js(c, "call").and_then(|c| CallRef::from_value(&c)).map_err(at("calls", i)))
        .collect::<Result<Vec<_>, Error>>()?;
    let results = list(&results, "results")?
        .iter()
        .enumerate()
        .map(|(i, r)| tool_result_param(r, "result").map_err(at("results", i)))
        .collect::<Result<Vec<_>, Error>>()?;
    let format = ResultFormat::parse(&string_param(&provider, "provider")?)?;
    let opts = result_options(&options, "toolResultMessages")?;
    let messages = tool_result_messages(&calls, &results, format, &opts)?;
    let out = js_sys::Array::new();
    for m in &messages {
        out.push(&message_to_js(m, format)?);
    }
    Ok(out.into())
}

/// The AWS SDK takes image and document bytes as a `Uint8Array` (`ImageSource.bytes`,
/// `DocumentSource.bytes`), not base64 text.
fn bedrock_bytes_to_uint8array(message: &JsValue) {
    for item in js_array(&get(&get(message, "toolResult"), "content")) {
        base64_to_uint8array(&get(&get(&item, "image"), "source"), "bytes");
        base64_to_uint8array(&get(&get(&item, "document"), "source"), "bytes");
    }
}


/// The elements of `v` when it is an array, else none.
fn js_array(v: &JsValue) -> Vec<JsValue> {
    if is_array(v) {
        crate::wasm::interop::array_from(v).map(|a| a.iter().collect()).unwrap_or_default()
    } else {
        Vec::new()
    }
}

/// Replaces the base64 text at `holder[key]`, if there is one, with its bytes as a `Uint8Array`.
fn base64_to_uint8array(holder: &JsValue, key: &str) {
    if let Some(b64) = get(holder, key).as_string() {
        let bytes = js_sys::Uint8Array::from(decode_base64(&b64).as_slice());
        let _ = js_sys::Reflect::set(holder, &JsValue::from_str(key), &bytes);
    }
}

/// A tool-use system prompt for models without native tool calling. Options: `locale`
/// (`"en"`, `"zh-CN"`), `template` (with `{{tools}}`), `instructions`, `maxSchemaChars`, the naming options
/// of `convertMcpTools` and its `server` (plus `provider`, whose name rule applies); its other
/// options (`strict`, `geminiMode`, `limits`) are refused.
#[wasm_bindgen(js_name = toolsSystemPrompt)]
pub fn tools_system_prompt_js(tools: JsValue, options: JsValue) -> Result<String, Error> {
    let valid = [&crate::convert::NAMING_KEYS[..], &["server"], &PROMPT_KEYS].concat();
    refuse_lossy_known(&options, "options", &["maxSchemaChars"], Some(&valid))?;
    crate::wasm::interop::refuse_lone_surrogate_server(&options)?;
    let raw_opts = from_js(&options, "options")?;
    // The conversion's `strict`, `geminiMode` and `limits` shape no prompt (its schemas are read
    // within the default limits): refused, not read and ignored.
    crate::convert::refuse_unused_options(&raw_opts, "toolsSystemPrompt", &valid)?;
    let copts = ConvertOptions::from_value_with(&raw_opts, &PROMPT_KEYS)?;
    let mut popts = PromptOptions::default();
    if let Some(max) = size_option(&options, "maxSchemaChars")? {
        popts.max_schema_chars = max;
    }
    let get_str = |k: &str| -> Result<Option<String>, Error> {
        match raw_opts.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(Error::new(ErrorCode::InvalidOptions, format!("options.{k} must be a string"))),
        }
    };
    if let Some(l) = get_str("locale")? {
        popts.locale = Some(Locale::parse(&l).ok_or_else(|| {
            Error::new(ErrorCode::InvalidOptions, format!("unknown locale \"{l}\" (built in: \"en\", \"zh-CN\")"))
        })?);
    }
    popts.template = get_str("template")?;
    popts.instructions = get_str("instructions")?;
    if let Some(t) = &popts.template {
        if !crate::prompt::has_tools_placeholder(t) {
            return Err(Error::new(ErrorCode::InvalidOptions, "options.template has no {{tools}}: the tool list goes where it stands, and without it the prompt would list no tools"));
        }
        if popts.instructions.is_some() {
            return Err(Error::new(ErrorCode::InvalidOptions, "options.instructions is not used with options.template (the template is the whole prompt): write the instructions into the template"));
        }
    }
    let rule = match get_str("provider")? {
        Some(p) => Provider::parse(&p)?.name_rule(),
        None => NameRule::Strict,
    };
    crate::naming::check_options(&copts.naming, copts.naming.rule(rule))?;
    // A name (or server) holding a lone surrogate is refused, as the converters refuse it: read as
    // U+FFFD it would be another tool's name, which no name map resolves back.
    // An array of tools, `{tools}`, or a `tools/list` result (`{result: {tools}}`), as `tools_from_value` reads them.
    let listed = match is_array(&tools) {
        true => tools.clone(),
        false if is_array(&get(&tools, "tools")) => get(&tools, "tools"),
        false => get(&get(&tools, "result"), "tools"),
    };
    for (i, tool) in js_array(&listed).iter().enumerate() {
        for (key, what) in [("name", "its name"), ("serverName", "its serverName")] {
            if crate::wasm::interop::holds_lone_surrogate(&get(tool, key)) {
                return Err(Error::new(ErrorCode::InvalidTool, format!("tool at index {i}: {}", crate::wasm::interop::lone_surrogate_name(what))));
            }
        }
    }
    let mut parsed = Vec::new();
    for (i, v) in tools_from_value(crate::wasm::interop::from_js_finite(&tools, "tools")?)?.into_iter().enumerate() {
        parsed.push(Tool::from_value(v, i)?);
    }
    let servers: Vec<Option<&str>> =
        parsed.iter().map(|t| t.server_name.as_deref().or(copts.server.as_deref()).filter(|s| !s.is_empty())).collect();
    Ok(tools_system_prompt(&parsed, &servers, &copts.naming, copts.naming.rule(rule), &popts))
}

/// `allow` / `ask` / `deny` by tool-name pattern.
///
/// ```js
/// const policy = new PermissionPolicy({ allow: ["mcp__github__*"], deny: ["mcp__github__delete_repo"], askDestructive: true });
/// policy.check("mcp__github__list_issues", { readOnlyHint: true }); // "allow"
/// policy.check("mcp__github__list_issues"); // "ask": without hints a tool may be destructive
/// ```
#[wasm_bindgen(js_name = PermissionPolicy)]
pub struct JsPolicy {
    inner: Policy,
    /// The config it was made from, for `toJSON` (so an instance passes where a config does).
    config: Value,
}

#[wasm_bindgen(js_class = PermissionPolicy)]
impl JsPolicy {
    /// `{rules?: [{pattern, action}], allow?, ask?, deny?, defaultAction?, askDestructive?}`.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<JsPolicy, Error> {
        refuse_lossy_options(&config, "policy", &[])?;
        let v = match crate::wasm::interop::policy_config(&config, "policy")? {
            Value::Null => Value::Object(serde_json::Map::new()),
            v => v,
        };
        Ok(Self { inner: Policy::from_value(v.clone())?, config: v })
    }

    /// The config the policy was made from: `JSON.stringify(policy)`, and an instance given as
    /// `McpHub`'s `options.policy`, read as its config.
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, Error> {
        to_js(&self.config)
    }

    /// The decision for a provider tool name. `tool` (an MCP tool, or just its `annotations`)
    /// lets `askDestructive` see the tool's hints: an object with a tool's keys (`name`,
    /// `inputSchema`...) is a tool, whose hints are in its `annotations` only.
    pub fn check(&self, name: JsValue, tool: JsValue) -> Result<String, Error> {
        let name = crate::wasm::interop::name_param(&name, "name")?;
        if !(tool.is_undefined() || tool.is_null() || (tool.is_object() && !is_array(&tool) && !tool.is_function())) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("check's second argument must be the MCP tool or its annotations ({{readOnlyHint: true, ...}}), got {}", describe_js(&tool)),
            ));
        }
        refuse_lossy(&tool, "tool")?;
        let tool = from_js(&tool, "tool")?;
        let annotations = crate::policy::annotations_given(tool);
        Ok(self.inner.check(&name, annotations.as_ref()).as_str().owned())
    }
}
