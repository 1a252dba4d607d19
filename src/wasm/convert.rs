//! Conversion, schema and content exports.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::content::{flatten_result, FlattenOptions};
use crate::convert::{self as core, ConvertOptions};
use crate::error::{Error, ErrorCode};
use crate::naming::{parse_tool_name, prefix_tool_name, NameFormat, NameRule};
use crate::providers::Provider;
use crate::schema::{process_json_schema, Cx, Limits};
use crate::text::Owned as _;
use crate::wasm::caught;
use crate::wasm::interop::{from_js, json_text, name_param, opt_name_param, parse, parse_js, refuse_lone_surrogate_server, refuse_lossy_known, refuse_unknown_keys, string_param, text_or_bytes_param, to_js};

pub(crate) fn provider_param(v: &JsValue) -> Result<Provider, Error> {
    Provider::parse(&string_param(v, "provider")?)
}

pub(crate) fn options_param(v: &JsValue) -> Result<ConvertOptions, Error> {
    if v.is_undefined() || v.is_null() {
        return Ok(ConvertOptions::default());
    }
    if let Some(text) = crate::wasm::interop::flat_options_text(v) {
        return options_text(&text);
    }
    options_checked(v)
}

/// [`options_param`] for options [`crate::wasm::interop::flat_options_text`] does not take: read
/// through every check (a function of its own: the first call with flat options does not
/// compile it).
#[inline(never)]
fn options_checked(v: &JsValue) -> Result<ConvertOptions, Error> {
    refuse_lossy_known(v, "options", &[], Some(&core::OPTION_KEYS))?;
    refuse_lone_surrogate_server(v)?;
    options_text(&json_text(v, "options")?)
}

/// Options given as JSON text (or `JSON.stringify`'d), read without building a `Value` where
/// the tree reader takes the text (see [`ConvertOptions::from_json_text`]).
fn options_text(text: &str) -> Result<ConvertOptions, Error> {
    match ConvertOptions::from_json_text(text) {
        Some(read) => read,
        None => options_value(text),
    }
}

/// [`options_text`] for text the tree reader leaves to serde_json, for its errors (a function
/// of its own: the first call with valid options does not compile it).
#[inline(never)]
fn options_value(text: &str) -> Result<ConvertOptions, Error> {
    ConvertOptions::from_value(&parse(text, "options")?)
}

/// Runs a conversion on JS tools as JSON text (`JSON.stringify`), which takes the pass-through
/// path for schemas that need no change (src/fast/). JS strings may hold lone surrogates,
/// which `JSON.stringify` writes as escapes no UTF-8 text holds: the core's conversions read
/// them as U+FFFD and report where (`input/lone-surrogate`).
///
/// A tool `JSON.stringify` cannot write fails the call with its own error, at its index (as a
/// tool past a limit does): see [`tools_text`].
pub(crate) fn on_tools_text<T>(tools: &JsValue, convert: impl Fn(&str) -> Result<T, Error>) -> Result<T, Error> {
    let (text, unwritten) = tools_text(tools)?;
    // The tools before it are read first, as the core reads a list: the first error in order
    // stands, and the `null` standing for a tool not written is its own error, not "must be an
    // object".
    convert(&text).map_err(|e| match unwritten.iter().find(|u| u.path.is_some() && u.path == e.path) {
        Some(u) => u.clone(),
        None => e,
    })
}

