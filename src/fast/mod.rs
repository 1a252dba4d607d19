//! The pass-through path of `convertMcpToolsJson`: schemas that a provider takes as they are
//! go from the input text to the output text through a light borrowed tree, never through the
//! general path's [`Value`] tree and its passes.
//!
//! Most MCP tools need no change for OpenAI (Chat and Responses, non-strict), Anthropic
//! (non-strict) and Bedrock beyond the `properties: {}` that every object node without one gets:
//! 1,263 of the corpus's 1,265 tools (1,210 for Gemini's `parametersJsonSchema`). For those the
//! cost of the general path is almost all in the tree itself (an owned string for every key and
//! value, a hash for every key, a walk per rule). This module reads the input into a [`Node`]
//! tree (strings borrowed from the input, objects as plain slices of an arena), and decides per tool with
//! `is_clean` whether the general path would return its schema unchanged, but for that silent
//! `properties: {}`, with nothing to report. A clean schema is written straight from the
//! [`Node`] (`Node::write_schema`); any other is turned into a [`Value`] (no second parse) and
//! goes the general way, tool by tool.
//!
//! `is_clean` is deliberately narrower than the general path: it accepts only schemas on
//! which every rule of [`crate::schema::process_json_schema`] and
//! [`crate::providers::fix_structure`] is a no-op or that silent addition, and anything unusual
//! (duplicate keys, a `null` type, limits nearly reached) goes the general way. The output is
//! byte for byte the general path's (same parser, same number and string writer):
//! `tests/corpus.rs`, `tests/properties.rs` and the `schema_convert` fuzz target check it.
//!
//! Gemini's `parameters` and the strict modes of OpenAI and Anthropic rewrite every schema, but
//! for most of them only node by node: `gemini` and `strict` do those rewrites on the [`Node`]
//! tree, for conversions without a change log. `refs` inlines references on the tree as the
//! general path inlines them, for both Gemini schema fields and the strict modes; a schema with
//! a recursive `$ref` cannot be strict, and `recursion` gives the strict inlining the budget of
//! the non-strict form, so that the ones it gives up on are sent as they are. `read` is the
//! reader of the tree, and the tree lives in an arena ([`Bump`]) that is freed when the
//! conversion is written.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::mem::ManuallyDrop;
use std::ops::Deref;

use bumpalo::Bump;
use serde_json::{Number, Value};

use crate::args::ArgPlan;
use crate::convert::Head;
use crate::model::{string, JsonSize, NameSet};
use crate::naming::{NameMap, NamingOptions};
use crate::report::Diagnostic;
use crate::providers::{GeminiMode, Provider, SchemaOptions};
use crate::schema::domain::{self, Domain, Word};
use crate::schema::refs::Shared;
use crate::schema::walk::{head, head_of, keyword, rest_equal, value_rule, Keyword, ValueRule, ITEMS, PROPERTIES_HEAD};
use crate::schema::Limits;
use crate::text::{self, Owned as _};

mod gemini;
mod read;
mod recursion;
mod refs;
mod strict;

use refs::StrictInlining;

/// A borrowed JSON tree: strings point into the input unless they hold escapes, containers
/// are slices of an arena ([`Bump`]) that the conversion drops at its end all at once, so that
/// no node is ever freed by itself.
#[derive(Debug, Clone, Copy)]
pub enum Node<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, read as the general path reads it (in the arena, or in the `Value` the tree
    /// is laid over: a node stays two words).
    Num(&'a Number),
    /// A string.
    Str(Text<'a>),
    /// An array.
    Arr(&'a [Node<'a>]),
    /// An object, keys in input order (unique, when `is_clean` has accepted it).
    Obj(&'a [(Text<'a>, Node<'a>)]),
}

// Nodes are moved and copied as they are read: in wasm a node is three words.
#[cfg(target_pointer_width = "32")]
const _: () = assert!(std::mem::size_of::<Node>() == 12);

/// A string of a [`Node`] tree: the input's own text between the quotes, which holds no
/// escape and is written back as it is, or unescaped text in the arena, written escaped.
#[derive(Clone, Copy)]
pub struct Text<'a> {
    s: &'a str,
    raw: bool,
}

impl<'a> Text<'a> {
    /// Text of the input that needs no escaping.
    pub(crate) const fn raw(s: &'a str) -> Self {
        Text { s, raw: true }
    }
    /// Unescaped text.
    fn unescaped(s: &'a str) -> Self {
        Text { s, raw: false }
    }
    /// The string, for as long as the tree.
    fn as_str(self) -> &'a str {
        self.s
    }
}

impl Deref for Text<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        self.s
    }
}

impl PartialEq<str> for Text<'_> {
    fn eq(&self, other: &str) -> bool {
        self.s == other
    }
}

impl PartialEq<&str> for Text<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.s == *other
    }
}

impl fmt::Debug for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        fmt::Debug::fmt(self.s, f)
    }
}

impl<'a> Node<'a> {
    fn get(&self, key: &str) -> Option<&Node<'a>> {
        match self {
            Node::Obj(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        #[cfg(test)]
        crate::model::NAME_STEPS.with(|s| s.set(s.get() + 1));
        match self {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The string, for as long as the tree (not borrowed from this node).
    pub(crate) fn text(self) -> Option<&'a str> {
        match self {
            Node::Str(s) => Some(s.as_str()),
            _ => None,
        }
    }

    fn as_number(&self) -> Option<&Number> {
        match self {
            Node::Num(n) => Some(n),
            _ => None,
        }
    }

    fn is_schema(&self) -> bool {
        matches!(self, Node::Obj(_) | Node::Bool(_))
    }

    /// A tree over `value`, its containers in `arena`. Its strings are borrowed from `value`,
    /// and those without a character to escape are marked raw, to be written as they are
    /// ([`write_str`]).
    pub(crate) fn of_value(value: &'a Value, arena: &'a Bump) -> Node<'a> {
        let text = |s: &'a str| if text::needs_escape(s) { Text::unescaped(s) } else { Text::raw(s) };
        match value {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(*b),
            Value::Number(n) => Node::Num(n),
            Value::String(s) => Node::Str(text(s)),
            Value::Array(items) => Node::Arr(arena.alloc_slice_fill_iter(items.iter().map(|v| Node::of_value(v, arena)))),
            Value::Object(o) => Node::Obj(arena.alloc_slice_fill_iter(o.iter().map(|(k, v)| (text(k), Node::of_value(v, arena))))),
        }
    }

    /// The [`Value`] serde_json would have read from the same text (the last of duplicate keys
    /// wins, at the first one's position).
    // By reference, though a node is `Copy`: it is mapped over slices of nodes.
    #[allow(clippy::wrong_self_convention)]
    fn to_value(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Num(n) => Value::Number((*n).clone()),
            Node::Str(s) => string(s.as_str()),
            Node::Arr(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            Node::Obj(entries) => Value::Object(entries.iter().map(|(k, v)| (k.as_str().owned(), v.to_value())).collect()),
        }
    }

    /// Writes compact JSON, as serde_json writes the equal [`Value`].
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Node::Null => out.extend_from_slice(b"null"),
            Node::Bool(true) => out.extend_from_slice(b"true"),
            Node::Bool(false) => out.extend_from_slice(b"false"),
            Node::Num(n) => text::write_number(out, n),
            Node::Str(s) => write_str(out, s),
            Node::Arr(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    item.write(out);
                }
                out.push(b']');
            }
            Node::Obj(entries) => {
                out.push(b'{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_str(out, k);
                    out.push(b':');
                    v.write(out);
                }
                out.push(b'}');
            }
        }
    }
}

impl Node<'_> {
    /// Writes a schema that [`is_clean`] accepted, as the general path writes it: the same
    /// JSON, plus the `properties: {}` that [`crate::schema::fix_properties_and_required`] adds
    /// (last, as a map insert does) to every object node without one. Subschemas are found as
    /// [`crate::schema::walk::for_each_subschema_mut`] finds them.
    pub(crate) fn write_schema(&self, out: &mut Vec<u8>) {
        self.write_spliced(out, &mut None);
    }

    /// Shared expansion `i` where its placeholder stands ([`Node::write_spliced`]): written the
    /// first time, its text copied in afterwards. A function of its own: writing a schema
    /// without placeholders does not compile it.
    #[inline(never)]
    fn write_expansion(i: usize, out: &mut Vec<u8>, splice: &mut Splice) {
        let Some((expansions, texts)) = splice.as_mut() else { return };
        if let Some(Some(text)) = texts.get(i) {
            return out.extend_from_slice(text);
        }
        let Some(expansion) = expansions.get(i) else { return };
        let start = out.len();
        expansion.write_spliced(out, splice);
        let text = out[start..].to_vec();
        if let Some((_, texts)) = splice.as_mut() {
            if texts.len() <= i {
                texts.resize_with(i + 1, || None);
            }
            texts[i] = Some(text);
        }
    }

    /// [`Node::write_schema`] of a tree whose shared expansions stand as placeholders (see
    /// [`refs`]): each written the first time it is met, its text copied in afterwards.
    fn write_spliced(&self, out: &mut Vec<u8>, splice: &mut Splice) {
        let Node::Obj(entries) = self else { return self.write(out) };
        if let (Some(_), [(key, Node::Str(value))]) = (splice.as_ref(), &entries[..]) {
            if let Some(i) = Shared::placeholder_entry(key, value) {
                return Self::write_expansion(i, out, splice);
            }
        }
        out.push(b'{');
        let (mut object, mut has_properties) = (false, false);
        for (i, (k, v)) in entries.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_str(out, k);
            out.push(b':');
            match (keyword(k), v) {
                (Keyword::Map, Node::Obj(map)) => {
                    has_properties |= k == "properties";
                    out.push(b'{');
                    for (j, (name, sub)) in map.iter().enumerate() {
                        if j > 0 {
                            out.push(b',');
                        }
                        write_str(out, name);
                        out.push(b':');
                        sub.write_spliced(out, splice);
                    }
                    out.push(b'}');
                }
                (Keyword::Array | Keyword::Items, Node::Arr(items)) => {
                    out.push(b'[');
                    for (j, sub) in items.iter().enumerate() {
                        if j > 0 {
                            out.push(b',');
                        }
                        sub.write_spliced(out, splice);
                    }
                    out.push(b']');
                }
                (Keyword::Single | Keyword::Items, sub) => sub.write_spliced(out, splice),
                (_, value) => {
                    // `type` is or lists "object" (crate::schema::lower::is_object_node).
                    if k == "type" {
                        object = match value {
                            Node::Str(t) => t == "object",
                            Node::Arr(ts) => ts.iter().any(|t| t.as_str() == Some("object")),
                            _ => false,
                        };
                    }
                    has_properties |= k == "properties";
                    value.write(out);
                }
            }
        }
        if object && !has_properties {
            if !entries.is_empty() {
                out.push(b',');
            }
            out.extend_from_slice(br#""properties":{}"#);
        }
        out.push(b'}');
    }
}

