//! Moving JSON across the boundary.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::error::{Error, ErrorCode, Result};
use crate::text::Owned as _;
use crate::wasm::caught;
use crate::wasm::bridge::{get, get_loose};

/// A JS value as JSON. `undefined` and `null` are `Null`; what `JSON.stringify` cannot encode
/// (cycles, BigInt, a throwing `toJSON`) is an `INVALID_JSON` error naming `what`, and what it
/// would silently turn into `{}` is refused ([`refuse_lossy`]).
pub(crate) fn from_js(v: &JsValue, what: &str) -> Result<Value> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Null);
    }
    parse(&json_text(v, what)?, what)
}

/// [`from_js`] for a value sent on as JSON (a schema, a list of tools), but one holding a number
/// JSON cannot hold (`Infinity`, `NaN`, boxed or not), which `JSON.stringify` writes as `null`
/// (and a `default` or an `enum` may be `null`), is `INVALID_JSON` naming its place.
pub(crate) fn from_js_finite(v: &JsValue, what: &str) -> Result<Value> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Null);
    }
    let text = json_text(v, what)?;
    if let Some((at, got, made)) = non_finite_at_nulls(v, &text) {
        return Err(non_finite_error(what, &at, &got, made));
    }
    parse(&text, what)
}

/// The error for a value JSON changes at `at` in `what` ([`non_finite_at_nulls`]): a number JSON
/// cannot hold, an invalid Date, or an object of a class that JSON writes as `{}` (`made`).
pub(crate) fn non_finite_error(what: &str, at: &str, got: &str, made: &str) -> Error {
    match got {
        _ if made == "{}" => {
            let hint = match got {
                "a Promise" => "await it first",
                "a Map" => "pass a plain object (Object.fromEntries(map))",
                "a Set" => "pass an array ([...set])",
                _ => "pass a plain object or a JSON value",
            };
            Error::new(ErrorCode::InvalidJson, format!("{what}{at} is {got}, which JSON.stringify writes as {{}}: {hint}"))
        }
        "an invalid Date" => Error::new(ErrorCode::InvalidJson, format!("{what}{at} is {got}, which JSON.stringify writes as null: give a valid date, or leave it out")),
        _ => Error::new(ErrorCode::InvalidJson, format!("{what}{at} is {got}, a number JSON cannot hold (JSON.stringify writes null): give a finite number, or leave it out")),
    }
}

/// The keywords whose value the conversions check as a number, and report as
/// `schema/bad-keyword-value` where it is `null` (and leave out): a bound given as `Infinity`
/// (no bound) is taken so, not refused, where it is a schema's (see [`VALUE_KEYWORDS`]).
const NUMBER_KEYWORDS: [&str; 13] = [
    "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf", "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties",
    "maxContains", "minContains",
];

/// The keys under which a tool holds values, not schemas: a [`NUMBER_KEYWORDS`] key below one
/// is a value's (`default: {maximum: Infinity}`), whose `null` would be taken as given.
const VALUE_KEYWORDS: [&str; 6] = ["default", "const", "enum", "examples", "_meta", "annotations"];

/// The first `null` of `text`, `v`'s JSON as `JSON.stringify` writes it, that stands for a
/// number JSON cannot hold in `v` (`Infinity`, `NaN`, boxed as `new Number(NaN)` too; an invalid
/// Date), where `null` would be taken for the caller's (a `default`, an `enum` value; not a
/// schema's [`NUMBER_KEYWORDS`], reported where it is `null`), or the first `{}` that stands for
/// an object of a class JSON sees no field of (a Promise not awaited, a Map, a Set), where `{}`
/// would be taken for an empty schema or object: its place (`.a[1]`), what it is, and what JSON
/// made of it (`null`, `{}`). Only the `null`s and `{}`s of `text` are looked up in `v`, each
/// from its container, read once (the containers on the way are read once each too): a few
/// crossings each, and text without one costs a search of it.
pub(crate) fn non_finite_at_nulls(v: &JsValue, text: &str) -> Option<(String, String, &'static str)> {
    #[derive(Clone, Copy)]
    enum Step {
        Index(u32),
        /// The key's text in `text`, with its quotes.
        Key(usize, usize),
    }
    /// The key of a [`Step::Key`], unescaped, for the keywords and the message (a lone
    /// surrogate as U+FFFD).
    fn key_of(text: &str, s: usize, e: usize) -> Option<String> {
        let quoted = &text[s..e];
        match quoted.contains('\\') {
            false => Some(quoted[1..quoted.len() - 1].owned()),
            true => caught::parse(quoted).ok()?.as_string(),
        }
    }
    /// What `JSON.stringify` read at `step` of `container`. A key with an escape is read by JS's
    /// own JSON.parse, as a JS string (a lone surrogate stays one).
    fn read(container: &JsValue, text: &str, step: Step) -> Option<JsValue> {
        match step {
            Step::Index(n) => caught::get_index_some(container, n).ok()?,
            Step::Key(s, e) if text[s..e].contains('\\') => caught::get_some(container, &caught::parse(&text[s..e]).ok()?).ok()?,
            Step::Key(s, e) => caught::get_some(container, &JsValue::from_str(&text[s + 1..e - 1])).ok()?,
        }
    }
    /// `c` if JSON.stringify read into it as it is: an object without a `toJSON` method.
    fn as_written(c: JsValue) -> Option<JsValue> {
        let plain = match caught::get_some(&c, &JsValue::from_str("toJSON")) {
            Ok(to_json) => !to_json.is_some_and(|f| f.is_function()),
            Err(_) => false,
        };
        (c.is_object() && plain).then_some(c)
    }

    // The value at `path` in `v`, reading the containers on the way that were not read yet.
    fn value_at(v: &JsValue, text: &str, path: &[Step], containers: &mut [Option<Option<JsValue>>]) -> Option<JsValue> {
        let depth = path.len();
        let mut from = containers.iter().rposition(Option::is_some).unwrap_or(0);
        if containers[from].is_none() {
            containers[0] = Some(as_written(v.clone()));
            from = 0;
        }
        while from + 1 < depth {
            let next = containers[from].clone().flatten().and_then(|c| read(&c, text, path[from])).and_then(as_written);
            containers[from + 1] = Some(next);
            from += 1;
        }
        containers[depth - 1].clone().flatten().and_then(|c| read(&c, text, path[depth - 1]))
    }
    let place = |path: &[Step]| {
        let mut at = String::new();
        for step in path {
            match *step {
                Step::Index(n) => at.push_str(&format!("[{n}]")),
                Step::Key(s, e) => at.push_str(&key_place(key_of(text, s, e).as_deref().unwrap_or_default())),
            }
        }
        at
    };

    // `text` is `JSON.stringify`'s, without whitespace: a `null` or `{}` it wrote inside a
    // container follows a `:`, `,` or `[`. Text with none such (one only in a description) is
    // not walked.
    let b = text.as_bytes();
    let inside = |i: usize| i > 0 && matches!(b[i - 1], b':' | b',' | b'[');
    if !text.match_indices("null").any(|(i, _)| inside(i)) && !text.match_indices("{}").any(|(i, _)| inside(i)) {
        return None;
    }
    // The place in each open container, and the container as read in `v` once a `null` in it
    // (or below it) was looked up: `Some(None)` where it cannot be read as written.
    let mut path: Vec<Step> = Vec::new();
    let mut containers: Vec<Option<Option<JsValue>>> = Vec::new();
    // Whether the next string of the object at the top is a key.
    let mut key_next = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                // To its closing quote, over runs of plain bytes eight at a time: most of the
                // text is strings (a null in one is no null).
                let start = i;
                i += 1;
                loop {
                    i = crate::text::string_run_end(b, i);
                    match b.get(i) {
                        Some(b'"') | None => break,
                        Some(b'\\') => i += 2,
                        Some(_) => i += 1,
                    }
                }
                if key_next {
                    if let Some(Step::Key(s, e)) = path.last_mut() {
                        (*s, *e) = (start, i + 1);
                    }
                    key_next = false;
                }
            }
            b'{' if b.get(i + 1) == Some(&b'}') && !path.is_empty() => {
                // An object of a class without a field JSON sees (a Promise, a Map, a Set).
                let found = value_at(v, text, &path, &mut containers);
                let lost = found.filter(|n| n.is_object() && !is_array(n) && class_name(n).is_some() && !get_loose(n, "toJSON").is_function());
                if let Some(n) = lost.filter(|n| entries_of(n).is_ok_and(|e| e.length() == 0) && unboxed(n).is_none()) {
                    return Some((place(&path), describe_js(&n), "{}"));
                }
                i += 2;
                continue;
            }
            b'{' | b'[' => {
                path.push(if b[i] == b'{' { Step::Key(0, 0) } else { Step::Index(0) });
                containers.push(None);
                key_next = b[i] == b'{';
            }
            b'}' | b']' => {
                path.pop();
                containers.pop();
            }
            b',' => match path.last_mut() {
                Some(Step::Index(n)) => *n += 1,
                _ => key_next = true,
            },
            b'n' if !path.is_empty() => {
                // The innermost container read so far, then those below it down to the null's.
                let depth = path.len();
                let found = value_at(v, text, &path, &mut containers);
                // What it is in words: a number JSON cannot hold, a boxed one (`new Number(NaN)`),
                // an invalid Date, whose toJSON gives null.
                let lossy = |n: JsValue| match n.as_f64() {
                    Some(x) => (!x.is_finite()).then(|| describe_js(&n)),
                    None if !n.is_object() => None,
                    None if n.dyn_ref::<js_sys::Date>().is_some_and(|d| d.get_time().is_nan()) => Some("an invalid Date".owned()),
                    None => match unboxed(&n) {
                        Some(Unboxed::Number(x)) if !x.is_finite() => Some(describe_js(&JsValue::from_f64(x))),
                        _ => None,
                    },
                };
                if let Some(what) = found.and_then(lossy) {
                    let keys: Vec<Option<String>> = path.iter().map(|&s| if let Step::Key(s, e) = s { key_of(text, s, e) } else { None }).collect();
                    let bound = keys.last().cloned().flatten().is_some_and(|k| NUMBER_KEYWORDS.contains(&k.as_str()))
                        && !keys[..depth - 1].iter().flatten().any(|k| VALUE_KEYWORDS.contains(&k.as_str()));
                    if !bound {
                        return Some((place(&path), what, "null"));
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A tool call's arguments as JSON, read as [`from_js`] reads a value, but one that JSON would
/// make `{}` or `null` without a word is `INVALID_ARGUMENTS` (it would be sent as no arguments):
/// `NaN`, an invalid `Date`, a `RegExp`, an `Error`, a `SharedArrayBuffer`, an instance of a class
/// whose fields are getters or private. A plain object (and an object whose `toJSON` says `{}`)
/// is taken as it is.
pub(crate) fn arguments_from_js(v: &JsValue) -> Result<Value> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Null);
    }
    let text = json_text(v, "arguments")?;
    if text.len() <= 4 && (text == "{}" || text == "null") && !(text == "{}" && (class_name(v).is_none() || get_loose(v, "toJSON").is_function())) {
        return Err(Error::new(
            ErrorCode::InvalidArguments,
            format!("arguments must be a plain object, got {}, which JSON makes {text}: pass a plain object with the arguments' values", describe_js(v)),
        ));
    }
    // A value inside that JSON makes `null` (a number JSON cannot hold, an invalid Date) or `{}`
    // (a RegExp, a Map, an instance whose fields are getters): the server would get that where
    // the caller gave something else.
    if text.contains("null") || text.contains("{}") {
        if let Some((at, got, made)) = changed_by_json(v, false) {
            return Err(Error::new(ErrorCode::InvalidArguments, format!("arguments{at} is {got}, which JSON makes {made}: pass a JSON value")));
        }
    }
    // Half a character (text cut inside an emoji): read as U+FFFD it would be another string.
    if text.contains("\\u") && crate::model::repair_lone_surrogates(&text).is_some() {
        return Err(Error::new(ErrorCode::InvalidArguments, "arguments hold a string with a lone UTF-16 surrogate (half of a character, as text cut inside an emoji leaves it), which JSON text in UTF-8 cannot carry".owned()));
    }
    parse(&text, "arguments")
}

