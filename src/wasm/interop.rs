//! Moving JSON across the boundary.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::error::{Error, ErrorCode, Result};
use crate::text::Owned as _;

/// A JS value as JSON. `undefined` and `null` are `Null`; what `JSON.stringify` cannot encode
/// (cycles, BigInt, a throwing `toJSON`) is an `INVALID_JSON` error naming `what`.
pub(crate) fn from_js(v: &JsValue, what: &str) -> Result<Value> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Null);
    }
    parse(&json_text(v, what)?, what)
}

/// A JS value (not `undefined` or `null`) as JSON text, by `JSON.stringify`.
pub(crate) fn json_text(v: &JsValue, what: &str) -> Result<String> {
    let text = js_sys::JSON::stringify(v).map_err(|e| {
        // What was thrown (a `toJSON` may throw anything, `null` too): its fields read only
        // where it has them.
        let field = |k: &str| e.is_object().then(|| js_sys::Reflect::get(&e, &JsValue::from_str(k)).ok()).flatten().and_then(|v| v.as_string());
        let reason = field("message").or_else(|| e.as_string()).unwrap_or_default();
        // A RangeError is the engine's stack, overflowed by nesting (a cycle or a BigInt is a
        // TypeError).
        let code = if field("name").as_deref() == Some("RangeError") { ErrorCode::LimitExceeded } else { ErrorCode::InvalidJson };
        Error::new(code, format!("{what} cannot be represented as JSON: {reason}"))
    })?;
    let Some(text) = text.dyn_ref::<js_sys::JsString>() else {
        // Functions and symbols stringify to undefined.
        return Err(Error::new(ErrorCode::InvalidInput, format!("{what} is not a JSON value")));
    };
    string_text(text, what)
}

/// Parses JSON text with a typed error. JS strings may hold lone surrogates, which
/// `JSON.stringify` writes as `\udXXX` escapes that no UTF-8 string can hold: those become
/// U+FFFD instead of failing the whole input.
pub(crate) fn parse(text: &str, what: &str) -> Result<Value> {
    use crate::model::{read_json, ReadError};
    if let Some(value) = crate::fast::read_value(text) {
        return Ok(value);
    }
    let read = match read_json(text) {
        Err(ReadError::Json(e)) => match crate::model::repair_lone_surrogates(text) {
            Some(fixed) => read_json(&fixed),
            None => Err(ReadError::Json(e)),
        },
        read => read,
    };
    read.map_err(|e| e.into_error(what, |e| Error::new(ErrorCode::InvalidJson, format!("{what} is not valid JSON: {e}"))))
}

/// A JSON value as a plain JS value (via `JSON.parse`, so keys are own data properties).
pub(crate) fn to_js(v: &Value) -> Result<JsValue> {
    parse_js(crate::text::to_string(v))
}

/// JSON text (toolwire's own output) as a plain JS value, by one `JSON.parse`. The text crosses
/// in ASCII ([`crate::text::ascii_only`]), which the engine turns into a string far faster.
pub(crate) fn parse_js(text: String) -> Result<JsValue> {
    js_sys::JSON::parse(&crate::text::ascii_only(text))
        .map_err(|_| Error::new(ErrorCode::InvalidInput, "output could not be parsed by JSON.parse"))
}

#[wasm_bindgen]
extern "C" {
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, s: &js_sys::JsString, into: &js_sys::Uint8Array) -> EncodeIntoResult;
    type EncodeIntoResult;
    #[wasm_bindgen(method, getter)]
    fn read(this: &EncodeIntoResult) -> u32;
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodeIntoResult) -> u32;
}

thread_local! {
    static ENCODER: TextEncoder = TextEncoder::new();
}

/// Strings of at most this many UTF-16 units cross the way wasm-bindgen passes them.
const SHORT: usize = 256;

