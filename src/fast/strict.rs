//! The strict modes of OpenAI (Chat and Responses) and Anthropic (and Bedrock's, which is
//! Claude's too) written straight from the borrowed tree, for the schemas whose strict form is
//! a plain rewrite node by node.
//!
//! [`crate::providers::openai`]'s strict steps, for a schema that the non-strict path passes
//! through ([`super::is_clean`]), change every object node (`additionalProperties: false`,
//! every property required, the optional ones widened to nullable) and remove the keywords
//! outside the strict subset into the description. [`crate::providers::anthropic`]'s close
//! every object and move the constraints it does not support into the description. The general
//! path does that on a copy of the schema as a [`Value`](serde_json::Value) tree; this module
//! does it on the [`Node`] tree of the pass-through path and writes the result, with the same
//! argument plan (for OpenAI, each optional property's `null` means "absent") and, for
//! Anthropic, the figures its set-level limits count.
//!
//! [`lower_root`] takes a schema only where its steps are exact: no `$ref` anywhere (the
//! general path inlines them first); for OpenAI also no `allOf` (merged there), no `oneOf`
//! beside an `anyOf` (joined there; a `oneOf` alone becomes `anyOf` here as there), no tuple
//! `items`, and no removed keyword that holds subschemas (its description note would quote
//! them); for Claude no `oneOf` (rewritten there, and reported), no object node with an
//! `anyOf` or `allOf` (whose branches may not fit the closed object there), and no `allOf` with
//! an object branch (merged into one object there). A schema that cannot be strict (OpenAI: a keyword strict mode cannot
//! express, an open map, a boolean subschema, an untyped node, a limit; Anthropic: an open map, a
//! boolean subschema, an untyped property, items or branch, an `enum` of objects or arrays; a
//! keyword outside Claude's subset that is not a constraint this path describes goes the general way)
//! is told apart as such: the general path sends the non-strict schema then, which is the
//! pass-through one. Anything else goes the general way.
//!
//! Within the subset the output is the general path's byte for byte, key order included
//! ([`Map`] repeats serde_json's swap-removing `remove` and in-place `insert`). Changes are not
//! reported, so the path serves only conversions without a change log. `tests/corpus.rs`,
//! `tests/properties.rs` and the `schema_convert` fuzz target compare the two paths.

use bumpalo::collections::Vec as List;
use bumpalo::Bump;

use super::{plain, write_key, write_object, Levels, Map, Node, Required, Text};
use crate::args::{ArgPlan, Fit};
use crate::providers::openai::{Budget, NULL_BESIDE_ENUM, STRICT_FORMATS};
use crate::providers::anthropic::ClaudeKey;
use crate::providers::{anthropic, Provider};
use crate::schema::lower::keyword_hint;
use crate::schema::walk::{head, head_of, keyword, Keyword};
use crate::text::{self, Owned as _};

/// What strict mode makes of a schema.
pub(crate) enum Outcome {
    /// The strict schema, written; its argument plan; for Anthropic, what its set-level limits
    /// count (see [`anthropic::strict_costs`]). Anthropic's is not written yet (`None`): its
    /// limits keep at most 20 tools of a set strict, so [`write_anthropic`] writes it once they
    /// have kept this one.
    Strict(Option<Vec<u8>>, Box<ArgPlan>, (usize, usize)),
    /// It cannot be strict: the general path sends the non-strict schema (OpenAI with
    /// `strict: false`, Anthropic without `strict`).
    NotStrict,
}

/// Why this path stops short of a strict schema.
enum Stop {
    /// Outside the subset: the general path decides.
    General,
    /// The schema cannot be strict.
    NotStrict,
}

type Step<T> = Result<T, Stop>;

/// What the OpenAI walk gathers on the way: what strict mode's limits count, and whether it
/// left a node to the general path while it went on ([`strict_object`]), with at most how many
/// schema nodes the general path enters there (which may pass the node limit, an error there).
#[derive(Default)]
struct Walk {
    budget: Budget,
    left: bool,
    left_nodes: usize,
}

/// At least as many nodes as a schema walk enters below and at `node` (every object counts).
fn nodes_in(node: &Node) -> usize {
    match node {
        Node::Obj(entries) => 1 + entries.iter().map(|(_, v)| nodes_in(v)).sum::<usize>(),
        Node::Arr(items) => items.iter().map(nodes_in).sum(),
        _ => 0,
    }
}

/// A node's argument plan: `None` when it changes nothing, which is every node's when no plans
/// are kept (the JSON API), so that the rewrite neither builds nor drops a plan per node.
type Plan = Option<ArgPlan>;

/// The `type` the general path gives a node with properties but no type.
static OBJECT: Node<'static> = Node::Str(Text::raw("object"));