/// A value toolwire sends for the caller (a request's or a notification's `params`, an answer
/// to a server's request, a tool result, `clientInfo`), read as [`from_js`] reads it, but one
/// holding a value JSON would change without a word ([`changed_by_json`]: `NaN`, an invalid
/// `Date`, a Set inside, an instance whose fields are getters) is refused as `code_for(what)`,
/// naming its place, as [`arguments_from_js`] refuses it in a tool call's arguments.
pub(crate) fn sent_from_js(v: &JsValue, what: &str) -> Result<Value> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Null);
    }
    let text = json_text(v, what)?;
    if text.contains("null") || text.contains("{}") {
        if text == "{}" && class_name(v).is_some() && !get_loose(v, "toJSON").is_function() {
            return Err(Error::new(code_for(what), format!("{what} is {}, which JSON makes {{}}: pass a plain object", describe_js(v))));
        }
        if let Some((at, got, made)) = changed_by_json(v, false) {
            return Err(Error::new(code_for(what), format!("{what}{at} is {got}, which JSON makes {made}: pass a JSON value")));
        }
    }
    parse(&text, what)
}

/// A provider's response or stream event given as an object, whose `text` is its JSON: one
/// holding a number JSON cannot hold (`NaN`, `Infinity`, what `JSON.parse` makes of `1e400`) is
/// `INVALID_INPUT` naming its place, as that text is refused (`INVALID_JSON`), rather than read
/// as the `null` JSON makes it.
pub(crate) fn refuse_non_finite_inside(v: &JsValue, text: &str, what: &str) -> Result<()> {
    if !text.contains("null") {
        return Ok(());
    }
    match changed_by_json(v, true) {
        Some((at, got, _)) => Err(Error::new(ErrorCode::InvalidInput, format!("{what}{at} is {got}, a number JSON cannot hold (JSON makes it null)"))),
        None => Ok(()),
    }
}

/// A key's step in a place as JS writes it: `.name` for an identifier, `["a-b"]` otherwise.
fn key_place(k: &str) -> String {
    let plain = !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$') && !k.as_bytes()[0].is_ascii_digit();
    if plain { format!(".{k}") } else { format!("[{}]", crate::text::quote(k)) }
}

/// The first value inside `v` (where it is read as JSON: arrays, and objects without `toJSON`)
/// that `JSON.stringify` writes as `null` or `{}` though it is neither: `NaN`, `Infinity` (boxed
/// or not), an invalid `Date`; an object of a class with no field JSON sees (a RegExp, a Map, an
/// Error), but a boxed primitive (`new Boolean(true)`), written as the primitive. Its
/// place (`.a[1]`), what it is, and what JSON makes it. `numbers`: only the numbers. Walked
/// without recursion (the value may nest as deep as JSON.stringify reaches), an array's or an
/// object's items one at a time: the walk holds a JS value for each level it is in, not one for
/// each item (millions of them would overflow the module's table of JS values, which traps).
fn changed_by_json(v: &JsValue, numbers: bool) -> Option<(String, String, &'static str)> {
    /// An array's items, or an object's `[key, value]` entries, being walked.
    struct Level {
        items: js_sys::Array,
        len: u32,
        next: u32,
        keyed: bool,
    }
    /// The step from a level to its item being looked at.
    enum Step {
        Index(u32),
        Key(String),
    }
    let place = |steps: &[Step]| {
        steps.iter().map(|s| match s {
            Step::Index(i) => format!("[{i}]"),
            Step::Key(k) => key_place(k),
        }).collect::<String>()
    };
    let mut levels: Vec<Level> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut next = Some(v.clone());
    loop {
        let v = match next.take() {
            Some(v) => v,
            None => {
                let level = levels.last_mut()?;
                if level.next == level.len {
                    levels.pop();
                    steps.pop();
                    continue;
                }
                let (i, item) = (level.next, level.items.get(level.next));
                level.next += 1;
                let (step, x) = match level.keyed {
                    true => {
                        let (k, x) = entry_pair(&item);
                        (Step::Key(k.as_string().unwrap_or_default()), x)
                    }
                    false => (Step::Index(i), item),
                };
                // The level's step, put there when it was opened.
                if let Some(last) = steps.last_mut() {
                    *last = step;
                }
                x
            }
        };
        let open = |levels: &mut Vec<Level>, steps: &mut Vec<Step>, items: js_sys::Array, keyed: bool| {
            let len = items.length();
            levels.push(Level { items, len, next: 0, keyed });
            steps.push(Step::Index(0));
        };
        if let Some(n) = v.as_f64() {
            if !n.is_finite() {
                return Some((place(&steps), describe_js(&v), "null"));
            }
            continue;
        }
        if !v.is_object() || v.is_function() {
            continue;
        }
        if let Some(d) = v.dyn_ref::<js_sys::Date>() {
            if !numbers && d.get_time().is_nan() {
                return Some((place(&steps), "an invalid Date".owned(), "null"));
            }
            continue;
        }
        if is_array(&v) {
            open(&mut levels, &mut steps, v.unchecked_into(), false);
            continue;
        }
        if get_loose(&v, "toJSON").is_function() {
            continue;
        }
        // A boxed primitive (`new Number(NaN)`, `new Boolean(true)`), of any prototype, with
        // keys or without: JSON writes the primitive it holds, and none of its keys.
        match unboxed(&v) {
            Some(Unboxed::Number(n)) if !n.is_finite() => return Some((place(&steps), describe_js(&JsValue::from_f64(n)), "null")),
            Some(_) => continue,
            None => {}
        }
        let Ok(entries) = entries_of(&v) else { continue };
        // An object of a class without keys, which JSON makes `{}`. The whole value was looked at
        // by the caller (an empty object of a class is refused there).
        if !numbers && !steps.is_empty() && entries.length() == 0 && class_name(&v).is_some() {
            return Some((place(&steps), describe_js(&v), "{}"));
        }
        open(&mut levels, &mut steps, entries, true);
    }
}

