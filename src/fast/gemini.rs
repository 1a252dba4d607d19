//! Gemini `parameters` written straight from the borrowed tree, for the schemas whose lowering
//! is a plain rewrite node by node.
//!
//! Most MCP schemas need nothing of [`crate::providers::gemini`]'s lowering but its per-node
//! rules: every node typed (or typed by inference), `type` upper-cased, `null` in a type list or
//! an `Optional[...]`-style `anyOf` turned into `nullable`, unions of typed branches, keywords
//! outside Gemini's subset removed and described, `required` moved after the properties. For
//! those the general path's cost is all in its tree (an owned string and a hash for every key, a
//! map rebuilt per node); this module applies the same rules to the [`Node`] tree and writes the
//! result, never building a [`Value`](serde_json::Value) but for the few values a description
//! note quotes. Every one of the corpus's 1,265 tools is lowered here through the JSON API
//! (1,259 where the argument plans are kept, see below).
//!
//! [`lower_root`] lowers a node here when it is within its subset: at most one type besides
//! `null` (or none, where the general path infers one); no `allOf`; `oneOf` read as `anyOf` and
//! `const` as a one-value enum, as the general lowering reads them; an object's own
//! properties beside an `anyOf` copied into the branches (`distribute_into_branches`); a
//! union's branches objects; every `enum` an array, written as it is when its values are
//! distinct strings (and `null`s), else as strings, once each; every `required` a list of distinct names of existing properties; subschemas that are
//! objects, arrays with `items`, and the limits not reached. An enum of values that are not all
//! strings needs an argument plan to map arguments back, which the general path makes: such a
//! schema is lowered here only for a caller that keeps no plans ([`Levels::plans`], the JSON
//! API). A subschema outside the subset (under `properties` or `items`, or a union's branch) is
//! handed to the general lowering from where it stands ([`lower_general`]): counted against
//! the limits as the general path counts it, kept as the `Value` it gives, and written as the
//! general path writes it there; a union of unions has its alternatives spliced in as the
//! general path splices them. Where that lowering would change more than the subschema (it
//! needs an argument plan the caller keeps, or accepts no value and so removes a property) or
//! fails, and for a root outside the subset (root combinators are merged first), the whole
//! schema goes the general way.
//!
//! Schemas with `$ref`s are inlined on the borrowed tree ([`super::refs`]) or, where that
//! declines, by the general path ([`crate::schema::refs`]), with the expansions that several
//! places share left as placeholders; without a change log their lowering comes here (from
//! [`super::refs`], or [`super::lower_inlined`] on a tree borrowed from the inlined `Value`): a
//! shared expansion is lowered and written once and its text spliced in wherever the general
//! path splices it ([`lower_shared`]), counted against the limits as the general path counts
//! it. Such a schema has no subschema handed to the general lowering.
//!
//! Within the subset the output is the general path's byte for byte, key order included: the
//! general path works on `serde_json` maps, whose `remove` is a swap-remove, and [`Map`]
//! repeats each of its removals and insertions in the same order. Changes are not reported (so
//! the path serves only conversions without a change log, as `$ref` sharing does), and no
//! argument plan is made (see above). `tests/corpus.rs`, `tests/properties.rs` and
//! the `schema_convert` fuzz target compare the two paths.

use std::mem::ManuallyDrop;

use bumpalo::collections::{String as ArenaString, Vec as List};
use bumpalo::{vec as list, Bump};

use super::{Levels, Map, Node, Text};
use crate::model::{string, NamePositions, NameSet, Put as _};
use crate::schema::walk::{head, head_of, rest_equal, ValueRule};
use crate::providers::gemini;
use crate::schema::refs::Shared;
use crate::schema::Cx;
use serde_json::Value;
use crate::schema::lower::{fixed_hint, keyword_hint, unhinted};
use crate::text::Owned as _;
use crate::text;

/// Gemini's types, and their wire spelling.
const TYPES: [&str; 6] = ["string", "number", "integer", "boolean", "array", "object"];
const WIRE_TYPES: [&str; 6] = ["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"];
const STRING: usize = 0;
const NUMBER: usize = 1;
const INTEGER: usize = 2;
const BOOLEAN: usize = 3;
const ARRAY: usize = 4;
const OBJECT: usize = 5;

/// The counts written as decimal strings on the wire (see `gemini::write_wire`).
const COUNTS: [&str; 6] = ["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"];

/// A value Gemini's int64 count fields take: a non-negative integer up to `i64::MAX` (a count
/// past it goes the general way, `gemini::int64_counts`).
fn is_count(value: &Node) -> bool {
    matches!(value, Node::Num(n) if n.as_u64().is_some_and(|n| n <= i64::MAX as u64))
}

/// The `properties: {}` that `process_json_schema` adds to a root without one.
static NO_PROPERTIES: Node<'static> = Node::Obj(&[]);
/// The values the lowering puts into a node it merges a branch into.
static TRUE: Node<'static> = Node::Bool(true);
static TYPE_NODES: [Node<'static>; 6] = [
    Node::Str(Text::raw("string")),
    Node::Str(Text::raw("number")),
    Node::Str(Text::raw("integer")),
    Node::Str(Text::raw("boolean")),
    Node::Str(Text::raw("array")),
    Node::Str(Text::raw("object")),
];

/// One value of a lowered node.
enum Item<'n> {
    /// `type`, as an index in [`TYPES`].
    Type(usize),
    /// An input value, written as it is (a count as a decimal string).
    Raw(&'n Node<'n>),
    /// A description with notes appended (in the arena).
    Text(&'n str),
    /// `nullable: true`.
    True,
    /// Lowered properties.
    Properties(&'n [(&'n str, Lowered<'n>)], bool),
    /// Lowered `items`.
    Items(&'n Lowered<'n>),
    /// Lowered `anyOf` branches (a list the arena frees, as [`Map`]).
    AnyOf(ManuallyDrop<List<'n, Lowered<'n>>>),
    /// An `enum` of strings, its `null`s left out (they make the node `nullable`).
    Enum(&'n [Node<'n>]),
    /// A shared `$ref` expansion, lowered and written (see [`lower_shared`]).
    Spliced(&'n [u8]),
    /// A subschema outside the subset, as the general lowering gives it (see [`lower_general`]):
    /// its index in `Levels::general`, which holds it.
    General(usize),
}

// A lowered tree is in the arena and owns nothing beyond it: it is never dropped (see `Map`),
// and an item must not need to be.
const _: () = assert!(!std::mem::needs_drop::<Item>());

impl Item<'_> {
    /// The string this value is, if it is one (a description, as the general path reads it).
    fn as_str(&self) -> Option<&str> {
        match self {
            Item::Raw(Node::Str(s)) => Some(s),
            Item::Text(s) => Some(s),
            _ => None,
        }
    }
}

/// A lowered node: its entries in the order the general path's map has them; or, as its only
/// entry, the text of a shared expansion ([`Item::Spliced`]), which the general path's
/// placeholder stands for.
struct Lowered<'n>(Map<'n, Item<'n>>);

/// The `parameters` of a tool whose schema is `root`: `Some(Some(text))`, or `Some(None)` when
/// the general path omits `parameters` (a tool without arguments); `None` when the schema is
/// outside the subset and must go the general way. The caller has made sure that no `$ref`
/// appears in it (`Node::measure`), or that those left are the placeholders of shared
/// expansions ([`super::lower_inlined`]) or keywords the general path describes as this does.
/// `arena` holds the lowered tree until it is written ([`Parameters::write`]), where the
/// caller wants it: on its own, or straight into the output (see `super::Declarations`).
pub(crate) fn lower_root<'n>(root: &'n Node<'n>, levels: &mut Levels<'n>, arena: &'n Bump) -> Option<Option<Parameters<'n>>> {
    let mut lowered = lower_root_node(root, levels, arena)?;
    // gemini::compile: the root is an object (an `enum` would have made it a string), without
    // `nullable`; with no properties left and nothing but `type`, `description` and `title`, it
    // is omitted.
    let m = &mut lowered.0;
    if !matches!(m.get("type"), Some(Item::Type(OBJECT))) {
        return None;
    }
    m.take("nullable");
    if !m.has("properties") && m.0.iter().all(|(k, _)| matches!(*k, "type" | "description" | "title")) {
        return Some(None);
    }
    Some(Some(Parameters(lowered, std::mem::take(&mut levels.general))))
}

/// A tool's `parameters`, lowered by [`lower_root`], not yet written, and the subschemas of
/// the general lowering it holds ([`Item::General`]).
pub(crate) struct Parameters<'n>(Lowered<'n>, Vec<Value>);

impl Parameters<'_> {
    /// The `parameters` as the general path writes them (`gemini::write_wire`).
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        self.0.write(out, &self.1);
    }
}

/// `gemini::lower` on a subschema.
fn lower<'n>(node: &'n Node<'n>, levels: &mut Levels<'n>, arena: &'n Bump) -> Option<Lowered<'n>> {
    if let Node::Obj(entries) = node {
        if let (Some(_), [(key, Node::Str(value))]) = (&levels.splicing, &entries[..]) {
            if let Some(i) = Shared::placeholder_entry(key, value) {
                let text = lower_shared(i, levels, arena)?;
                return Some(Lowered(Map::new(list![in arena; ("", Item::Spliced(text))])));
            }
        }
        let counts = (levels.depth, levels.nodes, levels.peak);
        if let Some(lowered) = lower_entered(entries_of(entries, 0, arena), levels, arena) {
            return Some(lowered);
        }
        (levels.depth, levels.nodes, levels.peak) = counts;
    }
    lower_general(|| node.to_value(), levels, arena)
}

/// A subschema outside the subset, lowered by the general lowering (`gemini::lower`) from
/// where this one stands, counted as it counts, and written as the general path writes it
/// there. `None` (and nothing more is tried above it) where that fails, would not be spliced in
/// as it is (it accepts no value, or needs an argument plan), or holds shared expansions.
/// `value` gives the subschema as the general lowering has it.
fn lower_general<'n>(value: impl FnOnce() -> Value, levels: &mut Levels, arena: &'n Bump) -> Option<Lowered<'n>> {
    if levels.gave_up || levels.splicing.is_some() {
        return None;
    }
    let mut cx = Cx::resumed(levels.limits, levels.depth, levels.nodes);
    let Some(schema) = gemini::lower_subschema(value(), &mut cx, levels.vertex, levels.plans) else {
        levels.gave_up = true;
        return None;
    };
    levels.nodes = cx.nodes();
    levels.peak = levels.peak.max(cx.peak());
    levels.general.push(schema);
    Some(Lowered(Map::new(list![in arena; ("", Item::General(levels.general.len() - 1))])))
}

/// `gemini::lower_shared`: shared expansion `i` lowered and written once, as [`Levels::shared`]
/// does it, its text kept in the arena with the trees that splice it in.
fn lower_shared<'n>(i: usize, levels: &mut Levels<'n>, arena: &'n Bump) -> Option<&'n [u8]> {
    levels.shared(i, |node, levels| {
        let lowered = lower(node, levels, arena)?;
        // Written first where every expansion is (see `fast::written`). No subschema goes to the
        // general lowering where expansions are shared (`lower_general`).
        debug_assert!(levels.general.is_empty());
        let buffer = &mut levels.splicing.as_mut()?.buffer;
        buffer.clear();
        lowered.write(buffer, &[]);
        Some(arena.alloc_slice_copy(buffer))
    })
}

/// The root: `process_json_schema` (an object root as it is, `properties: {}` appended if
/// missing, draft-3 `required: true` flags lifted (not here), `required` checked (by
/// [`lower_map`])), then `gemini::compile`'s root combinators merged (not here) and the
/// lowering.
fn lower_root_node<'n>(root: &'n Node<'n>, levels: &mut Levels<'n>, arena: &'n Bump) -> Option<Lowered<'n>> {
    let Node::Obj(entries) = root else { return None };
    let mut o = entries_of(entries, 1, arena);
    // Root combinators are merged first (not here).
    if o.get_word(Word::Type).and_then(Node::as_str) != Some("object") || o.has_word(Word::AnyOf) || o.has_word(Word::OneOf) || o.has_word(Word::AllOf) {
        return None;
    }
    match o.get_word(Word::Properties) {
        None => o.0.push(("properties", In(Word::Properties, &NO_PROPERTIES))),
        Some(Node::Obj(props)) => {
            if props.iter().any(|(_, p)| matches!(p.get("required"), Some(Node::Bool(_)))) {
                return None;
            }
        }
        Some(_) => return None,
    }
    lower_entered(o, levels, arena)
}