/// One value of a strict node.
enum Val<'n, 'a> {
    /// An input value, written as it is.
    Raw(&'n Node<'a>),
    /// A description with notes appended (in the arena, as everything here: nothing in a
    /// strict tree needs dropping, so a subtree the arena holds, [`Val::Schema`], leaks nothing).
    Text(&'n str),
    /// `additionalProperties: false`.
    False,
    /// Strict properties (empty for the `properties: {}` of the non-strict schema), and whether
    /// their names are [plain](super::plain).
    Props(List<'n, (&'n str, Strict<'n, 'a>)>, bool),
    /// A strict subschema (`items`, for Anthropic any single one).
    Schema(&'n Strict<'n, 'a>),
    /// Anthropic: a map of subschemas (`properties`, `$defs`, ...), each strict or as it was.
    Schemas(List<'n, (&'n str, Val<'n, 'a>)>),
    /// Anthropic: a list of subschemas (`anyOf`, ...), each strict or as it was.
    SchemaList(List<'n, Val<'n, 'a>>),
    /// Strict `anyOf` branches, and whether a `{"type": "null"}` branch follows them.
    AnyOf(List<'n, Strict<'n, 'a>>, bool),
    /// `required`: every property, and whether the names are [plain](super::plain).
    Names(List<'n, &'n str>, bool),
    /// A `type` (a name or a list of names) with `"null"` added.
    TypeOrNull(&'n Node<'a>),
    /// An `enum` with `null` added.
    EnumOrNull(&'n [Node<'a>]),
}

/// A strict node: its entries in the order the general path's map has them, and whether its
/// keys are [plain](super::plain).
struct Strict<'n, 'a>(Map<'n, Val<'n, 'a>>, bool);

/// The strict attempt of `openai::compile` or `anthropic::compile` on a root that
/// [`super::is_clean`] accepted and in which no `$ref` appears (`Node::measure`); `None` when
/// it is outside the subset and must go the general way.
/// `arena` holds the rewrite while it is written (the caller may reset it afterwards), in
/// `buffer` (see [`super::written`]).
pub(crate) fn lower_root(root: &Node, levels: &mut Levels, provider: Provider, arena: &Bump, buffer: &mut Vec<u8>) -> Option<Outcome> {
    // Bedrock's strict mode is Claude's, as Anthropic's.
    let done = if provider.claude_strict().is_some() {
        let mut check = Check::default();
        match anthropic_check(root, levels, Some(0), &mut check) {
            // Strict, but with nodes the rewrite here does not write.
            Ok(()) if check.unwritten => Err(Stop::General),
            done => done.map(|()| (None, ArgPlan::default(), check.costs)),
        }
    } else {
        let mut walk = Walk::default();
        match strict_node(root, levels, 0, &mut walk, arena) {
            Ok(_) if walk.budget.exceeded().is_some() => Err(Stop::NotStrict),
            Ok(_) if walk.left => Err(Stop::General),
            Ok((node, plan)) => Ok((Some(super::written(buffer, |out| node.write(out))), plan.unwrap_or_default(), (0, 0))),
            // The general path enters the left nodes' subtrees first, where the node limit may
            // stop it before it finds the schema non-strict.
            Err(Stop::NotStrict) if walk.left && levels.nodes.saturating_add(walk.left_nodes) > levels.max_nodes => Err(Stop::General),
            Err(stop) => Err(stop),
        }
    };
    match done {
        Ok((text, plan, costs)) => Some(Outcome::Strict(text, Box::new(plan), costs)),
        Err(Stop::NotStrict) => Some(Outcome::NotStrict),
        Err(Stop::General) => None,
    }
}

/// Anthropic's strict schema of a root that [`lower_root`] found strict, written to `out`;
/// `false` (nothing written) should the rewrite not succeed after all.
pub(crate) fn write_anthropic(root: &Node, levels: &mut Levels, out: &mut Vec<u8>, arena: &Bump) -> bool {
    match anthropic_node(root, levels, arena) {
        Ok(node) => {
            node.write(out);
            true
        }
        Err(_) => false,
    }
}

/// The entries of a node's non-strict form: its own, and the `properties: {}` that
/// [`Node::write_schema`] adds to an object without one.
fn base<'n, 'a>(entries: &'n [(Text<'a>, Node<'a>)], arena: &'n Bump) -> Map<'n, Val<'n, 'a>> {
    let mut o = Map::new(List::with_capacity_in(entries.len() + 3, arena));
    for (k, v) in entries.iter() {
        o.0.push((k.as_ref(), Val::Raw(v)));
    }
    if type_names(raw(&o, "type")).1 && !o.has("properties") {
        o.0.push(("properties", Val::Props(List::new_in(arena), true)));
    }
    o
}

/// `openai::strict_node`.
fn strict_node<'n, 'a>(node: &'n Node<'a>, levels: &mut Levels, level: usize, walk: &mut Walk, arena: &'n Bump) -> Step<(Strict<'n, 'a>, Plan)> {
    let entries = match node {
        Node::Obj(entries) => entries,
        Node::Bool(_) => return Err(Stop::NotStrict),
        _ => return Err(Stop::General),
    };
    if !levels.enter() {
        return Err(Stop::General);
    }
    let r = strict_object(entries, levels, level, walk, arena);
    levels.depth -= 1;
    r
}

/// `openai::strict_object` on the non-strict form of a node ([`base`]).
fn strict_object<'n, 'a>(
    entries: &'n [(Text<'a>, Node<'a>)],
    levels: &mut Levels,
    level: usize,
    walk: &mut Walk,
    arena: &'n Bump,
) -> Step<(Strict<'n, 'a>, Plan)> {
    let mut o = base(entries, arena);
    // OpenAPI's `nullable` is written as a `null` type there (and reported).
    if o.has("nullable") {
        return Err(Stop::General);
    }

    // One pass over the keys: `allOf` (merged by the general path) comes before the keywords
    // strict mode cannot express.
    let (mut all_of, mut one_of, mut blocked, mut removed) = (false, false, false, false);
    // The keys looked up below that the node has (see `keys`); a key added on the way is marked
    // where a lookup after it needs it (`oneOf` read as `anyOf`).
    let mut has = 0;
    for (k, _) in o.0.iter() {
        let (class, key) = class_and_key(k);
        has |= key;
        match class {
            Class::AllOf => all_of = true,
            Class::OneOf => one_of = true,
            Class::Blocker => blocked = true,
            Class::Removed => removed = true,
            Class::Kept => {}
        }
    }
    if all_of {
        return Err(Stop::General);
    }
    if one_of {
        // `oneOf` becomes `anyOf` (removed, then inserted last); appended to an `anyOf` there.
        if o.has("anyOf") {
            return Err(Stop::General);
        }
        if let Some(one) = o.take("oneOf") {
            o.insert("anyOf", one);
            has |= keys::ANY_OF;
        }
    }
    if blocked {
        return Err(Stop::NotStrict);
    }
    let may = |has: u16, key: u16| has & key != 0;
    // `true`, or a value schema: an open map, not strict (`openai::close` closes an omission only).
    if may(has, keys::ADDITIONAL) && !matches!(raw(&o, "additionalProperties"), None | Some(Node::Bool(false))) {
        return Err(Stop::NotStrict);
    }
    let mut notes = Notes(None);
    if may(has, keys::FORMAT) && raw(&o, "format").and_then(Node::as_str).is_some_and(|f| !STRICT_FORMATS.contains(&f)) {
        if let Some(v) = o.take("format") {
            fold(&mut o, &mut notes, "format", v, arena)?;
        }
    }
    if removed {
        fold_removed(&mut o, &mut notes, arena)?;
    }
    notes.write(&mut o);
    let (mut typed, mut is_object) = if may(has, keys::TYPE) { type_names(raw(&o, "type")) } else { (false, false) };
    if !typed && may(has, keys::PROPERTIES) && o.has("properties") {
        o.insert("type", Val::Raw(&OBJECT));
        (typed, is_object) = (true, true);
    }
    if !typed && !o.has("anyOf") && !o.has("enum") && !o.has("const") {
        return Err(Stop::NotStrict);
    }
    // An object's own properties beside an `anyOf` go into its branches there
    // (`openai::distribute_into_branches`), which only changes this subtree: it is left to the
    // general path, but the walk goes on elsewhere, where a reason not to be strict is the
    // general path's verdict too (sent as it is, without the general path's rewrite).
    if is_object && o.has("anyOf") && matches!(raw(&o, "properties"), Some(Node::Obj(p)) if !p.is_empty()) {
        walk.left = true;
        // The subtree, and the object's own properties copied into each branch.
        let branches = match raw(&o, "anyOf") {
            Some(Node::Arr(b)) => b.len(),
            _ => 0,
        };
        let own = raw(&o, "properties").map_or(0, nodes_in);
        walk.left_nodes = walk.left_nodes.saturating_add(entries.iter().map(|(_, v)| nodes_in(v)).sum::<usize>() + 1).saturating_add(own.saturating_mul(branches));
        return Ok((Strict(o, false), None));
    }
    if let Some(Node::Arr(values)) = may(has, keys::ENUM).then(|| raw(&o, "enum")).flatten() {
        walk.budget.count_enum(values.len(), chars_of_strings(values), || string_chars(values));
    } else if let Some(c) = may(has, keys::CONST).then(|| raw(&o, "const")).flatten() {
        walk.budget.count_enum(0, c.as_str().map_or(0, |s| s.chars().count()), || None);
    }
    // Only made when `levels.plans` and some part of it changes something.
    let mut plan: Plan = None;
    if !is_object && typed {
        for (key, bit) in [("properties", keys::PROPERTIES), ("required", keys::REQUIRED), ("additionalProperties", keys::ADDITIONAL)] {
            if may(has, bit) {
                o.take(key);
            }
        }
    }
    if is_object {
        // `openai::free_form_object`: below the root (entered first), no properties declared.
        let declared = matches!(raw(&o, "properties"), Some(Node::Obj(p)) if !p.is_empty());
        if levels.depth > 1 && !declared && !matches!(raw(&o, "additionalProperties"), Some(Node::Bool(false))) && !o.has("anyOf") && !o.has("allOf") {
            return Err(Stop::NotStrict);
        }
        walk.budget.depth = walk.budget.depth.max(level + 1);
        o.insert("additionalProperties", Val::False);
        let required: &[Node] = match may(has, keys::REQUIRED).then(|| raw(&o, "required")).flatten() {
            Some(Node::Arr(names)) => names,
            _ => &[],
        };
        let required = Required::of(required);
        let mut all = List::new_in(arena);
        let mut names_plain = true;
        if let Some(slot) = may(has, keys::PROPERTIES).then(|| o.get_mut("properties")).flatten() {
            match slot {
                Val::Raw(Node::Obj(props)) => {
                    names_plain = plain(props);
                    walk.budget.properties += props.len();
                    let mut done = List::with_capacity_in(props.len(), arena);
                    for (name, sub) in props.iter() {
                        walk.budget.chars += name.chars().count();
                        let (mut strict, sub_plan) = strict_node(sub, levels, level + 1, walk, arena)?;
                        let optional = !required.has(name);
                        if optional {
                            // A `const` is widened as an enum of it and null: the general path's.
                            // So is an anyOf beside a type or enum, wrapped with null there.
                            if strict.0.has("const") || (strict.0.has("anyOf") && (strict.0.has("type") || strict.0.has("enum"))) {
                                return Err(Stop::General);
                            }
                            match raw(&strict.0, "enum") {
                                // One with `null` may take it already, or not (its type says).
                                Some(Node::Arr(values)) if values.len() >= NULL_BESIDE_ENUM && values.iter().any(|v| matches!(v, Node::Null)) => {
                                    return Err(Stop::General);
                                }
                                // Its null a branch beside it, as the general path writes it.
                                Some(Node::Arr(values)) if values.len() >= NULL_BESIDE_ENUM => {
                                    let mut node = List::with_capacity_in(1, arena);
                                    node.push(strict);
                                    let mut wrapper = Map::new(List::with_capacity_in(1, arena));
                                    wrapper.insert("anyOf", Val::AnyOf(node, true));
                                    strict = Strict(wrapper, true);
                                }
                                _ => widen_nullable(&mut strict),
                            }
                            if let Some(Val::EnumOrNull(values)) = strict.0.get("enum") {
                                walk.budget.count_widened(values.len(), values.len() + 1, chars_of_strings(values), || string_chars(values));
                            }
                        }
                        if levels.plans && (optional || sub_plan.is_some()) {
                            let plan = plan.get_or_insert_with(ArgPlan::default);
                            if let Some(sub_plan) = sub_plan {
                                plan.set_property(name, sub_plan);
                            }
                            if optional {
                                plan.null_means_absent.push(name.as_str().owned());
                            }
                        }
                        all.push(name.as_ref());
                        done.push((name.as_ref(), strict));
                    }
                    *slot = Val::Props(done, names_plain);
                }
                Val::Props(..) => {}
                _ => return Err(Stop::General),
            }
        }
        o.insert("required", Val::Names(all, names_plain));
    }
    if let Some(slot) = may(has, keys::ITEMS).then(|| o.get_mut("items")).flatten() {
        let Val::Raw(items) = slot else { return Err(Stop::General) };
        if matches!(items, Node::Arr(_)) {
            // Draft-4 tuple items: left as they are by the general path, kept out of this one.
            return Err(Stop::General);
        }
        let (strict, items_plan) = strict_node(items, levels, level, walk, arena)?;
        if let Some(items_plan) = items_plan {
            plan.get_or_insert_with(ArgPlan::default).items = Some(Box::new(items_plan));
        }
        *slot = Val::Schema(arena.alloc(strict));
    }
    if let Some(slot) = may(has, keys::ANY_OF).then(|| o.get_mut("anyOf")).flatten() {
        if let Val::Raw(Node::Arr(branches)) = slot {
            let (mut done, mut plans) = (List::with_capacity_in(branches.len(), arena), Vec::new());
            for branch in branches.iter() {
                let (strict, branch_plan) = strict_node(branch, levels, level, walk, arena)?;
                done.push(strict);
                if levels.plans {
                    plans.push(branch_plan);
                }
            }
            if plans.iter().any(Option::is_some) {
                // Each with the fit of its branch, read from the branch as written (a union
                // with plans is rare: written and read again, the fit is the general path's).
                let mut text = Vec::new();
                let fits = done.iter().map(|b| {
                    text.clear();
                    b.write(&mut text);
                    std::str::from_utf8(&text).ok().and_then(super::read_value).map(|v| Box::new(Fit::of(&v)))
                });
                let plans = plans.into_iter().zip(fits).map(|(p, fit)| ArgPlan { fit, ..p.unwrap_or_default() }).collect();
                plan.get_or_insert_with(ArgPlan::default).any_of = plans;
            }
            *slot = Val::AnyOf(done, false);
            any_of_without_type(&mut o);
        }
    }
    Ok((Strict(o, plain(entries)), plan))
}

/// The names of a `type` as `lower::types_of` reads them.
fn names<'a>(t: Option<&'a Node<'a>>) -> Vec<&'a str> {
    match t {
        Some(Node::Str(t)) => vec![t.as_str()],
        Some(Node::Arr(ts)) => ts.iter().filter_map(Node::as_str).collect(),
        _ => Vec::new(),
    }
}

/// `openai::any_of_without_type`, on a node whose `anyOf` is written strict.
fn any_of_without_type(o: &mut Map<Val>) {
    let node = names(raw(o, "type"));
    let Some(Val::AnyOf(branches, _)) = o.get("anyOf") else { return };
    if node.is_empty() {
        return;
    }
    let mut covered: Vec<&str> = Vec::new();
    for b in branches.iter() {
        let ts = names(raw(&b.0, "type"));
        if ts.is_empty() || !ts.iter().all(|t| node.contains(t)) {
            return;
        }
        covered.extend(ts);
    }
    // As there: a `null` no branch allows goes with the type.
    match node.iter().filter(|t| !covered.contains(t)).collect::<Vec<_>>()[..] {
        [] => {}
        [t] if *t == "null" => {}
        _ => return,
    }
    let is_object = node.contains(&"object");
    if is_object && !matches!(o.get("properties"), None | Some(Val::Props(..))) {
        return;
    }
    if is_object && matches!(o.get("properties"), Some(Val::Props(props, _)) if !props.is_empty()) {
        return;
    }
    o.take("type");
    if is_object {
        for key in ["properties", "additionalProperties", "required"] {
            o.take(key);
        }
    }
}

/// Where a key stands in OpenAI's strict mode.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    /// In `openai::STRICT_KEYWORDS`: kept.
    Kept,
    /// In `openai::STRICT_BLOCKERS`: the schema cannot be strict.
    Blocker,
    /// `allOf` (merged by the general path).
    AllOf,
    /// `oneOf` (rewritten as `anyOf`).
    OneOf,
    /// Anything else: removed, and described where it means something.
    Removed,
}

/// [`Class`] of a key.
fn class(k: &str) -> Class {
    class_and_key(k).0
}

/// The keys of a node that [`strict_object`] looks up, one bit each: a bit left clear means the
/// node has no such key, and the lookup is skipped.
mod keys {
    pub(super) const TYPE: u16 = 1;
    pub(super) const PROPERTIES: u16 = 1 << 1;
    pub(super) const REQUIRED: u16 = 1 << 2;
    pub(super) const ADDITIONAL: u16 = 1 << 3;
    pub(super) const FORMAT: u16 = 1 << 4;
    pub(super) const ENUM: u16 = 1 << 5;
    pub(super) const ITEMS: u16 = 1 << 6;
    pub(super) const ANY_OF: u16 = 1 << 7;
    pub(super) const CONST: u16 = 1 << 8;
}

