//! Flattening MCP tool results to text.
//!
//! Text blocks as they are; `image` → `[Image: {mimeType} (not sent: text only)]`; `audio` →
//! `[Audio: {mimeType} (not sent: text only)]` (a URL in place of the data kept: `[Image:
//! {mimeType}, {url} (not sent: a URL, not base64 data)]`);
//! `resource_link` → `[Resource link: {name} ({uri})]`, `{name}, "{title}"` with a title,
//! `({uri}, {mimeType}, {size})` with a MIME type or a size, then `: {description}` when it has one; an embedded text resource its text under a header line
//! `[Resource: {uri} ({mimeType})]`, an embedded blob of text (`text/*`, JSON, XML...) its text
//! decoded under that line, any other blob `[Resource: {uri} ({mimeType}), {size}, not sent: {why}]`
//! (`text only`, `not UTF-8 text`, `invalid base64 data`...), a resource of both (which MCP does
//! not allow) its text, then its blob so; a block of unknown type (or a
//! malformed one) `[Unsupported content: {type}]` and its JSON on the next line. Items are joined
//! with `\n`. A whole result adds its `structuredContent` as JSON text unless a text block already
//! is that JSON (MCP asks servers for one); that JSON is kept whole when it fits the cap, the rest
//! of the text cut first; an error starts with `Error: `. The result is held to `max_chars` UTF-16
//! code units (the length JS reports), the marker included, never cut inside a surrogate pair nor
//! inside the common grapheme clusters (`prefix`): the cut text ends with
//! `\n[Truncated: {shown} of {total} characters shown]`.

use serde_json::Value;

use crate::model::{read_json, CallToolResult, ContentBlock};
use crate::text::Owned as _;

/// Default cap on flattened text, in UTF-16 code units.
pub const DEFAULT_MAX_CHARS: usize = 100_000;

/// How the marker appended after a cut starts: `\n[Truncated: {shown} of {total} characters
/// shown]` (see [`truncated_marker`]).
pub const TRUNCATED_MARKER: &str = "\n[Truncated";

/// The marker where a cap leaves no room for the counts (`max_chars` under about 40).
pub const SHORT_MARKER: &str = "\n[Truncated]";

/// The marker after a cut: how much of how much was shown, in UTF-16 code units.
pub fn truncated_marker(shown: usize, total: usize) -> String {
    format!("\n[Truncated: {shown} of {total} characters shown]")
}

/// Flattening options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlattenOptions {
    /// Cap in UTF-16 code units, the truncation marker included.
    pub max_chars: usize,
}

impl Default for FlattenOptions {
    fn default() -> Self {
        Self { max_chars: DEFAULT_MAX_CHARS }
    }
}

/// The placeholder or text of one block (of an embedded resource, its text: its blob is written
/// by the result's builder, `results::Builder::blob`).
pub fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text.clone(),
        // As text, media is never sent: the placeholder says so, lest the model describe what it never saw.
        // A URL in place of the data is all there is of it: shown.
        ContentBlock::Image(m) => match crate::results::url_in_data(&m.data) {
            Some(url) => format!("[Image: {}, {url} (not sent: a URL, not base64 data)]", or_unknown(&m.mime_type)),
            None => format!("[Image: {} (not sent: text only)]", or_unknown(&m.mime_type)),
        },
        ContentBlock::Audio(m) => match crate::results::url_in_data(&m.data) {
            Some(url) => format!("[Audio: {}, {url} (not sent: text only)]", or_unknown(&m.mime_type)),
            None => format!("[Audio: {} (not sent: text only)]", or_unknown(&m.mime_type)),
        },
        ContentBlock::ResourceLink(l) => {
            // The name (MCP's identifier of the resource), and its title where it has another:
            // `q3.csv, "Q3 sales export"`; the title alone where the name is empty.
            let title = l.title.as_deref().filter(|t| !t.is_empty() && *t != l.name);
            let name = match (l.name.is_empty(), title) {
                (_, None) => l.name.clone(),
                (true, Some(t)) => t.owned(),
                (false, Some(t)) => format!("{}, \"{t}\"", l.name),
            };
            // The uri, then the MIME type and the size, where given (MCP's `size`, in bytes: a
            // model reading it knows whether the resource is worth reading).
            let size = l.extra.get("size").and_then(Value::as_f64).filter(|n| (0.0..=MAX_SIZE).contains(n)).map(|n| crate::results::size_text_u64(n.round() as u64));
            let uri = crate::results::shown_uri(&l.uri);
            let details: Vec<&str> = [l.mime_type.as_deref().filter(|m| !m.is_empty()), size.as_deref()].into_iter().flatten().collect();
            let mut out = match (name.is_empty(), details.is_empty()) {
                (true, true) => format!("[Resource link: {uri}"),
                (true, false) => format!("[Resource link: {uri} ({})", details.join(", ")),
                (false, true) => format!("[Resource link: {name} ({uri})"),
                (false, false) => format!("[Resource link: {name} ({uri}, {})", details.join(", ")),
            };
            if let Some(d) = l.description.as_deref().filter(|d| !d.is_empty()) {
                out.push_str(": ");
                out.push_str(d);
            }
            out.push(']');
            out
        }
        ContentBlock::Resource(r) => {
            // The header says what the text is and where it comes from (blobs: `results::blob_text`).
            let res = &r.resource;
            let mut out = crate::results::resource_header(&res.uri, res.mime_type.as_deref().unwrap_or(""));
            if let Some(text) = &res.text {
                out.push('\n');
                out.push_str(text);
            }
            out
        }
        ContentBlock::Unknown(Value::Null) => "[Unsupported content: unknown]".owned(),
        ContentBlock::Unknown(v) => {
            let (line, json) = unknown_lines(v);
            format!("{line}\n{}", crate::text::to_string_js(&json))
        }
    }
}

