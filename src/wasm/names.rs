//! The `NameMap` class: provider names back to `(server, tool)`, exactly.

use std::rc::Rc;

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::convert as core;
use crate::error::{Error, ErrorCode};
use crate::model::{object, string};
use crate::naming::NameMap;
use crate::wasm::convert::{on_tools_text, options_param, provider_param};
use crate::wasm::interop::{holds_lone_surrogate, json_string_text, json_text, lone_surrogate_name, name_param, parse, to_js};

/// Maps the names a provider sees back to the server and the original tool name, and maps a
/// model's arguments back to what the server expects.
///
/// ```js
/// const map = NameMap.fromTools(tools, "openai");
/// const { server, tool } = map.resolve(call.function.name);
/// const args = map.prepareArguments(call.function.name, call.function.arguments);
/// ```
#[wasm_bindgen(js_name = NameMap)]
pub struct JsNameMap {
    // Shared, not copied, with the accumulators made from it (the map never changes).
    inner: Rc<NameMap>,
}

#[wasm_bindgen(js_class = NameMap)]
impl JsNameMap {
    /// A map is built by `NameMap.fromTools` or `NameMap.fromJSON`: `new NameMap()` throws a
    /// `ToolwireError` saying so (rather than an object whose every method fails).
    #[wasm_bindgen(constructor)]
    pub fn new() -> Result<JsNameMap, JsValue> {
        Err(Error::new(ErrorCode::InvalidInput, "NameMap has no constructor: use NameMap.fromTools(tools, provider, options) or NameMap.fromJSON(json)").into())
    }

    /// Builds the map a conversion with the same tools, provider and options produces.
    #[wasm_bindgen(js_name = fromTools)]
    pub fn from_tools(tools: JsValue, provider: JsValue, options: JsValue) -> Result<JsNameMap, JsValue> {
        let provider = provider_param(&provider)?;
        let opts = options_param(&options)?;
        let conv = on_tools_text(&tools, |json| core::convert_json_named(json, provider, &opts))?;
        Ok(Self { inner: Rc::new(conv.name_map) })
    }

    /// Restores a map from `toJSON()` output (or its JSON text).
    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(json: JsValue) -> Result<JsNameMap, JsValue> {
        Ok(Self { inner: Rc::new(name_map_data(&json, "name map")?) })
    }

    /// `{name, server, tool}` for a provider name; throws `UNKNOWN_TOOL_NAME` otherwise.
    pub fn resolve(&self, name: JsValue) -> Result<JsValue, JsValue> {
        let name = name_param(&name, "name")?;
        let e = self.inner.resolve(&name)?;
        Ok(to_js(&object([("name", string(&e.name)), ("server", e.server.clone().into()), ("tool", string(&e.tool))]))?)
    }

    /// Whether the map knows the name (`false` for a value that is no string). A name holding a
    /// lone UTF-16 surrogate is `INVALID_INPUT`, as `resolve` has it: read as U+FFFD it would be
    /// another name.
    pub fn has(&self, name: JsValue) -> Result<bool, JsValue> {
        if holds_lone_surrogate(&name) {
            return Err(Error::new(ErrorCode::InvalidInput, lone_surrogate_name("name")).into());
        }
        Ok(name.as_string().is_some_and(|n| self.inner.position(&n).is_some()))
    }

    /// Every provider name, in tool order.
    pub fn names(&self) -> Result<JsValue, JsValue> {
        let names: Vec<Value> = self.inner.entries().iter().map(|e| Value::from(e.name.as_str())).collect();
        Ok(to_js(&Value::Array(names))?)
    }