/// A permission policy's config as JSON: [`from_js`], but a pattern (any string of it) that
/// holds a lone UTF-16 surrogate is refused (`INVALID_OPTIONS`): as U+FFFD it would match
/// names it was not written for.
pub(crate) fn policy_config(v: &JsValue, what: &str) -> Result<Value> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Null);
    }
    // A list given as a function (a getter passed uncalled), which JSON leaves out: no rule at all.
    refuse_lossy_known(v, what, &[], Some(&crate::policy::POLICY_FIELDS))?;
    let text = json_text(v, what)?;
    if crate::model::repair_lone_surrogates(&text).is_some() {
        return Err(Error::new(ErrorCode::InvalidOptions, format!("invalid permission policy: {}", lone_surrogate_name("a pattern"))));
    }
    parse(&text, what)
}

/// The code for a value that is not what `what` takes: options are `INVALID_OPTIONS`, the rest
/// `INVALID_INPUT`.
pub(crate) fn code_for(what: &str) -> ErrorCode {
    if what.starts_with("options") || what == "policy" {
        ErrorCode::InvalidOptions
    } else {
        ErrorCode::InvalidInput
    }
}


// What a getter or a Proxy trap throws while a value is looked at is caught: the value is then
// read by `JSON.stringify`, whose error names it. A JS exception unwinding through wasm frames
// skips their epilogues, and so leaks the shadow stack (after a few hundred such throws every call
// traps), leaves a `&mut self` borrowed for good, and, thrown in a future a promise job polls, is
// uncaught and ends the process: what runs on values the caller gave (a revoked Proxy, a throwing
// getter or iterator, a detached buffer) is caught, by the imports of `caught` (which leak nothing
// when they catch) or the ones below (which return no JS value). js_sys declares these
// (`Array::is_array`, `Array::from`, `Object::entries`, `Object::assign`, a typed array's
// `length`, `to_vec`, `new`) without `catch`: in src/wasm they are used on our own values only.
pub(crate) use caught::{array_from, entries as entries_of, keys as keys_of, own_descriptor, own_names, prototype_of};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn array_test(v: &JsValue) -> std::result::Result<bool, JsValue>;

    /// A `Uint8Array` whose reads are caught.
    #[wasm_bindgen(js_name = Uint8Array)]
    type Bytes;
    /// The `Uint8Array` constructor, which `caught::construct` calls (a constructor declared
    /// `catch` leaks a table slot a throw, as `caught` says).
    #[wasm_bindgen(thread_local_v2, js_name = Uint8Array)]
    static UINT8_ARRAY: JsValue;
    #[wasm_bindgen(catch, method, getter)]
    fn length(this: &Bytes) -> std::result::Result<f64, JsValue>;
    /// `Uint8Array.prototype.set.call(into, from)`: a detached `from`, or one longer than `into`, throws.
    #[wasm_bindgen(catch, js_namespace = ["Uint8Array", "prototype", "set"], js_name = call)]
    fn copy_bytes(into: &mut [u8], from: &Bytes) -> std::result::Result<(), JsValue>;
    /// `Object.prototype.hasOwnProperty.call(o, key)`, for an `o` that is no Proxy (which could throw).
    #[wasm_bindgen(js_namespace = ["Object", "prototype", "hasOwnProperty"], js_name = call)]
    fn has_own(o: &JsValue, key: &JsValue) -> bool;
    /// `Number.prototype.valueOf.call(v)`: it throws for anything but a boxed Number.
    #[wasm_bindgen(catch, js_namespace = ["Number", "prototype", "valueOf"], js_name = call)]
    fn number_data(v: &JsValue) -> std::result::Result<f64, JsValue>;
    /// `Boolean.prototype.valueOf.call(v)`: it throws for anything but a boxed Boolean.
    #[wasm_bindgen(catch, js_namespace = ["Boolean", "prototype", "valueOf"], js_name = call)]
    fn boolean_data(v: &JsValue) -> std::result::Result<bool, JsValue>;
    /// `Number(v)`: ToNumber, as `JSON.stringify` reads a boxed Number (through its `valueOf`).
    #[wasm_bindgen(catch, js_name = Number)]
    fn to_number(v: &JsValue) -> std::result::Result<f64, JsValue>;
}

/// What `JSON.stringify` writes for a boxed primitive, as it writes the primitive.
pub(crate) enum Unboxed {
    /// A boxed Number (`new Number(x)`, `Object(x)`): the number JSON reads of it, which may be
    /// one JSON cannot hold (written `null`).
    Number(f64),
    /// A boxed String or Boolean: the string or boolean it holds, JSON always.
    Json,
}

/// `v` as `JSON.stringify` writes it if it is a boxed Number, String or Boolean of any realm
/// (one without a `toJSON` method, which JSON would call instead); `None` for anything else. A
/// boxed BigInt is none: `JSON.stringify` throws on it (a TypeError, `INVALID_JSON`) before this
/// is asked. JSON tells a boxed value by its internal slot, whatever its prototype and keys
/// (`Object.setPrototypeOf(new Number(NaN), Object.prototype)`, `Object.assign(new
/// Number(Infinity), {a: 1})` are written `null`), and so does this: by
/// `Object.prototype.toString`, which reads the slot without throwing (one crossing, and the
/// slot's own test, which throws for anything else, only where the tag names a boxed class),
/// unless a `Symbol.toStringTag` string (its own or its prototype's) names another class; then
/// by each slot's own test (microseconds a throw, for such objects only: a Map, a typed array,
/// an instance of a class that names itself).
pub(crate) fn unboxed(v: &JsValue) -> Option<Unboxed> {
    if !v.is_object() {
        return None;
    }
    let named = TO_STRING_TAG.with(|t| caught::get_some(v, t)).ok().flatten().is_some_and(|t| t.is_string());
    let number = || number_data(v).ok().map(|data| Unboxed::Number(to_number(v).unwrap_or(data)));
    let string = || caught::string_data(v).is_ok_and(|s| s.is_some()).then_some(Unboxed::Json);
    let boolean = || boolean_data(v).ok().map(|_| Unboxed::Json);
    let boxed = if named {
        number().or_else(string).or_else(boolean)
    } else {
        match caught::tag(v).ok()??.as_string()?.as_str() {
            "[object Number]" => number(),
            "[object String]" => string(),
            "[object Boolean]" => boolean(),
            _ => None,
        }
    }?;
    (!get_loose(v, "toJSON").is_function()).then_some(boxed)
}

/// The number `v` is, or the one a boxed Number holds as JSON reads it ([`unboxed`]): an option
/// read from JS as it holds it (`timeoutMs`, `maxChars`) takes `new Number(5000)` as JSON and
/// `limits` do. `None` for anything else.
pub(crate) fn js_number(v: &JsValue) -> Option<f64> {
    v.as_f64().or_else(|| match unboxed(v) {
        Some(Unboxed::Number(n)) => Some(n),
        _ => None,
    })
}

thread_local! {
    /// `Symbol.toStringTag`, read once.
    static TO_STRING_TAG: JsValue = js_sys::Symbol::to_string_tag().into();
}

/// `Array.isArray(v)`, false for a revoked Proxy (the one value it throws on: what reads the value
/// next meets the same, and says so).
pub(crate) fn is_array(v: &JsValue) -> bool {
    array_test(v).unwrap_or(false)
}