/// A JS string as UTF-8, written by the engine's `TextEncoder.encodeInto` straight into wasm
/// memory (wasm-bindgen's own string passing copies ASCII one character at a time in JS; it
/// takes the strings of at most [`SHORT`] units, for which one crossing beats five).
/// Lone surrogates become U+FFFD, as with any string passed to wasm. Text the module's memory
/// cannot hold is a `LIMIT_EXCEEDED` error naming `what` (running out of memory would trap).
pub(crate) fn string_text(s: &js_sys::JsString, what: &str) -> Result<String> {
    let units = s.length() as usize;
    if units <= SHORT {
        // One crossing, where `encodeInto` takes five (the encoder, a view, the call, two reads).
        return Ok(String::from(s));
    }
    // Room for all-ASCII text first; the rest (3 bytes per UTF-16 unit at most) if needed.
    let mut buf: Vec<u8> = Vec::new();
    buf.try_reserve_exact(units).map_err(|_| too_big(what, units))?;
    let mut read = 0usize;
    ENCODER.with(|encoder| -> Result<()> {
        let mut rest = s.clone();
        loop {
            let spare = buf.capacity() - buf.len();
            // SAFETY: the view covers the vector's spare capacity and is used before anything
            // else can allocate (and so move or grow wasm memory).
            let view = unsafe { js_sys::Uint8Array::view_mut_raw(buf.as_mut_ptr().add(buf.len()), spare) };
            let r = encoder.encode_into(&rest, &view);
            // SAFETY: encodeInto wrote `written` bytes of UTF-8 there.
            unsafe { buf.set_len(buf.len() + r.written() as usize) };
            read += r.read() as usize;
            if read >= units {
                break;
            }
            rest = s.slice(read as u32, units as u32);
            buf.try_reserve((units - read) * 3).map_err(|_| too_big(what, buf.len() + (units - read) * 3))?;
        }
        Ok(())
    })?;
    // TextEncoder writes only well-formed UTF-8.
    Ok(String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// The error for input the module's memory cannot take in.
fn too_big(what: &str, bytes: usize) -> Error {
    Error::new(ErrorCode::LimitExceeded, format!("{what} needs {bytes} bytes of memory, more than toolwire can take in"))
}

/// JSON text given as a string or as UTF-8 bytes (`Uint8Array`); says which.
pub(crate) fn text_or_bytes_param(v: &JsValue, what: &str) -> Result<(String, bool)> {
    if let Some(s) = v.dyn_ref::<js_sys::JsString>() {
        return Ok((string_text(s, what)?, false));
    }
    if let Some(bytes) = v.dyn_ref::<js_sys::Uint8Array>() {
        return Ok((bytes_text(bytes, what)?, true));
    }
    let t = v.js_typeof().as_string().unwrap_or_default();
    Err(Error::new(
        ErrorCode::InvalidInput,
        format!("{what} must be a string or a Uint8Array, got {}", if v.is_null() { "null".owned() } else { t }),
    ))
}

/// UTF-8 bytes as text, for [`text_or_bytes_param`] (a function of its own: a call with a
/// string does not compile it).
#[inline(never)]
fn bytes_text(bytes: &js_sys::Uint8Array, what: &str) -> Result<String> {
    let n = bytes.length() as usize;
    let mut buf: Vec<u8> = Vec::new();
    buf.try_reserve_exact(n).map_err(|_| too_big(what, n))?;
    // SAFETY: the vector has room for the n bytes raw_copy_to_ptr writes (nothing else runs in
    // between), and they are initialised once it returns.
    unsafe {
        bytes.raw_copy_to_ptr(buf.as_mut_ptr());
        buf.set_len(n);
    }
    String::from_utf8(buf)
        .map_err(|e| Error::new(ErrorCode::InvalidJson, format!("{what} is not UTF-8 (invalid byte at {})", e.utf8_error().valid_up_to())))
}

/// A required string parameter.
pub(crate) fn string_param(v: &JsValue, what: &str) -> Result<String> {
    v.as_string().ok_or_else(|| {
        let t = v.js_typeof().as_string().unwrap_or_default();
        Error::new(ErrorCode::InvalidInput, format!("{what} must be a string, got {}", if v.is_null() { "null".owned() } else { t }))
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
