//! The model's turn as the provider's own message, put together from the stream events an
//! [`Accumulator`](super::Accumulator) reads: what an app appends to the conversation before the
//! tool results. Everything the provider wants back is kept as it came: Anthropic's thinking and
//! redacted thinking blocks with their signatures, Responses' reasoning items, Gemini's thought
//! parts and thought signatures, Bedrock's reasoning content, system tools' results and
//! citations. Names and arguments are the provider's, as the model sent them (not mapped through
//! the name map), but a call's name that OpenAI Chat or Bedrock refuses in a history.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::{args_key, array, merge_args, str_of, ArgsCut, CallFormat, GeminiStep};
use crate::error::{Error, ErrorCode, Result};
// `object` moves its values in where `json!` copied each through serde's serializer (which
// then was in the module for these alone).
use crate::model::{object, string};

/// The most a turn holds (text, arguments and blocks, in bytes, about): past it the turn is
/// dropped, and said to be (`LIMIT_EXCEEDED`).
pub(super) const MAX_TURN_BYTES: usize = 32 << 20;

/// The most parts (blocks, output items, calls) a turn holds: a part past it is not made, and
/// the turn is dropped as past [`MAX_TURN_BYTES`].
pub(super) const MAX_TURN_PARTS: usize = 4096;

/// What a part costs besides the JSON text of its value, about: its slot, the maps of its value.
const PART_BYTES: usize = 512;

/// Where a part is: its position (a block's index, an output index, the order of Gemini's and
/// Ollama's parts; Chat: 0), then its place among the parts at that position (Chat: the order
/// its call started in, as the accumulator numbers them). A call's part is not replaced by
/// a part given its position: that one goes after it, so that every call the accumulator gives
/// stays in the turn.
type Key = (u64, u64);

/// One block, output item, call or part of the turn.
#[derive(Debug, Clone, Default)]
struct Part {
    /// The part in the provider's form, its text appended as it streams.
    value: Value,
    /// Arguments streamed as JSON text (Anthropic `input_json_delta`, Bedrock `toolUse.input`),
    /// read into the part's input when the message is made.
    args: Option<String>,
    /// Bedrock `redactedContent`, or an image's `source.bytes`, as bytes (given as base64, or as
    /// a `Uint8Array` through JSON).
    bytes: Option<Vec<u8>>,
    /// Bedrock: the citations streamed onto a text block (`citation` deltas), which make it a
    /// `citationsContent` block, as the Converse response has it.
    citations: Option<Vec<Value>>,
    /// A call's part (Anthropic's `tool_use`, Bedrock's `toolUse`, Responses' `function_call`
    /// and `custom_tool_call`):
    /// not replaced ([`Key`]).
    call: bool,
    /// Anthropic, Bedrock: the block stopped. A delta after it is not its: the accumulator has
    /// ended its call.
    stopped: bool,
}

/// The turn being put together.
#[derive(Debug, Clone, Default)]
pub(super) struct Turn {
    /// In key order ([`Key`]): blocks by index (Anthropic, Bedrock), output items by output
    /// index (Responses), calls by index (Chat), parts and calls in order (Gemini, Ollama).
    parts: Vec<(Key, Part)>,
    /// Chat and Ollama: the message's text fields (`content`, `refusal`, `thinking`,
    /// `reasoning_content`, `reasoning`), `reasoning_details` and `thinking_blocks`, an object
    /// once there is one (`content` a list of chunks once one came as such).
    fields: Value,
    /// Chat: the stream has given `thinking_blocks` and no `finish_reason` since: its last
    /// thinking block may be cut before its signature ([`Turn::message`] leaves such a one out).
    thinking_open: bool,
    /// Where in `fields.reasoning_details` the detail of each `index` and type is: a piece is
    /// put on its detail without a search through the others (which took quadratic time).
    detail_at: HashMap<(u64, Option<String>), usize>,
    /// Gemini: where the call whose arguments are still streaming (`willContinue`) is.
    open_call: Option<usize>,
    /// Gemini: the lone high half the open call's last `partialArgs` string piece ended with
    /// ([`super::apply_partial_args`]).
    half: Option<(String, u32)>,
    /// About how many bytes the turn holds.
    held: usize,
    /// A part was not made, past [`MAX_TURN_PARTS`]: the turn is dropped once the event is read.
    full: bool,
    /// Why the turn was dropped, when it was (past its bounds, or with the calls being read).
    lost: Option<String>,
    /// ... and `push` has yet to say so.
    unsaid: bool,
    /// Chat and Ollama: the ids of the calls in `parts` ([`Turn::has_call_id`]; a scan of the
    /// parts for each id made took quadratic time).
    call_ids: HashSet<String>,
}

/// About how many bytes `v` takes as JSON. Without recursion, as a value's depth is the
/// stream's.
pub(super) fn size(v: &Value) -> usize {
    let mut bytes = 0;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        bytes += match v {
            Value::String(s) => s.len() + 2,
            Value::Array(a) => {
                stack.extend(a);
                2
            }
            Value::Object(o) => {
                stack.extend(o.values());
                o.keys().map(|k| k.len() + 3).sum::<usize>() + 2
            }
            _ => 8,
        };
    }
    bytes
}

/// The value at `path` inside `v`, made where missing (objects on the way, `null` at the end);
/// `None` when a value on the way is neither an object nor `null`.
fn value_at<'a>(v: &'a mut Value, path: &[&str]) -> Option<&'a mut Value> {
    let mut cur = v;
    for k in path {
        if cur.is_null() {
            *cur = Value::Object(Map::new());
        }
        cur = cur.as_object_mut()?.entry(*k).or_insert(Value::Null);
    }
    Some(cur)
}

/// The value at `path` inside `v`, if there is one.
fn pointer<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(*k))
}

/// Gives a Responses call the `id` (`call_id`), `name` and `args` (`arguments`, a custom tool's
/// `input`) the accumulator gave it (a field absent stays so for none).
fn set_call(v: &mut Value, id: Option<&str>, name: &str, args: &str) {
    let key = args_key(v);
    let Some(o) = v.as_object_mut() else { return };
    match id {
        Some(id) if o.get("call_id").and_then(Value::as_str) != Some(id) => {
            o.insert("call_id".to_owned(), Value::String(id.to_owned()));
        }
        Some(_) => {}
        None => {
            o.remove("call_id");
        }
    }
    for (k, text) in [("name", name), (key, args)] {
        let had = o.get(k);
        // Arguments the item gave as no text (an object) are kept as it gave them.
        let given = k == key && text.is_empty() && had.is_some_and(|h| !h.is_string() && !h.is_null());
        if had.and_then(Value::as_str) != Some(text) && !(had.is_none() && text.is_empty()) && !given {
            o.insert(k.to_owned(), Value::String(text.to_owned()));
        }
    }
}

/// Whether a Responses item is a call the accumulator puts in the turn: a function's or a custom
/// tool's.
fn responses_call(item: &Value) -> bool {
    matches!(item.get("type").and_then(Value::as_str), Some("function_call" | "custom_tool_call"))
}

/// Appends `text` to the string at `path` inside `v`.
fn append(v: &mut Value, path: &[&str], text: &str) {
    match value_at(v, path) {
        Some(Value::String(s)) => s.push_str(text),
        Some(other) => *other = Value::String(text.to_owned()),
        None => {}
    }
}

/// Bytes as JSON gives them: base64 text, an array of numbers, or a `Uint8Array` through
/// `JSON.stringify` (`{"0": 1, "1": 2}`).
fn bytes_of(v: &Value) -> Vec<u8> {
    let byte = |n: &Value| n.as_u64().and_then(|n| u8::try_from(n).ok());
    match v {
        Value::String(s) => crate::results::decode_base64(s),
        Value::Array(a) => a.iter().filter_map(byte).collect(),
        Value::Object(o) => o.values().filter_map(byte).collect(),
        _ => Vec::new(),
    }
}

/// A Gemini part of text alone (`text`, `thought`, `thoughtSignature`): the kind that streams in
/// pieces.
pub(super) fn text_part(o: &Map<String, Value>) -> bool {
    (o.contains_key("text") || o.contains_key("thoughtSignature"))
        && o.keys().all(|k| matches!(k.as_str(), "text" | "thought" | "thoughtSignature"))
}

pub(super) fn thought(o: &Map<String, Value>) -> bool {
    o.get("thought").and_then(Value::as_bool) == Some(true)
}

impl Turn {
    /// Reads one stream event (an object) into the turn; `emitted` is how many calls the
    /// accumulator gave before it ([`Turn::ollama`] numbers calls by it). Responses' function
    /// calls are the accumulator's to put in ([`Turn::call_added`] and those after it).
    pub(super) fn record(&mut self, format: CallFormat, ev: &Value, emitted: usize) {
        if self.lost.is_some() {
            return;
        }
        match format {
            CallFormat::Ollama if ev.get("choices").is_none() => self.ollama(ev, emitted),
            CallFormat::OpenAi | CallFormat::Ollama => self.chat(ev),
            CallFormat::OpenAiResponses => self.responses(ev),
            CallFormat::Anthropic => self.anthropic(ev),
            // The accumulator gives the first candidate's parts as it reads them (`gemini_part`).
            CallFormat::Gemini => {}
            CallFormat::Bedrock => self.bedrock(ev),
        }
    }

    /// Once an event is read: past [`MAX_TURN_BYTES`] or [`MAX_TURN_PARTS`] the turn is dropped;
    /// [`Turn::take_error`] says so once.
    #[inline(always)]
    pub(super) fn settle(&mut self) {
        if self.lost.is_none() && (self.full || self.held > MAX_TURN_BYTES) {
            let why = format!(
                "the model's turn passed {MAX_TURN_PARTS} parts or {MAX_TURN_BYTES} bytes of text, arguments and blocks: it was dropped (the calls are still read)"
            );
            self.drop(why, true);
        }
    }

    /// Whether it is being put together (not dropped, nor [`Turn::off`]).
    pub(super) fn reading(&self) -> bool {
        self.lost.is_none()
    }

    /// A turn not put together, for an accumulator that only reads calls
    /// ([`super::parse_tool_calls`]).
    pub(super) fn off() -> Self {
        Self { lost: Some("no turn is put together".to_owned()), ..Self::default() }
    }

    /// Drops the turn, its memory given back; `unsaid` when `push` is to say so.
    fn drop(&mut self, why: String, unsaid: bool) {
        *self = Self { lost: Some(why), unsaid, ..Self::default() };
    }

    /// Drops the turn with the calls being read, which it lists (the push that drops them says
    /// so): a call listed in the turn that never comes as a `ToolCall` would have no result.
    pub(super) fn drop_with_calls(&mut self) {
        if self.lost.is_none() {
            self.drop("the model's turn was dropped with the tool calls being read, past their bounds (the calls are still read)".to_owned(), false);
        }
    }

    /// The error for a turn dropped since it was last asked.
    pub(super) fn take_error(&mut self) -> Option<Error> {
        std::mem::take(&mut self.unsaid).then(|| self.lost_error()).flatten()
    }

    fn lost_error(&self) -> Option<Error> {
        self.lost.as_ref().map(|why| Error::new(ErrorCode::LimitExceeded, why.clone()))
    }

    /// Charges a new part holding `value`; `None` past [`MAX_TURN_PARTS`] (noted, for `record`).
    fn admit(&mut self, value: Value) -> Option<Value> {
        if self.full || self.parts.len() >= MAX_TURN_PARTS {
            self.full = true;
            return None;
        }
        self.held += PART_BYTES + size(&value);
        Some(value)
    }

    /// Where the part at `key` is in `parts` (or would be). Events mostly go on the part made
    /// last, which is looked at first.
    fn find(&self, key: Key) -> std::result::Result<usize, usize> {
        match self.parts.last() {
            Some((last, _)) if *last == key => Ok(self.parts.len() - 1),
            Some((last, _)) if *last < key => Err(self.parts.len()),
            _ => self.parts.binary_search_by(|(k, _)| k.cmp(&key)),
        }
    }

    /// Where the part made last at position `pos` is in `parts`.
    fn latest(&self, pos: u64) -> Option<usize> {
        let end = match self.parts.last() {
            Some(((last, _), _)) if *last <= pos => self.parts.len(),
            _ => self.parts.partition_point(|(k, _)| k.0 <= pos),
        };
        (end > 0 && self.parts[end - 1].0 .0 == pos).then(|| end - 1)
    }

    /// The key of the block at index `pos` that deltas go on: the one made last there, or (when
    /// it stopped, or there is none) a new one after it.
    fn block(&self, pos: u64) -> Key {
        match self.latest(pos) {
            Some(i) if self.parts[i].1.stopped => (pos, self.parts[i].0 .1 + 1),
            Some(i) => self.parts[i].0,
            None => (pos, 0),
        }
    }

    /// The position after every part's.
    fn next(&self) -> u64 {
        self.parts.last().map_or(0, |((pos, _), _)| pos + 1)
    }

    /// The part at `key`, made by `make` if absent ([`Turn::admit`]).
    fn part(&mut self, key: Key, make: impl FnOnce() -> Value) -> Option<&mut Part> {
        let i = match self.find(key) {
            Ok(i) => i,
            Err(i) => {
                let value = self.admit(make())?;
                self.parts.insert(i, (key, Part { value, ..Part::default() }));
                i
            }
        };
        Some(&mut self.parts[i].1)
    }

    fn get(&mut self, key: Key) -> Option<&mut Part> {
        self.find(key).ok().map(|i| &mut self.parts[i].1)
    }

    /// Sets the part at position `pos` to `value`, in place of what was there; after it when it is
    /// a call's ([`Key`]), or a block that stopped (Anthropic, Bedrock: whole, as its deltas after
    /// the stop go on a new one, [`Turn::block`]).
    fn put(&mut self, pos: u64, value: Value) -> Option<&mut Part> {
        self.held += size(&value);
        let key = match self.latest(pos) {
            Some(i) if self.parts[i].1.call || self.parts[i].1.stopped => (pos, self.parts[i].0 .1 + 1),
            Some(i) => self.parts[i].0,
            None => (pos, 0),
        };
        let p = self.part(key, || Value::Null)?;
        *p = Part { value, ..Part::default() };
        Some(p)
    }

    /// Marks the block made last at index `pos` stopped.
    fn stop(&mut self, pos: u64) {
        if let Some(i) = self.latest(pos) {
            self.parts[i].1.stopped = true;
        }
    }

    /// Appends `text` to the string at `path` in the part at `key` (made by `make` if absent).
    fn append_new(&mut self, key: Key, make: impl FnOnce() -> Value, path: &[&str], text: &str) {
        self.held += text.len();
        if let Some(p) = self.part(key, make) {
            append(&mut p.value, path, text);
        }
    }

    /// Appends `text` to the string at `path` in the part at `key`, if there is one.
    fn append_to(&mut self, key: Key, path: &[&str], text: &str) {
        self.held += text.len();
        if let Some(p) = self.get(key) {
            append(&mut p.value, path, text);
        }
    }