/// A block of unknown type (or a malformed one) as the model is shown it: a line that says so,
/// and its JSON under it, so that what it holds still reaches the model (cut by the cap), its
/// payload shortened ([`without_payload`]).
pub(crate) fn unknown_lines(v: &Value) -> (String, std::borrow::Cow<'_, Value>) {
    let kind = v.get("type").and_then(|t| t.as_str()).unwrap_or("unknown");
    (format!("[Unsupported content: {kind}]"), without_payload(v))
}

/// An unsupported block as the model is shown it: a `blob` or `data` string past 256
/// characters (UTF-16 units, as `maxChars` counts: base64 bytes no model reads, which would fill
/// the cap and push out the text after it) written as its length, and so bytes past 64 (a Buffer
/// or a Uint8Array as JSON writes them, `{"type":"Buffer","data":[137,...]}` and `{"0":137,...}`,
/// or an array of byte values: a number each); the rest as it is.
fn without_payload(v: &Value) -> std::borrow::Cow<'_, Value> {
    fn payload(k: &str, x: &Value) -> Option<String> {
        if k != "blob" && k != "data" {
            return None;
        }
        match x {
            Value::String(s) if s.len() > 256 && utf16_len(s) > 256 => Some(format!("({} characters, not shown)", utf16_len(s))),
            x => bytes_len(x).filter(|&n| n > 64).map(|n| format!("({n} bytes, not shown)")),
        }
    }
    // Where a block's fields are: its own, its `resource`'s (and a few levels more).
    fn has(v: &Value, depth: usize) -> bool {
        v.as_object().is_some_and(|o| o.iter().any(|(k, x)| payload(k, x).is_some() || (depth < 4 && has(x, depth + 1))))
    }
    fn strip(v: &mut Value, depth: usize) {
        let Value::Object(o) = v else { return };
        for (k, x) in o.iter_mut() {
            if let Some(shown) = payload(k, x) {
                *x = Value::String(shown);
            } else if depth < 4 {
                strip(x, depth + 1);
            }
        }
    }
    if !has(v, 0) {
        return std::borrow::Cow::Borrowed(v);
    }
    let mut v = v.clone();
    strip(&mut v, 0);
    std::borrow::Cow::Owned(v)
}

/// How many bytes `v` is, where it is bytes as JSON writes them: a Node `Buffer`'s
/// `{"type":"Buffer","data":[...]}`, a typed array's `{"0":...,"1":...}`, or an array of byte
/// values (integers 0 to 255); `None` for anything else.
fn bytes_len(v: &Value) -> Option<usize> {
    let byte = |x: &Value| x.as_u64().is_some_and(|b| b <= 255);
    match v {
        Value::Array(items) if !items.is_empty() && items.iter().all(byte) => Some(items.len()),
        Value::Object(o) if o.len() == 2 && o.get("type").and_then(Value::as_str) == Some("Buffer") => {
            o.get("data").and_then(Value::as_array).filter(|d| d.iter().all(byte)).map(Vec::len)
        }
        Value::Object(o) if !o.is_empty() => {
            let n = o.len();
            o.iter().all(|(k, x)| k.parse::<usize>().is_ok_and(|i| i < n && (i == 0 || !k.starts_with('0'))) && byte(x)).then_some(n)
        }
        _ => None,
    }
}

fn or_unknown(s: &str) -> &str {
    if s.is_empty() {
        "unknown type"
    } else {
        s
    }
}

/// Flattens content blocks to one string.
pub fn flatten_content(blocks: &[ContentBlock], opts: FlattenOptions) -> String {
    let result = CallToolResult { content: blocks.to_vec(), ..CallToolResult::default() };
    flatten_result(&result, opts)
}

/// Flattens a whole result: its content, then its `structuredContent` as JSON unless a text block
/// already is that JSON. That JSON (or that text block) is kept whole when it fits `max_chars`:
/// the rest of the text gets what it leaves. An error starts with `Error: `.
pub fn flatten_result(result: &CallToolResult, opts: FlattenOptions) -> String {
    crate::results::flatten(result, opts.max_chars)
}

/// Whether a block is a text whose JSON is `structured` (the serialized copy MCP asks servers
/// returning `structuredContent` to add), compared as JSON values (numbers as JavaScript reads them), not as text.
pub fn repeats(block: &ContentBlock, structured: &Value) -> bool {
    match block {
        // Most text is not JSON: only a text that starts as the value's JSON would is read.
        ContentBlock::Text(t) => {
            let first = t.text.trim_start().bytes().next();
            let could = match structured {
                Value::Object(_) => first == Some(b'{'),
                Value::Array(_) => first == Some(b'['),
                Value::String(_) => first == Some(b'"'),
                _ => true,
            };
            could && read_json(&t.text).is_ok_and(|v| same_json(&v, structured))
        }
        _ => false,
    }
}

