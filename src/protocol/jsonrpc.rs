//! JSON-RPC 2.0 messages, classified by shape: `method` + `id` is a request, `method` alone a
//! notification, `result`/`error` with an `id` a response. Ids are per direction: a server
//! request with id 2 is not the response to our id 2. Id `0` is a real id.

use serde_json::{Map, Value};

use crate::model::{object, string, Put as _};
use crate::text::Owned as _;

/// The key of the object that stands in a listed tool's `name` which held a lone UTF-16
/// surrogate escape (`"\ud83d"`, a name cut inside an emoji), with the name as read (U+FFFD for
/// each lone half): [`read_message`] puts it, and the listing leaves that tool out, as no name
/// sent back from UTF-8 text can be the server's (two such names would even read as one). An
/// object as `name` is no tool anyway, whoever sent it.
pub const CUT_NAME: &str = "loneSurrogateName";

/// A message's JSON text, as [`crate::model::read_json_repaired`] reads it (lone surrogate
/// escapes as U+FFFD, as `JSON.parse` keeps them and the MCP SDK reads them), but a tool's
/// `name` in a `tools/list` result (`/result/tools/N/name`, in a batch too) so repaired becomes
/// `{CUT_NAME: name}`. A number past a double's range (`1e400`: valid JSON, which `JSON.parse`
/// reads as `Infinity`) is read as the largest double of its sign
/// ([`crate::model::read_json_clamped`]), which keeps its order against every finite number:
/// one such number does not cost the whole message (a listing all its tools).
pub fn read_message(text: &str) -> Result<Value, crate::model::ReadError> {
    use crate::model::{read_json_clamped, repair_lone_surrogates_at, ReadError};
    let e = match read_json_clamped(text) {
        Err(ReadError::Json(e)) => e,
        read => return read,
    };
    let Some((fixed, at)) = repair_lone_surrogates_at(text) else { return Err(ReadError::Json(e)) };
    let mut v = read_json_clamped(&fixed)?;
    for p in crate::model::pointers_at(&fixed, &at) {
        let is_index = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let name = match p.split('/').skip(1).collect::<Vec<_>>()[..] {
            ["result", "tools", n, "name"] => is_index(n),
            [i, "result", "tools", n, "name"] => is_index(i) && is_index(n),
            _ => false,
        };
        if name {
            if let Some(slot) = v.pointer_mut(&p).filter(|s| s.is_string()) {
                *slot = object([(CUT_NAME, slot.take())]);
            }
        }
    }
    Ok(v)
}

/// A `tools/list` result with each name [`read_message`] marked back as it was read (a string,
/// U+FFFD for each lone half): for a caller that asked for the listing itself.
pub fn unmark_cut_names(result: &mut Value) {
    let Some(Value::Array(tools)) = result.get_mut("tools") else { return };
    for name in tools.iter_mut().filter_map(|t| t.get_mut("name")) {
        let cut = match name {
            Value::Object(o) if o.len() == 1 => o.get_mut(CUT_NAME).filter(|n| n.is_string()).map(Value::take),
            _ => None,
        };
        if let Some(cut) = cut {
            *name = cut;
        }
    }
}

/// A request id (string or integer, never null).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Id {
    /// Integer id.
    Num(i64),
    /// String id.
    Str(String),
}