/// `gemini::lower` on a node's entries: one schema level entered.
fn lower_entered<'n>(o: Map<'n, In<'n>>, levels: &mut Levels<'n>, arena: &'n Bump) -> Option<Lowered<'n>> {
    levels.enter().then_some(())?;
    let lowered = lower_map(o, levels, arena)?;
    levels.depth -= 1;
    Some(lowered)
}

/// An entry of an input node as [`lower_map`] reads it: its value, and its key classed once
/// ([`word`]), so that the keys are not classed again and the keywords are looked up by class.
#[derive(Clone, Copy)]
struct In<'n>(Word, &'n Node<'n>);

/// A node's entries, each key classed ([`In`]), with room for `room` more.
fn entries_of<'n>(entries: &'n [(Text<'n>, Node<'n>)], room: usize, arena: &'n Bump) -> Map<'n, In<'n>> {
    // Sized at once and filled in place: `from_iter_in` pushed each entry with a call of its
    // own (out of line at `opt-level = "z"`).
    let mut list = List::with_capacity_in(entries.len() + room, arena);
    list.resize(entries.len(), ("", In(Word::Other, &NO_PROPERTIES)));
    for (slot, (k, v)) in list.iter_mut().zip(entries) {
        *slot = (k.as_ref(), In(word(k), v));
    }
    Map::new(list)
}

/// The lookups of [`lower_map`] by a keyword's class: a byte compared per entry where a key
/// was compared as a string. A keyword's class is that keyword alone ([`word`] compares the
/// whole key), so each finds what the lookup by key finds, and removes it the same way.
impl<'n> Map<'n, In<'n>> {
    fn word_position(&self, w: Word) -> Option<usize> {
        debug_assert!(w != Word::Other);
        self.0.iter().position(|(_, In(x, _))| *x == w)
    }
    fn get_word(&self, w: Word) -> Option<&'n Node<'n>> {
        self.word_position(w).map(|i| self.0[i].1 .1)
    }
    fn has_word(&self, w: Word) -> bool {
        self.word_position(w).is_some()
    }
    fn take_word(&mut self, w: Word) -> Option<&'n Node<'n>> {
        self.word_position(w).map(|i| self.0.swap_remove(i).1 .1)
    }
    /// `insert` of keyword `key`, of class `w`.
    fn put_word(&mut self, key: &'n str, w: Word, value: &'n Node<'n>) {
        debug_assert_eq!(word(key), w);
        match self.word_position(w) {
            Some(i) => self.0[i].1 = In(w, value),
            None => self.0.push((key, In(w, value))),
        }
    }
}

/// Bits for the keys [`lower_map`] looks up: those a node has, classed in one pass
/// ([`key_bits`]), and those it wrote.
mod keys {
    /// `allOf`: outside the subset.
    pub(super) const REFUSED: u16 = 1;
    pub(super) const PROPERTIES: u16 = 1 << 1;
    pub(super) const TYPE: u16 = 1 << 2;
    pub(super) const ANY_OF: u16 = 1 << 3;
    pub(super) const NULLABLE: u16 = 1 << 4;
    pub(super) const ENUM: u16 = 1 << 5;
    pub(super) const DEFAULT: u16 = 1 << 6;
    pub(super) const REQUIRED: u16 = 1 << 7;
    pub(super) const ITEMS: u16 = 1 << 8;
    pub(super) const CONST: u16 = 1 << 9;
    pub(super) const ONE_OF: u16 = 1 << 10;
}

/// The [`keys`] bits of the keys `o` has.
fn key_bits(o: &Map<In>) -> u16 {
    o.0.iter().fold(0, |bits, (_, In(w, _))| {
        bits | match w {
            Word::AllOf => keys::REFUSED,
            Word::OneOf => keys::ONE_OF,
            Word::Const => keys::CONST,
            Word::Properties => keys::PROPERTIES,
            Word::Type => keys::TYPE,
            Word::AnyOf => keys::ANY_OF,
            Word::Nullable => keys::NULLABLE,
            Word::Enum => keys::ENUM,
            Word::Default => keys::DEFAULT,
            _ => 0,
        }
    })
}

/// The keywords [`lower_map`] tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    Type,
    Enum,
    Items,
    Title,
    AnyOf,
    OneOf,
    AllOf,
    Const,
    Format,
    Default,
    Example,
    Pattern,
    Minimum,
    Maximum,
    Examples,
    Required,
    MinItems,
    MaxItems,
    Nullable,
    MinLength,
    MaxLength,
    Properties,
    Description,
    MinProperties,
    MaxProperties,
    PropertyOrdering,
    PatternProperties,
    AdditionalProperties,
    Other,
}

/// Classes a key by its length and first eight bytes, as `walk::keyword` does: one integer
/// compare per candidate where a chain of string compares would call `memcmp` for each (a
/// byte loop in wasm), then in full for the keywords longer than eight bytes.
fn word(key: &str) -> Word {
    const fn h(k: &str) -> u64 {
        head_of(k.as_bytes())
    }
    const TYPE: u64 = h("type");
    const ENUM: u64 = h("enum");
    const ITEMS: u64 = h("items");
    const TITLE: u64 = h("title");
    const ANY_OF: u64 = h("anyOf");
    const ONE_OF: u64 = h("oneOf");
    const ALL_OF: u64 = h("allOf");
    const CONST: u64 = h("const");
    const FORMAT: u64 = h("format");
    const DEFAULT: u64 = h("default");
    const EXAMPLE: u64 = h("example");
    const PATTERN: u64 = h("pattern");
    const MINIMUM: u64 = h("minimum");
    const MAXIMUM: u64 = h("maximum");
    const EXAMPLES: u64 = h("examples");
    const REQUIRED: u64 = h("required");
    const MIN_ITEMS: u64 = h("minItems");
    const MAX_ITEMS: u64 = h("maxItems");
    const NULLABLE: u64 = h("nullable");
    const MIN_LENG: u64 = h("minLength");
    const MAX_LENG: u64 = h("maxLength");
    const MIN_PROP: u64 = h("minProperties");
    const MAX_PROP: u64 = h("maxProperties");
    const PROPERTI: u64 = h("properties");
    const DESCRIPT: u64 = h("description");
    const PROPERTY: u64 = h("propertyOrdering");
    const PATTERN_: u64 = h("patternProperties");
    const ADDITION: u64 = h("additionalProperties");
    let k = key.as_bytes();
    let (class, full) = match (k.len(), head(k)) {
        (4, TYPE) => return Word::Type,
        (4, ENUM) => return Word::Enum,
        (5, ITEMS) => return Word::Items,
        (5, TITLE) => return Word::Title,
        (5, ANY_OF) => return Word::AnyOf,
        (5, ONE_OF) => return Word::OneOf,
        (5, ALL_OF) => return Word::AllOf,
        (5, CONST) => return Word::Const,
        (6, FORMAT) => return Word::Format,
        (7, DEFAULT) => return Word::Default,
        (7, EXAMPLE) => return Word::Example,
        (7, PATTERN) => return Word::Pattern,
        (7, MINIMUM) => return Word::Minimum,
        (7, MAXIMUM) => return Word::Maximum,
        (8, EXAMPLES) => return Word::Examples,
        (8, REQUIRED) => return Word::Required,
        (8, MIN_ITEMS) => return Word::MinItems,
        (8, MAX_ITEMS) => return Word::MaxItems,
        (8, NULLABLE) => return Word::Nullable,
        (9, MIN_LENG) => (Word::MinLength, "minLength"),
        (9, MAX_LENG) => (Word::MaxLength, "maxLength"),
        (10, PROPERTI) => (Word::Properties, "properties"),
        (11, DESCRIPT) => (Word::Description, "description"),
        (13, MIN_PROP) => (Word::MinProperties, "minProperties"),
        (13, MAX_PROP) => (Word::MaxProperties, "maxProperties"),
        (16, PROPERTY) => (Word::PropertyOrdering, "propertyOrdering"),
        (17, PATTERN_) => (Word::PatternProperties, "patternProperties"),
        (20, ADDITION) => (Word::AdditionalProperties, "additionalProperties"),
        _ => return Word::Other,
    };
    if rest_equal(k, full.as_bytes()) {
        class
    } else {
        Word::Other
    }
}