/// The shared expansions of a tree [`Node::write_spliced`] writes, and the text of each once
/// written.
type Splice<'n> = Option<(&'n [Node<'n>], Vec<Option<Vec<u8>>>)>;

/// A string as serde_json writes it. Raw text was read without unescaping, so it holds no
/// `"`, `\\` or control character (JSON text cannot hold them raw) and is copied as it is.
fn write_str(out: &mut Vec<u8>, s: &Text<'_>) {
    if s.raw {
        out.push(b'"');
        out.extend_from_slice(s.s.as_bytes());
        out.push(b'"');
    } else {
        text::write_str(out, s.s)
    }
}

impl<'a> Node<'a> {
    /// The figures of [`crate::model::json_size`], whether a `$ref` key appears anywhere (the
    /// general path inlines references for Gemini and the strict modes, which the lowerings here
    /// never do), and whether every object's keys are unique (the general path keeps the last
    /// of duplicate keys; written as is, all would stay).
    fn measure(&self, depth: usize, size: &mut JsonSize, refs: &mut bool) -> bool {
        size.nodes += 1;
        match self {
            Node::Obj(entries) => {
                size.depth = size.depth.max(depth + 1);
                let mut ok = keys_unique(entries);
                for (k, v) in entries.iter() {
                    size.longest_string = size.longest_string.max(k.len());
                    *refs |= k == "$ref";
                    ok &= v.measure(depth + 1, size, refs);
                }
                ok
            }
            Node::Arr(items) => {
                size.depth = size.depth.max(depth + 1);
                items.iter().fold(true, |ok, v| v.measure(depth + 1, size, refs) & ok)
            }
            Node::Str(s) => {
                size.longest_string = size.longest_string.max(s.len());
                true
            }
            _ => true,
        }
    }

    /// [`Node::measure`]'s count of values, and whether a `$ref` key appears.
    fn count(&self, refs: &mut bool) -> usize {
        match self {
            Node::Obj(entries) => {
                1 + entries.iter().map(|(k, v)| {
                    *refs |= k == "$ref";
                    v.count(refs)
                }).sum::<usize>()
            }
            Node::Arr(items) => 1 + items.iter().map(|v| v.count(refs)).sum::<usize>(),
            _ => 1,
        }
    }

    /// Whether a `$ref` key appears anywhere in the value (as [`Node::measure`] finds it).
    fn has_ref_key(&self) -> bool {
        match self {
            Node::Obj(entries) => entries.iter().any(|(k, v)| k == "$ref" || v.has_ref_key()),
            Node::Arr(items) => items.iter().any(Node::has_ref_key),
            _ => false,
        }
    }

    /// The value of the last entry named `key` (the one a parsed object keeps).
    fn last(entries: &'a [(Text<'a>, Node<'a>)], key: &str) -> Option<&'a Node<'a>> {
        entries.iter().rev().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
}

fn keys_unique(entries: &[(Text<'_>, Node<'_>)]) -> bool {
    if entries.len() <= 8 {
        // Length and first eight bytes first: most keys differ there, without a memcmp.
        let same = |a: &str, b: &str| a.len() == b.len() && head(a.as_bytes()) == head(b.as_bytes()) && a == b;
        return entries.iter().enumerate().all(|(i, (k, _))| !entries[..i].iter().any(|(other, _)| same(other, k)));
    }
    if entries.len() <= 64 {
        return keys_unique_hashed(entries);
    }
    keys_unique_table(entries)
}

/// [`keys_unique`] past 64 keys: the same probing in a table at most half full, on the heap.
/// (Sorting the keys instead brought in core's sort for `&str`, 6.6 KB of wasm.) Not inlined:
/// most objects have fewer keys, and a function is compiled on its first call.
#[inline(never)]
fn keys_unique_table(entries: &[(Text<'_>, Node<'_>)]) -> bool {
    let size = (entries.len() * 2).next_power_of_two();
    let shift = 64 - size.trailing_zeros();
    // A slot: 0, or the entry's index + 1 beside its key's hash.
    let mut slots = vec![(0u64, 0usize); size];
    for (i, (k, _)) in entries.iter().enumerate() {
        let h = key_hash(k.as_str().as_bytes());
        let mut at = (h >> shift) as usize;
        loop {
            let (hash, slot) = slots[at];
            if slot == 0 {
                slots[at] = (h, i + 1);
                break;
            }
            if hash == h && entries[slot - 1].0.as_str() == k.as_str() {
                return false;
            }
            at = (at + 1) & (size - 1);
        }
    }
    true
}

/// [`keys_unique`] for 9 to 64 keys: each key's hash in a table of 128 slots (at most half
/// full, probed in turn), two keys compared only when their slots' tags agree. Sorting them
/// compares them with `memcmp`, a loop over bytes in wasm: `keys_unique`, sorting, was 5.5%
/// of an OpenAI conversion of the corpus in the wasm profile.
fn keys_unique_hashed(entries: &[(Text<'_>, Node<'_>)]) -> bool {
    debug_assert!(entries.len() <= 64);
    // A slot: 0, or the entry's index + 1 (7 bits) under 9 bits of its key's hash.
    let mut slots = [0u16; 128];
    for (i, (k, _)) in entries.iter().enumerate() {
        let h = key_hash(k.as_str().as_bytes());
        let tag = h as u16 & 0xff80;
        let mut at = (h >> 57) as usize;
        loop {
            let slot = slots[at];
            if slot == 0 {
                slots[at] = tag | (i as u16 + 1);
                break;
            }
            if slot & 0xff80 == tag && entries[usize::from(slot & 0x7f) - 1].0.as_str() == k.as_str() {
                return false;
            }
            at = (at + 1) & 127;
        }
    }
    true
}

/// A hash of a key, eight bytes at a time (FxHash's step).
#[inline(always)]
fn key_hash(k: &[u8]) -> u64 {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h = k.len() as u64;
    let mut rest = k;
    while let Some((word, tail)) = rest.split_first_chunk::<8>() {
        h = (h.rotate_left(5) ^ u64::from_le_bytes(*word)).wrapping_mul(K);
        rest = tail;
    }
    h = (h.rotate_left(5) ^ head(rest)).wrapping_mul(K);
    h ^ (h >> 29)
}

/// What [`prepare`] measures of each tool, given what holds for the whole text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Measure {
    /// Everything `json_size` figures, and duplicate keys ([`Node::measure`]).
    All,
    /// Its values ([`Node::count`]).
    Nodes,
    /// Nothing (only the schema's `$ref` keys).
    Refs,
}

/// What the pass-through path made of a schema.
#[derive(Debug)]
pub(crate) enum Passed<'a> {
    /// The schema, written as it is ([`Passed::write_as_is`]). The flag says whether that
    /// writes exactly the JSON that was read (no object node lacks `properties`), so that a
    /// caller holding the input as objects may put its own object in its place
    /// ([`crate::convert::convert_json_leaving_schemas`]); then the text, when the input's own
    /// text is what writing the tree gives ([`read::SchemaNote::verbatim`]), is copied instead.
    AsIs(Node<'a>, bool, Option<&'a str>),
    /// Gemini `parameters`, already written; `None` when the tool has no `parameters`.
    Lowered(Option<Vec<u8>>),
    /// Gemini `parameters`, already written into the output with the rest of the tool's
    /// declaration ([`Declarations`]).
    Declared,
    /// Gemini `parametersJsonSchema` with its references inlined, already written
    /// ([`refs::write_json_schema`]).
    Written(Vec<u8>),
    /// A strict schema (OpenAI, Anthropic), written ([`strict`]).
    Strict {
        /// The strict schema; for Anthropic, `None` until its set-level limits keep the tool
        /// strict (then written from `base` by [`strict::write_anthropic`]).
        text: Option<Vec<u8>>,
        /// Its argument plan (taken by [`crate::convert`] once the tool is compiled; boxed, as
        /// most are empty and a pass is kept for every tool).
        plan: Box<ArgPlan>,
        /// What Anthropic's set-level limits count (see `anthropic::strict_costs`).
        costs: (usize, usize),
        /// The schema, which is sent as it is when those limits leave the tool out of strict mode.
        base: Node<'a>,
        /// `base`'s input text, when writing it gives that text (as [`Passed::AsIs`] has it).
        verbatim: Option<&'a str>,
    },
}

/// A schema written as it is ([`Node::write_schema`]); `verbatim`, the text it was read from
/// when that is what writing it gives ([`read::SchemaNote::verbatim`], and no `properties: {}`
/// to add), is copied instead.
fn write_as_read(node: &Node, verbatim: Option<&str>, out: &mut Vec<u8>) {
    let Some(text) = verbatim else { return node.write_schema(out) };
    out.extend_from_slice(text.as_bytes());
    #[cfg(debug_assertions)]
    {
        let mut tree = Vec::new();
        node.write_schema(&mut tree);
        debug_assert_eq!(String::from_utf8_lossy(&tree), text, "the verbatim text is the tree's");
    }
}

impl Passed<'_> {
    /// A [`Passed::AsIs`] schema written.
    pub(crate) fn write_as_is(&self, out: &mut Vec<u8>) {
        if let Passed::AsIs(node, _, verbatim) = self {
            write_as_read(node, *verbatim, out);
        }
    }

    /// The length of the schema text already written, if any.
    pub(crate) fn written_len(&self) -> usize {
        match self {
            Passed::Lowered(Some(text)) | Passed::Written(text) | Passed::Strict { text: Some(text), .. } => text.len(),
            _ => 0,
        }
    }

    /// A [`Passed::Strict`] schema as it is sent: the strict one when the tool stays strict
    /// (Anthropic's written now), else the schema as it is.
    pub(crate) fn write_strict(&self, strict: bool, opts: &SchemaOptions, out: &mut Vec<u8>) {
        let Passed::Strict { text, base, verbatim, .. } = self else { return };
        match text {
            _ if !strict => write_as_read(base, *verbatim, out),
            Some(text) => out.extend_from_slice(text),
            None => {
                let written = strict::write_anthropic(base, &mut Levels::new(Provider::Anthropic, opts), out, &Bump::new());
                debug_assert!(written, "strict::lower_root found the schema strict");
                if !written {
                    base.write_schema(out);
                }
            }
        }
    }
}

/// The text `write` writes, in a vector of its own size, written first in `buffer`: the
/// caller keeps one for all its tools, so that a tool's text does not grow its own vector from
/// empty, doubling (7% of a strict conversion of small tools natively: biocontext-kb's 52).
/// A large text that fills at least half of the buffer is not copied: the buffer itself is
/// handed out, shrunk to the text in place, and a new one of the same size is kept (a Gemini
/// schema with its references inlined can be half a megabyte).
pub(crate) fn written(buffer: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    const LARGE: usize = 16 * 1024;
    buffer.clear();
    write(buffer);
    if buffer.len() >= LARGE && buffer.len() * 2 >= buffer.capacity() {
        let capacity = buffer.capacity();
        let mut text = std::mem::replace(buffer, Vec::with_capacity(capacity));
        text.shrink_to_fit();
        return text;
    }
    buffer.to_vec()
}

/// Whether these keys were read without escapes, so that they are written back as they are
/// ([`write_key`]). The keys a rewrite adds (`additionalProperties`, `required`, ...) are plain
/// too.
fn plain(entries: &[(Text, Node)]) -> bool {
    entries.iter().all(|(k, _)| k.raw)
}

/// A key or name: as it is when [plain], else escaped.
fn write_key(out: &mut Vec<u8>, k: &str, plain: bool) {
    debug_assert!(!plain || !text::needs_escape(k), "{k:?} is not plain");
    if plain {
        out.push(b'"');
        out.extend_from_slice(k.as_bytes());
        out.push(b'"');
    } else {
        text::write_str(out, k);
    }
}

/// `text::write_object`, with keys written by [`write_key`].
fn write_object<'m, V: 'm>(out: &mut Vec<u8>, entries: impl Iterator<Item = (&'m str, &'m V)>, plain: bool, mut value: impl FnMut(&mut Vec<u8>, &'m str, &'m V)) {
    out.push(b'{');
    for (i, (k, v)) in entries.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_key(out, k, plain);
        out.push(b':');
        value(out, k, v);
    }
    out.push(b'}');
}

/// The tools of a JSON input read for the pass-through path, within the limits: each tool's
/// [`Head`], whose `input_schema` is `null` when the schema is passed through (then `Some` at its
/// index).
pub(crate) struct Prepared<'a> {
    pub tools: Vec<Head<'a>>,
    pub pass: Vec<Option<Passed<'a>>>,
    /// Gemini `parameters` only, when [`prepare_with`] was given the [`Naming`].
    pub declarations: Option<Declarations>,
}

/// What names the tools, for [`prepare_with`] to write Gemini's declarations as it lowers them:
/// the naming options and the conversion's server, which a tool's `serverName` overrides (as
/// `convert::run` names them).
pub(crate) struct Naming<'o> {
    pub opts: &'o NamingOptions,
    pub server: Option<&'o str>,
}

/// The opening of Gemini's tools, up to the first declaration.
pub(crate) const DECLARATIONS_OPEN: &[u8] = b"[{\"functionDeclarations\":";