/// The largest `size` a resource link's line gives: 2^53 bytes (8 PiB), the last integer a JSON
/// number holds exactly; a larger one is no size of a file (`1e300`), and is left out as a
/// negative one is.
const MAX_SIZE: f64 = 9_007_199_254_740_992.0;

/// Whether `text` is `json` (compact JSON, as JSON.stringify writes it) with blanks between its
/// tokens at most.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn same_json_text(text: &str, json: &str) -> bool {
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let text = text.as_bytes();
    let (start, end) = (text.iter().position(|b| !blank(b)).unwrap_or(text.len()), text.iter().rposition(|b| !blank(b)).map_or(0, |i| i + 1));
    let (text, json) = (&text[start..end.max(start)], json.as_bytes());
    if text.len() < json.len() {
        return false;
    }
    let (mut t, mut in_string, mut escaped) = (0, false, false);
    for &j in json {
        if !in_string {
            while t < text.len() && matches!(text[t], b' ' | b'\t' | b'\n' | b'\r') {
                t += 1;
            }
        }
        if text.get(t) != Some(&j) {
            return false;
        }
        t += 1;
        match j {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            _ => {}
        }
    }
    t == text.len()
}

/// Whether two JSON values are equal as JavaScript reads them: numbers compared as doubles (a
/// Python server prints `22.0` where JS reads `22`; `1e3` is `1000`; an integer past 2^53 is its
/// nearest double), objects whatever the order of their members.
pub(crate) fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w))),
        _ => a == b,
    }
}

/// Whether a text block writes a number with more digits than a double holds (16 or more in a
/// row): one that [`repeats`] the structure then says more than it, which may not be left out
/// where the structure is sent as data (an id past 2^53, which the structure `JSON.parse` read has
/// rounded: `{"id": 1234567890123456789}` beside `1234567890123456800`).
pub(crate) fn holds_long_number(block: &ContentBlock) -> bool {
    let ContentBlock::Text(t) = block else { return false };
    let mut run = 0usize;
    t.text.bytes().any(|b| {
        run = if b.is_ascii_digit() { run + 1 } else { 0 };
        run >= 16
    })
}

/// The length of `s` in UTF-16 code units (a JS string's `length`), counted on its UTF-8
/// bytes: one unit per byte, less the continuation bytes (`10xxxxxx`), plus one for each
/// character of four bytes (led by `11110xxx`), which takes two units. Eight bytes at a time:
/// the high bit of each byte of the masks says whether that byte is one of those.
pub fn utf16_len(s: &str) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let bytes = s.as_bytes();
    let mut words = bytes.chunks_exact(8);
    let (mut continuation, mut four) = (0, 0);
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        // Bit 7 of a byte, and its bits 6, 5 and 4 shifted to bit 7 of the same byte.
        continuation += (w & !(w << 1) & HIGH).count_ones() as usize;
        four += (w & (w << 1) & (w << 2) & (w << 3) & HIGH).count_ones() as usize;
    }
    for &b in words.remainder() {
        continuation += usize::from(!starts_char(b));
        four += usize::from(b >= 0xF0);
    }
    bytes.len() - continuation + four
}

/// Whether a byte of UTF-8 text starts a character (is not a continuation byte).
const fn starts_char(b: u8) -> bool {
    (b as i8) >= -64
}

/// Cuts `s` to at most `max` UTF-16 code units, the marker included, without splitting a
/// surrogate pair or a common grapheme cluster ([`prefix`]): the longest prefix that fits with [`truncated_marker`] after it (or, where the
/// cap leaves no room for the counts, [`SHORT_MARKER`]; under its 12 units, no marker), the marker
/// without its line break where nothing is kept.
pub fn truncate_utf16(mut s: String, max: usize) -> String {
    // Fast path: UTF-16 length never exceeds the UTF-8 byte length.
    if s.len() <= max {
        return s;
    }
    let total = utf16_len(&s);
    if total <= max {
        return s;
    }
    Cut::new(max, total).keep(&mut s);
    s
}

/// One cut over texts taken in order, of `total` UTF-16 units in all, where a cap of `max` falls
/// ([`room`]): the texts before it kept whole, the one it falls in cut and marked, those after
/// it dropped.
pub(crate) struct Cut {
    budget: usize,
    shown: usize,
    marker: Box<dyn Fn(usize) -> String>,
    done: bool,
}

impl Cut {
    pub(crate) fn new(max: usize, total: usize) -> Self {
        let (budget, marker) = room(max, total);
        Self { budget, shown: 0, marker, done: false }
    }

