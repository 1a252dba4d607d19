//! The types of the fields a provider's response, or stream event, is read by: an array where
//! the calls are listed (`choices`, `tool_calls`, `output`, `content`, `candidates`, `parts`), an
//! object that holds them (`message`, `function`, `functionCall`, `toolUse`...), the text of a
//! call's id and name. The readers pass over what they do not find, so a field of the wrong type
//! (`choices: {}`, `content: "..."` where blocks are listed, `output: 3`) would read as a response
//! without calls; these checks make it `INVALID_INPUT` naming where it is, before anything is
//! read. A field absent or `null` is no error: providers leave out what they have not.
//!
//! The checks follow the readers ([`super::parse_tool_calls`], [`super::Accumulator::push`]):
//! what a reader takes as one of several shapes is checked as that shape only.

use serde_json::Value;

use super::{is_function_call, CallFormat};
use crate::error::{Error, ErrorCode};

type Checked = std::result::Result<(), Error>;

/// What a field must be.
#[derive(Clone, Copy)]
enum Kind {
    Object,
    Array,
    Text,
    /// A non-negative integer (an index).
    Index,
    Bool,
}

impl Kind {
    fn fits(self, v: &Value) -> bool {
        match self {
            Self::Object => v.is_object(),
            Self::Array => v.is_array(),
            Self::Text => v.is_string(),
            Self::Index => v.is_u64(),
            Self::Bool => v.is_boolean(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Object => "an object",
            Self::Array => "an array",
            Self::Text => "a string",
            Self::Index => "a non-negative integer",
            Self::Bool => "a boolean",
        }
    }
}

/// Where a value is in what was given, made on the stack as the checks go down (nothing is
/// allocated unless a check fails).
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    /// As a JSON pointer from the root (the keys here have no `~` or `/` to escape).
    fn pointer(&self, out: &mut String) {
        match self {
            Self::Root => {}
            Self::Key(up, k) => {
                up.pointer(out);
                out.push('/');
                out.push_str(k);
            }
            Self::Index(up, i) => {
                up.pointer(out);
                out.push('/');
                out.push_str(&i.to_string());
            }
        }
    }

    /// As messages show it: `response.choices[0].message`.
    fn shown(&self, root: &str, out: &mut String) {
        match self {
            Self::Root => out.push_str(root),
            Self::Key(up, k) => {
                up.shown(root, out);
                out.push('.');
                out.push_str(k);
            }
            Self::Index(up, i) => {
                up.shown(root, out);
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
}

/// The checks, naming the root as `root` (`response`, `event`).
struct Check {
    root: &'static str,
}

impl Check {
    fn wrong(&self, at: &Path<'_>, kind: Kind, got: &Value) -> Error {
        let (mut shown, mut pointer) = (String::new(), String::new());
        at.shown(self.root, &mut shown);
        at.pointer(&mut pointer);
        let what = crate::model::json_type(got);
        Error::new(ErrorCode::InvalidInput, format!("{shown} must be {}, got {what}", kind.name())).with_path(pointer)
    }

    /// The field `key` of `v`: `None` when absent or `null`, an error when of another kind.
    fn field<'v>(&self, v: &'v Value, key: &'static str, kind: Kind, at: &Path<'_>) -> Result<Option<&'v Value>, Error> {
        match v.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(x) if kind.fits(x) => Ok(Some(x)),
            Some(x) => Err(self.wrong(&Path::Key(at, key), kind, x)),
        }
    }