/// Gemini's function declarations written straight into the output as their `parameters` are
/// lowered, from the first tool on, while every tool lowers: the output is then not built again
/// from each tool's text (which copied the whole of it, three times the input for a server
/// whose schemas share many references). The first tool that goes the general way ends it;
/// that one and the rest are written after these (`convert::Run::into_text`).
pub(crate) struct Declarations {
    /// The output so far: [`DECLARATIONS_OPEN`], `[`, and the first `count` declarations.
    pub text: Vec<u8>,
    pub count: usize,
    /// The tools' names, built before the first one was written; `convert::run` keeps them.
    pub names: (NameMap, Vec<Diagnostic>),
}

impl Declarations {
    /// Names every tool as `convert::run` would (`None` for a tool [`prepare`] refuses), and
    /// opens the output, with room for what the tools will likely take: Gemini's text of a
    /// schema is about its input's size or less, but up to three times that with references
    /// shared across a schema. Not inlined into [`prepare_with`], whose other providers' first
    /// call would compile it (see bench/README.md, "Cold start").
    #[inline(never)]
    fn start(tools: &[Node], naming: Naming, provider: Provider, len: usize, refs: bool) -> Option<Declarations> {
        let mut pairs = Vec::with_capacity(tools.len());
        for tool in tools {
            let Node::Obj(entries) = tool else { return None };
            // The last of each, as `prepare` reads a tool's fields (keys are unique there).
            let (mut name, mut server) = ("", None);
            for (k, v) in entries.iter() {
                match (k.as_str(), v) {
                    ("name", Node::Str(s)) => name = s.as_str(),
                    ("serverName", Node::Str(s)) => server = Some(s.as_str()),
                    _ => {}
                }
            }
            pairs.push((server.or(naming.server).filter(|s| !s.is_empty()), name));
        }
        let names = NameMap::build(&pairs, naming.opts, naming.opts.rule(provider.name_rule()));
        let likely = if refs { len.saturating_mul(3) } else { len + len / 8 };
        let mut text = Vec::new();
        // Growing it copies what is written, no worse than the other way; failing to get room
        // at all is left to that way too.
        if text.try_reserve_exact(likely.saturating_add(4096)).is_err() {
            text.try_reserve_exact(len.saturating_add(4096)).ok()?;
        }
        text.extend_from_slice(DECLARATIONS_OPEN);
        text.push(b'[');
        Some(Declarations { text, count: 0, names })
    }

    /// Tool `i`'s `parameters`, lowered: written here, into its declaration, when every tool
    /// before it is; else written on their own.
    fn take<'a>(this: &mut Option<Declarations>, i: usize, head: &Head, parameters: Option<gemini::Parameters>, buffer: &mut Vec<u8>) -> Passed<'a> {
        match this {
            Some(d) if d.count == i => {
                if i > 0 {
                    d.text.push(b',');
                }
                let name = d.names.0.entries().get(i).map_or("", |e| e.name.as_str());
                d.text.push(b'{');
                crate::convert::write_name_and_description(&mut d.text, name, head.description_text());
                if let Some(p) = parameters {
                    d.text.extend_from_slice(br#","parameters":"#);
                    p.write(&mut d.text);
                }
                d.text.push(b'}');
                d.count += 1;
                Passed::Declared
            }
            _ => Passed::Lowered(parameters.map(|p| written(buffer, |out| p.write(out)))),
        }
    }
}

/// Whether the pass-through path applies to this provider and these options: the non-strict
/// JSON Schema dialects (OpenAI, Anthropic, Bedrock, Gemini's `parametersJsonSchema`), whose
/// rules are [`crate::providers::fix_structure`]'s plus the root's; and, when no change log is
/// kept, Gemini's `parameters` ([`gemini`]) and the strict modes of OpenAI, Anthropic and
/// Bedrock ([`strict`]), which change schemas without reporting.
pub(crate) fn applies(provider: Provider, opts: &SchemaOptions, with_report: bool) -> bool {
    match provider {
        Provider::OpenAi | Provider::OpenAiResponses | Provider::Anthropic | Provider::Bedrock => !opts.strict || !with_report,
        Provider::Gemini | Provider::Vertex => opts.gemini_mode == GeminiMode::JsonSchema || !with_report,
        // Ollama's profile rewrites nearly every schema: compiled as the object API does.
        Provider::Ollama => false,
    }
}

/// Reads JSON text to the [`Value`] serde_json reads from it, through the tree reader: `None`
/// for anything the reader leaves to serde_json (invalid JSON among it, with serde_json's
/// errors to give). The wasm layer reads its JSON arguments so (options, results, responses):
/// the reader is faster than a serde visitor, and it is the code a conversion runs anyway,
/// where serde_json's own reader would be compiled on the first call for a few bytes of options.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn read_value(text: &str) -> Option<Value> {
    read_tree(text, &Bump::new()).map(|node| node.to_value())
}

/// Reads JSON text into a tree in `arena`: `None` for anything the reader leaves to serde_json
/// (invalid JSON among it). What [`ConvertOptions`](crate::convert::ConvertOptions) reads
/// from JSON text.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn read_tree<'a>(text: &'a str, arena: &'a Bump) -> Option<Node<'a>> {
    read::read_measured(text, arena).map(|(node, ..)| node)
}

/// What [`ConvertOptions`](crate::convert::ConvertOptions) reads of a tree.
impl<'a> Node<'a> {
    /// An object's entries, each key once as serde_json keeps a repeated key (its last value,
    /// at its first place); `None` for anything but an object.
    pub(crate) fn entries(&self) -> Option<Vec<(&str, &Node<'a>)>> {
        let Node::Obj(entries) = self else { return None };
        let firsts = entries.iter().enumerate().filter(|(i, (k, _))| !entries[..*i].iter().any(|(q, _)| q.as_str() == k.as_str()));
        Some(firsts.map(|(_, (k, _))| (k.as_str(), Node::last(entries, k.as_str()).unwrap_or(&Node::Null))).collect())
    }

    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Node::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(crate) fn as_u64(&self) -> Option<u64> {
        match self {
            Node::Num(n) => n.as_u64(),
            _ => None,
        }
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Node::Null)
    }

    /// The JSON type's name, as `model::json_type` says it.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool(_) => "boolean",
            Node::Num(_) => "number",
            Node::Str(_) => "string",
            Node::Arr(_) => "array",
            Node::Obj(_) => "object",
        }
    }

    /// Compact JSON text, as serde_json writes the equal `Value`.
    #[allow(clippy::wrong_self_convention)]
    pub(crate) fn to_text(&self) -> String {
        let mut out = Vec::new();
        self.write(&mut out);
        text::into_string(out)
    }
}

/// Reads `json` as a tool list, or returns `None` for anything the general path should read
/// (invalid JSON, another shape, a tool that is not an object or has no name, duplicate keys
/// in a tool's own fields, limits exceeded) so that its errors stay the same.
/// `plans: false` when the caller drops the argument plans (the JSON API, which returns the
/// tools only): the strict rewrite does not build them then, and Gemini's lowering takes the
/// enums that would need one.
pub(crate) fn prepare<'a>(json: &'a str, arena: &'a Bump, provider: Provider, opts: &SchemaOptions, with_report: bool, plans: bool) -> Option<Prepared<'a>> {
    prepare_with(json, arena, provider, opts, with_report, plans, None)
}

/// [`prepare`]; given the [`Naming`], Gemini `parameters` are written as [`Declarations`].
pub(crate) fn prepare_with<'a>(
    json: &'a str,
    arena: &'a Bump,
    provider: Provider,
    opts: &SchemaOptions,
    with_report: bool,
    plans: bool,
    naming: Option<Naming>,
) -> Option<Prepared<'a>> {
    // The shapes of crate::convert::tools_from_value: an array, `{tools}`, `{result:{tools}}`.
    let (root, figures, notes) = read::read_measured(json, arena)?;
    let mut next_note = 0;
    let tools: &'a [Node<'a>] = match root {
        Node::Arr(items) => items,
        Node::Obj(top) => match Node::last(top, "tools") {
            Some(Node::Arr(items)) => items,
            _ => match Node::last(top, "result") {
                Some(Node::Obj(result)) => match Node::last(result, "tools") {
                    Some(Node::Arr(items)) => items,
                    _ => return None,
                },
                _ => return None,
            },
        },
        _ => return None,
    };
    let limits = opts.limits;
    if tools.len() > limits.max_tools {
        return None;
    }
    let max_json_depth = crate::convert::max_json_depth(&limits);
    // A tool is part of the text: what holds for the whole text holds for every tool. With
    // unique keys and within the depth and string limits, only a tool's values are counted, and
    // not even that when the whole text is within the node limit; only a schema's `$ref` keys
    // are looked for then, should the text have one.
    let measure = match figures.unique && figures.depth <= max_json_depth && figures.longest_string <= limits.max_string_bytes {
        false => Measure::All,
        true if figures.nodes > limits.max_nodes => Measure::Nodes,
        true => Measure::Refs,
    };
    // Gemini `parameters` and the strict modes (only served without a change log, see `applies`).
    let lowers = matches!(provider, Provider::Gemini | Provider::Vertex) && opts.gemini_mode == GeminiMode::Parameters;
    let declarations = match naming {
        Some(naming) if lowers => Some(Declarations::start(tools, naming, provider, json.len(), figures.refs)?),
        _ => None,
    };
    let mut out = Prepared { tools: Vec::with_capacity(tools.len()), pass: Vec::with_capacity(tools.len()), declarations };
    let strict = provider.has_strict() && opts.strict;
    let json_schema = matches!(provider, Provider::Gemini | Provider::Vertex) && opts.gemini_mode == GeminiMode::JsonSchema;
    let mut scratch = Bump::new();
    // Where the schemas rewritten here are written first (see `written`).
    let mut buffer = Vec::new();
    for tool in tools {
        let Node::Obj(entries) = tool else { return None };
        if measure == Measure::All && !keys_unique(entries) {
            return None;
        }
        // The figures of `json_size` over the whole tool, as the general path measures it, and
        // for the schema alone whether it holds a `$ref` or duplicate keys.
        let mut size = JsonSize { nodes: 1, depth: 1, longest_string: 0 };
        let (mut refs, mut unique) = (false, true);
        let mut schema = None;
        let mut head = Head { name: Cow::Borrowed(""), title: None, description: None, server_name: None, input_schema: Value::Null, left_out: Vec::new() };
        for (k, v) in entries.iter() {
            // A schema as text, or under another key: the general path's error
            // (`crate::model::misplaced_schema`).
            if (*k == "inputSchema" && matches!(v, Node::Str(s) if s.as_str().trim_start().starts_with('{')))
                || matches!(k.as_str(), "input_schema" | "parameters" | "parametersJsonSchema" | "function" | "toolSpec" | "functionDeclarations")
                || crate::model::spells_input_schema(k.as_str())
            {
                return None;
            }
            if *k == "inputSchema" {
                match measure {
                    Measure::All => {
                        size.longest_string = size.longest_string.max(k.len());
                        unique = v.measure(1, &mut size, &mut refs);
                    }
                    Measure::Nodes => size.nodes += v.count(&mut refs),
                    // See below.
                    Measure::Refs => {}
                }
                schema = Some(v);
                continue;
            }
            match measure {
                Measure::All => {
                    size.longest_string = size.longest_string.max(k.len());
                    if !v.measure(1, &mut size, &mut false) {
                        return None;
                    }
                }
                Measure::Nodes => size.nodes += v.count(&mut false),
                Measure::Refs => {}
            }
            // `Tool::from_value`'s reading of the fields the conversion uses (keys are unique).
            let text = |s: &Text<'a>| Cow::Borrowed(s.as_str());
            match (k.as_str(), v) {
                ("name", Node::Str(s)) => head.name = text(s),
                ("title", Node::Str(s)) => head.title = Some(text(s)),
                ("description", Node::Str(s)) => head.description = Some(text(s)),
                ("serverName", Node::Str(s)) => head.server_name = Some(text(s)),
                // Reported by the general path (`Head::left_out`); a `serverName` that is no
                // text is its error.
                ("title" | "description" | "serverName", v) if !matches!(v, Node::Null) => return None,
                _ => {}
            }
        }
        if head.name.is_empty() {
            return None;
        }
        head.name_lost_letters();
        if size.depth > max_json_depth || size.nodes > limits.max_nodes || size.longest_string > limits.max_string_bytes {
            return None;
        }
        let mut pass = None;
        // What the reader noted of the schema: whether it holds a `$ref` key, and its own text
        // if writing its tree gives that text.
        let note = schema.and_then(|s| read::SchemaNote::of(s, &notes, &mut next_note));
        if let (Measure::Refs, true, Some(schema)) = (measure, figures.refs, schema) {
            refs = note.map_or_else(|| schema.has_ref_key(), |n| n.refs);
        }
        let verbatim_text = note.and_then(|n| n.verbatim);
        // Draft 3 to 7 ignore the keywords beside a `$ref`, which stay constraints: the general
        // path reports each place (`schema::report_ref_siblings`).
        let ignored_siblings = refs && schema.is_some_and(|s| ignores_ref_siblings(s) && has_ref_siblings(s, 0));
        // References by `$id`, or within an embedded resource, are rewritten by the general
        // path (`schema::refs::resolve_ids`).
        let by_id = refs && schema.is_some_and(|s| uses_ids(s, 0));
        // Draft 3's own keywords are rewritten by the general path (`schema::rewrite_draft3`).
        let draft3 = schema.is_some_and(|s| declares_draft_3(s) && has_draft3_keyword(s, 0));
        // Draft 3 to 7's unknown `minContains`/`maxContains` are removed by the general path
        // (`schema::remove_contains_bounds`).
        let contains_bounds = schema.is_some_and(|s| ignores_ref_siblings(s) && has_contains_bounds(s, 0));
        if let Some(schema) = schema.filter(|_| !ignored_siblings && !draft3 && !by_id && !contains_bounds) {
            let node = *schema;
            // Without plans (the JSON API), a subschema the general lowering gives one (an
            // enum of numbers, written as strings) is lowered here like any other.
            let mut levels = Levels::new(provider, opts).with_plans(plans);
            let i = out.tools.len();
            let lowered = match unique && lowers {
                true => {
                    let objects = note.map(|n| n.objects).filter(|_| refs);
                    let lowering = Lowering { provider, opts, plans, refs, objects };
                    lowering.declare(schema, &mut out.declarations, i, &head, &mut scratch, &mut buffer)
                }
                false => None,
            };
            // The schema as passed, or back for the general path.
            let passed = if let Some(passed) = lowered {
                Ok(passed)
            } else if unique && json_schema && refs {
                // Gemini's parametersJsonSchema inlines references, then takes the tree as the
                // other dialects do.
                let text = refs::write_json_schema(schema, &scratch, &mut Levels::new(provider, opts), with_report, &mut buffer);
                scratch.reset();
                text.map(Passed::Written).ok_or(node)
            } else if unique && !lowers && !(with_report && refs && !refs::all_found(schema)) && is_clean(&node, &mut levels) {
                let outcome = match strict {
                    false => Some(strict::Outcome::NotStrict),
                    true => strict_outcome(schema, refs, provider, opts, plans, &mut scratch, &mut buffer),
                };
                // Written exactly as read, so its text may be copied (see `write_as_read`).
                let exact = !levels.adds_properties;
                let verbatim = verbatim_text.filter(|_| exact);
                match outcome {
                    Some(strict::Outcome::Strict(text, plan, costs)) => Ok(Passed::Strict { text, plan, costs, base: node, verbatim }),
                    // Sent as it is (with `strict: false` when strict mode was asked for).
                    Some(strict::Outcome::NotStrict) => Ok(Passed::AsIs(node, exact, verbatim)),
                    None => Err(node),
                }
            } else {
                Err(node)
            };
            match passed {
                Ok(schema) => pass = Some(schema),
                Err(node) => head.input_schema = node.to_value(),
            }
        } else if let Some(schema) = schema {
            head.input_schema = schema.to_value();
        }
        out.tools.push(head);
        out.pass.push(pass);
    }
    Some(out)
}

