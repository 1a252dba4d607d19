//! The request headers of MCP 2026-07-28 that mirror a request's body: `Mcp-Name` (the tool or
//! prompt name, the resource URI) and `Mcp-Param-{Name}` (an argument a tool's `inputSchema`
//! marks with `x-mcp-header`), and the rules a tool's `x-mcp-header` marks must keep (a tool that
//! breaks them is not offered: a server would refuse every call of it).

use serde_json::Value;

use crate::text::Owned as _;

/// Whether a request header (its name lower-cased) is one the client sets from the protocol's
/// state or the request's body (`Mcp-Session-Id`, `MCP-Protocol-Version`, `Last-Event-ID`, and
/// 2026-07-28's `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*`), so not one an app may add: a value
/// of its own would contradict the body, and a server checking them refuses the request.
pub fn client_owned(name: &str) -> bool {
    matches!(name, "mcp-session-id" | "mcp-protocol-version" | "last-event-id" | "mcp-method" | "mcp-name") || name.starts_with("mcp-param-")
}

/// An argument sent in a header as well as in the body: `Mcp-Param-{header}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// The property names from the schema's root to the argument (`properties` all the way).
    pub path: Vec<String>,
    /// The name after `Mcp-Param-`, as the schema writes it.
    pub header: String,
}

/// The arguments of a tool that go in headers (its `inputSchema`'s `x-mcp-header` marks), or why
/// the tool cannot be called: a mark that is empty, not an HTTP token, on a property that is not
/// a string, an integer or a boolean, reached by anything but `properties` from the root, or a
/// name given twice (letter case aside).
pub fn header_params(input_schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    visit(input_schema, Some(&mut Vec::new()), &mut found)?;
    // A set of the lowercased names, not a comparison with every name before: a listing with tens
    // of thousands of marks is checked in linear time.
    let mut seen = std::collections::HashSet::with_capacity(found.len());
    for p in &found {
        if !seen.insert(p.header.to_ascii_lowercase()) {
            return Err(format!("x-mcp-header \"{}\" is given to two properties (names are compared without letter case)", p.header));
        }
    }
    Ok(found)
}

/// Keywords whose value is a schema, a list of schemas, or a map of names to schemas (2020-12 and
/// the drafts before it). The others hold data (`enum`, `const`, `default`, `examples`) or words.
fn subschemas(keyword: &str) -> Option<Shape> {
    Some(match keyword {
        "items" | "additionalItems" | "additionalProperties" | "not" | "if" | "then" | "else" | "contains" | "propertyNames"
        | "unevaluatedItems" | "unevaluatedProperties" | "contentSchema" => Shape::One,
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => Shape::List,
        "$defs" | "definitions" | "patternProperties" | "dependentSchemas" | "dependencies" => Shape::Map,
        _ => return None,
    })
}

enum Shape {
    /// A schema (or, for `items` before 2020-12, a list of them).
    One,
    List,
    Map,
}

/// `path`: the property names that reach `node` from the root through `properties` only, or
/// `None` once anything else was crossed (a mark there makes the tool invalid).
fn visit(node: &Value, mut path: Option<&mut Vec<String>>, found: &mut Vec<HeaderParam>) -> Result<(), String> {
    let Value::Object(o) = node else { return Ok(()) };
    if let Some(mark) = o.get("x-mcp-header") {
        let at = path.as_deref().map_or_else(|| "a place not reached through `properties` alone".owned(), |p| format!("property `{}`", p.join(".")));
        let Value::String(name) = mark else { return Err(format!("x-mcp-header of {at} is not a string")) };
        if name.is_empty() {
            return Err(format!("x-mcp-header of {at} is empty"));
        }
        if !name.bytes().all(is_tchar) {
            return Err(format!("x-mcp-header \"{name}\" of {at} is not an HTTP header name (letters, digits and !#$%&'*+-.^_`|~ only)"));
        }
        let path = match path.as_deref() {
            Some(p) if !p.is_empty() => p.clone(),
            _ => return Err(format!("x-mcp-header \"{name}\" is on {at}: only a property reached from the root through `properties` alone may go in a header")),
        };
        if !is_primitive(o.get("type")) {
            return Err(format!("x-mcp-header \"{name}\" is on property `{}`, which is not a string, an integer or a boolean", path.join(".")));
        }
        found.push(HeaderParam { path, header: name.clone() });
    }
    for (k, v) in o {
        if k == "properties" {
            let Value::Object(props) = v else { continue };
            for (name, sub) in props {
                match path.as_deref_mut() {
                    Some(p) => {
                        p.push(name.clone());
                        let r = visit(sub, Some(p), found);
                        p.pop();
                        r?;
                    }
                    None => visit(sub, None, found)?,
                }
            }
            continue;
        }
        match (subschemas(k), v) {
            (Some(Shape::Map), Value::Object(m)) => m.values().try_for_each(|s| visit(s, None, found))?,
            (Some(Shape::Map) | None, _) => {}
            // A list of schemas (`items` of the drafts before 2020-12 too).
            (Some(_), Value::Array(items)) => items.iter().try_for_each(|s| visit(s, None, found))?,
            (Some(_), v) => visit(v, None, found)?,
        }
    }
    Ok(())
}