    /// Each of the objects of the array `key` of `v`, checked by `each` (an element that is not an
    /// object is an error).
    fn objects(&self, v: &Value, key: &'static str, at: &Path<'_>, mut each: impl FnMut(&Self, &Value, &Path<'_>) -> Checked) -> Result<bool, Error> {
        let Some(list) = self.field(v, key, Kind::Array, at)?.and_then(Value::as_array) else { return Ok(false) };
        let at = Path::Key(at, key);
        for (i, x) in list.iter().enumerate() {
            let at = Path::Index(&at, i);
            if !x.is_object() {
                return Err(self.wrong(&at, Kind::Object, x));
            }
            each(self, x, &at)?;
        }
        Ok(true)
    }

    /// The object `key` of `v`, checked by `then`, when there is one.
    fn object(&self, v: &Value, key: &'static str, at: &Path<'_>, then: impl FnOnce(&Self, &Value, &Path<'_>) -> Checked) -> Result<bool, Error> {
        match self.field(v, key, Kind::Object, at)? {
            Some(o) => then(self, o, &Path::Key(at, key)).map(|()| true),
            None => Ok(false),
        }
    }

    fn texts(&self, v: &Value, keys: &[&'static str], at: &Path<'_>) -> Checked {
        for k in keys {
            self.field(v, k, Kind::Text, at)?;
        }
        Ok(())
    }

    // OpenAI Chat and Ollama: a completion or chunk (`choices`), a choice, Ollama's response or
    // chunk (`message`), a message or delta (`tool_calls`), a tool call (`function`).

    fn chat(&self, v: &Value, at: &Path<'_>) -> Checked {
        if self.objects(v, "choices", at, Self::chat_choice)? {
            return Ok(());
        }
        if self.object(v, "message", at, Self::chat_message)? {
            return Ok(());
        }
        if v.get("function").is_some() {
            return self.chat_call(v, at);
        }
        self.chat_message(v, at)
    }

    fn chat_choice(&self, c: &Value, at: &Path<'_>) -> Checked {
        self.field(c, "index", Kind::Index, at)?;
        self.object(c, "message", at, Self::chat_message)?;
        self.object(c, "delta", at, Self::chat_message)?;
        Ok(())
    }

    fn chat_message(&self, m: &Value, at: &Path<'_>) -> Checked {
        // The legacy functions API's call: read as none, the model's call would be lost
        // without a word (and with it, from the turn sent back). Beside calls in `tool_calls` it
        // is their legacy view, not read: llama-cpp-python's function-calling formats copy the
        // first call there in every message and delta, not always as in `tool_calls` (its first
        // delta's arguments are the first piece where the call's are `""`).
        let calls = m.get("tool_calls").and_then(Value::as_array).is_some_and(|c| !c.is_empty());
        if m.get("function_call").is_some_and(Value::is_object) && !calls {
            let (mut shown, mut pointer) = (String::new(), String::new());
            let at = Path::Key(at, "function_call");
            at.shown(self.root, &mut shown);
            at.pointer(&mut pointer);
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("{shown} is a call of the legacy `functions` API, which is not read: give the model the tools as `tools` (their calls are `tool_calls`)"),
            )
            .with_path(pointer));
        }
        self.objects(m, "tool_calls", at, Self::chat_call).map(drop)
    }

    fn chat_call(&self, tc: &Value, at: &Path<'_>) -> Checked {
        self.texts(tc, &["id"], at)?;
        self.field(tc, "index", Kind::Index, at)?;
        if !self.object(tc, "function", at, |c, f, at| c.texts(f, &["name"], at).and_then(|()| c.arguments(f, at)))? {
            self.texts(tc, &["name"], at)?;
            if tc.get("custom").is_none() {
                self.arguments(tc, at)?;
            }
        }
        Ok(())
    }

    /// A call's arguments under another key than `arguments` (LangChain's `{name, args, id}`, a
    /// call with `input` or `parameters`) would read as none, `{}`, and the tool be called
    /// without them: not a Chat call.
    fn arguments(&self, f: &Value, at: &Path<'_>) -> Checked {
        if f.get("arguments").is_some_and(|a| !a.is_null()) {
            return Ok(());
        }
        let Some(key) = ["args", "input", "parameters"].into_iter().find(|k| f.get(*k).is_some_and(|v| !v.is_null())) else { return Ok(()) };
        let (mut shown, mut pointer) = (String::new(), String::new());
        at.shown(self.root, &mut shown);
        Path::Key(at, key).pointer(&mut pointer);
        Err(Error::new(
            ErrorCode::InvalidInput,
            format!("{shown} has `{key}` but no `arguments`: not an OpenAI tool call (`{{id, function: {{name, arguments}}}}`), whose arguments would be lost (a LangChain tool call is `{{name, args, id}}`: give the provider's own message)"),
        )
        .with_path(pointer))
    }

    // OpenAI Responses: a response (`output`) or one output item; stream events.

    fn responses(&self, v: &Value, at: &Path<'_>) -> Checked {
        match self.field(v, "type", Kind::Text, at)? {
            None => self.response(v, at),
            Some(_) => self.output_item(v, at),
        }
    }

    fn response(&self, r: &Value, at: &Path<'_>) -> Checked {
        self.texts(r, &["status"], at)?;
        self.field(r, "incomplete_details", Kind::Object, at)?;
        self.objects(r, "output", at, Self::output_item).map(drop)
    }

    fn output_item(&self, item: &Value, at: &Path<'_>) -> Checked {
        self.texts(item, &["type"], at)?;
        if matches!(item.get("type").and_then(Value::as_str), Some("function_call" | "custom_tool_call")) {
            self.texts(item, &["id", "call_id", "name", "status"], at)?;
        }
        Ok(())
    }

    fn responses_event(&self, ev: &Value, at: &Path<'_>) -> Checked {
        let Some(kind) = self.field(ev, "type", Kind::Text, at)?.and_then(Value::as_str) else { return Ok(()) };
        self.texts(ev, &["item_id"], at)?;
        self.field(ev, "output_index", Kind::Index, at)?;
        self.object(ev, "item", at, Self::output_item)?;
        self.object(ev, "response", at, Self::response)?;
        match kind {
            "response.function_call_arguments.delta" => self.texts(ev, &["delta"], at),
            "response.function_call_arguments.done" => self.texts(ev, &["arguments", "name"], at),
            _ => Ok(()),
        }
    }

    // Anthropic: a message (`content`), a message as given back (`content` text, without a
    // `type`), or one content block; stream events.

    fn anthropic(&self, v: &Value, at: &Path<'_>) -> Checked {
        match self.field(v, "type", Kind::Text, at)?.and_then(Value::as_str) {
            None if v.get("content").is_some_and(Value::is_string) => Ok(()),
            None | Some("message") => self.objects(v, "content", at, Self::anthropic_block).map(drop),
            Some(_) => self.anthropic_block(v, at),
        }
    }

    fn anthropic_block(&self, b: &Value, at: &Path<'_>) -> Checked {
        self.texts(b, &["type"], at)?;
        if b.get("type").and_then(Value::as_str) == Some("tool_use") {
            self.texts(b, &["id", "name"], at)?;
        }
        Ok(())
    }

    fn anthropic_event(&self, ev: &Value, at: &Path<'_>) -> Checked {
        self.texts(ev, &["type"], at)?;
        self.field(ev, "index", Kind::Index, at)?;
        self.object(ev, "message", at, Self::anthropic)?;
        self.object(ev, "content_block", at, Self::anthropic_block)?;
        self.object(ev, "delta", at, |c, d, at| {
            c.texts(d, &["type"], at)?;
            if d.get("type").and_then(Value::as_str) == Some("input_json_delta") {
                c.texts(d, &["partial_json"], at)?;
            }
            Ok(())
        })?;
        Ok(())
    }

    // Gemini: a response or chunk (`candidates`), a candidate, a content (`parts`), a part, a
    // `FunctionCall`.

    fn gemini(&self, v: &Value, at: &Path<'_>) -> Checked {
        self.field(v, "promptFeedback", Kind::Object, at)?;
        if self.objects(v, "candidates", at, Self::gemini_candidate)? {
            return Ok(());
        }
        if v.get("content").is_some() || v.get("finishReason").is_some() {
            return self.gemini_candidate(v, at);
        }
        if v.get("parts").is_some() {
            return self.gemini_content(v, at);
        }
        if v.get("functionCall").is_some() {
            return self.gemini_part(v, at);
        }
        // The Live API's message (`toolCall` with `functionCalls`; a built-in tool's `toolCall`
        // has none) or its `LiveServerToolCall`.
        if v.get("toolCall").is_some_and(|t| t.get("functionCalls").is_some()) {
            return self.object(v, "toolCall", at, Self::gemini_live).map(drop);
        }
        if v.get("functionCalls").is_some() {
            return self.gemini_live(v, at);
        }
        match v.as_object() {
            Some(o) if is_function_call(o) => self.gemini_call(v, at),
            _ => Ok(()),
        }
    }

    /// A Live API `LiveServerToolCall`: `functionCalls`, each a `FunctionCall` (what is not one
    /// would read as no call).
    fn gemini_live(&self, t: &Value, at: &Path<'_>) -> Checked {
        self.objects(t, "functionCalls", at, |c, fc, at| match fc.as_object() {
            Some(o) if is_function_call(o) => c.gemini_call(fc, at),
            _ => {
                let (mut shown, mut pointer) = (String::new(), String::new());
                at.shown(c.root, &mut shown);
                at.pointer(&mut pointer);
                Err(Error::new(ErrorCode::InvalidInput, format!("{shown} must be a FunctionCall ({{name, args, id}}), got an object with other fields")).with_path(pointer))
            }
        })
        .map(drop)
    }

    fn gemini_candidate(&self, c: &Value, at: &Path<'_>) -> Checked {
        self.texts(c, &["finishReason"], at)?;
        self.field(c, "index", Kind::Index, at)?;
        self.object(c, "content", at, Self::gemini_content).map(drop)
    }

    fn gemini_content(&self, c: &Value, at: &Path<'_>) -> Checked {
        self.texts(c, &["role"], at)?;
        self.objects(c, "parts", at, Self::gemini_part).map(drop)
    }

    fn gemini_part(&self, p: &Value, at: &Path<'_>) -> Checked {
        self.texts(p, &["thoughtSignature"], at)?;
        self.object(p, "functionCall", at, Self::gemini_call).map(drop)
    }

    fn gemini_call(&self, fc: &Value, at: &Path<'_>) -> Checked {
        self.texts(fc, &["name", "id"], at)?;
        self.field(fc, "willContinue", Kind::Bool, at)?;
        self.objects(fc, "partialArgs", at, |_, _, _| Ok(())).map(drop)
    }

    // Bedrock: a response (`output.message`), its `output`, a message (`content`), a content
    // block; ConverseStream events.

    fn bedrock(&self, v: &Value, at: &Path<'_>) -> Checked {
        self.texts(v, &["stopReason"], at)?;
        let mut found = false;
        self.object(v, "output", at, |c, o, at| {
            found = c.object(o, "message", at, Self::bedrock_message)?;
            Ok(())
        })?;
        if found || self.object(v, "message", at, Self::bedrock_message)? {
            return Ok(());
        }
        self.bedrock_message(v, at)
    }

    fn bedrock_message(&self, m: &Value, at: &Path<'_>) -> Checked {
        if self.objects(m, "content", at, Self::bedrock_block)? {
            return Ok(());
        }
        self.bedrock_block(m, at)
    }

    fn bedrock_block(&self, b: &Value, at: &Path<'_>) -> Checked {
        self.object(b, "toolUse", at, |c, tu, at| c.texts(tu, &["toolUseId", "name", "type"], at)).map(drop)
    }

    fn bedrock_event(&self, ev: &Value, at: &Path<'_>) -> Checked {
        self.object(ev, "contentBlockStart", at, |c, s, at| {
            c.field(s, "contentBlockIndex", Kind::Index, at)?;
            c.object(s, "start", at, Self::bedrock_block).map(drop)
        })?;
        self.object(ev, "contentBlockDelta", at, |c, d, at| {
            c.field(d, "contentBlockIndex", Kind::Index, at)?;
            c.object(d, "delta", at, |c, d, at| c.object(d, "toolUse", at, |c, tu, at| c.texts(tu, &["input"], at)).map(drop)).map(drop)
        })?;
        self.object(ev, "contentBlockStop", at, |c, s, at| c.field(s, "contentBlockIndex", Kind::Index, at).map(drop))?;
        self.object(ev, "messageStop", at, |c, s, at| c.texts(s, &["stopReason"], at))?;
        Ok(())
    }
}

/// Checks one item of what [`super::parse_tool_calls`] was given (the response, or the `index`th
/// element of an array of its parts).
pub(super) fn check_response(v: &Value, format: CallFormat, index: Option<usize>) -> Checked {
    let check = Check { root: "response" };
    let root = Path::Root;
    let at = match index {
        Some(i) => Path::Index(&root, i),
        None => root,
    };
    match format {
        CallFormat::OpenAi | CallFormat::Ollama => check.chat(v, &at),
        CallFormat::OpenAiResponses => check.responses(v, &at),
        CallFormat::Anthropic => check.anthropic(v, &at),
        CallFormat::Gemini => check.gemini(v, &at),
        CallFormat::Bedrock => check.bedrock(v, &at),
    }
}

/// Checks one stream event given to [`super::Accumulator::push`].
pub(super) fn check_event(ev: &Value, format: CallFormat) -> Checked {
    let check = Check { root: "event" };
    let at = Path::Root;
    match format {
        CallFormat::OpenAi | CallFormat::Ollama => check.chat(ev, &at),
        CallFormat::OpenAiResponses => check.responses_event(ev, &at),
        CallFormat::Anthropic => check.anthropic_event(ev, &at),
        CallFormat::Gemini => check.gemini(ev, &at),
        CallFormat::Bedrock => check.bedrock_event(ev, &at),
    }
}