/// How [`prepare_with`] lowers a schema for Gemini's `parameters` ([`Lowering::declare`]).
struct Lowering<'o> {
    provider: Provider,
    opts: &'o SchemaOptions,
    plans: bool,
    /// Whether the schema holds a `$ref` key, and then the objects the reader counted in it.
    refs: bool,
    objects: Option<usize>,
}

impl Lowering<'_> {
    /// `schema` lowered (its references inlined first, if it has any) in the scratch arena,
    /// emptied once it is written as the declaration of tool `i`. A function of its own, not
    /// inlined into [`prepare_with`], whose other providers' first call would compile it
    /// (see bench/README.md, "Cold start").
    #[inline(never)]
    fn declare<'a>(&self, schema: &Node, declarations: &mut Option<Declarations>, i: usize, head: &Head, scratch: &mut Bump, buffer: &mut Vec<u8>) -> Option<Passed<'a>> {
        let node = *schema;
        let mut levels = Levels::new(self.provider, self.opts).with_plans(self.plans);
        let lowered = match self.refs {
            false => gemini::lower_root(&node, &mut levels, scratch),
            true => refs::lower(schema, self.objects, scratch, &mut levels),
        };
        let passed = lowered.map(|p| Declarations::take(declarations, i, head, p, buffer));
        scratch.reset();
        passed
    }
}

/// Whether a root's `$schema` names draft 3 (`schema::declares_draft_3`).
fn declares_draft_3(root: &Node) -> bool {
    root.get("$schema").and_then(Node::as_str).is_some_and(|uri| crate::schema::names_draft(uri, b'3'..=b'3'))
}

/// Whether some object of the tree has a key of draft 3's that `schema::rewrite_draft3`
/// rewrites, or a `type` list with a schema among its members (draft 3's union type; a
/// property so named too: such a schema merely goes the general way).
fn has_draft3_keyword(node: &Node, depth: usize) -> bool {
    let union_type = |k: &Text, v: &Node| k.as_str() == "type" && matches!(v, Node::Arr(ts) if ts.iter().any(|t| matches!(t, Node::Obj(_) | Node::Bool(_))));
    match node {
        _ if depth > 512 => true,
        Node::Obj(entries) => entries.iter().any(|(k, v)| matches!(k.as_str(), "divisibleBy" | "extends" | "disallow") || union_type(k, v) || has_draft3_keyword(v, depth + 1)),
        Node::Arr(items) => items.iter().any(|v| has_draft3_keyword(v, depth + 1)),
        _ => false,
    }
}

/// Whether some node, anywhere, has a key `minContains` or `maxContains`.
fn has_contains_bounds(node: &Node, depth: usize) -> bool {
    match node {
        _ if depth > 512 => true,
        Node::Obj(entries) => entries.iter().any(|(k, v)| matches!(k.as_str(), "minContains" | "maxContains") || has_contains_bounds(v, depth + 1)),
        Node::Arr(items) => items.iter().any(|v| has_contains_bounds(v, depth + 1)),
        _ => false,
    }
}

/// Whether a root's `$schema` names draft 3 to 7 (`schema::declares_draft_3_to_7`).
fn ignores_ref_siblings(root: &Node) -> bool {
    root.get("$schema").and_then(Node::as_str).is_some_and(crate::schema::names_draft_3_to_7)
}

/// Whether some node has a `$ref` beside a keyword that is no annotation (draft 4 to 7's
/// `dependencies` searched as `dependentSchemas` is).
fn has_ref_siblings(node: &Node, depth: usize) -> bool {
    let Node::Obj(entries) = node else { return false };
    if depth > 512 {
        return true;
    }
    if entries.iter().any(|(k, _)| *k == "$ref") && entries.iter().any(|(k, _)| *k != "$ref" && !crate::schema::is_annotation(k)) {
        return true;
    }
    entries.iter().any(|(key, value)| match (keyword(key), value) {
        (Keyword::Map, Node::Obj(map)) => map.iter().any(|(_, s)| has_ref_siblings(s, depth + 1)),
        (Keyword::Other, Node::Obj(map)) if *key == "dependencies" => map.iter().any(|(_, s)| has_ref_siblings(s, depth + 1)),
        (Keyword::Array | Keyword::Items, Node::Arr(items)) => items.iter().any(|s| has_ref_siblings(s, depth + 1)),
        (Keyword::Single | Keyword::Items, s) => has_ref_siblings(s, depth + 1),
        _ => false,
    })
}

/// Whether a schema with references may name one by `$id` or hold an embedded resource (an
/// `$id` below the root), which `schema::refs::resolve_ids` rewrites: any `$id` text below the
/// root, any `$ref` outside `#` (a property so named counts too: the general path decides).
fn uses_ids(node: &Node, depth: usize) -> bool {
    match node {
        Node::Obj(entries) => entries.iter().any(|(k, v)| match (k.as_str(), v) {
            ("$id", Node::Str(id)) => depth > 0 && !id.as_str().starts_with('#'),
            ("$ref", Node::Str(r)) => !r.as_str().starts_with('#'),
            _ => depth < 256 && uses_ids(v, depth + 1),
        }),
        Node::Arr(items) => depth < 256 && items.iter().any(|v| uses_ids(v, depth + 1)),
        _ => false,
    }
}

/// The strict rewrite of a schema `is_clean` accepted, for [`prepare`] (a function of its own,
/// compiled only when a strict conversion first calls it). `refs`: the schema holds a `$ref`.
#[inline(never)]
fn strict_outcome<'a>(
    schema: &Node<'a>,
    refs: bool,
    provider: Provider,
    opts: &SchemaOptions,
    plans: bool,
    scratch: &mut Bump,
    buffer: &mut Vec<u8>,
) -> Option<strict::Outcome> {
    if refs {
        // With references: inlined first, as the general path inlines them. A recursive one
        // makes Claude's strict schema non-strict (sent as it is); OpenAI's keeps its references,
        // which the general path writes, unless the schema holds what strict mode gives up on.
        let openai = matches!(provider, Provider::OpenAi | Provider::OpenAiResponses);
        let outcome = match recursion::strict_inlining(schema, scratch, opts.limits) {
            StrictInlining::Stops if openai && !recursion::has_strict_blocker(schema, 0) => None,
            StrictInlining::Stops => Some(strict::Outcome::NotStrict),
            StrictInlining::Inlined(tree) if is_clean(&tree, &mut Levels::new(provider, opts)) => {
                // The tree goes with the scratch arena: Anthropic's is written now.
                match strict::lower_root(&tree, &mut Levels::new(provider, opts).with_plans(plans), provider, scratch, buffer) {
                    Some(strict::Outcome::Strict(None, plan, costs)) => {
                        let mut ok = false;
                        let text = written(buffer, |out| ok = strict::write_anthropic(&tree, &mut Levels::new(provider, opts), out, scratch));
                        ok.then(|| strict::Outcome::Strict(Some(text), plan, costs))
                    }
                    outcome => outcome,
                }
            }
            _ => None,
        };
        scratch.reset();
        return outcome;
    }
    // The rewrite in the scratch arena, emptied once it is written.
    let outcome = strict::lower_root(schema, &mut Levels::new(provider, opts).with_plans(plans), provider, scratch, buffer);
    scratch.reset();
    outcome
}

/// A `serde_json::Map` with `preserve_order`, as far as the lowerings use one: `insert`
/// replaces in place or appends, `take` (its `remove`) swap-removes. A schema node has a
/// handful of keys, so a scan is the lookup. It lives in the arena of one schema's lowering
/// (see [`gemini::lower_root`], [`strict::lower_root`]): a lowered tree is many small lists,
/// built and dropped per tool, which the allocator would otherwise see one by one.
///
/// A map is never dropped (its entries are not): the arena's reset frees it, and nothing in
/// the maps of a lowered tree owns memory beyond the arena (the trees' own types say so, e.g.
/// `gemini::Item`). Dropping a tree walked all of it to find nothing to free.
struct Map<'k, V>(ManuallyDrop<bumpalo::collections::Vec<'k, (&'k str, V)>>);

impl<'k, V> Map<'k, V> {
    fn new(entries: bumpalo::collections::Vec<'k, (&'k str, V)>) -> Self {
        Map(ManuallyDrop::new(entries))
    }
    /// The entries, to be moved out (those left are dropped with the list).
    fn into_entries(self) -> bumpalo::collections::Vec<'k, (&'k str, V)> {
        ManuallyDrop::into_inner(self.0)
    }
    fn position(&self, key: &str) -> Option<usize> {
        let found = self.0.iter().position(|(k, _)| *k == key);
        #[cfg(test)]
        MAP_STEPS.with(|s| s.set(s.get() + found.map_or(self.0.len(), |i| i + 1)));
        found
    }
    fn get(&self, key: &str) -> Option<&V> {
        self.position(key).map(|i| &self.0[i].1)
    }
    fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.position(key).map(|i| &mut self.0[i].1)
    }
    fn has(&self, key: &str) -> bool {
        self.position(key).is_some()
    }
    fn insert(&mut self, key: &'k str, value: V) {
        match self.position(key) {
            Some(i) => self.0[i].1 = value,
            None => self.0.push((key, value)),
        }
    }
    fn take(&mut self, key: &str) -> Option<V> {
        self.position(key).map(|i| self.0.swap_remove(i).1)
    }
}