/// JS tools as JSON text (`JSON.stringify`), with the tools it could not write (a cycle, a
/// BigInt, a `toJSON` that throws, nesting past the engine's stack), each as its own error
/// (its `path` the index, `tool` its name when it has one): they stand as `null` in the text.
/// The whole list is written at once, as before; only when that fails is each tool of the
/// array written alone, to tell which fail and keep the others (`checkTools` reports them as
/// `tool/invalid` problems). A list that is not an array is looked into as the core reads it
/// (`{tools}`, `{result: {tools}}`); anything else fails with the list's own error.
pub(crate) fn tools_text(tools: &JsValue) -> Result<(String, Vec<Error>), Error> {
    if tools.is_undefined() {
        return Err(Error::new(ErrorCode::InvalidInput, "expected an array of tools, got undefined"));
    }
    if tools.is_null() {
        return Ok(("null".owned(), Vec::new()));
    }
    // A number JSON cannot hold (`Infinity`, `NaN`) is written as `null`, which a tool may hold
    // as itself (a `default`, an `enum` value): such a tool is refused as one JSON cannot write,
    // never sent with a `null` the caller did not give.
    let (whole, written) = match json_text(tools, "tools") {
        Ok(text) if crate::wasm::interop::non_finite_at_nulls(tools, &text).is_none() => return Ok((text, Vec::new())),
        Ok(text) => (None, Some(text)),
        Err(e) => (Some(e), None),
    };
    let Some(list) = tool_array(tools) else {
        return match (whole, written) {
            (Some(e), _) => Err(e),
            (None, text) => Ok((text.unwrap_or_default(), Vec::new())),
        };
    };
    let mut text = String::from("[");
    let mut unwritten = Vec::new();
    for (i, tool) in list.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        // What `JSON.stringify` writes as `null` in an array.
        if tool.is_undefined() || tool.is_function() || tool.is_symbol() {
            text.push_str("null");
            continue;
        }
        match json_text(&tool, &format!("tool at index {i}")).and_then(|t| refuse_non_finite(&tool, t, i)) {
            Ok(t) => text.push_str(&t),
            Err(e) => {
                text.push_str("null");
                let e = e.with_path(format!("/{i}"));
                unwritten.push(match crate::wasm::bridge::get(&tool, "name").as_string() {
                    Some(name) if !name.is_empty() => e.with_tool(&name),
                    _ => e,
                });
            }
        }
    }
    text.push(']');
    // Every tool written alone: what failed was the list's own (its `toJSON`), or the number
    // JSON cannot hold is outside every tool (the list's own, or behind a `toJSON`).
    if unwritten.is_empty() {
        return match (whole, written) {
            (Some(e), _) => Err(e),
            (None, text) => Ok((text.unwrap_or_default(), Vec::new())),
        };
    }
    Ok((text, unwritten))
}

/// `text`, a tool's JSON, unless the tool holds a number JSON cannot hold (`Infinity`, `NaN`),
/// which it writes as `null`: then an `INVALID_JSON` error naming its place.
fn refuse_non_finite(tool: &JsValue, text: String, i: usize) -> Result<String, Error> {
    match crate::wasm::interop::non_finite_at_nulls(tool, &text) {
        Some((at, got, made)) => Err(crate::wasm::interop::non_finite_error(&format!("tool at index {i}"), &at, &got, made)),
        None => Ok(text),
    }
}

/// The array of tools in `tools` as the core finds it (an array, `{tools}`, `{result: {tools}}`),
/// a fresh copy of its elements; `None` where a `toJSON` would make it something else, or reading
/// it throws.
fn tool_array(tools: &JsValue) -> Option<js_sys::Array> {
    use crate::wasm::interop::{array_from, is_array};
    // `null` and `undefined` alike: no field, no `toJSON` (JSON.stringify calls a function only).
    let get = |v: &JsValue, key: &str| caught::get_some(v, &JsValue::from_str(key));
    let plain = |v: JsValue| (v.is_object() && matches!(get(&v, "toJSON"), Ok(None))).then_some(v);
    let top = plain(tools.clone())?;
    let list = if is_array(&top) {
        top
    } else {
        match get(&top, "tools").ok().flatten().filter(is_array) {
            Some(t) => plain(t)?,
            None => plain(get(&plain(get(&top, "result").ok()??)?, "tools").ok()?.filter(is_array)?)?,
        }
    };
    array_from(&list).ok()
}

/// Converts JS tools as [`on_tools_text`] does, leaving out the schemas that pass through
/// exactly as read (see [`core::convert_json_leaving_schemas`]); `finish` parses the output
/// text, and the tools' own `inputSchema` objects are then put in those places: what a
/// hand-written map does, and neither side writes or reads those schemas again. If the objects
/// are not where the text says (a `toJSON` somewhere, a getter that throws), the same text is
/// converted again in full: the objects are read as JSON once.
fn convert_objects(
    tools: &JsValue,
    provider: Provider,
    opts: &ConvertOptions,
    detailed: bool,
    finish: impl Fn(core::TextConversion) -> Result<(JsValue, JsValue), Error>,
) -> Result<JsValue, Error> {
    let full = |json: &str| match detailed {
        true => core::convert_json_detailed(json, provider, opts),
        false => core::convert_json_named(json, provider, opts),
    };
    on_tools_text(tools, |json| {
        let mut conv = core::convert_json_leaving_schemas(json, provider, opts, detailed)?;
        let left_out = std::mem::take(&mut conv.left_out);
        let (out, list) = finish(conv)?;
        if left_out.is_empty() || put_back_schemas(tools, &list, provider, &left_out).is_some() {
            return Ok(out);
        }
        Ok(finish(full(json)?)?.0)
    })
}