/// [`Class`] of a key, and its bit in [`keys`] (0 for the others), by its length and first eight
/// bytes (one integer compare per candidate, as `walk::keyword` matches keywords), then in full
/// for the keys longer than eight. Checking each key against the two lists called `memcmp` for
/// every candidate of the same length.
fn class_and_key(k: &str) -> (Class, u16) {
    const fn h(k: &[u8]) -> u64 {
        head_of(k)
    }
    const TYPE: u64 = h(b"type");
    const ENUM: u64 = h(b"enum");
    const THEN: u64 = h(b"then");
    const ELSE: u64 = h(b"else");
    const ITEMS: u64 = h(b"items");
    const ANY_OF: u64 = h(b"anyOf");
    const ALL_OF: u64 = h(b"allOf");
    const ONE_OF: u64 = h(b"oneOf");
    const CONST: u64 = h(b"const");
    const TITLE: u64 = h(b"title");
    const FORMAT: u64 = h(b"format");
    const PATTERN: u64 = h(b"pattern");
    const MAXIMUM: u64 = h(b"maximum");
    const MINIMUM: u64 = h(b"minimum");
    const REQUIRED: u64 = h(b"required");
    const MIN_ITEMS: u64 = h(b"minItems");
    const MAX_ITEMS: u64 = h(b"maxItems");
    const CONTAINS: u64 = h(b"contains");
    const NOT: u64 = h(b"not");
    const IF: u64 = h(b"if");
    const PROPERTIES: u64 = h(b"properties");
    const ADDITIONAL: u64 = h(b"additionalProperties");
    const DESCRIPTION: u64 = h(b"description");
    const MULTIPLE_OF: u64 = h(b"multipleOf");
    const EXCLUSIVE: u64 = h(b"exclusiveMaximum");
    const DEPENDENT: u64 = h(b"dependentSchemas");
    const PATTERN_PROPERTIES: u64 = h(b"patternProperties");
    const PREFIX_ITEMS: u64 = h(b"prefixItems");
    let b = k.as_bytes();
    let (class, key, words): (Class, u16, &[&str]) = match (b.len(), head(b)) {
        (4, TYPE) => return (Class::Kept, keys::TYPE),
        (4, ENUM) => return (Class::Kept, keys::ENUM),
        (5, ITEMS) => return (Class::Kept, keys::ITEMS),
        (5, ANY_OF) => return (Class::Kept, keys::ANY_OF),
        (6, FORMAT) => return (Class::Kept, keys::FORMAT),
        (8, REQUIRED) => return (Class::Kept, keys::REQUIRED),
        (5, CONST) => return (Class::Kept, keys::CONST),
        (5, TITLE) | (7, PATTERN | MAXIMUM | MINIMUM) | (8, MIN_ITEMS | MAX_ITEMS) => return (Class::Kept, 0),
        (2, IF) | (3, NOT) | (4, THEN | ELSE) | (8, CONTAINS) => return (Class::Blocker, 0),
        (5, ALL_OF) => return (Class::AllOf, 0),
        (5, ONE_OF) => return (Class::OneOf, 0),
        (10, PROPERTIES) => (Class::Kept, keys::PROPERTIES, &["properties"]),
        (20, ADDITIONAL) => (Class::Kept, keys::ADDITIONAL, &["additionalProperties"]),
        (11, DESCRIPTION) => (Class::Kept, 0, &["description"]),
        (10, MULTIPLE_OF) => (Class::Kept, 0, &["multipleOf"]),
        (16, EXCLUSIVE) => (Class::Kept, 0, &["exclusiveMaximum", "exclusiveMinimum"]),
        (16, DEPENDENT) => (Class::Blocker, 0, &["dependentSchemas"]),
        (17, PATTERN_PROPERTIES) => (Class::Blocker, 0, &["patternProperties"]),
        (11, PREFIX_ITEMS) => (Class::Blocker, 0, &["prefixItems"]),
        _ => return (Class::Removed, 0),
    };
    if words.contains(&k) {
        (class, key)
    } else {
        (Class::Removed, 0)
    }
}

/// The input value under `key`, if it is one.
fn raw<'n, 'a>(o: &Map<'n, Val<'n, 'a>>, key: &str) -> Option<&'n Node<'a>> {
    match o.get(key) {
        Some(Val::Raw(v)) => Some(*v),
        _ => None,
    }
}

/// `lower::types_of` of a node's `type`: whether it names a type, and whether `object` is one
/// of them.
fn type_names(t: Option<&Node>) -> (bool, bool) {
    match t {
        Some(Node::Str(t)) => (true, t == "object"),
        Some(Node::Arr(ts)) => (ts.iter().any(|t| t.as_str().is_some()), ts.iter().any(|t| t.as_str() == Some("object"))),
        _ => (false, false),
    }
}

/// Keys past which [`fold_removed`] finds each removed keyword by where it was moved to, not by
/// a scan of the map per keyword (quadratic in the keys: 64,000 unknown keywords took seconds).
/// A node has a handful of keys: the scan is the cheaper there.
const SCANNED_KEYS: usize = 32;

/// The keywords strict mode cannot express removed (`openai::strict_object`'s loop over
/// `removable`) and folded into `notes`, in the map's order after the swap-removes before, as
/// the general path lists them, each swap-removed as there.
fn fold_removed<'n, 'a>(o: &mut Map<'n, Val<'n, 'a>>, notes: &mut Notes<'n>, arena: &'n Bump) -> Step<()> {
    if o.0.len() <= SCANNED_KEYS {
        let removable = List::from_iter_in(o.0.iter().map(|(k, _)| *k).filter(|k| class(k) != Class::Kept), arena);
        for key in removable {
            if let Some(v) = o.take(key) {
                fold(o, notes, key, v, arena)?;
            }
        }
        return Ok(());
    }
    // The keys are distinct (duplicates go the general way), so a removed keyword is the entry
    // listed, wherever the swap-removes before it moved it: where each entry is (`at`) and
    // which entry each place holds (`held`), kept as `swap_remove` moves the last entry.
    let n = o.0.len();
    let mut at = List::from_iter_in(0..n, arena);
    let mut held = List::from_iter_in(0..n, arena);
    let removable = List::from_iter_in((0..n).filter(|&i| class(o.0[i].0) != Class::Kept), arena);
    for entry in removable {
        let place = at[entry];
        let (key, v) = o.0.swap_remove(place);
        let last = held.pop().unwrap_or(entry);
        if place < held.len() {
            held[place] = last;
            at[last] = place;
        }
        fold(o, notes, key, v, arena)?;
        // The description the first note added, last.
        if o.0.len() > held.len() {
            at.push(held.len());
            held.push(at.len() - 1);
        }
    }
    Ok(())
}

/// `openai::fold`: the note of a removed keyword added to the node's `notes`.
fn fold<'n>(o: &mut Map<'n, Val<'n, '_>>, notes: &mut Notes<'n>, key: &str, removed: Val, arena: &'n Bump) -> Step<()> {
    let Val::Raw(value) = removed else { return Err(Stop::General) };
    if keyword(key) != Keyword::Other && matches!(value, Node::Obj(_) | Node::Arr(_)) {
        // The note would quote subschemas as the non-strict path left them.
        return Err(Stop::General);
    }
    // `unevaluatedProperties: true` may leave an object open (`openai::open_by_unevaluated`),
    // and `dependencies` hold schemas (`openai::dependent_schemas`).
    if (key == "unevaluatedProperties" && matches!(value, Node::Bool(true))) || (key == "dependencies" && matches!(value, Node::Obj(_))) {
        return Err(Stop::General);
    }
    if let Some(hint) = keyword_hint(key, &value.to_value()) {
        notes.add(o, &hint, arena);
    }
    Ok(())
}

/// The notes `(hint)` of a node's removed keywords, each appended to its description in turn
/// (`append_description`: a note starts with "(", so the separator is a space), written in the
/// arena once: the description copied for each note was quadratic in a node's notes (24,000
/// unknown keywords took the 4 GiB of wasm32).
struct Notes<'n>(Option<bumpalo::collections::String<'n>>);

impl<'n> Notes<'n> {
    /// Appends `(hint)`. The first note puts the description where `insert` does (last, if
    /// the node has none), and [`Notes::write`] fills it.
    fn add(&mut self, o: &mut Map<'n, Val<'n, '_>>, hint: &str, arena: &'n Bump) {
        if let Some(joined) = &mut self.0 {
            joined.reserve(hint.len() + 3);
            joined.push_str(" (");
            joined.push_str(hint);
            joined.push(')');
            return;
        }
        let place = o.position("description");
        let description = match place.map(|i| &o.0[i].1) {
            Some(Val::Raw(Node::Str(d))) => Some(d.as_ref()),
            Some(Val::Text(d)) => Some(*d),
            _ => None,
        };
        let kept = description.filter(|d| !d.trim().is_empty()).map(str::trim_end);
        let mut joined = bumpalo::collections::String::with_capacity_in(kept.map_or(0, |d| d.len() + 1) + hint.len() + 2, arena);
        if let Some(d) = kept {
            joined.push_str(d);
            joined.push(' ');
        }
        joined.push('(');
        joined.push_str(hint);
        joined.push(')');
        if place.is_none() {
            o.0.push(("description", Val::Text("")));
        }
        self.0 = Some(joined);
    }

    /// The description with the notes, if there are any.
    fn write(self, o: &mut Map<'n, Val<'n, '_>>) {
        if let Some(joined) = self.0 {
            o.insert("description", Val::Text(joined.into_bump_str()));
        }
    }
}

/// The characters of an enum's strings.
fn chars_of_strings(values: &[Node]) -> usize {
    values.iter().filter_map(Node::as_str).map(|s| s.chars().count()).sum()
}

/// `openai::string_chars` of an enum.
fn string_chars(values: &[Node]) -> Option<usize> {
    values.iter().map(|v| if matches!(v, Node::Null) { Some(0) } else { v.as_str().map(|s| s.chars().count()) }).sum()
}

/// `openai::widen_nullable` on a strict node.
fn widen_nullable(node: &mut Strict) {
    let o = &mut node.0;
    if let Some(Val::AnyOf(branches, null)) = o.get_mut("anyOf") {
        let has_null = branches.iter().any(|b| matches!(raw(&b.0, "type"), Some(Node::Str(t)) if t == "null"));
        if !has_null {
            *null = true;
        }
        return;
    }
    match raw(o, "type") {
        Some(t @ Node::Str(name)) if name != "null" => o.insert("type", Val::TypeOrNull(t)),
        Some(t @ Node::Arr(names)) if !names.iter().any(|n| n.as_str() == Some("null")) => o.insert("type", Val::TypeOrNull(t)),
        _ => {}
    }
    if let Some(Node::Arr(values)) = raw(o, "enum") {
        if !values.iter().any(|v| matches!(v, Node::Null)) {
            o.insert("enum", Val::EnumOrNull(values));
        }
    }
}