/// `Object.assign({}, v)`: `v`'s own enumerable properties in a fresh object, or what was thrown
/// reading them.
pub(crate) fn own_copy(v: &JsValue) -> std::result::Result<JsValue, JsValue> {
    caught::assign(&js_sys::Object::new(), v)
}

/// The key and the value of an entry of [`entries_of`] (a fresh `[key, value]` array).
pub(crate) fn entry_pair(entry: &JsValue) -> (JsValue, JsValue) {
    let pair: &js_sys::Array = entry.unchecked_ref();
    (pair.get(0), pair.get(1))
}

/// The own enumerable keys of an options object (as `JSON.stringify` reads it); none for
/// anything but an object, or an object whose keys cannot be listed (a Proxy whose trap
/// throws: `JSON.stringify` then says so).
pub(crate) fn option_keys(options: &JsValue) -> Vec<String> {
    if !options.is_object() || options.is_function() {
        return Vec::new();
    }
    keys_of(options).map(|a| a.iter().filter_map(|k| k.as_string()).collect()).unwrap_or_default()
}

/// Refuses a key of the options object `what` that is not in `known` but within did-you-mean
/// distance of one, or (`all`) any key not in `known`: [`crate::error::unknown_key`].
pub(crate) fn refuse_unknown_keys(options: &JsValue, what: &str, known: &[&str], all: bool) -> Result<()> {
    for key in option_keys(options) {
        if let Some(e) = crate::error::unknown_key(what, &key, known, all) {
            return Err(e);
        }
    }
    Ok(())
}

/// The name of an object's class (`Map`, `Headers`, `Foo`), `None` for a plain object.
pub(crate) fn class_name(v: &JsValue) -> Option<String> {
    let proto = prototype_of(v).unwrap_or(JsValue::NULL);
    if proto.is_null() || OBJECT_PROTOTYPE.with(|top| proto == *top) {
        return None;
    }
    get_loose(&get_loose(v, "constructor"), "name").as_string().filter(|n| !n.is_empty() && n != "Object")
}

/// A JS value in words, as JS holds it (JSON would make `undefined`, `NaN` and `Infinity` all
/// `null`, and a Map `{}`): `undefined`, `NaN`, `the string "…"`, `a Promise`, `an array`...
pub(crate) fn describe_js(v: &JsValue) -> String {
    if v.is_undefined() {
        return "undefined".owned();
    }
    if v.is_null() {
        return "null".owned();
    }
    if let Some(n) = v.as_f64() {
        return match n {
            _ if n.is_nan() => "NaN".owned(),
            // As JS writes them (Rust writes `inf`).
            f64::INFINITY => "Infinity".owned(),
            f64::NEG_INFINITY => "-Infinity".owned(),
            _ => format!("the number {}", crate::text::f64_display(n)),
        };
    }
    if let Some(b) = v.as_bool() {
        return format!("the boolean {b}");
    }
    if let Some(s) = v.as_string() {
        return format!("the string {}", crate::text::quote(&s));
    }
    if v.is_function() {
        return "a function".owned();
    }
    match array_test(v) {
        Ok(true) => return "an array".owned(),
        Err(_) => return "a revoked Proxy".owned(),
        Ok(false) => {}
    }
    if v.is_object() {
        if get_loose(v, "then").is_function() {
            return "a Promise".owned();
        }
        return match class_name(v) {
            Some(c) if c.starts_with(['A', 'E', 'I', 'O', 'U']) => format!("an {c}"),
            Some(c) => format!("a {c}"),
            None => "an object".owned(),
        };
    }
    match v.js_typeof().as_string().unwrap_or_default().as_str() {
        "symbol" => "a symbol".owned(),
        "bigint" => "a BigInt".owned(),
        t => t.owned(),
    }
}

/// Refuses, as `code_for(what)`, a value `JSON.stringify` would turn into something else without
/// a word: a Promise (`{}`), a Map or Set (`{}`), a stream or async iterable (`{}`), bytes
/// (`{"0":…}`), `Headers`, a fetch `Response`; each with how to pass it.
pub(crate) fn refuse_lossy(v: &JsValue, what: &str) -> Result<()> {
    refuse_lossy_of(v, what, false)
}

/// [`refuse_lossy`]; with `not_bytes`, for a value [`js_bytes`] has turned down, without the
/// bytes test (whose `Symbol.toStringTag` read is a guarded crossing into JS, made already).
fn refuse_lossy_of(v: &JsValue, what: &str, not_bytes: bool) -> Result<()> {
    if !v.is_object() {
        return Ok(());
    }
    // A plain object is none of the classes tested below, each a crossing into JS: it may be a
    // thenable, a stream, or an SDK's result holding one.
    let plain = is_plain(v);
    let how = if get_loose(v, "then").is_function() {
        format!("{what} is a Promise: did you forget await?")
    } else if !plain && (v.is_instance_of::<js_sys::Map>() || v.is_instance_of::<js_sys::WeakMap>()) {
        format!("{what} is a Map, which JSON turns into {{}}: pass a plain object (Object.fromEntries(map))")
    } else if !plain && (v.is_instance_of::<js_sys::Set>() || v.is_instance_of::<js_sys::WeakSet>()) {
        format!("{what} is a Set, which JSON turns into {{}}: pass an array ([...set])")
    } else if is_stream(v) {
        // A stream (an SDK's `Stream`, a `ReadableStream`, an async generator) is never one of
        // the values it yields: JSON makes it `{}`, which would read as nothing.
        if what == "stream event" {
            format!("{what} is a stream, not one of its events: push each event (for await (const event of stream) acc.push(event))")
        } else {
            format!("{what} is a stream (an async iterable), not a JSON value: read it and pass what it yields (for await (const x of stream) …)")
        }
    } else if !plain && !not_bytes && (v.is_instance_of::<js_sys::ArrayBuffer>() || js_sys::ArrayBuffer::is_view(v) || is_buffer(v)) {
        let class = class_name(v).unwrap_or_else(|| "ArrayBuffer".owned());
        let a = if class.starts_with(['A', 'E', 'I', 'O']) { "an" } else { "a" };
        format!("{what} is bytes ({a} {class}), not a JSON value: decode and parse them first (JSON.parse(new TextDecoder().decode(bytes)))")
    } else {
        match if plain { None } else { class_name(v) }.as_deref() {
            Some("Headers") => format!("{what} is a Headers object, which JSON turns into {{}}: pass a plain object (Object.fromEntries(headers))"),
            Some("Response") => format!("{what} is a fetch Response: pass its parsed body (await res.json())"),
            Some("Request") => format!("{what} is a fetch Request: pass its parsed body (await req.json())"),
            _ if what == "stream event" => match stream_holder(v, plain) {
                Some(how) => how,
                None => return Ok(()),
            },
            _ => return Ok(()),
        }
    };
    Err(Error::new(code_for(what), how))
}

/// Whether `v` is a plain object: of this realm's `Object.prototype` or of no prototype, and no
/// typed array or `DataView` given one of those. `instanceof` walks that same chain, so such an
/// object is no Map, Set, ArrayBuffer, Error or instance of a class.
fn is_plain(v: &JsValue) -> bool {
    !js_sys::ArrayBuffer::is_view(v) && prototype_of(v).is_ok_and(|p| p.is_null() || OBJECT_PROTOTYPE.with(|top| p == *top))
}

/// A stream (an SDK's `Stream`, a `ReadableStream`, an async generator).
fn is_stream(v: &JsValue) -> bool {
    caught::get_some(v, &js_sys::Symbol::async_iterator()).is_ok_and(|f| f.is_some_and(|f| f.is_function())) || get_loose(v, "getReader").is_function()
}