/// Puts each left-out schema back: the input tool's `inputSchema` object at the provider's
/// place in `list` (the output's tool list). `None` when the input is not shaped as its JSON
/// text was (nothing is half done then: every place is checked before one is filled).
fn put_back_schemas(tools: &JsValue, list: &JsValue, provider: Provider, left_out: &[core::LeftOut]) -> Option<()> {
    use crate::wasm::interop::is_array;
    use js_sys::Reflect;
    // Read with `null` and `undefined` alike (`caught::get_some`): objects are looked for, and a
    // `toJSON` that is neither is what JSON.stringify would call.
    let get = |v: &JsValue, key: &str| caught::get_some(v, &JsValue::from_str(key)).ok().flatten().filter(JsValue::is_object);
    // An input object as its JSON says it is: without a `toJSON` that would have written
    // something else.
    let as_written = |v: JsValue| matches!(caught::get_some(&v, &JsValue::from_str("toJSON")), Ok(None)).then_some(v);
    // The shapes `fast::prepare` reads: an array, `{tools}`, `{result: {tools}}`.
    let input = if is_array(tools) {
        as_written(tools.clone())?
    } else {
        let top = as_written(tools.clone())?;
        match get(&top, "tools") {
            Some(t) if is_array(&t) => as_written(t)?,
            _ => as_written(get(&as_written(get(&top, "result")?)?, "tools")?)?,
        }
    };
    // A tool's `inputSchema` as `JSON.stringify` read it: an own data property, which a read
    // gives again. An accessor (or a Proxy whose answer is not its descriptor's) is not read a
    // second time, which could give another object than the one converted and reported on.
    let (schema_key, value_key) = (JsValue::from_str("inputSchema"), JsValue::from_str("value"));
    let input_schema = |tool: &JsValue| {
        let d = crate::wasm::interop::own_descriptor(tool, &schema_key).ok()?;
        let value = caught::get_some(&d, &value_key).ok().flatten().filter(JsValue::is_object)?;
        (caught::get_some(tool, &schema_key).ok().flatten()? == value).then_some(value)
    };
    let decls = match provider {
        Provider::Gemini | Provider::Vertex => get(&caught::get_index_some(list, 0).ok().flatten()?, "functionDeclarations")?,
        _ => list.clone(),
    };
    let mut places = Vec::with_capacity(left_out.len());
    for l in left_out {
        let tool = as_written(caught::get_index_some(&input, l.tool as u32).ok().flatten()?)?;
        let schema = as_written(input_schema(&tool).filter(|s| !is_array(s))?)?;
        let decl = caught::get_index_some(&decls, l.position as u32).ok().flatten()?;
        let (holder, key) = match provider {
            Provider::OpenAi | Provider::Ollama => (get(&decl, "function")?, "parameters"),
            Provider::OpenAiResponses => (decl, "parameters"),
            Provider::Anthropic => (decl, "input_schema"),
            Provider::Bedrock => (get(&get(&decl, "toolSpec")?, "inputSchema")?, "json"),
            Provider::Gemini | Provider::Vertex => (decl, "parametersJsonSchema"),
        };
        if !holder.is_object() {
            return None;
        }
        places.push((holder, key, schema));
    }
    for (holder, key, schema) in places {
        Reflect::set(&holder, &JsValue::from_str(key), &schema).ok()?;
    }
    Some(())
}

/// Converts MCP tools for a provider. Returns the provider's tool list as plain objects; a
/// schema the provider takes exactly as given is the caller's own object (see
/// `put_back_schemas`).
///
/// ```js
/// const tools = convertMcpTools(mcpTools, "gemini");
/// // [{functionDeclarations: [{name, description, parameters}, ...]}]
/// ```
#[wasm_bindgen(js_name = convertMcpTools)]
pub fn convert_mcp_tools(tools: JsValue, provider: JsValue, options: JsValue) -> Result<JsValue, Error> {
    let provider = provider_param(&provider)?;
    let opts = options_param(&options)?;
    convert_objects(&tools, provider, &opts, false, |conv| {
        let out = parse_js(conv.tools)?;
        Ok((out.clone(), out))
    })
}