    /// Whether the next text is kept (cut and marked, when the cap falls in it); `false` for
    /// those after the cut.
    pub(crate) fn keep(&mut self, t: &mut String) -> bool {
        if self.done {
            return false;
        }
        let len = utf16_len(t);
        if len <= self.budget {
            self.budget -= len;
            self.shown += len;
            return true;
        }
        let (bytes, units) = prefix(t, self.budget);
        t.truncate(bytes);
        self.shown += units;
        let marker = (self.marker)(self.shown);
        // Alone, the marker goes without its line break.
        t.push_str(if bytes == 0 { marker.trim_start_matches('\n') } else { &marker });
        self.done = true;
        true
    }
}

/// How many units of a text of `total` units may be kept under a cap of `max` (`max < total`),
/// and the marker to end it with, given how many were kept.
pub(crate) fn room(max: usize, total: usize) -> (usize, Box<dyn Fn(usize) -> String>) {
    // The counts take as many digits as `max` at most; then as many as what that leaves.
    let full = truncated_marker(max, total).len();
    if full <= max {
        let first = max - full;
        let second = max - truncated_marker(first, total).len();
        let keep = if second + truncated_marker(second, total).len() <= max { second } else { first };
        (keep, Box::new(move |shown| truncated_marker(shown, total)))
    } else if SHORT_MARKER.len() <= max {
        (max - SHORT_MARKER.len(), Box::new(|_| SHORT_MARKER.to_owned()))
    } else {
        (max, Box::new(|_| String::new()))
    }
}

/// The byte length and UTF-16 length of the longest prefix of `s` within `max` units, never
/// inside a character (a surrogate pair), clusters aside.
pub(crate) fn prefix_chars(s: &str, max: usize) -> (usize, usize) {
    if s.len() <= max {
        return (s.len(), utf16_len(s));
    }
    prefix_within(s, max)
}

/// The byte length and UTF-16 length of the longest prefix of `s` within `max` units, never
/// inside a surrogate pair, nor inside the common grapheme clusters ([`joined`]).
pub(crate) fn prefix(s: &str, max: usize) -> (usize, usize) {
    let (mut i, mut units) = prefix_within(s, max);
    if i < s.len() {
        // Back to the start of the cluster the cut falls in (a character at a time).
        while let Some(last) = s[..i].chars().next_back().filter(|&last| joined(&s[..i], last, &s[i..])) {
            i -= last.len_utf8();
            units -= last.len_utf16();
        }
    }
    (i, units)
}

/// [`prefix_chars`] without its shortcut: the characters of `s` while they fit in `max` units.
fn prefix_within(s: &str, max: usize) -> (usize, usize) {
    let mut units = 0usize;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        if !starts_char(b) {
            continue;
        }
        let w = 1 + usize::from(b >= 0xF0);
        if units + w > max {
            return (i, units);
        }
        units += w;
    }
    (s.len(), units)
}

