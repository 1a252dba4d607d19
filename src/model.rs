//! MCP model types, in the style of the official Rust SDK (rmcp): camelCase on the wire,
//! optional fields skipped when absent, `_meta` kept, and every unknown field preserved in
//! `extra` so that nothing a server sent is dropped on the way through.
//!
//! Parsing is lenient where real servers are sloppy (see `../shared/corpus`): an `inputSchema`
//! of any JSON type is accepted here and normalised later by [`crate::schema`]; annotation hints
//! that are not booleans are kept verbatim in `extra` instead of failing the whole tool.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::error::{Error, ErrorCode, Result};

/// A JSON object, as used for schemas and arguments.
pub type JsonObject = Map<String, Value>;

/// An MCP tool definition (`tools/list` entry).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The tool's name on its server.
    pub name: String,
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "lenient_string")]
    pub title: Option<String>,
    /// Description for the model.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "lenient_string")]
    pub description: Option<String>,
    /// JSON Schema of the arguments. `Value::Null` when absent.
    #[serde(default)]
    pub input_schema: Value,
    /// JSON Schema of `structuredContent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints. Hints, not guarantees: never a reason to trust a tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// The server this tool comes from, as MCP client apps attach it (not part of MCP itself).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "lenient_string")]
    pub server_name: Option<String>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// Every other field, kept verbatim (`icons`, `execution`, vendor keys...).
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Tool {
    /// Parses one tool from JSON, with an error naming the tool (or its index) on failure.
    pub fn from_value(value: Value, index: usize) -> Result<Self> {
        let hint = match value.get("name") {
            Some(Value::String(s)) => format!("\"{s}\""),
            _ => format!("at index {index}"),
        };
        match &value {
            Value::Object(o) => match o.get("name") {
                Some(Value::String(s)) if !s.is_empty() => {}
                Some(Value::String(_)) => {
                    return Err(Error::new(ErrorCode::InvalidTool, format!("tool {hint} has an empty name")))
                }
                Some(_) => {
                    return Err(Error::new(ErrorCode::InvalidTool, format!("tool {hint}: \"name\" must be a string")))
                }
                None => return Err(Error::new(ErrorCode::InvalidTool, format!("tool {hint} has no \"name\""))),
            },
            other => {
                return Err(Error::new(
                    ErrorCode::InvalidTool,
                    format!("tool {hint} must be an object, got {}", json_type(other)),
                ))
            }
        }
        serde_json::from_value(value)
            .map_err(|e| Error::new(ErrorCode::InvalidTool, format!("tool {hint} could not be read: {e}")))
    }

    /// The text a provider should see as the description: the description, else the title.
    pub fn description_text(&self) -> &str {
        match (&self.description, &self.title) {
            (Some(d), _) if !d.trim().is_empty() => d,
            (_, Some(t)) if !t.trim().is_empty() => t,
            _ => "",
        }
    }
}

/// Tool behaviour hints (MCP `ToolAnnotations`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "lenient_string")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "lenient_bool")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "lenient_bool")]
    pub destructive_hint: Option<bool>,
    /// Repeated calls with the same arguments have no additional effect.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "lenient_bool")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "lenient_bool")]
    pub open_world_hint: Option<bool>,
    /// Every other field, kept verbatim.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// One content block of a tool result.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// `{type:"text", text}`
    Text(TextContent),
    /// `{type:"image", data, mimeType}`
    Image(MediaContent),
    /// `{type:"audio", data, mimeType}`
    Audio(MediaContent),
    /// `{type:"resource_link", uri, name, ...}`
    ResourceLink(ResourceLink),
    /// `{type:"resource", resource:{uri, mimeType?, text|blob}}`
    Resource(EmbeddedResource),
    /// A block of a type this version does not know (or a malformed one), kept as raw JSON.
    Unknown(Value),
}