/// `gemini::lower_object` on the entries of a node of the subset.
fn lower_map<'n>(mut o: Map<'n, In<'n>>, levels: &mut Levels<'n>, arena: &'n Bump) -> Option<Lowered<'n>> {
    let mut has = key_bits(&o);
    if has & keys::REFUSED != 0 {
        return None;
    }
    // gemini::lower_object removes keyword values of the wrong kind (`fix_keyword_values`), reads
    // draft 4's boolean bounds as numbers and makes a count written `2.0` an integer, before all
    // else: such a node goes the general way.
    let wrong_kind = |(key, In(_, value)): &(&str, In)| {
        crate::schema::walk::value_rule(key).is_some_and(|r| !super::fits(r, value) || (r == ValueRule::Count && !is_count(value)))
    };
    // Nor an entry of `patternProperties` whose key is no regular expression.
    let bad_pattern = |(key, In(_, value)): &(&str, In)| *key == "patternProperties" && matches!(value, Node::Obj(m) if m.iter().any(|(k, _)| !crate::schema::walk::regex_parses(k)));
    if o.0.iter().any(|e| wrong_kind(e) || bad_pattern(e)) {
        return None;
    }
    // Nor a `contains` that `minContains: 0` turns off (`take_unrequired_contains`).
    if o.has("contains") && matches!(o.get("minContains"), Some(In(_, Node::Num(n))) if n.as_f64() == Some(0.0)) {
        return None;
    }
    // Nor one with draft 3's `required: true` (or `false`) on a property: lifted into its own
    // `required` there.
    if has & keys::PROPERTIES != 0 && matches!(o.get_word(Word::Properties), Some(Node::Obj(props)) if props.iter().any(|(_, p)| matches!(p.get("required"), Some(Node::Bool(_))))) {
        return None;
    }
    // `oneOf` read as `anyOf` ("exactly one" is not expressible). Beside an `anyOf` (both must
    // hold: the general path keeps the `anyOf` and describes the `oneOf`), the general way.
    if has & keys::ONE_OF != 0 {
        if has & keys::ANY_OF != 0 {
            return None;
        }
        let one = o.take_word(Word::OneOf);
        let branches: List<Node> = match one {
            Some(Node::Arr(b)) => List::from_iter_in(b.iter().cloned(), arena),
            _ => List::new_in(arena),
        };
        o.put_word("anyOf", Word::AnyOf, arena.alloc(Node::Arr(branches.into_bump_slice())));
        has |= keys::ANY_OF;
    }
    // A `type` beside the union narrows its branches (`gemini::narrow_branches`): where that
    // changes any branch, or the node's `null`, the general way.
    if has & keys::TYPE != 0 && has & keys::ANY_OF != 0 && !within_type(&o) {
        return None;
    }
    // A lookup of a key the node does not have is skipped (a `take` of one changes nothing).
    // gemini::lower_object reads whether the node is object-like from its own types: its
    // `properties` count where its `type` names object or no type at all.
    let names = || type_names(if has & keys::TYPE != 0 { o.get_word(Word::Type) } else { None });
    let object_like = names().any(|t| t == "object") || has & keys::PROPERTIES != 0 && names().next().is_none();
    let mut has = if object_like && has & keys::ANY_OF != 0 {
        // gemini::lower_object: the object's own properties distributed into the branches.
        let Some(Node::Arr(branches)) = o.get_word(Word::AnyOf) else { return None };
        distribute(&mut o, branches, arena)?;
        key_bits(&o)
    } else if has & keys::PROPERTIES != 0 && has & keys::ANY_OF != 0 {
        // On a node whose `type` leaves out object they go into no branch: removed there, with
        // its `required` (gemini/not-object), as the general path removes them.
        o.take_word(Word::Properties);
        o.take_word(Word::Required);
        key_bits(&o)
    } else {
        has
    };
    // `const` as a one-value enum, unless there is an enum.
    if has & keys::CONST != 0 {
        // Beside an enum, the two are intersected there.
        if has & keys::ENUM != 0 {
            return None;
        }
        if let Some(c) = o.take_word(Word::Const) {
            if has & keys::ENUM == 0 {
                o.put_word("enum", Word::Enum, arena.alloc(Node::Arr(arena.alloc_slice_fill_iter([*c]))));
                has |= keys::ENUM;
            }
        }
    }
    // Step 4: null handling, one type. A `null` type or branch beside an enum without null is
    // not expressed (`gemini/enum-type`, reported there).
    let enum_without_null = has & keys::ENUM != 0 && matches!(o.get_word(Word::Enum), Some(Node::Arr(values)) if !values.iter().any(|v| matches!(v, Node::Null)));
    let mut nullable = has & keys::NULLABLE != 0 && matches!(o.take_word(Word::Nullable), Some(Node::Bool(true)));
    let mut declared = None;
    match if has & keys::TYPE != 0 { o.take_word(Word::Type) } else { None } {
        None => {}
        // `null` alone: `gemini::only_null`, reported there.
        Some(Node::Str(t)) if t == "null" => return None,
        Some(Node::Str(t)) => declared = Some(TYPES.iter().position(|k| *k == t.as_str())?),
        Some(Node::Arr(ts)) => {
            for t in ts.iter() {
                match t.as_str() {
                    Some("null") if enum_without_null => return None,
                    Some("null") => nullable = true,
                    Some(t) if declared.is_none() => declared = Some(TYPES.iter().position(|k| *k == t)?),
                    _ => return None,
                }
            }
            declared?;
        }
        Some(_) => return None,
    }
    match if has & keys::ANY_OF != 0 { o.take_word(Word::AnyOf) } else { None } {
        None => {}
        // One branch besides `null`s: merged into the node (the node's own keys win).
        Some(Node::Arr(branches)) => {
            let kept = List::from_iter_in(branches.iter().filter(|b| b.get("type").and_then(Node::as_str) != Some("null")), arena);
            if kept.len() < branches.len() && enum_without_null {
                return None;
            }
            nullable |= kept.len() < branches.len();
            let branch = match kept[..] {
                [Node::Obj(branch)] => branch,
                [] | [_] => return None,
                _ => return lower_union(o, &kept, declared, nullable, levels, arena),
            };
            // Room for the node's keys, `type` and `nullable`: a push past a map's capacity
            // moves it in the arena.
            let mut merged = entries_of(branch, o.0.len() + 2, arena);
            // gemini::lower_object: a description on both, joined.
            let joined = match (o.get_word(Word::Description), merged.get_word(Word::Description)) {
                (Some(Node::Str(n)), Some(Node::Str(d))) => Some(gemini::joined_description(n, d)),
                _ => None,
            };
            for (k, v) in o.into_entries() {
                merged.insert(k, v);
            }
            if let Some(j) = joined {
                merged.put_word("description", Word::Description, arena.alloc(text_node(&j, arena)));
            }
            if let Some(t) = declared {
                merged.put_word("type", Word::Type, &TYPE_NODES[t]);
            }
            if nullable {
                merged.put_word("nullable", Word::Nullable, &TRUE);
            }
            return lower_map(merged, levels, arena);
        }
        Some(_) => {}
    }
    // An enum with values of another type than the node's one, or a null the node does not
    // allow: removed by the general path (`gemini/enum-type`).
    if let (Some(t), Some(Node::Arr(values))) = (declared, if has & keys::ENUM != 0 { o.get_word(Word::Enum) } else { None }) {
        if values.iter().any(|v| !of_type(v, t) || (matches!(v, Node::Null) && !nullable)) {
            return None;
        }
    }
    // Step 5: a missing type inferred.
    let declared = match declared {
        Some(t) => t,
        None => infer_type(&o)?,
    };
    // An enum makes the node a string. Its values are written as they are when they are
    // distinct strings (and `null`s, which make it nullable); else as strings, once each, where
    // values that are not strings need an argument plan to map arguments back: the general path
    // makes it, unless the caller has no use for plans.
    let mut rewritten: Option<&'n [Node<'n>]> = None;
    let (ty, enumerated) = match if has & keys::ENUM != 0 { o.get_word(Word::Enum) } else { None } {
        // `null` alone: `gemini::only_null`, reported there.
        Some(Node::Arr(values)) if !values.is_empty() && values.iter().all(|v| matches!(v, Node::Null)) => return None,
        Some(Node::Arr(values)) => {
            // A few values compared with those before them; more through a set (an enum may
            // hold thousands, and comparing each with all before it was quadratic).
            let distinct = if values.len() <= NameSet::FEW {
                values.iter().enumerate().all(|(i, v)| match v {
                    Node::Str(s) => !values[..i].iter().any(|w| w.as_str() == Some(s.as_ref())),
                    Node::Null => true,
                    _ => false,
                })
            } else {
                let mut seen = NameSet::default();
                values.iter().all(|v| match v {
                    Node::Str(s) => seen.insert(s.as_str()),
                    Node::Null => true,
                    _ => false,
                })
            };
            if !distinct {
                if levels.plans && values.iter().any(|v| !matches!(v, Node::Str(_) | Node::Null)) {
                    return None;
                }
                rewritten = Some(enum_strings(values, arena));
            }
            (STRING, true)
        }
        _ => (declared, false),
    };
    // Room for `type`, `nullable` and a `description` for the notes besides the node's keys: a
    // push past a map's capacity moves it in the arena.
    let mut out: Map<'n, Item<'n>> = Map::new(List::with_capacity_in(o.0.len() + 3, arena));
    out.0.push(("type", Item::Type(ty)));
    let mut hints = ArenaString::new_in(arena);
    // The node's keys are distinct (a schema with duplicate keys goes the general way, and
    // merged maps are built by `insert`), and each is written under its own name but
    // `examples`, written as `example`: only `example` may be there already, so every other key
    // is pushed, and `wrote` keeps which of those looked up below were.
    debug_assert!(o.0.iter().enumerate().all(|(i, (k, _))| o.0[..i].iter().all(|(q, _)| q != k)), "keys repeat");
    let mut wrote = 0u16;
    // A tuple with `items` beside it: `items` is then `anyOf` both (the general lowering).
    if ty == ARRAY && o.has("prefixItems") && o.has_word(Word::Items) {
        return None;
    }
    for (key, In(class, value)) in o.into_entries() {
        match class {
            Word::Properties if ty == OBJECT => {
                let Node::Obj(props) = value else { continue };
                let mut lowered = List::with_capacity_in(props.len(), arena);
                for (name, sub) in props.iter() {
                    lowered.push((name.as_ref(), lower(sub, levels, arena)?));
                }
                out.0.push(("properties", Item::Properties(lowered.into_bump_slice(), super::plain(props))));
                wrote |= keys::PROPERTIES;
            }
            Word::Required if ty == OBJECT => {
                out.0.push(("required", Item::Raw(value)));
                wrote |= keys::REQUIRED;
            }
            Word::Items if ty == ARRAY => match value {
                Node::Obj(_) => {
                    out.0.push(("items", Item::Items(arena.alloc(lower(value, levels, arena)?))));
                    wrote |= keys::ITEMS;
                }
                _ => return None,
            },
            Word::Enum => {
                if let Node::Arr(values) = value {
                    nullable |= values.iter().any(|v| matches!(v, Node::Null));
                    out.0.push(("enum", Item::Enum(rewritten.unwrap_or(values))));
                }
            }
            // An enum's default, a string too.
            Word::Default if enumerated && !matches!(value, Node::Str(_) | Node::Null) => {
                out.0.push((key, Item::Raw(arena.alloc(text_node(&crate::args::enum_string(&value.to_value()), arena)))));
            }
            Word::Format => {
                let kept = matches!(
                    (ty, value.as_str()),
                    (STRING, Some("enum" | "date-time")) | (NUMBER, Some("float" | "double")) | (INTEGER, Some("int32" | "int64"))
                );
                if kept {
                    out.0.push(("format", Item::Raw(value)));
                } else {
                    hint(&mut hints, key, value);
                }
            }
            // One example; others (described), none (removed) or one beside `example` (kept,
            // the other described) the general way.
            Word::Examples => match value {
                Node::Arr([only]) if out.get("example").is_none() => out.insert("example", Item::Raw(only)),
                _ => return None,
            },
            // As gemini::lower_object: a value of another type than the field's is described.
            Word::MinItems | Word::MaxItems if ty == ARRAY && is_count(value) => out.0.push((key, Item::Raw(value))),
            Word::MinLength | Word::MaxLength if ty == STRING && is_count(value) => out.0.push((key, Item::Raw(value))),
            Word::Pattern if ty == STRING && matches!(value, Node::Str(_)) => out.0.push((key, Item::Raw(value))),
            Word::Minimum | Word::Maximum if (ty == NUMBER || ty == INTEGER) && matches!(value, Node::Num(_)) => out.0.push((key, Item::Raw(value))),
            Word::MinProperties | Word::MaxProperties if ty == OBJECT && is_count(value) => out.0.push((key, Item::Raw(value))),
            Word::Example if out.get("example").is_some() => return None,
            Word::Example => out.insert(key, Item::Raw(value)),
            Word::Title | Word::Description if matches!(value, Node::Str(_)) => out.0.push((key, Item::Raw(value))),
            Word::Default | Word::PropertyOrdering => out.0.push((key, Item::Raw(value))),
            Word::Properties
            | Word::Required
            | Word::AdditionalProperties
            | Word::PatternProperties
            | Word::MinProperties
            | Word::MaxProperties
                if ty != OBJECT => {}
            Word::AdditionalProperties if matches!(value, Node::Bool(false)) => {}
            _ => hint(&mut hints, key, value),
        }
    }
    // Step 6: gemini::fix_object (`required` moved last, an empty `properties` removed).
    if ty == OBJECT {
        let required = if wrote & keys::REQUIRED != 0 { out.take("required") } else { None };
        let names: &[(&str, Lowered)] = match if wrote & keys::PROPERTIES != 0 { out.get("properties") } else { None } {
            Some(Item::Properties(p, _)) => p,
            _ => &[],
        };
        let empty = names.is_empty();
        match required {
            None => {}
            Some(Item::Raw(value @ Node::Arr(req))) => {
                // Each a property, once: a scan for a few names, sets for many.
                let distinct_names = if req.len() <= NameSet::FEW {
                    req.iter().enumerate().all(|(i, r)| match r {
                        Node::Str(n) => names.iter().any(|(p, _)| *p == n.as_str()) && !req[..i].iter().any(|q| q.as_str() == Some(n.as_str())),
                        _ => false,
                    })
                } else {
                    let declared = NameSet::of(names.iter().map(|(p, _)| *p));
                    let mut once = NameSet::default();
                    req.iter().all(|r| r.text().is_some_and(|n| declared.contains(n) && once.insert(n)))
                };
                if !distinct_names {
                    return None;
                }
                if !req.is_empty() {
                    out.insert("required", Item::Raw(value));
                }
            }
            Some(_) => return None,
        }
        if empty {
            out.take("properties");
        }
    }
    // Step 7: `items` is there (checked above for arrays: lowered or refused).
    if ty == ARRAY && wrote & keys::ITEMS == 0 {
        return None;
    }
    if nullable {
        out.insert("nullable", Item::True);
    }
    finish_hints(&mut out, &hints, arena);
    Some(Lowered(out))
}