    /// Sets the value at `path` in the part at `key`, if there is one.
    fn set_in(&mut self, key: Key, path: &[&str], value: Value) {
        self.held += size(&value);
        if let Some(slot) = self.get(key).and_then(|p| value_at(&mut p.value, path)) {
            *slot = value;
        }
    }

    /// Appends argument text to the part at `key` ([`Part::add_args`]).
    fn append_args(&mut self, key: Key, input: &[&str], text: &str) {
        self.held += text.len();
        if let Some(p) = self.get(key) {
            p.add_args(input, text);
        }
    }

    /// Appends the message's text fields `keys` of a Chat delta or an Ollama message.
    fn append_fields(&mut self, m: &Value, keys: &[&str]) {
        for k in keys {
            if let Some(text) = m.get(*k).and_then(Value::as_str).filter(|t| !t.is_empty()) {
                self.held += text.len();
                append(&mut self.fields, &[k], text);
            }
        }
    }

    /// OpenAI Chat (and Ollama's OpenAI-compatible endpoint): the first choice's text; its calls
    /// are the accumulator's to put in ([`Turn::chat_call`]), as it reads them.
    fn chat(&mut self, ev: &Value) {
        for choice in array(ev, "choices") {
            if choice.get("index").and_then(Value::as_u64).unwrap_or(0) != 0 {
                continue;
            }
            // A whole message (a completion pushed), not a delta.
            let whole = choice.get("delta").is_none();
            let Some(delta) = choice.get("delta").or_else(|| choice.get("message")) else { continue };
            // Text given, if empty, is text: an assistant message of `content: null` and no calls
            // is refused sent back (the SDK's message has `""`, as the stream gave it).
            // So is reasoning text given, which DeepSeek's thinking mode wants back with the calls
            // ("Missing `reasoning_content` field in the assistant message").
            for k in ["content", "reasoning_content"] {
                if delta.get(k).is_some_and(Value::is_string) && self.fields.get(k).is_none() {
                    append(&mut self.fields, &[k], "");
                }
            }
            let chunks = delta.get("content").is_some_and(|c| self.content_chunks(c, whole));
            // `reasoning`: vLLM's (which reads it back before the calls, gpt-oss's analysis),
            // Ollama's `/v1` (its `thinking` when read back), OpenRouter's, Groq's.
            let keys: &[&str] = if chunks { &["refusal", "reasoning_content", "reasoning"] } else { &["content", "refusal", "reasoning_content", "reasoning"] };
            self.append_fields(delta, keys);
            // A spoken reply's `audio`: its `id`, which Chat takes back for it (not its data).
            if let Some(id) = delta.get("audio").and_then(|a| a.get("id")).and_then(Value::as_str).filter(|id| !id.is_empty()) {
                if self.fields.get("audio").is_none() {
                    if let Some(slot) = value_at(&mut self.fields, &["audio"]) {
                        *slot = object([("id", string(id))]);
                    }
                }
            }
            if let Some(details) = delta.get("reasoning_details").and_then(Value::as_array) {
                self.reasoning_details(details);
            }
            // The last thinking block ends with the turn, or with text or a call after it.
            let after = delta.get("content").is_some_and(|c| c.as_str().is_some_and(|t| !t.is_empty()) || c.as_array().is_some_and(|a| !a.is_empty()))
                || delta.get("tool_calls").and_then(Value::as_array).is_some_and(|c| !c.is_empty());
            if let Some(blocks) = delta.get("thinking_blocks").and_then(Value::as_array) {
                self.thinking_blocks(blocks, whole);
                self.thinking_open = !whole;
            } else if after {
                self.thinking_open = false;
            }
            if whole || choice.get("finish_reason").is_some_and(|r| !r.is_null()) {
                self.thinking_open = false;
            }
        }
    }

    /// Chat `content` as a list of chunks (Mistral's reasoning models: a ThinkChunk `{type:
    /// "thinking", thinking: [{type: "text", text}], closed?}`, then TextChunks `{type: "text",
    /// text}`), which Mistral wants back as it came: its reasoning dropped from the history
    /// degrades the model. A whole message's list is taken as it is. A stream's, lists while the
    /// model thinks and text after, is put together: thinking goes on the thinking chunk before it
    /// until that one is `closed`, text (a text chunk, or `content` as text) on the text chunk
    /// before it, any other chunk after them. `false` when it is text and the turn's is text so
    /// far (appended as text is).
    fn content_chunks(&mut self, content: &Value, whole: bool) -> bool {
        let text_chunk;
        let pieces: &[Value] = match content {
            Value::Array(a) => a,
            Value::String(s) if self.fields.get("content").is_some_and(Value::is_array) => {
                if s.is_empty() {
                    return true;
                }
                text_chunk = [object([("type", string("text")), ("text", string(s))])];
                &text_chunk
            }
            _ => return false,
        };
        self.held += size(content);
        if self.fields.is_null() {
            self.fields = Value::Object(Map::new());
        }
        let Some(slot) = value_at(&mut self.fields, &["content"]) else { return true };
        if whole {
            *slot = content.clone();
            return true;
        }
        // The text before the list, as its first chunk.
        if !slot.is_array() {
            let text = slot.as_str().filter(|t| !t.is_empty()).map(|t| object([("type", string("text")), ("text", string(t))]));
            *slot = Value::Array(text.into_iter().collect());
        }
        let Value::Array(have) = slot else { return true };
        let of = |v: &Value, kind: &str| v.get("type").and_then(Value::as_str) == Some(kind);
        for piece in pieces {
            // No text is no chunk (as `""` is no text).
            if of(piece, "text") && piece.get("text").and_then(Value::as_str) == Some("") {
                continue;
            }
            let last = have.last_mut().filter(|l| of(piece, "text") && of(l, "text") || of(piece, "thinking") && of(l, "thinking") && l.get("closed") != Some(&Value::Bool(true)));
            let (Some(Value::Object(o)), Some(more)) = (last, piece.as_object()) else {
                have.push(piece.clone());
                continue;
            };
            for (f, v) in more {
                match (o.get_mut(f), v) {
                    (Some(Value::String(s)), Value::String(more)) if matches!(f.as_str(), "text" | "thinking") => s.push_str(more),
                    // The thinking's own text chunks, put together as the chunks are.
                    (Some(Value::Array(inner)), Value::Array(more)) if f == "thinking" => {
                        for m in more {
                            match (inner.last_mut(), m.get("text").and_then(Value::as_str)) {
                                (Some(Value::Object(i)), Some(text)) if of(m, "text") && i.get("type").and_then(Value::as_str) == Some("text") => {
                                    if let Some(Value::String(s)) = i.get_mut("text") {
                                        s.push_str(text);
                                    }
                                }
                                _ => inner.push(m.clone()),
                            }
                        }
                    }
                    (_, Value::Null) => {}
                    _ => {
                        o.insert(f.clone(), v.clone());
                    }
                }
            }
        }
        true
    }

    /// LiteLLM's `thinking_blocks` (`{type: "thinking", thinking, signature}`, `{type:
    /// "redacted_thinking", data}`), from which it makes Claude's thinking blocks again when the
    /// history is sent back (Claude refuses a turn with calls that does not start with its
    /// thinking when thinking is on): a whole message's as they are, a stream's put together, a
    /// piece of thinking going on the thinking block before it until that one has its signature
    /// (which comes in a piece of its own), other fields as the last piece gave them; any other
    /// block after them. The last thinking block, still without its signature when the stream
    /// is cut, is left out of [`Turn::message`] (`thinking_open`).
    fn thinking_blocks(&mut self, blocks: &[Value], whole: bool) {
        self.held += blocks.iter().map(size).sum::<usize>();
        if self.fields.is_null() {
            self.fields = Value::Object(Map::new());
        }
        let Some(slot) = value_at(&mut self.fields, &["thinking_blocks"]) else { return };
        if whole || !slot.is_array() {
            *slot = Value::Array(if whole { blocks.to_vec() } else { Vec::new() });
        }
        let Value::Array(have) = slot else { return };
        if whole {
            return;
        }
        let thinking = |v: &Value| v.get("type").and_then(Value::as_str) == Some("thinking");
        for b in blocks {
            let last = have.last_mut().filter(|l| thinking(b) && thinking(l) && !signed(l));
            let (Some(Value::Object(o)), Some(piece)) = (last, b.as_object()) else {
                have.push(b.clone());
                continue;
            };
            for (f, v) in piece {
                match (o.get_mut(f), v) {
                    (Some(Value::String(s)), Value::String(more)) if f == "thinking" => s.push_str(more),
                    (_, Value::Null) => {}
                    _ => {
                        o.insert(f.clone(), v.clone());
                    }
                }
            }
        }
    }

    /// OpenRouter's `reasoning_details` (`[{type: "reasoning.text", text, signature?, index?}]`,
    /// also `reasoning.summary`, `reasoning.encrypted`), which it wants back as they came: a
    /// whole message's as they are, a stream's put together, a piece going on the detail of its
    /// `index` and type (its text, summary or data appended, other fields as the last piece gave
    /// them), or after the others.
    fn reasoning_details(&mut self, details: &[Value]) {
        if self.fields.is_null() {
            self.fields = Value::Object(Map::new());
        }
        let Some(Value::Array(have)) = value_at(&mut self.fields, &["reasoning_details"]).map(|slot| {
            if !slot.is_array() {
                *slot = Value::Array(Vec::new());
            }
            slot
        }) else {
            return;
        };
        for d in details {
            self.held += size(d);
            let Some(piece) = d.as_object() else { continue };
            // Pieces of one index and type go on the first detail of them (a detail's index and
            // type stay as they are when a piece is put on it).
            let found = piece.get("index").and_then(Value::as_u64).map(|i| (i, piece.get("type").and_then(Value::as_str).map(str::to_owned)));
            let o = match found.map(|k| self.detail_at.entry(k)) {
                Some(std::collections::hash_map::Entry::Occupied(at)) => have.get_mut(*at.get()).and_then(Value::as_object_mut),
                Some(std::collections::hash_map::Entry::Vacant(at)) => {
                    at.insert(have.len());
                    None
                }
                None => None,
            };
            let Some(o) = o else {
                have.push(d.clone());
                continue;
            };
            for (f, v) in piece {
                match (o.get_mut(f), v) {
                    (Some(Value::String(s)), Value::String(more)) if matches!(f.as_str(), "text" | "summary" | "data") => s.push_str(more),
                    (_, Value::Null) => {}
                    _ => {
                        o.insert(f.clone(), v.clone());
                    }
                }
            }
        }
    }

    /// OpenAI Chat: a tool call delta of the first choice, on the call `seq` (the accumulator's,
    /// [`super::Accumulator::chat_key`]: the calls in the order they started). The call keeps the
    /// first id it was given.
    pub(super) fn chat_call(&mut self, seq: u64, tc: &Value) {
        if self.lost.is_some() {
            return;
        }
        let ti = (0, seq);
        let id = str_of(tc, "id").filter(|i| !i.is_empty());
        // A custom tool's call: its `custom` object put together as `function` is.
        let custom = tc.get("custom").is_some_and(Value::is_object);
        let new = || {
            // The id first, as OpenAI writes a call.
            let mut call = Map::new();
            if let Some(id) = &id {
                call.insert("id".into(), Value::String(id.clone()));
            }
            if custom {
                call.insert("type".into(), "custom".into());
                call.insert("custom".into(), object([("name", string("")), ("input", string(""))]));
            } else {
                call.insert("type".into(), "function".into());
                call.insert("function".into(), object([("name", string("")), ("arguments", string(""))]));
            }
            Value::Object(call)
        };
        let Some(p) = self.part(ti, new) else { return };
        let has_id = p.value.get("id").is_some();
        if let (false, Some(id)) = (has_id, id) {
            self.set_in(ti, &["id"], Value::String(id));
        }
        self.note_call_id(ti);
        // A call without `function` holds its name and arguments itself, as the accumulator
        // reads it: they are its function's.
        let unwrapped = tc.get("function").is_none() && !custom;
        // Other keys (Gemini's `extra_content`, with a thought signature) as sent.
        for (k, v) in tc.as_object().into_iter().flatten() {
            let read = matches!(k.as_str(), "index" | "id" | "type" | "function" | "custom") || unwrapped && matches!(k.as_str(), "name" | "arguments");
            if !read {
                self.set_in(ti, &[k], v.clone());
            }
        }
        // The name as the accumulator reads it, the input appended, other keys as sent.
        if let Some(c) = tc.get("custom").and_then(Value::as_object) {
            for (k, v) in c {
                match (k.as_str(), v) {
                    ("name", Value::String(name)) => {
                        let again = self.get(ti).and_then(|p| p.value.pointer("/custom/name")).and_then(Value::as_str) == Some(name);
                        if !again {
                            self.append_to(ti, &["custom", "name"], name);
                        }
                    }
                    ("input", Value::String(input)) => self.append_to(ti, &["custom", "input"], input),
                    (_, Value::Null) => {}
                    _ => self.set_in(ti, &["custom", k], v.clone()),
                }
            }
            return;
        }
        let f = tc.get("function").unwrap_or(tc);
        if let Some(name) = f.get("name").and_then(Value::as_str) {
            // The whole name again is not more of it (`add_name_piece`).
            let again = self.get(ti).and_then(|p| p.value.pointer("/function/name")).and_then(Value::as_str) == Some(name);
            if !again {
                self.append_to(ti, &["function", "name"], name);
            }
        }
        // Text, once some came, is the arguments (an object given besides is not), as the
        // accumulator reads them; arguments of another type are kept as sent, as an object is.
        match f.get("arguments") {
            Some(Value::String(a)) if !a.is_empty() => self.append_to(ti, &["function", "arguments"], a),
            Some(Value::String(_) | Value::Null) | None => {}
            Some(whole) => {
                let text = self.get(ti).and_then(|p| p.value.pointer("/function/arguments")).and_then(Value::as_str);
                if text.is_none_or(str::is_empty) {
                    self.set_in(ti, &["function", "arguments"], whole.clone());
                }
            }
        }
    }

    /// Chat: the name of the call `seq` as the accumulator put it together, when it put back
    /// pieces that were the name so far ([`super::add_name_piece`]), which this part dropped.
    pub(super) fn chat_name(&mut self, seq: u64, custom: bool, name: String) {
        if self.lost.is_none() {
            let path = if custom { ["custom", "name"] } else { ["function", "name"] };
            self.set_in((0, seq), &path, Value::String(name));
        }
    }

    /// Chat: the id made up for the call `seq`, which the provider streamed without one
    /// ([`super::made_id`]), as its [`super::ToolCall`]'s.
    pub(super) fn chat_id(&mut self, seq: u64, id: &str) {
        if self.lost.is_none() && self.get((0, seq)).is_some_and(|p| p.value.get("id").is_none()) {
            self.set_in((0, seq), &["id"], Value::String(id.to_owned()));
            self.note_call_id((0, seq));
        }
    }