impl Id {
    /// Reads an id; `None` for null, numbers with a fraction and other types. A number is read
    /// by its value, as JavaScript reads it: `1.0`, `1e0` and `1` are the same id (a server that
    /// decodes ids as doubles writes them back so), and `-0` is `0`. A string stays a string:
    /// `"1"` is not `1`.
    pub fn from_value(v: &Value) -> Option<Self> {
        // 2^63: the first double past i64::MAX (every double below it with no fraction fits).
        const PAST_I64: f64 = 9_223_372_036_854_775_808.0;
        match v {
            Value::Number(n) => n.as_i64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && (-PAST_I64..PAST_I64).contains(f)).map(|f| f as i64)).map(Self::Num),
            Value::String(s) => Some(Self::Str(s.clone())),
            _ => None,
        }
    }

    /// Reads a progress token as [`Id::from_value`] does, but a string that is the decimal form
    /// of an integer (`"1"`) is that integer: the MCP SDK finds a progress handler by
    /// `Number(progressToken)`, so a server that echoes the integer token it was given as a string
    /// (a schema whose token is a string) still names the request. Other strings stay strings
    /// (`"01"`, `"1.0"`: the client's tokens are integers, written so only).
    pub fn progress_token(v: &Value) -> Option<Self> {
        match Self::from_value(v)? {
            Self::Str(s) => Some(s.parse::<i64>().ok().filter(|n| n.to_string() == s).map_or(Self::Str(s), Self::Num)),
            id => Some(id),
        }
    }

    /// The id as JSON.
    pub fn to_value(&self) -> Value {
        match self {
            Self::Num(n) => Value::from(*n),
            Self::Str(s) => string(s),
        }
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// Error code.
    pub code: i64,
    /// Message.
    pub message: String,
    /// Optional data.
    pub data: Option<Value>,
}

/// A classified incoming message.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A response to one of our requests.
    Response {
        /// The id it answers.
        id: Id,
        /// The result, or the error.
        outcome: Result<Value, RpcError>,
    },
    /// A request from the server (`ping`, `roots/list`, ...).
    Request {
        /// Its id (to answer with).
        id: Id,
        /// The method.
        method: String,
        /// Params.
        params: Value,
    },
    /// A notification from the server.
    Notification {
        /// The method.
        method: String,
        /// Params.
        params: Value,
    },
    /// An error response without a readable id (the server could not parse our message).
    OrphanError(RpcError),
    /// A message with an id that is neither a request nor a response JSON-RPC allows: an error
    /// object whose `code` is not an integer or whose `message` is not a string, or neither
    /// `result` nor `error`. `id`: the id it names, `None` for an error without a readable one.
    Malformed {
        /// The id it answers, if it names one.
        id: Option<Id>,
        /// What is wrong with it.
        problem: Malformed,
        /// The `error` member as it came (`Null` for [`Malformed::NoOutcome`]).
        error: Value,
    },
    /// Something that is not a JSON-RPC message.
    Invalid(Value),
}

/// What is wrong with an [`Incoming::Malformed`] message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Malformed {
    /// Its `error` is not an object with an integer `code` and a string `message`.
    BadError,
    /// It has neither `result` nor `error`.
    NoOutcome,
}

/// An error object as JSON-RPC 2.0 has it (`code` an integer, `message` a string), or `None`.
fn rpc_error(v: &Value) -> Option<RpcError> {
    Some(RpcError { code: v.get("code")?.as_i64()?, message: v.get("message")?.as_str()?.owned(), data: v.get("data").cloned() })
}

/// Classifies one message.
pub fn classify(v: Value) -> Incoming {
    let Value::Object(mut o) = v else { return Incoming::Invalid(v) };
    let id = o.get("id").and_then(Id::from_value);
    if let Some(Value::String(method)) = o.get("method") {
        let method = method.clone();
        let params = o.remove("params").unwrap_or(Value::Null);
        return match id {
            Some(id) => Incoming::Request { id, method, params },
            None => Incoming::Notification { method, params },
        };
    }
    // `"error": null` beside a result (JSON-RPC 1.0's way) is no error.
    if let Some(err) = o.get("error").filter(|e| !(e.is_null() && o.contains_key("result"))) {
        return match (rpc_error(err), id) {
            (Some(e), Some(id)) => Incoming::Response { id, outcome: Err(e) },
            (Some(e), None) => Incoming::OrphanError(e),
            (None, id) => Incoming::Malformed { id, problem: Malformed::BadError, error: o.remove("error").unwrap_or_default() },
        };
    }
    match (id, o.remove("result")) {
        (Some(id), Some(result)) => Incoming::Response { id, outcome: Ok(result) },
        (Some(id), None) => Incoming::Malformed { id: Some(id), problem: Malformed::NoOutcome, error: Value::Null },
        (None, _) => Incoming::Invalid(Value::Object(o)),
    }
}

