//! Tool calls a model writes as text: the `<tool_call>` blocks that `toolsSystemPrompt` asks a
//! model without native tool calling for (the Hermes/Qwen form), read back into [`ToolCall`]s,
//! and the results written back as `<tool_response>` blocks.
//!
//! The reader takes every block of the reply, as vLLM's `hermes` parser and llama.cpp's Hermes 2
//! Pro style take them (`<tool_call>(.*?)</tool_call>`, and an unclosed last block), with these
//! differences: a block's end is read after its JSON, so a `</tool_call>` inside a JSON string
//! does not end it; blocks inside the reasoning a reply starts with (Qwen3's and DeepSeek-R1's
//! `<think>…</think>`, or up to a first `</think>` where the chat template opened the tag, as
//! vLLM's `qwen3` reasoning parser reads it) are no calls, and a think tag anywhere else is text; `arguments` given as
//! a JSON string are the object it holds. Names go through the name map; arguments are read as
//! the prompt listed them: only a wrapped root (`input`) is unwrapped, and no provider's value
//! rewrite (Gemini's string enums) is undone, as the prompt never made one.

use serde_json::Value;

use super::{args_of, preview, resolve, CallError, ToolCall};
use crate::args::ArgPlan;
use crate::content::FlattenOptions;
use crate::error::ErrorCode;
use crate::model::CallToolResult;
use crate::naming::NameMap;
use crate::text::Owned as _;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";
const THINK_OPEN: &str = "<think>";
const THINK_CLOSE: &str = "</think>";
const FENCE: &str = "```";

/// A reply read: its calls, in order, and its text outside the `<tool_call>` blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct TextReply {
    /// Every call of the reply; one that cannot be made carries an `error`.
    pub calls: Vec<ToolCall>,
    /// The reply without its blocks (reasoning kept as it was), trimmed.
    pub text: String,
}

impl TextReply {
    /// The JSON form: `{calls, text}`.
    pub fn to_value(&self) -> Value {
        crate::model::object([("calls", Value::Array(self.calls.iter().map(ToolCall::to_value).collect())), ("text", crate::model::string(&self.text))])
    }
}

/// Reads the `<tool_call>` blocks of a model's reply (see the module's doc). Each block holds
/// `{"name": ..., "arguments": {...}}` (`parameters` is read where there are no `arguments`; a
/// key that is not read, such as `args`, `input` or an argument written beside `name`, is an
/// `INVALID_ARGUMENTS` error on the call, which is not made without what it holds);
/// calls get the ids `call_0`, `call_1`… in order, which no result needs in text, as Ollama's
/// calls sent without ids get them. A block opens with a `<tool_call>` followed by `{` (another
/// is text); each JSON object in it is a call; one that is not valid JSON (or is cut short), or
/// is followed by other text in the block, is a call with an `INVALID_JSON` error (and the
/// tool it names, where its top-level `"name"` can be read); a ``` fence holding only blocks goes with
/// them; a name the map does not know is
/// `UNKNOWN_TOOL_NAME`, arguments that are no object `INVALID_ARGUMENTS`.
pub fn parse_text_tool_calls(reply: &str, map: Option<&NameMap>) -> TextReply {
    let _budget = crate::naming::SuggestionBudget::start();
    let mut calls = Vec::new();
    let mut text = String::with_capacity(reply.len());
    let mut pos = reasoning_end(reply);
    text.push_str(&reply[..pos]);
    let mut open = next_open(reply, pos);
    // Where in `text` the ``` fence opened that the blocks read last stand in, and the code
    // blocks of `text` so far, so that a fence closing one is not taken for it.
    // The reasoning's code blocks are its own: an unclosed one leaves the reply's alone.
    let (mut fence, mut fences) = (None, Fences { line: pos, seen: pos, open: None });
    while let Some(at) = open {
        let before = &reply[pos..at];
        let from = text.len();
        text.push_str(before);
        if fence.is_none() || !before.trim().is_empty() {
            fence = fence_open(before).map(|f| from + f).filter(|&f| fences.opens(&text, f));
        }
        fences.read(&text, text.len());
        let (end, next) = read_block(reply, at, &mut calls, map);
        pos = end;
        if let Some(f) = fence {
            let tail = &reply[pos..];
            let blank = tail.len() - tail.trim_start().len();
            if let Some(ticks) = closing_fence(&tail[blank..]) {
                text.truncate(f);
                fences = Fences::at(&text);
                pos += blank + ticks;
                fence = None;
            }
        }
        open = next.filter(|&n| n >= pos).or_else(|| next_open(reply, pos));
    }
    text.push_str(&reply[pos..]);
    TextReply { calls, text: text.trim().owned() }
}

/// Where the reasoning a reply starts with ends (`0` for none), as vLLM's `qwen3` reasoning
/// parser reads it: a `<think>` at the start (after blanks) to its first `</think>`, or, where
/// the chat template opened the tag, the text before a first `</think>`; with no `</think>`,
/// none. A `</think>` inside a `<tool_call>` block (in a JSON string) ends no reasoning: the
/// reply has none then.
fn reasoning_end(reply: &str) -> usize {
    let Some(close) = reply.find(THINK_CLOSE) else { return 0 };
    let end = close + THINK_CLOSE.len();
    if reply.trim_start().starts_with(THINK_OPEN) {
        return end;
    }
    let mut open = next_open(reply, 0);
    while let Some(at) = open.filter(|&a| a < close) {
        let (block_end, next) = read_block(reply, at, &mut Vec::new(), None);
        if block_end > close {
            return 0;
        }
        open = next.filter(|&n| n >= block_end).or_else(|| next_open(reply, block_end));
    }
    end
}