    /// Whether a call of the turn has the id `id`.
    pub(super) fn has_call_id(&self, id: &str) -> bool {
        super::ids_read(1);
        let has = self.call_ids.contains(id);
        #[cfg(test)]
        assert_eq!(has, self.parts.iter().any(|(_, p)| p.value.get("id").and_then(Value::as_str) == Some(id)), "the turn's call ids, {id}");
        has
    }

    /// Notes the id of the call at `key`, when it has one ([`Turn::call_ids`]).
    fn note_call_id(&mut self, key: Key) {
        if let Some(id) = self.find(key).ok().and_then(|i| self.parts[i].1.value.get("id")).and_then(Value::as_str) {
            self.call_ids.insert(id.to_owned());
        }
    }

    /// Ollama's own `/api/chat` stream: text, thinking, and whole calls (arguments as objects),
    /// given an id when they have none ([`super::made_id`]), `n` counting the calls given before
    /// (`emitted` before this event), none that another call of the chunk or of the turn has, as
    /// their [`super::ToolCall`]s are.
    fn ollama(&mut self, ev: &Value, emitted: usize) {
        let Some(m) = ev.get("message") else { return };
        self.append_fields(m, &["content", "thinking"]);
        let tool_calls = array(m, "tool_calls");
        let given = super::GivenIds::new(tool_calls);
        for (n, tc) in tool_calls.iter().enumerate() {
            let id = str_of(tc, "id").filter(|id| !id.is_empty()).unwrap_or_else(|| super::made_id(emitted + n, |id| given.has(id) || self.has_call_id(id)));
            // A call without `function` holds its name and arguments itself, as the accumulator reads it.
            let function = match tc.get("function") {
                Some(f) => f.clone(),
                None => Value::Object(tc.as_object().into_iter().flatten().filter(|(k, _)| matches!(k.as_str(), "name" | "arguments")).map(|(k, v)| (k.clone(), v.clone())).collect()),
            };
            if self.push_part(object([("id", Value::String(id.clone())), ("type", string("function")), ("function", function)])) {
                self.call_ids.insert(id);
            }
        }
    }

    /// Responses: each output item whole, as `response.output_item.done` gives it, at its output
    /// index (after the others without one). Calls (a function's, a custom tool's) are the
    /// accumulator's to put in, as it reads them ([`Turn::call_added`]): it knows which call an
    /// event is for.
    fn responses(&mut self, ev: &Value) {
        if ev.get("type").and_then(Value::as_str) != Some("response.output_item.done") {
            return;
        }
        let item = ev.get("item").filter(|i| i.is_object() && !responses_call(i));
        if let Some(item) = item {
            let pos = ev.get("output_index").and_then(Value::as_u64).unwrap_or_else(|| self.next());
            self.put(pos, item.clone());
        }
    }

    /// The part made last at position `pos` that is a call's.
    fn call_at(&mut self, pos: u64) -> Option<&mut Part> {
        let end = self.parts.partition_point(|(k, _)| k.0 <= pos);
        self.parts[..end].iter_mut().rev().take_while(|(k, _)| k.0 == pos).map(|(_, p)| p).find(|p| p.call)
    }

    /// Responses: the function call the accumulator reads at output index `pos`, as
    /// `output_item.added` gives it: a `new` call's part, or in place of the one being read there.
    /// Until it is done, a stream cut short has the call [`super::Accumulator::finish`] gives, for
    /// its output to answer.
    pub(super) fn call_added(&mut self, pos: u64, item: &Value, new: bool) {
        if self.lost.is_some() {
            return;
        }
        self.held += size(item);
        if let Some(p) = self.call_at(pos).filter(|_| !new) {
            p.value = item.clone();
        } else if let Some(p) = self.put(pos, item.clone()) {
            p.call = true;
        }
    }

    /// Responses: `text` streamed to the arguments (a custom tool's input) of the call at `pos`.
    pub(super) fn call_args(&mut self, pos: u64, text: &str) {
        if self.lost.is_some() {
            return;
        }
        self.held += text.len();
        if let Some(p) = self.call_at(pos) {
            let key = args_key(&p.value);
            append(&mut p.value, &[key], text);
        }
    }

    /// Responses: the call at `pos` completed, with the `id`, `name` and `args` the accumulator
    /// gives it. `item` is its `output_item.done`'s, which takes the place of its part (that of a
    /// `new` call, not read before).
    pub(super) fn call_done(&mut self, pos: u64, item: Option<&Value>, new: bool, id: Option<&str>, name: &str, args: &str) {
        if self.lost.is_some() {
            return;
        }
        if let (true, Some(item)) = (new, item) {
            if let Some(p) = self.put(pos, item.clone()) {
                p.call = true;
                set_call(&mut p.value, id, name, args);
            }
            return;
        }
        self.held += item.map_or(0, size);
        if let Some(p) = self.call_at(pos) {
            if let Some(item) = item {
                p.value = item.clone();
            }
            set_call(&mut p.value, id, name, args);
        }
    }

    /// Responses: the `output_item.done` of a call completed already, in place of its part, with
    /// the id, name and arguments it was given.
    pub(super) fn call_again(&mut self, pos: u64, item: &Value) {
        if self.lost.is_some() {
            return;
        }
        self.held += size(item);
        if let Some(p) = self.call_at(pos) {
            let was = std::mem::replace(&mut p.value, item.clone());
            let text = |k: &str| was.get(k).and_then(Value::as_str).unwrap_or("");
            set_call(&mut p.value, was.get("call_id").and_then(Value::as_str), text("name"), text(args_key(&was)));
        }
    }

    /// Responses: the response's `output` (`response.completed`, `response.incomplete`), for the
    /// items no event gave (a stream resumed past their events, a server that sends none): each
    /// put at its output index, as its `output_item.done` would have, after any part there.
    /// An item the events gave (by its `id`; one without, by its index) stays as they made it.
    /// Calls (a function's, a custom tool's) are the accumulator's to put in ([`Turn::call_done`]).
    pub(super) fn final_output(&mut self, output: &[Value]) {
        if self.lost.is_some() || output.is_empty() {
            return;
        }
        let ids: HashSet<String> = self.parts.iter().filter_map(|(_, p)| p.value.get("id").and_then(Value::as_str)).map(str::to_owned).collect();
        for (pos, item) in (0u64..).zip(output) {
            if !item.is_object() || responses_call(item) {
                continue;
            }
            let latest = self.latest(pos);
            let given = match item.get("id").and_then(Value::as_str) {
                Some(id) => ids.contains(id),
                None => latest.is_some(),
            };
            if !given {
                let key = latest.map_or((pos, 0), |i| (pos, self.parts[i].0 .1 + 1));
                self.part(key, || item.clone());
            }
        }
    }

    /// Anthropic: each content block from its `content_block_start`, its deltas added until its
    /// `content_block_stop`.
    fn anthropic(&mut self, ev: &Value) {
        let idx = ev.get("index").and_then(Value::as_u64).unwrap_or(0);
        match ev.get("type").and_then(Value::as_str) {
            Some("content_block_start") => {
                if let Some(block) = ev.get("content_block").filter(|b| b.is_object()) {
                    let call = block.get("type").and_then(Value::as_str) == Some("tool_use");
                    if let Some(p) = self.put(idx, block.clone()) {
                        p.call = call;
                    }
                }
            }
            Some("content_block_delta") => {
                let Some(d) = ev.get("delta") else { return };
                // The block made last at its index, until it stopped.
                let block = self.latest(idx).filter(|&i| !self.parts[i].1.stopped);
                let text = |k: &str| d.get(k).and_then(Value::as_str);
                let field = match d.get("type").and_then(Value::as_str) {
                    Some("text_delta") => "text",
                    Some("thinking_delta") => "thinking",
                    Some("signature_delta") => "signature",
                    Some("input_json_delta") => {
                        if let Some(j) = text("partial_json") {
                            self.held += j.len();
                            if let Some(i) = block {
                                self.parts[i].1.add_args(&["input"], j);
                            }
                        }
                        return;
                    }
                    Some("citations_delta") => {
                        if let Some(c) = d.get("citation") {
                            self.held += size(c);
                            if let Some(list) = block.and_then(|i| value_at(&mut self.parts[i].1.value, &["citations"])) {
                                if !list.is_array() {
                                    *list = Value::Array(Vec::new());
                                }
                                if let Value::Array(list) = list {
                                    list.push(c.clone());
                                }
                            }
                        }
                        return;
                    }
                    Some("compaction_delta") => {
                        // The compaction block's value whole (`content`, the summary, `null` for a
                        // failed compaction; `encrypted_content` when sent), put in its place, as
                        // the SDK's beta stream does: the block is sent back verbatim.
                        self.held += size(d);
                        let compaction = block.and_then(|i| self.parts[i].1.value.as_object_mut()).filter(|o| o.get("type").is_some_and(|t| t == "compaction"));
                        if let Some(o) = compaction {
                            o.insert("content".to_owned(), d.get("content").cloned().unwrap_or(Value::Null));
                            if let Some(e) = d.get("encrypted_content") {
                                o.insert("encrypted_content".to_owned(), e.clone());
                            }
                        }
                        return;
                    }
                    // A delta of another type is passed over, as the SDK's stream passes over one
                    // it does not know: how it would change its block is not known.
                    _ => return,
                };
                if let Some(t) = text(field) {
                    self.held += t.len();
                    if let Some(i) = block {
                        append(&mut self.parts[i].1.value, &[field], t);
                    }
                }
            }
            Some("content_block_stop") => self.stop(idx),
            _ => {}
        }
    }

    /// Gemini: a part of the first candidate that holds no call. Text streams in pieces, and the
    /// pieces are put together again: a piece goes on the text part before it when both are
    /// thoughts or both are not, and that part has no signature yet (a signature ends the text it
    /// signs, which may come with the last piece or alone after it, with empty text). Other parts
    /// are kept as they came.
    pub(super) fn gemini_part(&mut self, part: &Value) {
        let Some(o) = part.as_object().filter(|_| self.lost.is_none()) else { return };
        if text_part(o) {
            let signature = o.get("thoughtSignature").filter(|s| s.as_str().is_some_and(|s| !s.is_empty()));
            let text = o.get("text").and_then(Value::as_str).unwrap_or("");
            if let Some((_, last)) = self.parts.last_mut() {
                if let Some(l) = last.value.as_object_mut() {
                    if text_part(l) && thought(l) == thought(o) && !l.contains_key("thoughtSignature") {
                        self.held += text.len();
                        append(&mut last.value, &["text"], text);
                        if let (Some(s), Some(l)) = (signature, last.value.as_object_mut()) {
                            l.insert("thoughtSignature".to_owned(), s.clone());
                        }
                        return;
                    }
                }
            }
            if text.is_empty() && signature.is_none() {
                return; // Nothing to keep (Vertex refuses an empty text part).
            }
        }
        self.push_part(part.clone());
    }

    /// Gemini: a `functionCall` part of the first candidate (its `args` and `partial` arguments),
    /// as the accumulator read it: a call streamed over several parts is one part, as it is one
    /// call, with the call's id and signature.
    pub(super) fn gemini_call(&mut self, part: &Value, args: Option<&Value>, partial: Option<&Vec<Value>>, step: &GeminiStep<'_>) {
        if self.lost.is_some() {
            return;
        }
        match step {
            GeminiStep::More { last, id, signature } => {
                if let Some(open) = self.open_call.and_then(|i| self.parts.get_mut(i)).map(|(_, p)| &mut p.value) {
                    if let Some(whole) = value_at(open, &["functionCall", "args"]) {
                        let (used, cut) = merge_args(whole, args, partial, MAX_TURN_BYTES.saturating_sub(self.held), &mut self.half);
                        self.held += used;
                        if cut == Some(ArgsCut::TooLarge) {
                            self.held = self.held.max(MAX_TURN_BYTES + 1);
                        }
                    }
                    // The first id and signature the call was given, as the accumulator has them.
                    for (path, said) in [(&["functionCall", "id"][..], id), (&["thoughtSignature"][..], signature)] {
                        if let Some(said) = said {
                            if let Some(slot) = value_at(open, path).filter(|slot| slot.as_str() != Some(*said)) {
                                *slot = Value::String((*said).to_owned());
                                self.held += said.len();
                            }
                        }
                    }
                }
                if *last {
                    self.open_call = None;
                }
            }
            GeminiStep::New { open } => {
                self.open_call = None;
                let mut value = part.clone();
                if let Some(call) = value.get_mut("functionCall").and_then(Value::as_object_mut) {
                    call.remove("partialArgs");
                    call.remove("willContinue");
                    let mut whole = Value::Object(Map::new());
                    // What it makes is charged with the part ([`Turn::admit`]).
                    self.half = None;
                    if merge_args(&mut whole, args, partial, MAX_TURN_BYTES.saturating_sub(self.held), &mut self.half).1 == Some(ArgsCut::TooLarge) {
                        self.held = self.held.max(MAX_TURN_BYTES + 1);
                    }
                    call.insert("args".to_owned(), whole);
                }
                if *open {
                    self.open_call = Some(self.parts.len());
                }
                self.push_part(value);
            }
            GeminiStep::Nothing => self.open_call = None,
        }
    }

    /// Gemini: `signature`, which came alone in the part after the call made last (that had
    /// none), on that call's part, where Gemini wants it back.
    pub(super) fn gemini_sign_call(&mut self, signature: &str) {
        if let Some(o) = self.parts.last_mut().and_then(|(_, p)| p.value.as_object_mut()).filter(|o| o.contains_key("functionCall") && !o.contains_key("thoughtSignature")) {
            o.insert("thoughtSignature".to_owned(), string(signature));
            self.held += signature.len();
        }
    }

    /// Gemini: the first candidate finished; no call streams on.
    pub(super) fn gemini_finished(&mut self) {
        self.open_call = None;
    }

    /// Adds a part after the others ([`Turn::admit`]): `false` when it was not.
    fn push_part(&mut self, value: Value) -> bool {
        let key = (self.next(), 0);
        let Some(value) = self.admit(value) else { return false };
        self.parts.push((key, Part { value, ..Part::default() }));
        true
    }