/// JSON text in, JSON text out: the fast path for tools that arrive as text and leave in a
/// request body. Given UTF-8 bytes (`Uint8Array`), returns bytes.
#[wasm_bindgen(js_name = convertMcpToolsJson)]
pub fn convert_mcp_tools_json(json: JsValue, provider: JsValue, options: JsValue) -> Result<JsValue, Error> {
    let (json, bytes) = text_or_bytes_param(&json, "json")?;
    let provider = provider_param(&provider)?;
    let opts = match options.as_string() {
        Some(text) => options_json_text(&options, &text)?,
        None => options_param(&options)?,
    };
    Ok(if bytes {
        bytes_out(&core::convert_json_bytes(&json, provider, &opts)?)
    } else {
        JsValue::from_str(&crate::text::ascii_when_sparse(core::convert_json(&json, provider, &opts)?))
    })
}

/// Options given as JSON text to [`convert_mcp_tools_json`] (a function of its own, as the
/// other less common readings: a call compiles what it runs, see bench/README.md, "Cold start").
#[inline(never)]
fn options_json_text(options: &JsValue, text: &str) -> Result<ConvertOptions, Error> {
    // A server's name with a lone surrogate is refused as in options given as an object
    // (see `refuse_lone_surrogate_server`), escaped in the text or not.
    if crate::wasm::interop::holds_lone_surrogate(options) {
        return Err(Error::new(ErrorCode::InvalidOptions, crate::wasm::interop::lone_surrogate_name("options (JSON text)")));
    }
    if text.contains("\\u") {
        if let Ok(v) = caught::parse(text) {
            refuse_lone_surrogate_server(&v)?;
        }
    }
    options_text(text)
}

/// [`convert_mcp_tools_json`]'s output for input given as bytes.
#[inline(never)]
fn bytes_out(bytes: &[u8]) -> JsValue {
    js_sys::Uint8Array::from(bytes).into()
}

/// Converts and also returns the name map (as `NameMap.toJSON()` gives it) and the report.
#[wasm_bindgen(js_name = convertMcpToolsDetailed)]
pub fn convert_mcp_tools_detailed(tools: JsValue, provider: JsValue, options: JsValue) -> Result<JsValue, Error> {
    let provider = provider_param(&provider)?;
    let opts = options_param(&options)?;
    convert_objects(&tools, provider, &opts, true, |conv| {
        let text = format!(
            r#"{{"tools":{},"nameMap":{},"report":{}}}"#,
            conv.tools,
            crate::text::to_string(&conv.name_map.to_json_value()),
            crate::text::to_string(&conv.report.to_value())
        );
        let out = parse_js(text)?;
        let list = caught::get(&out, &JsValue::from_str("tools")).map_err(|_| Error::new(ErrorCode::InvalidInput, "output has no tools"))?;
        Ok((out, list))
    })
}

/// Lists, per tool, every change a conversion makes and every problem that remains. Never
/// throws for a bad tool: that is a problem in the report.
#[wasm_bindgen(js_name = checkTools)]
pub fn check_tools(tools: JsValue, provider: JsValue, options: JsValue) -> Result<JsValue, Error> {
    let provider = provider_param(&provider)?;
    let opts = options_param(&options)?;
    let (json, unwritten) = tools_text(&tools)?;
    let report = core::check_json_unwritten(&json, provider, &opts, &unwritten)?;
    to_js(&report.to_value())
}

/// [`check_tools`] on JSON text (a string, or UTF-8 bytes), read as `convertMcpToolsJson` reads
/// it: a number keeps its digits and one past a double's range is `INVALID_JSON`, where
/// `JSON.parse` would round it or make it `Infinity`. For the `toolwire` command, which checks a
/// file as written.
#[wasm_bindgen(js_name = __checkToolsJson, skip_typescript)]
pub fn check_tools_json(json: JsValue, provider: JsValue, options: JsValue) -> Result<JsValue, Error> {
    let (json, _) = text_or_bytes_param(&json, "json")?;
    let provider = provider_param(&provider)?;
    let opts = options_param(&options)?;
    to_js(&core::check_json(&json, provider, &opts)?.to_value())
}

/// The root normalisation every provider starts from: always returns an object schema with
/// `properties`.
#[wasm_bindgen(js_name = processJsonSchema)]
pub fn process_json_schema_js(schema: JsValue) -> Result<JsValue, Error> {
    if schema.is_string() {
        return Err(Error::new(ErrorCode::InvalidInput, "schema is a string (JSON text?): JSON.parse it, and pass the schema object"));
    }
    let schema = crate::wasm::interop::from_js_finite(&schema, "schema")?;
    let mut cx = Cx::new(Limits::default());
    let (out, _) = process_json_schema(&schema, &mut cx);
    to_js(&out)
}