/// `lower::is_object_node`: a node typed `object`, or untyped with `properties`.
fn object_shaped(node: &Node) -> bool {
    let (typed, object) = type_names(node.get("type"));
    object || (!typed && node.get("properties").is_some())
}

/// `anthropic::strict_node`: an object node made strict, any other subschema as it is.
fn anthropic_node<'n, 'a>(node: &'n Node<'a>, levels: &mut Levels, arena: &'n Bump) -> Step<Val<'n, 'a>> {
    let Node::Obj(entries) = node else { return Ok(Val::Raw(node)) };
    if !levels.enter() {
        return Err(Stop::General);
    }
    let r = anthropic_object(entries, levels, arena);
    levels.depth -= 1;
    Ok(Val::Schema(arena.alloc(r?)))
}

/// What [`anthropic_check`] gathers on its way.
#[derive(Default)]
struct Check {
    /// What [`anthropic::strict_costs`] counts of the strict schema.
    costs: (usize, usize),
    /// Whether it met a node that the general path makes strict and [`anthropic_node`] does not
    /// write (a `oneOf`, rewritten as `anyOf` there; an object node with combinators whose
    /// branches fit the closed object): a schema strict but for that goes the general way, one
    /// that cannot be strict elsewhere is not strict all the same.
    unwritten: bool,
}

/// What [`anthropic_node`] gives, without building the strict node. It visits every node, where
/// [`anthropic_node`] stops at the first one that cannot be strict, so a limit it would not have
/// reached still sends the schema the general way here (which then decides): it finds the
/// schema strict exactly when [`anthropic_node`] does, and not strict only when the general
/// path does too. It also finds schemas not strict that [`anthropic_node`] leaves to the
/// general path ([`Check::unwritten`]): the nodes that the general path rewrites before it
/// decides (a `oneOf` alone becomes `anyOf`, with the same branches) or closes (an object node
/// whose combinators' branches fit it) keep their subschemas as they are, so the rest of the
/// schema decides there as here.
///
/// On the way it adds to `check.costs` what [`anthropic::strict_costs`] counts of the strict
/// schema (strict mode changes none of it): the optional properties and the properties with a
/// union, at every subschema 64 levels deep at most (`counted`: the depth of this node).
fn anthropic_check(node: &Node, levels: &mut Levels, counted: Option<usize>, check: &mut Check) -> Step<()> {
    let Node::Obj(entries) = node else { return Ok(()) };
    if !levels.enter() {
        return Err(Stop::General);
    }
    let counted = counted.filter(|&depth| depth <= 64);
    let (mut types, mut properties, mut required, mut open, mut closed) = (None, None, None, false, false);
    let (mut any_of, mut one_of, mut all_of, mut pattern_properties, mut other) = (false, false, false, false, false);
    let mut verdict = Ok(());
    // Every subschema (the keywords the rewrite removes hold none: any other is left to the
    // general path, which removes it and describes it).
    for (key, value) in entries.iter() {
        // Outside the subset and not a constraint this path describes (removed there, and
        // said); rewritten there (`nullable`), with a change to report; or a reason not to be
        // strict (anthropic::STRICT_BLOCKERS), which the general path says.
        // The first is left to the general path unless the schema is found not strict anyway
        // (an open map here, say, which the general path finds before it removes the keyword);
        // its subschemas are not the strict schema's.
        let class = anthropic::claude_key(key);
        if class == ClaudeKey::Other {
            other = true;
            continue;
        }
        if class == ClaudeKey::Handled && !matches!(key.as_str(), "oneOf" | "patternProperties" | "$schema") {
            verdict = Err(Stop::General);
            break;
        }
        // `true` where a subschema stands, `false` for a property, the items or a branch, an
        // `enum` or `const` of objects or arrays: not strict there. A property, the items or an
        // `anyOf` branch of nothing but annotations, once the constraints outside the subset are
        // removed, has no type to hold to (`anthropic::untyped_part`).
        let kw = keyword(key);
        let outside = match (kw, value) {
            (Keyword::Other, Node::Arr(values)) if key == "enum" => values.iter().any(|v| matches!(v, Node::Obj(_) | Node::Arr(_))),
            (Keyword::Other, Node::Obj(_) | Node::Arr(_)) => key == "const",
            (Keyword::Other, _) => false,
            _ => {
                let properties = key == "properties";
                let typed_slot = properties || matches!(key.as_str(), "items" | "anyOf" | "oneOf");
                let forbid_false = typed_slot || key == "allOf";
                let outside = |v: &Node, typed_slot: bool, forbid_false: bool| match v {
                    Node::Bool(b) => *b || forbid_false,
                    Node::Obj(entries) => typed_slot && entries.iter().all(|(k, v)| removed_or_annotation(k, v)),
                    _ => false,
                };
                match (kw, value) {
                    (Keyword::Map, Node::Obj(map)) => map.iter().any(|(_, sub)| outside(sub, properties, properties)),
                    (Keyword::Array | Keyword::Items, Node::Arr(items)) => items.iter().any(|sub| outside(sub, typed_slot, forbid_false)),
                    (Keyword::Single | Keyword::Items, _) => outside(value, typed_slot, forbid_false),
                    _ => false,
                }
            }
        };
        if outside && verdict.is_ok() {
            verdict = Err(Stop::NotStrict);
        }
        let c = counted.map(|depth| depth + 1);
        let found = match (kw, value) {
            (Keyword::Map, Node::Obj(map)) => map.iter().try_for_each(|(_, sub)| anthropic_check(sub, levels, c, check)),
            (Keyword::Array | Keyword::Items, Node::Arr(items)) => items.iter().try_for_each(|sub| anthropic_check(sub, levels, c, check)),
            (Keyword::Single | Keyword::Items, Node::Obj(_)) => anthropic_check(value, levels, c, check),
            _ => Ok(()),
        };
        match key.as_str() {
            "type" => types = Some(value),
            "properties" => properties = Some(value),
            "required" => required = Some(value),
            "additionalProperties" => {
                open |= !matches!(value, Node::Bool(false));
                closed |= matches!(value, Node::Bool(false));
            }
            "patternProperties" => {
                open = true;
                pattern_properties = true;
            }
            "anyOf" => any_of = true,
            "oneOf" => one_of = true,
            "allOf" => {
                all_of = true;
                // An `allOf` with object branches is merged into one object there (and reported).
                if let Node::Arr(branches) = value {
                    if branches.iter().any(object_shaped) {
                        verdict = Err(Stop::General);
                        break;
                    }
                }
            }
            _ => {}
        }
        match found {
            Err(Stop::General) => {
                verdict = Err(Stop::General);
                break;
            }
            Err(Stop::NotStrict) => verdict = Err(Stop::NotStrict),
            Ok(()) => {}
        }
    }
    levels.depth -= 1;
    // A `oneOf` beside an `anyOf`: each is kept as an `anyOf` there, under an `allOf`, in nodes
    // of its own (which the limits count).
    if one_of && any_of {
        return Err(Stop::General);
    }
    check.unwritten |= one_of;
    // As [`anthropic_object`] closes an object node (`base`'s `properties: {}` only comes with a
    // `type` that names `object`).
    let (typed, object) = type_names(types);
    // Removed from a node that is no object there.
    if pattern_properties && !(object || (!typed && properties.is_some())) {
        return Err(Stop::General);
    }
    if (object || (!typed && properties.is_some())) && verdict.is_ok() {
        let declared = matches!(properties, Some(Node::Obj(p)) if !p.is_empty());
        if open {
            verdict = Err(Stop::NotStrict);
        } else if any_of || one_of || all_of {
            // Whether its branches fit the closed object.
            match branches_outside(node, properties) {
                true => verdict = Err(Stop::NotStrict),
                false => check.unwritten = true,
            }
        } else if !declared && !closed && counted != Some(0) {
            // `openai::free_form_object`, below the root.
            verdict = Err(Stop::NotStrict);
        }
    }
    if other && verdict.is_ok() {
        verdict = Err(Stop::General);
    }
    if let (Some(_), Some(Node::Obj(props))) = (counted, properties) {
        let required = Required::of(match required {
            Some(Node::Arr(names)) => names,
            _ => &[],
        });
        for (name, p) in props.iter() {
            if !required.has(name) {
                check.costs.0 += 1;
            }
            if p.get("anyOf").is_some() || matches!(p.get("type"), Some(Node::Arr(_))) {
                check.costs.1 += 1;
            }
        }
    }
    verdict
}

/// Whether `anthropic::strict_object` leaves nothing of this entry that says which values are
/// valid: an annotation, or a constraint it removes.
fn removed_or_annotation(key: &str, value: &Node) -> bool {
    // The commonest first key of a schema, before the whole `match`.
    if key == "type" {
        return false;
    }
    match anthropic::claude_key(key) {
        ClaudeKey::Annotation | ClaudeKey::Unsupported => true,
        ClaudeKey::Kept => match key {
            "minItems" => !matches!(value, Node::Num(n) if matches!(crate::model::integral_u64(n), Some(0 | 1))),
            "format" => value.as_str().is_some_and(|f| !anthropic::STRICT_FORMATS.contains(&f)),
            "pattern" => value.as_str().is_some_and(anthropic::pattern_unsupported),
            _ => false,
        },
        ClaudeKey::Handled => key == "$schema",
        ClaudeKey::Other => false,
    }
}

/// `anthropic::branches_outside` (on the node before its `oneOf` becomes `anyOf` there, which
/// keeps the branches): whether closing an object node would reject what its combinators ask
/// for, a branch that is an object itself or that requires a property the node does not declare
/// (`properties`), in the combinators of those branches too, 8 levels down.
fn branches_outside(node: &Node, properties: Option<&Node>) -> bool {
    fn within(node: &Node, declared: Option<&Node>, depth: usize) -> bool {
        ["anyOf", "oneOf", "allOf"].into_iter().any(|key| {
            let Some(Node::Arr(branches)) = node.get(key) else { return false };
            branches.iter().filter(|b| matches!(b, Node::Obj(_))).any(|b| {
                let undeclared = |name: &str| declared.is_none_or(|d| d.get(name).is_none());
                object_shaped(b)
                    || matches!(b.get("required"), Some(Node::Arr(names)) if names.iter().filter_map(Node::as_str).any(undeclared))
                    || (depth < 8 && within(b, declared, depth + 1))
            })
        })
    }
    within(node, properties.filter(|p| matches!(p, Node::Obj(_))), 0)
}