/// What to push instead of an SDK's result that holds the stream or the response, pushed as a
/// stream event: the AWS SDK's `{stream, $metadata}` (ConverseStream) and `{body, $metadata}`
/// (InvokeModelWithResponseStream), @google/generative-ai's `{stream, response}` and `{response}`,
/// a `.withResponse()`'s `{data, response}`. Read as JSON, each would be an event of no kind, passed
/// over. No provider's event holds a stream or a Promise, and Responses' `{type, response}` has a type.
/// An `Error` pushed (what the SDK threw) is named too; `plain`: `v` is a plain object
/// ([`is_plain`]), no `Error`.
fn stream_holder(v: &JsValue, plain: bool) -> Option<String> {
    // What an SDK threw mid-stream (its error event never reaches `push`): no event.
    if !plain && (v.is_instance_of::<js_sys::Error>() || (class_name(v).is_some_and(|c| c.ends_with("Error")) && get_loose(v, "stack").is_string())) {
        let name = class_name(v).unwrap_or_else(|| "Error".owned());
        return Some(format!(
            "stream event is an Error ({name}), thrown by the SDK, not an event: the stream ended there; call finish() for the calls read before it (one cut short comes with INVALID_ARGUMENTS)"
        ));
    }
    // Their own fields only, which an SDK's result has: a getter of an event's class is not read
    // (@google/genai's `GenerateContentResponse.data` warns on the console each time it is).
    let mut response = JsValue::UNDEFINED;
    for key in ["stream", "body", "data", "response"] {
        if caught::own_descriptor(v, &JsValue::from_str(key)).map_or(true, |d| d.is_undefined()) {
            response = JsValue::UNDEFINED;
            continue;
        }
        let field = get_loose(v, key);
        if field.is_object() && (is_stream(&field) || get_loose(&field, "then").is_function()) {
            return Some(format!(
                "stream event is an SDK's result, not one of the stream's events: push each event of its {key} (for await (const event of result.{key}) acc.push(event))"
            ));
        }
        // The last one read: `response`, which is read once.
        response = field;
    }
    let alone = || caught::keys(v).is_ok_and(|k| k.length() == 1);
    (response.is_object() && get(v, "type").is_undefined() && alone())
        .then(|| "stream event is an SDK's result holding the response in its response (@google/generative-ai's generateContent()): push result.response".owned())
}

/// [`refuse_lossy`] for an options object and the values of its own keys (but `skip`, read
/// apart): a Map given where an object is expected, a number JSON cannot hold (`NaN`,
/// `Infinity`), and an object whose values are getters of its class, which JSON does not see.
/// Anything but an object, `undefined` or `null` is refused too: options given as a string
/// (`"sse"`) or an array would otherwise be read as no options.
pub(crate) fn refuse_lossy_options(v: &JsValue, what: &str, skip: &[&str]) -> Result<()> {
    refuse_lossy_values(v, what, skip, None, None)
}

/// [`refuse_lossy_options`] for options whose unknown keys are refused by a key check after
/// (the MCP client's and its calls'): the values of keys not among `keys` are not looked at, so
/// that a typo or the MCP SDK's name given `Infinity` (`timeotMs`, `maxTotalTimeout`) is named
/// by that check ("did you mean timeoutMs?"), not told to be a finite number.
#[cfg(feature = "client")]
pub(crate) fn refuse_lossy_options_of(v: &JsValue, what: &str, skip: &[&str], keys: &[&str]) -> Result<()> {
    refuse_lossy_values(v, what, skip, None, Some(keys))
}

/// [`refuse_lossy_options`] for options whose unknown keys are ignored (the conversion's,
/// the results', `limits`): only the values of `known` keys (and of `limits`' own) are looked
/// at, so that a key of a newer version, `Infinity` or a Map, is ignored as its key is (a typo of
/// a known key is named by the key check after).
pub(crate) fn refuse_lossy_known(v: &JsValue, what: &str, skip: &[&str], known: Option<&[&str]>) -> Result<()> {
    refuse_lossy_values(v, what, skip, known, None)
}

/// [`refuse_lossy_known`], and with `keys` the values of only those keys looked at (as with
/// `known`, but any value a key takes, a function or a class instance, is let through).
fn refuse_lossy_values(v: &JsValue, what: &str, skip: &[&str], known: Option<&[&str]>, keys: Option<&[&str]>) -> Result<()> {
    if v.is_undefined() || v.is_null() {
        return Ok(());
    }
    refuse_lossy(v, what)?;
    // A revoked Proxy too (whose keys cannot be read: it would be read as no options).
    let array = array_test(v);
    if !v.is_object() || v.is_function() || !matches!(array, Ok(false)) {
        // An array as the JSON readers name it, for the same message from options given as text.
        let got = if matches!(array, Ok(true)) { "array".owned() } else { describe_js(v) };
        return Err(Error::new(code_for(what), format!("{what} must be an object, got {got}")));
    }
    let bad = |m: String| Error::new(code_for(what), m);
    refuse_unseen(v, what).map_err(bad)?;
    // A getter that throws: JSON.stringify meets it too, and says so (INVALID_JSON).
    let Ok(entries) = entries_of(v) else { return Ok(()) };
    for entry in entries.iter() {
        let (key, value) = entry_pair(&entry);
        let key = key.as_string().unwrap_or_default();
        if skip.contains(&key.as_str()) || [known, keys].iter().flatten().any(|keys| !keys.contains(&key.as_str())) {
            continue;
        }
        let at = format!("{what}.{key}");
        refuse_non_finite(&value, &at).map_err(bad)?;
        // Every known key of these options takes data: a function there is a mistake.
        if known.is_some() {
            refuse_left_out(&value, &at).map_err(bad)?;
        }
        refuse_lossy(&value, &at)?;
        // One level further: `limits`, `clientInfo`, `policy`, read as the options are (a limit
        // inherited from a prototype or a getter would be no limit at all). A class instance
        // only where every key looked at takes data (`known`): elsewhere it may be what its key
        // takes (an AbortSignal), or the value of an unknown key, which the key check names after.
        if value.is_object() && !value.is_function() && !is_array(&value) && (known.is_some() || class_name(&value).is_none()) {
            refuse_unseen(&value, &at).map_err(bad)?;
            let Ok(inner) = entries_of(&value) else { continue };
            let inner_known = known.map(|_| if key == "limits" { &crate::convert::LIMIT_KEYS[..] } else { &[][..] });
            for entry in inner.iter() {
                let (k, x) = entry_pair(&entry);
                let k = k.as_string().unwrap_or_default();
                if inner_known.is_some_and(|known| !known.contains(&k.as_str())) {
                    continue;
                }
                let inner_at = format!("{at}.{k}");
                refuse_non_finite(&x, &inner_at).map_err(bad)?;
                if inner_known.is_some() {
                    refuse_left_out(&x, &inner_at).map_err(bad)?;
                }
                refuse_lossy(&x, &inner_at)?;
            }
        }
    }
    Ok(())
}

thread_local! {
    /// `Object.prototype`, which a plain object's prototype is.
    static OBJECT_PROTOTYPE: JsValue = js_sys::Object::get_prototype_of(&js_sys::Object::new()).into();
    /// The keys [`flat_options_text`] wants no plain object to inherit.
    static UNINHERITED: [JsValue; 5] =
        [JsValue::from_str("then"), JsValue::from_str("getReader"), JsValue::from_str("toJSON"), JsValue::from_str("server"), js_sys::Symbol::async_iterator().into()];
}

/// `JSON.stringify(v)` for options that every check of [`refuse_lossy_known`] and
/// [`refuse_lone_surrogate_server`] would pass: a plain object (of `Object.prototype`, no
/// typed array, no own `toJSON`) whose own keys are all enumerable strings, each with a
/// string (without a lone surrogate), a boolean or a finite number, while `Object.prototype`
/// has none of `then`, `getReader`, `toJSON`, `server` and `Symbol.asyncIterator` (which the
/// checks would read through it). Those checks read the options through some ninety crossings
/// into JS, 40 µs a call: these take a dozen and two a key, one of them a `Reflect.get`. `None` for
/// anything else, which the checks then read as before.
pub(crate) fn flat_options_text(v: &JsValue) -> Option<String> {
    if !v.is_object() || v.is_function() || js_sys::ArrayBuffer::is_view(v) {
        return None;
    }
    let proto = prototype_of(v).ok()?;
    let plain = OBJECT_PROTOTYPE.with(|top| proto == *top && UNINHERITED.with(|keys| !keys.iter().any(|k| has_own(top, k))));
    // An own `toJSON` would write other keys than the object's, which the checks read.
    if !plain || UNINHERITED.with(|keys| caught::get_some(v, &keys[2])).ok()?.is_some() {
        return None;
    }
    let own = caught::own_keys(v).ok()?.length();
    // Each value read once (a getter's too), and only a primitive one let through: an object
    // value that JSON writes as a string (a URL, a `new String`, anything with a `toJSON`) is
    // one the checks refuse. What is written is a copy of those values.
    let entries = caught::entries(v).ok()?;
    let flat = entries.flat(1);
    if !(0..entries.length()).all(|i| {
        let value = flat.get(2 * i + 1);
        value.is_string() || value.as_bool().is_some() || value.as_f64().is_some()
    }) {
        return None;
    }
    let copy = caught::from_entries(&entries).ok()?;
    let text = caught::stringify(&copy).ok()??;
    let text = string_text(&text, "options").ok()?;
    // A key JSON left out (a value `undefined`, a function, a symbol: an own `then` among
    // them), a key not enumerable, a symbol key: the checks read those.
    (flat_object_keys(&text)? == own).then_some(text)
}