/// Whether `gemini::narrow_branches` leaves a node's union as it is: every branch an object
/// whose `type` names only types of the node's, no branch's `nullable`, `enum` or `const`
/// allowing a `null` the node refuses, and some branch taking `null` where the node does (an
/// untyped branch; an untyped union, which takes the node's `null` there, aside).
fn within_type(o: &Map<In>) -> bool {
    let in_node = |n: &str| type_names(o.get_word(Word::Type)).any(|m| m == n);
    let Some(Node::Arr(branches)) = o.get_word(Word::AnyOf) else { return true };
    let node_null = in_node("null") || matches!(o.get_word(Word::Nullable), Some(Node::Bool(true)));
    let mut takes_null = false;
    for b in branches.iter() {
        if !matches!(b, Node::Obj(_)) {
            return false;
        }
        // A null the node refuses, which the branch's `nullable`, `enum` or `const` allows:
        // removed by the narrowing.
        let null_value = |v: Option<&Node>| matches!(v, Some(Node::Null));
        let nulls = matches!(b.get("nullable"), Some(Node::Bool(true)))
            || null_value(b.get("const"))
            || matches!(b.get("enum"), Some(Node::Arr(values)) if values.iter().any(|v| matches!(v, Node::Null)));
        if nulls && !node_null {
            return false;
        }
        match b.get("type") {
            None if node_null && (b.get("anyOf").is_some() || b.get("oneOf").is_some()) => return false,
            None => takes_null = true,
            // A list of no type names: a branch of none of the node's types, removed.
            Some(t @ (Node::Str(_) | Node::Arr(_))) => {
                if type_names(Some(t)).next().is_none() {
                    return false;
                }
                for n in type_names(Some(t)) {
                    if !in_node(n) {
                        return false;
                    }
                    takes_null |= n == "null";
                }
            }
            Some(_) => return false,
        }
    }
    !node_null || takes_null
}

/// `gemini::finish_hints`: the notes of the removed keywords (joined by [`hint`]) appended to
/// the description (`append_description`), in one string.
fn finish_hints<'n>(out: &mut Map<'n, Item<'n>>, hints: &str, arena: &'n Bump) {
    if hints.is_empty() {
        return;
    }
    let description = match out.get("description").and_then(Item::as_str) {
        // The note starts with "(", so the separator is a space.
        Some(d) if !d.trim().is_empty() => d.trim_end(),
        _ => "",
    };
    let mut text = ArenaString::with_capacity_in(description.len() + hints.len() + 3, arena);
    if !description.is_empty() {
        text.push_str(description);
        text.push(' ');
    }
    text.push('(');
    text.push_str(hints);
    text.push(')');
    out.insert("description", Item::Text(text.into_bump_str()));
}

/// `gemini::lower_any_of` for a union of object branches none of which is itself a union:
/// each branch lowered (inheriting the node's type if it has none), the node's own keywords
/// but annotations removed and described, and for Vertex the annotations and `nullable` moved
/// into the branches.
fn lower_union<'n>(
    shared: Map<'n, In<'n>>,
    branches: &[&'n Node<'n>],
    declared: Option<usize>,
    nullable: bool,
    levels: &mut Levels<'n>,
    arena: &'n Bump,
) -> Option<Lowered<'n>> {
    // A keyword that constrains values of some types goes into the branches of those types
    // there (`gemini::distribute_keywords`).
    if shared.0.iter().any(|(k, _)| gemini::keyword_applies(k, &Value::Null, "string").is_some()) {
        return None;
    }
    let mut lowered = List::with_capacity_in(branches.len(), arena);
    for branch in branches.iter() {
        let Node::Obj(entries) = branch else { return None };
        let mut b = entries_of(entries, 2, arena);
        let inherits = declared.filter(|_| !b.has_word(Word::Type));
        // `gemini::typed_branch`: a nullable node's null inherited where the branch's enum lists it.
        let null_listed = nullable && matches!(b.get_word(Word::Enum), Some(Node::Arr(values)) if values.iter().any(|v| matches!(v, Node::Null)));
        if let Some(t) = inherits {
            b.0.push(("type", In(Word::Type, &TYPE_NODES[t])));
            if null_listed {
                b.put_word("nullable", Word::Nullable, &TRUE);
            }
        }
        let counts = (levels.depth, levels.nodes, levels.peak);
        let l = match lower_entered(b, levels, arena) {
            Some(l) => l,
            None => {
                // Outside the subset: the general lowering of the branch, as it has it.
                (levels.depth, levels.nodes, levels.peak) = counts;
                let value = || {
                    let mut value = branch.to_value();
                    if let (Some(t), Value::Object(o)) = (inherits, &mut value) {
                        o.put("type", Value::String(TYPES[t].into()));
                        if null_listed {
                            o.put("nullable", Value::Bool(true));
                        }
                    }
                    value
                };
                lower_general(value, levels, arena)?
            }
        };
        splice_union(l, &mut lowered, &mut levels.general, arena);
    }
    let mut out: Map<Item> = Map::new(List::from_iter_in(shared.into_entries().into_iter().map(|(k, In(_, v))| (k, Item::Raw(v))), arena));
    let mut hints = ArenaString::new_in(arena);
    let keys: Vec<&str> = out.0.iter().map(|(k, _)| *k).collect();
    for k in keys {
        if !matches!(k, "title" | "description" | "default" | "example") {
            if let Some(Item::Raw(v)) = out.take(k) {
                hint(&mut hints, k, v);
            }
        }
    }
    finish_hints(&mut out, &hints, arena);
    if levels.vertex {
        // "When using any_of, it must be the only field set."
        let title = match out.get("title") {
            Some(Item::Raw(v)) => Some(*v),
            _ => None,
        };
        let description = out.get("description").and_then(Item::as_str);
        for b in &mut lowered {
            if let [(_, Item::General(i))] = b.0 .0[..] {
                let Some(Value::Object(o)) = levels.general.get_mut(i) else { continue };
                // gemini::lower_any_of's own steps, on the branch it lowered.
                if let Some(t) = title {
                    o.entry("title").or_insert_with(|| t.to_value());
                }
                if let Some(d) = description {
                    match o.get_mut("description") {
                        Some(Value::String(bd)) => *bd = gemini::joined_description(d, bd),
                        Some(_) => {}
                        None => {
                            o.put("description", string(d));
                        }
                    }
                }
                if nullable {
                    o.put("nullable", Value::Bool(true));
                }
                continue;
            }
            let b = &mut b.0;
            if let Some(t) = title {
                if !b.has("title") {
                    b.0.push(("title", Item::Raw(t)));
                }
            }
            if let Some(d) = description {
                let joined = match b.get("description") {
                    None => Some(d.owned()),
                    Some(bd) => bd.as_str().filter(|bd| !bd.contains(d)).map(|bd| gemini::joined_description(d, bd)),
                };
                if let Some(j) = joined {
                    b.insert("description", Item::Text(arena.alloc_str(&j)));
                }
            }
            if nullable {
                b.insert("nullable", Item::True);
            }
        }
        return Some(Lowered(Map::new(list![in arena; ("anyOf", Item::AnyOf(ManuallyDrop::new(lowered)))])));
    }
    out.insert("anyOf", Item::AnyOf(ManuallyDrop::new(lowered)));
    if nullable {
        out.insert("nullable", Item::True);
    }
    Some(Lowered(out))
}

/// A lowered branch added to a union's branches; a branch that is a union itself (a union of
/// unions) gives its alternatives instead, each with the branch's description (joined before
/// its own, as Vertex joins a union's) and its `nullable` (`gemini::lower_any_of`).
/// `general`: the values of [`Item::General`] (`Levels::general`).
fn splice_union<'n>(mut l: Lowered<'n>, lowered: &mut List<'n, Lowered<'n>>, general: &mut Vec<Value>, arena: &'n Bump) {
    // The alternatives, with what the branch gives them.
    let (inner, nullable, note) = match l.0 .0[..] {
        [(_, Item::General(i))] => {
            let Some(Value::Object(o)) = general.get_mut(i).filter(|v| v.get("anyOf").is_some() && v.get("type").is_none()) else {
                return lowered.push(l);
            };
            let nullable = o.get("nullable") == Some(&Value::Bool(true));
            let note = o.get("description").and_then(Value::as_str).map(str::to_owned);
            let Some(Value::Array(inner)) = o.remove("anyOf") else { return };
            let first = general.len();
            general.extend(inner);
            (List::from_iter_in((first..general.len()).map(|j| Lowered(Map::new(list![in arena; ("", Item::General(j))]))), arena), nullable, note)
        }
        [(_, Item::Spliced(_))] => return lowered.push(l),
        _ => {
            if !l.0.has("anyOf") {
                return lowered.push(l);
            }
            let nullable = matches!(l.0.get("nullable"), Some(Item::True));
            let note = l.0.get("description").and_then(Item::as_str).map(str::to_owned);
            let Some(Item::AnyOf(inner)) = l.0.take("anyOf") else { return };
            (ManuallyDrop::into_inner(inner), nullable, note)
        }
    };
    for mut sub in inner {
        if let [(_, Item::General(j))] = sub.0 .0[..] {
            if let Some(Value::Object(so)) = general.get_mut(j) {
                if let Some(n) = &note {
                    match so.get_mut("description") {
                        Some(Value::String(d)) => *d = gemini::joined_description(n, d),
                        Some(_) => {}
                        None => {
                            so.put("description", string(n));
                        }
                    }
                }
                if nullable {
                    so.put("nullable", Value::Bool(true));
                }
            }
        } else {
            if let Some(n) = &note {
                match sub.0.get("description") {
                    None => sub.0 .0.push(("description", Item::Text(arena.alloc_str(n)))),
                    Some(d) => {
                        if let Some(joined) = d.as_str().filter(|d| !d.contains(n.as_str())).map(|d| gemini::joined_description(n, d)) {
                            sub.0.insert("description", Item::Text(arena.alloc_str(&joined)));
                        }
                    }
                }
            }
            if nullable {
                sub.0.insert("nullable", Item::True);
            }
        }
        lowered.push(sub);
    }
}

/// The type names of a node's `type` (`types_of`): a name, the names of a list, or none.
fn type_names<'n>(t: Option<&'n Node<'n>>) -> impl Iterator<Item = &'n str> {
    let list: &'n [Node<'n>] = match t {
        Some(Node::Arr(ts)) => ts,
        Some(one @ Node::Str(_)) => std::slice::from_ref(one),
        _ => &[],
    };
    list.iter().filter_map(Node::as_str)
}

/// Whether a node's `type` names no type or `object` alone (`types_of(o)` is `[]` or
/// `["object"]`): an object shape.
fn object_shape(t: Option<&Node>) -> bool {
    let mut names = type_names(t);
    match names.next() {
        None => true,
        Some(first) => first == "object" && names.next().is_none(),
    }
}

/// `serde_json::Value`'s equality on two trees: objects are equal whatever their keys' order.
fn same(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (Node::Null, Node::Null) => true,
        (Node::Bool(x), Node::Bool(y)) => x == y,
        (Node::Num(x), Node::Num(y)) => x == y,
        (Node::Str(x), Node::Str(y)) => x.as_str() == y.as_str(),
        (Node::Arr(x), Node::Arr(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|(v, w)| same(v, w)),
        (Node::Obj(x), Node::Obj(y)) => x.len() == y.len() && x.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w))),
        _ => false,
    }
}

/// A string of the arena, as a node.
fn text_node<'n>(s: &str, arena: &'n Bump) -> Node<'n> {
    Node::Str(Text::unescaped(arena.alloc_str(s)))
}