/// Where the first block at or after `from` opens: a `<tool_call>` followed (after blanks) by
/// the `{` of its JSON, as llama.cpp's Hermes 2 Pro parser finds calls. Another `<tool_call>`
/// (the tag named in prose) is text.
fn next_open(reply: &str, mut from: usize) -> Option<usize> {
    while let Some(at) = reply[from..].find(OPEN).map(|a| from + a) {
        from = at + OPEN.len();
        if reply[from..].trim_start().starts_with('{') {
            return Some(at);
        }
    }
    None
}

/// Reads the block opening at `at` (see [`next_open`]) into `calls`: where the block ends in
/// `reply`, and where the next block opens after `at` (found to bound this one). A block is its
/// JSON object, or several (one call each), and the `</tool_call>` after them, blanks around;
/// text between the JSON and the `</tool_call>` is an error on the call. Where no JSON object
/// ends, the block is up to the first `</tool_call>`, the next block or the end, so a broken
/// block takes no later one; a block left open ends after its JSON.
fn read_block(reply: &str, at: usize, calls: &mut Vec<ToolCall>, map: Option<&NameMap>) -> (usize, Option<usize>) {
    let body_at = at + OPEN.len();
    let body = &reply[body_at..];
    let next = next_open(reply, body_at);
    let bound = next.map_or(body.len(), |n| n - body_at);
    let blanks = |from: usize| from + body[from..].len() - body[from..].trim_start().len();
    let to_close = |from: usize| body[from..bound.max(from)].find(CLOSE).map(|c| from + c + CLOSE.len());
    let mut from = blanks(0);
    loop {
        let id = format!("call_{}", calls.len());
        let Some(len) = object_end(&body[from..]) else {
            let used = to_close(from).unwrap_or(bound.max(from));
            let inner = body[from..used].strip_suffix(CLOSE).unwrap_or(&body[from..used]).trim();
            calls.push(broken(id, "is cut short (its JSON object does not end)", inner, map));
            return (body_at + used, next);
        };
        let json = &body[from..from + len];
        let mut call = match crate::model::read_json_repaired(json) {
            Ok(Value::Object(o)) => {
                let name = o.get("name").and_then(Value::as_str).unwrap_or_default().owned();
                match unread_key(&o) {
                    None => text_call(id, name, o.get("arguments").filter(|a| !a.is_null()).or_else(|| o.get("parameters")), map),
                    Some(key) => unread(id, name, key, map),
                }
            }
            Ok(_) => broken(id, "is not a JSON object", json, map),
            Err(e) => {
                let e = e.into_error("the tool call", |e| crate::error::Error::new(ErrorCode::InvalidJson, e.to_string()));
                broken(id, &format!("is not valid JSON ({})", e.message), json, map)
            }
        };
        let json_end = from + len;
        from = blanks(json_end);
        if body[from..].starts_with('{') {
            calls.push(call);
            continue;
        }
        if body[from..].starts_with(CLOSE) {
            calls.push(call);
            return (body_at + from + CLOSE.len(), next);
        }
        match to_close(from) {
            Some(used) => {
                let rest = body[from..used - CLOSE.len()].trim();
                if call.error.is_none() {
                    call.arguments = Value::Null;
                    call.error = Some(CallError { code: ErrorCode::InvalidJson.as_str(), message: format!("the <tool_call> block has text after its JSON object: {}", preview(rest)) });
                }
                calls.push(call);
                return (body_at + used, next);
            }
            None => {
                calls.push(call);
                return (body_at + json_end, next);
            }
        }
    }
}

/// Where the ``` fence (three backticks or more, with its language) that `before`, the text
/// before a block, ends with starts in it.
fn fence_open(before: &str) -> Option<usize> {
    let t = before.trim_end().trim_end_matches(|c: char| c.is_ascii_alphanumeric());
    let head = t.trim_end_matches('`');
    (t.len() - head.len() >= FENCE.len()).then_some(head.len())
}

/// The text after the `:` of the first `"name"` key at the top level of the object `block` starts
/// with.
fn name_value(block: &str) -> Option<&str> {
    let key = |i: usize, b: u8, depth: usize| {
        let top = b == b'"' && depth == 1;
        top.then(|| block[i..].strip_prefix("\"name\"").and_then(|a| a.trim_start().strip_prefix(':'))).flatten()
    };
    match scan_json(block, key) {
        Scanned::Found(value) => Some(value.trim_start()),
        Scanned::Closed(_) | Scanned::Unended => None,
    }
}