/// The options of `prefixToolName` (naming, and `provider`, whose name rule applies).
const PREFIX_KEYS: [&str; 5] = ["naming", "separator", "prefix", "portableNames", "provider"];

/// The naming options of `function` (`prefixToolName`, `parseToolName`), whose keys are `valid`:
/// another key of the conversion's options is refused ([`core::refuse_unused_options`]), as read
/// and then ignored it would say it was done (`server` gives no server part).
fn naming_and_rule(options: &JsValue, function: &str, valid: &[&str]) -> Result<(crate::naming::NamingOptions, NameRule, Option<NameFormat>), Error> {
    refuse_lossy_known(options, "options", &[], Some(valid))?;
    let raw = from_js(options, "options")?;
    core::refuse_unused_options(&raw, function, valid)?;
    let opts = ConvertOptions::from_value_with(&raw, &["provider"])?;
    let rule = match raw.get("provider") {
        None | Some(Value::Null) => NameRule::Strict,
        Some(Value::String(p)) => Provider::parse(p)?.name_rule(),
        Some(_) => return Err(Error::new(ErrorCode::InvalidOptions, "options.provider must be a string")),
    };
    let format = opts.naming.format;
    let rule = opts.naming.rule(rule);
    Ok((opts.naming, rule, format))
}

/// The provider name of one tool: `mcp__{server}__{tool}` by default, within the provider's
/// name rule (`options.provider`; without one, the rule of OpenAI, Anthropic and Bedrock,
/// `^[a-zA-Z0-9_-]{1,64}$`; `portableNames: true` for every provider's at once).
#[wasm_bindgen(js_name = prefixToolName)]
pub fn prefix_tool_name_js(server: JsValue, tool: JsValue, options: JsValue) -> Result<String, Error> {
    let server = opt_name_param(&server, "server")?;
    let tool = name_param(&tool, "tool")?;
    if tool.is_empty() {
        return Err(Error::new(ErrorCode::InvalidInput, "tool must not be empty"));
    }
    let (naming, rule, _) = naming_and_rule(&options, "prefixToolName", &PREFIX_KEYS)?;
    crate::naming::check_options(&naming, rule)?;
    Ok(prefix_tool_name(server.as_deref(), &tool, &naming, rule))
}

/// Splits a name in a plain format: `{server, tool}`, or `null` when it is not in that format.
/// It cannot undo sanitising or hashing; use a `NameMap` for exact answers.
#[wasm_bindgen(js_name = parseToolName)]
pub fn parse_tool_name_js(name: JsValue, options: JsValue) -> Result<JsValue, Error> {
    let name = name_param(&name, "name")?;
    let (naming, _, format) = naming_and_rule(&options, "parseToolName", &core::NAMING_KEYS)?;
    Ok(match parse_tool_name(&name, format, &naming) {
        Some(p) => to_js(&p.to_value())?,
        None => JsValue::NULL,
    })
}

/// Flattens MCP content (an array of blocks or a whole CallToolResult) to text, capped at
/// `options.maxChars` UTF-16 code units (default 100,000).
#[wasm_bindgen(js_name = flattenContent)]
pub fn flatten_content_js(content: JsValue, options: JsValue) -> Result<String, Error> {
    let result = crate::wasm::roundtrip::tool_result_param(&content, "content")?;
    let mut opts = FlattenOptions::default();
    refuse_lossy_known(&options, "options", &["maxChars"], Some(&["maxChars"]))?;
    refuse_unknown_keys(&options, "options", &["maxChars"], false)?;
    crate::wasm::roundtrip::refuse_unused_result_options(&from_js(&options, "options")?, "flattenContent", &["maxChars"])?;
    if let Some(max) = crate::wasm::roundtrip::max_chars_option(&options)? {
        opts.max_chars = max;
    }
    Ok(flatten_result(&result, opts))
}

/// The package version.
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.owned()
}

/// Bytes of linear memory the module holds now (for the memory-growth test and benchmark).
#[wasm_bindgen(js_name = "__wasmMemoryBytes")]
pub fn wasm_memory_bytes() -> f64 {
    (::core::arch::wasm32::memory_size(0) * 65536) as f64
}

/// JS values the module holds now (for the tests that a long-lived client keeps none per call).
#[wasm_bindgen(js_name = "__liveJsValues")]
pub fn live_js_values() -> u32 {
    wasm_bindgen::externref_heap_live_count()
}
