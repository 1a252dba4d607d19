//! MCP tool results to each provider's tool-result message (`toolResultMessage` in JS).
//!
//! * OpenAI Chat: `{role:"tool", tool_call_id, content}`: text only (images become placeholders;
//!   with `imageMessage` a following `user` message carries them as `image_url` parts).
//! * OpenAI Responses: `{type:"function_call_output", call_id, output}`: text, or with
//!   `multimodal` an array of `input_text` / `input_image`.
//! * Anthropic: `{type:"tool_result", tool_use_id, content:[text|image blocks], is_error}`.
//! * Gemini: `{functionResponse:{name, id?, response:{output}|{error}}}`, `structuredContent` as
//!   the output when present (the rest of the content, but a text that only repeats it, beside
//!   it as `content`); with `multimodal`, images in `parts` (Gemini 3).
//! * Bedrock: `{toolResult:{toolUseId, content:[{text}|{image}|{json}], status}}`.
//!
//! Images are checked before they are sent: a `data:` URL prefix is stripped, the base64 is
//! validated, the real format is read from the magic bytes (servers often mislabel screenshots)
//! and only formats the provider takes (PNG, JPEG, GIF, WebP) are sent; an empty, invalid or
//! unsupported image becomes a text placeholder. Text is capped as in `flattenContent`.

use std::borrow::Cow;

use serde_json::{json, Map, Value};

use crate::content::{block_text, truncate_utf16, utf16_len, FlattenOptions};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{object, CallToolResult, ContentBlock};

/// Providers that take tool results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultFormat {
    /// OpenAI Chat Completions (also Ollama and other compatible APIs).
    OpenAi,
    /// OpenAI Responses.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini / Vertex.
    Gemini,
    /// Bedrock Converse.
    Bedrock,
}

impl ResultFormat {
    /// Parses the provider string.
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "openai" | "openai-chat" | "ollama" => Self::OpenAi,
            "openai-responses" => Self::OpenAiResponses,
            "anthropic" => Self::Anthropic,
            "gemini" | "google" | "vertex" => Self::Gemini,
            "bedrock" => Self::Bedrock,
            other => return Err(Error::new(ErrorCode::UnknownProvider, format!("unknown provider \"{other}\""))),
        })
    }
}

/// Options for result messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultOptions {
    /// Cap on text, in UTF-16 code units.
    pub max_chars: usize,
    /// OpenAI Chat: also return a `user` message carrying the images.
    pub image_message: bool,
    /// Responses and Gemini: send images inside the result.
    pub multimodal: bool,
}

impl Default for ResultOptions {
    fn default() -> Self {
        Self { max_chars: FlattenOptions::default().max_chars, image_message: false, multimodal: false }
    }
}

/// An image checked and ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedImage {
    /// The MIME type read from the bytes.
    pub mime_type: &'static str,
    /// Raw base64 (no `data:` prefix, no whitespace).
    pub data: String,
}

/// Why an image cannot be sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageProblem {
    /// No data.
    Empty,
    /// Not base64.
    InvalidBase64,
    /// A format providers do not take (or unrecognisable bytes).
    Unsupported,
}

/// The standard base64 alphabet (`A-Z a-z 0-9 + /`), by byte.
static BASE64: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'+' as usize || b == b'/' as usize;
        b += 1;
    }
    table
};