    /// Bedrock ConverseStream: each content block by its index (`contentBlockStart` for a tool
    /// use, a server tool's result and an image, deltas for text, citations, reasoning, that
    /// result's content and the image's source), until its `contentBlockStop`.
    fn bedrock(&mut self, ev: &Value) {
        let index = |v: &Value| v.get("contentBlockIndex").and_then(Value::as_u64).unwrap_or(0);
        let Some(delta) = ev.get("contentBlockDelta") else {
            if let Some(start) = ev.get("contentBlockStart") {
                let block = |k: &str| start.get("start").and_then(|s| s.get(k)).and_then(Value::as_object);
                if let Some(tu) = block("toolUse") {
                    let mut tu = tu.clone();
                    tu.entry("input").or_insert_with(|| Value::Object(Map::new()));
                    // A system tool's use (`type: "server_tool_use"`) is kept, its input read in,
                    // but it is no call: Bedrock ran it, and its `toolResult` follows.
                    let call = !tu.get("type").is_some_and(|t| t == "server_tool_use");
                    if let Some(p) = self.put(index(start), object([("toolUse", Value::Object(tu))])) {
                        p.call = call;
                    }
                } else if let Some(tr) = block("toolResult") {
                    // A system tool's result (`toolUseId`, `type`, `status`), its content streamed.
                    let mut tr = tr.clone();
                    tr.entry("content").or_insert_with(|| Value::Array(Vec::new()));
                    self.put(index(start), object([("toolResult", Value::Object(tr))]));
                } else if let Some(image) = block("image") {
                    // An image (`{format}`), its `source` streamed.
                    self.put(index(start), object([("image", Value::Object(image.clone()))]));
                }
            } else if let Some(stop) = ev.get("contentBlockStop") {
                self.stop(index(stop));
            }
            return;
        };
        let (key, Some(d)) = (self.block(index(delta)), delta.get("delta")) else { return };
        let reasoning = || object([("reasoningContent", object([("reasoningText", object([("text", string(""))]))]))]);
        if let Some(text) = d.get("text").and_then(Value::as_str) {
            self.append_new(key, || object([("text", string(""))]), &["text"], text);
        } else if let Some(input) = d.get("toolUse").and_then(|t| t.get("input")).and_then(Value::as_str) {
            self.append_args(key, &["toolUse", "input"], input);
        } else if let Some(items) = d.get("toolResult").and_then(Value::as_array) {
            // Content items (`{text}`, `{json}`) of the result started at the index, in order.
            self.held += items.iter().map(size).sum::<usize>();
            let content = self.get(key).and_then(|p| p.value.get_mut("toolResult")).and_then(|tr| value_at(tr, &["content"]));
            if let Some(content) = content {
                if !content.is_array() {
                    *content = Value::Array(Vec::new());
                }
                if let Value::Array(content) = content {
                    content.extend(items.iter().cloned());
                }
            }
        } else if let Some(c) = d.get("citation").filter(|c| c.is_object()) {
            // A citation of the text at the index: each delta one, as the Converse response lists them.
            self.held += size(c);
            if let Some(p) = self.part(key, || object([("text", string(""))])).filter(|p| p.value.get("text").is_some()) {
                p.citations.get_or_insert_with(Vec::new).push(c.clone());
            }
        } else if let Some(source) = d.get("image").and_then(|i| i.get("source")).and_then(Value::as_object) {
            // The image's `source`: its bytes (base64, or a `Uint8Array` through JSON) joined as
            // they come, another source (`s3Location`) as given.
            let image = || object([("image", Value::Object(Map::new()))]);
            if let Some(b) = source.get("bytes") {
                let bytes = bytes_of(b);
                self.held += bytes.len();
                if let Some(p) = self.part(key, image) {
                    p.bytes.get_or_insert_with(Vec::new).extend(bytes);
                }
            } else {
                let source = Value::Object(source.clone());
                self.held += size(&source);
                if let Some(slot) = self.part(key, image).and_then(|p| value_at(&mut p.value, &["image", "source"])) {
                    *slot = source;
                }
            }
        } else if let Some(r) = d.get("reasoningContent") {
            if let Some(text) = r.get("text").and_then(Value::as_str) {
                self.append_new(key, reasoning, &["reasoningContent", "reasoningText", "text"], text);
            }
            if let Some(signature) = r.get("signature").and_then(Value::as_str) {
                self.append_new(key, reasoning, &["reasoningContent", "reasoningText", "signature"], signature);
            }
            if let Some(redacted) = r.get("redactedContent") {
                let bytes = bytes_of(redacted);
                self.held += bytes.len();
                if let Some(p) = self.part(key, || object([("reasoningContent", Value::Object(Map::new()))])) {
                    p.bytes.get_or_insert_with(Vec::new).extend(bytes);
                }
            }
        }
    }

    /// The turn as the provider's message (Responses: its output items). `LIMIT_EXCEEDED` when
    /// it was dropped.
    pub(super) fn message(&self, format: CallFormat) -> Result<Value> {
        if let Some(e) = self.lost_error() {
            return Err(e);
        }
        // Anthropic and Bedrock refuse a text block with no text but white space ("text content
        // blocks must be non-empty", "... must contain non-whitespace text"): a block started and
        // never written to is left out, as Gemini's empty text parts are when read.
        let parts = |input: &[&str], blank: bool| -> Vec<Value> {
            self.parts.iter().filter(|(_, p)| blank || !p.blank_text()).map(|(_, p)| p.made(input)).collect()
        };
        Ok(match format {
            CallFormat::OpenAi | CallFormat::Ollama => {
                let mut m = Map::new();
                m.insert("role".into(), "assistant".into());
                let mut content = self.fields.get("content").cloned().unwrap_or(Value::Null);
                // With calls, no text is `null`, as a completion gives it and OpenAI's spec has it
                // (`content` "required unless `tool_calls`"): relays in front of Claude refuse the
                // `""` a stream starts with ("text content blocks must be non-empty").
                let empty = content.as_str().is_some_and(str::is_empty) || content.as_array().is_some_and(Vec::is_empty);
                if format == CallFormat::OpenAi && empty && !self.parts.is_empty() {
                    content = Value::Null;
                }
                // Ollama's message has a string `content` (its Go struct and its clients' types), `""`
                // for none, on its own endpoint and its OpenAI-compatible one alike.
                if format == CallFormat::Ollama && content.is_null() {
                    content = string("");
                }
                m.insert("content".into(), content);
                for k in ["refusal", "audio", "thinking", "reasoning_content", "thinking_blocks", "reasoning", "reasoning_details"] {
                    if let Some(v) = self.fields.get(k) {
                        m.insert(k.into(), v.clone());
                    }
                }
                // A thinking block the stream was cut inside, before its signature: LiteLLM makes
                // Claude's blocks again from these, and Claude refuses one without its signature
                // in this request and every later one (as on the Anthropic path: left out; one
                // that ended without a signature, from a server that signs none, stays).
                if self.thinking_open {
                    if let Some(Value::Array(blocks)) = m.get_mut("thinking_blocks") {
                        if blocks.last().is_some_and(|b| b.get("type").and_then(Value::as_str) == Some("thinking") && !signed(b)) {
                            blocks.pop();
                        }
                        if blocks.is_empty() {
                            m.remove("thinking_blocks");
                        }
                    }
                }
                if !self.parts.is_empty() {
                    // OpenAI's parallel wrapper as the calls of its tool uses, as they were given;
                    // Chat's names as it takes them in a history, Ollama's as sent (its tool
                    // message answers a call by that name).
                    let chat_names = format == CallFormat::OpenAi;
                    let mut calls = super::parallel::chat_calls(parts(&[], true), chat_names);
                    // Chat takes a call's arguments back as JSON text only: arguments a server sent
                    // as an object (some OpenAI-compatible ones do) are written as that text, which
                    // every such server takes too. Ollama's own endpoint wants the object.
                    for call in &mut calls {
                        history_arguments(call, chat_names);
                    }
                    m.insert("tool_calls".into(), Value::Array(calls));
                }
                Value::Object(m)
            }
            CallFormat::OpenAiResponses => {
                // A `function_call` item's arguments are JSON text, as for Chat.
                let mut items = parts(&[], true);
                for item in &mut items {
                    if item.get("type").and_then(Value::as_str) == Some("function_call") {
                        as_json_text(item.get_mut("arguments"));
                    }
                }
                Value::Array(items)
            }
            CallFormat::Anthropic => {
                // A thinking block the stream was cut inside, before its `signature_delta`: Anthropic
                // refuses it sent back ("signature: Field required", or an invalid signature for the
                // start's empty one) in this request and every later one, but takes the turn without
                // it (thinking blocks may be left out; each one sent must be whole, as the model made it).
                let content = self.parts.iter().filter(|(_, p)| !p.blank_text() && !p.unsigned_thinking()).map(|(_, p)| p.made(&["input"]));
                object([("role", string("assistant")), ("content", Value::Array(content.collect()))])
            }
            CallFormat::Gemini => {
                // A call's `args` that is not an object (a proxy's `[1, 2]`, the call's
                // `INVALID_ARGUMENTS`) is `{}`, as Anthropic's and Bedrock's inputs are: Gemini
                // takes a `Struct` there.
                let mut parts = parts(&[], true);
                for p in &mut parts {
                    if let Some(args) = p.get_mut("functionCall").and_then(|c| c.get_mut("args")).filter(|a| !a.is_object()) {
                        *args = Value::Object(Map::new());
                    }
                }
                object([("role", string("model")), ("parts", Value::Array(parts))])
            }
            CallFormat::Bedrock => {
                // A call's name Bedrock refuses in a history (`^[a-zA-Z0-9_-]{1,64}$`, or every
                // later request fails) is listed under one it takes, with the call's id, which its
                // result answers: as Chat's are ([`super::parallel::turn_name`]).
                // A reasoning block the stream was cut inside, before its signature, is left out, as
                // Anthropic's is: Claude on Bedrock refuses it sent back in every later request.
                let content = self.parts.iter().filter(|(_, p)| !p.blank_text() && !p.unsigned_thinking()).map(|(_, p)| {
                    let mut v = p.made(&["toolUse", "input"]);
                    // (One without a name: `unnamed_tool`.)
                    if let Some(tu) = v.get_mut("toolUse").and_then(Value::as_object_mut).filter(|_| p.call) {
                        let name = tu.get("name").and_then(Value::as_str).unwrap_or_default();
                        if let std::borrow::Cow::Owned(n) = super::parallel::turn_name(name) {
                            tu.insert("name".to_owned(), Value::String(n));
                        }
                    }
                    v
                });
                object([("role", string("assistant")), ("content", Value::Array(content.collect()))])
            }
        })
    }
}

impl Part {
    /// Appends argument text, if it is a call's part, or a block with an input at `input`
    /// (Anthropic's `server_tool_use`); another takes none, as the accumulator reads none.
    fn add_args(&mut self, input: &[&str], text: &str) {
        if !text.is_empty() && (self.call || pointer(&self.value, input).is_some()) {
            self.args.get_or_insert_with(String::new).push_str(text);
        }
    }

    /// A text block (Anthropic's, Bedrock's) of white space at most, without citations.
    fn blank_text(&self) -> bool {
        let Some(o) = self.value.as_object().filter(|_| self.citations.is_none()) else { return false };
        o.get("text").and_then(Value::as_str).is_some_and(|t| t.trim().is_empty())
            && o.iter().all(|(k, v)| match k.as_str() {
                "text" => true,
                "type" => v == "text",
                "citations" => v.is_null() || v.as_array().is_some_and(Vec::is_empty),
                _ => false,
            })
    }

    /// An Anthropic `thinking` block, or a Bedrock `reasoningContent` one of `reasoningText`, cut
    /// short before its signature: not stopped, and without one (or with the empty one its start
    /// may give). One stopped without a signature (a server that signs none) stays as it came.
    fn unsigned_thinking(&self) -> bool {
        let thinking = if self.value.get("type").and_then(Value::as_str) == Some("thinking") {
            Some(&self.value)
        } else {
            self.value.get("reasoningContent").and_then(|r| r.get("reasoningText")).filter(|_| self.bytes.is_none())
        };
        !self.stopped && thinking.is_some_and(|t| !signed(t))
    }

    /// The part as sent back: streamed arguments read into the input at `input` (an object; `{}`
    /// for text that is not one, as a stream cut short leaves it), redacted bytes as base64.
    fn made(&self, input: &[&str]) -> Value {
        let mut v = self.value.clone();
        if let (Some(args), false) = (&self.args, input.is_empty()) {
            let parsed = match super::read_repaired(args) {
                Ok(o @ Value::Object(_)) => o,
                _ => Value::Object(Map::new()),
            };
            if let Some(slot) = value_at(&mut v, input) {
                *slot = parsed;
            }
        } else if let Some(slot) = input.iter().try_fold(&mut v, |cur, k| cur.get_mut(*k)).filter(|s| !input.is_empty() && !s.is_object()) {
            // An `input` the block's start gave that is no object (`null`, a string), with no
            // delta after it: `{}`, as Anthropic takes none other back (and as it is read).
            *slot = Value::Object(Map::new());
        }
        if let Some(bytes) = &self.bytes {
            let at: &[&str] = if v.get("image").is_some() { &["image", "source", "bytes"] } else { &["reasoningContent", "redactedContent"] };
            if let Some(slot) = value_at(&mut v, at) {
                *slot = Value::String(crate::protocol::headers::base64(bytes));
            }
        }
        // Bedrock's cited text: `{citationsContent: {content: [{text}], citations}}`.
        if let Some(citations) = &self.citations {
            if let Some(text) = v.get_mut("text").map(Value::take) {
                let content = Value::Array(vec![object([("text", text)])]);
                v = object([("citationsContent", object([("content", content), ("citations", Value::Array(citations.clone()))]))]);
            }
        }
        v
    }
}

/// A thinking or reasoning block that carries its signature: one there and not empty (a block's
/// start may give an empty one, to be filled by a later delta).
fn signed(block: &Value) -> bool {
    block.get("signature").and_then(Value::as_str).is_some_and(|s| !s.is_empty())
}

/// A Chat call's arguments as a history takes them back: JSON text ([`as_json_text`]) of an
/// object, and where the model's text is none (a call of no arguments streamed without any), no
/// JSON (blank, cut short by the token limit) or JSON of no object (`null`, `[1]`), `{}`:
/// OpenAI-compatible servers read every call's arguments in a history as JSON and refuse the
/// request otherwise (vLLM, gateways), and chat templates read them as a map of arguments, in
/// this turn and every later one. Such a call was read as no arguments, or refused
/// (`INVALID_ARGUMENTS`, answered by its error result), never made with what the text held.
/// Not `chat`: an Ollama call, whose text (its `/v1`'s Chat chunks) is held to the same, and
/// whose object (its own endpoint's) or absence stays.
fn history_arguments(call: &mut Value, chat: bool) {
    let Some(f) = call.get_mut("function").and_then(Value::as_object_mut) else { return };
    if !chat && !f.get("arguments").is_some_and(Value::is_string) {
        return;
    }
    let args = f.entry("arguments").or_insert(Value::Null);
    as_json_text(Some(&mut *args));
    if !args.as_str().is_some_and(|t| super::read_repaired(t).is_ok_and(|v| v.is_object())) {
        *args = string("{}");
    }
}