#[cfg(test)]
thread_local! {
    /// Keys a [`Map`] lookup compared on this thread, for tests that the lookups of a node grow
    /// in proportion to its keys.
    pub(super) static MAP_STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

const TYPE: u64 = head_of(b"type");
const REF: u64 = head_of(b"$ref");
const REQUIRED: u64 = head_of(b"required");

/// What [`type_name`] makes of a `type` string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TypeName {
    Object,
    Array,
    /// One of the other five names of [`crate::schema::TYPE_NAMES`].
    Other,
    Unknown,
}

/// A `type` string as one of the seven names of [`crate::schema::TYPE_NAMES`], by length and
/// first eight bytes, which is the whole name: comparing it with each name (a `memcmp` per
/// name of its length, a loop over bytes in wasm) was 2% or more of an OpenAI conversion.
#[inline(always)]
fn type_name(t: &str) -> TypeName {
    const OBJECT: u64 = head_of(b"object");
    const ARRAY: u64 = head_of(b"array");
    const STRING: u64 = head_of(b"string");
    const NUMBER: u64 = head_of(b"number");
    const INTEGER: u64 = head_of(b"integer");
    const BOOLEAN: u64 = head_of(b"boolean");
    const NULL: u64 = head_of(b"null");
    match (t.len(), head(t.as_bytes())) {
        (6, OBJECT) => TypeName::Object,
        (5, ARRAY) => TypeName::Array,
        (6, STRING) | (6, NUMBER) | (7, INTEGER) | (7, BOOLEAN) | (4, NULL) => TypeName::Other,
        _ => TypeName::Unknown,
    }
}

/// Schema levels entered, as [`crate::schema::Cx::enter`] counts them.
struct Levels<'s> {
    depth: usize,
    nodes: usize,
    /// The deepest level entered (as `Cx`'s peak).
    peak: usize,
    max_depth: usize,
    max_nodes: usize,
    /// Whether a `$ref` leaves the schema unchanged.
    refs: bool,
    /// Vertex AI (whose `anyOf` stands alone, see [`gemini`]).
    vertex: bool,
    /// Claude (Anthropic, Bedrock), which renames the root's property keys it refuses
    /// ([`crate::providers::keys`]).
    claude: bool,
    /// Whether `clean_node` met an object node that [`Node::write_schema`] gives `properties: {}`.
    adds_properties: bool,
    /// The shared `$ref` expansions of a schema inlined with sharing ([`refs`], or the general
    /// path for [`lower_inlined`]).
    splicing: Option<Splicing<'s>>,
    /// The limits in force, for the general lowering of a subschema ([`gemini`]).
    limits: Limits,
    /// Whether the general lowering of a subschema failed ([`gemini`]): nothing above it is
    /// tried again.
    gave_up: bool,
    /// The subschemas of the general lowering in the tree [`gemini`] builds, which refers to
    /// them by index: nothing in the arena may own memory (see [`Map`]).
    general: Vec<Value>,
    /// Whether the caller keeps the argument plans ([`strict`] builds them only then;
    /// [`gemini`] leaves a schema that needs one to the general path).
    plans: bool,
}

/// Shared `$ref` expansions ([`Shared`]) as `gemini::lower_shared` lowers them and `clean_node`
/// walks them: each the first time it is met, then its result reused wherever it fits the
/// limits ([`Levels::shared`]).
struct Splicing<'s> {
    /// The expansions, by entry.
    expansions: &'s [Node<'s>],
    /// Entry → its lowering, once done.
    written: Vec<Option<Written<'s>>>,
    /// Where `gemini::lower_shared` writes each lowering before it is kept.
    buffer: Vec<u8>,
}

impl<'s> Splicing<'s> {
    fn new(expansions: &'s [Node<'s>]) -> Self {
        Splicing { expansions, written: Vec::new(), buffer: Vec::new() }
    }
}

/// A shared expansion done once ([`Levels::shared`]): its text (in the arena of the trees that
/// splice it; empty for `clean_node`'s walk, whose text `Node::write_spliced` writes), and the
/// nodes and levels that took.
struct Written<'s> {
    text: &'s [u8],
    nodes: usize,
    height: usize,
}

impl<'s> Levels<'s> {
    fn new(provider: Provider, opts: &SchemaOptions) -> Self {
        Self {
            depth: 0,
            nodes: 0,
            peak: 0,
            splicing: None,
            limits: opts.limits,
            gave_up: false,
            general: Vec::new(),
            plans: true,
            max_depth: opts.limits.depth_limit(),
            max_nodes: opts.limits.max_nodes,
            // Gemini's parametersJsonSchema inlines every `$ref` (gemini::compile).
            refs: !matches!(provider, Provider::Gemini | Provider::Vertex),
            vertex: provider == Provider::Vertex,
            claude: provider.claude_strict().is_some(),
            adds_properties: false,
        }
    }

    fn with_plans(mut self, plans: bool) -> Self {
        self.plans = plans;
        self
    }