/// Checks an MCP image: strips a `data:` prefix, validates base64, sniffs the format.
pub fn check_image(data: &str) -> std::result::Result<CheckedImage, ImageProblem> {
    let mut d = data.trim();
    if let Some(rest) = d.strip_prefix("data:") {
        d = rest.split_once(',').map_or("", |(_, b)| b);
    }
    // Standard base64 without whitespace, as images almost always come, is taken as it is;
    // anything else is cleaned character by character.
    let standard = d.bytes().all(|b| BASE64[usize::from(b)] || b == b'=');
    let clean: Cow<str> = if standard {
        Cow::Borrowed(d)
    } else {
        Cow::Owned(
            d.chars()
                .filter(|c| !c.is_ascii_whitespace())
                .map(|c| match c {
                    '-' => '+',
                    '_' => '/',
                    c => c,
                })
                .collect(),
        )
    };
    if clean.is_empty() {
        return Err(ImageProblem::Empty);
    }
    let body = clean.trim_end_matches('=');
    // Taken as it is, it holds only the alphabet and `=`: no `=` but at the end is left to check.
    let alphabet = match standard {
        true => !body.as_bytes().contains(&b'='),
        false => body.bytes().all(|b| BASE64[usize::from(b)]),
    };
    if clean.len() - body.len() > 2 || !alphabet || body.len() % 4 == 1 {
        return Err(ImageProblem::InvalidBase64);
    }
    let head = decode_prefix(body, 16);
    let mime = sniff(&head).ok_or(ImageProblem::Unsupported)?;
    let mut padded = body.to_owned();
    while padded.len() % 4 != 0 {
        padded.push('=');
    }
    Ok(CheckedImage { mime_type: mime, data: padded })
}

/// Decodes standard base64 (as [`check_image`] returns it).
pub fn decode_base64(b64: &str) -> Vec<u8> {
    decode_prefix(b64.trim_end_matches('='), usize::MAX - 3)
}

fn decode_prefix(b64: &str, max_bytes: usize) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            _ => 63,
        }
    };
    let mut out = Vec::with_capacity((b64.len() / 4 * 3 + 3).min(max_bytes.saturating_add(3)));
    for chunk in b64.as_bytes().chunks(4) {
        if out.len() >= max_bytes {
            break;
        }
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= val(*c) << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len().saturating_sub(1).clamp(1, 3)]);
    }
    out
}

fn sniff(b: &[u8]) -> Option<&'static str> {
    if b.starts_with(&[0x89, b'P', b'N', b'G']) {
        Some("image/png")
    } else if b.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if b.starts_with(b"GIF8") {
        Some("image/gif")
    } else if b.len() >= 12 && &b[..4] == b"RIFF" && &b[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// One piece of a result, ready for a provider.
enum Part {
    Text(String),
    Image(CheckedImage),
}

fn parts_of(result: &CallToolResult, opts: &ResultOptions) -> Vec<Part> {
    parts_of_where(result, opts, |_| true)
}

/// [`parts_of`] over the content blocks `keep` keeps.
fn parts_of_where(result: &CallToolResult, opts: &ResultOptions, keep: impl Fn(&ContentBlock) -> bool) -> Vec<Part> {
    let mut parts: Vec<Part> = Vec::new();
    let push_text = |parts: &mut Vec<Part>, t: String| match parts.last_mut() {
        Some(Part::Text(prev)) => {
            prev.push('\n');
            prev.push_str(&t);
        }
        _ => parts.push(Part::Text(t)),
    };
    for block in result.content.iter().filter(|b| keep(b)) {
        match block {
            ContentBlock::Image(img) => match check_image(&img.data) {
                Ok(ok) => parts.push(Part::Image(ok)),
                Err(problem) => {
                    let why = match problem {
                        ImageProblem::Empty => "empty image",
                        ImageProblem::InvalidBase64 => "invalid base64 data",
                        ImageProblem::Unsupported => "format not supported",
                    };
                    let mime = if img.mime_type.is_empty() { "unknown type" } else { img.mime_type.as_str() };
                    push_text(&mut parts, format!("[Image: {mime} (not sent: {why})]"));
                }
            },
            other => push_text(&mut parts, block_text(other)),
        }
    }
    if result.content.is_empty() {
        if let Some(sc) = &result.structured_content {
            push_text(&mut parts, sc.to_string());
        }
    }
    // One cap over all text, as flattenContent applies it.
    let mut budget = opts.max_chars;
    for p in &mut parts {
        if let Part::Text(t) = p {
            let len = utf16_len(t);
            let taken = std::mem::take(t);
            *t = truncate_utf16(taken, budget);
            budget = budget.saturating_sub(len);
        }
    }
    parts
}

fn text_of(parts: &[Part], with_placeholders: bool) -> String {
    let mut out = String::new();
    let mut first = true;
    for p in parts {
        let piece = match p {
            Part::Text(t) => Cow::Borrowed(t.as_str()),
            Part::Image(i) if with_placeholders => Cow::Owned(format!("[Image: {}]", i.mime_type)),
            Part::Image(_) => continue,
        };
        if !first {
            out.push('\n');
        }
        first = false;
        out.push_str(&piece);
    }
    out
}

fn data_url(i: &CheckedImage) -> String {
    format!("data:{};base64,{}", i.mime_type, i.data)
}

/// The call fields a result message needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallRef {
    /// The provider's call id.
    pub id: Option<String>,
    /// The name the provider used.
    pub name: String,
}