/// A call's arguments as the JSON text Chat and Responses take back: a value a server sent
/// otherwise (an object) written as that text; text and `null` as they are.
fn as_json_text(args: Option<&mut Value>) {
    if let Some(args) = args.filter(|a| !a.is_string() && !a.is_null()) {
        *args = string(&crate::text::to_string(args));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Accumulator, CallFormat, ToolCall};
    use super::*;
    use crate::naming::{NameMap, NameRule, NamingOptions};
    use serde_json::json;

    /// Pushes every event; the calls, and the turn.
    fn run(format: CallFormat, events: &[Value], map: Option<&NameMap>) -> (Vec<ToolCall>, Value) {
        let mut acc = Accumulator::new(format);
        let mut calls = Vec::new();
        for e in events {
            calls.extend(acc.push(e, map).unwrap_or_else(|err| panic!("{e}: {err}")));
        }
        calls.extend(acc.finish(map).unwrap());
        (calls, acc.message().unwrap())
    }

    /// The same events as SSE text cut every `step` bytes (on char boundaries).
    fn run_text(format: CallFormat, events: &[Value], step: usize) -> Value {
        let body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        let mut acc = Accumulator::new(format);
        let mut piece = String::new();
        for c in body.chars() {
            piece.push(c);
            if piece.len() >= step {
                acc.push_text(&std::mem::take(&mut piece), None).unwrap();
            }
        }
        acc.push_text(&piece, None).unwrap();
        acc.finish(None).unwrap();
        acc.message().unwrap()
    }

    fn gh_map() -> NameMap {
        NameMap::build(&[(Some("gh"), "create_issue")], &NamingOptions::default(), NameRule::Strict).0
    }

    /// A Chat call whose arguments text is no JSON (none, `null`, blank, cut short by the token
    /// limit) is written back as `{}`, which OpenAI-compatible servers take in a history (they
    /// refuse the request otherwise); JSON text is as the model sent it.
    #[test]
    fn a_chat_turn_writes_arguments_that_are_no_json_as_an_empty_object() {
        let chunk = |delta: Value, finish: Option<&str>| json!({"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":delta,"finish_reason":finish}]});
        let call = |function: Value| chunk(json!({"role":"assistant","tool_calls":[{"index":0,"id":"a","type":"function","function":function}]}), None);
        for (function, finish, want, error) in [
            (json!({"name":"ping"}), "tool_calls", "{}", false),
            (json!({"name":"ping","arguments":null}), "tool_calls", "{}", false),
            (json!({"name":"ping","arguments":" \n"}), "tool_calls", "{}", false),
            (json!({"name":"ping","arguments":"{\"q\":\"ab"}), "length", "{}", true),
            (json!({"name":"ping","arguments":"{\"q\": \"ab\"}"}), "tool_calls", "{\"q\": \"ab\"}", false),
            (json!({"name":"ping","arguments":"[1]"}), "tool_calls", "{}", true),
            (json!({"name":"ping","arguments":"null"}), "tool_calls", "{}", false),
            (json!({"name":"ping","arguments":"\"{}\""}), "tool_calls", "{}", true),
        ] {
            let (calls, turn) = run(CallFormat::OpenAi, &[call(function.clone()), chunk(json!({}), Some(finish))], None);
            assert_eq!(turn["tool_calls"][0]["function"]["arguments"], want, "{function}");
            assert_eq!(calls[0].error.is_some(), error, "{function}: {:?}", calls[0].error);
            // Ollama's `/v1` streams the same chunks: text that is no JSON is `{}` there too.
            if function.get("arguments").is_some_and(Value::is_string) {
                let (_, turn) = run(CallFormat::Ollama, &[call(function.clone()), chunk(json!({}), Some(finish))], None);
                assert_eq!(turn["tool_calls"][0]["function"]["arguments"], want, "Ollama: {function}");
            }
        }
    }

    /// An Anthropic tool_use whose start gives an `input` that is no object, with no delta after
    /// it, is `{}` in the turn (as it is read), which is all Anthropic takes back.
    #[test]
    fn an_anthropic_tool_use_started_without_an_object_input_is_written_with_an_empty_one() {
        for input in [Value::Null, json!("x"), json!([1]), json!(3)] {
            let events = [
                json!({"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[]}}),
                json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"ping","input":input}}),
                json!({"type":"content_block_stop","index":0}),
                json!({"type":"message_delta","delta":{"stop_reason":"tool_use"}}),
            ];
            let (_, turn) = run(CallFormat::Anthropic, &events, None);
            assert_eq!(turn["content"], json!([{"type":"tool_use","id":"t","name":"ping","input":{}}]), "{input}");
        }
        // A text block gains no input.
        let text = [json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":"hi"}}), json!({"type":"content_block_stop","index":0})];
        assert_eq!(run(CallFormat::Anthropic, &text, None).1["content"], json!([{"type":"text","text":"hi"}]));
    }

    #[test]
    fn anthropic_turn_keeps_thinking_its_signature_and_redacted_thinking() {
        // Extended thinking with tool use (the Messages streaming docs' events): a thinking block
        // and its signature, a redacted one, text, two parallel calls.
        let start = |i: u64, block: Value| json!({"type":"content_block_start","index":i,"content_block":block});
        let delta = |i: u64, d: Value| json!({"type":"content_block_delta","index":i,"delta":d});
        let stop = |i: u64| json!({"type":"content_block_stop","index":i});
        let events = [
            json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null}}),
            start(0, json!({"type":"thinking","thinking":""})),
            delta(0, json!({"type":"thinking_delta","thinking":"Both cities, "})),
            delta(0, json!({"type":"thinking_delta","thinking":"in parallel."})),
            delta(0, json!({"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA"})),
            stop(0),
            start(1, json!({"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"})),
            stop(1),
            start(2, json!({"type":"text","text":""})),
            json!({"type":"ping"}),
            delta(2, json!({"type":"text_delta","text":"Checking "})),
            delta(2, json!({"type":"text_delta","text":"both."})),
            stop(2),
            start(3, json!({"type":"tool_use","id":"toolu_01","name":"mcp__gh__create_issue","input":{}})),
            delta(3, json!({"type":"input_json_delta","partial_json":""})),
            delta(3, json!({"type":"input_json_delta","partial_json":"{\"title\": \"Pa"})),
            delta(3, json!({"type":"input_json_delta","partial_json":"ris\"}"})),
            stop(3),
            start(4, json!({"type":"tool_use","id":"toolu_02","name":"get_weather","input":{}})),
            delta(4, json!({"type":"input_json_delta","partial_json":"{\"city\":\"London\"}"})),
            stop(4),
            json!({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}),
            json!({"type":"message_stop"}),
        ];
        let expected = json!({"role":"assistant","content":[
            {"type":"thinking","thinking":"Both cities, in parallel.","signature":"EqQBCgIYAhIM1gbcDa9GJwZA"},
            {"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"},
            {"type":"text","text":"Checking both."},
            {"type":"tool_use","id":"toolu_01","name":"mcp__gh__create_issue","input":{"title":"Paris"}},
            {"type":"tool_use","id":"toolu_02","name":"get_weather","input":{"city":"London"}}
        ]});
        // The calls resolve through the map; the turn keeps the provider's names.
        let (calls, message) = run(CallFormat::Anthropic, &events, Some(&gh_map()));
        assert_eq!(calls.iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(), ["create_issue", "get_weather"]);
        assert_eq!(message, expected);
        for step in [1, 7, 64] {
            assert_eq!(run_text(CallFormat::Anthropic, &events, step), expected, "step {step}");
        }
        // Citations streamed onto a text block; a block of another kind kept as it started.
        let (_, message) = run(CallFormat::Anthropic, &[
            start(0, json!({"type":"text","text":"","citations":[]})),
            delta(0, json!({"type":"citations_delta","citation":{"type":"char_location","cited_text":"x","document_index":0,"start_char_index":0,"end_char_index":1}})),
            delta(0, json!({"type":"text_delta","text":"X."})),
            start(1, json!({"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}})),
            delta(1, json!({"type":"input_json_delta","partial_json":"{\"query\":\"q\"}"})),
            start(2, json!({"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]})),
        ], None);
        assert_eq!(message["content"], json!([
            {"type":"text","text":"X.","citations":[{"type":"char_location","cited_text":"x","document_index":0,"start_char_index":0,"end_char_index":1}]},
            {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},
            {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}
        ]));
        // A stream cut inside a call's arguments: its input is an empty object, as Anthropic wants one.
        let (_, message) = run(CallFormat::Anthropic, &events[..16], None);
        assert_eq!(message["content"][3]["input"], json!({}));
    }

    /// A stream cut inside a thinking block, before its `signature_delta`: the block, which
    /// Anthropic refuses sent back (no signature, or the start's empty one), is left out of the
    /// turn; it kept it, and every later request of the conversation failed. The blocks before it
    /// stay (interleaved thinking: a signed block and a call); one stopped without a signature (a
    /// server that signs none) and one cut after its signature stay as they came.
    #[test]
    fn anthropic_turn_leaves_out_a_thinking_block_cut_before_its_signature() {
        let start = |i: u64, block: Value| json!({"type":"content_block_start","index":i,"content_block":block});
        let delta = |i: u64, d: Value| json!({"type":"content_block_delta","index":i,"delta":d});
        let stop = |i: u64| json!({"type":"content_block_stop","index":i});
        let begin = json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null}});
        let signed = json!({"type":"thinking","thinking":"Both.","signature":"c2ln"});
        let call = json!({"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"city":"Paris"}});
        for opening in [json!({"type":"thinking","thinking":""}), json!({"type":"thinking","thinking":"","signature":""})] {
            // Cut in the turn's first block: nothing to send back.
            let events = [begin.clone(), start(0, opening.clone()), delta(0, json!({"type":"thinking_delta","thinking":"Let me"}))];
            assert_eq!(run(CallFormat::Anthropic, &events, None).1, json!({"role":"assistant","content":[]}), "{opening}");
            for step in [1, 7, 64] {
                assert_eq!(run_text(CallFormat::Anthropic, &events, step), json!({"role":"assistant","content":[]}), "step {step}");
            }
            // Cut in a block after a call (interleaved thinking): the turn up to it.
            let events = [
                begin.clone(),
                start(0, json!({"type":"thinking","thinking":""})),
                delta(0, json!({"type":"thinking_delta","thinking":"Both."})),
                delta(0, json!({"type":"signature_delta","signature":"c2ln"})),
                stop(0),
                start(1, json!({"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}})),
                delta(1, json!({"type":"input_json_delta","partial_json":"{\"city\":\"Paris\"}"})),
                stop(1),
                start(2, opening.clone()),
                delta(2, json!({"type":"thinking_delta","thinking":"Now"})),
            ];
            let (calls, message) = run(CallFormat::Anthropic, &events, None);
            assert_eq!(calls.len(), 1);
            assert_eq!(message, json!({"role":"assistant","content":[signed, call]}), "{opening}");
        }
        // Cut after its signature, before its stop: whole, kept.
        let events = [begin.clone(), start(0, json!({"type":"thinking","thinking":""})), delta(0, json!({"type":"thinking_delta","thinking":"Both."})),
            delta(0, json!({"type":"signature_delta","signature":"c2ln"}))];
        assert_eq!(run(CallFormat::Anthropic, &events, None).1["content"], json!([signed]));
        // Stopped without a signature (a compatible server that signs none): as it came.
        let events = [begin, start(0, json!({"type":"thinking","thinking":""})), delta(0, json!({"type":"thinking_delta","thinking":"Hm."})), stop(0)];
        assert_eq!(run(CallFormat::Anthropic, &events, None).1["content"], json!([{"type":"thinking","thinking":"Hm."}]));
    }

    #[test]
    fn openai_chat_turn_has_text_and_the_calls_as_streamed() {
        let chunk = |delta: Value| json!({"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":delta,"finish_reason":null}]});
        let events = [
            chunk(json!({"role":"assistant","content":""})),
            chunk(json!({"content":"Checking "})),
            chunk(json!({"content":"both."})),
            chunk(json!({"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"mcp__gh__create_issue","arguments":""}}]})),
            chunk(json!({"tool_calls":[{"index":0,"function":{"arguments":"{\"title\":"}}]})),
            chunk(json!({"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_weather","arguments":""}}]})),
            chunk(json!({"tool_calls":[{"index":0,"function":{"arguments":" \"Paris\"}"}}]})),
            chunk(json!({"tool_calls":[{"index":1,"function":{"arguments":"{\"city\":\"London\"}"}}]})),
            // Another choice (n > 1) is not this turn.
            json!({"choices":[{"index":1,"delta":{"content":"Other choice."}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
        ];
        let expected = json!({"role":"assistant","content":"Checking both.","tool_calls":[
            {"id":"call_a","type":"function","function":{"name":"mcp__gh__create_issue","arguments":"{\"title\": \"Paris\"}"}},
            {"id":"call_b","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"London\"}"}}
        ]});
        let (calls, message) = run(CallFormat::OpenAi, &events, Some(&gh_map()));
        assert_eq!(calls.len(), 2);
        assert_eq!(message, expected);
        assert_eq!(run_text(CallFormat::OpenAi, &events, 5), expected);
        // Calls alone: no text is `null`; text alone: no `tool_calls` (OpenAI refuses an empty one).
        let (_, message) = run(CallFormat::OpenAi, &events[3..], None);
        assert_eq!(message["content"], Value::Null);
        let (_, message) = run(CallFormat::OpenAi, &[chunk(json!({"content":"Hi"})), chunk(json!({"refusal":"No."}))], None);
        assert_eq!(message, json!({"role":"assistant","content":"Hi","refusal":"No."}));
        // Nothing pushed yet.
        assert_eq!(Accumulator::new(CallFormat::OpenAi).message().unwrap(), json!({"role":"assistant","content":null}));
    }

    #[test]
    fn a_chat_turn_keeps_reasoning_content_and_reasoning_details() {
        // DeepSeek's thinking mode refuses the next request without the turn's reasoning_content
        // ("Missing `reasoning_content` field in the assistant message"); OpenRouter wants
        // reasoning_details back as they came.
        let chunk = |delta: Value| json!({"choices":[{"index":0,"delta":delta,"finish_reason":null}]});
        let call = json!({"index":0,"id":"call_0","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}});
        let events = [
            chunk(json!({"role":"assistant","content":null,"reasoning_content":""})),
            chunk(json!({"content":null,"reasoning_content":"The user wants "})),
            chunk(json!({"content":null,"reasoning_content":"the weather."})),
            chunk(json!({"content":null,"reasoning_content":null,"tool_calls":[call]})),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
        ];
        let want = json!({"role":"assistant","content":null,"reasoning_content":"The user wants the weather.","tool_calls":[
            {"id":"call_0","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]});
        assert_eq!(run(CallFormat::OpenAi, &events, None).1, want);
        assert_eq!(run_text(CallFormat::OpenAi, &events, 7), want);
        // OpenRouter's reasoning_details streamed in pieces, put together by index and type.
        let events = [
            chunk(json!({"role":"assistant","content":"","reasoning_details":[{"type":"reasoning.text","text":"Think","index":0,"format":"anthropic-claude-v1"}]})),
            chunk(json!({"reasoning_details":[{"type":"reasoning.text","text":"ing.","index":0,"format":"anthropic-claude-v1"}]})),
            chunk(json!({"reasoning_details":[{"type":"reasoning.text","text":"","signature":"c2ln","index":0,"format":"anthropic-claude-v1"}]})),
            chunk(json!({"reasoning_details":[{"type":"reasoning.encrypted","data":"ZW5j","index":1}]})),
            chunk(json!({"tool_calls":[call]})),
        ];
        let (_, message) = run(CallFormat::OpenAi, &events, None);
        assert_eq!(message["reasoning_details"], json!([
            {"type":"reasoning.text","text":"Thinking.","index":0,"format":"anthropic-claude-v1","signature":"c2ln"},
            {"type":"reasoning.encrypted","data":"ZW5j","index":1}
        ]));
        // A whole completion pushed: as it is.
        let details = json!([{"type":"reasoning.summary","summary":"Weather.","index":0},{"type":"reasoning.encrypted","data":"ZW5j"}]);
        let completion = json!({"choices":[{"index":0,"message":{"role":"assistant","content":null,"reasoning_content":"Why.","reasoning_details":details,"tool_calls":[call]},"finish_reason":"tool_calls"}]});
        let (_, message) = run(CallFormat::OpenAi, &[completion], None);
        assert_eq!((&message["reasoning_content"], &message["reasoning_details"]), (&json!("Why."), &details));
    }

    #[test]
    fn a_chat_turn_keeps_content_given_as_a_list_of_chunks() {
        // Mistral's reasoning models (s28c F1): `content` as a ThinkChunk and TextChunks, which
        // Mistral wants back as they came. Streamed: lists while the model thinks, a closing
        // ThinkChunk and the first TextChunk in one list, then text.
        let chunk = |delta: Value| json!({"choices":[{"index":0,"delta":delta,"finish_reason":null}]});
        let think = |text: &str| json!({"type":"thinking","thinking":[{"type":"text","text":text}]});
        let call = json!({"index":0,"id":"D681PevKs","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}});
        let events = [
            chunk(json!({"role":"assistant","content":""})),
            chunk(json!({"content":[think("Need "),{"type":"text","text":""}]})),
            chunk(json!({"content":[think("the weather.")]})),
            chunk(json!({"content":[{"type":"thinking","thinking":[],"closed":true},{"type":"text","text":"Let me "}]})),
            chunk(json!({"content":"check Paris."})),
            chunk(json!({"content":"","tool_calls":[call]})),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
        ];
        let content = json!([
            {"type":"thinking","thinking":[{"type":"text","text":"Need the weather."}],"closed":true},
            {"type":"text","text":"Let me check Paris."}
        ]);
        let (calls, message) = run(CallFormat::OpenAi, &events, None);
        assert_eq!(calls.len(), 1);
        assert_eq!(message["content"], content);
        assert_eq!(run_text(CallFormat::OpenAi, &events, 9)["content"], content);
        // A thinking chunk after a closed one is another; text before the first list is its first chunk.
        let (_, message) = run(CallFormat::OpenAi, &[chunk(json!({"content":"Hi. "})), chunk(json!({"content":[{"type":"thinking","thinking":[{"type":"text","text":"A"}],"closed":true}]})), chunk(json!({"content":[think("B")]}))], None);
        assert_eq!(message["content"], json!([{"type":"text","text":"Hi. "},{"type":"thinking","thinking":[{"type":"text","text":"A"}],"closed":true},think("B")]));
        // A whole message: its list as it is.
        let whole = json!([think("I should call get_weather."), {"type":"text","text":"I will check the weather in Paris."}]);
        let completion = json!({"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":whole,"tool_calls":[call]}}]});
        assert_eq!(run(CallFormat::OpenAi, &[completion], None).1["content"], whole);
    }

    #[test]
    fn a_chat_turn_keeps_litellm_thinking_blocks() {
        // LiteLLM in front of Claude with thinking (s28c F2): it makes Claude's thinking blocks
        // again from `thinking_blocks` alone, the signature streamed in a piece of its own.
        let chunk = |delta: Value| json!({"choices":[{"index":0,"delta":delta,"finish_reason":null}]});
        let tb = |thinking: &str, signature: Value| json!([{"type":"thinking","thinking":thinking,"signature":signature}]);
        let call = json!({"index":0,"id":"toolu_01A","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}});
        let events = [
            chunk(json!({"role":"assistant","content":""})),
            chunk(json!({"content":"","reasoning_content":"Weather. ","thinking_blocks":tb("Weather. ", Value::Null),"provider_specific_fields":{"thinking_blocks":tb("Weather. ", Value::Null)}})),
            chunk(json!({"content":"","reasoning_content":"Call it.","thinking_blocks":tb("Call it.", Value::Null)})),
            chunk(json!({"content":"","reasoning_content":"","thinking_blocks":tb("", json!("RXFvQkNrZ0lB"))})),
            chunk(json!({"thinking_blocks":[{"type":"redacted_thinking","data":"ZW5j"}]})),
            chunk(json!({"thinking_blocks":tb("More.", Value::Null)})),
            chunk(json!({"content":"","tool_calls":[call]})),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
        ];
        let (_, message) = run(CallFormat::OpenAi, &events, None);
        assert_eq!(message["thinking_blocks"], json!([
            {"type":"thinking","thinking":"Weather. Call it.","signature":"RXFvQkNrZ0lB"},
            {"type":"redacted_thinking","data":"ZW5j"},
            {"type":"thinking","thinking":"More.","signature":null}
        ]));
        assert_eq!(message["reasoning_content"], json!("Weather. Call it."));
        // Cut inside a thinking block, before its signature (s28r2 F5): the block, which Claude
        // refuses sent back, is left out, as on the Anthropic path; the reasoning text stays.
        let (_, message) = run(CallFormat::OpenAi, &events[..2], None);
        assert_eq!(message, json!({"role":"assistant","content":"","reasoning_content":"Weather. "}));
        let signed = json!([{"type":"thinking","thinking":"Weather. Call it.","signature":"RXFvQkNrZ0lB"},{"type":"redacted_thinking","data":"ZW5j"}]);
        assert_eq!(run(CallFormat::OpenAi, &events[..6], None).1["thinking_blocks"], signed);
        assert_eq!(run(CallFormat::OpenAi, &events[..5], None).1["thinking_blocks"], signed);
        // Ended without a signature, by a call after it (a server that signs none): as it came.
        let (_, message) = run(CallFormat::OpenAi, &events[..7], None);
        assert_eq!(message["thinking_blocks"][2], json!({"type":"thinking","thinking":"More.","signature":null}), "{message}");
        // A whole message: its blocks as they are.
        let blocks = json!([{"type":"thinking","thinking":"Weather.","signature":"RXFv"},{"type":"redacted_thinking","data":"ZW5j"}]);
        let completion = json!({"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"thinking_blocks":blocks,"tool_calls":[call]}}]});
        assert_eq!(run(CallFormat::OpenAi, &[completion], None).1["thinking_blocks"], blocks);
    }

    #[test]
    fn a_streamed_chat_turn_of_calls_alone_has_null_content() {
        // s28c F7: the `""` a stream starts with is no text beside calls, as a completion has it
        // (`null`); without calls it stays `""`.
        let chunk = |delta: Value| json!({"choices":[{"index":0,"delta":delta,"finish_reason":null}]});
        let call = json!({"index":0,"id":"call_1","type":"function","function":{"name":"list_files","arguments":"{}"}});
        let events = [chunk(json!({"role":"assistant","content":""})), chunk(json!({"tool_calls":[call]})), json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})];
        assert_eq!(run(CallFormat::OpenAi, &events, None).1["content"], Value::Null);
        let completion = json!({"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"","tool_calls":[call]}}]});
        assert_eq!(run(CallFormat::OpenAi, &[completion], None).1["content"], Value::Null);
        assert_eq!(run(CallFormat::OpenAi, &events[..1], None).1["content"], json!(""));
    }

    /// `reasoning` (vLLM, which reads it back before an assistant message's calls as gpt-oss's
    /// analysis; Ollama's `/v1`, which reads it back as the turn's thinking; OpenRouter; Groq) is
    /// kept as `reasoning_content` is, streamed or whole, for `openai` and `ollama`; a completion's
    /// first delta of reasoning alone after the last one's end begins the next turn (F2, s26a).
    #[test]
    fn a_chat_turn_keeps_the_id_of_its_audio() {
        // An audio model's spoken reply and call (F5 of s27a): `audio: {id}` is how Chat takes
        // the spoken turn back; its data and transcript are not sent back.
        let chunk = |delta: Value, finish: Value| json!({"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":delta,"finish_reason":finish}]});
        let call = json!({"index":0,"id":"call_w","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}});
        let events = [
            chunk(json!({"role":"assistant","content":null,"audio":{"id":"audio_abc123","transcript":"Let me ","expires_at":1800000000}}), Value::Null),
            chunk(json!({"audio":{"transcript":"check the weather.","data":"UklGRg=="}}), Value::Null),
            chunk(json!({"tool_calls":[call]}), Value::Null),
            chunk(json!({}), json!("tool_calls")),
        ];
        let want = json!({"role":"assistant","content":null,"audio":{"id":"audio_abc123"},"tool_calls":[
            {"id":"call_w","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]});
        assert_eq!(run(CallFormat::OpenAi, &events, None).1, want);
        let completion = json!({"id":"c2","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
            "audio":{"id":"audio_abc123","data":"UklGRg==","transcript":"Let me check the weather.","expires_at":1800000000},"tool_calls":[call]}}]});
        assert_eq!(run(CallFormat::OpenAi, &[completion], None).1, want);
    }

    #[test]
    fn a_chat_turn_keeps_reasoning() {
        let chunk = |id: &str, delta: Value, finish: Value| json!({"id":id,"object":"chat.completion.chunk","model":"openai/gpt-oss-20b","choices":[{"index":0,"delta":delta,"finish_reason":finish}]});
        let call = json!({"index":0,"id":"chatcmpl-tool-1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}});
        let turn = |id: &str| {
            vec![
                chunk(id, json!({"role":"assistant","content":"","reasoning":"The user wants the weather; "}), Value::Null),
                chunk(id, json!({"reasoning":"call get_weather."}), Value::Null),
                chunk(id, json!({"reasoning":null,"tool_calls":[call]}), Value::Null),
                chunk(id, json!({}), json!("tool_calls")),
            ]
        };
        let want = json!({"role":"assistant","content":"","reasoning":"The user wants the weather; call get_weather.","tool_calls":[
            {"id":"chatcmpl-tool-1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]});
        for format in [CallFormat::OpenAi, CallFormat::Ollama] {
            // (OpenAI's: no text beside calls is `null`.)
            let mut want = want.clone();
            if format == CallFormat::OpenAi {
                want["content"] = Value::Null;
            }
            assert_eq!(run(format, &turn("c1"), None).1, want, "{format:?}");
            assert_eq!(run_text(format, &turn("c1"), 7), want, "{format:?}");
            let completion = json!({"id":"c2","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
                "reasoning":"The user wants the weather.","tool_calls":[call]}}]});
            assert_eq!(run(format, &[completion], None).1["reasoning"], "The user wants the weather.", "{format:?}");
            // The next completion, pushed without `finish`, begins with reasoning alone.
            let mut acc = Accumulator::new(format);
            for e in turn("c1") {
                acc.push(&e, None).unwrap();
            }
            acc.push(&chunk("c3", json!({"reasoning":"Now "}), Value::Null), None).unwrap();
            acc.push(&chunk("c3", json!({"reasoning":"answer.","content":"Sunny."}), json!("stop")), None).unwrap();
            assert_eq!(acc.message().unwrap(), json!({"role":"assistant","content":"Sunny.","reasoning":"Now answer."}), "{format:?}");
        }
    }

    #[test]
    fn reasoning_details_are_put_together_by_index_and_type() {
        // Each piece was matched to its detail by a search through all the details before it:
        // 40,000 details (1 MB of stream) took minutes in one push (a second here, 20,000 twice;
        // not timed, which a busy machine would make flaky: the map is what makes it fast).
        let n = 20_000;
        let details: Vec<Value> = (0..n).map(|i| json!({"type":"t","index":i})).collect();
        let more: Vec<Value> = (0..n).map(|i| json!({"type":"t","index":i,"text":"x"})).collect();
        let chunk = |d: Vec<Value>| json!({"choices":[{"index":0,"delta":{"reasoning_details":d}}]});
        let (_, message) = run(CallFormat::OpenAi, &[chunk(details), chunk(more)], None);
        let have = message["reasoning_details"].as_array().unwrap();
        assert_eq!(have.len(), n as usize);
        assert_eq!(have[n as usize - 1], json!({"type":"t","index":n - 1,"text":"x"}));
        // Same index, other type: its own detail; no index: after the others, never merged.
        let events = [
            chunk(vec![json!({"type":"a","index":0,"text":"1"}), json!({"type":"b","index":0,"text":"2"}), json!({"type":"a","text":"3"})]),
            chunk(vec![json!({"type":"b","index":0,"text":"4"}), json!({"type":"a","text":"5"}), json!({"type":"a","index":0,"text":"6","signature":null})]),
        ];
        let (_, message) = run(CallFormat::OpenAi, &events, None);
        assert_eq!(message["reasoning_details"], json!([
            {"type":"a","index":0,"text":"16"}, {"type":"b","index":0,"text":"24"}, {"type":"a","text":"3"}, {"type":"a","text":"5"}
        ]));
    }

    #[test]
    fn an_empty_chat_text_is_empty_text_not_null() {
        // A turn cut by max_tokens before any text: the stream gave `content: ""`, so the turn
        // has it (OpenAI refuses an assistant message of `content: null` without calls).
        let chunk = |delta: Value, finish: Value| json!({"choices":[{"index":0,"delta":delta,"finish_reason":finish}]});
        let events = [chunk(json!({"role":"assistant","content":"","refusal":null}), Value::Null), chunk(json!({}), json!("length"))];
        assert_eq!(run(CallFormat::OpenAi, &events, None).1, json!({"role":"assistant","content":""}));
        assert_eq!(run_text(CallFormat::OpenAi, &events, 3), json!({"role":"assistant","content":""}));
        // Text after it is put after it; `content: null` before calls stays `null`, as an empty
        // refusal is no refusal.
        let (_, message) = run(CallFormat::OpenAi, &[events[0].clone(), chunk(json!({"content":"Hi"}), Value::Null)], None);
        assert_eq!(message, json!({"role":"assistant","content":"Hi"}));
        let call = json!({"index":0,"id":"call_1","type":"function","function":{"name":"t","arguments":"{}"}});
        let (_, message) = run(CallFormat::OpenAi, &[chunk(json!({"role":"assistant","content":null,"refusal":"","tool_calls":[call]}), json!("tool_calls"))], None);
        assert_eq!(message, json!({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"t","arguments":"{}"}}]}));
    }

    #[test]
    fn a_chat_turn_keeps_the_other_keys_a_call_carries() {
        // Gemini's OpenAI-compatible endpoint carries a call's thought signature in
        // `extra_content`, which the next request must send back.
        let extra = json!({"google":{"thought_signature":"c2lnLTE="}});
        let (_, message) = run(CallFormat::OpenAi, &[
            json!({"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"extra_content":extra,"function":{"arguments":"{}","name":"t"},"id":"call_1","type":"function"}]}}]}),
            json!({"choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":"tool_calls"}]}),
        ], None);
        assert_eq!(message["tool_calls"], json!([{"id":"call_1","type":"function","function":{"name":"t","arguments":"{}"},"extra_content":extra}]));
    }

    #[test]
    fn ollama_turn_has_thinking_and_calls_with_object_arguments() {
        let line = |message: Value, done: bool| json!({"model":"qwen3","created_at":"2025-06-01T00:00:00Z","message":message,"done":done});
        let events = [
            line(json!({"role":"assistant","content":"","thinking":"Both "}), false),
            line(json!({"role":"assistant","content":"","thinking":"cities."}), false),
            line(json!({"role":"assistant","content":"Checking."}), false),
            line(json!({"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris"}}}]}), false),
            line(json!({"role":"assistant","content":"","tool_calls":[{"id":"call_x","function":{"name":"get_weather","arguments":{"city":"London"}}}]}), false),
            line(json!({"role":"assistant","content":""}), true),
        ];
        let (calls, message) = run(CallFormat::Ollama, &events, None);
        assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("call_0"), Some("call_x")]);
        // The turn numbers calls without an id as their `ToolCall`s are, whatever came before
        // (a Chat call completed by the next at its `index`, as Ollama's `/v1` sends them; after
        // a `finish_reason`, a chunk with a message is the next turn's).
        let chat = |id: &str| json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":id,"function":{"name":"t","arguments":"{}"}}]}}]});
        let (mixed, turn) = run(CallFormat::Ollama, &[chat("call_c"), chat("call_d"), events[3].clone()], None);
        assert_eq!(mixed.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("call_c"), Some("call_1"), Some("call_d")]);
        let mut ids: Vec<&str> = turn["tool_calls"].as_array().unwrap().iter().filter_map(|c| c["id"].as_str()).collect();
        ids.sort_unstable();
        assert_eq!(ids, ["call_1", "call_c", "call_d"]);
        assert_eq!(message, json!({"role":"assistant","content":"Checking.","thinking":"Both cities.","tool_calls":[
            {"id":"call_0","type":"function","function":{"name":"get_weather","arguments":{"city":"Paris"}}},
            {"id":"call_x","type":"function","function":{"name":"get_weather","arguments":{"city":"London"}}}
        ]}));
    }

    #[test]
    fn responses_turn_is_the_output_items_as_done() {
        let reasoning = json!({"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Both cities."}],"encrypted_content":"gAAAAABo-enc"});
        let text = json!({"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Checking both.","annotations":[]}]});
        let call = |i: u64, city: &str| json!({"type":"function_call","id":format!("fc_{i}"),"call_id":format!("call_{i}"),"name":"get_weather","arguments":format!("{{\"city\":\"{city}\"}}"),"status":"completed"});
        let added = |oi: u64, item: Value| json!({"type":"response.output_item.added","output_index":oi,"item":item});
        let done = |oi: u64, item: &Value| json!({"type":"response.output_item.done","output_index":oi,"item":item});
        let events = [
            json!({"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}),
            added(0, json!({"type":"reasoning","id":"rs_1","summary":[]})),
            done(0, &reasoning),
            added(1, json!({"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]})),
            json!({"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"Checking both."}),
            done(1, &text),
            added(2, json!({"type":"function_call","id":"fc_2","call_id":"call_2","name":"get_weather","arguments":""})),
            added(3, json!({"type":"function_call","id":"fc_3","call_id":"call_3","name":"get_weather","arguments":""})),
            json!({"type":"response.function_call_arguments.delta","item_id":"fc_2","output_index":2,"delta":"{\"city\":\"Paris\"}"}),
            json!({"type":"response.function_call_arguments.delta","item_id":"fc_3","output_index":3,"delta":"{\"city\":\"London\"}"}),
            done(3, &call(3, "London")),
            done(2, &call(2, "Paris")),
            json!({"type":"response.completed","response":{"id":"resp_1","status":"completed"}}),
        ];
        let expected = json!([reasoning, text, call(2, "Paris"), call(3, "London")]);
        let (calls, message) = run(CallFormat::OpenAiResponses, &events, None);
        assert_eq!(calls.len(), 2);
        assert_eq!(message, expected);
        assert_eq!(run_text(CallFormat::OpenAiResponses, &events, 9), expected);
    }

    #[test]
    fn a_responses_call_cut_short_is_in_the_turn_as_it_streamed() {
        // The stream ends inside a call's arguments: finish gives the call, so the turn has it
        // (a `function_call_output` without its call is refused), with the arguments so far.
        let reasoning = json!({"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA"});
        let added = json!({"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"","status":"in_progress"});
        let delta = |d: &str| json!({"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":d});
        let events = [
            json!({"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]}}),
            json!({"type":"response.output_item.done","output_index":0,"item":reasoning}),
            json!({"type":"response.output_item.added","output_index":1,"item":added}),
            delta("{\"city\":"),
            delta("\"Par"),
        ];
        let (calls, message) = run(CallFormat::OpenAiResponses, &events, None);
        assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("call_1")]);
        let mut cut = added.clone();
        cut["arguments"] = json!("{\"city\":\"Par");
        assert_eq!(message, json!([reasoning, cut]));
        // `.arguments.done` gives them whole; `output_item.done` puts the item in its place, and
        // nothing changes it after.
        let whole = json!({"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"});
        let mut more = events.to_vec();
        more.push(json!({"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":1,"arguments":"{\"city\":\"Paris\"}"}));
        let (_, message) = run(CallFormat::OpenAiResponses, &more, None);
        assert_eq!(message[1]["arguments"], "{\"city\":\"Paris\"}");
        more.push(json!({"type":"response.output_item.done","output_index":1,"item":whole}));
        more.push(delta("x"));
        let (_, message) = run(CallFormat::OpenAiResponses, &more, None);
        assert_eq!(message, json!([reasoning, whole]));
    }

    #[test]
    fn gemini_turn_puts_streamed_text_together_and_keeps_signatures_on_their_parts() {
        let chunk = |parts: Value| json!({"candidates":[{"content":{"role":"model","parts":parts},"index":0}],"modelVersion":"gemini-3-pro"});
        let events = [
            chunk(json!([{"text":"**Planning**\n","thought":true}])),
            chunk(json!([{"text":"Both cities.","thought":true}])),
            chunk(json!([{"text":"Checking "}])),
            chunk(json!([{"text":"both."}])),
            // Gemini 3, parallel calls: the signature on the first call's part only.
            chunk(json!([
                {"functionCall":{"name":"mcp__gh__create_issue","args":{"title":"Paris"}},"thoughtSignature":"c2lnLTE="},
                {"functionCall":{"name":"get_weather","args":{"city":"London"}}}
            ])),
            json!({"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}]}),
        ];
        let expected = json!({"role":"model","parts":[
            {"text":"**Planning**\nBoth cities.","thought":true},
            {"text":"Checking both."},
            {"functionCall":{"name":"mcp__gh__create_issue","args":{"title":"Paris"}},"thoughtSignature":"c2lnLTE="},
            {"functionCall":{"name":"get_weather","args":{"city":"London"}}}
        ]});
        let (calls, message) = run(CallFormat::Gemini, &events, Some(&gh_map()));
        assert_eq!(calls[0].thought_signature.as_deref(), Some("c2lnLTE="));
        assert_eq!(message, expected);
        assert_eq!(run_text(CallFormat::Gemini, &events, 11), expected);
        // Text only: the signature comes with the last piece or alone after it (empty text), and
        // goes on the text it signs; text after a signature is a part of its own.
        let (_, message) = run(CallFormat::Gemini, &[
            chunk(json!([{"text":"Hello"}])),
            chunk(json!([{"text":" world"}])),
            chunk(json!([{"text":"","thoughtSignature":"c2lnLXQ="}])),
            chunk(json!([{"text":"More."}])),
        ], None);
        assert_eq!(message["parts"], json!([{"text":"Hello world","thoughtSignature":"c2lnLXQ="},{"text":"More."}]));
        // Arguments streamed over several parts (Vertex) are one part, as they are one call.
        let mut acc = Accumulator::new(CallFormat::Gemini);
        for c in crate::calls::tests::vertex_chunks(true) {
            acc.push(&c, None).unwrap();
        }
        assert_eq!(acc.message().unwrap()["parts"], json!([
            {"text":"Let me check."},
            {"functionCall":{"name":"get_weather","args":{"location":"Boston, MA","days":3,"opts":{"units":["C"],"alerts":true,"note":null}}}}
        ]));
        // Other candidates, and other kinds of parts, as sent.
        let (_, message) = run(CallFormat::Gemini, &[json!({"candidates":[
            {"index":0,"content":{"parts":[{"executableCode":{"language":"PYTHON","code":"print(1)"}},{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1\n"}}]}},
            {"index":1,"content":{"parts":[{"text":"another candidate"}]}}
        ]})], None);
        assert_eq!(message["parts"], json!([{"executableCode":{"language":"PYTHON","code":"print(1)"}},{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1\n"}}]));
    }

    #[test]
    fn a_gemini_call_whose_args_are_not_an_object_is_in_the_turn_with_empty_args() {
        for args in [json!([1, 2]), json!("x"), json!(5), json!(null)] {
            let event = json!({"candidates":[{"content":{"role":"model","parts":[
                {"text":"Searching."},
                {"functionCall":{"name":"search","args":args}},
                {"functionCall":{"name":"search","args":{"q":"a"}}}
            ]},"finishReason":"STOP"}]});
            let (calls, message) = run(CallFormat::Gemini, &[event], None);
            assert_eq!(calls.len(), 2, "{args}");
            assert!(args.is_null() || calls[0].error.is_some(), "{args}");
            assert_eq!(message["parts"], json!([
                {"text":"Searching."},
                {"functionCall":{"name":"search","args":{}}},
                {"functionCall":{"name":"search","args":{"q":"a"}}}
            ]), "{args}");
        }
    }

    #[test]
    fn bedrock_turn_keeps_reasoning_text_its_signature_and_redacted_content() {
        let delta = |i: u64, d: Value| json!({"contentBlockDelta":{"contentBlockIndex":i,"delta":d}});
        let stop = |i: u64| json!({"contentBlockStop":{"contentBlockIndex":i}});
        let tool = |i: u64, id: &str| json!({"contentBlockStart":{"contentBlockIndex":i,"start":{"toolUse":{"toolUseId":id,"name":"get_weather"}}}});
        let events = [
            json!({"messageStart":{"role":"assistant"}}),
            delta(0, json!({"reasoningContent":{"text":"Both "}})),
            delta(0, json!({"reasoningContent":{"text":"cities."}})),
            delta(0, json!({"reasoningContent":{"signature":"c2lnLWI="}})),
            stop(0),
            delta(1, json!({"reasoningContent":{"redactedContent":"cmVkYWN0ZWQ="}})),
            stop(1),
            delta(2, json!({"text":"Checking "})),
            delta(2, json!({"text":"both."})),
            stop(2),
            tool(3, "tooluse_1"),
            delta(3, json!({"toolUse":{"input":"{\"city\":"}})),
            delta(3, json!({"toolUse":{"input":"\"Paris\"}"}})),
            stop(3),
            tool(4, "tooluse_2"),
            delta(4, json!({"toolUse":{"input":"{\"city\":\"London\"}"}})),
            stop(4),
            json!({"messageStop":{"stopReason":"tool_use"}}),
            json!({"metadata":{"usage":{"inputTokens":10,"outputTokens":20,"totalTokens":30},"metrics":{"latencyMs":100}}}),
        ];
        let expected = json!({"role":"assistant","content":[
            {"reasoningContent":{"reasoningText":{"text":"Both cities.","signature":"c2lnLWI="}}},
            {"reasoningContent":{"redactedContent":"cmVkYWN0ZWQ="}},
            {"text":"Checking both."},
            {"toolUse":{"toolUseId":"tooluse_1","name":"get_weather","input":{"city":"Paris"}}},
            {"toolUse":{"toolUseId":"tooluse_2","name":"get_weather","input":{"city":"London"}}}
        ]});
        let (calls, message) = run(CallFormat::Bedrock, &events, None);
        assert_eq!(calls.len(), 2);
        assert_eq!(message, expected);
        // The AWS SDK's bytes through JSON.stringify (a Uint8Array is an object of indexes).
        let mut sdk = events.to_vec();
        sdk[5] = delta(1, json!({"reasoningContent":{"redactedContent":{"0":114,"1":101,"2":100,"3":97,"4":99,"5":116,"6":101,"7":100}}}));
        assert_eq!(run(CallFormat::Bedrock, &sdk, None).1, expected);
    }

    /// A ConverseStream cut inside a reasoning block, before its signature: the block, which
    /// Claude on Bedrock refuses sent back without its signature, is left out of the turn, as an
    /// Anthropic thinking block is; it was kept without one. The blocks before it stay; one
    /// stopped without a signature (a server that signs none) and one cut after its signature
    /// stay as they came.
    #[test]
    fn bedrock_turn_leaves_out_a_reasoning_block_cut_before_its_signature() {
        let delta = |i: u64, d: Value| json!({"contentBlockDelta":{"contentBlockIndex":i,"delta":d}});
        let stop = |i: u64| json!({"contentBlockStop":{"contentBlockIndex":i}});
        let begin = json!({"messageStart":{"role":"assistant"}});
        // Cut in the turn's first block: nothing to send back.
        let events = [begin.clone(), delta(0, json!({"reasoningContent":{"text":"Let me"}}))];
        assert_eq!(run(CallFormat::Bedrock, &events, None).1, json!({"role":"assistant","content":[]}));
        for step in [1, 7, 64] {
            assert_eq!(run_text(CallFormat::Bedrock, &events, step), json!({"role":"assistant","content":[]}), "step {step}");
        }
        // Cut in a block after a signed one and a call (interleaved thinking): the turn up to it.
        let events = [
            begin.clone(),
            delta(0, json!({"reasoningContent":{"text":"Both."}})),
            delta(0, json!({"reasoningContent":{"signature":"c2ln"}})),
            stop(0),
            json!({"contentBlockStart":{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"tooluse_1","name":"get_weather"}}}}),
            delta(1, json!({"toolUse":{"input":"{\"city\":\"Paris\"}"}})),
            stop(1),
            delta(2, json!({"reasoningContent":{"text":"Now"}})),
        ];
        let (calls, message) = run(CallFormat::Bedrock, &events, None);
        assert_eq!(calls.len(), 1);
        assert_eq!(message, json!({"role":"assistant","content":[
            {"reasoningContent":{"reasoningText":{"text":"Both.","signature":"c2ln"}}},
            {"toolUse":{"toolUseId":"tooluse_1","name":"get_weather","input":{"city":"Paris"}}}
        ]}));
        // Cut after its signature, before its stop: whole, kept.
        let events = [begin.clone(), delta(0, json!({"reasoningContent":{"text":"Both."}})), delta(0, json!({"reasoningContent":{"signature":"c2ln"}}))];
        assert_eq!(run(CallFormat::Bedrock, &events, None).1["content"], json!([{"reasoningContent":{"reasoningText":{"text":"Both.","signature":"c2ln"}}}]));
        // Stopped without a signature (a compatible server that signs none): as it came.
        let events = [begin.clone(), delta(0, json!({"reasoningContent":{"text":"Hm."}})), stop(0)];
        assert_eq!(run(CallFormat::Bedrock, &events, None).1["content"], json!([{"reasoningContent":{"reasoningText":{"text":"Hm."}}}]));
        // Redacted content cut before its stop (it has no signature): kept.
        let events = [begin, delta(0, json!({"reasoningContent":{"redactedContent":"cmVk"}}))];
        assert_eq!(run(CallFormat::Bedrock, &events, None).1["content"], json!([{"reasoningContent":{"redactedContent":"cmVk"}}]));
    }

    #[test]
    fn a_bedrock_turn_keeps_an_image_block() {
        // ConverseStream's `ImageBlockStart` and `ImageBlockDelta` (F3 of s27a): the image in its
        // place, its bytes joined (base64, or the AWS SDK's Uint8Array through JSON), as Converse's
        // `ImageBlock` is sent back.
        let events = [
            json!({"messageStart":{"role":"assistant"}}),
            json!({"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"Here is the chart."}}}),
            json!({"contentBlockStop":{"contentBlockIndex":0}}),
            json!({"contentBlockStart":{"contentBlockIndex":1,"start":{"image":{"format":"png"}}}}),
            json!({"contentBlockDelta":{"contentBlockIndex":1,"delta":{"image":{"source":{"bytes":"iVBO"}}}}}),
            json!({"contentBlockDelta":{"contentBlockIndex":1,"delta":{"image":{"source":{"bytes":{"0":82,"1":119}}}}}}),
            json!({"contentBlockStop":{"contentBlockIndex":1}}),
            json!({"contentBlockStart":{"contentBlockIndex":2,"start":{"image":{"format":"jpeg"}}}}),
            json!({"contentBlockDelta":{"contentBlockIndex":2,"delta":{"image":{"source":{"s3Location":{"uri":"s3://b/k"}}}}}}),
            json!({"contentBlockStop":{"contentBlockIndex":2}}),
            json!({"contentBlockStart":{"contentBlockIndex":3,"start":{"toolUse":{"toolUseId":"tu_1","name":"save_chart"}}}}),
            json!({"contentBlockDelta":{"contentBlockIndex":3,"delta":{"toolUse":{"input":"{\"name\":\"c\"}"}}}}),
            json!({"contentBlockStop":{"contentBlockIndex":3}}),
            json!({"messageStop":{"stopReason":"tool_use"}}),
        ];
        let (calls, message) = run(CallFormat::Bedrock, &events, None);
        assert_eq!(calls.len(), 1);
        let bytes = crate::protocol::headers::base64(&[crate::results::decode_base64("iVBO"), vec![82, 119]].concat());
        assert_eq!(
            message,
            json!({"role":"assistant","content":[
                {"text":"Here is the chart."},
                {"image":{"format":"png","source":{"bytes":bytes}}},
                {"image":{"format":"jpeg","source":{"s3Location":{"uri":"s3://b/k"}}}},
                {"toolUse":{"toolUseId":"tu_1","name":"save_chart","input":{"name":"c"}}}
            ]})
        );
    }

    #[test]
    fn a_bedrock_turn_keeps_a_system_tools_use_its_result_and_the_citations() {
        // Nova's web grounding in ConverseStream's events (the AWS SDK's `ContentBlockStart.
        // toolResult`, `ContentBlockDelta.toolResult` and `.citation`; F1, F2 of s24a): the turn
        // is what Bedrock sent, the system tool's use no call.
        let delta = |i: u64, d: Value| json!({"contentBlockDelta":{"contentBlockIndex":i,"delta":d}});
        let start = |i: u64, s: Value| json!({"contentBlockStart":{"contentBlockIndex":i,"start":s}});
        let stop = |i: u64| json!({"contentBlockStop":{"contentBlockIndex":i}});
        let citation = json!({"title":"W","source":"https://w","sourceContent":[{"text":"sunny"}],"location":{"web":{"url":"https://w","domain":"w"}}});
        let events = [
            json!({"messageStart":{"role":"assistant"}}),
            start(0, json!({"toolUse":{"toolUseId":"tooluse_srv1","name":"nova_grounding","type":"server_tool_use"}})),
            delta(0, json!({"toolUse":{"input":"{\"query\":"}})),
            delta(0, json!({"toolUse":{"input":"\"weather\"}"}})),
            stop(0),
            start(1, json!({"toolResult":{"toolUseId":"tooluse_srv1","type":"nova_grounding","status":"success"}})),
            delta(1, json!({"toolResult":[{"json":{"results":[{"url":"https://w"}]}}]})),
            delta(1, json!({"toolResult":[{"text":"more"}]})),
            stop(1),
            delta(2, json!({"text":"It is "})),
            delta(2, json!({"citation":citation})),
            delta(2, json!({"text":"sunny."})),
            stop(2),
            delta(3, json!({"text":"Done."})),
            stop(3),
            json!({"messageStop":{"stopReason":"end_turn"}}),
        ];
        let (calls, message) = run(CallFormat::Bedrock, &events, None);
        assert!(calls.is_empty(), "{calls:?}");
        assert_eq!(message, json!({"role":"assistant","content":[
            {"toolUse":{"toolUseId":"tooluse_srv1","name":"nova_grounding","type":"server_tool_use","input":{"query":"weather"}}},
            {"toolResult":{"toolUseId":"tooluse_srv1","type":"nova_grounding","status":"success","content":[{"json":{"results":[{"url":"https://w"}]}},{"text":"more"}]}},
            {"citationsContent":{"content":[{"text":"It is sunny."}],"citations":[citation]}},
            {"text":"Done."}
        ]}));
        // A system tool's use is a block as any other: one started at its index after it stopped
        // goes after it; so does a text block stopped (it was replaced).
        let (_, message) = run(CallFormat::Bedrock, &[events[1].clone(), stop(0), start(0, json!({"toolResult":{"toolUseId":"tooluse_srv1"}})), stop(0)], None);
        assert_eq!(message["content"].as_array().map(Vec::len), Some(2));
        let (_, message) = run(CallFormat::Bedrock, &[delta(0, json!({"text":"Hi."})), stop(0), start(0, json!({"toolUse":{"toolUseId":"t1","name":"t"}}))], None);
        assert_eq!(message["content"], json!([{"text":"Hi."},{"toolUse":{"toolUseId":"t1","name":"t","input":{}}}]));
    }

    #[test]
    fn a_bedrock_turn_lists_a_call_under_a_name_bedrock_takes_in_a_history() {
        // Bedrock refuses a history whose toolUse name is not `^[a-zA-Z0-9_-]{1,64}$` (F4, s24a):
        // the turn lists such a call under the name Chat's turn gives it, with its id; the call
        // is read as ever (`functions.read_file` resolves, the others are unknown names).
        let map = NameMap::build(&[(None, "read_file")], &NamingOptions::default(), NameRule::Strict).0;
        let long = "x".repeat(80);
        for (sent, listed, tool) in [
            ("functions.read_file", "read_file", Some("read_file")),
            ("$READFILE", "_READFILE", None),
            ("read_file<|channel|>commentary", "read_file__channel__commentary", None),
            (long.as_str(), &long[..64], None),
            ("", "unnamed_tool", None),
            ("read_file", "read_file", Some("read_file")),
        ] {
            let events = [
                json!({"contentBlockStart":{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"tooluse_1","name":sent}}}}),
                json!({"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"p\":\"/a\"}"}}}}),
                json!({"contentBlockStop":{"contentBlockIndex":0}}),
                json!({"messageStop":{"stopReason":"tool_use"}}),
            ];
            let (calls, message) = run(CallFormat::Bedrock, &events, Some(&map));
            assert_eq!(calls[0].error.is_none().then_some(calls[0].tool.as_str()), tool, "{sent}");
            assert_eq!(calls[0].provider_name, sent);
            assert_eq!(message["content"], json!([{"toolUse":{"toolUseId":"tooluse_1","name":listed,"input":{"p":"/a"}}}]), "{sent}");
        }
    }

    #[test]
    fn an_anthropic_compaction_block_takes_its_compaction_delta() {
        // Context management's compaction (beta): the block starts empty and its delta gives its
        // value whole, which is sent back verbatim (F3, s24a); the SDK's beta stream sets it so.
        let events = [
            json!({"type":"content_block_start","index":0,"content_block":{"type":"compaction","content":null,"encrypted_content":null}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":"Summary: X.","encrypted_content":"ENC=="}}),
            json!({"type":"content_block_stop","index":0}),
            json!({"type":"content_block_start","index":1,"content_block":{"type":"compaction","content":null}}),
            json!({"type":"content_block_delta","index":1,"delta":{"type":"compaction_delta","content":null}}),
            // Not a compaction block: a compaction delta does not change it.
            json!({"type":"content_block_start","index":2,"content_block":{"type":"text","text":"Hi."}}),
            json!({"type":"content_block_delta","index":2,"delta":{"type":"compaction_delta","content":"x"}}),
            // A delta of a type not known: passed over, as the SDK passes over it.
            json!({"type":"content_block_delta","index":2,"delta":{"type":"future_delta","text":"?"}}),
        ];
        let (_, message) = run(CallFormat::Anthropic, &events, None);
        assert_eq!(message["content"], json!([
            {"type":"compaction","content":"Summary: X.","encrypted_content":"ENC=="},
            {"type":"compaction","content":null},
            {"type":"text","text":"Hi."}
        ]));
        assert_eq!(run_text(CallFormat::Anthropic, &events, 5)["content"], message["content"]);
    }

    #[test]
    fn blank_text_blocks_are_left_out_of_anthropic_and_bedrock_turns() {
        // A text block started and never written to (the model went straight to a call), or
        // written only white space: both providers refuse it sent back. One with citations stays.
        let start = |i: u64, block: Value| json!({"type":"content_block_start","index":i,"content_block":block});
        let text = |i: u64, t: &str| json!({"type":"content_block_delta","index":i,"delta":{"type":"text_delta","text":t}});
        let cited = json!({"type":"char_location","cited_text":"x","document_index":0,"start_char_index":0,"end_char_index":1});
        let (_, message) = run(CallFormat::Anthropic, &[
            start(0, json!({"type":"text","text":""})),
            json!({"type":"content_block_stop","index":0}),
            start(1, json!({"type":"text","text":"","citations":null})),
            text(1, "\n\n"),
            start(2, json!({"type":"text","text":"","citations":[]})),
            json!({"type":"content_block_delta","index":2,"delta":{"type":"citations_delta","citation":cited}}),
            start(3, json!({"type":"tool_use","id":"toolu_1","name":"t","input":{}})),
            json!({"type":"content_block_stop","index":3}),
        ], None);
        assert_eq!(message["content"], json!([
            {"type":"text","text":"","citations":[cited]},
            {"type":"tool_use","id":"toolu_1","name":"t","input":{}}
        ]));
        let delta = |i: u64, d: Value| json!({"contentBlockDelta":{"contentBlockIndex":i,"delta":d}});
        let (_, message) = run(CallFormat::Bedrock, &[delta(0, json!({"text":""})), delta(1, json!({"text":" \n"})), delta(2, json!({"text":"Hi."}))], None);
        assert_eq!(message["content"], json!([{"text":"Hi."}]));
        // A turn with nothing in it is empty, as the providers' own forms give it (not to be sent:
        // Anthropic takes an empty message only last, Gemini and Bedrock none).
        let (_, message) = run(CallFormat::Anthropic, &[start(0, json!({"type":"text","text":""}))], None);
        assert_eq!(message, json!({"role":"assistant","content":[]}));
        assert_eq!(Accumulator::new(CallFormat::Bedrock).message().unwrap(), json!({"role":"assistant","content":[]}));
        assert_eq!(Accumulator::new(CallFormat::Gemini).message().unwrap(), json!({"role":"model","parts":[]}));
        assert_eq!(Accumulator::new(CallFormat::OpenAiResponses).message().unwrap(), json!([]));
    }

    #[test]
    fn a_turn_is_bounded_in_parts_each_charged_what_it_costs() {
        // Gemini's calls come whole: none is open, and each is a part of the turn.
        let parts: Vec<Value> = (0..=MAX_TURN_PARTS).map(|i| json!({"functionCall":{"name":"t","args":{"i":i}}})).collect();
        let mut acc = Accumulator::new(CallFormat::Gemini);
        let e = acc.push(&json!({"candidates":[{"content":{"role":"model","parts":parts}}]}), None).unwrap_err();
        assert_eq!(e.code, ErrorCode::LimitExceeded);
        assert!(e.message.starts_with("the model's turn passed"), "{e}");
        assert!(acc.turn.parts.is_empty(), "the memory is given back");
        assert_eq!(acc.finish(None).unwrap().len(), MAX_TURN_PARTS + 1, "the calls are all read");
        assert_eq!(acc.message().unwrap_err().code, ErrorCode::LimitExceeded);
        // A part costs more than its JSON: a call of an index alone as much as its slot and maps.
        let mut acc = Accumulator::new(CallFormat::OpenAi);
        acc.push(&json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0}]}}]}), None).unwrap();
        assert!(acc.turn.held > PART_BYTES, "{}", acc.turn.held);
    }

    #[test]
    fn a_turn_past_its_bound_is_dropped_and_said_to_be_and_calls_go_on() {
        let mut acc = Accumulator::new(CallFormat::Anthropic);
        acc.push(&json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}), None).unwrap();
        let big = json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x".repeat(1 << 20)}});
        let mut error = None;
        for _ in 0..40 {
            if let Err(e) = acc.push(&big, None) {
                error = Some(e);
                break;
            }
        }
        assert_eq!(error.map(|e| e.code), Some(ErrorCode::LimitExceeded));
        assert!(acc.turn.parts.is_empty() && acc.turn.held == 0, "the memory is given back");
        assert_eq!(acc.message().unwrap_err().code, ErrorCode::LimitExceeded);
        // Said once; the calls are still read.
        acc.push(&big, None).unwrap();
        acc.push(&json!({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"t","input":{}}}), None).unwrap();
        assert!(acc.push(&json!({"type":"content_block_stop","index":1}), None).unwrap().is_empty());
        assert_eq!(acc.push(&json!({"type":"message_stop"}), None).unwrap().len(), 1);
        assert_eq!(acc.message().unwrap_err().code, ErrorCode::LimitExceeded);
    }
}