    /// Number of names.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.inner.len()
    }

    /// The serialisable form: `{version: 1, entries: [{name, server, tool, args?}]}`.
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        Ok(to_js(&self.inner.to_json_value())?)
    }

    /// Maps a model's arguments (an object, or the JSON string OpenAI sends) back to what the
    /// MCP server expects: enum strings to their original values, strict-mode nulls removed,
    /// a wrapped root unwrapped.
    #[wasm_bindgen(js_name = prepareArguments)]
    pub fn prepare_arguments(&self, name: JsValue, args: JsValue) -> Result<JsValue, JsValue> {
        let name = name_param(&name, "name")?;
        let entry = self.inner.resolve(&name)?;
        // The map knows the tool: every error about its arguments names it (`tool`, and the
        // message), as `McpClient.callTool`'s do.
        let tool = |e: Error| e.with_tool(&entry.tool);
        let value = crate::calls::model_arguments(&name, raw_args(&args).map_err(tool)?).map_err(tool)?;
        let value = match &entry.args {
            Some(plan) => plan.try_apply(value, &name).map_err(tool)?,
            None => value,
        };
        Ok(to_js(&value)?)
    }
}

impl JsNameMap {
    /// The map itself, for the functions that take a live `NameMap` (no copy through `toJSON`).
    pub(crate) fn shared(&self) -> Rc<NameMap> {
        Rc::clone(&self.inner)
    }
}

/// A name map given as data: its `toJSON()` output, or that JSON's text (as `NameMap.fromJSON`
/// takes it). A `NameMap` copied by structured cloning (`postMessage`, `workerData`,
/// `structuredClone`) arrives as an object holding only wasm-bindgen's pointer, which says
/// nothing of the names: the error says what to send instead.
pub(crate) fn name_map_data(v: &JsValue, what: &str) -> Result<NameMap, Error> {
    // A lone UTF-16 surrogate in an entry's name, server or tool is refused (read as U+FFFD it
    // would be another name): the text keeps it as its escape to be found.
    let read = |text: String| {
        NameMap::refuse_lone_surrogate_names(&text)?;
        NameMap::from_json_value(parse(&text, what)?)
    };
    if v.is_string() {
        return read(json_string_text(wasm_bindgen::JsCast::unchecked_ref(v), what)?);
    }
    // A live instance (of another copy of the module) has `toJSON` on its prototype and goes the
    // JSON way; a structured clone is an empty object (the pointer is no enumerable field), or,
    // from a build that made it one, has only the own `__wbg_ptr` field.
    if v.is_object() && !crate::wasm::bridge::get(v, "toJSON").is_function() {
        let cloned = js_sys::Reflect::has(v, &"__wbg_ptr".into()).unwrap_or(false);
        if cloned || crate::wasm::interop::is_empty_plain_object(v) {
            let was = if cloned { "is a NameMap copied by structured cloning" } else { "is an empty object, as a NameMap copied by structured cloning arrives" };
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "{what} {was} (postMessage, workerData, structuredClone), which keeps none of its names: \
                     send nameMap.toJSON() (or JSON.stringify(nameMap)) instead, and pass that, or NameMap.fromJSON(it), on the other side"
                ),
            ));
        }
    }
    // A convertMcpToolsDetailed result (or a hub's), which holds the map as `nameMap`.
    if v.is_object() && crate::wasm::bridge::get(v, "nameMap").is_object() && crate::wasm::bridge::get(v, "entries").is_undefined() {
        return Err(Error::new(ErrorCode::InvalidInput, format!("{what} holds a name map under nameMap (a convertMcpToolsDetailed result?): pass its .nameMap")));
    }
    if v.is_undefined() || v.is_null() {
        return NameMap::from_json_value(Value::Null);
    }
    read(json_text(v, what)?)
}

/// JS arguments as a provider gives them: a JSON string, or a value (one JSON would make `{}` or
/// `null` refused: [`crate::wasm::interop::arguments_from_js`]).
pub(crate) fn raw_args(args: &JsValue) -> Result<crate::calls::RawArgs, Error> {
    Ok(match args.as_string() {
        Some(text) => crate::calls::RawArgs::Text(text),
        None => crate::calls::RawArgs::Json(crate::wasm::interop::arguments_from_js(args)?),
    })
}