impl CallRef {
    /// Reads `{id, providerName}` (as `parseToolCalls` returns) or `{id, name}`.
    pub fn from_value(v: &Value) -> Result<Self> {
        let name = v
            .get("providerName")
            .or_else(|| v.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| Error::new(ErrorCode::InvalidInput, "call must have a string `providerName` (or `name`)"))?;
        let id = match v.get("id") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(Error::new(ErrorCode::InvalidInput, "call.id must be a string")),
        };
        Ok(Self { id, name: name.to_owned() })
    }

    fn require_id(&self, provider: &str) -> Result<&str> {
        self.id.as_deref().ok_or_else(|| {
            Error::new(ErrorCode::InvalidInput, format!("{provider} tool results need the call's id; call \"{}\" has none", self.name))
        })
    }
}

/// The provider message (or, for OpenAI Chat with `image_message`, messages) for a result.
pub fn tool_result_message(call: &CallRef, result: &CallToolResult, format: ResultFormat, opts: &ResultOptions) -> Result<Value> {
    let is_error = result.is_error == Some(true);
    let parts = parts_of(result, opts);
    Ok(match format {
        ResultFormat::OpenAi => {
            let id = call.require_id("OpenAI")?;
            let mut text = text_of(&parts, true);
            if is_error {
                text = format!("Error: {text}");
            }
            let msg = object([("role", "tool".into()), ("tool_call_id", id.into()), ("content", Value::String(text))]);
            let images: Vec<Value> = parts
                .iter()
                .filter_map(|p| match p {
                    Part::Image(i) => Some(json!({"type": "image_url", "image_url": {"url": data_url(i)}})),
                    Part::Text(_) => None,
                })
                .collect();
            if opts.image_message && !images.is_empty() {
                let mut content = vec![json!({"type": "text", "text": format!("Images returned by the tool call {id} ({}):", call.name)})];
                content.extend(images);
                Value::Array(vec![msg, object([("role", "user".into()), ("content", Value::Array(content))])])
            } else {
                msg
            }
        }
        ResultFormat::OpenAiResponses => {
            let id = call.require_id("OpenAI Responses")?;
            let has_images = parts.iter().any(|p| matches!(p, Part::Image(_)));
            let output = if opts.multimodal && has_images {
                let mut items = Vec::new();
                if is_error {
                    items.push(json!({"type": "input_text", "text": "Error:"}));
                }
                for p in parts {
                    items.push(match p {
                        Part::Text(t) => object([("type", "input_text".into()), ("text", Value::String(t))]),
                        Part::Image(i) => object([("type", "input_image".into()), ("image_url", Value::String(data_url(&i)))]),
                    });
                }
                Value::Array(items)
            } else {
                let text = text_of(&parts, true);
                Value::String(if is_error { format!("Error: {text}") } else { text })
            };
            object([("type", "function_call_output".into()), ("call_id", id.into()), ("output", output)])
        }
        ResultFormat::Anthropic => {
            let id = call.require_id("Anthropic")?;
            let mut content: Vec<Value> = parts
                .into_iter()
                .map(|p| match p {
                    Part::Text(t) => object([("type", "text".into()), ("text", Value::String(t))]),
                    Part::Image(i) => {
                        let source = object([("type", "base64".into()), ("media_type", i.mime_type.into()), ("data", Value::String(i.data))]);
                        object([("type", "image".into()), ("source", source)])
                    }
                })
                .filter(|b| b.get("text").and_then(Value::as_str) != Some(""))
                .collect();
            if content.is_empty() {
                content.push(json!({"type": "text", "text": "(no output)"}));
            }
            object([("type", "tool_result".into()), ("tool_use_id", id.into()), ("content", Value::Array(content)), ("is_error", is_error.into())])
        }
        ResultFormat::Gemini => {
            // The text is written only where it is sent: structured content stands in its place.
            let text = || Value::String(text_of(&parts, !opts.multimodal));
            let response = match &result.structured_content {
                _ if is_error => object([("error", text())]),
                Some(sc) => {
                    // The rest of the content beside it (links, resources, images' placeholders),
                    // without the text that only repeats it (servers are asked to add one).
                    let repeats = |b: &ContentBlock| matches!(b, ContentBlock::Text(t) if crate::model::read_json(&t.text).ok().as_ref() == Some(sc));
                    let rest = match result.content.is_empty() {
                        true => String::new(),
                        false => text_of(&parts_of_where(result, opts, |b| !repeats(b)), !opts.multimodal),
                    };
                    let mut r = Map::new();
                    r.insert("output".into(), sc.clone());
                    if !rest.is_empty() {
                        r.insert("content".into(), Value::String(rest));
                    }
                    Value::Object(r)
                }
                None => object([("output", text())]),
            };
            let mut fr = Map::new();
            fr.insert("name".into(), Value::String(call.name.clone()));
            if let Some(id) = &call.id {
                fr.insert("id".into(), Value::String(id.clone()));
            }
            fr.insert("response".into(), response);
            if opts.multimodal {
                let inline: Vec<Value> = parts
                    .into_iter()
                    .filter_map(|p| match p {
                        Part::Image(i) => Some(object([("inlineData", object([("mimeType", i.mime_type.into()), ("data", Value::String(i.data))]))])),
                        Part::Text(_) => None,
                    })
                    .collect();
                if !inline.is_empty() {
                    fr.insert("parts".into(), Value::Array(inline));
                }
            }
            object([("functionResponse", Value::Object(fr))])
        }
        ResultFormat::Bedrock => {
            let id = call.require_id("Bedrock")?;
            let mut content: Vec<Value> = parts
                .into_iter()
                .map(|p| match p {
                    Part::Text(t) => object([("text", Value::String(t))]),
                    Part::Image(i) => {
                        let source = object([("bytes", Value::String(i.data))]);
                        object([("image", object([("format", i.mime_type.trim_start_matches("image/").into()), ("source", source)]))])
                    }
                })
                .filter(|b| b.get("text").and_then(Value::as_str) != Some(""))
                .collect();
            if let Some(sc) = result.structured_content.as_ref().filter(|sc| sc.is_object()) {
                content.push(object([("json", sc.clone())]));
            }
            if content.is_empty() {
                content.push(json!({"text": "(no output)"}));
            }
            let status = if is_error { "error" } else { "success" };
            object([("toolResult", object([("toolUseId", id.into()), ("content", Value::Array(content)), ("status", status.into())]))])
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // 1x1 PNG
    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    // JPEG magic, labelled PNG by a server
    const JPEG: &str = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDA==";

    fn result(v: Value) -> CallToolResult {
        CallToolResult::from_value(v).unwrap()
    }

    fn call() -> CallRef {
        CallRef { id: Some("call_1".into()), name: "mcp__s__t".into() }
    }

    #[test]
    fn base64_round_trip() {
        assert_eq!(decode_base64("aGVsbG8="), b"hello");
        assert_eq!(decode_base64("aGVsbG8h"), b"hello!");
        assert_eq!(decode_base64("aGk="), b"hi");
        assert_eq!(&decode_base64(PNG)[1..4], b"PNG");
    }

    #[test]
    fn images_are_checked() {
        assert_eq!(check_image(PNG).unwrap().mime_type, "image/png");
        assert_eq!(check_image(&format!("data:image/png;base64,{PNG}")).unwrap().data, PNG);
        // https://github.com/anthropics/claude-code/issues/11975: the bytes decide
        assert_eq!(check_image(JPEG).unwrap().mime_type, "image/jpeg");
        assert_eq!(check_image(""), Err(ImageProblem::Empty));
        assert_eq!(check_image("not base64!"), Err(ImageProblem::InvalidBase64));
        assert_eq!(check_image("PHN2Zz48L3N2Zz4="), Err(ImageProblem::Unsupported)); // <svg></svg>
        // Standard base64 is taken as it is; `=` only at the end, two at most; padding restored.
        let body = PNG.trim_end_matches('=');
        assert_eq!(check_image(body).unwrap().data, PNG);
        let (a, b) = body.split_at(8);
        assert_eq!(check_image(&format!("{a}={b}")), Err(ImageProblem::InvalidBase64));
        assert_eq!(check_image(&format!("{body}===")), Err(ImageProblem::InvalidBase64));
        // Line breaks and the URL-safe alphabet are cleaned first.
        let wrapped = format!("{a}\r\n {b}");
        assert_eq!(check_image(&wrapped).unwrap().data, PNG);
        let url_safe = PNG.replace('+', "-").replace('/', "_");
        assert_eq!(check_image(&url_safe).unwrap().data, PNG);
        assert_eq!(check_image(&format!("{a}\n={b}")), Err(ImageProblem::InvalidBase64));
        assert_eq!(check_image(&format!("{a}é{b}")), Err(ImageProblem::InvalidBase64));
    }

    #[test]
    fn anthropic_tool_result() {
        let r = result(json!({"content":[{"type":"text","text":"shot"},{"type":"image","data":format!("data:image/jpeg;base64,{JPEG}"),"mimeType":"image/png"},{"type":"image","data":"","mimeType":"image/png"}],"isError":false}));
        let m = tool_result_message(&call(), &r, ResultFormat::Anthropic, &ResultOptions::default()).unwrap();
        assert_eq!(m["type"], "tool_result");
        assert_eq!(m["tool_use_id"], "call_1");
        assert_eq!(m["is_error"], false);
        assert_eq!(m["content"][0], json!({"type":"text","text":"shot"}));
        assert_eq!(m["content"][1]["source"]["media_type"], "image/jpeg");
        assert!(!m["content"][1]["source"]["data"].as_str().unwrap().starts_with("data:"));
        assert_eq!(m["content"][2]["text"], "[Image: image/png (not sent: empty image)]");
    }

    #[test]
    fn openai_chat_text_only_with_optional_image_message() {
        let r = result(json!({"content":[{"type":"text","text":"a"},{"type":"image","data":PNG,"mimeType":"image/png"}]}));
        let m = tool_result_message(&call(), &r, ResultFormat::OpenAi, &ResultOptions::default()).unwrap();
        assert_eq!(m, json!({"role":"tool","tool_call_id":"call_1","content":"a\n[Image: image/png]"}));
        let both = tool_result_message(&call(), &r, ResultFormat::OpenAi, &ResultOptions { image_message: true, ..ResultOptions::default() }).unwrap();
        assert_eq!(both[1]["role"], "user");
        assert!(both[1]["content"][1]["image_url"]["url"].as_str().unwrap().starts_with("data:image/png;base64,"));
        let err = result(json!({"content":[{"type":"text","text":"boom"}],"isError":true}));
        let m = tool_result_message(&call(), &err, ResultFormat::OpenAi, &ResultOptions::default()).unwrap();
        assert_eq!(m["content"], "Error: boom");
    }

    /// Beside `structuredContent` (the output), the rest of the content goes as `content`:
    /// links, resources and image placeholders, but not the text that repeats the structure.
    #[test]
    fn gemini_structured_output_keeps_the_rest_of_the_content() {
        let r: CallToolResult = CallToolResult::from_value(json!({
            "content": [
                {"type": "text", "text": "{\"rows\": 2}"},
                {"type": "resource_link", "uri": "file:///report.csv", "name": "report.csv"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "body text"}}
            ],
            "structuredContent": {"rows": 2}
        }))
        .unwrap();
        let m = tool_result_message(&call(), &r, ResultFormat::Gemini, &ResultOptions::default()).unwrap();
        let response = &m["functionResponse"]["response"];
        assert_eq!(response["output"], json!({"rows": 2}));
        let content = response["content"].as_str().unwrap();
        assert!(content.contains("report.csv") && content.contains("body text"), "{content}");
        assert!(!content.contains("rows"), "{content}");
        // Only the repeated text: nothing beside the output.
        let r = CallToolResult::from_value(json!({"content": [{"type": "text", "text": "{\"rows\":2}"}], "structuredContent": {"rows": 2}})).unwrap();
        let m = tool_result_message(&call(), &r, ResultFormat::Gemini, &ResultOptions::default()).unwrap();
        assert_eq!(m["functionResponse"]["response"], json!({"output": {"rows": 2}}));
        let r = CallToolResult::from_value(json!({"content": [], "structuredContent": {"rows": 2}})).unwrap();
        let m = tool_result_message(&call(), &r, ResultFormat::Gemini, &ResultOptions::default()).unwrap();
        assert_eq!(m["functionResponse"]["response"], json!({"output": {"rows": 2}}));
    }

    #[test]
    fn gemini_response_is_always_an_object() {
        let r = result(json!({"content":[{"type":"text","text":"{\"t\":1}"}],"structuredContent":{"t":1}}));
        let m = tool_result_message(&CallRef { id: None, name: "t".into() }, &r, ResultFormat::Gemini, &ResultOptions::default()).unwrap();
        assert_eq!(m, json!({"functionResponse":{"name":"t","response":{"output":{"t":1}}}}));
        let e = result(json!({"content":[{"type":"text","text":"bad"}],"isError":true}));
        let m = tool_result_message(&call(), &e, ResultFormat::Gemini, &ResultOptions::default()).unwrap();
        assert_eq!(m["functionResponse"]["response"], json!({"error":"bad"}));
        assert_eq!(m["functionResponse"]["id"], "call_1");
    }

    #[test]
    fn bedrock_and_responses() {
        let r = result(json!({"content":[{"type":"text","text":"x"},{"type":"image","data":PNG,"mimeType":"image/png"}],"structuredContent":{"k":2},"isError":true}));
        let m = tool_result_message(&call(), &r, ResultFormat::Bedrock, &ResultOptions::default()).unwrap();
        assert_eq!(m["toolResult"]["status"], "error");
        assert_eq!(m["toolResult"]["content"][1]["image"]["format"], "png");
        assert_eq!(m["toolResult"]["content"][2], json!({"json":{"k":2}}));
        let m = tool_result_message(&call(), &r, ResultFormat::OpenAiResponses, &ResultOptions { multimodal: true, ..ResultOptions::default() }).unwrap();
        assert_eq!(m["type"], "function_call_output");
        assert_eq!(m["output"][2]["type"], "input_image");
    }

    #[test]
    fn text_is_capped() {
        let r = result(json!({"content":[{"type":"text","text":"y".repeat(50)}]}));
        let m = tool_result_message(&call(), &r, ResultFormat::OpenAi, &ResultOptions { max_chars: 10, ..ResultOptions::default() }).unwrap();
        assert_eq!(m["content"], "yyyyyyyyyy\n[Truncated]");
    }
}