/// The number of keys of compact JSON text of one object whose values are strings, booleans
/// and numbers, as `JSON.stringify` writes it; `None` for any other text (`null`, a nested
/// value, an escape `\u`: a lone surrogate, a control character).
fn flat_object_keys(text: &str) -> Option<u32> {
    let b = text.as_bytes();
    if b.first() != Some(&b'{') {
        return None;
    }
    if b.get(1) == Some(&b'}') {
        return (b.len() == 2).then_some(0);
    }
    // The string at `*i` (its opening quote): `*i` moved past it.
    let string = |i: &mut usize| -> Option<()> {
        if b.get(*i) != Some(&b'"') {
            return None;
        }
        let mut j = *i + 1;
        loop {
            match *b.get(j)? {
                b'"' => break,
                b'\\' if *b.get(j + 1)? == b'u' => return None,
                b'\\' => j += 2,
                _ => j += 1,
            }
        }
        *i = j + 1;
        Some(())
    };
    let (mut i, mut keys) = (1, 0);
    loop {
        string(&mut i)?;
        if b.get(i) != Some(&b':') {
            return None;
        }
        i += 1;
        match *b.get(i)? {
            b'"' => {
                string(&mut i)?;
            }
            b't' if b[i..].starts_with(b"true") => i += 4,
            b'f' if b[i..].starts_with(b"false") => i += 5,
            b'-' | b'0'..=b'9' => {
                while matches!(b.get(i), Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')) {
                    i += 1;
                }
            }
            _ => return None,
        }
        keys += 1;
        match *b.get(i)? {
            b',' => i += 1,
            b'}' => return (i + 1 == b.len()).then_some(keys),
            _ => return None,
        }
    }
}

/// Whether `v` is `{}`: a plain object (of `Object.prototype`) without own names.
pub(crate) fn is_empty_plain_object(v: &JsValue) -> bool {
    let plain = prototype_of(v).is_ok_and(|p| p == JsValue::from(js_sys::Object::get_prototype_of(&js_sys::Object::new())));
    plain && own_names(v).is_ok_and(|a| a.length() == 0)
}

/// The message for an options object (`what`) whose values JSON does not see, so that they would
/// be read as not given: getters of its class (not of Object.prototype), and values inherited
/// from a prototype made with `Object.create`. The options object and the objects in it are held
/// to it alike.
fn refuse_unseen(v: &JsValue, what: &str) -> std::result::Result<(), String> {
    let top = JsValue::from(js_sys::Object::get_prototype_of(&js_sys::Object::new()));
    let class = class_name(v);
    // One walk of the prototype chain (not past 64 levels: a Proxy may make a new prototype each
    // time): a class's getters (not Object.prototype's), which `JSON.stringify` skips, and values
    // inherited from a prototype made with Object.create (or set on a class's), at any depth;
    // methods (an ES5 class's, enumerable) are no values.
    // Own values that are not enumerable (`Object.defineProperty` without `enumerable: true`):
    // read by neither JSON nor `Object.entries`. Only looked into when the object has such names.
    let names = own_names(v).map(|a| a.to_vec()).unwrap_or_default();
    if names.len() != keys_of(v).map(|a| a.length() as usize).unwrap_or(names.len()) {
        // Not a key `__…`, which is no option's: a framework's marker (Vue's `markRaw` sets a
        // hidden `__v_skip`), the pointer of an object of the module (`__wbg_ptr`).
        let hidden: Vec<String> = names
            .iter()
            .filter_map(|name| {
                let key = name.as_string().filter(|k| !k.starts_with("__"))?;
                let d = own_descriptor(v, name).unwrap_or(JsValue::UNDEFINED);
                let value = d.is_object() && get(&d, "enumerable").is_falsy() && (get(&d, "get").is_function() || !get(&d, "value").is_function());
                value.then(|| format!("{what}.{key}"))
            })
            .collect();
        if !hidden.is_empty() {
            return Err(format!(
                "{} {} not enumerable, which JSON does not see: pass a plain object with the values",
                hidden.join(", "),
                if hidden.len() == 1 { "is" } else { "are" }
            ));
        }
    }
    let (mut getters, mut inherited) = (Vec::new(), Vec::new());
    let mut proto = prototype_of(v).unwrap_or(JsValue::NULL);
    for _ in 0..64 {
        if !proto.is_object() || proto == top {
            break;
        }
        if class.is_some() {
            for name in own_names(&proto).map(|a| a.to_vec()).unwrap_or_default() {
                let d = own_descriptor(&proto, &name).unwrap_or(JsValue::UNDEFINED);
                if d.is_object() && get(&d, "get").is_function() {
                    getters.push(name.as_string().unwrap_or_default());
                }
            }
        }
        let values = entries_of(&proto).map(|a| a.iter().map(|e| entry_pair(&e)).filter(|(_, x)| !x.is_function()).filter_map(|(k, _)| k.as_string()).collect::<Vec<_>>());
        inherited.extend(values.unwrap_or_default());
        proto = prototype_of(&proto).unwrap_or(JsValue::NULL);
    }
    if let (Some(class), false) = (class, getters.is_empty()) {
        return Err(format!(
            "{what} is an instance of {class} whose {} {} JSON does not see: pass a plain object with the values",
            getters.join(", "),
            if getters.len() == 1 { "is a getter" } else { "are getters" }
        ));
    }
    if !inherited.is_empty() {
        return Err(format!("{what} inherits {} from its prototype, which JSON does not see: pass a plain object with the values ({{...defaults, ...own}})", inherited.join(", ")));
    }
    Ok(())
}

/// The message for a number JSON cannot hold (`NaN`, `Infinity`, boxed or not), which it would
/// make `null`.
fn refuse_non_finite(v: &JsValue, at: &str) -> std::result::Result<(), String> {
    // A boxed Number (`new Number(Infinity)`) is the number JSON writes for it.
    match js_number(v).filter(|n| !n.is_finite()) {
        None => Ok(()),
        Some(n) => {
            let n = if n.is_nan() { "NaN" } else if n > 0.0 { "Infinity" } else { "-Infinity" };
            // A limit of the conversion says what it takes: none is lifted by Infinity.
            if let Some(key) = at.strip_prefix("options.limits.").filter(|k| crate::convert::LIMIT_KEYS.contains(k)) {
                return Err(format!("{at} must be {}, got {n}", crate::convert::limit_range(key)));
            }
            Err(format!("{at} must be a finite number, got {n} (which JSON would make null)"))
        }
    }
}

/// The message for a value `JSON.stringify` leaves out of an object (a function, a symbol), so
/// that the option would be read as not given: a getter passed uncalled (`deny: denyList`).
pub(crate) fn refuse_left_out(v: &JsValue, at: &str) -> std::result::Result<(), String> {
    if !v.is_function() && !v.is_symbol() {
        return Ok(());
    }
    Err(format!("{at} must be a JSON value, got {} (which JSON would leave out, as if {at} were not given)", describe_js(v)))
}

/// A JS value (not `undefined` or `null`) as JSON text, by `JSON.stringify`.
pub(crate) fn json_text(v: &JsValue, what: &str) -> Result<String> {
    json_text_of(v, what, false)
}

/// [`json_text`] for a value [`js_bytes`] has turned down: not tested for bytes again.
pub(crate) fn json_text_not_bytes(v: &JsValue, what: &str) -> Result<String> {
    json_text_of(v, what, true)
}

