//! Moving JSON across the boundary.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::error::{Error, ErrorCode, Result};

/// A JS value as JSON. `undefined` and `null` are `Null`; what `JSON.stringify` cannot encode
/// (cycles, BigInt, a throwing `toJSON`) is an `INVALID_JSON` error naming `what`.
pub(crate) fn from_js(v: &JsValue, what: &str) -> Result<Value> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Null);
    }
    let text = js_sys::JSON::stringify(v).map_err(|e| {
        let reason = js_sys::Error::from(e).message().as_string().unwrap_or_default();
        Error::new(ErrorCode::InvalidJson, format!("{what} cannot be represented as JSON: {reason}"))
    })?;
    let Some(text) = text.as_string() else {
        // Functions and symbols stringify to undefined.
        return Err(Error::new(ErrorCode::InvalidInput, format!("{what} is not a JSON value")));
    };
    parse(&text, what)
}

/// Parses JSON text with a typed error. JS strings may hold lone surrogates, which
/// `JSON.stringify` writes as `\udXXX` escapes that no UTF-8 string can hold: those become
/// U+FFFD instead of failing the whole input.
pub(crate) fn parse(text: &str, what: &str) -> Result<Value> {
    match serde_json::from_str(text) {
        Ok(v) => Ok(v),
        Err(e) => match crate::model::repair_lone_surrogates(text) {
            Some(fixed) => serde_json::from_str(&fixed),
            None => Err(e),
        }
        .map_err(|e| Error::new(ErrorCode::InvalidJson, format!("{what} is not valid JSON: {e}"))),
    }
}

/// A JSON value as a plain JS value (via `JSON.parse`, so keys are own data properties).
pub(crate) fn to_js(v: &Value) -> Result<JsValue> {
    let text = serde_json::to_string(v).map_err(|e| Error::new(ErrorCode::InvalidInput, e.to_string()))?;
    js_sys::JSON::parse(&text).map_err(|_| Error::new(ErrorCode::InvalidInput, "output could not be parsed by JSON.parse"))
}

/// A required string parameter.
pub(crate) fn string_param(v: &JsValue, what: &str) -> Result<String> {
    v.as_string().ok_or_else(|| {
        let t = v.js_typeof().as_string().unwrap_or_default();
        Error::new(ErrorCode::InvalidInput, format!("{what} must be a string, got {}", if v.is_null() { "null".into() } else { t }))
    })
}

/// An optional string parameter (`undefined`/`null` → `None`).
pub(crate) fn opt_string_param(v: &JsValue, what: &str) -> Result<Option<String>> {
    if v.is_undefined() || v.is_null() {
        Ok(None)
    } else {
        string_param(v, what).map(Some)
    }
}