/// The length of the ``` fence that closes a code block `s` starts with, with the blanks after
/// it on its line: backticks alone on their line, as CommonMark closes one (a fence with a
/// language opens the next).
fn closing_fence(s: &str) -> Option<usize> {
    let ticks = s.len() - s.trim_start_matches('`').len();
    let line = &s[ticks..s.find('\n').unwrap_or(s.len())];
    (ticks >= FENCE.len() && line.trim().is_empty()).then_some(ticks + line.len())
}

/// The code blocks of a reply's text, read line by line as CommonMark fences them: a line
/// starting with ``` or ~~~ opens one ([`fence_opener`]), and in one, a line of that character
/// alone, as many or more, closes it.
struct Fences {
    /// Where in the text the first line not read starts.
    line: usize,
    /// Up to where the text was searched for the end of that line.
    seen: usize,
    /// The code block open after the lines read: its fence's character (`` ` `` or `~`) and
    /// length.
    open: Option<(char, usize)>,
}

impl Fences {
    /// None read in `text` (to be read from the start of its last line).
    fn at(text: &str) -> Self {
        let line = text.rfind('\n').map_or(0, |n| n + 1);
        Self { line, seen: line, open: None }
    }

    /// Reads the whole lines of `text` that start before `to`.
    fn read(&mut self, text: &str, to: usize) {
        while self.line < to {
            let Some(n) = text[self.seen..].find('\n').map(|n| self.seen + n) else {
                self.seen = text.len();
                return;
            };
            let line = text[self.line..n].trim();
            self.open = match self.open {
                // Closed by a run of its character alone, at least as long as the one that opened it.
                Some((c, len)) => (line.len() < len || !line.trim_start_matches(c).is_empty()).then_some((c, len)),
                None => fence_opener(line),
            };
            (self.line, self.seen) = (n + 1, n + 1);
        }
    }

    /// Whether the ``` at `at` in `text` opens a code block: it starts its line, and no block is
    /// open before it (else it closes that one).
    fn opens(&mut self, text: &str, at: usize) -> bool {
        let line = text[..at].rfind('\n').map_or(0, |n| n + 1);
        if !text[line..at].trim().is_empty() {
            return false;
        }
        self.read(text, line);
        self.open.is_none()
    }
}

/// The fence `line` (trimmed) opens a code block with, as CommonMark reads one: three or more
/// `` ` `` or `~`, and after backticks no backtick (```` ```x``` ```` at a line's start is inline
/// code).
fn fence_opener(line: &str) -> Option<(char, usize)> {
    let c = line.chars().next().filter(|&c| c == '`' || c == '~')?;
    let run = line.len() - line.trim_start_matches(c).len();
    (run >= FENCE.len() && !(c == '`' && line[run..].contains('`'))).then_some((c, run))
}

/// A call whose block could not be read: the tool named, where its `"name"` can be read, with
/// an `INVALID_JSON` error.
fn broken(id: String, why: &str, block: &str, map: Option<&NameMap>) -> ToolCall {
    let mut call = match name_in(block) {
        Some(name) => text_call(id, name, None, map),
        None => resolve(Some(id), String::new(), super::RawArgs::Json(Value::Null), None),
    };
    call.arguments = Value::Null;
    call.error = Some(CallError { code: ErrorCode::InvalidJson.as_str(), message: format!("the <tool_call> block {why}: {}", preview(block)) });
    call
}

/// The string of the first `"name"` key of the object a block's text starts with, where it can
/// be read: one at its top level only, not an argument's (Hermes writes `arguments` first, so a
/// block cut short there has no name).
fn name_in(block: &str) -> Option<String> {
    let value = name_value(block)?;
    // Read as a `Value`: a typed `String` read would bring serde's invalid-type message, and with it
    // Rust's float formatting (for a number there), into the module.
    match serde_json::Deserializer::from_str(value).into_iter::<Value>().next()?.ok()? {
        Value::String(name) if !name.is_empty() => Some(name),
        _ => None,
    }
}

/// The key of a block's object whose value the call would be made without: one the reader does
/// not read (LangChain's `args`, Anthropic's `input`, arguments written beside `name`), or
/// `parameters` beside other `arguments`, as `parseToolCalls` refuses an OpenAI call with `args`.
/// Besides `name`, `arguments` and `parameters` (Llama 3's), a call's own keys are `"type":
/// "function"` (Llama 3's) and, beside its arguments, an `id` or `type` (Mistral's calls carry an
/// `id`); without arguments, those may be the arguments written flat.
fn unread_key(o: &serde_json::Map<String, Value>) -> Option<&str> {
    let given = |k: &str| o.get(k).is_some_and(|v| !v.is_null());
    let args = given("arguments") || given("parameters");
    let lost = |k: &str, v: &Value| match k {
        "name" | "arguments" => false,
        "parameters" => given("arguments") && !v.is_null() && o.get("arguments") != Some(v),
        "type" if v == "function" => false,
        "id" | "type" => !args,
        _ => true,
    };
    o.iter().find(|(k, v)| lost(k, v)).map(|(k, _)| k.as_str())
}