/// `type` names one of string, integer, boolean (alone, or with "null").
fn is_primitive(ty: Option<&Value>) -> bool {
    let ok = |t: &str| matches!(t, "string" | "integer" | "boolean");
    match ty {
        Some(Value::String(t)) => ok(t),
        Some(Value::Array(ts)) => {
            let named: Vec<&str> = ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect();
            named.len() == 1 && ok(named[0]) && ts.iter().all(Value::is_string)
        }
        _ => false,
    }
}

/// RFC 9110 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The `Mcp-Param-*` headers of a call: each marked argument present and not null, written as
/// [`header_value`] writes it; an argument of another kind than a string, a safe integer or a
/// boolean is an error (the server would refuse the call: its body and headers must agree).
pub fn param_headers(params: &[HeaderParam], arguments: &Value) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for p in params {
        let mut at = Some(arguments);
        for name in &p.path {
            at = at.and_then(|v| v.get(name));
        }
        let text = match at {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => header_value(s),
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Number(n)) if n.as_i64().is_some_and(|i| i.unsigned_abs() < 1 << 53) => n.to_string(),
            // 42.0 is the integer 42 (servers compare numerically).
            Some(Value::Number(n)) if n.as_f64().is_some_and(|f| f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0) => (n.as_f64().unwrap_or_default() as i64).to_string(),
            Some(_) => {
                return Err(format!(
                    "argument `{}` goes in header Mcp-Param-{} and must be a string, an integer (within ±2^53) or a boolean",
                    p.path.join("."),
                    p.header
                ))
            }
        };
        out.push((format!("mcp-param-{}", p.header.to_ascii_lowercase()), text));
    }
    Ok(out)
}

/// A header value as MCP 2026-07-28 writes it: as is when it is printable ASCII without a space at
/// either end (and does not look like an encoded value itself), else `=?base64?{UTF-8 in
/// base64}?=`.
pub fn header_value(s: &str) -> String {
    let printable = s.bytes().all(|b| (0x20..0x7f).contains(&b));
    let padded = s.starts_with(' ') || s.ends_with(' ');
    let looks_encoded = s.starts_with("=?base64?") && s.ends_with("?=");
    let plain = printable && !padded && !looks_encoded;
    if plain {
        s.owned()
    } else {
        format!("=?base64?{}?=", base64(s.as_bytes()))
    }
}