/// `anthropic::strict_object` on the non-strict form of a node ([`base`]).
fn anthropic_object<'n, 'a>(entries: &'n [(Text<'a>, Node<'a>)], levels: &mut Levels, arena: &'n Bump) -> Step<Strict<'n, 'a>> {
    let mut o = base(entries, arena);
    if o.has("oneOf") || anthropic::STRICT_BLOCKERS.iter().any(|k| o.has(k)) {
        return Err(Stop::General);
    }
    if o.has("nullable") || matches!(raw(&o, "allOf"), Some(Node::Arr(branches)) if branches.iter().any(object_shaped)) {
        return Err(Stop::General);
    }
    // As `anthropic::strict_object`: first of all.
    o.take("$schema");
    let (typed, is_object) = type_names(raw(&o, "type"));
    if is_object || (!typed && o.has("properties")) {
        match raw(&o, "additionalProperties") {
            None | Some(Node::Bool(false)) => {}
            Some(_) => return Err(Stop::NotStrict),
        }
        if o.has("patternProperties") {
            return Err(Stop::NotStrict);
        }
        if o.has("anyOf") || o.has("allOf") {
            return Err(Stop::General);
        }
        // `openai::free_form_object`: below the root (entered first), no properties declared.
        let declared = matches!(raw(&o, "properties"), Some(Node::Obj(p)) if !p.is_empty());
        if levels.depth > 1 && !declared && !matches!(raw(&o, "additionalProperties"), Some(Node::Bool(false))) {
            return Err(Stop::NotStrict);
        }
        o.insert("additionalProperties", Val::False);
    }
    let mut drop: Vec<&str> = anthropic::STRICT_UNSUPPORTED.iter().copied().filter(|k| o.has(k)).collect();
    if raw(&o, "minItems").is_some_and(|m| !matches!(m, Node::Num(n) if matches!(crate::model::integral_u64(n), Some(0 | 1)))) {
        drop.push("minItems");
    }
    if raw(&o, "format").and_then(Node::as_str).is_some_and(|f| !anthropic::STRICT_FORMATS.contains(&f)) {
        drop.push("format");
    }
    if raw(&o, "pattern").and_then(Node::as_str).is_some_and(anthropic::pattern_unsupported) {
        drop.push("pattern");
    }
    let mut notes = Notes(None);
    for key in drop {
        if let Some(removed) = o.take(key) {
            let Val::Raw(value) = removed else { return Err(Stop::General) };
            // As `anthropic::strict_object`: `uniqueItems: false` goes unsaid.
            if key == "uniqueItems" && matches!(value, Node::Bool(false)) {
                continue;
            }
            let hint = keyword_hint(key, &value.to_value()).unwrap_or_else(|| key.owned());
            notes.add(&mut o, &hint, arena);
        }
    }
    notes.write(&mut o);
    // `for_each_subschema_mut`: every subschema position, in key order.
    for (key, slot) in o.0.iter_mut() {
        let Val::Raw(value) = slot else { continue };
        let value: &'n Node<'a> = value;
        match (keyword(key), value) {
            (Keyword::Map, Node::Obj(map)) => {
                let mut subs = List::with_capacity_in(map.len(), arena);
                for (name, sub) in map.iter() {
                    subs.push((name.as_ref(), anthropic_node(sub, levels, arena)?));
                }
                *slot = Val::Schemas(subs);
            }
            (Keyword::Array | Keyword::Items, Node::Arr(items)) => {
                let mut subs = List::with_capacity_in(items.len(), arena);
                for sub in items.iter() {
                    subs.push(anthropic_node(sub, levels, arena)?);
                }
                *slot = Val::SchemaList(subs);
            }
            (Keyword::Single | Keyword::Items, Node::Obj(_)) => *slot = anthropic_node(value, levels, arena)?,
            _ => {}
        }
    }
    Ok(Strict(o, plain(entries)))
}

impl Strict<'_, '_> {
    fn write(&self, out: &mut Vec<u8>) {
        write_object(out, self.0 .0.iter().map(|(k, v)| (*k, v)), self.1, |out, _, v| v.write(out));
    }
}