fn json_text_of(v: &JsValue, what: &str, not_bytes: bool) -> Result<String> {
    refuse_lossy_of(v, what, not_bytes)?;
    let text = caught::stringify(v).map_err(|e| {
        // What was thrown (a `toJSON` may throw anything, `null` too): its fields read only
        // where it has them.
        let field = |k: &str| e.is_object().then(|| caught::get(&e, &JsValue::from_str(k)).ok()).flatten().and_then(|v| v.as_string());
        // What gives no words (`null`, a number, `new Error()`) is named, so the message never ends on nothing.
        let reason = field("message").or_else(|| e.as_string()).filter(|r| !r.is_empty()).unwrap_or_else(|| format!("a toJSON or a getter threw {}", describe_js(&e)));
        // A RangeError is the engine's stack, overflowed by nesting, or a string past the
        // engine's longest (a cycle or a BigInt is a TypeError).
        // A method of a toolwire object called from a getter of the same object's argument: the
        // guard's own INVALID_INPUT, which says what happened, as it is.
        if field("name").as_deref() == Some("ToolwireError") && field("code").as_deref() == Some("INVALID_INPUT") {
            return Error::new(ErrorCode::InvalidInput, reason);
        }
        let code = if field("name").as_deref() == Some("RangeError") { ErrorCode::LimitExceeded } else { ErrorCode::InvalidJson };
        let why = match code {
            ErrorCode::LimitExceeded if reason.contains("call stack") => format!("{reason}: it nests too deep"),
            ErrorCode::LimitExceeded if reason.contains("string length") => format!("{reason}: its JSON is longer than a JS string can be"),
            _ => reason,
        };
        Error::new(code, format!("{what} cannot be represented as JSON: {why}"))
    })?;
    let Some(text) = text else {
        // Functions and symbols stringify to undefined.
        return Err(Error::new(ErrorCode::InvalidInput, format!("{what} is not a JSON value")));
    };
    string_text(&text, what)
}