/// The call of a block with a key [`unread_key`] finds: its tool, with an `INVALID_ARGUMENTS`
/// error naming the key (an unknown name's error kept), so that it is not made without them.
fn unread(id: String, name: String, key: &str, map: Option<&NameMap>) -> ToolCall {
    let mut call = text_call(id, name, None, map);
    if call.error.as_ref().is_none_or(|e| e.code != ErrorCode::UnknownToolName.as_str()) {
        call.arguments = Value::Null;
        let message = format!("the <tool_call> block has `{}`, which is not read (the arguments go in `arguments`): the call is not made without what it holds", preview(key));
        call.error = Some(CallError { code: ErrorCode::InvalidArguments.as_str(), message });
    }
    call
}

/// A call of a block, its name through the map and its arguments as the prompt listed them: a
/// wrapped root (`{"input": ...}`, the map's `unwrap`) unwrapped, nothing else of the provider's
/// plan applied.
fn text_call(id: String, name: String, args: Option<&Value>, map: Option<&NameMap>) -> ToolCall {
    let mut call = resolve(Some(id), name, args_of(args), None);
    let (Some(map), false) = (map, call.provider_name.is_empty()) else { return call };
    match map.resolve(&call.provider_name) {
        Err(e) => {
            call.arguments = Value::Null;
            call.error = Some(CallError { code: e.code.as_str(), message: e.message });
        }
        Ok(entry) => {
            call.server = entry.server.clone();
            call.tool = entry.tool.clone();
            let unwrap = entry.args.as_ref().and_then(|p| p.unwrap.clone());
            if let (Some(prop), None) = (unwrap, &call.error) {
                let plan = ArgPlan { unwrap: Some(prop), ..ArgPlan::default() };
                match plan.try_apply(call.arguments.take(), &call.provider_name) {
                    Ok(v) => call.arguments = v,
                    Err(e) => call.error = Some(CallError { code: e.code.as_str(), message: e.message }),
                }
            }
        }
    }
    call
}

/// The length of the JSON object `s` starts with (`{` to its `}`, strings and escapes read), or
/// `None` where `s` starts with none or it does not end: at the end of `s`, or at a `<` outside
/// a string (no JSON holds one: the next block's tag), so a broken block is not read past it.
fn object_end(s: &str) -> Option<usize> {
    if !s.starts_with('{') {
        return None;
    }
    match scan_json(s, |_, b, _| (b == b'<').then_some(())) {
        Scanned::Closed(i) => Some(i + 1),
        Scanned::Found(()) | Scanned::Unended => None,
    }
}

/// Where [`scan_json`] stopped.
enum Scanned<T> {
    /// What its `at` gave.
    Found(T),
    /// At the bracket of this index, which closes the first one opened.
    Closed(usize),
    /// At the end of the text.
    Unended,
}

/// Reads JSON text from the start of `s` byte by byte, its strings (escapes and all) passed over
/// and its brackets counted, up to the bracket closing the first one opened: `at(i, b, depth)`
/// is asked of each other byte outside a string (a string's opening quote among them), `depth`
/// the brackets open around it, and a `Some` it gives ends the read. Not a parser: what is no
/// JSON is read on as far as these rules go.
fn scan_json<T>(s: &str, mut at: impl FnMut(usize, u8, usize) -> Option<T>) -> Scanned<T> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, b) in s.bytes().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Scanned::Closed(i);
                }
            }
            _ => {
                if let Some(found) = at(i, b, depth) {
                    return Scanned::Found(found);
                }
                in_string = b == b'"';
            }
        }
    }
    Scanned::Unended
}