impl Val<'_, '_> {
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Val::Raw(v) => v.write(out),
            Val::Text(s) => text::write_str(out, s),
            Val::False => out.extend_from_slice(b"false"),
            Val::Props(props, plain) => write_object(out, props.iter().map(|(k, v)| (*k, v)), *plain, |out, _, sub| sub.write(out)),
            Val::Schema(sub) => sub.write(out),
            Val::Schemas(subs) => text::write_object(out, subs.iter().map(|(k, v)| (*k, v)), |out, _, sub| sub.write(out)),
            Val::SchemaList(subs) => {
                out.push(b'[');
                for (i, sub) in subs.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    sub.write(out);
                }
                out.push(b']');
            }
            Val::AnyOf(branches, null) => {
                out.push(b'[');
                for (i, b) in branches.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    b.write(out);
                }
                if *null {
                    if !branches.is_empty() {
                        out.push(b',');
                    }
                    out.extend_from_slice(br#"{"type":"null"}"#);
                }
                out.push(b']');
            }
            Val::Names(names, plain) => {
                out.push(b'[');
                for (i, n) in names.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_key(out, n, *plain);
                }
                out.push(b']');
            }
            Val::TypeOrNull(t) => {
                match t {
                    Node::Arr(names) => {
                        out.push(b'[');
                        for n in names.iter() {
                            n.write(out);
                            out.push(b',');
                        }
                    }
                    name => {
                        out.push(b'[');
                        name.write(out);
                        out.push(b',');
                    }
                }
                out.extend_from_slice(br#""null"]"#);
            }
            Val::EnumOrNull(values) => {
                out.push(b'[');
                for v in values.iter() {
                    v.write(out);
                    out.push(b',');
                }
                out.extend_from_slice(b"null]");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::convert::{convert, convert_json, ConvertOptions};
    use crate::fast::{prepare, Passed};
    use crate::providers::{Provider, SchemaOptions};

    /// How the borrowed tree took a schema.
    #[derive(Debug, PartialEq)]
    enum Took {
        Strict,
        NotStrict,
        General,
    }

    /// The JSON API's output for one tool in strict mode, after checking that it is the
    /// general path's, and how the borrowed tree took it.
    fn strict(schema: Value) -> (Value, Took) {
        let (out, took) = strict_for(Provider::OpenAi, schema);
        (out["function"].clone(), took)
    }

    fn strict_for(provider: Provider, schema: Value) -> (Value, Took) {
        let tools = json!([{ "name": "t", "inputSchema": schema }]);
        let mut opts = ConvertOptions::default();
        opts.schema.strict = true;
        let text = tools.to_string();
        let fast = convert_json(&text, provider, &opts).unwrap();
        let general = convert(tools, provider, &opts).unwrap();
        assert_eq!(fast, general.tools.to_string());
        let schema_opts = SchemaOptions { strict: true, ..SchemaOptions::default() };
        let took = match prepare(&text, &bumpalo::Bump::new(), provider, &schema_opts, false, true).unwrap().pass.remove(0) {
            Some(p) => match p {
                Passed::Strict { .. } => Took::Strict,
                Passed::AsIs(..) => Took::NotStrict,
                Passed::Lowered(_) | Passed::Declared | Passed::Written(_) => unreachable!(),
            },
            None => Took::General,
        };
        let out: Value = serde_json::from_str(&fast).unwrap();
        (out[0].clone(), took)
    }

    #[test]
    fn anthropic_closes_objects_and_describes_constraints() {
        let (t, took) = strict_for(
            Provider::Anthropic,
            json!({
                "type": "object",
                "properties": {
                    "n": {"type": "integer", "minimum": 1, "description": "N"},
                    "l": {"type": "array", "minItems": 2, "items": {"type": "object", "additionalProperties": false}},
                    "x": {"type": "array", "items": {"type": "object", "maxLength": 3, "additionalProperties": false}}
                }
            }),
        );
        assert_eq!(took, Took::Strict);
        assert_eq!(t["strict"], json!(true));
        assert_eq!(
            t["input_schema"].to_string(),
            concat!(
                r#"{"type":"object","properties":{"n":{"type":"integer","description":"N (minimum: 1)"},"#,
                r#""l":{"type":"array","items":{"type":"object","additionalProperties":false,"properties":{}},"description":"(at least 2 items)"},"#,
                // `maxLength` swap-removed: `additionalProperties`, the last key, takes its place.
                r#""x":{"type":"array","items":{"type":"object","properties":{},"additionalProperties":false,"description":"(at most 3 characters)"}}},"#,
                r#""additionalProperties":false}"#
            )
        );
        // An open map, and an object that declares no properties (strict mode would close it to `{}`).
        for m in [json!({"type": "object", "additionalProperties": {"type": "string"}}), json!({"type": "object", "description": "a JSON payload"})] {
            let (t, took) = strict_for(Provider::Anthropic, json!({"type": "object", "properties": {"m": m}}));
            assert_eq!((took, t.get("strict")), (Took::NotStrict, None), "{m}");
        }
        // `additionalProperties: true` means its undeclared properties: not strict, with or
        // without properties declared (an omission is closed).
        for m in [json!({"type": "object", "additionalProperties": true}), json!({"type": "object", "properties": {"k": {"type": "string"}}, "additionalProperties": true})] {
            let (t, took) = strict_for(Provider::Anthropic, json!({"type": "object", "properties": {"m": m}}));
            assert_eq!((took, t.get("strict")), (Took::NotStrict, None), "{m}");
        }
        let (t, took) = strict_for(Provider::Anthropic, json!({"type": "object", "properties": {"m": {"type": "object", "properties": {"k": {"type": "string"}}}}}));
        assert_eq!((took, t.get("strict")), (Took::Strict, Some(&json!(true))), "{t}");
        assert_eq!(t["input_schema"]["properties"]["m"]["additionalProperties"], false);
    }

    #[test]
    fn anthropic_check_agrees_with_the_rewrite() {
        use super::{anthropic_check, anthropic_node, Check, Stop};
        use crate::fast::{read::read, Levels};
        use crate::schema::{process_json_schema, Cx};
        let class = |r: Result<(), &Stop>| match r {
            Ok(()) => "strict",
            Err(Stop::NotStrict) => "not strict",
            Err(Stop::General) => "general",
        };
        let open = json!({"type": "object", "additionalProperties": {"type": "string"}});
        let deep = (0..12).fold(json!({"type": "string"}), |inner, _| json!({"type": "object", "properties": {"n": inner}}));
        let mut seen = std::collections::BTreeSet::new();
        // How many "not strict" answers of the check the general path confirmed.
        let mut confirmed = 0;
        for schema in [
            json!({"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}, "l": {"type": "array", "items": {"type": "object", "additionalProperties": false}}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}, "l": {"type": "array", "items": {"type": "object"}}}}),
            json!({"type": "object", "properties": {"m": open}}),
            json!({"type": "object", "properties": {"m": {"type": ["object", "null"], "patternProperties": {"^x": {}}}}}),
            json!({"type": [1, 2], "properties": {}, "additionalProperties": true}),
            json!({"type": "string", "additionalProperties": true, "not": open}),
            json!({"anyOf": [{"type": "object"}, open], "$defs": {"d": {"properties": {"x": true}}}}),
            json!({"type": "object", "properties": {"m": open, "d": deep}}),
            json!({"type": "object", "properties": {"d": deep, "m": open}}),
            // What the rewrite leaves to the general path: a `oneOf`, an object with combinators
            // (branches that fit it, or not), with an open map elsewhere or none.
            json!({"type": "object", "properties": {"u": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}),
            json!({"type": "object", "properties": {"u": {"oneOf": [{"type": "string"}, open]}}}),
            json!({"type": "object", "properties": {"u": {"oneOf": [{"type": "string"}]}, "m": open}}),
            json!({"type": "object", "properties": {"u": {"oneOf": [{"type": "string"}], "anyOf": [{"minLength": 1}]}, "m": open}}),
            json!({"type": "object", "properties": {"o": {"type": "object", "properties": {"a": {}}, "anyOf": [{"required": ["a"]}]}}}),
            json!({"type": "object", "properties": {"o": {"type": "object", "properties": {"a": {}}, "anyOf": [{"required": ["a"]}]}, "m": open}}),
            json!({"type": "object", "properties": {"o": {"type": "object", "properties": {"a": {}}, "anyOf": [{"required": ["b"]}]}, "d": deep}}),
            json!({"type": "object", "properties": {"o": {"properties": {"a": {}}, "oneOf": [{"allOf": [{"properties": {"x": {}}}]}]}}}),
            json!({"type": "object", "properties": {"o": {"type": "object", "allOf": [{"anyOf": [{"type": "object"}]}]}}}),
        ] {
            let text = schema.to_string();
            let arena = bumpalo::Bump::new();
            let node = read(&text, &arena).unwrap();
            // With the default limits and with limits reached part of the way.
            for (max_depth, max_nodes) in [(64, 100_000), (6, 100_000), (64, 4), (64, 2)] {
                let mut opts = SchemaOptions { strict: true, ..SchemaOptions::default() };
                opts.limits.max_depth = max_depth;
                opts.limits.max_nodes = max_nodes;
                let built = anthropic_node(&node, &mut Levels::new(Provider::Anthropic, &opts), &arena);
                let mut check = Check::default();
                let checked = anthropic_check(&node, &mut Levels::new(Provider::Anthropic, &opts), Some(0), &mut check);
                // What the check counted is what the general path counts of the strict schema.
                if let (Ok(strict), Ok(())) = (&built, &checked) {
                    let mut text = Vec::new();
                    strict.write(&mut text);
                    assert_eq!(check.costs, crate::providers::anthropic::strict_costs(&serde_json::from_slice(&text).unwrap()), "{schema}");
                }
                let built = built.map(|_| ());
                // As `lower_root` takes the check's answer.
                let checked = checked.and(if check.unwritten { Err(Stop::General) } else { Ok(()) });
                let (built, checked) = (class(built.as_ref().err().map_or(Ok(()), Err)), class(checked.as_ref().err().map_or(Ok(()), Err)));
                // The check walks on where the rewrite stops: it may send the general way a schema
                // the rewrite finds not strict before a limit. It finds not strict some schemas
                // the rewrite leaves to the general path: the general path's answer then.
                let agree = built == checked
                    || (built == "not strict" && checked == "general")
                    || (built == "general" && checked == "not strict" && {
                        // (Only what `is_clean` accepts gets here; the general path's errors
                        // on the others are its own.)
                        let mut cx = Cx::new(opts.limits);
                        let (root, _) = process_json_schema(&schema, &mut cx);
                        let clean = crate::fast::is_clean(&node, &mut Levels::new(Provider::Anthropic, &opts));
                        let not_strict = matches!(crate::providers::anthropic::compile(root, &opts, &mut cx), Ok(c) if c.strict.is_none());
                        confirmed += usize::from(clean && not_strict);
                        !clean || not_strict
                    });
                assert!(agree, "{schema} at {max_depth}/{max_nodes}: rewrite {built}, check {checked}");
                seen.insert((built, checked));
            }
        }
        assert_eq!(seen.len(), 5, "every answer, and the two cases where they may differ: {seen:?}");
        assert!(confirmed >= 4, "{confirmed}");
    }

    #[test]
    fn anthropic_set_limits_send_later_tools_as_they_are() {
        // Past 20 strict tools, 24 optional parameters or 16 union-typed ones over them, a tool
        // is sent without strict, its schema as it was: the general path's decision and output.
        let tool = |i: usize, properties: Value, required: Value| {
            json!({"name": format!("t{i}"), "inputSchema": {"type": "object", "properties": properties, "required": required}})
        };
        let cases: [(Vec<Value>, usize); 3] = [
            ((0..21).map(|i| tool(i, json!({"a": {"type": "string", "maxLength": 9}}), json!(["a"]))).collect(), 20),
            (
                (0..6).map(|i| tool(i, json!({"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}, "d": {"type": "string"}, "e": {"type": "integer", "minimum": 0}}), json!([]))).collect(),
                4,
            ),
            ((0..17).map(|i| tool(i, json!({"u": {"type": ["string", "null"], "format": "x"}}), json!(["u"]))).collect(), 16),
        ];
        for (tools, first_relaxed) in cases {
            let tools = Value::Array(tools);
            let mut opts = ConvertOptions::default();
            opts.schema.strict = true;
            let fast = convert_json(&tools.to_string(), Provider::Anthropic, &opts).unwrap();
            assert_eq!(fast, convert(tools.clone(), Provider::Anthropic, &opts).unwrap().tools.to_string());
            let out: Value = serde_json::from_str(&fast).unwrap();
            assert_eq!(out[first_relaxed - 1]["strict"], json!(true));
            assert_ne!(out[first_relaxed - 1]["input_schema"], tools[first_relaxed - 1]["inputSchema"]);
            assert_eq!(out[first_relaxed].get("strict"), None);
            assert_eq!(out[first_relaxed]["input_schema"], tools[first_relaxed]["inputSchema"]);
        }
    }

    /// Keys and property names read with escapes are written escaped again; the others as
    /// they were read (see `plain`).
    #[test]
    fn escaped_keys_are_written_as_the_general_path_writes_them() {
        let texts = [
            r#"{"type":"object","properties":{"a\"b":{"type":"string"},"c\nd":{"type":"object","properties":{"e\\f":{"type":"integer"}}}},"required":["a\"b"]}"#,
            r#"{"type":"object","properties":{"\u0061":{"type":"string","descr\u0069ption":"d","default":"x"}},"required":[]}"#,
            r#"{"type":"object","properties":{"é😀":{"type":"array","items":{"type":"object","properties":{"k\t":{"type":"boolean"}}}}}}"#,
        ];
        for schema in texts {
            let text = format!(r#"[{{"name":"t","inputSchema":{schema}}}]"#);
            for provider in [Provider::OpenAi, Provider::Anthropic] {
                let mut opts = ConvertOptions::default();
                opts.schema.strict = true;
                let fast = convert_json(&text, provider, &opts).unwrap();
                let tools: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(fast, convert(tools, provider, &opts).unwrap().tools.to_string(), "{provider:?}: {schema}");
                let arena = bumpalo::Bump::new();
                let taken = prepare(&text, &arena, provider, &opts.schema, false, true).unwrap().pass.pop();
                // A top-level key Claude refuses (`a"b`) is renamed the general way.
                let root: Value = serde_json::from_str(schema).unwrap();
                let refused = root["properties"].as_object().unwrap().keys().any(|k| !crate::providers::keys::claude_key_ok(k));
                match provider {
                    Provider::Anthropic if refused => assert!(matches!(taken, Some(None)), "{provider:?}: {schema}"),
                    _ => assert!(matches!(taken, Some(Some(Passed::Strict { .. }))), "{provider:?}: {schema}"),
                }
            }
        }
    }

    /// The costs counted on the way of the check are those of the schema written strict: for
    /// these schemas (`$defs` among them) and for every corpus tool written strict on the
    /// borrowed tree.
    #[test]
    fn anthropic_costs_are_the_general_paths() {
        let mut schemas = vec![
            json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}, "b": {"anyOf": [{"type": "string"}, {"type": "integer"}]}, "c": {"type": "string"}}, "required": ["c"]}),
            json!({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": ["integer", "null"]}, "y": {"type": "string"}}, "required": ["y"]}}}}),
            json!({"type": "object", "properties": {"o": {"anyOf": [{"type": "object", "properties": {"p": {"anyOf": [{"type": "string"}]}}}, {"type": "null"}]}}, "required": ["o"]}),
            json!({"type": "object", "properties": {}, "required": []}),
            json!({"type": "object", "properties": {"n": {"type": "array", "items": {"type": "object", "properties": {"v": {"type": "boolean"}}}}},
                   "$defs": {"D": {"type": "object", "properties": {"w": {"type": ["string", "null"]}}}}, "required": ["n"]}),
        ];
        let shared = std::env::var("TOOLWIRE_SHARED").unwrap_or_else(|_| format!("{}/../shared", env!("CARGO_MANIFEST_DIR")));
        for f in std::fs::read_dir(format!("{shared}/corpus/tools")).expect("corpus") {
            let server: Value = serde_json::from_str(&std::fs::read_to_string(f.unwrap().path()).unwrap()).unwrap();
            schemas.extend(server["tools"].as_array().unwrap().iter().map(|t| t["inputSchema"].clone()));
        }
        let (mut strict_count, listed) = (0, 5);
        for (i, schema) in schemas.iter().enumerate() {
            let text = json!([{ "name": "t", "inputSchema": schema }]).to_string();
            let opts = SchemaOptions { strict: true, ..SchemaOptions::default() };
            let arena = bumpalo::Bump::new();
            let Some(Some(p)) = prepare(&text, &arena, Provider::Anthropic, &opts, false, true).unwrap().pass.pop() else {
                assert!(i >= listed, "not on the borrowed tree: {schema}");
                continue;
            };
            let Passed::Strict { costs, .. } = &p else {
                assert!(i >= listed, "not strict: {schema}");
                continue;
            };
            let mut text = Vec::new();
            p.write_strict(true, &opts, &mut text);
            let written: Value = serde_json::from_slice(&text).unwrap();
            assert_eq!(*costs, crate::providers::anthropic::strict_costs(&written), "{schema}");
            strict_count += 1;
        }
        assert!(strict_count > 800, "{strict_count} schemas written strict");
    }

    #[test]
    fn writes_the_general_paths_strict_schema() {
        // `$schema` is removed first (a swap-remove: the last key takes its place), the
        // unsupported format is described, the optional property becomes nullable.
        let (f, took) = strict(json!({
            "$schema": "x", "type": "object",
            "properties": {"a": {"type": "string", "format": "uri", "description": "A"}, "b": {"enum": ["x", "y"], "type": "string"}},
            "required": ["b"], "additionalProperties": false
        }));
        assert_eq!(took, Took::Strict);
        assert_eq!(f["strict"], json!(true));
        assert_eq!(
            f["parameters"].to_string(),
            r#"{"additionalProperties":false,"type":"object","properties":{"a":{"type":["string","null"],"description":"A (format: uri)"},"b":{"enum":["x","y"],"type":"string"}},"required":["a","b"]}"#
        );
        // An object without properties (closed as written), an inferred object type, a nullable
        // union and enum.
        let (f, took) = strict(json!({
            "type": "object",
            "properties": {"o": {"type": "object", "additionalProperties": false}, "p": {"properties": {}, "additionalProperties": false}, "u": {"anyOf": [{"type": "string"}, {"type": "integer"}]}, "e": {"enum": ["x"]}}
        }));
        assert_eq!(took, Took::Strict);
        assert_eq!(
            f["parameters"].to_string(),
            concat!(
                r#"{"type":"object","properties":{"o":{"type":["object","null"],"additionalProperties":false,"properties":{},"required":[]},"#,
                r#""p":{"properties":{},"additionalProperties":false,"type":["object","null"],"required":[]},"#,
                r#""u":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]},"e":{"enum":["x",null]}},"#,
                r#""additionalProperties":false,"required":["o","p","u","e"]}"#
            )
        );
    }

    #[test]
    fn schemas_that_cannot_be_strict_are_sent_as_they_are() {
        for schema in [
            json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}),
            json!({"type": "object", "properties": {"n": {"not": {"type": "string"}}}}),
            json!({"type": "object", "properties": {"b": true}}),
            json!({"type": "object", "properties": {"x": {"description": "untyped"}}}),
            json!({"type": "object", "properties": {"e": {"type": "string", "enum": (0..1001).map(|i| i.to_string()).collect::<Vec<_>>()}}}),
        ] {
            let (f, took) = strict(schema.clone());
            assert_eq!(took, Took::NotStrict, "{schema}");
            assert_eq!(f["strict"], json!(false));
        }
    }

    /// An optional enum of 250 values or more takes its null as an `anyOf` branch beside it, as
    /// the general path writes it, here too; one that holds `null` goes the general way.
    #[test]
    fn a_large_optional_enum_takes_its_null_beside_it() {
        let values: Vec<String> = (0..1000).map(|i| format!("v{i}")).collect();
        let (f, took) = strict(json!({"type": "object", "properties": {"e": {"type": "string", "enum": values, "description": "d"}}}));
        assert_eq!(took, Took::Strict);
        assert_eq!(f["parameters"]["properties"]["e"], json!({"anyOf": [{"type": "string", "enum": values, "description": "d"}, {"type": "null"}]}));
        let with_null: Vec<Value> = (0..300).map(|i| json!(format!("v{i}"))).chain([Value::Null]).collect();
        let (f, took) = strict(json!({"type": "object", "properties": {"e": {"type": "string", "enum": with_null}}}));
        assert_eq!((took, f["strict"].clone()), (Took::General, json!(true)));
    }

    #[test]
    fn nesting_past_ten_levels_is_not_strict() {
        let innermost = json!({"type": "object", "properties": {"s": {"type": "string"}}});
        let nest = |levels: usize| (1..levels).fold(innermost.clone(), |inner, _| json!({"type": "object", "properties": {"n": inner}}));
        let (f, took) = strict(nest(10));
        assert_eq!((f["strict"].clone(), took), (json!(true), Took::Strict));
        let (f, took) = strict(nest(11));
        assert_eq!((f["strict"].clone(), took), (json!(false), Took::NotStrict));
    }

    #[test]
    fn references_are_inlined_first() {
        let user = json!({"type": "object", "properties": {"id": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}});
        for schema in [
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string"}}}),
            // Shared, in items, with siblings, through a pointer, a reference to a reference.
            json!({"type": "object", "$defs": {"U": user, "V": {"$ref": "#/$defs/U"}},
                   "properties": {"a": {"$ref": "#/$defs/U"}, "b": {"$ref": "#/$defs/V"}, "c": {"type": "array", "items": {"$ref": "#/$defs/U"}},
                                  "d": {"$ref": "#/$defs/U", "description": "with a sibling"}, "e": {"$ref": "#/properties/a"},
                                  "f": {"anyOf": [{"$ref": "#/$defs/U"}, {"type": "null"}]}}}),
        ] {
            for provider in [Provider::OpenAi, Provider::Anthropic] {
                assert_eq!(strict_for(provider, schema.clone()).1, Took::Strict, "{provider:?}: {schema}");
            }
        }
        // Inlined, then not strict for another reason: the schema as it is.
        let open = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "object", "additionalProperties": {"type": "string"}}}});
        assert_eq!(strict(open).1, Took::NotStrict);
        // What the inlining records goes the general way: an unresolvable reference, a cut for
        // the expansion budget.
        let missing = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}, "b": {"type": "string"}}});
        assert_eq!(strict(missing).1, Took::General);
        let mut defs = serde_json::Map::new();
        for i in 0..12 {
            let props: serde_json::Map<String, Value> = (0..6).map(|j| (format!("p{j}"), json!({"$ref": format!("#/$defs/d{}", i + 1)}))).collect();
            defs.insert(format!("d{i}"), json!({"type": "object", "properties": props}));
        }
        defs.insert("d12".into(), json!({"type": "string"}));
        let wide = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs});
        assert_eq!(strict(wide).1, Took::General);
    }

    #[test]
    fn keys_are_classed_as_the_lists_say() {
        use super::{class, Class};
        use crate::providers::openai::{STRICT_BLOCKERS, STRICT_KEYWORDS};
        for k in STRICT_KEYWORDS {
            assert_eq!(class(k), Class::Kept, "{k}");
        }
        for k in STRICT_BLOCKERS {
            assert_eq!(class(k), Class::Blocker, "{k}");
        }
        assert_eq!((class("allOf"), class("oneOf")), (Class::AllOf, Class::OneOf));
        // Near misses of every kind: a prefix, the same head and length, another length.
        for k in ["", "typ", "types", "Type", "default", "examples", "exclusiveMaximuX", "exclusiveMaxima", "propertiez", "properties ", "descriptioN",
                  "additionalItems", "dependentSchemaX", "patternPropertiez", "prefixItemz", "requirex", "minItemz", "containz", "nope", "$ref", "\u{e9}num"] {
            assert_eq!(class(k), Class::Removed, "{k}");
            assert_eq!(super::class_and_key(k).1, 0, "{k}");
        }
        // The keys strict_object looks up have a bit each; every other key none.
        use super::keys;
        let looked_up = [
            ("type", keys::TYPE),
            ("properties", keys::PROPERTIES),
            ("required", keys::REQUIRED),
            ("additionalProperties", keys::ADDITIONAL),
            ("format", keys::FORMAT),
            ("enum", keys::ENUM),
            ("items", keys::ITEMS),
            ("anyOf", keys::ANY_OF),
            ("const", keys::CONST),
        ];
        assert_eq!(looked_up.iter().fold(0, |all, (_, bit)| all | bit).count_ones(), 9);
        for k in STRICT_KEYWORDS.iter().chain(STRICT_BLOCKERS).chain(&["allOf", "oneOf", "const", "title"]) {
            let bit = looked_up.iter().find(|(name, _)| name == k).map_or(0, |(_, bit)| *bit);
            assert_eq!(super::class_and_key(k).1, bit, "{k}");
        }
    }

    #[test]
    fn argument_plans_only_when_kept() {
        // The JSON API drops the name map: the same strict schema, without building its plan.
        let text = json!([{"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "object", "properties": {"c": {"type": "integer"}}}}}}]).to_string();
        let opts = SchemaOptions { strict: true, ..SchemaOptions::default() };
        let arena = bumpalo::Bump::new();
        let taken = |plans| match prepare(&text, &arena, Provider::OpenAi, &opts, false, plans).unwrap().pass.remove(0) {
            Some(Passed::Strict { text, plan, .. }) => (text, plan),
            _ => panic!("not strict"),
        };
        let ((kept_text, kept), (dropped_text, dropped)) = (taken(true), taken(false));
        assert_eq!(kept_text, dropped_text);
        assert_eq!(kept.null_means_absent, ["a", "b"]);
        assert_eq!(kept.properties.get("b").unwrap().null_means_absent, ["c"]);
        assert!(dropped.is_empty(), "{dropped:?}");
    }

    #[test]
    fn one_of_becomes_any_of() {
        // Removed (a swap-remove: the last key takes its place), then `anyOf` appended last.
        let (f, took) = strict(json!({
            "type": "object",
            "properties": {"a": {"description": "A", "oneOf": [{"type": "string"}, {"type": "object", "properties": {"x": {"type": "integer"}}}], "title": "T"}},
            "required": ["a"]
        }));
        assert_eq!(took, Took::Strict);
        assert_eq!(
            f["parameters"]["properties"]["a"].to_string(),
            concat!(
                r#"{"description":"A","title":"T","anyOf":[{"type":"string"},"#,
                r#"{"type":"object","properties":{"x":{"type":["integer","null"]}},"additionalProperties":false,"required":["x"]}]}"#
            )
        );
    }

    /// Claude's strict mode merges an `allOf` with an object branch into one object (closing
    /// each branch would leave nothing valid): that goes the general way, with or without a
    /// reference among the branches, and the two paths write the same.
    #[test]
    fn claude_all_of_of_objects_goes_the_general_way() {
        for provider in [Provider::Anthropic, Provider::Bedrock] {
            for schema in [
                json!({"type":"object","properties":{"item":{"allOf":[{"$ref":"#/$defs/Base"},{"type":"object","properties":{"extra":{"type":"string"}},"required":["extra"]}]}},
                       "required":["item"],"$defs":{"Base":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}}}),
                json!({"type":"object","properties":{"item":{"allOf":[{"properties":{"id":{"type":"integer"}}},{"properties":{"extra":{"type":"string"}}}]}}}),
            ] {
                let (out, took) = strict_for(provider, schema.clone());
                assert_eq!(took, Took::General, "{provider:?}: {schema}");
                assert!(!out.to_string().contains("allOf"), "{provider:?}: {out}");
            }
            let (_, took) = strict_for(provider, json!({"type":"object","properties":{"s":{"type":"string","nullable":true}}}));
            assert_eq!(took, Took::General, "{provider:?}");
            // An `allOf` of other schemas stays as it was.
            let (_, took) = strict_for(provider, json!({"type":"object","properties":{"s":{"allOf":[{"type":"string"},{"minLength":1}]}}}));
            assert_eq!(took, Took::Strict, "{provider:?}");
        }
    }

    /// Claude's strict mode: what the rewrite here leaves to the general path (a `oneOf`, an
    /// object node with combinators) is told not strict here where the general path finds it so,
    /// and sent as it is.
    #[test]
    fn claude_unwritten_nodes_do_not_hide_a_reason_not_to_be_strict() {
        let open = json!({"type": "object", "additionalProperties": {"type": "string"}});
        let outside = json!({"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"type": "object", "properties": {"b": {"type": "string"}}}]});
        let undeclared = json!({"type": "object", "properties": {"a": {"type": "string"}}, "allOf": [{"anyOf": [{"required": ["b"]}]}]});
        let fits = json!({"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"required": ["a"]}]});
        let one_of = json!({"oneOf": [{"type": "string"}, {"type": "integer"}]});
        let both = json!({"oneOf": [{"type": "string"}], "anyOf": [{"minLength": 1}]});
        let object = |properties: Value| json!({"type": "object", "properties": properties});
        for provider in [Provider::Anthropic, Provider::Bedrock] {
            for (schema, took) in [
                // Branches that the closed object would reject: not strict there.
                (object(json!({"o": outside})), Took::NotStrict),
                (object(json!({"o": undeclared})), Took::NotStrict),
                (object(json!({"o": {"properties": {"a": {"type": "string"}}, "oneOf": [{"properties": {"b": {"type": "string"}}}]}})), Took::NotStrict),
                // Nodes the general path rewrites and goes on from: an open map elsewhere
                // decides, before them or after.
                (object(json!({"o": fits, "m": open})), Took::NotStrict),
                (object(json!({"m": open, "o": fits})), Took::NotStrict),
                (object(json!({"u": one_of, "m": open})), Took::NotStrict),
                (object(json!({"u": {"oneOf": [{"type": "string"}, open]}})), Took::NotStrict),
                // Strict but for them: the general path's to write.
                (object(json!({"o": fits})), Took::General),
                (object(json!({"u": one_of})), Took::General),
                // A `oneOf` beside an `anyOf` becomes nodes of its own there.
                (object(json!({"u": both, "m": open})), Took::General),
            ] {
                let (out, t) = strict_for(provider, schema.clone());
                assert_eq!(t, took, "{provider:?}: {schema}");
                // (`strict_for` checked the output against the general path's.)
                let strict = out.get("strict").or(out["toolSpec"].get("strict")).is_some();
                assert_eq!(strict, took == Took::General && !schema.to_string().contains("additionalProperties"), "{provider:?}: {out}");
            }
        }
    }

    /// A node's `type` beside an `anyOf` whose branches are typed within it goes (OpenAI's Agents
    /// SDK refuses the two together), on both paths alike: with an object's empty `properties`
    /// and what closed them; a `null` no branch allows goes with the type (the `anyOf` refused
    /// it), while an optional property's `null` is a branch of its own.
    #[test]
    fn type_beside_any_of_goes_where_the_branches_say_it() {
        let branches = json!([{"required":["k"],"properties":{"k":{"enum":["a"],"type":"string"}}},{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}]);
        let (f, took) = strict(json!({"type":"object","properties":{
            "one":{"type":"object","anyOf":branches},
            "maybe":{"type":["object","null"],"anyOf":branches},
            "opt":{"type":"object","anyOf":branches},
            "wider":{"type":["string","integer"],"anyOf":[{"type":"string"}]}},"required":["one","maybe","wider"]}));
        assert_eq!(took, Took::Strict);
        let p = &f["parameters"]["properties"];
        for (name, nulls) in [("one", 0), ("maybe", 0), ("opt", 1)] {
            let node = p[name].as_object().unwrap();
            assert_eq!(node.keys().collect::<Vec<_>>(), ["anyOf"], "{name}: {}", p[name]);
            let b = p[name]["anyOf"].as_array().unwrap();
            assert_eq!((b.len(), b.iter().filter(|b| b["type"] == "null").count()), (2 + nulls, nulls), "{name}: {}", p[name]);
            assert_eq!(b[0]["type"], "object", "{name}");
        }
        assert_eq!(p["wider"]["type"], json!(["string", "integer"]), "a type no branch covers: kept");
    }

    #[test]
    fn what_the_general_path_rewrites_goes_its_way() {
        for schema in [
            json!({"type": "object", "properties": {"a": {"type": "string", "nullable": true}}}),

            json!({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}]}}}),
            // `oneOf` with an `anyOf` beside it: the branches are joined there.
            json!({"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}], "anyOf": [{"type": "integer"}]}}}),
            json!({"type": "object", "properties": {"a": {"type": "array", "items": [{"type": "string"}]}}}),
            json!({"type": "object", "properties": {"a": {"type": "object", "propertyNames": {"pattern": "^a"}}}}),
            // An object's own properties beside an `anyOf`: copied into the branches there.
            json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"x": {"type": "string"}}, "anyOf": [{"type": "object", "properties": {"n": {"type": "integer"}}}]}}}),
        ] {
            assert_eq!(strict(schema.clone()).1, Took::General, "{schema}");
        }
    }

    #[test]
    fn a_node_left_to_the_general_path_does_not_hide_a_reason_not_to_be_strict() {
        // The distributed node's subtree is the general path's; an open map elsewhere (before or
        // after it) makes the schema non-strict on this path, as it does there.
        let own = json!({"type": "object", "properties": {"x": {"type": "string"}}, "anyOf": [{"type": "object", "properties": {"n": {"type": "integer"}}}]});
        let open = json!({"type": "object", "additionalProperties": {"type": "string"}});
        for (first, second) in [("a", "b"), ("b", "a")] {
            let schema = json!({"type": "object", "properties": {first: own, second: open}, "required": ["a", "b"]});
            let (f, took) = strict(schema.clone());
            assert_eq!(took, Took::NotStrict, "{schema}");
            assert_eq!(f["strict"], json!(false));
        }
        // An open map inside the left subtree is the general path's to judge (a branch it
        // removes may hold it).
        let inside = json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"x": {"type": "string"}}, "anyOf": [{"type": "object", "properties": {"m": open}}]}}});
        assert_eq!(strict(inside).1, Took::General);
        // Past a limit with the left node: non-strict too.
        let many: serde_json::Map<String, Value> = (0..5001).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
        // (`a` required: an optional node with a type beside its anyOf is the general path's to widen.)
        let schema = json!({"type": "object", "properties": {"a": own, "b": {"type": "object", "properties": many}}, "required": ["a"]});
        assert_eq!(strict(schema).1, Took::NotStrict);
        // A left node whose copies may pass the node limit there (a limit the general path
        // meets before the open map, and sends the tool without strict for): the general
        // path's to decide.
        let props: serde_json::Map<String, Value> = (0..200).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
        let branches: Vec<Value> = (0..600).map(|i| json!({"type": "object", "properties": {format!("b{i}"): {"type": "string"}}})).collect();
        let huge = json!({"type": "object", "properties": props, "anyOf": branches});
        let schema = json!({"type": "object", "properties": {"a": huge, "b": open}});
        let tools = json!([{ "name": "t", "inputSchema": schema }]);
        let mut opts = ConvertOptions::default();
        opts.schema.strict = true;
        let report = crate::convert::check(tools.clone(), Provider::OpenAi, &opts).unwrap();
        let fallback = report.tools[0].problems.iter().find(|d| d.rule == "openai/strict-fallback").expect("sent without strict");
        assert!(fallback.message.contains("within the limits") && fallback.message.contains("nodes"), "the general path meets the node limit: {}", fallback.message);
        let (fast, general) = (convert_json(&tools.to_string(), Provider::OpenAi, &opts).unwrap(), convert(tools, Provider::OpenAi, &opts).unwrap());
        assert_eq!(general.tools[0]["function"]["strict"], json!(false));
        assert_eq!(fast, general.tools.to_string());
    }

    /// One node with `n` keywords strict mode removes (`{prefix}{i}: "v{i}"`), and a
    /// description.
    fn many_keywords(n: usize, prefix: &str) -> Value {
        let mut x = serde_json::Map::new();
        x.insert("type".into(), json!("string"));
        x.insert("description".into(), json!("d"));
        for i in 0..n {
            x.insert(format!("{prefix}{i}"), json!(format!("v{i}")));
        }
        json!({"type": "object", "properties": {"x": x}})
    }

    /// The bytes of the scratch arena and the map keys compared that OpenAI's strict rewrite of
    /// `schema` takes.
    fn strict_costs(schema: &Value) -> (usize, usize) {
        use crate::fast::{read::read, Levels, MAP_STEPS};
        let text = schema.to_string();
        let tree = bumpalo::Bump::new();
        let node = read(&text, &tree).unwrap();
        let mut scratch = bumpalo::Bump::new();
        let opts = SchemaOptions { strict: true, ..SchemaOptions::default() };
        MAP_STEPS.with(|s| s.set(0));
        let outcome = super::lower_root(&node, &mut Levels::new(Provider::OpenAi, &opts), Provider::OpenAi, &scratch, &mut Vec::new());
        assert!(matches!(outcome, Some(super::Outcome::Strict(..))));
        let steps = MAP_STEPS.with(std::cell::Cell::get);
        (scratch.iter_allocated_chunks().map(<[_]>::len).sum(), steps)
    }

    /// A node's removed keywords cost in proportion to them, in time and in the arena: the
    /// description was copied for each note (24,000 unknown keywords took the 4 GiB of wasm32)
    /// and each keyword found by a scan of the node's keys.
    #[test]
    fn many_removed_keywords_cost_in_proportion() {
        let costs = ["kw", "x-k"].map(|prefix| (prefix, strict_costs(&many_keywords(1000, prefix)), strict_costs(&many_keywords(4000, prefix))));
        for (_, (bytes, steps), (bytes_4x, steps_4x)) in costs {
            assert!(bytes_4x <= 5 * bytes && steps_4x <= 5 * steps, "bytes and keys compared at 1,000 and 4,000 keywords: {costs:?}");
        }
        // As the general path writes it.
        let (t, took) = strict(many_keywords(4000, "kw"));
        assert_eq!(took, Took::Strict);
        let description = t["parameters"]["properties"]["x"]["description"].as_str().unwrap();
        assert!(description.starts_with("d (kw0: "), "{}", &description[..40]);
        assert_eq!(description.matches(" (kw").count(), 4000);
        assert_eq!(t["parameters"]["properties"]["x"].as_object().unwrap().len(), 2);
    }

    /// Past [`super::SCANNED_KEYS`] keys, the removed keywords are found where the swap-removes
    /// moved them: the same key order and notes as the general path, with and without a
    /// description (blank too), a `format` folded first, kept keys between.
    #[test]
    fn removed_keywords_of_a_large_node_keep_the_general_order() {
        let kept = ["type", "title", "pattern"];
        let mut seed = 7u64;
        let mut next = |below: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % below
        };
        for round in 0..60 {
            let mut x = serde_json::Map::new();
            let keys = [10, 31, 32, 33, 40, 90][round % 6];
            let description = [None, Some(json!("D ")), Some(json!("  ")), Some(json!("D."))][round / 6 % 4].clone();
            let at = next(keys as u64 + 1) as usize;
            for i in 0..keys {
                if i == at {
                    if let Some(d) = &description {
                        x.insert("description".into(), d.clone());
                    }
                    if round % 3 == 0 {
                        x.insert("format".into(), json!("uri"));
                    }
                }
                match next(6) {
                    0 => x.insert(kept[next(kept.len() as u64) as usize].into(), json!("string")),
                    1 => x.insert(format!("x-k{i}"), json!(i)),
                    // Bounds that do not contradict one another (the general path would say so).
                    2 => match next(3) {
                        0 => x.insert("minLength".into(), json!(i)),
                        1 => x.insert("maxLength".into(), json!(100 + i)),
                        _ => x.insert("multipleOf".into(), json!(i + 1)),
                    },
                    3 => x.insert(["readOnly", "deprecated", "uniqueItems"][next(3) as usize].into(), json!(true)),
                    _ => x.insert(format!("kw{i}"), json!(format!("v{i}"))),
                };
            }
            x.insert("type".into(), json!("string"));
            let schema = json!({"type": "object", "properties": {"x": x}});
            let (_, took) = strict(schema.clone());
            assert_eq!(took, Took::Strict, "{schema}");
        }
    }
}
