//! Errors thrown to JS: real `Error` objects with `name = "ToolwireError"` and a stable `code`,
//! plus the `tool` and `path` concerned. The package loaders export a `ToolwireError` class
//! whose `instanceof` recognises them, so no JS snippet is needed in the binding (snippets are
//! ES modules, which the CommonJS Node glue could only `require` on the newest Node versions).

use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use crate::error::Error;

impl From<Error> for JsValue {
    fn from(e: Error) -> Self {
        let text = e.to_string();
        let err = js_sys::Error::new(&text);
        let message = JsValue::from_str(&text);
        // `message` enumerable, as `code` is: `JSON.stringify(err)` (a log line, a UI's error
        // list) then carries it, where an Error's own `message` is left out.
        let descriptor = js_sys::Object::new();
        for (k, v) in [("value", &message), ("enumerable", &JsValue::TRUE), ("writable", &JsValue::TRUE), ("configurable", &JsValue::TRUE)] {
            let _ = Reflect::set(&descriptor, &k.into(), v);
        }
        js_sys::Object::define_property(&err, &"message".into(), &descriptor);
        err.set_name("ToolwireError");
        // Setting own data properties on a fresh Error cannot fail.
        let _ = Reflect::set(&err, &"code".into(), &e.code.as_str().into());
        if let Some(tool) = &e.tool {
            let _ = Reflect::set(&err, &"tool".into(), &tool.into());
        }
        if let Some(path) = &e.path {
            let _ = Reflect::set(&err, &"path".into(), &path.into());
        }
        for (k, v) in e.details.iter().flat_map(|d| d.iter()) {
            if let Ok(js) = crate::wasm::interop::to_js(v) {
                let _ = Reflect::set(&err, &k.as_str().into(), &js);
            }
        }
        err.into()
    }
}