/// The results of a turn's calls as the model without native tool calling reads them: one
/// `<tool_response>` block per result, in order, each the result as `flattenContent` writes it
/// (text, media described, an error starting `Error: `, capped at `opts.max_chars`), joined
/// with a line break, as Qwen's and Hermes' chat templates write `tool` messages into the user
/// turn that follows the calls.
pub fn text_tool_results(results: &[CallToolResult], opts: FlattenOptions) -> String {
    results.iter().map(|r| format!("<tool_response>\n{}\n</tool_response>", crate::content::flatten_result(r, opts))).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naming::{NameRule, NamingOptions};
    use serde_json::json;

    fn map() -> NameMap {
        NameMap::build(&[(Some("docs"), "search"), (Some("docs"), "echo")], &NamingOptions::default(), NameRule::Strict).0
    }

    fn read(reply: &str) -> TextReply {
        parse_text_tool_calls(reply, Some(&map()))
    }

    fn ok(call: &ToolCall) -> (&str, Option<&str>, &Value) {
        assert!(call.error.is_none(), "{call:?}");
        (&call.tool, call.server.as_deref(), &call.arguments)
    }

    #[test]
    fn every_block_is_read_with_the_text_around_it() {
        let r = read("Let me look.\n<tool_call>\n{\"name\": \"mcp__docs__search\", \"arguments\": {\"q\": \"x\"}}\n</tool_call>\n<tool_call>{\"name\":\"mcp__docs__echo\",\"arguments\":{}}</tool_call>\nDone.");
        assert_eq!(r.calls.len(), 2);
        assert_eq!(ok(&r.calls[0]), ("search", Some("docs"), &json!({"q": "x"})));
        assert_eq!(ok(&r.calls[1]), ("echo", Some("docs"), &json!({})));
        assert_eq!((r.calls[0].id.as_deref(), r.calls[1].id.as_deref()), (Some("call_0"), Some("call_1")));
        assert_eq!(r.calls[0].provider_name, "mcp__docs__search");
        assert_eq!(r.text, "Let me look.\n\n\nDone.");
        // Blanks of any kind around the JSON, none at all, CRLF.
        for reply in ["<tool_call>{\"name\":\"mcp__docs__echo\"}</tool_call>", "<tool_call>\r\n\t {\"name\" : \"mcp__docs__echo\" ,\n\"arguments\":\n{}}\r\n</tool_call>"] {
            let r = read(reply);
            assert_eq!((r.calls.len(), r.text.as_str()), (1, ""), "{reply}");
            assert_eq!(ok(&r.calls[0]).0, "echo");
        }
        assert_eq!(read("No tools needed.").calls, Vec::new());
    }

    #[test]
    fn a_close_tag_inside_a_json_string_does_not_end_the_block() {
        let r = read(r#"<tool_call>{"name":"mcp__docs__search","arguments":{"q":"a </tool_call> b \" {"}}</tool_call>after"#);
        assert_eq!(ok(&r.calls[0]).2, &json!({"q": "a </tool_call> b \" {"}));
        assert_eq!(r.text, "after");
    }

    #[test]
    fn a_last_block_left_open_is_read_when_its_json_ends() {
        let r = read("<tool_call>\n{\"name\": \"mcp__docs__search\", \"arguments\": {\"q\": \"x\"}}\n");
        assert_eq!(ok(&r.calls[0]).2, &json!({"q": "x"}));
        let r = read("<tool_call>\n{\"name\": \"mcp__docs__search\", \"arguments\": {\"q\": \"x");
        let e = r.calls[0].error.as_ref().unwrap();
        assert_eq!(e.code, "INVALID_JSON");
        assert!(e.message.contains("cut short"), "{e:?}");
        // A block cut short before another: up to its close, the next one read.
        let r = read("<tool_call>{\"name\": \"mcp__docs__search\", \"arguments\": {</tool_call><tool_call>{\"name\":\"mcp__docs__echo\"}</tool_call>");
        assert_eq!(r.calls.len(), 2);
        assert_eq!(r.calls[0].error.as_ref().unwrap().code, "INVALID_JSON");
        assert_eq!(ok(&r.calls[1]).0, "echo");
    }

    #[test]
    fn blocks_in_reasoning_are_no_calls() {
        let fake = "<tool_call>{\"name\":\"mcp__docs__echo\"}</tool_call>";
        let r = read(&format!("<think>I could write {fake} here</think>\n<tool_call>{{\"name\":\"mcp__docs__search\",\"arguments\":{{\"q\":\"y\"}}}}</tool_call>"));
        assert_eq!(r.calls.len(), 1);
        assert_eq!(ok(&r.calls[0]).0, "search");
        assert_eq!(r.text, format!("<think>I could write {fake} here</think>"));
        // Opened by the template: the reply starts inside it.
        let r = read(&format!("maybe {fake}\n</think>\n\n{fake}"));
        assert_eq!(r.calls.len(), 1);
        // Unclosed, there is none (vLLM's `qwen3` reads it all as content).
        assert_eq!(read(&format!("<think>{fake}")).calls.len(), 1);
    }

    /// Only the start of a reply is reasoning: a `</think>` inside a block's JSON string, or a
    /// `<think>` later in the text, hides no call.
    #[test]
    fn think_tags_outside_the_reasoning_hide_no_call() {
        let say = |s: &str| format!("<tool_call>{{\"name\":\"mcp__docs__echo\",\"arguments\":{{\"text\":\"{s}\"}}}}</tool_call>");
        let r = read(&format!("{}\n{}", say("</think>"), say("b")));
        assert_eq!(r.calls.iter().map(|c| &ok(c).2["text"]).collect::<Vec<_>>(), [&json!("</think>"), &json!("b")]);
        assert_eq!(r.text, "");
        let r = read(&format!("A helper that removes the <think> section.\n{}\nand <think>\n{}", say("a"), say("b")));
        assert_eq!(r.calls.len(), 2);
        assert_eq!(r.text, "A helper that removes the <think> section.\n\nand <think>");
        // After the reasoning, a `<think>` in an argument is the argument.
        let r = read(&format!("<think>\nok\n</think>\n\n{}", say("<think>")));
        assert_eq!((ok(&r.calls[0]).2, r.text.as_str()), (&json!({"text": "<think>"}), "<think>\nok\n</think>"));
    }

    /// A `<tool_call>` not followed by JSON is text (the tag named in prose), and a block whose
    /// JSON does not end stops at the next block, which is read.
    #[test]
    fn a_tag_in_prose_or_a_broken_block_takes_no_later_block() {
        let good = "<tool_call>{\"name\":\"mcp__docs__search\",\"arguments\":{\"q\":\"b\"}}</tool_call>";
        let r = read(&format!("I'll answer with a <tool_call> block:\n{good}"));
        assert_eq!((ok(&r.calls[0]).2, r.text.as_str()), (&json!({"q": "b"}), "I'll answer with a <tool_call> block:"));
        let prose = "To use a tool I write <tool_call> followed by JSON, or <tool_call>name()</tool_call>. The answer is 4.";
        assert_eq!(read(prose), TextReply { calls: Vec::new(), text: prose.owned() });
        for broken in ["{\"name\":\"mcp__docs__search\",\"arguments\":{\"q\":\"a\"}\n", "{\"name\":\"mcp__docs__search\",\"arguments\":{\"q\":\"a,}}\n", "{\"name\":\"mcp__docs__search\",\"arguments\":{\"q\":\"a\",}}\n"] {
            let r = read(&format!("<tool_call>{broken}{good}"));
            assert_eq!(r.calls.len(), 2, "{broken}");
            assert_eq!(r.calls[0].error.as_ref().map(|e| e.code), Some("INVALID_JSON"), "{broken}");
            assert_eq!(ok(&r.calls[1]).2, &json!({"q": "b"}));
        }
    }

    /// What a block holds besides its JSON object is the block's: a second object is a call,
    /// other text an error on the call; a fence around blocks goes with them.
    #[test]
    fn all_a_block_holds_is_read_and_a_fence_goes_with_it() {
        let obj = |q: &str| format!("{{\"name\":\"mcp__docs__search\",\"arguments\":{{\"q\":\"{q}\"}}}}");
        let r = read(&format!("<tool_call>\n{}\n{}\n</tool_call>\nok", obj("a"), obj("b")));
        assert_eq!(r.calls.iter().map(|c| ok(c).2.clone()).collect::<Vec<_>>(), [json!({"q": "a"}), json!({"q": "b"})]);
        assert_eq!((r.calls[1].id.as_deref(), r.text.as_str()), (Some("call_1"), "ok"));
        let r = read(&format!("<tool_call>{} extra</tool_call>after", obj("a")));
        let e = r.calls[0].error.as_ref().unwrap();
        assert_eq!((e.code, e.message.as_str(), r.text.as_str()), ("INVALID_JSON", "the <tool_call> block has text after its JSON object: extra", "after"));
        assert_eq!((r.calls[0].tool.as_str(), &r.calls[0].arguments), ("search", &Value::Null));
        // Left open, the text after the JSON is the reply's.
        assert_eq!(read(&format!("<tool_call>{}\nDone.", obj("a"))).text, "Done.");
        for fenced in [format!("```json\n<tool_call>\n{}\n</tool_call>\n```", obj("a")), format!("```\n<tool_call>{}</tool_call>\n<tool_call>{}</tool_call>\n```", obj("a"), obj("b"))] {
            let r = read(&format!("Here:\n{fenced}\nDone."));
            assert!(r.calls.iter().all(|c| c.error.is_none()), "{r:?}");
            assert_eq!(r.text, "Here:\n\nDone.");
        }
        // A fence that holds more than the blocks stays.
        assert_eq!(read(&format!("```\n<tool_call>{}</tool_call>\nx\n```", obj("a"))).text, "```\n\nx\n```");
    }

    /// A fence that closes a code block before a block, or opens one after it, is the text's:
    /// the code blocks around a call are kept as they are.
    #[test]
    fn code_blocks_around_a_block_stay_whole() {
        let call = "<tool_call>\n{\"name\": \"mcp__docs__echo\", \"arguments\": {}}\n</tool_call>";
        for (reply, text) in [
            (format!("Here is the script:\n```python\nprint(1)\n```\n{call}\n```bash\nls\n```\nEnd."), "Here is the script:\n```python\nprint(1)\n```\n\n```bash\nls\n```\nEnd."),
            (format!("Code:\n```python\nprint(1)\n```\n{call}\n```\nls\n```"), "Code:\n```python\nprint(1)\n```\n\n```\nls\n```"),
            (format!("```\n{call}\n```json\n{{\"k\":1}}\n```"), "```\n\n```json\n{\"k\":1}\n```"),
        ] {
            let r = read(&reply);
            assert_eq!((r.calls.len(), r.text.as_str()), (1, text), "{reply}");
        }
        // After a code block, a fence holding only a block still goes with it.
        let r = read(&format!("```sh\nls\n```\n```json\n{call}\n```\nDone."));
        assert_eq!(r.text, "```sh\nls\n```\n\nDone.");
        // What opens no code block, as CommonMark reads it, leaves that fence to go with the
        // block: inline code at a line's start, a fence in the reasoning left open; a ~~~ block
        // holding a ``` line is closed by ~~~ alone.
        for (reply, text) in [
            (format!("```x``` is inline code\nSure:\n```json\n{call}\n```\nDone."), "```x``` is inline code\nSure:\n\nDone."),
            (format!("<think>\n```python\nx = 1\n</think>Sure:\n```json\n{call}\n```\nDone."), "<think>\n```python\nx = 1\n</think>Sure:\n\nDone."),
            (format!("~~~\n```\n~~~\nSure:\n```json\n{call}\n```\nDone."), "~~~\n```\n~~~\nSure:\n\nDone."),
        ] {
            let r = read(&reply);
            assert_eq!((r.calls.len(), r.text.as_str()), (1, text), "{reply}");
        }
        // A longer fence goes with the block too, and the blanks after the closing one.
        for reply in [format!("Sure:\n````json\n{call}\n````\nDone."), format!("Sure:\n```json\n{call}\n```  \nDone."), format!("Sure:\r\n```json\r\n{call}\r\n```\r\nDone.")] {
            let r = read(&reply);
            assert_eq!((r.calls.len(), r.text.replace('\r', "").as_str()), (1, "Sure:\n\nDone."), "{reply:?}");
        }
        // A ``` inside an open ~~~ block is its text: the block stays with the code.
        let r = read(&format!("~~~\n```json\n{call}\n```\n~~~"));
        assert_eq!(r.text, "~~~\n```json\n\n```\n~~~");
    }

    /// A block that is not valid JSON keeps the tool name it gives, where it can be read.
    #[test]
    fn a_broken_block_keeps_its_tool_name() {
        let r = read("<tool_call>{\"name\": \"mcp__docs__search\", \"arguments\": {\"q\": 'x'}}</tool_call><tool_call>{\"name\": \"mcp__docs__echo\", \"arguments\": {\"q\": \"x");
        let got: Vec<_> = r.calls.iter().map(|c| (c.provider_name.as_str(), c.tool.as_str(), c.error.as_ref().unwrap().code, &c.arguments)).collect();
        assert_eq!(got, [("mcp__docs__search", "search", "INVALID_JSON", &Value::Null), ("mcp__docs__echo", "echo", "INVALID_JSON", &Value::Null)]);
    }

    /// A broken block's name is the call's, at the top of its object, not an argument's `name`
    /// (Hermes writes `arguments` first).
    #[test]
    fn a_broken_blocks_name_is_not_an_arguments() {
        let names = |reply: &str| read(reply).calls.iter().map(|c| c.provider_name.clone()).collect::<Vec<_>>();
        assert_eq!(names("<tool_call>{\"arguments\": {\"name\": \"mcp__docs__echo\", \"a\": [{\"name\": \"x\"}],}, \"name\": \"mcp__docs__search\"}</tool_call>"), ["mcp__docs__search"]);
        assert_eq!(names("<tool_call>{\"arguments\": {\"name\": \"Bob\", \"bio\": \"likes"), [""]);
        assert_eq!(names("<tool_call>{\"arguments\": {\"q\": \"\\\"name\\\": \\\"x\"}, \"name\": \"mcp__docs__echo\", \"a\": 'x'}</tool_call>"), ["mcp__docs__echo"]);
    }

    /// Arguments the reader would not read (under `args` or `input`, written beside `name`, in
    /// `parameters` beside other `arguments`) make the call an error, never one made without them.
    #[test]
    fn arguments_under_another_key_are_an_error_not_dropped() {
        let call = |obj: &str| read(&format!("<tool_call>{obj}</tool_call>")).calls.remove(0);
        for (obj, key) in [
            (r#"{"name":"mcp__docs__search","args":{"q":"x"}}"#, "args"),
            (r#"{"name":"mcp__docs__search","input":{"q":"x"}}"#, "input"),
            (r#"{"name":"mcp__docs__search","q":"x"}"#, "q"),
            (r#"{"name":"mcp__docs__search","id":7}"#, "id"),
            (r#"{"name":"mcp__docs__search","arguments":{},"q":"x"}"#, "q"),
            (r#"{"name":"mcp__docs__search","arguments":{"q":"x"},"parameters":{"q":"y"}}"#, "parameters"),
            (r#"{"arguments":null,"name":"mcp__docs__search","args":{"q":"x"}}"#, "args"),
        ] {
            let c = call(obj);
            let e = c.error.as_ref().unwrap();
            assert_eq!((c.tool.as_str(), e.code, &c.arguments), ("search", "INVALID_ARGUMENTS", &Value::Null), "{obj}");
            assert!(e.message.contains(&format!("`{key}`")), "{obj}: {e:?}");
        }
        // `parameters` beside `"arguments": null` are read; a call's own keys beside its arguments stay.
        for obj in [
            r#"{"name":"mcp__docs__search","arguments":null,"parameters":{"q":"x"}}"#,
            r#"{"type":"function","name":"mcp__docs__search","parameters":{"q":"x"}}"#,
            r#"{"name":"mcp__docs__search","arguments":{"q":"x"},"id":"a1b2c3d4e"}"#,
            r#"{"name":"mcp__docs__search","arguments":{"q":"x"},"parameters":{"q":"x"}}"#,
        ] {
            assert_eq!(ok(&call(obj)).2, &json!({"q": "x"}), "{obj}");
        }
        assert_eq!(ok(&call(r#"{"type":"function","name":"mcp__docs__echo"}"#)).2, &json!({}));
        // An unknown name stays the error.
        assert_eq!(call(r#"{"name":"nope","args":{}}"#).error.unwrap().code, "UNKNOWN_TOOL_NAME");
    }

    /// The scan under `object_end` and `name_value`: strings passed over whatever they hold (a
    /// bracket, a `<`, an escaped quote, a last escaped backslash), brackets counted.
    #[test]
    fn the_json_scan_reads_strings_and_brackets_as_json_has_them() {
        let s = r#"{"a":"}<]\\","b":[{"c":"\"}"}]} tail"#;
        assert_eq!(object_end(s), Some(s.len() - " tail".len()));
        assert_eq!(object_end(r#"{"a":1 <x>}"#), None, "a < outside a string: the next tag");
        assert_eq!(object_end(r#"{"a":"x}"#), None, "not ended");
        assert_eq!(object_end("[1]"), None, "no object");
        assert_eq!(name_value(r#"{"a":"\\","name" : "x"}"#), Some(r#""x"}"#));
        assert_eq!(name_value(r#"{"a":{"name":"in"},"b":["name"],"name":"top"}"#), Some(r#""top"}"#));
        assert_eq!(name_value(r#"{"a":"\"name\": 1"} {"name":"next"}"#), None, "the object closes first");
        assert_eq!(name_value(r#"{"a":"name"#), None, "not ended");
    }

    /// Only a non-empty JSON string is a broken block's name (escapes read); a number, an object or
    /// an empty string there leaves the call nameless.
    #[test]
    fn a_broken_blocks_name_is_only_a_string() {
        let names = |reply: &str| read(reply).calls.iter().map(|c| c.provider_name.clone()).collect::<Vec<_>>();
        assert_eq!(names("<tool_call>{\"name\": \"mcp__docs__\\u0065cho\", \"arguments\": {\"q\": 'x'}}</tool_call>"), ["mcp__docs__echo"]);
        for name in ["1.5", "-2e400", "{\"a\": 1}", "[\"mcp__docs__echo\"]", "\"\"", "null"] {
            assert_eq!(names(&format!("<tool_call>{{\"name\": {name}, \"arguments\": {{\"q\": 'x'}}}}</tool_call>")), [""], "{name}");
        }
    }

    #[test]
    fn bad_blocks_names_and_arguments_are_errors_on_their_calls() {
        let r = read(concat!(
            "<tool_call>{'name': 'mcp__docs__echo'}</tool_call>",
            "<tool_call>{\"name\":\"mcp__docs__nope\",\"arguments\":{}}</tool_call>",
            "<tool_call>{\"name\":\"mcp__docs__echo\",\"arguments\":[1]}</tool_call>",
            "<tool_call>{\"arguments\":{}}</tool_call>",
            "<tool_call>{\"name\":\"mcp__docs__echo\",\"arguments\":\"{\\\"a\\\":1}\"}</tool_call>",
        ));
        let codes: Vec<&str> = r.calls.iter().map(|c| c.error.as_ref().map_or("ok", |e| e.code)).collect();
        assert_eq!(codes, ["INVALID_JSON", "UNKNOWN_TOOL_NAME", "INVALID_ARGUMENTS", "UNKNOWN_TOOL_NAME", "ok"]);
        // Arguments as a JSON string are the object it holds.
        assert_eq!(r.calls[4].arguments, json!({"a": 1}));
        assert!(r.calls.iter().all(|c| c.error.is_none() || c.arguments.is_null()));
    }

    /// Arguments are read as the prompt listed them: a wrapped root unwrapped, a provider's
    /// other rewrites (Gemini's enums made strings) not undone.
    #[test]
    fn only_a_wrapped_root_is_unwrapped() {
        let mut m = map();
        let plan = ArgPlan { unwrap: Some("input".owned()), enum_values: vec![json!(1), json!("1")], ..ArgPlan::default() };
        m.entry_mut(1).unwrap().args = Some(plan);
        let enums = ArgPlan { enum_values: vec![json!(1), json!("1")], ..ArgPlan::default() };
        let mut search = ArgPlan::default();
        search.set_property("mix", enums);
        m.entry_mut(0).unwrap().args = Some(search);
        let r = parse_text_tool_calls(
            "<tool_call>{\"name\":\"mcp__docs__echo\",\"arguments\":{\"input\":\"1\"}}</tool_call><tool_call>{\"name\":\"mcp__docs__search\",\"arguments\":{\"mix\":\"1\"}}</tool_call><tool_call>{\"name\":\"mcp__docs__echo\",\"arguments\":{\"text\":\"1\"}}</tool_call>",
            Some(&m),
        );
        assert_eq!(ok(&r.calls[0]).2, &json!("1"));
        assert_eq!(ok(&r.calls[1]).2, &json!({"mix": "1"}));
        assert_eq!(r.calls[2].error.as_ref().unwrap().code, "INVALID_ARGUMENTS");
        // Without a map: names and arguments as sent.
        let r = parse_text_tool_calls("<tool_call>{\"name\":\"x\",\"parameters\":{\"a\":1}}</tool_call>", None);
        assert_eq!((r.calls[0].tool.as_str(), r.calls[0].server.as_deref(), &r.calls[0].arguments), ("x", None, &json!({"a": 1})));
    }

    #[test]
    fn results_are_tool_response_blocks() {
        let ok = CallToolResult::from_value(json!({"content":[{"type":"text","text":"42"},{"type":"image","data":"AAAA","mimeType":"image/png"}]})).unwrap();
        let err = CallToolResult::from_value(json!({"content":[{"type":"text","text":"no such file"}],"isError":true})).unwrap();
        assert_eq!(
            text_tool_results(&[ok, err], FlattenOptions::default()),
            "<tool_response>\n42\n[Image: image/png (not sent: text only)]\n</tool_response>\n<tool_response>\nError: no such file\n</tool_response>"
        );
    }
}