/// Standard base64 with padding.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() { char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]) } else { '=' });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_plain_or_base64_as_the_specification_writes_them() {
        assert_eq!(header_value("us-west1"), "us-west1");
        assert_eq!(header_value("us west 1"), "us west 1");
        assert_eq!(header_value(""), "");
        assert_eq!(header_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(header_value("line1\r\nline2"), "=?base64?bGluZTENCmxpbmUy?=");
        assert_eq!(header_value("\tindented"), "=?base64?CWluZGVudGVk?=");
        assert_eq!(header_value("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
        assert_eq!(base64(b"a"), "YQ==");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"abc"), "YWJj");
        assert_eq!(base64(&[0xff, 0xfe, 0xfd, 0x00]), "//79AA==");
    }

    #[test]
    fn marks_reached_through_properties_are_found_with_their_paths() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"debug": {"type": ["boolean", "null"], "x-mcp-header": "Debug"}}},
            "x-mcp-header": {"type": "string"},
            "n": {"type": "integer", "x-mcp-header": "N", "enum": [{"x-mcp-header": 5}]}
        }});
        let found = header_params(&schema).unwrap();
        let paths: Vec<String> = found.iter().map(|p| format!("{}={}", p.path.join("."), p.header)).collect();
        assert_eq!(paths, ["region=Region", "opts.debug=Debug", "n=N"]);
        let h = param_headers(&found, &json!({"region": " x", "opts": {"debug": false}, "n": -7})).unwrap();
        assert_eq!(h, [("mcp-param-region".into(), "=?base64?IHg=?=".into()), ("mcp-param-debug".into(), "false".into()), ("mcp-param-n".into(), "-7".into())]);
        // Absent and null: no header.
        assert_eq!(param_headers(&found, &json!({"opts": null, "n": null})).unwrap(), []);
        assert_eq!(param_headers(&found, &json!({"n": 42.0})).unwrap(), [("mcp-param-n".into(), "42".into())]);
        for bad in [json!({"n": 1.5}), json!({"n": 9007199254740993u64}), json!({"region": ["a"]}), json!({"opts": {"debug": {"a": 1}}})] {
            assert!(param_headers(&found, &bad).unwrap_err().contains("must be a string, an integer"), "{bad}");
        }
    }

    // proptest is a native-only dev-dependency (see Cargo.toml).
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        /// Any value becomes a header value a fetch accepts (printable ASCII, no space at either
        /// end), and reads back as itself: as is, or through the base64 sentinel.
        #[test]
        fn any_value_is_a_valid_header_that_reads_back(s in "(?s).{0,24}", ascii in "[ -~\t\r\n]{0,24}") {
            for v in [s.as_str(), ascii.as_str(), &format!("=?base64?{ascii}?=")] {
                let h = header_value(v);
                proptest::prop_assert!(h.bytes().all(|b| (0x20..0x7f).contains(&b)) && !h.starts_with(' ') && !h.ends_with(' '), "{:?} -> {:?}", v, h);
                let back = match h.strip_prefix("=?base64?").and_then(|r| r.strip_suffix("?=")) {
                    Some(b64) => String::from_utf8(crate::results::decode_base64(b64)).unwrap(),
                    None => h.clone(),
                };
                proptest::prop_assert_eq!(back, v);
            }
        }
    }

    /// The duplicate check is linear: 60,000 marks (a 3 MB listing's worth) took seconds when
    /// each mark was compared with all the ones before it; a set of lowercased names takes a
    /// fraction of that even in a debug build. The last mark repeats the first in another case.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn many_marks_are_checked_for_duplicates_in_linear_time() {
        let n = 60_000;
        let mut props: serde_json::Map<String, Value> = (0..n).map(|i| (format!("p{i}"), json!({"type": "string", "x-mcp-header": format!("H{i}")}))).collect();
        let schema = json!({"type": "object", "properties": props.clone()});
        let started = std::time::Instant::now();
        assert_eq!(header_params(&schema).unwrap().len(), n);
        let took = started.elapsed();
        props.insert("last".into(), json!({"type": "string", "x-mcp-header": "h0"}));
        assert!(header_params(&json!({"type": "object", "properties": props})).unwrap_err().contains("is given to two properties"));
        assert!(took < std::time::Duration::from_secs(2), "{n} marks took {took:?}");
    }

    #[test]
    fn every_invalid_mark_of_the_conformance_suite_is_refused() {
        let one = |prop: Value| json!({"type": "object", "properties": {"p": prop}});
        let cases = [
            (one(json!({"type": "string", "x-mcp-header": ""})), "empty"),
            (one(json!({"type": "object", "x-mcp-header": "Data"})), "not a string, an integer"),
            (one(json!({"type": "array", "items": {"type": "string"}, "x-mcp-header": "Items"})), "not a string, an integer"),
            (one(json!({"type": "null", "x-mcp-header": "Nil"})), "not a string, an integer"),
            (one(json!({"type": "number", "x-mcp-header": "Score"})), "not a string, an integer"),
            (one(json!({"x-mcp-header": "Untyped"})), "not a string, an integer"),
            (one(json!({"type": "string", "x-mcp-header": "My Region"})), "not an HTTP header name"),
            (one(json!({"type": "string", "x-mcp-header": "Region:Primary"})), "not an HTTP header name"),
            (one(json!({"type": "string", "x-mcp-header": "Région"})), "not an HTTP header name"),
            (one(json!({"type": "string", "x-mcp-header": "Region\t1"})), "not an HTTP header name"),
            (one(json!({"type": "string", "x-mcp-header": 7})), "not a string"),
            (json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "MyField"}, "b": {"type": "string", "x-mcp-header": "myfield"}}}), "two properties"),
            (json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}), "through `properties` alone"),
            (json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}), "through `properties` alone"),
            (json!({"type": "object", "$defs": {"d": {"type": "string", "x-mcp-header": "D"}}}), "through `properties` alone"),
            (json!({"type": "object", "x-mcp-header": "Root"}), "through `properties` alone"),
        ];
        for (schema, why) in cases {
            let e = header_params(&schema).unwrap_err();
            assert!(e.contains(why), "{schema}: {e}");
        }
    }
}