/// Text content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Every other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Image or audio content: base64 data and a MIME type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaContent {
    /// Base64 data.
    #[serde(default)]
    pub data: String,
    /// MIME type, e.g. `image/png`.
    #[serde(default)]
    pub mime_type: String,
    /// Every other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A link to a resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// Resource URI.
    pub uri: String,
    /// Resource name.
    #[serde(default)]
    pub name: String,
    /// Title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// An embedded resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The resource contents.
    pub resource: ResourceContents,
    /// Every other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Contents of an embedded resource: text or base64 blob.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceContents {
    /// Resource URI.
    #[serde(default)]
    pub uri: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Base64 contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ContentBlock {
    /// Reads one block; anything unrecognised or malformed becomes [`ContentBlock::Unknown`].
    pub fn from_value(value: Value) -> Self {
        fn typed<T: serde::de::DeserializeOwned>(v: &Value) -> Option<T> {
            T::deserialize(v).ok()
        }
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        let parsed = match kind {
            "text" => typed(&value).map(Self::Text),
            "image" => typed(&value).map(Self::Image),
            "audio" => typed(&value).map(Self::Audio),
            "resource_link" => typed(&value).map(Self::ResourceLink),
            "resource" => typed(&value).map(Self::Resource),
            _ => None,
        };
        parsed.unwrap_or(Self::Unknown(value))
    }

    /// The block as JSON, with its `type` tag.
    pub fn to_value(&self) -> Value {
        fn tagged<T: Serialize>(kind: &str, v: &T) -> Value {
            let mut out = serde_json::to_value(v).unwrap_or(Value::Null);
            if let Value::Object(o) = &mut out {
                o.insert("type".into(), Value::String(kind.into()));
            }
            out
        }
        match self {
            Self::Text(c) => tagged("text", c),
            Self::Image(c) => tagged("image", c),
            Self::Audio(c) => tagged("audio", c),
            Self::ResourceLink(c) => tagged("resource_link", c),
            Self::Resource(c) => tagged("resource", c),
            Self::Unknown(v) => v.clone(),
        }
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Ok(Self::from_value(Value::deserialize(d)?))
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

/// The result of `tools/call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Content blocks.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// Structured result (an object by 2025-11-25; any JSON value later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool reported an execution error.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "lenient_bool")]
    pub is_error: Option<bool>,
    /// Protocol metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CallToolResult {
    /// Reads a result, or a bare content array (as some clients pass it).
    pub fn from_value(value: Value) -> Result<Self> {
        match value {
            Value::Array(items) => {
                Ok(Self { content: items.into_iter().map(ContentBlock::from_value).collect(), ..Self::default() })
            }
            Value::Object(_) => serde_json::from_value(value).map_err(|e| {
                Error::new(ErrorCode::InvalidInput, format!("not a CallToolResult or content array: {e}"))
            }),
            other => Err(Error::new(
                ErrorCode::InvalidInput,
                format!("expected a CallToolResult object or a content array, got {}", json_type(&other)),
            )),
        }
    }
}

/// Size figures of a JSON value, measured without recursion so that any input, however deep,
/// can be checked before recursive code touches it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JsonSize {
    /// Nesting depth (a scalar is 0).
    pub depth: usize,
    /// Number of values.
    pub nodes: usize,
    /// Longest string (keys included), in bytes.
    pub longest_string: usize,
}

/// Measures a JSON value (see [`JsonSize`]).
pub fn json_size(v: &Value) -> JsonSize {
    let mut size = JsonSize::default();
    let mut stack: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, d)) = stack.pop() {
        size.nodes += 1;
        match v {
            Value::Object(o) => {
                size.depth = size.depth.max(d + 1);
                for (k, c) in o {
                    size.longest_string = size.longest_string.max(k.len());
                    stack.push((c, d + 1));
                }
            }
            Value::Array(a) => {
                size.depth = size.depth.max(d + 1);
                stack.extend(a.iter().map(|c| (c, d + 1)));
            }
            Value::String(s) => size.longest_string = size.longest_string.max(s.len()),
            _ => {}
        }
    }
    size
}

/// The nesting depth of a JSON value (see [`json_size`]).
pub fn json_depth(v: &Value) -> usize {
    json_size(v).depth
}

/// Replaces `\uD800`-`\uDFFF` escapes that do not form a surrogate pair with `\uFFFD` in
/// JSON text. Returns `None` when there is none (so the caller's error stands).
pub fn repair_lone_surrogates(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let hex4 = |i: usize| -> Option<u32> {
        let s = text.get(i..i + 4)?;
        u32::from_str_radix(s, 16).ok()
    };
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut changed = false;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        // An escape: `\\` (skip both), or `\u` + 4 hex digits.
        if b.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(cp) = hex4(i + 2) else {
            i += 2;
            continue;
        };
        let is_high = (0xD800..0xDC00).contains(&cp);
        let is_low = (0xDC00..0xE000).contains(&cp);
        if is_high && b.get(i + 6) == Some(&b'\\') && b.get(i + 7) == Some(&b'u') && hex4(i + 8).is_some_and(|n| (0xDC00..0xE000).contains(&n)) {
            i += 12; // a proper pair
            continue;
        }
        if is_high || is_low {
            out.push_str(&text[last..i]);
            out.push_str("\\uFFFD");
            last = i + 6;
            changed = true;
        }
        i += 6;
    }
    if !changed {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// The JSON type name of a value, for messages.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn lenient_bool<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<bool>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Bool(b) => Some(b),
        Value::String(s) if s == "true" => Some(true),
        Value::String(s) if s == "false" => Some(false),
        _ => None,
    })
}

fn lenient_string<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => Some(s),
        Value::Null => None,
        other => Some(other.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(repair_lone_surrogates(r#""a\ud800b""#).as_deref(), Some(r#""a\uFFFDb""#));
        assert_eq!(repair_lone_surrogates(r#""\udc00""#).as_deref(), Some(r#""\uFFFD""#));
        assert_eq!(repair_lone_surrogates(r#""\ud83d\ude00 ok""#), None, "a pair is kept");
        assert_eq!(repair_lone_surrogates(r#""\\ud800""#), None, "an escaped backslash is text");
        let fixed = repair_lone_surrogates(r#"{"k":"\ud83d\ud83d\ude00"}"#).unwrap();
        let v: Value = serde_json::from_str(&fixed).unwrap();
        assert_eq!(v["k"], "\u{fffd}😀");
    }

    #[test]
    fn sizes_are_measured_without_recursion() {
        let mut v = Value::Null;
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        let s = json_size(&v);
        assert_eq!(s.depth, 100_000);
        // Dropping a value this deep would recurse; leak it on purpose in this test.
        std::mem::forget(v);
    }
}