/// What the text of a message that is not valid JSON tells of it, read lexically: the `id` and
/// whether there is a `method`, of its top-level object ([`sketch`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sketch {
    /// The top-level `id`, when it is a string or an integer written whole (the last one, as a
    /// JSON parser keeps the last of a repeated key).
    pub id: Option<Id>,
    /// A top-level `method` key is there, whatever its value: a request or a notification, no
    /// response.
    pub method: bool,
}

/// Reads the top-level keys `id` and `method` of a message that is not valid JSON (a value the
/// parser refused, a message cut short), without parsing it: strings and nesting are followed,
/// what is between them is not checked, and the reading stops where the text ends or the
/// top-level object closes. Text that does not open with `{` tells nothing.
pub fn sketch(text: &str) -> Sketch {
    let b = text.as_bytes();
    let mut out = Sketch::default();
    let mut i = skip_blanks(b, 0);
    if b.get(i) != Some(&b'{') {
        return out;
    }
    i += 1;
    let mut depth = 1usize;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let Some(end) = string_end(b, i) else { break };
                let colon = skip_blanks(b, end);
                if depth == 1 && b.get(colon) == Some(&b':') {
                    let value = skip_blanks(b, colon + 1);
                    match &text[i + 1..end - 1] {
                        "id" => out.id = id_token(text, value),
                        "method" => out.method = true,
                        _ => {}
                    }
                    i = value;
                } else {
                    i = end;
                }
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// The index past the blanks JSON allows from `i`.
fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The index past the closing quote of the string that opens at `start`, `None` when it does not close.
fn string_end(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The id a value written at `at` is, when it is a string or a number read whole.
fn id_token(text: &str, at: usize) -> Option<Id> {
    let b = text.as_bytes();
    let end = if b.get(at) == Some(&b'"') {
        string_end(b, at)?
    } else {
        let len = b[at..].iter().take_while(|c| matches!(c, b'-' | b'+' | b'.' | b'0'..=b'9' | b'e' | b'E')).count();
        // A number cut short by the end of the text may have lost digits.
        if at + len >= b.len() {
            return None;
        }
        at + len
    };
    serde_json::from_str::<Value>(&text[at..end]).ok().as_ref().and_then(Id::from_value)
}

/// Classifies a body that may be one message or a batch array.
pub fn classify_all(v: Value) -> Vec<Incoming> {
    match v {
        Value::Array(items) => items.into_iter().map(classify).collect(),
        other => vec![classify(other)],
    }
}

/// A request body.
pub fn request(id: &Id, method: &str, params: Value) -> String {
    let mut o = Map::new();
    o.put("jsonrpc", string("2.0"));
    o.put("id", id.to_value());
    o.put("method", string(method));
    if !params.is_null() {
        o.put("params", params);
    }
    crate::text::to_string(&Value::Object(o))
}

/// A notification body.
pub fn notification(method: &str, params: Value) -> String {
    let mut o = Map::new();
    o.put("jsonrpc", string("2.0"));
    o.put("method", string(method));
    if !params.is_null() {
        o.put("params", params);
    }
    crate::text::to_string(&Value::Object(o))
}

/// A response body (to a server request).
pub fn response(id: &Id, outcome: Result<Value, RpcError>) -> String {
    match outcome {
        Ok(result) => crate::text::to_string(&object([("jsonrpc", string("2.0")), ("id", id.to_value()), ("result", result)])),
        Err(e) => {
            let mut err = crate::model::object([("code", e.code.into()), ("message", e.message.into())]);
            if let Some(d) = e.data {
                err["data"] = d;
            }
            crate::text::to_string(&object([("jsonrpc", string("2.0")), ("id", id.to_value()), ("error", err)]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn classification() {
        assert_eq!(classify(json!({"jsonrpc":"2.0","id":0,"result":{}})), Incoming::Response { id: Id::Num(0), outcome: Ok(json!({})) });
        assert_eq!(classify(json!({"jsonrpc":"2.0","id":"a","method":"ping"})), Incoming::Request { id: Id::Str("a".into()), method: "ping".into(), params: Value::Null });
        assert!(matches!(classify(json!({"jsonrpc":"2.0","method":"notifications/progress","params":{}})), Incoming::Notification { .. }));
        assert!(matches!(classify(json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}})), Incoming::OrphanError(_)));
        assert!(matches!(classify(json!({"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"m","data":1}})), Incoming::Response { outcome: Err(RpcError { code: -32602, .. }), .. }));
        assert!(matches!(classify(json!(5)), Incoming::Invalid(_)));
        assert_eq!(classify_all(json!([{"id":1,"result":1},{"method":"x"}])).len(), 2);
    }

    /// A number id is its value whatever way it is written; a fraction, a number past i64 and a
    /// string of digits are not the number's id.
    #[test]
    fn number_ids_are_read_by_value() {
        for text in ["1", "1.0", "1e0", "10e-1", "1.000"] {
            let v: Value = serde_json::from_str(&format!(r#"{{"jsonrpc":"2.0","id":{text},"result":{{}}}}"#)).unwrap();
            assert_eq!(classify(v), Incoming::Response { id: Id::Num(1), outcome: Ok(json!({})) }, "{text}");
        }
        for text in ["0", "-0", "0.0", "-0.0", "0e5"] {
            let v: Value = serde_json::from_str(text).unwrap();
            assert_eq!(Id::from_value(&v), Some(Id::Num(0)), "{text}");
        }
        assert_eq!(Id::from_value(&json!(-7.0)), Some(Id::Num(-7)));
        assert_eq!(Id::from_value(&json!(9_007_199_254_740_992.0_f64)), Some(Id::Num(1 << 53)));
        assert_eq!(Id::from_value(&json!(-9_223_372_036_854_775_808.0_f64)), Some(Id::Num(i64::MIN)));
        for v in [json!(1.5), json!(-0.25), json!(9_223_372_036_854_775_808.0_f64), json!(1e300), json!("1"), json!(null), json!(true)] {
            assert!(!matches!(Id::from_value(&v), Some(Id::Num(_))), "{v}");
        }
        assert_eq!(Id::from_value(&json!("1")), Some(Id::Str("1".into())));
    }

    /// A progress token that is the decimal form of an integer is that integer (as the MCP SDK's
    /// `Number(progressToken)` finds it); other strings stay strings.
    #[test]
    fn a_progress_token_in_the_string_form_of_an_integer_is_the_integer() {
        for (v, id) in [(json!("1"), Id::Num(1)), (json!("0"), Id::Num(0)), (json!("-7"), Id::Num(-7)), (json!(1.0), Id::Num(1)), (json!(2), Id::Num(2))] {
            assert_eq!(Id::progress_token(&v), Some(id), "{v}");
        }
        for text in ["01", "+1", "1.0", " 1", "", "-0", "x1", "9223372036854775808"] {
            assert_eq!(Id::progress_token(&json!(text)), Some(Id::Str(text.into())), "{text}");
        }
        assert_eq!(Id::progress_token(&json!(null)), None);
    }

    /// The top-level `id` and `method` of a message that is no JSON are read from its text: not
    /// those of nested objects, not a number cut short, the last of a repeated key.
    #[test]
    fn a_message_that_is_no_json_is_sketched() {
        let id = |n| Sketch { id: Some(Id::Num(n)), method: false };
        for (text, expected) in [
            (r#"{"jsonrpc":"2.0","id":3,"result":{"x":NaN}}"#, id(3)),
            (r#"{"result":{"content":[{"text":"a \"id\": 9 }"}],"x":NaN},"jsonrpc":"2.0","id":3}"#, id(3)),
            (r#" { "id" : "a\"b" , "error": {"code": -1, "message": 'x'} }"#, Sketch { id: Some(Id::Str("a\"b".into())), method: false }),
            (r#"{"id":1.0,"result":[1,2,{"id":5}],"id":4,"oops"#, id(4)),
            (r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":NaN}}"#, Sketch { id: None, method: true }),
            (r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":}"#, Sketch { id: Some(Id::Num(7)), method: true }),
            (r#"{"result":{"content":[{"text":"cut"#, Sketch::default()),
            (r#"{"jsonrpc":"2.0","id":12"#, Sketch::default()),
            (r#"{"id":null,"result":x}"#, Sketch::default()),
            (r#"{"id":1.5,"result":x}"#, Sketch::default()),
            (r#"{"nested":{"id":2},"result":x}"#, Sketch::default()),
            ("[{\"id\":1}, x]", Sketch::default()),
            ("hello", Sketch::default()),
            ("", Sketch::default()),
        ] {
            assert_eq!(sketch(text), expected, "{text}");
        }
    }

    /// An error object JSON-RPC does not allow is told apart from a server's error (its code and
    /// message were read as 0 and ""), and kept as it came; so is a response without an outcome.
    #[test]
    fn malformed_responses_are_told_apart() {
        let bad = json!({"code": "E_TOOL", "message": {"text": "disk full"}});
        assert_eq!(
            classify(json!({"jsonrpc":"2.0","id":1,"error":bad})),
            Incoming::Malformed { id: Some(Id::Num(1)), problem: Malformed::BadError, error: bad.clone() }
        );
        assert_eq!(classify(json!({"jsonrpc":"2.0","id":null,"error":{"code":-1}})), Incoming::Malformed { id: None, problem: Malformed::BadError, error: json!({"code":-1}) });
        assert_eq!(classify(json!({"jsonrpc":"2.0","id":2,"error":null})), Incoming::Malformed { id: Some(Id::Num(2)), problem: Malformed::BadError, error: Value::Null });
        assert_eq!(classify(json!({"jsonrpc":"2.0","id":1})), Incoming::Malformed { id: Some(Id::Num(1)), problem: Malformed::NoOutcome, error: Value::Null });
        assert_eq!(classify(json!({"jsonrpc":"2.0","id":1,"result":{},"error":null})), Incoming::Response { id: Id::Num(1), outcome: Ok(json!({})) });
        assert!(matches!(classify(json!({"jsonrpc":"2.0"})), Incoming::Invalid(_)));
    }

    /// A number past a double's range (valid JSON, `Infinity` to `JSON.parse`) is read as the
    /// largest double of its sign, the rest of the message as it came: one tool's `maximum:
    /// 1e400` does not cost the listing. Numbers in strings, those within range and those too
    /// small (0) are untouched; a lone surrogate beside one is repaired too; what is no JSON stays so.
    #[test]
    fn a_number_past_a_doubles_range_is_read_as_the_largest_double() {
        let max = f64::MAX;
        let text = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"ok","inputSchema":{"type":"object"}},
            {"name":"big","inputSchema":{"type":"number","maximum":1e400,"minimum":-1E+400,"x":-12e-400,"d":"1e400"}}],"n":1e308}}"#;
        let v = read_message(text).unwrap();
        let schema = &v["result"]["tools"][1]["inputSchema"];
        assert_eq!((schema["maximum"].as_f64(), schema["minimum"].as_f64()), (Some(max), Some(-max)));
        assert_eq!((schema["x"].as_f64(), &schema["d"]), (Some(-0.0), &json!("1e400")));
        assert_eq!(v["result"]["tools"][0]["name"], "ok");
        assert_eq!(v["result"]["n"].as_f64(), Some(1e308));
        let digits = format!(r#"{{"id":2,"result":{{"big":{},"s":"\ud83d"}}}}"#, "9".repeat(400));
        let v = read_message(&digits).unwrap();
        assert_eq!((v["result"]["big"].as_f64(), &v["result"]["s"]), (Some(max), &json!("\u{fffd}")));
        assert!(read_message(r#"{"id":1,"result":1e400,}"#).is_err());
        assert!(crate::model::clamp_huge_numbers(r#"{"a":1.5e300,"b":"1e999"}"#).is_none(), "nothing to clamp");
    }
}