    /// Shared expansion `i` done by `work` the first time, its text kept with the nodes and
    /// levels that took (`Cx::measured`); afterwards that text, counted as that work
    /// (`Cx::reuse`) where it fits the limits (`Cx::fits`), as `refs::Shared::rewrite` reuses
    /// the general path's rewrite. Where it does not fit, the general path does the work again
    /// and so exceeds a limit: `None`, as for any limit, and as where `work` fails.
    fn shared(&mut self, i: usize, work: impl FnOnce(&'s Node<'s>, &mut Self) -> Option<&'s [u8]>) -> Option<&'s [u8]> {
        let splicing = self.splicing.as_ref()?;
        let expansions = splicing.expansions;
        if let Some(Some(Written { text, nodes, height })) = splicing.written.get(i) {
            let (text, nodes, height) = (*text, *nodes, *height);
            if self.nodes + nodes > self.max_nodes || self.depth + height > self.max_depth {
                return None;
            }
            self.nodes += nodes;
            self.peak = self.peak.max(self.depth + height);
            return Some(text);
        }
        let node = expansions.get(i)?;
        let (nodes, outer_peak) = (self.nodes, std::mem::replace(&mut self.peak, self.depth));
        let text = work(node, self)?;
        let height = self.peak - self.depth;
        self.peak = self.peak.max(outer_peak);
        let written = &mut self.splicing.as_mut()?.written;
        if written.len() <= i {
            written.resize_with(i + 1, || None);
        }
        written[i] = Some(Written { text, nodes: self.nodes - nodes, height });
        Some(text)
    }

    /// `Cx::enter` for the lowerings: one schema level entered; `false` where the general path
    /// would fail or write differently.
    fn enter(&mut self) -> bool {
        self.depth += 1;
        self.nodes += 1;
        self.peak = self.peak.max(self.depth);
        self.depth <= self.max_depth && self.nodes <= self.max_nodes
    }
}

/// Gemini `parameters` for a schema the general path has prepared (`root`: processed, root
/// combinators merged, `$ref`s inlined with `shared` expansions, see
/// [`crate::schema::refs::inline_refs_shared`]), lowered from a borrowed tree over it when the
/// schema is within [`gemini`]'s subset: as [`gemini::lower_root`] gives it, each shared
/// expansion lowered and written once and spliced in wherever the general path splices it.
/// `None` sends the schema to the general lowering.
pub(crate) fn lower_inlined(root: &Value, shared: &Shared, opts: &SchemaOptions, vertex: bool) -> Option<Option<Vec<u8>>> {
    let arena = Bump::new();
    let node = Node::of_value(root, &arena);
    let expansions: Vec<Node> = (0..).map_while(|i| shared.expansion(i)).map(|e| Node::of_value(e, &arena)).collect();
    let mut levels = Levels::new(if vertex { Provider::Vertex } else { Provider::Gemini }, opts);
    levels.splicing = Some(Splicing::new(&expansions));
    let lowered = gemini::lower_root(&node, &mut levels, &arena)?;
    Some(lowered.map(|p| {
        let mut text = Vec::new();
        p.write(&mut text);
        text
    }))
}

/// Whether the general path returns this root schema unchanged but for the silent
/// `properties: {}` of [`Node::write_schema`], with no change or problem to report, for the
/// providers of [`applies`]. Keys are unique (checked by the caller).
fn is_clean(root: &Node, levels: &mut Levels) -> bool {
    // process_json_schema: the root is already `type: "object"` (no inference, no narrowing, no
    // wrapping) and no reference (read as its target, `schema/root-ref`, or dropped,
    // `schema/root-ref-type`); the providers' root steps have nothing to merge or remove.
    root.get("type").and_then(Node::as_str) == Some("object")
        && ["anyOf", "oneOf", "allOf", "enum", "not", "$ref"].iter().all(|k| root.get(k).is_none())
        && !(levels.claude && refused_keys(root))
        && clean_node(root, levels)
}

/// Whether the root declares a property key that Claude refuses, which the general path renames
/// (`providers::keys`): only the root's keys are looked at, as only those are renamed.
fn refused_keys(root: &Node) -> bool {
    matches!(root.get("properties"), Some(Node::Obj(props)) if props.iter().any(|(k, _)| !crate::providers::keys::claude_key_ok(k)))
}

/// One node under [`crate::providers::fix_structure`]'s rules.
fn clean_node(node: &Node, levels: &mut Levels) -> bool {
    let Node::Obj(entries) = node else { return true };
    if let (Some(_), [(key, Node::Str(value))]) = (&levels.splicing, &entries[..]) {
        if let Some(i) = Shared::placeholder_entry(key, value) {
            return clean_shared(i, levels);
        }
    }
    levels.depth += 1;
    levels.nodes += 1;
    levels.peak = levels.peak.max(levels.depth);
    if levels.depth > levels.max_depth || levels.nodes > levels.max_nodes {
        return false;
    }
    // The keywords the rules read, in one pass over the keys.
    let (mut ty, mut reference, mut properties, mut required, mut has_items) = (None, None, None, None, false);
    // What limits the node's values (report_disjoint_values): its bounds, `enum`, `const`.
    let (mut bounded, mut values, mut constant) = (false, None, None);
    for (key, value) in entries.iter() {
        // As walk::keyword: by length and first eight bytes, which is the whole key up to eight.
        let h = head(key.as_bytes());
        match (key.len(), h) {
            (4, TYPE) => ty = Some(value),
            (4, REF) => reference = Some(value),
            (10, PROPERTIES_HEAD) if rest_equal(key.as_bytes(), b"properties") => properties = Some(value),
            (8, REQUIRED) => required = Some(value),
            // (`prefixItems` alone gets `items` from the general path: `fix_structure`.)
            (5, ITEMS) => has_items = true,
            _ => match domain::word(key.as_bytes(), h) {
                Word::Enum => values = Some(value),
                Word::Const => constant = Some(value),
                Word::Bound(_) => bounded = true,
                Word::Other => {}
            },
        }
    }
    // normalize_type: only the seven type names, as written.
    let (mut object, mut array) = (false, false);
    let mut typed = |t: &Node| match t.as_str().map(type_name) {
        Some(TypeName::Object) => {
            object = true;
            true
        }
        Some(TypeName::Array) => {
            array = true;
            true
        }
        Some(TypeName::Other) => true,
        Some(TypeName::Unknown) | None => false,
    };
    let untyped = match ty {
        None => true,
        Some(t @ Node::Str(_)) => {
            if !typed(t) {
                return false;
            }
            false
        }
        Some(Node::Arr(ts)) => {
            // fix_keyword_values: each type once.
            // normalize_type: `type: []` goes.
            if ts.is_empty() || !ts.iter().all(&mut typed) || ts.iter().enumerate().any(|(i, t)| ts[..i].iter().any(|u| u.as_str() == t.as_str())) {
                return false;
            }
            false
        }
        Some(_) => return false,
    };
    if reference.is_some_and(|r| r.as_str().is_none() || !levels.refs) {
        return false;
    }
    // fix_keyword_values: each `required` name once, on a node of any type; fix_structure: a
    // `required` that is no list of names goes.
    if required.is_some_and(|r| !matches!(r, Node::Arr(names) if names_once(names))) {
        return false;
    }
    // Node::write_schema's condition for adding `properties: {}`.
    levels.adds_properties |= object && properties.is_none();
    let is_object = object || (untyped && properties.is_some());
    if is_object && !clean_properties(properties, required) {
        return false;
    }
    if array && !has_items {
        return false;
    }
    // report_disjoint_values: a node that allows no value is reported there (one with `allOf`
    // is looked at there, with its branches).
    if (bounded || values.is_some() || constant.is_some()) && !allows_some(entries, ty, values, constant) {
        return false;
    }
    if entries.iter().any(|(k, _)| *k == "allOf") && all_of_disjoint(node) {
        return false;
    }
    // fix_subschema_slots: every subschema position holds schemas; then recurse into them.
    for (key, value) in entries.iter() {
        let ok = match (keyword(key), value) {
            // normalize_draft4 rewrites boolean exclusive bounds; fix_keyword_values removes
            // values of the wrong kind.
            (Keyword::Other, v) => value_rule(key).is_none_or(|r| fits(r, v)),
            // normalize_draft4: draft 4 tuples are rewritten.
            (Keyword::Items, Node::Arr(_)) => false,
            // fix_keyword_values: a `patternProperties` key that is no regular expression goes.
            (Keyword::Map, Node::Obj(map)) => {
                (key != "patternProperties" || map.iter().all(|(k, _)| crate::schema::walk::regex_parses(k)))
                    && map.iter().all(|(_, s)| s.is_schema() && clean_node(s, levels))
            }
            // fix_subschema_slots: an empty list goes.
            (Keyword::Array, Node::Arr(items)) => !items.is_empty() && items.iter().all(|s| s.is_schema() && clean_node(s, levels)),
            (Keyword::Single | Keyword::Items, s) => s.is_schema() && clean_node(s, levels),
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    levels.depth -= 1;
    true
}

/// Whether a node with `allOf` allows no value, as `report_disjoint_values` reads it (a
/// function of its own, as the other parts of [`clean_node`] few schemas reach: it is
/// compiled on its first call, see bench/README.md, "Cold start").
#[inline(never)]
fn all_of_disjoint(node: &Node) -> bool {
    crate::schema::lower::has_disjoint_values(&node.to_value())
}

/// [`ValueRule::fits_value`] on a node of the tree.
fn fits(rule: ValueRule, v: &Node) -> bool {
    rule.fits(v.type_name(), v.as_number())
        && match (rule, v) {
            (ValueRule::Regex, Node::Str(p)) => crate::schema::walk::regex_parses(p),
            (ValueRule::NameLists, Node::Obj(deps)) => deps.iter().all(|(_, names)| {
                matches!(names, Node::Arr(ns) if ns.iter().enumerate().all(|(i, n)| n.as_str().is_some() && !ns[..i].iter().any(|m| m.as_str() == n.as_str())))
            }),
            _ => true,
        }
}

/// Whether a node (its `entries`) of type `ty` (its `type` value), with its `enum` `values`
/// and its `const`, allows some value within its bounds, as `report_disjoint_values` reads it
/// (the bounds read here, for the few nodes that have them or values). A node with both `enum`
/// and `const` is left to it.
#[inline(never)]
fn allows_some(entries: &[(Text, Node)], ty: Option<&Node>, values: Option<&Node>, constant: Option<&Node>) -> bool {
    let mut domain = Domain::ANY;
    for (key, value) in entries {
        if let (Node::Num(n), Word::Bound(which)) = (value, domain::word(key.as_bytes(), head(key.as_bytes()))) {
            domain.bound(which, n);
        }
    }
    // OpenAPI's `nullable: true` adds null to the `type` (Gemini reads it so).
    let nullable = if entries.iter().any(|(k, v)| k.as_bytes() == b"nullable" && matches!(v, Node::Bool(true))) { domain::NULL } else { 0 };
    domain.only(nullable | match ty {
        Some(Node::Str(t)) => domain::type_bits(t),
        Some(Node::Arr(ts)) if !ts.is_empty() => ts.iter().map(|t| t.as_str().map_or(domain::ANY, domain::type_bits)).fold(0, |a, b| a | b),
        _ => domain::ANY,
    });
    let admits = |v: &Node| match v {
        Node::Null => domain.admits(domain::NULL, None, &|| 0),
        Node::Bool(_) => domain.admits(domain::BOOLEAN, None, &|| 0),
        Node::Num(n) => domain.admits(domain::number_bits(n), n.as_f64(), &|| 0),
        Node::Str(s) => domain.admits(domain::STRING, None, &|| s.chars().count()),
        Node::Arr(a) => domain.admits(domain::ARRAY, None, &|| a.len()),
        Node::Obj(o) => domain.admits(domain::OBJECT, None, &|| o.len()),
    };
    match (values, constant) {
        (Some(_), Some(_)) => false,
        (Some(Node::Arr(vs)), None) => vs.iter().any(admits),
        // Not a list: the general path's to remove (`fix_keyword_values`).
        (Some(_), None) => true,
        (None, Some(c)) => admits(c),
        (None, None) => domain.some_value(),
    }
}

/// [`clean_node`] on shared expansion `i` (see [`refs`]), as [`Levels::shared`] does it; its
/// text is written later, by `Node::write_spliced`.
#[inline(never)]
fn clean_shared(i: usize, levels: &mut Levels) -> bool {
    levels.shared(i, |node, levels| clean_node(node, levels).then_some(&[][..])).is_some()
}

/// fix_properties_and_required on an object node: `properties` is an object without draft-3
/// `required: true` flags; `required`, if present, lists existing properties once each.
fn clean_properties(properties: Option<&Node>, required: Option<&Node>) -> bool {
    let props = match properties {
        // fix_properties_and_required adds `properties: {}` without a word (written by
        // Node::write_schema), unless a `required` would then name missing properties.
        None => {
            return match required {
                None => true,
                Some(Node::Arr(names)) => names.is_empty(),
                Some(_) => false,
            }
        }
        Some(Node::Obj(props)) => props,
        Some(_) => return false,
    };
    if props.iter().any(|(_, p)| matches!(p.get("required"), Some(Node::Bool(_)))) {
        return false;
    }
    // A required property whose schema is `false` allows no arguments: reported by
    // report_disjoint_values.
    let allows = |p: &Node| !matches!(p, Node::Bool(false));
    match required {
        None => true,
        // Names checked once each already (`names_once`). A few are looked for in the
        // properties one by one; many through a map of them (a `required` of thousands of names
        // is not quadratic).
        Some(Node::Arr(names)) if names.len() <= NameSet::FEW => names.iter().all(|n| n.as_str().is_some_and(|name| props.iter().any(|(k, p)| k.as_str() == name && allows(p)))),
        Some(Node::Arr(names)) => many_required_found(props, names),
        Some(_) => false,
    }
}

/// [`clean_properties`] for more than [`NameSet::FEW`] `required` names: each names a property
/// whose schema is not `false`, looked up in a map of them (a function of its own, as few
/// schemas require that many).
#[inline(never)]
fn many_required_found(props: &[(Text, Node)], names: &[Node]) -> bool {
    let by_name: HashMap<&str, &Node> = props.iter().map(|(k, p)| (k.as_str(), p)).collect();
    names.iter().all(|n| n.as_str().and_then(|name| by_name.get(name)).is_some_and(|p| !matches!(p, Node::Bool(false))))
}

/// A `required` list, for asking whether it names a property: scanned when it holds a few names,
/// through a [`NameSet`] when many (an object of thousands of properties asks for each).
pub(crate) struct Required<'r> {
    names: &'r [Node<'r>],
    set: Option<NameSet<'r>>,
}

impl<'r> Required<'r> {
    pub(crate) fn of(names: &'r [Node<'r>]) -> Self {
        let set = (names.len() > NameSet::FEW).then(|| NameSet::of(names.iter().filter_map(|n| n.text())));
        Self { names, set }
    }

    /// Whether it names `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        match &self.set {
            Some(set) => set.contains(name),
            None => self.names.iter().any(|r| r.as_str() == Some(name)),
        }
    }
}

/// Whether `names` are all strings, each once (`required`'s rule).
fn names_once(names: &[Node]) -> bool {
    // A few are compared with those before them (no allocation, for most lists).
    if names.len() <= NameSet::FEW {
        return names.iter().enumerate().all(|(i, n)| n.as_str().is_some() && !names[..i].iter().any(|m| m.as_str() == n.as_str()));
    }
    many_names_once(names)
}

/// [`names_once`] for more than [`NameSet::FEW`] names (a function of its own: few lists are so long).
#[inline(never)]
fn many_names_once(names: &[Node]) -> bool {
    let mut seen = NameSet::default();
    names.iter().all(|n| n.as_str().is_some_and(|name| seen.insert(name)))
}

/// How many of the input's tools [`crate::convert::convert_json`] would pass through: for tests
/// and benchmarks that must know the pass-through path was taken.
pub fn passed_through(json: &str, provider: Provider, opts: &SchemaOptions) -> usize {
    passed_through_with(json, provider, opts, false)
}

/// [`passed_through`] for the conversions that keep argument plans
/// ([`crate::convert::convert_json_named`], the object API's).
pub fn passed_through_named(json: &str, provider: Provider, opts: &SchemaOptions) -> usize {
    passed_through_with(json, provider, opts, true)
}