/// Parses JSON text with a typed error. JS strings may hold lone surrogates, which
/// `JSON.stringify` writes as `\udXXX` escapes that no UTF-8 string can hold: those become
/// U+FFFD instead of failing the whole input.
pub(crate) fn parse(text: &str, what: &str) -> Result<Value> {
    use crate::model::{read_json, ReadError};
    // A byte order mark (as editors on Windows save JSON) is no part of the JSON.
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
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

/// A JSON value as a plain JS value (via `JSON.parse`, so keys are own data properties). Its text
/// is written into a buffer sized for it ([`crate::text::to_string_sized`]): an MCP result of
/// megabytes does not grow the module's memory by twice its size on its way out.
pub(crate) fn to_js(v: &Value) -> Result<JsValue> {
    parse_js(crate::text::to_string_sized(v))
}

/// JSON text (toolwire's own output) as a plain JS value, by one `JSON.parse`. The text crosses
/// in ASCII ([`crate::text::ascii_only`]), which the engine turns into a string far faster.
pub(crate) fn parse_js(text: String) -> Result<JsValue> {
    caught::parse(&crate::text::ascii_only(text))
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
/// A byte order mark at the start (as editors on Windows save JSON) is left out: JSON has none.
pub(crate) fn text_or_bytes_param(v: &JsValue, what: &str) -> Result<(String, bool)> {
    // Bytes compared, not `str::starts_with(char)`, which encodes the character first.
    let unmarked = |s: String| if s.as_bytes().starts_with("\u{FEFF}".as_bytes()) { unmark(s) } else { s };
    if let Some(s) = v.dyn_ref::<js_sys::JsString>() {
        return Ok((unmarked(json_string_text(s, what)?), false));
    }
    if is_uint8array(v) {
        return Ok((unmarked(bytes_text(v, what)?), true));
    }
    Err(not_text_or_bytes(v, what))
}

/// `s` without the byte order mark it starts with ([`text_or_bytes_param`]).
#[cold]
#[inline(never)]
fn unmark(mut s: String) -> String {
    s.drain(..'\u{FEFF}'.len_utf8());
    s
}

/// [`text_or_bytes_param`]'s error for a value that is neither.
#[cold]
#[inline(never)]
fn not_text_or_bytes(v: &JsValue, what: &str) -> Error {
    let t = v.js_typeof().as_string().unwrap_or_default();
    Error::new(
        ErrorCode::InvalidInput,
        format!("{what} must be a string or a Uint8Array, got {}", if v.is_null() { "null".owned() } else { t }),
    )
}

/// A JS string of JSON text (or of a stream with JSON in it) as UTF-8, a lone UTF-16 surrogate
/// in it (which UTF-8 cannot hold) written as its JSON escape (`\ud83d`), as `JSON.stringify`
/// writes one: JSON readers then take it as they take escaped text (a name that holds one
/// refused, a pair split between two pieces of a stream joined) instead of meeting a U+FFFD
/// put in silently. One right after a backslash that escapes it is left as it is, for the JSON
/// reader to refuse (`"C:\` then a half is no JSON, as `JSON.parse` says). Text that reads
/// without U+FFFD is not looked at again.
pub(crate) fn json_string_text(s: &js_sys::JsString, what: &str) -> Result<String> {
    let text = string_text(s, what)?;
    // As many bytes as UTF-16 units: all ASCII, no U+FFFD (most JSON, looked at no further).
    if text.len() == s.length() as usize || !text.contains('\u{FFFD}') {
        return Ok(text);
    }
    escaped_lone_surrogates(s, what).map_or(Ok(text), |escaped| escaped)
}

/// [`json_string_text`]'s second reading, of `s` with its lone surrogates escaped (`None` when
/// it has none: its U+FFFD were sent so).
#[inline(never)]
fn escaped_lone_surrogates(s: &js_sys::JsString, what: &str) -> Option<Result<String>> {
    // A pair, kept as it is, or a lone half (no `u` flag: the pattern sees UTF-16 units).
    let pattern = js_sys::RegExp::new("[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]|[\\uD800-\\uDFFF]", "g");
    let found = std::rc::Rc::new(std::cell::Cell::new(false));
    let seen = found.clone();
    let escape = Closure::<dyn FnMut(js_sys::JsString, u32, js_sys::JsString) -> js_sys::JsString>::new(move |m: js_sys::JsString, at: u32, s: js_sys::JsString| {
        if m.length() == 2 {
            return m;
        }
        // After a backslash that escapes it (`"C:\` then the half), as an escape it would make
        // `\\ud800`, valid JSON for text that was never there: left as it is, it reads as the
        // invalid escape it is (the runs of backslashes before halves are apart: each is counted
        // once).
        let backslashes = (0..at).rev().take_while(|&i| s.char_code_at(i) == f64::from(b'\\')).count();
        if backslashes % 2 == 1 {
            return m;
        }
        seen.set(true);
        js_sys::JsString::from(format!("\\u{:04x}", m.char_code_at(0) as u32))
    });
    let escaped = s.replace_by_pattern_with_function(&pattern, escape.as_ref().unchecked_ref());
    drop(escape);
    found.get().then(|| string_text(&escaped, what))
}

/// UTF-8 bytes as text, for [`text_or_bytes_param`] (a function of its own: a call with a
/// string does not compile it).
#[inline(never)]
fn bytes_text(bytes: &JsValue, what: &str) -> Result<String> {
    let buf = js_bytes(bytes, what).unwrap_or_else(|| Ok(Vec::new()))?;
    String::from_utf8(buf)
        .map_err(|e| Error::new(ErrorCode::InvalidJson, format!("{what} is not UTF-8 (invalid byte at {})", e.utf8_error().valid_up_to())))
}

/// A required string parameter. An object given in its place (a tool call, a name map: an
/// argument order or call style mistaken) is named, with the string meant where it shows.
pub(crate) fn string_param(v: &JsValue, what: &str) -> Result<String> {
    v.as_string().ok_or_else(|| not_a_string(v, what))
}

/// [`string_param`]'s error (a function of its own: a call given a string does not compile it).
#[cold]
#[inline(never)]
fn not_a_string(v: &JsValue, what: &str) -> Error {
    let mut m = format!("{what} must be a string, got {}", describe_js(v));
    if v.is_object() {
        if get(v, "providerName").is_string() {
            m.push_str(": a parsed tool call? pass call.providerName (and call.arguments)");
        } else if let Some(name) = get(v, "name").as_string().filter(|_| what == "name") {
            m.push_str(&format!(": the MCP SDK's callTool({{name, arguments}})? toolwire's is callTool(name, args), here callTool({}, ...)", crate::text::quote(&name)));
        } else if what == "provider" {
            m.push_str(": the arguments' order? convertMcpTools(tools, provider), parseToolCalls(response, provider, nameMap), toolResultMessage(call, result, provider)");
        }
    }
    Error::new(ErrorCode::InvalidInput, m)
}

/// [`string_param`] for a name (a tool's, a server's, a policy's pattern): a lone UTF-16
/// surrogate, which would come across as U+FFFD (and so make two names one), is
/// `INVALID_INPUT`, where other text takes U+FFFD in its place.
pub(crate) fn name_param(v: &JsValue, what: &str) -> Result<String> {
    if holds_lone_surrogate(v) {
        return Err(Error::new(ErrorCode::InvalidInput, lone_surrogate_name(what)));
    }
    string_param(v, what)
}

/// The options' `server` (a name every tool takes, see [`name_param`]): one holding a lone UTF-16
/// surrogate is `INVALID_OPTIONS`.
pub(crate) fn refuse_lone_surrogate_server(options: &JsValue) -> Result<()> {
    if !options.is_object() {
        return Ok(());
    }
    if holds_lone_surrogate(&get(options, "server")) {
        return Err(Error::new(ErrorCode::InvalidOptions, lone_surrogate_name("options.server")));
    }
    Ok(())
}

thread_local! {
    /// The builtins' `ArrayBuffer.prototype.byteLength`, `SharedArrayBuffer.prototype.byteLength`
    /// and `%TypedArray%.prototype[Symbol.toStringTag]` getters (`None` where the runtime has no
    /// such class). They look at a value's internals, so they answer alike for a value of any
    /// realm (a `node:vm` context's, an iframe's, a Jest or vitest environment's, for which
    /// `instanceof` is false), and not for a Proxy of one.
    static BRAND_GETTERS: [Option<js_sys::Function>; 3] = {
        let getter = |proto: JsValue, key: &JsValue| {
            own_descriptor(&proto, key).ok().map(|d| get(&d, "get")).and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        };
        let proto = |name: &str| get(&get(&js_sys::global(), name), "prototype");
        // A browser page without cross-origin isolation has no `SharedArrayBuffer` global, yet
        // Chromium gives one as a shared `WebAssembly.Memory`'s buffer: its prototype is taken
        // from such a buffer (none where shared memory is refused: then no such buffer exists).
        let shared_proto = || {
            let global = proto("SharedArrayBuffer");
            if global.is_object() {
                return global;
            }
            let descriptor = caught::parse(r#"{"initial":0,"maximum":0,"shared":true}"#).unwrap_or(JsValue::NULL);
            js_sys::WebAssembly::Memory::new(descriptor.unchecked_ref()).map_or(JsValue::NULL, |m| prototype_of(&m.buffer()).unwrap_or(JsValue::NULL))
        };
        let byte_length = JsValue::from_str("byteLength");
        [
            getter(proto("ArrayBuffer"), &byte_length),
            getter(shared_proto(), &byte_length),
            getter(prototype_of(&proto("Uint8Array")).unwrap_or(JsValue::NULL), &js_sys::Symbol::to_string_tag()),
        ]
    };
}

/// Whether `v` is an `ArrayBuffer` or a `SharedArrayBuffer`, of any realm ([`BRAND_GETTERS`]).
/// The getters throw for anything else, and every stream event passes here: they are asked
/// only about a value whose `Symbol.toStringTag` names one of the two (a plain object or an
/// array has none), so plain data costs no exception. The tag only picks the candidates: it
/// can be set on any object, and the getters decide.
fn is_buffer(v: &JsValue) -> bool {
    if !v.is_object() {
        return false;
    }
    let tag = caught::get_some(v, &js_sys::Symbol::to_string_tag()).ok().flatten().and_then(|t| t.as_string());
    // The getter the tag names first: a `SharedArrayBuffer` tagged as one costs no exception.
    let order = match tag.as_deref() {
        Some("ArrayBuffer") => [0, 1],
        Some("SharedArrayBuffer") => [1, 0],
        _ => return false,
    };
    BRAND_GETTERS.with(|g| order.iter().filter_map(|&i| g[i].as_ref()).any(|f| caught::call0(f, v).is_ok()))
}

/// Whether `v` is a `Uint8Array` (a Node `Buffer` is one) of this realm or another
/// ([`BRAND_GETTERS`]), or what passes for one here (a Proxy of one, which reading then refuses).
pub(crate) fn is_uint8array(v: &JsValue) -> bool {
    v.is_instance_of::<js_sys::Uint8Array>()
        || (v.is_object() && BRAND_GETTERS.with(|g| g[2].as_ref().and_then(|f| caught::call0(f, v).ok()).and_then(|n| n.as_string()).as_deref() == Some("Uint8Array")))
}

/// The bytes of a `Uint8Array`, an `ArrayBuffer`, a `SharedArrayBuffer` or another view of one
/// (a `DataView`), of any realm; `None` for anything else. Bytes that cannot be read are an
/// `INVALID_INPUT` error naming `what`: a detached buffer, a Proxy of a `Uint8Array` or an
/// `ArrayBuffer` (which has none of their internals), a view whose `byteOffset` or `byteLength`
/// lies past its buffer.
/// Bytes the module's memory cannot take in are `LIMIT_EXCEEDED`.
pub(crate) fn js_bytes(v: &JsValue, what: &str) -> Option<Result<Vec<u8>>> {
    if v.is_instance_of::<js_sys::Uint8Array>() {
        // A Proxy of one too: its `length` (the prototype's getter) throws, or what it answers
        // is read as an array-like's.
        return Some(copied(v.unchecked_ref(), what));
    }
    let unreadable = |e: JsValue| unreadable_bytes(&e, what);
    // `ArrayBuffer.isView` looks at the value's internals (never throws, false for a Proxy).
    let view = if js_sys::ArrayBuffer::is_view(v) {
        new_bytes(&caught::list(&[&get(v, "buffer"), &get(v, "byteOffset"), &get(v, "byteLength")]))
    } else if v.is_instance_of::<js_sys::ArrayBuffer>() || v.is_instance_of::<js_sys::SharedArrayBuffer>() || is_buffer(v) {
        // A Proxy of one would be read as an empty array-like: its `byteLength` (the
        // prototype's getter, which fails on a Proxy) must be what was read.
        match new_bytes(&caught::list(&[v])) {
            Ok(b) if b.length().ok() == caught::get_some(v, &JsValue::from_str("byteLength")).ok().flatten().and_then(|n| n.as_f64()) => Ok(b),
            Ok(_) => Err(JsValue::from_str("it is no ArrayBuffer itself (a Proxy of one?)")),
            Err(e) => Err(e),
        }
    } else {
        return None;
    };
    Some(view.map_err(unreadable).and_then(|view| copied(&view, what)))
}

/// `new Uint8Array(...args)`, or what it threw.
fn new_bytes(args: &js_sys::Array) -> std::result::Result<Bytes, JsValue> {
    UINT8_ARRAY.with(|ctor| crate::wasm::caught::construct(ctor, args)).map(wasm_bindgen::JsCast::unchecked_into)
}

/// A copy of a view's bytes. The vector is zeroed first: a `length` that says more than the
/// view holds (an own property set on it, a Proxy's answer) leaves zeros, never memory unwritten.
fn copied(view: &Bytes, what: &str) -> Result<Vec<u8>> {
    let n = view.length().map_err(|e| unreadable_bytes(&e, what))?;
    let n = if (0.0..=u32::MAX as f64).contains(&n) { n as usize } else { 0 };
    let mut buf: Vec<u8> = Vec::new();
    buf.try_reserve_exact(n).map_err(|_| too_big(what, n))?;
    // SAFETY: the vector has room for `n` bytes, all zeroed here (one `memory.fill`, where
    // `resize` wrote them one at a time: 2% to 4% of a conversion of bytes).
    unsafe {
        buf.as_mut_ptr().write_bytes(0, n);
        buf.set_len(n);
    }
    copy_bytes(&mut buf, view).map_err(|e| unreadable_bytes(&e, what))?;
    Ok(buf)
}

/// The error for bytes that cannot be read, with what was thrown reading them.
fn unreadable_bytes(e: &JsValue, what: &str) -> Error {
    Error::new(ErrorCode::InvalidInput, format!("{what} is bytes that cannot be read: {}", crate::wasm::bridge::describe(e)))
}

/// Whether `v` is a string holding a lone UTF-16 surrogate (which `as_string` reads as U+FFFD).
pub(crate) fn holds_lone_surrogate(v: &JsValue) -> bool {
    v.is_string() && !wasm_bindgen::JsCast::unchecked_ref::<js_sys::JsString>(v).is_valid_utf16()
}

/// The message of a name holding a lone surrogate.
pub(crate) fn lone_surrogate_name(what: &str) -> String {
    format!("{what} holds a lone UTF-16 surrogate (half of a character, as text cut inside an emoji leaves it), which no name can hold: read as U+FFFD it would be another name")
}

/// An optional name parameter (`undefined`/`null` → `None`; see [`name_param`]).
pub(crate) fn opt_name_param(v: &JsValue, what: &str) -> Result<Option<String>> {
    if v.is_undefined() || v.is_null() {
        Ok(None)
    } else {
        name_param(v, what).map(Some)
    }
}
