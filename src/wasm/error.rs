//! `ToolwireError`: an `Error` subclass with a stable `code`, plus the tool and path concerned.

use wasm_bindgen::prelude::*;

use crate::error::Error;

#[wasm_bindgen(inline_js = r#"
export class ToolwireError extends Error {
  constructor(code, message, tool, path) {
    super(message);
    this.name = "ToolwireError";
    this.code = code;
    if (tool !== undefined) this.tool = tool;
    if (path !== undefined) this.path = path;
  }
}
export function makeToolwireError(code, message, tool, path) {
  return new ToolwireError(code, message, tool, path);
}
export function toolwireErrorClass() {
  return ToolwireError;
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = makeToolwireError)]
    fn make_toolwire_error(code: &str, message: &str, tool: Option<String>, path: Option<String>) -> JsValue;
    #[wasm_bindgen(js_name = toolwireErrorClass)]
    fn toolwire_error_class() -> JsValue;
}

impl From<Error> for JsValue {
    fn from(e: Error) -> Self {
        make_toolwire_error(e.code.as_str(), &e.to_string(), e.tool, e.path)
    }
}

/// The `ToolwireError` class, for the package loaders to re-export.
#[wasm_bindgen(js_name = "__errorClass")]
pub fn error_class() -> JsValue {
    toolwire_error_class()
}