fn passed_through_with(json: &str, provider: Provider, opts: &SchemaOptions, plans: bool) -> usize {
    if !applies(provider, opts, false) {
        return 0;
    }
    prepare(json, &Bump::new(), provider, opts, false, plans).map_or(0, |p| p.pass.iter().filter(|p| p.is_some()).count())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Limits;
    use serde_json::json;

    fn passes(v: &Value, limits: Limits) -> bool {
        let text = json!([{ "name": "t", "inputSchema": v }]).to_string();
        let opts = SchemaOptions { limits, ..SchemaOptions::default() };
        // `None`: the tool is past a limit, and the general path reports it.
        prepare(&text, &Bump::new(), Provider::OpenAi, &opts, false, true).is_some_and(|p| p.pass[0].is_some())
    }

    fn clean(v: Value) -> bool {
        passes(&v, Limits::default())
    }

    #[test]
    fn clean_schemas_pass() {
        assert!(clean(json!({"type":"object","properties":{}})));
        assert!(clean(json!({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"array","items":{"type":"number"}}},"required":["a"],"additionalProperties":false})));
        assert!(clean(json!({"type":"object","properties":{"a":{"type":["string","null"],"enum":["x",null,1.5,-2,{"k":[]}]}},"$defs":{"d":{"type":"string"}}})));
        // A required name spelt without the escape its property key has: the same name.
        let text = r#"[{"name":"t","inputSchema":{"type":"object","properties":{"\u0061":{}},"required":["a"]}}]"#;
        let arena = Bump::new();
        assert!(prepare(text, &arena, Provider::OpenAi, &SchemaOptions::default(), false, true).unwrap().pass[0].is_some());
    }

    #[test]
    fn schemas_the_general_path_changes_do_not() {
        for v in [
            json!({"properties":{}}),                                  // type inferred
            json!({"type":["object","null"],"properties":{}}),          // root narrowed
            json!({"type":"object","properties":{},"anyOf":[]}),        // root combinator
            json!({"type":"object","properties":{},"enum":[{}]}),       // root enum (OpenAI)
            json!({"type":"object","properties":{"a":{"type":"Str"}}}), // unknown type
            json!({"type":"object","properties":{"a":{"type":"STRING"}}}), // type case
            json!({"type":"object","properties":{"a":{"type":"null\u{0}"}}}), // a type name and more
            json!({"type":"object","properties":{"a":{"type":["string","object\u{0}\u{0}"]}}}),
            json!({"type":"object","properties":{"a":{"type":null}}}),
            json!({"type":"object","properties":{"a":"string"}}),       // not a schema
            json!({"type":"object","properties":{"a":{"type":"array"}}}), // items added
            json!({"type":"object","properties":{"a":{"type":"object","required":["x"]}}}), // required names a missing property
            json!({"type":"object","properties":{"a":{}},"required":["b"]}),
            json!({"type":"object","properties":{"a":{}},"required":["a","a"]}),
            json!({"type":"object","properties":{"a":{"required":true}}}),
            json!({"type":"object","properties":{"a":{"$ref":5}}}),
            json!({"type":"object","properties":{"a":{"items":"x"}}}),
            json!({"type":"object","properties":{"a":{"anyOf":{}}}}),
            json!("a string"),
        ] {
            assert!(!clean(v.clone()), "{v}");
        }
    }

    /// A node that allows no value is reported by the general path (`report_disjoint_values`):
    /// the pass-through path leaves it there, and keeps the nodes whose limits leave a value.
    #[test]
    fn nodes_that_allow_no_value_go_the_general_way() {
        let with = |p: Value| json!({"type":"object","properties":{"a":p},"required":["a"]});
        for p in [
            json!({"type":"string","enum":[]}),
            json!({"type":"string","const":5}),
            json!({"type":"integer","enum":[1.5,"2"]}),
            json!({"type":"string","enum":["abc"],"maxLength":2}),
            json!({"type":"integer","minimum":10,"maximum":5}),
            json!({"type":"number","exclusiveMinimum":5,"exclusiveMaximum":5}),
            json!({"type":"integer","exclusiveMinimum":1,"maximum":1.5}),
            json!({"type":"string","minLength":2,"maxLength":1}),
            json!({"type":"array","items":{},"minItems":2,"maxItems":1}),
            json!({"type":"object","properties":{},"minProperties":2,"maxProperties":1}),
            json!({"enum":["a"],"const":"a"}),
            json!({"type":"array","items":{"enum":[]}}),
            json!(false),
        ] {
            assert!(!clean(with(p.clone())), "{p}");
        }
        for p in [
            json!({"type":"string","enum":["a"]}),
            json!({"type":["string","integer"],"enum":["a",1]}),
            json!({"type":"integer","enum":[1.0]}),
            json!({"type":"integer","minimum":5,"maximum":5}),
            json!({"type":"number","minimum":1.5,"maximum":1.6}),
            json!({"minimum":10,"maximum":5}),
            json!({"type":["string","null"],"minLength":2,"maxLength":1}),
            json!({"type":"string","const":"a","maxLength":1}),
        ] {
            assert!(clean(with(p.clone())), "{p}");
        }
        // `false` for a property that is not required: the property may not be given.
        assert!(clean(json!({"type":"object","properties":{"a":false}})));
    }

    /// A text is copied out of the buffer, but for a large one filling at least half of it,
    /// which is handed out whole (shrunk) while the buffer keeps its size.
    #[test]
    fn written_texts_are_what_was_written() {
        let mut buffer = Vec::new();
        let small = written(&mut buffer, |out| out.extend_from_slice(b"{}"));
        assert_eq!(small, b"{}");
        let capacity = buffer.capacity();
        assert!(capacity >= 2);
        let large: Vec<u8> = (0..40_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let text = written(&mut buffer, |out| out.extend_from_slice(&large));
        assert_eq!(text, large);
        assert_eq!(text.capacity(), large.len(), "handed out shrunk");
        assert!(buffer.is_empty() && buffer.capacity() >= large.len(), "a new buffer of the same size");
        // A large text in a much larger buffer is copied, and the buffer kept.
        let mut big = Vec::with_capacity(1 << 20);
        let text = written(&mut big, |out| out.extend_from_slice(&large[..20_000]));
        assert_eq!(text, &large[..20_000]);
        assert_eq!((big.len(), big.capacity()), (20_000, 1 << 20));
    }

    /// A schema read compact passes with its own text, to be copied
    /// (`read::SchemaNote::verbatim`); one that gets `properties: {}`, or has whitespace within
    /// it, is written from its tree.
    #[test]
    fn compact_schemas_pass_with_their_text() {
        let schemas = [r#"{"type":"object","properties":{"a":{"type":"string","description":"x\ny"}}}"#, r#"{"type":"object"}"#];
        // The second tool's schema is the first one's, with `space` within it.
        let tools = |schema: &str, space: &str| format!(r#"[{{"name":"t","inputSchema": {schema}}},{{"name":"u","inputSchema":{{{space}{}}}]"#, &schemas[0][1..]);
        let strict = SchemaOptions { strict: true, ..SchemaOptions::default() };
        for (provider, opts) in [(Provider::OpenAi, SchemaOptions::default()), (Provider::Bedrock, SchemaOptions::default()), (Provider::OpenAi, strict)] {
            for space in ["", " "] {
                let (text, arena) = (tools(schemas[0], space), Bump::new());
                let p = prepare(&text, &arena, provider, &opts, false, false).unwrap();
                // Strict OpenAI rewrites this schema, keeping the text for `strict: false`.
                fn verbatim<'a>(pass: &Option<Passed<'a>>) -> Option<&'a str> {
                    match pass {
                        Some(Passed::AsIs(_, true, v) | Passed::Strict { verbatim: v, .. }) => *v,
                        other => panic!("{other:?}"),
                    }
                }
                assert_eq!(verbatim(&p.pass[0]), Some(schemas[0]), "{provider:?}");
                assert_eq!(verbatim(&p.pass[1]), (space.is_empty()).then_some(schemas[0]), "{provider:?} {space:?}");
                let text = tools(schemas[1], space);
                let p = prepare(&text, &arena, provider, &opts, false, false).unwrap();
                assert!(matches!(p.pass[0], Some(Passed::AsIs(_, false, None)) | Some(Passed::Strict { verbatim: None, .. })), "{:?}", p.pass[0]);
            }
        }
    }

    #[test]
    fn refs_pass_as_they_are_except_for_gemini() {
        let text = json!([{ "name": "t", "inputSchema": {"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}} }]).to_string();
        let json_schema = SchemaOptions { gemini_mode: GeminiMode::JsonSchema, ..SchemaOptions::default() };
        assert!(matches!(prepare(&text, &Bump::new(), Provider::Anthropic, &json_schema, false, true).unwrap().pass[0], Some(Passed::AsIs(_, true, _))));
        // Gemini's parametersJsonSchema inlines them (fast::refs), and the input cannot stand for
        // the output.
        for with_report in [false, true] {
            let arena = Bump::new();
            let pass = prepare(&text, &arena, Provider::Gemini, &json_schema, with_report, true).unwrap().pass.remove(0);
            let Some(Passed::Written(text)) = pass else { panic!("not inlined on the borrowed tree") };
            assert_eq!(text, br#"{"type":"object","properties":{"a":{"type":"string"}}}"#);
        }
        assert!(!applies(Provider::Gemini, &SchemaOptions::default(), true), "parameters mode changes schemas, which a report lists");
        assert!(applies(Provider::Gemini, &SchemaOptions::default(), false), "...and fast::gemini lowers without a report");
        assert!(applies(Provider::Vertex, &json_schema, true));
        let strict = SchemaOptions { strict: true, ..SchemaOptions::default() };
        assert!(!applies(Provider::OpenAi, &strict, true), "strict mode changes schemas, which a report lists");
        assert!(applies(Provider::OpenAi, &strict, false), "...and fast::strict writes them without a report");
        assert!(applies(Provider::Anthropic, &strict, false) && !applies(Provider::Anthropic, &strict, true));
        // OpenAI strict mode inlines references (fast::refs), then writes the strict schema.
        assert!(matches!(prepare(&text, &Bump::new(), Provider::OpenAi, &strict, false, true).unwrap().pass[0], Some(Passed::Strict { .. })));
    }

    #[test]
    fn missing_properties_are_added_as_the_general_path_adds_them() {
        use crate::convert::{convert, convert_json, ConvertOptions};
        for schema in [
            json!({"type":"object"}),
            json!({"type":"object","required":[],"description":"d"}),
            json!({"type":"object","properties":{"a":{"type":"object","default":{}},"b":{"type":["object","null"]},"c":{"type":"array","items":{"type":"object"}}}}),
            json!({"type":"object","properties":{"m":{"additionalProperties":{"type":"object"}}},"$defs":{"D":{"type":"object"}}}),
        ] {
            assert!(clean(schema.clone()), "{schema}");
            let tools = json!([{ "name": "t", "inputSchema": schema }]);
            for provider in [Provider::OpenAi, Provider::Anthropic] {
                let general = convert(tools.clone(), provider, &ConvertOptions::default()).unwrap().tools.to_string();
                assert_eq!(convert_json(&tools.to_string(), provider, &ConvertOptions::default()).unwrap(), general);
            }
        }
    }

    /// A draft-03 schema with draft 3's own keywords goes the general way, which rewrites them
    /// (`schema::rewrite_draft3`): the JSON API writes what the object API does.
    #[test]
    fn draft3_keywords_go_the_general_way() {
        use crate::convert::{convert, convert_json, ConvertOptions};
        let schema = json!({"$schema":"http://json-schema.org/draft-03/schema#","type":"object","properties":{
            "b":{"type":"integer","divisibleBy":2},"e":{"extends":{"type":"string"}},"f":{"disallow":"integer"}}});
        assert!(!clean(schema.clone()));
        // Draft 3's union type, a `type` list with schemas, alone.
        let union = json!({"$schema":"http://json-schema.org/draft-03/schema#","type":"object","properties":{
            "a":{"type":["string",{"type":"integer","maximum":9}]}}});
        let tools = json!([{ "name": "t", "inputSchema": union }]);
        for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Bedrock, Provider::Gemini, Provider::Vertex] {
            let general = convert(tools.clone(), provider, &ConvertOptions::default()).unwrap().tools.to_string();
            assert!(general.contains("anyOf") && !general.contains("draft-03"), "{provider:?}: {general}");
            assert_eq!(convert_json(&tools.to_string(), provider, &ConvertOptions::default()).unwrap(), general, "{provider:?}");
        }
        let tools = json!([{ "name": "t", "inputSchema": schema }]);
        for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Bedrock, Provider::Gemini, Provider::Vertex] {
            let general = convert(tools.clone(), provider, &ConvertOptions::default()).unwrap().tools.to_string();
            assert!(!general.contains("divisibleBy") && !general.contains("draft-03"), "{provider:?}: {general}");
            assert_eq!(convert_json(&tools.to_string(), provider, &ConvertOptions::default()).unwrap(), general, "{provider:?}");
        }
    }

    #[test]
    fn type_names_are_the_seven_and_nothing_else() {
        for t in crate::schema::TYPE_NAMES {
            let expected = match *t {
                "object" => TypeName::Object,
                "array" => TypeName::Array,
                _ => TypeName::Other,
            };
            assert_eq!(type_name(t), expected, "{t}");
        }
        // Near misses, among them names with a NUL byte in place of their last (the same length,
        // and the same first bytes as the zero padding gives a shorter name).
        for t in ["", "Object", "objects", "objec", "obj", "arrays", "strin", "int", "integers", "bool", "nul", "null\0", "objec\0", "nul\0", "intege\0", "float", "any", "\u{e9}"] {
            assert_eq!(type_name(t), TypeName::Unknown, "{t:?}");
        }
    }

    #[test]
    fn duplicate_keys_are_found() {
        let entries = |keys: &[&'static str]| -> Vec<(Text<'static>, Node<'static>)> { keys.iter().map(|k| (Text::raw(k), Node::Null)).collect() };
        let long: Vec<String> = (0..100).map(|i| format!("property_{i:02}")).collect();
        let long: Vec<&'static str> = long.into_iter().map(|s| &*s.leak()).collect();
        // Each way: pairwise (up to 8 keys), hashed (9 to 64), a table on the heap (more); every
        // pair of positions made equal up to 65 keys.
        let long: Vec<&'static str> = long.into_iter().chain((100..1000).map(|i| &*format!("property_{i}").leak())).collect();
        for n in [0, 1, 2, 8, 9, 40, 63, 64, 65, 100, 129, 1000] {
            assert!(keys_unique(&entries(&long[..n])), "{n}");
            for a in 0..n {
                for b in a + 1..n {
                    if n > 65 && (a, b) != (0, n - 1) && (a, b) != (n / 2, n / 2 + 1) {
                        continue;
                    }
                    let mut keys = long[..n].to_vec();
                    keys[b] = keys[a];
                    assert!(!keys_unique(&entries(&keys)), "{n}: {a} and {b}");
                }
            }
        }
        // Two different keys with the same start slot and tag: their strings are compared, and
        // probing goes on past the first.
        let mut seen = std::collections::HashMap::new();
        let (a, b) = (0..100_000)
            .map(|i| format!("k{i}"))
            .find_map(|k| {
                let h = key_hash(k.as_bytes());
                seen.insert((h as u16 & 0xff80, h >> 57), k.clone()).map(|other| (other, k))
            })
            .expect("a pair within 100,000 keys");
        let (a, b): (&'static str, &'static str) = (a.leak(), b.leak());
        let mut keys = vec![a, b];
        keys.extend(&long[..7]);
        assert!(keys_unique(&entries(&keys)), "{a} and {b}");
        keys.push(b);
        assert!(!keys_unique(&entries(&keys)), "{a} and {b} twice");
        // Keys of every length from 0 to 24 (the hash reads eight bytes at a time, then what
        // is left), all distinct, then with one repeated.
        let lengths: Vec<&'static str> = (0..25).map(|n| &*"abcdefghijklmnopqrstuvwxyz"[..n].to_owned().leak()).collect();
        let mut mixed = lengths.clone();
        mixed.extend(["x", "xy", "xyz", "type", "types", "\u{e9}t\u{e9}"]);
        assert!(keys_unique(&entries(&mixed)));
        for i in 0..mixed.len() {
            let mut keys = mixed.clone();
            keys.push(mixed[i]);
            assert!(!keys_unique(&entries(&keys)), "{:?}", mixed[i]);
        }
        // Same length and first eight bytes, different after them; short keys equal in full.
        assert!(keys_unique(&entries(&["property_a", "property_b"])));
        assert!(!keys_unique(&entries(&["type", "a", "type"])));
        assert!(keys_unique(&entries(&["type", "typ", "types"])));
    }

    /// `read_value` reads what serde_json reads, or leaves the text to it.
    #[test]
    fn values_read_as_serde_json_reads_them() {
        let cases = [
            r#"{"server":"a","strict":true,"limits":{"maxDepth":3}}"#,
            r#"{"a":1,"b":[1,-2,3.5,1e3,-0,18446744073709551615,-9223372036854775808],"a":{"x":null}}"#,
            r#" [ "\u00e9\n\/", "\ud83d\ude00", {"": false} ] "#,
            "null",
            "12345678901234567890123",
        ];
        for text in cases {
            let expected: Value = serde_json::from_str(text).unwrap();
            assert_eq!(read_value(text), Some(expected), "{text}");
        }
        // Invalid JSON and a lone surrogate are left to serde_json, for its errors and repairs.
        for text in [r#"{"a":1,}"#, r#"["\ud800"]"#, "[1] x", ""] {
            assert_eq!(read_value(text), None, "{text}");
        }
    }

    #[test]
    fn duplicate_keys_go_the_general_way() {
        let text = r#"[{"name":"t","inputSchema":{"type":"object","properties":{"a":{}},"properties":{"b":{}}}}]"#;
        let arena = Bump::new();
        let p = prepare(text, &arena, Provider::OpenAi, &SchemaOptions::default(), false, true).unwrap();
        assert!(p.pass[0].is_none());
        // ...with the schema serde_json would have read: the last `properties`, in the first's place.
        assert_eq!(p.tools[0].input_schema, json!({"type":"object","properties":{"b":{}}}));
    }

    #[test]
    fn limits_go_the_general_way() {
        let v = json!({"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}});
        assert!(!passes(&v, Limits { max_depth: 2, ..Limits::default() }));
        assert!(passes(&v, Limits { max_depth: 3, ..Limits::default() }));
        assert!(!passes(&v, Limits { max_nodes: 2, ..Limits::default() }));
    }

    /// A tool is measured on its own whatever the text around it: what `prepare` makes of each
    /// tool is the same when the whole text is within the limits (nothing measured), past the
    /// node limit only (values counted) and with a duplicate key elsewhere (all measured).
    #[test]
    fn tools_are_measured_within_a_larger_text() {
        let tools = [
            r#"{"name":"small","inputSchema":{"type":"object","properties":{}}}"#,
            r#"{"name":"long","description":"a description of thirty bytes","inputSchema":{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]},"b":{"type":"array","items":{"type":"number"}}}}}"#,
            r##"{"name":"ref","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}}"##,
            r##"{"name":"out","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}},"outputSchema":{"$ref":"#/$defs/B","$defs":{"B":{}}}}"##,
            r#"{"name":"deep","inputSchema":{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{}}}}}}}}"#,
        ];
        let plain = format!("[{}]", tools.join(","));
        let duplicate = format!(r#"{{"tools":{plain},"x":{{"a":1,"a":2}}}}"#);
        let mut routes = [0; 3];
        for provider in [Provider::OpenAi, Provider::Gemini, Provider::Anthropic] {
            for (max_nodes, max_string_bytes, max_depth) in (1..40).map(|n| (n, 1 << 20, 64)).chain((1..34).map(|b| (100, b, 64))).chain((1..6).map(|d| (100, 1 << 20, d))) {
                let limits = Limits { max_nodes, max_string_bytes, max_depth, ..Limits::default() };
                let opts = SchemaOptions { limits, ..SchemaOptions::default() };
                let arena = Bump::new();
                let outcome = |text: &str| prepare(text, &arena, provider, &opts, false, true).map(|p| (format!("{:?}", p.pass), p.tools.iter().map(|t| t.input_schema.to_string()).collect::<Vec<_>>()));
                let figures = read::read_measured(&plain, &arena).unwrap().1;
                let within = figures.depth <= crate::convert::max_json_depth(&limits) && figures.longest_string <= max_string_bytes;
                routes[match (within, figures.nodes > max_nodes) { (false, _) => 0, (true, true) => 1, (true, false) => 2 }] += 1;
                assert_eq!(outcome(&plain), outcome(&duplicate), "{provider:?} {limits:?}");
            }
        }
        // Each way of measuring is taken.
        assert!(routes.iter().all(|&n| n > 0), "{routes:?}");
    }

    #[test]
    fn limit_errors_are_the_general_paths() {
        use crate::convert::{convert, convert_json, ConvertOptions};
        let tools = json!([{ "name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {"long_name": {"type": "string", "enum": ["a", "b", "c"]}}} }]);
        let text = tools.to_string();
        for limits in [
            Limits { max_nodes: 7, ..Limits::default() },
            Limits { max_nodes: 9, ..Limits::default() },
            Limits { max_string_bytes: 8, ..Limits::default() },
            Limits { max_depth: 1, ..Limits::default() },
            Limits { max_depth: 2, ..Limits::default() },
            Limits { max_tools: 0, ..Limits::default() },
            Limits::default(),
        ] {
            let mut opts = ConvertOptions::default();
            opts.schema.limits = limits;
            let general = convert(tools.clone(), Provider::OpenAi, &opts).map(|c| c.tools.to_string());
            let fast = convert_json(&text, Provider::OpenAi, &opts);
            match (general, fast) {
                (Ok(g), Ok(f)) => assert_eq!(g, f, "{limits:?}"),
                (Err(g), Err(f)) => assert_eq!((g.code, g.to_string()), (f.code, f.to_string()), "{limits:?}"),
                (g, f) => panic!("{limits:?}: {g:?} vs {f:?}"),
            }
        }
    }

    #[test]
    fn shapes_the_general_path_reads() {
        let tool = json!({"name": "t", "inputSchema": {"type": "object", "properties": {}}});
        for text in [json!([tool]), json!({"tools": [tool]}), json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool]}})] {
            let text = text.to_string();
            let arena = Bump::new();
            let p = prepare(&text, &arena, Provider::OpenAi, &SchemaOptions::default(), false, true).expect("read");
            assert_eq!(p.pass.len(), 1, "{text}");
        }
        for text in ["", "1", "[1]", "{}", r#"{"tools":{}}"#, "[{}] x", r#"[{"name":"t"},"#] {
            assert!(prepare(text, &Bump::new(), Provider::OpenAi, &SchemaOptions::default(), false, true).is_none(), "{text}");
        }
    }

    /// A tool's own fields are read as `Tool::from_value` reads them: the same output, the same
    /// errors, and the odd ones left to the general path.
    #[test]
    fn tool_fields_read_as_the_general_path_reads_them() {
        use crate::convert::{check_json, convert, convert_json, ConvertOptions};
        let schema = r#"{"type":"object","properties":{"a":{"type":"string"}}}"#;
        let odd = [
            (r#"{"name":"t","description":"d","title":"T"}"#, true),
            (r#"{"name":"t","description":"  ","title":"T"}"#, true),
            (r#"{"name":"t","description":null,"title":"T","serverName":"s"}"#, true),
            (r#"{"name":"t","serverName":null,"annotations":{"readOnlyHint":true},"outputSchema":{"type":"object"},"_meta":{"k":1},"icons":[]}"#, true),
            // A title that is not text is reported (`tool/not-text`), by the general path.
            (r#"{"name":"t","title":7,"serverName":"s"}"#, false),
            // A server name that is not text is the tool's error, from the general path.
            (r#"{"name":"t","serverName":["s"]}"#, false),
            (r#"{"name":"t\u00e9","description":"line\nbreak \ud83d\ude00"}"#, true),
            (r#"{"name":"t","name":"u"}"#, false),
            (r#"{"name":"t","description":"a","description":"b"}"#, false),
            (r#"{"name":""}"#, false),
            (r#"{"name":7}"#, false),
            (r#"{"title":"t"}"#, false),
        ];
        for (fields, fast) in odd {
            let tool = format!(r#"{}, "inputSchema":{schema}}}"#, &fields[..fields.len() - 1]);
            let text = format!("[{tool},{tool}]");
            let value: Value = serde_json::from_str(&text).unwrap();
            for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Gemini, Provider::Bedrock] {
                let opts = ConvertOptions { server: Some("srv".into()), ..ConvertOptions::default() };
                let (json, general) = (convert_json(&text, provider, &opts), convert(value.clone(), provider, &opts));
                match (&json, &general) {
                    (Ok(j), Ok(g)) => assert_eq!(*j, g.tools.to_string(), "{text}"),
                    (Err(j), Err(g)) => assert_eq!((j.code, &j.message), (g.code, &g.message), "{text}"),
                    _ => panic!("{text}: {json:?} against {general:?}"),
                }
                let checked = check_json(&text, provider, &opts).unwrap();
                assert_eq!(checked, crate::convert::check(value.clone(), provider, &opts).unwrap(), "{text}");
                assert_eq!(passed_through(&text, provider, &opts.schema) == 2, fast, "{text} for {provider:?}");
            }
        }
    }

    #[test]
    fn nodes_write_what_serde_json_writes() {
        let text = r#"{"a":"x\"\u00e9\ud83d\ude00\n","plain é 😀 /":"y","b":[1,-2,1.5,1e3,12345678901234567890,0.1,null,true,false],"c":{}}"#;
        let arena = Bump::new();
        let node = read::read(text, &arena).unwrap();
        let mut out = Vec::new();
        node.write(&mut out);
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), value.to_string());
        let mut size = JsonSize::default();
        assert!(node.measure(0, &mut size, &mut false));
        assert_eq!(size, crate::model::json_size(&value));
        assert_eq!(node.to_value(), value);
    }
}