/// `distribute_into_branches`: the node's own properties and `required` copied into each
/// branch that is an object or untyped (typed `object` then), and the node's `type` removed if
/// it says `object` alone. `None` should an intersection not read back (past the reader's
/// nesting bound).
fn distribute<'n>(o: &mut Map<'n, In<'n>>, branches: &'n [Node<'n>], arena: &'n Bump) -> Option<()> {
    // A node of object and other types: its untyped branches take them all, a type list (the
    // general way).
    if type_names(o.get_word(Word::Type)).any(|t| !matches!(t, "object" | "null")) {
        return None;
    }
    let shared: &[(Text, Node)] = match o.take_word(Word::Properties) {
        Some(Node::Obj(p)) => p,
        _ => &[],
    };
    let shared_required = o.take_word(Word::Required);
    let mut out = List::with_capacity_in(branches.len(), arena);
    for b in branches.iter() {
        let (Node::Obj(entries), true) = (b, object_shape(b.get("type"))) else {
            out.push(*b);
            continue;
        };
        let mut bo = List::from_iter_in(entries.iter().cloned(), arena);
        let set = |bo: &mut List<(Text<'n>, Node<'n>)>, key: &'static str, value: Node<'n>| match bo.iter().position(|(k, _)| k.as_str() == key) {
            Some(at) => bo[at].1 = value,
            None => bo.push((Text::raw(key), value)),
        };
        set(&mut bo, "type", TYPE_NODES[OBJECT]);
        let props = match bo.iter().find(|(k, _)| k.as_str() == "properties") {
            None => Some(&[][..]),
            Some((_, Node::Obj(p))) => Some(*p),
            Some(_) => None,
        };
        if let Some(p) = props {
            let mut p = List::from_iter_in(p.iter().cloned(), arena);
            // The branch's names by hash when the node has many (a scan for each of a few).
            let mut names = (shared.len() > NameSet::FEW).then(|| NamePositions::of(p.iter().map(|(q, _)| q.as_str())));
            for (k, v) in shared {
                let at = match &names {
                    Some(names) => names.position(k.as_str()),
                    None => {
                        #[cfg(test)]
                        crate::model::count_steps(p.len());
                        p.iter().position(|(q, _)| q.as_str() == k.as_str())
                    }
                };
                match at {
                    None => {
                        p.push((*k, *v));
                        if let Some(names) = &mut names {
                            names.push(k.as_str());
                        }
                    }
                    // Defined by both, otherwise: one schema that says both, as the general
                    // path intersects them, read back into the arena.
                    Some(at) if !same(&p[at].1, v) => {
                        let both = crate::schema::lower::intersect(&v.to_value(), &p[at].1.to_value()).0;
                        p[at].1 = super::read::read_measured(arena.alloc_str(&crate::text::to_string(&both)), arena)?.0;
                    }
                    Some(_) => {}
                }
            }
            set(&mut bo, "properties", Node::Obj(p.into_bump_slice()));
        }
        if let Some(Node::Arr(req)) = shared_required {
            let r = match bo.iter().find(|(k, _)| k.as_str() == "required") {
                None => Some(&[][..]),
                Some((_, Node::Arr(r))) => Some(*r),
                Some(_) => None,
            };
            if let Some(r) = r {
                let mut r = List::from_iter_in(r.iter().cloned(), arena);
                // Names through a set when the lists are long; what is no name by `same`.
                let mut names = (r.len() + req.len() > NameSet::FEW).then(|| NameSet::of(r.iter().filter_map(|n| n.text())));
                for x in req.iter() {
                    let new = match (&mut names, x.text()) {
                        (Some(names), Some(n)) => names.insert(n),
                        _ => !r.iter().any(|y| same(x, y)),
                    };
                    if new {
                        r.push(*x);
                    }
                }
                set(&mut bo, "required", Node::Arr(r.into_bump_slice()));
            }
        }
        out.push(Node::Obj(bo.into_bump_slice()));
    }
    o.put_word("anyOf", Word::AnyOf, arena.alloc(Node::Arr(out.into_bump_slice())));
    // `types_of(o) == ["object"]`.
    let ty = o.get_word(Word::Type);
    if type_names(ty).next().is_some() && object_shape(ty) {
        o.take_word(Word::Type);
    }
    Some(())
}

/// Whether enum value `v` may stand in a node of type `TYPES[t]` (`null`s are the node's
/// `nullable`): `gemini::has_type`.
fn of_type(v: &Node, t: usize) -> bool {
    match v {
        Node::Null => true,
        Node::Str(_) => t == STRING,
        Node::Bool(_) => t == BOOLEAN,
        Node::Num(n) => t == NUMBER || (t == INTEGER && (n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0))),
        Node::Arr(_) => t == ARRAY,
        Node::Obj(_) => t == OBJECT,
    }
}

/// The values of an enum as strings (`args::enum_string`), once each, its `null`s left out.
fn enum_strings<'n>(values: &'n [Node<'n>], arena: &'n Bump) -> &'n [Node<'n>] {
    let mut strings: List<Node> = List::with_capacity_in(values.len(), arena);
    // The strings kept, once there are many (a scan of those kept for each value was quadratic).
    let mut seen: Option<NameSet<'n>> = None;
    for v in values.iter() {
        let s = match v {
            Node::Null => continue,
            Node::Str(_) => *v,
            other => text_node(&crate::args::enum_string(&other.to_value()), arena),
        };
        let text = s.text().unwrap_or_default();
        let new = match &mut seen {
            Some(seen) => seen.insert(text),
            None if strings.len() < NameSet::FEW => !strings.iter().any(|w| w.text() == Some(text)),
            None => {
                let mut set = NameSet::of(strings.iter().filter_map(|w| w.text()));
                let new = set.insert(text);
                seen = Some(set);
                new
            }
        };
        if new {
            strings.push(s);
        }
    }
    strings.into_bump_slice()
}

/// `gemini::infer_type`.
fn infer_type(o: &Map<In>) -> Option<usize> {
    let has = |k: &str| o.has(k);
    Some(if has("properties") || has("required") || has("additionalProperties") || has("patternProperties") {
        OBJECT
    } else if has("items") || has("prefixItems") || has("minItems") || has("maxItems") {
        ARRAY
    } else if let Some(Node::Arr(values)) = o.get_word(Word::Enum) {
        let mut non_null = values.iter().filter(|v| !matches!(v, Node::Null)).peekable();
        if non_null.peek().is_none() {
            STRING
        } else if non_null.clone().all(|v| matches!(v, Node::Bool(_))) {
            BOOLEAN
        } else if non_null.clone().all(|v| matches!(v, Node::Num(n) if n.is_i64() || n.is_u64())) {
            INTEGER
        } else if non_null.all(|v| matches!(v, Node::Num(_))) {
            NUMBER
        } else {
            STRING
        }
    } else if has("pattern") || has("minLength") || has("maxLength") || has("format") {
        STRING
    } else if has("minimum") || has("maximum") || has("exclusiveMinimum") || has("exclusiveMaximum") || has("multipleOf") {
        NUMBER
    } else {
        return None;
    })
}

/// The note `keyword_hint` gives for a removed keyword, if any, added to `hints` as
/// `gemini::finish_hints` joins them ("; " between notes).
fn hint(hints: &mut ArenaString, key: &str, value: &Node) {
    if unhinted(key) {
        return;
    }
    let value = value.to_value();
    let owned;
    let note = match fixed_hint(key, &value) {
        Some(note) => note,
        None => match keyword_hint(key, &value) {
            Some(note) => {
                owned = note;
                &owned
            }
            None => return,
        },
    };
    if !hints.is_empty() {
        hints.push_str("; ");
    }
    hints.push_str(note);
}

impl Lowered<'_> {
    /// `gemini::write_wire` of the general path's lowered node (`general`: the values of
    /// [`Item::General`]).
    fn write(&self, out: &mut Vec<u8>, general: &[Value]) {
        match self.0 .0[..] {
            [(_, Item::Spliced(text))] => return out.extend_from_slice(text),
            [(_, Item::General(i))] => return gemini::write_wire(out, &general[i]),
            _ => {}
        }
        // Every key of a lowered node is one of Gemini's keywords (`lower_map` and `lower_union`
        // keep no other): plain.
        out.push(b'{');
        for (i, (key, item)) in self.0 .0.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            item.write_entry(out, key, general);
        }
        out.push(b'}');
    }
}

/// `"type":"STRING"` and the rest, each a lowered node's `type` entry as one literal.
const TYPE_ENTRIES: [&[u8]; 6] = [
    b"\"type\":\"STRING\"",
    b"\"type\":\"NUMBER\"",
    b"\"type\":\"INTEGER\"",
    b"\"type\":\"BOOLEAN\"",
    b"\"type\":\"ARRAY\"",
    b"\"type\":\"OBJECT\"",
];