/// Whether a cut between `kept` (ending with `last`) and `rest` falls inside a grapheme cluster
/// of the common kinds, without Unicode's tables: before a character that extends the one before
/// it (a zero width joiner, a variation selector U+FE0E or U+FE0F, a combining diacritical mark
/// U+0300-U+036F, a skin tone U+1F3FB-U+1F3FF, the keycap U+20E3, a tag U+E0020-U+E007F), after
/// a zero width joiner, between the two regional indicators of a flag (paired from the start of
/// their run), or between CR and LF.
fn joined(kept: &str, last: char, rest: &str) -> bool {
    let regional = |c: char| matches!(c, '\u{1F1E6}'..='\u{1F1FF}');
    let Some(next) = rest.chars().next() else { return false };
    matches!(next, '\u{200D}' | '\u{FE0E}' | '\u{FE0F}' | '\u{0300}'..='\u{036F}' | '\u{1F3FB}'..='\u{1F3FF}' | '\u{20E3}' | '\u{E0020}'..='\u{E007F}')
        || last == '\u{200D}'
        || (last, next) == ('\r', '\n')
        || (regional(last) && regional(next) && kept.chars().rev().take_while(|&c| regional(c)).count() % 2 == 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn blocks(v: serde_json::Value) -> Vec<ContentBlock> {
        CallToolResult::from_value(v).unwrap().content
    }

    #[test]
    fn a_text_is_json_text_with_blanks_between_tokens_only() {
        let json = r#"{"a":[1,{"b":"x y\" z"}],"c":null}"#;
        for same in [json, " {\"a\": [1, {\"b\": \"x y\\\" z\"}],\n  \"c\": null}\n"] {
            assert!(same_json_text(same, json), "{same}");
        }
        for other in [r#"{"a":[1,{"b":"x  y\" z"}],"c":null}"#, "\u{a0}{\"a\":[1,{\"b\":\"x y\\\" z\"}],\"c\":null}", r#"{"a":[1,{"b":"x y\" z"}],"c":null}x"#, r#"{"a":[1,{"b":"x y\" z"}]"#, ""] {
            assert!(!same_json_text(other, json), "{other}");
        }
    }

    /// A malformed block is shown as its JSON, but a long `blob`/`data` as its length: the text
    /// after it still fits the cap (rF F1).
    #[test]
    fn an_unsupported_blocks_payload_is_not_shown() {
        let blob = "QUJD".repeat(1000);
        let block = ContentBlock::from_value(serde_json::json!({"type": "resource", "resource": {"uri": "file:///r.bin", "mimeType": 7, "blob": blob}}));
        let text = block_text(&block);
        assert!(text.starts_with("[Unsupported content: resource]\n"), "{text}");
        assert!(text.contains(r#""mimeType":7"#) && text.contains("(4000 characters, not shown)") && !text.contains("QUJD"), "{text}");
        let short = ContentBlock::from_value(serde_json::json!({"type": "image", "data": "QUJD", "mimeType": 7}));
        assert!(block_text(&short).contains(r#""data":"QUJD""#));
    }

    /// An unknown block's payload is measured in UTF-16 units, as `maxChars` is (F5, s24e): 200
    /// characters of non-ASCII text are shown, and a hidden string's length is in characters.
    #[test]
    fn payload_lengths_are_characters() {
        let text = "é".repeat(200);
        let shown = block_text(&ContentBlock::from_value(json!({"type":"future_block","data":text})));
        assert!(shown.contains(&text), "{shown}");
        let hidden = block_text(&ContentBlock::from_value(json!({"type":"future_block","blob":"€".repeat(300)})));
        assert!(hidden.ends_with(r#""blob":"(300 characters, not shown)"}"#), "{hidden}");
        let pairs = block_text(&ContentBlock::from_value(json!({"type":"future_block","data":"😀".repeat(129)})));
        assert!(pairs.contains("(258 characters, not shown)"), "{pairs}");
    }

    /// Bytes as JSON writes a Buffer or a Uint8Array (or an array of byte values) are shown as
    /// their count, as a long base64 string is (F4, s24e): a number each would fill the cap and
    /// push out the text after them.
    #[test]
    fn byte_payloads_are_not_shown() {
        let bytes: Vec<u8> = (0..300u32).map(|i| (i % 256) as u8).collect();
        let uint8: serde_json::Map<String, Value> = bytes.iter().enumerate().map(|(i, b)| (i.to_string(), json!(b))).collect();
        for data in [json!({"type":"Buffer","data":bytes}), Value::Object(uint8), json!(bytes)] {
            let b = blocks(json!([{"type":"image","data":data,"mimeType":"image/png"},{"type":"text","text":"IMPORTANT"}]));
            let out = flatten_content(&b, FlattenOptions::default());
            assert_eq!(out, "[Unsupported content: image]\n{\"type\":\"image\",\"data\":\"(300 bytes, not shown)\",\"mimeType\":\"image/png\"}\nIMPORTANT");
            let b = blocks(json!([{"type":"resource","resource":{"uri":"file:///x.bin","blob":data}}]));
            assert!(flatten_content(&b, FlattenOptions::default()).contains(r#""blob":"(300 bytes, not shown)""#));
        }
        // A few bytes, and numbers that are no bytes, as they are.
        for data in [json!([1, 2, 3]), json!((0..100).map(|i| i * 10).collect::<Vec<_>>()), json!({"0":1,"2":3}), json!({"type":"Buffer","data":[1,2],"x":1})] {
            let out = block_text(&ContentBlock::from_value(json!({"type":"future","data":data})));
            assert!(out.contains(&crate::text::to_string(&data)) && !out.contains("not shown"), "{out}");
        }
    }

    /// A resource link keeps its name beside its title, and says its size (F6, s24e).
    #[test]
    fn resource_links_keep_name_title_and_size() {
        let link = |v: Value| block_text(&ContentBlock::from_value(v));
        assert_eq!(
            link(json!({"type":"resource_link","uri":"file:///exports/q3.csv","name":"q3.csv","title":"Q3 sales export","mimeType":"text/csv","size":48213977})),
            "[Resource link: q3.csv, \"Q3 sales export\" (file:///exports/q3.csv, text/csv, 48.21 MB)]"
        );
        assert_eq!(link(json!({"type":"resource_link","uri":"file:///a","name":"a","title":"a","size":512})), "[Resource link: a (file:///a, 512 bytes)]");
        assert_eq!(link(json!({"type":"resource_link","uri":"file:///a","name":"","title":"A file","description":"d"})), "[Resource link: A file (file:///a): d]");
        assert_eq!(link(json!({"type":"resource_link","uri":"file:///a","name":"","size":2048})), "[Resource link: file:///a (2 KB)]");
        // A size that is no size is not shown.
        assert_eq!(link(json!({"type":"resource_link","uri":"file:///a","name":"a","size":"big"})), "[Resource link: a (file:///a)]");
        for past in [json!(1e300), json!(1e16), json!(-1)] {
            assert_eq!(link(json!({"type":"resource_link","uri":"file:///a","name":"a","size":past})), "[Resource link: a (file:///a)]", "{past}");
        }
        assert_eq!(link(json!({"type":"resource_link","uri":"file:///a","name":"a","size":5e12})), "[Resource link: a (file:///a, 5000 GB)]");
    }

    #[test]
    fn placeholders() {
        let b = blocks(json!([
            {"type":"text","text":"hello"},
            {"type":"image","data":"AAA","mimeType":"image/png"},
            {"type":"audio","data":"AAA","mimeType":"audio/wav"},
            {"type":"resource_link","uri":"file:///a.txt","name":"a.txt"},
            {"type":"resource","resource":{"uri":"file:///b","mimeType":"text/plain","text":"inner"}},
            {"type":"resource","resource":{"uri":"file:///c","mimeType":"application/pdf","blob":"JVBERi0xLjQK"}},
            {"type":"resource","resource":{"uri":"file:///d.csv","mimeType":"text/csv; charset=utf-8","blob":"YSxiCjEsMgo="}},
            {"type":"hologram","data":1}
        ]));
        assert_eq!(
            flatten_content(&b, FlattenOptions::default()),
            "hello\n[Image: image/png (not sent: text only)]\n[Audio: audio/wav (not sent: text only)]\n[Resource link: a.txt (file:///a.txt)]\n[Resource: file:///b (text/plain)]\ninner\n\
             [Resource: file:///c (application/pdf), 9 bytes, not sent: text only]\n[Resource: file:///d.csv (text/csv)]\na,b\n1,2\n\n[Unsupported content: hologram]\n{\"type\":\"hologram\",\"data\":1}"
        );
    }

    /// A block of unknown type, or a malformed one, keeps what it holds: its JSON under the
    /// line. A `null` MIME type is none (the image is read from its bytes).
    #[test]
    fn unknown_and_malformed_blocks_keep_their_content() {
        let b = blocks(json!([
            {"type":"hologram","data":{"x":1}},
            {"type":"text","text":{"rows":2}},
            "plain string",
            null,
            {"type":"image","data":"iVBORw0KGgo=","mimeType":null}
        ]));
        assert_eq!(
            flatten_content(&b, FlattenOptions::default()),
            "[Unsupported content: hologram]\n{\"type\":\"hologram\",\"data\":{\"x\":1}}\n\
             [Unsupported content: text]\n{\"type\":\"text\",\"text\":{\"rows\":2}}\n\
             [Unsupported content: unknown]\n\"plain string\"\n\
             [Unsupported content: unknown]\n\
             [Image: image/png (not sent: text only)]"
        );
        assert!(matches!(&b[4], ContentBlock::Image(m) if m.mime_type.is_empty()));
        // Within the cap as any text.
        let big = blocks(json!([{"type":"hologram","data":"x".repeat(1000)}]));
        assert!(utf16_len(&flatten_content(&big, FlattenOptions { max_chars: 50 })) <= 50);
    }

    /// A resource or resource link with a field of the wrong type (a `text` that is an object, a
    /// `uri` that is a number...) is malformed, as a text whose `text` is not a string: its JSON is
    /// shown, not the field left out. `null` is no value, as a missing field is.
    #[test]
    fn malformed_resources_keep_their_content() {
        for block in [
            json!({"type":"resource","resource":{"uri":"file:///r","text":{"rows":2,"secret":"data"}}}),
            json!({"type":"resource","resource":{"uri":"file:///r","text":["line 1","line 2"]}}),
            json!({"type":"resource","resource":{"uri":"file:///r","text":42}}),
            json!({"type":"resource","resource":{"uri":"file:///r","blob":12345}}),
            json!({"type":"resource","resource":{"uri":42,"text":"hello"}}),
            json!({"type":"resource","resource":{"uri":"file:///r","mimeType":7,"text":"hello"}}),
            json!({"type":"resource_link","uri":"file:///x","name":5,"description":{"a":1}}),
            json!({"type":"resource_link","uri":"file:///x","name":"x","title":["t"]}),
            json!({"type":"resource_link","uri":"file:///x","name":"x","mimeType":false}),
        ] {
            let kind = block["type"].as_str().unwrap().to_owned();
            let out = flatten_content(&blocks(json!([block.clone()])), FlattenOptions::default());
            assert_eq!(out, format!("[Unsupported content: {kind}]\n{}", crate::text::to_string(&block)));
        }
        let b = blocks(json!([
            {"type":"resource","resource":{"uri":"file:///r","mimeType":null,"text":"hello","blob":null}},
            {"type":"resource_link","uri":"file:///x","name":"x","title":null,"description":null,"mimeType":null}
        ]));
        assert_eq!(flatten_content(&b, FlattenOptions::default()), "[Resource: file:///r]\nhello\n[Resource link: x (file:///x)]");
    }

    /// An embedded text resource keeps its uri and MIME type (a header line above its text), a
    /// resource link its description.
    #[test]
    fn resources_keep_where_they_come_from() {
        let b = blocks(json!([
            {"type":"resource","resource":{"uri":"file:///notes.md","mimeType":"text/markdown","text":"# Notes"}},
            {"type":"resource","resource":{"uri":"file:///plain","text":"body"}},
            {"type":"resource_link","uri":"file:///q3.csv","name":"q3.csv","description":"Quarterly revenue","mimeType":"text/csv"},
            {"type":"resource_link","uri":"file:///x","name":"","description":"No name"},
            {"type":"resource_link","uri":"file:///y","name":"y","description":""},
            {"type":"resource_link","uri":"file:///z","name":"","mimeType":"image/png"}
        ]));
        assert_eq!(
            flatten_content(&b, FlattenOptions::default()),
            "[Resource: file:///notes.md (text/markdown)]\n# Notes\n[Resource: file:///plain]\nbody\n\
             [Resource link: q3.csv (file:///q3.csv, text/csv): Quarterly revenue]\n[Resource link: file:///x: No name]\n[Resource link: y (file:///y)]\n\
             [Resource link: file:///z (image/png)]"
        );
    }

    /// structuredContent joins the text unless a text block already is its JSON (compared as JSON).
    #[test]
    fn whole_result_keeps_structured_content() {
        let flat = |v: serde_json::Value| flatten_result(&CallToolResult::from_value(v).unwrap(), FlattenOptions::default());
        assert_eq!(flat(json!({"content":[{"type":"text","text":"2 rows"}],"structuredContent":{"rows":2}})), "2 rows\n{\"rows\":2}");
        assert_eq!(flat(json!({"content":[{"type":"text","text":"{ \"rows\": 2 }"}],"structuredContent":{"rows":2}})), "{ \"rows\": 2 }");
        assert_eq!(flat(json!({"content":[],"structuredContent":{"rows":2}})), "{\"rows\":2}");
        assert_eq!(flat(json!({"content":[{"type":"text","text":"[1, 2]"}],"structuredContent":[1,2]})), "[1, 2]");
        assert_eq!(flat(json!({"content":[{"type":"text","text":"{\"rows\":3}"}],"structuredContent":{"rows":2}})), "{\"rows\":3}\n{\"rows\":2}");
        // One cut over both where the structure is longer than the cap.
        let cut = flatten_result(
            &CallToolResult::from_value(json!({"content":[{"type":"text","text":"ab"}],"structuredContent":{"k":"v".repeat(100)}})).unwrap(),
            FlattenOptions { max_chars: 50 },
        );
        assert_eq!(cut, "ab\n{\"k\":\"v\n[Truncated: 10 of 111 characters shown]");
    }

    /// The text copy of the structure is recognised however its numbers are written: `22.0` (Python)
    /// is the `22` JS read, `1e3` is `1000`, an integer past 2^53 is its double.
    #[test]
    fn numbers_compare_as_javascript_reads_them() {
        let flat = |v: serde_json::Value| flatten_result(&CallToolResult::from_value(v).unwrap(), FlattenOptions::default());
        let python = "{\n  \"temperature\": 22.0,\n  \"humidity\": 65.0,\n  \"conditions\": \"Cloudy\"\n}";
        assert_eq!(flat(json!({"content":[{"type":"text","text":python}],"structuredContent":{"temperature":22,"humidity":65,"conditions":"Cloudy"}})), python);
        assert_eq!(flat(json!({"content":[{"type":"text","text":"{\"v\": 1e3}"}],"structuredContent":{"v":1000}})), "{\"v\": 1e3}");
        assert_eq!(
            flat(json!({"content":[{"type":"text","text":"{\"id\": 1234567890123456789}"}],"structuredContent":{"id":1234567890123456800_u64}})),
            "{\"id\": 1234567890123456789}"
        );
        assert_eq!(flat(json!({"content":[{"type":"text","text":"[0.5, -0.0]"}],"structuredContent":[0.5, 0]})), "[0.5, -0.0]");
        // Different numbers are different.
        assert_eq!(flat(json!({"content":[{"type":"text","text":"{\"v\": 22.5}"}],"structuredContent":{"v":22}})), "{\"v\": 22.5}\n{\"v\":22}");
        assert!(same_json(&json!({"a":1,"b":[1.0]}), &json!({"b":[1],"a":1.0})));
        assert!(!same_json(&json!({"a":1}), &json!({"a":1,"b":2})));
        assert!(!same_json(&json!("1"), &json!(1)));
        // An id past 2^53 and the double JSON.parse rounds it to are not the same.
        assert!(same_json(&json!({"id": 1234567890123456789u64}), &json!({"id": 1234567890123456800u64})));
        // A text with a number of 16 digits or more says more than the structure JSON.parse read.
        let text = |t: &str| ContentBlock::Text(crate::model::TextContent { text: t.to_string(), extra: serde_json::Map::new() });
        for t in ["{\"id\": 1234567890123456789}", "{\"id\": 18446744073709551617}", "[-123456789012345678901234567890]", "{\"x\": 0.12345678901234567}"] {
            let v: Value = serde_json::from_str(t).unwrap();
            assert!(repeats(&text(t), &v) && holds_long_number(&text(t)), "{t}");
        }
        let exactly = |t: &str, v: &Value| repeats(&text(t), v) && !holds_long_number(&text(t));
        assert!(exactly("{\"t\": -22.0, \"id\": 123456789012345}", &json!({"t": -22, "id": 123456789012345u64})));
        assert!(!exactly("{\"t\": 1}", &json!({"t": 2})));
    }

    #[test]
    fn cut_counts_utf16_and_keeps_pairs() {
        // "😀" is 2 UTF-16 units; a cut at 3 must not split the second one.
        assert_eq!(prefix("a😀😀", 4), (5, 3));
        assert_eq!(prefix("a😀😀", 5), (9, 5));
        assert_eq!(prefix("a😀😀", 1), (1, 1));
        let b = blocks(json!([{"type":"text","text":format!("a{}", "😀".repeat(100))}]));
        assert_eq!(flatten_content(&b, FlattenOptions { max_chars: 60 }), format!("a{}\n[Truncated: 19 of 201 characters shown]", "😀".repeat(9)));
        // The marker is within the cap; a cap too small for its counts takes the short one, and
        // one smaller than that none.
        let b = blocks(json!([{"type":"text","text":"abcdef".repeat(10)}]));
        assert_eq!(flatten_content(&b, FlattenOptions { max_chars: 15 }), "abc\n[Truncated]");
        assert_eq!(flatten_content(&b, FlattenOptions { max_chars: 11 }), "abcdefabcde");
        assert_eq!(flatten_content(&b, FlattenOptions { max_chars: 0 }), "");
        // Multi-byte but single-unit characters: 'é' is 2 bytes, 1 unit.
        let b = blocks(json!([{"type":"text","text":"éééé"}]));
        assert_eq!(flatten_content(&b, FlattenOptions { max_chars: 4 }), "éééé");
    }

    /// A cut never ends inside the common grapheme clusters: before a joiner, a variation
    /// selector, a combining accent, a skin tone, a keycap or a tag, after a joiner, between the
    /// two regional indicators of a flag, or between CR and LF.
    #[test]
    fn cuts_keep_common_clusters_whole() {
        let clusters = ["👨\u{200D}👩\u{200D}👧", "🇫🇷", "e\u{301}", "a\u{301}\u{302}", "👍🏽", "❤\u{FE0F}", "☎\u{FE0E}", "1\u{FE0F}\u{20E3}", "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", "\r\n", "👩🏽\u{200D}💻"];
        for x in clusters {
            let text = format!("ab{}", x.repeat(20));
            for max in 0..=utf16_len(&text) {
                let (bytes, units) = prefix(&text, max);
                assert!(units <= max && units == utf16_len(&text[..bytes]), "{x:?} {max}");
                assert!(bytes <= 2 || (bytes - 2) % x.len() == 0, "{x:?} at {max}: {:?}", &text[..bytes]);
                // Only a cluster is given back: what a code point cut keeps, less one cluster at most.
                assert!(units + utf16_len(x) > max || bytes == text.len(), "{x:?} at {max}: {units}");
                let cut = truncate_utf16(text.clone(), max);
                assert!(utf16_len(&cut) <= max, "{x:?} {max}: {cut:?}");
            }
        }
        // A flag's pair is read from the start of the run: an odd run keeps its last indicator alone.
        let odd = format!("🇫{}", "🇫🇷".repeat(3));
        assert_eq!(prefix(&odd, 4), ("🇫🇫".len(), 4));
        assert_eq!(prefix(&odd, 5), ("🇫🇫".len(), 4));
        assert_eq!(prefix(&odd, 6), ("🇫🇫".len(), 4));
        assert_eq!(prefix(&odd, 8), ("🇫🇫🇷🇫".len(), 8));
        assert_eq!(prefix(&odd, 14), (odd.len(), 14));
        // As in the probe: the family, the flag and the accent whole.
        let b = blocks(json!([{"type":"text","text":"👨\u{200D}👩\u{200D}👧".repeat(30)}]));
        let out = flatten_content(&b, FlattenOptions { max_chars: 50 });
        assert_eq!(out, "👨\u{200D}👩\u{200D}👧\n[Truncated: 8 of 240 characters shown]");
        let b = blocks(json!([{"type":"text","text":format!("xxxxxx{}", "e\u{301}".repeat(100))}]));
        let out = flatten_content(&b, FlattenOptions { max_chars: 46 });
        assert_eq!(out, "xxxxxx\n[Truncated: 6 of 206 characters shown]");
    }

    #[test]
    fn utf16_lengths_are_js_lengths() {
        let mixed = "\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}a é € 😀 z";
        for s in ["", "abc", "é", "€uro", "a😀b", "😀😀", "abcdefgh", mixed] {
            // Every start and end, so that each character falls in every place of a word.
            for i in (0..=s.len()).filter(|&i| s.is_char_boundary(i)) {
                for j in (i..=s.len()).filter(|&j| s.is_char_boundary(j)) {
                    assert_eq!(utf16_len(&s[i..j]), s[i..j].encode_utf16().count(), "{:?}", &s[i..j]);
                }
            }
        }
        // Every cut point of a mixed text, against the character-by-character count.
        let text = "a é € 😀 z".repeat(3);
        for max in 0..=utf16_len(&text) {
            let (bytes, units) = prefix(&text, max);
            let mut count = 0;
            let expected: String = text.chars().take_while(|c| { count += c.len_utf16(); count <= max }).collect();
            assert_eq!(&text[..bytes], expected, "max {max}");
            assert_eq!(units, utf16_len(&expected));
            // Cut with its marker, never over the cap.
            let cut = truncate_utf16(text.clone(), max);
            assert!(utf16_len(&cut) <= max, "max {max}: {cut:?}");
        }
    }

    #[test]
    fn default_cap_is_100k() {
        let b = blocks(json!([{"type":"text","text":"x".repeat(100_001)}]));
        let out = flatten_content(&b, FlattenOptions::default());
        assert!(out.ends_with("\n[Truncated: 99954 of 100001 characters shown]"), "{}", &out[99_900..]);
        assert_eq!(out.len(), 100_000);
    }
}