impl Item<'_> {
    /// This value and its `key` (one of Gemini's keywords, plain) as an entry of a lowered
    /// node: the items that only one keyword holds are written with it as one literal, where
    /// a key, a colon and a value were each a copy of their own.
    fn write_entry(&self, out: &mut Vec<u8>, key: &str, general: &[Value]) {
        let entry: &[u8] = match self {
            Item::Type(t) => {
                debug_assert_eq!(key, "type");
                return out.extend_from_slice(TYPE_ENTRIES[*t]);
            }
            Item::True => {
                debug_assert_eq!(key, "nullable");
                return out.extend_from_slice(b"\"nullable\":true");
            }
            Item::Properties(..) => b"\"properties\":",
            Item::Items(_) => b"\"items\":",
            Item::AnyOf(_) => b"\"anyOf\":",
            Item::Enum(_) => b"\"enum\":",
            _ => {
                super::write_key(out, key, true);
                out.push(b':');
                return self.write(out, key, general);
            }
        };
        debug_assert_eq!(&entry[1..entry.len() - 2], key.as_bytes());
        out.extend_from_slice(entry);
        self.write(out, key, general)
    }

    /// This value under `key` of a lowered node, as `gemini::write_wire` writes it.
    fn write(&self, out: &mut Vec<u8>, key: &str, general: &[Value]) {
        match self {
            Item::Type(t) => {
                out.push(b'"');
                out.extend_from_slice(WIRE_TYPES[*t].as_bytes());
                out.push(b'"');
            }
            Item::Raw(Node::Num(n)) if n.is_u64() && COUNTS.contains(&key) => {
                out.push(b'"');
                text::write_number(out, n);
                out.push(b'"');
            }
            Item::Raw(value) => value.write(out),
            Item::Text(s) => text::write_str(out, s),
            Item::True => out.extend_from_slice(b"true"),
            Item::Properties(props, plain) => super::write_object(out, props.iter().map(|(k, v)| (*k, v)), *plain, |out, _, sub| sub.write(out, general)),
            Item::Items(sub) => sub.write(out, general),
            Item::Enum(values) => {
                out.push(b'[');
                for (j, v) in values.iter().filter(|v| !matches!(v, Node::Null)).enumerate() {
                    if j > 0 {
                        out.push(b',');
                    }
                    v.write(out);
                }
                out.push(b']');
            }
            Item::AnyOf(branches) => {
                out.push(b'[');
                for (j, sub) in branches.iter().enumerate() {
                    if j > 0 {
                        out.push(b',');
                    }
                    sub.write(out, general);
                }
                out.push(b']');
            }
            Item::Spliced(text) => out.extend_from_slice(text),
            Item::General(i) => gemini::write_wire(out, &general[*i]),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::convert::{convert, convert_json, ConvertOptions};
    use crate::fast::{passed_through, passed_through_named};
    use crate::providers::{Provider, SchemaOptions};
    use crate::schema::Limits;

    /// The JSON API's output for one tool, after checking that it is the general path's and
    /// whether it was lowered from the borrowed tree.
    fn lowered(schema: Value, limits: Limits) -> (String, bool) {
        let tools = json!([{ "name": "t", "inputSchema": schema }]);
        let mut opts = ConvertOptions::default();
        opts.schema.limits = limits;
        let text = tools.to_string();
        let schema_opts = SchemaOptions { limits, ..SchemaOptions::default() };
        let mut out = Vec::new();
        for provider in [Provider::Gemini, Provider::Vertex] {
            let fast = convert_json(&text, provider, &opts);
            let general = convert(tools.clone(), provider, &opts);
            match (&fast, &general) {
                (Ok(f), Ok(g)) => assert_eq!(*f, g.tools.to_string(), "{provider:?}"),
                (Err(f), Err(g)) => assert_eq!(f.code, g.code),
                _ => panic!("{fast:?} vs {general:?}"),
            }
            let passed = passed_through(&text, provider, &schema_opts) == 1;
            // What the path keeping argument plans takes, the JSON API takes too.
            assert!(passed || passed_through_named(&text, provider, &schema_opts) == 0, "{tools}");
            out.push((fast.unwrap_or_default(), passed));
        }
        assert_eq!(out[0].1, out[1].1, "the same path for Gemini and Vertex: {tools}");
        out.swap_remove(0)
    }

    fn parameters(schema: Value) -> Value {
        let (text, passed) = lowered(schema.clone(), Limits::default());
        assert!(passed, "not lowered from the borrowed tree: {schema}");
        let out: Value = serde_json::from_str(&text).unwrap();
        out[0]["functionDeclarations"][0].get("parameters").cloned().unwrap_or(Value::Null)
    }

    /// An enum of thousands of strings is checked for repeats and written once each in
    /// linear time (comparing each value with all before it took 10 s for 64,000 in the
    /// package), with the general path's output, a repeated value or not.
    #[test]
    fn many_enum_strings_are_lowered_in_linear_time() {
        let schema = |n: usize, repeat: bool| {
            let mut values: Vec<Value> = (0..n).map(|i| json!(format!("v{i}"))).collect();
            if repeat {
                values.extend([json!("v1"), Value::Null, json!(format!("v{}", n / 2))]);
            }
            json!({"type": "object", "properties": {"a": {"type": "string", "enum": values}}})
        };
        for repeat in [false, true] {
            let steps = |n: usize| {
                let text = json!([{ "name": "t", "inputSchema": schema(n, repeat) }]).to_string();
                let before = crate::model::NAME_STEPS.with(|s| s.get());
                assert_eq!(passed_through(&text, Provider::Gemini, &SchemaOptions::default()), 1);
                crate::model::NAME_STEPS.with(|s| s.get()) - before
            };
            let (small, large) = (steps(2_000), steps(8_000));
            assert!(large <= 5 * small, "{small} then {large} steps for 4 times the values (a repeat: {repeat})");
            for n in [3, crate::model::NameSet::FEW, crate::model::NameSet::FEW + 1, 40] {
                let p = parameters(schema(n, repeat));
                let want: Vec<Value> = (0..n).map(|i| json!(format!("v{i}"))).collect();
                assert_eq!(p["properties"]["a"]["enum"], Value::Array(want), "{n}");
            }
        }
    }

    /// Property names read with escapes are written escaped again, the others as they were read;
    /// a lowered node's own keys are Gemini's keywords, however they were spelt.
    #[test]
    fn escaped_names_are_written_as_the_general_path_writes_them() {
        let schema = json!({
            "type": "object",
            "properties": {"a\"b": {"type": "string"}, "c\nd": {"type": "object", "properties": {"e\\f": {"type": "integer"}, "plain": {"type": "boolean"}}}, "é": {"type": "number"}},
            "required": ["a\"b"]
        });
        let (text, fast) = lowered(schema, Limits::default());
        assert!(fast);
        assert!(text.contains(r#""a\"b":{"#) && text.contains(r#""c\nd":{"#) && text.contains(r#""e\\f":{"#), "{text}");
        // An escaped keyword (`description`) is a keyword all the same.
        let text = r#"[{"name":"t","inputSchema":{"type":"object","properties":{"x":{"type":"string","descr\u0069ption":"d"}}}}]"#;
        let tools: Value = serde_json::from_str(text).unwrap();
        let general = convert(tools, Provider::Gemini, &ConvertOptions::default()).unwrap().tools.to_string();
        assert_eq!(convert_json(text, Provider::Gemini, &ConvertOptions::default()).unwrap(), general);
        assert!(general.contains(r#""description":"d""#), "{general}");
    }

    #[test]
    fn nodes_are_rewritten_as_the_general_path_rewrites_them() {
        let p = parameters(json!({
            "required": ["id"], "additionalProperties": false, "type": "object", "$schema": "x",
            "properties": {
                "id": {"description": "The id", "type": ["string", "null"], "format": "uuid", "minLength": 1},
                "n": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null, "exclusiveMinimum": 0},
                "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 3},
                "o": {"type": "object", "properties": {}}
            }
        }));
        // `required` after the properties it names, counts as strings, notes in the description,
        // and `maxItems` before `items`: taking `type` out swap-removed it.
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"type":"OBJECT","properties":{"id":{"type":"STRING","description":"The id (format: uuid)","minLength":"1","nullable":true},"n":{"type":"INTEGER","default":null,"nullable":true,"description":"(must be > 0)"},"tags":{"type":"ARRAY","maxItems":"3","items":{"type":"STRING","enum":["a","b"]}},"o":{"type":"OBJECT"}},"required":["id"]}"#
        );
    }

    #[test]
    fn unions_keep_their_annotations_and_describe_the_rest() {
        let p = parameters(json!({"type": "object", "properties": {"id": {
            "description": "Resource", "minLength": 1, "type": ["string", "null"],
            "anyOf": [{"format": "uuid", "description": "by id"}, {"pattern": "^[a-z]+$"}, {"type": "null"}]
        }}}));
        // The branches inherit the node's type, and the node's `minLength`, which applies to
        // them; the node keeps no `type`.
        assert_eq!(
            serde_json::to_string(&p["properties"]["id"]).unwrap(),
            r#"{"description":"Resource","anyOf":[{"type":"STRING","description":"by id (format: uuid)","minLength":"1"},{"type":"STRING","pattern":"^[a-z]+$","minLength":"1"}],"nullable":true}"#
        );
    }

    #[test]
    fn a_root_without_arguments_has_no_parameters() {
        assert_eq!(parameters(json!({"type": "object", "description": "none"})), Value::Null);
        assert_eq!(parameters(json!({"type": "object", "properties": {}, "additionalProperties": false})), Value::Null);
        assert_ne!(parameters(json!({"type": "object", "minProperties": 1})), Value::Null);
    }

    #[test]
    fn subschemas_outside_the_subset_are_lowered_by_the_general_lowering() {
        let a = |sub: Value| json!({"type": "object", "properties": {"a": sub, "b": {"type": "string"}}, "required": ["a", "b"]});
        for sub in [
            json!({"anyOf": [{"type": "string"}, {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}]}),
            json!({"anyOf": [{"type": "string"}, true]}),
            json!({"type": "object", "anyOf": [{"required": ["b"]}], "properties": {"b": {"type": "string"}}}),
            json!({"type": "object", "properties": {"k": {"type": "string"}}, "anyOf": [{"properties": {"x": {"type": "string"}}}, {"properties": {"y": {"type": "integer"}}}]}),
            json!({"oneOf": [{"type": "string"}]}),
            json!({"const": "x"}),
            json!({"enum": ["x", "x"]}),
            json!({"enum": ["x"], "default": 1}),
            json!({"type": ["string", "integer"]}),
            json!({"description": "untyped"}),
            json!({"type": "array"}),
            json!({"type": "array", "items": [{"type": "string"}]}),
            json!({"type": "array", "items": {"allOf": [{"type": "string"}, {"minLength": 1}]}}),
            json!(true),
            json!({"type": "Str"}),
            json!({"type": "object", "required": ["b"]}),
            json!({"type": "object", "properties": {"deep": {"type": "object", "properties": {"x": {"const": "v"}}}}}),
        ] {
            let schema = a(sub.clone());
            let (_, passed) = lowered(schema.clone(), Limits::default());
            assert!(passed, "not lowered from the borrowed tree: {schema}");
            // And in an array's items, under a union's branch, as a branch of a union (whose
            // annotations Vertex moves into it).
            assert!(lowered(a(json!({"type": "array", "items": sub.clone()})), Limits::default()).1, "{sub}");
            assert!(lowered(a(json!({"anyOf": [{"type": "object", "properties": {"x": sub.clone()}}, {"type": "null"}]})), Limits::default()).1, "{sub}");
            let union = json!({"title": "T", "description": "D", "anyOf": [{"type": "object", "properties": {"x": {"type": "string"}}}, sub.clone(), {"type": "null"}]});
            assert!(lowered(a(union), Limits::default()).1, "{sub}");
        }
        // A branch outside the subset among branches within it.
        let typed = json!({"type": "string", "description": "D", "title": "T", "nullable": true,
                           "anyOf": [{"minLength": 1}, {"description": "x", "format": "uuid"}, {"type": ["string", "null"]}, {"const": "c"}]});
        for branch in [json!({"enum": ["x", "x"]}), json!({"oneOf": [{"pattern": "a"}, {"pattern": "b"}]})] {
            let mut union = typed.clone();
            union["anyOf"].as_array_mut().unwrap().push(branch);
            assert!(lowered(a(union), Limits::default()).1);
        }
    }

    #[test]
    fn schemas_outside_the_subset_go_the_general_way() {
        for schema in [
            // What the general lowering of a subschema would change beyond it: a property
            // removed.
            json!({"type": "object", "properties": {"a": false}}),
            // A `$ref` key where none is inlined.
            json!({"type": "object", "properties": {"a": {"type": "string", "default": {"$ref": "x"}}}}),
            json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}, "c": false}}}}),
            // The root's own rules.
            json!({"type": "object", "properties": {"a": {"type": "string", "required": true}}}),
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "a"]}),
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"required": ["a"]}]}),
            json!({"type": ["object", "null"], "properties": {}}),
            json!({"type": "object", "enum": ["a"]}),
            json!({"properties": {}}),
        ] {
            let (_, passed) = lowered(schema.clone(), Limits::default());
            assert!(!passed, "lowered from the borrowed tree: {schema}");
        }
    }

    /// An enum of values that are not all strings is written as strings, and the general path
    /// makes an argument plan to map arguments back: such a schema is lowered here only for a
    /// caller without plans (the JSON API), and the named conversion gets the same plan.
    #[test]
    fn enums_that_need_a_plan_are_lowered_here_only_without_plans() {
        for sub in [
            json!({"type": "integer", "enum": [1, 2, 1]}),
            json!({"type": ["integer", "null"], "enum": [30, 60, null], "default": 60}),
            json!({"type": "array", "items": {"enum": [1, "1", true, null]}}),
            json!({"type": "number", "const": 1.5}),
            json!({"enum": [{"a": 1}, [2], "x"]}),
        ] {
            let schema = json!({"type": "object", "properties": {"a": sub, "b": {"type": "string"}}});
            let text = json!([{ "name": "t", "inputSchema": schema }]).to_string();
            let (_, passed) = lowered(schema.clone(), Limits::default());
            assert!(passed, "not lowered from the borrowed tree: {schema}");
            let opts = ConvertOptions::default();
            assert_eq!(passed_through_named(&text, Provider::Gemini, &opts.schema), 0, "{schema}");
            let named = crate::convert::convert_json_named(&text, Provider::Gemini, &opts).unwrap();
            let general = convert(serde_json::from_str(&text).unwrap(), Provider::Gemini, &opts).unwrap();
            assert!(named.name_map == general.name_map && !general.name_map.is_empty(), "{schema}");
        }
        // Repeated strings and a default that is not a string need no plan.
        for sub in [json!({"enum": ["x", "y", "x"]}), json!({"enum": ["x"], "default": 1}), json!({"const": "x", "type": "string"})] {
            let text = json!([{ "name": "t", "inputSchema": {"type": "object", "properties": {"a": sub}} }]).to_string();
            assert_eq!(passed_through_named(&text, Provider::Gemini, &SchemaOptions::default()), 1, "{sub}");
        }
        let p = parameters(json!({"type": "object", "properties": {"a": {"type": ["integer", "null"], "enum": [30, 60, null, 30], "default": 60}}}));
        assert_eq!(serde_json::to_string(&p["properties"]["a"]).unwrap(), r#"{"type":"STRING","default":"60","enum":["30","60"],"nullable":true}"#);
    }

    /// An object with an `anyOf` (or `oneOf`): the object's own properties copied into each
    /// object branch, as the general path does (whether the branches define a property alike
    /// or not).
    #[test]
    fn object_unions_are_distributed_as_the_general_path_does() {
        let merged = json!({"type": "object", "description": "Rule", "required": ["kind", "gone"], "properties": {"kind": {"type": "string", "enum": ["a"], "description": "Kind"}},
            "anyOf": [
                {"required": ["kind", "ids"], "properties": {"kind": {"type": "string", "enum": ["b"], "description": "The kind"}, "ids": {"type": "array", "items": {"type": "string"}}}},
                {"title": "By hour", "required": ["kind", "hour"], "minProperties": 2, "properties": {"kind": {"enum": ["c", "a"], "type": "string"}, "hour": {"type": "integer"}}},
                {"properties": {}}
            ]});
        // `kind`, defined by the object and by branches, otherwise: one schema that says both.
        let p = parameters(json!({"type": "object", "properties": {"rule": merged}}));
        let rule = serde_json::to_string(&p["properties"]["rule"]).unwrap();
        assert!(rule.starts_with(r#"{"description":"Rule","anyOf":[{"type":"OBJECT","#), "{rule}");
        assert_eq!(p["properties"]["rule"]["anyOf"].as_array().unwrap().len(), 3, "{rule}");
        assert_eq!(p["properties"]["rule"]["anyOf"][1]["properties"]["kind"]["enum"], json!(["a"]), "{rule}");
        // Defined alike: distributed here.
        let alike = json!({"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string", "enum": ["a"]}},
            "anyOf": [{"required": ["n"], "properties": {"kind": {"type": "string", "enum": ["a"]}, "n": {"type": "integer"}}}, {"properties": {}}]});
        let p = parameters(json!({"type": "object", "properties": {"rule": alike}}));
        assert_eq!(p["properties"]["rule"]["anyOf"][0]["required"], json!(["n", "kind"]));
        let distributed = json!({"type": ["object", "null"], "properties": {"id": {"type": "string"}}, "required": ["id"], "oneOf": [
            {"properties": {"n": {"type": "integer"}}, "required": ["n"]},
            {"type": "object", "properties": {"n": {"type": "string"}, "id": {"type": "integer"}}},
            {"type": "string"}
        ]});
        // The string branch is of no type the node's allows (`gemini::narrow_branches`): removed,
        // the general way.
        let (text, _) = lowered(json!({"type": "object", "properties": {"x": distributed}}), Limits::default());
        let out: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            serde_json::to_string(&out[0]["functionDeclarations"][0]["parameters"]["properties"]["x"]).unwrap(),
            r#"{"anyOf":[{"type":"OBJECT","properties":{"n":{"type":"INTEGER"},"id":{"type":"STRING"}},"required":["n","id"]},{"type":"OBJECT","properties":{"n":{"type":"STRING"},"id":{"type":"STRING"}},"required":["id"]}],"nullable":true}"#
        );
        for sub in [
            json!({"type": "object", "anyOf": [], "properties": {"a": {"type": "string"}}}),
            json!({"properties": {"a": {"type": "string"}}, "anyOf": [{"properties": {"a": {"type": "string", "format": "date"}}}, {"type": "null"}]}),
            json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string", "description": 1}}}, {"properties": {"a": {"type": "string", "description": "d"}}}]}),
            json!({"type": "object", "required": 5, "anyOf": [{"required": ["a", 1]}, {"required": ["a"], "properties": {"a": {"const": "v"}}}]}),
            json!({"type": "object", "anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}], "oneOf": [{"required": ["a"]}]}),
        ] {
            let schema = json!({"type": "object", "properties": {"x": sub}});
            assert!(lowered(schema.clone(), Limits::default()).1, "not lowered from the borrowed tree: {schema}");
        }
    }

    /// An object of thousands of properties beside branches of thousands is distributed in
    /// linear time: each of its properties is looked up among a branch's by hash, where
    /// scanning them for each took 16 times the work for 4 times the properties. The output is
    /// the general path's, few properties or many (some defined alike by a branch, some
    /// otherwise, some not).
    #[test]
    fn many_properties_are_distributed_in_linear_time() {
        let schema = |n: usize| {
            let own: serde_json::Map<String, Value> = (0..n).map(|i| (format!("s{i}"), json!({"type": "string"}))).collect();
            let branch = |ty: &str, prefix: &str| -> Value {
                let mut props: serde_json::Map<String, Value> = (0..n).map(|i| (format!("{prefix}{i}"), json!({"type": ty}))).collect();
                // The node's own, from the last: one alike, one otherwise.
                props.extend((0..n).rev().step_by(3).map(|i| (format!("s{i}"), if i % 2 == 0 { json!({"type": "string"}) } else { json!({"type": "string", "format": "date"}) })));
                json!({"type": "object", "properties": props, "required": [format!("{prefix}0")]})
            };
            let node = json!({"type": "object", "properties": own, "required": ["s0"], "anyOf": [branch("integer", "b"), branch("boolean", "c")]});
            json!({"type": "object", "properties": {"x": node}})
        };
        let steps = |n: usize| {
            let text = json!([{ "name": "t", "inputSchema": schema(n) }]).to_string();
            let before = crate::model::NAME_STEPS.with(|s| s.get());
            assert_eq!(passed_through(&text, Provider::Gemini, &SchemaOptions::default()), 1);
            crate::model::NAME_STEPS.with(|s| s.get()) - before
        };
        let (small, large) = (steps(2_000), steps(8_000));
        assert!(large <= 5 * small, "{small} then {large} steps for 4 times the properties");
        for n in [1, 3, crate::model::NameSet::FEW, crate::model::NameSet::FEW + 1, 40] {
            let (text, passed) = lowered(schema(n), Limits::default());
            assert!(passed, "{n}");
            let out: Value = serde_json::from_str(&text).unwrap();
            let x = &out[0]["functionDeclarations"][0]["parameters"]["properties"]["x"];
            assert_eq!(x["anyOf"][1]["properties"].as_object().unwrap().len(), 2 * n, "{n}: {x}");
        }
    }

    #[test]
    fn keywords_are_told_apart_by_length_and_head() {
        use super::{word, Word};
        let words = [
            ("type", Word::Type), ("enum", Word::Enum), ("items", Word::Items), ("title", Word::Title), ("anyOf", Word::AnyOf),
            ("oneOf", Word::OneOf), ("allOf", Word::AllOf), ("const", Word::Const), ("format", Word::Format), ("default", Word::Default),
            ("example", Word::Example), ("pattern", Word::Pattern), ("minimum", Word::Minimum), ("maximum", Word::Maximum),
            ("examples", Word::Examples), ("required", Word::Required), ("minItems", Word::MinItems), ("maxItems", Word::MaxItems),
            ("nullable", Word::Nullable), ("minLength", Word::MinLength), ("maxLength", Word::MaxLength), ("properties", Word::Properties),
            ("description", Word::Description), ("minProperties", Word::MinProperties), ("maxProperties", Word::MaxProperties),
            ("propertyOrdering", Word::PropertyOrdering), ("patternProperties", Word::PatternProperties),
            ("additionalProperties", Word::AdditionalProperties),
        ];
        for (k, w) in words {
            assert_eq!(word(k), w, "{k}");
            let last = k.len() - 1;
            for near in [&k[..last], &format!("{k}s"), &format!("{}X", &k[..last]), &format!("X{}", &k[1..]), &k.to_uppercase()] {
                assert!(word(near) == Word::Other || words.iter().any(|(q, _)| *q == near), "{near}");
            }
        }
        // Any one byte changed: past the first eight bytes too, where keys of up to sixteen are
        // compared by their last eight (`walk::rest_equal`).
        for (k, _) in words {
            for i in 0..k.len() {
                let mut changed = k.as_bytes().to_vec();
                changed[i] ^= 0x01;
                let changed = String::from_utf8(changed).unwrap();
                assert!(word(&changed) == Word::Other || words.iter().any(|(q, _)| *q == changed), "{changed}");
            }
        }
        assert_eq!(word(""), Word::Other);
        assert_eq!(word("minLengthy"), Word::Other);
        assert_eq!(word("minPropertiez"), Word::Other);
    }

    #[test]
    fn limits_go_the_general_way() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}});
        assert!(lowered(schema.clone(), Limits::default()).1);
        assert!(lowered(schema.clone(), Limits { max_depth: 3, ..Limits::default() }).1);
        assert!(!lowered(schema.clone(), Limits { max_depth: 2, ..Limits::default() }).1);
        // The tool is 10 JSON values (its schema 8 of them).
        assert!(lowered(schema.clone(), Limits { max_nodes: 10, ..Limits::default() }).1);
        assert!(!lowered(schema, Limits { max_nodes: 9, ..Limits::default() }).1);
        // Subschemas lowered by the general lowering count as it counts: at every limit around
        // the schema's own figures, the same output or the same error.
        let odd = json!({"type": "object", "properties": {"a": {"const": "x"}, "n": {"type": "object", "properties": {
            "m": {"oneOf": [{"type": "object", "properties": {"k": {"type": "string"}}}, {"type": "integer"}]}}}}});
        assert!(lowered(odd.clone(), Limits::default()).1);
        for max_depth in 1..8 {
            lowered(odd.clone(), Limits { max_depth, ..Limits::default() });
        }
        for max_nodes in 1..24 {
            lowered(odd.clone(), Limits { max_nodes, ..Limits::default() });
        }
        // And the unions merged or distributed here, whose nodes the lowering builds.
        let shapes = json!({"type": "object", "properties": {
            "m": {"type": "object", "properties": {"k": {"type": "string", "enum": ["a"]}}, "anyOf": [
                {"properties": {"k": {"type": "string", "enum": ["b"]}, "x": {"type": "object", "properties": {"y": {"type": "integer"}}}}},
                {"required": ["k"]}]},
            "d": {"type": "object", "properties": {"k": {"type": "string"}}, "oneOf": [
                {"properties": {"k": {"type": "integer"}}}, {"type": "object", "properties": {"z": {"const": 1}}}]}}});
        assert!(lowered(shapes.clone(), Limits::default()).1);
        for max_depth in 1..8 {
            lowered(shapes.clone(), Limits { max_depth, ..Limits::default() });
        }
        for max_nodes in 1..30 {
            lowered(shapes.clone(), Limits { max_nodes, ..Limits::default() });
        }
    }

    /// A count past `i64::MAX` goes the general way (`gemini::int64_counts`): the JSON API
    /// writes what the object API does, whether the count was read as an integer or a double.
    #[test]
    fn counts_past_int64_go_the_general_way() {
        let schema = |max: Value, min: Value| json!({"type": "object", "properties": {"s": {"type": "string", "maxLength": max}, "t": {"type": "array", "items": {"type": "string"}, "minItems": min}}});
        let (exact, _) = lowered(schema(json!(12345678901234567890u64), json!(18446744073709551615u64)), Limits::default());
        let (doubles, _) = lowered(schema(json!(1.2345678901234567e19), json!(1.8446744073709552e19)), Limits::default());
        assert_eq!(exact, doubles);
        let out: Value = serde_json::from_str(&exact).unwrap();
        let p = &out[0]["functionDeclarations"][0]["parameters"]["properties"];
        assert_eq!(p["s"], json!({"type": "STRING"}));
        assert_eq!(p["t"]["minItems"], json!("9223372036854775807"));
        // At `i64::MAX`, passed through.
        let p = parameters(schema(json!(9223372036854775807u64), json!(0)));
        assert_eq!(p["properties"]["s"]["maxLength"], json!("9223372036854775807"));
    }

    /// A `type` beside a union narrows the branches (`gemini::narrow_branches`): the JSON API
    /// writes what the general path does, and a union within the node's types is lowered here.
    #[test]
    fn a_type_beside_a_union_narrows_as_the_general_path_does() {
        for sub in [
            json!({"type": ["string", "integer"], "anyOf": [{"type": "string", "minLength": 2}, {"type": "integer", "maximum": 5}, {"type": "boolean"}]}),
            json!({"type": "string", "anyOf": [{"type": "string", "minLength": 2}, {"type": "integer"}]}),
            json!({"type": "integer", "oneOf": [{"type": "number", "maximum": 2.5}, {"type": "boolean"}]}),
            json!({"type": "number", "anyOf": [{"type": "integer"}, {"type": "string"}]}),
            json!({"type": ["string", "null"], "anyOf": [{"type": "string"}, {"type": "integer"}]}),
            json!({"type": "string", "nullable": true, "anyOf": [{"type": "string"}, {"type": "string", "minLength": 3}]}),
            json!({"type": "string", "anyOf": [{"type": "null"}, {"type": "string", "minLength": 1}]}),
            json!({"type": ["string", "null"], "anyOf": [{"anyOf": [{"type": "null"}, {"type": "integer"}]}, {"type": "string"}]}),
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"required": ["a"]}, {"type": "string"}]}),
            json!({"type": "string", "anyOf": [{"type": "integer"}, {"type": "boolean"}]}),
            json!({"type": "string", "anyOf": [true, {"type": "string"}]}),
            // `properties` beside a union whose `type` leaves out object go into no branch.
            json!({"type": ["string", "null"], "properties": {"a": {"type": "string"}}, "anyOf": [{"type": "null"}, {"format": "uri", "title": "U"}]}),
            json!({"type": "array", "items": {"anyOf": [{"type": "string", "description": "inner"}, {"type": "null"}], "type": ["string", "null"], "properties": {"a": {"type": "string"}}, "minLength": 3, "description": "d"}}),
            // Beside untyped branches, with no `null` among them: still no OBJECT branch.
            json!({"type": "string", "properties": {"a": {"type": "string"}}, "anyOf": [{"maxLength": 3}, {"format": "email"}]}),
            json!({"type": "string", "properties": {"a": {"type": "string"}}, "required": ["a"], "oneOf": [{"maxLength": 3}, {"format": "email"}]}),
            json!({"type": "string", "description": "d", "properties": {"a": {"type": "string"}}, "required": ["a"], "anyOf": [{"maxLength": 3}], "title": "T"}),
            json!({"type": ["integer", "object"], "properties": {"a": {"type": "string"}}, "anyOf": [{"maximum": 3}, {"required": ["a"]}]}),
            // A null branch beside a nested union.
            json!({"type": ["integer", "null"], "anyOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"type": "null"}]}),
            json!({"anyOf": [{"type": "integer", "anyOf": [{"type": "integer"}, {"description": "d"}]}, {"type": "null"}], "description": "n"}),
            json!({"anyOf": [{"type": "integer", "anyOf": [{"type": "integer"}, {"type": "null"}]}, {"type": "null"}]}),
            // A null the node refuses, by a branch's `nullable`, `enum` or `const`; a type in another case.
            json!({"type": "string", "anyOf": [{"type": "string", "nullable": true, "minLength": 2}, {"type": "string", "maxLength": 1}]}),
            json!({"type": "string", "anyOf": [{"enum": ["a", null]}, {"type": "string", "minLength": 3}]}),
            json!({"type": "string", "anyOf": [{"const": null}, {"type": "string", "minLength": 3}, {"nullable": true}]}),
            json!({"type": "string", "anyOf": [{"type": "string", "minLength": 2}, {"type": "Integer"}]}),
            json!({"type": ["string", "null"], "anyOf": [{"type": "string", "nullable": true, "minLength": 2}, {"type": "string", "maxLength": 1}]}),
            json!({"type": "string", "nullable": true, "anyOf": [{"type": "string", "enum": ["a", null]}, {"type": "string", "maxLength": 1}]}),
            // A branch whose `type` lists no type name.
            json!({"type": "string", "anyOf": [{"type": [], "minLength": 2}, {"type": "string", "maxLength": 1}]}),
            json!({"type": "string", "anyOf": [{"type": [5], "minLength": 2}, {"type": "string", "maxLength": 1}]}),
            // A branch of a name of no type.
            json!({"type": "string", "anyOf": [{"type": "foo", "minLength": 2}, {"type": "string", "maxLength": 1}]}),
            json!({"type": ["string", "null"], "anyOf": [{"type": ["foo", "Integer"]}, {"type": ["foo"], "maxLength": 1}]}),
        ] {
            let schema = json!({"type": "object", "properties": {"x": sub, "y": {"type": "string"}}});
            lowered(schema, Limits::default());
        }
        let p = parameters(json!({"type": "object", "properties": {"x": {"type": "string", "anyOf": [{"type": "string", "minLength": 2}, {"maxLength": 1}]}}}));
        assert_eq!(p["properties"]["x"], json!({"anyOf": [{"type": "STRING", "minLength": "2"}, {"type": "STRING", "maxLength": "1"}]}));
        // `properties` on a string node beside untyped branches: removed, the branches strings.
        let (text, _) = lowered(json!({"type": "object", "properties": {"x": {"type": "string", "properties": {"a": {"type": "string"}}, "anyOf": [{"maxLength": 3}, {"format": "email"}]}}}), Limits::default());
        assert!(text.contains(r#""x":{"anyOf":[{"type":"STRING","maxLength":"3"},{"type":"STRING","description":"(format: email)"}]}"#), "{text}");
    }

    /// A union of unions: the nested union's description (its notes too) goes into each of its
    /// alternatives, joined to their own, on both paths.
    #[test]
    fn a_nested_unions_description_reaches_each_alternative_as_the_general_path_does() {
        for sub in [
            json!({"anyOf": [{"anyOf": [{"type": "integer"}, {"description": "any"}]}, {"type": "string"}], "maximum": 4}),
            json!({"anyOf": [{"description": "Nested", "anyOf": [{"type": "integer", "description": "by id"}, {"type": "boolean"}]}, {"type": "string"}]}),
            json!({"anyOf": [{"description": "Nested", "anyOf": [{"type": "integer", "description": "by id"}, {"enum": ["x", "x"], "description": "the Nested x"}]}, {"type": "null"}, {"type": "string"}], "description": "D"}),
            json!({"anyOf": [{"description": "N", "anyOf": [{"type": "object", "properties": {"a": {"const": "v"}}, "description": "o"}, {"type": "integer"}]}, {"type": "string"}]}),
            json!({"anyOf": [{"description": "inner", "type": "string", "anyOf": [{"minLength": 1}, {"format": "date"}]}, {"type": "integer"}]}),
        ] {
            let schema = json!({"type": "object", "properties": {"x": sub.clone(), "y": {"type": "string"}}});
            assert!(lowered(schema, Limits::default()).1, "not lowered from the borrowed tree: {sub}");
        }
        let p = parameters(json!({"type": "object", "properties": {"x": {"anyOf": [{"description": "Nested", "anyOf": [{"type": "integer", "description": "by id"}, {"type": "boolean"}]}, {"type": "string"}]}}}));
        assert_eq!(p["properties"]["x"], json!({"anyOf": [{"type": "INTEGER", "description": "Nested (by id)"}, {"type": "BOOLEAN", "description": "Nested"}, {"type": "STRING"}]}));
    }

    /// A described `Optional[...]` whose one branch has a description of its own (Pydantic's
    /// `Optional[Model]` with a field description): both reach the model, joined, on both paths.
    #[test]
    fn an_optional_nodes_description_is_joined_to_its_branchs() {
        let p = parameters(json!({"type": "object", "properties": {"p": {"description": "outer", "anyOf": [{"type": "string", "description": "inner"}, {"type": "null"}]}}}));
        assert_eq!(p["properties"]["p"], json!({"type": "STRING", "description": "outer (inner)", "nullable": true}));
        let p = parameters(json!({"type": "object", "properties": {"p": {"description": "outer", "anyOf": [{"type": "string", "description": "outer text"}]}}}));
        assert_eq!(p["properties"]["p"], json!({"type": "STRING", "description": "outer text"}));
        let (text, _) = lowered(
            json!({"type": "object", "properties": {"p": {"description": "outer", "anyOf": [{"description": "inner", "anyOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "null"}]}}}),
            Limits::default(),
        );
        assert!(text.contains("outer (inner)"), "{text}");
    }

    /// `type: ["string", "object"]` beside branches of keywords alone: each branch is a string
    /// or an object (a string matches `{minLength: 1}`), not an object only, on both paths.
    #[test]
    fn untyped_branches_of_a_string_or_object_node_keep_the_string() {
        let types = |sub: Value| {
            let (text, _) = lowered(json!({"type": "object", "properties": {"p": sub, "y": {"type": "string"}}}), Limits::default());
            let out: Value = serde_json::from_str(&text).unwrap();
            let p = &out[0]["functionDeclarations"][0]["parameters"]["properties"]["p"];
            p["anyOf"].as_array().unwrap_or_else(|| panic!("{p}")).iter().map(|b| b["type"].as_str().unwrap_or_default().to_owned()).collect::<Vec<_>>()
        };
        assert_eq!(types(json!({"type": ["string", "object"], "anyOf": [{"minLength": 1}, {"required": ["a"]}]})), ["STRING", "OBJECT", "STRING", "OBJECT"]);
        assert_eq!(types(json!({"type": ["object", "string", "null"], "properties": {"a": {"type": "string"}}, "anyOf": [{"minLength": 1}, {"type": "object", "required": ["a"]}]})), ["OBJECT", "STRING", "OBJECT"]);
        assert_eq!(types(json!({"type": ["object", "null"], "properties": {"a": {"type": "string"}}, "anyOf": [{"required": ["a"]}, {"minProperties": 2}]})), ["OBJECT", "OBJECT"]);
    }

    /// A `null` type or branch beside an enum (or const) without null is not made nullable on
    /// either path (s29f F3).
    #[test]
    fn a_null_an_enum_leaves_out_goes_as_the_general_path_does() {
        for sub in [
            json!({"type": ["string", "null"], "enum": ["x", "y"]}),
            json!({"type": ["string", "null"], "const": "x"}),
            json!({"anyOf": [{"type": "string"}, {"type": "null"}], "enum": ["x"]}),
            json!({"type": ["string", "null"], "enum": ["x", null]}),
        ] {
            let (text, _) = lowered(json!({"type": "object", "properties": {"x": sub.clone(), "y": {"type": "string"}}}), Limits::default());
            let nullable = sub["enum"].as_array().is_some_and(|e| e.contains(&Value::Null));
            assert_eq!(text.contains("nullable"), nullable, "{sub}: {text}");
        }
    }

    /// A `null` in an enum beside a type that leaves null out is not made nullable on either
    /// path; `nullable: true` keeps it.
    #[test]
    fn a_null_the_type_leaves_out_goes_as_the_general_path_does() {
        for sub in [
            json!({"type": "string", "enum": ["x", null]}),
            json!({"type": "integer", "enum": [1, null]}),
            json!({"anyOf": [{"type": "string"}], "enum": ["x", null]}),
            json!({"type": "string", "nullable": true, "enum": ["x", null]}),
            // A branch's: typed, its own type leaves null out; untyped, it inherits the node's.
            json!({"type": "string", "anyOf": [{"type": "string", "enum": ["a", null]}, {"type": "string", "maxLength": 1}]}),
            json!({"type": "string", "nullable": true, "anyOf": [{"enum": ["a", null]}, {"maxLength": 1}]}),
        ] {
            let (text, _) = lowered(json!({"type": "object", "properties": {"x": sub.clone(), "y": {"type": "string"}}}), Limits::default());
            assert_eq!(text.contains("nullable"), sub.get("nullable").is_some(), "{sub}: {text}");
        }
    }

    /// Draft 4's tuple without `additionalItems` is written on both paths as `prefixItems`
    /// without `items` is: the items past it any value.
    #[test]
    fn an_open_draft4_tuple_goes_as_prefix_items_alone() {
        let tuple = json!([{"type": "string"}, {"type": "integer"}]);
        let (d4, _) = lowered(json!({"type": "object", "properties": {"t": {"type": "array", "items": tuple}}}), Limits::default());
        let (p, _) = lowered(json!({"type": "object", "properties": {"t": {"type": "array", "prefixItems": tuple}}}), Limits::default());
        assert_eq!(d4, p);
        assert!(d4.contains("\"OBJECT\""), "{d4}");
    }

    /// A `contains` that `minContains: 0` turns off is not described as required on either path
    /// (s29f F5).
    #[test]
    fn unrequired_contains_goes_as_the_general_path_does() {
        for sub in [
            json!({"type": "array", "items": {"type": "string"}, "contains": {"const": "urgent"}, "minContains": 0}),
            json!({"type": "array", "items": {"type": "string"}, "contains": {"const": "x"}, "minContains": 0, "maxContains": 2}),
        ] {
            let (text, _) = lowered(json!({"type": "object", "properties": {"x": sub.clone(), "y": {"type": "string"}}}), Limits::default());
            assert!(!text.contains("must contain"), "{sub}: {text}");
        }
    }

    /// Enum values of another type than the node's one are removed on both paths: the model is
    /// not offered "2.5" for an integer.
    #[test]
    fn enum_values_of_another_type_are_removed_as_the_general_path_does() {
        for (sub, kept) in [
            (json!({"type": "integer", "enum": [1, "a", 2.5, 3.0]}), Some(json!({"type": "STRING", "enum": ["1", "3"]}))),
            (json!({"type": ["string", "null"], "enum": ["a", 1, true, null]}), Some(json!({"type": "STRING", "enum": ["a"], "nullable": true}))),
            (json!({"type": "number", "enum": [1, 2.5, "x"]}), Some(json!({"type": "STRING", "enum": ["1", "2.5"]}))),
            (json!({"type": "boolean", "const": "yes"}), None),
            // Null is no integer either: no value left, the property removed.
            (json!({"type": "integer", "enum": ["a", null]}), None),
            (json!({"anyOf": [{"type": "integer", "enum": [1, "b"]}, {"type": "null"}]}), Some(json!({"type": "STRING", "enum": ["1"], "nullable": true}))),
        ] {
            let schema = json!({"type": "object", "properties": {"x": sub, "y": {"type": "string"}}});
            let (text, _) = lowered(schema, Limits::default());
            let out: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(out[0]["functionDeclarations"][0]["parameters"]["properties"].get("x"), kept.as_ref(), "{sub}");
        }
    }
}
